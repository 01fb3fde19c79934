/* check_layers.c: the layer kernels (dt_layers, dt_kernels). Known
 * answers for convolution and pooling on tiny inputs; central
 * finite-difference gradient checks of every layer (w.r.t. weights, biases
 * and inputs) and of the softmax cross-entropy; the NHWC conv against the
 * NCHW one; a fused ReLU against a separate one.
 *
 * Gradient checks project the layer output on a random vector r,
 * L = sum r.y (accumulated in double), so dL/dy = r. Conv and fc are linear
 * in each argument, so the central difference is exact up to rounding;
 * relu and pool inputs are kept at least 0.1 away from kinks and ties,
 * farther than the step. Tolerance: relative error < 1e-3 with a floor of
 * 1e-2 on the denominator. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_env.h"
#include "check_num.h"
#include "cm_rng.h"
#include "dt_kernels.h"
#include "dt_layers.h"

#define GC_TOL 1e-3
#define GC_EPS 5e-2f

/* Runs the layer forward on (w, b, x) into y and returns sum r.y. */
typedef struct {
    dt_layer l;
    size_t batch, col_batch;
    float *w, *b, *x, *y, *r, *col;
    int32_t *arg;
} gc_case;

static double gc_forward(gc_case *g)
{
    size_t nout = g->batch * dt_layer_out_size(&g->l);
    switch (g->l.kind) {
    case DT_CONV:
        dt_conv_forward(&g->l, g->w, g->b, g->x, g->y, g->batch, g->col,
                        g->col_batch);
        break;
    case DT_POOL:
        dt_pool_forward(&g->l, g->x, g->y, g->arg, g->batch);
        break;
    case DT_FC:
        dt_fc_forward(&g->l, g->w, g->b, g->x, g->y, g->batch, g->col);
        break;
    case DT_RELU:
        memcpy(g->y, g->x, nout * sizeof *g->y);
        dt_relu_forward(g->y, nout);
        break;
    }
    double s = 0.0;
    for (size_t i = 0; i < nout; i++)
        s += (double)g->r[i] * (double)g->y[i];
    return s;
}

/* Compares the analytic gradient ga of the n floats at p with central
 * differences of gc_forward; returns the largest relative error. */
static double gc_compare(gc_case *g, float *p, const float *ga, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        float keep = p[i];
        p[i] = keep + GC_EPS;
        float up = p[i];
        double lp = gc_forward(g);
        p[i] = keep - GC_EPS;
        float dn = p[i];
        double lm = gc_forward(g);
        p[i] = keep;
        double num = (lp - lm) / ((double)up - (double)dn);
        worst = fmax(worst, rel_err(num, ga[i]));
    }
    return worst;
}

/* Builds a case for layer l, runs the analytic backward and checks w, b
 * and x. For relu/pool the input is drawn away from kinks and ties. */
