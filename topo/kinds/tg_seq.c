/* tg_seq.c: finite-time exact sequences (one-peer exponential, Base-(k+1))
 * and the sequence figures of `topogen eval`.
 *
 * Construction of Base-(k+1) (Takezawa et al. 2023, written from the
 * paper's description and checked here by exact products; b = k+1):
 *
 * Hyper-hypercube H(N): when every prime factor of N is <= b, write N =
 * f_0 f_1 ... f_{L-1} with f_l <= b (largest factors first); round l joins
 * the nodes that differ only in mixed-radix digit l into cliques with
 * weights 1/f_l. After the L rounds every node holds the average.
 *
 * Simple base S(N), N not b-smooth: digits N = sum_l a_l b^{p_l} (p_0 >
 * p_1 > ..., 1 <= a_l <= k) give groups V_l of a_l b^{p_l} consecutive
 * nodes, each cut into a_l subgroups U_{l,j} of b^{p_l}.
 *   1. Rounds 0..h-1, h = |H(|V_0|)|: each group runs H(|V_l|); now
 *      every node of V_l holds mu_l, the mean of V_l.
 *   2. Round h+s, s = 0..L-2 (merge s): each node i of a later group
 *      V_l, l > s, takes one fresh node from every U_{s,j} (S_{s+1} <
 *      b^{p_s} nodes need them, so there are enough), with weight c/a_s
 *      each, c = |V_s| / S_s, S_s = |V_s| + |V_{s+1}| + ...; i keeps
 *      1 - c, the partner 1 - c/a_s. Every later group stays uniform and
 *      the sum over each U_{s,j} becomes b^{p_s} times the mean of V_s,
 *      V_{s+1}, ...: by induction the global mean mu (the later groups'
 *      mean is preserved by each merge). After merge L-2 the last group
 *      holds mu.
 *   3. From round h+s+1, V_s re-averages each U_{s,j} by H(b^{p_s}):
 *      p_s rounds, all done by round h + p_0 (since s + p_s <= p_0).
 * Period h + 1 + p_0; per-round degree: cliques f_l - 1 <= k, merges a_s
 * <= k for the later nodes and 1 for partners.
 * Base B(N): H(N) when N is b-smooth; else N = N_s N_r (N_s its b-smooth
 * part): the shorter of S(N) and S(N_r) on N_s blocks of consecutive
 * nodes followed by H(N_s) across the blocks (ties: the product).
 * The paper adds optional edges among idle nodes of a merge round; they
 * change no value in exact arithmetic and are left out (fewer bytes).
 */
#include "tg_seq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mixing.h"
#include "tg_graph.h"

#define MAX_FACTORS 64

/* ---- one round under construction ------------------------------------ */

typedef struct {
    size_t n, m, cap;
    size_t *ei, *ej; /* [cap] edges */
    double *w;       /* [cap] their weights */
    double *self;    /* [n] 1 - sum of the row's edge weights */
    int oom;         /* an allocation failed */
} rb;

static void rb_reset(rb *r)
{
    r->m = 0;
    for (size_t i = 0; i < r->n; i++)
        r->self[i] = 1.0;
}

static void rb_edge(rb *r, size_t i, size_t j, double w)
{
    if (r->m == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        size_t *a = realloc(r->ei, cap * sizeof *a);
        size_t *b = a ? realloc(r->ej, cap * sizeof *b) : NULL;
        double *c = b ? realloc(r->w, cap * sizeof *c) : NULL;
        if (a)
            r->ei = a;
        if (b)
            r->ej = b;
        if (c)
            r->w = c;
        if (!c) {
            r->oom = 1;
            return;
        }
        r->cap = cap;
    }
    r->ei[r->m] = i;
    r->ej[r->m] = j;
    r->w[r->m++] = w;
    r->self[i] -= w;
    r->self[j] -= w;
}

