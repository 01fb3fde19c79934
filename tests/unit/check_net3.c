/* check_net3.c: the network model's three levels (site / host / worker,
 * cm_net.h, issue 42): the site=ALPHA,BETA;sites=S grammar and its
 * errors, the hosts' sites in blocks, a gossip round and all-reduce
 * schedules against values worked out by hand, a platform of sites read
 * into the three levels, and the two-level price recovered exactly when
 * the site level is the host level (one host per site, site = inter) or
 * there is one site. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_net.h"
#include "cm_place.h"
#include "cm_platform.h"
#include "cm_topo.h"
#include "check_graphs.h"
#include "check_netspec.h"

#define TOL 1e-12

/* intra 1 us, 10 GB/s; inter 1 ms, 1 MB/s; site 10 ms, 0.5 MB/s */
#define NET3 "intra=1us,10GB/s;inter=1ms,1MB/s;site=10ms,0.5MB/s;sites=2"

START_TEST(test_parse_sites)
{
    cm_net n;
    ck_assert_int_eq(cm_net_parse("intra=1us,10GB/s;inter=25us,3GB/s;"
                                  "site=50ms,12.5MB/s;sites=2", &n), CM_OK);
    ck_assert_uint_eq(n.sites, 2);
    ck_assert_double_eq_tol(n.alpha[2], 0.05, TOL);
    ck_assert_double_eq_tol(n.beta[2], 12.5e6, 1e-6);
    ck_assert_double_eq_tol(n.alpha[1], 25e-6, TOL);
    ck_assert_double_eq_tol(n.beta[1], 3e9, 1e-3);
    char buf[256];
    ck_assert_str_eq(cm_net_describe(&n, buf, sizeof buf),
                     "custom (intra 1 us, 10 GB/s; inter 25 us, 3 GB/s; "
                     "site 50 ms, 12.5 MB/s; 2 sites)");
    /* any order; intra and inter keep the datacenter values */
    ck_assert_int_eq(cm_net_parse("sites=3;site=100ms,100Mbit/s", &n), CM_OK);
    ck_assert_uint_eq(n.sites, 3);
    ck_assert_double_eq_tol(n.beta[2], 12.5e6, 1e-6);
    ck_assert_double_eq_tol(n.alpha[1], 25e-6, TOL);
    /* the two-level forms have no sites */
    ck_assert_int_eq(cm_net_parse("inter=1ms,1MB/s", &n), CM_OK);
    ck_assert_uint_eq(n.sites, 0);
    ck_assert_int_eq(cm_net_parse("wan", &n), CM_OK);
    ck_assert_uint_eq(n.sites, 0);
}
END_TEST

START_TEST(test_parse_sites_errors)
{
    static const net_bad_spec bad[] = {
        {"site=50ms,12.5MB/s", "site=ALPHA,BETA needs sites=S"},
        {"inter=1ms,1MB/s;sites=2", "sites=S needs site=ALPHA,BETA"},
        {"site=50ms,1MB/s;sites=0", "'sites=0' is not sites=S"},
        {"site=50ms,1MB/s;sites=two", "'sites=two' is not sites=S"},
        {"site=50ms,1MB/s;sites=2.5", "'sites=2.5' is not sites=S"},
        {"site=50ms,1MB/s;sites=-1", "'sites=-1' is not sites=S"},
        {"site=50ms,1MB/s;sites=2;sites=3", "sites given twice"},
        {"site=50ms,1MB/s;site=5ms,1MB/s;sites=2", "site given twice"},
        {"site=50,1MB/s;sites=2", "latency '50' has no unit"},
        {"site=50ms,12.5;sites=2", "bandwidth '12.5' has no unit"},
        {"site=50ms,0MB/s;sites=2", "bandwidth '0MB/s' is not a rate > 0"},
        {"sitex=50ms,1MB/s;sites=2", "'sitex=50ms,1MB/s' is not"},
    };
    net_refuses(bad, sizeof bad / sizeof *bad);
}
END_TEST

