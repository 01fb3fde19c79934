/* dt_gossip_plan.c: who sends what to whom in a gossip round, and the
 * ordered weighted sum (see dt_gossip_plan.h). Send entries and receive
 * slots are both sorted by (rank, worker id), which is what makes the
 * sender's packing order and the receiver's slot order agree with no
 * extra message. Cost: O(n) for the maps, a sort of the edges leaving
 * the rank, and O(len) per term per round for the sum.
 */
#include "dt_gossip_plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt_partition.h"

void dt_gossip_plan_init(dt_gossip_plan *p) { memset(p, 0, sizeof *p); }

void dt_gossip_plan_destroy(dt_gossip_plan *p)
{
    free(p->local);
    free(p->peers);
    free(p->scount);
    free(p->sdispl);
    free(p->srcs);
    free(p->rcount);
    free(p->rdispl);
    free(p->send_local);
    free(p->recv_worker);
    free(p->term_off);
    free(p->term_src);
    free(p->term_w);
    memset(p, 0, sizeof *p);
}

void dt_gossip_plan_blocks(size_t n, size_t P, size_t *owner)
{
    for (size_t j = 0; j < n; j++)
        owner[j] = dt_partition_block_owner(n, P, j);
}

typedef struct {
    size_t rank;   /* the other rank */
    size_t worker; /* send: local index; receive: worker id */
} pair;

static int pair_cmp(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->worker > b->worker) - (a->worker < b->worker);
}

/* Sorts v[0..k) and drops duplicates; returns the new length. */
static size_t sort_unique(pair *v, size_t k)
{
    qsort(v, k, sizeof *v, pair_cmp);
    size_t u = 0;
    for (size_t e = 0; e < k; e++)
        if (u == 0 || pair_cmp(&v[u - 1], &v[e]) != 0)
            v[u++] = v[e];
    return u;
}

