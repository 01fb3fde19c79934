/* check_flags.c: src/cm_flags.c, the command-line scanner of both
 * programs: both spellings of a value, switches, aliases in the row and
 * in a pair list, positionals, the messages in their one wording, and the
 * "did you mean" suggestion by edit distance (near misses suggested, far
 * ones not). */
#include <stddef.h>
#include <string.h>

#include <check.h>

#include "cm_flags.h"

typedef struct {
    const char *name, *alias;
    int sw;
} row;

static const row ROWS[] = {
    {"--epochs", NULL, 0}, {"--quiet", "-q", 1}, {"--seed", NULL, 0},
    {"--help", NULL, 1},   {"-n", NULL, 0},
};
static const char *const PAIRS[][2] = {{"-h", "--help"}};

static int is_sw(const void *r)
{
    return ((const row *)r)->sw;
}

static const cm_flag_table T = {ROWS, sizeof ROWS / sizeof ROWS[0],
                                sizeof ROWS[0], offsetof(row, name),
                                offsetof(row, alias), PAIRS, 1, is_sw};

/* Scans argv (NULL-terminated after argv[0]); returns the status of the
 * first failure or CM_OK, the names and values seen joined in seen. */
static cm_status scan(const char *const *words, int positional, char *seen)
{
    char *argv[16] = {"prog"};
    int argc = 1;
    while (words[argc - 1])
        argv[argc] = (char *)words[argc - 1], argc++;
    seen[0] = '\0';
    cm_flag_iter it = {1, NULL, NULL, NULL, NULL};
    for (;;) {
        int done = 0;
        cm_status s = cm_flags_next(&T, argc, argv, positional, &it, &done);
        if (s != CM_OK || done)
            return s;
        strcat(seen, it.row ? it.name : "ARG");
        strcat(seen, "[");
        strcat(seen, it.value ? it.value : it.arg ? it.arg : "");
        strcat(seen, "]");
    }
}

START_TEST(scans_flags_and_values)
{
    char seen[256];
    const char *a[] = {"--epochs", "3", "--seed=7", "-q", "-h", "file", NULL};
    ck_assert_int_eq(scan(a, 1, seen), CM_OK);
    ck_assert_str_eq(seen, "--epochs[3]--seed[7]--quiet[]--help[]ARG[file]");
    const char *b[] = {"--seed=", "-", NULL}; /* empty value; "-" is an arg */
    ck_assert_int_eq(scan(b, 1, seen), CM_OK);
    ck_assert_str_eq(seen, "--seed[]ARG[-]");
}
END_TEST

START_TEST(messages)
{
    static const struct {
        const char *w[3];
        const char *msg;
    } bad[] = {
        {{"--epoch", "3"}, "unknown flag '--epoch' (did you mean '--epochs'?)"},
        {{"--sed=3"}, "unknown flag '--sed' (did you mean '--seed'?)"},
        {{"--qiuet"}, "unknown flag '--qiuet' (did you mean '--quiet'?)"},
        {{"--frobnicate"}, "unknown flag '--frobnicate'"},
        {{"-x"}, "unknown flag '-x'"}, /* 1 edit of 2 letters: no guess */
        {{"--quiet=1"}, "--quiet: takes no value"},
        {{"-q=1"}, "--quiet: takes no value"},
        {{"--epochs"}, "--epochs: missing value"},
        {{"stray"}, "unexpected argument 'stray'"},
    };
    char seen[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(scan(bad[i].w, 0, seen), CM_EINVAL);
        ck_assert_str_eq(cm_last_error(), bad[i].msg);
    }
}
END_TEST

START_TEST(edit_distance)
{
    ck_assert_uint_eq(cm_flags_distance("kitten", 6, "sitting", 7, 5), 3);
    ck_assert_uint_eq(cm_flags_distance("abc", 3, "abc", 3, 2), 0);
    ck_assert_uint_eq(cm_flags_distance("", 0, "ab", 2, 5), 2);
    ck_assert_uint_eq(cm_flags_distance("abcdef", 6, "uvwxyz", 6, 2), 3);
    ck_assert_ptr_null(cm_flags_suggest(&T, "--zzzzzz", 8));
    ck_assert_str_eq(cm_flags_suggest(&T, "--epochss", 9), "--epochs");
}
END_TEST

Suite *flags_suite(void)
{
    Suite *s = suite_create("flags");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, scans_flags_and_values);
    tcase_add_test(tc, messages);
    tcase_add_test(tc, edit_distance);
    suite_add_tcase(s, tc);
    return s;
}
