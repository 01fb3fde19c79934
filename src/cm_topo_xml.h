/* cm_topo_xml: readers for GML and GraphML topology files (private to
 * src/cm_topo*.c; reached through cm_topo_read).
 *
 * Small, tolerant readers of what igraph and networkx write, so that
 * dpsgd-train (which never links igraph) reads the same files topogen
 * writes. Node numbers: integer labels (GML `label`, GraphML ids "n<k>" or
 * "<k>") when every node has one and they are 0..N-1; else the nodes in
 * sorted order of those numbers, or of appearance. Edge weights come from
 * the edge attribute "weight" (absent: unweighted). Directedness is
 * ignored: an edge listed both ways must carry one weight.
 */
#ifndef CM_TOPO_XML_H
#define CM_TOPO_XML_H

#include <stdio.h>

#include "cm_status.h"
#include "cm_topo_rec.h"

/* Reads fp (positioned at the first non-blank byte, line0 newlines into
 * the file) into edge records v and the node count *n. CM_EFORMAT naming
 * path and line; CM_ENOMEM. O(size + m log m). */
cm_status cm_topo_read_gml(FILE *fp, const char *path, size_t line0,
                           cm_topo_recvec *v, size_t *n);

/* The same for GraphML. */
cm_status cm_topo_read_graphml(FILE *fp, const char *path, size_t line0,
                               cm_topo_recvec *v, size_t *n);

#endif
