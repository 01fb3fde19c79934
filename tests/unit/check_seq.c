/* check_seq.c: time-varying topologies: src/cm_topo_seq.c (format, rules,
 * products) and topo/tg_seq.c (one-peer exponential, Base-(k+1)).
 *
 * Closed forms: one-peer-exp and Base-(k+1) average exactly (product of
 * one period = 11^T/n within 1e-12) for every n and k tried, with
 * per-round degree <= k; the reference periods (Base-4: 2/3/3/4/4
 * rounds for n = 16..256; one-peer: log2 n). Invariants: rounds doubly
 * stochastic, eigenvalues in [-1, 1], simulation reaches round-off after
 * one period. Format: round trip, a single-round file is today's format,
 * and one test per bad-input class (message names line and round). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_blas.h"
#include "check_files.h"

#include "cm_mixing.h"
#include "cm_topo_seq.h"
#include "tg_eval.h"
#include "tg_seq.h"

#define TMPL "/tmp/check_seq_XXXXXX" /* tmp_text's files */

static cm_status load_text(cm_topo_seq *s, const char *text)
{
    const char *p = tmp_text(TMPL, text, strlen(text));
    cm_status st = cm_topo_seq_load(s, p, NULL);
    unlink(p);
    return st;
}

/* Builds, validates and evaluates; asserts exactness and degrees. */
static void assert_exact(tg_seq_kind kind, size_t n, size_t k,
                         size_t want_period)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_int_eq(tg_seq_build(&s, kind, n, k), CM_OK);
    ck_assert_uint_eq(s.n, n);
    if (s.period > 1) /* a single round is checked as a static graph */
        ck_assert_msg(cm_topo_seq_validate(&s, "built", NULL) == CM_OK,
                      "%s n=%zu k=%zu: %s", tg_seq_kind_name(kind), n, k,
                      cm_last_error());
    tg_seq_eval e;
    ck_assert_int_eq(tg_seq_evaluate(&s, NULL, &e), CM_OK);
    ck_assert_msg(e.exact && e.norm <= 1e-12, "%s n=%zu k=%zu: norm %.3g",
                  tg_seq_kind_name(kind), n, k, e.norm);
    ck_assert_msg(e.dmax <= k, "n=%zu k=%zu: degree %zu", n, k, e.dmax);
    ck_assert_uint_le(e.rounds, s.period);
    if (want_period)
        ck_assert_msg(s.period == want_period, "%s n=%zu k=%zu: period %zu, "
                      "want %zu", tg_seq_kind_name(kind), n, k, s.period,
                      want_period);
    for (size_t t = 0; t < s.period; t++) { /* rows sum to 1, W >= 0 */
        const cm_topo *w = &s.round[t];
        for (size_t i = 0; i < n; i++) {
            double row = w->self[i];
            ck_assert(w->self[i] >= 0.0);
            for (size_t p = w->off[i]; p < w->off[i + 1]; p++) {
                row += w->adj_w[p];
                ck_assert(w->adj_w[p] > 0.0);
            }
            ck_assert_double_eq_tol(row, 1.0, 1e-14);
        }
    }
    cm_topo_seq_destroy(&s);
}

START_TEST(reference_periods)
{
    static const size_t ns[] = {16, 32, 64, 128, 256};
    static const size_t base4[] = {2, 3, 3, 4, 4};
    for (size_t i = 0; i < 5; i++) {
        assert_exact(TG_SEQ_BASE, ns[i], 3, base4[i]);
        assert_exact(TG_SEQ_ONE_PEER_EXP, ns[i], 1, 4 + i);
    }
    assert_exact(TG_SEQ_ONE_PEER_EXP, 2, 1, 1);
    assert_exact(TG_SEQ_BASE, 12, 1, 5);  /* 4 x 3: H(4) after S(3) */
    assert_exact(TG_SEQ_BASE, 3, 1, 3);   /* 2 + 1: merge, re-average */
}
END_TEST

