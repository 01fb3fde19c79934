/* tg_hetero: neighbourhood heterogeneity of a mixing matrix for a label
 * partition (Le Bars et al., AISTATS 2023).
 *
 * Pi is the n x K matrix of each worker's class proportions (rows of the
 * counts file normalized to 1), pibar = (1/n) 1^T Pi the global mix. For
 * a doubly stochastic W,
 *     H = (1/n) ||(W - J) Pi||_F^2 = (1/n) sum_i ||(W Pi)_i - pibar||^2,
 * the mean squared distance between what node i's neighbourhood averages
 * and the global label mix (0: every neighbourhood sees the global mix;
 * W = I: the plain heterogeneity of the shards). Per node, the worst
 * neighbourhood's distance max_i ||(W Pi)_i - pibar||^2 is reported too,
 * with its total-variation distance (1/2) ||.||_1.
 */
#ifndef TG_HETERO_H
#define TG_HETERO_H

#include <stddef.h>

#include "cm_labels.h"
#include "cm_status.h"
#include "cm_topo.h"

typedef struct {
    double h;          /* (1/n) ||(W - J) Pi||_F^2 */
    double worst;      /* max_i ||(W Pi)_i - pibar||^2 */
    size_t worst_node; /* the i of worst (lowest on ties) */
    double worst_tv;   /* max_i (1/2) ||(W Pi)_i - pibar||_1 */
} tg_hetero;

/* Proportions of l: *pi (n*k, caller frees) and the global mix *pibar
 * (k, caller frees). CM_ENOMEM. O(n k). */
cm_status tg_hetero_pi(const cm_labels *l, double **pi, double **pibar);

/* H of the sparse row matrix W (row i: w[off[i] .. off[i+1]) at columns
 * col[..], its self weight included), for proportions pi (n x k) and
 * pibar. O(nnz k). */
void tg_hetero_rows(size_t n, size_t k, const size_t *off, const size_t *col,
                    const double *w, const double *pi, const double *pibar,
                    tg_hetero *out);

/* H of a weighted topology (W_ii = t->self[i], W_ij on its edges).
 * CM_EINVAL when t is unweighted or t->n differs from the partition's
 * worker count (naming both). O((n + m) k). */
cm_status tg_hetero_topo(const cm_topo *t, const cm_labels *l,
                         tg_hetero *out);

/* H of a dense row-major n x n W. O(n^2 k). */
void tg_hetero_dense(size_t n, size_t k, const double *W, const double *pi,
                     const double *pibar, tg_hetero *out);

#endif
