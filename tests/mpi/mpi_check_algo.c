/* mpi_check_algo.c: dpsgd-train --algorithm d2|gt|qgm under mpirun -np 4
 * on the synthetic data set and the cube Q3 with Laplacian weights
 * (lambda_min(W) = -1/2, so d2 has to mix with (1 - c) I + c W): every
 * algorithm's trajectory is bit-identical for P = 1, 3 and 4 ranks (3
 * splits the 8 workers unevenly) and differs from D-PSGD's; it learns; a
 * run checkpointed on 3 ranks and resumed on 4 equals an uninterrupted
 * one (the algorithms' extra state is in the checkpoint); gradient
 * tracking sends exactly twice D-PSGD's bytes per step, the others the
 * same; bad combinations are refused on every rank before training.
 * The same holds for gt and qgm on a time-varying topology (the one-peer
 * exponential sequence on 8 workers, period 3, resumed mid-period); d2
 * refuses it on every rank before training (dt_d2_mix.h says why).
 *
 * As in mpi_check_dpsgd.c, every assertion uses values every rank holds
 * (broadcast from rank 0), so a failure cannot leave ranks waiting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_topo.h"
#include "dt_comm.h"
#include "dt_config.h"
#include "dt_dpsgd.h"
#include "mpi_run.h"

static void cube_file(char *path, size_t n)
{
    mpi_cube_file(path, n, "/tmp/mpi_check_algo_");
}

/* The one-peer exponential sequence on 8 nodes: round t pairs i with
 * i XOR 2^t, weight 1/2 (the format of docs/topo/time-varying.md), written by rank 0
 * at a path named by rank 0's pid. */
static void one_peer_file(char *path, size_t n, int pid)
{
    snprintf(path, n, "/tmp/mpi_check_algo_seq_%d.txt", pid);
    FILE *f = NULL;
    if (dt_comm_rank(dt_comm_world()) == 0) {
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "# one-peer exponential, n=8 period=3\n");
        for (size_t t = 0; t < 3; t++) {
            fprintf(f, "# round %zu n=8\n", t);
            for (size_t i = 0; i < 8; i++)
                if (i < (i ^ ((size_t)1 << t)))
                    fprintf(f, "%zu %zu 0.5\n", i, i ^ ((size_t)1 << t));
        }
        ck_assert_int_eq(fclose(f), 0);
    }
    int ok = 1;
    ck_assert_int_eq(dt_comm_bcast(dt_comm_world(), &ok, sizeof ok, 0),
                     CM_OK); /* written before anyone reads it */
}

/* mpi_run.h's small run (which honours DPSGD_NO_AVX512) with algorithm a
 * and no evaluation of the local models. */
static void small_config(dt_config *cfg, const char *topo, dt_algo_kind a)
{
    mpi_small_config(cfg, topo);
    cfg->local_eval = 0;
    cfg->algorithm = a;
}

/* cfg on 1, 3 and 4 ranks (3 splits the 8 workers unevenly): the same
 * bits and accuracy each time, another trajectory than D-PSGD's (dp).
 * Returns the run on 4 ranks. */
static mpi_outcome same_bits_on_1_3_4(const dt_config *cfg, mpi_outcome dp)
{
    mpi_outcome o1 = mpi_run_on(1, cfg), o3 = mpi_run_on(3, cfg),
                o4 = mpi_run_on(4, cfg);
    ck_assert_int_eq(o1.s, CM_OK);
    ck_assert_int_eq(o3.s, CM_OK);
    ck_assert_int_eq(o4.s, CM_OK);
    ck_assert_uint_eq(o1.hash, o3.hash);
    ck_assert_uint_eq(o1.hash, o4.hash);
    ck_assert_double_eq(o1.acc, o4.acc);
    ck_assert_uint_ne(o1.hash, dp.hash); /* another trajectory */
    return o4;
}

static const dt_algo_kind ALGOS[] = {DT_ALGO_D2, DT_ALGO_GT, DT_ALGO_QGM};

START_TEST(test_same_bits_for_every_P)
{
    char path[64];
    dt_config cfg;
    cube_file(path, sizeof path);
    small_config(&cfg, path, DT_ALGO_DPSGD);
    mpi_outcome dp = mpi_run_on(4, &cfg);
    ck_assert_int_eq(dp.s, CM_OK);
    ck_assert_double_gt(dp.bytes, 0.0);
    for (size_t k = 0; k < sizeof ALGOS / sizeof ALGOS[0]; k++) {
        small_config(&cfg, path, ALGOS[k]);
        mpi_outcome o4 = same_bits_on_1_3_4(&cfg, dp);
        ck_assert_msg(o4.acc > 0.7, "%s learned only %g",
                      dt_algo_name(ALGOS[k]), o4.acc);
        /* bytes per step on 4 ranks: gt gossips x and its tracker y */
        ck_assert_double_eq(o4.bytes,
                            (double)dt_algo_gossip_factor(ALGOS[k]) *
                                dp.bytes);
    }
    unlink(path);
}
END_TEST

