/* check_ckpt.c: checkpoint files and the DIR/latest protocol: round trip
 * (bit-exact arrays, RNG state continues the same sequence), a flipped
 * byte and a truncated file are reported as corrupt naming the file,
 * mismatched sizes against the running configuration are named, a missing
 * marker means "no complete checkpoint", and committing a new epoch
 * removes the old one only after the marker moved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <zlib.h>

#include "dt_ckpt.h"

#define NP 5000 /* more than one streaming chunk */

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/check_ckpt_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static dt_ckpt_meta meta(uint64_t worker, uint64_t epoch)
{
    dt_ckpt_meta m;
    memset(&m, 0, sizeof m);
    m.n_workers = 3;
    m.worker = worker;
    m.epoch = epoch;
    m.step = 1000 * epoch + worker;
    m.pos = 17;
    m.fingerprint = 0xfeedULL;
    m.n_params = NP;
    m.n_state = 1;
    cm_rng_seed(&m.rng, 5, worker);
    cm_rng_u64(&m.rng);
    return m;
}

static void fill(float *p, float *v, uint64_t worker)
{
    for (size_t k = 0; k < NP; k++) {
        p[k] = (float)k * 0.001f - (float)worker;
        v[k] = -1.0f / (float)(k + 1);
    }
    p[3] = -0.0f;
    v[4] = 1e-38f; /* subnormal-adjacent values survive */
}

static void write_epoch(uint64_t epoch)
{
    float *p = malloc(NP * sizeof *p), *v = malloc(NP * sizeof *v);
    for (uint64_t w = 0; w < 3; w++) {
        dt_ckpt_meta m = meta(w, epoch);
        fill(p, v, w);
        ck_assert_int_eq(dt_ckpt_write(dir, &m, p, &v), CM_OK);
    }
    free(p);
    free(v);
}

static cm_status read_one(uint64_t worker, uint64_t epoch,
                          const dt_ckpt_meta *expect)
{
    float *p = malloc(NP * sizeof *p), *v = malloc(NP * sizeof *v);
    dt_ckpt_meta got;
    cm_status s = dt_ckpt_read(dir, epoch, expect, &got, p, &v);
    free(p);
    free(v);
    (void)worker;
    return s;
}

START_TEST(test_round_trip)
{
    make_dir();
    uint64_t e = 99;
    ck_assert_int_eq(dt_ckpt_latest(dir, &e), CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "no complete checkpoint"));
    ck_assert_ptr_nonnull(strstr(cm_last_error(), dir));
    write_epoch(1);
    /* files written but not committed: still no complete checkpoint */
    ck_assert_int_eq(dt_ckpt_latest(dir, &e), CM_EIO);
    ck_assert_int_eq(dt_ckpt_commit(dir, 1, 3), CM_OK);
    ck_assert_int_eq(dt_ckpt_latest(dir, &e), CM_OK);
    ck_assert_uint_eq(e, 1);
    float *p = malloc(NP * sizeof *p), *v = malloc(NP * sizeof *v);
    float *p0 = malloc(NP * sizeof *p), *v0 = malloc(NP * sizeof *v);
    for (uint64_t w = 0; w < 3; w++) {
        dt_ckpt_meta want = meta(w, 1), got;
        fill(p0, v0, w);
        ck_assert_int_eq(dt_ckpt_read(dir, 1, &want, &got, p, &v), CM_OK);
        ck_assert_mem_eq(p, p0, NP * sizeof *p);
        ck_assert_mem_eq(v, v0, NP * sizeof *v);
        ck_assert_uint_eq(got.step, want.step);
        ck_assert_uint_eq(got.pos, 17);
        ck_assert_uint_eq(got.epoch, 1);
        for (int k = 0; k < 100; k++) /* the generator continues */
            ck_assert_uint_eq(cm_rng_u64(&got.rng), cm_rng_u64(&want.rng));
    }
    /* a new epoch replaces the old one only once committed */
    write_epoch(2);
    char path[256];
    dt_ckpt_path(path, sizeof path, dir, 1, 0);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_eq(dt_ckpt_commit(dir, 2, 3), CM_OK);
    ck_assert_int_eq(access(path, F_OK), -1);
    snprintf(path, sizeof path, "%s/epoch-000001", dir);
    ck_assert_int_eq(access(path, F_OK), -1);
    ck_assert_int_eq(dt_ckpt_latest(dir, &e), CM_OK);
    ck_assert_uint_eq(e, 2);
    /* commit refuses an epoch with a missing worker file */
    dt_ckpt_meta m = meta(0, 3);
    fill(p, v, 0);
    ck_assert_int_eq(dt_ckpt_write(dir, &m, p, &v), CM_OK);
    ck_assert_int_eq(dt_ckpt_commit(dir, 3, 3), CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "worker-000001.ckpt"));
    ck_assert_int_eq(dt_ckpt_latest(dir, &e), CM_OK);
    ck_assert_uint_eq(e, 2);
    /* no momentum stored */
    m = meta(1, 4);
    m.n_state = 0;
    ck_assert_int_eq(dt_ckpt_write(dir, &m, p, NULL), CM_OK);
    dt_ckpt_meta got;
    memset(p0, 0, NP * sizeof *p0);
    ck_assert_int_eq(dt_ckpt_read(dir, 4, &m, &got, p0, NULL), CM_OK);
    ck_assert_mem_eq(p, p0, NP * sizeof *p);
    free(p);
    free(v);
    free(p0);
    free(v0);
    remove_dir();
}
END_TEST

