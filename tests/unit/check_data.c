/* check_data.c: the data readers on small files generated in a temporary
 * directory: IDX (plain and gzipped), CIFAR-10 binary batches and the
 * synthetic set. Loading whole splits and shards (unsorted, repeated
 * indices), labels alone, streamed statistics against direct computation,
 * and every bad-input class with the file named in the message: missing
 * directory or file, wrong magic, truncated plain and gzip files, corrupt
 * gzip data, image/label count mismatch, label out of range, bad index. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <zlib.h>

#include "dt_data.h"

#define N_IMG 7
#define SIDE 4

static char dir[256];

static uint8_t pixel(size_t i, size_t j) { return (uint8_t)(i * 31 + j * 7); }
static uint8_t label(size_t i) { return (uint8_t)((i * 3) % 10); }

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Writes bytes to dir/name, gzipped when gz. */
static void write_file(const char *name, const void *buf, size_t n, int gz)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (gz) {
        gzFile f = gzopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(gzwrite(f, buf, (unsigned)n), (int)n);
        gzclose(f);
    } else {
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
        fclose(f);
    }
}

/* IDX pair for the train split (n_img images, n_lab labels); the test split
 * always has 3 images. img_magic lets a test break the magic number. */
static void write_idx(size_t n_img, size_t n_lab, uint32_t img_magic, int gz)
{
    size_t len = 16 + n_img * SIDE * SIDE;
    unsigned char *b = malloc(len);
    for (int t = 0; t < 2; t++) {
        size_t n = t == 0 ? n_img : 3;
        put32(b, t == 0 ? img_magic : 0x803);
        put32(b + 4, (uint32_t)n);
        put32(b + 8, SIDE);
        put32(b + 12, SIDE);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < SIDE * SIDE; j++)
                b[16 + i * SIDE * SIDE + j] = pixel(i, j);
        write_file(t == 0 ? (gz ? "train-images-idx3-ubyte.gz"
                                : "train-images-idx3-ubyte")
                          : "t10k-images-idx3-ubyte",
                   b, 16 + n * SIDE * SIDE, gz && t == 0);
        size_t nl = t == 0 ? n_lab : 3;
        put32(b, 0x801);
        put32(b + 4, (uint32_t)nl);
        for (size_t i = 0; i < nl; i++)
            b[8 + i] = label(i);
        write_file(t == 0 ? (gz ? "train-labels-idx1-ubyte.gz"
                                : "train-labels-idx1-ubyte")
                          : "t10k-labels-idx1-ubyte",
                   b, 8 + nl, gz && t == 0);
    }
    free(b);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/check_data.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void rm_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* Expects the status and that the message contains want. */
static void expect_err(cm_status got, cm_status code, const char *want)
{
    ck_assert_int_eq(got, code);
    ck_assert_msg(strstr(cm_last_error(), want) != NULL,
                  "message '%s' lacks '%s'", cm_last_error(), want);
}

static dt_norm unit_norm(void)
{
    dt_norm n = {.c = 1, .mean = {0}, .std = {1.0 / 255.0}};
    return n; /* x = p: raw pixel values */
}

