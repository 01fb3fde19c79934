/* cm_shiftinv.c: both ends of M = L or I - W for large sparse graphs by
 * Lanczos and, where it is slow, shift-and-invert with CHOLMOD (see
 * cm_shiftinv.h).
 *
 * The Lanczos here is the project's one engine (cm_lanczos.c) in its
 * values-only form: the three-term recurrence (Lanczos 1950; Paige 1976
 * for its finite-precision behaviour) with two vectors held, the
 * tridiagonal T_k's extreme eigenpairs by bisection and inverse iteration
 * (LAPACK dstebz, dstein: O(k) each), so a product with a 10^6-node graph
 * costs about what the product costs. It only answers for the extremes
 * and never for multiplicities, which is all the callers need; it is run
 * budget by budget (cm_lanczos_more) so that the evidence below can
 * decide between more products and a factorization.
 *
 * lambda_max by shift-and-invert needs a shift just above it: the
 * Ritz value of step 1 is a lower bound lb, a positive definite
 * factorization of sigma I - M proves sigma an upper bound ub (Sylvester's
 * law of inertia), and each round of Lanczos on (ub I - M)^-1 raises lb
 * (ub - 1/theta, theta a Ritz value of the inverse, is <= lambda_max);
 * the next shift is tried at lb + (ub - lb)/16, so ub - lambda_max, which
 * sets the inverse's convergence rate, shrinks geometrically.
 *
 * When to factor is decided from evidence, not from a fixed budget: the
 * error estimates at the checks extrapolate the products still needed
 * (cm_lanczos_predict), and a breadth-first separator bounds the factor from the
 * graph (search): on a 10^6-node random 4-regular graph CHOLMOD's AMD and
 * METIS analysis alone took ~40% of a run whose factor was then refused
 * for fill. The estimates can be wrong, so a skipped step 2 is tried
 * after step 3 before any failure.
 */
#include "cm_shiftinv.h"

#include <cholmod.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_lanczos.h"
#include "cm_lapack.h"

/* step 1's budget (products); step 3's: about 1e11 flops; step 2 runs
 * when its factorization and about 400 solves cost less than
 * FACTOR_PRODUCTS more products */
#define FIRST_BUDGET 100
#define SECOND_FLOPS 1e11
#define FACTOR_PRODUCTS 3000.0
/* after step 1, products continue in steps of AHEAD_STEP while
 * cm_lanczos_predict says at most AHEAD_PRODUCTS more are needed (a factor is
 * allowed FACTOR_PRODUCTS, and its analysis alone costs hundreds of
 * products on an expander whose factor is then refused for fill), up to
 * AHEAD_MAX in all */
#define AHEAD_STEP 50
#define AHEAD_PRODUCTS 2000.0
#define AHEAD_MAX 50000
/* shift-and-invert: products per round on (ub I - M)^-1, rounds, and the
 * budget of the grounded run */
#define INNER_BUDGET 120
#define MAX_ROUNDS 40
#define GROUNDED_BUDGET 3000

/* ---- operators ------------------------------------------------------- */

/* M = L (mixing = 0) or I - W for t, in t's numbering: the matrix
 * CHOLMOD factors, and the product when no 32-bit copy fits. */
typedef struct {
    const cm_topo *t;
    int mixing;
} m_ctx;

static double m_diag(const m_ctx *c, size_t i)
{
    const cm_topo *t = c->t;
    return c->mixing ? 1.0 - t->self[i] : (double)(t->off[i + 1] - t->off[i]);
}

static double m_off(const m_ctx *c, size_t p)
{
    return c->mixing ? -c->t->adj_w[p] : -1.0;
}

