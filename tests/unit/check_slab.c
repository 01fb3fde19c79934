/* check_slab.c: one block for many worker arrays: every array zeroed,
 * 64-byte aligned, a stride apart and disjoint from the others; empty
 * requests; sizes that overflow refused with a message naming them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "dt_slab.h"

START_TEST(test_arrays_zeroed_aligned_disjoint)
{
    static const size_t lens[] = {1, 15, 16, 17, 61706};
    const size_t len = lens[_i], count = 7;
    float *a[7];
    void *slab = NULL;
    ck_assert_int_eq(dt_slab_alloc(count, len, "test arrays", a, &slab),
                     CM_OK);
    ck_assert_ptr_nonnull(slab);
    ck_assert_uint_eq(dt_slab_stride(len) % 64, 0);
    ck_assert_uint_ge(dt_slab_stride(len), len * sizeof(float));
    ck_assert_uint_lt(dt_slab_stride(len), len * sizeof(float) + 64);
    for (size_t i = 0; i < count; i++) {
        ck_assert_uint_eq((uintptr_t)a[i] % 64, 0);
        if (i)
            ck_assert_uint_eq((size_t)((char *)a[i] - (char *)a[i - 1]),
                              dt_slab_stride(len));
        for (size_t k = 0; k < len; k++)
            ck_assert(a[i][k] == 0.0f);
    }
    /* each array written whole leaves the others as they were */
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < len; k++)
            a[i][k] = (float)(i + 1);
    for (size_t i = 0; i < count; i++)
        ck_assert(a[i][0] == (float)(i + 1) &&
                  a[i][len - 1] == (float)(i + 1));
    dt_slab_free(slab);
}
END_TEST

START_TEST(test_empty_and_null)
{
    float *a[1] = {(float *)&a};
    void *slab = &slab;
    ck_assert_int_eq(dt_slab_alloc(0, 10, "none", a, &slab), CM_OK);
    ck_assert_ptr_null(slab);
    ck_assert_ptr_eq(a[0], (float *)&a); /* untouched */
    slab = &slab;
    ck_assert_int_eq(dt_slab_alloc(3, 0, "none", a, &slab), CM_OK);
    ck_assert_ptr_null(slab);
    dt_slab_free(NULL);
}
END_TEST

START_TEST(test_too_large_refused)
{
    float *a[2];
    void *slab = &slab;
    ck_assert_int_eq(dt_slab_alloc(SIZE_MAX / 8, 1024, "huge arrays", a,
                                   &slab),
                     CM_ENOMEM);
    ck_assert_ptr_null(slab);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "huge arrays"));
}
END_TEST

Suite *slab_suite(void)
{
    Suite *s = suite_create("slab");
    TCase *tc = tcase_create("arrays_zeroed_aligned_disjoint");
    tcase_add_loop_test(tc, test_arrays_zeroed_aligned_disjoint, 0, 5);
    suite_add_tcase(s, tc);
    tc = tcase_create("empty_and_null");
    tcase_add_test(tc, test_empty_and_null);
    suite_add_tcase(s, tc);
    tc = tcase_create("too_large_refused");
    tcase_add_test(tc, test_too_large_refused);
    suite_add_tcase(s, tc);
    return s;
}
