/* dt_wino.c: Winograd F(2x2, 3x3) convolution for CPUs with AVX2 + FMA
 * (no AVX-512): the forward pass, dX and dW of the indirect convs with
 * 3x3 taps, at least 32 input channels and channel counts that
 * are multiples of 16 (the CNN's second, third and fourth convs).
 *
 * Lavin & Gray 2016 (as in NNPACK, oneDNN): a 2x2 output tile is
 * Y = A^T [ sum_c (G g_c G^T) .* (B^T d_c B) ] A over a 4x4 input tile d,
 *
 *   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
 *   G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1],
 *   A^T = [1 1 1 0; 0 1 -1 -1],
 *
 * so the 36 multiplies of a tile and channel pair become 16, and the sum
 * over the input channels is 16 independent GEMMs M_xi (tiles x K) = V_xi
 * (tiles x C) U_xi (C x K), xi = the 16 points of the 4x4 transform. Here:
 * U = G g G^T for every (c, k) once per call; blocks of TB tiles (across
 * the images of a group) get V written (8 channels per vector, NHWC
 * input), the 16 GEMMs run on a 6-tile x 16-channel register tile, and the
 * output transform adds the bias and the ReLU and writes NHWC.
 *
 * dX is the same kernel: dx = the valid 3x3 conv of dy padded by 2 with
 * the flipped, transposed weights W'(c, o, u, v) = W(o, c, 2-u, 2-v).
 * dW is the adjoint of the forward pass: dU_xi (C x K) = sum over the
 * tiles of V_xi^T (A dY A^T)_xi, 16 GEMMs reducing over the tiles, then
 * dw += G^T dU G.
 *
 * Every float is computed in a fixed order, written down at each stage
 * (transforms as written, the GEMM an FMA chain over the channels in order
 * from +0), independent of the batch and of the tile blocks:
 * tests/unit/check_wino.c compares forward, dX and dW with a scalar reference of
 * exactly this order bit for bit, and with im2col + OpenBLAS within a
 * tolerance. Output sizes must be even (2x2 tiles cover them exactly).
 */
#include "dt_kernels.h"

#include <stdint.h>
#include <string.h>

#ifdef DT_X86
#include <immintrin.h>
#endif

enum { TB = 48, MR = 6, NR = 16, GROUP_TILES = 96 };

int dt_wino_applies(const dt_layer *l)
{
    return l->kind == DT_CONV && l->k == 3 && l->pad == 0 && l->c >= 32 &&
           l->c % NR == 0 && l->oc % NR == 0 && l->oh % 2 == 0 &&
           l->ow % 2 == 0;
}

/* Images per group: enough for about GROUP_TILES forward tiles. */
static size_t group_images(const dt_layer *l)
{
    size_t t = (l->oh / 2) * (l->ow / 2);
    return t >= GROUP_TILES ? 1 : (GROUP_TILES + t - 1) / t;
}

typedef struct {
    float *u, *v, *m, *s1, *s2; /* U (16 c oc), V and M (16 TB max(c, oc)),
                                   staging: input NHWC, output NHWC */
    size_t g;                   /* images per group */
} wino_ws;

static size_t cmax(const dt_layer *l) { return l->c > l->oc ? l->c : l->oc; }

static size_t s1_size(const dt_layer *l)
{
    size_t a = l->h * l->w * l->c, b = (l->oh + 4) * (l->ow + 4) * l->oc;
    return group_images(l) * (a > b ? a : b);
}

size_t dt_wino_work_size(const dt_layer *l)
{
    if (!dt_wino_applies(l))
        return 0;
    return 16 * l->c * l->oc + 2 * 16 * TB * cmax(l) + s1_size(l) +
           group_images(l) * l->h * l->w * l->c + 16;
}

