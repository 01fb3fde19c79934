/* topogen_directed: the directed and randomised kinds of topogen's main
 * (perm, exp-directed, learned --directed, epidemic) and `topogen
 * compare` (part of topogen's main; prints and returns exit statuses).
 */
#ifndef TOPOGEN_DIRECTED_H
#define TOPOGEN_DIRECTED_H

#include "topogen_cli.h"

/* Builds (or learns) c's directed kind and writes it (tg_digraph_save:
 * header with `directed=1`, `i j w` per edge i -> j), or for epidemic a
 * header-only file naming the per-round draw; summary on stderr unless
 * quiet. Exit status. */
int topogen_directed_generate(topogen_config *c);

/* topogen_directed_generate without its error message: builds c's
 * directed kind and writes it to c->out; *interrupted is 1 when a signal
 * cut the search short. CM_OK or the status with its message (the
 * summary line is printed unless c->quiet). */
cm_status topogen_directed_make(topogen_config *c, int *interrupted);

/* ||W - J||_2 of a dense n x n W (row-major), from the eigenvalues of
 * (W - J)^T (W - J). CM_ENOMEM, CM_ENUMERIC. O(n^3). */
cm_status topogen_norm_wj(const double *w, size_t n, double *out);

/* `topogen compare -n N -d D`: learned, random regular, ring lattice,
 * one-peer exponential, Base-D, D directed permutations, the directed
 * exponential graph, epidemic (Monte Carlo) and the Ramanujan bound side
 * by side: SLEM (directed: ||W - J||_2; sequences: the period's product
 * norm), n_eff at each --gamma, messages per node per round and n_eff per
 * message. Exit status. */
int topogen_compare(topogen_config *c);

/* `topogen eval` of an epidemic file: n_eff by Monte Carlo with its
 * standard error at each gamma (text or JSON). Exit status. */
int topogen_epidemic_eval(const char *path, size_t n, size_t s, int local,
                          const char *gamma, uint64_t seed, int json);

#endif
