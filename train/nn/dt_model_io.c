/* dt_model_io.c: safetensors writer and a strict reader for dt_net's
 * parameters (format and names in dt_model_io.h).
 *
 * The header is built and parsed with jansson (JSON_REJECT_DUPLICATES:
 * a tensor named twice is refused by the parser), then checked against
 * the network: each tensor present once, F32, the expected shape, offsets
 * that match the size, lie inside the data part, do not overlap and leave
 * no byte unused, and finite values. Trade-off: the whole file is read
 * into memory (a model here is at most a few MB; the size is checked on
 * the file's size first) so every check is a bounds check.
 */
#include "dt_model_io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cm_atomic.h"

enum { MAX_TENSORS = 2 * DT_NET_MAX_LAYERS, NAME_MAX_ = 64, MAX_DIMS = 8 };

/* Largest header (the format's own limit is 100 MB). */
#define MAX_HEADER ((uint64_t)100 << 20)

/* PyTorch nn.Sequential index of each conv/fc layer: each layer is one
 * module, a fused ReLU another, and a Flatten precedes the first fc. */
const dt_layer *dt_model_tensor(const dt_net *net, size_t t, char *buf,
                                size_t cap)
{
    size_t idx = 0, k = 0;
    int flat = 0;
    for (size_t i = 0; i < net->n_layers; i++) {
        const dt_layer *l = &net->layers[i];
        if (l->kind == DT_FC && !flat) {
            idx++;
            flat = 1;
        }
        if (l->n_w) {
            if (t == k || t == k + 1) {
                snprintf(buf, cap, "%zu.%s", idx, t == k ? "weight" : "bias");
                return l;
            }
            k += 2;
        }
        idx += 1 + (l->relu ? 1 : 0);
    }
    return NULL;
}

/* Shape of tensor t (weight or bias of l) into dims; returns the rank. */
static size_t tensor_shape(const dt_layer *l, int bias, size_t *dims)
{
    if (bias) {
        dims[0] = l->oc;
        return 1;
    }
    if (l->kind == DT_CONV) {
        dims[0] = l->oc;
        dims[1] = l->c;
        dims[2] = dims[3] = l->k;
        return 4;
    }
    dims[0] = l->oc;
    dims[1] = l->c * l->h * l->w;
    return 2;
}

static void put_u64(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

/* "[a, b, c]" of n doubles (%.17g: they read back bit for bit). */
static void list_str(char *buf, size_t cap, const double *v, size_t n)
{
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%.17g", i ? ", " : "",
                              v[i]);
    if (k < cap)
        snprintf(buf + k, cap - k, "]");
}

/* The header object; NULL when out of memory. */
static json_t *build_header(const dt_net *net, const dt_model_meta *meta,
                            size_t *data_bytes)
{
    json_t *h = json_object(), *md = json_object();
    char buf[192];
    int bad = !h || !md;
    bad |= json_object_set_new(md, "producer", json_string("dpsgd-train"));
    bad |= json_object_set_new(md, "model",
                               json_string(dt_model_name(net->model)));
    snprintf(buf, sizeof buf, "[%zu, %zu, %zu]", net->in_c, net->in_h,
             net->in_w);
    bad |= json_object_set_new(md, "input_shape", json_string(buf));
    snprintf(buf, sizeof buf, "%zu", net->classes);
    bad |= json_object_set_new(md, "classes", json_string(buf));
    if (meta && meta->dataset[0])
        bad |= json_object_set_new(md, "dataset", json_string(meta->dataset));
    if (meta && meta->channels && meta->channels <= 3) {
        list_str(buf, sizeof buf, meta->mean, meta->channels);
        bad |= json_object_set_new(md, "mean", json_string(buf));
        list_str(buf, sizeof buf, meta->std, meta->channels);
        bad |= json_object_set_new(md, "std", json_string(buf));
    }
    bad |= json_object_set_new(h, "__metadata__", md);
    md = NULL;
    char name[NAME_MAX_];
    const dt_layer *l;
    size_t off = 0;
    for (size_t t = 0;
         !bad && (l = dt_model_tensor(net, t, name, sizeof name)); t++) {
        size_t dims[MAX_DIMS], r = tensor_shape(l, (int)(t % 2), dims);
        size_t n = t % 2 ? l->oc : l->n_w;
        json_t *e = json_object(), *shape = json_array();
        json_t *offs = json_pack("[II]", (json_int_t)off,
                                 (json_int_t)(off + 4 * n));
        bad |= !e || !shape || !offs;
        for (size_t d = 0; !bad && d < r; d++)
            bad |= json_array_append_new(shape, json_integer((json_int_t)
                                                             dims[d]));
        bad |= json_object_set_new(e, "dtype", json_string("F32"));
        bad |= json_object_set_new(e, "shape", shape);
        bad |= json_object_set_new(e, "data_offsets", offs);
        bad |= json_object_set_new(h, name, e);
        off += 4 * n;
    }
    if (bad) {
        json_decref(h);
        return NULL;
    }
    *data_bytes = off;
    return h;
}

