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

#include <float.h>
#include <math.h>
#include <string.h>

#include <cblas.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DT_AVX512 1
#endif

/* Own GEMM (AVX-512 only): C tile MR x NR in registers, K in blocks of KC;
 * A packed as MR-row panels (all of M for one K block, in L2), B as one
 * KC x NR panel at a time (in L1). */
enum { MR = 8, NR = 32, KC = 256 };

static size_t round_up(size_t a, size_t m) { return (a + m - 1) / m * m; }

/* Floats of GEMM packing workspace for M <= m rows, 64-byte aligned. */
static size_t gemm_work_size(size_t m)
{
    return round_up(m, MR) * KC + (size_t)KC * NR + 16;
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
    float *bp = ap + round_up(m, MR) * KC;
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
 * alpha 1 and beta acc: the own AVX-512 GEMM where the CPU has it, else
 * OpenBLAS. work: gemm_work_size(m) floats. */
static void gemm(int ta, int tb, size_t m, size_t n, size_t k,
                 const float *a, size_t lda, const float *b, size_t ldb,
                 int acc, float *c, size_t ldc, float *work)
{
#ifdef DT_AVX512
    if (__builtin_cpu_supports("avx512f")) {
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
    s.ocp = round_up(l->oc, 32);
    s.kkp = round_up(s.kk, 32);
    s.wf = (float *)(((uintptr_t)work + 63) & ~(uintptr_t)63);
    s.wt = s.wf + s.kk * s.ocp;
    s.dwp = s.wt + s.kkp * l->oc;
    return s;
}

static size_t nhwc_work_size(const dt_layer *l)
{
    /* wf, wt, then dwp with whole MR-row tiles (dw_tile loads all MR) */
    size_t kk = l->c * l->k * l->k, ocp = round_up(l->oc, 32);
    return (kk + round_up(kk, MR)) * ocp + round_up(kk, 32) * l->oc + 16;
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

static void conv_nhwc_forward(const dt_layer *l, const float *w,
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

static void conv_nhwc_backward(const dt_layer *l, const float *w,
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
    memset(s.dwp, 0, round_up(kk, MR) * s.ocp * sizeof *s.dwp);
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

int dt_layer_nhwc_available(void)
{
#ifdef DT_AVX512
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

int dt_layer_shape(dt_layer *l)
{
    switch (l->kind) {
    case DT_CONV:
        if (l->k == 0 || l->oc == 0 || l->h + 2 * l->pad < l->k ||
            l->w + 2 * l->pad < l->k)
            return -1;
        l->oh = l->h + 2 * l->pad - l->k + 1;
        l->ow = l->w + 2 * l->pad - l->k + 1;
        l->n_w = l->oc * l->c * l->k * l->k;
        return 0;
    case DT_POOL:
        l->oc = l->c;
        l->oh = l->h / 2;
        l->ow = l->w / 2;
        l->n_w = 0;
        return l->oh && l->ow ? 0 : -1;
    case DT_FC:
        l->n_w = l->oc * l->c * l->h * l->w;
        l->oh = l->ow = 1;
        return l->oc ? 0 : -1;
    case DT_RELU:
        l->oc = l->c;
        l->oh = l->h;
        l->ow = l->w;
        l->n_w = 0;
        return 0;
    }
    return -1;
}

size_t dt_layer_in_size(const dt_layer *l) { return l->c * l->h * l->w; }

size_t dt_layer_out_size(const dt_layer *l) { return l->oc * l->oh * l->ow; }

size_t dt_layer_col_size(const dt_layer *l, size_t batch)
{
    if (l->kind == DT_FC)
        return gemm_work_size(batch > l->oc ? batch : l->oc);
    if (l->kind != DT_CONV)
        return 0;
#ifdef DT_AVX512
    if (l->out_nhwc)
        return nhwc_work_size(l);
#endif
    size_t pix = batch * l->oh * l->ow, kk = l->c * l->k * l->k;
    /* column matrix + staging matrix for the (oc, n, pixel) GEMM result +
       GEMM packing (M = oc or kk) */
    return (kk + l->oc) * pix + gemm_work_size(kk > l->oc ? kk : l->oc);
}

double dt_layer_macs(const dt_layer *l)
{
    switch (l->kind) {
    case DT_CONV:
        return (double)l->n_w * (double)(l->oh * l->ow);
    case DT_FC:
        return (double)l->n_w;
    default:
        return 0.0;
    }
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
        conv_nhwc_forward(l, w, b, x, y, batch, col);
        return;
    }
#endif
    for (size_t n0 = 0; n0 < batch; n0 += col_batch) {
        size_t nb = batch - n0 < col_batch ? batch - n0 : col_batch;
        size_t ld = nb * pix;
        float *work = col + (kk + l->oc) * ld;
        for (size_t n = 0; n < nb; n++)
            im2col(l, x + (n0 + n) * in, col, ld, n * pix);
        if (nb == 1) {
            float *yn = y + n0 * out;
            gemm(0, 0, l->oc, pix, kk, w, kk, col, ld, 0, yn, pix, work);
            for (size_t o = 0; o < l->oc; o++)
                bias_act(yn + o * pix, yn + o * pix, b[o], pix, l->relu);
            continue;
        }
        float *stage = col + kk * ld; /* (oc) x (nb pix) */
        gemm(0, 0, l->oc, ld, kk, w, kk, col, ld, 0, stage, ld, work);
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
        conv_nhwc_backward(l, w, x, y, dy, dx, dw, db, batch, col);
        return;
    }
#endif
    if (l->relu)
        dt_relu_backward(y, dy, batch * out);
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
        gemm(0, 1, l->oc, kk, ld, g, ld, col, ld, 1, dw, kk, work);
        if (!dx)
            continue;
        /* dcol (kk x ld) = W^T (kk x oc) g (oc x ld), over col */
        gemm(1, 0, kk, ld, l->oc, w, kk, g, ld, 0, col, ld, work);
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
                float *yo = yn + (c * oh + i) * ow;
                int32_t *ao = an + (c * oh + i) * ow;
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
                    yo[j] = m2 > m1 ? m2 : m1;
                    ao[j] = m2 > m1 ? i2 : i1;
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
    gemm(0, 1, batch, oc, in, x, in, w, in, 1, y, oc, work);
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
    gemm(1, 0, oc, in, batch, dy, oc, x, in, 1, dw, in, work);
    if (dx)
        gemm(0, 0, batch, in, oc, dy, oc, w, in, 0, dx, in, work);
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