static wino_ws wino_layout(const dt_layer *l, float *work)
{
    wino_ws s;
    s.g = group_images(l);
    s.u = (float *)(((uintptr_t)work + 31) & ~(uintptr_t)31);
    s.v = s.u + 16 * l->c * l->oc;
    s.m = s.v + 16 * TB * cmax(l);
    s.s1 = s.m + 16 * TB * cmax(l);
    s.s2 = s.s1 + s1_size(l);
    return s;
}

/* U[xi][c][k] = (G g G^T)[xi] for the 3x3 kernel g(u, v) = w[(k c_n + c)
 * 9 + 3u + v] (flip: g(u, v) = w[(c k_n + k) 9 + 3(2-u) + 2-v], the dX
 * weights). Order: t = G g row-wise, then t G^T, each 1/2 (a + b + c)
 * summed left to right. */
static void weights(const float *w, size_t cn, size_t kn, int flip, float *u)
{
    for (size_t c = 0; c < cn; c++)
        for (size_t k = 0; k < kn; k++) {
            const float *g0 = flip ? w + (c * kn + k) * 9 : w + (k * cn + c) * 9;
            float g[3][3], t[4][3];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    g[a][b] = flip ? g0[3 * (2 - a) + 2 - b] : g0[3 * a + b];
            for (int b = 0; b < 3; b++) {
                t[0][b] = g[0][b];
                t[1][b] = 0.5f * (g[0][b] + g[1][b] + g[2][b]);
                t[2][b] = 0.5f * (g[0][b] - g[1][b] + g[2][b]);
                t[3][b] = g[2][b];
            }
            for (int a = 0; a < 4; a++) {
                float r[4] = {t[a][0],
                              0.5f * (t[a][0] + t[a][1] + t[a][2]),
                              0.5f * (t[a][0] - t[a][1] + t[a][2]), t[a][2]};
                for (int b = 0; b < 4; b++)
                    u[((size_t)(4 * a + b) * cn + c) * kn + k] = r[b];
            }
        }
}

/* NCHW images (c planes of hw) to NHWC, n images. */
static void to_nhwc(const float *x, float *y, size_t n, size_t c, size_t hw)
{
    for (size_t i = 0; i < n; i++, x += c * hw, y += c * hw)
        for (size_t ci = 0; ci < c; ci++)
            for (size_t p = 0; p < hw; p++)
                y[p * c + ci] = x[ci * hw + p];
}

static void to_nchw(const float *x, float *y, size_t n, size_t c, size_t hw)
{
    for (size_t i = 0; i < n; i++, x += c * hw, y += c * hw)
        for (size_t ci = 0; ci < c; ci++)
            for (size_t p = 0; p < hw; p++)
                y[ci * hw + p] = x[p * c + ci];
}

#ifdef DT_X86
/* One valid 3x3 conv of NHWC images h x w x c into (h-2) x (w-2) x k. */
typedef struct {
    size_t h, w, c, k;
    const float *bias; /* NULL: none */
    int relu;
} wino_conv;