cm_status dt_model_save(const dt_net *net, const float *params,
                        const dt_model_meta *meta, const char *path)
{
    size_t off = 0;
    json_t *h = build_header(net, meta, &off);
    char *text = h ? json_dumps(h, JSON_COMPACT) : NULL;
    json_decref(h);
    if (!text)
        return cm_error(CM_ENOMEM, "out of memory writing %s", path);
    if (off != 4 * net->n_params) {
        free(text);
        return cm_error(CM_EINTERNAL, "model tensors of %s do not cover the "
                        "parameters", path);
    }
    size_t len = strlen(text), pad = (8 - len % 8) % 8;
    unsigned char n8[8];
    put_u64(n8, (uint64_t)(len + pad));
    cm_afile f;
    cm_status s = cm_atomic_open(&f, path);
    if (s != CM_OK) {
        free(text);
        return s;
    }
    /* float32 little-endian: the machine's own floats on x86-64 */
    fwrite(n8, 1, 8, f.fp);
    fwrite(text, 1, len, f.fp);
    fwrite("        ", 1, pad, f.fp);
    fwrite(params, sizeof *params, net->n_params, f.fp);
    free(text);
    return cm_atomic_commit(&f);
}

cm_status dt_model_check_path(const char *path)
{
    return cm_atomic_probe(path);
}

/* ---- reader ------------------------------------------------------------ */

cm_status dt_model_check_file(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return cm_error(CM_EIO, "cannot open model file %s: %s", path,
                        strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return cm_error(CM_EIO, "model file %s: not a regular file (%s)",
                        path, S_ISDIR(sb.st_mode)    ? "a directory"
                              : S_ISFIFO(sb.st_mode) ? "a FIFO"
                                                     : "a device or socket");
    if ((unsigned long long)sb.st_size > DT_MODEL_MAX_BYTES)
        return cm_error(CM_EFORMAT, "model file %s: %llu bytes, larger than "
                        "the %zu-byte (1 GiB) limit of model files", path,
                        (unsigned long long)sb.st_size,
                        (size_t)DT_MODEL_MAX_BYTES);
    return CM_OK;
}

/* The whole file (checked first: regular, within the limit), opened with
 * O_NONBLOCK so that a FIFO swapped in after the check cannot block. */
static cm_status read_file(const char *path, unsigned char **out,
                           size_t *len)
{
    cm_status s = dt_model_check_file(path);
    if (s != CM_OK)
        return s;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return cm_error(CM_EIO, "cannot open model file %s: %s", path,
                        strerror(errno));
    struct stat sb;
    unsigned char *buf = NULL;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        (unsigned long long)sb.st_size > DT_MODEL_MAX_BYTES) {
        s = cm_error(CM_EIO, "model file %s: not a regular file within the "
                     "size limit", path);
        goto done;
    }
    size_t size = (size_t)sb.st_size, got = 0;
    if (!(buf = malloc(size + 1))) {
        s = cm_error(CM_ENOMEM, "out of memory reading %s", path);
        goto done;
    }
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            s = cm_error(CM_EIO, "cannot read model file %s%s%s", path,
                         r < 0 ? ": " : " (it shrank while read)",
                         r < 0 ? strerror(errno) : "");
            goto done;
        }
        got += (size_t)r;
    }
    *out = buf;
    *len = size;
    buf = NULL;
