/* check_netmodel.c: the network time model (src/cm_net.c): presets, the --net
 * parser with units and its errors, and round times against the closed
 * form alpha + bytes / beta on placements whose loads are known; the
 * ring all-reduce against 2(n-1) alpha + 2(n-1)/n B / beta. */
#include <math.h>
#include <string.h>

#include <check.h>

#include "cm_net.h"
#include "cm_place.h"
#include "cm_topo.h"

#define TOL 1e-12

START_TEST(test_presets)
{
    cm_net n;
    ck_assert_int_eq(cm_net_parse("datacenter", &n), CM_OK);
    ck_assert_double_eq_tol(n.alpha[1], 25e-6, TOL);
    ck_assert_double_eq_tol(n.beta[1], 3e9, 1);
    ck_assert_str_eq(n.name, "datacenter");
    ck_assert_int_eq(cm_net_parse("wan", &n), CM_OK);
    ck_assert_double_eq_tol(n.alpha[1], 50e-3, TOL);
    ck_assert_double_eq_tol(n.beta[1], 12.5e6, 1e-3);
    char buf[128];
    ck_assert_str_eq(cm_net_describe(&n, buf, sizeof buf),
                     "wan (intra 1 us, 10 GB/s; inter 50 ms, 12.5 MB/s)");
}
END_TEST

START_TEST(test_parse_units)
{
    cm_net n;
    ck_assert_int_eq(cm_net_parse("intra=2us,5GB/s;inter=100ms,100Mb/s", &n),
                     CM_OK);
    ck_assert_str_eq(n.name, "custom");
    ck_assert_double_eq_tol(n.alpha[0], 2e-6, TOL);
    ck_assert_double_eq_tol(n.beta[0], 5e9, 1e-3);
    ck_assert_double_eq_tol(n.alpha[1], 0.1, TOL);
    ck_assert_double_eq_tol(n.beta[1], 12.5e6, 1e-6);
    /* plain SI numbers; a class left out keeps the datacenter value */
    ck_assert_int_eq(cm_net_parse("inter=3e-5,1.25e9", &n), CM_OK);
    ck_assert_double_eq_tol(n.alpha[1], 3e-5, TOL);
    ck_assert_double_eq_tol(n.beta[1], 1.25e9, 1e-3);
    ck_assert_double_eq_tol(n.alpha[0], 1e-6, TOL);
    ck_assert_double_eq_tol(n.beta[0], 10e9, 1e-3);
    ck_assert_int_eq(cm_net_parse("intra=0,2kB/s", &n), CM_OK);
    ck_assert_double_eq_tol(n.beta[0], 2e3, TOL);
}
END_TEST

START_TEST(test_parse_errors)
{
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"", "expected datacenter, wan"},
        {"fast", "'fast' is not intra=ALPHA,BETA"},
        {"inter=1", "'inter=1' is not"},
        {"inter=-1,1e9", "latency '-1'"},
        {"inter=1,0", "bandwidth '0'"},
        {"inter=1us,3GB", "bandwidth '3GB'"},
        {"inter=1parsec,3GB/s", "latency '1parsec'"},
        {"intra=1,1;intra=1,1", "intra given twice"},
        {"inter=nan,1", "latency 'nan'"},
        {"inter=1,inf", "bandwidth 'inf'"},
        {";", "expected datacenter"},
    };
    cm_net n;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        ck_assert_int_eq(cm_net_parse(bad[k].spec, &n), CM_EINVAL);
        ck_assert_msg(strstr(cm_last_error(), bad[k].msg) &&
                      strstr(cm_last_error(), "--net"),
                      "'%s': %s", bad[k].spec, cm_last_error());
    }
}
END_TEST

/* Ring of 8 in blocks on 4 ranks, 2 per host: every rank has one peer on
 * its host and one on the other, one array each way on each; a host's two
 * ranks share its link, so 2 arrays cross per host. */
