/* topogen_neff: n_eff at the --gamma values of a symmetric topology, a
 * directed graph or a periodic sequence (tg_neff), for the file headers
 * (topo/make/), the reports (topo/cli/topogen_neff_print.h) and the
 * library's measures. Prints nothing.
 */
#ifndef TOPOGEN_NEFF_H
#define TOPOGEN_NEFF_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "tg_digraph.h"
#include "tg_neff.h"

/* The figures of one report. */
typedef struct {
    size_t k;                        /* gammas (0: none computed) */
    double gamma[TG_NEFF_MAX_GAMMAS];
    double neff[TG_NEFF_MAX_GAMMAS];
    double err[TG_NEFF_MAX_GAMMAS];  /* Monte Carlo standard error (0:
                                        exact) */
    double msgs;                     /* models sent per node per round */
    const char *how;                 /* "closed form", "Lyapunov", ... */
} topogen_neff;

/* Parses the --gamma string (NULL: TG_NEFF_GAMMA) into v->gamma, v->k. */
cm_status topogen_neff_gammas(const char *s, topogen_neff *v);

/* n_eff of a weighted symmetric topology (closed form, n <= 4096). */
cm_status topogen_neff_topo(const cm_topo *t, topogen_neff *v);

/* n_eff of a periodic sequence (Lyapunov, averaged over the phases). */
cm_status topogen_neff_seq(const cm_topo_seq *s, topogen_neff *v);

/* n_eff of a static directed graph (Lyapunov). */
cm_status topogen_neff_digraph(const tg_digraph *g, topogen_neff *v);

/* ||W - J||_2 of a dense n x n W (row-major), from the eigenvalues of
 * (W - J)^T (W - J). CM_ENOMEM, CM_ENUMERIC. O(n^3). */
cm_status topogen_norm_wj(const double *w, size_t n, double *out);

/* ||W - J||_2 of a directed graph (topogen_norm_wj of its dense W). */
cm_status topogen_digraph_norm(const tg_digraph *g, double *out);

#endif
