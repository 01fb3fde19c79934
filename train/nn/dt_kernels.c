/* dt_kernels.c: the compute kernels behind dt_layers: a packed GEMM and
 * the channels-last (NHWC) convolution, both AVX-512, chosen at run time
 * (__builtin_cpu_supports) so the same binary runs everywhere; OpenBLAS
 * serves CPUs without AVX-512.
 *
 * GEMM: BLIS-style, an 8 x 32 register tile, K in blocks of 256, A packed
 * as 8-row panels (in L2) and B one 256 x 32 panel at a time (in L1). It
 * exists because the OpenBLAS here is pinned to its AVX2 kernels
 * (OPENBLAS_CORETYPE), which caps its sgemm near 100 GFLOP/s.
 *
 * NHWC convolution (unpadded): an indirect GEMM in the manner of XNNPACK
 * (Dukhan 2019): the register tile reads the receptive fields straight from
 * the input, so no column matrix is written or read, the whole batch is
 * one pass, and col2im is fused into the dX tile's stores. Every summation
 * runs in a fixed order: same inputs, same bits.
 */
#include "dt_kernels.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#ifdef DT_AVX512
#include <immintrin.h>
#endif

/* Own GEMM (AVX-512 only): C tile MR x NR in registers, K in blocks of KC;
 * A packed as MR-row panels (all of M for one K block, in L2), B as one
 * KC x NR panel at a time (in L1). */
enum { MR = 8, NR = 32, KC = 256 };

size_t dt_kern_round_up(size_t a, size_t m) { return (a + m - 1) / m * m; }

/* Floats of GEMM packing workspace for M <= m rows, 64-byte aligned. */
size_t dt_kern_gemm_work_size(size_t m)
{
    return dt_kern_round_up(m, MR) * KC + (size_t)KC * NR + 16;
}

#ifdef DT_AVX512
/* ap[(i/MR) kc MR + p MR + i%MR] = A(i, p), A(i, p) = a[i rs + p cs],
 * rows past m zero. */
static void pack_a(size_t m, size_t kc, const float *a, size_t rs, size_t cs,
                   float *ap)
{
    for (size_t i0 = 0; i0 < m; i0 += MR, ap += kc * MR) {
        size_t mr = m - i0 < MR ? m - i0 : MR;
        for (size_t r = 0; r < MR; r++) {
            const float *src = a + (i0 + r) * rs;
            for (size_t p = 0; p < kc; p++)
                ap[p * MR + r] = r < mr ? src[p * cs] : 0.0f;
        }
    }
}

/* bp[p NR + j] = B(p, j), B(p, j) = b[p rs + j cs], columns past n zero. */
static void pack_b(size_t kc, size_t n, const float *b, size_t rs, size_t cs,
                   float *bp)
{
    if (cs == 1) {
        for (size_t p = 0; p < kc; p++) {
            memcpy(bp + p * NR, b + p * rs, n * sizeof *bp);
            for (size_t j = n; j < NR; j++)
                bp[p * NR + j] = 0.0f;
        }
        return;
    }
    for (size_t j = 0; j < NR; j++) {
        const float *src = b + j * cs;
        for (size_t p = 0; p < kc; p++)
            bp[p * NR + j] = j < n ? src[p * rs] : 0.0f;
    }
}

/* c (mr x nr, row stride ldc) = [c +] sum_p ap[p] bp[p]^T over kc. */
__attribute__((target("avx512f"))) static void
kernel(size_t kc, const float *ap, const float *bp, float *c, size_t ldc,
       size_t mr, size_t nr, int acc)
{
    __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
        c0[r] = c1[r] = _mm512_setzero_ps();
    for (size_t p = 0; p < kc; p++, ap += MR, bp += NR) {
        __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16);
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++) {
            __m512 av = _mm512_set1_ps(ap[r]);
            c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
            c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
        }
    }
    __mmask16 m0 = nr >= 16 ? 0xFFFF : (__mmask16)((1u << nr) - 1);
    __mmask16 m1 = nr >= 32 ? 0xFFFF
                 : nr > 16  ? (__mmask16)((1u << (nr - 16)) - 1) : 0;
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        if ((size_t)r >= mr)
            break;
        float *cr = c + (size_t)r * ldc;
        __m512 v0 = c0[r], v1 = c1[r];
        if (acc) {
            v0 = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, cr), v0);
            v1 = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, cr + 16), v1);
        }
        _mm512_mask_storeu_ps(cr, m0, v0);
        _mm512_mask_storeu_ps(cr + 16, m1, v1);
    }
}

