/* topogen_make: making the topology of a topogen_config (part of
 * topo/make/): build or learn the graph of its kind (the kind table's
 * maker: topogen_kinds.c), weight it, compute its figures and the file
 * header that records the settings (cm_topo_header_format), and write it
 * in any format. Shared by topogen's main (topo/cli/) and libtopogen's
 * public API (topo/api/), so a graph made through the library is the file
 * `topogen` writes for the same settings, byte for byte. Prints nothing:
 * the figures stay in topogen_made for the command line's summary.
 */
#ifndef TOPOGEN_MAKE_H
#define TOPOGEN_MAKE_H

#include <stddef.h>

#include "cm_labels.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "tg_dcliques.h"
#include "tg_digraph.h"
#include "tg_digraph_search.h"
#include "tg_fdla.h"
#include "tg_hetero.h"
#include "tg_neff_weights.h"
#include "tg_search.h"
#include "tg_seq.h"
#include "tg_stlfw.h"
#include "topogen_config.h"

/* A made topology and the figures its header and summary give. */
typedef struct topogen_made {
    cm_topo t;              /* the weighted graph (undirected kinds) */
    cm_topo_seq seq;        /* the rounds (time-varying kinds; else empty) */
    tg_digraph dg;          /* the directed graph (directed kinds, directed
                               stl-fw; epidemic: no arcs) */
    int directed;           /* 1: dg is the topology, not t */
    tg_search_result res;   /* the search's figures (learned; else zero) */
    tg_fdla_result fr;      /* FDLA's certificate (--weights fdla) */
    tg_neff_weights_result nr; /* --weights neff / neff-alpha: certificate */
    tg_seq_eval se;         /* time-varying: period, norm, messages */
    double l2, ln, slem;    /* Laplacian extremes and SLEM (static kinds;
                               data kinds: slem) */
    const char *catalog;    /* learned ratio runs at n <= 20: the name of
                               the catalogue graph (tg_catalog.h) that beat
                               the search and replaced its graph, or NULL;
                               catalog_energy/search_energy their energies */
    double catalog_energy, search_energy;
    tg_digraph_search_result dres; /* learned --directed: the search */
    tg_stlfw_result sres;   /* stl-fw: the Frank-Wolfe figures */
    tg_dcliques_result cres; /* dcliques: the cliques (cres.clique owned) */
    tg_hetero h, h0;        /* data kinds: H of the graph, and of each node
                               alone (stl-fw) */
    double norm, neff;      /* stl-fw: ||W - J||_2, n_eff(0.951) (NAN above
                               512 nodes) */
    int usage;              /* on failure: 1 when the settings do not fit
                               the data (the command line's exit 2) */
    char settings[1024];    /* the settings line (resolved values) */
    char labels[512];       /* the --labels identity and file ("" none) */
    char *comment;          /* the whole header comment (malloc'ed) */
} topogen_made;

/* Empties m. */
void topogen_made_init(topogen_made *m);

/* Frees what m owns. Accepts NULL. */
void topogen_made_destroy(topogen_made *m);

/* Replaces the search's automatic settings by the values they resolve to,
 * so that the header records them (the search then runs the same way). */
void topogen_resolve_defaults(tg_search_opts *o);

/* Makes c's topology into m (initialized) by its kind's maker: learns it
 * (c->search; progress and stop as set there; automatic settings resolved
 * in c->search; --labels read for the data term) or builds it, sets the
 * weights, computes the figures and the header. CM_OK or the library's
 * status and message (m->usage set when the settings do not fit the
 * data). Cost: the search's, plus O(n^3) for the spectrum. */
cm_status topogen_make(topogen_config *c, topogen_made *m);

/* Writes m to path ("-" stdout) atomically in format f (time-varying and
 * directed: edge list only), with the header m->comment (none for ncol;
 * GraphML and GML carry the figures as graph attributes). */
cm_status topogen_made_write(const topogen_config *c, const topogen_made *m,
                             const char *path, cm_topo_format f);

/* --labels for a search: the counts file c->labels read into *l
 * (initialized), checked against -n (m->usage set when they differ), its
 * proportions (*pi, *pibar: caller frees) and the header's labels identity
 * "IDENTITY file=PATH" in m->labels. CM_OK or the reader's status. */
cm_status topogen_read_labels(const topogen_config *c, topogen_made *m,
                              cm_labels *l, double **pi, double **pibar);

/* The makers of the kind table's families (topogen_kinds.c); each fills
 * m as topogen_make says. */
cm_status topogen_make_learned(topogen_config *c, topogen_made *m);
cm_status topogen_make_static(topogen_config *c, topogen_made *m);
cm_status topogen_make_seq(topogen_config *c, topogen_made *m);
cm_status topogen_make_directed(topogen_config *c, topogen_made *m);
cm_status topogen_make_data(topogen_config *c, topogen_made *m);

#endif
