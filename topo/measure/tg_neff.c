/* tg_neff.c: n_eff (Vogels et al. 2022) by closed form, Lyapunov solve,
 * Monte Carlo and a stochastic trace estimate (see tg_neff.h).
 *
 * The Lyapunov path works on the complement of 1, where the walk of a
 * doubly stochastic W contracts at rate sqrt(gamma) rho (rho < 1 the
 * second singular value) instead of sqrt(gamma): Smith's doubling
 * X <- X + A X A^T, A <- A^2 then needs log2(40 / -log(gamma rho^2))
 * steps, each three dense products (cblas_dgemm, OpenBLAS). Exact to
 * rounding; the closed form for a symmetric W agrees to ~1e-12 (test).
 * The Monte Carlo follows the definition literally and is how randomised
 * kinds (epidemic) are measured; the estimator serves the search at large
 * n, where no dense matrix per move is affordable.
 */
#include "tg_neff.h"

#include "cm_eigen.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


cm_status tg_neff_parse_gammas(const char *s, const char *flag, double *g,
                               size_t *count)
{
    size_t k = 0;
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || !(v > 0.0 && v < 1.0))
            return cm_error(CM_EINVAL, "%s: expected numbers in (0, 1) "
                            "separated by commas (got '%s')", flag, s);
        if (k == TG_NEFF_MAX_GAMMAS)
            return cm_error(CM_EINVAL, "%s: at most %d values", flag,
                            TG_NEFF_MAX_GAMMAS);
        g[k++] = v;
        if (*end == '\0')
            break;
        if (*end != ',')
            return cm_error(CM_EINVAL, "%s: expected numbers in (0, 1) "
                            "separated by commas (got '%s')", flag, s);
        p = end + 1;
    }
    *count = k;
    return CM_OK;
}

double tg_neff_trace_eigs(const double *mu, size_t n, double gamma)
{
    double tr = 0.0;
    for (size_t k = 0; k < n; k++) {
        double m2 = mu[k] * mu[k], den = 1.0 - gamma * m2;
        if (!(den > 0.0))
            return INFINITY;
        tr += m2 / den;
    }
    return tr;
}

double tg_neff_from_trace(size_t n, double gamma, double tr)
{
    return (double)n / ((1.0 - gamma) * tr);
}

double tg_neff_eigs(const double *mu, size_t n, double gamma)
{
    return tg_neff_from_trace(n, gamma, tg_neff_trace_eigs(mu, n, gamma));
}

