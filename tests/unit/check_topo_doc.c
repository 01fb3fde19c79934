/* check_topo_doc.c: the document readers (GraphML through libxml2, GML,
 * src/cm_topo_doc.h) and the readers' whole-file rules (size limit on the
 * file's size, byte-order mark, CR-only lines): the fixtures networkx and
 * python-igraph wrote (tests/fixtures/make_fixtures.py) read as the same
 * W as the edge list, through the reader both programs use
 * (cm_topo_seq_read_ex); and one test per finding of issue 24 (items 5, 6
 * and 12), each failing on the hand-written reader it replaced. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "check_files.h"

#define TMPL "/tmp/check_doc_XXXXXX" /* tmp_text's files */

/* Reads text as dpsgd-train and topogen eval do (cm_topo_seq_read_ex). */
static cm_status read_seq(cm_topo_seq *s, const char *text)
{
    const char *p = tmp_text(TMPL, text, strlen(text));
    cm_topo_read_opts o = {.format = CM_FORMAT_AUTO, .base = CM_BASE_AUTO};
    cm_status st = cm_topo_seq_read_ex(s, p, &o);
    unlink(p);
    return st;
}

/* Refused with a message holding frag. */
static void refused(const char *text, const char *frag)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_msg(read_seq(&s, text) != CM_OK, "read: %.60s", text);
    ck_assert_msg(strstr(cm_last_error(), frag), "'%s' lacks '%s'",
                  cm_last_error(), frag);
    ck_assert_uint_eq(s.period, 0);
}

/* Read; returns edges. */
static size_t edges_of(const char *text, size_t n)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_msg(read_seq(&s, text) == CM_OK, "%s", cm_last_error());
    ck_assert_uint_eq(s.period, 1);
    ck_assert_uint_eq(s.n, n);
    size_t m = s.round[0].m;
    cm_topo_seq_destroy(&s);
    return m;
}

static void same_w(const cm_topo *a, const cm_topo *b, const char *what)
{
    ck_assert_msg(a->n == b->n && a->m == b->m, "%s: n/m differ", what);
    ck_assert_msg(a->ew && b->ew, "%s: unweighted", what);
    for (size_t k = 0; k < a->m; k++) {
        ck_assert_msg(a->ei[k] == b->ei[k] && a->ej[k] == b->ej[k],
                      "%s: edge %zu differs", what, k);
        ck_assert_msg(memcmp(&a->ew[k], &b->ew[k], sizeof(double)) == 0,
                      "%s: W of edge %zu differs", what, k);
    }
    for (size_t i = 0; i < a->n; i++)
        ck_assert_msg(memcmp(&a->self[i], &b->self[i], sizeof(double)) == 0,
                      "%s: W_ii of node %zu differs", what, i);
}

START_TEST(test_fixtures_same_w)
{
    static const char *files[] = {
        "tests/fixtures/ring8-networkx.graphml",
        "tests/fixtures/ring8-igraph.graphml",
        "tests/fixtures/ring8-networkx.gml",
        "tests/fixtures/ring8-igraph.gml"};
    cm_topo_seq ref, s;
    cm_topo_seq_init(&ref);
    cm_topo_seq_init(&s);
    ck_assert_msg(cm_topo_seq_read(&ref, "tests/fixtures/ring8.txt") == CM_OK,
                  "%s", cm_last_error());
    ck_assert_uint_eq(ref.round[0].m, 10);
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        cm_topo_read_opts o = {.format = CM_FORMAT_AUTO,
                               .base = CM_BASE_AUTO};
        ck_assert_msg(cm_topo_seq_read_ex(&s, files[k], &o) == CM_OK,
                      "%s: %s", files[k], cm_last_error());
        ck_assert_int_eq(o.found, k < 2 ? CM_FORMAT_GRAPHML : CM_FORMAT_GML);
        same_w(&ref.round[0], &s.round[0], files[k]);
        cm_topo_seq_destroy(&s);
    }
    cm_topo_seq_destroy(&ref);
}
END_TEST

#define HEAD "<?xml version=\"1.0\"?>\n<graphml xmlns=" \
             "\"http://graphml.graphdrawing.org/xmlns\">\n"