START_TEST(test_round_ring)
{
    size_t ei[8], ej[8], ro[8], host[4] = {0, 0, 1, 1}, worst = 99;
    for (size_t i = 0; i < 8; i++) {
        ei[i] = i;
        ej[i] = (i + 1) % 8;
    }
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 8, 8, ei, ej), CM_OK);
    ck_assert_int_eq(cm_place_workers(&t, 4, host, CM_PLACE_BLOCK, ro), CM_OK);
    cm_place_load ld[4];
    cm_place_stats st;
    ck_assert_int_eq(cm_place_eval(&t, 4, host, ro, ld, &st), CM_OK);
    cm_net n;
    ck_assert_int_eq(cm_net_parse("intra=1us,10GB/s;inter=1ms,1MB/s", &n),
                     CM_OK);
    double B = 1e6;
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, host, 4, B, &worst),
                            1e-3 + 2.0, TOL);
    ck_assert_uint_eq(worst, 0);
    /* a fast WAN: the intra-host link decides */
    ck_assert_int_eq(cm_net_parse("intra=1ms,1MB/s;inter=0,1e12", &n), CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, host, 4, B, NULL),
                            1e-3 + 1.0, TOL);
    /* every rank its own host: 2 peers and 2 arrays each, all between hosts */
    size_t own[4] = {0, 1, 2, 3};
    ck_assert_int_eq(cm_place_eval(&t, 4, own, ro, ld, &st), CM_OK);
    ck_assert_int_eq(cm_net_parse("intra=1us,10GB/s;inter=1ms,1MB/s", &n),
                     CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 4, B, NULL),
                            2e-3 + 2.0, TOL);
    /* one host: nothing inter; 2 ranks of 4 workers: 2 arrays each way */
    ck_assert_int_eq(cm_place_workers(&t, 2, NULL, CM_PLACE_BLOCK, ro), CM_OK);
    ck_assert_int_eq(cm_place_eval(&t, 2, NULL, ro, ld, &st), CM_OK);
    ck_assert_int_eq(cm_net_parse("intra=1ms,1MB/s", &n), CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, NULL, 2, B, NULL),
                            1e-3 + 2.0, TOL);
    cm_topo_destroy(&t);
}
END_TEST

/* The worst rank decides: a rank that sends more, or to more peers. */
START_TEST(test_round_worst_rank)
{
    cm_place_load ld[3];
    memset(ld, 0, sizeof ld);
    ld[0].arrays[1] = ld[0].arrays_in[1] = 1;
    ld[0].peers[1] = 1;
    ld[1].arrays[1] = 1;
    ld[1].arrays_in[1] = 5;  /* receives most */
    ld[1].peers[1] = 1;
    ld[2].arrays[1] = 2;
    ld[2].peers[1] = 4;      /* most messages */
    cm_net n;
    ck_assert_int_eq(cm_net_parse("inter=1s,1B/s", &n), CM_OK);
    size_t worst;
    size_t own[3] = {0, 1, 2};
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 3, 1.0, &worst),
                            6.0,
                            TOL);
    ck_assert_uint_eq(worst, 1);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 3, 0.5, &worst),
                            5.0,
                            TOL);
    ck_assert_uint_eq(worst, 2);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 0, 1.0, &worst),
                            0.0,
                            TOL);
}
END_TEST

/* cm_net_eval_placement: a ring of 32 on 4 ranks on 2 hosts (the CLI's
 * case): 2 arrays leave each host, 1 ms + 2 MB / (1 MB/s); both
 * placements are optimal here; bad counts are named. */