START_TEST(base_exact_for_any_n)
{
    for (size_t k = 1; k <= 5; k++)
        for (size_t n = k + 1; n <= 70; n++)
            assert_exact(TG_SEQ_BASE, n, k, 0);
    assert_exact(TG_SEQ_BASE, 97, 2, 0);  /* prime */
    assert_exact(TG_SEQ_BASE, 250, 3, 0); /* 2 x 5^3 with b = 4 */
}
END_TEST

START_TEST(simulation_reaches_roundoff)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_int_eq(tg_seq_build(&s, TG_SEQ_BASE, 29, 2), CM_OK);
    size_t rounds = 2 * s.period;
    double *rel = malloc((rounds + 1) * sizeof *rel);
    ck_assert_int_eq(tg_simulate_seq(s.round, s.period, rounds, 5, rel),
                     CM_OK);
    for (size_t r = 1; r < s.period; r++)
        ck_assert(rel[r] > 1e-6); /* not before the period ends */
    for (size_t r = s.period; r <= rounds; r++)
        ck_assert_msg(rel[r] < 1e-13, "round %zu: %g", r, rel[r]);
    /* period 1 is tg_simulate, bit for bit */
    double a[6], b[6];
    ck_assert_int_eq(tg_simulate(&s.round[0], 5, 9, a), CM_OK);
    ck_assert_int_eq(tg_simulate_seq(&s.round[0], 1, 5, 9, b), CM_OK);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    free(rel);
    cm_topo_seq_destroy(&s);
}
END_TEST

START_TEST(rounds_to_1e3_of_an_inexact_sequence)
{
    /* ring C_9 with weights 1/3, then the matching 0-1, 2-3, ...: not
     * exact; the rounds to 1e-3 found by bisection equal a linear scan */
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_int_eq(cm_topo_seq_alloc(&s, 2, 9), CM_OK);
    size_t ei[9], ej[9];
    for (size_t i = 0; i < 9; i++)
        ei[i] = i, ej[i] = (i + 1) % 9;
    ck_assert_int_eq(cm_topo_from_edges(&s.round[0], 9, 9, ei, ej), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&s.round[0], CM_WEIGHTS_MAXDEG),
                     CM_OK);
    for (size_t k = 0; k < 4; k++)
        ei[k] = 2 * k, ej[k] = 2 * k + 1;
    ck_assert_int_eq(cm_topo_from_edges(&s.round[1], 9, 4, ei, ej), CM_OK);
    cm_topo *t = &s.round[1];
    t->ew = malloc(4 * sizeof *t->ew);
    t->self = malloc(9 * sizeof *t->self);
    t->adj_w = malloc(8 * sizeof *t->adj_w);
    for (size_t k = 0; k < 4; k++)
        t->ew[k] = 0.5;
    for (size_t k = 0; k < 8; k++)
        t->adj_w[k] = 0.5;
    for (size_t i = 0; i < 9; i++)
        t->self[i] = i == 8 ? 1.0 : 0.5;
    ck_assert_int_eq(cm_topo_seq_validate(&s, "ring+matching", NULL), CM_OK);
    tg_seq_eval e;
    ck_assert_int_eq(tg_seq_evaluate(&s, NULL, &e), CM_OK);
    ck_assert(!e.exact && e.norm > 0.1 && e.norm < 1.0);
    size_t r = 0;
    double v = 1.0, prev = 1.0;
    while (v > 1e-3) {
        ck_assert_int_eq(cm_topo_seq_norm(&s, ++r, &v), CM_OK);
        ck_assert(v <= prev + 1e-12); /* never grows */
        prev = v;
    }
    ck_assert_uint_eq(e.rounds, r);
    cm_topo_seq_destroy(&s);
}
END_TEST

