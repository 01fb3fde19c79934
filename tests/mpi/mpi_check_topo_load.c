/* mpi_check_topo_load.c: dt_topo_load under mpirun -np 4, the start-up of
 * dpsgd-train's topology: rank 0 alone validates, yet an invalid file
 * (one only the spectrum catches, a bad row, a size limit, a file that
 * differs between ranks) fails on every rank with the same status and one
 * message, and a valid file gives every rank the same SLEM, bit for bit
 * equal to what a rank computing it itself gets, and the same weights for
 * an unweighted file. Also dt_comm_agree_idle's agreement. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_mixing.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "dt_comm.h"
#include "dt_topo_load.h"
#include "mpi_run.h"

#define TMPL "/tmp/mpi_check_topo_load_XXXXXX" /* shared files */

/* Rank 0's bytes, broadcast, must equal this rank's. */
static void assert_same_bytes(const dt_comm *c, const void *mine, size_t n)
{
    char *root = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(root);
    memcpy(root, mine, n);
    ck_assert_int_eq(dt_comm_bcast(c, root, n, 0), CM_OK);
    ck_assert_int_eq(memcmp(root, mine, n), 0);
    free(root);
}

static void assert_same_message(const dt_comm *c)
{
    char mine[1024];
    memset(mine, 0, sizeof mine);
    snprintf(mine, sizeof mine, "%s", cm_last_error());
    assert_same_bytes(c, mine, sizeof mine);
}

/* A ring of n nodes, one edge per line (unweighted). */
static char *ring_text(size_t n)
{
    char *s = malloc(n * 24 + 1), *p = s;
    ck_assert_ptr_nonnull(s);
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%zu %zu\n", i, (i + 1) % n);
    return s;
}

START_TEST(test_invalid_fails_everywhere)
{
    char *big = ring_text(5000);
    const struct {
        const char *text;   /* file content */
        cm_weight_rule rule;
        cm_status want;     /* agreed status on every rank */
        const char *needle; /* expected in the message */
    } cases[] = {
        /* the 4-cycle with W_ii = 0: stochastic, connected, but -1 is an
         * eigenvalue; only rank 0's eigensolve sees it */
        {"0 0 0\n1 1 0\n2 2 0\n3 3 0\n0 1 0.5\n1 2 0.5\n2 3 0.5\n3 0 0.5\n",
         CM_WEIGHTS_LAPLACIAN, CM_ETOPO, "does not mix"},
        /* row 1 sums to 1.1 */
        {"0 0 0.5\n0 1 0.5\n1 1 0.6\n", CM_WEIGHTS_LAPLACIAN, CM_ETOPO,
         "sums to"},
        {"0 1\n2 3\n", CM_WEIGHTS_MH, CM_ETOPO, "disconnected"},
    };
    dt_comm *w = dt_comm_world();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[64];
        mpi_shared_file(w, TMPL, cases[c].text, path, sizeof path);
        cm_topo_seq s;
        cm_topo_seq_init(&s);
        int ob = 7;
        double slem = 7.0;
        cm_status st = dt_topo_load(w, path, cases[c].rule, 0, &s, &ob,
                                    &slem);
        ck_assert_msg(st == cases[c].want, "case %zu: status %d (%s)", c,
                      (int)st, cm_last_error());
        ck_assert_msg(strncmp(cm_last_error(), "--topology: ", 12) == 0,
                      "case %zu: %s", c, cm_last_error());
        ck_assert_msg(strstr(cm_last_error(), cases[c].needle),
                      "case %zu: %s", c, cm_last_error());
        assert_same_message(w);
        ck_assert_uint_eq(s.period, 0); /* left empty on every rank */
        ck_assert_double_eq(slem, -1.0);
        cm_topo_seq_destroy(&s);
        mpi_remove_shared(w, path);
    }
    /* beyond the dense limit a 5000-node ring is validated by the sparse
     * path (src/cm_shiftinv.c: it used to be refused, "limited to 4096"):
     * every rank gets rank 0's SLEM of the Laplacian weights, the closed
     * form (lambda_n - lambda_2) / (lambda_n + lambda_2) to 1e-9 */
    char path[64];
    mpi_shared_file(w, TMPL, big, path, sizeof path);
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    int ob = 7;
    double slem = 7.0, l2 = 2.0 - 2.0 * cos(2.0 * M_PI / 5000.0), ln = 4.0;
    ck_assert_int_eq(dt_topo_load(w, path, CM_WEIGHTS_LAPLACIAN, 0, &s, &ob,
                                  &slem), CM_OK);
    ck_assert_uint_eq(s.period, 1);
    ck_assert_msg(fabs(slem - (ln - l2) / (ln + l2)) <= 1e-9,
                  "5000-ring slem %.15f", slem);
    cm_topo_seq_destroy(&s);
    mpi_remove_shared(w, path);
    free(big);
}
END_TEST

START_TEST(test_file_differs_between_ranks)
{
    dt_comm *w = dt_comm_world();
    const size_t rank = dt_comm_rank(w), last = dt_comm_size(w) - 1;
    if (last == 0)
        return; /* needs two ranks; the suite runs under -np 4 */
    char a[64], b[64];
    mpi_shared_file(w, TMPL, "0 1\n1 2\n2 0\n", a, sizeof a);
    mpi_shared_file(w, TMPL, "0 1\n1 2\n2 3\n3 0\n", b, sizeof b);
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    int ob;
    double slem;
    cm_status st = dt_topo_load(w, rank == last ? b : a, CM_WEIGHTS_MH, 0,
                                &s, &ob, &slem);
    ck_assert_int_eq(st, CM_ETOPO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "differs between"));
    assert_same_message(w);
    ck_assert_uint_eq(s.period, 0);
    /* one rank cannot read its copy: its message reaches every rank */
    st = dt_topo_load(w, rank == last ? "/nonexistent/t.txt" : a,
                      CM_WEIGHTS_MH, 0, &s, &ob, &slem);
    ck_assert_int_eq(st, CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "/nonexistent/t.txt"));
    assert_same_message(w);
    cm_topo_seq_destroy(&s);
    mpi_remove_shared(w, a);
    mpi_remove_shared(w, b);
}
END_TEST

