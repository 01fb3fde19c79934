/* check_wino.c: the Winograd F(2x2, 3x3) convolution (dt_wino.c) of the
 * AVX2 path. Forward, dX and dW against a scalar reference of the kernel's
 * documented order of operations BIT FOR BIT (the trajectory hashes of
 * the CNN rest on it, so a change of order must fail here), and against
 * the portable path (im2col + OpenBLAS) within a tolerance: Winograd
 * rounds differently (its transforms add and subtract up to 9 terms before
 * the products), max |difference| / max |reference| measured 1.8e-7 to
 * 9.5e-7 on these shapes; the test allows 1e-5. Shapes: NCHW and NHWC
 * inputs, 16 to 64 channels each way, tile counts that are no multiple of
 * the 48-tile block nor of the 6-tile register tile, groups of images. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_env.h"
#include "check_num.h"
#include "cm_rng.h"
#include "dt_kernels.h"
#include "dt_layers.h"

#define WINO_TOL 1e-5

/* The kernel's weight transform for one (c, k): u[xi] = (G g G^T)[xi]. */
static void ref_weight(const float g[3][3], float u[16])
{
    float t[4][3];
    for (int b = 0; b < 3; b++) {
        t[0][b] = g[0][b];
        t[1][b] = 0.5f * (g[0][b] + g[1][b] + g[2][b]);
        t[2][b] = 0.5f * (g[0][b] - g[1][b] + g[2][b]);
        t[3][b] = g[2][b];
    }
    for (int a = 0; a < 4; a++) {
        u[4 * a] = t[a][0];
        u[4 * a + 1] = 0.5f * (t[a][0] + t[a][1] + t[a][2]);
        u[4 * a + 2] = 0.5f * (t[a][0] - t[a][1] + t[a][2]);
        u[4 * a + 3] = t[a][2];
    }
}

/* v[xi][c] = B^T d B of the 4x4 tile at p (NHWC rows w c apart): rows
 * t0 = d0 - d2, t1 = d1 + d2, t2 = d2 - d1, t3 = d1 - d3, then columns. */
static void ref_v(const float *p, size_t w, size_t c, float *v)
{
    for (size_t ci = 0; ci < c; ci++) {
        float d[16], t[16];
        for (int e = 0; e < 16; e++)
            d[e] = p[((size_t)(e / 4) * w + (size_t)(e % 4)) * c + ci];
        for (int b = 0; b < 4; b++) {
            t[b] = d[b] - d[8 + b];
            t[4 + b] = d[4 + b] + d[8 + b];
            t[8 + b] = d[8 + b] - d[4 + b];
            t[12 + b] = d[4 + b] - d[12 + b];
        }
        for (int a = 0; a < 4; a++) {
            v[(size_t)(4 * a) * c + ci] = t[4 * a] - t[4 * a + 2];
            v[(size_t)(4 * a + 1) * c + ci] = t[4 * a + 1] + t[4 * a + 2];
            v[(size_t)(4 * a + 2) * c + ci] = t[4 * a + 2] - t[4 * a + 1];
            v[(size_t)(4 * a + 3) * c + ci] = t[4 * a + 1] - t[4 * a + 3];
        }
    }
}

/* The valid 3x3 conv of n NHWC images (h x w x c) with weights wt(k, c,
 * u, v) into NHWC (h-2) x (w-2) x k, in the kernel's order: U per (c, k);
 * per tile and channel V = B^T d B (rows, then columns, as written);
 * M[xi] = fmaf chain over c from +0; Y = A^T M A ((m0 + m1) + m2,
 * (m1 - m2) - m3, rows then columns); + bias; ReLU. */
