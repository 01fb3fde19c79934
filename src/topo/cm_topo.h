/* cm_topo: the topology file, the contract between topogen and dpsgd-train.
 *
 * A topology is an undirected graph on nodes 0..n-1, optionally with a
 * symmetric mixing matrix W stored as one weight per edge (W_ij = W_ji),
 * or a directed one (`directed=1`: see "Directed topologies" below).
 * The default text format (an edge list every graph tool reads):
 *
 *     # topogen 2 n=64 d=4 kind=learned ...     comments; a token n=N fixes n
 *     0 17 0.2495                               i j w: edge, W_ij = W_ji = w
 *
 * Self weights are implied, W_ii = 1 - sum_j W_ij (summed in ascending j);
 * an explicit `i i w` line (older files) still sets W_ii, and then the row
 * must sum to 1. Plain `i j` edge lists (networkx write_edgelist, with or
 * without a trailing `{}` / `{'weight': w}` dict), igraph's ncol output,
 * GML and GraphML (detected from the first non-blank bytes; see
 * cm_topo_doc.h: libxml2 for GraphML) are read too, and 1-based edge lists are detected (no
 * node 0, no n= token) or forced (cm_topo_read_opts.base). A reader
 * accepts an edge listed in both directions only with identical weights;
 * weights are all present or all absent. cm_topo_validate (cm_mixing.h)
 * then checks what makes a file usable for gossip. This module never
 * links igraph.
 */
#ifndef CM_TOPO_H
#define CM_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cm_status.h"
#include "cm_topo_header.h"

/* Largest node count a file may declare or imply; node ids run from 0 to
 * CM_TOPO_MAX_NODES - 1, so every accepted file round-trips. */
#define CM_TOPO_MAX_NODES 1000000

/* Largest edge count a file may hold (so that 2m ids fit any index). */
#define CM_TOPO_MAX_EDGES 100000000

/* Largest topology file read, in bytes (GraphML, GML, edge lists and
 * sequence files alike): checked on the file's size before any byte is
 * read, and on a stream while reading. 2 GiB - 1, libxml2's int bound. */
#define CM_TOPO_MAX_BYTES 2147483647

/* Rows of W must sum to 1 within this tolerance. */
#define CM_TOPO_ROW_TOL 1e-9

typedef struct {
    size_t n;       /* number of nodes */
    size_t m;       /* number of undirected edges */
    size_t *ei;     /* [m] smaller endpoint; edges sorted by (ei, ej) */
    size_t *ej;     /* [m] larger endpoint, ei[k] < ej[k] */
    double *ew;     /* [m] W_ij of each edge, or NULL when unweighted */
    double *self;   /* [n] W_ii, or NULL when unweighted */
    size_t *off;    /* [n+1] CSR offsets: neighbours of i are
                       adj[off[i] .. off[i+1]), ascending */
    size_t *adj;    /* [2m] neighbour ids */
    double *adj_w;  /* [2m] W_ij matching adj, or NULL when unweighted */
    /* Directed topologies (directed = 1; see "Directed topologies" below).
     * Then m counts arcs, ei[k] -> ej[k] (ei sends, ej receives; sorted
     * by (ei, ej)), ew[k] = W_{ej,ei}, and off/adj/adj_w are the
     * in-neighbour lists (row i of W: i receives from adj[p] with weight
     * adj_w[p]), m entries; self[i] = W_ii. Undirected: all below are
     * 0/NULL and in = out = off/adj. */
    int directed;
    size_t *out_off;  /* [n+1] out-neighbours of i: out_adj[out_off[i] ..
                         out_off[i+1]), ascending */
    size_t *out_adj;  /* [m] receiver ids */
    double *out_w;    /* [m] W_{out_adj[p], i}: the weight the receiver
                         gives i */
    size_t epi_s;     /* > 0: an epidemic topology (no arcs stored; each
                         round's graph is cm_topo_epidemic_draw's) */
    int epi_local;    /* epidemic: 1 EL-Local, 0 EL-Oracle */
    /* lambda_2, lambda_n of L = D - A once computed for this graph
     * (cm_topo_set_weights' laplacian rule records them; the edges never
     * change after a build, and every build starts from cm_topo_init), so
     * the figures asked next (cm_topo_spectra) take them as a value
     * instead of a second eigensolve */
    int lap_known;    /* 1: lap_l2, lap_ln hold them */
    double lap_l2, lap_ln;
} cm_topo;

