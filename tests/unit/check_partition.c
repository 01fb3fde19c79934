/* check_partition.c: data shards and the worker-to-rank block mapping.
 * Shards cover every image exactly once, are sorted, iid shards are
 * balanced in size and class mix, dirichlet:0.1 shards are dominated by
 * few classes while dirichlet:100 shards are not, everything is a pure
 * function of the seed, and bad flag values are named in the error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "cm_rng.h"
#include "dt_partition.h"

#define NIMG 6000
#define NCLS 10

/* Balanced labels in a scrambled order, like a real training set. */
static uint8_t *make_labels(void)
{
    uint8_t *y = malloc(NIMG);
    ck_assert_ptr_nonnull(y);
    cm_rng r;
    cm_rng_seed(&r, 99, 0);
    for (size_t i = 0; i < NIMG; i++)
        y[i] = (uint8_t)(i % NCLS);
    for (size_t i = NIMG - 1; i > 0; i--) {
        size_t j = cm_rng_below(&r, i + 1);
        uint8_t t = y[i];
        y[i] = y[j];
        y[j] = t;
    }
    return y;
}

/* Every image in exactly one shard; shards sorted ascending. */
static void check_cover(const dt_partition *p, size_t n_images)
{
    char *seen = calloc(n_images, 1);
    ck_assert_ptr_nonnull(seen);
    ck_assert_uint_eq(p->off[p->n_workers], n_images);
    for (size_t w = 0; w < p->n_workers; w++) {
        size_t c;
        const size_t *s = dt_partition_shard(p, w, &c);
        for (size_t k = 0; k < c; k++) {
            ck_assert_uint_lt(s[k], n_images);
            ck_assert_int_eq(seen[s[k]], 0);
            seen[s[k]] = 1;
            if (k)
                ck_assert_uint_lt(s[k - 1], s[k]);
        }
    }
    free(seen);
}

/* Fraction of shard w's images in its two most frequent classes. */
static double top2_share(const dt_partition *p, const uint8_t *y, size_t w)
{
    size_t c, h[NCLS] = {0};
    const size_t *s = dt_partition_shard(p, w, &c);
    for (size_t k = 0; k < c; k++)
        h[y[s[k]]]++;
    size_t a = 0, b = 0;
    for (int k = 0; k < NCLS; k++) {
        if (h[k] > a) {
            b = a;
            a = h[k];
        } else if (h[k] > b) {
            b = h[k];
        }
    }
    return (double)(a + b) / (double)c;
}

START_TEST(test_iid)
{
    uint8_t *y = make_labels();
    const size_t workers[] = {1, 2, 7, 16, 64};
    for (size_t t = 0; t < sizeof workers / sizeof *workers; t++) {
        size_t nw = workers[t];
        dt_partition p;
        dt_partition_init(&p);
        dt_part_spec sp = {DT_PART_IID, 0.0, 0};
        ck_assert_int_eq(dt_partition_make(&p, &sp, y, NIMG, NCLS, nw, 1, 3),
                         CM_OK);
        ck_assert_uint_eq(p.n_workers, nw);
        check_cover(&p, NIMG);
        for (size_t w = 0; w < nw; w++) {
            size_t c;
            dt_partition_shard(&p, w, &c);
            ck_assert_uint_ge(c, NIMG / nw);
            ck_assert_uint_le(c, NIMG / nw + 1);
            if (nw <= 16) /* ~375+ images: no class dominates */
                ck_assert_double_lt(top2_share(&p, y, w), 0.35);
        }
        dt_partition_destroy(&p);
    }
    free(y);
}
END_TEST

START_TEST(test_dirichlet_skew)
{
    uint8_t *y = make_labels();
    const double alpha[] = {0.1, 100.0};
    for (int a = 0; a < 2; a++) {
        dt_partition p;
        dt_partition_init(&p);
        dt_part_spec sp = {DT_PART_DIRICHLET, alpha[a], 0};
        ck_assert_int_eq(dt_partition_make(&p, &sp, y, NIMG, NCLS, 16, 20,
                                           7), CM_OK);
        check_cover(&p, NIMG);
        size_t dominated = 0;
        for (size_t w = 0; w < 16; w++) {
            size_t c;
            dt_partition_shard(&p, w, &c);
            ck_assert_uint_ge(c, 20);
            dominated += top2_share(&p, y, w) > 0.8;
        }
        if (alpha[a] < 1)
            ck_assert_uint_ge(dominated, 12); /* most of the 16 workers */
        else
            ck_assert_uint_eq(dominated, 0);
        dt_partition_destroy(&p);
    }
    free(y);
}
END_TEST