/* Loads text collectively and checks every rank holds what a rank doing
 * the whole validation itself computes: the same SLEM and weights, bit
 * for bit, on every rank. */
static void check_valid(const char *text, cm_weight_rule rule, int replace)
{
    dt_comm *w = dt_comm_world();
    char path[64];
    mpi_shared_file(w, TMPL, text, path, sizeof path);
    cm_topo_seq s, ref;
    cm_topo_seq_init(&s);
    cm_topo_seq_init(&ref);
    int ob;
    double slem = 0.0, want = 0.0;
    ck_assert_int_eq(dt_topo_load(w, path, rule, replace, &s, &ob, &slem),
                     CM_OK);
    /* the reference: this rank alone, as dpsgd-train did before */
    ck_assert_int_eq(cm_topo_seq_read(&ref, path), CM_OK);
    if (ref.period == 1 && (!ref.round[0].self || replace))
        ck_assert_int_eq(cm_topo_set_weights(&ref.round[0], rule), CM_OK);
    ck_assert_int_eq(cm_topo_seq_validate(&ref, path, &want), CM_OK);
    ck_assert_double_eq(slem, want);
    ck_assert(slem >= 0.0 && slem < 1.0);
    assert_same_bytes(w, &slem, sizeof slem);
    ck_assert_uint_eq(s.period, ref.period);
    for (size_t r = 0; r < s.period; r++) {
        const cm_topo *t = &s.round[r], *u = &ref.round[r];
        ck_assert_uint_eq(t->n, u->n);
        ck_assert_uint_eq(t->m, u->m);
        ck_assert_ptr_nonnull(t->self);
        ck_assert_int_eq(memcmp(t->ew, u->ew, t->m * sizeof *t->ew), 0);
        ck_assert_int_eq(memcmp(t->self, u->self, t->n * sizeof *t->self),
                         0);
        ck_assert_int_eq(memcmp(t->adj_w, u->adj_w,
                                2 * t->m * sizeof *t->adj_w), 0);
        assert_same_bytes(w, t->adj_w, 2 * t->m * sizeof *t->adj_w);
    }
    cm_topo_seq_destroy(&ref);
    cm_topo_seq_destroy(&s);
    mpi_remove_shared(w, path);
}

START_TEST(test_valid_same_everywhere)
{
    /* weighted 6-ring with chords, W_ij = 1/4, W_ii = 1/4 */
    static const char *chords =
        "0 0 0.25\n1 1 0.25\n2 2 0.25\n3 3 0.25\n4 4 0.25\n"
        "5 5 0.25\n0 1 0.25\n1 2 0.25\n2 3 0.25\n3 4 0.25\n"
        "4 5 0.25\n5 0 0.25\n0 3 0.25\n1 4 0.25\n2 5 0.25\n";
    check_valid(chords, CM_WEIGHTS_LAPLACIAN, 0);
    /* --weights given: rank 0 replaces the file's weights, all receive */
    check_valid(chords, CM_WEIGHTS_MH, 1);
    /* unweighted: rank 0 sets the weights, the others receive them */
    char *ring = ring_text(40);
    check_valid(ring, CM_WEIGHTS_LAPLACIAN, 0);
    check_valid(ring, CM_WEIGHTS_MH, 0);
    free(ring);
    /* a time-varying sequence: 4-node one-peer exponential rounds */
    check_valid("# round 0\n0 0 0.5\n1 1 0.5\n2 2 0.5\n3 3 0.5\n"
                "0 1 0.5\n2 3 0.5\n"
                "# round 1\n0 0 0.5\n1 1 0.5\n2 2 0.5\n3 3 0.5\n"
                "0 2 0.5\n1 3 0.5\n", CM_WEIGHTS_LAPLACIAN, 0);
}
END_TEST

START_TEST(test_agree_idle)
{
    dt_comm *w = dt_comm_world();
    const size_t rank = dt_comm_rank(w), size = dt_comm_size(w);
    cm_error(CM_OK, "untouched");
    ck_assert_int_eq(dt_comm_agree_idle(w, CM_OK), CM_OK);
    ck_assert_str_eq(cm_last_error(), "untouched");
    /* rank 0 arrives late (as after an eigensolve) and fails; the last
     * rank fails too: the lowest failing rank's message wins */
    cm_status local = CM_OK;
    if (rank == 0) {
        usleep(200000);
        local = cm_error(CM_ETOPO, "rank 0: W does not mix");
    } else if (rank + 1 == size) {
        local = cm_error(CM_EIO, "last rank: cannot open");
    }
    ck_assert_int_eq(dt_comm_agree_idle(w, local), CM_ETOPO);
    ck_assert_str_eq(cm_last_error(), "rank 0: W does not mix");
}
END_TEST

Suite *mpi_topo_load_suite(void)
{
    Suite *s = suite_create("mpi_topo_load");
    TCase *tc = tcase_create("topo_load");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_invalid_fails_everywhere);
    tcase_add_test(tc, test_file_differs_between_ranks);
    tcase_add_test(tc, test_valid_same_everywhere);
    tcase_add_test(tc, test_agree_idle);
    suite_add_tcase(s, tc);
    return s;
}
