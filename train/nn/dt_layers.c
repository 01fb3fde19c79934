/* dt_layers.c: forward and backward kernels of conv, pool, fc, relu and the
 * softmax cross-entropy loss.
 *
 * NCHW convolution is im2col + one GEMM (Chellapilla et al. 2006, the Caffe
 * scheme), with `col_batch` images laid side by side in the column matrix
 * so that one GEMM covers several images: small layers (LeNet's 28x28x6)
 * then run one large GEMM instead of many tiny ones, at the cost of a copy
 * from the GEMM's (oc, n, pixel) order to NCHW. The backward pass recomputes
 * im2col rather than keeping it from the forward pass, and reuses the
 * column buffer for dcol after dW is formed. The GEMM is our own packed
 * AVX-512 kernel (BLIS-style: 8 x 32 register tile) where the CPU has
 * AVX-512, since the OpenBLAS here is pinned to its AVX2 kernels; OpenBLAS
 * otherwise.
 *
 * NHWC convolution (unpadded, AVX-512) is an indirect GEMM in the manner of
 * XNNPACK (Dukhan 2019): the register tile reads the receptive fields
 * straight from the input, so no column matrix is written or read, the
 * whole batch is one pass, and col2im is fused into the dX tile's stores.
 * Every summation runs in a fixed order: same inputs, same bits.
 */
#include "dt_layers.h"
#include "dt_kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <cblas.h>

int dt_layer_direct_available(const dt_layer *l)
{
    return dt_direct_supported(l);
}

int dt_layer_ind_available(const dt_layer *l)
{
    return dt_ind_supported(l);
}

size_t dt_layer_col_size(const dt_layer *l, size_t batch)
{
    if (l->kind == DT_FC)
        return dt_kern_gemm_work_size(batch > l->oc ? batch : l->oc);
    if (l->kind != DT_CONV)
        return 0;
#ifdef DT_AVX512
    if (l->out_nhwc)
        return dt_kern_nhwc_work_size(l);
#endif
    if (l->direct)
        return dt_direct_work_size(l);
    if (l->ind)
        return dt_ind_work_size(l);
    size_t pix = batch * l->oh * l->ow, kk = l->c * l->k * l->k;
    /* column matrix + staging matrix for the (oc, n, pixel) GEMM result +
       GEMM packing (M = oc or kk) */
    return (kk + l->oc) * pix + dt_kern_gemm_work_size(kk > l->oc ? kk : l->oc);
}

/* d[p] = s[p] + b, then max(., 0) when relu; d may equal s. Branch-free
 * selects, so the vectorizer turns them into compare-and-mask. */
static void bias_act(float *d, const float *s, float b, size_t n, int relu)
{
    if (relu) {
        for (size_t p = 0; p < n; p++) {
            float v = s[p] + b;
            d[p] = v > 0.0f ? v : 0.0f;
        }
    } else {
        for (size_t p = 0; p < n; p++)
            d[p] = s[p] + b;
    }
}

/* im2col of one image x (c,h,w) into columns [off, off + oh*ow) of a
 * (c k k) x ld matrix: col[(ci k + u) k + v][off + i ow + j] =
 * x[ci, i + u - pad, j + v - pad] (0 outside). */
static void im2col(const dt_layer *l, const float *x, float *col, size_t ld,
                   size_t off)
{
    const size_t k = l->k, h = l->h, w = l->w, oh = l->oh, ow = l->ow;
    const long pad = (long)l->pad;
    for (size_t ci = 0; ci < l->c; ci++) {
        const float *xc = x + ci * h * w;
        for (size_t u = 0; u < k; u++) {
            for (size_t v = 0; v < k; v++) {
                float *row = col + ((ci * k + u) * k + v) * ld + off;
                /* valid output columns j: 0 <= j + v - pad < w */
                long j0 = pad - (long)v, j1 = (long)w + pad - (long)v;
                if (j0 < 0) j0 = 0;
                if (j1 > (long)ow) j1 = (long)ow;
                for (size_t i = 0; i < oh; i++) {
                    long r = (long)i + (long)u - pad;
                    float *dst = row + i * ow;
                    if (r < 0 || r >= (long)h || j0 >= j1) {
                        memset(dst, 0, ow * sizeof *dst);
                        continue;
                    }
                    const float *src = xc + (size_t)r * w + (long)v - pad;
                    for (long j = 0; j < j0; j++)
                        dst[j] = 0.0f;
                    memcpy(dst + j0, src + j0, (size_t)(j1 - j0) * sizeof *dst);
                    for (long j = j1; j < (long)ow; j++)
                        dst[j] = 0.0f;
                }
            }
        }
    }
}

