/* dt_layer: the layer descriptor of the CNN engine, shared by the layer
 * kernels (dt_layers) and the GEMM / NHWC kernels under them (dt_kernels).
 *
 * A layer is a plain description: kind, input and output shape, kernel
 * size, offsets of its weights in the network's flat parameter array, its
 * tensor layouts and which kernels run it. It owns nothing; dt_net builds
 * the chain and fills every field.
 */
#ifndef DT_LAYER_H
#define DT_LAYER_H

#include <stddef.h>

/* Builds that may carry the own AVX-512 kernels (chosen at run time). */
#if defined(__x86_64__) && defined(__GNUC__)
#define DT_AVX512 1
#define DT_X86 1 /* AVX2 + FMA kernels, chosen at run time (dt_direct.c,
                    dt_ind.c) */
#endif

typedef enum {
    DT_CONV, /* 2-D convolution, stride 1, zero padding `pad`, kernel k x k */
    DT_POOL, /* 2 x 2 max pooling, stride 2 (odd trailing row/col dropped) */
    DT_FC,   /* fully connected: y = W x + b, W is (oc x in) row-major */
    DT_RELU  /* y = max(x, 0), computed in place */
} dt_layer_kind;

typedef struct {
    dt_layer_kind kind; /* which kernel */
    size_t c, h, w;     /* input shape of one image (FC: c = inputs, h=w=1) */
    size_t oc, oh, ow;  /* output shape of one image (FC: oc = outputs) */
    size_t k, pad;      /* conv kernel size and zero padding (else 0) */
    size_t w_off;       /* offset of the weights in the flat parameters:
                           conv (oc x c x k x k), fc (oc x c*h*w) */
    size_t b_off;       /* offset of the oc biases */
    size_t n_w;         /* number of weights (0 for pool and relu) */
    int relu;           /* conv, fc: a ReLU fused on the output, y = max(.,0)
                           (dt_net fuses each relu into the layer before) */
    int in_nhwc;        /* pool, indirect conv: input is NHWC (else NCHW) */
    int out_nhwc;       /* conv: input and output NHWC, direct AVX-512
                           kernels (needs pad 0 and avx512); pool: output
                           NHWC (from an NCHW or NHWC input) */
    int avx512;         /* conv, fc: run on the own AVX-512 kernels (GEMM,
                           NHWC conv), else OpenBLAS; set by dt_net_new,
                           only where dt_layer_cpu_avx512() */
    int direct;         /* conv, NCHW, one input channel, no dx wanted: the
                           direct AVX2 kernel (dt_layer_direct_available) */
    int ind;            /* conv: the indirect AVX2 kernel, input NHWC when
                           in_nhwc (else NCHW), output NHWC
                           (dt_layer_ind_available) */
} dt_layer;

/* Fills the output shape and n_w of a layer from kind, input shape and
 * (conv, fc) oc, k, pad. Offsets are left to the caller. Returns 0 on
 * success, -1 when the output would be empty (kernel larger than the
 * padded input, pool of a 1-pixel plane). O(1). */
int dt_layer_shape(dt_layer *l);

/* Elements of one image at the layer's input and output. */
size_t dt_layer_in_size(const dt_layer *l);
size_t dt_layer_out_size(const dt_layer *l);

/* Multiply-adds of the forward pass of one image (for GFLOP/s figures). */
double dt_layer_macs(const dt_layer *l);

/* Nonzero when this build and CPU can run the own AVX-512 kernels
 * (AVX-512F). A pure query: whether to use them is the caller's choice
 * (dt_net_new's allow_own), so nothing here reads the environment. */
int dt_layer_cpu_avx512(void);

#endif
