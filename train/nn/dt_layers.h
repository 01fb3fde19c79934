/* dt_layers: the kernels of the CNN engine, forward and backward.
 *
 * Layers are plain descriptions (dt_layer.h: shapes, kernel size, offsets
 * of their weights in a flat parameter array) and the kernels take every
 * buffer explicitly, so one set of scratch buffers can run any parameter
 * vector. Tensors are float, NCHW, one image after another; a batch of B
 * images of shape (c, h, w) is B*c*h*w contiguous floats.
 *
 * Backward kernels ACCUMULATE into the weight and bias gradients (dw += ...)
 * and OVERWRITE the input gradient dx; the caller zeroes dw/db once per
 * step. Conv and fc may carry a fused ReLU (l->relu): forward then stores
 * max(z, 0), and backward first masks dy in place by [y > 0]. None of
 * these functions allocates or fails: shapes are checked when a network is
 * built (dt_net_new).
 *
 * Layouts: by default NCHW. Where l->avx512 is set (dt_net_new), conv
 * (without padding) and pool also run NHWC (channels last: a batch is
 * B*h*w*c floats, pixel after pixel, the c channels of a pixel
 * contiguous), chosen per layer by in_nhwc/out_nhwc; a 1-channel image is
 * the same in both. Weights keep one layout, (oc x c x k x k), either way.
 */
#ifndef DT_LAYERS_H
#define DT_LAYERS_H

#include <stddef.h>
#include <stdint.h>

#include "dt_layer.h"

/* Floats of workspace the conv and fc kernels need for `batch` images
 * processed at once (0 for pool and relu): NCHW conv, the im2col matrix
 * (c k k) x (batch oh ow), a staging matrix oc x (batch oh ow) and GEMM
 * packing; NHWC conv, only repacked weights and a weight-gradient tile,
 * O(oc c k k); fc, GEMM packing, O(max(batch, oc)). */
size_t dt_layer_col_size(const dt_layer *l, size_t batch);

/* Nonzero when conv layer l can run the direct one-channel kernel (c = 1,
 * k 3 or 5, pad < k, a CPU with AVX2 + FMA); its backward then computes
 * no dx. A pure query, like dt_layer_cpu_avx512. */
int dt_layer_direct_available(const dt_layer *l);

/* Nonzero when conv layer l can run the indirect AVX2 kernel (pad 0, a
 * CPU with AVX2 + FMA). */
int dt_layer_ind_available(const dt_layer *l);

/* Convolution forward. x: batch x (c,h,w); y: batch x (oc,oh,ow); w, b the
 * layer's weights and biases; col: dt_layer_col_size(l, cb) floats where cb
 * = col_batch is how many images share one GEMM (1..batch).
 * y[n,o,i,j] = b[o] + sum_{c,u,v} w[o,c,u,v] x[n,c,i+u-pad,j+v-pad].
 * Cost: 2 batch oc c k^2 oh ow flops (cblas_sgemm). */
void dt_conv_forward(const dt_layer *l, const float *w, const float *b,
                     const float *x, float *y, size_t batch, float *col,
                     size_t col_batch);

/* Convolution backward: dw += dL/dw, db += dL/db, and, when dx is not
 * NULL, dx = dL/dx. y, dy: the forward output and its gradient, batch x
 * (oc,oh,ow); with a fused ReLU dy is masked in place by [y > 0] (y is
 * read only then). col as for forward (the im2col of x is recomputed, so
 * the forward's col need not be kept). A `direct` layer computes no dx
 * (dx must be NULL: it is a first layer). */
void dt_conv_backward(const dt_layer *l, const float *w, const float *x,
                      const float *y, float *dy, float *dx, float *dw,
                      float *db, size_t batch, float *col, size_t col_batch);

/* Max pooling forward: y = max of each 2x2 window, arg[n*out + o] = index
 * (within the image's input, c*h*w, in the input's layout) of the chosen
 * element (first maximum in the order (0,0), (0,1), (1,0), (1,1)). */
void dt_pool_forward(const dt_layer *l, const float *x, float *y,
                     int32_t *arg, size_t batch);

/* Max pooling backward: dx = 0 except dx[arg] = dy. */
void dt_pool_backward(const dt_layer *l, const float *dy, const int32_t *arg,
                      float *dx, size_t batch);

/* Fully connected forward: y (batch x oc) = x (batch x in) W^T + b.
 * work: dt_layer_col_size(l, batch) floats. */
void dt_fc_forward(const dt_layer *l, const float *w, const float *b,
                   const float *x, float *y, size_t batch, float *work);

/* Fully connected backward: dw += dy^T x, db += sum_n dy, dx = dy W (when
 * dx is not NULL); y, dy and the fused ReLU as for dt_conv_backward. */
void dt_fc_backward(const dt_layer *l, const float *w, const float *x,
                    const float *y, float *dy, float *dx, float *dw,
                    float *db, size_t batch, float *work);

/* ReLU forward in place over n floats: y = max(y, 0). */
void dt_relu_forward(float *y, size_t n);

/* ReLU backward in place: dy[i] = 0 where y[i] <= 0 (y the forward output).
 */
void dt_relu_backward(const float *y, float *dy, size_t n);

/* Softmax cross-entropy over a batch of logits (batch x classes), labels in
 * [0, classes). Returns the SUM over the batch of -log softmax(z)[label]
 * (in double); when dz is not NULL writes dz = (softmax(z) - onehot) * scale
 * (scale = 1/B gives the gradient of the mean loss); adds to *correct (when
 * not NULL) the number of rows whose first arg-max equals the label. */
double dt_softmax_xent(const float *z, const uint8_t *labels, size_t batch,
                       size_t classes, float *dz, float scale,
                       size_t *correct);

#endif
