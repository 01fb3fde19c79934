/* dt_partition: which training images each worker owns, and which workers
 * each rank holds.
 *
 * Data shards: `iid` shuffles all images and deals them into n_workers
 * shards whose sizes differ by at most one; `dirichlet:ALPHA` makes
 * label-skewed shards as in Hsu et al. 2019 / Wang et al. 2020 (FedMA):
 * for each class, proportions over workers are drawn from
 * Dirichlet(ALPHA, ..., ALPHA) (normalized cm_rng_gamma draws), workers
 * already holding n_images/n_workers images get proportion 0, and the
 * class's shuffled images are split accordingly; the whole draw is
 * repeated until every worker has at least min_shard images (bounded
 * tries). Small ALPHA (0.1) gives workers dominated by one or two classes.
 * `shards:C` gives every worker exactly C classes (C = 1: the extreme skew
 * of D-Cliques): n*C slots, slot s of class s mod K, worker w taking the
 * C consecutive slots of the group perm[w] (a seeded permutation, so
 * classes are not aligned with worker ids); each class's shuffled images
 * are cut into as many equal pieces as it has slots, so shard sizes are
 * balanced when the classes are.
 * Both depend only on the labels, n_workers and the seed (never on the
 * number of ranks), so every rank computes the same partition and loads
 * only its own workers' images. Shards are sorted index lists.
 *
 * Worker blocks: n workers over P ranks in contiguous blocks, the first
 * n mod P ranks holding one extra worker.
 */
#ifndef DT_PARTITION_H
#define DT_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"

typedef enum {
    DT_PART_IID,       /* shuffled, near-equal shards */
    DT_PART_DIRICHLET, /* label-skewed shards, Dirichlet(alpha) per class */
    DT_PART_SHARDS     /* exactly `classes` classes per worker */
} dt_part_kind;

typedef struct {
    dt_part_kind kind; /* the scheme */
    double alpha;      /* Dirichlet concentration (> 0); unused for iid */
    size_t classes;    /* shards: classes per worker (>= 1) */
} dt_part_spec;

typedef struct {
    size_t n_workers; /* number of shards */
    size_t *off;      /* [n_workers+1] shard w is idx[off[w] .. off[w+1]) */
    size_t *idx;      /* [off[n_workers]] image indices, ascending within
                         each shard; shards are disjoint */
} dt_partition;

/* Parses "iid", "dirichlet:ALPHA" (ALPHA a finite number > 0) or
 * "shards:C" (C an integer, 1 <= C <= 1000).
 * CM_EINVAL with a message naming the value otherwise. */
cm_status dt_partition_parse(const char *s, dt_part_spec *spec);

/* Writes the spec as parsed ("iid", "dirichlet:0.1") into buf. */
void dt_partition_spec_str(const dt_part_spec *spec, char *buf, size_t n);

/* Sets every field of p to empty. */
void dt_partition_init(dt_partition *p);

/* Frees what p owns and re-initializes it. Accepts NULL. */
void dt_partition_destroy(dt_partition *p);

/* Partitions images 0..n_images-1 with labels[i] < n_classes among
 * n_workers workers by spec, deterministically from seed. iid uses every
 * image; dirichlet uses every image too, and guarantees each shard at
 * least min_shard images (tries up to 100 draws; CM_EINVAL naming ALPHA,
 * the worker count and min_shard when none succeeds); shards uses every
 * image, CM_EINVAL when C > n_classes or a shard would have fewer than
 * min_shard images (or a class piece none). CM_EINVAL when
 * n_workers is 0, n_images < n_workers * max(min_shard, 1), or a label is
 * out of range (naming the image). p must be initialized; its old content
 * is destroyed. O(tries * (n_images + n_classes * n_workers)). */
cm_status dt_partition_make(dt_partition *p, const dt_part_spec *spec,
                            const uint8_t *labels, size_t n_images,
                            size_t n_classes, size_t n_workers,
                            size_t min_shard, uint64_t seed);

/* Shard of worker w (< p->n_workers): *count indices, borrowed from p. */
const size_t *dt_partition_shard(const dt_partition *p, size_t w,
                                 size_t *count);

/* Block mapping of n workers over P ranks (0 < P <= n): rank r holds
 * workers *first .. *first + *count - 1. O(1). */
void dt_partition_block_range(size_t n, size_t P, size_t r, size_t *first,
                              size_t *count);

/* The rank (< P) that holds worker w < n under the block mapping. O(1). */
size_t dt_partition_block_owner(size_t n, size_t P, size_t w);

/* Per-worker class counts of p: counts[w*n_classes + c] (caller's
 * [n_workers * n_classes]) = images of class c in shard w. O(images). */
void dt_partition_counts(const dt_partition *p, const uint8_t *labels,
                         size_t n_classes, uint64_t *counts);

#endif
