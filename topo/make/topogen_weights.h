/* topogen_weights: the --weights of a symmetric topology (a cm_ rule,
 * FDLA with its certificate, or the n_eff weights) and the header lines
 * that certify them; part of topo/make/, shared by generation, `topogen
 * eval` and the library. The TOPOGEN_W_* codes and the names are in
 * topogen_config.h.
 */
#ifndef TOPOGEN_WEIGHTS_H
#define TOPOGEN_WEIGHTS_H

#include <stddef.h>

#include "cm_mixing.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "tg_fdla.h"
#include "tg_neff_weights.h"
#include "topogen_config.h"

/* The weights dispatch: cm_topo_set_weights(t, rule); with TOPOGEN_W_FDLA
 * the fastest-mixing weights of topo/tg_fdla.c, whose certificate goes to
 * *fr; with TOPOGEN_W_NEFF the n_eff(gamma)-optimal weights of
 * tg_neff_weights.c (its certificate to *nr; neff-alpha: the alpha
 * scan; more than TG_NEFF_MAX_EDGES edges fall back to the scan). fr
 * and nr are zeroed otherwise. CM_OK, else the library's status and
 * message. */
cm_status topogen_weights_set(int fdla, cm_weight_rule rule, double gamma,
                              cm_topo *t, tg_fdla_result *fr,
                              tg_neff_weights_result *nr);

/* The n_eff weights' header line into buf ("" unless fdla is a
 * TOPOGEN_W_NEFF*): "\n# neff: gamma=... neff=... upper_bound=...". */
void topogen_neff_line(int fdla, const tg_neff_weights_result *nr, char *buf,
                       size_t cap);

/* The FDLA certificate line of a file header into buf (cap bytes,
 * truncated): "" unless fdla, else "\n# fdla: slem=... lower_bound=...". */
void topogen_fdla_line(int fdla, const tg_fdla_result *fr, char *buf,
                       size_t cap);

#endif