START_TEST(test_idx_plain_and_gz)
{
    for (int gz = 0; gz < 2; gz++) {
        if (gz) {
            rm_file("train-images-idx3-ubyte");
            rm_file("train-labels-idx1-ubyte");
        }
        write_idx(N_IMG, N_IMG, 0x803, gz);
        dt_source s;
        ck_assert_int_eq(dt_source_init(&s, DT_DS_MNIST, dir, 0), CM_OK);
        dt_shape sh;
        ck_assert_int_eq(dt_source_shape(&s, DT_SPLIT_TRAIN, &sh), CM_OK);
        ck_assert_uint_eq(sh.n, N_IMG);
        ck_assert_uint_eq(sh.h, SIDE);
        dt_norm nm = unit_norm();
        dt_data d;
        ck_assert_int_eq(dt_data_load(&s, DT_SPLIT_TRAIN, NULL, 0, &nm, &d),
                         CM_OK);
        ck_assert_uint_eq(d.n, N_IMG);
        for (size_t i = 0; i < N_IMG; i++) {
            ck_assert_uint_eq(d.y[i], label(i));
            for (size_t j = 0; j < SIDE * SIDE; j++)
                ck_assert_float_eq_tol(d.x[i * SIDE * SIDE + j],
                                       (float)pixel(i, j), 1e-3f);
        }
        dt_data_destroy(&d);
        /* a shard: unsorted, repeated */
        size_t idx[4] = {5, 0, 5, 3};
        ck_assert_int_eq(dt_data_load(&s, DT_SPLIT_TRAIN, idx, 4, &nm, &d),
                         CM_OK);
        ck_assert_uint_eq(d.n, 4);
        for (size_t k = 0; k < 4; k++) {
            ck_assert_uint_eq(d.y[k], label(idx[k]));
            ck_assert_float_eq_tol(d.x[k * SIDE * SIDE + 5],
                                   (float)pixel(idx[k], 5), 1e-3f);
        }
        dt_data_destroy(&d);
        size_t bad[1] = {N_IMG};
        expect_err(dt_data_load(&s, DT_SPLIT_TRAIN, bad, 1, &nm, &d),
                   CM_EINVAL, "out of range");
        ck_assert_ptr_null(d.x);
        uint8_t *lab;
        size_t n;
        ck_assert_int_eq(dt_data_labels(&s, DT_SPLIT_TRAIN, &lab, &n), CM_OK);
        ck_assert_uint_eq(n, N_IMG);
        for (size_t i = 0; i < n; i++)
            ck_assert_uint_eq(lab[i], label(i));
        free(lab);
        /* streamed stats == direct mean/std of p/255 */
        dt_norm st;
        ck_assert_int_eq(dt_data_stats(&s, &st), CM_OK);
        double sum = 0, sq = 0, m = N_IMG * SIDE * SIDE;
        for (size_t i = 0; i < N_IMG; i++)
            for (size_t j = 0; j < SIDE * SIDE; j++) {
                double p = pixel(i, j) / 255.0;
                sum += p;
                sq += p * p;
            }
        ck_assert_double_eq_tol(st.mean[0], sum / m, 1e-12);
        ck_assert_double_eq_tol(st.std[0],
                                sqrt(sq / m - (sum / m) * (sum / m)), 1e-9);
        /* normalized load has mean 0, std 1 */
        ck_assert_int_eq(dt_data_load(&s, DT_SPLIT_TRAIN, NULL, 0, &st, &d),
                         CM_OK);
        double xs = 0, xq = 0;
        for (size_t i = 0; i < (size_t)m; i++) {
            xs += d.x[i];
            xq += d.x[i] * d.x[i];
        }
        ck_assert_double_eq_tol(xs / m, 0.0, 1e-5);
        ck_assert_double_eq_tol(xq / m, 1.0, 1e-4);
        dt_data_destroy(&d);
        dt_source_destroy(&s);
    }
}
END_TEST