START_TEST(round_trip_and_single_round)
{
    cm_topo_seq s, r;
    cm_topo_seq_init(&s);
    cm_topo_seq_init(&r);
    ck_assert_int_eq(tg_seq_build(&s, TG_SEQ_ONE_PEER_EXP, 8, 1), CM_OK);
    char path[] = "/tmp/check_seq_rt_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(cm_topo_seq_save(&s, path, "topogen 1 period=3"),
                     CM_OK);
    double norm = -1;
    ck_assert_int_eq(cm_topo_seq_load(&r, path, &norm), CM_OK);
    ck_assert_uint_eq(r.period, 3);
    ck_assert(norm <= 1e-12);
    for (size_t t = 0; t < 3; t++) {
        ck_assert_uint_eq(r.round[t].m, s.round[t].m);
        ck_assert(memcmp(r.round[t].ew, s.round[t].ew,
                         s.round[t].m * sizeof(double)) == 0);
        ck_assert_uint_gt(r.line[t], 1);
    }
    unlink(path);
    /* today's format is a period-1 sequence, validated as before */
    ck_assert_int_eq(load_text(&r, "# n=3\n0 0 0.5\n1 1 0.5\n2 2 0.5\n"
                                   "0 1 0.25\n0 2 0.25\n1 2 0.25\n"), CM_OK);
    ck_assert_uint_eq(r.period, 1);
    ck_assert_uint_eq(r.round[0].m, 3);
    ck_assert_int_eq(load_text(&r, "0 1\n1 2\n2 0\n"), CM_OK);
    ck_assert_ptr_null(r.round[0].self);
    /* a comment mentioning rounds is not a section */
    ck_assert_int_eq(load_text(&r, "# rounds_1e-3 4\n0 1\n"), CM_OK);
    ck_assert_uint_eq(r.period, 1);
    cm_topo_seq_destroy(&r);
    cm_topo_seq_destroy(&s);
}
END_TEST

/* Two valid 4-node rounds (matchings 0-1 2-3, then 0-2 1-3). */
#define R0 "0 0 0.5\n1 1 0.5\n2 2 0.5\n3 3 0.5\n0 1 0.5\n2 3 0.5\n"
#define R1 "0 0 0.5\n1 1 0.5\n2 2 0.5\n3 3 0.5\n0 2 0.5\n1 3 0.5\n"

static const struct {
    const char *text;
    cm_status st;
    const char *frag;
} bad[] = {
    {"# round 0\n" R0 "# round 1 n=5\n" R1 "4 4 1\n", CM_EFORMAT,
     ":8: round 1 has 5 nodes, but round 0 (line 1) has 4"},
    {"# period=0\n0 1\n", CM_EFORMAT, ":1: period=0: a sequence needs"},
    {"# period=3\n# round 0\n" R0 "# round 1\n" R1, CM_EFORMAT,
     ":1: period=3, but the file has 2"},
    {"# round 0\n" R0 "# round 2\n" R1, CM_EFORMAT,
     ":8: round 2 where round 1 was expected"},
    {"# round x\n" R0, CM_EFORMAT, ":1: malformed round header"},
    {"0 0 1\n# round 0\n" R0, CM_EFORMAT, ":1: data line before the first"},
    {"# round 0\n" R0 "# round 1\n0 2\n1 3\n", CM_EFORMAT,
     ":8: round 1 has no weights"},
    {"# round 0\n" R0 "# round 1\n" R1 "0 2 0.7\n", CM_EFORMAT,
     "round 1: "},
    {"# round 0\n" R0 "# round 1\n0 0 0.5\n1 1 0.5\n2 2 0.5\n3 3 0.4\n"
     "0 2 0.5\n1 3 0.5\n", CM_ETOPO, "round 1 (line 8): row 3 of W sums"},
    {"# round 0\n" R0 "# round 1\n0 0 -0.5\n1 1 -0.5\n2 2 0.5\n3 3 0.5\n"
     "0 1 1.5\n2 3 0.5\n", CM_ETOPO,
     "round 1 (line 8): W has the eigenvalue -2, outside [-1, 1]"},
    {"# round 0\n" R0 "# round 1\n" R0, CM_ETOPO,
     "the sequence does not mix"},
};

START_TEST(bad_input)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    cm_status st = load_text(&s, bad[_i].text);
    ck_assert_msg(st == bad[_i].st, "case %d: status %d (%s)", _i, (int)st,
                  cm_last_error());
    ck_assert_msg(strstr(cm_last_error(), bad[_i].frag) != NULL,
                  "case %d: '%s' lacks '%s'", _i, cm_last_error(),
                  bad[_i].frag);
    ck_assert_uint_eq(s.period, 0); /* nothing half-read */
    cm_topo_seq_destroy(&s);
}
END_TEST

