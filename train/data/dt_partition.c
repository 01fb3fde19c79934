/* dt_partition.c: iid and Dirichlet label-skewed shards, and the block
 * mapping of workers to ranks.
 *
 * Both schemes first decide an owner worker for every image and then build
 * the shards with one counting pass over the images in ascending order, so
 * each shard comes out sorted. The Dirichlet split follows the widely used
 * FedMA / FedML partitioner (Wang et al. 2020): per class, proportions
 * p ~ Dir(alpha) over workers, zeroed for workers already at the mean
 * shard size (this balances sizes without removing the skew), and the
 * class's shuffled images cut at floor(cumsum(p) * n_c). Draws come from
 * one cm_rng stream (seed, PART_STREAM), so the result depends on the
 * seed, labels and worker count only.
 */
#include "dt_partition.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_rng.h"

#define PART_STREAM 0x70617274ULL /* "part": the partition's RNG stream */
#define PART_TRIES 100

cm_status dt_partition_parse(const char *s, dt_part_spec *spec)
{
    static const char pre[] = "dirichlet:";
    if (s && strcmp(s, "iid") == 0) {
        spec->kind = DT_PART_IID;
        spec->alpha = 0.0;
        return CM_OK;
    }
    static const char sh[] = "shards:";
    if (s && strncmp(s, sh, sizeof sh - 1) == 0) {
        const char *a = s + sizeof sh - 1;
        char *end = NULL;
        errno = 0;
        unsigned long long c = isdigit((unsigned char)*a)
                                   ? strtoull(a, &end, 10) : 0;
        if (end && *end == '\0' && !errno && c >= 1 && c <= 1000) {
            spec->kind = DT_PART_SHARDS;
            spec->alpha = 0.0;
            spec->classes = (size_t)c;
            return CM_OK;
        }
        return cm_error(CM_EINVAL, "--partition '%s': expected shards:C "
                        "with an integer 1 <= C <= 1000", s);
    }
    if (s && strncmp(s, pre, sizeof pre - 1) == 0) {
        const char *a = s + sizeof pre - 1;
        char *end = NULL;
        double alpha = strtod(a, &end);
        if (*a && end && *end == '\0' && isfinite(alpha) && alpha > 0.0) {
            spec->kind = DT_PART_DIRICHLET;
            spec->alpha = alpha;
            return CM_OK;
        }
    }
    return cm_error(CM_EINVAL, "--partition '%s': expected iid, "
                    "dirichlet:ALPHA with a number ALPHA > 0 or shards:C",
                    s ? s : "(null)");
}

void dt_partition_spec_str(const dt_part_spec *spec, char *buf, size_t n)
{
    if (spec->kind == DT_PART_IID)
        snprintf(buf, n, "iid");
    else if (spec->kind == DT_PART_SHARDS)
        snprintf(buf, n, "shards:%zu", spec->classes);
    else
        snprintf(buf, n, "dirichlet:%g", spec->alpha);
}

void dt_partition_init(dt_partition *p)
{
    p->n_workers = 0;
    p->off = NULL;
    p->idx = NULL;
}

void dt_partition_destroy(dt_partition *p)
{
    if (!p)
        return;
    free(p->off);
    free(p->idx);
    dt_partition_init(p);
}

const size_t *dt_partition_shard(const dt_partition *p, size_t w,
                                 size_t *count)
{
    *count = p->off[w + 1] - p->off[w];
    return p->idx + p->off[w];
}

void dt_partition_block_range(size_t n, size_t P, size_t r, size_t *first,
                              size_t *count)
{
    size_t base = n / P, extra = n % P;
    if (r < extra) {
        *first = r * (base + 1);
        *count = base + 1;
    } else {
        *first = extra * (base + 1) + (r - extra) * base;
        *count = base;
    }
}

size_t dt_partition_block_owner(size_t n, size_t P, size_t w)
{
    size_t base = n / P, extra = n % P, big = extra * (base + 1);
    return w < big ? w / (base + 1) : extra + (w - big) / base;
}