/* B^T d B of a 4x4 tile of 8 channels, d[4u + v], as written: rows
 * t0 = d0 - d2, t1 = d1 + d2, t2 = d2 - d1, t3 = d1 - d3, then the same on
 * the columns. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
in_transform(__m256 *d)
{
    __m256 t[16];
    for (int b = 0; b < 4; b++) {
        t[b] = _mm256_sub_ps(d[b], d[8 + b]);
        t[4 + b] = _mm256_add_ps(d[4 + b], d[8 + b]);
        t[8 + b] = _mm256_sub_ps(d[8 + b], d[4 + b]);
        t[12 + b] = _mm256_sub_ps(d[4 + b], d[12 + b]);
    }
    for (int a = 0; a < 4; a++) {
        const __m256 *r = t + 4 * a;
        d[4 * a] = _mm256_sub_ps(r[0], r[2]);
        d[4 * a + 1] = _mm256_add_ps(r[1], r[2]);
        d[4 * a + 2] = _mm256_sub_ps(r[2], r[1]);
        d[4 * a + 3] = _mm256_sub_ps(r[1], r[3]);
    }
}

/* M (mr x 16) = V (mr x c, row stride c) U (c x 16, row stride k), each
 * element an FMA chain over c in order from +0. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
tile_gemm(const float *v, size_t c, const float *u, size_t k, float *m,
          size_t mr)
{
    __m256 a0[MR], a1[MR];
    const float *vr[MR];
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {
        a0[r] = a1[r] = _mm256_setzero_ps();
        vr[r] = v + ((size_t)r < mr ? (size_t)r : 0) * c;
    }
    for (size_t i = 0; i < c; i++, u += k) {
        __m256 w0 = _mm256_loadu_ps(u), w1 = _mm256_loadu_ps(u + 8);
        _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {
            __m256 x = _mm256_broadcast_ss(vr[r] + i);
            a0[r] = _mm256_fmadd_ps(x, w0, a0[r]);
            a1[r] = _mm256_fmadd_ps(x, w1, a1[r]);
        }
    }
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {
        if ((size_t)r >= mr)
            break;
        _mm256_storeu_ps(m + (size_t)r * k, a0[r]);
        _mm256_storeu_ps(m + (size_t)r * k + 8, a1[r]);
    }
}

/* V of the tiles q0 .. q0 + nb - 1 (over the n images of src, NHWC, h w c
 * each, tiles row by row): vbuf[xi][i][c]. */
__attribute__((target("avx2,fma"))) static void
in_block(const wino_conv *g, const float *src, size_t q0, size_t nb,
         float *vbuf)
{
    const size_t c = g->c, w = g->w, tw = (g->w - 2) / 2;
    const size_t tpi = ((g->h - 2) / 2) * tw, in = g->h * w * c;
    for (size_t i = 0; i < nb; i++) {
        size_t q = q0 + i, r = q % tpi;
        const float *p = src + (q / tpi) * in +
                         ((2 * (r / tw)) * w + 2 * (r % tw)) * c;
        for (size_t c0 = 0; c0 < c; c0 += 8) {
            __m256 d[16];
            _Pragma("GCC unroll 16") for (int e = 0; e < 16; e++)
                d[e] = _mm256_loadu_ps(p + ((size_t)(e / 4) * w +
                                            (size_t)(e % 4)) * c + c0);
            in_transform(d);
            _Pragma("GCC unroll 16") for (int e = 0; e < 16; e++)
                _mm256_storeu_ps(vbuf + ((size_t)e * TB + i) * c + c0, d[e]);
        }
    }
}

/* n images of src (NHWC, h w c each) through U into dst (NHWC, (h-2)
 * (w-2) k each). Output tile: s0 = m0 + m1 + m2, s1 = m1 - m2 - m3 on the
 * rows, the same on the columns, + bias, then ReLU. */
