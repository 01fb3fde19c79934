/* cm_lanczos.c: the Lanczos engine for both ends of a symmetric spectrum
 * (see cm_lanczos.h): the three-term recurrence (three_term), its Ritz
 * vectors (finish3, clean_end), and the thick-restart fallback
 * (restarted).
 *
 * Three-term step k: w = A v_k - b_{k-1} v_{k-1}, a_k = v_k . w,
 * w -= a_k v_k, the mean removed when deflating, one local
 * reorthogonalisation against v_k, b_k = ||w||, v_{k+1} = w / b_k: O(n)
 * vector work per product. The checks find T's two lowest and two highest
 * eigenpairs by bisection and inverse iteration, every 8 products at first
 * and then every k/8 (each costs O(k)), and at the end of a budget.
 *
 * Thick restart: each step appends q_j, computes w = A q_j, orthogonalises
 * w against the whole basis twice (classical Gram-Schmidt, cm_dlin; the
 * coefficients are column j of H = Q^T A Q, which is tridiagonal between
 * restarts and an arrow after one), and keeps the Krylov decomposition
 * A Q = Q H + w e_j^T, so the residual of the Ritz pair (theta_i, Q s_i) is
 * ||w|| |s_ji| without another product. Every CHECK_EVERY steps, and when
 * the basis is full, H is diagonalised (cm_eigen, O(max_basis^3)); a
 * full basis is restarted from the `keep` lowest and `keep` highest Ritz
 * vectors plus w/||w||. Full reorthogonalisation costs O(n j) per step
 * and keeps clustered extremes free of ghost copies without storing the
 * whole Krylov space.
 */
#include "cm_lanczos.h"

#include "cm_dlin.h"
#include "cm_eigen.h"
#include "cm_lapack.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_EVERY 3
#define SETTLED 1e3
#define RANDOM_SHARE 0.05
#define SCREEN_MAX 16  /* most Ritz vectors one end cleans (finish3) */
#define CHECK3 8        /* products between the three-term run's first
                           checks (then k/8) */
#define MAX3_BYTES (256.0 * 1048576.0) /* stored vectors, at most, by
                                          default */
#define SMALL_SPACE 256 /* smaller spaces: the thick restart */
/* A check (two bisections and inverse iterations on T_k, ~5e5 flops at
 * k = 1,000) costs about 17 k / n products of a 4-regular graph with
 * their vector work (~30 n flops): values only, checks are spaced
 * CHECK_COST k / n products apart, so they take at most ~1/16 of a run,
 * but never more than k / 8 (the overshoot) nor fewer than CHECK3. */
#define CHECK_COST 256.0


void cm_lanczos_init(cm_lanczos *lz)
{
    memset(lz, 0, sizeof *lz);
}

void cm_lanczos_destroy(cm_lanczos *lz)
{
    if (!lz)
        return;
    free(lz->ylo);
    free(lz->yhi);
    free(lz->tlo);
    free(lz->thi);
    free(lz->v3);
    free(lz->chk);
    free(lz->a3);
    free(lz->b3);
    free(lz->q);
    free(lz->w);
    free(lz->h);
    free(lz->s);
    free(lz->theta);
    free(lz->coef);
    free(lz->work);
    cm_lanczos_init(lz);
}

cm_status cm_lanczos_reserve(cm_lanczos *lz, size_t n, size_t max_basis,
                             size_t keep)
{
    if (lz->q && lz->n == n && lz->max_basis == max_basis &&
        lz->keep == keep)
        return CM_OK;
    if (n == 0 || keep == 0 || max_basis < 2 * keep + 4 || max_basis > 512 ||
        n > SIZE_MAX / sizeof(double) / max_basis)
        return cm_error(CM_EINVAL, "Lanczos: bad sizes n=%zu basis=%zu "
                        "keep=%zu", n, max_basis, keep);
    cm_lanczos_destroy(lz);
    size_t b = max_basis;
    lz->ylo = malloc(keep * n * sizeof *lz->ylo);
    lz->yhi = malloc(keep * n * sizeof *lz->yhi);
    lz->tlo = malloc(keep * sizeof *lz->tlo);
    lz->thi = malloc(keep * sizeof *lz->thi);
    lz->q = malloc(b * n * sizeof *lz->q);
    lz->w = malloc(n * sizeof *lz->w);
    lz->h = malloc(b * b * sizeof *lz->h);
    lz->s = malloc(b * b * sizeof *lz->s);
    lz->theta = malloc(b * sizeof *lz->theta);
    lz->coef = malloc(2 * b * sizeof *lz->coef);
    lz->lwork = (int)(34 * b);
    lz->work = malloc((size_t)lz->lwork * sizeof *lz->work);
    if (!lz->ylo || !lz->yhi || !lz->tlo || !lz->thi || !lz->q || !lz->w ||
        !lz->h || !lz->s || !lz->theta || !lz->coef || !lz->work) {
        cm_lanczos_destroy(lz);
        return cm_error(CM_ENOMEM, "out of memory for a Lanczos basis of "
                        "%zu x %zu", max_basis, n);
    }
    lz->n = n;
    lz->max_basis = max_basis;
    lz->keep = keep;
    double cap = 2e10 / ((double)n * (double)max_basis * 4.0);
    lz->max_matvec = cap < 2000 ? 2000 : cap > 200000 ? 200000 : (size_t)cap;
    lz->tol = 1e-10;
    lz->deflate_ones = 0;
    lz->scale = 0.0;
    lz->tol_accept = 0.0;
    lz->accept_after = lz->max_matvec;
    lz->max_stored = (size_t)(MAX3_BYTES / (8.0 * (double)n));
    return CM_OK;
}

