/* dt_workers: the state of the workers one rank holds in a D-PSGD run.
 *
 * Local worker i (i < count) is worker id[i] of the run (ascending; the
 * placement decides which, dt_placement), or first+i when id is NULL
 * (contiguous blocks). It owns its parameters x[i], its momentum v[i],
 * its generator rng[i] (stream 2 + worker id of the seed, so nothing
 * depends on how workers are placed on ranks), and its shard: images
 * shard_off[i] .. shard_off[i+1]-1 of `train`. A pass over the shard is
 * the sorted shard shuffled by the worker's generator; rng_pass[i] keeps
 * the generator state at the start of the pass, which is all a checkpoint
 * needs to replay the pass. In all-reduce mode (shared = 1) the workers
 * share one parameter array: x[0], v[0] (arrays = 1). In gossip mode the
 * update rule (dt_algo) runs on x and xn and keeps the momentum and any
 * other state itself: v is not allocated there.
 *
 * Plain C, no MPI: unit-testable. One rank's network runs all of its
 * workers in turn, so a worker is just (x, v, generator, batch order).
 */
#ifndef DT_WORKERS_H
#define DT_WORKERS_H

#include <stddef.h>
#include <stdint.h>

#include "cm_rng.h"
#include "cm_status.h"
#include "dt_data.h"
#include "dt_partition.h"

typedef struct {
    size_t first, count;  /* this rank's workers: first .. first+count-1 */
    size_t *id;           /* [count] their ids when not contiguous (owned;
                             NULL: first + i) */
    int shared;           /* 1: one shared x (all-reduce), else one each */
    size_t arrays;        /* parameter arrays: 1 (shared) or count */
    size_t len;           /* floats per parameter array */
    size_t xlen;          /* floats per x and xn array, >= len (gradient
                             tracking keeps its tracker behind x) */
    size_t batch;         /* images per minibatch */
    dt_data train;        /* this rank's shards, worker after worker (owned) */
    size_t *shard_off;    /* [count+1] worker i's images in train */
    float **x;            /* [arrays] parameters */
    float **xn;           /* [arrays] gossip output (NULL entries if shared) */
    float **v;            /* [arrays] momentum (all-reduce only) */
    void *slab[2];        /* own the arrays of x and of xn (or v), each
                             one zeroed block (dt_slab) */
    cm_rng *rng;          /* [count] generators, current state */
    cm_rng *rng_pass;     /* [count] state at the start of the pass */
    size_t **order;       /* [count] batch order of the current pass */
    size_t *cursor;       /* [count] next position in order */
    float *xb;            /* [batch * image] the minibatch being gathered */
    uint8_t *yb;          /* [batch] its labels */
} dt_workers;

/* The run-wide id of local worker i. */
static inline size_t dt_workers_id(const dt_workers *w, size_t i)
{
    return w->id ? w->id[i] : w->first + i;
}

/* Zeroes w (then dt_workers_destroy is safe). */
void dt_workers_init(dt_workers *w);

/* Frees everything w owns; accepts an initialized or zeroed w. */
void dt_workers_destroy(dt_workers *w);

/* Allocates the arrays of w, whose first, count, shard_off and train are
 * already set, for parameters of len floats and minibatches of `batch`
 * images: x of max(xlen, len) floats (zeroed, for the caller to
 * initialize), v (shared only, zeroed), xn (unless shared, as x), each
 * set in one slab with its page faults taken here (dt_slab), the batch
 * orders, and generator i seeded with stream
 * 2 + dt_workers_id(w, i) of seed. The first minibatch of every worker starts a
 * pass. CM_ENOMEM naming what ran out. O(count * len + shard sizes). */
cm_status dt_workers_alloc(dt_workers *w, int shared, size_t len,
                           size_t xlen, size_t batch, uint64_t seed);

/* Images in worker i's shard. */
size_t dt_workers_shard_size(const dt_workers *w, size_t i);

/* Starts a new pass of local worker i: rng_pass[i] = rng[i], order[i] =
 * its sorted shard shuffled by rng[i], cursor 0. O(shard). */
void dt_workers_new_pass(dt_workers *w, size_t i);

/* Gathers worker i's next minibatch into w->xb, w->yb (batch images,
 * starting a new pass when fewer than batch remain in this one). */
void dt_workers_next_batch(dt_workers *w, size_t i);

/* Loads this rank's shards of part (the workers of w, as the placement
 * set them: id, count) from src, normalized by norm, into w->train,
 * worker after worker, and sets w->shard_off. CM_ENOMEM, or the status of
 * dt_data_load. O(images of the shards). */
cm_status dt_workers_load_shards(dt_workers *w, const dt_partition *part,
                                 const dt_source *src, const dt_norm *norm);

#endif
