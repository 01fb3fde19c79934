/* dt_direct.c: direct convolution of a one-channel input (a model's first
 * layer: LeNet's padded 5x5, the CNN's 3x3), AVX2 + FMA, NCHW, no im2col.
 *
 * With one input channel im2col turns each image into a (k k) x (oh ow)
 * matrix, 25 times the image for LeNet, and the GEMM behind it has only
 * oc = 6 rows: the layer is bound by copying, not by arithmetic. Here the
 * image is copied once into a zero-padded plane xp (Hp x Wp, Wp a multiple
 * of 16 plus k - 1, so every 8-wide load at any tap stays inside), and:
 *
 *   forward  y[o,i,j] = act(b[o] + sum_{u,v} w[o,u,v] xp[i+u, j+v]):
 *            a register tile of 6 channels x 16 pixels of one output row
 *            (12 accumulators), each tap loading 2 vectors of xp and
 *            broadcasting 6 weights;
 *   dW       dw[o,u,v] += sum_{n,i,j} dy[n,o,i,j] xp_n[i+u, j+v]: for one
 *            tap row u and 2 channels, k x 2 vector accumulators over 8
 *            pixels, kept across the batch in a small array and summed
 *            across lanes once at the end;
 *   db       db[o] += sum dy[n,o,.,.], 8 lanes, summed once at the end.
 *
 * Every sum runs in a fixed order (taps in order; images, rows, pixel
 * blocks in order; lanes 0..7 at the end): same inputs, same bits. Only k
 * = 3 and k = 5 have kernels (their tap loops unroll fully); the layer
 * flag `direct` is set only where dt_direct_supported() says so.
 */
#include "dt_kernels.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef DT_X86
#include <immintrin.h>

#include "dt_avx2.h"
#endif

enum { OG = 6 }; /* output channels per forward tile */

/* The padded plane: Hp = oh + k - 1 rows of Wp floats. */
static size_t plane_w(const dt_layer *l)
{
    return dt_kern_round_up(l->ow, 16) + l->k - 1;
}

size_t dt_direct_work_size(const dt_layer *l)
{
    size_t hp = l->oh + l->k - 1, kk = l->k * l->k;
    size_t groups = (l->oc + OG - 1) / OG;
    /* plane + packed weights + dW lane accumulators (oc even) + db lanes */
    return hp * plane_w(l) + groups * kk * OG +
           dt_kern_round_up(l->oc, 2) * kk * 8 + l->oc * 8 + 16;
}

int dt_direct_supported(const dt_layer *l)
{
#ifdef DT_X86
    static int cpu = -1;
    if (cpu < 0)
        cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return cpu && l->kind == DT_CONV && l->c == 1 &&
           (l->k == 3 || l->k == 5) && l->pad < l->k;
#else
    (void)l;
    return 0;
#endif
}

#ifdef DT_X86
typedef struct {
    size_t hp, wp;      /* padded plane */
    float *xp, *wpk;    /* plane; weights [group][u k + v][OG] */
    float *dwl, *dbl;   /* dW lanes [o][u k + v][8]; db lanes [o][8] */
} direct_ws;

static direct_ws ws_layout(const dt_layer *l, float *work)
{
    direct_ws s;
    size_t kk = l->k * l->k, groups = (l->oc + OG - 1) / OG;
    s.hp = l->oh + l->k - 1;
    s.wp = plane_w(l);
    s.xp = (float *)(((uintptr_t)work + 31) & ~(uintptr_t)31);
    s.wpk = s.xp + s.hp * s.wp;
    s.dwl = s.wpk + groups * kk * OG;
    s.dbl = s.dwl + dt_kern_round_up(l->oc, 2) * kk * 8;
    return s;
}

/* Copies image x (h x w) into the interior of the zeroed plane. */
static void pad_image(const dt_layer *l, const float *x, const direct_ws *s)
{
    for (size_t r = 0; r < l->h; r++)
        memcpy(s->xp + (r + l->pad) * s->wp + l->pad, x + r * l->w,
               l->w * sizeof *x);
}