cm_status cm_lanczos_reserve_ends(cm_lanczos *lz, size_t n)
{
    if (lz->values_only && lz->n == n && lz->w)
        return CM_OK;
    if (n == 0 || n > SIZE_MAX / sizeof(double) / 2)
        return cm_error(CM_EINVAL, "Lanczos: bad order n=%zu", n);
    cm_lanczos_destroy(lz);
    lz->w = malloc(n * sizeof *lz->w);
    lz->v3 = malloc(2 * n * sizeof *lz->v3);
    if (!lz->w || !lz->v3) {
        cm_lanczos_destroy(lz);
        return cm_error(CM_ENOMEM, "out of memory for Lanczos vectors of "
                        "order %zu", n);
    }
    lz->n = n;
    lz->cap3 = 2;
    lz->values_only = 1;
    lz->max_matvec = 100000;
    lz->accept_after = lz->max_matvec;
    lz->tol = 1e-10;
    return CM_OK;
}

/* A fixed pseudo-random value in [-1, 1) for index i (splitmix64). */
static double prn(uint64_t i)
{
    uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0;
}

static void remove_mean(double *x, size_t n)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        x[i] -= mean;
}

/* The start vector into v[n]: x0/||x0|| + RANDOM_SHARE r/||r||, deflated
 * and normalised. Returns its norm before normalisation (0: empty space). */
static double start_vector(const cm_lanczos *lz, const double *x0, double *v)
{
    size_t n = lz->n;
    for (size_t i = 0; i < n; i++)
        v[i] = prn(i);
    if (lz->deflate_ones)
        remove_mean(v, n);
    double rn = cm_dlin_nrm2(n, v);
    double x0n = x0 ? cm_dlin_nrm2(n, x0) : 0.0;
    if (rn > 0.0)
        cm_dlin_scal(n, x0n > 0.0 ? RANDOM_SHARE / rn : 1.0 / rn, v);
    if (x0n > 0.0)
        cm_dlin_axpy(n, 1.0 / x0n, x0, v);
    if (lz->deflate_ones)
        remove_mean(v, n);
    double norm = cm_dlin_nrm2(n, v);
    if (norm > 0.0)
        cm_dlin_scal(n, 1.0 / norm, v);
    return norm;
}

/* Eigen-decomposition of the leading j x j block of H into s (leading
 * dimension j) and theta. */
static cm_status diag_h(cm_lanczos *lz, size_t j, int vectors)
{
    size_t b = lz->max_basis;
    for (size_t c = 0; c < j; c++)
        memcpy(lz->s + c * j, lz->h + c * b, j * sizeof *lz->s);
    cm_status st = cm_eigen_sym_work(vectors ? CM_EIGEN_VECTORS
                                             : CM_EIGEN_VALUES, j, lz->s,
                                     lz->theta, lz->work, (size_t)lz->lwork);
    return st == CM_OK ? st : cm_error_prefix(st, "Lanczos projection");
}

/* out[c] = Q s_{col[c]} for c < k (n x j basis, s with leading dim j). */
static void ritz_vectors(const cm_lanczos *lz, size_t j, const size_t *col,
                         size_t k, double *out)
{
    size_t n = lz->n;
    for (size_t c = 0; c < k; c++)
        cm_dlin_gemv_n(n, j, 1.0, lz->q, lz->s + col[c] * j, 0.0,
                       out + c * n);
}

/* Stores the results of a finished run with j basis vectors. */
static void finish(cm_lanczos *lz, size_t j, double beta)
{
    size_t col[512] = {0};
    size_t k = lz->keep < j ? lz->keep : j;
    lz->lo = lz->theta[0];
    lz->hi = lz->theta[j - 1];
    lz->lo_res = beta * fabs(lz->s[j - 1]);
    lz->hi_res = beta * fabs(lz->s[(j - 1) * j + j - 1]);
    for (size_t c = 0; c < k; c++) {
        col[c] = c;
        lz->tlo[c] = lz->theta[c];
    }
    ritz_vectors(lz, j, col, k, lz->ylo);
    for (size_t c = 0; c < k; c++) {
        col[c] = j - 1 - c;
        lz->thi[c] = lz->theta[j - 1 - c];
    }
    ritz_vectors(lz, j, col, k, lz->yhi);
    lz->nvec = k;
}

/* Thick restart: the basis becomes the keep lowest and keep highest Ritz
 * vectors (H diagonal on them). Returns the new basis size. */
