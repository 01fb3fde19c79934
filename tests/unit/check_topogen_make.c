/* check_topogen_make.c: topogen's make layer (topo/make/): the kind table
 * and the objective rows, the settings schema's setters and whole-config
 * checks (the messages the command line prints), and a made topology's
 * header through the one header writer. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "cm_status.h"
#include "topogen_config.h"
#include "topogen_make.h"
#include "topogen_settings.h"

/* Every --kind name finds its row and the row names itself; the directed
 * learned row is reached through --directed only. */
START_TEST(test_kind_table)
{
    static const char *const names[] = {
        "learned", "rrl", "ring", "torus", "hypercube", "exponential-sym",
        "exponential", "random", "complete", "one-peer-exp", "base", "perm",
        "exp-directed", "epidemic", "stl-fw", "dcliques"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        const topogen_kind *row = topogen_kind_find(names[k]);
        ck_assert_ptr_nonnull(row);
        ck_assert_str_eq(row->name, names[k]);
        ck_assert_ptr_nonnull(row->check);
        ck_assert_ptr_nonnull(row->make);
        ck_assert_int_eq(row->hidden, 0);
        ck_assert_int_eq(row->old_name, strcmp(names[k], "exponential") == 0);
    }
    ck_assert_ptr_null(topogen_kind_find("nope"));
    const topogen_kind *dl = topogen_kind_of(TOPOGEN_FAM_DIRECTED,
                                             TOPOGEN_D_LEARNED);
    ck_assert_int_eq(dl->hidden, 1);
    ck_assert_str_eq(dl->name, "learned");
    ck_assert_int_eq(topogen_kind_find("learned")->family,
                     TOPOGEN_FAM_LEARNED);
    ck_assert_int_eq(topogen_kind_find("base")->family, TOPOGEN_FAM_SEQ);
    ck_assert_int_eq(topogen_kind_find("dcliques")->family,
                     TOPOGEN_FAM_DATA);
}
END_TEST

/* Whether an objective is n_eff is its row's field. */
START_TEST(test_objective_rows)
{
    ck_assert_int_eq(topogen_objective_row(TG_OBJ_RATIO)->neff, 0);
    ck_assert_int_eq(topogen_objective_row(TG_OBJ_GAP)->neff, 0);
    ck_assert_int_eq(topogen_objective_row(TG_OBJ_SLEM_MH)->neff, 0);
    ck_assert_int_eq(topogen_objective_row(TG_OBJ_NEFF)->neff, 1);
    ck_assert_int_eq(topogen_objective_row(TG_OBJ_NEFF_MSG)->neff, 1);
    ck_assert_int_eq(topogen_objective_row(TG_OBJ_RATIO)->directed, 1);
    ck_assert_int_eq(topogen_objective_row(TG_OBJ_GAP)->directed, 0);
    ck_assert_int_eq(topogen_objective_row(TG_OBJ_NEFF)->directed, 1);
}
END_TEST

/* The setters: bounds with the command line's messages; typed values do
 * not count as given. */
