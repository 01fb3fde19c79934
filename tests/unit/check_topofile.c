/* check_topofile.c: the topology file module (src/cm_topo*.c): writing
 * and reading back bit for bit, implied self weights, the formats other
 * tools write (networkx edge lists, GraphML, GML, 1-based lists), the
 * limits, and one test per bad-input class. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_files.h"
#include "check_graphs.h"

#include "cm_mixing.h"

#define TMPL "/tmp/check_topo_XXXXXX" /* tmp_text's files */

static cm_status read_text(cm_topo *t, const char *text)
{
    const char *p = tmp_text(TMPL, text, strlen(text));
    cm_status st = load_topo(t, p);
    unlink(p);
    return st;
}



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
    ck_assert_int_eq(load_topo(&u, path), CM_OK);
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
    ck_assert_int_eq(load_topo(&u, path), CM_OK);
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
    {"0 0 0.2\n0 1 0.7\n", CM_ETOPO, "row 0 of W sums to 0.9"},
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
    const char *p = tmp_text(TMPL, junk, sizeof junk - 1);
    ck_assert_int_eq(load_topo(&t, p), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "binary"));
    unlink(p);
    ck_assert_int_eq(load_topo(&t, "/nonexistent/g.txt"), CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "/nonexistent/g.txt"));
    /* an unwritable output path leaves nothing behind */
    ring(&t, 5);
    ck_assert_int_eq(cm_topo_save(&t, "/nonexistent/out.txt", NULL), CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "/nonexistent/out.txt"));
    cm_topo_destroy(&t);
}
END_TEST



/* Reads text with options; returns the status. */
static cm_status read_opts(cm_topo *t, const char *text, cm_topo_read_opts *o)
{
    const char *p = tmp_text(TMPL, text, strlen(text));
    cm_status st = cm_topo_read_ex(t, p, o);
    unlink(p);
    return st;
}

/* The default file has no self lines; the reader recomputes W_ii bit for
 * bit, and files with explicit `i i w` lines still read. */
START_TEST(test_implied_self_weights)
{
    static const cm_weight_rule rules[] = {CM_WEIGHTS_LAPLACIAN,
                                           CM_WEIGHTS_MH, CM_WEIGHTS_MAXDEG};
    char path[] = "/tmp/check_self_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    for (size_t r = 0; r < 3; r++) {
        cm_topo t, u;
        cm_topo_init(&t);
        cm_topo_init(&u);
        petersen(&t);
        ck_assert_int_eq(cm_topo_set_weights(&t, rules[r]), CM_OK);
        ck_assert_int_eq(cm_topo_save(&t, path, "n=10"), CM_OK);
        FILE *fp = fopen(path, "r");
        char line[256];
        size_t lines = 0;
        while (fgets(line, sizeof line, fp)) {
            size_t i, j;
            if (line[0] == '#')
                continue;
            ck_assert_int_eq(sscanf(line, "%zu %zu", &i, &j), 2);
            ck_assert_msg(i != j, "self line written: %s", line);
            lines++;
        }
        fclose(fp);
        ck_assert_uint_eq(lines, 15);
        cm_topo_read_opts o = {0};
        ck_assert_int_eq(cm_topo_read_ex(&u, path, &o), CM_OK);
        ck_assert_uint_eq(o.self_lines, 0);
        for (size_t i = 0; i < t.n; i++)
            ck_assert(u.self[i] == t.self[i]); /* bit for bit */
        ck_assert_int_eq(cm_topo_validate(&u, path), CM_OK);
        cm_topo_destroy(&t);
        cm_topo_destroy(&u);
    }
    unlink(path);
    /* a W_ii that is not exactly 1 - sum (read from an older file) is
     * written as a self line, so the file stays exact */
    {
        cm_topo a, b;
        cm_topo_init(&a);
        cm_topo_init(&b);
        const char *text = "0 0 0.3000000000000001\n0 1 0.7\n";
        const char *p = tmp_text(TMPL, text, strlen(text));
        ck_assert_int_eq(cm_topo_read(&a, p), CM_OK);
        ck_assert_int_eq(cm_topo_save(&a, p, NULL), CM_OK);
        cm_topo_read_opts o2 = {0};
        ck_assert_int_eq(cm_topo_read_ex(&b, p, &o2), CM_OK);
        ck_assert_uint_eq(o2.self_lines, 1); /* node 0 only */
        ck_assert(b.self[0] == a.self[0] && b.self[1] == a.self[1]);
        unlink(p);
        cm_topo_destroy(&a);
        cm_topo_destroy(&b);
    }
    /* explicit self lines, some nodes only: the rest are implied */
    cm_topo t;
    cm_topo_init(&t);
    cm_topo_read_opts o = {0};
    ck_assert_int_eq(read_opts(&t, "0 0 0.25\n0 1 0.75\n1 2 0.125\n", &o),
                     CM_OK);
    ck_assert_uint_eq(o.self_lines, 1);
    ck_assert_double_eq(t.self[0], 0.25);
    ck_assert_double_eq(t.self[1], 1.0 - (0.75 + 0.125));
    ck_assert_double_eq(t.self[2], 0.875);
    cm_topo_destroy(&t);
}
END_TEST

