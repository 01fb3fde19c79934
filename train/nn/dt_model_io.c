/* dt_model_io.c: safetensors writer and a strict reader for dt_net's
 * parameters (format and names in dt_model_io.h).
 *
 * The reader parses the JSON header with a small recursive-descent parser
 * that knows the subset safetensors uses (objects, arrays, strings without
 * exotic escapes, non-negative integers; "__metadata__" and unknown keys
 * are skipped), then checks it against the network: each tensor present
 * once, F32, the expected shape, offsets that match the size and lie
 * inside the file. Trade-off: the whole file is read into memory (a model
 * here is at most a few MB) so every check is a bounds check.
 */
#include "dt_model_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"

enum { MAX_TENSORS = 2 * DT_NET_MAX_LAYERS, NAME_MAX_ = 64, MAX_DIMS = 8 };

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

cm_status dt_model_save(const dt_net *net, const float *params,
                        const char *path)
{
    /* header: at most ~100 bytes per tensor */
    size_t cap = 128 * MAX_TENSORS + 64, len = 0, off = 0;
    char *h = malloc(cap);
    if (!h)
        return cm_error(CM_ENOMEM, "out of memory writing %s", path);
    len += (size_t)snprintf(h + len, cap - len, "{");
    char name[NAME_MAX_];
    const dt_layer *l;
    for (size_t t = 0; (l = dt_model_tensor(net, t, name, sizeof name)); t++) {
        size_t dims[MAX_DIMS], r = tensor_shape(l, (int)(t % 2), dims);
        size_t n = t % 2 ? l->oc : l->n_w;
        len += (size_t)snprintf(h + len, cap - len,
                                "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[",
                                t ? "," : "", name);
        for (size_t d = 0; d < r; d++)
            len += (size_t)snprintf(h + len, cap - len, "%s%zu", d ? "," : "",
                                    dims[d]);
        len += (size_t)snprintf(h + len, cap - len,
                                "],\"data_offsets\":[%zu,%zu]}", off,
                                off + 4 * n);
        off += 4 * n;
    }
    len += (size_t)snprintf(h + len, cap - len, "}");
    while (len % 8 && len + 1 < cap)
        h[len++] = ' ';
    cm_status s = CM_OK;
    if (len + 1 >= cap || off != 4 * net->n_params) {
        free(h);
        return cm_error(CM_EINTERNAL, "model header of %s overflows", path);
    }
    unsigned char n8[8];
    put_u64(n8, (uint64_t)len);
    cm_afile f;
    if ((s = cm_atomic_open(&f, path)) != CM_OK) {
        free(h);
        return s;
    }
    /* float32 little-endian: the machine's own floats on x86-64 */
    fwrite(n8, 1, 8, f.fp);
    fwrite(h, 1, len, f.fp);
    fwrite(params, sizeof *params, net->n_params, f.fp);
    free(h);
    return cm_atomic_commit(&f);
}

cm_status dt_model_check_path(const char *path)
{
    return cm_atomic_probe(path);
}

/* ---- reader ------------------------------------------------------------ */

typedef struct {
    char name[NAME_MAX_];
    char dtype[16];
    size_t rank, dims[MAX_DIMS];
    uint64_t begin, end;
    int have_off, used;
} entry;

typedef struct {
    const char *p, *end, *path;
} parser;

static cm_status bad(const parser *ps, const char *what)
{
    return cm_error(CM_EFORMAT, "model file %s: corrupt header: %s", ps->path,
                    what);
}

static void ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' ||
                               *ps->p == '\t' || *ps->p == '\r'))
        ps->p++;
}

static int eat(parser *ps, char c)
{
    ws(ps);
    if (ps->p < ps->end && *ps->p == c) {
        ps->p++;
        return 1;
    }
    return 0;
}

/* A string into buf (truncation is an error); escapes other than \" and
 * \\ are refused (tensor names do not need them). */
static cm_status str(parser *ps, char *buf, size_t cap)
{
    if (!eat(ps, '"'))
        return bad(ps, "expected a string");
    size_t n = 0;
    while (ps->p < ps->end && *ps->p != '"') {
        char c = *ps->p++;
        if (c == '\\') {
            if (ps->p >= ps->end || (*ps->p != '"' && *ps->p != '\\'))
                return bad(ps, "unsupported escape in a string");
            c = *ps->p++;
        }
        if (n + 1 >= cap)
            return bad(ps, "string too long");
        buf[n++] = c;
    }
    if (ps->p >= ps->end)
        return bad(ps, "unterminated string");
    ps->p++;
    buf[n] = 0;
    return CM_OK;
}

