/* tg_digraph_search.c: simulated annealing over permutation graphs for
 * n_eff (see tg_digraph_search.h). A move changes two entries of one
 * permutation, so the graph is the permutation array itself; the
 * estimate applies W through it (y_pi(i) += x_i), O(s n) per product,
 * and the exact path fills the dense W. The schedule, the deadline and
 * the stop flag are tg_anneal's loop, shared with tg_search. */
#include "tg_digraph_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_eigen.h"
#include "cm_rng.h"
#include "cm_time.h"
#include "tg_anneal.h"
#include "tg_neff.h"

typedef struct {
    size_t n, s;
    const size_t *perm;
} pctx;

static cm_status apply_perm(void *ctx, size_t round, size_t n, size_t reps,
                            const double *x, double *y)
{
    const pctx *c = ctx;
    (void)round;
    double w = 1.0 / (double)(c->s + 1);
    for (size_t k = 0; k < n * reps; k++)
        y[k] = w * x[k];
    for (size_t p = 0; p < c->s; p++)
        for (size_t i = 0; i < n; i++) {
            double *yj = y + c->perm[p * n + i] * reps;
            const double *xi = x + i * reps;
            for (size_t r = 0; r < reps; r++)
                yj[r] += w * xi[r];
        }
    return CM_OK;
}

/* Exact n_eff of the permutations (the sparse Neumann series,
 * tg_neff_series); w is unused (kept for the signature). */
static cm_status exact(const tg_digraph_search_opts *o, const size_t *perm,
                       double *w, double *neff)
{
    (void)w;
    pctx c = {o->n, o->s, perm};
    double ty;
    cm_status st = tg_neff_series(o->n, apply_perm, &c, o->gamma, &ty, NULL);
    if (st == CM_OK)
        *neff = tg_neff_from_trace(o->n, o->gamma,
                                   1.0 / (1.0 - o->gamma) + ty);
    return st;
}


/* ||W - J||_2 = sqrt(lambda_max(W^T W - J)) for the doubly stochastic
 * W of the permutations: row j of W has a = 1/(S+1) at columns j and
 * pi_s^-1(j), so W^T W is the sum of their (S+1)^2 outer products;
 * then LAPACK dsyev (eigenvalues only). O(n (S+1)^2 + n^3). */
static cm_status norm_energy(const tg_digraph_search_opts *o,
                             const size_t *perm, double *e)
{
    size_t n = o->n, ns = o->s;
    double a = 1.0 / (double)(ns + 1), jn = 1.0 / (double)n;
    double *m = malloc(n * n * sizeof *m), *ev = malloc(n * sizeof *ev);
    double *work = malloc(3 * n * sizeof *work);
    size_t *inv = malloc(ns * n * sizeof *inv), col[65];
    cm_status st = CM_OK;
    if (!m || !ev || !work || !inv || ns > 64) {
        st = cm_error(CM_ENOMEM, "directed search: out of memory");
        goto cleanup;
    }
    for (size_t q = 0; q < ns; q++)
        for (size_t i = 0; i < n; i++)
            inv[q * n + perm[q * n + i]] = i;
    for (size_t k = 0; k < n * n; k++)
        m[k] = -jn;
    for (size_t j = 0; j < n; j++) {
        col[0] = j;
        for (size_t q = 0; q < ns; q++)
            col[q + 1] = inv[q * n + j];
        for (size_t p = 0; p <= ns; p++)
            for (size_t q = 0; q <= ns; q++)
                m[col[p] * n + col[q]] += a * a;
    }
    if ((st = cm_eigen_sym_work(CM_EIGEN_VALUES, n, m, ev, work, 3 * n)) !=
        CM_OK) {
        cm_error_prefix(st, "directed search");
        goto cleanup;
    }
    *e = sqrt(fmax(ev[n - 1], 0.0));
cleanup:
    free(m);
    free(ev);
    free(work);
    free(inv);
    return st;
}

static cm_status energy(const tg_digraph_search_opts *o, int estimate,
                        const size_t *perm, double *w, size_t epoch,
                        double *e)
{
    double neff;
    cm_status st;
    if (o->norm)
        return norm_energy(o, perm, e);
    if (!estimate) {
        st = exact(o, perm, w, &neff);
    } else {
        pctx c = {o->n, o->s, perm};
        double ty;
        st = tg_neff_estimate(o->n, apply_perm, &c, o->gamma,
                              o->probes ? o->probes : 64, 2000,
                              o->seed + epoch, &ty, NULL);
        neff = tg_neff_from_trace(o->n, o->gamma,
                                  1.0 / (1.0 - o->gamma) + ty);
    }
    if (st == CM_OK)
        *e = 1.0 - neff / (double)o->n;
    return st;
}

/* 1 when target y is legal for node a in permutation s (not a, not a's
 * target in another permutation). */
static int legal(const size_t *perm, size_t n, size_t ns, size_t s, size_t a,
                 size_t y)
{
    if (y == a)
        return 0;
    for (size_t t = 0; t < ns; t++)
        if (t != s && perm[t * n + a] == y)
            return 0;
    return 1;
}

