/* tg_search.c: simulated annealing over degree-preserving double-edge
 * swaps (see tg_search.h for the model). The moves are here; the cooling
 * loop (schedule, deadline, stop flag, progress tick) is tg_anneal's,
 * which the directed search shares.
 *
 * Not every proposal is solved: the screen below rejects, from the
 * current eigenvectors, moves whose rigorous lower bound already fails the
 * Metropolis test, and the sparse path's Lanczos stops once its Ritz
 * bounds prove the rejection. Proposals that survive are solved to the
 * eigensolver's tolerance (dense: machine precision; sparse: eigenvalue
 * error <= 1e-10 * 2d). The graph is changed in place and the swap undone
 * on rejection, and each restart's best state is kept as an edge list, so
 * the loop allocates nothing. Restarts run on pthreads, each with its own
 * RNG stream, graph and eigensolver workspace, and the result is combined
 * in restart order, so threads never change it. On large graphs a move
 * may apply several node-disjoint swaps at once (opts.swaps): the best
 * candidates by first-order energy, each predicting a gain, judged
 * together by one solve (a swap moves lambda_2 by O(1/n), so one solve
 * per swap is what made 16,384 nodes slow). The schedule is
 * geometric, T_k = t0 (t1/t0)^(k/iters). Defaults were tuned with
 * scripts/benches/bench-topogen.sh (docs/topo/search.md).
 */
#include "tg_search.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_rng.h"
#include "cm_time.h"
#include "tg_anneal.h"
#include "tg_groups.h"
#include "tg_search_hetero.h"
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
 * chain, and the result, are the same with or without the screen (up to
 * the sparse solver's tolerance, when a true energy lies within 1e-9 of
 * the threshold). Dense path: the eigenvectors are computed once the
 * state has survived SCREEN_AFTER rejections (states that are left
 * quickly never pay for them). Sparse path: the Ritz vectors of the last
 * accepted solve serve (unit, orthogonal to 1, v^T L v = their Ritz
 * value, so the bound holds for them too). */
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

/* State shared by the search threads (guarded by mu where noted). */
typedef struct {
    const tg_search_opts *o;
    size_t restarts, iters, threads;
    int sparse;             /* eigensolver path */
    size_t candidates;      /* proposals scored per move */
    size_t swaps;           /* swaps per move at most (opts.swaps) */
    double start_time;
    pthread_mutex_t mu;
    size_t next;            /* mu: next restart to hand out */
    size_t *done;           /* mu: [restarts] moves done per restart */
    double best_e;          /* mu: best energy so far, for progress */
    double last_progress;   /* mu: time of the last progress call */
    size_t last_done;       /* mu: moves done then (all restarts) */
    double rate0, f0;       /* mu: moves/s of the first interval and the
                               share done at its middle (0: not yet) */
    double rate;            /* mu: moves/s, smoothed over intervals */
    cm_status st;           /* mu: first failure */
    char err[256];          /* mu: its message */
    struct slot_s *slots;   /* [restarts] outcomes, slot r by restart r */
} shared;

/* One restart's outcome; the result combines them in restart order. */
typedef struct slot_s {
    double best_e;
    double start_e;
    size_t *best_u, *best_v; /* [m] best state's edges */
    tg_search_result res;    /* counters of this restart */
} slot;

/* A search thread's workspace, reused over the restarts it runs. */
typedef struct {
    shared *sh;
    slot *sl;               /* the restart being run */
    size_t r;               /* its index */
    tg_spec spec;
    cm_rng rng;
    tg_graph g;
    /* the current state's eigenvectors for the screen: k per end, values
     * tlo ascending from lambda_2, thi descending from lambda_n */
    size_t k;
    const double *vlo[SCREEN_K], *vhi[SCREEN_K];
    double tlo[SCREEN_K], thi[SCREEN_K];
    double *cur;            /* sparse: [2 SCREEN_K n] copies of them */
    double *x0;             /* sparse: [n] warm start, sum of them */
    /* the move: nbat swaps (a, b, x, y) -> (a, x), (b, y) on disjoint
     * nodes; bcur, how many the next move may take (halved after a
     * rejected move, doubled after an accepted one, at most swaps) */
    size_t bat[TG_SEARCH_MAX_SWAPS][4];
    size_t nbat, bcur;
    struct cand_s *cand;    /* [candidates] scored proposals */
    unsigned *mark;         /* [n] nodes taken by the move (== stamp) */
    unsigned stamp;
    size_t cut;             /* groups: edges between groups of g */
    void *hws;              /* o->hook's workspace, or NULL */
    tg_search_hetero hs;    /* labels: the mu * H term of g (o->pi) */
} worker;

/* A scored proposal of a move of several swaps. */
typedef struct cand_s {
    size_t a, b, x, y;
    double est;             /* first-order energy after it alone */
    size_t order;           /* draw index: ties go to the earlier draw */
} cand;