static cm_status num(parser *ps, uint64_t *v)
{
    ws(ps);
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
        return bad(ps, "expected a non-negative integer");
    uint64_t x = 0;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
        if (x > (UINT64_MAX - 9) / 10)
            return bad(ps, "integer too large");
        x = 10 * x + (uint64_t)(*ps->p++ - '0');
    }
    *v = x;
    return CM_OK;
}

/* [u, u, ...] into v (at most cap values). */
static cm_status uints(parser *ps, uint64_t *v, size_t cap, size_t *n)
{
    *n = 0;
    if (!eat(ps, '['))
        return bad(ps, "expected an array");
    if (eat(ps, ']'))
        return CM_OK;
    do {
        if (*n == cap)
            return bad(ps, "array too long");
        cm_status s = num(ps, &v[(*n)++]);
        if (s != CM_OK)
            return s;
    } while (eat(ps, ','));
    return eat(ps, ']') ? CM_OK : bad(ps, "expected ']'");
}

/* Skips any JSON value (depth-limited). */
static cm_status skip(parser *ps, int depth)
{
    char tmp[256];
    ws(ps);
    if (depth > 8 || ps->p >= ps->end)
        return bad(ps, "value nested too deep or missing");
    char c = *ps->p;
    if (c == '"')
        return str(ps, tmp, sizeof tmp);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        ps->p++;
        if (eat(ps, close))
            return CM_OK;
        do {
            cm_status s;
            if (c == '{' && ((s = str(ps, tmp, sizeof tmp)) != CM_OK ||
                             (!eat(ps, ':') && (s = bad(ps, "expected ':'")))))
                return s;
            if ((s = skip(ps, depth + 1)) != CM_OK)
                return s;
        } while (eat(ps, ','));
        return eat(ps, close) ? CM_OK : bad(ps, "unterminated object/array");
    }
    while (ps->p < ps->end && (strchr("-+.eE", *ps->p) ||
                               (*ps->p >= '0' && *ps->p <= '9') ||
                               (*ps->p >= 'a' && *ps->p <= 'z')))
        ps->p++;
    return CM_OK;
}

static cm_status parse_entry(parser *ps, entry *e)
{
    if (!eat(ps, '{'))
        return bad(ps, "expected a tensor object");
    if (eat(ps, '}'))
        return CM_OK;
    do {
        char key[32];
        cm_status s = str(ps, key, sizeof key);
        if (s != CM_OK)
            return s;
        if (!eat(ps, ':'))
            return bad(ps, "expected ':'");
        uint64_t v[MAX_DIMS];
        size_t n;
        if (strcmp(key, "dtype") == 0) {
            s = str(ps, e->dtype, sizeof e->dtype);
        } else if (strcmp(key, "shape") == 0) {
            if ((s = uints(ps, v, MAX_DIMS, &n)) == CM_OK) {
                e->rank = n;
                for (size_t i = 0; i < n; i++)
                    e->dims[i] = (size_t)v[i];
            }
        } else if (strcmp(key, "data_offsets") == 0) {
            if ((s = uints(ps, v, 2, &n)) == CM_OK && n != 2)
                s = bad(ps, "data_offsets needs two integers");
            e->begin = v[0];
            e->end = v[1];
            e->have_off = 1;
        } else {
            s = skip(ps, 1);
        }
        if (s != CM_OK)
            return s;
    } while (eat(ps, ','));
    return eat(ps, '}') ? CM_OK : bad(ps, "expected '}'");
}

static cm_status parse_header(parser *ps, entry *es, size_t *n)
{
    *n = 0;
    if (!eat(ps, '{'))
        return bad(ps, "the header is not a JSON object");
    if (eat(ps, '}'))
        return CM_OK;
    do {
        char name[NAME_MAX_];
        cm_status s = str(ps, name, sizeof name);
        if (s != CM_OK)
            return s;
        if (!eat(ps, ':'))
            return bad(ps, "expected ':'");
        if (strcmp(name, "__metadata__") == 0) {
            if ((s = skip(ps, 1)) != CM_OK)
                return s;
            continue;
        }
        if (*n == MAX_TENSORS)
            return cm_error(CM_EINVAL, "model file %s: more than %d tensors "
                            "(another architecture?)", ps->path, MAX_TENSORS);
        entry *e = &es[(*n)++];
        memset(e, 0, sizeof *e);
        memcpy(e->name, name, sizeof name);
        if ((s = parse_entry(ps, e)) != CM_OK)
            return s;
    } while (eat(ps, ','));
    if (!eat(ps, '}'))
        return bad(ps, "expected '}' at the end of the header");
    ws(ps);
    return ps->p == ps->end ? CM_OK : bad(ps, "text after the header object");
}