#define KEY "<key id=\"w\" for=\"edge\" attr.name=\"weight\"/>\n"
#define G3 "<graph edgedefault=\"undirected\">\n<node id=\"0\"/>\n" \
           "<node id=\"1\"/>\n<node id=\"2\"/>\n"

/* Issue 24 item 5: a document cut between elements, or with an
 * unterminated comment, was read as a smaller graph. */
START_TEST(test_graphml_incomplete)
{
    refused(HEAD KEY G3 "<edge source=\"0\" target=\"1\"/>\n",
            "GraphML: XML error");
    refused(HEAD KEY G3 "<edge source=\"0\" target=\"1\"/>\n<!-- the rest\n"
            "<edge source=\"1\" target=\"2\"/>\n</graph></graphml>\n",
            "XML error");
    refused(HEAD KEY G3 "</graph></graphml>\n<graph>", ":9: GraphML: XML "
            "error");
    refused(HEAD G3 "<edge source=\"0\" target=\"1\"></graph></graphml>\n",
            "XML error");
    /* an entity declaration is never expanded: a DOCTYPE is refused */
    refused("<?xml version=\"1.0\"?>\n<!DOCTYPE graphml [<!ENTITY e "
            "\"x\">]>\n<graphml><graph><node id=\"&e;\"/></graph>"
            "</graphml>\n", "DOCTYPE");
}
END_TEST

/* Issue 20 / 24 item 12: CDATA, a '>' in an attribute value, text that
 * looks like an edge inside a value, and a weight key declared after the
 * edges with its <default>. */
START_TEST(test_graphml_semantics)
{
    ck_assert_uint_eq(edges_of(HEAD KEY G3 "<edge source=\"0\" target=\"1\">"
                               "<data key=\"x\">&lt;edge source=\"1\" "
                               "target=\"2\"/&gt;</data></edge>\n"
                               "<data key=\"d\"><![CDATA[<edge source=\"0\" "
                               "target=\"2\"/>]]></data>\n"
                               "<node id=\"3\" note=\"a>b &#38; "
                               "&lt;edge source='3' target='0'/>\"/>\n"
                               "<edge source=\"3\" target=\"1\"/>\n"
                               "</graph></graphml>\n", 4),
                     2);
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_msg(read_seq(&s, HEAD G3 "<edge source=\"0\" target=\"1\">"
                           "<data key=\"w\">0.25</data></edge>\n"
                           "<edge source=\"1\" target=\"2\"/>\n</graph>\n"
                           "<key id=\"w\" for=\"edge\" attr.name=\"weight\">"
                           "<default>0.5</default></key>\n</graphml>\n") ==
                      CM_OK,
                  "%s", cm_last_error());
    ck_assert_ptr_nonnull(s.round[0].ew);
    ck_assert_double_eq(s.round[0].ew[0], 0.25);
    ck_assert_double_eq(s.round[0].ew[1], 0.5);
    ck_assert_double_eq(s.round[0].self[1], 0.25);
    cm_topo_seq_destroy(&s);
    /* a directed document is read when every arc has its reverse */
    ck_assert_uint_eq(edges_of(HEAD "<graph edgedefault=\"directed\">"
                               "<node id=\"0\"/><node id=\"1\"/>"
                               "<edge source=\"0\" target=\"1\"/>"
                               "<edge source=\"1\" target=\"0\"/>"
                               "</graph></graphml>", 2),
                     1);
    refused(HEAD "<graph edgedefault=\"directed\">\n<node id=\"0\"/><node "
            "id=\"1\"/>\n<edge source=\"0\" target=\"1\"/>\n</graph>"
            "</graphml>", ":5: directed edge 0 -> 1 has no reverse");
    refused(HEAD "<graph><node id=\"n1000000\"/></graph></graphml>",
            "beyond the limit (ids run from 0 to 999999)");
}
END_TEST