static void gradcheck_layer(dt_layer l, size_t batch, size_t col_batch,
                            uint64_t seed)
{
    ck_assert_int_eq(dt_layer_shape(&l), 0);
    l.avx512 = check_use_avx512();
    cm_rng r;
    cm_rng_seed(&r, seed, 0);
    gc_case g = {.l = l, .batch = batch, .col_batch = col_batch};
    size_t nin = batch * dt_layer_in_size(&l);
    size_t nout = batch * dt_layer_out_size(&l);
    size_t nb = l.n_w ? l.oc : 0;
    g.w = calloc(l.n_w + 1, sizeof(float));
    g.b = calloc(nb + 1, sizeof(float));
    g.x = calloc(nin, sizeof(float));
    g.y = calloc(nout, sizeof(float));
    g.r = calloc(nout, sizeof(float));
    g.col = calloc(dt_layer_col_size(&l, batch) + 1, sizeof(float));
    g.arg = calloc(nout, sizeof(int32_t));
    float *dw = calloc(l.n_w + 1, sizeof(float));
    float *db = calloc(nb + 1, sizeof(float));
    float *dx = calloc(nin, sizeof(float));
    fill_uniform(&r, g.w, l.n_w, -1, 1);
    fill_uniform(&r, g.b, nb, -1, 1);
    fill_uniform(&r, g.r, nout, -1, 1);
    if (l.kind == DT_RELU) {
        for (size_t i = 0; i < nin; i++) /* |x| in [0.1, 1] */
            g.x[i] = (float)((0.1 + 0.9 * cm_rng_uniform(&r)) *
                             (cm_rng_u64(&r) & 1 ? 1.0 : -1.0));
    } else if (l.kind == DT_POOL) {
        /* distinct values 0.2 apart, in shuffled order: no ties */
        size_t *perm = malloc(nin * sizeof *perm);
        for (size_t i = 0; i < nin; i++)
            perm[i] = i;
        cm_rng_shuffle_size(&r, perm, nin);
        for (size_t i = 0; i < nin; i++)
            g.x[i] = 0.2f * (float)perm[i] - 0.1f * (float)nin;
        free(perm);
    } else {
        fill_uniform(&r, g.x, nin, -1, 1);
    }
    gc_forward(&g);
    switch (l.kind) {
    case DT_CONV:
        dt_conv_backward(&l, g.w, g.x, g.y, g.r, dx, dw, db, batch, g.col,
                         col_batch);
        break;
    case DT_POOL:
        dt_pool_backward(&l, g.r, g.arg, dx, batch);
        break;
    case DT_FC:
        dt_fc_backward(&l, g.w, g.x, g.y, g.r, dx, dw, db, batch, g.col);
        break;
    case DT_RELU:
        memcpy(dx, g.r, nin * sizeof *dx);
        dt_relu_backward(g.y, dx, nin);
        break;
    }
    ck_assert_double_lt(gc_compare(&g, g.x, dx, nin), GC_TOL);
    if (l.n_w) {
        ck_assert_double_lt(gc_compare(&g, g.w, dw, l.n_w), GC_TOL);
        ck_assert_double_lt(gc_compare(&g, g.b, db, nb), GC_TOL);
    }
    free(g.w); free(g.b); free(g.x); free(g.y); free(g.r); free(g.col);
    free(g.arg); free(dw); free(db); free(dx);
}

START_TEST(test_gradcheck_conv)
{
    /* (c, h, w, oc, k, pad, batch, col_batch): padded and not, one and
       several images per GEMM, a batch that is not a multiple of it */
    static const size_t cases[][8] = {
        {1, 5, 6, 2, 3, 1, 1, 1}, {2, 6, 5, 3, 3, 0, 3, 2},
        {3, 4, 4, 2, 5, 2, 2, 1}, {2, 5, 5, 4, 2, 0, 5, 3}};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const size_t *c = cases[t];
        dt_layer l = {.kind = DT_CONV, .c = c[0], .h = c[1], .w = c[2],
                      .oc = c[3], .k = c[4], .pad = c[5]};
        gradcheck_layer(l, c[6], c[7], 100 + t);
    }
}
END_TEST

/* |a - b| <= 1e-5 max(1, |a|): equal up to float rounding of short sums */
static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-5 * fmax(1.0, fabs(a));
}

/* (c, h, w) <-> (h, w, c) for each of `batch` images; back != 0 inverts. */
static void nhwc_copy(const float *src, float *dst, size_t batch, size_t c,
                      size_t hw, int back)
{
    for (size_t n = 0; n < batch; n++)
        for (size_t ci = 0; ci < c; ci++)
            for (size_t p = 0; p < hw; p++) {
                size_t a = (n * c + ci) * hw + p, b = (n * hw + p) * c + ci;
                if (back)
                    dst[a] = src[b];
                else
                    dst[b] = src[a];
            }
}

/* The NHWC conv (where the CPU runs it): gradients by finite differences,
 * and forward and backward equal to the NCHW im2col conv on transposed
 * tensors (to 1e-5: another summation order). Shapes cover one
 * channel, oc over 32 and not a multiple of it, k c a multiple of 32 (the
 * contiguous dX path, and with oc a multiple of 8 the transposed dW tile)
 * or not, batches not a multiple of 8 pixels, dW over several chunks. */