void tg_neff_fill_dense(const cm_topo *t, double *w)
{
    size_t n = t->n;
    memset(w, 0, n * n * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        w[i * n + i] = t->self[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            w[i * n + t->adj[p]] = t->adj_w[p];
    }
}

double tg_neff_messages_topo(const cm_topo *t)
{
    return t->n ? (t->directed ? 1.0 : 2.0) * (double)t->m / (double)t->n
                : 0.0;
}

cm_status tg_neff_topo(const cm_topo *t, const double *gamma, size_t k,
                       double *out)
{
    size_t n = t->n;
    if (!t->self)
        return cm_error(CM_EINVAL, "n_eff: the topology has no weights");
    if (n > TG_NEFF_DENSE_MAX)
        return cm_error(CM_EINVAL, "n_eff: %zu nodes is too many for the "
                        "dense eigensolve (at most %d)", n, TG_NEFF_DENSE_MAX);
    if (n == 0) {
        for (size_t g = 0; g < k; g++)
            out[g] = 0.0;
        return CM_OK;
    }
    if (t->directed) { /* doubly stochastic (the reader checks): series */
        for (size_t g = 0; g < k; g++) {
            double ty;
            cm_status st = tg_neff_series(n, tg_neff_apply_topo, (void *)t,
                                          gamma[g], &ty, NULL);
            if (st != CM_OK)
                return st;
            out[g] = tg_neff_from_trace(n, gamma[g],
                                        1.0 / (1.0 - gamma[g]) + ty);
        }
        return CM_OK;
    }
    double *a = malloc(n * n * sizeof *a), *mu = malloc(n * sizeof *mu);
    cm_status st = CM_OK;
    if (!a || !mu) {
        st = cm_error(CM_ENOMEM, "n_eff: out of memory for n = %zu", n);
        goto cleanup;
    }
    tg_neff_fill_dense(t, a);
    /* the optimal workspace (a query), as before: same bits */
    if ((st = cm_eigen_sym(CM_EIGEN_VALUES, n, a, mu)) != CM_OK) {
        cm_error_prefix(st, "n_eff");
        goto cleanup;
    }
    for (size_t g = 0; g < k; g++)
        out[g] = tg_neff_eigs(mu, n, gamma[g]);
cleanup:
    free(mu);
    free(a);
    return st;
}

/* Checks that w (n x n) is doubly stochastic; names the matrix and node. */
static cm_status check_doubly(const double *w, size_t n, size_t index)
{
    for (size_t i = 0; i < n; i++) {
        double r = 0.0, c = 0.0;
        for (size_t j = 0; j < n; j++) {
            r += w[i * n + j];
            c += w[j * n + i];
        }
        if (fabs(r - 1.0) > 1e-9 || fabs(c - 1.0) > 1e-9)
            return cm_error(CM_EINVAL, "n_eff: matrix %zu is not doubly "
                            "stochastic: node %zu's %s sums to %.17g",
                            index, i, fabs(r - 1.0) > 1e-9 ? "row" : "column",
                            fabs(r - 1.0) > 1e-9 ? r : c);
    }
    return CM_OK;
}

/* c <- gamma W c W^T + W W^T - J (the one-phase recursion on 1^perp);
 * tmp is n x n scratch. */
static void phase(const double *w, size_t n, double gamma, double *c,
                  double *tmp)
{
    int in = (int)n;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in, 1.0,
                w, in, c, in, 0.0, tmp, in);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, in, in, in, gamma,
                tmp, in, w, in, 0.0, c, in);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, in, in, in, 1.0, w,
                in, w, in, 1.0, c, in);
    double jn = 1.0 / (double)n;
    for (size_t k = 0; k < n * n; k++)
        c[k] -= jn;
}

static double trace(const double *c, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += c[i * n + i];
    return s;
}

cm_status tg_neff_dense_trace(const double *const *w, size_t period,
                              size_t n, double gamma, double *out)
{
    if (period == 0 || n == 0)
        return cm_error(CM_EINVAL, "n_eff: empty sequence");
    if (n > TG_NEFF_DENSE_MAX)
        return cm_error(CM_EINVAL, "n_eff: %zu nodes is too many for the "
                        "dense Lyapunov solve (at most %d)", n,
                        TG_NEFF_DENSE_MAX);
    if (!(gamma > 0.0 && gamma < 1.0))
        return cm_error(CM_EINVAL, "n_eff: gamma %g is not in (0, 1)", gamma);
    for (size_t p = 0; p < period; p++) {
        cm_status st = check_doubly(w[p], n, p);
        if (st != CM_OK)
            return st;
    }
    size_t nn = n * n;
    int in = (int)n;
    double *q = calloc(nn, sizeof *q), *a = malloc(nn * sizeof *a);
    double *b = malloc(nn * sizeof *b), *tmp = malloc(nn * sizeof *tmp);
    cm_status st = CM_OK;
    if (!q || !a || !b || !tmp) {
        st = cm_error(CM_ENOMEM, "n_eff: out of memory for n = %zu", n);
        goto cleanup;
    }
    /* Q: the period's noise, the recursion run from 0 over one period;
     * A = gamma^(P/2) (T - J), T = W_{P-1} ... W_0 */
    for (size_t p = 0; p < period; p++)
        phase(w[p], n, gamma, q, tmp);
    memcpy(a, w[0], nn * sizeof *a);
    for (size_t p = 1; p < period; p++) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in,
                    1.0, w[p], in, a, in, 0.0, tmp, in);
        memcpy(a, tmp, nn * sizeof *a);
    }
    double scale = pow(gamma, (double)period / 2.0), jn = 1.0 / (double)n;
    for (size_t k = 0; k < nn; k++)
        a[k] = scale * (a[k] - jn);
    /* Smith doubling: X = sum_k A^k Q A^kT */
    int done = 0;
    for (int it = 0; it < 64 && !done; it++) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in,
                    1.0, a, in, q, in, 0.0, tmp, in);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, in, in, in, 1.0,
                    tmp, in, a, in, 1.0, q, in);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in,
                    1.0, a, in, a, in, 0.0, b, in);
        double *sw = a;
        a = b;
        b = sw;
        double mx = 0.0;
        for (size_t k = 0; k < nn; k++)
            mx = fmax(mx, fabs(a[k]));
        done = mx <= 1e-18;
        if (!isfinite(mx))
            break;
    }
    if (!done) {
        st = cm_error(CM_EINVAL, "n_eff: the walk does not converge (is the "
                      "graph connected?)");
        goto cleanup;
    }
    /* q is C after the last phase; walk the phases once for the mean */
    double sum = 0.0;
    for (size_t p = 0; p < period; p++) {
        phase(w[p], n, gamma, q, tmp);
        sum += trace(q, n);
    }
    *out = 1.0 / (1.0 - gamma) + sum / (double)period;
