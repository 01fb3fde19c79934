/* dt_ind.c: indirect convolution for CPUs with AVX2 + FMA (no AVX-512):
 * the multi-channel convs (LeNet's second, all of the CNN's but the
 * first) without im2col, input NCHW or NHWC, output NHWC.
 *
 * As in XNNPACK's indirect GEMM (Dukhan 2019), a register tile reads the
 * receptive fields straight from the input through two offset tables:
 * base[p], where output pixel p's field starts, and toff[t], where tap t =
 * (ci, u, v) sits inside a field (the input layout is only these tables).
 * With pixels q = (n, p) and taps t:
 *
 *   forward  Y(q, o) = act(b[o] + sum_t X(q, t) W(o, t)): 6 pixels x 16
 *            channels (12 accumulators), per tap 2 weight loads and 6
 *            broadcasts of the input; 3 pixels x 32 channels (4 loads, 3
 *            broadcasts) when oc is a multiple of 32;
 *   dW       dW(o, t) += sum_q X(q, t) dY(q, o): 6 taps x 16 channels,
 *            per pixel 2 loads of dY and 6 broadcasts;
 *   dX       dX(q + t) += sum_o dY(q, o) W(o, t): 6 pixels x 16 taps, per
 *            channel 6 broadcasts of dY and 2 loads of W, the tile then
 *            added into dX at base + toff (col2im fused).
 *
 * Every sum runs in a fixed order (taps, pixels, channels in order): same
 * inputs, same bits. Unpadded convs only (dt_ind_supported). Where
 * dt_wino_applies (3x3 taps, >= 32 channels: the CNN's convs 2-4) the
 * forward pass, dX and dW run Winograd instead (dt_wino.c); db stays here.
 */
#include "dt_kernels.h"

#include <stdint.h>
#include <string.h>

#ifdef DT_X86
#include <immintrin.h>

#include "dt_avx2.h"
#endif

enum { PR = 6, CB = 16 }; /* tile: 6 rows x 16 columns */

/* Workspace: weights packed [t][ocp] (forward, dW accumulator of the same
 * shape) and [t / 16][o][16] (dX), offsets base[pix], toff[kk + PR]. */
typedef struct {
    size_t kk, ocp, ktp, pix; /* c k k; oc and kk rounded up to 16; oh ow */
    float *wf, *dwa, *wt;
    int32_t *base, *toff;
} ind_ws;

static ind_ws ind_layout(const dt_layer *l, float *work)
{
    ind_ws s;
    s.kk = l->c * l->k * l->k;
    s.ocp = dt_kern_round_up(l->oc, CB);
    s.ktp = dt_kern_round_up(s.kk, CB);
    s.pix = l->oh * l->ow;
    s.wf = (float *)(((uintptr_t)work + 31) & ~(uintptr_t)31);
    s.dwa = s.wf + (s.kk + PR) * s.ocp;
    s.wt = s.dwa + (s.kk + PR) * s.ocp;
    s.base = (int32_t *)(s.wt + s.ktp * l->oc);
    s.toff = s.base + s.pix;
    return s;
}

/* The indirect kernel's own floats; Winograd's (dt_wino.c) follow. */
static size_t ind_size(const dt_layer *l)
{
    size_t kk = l->c * l->k * l->k, ocp = dt_kern_round_up(l->oc, CB);
    return 2 * (kk + PR) * ocp + dt_kern_round_up(kk, CB) * l->oc +
           l->oh * l->ow + kk + PR + 16;
}

size_t dt_ind_work_size(const dt_layer *l)
{
    return ind_size(l) + dt_wino_work_size(l);
}

int dt_ind_supported(const dt_layer *l)
{
#ifdef DT_X86
    static int cpu = -1;
    if (cpu < 0)
        cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return cpu && l->kind == DT_CONV && l->pad == 0 &&
           dt_layer_in_size(l) < ((size_t)1 << 30);
#else
    (void)l;
    return 0;
#endif
}