__attribute__((target("avx2,fma"))) static void
wino_run(const wino_conv *g, const float *src, size_t n, const float *u,
         float *dst, float *vbuf, float *mbuf)
{
    const size_t c = g->c, k = g->k, ow = g->w - 2;
    const size_t tw = ow / 2, tpi = ((g->h - 2) / 2) * tw;
    const size_t tiles = n * tpi, out = (g->h - 2) * ow * k;
    const __m256 z = _mm256_setzero_ps();
    for (size_t q0 = 0; q0 < tiles; q0 += TB) {
        const size_t nb = tiles - q0 < TB ? tiles - q0 : TB;
        in_block(g, src, q0, nb, vbuf);
        for (size_t e = 0; e < 16; e++) {
            const float *ve = vbuf + e * TB * c, *ue = u + e * c * k;
            float *me = mbuf + e * TB * k;
            for (size_t r0 = 0; r0 < nb; r0 += MR) {
                size_t mr = nb - r0 < MR ? nb - r0 : MR;
                for (size_t k0 = 0; k0 < k; k0 += NR)
                    tile_gemm(ve + r0 * c, c, ue + k0, k, me + r0 * k + k0,
                              mr);
            }
        }
        for (size_t i = 0; i < nb; i++) {
            size_t q = q0 + i, r = q % tpi;
            float *y = dst + (q / tpi) * out +
                       ((2 * (r / tw)) * ow + 2 * (r % tw)) * k;
            for (size_t k0 = 0; k0 < k; k0 += 8) {
                __m256 m[16], s[8];
                _Pragma("GCC unroll 16") for (int e = 0; e < 16; e++)
                    m[e] = _mm256_loadu_ps(mbuf + ((size_t)e * TB + i) * k +
                                           k0);
                for (int b = 0; b < 4; b++) {
                    s[b] = _mm256_add_ps(_mm256_add_ps(m[b], m[4 + b]),
                                         m[8 + b]);
                    s[4 + b] = _mm256_sub_ps(_mm256_sub_ps(m[4 + b], m[8 + b]),
                                             m[12 + b]);
                }
                __m256 bv = g->bias ? _mm256_loadu_ps(g->bias + k0) : z;
                for (int a = 0; a < 2; a++) {
                    const __m256 *t = s + 4 * a;
                    __m256 y0 = _mm256_add_ps(_mm256_add_ps(t[0], t[1]), t[2]);
                    __m256 y1 = _mm256_sub_ps(_mm256_sub_ps(t[1], t[2]), t[3]);
                    if (g->bias) {
                        y0 = _mm256_add_ps(y0, bv);
                        y1 = _mm256_add_ps(y1, bv);
                    }
                    if (g->relu) {
                        y0 = _mm256_max_ps(y0, z);
                        y1 = _mm256_max_ps(y1, z);
                    }
                    _mm256_storeu_ps(y + (size_t)a * ow * k + k0, y0);
                    _mm256_storeu_ps(y + ((size_t)a * ow + 1) * k + k0, y1);
                }
            }
        }
    }
}

/* dU[xi] (c x k) += V[xi]^T Z[xi] over the nb tiles of a block, Z = A dY
 * A^T; a 6-channel x 16-channel register tile, each element one FMA chain
 * over the tiles in order (the accumulators parked in du between blocks). */
__attribute__((target("avx2,fma"))) static void
dw_block(const float *vbuf, const float *zbuf, size_t c, size_t k, size_t nb,
         float *du)
{
    for (size_t e = 0; e < 16; e++) {
        const float *ve = vbuf + e * TB * c, *ze = zbuf + e * TB * k;
        float *de = du + e * c * k;
        for (size_t c0 = 0; c0 < c; c0 += MR) {
            const size_t mr = c - c0 < MR ? c - c0 : MR;
            for (size_t k0 = 0; k0 < k; k0 += NR) {
                __m256 a0[MR], a1[MR];
                _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {
                    size_t rr = (size_t)r < mr ? (size_t)r : 0;
                    a0[r] = _mm256_loadu_ps(de + (c0 + rr) * k + k0);
                    a1[r] = _mm256_loadu_ps(de + (c0 + rr) * k + k0 + 8);
                }
                const float *v = ve + c0, *zp = ze + k0;
                for (size_t i = 0; i < nb; i++, v += c, zp += k) {
                    __m256 g0 = _mm256_loadu_ps(zp);
                    __m256 g1 = _mm256_loadu_ps(zp + 8);
                    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {
                        __m256 x = _mm256_broadcast_ss(
                            v + ((size_t)r < mr ? (size_t)r : 0));
                        a0[r] = _mm256_fmadd_ps(x, g0, a0[r]);
                        a1[r] = _mm256_fmadd_ps(x, g1, a1[r]);
                    }
                }
                _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {
                    if ((size_t)r >= mr)
                        break;
                    _mm256_storeu_ps(de + (c0 + (size_t)r) * k + k0, a0[r]);
                    _mm256_storeu_ps(de + (c0 + (size_t)r) * k + k0 + 8,
                                     a1[r]);
                }
            }
        }
    }
}