cm_status dt_gossip_plan_make(dt_gossip_plan *p, const cm_topo *t,
                              const size_t *owner, size_t P, size_t rank)
{
    const size_t n = t->n;
    size_t *lidx = NULL, *slot = NULL;
    pair *sends = NULL, *recvs = NULL;
    cm_status s = CM_OK;
    dt_gossip_plan_destroy(p);
    if (!t->adj_w || !t->self)
        return cm_error(CM_EINVAL, "gossip needs a weighted topology (set "
                        "weights with --weights)");
    if (P == 0 || rank >= P)
        return cm_error(CM_EINVAL, "gossip plan for rank %zu of %zu", rank,
                        P);
    for (size_t j = 0; j < n; j++)
        if (owner[j] >= P)
            return cm_error(CM_EINVAL, "worker %zu placed on rank %zu, but "
                            "there are %zu ranks", j, owner[j], P);
    p->n = n;
    p->P = P;
    p->rank = rank;
    for (size_t j = 0; j < n; j++)
        p->count += owner[j] == rank;
    if (p->count == 0) {
        s = cm_error(CM_EINVAL, "rank %zu holds no worker of %zu", rank, n);
        goto done;
    }
    /* Local workers and the map id -> local index (SIZE_MAX: remote). */
    size_t nadj = 0, nout = 0;
    lidx = malloc(n * sizeof *lidx);
    slot = malloc(n * sizeof *slot);
    p->local = malloc(p->count * sizeof *p->local);
    if (!lidx || !slot || !p->local)
        goto oom;
    for (size_t j = 0, c = 0; j < n; j++) {
        lidx[j] = SIZE_MAX;
        slot[j] = SIZE_MAX;
        if (owner[j] == rank) {
            lidx[j] = c;
            p->local[c++] = j;
            nadj += cm_topo_degree(t, j);
            const size_t *oa;
            const double *ow;
            size_t oc;
            cm_topo_out(t, j, &oa, &ow, &oc);
            nout += oc;
        }
    }
    sends = malloc((nout ? nout : 1) * sizeof *sends);
    recvs = malloc((nadj ? nadj : 1) * sizeof *recvs);
    p->term_off = malloc((p->count + 1) * sizeof *p->term_off);
    p->term_src = malloc((nadj + p->count) * sizeof *p->term_src);
    p->term_w = malloc((nadj + p->count) * sizeof *p->term_w);
    if (!sends || !recvs || !p->term_off || !p->term_src || !p->term_w)
        goto oom;
    /* Every arc out of a local i to a remote j: i goes to owner[j]; every
     * arc into a local i from a remote j: j comes from owner[j] (for an
     * undirected topology the two are the same edges). */
    size_t ns = 0, nr = 0;
    for (size_t c = 0; c < p->count; c++) {
        size_t i = p->local[c];
        const size_t *oa;
        const double *ow;
        size_t oc;
        cm_topo_out(t, i, &oa, &ow, &oc);
        for (size_t k = 0; k < oc; k++)
            if (owner[oa[k]] != rank)
                sends[ns++] = (pair){owner[oa[k]], c};
        for (size_t k = t->off[i]; k < t->off[i + 1]; k++) {
            size_t j = t->adj[k];
            if (owner[j] != rank)
                recvs[nr++] = (pair){owner[j], j};
        }
    }
    p->nsend = sort_unique(sends, ns);
    p->nrecv = sort_unique(recvs, nr);
    for (size_t e = 0; e < p->nsend; e++)
        p->npeers += e == 0 || sends[e].rank != sends[e - 1].rank;
    for (size_t e = 0; e < p->nrecv; e++)
        p->nsrcs += e == 0 || recvs[e].rank != recvs[e - 1].rank;
    size_t pa = p->npeers ? p->npeers : 1; /* never malloc(0) */
    size_t ra = p->nsrcs ? p->nsrcs : 1;
    p->peers = malloc(pa * sizeof *p->peers);
    p->scount = calloc(pa, sizeof *p->scount);
    p->sdispl = calloc(pa, sizeof *p->sdispl);
    p->srcs = malloc(ra * sizeof *p->srcs);
    p->rcount = calloc(ra, sizeof *p->rcount);
    p->rdispl = calloc(ra, sizeof *p->rdispl);
    p->send_local = malloc((p->nsend ? p->nsend : 1) * sizeof *p->send_local);
    p->recv_worker =
        malloc((p->nrecv ? p->nrecv : 1) * sizeof *p->recv_worker);
    if (!p->peers || !p->scount || !p->sdispl || !p->srcs || !p->rcount ||
        !p->rdispl || !p->send_local || !p->recv_worker)
        goto oom;
    size_t a = 0;
    for (size_t e = 0; e < p->nsend; e++) {
        if (e > 0 && sends[e].rank != sends[e - 1].rank)
            a++;
        if (p->scount[a]++ == 0) {
            p->peers[a] = sends[e].rank;
            p->sdispl[a] = e;
        }
        p->send_local[e] = sends[e].worker;
    }
    a = 0;
    for (size_t e = 0; e < p->nrecv; e++) {
        if (e > 0 && recvs[e].rank != recvs[e - 1].rank)
            a++;
        if (p->rcount[a]++ == 0) {
            p->srcs[a] = recvs[e].rank;
            p->rdispl[a] = e;
        }
        p->recv_worker[e] = recvs[e].worker;
        slot[recvs[e].worker] = e;
    }
    /* Terms of each local worker: self merged into the ascending list. */
    size_t nt = 0;
    for (size_t c = 0; c < p->count; c++) {
        size_t i = p->local[c];
        int self_done = 0;
        p->term_off[c] = nt;
        for (size_t k = t->off[i]; k <= t->off[i + 1]; k++) {
            size_t j = k < t->off[i + 1] ? t->adj[k] : SIZE_MAX;
            if (!self_done && i < j) {
                p->term_src[nt] = c;
                p->term_w[nt++] = t->self[i];
                self_done = 1;
            }
            if (j == SIZE_MAX)
                break;
            p->term_src[nt] = lidx[j] != SIZE_MAX ? lidx[j]
                                                  : p->count + slot[j];
            p->term_w[nt++] = t->adj_w[k];
        }
    }
    p->term_off[p->count] = nt;
    goto done;
oom:
    s = cm_error(CM_ENOMEM, "out of memory planning gossip");
done:
    free(recvs);
    free(sends);
    free(slot);
    free(lidx);
    if (s != CM_OK)
        dt_gossip_plan_destroy(p);
    return s;
}