static size_t restart(cm_lanczos *lz, size_t j)
{
    size_t n = lz->n, b = lz->max_basis, k = lz->keep;
    size_t col[512];
    for (size_t c = 0; c < k; c++) {
        col[c] = c;
        col[k + c] = j - k + c;
    }
    /* ylo/yhi are free scratch until finish() */
    ritz_vectors(lz, j, col, k, lz->ylo);
    ritz_vectors(lz, j, col + k, k, lz->yhi);
    memcpy(lz->q, lz->ylo, k * n * sizeof *lz->q);
    memcpy(lz->q + k * n, lz->yhi, k * n * sizeof *lz->q);
    memset(lz->h, 0, b * b * sizeof *lz->h);
    for (size_t c = 0; c < 2 * k; c++)
        lz->h[c * b + c] = lz->theta[col[c]];
    return 2 * k;
}

/* The start of every run: the results cleared, the workspace and the
 * space (of dimension *dim) checked. */
static cm_status run_begin(cm_lanczos *lz, size_t *dim)
{
    *dim = lz->deflate_ones ? lz->n - 1 : lz->n;
    lz->matvecs = 0;
    lz->nvec = 0;
    lz->stopped_early = 0;
    lz->converged = 0;
    if (!lz->w || (!lz->values_only && !lz->q))
        return cm_error(CM_EINVAL, "Lanczos: workspace not reserved");
    if (*dim == 0)
        return cm_error(CM_EINVAL, "Lanczos: empty space (n = %zu)", lz->n);
    return CM_OK;
}

/* The thick-restart run (the engine's fallback), from scratch. */
static cm_status restarted(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                           const double *x0)
{
    size_t n = lz->n, b = lz->max_basis, dim;
    cm_status st0 = run_begin(lz, &dim);
    if (st0 != CM_OK)
        return st0;
    if (!(start_vector(lz, x0, lz->q) > 0.0))
        return cm_error(CM_ENUMERIC, "Lanczos: zero start vector");
    memset(lz->h, 0, b * b * sizeof *lz->h);
    size_t j = 1;          /* basis vectors; the newest is q_{j-1} */
    double hmax = 0.0;     /* largest |H| entry seen: the scale of A */
    double prev_lo = INFINITY, prev_hi = INFINITY; /* at the last check */
    for (;;) {
        size_t c = j - 1;
        double *w = lz->w, *acc = lz->coef, *tmp = lz->coef + b;
        f(ctx, lz->q + c * n, w);
        lz->matvecs++;
        memset(acc, 0, j * sizeof *acc);
        for (int pass = 0; pass < 2; pass++) {
            cm_dlin_gemv_t(n, j, lz->q, w, tmp);
            cm_dlin_gemv_n(n, j, -1.0, lz->q, tmp, 1.0, w);
            for (size_t i = 0; i < j; i++)
                acc[i] += tmp[i];
            /* the constant vector is an extreme eigenvector (0 of L, 1 of
             * W) outside the restricted spectrum: the Lanczos polynomial
             * grows there, so rounding's 1-component is removed at every
             * step, not only once */
            if (lz->deflate_ones)
                remove_mean(w, n);
        }
        for (size_t i = 0; i < j; i++) {
            lz->h[c * b + i] = lz->h[i * b + c] = acc[i];
            hmax = fmax(hmax, fabs(acc[i]));
        }
        double beta = cm_dlin_nrm2(n, w);
        double floor_ = fmax(hmax, lz->scale);
        int invariant = j == dim || beta <= 1e-13 * fmax(floor_, 1e-300);
        int full = invariant || j == b || lz->matvecs >= lz->max_matvec;
        if (full || j % CHECK_EVERY == 0) {
            /* values only first (the early stop, and whether the ends
             * have settled); vectors, for the residuals, once they have */
            cm_status st = diag_h(lz, j, 0);
            if (st != CM_OK)
                return st;
            double scale = fmax(fabs(lz->theta[0]), fabs(lz->theta[j - 1]));
            scale = fmax(scale, lz->scale);
            double lim = lz->tol * (scale > 0.0 ? scale : 1.0);
            if (!invariant && lz->early &&
                lz->early(lz->early_ctx, lz->theta[0], lz->theta[j - 1])) {
                lz->lo = lz->theta[0];
                lz->hi = lz->theta[j - 1];
                lz->lo_res = lz->hi_res = NAN;
                lz->stopped_early = 1;
                return CM_OK;
            }
            double moved = fmax(fabs(lz->theta[0] - prev_lo),
                                fabs(lz->theta[j - 1] - prev_hi));
            prev_lo = lz->theta[0];
            prev_hi = lz->theta[j - 1];
            if (!full && moved > SETTLED * lim)
                goto next;
            st = diag_h(lz, j, 1);
            if (st != CM_OK)
                return st;
            double rlo = beta * fabs(lz->s[j - 1]);
            double rhi = beta * fabs(lz->s[(j - 1) * j + j - 1]);
            /* eigenvalue error estimates: min(r, r^2/gap), gap to the
             * next Ritz value (quadratic convergence of Ritz values) */
            double elo = rlo, ehi = rhi;
            if (j >= 2) {
                double glo = lz->theta[1] - lz->theta[0];
                double ghi = lz->theta[j - 1] - lz->theta[j - 2];
                if (glo > 0.0)
                    elo = fmin(elo, rlo * rlo / glo);
                if (ghi > 0.0)
                    ehi = fmin(ehi, rhi * rhi / ghi);
            }
            if (invariant || (elo <= lim && ehi <= lim)) {
                finish(lz, j, invariant ? 0.0 : beta);
                return CM_OK;
            }
            if (lz->matvecs >= lz->accept_after && lz->tol_accept > 0.0 &&
                elo <= lz->tol_accept * fabs(lz->theta[0]) &&
                ehi <= lz->tol_accept * fabs(lz->theta[j - 1])) {
                finish(lz, j, beta); /* past accept_after, each end known
                                        to tol_accept of its own size */
                return CM_OK;
            }
            if (lz->matvecs >= lz->max_matvec) {
                finish(lz, j, beta);
                return cm_error(CM_ENUMERIC, "Lanczos: no convergence in %zu "
                                "products (n = %zu; residuals %.2g, %.2g; "
                                "the spectrum's ends are too close to the "
                                "rest)", lz->matvecs, n, rlo, rhi);
            }
            if (j == b)
                j = restart(lz, j);
        }
    next:
        memcpy(lz->q + j * n, w, n * sizeof *w);
        cm_dlin_scal(n, 1.0 / beta, lz->q + j * n);
        j++;
    }
}

