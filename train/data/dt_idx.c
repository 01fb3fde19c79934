/* dt_idx.c: the IDX format of MNIST and Fashion-MNIST (LeCun et al.).
 *
 * A file is a big-endian header (magic 0x00000803 for 3-D unsigned-byte
 * images: count, rows, cols; 0x00000801 for 1-D labels: count) followed by
 * the bytes. zlib's gzopen reads gzipped and plain files alike, so both
 * "X.gz" and "X" are accepted (the .gz is tried first). Images are streamed
 * in blocks; gzip errors (corrupt or truncated streams) are reported with
 * the file name and zlib's message.
 */
#include "dt_readers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#define IDX_IMAGES 0x00000803u
#define IDX_LABELS 0x00000801u
#define BLOCK_IMAGES 512

typedef struct {
    gzFile gz;
    char path[4096];
} idx_file;

static const char *base_name(dt_split sp, int labels)
{
    if (sp == DT_SPLIT_TRAIN)
        return labels ? "train-labels-idx1-ubyte" : "train-images-idx3-ubyte";
    return labels ? "t10k-labels-idx1-ubyte" : "t10k-images-idx3-ubyte";
}

/* zlib's message without the "path: " prefix it adds. */
static const char *gz_msg(idx_file *f, int *err)
{
    const char *m = gzerror(f->gz, err);
    size_t len = strlen(f->path);
    if (strncmp(m, f->path, len) == 0 && m[len] == ':' && m[len + 1] == ' ')
        m += len + 2;
    return m;
}

/* Reads exactly n bytes; on a short read names the file and what was
 * expected, distinguishing gzip errors from plain truncation. */
