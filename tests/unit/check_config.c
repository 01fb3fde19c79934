/* check_config.c: the flag table of dt_config. Good flags in both
 * spellings (--flag value, --flag=value) land in their fields; every bad
 * flag or value is refused with a message naming it. */
#include <string.h>

#include <check.h>

#include "dt_config.h"

/* Parses a NULL-terminated flag list over the defaults. */
static cm_status parse(dt_config *c, const char *const *flags)
{
    char *argv[16] = {"dpsgd-train"};
    int argc = 1;
    while (flags[argc - 1])
        argv[argc] = (char *)flags[argc - 1], argc++;
    dt_config_default(c);
    return dt_config_parse(c, argc, argv);
}

START_TEST(test_config)
{
    dt_config c;
    const char *good[] = {"--model", "cnn", "--epochs=3", "--batch", "64",
                          "--lr", "0.05", "--weight-decay", "0", "--quiet",
                          "--dataset", "cifar10", "--data", "/x", NULL};
    ck_assert_int_eq(parse(&c, good), CM_OK);
    ck_assert_int_eq(c.model, DT_MODEL_CNN);
    ck_assert_uint_eq(c.epochs, 3);
    ck_assert_uint_eq(c.batch, 64);
    ck_assert_double_eq(c.lr, 0.05);
    ck_assert_int_eq(c.quiet, 1);
    ck_assert_int_eq(c.dataset, DT_DS_CIFAR10);
    ck_assert_str_eq(c.data_dir, "/x");
    /* each bad input names its flag */
    static const struct { const char *a, *b, *want; } bad[] = {
        {"--batch", "0", "--batch"},       {"--epochs", "0", "--epochs"},
        {"--epochs", "-2", "--epochs"},    {"--lr", "-0.1", "--lr"},
        {"--lr", "fast", "--lr"},          {"--model", "vgg", "--model"},
        {"--dataset", "imagenet", "--dataset"},
        {"--momentum", "1", "--momentum"}, {"--batch", "12x", "--batch"},
        {"--schedule", "linear", "--schedule"},
        {"--frobnicate", "1", "--frobnicate"}, {"--seed", "-1", "--seed"},
        {"--algorithm", "adam", "--algorithm"},
        {"--d2-mixing", "0", "--d2-mixing"},
        {"--d2-mixing", "1.5", "--d2-mixing"},
        {"--d2-mixing", "full", "--d2-mixing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *f[] = {bad[i].a, bad[i].b, NULL};
        ck_assert_int_eq(parse(&c, f), CM_EINVAL);
        ck_assert_msg(strstr(cm_last_error(), bad[i].want) != NULL,
                      "'%s' lacks %s", cm_last_error(), bad[i].want);
    }
    /* the algorithm and d2's mixing weight */
    ck_assert_int_eq(c.algorithm, DT_ALGO_DPSGD);
    const char *alg[] = {"--algorithm", "gt", "--d2-mixing", "0.75", NULL};
    ck_assert_int_eq(parse(&c, alg), CM_OK);
    ck_assert_int_eq(c.algorithm, DT_ALGO_GT);
    ck_assert_double_eq(c.d2_mix, 0.75);
    static const struct { const char *v; double c; } mix[] = {
        {"auto", 0.0}, {"half", 0.5}, {"w", 1.0}, {"1", 1.0}};
    for (size_t i = 0; i < sizeof mix / sizeof mix[0]; i++) {
        const char *f[] = {"--d2-mixing", mix[i].v, NULL};
        ck_assert_int_eq(parse(&c, f), CM_OK);
        ck_assert_double_eq(c.d2_mix, mix[i].c);
    }
    const char *missing[] = {"--epochs", NULL};
    ck_assert_int_eq(parse(&c, missing), CM_EINVAL);
    ck_assert(strstr(cm_last_error(), "--epochs: missing value"));
    const char *help[] = {"--help", "--bogus", NULL};
    ck_assert_int_eq(parse(&c, help), CM_OK);
    ck_assert_int_eq(c.help, 1);
    ck_assert(strstr(dt_config_usage(), "--weight-decay"));
}
END_TEST

/* The given-set: one bit per table row past the 64 a single word held,
 * and each row's bit its own (the table's last rows, 62 and 63, among
 * them). */
START_TEST(test_config_given)
{
    dt_flag_set set = {{0}};
    static const size_t on[] = {0, 63, 64, 65, 127, 128, DT_FLAGS_MAX - 1};
    for (size_t i = 0; i < sizeof on / sizeof *on; i++)
        dt_flag_set_add(&set, on[i]);
    for (size_t k = 0; k < DT_FLAGS_MAX; k++) {
        int want = 0;
        for (size_t i = 0; i < sizeof on / sizeof *on; i++)
            want |= on[i] == k;
        ck_assert_msg(dt_flag_set_has(&set, k) == want, "bit %zu", k);
    }
    dt_config c;
    const char *f[] = {"--staleness", "1", "--fragments", "2", "--seed", "3",
                       "--quiet", NULL};
    ck_assert_int_eq(parse(&c, f), CM_OK);
    static const char *const given[] = {"--staleness", "--fragments",
                                        "--seed", "--quiet"};
    static const char *const not_given[] = {
        "--help", "--version", "--dataset", "--lr", "--consensus-step",
        "--compress", "--epochs", "--no-such-flag"};
    for (size_t i = 0; i < sizeof given / sizeof *given; i++)
        ck_assert_msg(dt_config_given(&c, given[i]), "%s", given[i]);
    for (size_t i = 0; i < sizeof not_given / sizeof *not_given; i++)
        ck_assert_msg(!dt_config_given(&c, not_given[i]), "%s",
                      not_given[i]);
    const char *twice[] = {"--fragments", "2", "--fragments", "3", NULL};
    ck_assert_int_eq(parse(&c, twice), CM_EINVAL);
    ck_assert(strstr(cm_last_error(), "--fragments given twice"));
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("flags_parsed_bad_ones_named");
    tcase_add_test(tc, test_config);
    tcase_add_test(tc, test_config_given);
    suite_add_tcase(s, tc);
    return s;
}
