/* dt_bench.c: wall-clock measurements (cm_time, monotonic) of training
 * steps, per-layer times from the network's profiling counters, and a
 * square sgemm as the machine's reference throughput. Best of several runs,
 * since the machine is shared: the minimum time is the least disturbed. */
#include "dt_bench.h"

#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "cm_rng.h"
#include "cm_time.h"
#include "dt_optim.h"

/* The benchmark network's outputs: a ten-class, 1x28x28 problem. */
#define DT_BENCH_CLASSES 10

double dt_bench_layer_flops(const dt_layer *l, size_t batch, int backward,
                            int first)
{
    double macs = dt_layer_macs(l) * (double)batch;
    if (!backward)
        return 2.0 * macs;
    return (first ? 2.0 : 4.0) * macs;
}

static double sgemm_gflops(void)
{
    const size_t n = 512;
    float *a = malloc(3 * n * n * sizeof *a);
    if (!a)
        return 0.0;
    for (size_t i = 0; i < 3 * n * n; i++)
        a[i] = (float)(i % 7) * 0.125f;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = cm_time_now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n,
                    (int)n, 1.0f, a, (int)n, a + n * n, (int)n, 0.0f,
                    a + 2 * n * n, (int)n);
        double dt = cm_time_now() - t0;
        best = dt < best ? dt : best;
    }
    free(a);
    return 2.0 * (double)n * (double)n * (double)n / best * 1e-9;
}

cm_status dt_bench_train(dt_model m, size_t batch, size_t steps,
                         size_t repeat, int allow_own, size_t threads,
                         dt_bench_result *r)
{
    enum { SETS = 8 };
    dt_net *net = NULL;
    float *x = NULL, *v = NULL;
    uint8_t *y = NULL;
    memset(r, 0, sizeof *r);
    if (!batch || !steps || !repeat)
        return cm_error(CM_EINVAL, "bench needs positive batch, steps, repeat");
    cm_status s = dt_net_new(m, 1, 28, 28, DT_BENCH_CLASSES, batch,
                             allow_own, &net);
    if (s != CM_OK || (s = dt_net_set_threads(net, threads)) != CM_OK) {
        dt_net_free(net);
        return s;
    }
    const size_t img = 28 * 28, np = net->n_params;
    x = malloc(SETS * batch * img * sizeof *x);
    y = malloc(SETS * batch);
    v = calloc(np, sizeof *v);
    if (!x || !y || !v) {
        s = cm_error(CM_ENOMEM, "out of memory for the benchmark");
        goto cleanup;
    }
    cm_rng rng;
    cm_rng_seed(&rng, 1, 0);
    for (size_t i = 0; i < SETS * batch * img; i++)
        x[i] = (float)cm_rng_normal(&rng);
    for (size_t i = 0; i < SETS * batch; i++)
        y[i] = (uint8_t)cm_rng_below(&rng, DT_BENCH_CLASSES);
    dt_net_init(net, net->params, &rng);
    double best = 1e30, best_cpu = 1e30, upd = 0.0;
    size_t warm = steps / 10 + 2;
    for (size_t rep = 0; rep <= repeat + 1; rep++) {
        /* rep 0: warm-up; 1..repeat: timed; repeat+1: profiled */
        size_t n = rep == 0 ? warm : steps;
        net->profile = rep == repeat + 1;
        double t0 = cm_time_now(), c0 = cm_time_cpu();
        for (size_t k = 0; k < n; k++) {
            size_t set = k % SETS;
            double loss;
            s = dt_net_grad(net, net->params, net->grads,
                            x + set * batch * img, y + set * batch, batch,
                            &loss);
            if (s != CM_OK)
                goto cleanup;
            double tu = net->profile ? cm_time_now() : 0.0;
            dt_sgd_velocity(v, net->grads, net->params, np, 0.9f, 5e-4f);
            dt_sgd_apply(net->params, v, np, 1e-3f);
            if (net->profile)
                upd += cm_time_now() - tu;
        }
        double dt = cm_time_now() - t0, dc = cm_time_cpu() - c0;
        if (rep >= 1 && rep <= repeat && dt < best)
            best = dt;
        if (rep >= 1 && rep <= repeat && dc < best_cpu)
            best_cpu = dc;
        if (rep == repeat + 1)
            r->prof_step_s = dt / (double)steps;
    }
    r->model = m;
    r->batch = batch;
    r->threads = net->threads;
    r->steps = steps;
    r->step_s = best / (double)steps;
    r->images_per_s = (double)(batch * steps) / best;
    r->cpu_images_per_s = (double)(batch * steps) / best_cpu;
    r->n_layers = net->n_layers;
    for (size_t i = 0; i < net->n_layers; i++) {
        r->layers[i] = net->layers[i];
        r->fwd_s[i] = net->t_fwd[i] / (double)steps;
        r->bwd_s[i] = net->t_bwd[i] / (double)steps;
        r->flops_per_image += dt_bench_layer_flops(&net->layers[i], 1, 0, 0) +
                              dt_bench_layer_flops(&net->layers[i], 1, 1,
                                                   i == 0);
    }
    r->update_s = upd / (double)steps;
    r->sgemm_gflops = sgemm_gflops();
cleanup:
    free(v);
    free(y);
    free(x);
    dt_net_free(net);
    return s;
}