/* Rewrites byte `at` of worker 0's epoch-1 file (or truncates it to `at`
 * bytes when cut is set). */
static void damage(long at, int cut)
{
    char path[256];
    dt_ckpt_path(path, sizeof path, dir, 1, 0);
    if (cut) {
        ck_assert_int_eq(truncate(path, at), 0);
        return;
    }
    FILE *fp = fopen(path, "r+b");
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(fseek(fp, at, SEEK_SET), 0);
    int c = fgetc(fp);
    ck_assert_int_ne(c, EOF);
    ck_assert_int_eq(fseek(fp, at, SEEK_SET), 0);
    fputc(c ^ 0x10, fp);
    ck_assert_int_eq(fclose(fp), 0);
}

/* Recomputes the trailing crc32 of worker 0's epoch-1 file, so a damaged
 * field gets past the checksum to the field checks. */
static void fix_crc(void)
{
    char path[256];
    dt_ckpt_path(path, sizeof path, dir, 1, 0);
    FILE *fp = fopen(path, "r+b");
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
    long n = ftell(fp) - 4;
    unsigned char *b = malloc((size_t)n);
    rewind(fp);
    ck_assert_uint_eq(fread(b, 1, (size_t)n, fp), (size_t)n);
    uLong crc = crc32(crc32(0L, Z_NULL, 0), b, (uInt)n);
    unsigned char t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (unsigned char)(crc >> (8 * i));
    ck_assert_int_eq(fseek(fp, n, SEEK_SET), 0);
    ck_assert_uint_eq(fwrite(t, 1, 4, fp), 4);
    ck_assert_int_eq(fclose(fp), 0);
    free(b);
}

