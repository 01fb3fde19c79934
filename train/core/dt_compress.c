/* dt_compress.c: block-scaled int8/int4 quantization and top-k with
 * error feedback (formulas in dt_compress.h).
 *
 * Trade-off: the quantizers round to nearest (biased, but error feedback
 * carries the residual) instead of rounding stochastically, so no
 * generator has to be threaded through and the bits repeat; top-k finds
 * the k-th largest magnitude by quickselect (O(n)), then keeps what is
 * above it and the lowest-indexed ties, so the choice is deterministic.
 */
#include "dt_compress.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cm_status dt_compress_parse(const char *s, dt_compress *c)
{
    memset(c, 0, sizeof *c);
    if (strcmp(s, "none") == 0)
        return CM_OK;
    if (strcmp(s, "int8") == 0) {
        c->kind = DT_COMPRESS_INT8;
        return CM_OK;
    }
    if (strcmp(s, "int4") == 0) {
        c->kind = DT_COMPRESS_INT4;
        return CM_OK;
    }
    if (strncmp(s, "topk:", 5) == 0) {
        char *end = NULL;
        errno = 0;
        double f = strtod(s + 5, &end);
        if (end != s + 5 && !*end && !errno && f > 0.0 && f <= 1.0) {
            c->kind = DT_COMPRESS_TOPK;
            c->frac = f;
            return CM_OK;
        }
    }
    return cm_error(CM_EINVAL, "--compress: '%s' is not none, int8, int4 or "
                    "topk:F (F in (0, 1], e.g. topk:0.01)", s);
}

char *dt_compress_str(const dt_compress *c, char *buf, size_t cap)
{
    switch (c->kind) {
    case DT_COMPRESS_NONE: snprintf(buf, cap, "none"); break;
    case DT_COMPRESS_INT8: snprintf(buf, cap, "int8"); break;
    case DT_COMPRESS_INT4: snprintf(buf, cap, "int4"); break;
    case DT_COMPRESS_TOPK: snprintf(buf, cap, "topk:%.17g", c->frac); break;
    }
    return buf;
}

int dt_compress_active(const dt_compress *c)
{
    return c->kind != DT_COMPRESS_NONE;
}

static size_t topk_count(const dt_compress *c, size_t n)
{
    size_t k = (size_t)ceil(c->frac * (double)n);
    return k < 1 ? 1 : k > n ? n : k;
}

double dt_compress_bytes(const dt_compress *c, size_t n)
{
    const double blocks = (double)((n + DT_COMPRESS_BLOCK - 1) /
                                   DT_COMPRESS_BLOCK);
    switch (c->kind) {
    case DT_COMPRESS_NONE: return 4.0 * (double)n;
    case DT_COMPRESS_INT8: return (double)n + 4.0 * blocks;
    case DT_COMPRESS_INT4: return (double)((n + 1) / 2) + 4.0 * blocks;
    case DT_COMPRESS_TOPK: return 8.0 * (double)topk_count(c, n);
    }
    return 4.0 * (double)n;
}

/* Round-to-nearest codes in [-L, L] with one scale per block. */
static void quantize(const float *p, float *q, size_t n, float L)
{
    for (size_t b = 0; b < n; b += DT_COMPRESS_BLOCK) {
        size_t e = b + DT_COMPRESS_BLOCK < n ? b + DT_COMPRESS_BLOCK : n;
        float m = 0.0f;
        for (size_t k = b; k < e; k++)
            m = fmaxf(m, fabsf(p[k]));
        if (m == 0.0f) {
            memset(q + b, 0, (e - b) * sizeof *q);
            continue;
        }
        const float s = m / L;
        for (size_t k = b; k < e; k++)
            q[k] = roundf(p[k] / s) * s;
    }
}

/* The k-th largest (k >= 1) of a[0..n), reordering a: Hoare's
 * quickselect with a median-of-three pivot (deterministic). O(n) on
 * average. */
static float kth_largest(float *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1, want = k - 1; /* index in descending order */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        float x = a[lo], y = a[mid], z = a[hi];
        float piv = x > y ? (y > z ? y : (x > z ? z : x))
                          : (x > z ? x : (y > z ? z : y));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] > piv)
                i++;
            while (a[j] < piv)
                j--;
            if (i <= j) {
                float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (want <= j)
            hi = j;
        else if (want >= i)
            lo = i;
        else
            return a[want];
    }
    return a[want];
}

void dt_compress_apply(const dt_compress *c, const float *p, float *q,
                       size_t n)
{
    switch (c->kind) {
    case DT_COMPRESS_NONE:
        memcpy(q, p, n * sizeof *q);
        return;
    case DT_COMPRESS_INT8:
        quantize(p, q, n, 127.0f);
        return;
    case DT_COMPRESS_INT4:
        quantize(p, q, n, 7.0f);
        return;
    case DT_COMPRESS_TOPK: { /* q holds |p| for the selection first */
        const size_t k = topk_count(c, n);
        for (size_t i = 0; i < n; i++)
            q[i] = fabsf(p[i]);
        const float thr = kth_largest(q, n, k);
        size_t above = 0;
        for (size_t i = 0; i < n; i++)
            above += fabsf(p[i]) > thr;
        size_t ties = k - above; /* of |p| == thr, the lowest indices */
        for (size_t i = 0; i < n; i++) {
            float m = fabsf(p[i]);
            int keep = m > thr || (m == thr && ties > 0);
            if (m == thr && keep)
                ties--;
            q[i] = keep ? p[i] : 0.0f;
        }
        return;
    }
    }
}

void dt_compress_ef(const dt_compress *c, const float *d, float *e,
                    float *q, float *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        p[k] = d[k] + e[k];
    dt_compress_apply(c, p, q, n);
    for (size_t k = 0; k < n; k++)
        e[k] = p[k] - q[k];
}
