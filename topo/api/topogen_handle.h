/* topogen_handle: the inside of libtopogen's opaque handle, shared by
 * topo/api/topogen_api.c (learning, files) and topogen_measure.c (the
 * graph, W and its measures). Internal: not installed.
 */
#ifndef TOPOGEN_HANDLE_H
#define TOPOGEN_HANDLE_H

#include <gsl/gsl_errno.h>
#include <igraph.h>

#include "cm_lapack.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "topogen.h"
#include "topogen_config.h"
#include "topogen_make.h"

struct topogen_topology {
    topogen_config cfg; /* learned: the settings (made = 1) */
    int made;           /* 1: m holds a learned or built topology */
    topogen_made m;     /* learned/built: graph (or rounds) and header */
    cm_topo_seq seq;    /* read from a file (made = 0) */
    char *header;       /* read: the file's leading comment lines */
    char *raw;          /* directed kinds: the file topogen wrote */
    size_t raw_len;
    char **words;       /* learned: copies of the option strings cfg
                           points into (n_words, some NULL) */
    size_t n_words;
};

/* The library's one mutex (recursive; topogen_api.c): every entry point
 * that changes process-wide state holds it from topogen_enter to
 * topogen_leave, so calls from several threads run one at a time. */
void topogen_lock(void);
void topogen_unlock(void);

/* The state an entry point changes while it runs (topogen_enter takes
 * the lock, turns the aborting handlers off and pins OpenBLAS;
 * topogen_leave restores and unlocks). */
typedef struct {
    gsl_error_handler_t *gsl;
    igraph_error_handler_t *ig;
    igraph_warning_handler_t *igw;
    int blas;
} guard;

static inline void topogen_enter(guard *g)
{
    topogen_lock();
    g->gsl = gsl_set_error_handler_off();
    g->ig = igraph_set_error_handler(igraph_error_handler_ignore);
    g->igw = igraph_set_warning_handler(igraph_warning_handler_ignore);
    g->blas = openblas_get_num_threads();
    openblas_set_num_threads(1);
}

static inline topogen_status topogen_leave(const guard *g, cm_status st)
{
    gsl_set_error_handler(g->gsl);
    igraph_set_error_handler(g->ig);
    igraph_set_warning_handler(g->igw);
    openblas_set_num_threads(g->blas);
    topogen_unlock();
    return (topogen_status)st;
}

/* Round r (mod P) of t. */
static inline const cm_topo *topogen_round_of(const topogen_topology *t, size_t r)
{
    if (t->made && t->cfg.kind->family != TOPOGEN_FAM_SEQ)
        return &t->m.t;
    const cm_topo_seq *s = t->made ? &t->m.seq : &t->seq;
    return &s->round[r % s->period];
}

#endif