START_TEST(bad_parameters)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_int_eq(tg_seq_build(&s, TG_SEQ_ONE_PEER_EXP, 12, 1), CM_EINVAL);
    ck_assert(strstr(cm_last_error(), "power of two") != NULL);
    ck_assert_int_eq(tg_seq_build(&s, TG_SEQ_BASE, 8, 8), CM_EINVAL);
    ck_assert(strstr(cm_last_error(), "-d") != NULL);
    ck_assert_int_eq(tg_seq_build(&s, TG_SEQ_BASE, 1, 1), CM_EINVAL);
    ck_assert_int_eq(cm_topo_seq_alloc(&s, 0, 4), CM_EINVAL);
    tg_seq_kind k;
    ck_assert(tg_seq_kind_parse("base", &k) && k == TG_SEQ_BASE);
    ck_assert(!tg_seq_kind_parse("ring", &k));
    cm_topo_seq_destroy(&s);
}
END_TEST

/* cm_topo_seq_union: every round's edges once, weights and self weights
 * summed over the rounds, adj_w matching ew; period 1 gives round 0. */
START_TEST(union_of_rounds)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    /* round 0: 0-1, 2-3 (1/2 each); round 1: 0-1, 1-2 (1/4 each) */
    ck_assert_int_eq(load_text(&s, "# round 0 n=4\n0 1 0.5\n2 3 0.5\n"
                                   "# round 1 n=4\n0 1 0.25\n1 2 0.25\n"),
                     CM_OK);
    cm_topo u;
    cm_topo_init(&u);
    ck_assert_int_eq(cm_topo_seq_union(&s, &u), CM_OK);
    ck_assert_uint_eq(u.n, 4);
    ck_assert_uint_eq(u.m, 3);
    const size_t ei[] = {0, 1, 2}, ej[] = {1, 2, 3};
    const double ew[] = {0.75, 0.25, 0.5}, self[] = {1.25, 1.0, 1.25, 1.5};
    for (size_t k = 0; k < 3; k++) {
        ck_assert_uint_eq(u.ei[k], ei[k]);
        ck_assert_uint_eq(u.ej[k], ej[k]);
        ck_assert_double_eq_tol(u.ew[k], ew[k], 1e-15);
    }
    for (size_t i = 0; i < 4; i++) {
        ck_assert_double_eq_tol(u.self[i], self[i], 1e-15);
        double row = u.self[i];
        for (size_t p = u.off[i]; p < u.off[i + 1]; p++)
            row += u.adj_w[p];
        ck_assert_double_eq_tol(row, 2.0, 1e-15); /* rows sum to the period */
    }
    /* one round: the union is that round */
    ck_assert_int_eq(load_text(&s, "0 1 0.5\n1 2 0.5\n"), CM_OK);
    ck_assert_int_eq(cm_topo_seq_union(&s, &u), CM_OK);
    ck_assert_uint_eq(u.m, s.round[0].m);
    ck_assert_mem_eq(u.adj, s.round[0].adj, 2 * u.m * sizeof *u.adj);
    ck_assert_mem_eq(u.adj_w, s.round[0].adj_w, 2 * u.m * sizeof *u.adj_w);
    ck_assert_mem_eq(u.self, s.round[0].self, u.n * sizeof *u.self);
    cm_topo_destroy(&u);
    cm_topo_seq_destroy(&s);
}
END_TEST

Suite *seq_suite(void)
{
    Suite *s = suite_create("seq");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, reference_periods);
    tcase_add_test(tc, base_exact_for_any_n);
    tcase_add_test(tc, simulation_reaches_roundoff);
    tcase_add_test(tc, rounds_to_1e3_of_an_inexact_sequence);
    tcase_add_test(tc, round_trip_and_single_round);
    tcase_add_loop_test(tc, bad_input, 0, (int)(sizeof bad / sizeof *bad));
    tcase_add_test(tc, bad_parameters);
    tcase_add_test(tc, union_of_rounds);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}