/* Data-aware term: S_j = Pi_j + sum of Pi over j's senders (node i sends
 * to perm_p(i)), scaled by 1/(s+1); sum = sum_j ||S_j a - pibar||^2. */
typedef struct {
    const tg_digraph_search_opts *o;
    double *S, a, sum;
} hterm;

static double hrow(const hterm *h, const double *s)
{
    double q = 0.0;
    for (size_t c = 0; c < h->o->k; c++) {
        double d = s[c] * h->a - h->o->pibar[c];
        q += d * d;
    }
    return q;
}

static void hstart(hterm *h, const size_t *perm)
{
    const tg_digraph_search_opts *o = h->o;
    size_t n = o->n, k = o->k;
    memcpy(h->S, o->pi, n * k * sizeof *h->S);
    for (size_t p = 0; p < o->s; p++)
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < k; c++)
                h->S[perm[p * n + i] * k + c] += o->pi[i * k + c];
    h->sum = 0.0;
    for (size_t j = 0; j < n; j++)
        h->sum += hrow(h, h->S + j * k);
}

/* mu * change of H when receiver x trades sender a for b and receiver y
 * b for a (apply: 1 to keep it). */
static double hmove(hterm *h, size_t x, size_t y, size_t a, size_t b,
                    int apply)
{
    const tg_digraph_search_opts *o = h->o;
    size_t k = o->k;
    double d = 0.0;
    size_t rows[2] = {x, y}, plus[2] = {b, a}, minus[2] = {a, b};
    for (int r = 0; r < 2; r++) {
        double *s = h->S + rows[r] * k, t[1024];
        const double *pp = o->pi + plus[r] * k, *pm = o->pi + minus[r] * k;
        for (size_t c = 0; c < k; c++)
            t[c] = s[c] + pp[c] - pm[c];
        double change = hrow(h, t) - hrow(h, s);
        d += change;
        if (apply) {
            memcpy(s, t, k * sizeof *s);
            h->sum += change;
        }
    }
    return o->hetero_weight * d / (double)o->n;
}

size_t tg_digraph_search_default_iters(size_t n)
{
    return n < 96 ? 20000 : n <= 256 ? 6000 : 300;
}

/* One restart's chain: the ctx of its moves (tg_anneal_loop). */
typedef struct {
    const tg_digraph_search_opts *o;
    int estimate;         /* the estimate scores the moves */
    size_t *perm;         /* [s n] the current state */
    size_t *best;         /* [s n] the best state, all restarts */
    double *best_e;       /* its energy */
    double *w;            /* exact path: [n n] scratch */
    hterm *ht;            /* labels: the H term of perm */
    cm_rng rng;           /* the restart's stream */
    size_t epoch;         /* estimate: probes drawn for this epoch */
    double e, e_h;        /* energy (mu * H included), its mu * H part */
    tg_digraph_search_result *res;
} chain;

/* One move: in a random permutation s, swap the targets of two random
 * nodes (illegal: skipped), scored exactly or by the estimate of this
 * epoch (the current state rescored when a new epoch starts). */
static cm_status move(void *ctx, size_t it, double temp)
{
    chain *c = ctx;
    const tg_digraph_search_opts *o = c->o;
    size_t n = o->n, ns = o->s;
    cm_status st;
    if (c->estimate && it / TG_DIGRAPH_EPOCH != c->epoch) {
        c->epoch = it / TG_DIGRAPH_EPOCH;
        if ((st = energy(o, 1, c->perm, c->w, c->epoch, &c->e)) != CM_OK)
            return st;
        c->e += c->e_h;
        c->res->evals++;
    }
    c->res->moves++;
    size_t s = (size_t)cm_rng_below(&c->rng, ns);
    size_t a = (size_t)cm_rng_below(&c->rng, n);
    size_t b = (size_t)cm_rng_below(&c->rng, n - 1);
    b += b >= a;
    size_t *q = c->perm + s * n, x = q[a], y = q[b];
    if (!legal(c->perm, n, ns, s, a, y) || !legal(c->perm, n, ns, s, b, x))
        return CM_OK;
    double u = cm_rng_uniform(&c->rng);
    double thr = tg_anneal_threshold(c->e, temp, u), e2;
    /* receiver x trades sender a for b, receiver y b for a */
    double dh = o->pi ? hmove(c->ht, x, y, a, b, 0) : 0.0;
    q[a] = y;
    q[b] = x;
    if ((st = energy(o, c->estimate, c->perm, c->w, c->epoch, &e2)) !=
        CM_OK)
        return st;
    e2 += c->e_h + dh;
    c->res->evals++;
    if (e2 <= thr) {
        if (o->pi) {
            hmove(c->ht, x, y, a, b, 1);
            c->e_h += dh;
        }
        c->e = e2;
        c->res->accepted++;
        if (c->e < *c->best_e) {
            *c->best_e = c->e;
            memcpy(c->best, c->perm, ns * n * sizeof *c->perm);
        }
    } else {
        q[a] = x;
        q[b] = y;
    }
    return CM_OK;
}