START_TEST(test_site_of)
{
    cm_net n;
    ck_assert_int_eq(cm_net_parse("site=1ms,1MB/s;sites=4", &n), CM_OK);
    /* 10 hosts on 4 sites: 3, 3, 2, 2 */
    static const size_t want[10] = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3};
    for (size_t h = 0; h < 10; h++)
        ck_assert_uint_eq(cm_net_site_of(&n, 10, h), want[h]);
    /* 3 hosts on 4 sites: one each, the last site empty */
    for (size_t h = 0; h < 3; h++)
        ck_assert_uint_eq(cm_net_site_of(&n, 3, h), h);
    ck_assert_uint_eq(cm_net_sites_used(&n, 3), 3);
    ck_assert_uint_eq(cm_net_sites_used(&n, 10), 4);
    ck_assert_int_eq(cm_net_parse("wan", &n), CM_OK);
    ck_assert_uint_eq(cm_net_site_of(&n, 10, 7), 0);
    ck_assert_uint_eq(cm_net_sites_used(&n, 10), 0);
}
END_TEST

/* A ring of 8 workers, one per rank, on 4 hosts of 2 ranks, 2 sites of 2
 * hosts (ranks 0-3 site 0, 4-7 site 1). Every host sends 2 arrays to
 * other hosts and receives 2 (L_h = 2 B / beta_1 = 2 s), every site 2 to
 * the other (4 s at 0.5 MB/s). Rank 0 (peer 7 on the other site): T_2 =
 * 10 ms + max(2, 4) s = 4.01 s; rank 1 (peer 2 on its site): T_1 = 1 ms
 * + 2 s, T_2 = 4 s without a latency. */
START_TEST(test_round_hand)
{
    cm_topo t;
    cm_topo_init(&t);
    ring(&t, 8);
    size_t host[8] = {0, 0, 1, 1, 2, 2, 3, 3}, ro[8], worst = 99;
    for (size_t i = 0; i < 8; i++)
        ro[i] = i;
    cm_place_load ld[8];
    cm_place_stats st;
    ck_assert_int_eq(cm_place_eval(&t, 8, host, ro, ld, &st), CM_OK);
    cm_net n;
    ck_assert_int_eq(cm_net_parse(NET3, &n), CM_OK);
    double B = 1e6;
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, host, 8, B, &worst, &t,
                                              ro), 0.01 + 4.0, TOL);
    ck_assert_uint_eq(worst, 0);
    /* a site uplink that never limits: rank 0's 10 ms + its host's 2 s */
    ck_assert_int_eq(cm_net_parse("intra=1us,10GB/s;inter=1ms,1MB/s;"
                                  "site=10ms,1000GB/s;sites=2", &n), CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, host, 8, B, &worst, &t,
                                              ro), 0.01 + 2.0, TOL);
    /* without the topology every array between hosts is taken to cross
     * sites: each site's 4 arrays out, 8 s at 0.5 MB/s */
    ck_assert_int_eq(cm_net_parse(NET3, &n), CM_OK);
    ck_assert_double_eq_tol(cm_net_round_time(&n, ld, host, 8, B, NULL, NULL,
                                              NULL), 0.01 + 8.0, TOL);
    /* cm_net_eval_placement: block fills hosts, then sites, in rank order */
    cm_net_eval ev;
    ck_assert_int_eq(cm_net_eval_placement(&n, &t, 8, 4, CM_PLACE_BLOCK, B,
                                           &ev), CM_OK);
    ck_assert_double_eq_tol(ev.round_s, 0.01 + 4.0, TOL);
    cm_topo_destroy(&t);
}
END_TEST