/* col2im: the adjoint of im2col; ADDS the columns back into dx (c,h,w). */
static void col2im(const dt_layer *l, const float *col, size_t ld, size_t off,
                   float *dx)
{
    const size_t k = l->k, h = l->h, w = l->w, oh = l->oh, ow = l->ow;
    const long pad = (long)l->pad;
    for (size_t ci = 0; ci < l->c; ci++) {
        float *dc = dx + ci * h * w;
        for (size_t u = 0; u < k; u++) {
            for (size_t v = 0; v < k; v++) {
                const float *row = col + ((ci * k + u) * k + v) * ld + off;
                long j0 = pad - (long)v, j1 = (long)w + pad - (long)v;
                if (j0 < 0) j0 = 0;
                if (j1 > (long)ow) j1 = (long)ow;
                for (size_t i = 0; i < oh; i++) {
                    long r = (long)i + (long)u - pad;
                    if (r < 0 || r >= (long)h)
                        continue;
                    float *dst = dc + (size_t)r * w + (long)v - pad;
                    const float *src = row + i * ow;
                    for (long j = j0; j < j1; j++)
                        dst[j] += src[j];
                }
            }
        }
    }
}

void dt_conv_forward(const dt_layer *l, const float *w, const float *b,
                     const float *x, float *y, size_t batch, float *col,
                     size_t col_batch)
{
    const size_t in = dt_layer_in_size(l), out = dt_layer_out_size(l);
    const size_t pix = l->oh * l->ow, kk = l->c * l->k * l->k;
#ifdef DT_AVX512
    if (l->out_nhwc) {
        dt_kern_conv_nhwc_forward(l, w, b, x, y, batch, col);
        return;
    }
#endif
    if (l->direct) {
        dt_direct_forward(l, w, b, x, y, batch, col);
        return;
    }
    if (l->ind) {
        dt_ind_forward(l, w, b, x, y, batch, col);
        return;
    }
    for (size_t n0 = 0; n0 < batch; n0 += col_batch) {
        size_t nb = batch - n0 < col_batch ? batch - n0 : col_batch;
        size_t ld = nb * pix;
        float *work = col + (kk + l->oc) * ld;
        for (size_t n = 0; n < nb; n++)
            im2col(l, x + (n0 + n) * in, col, ld, n * pix);
        if (nb == 1) {
            float *yn = y + n0 * out;
            dt_kern_gemm(0, 0, l->oc, pix, kk, w, kk, col, ld, 0, yn, pix,
                         work, l->avx512);
            for (size_t o = 0; o < l->oc; o++)
                bias_act(yn + o * pix, yn + o * pix, b[o], pix, l->relu);
            continue;
        }
        float *stage = col + kk * ld; /* (oc) x (nb pix) */
        dt_kern_gemm(0, 0, l->oc, ld, kk, w, kk, col, ld, 0, stage, ld, work,
                     l->avx512);
        for (size_t n = 0; n < nb; n++) {
            float *yn = y + (n0 + n) * out;
            for (size_t o = 0; o < l->oc; o++)
                bias_act(yn + o * pix, stage + o * ld + n * pix, b[o], pix,
                         l->relu);
        }
    }
}

void dt_conv_backward(const dt_layer *l, const float *w, const float *x,
                      const float *y, float *dy, float *dx, float *dw,
                      float *db, size_t batch, float *col, size_t col_batch)
{
    const size_t in = dt_layer_in_size(l), out = dt_layer_out_size(l);
    const size_t pix = l->oh * l->ow, kk = l->c * l->k * l->k;
#ifdef DT_AVX512
    if (l->out_nhwc) {
        dt_kern_conv_nhwc_backward(l, w, x, y, dy, dx, dw, db, batch, col);
        return;
    }
#endif
    if (l->relu)
        dt_relu_backward(y, dy, batch * out);
    if (l->direct) {
        dt_direct_backward(l, x, dy, dw, db, batch, col);
        return;
    }
    if (l->ind) {
        dt_ind_backward(l, w, x, dy, dx, dw, db, batch, col);
        return;
    }
    for (size_t n0 = 0; n0 < batch; n0 += col_batch) {
        size_t nb = batch - n0 < col_batch ? batch - n0 : col_batch;
        size_t ld = nb * pix;
        float *work = col + (kk + l->oc) * ld;
        const float *g; /* dy of the nb images as (oc) x (nb pix) */
        if (nb == 1) {
            g = dy + n0 * out;
        } else {
            float *stage = col + kk * ld;
            for (size_t n = 0; n < nb; n++)
                for (size_t o = 0; o < l->oc; o++)
                    memcpy(stage + o * ld + n * pix,
                           dy + (n0 + n) * out + o * pix, pix * sizeof *stage);
            g = stage;
        }
        for (size_t o = 0; o < l->oc; o++) {
            const float *go = g + o * ld;
            float s = 0.0f;
            for (size_t p = 0; p < ld; p++)
                s += go[p];
            db[o] += s;
        }
        for (size_t n = 0; n < nb; n++)
            im2col(l, x + (n0 + n) * in, col, ld, n * pix);
        /* dW (oc x kk) += g (oc x ld) col^T (ld x kk) */
        dt_kern_gemm(0, 1, l->oc, kk, ld, g, ld, col, ld, 1, dw, kk, work,
                     l->avx512);
        if (!dx)
            continue;
        /* dcol (kk x ld) = W^T (kk x oc) g (oc x ld), over col */
        dt_kern_gemm(1, 0, kk, ld, l->oc, w, kk, g, ld, 0, col, ld, work,
                     l->avx512);
        memset(dx + n0 * in, 0, nb * in * sizeof *dx);
        for (size_t n = 0; n < nb; n++)
            col2im(l, col, ld, n * pix, dx + (n0 + n) * in);
    }
}

