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

/* `topogen compare -n N -d D`: learned, random regular, ring lattice,
 * one-peer exponential, Base-D, D directed permutations, the directed
 * exponential graph, epidemic (Monte Carlo) and the Ramanujan bound side
 * by side: SLEM (directed: ||W - J||_2; sequences: the period's product
 * norm), n_eff at each --gamma, messages per node per round and n_eff per
 * message. Exit status. */
int topogen_compare(topogen_config *c);

/* 1 when path's first line is an epidemic header (`kind=epidemic`), with
 * its n, peers per round and EL-Local flag. */
int topogen_epidemic_peek(const char *path, size_t *n, size_t *s,
                          int *local);

/* `topogen eval` of an epidemic file: n_eff by Monte Carlo with its
 * standard error at each gamma (text or JSON). Exit status. */
int topogen_epidemic_eval(const char *path, size_t n, size_t s, int local,
                          const char *gamma, uint64_t seed, int json);

#endif
