/* fuzz_topo.c: libFuzzer harness for the topology reader as the TRAINER
 * uses it: dt_topo_load itself (train/distributed/dt_topo_load.c: rank
 * 0's size check, cm_topo_seq_read_ex with detection, so every format:
 * edge lists, 1-based and ncol lists, networkx dicts, GraphML, GML and
 * time-varying sequences; then rank 0's checks: connectivity, weights,
 * SLEM or the period product), over a one-rank dt_comm defined here. A
 * file is first read alone to learn n: dt_topo_load runs for n <= 64, so
 * the dense O(n^3) spectra stay cheap. A valid one-round topology is written back with
 * cm_topo_write and read again: the round trip must give the same n, m,
 * edges and weights, or the harness aborts (a finding). Files that read
 * but do not validate (e.g. "# n=510" over 4 nodes' edges: isolated
 * nodes) need not round-trip: the writer states n only through the
 * edges; nor a valid graph without edges (n = 1), whose file comes back
 * empty. */
#include "fuzz_util.h"

#include "cm_mixing.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "dt_topo_load.h"

/* One rank: what dt_topo_load needs of dt_comm.h. */
struct dt_comm {
    int rank0;
};
size_t dt_comm_rank(const dt_comm *c) { (void)c; return 0; }
cm_status dt_comm_agree(const dt_comm *c, cm_status s) { (void)c; return s; }
cm_status dt_comm_agree_idle(const dt_comm *c, cm_status s)
{
    (void)c;
    return s;
}
cm_status dt_comm_bcast(const dt_comm *c, void *buf, size_t bytes,
                        size_t root)
{
    (void)c, (void)buf, (void)bytes, (void)root;
    return CM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fuzz_put("in.txt", data, size, path, sizeof path);
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    cm_topo_read_opts ro = {.format = CM_FORMAT_AUTO, .base = CM_BASE_AUTO};
    static const dt_comm one = {1};
    int small = cm_topo_seq_read_ex(&s, path, &ro) == CM_OK && s.n <= 64;
    cm_topo_seq_destroy(&s);
    int one_based = 0;
    double slem = -1.0;
    if (small && dt_topo_load(&one, path, CM_WEIGHTS_MH, 0, &s, &one_based,
                              &slem) == CM_OK) {
        cm_topo *t = &s.round[0];
        /* an undirected round: dt_topo_load leaves a weighted W, and the
         * edge list round-trips (directed and epidemic files have their
         * own writers) */
        int plain = s.period == 1 && !t->directed && !cm_topo_is_epidemic(t);
        if (plain && (!t->self || !t->ew))
            abort();
        if (plain && t->m > 0)
            fuzz_topo_round_trip(t);
    }
    cm_topo_seq_destroy(&s);
    return 0;
}
