/* dt_diverge: telling a run that blew up, or never learned, from one that
 * trains (issue 41). A NaN loss stops a run at the step it appears
 * (dt_check_finite); these rules catch the runs that explode without
 * one, at every evaluation:
 *   loss       the mean minibatch loss since the last evaluation above
 *              DT_DIVERGE_LOSS x ln(classes) (23 for 10 classes: a network
 *              that guesses uniformly scores ln(classes); a diverging one
 *              tens to thousands);
 *   consensus  mean_i ||x_i - xbar||^2 above DT_DIVERGE_CONSENSUS x
 *              ||x_0||^2, the initial model's squared norm (471 for
 *              LeNet, so 118): the workers no longer share a model. Of the
 *              495 runs' CSVs in data/, those that ended above 50% test
 *              accuracy peaked at 59.6; GT with H = 5 on Fashion-MNIST
 *              ended at 326 (9.8%, exit status 0), D-PSGD with H = 4 at
 *              lr 0.1 on a ring of 16 reached 926 by step 8 (9.96%). The
 *              average model's own norm is no scale: in such runs it
 *              grows too.
 * A run that ends at chance (test accuracy below DT_CHANCE_FACTOR /
 * classes) is not stopped, but its final line says so.
 * Stateless, so a resumed run applies the same rules. No MPI: the caller
 * passes values every rank agrees on.
 */
#ifndef DT_DIVERGE_H
#define DT_DIVERGE_H

#include <stddef.h>

#include "cm_status.h"

#define DT_DIVERGE_LOSS 10.0  /* x ln(classes) */
#define DT_DIVERGE_CONSENSUS 0.25 /* x ||x_0||^2 */
#define DT_CHANCE_FACTOR 1.5  /* x 1/classes */

/* CM_OK, or CM_ENUMERIC naming the rule, the values, the epoch, step and
 * learning rate ("training diverged at epoch E (step S): ..."), for a
 * train_loss (NaN: not measured, skipped), a consensus and ||x_0||^2
 * (x0_sq) at an evaluation of a run over `classes` classes. O(1). */
cm_status dt_diverge_check(double train_loss, double consensus,
                           double x0_sq, size_t classes, size_t epoch,
                           size_t step, double lr);

/* 1 when a test accuracy acc (in [0, 1]) over `classes` classes is below
 * DT_CHANCE_FACTOR / classes. */
int dt_at_chance(double acc, size_t classes);

#endif
