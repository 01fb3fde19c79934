/* cm_topo_doc: readers for whole-document topology formats, GML and
 * GraphML (private to src/topo/cm_topo*.c; reached through cm_topo_read).
 *
 * GraphML is parsed by libxml2 (cm_topo_graphml.c), GML by a small strict
 * reader of our own (cm_topo_gml.c: GML is not XML, and igraph's reader
 * would link igraph into dpsgd-train). Both refuse a document they cannot
 * read whole: truncated, unbalanced, with text after the graph, or an XML
 * error of any kind, naming the file and line. Both read into the same
 * accumulator (cm_topo_doc_acc) and number the nodes the same way:
 * integer labels (GML `label` or `id`, GraphML ids "n<k>" or "<k>") when
 * every node has one (then in sorted order of those numbers: 0..N-1 stay
 * as written); else the order of appearance. An integer id or label at or
 * beyond CM_TOPO_MAX_NODES is refused with that limit's message. Edge
 * weights come from the edge attribute "weight" (GraphML: a <key> for
 * edges or all, declared anywhere in the document, with its <default>
 * when an edge has no <data> for it); absent: unweighted. A directed
 * document (GraphML edgedefault="directed" or directed="true" on an edge,
 * GML `directed 1`) is read when every arc i->j has its reverse j->i with
 * the same weight, i.e. when it is an undirected graph written as a
 * digraph; otherwise it is refused naming the arc.
 */
#ifndef CM_TOPO_DOC_H
#define CM_TOPO_DOC_H

#include <stdio.h>

#include "cm_status.h"
#include "cm_topo_rec.h"

typedef struct {
    char *key;     /* node key as written (owned) */
    size_t num;    /* node number, 0..n-1 once numbered */
    long long lab; /* integer label, or -1 */
    size_t line;   /* line of the node */
} cm_topo_doc_node;

typedef struct {
    char *src, *dst; /* node keys (owned) */
    double w;        /* weight or NAN */
    size_t line;     /* line of the edge */
    int directed;    /* 1: an arc src -> dst that needs its reverse */
} cm_topo_doc_edge;

typedef struct {
    cm_topo_doc_node *nodes;
    size_t nn, ncap;
    cm_topo_doc_edge *edges;
    size_t ne, ecap;
} cm_topo_doc_acc;

/* Frees what g owns (g itself is the caller's). */
void cm_topo_doc_acc_free(cm_topo_doc_acc *g);

/* Appends a node (key copied; lab -1 or an integer label) or an edge
 * (keys copied). CM_EFORMAT beyond the limits, CM_ENOMEM; messages name
 * path and line. */
cm_status cm_topo_doc_add_node(cm_topo_doc_acc *g, const char *path,
                               size_t line, const char *key, long long lab);
cm_status cm_topo_doc_add_edge(cm_topo_doc_acc *g, const char *path,
                               size_t line, const char *src, const char *dst,
                               double w, int directed);

/* The integer of "123" or "n123" (igraph's and networkx's GraphML ids):
 * >= 0; -1 when s is not of that form; -2 when it is, but the integer is
 * at or beyond CM_TOPO_MAX_NODES. */
long long cm_topo_doc_int_key(const char *s);

/* Reads the rest of fp into a NUL-terminated buffer (*out, *len; the
 * caller frees *out). A regular file larger than CM_TOPO_MAX_BYTES is
 * refused from its size before any byte is read; a stream is refused as
 * soon as it passes the limit. CM_EFORMAT (limit, NUL byte), CM_EIO,
 * CM_ENOMEM. O(size). */
cm_status cm_topo_doc_slurp(FILE *fp, const char *path, char **out,
                            size_t *len);

/* Numbers the nodes (rules above), checks directed arcs, and turns the
 * edges into records v; *n the node count. Sorts g->nodes by key.
 * CM_EFORMAT naming path and line. O(N log N + m log m). */
cm_status cm_topo_doc_finish(cm_topo_doc_acc *g, const char *path,
                             cm_topo_recvec *v, size_t *n);

/* Reads fp (positioned at the first non-blank byte, line0 newlines into
 * the file) into edge records v and the node count *n. CM_EFORMAT naming
 * path and line; CM_ENOMEM. O(size + m log m). */
cm_status cm_topo_read_gml(FILE *fp, const char *path, size_t line0,
                           cm_topo_recvec *v, size_t *n);

/* The same for GraphML (libxml2: no network, no DTD, no entities). */
cm_status cm_topo_read_graphml(FILE *fp, const char *path, size_t line0,
                               cm_topo_recvec *v, size_t *n);

#endif
