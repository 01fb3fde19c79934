/* dt_handoff.c: lost workers' shards to their nearest survivors (see
 * dt_handoff.h). A breadth-first search from each lost worker stops at
 * the first level that holds a survivor; visited marks are stamps, so
 * nothing is cleared between searches.
 */
#include "dt_handoff.h"

#include <stdlib.h>
#include <string.h>

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The survivors nearest to L, ascending, into rec (*nrec); 0 when none.
 * seen: stamps (value stamp = visited); queue: [n0]. */
static int nearest(size_t L, const size_t *off, const size_t *nb,
                   const unsigned char *lost, size_t *seen, size_t stamp,
                   size_t *queue, size_t *rec, size_t *nrec)
{
    size_t head = 0, tail = 0;
    queue[tail++] = L;
    seen[L] = stamp;
    *nrec = 0;
    while (head < tail) {
        size_t level_end = tail; /* nodes of this level: head..level_end */
        for (; head < level_end; head++) {
            size_t u = queue[head];
            for (size_t p = off[u]; p < off[u + 1]; p++) {
                size_t v = nb[p];
                if (seen[v] == stamp)
                    continue;
                seen[v] = stamp;
                if (!lost[v])
                    rec[(*nrec)++] = v;
                queue[tail++] = v;
            }
        }
        if (*nrec) {
            qsort(rec, *nrec, sizeof *rec, cmp_size);
            return 1;
        }
    }
    return 0;
}

cm_status dt_handoff_apply(dt_partition *part, const size_t *lost, size_t k,
                           const size_t *off, const size_t *nb)
{
    const size_t n0 = part->n_workers;
    if (k >= n0)
        return cm_error(CM_EINVAL, "dropping %zu of %zu workers leaves none",
                        k, n0);
    const size_t total = part->off[n0];
    cm_status s = CM_OK;
    unsigned char *is_lost = calloc(n0, 1);
    size_t *seen = calloc(n0, sizeof *seen), *queue = malloc(n0 * sizeof *queue);
    size_t *rec = malloc(n0 * sizeof *rec);
    size_t *to = malloc((total + 1) * sizeof *to); /* image slot -> worker */
    size_t *cnt = calloc(n0 + 1, sizeof *cnt);
    size_t *noff = malloc((n0 - k + 1) * sizeof *noff);
    size_t *nidx = malloc((total + 1) * sizeof *nidx);
    size_t *newid = malloc(n0 * sizeof *newid);
    if (!is_lost || !seen || !queue || !rec || !to || !cnt || !noff ||
        !nidx || !newid) {
        s = cm_error(CM_ENOMEM, "out of memory for the shards of %zu lost "
                     "workers", k);
        goto done;
    }
    for (size_t i = 0; i < k; i++)
        is_lost[lost[i]] = 1;
    for (size_t w = 0, j = 0; w < n0; w++)
        newid[w] = is_lost[w] ? SIZE_MAX : j++;
    for (size_t w = 0; w < n0; w++) /* own images stay */
        for (size_t q = part->off[w]; q < part->off[w + 1]; q++)
            to[q] = w;
    for (size_t i = 0; i < k; i++) {
        size_t L = lost[i], nrec;
        if (!nearest(L, off, nb, is_lost, seen, i + 1, queue, rec, &nrec)) {
            s = cm_error(CM_EINVAL, "lost worker %zu reaches no surviving "
                         "worker in the run's topology: its shard has no "
                         "one to go to", L);
            goto done;
        }
        for (size_t q = part->off[L], c = 0; q < part->off[L + 1]; q++, c++)
            to[q] = rec[c % nrec];
    }
    for (size_t q = 0; q < total; q++)
        cnt[newid[to[q]] + 1]++;
    noff[0] = 0;
    for (size_t j = 0; j < n0 - k; j++)
        noff[j + 1] = noff[j] + cnt[j + 1];
    memset(cnt, 0, (n0 + 1) * sizeof *cnt);
    for (size_t q = 0; q < total; q++) {
        size_t j = newid[to[q]];
        nidx[noff[j] + cnt[j]++] = part->idx[q];
    }
    for (size_t j = 0; j < n0 - k; j++)
        qsort(nidx + noff[j], noff[j + 1] - noff[j], sizeof *nidx, cmp_size);
    free(part->off);
    free(part->idx);
    part->off = noff;
    part->idx = nidx;
    part->n_workers = n0 - k;
    noff = nidx = NULL;
done:
    free(is_lost);
    free(seen);
    free(queue);
    free(rec);
    free(to);
    free(cnt);
    free(noff);
    free(nidx);
    free(newid);
    return s;
}
