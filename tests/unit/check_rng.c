/* check_rng.c: the explicit generator: determinism per (seed, stream),
 * independence of streams, and the moments of each distribution. */
#include <math.h>
#include <stdlib.h>

#include <check.h>

#include "cm_rng.h"

START_TEST(test_deterministic_streams)
{
    cm_rng a, b, c;
    cm_rng_seed(&a, 42, 3);
    cm_rng_seed(&b, 42, 3);
    cm_rng_seed(&c, 42, 4);
    int same = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = cm_rng_u64(&a), y = cm_rng_u64(&b), z = cm_rng_u64(&c);
        ck_assert_uint_eq(x, y);
        same += x == z;
    }
    ck_assert_int_eq(same, 0);
}
END_TEST

START_TEST(test_moments)
{
    cm_rng r;
    cm_rng_seed(&r, 7, 0);
    const int N = 200000;
    double su = 0, sn = 0, sn2 = 0, sg = 0;
    int hist[10] = {0};
    for (int i = 0; i < N; i++) {
        double u = cm_rng_uniform(&r);
        ck_assert(u >= 0.0 && u < 1.0);
        su += u;
        double z = cm_rng_normal(&r);
        sn += z;
        sn2 += z * z;
        sg += cm_rng_gamma(&r, 0.3);
        hist[cm_rng_below(&r, 10)]++;
    }
    ck_assert_double_eq_tol(su / N, 0.5, 0.01);
    ck_assert_double_eq_tol(sn / N, 0.0, 0.01);
    ck_assert_double_eq_tol(sn2 / N, 1.0, 0.02);
    ck_assert_double_eq_tol(sg / N, 0.3, 0.01); /* E Gamma(k,1) = k */
    for (int k = 0; k < 10; k++)
        ck_assert_int_lt(abs(hist[k] - N / 10), N / 100);
}
END_TEST

START_TEST(test_shuffle_is_permutation)
{
    cm_rng r;
    cm_rng_seed(&r, 1, 1);
    size_t a[100];
    int seen[100] = {0};
    for (size_t i = 0; i < 100; i++)
        a[i] = i;
    cm_rng_shuffle_size(&r, a, 100);
    size_t fixed = 0;
    for (size_t i = 0; i < 100; i++) {
        seen[a[i]]++;
        fixed += a[i] == i;
    }
    for (size_t i = 0; i < 100; i++)
        ck_assert_int_eq(seen[i], 1);
    ck_assert_uint_lt(fixed, 10);
    cm_rng_shuffle_size(&r, a, 0); /* empty is fine */
}
END_TEST

Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("deterministic_streams");
    tcase_add_test(tc, test_deterministic_streams);
    suite_add_tcase(s, tc);
    tc = tcase_create("moments");
    tcase_add_test(tc, test_moments);
    suite_add_tcase(s, tc);
    tc = tcase_create("shuffle_is_permutation");
    tcase_add_test(tc, test_shuffle_is_permutation);
    suite_add_tcase(s, tc);
    return s;
}
