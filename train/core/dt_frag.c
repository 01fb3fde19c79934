/* dt_frag.c: the fragments of --fragments P[:T] (dt_frag.h). */
#include "dt_frag.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole decimal number in [lo, hi] from s[0..len). */
static int whole(const char *s, size_t len, size_t lo, size_t hi, size_t *v)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    for (size_t k = 0; k < len; k++)
        if (buf[k] < '0' || buf[k] > '9')
            return -1;
    errno = 0;
    unsigned long long x = strtoull(buf, NULL, 10);
    if (errno || x < lo || x > hi)
        return -1;
    *v = (size_t)x;
    return 0;
}

cm_status dt_frag_parse(const char *s, dt_frag *f)
{
    const char *colon = strchr(s, ':');
    size_t p = 0, t = 0;
    int ok = colon ? whole(s, (size_t)(colon - s), 1, 256, &p) == 0 &&
                         whole(colon + 1, strlen(colon + 1), 0, 1000000,
                               &t) == 0
                   : whole(s, strlen(s), 1, 256, &p) == 0;
    if (!ok)
        return cm_error(CM_EINVAL, "--fragments: '%s' is not P or P:T (P "
                        "fragments in [1, 256], each synchronisation in "
                        "flight for T inner steps; e.g. 4 or 4:1)", s);
    f->p = p;
    f->overlap = t;
    return CM_OK;
}

char *dt_frag_str(const dt_frag *f, char *buf, size_t cap)
{
    if (f->overlap)
        snprintf(buf, cap, "%zu:%zu", f->p, f->overlap);
    else
        snprintf(buf, cap, "%zu", f->p);
    return buf;
}

/* The remainder of (u + 1) at which fragment p starts. */
static size_t offset(size_t H, size_t P, size_t p)
{
    return (size_t)(((uint64_t)(p + 1) * H / P) % H);
}

size_t dt_frag_at(size_t H, size_t S, size_t P, uint64_t t)
{
    if (t < S)
        return P;
    uint64_t m = (t - S + 1) % H;
    for (size_t p = 0; p < P; p++)
        if (offset(H, P, p) == m)
            return p;
    return P;
}

uint64_t dt_frag_syncs(size_t H, size_t S, size_t P, uint64_t t)
{
    if (t <= S)
        return 0;
    const uint64_t u = t - S; /* steps after the warm-up: m = 1 .. u */
    uint64_t c = 0;
    for (size_t p = 0; p < P; p++) {
        uint64_t o = offset(H, P, p);
        c += o == 0 ? u / H : u >= o ? (u - o) / H + 1 : 0;
    }
    return c;
}

void dt_frag_range(size_t n, size_t P, size_t p, size_t *lo, size_t *hi)
{
    *lo = (size_t)((uint64_t)n * p / P);
    *hi = (size_t)((uint64_t)n * (p + 1) / P);
}

void dt_frag_merge(float *x, const float *g, size_t len, float alpha)
{
    for (size_t k = 0; k < len; k++)
        x[k] = alpha * x[k] + (1.0f - alpha) * g[k];
}

float dt_frag_alpha(const dt_frag *f)
{
    return f->overlap ? 0.5f : 0.0f;
}
