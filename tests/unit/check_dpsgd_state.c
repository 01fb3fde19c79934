/* check_dpsgd_state.c: the run-level checkpoint file of the D-PSGD trainer
 * (train/core/dt_dpsgd_state.c): round trip, corruption and truncation caught
 * by the crc, the wrong epoch refused, pruning keeps only one epoch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "dt_dpsgd_state.h"

static char dir[64];

static void setup(void)
{
    strcpy(dir, "/tmp/check_runstate_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void fill(dt_run_state *rs, size_t rows)
{
    memset(rs, 0, sizeof *rs);
    for (size_t k = 0; k < rows; k++) {
        dt_log_row r = {.epoch = (double)(k + 1), .step = 10 * (k + 1),
                        .wall_s = 1.5 * (double)k, .train_loss = 1.0 / (k + 1),
                        .test_acc = 0.5 + 0.01 * (double)k,
                        .test_acc_local_mean = 0.4, .consensus = 1e-3,
                        .bytes_sent = 1000 * (k + 1)};
        ck_assert_int_eq(dt_run_state_add(rs, &r, 2.0 * (double)k, r.bytes_sent),
                         CM_OK);
    }
}

START_TEST(test_round_trip)
{
    dt_run_state a, b;
    fill(&a, 5);
    ck_assert_int_eq(dt_run_state_write(dir, 5, &a), CM_OK);
    ck_assert_int_eq(dt_run_state_read(dir, 5, &b), CM_OK);
    ck_assert_uint_eq(b.n_rows, 5);
    ck_assert_double_eq(b.train_s, a.train_s);
    ck_assert_uint_eq(b.bytes, a.bytes);
    ck_assert_int_eq(memcmp(a.rows, b.rows, 5 * sizeof *a.rows), 0);
    dt_run_state_destroy(&b);
    /* no rows at all is a valid state too */
    dt_run_state e = {0};
    ck_assert_int_eq(dt_run_state_write(dir, 0, &e), CM_OK);
    ck_assert_int_eq(dt_run_state_read(dir, 0, &b), CM_OK);
    ck_assert_uint_eq(b.n_rows, 0);
    dt_run_state_destroy(&b);
    dt_run_state_destroy(&a);
}
END_TEST

START_TEST(test_corruption)
{
    dt_run_state a, b;
    char path[128];
    fill(&a, 3);
    ck_assert_int_eq(dt_run_state_write(dir, 3, &a), CM_OK);
    snprintf(path, sizeof path, "%s/state-000003.bin", dir);
    /* one flipped byte in a row: checksum mismatch */
    FILE *fp = fopen(path, "r+b");
    ck_assert_ptr_nonnull(fp);
    fseek(fp, 60, SEEK_SET);
    int c = fgetc(fp);
    fseek(fp, 60, SEEK_SET);
    fputc(c ^ 0x40, fp);
    fclose(fp);
    ck_assert_int_eq(dt_run_state_read(dir, 3, &b), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "checksum mismatch"));
    ck_assert_ptr_nonnull(strstr(cm_last_error(), path));
    /* truncated */
    ck_assert_int_eq(dt_run_state_write(dir, 3, &a), CM_OK);
    ck_assert_int_eq(truncate(path, 50), 0);
    ck_assert_int_eq(dt_run_state_read(dir, 3, &b), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "truncated"));
    /* the file of another epoch renamed into place */
    char other[128];
    ck_assert_int_eq(dt_run_state_write(dir, 4, &a), CM_OK);
    snprintf(other, sizeof other, "%s/state-000004.bin", dir);
    ck_assert_int_eq(rename(other, path), 0);
    ck_assert_int_eq(dt_run_state_read(dir, 3, &b), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "belongs to epoch 4"));
    /* missing */
    ck_assert_int_eq(dt_run_state_read(dir, 9, &b), CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "state-000009.bin"));
    /* an unwritable directory: an error, nothing written */
    ck_assert_int_eq(dt_run_state_write("/nonexistent/dir", 1, &a), CM_EIO);
    dt_run_state_destroy(&a);
}
END_TEST

START_TEST(test_prune_keeps_one)
{
    dt_run_state a;
    fill(&a, 1);
    for (uint64_t e = 1; e <= 4; e++)
        ck_assert_int_eq(dt_run_state_write(dir, e, &a), CM_OK);
    dt_run_state_prune(dir, 3);
    char path[128];
    for (uint64_t e = 1; e <= 4; e++) {
        snprintf(path, sizeof path, "%s/state-%06llu.bin", dir,
                 (unsigned long long)e);
        ck_assert_int_eq(access(path, F_OK) == 0, e == 3);
    }
    dt_run_state_destroy(&a);
}
END_TEST

Suite *dpsgd_state_suite(void)
{
    Suite *s = suite_create("dpsgd_state");
    TCase *tc = tcase_create("round_trip");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_round_trip);
    suite_add_tcase(s, tc);
    tc = tcase_create("corruption_detected");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_corruption);
    suite_add_tcase(s, tc);
    tc = tcase_create("prune_keeps_one");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_prune_keeps_one);
    suite_add_tcase(s, tc);
    return s;
}