#ifdef DT_X86
/* The offset tables of l's input layout (l->in_nhwc: NHWC, else NCHW). */
static void offsets(const dt_layer *l, const ind_ws *s)
{
    const size_t c = l->c, k = l->k, w = l->w;
    for (size_t i = 0, p = 0; i < l->oh; i++)
        for (size_t j = 0; j < l->ow; j++, p++)
            s->base[p] = (int32_t)(l->in_nhwc ? (i * w + j) * c : i * w + j);
    for (size_t ci = 0, t = 0; ci < c; ci++)
        for (size_t u = 0; u < k; u++)
            for (size_t v = 0; v < k; v++, t++)
                s->toff[t] = (int32_t)(l->in_nhwc ? (u * w + v) * c + ci
                                                  : (ci * l->h + u) * w + v);
    for (size_t t = s->kk; t < s->kk + PR; t++)
        s->toff[t] = 0; /* taps past kk read a valid address, unused */
}

/* The PR field starts of pixels q0.. (the last repeated past mr). */
static void tile_bases(const dt_layer *l, const ind_ws *s, size_t q0,
                       size_t mr, const float *x, const float **xr)
{
    const size_t in = dt_layer_in_size(l);
    for (size_t r = 0; r < PR; r++) {
        size_t q = q0 + (r < mr ? r : 0);
        xr[r] = x + (q / s->pix) * in + s->base[q % s->pix];
    }
}

/* The forward pass when oc is a multiple of 32: 3 pixels x 32 channels
 * (4 weight loads and 3 broadcasts per tap for 12 FMAs, where 6 x 16
 * needs 2 and 6), weights packed wf[o / 32][t][o % 32]. Each output is
 * the same chain over the taps: the same bits as the 6 x 16 tile. */
__attribute__((target("avx2,fma"))) static void
fwd_wide(const dt_layer *l, const ind_ws *s, const float *w, const float *b,
         const float *x, float *y, size_t npix)
{
    enum { WR = 3, WC = 32 };
    const size_t oc = l->oc, kk = s->kk, in = dt_layer_in_size(l);
    for (size_t o = 0; o < oc; o++)
        for (size_t t = 0; t < kk; t++)
            s->wf[((o / WC) * kk + t) * WC + o % WC] = w[o * kk + t];
    const __m256 z = _mm256_setzero_ps();
    const size_t chunk = dt_kern_round_up(s->pix, WR);
    for (size_t qc = 0; qc < npix; qc += chunk)
        for (size_t c0 = 0; c0 < oc; c0 += WC)
            for (size_t q0 = qc; q0 < npix && q0 < qc + chunk; q0 += WR) {
                const size_t mr = npix - q0 < WR ? npix - q0 : WR;
                const float *xr[WR];
                for (size_t r = 0; r < WR; r++) {
                    size_t q = q0 + (r < mr ? r : 0);
                    xr[r] = x + (q / s->pix) * in + s->base[q % s->pix];
                }
                __m256 a[WR][4];
                _Pragma("GCC unroll 3") for (int r = 0; r < WR; r++)
                    a[r][0] = a[r][1] = a[r][2] = a[r][3] = z;
                const float *wp = s->wf + c0 * kk;
                for (size_t t = 0; t < kk; t++, wp += WC) {
                    __m256 w0 = _mm256_loadu_ps(wp);
                    __m256 w1 = _mm256_loadu_ps(wp + 8);
                    __m256 w2 = _mm256_loadu_ps(wp + 16);
                    __m256 w3 = _mm256_loadu_ps(wp + 24);
                    int32_t off = s->toff[t];
                    _Pragma("GCC unroll 3") for (int r = 0; r < WR; r++) {
                        __m256 xv = _mm256_broadcast_ss(xr[r] + off);
                        a[r][0] = _mm256_fmadd_ps(xv, w0, a[r][0]);
                        a[r][1] = _mm256_fmadd_ps(xv, w1, a[r][1]);
                        a[r][2] = _mm256_fmadd_ps(xv, w2, a[r][2]);
                        a[r][3] = _mm256_fmadd_ps(xv, w3, a[r][3]);
                    }
                }
                _Pragma("GCC unroll 3") for (int r = 0; r < WR; r++) {
                    if ((size_t)r >= mr)
                        break;
                    float *yr = y + (q0 + (size_t)r) * oc + c0;
                    _Pragma("GCC unroll 4") for (int i = 0; i < 4; i++) {
                        __m256 v = _mm256_add_ps(
                            a[r][i], _mm256_loadu_ps(b + c0 + 8 * i));
                        if (l->relu)
                            v = _mm256_max_ps(v, z);
                        _mm256_storeu_ps(yr + 8 * i, v);
                    }
                }
            }
}

