/* check_topo_header.c: the topology file's header as the reader keeps it
 * (src/topo/cm_topo_header.c through cm_topo_seq_read_ex): the lines it
 * knows, the verbatim text up to the first edge, the epidemic keys and
 * the refusals that name file and line; and the one writer
 * (cm_topo_header_format), read back. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_topo_seq_file.h"

/* Reads text (written to a temporary file) with the header kept. */
static cm_status read_text(const char *text, cm_topo_header *h,
                           cm_topo_seq *s)
{
    char path[] = "/tmp/check_topo_header.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *fp = fdopen(fd, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    cm_topo_read_opts o = {.format = CM_FORMAT_AUTO, .base = CM_BASE_AUTO,
                           .header = h};
    cm_status st = cm_topo_seq_read_ex(s, path, &o);
    unlink(path);
    return st;
}

START_TEST(test_header_lines)
{
    cm_topo_header h;
    cm_topo_seq s;
    cm_topo_header_init(&h);
    cm_topo_seq_init(&s);
    ck_assert_int_eq(read_text("# topogen 2 n=4 kind=dcliques seed=1\n"
                               "# settings: -n 4 --kind dcliques\n"
                               "# labels: dataset=synthetic seed=7\n"
                               "# cliques: 0 0 1 1\n"
                               "# a note\n"
                               "0 1 0.5\n1 2 0.25\n2 3 0.5\n3 0 0.25\n"
                               "# after the edges: not header\n",
                               &h, &s), CM_OK);
    ck_assert_str_eq(h.kind, "dcliques");
    ck_assert_str_eq(h.settings, "-n 4 --kind dcliques");
    ck_assert_str_eq(h.labels, "dataset=synthetic seed=7");
    ck_assert_uint_eq(h.n_cliques, 4);
    ck_assert_uint_eq(h.cliques_line, 4);
    ck_assert(h.cliques[0] == 0 && h.cliques[1] == 0 && h.cliques[2] == 1 &&
              h.cliques[3] == 1);
    ck_assert_str_eq(h.notes, "topogen 2 n=4 kind=dcliques seed=1\na note");
    ck_assert_ptr_nonnull(strstr(h.text, "# cliques: 0 0 1 1\n# a note"));
    ck_assert_ptr_null(strstr(h.text, "after the edges"));
    ck_assert_int_eq(h.weighted, 1);
    ck_assert_int_eq(h.directed, 0);
    ck_assert_int_eq(h.epidemic, 0);
    /* a file without a header: all empty; the old content goes */
    ck_assert_int_eq(read_text("0 1\n1 2\n2 0\n", &h, &s), CM_OK);
    ck_assert(!h.kind[0] && !h.settings && !h.labels && !h.cliques &&
              !h.notes && !h.text && !h.weighted);
    cm_topo_seq_destroy(&s);
    cm_topo_header_destroy(&h);
    cm_topo_header_destroy(NULL);
}
END_TEST

