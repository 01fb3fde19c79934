/* check_netmodel.c: the network time model (src/cm_net.c): presets, the --net
 * parser with units and its errors, and round times against the closed
 * form alpha + bytes / beta on placements whose loads are known; the
 * ring all-reduce against 2(n-1) alpha + 2(n-1)/n B / beta. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_net.h"
#include "cm_place.h"
#include "cm_topo.h"
#include "check_netspec.h"

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
    /* SI numbers with units; a class left out keeps the datacenter value */
    ck_assert_int_eq(cm_net_parse("inter=3e-5s,1.25e9B/s", &n), CM_OK);
    ck_assert_double_eq_tol(n.alpha[1], 3e-5, TOL);
    ck_assert_double_eq_tol(n.beta[1], 1.25e9, 1e-3);
    ck_assert_double_eq_tol(n.alpha[0], 1e-6, TOL);
    ck_assert_double_eq_tol(n.beta[0], 10e9, 1e-3);
    ck_assert_int_eq(cm_net_parse("intra=0s,2kB/s", &n), CM_OK);
    ck_assert_double_eq_tol(n.beta[0], 2e3, TOL);
    /* bits: 100Mbit/s = 100Mb/s = 12.5 MB/s */
    ck_assert_int_eq(cm_net_parse("inter=50ms,100Mbit/s", &n), CM_OK);
    ck_assert_double_eq_tol(n.beta[1], 12.5e6, 1e-6);
    ck_assert_int_eq(cm_net_parse("inter=50ms,8kbit/s", &n), CM_OK);
    ck_assert_double_eq_tol(n.beta[1], 1e3, 1e-9);
}
END_TEST

START_TEST(test_parse_errors)
{
    static const net_bad_spec bad[] = {
        {"", "expected datacenter, wan"},
        {"fast", "'fast': not a preset (datacenter or wan)"},
        {"inter=1", "'inter=1' is not"},
        {"inter=-1s,1e9B/s", "latency '-1s'"},
        {"inter=1s,0B/s", "bandwidth '0B/s'"},
        /* a bare number is refused with the expected form */
        {"inter=20,125B/s", "latency '20' has no unit: write it as e.g. 50ms"},
        {"inter=20ms,125", "bandwidth '125' has no unit: write it as e.g. 100Mbit/s"},
        {"intra=0,1GB/s", "latency '0' has no unit"},
        {"inter=1us,3GB", "bandwidth '3GB'"},
        {"inter=1parsec,3GB/s", "latency '1parsec'"},
        {"intra=1s,1B/s;intra=1s,1B/s", "intra given twice"},
        {"inter=nan,1B/s", "latency 'nan'"},
        {"inter=1s,inf", "bandwidth 'inf'"},
        {";", "expected datacenter"},
    };
    net_refuses(bad, sizeof bad / sizeof *bad);
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
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, host, 4, B, &worst, NULL, NULL),
                            1e-3 + 2.0, TOL);
    ck_assert_uint_eq(worst, 0);
    /* a fast WAN: the intra-host link decides */
    ck_assert_int_eq(cm_net_parse("intra=1ms,1MB/s;inter=0s,1000GB/s", &n), CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, host, 4, B, NULL, NULL, NULL),
                            1e-3 + 1.0, TOL);
    /* every rank its own host: 2 peers and 2 arrays each, all between
     * hosts; both messages are posted together, so one latency */
    size_t own[4] = {0, 1, 2, 3};
    ck_assert_int_eq(cm_place_eval(&t, 4, own, ro, ld, &st), CM_OK);
    ck_assert_int_eq(cm_net_parse("intra=1us,10GB/s;inter=1ms,1MB/s", &n),
                     CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 4, B, NULL, NULL, NULL),
                            1e-3 + 2.0, TOL);
    /* one host: nothing inter; 2 ranks of 4 workers: 2 arrays each way */
    ck_assert_int_eq(cm_place_workers(&t, 2, NULL, CM_PLACE_BLOCK, ro), CM_OK);
    ck_assert_int_eq(cm_place_eval(&t, 2, NULL, ro, ld, &st), CM_OK);
    ck_assert_int_eq(cm_net_parse("intra=1ms,1MB/s", &n), CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, NULL, 2, B, NULL, NULL, NULL),
                            1e-3 + 2.0, TOL);
    cm_topo_destroy(&t);
}
END_TEST