static void ref_conv(const float *x, size_t n, size_t h, size_t w, size_t c,
                     const float *wt, size_t k, const float *bias, int relu,
                     float *y)
{
    float *u = malloc(16 * c * k * sizeof *u), *v = malloc(16 * c * sizeof *v);
    ck_assert_ptr_nonnull(u);
    ck_assert_ptr_nonnull(v);
    for (size_t o = 0; o < k; o++)
        for (size_t ci = 0; ci < c; ci++) {
            float g[3][3], uu[16];
            for (int a = 0; a < 9; a++)
                g[a / 3][a % 3] = wt[(o * c + ci) * 9 + (size_t)a];
            ref_weight(g, uu);
            for (int e = 0; e < 16; e++)
                u[((size_t)e * c + ci) * k + o] = uu[e];
        }
    const size_t oh = h - 2, ow = w - 2;
    for (size_t im = 0; im < n; im++)
        for (size_t ti = 0; ti < oh / 2; ti++)
            for (size_t tj = 0; tj < ow / 2; tj++) {
                const float *p = x + im * h * w * c + (2 * ti * w + 2 * tj) * c;
                ref_v(p, w, c, v);
                for (size_t o = 0; o < k; o++) {
                    float m[16], s[8];
                    for (size_t e = 0; e < 16; e++) {
                        float a = 0.0f;
                        for (size_t ci = 0; ci < c; ci++)
                            a = fmaf(v[e * c + ci], u[(e * c + ci) * k + o], a);
                        m[e] = a;
                    }
                    for (int b = 0; b < 4; b++) {
                        s[b] = m[b] + m[4 + b] + m[8 + b];
                        s[4 + b] = m[4 + b] - m[8 + b] - m[12 + b];
                    }
                    for (int a = 0; a < 2; a++) {
                        float r[2] = {s[4 * a] + s[4 * a + 1] + s[4 * a + 2],
                                      s[4 * a + 1] - s[4 * a + 2] - s[4 * a + 3]};
                        for (int b = 0; b < 2; b++) {
                            float q = r[b];
                            if (bias)
                                q = q + bias[o];
                            if (relu)
                                q = q > 0.0f ? q : 0.0f;
                            y[((im * oh + 2 * ti + (size_t)a) * ow + 2 * tj +
                               (size_t)b) * k + o] = q;
                        }
                    }
                }
            }
    free(v);
    free(u);
}

/* dw(k, c) += G^T dU G, dU[xi](c, k) = fmaf chain over the tiles (images
 * and tiles in order, from +0) of V[xi](tile, c) Z[xi](tile, k), Z = A dY
 * A^T (rows y0, y0 + y1, y0 - y1, 0 - y1, then columns); G^T dU G as
 * u0 + 1/2 (u1 + u2), 1/2 (u1 - u2), 1/2 (u1 + u2) + u3, rows then
 * columns. x NHWC (h x w x c), dy NHWC ((h-2) x (w-2) x k). */
static void ref_dw(const float *x, const float *dy, size_t n, size_t h,
                   size_t w, size_t c, size_t k, float *dw)
{
    float *du = calloc(16 * c * k, sizeof *du), *v = malloc(16 * c * sizeof *v);
    ck_assert_ptr_nonnull(du);
    ck_assert_ptr_nonnull(v);
    const size_t oh = h - 2, ow = w - 2;
    for (size_t im = 0; im < n; im++)
        for (size_t ti = 0; ti < oh / 2; ti++)
            for (size_t tj = 0; tj < ow / 2; tj++) {
                ref_v(x + im * h * w * c + (2 * ti * w + 2 * tj) * c, w, c, v);
                const float *p = dy + ((im * oh + 2 * ti) * ow + 2 * tj) * k;
                for (size_t o = 0; o < k; o++) {
                    float y[4] = {p[o], p[k + o], p[ow * k + o],
                                  p[(ow + 1) * k + o]}, t[8], z[16];
                    for (int b = 0; b < 2; b++) {
                        t[b] = y[b];
                        t[2 + b] = y[b] + y[2 + b];
                        t[4 + b] = y[b] - y[2 + b];
                        t[6 + b] = 0.0f - y[2 + b];
                    }
                    for (int a = 0; a < 4; a++) {
                        z[4 * a] = t[2 * a];
                        z[4 * a + 1] = t[2 * a] + t[2 * a + 1];
                        z[4 * a + 2] = t[2 * a] - t[2 * a + 1];
                        z[4 * a + 3] = 0.0f - t[2 * a + 1];
                    }
                    for (size_t e = 0; e < 16; e++)
                        for (size_t ci = 0; ci < c; ci++) {
                            float *d = du + (e * c + ci) * k + o;
                            *d = fmaf(v[e * c + ci], z[e], *d);
                        }
                }
            }
    for (size_t ci = 0; ci < c; ci++)
        for (size_t o = 0; o < k; o++) {
            float u[16], t[3][4];
            for (size_t e = 0; e < 16; e++)
                u[e] = du[(e * c + ci) * k + o];
            for (int b = 0; b < 4; b++) {
                t[0][b] = u[b] + 0.5f * (u[4 + b] + u[8 + b]);
                t[1][b] = 0.5f * (u[4 + b] - u[8 + b]);
                t[2][b] = 0.5f * (u[4 + b] + u[8 + b]) + u[12 + b];
            }
            float *d = dw + (o * c + ci) * 9;
            for (int a = 0; a < 3; a++) {
                d[3 * a] += t[a][0] + 0.5f * (t[a][1] + t[a][2]);
                d[3 * a + 1] += 0.5f * (t[a][1] - t[a][2]);
                d[3 * a + 2] += 0.5f * (t[a][1] + t[a][2]) + t[a][3];
            }
        }
    free(v);
    free(du);
}

