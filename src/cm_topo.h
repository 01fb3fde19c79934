/* cm_topo: the topology file, the contract between topogen and dpsgd-train.
 *
 * A topology is an undirected graph on nodes 0..n-1, optionally with a
 * symmetric mixing matrix W stored as one weight per edge (W_ij = W_ji) and
 * one self weight per node (W_ii). The text format:
 *
 *     # topogen 1 n=64 d=4 kind=learned ...     comments; a token n=N fixes n
 *     0 0 0.0018                                i i w: self weight W_ii
 *     0 17 0.2495                               i j w: edge, W_ij = W_ji = w
 *
 * Plain `i j` edge lists (networkx write_edgelist, with or without a
 * trailing `{}` / `{'weight': w}` dict) are read too. A reader accepts an
 * edge listed in both directions only with identical weights; weights are
 * all present or all absent. cm_topo_validate then checks what makes a file
 * usable for gossip: connected, and if weighted, rows of W summing to 1
 * within 1e-9 and SLEM(W) < 1. This module never links igraph.
 */
#ifndef CM_TOPO_H
#define CM_TOPO_H

#include <stddef.h>
#include <stdio.h>

#include "cm_status.h"

/* Largest node count a file may declare or imply. */
#define CM_TOPO_MAX_NODES 1000000

/* Rows of W must sum to 1 within this tolerance. */
#define CM_TOPO_ROW_TOL 1e-9

typedef enum {
    CM_WEIGHTS_LAPLACIAN, /* W = I - alpha L, alpha = 2/(lambda_2 + lambda_n) */
    CM_WEIGHTS_MH,        /* W_ij = 1/(1 + max(deg_i, deg_j)) */
    CM_WEIGHTS_MAXDEG     /* W = I - L/(max deg + 1) */
} cm_weight_rule;

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
} cm_topo;

/* Sets every field to empty. */
void cm_topo_init(cm_topo *t);

/* Frees what t owns and re-initializes it. Accepts NULL. */
void cm_topo_destroy(cm_topo *t);

/* Builds an unweighted topology on n nodes from m edges (any order, either
 * orientation). Rejects self-loops, duplicate edges and ids >= n with
 * CM_EINVAL. t must be initialized; its old content is destroyed. O(m log m). */
cm_status cm_topo_from_edges(cm_topo *t, size_t n, size_t m,
                             const size_t *ei, const size_t *ej);

/* Copies src into dst (dst initialized; old content destroyed). */
cm_status cm_topo_copy(cm_topo *dst, const cm_topo *src);

/* Reads a topology file ("-" is stdin). Checks syntax and local
 * consistency only; messages name path and line. CM_EIO when it cannot be
 * opened, CM_EFORMAT when malformed. O(m log m). */
cm_status cm_topo_read(cm_topo *t, const char *path);

/* cm_topo_read on an open stream (not closed here): path names it in
 * messages, and line numbers start at first_line + 1, so a section of a
 * larger file (cm_topo_seq) is reported at its place in that file. */
cm_status cm_topo_read_stream(cm_topo *t, FILE *fp, const char *path,
                              size_t first_line);

/* Checks global rules: every node has an edge and the graph is connected;
 * if weighted, every row of W sums to 1 within CM_TOPO_ROW_TOL and
 * SLEM(W) < 1. Returns CM_ETOPO naming path (used only in the message).
 * O(n^3) for the SLEM when weighted, O(n + m) otherwise. */
cm_status cm_topo_validate(const cm_topo *t, const char *path);

/* cm_topo_validate that also hands back the SLEM it computed for a
 * weighted t (*slem_out; -1 when t is unweighted or on error), so callers
 * need not repeat the O(n^3) eigensolve. slem_out may be NULL. */
cm_status cm_topo_validate_slem(const cm_topo *t, const char *path,
                                double *slem_out);

/* The row rule alone: every row of the weighted t's W sums to 1 within
 * CM_TOPO_ROW_TOL (compensated sums). CM_ETOPO naming path and the row.
 * O(n + m). */
cm_status cm_topo_check_rows(const cm_topo *t, const char *path);

/* cm_topo_read then cm_topo_validate. */
cm_status cm_topo_load(cm_topo *t, const char *path);

/* Writes the comment (may hold several lines; each gets "# " if it lacks
 * a leading '#'; NULL for none), then for each node i the line `i i w_ii`
 * and the lines `i j w_ij` for neighbours j > i ascending (%.17g); an
 * unweighted t gets `i j` lines only. */
cm_status cm_topo_write(const cm_topo *t, FILE *fp, const char *comment);

/* cm_topo_write to path atomically (temporary file + rename); "-" writes
 * to stdout. On error nothing is left at path. */
cm_status cm_topo_save(const cm_topo *t, const char *path,
                       const char *comment);

/* Degree of node i. */
static inline size_t cm_topo_degree(const cm_topo *t, size_t i)
{
    return t->off[i + 1] - t->off[i];
}

/* Smallest and largest degree (0, 0 for n = 0). */
void cm_topo_degree_range(const cm_topo *t, size_t *dmin, size_t *dmax);

/* CM_OK when connected, else CM_ETOPO naming path and an unreached or
 * isolated node. O(n + m). */
cm_status cm_topo_check_connected(const cm_topo *t, const char *path);

/* 1 when every node reaches every other (n <= 1 counts as connected). */
int cm_topo_is_connected(const cm_topo *t);

/* Parses "laplacian", "mh" or "maxdeg". CM_EINVAL otherwise. */
cm_status cm_weight_rule_parse(const char *s, cm_weight_rule *rule);

/* The rule's name as parsed by cm_weight_rule_parse. */
const char *cm_weight_rule_name(cm_weight_rule rule);

/* Replaces t's weights (if any) with the rule's. t must be connected.
 * CM_ETOPO if not; CM_ENUMERIC if the eigensolver fails. O(n^3) for
 * laplacian (dense symmetric eigensolve of L), O(n + m) otherwise. */
cm_status cm_topo_set_weights(cm_topo *t, cm_weight_rule rule);

/* lambda_2 (algebraic connectivity) and lambda_n (largest eigenvalue) of
 * the graph Laplacian L = D - A, ignoring weights. Dense, O(n^3).
 * n = 1 gives 0, 0. */
cm_status cm_topo_laplacian_extremes(const cm_topo *t, double *l2,
                                     double *ln);

/* Second-largest eigenvalue modulus of the weighted t's W:
 * SLEM = || W - 11^T/n ||_2 (equals max(|lambda_2(W)|, |lambda_n(W)|) for a
 * symmetric stochastic W). Dense, O(n^3). CM_EINVAL when unweighted. */
cm_status cm_topo_slem(const cm_topo *t, double *slem);

#endif