START_TEST(test_corruption)
{
    static const struct {
        long at;          /* byte offset */
        int cut;          /* 1: truncate instead of flipping a bit;
                             2: flip, then make the crc valid again */
        const char *want; /* in the message */
    } cases[] = {
        /* a state count beyond the format's (fuzz_ckpt found unknown flag
         * bits accepted and dropped when this word was a flag set) */
        {12, 2, "17 state arrays (corrupt checkpoint)"},
        {0, 0, "bad magic"},
        {40, 0, "checksum mismatch"},         /* epoch field */
        {104 + 4 * 1234, 0, "checksum mismatch"}, /* a parameter */
        {104 + 8 * NP + 2, 0, "checksum mismatch"}, /* the crc itself */
        {104 + 4 * 10, 1, "truncated"},
        {50, 1, "truncated"},
        {4, 1, "bad magic"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        make_dir();
        write_epoch(1);
        damage(cases[c].at, cases[c].cut == 1);
        if (cases[c].cut == 2)
            fix_crc();
        dt_ckpt_meta want = meta(0, 1);
        ck_assert_int_eq(read_one(0, 1, &want), CM_EFORMAT);
        ck_assert_msg(strstr(cm_last_error(), cases[c].want),
                      "case %zu: %s", c, cm_last_error());
        ck_assert_ptr_nonnull(strstr(cm_last_error(), "worker-000000.ckpt"));
        /* the other workers' files are intact */
        want = meta(1, 1);
        ck_assert_int_eq(read_one(1, 1, &want), CM_OK);
        remove_dir();
    }
}
END_TEST

START_TEST(test_mismatch_and_marker)
{
    make_dir();
    write_epoch(1);
    ck_assert_int_eq(dt_ckpt_commit(dir, 1, 3), CM_OK);
    static const char *what[] = {"workers", "parameter count",
                                 "state arrays", "written with other settings"};
    for (int k = 0; k < 4; k++) {
        dt_ckpt_meta want = meta(2, 1);
        if (k == 0)
            want.n_workers = 4;
        else if (k == 1)
            want.n_params = NP - 1;
        else if (k == 2)
            want.n_state = 0;
        else
            want.fingerprint = 1;
        ck_assert_int_eq(read_one(2, 1, &want), CM_EINVAL);
        ck_assert_msg(strstr(cm_last_error(), what[k]), "%s",
                      cm_last_error());
        ck_assert_ptr_nonnull(strstr(cm_last_error(), "worker-000002.ckpt"));
    }
    dt_ckpt_meta want = meta(2, 1);
    ck_assert_int_eq(read_one(2, 5, &want), CM_EIO); /* no such epoch */
    /* a malformed marker */
    char path[256];
    snprintf(path, sizeof path, "%s/latest", dir);
    FILE *fp = fopen(path, "w");
    fputs("epoch-x\n", fp);
    fclose(fp);
    uint64_t e;
    ck_assert_int_eq(dt_ckpt_latest(dir, &e), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), path));
    unlink(path);
    ck_assert_int_eq(dt_ckpt_latest(dir, &e), CM_EIO);
    remove_dir();
    /* an unwritable directory: nothing half-written */
    dt_ckpt_meta m = meta(0, 1);
    float p[NP] = {0}, v[NP] = {0};
    ck_assert_int_eq(dt_ckpt_write("/proc/nonexistent", &m, p,
                                   (float *[]){v}), CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "/proc/nonexistent"));
}
END_TEST

static int epoch_dir_exists(uint64_t e)
{
    char path[128];
    struct stat sb;
    snprintf(path, sizeof path, "%s/epoch-%06llu", dir, (unsigned long long)e);
    return stat(path, &sb) == 0;
}

/* Issue 10 items 4 and 8: --keep K generations; a failed save's partial
 * epoch is removed, the committed one never. */
START_TEST(test_keep_and_discard)
{
    make_dir();
    uint64_t e;
    for (uint64_t ep = 1; ep <= 4; ep++) {
        write_epoch(ep);
        ck_assert_int_eq(dt_ckpt_commit_keep(dir, ep, 3, 2), CM_OK);
        ck_assert_int_eq(dt_ckpt_latest(dir, &e), CM_OK);
        ck_assert_uint_eq(e, ep);
        ck_assert(epoch_dir_exists(ep));
        ck_assert_int_eq(epoch_dir_exists(ep - 1), ep >= 2);
        ck_assert(!epoch_dir_exists(ep - 2));
    }
    dt_ckpt_meta want = meta(1, 3); /* the older generation is readable */
    ck_assert_int_eq(read_one(1, 3, &want), CM_OK);
    /* a failed save of epoch 5 (one worker written) is discarded whole */
    float *p = calloc(NP, sizeof *p), *v = calloc(NP, sizeof *v);
    dt_ckpt_meta m = meta(0, 5);
    ck_assert_int_eq(dt_ckpt_write(dir, &m, p, &v), CM_OK);
    ck_assert(epoch_dir_exists(5));
    dt_ckpt_discard(dir, 5);
    ck_assert(!epoch_dir_exists(5));
    dt_ckpt_discard(dir, 4); /* latest: kept */
    ck_assert(epoch_dir_exists(4));
    /* leftovers above the committed epoch go at the next commit; keep 1 */
    m = meta(0, 9);
    ck_assert_int_eq(dt_ckpt_write(dir, &m, p, &v), CM_OK);
    write_epoch(5);
    ck_assert_int_eq(dt_ckpt_commit_keep(dir, 5, 3, 1), CM_OK);
    ck_assert(!epoch_dir_exists(9) && !epoch_dir_exists(4));
    ck_assert(epoch_dir_exists(5));
    free(p);
    free(v);
    remove_dir();
}
END_TEST

