/* topogen_neff_print.c: n_eff in topogen's reports (see
 * topogen_neff_print.h). The JSON members come from topogen_neff_json
 * alone, so a change of the JSON writer touches one function. */
#include "topogen_neff_print.h"

#include <math.h>
#include <stdio.h>

void topogen_neff_print(const topogen_neff *v)
{
    for (size_t g = 0; g < v->k; g++) {
        char err[48] = "";
        if (v->err[g] > 0.0)
            snprintf(err, sizeof err, " +- %.2f", v->err[g]);
        printf("neff          %.4f%s  (gamma %g, %s; %.4f per message, "
               "%.4g sent per node per round)\n", v->neff[g], err,
               v->gamma[g], v->how,
               v->msgs > 0.0 ? v->neff[g] / v->msgs : NAN, v->msgs);
    }
}

/* One member: a number for one gamma, else an object keyed by gamma. */
static void member(json_t *o, const char *key, const topogen_neff *v,
                   int per_msg, int err, int *bad)
{
    double x[TG_NEFF_MAX_GAMMAS];
    for (size_t g = 0; g < v->k; g++)
        x[g] = err ? v->err[g]
               : per_msg ? (v->msgs > 0.0 ? v->neff[g] / v->msgs : NAN)
                         : v->neff[g];
    if (v->k == 1) {
        topogen_json_num(o, key, x[0], bad);
        return;
    }
    json_t *m = json_object();
    for (size_t g = 0; g < v->k; g++) {
        char k[32];
        snprintf(k, sizeof k, "%g", v->gamma[g]);
        topogen_json_num(m, k, x[g], bad);
    }
    topogen_json_set(o, key, m, bad);
}

void topogen_neff_json(const topogen_neff *v, json_t *o, int *bad)
{
    if (!v->k)
        return;
    member(o, "neff", v, 0, 0, bad);
    member(o, "neff_per_message", v, 1, 0, bad);
    int mc = 0;
    for (size_t g = 0; g < v->k; g++)
        mc |= v->err[g] > 0.0;
    if (mc)
        member(o, "neff_error", v, 0, 1, bad);
}
