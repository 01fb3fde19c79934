/* dt_workers.c: per-rank worker state of D-PSGD (see dt_workers.h).
 * A pass reshuffles the sorted shard, not the previous order, so a pass is
 * a function of the generator state at its start (what a checkpoint
 * stores). A minibatch never wraps across passes: the tail of a pass
 * shorter than a batch is skipped.
 */
#include "dt_workers.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_slab.h"
#include "dt_train.h"

void dt_workers_init(dt_workers *w) { memset(w, 0, sizeof *w); }

void dt_workers_destroy(dt_workers *w)
{
    /* x[i], xn[i] and v[i] live in the two slabs (dt_algo may have
     * swapped x[i] and xn[i]: the same arrays, freed with the slabs) */
    dt_slab_free(w->slab[0]);
    dt_slab_free(w->slab[1]);
    for (size_t i = 0; w->order && i < w->count; i++)
        free(w->order[i]);
    free(w->x);
    free(w->xn);
    free(w->v);
    free(w->order);
    free(w->cursor);
    free(w->rng);
    free(w->rng_pass);
    free(w->xb);
    free(w->yb);
    free(w->shard_off);
    free(w->id);
    dt_data_destroy(&w->train);
    memset(w, 0, sizeof *w);
}

size_t dt_workers_shard_size(const dt_workers *w, size_t i)
{
    return w->shard_off[i + 1] - w->shard_off[i];
}

cm_status dt_workers_alloc(dt_workers *w, int shared, size_t len,
                           size_t xlen, size_t batch, uint64_t seed)
{
    const size_t img = w->train.c * w->train.h * w->train.w;
    w->shared = shared;
    w->arrays = shared ? 1 : w->count;
    w->len = len;
    w->xlen = xlen > len ? xlen : len;
    w->batch = batch;
    /* two float arrays per worker (x and xn or v): refused up front when
     * they pass this host's memory, before calloc's lazy pages are touched
     * (a 10^6-worker file would otherwise meet the OOM killer) */
    double need = 2.0 * (double)w->arrays * (double)w->xlen * sizeof(float);
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    double have = pages > 0 && psize > 0 ? (double)pages * (double)psize : 0;
    if (have > 0.0 && need > have)
        return cm_error(CM_ENOMEM, "%zu workers of %zu parameters need "
                        "%.1f GB of worker arrays, more than this host's "
                        "%.1f GB", w->count, len, need / 1e9, have / 1e9);
    w->x = calloc(w->arrays, sizeof *w->x);
    w->xn = calloc(w->arrays, sizeof *w->xn);
    w->v = calloc(w->arrays, sizeof *w->v);
    w->rng = calloc(w->count, sizeof *w->rng);
    w->rng_pass = calloc(w->count, sizeof *w->rng_pass);
    w->order = calloc(w->count, sizeof *w->order);
    w->cursor = calloc(w->count, sizeof *w->cursor);
    w->xb = malloc((batch ? batch : 1) * img * sizeof *w->xb);
    w->yb = malloc(batch ? batch : 1);
    if (!w->x || !w->xn || !w->v || !w->rng || !w->rng_pass || !w->order ||
        !w->cursor || !w->xb || !w->yb)
        return cm_error(CM_ENOMEM, "out of memory for %zu workers",
                        w->count);
    cm_status s = dt_slab_alloc(w->arrays, w->xlen, "parameter arrays",
                                w->x, &w->slab[0]);
    if (s == CM_OK)
        s = dt_slab_alloc(w->arrays, shared ? len : w->xlen,
                          shared ? "momentum arrays" : "gossip arrays",
                          shared ? w->v : w->xn, &w->slab[1]);
    if (s != CM_OK)
        return s;
    for (size_t i = 0; i < w->count; i++) {
        size_t n_i = dt_workers_shard_size(w, i);
        if (!(w->order[i] = malloc((n_i ? n_i : 1) * sizeof(size_t))))
            return cm_error(CM_ENOMEM, "out of memory for batch orders");
        cm_rng_seed(&w->rng[i], seed, 2 + dt_workers_id(w, i));
        w->cursor[i] = n_i; /* the first step starts a pass */
    }
    return CM_OK;
}

void dt_workers_new_pass(dt_workers *w, size_t i)
{
    size_t lo = w->shard_off[i], n_i = dt_workers_shard_size(w, i);
    w->rng_pass[i] = w->rng[i];
    for (size_t k = 0; k < n_i; k++)
        w->order[i][k] = lo + k;
    cm_rng_shuffle_size(&w->rng[i], w->order[i], n_i);
    w->cursor[i] = 0;
}

void dt_workers_next_batch(dt_workers *w, size_t i)
{
    if (w->cursor[i] + w->batch > dt_workers_shard_size(w, i))
        dt_workers_new_pass(w, i);
    dt_batch_gather(&w->train, w->order[i], w->cursor[i], w->batch, w->xb,
                    w->yb);
    w->cursor[i] += w->batch;
}

/* This rank's shards, worker after worker: idx gets the image indices
 * (owned by the caller), w->shard_off the offsets. */
static cm_status gather_shards(dt_workers *w, const dt_partition *part,
                               size_t **idx, size_t *total)
{
    *total = 0;
    for (size_t i = 0; i < w->count; i++) {
        size_t id = dt_workers_id(w, i);
        *total += part->off[id + 1] - part->off[id];
    }
    w->shard_off = malloc((w->count + 1) * sizeof *w->shard_off);
    *idx = malloc((*total + 1) * sizeof **idx);
    if (!w->shard_off || !*idx)
        return cm_error(CM_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < w->count; i++) {
        size_t id = dt_workers_id(w, i), lo = part->off[id];
        w->shard_off[i] = k;
        memcpy(*idx + k, part->idx + lo,
               (part->off[id + 1] - lo) * sizeof **idx);
        k += part->off[id + 1] - lo;
    }
    w->shard_off[w->count] = k;
    return CM_OK;
}

cm_status dt_workers_load_shards(dt_workers *w, const dt_partition *part,
                                 const dt_source *src, const dt_norm *norm)
{
    size_t *idx = NULL, total = 0;
    cm_status s = gather_shards(w, part, &idx, &total);
    if (s == CM_OK)
        s = dt_data_load(src, DT_SPLIT_TRAIN, idx, total, norm, &w->train);
    free(idx);
    return s;
}
