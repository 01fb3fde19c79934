/* tg_groups: nodes split into G equal groups (hosts), and the edges
 * between them.
 *
 * Group of node i: g(i) = floor(i G / n), contiguous blocks of node ids,
 * the same blocks `dpsgd-train --placement block` puts on one rank (and
 * mpirun on one host) when G ranks or hosts divide n, so a grouped file
 * needs no extra mapping. The cut of a graph is the number of edges whose
 * ends lie in different groups; per group, the edges leaving it. A
 * grouped search (tg_search_opts.groups) keeps the cut at most a bound C
 * by rejecting every swap that would exceed it, from a start that meets
 * the bound: a ring lattice of degree d inside each group, one edge of
 * each lifted out and re-linked so that the groups form a cycle (G cut
 * edges; 2 for G = 2), the least a connected graph of this kind can have
 * (each group's cut count has the parity of (n/G) d, required even).
 */
#ifndef TG_GROUPS_H
#define TG_GROUPS_H

#include <stddef.h>

#include "cm_rng.h"
#include "cm_status.h"
#include "tg_graph.h"

/* The group of node i of n in G groups: floor(i G / n). */
static inline size_t tg_group_of(size_t i, size_t n, size_t G)
{
    return i * G / n;
}

/* The least bound on cut edges that a connected d-regular graph with G
 * equal groups (each (n/G) d even) meets: 0 for G = 1, 2 for G = 2, else
 * G (a cycle of groups). */
size_t tg_groups_min_cross(size_t G);

/* Checks G groups for n nodes: 1 <= G <= n and G divides n; flag names
 * the flag for the messages ("--groups"). CM_EINVAL otherwise. */
cm_status tg_groups_check_n(size_t n, size_t G, const char *flag);

/* Checks a grouped search: tg_groups_check_n, G >= 2, each group of s = n/G
 * nodes can be d-regular inside (s >= d + 1 and s d even), and the bound
 * C >= tg_groups_min_cross(G). Messages name --groups or --max-cross.
 * CM_EINVAL otherwise. */
cm_status tg_groups_check(size_t n, size_t d, size_t G, size_t C);

/* The cut of the m edges (eu[k], ev[k]) of an n-node graph in G groups:
 * *total edges between groups, and per_group[g] (optional, [G]) the edges
 * with exactly one end in group g (sum = 2 total). Needs 1 <= G <= n and
 * ids < n (not checked). O(m + G). */
void tg_groups_cut(size_t n, size_t m, const size_t *eu, const size_t *ev,
                   size_t G, size_t *per_group, size_t *total);

/* The change of the cut when tg_graph_swap(g, a, b, x, y) replaces
 * a~b, x~y by a~x, b~y. O(1). */
long tg_groups_swap_delta(size_t n, size_t G, size_t a, size_t b, size_t x,
                          size_t y);

/* The grouped start into g (initialized; old content destroyed): the
 * cycle of ring lattices above, with tg_groups_min_cross(G) cut edges;
 * then, with rng, 10 m random double-edge swaps that keep it simple,
 * connected and its cut at most C (a chain on rng only, so a restart's
 * start depends on its own stream). Checks tg_groups_check first.
 * O(n^2 + m) without rng; with it O(m (n + m)). */
cm_status tg_groups_start(tg_graph *g, size_t n, size_t d, size_t G,
                          size_t C, cm_rng *rng);

#endif
