/* tg_stlfw: STL-FW (Le Bars, Bellet, Tommasi, Lavoie, Kermarrec, AISTATS
 * 2023): a sparse doubly stochastic W learned from the label partition.
 *
 * Minimizes g(W) = (1/n) ||W Pi - J Pi||_F^2 + (lambda/n) ||W - J||_F^2
 * over the Birkhoff polytope by Frank-Wolfe from W = I: the gradient
 * (2/n) ((W Pi - J Pi) Pi^T + lambda (W - J)) goes to a linear assignment
 * (tg_lap), whose permutation P is the vertex minimizing it; exact line
 * search for the quadratic g along P - W; W <- (1 - s) W + s P. Each
 * iteration adds at most one out- and one in-neighbour per node, so
 * `budget` iterations bound both degrees by budget: the result is in
 * general directed. The symmetric variant uses the atom (P + P^T)/2 (the
 * minimizer of the symmetrized gradient over symmetric doubly stochastic
 * matrices), prices a new edge out of the assignment unless both ends can
 * take two more neighbours (so no node ever exceeds budget), and runs up
 * to 8 budget iterations, stopping before an atom would exceed the budget
 * anyway. Stops early when the line search step is below 1e-9.
 */
#ifndef TG_STLFW_H
#define TG_STLFW_H

#include <stddef.h>

#include "cm_status.h"

#define TG_STLFW_MAX_ITERS 1024

typedef struct {
    size_t budget;      /* neighbours per node (in and out), >= 1 */
    double lambda;      /* weight of ||W - J||^2 (>= 0; default 0.1) */
    int symmetric;      /* 1: symmetric atoms, an undirected W */
} tg_stlfw_opts;

typedef struct {
    size_t iters;                       /* FW steps taken */
    double obj[TG_STLFW_MAX_ITERS + 1]; /* g after 0 .. iters steps */
    double step[TG_STLFW_MAX_ITERS];    /* line-search steps */
    size_t max_out, max_in;             /* largest degrees (no self) */
    double seconds;                     /* wall time */
    double lap_seconds;                 /* of which in the assignments */
} tg_stlfw_result;

/* g(W) for the dense row-major W, proportions pi (n x k), pibar. O(n^2 k). */
double tg_stlfw_objective(size_t n, size_t k, const double *W,
                          const double *pi, const double *pibar,
                          double lambda);

/* Learns W (caller's n*n, row-major; overwritten) from pi (n x k) and
 * pibar. CM_EINVAL for budget 0 or above TG_STLFW_MAX_ITERS, or lambda
 * < 0; CM_ENOMEM. Cost per iteration O(n^2 k) for the gradient plus one
 * assignment (tg_lap_solve). Deterministic. */
cm_status tg_stlfw_learn(size_t n, size_t k, const double *pi,
                         const double *pibar, const tg_stlfw_opts *o,
                         double *W, tg_stlfw_result *res);

#endif