/* NCHW <-> NHWC of n images (to_nhwc: x NCHW, y NHWC; else back). */
static void relayout(const float *x, float *y, size_t n, size_t c, size_t hw,
                     int to_nhwc)
{
    for (size_t i = 0; i < n; i++)
        for (size_t ci = 0; ci < c; ci++)
            for (size_t p = 0; p < hw; p++) {
                size_t a = (i * c + ci) * hw + p, b = (i * hw + p) * c + ci;
                y[to_nhwc ? b : a] = x[to_nhwc ? a : b];
            }
}

static double max_abs(const float *a, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

/* Forward, dX and dW of each shape: bit for bit against ref_conv, within
 * WINO_TOL (relative to the largest value) against im2col + OpenBLAS. */
START_TEST(test_wino_order_and_accuracy)
{
    static const size_t cases[][6] = {/* c, h, w, oc, batch, nhwc */
        {32, 26, 26, 32, 2, 0}, {32, 12, 12, 64, 3, 1},
        {64, 10, 10, 64, 5, 1}, {48, 8, 6, 16, 1, 0},
        {32, 6, 14, 48, 7, 1}};
    cm_rng r;
    cm_rng_seed(&r, 41, 0);
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const size_t *cs = cases[t], B = cs[4];
        dt_layer l = {.kind = DT_CONV, .c = cs[0], .h = cs[1], .w = cs[2],
                      .oc = cs[3], .k = 3, .in_nhwc = (int)cs[5],
                      .relu = (int)(t % 2 == 0)};
        ck_assert_int_eq(dt_layer_shape(&l), 0);
        ck_assert(dt_wino_applies(&l));
        if (!check_allow_own || !dt_layer_ind_available(&l))
            return;
        const size_t hw = l.h * l.w, ohw = l.oh * l.ow;
        const size_t nin = B * l.c * hw, nout = B * l.oc * ohw;
        float *buf = malloc((4 * nin + 5 * nout + l.n_w + l.oc +
                             dt_wino_work_size(&l)) * sizeof *buf);
        ck_assert_ptr_nonnull(buf);
        float *x = buf, *xh = x + nin, *dx = xh + nin, *rdx = dx + nin;
        float *y = rdx + nin, *ry = y + nout, *dy = ry + nout;
        float *dyp = dy + nout, *yp = dyp + nout, *w = yp + nout;
        float *b = w + l.n_w, *work = b + l.oc;
        fill_uniform(&r, x, nin, -1, 1); /* in l's layout */
        fill_uniform(&r, w, l.n_w, -0.3, 0.3);
        fill_uniform(&r, b, l.oc, -0.5, 0.5);
        fill_uniform(&r, dy, nout, -1, 1); /* NHWC */
        if (l.in_nhwc)
            memcpy(xh, x, nin * sizeof *x);
        else
            relayout(x, xh, B, l.c, hw, 1);
        /* forward, bit for bit */
        dt_wino_forward(&l, w, b, x, y, B, work);
        ref_conv(xh, B, l.h, l.w, l.c, w, l.oc, b, l.relu, ry);
        ck_assert_mem_eq(y, ry, nout * sizeof *y);
        int zeros = 0;
        for (size_t i = 0; i < nout; i++)
            zeros += y[i] == 0.0f;
        ck_assert_int_eq(zeros > 0, l.relu); /* the relu did something */
        /* dW, added to what dw holds */
        float *dwa = malloc(2 * l.n_w * sizeof *dwa), *dwb = dwa + l.n_w;
        ck_assert_ptr_nonnull(dwa);
        fill_uniform(&r, dwa, l.n_w, -1, 1);
        memcpy(dwb, dwa, l.n_w * sizeof *dwa);
        dt_wino_dw(&l, x, dy, dwa, B, work);
        ref_dw(xh, dy, B, l.h, l.w, l.c, l.oc, dwb);
        ck_assert_mem_eq(dwa, dwb, l.n_w * sizeof *dwa);
        /* dX: the padded dy through the flipped, transposed weights */
        for (size_t i = 0; i < nin; i++)
            dx[i] = 9.0f; /* overwritten, not added to */
        dt_wino_dx(&l, w, dy, dx, B, work);
        const size_t ph = l.oh + 4, pw = l.ow + 4;
        float *pad = calloc(B * ph * pw * l.oc + l.n_w, sizeof *pad);
        ck_assert_ptr_nonnull(pad);
        float *wf = pad + B * ph * pw * l.oc;
        for (size_t n = 0; n < B; n++)
            for (size_t i = 0; i < l.oh; i++)
                memcpy(pad + ((n * ph + i + 2) * pw + 2) * l.oc,
                       dy + (n * ohw + i * l.ow) * l.oc,
                       l.ow * l.oc * sizeof *pad);
        for (size_t o = 0; o < l.oc; o++)
            for (size_t ci = 0; ci < l.c; ci++)
                for (size_t e = 0; e < 9; e++)
                    wf[(ci * l.oc + o) * 9 + e] = w[(o * l.c + ci) * 9 + 8 - e];
        ref_conv(pad, B, ph, pw, l.oc, wf, l.c, NULL, 0, xh);
        if (l.in_nhwc)
            memcpy(rdx, xh, nin * sizeof *x);
        else
            relayout(xh, rdx, B, l.c, hw, 0);
        ck_assert_mem_eq(dx, rdx, nin * sizeof *dx);
        free(pad);
        /* against im2col + OpenBLAS (NCHW, no ReLU so dy reaches dx) */
        dt_layer p = l;
        p.in_nhwc = 0;
        p.relu = 0;
        float *xc = malloc((2 * nin + nout + 2 * l.n_w + l.oc +
                            dt_layer_col_size(&p, B)) * sizeof *xc);
        ck_assert_ptr_nonnull(xc);
        float *dxc = xc + nin, *dyc = dxc + nin, *dw = dyc + nout;
        float *db = dw + l.n_w, *col = db + l.oc;
        if (l.in_nhwc)
            relayout(x, xc, B, l.c, hw, 0);
        else
            memcpy(xc, x, nin * sizeof *x);
        l.relu = 0;
        dt_wino_forward(&l, w, b, x, y, B, work);
        dt_conv_forward(&p, w, b, xc, yp, B, col, B);
        relayout(yp, ry, B, l.oc, ohw, 1);
        double e = 0.0;
        for (size_t i = 0; i < nout; i++)
            e = fmax(e, fabs(y[i] - ry[i]));
        ck_assert(e <= WINO_TOL * max_abs(ry, nout));
        relayout(dy, dyc, B, l.oc, ohw, 0);
        memset(dw, 0, (l.n_w + l.oc) * sizeof *dw);
        dt_conv_backward(&p, w, xc, yp, dyc, dxc, dw, db, B, col, B);
        if (l.in_nhwc)
            relayout(dxc, rdx, B, l.c, hw, 1);
        else
            memcpy(rdx, dxc, nin * sizeof *x);
        e = 0.0;
        for (size_t i = 0; i < nin; i++)
            e = fmax(e, fabs(dx[i] - rdx[i]));
        ck_assert(e <= WINO_TOL * max_abs(rdx, nin));
        memset(dwa, 0, l.n_w * sizeof *dwa);
        dt_wino_dw(&l, x, dy, dwa, B, work);
        e = 0.0;
        for (size_t i = 0; i < l.n_w; i++)
            e = fmax(e, fabs(dwa[i] - dw[i]));
        ck_assert(e <= WINO_TOL * max_abs(dw, l.n_w));
        free(dwa);
        free(xc);
        free(buf);
    }
}
END_TEST