START_TEST(test_idx_bad_input)
{
    dt_source s;
    dt_shape sh;
    dt_data d;
    dt_norm nm = unit_norm();
    expect_err(dt_source_init(&s, DT_DS_FASHION, "/nonexistent/fm", 0),
               CM_EIO, "/nonexistent/fm");
    dt_source_destroy(&s);
    ck_assert_int_eq(dt_source_init(&s, DT_DS_FASHION, dir, 0), CM_OK);
    /* missing files */
    expect_err(dt_source_shape(&s, DT_SPLIT_TRAIN, &sh), CM_EIO,
               "train-images-idx3-ubyte");
    /* wrong magic */
    write_idx(N_IMG, N_IMG, 0x0803 + 1, 0);
    expect_err(dt_source_shape(&s, DT_SPLIT_TRAIN, &sh), CM_EFORMAT,
               "magic");
    ck_assert(strstr(cm_last_error(), "train-images-idx3-ubyte"));
    /* count mismatch */
    write_idx(N_IMG, N_IMG - 1, 0x803, 0);
    expect_err(dt_source_shape(&s, DT_SPLIT_TRAIN, &sh), CM_EFORMAT,
               "labels");
    ck_assert(strstr(cm_last_error(), "7 images"));
    /* truncated plain file: header says 7 images, 5 and a half present */
    write_idx(N_IMG, N_IMG, 0x803, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte", dir);
    ck_assert_int_eq(truncate(path, 16 + 5 * SIDE * SIDE + 8), 0);
    expect_err(dt_data_load(&s, DT_SPLIT_TRAIN, NULL, 0, &nm, &d), CM_EFORMAT,
               "truncated");
    ck_assert(strstr(cm_last_error(), path));
    ck_assert_ptr_null(d.x);
    /* label out of range */
    write_idx(N_IMG, N_IMG, 0x803, 0);
    unsigned char lb[8 + N_IMG] = {0, 0, 8, 1, 0, 0, 0, N_IMG};
    lb[8 + 2] = 11;
    write_file("train-labels-idx1-ubyte", lb, sizeof lb, 0);
    uint8_t *lab;
    size_t n;
    expect_err(dt_data_labels(&s, DT_SPLIT_TRAIN, &lab, &n), CM_EFORMAT,
               "label 11");
    /* gzip: a truncated stream and corrupt deflate data */
    rm_file("train-images-idx3-ubyte");
    rm_file("train-labels-idx1-ubyte");
    write_idx(300, 300, 0x803, 1);
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(truncate(path, st.st_size / 2), 0);
    expect_err(dt_data_load(&s, DT_SPLIT_TRAIN, NULL, 0, &nm, &d), CM_EFORMAT,
               path);
    write_idx(300, 300, 0x803, 1);
    ck_assert_int_eq(stat(path, &st), 0);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 20, SEEK_SET); /* inside the deflate stream */
    unsigned char junk[64];
    memset(junk, 0xA5, sizeof junk);
    fwrite(junk, 1, sizeof junk, f);
    fclose(f);
    cm_status got = dt_data_load(&s, DT_SPLIT_TRAIN, NULL, 0, &nm, &d);
    ck_assert_int_eq(got, CM_EFORMAT);
    ck_assert(strstr(cm_last_error(), path));
    ck_assert(strstr(cm_last_error(), "gzip") ||
              strstr(cm_last_error(), "magic"));
    dt_source_destroy(&s);
}
END_TEST

/* CIFAR-10: five training batches of 2 records, a test batch of 3. */
/* Regression (issue 10, item 10): an IDX header alone must not set the
 * allocation. A 16-byte images file announcing 60000 28x28 images, plain
 * or gzipped, is "truncated" naming the file, before any load allocates. */
START_TEST(test_idx_header_larger_than_file)
{
    dt_source s;
    dt_shape sh;
    dt_data d;
    dt_norm nm = unit_norm();
    write_idx(N_IMG, N_IMG, 0x803, 0);
    unsigned char h[16];
    put32(h, 0x803);
    put32(h + 4, 60000);
    put32(h + 8, 28);
    put32(h + 12, 28);
    unsigned char lb[8 + 4] = {0, 0, 8, 1, 0, 0, 0xea, 0x60};
    ck_assert_int_eq(dt_source_init(&s, DT_DS_FASHION, dir, 0), CM_OK);
    for (int gz = 0; gz < 2; gz++) {
        rm_file("train-images-idx3-ubyte");
        rm_file("train-labels-idx1-ubyte");
        write_file(gz ? "train-images-idx3-ubyte.gz"
                      : "train-images-idx3-ubyte", h, sizeof h, gz);
        write_file(gz ? "train-labels-idx1-ubyte.gz"
                      : "train-labels-idx1-ubyte", lb, sizeof lb, gz);
        expect_err(dt_source_shape(&s, DT_SPLIT_TRAIN, &sh), CM_EFORMAT,
                   "truncated");
        ck_assert(strstr(cm_last_error(), "train-images-idx3-ubyte"));
        expect_err(dt_data_load(&s, DT_SPLIT_TRAIN, NULL, 0, &nm, &d),
                   CM_EFORMAT, "truncated");
        ck_assert_ptr_null(d.x);
        /* labels file alone: 60000 announced, 4 present */
        write_idx(N_IMG, N_IMG, 0x803, 0);
        rm_file("train-images-idx3-ubyte.gz");
        write_file(gz ? "train-labels-idx1-ubyte.gz"
                      : "train-labels-idx1-ubyte", lb, sizeof lb, gz);
        if (gz)
            rm_file("train-labels-idx1-ubyte");
        expect_err(dt_source_shape(&s, DT_SPLIT_TRAIN, &sh), CM_EFORMAT,
                   "truncated");
        ck_assert(strstr(cm_last_error(), "train-labels-idx1-ubyte"));
    }
    dt_source_destroy(&s);
}
END_TEST

