/* cm_topo_rec: the readers' shared intermediate form (private to
 * src/topo/cm_topo*.c).
 *
 * Every reader (edge list, GML, GraphML) turns each edge or self-weight
 * statement into a record (i, j, w, line); cm_topo_from_recs then sorts
 * them by undirected edge, so that duplicates, conflicts and mixed
 * weighted/unweighted statements are reported with the line numbers at
 * fault, and builds the topology. One place checks the rules, whatever
 * the syntax.
 */
#ifndef CM_TOPO_REC_H
#define CM_TOPO_REC_H

#include <stddef.h>

#include <stdio.h>

#include "cm_topo.h"

typedef struct {
    size_t a, b;   /* endpoints, a <= b (a == b: a self weight) */
    double w;      /* weight, NAN when absent */
    size_t line;   /* 1-based line number */
} cm_topo_rec;

typedef struct {
    cm_topo_rec *r; /* [len] records (owned) */
    size_t len, cap;
} cm_topo_recvec;

/* Appends x; -1 when out of memory or beyond CM_TOPO_MAX_EDGES records. */
int cm_topo_recvec_push(cm_topo_recvec *v, cm_topo_rec x);

/* Builds t from the records (sorted in place) on n nodes: n_decl when
 * has_n (declared on line n_line), else one more than the largest id.
 * base: CM_BASE_1 shifts every id down by one (ids 0 are refused),
 * CM_BASE_AUTO does so when no id is 0 and !has_n (*shifted tells),
 * CM_BASE_0 never. *self_lines counts explicit self weights. Missing self
 * weights of a weighted file are implied, W_ii = 1 - sum_j W_ij in CSR
 * order. CM_EFORMAT naming path and line. */
cm_status cm_topo_from_recs(cm_topo *t, const char *path, cm_topo_recvec *v,
                            size_t n_decl, int has_n, size_t n_line,
                            cm_topo_base base, int *shifted,
                            size_t *self_lines);

/* cm_topo_from_recs for a directed file: records keep their orientation
 * (a sends to b; a == b an explicit self weight), duplicates and
 * unweighted self lines are refused, and W must be doubly stochastic
 * (the message names the node and a line of it). epi_s > 0 makes an
 * epidemic topology (no records allowed). */
cm_status cm_topo_from_arc_recs(cm_topo *t, const char *path,
                                cm_topo_recvec *v, size_t n_decl, int has_n,
                                size_t n_line, cm_topo_base base,
                                int *shifted, size_t *self_lines,
                                size_t epi_s, int epi_local);

/* The header comment: each line of comment (NULL: none) as a `#` line
 * ("# " added unless the line starts with '#'), empty lines dropped. The
 * one loop every writer (cm_topo_write, cm_topo_seq_save) prints it with. */
void cm_topo_write_comment(FILE *fp, const char *comment);

#endif