__attribute__((target("avx2,fma"))) void
dt_ind_forward(const dt_layer *l, const float *w, const float *b,
               const float *x, float *y, size_t batch, float *work)
{
    if (dt_wino_applies(l)) {
        dt_wino_forward(l, w, b, x, y, batch, work + ind_size(l));
        return;
    }
    ind_ws s = ind_layout(l, work);
    const size_t oc = l->oc, kk = s.kk, npix = batch * s.pix;
    offsets(l, &s);
    if (oc % 32 == 0) {
        fwd_wide(l, &s, w, b, x, y, npix);
        return;
    }
    memset(s.wf, 0, kk * s.ocp * sizeof *s.wf);
    for (size_t o = 0; o < oc; o++) /* wf[o / 16][t][o % 16] = W(o, t) */
        for (size_t t = 0; t < kk; t++)
            s.wf[((o / CB) * kk + t) * CB + o % CB] = w[o * kk + t];
    const __m256 z = _mm256_setzero_ps();
    /* about an image's pixels at a time, each 16-channel weight slice
     * (contiguous) over all of them: x and the slice stay in cache */
    const size_t chunk = dt_kern_round_up(s.pix, PR);
    for (size_t qc = 0; qc < npix; qc += chunk)
    for (size_t c0 = 0; c0 < oc; c0 += CB)
    for (size_t q0 = qc; q0 < npix && q0 < qc + chunk; q0 += PR) {
        size_t mr = npix - q0 < PR ? npix - q0 : PR;
        const float *xr[PR];
        tile_bases(l, &s, q0, mr, x, xr);
        {
            __m256 a0[PR], a1[PR];
            _Pragma("GCC unroll 6") for (int r = 0; r < PR; r++)
                a0[r] = a1[r] = z;
            const float *wp = s.wf + c0 * kk;
            for (size_t t = 0; t < kk; t++, wp += CB) {
                __m256 w0 = _mm256_loadu_ps(wp), w1 = _mm256_loadu_ps(wp + 8);
                int32_t off = s.toff[t];
                _Pragma("GCC unroll 6") for (int r = 0; r < PR; r++) {
                    __m256 xv = _mm256_broadcast_ss(xr[r] + off);
                    a0[r] = _mm256_fmadd_ps(xv, w0, a0[r]);
                    a1[r] = _mm256_fmadd_ps(xv, w1, a1[r]);
                }
            }
            long nc = (long)(oc - c0);
            __m256i m0 = lanes(nc), m1 = lanes(nc - 8);
            __m256 b0 = _mm256_maskload_ps(b + c0, m0);
            __m256 b1 = _mm256_maskload_ps(b + c0 + 8, m1);
            _Pragma("GCC unroll 6") for (int r = 0; r < PR; r++) {
                if ((size_t)r >= mr)
                    break;
                float *yr = y + (q0 + (size_t)r) * oc + c0;
                __m256 v0 = _mm256_add_ps(a0[r], b0);
                __m256 v1 = _mm256_add_ps(a1[r], b1);
                if (l->relu) {
                    v0 = _mm256_max_ps(v0, z);
                    v1 = _mm256_max_ps(v1, z);
                }
                store_n(yr, v0, nc);
                store_n(yr + 8, v1, nc - 8);
            }
        }
    }
}

/* The dW tile's sums over one image's pixels: a[r] += X(p, to[r]) dY(p, .)
 * for p in order; full: all 16 channels exist (plain loads, else masked). */