/* On-disk formats. */
typedef enum {
    CM_FORMAT_AUTO,     /* reader: detect; writer: same as EDGELIST */
    CM_FORMAT_EDGELIST, /* `# header` comments, then `i j w` lines */
    CM_FORMAT_NCOL,     /* `i j w` lines only (igraph's ncol) */
    CM_FORMAT_GRAPHML,  /* GraphML; weights in the edge attribute "weight" */
    CM_FORMAT_GML       /* GML; weights in the edge key "weight" */
} cm_topo_format;

/* Node numbering of an edge list. */
typedef enum {
    CM_BASE_AUTO, /* 0-based, unless no id is 0 and no n= is declared */
    CM_BASE_0,    /* ids are 0..n-1 */
    CM_BASE_1     /* ids are 1..n (subtract one) */
} cm_topo_base;

/* What to read and what was found. */
typedef struct {
    cm_topo_format format; /* in: CM_FORMAT_AUTO to detect */
    cm_topo_base base;     /* in: numbering of edge lists */
    cm_topo_format found;  /* out: the format read */
    int one_based;         /* out: 1 when ids were shifted down by one
                              (forced, or detected: the caller should say
                              so) */
    size_t self_lines;     /* out: explicit `i i w` self weights read */
    cm_topo_header *header; /* out, optional: the file's `#` header
                              (cm_topo_header.h), filled while reading;
                              the caller initializes and destroys it.
                              NULL: not kept */
} cm_topo_read_opts;

/* Sets every field to empty. */
void cm_topo_init(cm_topo *t);

/* Frees what t owns and re-initializes it. Accepts NULL. */
void cm_topo_destroy(cm_topo *t);

/* Replaces t's weight arrays (if any) by fresh, uninitialised ones of the
 * weighted layout: ew[m], self[n], adj_w[2m] (each with room for one more,
 * never malloc(0)). The one allocation of weights: for a caller that
 * fills them itself or receives them (dt_topo_load). On CM_ENOMEM t is
 * unchanged. O(n + m). */
cm_status cm_topo_alloc_weights(cm_topo *t);

/* Builds an unweighted topology on n nodes from m edges (any order, either
 * orientation). Rejects self-loops, duplicate edges and ids >= n with
 * CM_EINVAL. t must be initialized; its old content is destroyed. O(m log m). */
cm_status cm_topo_from_edges(cm_topo *t, size_t n, size_t m,
                             const size_t *ei, const size_t *ej);

/* Reads a topology file ("-" is stdin) with default options (detect the
 * format and the numbering). Checks syntax and local consistency only;
 * messages name path and line. CM_EIO when it cannot be opened,
 * CM_EFORMAT when malformed or beyond the limits above (refused before
 * allocating for them). O(m log m). */
cm_status cm_topo_read(cm_topo *t, const char *path);

/* cm_topo_read with options (o may be NULL for the defaults; its out
 * fields are set on success). */
cm_status cm_topo_read_ex(cm_topo *t, const char *path, cm_topo_read_opts *o);

/* cm_topo_read_ex on an open stream (not closed here): path names it in
 * messages, and line numbers start at first_line + 1, so a section of a
 * larger file (cm_topo_seq) is reported at its place in that file. */
cm_status cm_topo_read_stream(cm_topo *t, FILE *fp, const char *path,
                              size_t first_line, cm_topo_read_opts *o);

