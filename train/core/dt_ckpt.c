/* dt_ckpt.c: checkpoint files (format in dt_ckpt.h) and the directory
 * protocol: per-worker files, then an atomic DIR/latest marker, then
 * removal of older epochs.
 *
 * Bytes are serialized explicitly in little-endian order so a checkpoint
 * moves between hosts; the crc32 (zlib) covers header and payload, and is
 * checked over the whole file before any field is trusted beyond the
 * lengths needed to find the end. Arrays stream through a fixed 16 KiB
 * buffer, so memory use does not grow with the model.
 */
#include "dt_ckpt.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "cm_atomic.h"
#include "cm_lock.h"

#define CK_MAGIC "DPSGDCK"   /* 7 chars + NUL = 8 bytes */
#define CK_VERSION 1u
#define CK_HDR 104
#define CK_CHUNK 4096        /* floats per streaming chunk */
#define CK_MAX_PARAMS (UINT64_C(1) << 40)
#define CK_PATH 4096

static void put_u32(unsigned char *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *b)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

static uint64_t get_u64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

void dt_ckpt_path(char *buf, size_t n, const char *dir, uint64_t epoch,
                  uint64_t worker)
{
    snprintf(buf, n, "%s/epoch-%06llu/worker-%06llu.ckpt", dir,
             (unsigned long long)epoch, (unsigned long long)worker);
}

static void header_encode(unsigned char *h, const dt_ckpt_meta *m)
{
    memset(h, 0, CK_HDR);
    memcpy(h, CK_MAGIC, 8);
    put_u32(h + 8, CK_VERSION);
    put_u32(h + 12, m->n_state);
    const uint64_t f[11] = {m->n_workers, m->worker, m->epoch, m->step,
                            m->pos, m->fingerprint, m->n_params,
                            m->rng.s[0], m->rng.s[1], m->rng.s[2],
                            m->rng.s[3]};
    for (int i = 0; i < 11; i++)
        put_u64(h + 16 + 8 * i, f[i]);
}

static void header_decode(const unsigned char *h, dt_ckpt_meta *m)
{
    m->n_state = get_u32(h + 12);
    uint64_t f[11];
    for (int i = 0; i < 11; i++)
        f[i] = get_u64(h + 16 + 8 * i);
    m->n_workers = f[0];
    m->worker = f[1];
    m->epoch = f[2];
    m->step = f[3];
    m->pos = f[4];
    m->fingerprint = f[5];
    m->n_params = f[6];
    for (int i = 0; i < 4; i++)
        m->rng.s[i] = f[7 + i];
}

/* Writes n bytes and folds them into *crc. Returns 0 on a write error. */
static int put_bytes(FILE *fp, uLong *crc, const unsigned char *b, size_t n)
{
    *crc = crc32(*crc, b, (uInt)n);
    return fwrite(b, 1, n, fp) == n;
}

static int put_floats(FILE *fp, uLong *crc, const float *x, uint64_t n)
{
    unsigned char buf[4 * CK_CHUNK];
    for (uint64_t i = 0; i < n; i += CK_CHUNK) {
        size_t k = n - i < CK_CHUNK ? (size_t)(n - i) : CK_CHUNK;
        for (size_t e = 0; e < k; e++) {
            uint32_t u;
            memcpy(&u, &x[i + e], 4);
            put_u32(buf + 4 * e, u);
        }
        if (!put_bytes(fp, crc, buf, 4 * k))
            return 0;
    }
    return 1;
}

/* Rejects directory names too long for our fixed path buffers. */
static cm_status dir_ok(const char *dir)
{
    if (!dir || !*dir)
        return cm_error(CM_EINVAL, "empty checkpoint directory name");
    if (strlen(dir) > CK_PATH - 64)
        return cm_error(CM_EINVAL, "checkpoint directory name too long "
                        "(%zu characters)", strlen(dir));
    return CM_OK;
}

static cm_status make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return cm_error(CM_EIO, "cannot create checkpoint directory %s: %s",
                        path, strerror(errno));
    return CM_OK;
}

/* CM_OK when path is a directory itself, not a symbolic link to one: a
 * link inside DIR would let this run write into (or prune) another run's
 * checkpoint. */
static cm_status real_dir(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return cm_error(CM_EIO, "cannot stat %s: %s", path, strerror(errno));
    if (S_ISLNK(sb.st_mode))
        return cm_error(CM_EIO, "%s is a symbolic link: a checkpoint "
                        "directory is written and pruned only by the run "
                        "that owns it, never through a link (to start from "
                        "another run's checkpoint, copy it: cp -r A B, then "
                        "--checkpoint B --resume)", path);
    if (!S_ISDIR(sb.st_mode))
        return cm_error(CM_EIO, "%s is not a directory", path);
    return CM_OK;
}