static void gemm_own(size_t m, size_t n, size_t k, const float *a,
                     size_t ars, size_t acs, const float *b, size_t brs,
                     size_t bcs, float *c, size_t ldc, int acc, float *work)
{
    float *ap = (float *)(((uintptr_t)work + 63) & ~(uintptr_t)63);
    float *bp = ap + dt_kern_round_up(m, MR) * KC;
    if (k == 0 && !acc)
        for (size_t i = 0; i < m; i++)
            memset(c + i * ldc, 0, n * sizeof *c);
    for (size_t p0 = 0; p0 < k; p0 += KC) {
        size_t kc = k - p0 < KC ? k - p0 : KC;
        pack_a(m, kc, a + p0 * acs, ars, acs, ap);
        for (size_t j0 = 0; j0 < n; j0 += NR) {
            size_t nr = n - j0 < NR ? n - j0 : NR;
            pack_b(kc, nr, b + p0 * brs + j0 * bcs, brs, bcs, bp);
            for (size_t i0 = 0; i0 < m; i0 += MR)
                kernel(kc, ap + i0 * kc, bp, c + i0 * ldc + j0, ldc,
                       m - i0 < MR ? m - i0 : MR, nr, acc || p0 > 0);
        }
    }
}
#endif

/* Row-major C (m x n) = op(A) op(B) (+ C when acc), as cblas_sgemm with
 * alpha 1 and beta acc: the own AVX-512 GEMM when avx512, else
 * OpenBLAS. work: dt_kern_gemm_work_size(m) floats. */
void dt_kern_gemm(int ta, int tb, size_t m, size_t n, size_t k,
                 const float *a, size_t lda, const float *b, size_t ldb,
                 int acc, float *c, size_t ldc, float *work, int avx512)
{
#ifdef DT_AVX512
    if (avx512) {
        gemm_own(m, n, k, a, ta ? 1 : lda, ta ? lda : 1, b, tb ? 1 : ldb,
                 tb ? ldb : 1, c, ldc, acc, work);
        return;
    }
#endif
    (void)work;
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, 1.0f,
                a, (int)lda, b, (int)ldb, acc ? 1.0f : 0.0f, c, (int)ldc);
}

/* ---- NHWC convolution (pad 0): indirect GEMM, AVX-512 ------------------
 * Output pixel q = (n, i, j) reads the k rows of k*c contiguous floats at
 * x + n in + ((i + u) w + j) c, u < k, so neither im2col nor col2im is
 * materialized: with p = (u k + v) c + ci, A(q, p) = x[off(q) + u w c + v c
 * + ci] and the weights are repacked per call (O(n_w)) into 32-column
 * panels. Forward Y(q, o) = A W' (tile: 8 pixels x 32 channels, bias and
 * ReLU in the epilogue); dW'(p, o) = sum_q A(q, p) dY(q, o) (tile: 8 rows
 * p x 32 channels, pixels in chunks of rows); dX: the tile dY(q, :) W'^T
 * (8 pixels x 32 p) is added into dX at the same offsets (col2im fused). */
#ifdef DT_AVX512
enum { NHWC_CHUNK = 512 }; /* pixels per dW chunk (dY slice stays in L2) */

/* Layout of the NHWC workspace: forward panels wf[pan][p][32] (pan = o/32),
 * dX panels wt[jp][o][32] (jp = p/32), dW' accumulator dwp[p][ocp] (kk
 * rounded up to MR rows). */