done:
    free(buf);
    close(fd);
    return s;
}

/* The header of buf (len bytes) as a JSON object; *data, *nbytes the
 * data part. */
static cm_status parse_header(const char *path, const unsigned char *buf,
                              size_t len, json_t **out,
                              const unsigned char **data, uint64_t *nbytes)
{
    if (len < 8)
        return cm_error(CM_EFORMAT, "model file %s: %zu bytes, too short for "
                        "a safetensors header (truncated?)", path, len);
    uint64_t hlen = 0;
    for (int i = 0; i < 8; i++)
        hlen |= (uint64_t)buf[i] << (8 * i);
    if (hlen > (uint64_t)len - 8)
        return cm_error(CM_EFORMAT, "model file %s: header length %llu exceeds "
                        "the file's %zu bytes (truncated or not "
                        "safetensors?)", path, (unsigned long long)hlen, len);
    if (hlen > MAX_HEADER)
        return cm_error(CM_EFORMAT, "model file %s: header of %llu bytes, "
                        "over the format's 100 MB limit", path,
                        (unsigned long long)hlen);
    json_error_t err;
    json_t *h = json_loadb((const char *)buf + 8, (size_t)hlen,
                           JSON_REJECT_DUPLICATES, &err);
    if (!h)
        return cm_error(CM_EFORMAT, "model file %s: corrupt header: %s (at "
                        "byte %d of the header)", path, err.text,
                        err.position);
    if (!json_is_object(h)) {
        json_decref(h);
        return cm_error(CM_EFORMAT, "model file %s: corrupt header: the "
                        "header is not a JSON object", path);
    }
    *out = h;
    *data = buf + 8 + hlen;
    *nbytes = (uint64_t)len - 8 - hlen;
    return CM_OK;
}

/* "[a, b, c]" into v (at most 3); the count, or 0 when malformed. */
static size_t parse_list(const char *s, double *v)
{
    json_t *a = json_loads(s, 0, NULL);
    size_t n = json_is_array(a) ? json_array_size(a) : 0;
    if (n > 3)
        n = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(a, i);
        if (!json_is_number(x)) {
            n = 0;
            break;
        }
        v[i] = json_number_value(x);
    }
    json_decref(a);
    return n;
}

static cm_status read_meta(const char *path, json_t *h, dt_model_meta *m)
{
    memset(m, 0, sizeof *m);
    json_t *md = json_object_get(h, "__metadata__");
    if (!md)
        return CM_OK;
    if (!json_is_object(md))
        return cm_error(CM_EFORMAT, "model file %s: __metadata__ is not an "
                        "object of strings", path);
    const char *k;
    json_t *v;
    json_object_foreach(md, k, v) {
        if (!json_is_string(v))
            return cm_error(CM_EFORMAT, "model file %s: __metadata__ entry "
                            "'%s' is not a string (the format allows only "
                            "strings)", path, k);
    }
    const char *s;
    double d[3];
    size_t n;
    if ((s = json_string_value(json_object_get(md, "model"))))
        snprintf(m->model, sizeof m->model, "%s", s);
    if ((s = json_string_value(json_object_get(md, "dataset"))))
        snprintf(m->dataset, sizeof m->dataset, "%s", s);
    if ((s = json_string_value(json_object_get(md, "classes"))))
        m->classes = (size_t)strtoull(s, NULL, 10);
    if ((s = json_string_value(json_object_get(md, "input_shape"))) &&
        parse_list(s, d) == 3 && d[0] >= 1 && d[1] >= 1 && d[2] >= 1) {
        m->c = (size_t)d[0];
        m->h = (size_t)d[1];
        m->w = (size_t)d[2];
    }
    if ((s = json_string_value(json_object_get(md, "mean"))) &&
        (n = parse_list(s, m->mean)) > 0) {
        const char *t = json_string_value(json_object_get(md, "std"));
        if (t && parse_list(t, m->std) == n)
            m->channels = n;
    }
    return CM_OK;
}