/* ---- three-term recurrence ----------------------------------------- */

/* Inverse iteration for the eigenvector of the order-k tridiagonal
 * (a, b) at eigenvalue lam (from bisection), in a fixed order of
 * operations (dstein calls the BLAS, whose kernels differ by CPU:
 * cm_dlin.h): (T - lam I) = P L U by Gaussian elimination with partial
 * pivoting (a zero pivot replaced by eps ||T||, as inverse iteration
 * wants), then ITER3 solves from a fixed start vector, each made
 * orthogonal to the nclu vectors prev[] of the same cluster and
 * normalised. The largest entry comes out positive. Scratch f[4k] and
 * piv[k]. */
#define ITER3 3
static void inverse_iteration(const double *a, const double *b, size_t k,
                              double lam, double tnorm, const double *prev,
                              size_t nclu, double *x, double *f,
                              unsigned char *piv)
{
    double *d = f, *du = f + k, *du2 = f + 2 * k, *dl = f + 3 * k;
    double tiny = DBL_EPSILON * fmax(tnorm, DBL_MIN);
    for (size_t i = 0; i < k; i++) {
        d[i] = a[i] - lam;
        du[i] = i + 1 < k ? b[i] : 0.0;
        dl[i] = i + 1 < k ? b[i] : 0.0;
        du2[i] = 0.0;
    }
    for (size_t i = 0; i + 1 < k; i++) {
        if (fabs(d[i]) >= fabs(dl[i])) {
            piv[i] = 0;
            double l = d[i] != 0.0 ? dl[i] / d[i] : 0.0;
            dl[i] = l;
            d[i + 1] -= l * du[i];
        } else {
            piv[i] = 1;
            double l = d[i] / dl[i];
            d[i] = dl[i];
            dl[i] = l;
            double t = du[i];
            du[i] = d[i + 1];
            d[i + 1] = t - l * d[i + 1];
            if (i + 2 < k) {
                du2[i] = du[i + 1];
                du[i + 1] = -l * du[i + 1];
            }
        }
    }
    for (size_t i = 0; i < k; i++)
        if (fabs(d[i]) < tiny)
            d[i] = d[i] < 0.0 ? -tiny : tiny;
    uint64_t r = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < k; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (double)(r >> 11) * 0x1.0p-53 - 0.5;
    }
    for (int it = 0; it < ITER3; it++) {
        for (size_t i = 0; i + 1 < k; i++) {
            if (!piv[i]) {
                x[i + 1] -= dl[i] * x[i];
            } else {
                double t = x[i];
                x[i] = x[i + 1];
                x[i + 1] = t - dl[i] * x[i];
            }
        }
        for (size_t i = k; i-- > 0;) {
            double v = x[i];
            if (i + 1 < k)
                v -= du[i] * x[i + 1];
            if (i + 2 < k)
                v -= du2[i] * x[i + 2];
            x[i] = v / d[i];
        }
        for (size_t c = 0; c < nclu; c++)
            cm_dlin_axpy(k, -cm_dlin_dot(k, prev + c * k, x), prev + c * k,
                         x);
        double amax = 0.0;
        for (size_t i = 0; i < k; i++)
            amax = fmax(amax, fabs(x[i]));
        if (!(amax > 0.0) || !isfinite(amax)) { /* restart elsewhere */
            for (size_t i = 0; i < k; i++)
                x[i] = (double)((i * 7 + (size_t)it) % 5) - 2.0;
            continue;
        }
        cm_dlin_scal(k, 1.0 / amax, x);
        cm_dlin_scal(k, 1.0 / cm_dlin_nrm2(k, x), x);
    }
    size_t imax = 0;
    for (size_t i = 1; i < k; i++)
        if (fabs(x[i]) > fabs(x[imax]))
            imax = i;
    if (x[imax] < 0.0)
        cm_dlin_scal(k, -1.0, x);
}