/* The worst rank decides: the one that sends or receives most; the
 * number of peers does not count (the engine posts every send and receive
 * of a round together, dt_gossip_mpi.c, so their latencies overlap). */
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
    ld[2].peers[1] = 4;      /* most messages: one latency all the same */
    cm_net n;
    ck_assert_int_eq(cm_net_parse("inter=1s,1B/s", &n), CM_OK);
    size_t worst;
    size_t own[3] = {0, 1, 2};
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 3, 1.0, &worst, NULL, NULL),
                            6.0,
                            TOL);
    ck_assert_uint_eq(worst, 1);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 3, 0.5, &worst, NULL, NULL),
                            3.5,
                            TOL);
    ck_assert_uint_eq(worst, 1);
    ld[1].arrays_in[1] = 1; /* now rank 2's two arrays decide */
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 3, 1.0, &worst, NULL, NULL),
                            3.0,
                            TOL);
    ck_assert_uint_eq(worst, 2);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 0, 1.0, &worst, NULL, NULL),
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
    ck_assert_int_eq(cm_net_parse("intra=0s,1GB/s;inter=1ms,1MB/s", &n), CM_OK);
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

/* Every all-reduce algorithm, one rank per host, against hand values:
 * alpha = 1 ms, beta = 1 MB/s, B = 2^20 bytes (262,144 floats):
 *   ring      2(n-1) (alpha + ceil(262144/n) 4 B / beta)
 *   rd        (lg p' + 2 [n != p']) (alpha + B / beta)
 *   rab       2 lg p' alpha + 2 B (1 - 1/p') / beta
 *             + [n != p'] (3 alpha + 2 B / beta)   (Open MPI's folding:
 *             two half-array steps before, one whole array after)
 *   binomial  2 ceil(lg n) (alpha + B / beta)
 * n = 3: ceil(262144/3) = 87382 floats; n = 100: 2622 floats, p' = 64. */
START_TEST(test_allreduce_algorithms)
{
    cm_net n;
    ck_assert_int_eq(cm_net_parse("intra=1us,10GB/s;inter=1ms,1MB/s", &n),
                     CM_OK);
    static const struct {
        size_t n;
        double ring, rd, rab, binomial;
    } H[] = {
        {2, 1.050576, 1.049576, 1.050576, 2.099152},
        {3, 1.402112, 3.148728, 3.150728, 4.198304},
        {64, 2.190384, 6.297456, 2.076384, 12.594912},
        {100, 2.274624, 8.396608, 4.176536, 14.694064},
        {256, 2.598960, 8.396608, 2.104960, 16.793216},
    };
    const double B = 1048576;
    for (size_t k = 0; k < sizeof H / sizeof *H; k++) {
        size_t P = H[k].n;
        const double want[4] = {H[k].ring, H[k].rd, H[k].rab, H[k].binomial};
        for (int a = CM_AR_RING; a <= CM_AR_BINOMIAL; a++)
            ck_assert_double_eq_tol(
                cm_net_allreduce_alg_time(&n, (cm_net_ar_alg)a, P, P, B),
                want[a], 1e-9);
        /* best: the cheapest; hierarchical on one rank per host: the
         * cheapest flat one among the hosts */
        double lo = want[0];
        for (int a = 1; a < 4; a++)
            lo = want[a] < lo ? want[a] : lo;
        ck_assert_double_eq_tol(
            cm_net_allreduce_alg_time(&n, CM_AR_BEST, P, P, B), lo, 1e-9);
        ck_assert_double_eq_tol(
            cm_net_allreduce_alg_time(&n, CM_AR_HIER, P, P, B), lo, 1e-9);
        /* auto: MPI_Iallreduce in place runs the binomial */
        ck_assert_double_eq_tol(
            cm_net_allreduce_alg_time(&n, CM_AR_AUTO, P, P, B), want[3],
            1e-9);
    }
    /* one rank: nothing to do */
    ck_assert_double_eq_tol(cm_net_allreduce_alg_time(&n, CM_AR_RING, 1, 1, B),
                            0.0, TOL);
    /* the research note's LeNet figures (wan, 256 hosts, 246,824 B) */
    ck_assert_int_eq(cm_net_parse("wan", &n), CM_OK);
    ck_assert_double_eq_tol(
        cm_net_allreduce_alg_time(&n, CM_AR_RING, 256, 256, 246824), 25.5395,
        1e-4);
    ck_assert_double_eq_tol(
        cm_net_allreduce_alg_time(&n, CM_AR_RDOUBLING, 256, 256, 246824),
        8 * (0.05 + 246824 / 12.5e6), 1e-9);
    ck_assert_double_eq_tol(
        cm_net_allreduce_alg_time(&n, CM_AR_BINOMIAL, 256, 256, 246824),
        16 * (0.05 + 246824 / 12.5e6), 1e-9);
}
END_TEST

