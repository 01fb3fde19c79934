/* mpi_check_local.c: communicating less (issue 31) under mpirun -np 4, on
 * the synthetic set and the cube Q3 (mpi_run.h's small run: 16 steps per
 * epoch, 2 epochs): with --average-every 3 every algorithm (dpsgd, d2 as
 * LED, gt as K-GT, qgm, with --global-every 2 and the outer Nesterov
 * step), local all-reduce included, gives the same bits on 1 and 4 ranks;
 * a run stopped after epoch 1 (step 16: in the middle of a period) on 3
 * ranks (8 workers split unevenly) and resumed on 4 equals the
 * uninterrupted one; the bytes:
 * --average-every 4 sends a quarter of H = 1's per step (D-PSGD, and
 * all-reduce's count), gt twice D-PSGD's, clique-avg the clique
 * gradients besides the model, an exact average counts one all-reduce of
 * the gossip array.
 *
 * As in mpi_check_algo.c, every assertion uses values every rank holds
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

static void small_config(dt_config *cfg, const char *topo, dt_algo_kind a)
{
    mpi_small_config(cfg, topo);
    cfg->local_eval = 0;
    cfg->algorithm = a;
}

/* k: 0..3 the algorithms with H = 3 (gt with --local-after 2, qgm with
 * --global-every 2 and nesterov), 4 local all-reduce with nesterov. */
static void setting(dt_config *cfg, const char *path, size_t k)
{
    static const dt_algo_kind A[] = {DT_ALGO_DPSGD, DT_ALGO_D2, DT_ALGO_GT,
                                     DT_ALGO_QGM, DT_ALGO_DPSGD};
    small_config(cfg, k == 4 ? "" : path, A[k]);
    cfg->average_every = 3;
    cfg->local_after = k == 2 ? 2 : 0;
    cfg->global_every = k == 3 ? 2 : 0;
    if (k >= 3)
        ck_assert_int_eq(dt_outer_parse("nesterov:0.5,0.9", &cfg->outer),
                         CM_OK);
    if (k == 4) {
        cfg->mode = DT_MODE_ALLREDUCE;
        cfg->workers = 8;
    }
}

START_TEST(test_same_bits_and_resume)
{
    char path[64], dir[96];
    dt_config cfg;
    mpi_cube_file(path, sizeof path, "/tmp/mpi_check_local_");
    int pid = (int)getpid();
    ck_assert_int_eq(dt_comm_bcast(dt_comm_world(), &pid, sizeof pid, 0),
                     CM_OK);
    for (size_t k = 0; k < 5; k++) {
        setting(&cfg, path, k);
        mpi_outcome o1 = mpi_run_on(1, &cfg), o4 = mpi_run_on(4, &cfg);
        ck_assert_msg(o1.s == CM_OK && o4.s == CM_OK, "setting %zu: %s", k,
                      cm_last_error());
        ck_assert_uint_eq(o1.hash, o4.hash);
        ck_assert_double_eq(o1.acc, o4.acc);
        /* gt learns slowly here (0.55 at H = 1 on this run, 0.27 at
         * H = 3: train/README.md); chance is 0.1 */
        ck_assert_msg(o4.acc > (k == 2 ? 0.2 : 0.6), "setting %zu learned "
                      "only %g", k, o4.acc);
        snprintf(dir, sizeof dir, "/tmp/mpi_check_local_ck_%d_%zu", pid, k);
        mpi_resume_matches(&cfg, dir, 3, 4, o4);
        mpi_remove_dir(dir);
    }
    unlink(path);
}
END_TEST

/* 8 nodes in two cliques {0, 2, 4, 6} and {1, 3, 5, 7} (every pair of one
 * clique joined) plus the edges 0-1 and 4-5, with the `# cliques:` line;
 * written by rank 0 (its pid names it). */
static void cliques_file(char *path, size_t n, int pid)
{
    snprintf(path, n, "/tmp/mpi_check_local_dc_%d.txt", pid);
    if (dt_comm_rank(dt_comm_world()) == 0) {
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "# cliques: 0 1 0 1 0 1 0 1\n");
        for (size_t i = 0; i < 8; i++)
            for (size_t j = i + 2; j < 8; j += 2)
                fprintf(f, "%zu %zu\n", i, j);
        fprintf(f, "0 1\n4 5\n");
        ck_assert_int_eq(fclose(f), 0);
    }
    int ok = 1;
    ck_assert_int_eq(dt_comm_bcast(dt_comm_world(), &ok, sizeof ok, 0),
                     CM_OK);
}