cm_status cm_lanczos_tridiag(const double *a, const double *b, size_t k,
                             size_t il, size_t iu, double *t, double *s,
                             size_t *got)
{
    lapack_int kk = (lapack_int)k, m = 0, nsplit = 0;
    double *w = calloc(k, sizeof *w);
    lapack_int *iblock = calloc(k, sizeof *iblock);
    lapack_int *isp = calloc(k, sizeof *isp);
    double *f = s ? malloc(4 * k * sizeof *f) : NULL;
    unsigned char *piv = s ? malloc(k) : NULL;
    size_t *ord = malloc(k * sizeof *ord);
    cm_status st = CM_OK;
    *got = 0;
    if (!w || !iblock || !isp || (s && (!f || !piv)) || !ord) {
        st = cm_error(CM_ENOMEM, "out of memory for a tridiagonal eigensolve");
        goto done;
    }
    /* dstebz: bisection, scalar code (no BLAS): the same bits anywhere */
    lapack_int info = LAPACKE_dstebz('I', 'B', kk, 0.0, 0.0, (lapack_int)il,
                                     (lapack_int)iu, 2.0 * LAPACKE_dlamch('S'),
                                     a, b, &m, &nsplit, w, iblock, isp);
    if (info != 0 || m < 1) {
        st = cm_error(CM_ENUMERIC, "Lanczos: LAPACK dstebz failed "
                      "(info = %d) on a tridiagonal of order %zu", (int)info,
                      k);
        goto done;
    }
    /* 'B' orders by split-off block: sort (a few values, insertion) */
    for (size_t i = 0; i < (size_t)m; i++) {
        size_t j = i;
        for (; j > 0 && w[ord[j - 1]] > w[i]; j--)
            ord[j] = ord[j - 1];
        ord[j] = i;
    }
    double tnorm = 0.0;
    for (size_t i = 0; i < k; i++)
        tnorm = fmax(tnorm, fabs(a[i]) + (i + 1 < k ? fabs(b[i]) : 0.0) +
                                (i > 0 ? fabs(b[i - 1]) : 0.0));
    /* eigenvalues closer than ortol form a cluster whose vectors are made
     * orthogonal; closer than pertol, the shift is moved apart */
    double ortol = 1e-3 * tnorm, pertol = 10.0 * DBL_EPSILON * tnorm;
    size_t clu = 0;        /* first index of the current cluster */
    double prev_lam = 0.0; /* the shift used for the previous value */
    for (size_t c = 0; c < (size_t)m; c++) {
        t[c] = w[ord[c]];
        if (!s)
            continue;
        double lam = t[c];
        if (c > 0 && t[c] - t[c - 1] > ortol)
            clu = c;
        if (c > clu && lam - prev_lam < pertol)
            lam = prev_lam + pertol;
        prev_lam = lam;
        inverse_iteration(a, b, k, lam, tnorm, s + clu * k, c - clu,
                          s + c * k, f, piv);
    }
    *got = (size_t)m;
done:
    free(w);
    free(iblock);
    free(isp);
    free(f);
    free(piv);
    free(ord);
    return st;
}

/* Lanczos vector k: stored, or one of the last two when values only. */
static double *vec(const cm_lanczos *lz, size_t k)
{
    return lz->v3 + (lz->values_only ? k % 2 : k) * lz->n;
}

/* Room for T's entries of index k: doubling. 0 when out of memory. */
static int grow_t(cm_lanczos *lz, size_t k)
{
    if (k < lz->capt)
        return 1;
    size_t cap = lz->capt ? 2 * lz->capt : 64;
    double *a = realloc(lz->a3, cap * sizeof *a);
    if (a)
        lz->a3 = a;
    double *b = a ? realloc(lz->b3, cap * sizeof *b) : NULL;
    if (b)
        lz->b3 = b;
    if (!a || !b)
        return 0;
    lz->capt = cap;
    return 1;
}

/* Room to store vector j (runs with Ritz vectors): doubling, within the
 * cap lim. 0 when out of room or memory. */
static int grow_v(cm_lanczos *lz, size_t j, size_t lim)
{
    if (j < lz->cap3)
        return 1;
    if (j >= lim)
        return 0;
    size_t cap = lz->cap3 ? 2 * lz->cap3 : 64;
    cap = cap > lim ? lim : cap;
    double *v = realloc(lz->v3, cap * lz->n * sizeof *v);
    if (!v)
        return 0;
    lz->v3 = v;
    lz->cap3 = cap;
    return 1;
}

/* Room for the convergence check's eigenvectors of an order-k T: 4 k. */
static int grow_check(cm_lanczos *lz, size_t k)
{
    if (4 * k <= lz->cap_chk)
        return 1;
    size_t cap = 8 * k;
    double *c = realloc(lz->chk, cap * sizeof *c);
    if (!c)
        return 0;
    lz->chk = c;
    lz->cap_chk = cap;
    return 1;
}

/* How three_term ended. */
enum { RAN_OUT, CONVERGED, EARLY, NO_ROOM };

/* The convergence check after kt products (beta: the last b3): T's two
 * lowest (unless high_only) and two highest eigenpairs, the early stop,
 * the error estimates min(r, r^2/gap) into lz, the history for
 * cm_lanczos_predict; *out = CONVERGED, EARLY or left as it was. */