/* Several ranks per host: the host link is shared. 4 ranks on 2 hosts,
 * B = 1 MB, intra 1 us, 10 GB/s, inter 1 ms, 1 MB/s:
 *   ring: every step one block of B/4 leaves each host (rank 1 -> 2,
 *     3 -> 0): 6 (1 ms + 0.25 s);
 *   rd: distance 1 inside the hosts (1 us + 0.1 ms), distance 2 across
 *     with both ranks of a host sending B: 1 ms + 2 s;
 *   hierarchical on 8 ranks on 2 hosts: binomial reduce in 4 (2 steps of
 *     1 us + 0.1 ms), one exchange of the leaders (1 ms + 1 s, rd), the
 *     binomial broadcast (2 steps). Per-rank counts: the ring's 2(P-1)
 *     messages and 2 (B - 2 blocks) bytes. */
START_TEST(test_allreduce_hosts)
{
    cm_net n;
    ck_assert_int_eq(cm_net_parse("intra=1us,10GB/s;inter=1ms,1MB/s", &n),
                     CM_OK);
    const double B = 1e6;
    ck_assert_double_eq_tol(
        cm_net_allreduce_alg_time(&n, CM_AR_RING, 4, 2, B), 6 * (1e-3 + 0.25),
        1e-9);
    ck_assert_double_eq_tol(
        cm_net_allreduce_alg_time(&n, CM_AR_RDOUBLING, 4, 2, B),
        1e-6 + 1e-4 + 1e-3 + 2.0, 1e-9);
    cm_net_ar a;
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_HIER, 8, 2, B, &a,
                                            NULL, NULL), CM_OK);
    ck_assert_double_eq_tol(a.time_s, 4 * (1e-6 + 1e-4) + 1e-3 + 1.0, 1e-9);
    ck_assert_int_eq(a.alg, CM_AR_HIER);
    ck_assert_int_eq(a.inter, CM_AR_RDOUBLING);
    ck_assert_uint_eq(a.steps, 5);
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_BEST, 8, 2, B, &a,
                                            NULL, NULL), CM_OK);
    ck_assert_int_eq(a.alg, CM_AR_HIER);
    size_t msgs[6];
    double sent[6];
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_RING, 5, 5, 20 * 4,
                                            &a, msgs, sent), CM_OK);
    for (size_t r = 0; r < 5; r++) {
        ck_assert_uint_eq(msgs[r], 8);
        ck_assert_double_eq_tol(sent[r], 2 * (80 - 16), TOL);
    }
    ck_assert_double_eq_tol(a.bytes_mean, 128, TOL);
    /* 21 floats in 5 blocks: block 0 has 5, the others 4; rank r skips
     * blocks r+1 and r+2 */
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_RING, 5, 5, 21 * 4,
                                            &a, msgs, sent), CM_OK);
    ck_assert_double_eq_tol(sent[0], 4 * (42 - 8), TOL);
    ck_assert_double_eq_tol(sent[3], 4 * (42 - 4 - 5), TOL);
    ck_assert_double_eq_tol(sent[4], 4 * (42 - 5 - 4), TOL);
    /* binomial: rank 0 sends only in the broadcast, to 1, 2, 4 */
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_BINOMIAL, 6, 6, B, &a,
                                            msgs, sent), CM_OK);
    ck_assert_uint_eq(msgs[0], 3);
    ck_assert_uint_eq(msgs[1], 3); /* reduce to 0, broadcast to 3, 5 */
    ck_assert_uint_eq(msgs[5], 1);
    ck_assert_double_eq_tol(a.msgs_max, 3, TOL);
    /* bad counts */
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_RING, 4, 5, B, &a,
                                            NULL, NULL), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "4 ranks on 5 hosts"));
    ck_assert(isnan(cm_net_allreduce_alg_time(&n, CM_AR_RING, 0, 1, B)));
}
END_TEST