static cm_status read_exact(idx_file *f, void *buf, size_t n, const char *what)
{
    size_t got = 0;
    while (got < n) {
        unsigned chunk = n - got > (1u << 30) ? 1u << 30 : (unsigned)(n - got);
        int r = gzread(f->gz, (char *)buf + got, chunk);
        if (r < 0) {
            int err;
            const char *msg = gz_msg(f, &err);
            return cm_error(CM_EFORMAT, "%s: corrupt gzip data (%s)", f->path,
                            msg);
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (got < n) {
        int err = Z_OK;
        const char *msg = gz_msg(f, &err);
        if (err != Z_OK && err != Z_STREAM_END)
            return cm_error(CM_EFORMAT, "%s: corrupt or truncated gzip data "
                            "(%s) while reading %s", f->path, msg, what);
        return cm_error(CM_EFORMAT, "%s: truncated: %s needs %zu more bytes",
                        f->path, what, n - got);
    }
    return CM_OK;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

/* The header alone must not decide an allocation: the payload it
 * announces (count * rows * cols bytes) must fit in the file. A plain file
 * is checked exactly against its size; a gzip file against the most that
 * deflate can expand its size to (1032:1, plus the gzip framing), so a
 * 47-byte file cannot ask for gigabytes. A gzip file that passes this
 * bound but ends early is still reported as truncated by read_exact. */
#define DEFLATE_MAX_RATIO 1032u
static cm_status check_length(idx_file *f, const size_t dims[3], size_t hl,
                              uint64_t file_bytes)
{
    uint64_t need = (uint64_t)dims[0] * dims[1] * dims[2];
    if (gzdirect(f->gz)) {
        uint64_t have = file_bytes > hl ? file_bytes - hl : 0;
        if (need > have)
            return cm_error(CM_EFORMAT, "%s: truncated: the IDX header "
                            "announces %zu x %zu x %zu = %llu bytes of data "
                            "but the file holds %llu", f->path, dims[0],
                            dims[1], dims[2], (unsigned long long)need,
                            (unsigned long long)have);
    } else if (need + hl > DEFLATE_MAX_RATIO * file_bytes + 64) {
        return cm_error(CM_EFORMAT, "%s: truncated: the IDX header "
                        "announces %zu x %zu x %zu = %llu bytes of data but a "
                        "%llu-byte gzip file decompresses to at most %llu",
                        f->path, dims[0], dims[1], dims[2],
                        (unsigned long long)need,
                        (unsigned long long)file_bytes,
                        (unsigned long long)(DEFLATE_MAX_RATIO * file_bytes));
    }
    return CM_OK;
}

/* Opens dir/base.gz or dir/base and checks the header; dims receives
 * count (and rows, cols for images). */
static cm_status idx_open(idx_file *f, const char *dir, dt_split sp,
                          int labels, size_t dims[3])
{
    const char *base = base_name(sp, labels);
    struct stat st;
    int len = snprintf(f->path, sizeof f->path, "%s/%s.gz", dir, base);
    if (len < 0 || (size_t)len >= sizeof f->path)
        return cm_error(CM_EINVAL, "data directory path too long: %s", dir);
    if (stat(f->path, &st) != 0) {
        len = snprintf(f->path, sizeof f->path, "%s/%s", dir, base);
        if (len < 0 || stat(f->path, &st) != 0)
            return cm_error(CM_EIO, "missing data file %s/%s.gz (or %s)", dir,
                            base, base);
    }
    f->gz = gzopen(f->path, "rb");
    if (!f->gz)
        return cm_error(CM_EIO, "cannot open %s: %s", f->path,
                        errno ? strerror(errno) : "out of memory");
    gzbuffer(f->gz, 1u << 17);
    unsigned char h[16];
    size_t hl = labels ? 8 : 16;
    cm_status s = read_exact(f, h, hl, "the IDX header");
    if (s != CM_OK)
        return s;
    uint32_t magic = be32(h), want = labels ? IDX_LABELS : IDX_IMAGES;
    if (magic != want)
        return cm_error(CM_EFORMAT, "%s: wrong IDX magic number 0x%08x "
                        "(expected 0x%08x for %s)", f->path, magic, want,
                        labels ? "labels" : "images");
    dims[0] = be32(h + 4);
    dims[1] = labels ? 1 : be32(h + 8);
    dims[2] = labels ? 1 : be32(h + 12);
    if (dims[0] == 0 || dims[0] > 100000000 || dims[1] == 0 ||
        dims[1] > 4096 || dims[2] == 0 || dims[2] > 4096)
        return cm_error(CM_EFORMAT, "%s: implausible IDX dimensions %zu x %zu "
                        "x %zu", f->path, dims[0], dims[1], dims[2]);
    return check_length(f, dims, hl, (uint64_t)st.st_size);
}

static void idx_close(idx_file *f)
{
    if (f->gz)
        gzclose(f->gz);
    f->gz = NULL;
}

static cm_status file_shape(const char *dir, dt_split sp, dt_shape *sh)
{
    idx_file fi = {0}, fl = {0};
    size_t di[3], dl[3];
    cm_status s = idx_open(&fi, dir, sp, 0, di);
    if (s != CM_OK)
        goto cleanup;
    s = idx_open(&fl, dir, sp, 1, dl);
    if (s != CM_OK)
        goto cleanup;
    if (di[0] != dl[0]) {
        s = cm_error(CM_EFORMAT, "%s has %zu images but %s has %zu labels",
                     fi.path, di[0], fl.path, dl[0]);
        goto cleanup;
    }
    sh->n = di[0];
    sh->c = 1;
    sh->h = di[1];
    sh->w = di[2];
cleanup:
    idx_close(&fl);
    idx_close(&fi);
    return s;
}

static cm_status file_labels(const char *dir, dt_split sp, uint8_t *labels)
{
    idx_file fl = {0};
    size_t dl[3];
    cm_status s = idx_open(&fl, dir, sp, 1, dl);
    if (s != CM_OK)
        goto cleanup;
    s = read_exact(&fl, labels, dl[0], "the labels");
    if (s != CM_OK)
        goto cleanup;
    for (size_t i = 0; i < dl[0]; i++)
        if (labels[i] > 9) {
            s = cm_error(CM_EFORMAT, "%s: label %u of item %zu is outside "
                         "0..9", fl.path, labels[i], i);
            goto cleanup;
        }
cleanup:
    idx_close(&fl);
    return s;
}

static cm_status file_scan(const char *dir, dt_split sp, const uint8_t *want,
                          dt_visit_fn f, void *ctx)
{
    dt_shape sh;
    uint8_t *labels = NULL, *block = NULL;
    idx_file fi = {0};
    size_t di[3];
    cm_status s = file_shape(dir, sp, &sh);
    if (s != CM_OK)
        return s;
    if (!(labels = malloc(sh.n))) {
        s = cm_error(CM_ENOMEM, "out of memory reading %s", dir);
        goto cleanup;
    }
    if ((s = file_labels(dir, sp, labels)) != CM_OK)
        goto cleanup;
    if ((s = idx_open(&fi, dir, sp, 0, di)) != CM_OK)
        goto cleanup;
    size_t img = sh.h * sh.w;
    if (!(block = malloc(BLOCK_IMAGES * img))) {
        s = cm_error(CM_ENOMEM, "out of memory reading %s", fi.path);
        goto cleanup;
    }
    for (size_t i0 = 0; i0 < sh.n; i0 += BLOCK_IMAGES) {
        size_t nb = sh.n - i0 < BLOCK_IMAGES ? sh.n - i0 : BLOCK_IMAGES;
        char what[64];
        snprintf(what, sizeof what, "images %zu..%zu", i0, i0 + nb - 1);
        if ((s = read_exact(&fi, block, nb * img, what)) != CM_OK)
            goto cleanup;
        for (size_t j = 0; j < nb; j++) {
            size_t i = i0 + j;
            if (want && !want[i])
                continue;
            if ((s = f(ctx, i, block + j * img, labels[i])) != CM_OK)
                goto cleanup;
        }
    }
cleanup:
    free(block);
    idx_close(&fi);
    free(labels);
    return s;
}

#ifdef DT_SMPI
/* Under SimGrid's SMPI every simulated rank is a context of one process,
 * and each would decode the gzipped files itself: 256 ranks decoded the
 * 26 MB training file some 1,000 times before the first step (profiled at
 * 64 ranks: 60% of the CPU in zlib). The first rank to ask decodes the
 * whole split (labels and raw pixels) through the streaming path above,
 * so a bad file gives the same message, and hands it to the others through
 * SMPI_SHARED_CALL's process-wide table (the rank's own globals are
 * privatized, SimGrid's are not). Ranks run one at a time and the decode
 * makes no MPI call, so no other rank can see a half-filled split. The
 * split is never freed (it lives as long as the simulation); the bytes
 * each rank reads are the file's, so the bits are the Open MPI build's. */
#include <smpi/smpi.h>

typedef struct {
    dt_shape sh;
    uint8_t *labels; /* sh.n labels */
    uint8_t *pix;    /* sh.n images of sh.h * sh.w bytes */
} idx_split;

static cm_status keep_visit(void *ctx, size_t i, const uint8_t *pix,
                            uint8_t label)
{
    idx_split *d = ctx;
    size_t img = d->sh.h * d->sh.w;
    memcpy(d->pix + i * img, pix, img);
    d->labels[i] = label;
    return CM_OK;
}

static cm_status shared_split(const char *dir, dt_split sp,
                              const idx_split **out)
{
    char key[4200];
    snprintf(key, sizeof key, "%s|%d", dir, (int)sp);
    if (smpi_shared_known_call("dt_idx_split", key)) {
        *out = smpi_shared_get_call("dt_idx_split", key);
        return CM_OK;
    }
    idx_split *d = calloc(1, sizeof *d);
    cm_status s = d ? file_shape(dir, sp, &d->sh)
                    : cm_error(CM_ENOMEM, "out of memory reading %s", dir);
    if (s == CM_OK && (!(d->labels = malloc(d->sh.n)) ||
                       !(d->pix = malloc(d->sh.n * d->sh.h * d->sh.w))))
        s = cm_error(CM_ENOMEM, "out of memory reading %s", dir);
    if (s == CM_OK)
        s = file_scan(dir, sp, NULL, keep_visit, d);
    if (s != CM_OK) {
        if (d) {
            free(d->pix);
            free(d->labels);
            free(d);
        }
        return s;
    }
    *out = smpi_shared_set_call("dt_idx_split", key, d);
    return CM_OK;
}

cm_status dt_idx_shape(const char *dir, dt_split sp, dt_shape *sh)
{
    const idx_split *d = NULL;
    cm_status s = shared_split(dir, sp, &d);
    if (s == CM_OK)
        *sh = d->sh;
    return s;
}

cm_status dt_idx_labels(const char *dir, dt_split sp, uint8_t *labels)
{
    const idx_split *d = NULL;
    cm_status s = shared_split(dir, sp, &d);
    if (s == CM_OK)
        memcpy(labels, d->labels, d->sh.n);
    return s;
}

cm_status dt_idx_scan(const char *dir, dt_split sp, const uint8_t *want,
                      dt_visit_fn f, void *ctx)
{
    const idx_split *d = NULL;
    cm_status s = shared_split(dir, sp, &d);
    size_t img = d ? d->sh.h * d->sh.w : 0;
    for (size_t i = 0; s == CM_OK && i < d->sh.n; i++)
        if (!want || want[i])
            s = f(ctx, i, d->pix + i * img, d->labels[i]);
    return s;
}
#else
cm_status dt_idx_shape(const char *dir, dt_split sp, dt_shape *sh)
{
    return file_shape(dir, sp, sh);
}

cm_status dt_idx_labels(const char *dir, dt_split sp, uint8_t *labels)
{
    return file_labels(dir, sp, labels);
}

cm_status dt_idx_scan(const char *dir, dt_split sp, const uint8_t *want,
                      dt_visit_fn f, void *ctx)
{
    return file_scan(dir, sp, want, f, ctx);
}
#endif