/* v^T L' v - v^T L v for the move's nb swaps (their edges are disjoint,
 * so the changes of L add up). */
static double move_delta(const double *v, const size_t (*bat)[4], size_t nb)
{
    double sum = 0.0;
    for (size_t s = 0; s < nb; s++)
        sum += quad_delta(v, bat[s][0], bat[s][1], bat[s][2], bat[s][3]);
    return sum;
}

/* Ritz bound over the k vectors v[] (values t[]) of the current L: the
 * k x k matrix M = V^T L' V = diag(t) + sum_e s_e u_e u_e^T, where u_e
 * holds the differences of the vectors across edge e of the swap (s_e =
 * +1 for the two new edges, -1 for the two removed ones). lambda_min(M)
 * bounds lambda_2' from above (vectors orthogonal to 1), lambda_max(M)
 * bounds lambda_n' from below. Needs V orthonormal with V^T L V =
 * diag(t): exact eigenvectors, or Ritz vectors (to rounding). */
static cm_status ritz(const double *const *v, const double *t, size_t k,
                      const size_t (*bat)[4], size_t nb, double *lo,
                      double *hi)
{
    static const double sign[4] = {1.0, 1.0, -1.0, -1.0};
    double m[SCREEN_K * SCREEN_K], u[4][SCREEN_K];
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j <= i; j++)
            m[j * k + i] = i == j ? t[i] : 0.0; /* lower, column-major */
    for (size_t s = 0; s < nb; s++) {
        const size_t *q = bat[s];
        const size_t ends[4][2] = {{q[0], q[2]}, {q[1], q[3]},
                                   {q[0], q[1]}, {q[2], q[3]}};
        for (size_t e = 0; e < 4; e++)
            for (size_t j = 0; j < k; j++)
                u[e][j] = v[j][ends[e][0]] - v[j][ends[e][1]];
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j <= i; j++)
                for (size_t e = 0; e < 4; e++)
                    m[j * k + i] += sign[e] * u[e][i] * u[e][j];
    }
    return tg_small_sym_extremes(m, k, lo, hi);
}

/* 1 when the move (w->bat) would certainly be rejected at threshold thr
 * (see SCREEN_K): first the per-vector bounds (O(k) per swap), then, if
 * those do not decide, the tighter Ritz bounds (two k x k eigensolves). */
static int screen_rejects(const worker *w, double thr)
{
    const tg_search_opts *o = w->sh->o;
    double l2_up = INFINITY, ln_low = -INFINITY;
    for (size_t j = 0; j < w->k; j++) {
        double lo = w->tlo[j] + move_delta(w->vlo[j], w->bat, w->nbat);
        double hi = w->thi[j] + move_delta(w->vhi[j], w->bat, w->nbat);
        l2_up = lo < l2_up ? lo : l2_up;
        ln_low = hi > ln_low ? hi : ln_low;
    }
    if (tg_objective_lower_bound(o->obj, o->d, l2_up, ln_low) >
        thr + SCREEN_MARGIN)
        return 1;
    double lo, hi, lo2, hi2;
    if (ritz(w->vlo, w->tlo, w->k, w->bat, w->nbat, &lo, &hi) != CM_OK ||
        ritz(w->vhi, w->thi, w->k, w->bat, w->nbat, &lo2, &hi2) != CM_OK)
        return 0; /* no bound: solve exactly */
    return tg_objective_lower_bound(o->obj, o->d, fmin(lo, l2_up),
                                    fmax(hi2, ln_low)) > thr + SCREEN_MARGIN;
}

/* Dense path: point the screen at the eigenpairs of tg_spec_vectors. */
static void dense_vectors(worker *w)
{
    size_t n = w->g.n;
    w->k = n - 1 < SCREEN_K ? n - 1 : SCREEN_K;
    for (size_t j = 0; j < w->k; j++) {
        w->vlo[j] = w->spec.z + (j + 1) * n;
        w->tlo[j] = w->spec.zw[j + 1];
        w->vhi[j] = w->spec.z + (n - 1 - j) * n;
        w->thi[j] = w->spec.zw[n - 1 - j];
    }
}

/* Sparse path: adopt the Ritz pairs of the last tg_spec_sparse call as the
 * current state's, and their sum as the next warm start. */
static void sparse_vectors(worker *w)
{
    const cm_lanczos *lz = &w->spec.lz;
    size_t n = w->g.n, k = lz->nvec < SCREEN_K ? lz->nvec : SCREEN_K;
    w->k = k;
    memcpy(w->cur, lz->ylo, k * n * sizeof *w->cur);
    memcpy(w->cur + k * n, lz->yhi, k * n * sizeof *w->cur);
    memset(w->x0, 0, n * sizeof *w->x0);
    for (size_t j = 0; j < k; j++) {
        w->vlo[j] = w->cur + j * n;
        w->vhi[j] = w->cur + (k + j) * n;
        w->tlo[j] = lz->tlo[j];
        w->thi[j] = lz->thi[j];
        for (size_t i = 0; i < n; i++)
            w->x0[i] += w->vlo[j][i] + w->vhi[j][i];
    }
}

