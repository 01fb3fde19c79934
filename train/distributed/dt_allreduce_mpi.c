/* dt_allreduce_mpi.c: the all-reduces of dt_allreduce.h over MPI.
 *
 * direct: x is copied into P blocks of b = ceil(n/P) floats (the last one
 * padded with zeros), MPI_Ialltoall gives rank j every rank's block j,
 * rank j sums them in rank order (a float sum, block 0 first, as the
 * library sums MPI_FLOAT), and MPI_Iallgather returns every summed block
 * to every rank. hierarchical: MPI_Ireduce to the group's first rank
 * (never in place: SMPI 3.32's in-place non-blocking reductions are
 * wrong, docs/smpi.md), the library's all-reduce among the leaders
 * (dt_comm_allreduce_sum_float on their communicator), MPI_Ibcast inside
 * the group. Every wait goes through dt_wd_wait (--timeout).
 */
#include "dt_allreduce.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cm_place.h"
#include "dt_comm_mpi.h"
#include "dt_watchdog.h"
#include "dt_nbc_smpi.h"

struct dt_allreduce {
    cm_net_ar_alg alg;   /* CM_AR_AUTO, CM_AR_DIRECT, CM_AR_HIER or
                            CM_AR_HIER_SITE */
    const dt_comm *c;    /* the whole communicator (borrowed) */
    dt_comm *local;      /* hierarchical: this rank's group */
    dt_comm *leaders;    /* hierarchical: the groups' first ranks (NULL
                            elsewhere) */
    float *a, *b;        /* direct: [P * blk] send and receive blocks;
                            hierarchical: a is [n] the reduce's result */
    size_t cap;          /* floats a and b hold */
    int blocking;        /* han: the blocking MPI_Allreduce */
};

static cm_status ar_fail(int rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error code %d", rc);
    return cm_error(CM_EMPI, "%s failed: %s", what, s);
}

int dt_allreduce_runs(cm_net_ar_alg alg)
{
    return alg == CM_AR_AUTO || alg == CM_AR_DIRECT || alg == CM_AR_HIER ||
           alg == CM_AR_HIER_SITE;
}

/* the block (of k blocks of n items, the first n mod k one larger, as
 * cm_place_rank_size) that holds item i */
static size_t block_of(size_t n, size_t k, size_t i)
{
    size_t q = n / k, rem = n % k;
    if (i < rem * (q + 1))
        return i / (q + 1);
    return rem + (i - rem * (q + 1)) / q;
}

cm_status dt_allreduce_new(const dt_comm *c, cm_net_ar_alg alg,
                           size_t groups, const cm_net *net,
                           dt_allreduce **out)
{
    *out = NULL;
    if (!dt_allreduce_runs(alg))
        return cm_error(CM_EINVAL, "--allreduce %s is only priced (--net); "
                        "the trainer runs auto, direct or hierarchical",
                        cm_net_ar_name(alg));
    dt_allreduce *a = calloc(1, sizeof *a);
    cm_status s = a ? CM_OK : cm_error(CM_ENOMEM, "out of memory "
                                       "(all-reduce)");
    if (a) {
        a->alg = alg;
        a->c = c;
    }
    if (alg == CM_AR_HIER_SITE && (groups == 0 || !net || !net->sites))
        s = cm_error(CM_EINVAL, "--allreduce hierarchical-site: its groups "
                     "are the sites of --net-hosts' hosts (internal: %zu "
                     "hosts, no sites)", groups);
    s = dt_comm_agree(c, s);
    if (s != CM_OK || (alg != CM_AR_HIER && alg != CM_AR_HIER_SITE)) {
        *out = s == CM_OK ? a : NULL;
        if (s != CM_OK)
            free(a);
        return s;
    }
    /* the groups: the host's ranks, or blocks of consecutive ranks, or
     * (by site) the ranks of the hosts of one site */
    int color = 0;
    if (alg == CM_AR_HIER_SITE) {
        size_t P = (size_t)c->size, H = groups > P ? P : groups;
        color = (int)cm_net_site_of(net, H, block_of(P, H, (size_t)c->rank));
        s = dt_comm_split(c, color, &a->local);
    } else if (groups > 0) {
        size_t P = (size_t)c->size, r = (size_t)c->rank, first = 0;
        if (groups > P)
            groups = P;
        for (size_t g = 0; g < groups; g++) {
            size_t k = cm_place_rank_size(P, groups, g);
            if (r < first + k) {
                color = (int)g;
                break;
            }
            first += k;
        }
        s = dt_comm_split(c, color, &a->local);
    } else {
        MPI_Comm sh = MPI_COMM_NULL;
        int rc = MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank,
                                     MPI_INFO_NULL, &sh);
        if (rc == MPI_SUCCESS) {
            /* the host's lowest world rank names the group */
            int low = c->rank;
            rc = MPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_INT, MPI_MIN, sh);
            color = low;
            MPI_Comm_free(&sh);
        }
        s = rc == MPI_SUCCESS ? CM_OK : ar_fail(rc, "MPI_Comm_split_type");
        s = dt_comm_agree(c, s);
        if (s == CM_OK)
            s = dt_comm_split(c, color, &a->local);
    }
    if (s == CM_OK)
        s = dt_comm_split(c, dt_comm_rank(a->local) == 0 ? 0 : -1,
                          &a->leaders);
    s = dt_comm_agree(c, s);
    if (s != CM_OK) {
        dt_allreduce_free(a);
        return s;
    }
    *out = a;
    return CM_OK;
}