START_TEST(test_resume_equals_uninterrupted)
{
    char path[64], dir[64];
    dt_config cfg;
    cube_file(path, sizeof path);
    int pid = (int)getpid();
    ck_assert_int_eq(dt_comm_bcast(dt_comm_world(), &pid, sizeof pid, 0),
                     CM_OK);
    for (size_t k = 0; k < sizeof ALGOS / sizeof ALGOS[0]; k++) {
        small_config(&cfg, path, ALGOS[k]);
        mpi_outcome full = mpi_run_on(4, &cfg);
        ck_assert_int_eq(full.s, CM_OK);
        snprintf(dir, sizeof dir, "/tmp/mpi_check_algo_ckpt_%d_%zu", pid, k);
        mpi_resume_matches(&cfg, dir, 3, 4, full);
        /* another algorithm cannot resume it */
        cfg.algorithm = ALGOS[(k + 1) % 3];
        ck_assert_int_eq(mpi_run_on(4, &cfg).s, CM_EINVAL);
        ck_assert_ptr_nonnull(strstr(cm_last_error(), "other settings"));
        mpi_remove_dir(dir);
    }
    unlink(path);
}
END_TEST

/* gt and qgm on the sequence: the same bits for P = 1, 3 and 4, not
 * D-PSGD's, it learns, gt sends twice D-PSGD's bytes per step (the period's
 * mean over the rounds' edges), and a run stopped after epoch 1 (step 16,
 * round 16 mod 3 = 1 next) on 3 ranks and resumed on 4 equals the
 * uninterrupted one. d2 is refused with the same message on every rank. */
START_TEST(test_sequence_algorithms)
{
    char path[64], dir[96];
    dt_config cfg;
    int pid = (int)getpid();
    ck_assert_int_eq(dt_comm_bcast(dt_comm_world(), &pid, sizeof pid, 0),
                     CM_OK);
    one_peer_file(path, sizeof path, pid);
    small_config(&cfg, path, DT_ALGO_DPSGD);
    cfg.epochs = 3;
    mpi_outcome dp = mpi_run_on(4, &cfg);
    ck_assert_int_eq(dp.s, CM_OK);
    ck_assert_double_gt(dp.bytes, 0.0);
    const dt_algo_kind seq_algos[] = {DT_ALGO_GT, DT_ALGO_QGM};
    for (size_t k = 0; k < 2; k++) {
        small_config(&cfg, path, seq_algos[k]);
        cfg.epochs = 3;
        mpi_outcome o4 = same_bits_on_1_3_4(&cfg, dp);
        /* it learns (chance is 0.1; gt's tracker needs a few epochs) */
        ck_assert_msg(o4.acc > 0.5, "%s on a sequence learned only %g",
                      dt_algo_name(seq_algos[k]), o4.acc);
        /* the period's mean of the rounds' bytes, rounded to a byte */
        ck_assert_double_eq_tol(o4.bytes,
                                (double)dt_algo_gossip_factor(seq_algos[k]) *
                                    dp.bytes, 1.5);
        snprintf(dir, sizeof dir, "/tmp/mpi_check_algo_seqck_%d_%zu", pid,
                 k);
        mpi_resume_matches(&cfg, dir, 3, 4, o4);
        mpi_remove_dir(dir);
    }
    small_config(&cfg, path, DT_ALGO_D2);
    ck_assert_int_eq(mpi_run_on(4, &cfg).s, CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "time-varying (period 3)"));
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "/tmp/mpi_check_algo_seq_"));
    double len = (double)strlen(cm_last_error()), sum = len;
    ck_assert_int_eq(dt_comm_allreduce_sum_double(dt_comm_world(), &sum, 1),
                     CM_OK);
    ck_assert_double_eq(sum, len * (double)dt_comm_size(dt_comm_world()));
    if (dt_comm_rank(dt_comm_world()) == 0)
        unlink(path);
}
END_TEST

START_TEST(test_rejections_on_all_ranks)
{
    char path[64];
    dt_config cfg;
    cube_file(path, sizeof path);
    /* D^2 on W itself: lambda_min(W) = -1/2 */
    small_config(&cfg, path, DT_ALGO_D2);
    cfg.d2_mix = 1.0;
    ck_assert_int_eq(mpi_run_on(4, &cfg).s, CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "above -1/3"));
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "/tmp/mpi_check_algo_"));
    double len = (double)strlen(cm_last_error()), sum = len;
    ck_assert_int_eq(dt_comm_allreduce_sum_double(dt_comm_world(), &sum, 1),
                     CM_OK);
    ck_assert_double_eq(sum, len * (double)dt_comm_size(dt_comm_world()));
    /* auto: the largest c with lambda_min(M) = 1 - 1.5 c >= -1/4 */
    cfg.d2_mix = 0.0;
    cfg.epochs = 1;
    mpi_outcome o = mpi_run_on(2, &cfg);
    ck_assert_int_eq(o.s, CM_OK);
    ck_assert_double_eq_tol(o.mix_c, 1.25 / 1.5, 1e-12);
    /* an algorithm with all-reduce */
    small_config(&cfg, "", DT_ALGO_GT);
    cfg.mode = DT_MODE_ALLREDUCE;
    ck_assert_int_eq(mpi_run_on(4, &cfg).s, CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "--algorithm gt"));
    unlink(path);
}
END_TEST

Suite *algo_mpi_suite(void)
{
    Suite *s = suite_create("algo_mpi");
    TCase *tc = tcase_create("algorithms");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_same_bits_for_every_P);
    tcase_add_test(tc, test_resume_equals_uninterrupted);
    tcase_add_test(tc, test_rejections_on_all_ranks);
    tcase_add_test(tc, test_sequence_algorithms);
    suite_add_tcase(s, tc);
    return s;
}