typedef struct {
    size_t kk, kc, ocp, kkp; /* c k k, k c, oc and kk rounded up to 32 */
    float *wf, *wt, *dwp;
} nhwc_ws;

static nhwc_ws nhwc_layout(const dt_layer *l, float *work)
{
    nhwc_ws s;
    s.kk = l->c * l->k * l->k;
    s.kc = l->k * l->c;
    s.ocp = dt_kern_round_up(l->oc, 32);
    s.kkp = dt_kern_round_up(s.kk, 32);
    s.wf = (float *)(((uintptr_t)work + 63) & ~(uintptr_t)63);
    s.wt = s.wf + s.kk * s.ocp;
    s.dwp = s.wt + s.kkp * l->oc;
    return s;
}

size_t dt_kern_nhwc_work_size(const dt_layer *l)
{
    /* wf, wt, then dwp with whole MR-row tiles (dw_tile loads all MR) */
    size_t kk = l->c * l->k * l->k, ocp = dt_kern_round_up(l->oc, 32);
    return (kk + dt_kern_round_up(kk, MR)) * ocp + dt_kern_round_up(kk, 32) * l->oc + 16;
}

/* Walks the output pixels q = (n, i, j) in order; off = offset of q's
 * receptive field (its (0,0) corner) in the NHWC input, n in + (i w + j) c.
 * Incremental, so the tile loops divide nothing. */
typedef struct {
    size_t i, j, off;
} pix_cursor;

static void pix_next(const dt_layer *l, pix_cursor *p)
{
    p->off += l->c;
    if (++p->j < l->ow)
        return;
    p->j = 0;
    p->off += (l->w - l->ow) * l->c;
    if (++p->i < l->oh)
        return;
    p->i = 0;
    p->off += (l->h - l->oh) * l->w * l->c;
}

/* The next MR receptive-field offsets (the first one repeated past mr). */
static void pix_tile(const dt_layer *l, pix_cursor *p, size_t mr,
                     size_t *off)
{
    for (size_t r = 0; r < MR; r++) {
        off[r] = r < mr ? p->off : off[0];
        if (r < mr)
            pix_next(l, p);
    }
}

/* Offset of p = (u k + v) c + ci within a receptive field. */
static size_t p_off(const dt_layer *l, size_t p)
{
    size_t kc = l->k * l->c;
    return (p / kc) * l->w * l->c + p % kc;
}

static __mmask16 mask_lo(size_t n)
{
    return n >= 16 ? 0xFFFF : (__mmask16)((1u << n) - 1);
}

static __mmask16 mask_hi(size_t n)
{
    return n >= 32 ? 0xFFFF : n > 16 ? (__mmask16)((1u << (n - 16)) - 1) : 0;
}

/* 8 pixels x 32 channels: y[r ldy + c] = act(b[c] + sum_{u,t} xr[r][u wc +
 * t] wp[(u kc + t) 32 + c]) for r < mr, c < nc. */
__attribute__((target("avx512f"))) static void
fwd_tile(const float *const *xr, size_t k, size_t kc, size_t wc,
         const float *wp, const float *b, float *y, size_t ldy, size_t mr,
         size_t nc, int relu)
{
    __m512 c0[MR], c1[MR];
    const float *x[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        c0[r] = c1[r] = _mm512_setzero_ps();
        x[r] = xr[r];
    }
    for (size_t u = 0; u < k; u++) {
        for (size_t t = 0; t < kc; t++, wp += 32) {
            __m512 b0 = _mm512_load_ps(wp), b1 = _mm512_load_ps(wp + 16);
#pragma GCC unroll 8
            for (int r = 0; r < MR; r++) {
                __m512 av = _mm512_set1_ps(x[r][t]);
                c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
                c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
            }
        }
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++)
            x[r] += wc;
    }
    __mmask16 m0 = mask_lo(nc), m1 = mask_hi(nc);
    __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
    __m512 b1 = _mm512_maskz_loadu_ps(m1, b + 16), z = _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        if ((size_t)r >= mr)
            break;
        __m512 v0 = _mm512_add_ps(c0[r], b0), v1 = _mm512_add_ps(c1[r], b1);
        if (relu) {
            v0 = _mm512_max_ps(v0, z);
            v1 = _mm512_max_ps(v1, z);
        }
        _mm512_mask_storeu_ps(y + (size_t)r * ldy, m0, v0);
        _mm512_mask_storeu_ps(y + (size_t)r * ldy + 16, m1, v1);
    }
}