START_TEST(test_conv_nhwc)
{
    if (!check_use_avx512())
        return;
    static const size_t cases[][6] = {/* c, h, w, oc, k, batch */
        {1, 8, 7, 5, 3, 3}, {3, 6, 9, 40, 3, 2}, {32, 6, 6, 33, 3, 2},
        {2, 5, 5, 4, 2, 5}, {64, 5, 4, 64, 3, 1}, {32, 14, 14, 8, 3, 4}};
    cm_rng r;
    cm_rng_seed(&r, 21, 0);
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const size_t *c = cases[t], B = c[5];
        dt_layer l = {.kind = DT_CONV, .c = c[0], .h = c[1], .w = c[2],
                      .oc = c[3], .k = c[4], .relu = (int)(t % 2)};
        ck_assert_int_eq(dt_layer_shape(&l), 0);
        dt_layer f = l;
        f.in_nhwc = f.out_nhwc = 1;
        f.avx512 = 1;
        if (c[0] <= 3) { /* short sums; the harness masks r in place */
            dt_layer g = f;
            g.relu = 0;
            gradcheck_layer(g, B, 1, 300 + t);
        }
        const size_t nin = B * dt_layer_in_size(&l);
        const size_t nout = B * dt_layer_out_size(&l), hw = l.h * l.w;
        const size_t ohw = l.oh * l.ow;
        float *buf = calloc(6 * nin + 8 * nout + 4 * l.n_w + 4 * l.oc,
                            sizeof *buf);
        float *x = buf, *xt = x + nin, *dx1 = xt + nin, *dx2 = dx1 + nin;
        float *dxt = dx2 + nin, *y1 = dxt + nin, *y2 = y1 + nout;
        float *yt = y2 + nout, *dy1 = yt + nout, *dy2 = dy1 + nout;
        float *w = dy2 + nout, *dw1 = w + l.n_w, *dw2 = dw1 + l.n_w;
        float *b = dw2 + l.n_w, *db1 = b + l.oc, *db2 = db1 + l.oc;
        float *col1 = malloc(dt_layer_col_size(&l, B) * sizeof *col1);
        float *col2 = malloc(dt_layer_col_size(&f, B) * sizeof *col2);
        fill_uniform(&r, x, nin, -1, 1);
        fill_uniform(&r, w, l.n_w, -1, 1);
        fill_uniform(&r, b, l.oc, -1, 1);
        fill_uniform(&r, dy1, nout, -1, 1);
        nhwc_copy(x, xt, B, l.c, hw, 0);
        nhwc_copy(dy1, dy2, B, l.oc, ohw, 0);
        dt_conv_forward(&l, w, b, x, y1, B, col1, B);
        dt_conv_backward(&l, w, x, y1, dy1, dx1, dw1, db1, B, col1, B);
        dt_conv_forward(&f, w, b, xt, y2, B, col2, B);
        dt_conv_backward(&f, w, xt, y2, dy2, dxt, dw2, db2, B, col2, B);
        nhwc_copy(y2, yt, B, l.oc, ohw, 1);
        nhwc_copy(dxt, dx2, B, l.c, hw, 1);
        for (size_t i = 0; i < nout; i++)
            ck_assert(close_to(y1[i], yt[i]));
        for (size_t i = 0; i < nin; i++)
            ck_assert(close_to(dx1[i], dx2[i]));
        /* dw and db are float sums of B * oh * ow products, added in
         * another order by each path (im2col's through OpenBLAS's sgemm,
         * whose order follows the CPU's kernels): the classic bound
         * n * FLT_EPSILON of the sum's size, not a fixed 1e-5 (which
         * Sandybridge's kernels exceeded) */
        const double nsum = (double)(B * dt_layer_out_size(&l) / l.oc);
        for (size_t i = 0; i < l.n_w; i++)
            ck_assert(fabs(dw1[i] - dw2[i]) <=
                      nsum * FLT_EPSILON * fmax(1.0, fabs(dw1[i])));
        for (size_t i = 0; i < l.oc; i++)
            ck_assert(fabs(db1[i] - db2[i]) <=
                      nsum * FLT_EPSILON * fmax(1.0, fabs(db1[i])));
        free(col1);
        free(col2);
        free(buf);
    }
    /* pooling NHWC -> NHWC and NHWC -> NCHW */
    dt_layer p = {.kind = DT_POOL, .c = 3, .h = 4, .w = 6, .in_nhwc = 1};
    gradcheck_layer(p, 2, 1, 310);
    p.out_nhwc = 1;
    gradcheck_layer(p, 2, 1, 311);
    dt_layer podd = {.kind = DT_POOL, .c = 2, .h = 5, .w = 3, .in_nhwc = 1,
                     .out_nhwc = 1}; /* trailing row and column dropped */
    gradcheck_layer(podd, 2, 1, 312);
    /* its backward writes all of dx (no zero-fill first): same result over
       a dx full of garbage */
    for (int odd = 0; odd < 2; odd++) {
        dt_layer q = odd ? podd : p;
        ck_assert_int_eq(dt_layer_shape(&q), 0);
        float x[2 * 90], y[2 * 90], dy[2 * 90], dx1[2 * 90], dx2[2 * 90];
        int32_t arg[2 * 90];
        size_t nin = 2 * dt_layer_in_size(&q), nout = 2 * dt_layer_out_size(&q);
        fill_uniform(&r, x, nin, -1, 1);
        fill_uniform(&r, dy, nout, -1, 1);
        dt_pool_forward(&q, x, y, arg, 2);
        memset(dx1, 0, sizeof dx1);
        for (size_t i = 0; i < nin; i++)
            dx2[i] = 7.0f;
        dt_pool_backward(&q, dy, arg, dx1, 2);
        dt_pool_backward(&q, dy, arg, dx2, 2);
        ck_assert_mem_eq(dx1, dx2, nin * sizeof *dx1);
    }
}
END_TEST

