/* tg_stlfw.c: Frank-Wolfe over the Birkhoff polytope for STL-FW.
 *
 * State: dense W (n x n) and R = W Pi - 1 pibar^T (n x k). Per iteration:
 * cost C = R Pi^T + lambda W (the gradient up to the factor 2/n and a
 * constant, which do not change the assignment; symmetrized for the
 * undirected variant), P = argmin_P <C, P> by tg_lap, the atom S (P or
 * (P + P^T)/2), D = S - W, and the exact step of the quadratic
 *     g(W + s D) = (1/n) ||R + s D Pi||^2 + (lambda/n) ||W - J + s D||^2,
 *     s* = -(<R, D Pi> + lambda <W, D>) / (||D Pi||^2 + lambda ||D||^2)
 * clamped to [0, 1] (<J, D> = 0 since both are doubly stochastic).
 */
#include "tg_stlfw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_time.h"
#include "tg_lap.h"

double tg_stlfw_objective(size_t n, size_t k, const double *W,
                          const double *pi, const double *pibar,
                          double lambda)
{
    double h = 0.0, f = 0.0;
    double r[1024];
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < k; c++)
            r[c] = -pibar[c];
        for (size_t j = 0; j < n; j++) {
            double w = W[i * n + j];
            double d = w - 1.0 / (double)n;
            f += d * d;
            if (w != 0.0)
                for (size_t c = 0; c < k; c++)
                    r[c] += w * pi[j * k + c];
        }
        for (size_t c = 0; c < k; c++)
            h += r[c] * r[c];
    }
    return (h + lambda * f) / (double)n;
}

/* Largest out- and in-degree of W + extra (no diagonal); extra may be
 * NULL. */
static void degrees(size_t n, const double *W, const double *extra,
                    size_t *max_out, size_t *max_in, size_t *col)
{
    memset(col, 0, n * sizeof *col);
    *max_out = 0;
    for (size_t i = 0; i < n; i++) {
        size_t row = 0;
        for (size_t j = 0; j < n; j++)
            if (i != j && (W[i * n + j] != 0.0 ||
                           (extra && extra[i * n + j] != 0.0))) {
                row++;
                col[j]++;
            }
        if (row > *max_out)
            *max_out = row;
    }
    *max_in = 0;
    for (size_t j = 0; j < n; j++)
        if (col[j] > *max_in)
            *max_in = col[j];
}

/* Neighbours (no self) of each node of a symmetric W into deg. */
static void degree_rows(size_t n, const double *W, size_t *deg)
{
    for (size_t i = 0; i < n; i++) {
        deg[i] = 0;
        for (size_t j = 0; j < n; j++)
            deg[i] += i != j && W[i * n + j] != 0.0;
    }
}