/* Issue 24 item 12: GML truncation, an extra ']', ids beyond the limit. */
START_TEST(test_gml_strict)
{
    static const char *ok = "graph [\n node [ id 0 ]\n node [ id 1 ]\n"
                            " edge [ source 0 target 1 ]\n]\n";
    ck_assert_uint_eq(edges_of(ok, 2), 1);
    refused("graph [\n node [ id 0 ]\n node [ id 1 ]\n edge [ source 0 "
            "target 1 ]\n]\n]\n", ":6: GML: ']' without a matching '['");
    refused("graph [\n node [ id 0 ]\n node [ id 1 ]\n edge [ source 0 "
            "target 1", "GML: unterminated edge");
    refused("graph [\n node [ id 0 label \"a ]\n]\n", "unterminated string");
    refused("graph [\n node [ id 1000000 ]\n]\n",
            ":2: GML: node id 1000000 is beyond the limit");
    refused("graph [\n node [ id 0 ]\n node [ id 1 ]\n edge [ source 0 "
            "target 1000000 ]\n]\n", "target 1000000 is beyond the limit");
    refused("graph [\n node [ id 0 ]\n node [ id 1 ]\n edge [ source 0 "
            "target 1 ]\n]\ngraph [ node [ id 0 ] ]\n", "a second graph");
    refused("graph [\n node [ id 0 ]\n edge [ source 0 target 0 weight ]\n]\n",
            "key without a value");
}
END_TEST

/* Issue 24 item 12: a UTF-8 byte-order mark is read; CR-only line
 * endings are named. */
START_TEST(test_bom_and_cr)
{
    ck_assert_uint_eq(edges_of("\xEF\xBB\xBF" "0 1\n1 2\n", 3), 2);
    ck_assert_uint_eq(edges_of("\xEF\xBB\xBF" HEAD G3 "<edge source=\"0\" "
                               "target=\"1\"/></graph></graphml>\n", 3),
                      1);
    ck_assert_uint_eq(edges_of("\xEF\xBB\xBF" "graph [ node [ id 0 ] node "
                               "[ id 1 ] edge [ source 0 target 1 ] ]\n", 2),
                      1);
    ck_assert_uint_eq(edges_of("\xEF\xBB\xBF" "# period=1\n# round 0\n"
                               "0 1 0.5\n", 2),
                      1);
    refused("0 1 0.5\r1 2 0.5\r2 0 0.5\r", ":1: carriage return inside a "
            "line: CR-only line endings");
    refused("\xEF\xBB" "0 1\n", "non-ASCII byte 0xef");
}
END_TEST

/* Issue 24 item 6: the size limit is checked on the file's size, before
 * a byte is read (a sparse file: no disk used, no time spent). */
START_TEST(test_size_limit_before_reading)
{
    static const char *heads[] = {"0 1\n", HEAD, "graph [\n"};
    for (size_t k = 0; k < 3; k++) {
        const char *p = tmp_text(TMPL, heads[k], strlen(heads[k]));
        ck_assert_int_eq(truncate(p, (off_t)CM_TOPO_MAX_BYTES + 1), 0);
        cm_topo_seq s;
        cm_topo_seq_init(&s);
        ck_assert_int_eq(cm_topo_seq_read(&s, p), CM_EFORMAT);
        ck_assert_msg(strstr(cm_last_error(), "(2 GiB) limit of topology "
                             "files"), "%s", cm_last_error());
        cm_topo t;
        cm_topo_init(&t);
        ck_assert_int_eq(cm_topo_read(&t, p), CM_EFORMAT);
        ck_assert_int_eq(cm_topo_file_check(p), CM_EFORMAT);
        ck_assert_msg(strstr(cm_last_error(), "2147483648 bytes"), "%s",
                      cm_last_error());
        unlink(p);
    }
    ck_assert_int_eq(cm_topo_file_check("/tmp"), CM_EIO);
    ck_assert_msg(strstr(cm_last_error(), "is a directory"), "%s",
                  cm_last_error());
}
END_TEST

Suite *topo_doc_suite(void)
{
    Suite *s = suite_create("topo_doc");
    TCase *tc = tcase_create("documents");
    tcase_add_test(tc, test_fixtures_same_w);
    tcase_add_test(tc, test_graphml_incomplete);
    tcase_add_test(tc, test_graphml_semantics);
    tcase_add_test(tc, test_gml_strict);
    tcase_add_test(tc, test_bom_and_cr);
    tcase_add_test(tc, test_size_limit_before_reading);
    suite_add_tcase(s, tc);
    return s;
}