START_TEST(test_setters)
{
    topogen_config c;
    topogen_config_default(&c);
    ck_assert_int_eq(topogen_setting_size(&c, "-n", 0), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "-n: expected a positive integer");
    ck_assert_int_eq(topogen_setting_size(&c, "-n", 2000000), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "-n: at most 1000000 (got 2000000)");
    ck_assert_int_eq(topogen_setting_size(&c, "-n", 16), CM_OK);
    ck_assert_uint_eq(c.search.n, 16);
    ck_assert_int_eq(c.n_given, 0);
    ck_assert_int_eq(topogen_setting_real(&c, "--t0", -1.0), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "--t0: expected a positive number");
    ck_assert_int_eq(topogen_setting_real(&c, "--lambda", NAN), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "--lambda: expected a number >= 0");
    ck_assert_int_eq(topogen_setting_parse(&c, topogen_flag_find("-d"), "3"),
                     CM_OK);
    ck_assert_int_eq(c.d_given, 1);
    ck_assert_int_eq(topogen_setting_parse(&c, topogen_flag_find("--kind"),
                                           "hypercube"), CM_OK);
    ck_assert_int_eq(topogen_config_finish(&c), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "-d 3: --kind hypercube on 16 nodes "
                                      "has degree 4 (implied by the kind): "
                                      "leave -d out");
    /* every kind that fixes its degree: another -d refused, its own kept */
    static const struct { const char *kind; size_t other, own; } FIXED[] = {
        {"ring", 4, 2},         {"torus", 3, 4},        {"complete", 4, 15},
        {"one-peer-exp", 4, 1}, {"exp-directed", 2, 4}, {"hypercube", 3, 4},
    };
    for (size_t k = 0; k < sizeof FIXED / sizeof *FIXED; k++) {
        ck_assert_int_eq(topogen_setting_parse(&c, topogen_flag_find("--kind"),
                                               FIXED[k].kind), CM_OK);
        ck_assert_int_eq(topogen_kind_fixes_degree(&c), 1);
        c.search.d = FIXED[k].other;
        ck_assert_int_eq(topogen_config_finish(&c), CM_EINVAL);
        ck_assert_ptr_nonnull(strstr(cm_last_error(), "leave -d out"));
        c.search.d = FIXED[k].own;
        ck_assert_msg(topogen_config_finish(&c) == CM_OK, "%s -d %zu: %s",
                      FIXED[k].kind, FIXED[k].own, cm_last_error());
    }
    /* the kinds that use -d */
    static const char *const USES_D[] = {"learned", "rrl", "random", "perm",
                                         "epidemic", "base"};
    for (size_t k = 0; k < sizeof USES_D / sizeof *USES_D; k++) {
        ck_assert_int_eq(topogen_setting_parse(&c, topogen_flag_find("--kind"),
                                               USES_D[k]), CM_OK);
        ck_assert_int_eq(topogen_kind_fixes_degree(&c), 0);
    }
    ck_assert_int_eq(topogen_setting_parse(&c, topogen_flag_find("--kind"),
                                           "hypercube"), CM_OK);
    c.search.d = 3;
    c.d_given = 0; /* the library's d: not held to the implied degree */
    ck_assert_int_eq(topogen_config_finish(&c), CM_OK);
    ck_assert_int_eq(topogen_flag_mode_check(topogen_flag_find("--json"),
                                             TOPOGEN_GENERATE), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "--json: only 'topogen eval FILE' "
                                      "takes it");
    ck_assert_int_eq(topogen_flag_mode_check(topogen_flag_find("--kind"),
                                             TOPOGEN_PLAN), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "--kind: not a flag of 'topogen plan'");
}
END_TEST

/* --directed selects the directed learned row, whose checks then apply. */
START_TEST(test_finish_directed)
{
    topogen_config c;
    topogen_config_default(&c);
    c.search.n = 16;
    c.search.d = 2;
    ck_assert_int_eq(topogen_setting_parse(&c,
                         topogen_flag_find("--directed"), NULL), CM_OK);
    ck_assert_int_eq(topogen_setting_parse(&c,
                         topogen_flag_find("--objective"), "gap"), CM_OK);
    ck_assert_int_eq(topogen_config_finish(&c), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "--objective: --directed searches for "
                                      "neff (default), neff-per-message or "
                                      "ratio (the spectral norm of W - J)");
    ck_assert_int_eq(c.kind->family, TOPOGEN_FAM_DIRECTED);
    topogen_config_default(&c);
    ck_assert_int_eq(topogen_setting_parse(&c, topogen_flag_find("--kind"),
                                           "stl-fw"), CM_OK);
    ck_assert_int_eq(topogen_config_finish(&c), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "--kind stl-fw: needs --labels COUNTS "
                                      "(dpsgd-train --write-partition FILE "
                                      "writes it)");
}
END_TEST

/* A ring made through the kind table: its header, from the one writer. */
START_TEST(test_make_ring_header)
{
    topogen_config c;
    topogen_config_default(&c);
    c.search.n = 8;
    ck_assert_int_eq(topogen_setting_parse(&c, topogen_flag_find("--kind"),
                                           "ring"), CM_OK);
    ck_assert_int_eq(topogen_config_finish(&c), CM_OK);
    topogen_made m;
    topogen_made_init(&m);
    ck_assert_int_eq(topogen_make(&c, &m), CM_OK);
    /* the ring fixes its degree: no -d in the settings */
    ck_assert_str_eq(m.settings, "-n 8 --kind ring --weights laplacian "
                                 "--seed 1 --format edgelist");
    const char *first = "# topogen 2 n=8 d=2 kind=ring objective=ratio "
                        "weights=laplacian seed=1 version=" TOPOGEN_VERSION
                        "\n# settings: -n 8 --kind ring";
    ck_assert_int_eq(strncmp(m.comment, first, strlen(first)), 0);
    ck_assert_ptr_nonnull(strstr(m.comment, "\n# lambda2="));
    ck_assert_ptr_null(strstr(m.comment, "# labels:"));
    ck_assert_int_eq(m.directed, 0);
    topogen_made_destroy(&m);
    topogen_made_destroy(NULL);
}
END_TEST

Suite *topogen_make_suite(void)
{
    Suite *s = suite_create("topogen_make");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_kind_table);
    tcase_add_test(tc, test_objective_rows);
    tcase_add_test(tc, test_setters);
    tcase_add_test(tc, test_finish_directed);
    tcase_add_test(tc, test_make_ring_header);
    suite_add_tcase(s, tc);
    return s;
}