/* Recursive doubling on 4 ranks, 4 hosts, 2 sites, 1e6 floats (4 MB):
 * step 1 pairs 0-1, 2-3 inside sites, 1 ms + 4 MB / 1 MB/s = 4.001 s;
 * step 2 pairs across sites: each host 10 ms + 4 s, each site's uplink
 * 8 MB out, 10 ms + 16 s: 16.01 s. Hierarchical by site: binomial reduce
 * inside the sites (4.001 s), recursive doubling between the two leaders
 * (10 ms + 4 MB / 0.5 MB/s = 8.01 s, the cheapest: the ring and
 * Rabenseifner take two half-array steps of 4.01 s, binomial two whole
 * ones), a broadcast (4.001 s). */
START_TEST(test_allreduce_hand)
{
    cm_net n;
    ck_assert_int_eq(cm_net_parse(NET3, &n), CM_OK);
    cm_net_ar a;
    size_t msgs[4];
    double sent[4];
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_RDOUBLING, 4, 4, 4e6,
                                            &a, msgs, sent), CM_OK);
    ck_assert_double_eq_tol(a.time_s, 4.001 + 16.01, 1e-9);
    ck_assert_uint_eq(a.steps, 2);
    ck_assert_uint_eq(msgs[0], 2);
    ck_assert_double_eq_tol(sent[3], 8e6, 1e-6);
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_HIER_SITE, 4, 4, 4e6,
                                            &a, NULL, NULL), CM_OK);
    ck_assert_double_eq_tol(a.time_s, 4.001 + 8.01 + 4.001, 1e-9);
    ck_assert_int_eq(a.inter, CM_AR_RDOUBLING);
    ck_assert_uint_eq(a.steps, 3);
    /* Rabenseifner: halves inside the sites (1 ms + 2 s), quarters across
     * (each uplink 2 MB: 10 ms + 4 s), the same back; best takes it */
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_RABENSEIFNER, 4, 4,
                                            4e6, &a, NULL, NULL), CM_OK);
    ck_assert_double_eq_tol(a.time_s, 2 * (2.001 + 4.01), 1e-9);
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_BEST, 4, 4, 4e6, &a,
                                            NULL, NULL), CM_OK);
    ck_assert_int_eq(a.alg, CM_AR_RABENSEIFNER);
    /* 4 kB: latency-bound; by site pays 10 ms once (the leaders' one
     * exchange) and best takes it: 2 (1 ms + 4 ms) + 10 ms + 8 ms */
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_BEST, 4, 4, 4e3, &a,
                                            NULL, NULL), CM_OK);
    ck_assert_int_eq(a.alg, CM_AR_HIER_SITE);
    ck_assert_double_eq_tol(a.time_s, 2 * 0.005 + 0.018, 1e-12);
    /* hierarchical by host on 4 hosts of one rank: the flat one among
     * all 4 (the cheapest of the four; recursive doubling 20.011 s) */
    ck_assert_int_eq(cm_net_allreduce_model(&n, CM_AR_HIER, 4, 4, 4e6, &a,
                                            NULL, NULL), CM_OK);
    ck_assert(a.time_s <= 4.001 + 16.01 + 1e-9);
    ck_assert_int_eq(cm_net_ar_parse("hier-site", "--allreduce", &a.alg),
                     CM_OK);
    ck_assert_int_eq(a.alg, CM_AR_HIER_SITE);
    ck_assert_str_eq(cm_net_ar_name(CM_AR_HIER_SITE), "hierarchical-site");
}
END_TEST

/* A pseudo-random graph of n nodes: a ring plus chords from an LCG. */
static void chord_topo(cm_topo *t, size_t n, unsigned seed)
{
    size_t ei[256], ej[256], m = 0;
    unsigned x = seed;
    for (size_t i = 0; i < n; i++) {
        ei[m] = i;
        ej[m++] = (i + 1) % n;
    }
    for (size_t k = 0; k < n && m < 256; k++) {
        x = x * 1103515245u + 12345u;
        size_t a = (x >> 8) % n;
        x = x * 1103515245u + 12345u;
        size_t b = (x >> 8) % n;
        int dup = a == b;
        for (size_t e = 0; e < m && !dup; e++)
            dup = (ei[e] == a && ej[e] == b) || (ei[e] == b && ej[e] == a);
        if (!dup) {
            ei[m] = a;
            ej[m++] = b;
        }
    }
    cm_topo_init(t);
    ck_assert_int_eq(cm_topo_from_edges(t, n, m, ei, ej), CM_OK);
}