/* What a reader checks before reading path ("-" passes): it can be
 * opened, is not a directory, and a regular file is at most
 * CM_TOPO_MAX_BYTES. Cheap (stat, no read): dpsgd-train runs it on rank 0
 * before any rank reads. CM_EIO or CM_EFORMAT naming the path and the
 * limit. */
cm_status cm_topo_file_check(const char *path);

/* Parses "edgelist", "ncol", "graphml", "gml" (and "auto" when allow_auto)
 * for the flag named in messages. CM_EINVAL otherwise. */
cm_status cm_topo_format_parse(const char *s, int allow_auto, const char *flag,
                               cm_topo_format *f);

/* The format's name as parsed by cm_topo_format_parse. */
const char *cm_topo_format_name(cm_topo_format f);

/* Writes the comment (may hold several lines; each gets "# " if it lacks
 * a leading '#'; NULL for none), then for each node i the lines
 * `i j w_ij` for neighbours j > i ascending (%.17g); an unweighted t gets
 * `i j` lines only. Self weights are implied, W_ii = 1 - sum_j W_ij summed
 * in CSR order (as cm_topo_set_weights computes them, and as a reader
 * recomputes them bit for bit), so no `i i w` line is written, except for
 * a node whose W_ii differs from that value in any bit: then its line
 * keeps the file exact. */
cm_status cm_topo_write(const cm_topo *t, FILE *fp, const char *comment);

/* cm_topo_write to path atomically (temporary file + rename); "-" writes
 * to stdout. On error nothing is left at path. */
cm_status cm_topo_save(const cm_topo *t, const char *path,
                       const char *comment);

/* Degree of node i (in-degree of a directed topology). */
static inline size_t cm_topo_degree(const cm_topo *t, size_t i)
{
    return t->off[i + 1] - t->off[i];
}

/* ---- Directed topologies ---------------------------------------------
 *
 * A directed file has the header token `directed=1` in a comment line;
 * each line `i j w` is the arc i -> j: i sends its model, j receives it
 * with weight w, so W_ji = w in x <- W x (as networkx reads it into a
 * DiGraph and BlueFog uses it). Self weights are implied,
 * W_jj = 1 - sum_i W_ji summed over j's in-neighbours ascending (an
 * explicit `j j w` line sets it); an unweighted directed file gets
 * BlueFog's uniform weights W_ji = W_jj = 1/(in-degree(j) + 1). The
 * reader refuses self-loops without weights, duplicate arcs, ids out of
 * range, and a W that is not doubly stochastic (rows: what a receiver
 * takes sums to 1; columns: what a sender gives sums to 1), naming the
 * node and a line. An epidemic topology is a header only:
 * `# directed=1 n=N kind=epidemic s=S local=0|1`, no arcs. */

/* Out-neighbours of i: *adj (receivers, ascending) and *w (W_{recv,i});
 * *count of them. Works for undirected topologies too (out = in). */
static inline void cm_topo_out(const cm_topo *t, size_t i, const size_t **adj,
                               const double **w, size_t *count)
{
    if (t->directed) {
        *adj = t->out_adj + t->out_off[i];
        *w = t->out_w ? t->out_w + t->out_off[i] : NULL;
        *count = t->out_off[i + 1] - t->out_off[i];
    } else {
        *adj = t->adj + t->off[i];
        *w = t->adj_w ? t->adj_w + t->off[i] : NULL;
        *count = t->off[i + 1] - t->off[i];
    }
}

/* Builds a weighted directed topology on n nodes from m arcs
 * src[k] -> dst[k] with W_{dst,src} = w[k] (any order); w NULL gives
 * uniform receiver weights W_ji = W_jj = 1/(in-degree(j) + 1), else self
 * weights are implied, W_jj = 1 - sum over in-neighbours ascending.
 * CM_EINVAL for ids >= n, self-loops and duplicate arcs (naming the
 * first); W is not checked (cm_topo_check_stochastic does). t must be
 * initialized; its old content is destroyed. O(n + m log m). */
