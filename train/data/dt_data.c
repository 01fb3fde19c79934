/* dt_data.c: data set dispatch, streamed statistics and shard loading.
 *
 * A shard load turns the index list into a per-image mask and a map from
 * source image to output slots (a counting sort over the split, O(n + k)),
 * then lets the back end stream the split once, normalizing each wanted
 * image into every slot that asked for it. Only the selected images are
 * ever held as floats.
 */
#include "dt_data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dt_readers.h"

static const char *const DS_NAMES[] = {"fashion-mnist", "mnist", "cifar10",
                                       "synthetic"};
static const char *const DS_DIRS[] = {"/usr/share/datasets/fashion-mnist",
                                      "/usr/share/datasets/mnist",
                                      "/usr/share/datasets/cifar10", NULL};

cm_status dt_dataset_parse(const char *name, dt_dataset *d)
{
    for (int i = 0; i < 4; i++)
        if (name && strcmp(name, DS_NAMES[i]) == 0) {
            *d = (dt_dataset)i;
            return CM_OK;
        }
    return cm_error(CM_EINVAL, "unknown data set '%s' (expected "
                    "fashion-mnist, mnist, cifar10 or synthetic)",
                    name ? name : "");
}

const char *dt_dataset_name(dt_dataset d) { return DS_NAMES[d]; }

const char *dt_dataset_default_dir(dt_dataset d) { return DS_DIRS[d]; }

cm_status dt_source_init(dt_source *s, dt_dataset kind, const char *dir,
                         uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->seed = seed;
    s->synth_n[DT_SPLIT_TRAIN] = 4096;
    s->synth_n[DT_SPLIT_TEST] = 1024;
    if (kind == DT_DS_SYNTHETIC)
        return CM_OK;
    if (!dir)
        dir = DS_DIRS[kind];
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return cm_error(CM_EIO, "data directory %s is not a directory (give "
                        "the folder that holds the data set's files)", dir);
    if (stat(dir, &st) != 0)
        return cm_error(CM_EIO, "data directory %s does not exist%s", dir,
                        kind == DT_DS_FASHION
                            ? " (apt-get install dataset-fashion-mnist)"
                        : kind == DT_DS_CIFAR10
                            ? " (CIFAR-10 is not packaged: unpack its binary "
                              "version, cifar-10-binary.tar.gz, and give its "
                              "folder with --data DIR)"
                            : " (MNIST is not packaged in Debian 12: copy "
                              "its four IDX files into a folder and give it "
                              "with --data DIR)");
    if (!(s->dir = strdup(dir)))
        return cm_error(CM_ENOMEM, "out of memory");
    return CM_OK;
}

void dt_source_destroy(dt_source *s)
{
    if (!s)
        return;
    free(s->dir);
    s->dir = NULL;
}

cm_status dt_source_shape(const dt_source *s, dt_split sp, dt_shape *sh)
{
    switch (s->kind) {
    case DT_DS_FASHION:
    case DT_DS_MNIST:
        return dt_idx_shape(s->dir, sp, sh);
    case DT_DS_CIFAR10:
        return dt_cifar_shape(s->dir, sp, sh);
    case DT_DS_SYNTHETIC:
        return dt_synth_shape(s, sp, sh);
    }
    return cm_error(CM_EINTERNAL, "bad data set kind");
}

static cm_status scan(const dt_source *s, dt_split sp, const uint8_t *want,
                      dt_visit_fn f, void *ctx)
{
    switch (s->kind) {
    case DT_DS_FASHION:
    case DT_DS_MNIST:
        return dt_idx_scan(s->dir, sp, want, f, ctx);
    case DT_DS_CIFAR10:
        return dt_cifar_scan(s->dir, sp, want, f, ctx);
    case DT_DS_SYNTHETIC:
        return dt_synth_scan(s, sp, want, f, ctx);
    }
    return cm_error(CM_EINTERNAL, "bad data set kind");
}

cm_status dt_data_labels(const dt_source *s, dt_split sp, uint8_t **labels,
                         size_t *n)
{
    dt_shape sh;
    *labels = NULL;
    *n = 0;
    cm_status st = dt_source_shape(s, sp, &sh);
    if (st != CM_OK)
        return st;
    uint8_t *l = malloc(sh.n);
    if (!l)
        return cm_error(CM_ENOMEM, "out of memory reading labels");
    switch (s->kind) {
    case DT_DS_FASHION:
    case DT_DS_MNIST:
        st = dt_idx_labels(s->dir, sp, l);
        break;
    case DT_DS_CIFAR10:
        st = dt_cifar_labels(s->dir, sp, l);
        break;
    case DT_DS_SYNTHETIC:
        st = dt_synth_labels(s, sp, l);
        break;
    }
    if (st != CM_OK) {
        free(l);
        return st;
    }
    *labels = l;
    *n = sh.n;
    return CM_OK;
}

typedef struct {
    size_t c, pix;       /* channels, pixels per channel */
    double sum[3], sq[3];
    size_t count;
} stats_ctx;

static cm_status stats_visit(void *vctx, size_t i, const uint8_t *pix,
                             uint8_t label)
{
    (void)i;
    (void)label;
    stats_ctx *c = vctx;
    for (size_t ch = 0; ch < c->c; ch++) {
        uint64_t s = 0, q = 0; /* exact integer sums per image */
        const uint8_t *p = pix + ch * c->pix;
        for (size_t j = 0; j < c->pix; j++) {
            s += p[j];
            q += (uint64_t)p[j] * p[j];
        }
        c->sum[ch] += (double)s;
        c->sq[ch] += (double)q;
    }
    c->count++;
    return CM_OK;
}

/* The model is built for one image shape: a test split of another shape
 * would be read past its buffers at evaluation (issue 10, item 1). */
