/* topogen_weights.c: the --weights dispatch (a cm_ rule, FDLA or the
 * n_eff weights) and the certificate lines of a file header (see
 * topogen_weights.h).
 */
#include "topogen_weights.h"

#include <stdio.h>
#include <string.h>

cm_status topogen_weights_set(int fdla, cm_weight_rule rule, double gamma,
                              cm_topo *t, tg_fdla_result *fr,
                              tg_neff_weights_result *nr)
{
    memset(fr, 0, sizeof *fr);
    memset(nr, 0, sizeof *nr);
    if (fdla == TOPOGEN_W_FDLA)
        return tg_fdla_weights(t, TG_FDLA_TOL, fr);
    if (fdla == TOPOGEN_W_NEFF && t->m <= TG_NEFF_MAX_EDGES)
        return tg_neff_weights(t, gamma, nr);
    if (fdla == TOPOGEN_W_NEFF || fdla == TOPOGEN_W_NEFF_ALPHA)
        return tg_neff_alpha(t, gamma, nr);
    return cm_topo_set_weights(t, rule);
}

void topogen_neff_line(int fdla, const tg_neff_weights_result *nr, char *buf,
                       size_t cap)
{
    buf[0] = '\0';
    if (fdla != TOPOGEN_W_NEFF && fdla != TOPOGEN_W_NEFF_ALPHA)
        return;
    if (nr->alpha > 0.0 || nr->newton == 0)
        snprintf(buf, cap, "\n# neff: gamma=%g neff=%.6f alpha=%.17g "
                 "(best W = I - alpha L) start=%.6f", nr->gamma, nr->neff,
                 nr->alpha, nr->neff_start);
    else
        snprintf(buf, cap, "\n# neff: gamma=%g neff=%.6f upper_bound=%.6f "
                 "(certified gap %.1e) mh=%.6f negative_weights=%zu",
                 nr->gamma, nr->neff, nr->neff_upper,
                 nr->neff_upper - nr->neff, nr->neff_start, nr->negative);
}

void topogen_fdla_line(int fdla, const tg_fdla_result *fr, char *buf,
                       size_t cap)
{
    buf[0] = '\0';
    if (fdla == TOPOGEN_W_FDLA)
        snprintf(buf, cap, "\n# fdla: slem=%.6f lower_bound=%.6f (certified "
                 "gap %.1e) laplacian_slem=%.6f negative_weights=%zu",
                 fr->slem, fr->lower, fr->slem - fr->lower, fr->slem_start,
                 fr->negative);
}