static cm_status check(cm_lanczos *lz, size_t kt, double beta, int invariant,
                       int *out)
{
    double tl[2] = {NAN, NAN}, th[2];
    size_t gl = 0, gh = 0, two = kt >= 2 ? 2 : 1;
    if (!grow_check(lz, kt))
        return cm_error(CM_ENOMEM, "out of memory for Lanczos");
    double *sl = lz->chk, *sh = lz->chk + 2 * kt;
    cm_status st = CM_OK;
    if (!lz->high_only)
        st = cm_lanczos_tridiag(lz->a3, lz->b3, kt, 1, two, tl, sl, &gl);
    if (st == CM_OK)
        st = cm_lanczos_tridiag(lz->a3, lz->b3, kt, kt - two + 1, kt, th, sh,
                                &gh);
    if (st != CM_OK)
        return st;
    double lo = tl[0], hi = th[gh - 1]; /* lo: NAN when high_only */
    double scale = fmax(fmax(fabs(lo), fabs(hi)), lz->scale);
    double lim_e = lz->tol * (scale > 0.0 ? scale : 1.0);
    if (!invariant && lz->early && lz->early(lz->early_ctx, lo, hi)) {
        lz->lo = lo;
        lz->hi = hi;
        lz->lo_res = lz->hi_res = NAN;
        lz->stopped_early = 1;
        *out = EARLY;
        return CM_OK;
    }
    double rlo = lz->high_only ? NAN : invariant ? 0.0
                                                 : beta * fabs(sl[kt - 1]);
    double rhi = invariant ? 0.0 : beta * fabs(sh[(gh - 1) * kt + kt - 1]);
    double elo = rlo, ehi = rhi;
    if (gl == 2 && tl[1] > lo)
        elo = fmin(elo, rlo * rlo / (tl[1] - lo));
    if (gh == 2 && hi > th[0])
        ehi = fmin(ehi, rhi * rhi / (hi - th[0]));
    /* each end's target: tol of the scale, or tol_end of its own size */
    double glo = fmax(lim_e, lz->tol_end * fabs(lo));
    double ghi = fmax(lim_e, lz->tol_end * fabs(hi));
    int ok_lo = lz->high_only || elo <= glo, ok_hi = ehi <= ghi;
    double lr = log(fmax(ehi, 1e-300) / ghi); /* worse end */
    if (!lz->high_only)
        lr = fmax(lr, log(fmax(elo, 1e-300) / glo));
    if (lz->nhist == CM_LANCZOS_HIST) {
        memmove(lz->hist_err, lz->hist_err + 1,
                (CM_LANCZOS_HIST - 1) * sizeof *lz->hist_err);
        memmove(lz->hist_k, lz->hist_k + 1,
                (CM_LANCZOS_HIST - 1) * sizeof *lz->hist_k);
        lz->nhist--;
    }
    lz->hist_err[lz->nhist] = lr;
    lz->hist_k[lz->nhist++] = kt;
    lz->lo = lo;
    lz->hi = hi;
    lz->lo_res = rlo;
    lz->hi_res = rhi;
    lz->lo_err = elo;
    lz->hi_err = ehi;
    if (invariant || (ok_lo && ok_hi)) {
        lz->converged = 1;
        *out = CONVERGED;
    }
    return CM_OK;
}

/* The recurrence from step lz->k (vector k in place) in a space of
 * dimension dim, until it converges, early() stops it, stop products in
 * all have been made (checked at the end), or vector lim would be stored
 * (NO_ROOM, as when memory runs out). */
static cm_status three_term(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                            size_t dim, size_t stop, size_t lim, int *out)
{
    size_t n = lz->n;
    double *w = lz->w;
    *out = RAN_OUT;
    for (;;) {
        size_t k = lz->k;
        const double *v = vec(lz, k);
        f(ctx, v, w);
        lz->matvecs++;
        if (k > 0)
            cm_dlin_axpy(n, -lz->b3[k - 1], vec(lz, k - 1), w);
        double a = cm_dlin_dot(n, v, w);
        cm_dlin_axpy(n, -a, v, w);
        /* the constant vector is an extreme eigenvector (0 of L, 1 of W)
         * outside the restricted spectrum: the Lanczos polynomial grows
         * there, so rounding's 1-component is removed at every step */
        if (lz->deflate_ones)
            remove_mean(w, n);
        double c = cm_dlin_dot(n, v, w); /* local reorthogonal- */
        cm_dlin_axpy(n, -c, v, w);       /* isation against v */
        a += c;
        double beta = cm_dlin_nrm2(n, w);
        lz->a3[k] = a;
        lz->b3[k] = beta;
        lz->hmax = fmax(lz->hmax, fmax(fabs(a), beta));
        size_t kt = k + 1;
        lz->k = kt;
        double floor_ = fmax(lz->hmax, lz->scale);
        int invariant = kt == dim || beta <= 1e-13 * fmax(floor_, 1e-300);
        if (invariant || kt >= stop || kt >= lz->next_check) {
            /* checks get rarer as the space grows (each costs O(kt) per
             * bisection step): overshoot at most 1/8 of the products;
             * values only, at most CHECK_COST kt / n where a product
             * costs more than a check (large n) */
            size_t gap = kt / 8;
            double cheap = CHECK_COST * (double)kt / (double)n;
            if (lz->values_only && cheap < (double)gap)
                gap = (size_t)cheap;
            lz->next_check = kt + (gap > CHECK3 ? gap : CHECK3);
            cm_status st = check(lz, kt, beta, invariant, out);
            if (st != CM_OK || *out != RAN_OUT)
                return st;
        }
        if (kt >= lim || !grow_t(lz, kt) ||
            (!lz->values_only && !grow_v(lz, kt, lim))) {
            *out = NO_ROOM;
            return CM_OK;
        }
        double *next = vec(lz, kt);
        memcpy(next, w, n * sizeof *w);
        cm_dlin_scal(n, 1.0 / beta, next);
        if (kt >= stop)
            return CM_OK;
    }
}