/* Open MPI 4.1.4's choices at the experiment's sizes (LeNet, 246,824 B;
 * ResNet-18, 46,758,048 B): the trainer's MPI_Iallreduce in place is
 * libnbc's binomial at any size; not in place, Rabenseifner from 64 kB at
 * P >= 4; the blocking tuned table: Rabenseifner at 16 and 256 ranks,
 * recursive doubling at 64 and 100 (below 256 kB), ring at 3 below
 * 64 kB. */
START_TEST(test_allreduce_openmpi)
{
    static const size_t P[] = {16, 64, 100, 256};
    for (size_t k = 0; k < 4; k++) {
        ck_assert_int_eq(cm_net_allreduce_openmpi(P[k], 246824, 0, 1),
                         CM_AR_BINOMIAL);
        ck_assert_int_eq(cm_net_allreduce_openmpi(P[k], 46758048, 0, 1),
                         CM_AR_BINOMIAL);
        ck_assert_int_eq(cm_net_allreduce_openmpi(P[k], 246824, 0, 0),
                         CM_AR_RABENSEIFNER);
        ck_assert_int_eq(cm_net_allreduce_openmpi(P[k], 4096, 0, 0),
                         CM_AR_BINOMIAL);
    }
    ck_assert_int_eq(cm_net_allreduce_openmpi(16, 246824, 1, 0),
                     CM_AR_RABENSEIFNER);
    ck_assert_int_eq(cm_net_allreduce_openmpi(64, 246824, 1, 0),
                     CM_AR_RDOUBLING);
    ck_assert_int_eq(cm_net_allreduce_openmpi(100, 246824, 1, 0),
                     CM_AR_RDOUBLING);
    ck_assert_int_eq(cm_net_allreduce_openmpi(100, 262144, 1, 0),
                     CM_AR_RABENSEIFNER);
    ck_assert_int_eq(cm_net_allreduce_openmpi(256, 246824, 1, 0),
                     CM_AR_RABENSEIFNER);
    ck_assert_int_eq(cm_net_allreduce_openmpi(256, 2048, 1, 0),
                     CM_AR_BINOMIAL);
    ck_assert_int_eq(cm_net_allreduce_openmpi(3, 32768, 1, 0), CM_AR_RING);
    ck_assert_int_eq(cm_net_allreduce_openmpi(3, 4000, 1, 0),
                     CM_AR_RDOUBLING);
    ck_assert_int_eq(cm_net_allreduce_openmpi(2, 1048576, 0, 0),
                     CM_AR_BINOMIAL);
    /* names round-trip; a bad one is named */
    cm_net_ar_alg a;
    for (int k = 0; k < CM_AR_COUNT; k++) {
        ck_assert_int_eq(cm_net_ar_parse(cm_net_ar_name((cm_net_ar_alg)k),
                                         "--allreduce", &a), CM_OK);
        ck_assert_int_eq(a, k);
    }
    ck_assert_int_eq(cm_net_ar_parse("rd", "--allreduce", &a), CM_OK);
    ck_assert_int_eq(a, CM_AR_RDOUBLING);
    ck_assert_int_eq(cm_net_ar_parse("tree", "--allreduce", &a), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "--allreduce 'tree'"));
}
END_TEST

