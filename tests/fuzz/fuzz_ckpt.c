/* fuzz_ckpt.c: libFuzzer harness for the checkpoint reader
 * (dt_ckpt_latest and dt_ckpt_read, train/core/dt_ckpt.c). Each input is
 * written as the `latest` marker (its first line) and as the file of
 * worker 0 of epoch 1, with its trailing crc32 recomputed (random bytes
 * almost never carry a valid checksum, and the checksum test is covered
 * by tests/unit/check_ckpt.c; this lets mutations reach the field checks). The expected configuration is taken from the
 * input's own header when it has one, so inputs reach the parameter load
 * as well as every refusal; a file dt_ckpt_read accepts must round-trip
 * through dt_ckpt_write to the same bytes. */
#include "fuzz_util.h"

#include <zlib.h>

#include "dt_ckpt.h"

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4096], sub[600];
    const char *dir = fuzz_scratch();
    snprintf(sub, sizeof sub, "%s/epoch-000001", dir);
    mkdir(sub, 0777);
    size_t nl = 0;
    while (nl < size && nl < 128 && data[nl] != '\n')
        nl++;
    fuzz_put("latest", data, nl, path, sizeof path);
    uint64_t epoch;
    (void)dt_ckpt_latest(dir, &epoch);
    uint8_t *file = malloc(size + 1);
    if (!file)
        abort();
    memcpy(file, data, size);
    if (size >= 4) {
        uLong crc = crc32(crc32(0L, Z_NULL, 0), file, (uInt)(size - 4));
        for (int i = 0; i < 4; i++)
            file[size - 4 + i] = (uint8_t)(crc >> (8 * i));
    }
    data = file;
    fuzz_put("epoch-000001/worker-000000.ckpt", data, size, path,
             sizeof path);
    dt_ckpt_meta want = {.n_workers = 1, .n_params = 1};
    if (size >= 104) {
        want.n_workers = le64(data + 16);
        want.fingerprint = le64(data + 56);
        want.n_state = data[12] % (DT_CKPT_MAX_STATE + 1);
        uint64_t np = le64(data + 64);
        if (np <= size / 4) /* else keep 1: the count mismatch path */
            want.n_params = np;
    }
    want.worker = 0;
    size_t cap = want.n_params ? want.n_params : 1;
    float *p = malloc(cap * sizeof *p);
    float *st[DT_CKPT_MAX_STATE] = {NULL};
    for (unsigned k = 0; k < want.n_state; k++)
        if (!(st[k] = malloc(cap * sizeof *st[k])))
            abort();
    dt_ckpt_meta got;
    if (!p)
        abort();
    if (dt_ckpt_read(dir, 1, &want, &got, p, st) == CM_OK) {
        char wdir[600];
        snprintf(wdir, sizeof wdir, "%s/again", dir);
        if (dt_ckpt_write(wdir, &got, p, st) != CM_OK)
            abort();
        dt_ckpt_path(path, sizeof path, wdir, got.epoch, got.worker);
        FILE *f = fopen(path, "rb");
        uint8_t *b = malloc(size + 1);
        if (!f || !b || fread(b, 1, size + 1, f) != size ||
            memcmp(b, data, size) != 0)
            abort();
        fclose(f);
        free(b);
        unlink(path);
    }
    for (unsigned k = 0; k < DT_CKPT_MAX_STATE; k++)
        free(st[k]);
    free(p);
    free(file);
    return 0;
}