cleanup:
    free(q);
    free(a);
    free(b);
    free(tmp);
    return st;
}

cm_status tg_neff_dense(const double *const *w, size_t period, size_t n,
                        double gamma, double *neff)
{
    double tr;
    cm_status st = tg_neff_dense_trace(w, period, n, gamma, &tr);
    if (st == CM_OK)
        *neff = tg_neff_from_trace(n, gamma, tr);
    return st;
}

cm_status tg_neff_apply_topo(void *ctx, size_t round, size_t n, size_t reps,
                             const double *x, double *y)
{
    const cm_topo *t = ctx;
    (void)round;
    (void)n;
    for (size_t i = 0; i < t->n; i++) {
        double *yi = y + i * reps;
        const double *xi = x + i * reps;
        for (size_t r = 0; r < reps; r++)
            yi[r] = t->self[i] * xi[r];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            const double *xj = x + t->adj[p] * reps;
            double wij = t->adj_w[p];
            for (size_t r = 0; r < reps; r++)
                yi[r] += wij * xj[r];
        }
    }
    return CM_OK;
}

cm_status tg_neff_mc(size_t n, tg_neff_apply apply, void *ctx, double gamma,
                     size_t reps, size_t rounds, uint64_t seed, double *neff,
                     double *err)
{
    if (n == 0 || reps < 2)
        return cm_error(CM_EINVAL, "n_eff Monte Carlo: needs n >= 1 and at "
                        "least 2 replicas");
    size_t burn = (size_t)ceil(30.0 / (1.0 - gamma));
    if (!rounds)
        rounds = (size_t)ceil(200.0 / (1.0 - gamma));
    double *x = calloc(n * reps, sizeof *x), *y = malloc(n * reps * sizeof *y);
    double *acc = calloc(reps, sizeof *acc);
    cm_status st = CM_OK;
    if (!x || !y || !acc) {
        st = cm_error(CM_ENOMEM, "n_eff Monte Carlo: out of memory");
        goto cleanup;
    }
    cm_rng rng;
    cm_rng_seed(&rng, seed, 7);
    double sg = sqrt(gamma);
    for (size_t t = 0; t < burn + rounds; t++) {
        for (size_t k = 0; k < n * reps; k++)
            x[k] = sg * x[k] + cm_rng_normal(&rng);
        if ((st = apply(ctx, t, n, reps, x, y)) != CM_OK)
            goto cleanup;
        double *sw = x;
        x = y;
        y = sw;
        if (t >= burn)
            for (size_t i = 0; i < n; i++)
                for (size_t r = 0; r < reps; r++)
                    acc[r] += x[i * reps + r] * x[i * reps + r];
    }
    double mean = 0.0, var = 0.0;
    for (size_t r = 0; r < reps; r++) {
        acc[r] /= (double)rounds * (double)n;
        mean += acc[r];
    }
    mean /= (double)reps;
    for (size_t r = 0; r < reps; r++)
        var += (acc[r] - mean) * (acc[r] - mean);
    var /= (double)(reps - 1);
    *neff = 1.0 / ((1.0 - gamma) * mean);
    *err = *neff * sqrt(var / (double)reps) / mean;
cleanup:
    free(x);
    free(y);
    free(acc);
    return st;
}

