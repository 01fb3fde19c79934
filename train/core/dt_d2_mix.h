/* dt_d2_mix: the mixing matrix of D^2 / exact diffusion (--algorithm d2),
 * chosen before training.
 *
 * D^2 needs lambda_min(M) > -1/3 for the matrix M it mixes with. With
 * M = (1 - c) I + c W, lambda(M) = 1 - c (1 - lambda(W)): --d2-mixing C
 * sets c, auto (C = 0) takes the largest c <= 1 with lambda_min(M) >=
 * -1/4 (a margin inside -1/3). A C whose M reaches -1/3 is refused. The
 * cost is mixing speed, reported as SLEM(M).
 *
 * D^2 is defined for one fixed W, and a time-varying sequence is refused:
 * its recursion x_{t+1} = M_t (2 x_t - x_{t-1} - lr (v_t - v_{t-1})) is
 * derived (and its bias correction proved) for one fixed M, and with
 * changing rounds even its gradient-free part amplifies disagreement: the
 * spectral radius of the period's transfer matrix, the product of the
 * [[2M_t, -M_t], [I, 0]] on the complement of the mean, is 2 on the
 * one-peer exponential sequence of 8 nodes with M_t = W_t, and 5 on 64
 * nodes (1.87 with (I + W_t)/2; below 1 only from c = 1/4, where
 * disagreement shrinks by 2.4% per step while the sequence itself
 * averages exactly every 6 steps). Those radii come from a one-off dense
 * computation (LAPACK dgeev on the 2n x 2n product), not from this code;
 * tests/unit/check_algo.c shows the growth.
 *
 * No MPI: dt_dpsgd.c runs this on rank 0 and broadcasts the result.
 */
#ifndef DT_D2_MIX_H
#define DT_D2_MIX_H

#include "cm_status.h"
#include "cm_topo_seq.h"

typedef struct {
    double c;      /* weight of W in M = (1 - c) I + c W, in (0, 1] */
    double slem;   /* SLEM(M) */
    double lmin;   /* lambda_min(W) */
} dt_d2_mix;

/* Chooses c for the weighted topology seq read from path (named in
 * messages): c_flag in (0, 1] as given, or 0 for auto (above), and fills
 * *out. n = 1: c as chosen, slem 0. A sequence (period > 1): CM_EINVAL
 * naming path and its period, saying why, and suggesting --algorithm gt
 * or qgm. A c with lambda_min(M) <= -1/3: CM_EINVAL (a flag problem)
 * naming path, lambda_min(M), C and lambda_min(W), and suggesting
 * --d2-mixing auto or half. A spectrum that cannot be computed (above
 * CM_MIXING_DENSE_MAX nodes, or the eigensolver fails): CM_ETOPO or
 * CM_ENUMERIC, prefixed "--topology" (a file problem). Cost: O(n^3)
 * (a dense spectrum). */
cm_status dt_d2_mix_choose(const cm_topo_seq *seq, const char *path,
                           double c_flag, dt_d2_mix *out);

#endif