/* NHWC input; output NHWC (out_nhwc) or NCHW (e.g. before an fc, whose
 * weights expect the (c, h, w) flattening). Same order of comparisons as
 * the NCHW loop, vectorized over the channels. */
static void pool_nhwc_forward(const dt_layer *l, const float *x, float *y,
                              int32_t *arg, size_t batch)
{
    const size_t in = dt_layer_in_size(l), out = dt_layer_out_size(l);
    const size_t C = l->c, w = l->w, oh = l->oh, ow = l->ow;
    const size_t so = l->out_nhwc ? 1 : oh * ow; /* output channel stride */
    for (size_t n = 0; n < batch; n++) {
        const float *xn = x + n * in;
        float *yn = y + n * out;
        int32_t *an = arg + n * out;
        for (size_t i = 0; i < oh; i++)
            for (size_t j = 0; j < ow; j++) {
                const int32_t p = (int32_t)(((2 * i) * w + 2 * j) * C);
                const int32_t dr = (int32_t)(w * C);
                const float *r0 = xn + p, *r1 = r0 + dr;
                size_t o = l->out_nhwc ? (i * ow + j) * C : i * ow + j;
                for (size_t ci = 0; ci < C; ci++) {
                    float a = r0[ci], b = r0[ci + C];
                    float cc = r1[ci], d = r1[ci + C];
                    int32_t q = p + (int32_t)ci;
                    float m1 = b > a ? b : a;
                    int32_t i1 = b > a ? q + (int32_t)C : q;
                    float m2 = d > cc ? d : cc;
                    int32_t i2 = d > cc ? q + dr + (int32_t)C : q + dr;
                    yn[o + ci * so] = m2 > m1 ? m2 : m1;
                    an[o + ci * so] = m2 > m1 ? i2 : i1;
                }
            }
    }
}

void dt_pool_forward(const dt_layer *l, const float *x, float *y,
                     int32_t *arg, size_t batch)
{
    const size_t in = dt_layer_in_size(l), out = dt_layer_out_size(l);
    const size_t h = l->h, w = l->w, oh = l->oh, ow = l->ow;
    if (l->in_nhwc) {
        pool_nhwc_forward(l, x, y, arg, batch);
        return;
    }
    for (size_t n = 0; n < batch; n++) {
        const float *xn = x + n * in;
        float *yn = y + n * out;
        int32_t *an = arg + n * out;
        for (size_t c = 0; c < l->c; c++) {
            for (size_t i = 0; i < oh; i++) {
                const int32_t base = (int32_t)(c * h * w + 2 * i * w);
                const float *r0 = xn + base, *r1 = r0 + w;
                /* output NCHW, or NHWC (out_nhwc: for an indirect conv) */
                const size_t os = l->out_nhwc ? l->c : 1;
                const size_t ob = l->out_nhwc ? i * ow * l->c + c
                                              : (c * oh + i) * ow;
                float *yo = yn + ob;
                int32_t *ao = an + ob;
                /* branch-free first maximum of (a, b, c, d) in that order:
                   random data would mispredict every other branch */
                for (size_t j = 0; j < ow; j++) {
                    float a = r0[2 * j], b = r0[2 * j + 1];
                    float cc = r1[2 * j], d = r1[2 * j + 1];
                    int32_t p = base + 2 * (int32_t)j;
                    float m1 = b > a ? b : a;
                    int32_t i1 = b > a ? p + 1 : p;
                    float m2 = d > cc ? d : cc;
                    int32_t i2 = d > cc ? p + (int32_t)w + 1 : p + (int32_t)w;
                    yo[j * os] = m2 > m1 ? m2 : m1;
                    ao[j * os] = m2 > m1 ? i2 : i1;
                }
            }
        }
    }
}

/* NHWC input: each 2x2 window written whole (dy at the arg-max, 0 at the
 * other three), so only an odd trailing row or column needs the zero-fill:
 * one pass over dx instead of two. */
