/* check_run_single.c: the distributed run (dt_dpsgd) on one rank without
 * mpirun, through train/distributed/dt_comm_single.c: D-PSGD, D^2, GT and
 * QGM on the cube Q3 with Laplacian weights (mpi_check_algo.c's setting,
 * through mpi_run.h's small run). What mpi_check_algo.c asserts of the MPI
 * runs holds here: each algorithm learns (accuracy > 0.7) on its own
 * trajectory (four different hashes), d2's automatic mixing weight is
 * 1.25/1.5, d2 with c = 1 and gt with all-reduce are refused before
 * training, and a run checkpointed, stopped after epoch 1 and resumed
 * equals the uninterrupted one (so the algorithms' state is in the
 * checkpoint). Besides: two runs give the same bits, one rank sends no
 * gossip bytes, and the dynamic gossip of epidemic runs re-plans to the
 * static rounds' results (dt_gossip_retopo). The bits of these runs equal the MPI runs' on 1, 3 and
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
#include "dt_gossip.h"
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

/* ring (or path, when path != 0) of n nodes with MH weights */
static void ring_topo(cm_topo *t, size_t n, int path)
{
    size_t ei[16], ej[16], m = 0;
    for (size_t i = 0; i + (path ? 1 : 0) < n; i++) {
        size_t j = (i + 1) % n;
        ei[m] = i < j ? i : j;
        ej[m++] = i < j ? j : i;
    }
    cm_topo_init(t);
    ck_assert_int_eq(cm_topo_from_edges(t, n, m, ei, ej), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(t, CM_WEIGHTS_MH), CM_OK);
}

/* one gossip round of x (n arrays of len) on g into out */
static void round_on(dt_gossip *g, float *x, float *out, size_t n,
                     size_t len)
{
    float *xp[8], *op[8];
    for (size_t i = 0; i < n; i++)
        xp[i] = x + i * len, op[i] = out + i * len;
    ck_assert_int_eq(dt_gossip_round(g, xp, op), CM_OK);
}

START_TEST(dynamic_gossip_on_one_rank)
{
    enum { N = 6, LEN = 3 };
    cm_topo ring, path;
    ring_topo(&ring, N, 0);
    ring_topo(&path, N, 1);
    size_t owner[N] = {0};
    float x[N * LEN], a[N * LEN], b[N * LEN];
    for (size_t k = 0; k < N * LEN; k++)
        x[k] = (float)(k * 7 % 11) - 3.0f;
    dt_gossip *st = NULL, *dy = NULL, *sp = NULL;
    const dt_comm *w = dt_comm_world();
    ck_assert_int_eq(dt_gossip_new_placed(w, &ring, owner, LEN, &st), CM_OK);
    ck_assert_int_eq(dt_gossip_new_dynamic(w, &ring, owner, LEN, &dy), CM_OK);
    ck_assert_int_eq(dt_gossip_new_placed(w, &path, owner, LEN, &sp), CM_OK);
    round_on(st, x, a, N, LEN); /* the dynamic plan's first round is t's */
    round_on(dy, x, b, N, LEN);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    ck_assert_int_eq(dt_gossip_retopo(dy, &path), CM_OK);
    round_on(sp, x, a, N, LEN); /* re-planned: the path's round */
    round_on(dy, x, b, N, LEN);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    /* a static plan cannot change, nor may the node count */
    ck_assert_int_eq(dt_gossip_retopo(st, &path), CM_EINVAL);
    cm_topo small;
    ring_topo(&small, 4, 0);
    ck_assert_int_eq(dt_gossip_retopo(dy, &small), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "4-node topology for 6"));
    dt_gossip_free(st);
    dt_gossip_free(dy);
    dt_gossip_free(sp);
    cm_topo_destroy(&small);
    cm_topo_destroy(&path);
    cm_topo_destroy(&ring);
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
    tcase_add_test(tc, dynamic_gossip_on_one_rank);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}