/* Issue 10 items 3 and 5: the checkpoint directory is created and locked
 * at start-up; a second run is refused, an unwritable one named. */
START_TEST(test_prepare_lock)
{
    make_dir();
    char sub[128];
    snprintf(sub, sizeof sub, "%s/ck", dir);
    cm_lock a, b;
    ck_assert_int_eq(dt_ckpt_prepare(sub, &a), CM_OK);
    ck_assert_int_eq(dt_ckpt_prepare(sub, &b), CM_EIO);
    ck_assert_msg(strstr(cm_last_error(), "in use by another run") &&
                      strstr(cm_last_error(), sub),
                  "%s", cm_last_error());
    cm_lock_release(&b);
    cm_lock_release(&a);
    ck_assert_int_eq(dt_ckpt_prepare(sub, &b), CM_OK);
    cm_lock_release(&b);
    snprintf(sub, sizeof sub, "%s/no/such/ck", dir);
    ck_assert_int_eq(dt_ckpt_prepare(sub, &a), CM_EIO);
    ck_assert(strstr(cm_last_error(), sub));
    ck_assert(strstr(cm_last_error(), "No such file or directory"));
    remove_dir();
}
END_TEST

/* Issue 24 items 1, 2, 10: a linked epoch is refused and never pruned
 * through; pruning keeps another run's epochs (other fingerprint); the
 * temporary files of a killed save go at the next start; complete epochs
 * (worker file + state file) are counted for the "another run" rule. */
START_TEST(test_owned_directory)
{
    make_dir();
    char path[256], other[128], cmd[512];
    struct stat sb;
    dt_ckpt_dir_info info;
    float *p = calloc(NP, sizeof *p), *v = calloc(NP, sizeof *v);
    /* another run (fingerprint 0xbeef) left epoch 1 in DIR */
    dt_ckpt_meta m = meta(0, 1);
    m.fingerprint = 0xbeefULL;
    ck_assert_int_eq(dt_ckpt_write(dir, &m, p, &v), CM_OK);
    ck_assert_int_eq(dt_ckpt_scan(dir, 0, &info), CM_OK);
    ck_assert_uint_eq(info.complete, 0); /* no state-000001.bin */
    snprintf(path, sizeof path, "%s/state-000001.bin", dir);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fclose(fp);
    ck_assert_int_eq(dt_ckpt_scan(dir, 0, &info), CM_OK);
    ck_assert_uint_eq(info.complete, 1);
    ck_assert_uint_eq(info.newest, 1);
    /* this run's epochs 2..4 with --keep 1: epoch 1 is not this run's */
    for (uint64_t ep = 2; ep <= 4; ep++) {
        write_epoch(ep);
        ck_assert_int_eq(dt_ckpt_commit_keep(dir, ep, 3, 1), CM_OK);
    }
    ck_assert(epoch_dir_exists(1) && epoch_dir_exists(4));
    ck_assert(!epoch_dir_exists(2) && !epoch_dir_exists(3));
    ck_assert_int_eq(stat(path, &sb), 0);
    /* a link to another directory: refused, and never pruned through */
    snprintf(other, sizeof other, "%s-other", dir);
    ck_assert_int_eq(mkdir(other, 0777), 0);
    snprintf(path, sizeof path, "%s/worker-000000.ckpt", other);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/epoch-000003", dir);
    ck_assert_int_eq(symlink(other, path), 0);
    ck_assert_int_eq(dt_ckpt_scan(dir, 0, NULL), CM_EIO);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "is a symbolic link"));
    m = meta(0, 3);
    ck_assert_int_eq(dt_ckpt_write(dir, &m, p, &v), CM_EIO);
    write_epoch(5);
    ck_assert_int_eq(dt_ckpt_commit_keep(dir, 5, 3, 1), CM_OK);
    snprintf(path, sizeof path, "%s/worker-000000.ckpt", other);
    ck_assert_int_eq(stat(path, &sb), 0); /* the link's target intact */
    snprintf(path, sizeof path, "%s/epoch-000003", dir);
    unlink(path);
    /* temporary files: removed by a cleaning scan, kept by a plain one */
    snprintf(path, sizeof path, "%s/latest.tmp.Ab12Cd", dir);
    fp = fopen(path, "w");
    fclose(fp);
    snprintf(cmd, sizeof cmd, "%s/epoch-000005/worker-000001.ckpt.tmp.Xy34Zw",
             dir);
    fp = fopen(cmd, "w");
    fclose(fp);
    ck_assert_int_eq(dt_ckpt_scan(dir, 0, NULL), CM_OK);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(dt_ckpt_scan(dir, 1, NULL), CM_OK);
    ck_assert_int_ne(stat(path, &sb), 0);
    ck_assert_int_ne(stat(cmd, &sb), 0);
    free(p);
    free(v);
    snprintf(cmd, sizeof cmd, "rm -rf '%s-other'", dir);
    ck_assert_int_eq(system(cmd), 0);
    remove_dir();
}
END_TEST

