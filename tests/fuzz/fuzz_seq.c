/* fuzz_seq.c: libFuzzer harness for time-varying topology files (the
 * `# round R` sections of src/cm_topo_seq.c). An accepted sequence of up
 * to 32 nodes is validated (product norm, eigenvalue ranges); a valid one
 * is saved with cm_topo_seq_save and read again: the same period, n,
 * edges and weights, or the harness aborts (a finding). (A comment
 * starting with "round" would be written as `# round ...` and read back
 * as a malformed round header: the writer does not refuse such a
 * comment; the harness avoids it.) */
#include "fuzz_util.h"

#include "cm_topo.h"
#include "cm_topo_seq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512], back[512];
    fuzz_put("in.seq", data, size, path, sizeof path);
    cm_topo_seq s, u;
    cm_topo_seq_init(&s);
    cm_topo_seq_init(&u);
    double norm;
    if (cm_topo_seq_read(&s, path) == CM_OK && s.period > 1 && s.n <= 32 &&
        cm_topo_seq_validate(&s, path, &norm) == CM_OK) {
        snprintf(back, sizeof back, "%s/back.seq", fuzz_scratch());
        if (cm_topo_seq_save(&s, back, "fuzz round-trip") != CM_OK)
            abort();
        if (cm_topo_seq_read(&u, back) != CM_OK || u.period != s.period ||
            u.n != s.n)
            abort();
        for (size_t r = 0; r < s.period; r++) {
            const cm_topo *a = &s.round[r], *b = &u.round[r];
            if (a->m != b->m)
                abort();
            for (size_t k = 0; k < a->m; k++)
                if (a->ei[k] != b->ei[k] || a->ej[k] != b->ej[k] ||
                    a->ew[k] != b->ew[k])
                    abort();
        }
    }
    cm_topo_seq_destroy(&u);
    cm_topo_seq_destroy(&s);
    return 0;
}
