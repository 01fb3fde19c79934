/* fuzz_neighbours.c: libFuzzer harness for what --drop-workers reads: the
 * LIST (cm_idlist_parse, src/cm_idlist.c) and DIR/neighbours
 * (dt_ckpt_neighbours_read, train/core/dt_ckpt_nb.c), then the handover
 * of the lost shards (dt_handoff_apply) on what they accept. The input's
 * first line is the LIST, the rest the neighbours file. Checks: a LIST
 * accepted is ascending and distinct and formats back to a LIST that
 * parses to the same ids; neighbour lists accepted are ascending,
 * symmetric and round-trip through dt_ckpt_neighbours_write; the handover
 * keeps every image once, each new shard ascending. */
#include "fuzz_util.h"

#include "cm_idlist.h"
#include "dt_ckpt.h"
#include "dt_handoff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4096], again[600], list[256];
    const char *dir = fuzz_scratch();
    size_t nl = 0;
    while (nl < size && nl < 200 && data[nl] != '\n')
        nl++;
    memcpy(list, data, nl);
    list[nl] = '\0';
    size_t *ids = NULL, k = 0;
    cm_status ls = cm_idlist_parse(list, 0, "--drop-workers", &ids, &k);
    if (ls == CM_OK) {
        char text[4096];
        size_t *ids2 = NULL, k2 = 0;
        for (size_t i = 1; i < k; i++)
            if (ids[i] <= ids[i - 1])
                abort();
        cm_idlist_format(ids, k, text, sizeof text);
        if (strlen(text) < sizeof text - 64) { /* not truncated */
            if (cm_idlist_parse(text, 0, "x", &ids2, &k2) != CM_OK ||
                k2 != k || memcmp(ids, ids2, k * sizeof *ids) != 0)
                abort();
        }
        free(ids2);
    }
    size_t rest = size > nl ? size - nl - (nl < size) : 0;
    fuzz_put("neighbours", data + size - rest, rest, path, sizeof path);
    size_t n = 0, *off = NULL, *nb = NULL;
    uint64_t h = 0;
    if (dt_ckpt_neighbours_read(dir, &n, &h, &off, &nb) == CM_OK) {
        for (size_t i = 0; i < n; i++)
            for (size_t p = off[i]; p < off[i + 1]; p++)
                if (nb[p] >= n || nb[p] == i ||
                    (p > off[i] && nb[p] <= nb[p - 1]))
                    abort();
        snprintf(again, sizeof again, "%s/again", dir);
        mkdir(again, 0777);
        snprintf(path, sizeof path, "%s/neighbours", again);
        unlink(path);
        size_t n2 = 0, *off2 = NULL, *nb2 = NULL;
        uint64_t h2 = 0;
        if (dt_ckpt_neighbours_write(again, n, off, nb, h) != CM_OK ||
            dt_ckpt_neighbours_read(again, &n2, &h2, &off2, &nb2) != CM_OK ||
            n2 != n || h2 != h ||
            memcmp(off, off2, (n + 1) * sizeof *off) != 0 ||
            memcmp(nb, nb2, off[n] * sizeof *nb) != 0)
            abort();
        free(off2);
        free(nb2);
        if (ls == CM_OK && k < n && ids[k - 1] < n && n <= 4096) {
            dt_partition part; /* 3 images per worker: idx 3w .. 3w+2 */
            dt_partition_init(&part);
            part.n_workers = n;
            part.off = malloc((n + 1) * sizeof *part.off);
            part.idx = malloc((3 * n + 1) * sizeof *part.idx);
            if (!part.off || !part.idx)
                abort();
            for (size_t w = 0; w <= n; w++)
                part.off[w] = 3 * w;
            for (size_t q = 0; q < 3 * n; q++)
                part.idx[q] = q;
            if (dt_handoff_apply(&part, ids, k, off, nb) == CM_OK) {
                unsigned char *seen = calloc(3 * n + 1, 1);
                if (!seen || part.n_workers != n - k ||
                    part.off[part.n_workers] != 3 * n)
                    abort();
                for (size_t w = 0; w < part.n_workers; w++)
                    for (size_t q = part.off[w]; q < part.off[w + 1]; q++) {
                        if (part.idx[q] >= 3 * n || seen[part.idx[q]]++ ||
                            (q > part.off[w] &&
                             part.idx[q] <= part.idx[q - 1]))
                            abort();
                    }
                free(seen);
            }
            dt_partition_destroy(&part);
        }
    }
    free(off);
    free(nb);
    free(ids);
    return 0;
}