cm_status dt_ckpt_write(const char *dir, const dt_ckpt_meta *m,
                        const float *params, float *const *state)
{
    char path[CK_PATH];
    unsigned char h[CK_HDR], tail[4];
    cm_afile f = {0};
    cm_status s;

    if (m->n_state > DT_CKPT_MAX_STATE)
        return cm_error(CM_EINVAL, "checkpoint with %u state arrays (at "
                        "most %d)", m->n_state, DT_CKPT_MAX_STATE);
    for (unsigned k = 0; k < m->n_state; k++)
        if (!state || !state[k])
            return cm_error(CM_EINVAL, "checkpoint state array %u missing", k);
    if ((s = dir_ok(dir)) != CM_OK || (s = make_dir(dir)) != CM_OK)
        return s;
    snprintf(path, sizeof path, "%s/epoch-%06llu", dir,
             (unsigned long long)m->epoch);
    if ((s = make_dir(path)) != CM_OK || (s = real_dir(path)) != CM_OK)
        return s;
    dt_ckpt_path(path, sizeof path, dir, m->epoch, m->worker);
    if ((s = cm_atomic_open(&f, path)) != CM_OK)
        return s;
    uLong crc = crc32(0L, Z_NULL, 0);
    header_encode(h, m);
    int ok = put_bytes(f.fp, &crc, h, CK_HDR) &&
             put_floats(f.fp, &crc, params, m->n_params);
    for (unsigned k = 0; ok && k < m->n_state; k++)
        ok = put_floats(f.fp, &crc, state[k], m->n_params);
    put_u32(tail, (uint32_t)crc);
    ok = ok && fwrite(tail, 1, 4, f.fp) == 4;
    if (!ok)
        return cm_atomic_fail(&f);
    return cm_atomic_commit(&f);
}

/* Removes DIR/name (an epoch-* directory): its worker-* files, then it. */
static void remove_epoch_dir(const char *dir, const char *name)
{
    char sub[CK_PATH], file[2 * CK_PATH];
    snprintf(sub, sizeof sub, "%s/%s", dir, name);
    struct stat sb;
    if (lstat(sub, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return; /* a link (or anything else) is never followed */
    DIR *d = opendir(sub);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "worker-", 7) != 0)
            continue;
        snprintf(file, sizeof file, "%s/%s", sub, e->d_name);
        unlink(file);
    }
    closedir(d);
    rmdir(sub);
}

/* Removes epoch-E and the run state file DIR/state-E.bin that goes with
 * it (dt_dpsgd_state), if any. */
static void remove_epoch(const char *dir, uint64_t e)
{
    char name[64], path[CK_PATH + 64];
    snprintf(name, sizeof name, "epoch-%06llu", (unsigned long long)e);
    remove_epoch_dir(dir, name);
    snprintf(path, sizeof path, "%s/state-%06llu.bin", dir,
             (unsigned long long)e);
    unlink(path);
}

/* Parses "epoch-NNNNNN" (digits only); 0 when nm is not such a name. */
static int epoch_name(const char *nm, uint64_t *epoch)
{
    if (strncmp(nm, "epoch-", 6) != 0 || !nm[6] ||
        strspn(nm + 6, "0123456789") != strlen(nm + 6) || strlen(nm) > 26)
        return 0;
    *epoch = strtoull(nm + 6, NULL, 10);
    return 1;
}

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The header of the first readable worker-* file of DIR/name (a real
 * directory, never a link): 1 and *m, or 0. */