/* A gossip round as the engine posts it: a degree-4 round, one worker per
 * host, on the wan preset with LeNet's arrays is alpha + 4 B / beta
 * (50 ms + 79 ms), not 4 (alpha + B / beta). */
START_TEST(test_round_posted_together)
{
    cm_place_load ld[5];
    memset(ld, 0, sizeof ld);
    for (size_t r = 0; r < 5; r++) {
        ld[r].peers[1] = 4;
        ld[r].arrays[1] = ld[r].arrays_in[1] = 4;
    }
    size_t own[5] = {0, 1, 2, 3, 4};
    cm_net n;
    ck_assert_int_eq(cm_net_parse("wan", &n), CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, own, 5, 246824, NULL, NULL, NULL),
                            0.05 + 4 * 246824 / 12.5e6, 1e-12);
}
END_TEST

/* Per-host links (issue 42): three hosts with their own latency, up and
 * down links (net by hand): host 0 60 ms, up 1 MB/s, down 4 MB/s; host 1
 * 30 ms, 2 and 2 MB/s; host 2 5 ms, 0.5 and 8 MB/s. Path a -> b: lat_a +
 * lat_b. */
static void three_hosts(cm_net *n)
{
    ck_assert_int_eq(cm_net_parse("intra=0s,1GB/s;inter=1ms,1MB/s", n), CM_OK);
    static const double lat[3] = {0.06, 0.03, 0.005};
    static const double up[3] = {1e6, 2e6, 0.5e6}, down[3] = {4e6, 2e6, 8e6};
    n->hosts = 3;
    for (size_t h = 0; h < 3; h++) {
        n->lat_up[h] = n->lat_down[h] = lat[h];
        n->up[h] = up[h];
        n->down[h] = down[h];
    }
}

/* The path 0 - 1 - 2, one worker per host, arrays of 1 MB: host 0
 * 90 ms + max(1 MB / 1 MB/s, 1 MB / 4 MB/s) = 1.09 s; host 1 (two peers)
 * 90 ms + max(2/2, 2/2) = 1.09 s; host 2 35 ms (its one peer, host 1) +
 * max(1 / 0.5, 1 / 8) = 2.035 s: the round. Without the topology host 2's
 * latency is its farthest host's, 65 ms (an upper bound): 2.065 s. */
START_TEST(test_hosts_round)
{
    cm_net n;
    three_hosts(&n);
    size_t ei[2] = {0, 1}, ej[2] = {1, 2};
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 3, 2, ei, ej), CM_OK);
    cm_net_eval ev;
    ck_assert_int_eq(cm_net_eval_placement(&n, &t, 3, 3, CM_PLACE_BLOCK, 1e6,
                                           &ev), CM_OK);
    ck_assert_double_eq_tol(ev.round_s, 2.035, TOL);
    ck_assert_uint_eq(ev.worst, 2);
    cm_place_load ld[3];
    cm_place_stats st;
    size_t ro[3] = {0, 1, 2};
    ck_assert_int_eq(cm_place_eval(&t, 3, ro, ro, ld, &st), CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, ro, 3, 1e6, NULL, &t,
                                              ro), 2.035, TOL);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, ro, 3, 1e6, NULL, NULL,
                                              NULL), 2.065, TOL);
    /* host labels are mapped in order of first appearance: 7, 3, 5 are
     * the platform's hosts 0, 1, 2 */
    size_t lab[3] = {7, 3, 5};
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, lab, 3, 1e6, NULL, &t,
                                              ro), 2.035, TOL);
    /* a fourth host is not in the platform */
    ck_assert_int_eq(cm_net_check_hosts(&n, 3), CM_OK);
    ck_assert_int_eq(cm_net_check_hosts(&n, 4), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "has 3 hosts"));
    cm_place_load l4[4];
    memset(l4, 0, sizeof l4);
    size_t h4[4] = {0, 1, 2, 3};
    ck_assert(isnan(cm_net_round_time(&n, l4, h4, 4, 1e6, NULL, NULL,
                                      NULL)));
    ck_assert_int_eq(cm_net_eval_placement(&n, &t, 3, 3, CM_PLACE_BLOCK, 1e6,
                                           &ev), CM_OK);
    cm_topo_destroy(&t);
}
END_TEST