/* Z = A dY A^T of the tiles q0 .. q0 + nb - 1 of dy (NHWC, (h-2) (w-2) k
 * per image): rows r0 = y0, r1 = y0 + y1, r2 = y0 - y1, r3 = -y1, then the
 * same on the columns; zbuf[xi][i][k]. */
__attribute__((target("avx2,fma"))) static void
z_block(const wino_conv *g, const float *dy, size_t q0, size_t nb,
        float *zbuf)
{
    const size_t k = g->k, ow = g->w - 2, tw = ow / 2;
    const size_t tpi = ((g->h - 2) / 2) * tw, out = (g->h - 2) * ow * k;
    const __m256 z = _mm256_setzero_ps();
    for (size_t i = 0; i < nb; i++) {
        size_t q = q0 + i, r = q % tpi;
        const float *p = dy + (q / tpi) * out +
                         ((2 * (r / tw)) * ow + 2 * (r % tw)) * k;
        for (size_t k0 = 0; k0 < k; k0 += 8) {
            __m256 y[4], t[8];
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++)
                    y[2 * a + b] = _mm256_loadu_ps(
                        p + ((size_t)a * ow + (size_t)b) * k + k0);
            for (int b = 0; b < 2; b++) {
                t[b] = y[b];
                t[2 + b] = _mm256_add_ps(y[b], y[2 + b]);
                t[4 + b] = _mm256_sub_ps(y[b], y[2 + b]);
                t[6 + b] = _mm256_sub_ps(z, y[2 + b]);
            }
            for (int a = 0; a < 4; a++) {
                __m256 o[4] = {t[2 * a], _mm256_add_ps(t[2 * a], t[2 * a + 1]),
                               _mm256_sub_ps(t[2 * a], t[2 * a + 1]),
                               _mm256_sub_ps(z, t[2 * a + 1])};
                for (int b = 0; b < 4; b++)
                    _mm256_storeu_ps(
                        zbuf + ((size_t)(4 * a + b) * TB + i) * k + k0, o[b]);
            }
        }
    }
}

void dt_wino_forward(const dt_layer *l, const float *w, const float *b,
                     const float *x, float *y, size_t batch, float *work)
{
    wino_ws s = wino_layout(l, work);
    const size_t in = dt_layer_in_size(l), out = dt_layer_out_size(l);
    const wino_conv g = {l->h, l->w, l->c, l->oc, b, l->relu};
    weights(w, l->c, l->oc, 0, s.u);
    if (l->in_nhwc) {
        wino_run(&g, x, batch, s.u, y, s.v, s.m);
        return;
    }
    for (size_t n0 = 0; n0 < batch; n0 += s.g) {
        size_t nb = batch - n0 < s.g ? batch - n0 : s.g;
        to_nhwc(x + n0 * in, s.s1, nb, l->c, l->h * l->w);
        wino_run(&g, s.s1, nb, s.u, y + n0 * out, s.v, s.m);
    }
}

void dt_wino_dx(const dt_layer *l, const float *w, const float *dy,
                float *dx, size_t batch, float *work)
{
    wino_ws s = wino_layout(l, work);
    const size_t in = dt_layer_in_size(l), out = dt_layer_out_size(l);
    const size_t oc = l->oc, ph = l->oh + 4, pw = l->ow + 4;
    const wino_conv g = {ph, pw, oc, l->c, NULL, 0};
    weights(w, oc, l->c, 1, s.u);
    memset(s.s1, 0, s.g * ph * pw * oc * sizeof *s.s1);
    for (size_t n0 = 0; n0 < batch; n0 += s.g) {
        size_t nb = batch - n0 < s.g ? batch - n0 : s.g;
        for (size_t n = 0; n < nb; n++) /* dy into the padded planes */
            for (size_t i = 0; i < l->oh; i++)
                memcpy(s.s1 + (n * ph + i + 2) * pw * oc + 2 * oc,
                       dy + (n0 + n) * out + i * l->ow * oc,
                       l->ow * oc * sizeof *s.s1);
        if (l->in_nhwc) {
            wino_run(&g, s.s1, nb, s.u, dx + n0 * in, s.v, s.m);
        } else {
            wino_run(&g, s.s1, nb, s.u, s.s2, s.v, s.m);
            to_nchw(s.s2, dx + n0 * in, nb, l->c, l->h * l->w);
        }
    }
}
/* dg (3x3) = G^T dU G, G^T = [1 1/2 1/2 0; 0 1/2 -1/2 0; 0 1/2 1/2 1]:
 * rows p0 = u0 + 1/2 (u1 + u2), p1 = 1/2 (u1 - u2), p2 = 1/2 (u1 + u2) + u3,
 * then the columns; dw(k, c) += dg. */