/* Input float of tap t = (ci, u, v) of output pixel q of an indirect conv
 * (stride 1, no padding), in l's input layout. */
static size_t ind_x_at(const dt_layer *l, size_t q, size_t t)
{
    const size_t pix = l->oh * l->ow, n = q / pix, p = q % pix;
    const size_t i = p / l->ow, j = p % l->ow, kk2 = l->k * l->k;
    const size_t ci = t / kk2, u = t % kk2 / l->k, v = t % l->k;
    return n * dt_layer_in_size(l) +
           (l->in_nhwc ? ((i + u) * l->w + j + v) * l->c + ci
                       : (ci * l->h + i + u) * l->w + j + v);
}

/* The indirect AVX2 conv (where the CPU runs it) against a scalar
 * reference of its documented summation order, BIT FOR BIT: y(q, o) =
 * fma chain over the taps in order from 0, + b, ReLU; dW(o, t) and db(o)
 * chains over the pixels in order, added to the old values; dX(e) = 0 +
 * the terms of blocks of 6 pixels in order, in a block 16-tap tiles in
 * order, in a tile the pixels in order, each term an fma chain over the
 * output channels. The trajectory hashes rest on exactly this order, so
 * a faster kernel must keep it. Shapes: NCHW with 3x3 taps and rows of 12
 * (the vectorized row blocks), rows of 8 and of 3 (blocks across rows,
 * overlapping fields), NHWC with 3x3 and 5x5 taps; partial channel tiles,
 * 32 and 64 channels (the 3 x 32 forward tile), a batch that is no
 * multiple of 6 pixels. None of these shapes is one Winograd takes
 * (dt_wino_applies); the CNN's 3x3 convs with >= 32 channels run
 * Winograd, whose order tests/unit/check_wino.c checks the same way. */
