/* topogen_weights.c: the --weights dispatch (a cm_ rule, FDLA or the
 * n_eff weights) and the certificate lines of a file header (see
 * topogen_weights.h).
 */
#include "topogen_weights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The optimisers' weights (FDLA, n_eff) come from interior-point methods
 * whose O(n^3) and O(m^3) steps run on OpenBLAS: their last bits depend
 * on the CPU's kernels (about 1e-14 relative, measured). Rounded to
 * WEIGHT_DIGITS significant digits before they are installed, the file
 * is the same on every kernel path unless a weight lies within that
 * noise of a rounding boundary (about 1e-5 per weight;
 * docs/topo/portable-bits.md). Nine digits are far below what the
 * optimisers' certified gaps resolve and far above the noise. The
 * diagonal W_ii = 1 - sum_j W_ij is recomputed from the rounded weights,
 * so W stays symmetric and stochastic. */
#define WEIGHT_DIGITS 9

static cm_status round_weights(cm_topo *t)
{
    if (!t->ew || t->m == 0)
        return CM_OK;
    double *ew = malloc(t->m * sizeof *ew);
    if (!ew)
        return cm_error(CM_ENOMEM, "out of memory for %zu weights", t->m);
    char buf[64];
    for (size_t k = 0; k < t->m; k++) {
        /* printf's and strtod's conversions are exact: the same bits
         * wherever they run */
        snprintf(buf, sizeof buf, "%.*g", WEIGHT_DIGITS, t->ew[k]);
        ew[k] = strtod(buf, NULL);
    }
    cm_status st = cm_topo_install_weights(t, ew);
    free(ew);
    return st;
}

cm_status topogen_weights_set(int fdla, cm_weight_rule rule, double gamma,
                              cm_topo *t, tg_fdla_result *fr,
                              tg_neff_weights_result *nr)
{
    memset(fr, 0, sizeof *fr);
    memset(nr, 0, sizeof *nr);
    cm_status st;
    if (fdla == TOPOGEN_W_FDLA) {
        st = tg_fdla_weights(t, TG_FDLA_TOL, fr);
        return st == CM_OK ? round_weights(t) : st;
    }
    if (fdla == TOPOGEN_W_NEFF && t->m <= TG_NEFF_MAX_EDGES) {
        st = tg_neff_weights(t, gamma, nr);
        return st == CM_OK ? round_weights(t) : st;
    }
    if (fdla == TOPOGEN_W_NEFF || fdla == TOPOGEN_W_NEFF_ALPHA)
        return tg_neff_alpha(t, gamma, nr);
    return cm_topo_set_weights(t, rule);
}

/* A certified gap as the header shows it: at least 1e-9 of the value.
 * A gap is the difference of two figures that agree to ~1e-11; its own
 * digits are the kernels' noise, while 1e-9 |value| (still a valid
 * bound, and the size of the weights' rounding) is not. */
static double shown_gap(double gap, double value)
{
    return fmax(gap, 1e-9 * fabs(value));
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
                 shown_gap(nr->neff_upper - nr->neff, nr->neff),
                 nr->neff_start, nr->negative);
}

void topogen_fdla_line(int fdla, const tg_fdla_result *fr, char *buf,
                       size_t cap)
{
    buf[0] = '\0';
    if (fdla == TOPOGEN_W_FDLA)
        snprintf(buf, cap, "\n# fdla: slem=%.6f lower_bound=%.6f (certified "
                 "gap %.1e) laplacian_slem=%.6f negative_weights=%zu",
                 fr->slem, fr->lower, shown_gap(fr->slem - fr->lower,
                                                fr->slem),
                 fr->slem_start, fr->negative);
}
