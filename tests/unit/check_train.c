/* check_train.c: the single-worker trainer end to end on the synthetic set
 * (loss goes down, accuracy gets high, for lenet and cnn; batch size 1;
 * same seed gives bit-identical parameters, another seed does not), the
 * CSV log (header, one row per epoch, nothing left behind on a bad path)
 * and the divergence guard. The flag parser has its own suite
 * (check_config.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_env.h"
#include "dt_config.h"
#include "dt_log.h"
#include "dt_optim.h"
#include "dt_train.h"

typedef struct {
    double loss[8];
    double acc[8];
    size_t n;
} history;

static void record(void *ctx, const dt_epoch_stats *e)
{
    history *h = ctx;
    if (h->n < 8) {
        h->loss[h->n] = e->train_loss;
        h->acc[h->n] = e->test_acc;
        h->n++;
    }
}

static void synth_config(dt_config *c, dt_model m, size_t n_train,
                         size_t epochs)
{
    dt_config_default(c);
    c->own_kernels = check_allow_own;
    c->dataset = DT_DS_SYNTHETIC;
    c->model = m;
    c->synth_train = n_train;
    c->synth_test = 512;
    c->epochs = epochs;
    c->lr = 0.01;
}

START_TEST(test_synthetic_lenet_learns)
{
    dt_config c;
    synth_config(&c, DT_MODEL_LENET, 2048, 2);
    history h = {0};
    dt_train_result r;
    ck_assert_int_eq(dt_train_single(&c, record, &h, &r), CM_OK);
    ck_assert_uint_eq(h.n, 2);
    ck_assert_double_lt(h.loss[1], 0.5 * h.loss[0]);
    ck_assert_double_lt(h.loss[0], 2.3); /* below chance level, log 10 */
    ck_assert_double_ge(r.test_acc, 0.9);
    ck_assert_uint_eq(r.steps, 2 * 64);
    ck_assert_uint_eq(r.n_train, 2048);
}
END_TEST

START_TEST(test_synthetic_cnn_learns)
{
    dt_config c;
    synth_config(&c, DT_MODEL_CNN, 1024, 1);
    dt_train_result r;
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &r), CM_OK);
    ck_assert_double_ge(r.test_acc, 0.85);
    ck_assert_double_lt(r.test_loss, 0.5);
}
END_TEST

START_TEST(test_same_seed_same_result)
{
    dt_config c;
    synth_config(&c, DT_MODEL_LENET, 300, 2);
    c.batch = 7; /* a partial last batch too */
    dt_train_result a, b, d;
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &a), CM_OK);
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &b), CM_OK);
    ck_assert_uint_eq(a.param_hash, b.param_hash);
    ck_assert_double_eq(a.test_loss, b.test_loss);
    c.seed = 2;
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &d), CM_OK);
    ck_assert_uint_ne(a.param_hash, d.param_hash);
}
END_TEST

START_TEST(test_batch_one)
{
    dt_config c;
    synth_config(&c, DT_MODEL_LENET, 64, 1);
    c.batch = 1;
    c.lr = 0.001;
    c.test_limit = 10;
    dt_train_result r;
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &r), CM_OK);
    ck_assert_uint_eq(r.steps, 64);
    ck_assert_uint_eq(r.n_test, 10);
    ck_assert(r.test_loss > 0.0 && r.test_loss < 10.0);
}
END_TEST