/* dW' tile (8 rows p x 32 channels, row stride ldd) += sum over output rows
 * R in [r0, r1), j < ow of x[row(R) + j c + koff[r]] dy[(R ow + j) oc + c]
 * for c < nc (dy already offset by the first channel). */
__attribute__((target("avx512f"))) static void
dw_tile(const dt_layer *l, const float *x, const float *dy, size_t r0,
        size_t r1, const size_t *koff, float *dwp, size_t ldd, size_t mr,
        size_t nc)
{
    const size_t oh = l->oh, ow = l->ow, oc = l->oc, c = l->c;
    const size_t in = dt_layer_in_size(l), wc = l->w * c;
    __mmask16 m0 = mask_lo(nc), m1 = mask_hi(nc);
    __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        c0[r] = _mm512_load_ps(dwp + (size_t)r * ldd);
        c1[r] = _mm512_load_ps(dwp + (size_t)r * ldd + 16);
    }
    size_t i = r0 % oh; /* input row of R = (n, i): x + n in + i w c */
    const float *xb = x + (r0 / oh) * in + i * wc;
    for (size_t R = r0; R < r1; R++, xb += wc) {
        if (i == oh) {
            i = 0;
            xb += (l->h - oh) * wc;
        }
        i++;
        const float *d = dy + R * ow * oc;
        const float *xp[MR];
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++)
            xp[r] = xb + koff[r];
        for (size_t j = 0; j < ow; j++, d += oc) {
            __m512 b0 = _mm512_maskz_loadu_ps(m0, d);
            __m512 b1 = _mm512_maskz_loadu_ps(m1, d + 16);
#pragma GCC unroll 8
            for (int r = 0; r < MR; r++) {
                __m512 av = _mm512_set1_ps(xp[r][j * c]);
                c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
                c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
            }
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        if ((size_t)r >= mr)
            break;
        _mm512_store_ps(dwp + (size_t)r * ldd, c0[r]);
        _mm512_store_ps(dwp + (size_t)r * ldd + 16, c1[r]);
    }
}

/* The transposed tile, when k c is a multiple of 32 and oc of 8: dW'^T
 * (8 channels x 32 p's from poff on, row stride ldd) += sum over rows R in
 * [r0, r1), j < ow of dy[(R ow + j) oc + r] x[row(R) + j c + poff + t].
 * Each pixel then costs 3 cache lines (2 of x, 1 of dy), not 10. */
__attribute__((target("avx512f"))) static void
dwt_tile(const dt_layer *l, const float *x, const float *dy, size_t r0,
         size_t r1, size_t poff, float *dwt, size_t ldd)
{
    const size_t oh = l->oh, ow = l->ow, oc = l->oc, c = l->c;
    const size_t in = dt_layer_in_size(l), wc = l->w * c;
    __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        c0[r] = _mm512_load_ps(dwt + (size_t)r * ldd);
        c1[r] = _mm512_load_ps(dwt + (size_t)r * ldd + 16);
    }
    size_t i = r0 % oh;
    const float *xb = x + (r0 / oh) * in + i * wc + poff;
    for (size_t R = r0; R < r1; R++, xb += wc) {
        if (i == oh) {
            i = 0;
            xb += (l->h - oh) * wc;
        }
        i++;
        const float *d = dy + R * ow * oc, *xq = xb;
        for (size_t j = 0; j < ow; j++, d += oc, xq += c) {
            __m512 b0 = _mm512_loadu_ps(xq), b1 = _mm512_loadu_ps(xq + 16);
#pragma GCC unroll 8
            for (int r = 0; r < MR; r++) {
                __m512 av = _mm512_set1_ps(d[r]);
                c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
                c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
            }
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        _mm512_store_ps(dwt + (size_t)r * ldd, c0[r]);
        _mm512_store_ps(dwt + (size_t)r * ldd + 16, c1[r]);
    }
}