/* Turns the round into the weighted topology t. */
static cm_status rb_finish(const rb *r, cm_topo *t)
{
    if (r->oom)
        return cm_error(CM_ENOMEM, "out of memory building a round");
    cm_status st = cm_topo_from_edges(t, r->n, r->m, r->ei, r->ej);
    if (st != CM_OK)
        return st;
    if ((st = cm_topo_alloc_weights(t)) != CM_OK)
        return st;
    for (size_t k = 0; k < r->m; k++) {
        size_t a = r->ei[k] < r->ej[k] ? r->ei[k] : r->ej[k];
        size_t b = r->ei[k] < r->ej[k] ? r->ej[k] : r->ei[k];
        t->ew[cm_topo_edge_index(t, a, b)] = r->w[k];
    }
    memcpy(t->self, r->self, t->n * sizeof *t->self);
    for (size_t i = 0; i < t->n; i++)
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            size_t j = t->adj[p];
            t->adj_w[p] = t->ew[i < j ? cm_topo_edge_index(t, i, j)
                                      : cm_topo_edge_index(t, j, i)];
        }
    return CM_OK;
}

/* ---- hyper-hypercube -------------------------------------------------- */

/* Factors N into f[0..L) with every f <= b, largest first; returns L, or
 * SIZE_MAX when N has a prime factor > b. N = 1 gives 0. */
static size_t smooth_factors(size_t N, size_t b, size_t *f)
{
    size_t L = 0;
    for (size_t x = b; x >= 2 && N > 1; x--)
        while (N % x == 0 && L < MAX_FACTORS) {
            f[L++] = x;
            N /= x;
        }
    return N == 1 ? L : SIZE_MAX;
}

/* Round l of H on nodes[0..N): cliques over mixed-radix digit l. */
static void hhc_round(rb *r, const size_t *nodes, size_t N, const size_t *f,
                      size_t l)
{
    size_t stride = 1;
    for (size_t q = 0; q < l; q++)
        stride *= f[q];
    double w = 1.0 / (double)f[l];
    for (size_t x = 0; x < N; x++) {
        if ((x / stride) % f[l] != 0)
            continue;
        for (size_t u = 0; u < f[l]; u++)
            for (size_t v = u + 1; v < f[l]; v++)
                rb_edge(r, nodes[x + u * stride], nodes[x + v * stride], w);
    }
}

/* ---- simple base ------------------------------------------------------ */

typedef struct {
    size_t L;                 /* groups */
    size_t a[MAX_FACTORS];    /* digit a_l */
    size_t p[MAX_FACTORS];    /* exponent p_l */
    size_t size[MAX_FACTORS]; /* |V_l| = a_l b^p_l */
    size_t start[MAX_FACTORS];/* first index of V_l */
    size_t h;                 /* rounds of phase 1 */
} digits;

static size_t ipow(size_t b, size_t p)
{
    size_t x = 1;
    while (p--)
        x *= b;
    return x;
}

static void base_digits(size_t N, size_t b, digits *d)
{
    size_t p = 0, f[MAX_FACTORS];
    while (ipow(b, p + 1) <= N)
        p++;
    d->L = 0;
    for (size_t rest = N, at = 0;; p--) {
        size_t bp = ipow(b, p);
        if (rest >= bp) {
            size_t l = d->L++;
            d->a[l] = rest / bp;
            d->p[l] = p;
            d->size[l] = d->a[l] * bp;
            d->start[l] = at;
            at += d->size[l];
            rest -= d->size[l];
        }
        if (p == 0 || rest == 0)
            break;
    }
    d->h = smooth_factors(d->size[0], b, f);
}

/* Rounds of S(N) (or of H(N) when N is b-smooth). */
static size_t simple_len(size_t N, size_t b)
{
    size_t f[MAX_FACTORS], L = smooth_factors(N, b, f);
    if (L != SIZE_MAX)
        return L;
    digits d;
    base_digits(N, b, &d);
    return d.h + 1 + d.p[0];
}