__attribute__((target("avx2,fma"), always_inline)) static inline void
dw_pixels(const float *xn, const int32_t *base, size_t pix, const int32_t *to,
          const float *d, size_t oc, __m256i m0, __m256i m1, int full,
          __m256 *a0, __m256 *a1)
{
    for (size_t p = 0; p < pix; p++, d += oc) {
        __m256 g0 = full ? _mm256_loadu_ps(d) : _mm256_maskload_ps(d, m0);
        __m256 g1 = full ? _mm256_loadu_ps(d + 8)
                         : _mm256_maskload_ps(d + 8, m1);
        const float *xp = xn + base[p];
        _Pragma("GCC unroll 6") for (int r = 0; r < PR; r++) {
            __m256 xv = _mm256_broadcast_ss(xp + to[r]);
            a0[r] = _mm256_fmadd_ps(xv, g0, a0[r]);
            a1[r] = _mm256_fmadd_ps(xv, g1, a1[r]);
        }
    }
}

/* dW; dy (NHWC, npix x oc) already masked by the ReLU. The sums
 * over the pixels run image by image: each 6 x 16 tile's accumulators go
 * to dwa after an image and come back for the next, so one image's dy and
 * x stay in cache across all tiles (the whole batch per tile re-read both
 * from memory once per tile) while every dW(o, t) is still one FMA chain
 * over the pixels in order: the same bits. */
__attribute__((target("avx2,fma"))) static void
ind_dw(const dt_layer *l, const ind_ws *s, const float *x, const float *dy,
       float *dw, size_t batch)
{
    const size_t oc = l->oc, kk = s->kk;
    const size_t in = dt_layer_in_size(l);
    memset(s->dwa, 0, (kk + PR) * s->ocp * sizeof *s->dwa);
    for (size_t n = 0; n < batch; n++) {
        const float *xn = x + n * in;
        for (size_t c0 = 0; c0 < oc; c0 += CB) {
            long nc = (long)(oc - c0);
            __m256i m0 = lanes(nc), m1 = lanes(nc - 8);
            for (size_t t0 = 0; t0 < kk; t0 += PR) {
                __m256 a0[PR], a1[PR];
                int32_t to[PR];
                float *acc = s->dwa + t0 * s->ocp + c0;
                _Pragma("GCC unroll 6") for (int r = 0; r < PR; r++) {
                    a0[r] = _mm256_loadu_ps(acc + (size_t)r * s->ocp);
                    a1[r] = _mm256_loadu_ps(acc + (size_t)r * s->ocp + 8);
                    to[r] = s->toff[t0 + (size_t)r];
                }
                const float *d = dy + n * s->pix * oc + c0;
                if (nc >= CB)
                    dw_pixels(xn, s->base, s->pix, to, d, oc, m0, m1, 1, a0,
                              a1);
                else
                    dw_pixels(xn, s->base, s->pix, to, d, oc, m0, m1, 0, a0,
                              a1);
                _Pragma("GCC unroll 6") for (int r = 0; r < PR; r++) {
                    _mm256_storeu_ps(acc + (size_t)r * s->ocp, a0[r]);
                    _mm256_storeu_ps(acc + (size_t)r * s->ocp + 8, a1[r]);
                }
            }
        }
    }
    for (size_t o = 0; o < oc; o++)
        for (size_t t = 0; t < kk; t++)
            dw[o * kk + t] += s->dwa[t * s->ocp + o];
}

/* db += the sums of dy (NHWC, npix x oc) over the pixels in order. */
__attribute__((target("avx2,fma"))) static void
ind_db(const dt_layer *l, const float *dy, float *db, size_t npix)
{
    const size_t oc = l->oc;
    for (size_t c0 = 0; c0 < oc; c0 += CB) {
        long nc = (long)(oc - c0);
        __m256i m0 = lanes(nc), m1 = lanes(nc - 8);
        /* db: 16 channels summed over the pixels in order */
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
        for (size_t q = 0; q < npix; q++) {
            s0 = _mm256_add_ps(s0, _mm256_maskload_ps(dy + q * oc + c0, m0));
            s1 = _mm256_add_ps(s1, _mm256_maskload_ps(dy + q * oc + c0 + 8,
                                                      m1));
        }
        float sb[CB];
        _mm256_storeu_ps(sb, s0);
        _mm256_storeu_ps(sb + 8, s1);
        for (size_t o = c0; o < oc && o < c0 + CB; o++)
            db[o] += sb[o - c0];
    }
}