START_TEST(test_deterministic)
{
    uint8_t *y = make_labels();
    const dt_part_spec specs[] = {{DT_PART_IID, 0, 0}, {DT_PART_DIRICHLET, 0.3, 0},
                                   {DT_PART_SHARDS, 0, 2}};
    for (int k = 0; k < 3; k++) {
        dt_partition a, b, c;
        dt_partition_init(&a);
        dt_partition_init(&b);
        dt_partition_init(&c);
        ck_assert_int_eq(dt_partition_make(&a, &specs[k], y, NIMG, NCLS, 8,
                                           10, 42), CM_OK);
        ck_assert_int_eq(dt_partition_make(&b, &specs[k], y, NIMG, NCLS, 8,
                                           10, 42), CM_OK);
        ck_assert_int_eq(dt_partition_make(&c, &specs[k], y, NIMG, NCLS, 8,
                                           10, 43), CM_OK);
        ck_assert_mem_eq(a.off, b.off, 9 * sizeof *a.off);
        ck_assert_mem_eq(a.idx, b.idx, NIMG * sizeof *a.idx);
        ck_assert_int_ne(memcmp(a.idx, c.idx, NIMG * sizeof *a.idx), 0);
        dt_partition_destroy(&a);
        dt_partition_destroy(&b);
        dt_partition_destroy(&c);
    }
    free(y);
}
END_TEST

START_TEST(test_errors)
{
    static const char *bad[] = {"", "IID", "iid ", "dirichlet", "dirichlet:",
                                "dirichlet:0", "dirichlet:-1",
                                "dirichlet:abc", "dirichlet:0.1x",
                                "dirichlet:inf", "dirichlet:nan", "random"};
    dt_part_spec sp;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        ck_assert_int_eq(dt_partition_parse(bad[k], &sp), CM_EINVAL);
        char want[64];
        snprintf(want, sizeof want, "'%s'", bad[k]);
        ck_assert_ptr_nonnull(strstr(cm_last_error(), want));
        ck_assert_ptr_nonnull(strstr(cm_last_error(), "--partition"));
    }
    ck_assert_int_eq(dt_partition_parse("iid", &sp), CM_OK);
    ck_assert_int_eq(sp.kind, DT_PART_IID);
    ck_assert_int_eq(dt_partition_parse("dirichlet:0.1", &sp), CM_OK);
    ck_assert_int_eq(sp.kind, DT_PART_DIRICHLET);
    ck_assert_double_eq(sp.alpha, 0.1);
    char buf[32];
    dt_partition_spec_str(&sp, buf, sizeof buf);
    ck_assert_str_eq(buf, "dirichlet:0.1");

    uint8_t y[20] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                     0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    dt_partition p;
    dt_partition_init(&p);
    dt_part_spec iid = {DT_PART_IID, 0, 0};
    ck_assert_int_eq(dt_partition_make(&p, &iid, y, 20, 10, 0, 1, 1),
                     CM_EINVAL);
    ck_assert_int_eq(dt_partition_make(&p, &iid, y, 20, 10, 21, 1, 1),
                     CM_EINVAL);
    ck_assert_int_eq(dt_partition_make(&p, &iid, y, 20, 10, 5, 5, 1),
                     CM_EINVAL);
    y[13] = 10;
    ck_assert_int_eq(dt_partition_make(&p, &iid, y, 20, 10, 2, 1, 1),
                     CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "image 13"));
    y[13] = 3;
    /* 20 shards of 1 image: edge case that works */
    ck_assert_int_eq(dt_partition_make(&p, &iid, y, 20, 10, 20, 1, 1),
                     CM_OK);
    check_cover(&p, 20);
    /* One class and a Dirichlet this skewed: one worker takes nearly all
     * of it, so 10 workers never get 2 images each. */
    memset(y, 0, sizeof y);
    dt_part_spec tiny = {DT_PART_DIRICHLET, 1e-3, 0};
    ck_assert_int_eq(dt_partition_make(&p, &tiny, y, 20, 10, 10, 2, 1),
                     CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "dirichlet:0.001"));
    ck_assert_ptr_null(p.off);
    dt_partition_destroy(&p);
    dt_partition_destroy(NULL);
}
END_TEST

