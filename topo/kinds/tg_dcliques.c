/* tg_dcliques.c: clique assignment by greedy swaps, inter-clique links,
 * weights. Clique membership lives in a node -> clique array plus the
 * cliques' pooled label counts (q x K), so a candidate exchange is scored
 * in O(K). */
#include "tg_dcliques.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_rng.h"

#define DC_STREAM 0x64636c71ULL /* "dclq" */

/* TV distance of pooled counts (k entries, total tot) to the mix g. */
static double skew(const double *cnt, double tot, const double *g, size_t k)
{
    double d = 0.0;
    for (size_t c = 0; c < k; c++)
        d += fabs(cnt[c] / tot - g[c]);
    return 0.5 * d;
}

typedef struct {
    size_t n, m, cap;
    size_t *u, *v;
    unsigned char *adj; /* n*n, small n (TG_MAX_NODES) */
} edges;

static int add_edge(edges *e, size_t a, size_t b)
{
    if (a == b || e->adj[a * e->n + b])
        return 0;
    if (e->m == e->cap) {
        size_t nc = e->cap ? 2 * e->cap : 1024;
        size_t *u = realloc(e->u, nc * sizeof *u);
        if (!u)
            return -1;
        e->u = u;
        size_t *v = realloc(e->v, nc * sizeof *v);
        if (!v)
            return -1;
        e->v = v;
        e->cap = nc;
    }
    e->u[e->m] = a;
    e->v[e->m++] = b;
    e->adj[a * e->n + b] = e->adj[b * e->n + a] = 1;
    return 0;
}

/* One edge between cliques A and B at their members with the fewest
 * inter-clique edges (lowest id on ties) that are not yet adjacent. */
static int link(edges *e, const size_t *mem, const size_t *moff,
                size_t *inter, size_t A, size_t B, size_t *count,
                unsigned char *linked, size_t q)
{
    if (A == B || linked[A * q + B])
        return 0;
    linked[A * q + B] = linked[B * q + A] = 1;
    size_t best_a = SIZE_MAX, best_b = SIZE_MAX;
    for (size_t x = moff[A]; x < moff[A + 1]; x++)
        for (size_t y = moff[B]; y < moff[B + 1]; y++) {
            size_t a = mem[x], b = mem[y];
            if (e->adj[a * e->n + b])
                continue;
            if (best_a == SIZE_MAX ||
                inter[a] + inter[b] < inter[best_a] + inter[best_b]) {
                best_a = a;
                best_b = b;
            }
        }
    if (best_a == SIZE_MAX)
        return 0; /* already linked at every pair */
    if (add_edge(e, best_a, best_b))
        return -1;
    inter[best_a]++;
    inter[best_b]++;
    (*count)++;
    return 0;
}

/* The clique of block [A, A + blk) (cut at q) whose members have the
 * fewest inter-clique edges in all (lowest index on ties). */
static size_t least_linked(const size_t *mem, const size_t *moff,
                           const size_t *inter, size_t A, size_t blk,
                           size_t q)
{
    size_t best = A, best_sum = SIZE_MAX;
    for (size_t C = A; C < A + blk && C < q; C++) {
        size_t sum = 0;
        for (size_t x = moff[C]; x < moff[C + 1]; x++)
            sum += inter[mem[x]];
        if (sum < best_sum) {
            best_sum = sum;
            best = C;
        }
    }
    return best;
}