/* iid owners: a shuffled permutation dealt in near-equal consecutive
 * pieces. */
static void iid_owners(cm_rng *r, size_t n_images, size_t n_workers,
                       size_t *perm, size_t *owner)
{
    for (size_t i = 0; i < n_images; i++)
        perm[i] = i;
    cm_rng_shuffle_size(r, perm, n_images);
    size_t k = 0;
    for (size_t w = 0; w < n_workers; w++) {
        size_t first, count;
        dt_partition_block_range(n_images, n_workers, w, &first, &count);
        for (size_t e = 0; e < count; e++)
            owner[perm[k++]] = w;
    }
}

/* One Dirichlet draw of owners. byclass holds the images of class c at
 * byclass[coff[c] .. coff[c+1]) (shuffled here in place). Returns the
 * smallest shard size, or 0 when a class could not be placed. */
static size_t dirichlet_owners(cm_rng *r, double alpha, size_t n_images,
                               size_t n_classes, size_t n_workers,
                               size_t *byclass, const size_t *coff,
                               size_t *owner, size_t *size, double *prop)
{
    const double cap = (double)n_images / (double)n_workers;
    memset(size, 0, n_workers * sizeof *size);
    for (size_t c = 0; c < n_classes; c++) {
        size_t nc = coff[c + 1] - coff[c];
        size_t *img = byclass + coff[c];
        if (nc == 0)
            continue;
        cm_rng_shuffle_size(r, img, nc);
        double sum = 0.0;
        for (size_t w = 0; w < n_workers; w++) {
            double g = cm_rng_gamma(r, alpha);
            prop[w] = (double)size[w] < cap ? g : 0.0;
            sum += prop[w];
        }
        if (!(sum > 0.0) || !isfinite(sum))
            return 0;
        double cum = 0.0;
        size_t lo = 0;
        for (size_t w = 0; w < n_workers; w++) {
            cum += prop[w] / sum;
            size_t hi = w + 1 == n_workers ? nc : (size_t)floor(cum * nc);
            if (hi > nc)
                hi = nc;
            if (hi < lo)
                hi = lo;
            for (size_t e = lo; e < hi; e++)
                owner[img[e]] = w;
            size[w] += hi - lo;
            lo = hi;
        }
    }
    size_t smallest = SIZE_MAX;
    for (size_t w = 0; w < n_workers; w++)
        if (size[w] < smallest)
            smallest = size[w];
    return smallest;
}

/* shards:C owners (see the header): class c gets m_c = n*C/K slots (the
 * first n*C mod K classes one more); worker by worker, in a seeded order,
 * each takes one slot of each of the C distinct classes with the most
 * slots left (ties broken by a seeded class order), which always
 * completes since m_c <= n. Class c's shuffled images are then cut into
 * m_c equal pieces, piece q to the worker of its q-th slot. byclass/coff
 * as for dirichlet_owners; taker: [n*C] scratch. Returns the smallest
 * shard size, 0 when a piece of a class is empty. */
