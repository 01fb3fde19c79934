/* topogen_groups: `topogen eval FILE --groups G`, the cut of a graph
 * whose nodes form G equal groups of contiguous ids (tg_groups.h); part
 * of topogen's main (it prints). */
#ifndef TOPOGEN_GROUPS_H
#define TOPOGEN_GROUPS_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"
#include "topogen_json.h"

typedef struct {
    size_t groups;    /* G */
    size_t size;      /* nodes per group, n/G */
    size_t edges;     /* edges of the graph */
    size_t cross;     /* edges between groups */
    size_t *per;      /* [G] edges leaving each group (owned) */
} topogen_cut;

/* Computes the cut of t in G groups into c (c->per malloc'ed; free with
 * topogen_cut_destroy). CM_EINVAL naming --groups and the file when G is
 * 0, above n or does not divide n; CM_ENOMEM. O(m + G). */
cm_status topogen_cut_eval(const cm_topo *t, size_t G, const char *file,
                           topogen_cut *c);

/* Frees c->per. Accepts NULL. */
void topogen_cut_destroy(topogen_cut *c);

/* Prints c as text lines (groups, cross_edges with the fraction of all
 * edges, cross_per_group), or as JSON members followed by a comma. */
void topogen_cut_print(const topogen_cut *c, int json);

/* The cut as members of the --json object o (groups, cross_edges,
 * cross_fraction, cross_per_group). */
void topogen_cut_json(const topogen_cut *c, json_t *o, int *bad);

#endif