START_TEST(test_log)
{
    char dir[] = "/tmp/check_train.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/run.csv", dir);
    dt_config c;
    synth_config(&c, DT_MODEL_LENET, 256, 2);
    c.synth_test = 64;
    snprintf(c.log_path, sizeof c.log_path, "%s", path);
    dt_train_result r;
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &r), CM_OK);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, DT_LOG_HEADER "\n");
    size_t ep, step;
    double wall, loss, acc, accl, cons, global, global1 = 0.0;
    unsigned long long bytes;
    for (size_t e = 1; e <= 2; e++) {
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        ck_assert_int_eq(sscanf(line, "%zu,%zu,%lf,%lf,%lf,%lf,%lf,%llu,%lf",
                                &ep, &step, &wall, &loss, &acc, &accl, &cons,
                                &bytes, &global), 9);
        /* the model's loss on the first training images: positive, and
         * lower after the second epoch than after the first */
        ck_assert(global > 0.0 && (e == 1 || global < global1));
        global1 = global;
        ck_assert_uint_eq(ep, e);
        ck_assert_uint_eq(step, e * 8);
        ck_assert(acc >= 0.0 && acc <= 1.0);
        ck_assert_double_eq(cons, 0.0);
        ck_assert_uint_eq(bytes, 0);
    }
    ck_assert_ptr_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(path);
    /* unwritable log path: error naming it, before any training */
    dt_log lg;
    snprintf(path, sizeof path, "%s/no/such/dir/run.csv", dir);
    ck_assert_int_eq(dt_log_open(&lg, path), CM_EIO);
    ck_assert(strstr(cm_last_error(), path));
    snprintf(c.log_path, sizeof c.log_path, "%s", path);
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &r), CM_EIO);
    /* bad data directory: error, no log written */
    snprintf(path, sizeof path, "%s/bad.csv", dir);
    snprintf(c.log_path, sizeof c.log_path, "%s", path);
    c.dataset = DT_DS_MNIST;
    snprintf(c.data_dir, sizeof c.data_dir, "%s/nothing", dir);
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &r), CM_EIO);
    ck_assert(strstr(cm_last_error(), c.data_dir));
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_eq(rmdir(dir), 0); /* empty: no temporary files left */
}
END_TEST

/* Issue 10 item 7: a diverging run (--lr 100 gave NaN loss, accuracy 0.10
 * and success) stops with CM_ENUMERIC; the guard itself on each case. */
START_TEST(test_divergence_stops)
{
    dt_config c;
    dt_train_result r;
    synth_config(&c, DT_MODEL_LENET, 256, 2);
    c.synth_test = 64;
    c.lr = 100.0;
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &r), CM_ENUMERIC);
    ck_assert_msg(strstr(cm_last_error(), "training diverged at epoch 1") &&
                      strstr(cm_last_error(), "lower --lr"),
                  "%s", cm_last_error());
    float x[5] = {1, -2, 0, 3e38f, -0.0f};
    ck_assert_int_eq(dt_check_finite(0.5, x, 5, 1, 1, 0.1), CM_OK);
    ck_assert_int_eq(dt_check_finite(NAN, x, 5, 2, 7, 0.1), CM_ENUMERIC);
    ck_assert(strstr(cm_last_error(), "epoch 2 (step 7): the training loss "
                                      "is NaN"));
    x[3] = INFINITY;
    ck_assert_int_eq(dt_check_finite(0.5, x, 5, 1, 1, 0.1), CM_ENUMERIC);
    ck_assert(strstr(cm_last_error(), "parameters hold infinite"));
    x[3] = NAN;
    ck_assert_int_eq(dt_check_finite(0.5, x, 5, 1, 1, 0.1), CM_ENUMERIC);
    ck_assert(strstr(cm_last_error(), "parameters hold NaN"));
}
END_TEST

Suite *train_suite(void)
{
    Suite *s = suite_create("train");
    TCase *tc = tcase_create("lenet_learns");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_synthetic_lenet_learns);
    suite_add_tcase(s, tc);
    tc = tcase_create("cnn_learns");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_synthetic_cnn_learns);
    suite_add_tcase(s, tc);
    tc = tcase_create("same_seed_same_bits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_same_seed_same_result);
    suite_add_tcase(s, tc);
    tc = tcase_create("batch_one");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_batch_one);
    suite_add_tcase(s, tc);
    tc = tcase_create("csv_log");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_log);
    suite_add_tcase(s, tc);
    tc = tcase_create("divergence_stops");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_divergence_stops);
    suite_add_tcase(s, tc);
    return s;
}