START_TEST(test_conv_ind_order)
{
    static const size_t cases[][7] = {/* c, h, w, oc, k, batch, nhwc */
        {3, 14, 14, 5, 3, 2, 0}, {4, 10, 10, 20, 3, 3, 0},
        {2, 5, 5, 3, 3, 3, 0},   {17, 10, 10, 20, 3, 3, 1},
        {6, 14, 14, 16, 5, 2, 1}, {32, 12, 12, 33, 3, 1, 1},
        {5, 8, 9, 32, 3, 3, 1},   {3, 10, 14, 64, 3, 1, 0}};
    cm_rng r;
    cm_rng_seed(&r, 23, 0);
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const size_t *c = cases[t], B = c[5];
        dt_layer l = {.kind = DT_CONV, .c = c[0], .h = c[1], .w = c[2],
                      .oc = c[3], .k = c[4], .in_nhwc = (int)c[6],
                      .relu = (int)(t % 2)};
        ck_assert_int_eq(dt_layer_shape(&l), 0);
        ck_assert(!dt_wino_applies(&l)); /* the indirect kernel's order */
        if (!check_allow_own || !dt_layer_ind_available(&l))
            return;
        l.ind = 1;
        const size_t nin = B * dt_layer_in_size(&l), oc = l.oc;
        const size_t npix = B * l.oh * l.ow, nout = npix * oc;
        const size_t kk = l.c * l.k * l.k;
        float *buf = calloc(3 * nin + 4 * nout + 3 * l.n_w + 3 * oc,
                            sizeof *buf);
        float *x = buf, *dx = x + nin, *rdx = dx + nin, *y = rdx + nin;
        float *ry = y + nout, *dy = ry + nout, *rdy = dy + nout;
        float *w = rdy + nout, *dw = w + l.n_w, *rdw = dw + l.n_w;
        float *b = rdw + l.n_w, *db = b + oc, *rdb = db + oc;
        float *col = malloc(dt_layer_col_size(&l, B) * sizeof *col);
        fill_uniform(&r, x, nin, -1, 1);
        fill_uniform(&r, w, l.n_w, -1, 1);
        fill_uniform(&r, b, oc, -1, 1);
        fill_uniform(&r, dy, nout, -1, 1);
        fill_uniform(&r, dw, l.n_w, -1, 1);
        fill_uniform(&r, db, oc, -1, 1);
        memcpy(rdw, dw, l.n_w * sizeof *dw);
        memcpy(rdb, db, oc * sizeof *db);
        for (size_t i = 0; i < nin; i++)
            dx[i] = 9.0f; /* garbage: the kernel zeroes dx first */
        dt_conv_forward(&l, w, b, x, y, B, col, B);
        for (size_t q = 0; q < npix; q++)
            for (size_t o = 0; o < oc; o++) {
                float a = 0.0f;
                for (size_t k = 0; k < kk; k++)
                    a = fmaf(x[ind_x_at(&l, q, k)], w[o * kk + k], a);
                a += b[o];
                ry[q * oc + o] = l.relu && !(a > 0.0f) ? 0.0f : a;
            }
        ck_assert_mem_eq(y, ry, nout * sizeof *y);
        memcpy(rdy, dy, nout * sizeof *dy);
        dt_conv_backward(&l, w, x, y, dy, dx, dw, db, B, col, B);
        if (l.relu) /* masked in place by [y > 0], as the kernel's dy */
            for (size_t i = 0; i < nout; i++)
                rdy[i] = y[i] > 0.0f ? rdy[i] : 0.0f;
        for (size_t o = 0; o < oc; o++) {
            float sb = 0.0f;
            for (size_t q = 0; q < npix; q++)
                sb += rdy[q * oc + o];
            rdb[o] += sb;
            for (size_t k = 0; k < kk; k++) {
                float a = 0.0f;
                for (size_t q = 0; q < npix; q++)
                    a = fmaf(x[ind_x_at(&l, q, k)], rdy[q * oc + o], a);
                rdw[o * kk + k] += a;
            }
        }
        for (size_t q0 = 0; q0 < npix; q0 += 6)
            for (size_t t0 = 0; t0 < kk; t0 += 16)
                for (size_t q = q0; q < q0 + 6 && q < npix; q++)
                    for (size_t k = t0; k < t0 + 16 && k < kk; k++) {
                        float a = 0.0f;
                        for (size_t o = 0; o < oc; o++)
                            a = fmaf(rdy[q * oc + o], w[o * kk + k], a);
                        rdx[ind_x_at(&l, q, k)] += a;
                    }
        ck_assert_mem_eq(dy, rdy, nout * sizeof *dy);
        ck_assert_mem_eq(db, rdb, oc * sizeof *db);
        ck_assert_mem_eq(dw, rdw, l.n_w * sizeof *dw);
        ck_assert_mem_eq(dx, rdx, nin * sizeof *dx);
        free(col);
        free(buf);
    }
}
END_TEST

/* The direct one-channel conv (where the CPU runs it) against im2col on
 * the same tensors (to 1e-5: another summation order): y, dw, db, and dy
 * masked alike. Shapes: LeNet's and the CNN's first layers, an odd number
 * of channels (7: a self-paired last channel in dW), widths that are not a
 * multiple of 8 or 16, pad 1, and dw/db accumulated on top of old values. */