static int epoch_header(const char *dir, const char *name, dt_ckpt_meta *m)
{
    char sub[CK_PATH], file[2 * CK_PATH];
    unsigned char h[CK_HDR];
    struct stat sb;
    snprintf(sub, sizeof sub, "%s/%s", dir, name);
    if (lstat(sub, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    DIR *d = opendir(sub);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "worker-", 7) != 0 || strstr(e->d_name, ".tmp."))
            continue;
        snprintf(file, sizeof file, "%s/%s", sub, e->d_name);
        if (lstat(file, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        FILE *f = fopen(file, "rb");
        if (!f)
            continue;
        if (fread(h, 1, CK_HDR, f) == CK_HDR && memcmp(h, CK_MAGIC, 8) == 0 &&
            get_u32(h + 8) == CK_VERSION) {
            header_decode(h, m);
            found = 1;
        }
        fclose(f);
    }
    closedir(d);
    return found;
}

/* The settings fingerprint in the first readable worker-* file header
 * of DIR/name: 1 and *fp, or 0. */
static int epoch_owner(const char *dir, const char *name, uint64_t *fp)
{
    dt_ckpt_meta m;
    if (!epoch_header(dir, name, &m))
        return 0;
    *fp = m.fingerprint;
    return 1;
}

cm_status dt_ckpt_epoch_meta(const char *dir, uint64_t epoch,
                             dt_ckpt_meta *m)
{
    char name[64];
    if (dir_ok(dir) != CM_OK)
        return CM_EINVAL;
    snprintf(name, sizeof name, "epoch-%06llu", (unsigned long long)epoch);
    if (!epoch_header(dir, name, m))
        return cm_error(CM_EIO, "no readable worker file in %s/%s", dir,
                        name);
    return CM_OK;
}

/* Removes every epoch directory of this run (its worker files carry the
 * fingerprint `own`) but the `keep` newest at or below `epoch` (those
 * above it are leftovers of an unfinished save). Directories of other
 * runs, links and directories without a readable worker file stay. */
static void prune(const char *dir, uint64_t epoch, size_t keep, uint64_t own)
{
    uint64_t *kept = NULL, e, fp;
    size_t n = 0, cap = 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!epoch_name(de->d_name, &e) ||
            !epoch_owner(dir, de->d_name, &fp) || fp != own)
            continue;
        if (e > epoch) {
            remove_epoch(dir, e);
            continue;
        }
        if (n == cap) {
            uint64_t *k = realloc(kept, (cap = 2 * cap + 8) * sizeof *k);
            if (!k)
                break; /* out of memory: keep everything this time */
            kept = k;
        }
        kept[n++] = e;
    }
    closedir(d);
    if (kept)
        qsort(kept, n, sizeof *kept, cmp_desc);
    for (size_t i = keep; i < n; i++)
        remove_epoch(dir, kept[i]);
    free(kept);
}

cm_status dt_ckpt_commit_keep(const char *dir, uint64_t epoch,
                              uint64_t n_workers, size_t keep)
{
    char path[CK_PATH], name[64];
    struct stat sb;
    uint64_t own = 0;
    if (dir_ok(dir) != CM_OK)
        return CM_EINVAL;
    for (uint64_t w = 0; w < n_workers; w++) {
        dt_ckpt_path(path, sizeof path, dir, epoch, w);
        if (stat(path, &sb) != 0)
            return cm_error(CM_EIO, "checkpoint incomplete: %s is missing",
                            path);
    }
    snprintf(name, sizeof name, "epoch-%06llu", (unsigned long long)epoch);
    if (!epoch_owner(dir, name, &own))
        return cm_error(CM_EIO, "checkpoint incomplete: no readable worker "
                        "file in %s/%s", dir, name);
    snprintf(path, sizeof path, "%s/latest", dir);
    cm_afile f;
    cm_status s = cm_atomic_open(&f, path);
    if (s != CM_OK)
        return s;
    fprintf(f.fp, "%s\n", name);
    if ((s = cm_atomic_commit(&f)) != CM_OK)
        return s;
    prune(dir, epoch, keep ? keep : 1, own);
    return CM_OK;
}

cm_status dt_ckpt_commit(const char *dir, uint64_t epoch, uint64_t n_workers)
{
    return dt_ckpt_commit_keep(dir, epoch, n_workers, 1);
}

void dt_ckpt_discard(const char *dir, uint64_t epoch)
{
    uint64_t latest;
    if (dir_ok(dir) != CM_OK)
        return;
    if (dt_ckpt_latest(dir, &latest) == CM_OK && latest == epoch)
        return;
    remove_epoch(dir, epoch);
}

cm_status dt_ckpt_prepare(const char *dir, cm_lock *lock)
{
    char path[CK_PATH];
    cm_status s;
    lock->fd = -1;
    lock->path = NULL;
    if ((s = dir_ok(dir)) != CM_OK || (s = make_dir(dir)) != CM_OK)
        return s;
    snprintf(path, sizeof path, "%s/lock", dir);
    if ((s = cm_lock_acquire(lock, path, dir)) != CM_OK)
        return s;
    if ((s = dt_ckpt_scan(dir, 1, NULL)) != CM_OK)
        cm_lock_release(lock);
    return s;
}

/* 1 when nm ends in cm_atomic's temporary suffix ".tmp.XXXXXX". */
static int tmp_name(const char *nm)
{
    size_t l = strlen(nm);
    return l > 11 && memcmp(nm + l - 11, ".tmp.", 5) == 0;
}

