/* check_topofile.c: the shared topology module (src/cm_topo.c,
 * src/cm_mixing.c): reading, writing, validation, weight rules and the
 * dense spectra, against closed forms and one test per bad-input class. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_topo.h"

/* Writes text to a fresh temporary file; returns its path (static). */
static const char *tmpfile_with(const char *text, size_t len)
{
    static char path[64];
    strcpy(path, "/tmp/check_topo_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq((int)write(fd, text, len), (int)len);
    close(fd);
    return path;
}

static cm_status read_text(cm_topo *t, const char *text)
{
    const char *p = tmpfile_with(text, strlen(text));
    cm_status st = cm_topo_load(t, p);
    unlink(p);
    return st;
}

static void ring(cm_topo *t, size_t n)
{
    size_t ei[64], ej[64];
    for (size_t i = 0; i < n; i++) {
        ei[i] = i;
        ej[i] = (i + 1) % n;
    }
    ck_assert_int_eq(cm_topo_from_edges(t, n, n, ei, ej), CM_OK);
}

static void complete(cm_topo *t, size_t n)
{
    size_t ei[512], ej[512], m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            ei[m] = i;
            ej[m++] = j;
        }
    ck_assert_int_eq(cm_topo_from_edges(t, n, m, ei, ej), CM_OK);
}

static void hypercube(cm_topo *t, size_t k)
{
    size_t n = (size_t)1 << k, ei[512], ej[512], m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < k; b++)
            if (!(i & ((size_t)1 << b))) {
                ei[m] = i;
                ej[m++] = i | ((size_t)1 << b);
            }
    ck_assert_int_eq(cm_topo_from_edges(t, n, m, ei, ej), CM_OK);
}

static void petersen(cm_topo *t)
{
    size_t ei[15], ej[15], m = 0;
    for (size_t i = 0; i < 5; i++) {
        ei[m] = i; ej[m++] = (i + 1) % 5;           /* outer cycle */
        ei[m] = i; ej[m++] = i + 5;                 /* spokes */
        ei[m] = 5 + i; ej[m++] = 5 + (i + 2) % 5;   /* inner pentagram */
    }
    ck_assert_int_eq(cm_topo_from_edges(t, 10, m, ei, ej), CM_OK);
}

START_TEST(test_spectra_closed_forms)
{
    cm_topo t;
    double l2, ln;
    cm_topo_init(&t);
    for (size_t n = 3; n <= 12; n++) {
        ring(&t, n);
        ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
        ck_assert_double_eq_tol(l2, 2 - 2 * cos(2 * M_PI / n), 1e-9);
        double want = n % 2 ? 2 - 2 * cos(M_PI * (n - 1) / n) : 4.0;
        ck_assert_double_eq_tol(ln, want, 1e-9);
    }
    for (size_t n = 2; n <= 20; n += 3) {
        complete(&t, n);
        ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
        ck_assert_double_eq_tol(l2, (double)n, 1e-9);
        ck_assert_double_eq_tol(ln, (double)n, 1e-9);
    }
    for (size_t k = 1; k <= 6; k++) {
        hypercube(&t, k);
        ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
        ck_assert_double_eq_tol(l2, 2.0, 1e-9);
        ck_assert_double_eq_tol(ln, 2.0 * k, 1e-9);
    }
    petersen(&t);
    ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
    ck_assert_double_eq_tol(l2, 2.0, 1e-9);
    ck_assert_double_eq_tol(ln, 5.0, 1e-9);
    /* Laplacian weights on Petersen: SLEM = (5 - 2)/(5 + 2) */
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    double slem;
    ck_assert_int_eq(cm_topo_slem(&t, &slem), CM_OK);
    ck_assert_double_eq_tol(slem, 3.0 / 7.0, 1e-9);
    /* validation hands back the same SLEM; none for an unweighted graph */
    double vs;
    ck_assert_int_eq(cm_topo_validate_slem(&t, "p", &vs), CM_OK);
    ck_assert(vs == slem);
    petersen(&t);
    ck_assert_int_eq(cm_topo_validate_slem(&t, "p", &vs), CM_OK);
    ck_assert(vs == -1.0);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_weight_rules_stochastic)
{
    cm_topo t;
    cm_topo_init(&t);
    for (int rule = 0; rule < 3; rule++) {
        for (int g = 0; g < 3; g++) {
            if (g == 0) ring(&t, 9);
            if (g == 1) petersen(&t);
            if (g == 2) { /* a star with a tail: degrees differ */
                size_t ei[] = {0, 0, 0, 0, 4}, ej[] = {1, 2, 3, 4, 5};
                ck_assert_int_eq(cm_topo_from_edges(&t, 6, 5, ei, ej), CM_OK);
            }
            ck_assert_int_eq(cm_topo_set_weights(&t, (cm_weight_rule)rule),
                             CM_OK);
            ck_assert_int_eq(cm_topo_validate(&t, "w"), CM_OK);
            for (size_t i = 0; i < t.n; i++) {
                double s = t.self[i];
                for (size_t p = t.off[i]; p < t.off[i + 1]; p++) {
                    s += t.adj_w[p];
                    /* symmetry: find W_ji */
                    size_t j = t.adj[p];
                    int found = 0;
                    for (size_t q = t.off[j]; q < t.off[j + 1]; q++)
                        if (t.adj[q] == i) {
                            ck_assert_double_eq(t.adj_w[q], t.adj_w[p]);
                            found = 1;
                        }
                    ck_assert(found);
                }
                ck_assert_double_eq_tol(s, 1.0, 1e-12);
            }
        }
    }
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_round_trip)
{
    cm_topo t, u;
    cm_topo_init(&t);
    cm_topo_init(&u);
    petersen(&t);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    char path[] = "/tmp/check_rt_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    ck_assert_int_eq(cm_topo_save(&t, path, "topogen 1 n=10\nhello"), CM_OK);
    ck_assert_int_eq(cm_topo_load(&u, path), CM_OK);
    ck_assert_uint_eq(u.n, t.n);
    ck_assert_uint_eq(u.m, t.m);
    for (size_t k = 0; k < t.m; k++) {
        ck_assert_uint_eq(u.ei[k], t.ei[k]);
        ck_assert_uint_eq(u.ej[k], t.ej[k]);
        ck_assert(u.ew[k] == t.ew[k]); /* %.17g is exact */
    }
    for (size_t i = 0; i < t.n; i++)
        ck_assert(u.self[i] == t.self[i]);
    /* unweighted round trip */
    ring(&t, 7);
    ck_assert_int_eq(cm_topo_save(&t, path, NULL), CM_OK);
    ck_assert_int_eq(cm_topo_load(&u, path), CM_OK);
    ck_assert_ptr_null(u.self);
    ck_assert_uint_eq(u.m, 7);
    unlink(path);
    cm_topo_destroy(&t);
    cm_topo_destroy(&u);
}
END_TEST

