/* dt_allreduce_single.c: dt_allreduce.h for one rank without MPI (linked
 * into check_unit with dt_comm_single.c): a sum over one rank leaves x as
 * it is, whichever algorithm. */
#include "dt_allreduce.h"

#include <stdlib.h>

struct dt_allreduce {
    cm_net_ar_alg alg;
};

int dt_allreduce_runs(cm_net_ar_alg alg)
{
    return alg == CM_AR_AUTO || alg == CM_AR_DIRECT || alg == CM_AR_HIER ||
           alg == CM_AR_HIER_SITE;
}

cm_status dt_allreduce_new(const dt_comm *c, cm_net_ar_alg alg,
                           size_t groups, const cm_net *net,
                           dt_allreduce **out)
{
    (void)c;
    (void)groups;
    (void)net;
    *out = NULL;
    if (!dt_allreduce_runs(alg))
        return cm_error(CM_EINVAL, "--allreduce %s is only priced (--net); "
                        "the trainer runs auto, direct or hierarchical",
                        cm_net_ar_name(alg));
    if (!(*out = malloc(sizeof **out)))
        return cm_error(CM_ENOMEM, "out of memory (all-reduce)");
    (*out)->alg = alg;
    return CM_OK;
}

cm_status dt_allreduce_new_han(const dt_comm *c, dt_allreduce **out)
{
    return dt_allreduce_new(c, CM_AR_AUTO, 0, NULL, out);
}

cm_status dt_allreduce_sum_float(dt_allreduce *a, float *x, size_t n)
{
    (void)a;
    (void)x;
    (void)n;
    return CM_OK;
}

void dt_allreduce_free(dt_allreduce *a) { free(a); }