/* Regression (issue 10, item 1): test images of another shape than the
 * training images are refused at set-up (dt_data_stats, which every
 * trainer calls first), naming the directory and both shapes. */
START_TEST(test_idx_split_shapes_differ)
{
    dt_source s;
    dt_norm st;
    write_idx(N_IMG, N_IMG, 0x803, 0);
    unsigned char b[16 + 3 * 2 * 2] = {0};
    put32(b, 0x803);
    put32(b + 4, 3);
    put32(b + 8, 2);
    put32(b + 12, 2);
    write_file("t10k-images-idx3-ubyte", b, sizeof b, 0);
    ck_assert_int_eq(dt_source_init(&s, DT_DS_MNIST, dir, 0), CM_OK);
    expect_err(dt_data_stats(&s, &st), CM_EFORMAT,
               "training images are 1x4x4 but test images 1x2x2");
    ck_assert(strstr(cm_last_error(), dir));
    dt_source_destroy(&s);
}
END_TEST

static void write_cifar(size_t per_file, int bad_label)
{
    size_t rec = 3073;
    unsigned char *b = malloc(3 * rec);
    for (int k = 0; k <= 5; k++) {
        size_t n = k < 5 ? per_file : 3;
        for (size_t r = 0; r < n; r++) {
            size_t i = (k < 5 ? (size_t)k * per_file : 100) + r;
            b[r * rec] = bad_label && k == 2 ? 10 : label(i);
            for (size_t j = 0; j < 3072; j++)
                b[r * rec + 1 + j] = pixel(i, j);
        }
        char name[64];
        if (k < 5)
            snprintf(name, sizeof name, "data_batch_%d.bin", k + 1);
        else
            snprintf(name, sizeof name, "test_batch.bin");
        write_file(name, b, n * rec, 0);
    }
    free(b);
}

START_TEST(test_cifar)
{
    dt_source s;
    dt_shape sh;
    ck_assert_int_eq(dt_source_init(&s, DT_DS_CIFAR10, dir, 0), CM_OK);
    expect_err(dt_source_shape(&s, DT_SPLIT_TRAIN, &sh), CM_EIO,
               "data_batch_1.bin");
    write_cifar(2, 0);
    ck_assert_int_eq(dt_source_shape(&s, DT_SPLIT_TRAIN, &sh), CM_OK);
    ck_assert_uint_eq(sh.n, 10);
    ck_assert_uint_eq(sh.c, 3);
    dt_norm nm = {.c = 3, .mean = {0}, .std = {1 / 255.0, 1 / 255.0,
                                               1 / 255.0}};
    dt_data d;
    size_t idx[3] = {9, 2, 4};
    ck_assert_int_eq(dt_data_load(&s, DT_SPLIT_TRAIN, idx, 3, &nm, &d), CM_OK);
    for (size_t k = 0; k < 3; k++) {
        ck_assert_uint_eq(d.y[k], label(idx[k]));
        for (size_t j = 0; j < 3072; j += 1000) /* R, G, B planes */
            ck_assert_float_eq_tol(d.x[k * 3072 + j], (float)pixel(idx[k], j),
                                   1e-3f);
    }
    dt_data_destroy(&d);
    ck_assert_int_eq(dt_data_load(&s, DT_SPLIT_TEST, NULL, 0, &nm, &d), CM_OK);
    ck_assert_uint_eq(d.n, 3);
    ck_assert_uint_eq(d.y[1], label(101));
    dt_data_destroy(&d);
    uint8_t *lab;
    size_t n;
    ck_assert_int_eq(dt_data_labels(&s, DT_SPLIT_TRAIN, &lab, &n), CM_OK);
    ck_assert_uint_eq(n, 10);
    ck_assert_uint_eq(lab[7], label(7));
    free(lab);
    dt_norm st;
    ck_assert_int_eq(dt_data_stats(&s, &st), CM_OK);
    ck_assert_uint_eq(st.c, 3);
    ck_assert(st.std[0] > 0 && st.mean[2] > 0);
    /* truncated batch and bad label */
    char path[512];
    snprintf(path, sizeof path, "%s/data_batch_3.bin", dir);
    ck_assert_int_eq(truncate(path, 3073 + 100), 0);
    expect_err(dt_source_shape(&s, DT_SPLIT_TRAIN, &sh), CM_EFORMAT,
               "data_batch_3.bin");
    ck_assert(strstr(cm_last_error(), "truncated"));
    write_cifar(2, 1);
    expect_err(dt_data_labels(&s, DT_SPLIT_TRAIN, &lab, &n), CM_EFORMAT,
               "data_batch_3.bin");
    dt_source_destroy(&s);
}
END_TEST

