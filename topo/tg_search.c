/* tg_search.c: simulated annealing over degree-preserving double-edge
 * swaps (see tg_search.h for the model).
 *
 * Every proposal is evaluated exactly (tg_spectrum, dense LAPACK); the
 * graph is changed in place and the swap undone on rejection, and the best
 * state is kept as an edge list, so the loop allocates nothing. The
 * schedule is geometric, T_k = t0 (t1/t0)^(k/iters). Defaults were tuned
 * with scripts/bench-topogen.sh (README, topogen).
 */
#include "tg_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_rng.h"
#include "cm_time.h"
#include "tg_spectrum.h"

#define CONNECTED_EPS 1e-9

/* The screen. For unit x orthogonal to 1, lambda_2(L') <= x^T L' x, and
 * lambda_n(L') >= x^T L' x for any unit x (Rayleigh). With x an eigenvector
 * v_k of the current L (eigenvalue mu_k) and L' = L + Delta after the swap
 * (a,b),(c,d) -> (a,c),(b,d):
 *   v^T L' v = mu_k + (v_a - v_c)^2 + (v_b - v_d)^2
 *                   - (v_a - v_b)^2 - (v_c - v_d)^2,
 * O(1) per vector. The minimum over the SCREEN_K lowest nontrivial vectors
 * bounds lambda_2' from above, the maximum over the SCREEN_K top ones
 * bounds lambda_n' from below; every objective is monotone (decreasing in
 * lambda_2, increasing in lambda_n), so this gives a lower bound on the new
 * energy. A proposal whose bound already fails the Metropolis test would
 * be rejected by the exact solve too, so skipping it changes nothing: the
 * chain, and the result, are the same with or without the screen. The
 * eigenvectors are computed once the state has survived SCREEN_AFTER
 * rejections (states that are left quickly never pay for them). */
#define SCREEN_K 8
#define SCREEN_AFTER 2
#define SCREEN_MARGIN 1e-9

/* v^T L' v - v^T L v for the swap (a,b),(x,y) -> (a,x),(b,y). */
static double quad_delta(const double *v, size_t a, size_t b, size_t x,
                         size_t y)
{
    double ax = v[a] - v[x], by = v[b] - v[y];
    double ab = v[a] - v[b], xy = v[x] - v[y];
    return ax * ax + by * by - ab * ab - xy * xy;
}

void tg_search_opts_default(tg_search_opts *o)
{
    memset(o, 0, sizeof *o);
    o->n = 64;
    o->d = 4;
    o->obj = TG_OBJ_RATIO;
    o->seed = 1;
    o->restarts = 0;
    o->progress_every = 1.0;
}

cm_status tg_objective_parse(const char *s, tg_objective *obj)
{
    if (strcmp(s, "ratio") == 0)
        *obj = TG_OBJ_RATIO;
    else if (strcmp(s, "gap") == 0)
        *obj = TG_OBJ_GAP;
    else if (strcmp(s, "slem-mh") == 0)
        *obj = TG_OBJ_SLEM_MH;
    else
        return cm_error(CM_EINVAL, "--objective: unknown objective '%s' "
                        "(expected ratio, gap or slem-mh)", s);
    return CM_OK;
}

const char *tg_objective_name(tg_objective obj)
{
    switch (obj) {
    case TG_OBJ_RATIO: return "ratio";
    case TG_OBJ_GAP: return "gap";
    case TG_OBJ_SLEM_MH: return "slem-mh";
    }
    return "?";
}

double tg_objective_energy(tg_objective obj, size_t d, double l2, double ln)
{
    switch (obj) {
    case TG_OBJ_RATIO:
        return l2 + ln > 0.0 ? (ln - l2) / (ln + l2) : 1.0;
    case TG_OBJ_GAP:
        return 1.0 - l2 / (double)d;
    case TG_OBJ_SLEM_MH:
        return fmax(fabs(1.0 - l2 / (double)(d + 1)),
                    fabs(ln / (double)(d + 1) - 1.0));
    }
    return 1.0;
}