/* Where it applies: the CNN's 3x3 convs with >= 32 channels in and
 * multiples of 16 both ways, even outputs; not LeNet's, not padded ones. */
START_TEST(test_wino_applies)
{
    dt_layer a = {.kind = DT_CONV, .c = 32, .h = 26, .w = 26, .oc = 32, .k = 3};
    ck_assert_int_eq(dt_layer_shape(&a), 0);
    ck_assert(dt_wino_applies(&a));
    dt_layer b = a;
    b.c = 16; /* too few input channels */
    ck_assert(!dt_wino_applies(&b));
    b = a;
    b.oc = 33;
    ck_assert(!dt_wino_applies(&b));
    b = a;
    b.w = 27; /* odd output width */
    ck_assert_int_eq(dt_layer_shape(&b), 0);
    ck_assert(!dt_wino_applies(&b));
    b = a;
    b.k = 5;
    ck_assert_int_eq(dt_layer_shape(&b), 0);
    ck_assert(!dt_wino_applies(&b));
    b = a;
    b.pad = 1;
    ck_assert(!dt_wino_applies(&b));
}
END_TEST

Suite *wino_suite(void)
{
    Suite *s = suite_create("wino");
    TCase *tc = tcase_create("winograd_conv");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_wino_applies);
    tcase_add_test(tc, test_wino_order_and_accuracy);
    suite_add_tcase(s, tc);
    return s;
}