/* Removes the regular files with a temporary name in folder. */
static void remove_tmp(const char *folder)
{
    char file[2 * CK_PATH];
    struct stat sb;
    DIR *d = opendir(folder);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!tmp_name(e->d_name))
            continue;
        snprintf(file, sizeof file, "%s/%s", folder, e->d_name);
        if (lstat(file, &sb) == 0 && S_ISREG(sb.st_mode))
            unlink(file);
    }
    closedir(d);
}

cm_status dt_ckpt_scan(const char *dir, int clean, dt_ckpt_dir_info *info)
{
    char path[CK_PATH], state[CK_PATH];
    struct stat sb;
    cm_status s = CM_OK;
    uint64_t e;
    if (info)
        memset(info, 0, sizeof *info);
    if ((s = dir_ok(dir)) != CM_OK)
        return s;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? CM_OK
                               : cm_error(CM_EIO, "cannot read %s: %s", dir,
                                          strerror(errno));
    if (clean)
        remove_tmp(dir);
    struct dirent *de;
    while (s == CM_OK && (de = readdir(d)) != NULL) {
        const char *nm = de->d_name;
        int ep = epoch_name(nm, &e);
        if (!ep && strncmp(nm, "state-", 6) != 0 && strcmp(nm, "latest") != 0 &&
            strcmp(nm, "settings") != 0 && strcmp(nm, "neighbours") != 0 &&
            strcmp(nm, "placement") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, nm);
        if (lstat(path, &sb) != 0)
            continue;
        if (S_ISLNK(sb.st_mode)) {
            s = cm_error(CM_EIO, "%s is a symbolic link: a checkpoint "
                         "directory is written and pruned only by the run "
                         "that owns it, never through a link (to start from "
                         "another run's checkpoint, copy it: cp -r A B, then "
                         "--checkpoint B --resume)", path);
            break;
        }
        if (!ep || !S_ISDIR(sb.st_mode))
            continue;
        if (clean)
            remove_tmp(path);
        uint64_t fp;
        snprintf(state, sizeof state, "%s/state-%06llu.bin", dir,
                 (unsigned long long)e);
        if (info && epoch_owner(dir, nm, &fp) && stat(state, &sb) == 0) {
            info->complete++;
            if (e > info->newest)
                info->newest = e;
        }
    }
    closedir(d);
    return s;
}

