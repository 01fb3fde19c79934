/* dt_kernels: GEMM and NHWC convolution kernels for dt_layers (internal).
 *
 * dt_kern_gemm is cblas_sgemm's row-major contract (alpha 1, beta 0 or 1)
 * on our AVX-512 kernel when asked (a layer's avx512, only set where
 * dt_layer_cpu_avx512()), OpenBLAS otherwise; the NHWC convolution exists
 * only in DT_AVX512 builds and runs only on AVX-512 CPUs. All work
 * buffers are the caller's, sized by the *_work_size functions, allocated
 * once.
 */
#ifndef DT_KERNELS_H
#define DT_KERNELS_H

#include <stddef.h>

#include "dt_layer.h"

/* a rounded up to a multiple of m. */
size_t dt_kern_round_up(size_t a, size_t m);

/* Floats of GEMM packing workspace for M <= m rows (64-byte aligned). */
size_t dt_kern_gemm_work_size(size_t m);

/* Row-major C (m x n) = op(A) op(B) (+ C when acc): A is m x k (k x m when
 * ta), B is k x n (n x k when tb). work: dt_kern_gemm_work_size(m)
 * floats; avx512: the own kernel (the CPU must have AVX-512F), else
 * cblas_sgemm. Cost 2 m n k flops. */
void dt_kern_gemm(int ta, int tb, size_t m, size_t n, size_t k,
                  const float *a, size_t lda, const float *b, size_t ldb,
                  int acc, float *c, size_t ldc, float *work, int avx512);

/* Nonzero when the direct one-channel convolution (dt_direct.c) can run
 * layer l: a conv with c = 1, k = 3 or 5, pad < k, on a CPU with AVX2 and
 * FMA. */
int dt_direct_supported(const dt_layer *l);

/* Floats of workspace the direct convolution of l needs: the padded
 * plane, packed weights and lane accumulators, O(h w + oc k k). */
size_t dt_direct_work_size(const dt_layer *l);

/* Direct convolution forward (NCHW, c = 1), bias and the fused ReLU of l
 * applied: y = act(conv(x, w) + b). 2 batch oc k^2 oh ow flops. */
void dt_direct_forward(const dt_layer *l, const float *w, const float *b,
                       const float *x, float *y, size_t batch, float *work);

/* Direct convolution weight gradient: dw += sum dy (x) x, db += sum dy;
 * dy already masked by the ReLU. No input gradient (a first layer). */
void dt_direct_backward(const dt_layer *l, const float *x, const float *dy,
                        float *dw, float *db, size_t batch, float *work);

/* Nonzero when the indirect AVX2 convolution (dt_ind.c) can run l: an
 * unpadded conv on a CPU with AVX2 and FMA. */
int dt_ind_supported(const dt_layer *l);

/* Floats of workspace it needs: packed weights twice, a dW accumulator
 * and offset tables, O(oc c k k + oh ow). */
size_t dt_ind_work_size(const dt_layer *l);

/* Indirect convolution forward: x in l's input layout (l->in_nhwc), y
 * NHWC, bias and the fused ReLU applied. 2 batch oc c k^2 oh ow flops. */
void dt_ind_forward(const dt_layer *l, const float *w, const float *b,
                    const float *x, float *y, size_t batch, float *work);

/* Indirect convolution backward: dw, db accumulated; dx (in the input
 * layout; NULL: not computed) overwritten; dy NHWC, already masked by the
 * ReLU. */
void dt_ind_backward(const dt_layer *l, const float *w, const float *x,
                     const float *dy, float *dx, float *dw, float *db,
                     size_t batch, float *work);

/* Nonzero when the indirect conv of l runs its forward pass and dX as
 * Winograd F(2x2, 3x3) (dt_wino.c): k = 3, unpadded, c >= 32, c and oc
 * multiples of 16, even output sizes. A shape test; the CPU test is
 * dt_ind_supported's. */
int dt_wino_applies(const dt_layer *l);

/* Floats of workspace it needs (0 where it does not apply): transformed
 * weights, a tile block's transforms and staging for a group of images,
 * O(16 c oc + h w c). */
size_t dt_wino_work_size(const dt_layer *l);

/* Winograd forward: x in l's input layout, y NHWC, bias and the fused
 * ReLU applied; about 2 batch oc c 4 oh ow flops in its GEMMs (2.25x
 * fewer than the direct sum) plus O(batch h w (c + oc)) transforms. */
void dt_wino_forward(const dt_layer *l, const float *w, const float *b,
                     const float *x, float *y, size_t batch, float *work);

/* Winograd input gradient: dx (l's input layout) overwritten with the
 * valid conv of dy (NHWC, already masked by the ReLU) padded by 2 with the
 * flipped, transposed weights. */
void dt_wino_dx(const dt_layer *l, const float *w, const float *dy,
                float *dx, size_t batch, float *work);

/* Winograd weight gradient: dw += G^T [sum over the 2x2 output tiles of
 * (B^T d B) .* (A dY A^T)] G (the adjoint of the forward pass), x in l's
 * input layout, dy NHWC, already masked by the ReLU. db is not touched. */
void dt_wino_dw(const dt_layer *l, const float *x, const float *dy,
                float *dw, size_t batch, float *work);

#ifdef DT_AVX512
/* Floats of workspace the NHWC convolution of l needs. */
size_t dt_kern_nhwc_work_size(const dt_layer *l);

/* NHWC convolution forward of batch images (unpadded; bias and the fused
 * ReLU of l applied): y = relu(conv(x, w) + b). work: see above. */
void dt_kern_conv_nhwc_forward(const dt_layer *l, const float *w,
                               const float *b, const float *x, float *y,
                               size_t batch, float *work);

/* NHWC convolution backward: dw, db accumulated; dx (may be NULL for the
 * first layer) written; dy is the gradient at y (ReLU applied inside). */
void dt_kern_conv_nhwc_backward(const dt_layer *l, const float *w,
                                const float *x, const float *y, float *dy,
                                float *dx, float *dw, float *db, size_t batch,
                                float *work);
#endif

#endif
