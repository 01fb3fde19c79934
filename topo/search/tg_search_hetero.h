/* tg_search_hetero: the search's data-aware energy term, mu * H, kept
 * incrementally under double-edge swaps (used by tg_search.c only when
 * tg_search_opts.pi is set).
 *
 * For the d-regular state graph with the equal (Metropolis-Hastings)
 * weights W = (I + A)/(d + 1), node i's neighbourhood mix is
 * S_i / (d + 1) with S_i = Pi_i + sum_{j ~ i} Pi_j, and
 *     H = (1/n) sum_i ||S_i/(d + 1) - pibar||^2.
 * A swap (a,b),(x,y) -> (a,x),(b,y) changes four rows only:
 * S_a += Pi_x - Pi_b, S_b += Pi_y - Pi_a, S_x += Pi_a - Pi_y,
 * S_y += Pi_b - Pi_x, so its delta costs O(K).
 */
#ifndef TG_SEARCH_HETERO_H
#define TG_SEARCH_HETERO_H

#include <stddef.h>

#include "cm_status.h"
#include "tg_graph.h"

typedef struct {
    size_t n, k;          /* nodes, classes */
    double scale;         /* 1/(d + 1) */
    double mu;            /* weight of H in the energy */
    const double *pi;     /* [n*k] borrowed */
    const double *pibar;  /* [k] borrowed */
    double *s;            /* [n*k] S_i (owned) */
    double sum;           /* sum_i ||S_i scale - pibar||^2 */
} tg_search_hetero;

/* Sets every field to empty. */
void tg_search_hetero_init(tg_search_hetero *h);

/* Frees h's rows and re-initializes it. Accepts NULL. */
void tg_search_hetero_destroy(tg_search_hetero *h);

/* Computes the rows for graph g (d-regular, degree d). pi, pibar are
 * borrowed for h's life. CM_ENOMEM. O(n d k). */
cm_status tg_search_hetero_start(tg_search_hetero *h, const tg_graph *g,
                                 size_t d, const double *pi,
                                 const double *pibar, size_t k, double mu);

/* mu * H of the current state. */
double tg_search_hetero_energy(const tg_search_hetero *h);

/* H of the current state (without mu). */
double tg_search_hetero_value(const tg_search_hetero *h);

/* The change of mu * H that the swap (a,b),(x,y) -> (a,x),(b,y) would
 * make. O(k). */
double tg_search_hetero_delta(const tg_search_hetero *h, size_t a, size_t b,
                              size_t x, size_t y);

/* Applies that swap to the rows. O(k). */
void tg_search_hetero_apply(tg_search_hetero *h, size_t a, size_t b,
                            size_t x, size_t y);

#endif
