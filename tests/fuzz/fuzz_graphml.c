/* fuzz_graphml.c: libFuzzer harness for the GraphML reader (libxml2's
 * streaming parser under src/cm_topo_graphml.c), the format forced as
 * `topogen eval --format graphml` does, through the reader both programs
 * use (cm_topo_seq_read_ex). An accepted document must give a topology
 * that cm_topo_write turns into an edge list reading back to the same n,
 * m, edges and weights (a finding otherwise). Seeds: what networkx,
 * python-igraph and topogen write (tests/fuzz/corpus/graphml/). */
#include "fuzz_util.h"

#include "cm_topo.h"
#include "cm_topo_seq.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT CM_FORMAT_GRAPHML
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fuzz_put("in.doc", data, size, path, sizeof path);
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    cm_topo_read_opts ro = {.format = FUZZ_FORMAT, .base = CM_BASE_AUTO};
    if (cm_topo_seq_read_ex(&s, path, &ro) == CM_OK) {
        const cm_topo *t = &s.round[0];
        if (s.period != 1 || t->n != s.n || t->n > CM_TOPO_MAX_NODES)
            abort();
        size_t top = 0;
        for (size_t k = 0; k < t->m; k++) {
            if (t->ei[k] >= t->ej[k] || t->ej[k] >= t->n)
                abort();
            top = t->ej[k] > top ? t->ej[k] : top;
        }
        if (t->m > 0 && t->n == top + 1) /* n implied by the edges */
            fuzz_topo_round_trip(t);
    }
    cm_topo_seq_destroy(&s);
    return 0;
}
