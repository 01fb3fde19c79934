/* check_model_file.c: the safetensors reader's file rules (issue 24
 * items 6, 8 and 11; issue 25's metadata): the full JSON escape set and
 * long metadata strings read; non-JSON scalars, overlapping tensors,
 * holes and trailing bytes, NaN and Inf refused naming the tensor; a
 * directory or FIFO refused at once; the size limit checked on the file's
 * size; "__metadata__" written and read back bit for bit. Each refusal
 * here was accepted (or hung) with the hand-written reader. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>

#include "check_env.h"
#include "cm_rng.h"
#include "cm_status.h"
#include "dt_model_io.h"
#include "dt_net.h"

static dt_net *net;
static char good[] = "/tmp/check_model_file.XXXXXX";
static unsigned char *gbuf; /* the good file */
static size_t glen, ghlen;

static void setup(void)
{
    ck_assert_int_eq(dt_net_new(DT_MODEL_LENET, 1, 28, 28, 10, 4,
                                check_allow_own, &net), CM_OK);
    cm_rng r;
    cm_rng_seed(&r, 5, 0);
    dt_net_init(net, net->params, &r);
    int fd = mkstemp(good);
    ck_assert_int_ge(fd, 0);
    close(fd);
    dt_model_meta m = {.dataset = "cifar10", .channels = 3,
                       .mean = {0.1, 0.2, 1.0 / 3.0},
                       .std = {0.25, 0.5, 2.0 / 3.0}};
    ck_assert_int_eq(dt_model_save(net, net->params, &m, good), CM_OK);
    FILE *f = fopen(good, "rb");
    fseek(f, 0, SEEK_END);
    glen = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    gbuf = malloc(glen);
    ck_assert_uint_eq(fread(gbuf, 1, glen, f), glen);
    fclose(f);
    ghlen = 0;
    for (int i = 0; i < 8; i++)
        ghlen |= (size_t)gbuf[i] << (8 * i);
}

static void teardown(void)
{
    unlink(good);
    free(gbuf);
    dt_net_free(net);
}

/* Writes a file of header text (padded to 8) and the good file's data
 * part (plus extra zero bytes); returns its path (static). */