static size_t shard_owners(cm_rng *r, size_t C, size_t n_classes,
                           size_t n_workers, size_t *byclass,
                           const size_t *coff, size_t *owner, size_t *size,
                           size_t *taker)
{
    size_t K = n_classes, slots = n_workers * C;
    size_t *left = calloc(3 * K + n_workers, sizeof *left);
    if (!left)
        return 0;
    size_t *start = left + K, *order = start + K, *perm = order + K;
    for (size_t c = 0, at = 0; c < K; c++) {
        left[c] = slots / K + (c < slots % K);
        start[c] = at;
        at += left[c];
        order[c] = c;
    }
    for (size_t w = 0; w < n_workers; w++)
        perm[w] = w;
    cm_rng_shuffle_size(r, perm, n_workers);
    cm_rng_shuffle_size(r, order, K);
    size_t *fill = calloc(K, sizeof *fill);
    if (!fill) {
        free(left);
        return 0;
    }
    for (size_t g = 0; g < n_workers; g++) {
        /* C classes with the most slots left: a stable selection over
         * the seeded order (K is small) */
        for (size_t j = 0; j < C; j++) {
            size_t best = K;
            for (size_t q = 0; q < K; q++) {
                size_t c = order[q];
                if (left[c] == 0 || (fill[c] & ((size_t)1 << 63)))
                    continue;
                if (best == K || left[c] > left[best])
                    best = c;
            }
            if (best == K) {
                free(fill);
                free(left);
                return 0;
            }
            taker[start[best] + (fill[best] & ~((size_t)1 << 63))] = perm[g];
            fill[best] = (fill[best] + 1) | ((size_t)1 << 63); /* taken */
            left[best]--;
        }
        for (size_t c = 0; c < K; c++)
            fill[c] &= ~((size_t)1 << 63);
        cm_rng_shuffle_size(r, order, K); /* fresh tie order per worker */
    }
    free(fill);
    memset(size, 0, n_workers * sizeof *size);
    size_t smallest_piece = SIZE_MAX;
    for (size_t c = 0; c < K; c++) {
        size_t nc = coff[c + 1] - coff[c];
        size_t *img = byclass + coff[c];
        size_t m = slots / K + (c < slots % K);
        if (m == 0)
            continue;
        cm_rng_shuffle_size(r, img, nc);
        for (size_t q = 0; q < m; q++) {
            size_t w = taker[start[c] + q];
            size_t lo = nc * q / m, hi = nc * (q + 1) / m;
            for (size_t e = lo; e < hi; e++)
                owner[img[e]] = w;
            size[w] += hi - lo;
            if (hi - lo < smallest_piece)
                smallest_piece = hi - lo;
        }
    }
    free(left);
    if (smallest_piece == 0)
        return 0;
    size_t smallest = SIZE_MAX;
    for (size_t w = 0; w < n_workers; w++)
        if (size[w] < smallest)
            smallest = size[w];
    return smallest;
}

void dt_partition_counts(const dt_partition *p, const uint8_t *labels,
                         size_t n_classes, uint64_t *counts)
{
    memset(counts, 0, p->n_workers * n_classes * sizeof *counts);
    for (size_t w = 0; w < p->n_workers; w++)
        for (size_t e = p->off[w]; e < p->off[w + 1]; e++)
            counts[w * n_classes + labels[p->idx[e]]]++;
}