START_TEST(test_bytes)
{
    char path[64], dc[64];
    dt_config cfg;
    mpi_cube_file(path, sizeof path, "/tmp/mpi_check_local_");
    int pid = (int)getpid();
    ck_assert_int_eq(dt_comm_bcast(dt_comm_world(), &pid, sizeof pid, 0),
                     CM_OK);
    /* D-PSGD: 32 steps, 8 communications at H = 4: a quarter */
    small_config(&cfg, path, DT_ALGO_DPSGD);
    mpi_outcome h1 = mpi_run_on(2, &cfg);
    cfg.average_every = 4;
    mpi_outcome h4 = mpi_run_on(2, &cfg);
    ck_assert_int_eq(h1.s, CM_OK);
    ck_assert_int_eq(h4.s, CM_OK);
    ck_assert_double_gt(h1.bytes, 0.0);
    ck_assert_double_eq(h4.bytes, h1.bytes / 4.0);
    /* gt: two arrays (x and y) per communication */
    small_config(&cfg, path, DT_ALGO_GT);
    cfg.average_every = 4;
    mpi_outcome g4 = mpi_run_on(2, &cfg);
    ck_assert_int_eq(g4.s, CM_OK);
    ck_assert_double_eq(g4.bytes, 2.0 * h4.bytes);
    /* an exact average every 2nd communication: those rounds count one
     * all-reduce of the array (n_params floats) per rank instead */
    small_config(&cfg, path, DT_ALGO_DPSGD);
    cfg.average_every = 4;
    cfg.global_every = 2;
    mpi_outcome k2 = mpi_run_on(2, &cfg);
    ck_assert_int_eq(k2.s, CM_OK);
    ck_assert_double_eq(k2.bytes, h4.bytes / 2.0 +
                                      4.0 * k2.n_params / 8.0);
    /* all-reduce: the count of the array handed to the all-reduce, per
     * communication: a quarter at H = 4 */
    small_config(&cfg, "", DT_ALGO_DPSGD);
    cfg.mode = DT_MODE_ALLREDUCE;
    cfg.workers = 8;
    mpi_outcome a1 = mpi_run_on(2, &cfg);
    cfg.average_every = 4;
    mpi_outcome a4 = mpi_run_on(2, &cfg);
    ck_assert_int_eq(a1.s, CM_OK);
    ck_assert_int_eq(a4.s, CM_OK);
    ck_assert_double_eq(a1.bytes, 4.0 * a1.n_params);
    ck_assert_double_eq(a4.bytes, a1.bytes / 4.0);
    /* clique-avg: block placement on 2 ranks, {0..3} and {4..7}: each
     * rank sends 4 gradients of the clique round (2 per clique) besides
     * the model's gossip */
    cliques_file(dc, sizeof dc, pid);
    small_config(&cfg, dc, DT_ALGO_DPSGD);
    cfg.placement = CM_PLACE_BLOCK;
    mpi_outcome dp = mpi_run_on(2, &cfg);
    cfg.clique_avg = 1;
    mpi_outcome ca = mpi_run_on(2, &cfg);
    ck_assert_int_eq(dp.s, CM_OK);
    ck_assert_int_eq(ca.s, CM_OK);
    ck_assert_double_eq(ca.bytes, dp.bytes + 4.0 * 4.0 * ca.n_params);
    cfg.average_every = 2; /* both exchanges every 2nd step only */
    mpi_outcome ca2 = mpi_run_on(2, &cfg);
    ck_assert_int_eq(ca2.s, CM_OK);
    ck_assert_double_eq(ca2.bytes, ca.bytes / 2.0);
    if (dt_comm_rank(dt_comm_world()) == 0)
        unlink(dc);
    unlink(path);
}
END_TEST

Suite *mpi_local_suite(void)
{
    Suite *s = suite_create("mpi_local");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_same_bits_and_resume);
    tcase_add_test(tc, test_bytes);
    suite_add_tcase(s, tc);
    return s;
}