cm_status dt_allreduce_new_han(const dt_comm *c, dt_allreduce **out)
{
    cm_status s = dt_allreduce_new(c, CM_AR_AUTO, 0, NULL, out);
    if (s == CM_OK)
        (*out)->blocking = 1;
    return s;
}

/* a->a and a->b of at least cap floats each (b only for direct). */
static cm_status reserve(dt_allreduce *a, size_t cap, int both)
{
    if (a->cap >= cap && (a->b || !both))
        return CM_OK;
    free(a->a);
    free(a->b);
    a->a = malloc(cap * sizeof *a->a);
    a->b = both ? malloc(cap * sizeof *a->b) : NULL;
    a->cap = cap;
    if (!a->a || (both && !a->b)) {
        free(a->a);
        free(a->b);
        a->a = a->b = NULL;
        a->cap = 0;
        return cm_error(CM_ENOMEM, "out of memory (all-reduce of %zu "
                        "floats)", cap);
    }
    return CM_OK;
}

static cm_status direct(dt_allreduce *a, float *x, size_t n)
{
    const size_t P = (size_t)a->c->size;
    const size_t blk = (n + P - 1) / P;
    if (blk > INT_MAX || (P > 1 && blk > SIZE_MAX / P))
        return cm_error(CM_EINVAL, "direct all-reduce: blocks of %zu "
                        "floats exceed an MPI count", blk);
    if (P == 1 || n == 0)
        return CM_OK;
    cm_status s = reserve(a, P * blk, 1);
    if (s != CM_OK)
        return s;
    memcpy(a->a, x, n * sizeof *x);
    memset(a->a + n, 0, (P * blk - n) * sizeof *x);
    MPI_Request q;
    int rc = dt_wd_fired() ? MPI_ERR_OTHER
                           : MPI_Ialltoall(a->a, (int)blk, MPI_FLOAT, a->b,
                                           (int)blk, MPI_FLOAT, a->c->comm,
                                           &q);
    if (rc != MPI_SUCCESS)
        return ar_fail(rc, "MPI_Ialltoall (direct all-reduce)");
    if ((s = dt_wd_wait(&q, "the direct all-reduce's all-to-all")) != CM_OK)
        return s;
    /* block r of every rank, summed in rank order into a->a[0..blk) */
    float *sum = a->a;
    memcpy(sum, a->b, blk * sizeof *sum);
    for (size_t p = 1; p < P; p++) {
        const float *in = a->b + p * blk;
        for (size_t k = 0; k < blk; k++)
            sum[k] += in[k];
    }
    rc = dt_wd_fired() ? MPI_ERR_OTHER
                       : MPI_Iallgather(sum, (int)blk, MPI_FLOAT, a->b,
                                        (int)blk, MPI_FLOAT, a->c->comm, &q);
    if (rc != MPI_SUCCESS)
        return ar_fail(rc, "MPI_Iallgather (direct all-reduce)");
    if ((s = dt_wd_wait(&q, "the direct all-reduce's all-gather")) != CM_OK)
        return s;
    memcpy(x, a->b, n * sizeof *x);
    return CM_OK;
}

