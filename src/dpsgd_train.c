/* dpsgd_train.c: main() of dpsgd-train. Parses the flags into a dt_config,
 * runs the trainer and reports. Without --topology and without mpirun it is
 * a single worker (dt_train_single). Only this file prints or exits.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cm_status.h"
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
