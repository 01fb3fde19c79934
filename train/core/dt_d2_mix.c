/* dt_d2_mix.c: D^2's weight c of W in M = (1 - c) I + c W, from the
 * spectrum of W (formulas in dt_d2_mix.h).
 *
 * The condition lambda_min(M) > -1/3 is D^2's (Tang et al. 2018) for one
 * fixed M: the gradient-free part of its recursion, e_{t+1} = M (2 e_t -
 * e_{t-1}), has on an eigenvector of M with eigenvalue m the roots of
 * z^2 - 2 m z + m = 0, of modulus sqrt(m) for m in (0, 1) and below 1 for
 * m in (-1/3, 0]; at m = -1/3 one root is -1. Exact diffusion (Yuan et al.
 * 2019) takes M = (I + W)/2. Both assume a fixed W, hence the refusal of
 * time-varying topologies (numbers in dt_d2_mix.h).
 *
 * Trade-off: auto keeps a margin (-1/4) and otherwise the largest c, so
 * M mixes as fast as D^2 allows; a user who wants exact diffusion's
 * (I + W)/2 says `half`.
 */
#include "dt_d2_mix.h"

#include <math.h>

#include "cm_mixing.h"

cm_status dt_d2_mix_choose(const cm_topo_seq *seq, const char *path,
                           double c_flag, dt_d2_mix *out)
{
    if (seq->period > 1)
        return cm_error(CM_EINVAL, "--algorithm d2 on %s: the topology is "
                        "time-varying (period %zu), and D^2 needs one fixed "
                        "mixing matrix (with changing rounds its recursion "
                        "amplifies disagreement): use --algorithm gt or qgm "
                        "on a sequence, or d2 on a static topology", path,
                        seq->period);
    double l2, lmin;
    cm_status s = cm_topo_w_extremes(&seq->round[0], &l2, &lmin);
    if (s != CM_OK)
        return cm_error_prefix(s == CM_EINVAL ? CM_ETOPO : s, "--topology");
    double c = c_flag;
    if (c == 0.0)
        c = lmin < -0.25 ? 1.25 / (1.0 - lmin) : 1.0;
    double mmin = 1.0 - c * (1.0 - lmin), m2 = 1.0 - c * (1.0 - l2);
    out->c = c;
    out->lmin = lmin;
    out->slem = 0.0;
    if (seq->n <= 1)
        return CM_OK;
    if (mmin <= -1.0 / 3.0 + 1e-9)
        return cm_error(CM_EINVAL, "--algorithm d2 on %s: lambda_min of its "
                        "mixing matrix (1 - C) I + C W is %.4f with C = %g "
                        "(lambda_min(W) = %.4f); D^2 needs it above -1/3: "
                        "use --d2-mixing auto or half", path, mmin, c, lmin);
    out->slem = fmax(fabs(m2), fabs(mmin));
    return CM_OK;
}