START_TEST(test_plain_and_networkx_lists)
{
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(read_text(&t, "0 1\n1 2\n2 0\n"), CM_OK);
    ck_assert_uint_eq(t.n, 3);
    ck_assert_ptr_null(t.self);
    ck_assert_int_eq(read_text(&t, "0 1 {}\n1 2 {}\r\n"), CM_OK);
    ck_assert_uint_eq(t.m, 2);
    /* both directions with identical weights */
    ck_assert_int_eq(read_text(&t, "0 0 0.5\n1 1 0.5\n0 1 0.5\n1 0 0.5\n"),
                     CM_OK);
    ck_assert_uint_eq(t.m, 1);
    ck_assert_int_eq(read_text(&t, "# n=3\n0 1 {'weight': 0.5}\n"
                                   "1 2 {'weight': 0.5}\n0 0 {'weight': 0.5}\n"
                                   "1 1 {'weight': 0}\n2 2 {'weight': 0.5}\n"),
                     CM_OK);
    /* n= declares isolated trailing nodes: disconnected */
    ck_assert_int_eq(read_text(&t, "# n=4\n0 1\n1 2\n"), CM_ETOPO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "node 3 has no edges"));
    /* negative weights: accepted while W is symmetric, W 1 = 1, SLEM < 1 */
    ck_assert_int_eq(read_text(&t, "0 0 0.45\n1 1 0.45\n2 2 0.1\n3 3 0.1\n"
                                   "0 1 -0.05\n0 2 0.3\n0 3 0.3\n1 2 0.3\n"
                                   "1 3 0.3\n2 3 0.3\n"), CM_OK);
    ck_assert(t.ew[0] == -0.05);
    /* a single node */
    ck_assert_int_eq(read_text(&t, "# n=1\n0 0 1\n"), CM_OK);
    ck_assert_uint_eq(t.n, 1);
    cm_topo_destroy(&t);
}
END_TEST

/* One bad-input class per row: the text, the status, and a fragment the
 * message must contain (":LINE:" where a line is at fault). */
