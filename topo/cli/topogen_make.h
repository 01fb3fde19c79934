/* topogen_make: what `topogen` does between parsing and printing: build or
 * learn the graph of a topogen_config, weight it, compute its spectrum and
 * the file header that records the settings, and write it in any format.
 * Shared by topogen's main (topo/cli/topogen.c) and by libtopogen's public
 * API (topo/api/), so a graph learned through the library is the file
 * `topogen` writes for the same settings, byte for byte. Prints nothing.
 */
#ifndef TOPOGEN_MAKE_H
#define TOPOGEN_MAKE_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "tg_fdla.h"
#include "tg_neff_weights.h"
#include "tg_search.h"
#include "tg_seq.h"
#include "topogen_cli.h"

/* A built topology and the figures its header records. */
typedef struct {
    cm_topo t;              /* the weighted graph (static kinds) */
    cm_topo_seq seq;        /* the rounds (time-varying kinds; else empty) */
    tg_search_result res;   /* the search's figures (learned; else zero) */
    tg_fdla_result fr;      /* FDLA's certificate (--weights fdla) */
    tg_neff_weights_result nr; /* --weights neff / neff-alpha: certificate */
    tg_seq_eval se;         /* time-varying: period, norm, messages */
    double l2, ln, slem;    /* Laplacian extremes and SLEM (static kinds) */
    char settings[1024];    /* the settings line (resolved values) */
    char comment[1792];     /* the whole header comment */
    char labline[512];      /* set by the caller before topogen_make: the
                               --labels identity appended to the settings
                               line (topogen_data_header_line), or "" */
} topogen_made;

/* Empties m. */
void topogen_made_init(topogen_made *m);

/* Frees what m owns. Accepts NULL. */
void topogen_made_destroy(topogen_made *m);

/* Replaces the search's automatic settings by the values they resolve to,
 * so that the header records them (the search then runs the same way). */
void topogen_resolve_defaults(tg_search_opts *o);

/* Builds c's graph into m (initialized): learns it (c->search; progress
 * and stop as set there; automatic settings resolved in c->search) or
 * builds the kind, sets the weights, computes l2, ln, slem and the
 * header; time-varying kinds fill m->seq and m->se. CM_OK or the
 * library's status and message; on failure after a search, m->t holds
 * nothing usable. Cost: the search's, plus O(n^3) for the spectrum. */
cm_status topogen_make(topogen_config *c, topogen_made *m);

/* Writes m to path ("-" stdout) atomically in format f (time-varying:
 * edge list only), with the header m->comment (none for ncol; GraphML and
 * GML carry the figures as graph attributes). */
cm_status topogen_made_write(const topogen_config *c, const topogen_made *m,
                             const char *path, cm_topo_format f);

#endif
