/* check_run_single.c: the distributed run (dt_dpsgd) on one rank without
 * mpirun, through train/distributed/dt_comm_single.c: D-PSGD, D^2, GT and
 * QGM on the cube Q3 with Laplacian weights (mpi_check_algo.c's setting,
 * through mpi_run.h's small run). What mpi_check_algo.c asserts of the MPI
 * runs holds here: each algorithm learns (accuracy > 0.7) on its own
 * trajectory (four different hashes), d2's automatic mixing weight is
 * 1.25/1.5, d2 with c = 1 and gt with all-reduce are refused before
 * training, and a run checkpointed, stopped after epoch 1 and resumed
 * equals the uninterrupted one (so the algorithms' state is in the
 * checkpoint). Besides: two runs give the same bits, and one rank sends
 * no gossip bytes. The bits of these runs equal the MPI runs' on 1, 3 and
 * 4 ranks (checked by hand, see train/README.md); mpi_check_algo.c
 * asserts those are equal among themselves. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_blas.h"

#include "cm_topo.h"
#include "dt_comm.h"
#include "dt_config.h"
#include "dt_dpsgd.h"
#include "mpi_run.h"

static void cube_file(char *path, size_t n)
{
    mpi_cube_file(path, n, "/tmp/check_run_single_");
}

static void small_config(dt_config *cfg, const char *topo, dt_algo_kind a)
{
    mpi_small_config(cfg, topo);
    cfg->local_eval = 0;
    cfg->algorithm = a;
}

static const dt_algo_kind ALGOS[] = {DT_ALGO_DPSGD, DT_ALGO_D2, DT_ALGO_GT,
                                     DT_ALGO_QGM};
#define N_ALGOS (sizeof ALGOS / sizeof ALGOS[0])

START_TEST(algorithms_learn_on_their_own_trajectories)
{
    char path[64];
    dt_config cfg;
    cube_file(path, sizeof path);
    mpi_outcome o[N_ALGOS];
    for (size_t k = 0; k < N_ALGOS; k++) {
        small_config(&cfg, path, ALGOS[k]);
        o[k] = mpi_run_on(1, &cfg);
        ck_assert_msg(o[k].s == CM_OK, "%s: %s", dt_algo_name(ALGOS[k]),
                      cm_last_error());
        ck_assert_msg(o[k].acc > 0.7, "%s learned only %g",
                      dt_algo_name(ALGOS[k]), o[k].acc);
        ck_assert_double_eq(o[k].bytes, 0.0); /* one rank sends nothing */
        for (size_t j = 0; j < k; j++)
            ck_assert_uint_ne(o[k].hash, o[j].hash);
    }
    /* the same bits again */
    small_config(&cfg, path, DT_ALGO_GT);
    mpi_outcome again = mpi_run_on(1, &cfg);
    ck_assert_uint_eq(again.hash, o[2].hash);
    ck_assert_double_eq(again.acc, o[2].acc);
    unlink(path);
}
END_TEST

START_TEST(resume_equals_uninterrupted)
{
    char path[64], dir[64];
    dt_config cfg;
    cube_file(path, sizeof path);
    for (size_t k = 0; k < N_ALGOS; k++) {
        small_config(&cfg, path, ALGOS[k]);
        mpi_outcome full = mpi_run_on(1, &cfg);
        ck_assert_int_eq(full.s, CM_OK);
        snprintf(dir, sizeof dir, "/tmp/check_run_single_ck_%d_%zu",
                 (int)getpid(), k);
        mpi_resume_matches(&cfg, dir, 1, 1, full);
        /* another algorithm cannot resume it */
        cfg.algorithm = ALGOS[(k + 1) % N_ALGOS];
        ck_assert_int_eq(mpi_run_on(1, &cfg).s, CM_EINVAL);
        ck_assert_ptr_nonnull(strstr(cm_last_error(), "other settings"));
        mpi_remove_dir(dir);
    }
    unlink(path);
}
END_TEST

START_TEST(rejections_and_d2_mixing)
{
    char path[64];
    dt_config cfg;
    cube_file(path, sizeof path);
    small_config(&cfg, path, DT_ALGO_D2);
    cfg.d2_mix = 1.0; /* D^2 on W itself: lambda_min(W) = -1/2 */
    ck_assert_int_eq(mpi_run_on(1, &cfg).s, CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "above -1/3"));
    cfg.d2_mix = 0.0; /* auto: lambda_min(M) = 1 - 1.5 c >= -1/4 */
    cfg.epochs = 1;
    mpi_outcome o = mpi_run_on(1, &cfg);
    ck_assert_int_eq(o.s, CM_OK);
    ck_assert_double_eq_tol(o.mix_c, 1.25 / 1.5, 1e-12);
    small_config(&cfg, "", DT_ALGO_GT);
    cfg.mode = DT_MODE_ALLREDUCE;
    ck_assert_int_eq(mpi_run_on(1, &cfg).s, CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "--algorithm gt"));
    unlink(path);
}
END_TEST

Suite *run_single_suite(void)
{
    Suite *s = suite_create("run_single");
    TCase *tc = tcase_create("one_rank");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, algorithms_learn_on_their_own_trajectories);
    tcase_add_test(tc, resume_equals_uninterrupted);
    tcase_add_test(tc, rejections_and_d2_mixing);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}
