/* check_deadline.c: the watchdog's adaptive deadline (dt_deadline, issue
 * 44): T = max(floor, min(5 m, max(3 m, m + 8 MAD))) on round times whose
 * median m and MAD are known exactly, each term deciding once and the
 * rule naming it; on random round times T lies in [max(3 m, floor),
 * max(5 m, floor)], i.e. a stopped rank is named within five median
 * rounds or the floor, whichever is larger. */
#include <math.h>
#include <string.h>

#include <check.h>

#include "cm_rng.h"
#include "dt_deadline.h"

/* 8 rounds: median 1 s, MAD dev (three at 1 - dev, three at 1 + dev,
 * two at 1). */
static void spread(double *h, double dev)
{
    const double s[8] = {-1, 1, 0, -1, 1, 0, -1, 1};
    for (int i = 0; i < 8; i++)
        h[i] = 1.0 + s[i] * dev;
}

START_TEST(each_term_decides)
{
    double h[8];
    char rule[200];
    spread(h, 0.0); /* steady: 3 median rounds */
    ck_assert_double_eq(dt_deadline(h, 8, 0.5, rule, sizeof rule), 3.0);
    ck_assert_str_eq(rule, "3 median rounds: median round 1 s, MAD 0 s, "
                     "over the last 8 rounds");
    spread(h, 0.375); /* m + 8 MAD = 4 */
    ck_assert_double_eq(dt_deadline(h, 8, 0.5, rule, sizeof rule), 4.0);
    ck_assert_str_eq(rule, "median + 8 MAD: median round 1 s, MAD 0.375 s, "
                     "over the last 8 rounds");
    spread(h, 0.75); /* m + 8 MAD = 7, capped */
    ck_assert_double_eq(dt_deadline(h, 8, 0.5, rule, sizeof rule), 5.0);
    ck_assert_str_eq(rule, "5 median rounds: median round 1 s, MAD 0.75 s, "
                     "over the last 8 rounds");
    /* the floor above all of them: it decides, and says what it beat */
    ck_assert_double_eq(dt_deadline(h, 8, 30.0, rule, sizeof rule), 30.0);
    ck_assert_str_eq(rule, "the floor 30 s (--timeout-floor), above 5 "
                     "median rounds (5 s; median round 1 s)");
    spread(h, 0.0);
    ck_assert_double_eq(dt_deadline(h, 8, 4.0, rule, sizeof rule), 4.0);
    ck_assert_str_eq(rule, "the floor 4 s (--timeout-floor), above 3 "
                     "median rounds (3 s; median round 1 s)");
    /* nothing known yet */
    ck_assert_double_eq(dt_deadline(h, 0, 4.0, rule, sizeof rule), 0.0);
    ck_assert_str_eq(rule, "");
}
END_TEST

/* The order of the rounds does not matter, and only the last
 * DT_DEADLINE_HIST count. */
START_TEST(bounds_on_random_rounds)
{
    cm_rng r;
    cm_rng_seed(&r, 44, 0);
    double h[DT_DEADLINE_HIST + 8], rev[DT_DEADLINE_HIST];
    char rule[200];
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 1 + (size_t)(cm_rng_uniform(&r) * DT_DEADLINE_HIST);
        double scale = 0.001 + cm_rng_uniform(&r) * 2.0;
        for (size_t i = 0; i < n; i++) /* heavy upper tail: squares */
            h[i] = scale * (0.5 + 4.0 * pow(cm_rng_uniform(&r), 4));
        double floor_s = trial % 3 ? 0.5 : 4.0;
        double t = dt_deadline(h, n, floor_s, rule, sizeof rule);
        double v[DT_DEADLINE_HIST] = {0};
        memcpy(v, h, n * sizeof *v);
        for (size_t i = 1; i < n; i++) /* insertion sort for the median */
            for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
                double x = v[j];
                v[j] = v[j - 1];
                v[j - 1] = x;
            }
        double m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        double lo = fmax(3 * m, floor_s), hi = fmax(5 * m, floor_s);
        ck_assert_msg(t >= lo * (1 - 1e-12) && t <= hi * (1 + 1e-12),
                      "n %zu: T %g outside [%g, %g]", n, t, lo, hi);
        if (strncmp(rule, "the floor ", 10) == 0)
            ck_assert_double_eq(t, floor_s);
        else
            ck_assert(t >= floor_s && strstr(rule, "median") != NULL);
        for (size_t i = 0; i < n; i++)
            rev[i] = h[n - 1 - i];
        ck_assert_double_eq(dt_deadline(rev, n, floor_s, rule, sizeof rule),
                            t);
    }
    for (size_t i = 0; i < DT_DEADLINE_HIST; i++)
        h[i] = 1.0;
    for (size_t i = DT_DEADLINE_HIST; i < DT_DEADLINE_HIST + 8; i++)
        h[i] = 100.0; /* beyond the history: ignored */
    ck_assert_double_eq(dt_deadline(h, DT_DEADLINE_HIST + 8, 0.5, rule,
                                    sizeof rule), 3.0);
}
END_TEST

Suite *deadline_suite(void)
{
    Suite *s = suite_create("deadline");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, each_term_decides);
    tcase_add_test(tc, bounds_on_random_rounds);
    suite_add_tcase(s, tc);
    return s;
}
