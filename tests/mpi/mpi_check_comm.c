/* mpi_check_comm.c: the communicator wrapper under mpirun -np 4: sizes of
 * sub-communicators, sum allreduce and broadcast results, and the failure
 * agreement (same status and message on every rank, no hang), including
 * bad topology files read and validated on every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_mixing.h"
#include "dt_comm.h"
#include "check_files.h"
#include "mpi_run.h"

/* Rank 0's last-error message, broadcast, must equal this rank's. */
static void assert_same_message(const dt_comm *c)
{
    char mine[1024], root[1024];
    snprintf(mine, sizeof mine, "%s", cm_last_error());
    memcpy(root, mine, sizeof root);
    ck_assert_int_eq(dt_comm_bcast(c, root, sizeof root, 0), CM_OK);
    ck_assert_str_eq(mine, root);
}

START_TEST(test_split_and_collectives)
{
    dt_comm *w = dt_comm_world();
    ck_assert_ptr_nonnull(w);
    const size_t size = dt_comm_size(w), rank = dt_comm_rank(w);
    ck_assert_uint_ge(size, 1);
    ck_assert_uint_lt(rank, size);
    ck_assert_int_eq(dt_comm_barrier(w), CM_OK);
    ck_assert_uint_ge(dt_comm_local_size(w), 1);
    ck_assert_uint_le(dt_comm_local_size(w), size);
    for (size_t P = 1; P <= size; P++) {
        dt_comm *c = NULL;
        ck_assert_int_eq(dt_comm_split(w, rank < P ? 0 : -1, &c), CM_OK);
        if (rank >= P) {
            ck_assert_ptr_null(c);
            continue;
        }
        ck_assert_ptr_nonnull(c);
        ck_assert_uint_eq(dt_comm_size(c), P);
        ck_assert_uint_eq(dt_comm_rank(c), rank);
        /* sum over ranks of (rank + k): P*k + P(P-1)/2, exact */
        double d[5];
        float f[5];
        for (int k = 0; k < 5; k++) {
            d[k] = (double)rank + k;
            f[k] = (float)rank + (float)k;
        }
        ck_assert_int_eq(dt_comm_allreduce_sum_double(c, d, 5), CM_OK);
        ck_assert_int_eq(dt_comm_allreduce_sum_float(c, f, 5), CM_OK);
        for (int k = 0; k < 5; k++) {
            double want = (double)P * k + (double)(P * (P - 1) / 2);
            ck_assert_double_eq(d[k], want);
            ck_assert_float_eq(f[k], (float)want);
        }
        char buf[32];
        snprintf(buf, sizeof buf, "from rank %zu", rank);
        ck_assert_int_eq(dt_comm_bcast(c, buf, sizeof buf, P - 1), CM_OK);
        char want[32];
        snprintf(want, sizeof want, "from rank %zu", P - 1);
        ck_assert_str_eq(buf, want);
        ck_assert_int_eq(dt_comm_bcast(c, buf, sizeof buf, P), CM_EINVAL);
        dt_comm_free(c);
    }
    dt_comm_free(w); /* the world handle is never freed */
    ck_assert_ptr_eq(dt_comm_world(), w);
    dt_comm_free(NULL);
}
END_TEST

START_TEST(test_agree)
{
    dt_comm *w = dt_comm_world();
    const size_t size = dt_comm_size(w), rank = dt_comm_rank(w);
    cm_error(CM_OK, "untouched");
    ck_assert_int_eq(dt_comm_agree(w, CM_OK), CM_OK);
    ck_assert_str_eq(cm_last_error(), "untouched");
    /* Ranks >= size/2 fail with different codes and messages; the lowest
     * one's wins everywhere. */
    const size_t low = size / 2;
    cm_status local = CM_OK;
    if (rank == low)
        local = cm_error(CM_EIO, "rank %zu failed: disk full", rank);
    else if (rank > low)
        local = cm_error(CM_ENUMERIC, "rank %zu failed: NaN", rank);
    else
        cm_error(CM_OK, "rank %zu is fine", rank);
    cm_status s = dt_comm_agree(w, local);
    ck_assert_int_eq(s, CM_EIO);
    char want[64];
    snprintf(want, sizeof want, "rank %zu failed: disk full", low);
    ck_assert_str_eq(cm_last_error(), want);
    /* Only the last rank fails. */
    local = rank + 1 == size ? cm_error(CM_EMPI, "last rank lost") : CM_OK;
    ck_assert_int_eq(dt_comm_agree(w, local), CM_EMPI);
    ck_assert_str_eq(cm_last_error(), "last rank lost");
}
END_TEST

#define TMPL "/tmp/mpi_check_comm_XXXXXX" /* shared files */

START_TEST(test_bad_topology_all_ranks)
{
    static const struct {
        const char *text;   /* file content */
        cm_status want;     /* expected agreed status */
        const char *needle; /* expected in the message */
    } cases[] = {
        /* W_01 = 0.5 but W_10 = 0.4: asymmetric, rejected by the reader */
        {"0 0 0.5\n0 1 0.5\n1 1 0.6\n1 0 0.4\n", CM_EFORMAT, ":4"},
        /* row 1 sums to 1.1: not stochastic, rejected by the validator */
        {"0 0 0.5\n0 1 0.5\n1 1 0.6\n", CM_ETOPO, "sum"},
        /* 0-1 and 2-3: disconnected */
        {"0 1\n2 3\n", CM_ETOPO, "connected"},
    };
    dt_comm *w = dt_comm_world();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[64];
        mpi_shared_file(w, TMPL, cases[c].text, path, sizeof path);
        cm_topo t;
        cm_topo_init(&t);
        cm_status s = dt_comm_agree(w, load_topo(&t, path));
        ck_assert_msg(s == cases[c].want, "case %zu: status %d (%s)", c,
                      (int)s, cm_last_error());
        ck_assert_ptr_nonnull(strstr(cm_last_error(), path));
        ck_assert_msg(strstr(cm_last_error(), cases[c].needle),
                      "case %zu: %s", c, cm_last_error());
        assert_same_message(w);
        cm_topo_destroy(&t);
        mpi_remove_shared(w, path);
    }
    /* A failure seen by one rank only (its copy of the file is missing). */
    const size_t last = dt_comm_size(w) - 1;
    char path[64];
    mpi_shared_file(w, TMPL, "0 1\n1 2\n", path, sizeof path);
    const char *mine = dt_comm_rank(w) == last ? "/nonexistent/g.txt" : path;
    cm_topo t;
    cm_topo_init(&t);
    cm_status s = dt_comm_agree(w, load_topo(&t, mine));
    ck_assert_int_eq(s, CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "/nonexistent/g.txt"));
    assert_same_message(w);
    cm_topo_destroy(&t);
    mpi_remove_shared(w, path);
}
END_TEST

Suite *mpi_comm_suite(void)
{
    Suite *s = suite_create("mpi_comm");
    TCase *tc = tcase_create("split_and_collectives");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_split_and_collectives);
    suite_add_tcase(s, tc);
    tc = tcase_create("failure_agreement");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_agree);
    suite_add_tcase(s, tc);
    tc = tcase_create("bad_topology_all_ranks");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_bad_topology_all_ranks);
    suite_add_tcase(s, tc);
    return s;
}