START_TEST(test_conv_direct)
{
    static const size_t cases[][6] = {/* h, w, oc, k, pad, batch */
        {28, 28, 6, 5, 2, 3}, {28, 28, 32, 3, 0, 2}, {9, 13, 7, 3, 1, 3},
        {5, 21, 1, 5, 0, 1}, {17, 8, 13, 5, 2, 2}};
    cm_rng r;
    cm_rng_seed(&r, 23, 0);
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const size_t *c = cases[t], B = c[5];
        dt_layer l = {.kind = DT_CONV, .c = 1, .h = c[0], .w = c[1],
                      .oc = c[2], .k = c[3], .pad = c[4], .relu = t != 3};
        ck_assert_int_eq(dt_layer_shape(&l), 0);
        dt_layer d = l;
        d.direct = 1;
        if (!dt_layer_direct_available(&d))
            return;
        const size_t nin = B * dt_layer_in_size(&l);
        const size_t nout = B * dt_layer_out_size(&l);
        float *buf = calloc(nin + 4 * nout + 4 * l.n_w + 4 * l.oc,
                            sizeof *buf);
        float *x = buf, *y1 = x + nin, *y2 = y1 + nout, *dy1 = y2 + nout;
        float *dy2 = dy1 + nout, *w = dy2 + nout, *dw1 = w + l.n_w;
        float *dw2 = dw1 + l.n_w, *b = dw2 + l.n_w, *db1 = b + l.oc;
        float *db2 = db1 + l.oc;
        float *col1 = malloc(dt_layer_col_size(&l, B) * sizeof *col1);
        float *col2 = malloc(dt_layer_col_size(&d, B) * sizeof *col2);
        fill_uniform(&r, x, nin, -1, 1);
        fill_uniform(&r, w, l.n_w, -1, 1);
        fill_uniform(&r, b, l.oc, -1, 1);
        fill_uniform(&r, dy1, nout, -1, 1);
        fill_uniform(&r, dw1, l.n_w, -1, 1);
        fill_uniform(&r, db1, l.oc, -1, 1);
        memcpy(dy2, dy1, nout * sizeof *dy1);
        memcpy(dw2, dw1, l.n_w * sizeof *dw1);
        memcpy(db2, db1, l.oc * sizeof *db1);
        memset(y2, 0xff, nout * sizeof *y2); /* NaN: every output written */
        dt_conv_forward(&l, w, b, x, y1, B, col1, B);
        dt_conv_backward(&l, w, x, y1, dy1, NULL, dw1, db1, B, col1, B);
        dt_conv_forward(&d, w, b, x, y2, B, col2, B);
        dt_conv_backward(&d, w, x, y2, dy2, NULL, dw2, db2, B, col2, B);
        for (size_t i = 0; i < nout; i++) {
            ck_assert(close_to(y1[i], y2[i]));
            ck_assert(dy1[i] == dy2[i] || (y1[i] > 0) != (y2[i] > 0));
        }
        /* dw and db are float sums of B * oh * ow products, added in
         * another order by each path (im2col's through OpenBLAS's sgemm,
         * whose order follows the CPU's kernels): the classic bound
         * n * FLT_EPSILON of the sum's size, not a fixed 1e-5 (which
         * Sandybridge's kernels exceeded) */
        const double nsum = (double)(B * dt_layer_out_size(&l) / l.oc);
        for (size_t i = 0; i < l.n_w; i++)
            ck_assert(fabs(dw1[i] - dw2[i]) <=
                      nsum * FLT_EPSILON * fmax(1.0, fabs(dw1[i])));
        for (size_t i = 0; i < l.oc; i++)
            ck_assert(fabs(db1[i] - db2[i]) <=
                      nsum * FLT_EPSILON * fmax(1.0, fabs(db1[i])));
        free(col1);
        free(col2);
        free(buf);
    }
}
END_TEST

START_TEST(test_gradcheck_fc_pool_relu)
{
    dt_layer fc = {.kind = DT_FC, .c = 7, .h = 1, .w = 1, .oc = 5};
    gradcheck_layer(fc, 1, 1, 1);
    gradcheck_layer(fc, 4, 1, 2);
    dt_layer pool = {.kind = DT_POOL, .c = 2, .h = 4, .w = 6};
    gradcheck_layer(pool, 2, 1, 3);
    dt_layer podd = {.kind = DT_POOL, .c = 1, .h = 5, .w = 3};
    gradcheck_layer(podd, 1, 1, 4);
    dt_layer relu = {.kind = DT_RELU, .c = 3, .h = 2, .w = 5};
    gradcheck_layer(relu, 3, 1, 5);
}
END_TEST