/* The sparse path's early stop: the Ritz bounds lo >= lambda_2' and
 * hi <= lambda_n' already put the energy above the Metropolis threshold. */
typedef struct {
    const tg_search_opts *o;
    double thr;
} early_ctx;

static int early_reject(const void *ctx, double lo, double hi)
{
    const early_ctx *ec = ctx;
    return tg_objective_lower_bound(ec->o->obj, ec->o->d, lo, hi) >
           ec->thr + SCREEN_MARGIN;
}

/* lambda_2, lambda_n of w->g (l2 = 0 when disconnected; the sparse path
 * takes that from the caller's connected, the dense one from its
 * spectrum). Sparse: warm from the current state's vectors when warm, and
 * stopped early (*decided = 1, the move is rejected) once the bounds
 * exceed thr. */
static cm_status solve(worker *w, int warm, int connected, double thr,
                       double *l2, double *ln, int *decided)
{
    *decided = 0;
    if (!w->sh->sparse)
        return tg_spec_extremes(&w->spec, &w->g, l2, ln);
    *l2 = *ln = 0.0;
    if (!connected)
        return CM_OK;
    early_ctx ec = {w->sh->o, thr};
    w->spec.lz.early =
        warm && isfinite(thr) && !w->sh->o->no_screen ? early_reject : NULL;
    w->spec.lz.early_ctx = &ec;
    cm_status st = tg_spec_sparse(&w->spec, &w->g, warm ? w->x0 : NULL, l2,
                                  ln);
    w->sl->res.matvecs += w->spec.lz.matvecs;
    *decided = w->spec.lz.stopped_early;
    w->spec.lz.early = NULL;
    return st;
}

/* First-order estimate of the energy after the swap (a,b),(x,y) ->
 * (a,x),(b,y) from the current vectors: lambda_j' ~ t_j + v_j^T Delta v_j
 * for each kept vector, lowest of the low end, highest of the high end.
 * It is also a rigorous lower bound (Rayleigh, see screen_rejects). O(k). */
static double first_order(const worker *w, size_t a, size_t b, size_t x,
                          size_t y)
{
    const tg_search_opts *o = w->sh->o;
    double l2_up = INFINITY, ln_low = -INFINITY;
    for (size_t j = 0; j < w->k; j++) {
        l2_up = fmin(l2_up, w->tlo[j] + quad_delta(w->vlo[j], a, b, x, y));
        ln_low = fmax(ln_low, w->thi[j] + quad_delta(w->vhi[j], a, b, x, y));
    }
    return tg_objective_lower_bound(o->obj, o->d, l2_up, ln_low);
}