cm_status tg_stlfw_learn(size_t n, size_t k, const double *pi,
                         const double *pibar, const tg_stlfw_opts *o,
                         double *W, tg_stlfw_result *res)
{
    if (o->budget == 0 || o->budget > TG_STLFW_MAX_ITERS)
        return cm_error(CM_EINVAL, "-d: the STL-FW budget must be in 1..%d",
                        TG_STLFW_MAX_ITERS);
    if (o->symmetric && o->budget < 2)
        return cm_error(CM_EINVAL, "-d: --symmetric needs a budget of at "
                        "least 2 (an atom (P + P^T)/2 adds up to two "
                        "neighbours)");
    if (!(o->lambda >= 0.0))
        return cm_error(CM_EINVAL, "--lambda: must be >= 0");
    if (k > 1024)
        return cm_error(CM_EINVAL, "--labels: at most 1024 classes");
    memset(res, 0, sizeof *res);
    double t0 = cm_time_now();
    double *R = malloc(n * k * sizeof *R), *DP = malloc(n * k * sizeof *DP);
    double *C = malloc(n * n * sizeof *C), *S = calloc(n * n, sizeof *S);
    size_t *perm = malloc(n * sizeof *perm), *col = malloc(n * sizeof *col);
    cm_status s = CM_OK;
    if (!R || !DP || !C || !S || !perm || !col) {
        s = cm_error(CM_ENOMEM, "out of memory for STL-FW (n = %zu)", n);
        goto done;
    }
    memset(W, 0, n * n * sizeof *W);
    for (size_t i = 0; i < n; i++)
        W[i * n + i] = 1.0;
    res->obj[0] = tg_stlfw_objective(n, k, W, pi, pibar, o->lambda);
    size_t max_iters = o->symmetric ? 8 * o->budget : o->budget;
    if (max_iters > TG_STLFW_MAX_ITERS)
        max_iters = TG_STLFW_MAX_ITERS;
    for (size_t it = 0; it < max_iters; it++) {
        /* R = W Pi - 1 pibar^T */
        for (size_t i = 0; i < n; i++) {
            double *r = R + i * k;
            for (size_t c = 0; c < k; c++)
                r[c] = -pibar[c];
            for (size_t j = 0; j < n; j++) {
                double w = W[i * n + j];
                if (w != 0.0)
                    for (size_t c = 0; c < k; c++)
                        r[c] += w * pi[j * k + c];
            }
        }
        /* C = R Pi^T + lambda W */
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                double x = o->lambda * W[i * n + j];
                for (size_t c = 0; c < k; c++)
                    x += R[i * k + c] * pi[j * k + c];
                C[i * n + j] = x;
            }
        if (o->symmetric) {
            /* symmetrized gradient; a new edge only between two nodes
             * that can take two more neighbours (an atom (P + P^T)/2
             * gives a node up to two), priced out of the assignment */
            double big = 0.0;
            for (size_t e = 0; e < n * n; e++)
                if (fabs(C[e]) > big)
                    big = fabs(C[e]);
            big = 1e6 * (big + 1.0);
            degree_rows(n, W, col);
            for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++) {
                    double x = 0.5 * (C[i * n + j] + C[j * n + i]);
                    if (W[i * n + j] == 0.0 &&
                        (col[i] + 2 > o->budget || col[j] + 2 > o->budget))
                        x = big;
                    C[i * n + j] = C[j * n + i] = x;
                }
        }
        double tl = cm_time_now();
        if ((s = tg_lap_solve(n, C, perm, NULL)) != CM_OK)
            goto done;
        res->lap_seconds += cm_time_now() - tl;
        /* the atom S */
        for (size_t i = 0; i < n; i++) {
            if (o->symmetric) {
                S[i * n + perm[i]] += 0.5;
                S[perm[i] * n + i] += 0.5;
            } else {
                S[i * n + perm[i]] = 1.0;
            }
        }
        if (o->symmetric) { /* would the atom exceed the budget? */
            size_t mo, mi;
            degrees(n, W, S, &mo, &mi, col);
            if (mo > o->budget || mi > o->budget)
                goto clear;
        }
        /* D Pi = S Pi - W Pi = S Pi - (R + 1 pibar^T) */
        double rdp = 0.0, dp2 = 0.0, ws = 0.0, ww = 0.0, ss = 0.0;
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < k; c++)
                DP[i * k + c] = -(R[i * k + c] + pibar[c]);
        for (size_t i = 0; i < n; i++) {
            size_t js[2] = {perm[i], 0};
            size_t nj = 1;
            if (o->symmetric)
                for (size_t j = 0; j < n; j++) /* row i of S: <= 2 entries */
                    if (S[i * n + j] != 0.0 && j != perm[i])
                        js[nj++] = j;
            for (size_t q = 0; q < nj; q++) {
                double sv = S[i * n + js[q]];
                ss += sv * sv;
                ws += sv * W[i * n + js[q]];
                for (size_t c = 0; c < k; c++)
                    DP[i * k + c] += sv * pi[js[q] * k + c];
            }
        }
        for (size_t e = 0; e < n * n; e++)
            ww += W[e] * W[e];
        for (size_t e = 0; e < n * k; e++) {
            rdp += R[e] * DP[e];
            dp2 += DP[e] * DP[e];
        }
        double num = rdp + o->lambda * (ws - ww);
        double den = dp2 + o->lambda * (ss - 2.0 * ws + ww);
        double step = den > 0.0 ? -num / den : 0.0;
        if (step > 1.0)
            step = 1.0;
        if (!(step > 1e-9)) {
            for (size_t e = 0; e < n * n; e++)
                S[e] = 0.0;
            break; /* no descent left */
        }
        for (size_t e = 0; e < n * n; e++)
            W[e] = (1.0 - step) * W[e] + step * S[e];
        res->step[it] = step;
        res->iters = it + 1;
        res->obj[it + 1] = tg_stlfw_objective(n, k, W, pi, pibar, o->lambda);
    clear:
        for (size_t i = 0; i < n; i++) {
            S[i * n + perm[i]] = 0.0;
            S[perm[i] * n + i] = 0.0;
        }
        if (o->symmetric && res->iters != it + 1)
            break; /* the budget is reached */
    }
    degrees(n, W, NULL, &res->max_out, &res->max_in, col);
done:
    res->seconds = cm_time_now() - t0;
    free(col);
    free(perm);
    free(S);
    free(C);
    free(DP);
    free(R);
    return s;
}