/* All-reduce steps on the three hosts, each its slowest pair. Recursive
 * doubling on hosts 0, 1: one exchange, host 0 90 ms + max(1/1, 1/4) =
 * 1.09 s. Binomial on 0, 1, 2: reduce 1 -> 0 (host 1: 90 ms + 1/2 = 0.59),
 * 2 -> 0 (host 2: 65 ms + 1/0.5 = 2.065), broadcast 0 -> 1 (host 0: 90 ms
 * + 1/1 = 1.09), 0 -> 2 (host 0: 65 ms + 1 = 1.065): 4.81 s. */
START_TEST(test_hosts_allreduce)
{
    cm_net n;
    three_hosts(&n);
    cm_net_ar a;
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_RDOUBLING, 2, 2, 1e6,
                                            &a, NULL, NULL), CM_OK);
    ck_assert_double_eq_tol(a.time_s, 1.09, TOL);
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_BINOMIAL, 3, 3, 1e6,
                                            &a, NULL, NULL), CM_OK);
    ck_assert_double_eq_tol(a.time_s, 0.59 + 2.065 + 1.09 + 1.065, TOL);
    ck_assert_uint_eq(a.steps, 4);
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_RING, 4, 4, 1e6, &a,
                                            NULL, NULL), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "has 3 hosts"));
}
END_TEST

/* Hosts whose links are all alike (latency l each way, up = down = b)
 * price every round and all-reduce exactly as the two classes (2 l, b):
 * one worker per host and four per host, every algorithm. */
START_TEST(test_hosts_alike)
{
    cm_net u, h;
    ck_assert_int_eq(cm_net_parse("intra=1us,10GB/s;inter=20ms,1MB/s", &u),
                     CM_OK);
    h = u;
    h.hosts = 16;
    for (size_t k = 0; k < 16; k++) {
        h.lat_up[k] = h.lat_down[k] = 0.01;
        h.up[k] = h.down[k] = 1e6;
    }
    size_t ei[32], ej[32];
    for (size_t i = 0; i < 16; i++) { /* a 4-regular circulant */
        ei[2 * i] = i, ej[2 * i] = (i + 1) % 16;
        ei[2 * i + 1] = i, ej[2 * i + 1] = (i + 5) % 16;
    }
    for (size_t k = 0; k < 32; k++)
        if (ei[k] > ej[k]) {
            size_t x = ei[k];
            ei[k] = ej[k], ej[k] = x;
        }
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 16, 32, ei, ej), CM_OK);
    static const size_t PH[3][2] = {{16, 16}, {16, 4}, {12, 12}};
    for (size_t c = 0; c < 3; c++) {
        size_t P = PH[c][0], H = PH[c][1];
        if (P == 16) {
            cm_net_eval e1, e2;
            ck_assert_int_eq(cm_net_eval_placement(&u, &t, P, H,
                             CM_PLACE_BLOCK, 246824, &e1), CM_OK);
            ck_assert_int_eq(cm_net_eval_placement(&h, &t, P, H,
                             CM_PLACE_BLOCK, 246824, &e2), CM_OK);
            ck_assert_double_eq_tol(e2.round_s, e1.round_s, TOL);
        }
        for (int alg = CM_AR_RING; alg < CM_AR_COUNT; alg++) {
            double a = cm_net_allreduce_alg_time(&u, (cm_net_ar_alg)alg, P, H,
                                                 246824);
            double b = cm_net_allreduce_alg_time(&h, (cm_net_ar_alg)alg, P, H,
                                                 246824);
            ck_assert_msg(fabs(a - b) <= 1e-12 * a, "%s P %zu H %zu: %g %g",
                          cm_net_ar_name((cm_net_ar_alg)alg), P, H, a, b);
        }
    }
    cm_topo_destroy(&t);
}
END_TEST