cm_status cm_topo_from_arcs(cm_topo *t, size_t n, size_t m, const size_t *src,
                            const size_t *dst, const double *w);

/* CM_OK when every row and every column of the directed t's W sums to 1
 * within CM_TOPO_ROW_TOL (compensated sums), else CM_ETOPO naming path,
 * the node and whether its row (what it receives) or column (what it
 * sends) fails. O(n + m). */
cm_status cm_topo_check_doubly(const cm_topo *t, const char *path);

/* An epidemic topology (Epidemic Learning, de Vos et al. 2023), round
 * `round` of a run seeded `seed`, as a weighted directed topology on n
 * nodes into t (a pure function of its arguments: every rank and topogen
 * draw the same graph without files). EL-Oracle (local = 0): a random
 * s-regular digraph without self-loops (every node sends to s distinct
 * others and receives from s), W_ji = W_jj = 1/(s + 1), doubly
 * stochastic. EL-Local (local = 1): every node picks s distinct
 * receivers uniformly; a receiver j averages what it gets, W_ji = W_jj =
 * 1/(in-degree(j) + 1) (row stochastic only). Needs 1 <= s <= n - 1
 * (CM_EINVAL otherwise); CM_ENOMEM. The draw uses its own cm_rng stream
 * (seed, round), unrelated to the workers' streams. O(n s^2) expected. */
cm_status cm_topo_epidemic_draw(cm_topo *t, size_t n, size_t s, int local,
                                uint64_t seed, uint64_t round);

/* The undirected, unweighted graph of t's arcs (i ~ j when i -> j or
 * j -> i) into u (initialized; old content destroyed), e.g. to partition
 * or search it; an undirected t is copied without weights. CM_ENOMEM.
 * O(m log m). */
cm_status cm_topo_support(const cm_topo *t, cm_topo *u);

/* 1 when t is an epidemic topology (its arcs change every round). */
static inline int cm_topo_is_epidemic(const cm_topo *t)
{
    return t->epi_s > 0;
}

/* Smallest and largest degree (0, 0 for n = 0). */
void cm_topo_degree_range(const cm_topo *t, size_t *dmin, size_t *dmax);

/* The one edge validator: ids < n, no self-loop, no duplicate (either
 * orientation). CM_EINVAL naming the first bad edge. O(m log m). */
cm_status cm_topo_check_edges(size_t n, size_t m, const size_t *ei,
                              const size_t *ej);

/* The one breadth-first search, over any CSR adjacency (neighbours of i in
 * adj[off[i] .. off[i+1])): labels components as cm_topo_components does.
 * CM_ENOMEM. O(n + m). */
cm_status cm_topo_csr_components(size_t n, const size_t *off,
                                 const size_t *adj, size_t *comp,
                                 size_t *count);

/* The one dense Laplacian fill: a (n x n, symmetric so row- and
 * column-major agree) = D - A of a CSR adjacency. O(n^2). */
void cm_topo_csr_laplacian(size_t n, const size_t *off, const size_t *adj,
                           double *a);

/* Connected components: comp[i] (caller-owned [n], may be NULL) gets the
 * component of node i, numbered from 0 in order of the smallest node; the
 * count goes to *count (0 for n = 0). CM_ENOMEM. O(n + m). */
cm_status cm_topo_components(const cm_topo *t, size_t *comp, size_t *count);

/* CM_OK when connected, else CM_ETOPO naming path, the number of
 * components and an unreached or isolated node. O(n + m). */
cm_status cm_topo_check_connected(const cm_topo *t, const char *path);

/* The one edge lookup: the index k of edge {i, j} (i < j) in t's sorted
 * edge list (ei[k] = i, ej[k] = j), or the insertion point (possibly m)
 * when t has no such edge. Binary search, O(log m). */
size_t cm_topo_edge_index(const cm_topo *t, size_t i, size_t j);

#endif