/* Round t of S(N) on nodes[0..N). */
static void simple_round(rb *r, const size_t *nodes, size_t N, size_t b,
                         size_t t)
{
    size_t f[MAX_FACTORS], L = smooth_factors(N, b, f);
    if (L != SIZE_MAX) {
        if (t < L)
            hhc_round(r, nodes, N, f, t);
        return;
    }
    digits d;
    base_digits(N, b, &d);
    for (size_t l = 0; l < d.L; l++) {
        const size_t *v = nodes + d.start[l];
        if (t < d.h) { /* phase 1 */
            size_t g = smooth_factors(d.size[l], b, f);
            if (t < g)
                hhc_round(r, v, d.size[l], f, t);
        } else if (t == d.h + l && l + 1 < d.L) { /* merge l */
            size_t sl = d.size[l], S = 0, bp = ipow(b, d.p[l]), used = 0;
            for (size_t q = l; q < d.L; q++)
                S += d.size[q];
            double c = (double)sl / (double)S;
            for (size_t q = l + 1; q < d.L; q++)
                for (size_t x = 0; x < d.size[q]; x++, used++)
                    for (size_t j = 0; j < d.a[l]; j++)
                        rb_edge(r, nodes[d.start[q] + x], v[j * bp + used],
                                c / (double)d.a[l]);
        } else if (t > d.h + l && l + 1 < d.L &&
                   t - d.h - l - 1 < d.p[l]) { /* re-average U_{l,j} */
            size_t bp = ipow(b, d.p[l]);
            for (size_t x = 0; x < d.p[l]; x++)
                f[x] = b;
            for (size_t j = 0; j < d.a[l]; j++)
                hhc_round(r, v + j * bp, bp, f, t - d.h - l - 1);
        }
    }
}

/* ---- kinds ------------------------------------------------------------ */

int tg_seq_kind_parse(const char *s, tg_seq_kind *kind)
{
    if (strcmp(s, "one-peer-exp") == 0)
        *kind = TG_SEQ_ONE_PEER_EXP;
    else if (strcmp(s, "base") == 0)
        *kind = TG_SEQ_BASE;
    else
        return 0;
    return 1;
}

const char *tg_seq_kind_name(tg_seq_kind kind)
{
    return kind == TG_SEQ_ONE_PEER_EXP ? "one-peer-exp" : "base";
}

cm_status tg_seq_check(tg_seq_kind kind, size_t n, size_t d)
{
    if (n < 2 || n > TG_MAX_BUILD)
        return cm_error(CM_EINVAL, "-n: %s needs 2 <= n <= %d (got %zu)",
                        tg_seq_kind_name(kind), TG_MAX_BUILD, n);
    if (kind == TG_SEQ_ONE_PEER_EXP && (n & (n - 1)) != 0)
        return cm_error(CM_EINVAL, "-n: one-peer-exp needs n a power of two "
                        "(got %zu; --kind base -d 1 averages exactly for any "
                        "n)", n);
    if (kind == TG_SEQ_BASE && (d < 1 || d >= n))
        return cm_error(CM_EINVAL, "-d: base needs a per-round degree 1 <= d "
                        "< n (got %zu)", d);
    if (kind == TG_SEQ_BASE && (double)n * (double)d / 2.0 >
                                   (double)CM_TOPO_MAX_EDGES)
        return cm_error(CM_EINVAL, "-n/-d: a round of base may have n*d/2 = "
                        "%zu*%zu/2 edges, more than %d, the file format's "
                        "limit", n, d, CM_TOPO_MAX_EDGES);
    return CM_OK;
}

