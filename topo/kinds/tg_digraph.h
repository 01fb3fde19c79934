/* tg_digraph: directed gossip graphs (push a model along an edge).
 *
 * An edge i -> j means i sends its model and j receives it with weight w:
 * x_j <- W_jj x_j + sum_{i -> j} w_ij x_i, W_jj = 1 - sum of j's incoming
 * weights (implied, as in the file format). Kinds:
 *   perm:         S random permutations without fixed points and with S
 *                 distinct targets per node, W = (I + P_1 + ... + P_S) /
 *                 (S + 1): S sends and S receives per node, doubly
 *                 stochastic;
 *   exp-directed: i -> i + 2^k mod n for every 2^k < n, uniform weights
 *                 1/(K + 1): the literature's (static) exponential graph
 *                 (Ying et al. 2021; BlueFog ExponentialGraph);
 *   learned:      the permutations found by tg_digraph_search.
 * Epidemic (EL-Oracle / EL-Local, de Vos et al. 2023) draws a fresh graph
 * every round: cm_topo_epidemic_draw, measured by tg_neff_apply_epidemic.
 */
#ifndef TG_DIGRAPH_H
#define TG_DIGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "cm_rng.h"
#include "cm_status.h"

typedef struct {
    size_t n;      /* nodes */
    size_t m;      /* directed edges */
    size_t *src;   /* [m] sender; edges sorted by (src, dst) */
    size_t *dst;   /* [m] receiver */
    double *w;     /* [m] weight the receiver gives the sender's model */
    double *self;  /* [n] W_jj = 1 - sum of j's incoming weights */
} tg_digraph;

void tg_digraph_init(tg_digraph *g);
void tg_digraph_destroy(tg_digraph *g);

/* W = (I + sum_s P_s) / (S + 1) from S permutations perm[s * n + i] =
 * the node i sends to in permutation s (no fixed points, targets of a node
 * distinct: checked, CM_EINVAL). O(n S log(n S)). */
cm_status tg_digraph_from_perms(tg_digraph *g, size_t n, size_t s,
                                const size_t *perm);

/* S random permutations as tg_digraph_from_perms wants, into perm (caller
 * [s * n]): each drawn by rejection (a uniform derangement, redrawn while
 * it repeats an earlier target of some node). CM_EINVAL when n < s + 1 or
 * no draw succeeds in 10,000 tries. */
cm_status tg_digraph_random_perms(size_t n, size_t s, cm_rng *rng,
                                  size_t *perm);

/* The directed exponential graph on n >= 2 nodes. */
cm_status tg_digraph_exp(tg_digraph *g, size_t n);

/* Dense W (n x n row-major, caller-owned): W[j * n + i] = w_ij. */
void tg_digraph_dense(const tg_digraph *g, double *w);

/* Models a node sends per round (m / n). */
double tg_digraph_messages(const tg_digraph *g);

/* y = W x for reps replicas per node (tg_neff_apply; ctx a tg_digraph). */
cm_status tg_digraph_apply(void *ctx, size_t round, size_t n, size_t reps,
                           const double *x, double *y);

/* The lazy family W(t) = (1 - t) I + t W of a doubly stochastic g (t in
 * (0, 1 / (1 - min_j W_jj)], so every self weight stays >= 0): sets g to
 * the t maximising n_eff(gamma) (golden section, 27 sparse series
 * tg_neff_series), *t and *neff to it; on error g is unchanged. The result stays doubly stochastic. For
 * S permutations, W(t) = a I + (1 - a)/S sum P_s with a = 1 - tS/(S+1).
 * CM_EINVAL beyond TG_NEFF_DENSE_MAX nodes or gamma outside (0, 1);
 * CM_ENOMEM. O(27 terms (m + n) n). */
cm_status tg_digraph_best_lazy(tg_digraph *g, double gamma, double *t,
                               double *neff);

/* Writes g as a directed topology file (cm_topo_from_arcs, then
 * cm_topo_save: the comment, which must hold the token `directed=1`,
 * then `i j w` per arc i -> j, %.17g, self weights implied as the reader
 * recomputes them); atomically ("-" stdout). An arc-less g writes the
 * comment only (an epidemic header). CM_EIO, CM_ENOMEM. */
cm_status tg_digraph_save(const tg_digraph *g, const char *path,
                          const char *comment);

#endif