/* The columns of a0[0..5] (the rows 6 and 7 zero) as t[0..7]: t[j] lane r
 * = a[r] lane j. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
transpose_6x8(const __m256 *a, __m256 *t)
{
    const __m256 z = _mm256_setzero_ps();
    __m256 u0 = _mm256_unpacklo_ps(a[0], a[1]), u1 = _mm256_unpackhi_ps(a[0], a[1]);
    __m256 u2 = _mm256_unpacklo_ps(a[2], a[3]), u3 = _mm256_unpackhi_ps(a[2], a[3]);
    __m256 u4 = _mm256_unpacklo_ps(a[4], a[5]), u5 = _mm256_unpackhi_ps(a[4], a[5]);
    __m256 s0 = _mm256_shuffle_ps(u0, u2, 0x44), s1 = _mm256_shuffle_ps(u0, u2, 0xee);
    __m256 s2 = _mm256_shuffle_ps(u1, u3, 0x44), s3 = _mm256_shuffle_ps(u1, u3, 0xee);
    __m256 s4 = _mm256_shuffle_ps(u4, z, 0x44), s5 = _mm256_shuffle_ps(u4, z, 0xee);
    __m256 s6 = _mm256_shuffle_ps(u5, z, 0x44), s7 = _mm256_shuffle_ps(u5, z, 0xee);
    t[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    t[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    t[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    t[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    t[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    t[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    t[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    t[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/* v moved up by n lanes (0 <= n < 8), +0 shifted in. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256
lanes_up(__m256 v, int n)
{
    const __m256i i = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i src = _mm256_sub_epi32(i, _mm256_set1_epi32(n));
    __m256 moved = _mm256_permutevar8x32_ps(v, src);
    __m256i keep = _mm256_cmpgt_epi32(i, _mm256_set1_epi32(n - 1));
    return _mm256_and_ps(moved, _mm256_castsi256_ps(keep));
}

/* A dX tile of PR pixels of one row on an NCHW input with 3 x 3 taps:
 * the taps (ci, u, 0..2) of the PR pixels reach PR + 2 = 8 consecutive
 * floats, read once, added tap v = 2, 1, 0 (the order ind_dx keeps; a
 * float no tap reaches gets +0, which leaves it alone since dx never holds
 * -0: it starts at +0, and x + y is -0 only when both are) and written
 * once, so no read waits for an overlapping write. */
__attribute__((target("avx2,fma"))) static void
scatter_row_nchw3(float *d0, const int32_t *toff, size_t t0, size_t nt,
                  const __m256 *a0, const __m256 *a1)
{
    __m256 t[CB];
    transpose_6x8(a0, t);
    transpose_6x8(a1, t + 8);
    for (size_t g = t0 / 3; 3 * g < t0 + nt; g++) {
        float *dp = d0 + toff[3 * g];
        __m256 d = _mm256_loadu_ps(dp);
        for (int v = 2; v >= 0; v--) {
            size_t tap = 3 * g + (size_t)v;
            if (tap >= t0 && tap < t0 + nt)
                d = _mm256_add_ps(d, lanes_up(t[tap - t0], v));
        }
        _mm256_storeu_ps(dp, d);
    }
}

/* dX = sum over taps of dY W scattered back (dx zeroed first). Each dX
 * float receives its terms in the order of the loops below: pixel blocks
 * in order, tap tiles in order, then pixels of the block in order. When a
 * block's PR pixels lie in one output row, two of them reach the same
 * input float only through taps of the same (ci, u) whose v differ by the
 * pixels' distance (the left pixel's tap is the larger), so running the
 * tile's taps in descending order with the pixels inner keeps that order
 * exactly, with the PR floats of one tap PR fields apart: contiguous on
 * an NCHW input (vector adds), c apart on NHWC. */
