/* dt_local.c: the communication schedule of --average-every,
 * --local-after and --global-every, and the outer optimizer of --outer
 * (formulas in dt_local.h).
 *
 * Trade-off: the schedule is recomputed from the step every time (O(1)
 * arithmetic) instead of being carried as state, so nothing about it can
 * disagree between ranks or after a resume.
 */
#include "dt_local.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* strtod of the whole of [s, s + len): 0 and *v on success. */
static int number(const char *s, size_t len, double *v)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    *v = strtod(buf, &end);
    return end == buf || *end || errno || !isfinite(*v) ? -1 : 0;
}

cm_status dt_outer_parse(const char *s, dt_outer *o)
{
    memset(o, 0, sizeof *o);
    if (strcmp(s, "none") == 0)
        return CM_OK;
    double lr = 0.0, mom = 0.0;
    int ok = 0;
    if (strncmp(s, "sgd:", 4) == 0) {
        ok = number(s + 4, strlen(s + 4), &lr) == 0 && lr > 0.0 &&
             lr <= 10.0;
        o->kind = DT_OUTER_SGD;
    } else if (strncmp(s, "nesterov:", 9) == 0) {
        const char *p = s + 9, *comma = strchr(p, ',');
        ok = comma && number(p, (size_t)(comma - p), &lr) == 0 &&
             number(comma + 1, strlen(comma + 1), &mom) == 0 && lr > 0.0 &&
             lr <= 10.0 && mom >= 0.0 && mom < 1.0;
        o->kind = DT_OUTER_NESTEROV;
    }
    if (!ok) {
        memset(o, 0, sizeof *o);
        return cm_error(CM_EINVAL, "--outer: '%s' is not none, sgd:LR or "
                        "nesterov:LR,MOM (LR in (0, 10], MOM in [0, 1); "
                        "e.g. nesterov:0.7,0.9)", s);
    }
    o->lr = lr;
    o->mom = mom;
    return CM_OK;
}

/* The shortest %g form of x that reads back as x. */
static void exact(double x, char *buf, size_t cap)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, cap, "%.*g", p, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

char *dt_outer_str(const dt_outer *o, char *buf, size_t cap)
{
    char a[32], b[32];
    exact(o->lr, a, sizeof a);
    exact(o->mom, b, sizeof b);
    switch (o->kind) {
    case DT_OUTER_NONE:
        snprintf(buf, cap, "none");
        break;
    case DT_OUTER_SGD:
        snprintf(buf, cap, "sgd:%s", a);
        break;
    case DT_OUTER_NESTEROV:
        snprintf(buf, cap, "nesterov:%s,%s", a, b);
        break;
    }
    return buf;
}

int dt_outer_active(const dt_outer *o)
{
    return o->kind == DT_OUTER_NESTEROV ||
           (o->kind == DT_OUTER_SGD && o->lr != 1.0);
}

size_t dt_outer_arrays(const dt_outer *o)
{
    if (!dt_outer_active(o))
        return 0;
    return o->kind == DT_OUTER_NESTEROV ? 2 : 1;
}

int dt_local_comm(size_t H, size_t S, uint64_t t)
{
    return t < S || (t - S + 1) % H == 0;
}

uint64_t dt_local_comms(size_t H, size_t S, uint64_t t)
{
    if (t <= S)
        return t;
    return S + (t - S) / H;
}

int dt_local_global(size_t H, size_t S, size_t K, uint64_t t)
{
    return K > 0 && (dt_local_comms(H, S, t) + 1) % K == 0;
}

size_t dt_local_round_len(size_t H, size_t S, uint64_t t)
{
    return t < S ? 1 : H;
}

double dt_stale_gamma(size_t S)
{
    const double pi = 3.14159265358979323846;
    return sin(pi / (4.0 * (double)S + 2.0));
}

void dt_stale_mix(float *x, const float *mixed, const float *old, size_t n,
                  float gamma)
{
    for (size_t k = 0; k < n; k++)
        x[k] += gamma * (mixed[k] - old[k]);
}

void dt_outer_step(const dt_outer *o, float *x, float *a, float *b,
                   size_t n)
{
    if (!dt_outer_active(o)) {
        if (a)
            memcpy(a, x, n * sizeof *x);
        return;
    }
    const float lr = (float)o->lr, mom = (float)o->mom;
    if (o->kind == DT_OUTER_SGD)
        for (size_t k = 0; k < n; k++) {
            float d = a[k] - x[k];
            x[k] = a[k] - lr * d;
            a[k] = x[k];
        }
    else
        for (size_t k = 0; k < n; k++) {
            float d = a[k] - x[k];
            b[k] = mom * b[k] + d;
            x[k] = a[k] - lr * (d + mom * b[k]);
            a[k] = x[k];
        }
}