START_TEST(test_blocks)
{
    for (size_t n = 1; n <= 40; n++)
        for (size_t P = 1; P <= n; P++) {
            size_t next = 0, big = 0;
            for (size_t r = 0; r < P; r++) {
                size_t first, count;
                dt_partition_block_range(n, P, r, &first, &count);
                ck_assert_uint_eq(first, next);
                ck_assert_uint_ge(count, n / P);
                ck_assert_uint_le(count, n / P + 1);
                big += count > n / P;
                if (count > n / P) /* the extra workers go first */
                    ck_assert_uint_lt(r, n % P);
                for (size_t w = first; w < first + count; w++)
                    ck_assert_uint_eq(dt_partition_block_owner(n, P, w), r);
                next = first + count;
            }
            ck_assert_uint_eq(next, n);
            ck_assert_uint_eq(big, n % P);
        }
}
END_TEST

/* shards:C: every image once, every worker exactly C classes, sizes
 * within one piece of each other when n*C is a multiple of K, and the
 * counts of dt_partition_counts add up to the shards. */
START_TEST(test_shards)
{
    uint8_t *y = make_labels();
    const size_t ns[] = {10, 16, 20, 40}, cs[] = {1, 2, 3, 10};
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 4; b++) {
            dt_part_spec sp = {DT_PART_SHARDS, 0.0, cs[b]};
            dt_partition p;
            dt_partition_init(&p);
            ck_assert_int_eq(dt_partition_make(&p, &sp, y, NIMG, NCLS, ns[a],
                                               1, 7), CM_OK);
            check_cover(&p, NIMG);
            uint64_t *cnt = calloc(ns[a] * NCLS, sizeof *cnt);
            ck_assert_ptr_nonnull(cnt);
            dt_partition_counts(&p, y, NCLS, cnt);
            size_t lo = SIZE_MAX, hi = 0;
            for (size_t w = 0; w < ns[a]; w++) {
                size_t k = 0, tot = 0;
                for (size_t c = 0; c < NCLS; c++) {
                    k += cnt[w * NCLS + c] > 0;
                    tot += cnt[w * NCLS + c];
                }
                ck_assert_msg(k == cs[b], "n=%zu shards:%zu: worker %zu has "
                              "%zu classes", ns[a], cs[b], w, k);
                ck_assert_uint_eq(tot, p.off[w + 1] - p.off[w]);
                lo = tot < lo ? tot : lo;
                hi = tot > hi ? tot : hi;
            }
            if (ns[a] * cs[b] % NCLS == 0) /* balanced: equal pieces */
                ck_assert_uint_le(hi - lo, cs[b]);
            free(cnt);
            dt_partition_destroy(&p);
        }
    dt_part_spec sp;
    ck_assert_int_eq(dt_partition_parse("shards:3", &sp), CM_OK);
    ck_assert_int_eq(sp.kind, DT_PART_SHARDS);
    ck_assert_uint_eq(sp.classes, 3);
    ck_assert_int_eq(dt_partition_parse("shards:0", &sp), CM_EINVAL);
    ck_assert_int_eq(dt_partition_parse("shards:2x", &sp), CM_EINVAL);
    ck_assert_int_eq(dt_partition_parse("shards:", &sp), CM_EINVAL);
    dt_partition p;
    dt_partition_init(&p);
    dt_part_spec big = {DT_PART_SHARDS, 0.0, 11};
    ck_assert_int_eq(dt_partition_make(&p, &big, y, NIMG, NCLS, 8, 1, 1),
                     CM_EINVAL);
    dt_part_spec few = {DT_PART_SHARDS, 0.0, 1};
    ck_assert_int_eq(dt_partition_make(&p, &few, y, NIMG, NCLS, 5, 1, 1),
                     CM_EINVAL); /* 5 slots, 10 classes */
    free(y);
}
END_TEST

Suite *partition_suite(void)
{
    Suite *s = suite_create("partition");
    TCase *tc = tcase_create("iid_balanced");
    tcase_add_test(tc, test_iid);
    suite_add_tcase(s, tc);
    tc = tcase_create("dirichlet_skew");
    tcase_add_test(tc, test_dirichlet_skew);
    suite_add_tcase(s, tc);
    tc = tcase_create("same_seed_same_shards");
    tcase_add_test(tc, test_deterministic);
    suite_add_tcase(s, tc);
    tc = tcase_create("bad_specs_refused");
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("rank_blocks");
    tcase_add_test(tc, test_blocks);
    suite_add_tcase(s, tc);
    tc = tcase_create("shards_c_classes");
    tcase_add_test(tc, test_shards);
    suite_add_tcase(s, tc);
    return s;
}