static cm_status same_shape(const dt_source *s, const dt_shape *tr)
{
    dt_shape te;
    cm_status st = dt_source_shape(s, DT_SPLIT_TEST, &te);
    if (st != CM_OK)
        return st;
    if (te.c != tr->c || te.h != tr->h || te.w != tr->w)
        return cm_error(CM_EFORMAT, "%s: training images are %zux%zux%zu but "
                        "test images %zux%zux%zu (channels x rows x "
                        "columns); both splits need one shape",
                        s->dir ? s->dir : dt_dataset_name(s->kind), tr->c,
                        tr->h, tr->w, te.c, te.h, te.w);
    return CM_OK;
}

cm_status dt_data_stats(const dt_source *s, dt_norm *norm)
{
    dt_shape sh;
    cm_status st = dt_source_shape(s, DT_SPLIT_TRAIN, &sh);
    if (st != CM_OK)
        return st;
    if (sh.c > 3)
        return cm_error(CM_EFORMAT, "more than 3 channels");
    stats_ctx c = {.c = sh.c, .pix = sh.h * sh.w};
    if ((st = scan(s, DT_SPLIT_TRAIN, NULL, stats_visit, &c)) != CM_OK ||
        (st = same_shape(s, &sh)) != CM_OK)
        return st;
    norm->c = sh.c;
    double m = (double)c.count * (double)c.pix;
    for (size_t ch = 0; ch < sh.c; ch++) {
        double mean = c.sum[ch] / m, var = c.sq[ch] / m - mean * mean;
        norm->mean[ch] = mean / 255.0;
        norm->std[ch] = sqrt(var > 0 ? var : 0) / 255.0;
        if (norm->std[ch] < 1e-6)
            norm->std[ch] = 1.0; /* constant images: only centre them */
    }
    return CM_OK;
}

typedef struct {
    dt_data *out;
    const size_t *start;  /* slots of image i: slot[start[i]..start[i+1]) */
    const size_t *slot;
    float scale[3], shift[3];
    size_t pix;
} load_ctx;

static cm_status load_visit(void *vctx, size_t i, const uint8_t *pix,
                            uint8_t label)
{
    load_ctx *c = vctx;
    dt_data *d = c->out;
    size_t img = d->c * c->pix;
    for (size_t k = c->start[i]; k < c->start[i + 1]; k++) {
        size_t o = c->slot[k];
        float *x = d->x + o * img;
        for (size_t ch = 0; ch < d->c; ch++) {
            const uint8_t *p = pix + ch * c->pix;
            float *xc = x + ch * c->pix;
            float a = c->scale[ch], b = c->shift[ch];
            for (size_t j = 0; j < c->pix; j++)
                xc[j] = a * (float)p[j] + b;
        }
        d->y[o] = label;
    }
    return CM_OK;
}

cm_status dt_data_load(const dt_source *s, dt_split sp, const size_t *idx,
                       size_t n_idx, const dt_norm *norm, dt_data *out)
{
    dt_shape sh;
    size_t *start = NULL, *slot = NULL;
    uint8_t *want = NULL;
    memset(out, 0, sizeof *out);
    cm_status st = dt_source_shape(s, sp, &sh);
    if (st != CM_OK)
        return st;
    if (norm->c != sh.c)
        return cm_error(CM_EINVAL, "normalization has %zu channels, data %zu",
                        norm->c, sh.c);
    if (!idx)
        n_idx = sh.n;
    start = calloc(sh.n + 1, sizeof *start);
    slot = malloc((n_idx ? n_idx : 1) * sizeof *slot);
    want = calloc(sh.n, 1);
    out->x = malloc((n_idx ? n_idx : 1) * sh.c * sh.h * sh.w * sizeof(float));
    out->y = malloc(n_idx ? n_idx : 1);
    if (!start || !slot || !want || !out->x || !out->y) {
        st = cm_error(CM_ENOMEM, "out of memory loading %zu images", n_idx);
        goto cleanup;
    }
    /* counting sort of output slots by source image */
    for (size_t k = 0; k < n_idx; k++) {
        size_t i = idx ? idx[k] : k;
        if (i >= sh.n) {
            st = cm_error(CM_EINVAL, "image index %zu out of range (the %s "
                          "split has %zu images)", i,
                          sp == DT_SPLIT_TRAIN ? "training" : "test", sh.n);
            goto cleanup;
        }
        start[i + 1]++;
        want[i] = 1;
    }
    for (size_t i = 0; i < sh.n; i++)
        start[i + 1] += start[i];
    for (size_t k = 0; k < n_idx; k++) { /* place, then shift back */
        size_t i = idx ? idx[k] : k;
        slot[start[i]++] = k;
    }
    for (size_t i = sh.n; i > 0; i--)
        start[i] = start[i - 1];
    start[0] = 0;
    out->n = n_idx;
    out->c = sh.c;
    out->h = sh.h;
    out->w = sh.w;
    out->classes = DT_DATA_CLASSES;
    load_ctx c = {.out = out, .start = start, .slot = slot,
                  .pix = sh.h * sh.w};
    for (size_t ch = 0; ch < sh.c; ch++) {
        c.scale[ch] = (float)(1.0 / (255.0 * norm->std[ch]));
        c.shift[ch] = (float)(-norm->mean[ch] / norm->std[ch]);
    }
    st = scan(s, sp, want, load_visit, &c);
cleanup:
    free(want);
    free(slot);
    free(start);
    if (st != CM_OK)
        dt_data_destroy(out);
    return st;
}

void dt_data_destroy(dt_data *d)
{
    if (!d)
        return;
    free(d->x);
    free(d->y);
    memset(d, 0, sizeof *d);
}