cm_status tg_dcliques_build(const cm_labels *l, tg_inter inter,
                            int equal_clique, uint64_t seed, size_t steps,
                            cm_topo *t, tg_dcliques_result *res)
{
    size_t n = l->n, K = l->k;
    memset(res, 0, sizeof *res);
    if (n < 2)
        return cm_error(CM_EINVAL, "dcliques: at least 2 workers (got %zu)",
                        n);
    if (n > 65536)
        return cm_error(CM_EINVAL, "dcliques: at most 65536 workers");
    size_t q = (n + K - 1) / K;
    if (q < 1)
        q = 1;
    cm_status s = CM_OK;
    size_t *perm = malloc(n * sizeof *perm), *mem = malloc(n * sizeof *mem);
    size_t *moff = calloc(q + 2, sizeof *moff), *inter_deg = calloc(n, sizeof *inter_deg);
    double *cnt = calloc(q * K, sizeof *cnt), *tot = calloc(q, sizeof *tot);
    double *g = calloc(K, sizeof *g), *tmp = malloc(2 * K * sizeof *tmp);
    size_t *cand = malloc(sizeof *cand * 4 * (n / q + 2) * (n / q + 2));
    res->clique = malloc(n * sizeof *res->clique);
    edges e = {n, 0, 0, NULL, NULL, calloc(n * n, 1)};
    unsigned char *linked = calloc(q * q, 1);
    if (!perm || !mem || !moff || !inter_deg || !cnt || !tot || !g || !tmp ||
        !cand || !res->clique || !e.adj || !linked) {
        s = cm_error(CM_ENOMEM, "dcliques: out of memory");
        goto done;
    }
    /* global mix: pooled counts of all workers */
    double all = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < K; c++) {
            g[c] += (double)l->count[i * K + c];
            all += (double)l->count[i * K + c];
        }
    for (size_t c = 0; c < K; c++)
        g[c] /= all;
    /* random start: a seeded permutation cut into q near-equal cliques */
    cm_rng r;
    cm_rng_seed(&r, seed, DC_STREAM);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    cm_rng_shuffle_size(&r, perm, n);
    for (size_t p = 0; p < n; p++)
        res->clique[perm[p]] = p * q / n;
    for (size_t i = 0; i < n; i++) {
        size_t C = res->clique[i];
        for (size_t c = 0; c < K; c++) {
            cnt[C * K + c] += (double)l->count[i * K + c];
            tot[C] += (double)l->count[i * K + c];
        }
    }
    for (size_t C = 0; C < q; C++)
        res->skew_start += skew(cnt + C * K, tot[C], g, K) / (double)q;
    /* members by clique (sizes never change under exchanges) */
    for (size_t i = 0; i < n; i++)
        moff[res->clique[i] + 1]++;
    for (size_t C = 0; C < q; C++)
        moff[C + 1] += moff[C];
    {
        size_t *fill = calloc(q, sizeof *fill);
        if (!fill)
            goto oom;
        memcpy(fill, moff, q * sizeof *fill);
        for (size_t i = 0; i < n; i++)
            mem[fill[res->clique[i]]++] = i;
        free(fill);
    }
    /* greedy swaps */
    for (size_t st = 0; st < steps && q > 1; st++) {
        size_t A = (size_t)cm_rng_below(&r, q);
        size_t B = (size_t)cm_rng_below(&r, q - 1);
        B += B >= A;
        double base = skew(cnt + A * K, tot[A], g, K) +
                      skew(cnt + B * K, tot[B], g, K);
        size_t nc = 0;
        for (size_t xa = moff[A]; xa < moff[A + 1]; xa++) {
            size_t a = mem[xa];
            for (size_t xb = moff[B]; xb < moff[B + 1]; xb++) {
                size_t b = mem[xb];
                double ta = tot[A], tb = tot[B];
                for (size_t c = 0; c < K; c++) {
                    double x = (double)l->count[a * K + c],
                           y = (double)l->count[b * K + c];
                    tmp[c] = cnt[A * K + c] - x + y;
                    tmp[K + c] = cnt[B * K + c] - y + x;
                    ta += y - x;
                    tb += x - y;
                }
                if (skew(tmp, ta, g, K) + skew(tmp + K, tb, g, K) <
                    base - 1e-12) {
                    cand[2 * nc] = xa;
                    cand[2 * nc + 1] = xb;
                    nc++;
                }
            }
        }
        if (!nc)
            continue;
        size_t pick = (size_t)cm_rng_below(&r, nc);
        size_t xa = cand[2 * pick], xb = cand[2 * pick + 1];
        size_t a = mem[xa], b = mem[xb];
        mem[xa] = b;
        mem[xb] = a;
        for (size_t c = 0; c < K; c++) {
            double x = (double)l->count[a * K + c],
                   y = (double)l->count[b * K + c];
            cnt[A * K + c] += y - x;
            cnt[B * K + c] += x - y;
            tot[A] += y - x;
            tot[B] += x - y;
        }
        res->clique[a] = B;
        res->clique[b] = A;
        res->swaps++;
    }
    for (size_t C = 0; C < q; C++)
        res->skew += skew(cnt + C * K, tot[C], g, K) / (double)q;
    /* members by clique, ascending ids (the links depend on the order) */
    {
        size_t *fill = perm; /* reuse */
        memcpy(fill, moff, q * sizeof *fill);
        for (size_t i = 0; i < n; i++)
            mem[fill[res->clique[i]]++] = i;
    }
    /* intra-clique edges */
    for (size_t C = 0; C < q; C++)
        for (size_t x = moff[C]; x < moff[C + 1]; x++)
            for (size_t y = x + 1; y < moff[C + 1]; y++)
                if (add_edge(&e, mem[x], mem[y]))
                    goto oom;
    /* inter-clique links */
    if (q > 1) {
        if (inter == TG_INTER_RING) {
            for (size_t C = 0; C < q && !(q == 2 && C == 1); C++)
                if (link(&e, mem, moff, inter_deg, C, (C + 1) % q,
                         &res->inter_edges, linked, q))
                    goto oom;
        } else if (inter == TG_INTER_SMALL_WORLD) {
            for (size_t off = 1; off < q; off *= 2)
                for (size_t C = 0; C < q; C++)
                    if (link(&e, mem, moff, inter_deg, C, (C + off) % q,
                             &res->inter_edges, linked, q))
                        goto oom;
        } else {
            size_t fan = K > 1 ? K : 2;
            for (size_t blk = 1; blk < q; blk *= fan)
                for (size_t start = 0; start < q; start += blk * fan)
                    for (size_t x = 0; x < fan; x++)
                        for (size_t y = x + 1; y < fan; y++) {
                            size_t A = start + x * blk, B = start + y * blk;
                            if (B >= q)
                                continue;
                            size_t ca = least_linked(mem, moff, inter_deg, A,
                                                     blk, q);
                            size_t cb = least_linked(mem, moff, inter_deg, B,
                                                     blk, q);
                            if (link(&e, mem, moff, inter_deg, ca, cb,
                                     &res->inter_edges, linked, q))
                                goto oom;
                        }
        }
    }
    if ((s = cm_topo_from_edges(t, n, e.m, e.u, e.v)) != CM_OK)
        goto done;
    t->ew = malloc((e.m + 1) * sizeof *t->ew);
    t->self = malloc(n * sizeof *t->self);
    t->adj_w = malloc((2 * e.m + 1) * sizeof *t->adj_w);
    if (!t->ew || !t->self || !t->adj_w)
        goto oom;
    {
        /* equal-clique weight of each clique: 1/(|C| + e_C) */
        double *cw = cnt;
        for (size_t C = 0; C < q; C++) {
            size_t ec = 0;
            for (size_t x = moff[C]; x < moff[C + 1]; x++)
                if (inter_deg[mem[x]] > ec)
                    ec = inter_deg[mem[x]];
            cw[C] = 1.0 / (double)(moff[C + 1] - moff[C] + ec);
        }
        for (size_t k = 0; k < e.m; k++) {
            size_t a = t->ei[k], b = t->ej[k];
            size_t A = res->clique[a], B = res->clique[b];
            double w;
            if (equal_clique)
                w = A == B ? cw[A] : fmin(cw[A], cw[B]);
            else {
                size_t da = cm_topo_degree(t, a), db = cm_topo_degree(t, b);
                w = 1.0 / (double)(1 + (da > db ? da : db));
            }
            t->ew[k] = w;
        }
        for (size_t i = 0; i < n; i++) {
            double row = 0.0;
            for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
                size_t j = t->adj[p];
                size_t a = i < j ? i : j, b = i < j ? j : i;
                /* binary search for edge (a, b) */
                size_t lo = 0, hi = t->m;
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (t->ei[mid] < a || (t->ei[mid] == a && t->ej[mid] < b))
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                t->adj_w[p] = t->ew[lo];
                row += t->adj_w[p];
            }
            t->self[i] = 1.0 - row;
        }
    }
    goto done;
oom:
    s = cm_error(CM_ENOMEM, "dcliques: out of memory");
done:
    free(linked);
    free(e.adj);
    free(e.u);
    free(e.v);
    free(cand);
    free(tmp);
    free(g);
    free(tot);
    free(cnt);
    free(inter_deg);
    free(moff);
    free(mem);
    free(perm);
    if (s != CM_OK) {
        free(res->clique);
        res->clique = NULL;
        cm_topo_destroy(t);
    }
    res->q = q;
    return s;
}