void dt_gossip_plan_pack(const dt_gossip_plan *p, const float *const *x,
                         size_t len, float *sendbuf)
{
    for (size_t e = 0; e < p->nsend; e++)
        memcpy(sendbuf + e * len, x[p->send_local[e]], len * sizeof(float));
}

/* Elements per block of the sum: its double accumulator (2 kB) stays in
 * L1 while all of a worker's terms pass over the block, so each x array
 * is read once from memory and out written once, instead of the whole
 * len-double accumulator (as big as L2 for LeNet) streaming once per
 * term. Every element still sees its terms in order, mul then add in
 * double: the same bits as the unblocked loop. */
#define MIX_BLOCK 256

/* acc[k] = w * x[k] (first) or acc[k] += w * x[k], k < m. restrict and a
 * constant m (the full blocks) let the compiler vectorize at -O2. */
static inline void mix_term(double *restrict acc, const float *restrict x,
                            double w, size_t m, int first)
{
    if (first)
        for (size_t k = 0; k < m; k++)
            acc[k] = w * (double)x[k];
    else
        for (size_t k = 0; k < m; k++)
            acc[k] += w * (double)x[k];
}

static inline void mix_round(float *restrict o, const double *restrict acc,
                             size_t m)
{
    for (size_t k = 0; k < m; k++)
        o[k] = (float)acc[k];
}

void dt_gossip_plan_mix(const dt_gossip_plan *p, const float *const *x,
                        const float *recvbuf, size_t len, double *acc,
                        float *const *out)
{
    for (size_t i = 0; i < p->count; i++) {
        const size_t e0 = p->term_off[i], e1 = p->term_off[i + 1];
        for (size_t b = 0; b < len; b += MIX_BLOCK) {
            const size_t m = len - b < MIX_BLOCK ? len - b : MIX_BLOCK;
            for (size_t e = e0; e < e1; e++) {
                size_t src = p->term_src[e];
                const float *xj = src < p->count
                                      ? x[src]
                                      : recvbuf + (src - p->count) * len;
                if (m == MIX_BLOCK)
                    mix_term(acc, xj + b, p->term_w[e], MIX_BLOCK, e == e0);
                else
                    mix_term(acc, xj + b, p->term_w[e], m, e == e0);
            }
            if (m == MIX_BLOCK)
                mix_round(out[i] + b, acc, MIX_BLOCK);
            else
                mix_round(out[i] + b, acc, m);
        }
    }
}

void dt_gossip_plan_mean(const float *const *x, size_t n, size_t len,
                         double *acc, float *out)
{
    const double w = 1.0 / (double)n;
    for (size_t b = 0; b < len; b += MIX_BLOCK) {
        const size_t m = len - b < MIX_BLOCK ? len - b : MIX_BLOCK;
        for (size_t j = 0; j < n; j++)
            if (m == MIX_BLOCK)
                mix_term(acc, x[j] + b, w, MIX_BLOCK, j == 0);
            else
                mix_term(acc, x[j] + b, w, m, j == 0);
        if (m == MIX_BLOCK)
            mix_round(out + b, acc, MIX_BLOCK);
        else
            mix_round(out + b, acc, m);
    }
}

uint64_t dt_gossip_plan_mem_bytes(const dt_gossip_plan *p, size_t len)
{
    const uint64_t arrays = 2 * (uint64_t)p->nsend +
                            (uint64_t)p->term_off[p->count] + p->count;
    return arrays * (uint64_t)len * sizeof(float);
}