static void pool_nhwc_backward(const dt_layer *l, const float *dy,
                               const int32_t *arg, float *dx, size_t batch)
{
    const size_t in = dt_layer_in_size(l), out = dt_layer_out_size(l);
    const size_t C = l->c, w = l->w, oh = l->oh, ow = l->ow;
    const size_t so = l->out_nhwc ? 1 : oh * ow; /* output channel stride */
    const int32_t dr = (int32_t)(w * C), dc = (int32_t)C;
    if (l->h % 2 || w % 2)
        memset(dx, 0, batch * in * sizeof *dx);
    for (size_t n = 0; n < batch; n++) {
        float *dxn = dx + n * in;
        const float *dyn = dy + n * out;
        const int32_t *an = arg + n * out;
        for (size_t i = 0; i < oh; i++)
            for (size_t j = 0; j < ow; j++) {
                const int32_t p = (int32_t)(((2 * i) * w + 2 * j) * C);
                float *d0 = dxn + p, *d1 = d0 + dr;
                size_t o = l->out_nhwc ? (i * ow + j) * C : i * ow + j;
                for (size_t ci = 0; ci < C; ci++) {
                    int32_t a = an[o + ci * so], q = p + (int32_t)ci;
                    float g = dyn[o + ci * so];
                    d0[ci] = a == q ? g : 0.0f;
                    d0[ci + C] = a == q + dc ? g : 0.0f;
                    d1[ci] = a == q + dr ? g : 0.0f;
                    d1[ci + C] = a == q + dr + dc ? g : 0.0f;
                }
            }
    }
}

void dt_pool_backward(const dt_layer *l, const float *dy, const int32_t *arg,
                      float *dx, size_t batch)
{
    const size_t in = dt_layer_in_size(l), out = dt_layer_out_size(l);
    if (l->in_nhwc) {
        pool_nhwc_backward(l, dy, arg, dx, batch);
        return;
    }
    memset(dx, 0, batch * in * sizeof *dx);
    for (size_t n = 0; n < batch; n++) {
        float *dxn = dx + n * in;
        const float *dyn = dy + n * out;
        const int32_t *an = arg + n * out;
        for (size_t o = 0; o < out; o++)
            dxn[an[o]] += dyn[o];
    }
}

void dt_fc_forward(const dt_layer *l, const float *w, const float *b,
                   const float *x, float *y, size_t batch, float *work)
{
    const size_t in = dt_layer_in_size(l), oc = l->oc;
    for (size_t n = 0; n < batch; n++)
        memcpy(y + n * oc, b, oc * sizeof *y);
    dt_kern_gemm(0, 1, batch, oc, in, x, in, w, in, 1, y, oc, work, l->avx512);
    if (l->relu)
        dt_relu_forward(y, batch * oc);
}

void dt_fc_backward(const dt_layer *l, const float *w, const float *x,
                    const float *y, float *dy, float *dx, float *dw,
                    float *db, size_t batch, float *work)
{
    const size_t in = dt_layer_in_size(l), oc = l->oc;
    if (l->relu)
        dt_relu_backward(y, dy, batch * oc);
    for (size_t n = 0; n < batch; n++)
        for (size_t o = 0; o < oc; o++)
            db[o] += dy[n * oc + o];
    dt_kern_gemm(1, 0, oc, in, batch, dy, oc, x, in, 1, dw, in, work,
                 l->avx512);
    if (dx)
        dt_kern_gemm(0, 0, batch, in, oc, dy, oc, w, in, 0, dx, in, work,
                     l->avx512);
}

void dt_relu_forward(float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = y[i];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

void dt_relu_backward(const float *restrict y, float *restrict dy, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float g = dy[i];
        dy[i] = y[i] > 0.0f ? g : 0.0f;
    }
}

double dt_softmax_xent(const float *z, const uint8_t *labels, size_t batch,
                       size_t classes, float *dz, float scale,
                       size_t *correct)
{
    double loss = 0.0;
    for (size_t n = 0; n < batch; n++) {
        const float *zn = z + n * classes;
        size_t am = 0;
        for (size_t k = 1; k < classes; k++)
            if (zn[k] > zn[am])
                am = k;
        if (correct && am == labels[n])
            (*correct)++;
        double m = zn[am], s = 0.0;
        for (size_t k = 0; k < classes; k++)
            s += exp((double)zn[k] - m);
        double lse = m + log(s);
        loss += lse - (double)zn[labels[n]];
        if (dz) {
            float *dn = dz + n * classes;
            for (size_t k = 0; k < classes; k++) {
                double p = exp((double)zn[k] - lse);
                dn[k] = (float)(p - (k == labels[n] ? 1.0 : 0.0)) * scale;
            }
        }
    }
    return loss;
}
