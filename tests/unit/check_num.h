/* check_num.h: small numeric helpers shared by the engine's suites. */
#ifndef CHECK_NUM_H
#define CHECK_NUM_H

#include <math.h>
#include <stddef.h>

#include "cm_rng.h"

/* a[i] uniform in [lo, hi) from r, i < n. */
static inline void fill_uniform(cm_rng *r, float *a, size_t n, double lo,
                                double hi)
{
    for (size_t i = 0; i < n; i++)
        a[i] = (float)(lo + (hi - lo) * cm_rng_uniform(r));
}

/* |a - b| / max(|a|, |b|, 1e-2): relative error with a floor. */
static inline double rel_err(double a, double b)
{
    double d = fmax(fmax(fabs(a), fabs(b)), 1e-2);
    return fabs(a - b) / d;
}

#endif