/* One output row i of one group: 6 channels x 16 pixels per tile. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
fwd_row(const dt_layer *l, const direct_ws *s, const float *wg,
        const float *b, size_t og, size_t i, float *y, const size_t K)
{
    const size_t ow = l->ow, pix = l->oh * ow;
    const __m256 z = _mm256_setzero_ps();
    for (size_t j0 = 0; j0 < ow; j0 += 16) {
        __m256 a0[OG], a1[OG];
        _Pragma("GCC unroll 6") for (int o = 0; o < OG; o++)
            a0[o] = a1[o] = z;
        const float *wp = wg;
        for (size_t u = 0; u < K; u++) {
            const float *row = s->xp + (i + u) * s->wp + j0;
            _Pragma("GCC unroll 5") for (size_t v = 0; v < K; v++, wp += OG) {
                __m256 x0 = _mm256_loadu_ps(row + v);
                __m256 x1 = _mm256_loadu_ps(row + v + 8);
                _Pragma("GCC unroll 6") for (int o = 0; o < OG; o++) {
                    __m256 wv = _mm256_broadcast_ss(wp + o);
                    a0[o] = _mm256_fmadd_ps(wv, x0, a0[o]);
                    a1[o] = _mm256_fmadd_ps(wv, x1, a1[o]);
                }
            }
        }
        _Pragma("GCC unroll 6") for (int o = 0; o < OG; o++) {
            if ((size_t)o >= og)
                break;
            float *yo = y + (size_t)o * pix + i * ow + j0;
            __m256 bv = _mm256_broadcast_ss(b + o);
            __m256 v0 = _mm256_add_ps(a0[o], bv), v1 = _mm256_add_ps(a1[o], bv);
            if (l->relu) {
                v0 = _mm256_max_ps(v0, z);
                v1 = _mm256_max_ps(v1, z);
            }
            store_n(yo, v0, (long)ow - (long)j0);
            store_n(yo + 8, v1, (long)ow - (long)j0 - 8);
        }
    }
}

__attribute__((target("avx2,fma"), always_inline)) static inline void
fwd_k(const dt_layer *l, const float *w, const float *b, const float *x,
      float *y, size_t batch, float *work, const size_t K)
{
    direct_ws s = ws_layout(l, work);
    const size_t kk = K * K, groups = (l->oc + OG - 1) / OG;
    const size_t out = dt_layer_out_size(l), pix = l->oh * l->ow;
    for (size_t g = 0; g < groups; g++) /* wpk[g][t][o] = w[g OG + o][t] */
        for (size_t t = 0; t < kk; t++)
            for (size_t o = 0; o < OG; o++) {
                size_t oo = g * OG + o;
                s.wpk[(g * kk + t) * OG + o] = oo < l->oc ? w[oo * kk + t] : 0;
            }
    memset(s.xp, 0, s.hp * s.wp * sizeof *s.xp);
    for (size_t n = 0; n < batch; n++) {
        pad_image(l, x + n * l->h * l->w, &s);
        float *yn = y + n * out;
        for (size_t g = 0; g < groups; g++) {
            size_t og = l->oc - g * OG < OG ? l->oc - g * OG : OG;
            for (size_t i = 0; i < l->oh; i++)
                fwd_row(l, &s, s.wpk + g * kk * OG, b + g * OG, og, i,
                        yn + g * OG * pix, K);
        }
    }
}

__attribute__((target("avx2,fma"))) static void
fwd_3(const dt_layer *l, const float *w, const float *b, const float *x,
      float *y, size_t batch, float *work)
{
    fwd_k(l, w, b, x, y, batch, work, 3);
}

__attribute__((target("avx2,fma"))) static void
fwd_5(const dt_layer *l, const float *w, const float *b, const float *x,
      float *y, size_t batch, float *work)
{
    fwd_k(l, w, b, x, y, batch, work, 5);
}

