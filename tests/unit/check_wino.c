/* check_wino.c: the Winograd F(2x2, 3x3) convolution (dt_wino.c) of the
 * AVX2 path. Forward, dX and dW against the convolution's definition
 * computed in double (an oracle that shares nothing with the transforms),
 * and against the portable path (im2col + OpenBLAS), within a tolerance
 * (the bits of the CNN's trajectory are guarded by a recorded workers-hash
 * in tests/contract/same-bits.sh, not here): Winograd rounds differently (its transforms add and subtract up to 9 terms before
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

/* The oracle: the convolution's definition, in double, independent of
 * the Winograd transforms. x NHWC (n x h x w x c), wt(k, c, u, v),
 * y NHWC (n x (h-2) x (w-2) x k):
 *   y[i, j, o] = relu(bias[o] + sum_{c,u,v} x[i+u, j+v, c] wt[o, c, u, v]). */
static void def_conv(const float *x, size_t n, size_t h, size_t w, size_t c,
                     const float *wt, size_t k, const float *bias, int relu,
                     double *y)
{
    const size_t oh = h - 2, ow = w - 2;
    for (size_t im = 0; im < n; im++)
        for (size_t i = 0; i < oh; i++)
            for (size_t j = 0; j < ow; j++)
                for (size_t o = 0; o < k; o++) {
                    double a = bias ? bias[o] : 0.0;
                    for (size_t ci = 0; ci < c; ci++)
                        for (size_t u = 0; u < 3; u++)
                            for (size_t v = 0; v < 3; v++)
                                a += (double)x[((im * h + i + u) * w + j + v) *
                                               c + ci] *
                                     wt[((o * c + ci) * 3 + u) * 3 + v];
                    y[((im * oh + i) * ow + j) * k + o] =
                        relu && a < 0.0 ? 0.0 : a;
                }
}

/* dL/dW by its definition: dw[o, c, u, v] = sum_{im,i,j} x[im, i+u, j+v, c]
 * dy[im, i, j, o] (dy NHWC, (h-2) x (w-2) x k). */
static void def_dw(const float *x, const float *dy, size_t n, size_t h,
                   size_t w, size_t c, size_t k, double *dw)
{
    const size_t oh = h - 2, ow = w - 2;
    for (size_t o = 0; o < k; o++)
        for (size_t ci = 0; ci < c; ci++)
            for (size_t u = 0; u < 3; u++)
                for (size_t v = 0; v < 3; v++) {
                    double a = 0.0;
                    for (size_t im = 0; im < n; im++)
                        for (size_t i = 0; i < oh; i++)
                            for (size_t j = 0; j < ow; j++)
                                a += (double)x[((im * h + i + u) * w + j + v) *
                                               c + ci] *
                                     dy[((im * oh + i) * ow + j) * k + o];
                    dw[((o * c + ci) * 3 + u) * 3 + v] = a;
                }
}

/* dL/dX by its definition: dx[im, p, q, c] = sum over the outputs (i, j)
 * = (p - u, q - v) inside the output of dy[im, i, j, o] wt[o, c, u, v]
 * (dx NHWC, h x w x c). */
static void def_dx(const float *dy, const float *wt, size_t n, size_t h,
                   size_t w, size_t c, size_t k, double *dx)
{
    const size_t oh = h - 2, ow = w - 2;
    for (size_t im = 0; im < n; im++)
        for (size_t p = 0; p < h; p++)
            for (size_t q = 0; q < w; q++)
                for (size_t ci = 0; ci < c; ci++) {
                    double a = 0.0;
                    for (size_t u = 0; u < 3; u++)
                        for (size_t v = 0; v < 3; v++) {
                            if (p < u || q < v || p - u >= oh || q - v >= ow)
                                continue;
                            for (size_t o = 0; o < k; o++)
                                a += (double)dy[((im * oh + p - u) * ow +
                                                 q - v) * k + o] *
                                     wt[((o * c + ci) * 3 + u) * 3 + v];
                        }
                    dx[((im * h + p) * w + q) * c + ci] = a;
                }
}

/* max |got - want| <= WINO_TOL max |want| (got float, want double). */
static void assert_close(const float *got, const double *want, size_t len,
                         const char *what)
{
    double e = 0.0, m = 0.0;
    for (size_t i = 0; i < len; i++) {
        e = fmax(e, fabs((double)got[i] - want[i]));
        m = fmax(m, fabs(want[i]));
    }
    ck_assert_msg(m > 0.0 && e <= WINO_TOL * m, "%s: max error %g of %g",
                  what, e, m);
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

/* Forward, dX and dW of each shape within WINO_TOL (relative to the
 * largest value) of the definition in double, and of im2col + OpenBLAS. */
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
        /* forward against the definition */
        double *ref = malloc((nin > nout ? nin : nout) * sizeof *ref);
        double *refw = malloc(l.n_w * sizeof *refw);
        ck_assert_ptr_nonnull(ref);
        ck_assert_ptr_nonnull(refw);
        dt_wino_forward(&l, w, b, x, y, B, work);
        def_conv(xh, B, l.h, l.w, l.c, w, l.oc, b, l.relu, ref);
        assert_close(y, ref, nout, "forward");
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
        def_dw(xh, dy, B, l.h, l.w, l.c, l.oc, refw);
        for (size_t i = 0; i < l.n_w; i++) /* added to what dw held */
            refw[i] += dwb[i];
        assert_close(dwa, refw, l.n_w, "dW");
        /* dX against the definition, overwritten (not added to) */
        for (size_t i = 0; i < nin; i++)
            dx[i] = 9.0f;
        dt_wino_dx(&l, w, dy, dx, B, work);
        def_dx(dy, w, B, l.h, l.w, l.c, l.oc, ref);
        if (l.in_nhwc)
            memcpy(xh, dx, nin * sizeof *dx);
        else
            relayout(dx, xh, B, l.c, hw, 1);
        assert_close(xh, ref, nin, "dX");
        free(refw);
        free(ref);
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