__attribute__((target("avx2,fma"))) static void
ind_dx(const dt_layer *l, const ind_ws *s, const float *w, const float *dy,
       float *dx, size_t batch)
{
    const size_t oc = l->oc, kk = s->kk, npix = batch * s->pix;
    memset(s->wt, 0, s->ktp * oc * sizeof *s->wt);
    for (size_t t = 0; t < kk; t++) /* wt[t / 16][o][t % 16] = W(o, t) */
        for (size_t o = 0; o < oc; o++)
            s->wt[((t / CB) * oc + o) * CB + t % CB] = w[o * kk + t];
    memset(dx, 0, batch * dt_layer_in_size(l) * sizeof *dx);
    const size_t cs = l->in_nhwc ? l->c : 1; /* next pixel's field */
    for (size_t q0 = 0; q0 < npix; q0 += PR) {
        size_t mr = npix - q0 < PR ? npix - q0 : PR;
        const float *xr[PR];
        tile_bases(l, s, q0, mr, dx, xr);
        /* the block's PR pixels in one output row: fields PR apart */
        const int row = mr == PR && (q0 % s->pix) % l->ow + PR <= l->ow;
        for (size_t t0 = 0; t0 < kk; t0 += CB) {
            __m256 a0[PR], a1[PR];
            _Pragma("GCC unroll 6") for (int r = 0; r < PR; r++)
                a0[r] = a1[r] = _mm256_setzero_ps();
            const float *wp = s->wt + (t0 / CB) * oc * CB;
            const float *d = dy + q0 * oc;
            for (size_t o = 0; o < oc; o++, wp += CB) {
                __m256 w0 = _mm256_loadu_ps(wp), w1 = _mm256_loadu_ps(wp + 8);
                _Pragma("GCC unroll 6") for (int r = 0; r < PR; r++) {
                    __m256 g = _mm256_broadcast_ss(
                        d + (size_t)(r < (int)mr ? r : 0) * oc + o);
                    a0[r] = _mm256_fmadd_ps(g, w0, a0[r]);
                    a1[r] = _mm256_fmadd_ps(g, w1, a1[r]);
                }
            }
            size_t nt = kk - t0 < CB ? kk - t0 : CB;
            const int32_t *to = s->toff + t0;
            float *d0 = (float *)xr[0];
            if (row && cs == 1 && l->k == 3) {
                scatter_row_nchw3(d0, s->toff, t0, nt, a0, a1);
                continue;
            }
            float v[PR][CB];
            _Pragma("GCC unroll 6") for (int r = 0; r < PR; r++) {
                _mm256_storeu_ps(v[r], a0[r]);
                _mm256_storeu_ps(v[r] + 8, a1[r]);
            }
            if (row) { /* taps descending, pixels ascending (see above) */
                for (size_t j = nt; j-- > 0;) {
                    float *dp = d0 + to[j];
                    _Pragma("GCC unroll 6") for (size_t r = 0; r < PR; r++)
                        dp[r * cs] += v[r][j];
                }
                continue;
            }
            /* single floats: neighbouring pixels' fields overlap, so
               vector read-modify-writes would stall on store forwarding */
            for (size_t r = 0; r < mr; r++) {
                float *dr = (float *)xr[r];
                for (size_t j = 0; j < nt; j++)
                    dr[to[j]] += v[r][j];
            }
        }
    }
}

void dt_ind_backward(const dt_layer *l, const float *w, const float *x,
                     const float *dy, float *dx, float *dw, float *db,
                     size_t batch, float *work)
{
    ind_ws s = ind_layout(l, work);
    ind_db(l, dy, db, batch * s.pix);
    if (dt_wino_applies(l)) {
        dt_wino_dw(l, x, dy, dw, batch, work + ind_size(l));
        if (dx)
            dt_wino_dx(l, w, dy, dx, batch, work + ind_size(l));
        return;
    }
    offsets(l, &s);
    ind_dw(l, &s, x, dy, dw, batch);
    if (dx)
        ind_dx(l, &s, w, dy, dx, batch);
}
#else
void dt_ind_forward(const dt_layer *l, const float *w, const float *b,
                    const float *x, float *y, size_t batch, float *work)
{
    (void)l, (void)w, (void)b, (void)x, (void)y, (void)batch, (void)work;
}

void dt_ind_backward(const dt_layer *l, const float *w, const float *x,
                     const float *dy, float *dx, float *dw, float *db,
                     size_t batch, float *work)
{
    (void)l, (void)w, (void)x, (void)dy, (void)dx, (void)dw, (void)db;
    (void)batch, (void)work;
}
#endif