static cm_status hierarchical(dt_allreduce *a, float *x, size_t n)
{
    const dt_comm *L = a->local;
    const int lead = dt_comm_rank(L) == 0;
    cm_status s = CM_OK;
    for (size_t off = 0; off < n; off += INT_MAX) {
        int k = n - off > INT_MAX ? INT_MAX : (int)(n - off);
        if (L->size > 1) {
            if (lead && (s = reserve(a, (size_t)k, 0)) != CM_OK)
                return s;
            MPI_Request q;
            int rc = dt_wd_fired()
                         ? MPI_ERR_OTHER
                         : MPI_Ireduce(x + off, lead ? a->a : NULL, k,
                                       MPI_FLOAT, MPI_SUM, 0, L->comm, &q);
            if (rc != MPI_SUCCESS)
                return ar_fail(rc, "MPI_Ireduce (hierarchical all-reduce)");
            if ((s = dt_wd_wait(&q, "the hierarchical all-reduce's reduce"))
                != CM_OK)
                return s;
            if (lead)
                memcpy(x + off, a->a, (size_t)k * sizeof *x);
        }
        if (a->leaders && a->leaders->size > 1 &&
            (s = dt_comm_allreduce_sum_float(a->leaders, x + off,
                                             (size_t)k)) != CM_OK)
            return s;
        if (L->size > 1 &&
            (s = dt_comm_bcast(L, x + off, (size_t)k * sizeof *x, 0)) !=
                CM_OK)
            return s;
    }
    return CM_OK;
}

/* han: MPI_Allreduce of a copy of x, padded with zeros to whole 64 kB
 * segments, into a second buffer, then back into x; no watchdog. Open
 * MPI 4.1.4's han all-reduce has two bugs this steps around, both fixed
 * after 4.1 (measured here on 2 namespace hosts): in place, it adds the
 * segment offset to MPI_IN_PLACE itself from the second segment on
 * (SIGSEGV at 0x10001 with 100,000 floats; open-mpi/ompi#11488); and its
 * last task broadcasts the last segment with a whole segment's count,
 * writing past the end of a receive buffer that ends mid-segment (LeNet's
 * 246,824 bytes: a crash in free() after 1 run in 4;
 * open-mpi/ompi#11442). The zeros add nothing to the sums; 64 kB is
 * han's default coll_han_allreduce_segsize. */
#define HAN_SEG_FLOATS (65536 / sizeof(float))
static cm_status blocking(dt_allreduce *a, float *x, size_t n)
{
    const size_t chunk = (size_t)INT_MAX / HAN_SEG_FLOATS * HAN_SEG_FLOATS;
    size_t first = n < chunk ? n : chunk;
    size_t cap = (first + HAN_SEG_FLOATS - 1) / HAN_SEG_FLOATS *
                 HAN_SEG_FLOATS;
    cm_status s = reserve(a, cap, 1);
    if (s != CM_OK)
        return s;
    for (size_t off = 0; off < n; off += chunk) {
        size_t k = n - off > chunk ? chunk : n - off;
        size_t kp = (k + HAN_SEG_FLOATS - 1) / HAN_SEG_FLOATS *
                    HAN_SEG_FLOATS;
        memcpy(a->a, x + off, k * sizeof *x);
        memset(a->a + k, 0, (kp - k) * sizeof *x);
        int rc = dt_wd_fired() ? MPI_ERR_OTHER
                               : MPI_Allreduce(a->a, a->b, (int)kp,
                                               MPI_FLOAT, MPI_SUM,
                                               a->c->comm);
        if (rc != MPI_SUCCESS)
            return ar_fail(rc, "MPI_Allreduce (--allreduce han)");
        memcpy(x + off, a->b, k * sizeof *x);
    }
    return CM_OK;
}

cm_status dt_allreduce_sum_float(dt_allreduce *a, float *x, size_t n)
{
    if (a->blocking)
        return blocking(a, x, n);
    switch (a->alg) {
    case CM_AR_DIRECT:
        return direct(a, x, n);
    case CM_AR_HIER:
    case CM_AR_HIER_SITE:
        return hierarchical(a, x, n);
    default:
        return dt_comm_allreduce_sum_float(a->c, x, n);
    }
}

void dt_allreduce_free(dt_allreduce *a)
{
    if (!a)
        return;
    dt_comm_free(a->leaders);
    dt_comm_free(a->local);
    free(a->a);
    free(a->b);
    free(a);
}