START_TEST(test_gradcheck_softmax_xent)
{
    cm_rng r;
    cm_rng_seed(&r, 9, 0);
    enum { B = 4, K = 10 };
    float z[B * K], dz[B * K];
    uint8_t y[B] = {0, 9, 3, 3};
    fill_uniform(&r, z, B * K, -3, 3);
    dt_softmax_xent(z, y, B, K, dz, 1.0f, NULL);
    for (size_t i = 0; i < B * K; i++) {
        float keep = z[i];
        z[i] = keep + 1e-2f;
        float up = z[i];
        double lp = dt_softmax_xent(z, y, B, K, NULL, 1.0f, NULL);
        z[i] = keep - 1e-2f;
        float dn = z[i];
        double lm = dt_softmax_xent(z, y, B, K, NULL, 1.0f, NULL);
        z[i] = keep;
        double num = (lp - lm) / ((double)up - (double)dn);
        ck_assert_double_lt(rel_err(num, dz[i]), GC_TOL);
    }
    /* closed form: equal logits give log K per row, accuracy by first max */
    float zero[2 * 3] = {0};
    uint8_t lab[2] = {0, 2};
    size_t correct = 0;
    double l = dt_softmax_xent(zero, lab, 2, 3, NULL, 1.0f, &correct);
    ck_assert_double_eq_tol(l, 2.0 * log(3.0), 1e-12);
    ck_assert_uint_eq(correct, 1);
}
END_TEST

START_TEST(test_conv_known_answer)
{
    /* x = 1..9 (3x3); kernel [[1,0],[0,1]], bias 0.5, no padding:
       y = x[i,j] + x[i+1,j+1] + 0.5 */
    dt_layer l = {.kind = DT_CONV, .c = 1, .h = 3, .w = 3, .oc = 1, .k = 2};
    ck_assert_int_eq(dt_layer_shape(&l), 0);
    ck_assert_uint_eq(l.oh, 2);
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 0, 0, 1}, b = 0.5f;
    float y[4], *col = malloc(dt_layer_col_size(&l, 1) * sizeof *col);
    dt_conv_forward(&l, w, &b, x, y, 1, col, 1);
    const float want[4] = {6.5f, 8.5f, 12.5f, 14.5f};
    for (int i = 0; i < 4; i++)
        ck_assert_float_eq(y[i], want[i]);
    /* 3x3 box filter with padding 1: neighbourhood sums */
    dt_layer p = {.kind = DT_CONV, .c = 1, .h = 3, .w = 3, .oc = 1, .k = 3,
                  .pad = 1};
    ck_assert_int_eq(dt_layer_shape(&p), 0);
    float ones[9], y2[9], zb = 0.0f;
    float *col2 = malloc(dt_layer_col_size(&p, 1) * sizeof *col2);
    for (int i = 0; i < 9; i++)
        ones[i] = 1.0f;
    dt_conv_forward(&p, ones, &zb, x, y2, 1, col2, 1);
    const float box[9] = {12, 21, 16, 27, 45, 33, 24, 39, 28};
    for (int i = 0; i < 9; i++)
        ck_assert_float_eq(y2[i], box[i]);
    /* two input channels, two images in one GEMM: second image doubled */
    dt_layer c2 = {.kind = DT_CONV, .c = 2, .h = 2, .w = 2, .oc = 1, .k = 1};
    ck_assert_int_eq(dt_layer_shape(&c2), 0);
    float xx[16] = {1, 2, 3, 4, 10, 20, 30, 40, 2, 4, 6, 8, 20, 40, 60, 80};
    float wc[2] = {1, -1}, yy[8];
    float *col3 = malloc(dt_layer_col_size(&c2, 2) * sizeof *col3);
    dt_conv_forward(&c2, wc, &zb, xx, yy, 2, col3, 2);
    for (int i = 0; i < 4; i++) {
        ck_assert_float_eq(yy[i], -9.0f * (float)(i + 1));
        ck_assert_float_eq(yy[4 + i], -18.0f * (float)(i + 1));
    }
    free(col);
    free(col2);
    free(col3);
}
END_TEST

START_TEST(test_pool_known_answer)
{
    dt_layer l = {.kind = DT_POOL, .c = 1, .h = 4, .w = 4};
    ck_assert_int_eq(dt_layer_shape(&l), 0);
    float x[16] = {1, 5, 2, 0, 3, 4, 9, 9, -1, -2, -3, -4, -5, -6, -7, -0.5f};
    float y[4];
    int32_t arg[4];
    dt_pool_forward(&l, x, y, arg, 1);
    const float want[4] = {5, 9, -1, -0.5f};
    const int32_t wa[4] = {1, 6, 8, 15}; /* first maximum on a tie */
    for (int i = 0; i < 4; i++) {
        ck_assert_float_eq(y[i], want[i]);
        ck_assert_int_eq(arg[i], wa[i]);
    }
    float dy[4] = {1, 2, 3, 4}, dx[16];
    dt_pool_backward(&l, dy, arg, dx, 1);
    float s = 0;
    for (int i = 0; i < 16; i++)
        s += dx[i];
    ck_assert_float_eq(s, 10.0f);
    ck_assert_float_eq(dx[6], 2.0f);
    ck_assert_float_eq(dx[7], 0.0f);
}
END_TEST