/* Three state arrays (gradient tracking's y, v, h_prev) survive in order;
 * too many, a missing one, or a reader expecting another count refused. */
START_TEST(test_state_arrays)
{
    make_dir();
    float p[NP], a[NP], b[NP], c[NP], ra[NP], rb[NP], rc[NP], rp[NP];
    for (size_t k = 0; k < NP; k++) {
        p[k] = (float)k;
        a[k] = 1.0f + (float)k;
        b[k] = -2.0f * (float)k;
        c[k] = 0.25f / (float)(k + 1);
    }
    dt_ckpt_meta m = meta(0, 7), got;
    m.n_state = 3;
    ck_assert_int_eq(dt_ckpt_write(dir, &m, p, (float *[]){a, b, c}), CM_OK);
    ck_assert_int_eq(dt_ckpt_read(dir, 7, &m, &got, rp,
                                  (float *[]){ra, rb, rc}), CM_OK);
    ck_assert_uint_eq(got.n_state, 3);
    ck_assert_mem_eq(rp, p, sizeof p);
    ck_assert_mem_eq(ra, a, sizeof a);
    ck_assert_mem_eq(rb, b, sizeof b);
    ck_assert_mem_eq(rc, c, sizeof c);
    m.n_state = 1; /* a D-PSGD run resuming a gradient-tracking file */
    ck_assert_int_eq(dt_ckpt_read(dir, 7, &m, &got, rp, (float *[]){ra}),
                     CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "state arrays 3"));
    m.n_state = DT_CKPT_MAX_STATE + 1;
    ck_assert_int_eq(dt_ckpt_write(dir, &m, p, (float *[]){a, b, c, a, b}),
                     CM_EINVAL);
    m.n_state = 2;
    ck_assert_int_eq(dt_ckpt_write(dir, &m, p, (float *[]){a, NULL}),
                     CM_EINVAL);
    remove_dir();
}
END_TEST

Suite *ckpt_suite(void)
{
    Suite *s = suite_create("ckpt");
    TCase *tc = tcase_create("round_trip");
    tcase_add_test(tc, test_round_trip);
    suite_add_tcase(s, tc);
    tc = tcase_create("corruption_detected");
    tcase_add_test(tc, test_corruption);
    suite_add_tcase(s, tc);
    tc = tcase_create("mismatch_and_marker");
    tcase_add_test(tc, test_mismatch_and_marker);
    tcase_add_test(tc, test_state_arrays);
    suite_add_tcase(s, tc);
    tc = tcase_create("keep_generations_and_discard");
    tcase_add_test(tc, test_keep_and_discard);
    suite_add_tcase(s, tc);
    tc = tcase_create("prepare_locks_dir");
    tcase_add_test(tc, test_prepare_lock);
    tcase_add_test(tc, test_owned_directory);
    suite_add_tcase(s, tc);
    return s;
}