/* Removes the mean of each of the reps columns of x (n x reps). */
static void project(double *x, size_t n, size_t reps, double *colsum)
{
    memset(colsum, 0, reps * sizeof *colsum);
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < reps; r++)
            colsum[r] += x[i * reps + r];
    for (size_t r = 0; r < reps; r++)
        colsum[r] /= (double)n;
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < reps; r++)
            x[i * reps + r] -= colsum[r];
}

cm_status tg_neff_estimate(size_t n, tg_neff_apply apply, void *ctx,
                           double gamma, size_t probes, size_t max_terms,
                           uint64_t seed, double *trace_y, size_t *terms_out)
{
    if (n == 0 || probes == 0)
        return cm_error(CM_EINVAL, "n_eff estimate: needs n >= 1 and a "
                        "probe");
    double *x = malloc(n * probes * sizeof *x);
    double *y = malloc(n * probes * sizeof *y);
    double *cs = malloc(probes * sizeof *cs);
    cm_status st = CM_OK;
    if (!x || !y || !cs) {
        st = cm_error(CM_ENOMEM, "n_eff estimate: out of memory");
        goto cleanup;
    }
    cm_rng rng;
    cm_rng_seed(&rng, seed, 11);
    for (size_t k = 0; k < n * probes; k++)
        x[k] = cm_rng_below(&rng, 2) ? 1.0 : -1.0;
    project(x, n, probes, cs);
    double sum = 0.0, gk = 1.0;
    size_t k = 0;
    for (; k < max_terms; k++) {
        if ((st = apply(ctx, k, n, probes, x, y)) != CM_OK)
            goto cleanup;
        project(y, n, probes, cs);
        double s2 = 0.0;
        for (size_t i = 0; i < n * probes; i++)
            s2 += y[i] * y[i];
        double term = gk * s2 / (double)probes;
        sum += term;
        gk *= gamma;
        double *sw = x;
        x = y;
        y = sw;
        if (term <= 1e-10 * sum)
            break;
    }
    *trace_y = sum;
    if (terms_out)
        *terms_out = k + 1 < max_terms ? k + 1 : max_terms;
cleanup:
    free(x);
    free(y);
    free(cs);
    return st;
}

cm_status tg_neff_series(size_t n, tg_neff_apply apply, void *ctx,
                         double gamma, double *trace_y, size_t *terms_out)
{
    if (n == 0 || n > TG_NEFF_DENSE_MAX)
        return cm_error(CM_EINVAL, "n_eff series: %zu nodes (at most %d)", n,
                        TG_NEFF_DENSE_MAX);
    size_t nn = n * n;
    double *x = malloc(nn * sizeof *x), *y = malloc(nn * sizeof *y);
    cm_status st = CM_OK;
    if (!x || !y) {
        st = cm_error(CM_ENOMEM, "n_eff series: out of memory");
        goto cleanup;
    }
    memset(x, 0, nn * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i * n + i] = 1.0;
    if ((st = apply(ctx, 0, n, n, x, y)) != CM_OK)
        goto cleanup;
    double jn = 1.0 / (double)n, sum = 0.0, gk = 1.0;
    for (size_t k = 0; k < nn; k++)
        y[k] -= jn;
    size_t k = 0;
    for (;; k++) {
        double s2 = 0.0;
        for (size_t i = 0; i < nn; i++)
            s2 += y[i] * y[i];
        double term = gk * s2;
        sum += term;
        if (term <= 1e-13 * sum || !isfinite(sum))
            break;
        if (k == 10000) {
            st = cm_error(CM_EINVAL, "n_eff series: no convergence in "
                          "10,000 terms (is the graph strongly connected?)");
            goto cleanup;
        }
        gk *= gamma;
        double *sw = x;
        x = y;
        y = sw;
        if ((st = apply(ctx, k + 1, n, n, x, y)) != CM_OK)
            goto cleanup;
    }
    *trace_y = sum;
    if (terms_out)
        *terms_out = k + 1;
cleanup:
    free(x);
    free(y);
    return st;
}

cm_status tg_neff_apply_epidemic(void *ctx, size_t round, size_t n,
                                 size_t reps, const double *x, double *y)
{
    tg_neff_epidemic *e = ctx;
    cm_status st = cm_topo_epidemic_draw(&e->t, n, e->s, e->local, e->seed,
                                         round);
    if (st != CM_OK)
        return st;
    return tg_neff_apply_topo(&e->t, round, n, reps, x, y);
}