/* Cleans the c Ritz vectors y (n x c, column-major) of one end: each is
 * made orthogonal to 1 (when deflating) and to the ones kept before it
 * (twice) and kept when a share above 1e-6 of it is left (a copy of a
 * converged vector, from lost orthogonality, is not); then Rayleigh-Ritz
 * on the kept ones (their products in z, n x c scratch). Values ascending
 * into t. Returns the vectors kept. */
static size_t clean_end(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                        double *y, size_t c, double *z, double *t)
{
    size_t n = lz->n, kept = 0;
    double h[SCREEN_MAX * SCREEN_MAX], coef[SCREEN_MAX];
    for (size_t i = 0; i < c; i++) {
        double *v = y + i * n;
        if (lz->deflate_ones)
            remove_mean(v, n);
        double before = cm_dlin_nrm2(n, v);
        for (int pass = 0; pass < 2 && kept > 0; pass++) {
            cm_dlin_gemv_t(n, kept, y, v, coef);
            cm_dlin_gemv_n(n, kept, -1.0, y, coef, 1.0, v);
        }
        double norm = cm_dlin_nrm2(n, v);
        if (!(norm > 1e-6 * before) || !(norm > 0.0))
            continue;
        cm_dlin_scal(n, 1.0 / norm, v);
        if (kept != i)
            memcpy(y + kept * n, v, n * sizeof *v);
        kept++;
    }
    if (!kept)
        return 0;
    for (size_t i = 0; i < kept; i++) {
        f(ctx, y + i * n, z + i * n);
        if (lz->deflate_ones)
            remove_mean(z + i * n, n);
    }
    lz->matvecs += kept;
    cm_dlin_gemm_tn(n, kept, kept, y, z, h);
    for (size_t i = 0; i < kept; i++)
        for (size_t j = 0; j < i; j++)
            h[j * kept + i] = h[i * kept + j] =
                0.5 * (h[j * kept + i] + h[i * kept + j]);
    if (cm_eigen_sym_work(CM_EIGEN_VECTORS, kept, h, t, lz->work,
                          (size_t)lz->lwork) != CM_OK)
        return 0;
    cm_dlin_gemm_nn(n, kept, kept, y, h, z);
    memcpy(y, z, kept * n * sizeof *y);
    return kept;
}

/* The Ritz vectors of a converged three-term run of k products (its
 * extremes and residuals are in lz already), cleaned (clean_end). */
static cm_status finish3(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                         size_t k)
{
    size_t n = lz->n, keep = lz->keep < k ? lz->keep : k;
    keep = keep > SCREEN_MAX ? SCREEN_MAX : keep;
    double t[2 * SCREEN_MAX];
    double *s = malloc(2 * keep * k * sizeof *s);
    if (!s)
        return cm_error(CM_ENOMEM, "out of memory for Ritz vectors");
    size_t nlo = 0, nhi = 0, glo = 0, ghi = 0;
    /* T's keep lowest pairs in columns 0..glo-1 of s, then its keep
     * highest, highest first */
    cm_status st = cm_lanczos_tridiag(lz->a3, lz->b3, k, 1, keep, t, s, &glo);
    if (st == CM_OK)
        st = cm_lanczos_tridiag(lz->a3, lz->b3, k, k - keep + 1, k, t + glo,
                                s + glo * k, &ghi);
    if (st != CM_OK) {
        free(s);
        return st;
    }
    double *sh = s + glo * k, *th = t + glo;
    for (size_t c = 0; c < ghi / 2; c++) {
        double tmp = th[c];
        th[c] = th[ghi - 1 - c];
        th[ghi - 1 - c] = tmp;
        for (size_t i = 0; i < k; i++) {
            tmp = sh[c * k + i];
            sh[c * k + i] = sh[(ghi - 1 - c) * k + i];
            sh[(ghi - 1 - c) * k + i] = tmp;
        }
    }
    /* Y = V S: one pass over the stored vectors for both ends when the
     * basis has room for Y and clean_end's scratch, else one per end */
    double *z = lz->q; /* max_basis >= 2 keep + 4 vectors of scratch */
    if (lz->max_basis >= 3 * keep) {
        double *y = lz->q;
        z = lz->q + 2 * keep * n;
        cm_dlin_gemm_nn(n, k, glo + ghi, lz->v3, s, y);
        memcpy(lz->ylo, y, glo * n * sizeof *y);
        memcpy(lz->yhi, y + glo * n, ghi * n * sizeof *y);
    } else {
        cm_dlin_gemm_nn(n, k, glo, lz->v3, s, lz->ylo);
        cm_dlin_gemm_nn(n, k, ghi, lz->v3, sh, lz->yhi);
    }
    nlo = clean_end(lz, f, ctx, lz->ylo, glo, z, lz->tlo);
    nhi = clean_end(lz, f, ctx, lz->yhi, ghi, z, t);
    /* ascending from clean_end: store descending */
    for (size_t c = 0; c < nhi; c++)
        lz->thi[c] = t[nhi - 1 - c];
    for (size_t c = 0; c < nhi / 2; c++)
        for (size_t i = 0; i < n; i++) {
            double tmp = lz->yhi[c * n + i];
            lz->yhi[c * n + i] = lz->yhi[(nhi - 1 - c) * n + i];
            lz->yhi[(nhi - 1 - c) * n + i] = tmp;
        }
    free(s);
    lz->nvec = nlo < nhi ? nlo : nhi;
    return st;
}