/* dX: for r < mr, j < nj: dxr[r][coff(j)] += sum_o dyr[r][o] wt[o 32 + j];
 * coff(j) = off0 + j when the columns are contiguous (coff == NULL). */
__attribute__((target("avx512f"))) static void
dx_tile(const float *const *dyr, size_t oc, const float *wt,
        float *const *dxr, size_t off0, const size_t *coff, size_t mr,
        size_t nj)
{
    __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
        c0[r] = c1[r] = _mm512_setzero_ps();
    for (size_t o = 0; o < oc; o++, wt += 32) {
        __m512 b0 = _mm512_load_ps(wt), b1 = _mm512_load_ps(wt + 16);
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++) {
            __m512 av = _mm512_set1_ps(dyr[r][o]);
            c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
            c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
        }
    }
    __mmask16 m0 = mask_lo(nj), m1 = mask_hi(nj);
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        if ((size_t)r >= mr)
            break;
        if (!coff) {
            float *d = dxr[r] + off0;
            _mm512_mask_storeu_ps(d, m0, _mm512_add_ps(
                _mm512_maskz_loadu_ps(m0, d), c0[r]));
            _mm512_mask_storeu_ps(d + 16, m1, _mm512_add_ps(
                _mm512_maskz_loadu_ps(m1, d + 16), c1[r]));
        } else {
            float t[32];
            _mm512_storeu_ps(t, c0[r]);
            _mm512_storeu_ps(t + 16, c1[r]);
            for (size_t j = 0; j < nj; j++)
                dxr[r][coff[j]] += t[j];
        }
    }
}

void dt_kern_conv_nhwc_forward(const dt_layer *l, const float *w,
                              const float *b, const float *x, float *y,
                              size_t batch, float *work)
{
    nhwc_ws s = nhwc_layout(l, work);
    const size_t oc = l->oc, kk = s.kk, npix = batch * l->oh * l->ow;
    const size_t kq = l->k * l->k, c = l->c;
    /* wf[pan][p][o % 32] = w[o][ci][u][v], p = (u k + v) c + ci */
    for (size_t o = 0; o < s.ocp; o++)
        for (size_t ci = 0; ci < c; ci++)
            for (size_t uv = 0; uv < kq; uv++)
                s.wf[(o / 32) * kk * 32 + (uv * c + ci) * 32 + o % 32] =
                    o < oc ? w[o * kk + ci * kq + uv] : 0.0f;
    pix_cursor cur = {0, 0, 0};
    for (size_t q0 = 0; q0 < npix; q0 += MR) {
        size_t mr = npix - q0 < MR ? npix - q0 : MR, off[MR];
        const float *xr[MR];
        pix_tile(l, &cur, mr, off);
        for (size_t r = 0; r < MR; r++)
            xr[r] = x + off[r];
        for (size_t o0 = 0; o0 < oc; o0 += 32)
            fwd_tile(xr, l->k, s.kc, l->w * l->c, s.wf + o0 * kk, b + o0,
                     y + q0 * oc + o0, oc, mr, oc - o0, l->relu);
    }
}

