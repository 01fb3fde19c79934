/* tg_graph: the search's compact graph state, and the baseline
 * constructions.
 *
 * cm_topo (src/cm_topo.h) is the one graph representation at the
 * boundaries (files, weights, evaluation, igraph); a tg_graph is the
 * search's working copy: an edge list, fixed-length neighbour rows
 * (degrees never change under the degree-preserving double-edge swaps of
 * the search) with each entry's edge slot, and, up to TG_GRAPH_DENSE_MAX
 * nodes, a dense n x n adjacency byte matrix (O(1) edge tests; above it
 * an edge test scans a row, O(degree)). A swap costs O(degree).
 * Constructions (tg_kind_build) go through igraph (tg_igraph.h): ring,
 * regular ring lattice and exponential graph as circulants, 2-D torus and
 * hypercube as square lattices, complete graph, and a random connected
 * d-regular graph from igraph's degree-sequence generator seeded from OUR
 * cm_rng, so one seed always gives one graph.
 */
#ifndef TG_GRAPH_H
#define TG_GRAPH_H

#include <stddef.h>

#include "cm_rng.h"
#include "cm_status.h"
#include "cm_topo.h"

/* Largest n of every learned variant (the dense eigensolver, n_eff,
 * the directed and the data-aware searches hold n x n matrices). */
#define TG_MAX_NODES 4096
/* Largest n topogen learns at all: the undirected search with a spectral
 * objective (ratio, gap, slem-mh) on the sparse eigensolver, O(n) memory
 * per restart besides the Lanczos vectors (tg_search_run checks the
 * rest). 16,384 nodes take minutes (docs/topo/search.md). */
#define TG_MAX_LEARNED 65536

/* Largest n of the constructions (every kind but learned) and of the
 * time-varying kinds: the file format's limit (their spectra are sparse
 * above 2,048 nodes, cm_shiftinv); a kind whose edge count would pass
 * CM_TOPO_MAX_EDGES (complete, large d) is refused too. */
#define TG_MAX_BUILD CM_TOPO_MAX_NODES

typedef enum {
    TG_KIND_LEARNED,     /* simulated annealing (tg_search) */
    TG_KIND_RRL,         /* regular ring lattice, i ~ i+-1..i+-d/2 (+n/2) */
    TG_KIND_RING,        /* cycle */
    TG_KIND_TORUS,       /* 2-D torus a x b, a, b >= 3 */
    TG_KIND_HYPERCUBE,   /* n = 2^k, degree k */
    TG_KIND_EXPONENTIAL, /* i ~ i +- 2^k for 2^k < n */
    TG_KIND_RANDOM,      /* random connected d-regular */
    TG_KIND_COMPLETE     /* all pairs */
} tg_kind;

/* Largest n with the dense adjacency matrix (16 MiB at 4,096). */
#define TG_GRAPH_DENSE_MAX 4096

typedef struct {
    size_t n;            /* nodes 0..n-1 */
    size_t m;            /* undirected edges */
    size_t *eu, *ev;     /* [m] endpoints of edge k (eu[k] != ev[k]) */
    unsigned char *adj;  /* [n*n] adj[i*n+j] = 1 iff i ~ j; NULL above
                            TG_GRAPH_DENSE_MAX nodes */
    size_t *off;         /* [n+1] row offsets into nb; degree of i is
                            off[i+1] - off[i] */
    size_t *nb;          /* [2m] neighbours of i in nb[off[i] .. off[i+1]) */
    size_t *ne;          /* [2m] ne[p]: the slot in eu/ev of edge i-nb[p] */
    unsigned *seen;      /* [n] scratch of tg_graph_swap_connected */
    size_t *queue;       /* [n] its queues */
    unsigned stamp;      /* its current mark */
} tg_graph;

/* Sets every field to empty. */
void tg_graph_init(tg_graph *g);

/* Frees what g owns and re-initializes it. Accepts NULL. */
void tg_graph_destroy(tg_graph *g);

/* Builds g (initialized; old content destroyed) on n nodes from m edges.
 * CM_EINVAL on a self-loop, a duplicate edge or an id >= n. O(n^2 + m). */
cm_status tg_graph_from_edges(tg_graph *g, size_t n, size_t m,
                              const size_t *eu, const size_t *ev);

/* Unweighted cm_topo with g's edges (t initialized). O(m log m). */
cm_status tg_graph_to_topo(const tg_graph *g, cm_topo *t);

/* tg_graph from a topology's edges, ignoring weights (the one conversion
 * from the boundary representation). */
cm_status tg_graph_from_topo(tg_graph *g, const cm_topo *t);

/* Degree of node i. */
static inline size_t tg_graph_degree(const tg_graph *g, size_t i)
{
    return g->off[i + 1] - g->off[i];
}

/* *connected = 1 when every node reaches every other (n <= 1 counts),
 * else 0. CM_ENOMEM (then *connected is 0 and means nothing). O(n + m). */
cm_status tg_graph_connected(const tg_graph *g, int *connected);

