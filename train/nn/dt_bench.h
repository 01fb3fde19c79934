/* dt_bench: training-speed measurements of the engine (behind
 * `dpsgd-train --bench`, used by scripts/benches/bench-train.sh).
 *
 * Times full training steps (forward, loss, backward, SGD update) of a
 * model on random inputs held in memory, like the PyTorch reference, and
 * the seconds of each layer's forward and backward pass, together with the
 * single-thread cblas_sgemm throughput measured in the same run, so each
 * layer's GFLOP/s can be read against what the machine's GEMM reaches.
 */
#ifndef DT_BENCH_H
#define DT_BENCH_H

#include <stddef.h>

#include "cm_status.h"
#include "dt_net.h"

typedef struct {
    dt_model model;         /* what was measured */
    size_t batch, steps;    /* images per step, steps per timed run */
    size_t threads;         /* engine threads */
    double images_per_s;    /* best run: batch * steps / seconds */
    double step_s;          /* best run: seconds per step */
    double cpu_images_per_s; /* best run by process CPU time (all threads) */
    size_t n_layers;        /* layers of the model */
    dt_layer layers[DT_NET_MAX_LAYERS]; /* their shapes */
    double fwd_s[DT_NET_MAX_LAYERS]; /* seconds per step, forward */
    double bwd_s[DT_NET_MAX_LAYERS]; /* seconds per step, backward */
    double update_s;        /* seconds per step in the SGD update */
    double prof_step_s;     /* seconds per step of the profiled run (the
                               denominator of each layer's share) */
    double flops_per_image; /* forward + backward flops of one image */
    double sgemm_gflops;    /* reference: 512^3 single-thread sgemm */
} dt_bench_result;

/* Measures `repeat` runs of `steps` training steps of batch `batch` on
 * 1x28x28 random inputs (after a warm-up of steps/10 + 2), keeping the
 * best; then one profiled run for the per-layer split (thread 0's shards
 * only when threads > 1). The engine runs `threads` threads
 * (dt_net_set_threads); BLAS threads are the caller's; allow_own as for
 * dt_net_new. CM_EINVAL for zero sizes, CM_ENOMEM. */
cm_status dt_bench_train(dt_model m, size_t batch, size_t steps,
                         size_t repeat, int allow_own, size_t threads,
                         dt_bench_result *r);

/* Flops of layer l for `batch` images in the forward ("fwd") and backward
 * pass: conv/fc 2 MACs forward, 4 MACs backward (2 when the input gradient
 * is not needed, first layer). */
double dt_bench_layer_flops(const dt_layer *l, size_t batch, int backward,
                            int first);

#endif