/* A platform file whose hosts have links of their own (the home kind)
 * read host by host: up and down per host, the backbone's latency
 * between them; the file order is the hosts'. */
START_TEST(test_hosts_platform)
{
    char path[] = "/tmp/check_netmodel_XXXXXX.xml";
    FILE *fp = net_tmp_xml(path);
    fputs("<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
          " <zone id=\"z\" routing=\"Cluster\">\n"
          "  <host id=\"b\" speed=\"1Gf\"/>\n"
          "  <link id=\"b_up\" bandwidth=\"2MBps\" latency=\"30ms\"/>\n"
          "  <link id=\"b_down\" bandwidth=\"16Mbps\" latency=\"20ms\"/>\n"
          "  <host id=\"a\" speed=\"1Gf\"/>\n"
          "  <link id=\"a_up\" bandwidth=\"1000000Bps\" latency=\"0.005s\"/>\n"
          "  <link id=\"a_down\" bandwidth=\"4MBps\" latency=\"5ms\"/>\n"
          "  <host_link id=\"a\" up=\"a_up\" down=\"a_down\"/>\n"
          "  <host_link id=\"b\" up=\"b_up\" down=\"b_down\"/>\n"
          "  <backbone id=\"bb\" bandwidth=\"1TBps\" latency=\"1ms\"/>\n"
          " </zone>\n</platform>\n", fp);
    fclose(fp);
    cm_net n;
    net_read_tmp(path, cm_net_parse, &n);
    ck_assert_uint_eq(n.hosts, 2);
    ck_assert_double_eq_tol(n.lat_up[0], 0.03, TOL);   /* b, first */
    ck_assert_double_eq_tol(n.lat_down[0], 0.02, TOL);
    ck_assert_double_eq_tol(n.up[0], 2e6, 1e-6);
    ck_assert_double_eq_tol(n.down[0], 2e6, 1e-6);
    ck_assert_double_eq_tol(n.up[1], 1e6, 1e-6);
    ck_assert_double_eq_tol(n.down[1], 4e6, 1e-6);
    ck_assert_double_eq_tol(cm_net_path_lat(&n, 0, 1), 0.03 + 0.001 + 0.005,
                            TOL);
    ck_assert_double_eq_tol(cm_net_path_lat(&n, 1, 0), 0.005 + 0.001 + 0.02,
                            TOL);
    /* in-host links keep the presets' */
    ck_assert_double_eq_tol(n.alpha[0], 1e-6, TOL);
    char buf[256];
    cm_net_describe(&n, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "2 hosts with their own links: path latency "
                         "26 ms-36 ms, up 1 MB/s-2 MB/s, down 2 MB/s-4 MB/s"),
                  "%s", buf);
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
    tcase_add_test(tc, test_allreduce_algorithms);
    tcase_add_test(tc, test_allreduce_hosts);
    tcase_add_test(tc, test_allreduce_openmpi);
    tcase_add_test(tc, test_round_posted_together);
    tcase_add_test(tc, test_hosts_round);
    tcase_add_test(tc, test_hosts_allreduce);
    tcase_add_test(tc, test_hosts_alike);
    tcase_add_test(tc, test_hosts_platform);
    suite_add_tcase(s, tc);
    return s;
}