void dt_kern_conv_nhwc_backward(const dt_layer *l, const float *w,
                               const float *x, const float *y, float *dy,
                               float *dx, float *dw, float *db, size_t batch,
                               float *work)
{
    nhwc_ws s = nhwc_layout(l, work);
    const size_t oc = l->oc, kk = s.kk, kq = l->k * l->k;
    const size_t npix = batch * l->oh * l->ow, rows = batch * l->oh;
    /* fused ReLU mask (dy <- dy [y > 0]) and db, in one pass */
    for (size_t q = 0; q < npix; q++) {
        float *restrict d = dy + q * oc;
        const float *restrict yq = y + q * oc;
        for (size_t o = 0; o < oc; o++) {
            float g = d[o];
            if (l->relu)
                d[o] = g = yq[o] > 0.0f ? g : 0.0f;
            db[o] += g;
        }
    }
    /* dW' (dwp[p ocp + o]) or, when k c is a multiple of 32 and oc of 8,
       dW'^T (dwp[o kk + p], the cheaper tile) over chunks of output rows;
       then dw[o][ci][u][v] += dW'[p][o] */
    const int tr = s.kc % 32 == 0 && oc % MR == 0;
    const size_t sp = tr ? 1 : s.ocp, so = tr ? kk : 1, c = l->c;
    const size_t chunk = NHWC_CHUNK / l->ow ? NHWC_CHUNK / l->ow : 1;
    memset(s.dwp, 0, dt_kern_round_up(kk, MR) * s.ocp * sizeof *s.dwp);
    for (size_t r0 = 0; r0 < rows; r0 += chunk) {
        size_t r1 = rows - r0 < chunk ? rows : r0 + chunk;
        for (size_t o0 = 0; tr && o0 < oc; o0 += MR)
            for (size_t p0 = 0; p0 < kk; p0 += 32)
                dwt_tile(l, x, dy + o0, r0, r1, p_off(l, p0),
                         s.dwp + o0 * kk + p0, kk);
        for (size_t o0 = 0; !tr && o0 < oc; o0 += 32)
            for (size_t p0 = 0; p0 < kk; p0 += MR) {
                size_t mr = kk - p0 < MR ? kk - p0 : MR, koff[MR];
                for (size_t r = 0; r < MR; r++)
                    koff[r] = p_off(l, p0 + (r < mr ? r : 0));
                dw_tile(l, x, dy + o0, r0, r1, koff,
                        s.dwp + p0 * s.ocp + o0, s.ocp, mr, oc - o0);
            }
    }
    for (size_t o = 0; o < oc; o++)
        for (size_t ci = 0; ci < c; ci++)
            for (size_t uv = 0; uv < kq; uv++)
                dw[o * kk + ci * kq + uv] += s.dwp[(uv * c + ci) * sp + o * so];
    if (!dx)
        return;
    /* wt[jp][o][p % 32] = W'(p, o) = w[o][ci][u][v], zero past kk */
    memset(s.wt, 0, s.kkp * oc * sizeof *s.wt);
    for (size_t o = 0; o < oc; o++)
        for (size_t ci = 0; ci < c; ci++)
            for (size_t uv = 0; uv < kq; uv++) {
                size_t p = uv * c + ci;
                s.wt[(p / 32) * oc * 32 + o * 32 + p % 32] =
                    w[o * kk + ci * kq + uv];
            }
    memset(dx, 0, batch * dt_layer_in_size(l) * sizeof *dx);
    pix_cursor cur = {0, 0, 0};
    for (size_t q0 = 0; q0 < npix; q0 += MR) {
        size_t mr = npix - q0 < MR ? npix - q0 : MR, off[MR];
        const float *dyr[MR];
        float *dxr[MR];
        pix_tile(l, &cur, mr, off);
        for (size_t r = 0; r < MR; r++) {
            dyr[r] = dy + (q0 + (r < mr ? r : 0)) * oc;
            dxr[r] = dx + off[r];
        }
        for (size_t p0 = 0; p0 < kk; p0 += 32) {
            size_t nj = kk - p0 < 32 ? kk - p0 : 32, coff[32];
            int contig = p0 % s.kc + nj <= s.kc;
            if (!contig)
                for (size_t j = 0; j < nj; j++)
                    coff[j] = p_off(l, p0 + j);
            dx_tile(dyr, oc, s.wt + p0 * oc, dxr, p_off(l, p0),
                    contig ? NULL : coff, mr, nj);
        }
    }
}
#endif
