/* dt_net: a network = a chain of layers, its flat parameters and all the
 * scratch it needs, allocated once for a maximum batch size.
 *
 * The network owns one flat float parameter array (`params`) and one flat
 * gradient array (`grads`) of n_params floats; layers hold offsets into
 * them. The compute functions take EXPLICIT parameter and gradient
 * pointers, so one network's scratch (activations, im2col workspace,
 * backward buffers, pooling arg-max) can run the parameters of any number
 * of simulated workers: dt_net_grad(net, x_i, g_i, ...). The scratch makes
 * a network single-threaded from the caller's side: use one network per
 * calling thread.
 *
 * Threads inside the engine (dt_net_set_threads): dt_net_grad and
 * dt_net_eval split every batch into SHARDS fixed by the batch size alone
 * (dt_net_shards: shards of 16 to 31 images, at most DT_NET_MAX_SHARDS),
 * run the shards on up to T threads (OpenMP; thread t > 0 on a scratch
 * network of its own), and add the shards' gradients, losses and counts in
 * shard order. Which thread ran a shard never enters the arithmetic, so
 * the result is the same bits for every T, T = 1 included.
 *
 * Models (input shape from the data set, e.g. 1x28x28 or 3x32x32; each relu
 * is fused into the conv or fc before it, so it costs no pass of its own):
 *   lenet: conv5x5x6 pad2, relu, pool, conv5x5x16, relu, pool,
 *          fc120, relu, fc84, relu, fc(classes)
 *   cnn:   conv3x3x32, relu, conv3x3x32, relu, pool, conv3x3x64, relu,
 *          conv3x3x64, relu, pool, fc256, relu, fc(classes)
 */
#ifndef DT_NET_H
#define DT_NET_H

#include <stddef.h>
#include <stdint.h>

#include "cm_rng.h"
#include "cm_status.h"
#include "dt_layers.h"

#define DT_NET_MAX_LAYERS 16
#define DT_NET_MAX_SHARDS 8 /* shards per batch, so useful threads */
#define DT_NET_SHARD_MIN 16 /* fewest images in a shard of a split batch */

typedef enum { DT_MODEL_LENET, DT_MODEL_CNN } dt_model;

typedef struct dt_net {
    dt_model model;        /* which architecture */
    size_t in_c, in_h, in_w; /* input shape of one image */
    size_t classes;        /* outputs of the last layer */
    size_t max_batch;      /* largest batch the scratch holds */
    int avx512;            /* the own AVX-512 kernels run its conv and fc
                              layers (dt_net_new's allow_own and a CPU
                              with AVX-512F); else OpenBLAS GEMMs */
    int allow_own;         /* dt_net_new's allow_own: own kernels (AVX-512
                              or, without it, the AVX2 direct and indirect
                              convs) may run; 0: im2col + OpenBLAS, NCHW */
    size_t n_layers;       /* layers in use in `layers` */
    dt_layer layers[DT_NET_MAX_LAYERS]; /* the chain, input to logits */
    size_t n_params;       /* length of params and grads */
    float *params;         /* the network's own parameters (owned) */
    float *grads;          /* the network's own gradient (owned) */
    /* scratch, owned: act[i] is the input of layer i (act[0] borrowed from
       the caller during a call), act[n_layers] the logits; dact likewise for
       gradients. A relu is fused into the conv/fc before it; one that
       could not be (after a pool) would run in place on its input. Inner
       activations are NHWC when dt_net_new chose the NHWC kernels (see
       avx512, unpadded convs, 1-channel input), else NCHW;
       the input and the fc layers are NCHW either way. */
    float *act[DT_NET_MAX_LAYERS + 1];
    float *dact[DT_NET_MAX_LAYERS + 1];
    int32_t *arg[DT_NET_MAX_LAYERS]; /* pooling arg-max, per pool layer */
    float *col;            /* im2col workspace shared by the conv layers */
    size_t col_batch[DT_NET_MAX_LAYERS]; /* images per conv GEMM */
    float *owned[2 * DT_NET_MAX_LAYERS + 3]; /* buffers to free */
    size_t n_owned;
    int profile;           /* nonzero: accumulate per-layer seconds below */
    double t_fwd[DT_NET_MAX_LAYERS]; /* forward seconds per layer */
    double t_bwd[DT_NET_MAX_LAYERS]; /* backward seconds per layer */
    size_t threads;        /* engine threads, 1..DT_NET_MAX_SHARDS */
    struct dt_net *team[DT_NET_MAX_SHARDS]; /* team[t]: thread t's scratch
                              network (t >= 1; team[0] unused: the net) */
    float *shard_grads;    /* (dt_net_shards(max_batch) - 1) x n_params:
                              the gradients of shards 1.. (owned; NULL
                              when max_batch never splits) */
    int shared_scratch;    /* 1 (only under SMPI, DT_SMPI): col, act,
                              dact, arg and shard_grads point into one block
                              all simulated ranks share (dt_net.c), not
                              owned */
} dt_net;