double tg_objective_lower_bound(tg_objective obj, size_t d, double l2_up,
                                double ln_low)
{
    switch (obj) {
    case TG_OBJ_RATIO:
        /* 1 - 2 l2/(ln + l2): decreasing in l2, increasing in ln */
        return l2_up > 0.0 && ln_low > 0.0 ? 1.0 - 2.0 * l2_up /
                                                 (ln_low + l2_up)
                                           : -INFINITY;
    case TG_OBJ_GAP:
        return 1.0 - l2_up / (double)d;
    case TG_OBJ_SLEM_MH:
        return fmax(1.0 - l2_up / (double)(d + 1),
                    ln_low / (double)(d + 1) - 1.0);
    }
    return -INFINITY;
}

size_t tg_search_default_iters(size_t n, size_t d)
{
    (void)d;
    /* about as many proposals as fit in ~1-2 s (n <= 64; small n also
     * restart) or ~10 s (n = 128) on one core with the screen (README) */
    return n <= 32 ? 20000 : n <= 64 ? 40000 : n <= 128 ? 30000 : 15000;
}

size_t tg_search_default_restarts(size_t n)
{
    /* small graphs have few, deep local optima: restarts are cheap there */
    return n <= 16 ? 8 : n <= 32 ? 4 : 1;
}

double tg_search_default_t0(size_t n)
{
    /* typical energy changes of one swap shrink like 1/n */
    return 0.15 / (double)n;
}

/* One annealing run from g (modified in place). best_e/best_u/best_v hold
 * the best state over all runs and are updated here. Returns CM_OK, or an
 * error from the eigensolver. */
typedef struct {
    const tg_search_opts *o;
    tg_spec spec;
    cm_rng rng;
    double start_time;
    double last_progress;
    double best_e;
    size_t *best_u, *best_v;
    tg_search_result *res;
} run_ctx;

/* Ritz bound over the eigenvectors idx0..idx0+k-1 of the current L: the
 * k x k matrix M = V^T L' V = diag(mu) + sum_t s_t u_t u_t^T, where u_t
 * holds the differences of the vectors across edge t of the swap (s_t = +1
 * for the two new edges, -1 for the two removed ones). lambda_min(M)
 * bounds lambda_2' from above (low block, vectors orthogonal to 1),
 * lambda_max(M) bounds lambda_n' from below (top block). */
static cm_status ritz(const run_ctx *c, size_t n, size_t idx0, size_t k,
                      const size_t ends[4][2], double *lo, double *hi)
{
    static const double sign[4] = {1.0, 1.0, -1.0, -1.0};
    double m[SCREEN_K * SCREEN_K], u[4][SCREEN_K];
    const double *z = c->spec.z, *w = c->spec.zw;
    for (size_t t = 0; t < 4; t++)
        for (size_t j = 0; j < k; j++) {
            const double *v = z + (idx0 + j) * n;
            u[t][j] = v[ends[t][0]] - v[ends[t][1]];
        }
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j <= i; j++) {
            double sum = i == j ? w[idx0 + i] : 0.0;
            for (size_t t = 0; t < 4; t++)
                sum += sign[t] * u[t][i] * u[t][j];
            m[j * k + i] = sum; /* lower triangle, column-major */
        }
    return tg_small_sym_extremes(m, k, lo, hi);
}

/* 1 when the swap (a,b),(x,y) -> (a,x),(b,y) would certainly be rejected
 * at threshold thr (see SCREEN_K), from the current eigenpairs in
 * c->spec: first the per-vector bounds (O(k)), then, if those do not
 * decide, the tighter Ritz bounds (two k x k eigensolves). */