START_TEST(test_eval_placement)
{
    size_t ei[32], ej[32];
    for (size_t i = 0; i < 32; i++) {
        ei[i] = i;
        ej[i] = (i + 1) % 32;
    }
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 32, 32, ei, ej), CM_OK);
    cm_net n;
    ck_assert_int_eq(cm_net_parse("intra=0,1GB/s;inter=1ms,1MB/s", &n), CM_OK);
    cm_net_eval ev;
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(cm_net_eval_placement(&n, &t, 4, 2, (cm_place_kind)k,
                                               1e6, &ev), CM_OK);
        ck_assert_uint_eq(ev.st.cut_edges, 4);
        ck_assert_uint_eq(ev.st.cut_edges_host, 2);
        ck_assert_uint_eq(ev.st.volume_host, 4);
        ck_assert_double_eq_tol(ev.round_s, 1e-3 + 2.0, TOL);
    }
    ck_assert_int_eq(cm_net_eval_placement(&n, &t, 33, 2, CM_PLACE_GRAPH, 1e6,
                                           &ev), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "33 ranks for 32 workers"));
    ck_assert_int_eq(cm_net_eval_placement(&n, &t, 4, 5, CM_PLACE_GRAPH, 1e6,
                                           &ev), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "5 hosts for 4 ranks"));
    cm_topo_destroy(&t);
}
END_TEST

/* The ring all-reduce against its closed form 2(n-1) alpha + 2(n-1)/n
 * B / beta, built here message by message (2(n-1) steps of one B/n chunk
 * each), on both link classes; n = 0, 1: nothing to send; n = 2: one
 * exchange of B/2 each way twice; large n: the bandwidth term tends to
 * 2 B / beta (bandwidth-optimal), the latency term grows linearly. */
START_TEST(test_allreduce_ring)
{
    cm_net n;
    ck_assert_int_eq(cm_net_parse("intra=1us,10GB/s;inter=1ms,1MB/s", &n),
                     CM_OK);
    const double B = 1e6;
    ck_assert_double_eq_tol(cm_net_allreduce_time(&n, 0, 1, B), 0.0, TOL);
    ck_assert_double_eq_tol(cm_net_allreduce_time(&n, 1, 1, B), 0.0, TOL);
    ck_assert_double_eq_tol(cm_net_allreduce_time(&n, 2, 1, B),
                            2e-3 + 1.0, TOL);
    ck_assert_double_eq_tol(cm_net_allreduce_time(&n, 4, 1, B),
                            6e-3 + 1.5, TOL);
    ck_assert_double_eq_tol(cm_net_allreduce_time(&n, 4, 0, B),
                            6e-6 + 1.5e-4, TOL);
    ck_assert_double_eq_tol(cm_net_allreduce_time(&n, 4, 7, B),
                            cm_net_allreduce_time(&n, 4, 1, B), TOL);
    static const size_t ns[] = {3, 16, 64, 256, 1000};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        double sum = 0;
        for (size_t step = 0; step < 2 * (ns[k] - 1); step++)
            sum += n.alpha[1] + (B / (double)ns[k]) / n.beta[1];
        ck_assert_double_eq_tol(cm_net_allreduce_time(&n, ns[k], 1, B), sum,
                                1e-9 * sum);
    }
    /* wan, LeNet (61706 floats), 256 workers on 256 hosts:
     * 510 x 50 ms + 510/256 x 246824 B / 12.5 MB/s */
    ck_assert_int_eq(cm_net_parse("wan", &n), CM_OK);
    ck_assert_double_eq_tol(cm_net_allreduce_time(&n, 256, 1, 246824.0),
                            25.5 + 510.0 / 256.0 * 246824.0 / 12.5e6, 1e-9);
    double big = cm_net_allreduce_time(&n, 1000000, 1, 246824.0);
    ck_assert_double_eq_tol(big - 2 * 999999 * 50e-3,
                            2 * 246824.0 / 12.5e6, 1e-6);
}
END_TEST

Suite *netmodel_suite(void)
{
    Suite *s = suite_create("netmodel");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_presets);
    tcase_add_test(tc, test_parse_units);
    tcase_add_test(tc, test_parse_errors);
    tcase_add_test(tc, test_round_ring);
    tcase_add_test(tc, test_round_worst_rank);
    tcase_add_test(tc, test_eval_placement);
    tcase_add_test(tc, test_allreduce_ring);
    suite_add_tcase(s, tc);
    return s;
}
