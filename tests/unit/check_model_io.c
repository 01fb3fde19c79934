/* check_model_io.c: model files (dt_model_io). PyTorch names of both
 * models against scripts/benches/bench_torch.py's nn.Sequential indices; save +
 * load gives the parameters back bit for bit; a header edited to lie
 * (dtype, shape, offsets, a duplicate or a missing tensor, a
 * truncated file, a header length past the end) is refused with a message
 * naming the tensor, and the parameters are left untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_env.h"
#include "cm_rng.h"
#include "cm_status.h"
#include "dt_model_io.h"
#include "dt_net.h"

START_TEST(test_names)
{
    static const char *lenet[] = {"0.weight", "0.bias", "3.weight", "3.bias",
                                  "7.weight", "7.bias", "9.weight", "9.bias",
                                  "11.weight", "11.bias"};
    static const char *cnn[] = {"0.weight", "0.bias", "2.weight", "2.bias",
                                "5.weight", "5.bias", "7.weight", "7.bias",
                                "11.weight", "11.bias", "13.weight",
                                "13.bias"};
    const char *const *want[] = {lenet, cnn};
    const size_t n[] = {10, 12};
    for (int m = 0; m < 2; m++) {
        dt_net *net = NULL;
        ck_assert_int_eq(dt_net_new(m ? DT_MODEL_CNN : DT_MODEL_LENET, 1, 28,
                                    28, 10, 4, check_allow_own, &net),
                         CM_OK);
        char buf[32];
        for (size_t t = 0; t < n[m]; t++) {
            ck_assert_ptr_nonnull(dt_model_tensor(net, t, buf, sizeof buf));
            ck_assert_str_eq(buf, want[m][t]);
        }
        ck_assert_ptr_null(dt_model_tensor(net, n[m], buf, sizeof buf));
        dt_net_free(net);
    }
}
END_TEST

static char *slurp(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)*size + 1);
    ck_assert_int_eq(fread(b, 1, (size_t)*size, f), (size_t)*size);
    fclose(f);
    b[*size] = 0;
    return b;
}

static void spit(const char *path, const char *b, long size)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(b, 1, (size_t)size, f), (size_t)size);
    fclose(f);
}

/* Replaces the first occurrence of `from` in the header by `to` (same
 * length, so offsets stay valid) and checks the load fails naming `msg`. */
static void expect_bad(const dt_net *net, const char *good, long size,
                       const char *from, const char *to, long cut,
                       const char *msg)
{
    char path[] = "/tmp/check_model_io.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    char *b = malloc((size_t)size + 1);
    memcpy(b, good, (size_t)size + 1);
    if (from) {
        char *p = strstr(b + 8, from);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq(strlen(from), strlen(to));
        memcpy(p, to, strlen(to));
    }
    spit(path, b, cut ? cut : size);
    float *p = calloc(net->n_params, sizeof *p);
    ck_assert_int_ne(dt_model_load(net, path, p), CM_OK);
    if (!strstr(cm_last_error(), msg))
        ck_abort_msg("message '%s' lacks '%s'", cm_last_error(), msg);
    for (size_t i = 0; i < net->n_params; i++)
        ck_assert(p[i] == 0.0f); /* untouched */
    free(p);
    free(b);
    unlink(path);
    close(fd);
}

START_TEST(test_roundtrip_and_bad_files)
{
    dt_net *net = NULL;
    ck_assert_int_eq(dt_net_new(DT_MODEL_LENET, 1, 28, 28, 10, 4,
                                check_allow_own, &net), CM_OK);
    cm_rng r;
    cm_rng_seed(&r, 3, 0);
    dt_net_init(net, net->params, &r);
    for (size_t i = 0; i < net->n_params; i++)
        net->params[i] += (float)cm_rng_normal(&r);
    char path[] = "/tmp/check_model_io.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(dt_model_save(net, net->params, NULL, path), CM_OK);
    float *q = malloc(net->n_params * sizeof *q);
    ck_assert_int_eq(dt_model_load(net, path, q), CM_OK);
    ck_assert_int_eq(memcmp(q, net->params, net->n_params * sizeof *q), 0);
    long size;
    char *good = slurp(path, &size);
    ck_assert_uint_eq(size % 8, 0);
    ck_assert_uint_eq((unsigned long)size,
                      8 + (unsigned char)good[0] +
                          256u * (unsigned char)good[1] +
                          4 * net->n_params);
    expect_bad(net, good, size, "\"F32\"", "\"F16\"", 0,
               "tensor '0.weight' has dtype 'F16'");
    expect_bad(net, good, size, "[6,1,5,5]", "[6,1,5,4]", 0,
               "tensor '0.weight' has shape [6,1,5,4], expected [6,1,5,5]");
    expect_bad(net, good, size, "\"3.bias\"", "\"3.weig\"", 0,
               "tensor '3.bias' missing");
    expect_bad(net, good, size, "\"7.bias\"", "\"7.weigh", 0,
               "corrupt header");
    expect_bad(net, good, size, "[600,624]", "[600,628]", 0,
               "tensor '0.bias': data_offsets do not match");
    expect_bad(net, good, size, "\"9.bias\"", "\"0.bias\"", 0,
               "duplicate object key");
    expect_bad(net, good, size, NULL, NULL, size - 4,
               "tensor '11.bias' ends at byte");
    expect_bad(net, good, size, NULL, NULL, 4, "too short");
    good[2] = 0x7f; /* header length past the end of the file */
    expect_bad(net, good, size, NULL, NULL, 0, "header length");
    /* another architecture */
    dt_net *cnn = NULL;
    ck_assert_int_eq(dt_net_new(DT_MODEL_CNN, 1, 28, 28, 10, 4,
                                check_allow_own, &cnn), CM_OK);
    float *c = calloc(cnn->n_params, sizeof *c);
    ck_assert_int_ne(dt_model_load(cnn, path, c), CM_OK);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "tensor '0.weight' has "
                                 "shape [6,1,5,5], expected [32,1,3,3]"));
    free(c);
    dt_net_free(cnn);
    free(good);
    free(q);
    unlink(path);
    close(fd);
    dt_net_free(net);
}
END_TEST

Suite *model_io_suite(void)
{
    Suite *s = suite_create("model_io");
    TCase *tc = tcase_create("pytorch_names");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("roundtrip_and_bad_files");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_roundtrip_and_bad_files);
    suite_add_tcase(s, tc);
    return s;
}
