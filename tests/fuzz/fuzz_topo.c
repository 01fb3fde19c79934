/* fuzz_topo.c: libFuzzer harness for the topology reader as the TRAINER
 * uses it: cm_topo_seq_read_ex with detection (dt_topo_load's call; so
 * every format: edge lists, 1-based and ncol lists, networkx dicts,
 * GraphML, GML and time-varying sequences), then rank 0's checks
 * (connectivity and cm_topo_seq_validate, for n <= 64 so the dense O(n^3)
 * spectra stay cheap). A valid one-round topology is written back with
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512], back[512];
    fuzz_put("in.txt", data, size, path, sizeof path);
    cm_topo_seq s;
    cm_topo u;
    cm_topo_seq_init(&s);
    cm_topo_init(&u);
    cm_topo_read_opts ro = {CM_FORMAT_AUTO, CM_BASE_AUTO, CM_FORMAT_AUTO, 0,
                            0};
    double norm;
    if (cm_topo_seq_read_ex(&s, path, &ro) == CM_OK && s.n <= 64) {
        cm_topo *t = &s.round[0];
        int ok = s.period > 1 || cm_topo_check_connected(t, path) == CM_OK;
        if (ok && s.period == 1 && !t->self)
            ok = cm_topo_set_weights(t, CM_WEIGHTS_MH) == CM_OK;
        ok = ok && cm_topo_seq_validate(&s, path, &norm) == CM_OK;
        if (ok && s.period == 1 && t->m > 0) {
            snprintf(back, sizeof back, "%s/back.txt", fuzz_scratch());
            char note[64]; /* n= keeps the numbering 0-based and n exact */
            snprintf(note, sizeof note, "fuzz round-trip n=%zu", t->n);
            FILE *f = fopen(back, "w");
            if (!f || cm_topo_write(t, f, note) != CM_OK || fclose(f))
                abort();
            if (cm_topo_read(&u, back) != CM_OK || u.n != t->n ||
                u.m != t->m || (t->ew == NULL) != (u.ew == NULL))
                abort();
            for (size_t k = 0; k < t->m; k++)
                if (u.ei[k] != t->ei[k] || u.ej[k] != t->ej[k] ||
                    (t->ew && u.ew[k] != t->ew[k]))
                    abort();
        }
    }
    cm_topo_destroy(&u);
    cm_topo_seq_destroy(&s);
    return 0;
}