START_TEST(test_synthetic)
{
    dt_source s;
    ck_assert_int_eq(dt_source_init(&s, DT_DS_SYNTHETIC, NULL, 42), CM_OK);
    s.synth_n[DT_SPLIT_TRAIN] = 200;
    dt_norm st;
    ck_assert_int_eq(dt_data_stats(&s, &st), CM_OK);
    dt_data all, shard, again;
    ck_assert_int_eq(dt_data_load(&s, DT_SPLIT_TRAIN, NULL, 0, &st, &all),
                     CM_OK);
    ck_assert_int_eq(dt_data_load(&s, DT_SPLIT_TRAIN, NULL, 0, &st, &again),
                     CM_OK);
    ck_assert_mem_eq(all.x, again.x, 200 * 784 * sizeof(float));
    size_t idx[3] = {199, 17, 17};
    ck_assert_int_eq(dt_data_load(&s, DT_SPLIT_TRAIN, idx, 3, &st, &shard),
                     CM_OK);
    for (size_t k = 0; k < 3; k++) {
        ck_assert_uint_eq(shard.y[k], all.y[idx[k]]);
        ck_assert_mem_eq(shard.x + k * 784, all.x + idx[k] * 784,
                         784 * sizeof(float));
    }
    uint8_t *lab;
    size_t n;
    int hist[10] = {0};
    ck_assert_int_eq(dt_data_labels(&s, DT_SPLIT_TRAIN, &lab, &n), CM_OK);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(lab[i], all.y[i]);
        hist[lab[i]]++;
    }
    for (int k = 0; k < 10; k++)
        ck_assert_int_gt(hist[k], 5);
    free(lab);
    dt_data_destroy(&shard);
    dt_data_destroy(&again);
    dt_data_destroy(&all);
    dt_dataset ds;
    expect_err(dt_dataset_parse("imagenet", &ds), CM_EINVAL, "imagenet");
    ck_assert_int_eq(dt_dataset_parse("cifar10", &ds), CM_OK);
    ck_assert_int_eq(ds, DT_DS_CIFAR10);
    dt_source_destroy(&s);
}
END_TEST

Suite *data_suite(void)
{
    Suite *s = suite_create("data");
    TCase *tc = tcase_create("idx_plain_and_gzip");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_idx_plain_and_gz);
    suite_add_tcase(s, tc);
    tc = tcase_create("idx_bad_input_named");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_idx_bad_input);
    tcase_add_test(tc, test_idx_header_larger_than_file);
    tcase_add_test(tc, test_idx_split_shapes_differ);
    suite_add_tcase(s, tc);
    tc = tcase_create("cifar10");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_cifar);
    suite_add_tcase(s, tc);
    tc = tcase_create("synthetic");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_synthetic);
    suite_add_tcase(s, tc);
    return s;
}
