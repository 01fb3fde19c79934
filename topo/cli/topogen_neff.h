/* topogen_neff: n_eff in topogen's reports (part of topogen's main; like
 * topo/cli/topogen.c it prints). Computes n_eff at the --gamma values for
 * a symmetric file, a directed graph or a periodic sequence (tg_neff) and
 * prints it as text lines or JSON members; `topogen compare` lives here
 * too (topogen_compare.c).
 */
#ifndef TOPOGEN_NEFF_H
#define TOPOGEN_NEFF_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "topogen_json.h"
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

/* Text lines: `neff          41.4  (gamma 0.951; 10.3 per message, ...)`. */
void topogen_neff_print(const topogen_neff *v);

/* JSON members `"neff":X,"neff_per_message":Y,` (one gamma), or objects
 * keyed by gamma for several; with a Monte Carlo also "neff_error". */
void topogen_neff_json(const topogen_neff *v, json_t *o, int *bad);

#endif
