/* fuzz_labels.c: libFuzzer harness for the counts file reader
 * (cm_labels_read, src/cm_labels.c), the partition file that dpsgd-train
 * --write-partition writes and topogen --labels reads. Each input is a
 * counts file. An accepted file must satisfy the reader's contract (n >=
 * 1 workers, K >= 1 counts each, every worker with an image, within the
 * limits), and a round trip through cm_labels_save must read back the
 * same workers, counts and identity, or the harness aborts (a finding).
 * The proportions of an accepted file are computed too (rows sum to 1). */
#include "fuzz_util.h"

#include <math.h>

#include "cm_labels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512], back[512];
    fuzz_put("in.txt", data, size, path, sizeof path);
    cm_labels l, u;
    cm_labels_init(&l);
    cm_labels_init(&u);
    if (cm_labels_read(&l, path) == CM_OK) {
        if (l.n < 1 || l.k < 1 || l.k > CM_LABELS_MAX_CLASSES ||
            l.n * l.k > CM_LABELS_MAX_CELLS || !l.count)
            abort();
        for (size_t i = 0; i < l.n; i++) {
            uint64_t sum = 0;
            for (size_t c = 0; c < l.k; c++) {
                if (l.count[i * l.k + c] > CM_LABELS_MAX_COUNT)
                    abort();
                sum += l.count[i * l.k + c];
            }
            if (sum == 0)
                abort();
        }
        if (l.n * l.k <= 100000) {
            double *pi = malloc(l.n * l.k * sizeof *pi);
            if (!pi)
                abort();
            cm_labels_proportions(&l, pi);
            for (size_t i = 0; i < l.n; i++) {
                double row = 0.0;
                for (size_t c = 0; c < l.k; c++)
                    row += pi[i * l.k + c];
                if (!(fabs(row - 1.0) < 1e-9))
                    abort();
            }
            free(pi);
        }
        snprintf(back, sizeof back, "%s/back.txt", fuzz_scratch());
        if (cm_labels_save(&l, back, "round trip") != CM_OK ||
            cm_labels_read(&u, back) != CM_OK || u.n != l.n || u.k != l.k ||
            memcmp(u.count, l.count, l.n * l.k * sizeof *l.count) != 0 ||
            strcmp(u.identity, l.identity) != 0)
            abort();
    }
    cm_labels_destroy(&u);
    cm_labels_destroy(&l);
    return 0;
}