/* Parses "lenet" or "cnn". CM_EINVAL naming the value otherwise. */
cm_status dt_model_parse(const char *name, dt_model *m);

/* The model's name ("lenet", "cnn"). */
const char *dt_model_name(dt_model m);

/* Builds a network for images of shape (c, h, w) and `classes` outputs,
 * with scratch for batches of up to max_batch images. allow_own: use
 * the own kernels where the CPU has them: AVX-512 GEMM and NHWC convs, or
 * (LeNet on any AVX2 CPU, everything on AVX2 CPUs without AVX-512) the
 * AVX2 direct one-channel and indirect convs (0 forces the portable
 * im2col + OpenBLAS path; the paths give different bits). Parameters are zero
 * until dt_net_init. CM_EINVAL when the input is too small for the model
 * or a size is 0, CM_ENOMEM. The caller frees with dt_net_free. */
cm_status dt_net_new(dt_model m, size_t c, size_t h, size_t w,
                     size_t classes, size_t max_batch, int allow_own,
                     dt_net **out);

/* Lets dt_net_grad and dt_net_eval use up to `threads` threads (capped at
 * DT_NET_MAX_SHARDS; 0 means 1); allocates a scratch network for each
 * thread after the first, O(threads x scratch). The results do not depend
 * on `threads`. CM_ENOMEM (the net keeps its previous setting). */
cm_status dt_net_set_threads(dt_net *net, size_t threads);

/* Number of shards a batch of `batch` images is split into: 1 below 2 x
 * DT_NET_SHARD_MIN images, else batch / DT_NET_SHARD_MIN capped at
 * DT_NET_MAX_SHARDS. Shard s holds images [s B / S, (s + 1) B / S). */
size_t dt_net_shards(size_t batch);

/* Frees the network and everything it owns; accepts NULL. */
void dt_net_free(dt_net *net);

/* He-uniform initialization of params (n_params floats, net->params or any
 * other array): weights ~ U(-a, a), a = sqrt(6 / fan_in), biases 0. The
 * draws come from r in layer order, so a seed fixes the result. O(n). */
void dt_net_init(const dt_net *net, float *params, cm_rng *r);

/* Forward pass of `batch` (<= max_batch) images x (batch x c h w) with
 * parameters `params`, on the calling thread, unsharded; returns the
 * logits (batch x classes), borrowed from the network's scratch until the
 * next call. */
const float *dt_net_forward(dt_net *net, const float *params, const float *x,
                            size_t batch);

/* Mean cross-entropy loss of a batch and its gradient:
 * grads = d/dparams (1/B) sum_n -log softmax(f(x_n))[y_n] (overwritten),
 * *loss = that mean. batch in 1..max_batch (CM_EINVAL otherwise); labels
 * < classes. Sharded (see above): same bits for any number of threads.
 * Cost: about 3x the forward pass, over min(threads, shards) threads. */
cm_status dt_net_grad(dt_net *net, const float *params, float *grads,
                      const float *x, const uint8_t *y, size_t batch,
                      double *loss);

/* Evaluation goes through the test set in chunks of max_batch images; a
 * network trained on batches of B is built with max_batch =
 * dt_net_eval_batch(B) = max(B, DT_NET_EVAL_BATCH), so small training
 * batches still evaluate in chunks of this size. */
#define DT_NET_EVAL_BATCH 256

/* max(batch, DT_NET_EVAL_BATCH): the max_batch to give dt_net_new. */
static inline size_t dt_net_eval_batch(size_t batch)
{
    return batch > DT_NET_EVAL_BATCH ? batch : DT_NET_EVAL_BATCH;
}

/* Evaluates n images (any n, processed in chunks of max_batch): *correct =
 * number classified right, *loss = mean cross-entropy (either out pointer
 * may be NULL). Each chunk is sharded like a training batch, so the result
 * does not depend on the number of threads. */
cm_status dt_net_eval(dt_net *net, const float *params, const float *x,
                      const uint8_t *y, size_t n, size_t *correct,
                      double *loss);

#endif
