/* cm_mixing: mixing matrices W on a topology, their spectra, and the
 * validation of a weighted file.
 *
 * Weight rules (Xiao & Boyd 2004, "Fast linear iterations for distributed
 * averaging"): constant Laplacian weights W = I - alpha L with the optimal
 * alpha = 2/(lambda_2 + lambda_n), Metropolis-Hastings
 * W_ij = 1/(1 + max(d_i, d_j)) and max-degree W = I - L/(d_max + 1). Rules
 * are rows of one table (cm_mixing.c), so a new rule is one row.
 *
 * Spectra: one function each for the Laplacian extremes and the SLEM.
 * Below CM_SPARSE_FROM nodes they are dense (LAPACK, O(n^2) memory,
 * O(n^3) time); from there they use cm_shiftinv (Lanczos on the sparse
 * matrix, and shift-and-invert with a CHOLMOD factor where Lanczos is slow:
 * any connected sparse graph up to 10^6 nodes whose factor fits, rings and
 * tori of 10^5 nodes in seconds, to ~1e-12 relative), falling back to
 * dense when it fails and n <= CM_MIXING_DENSE_MAX.
 * Depends on cm_topo (one way).
 */
#ifndef CM_MIXING_H
#define CM_MIXING_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"

/* Largest n for the dense spectra: 8 n^2 bytes = 128 MiB at 4096. */
#define CM_MIXING_DENSE_MAX 4096

/* Smallest n for the sparse spectra (dense LAPACK below: 0.15 s at 1,024,
 * ~1.2 s at 2,048 here; Lanczos is O(n) per product but slow on rings). */
#define CM_SPARSE_FROM 2048

typedef enum {
    CM_WEIGHTS_LAPLACIAN, /* W = I - alpha L, alpha = 2/(lambda_2 + lambda_n) */
    CM_WEIGHTS_MH,        /* W_ij = 1/(1 + max(deg_i, deg_j)) */
    CM_WEIGHTS_MAXDEG     /* W = I - L/(max deg + 1) */
} cm_weight_rule;

/* Parses "laplacian", "mh" or "maxdeg". CM_EINVAL otherwise. */
cm_status cm_weight_rule_parse(const char *s, cm_weight_rule *rule);

/* The rule's name as parsed by cm_weight_rule_parse. */
const char *cm_weight_rule_name(cm_weight_rule rule);

/* The rule names, comma separated ("laplacian, mh, maxdeg"), for usage
 * text. Static storage. */
const char *cm_weight_rule_list(void);

/* Replaces t's weights (if any) with the rule's; self weights
 * W_ii = 1 - sum_j W_ij summed in CSR order. A disconnected t gets weights
 * too (laplacian: alpha = 2/lambda_n, as lambda_2 = 0; its SLEM is 1).
 * CM_EINVAL above the dense limit for laplacian;
 * CM_ENUMERIC if the eigensolver fails. O(n^3) for laplacian, O(n + m)
 * otherwise. */
cm_status cm_topo_set_weights(cm_topo *t, cm_weight_rule rule);

/* The one install of edge weights: W_ij = ew[k] for edge k of t's sorted
 * edge list (ew[m], borrowed; may alias nothing of t), adj_w in CSR order
 * from it, and self weights W_ii = 1 - sum_j W_ij summed in CSR order (as
 * cm_topo_set_weights and the reader do). CM_ENOMEM (t unchanged).
 * O(n + m log m). */
cm_status cm_topo_install_weights(cm_topo *t, const double *ew);

/* lambda_2 (algebraic connectivity, 0 iff disconnected) and lambda_n
 * (largest eigenvalue) of the graph Laplacian L = D - A, ignoring weights.
 * n = 1 gives 0, 0. Dense O(n^3) below CM_SPARSE_FROM, else sparse
 * (cm_shiftinv_ends); CM_ENUMERIC (sparse did not converge) or
 * CM_EINVAL above CM_MIXING_DENSE_MAX when neither path can answer. A
 * graph whose ends are known (t->lap_known: its Laplacian weights were
 * set) answers from them in O(1): the same bits a second solve gives. */
