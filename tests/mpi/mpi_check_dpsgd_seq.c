/* mpi_check_dpsgd_seq.c: D-PSGD over a time-varying topology (a
 * cm_topo_seq file) under mpirun -np 4 on the synthetic data set: the
 * trajectory is bit-identical for P = 1, 2 and 4 ranks; a sequence whose
 * rounds are all the same W gives exactly the static run; a run stopped
 * in the middle of a period and resumed on another P equals an
 * uninterrupted one; the bytes per step follow the rounds (one-peer
 * rounds inside a rank send nothing). Assertions are made on every rank
 * with broadcast values (CK_FORK=no), as in mpi_check_dpsgd.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_env.h"
#include "cm_mixing.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "dt_comm.h"
#include "dt_config.h"
#include "dt_dpsgd.h"
#include "mpi_run.h"

/* Weights W = I - alpha L on the edges of t (alpha for every edge). */
static void set_alpha(cm_topo *t, double alpha)
{
    t->ew = malloc((t->m + 1) * sizeof *t->ew);
    t->self = malloc((t->n + 1) * sizeof *t->self);
    t->adj_w = malloc((2 * t->m + 1) * sizeof *t->adj_w);
    ck_assert(t->ew && t->self && t->adj_w);
    for (size_t k = 0; k < t->m; k++)
        t->ew[k] = alpha;
    for (size_t i = 0; i < t->n; i++) {
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            t->adj_w[p] = alpha;
        t->self[i] = 1.0 - alpha * (double)cm_topo_degree(t, i);
    }
}

/* Writes an 8-node sequence to a per-rank file: kind 0 the one-peer
 * exponential rounds i ~ i XOR 2^k (k = 0, 1, 2; weights 1/2), kind 1 the
 * cube Q3 with Laplacian weights repeated `period` times (kind 2: the cube
 * as a plain static file). */
static void seq_file(char *path, size_t len, int kind, size_t period)
{
    snprintf(path, len, "/tmp/mpi_check_seq_%d_%d.txt", (int)getpid(), kind);
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_int_eq(cm_topo_seq_alloc(&s, kind == 0 ? 3 : period, 8),
                     CM_OK);
    for (size_t r = 0; r < s.period; r++) {
        size_t ei[12], ej[12], m = 0;
        for (size_t i = 0; i < 8; i++)
            for (size_t b = 1; b < 8; b <<= 1)
                if ((kind != 0 || b == (size_t)1 << r) && i < (i ^ b))
                    ei[m] = i, ej[m++] = i ^ b;
        ck_assert_int_eq(cm_topo_from_edges(&s.round[r], 8, m, ei, ej),
                         CM_OK);
        if (kind == 0)
            set_alpha(&s.round[r], 0.5);
        else
            ck_assert_int_eq(cm_topo_set_weights(&s.round[r],
                                                 CM_WEIGHTS_LAPLACIAN),
                             CM_OK);
    }
    ck_assert_int_eq(cm_topo_seq_save(&s, path, "mpi_check_seq"), CM_OK);
    cm_topo_seq_destroy(&s);
}

START_TEST(test_seq_same_trajectory_for_every_P)
{
    char path[64];
    dt_config cfg;
    seq_file(path, sizeof path, 0, 3);
    mpi_small_config(&cfg, path);
    mpi_outcome o[3];
    size_t Ps[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        o[k] = mpi_run_on(Ps[k], &cfg);
        ck_assert_int_eq(o[k].s, CM_OK);
        ck_assert_int_eq((int)o[k].period, 3);
    }
    ck_assert_uint_eq(o[0].hash, o[1].hash);
    ck_assert_uint_eq(o[0].hash, o[2].hash);
    ck_assert_double_eq(o[0].acc, o[2].acc);
    ck_assert_double_gt(o[0].acc, 0.5); /* it learns (chance is 0.1) */
    /* bytes per step follow the rounds: on 2 ranks (workers 0-3, 4-7)
     * rounds 0 and 1 stay inside a rank, round 2 sends 4 arrays each way */
    ck_assert_double_eq(o[1].bytes,
                        (double)llround(4.0 * o[1].n_params * 4.0 / 3.0));
    ck_assert_double_eq(o[0].bytes, 0.0);
    unlink(path);
}
END_TEST

START_TEST(test_seq_of_one_graph_is_the_static_run)
{
    char seq[64], stat[64];
    dt_config cfg;
    seq_file(seq, sizeof seq, 1, 3);
    mpi_small_config(&cfg, seq);
    mpi_outcome a = mpi_run_on(2, &cfg);
    ck_assert_int_eq(a.s, CM_OK);
    /* the same cube as a one-round (today's format) file */
    seq_file(stat, sizeof stat, 2, 1);
    snprintf(cfg.topology, sizeof cfg.topology, "%s", stat);
    mpi_outcome b = mpi_run_on(4, &cfg);
    ck_assert_int_eq(b.s, CM_OK);
    ck_assert_int_eq((int)b.period, 1);
    ck_assert_uint_eq(a.hash, b.hash);
    unlink(seq);
    unlink(stat);
}
END_TEST

START_TEST(test_seq_resume_equals_uninterrupted)
{
    char path[64], dir[64];
    dt_config cfg;
    seq_file(path, sizeof path, 0, 3);
    mpi_small_config(&cfg, path);
    cfg.epochs = 3; /* 16 steps per epoch: epochs end mid-period */
    mpi_outcome full = mpi_run_on(4, &cfg);
    ck_assert_int_eq(full.s, CM_OK);
    int pid = (int)getpid();
    ck_assert_int_eq(dt_comm_bcast(dt_comm_world(), &pid, sizeof pid, 0),
                     CM_OK);
    snprintf(dir, sizeof dir, "/tmp/mpi_check_seq_ckpt_%d", pid);
    mpi_resume_matches(&cfg, dir, 2, 4, full);
    /* resuming with another sequence (the cube rounds) is refused */
    char other[64];
    seq_file(other, sizeof other, 1, 3);
    snprintf(cfg.topology, sizeof cfg.topology, "%s", other);
    ck_assert_int_eq(mpi_run_on(4, &cfg).s, CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "other settings"));
    mpi_remove_dir(dir);
    unlink(path);
    unlink(other);
}
END_TEST

Suite *dpsgd_seq_suite(void)
{
    Suite *s = suite_create("dpsgd_seq");
    TCase *tc = tcase_create("seq_same_trajectory_for_every_p");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_seq_same_trajectory_for_every_P);
    suite_add_tcase(s, tc);
    tc = tcase_create("seq_of_one_graph_is_the_static_run");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_seq_of_one_graph_is_the_static_run);
    suite_add_tcase(s, tc);
    tc = tcase_create("seq_resume_equals_uninterrupted");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_seq_resume_equals_uninterrupted);
    suite_add_tcase(s, tc);
    return s;
}
