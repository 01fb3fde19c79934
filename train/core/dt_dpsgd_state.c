/* dt_dpsgd_state.c: the run-level checkpoint file (see dt_dpsgd_state.h):
 * a few hundred bytes per epoch, written with cm_atomic and guarded by a
 * zlib crc32 like the worker files of dt_ckpt. */
#include "dt_dpsgd_state.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "cm_atomic.h"

#define STATE_MAGIC "DPSGDST"
#define STATE_VERSION 4u /* 2: log rows carry lr, test_loss; 3: model_s;
                            4: train_loss_global */

cm_status dt_run_state_add(dt_run_state *rs, const dt_log_row *row,
                           double train_s, uint64_t bytes)
{
    if (rs->n_rows == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 16;
        dt_log_row *p = realloc(rs->rows, cap * sizeof *p);
        if (!p)
            return cm_error(CM_ENOMEM, "out of memory for the run state");
        rs->rows = p;
        rs->cap = cap;
    }
    rs->rows[rs->n_rows++] = *row;
    rs->train_s = train_s;
    rs->bytes = bytes;
    return CM_OK;
}

void dt_run_state_destroy(dt_run_state *rs)
{
    if (!rs)
        return;
    free(rs->rows);
    memset(rs, 0, sizeof *rs);
}

static void state_path(char *buf, size_t n, const char *dir, uint64_t epoch)
{
    snprintf(buf, n, "%s/state-%06llu.bin", dir, (unsigned long long)epoch);
}

/* The file image: header, rows, crc. */
typedef struct {
    char magic[8];
    uint32_t version, row_size;
    uint64_t epoch;
    double train_s;
    uint64_t bytes, n_rows;
} state_header;

cm_status dt_run_state_write(const char *dir, uint64_t epoch,
                             const dt_run_state *rs)
{
    char path[4200];
    state_path(path, sizeof path, dir, epoch);
    state_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, STATE_MAGIC, sizeof STATE_MAGIC);
    h.version = STATE_VERSION;
    h.row_size = (uint32_t)sizeof(dt_log_row);
    h.epoch = epoch;
    h.train_s = rs->train_s;
    h.bytes = rs->bytes;
    h.n_rows = rs->n_rows;
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, (const Bytef *)&h, sizeof h);
    if (rs->n_rows)
        crc = crc32(crc, (const Bytef *)rs->rows,
                    (uInt)(rs->n_rows * sizeof *rs->rows));
    uint32_t c32 = (uint32_t)crc;
    cm_afile f;
    cm_status s = cm_atomic_open(&f, path);
    if (s != CM_OK)
        return s;
    if (fwrite(&h, sizeof h, 1, f.fp) != 1 ||
        (rs->n_rows &&
         fwrite(rs->rows, sizeof *rs->rows, rs->n_rows, f.fp) != rs->n_rows) ||
        fwrite(&c32, sizeof c32, 1, f.fp) != 1) {
        cm_atomic_abort(&f);
        return cm_error(CM_EIO, "cannot write %s", path);
    }
    return cm_atomic_commit(&f);
}

cm_status dt_run_state_read(const char *dir, uint64_t epoch,
                            dt_run_state *rs)
{
    char path[4200];
    state_path(path, sizeof path, dir, epoch);
    memset(rs, 0, sizeof *rs);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return cm_error(CM_EIO, "cannot open %s: %s", path, strerror(errno));
    cm_status s = CM_OK;
    state_header h;
    uint32_t c32;
    if (fread(&h, sizeof h, 1, fp) != 1) {
        s = cm_error(CM_EFORMAT, "%s: truncated (corrupt checkpoint)", path);
        goto cleanup;
    }
    if (memcmp(h.magic, STATE_MAGIC, sizeof STATE_MAGIC) != 0 ||
        h.version != STATE_VERSION || h.row_size != sizeof(dt_log_row)) {
        s = cm_error(CM_EFORMAT, "%s: not a run-state file of this version "
                     "(corrupt checkpoint?)", path);
        goto cleanup;
    }
    if (h.epoch != epoch || h.n_rows > 1000000) {
        s = cm_error(CM_EFORMAT, "%s: belongs to epoch %llu, not %llu "
                     "(corrupt checkpoint)", path,
                     (unsigned long long)h.epoch, (unsigned long long)epoch);
        goto cleanup;
    }
    rs->n_rows = rs->cap = (size_t)h.n_rows;
    rs->rows = malloc((rs->cap ? rs->cap : 1) * sizeof *rs->rows);
    if (!rs->rows) {
        s = cm_error(CM_ENOMEM, "out of memory reading %s", path);
        goto cleanup;
    }
    if ((rs->n_rows &&
         fread(rs->rows, sizeof *rs->rows, rs->n_rows, fp) != rs->n_rows) ||
        fread(&c32, sizeof c32, 1, fp) != 1) {
        s = cm_error(CM_EFORMAT, "%s: truncated (corrupt checkpoint)", path);
        goto cleanup;
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, (const Bytef *)&h, sizeof h);
    if (rs->n_rows)
        crc = crc32(crc, (const Bytef *)rs->rows,
                    (uInt)(rs->n_rows * sizeof *rs->rows));
    if ((uint32_t)crc != c32) {
        s = cm_error(CM_EFORMAT, "%s: checksum mismatch (corrupt checkpoint)",
                     path);
        goto cleanup;
    }
    rs->train_s = h.train_s;
    rs->bytes = h.bytes;
cleanup:
    fclose(fp);
    if (s != CM_OK)
        dt_run_state_destroy(rs);
    return s;
}

void dt_run_state_prune(const char *dir, uint64_t keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char want[64], path[4200];
    snprintf(want, sizeof want, "state-%06llu.bin", (unsigned long long)keep);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "state-", 6) != 0 ||
            strcmp(e->d_name, want) == 0 || !strstr(e->d_name, ".bin") ||
            strstr(e->d_name, ".tmp."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}