/* A fused ReLU (l.relu) gives exactly the separate conv/fc then relu,
 * forward and backward. */
START_TEST(test_fused_relu)
{
    cm_rng r;
    cm_rng_seed(&r, 11, 0);
    for (int kind = 0; kind < 2; kind++) {
        dt_layer l = kind == 0
            ? (dt_layer){.kind = DT_CONV, .c = 2, .h = 6, .w = 5, .oc = 3,
                         .k = 3, .pad = 1}
            : (dt_layer){.kind = DT_FC, .c = 9, .h = 1, .w = 1, .oc = 6};
        ck_assert_int_eq(dt_layer_shape(&l), 0);
        const size_t B = 3, nin = B * dt_layer_in_size(&l);
        const size_t nout = B * dt_layer_out_size(&l);
        float *w = malloc(l.n_w * sizeof *w), b[8], x[400], y1[400], y2[400];
        float dy1[400], dy2[400], dx1[400], dx2[400], dw1[400], dw2[400];
        float db1[8] = {0}, db2[8] = {0};
        float *col = malloc((dt_layer_col_size(&l, B) + 1) * sizeof *col);
        fill_uniform(&r, w, l.n_w, -1, 1);
        fill_uniform(&r, b, l.oc, -1, 1);
        fill_uniform(&r, x, nin, -1, 1);
        fill_uniform(&r, dy1, nout, -1, 1);
        memcpy(dy2, dy1, sizeof dy1);
        memset(dw1, 0, sizeof dw1);
        memset(dw2, 0, sizeof dw2);
        dt_layer f = l;
        f.relu = 1;
        if (kind == 0) {
            dt_conv_forward(&l, w, b, x, y1, B, col, 2);
            dt_relu_forward(y1, nout);
            dt_relu_backward(y1, dy1, nout);
            dt_conv_backward(&l, w, x, y1, dy1, dx1, dw1, db1, B, col, 2);
            dt_conv_forward(&f, w, b, x, y2, B, col, 2);
            dt_conv_backward(&f, w, x, y2, dy2, dx2, dw2, db2, B, col, 2);
        } else {
            dt_fc_forward(&l, w, b, x, y1, B, col);
            dt_relu_forward(y1, nout);
            dt_relu_backward(y1, dy1, nout);
            dt_fc_backward(&l, w, x, y1, dy1, dx1, dw1, db1, B, col);
            dt_fc_forward(&f, w, b, x, y2, B, col);
            dt_fc_backward(&f, w, x, y2, dy2, dx2, dw2, db2, B, col);
        }
        int zeros = 0;
        for (size_t i = 0; i < nout; i++)
            zeros += y2[i] == 0.0f;
        ck_assert_int_gt(zeros, 0); /* the relu did something */
        ck_assert_mem_eq(y1, y2, nout * sizeof *y1);
        ck_assert_mem_eq(dx1, dx2, nin * sizeof *dx1);
        ck_assert_mem_eq(dw1, dw2, l.n_w * sizeof *dw1);
        ck_assert_mem_eq(db1, db2, l.oc * sizeof *db1);
        free(col);
        free(w);
    }
}
END_TEST

Suite *layers_suite(void)
{
    const struct {
        const char *name;
        const TTest *test;
    } cases[] = {
        {"conv_known_answer", test_conv_known_answer},
        {"pool_known_answer", test_pool_known_answer},
        {"conv_gradients", test_gradcheck_conv},
        {"nhwc_conv_matches_nchw", test_conv_nhwc},
        {"direct_conv_matches_im2col", test_conv_direct},
        {"indirect_conv_summation_order", test_conv_ind_order},
        {"fc_pool_relu_gradients", test_gradcheck_fc_pool_relu},
        {"softmax_xent_gradient", test_gradcheck_softmax_xent},
        {"fused_relu_same_bits", test_fused_relu},
    };
    Suite *s = suite_create("layers");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TCase *tc = tcase_create(cases[i].name);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
    return s;
}