static const char *write_with(const char *header, size_t extra)
{
    static char path[64];
    strcpy(path, "/tmp/check_model_hdr.XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    size_t hl = strlen(header), pad = (8 - hl % 8) % 8;
    unsigned char n8[8];
    for (int i = 0; i < 8; i++)
        n8[i] = (unsigned char)((uint64_t)(hl + pad) >> (8 * i));
    FILE *f = fdopen(fd, "wb");
    fwrite(n8, 1, 8, f);
    fwrite(header, 1, hl, f);
    fwrite("        ", 1, pad, f);
    fwrite(gbuf + 8 + ghlen, 1, glen - 8 - ghlen, f);
    for (size_t k = 0; k < extra; k++)
        fputc(0, f);
    fclose(f);
    return path;
}

/* The good header's text with `from` replaced by `to` (any lengths). */
static char *edited(const char *from, const char *to)
{
    char *h = strndup((const char *)gbuf + 8, ghlen);
    char *p = strstr(h, from);
    ck_assert_msg(p != NULL, "'%s' not in the header", from);
    size_t n = strlen(h) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    memcpy(out, h, (size_t)(p - h));
    strcpy(out + (p - h), to);
    strcat(out, p + strlen(from));
    free(h);
    return out;
}

static void expect_refused(const char *path, const char *msg)
{
    float *p = calloc(net->n_params, sizeof *p);
    ck_assert_int_ne(dt_model_load(net, path, p), CM_OK);
    ck_assert_msg(strstr(cm_last_error(), msg), "'%s' lacks '%s'",
                  cm_last_error(), msg);
    for (size_t i = 0; i < net->n_params; i++)
        ck_assert(p[i] == 0.0f); /* untouched */
    free(p);
}

static void expect_loads(const char *path)
{
    float *p = calloc(net->n_params, sizeof *p);
    ck_assert_msg(dt_model_load(net, path, p) == CM_OK, "%s",
                  cm_last_error());
    ck_assert_int_eq(memcmp(p, net->params, net->n_params * sizeof *p), 0);
    free(p);
}

START_TEST(test_metadata_round_trip)
{
    expect_loads(good);
    dt_model_meta m;
    ck_assert_int_eq(dt_model_read_meta(good, &m), CM_OK);
    ck_assert_str_eq(m.model, "lenet");
    ck_assert_str_eq(m.dataset, "cifar10");
    ck_assert_uint_eq(m.c, 1);
    ck_assert_uint_eq(m.h, 28);
    ck_assert_uint_eq(m.w, 28);
    ck_assert_uint_eq(m.classes, 10);
    ck_assert_uint_eq(m.channels, 3);
    ck_assert(m.mean[2] == 1.0 / 3.0 && m.std[2] == 2.0 / 3.0);
    ck_assert(m.mean[0] == 0.1 && m.std[1] == 0.5);
}
END_TEST

/* Issue 24 item 11 / issue 20: valid JSON any writer may emit. */
START_TEST(test_any_valid_json)
{
    char longv[400];
    memset(longv, 'x', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    char meta[600];
    snprintf(meta, sizeof meta, "\"__metadata__\":{\"note\":\"a\\nb\\t\\u0041"
             "\\\\ \\/ \\\"q\\\" \\u00e9\",\"long\":\"%s\",", longv);
    char *h = edited("\"__metadata__\":{", meta);
    char *h2 = strdup(h);
    char *p = strstr(h2, "\"0.weight\"");
    ck_assert_ptr_nonnull(p);
    free(h);
    h = malloc(strlen(h2) + 16);
    memcpy(h, h2, (size_t)(p - h2));
    strcpy(h + (p - h2), "\"0.w\\u0065ight\"");
    strcat(h, p + strlen("\"0.weight\""));
    const char *path = write_with(h, 0);
    expect_loads(path);
    unlink(path);
    free(h);
    free(h2);
    /* whitespace and newlines between tokens */
    h = edited("{\"dtype\"", "{ \n\t\"dtype\"");
    path = write_with(h, 0);
    expect_loads(path);
    unlink(path);
    free(h);
}
END_TEST

START_TEST(test_refused)
{
    static const struct { const char *from, *to, *msg; } cases[] = {
        /* non-JSON scalars */
        {"\"dtype\":\"F32\"", "\"dtype\":\"F32\",\"x\":nan", "corrupt header"},
        {"\"dtype\":\"F32\"", "\"dtype\":\"F32\",\"x\":True", "corrupt header"},
        {"\"dtype\":\"F32\"", "\"dtype\":\"F32\",\"x\":0x10", "corrupt header"},
        {"\"dtype\":\"F32\"", "\"dtype\":\"F32\",\"x\":'a'", "corrupt header"},
        /* metadata values must be strings */
        {"\"producer\":\"dpsgd-train\"", "\"producer\":1", "not a string"},
        /* overlapping tensors (0.bias over 0.weight) and so a hole */
        {"[600,624]", "[0,24]", "overlap"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *h = edited(cases[k].from, cases[k].to);
        const char *path = write_with(h, 0);
        expect_refused(path, cases[k].msg);
        unlink(path);
        free(h);
    }
    /* unused trailing bytes */
    char *h = strndup((const char *)gbuf + 8, ghlen);
    const char *path = write_with(h, 8);
    expect_refused(path, "8 bytes after the last tensor belong to no tensor");
    unlink(path);
    free(h);
}
END_TEST

/* Issue 24 item 8: NaN or Inf in a tensor, named at load. */
START_TEST(test_non_finite)
{
    char name[32];
    const dt_layer *l = dt_model_tensor(net, 2, name, sizeof name);
    ck_assert_ptr_nonnull(l);
    /* 3.weight starts after 0.weight (150) and 0.bias (6) floats */
    const float bad[2] = {NAN, INFINITY};
    for (int k = 0; k < 2; k++) {
        unsigned char *b = malloc(glen);
        memcpy(b, gbuf, glen);
        memcpy(b + 8 + ghlen + 4 * (156 + 7), &bad[k], 4);
        char path[] = "/tmp/check_model_nan.XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_eq((size_t)write(fd, b, glen), glen);
        close(fd);
        expect_refused(path, k ? "tensor '3.weight' holds Inf at element 7"
                               : "tensor '3.weight' holds NaN at element 7");
        unlink(path);
        free(b);
    }
}
END_TEST

/* Issue 24 items 6 and 11: a directory, a FIFO (never opened for a
 * blocking read), a file beyond the limit (checked on its size). */
START_TEST(test_not_a_model_file)
{
    expect_refused("/tmp", "not a regular file (a directory)");
    char fifo[] = "/tmp/check_model_fifo.XXXXXX";
    int fd = mkstemp(fifo);
    close(fd);
    unlink(fifo);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    expect_refused(fifo, "not a regular file (a FIFO)");
    dt_model_meta m;
    ck_assert_int_ne(dt_model_read_meta(fifo, &m), CM_OK);
    unlink(fifo);
    char big[] = "/tmp/check_model_big.XXXXXX";
    fd = mkstemp(big);
    ck_assert_int_eq(ftruncate(fd, (off_t)DT_MODEL_MAX_BYTES + 1), 0);
    close(fd);
    expect_refused(big, "larger than the 1073741824-byte (1 GiB) limit");
    unlink(big);
}
END_TEST

Suite *model_file_suite(void)
{
    Suite *s = suite_create("model_file");
    TCase *tc = tcase_create("rules");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_metadata_round_trip);
    tcase_add_test(tc, test_any_valid_json);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_non_finite);
    tcase_add_test(tc, test_not_a_model_file);
    suite_add_tcase(s, tc);
    return s;
}