/* dW lanes of channels o, o + 1 (o + 1 < oc unless `single`), tap row u,
 * over one image: dwl[(o, u k + v)] += sum_{i, j-blocks} dy * xp. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
dw_pair(const dt_layer *l, const direct_ws *s, const float *dy0,
        const float *dy1, float *dl0, float *dl1, size_t u, const size_t K)
{
    const size_t ow = l->ow;
    __m256 a0[5], a1[5];
    _Pragma("GCC unroll 5") for (size_t v = 0; v < K; v++) {
        a0[v] = _mm256_loadu_ps(dl0 + v * 8);
        a1[v] = _mm256_loadu_ps(dl1 + v * 8);
    }
    for (size_t i = 0; i < l->oh; i++) {
        const float *row = s->xp + (i + u) * s->wp;
        const float *d0 = dy0 + i * ow, *d1 = dy1 + i * ow;
        for (size_t j0 = 0; j0 < ow; j0 += 8) {
            __m256 g0, g1;
            if (j0 + 8 <= ow) {
                g0 = _mm256_loadu_ps(d0 + j0);
                g1 = _mm256_loadu_ps(d1 + j0);
            } else {
                __m256i m = lanes((long)(ow - j0));
                g0 = _mm256_maskload_ps(d0 + j0, m);
                g1 = _mm256_maskload_ps(d1 + j0, m);
            }
            _Pragma("GCC unroll 5") for (size_t v = 0; v < K; v++) {
                __m256 xv = _mm256_loadu_ps(row + j0 + v);
                a0[v] = _mm256_fmadd_ps(g0, xv, a0[v]);
                a1[v] = _mm256_fmadd_ps(g1, xv, a1[v]);
            }
        }
    }
    _Pragma("GCC unroll 5") for (size_t v = 0; v < K; v++) {
        _mm256_storeu_ps(dl0 + v * 8, a0[v]);
        _mm256_storeu_ps(dl1 + v * 8, a1[v]);
    }
}

__attribute__((target("avx2,fma"), always_inline)) static inline void
bwd_k(const dt_layer *l, const float *x, const float *dy, float *dw,
      float *db, size_t batch, float *work, const size_t K)
{
    direct_ws s = ws_layout(l, work);
    const size_t kk = K * K, oc = l->oc, out = dt_layer_out_size(l);
    const size_t pix = l->oh * l->ow;
    const size_t ocp = dt_kern_round_up(oc, 2);
    memset(s.dwl, 0, ocp * kk * 8 * sizeof *s.dwl);
    memset(s.dbl, 0, oc * 8 * sizeof *s.dbl);
    memset(s.xp, 0, s.hp * s.wp * sizeof *s.xp);
    for (size_t n = 0; n < batch; n++) {
        const float *dyn = dy + n * out;
        pad_image(l, x + n * l->h * l->w, &s);
        for (size_t o = 0; o < oc; o += 2) {
            /* an odd last channel pairs with itself; its twin is dropped */
            const float *d1 = dyn + (o + 1 < oc ? o + 1 : o) * pix;
            for (size_t u = 0; u < K; u++)
                dw_pair(l, &s, dyn + o * pix, d1, s.dwl + (o * kk + u * K) * 8,
                        s.dwl + ((o + 1) * kk + u * K) * 8, u, K);
        }
        for (size_t o = 0; o < oc; o++) {
            const float *d = dyn + o * pix;
            __m256 a = _mm256_loadu_ps(s.dbl + o * 8);
            size_t p = 0;
            for (; p + 8 <= pix; p += 8)
                a = _mm256_add_ps(a, _mm256_loadu_ps(d + p));
            a = _mm256_add_ps(a, _mm256_maskload_ps(d + p,
                                                    lanes((long)(pix - p))));
            _mm256_storeu_ps(s.dbl + o * 8, a);
        }
    }
    for (size_t o = 0; o < oc; o++) {
        for (size_t t = 0; t < kk; t++) {
            const float *a = s.dwl + (o * kk + t) * 8;
            float sum = 0.0f;
            for (int q = 0; q < 8; q++)
                sum += a[q];
            dw[o * kk + t] += sum;
        }
        float sum = 0.0f;
        for (int q = 0; q < 8; q++)
            sum += s.dbl[o * 8 + q];
        db[o] += sum;
    }
}

__attribute__((target("avx2,fma"))) static void
bwd_3(const dt_layer *l, const float *x, const float *dy, float *dw,
      float *db, size_t batch, float *work)
{
    bwd_k(l, x, dy, dw, db, batch, work, 3);
}

__attribute__((target("avx2,fma"))) static void
bwd_5(const dt_layer *l, const float *x, const float *dy, float *dw,
      float *db, size_t batch, float *work)
{
    bwd_k(l, x, dy, dw, db, batch, work, 5);
}
#endif

void dt_direct_forward(const dt_layer *l, const float *w, const float *b,
                       const float *x, float *y, size_t batch, float *work)
{
#ifdef DT_X86
    if (l->k == 3)
        fwd_3(l, w, b, x, y, batch, work);
    else
        fwd_5(l, w, b, x, y, batch, work);
#else
    (void)l, (void)w, (void)b, (void)x, (void)y, (void)batch, (void)work;
#endif
}

void dt_direct_backward(const dt_layer *l, const float *x, const float *dy,
                        float *dw, float *db, size_t batch, float *work)
{
#ifdef DT_X86
    if (l->k == 3)
        bwd_3(l, x, dy, dw, db, batch, work);
    else
        bwd_5(l, x, dy, dw, db, batch, work);
#else
    (void)l, (void)x, (void)dy, (void)dw, (void)db, (void)batch, (void)work;
#endif
}