/* cand order: lower estimate first, then the earlier draw. */
static int cand_cmp(const void *p, const void *q)
{
    const cand *x = p, *y = q;
    if (x->est != y->est)
        return x->est < y->est ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Draws the move into w->bat and returns its swaps (0 when no candidate
 * is a legal swap): a uniformly random double-edge swap or, with
 * candidates > 1 and vectors at hand, the best of that many random swaps
 * by first_order. With more swaps allowed (w->bcur > 1), the next best
 * candidates join it in order while they predict an energy below e, the
 * current one, and touch none of the nodes already taken. */
static size_t propose(worker *w, int have_vec, double e)
{
    const tg_graph *g = &w->g;
    size_t cands = have_vec ? w->sh->candidates : 1;
    int many = cands > 1 && w->bcur > 1 && w->cand;
    double best = INFINITY;
    size_t nc = 0, *q = w->bat[0];
    int found = 0;
    for (size_t c = 0; c < cands; c++) {
        size_t k1 = cm_rng_below(&w->rng, g->m);
        size_t k2 = cm_rng_below(&w->rng, g->m);
        size_t a = g->eu[k1], b = g->ev[k1], x = g->eu[k2], y = g->ev[k2];
        if (cm_rng_below(&w->rng, 2)) {
            size_t tmp = x;
            x = y;
            y = tmp;
        }
        if (!tg_graph_swap_ok(g, a, b, x, y) ||
            (w->sh->o->groups &&
             (long)w->cut + tg_groups_swap_delta(g->n, w->sh->o->groups, a,
                                                 b, x, y) >
                 (long)w->sh->o->max_cross))
            continue;
        double est = cands > 1 ? first_order(w, a, b, x, y) : 0.0;
        if (cands > 1 && w->sh->o->pi) /* data-aware: + the H change */
            est += tg_search_hetero_delta(&w->hs, a, b, x, y);
        if (many)
            w->cand[nc++] = (cand){a, b, x, y, est, c};
        if (!found || est < best) {
            best = est;
            q[0] = a, q[1] = b, q[2] = x, q[3] = y;
            found = 1;
        }
    }
    w->nbat = found;
    if (!found || !many)
        return w->nbat;
    qsort(w->cand, nc, sizeof *w->cand, cand_cmp); /* cand[0] is q */
    if (++w->stamp == 0) { /* wrapped: clear the marks */
        memset(w->mark, 0, g->n * sizeof *w->mark);
        w->stamp = 1;
    }
    for (size_t i = 0; i < 4; i++)
        w->mark[q[i]] = w->stamp;
    for (size_t c = 1; c < nc && w->nbat < w->bcur && w->cand[c].est < e;
         c++) {
        const cand *p = &w->cand[c];
        if (w->mark[p->a] == w->stamp || w->mark[p->b] == w->stamp ||
            w->mark[p->x] == w->stamp || w->mark[p->y] == w->stamp)
            continue;
        w->mark[p->a] = w->mark[p->b] = w->mark[p->x] = w->mark[p->y] =
            w->stamp;
        size_t *r = w->bat[w->nbat++];
        r[0] = p->a, r[1] = p->b, r[2] = p->x, r[3] = p->y;
    }
    return w->nbat;
}

static void keep_best(slot *sl, const tg_graph *g, double e)
{
    if (e < sl->best_e) {
        sl->best_e = e;
        memcpy(sl->best_u, g->eu, g->m * sizeof *g->eu);
        memcpy(sl->best_v, g->ev, g->m * sizeof *g->ev);
    }
}

static int stopped(const shared *sh)
{
    return sh->o->stop && *sh->o->stop;
}

/* Seconds left, for a search whose moves get cheaper as it cools (a cold
 * search rejects most proposals in the screen; measured at n = 64, d = 4:
 * the last share of the moves ran 8 times faster than the first, so a
 * linear extrapolation overestimated the time left 3 to 5 times). Model:
 * the rate grows as exp(beta f) with the share done f; beta comes from the
 * first interval's rate and the current one (smoothed) once they are 0.1
 * apart, else the measured prior ln 8 ~ 2. Time left = the integral of
 * 1 / rate over the moves left:
 *   eta = N / rate_now * (1 - exp(-beta (1 - f))) / beta,
 * N = restarts x moves per restart; with a time limit, at most what is
 * left of it. Called under mu. */
static double eta_cooling(shared *sh, size_t done, double now, double f)
{
    const tg_search_opts *o = sh->o;
    double dt = now - sh->last_progress;
    if (dt > 0.0 && done > sh->last_done) {
        double r = (double)(done - sh->last_done) / dt;
        double total = (double)sh->restarts * (double)sh->iters;
        if (sh->rate0 <= 0.0) {
            sh->rate0 = sh->rate = r;
            sh->f0 = 0.5 * ((double)sh->last_done + (double)done) / total;
        } else {
            sh->rate = 0.5 * sh->rate + 0.5 * r;
        }
    }
    if (sh->rate <= 0.0 || f >= 1.0)
        return f >= 1.0 ? 0.0 : INFINITY;
    double beta = 2.0;
    if (f - sh->f0 >= 0.1 && sh->rate > sh->rate0)
        beta = fmin(log(sh->rate / sh->rate0) / (f - sh->f0), 8.0);
    else if (f - sh->f0 >= 0.1)
        beta = 0.0;
    double left = (double)sh->restarts * (double)sh->iters *
                  (1.0 - fmin(f, 1.0)); /* moves */
    double eta = beta > 1e-6
                     ? (double)sh->restarts * (double)sh->iters / sh->rate *
                           (1.0 - exp(-beta * (1.0 - f))) / beta
                     : left / sh->rate;
    if (o->time_limit > 0.0)
        eta = fmin(eta, fmax(o->time_limit - (now - sh->start_time), 0.0));
    return eta;
}

/* Progress bookkeeping every PROGRESS_STRIDE moves: records the moves done
 * and, when due, calls o->progress (one caller at a time). */
#define PROGRESS_STRIDE 16
static void progress_tick(worker *w, size_t it, double temp, double e,
                          double now)
{
    shared *sh = w->sh;
    const tg_search_opts *o = sh->o;
    pthread_mutex_lock(&sh->mu);
    sh->done[w->r] = it;
    if (w->sl->best_e < sh->best_e)
        sh->best_e = w->sl->best_e;
    if (o->progress && now - sh->last_progress >= o->progress_every) {
        size_t done = 0;
        for (size_t r = 0; r < sh->restarts; r++)
            done += sh->done[r];
        double el = now - sh->start_time;
        double f = (double)done / ((double)sh->restarts * (double)sh->iters);
        if (o->time_limit > 0.0)
            f = fmax(f, el / o->time_limit);
        f = fmin(f, 1.0);
        tg_progress p = {w->r, sh->restarts, it, sh->iters, temp, e,
                         sh->best_e, el, f, eta_cooling(sh, done, now, f),
                         done, 0};
        for (size_t r = 0; r < sh->restarts; r++)
            p.running += sh->done[r] > 0 && sh->done[r] < sh->iters;
        o->progress(o->ctx, &p);
        sh->last_progress = now;
        sh->last_done = done;
    }
    pthread_mutex_unlock(&sh->mu);
}

/* One annealing run's chain: the ctx of its moves (tg_anneal_loop). */
typedef struct {
    worker *w;
    double e;         /* the current state's energy (mu * H included) */
    double e_h;       /* labels: the mu * H part of e */
    int have_vec;     /* the screen's vectors are the current state's */
    size_t rejects;   /* rejections since the last accepted move */
} chain;

/* The loop's tick: progress bookkeeping (progress_tick). */
static void chain_tick(void *ctx, size_t it, double temp, double now)
{
    const chain *c = ctx;
    progress_tick(c->w, it, temp, c->e, now);
}

/* One move with o->hook's energy: every legal, connected proposal is
 * scored by the hook. */
static cm_status move_hook(void *ctx, size_t it, double temp)
{
    chain *c = ctx;
    worker *w = c->w;
    const tg_search_opts *o = w->sh->o;
    slot *sl = w->sl;
    tg_graph *g = &w->g;
    (void)it;
    sl->res.moves++;
    if (!propose(w, 0, c->e))
        return CM_OK;
    size_t a = w->bat[0][0], b = w->bat[0][1], x = w->bat[0][2],
           y = w->bat[0][3];
    double u = cm_rng_uniform(&w->rng);
    double thr = tg_anneal_threshold(c->e, temp, u), e2;
    double dh = o->pi ? tg_search_hetero_delta(&w->hs, a, b, x, y) : 0.0;
    tg_graph_swap(g, a, b, x, y);
    if (tg_graph_swap_connected(g, a, b)) {
        const size_t sw[4] = {a, b, x, y};
        cm_status st = o->hook->energy(w->hws, g, sw, &e2);
        if (st != CM_OK)
            return st;
        sl->res.evals++;
        e2 += c->e_h + dh;
        if (e2 <= thr) {
            if ((st = o->hook->accept(w->hws, g)) != CM_OK)
                return st;
            if (o->pi) {
                tg_search_hetero_apply(&w->hs, a, b, x, y);
                c->e_h += dh;
            }
            c->e = e2;
            if (o->groups)
                w->cut = (size_t)((long)w->cut +
                                  tg_groups_swap_delta(g->n, o->groups, a, b,
                                                       x, y));
            sl->res.accepted++;
            sl->res.swaps++;
            keep_best(sl, g, c->e);
            return CM_OK;
        }
    }
    tg_graph_swap(g, a, x, b, y); /* undo */
    return CM_OK;
}

/* One move with the objective's energy of (lambda_2, lambda_n). The dense
 * path solves every unscreened proposal from scratch and computes
 * eigenvectors for the screen once a state has survived SCREEN_AFTER
 * rejections; the sparse path warm-starts every solve from the current
 * state's Ritz vectors, which also feed the screen. */
static cm_status move_spectral(void *ctx, size_t it, double temp)
{
    chain *c = ctx;
    worker *w = c->w;
    const tg_search_opts *o = w->sh->o;
    slot *sl = w->sl;
    tg_graph *g = &w->g;
    int sparse = w->sh->sparse, decided;
    double l2, ln;
    (void)it;
    sl->res.moves++;
    size_t nb = propose(w, c->have_vec, c->e);
    if (!nb)
        return CM_OK;
    size_t a = w->bat[0][0], b = w->bat[0][1], x = w->bat[0][2],
           y = w->bat[0][3]; /* the one swap of groups and labels */
    /* Metropolis: accept iff e2 <= e - T log u (u = 0: always) */
    double u = cm_rng_uniform(&w->rng);
    double thr = tg_anneal_threshold(c->e, temp, u);
    /* labels: the spectral part must stay below thr minus the new
     * mu * H (exact, O(K)), which the screen and the solve then use */
    double dh = o->pi ? tg_search_hetero_delta(&w->hs, a, b, x, y) : 0.0;
    thr -= c->e_h + dh;
    if (c->have_vec && !o->no_screen && screen_rejects(w, thr)) {
        sl->res.screened++; /* certainly rejected: skip the solve */
        c->rejects++;
        w->bcur = w->bcur > 1 ? w->bcur / 2 : 1;
        return CM_OK;
    }
    int connected = 1;
    for (size_t s = 0; s < nb; s++) {
        tg_graph_swap(g, w->bat[s][0], w->bat[s][1], w->bat[s][2],
                      w->bat[s][3]);
        connected = connected &&
                    tg_graph_swap_connected(g, w->bat[s][0], w->bat[s][1]);
    }
    cm_status st = solve(w, 1, connected, thr, &l2, &ln, &decided);
    if (st == CM_ENUMERIC) {
        /* the solve did not converge (Lanczos at 65,536 nodes): the
         * move is rejected and the search goes on from the current
         * state, whose vectors are untouched */
        cm_error_clear();
        sl->res.failed_solves++;
        decided = 1;
    } else if (st != CM_OK) {
        return st;
    } else {
        sl->res.evals++;
        sl->res.early += decided;
    }
    if (!decided && l2 > CONNECTED_EPS) {
        double e2 = tg_objective_energy(o->obj, o->d, l2, ln);
        if (e2 <= thr) {
            if (o->pi) {
                tg_search_hetero_apply(&w->hs, a, b, x, y);
                c->e_h += dh;
            }
            c->e = e2 + c->e_h;
            if (o->groups)
                w->cut = (size_t)((long)w->cut +
                                  tg_groups_swap_delta(g->n, o->groups, a, b,
                                                       x, y));
            sl->res.accepted++;
            sl->res.swaps += nb;
            keep_best(sl, g, c->e);
            c->rejects = 0;
            w->bcur = 2 * w->bcur < w->sh->swaps ? 2 * w->bcur
                                                 : w->sh->swaps;
            if (sparse)
                sparse_vectors(w);
            else
                c->have_vec = 0;
            return CM_OK;
        }
    }
    for (size_t s = nb; s-- > 0;) /* undo, last first */
        tg_graph_swap(g, w->bat[s][0], w->bat[s][2], w->bat[s][1],
                      w->bat[s][3]);
    w->bcur = w->bcur > 1 ? w->bcur / 2 : 1;
    if (!sparse && !o->no_screen && !c->have_vec &&
        ++c->rejects >= SCREEN_AFTER) {
        st = tg_spec_vectors(&w->spec, g);
        if (st != CM_OK)
            return st;
        sl->res.vector_solves++;
        dense_vectors(w);
        c->have_vec = 1;
    }
    return CM_OK;
}

/* One annealing run from w->g (modified in place) that must end by the
 * wall time deadline (INFINITY: none), on the shared cooling loop
 * (tg_anneal.h: the schedule, the deadline, the stop flag and the
 * progress tick), with the hook's moves or the spectral ones. */
static cm_status anneal(worker *w, double deadline)
{
    const tg_search_opts *o = w->sh->o;
    slot *sl = w->sl;
    tg_graph *g = &w->g;
    chain c = {w, 0.0, 0.0, 0, 0};
    cm_status st;
    if (o->hook) {
        if (!w->hws && !(w->hws = o->hook->ws_new(o->hook->cfg, o->n, o->d)))
            return cm_error(CM_ENOMEM, "out of memory for the search");
        if ((st = o->hook->energy(w->hws, g, NULL, &c.e)) != CM_OK)
            return st;
    } else {
        double l2, ln;
        int decided, connected;
        st = tg_graph_connected(g, &connected);
        if (st == CM_OK)
            st = solve(w, 0, connected, INFINITY, &l2, &ln, &decided);
        if (st == CM_ENUMERIC && w->sh->sparse) {
            /* the start's solve did not converge: this restart yields no
             * graph (the others may); counted as a failed solve */
            cm_error_clear();
            sl->res.failed_solves++;
            return CM_OK;
        }
        if (st != CM_OK)
            return st;
        c.e = tg_objective_energy(o->obj, o->d, l2, ln);
    }
    sl->res.evals++;
    if (o->pi) {
        st = tg_search_hetero_start(&w->hs, g, o->d, o->pi, o->pibar, o->k,
                                    o->hetero_weight);
        if (st != CM_OK)
            return st;
        c.e_h = tg_search_hetero_energy(&w->hs);
        c.e += c.e_h;
    }
    sl->start_e = c.e;
    keep_best(sl, g, c.e);
    if (!o->hook && w->sh->sparse) {
        sparse_vectors(w);
        c.have_vec = 1;
    }
    /* t0, t1 resolved (tg_search_run); the sparse spectral path ticks
     * every move (its moves are slow), the others every PROGRESS_STRIDE */
    tg_anneal_loop loop = {
        o->t0, o->t1, w->sh->iters, deadline, o->stop,
        o->hook ? move_hook : move_spectral, chain_tick,
        w->sh->sparse && !o->hook ? 1 : PROGRESS_STRIDE, &c};
    tg_anneal_end end;
    st = tg_anneal_run(&loop, &end);
    sl->res.interrupted |= end == TG_ANNEAL_STOPPED;
    sl->res.timed_out |= end == TG_ANNEAL_TIMED_OUT;
    return st;
}

/* Runs restart r into w->sl. */
static cm_status run_restart(worker *w, size_t r)
{
    shared *sh = w->sh;
    const tg_search_opts *o = sh->o;
    cm_rng_seed(&w->rng, o->seed, r + 1);
    cm_status st;
    if (o->groups)
        st = tg_groups_start(&w->g, o->n, o->d, o->groups, o->max_cross,
                             o->init_rrl ? NULL : &w->rng);
    else
        st = o->init_rrl
                 ? tg_graph_build(&w->g, TG_KIND_RRL, o->n, o->d, NULL)
                 : tg_graph_random_regular(&w->g, o->n, o->d, &w->rng);
    if (st != CM_OK)
        return st;
    if (o->groups)
        tg_groups_cut(o->n, w->g.m, w->g.eu, w->g.ev, o->groups, NULL,
                      &w->cut);
    w->bcur = sh->swaps;
    if (sh->swaps > 1 && sh->candidates > 1 && !w->cand) {
        w->cand = malloc(sh->candidates * sizeof *w->cand);
        w->mark = calloc(o->n, sizeof *w->mark);
        w->stamp = 0;
        if (!w->cand || !w->mark)
            return cm_error(CM_ENOMEM, "out of memory for the search");
    }
    if (sh->sparse && !w->cur) {
        w->cur = malloc(2 * SCREEN_K * o->n * sizeof *w->cur);
        w->x0 = malloc(o->n * sizeof *w->x0);
        if (!w->cur || !w->x0)
            return cm_error(CM_ENOMEM, "out of memory for the search");
    }
    /* an equal share of the time left to each wave of restarts */
    size_t waves = (sh->restarts - r + sh->threads - 1) / sh->threads;
    return anneal(w, tg_anneal_deadline(sh->start_time, o->time_limit,
                                        waves));
}

/* A search thread: takes restarts in order until none is left (or the
 * time is up, or a stop: later restarts are then left out). */
static void *worker_main(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    for (;;) {
        pthread_mutex_lock(&sh->mu);
        size_t r = sh->next++;
        int go = r < sh->restarts && sh->st == CM_OK;
        pthread_mutex_unlock(&sh->mu);
        if (!go || !tg_anneal_may_start(r, sh->o->stop, sh->start_time,
                                        sh->o->time_limit))
            break;
        w->r = r;
        w->sl = sh->slots + r;
        cm_status st = run_restart(w, r);
        pthread_mutex_lock(&sh->mu);
        sh->done[r] = sh->iters;
        if (st != CM_OK && sh->st == CM_OK) {
            sh->st = st;
            snprintf(sh->err, sizeof sh->err, "%s", cm_last_error());
        }
        pthread_mutex_unlock(&sh->mu);
        if (st != CM_OK)
            break;
    }
    return NULL;
}

static size_t online_cpus(void)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (size_t)c : 1;
}