static int screen_rejects(const run_ctx *c, const tg_graph *g, size_t a,
                          size_t b, size_t x, size_t y, double thr)
{
    size_t n = g->n, k = n - 1 < SCREEN_K ? n - 1 : SCREEN_K;
    const double *z = c->spec.z, *w = c->spec.zw;
    double l2_up = INFINITY, ln_low = -INFINITY;
    for (size_t j = 1; j <= k; j++) {
        double lo = w[j] + quad_delta(z + j * n, a, b, x, y);
        double hi = w[n - j] + quad_delta(z + (n - j) * n, a, b, x, y);
        l2_up = lo < l2_up ? lo : l2_up;
        ln_low = hi > ln_low ? hi : ln_low;
    }
    tg_objective obj = c->o->obj;
    if (tg_objective_lower_bound(obj, c->o->d, l2_up, ln_low) >
        thr + SCREEN_MARGIN)
        return 1;
    const size_t ends[4][2] = {{a, x}, {b, y}, {a, b}, {x, y}};
    double lo, hi, lo2, hi2;
    if (ritz(c, n, 1, k, ends, &lo, &hi) != CM_OK ||
        ritz(c, n, n - k, k, ends, &lo2, &hi2) != CM_OK)
        return 0; /* no bound: solve exactly */
    return tg_objective_lower_bound(obj, c->o->d, fmin(lo, l2_up),
                                    fmax(hi2, ln_low)) > thr + SCREEN_MARGIN;
}

static int out_of_time(run_ctx *c)
{
    return c->o->time_limit > 0.0 &&
           cm_time_now() - c->start_time >= c->o->time_limit;
}

static void keep_best(run_ctx *c, const tg_graph *g, double e)
{
    if (e < c->best_e) {
        c->best_e = e;
        memcpy(c->best_u, g->eu, g->m * sizeof *g->eu);
        memcpy(c->best_v, g->ev, g->m * sizeof *g->ev);
    }
}

/* One annealing run from g (modified in place) that must end by the wall
 * time deadline (INFINITY: none). With a deadline the schedule follows
 * whichever is further along, moves or time, so a run cut short by the
 * clock still ends cold: T = t0 (t1/t0)^max(it/iters, elapsed/share). */
static cm_status anneal(run_ctx *c, tg_graph *g, size_t restart,
                        double deadline)
{
    const tg_search_opts *o = c->o;
    size_t iters = o->iters ? o->iters : tg_search_default_iters(o->n, o->d);
    double t0 = o->t0 > 0.0 ? o->t0 : tg_search_default_t0(o->n);
    double t1 = o->t1 > 0.0 ? o->t1 : t0 / 100.0;
    double l2, ln;
    cm_status st = tg_spec_extremes(&c->spec, g, &l2, &ln);
    if (st != CM_OK)
        return st;
    c->res->evals++;
    double e = tg_objective_energy(o->obj, o->d, l2, ln);
    if (restart == 0)
        c->res->start_energy = e;
    keep_best(c, g, e);
    double cool = pow(t1 / t0, 1.0 / (double)(iters > 1 ? iters : 1));
    double temp = t0;
    int have_vec = 0;   /* spec.z/zw hold the current graph's eigenpairs */
    size_t rejects = 0; /* rejections since the last accepted move */
    double begin = cm_time_now(), t_move = t0;
    for (size_t it = 0; it < iters; it++, temp = t_move * cool) {
        double now = cm_time_now();
        t_move = temp; /* the move-count schedule */
        if (isfinite(deadline)) {
            double tf = (now - begin) / (deadline - begin);
            if (tf >= 1.0 || out_of_time(c)) {
                c->res->timed_out = 1;
                break;
            }
            temp = fmin(temp, t0 * pow(t1 / t0, tf));
        }
        if (o->progress && now - c->last_progress >= o->progress_every) {
            tg_progress p = {restart, it, iters, temp, e, c->best_e,
                             now - c->start_time};
            o->progress(o->ctx, &p);
            c->last_progress = now;
        }
        c->res->moves++;
        size_t k1 = cm_rng_below(&c->rng, g->m);
        size_t k2 = cm_rng_below(&c->rng, g->m);
        size_t a = g->eu[k1], b = g->ev[k1], x = g->eu[k2], y = g->ev[k2];
        if (cm_rng_below(&c->rng, 2)) {
            size_t tmp = x;
            x = y;
            y = tmp;
        }
        if (!tg_graph_swap_ok(g, a, b, x, y))
            continue;
        /* Metropolis: accept iff e2 <= e - T log u (u = 0: always) */
        double u = cm_rng_uniform(&c->rng);
        double thr = u > 0.0 ? e - temp * log(u) : INFINITY;
        if (have_vec && screen_rejects(c, g, a, b, x, y, thr)) {
            c->res->screened++; /* certainly rejected: skip the solve */
            rejects++;
            continue;
        }
        tg_graph_swap(g, a, b, x, y);
        st = tg_spec_extremes(&c->spec, g, &l2, &ln);
        if (st != CM_OK)
            return st;
        c->res->evals++;
        if (l2 > CONNECTED_EPS) {
            double e2 = tg_objective_energy(o->obj, o->d, l2, ln);
            if (e2 <= thr) {
                e = e2;
                c->res->accepted++;
                keep_best(c, g, e);
                have_vec = 0;
                rejects = 0;
                continue;
            }
        }
        tg_graph_swap(g, a, x, b, y); /* undo */
        if (!o->no_screen && !have_vec && ++rejects >= SCREEN_AFTER) {
            st = tg_spec_vectors(&c->spec, g);
            if (st != CM_OK)
                return st;
            c->res->vector_solves++;
            have_vec = 1;
        }
    }
    return CM_OK;
}