/* The site level equal to the host level gives the two-level price
 * exactly (==, not within a tolerance): one host per site with site =
 * inter, and one site (every host in it), for gossip rounds under block
 * and graph placement and every all-reduce algorithm; hierarchical by
 * site with one host per site is hierarchical by host. */
START_TEST(test_two_level_exact)
{
    static const size_t Hs[] = {1, 2, 3, 4, 6, 8, 12, 24};
    static const char *const two[] = {"intra=1us,10GB/s;inter=25us,3GB/s",
                                      "intra=2us,1GB/s;inter=50ms,12.5MB/s"};
    char spec[256];
    for (unsigned seed = 1; seed <= 3; seed++) {
        cm_topo t;
        chord_topo(&t, 24, seed);
        for (size_t w = 0; w < 2; w++) {
            cm_net n2, same, one;
            ck_assert_int_eq(cm_net_parse(two[w], &n2), CM_OK);
            for (size_t k = 0; k < sizeof Hs / sizeof *Hs; k++) {
                size_t H = Hs[k];
                /* one host per site, site = inter */
                snprintf(spec, sizeof spec, "%s;site=%s;sites=%zu", two[w],
                         strchr(two[w], ';') + 7, H);
                ck_assert_int_eq(cm_net_parse(spec, &same), CM_OK);
                ck_assert_uint_eq(same.sites, H);
                /* one site, its level anything */
                snprintf(spec, sizeof spec, "%s;site=1s,1kB/s;sites=1",
                         two[w]);
                ck_assert_int_eq(cm_net_parse(spec, &one), CM_OK);
                for (int kind = 0; kind < 2; kind++) {
                    cm_net_eval e2, e3, e1;
                    double B = 246824;
                    ck_assert_int_eq(cm_net_eval_placement(&n2, &t, 24, H,
                                         (cm_place_kind)kind, B, &e2), CM_OK);
                    ck_assert_int_eq(cm_net_eval_placement(&same, &t, 24, H,
                                         (cm_place_kind)kind, B, &e3), CM_OK);
                    ck_assert_int_eq(cm_net_eval_placement(&one, &t, 24, H,
                                         (cm_place_kind)kind, B, &e1), CM_OK);
                    ck_assert_msg(e3.round_s == e2.round_s &&
                                  e1.round_s == e2.round_s,
                                  "H %zu kind %d: %.17g %.17g %.17g", H, kind,
                                  e2.round_s, e3.round_s, e1.round_s);
                    ck_assert_uint_eq(e3.worst, e2.worst);
                    ck_assert_uint_eq(e1.worst, e2.worst);
                }
                for (int a = 0; a < CM_AR_COUNT; a++) {
                    cm_net_ar r2, r3, r1;
                    cm_net_ar_alg al = (cm_net_ar_alg)a;
                    /* two levels: hierarchical-site is hierarchical */
                    ck_assert_int_eq(cm_net_allreduce_model(&n2, al, 24, H,
                                         4e6, &r2, NULL, NULL), CM_OK);
                    ck_assert_int_eq(cm_net_allreduce_model(&same, al, 24, H,
                                         4e6, &r3, NULL, NULL), CM_OK);
                    ck_assert_int_eq(cm_net_allreduce_model(&one, al, 24, H,
                                         4e6, &r1, NULL, NULL), CM_OK);
                    ck_assert_msg(r3.time_s == r2.time_s &&
                                  r3.steps == r2.steps,
                                  "%s H %zu: %.17g %.17g", cm_net_ar_name(al),
                                  H, r2.time_s, r3.time_s);
                    if (al != CM_AR_HIER_SITE)
                        ck_assert_msg(r1.time_s == r2.time_s,
                                      "%s H %zu one site: %.17g %.17g",
                                      cm_net_ar_name(al), H, r2.time_s,
                                      r1.time_s);
                }
            }
        }
        cm_topo_destroy(&t);
    }
}
END_TEST

