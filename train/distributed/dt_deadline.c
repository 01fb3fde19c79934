/* dt_deadline.c: the watchdog's adaptive deadline (dt_deadline.h): medians
 * by sorting copies of at most DT_DEADLINE_HIST intervals. */
#include "dt_deadline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place). */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double dt_deadline(const double *hist, size_t n, double floor_s, char *rule,
                   size_t cap)
{
    double v[DT_DEADLINE_HIST], d[DT_DEADLINE_HIST];
    if (cap)
        rule[0] = '\0';
    if (n == 0)
        return 0;
    if (n > DT_DEADLINE_HIST)
        n = DT_DEADLINE_HIST;
    memcpy(v, hist, n * sizeof *v);
    double m = median(v, n);
    for (size_t i = 0; i < n; i++)
        d[i] = fabs(hist[i] - m);
    double mad = median(d, n);
    double robust = m + 8 * mad, t = robust > 3 * m ? robust : 3 * m;
    const char *why = robust > 3 * m ? "median + 8 MAD" : "3 median rounds";
    if (t > 5 * m) {
        t = 5 * m;
        why = "5 median rounds";
    }
    if (t < floor_s) {
        snprintf(rule, cap, "the floor %g s (--timeout-floor), above %s "
                 "(%.3g s; median round %.3g s)", floor_s, why, t, m);
        return floor_s;
    }
    snprintf(rule, cap, "%s: median round %.3g s, MAD %.3g s, over the "
             "last %zu rounds", why, m, mad, n);
    return t;
}