START_TEST(test_header_epidemic)
{
    cm_topo_header h;
    cm_topo_seq s;
    cm_topo_header_init(&h);
    cm_topo_seq_init(&s);
    /* topogen's own spelling: d= and epidemic=local next to s=, local= */
    ck_assert_int_eq(read_text("# topogen 2 n=8 d=3 kind=epidemic directed=1 "
                               "s=3 local=1 epidemic=local\n", &h, &s),
                     CM_OK);
    ck_assert(h.epidemic && h.directed && h.epi_s == 3 && h.epi_local == 1);
    ck_assert_str_eq(h.kind, "epidemic");
    /* keys outside an epidemic header are no one's business */
    ck_assert_int_eq(read_text("# s=x local=7 s=2 s=3\n0 1\n1 2\n2 0\n", &h,
                               &s), CM_OK);
    static const char *bad[][2] = {
        {"# n=8 kind=epidemic s=3 local=2\n", ":1: bad local="},
        {"# n=8 kind=epidemic s=2\n# s=3\n", ":2: s= given twice"},
        {"# n=8 kind=epidemic s=x\n", ":1: bad s="},
        {"# n=8 kind=epidemic s=2 local=0 epidemic=local\n",
         ":1: local= (or epidemic=) given twice"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(read_text(bad[k][0], &h, &s), CM_EFORMAT);
        ck_assert_msg(strstr(cm_last_error(), bad[k][1]) != NULL, "%s: %s",
                      bad[k][0], cm_last_error());
        ck_assert(!h.text && s.period == 0); /* nothing half-read kept */
    }
    cm_topo_seq_destroy(&s);
    cm_topo_header_destroy(&h);
}
END_TEST

START_TEST(test_header_cliques_refused)
{
    cm_topo_header h;
    cm_topo_seq s;
    cm_topo_header_init(&h);
    cm_topo_seq_init(&s);
    static const char *bad[][2] = {
        {"# cliques: 0 x 1\n0 1\n1 2\n", ":1: malformed `# cliques:` line"},
        {"# cliques: 0 0\n0 1\n1 2\n", ":1: the `# cliques:` line has 2 ids "
                                       "for 3 nodes"},
        {"# cliques: 0 0 3\n0 1\n1 2\n", ":1: clique id 3 of node 2"},
        {"# cliques: 0 0 1\n# cliques: 0 0 1\n0 1\n1 2\n",
         ":2: a second `# cliques:` line (the first is line 1)"},
        {"# cliques: 0 -1 1\n0 1\n1 2\n", ":1: malformed"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(read_text(bad[k][0], &h, &s), CM_EFORMAT);
        ck_assert_msg(strstr(cm_last_error(), bad[k][1]) != NULL, "%s: %s",
                      bad[k][0], cm_last_error());
    }
    cm_topo_seq_destroy(&s);
    cm_topo_header_destroy(&h);
}
END_TEST

/* A sequence: the header is the comment lines before the first round. */
START_TEST(test_header_sequence)
{
    cm_topo_header h;
    cm_topo_seq s;
    cm_topo_header_init(&h);
    cm_topo_seq_init(&s);
    ck_assert_int_eq(read_text("# topogen 2 n=2 kind=one-peer-exp period=2\n"
                               "# settings: -n 2 --kind one-peer-exp\n"
                               "# round 0 n=2\n0 0 0.5\n0 1 0.5\n1 1 0.5\n"
                               "# round 1 n=2\n0 0 0.5\n0 1 0.5\n1 1 0.5\n",
                               &h, &s), CM_OK);
    ck_assert_uint_eq(s.period, 2);
    ck_assert_str_eq(h.kind, "one-peer-exp");
    ck_assert_str_eq(h.settings, "-n 2 --kind one-peer-exp");
    ck_assert_ptr_null(strstr(h.text, "# round"));
    ck_assert_int_eq(h.weighted, 1);
    cm_topo_seq_destroy(&s);
    cm_topo_header_destroy(&h);
}
END_TEST

/* The one writer (cm_topo_header_format): the exact lines, in order, and
 * read back by the one reader into the same fields. */
START_TEST(test_header_writer)
{
    const size_t cl[4] = {0, 0, 1, 1};
    cm_topo_header w;
    cm_topo_header_init(&w);
    w.generator = "topogen 2";
    w.n = 4;
    w.d = 2;
    strcpy(w.kind, "dcliques");
    w.tokens = "seed=1 version=2.1";
    w.settings = "-n 4 --kind dcliques";
    w.labels = "dataset=synthetic seed=7 file=c.txt";
    w.cliques = (size_t *)cl;
    w.n_cliques = 4;
    w.notes = "cliques=2 slem=0.5\n# fdla: as is\none `i j W_ij` line";
    char *text = cm_topo_header_format(&w);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "# topogen 2 n=4 d=2 kind=dcliques seed=1 "
                           "version=2.1\n"
                           "# settings: -n 4 --kind dcliques\n"
                           "# labels: dataset=synthetic seed=7 file=c.txt\n"
                           "# cliques: 0 0 1 1\n"
                           "# cliques=2 slem=0.5\n"
                           "# fdla: as is\n"
                           "# one `i j W_ij` line");
    char file[1024];
    snprintf(file, sizeof file, "%s\n0 1 0.5\n1 2 0.25\n2 3 0.5\n"
             "3 0 0.25\n", text);
    free(text);
    cm_topo_header r;
    cm_topo_seq s;
    cm_topo_header_init(&r);
    cm_topo_seq_init(&s);
    ck_assert_int_eq(read_text(file, &r, &s), CM_OK);
    ck_assert_str_eq(r.kind, w.kind);
    ck_assert_str_eq(r.settings, w.settings);
    ck_assert_str_eq(r.labels, w.labels);
    ck_assert_uint_eq(r.n_cliques, 4);
    for (size_t i = 0; i < 4; i++)
        ck_assert_uint_eq(r.cliques[i], cl[i]);
    ck_assert_str_eq(r.notes, "topogen 2 n=4 d=2 kind=dcliques seed=1 "
                              "version=2.1\ncliques=2 slem=0.5\n"
                              "fdla: as is\none `i j W_ij` line");
    /* epidemic and directed tokens, labels after the first note */
    cm_topo_header_init(&w);
    w.generator = "topogen 2";
    w.n = 8;
    w.d = 2;
    strcpy(w.kind, "epidemic");
    w.directed = w.epidemic = 1;
    w.epi_s = 2;
    w.epi_local = 1;
    w.notes = "first\nsecond";
    w.labels = "id";
    w.labels_at = 1;
    text = cm_topo_header_format(&w);
    ck_assert_str_eq(text, "# topogen 2 n=8 d=2 kind=epidemic directed=1 "
                           "s=2 local=1 epidemic=local\n# first\n"
                           "# labels: id\n# second");
    free(text);
    ck_assert_int_eq(read_text("# topogen 2 n=8 d=2 kind=epidemic "
                               "directed=1 s=2 local=1 epidemic=local\n",
                               &r, &s), CM_OK);
    ck_assert_int_eq(r.epidemic, 1);
    ck_assert_int_eq(r.directed, 1);
    ck_assert_uint_eq(r.epi_s, 2);
    ck_assert_int_eq(r.epi_local, 1);
    /* no generator: the bare line a directed file needs */
    cm_topo_header_init(&w);
    w.n = 5;
    text = cm_topo_header_format(&w);
    ck_assert_str_eq(text, "# directed=1 n=5");
    free(text);
    w.epidemic = 1;
    w.epi_s = 3;
    text = cm_topo_header_format(&w);
    ck_assert_str_eq(text, "# directed=1 n=5 kind=epidemic s=3 local=0");
    free(text);
    cm_topo_seq_destroy(&s);
    cm_topo_header_destroy(&r);
}
END_TEST

Suite *topo_header_suite(void)
{
    Suite *s = suite_create("topo_header");
    TCase *tc = tcase_create("topo_header");
    tcase_add_test(tc, test_header_lines);
    tcase_add_test(tc, test_header_epidemic);
    tcase_add_test(tc, test_header_cliques_refused);
    tcase_add_test(tc, test_header_sequence);
    tcase_add_test(tc, test_header_writer);
    suite_add_tcase(s, tc);
    return s;
}