cm_status cm_topo_laplacian_extremes(const cm_topo *t, double *l2,
                                     double *ln);

/* Second-largest eigenvalue modulus of the weighted t's W:
 * SLEM = || W - 11^T/n ||_2 (equals max(|lambda_2(W)|, |lambda_n(W)|) for a
 * symmetric stochastic W; 1 for a disconnected graph). CM_EINVAL when
 * unweighted. Paths and limits as cm_topo_laplacian_extremes. */
cm_status cm_topo_slem(const cm_topo *t, double *slem);

/* lambda_2, lambda_n of L (cm_topo_laplacian_extremes) and the SLEM of
 * the weighted t's W (cm_topo_slem) in one call. When W = I - a L (one
 * weight a on every edge and W_ii = 1 - d_i a: Laplacian weights, and mh
 * or max-degree weights on a regular graph) and t is large enough for the
 * sparse path, the SLEM is max(|1 - a lambda_2|, |1 - a lambda_n|) from
 * L's ends (1 - a lambda is monotone in lambda): one sparse spectrum
 * instead of two. Errors as the two calls. Cost: theirs, or
 * cm_topo_laplacian_extremes' plus O(n + m). */
cm_status cm_topo_spectra(const cm_topo *t, double *l2, double *ln,
                          double *slem);

/* The second-largest eigenvalue lambda_2(W) and the smallest
 * lambda_min(W) of the weighted t's symmetric W (1, 1 for n = 1). D^2
 * needs lambda_min > -1/3; (I + W)/2 has eigenvalues (1 + lambda)/2, so
 * its SLEM is (1 + lambda_2)/2. Paths and limits as
 * cm_topo_laplacian_extremes (lambda_2 here is the largest eigenvalue on
 * the complement of 1, so for a disconnected graph it is 1). CM_EINVAL
 * when unweighted, CM_ENUMERIC if the eigensolver fails. */
cm_status cm_topo_w_extremes(const cm_topo *t, double *l2, double *lmin);

/* The smallest and largest eigenvalue of the weighted t's symmetric W
 * (both W_00 for n = 1), e.g. to check that a round of a time-varying
 * topology keeps its spectrum in [-1, 1]. Dense, O(n^3), refused above
 * CM_MIXING_DENSE_MAX nodes before allocating. CM_EINVAL when unweighted
 * or too large, CM_ENOMEM, CM_ENUMERIC if the eigensolver fails. */
cm_status cm_topo_w_range(const cm_topo *t, double *lo, double *hi);

/* CM_OK when t is unweighted or every row of W sums to 1 within
 * CM_TOPO_ROW_TOL (compensated sums, so %.17g files pass); else CM_ETOPO
 * naming path and the first bad row. O(n + m). */
cm_status cm_topo_check_stochastic(const cm_topo *t, const char *path);

/* Checks global rules: every node has an edge and the graph is connected;
 * if weighted, every row of W sums to 1 within CM_TOPO_ROW_TOL and
 * SLEM(W) < 1 (when the sparse SLEM cannot be found above
 * CM_MIXING_DENSE_MAX nodes, a W with nonnegative weights and positive
 * diagonal is accepted by Perron-Frobenius). Returns CM_ETOPO naming path
 * (used only in the message). Cost of cm_topo_slem when weighted, O(n + m)
 * otherwise. */
cm_status cm_topo_validate(const cm_topo *t, const char *path);

/* cm_topo_validate that also hands back the SLEM it computed for a
 * weighted t (*slem_out; -1 when t is unweighted or on error), so callers
 * need not repeat the O(n^3) eigensolve. slem_out may be NULL. */
cm_status cm_topo_validate_slem(const cm_topo *t, const char *path,
                                double *slem_out);

#endif