/* GraphML and GML as igraph and networkx write them; weights, numbering. */
START_TEST(test_graphml_and_gml)
{
    static const char *texts[] = {
        /* igraph-style GraphML: ids n0.., weight key declared first */
        "<?xml version=\"1.0\"?>\n<graphml>\n"
        "<key id=\"w\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>\n"
        "<graph id=\"G\" edgedefault=\"undirected\">\n"
        "<node id=\"n0\"/><node id=\"n1\"/>\n<node id=\"n2\"></node>\n"
        "<edge source=\"n0\" target=\"n1\"><data key=\"w\">0.25</data></edge>\n"
        "<edge source=\"n2\" target=\"n1\">\n<data key=\"w\">0.5</data>\n</edge>\n"
        "</graph></graphml>\n",
        /* networkx-style GraphML: plain ids, nodes out of order, key d0 */
        "<graphml><key attr.name=\"weight\" attr.type=\"double\" for=\"edge\" "
        "id=\"d0\" />\n<graph edgedefault=\"undirected\">"
        "<node id=\"2\" /><node id=\"0\" /><node id=\"1\" />\n"
        "<edge source=\"0\" target=\"1\"><data key=\"d0\">0.25</data></edge>"
        "<edge source=\"1\" target=\"2\"><data key=\"d0\">0.5</data></edge>"
        "</graph></graphml>",
        /* GML, igraph style */
        "Creator \"igraph\"\nVersion 1\ngraph\n[\n  directed 0\n"
        "  node [ id 0 ]\n  node [ id 1 ]\n  node [ id 2 ]\n"
        "  edge [ source 1 target 0 weight 0.25 ]\n"
        "  edge [ source 1 target 2 weight 0.5 ]\n]\n",
        /* GML, networkx style: ids 0.. with labels naming the nodes 1.. */
        "graph [\n  node [\n    id 0\n    label \"2\"\n  ]\n"
        "  node [ id 1 label \"1\" ]\n  node [ id 2 label \"3\" ]\n"
        "  edge [ source 1 target 0 weight 0.25 ]\n"
        "  edge [ source 0 target 2 weight 0.5 ]\n]\n",
    };
    static const cm_topo_format want[] = {CM_FORMAT_GRAPHML,
                                          CM_FORMAT_GRAPHML, CM_FORMAT_GML,
                                          CM_FORMAT_GML};
    for (size_t k = 0; k < 4; k++) {
        cm_topo t;
        cm_topo_init(&t);
        cm_topo_read_opts o = {0};
        ck_assert_msg(read_opts(&t, texts[k], &o) == CM_OK, "text %zu: %s", k,
                      cm_last_error());
        ck_assert_int_eq(o.found, want[k]);
        ck_assert_uint_eq(t.n, 3);
        ck_assert_uint_eq(t.m, 2);
        ck_assert_uint_eq(t.ei[0], 0);
        ck_assert_uint_eq(t.ej[0], 1);
        ck_assert_uint_eq(t.ei[1], 1);
        ck_assert_uint_eq(t.ej[1], 2);
        ck_assert_double_eq(t.ew[0], 0.25);
        ck_assert_double_eq(t.ew[1], 0.5);
        ck_assert_double_eq(t.self[1], 0.25);
        cm_topo_destroy(&t);
    }
    /* unweighted GraphML; bad inputs name the line */
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(read_opts(&t, "<graphml><graph><node id=\"a\"/>"
                                   "<node id=\"b\"/><edge source=\"a\" "
                                   "target=\"b\"/></graph></graphml>", NULL),
                     CM_OK);
    ck_assert_ptr_null(t.self);
    ck_assert_uint_eq(t.m, 1);
    static const struct { const char *text, *frag; } bad[] = {
        {"<graphml>\n<graph>\n<node id=\"a\"/>\n<edge source=\"a\" "
         "target=\"z\"/></graph></graphml>", ":4: edge names an undeclared"},
        {"<graphml><key id=\"w\" for=\"edge\" attr.name=\"weight\"/>\n"
         "<graph><node id=\"0\"/><node id=\"1\"/>\n<edge source=\"0\" "
         "target=\"1\"><data key=\"w\">heavy</data></edge></graph>"
         "</graphml>", ":3: GraphML: weight is not"},
        {"<graphml><graph></graph></graphml>", "no nodes"},
        {"graph [\n node [ id 0 ]\n node [ id 0 ]\n]\n", "share the label 0"},
        {"graph [\n node [ id 0 ]\n edge [ source 0 target 0 weight x ]\n]",
         ":3: GML: weight is not"},
        {"graph [\n node [ id 0 ]\n", ":3: GML: unterminated graph"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_msg(read_opts(&t, bad[k].text, NULL) == CM_EFORMAT,
                      "bad %zu read", k);
        ck_assert_msg(strstr(cm_last_error(), bad[k].frag), "bad %zu: %s", k,
                      cm_last_error());
        ck_assert_uint_eq(t.n, 0);
    }
    cm_topo_destroy(&t);
}
END_TEST

/* Numbering: 1-based lists detected or forced; the node limit and the
 * header limit agree, so the largest file round-trips; `# n=1` reads. */
START_TEST(test_numbering_and_limits)
{
    cm_topo t;
    cm_topo_init(&t);
    cm_topo_read_opts o = {.format = CM_FORMAT_AUTO, .base = CM_BASE_AUTO};
    ck_assert_int_eq(read_opts(&t, "1 2\n2 3\n3 1\n", &o), CM_OK);
    ck_assert_int_eq(o.one_based, 1);
    ck_assert_uint_eq(t.n, 3);
    o.base = CM_BASE_0;
    ck_assert_int_eq(read_opts(&t, "1 2\n2 3\n3 1\n", &o), CM_OK);
    ck_assert_int_eq(o.one_based, 0);
    ck_assert_uint_eq(t.n, 4);
    o.base = CM_BASE_1;
    ck_assert_int_eq(read_opts(&t, "0 1\n", &o), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), ":1: node id 0 in a "
                                                  "1-based"));
    o.base = CM_BASE_AUTO; /* n= given: never shifted */
    ck_assert_int_eq(read_opts(&t, "# n=4\n1 2\n2 3\n3 1\n", &o), CM_OK);
    ck_assert_int_eq(o.one_based, 0);
    /* a legal one-node file (no edges: no sort of an empty list) */
    ck_assert_int_eq(read_text(&t, "# n=1\n"), CM_OK);
    ck_assert_uint_eq(t.n, 1);
    ck_assert_uint_eq(t.m, 0);
    /* the largest n: id 999999 and n=1000000 both accepted, and a file
     * with that n is written and read back */
    ck_assert_int_eq(read_opts(&t, "# n=1000000\n0 999999\n", NULL), CM_OK);
    ck_assert_uint_eq(t.n, CM_TOPO_MAX_NODES);
    char path[] = "/tmp/check_big_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    ck_assert_int_eq(cm_topo_save(&t, path, "n=1000000"), CM_OK);
    cm_topo u;
    cm_topo_init(&u);
    ck_assert_int_eq(cm_topo_read(&u, path), CM_OK);
    ck_assert_uint_eq(u.n, t.n);
    ck_assert_uint_eq(u.m, 1);
    unlink(path);
    ck_assert_int_eq(read_opts(&t, "0 999999\n", NULL), CM_OK);
    ck_assert_uint_eq(t.n, CM_TOPO_MAX_NODES);
    ck_assert_int_eq(read_opts(&t, "# n=1000001\n0 1\n", NULL), CM_EFORMAT);
    ck_assert_int_eq(read_opts(&t, "0 1000000\n", NULL), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "0 to 999999"));
    cm_topo_destroy(&u);
    cm_topo_destroy(&t);
}
END_TEST


Suite *topofile_suite(void)
{
    Suite *s = suite_create("topofile");
    TCase *tc = tcase_create("write_read_round_trip");
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_implied_self_weights);
    suite_add_tcase(s, tc);
    tc = tcase_create("other_tools_formats_read");
    tcase_add_test(tc, test_plain_and_networkx_lists);
    tcase_add_test(tc, test_graphml_and_gml);
    tcase_add_test(tc, test_numbering_and_limits);
    suite_add_tcase(s, tc);
    tc = tcase_create("bad_input_named");
    tcase_add_loop_test(tc, test_bad_input, 0, sizeof bad / sizeof bad[0]);
    tcase_add_test(tc, test_binary_and_missing_files);
    suite_add_tcase(s, tc);
    return s;
}