cm_status dt_partition_make(dt_partition *p, const dt_part_spec *spec,
                            const uint8_t *labels, size_t n_images,
                            size_t n_classes, size_t n_workers,
                            size_t min_shard, uint64_t seed)
{
    size_t *owner = NULL, *tmp = NULL, *coff = NULL, *size = NULL;
    double *prop = NULL;
    cm_status s = CM_OK;
    size_t need = min_shard > 1 ? min_shard : 1;

    dt_partition_destroy(p);
    if (n_workers == 0)
        return cm_error(CM_EINVAL, "partition into 0 workers");
    if (n_images / n_workers < need)
        return cm_error(CM_EINVAL, "%zu training images are too few for %zu "
                        "workers with at least %zu images each", n_images,
                        n_workers, need);
    for (size_t i = 0; i < n_images; i++)
        if (labels[i] >= n_classes)
            return cm_error(CM_EINVAL, "image %zu has label %u, outside "
                            "0..%zu", i, (unsigned)labels[i], n_classes - 1);
    owner = malloc(n_images * sizeof *owner);
    tmp = malloc(n_images * sizeof *tmp);
    coff = calloc(n_classes + 1, sizeof *coff);
    size = calloc(n_workers + 1, sizeof *size);
    prop = malloc(n_workers * sizeof *prop);
    p->off = calloc(n_workers + 1, sizeof *p->off);
    p->idx = malloc(n_images * sizeof *p->idx);
    if (!owner || !tmp || !coff || !size || !prop || !p->off || !p->idx) {
        s = cm_error(CM_ENOMEM, "out of memory partitioning %zu images",
                     n_images);
        goto done;
    }
    cm_rng r;
    cm_rng_seed(&r, seed, PART_STREAM);
    if (spec->kind == DT_PART_IID) {
        iid_owners(&r, n_images, n_workers, tmp, owner);
    } else if (spec->kind == DT_PART_SHARDS) {
        if (spec->classes > n_classes) {
            s = cm_error(CM_EINVAL, "--partition shards:%zu: the data set "
                         "has only %zu classes", spec->classes, n_classes);
            goto done;
        }
        if (n_workers * spec->classes < n_classes) {
            s = cm_error(CM_EINVAL, "--partition shards:%zu: %zu workers "
                         "hold %zu class slots, fewer than the %zu classes "
                         "(images would be left out)", spec->classes,
                         n_workers, n_workers * spec->classes, n_classes);
            goto done;
        }
        size_t *perm = malloc(n_workers * spec->classes * sizeof *perm);
        if (!perm) {
            s = cm_error(CM_ENOMEM, "out of memory partitioning");
            goto done;
        }
        for (size_t i = 0; i < n_images; i++)
            coff[labels[i] + 1]++;
        for (size_t c = 0; c < n_classes; c++)
            coff[c + 1] += coff[c];
        for (size_t i = 0; i < n_images; i++)
            tmp[coff[labels[i]]++] = i;
        memmove(coff + 1, coff, n_classes * sizeof *coff);
        coff[0] = 0;
        size_t smallest = shard_owners(&r, spec->classes, n_classes,
                                       n_workers, tmp, coff, owner, size,
                                       perm);
        free(perm);
        if (smallest < need) {
            s = cm_error(CM_EINVAL, "--partition shards:%zu: %zu workers "
                         "x %zu classes cut some class into pieces too "
                         "small (a shard needs at least %zu images)",
                         spec->classes, n_workers, spec->classes, need);
            goto done;
        }
    } else {
        size_t tries = 0, smallest = 0;
        while (tries < PART_TRIES && smallest < need) {
            /* Images of each class in ascending order, then shuffled. */
            memset(coff, 0, (n_classes + 1) * sizeof *coff);
            for (size_t i = 0; i < n_images; i++)
                coff[labels[i] + 1]++;
            for (size_t c = 0; c < n_classes; c++)
                coff[c + 1] += coff[c];
            for (size_t i = 0; i < n_images; i++)
                tmp[coff[labels[i]]++] = i;
            memmove(coff + 1, coff, n_classes * sizeof *coff);
            coff[0] = 0;
            smallest = dirichlet_owners(&r, spec->alpha, n_images, n_classes,
                                        n_workers, tmp, coff, owner, size,
                                        prop);
            tries++;
        }
        if (smallest < need) {
            s = cm_error(CM_EINVAL, "--partition dirichlet:%g: no draw in "
                         "%d gave each of %zu workers at least %zu images; "
                         "use a larger ALPHA or fewer workers", spec->alpha,
                         PART_TRIES, n_workers, need);
            goto done;
        }
    }
    /* Counting sort by owner; ascending images keep each shard sorted. */
    for (size_t i = 0; i < n_images; i++)
        p->off[owner[i] + 1]++;
    for (size_t w = 0; w < n_workers; w++)
        p->off[w + 1] += p->off[w];
    memcpy(size, p->off, n_workers * sizeof *size);
    for (size_t i = 0; i < n_images; i++)
        p->idx[size[owner[i]]++] = i;
    p->n_workers = n_workers;
done:
    free(prop);
    free(size);
    free(coff);
    free(tmp);
    free(owner);
    if (s != CM_OK)
        dt_partition_destroy(p);
    return s;
}