/* The thick restart from the same start, counting the products spent. */
static cm_status fall_back(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                           const double *x0)
{
    size_t spent = lz->matvecs;
    cm_status st = restarted(lz, f, ctx, x0);
    lz->matvecs += spent;
    return st;
}

/* The recurrence's state at a start. */
static void three_term_begin(cm_lanczos *lz)
{
    lz->k = 0;
    lz->hmax = 0.0;
    lz->next_check = CHECK3;
    lz->nhist = 0;
    lz->lo = lz->hi = lz->lo_res = lz->hi_res = NAN;
    lz->lo_err = lz->hi_err = INFINITY;
}

cm_status cm_lanczos_run(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                         const double *x0)
{
    if (lz->values_only) {
        cm_status st = cm_lanczos_start(lz, x0);
        if (st == CM_OK)
            st = cm_lanczos_more(lz, f, ctx, lz->max_matvec);
        if (st == CM_OK && !lz->converged && !lz->stopped_early)
            st = cm_error(CM_ENUMERIC, "Lanczos: no convergence in %zu "
                          "products (n = %zu; errors %.2g, %.2g; the "
                          "spectrum's ends are too close to the rest)",
                          lz->matvecs, lz->n, lz->lo_err, lz->hi_err);
        return st;
    }
    size_t dim;
    cm_status st = run_begin(lz, &dim);
    if (st != CM_OK)
        return st;
    three_term_begin(lz);
    size_t lim = lz->max_stored;
    lim = lim < lz->max_matvec ? lim : lz->max_matvec;
    lim = lim > dim / 2 ? dim / 2 : lim; /* small spaces: restarted */
    if (dim < SMALL_SPACE || lim < 2 * lz->keep + 4 || !grow_v(lz, 0, lim) ||
        !grow_t(lz, 0))
        return restarted(lz, f, ctx, x0);
    if (!(start_vector(lz, x0, lz->v3) > 0.0))
        return cm_error(CM_ENUMERIC, "Lanczos: zero start vector");
    int out;
    st = three_term(lz, f, ctx, dim, lim, lim, &out);
    if (st != CM_OK || out == EARLY)
        return st;
    if (out == CONVERGED)
        return finish3(lz, f, ctx, lz->k);
    return fall_back(lz, f, ctx, x0); /* out of room */
}

cm_status cm_lanczos_start(cm_lanczos *lz, const double *x0)
{
    if (!lz->values_only)
        return cm_error(CM_EINVAL, "Lanczos: a run step by step needs "
                        "cm_lanczos_reserve_ends");
    size_t dim;
    cm_status st = run_begin(lz, &dim);
    if (st != CM_OK)
        return st;
    three_term_begin(lz);
    if (!grow_t(lz, 0))
        return cm_error(CM_ENOMEM, "out of memory for Lanczos");
    if (!(start_vector(lz, x0, lz->v3) > 0.0))
        return cm_error(CM_ENUMERIC, "Lanczos: zero start vector");
    return CM_OK;
}

cm_status cm_lanczos_more(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                          size_t budget)
{
    if (!lz->values_only || !lz->capt)
        return cm_error(CM_EINVAL, "Lanczos: cm_lanczos_more before "
                        "cm_lanczos_start");
    if (lz->converged || lz->stopped_early || budget == 0)
        return CM_OK;
    size_t dim = lz->deflate_ones ? lz->n - 1 : lz->n;
    int out;
    cm_status st = three_term(lz, f, ctx, dim, lz->k + budget, SIZE_MAX,
                              &out);
    if (st == CM_OK && out == NO_ROOM)
        st = cm_error(CM_ENOMEM, "out of memory for a Lanczos tridiagonal "
                      "of order %zu", lz->k);
    return st;
}

double cm_lanczos_predict(const cm_lanczos *lz)
{
    enum { H = CM_LANCZOS_HIST };
    if (lz->nhist < H || !isfinite(lz->hist_err[H - 1]))
        return INFINITY;
    double mx = 0.0, my = 0.0;
    for (size_t i = 0; i < H; i++) {
        mx += (double)lz->hist_k[i] / H;
        my += lz->hist_err[i] / H;
    }
    double sxy = 0.0, sxx = 0.0;
    for (size_t i = 0; i < H; i++) {
        double dx = (double)lz->hist_k[i] - mx;
        sxy += dx * (lz->hist_err[i] - my);
        sxx += dx * dx;
    }
    double slope = sxx > 0.0 ? sxy / sxx : 0.0;
    if (!(slope < 0.0))
        return INFINITY;
    return fmax(lz->hist_err[H - 1], 0.0) / -slope;
}