cm_status tg_search_run(const tg_search_opts *opts, tg_graph *out,
                        tg_search_result *res)
{
    memset(res, 0, sizeof *res);
    tg_search_opts resolved = *opts;
    tg_search_opts_resolve(&resolved);
    const tg_search_opts *o = &resolved;
    cm_status st = tg_kind_check(TG_KIND_LEARNED, o->n, o->d);
    if (st == CM_OK && o->n > TG_MAX_NODES &&
        (o->solver != TG_SOLVER_SPARSE || o->hook || o->pi || o->groups ||
         tg_objective_is_neff(o->obj)))
        st = cm_error(CM_EINVAL, "-n: %zu nodes: above %d nodes topogen "
                      "learns only with the sparse eigensolver and the "
                      "ratio, gap or slem-mh objective, without --groups or "
                      "--labels (the others hold n x n matrices)", o->n,
                      TG_MAX_NODES);
    if (st == CM_OK && o->groups)
        st = tg_groups_check(o->n, o->d, o->groups, o->max_cross);
    if (st != CM_OK)
        return st;
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.o = o;
    sh.restarts = o->restarts;
    sh.iters = o->iters;
    sh.threads = o->threads ? o->threads : online_cpus();
    sh.threads = sh.threads < sh.restarts ? sh.threads : sh.restarts;
    sh.sparse = o->solver == TG_SOLVER_SPARSE;
    sh.candidates = o->candidates;
    sh.swaps = o->swaps ? o->swaps : 1;
    sh.start_time = cm_time_now();
    sh.last_progress = sh.start_time;
    sh.best_e = INFINITY;
    pthread_mutex_init(&sh.mu, NULL);
    size_t m = o->n * o->d / 2, nt = sh.threads;
    sh.done = calloc(sh.restarts, sizeof *sh.done);
    sh.slots = calloc(sh.restarts, sizeof *sh.slots);
    worker *ws = calloc(nt, sizeof *ws);
    pthread_t *tid = calloc(nt, sizeof *tid);
    int ok = sh.done && sh.slots && ws && tid;
    for (size_t r = 0; ok && r < sh.restarts; r++) {
        sh.slots[r].best_e = INFINITY;
        sh.slots[r].best_u = malloc(m * sizeof *sh.slots[r].best_u);
        sh.slots[r].best_v = malloc(m * sizeof *sh.slots[r].best_v);
        ok = sh.slots[r].best_u && sh.slots[r].best_v;
    }
    if (!ok) {
        st = cm_error(CM_ENOMEM, "out of memory for the search");
        goto cleanup;
    }
    size_t started = 0;
    for (size_t t = 0; t < nt; t++) {
        ws[t].sh = &sh;
        tg_spec_init(&ws[t].spec);
        ws[t].spec.max_matvec = o->max_matvec;
        tg_graph_init(&ws[t].g);
        tg_search_hetero_init(&ws[t].hs);
    }
    /* thread 0's work runs on the caller's thread */
    for (size_t t = 1; t < nt; t++, started++)
        if (pthread_create(&tid[t], NULL, worker_main, &ws[t]) != 0)
            break;
    worker_main(&ws[0]);
    for (size_t t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    if (sh.st != CM_OK) {
        st = cm_error(sh.st, "%s", sh.err);
        goto cleanup;
    }
    /* the best restart (lowest index on ties), and the counters of all */
    size_t best = 0;
    for (size_t r = 0; r < sh.restarts; r++) {
        const tg_search_result *q = &sh.slots[r].res;
        res->moves += q->moves;
        res->evals += q->evals;
        res->screened += q->screened;
        res->vector_solves += q->vector_solves;
        res->matvecs += q->matvecs;
        res->accepted += q->accepted;
        res->swaps += q->swaps;
        res->failed_solves += q->failed_solves;
        res->timed_out |= q->timed_out;
        res->interrupted |= q->interrupted;
        if (sh.slots[r].best_e < sh.slots[best].best_e)
            best = r;
    }
    res->timed_out |= o->time_limit > 0.0 && sh.next <= sh.restarts;
    res->interrupted |= stopped(&sh);
    res->start_energy = sh.slots[0].start_e;
    res->sparse = sh.sparse;
    res->threads = 1 + started;
    if (!(sh.slots[best].best_e < INFINITY)) {
        st = res->failed_solves
                 ? cm_error(CM_ENUMERIC, "search: no restart produced a "
                            "graph (the eigensolve of every start did not "
                            "converge)")
                 : cm_error(CM_EINTERNAL, "search: no restart ran");
        goto cleanup;
    }
    st = tg_graph_from_edges(out, o->n, m, sh.slots[best].best_u,
                             sh.slots[best].best_v);
    if (st != CM_OK)
        goto cleanup;
    if (sh.sparse)
        st = tg_spec_sparse(&ws[0].spec, out, NULL, &res->l2, &res->ln);
    else
        st = tg_spec_extremes(&ws[0].spec, out, &res->l2, &res->ln);
    int unsolved = 0; /* the cold re-solve of the best graph did not
                         converge: its energy is the search's own */
    if (st == CM_ENUMERIC && sh.sparse) {
        cm_error_clear();
        st = CM_OK;
        unsolved = 1;
        res->l2 = res->ln = NAN;
    }
    if (st != CM_OK)
        goto cleanup;
    res->energy = o->hook || unsolved
                      ? sh.slots[best].best_e
                      : tg_objective_energy(o->obj, o->d, res->l2, res->ln);
    if (o->pi) { /* labels: the energy includes mu * H */
        st = tg_search_hetero_start(&ws[0].hs, out, o->d, o->pi, o->pibar,
                                    o->k, o->hetero_weight);
        if (st != CM_OK)
            goto cleanup;
        res->hetero = tg_search_hetero_value(&ws[0].hs);
        if (!o->hook && !unsolved) /* best_e has it already */
            res->energy += tg_search_hetero_energy(&ws[0].hs);
    }
    if (o->groups)
        tg_groups_cut(o->n, out->m, out->eu, out->ev, o->groups, NULL,
                      &res->cross);
    res->seconds = cm_time_now() - sh.start_time;
cleanup:
    for (size_t t = 0; ws && t < nt; t++) {
        tg_spec_destroy(&ws[t].spec);
        tg_graph_destroy(&ws[t].g);
        tg_search_hetero_destroy(&ws[t].hs);
        free(ws[t].cur);
        free(ws[t].x0);
        free(ws[t].cand);
        free(ws[t].mark);
        if (ws[t].hws)
            o->hook->ws_free(ws[t].hws);
    }
    for (size_t r = 0; sh.slots && r < sh.restarts; r++) {
        free(sh.slots[r].best_u);
        free(sh.slots[r].best_v);
    }
    free(sh.slots);
    free(sh.done);
    free(ws);
    free(tid);
    pthread_mutex_destroy(&sh.mu);
    return st;
}