static void m_apply(const void *ctx, const double *x, double *y)
{
    const m_ctx *c = ctx;
    const cm_topo *t = c->t;
    for (size_t i = 0; i < t->n; i++) {
        double s = m_diag(c, i) * x[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            s += m_off(c, p) * x[t->adj[p]];
        y[i] = s;
    }
}

/* The same M renumbered in breadth-first order (Cuthill and McKee
 * 1969) with 32-bit offsets and ids: a node's children sit next to its
 * siblings' children, so most reads of x in a product walk forward
 * instead of jumping (a random 4-regular graph's numbering makes every
 * read a cache miss at 10^6 nodes), and half the index traffic. The
 * spectrum does not depend on the numbering. */
typedef struct {
    size_t n;
    uint32_t *off;   /* [n + 1] */
    uint32_t *adj;   /* [off[n]] new ids */
    double *diag;    /* [n] M_ii */
    double *w;       /* [off[n]] W_ij (M_ij = -W_ij), or NULL when every
                        M_ij is -a (L; a W with one edge weight, which
                        saves a third of a product's memory traffic) */
    double a;
} pm_ctx;

static void pm_free(pm_ctx *c)
{
    free(c->off);
    free(c->adj);
    free(c->diag);
    free(c->w);
    memset(c, 0, sizeof *c);
}

/* Builds c from t and order[n] (new id -> old id). 0 when t does not fit
 * 32 bits or memory is short (the caller keeps m_apply). */
static int pm_make(pm_ctx *c, const cm_topo *t, int mixing,
                   const size_t *order)
{
    size_t n = t->n, nnz = t->off[n];
    memset(c, 0, sizeof *c);
    if (n > UINT32_MAX || nnz > UINT32_MAX)
        return 0;
    int uniform = 1;
    c->a = mixing ? (nnz ? t->adj_w[0] : 0.0) : 1.0;
    for (size_t p = 0; mixing && uniform && p < nnz; p++)
        uniform = t->adj_w[p] == c->a;
    uint32_t *inv = malloc(n * sizeof *inv);
    c->n = n;
    c->off = malloc((n + 1) * sizeof *c->off);
    c->adj = malloc((nnz + 1) * sizeof *c->adj);
    c->diag = malloc(n * sizeof *c->diag);
    c->w = uniform ? NULL : malloc((nnz + 1) * sizeof *c->w);
    if (!inv || !c->off || !c->adj || !c->diag || (!uniform && !c->w)) {
        free(inv);
        pm_free(c);
        return 0;
    }
    for (size_t r = 0; r < n; r++)
        inv[order[r]] = (uint32_t)r;
    size_t q = 0;
    m_ctx mc = {t, mixing};
    for (size_t r = 0; r < n; r++) {
        size_t u = order[r];
        c->off[r] = (uint32_t)q;
        c->diag[r] = m_diag(&mc, u);
        for (size_t p = t->off[u]; p < t->off[u + 1]; p++, q++) {
            c->adj[q] = inv[t->adj[p]];
            if (c->w)
                c->w[q] = t->adj_w[p];
        }
    }
    c->off[n] = (uint32_t)q;
    free(inv);
    return 1;
}

static void pm_apply(const void *ctx, const double *x, double *y)
{
    const pm_ctx *c = ctx;
    const uint32_t *off = c->off, *adj = c->adj;
    const double *d = c->diag, *w = c->w, a = c->a;
    size_t n = c->n;
    if (w)
        for (size_t i = 0; i < n; i++) {
            double s = d[i] * x[i];
            for (uint32_t p = off[i]; p < off[i + 1]; p++)
                s -= w[p] * x[adj[p]];
            y[i] = s;
        }
    else
        for (size_t i = 0; i < n; i++) {
            double s = 0.0;
            for (uint32_t p = off[i]; p < off[i + 1]; p++)
                s += x[adj[p]];
            y[i] = d[i] * x[i] - a * s;
        }
}

static void remove_mean(double *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    s /= (double)n;
    for (size_t i = 0; i < n; i++)
        x[i] -= s;
}

/* ---- Lanczos (cm_lanczos, values only) ----------------------------- */

/* A fresh values-only run of f on the complement of 1 for at most
 * budget products, with this module's targets: each wanted end to tol of
 * its own size or to 1e-15 of `scale` (a bound on ||A||; 0: none); only
 * the largest end when high_only. lz->converged says whether it did;
 * cm_lanczos_more goes on. */
static cm_status ends_run(cm_lanczos *lz, size_t n, cm_matvec_fn f,
                          const void *ctx, size_t budget, int high_only,
                          double tol, double scale)
{
    cm_status st = cm_lanczos_reserve_ends(lz, n);
    if (st != CM_OK)
        return st;
    lz->deflate_ones = 1;
    lz->high_only = high_only;
    lz->tol_end = tol;
    lz->tol = scale > 0.0 ? 1e-15 : 0.0;
    lz->scale = scale;
    st = cm_lanczos_start(lz, NULL);
    return st == CM_OK ? cm_lanczos_more(lz, f, ctx, budget) : st;
}

/* ---- CHOLMOD --------------------------------------------------------- */

/* A factor of B = shift I + sign M (full, grounded = 0) or of M without
 * row and column 0 (grounded = 1), and buffers for solves. */
typedef struct {
    cholmod_common *cc;
    cholmod_factor *f;
    cholmod_dense *b, *x, *y, *e;
    size_t n;     /* graph order */
    int grounded;
} fac;

static void fac_free(fac *F)
{
    if (F->cc) {
        cholmod_free_dense(&F->b, F->cc);
        cholmod_free_dense(&F->x, F->cc);
        cholmod_free_dense(&F->y, F->cc);
        cholmod_free_dense(&F->e, F->cc);
        cholmod_free_factor(&F->f, F->cc);
    }
    F->f = NULL;
}

/* The lower triangle of B as a CHOLMOD matrix (stype -1). */
static cholmod_sparse *build(const m_ctx *c, int grounded, double shift,
                             double sign, cholmod_common *cc)
{
    const cm_topo *t = c->t;
    size_t g = grounded ? 1 : 0, dim = t->n - g;
    cholmod_sparse *A = cholmod_allocate_sparse(dim, dim, dim + t->m, 1, 1,
                                                -1, CHOLMOD_REAL, cc);
    if (!A)
        return NULL;
    int *cp = A->p, *ri = A->i;
    double *v = A->x;
    size_t q = 0;
    for (size_t j = g; j < t->n; j++) {
        cp[j - g] = (int)q;
        ri[q] = (int)(j - g);
        v[q++] = shift + sign * m_diag(c, j);
        for (size_t p = t->off[j]; p < t->off[j + 1]; p++)
            if (t->adj[p] > j) {
                ri[q] = (int)(t->adj[p] - g);
                v[q++] = sign * m_off(c, p);
            }
    }
    cp[dim] = (int)q;
    return A;
}

/* Analyses (once per pattern: grounded or not) and factorizes B.
 * *posdef = 0 when B is not positive definite (no error). */
static cm_status fac_make(fac *F, const m_ctx *c, int grounded, double shift,
                          double sign, cholmod_factor **sym, double *fill,
                          double max_cost, int *posdef)
{
    cholmod_common *cc = F->cc;
    *posdef = 0;
    cholmod_sparse *A = build(c, grounded, shift, sign, cc);
    if (!A)
        return cm_error(CM_ENOMEM, "CHOLMOD: out of memory for a %zu-node "
                        "matrix", c->t->n);
    cm_status st = CM_OK;
    if (!*sym) {
        *sym = cholmod_analyze(A, cc);
        if (!*sym) { /* e.g. CHOLMOD_TOO_LARGE: a factor beyond int */
            st = cm_error(cc->status == CHOLMOD_OUT_OF_MEMORY ? CM_ENOMEM
                                                              : CM_ENUMERIC,
                          "CHOLMOD: analysis failed (status %d: factor too "
                          "large)", cc->status);
            goto done;
        }
        *fill = cc->lnz;
        if (!(cc->lnz <= CM_SHIFTINV_MAX_FILL)) {
            st = cm_error(CM_ENUMERIC, "its sparse Cholesky factor would "
                          "hold %.3g entries (at most %.3g)", cc->lnz,
                          CM_SHIFTINV_MAX_FILL);
            goto done;
        }
        if (!(cc->fl + 400.0 * 4.0 * cc->lnz <= max_cost)) {
            st = cm_error(CM_ENUMERIC, "its sparse Cholesky factor (%.3g "
                          "entries, %.3g flops) costs more than %.0f "
                          "products", cc->lnz, cc->fl, FACTOR_PRODUCTS);
            goto done;
        }
    }
    fac_free(F);
    F->f = cholmod_copy_factor(*sym, cc);
    if (!F->f || !cholmod_factorize(A, F->f, cc)) {
        st = cm_error(CM_ENOMEM, "CHOLMOD: factorization failed (status %d)",
                      cc->status);
        goto done;
    }
    *posdef = cc->status != CHOLMOD_NOT_POSDEF && F->f->minor == F->f->n;
    F->n = c->t->n;
    F->grounded = grounded;
    size_t dim = F->f->n;
    F->b = cholmod_zeros(dim, 1, CHOLMOD_REAL, cc);
    if (!F->b)
        st = cm_error(CM_ENOMEM, "CHOLMOD: out of memory");
done:
    cholmod_free_sparse(&A, cc);
    return st;
}

/* y = B^-1 x on the complement of 1 (grounded: y_0 = 0, then the mean
 * removed: M^+ x for x orthogonal to 1). ctx: a fac * (the solve's
 * buffers change). */
static void fac_solve(const void *ctx, const double *x, double *y)
{
    fac *F = *(fac *const *)ctx;
    size_t g = F->grounded ? 1 : 0, dim = F->n - g;
    memcpy(F->b->x, x + g, dim * sizeof *x);
    cholmod_solve2(CHOLMOD_A, F->f, F->b, NULL, &F->x, NULL, &F->y, &F->e,
                   F->cc);
    if (g)
        y[0] = 0.0;
    memcpy(y + g, F->x->x, dim * sizeof *y);
    remove_mean(y, F->n);
}

/* ---- the three steps ------------------------------------------------- */

static double gershgorin(const m_ctx *c)
{
    double g = 0.0;
    for (size_t i = 0; i < c->t->n; i++) {
        double s = fabs(m_diag(c, i));
        for (size_t p = c->t->off[i]; p < c->t->off[i + 1]; p++)
            s += fabs(m_off(c, p));
        g = fmax(g, s);
    }
    return g;
}

/* What a factorization and about 400 solves may cost (flops): as much
 * as FACTOR_PRODUCTS products. */
static double factor_budget(const cm_topo *t)
{
    return FACTOR_PRODUCTS * (4.0 * (double)t->m + 14.0 * (double)t->n);
}

/* 1 when a factor with a dense separator block of sep nodes (sep^2 / 2
 * entries, sep^3 / 3 flops) would be refused by fac_make. */
static int factor_hopeless(const cm_topo *t, size_t sep)
{
    double s = (double)sep, lnz = s * s / 2.0, fl = s * s * s / 3.0;
    return !(lnz <= CM_SHIFTINV_MAX_FILL) ||
           !(fl + 400.0 * 4.0 * lnz <= factor_budget(t));
}

/* One breadth-first search for the components (*count) and the size
 * *sep of the level of node 0's search that holds the median node of
 * its component: every level separates the levels before it from those
 * after, so *sep bounds a balanced vertex separator from above (2 on a
 * ring, about the side on a torus, a fraction of n on an expander). A
 * factor holds at least about s^2 / 2 entries when every balanced
 * separator has s nodes or more (whatever the elimination order, the
 * filled graph holds a clique on the neighbours of an eliminated set
 * once it is large enough, and they separate it from the rest); sep
 * stands in for that s (an estimate, not a bound: a graph with a much
 * smaller separator the search misses is factored after step 3), and
 * spares an expander the analysis. O(n + m). */
static cm_status search(const cm_topo *t, size_t *count, size_t *sep,
                        size_t *order)
{
    size_t n = t->n;
    uint32_t *level = calloc(n, sizeof *level); /* 0: not reached */
    *count = 0;
    *sep = 0;
    if (!level)
        return cm_error(CM_ENOMEM, "out of memory for a %zu-node search", n);
    size_t tail = 0; /* order: the components' searches one after another */
    for (size_t src = 0; src < n; src++) {
        if (level[src])
            continue;
        size_t head = tail, first = tail;
        order[tail++] = src;
        level[src] = 1;
        while (head < tail) {
            size_t u = order[head++];
            uint32_t l = level[u] < UINT32_MAX ? level[u] + 1 : UINT32_MAX;
            for (size_t p = t->off[u]; p < t->off[u + 1]; p++)
                if (!level[t->adj[p]]) {
                    level[t->adj[p]] = l;
                    order[tail++] = t->adj[p];
                }
        }
        if (src == 0) { /* the search is in level order */
            size_t mid = first + (tail - first) / 2, a = mid, b = mid;
            uint32_t l = level[order[mid]];
            while (a > first && level[order[a - 1]] == l)
                a--;
            while (b < tail && level[order[b]] == l)
                b++;
            *sep = b - a;
        }
        (*count)++;
    }
    free(level);
    return CM_OK;
}

/* Step 2: both ends by shift-and-invert, with step 1's Ritz value hi
 * (residual rhi) as the first lower bound of lambda_max. */
static cm_status shift_invert(const m_ctx *c, int connected, double hi,
                              double rhi, double *l2, double *lmax,
                              cm_shiftinv_stats *s)
{
    cholmod_common com;
    cholmod_start(&com);
    com.print = 0;
    com.error_handler = NULL;
    com.quick_return_if_not_posdef = 1;
    fac F = {.cc = &com}, *fp = &F;
    cholmod_factor *sym_g = NULL, *sym_f = NULL;
    double fill_f = 0.0;
    cm_lanczos z;
    cm_lanczos_init(&z);
    int posdef = 0;
    size_t n = c->t->n;
    double tol = CM_SHIFTINV_TOL;
    double max_cost = factor_budget(c->t);
    cm_status st = CM_OK;
    *l2 = 0.0;
    if (connected) {
        st = fac_make(&F, c, 1, 0.0, 1.0, &sym_g, &s->fill, max_cost,
                      &posdef);
        if (st != CM_OK)
            goto done;
        s->factorizations++;
        if (!posdef) {
            st = cm_error(CM_ENUMERIC, "M grounded at node 0 is not positive "
                          "definite (column %zu): the matrix has a negative "
                          "eigenvalue on the complement of 1", F.f->minor);
            goto done;
        }
        st = ends_run(&z, n, fac_solve, &fp, GROUNDED_BUDGET, 1, tol, 0.0);
        s->solves += z.k;
        if (st == CM_OK && !z.converged)
            st = cm_error(CM_ENUMERIC, "no convergence of lambda_2 in %zu "
                          "solves", z.k);
        if (st != CM_OK)
            goto done;
        *l2 = 1.0 / z.hi;
    }
    /* lambda_max: lb <= lambda_max < ub */
    double G = gershgorin(c);
    double lb = hi, ub = G * (1.0 + 1e-10) + 1e-300;
    double sigma = fmin(hi + fmax(rhi, 1e-12 * fabs(hi)), ub);
    for (int round = 0; round < MAX_ROUNDS; round++) {
        st = fac_make(&F, c, 0, sigma, -1.0, &sym_f, &fill_f, max_cost,
                      &posdef);
        s->factorizations++;
        if (st != CM_OK)
            goto done;
        if (!posdef) { /* sigma <= lambda_max: move up */
            lb = fmax(lb, sigma);
            sigma = lb + (ub - lb) / 4.0;
            continue;
        }
        ub = sigma;
        /* lambda_max to tol relative: theta (~1/(ub - lmax)) to
         * tol lmax / (ub - lmax) relative */
        double gap = fmax(ub - lb, 1e-300);
        double itol = fmin(1e-3, tol * fmax(fabs(lb), 1e-300) / gap);
        st = ends_run(&z, n, fac_solve, &fp, INNER_BUDGET, 1, itol, 0.0);
        s->solves += z.k;
        if (st != CM_OK)
            goto done;
        double est = ub - 1.0 / z.hi;
        lb = fmax(lb, est);
        if (z.converged) { /* est to tol lb: (ub - lmax) itol <= tol lb */
            *lmax = est;
            goto done;
        }
        sigma = lb + (ub - lb) / 16.0;
    }
    st = cm_error(CM_ENUMERIC, "shift-and-invert for lambda_max did not "
                  "converge in %d rounds", MAX_ROUNDS);
done:
    cm_lanczos_destroy(&z);
    fac_free(&F);
    cholmod_free_factor(&sym_g, &com);
    cholmod_free_factor(&sym_f, &com);
    cholmod_finish(&com);
    if (st == CM_OK)
        s->factored = 1;
    return st;
}

cm_status cm_shiftinv_ends(const cm_topo *t, int mixing, double *l2,
                           double *lmax, cm_shiftinv_stats *stats)
{
    cm_shiftinv_stats local;
    cm_shiftinv_stats *s = stats ? stats : &local;
    memset(s, 0, sizeof *s);
    *l2 = *lmax = 0.0;
    if (t->n < 2)
        return cm_error(CM_EINVAL, "spectrum of a graph of fewer than 2 "
                        "nodes");
    if (mixing && (!t->self || !t->adj_w))
        return cm_error(CM_EINVAL, "spectrum of W of an unweighted topology");
    size_t count = 1, sep = 0;
    size_t *order = malloc(t->n * sizeof *order);
    if (!order)
        return cm_error(CM_ENOMEM, "out of memory for a %zu-node search",
                        t->n);
    cm_status st = search(t, &count, &sep, order);
    m_ctx c = {t, mixing};
    pm_ctx pc;
    int perm = st == CM_OK && pm_make(&pc, t, mixing, order);
    free(order);
    if (st != CM_OK)
        return st;
    cm_matvec_fn op = perm ? pm_apply : m_apply;
    const void *octx = perm ? (const void *)&pc : (const void *)&c;
    double scale = gershgorin(&c);
    double per = 2.0 * (double)(t->n + 2 * t->m) + 12.0 * (double)t->n;
    size_t more = (size_t)(SECOND_FLOPS / per);
    int want_lo = count == 1, tried = 0;
    cm_lanczos z;
    cm_lanczos_init(&z);
    st = ends_run(&z, t->n, op, octx, FIRST_BUDGET, !want_lo,
                  CM_SHIFTINV_TOL, scale);
    /* evidence: more products while the extrapolated rest is cheaper
     * than what a factorization may cost; a stall goes to step 2 */
    while (st == CM_OK && !z.converged && z.k < AHEAD_MAX &&
           cm_lanczos_predict(&z) <= AHEAD_PRODUCTS)
        st = cm_lanczos_more(&z, op, octx, AHEAD_STEP);
    char why[256] = "";
    int done = st == CM_OK && z.converged;
    if (st == CM_OK && !done && !factor_hopeless(t, sep)) {
        tried = 1;
        cm_status si = shift_invert(&c, want_lo, z.hi, z.hi_res, l2, lmax,
                                    s);
        if (si == CM_OK || si == CM_ENOMEM) {
            st = si;
            goto out;
        }
        /* cm_error reuses the buffer cm_last_error reads */
        snprintf(why, sizeof why, "%s", cm_last_error());
    } else if (st == CM_OK && !done)
        snprintf(why, sizeof why, "a breadth-first level of %zu nodes "
                 "splits the graph in half: its factor would hold about "
                 "%.3g entries", sep, (double)sep * (double)sep / 2.0);
    if (st == CM_OK && !done) /* step 3: Lanczos on M continues */
        st = cm_lanczos_more(&z, op, octx, more);
    done = st == CM_OK && z.converged;
    if (st == CM_OK && !done && !tried) { /* the estimate was wrong? */
        cm_status si = shift_invert(&c, want_lo, z.hi, z.hi_res, l2, lmax,
                                    s);
        if (si == CM_OK || si == CM_ENOMEM) {
            st = si;
            goto out;
        }
        snprintf(why, sizeof why, "%s", cm_last_error());
    }
    if (st == CM_OK && !done)
        st = cm_error(CM_ENUMERIC, "Lanczos did not converge in %zu "
                      "products (errors %.2g, %.2g of %.6g, %.6g) and "
                      "shift-and-invert was refused: %s", z.k,
                      z.lo_err, z.hi_err, z.lo, z.hi, why);
    if (st == CM_OK) {
        *l2 = count == 1 ? z.lo : 0.0;
        *lmax = z.hi;
    }
out:
    s->products = z.k;
    cm_lanczos_destroy(&z);
    if (perm)
        pm_free(&pc);
    return st;
}

cm_status cm_shiftinv_op_max(size_t n, cm_matvec_fn op, const void *ctx,
                             double scale, size_t max_products, double *max)
{
    *max = 0.0;
    if (n < 2)
        return cm_error(CM_EINVAL, "spectrum on fewer than 2 nodes");
    cm_lanczos z;
    cm_lanczos_init(&z);
    cm_status st = ends_run(&z, n, op, ctx, max_products, 1,
                            CM_SHIFTINV_TOL, scale);
    if (st == CM_OK && !z.converged)
        st = cm_error(CM_ENUMERIC, "Lanczos did not converge in %zu products",
                      z.k);
    if (st == CM_OK)
        *max = fmax(z.hi, 0.0);
    cm_lanczos_destroy(&z);
    return st;
}