/* After tg_graph_swap(g, a, b, c, d) of a connected g: 1 when g is still
 * connected. It is iff a still reaches b (every node reached a, b, c or
 * d before, and a ~ c, b ~ d now), which a BFS from both ends finds, the
 * side with fewer nodes growing first: O(nodes reached), a few hundred
 * for an expander, O(n + m) at worst. */
int tg_graph_swap_connected(tg_graph *g, size_t a, size_t b);

/* 1 when i ~ j. O(1) with the matrix, else O(degree of i). */
int tg_graph_has_edge(const tg_graph *g, size_t i, size_t j);

/* The swap (a,b),(c,d) -> (a,c),(b,d) in place, for edges a~b and c~d with
 * a,b,c,d distinct and a!~c, b!~d (caller checks: tg_graph_swap_ok).
 * Degrees are kept. tg_graph_swap(g, a, c, b, d) undoes it. O(degree). */
void tg_graph_swap(tg_graph *g, size_t a, size_t b, size_t c, size_t d);

/* 1 when tg_graph_swap(g, a, b, c, d) is legal: a~b, c~d, all distinct,
 * no resulting multi-edge. O(1). */
int tg_graph_swap_ok(const tg_graph *g, size_t a, size_t b, size_t c,
                     size_t d);

/* Parses a --kind value. CM_EINVAL with a message listing the kinds. */
cm_status tg_kind_parse(const char *s, tg_kind *kind);

/* The kind's name as parsed by tg_kind_parse. */
const char *tg_kind_name(tg_kind kind);

/* Checks (n, d) for a kind before any work; messages name the flag (-n,
 * -d) and say what is required: n <= TG_MAX_LEARNED for learned, else
 * n <= TG_MAX_BUILD and at most CM_TOPO_MAX_EDGES edges; n >= 2 for ring,
 * complete, hypercube and exponential, n >= 3 otherwise; for
 * learned/random/rrl 2 <= d < n and n*d even; hypercube n a power of
 * two; torus n = a*b with a, b >= 3. d is ignored by ring, torus,
 * hypercube, exponential and complete, whose degree follows from n.
 * CM_EINVAL on failure. */
cm_status tg_kind_check(tg_kind kind, size_t n, size_t d);

/* The torus side a (a <= b, a*b = n, a, b >= 3, a as close to sqrt(n) as
 * possible), or 0 when there is none. */
size_t tg_torus_side(size_t n);

/* Builds a baseline of the given kind into t (initialized; old content
 * destroyed), unweighted, through igraph; TG_KIND_LEARNED gives the ring
 * lattice the search may start from. rng is used only by TG_KIND_RANDOM
 * (one draw seeds igraph). Checks tg_kind_check first. O(n + m) (random:
 * igraph's Viger-Latapy up to TG_IGRAPH_VL_MAX nodes, superlinear; above
 * it stub matching, O(m) a draw). */
cm_status tg_kind_build(cm_topo *t, tg_kind kind, size_t n, size_t d,
                        cm_rng *rng);

/* tg_kind_build into a tg_graph (g initialized). O(n d^2 + m) for the
 * ring lattice (no n x n scratch), O(n^2 + m) for the others. The ring
 * lattice (rrl, and learned's start) is built here without igraph, its
 * edges in the order the search's trajectories depend on (the same graph
 * as tg_kind_build's, edges in another order). */
cm_status tg_graph_build(tg_graph *g, tg_kind kind, size_t n, size_t d,
                         cm_rng *rng);

/* The edges of the ring lattice of degree d on nodes 0..s-1, i ~
 * i+1..i+d/2 (and i+s/2 for odd d), each once as a < b, in the order
 * i = 0..s-1, k = 1..d/2 (so (0, 1) comes first), into u, v (room for
 * s (d/2 + 1) edges); a pair made again by a later slot (small s, or the
 * s/2 offset) and self-loops are left out. Returns the edge count.
 * O(s d^2) time, no scratch memory. */
size_t tg_ring_lattice_edges(size_t s, size_t d,
                             size_t *u, size_t *v);

/* A veto on one legal swap a-b, c-e -> a-c, b-e of tg_graph_shuffle:
 * asked with commit 0 before the swap (return 0 to skip it), told with
 * commit 1 once the swap is kept (return value ignored). */
typedef int (*tg_swap_filter)(void *ctx, size_t a, size_t b, size_t c,
                              size_t e, int commit);

/* 10*m random double-edge swaps of a connected g (at most 100x as many
 * tries) that keep it simple and connected and that allow (NULL: any)
 * accepts, drawn from rng. Deterministic for rng's state. Per try
 * O(degree) plus tg_graph_swap_connected's BFS. */
void tg_graph_shuffle(tg_graph *g, cm_rng *rng, tg_swap_filter allow,
                      void *ctx);

/* The search's random start: the ring lattice, then 10*m random
 * double-edge swaps that keep the graph simple and connected, drawn from
 * rng (a Markov chain on our generator, so a restart's start depends only
 * on its own stream). Deterministic for rng's state. */
cm_status tg_graph_random_regular(tg_graph *g, size_t n, size_t d,
                                  cm_rng *rng);

#endif