cm_status dt_model_read_meta(const char *path, dt_model_meta *meta)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    json_t *h = NULL;
    const unsigned char *data;
    uint64_t nbytes;
    cm_status s = read_file(path, &buf, &len);
    if (s == CM_OK &&
        (s = parse_header(path, buf, len, &h, &data, &nbytes)) == CM_OK)
        s = read_meta(path, h, meta);
    json_decref(h);
    free(buf);
    return s;
}

typedef struct {
    uint64_t begin, end;
    const char *name;
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

static void shape_str(const size_t *d, size_t r, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < r && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%zu", i ? "," : "", d[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* A non-negative integer of a JSON value. */
static int uint_of(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* Checks one tensor's entry e against (name, dims, r, n floats). */
static cm_status check_entry(const char *path, const char *name,
                             const json_t *e, const size_t *dims, size_t r,
                             size_t n, uint64_t nbytes, span *sp)
{
    char want[96], got[96];
    if (!json_is_object(e))
        return cm_error(CM_EFORMAT, "model file %s: corrupt header: tensor "
                        "'%s' is not an object", path, name);
    const char *dtype = json_string_value(json_object_get(e, "dtype"));
    if (!dtype)
        return cm_error(CM_EFORMAT, "model file %s: corrupt header: tensor "
                        "'%s' has no dtype string", path, name);
    if (strcmp(dtype, "F32") != 0)
        return cm_error(CM_EINVAL, "model file %s: tensor '%s' has dtype "
                        "'%.16s', expected F32", path, name, dtype);
    const json_t *shape = json_object_get(e, "shape");
    if (!json_is_array(shape) || json_array_size(shape) > MAX_DIMS)
        return cm_error(CM_EFORMAT, "model file %s: corrupt header: tensor "
                        "'%s' has no shape of at most %d integers", path,
                        name, MAX_DIMS);
    size_t have[MAX_DIMS], hr = json_array_size(shape);
    for (size_t d = 0; d < hr; d++) {
        uint64_t x;
        if (uint_of(json_array_get(shape, d), &x))
            return cm_error(CM_EFORMAT, "model file %s: corrupt header: "
                            "tensor '%s': shape entries must be non-negative "
                            "integers", path, name);
        have[d] = (size_t)x;
    }
    int same = hr == r;
    for (size_t d = 0; same && d < r; d++)
        same = have[d] == dims[d];
    if (!same) {
        shape_str(have, hr, got, sizeof got);
        shape_str(dims, r, want, sizeof want);
        return cm_error(CM_EINVAL, "model file %s: tensor '%s' has shape %s, "
                        "expected %s (another architecture or input "
                        "shape?)", path, name, got, want);
    }
    const json_t *off = json_object_get(e, "data_offsets");
    if (!json_is_array(off) || json_array_size(off) != 2 ||
        uint_of(json_array_get(off, 0), &sp->begin) ||
        uint_of(json_array_get(off, 1), &sp->end))
        return cm_error(CM_EFORMAT, "model file %s: corrupt header: tensor "
                        "'%s': data_offsets needs two non-negative integers",
                        path, name);
    if (sp->end < sp->begin || sp->end - sp->begin != 4 * (uint64_t)n)
        return cm_error(CM_EFORMAT, "model file %s: tensor '%s': "
                        "data_offsets do not match its %zu floats", path,
                        name, n);
    if (sp->end > nbytes)
        return cm_error(CM_EFORMAT, "model file %s: tensor '%s' ends at byte "
                        "%llu of only %llu data bytes (truncated?)", path,
                        name, (unsigned long long)sp->end,
                        (unsigned long long)nbytes);
    return CM_OK;
}

/* Checks the header against net and copies the data. */
static cm_status check_copy(const dt_net *net, const char *path, json_t *h,
                            const unsigned char *data, uint64_t nbytes,
                            float *params)
{
    char name[NAME_MAX_];
    const dt_layer *l;
    span sp[MAX_TENSORS];
    size_t nt = 0, total = 0;
    cm_status s;
    for (size_t t = 0; (l = dt_model_tensor(net, t, name, sizeof name)); t++) {
        size_t dims[MAX_DIMS], r = tensor_shape(l, (int)(t % 2), dims);
        size_t n = t % 2 ? l->oc : l->n_w;
        const json_t *e = json_object_get(h, name);
        if (!e)
            return cm_error(CM_EINVAL, "model file %s: tensor '%s' missing "
                            "(not a %s model?)", path, name,
                            dt_model_name(net->model));
        if ((s = check_entry(path, name, e, dims, r, n, nbytes, &sp[nt])) !=
            CM_OK)
            return s;
        sp[nt].name = json_object_iter_key(json_object_iter_at(h, name));
        nt++;
        total += n;
    }
    const char *k;
    json_t *v;
    json_object_foreach(h, k, v) {
        if (strcmp(k, "__metadata__") == 0)
            continue;
        int known = 0;
        for (size_t t = 0; !known && t < nt; t++)
            known = strcmp(sp[t].name, k) == 0;
        if (!known)
            return cm_error(CM_EINVAL, "model file %s: unexpected tensor "
                            "'%.64s' (not a %s model?)", path, k,
                            dt_model_name(net->model));
    }
    /* the data part: tensors side by side, no overlap, no byte unused */
    span sorted[MAX_TENSORS];
    memcpy(sorted, sp, nt * sizeof *sp);
    qsort(sorted, nt, sizeof *sorted, span_cmp);
    uint64_t at = 0;
    for (size_t t = 0; t < nt; t++) {
        if (sorted[t].begin < at)
            return cm_error(CM_EFORMAT, "model file %s: tensors '%s' and '%s' "
                            "overlap (the format forbids it)", path,
                            sorted[t - 1].name, sorted[t].name);
        if (sorted[t].begin > at)
            return cm_error(CM_EFORMAT, "model file %s: bytes %llu..%llu of "
                            "the data belong to no tensor (the format "
                            "forbids holes)", path, (unsigned long long)at,
                            (unsigned long long)sorted[t].begin);
        at = sorted[t].end;
    }
    if (at != nbytes)
        return cm_error(CM_EFORMAT, "model file %s: %llu bytes after the last "
                        "tensor belong to no tensor (the format forbids "
                        "trailing bytes)", path,
                        (unsigned long long)(nbytes - at));
    /* finite values only, checked before params is touched */
    for (size_t t = 0; t < nt; t++) {
        const unsigned char *p = data + sp[t].begin;
        size_t n = (size_t)(sp[t].end - sp[t].begin) / 4;
        for (size_t i = 0; i < n; i++) {
            float x;
            memcpy(&x, p + 4 * i, 4);
            if (!isfinite(x))
                return cm_error(CM_EFORMAT, "model file %s: tensor '%s' holds "
                                "%s at element %zu (a diverged or corrupt "
                                "model)", path, sp[t].name,
                                isnan(x) ? "NaN" : "Inf", i);
        }
    }
    for (size_t t = 0, off = 0; t < nt; t++) {
        size_t n = (size_t)(sp[t].end - sp[t].begin) / 4;
        memcpy(params + off, data + sp[t].begin, 4 * n);
        off += n;
    }
    return total == net->n_params
               ? CM_OK
               : cm_error(CM_EINTERNAL, "model tensors do not cover params");
}

cm_status dt_model_load(const dt_net *net, const char *path, float *params)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    json_t *h = NULL;
    const unsigned char *data;
    uint64_t nbytes;
    dt_model_meta meta;
    cm_status s = read_file(path, &buf, &len);
    if (s == CM_OK &&
        (s = parse_header(path, buf, len, &h, &data, &nbytes)) == CM_OK &&
        (s = read_meta(path, h, &meta)) == CM_OK)
        s = check_copy(net, path, h, data, nbytes, params);
    json_decref(h);
    free(buf);
    return s;
}