static void dw_out(const float *du, size_t cn, size_t kn, float *dw)
{
    for (size_t c = 0; c < cn; c++)
        for (size_t k = 0; k < kn; k++) {
            float u[16], t[3][4];
            for (int e = 0; e < 16; e++)
                u[e] = du[((size_t)e * cn + c) * kn + k];
            for (int b = 0; b < 4; b++) {
                t[0][b] = u[b] + 0.5f * (u[4 + b] + u[8 + b]);
                t[1][b] = 0.5f * (u[4 + b] - u[8 + b]);
                t[2][b] = 0.5f * (u[4 + b] + u[8 + b]) + u[12 + b];
            }
            float *d = dw + (k * cn + c) * 9;
            for (int a = 0; a < 3; a++) {
                d[3 * a] += t[a][0] + 0.5f * (t[a][1] + t[a][2]);
                d[3 * a + 1] += 0.5f * (t[a][1] - t[a][2]);
                d[3 * a + 2] += 0.5f * (t[a][1] + t[a][2]) + t[a][3];
            }
        }
}

void dt_wino_dw(const dt_layer *l, const float *x, const float *dy,
                float *dw, size_t batch, float *work)
{
    wino_ws s = wino_layout(l, work);
    const size_t in = dt_layer_in_size(l), out = dt_layer_out_size(l);
    const size_t tpi = (l->oh / 2) * (l->ow / 2);
    const wino_conv g = {l->h, l->w, l->c, l->oc, NULL, 0};
    memset(s.u, 0, 16 * l->c * l->oc * sizeof *s.u);
    for (size_t n0 = 0; n0 < batch; n0 += s.g) {
        size_t nb = batch - n0 < s.g ? batch - n0 : s.g;
        const float *src = x + n0 * in;
        if (!l->in_nhwc) {
            to_nhwc(src, s.s1, nb, l->c, l->h * l->w);
            src = s.s1;
        }
        for (size_t q0 = 0; q0 < nb * tpi; q0 += TB) {
            size_t nt = nb * tpi - q0 < TB ? nb * tpi - q0 : TB;
            in_block(&g, src, q0, nt, s.v);
            z_block(&g, dy + n0 * out, q0, nt, s.m);
            dw_block(s.v, s.m, l->c, l->oc, nt, s.u);
        }
    }
    dw_out(s.u, l->c, l->oc, dw);
}
#else
void dt_wino_forward(const dt_layer *l, const float *w, const float *b,
                     const float *x, float *y, size_t batch, float *work)
{
    (void)l, (void)w, (void)b, (void)x, (void)y, (void)batch, (void)work;
    (void)weights, (void)to_nhwc, (void)to_nchw, (void)wino_layout;
}

void dt_wino_dx(const dt_layer *l, const float *w, const float *dy,
                float *dx, size_t batch, float *work)
{
    (void)l, (void)w, (void)dy, (void)dx, (void)batch, (void)work;
}

void dt_wino_dw(const dt_layer *l, const float *x, const float *dy,
                float *dw, size_t batch, float *work)
{
    (void)l, (void)x, (void)dy, (void)dw, (void)batch, (void)work;
}
#endif
