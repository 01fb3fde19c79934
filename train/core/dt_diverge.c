/* dt_diverge.c: the divergence and chance rules of dt_diverge.h.
 *
 * Trade-off: fixed, scale-free thresholds (a multiple of the uniform
 * guess's loss, the model's own norm) rather than flags: loose enough
 * that no training run of the project's experiments trips them, tight
 * enough to stop the runs that reported numbers after blowing up
 * (figures in dt_diverge.h).
 */
#include "dt_diverge.h"

#include <math.h>

cm_status dt_diverge_check(double train_loss, double consensus,
                           double x0_sq, size_t classes, size_t epoch,
                           size_t step, double lr)
{
    const double ref = log(classes > 1 ? (double)classes : 2.0);
    if (isfinite(train_loss) && train_loss > DT_DIVERGE_LOSS * ref)
        return cm_error(CM_ENUMERIC, "training diverged at epoch %zu (step "
                        "%zu): the training loss %.4g exceeds %g x ln(%zu) = "
                        "%.4g (learning rate %g); lower --lr", epoch, step,
                        train_loss, DT_DIVERGE_LOSS, classes,
                        DT_DIVERGE_LOSS * ref, lr);
    if (isfinite(consensus) && x0_sq > 0.0 && consensus > DT_DIVERGE_CONSENSUS * x0_sq)
        return cm_error(CM_ENUMERIC, "training diverged at epoch %zu (step "
                        "%zu): the consensus distance %.4g exceeds %g x the "
                        "initial model's squared norm %.4g (the workers no "
                        "longer agree; learning rate %g); lower --lr or "
                        "communicate more often", epoch, step, consensus,
                        DT_DIVERGE_CONSENSUS, x0_sq, lr);
    return CM_OK;
}

int dt_at_chance(double acc, size_t classes)
{
    return classes > 0 && acc < DT_CHANCE_FACTOR / (double)classes;
}