static const struct {
    const char *text;
    cm_status st;
    const char *frag;
} bad[] = {
    {"0 x\n", CM_EFORMAT, ":1: node id is not"},
    {"0 1\n2\n", CM_EFORMAT, ":2: missing field"},
    {"0 1 0.5 7\n", CM_EFORMAT, ":1: too many fields"},
    {"0 -1\n", CM_EFORMAT, ":1: negative node id"},
    {"0 99999999999\n", CM_EFORMAT, ":1: node id too large"},
    {"# n=3\n0 1\n1 5\n", CM_EFORMAT, ":3: node id 5 is beyond"},
    {"0 1 nan\n", CM_EFORMAT, ":1: weight is not finite"},
    {"0 1 inf\n", CM_EFORMAT, ":1: weight is not finite"},
    {"0 1 0.5x\n", CM_EFORMAT, ":1: weight is not a number"},
    {"0 0 0.5\n1 1 0.5\n0 1 0.5\n1 0 0.4\n", CM_EFORMAT, "symmetric"},
    {"0 0 0.5\n0 0 0.4\n0 1 0.5\n1 1 0.5\n", CM_EFORMAT, "self weight"},
    {"0 1 0.5\n1 2\n", CM_EFORMAT, ":2: weight missing"},
    {"0 1\n1 2 0.5\n", CM_EFORMAT, ":2: weight given"},
    {"0 0\n0 1\n", CM_EFORMAT, ":1: self-loop"},
    {"0 0 0.5\n1 1 0.4\n0 1 0.5\n", CM_ETOPO, "row 1 of W sums to"},
    {"0 1 0.7\n", CM_ETOPO, "row 0 of W sums to 0.7"},
    {"0 1 1\n", CM_ETOPO, "does not mix"},
    {"0 1\n2 3\n", CM_ETOPO, "disconnected"},
    {"0 0 0\n1 1 0\n0 1 1\n", CM_ETOPO, "does not mix"},
    {"0 0 1.2\n1 1 1.2\n2 2 1.2\n0 1 -0.1\n0 2 -0.1\n1 2 -0.1\n", CM_ETOPO,
     "1.3 (must be below 1); W has negative edge weights"},
    {"", CM_EFORMAT, "no edges found"},
    {"# only a comment\n\n", CM_EFORMAT, "no edges found"},
    {"# n=abc\n0 1\n", CM_EFORMAT, ":1: bad node count"},
    {"# n=3\n# n=4\n0 1\n", CM_EFORMAT, ":2: n=... contradicts"},
    {"0 1\n\x01\x02\xff\n", CM_EFORMAT, ":2: unexpected control"},
    {"0 1 {'colour': 3}\n", CM_EFORMAT, ":1: only a 'weight'"},
};

START_TEST(test_bad_input)
{
    cm_topo t;
    cm_topo_init(&t);
    cm_status st = read_text(&t, bad[_i].text);
    ck_assert_msg(st == bad[_i].st, "case %d: status %d, want %d (%s)", _i,
                  (int)st, (int)bad[_i].st, cm_last_error());
    ck_assert_msg(strstr(cm_last_error(), bad[_i].frag) != NULL,
                  "case %d: message '%s' lacks '%s'", _i, cm_last_error(),
                  bad[_i].frag);
    ck_assert_msg(strstr(cm_last_error(), "/tmp/check_topo_") != NULL,
                  "case %d: message '%s' does not name the file", _i,
                  cm_last_error());
    ck_assert_uint_eq(t.n, 0); /* nothing half-built is left */
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_binary_and_missing_files)
{
    cm_topo t;
    cm_topo_init(&t);
    const char junk[] = "\x7f" "ELF\x02\x01\x00\x00junk";
    const char *p = tmpfile_with(junk, sizeof junk - 1);
    ck_assert_int_eq(cm_topo_load(&t, p), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "binary"));
    unlink(p);
    ck_assert_int_eq(cm_topo_load(&t, "/nonexistent/g.txt"), CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "/nonexistent/g.txt"));
    /* an unwritable output path leaves nothing behind */
    ring(&t, 5);
    ck_assert_int_eq(cm_topo_save(&t, "/nonexistent/out.txt", NULL), CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "/nonexistent/out.txt"));
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_from_edges_rejects)
{
    cm_topo t;
    cm_topo_init(&t);
    size_t a[] = {0, 1}, b[] = {1, 0};
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 2, a, b), CM_EINVAL);
    size_t c[] = {0}, d[] = {0};
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, c, d), CM_EINVAL);
    size_t e[] = {0}, f[] = {2};
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, e, f), CM_EINVAL);
    /* two nodes, one edge: the smallest connected case */
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, a, a + 1), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    double slem;
    ck_assert_int_eq(cm_topo_slem(&t, &slem), CM_OK);
    ck_assert_double_eq_tol(slem, 0.0, 1e-12); /* alpha = 1/2: exact average */
    cm_topo_destroy(&t);
}
END_TEST

Suite *topofile_suite(void)
{
    Suite *s = suite_create("topofile");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_spectra_closed_forms);
    tcase_add_test(tc, test_weight_rules_stochastic);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_plain_and_networkx_lists);
    tcase_add_loop_test(tc, test_bad_input, 0, sizeof bad / sizeof bad[0]);
    tcase_add_test(tc, test_binary_and_missing_files);
    tcase_add_test(tc, test_from_edges_rejects);
    suite_add_tcase(s, tc);
    return s;
}
