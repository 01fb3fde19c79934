/* topogen_directed: `topogen compare` and `topogen eval` of an epidemic
 * file (part of topogen's command line; prints and returns exit
 * statuses). Making the directed kinds is topo/make/topogen_make_directed.c.
 */
#ifndef TOPOGEN_DIRECTED_H
#define TOPOGEN_DIRECTED_H

#include <stdint.h>

#include "topogen_cli.h"
#include "topogen_config.h"

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
