/* dpsgd_train.c: main() of dpsgd-train. Parses the flags into a dt_config,
 * runs the trainer and reports. Without --topology and without mpirun it is
 * a single worker (dt_train_single). Only this file prints or exits.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cblas.h>

#include "cm_status.h"
#include "dt_bench.h"
#include "dt_config.h"
#include "dt_train.h"

static void print_epoch(void *ctx, const dt_epoch_stats *e)
{
    (void)ctx;
    printf("epoch %zu/%zu  loss %.4f  test_acc %.4f  test_loss %.4f  "
           "lr %.4g  %.0f img/s  %.1f s\n",
           e->epoch, e->epochs, e->train_loss, e->test_acc, e->test_loss,
           e->lr, e->images_per_s, e->wall_s);
    fflush(stdout);
}

/* --bench: one summary line, then one line per conv/fc layer. */
static int run_bench(const dt_config *cfg)
{
    static const char *kinds[] = {"conv", "pool", "fc", "relu"};
    dt_bench_result r;
    openblas_set_num_threads(cfg->threads);
    if (dt_bench_train(cfg->model, cfg->batch, cfg->bench_steps,
                       cfg->bench_repeat, &r) != CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return 1;
    }
    printf("bench %s batch %zu: %.1f images/s  %.3f ms/step  %.2f GFLOP/s  "
           "(sgemm 512^3: %.2f GFLOP/s)\n", dt_model_name(r.model), r.batch,
           r.images_per_s, 1e3 * r.step_s,
           r.flops_per_image * r.images_per_s * 1e-9, r.sgemm_gflops);
    for (size_t i = 0; i < r.n_layers; i++) {
        const dt_layer *l = &r.layers[i];
        double ff = dt_bench_layer_flops(l, r.batch, 0, i == 0);
        double fb = dt_bench_layer_flops(l, r.batch, 1, i == 0);
        printf("layer %2zu %-4s %3zux%2zux%2zu -> %3zux%2zux%2zu  fwd %7.3f ms "
               "%6.2f GFLOP/s  bwd %7.3f ms %6.2f GFLOP/s\n", i,
               kinds[l->kind], l->c, l->h, l->w, l->oc, l->oh, l->ow,
               1e3 * r.fwd_s[i], ff > 0 ? ff / r.fwd_s[i] * 1e-9 : 0.0,
               1e3 * r.bwd_s[i], fb > 0 ? fb / r.bwd_s[i] * 1e-9 : 0.0);
    }
    printf("update %.3f ms\n", 1e3 * r.update_s);
    return 0;
}

int main(int argc, char **argv)
{
    dt_config cfg;
    dt_config_default(&cfg);
    if (dt_config_parse(&cfg, argc, argv) != CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return 2;
    }
    if (cfg.help) {
        fputs(dt_config_usage(), stdout);
        return 0;
    }
    if (cfg.bench)
        return run_bench(&cfg);
    dt_train_result res;
    if (dt_train_single(&cfg, cfg.quiet ? NULL : print_epoch, NULL, &res) !=
        CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return 1;
    }
    printf("final: model %s  dataset %s  epochs %zu  test_acc %.4f  "
           "test_loss %.4f  %.0f img/s  params %zu  hash %016llx\n",
           dt_model_name(cfg.model), dt_dataset_name(cfg.dataset), cfg.epochs,
           res.test_acc, res.test_loss, res.images_per_s, res.n_params,
           (unsigned long long)res.param_hash);
    return 0;
}