/* topogen platform --net sites:2 -n 8: 2 sites of 4 hosts, read into the
 * three levels (inter = two access links of 12.5 us at 3 GB/s, site =
 * those and two uplinks of 25 ms at 12.5 MB/s); intra keeps the preset. */
/* cm_net_eval_placement_sizes (one placement, its round at several sizes)
 * == cm_net_eval_placement at each size, on two levels and one, with
 * hosts of several workers and of one (every part a single node: the
 * placement keeps the first partitioner's) */
START_TEST(test_placement_sizes)
{
    const double B[3] = {1e3, 246824, 4e6};
    const size_t Hs[] = {4, 24};
    const char *nets[] = {"intra=25us,3GB/s;inter=50ms,12.5MB/s", "wan"};
    for (unsigned seed = 1; seed <= 2; seed++) {
        cm_topo t;
        chord_topo(&t, 24, seed);
        for (size_t w = 0; w < 2; w++) {
            cm_net net;
            ck_assert_int_eq(cm_net_parse(nets[w], &net), CM_OK);
            for (size_t k = 0; k < 2; k++)
                for (int kind = 0; kind < 2; kind++) {
                    cm_net_eval many[3], one;
                    ck_assert_int_eq(cm_net_eval_placement_sizes(&net, &t, 24,
                                         Hs[k], (cm_place_kind)kind, 3, B,
                                         many), CM_OK);
                    for (size_t b = 0; b < 3; b++) {
                        ck_assert_int_eq(cm_net_eval_placement(&net, &t, 24,
                                             Hs[k], (cm_place_kind)kind, B[b],
                                             &one), CM_OK);
                        ck_assert_msg(many[b].round_s == one.round_s &&
                                      many[b].worst == one.worst &&
                                      !memcmp(&many[b].st, &one.st,
                                              sizeof one.st),
                                      "%s H %zu kind %d %.0f B: %.17g %.17g",
                                      nets[w], Hs[k], kind, B[b],
                                      many[b].round_s, one.round_s);
                    }
                    ck_assert(many[0].round_s < many[2].round_s);
                }
        }
        cm_topo_destroy(&t);
    }
}
END_TEST

START_TEST(test_platform_sites)
{
    char path[] = "/tmp/check_net3_XXXXXX.xml";
    FILE *fp = net_tmp_xml(path);
    cm_platform_spec sp;
    ck_assert_int_eq(cm_platform_parse("sites:2", "--net", &sp), CM_OK);
    ck_assert_int_eq(cm_platform_write(fp, &sp, 8, 1), CM_OK);
    fclose(fp);
    cm_net n;
    net_read_tmp(path, cm_net_parse_platform, &n);
    ck_assert_uint_eq(n.sites, 2);
    ck_assert_uint_eq(n.hosts, 0);
    ck_assert_double_eq_tol(n.alpha[0], 1e-6, TOL);
    ck_assert_double_eq_tol(n.beta[0], 10e9, 1e-3);
    ck_assert_double_eq_tol(n.alpha[1], 25e-6, 1e-15);
    ck_assert_double_eq_tol(n.beta[1], 3e9, 1e-3);
    ck_assert_double_eq_tol(n.alpha[2], 0.050025, 1e-12);
    ck_assert_double_eq_tol(n.beta[2], 12.5e6, 1e-6);
    /* the file's hosts in blocks: 8 hosts, sites of 4; a deployment of
     * H hosts runs on the file's first H (smpirun's order), so 4 hosts
     * fill site 0, and more than 8 are refused */
    ck_assert_uint_eq(n.site_hosts, 8);
    ck_assert_uint_eq(cm_net_site_of(&n, 8, 3), 0);
    ck_assert_uint_eq(cm_net_site_of(&n, 8, 4), 1);
    ck_assert_uint_eq(cm_net_site_of(&n, 4, 3), 0);
    ck_assert_uint_eq(cm_net_sites_used(&n, 4), 1);
    ck_assert_uint_eq(cm_net_sites_used(&n, 5), 2);
    ck_assert_uint_eq(cm_net_sites_used(&n, 8), 2);
    ck_assert_int_eq(cm_net_check_hosts(&n, 8), CM_OK);
    ck_assert_int_eq(cm_net_check_hosts(&n, 9), CM_EINVAL);
    ck_assert_msg(strstr(cm_last_error(), "has 8 hosts on 2 sites and the "
                         "deployment 9 hosts"), "%s", cm_last_error());
    char buf[256];
    cm_net_describe(&n, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "(intra 1 us, 10 GB/s; inter 25 us, 3 GB/s; "
                         "site 50 ms, 12.5 MB/s; 2 sites of 8 hosts)"),
                  "%s", buf);
    /* 4 hosts of the file (all in site 0): no message crosses sites, the
     * two-level price of inter = (25 us, 3 GB/s) */
    cm_net two;
    ck_assert_int_eq(cm_net_parse("inter=25us,3GB/s", &two), CM_OK);
    two.alpha[1] = n.alpha[1];
    ck_assert(cm_net_allreduce_alg_time(&n, CM_AR_RING, 8, 4, 4e6) ==
              cm_net_allreduce_alg_time(&two, CM_AR_RING, 8, 4, 4e6));
}
END_TEST

