/* tg_igraph: the one adapter between igraph and our topology value, and
 * what topogen uses igraph for: the baseline constructions, the diameter
 * and the GraphML / GML writers.
 *
 * igraph 0.10 (Debian's build has IGRAPH_THREAD_SAFE 0): call these from
 * one thread only. Its error handler must be set to return (main() does
 * so); codes become cm_status here. Constructions that draw random numbers
 * seed igraph's default generator from OUR cm_rng first, so one seed
 * always gives one graph.
 */
#ifndef TG_IGRAPH_H
#define TG_IGRAPH_H

#include <stddef.h>
#include <stdio.h>

#include <igraph.h>

#include "cm_rng.h"
#include "cm_status.h"
#include "cm_topo.h"

/* igraph_t (undirected, simplified: no loops or multi-edges) -> cm_topo
 * (initialized; old content destroyed), unweighted. O(m log m). */
cm_status tg_igraph_to_topo(const igraph_t *g, cm_topo *t);

/* cm_topo -> igraph_t (uninitialized; caller igraph_destroy()s it); a
 * weighted t gets the edge attribute "weight" (installs igraph's C
 * attribute handler if none is set). O(n + m). */
cm_status tg_igraph_from_topo(const cm_topo *t, igraph_t *g);

/* Writes a weighted or unweighted t as GraphML or GML through igraph's
 * writers to fp, with the graph attributes keys[k] = vals[k] (string
 * valued; nattr of them) holding the header's settings. CM_EINVAL for
 * another format, CM_EIO on a write error. O(n + m). */
cm_status tg_igraph_write(const cm_topo *t, FILE *fp, cm_topo_format f,
                          const char *const *keys, const char *const *vals,
                          size_t nattr);

/* Longest shortest path, in hops (INFINITY when disconnected), via
 * igraph_diameter. O(n m). */
cm_status tg_igraph_diameter(const cm_topo *t, double *diam);

/* Circulant graph on n nodes: i ~ i + s mod n for each of the k shifts
 * (duplicates and s = n/2 folded), via igraph_circulant. */
cm_status tg_igraph_circulant(cm_topo *t, size_t n, const size_t *shifts,
                              size_t k);

/* Periodic (torus) or open square lattice with the given side lengths,
 * via igraph_square_lattice: node index x0 + dims[0] (x1 + dims[1] (...)).
 * A hypercube is the open lattice of k 2s. */
cm_status tg_igraph_lattice(cm_topo *t, const size_t *dims, size_t k,
                            int periodic);

/* Complete graph on n nodes, via igraph_full. */
cm_status tg_igraph_full(cm_topo *t, size_t n);

/* Above this order random regular graphs come from stub matching
 * (igraph's Viger-Latapy takes ~30 s at 10^6 nodes and grows faster than
 * n; stub matching ~2 s). */
#define TG_IGRAPH_VL_MAX 100000

/* A random connected simple d-regular graph on n nodes (n d even,
 * d < n), via igraph_degree_sequence_game, igraph's generator seeded from
 * one draw of rng: the Viger-Latapy method up to TG_IGRAPH_VL_MAX nodes
 * (so seeds keep their graphs), above it stub matching with local
 * restarts (IGRAPH_DEGSEQ_FAST_HEUR_SIMPLE, not exactly uniform), the
 * first connected one of 8 draws, else Viger-Latapy. */
cm_status tg_igraph_random_regular(cm_topo *t, size_t n, size_t d,
                                   cm_rng *rng);

#endif