cm_status tg_digraph_search(const tg_digraph_search_opts *o, tg_digraph *out,
                            tg_digraph_search_result *res)
{
    memset(res, 0, sizeof *res);
    size_t n = o->n, ns = o->s;
    if (n < ns + 1 || n < 3 || ns == 0)
        return cm_error(CM_EINVAL, "directed search: %zu permutations need "
                        "n >= %zu (got %zu)", ns, ns + 1, n);
    if (!(o->gamma > 0.0 && o->gamma < 1.0))
        return cm_error(CM_EINVAL, "directed search: gamma %g is not in "
                        "(0, 1)", o->gamma);
    if (o->pi && (o->k == 0 || o->k > 1024))
        return cm_error(CM_EINVAL, "directed search: 1 to 1024 classes");
    hterm ht = {o, NULL, 1.0 / (double)(o->s + 1), 0.0};
    if (o->pi && !(ht.S = malloc(n * o->k * sizeof *ht.S)))
        return cm_error(CM_ENOMEM, "directed search: out of memory");
    double start = cm_time_now();
    int estimate = !o->norm && n >= TG_DIGRAPH_ESTIMATE_FROM;
    if (o->norm && n > 1024) {
        free(ht.S);
        return cm_error(CM_EINVAL, "directed search: the norm objective "
                        "solves a dense eigenproblem per move (n <= 1024)");
    }
    size_t iters = o->iters ? o->iters : tg_digraph_search_default_iters(n);
    size_t restarts = o->restarts ? o->restarts : 1;
    double t0 = o->t0 > 0.0 ? o->t0 : 0.01 / (double)n;
    double t1 = o->t1 > 0.0 ? o->t1 : t0 / 100.0;
    size_t *perm = malloc(ns * n * sizeof *perm);
    size_t *best = malloc(ns * n * sizeof *best);
    double *w = estimate ? NULL : malloc(n * n * sizeof *w);
    cm_status st = CM_OK;
    if (!perm || !best || (!estimate && !w)) {
        st = cm_error(CM_ENOMEM, "directed search: out of memory");
        goto cleanup;
    }
    res->estimated = estimate;
    double best_e = INFINITY;
    for (size_t r = 0; r < restarts; r++) {
        if (!tg_anneal_may_start(r, o->stop, start, o->time_limit))
            break;
        chain c = {o, estimate, perm, best, &best_e, w, &ht,
                   {{0}}, 0, 0.0, 0.0, res};
        cm_rng_seed(&c.rng, o->seed, r + 1);
        if ((st = tg_digraph_random_perms(n, ns, &c.rng, perm)) != CM_OK)
            goto cleanup;
        if ((st = energy(o, estimate, perm, w, 0, &c.e)) != CM_OK)
            goto cleanup;
        res->evals++;
        if (o->pi) {
            hstart(&ht, perm);
            c.e_h = o->hetero_weight * ht.sum / (double)n;
        }
        if (r == 0) {
            double w0 = c.e;
            if (estimate) { /* the start's exact value, for the report */
                double *wd = malloc(n * n * sizeof *wd);
                if (!wd) {
                    st = cm_error(CM_ENOMEM, "directed search: out of "
                                  "memory");
                    goto cleanup;
                }
                st = exact(o, perm, wd, &res->neff_start);
                free(wd);
                if (st != CM_OK)
                    goto cleanup;
            } else if (!o->norm) {
                res->neff_start = (1.0 - w0) * (double)n;
            } else {
                st = exact(o, perm, w, &res->neff_start);
                if (st != CM_OK)
                    goto cleanup;
            }
        }
        c.e += c.e_h;
        if (c.e < best_e) {
            best_e = c.e;
            memcpy(best, perm, ns * n * sizeof *perm);
        }
        /* an equal share of the time left to each restart still to run */
        tg_anneal_loop loop = {
            t0, t1, iters,
            tg_anneal_deadline(start, o->time_limit, restarts - r), o->stop,
            move, NULL, 0, &c};
        tg_anneal_end end;
        if ((st = tg_anneal_run(&loop, &end)) != CM_OK)
            goto cleanup;
        res->timed_out |= end == TG_ANNEAL_TIMED_OUT;
        if (end == TG_ANNEAL_STOPPED) {
            res->interrupted = 1;
            break;
        }
    }
    st = tg_digraph_from_perms(out, n, ns, best);
    if (st != CM_OK)
        goto cleanup;
    {
        double *wd = w ? w : malloc(n * n * sizeof *wd);
        if (!wd) {
            st = cm_error(CM_ENOMEM, "directed search: out of memory");
            goto cleanup;
        }
        st = exact(o, best, wd, &res->neff);
        if (wd != w)
            free(wd);
    }
    if (st == CM_OK && o->pi) {
        hstart(&ht, best);
        res->hetero = ht.sum / (double)n;
    }
    if (st == CM_OK && o->norm)
        st = norm_energy(o, best, &res->norm);
    res->seconds = cm_time_now() - start;
cleanup:
    free(ht.S);
    free(perm);
    free(best);
    free(w);
    return st;
}