static void shape_str(const size_t *d, size_t r, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < r && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%zu", i ? "," : "", d[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* Checks the parsed entries against net and copies the data. */
static cm_status check_copy(const dt_net *net, const char *path, entry *es,
                            size_t ne, const unsigned char *data,
                            uint64_t nbytes, float *params)
{
    char name[NAME_MAX_], want[96], got[96];
    const dt_layer *l;
    size_t off = 0;
    for (size_t t = 0; (l = dt_model_tensor(net, t, name, sizeof name)); t++) {
        size_t dims[MAX_DIMS], r = tensor_shape(l, (int)(t % 2), dims);
        size_t n = t % 2 ? l->oc : l->n_w;
        entry *e = NULL;
        for (size_t i = 0; i < ne; i++)
            if (strcmp(es[i].name, name) == 0) {
                if (e)
                    return cm_error(CM_EFORMAT, "model file %s: tensor '%s' "
                                    "appears twice", path, name);
                e = &es[i];
            }
        if (!e)
            return cm_error(CM_EINVAL, "model file %s: tensor '%s' missing "
                            "(not a %s model?)", path, name,
                            dt_model_name(net->model));
        e->used = 1;
        if (strcmp(e->dtype, "F32") != 0)
            return cm_error(CM_EINVAL, "model file %s: tensor '%s' has dtype "
                            "'%s', expected F32", path, name, e->dtype);
        int same = e->rank == r;
        for (size_t d = 0; same && d < r; d++)
            same = e->dims[d] == dims[d];
        if (!same) {
            shape_str(e->dims, e->rank, got, sizeof got);
            shape_str(dims, r, want, sizeof want);
            return cm_error(CM_EINVAL, "model file %s: tensor '%s' has shape "
                            "%s, expected %s (another architecture or input "
                            "shape?)", path, name, got, want);
        }
        if (!e->have_off || e->end < e->begin || e->end - e->begin != 4 * n)
            return cm_error(CM_EFORMAT, "model file %s: tensor '%s': "
                            "data_offsets do not match its %zu floats", path,
                            name, n);
        if (e->end > nbytes)
            return cm_error(CM_EFORMAT, "model file %s: tensor '%s' ends at "
                            "byte %llu of only %llu data bytes (truncated?)",
                            path, name, (unsigned long long)e->end,
                            (unsigned long long)nbytes);
        off += n;
    }
    for (size_t i = 0; i < ne; i++)
        if (!es[i].used)
            return cm_error(CM_EINVAL, "model file %s: unexpected tensor '%s' "
                            "(not a %s model?)", path, es[i].name,
                            dt_model_name(net->model));
    for (size_t t = 0, k = 0; (l = dt_model_tensor(net, t, name, sizeof name));
         t++) {
        size_t n = t % 2 ? l->oc : l->n_w;
        for (size_t i = 0; i < ne; i++)
            if (strcmp(es[i].name, name) == 0)
                memcpy(params + k, data + es[i].begin, 4 * n);
        k += n;
    }
    return off == net->n_params
               ? CM_OK
               : cm_error(CM_EINTERNAL, "model tensors do not cover params");
}

cm_status dt_model_load(const dt_net *net, const char *path, float *params)
{
    cm_status s = CM_OK;
    unsigned char *buf = NULL;
    entry *es = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return cm_error(CM_EIO, "cannot open model file %s", path);
    long size = -1;
    if (fseek(fp, 0, SEEK_END) == 0)
        size = ftell(fp);
    if (size < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        s = cm_error(CM_EIO, "cannot read model file %s", path);
        goto cleanup;
    }
    if (size < 8) {
        s = cm_error(CM_EFORMAT, "model file %s: %ld bytes, too short for a "
                     "safetensors header (truncated?)", path, size);
        goto cleanup;
    }
    buf = malloc((size_t)size);
    es = calloc(MAX_TENSORS, sizeof *es);
    if (!buf || !es) {
        s = cm_error(CM_ENOMEM, "out of memory reading %s", path);
        goto cleanup;
    }
    if (fread(buf, 1, (size_t)size, fp) != (size_t)size) {
        s = cm_error(CM_EIO, "cannot read model file %s", path);
        goto cleanup;
    }
    uint64_t hlen = 0;
    for (int i = 0; i < 8; i++)
        hlen |= (uint64_t)buf[i] << (8 * i);
    if (hlen > (uint64_t)size - 8) {
        s = cm_error(CM_EFORMAT, "model file %s: header length %llu exceeds "
                     "the file's %ld bytes (truncated or not safetensors?)",
                     path, (unsigned long long)hlen, size);
        goto cleanup;
    }
    parser ps = {(const char *)buf + 8, (const char *)buf + 8 + hlen, path};
    size_t ne = 0;
    if ((s = parse_header(&ps, es, &ne)) != CM_OK)
        goto cleanup;
    s = check_copy(net, path, es, ne, buf + 8 + hlen,
                   (uint64_t)size - 8 - hlen, params);
cleanup:
    free(es);
    free(buf);
    fclose(fp);
    return s;
}