cm_status tg_search_run(const tg_search_opts *o, tg_graph *out,
                        tg_search_result *res)
{
    memset(res, 0, sizeof *res);
    cm_status st = tg_kind_check(TG_KIND_LEARNED, o->n, o->d);
    if (st != CM_OK)
        return st;
    size_t restarts = o->restarts ? o->restarts
                                  : tg_search_default_restarts(o->n);
    run_ctx c = {0};
    c.o = o;
    c.res = res;
    c.start_time = cm_time_now();
    c.last_progress = c.start_time;
    c.best_e = INFINITY;
    tg_spec_init(&c.spec);
    tg_graph g;
    tg_graph_init(&g);
    size_t m = o->n * o->d / 2;
    c.best_u = malloc(m * sizeof *c.best_u);
    c.best_v = malloc(m * sizeof *c.best_v);
    if (!c.best_u || !c.best_v) {
        st = cm_error(CM_ENOMEM, "out of memory for the search");
        goto cleanup;
    }
    for (size_t r = 0; r < restarts; r++) {
        cm_rng_seed(&c.rng, o->seed, r + 1);
        if (o->init_rrl)
            st = tg_graph_build(&g, TG_KIND_RRL, o->n, o->d, NULL);
        else
            st = tg_graph_random_regular(&g, o->n, o->d, &c.rng);
        if (st != CM_OK)
            goto cleanup;
        double deadline = INFINITY;
        if (o->time_limit > 0.0) { /* an equal share of the time left */
            double now = cm_time_now();
            double end = c.start_time + o->time_limit;
            deadline = now + (end - now) / (double)(restarts - r);
        }
        st = anneal(&c, &g, r, deadline);
        if (st != CM_OK)
            goto cleanup;
        if (out_of_time(&c))
            break;
    }
    st = tg_graph_from_edges(out, o->n, m, c.best_u, c.best_v);
    if (st != CM_OK)
        goto cleanup;
    st = tg_spec_extremes(&c.spec, out, &res->l2, &res->ln);
    if (st != CM_OK)
        goto cleanup;
    res->energy = tg_objective_energy(o->obj, o->d, res->l2, res->ln);
    res->seconds = cm_time_now() - c.start_time;
cleanup:
    free(c.best_u);
    free(c.best_v);
    tg_graph_destroy(&g);
    tg_spec_destroy(&c.spec);
    return st;
}