/* Sites as <cluster>s joined by a <zoneRoute> over two uplinks: each
 * cluster one site of its radical's hosts. */
START_TEST(test_platform_clusters)
{
    char path[] = "/tmp/check_net3_XXXXXX.xml";
    FILE *fp = net_tmp_xml(path);
    fputs("<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
          " <zone id=\"w\" routing=\"Full\">\n"
          "  <cluster id=\"c0\" prefix=\"a\" suffix=\"\" radical=\"0-2\" "
          "speed=\"1Gf\" bw=\"125MBps\" lat=\"50us\" router_id=\"r0\"/>\n"
          "  <cluster id=\"c1\" prefix=\"b\" suffix=\"\" radical=\"0-1,5\" "
          "speed=\"1Gf\" bw=\"125MBps\" lat=\"50us\" router_id=\"r1\"/>\n"
          "  <link id=\"l0\" bandwidth=\"10MBps\" latency=\"10ms\"/>\n"
          "  <link id=\"l1\" bandwidth=\"10MBps\" latency=\"10ms\"/>\n"
          "  <zoneRoute src=\"c0\" dst=\"c1\" gw_src=\"r0\" gw_dst=\"r1\">"
          "<link_ctn id=\"l0\"/><link_ctn id=\"l1\"/></zoneRoute>\n"
          " </zone>\n</platform>\n", fp);
    fclose(fp);
    cm_net n;
    net_read_tmp(path, cm_net_parse, &n);
    ck_assert_uint_eq(n.sites, 2);
    ck_assert_uint_eq(n.site_hosts, 6);
    ck_assert_double_eq_tol(n.alpha[1], 100e-6, 1e-15);
    ck_assert_double_eq_tol(n.beta[1], 125e6, 1e-3);
    ck_assert_double_eq_tol(n.alpha[2], 0.0201, 1e-12);
    ck_assert_double_eq_tol(n.beta[2], 10e6, 1e-6);
}
END_TEST

Suite *net3_suite(void)
{
    Suite *s = suite_create("net3");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_parse_sites);
    tcase_add_test(tc, test_parse_sites_errors);
    tcase_add_test(tc, test_site_of);
    tcase_add_test(tc, test_round_hand);
    tcase_add_test(tc, test_allreduce_hand);
    tcase_add_test(tc, test_two_level_exact);
    tcase_add_test(tc, test_placement_sizes);
    tcase_add_test(tc, test_platform_sites);
    tcase_add_test(tc, test_platform_clusters);
    suite_add_tcase(s, tc);
    return s;
}