cm_status dt_ckpt_latest(const char *dir, uint64_t *epoch)
{
    char path[CK_PATH], line[128];
    if (dir_ok(dir) != CM_OK)
        return CM_EINVAL;
    snprintf(path, sizeof path, "%s/latest", dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return cm_error(CM_EIO, "no complete checkpoint in %s (%s: %s)", dir,
                        path, strerror(errno));
    int ok = fgets(line, sizeof line, fp) != NULL;
    fclose(fp);
    unsigned long long e = 0;
    int used = 0;
    if (!ok || sscanf(line, "epoch-%llu%n", &e, &used) != 1 ||
        (line[used] != '\n' && line[used] != '\0'))
        return cm_error(CM_EFORMAT, "%s: malformed checkpoint marker (want "
                        "one line epoch-NNNNNN)", path);
    *epoch = (uint64_t)e;
    return CM_OK;
}

/* Reads n floats (little-endian) into x, or skips them when x is NULL. */
static int get_floats(FILE *fp, float *x, uint64_t n)
{
    unsigned char buf[4 * CK_CHUNK];
    for (uint64_t i = 0; i < n; i += CK_CHUNK) {
        size_t k = n - i < CK_CHUNK ? (size_t)(n - i) : CK_CHUNK;
        if (fread(buf, 1, 4 * k, fp) != 4 * k)
            return 0;
        for (size_t e = 0; x && e < k; e++) {
            uint32_t u = get_u32(buf + 4 * e);
            memcpy(&x[i + e], &u, 4);
        }
    }
    return 1;
}

/* Checks magic, version, length and crc of the open file. */
static cm_status check_file(FILE *fp, const char *path, dt_ckpt_meta *m)
{
    unsigned char h[CK_HDR], buf[16384], tail[4];
    struct stat sb;
    if (fstat(fileno(fp), &sb) != 0)
        return cm_error(CM_EIO, "cannot stat %s: %s", path, strerror(errno));
    uint64_t size = (uint64_t)sb.st_size;
    if (size < 8 || fread(h, 1, 8, fp) != 8 || memcmp(h, CK_MAGIC, 8) != 0)
        return cm_error(CM_EFORMAT, "%s: not a dpsgd-train checkpoint (bad "
                        "magic)", path);
    if (size < CK_HDR + 4 || fread(h + 8, 1, CK_HDR - 8, fp) != CK_HDR - 8)
        return cm_error(CM_EFORMAT, "%s: truncated (corrupt checkpoint)",
                        path);
    if (get_u32(h + 8) != CK_VERSION)
        return cm_error(CM_EFORMAT, "%s: checkpoint version %u, this program "
                        "reads version %u", path, get_u32(h + 8), CK_VERSION);
    header_decode(h, m);
    if (m->n_params > CK_MAX_PARAMS)
        return cm_error(CM_EFORMAT, "%s: implausible parameter count %llu "
                        "(corrupt checkpoint)", path,
                        (unsigned long long)m->n_params);
    if (m->n_state > DT_CKPT_MAX_STATE)
        return cm_error(CM_EFORMAT, "%s: %u state arrays (corrupt "
                        "checkpoint)", path, m->n_state);
    uint64_t want = CK_HDR + 4 * m->n_params * (1 + m->n_state) + 4;
    if (size < want)
        return cm_error(CM_EFORMAT, "%s: truncated (corrupt checkpoint): %llu "
                        "bytes, header implies %llu", path,
                        (unsigned long long)size, (unsigned long long)want);
    if (size > want)
        return cm_error(CM_EFORMAT, "%s: %llu trailing bytes (corrupt "
                        "checkpoint)", path,
                        (unsigned long long)(size - want));
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, h, CK_HDR);
    for (uint64_t left = want - CK_HDR - 4; left > 0;) {
        size_t k = left < sizeof buf ? (size_t)left : sizeof buf;
        if (fread(buf, 1, k, fp) != k)
            return cm_error(CM_EIO, "cannot read %s", path);
        crc = crc32(crc, buf, (uInt)k);
        left -= k;
    }
    if (fread(tail, 1, 4, fp) != 4)
        return cm_error(CM_EIO, "cannot read %s", path);
    if (get_u32(tail) != (uint32_t)crc)
        return cm_error(CM_EFORMAT, "%s: checksum mismatch (corrupt "
                        "checkpoint)", path);
    return CM_OK;
}

/* Compares one header field with the running configuration. */
static cm_status expect_eq(const char *path, const char *what, uint64_t got,
                           uint64_t want)
{
    if (got == want)
        return CM_OK;
    return cm_error(CM_EINVAL, "%s: checkpoint has %s %llu but the running "
                    "configuration has %llu", path, what,
                    (unsigned long long)got, (unsigned long long)want);
}

cm_status dt_ckpt_read(const char *dir, uint64_t epoch,
                       const dt_ckpt_meta *expect, dt_ckpt_meta *got,
                       float *params, float *const *state)
{
    char path[CK_PATH];
    if (dir_ok(dir) != CM_OK)
        return CM_EINVAL;
    dt_ckpt_path(path, sizeof path, dir, epoch, expect->worker);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return cm_error(CM_EIO, "cannot open checkpoint %s: %s", path,
                        strerror(errno));
    cm_status s = check_file(fp, path, got);
    if (s != CM_OK)
        goto done;
    if ((s = expect_eq(path, "workers", got->n_workers,
                       expect->n_workers)) != CM_OK ||
        (s = expect_eq(path, "worker id", got->worker,
                       expect->worker)) != CM_OK ||
        (s = expect_eq(path, "epoch", got->epoch, epoch)) != CM_OK ||
        (s = expect_eq(path, "parameter count", got->n_params,
                       expect->n_params)) != CM_OK ||
        (s = expect_eq(path, "state arrays", got->n_state,
                       expect->n_state)) != CM_OK ||
        (s = expect_eq(path, "settings fingerprint", got->fingerprint,
                       expect->fingerprint)) != CM_OK) {
        if (got->fingerprint != expect->fingerprint)
            s = cm_error(CM_EINVAL, "%s was written with other settings "
                         "(model, data, partition, seed, batch, learning "
                         "rate, schedule, epochs or topology differ): resume "
                         "with the flags of the run that wrote it", path);
        goto done;
    }
    int ok = fseek(fp, CK_HDR, SEEK_SET) == 0 &&
             get_floats(fp, params, got->n_params);
    for (unsigned k = 0; ok && k < got->n_state; k++)
        ok = get_floats(fp, state[k], got->n_params);
    if (!ok)
        s = cm_error(CM_EIO, "cannot read %s", path);
done:
    fclose(fp);
    return s;
}