cm_status tg_seq_build(cm_topo_seq *s, tg_seq_kind kind, size_t n, size_t d)
{
    cm_status st = tg_seq_check(kind, n, d);
    if (st != CM_OK)
        return st;
    size_t b = kind == TG_SEQ_ONE_PEER_EXP ? 2 : d + 1;
    size_t f[MAX_FACTORS], smooth = 1, rough = n;
    for (size_t x = 2; x <= b && x <= n; x++) /* N_s: b-smooth part */
        while (rough % x == 0) {
            rough /= x;
            smooth *= x;
        }
    size_t len_simple = simple_len(n, b), r1 = 0, r2 = 0;
    int product = 0;
    if (smooth > 1 && rough > 1) {
        r1 = simple_len(rough, b);
        r2 = smooth_factors(smooth, b, f);
        product = r1 + r2 <= len_simple;
    }
    size_t period = product ? r1 + r2 : len_simple;
    size_t *nodes = malloc(n * sizeof *nodes);
    rb r = {n, 0, 0, NULL, NULL, NULL, malloc(n * sizeof(double)), 0};
    if (!nodes || !r.self) {
        st = cm_error(CM_ENOMEM, "out of memory for %zu nodes", n);
        goto cleanup;
    }
    if ((st = cm_topo_seq_alloc(s, period, n)) != CM_OK)
        goto cleanup;
    for (size_t t = 0; t < period && st == CM_OK; t++) {
        rb_reset(&r);
        if (!product) {
            for (size_t i = 0; i < n; i++)
                nodes[i] = i;
            simple_round(&r, nodes, n, b, t);
        } else if (t < r1) { /* S(rough) inside each block */
            for (size_t i = 0; i < n; i++)
                nodes[i] = i;
            for (size_t blk = 0; blk < smooth; blk++)
                simple_round(&r, nodes + blk * rough, rough, b, t);
        } else { /* H(smooth) across the blocks */
            for (size_t j = 0; j < rough; j++) {
                for (size_t blk = 0; blk < smooth; blk++)
                    nodes[blk] = blk * rough + j;
                hhc_round(&r, nodes, smooth, f, t - r1);
            }
        }
        st = rb_finish(&r, &s->round[t]);
    }
cleanup:
    if (st != CM_OK)
        cm_topo_seq_destroy(s);
    free(nodes);
    free(r.ei);
    free(r.ej);
    free(r.w);
    free(r.self);
    return st;
}

/* ---- figures ---------------------------------------------------------- */

cm_status tg_seq_evaluate(const cm_topo_seq *s, size_t *degrees,
                          tg_seq_eval *e)
{
    memset(e, 0, sizeof *e);
    e->n = s->n;
    e->period = s->period;
    for (size_t t = 0; t < s->period; t++) {
        size_t lo, hi;
        cm_topo_degree_range(&s->round[t], &lo, &hi);
        if (degrees)
            degrees[t] = hi;
        if (hi > e->dmax)
            e->dmax = hi;
        e->messages += s->n ? 2.0 * (double)s->round[t].m / (double)s->n
                            : 0.0;
    }
    /* ||prod_r - J|| does not grow with r (every round's ||W_t - J|| <=
     * 1): find the first r with norm <= 1e-3 by doubling, then bisection,
     * within TG_SEQ_MAX_EXACT rounds; O(log) eigensolves */
    cm_status st = cm_topo_seq_norm(s, s->period, &e->norm);
    if (st != CM_OK)
        return st;
    e->exact = e->norm <= TG_SEQ_EXACT_TOL;
    size_t lo = 0, hi = s->period; /* norm(lo) > 1e-3 (lo = 0: identity) */
    double v = e->norm;
    while (v > 1e-3 && hi < TG_SEQ_MAX_EXACT) {
        lo = hi;
        hi = 2 * hi < TG_SEQ_MAX_EXACT ? 2 * hi : TG_SEQ_MAX_EXACT;
        if ((st = cm_topo_seq_norm(s, hi, &v)) != CM_OK)
            return st;
    }
    if (v > 1e-3) {
        e->rounds_est = e->norm < 1.0 ? (double)s->period * log(1e-3) /
                                            log(e->norm)
                                      : INFINITY;
        return CM_OK;
    }
    while (hi - lo > 1) { /* norm(hi) <= 1e-3 < norm(lo) */
        size_t mid = lo + (hi - lo) / 2;
        if ((st = cm_topo_seq_norm(s, mid, &v)) != CM_OK)
            return st;
        if (v <= 1e-3)
            hi = mid;
        else
            lo = mid;
    }
    e->rounds = hi;
    return st;
}
