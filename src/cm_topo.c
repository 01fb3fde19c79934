/* cm_topo.c: the topology value, its text reader and writer.
 *
 * The reader collects every data line as a (i, j, w, line) record, then
 * sorts the records by undirected edge so that duplicates, conflicts and
 * mixed weighted/unweighted lines are reported with the line numbers at
 * fault. Storage is an edge list plus a CSR adjacency, both sorted, so a
 * topology prints and iterates in one canonical order.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"

void cm_topo_init(cm_topo *t)
{
    memset(t, 0, sizeof *t);
}

void cm_topo_destroy(cm_topo *t)
{
    if (!t)
        return;
    free(t->ei);
    free(t->ej);
    free(t->ew);
    free(t->self);
    free(t->off);
    free(t->adj);
    free(t->adj_w);
    cm_topo_init(t);
}

/* Builds off/adj/adj_w from the sorted edge list. */
static cm_status build_csr(cm_topo *t)
{
    size_t n = t->n, m = t->m;
    t->off = calloc(n + 1, sizeof *t->off);
    t->adj = malloc((2 * m + 1) * sizeof *t->adj);
    if (t->ew)
        t->adj_w = malloc((2 * m + 1) * sizeof *t->adj_w);
    if (!t->off || !t->adj || (t->ew && !t->adj_w))
        return cm_error(CM_ENOMEM, "out of memory building a %zu-node graph", n);
    for (size_t k = 0; k < m; k++) {
        t->off[t->ei[k] + 1]++;
        t->off[t->ej[k] + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        t->off[i + 1] += t->off[i];
    size_t *pos = malloc((n + 1) * sizeof *pos);
    if (!pos)
        return cm_error(CM_ENOMEM, "out of memory building a %zu-node graph", n);
    memcpy(pos, t->off, n * sizeof *pos);
    /* Edges sorted by (ei, ej): filling ej-side entries in order, then the
     * ei-side, keeps each row ascending only if we insert all neighbours
     * smaller than i before larger ones; two passes do exactly that. */
    for (size_t k = 0; k < m; k++) {       /* i = ej, neighbour ei < i */
        size_t p = pos[t->ej[k]]++;
        t->adj[p] = t->ei[k];
        if (t->adj_w)
            t->adj_w[p] = t->ew[k];
    }
    for (size_t k = 0; k < m; k++) {       /* i = ei, neighbour ej > i */
        size_t p = pos[t->ei[k]]++;
        t->adj[p] = t->ej[k];
        if (t->adj_w)
            t->adj_w[p] = t->ew[k];
    }
    free(pos);
    return CM_OK;
}

typedef struct {
    size_t a, b;   /* endpoints, a <= b */
    double w;      /* weight, NAN when absent */
    size_t line;   /* 1-based line number */
} rec;

static int rec_cmp(const void *pa, const void *pb)
{
    const rec *x = pa, *y = pb;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Turns sorted, de-duplicated records (a < b) into t's edge arrays. */
static cm_status edges_from_recs(cm_topo *t, const rec *r, size_t m,
                                 int weighted)
{
    t->m = m;
    t->ei = malloc((m + 1) * sizeof *t->ei);
    t->ej = malloc((m + 1) * sizeof *t->ej);
    if (weighted)
        t->ew = malloc((m + 1) * sizeof *t->ew);
    if (!t->ei || !t->ej || (weighted && !t->ew))
        return cm_error(CM_ENOMEM, "out of memory for %zu edges", m);
    for (size_t k = 0; k < m; k++) {
        t->ei[k] = r[k].a;
        t->ej[k] = r[k].b;
        if (weighted)
            t->ew[k] = r[k].w;
    }
    return build_csr(t);
}

cm_status cm_topo_from_edges(cm_topo *t, size_t n, size_t m,
                             const size_t *ei, const size_t *ej)
{
    cm_status st = CM_OK;
    cm_topo_destroy(t);
    rec *r = malloc((m + 1) * sizeof *r);
    if (!r)
        return cm_error(CM_ENOMEM, "out of memory for %zu edges", m);
    for (size_t k = 0; k < m; k++) {
        if (ei[k] >= n || ej[k] >= n) {
            st = cm_error(CM_EINVAL, "edge %zu-%zu: node id out of range "
                          "(n = %zu)", ei[k], ej[k], n);
            goto cleanup;
        }
        if (ei[k] == ej[k]) {
            st = cm_error(CM_EINVAL, "self-loop at node %zu", ei[k]);
            goto cleanup;
        }
        r[k].a = ei[k] < ej[k] ? ei[k] : ej[k];
        r[k].b = ei[k] < ej[k] ? ej[k] : ei[k];
        r[k].w = NAN;
        r[k].line = k;
    }
    qsort(r, m, sizeof *r, rec_cmp);
    for (size_t k = 1; k < m; k++)
        if (r[k].a == r[k - 1].a && r[k].b == r[k - 1].b) {
            st = cm_error(CM_EINVAL, "duplicate edge %zu-%zu", r[k].a, r[k].b);
            goto cleanup;
        }
    t->n = n;
    st = edges_from_recs(t, r, m, 0);
cleanup:
    free(r);
    if (st != CM_OK)
        cm_topo_destroy(t);
    return st;
}

static void *dup_array(const void *src, size_t bytes, int *fail)
{
    if (!src)
        return NULL;
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        *fail = 1;
        return NULL;
    }
    memcpy(p, src, bytes);
    return p;
}

cm_status cm_topo_copy(cm_topo *dst, const cm_topo *src)
{
    int fail = 0;
    cm_topo_destroy(dst);
    dst->n = src->n;
    dst->m = src->m;
    dst->ei = dup_array(src->ei, src->m * sizeof(size_t), &fail);
    dst->ej = dup_array(src->ej, src->m * sizeof(size_t), &fail);
    dst->ew = dup_array(src->ew, src->m * sizeof(double), &fail);
    dst->self = dup_array(src->self, src->n * sizeof(double), &fail);
    dst->off = dup_array(src->off, (src->n + 1) * sizeof(size_t), &fail);
    dst->adj = dup_array(src->adj, 2 * src->m * sizeof(size_t), &fail);
    dst->adj_w = dup_array(src->adj_w, 2 * src->m * sizeof(double), &fail);
    if (fail) {
        cm_topo_destroy(dst);
        return cm_error(CM_ENOMEM, "out of memory copying a topology");
    }
    return CM_OK;
}

/* ---- reader ---------------------------------------------------------- */

/* Parses a node id token. Returns 0 on success. */
static int parse_id(const char *tok, size_t *out, const char **why)
{
    if (*tok == '-') {
        *why = "negative node id";
        return -1;
    }
    if (!isdigit((unsigned char)*tok)) {
        *why = "node id is not a non-negative integer";
        return -1;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(tok, &end, 10);
    if (*end != '\0') {
        *why = "node id is not a non-negative integer";
        return -1;
    }
    if (errno == ERANGE || v >= CM_TOPO_MAX_NODES) {
        *why = "node id too large (limit 999999)";
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

static int parse_weight(const char *tok, double *out, const char **why)
{
    char *end;
    errno = 0;
    double v = strtod(tok, &end);
    if (end == tok || *end != '\0') {
        *why = "weight is not a number";
        return -1;
    }
    if (!isfinite(v)) {
        *why = "weight is not finite";
        return -1;
    }
    *out = v;
    return 0;
}

/* networkx's write_edgelist appends "{}" or "{'weight': w}". Returns 0 and
 * sets *has_w when rest is such a dict. */
static int parse_nx_dict(const char *rest, double *w, int *has_w,
                         const char **why)
{
    const char *p = rest;
    while (isspace((unsigned char)*p))
        p++;
    if (*p != '{')
        return -1;
    p++;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '}') {
        *has_w = 0;
        p++;
    } else {
        if (strncmp(p, "'weight'", 8) && strncmp(p, "\"weight\"", 8)) {
            *why = "only a 'weight' attribute is understood";
            return -2;
        }
        p += 8;
        while (isspace((unsigned char)*p))
            p++;
        if (*p != ':') {
            *why = "malformed attribute dictionary";
            return -2;
        }
        p++;
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v)) {
            *why = "weight is not a finite number";
            return -2;
        }
        p = end;
        while (isspace((unsigned char)*p))
            p++;
        if (*p != '}') {
            *why = "only a 'weight' attribute is understood";
            return -2;
        }
        p++;
        *w = v;
        *has_w = 1;
    }
    while (isspace((unsigned char)*p))
        p++;
    if (*p) {
        *why = "trailing text after the attribute dictionary";
        return -2;
    }
    return 0;
}

/* Scans a comment for the token n=N. Returns -1 on a bad value. */
static int scan_comment(char *s, size_t *n_decl, int *has_n)
{
    for (char *tok = strtok(s, " \t"); tok; tok = strtok(NULL, " \t")) {
        if (strncmp(tok, "n=", 2) != 0)
            continue;
        size_t v;
        const char *why;
        if (parse_id(tok + 2, &v, &why) != 0)
            return -1;
        if (*has_n && *n_decl != v)
            return -2;
        *n_decl = v;
        *has_n = 1;
    }
    return 0;
}

typedef struct {
    rec *r;
    size_t len, cap;
} recvec;

static int recvec_push(recvec *v, rec x)
{
    if (v->len == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 256;
        rec *p = realloc(v->r, cap * sizeof *p);
        if (!p)
            return -1;
        v->r = p;
        v->cap = cap;
    }
    v->r[v->len++] = x;
    return 0;
}

/* Parses all lines of fp into records. */
static cm_status read_records(FILE *fp, const char *path, size_t first_line,
                              recvec *v, size_t *n_decl, int *has_n,
                              size_t *n_decl_line)
{
    char *line = NULL;
    size_t cap = 0, lineno = first_line;
    ssize_t len;
    cm_status st = CM_OK;
    while ((len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            st = cm_error(CM_EFORMAT, "%s:%zu: binary data (NUL byte); not "
                          "a topology text file", path, lineno);
            goto cleanup;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            continue;
        if (*p == '#') {
            int had = *has_n;
            int rc = scan_comment(p + 1, n_decl, has_n);
            if (rc == -1) {
                st = cm_error(CM_EFORMAT, "%s:%zu: bad node count in n=... "
                              "(must be an integer from 0 to %d)", path,
                              lineno, CM_TOPO_MAX_NODES);
                goto cleanup;
            }
            if (rc == -2) {
                st = cm_error(CM_EFORMAT, "%s:%zu: n=... contradicts the "
                              "node count declared on line %zu", path, lineno,
                              *n_decl_line);
                goto cleanup;
            }
            if (!had && *has_n)
                *n_decl_line = lineno;
            continue;
        }
        for (char *q = p; *q; q++)
            if (!isprint((unsigned char)*q) && !isspace((unsigned char)*q)) {
                st = cm_error(CM_EFORMAT, "%s:%zu: unexpected control or "
                              "non-ASCII byte 0x%02x; not a topology text "
                              "file", path, lineno, (unsigned char)*q);
                goto cleanup;
            }
        /* Split off up to three whitespace-separated fields; keep the rest
         * for a networkx attribute dictionary. */
        char *f[3] = {NULL, NULL, NULL};
        char *rest = NULL;
        int nf = 0;
        char *q = p;
        while (*q && nf < 3) {
            while (isspace((unsigned char)*q))
                q++;
            if (!*q)
                break;
            if (nf == 2 && *q == '{') {
                rest = q;
                break;
            }
            f[nf++] = q;
            while (*q && !isspace((unsigned char)*q))
                q++;
            if (*q)
                *q++ = '\0';
        }
        if (!rest) {
            while (isspace((unsigned char)*q))
                q++;
            if (*q) {
                st = cm_error(CM_EFORMAT, "%s:%zu: too many fields (expected "
                              "`i j` or `i j w`)", path, lineno);
                goto cleanup;
            }
        }
        if (nf < 2) {
            st = cm_error(CM_EFORMAT, "%s:%zu: missing field (expected `i j` "
                          "or `i j w`)", path, lineno);
            goto cleanup;
        }
        rec r = {0, 0, NAN, lineno};
        size_t i, j;
        const char *why = NULL;
        if (parse_id(f[0], &i, &why) || parse_id(f[1], &j, &why)) {
            st = cm_error(CM_EFORMAT, "%s:%zu: %s", path, lineno, why);
            goto cleanup;
        }
        if (rest) {
            int has_w = 0;
            double w = NAN;
            int rc = parse_nx_dict(rest, &w, &has_w, &why);
            if (rc != 0) {
                st = cm_error(CM_EFORMAT, "%s:%zu: %s", path, lineno,
                              why ? why : "malformed attribute dictionary");
                goto cleanup;
            }
            r.w = has_w ? w : NAN;
        } else if (nf == 3) {
            if (parse_weight(f[2], &r.w, &why)) {
                st = cm_error(CM_EFORMAT, "%s:%zu: %s", path, lineno, why);
                goto cleanup;
            }
        }
        r.a = i < j ? i : j;
        r.b = i < j ? j : i;
        if (recvec_push(v, r)) {
            st = cm_error(CM_ENOMEM, "%s:%zu: out of memory", path, lineno);
            goto cleanup;
        }
    }
    if (ferror(fp))
        st = cm_error(CM_EIO, "%s: read error: %s", path, strerror(errno));
cleanup:
    free(line);
    return st;
}

cm_status cm_topo_read(cm_topo *t, const char *path)
{
    int use_stdin = strcmp(path, "-") == 0;
    FILE *fp = use_stdin ? stdin : fopen(path, "r");
    cm_topo_destroy(t);
    if (!fp)
        return cm_error(CM_EIO, "cannot open topology file %s: %s", path,
                        strerror(errno));
    cm_status st = cm_topo_read_stream(t, fp, path, 0);
    if (!use_stdin)
        fclose(fp);
    return st;
}

cm_status cm_topo_read_stream(cm_topo *t, FILE *fp, const char *path,
                              size_t first_line)
{
    cm_status st = CM_OK;
    recvec v = {NULL, 0, 0};
    size_t n_decl = 0, n_decl_line = 0;
    int has_n = 0;
    rec *edges = NULL;
    cm_topo_destroy(t);
    st = read_records(fp, path, first_line, &v, &n_decl, &has_n,
                      &n_decl_line);
    if (st != CM_OK)
        goto cleanup;
    if (v.len == 0 && !(has_n && n_decl == 1)) {
        st = cm_error(CM_EFORMAT, "%s: no edges found (empty topology file)",
                      path);
        goto cleanup;
    }
    /* Weighted or not: decided by the first record, then enforced. */
    int weighted = v.len > 0 && !isnan(v.r[0].w);
    size_t maxid = 0;
    for (size_t k = 0; k < v.len; k++) {
        if ((!isnan(v.r[k].w)) != weighted) {
            st = cm_error(CM_EFORMAT, "%s:%zu: weight %s, but line %zu %s "
                          "(weights must be all present or all absent)",
                          path, v.r[k].line, weighted ? "missing" : "given",
                          v.r[0].line, weighted ? "has one" : "has none");
            goto cleanup;
        }
        if (v.r[k].b > maxid)
            maxid = v.r[k].b;
    }
    size_t n = has_n ? n_decl : (v.len ? maxid + 1 : 0);
    for (size_t k = 0; k < v.len; k++)
        if (v.r[k].b >= n) {
            st = cm_error(CM_EFORMAT, "%s:%zu: node id %zu is beyond the node "
                          "count n=%zu declared on line %zu", path,
                          v.r[k].line, v.r[k].b, n, n_decl_line);
            goto cleanup;
        }
    if (n == 0) {
        st = cm_error(CM_EFORMAT, "%s: declares n=0 nodes", path);
        goto cleanup;
    }
    t->n = n;
    if (weighted) {
        t->self = calloc(n, sizeof *t->self);
        if (!t->self) {
            st = cm_error(CM_ENOMEM, "%s: out of memory", path);
            goto cleanup;
        }
    }
    qsort(v.r, v.len, sizeof *v.r, rec_cmp);
    edges = malloc((v.len + 1) * sizeof *edges);
    if (!edges) {
        st = cm_error(CM_ENOMEM, "%s: out of memory", path);
        goto cleanup;
    }
    size_t m = 0;
    for (size_t k = 0; k < v.len; k++) {
        const rec *r = &v.r[k];
        int dup = k > 0 && r->a == v.r[k - 1].a && r->b == v.r[k - 1].b;
        if (dup) {
            const rec *p = &v.r[k - 1];
            if (weighted && p->w != r->w) {
                if (r->a == r->b)
                    st = cm_error(CM_EFORMAT, "%s:%zu: self weight of node %zu "
                                  "is %.17g, but line %zu gives %.17g", path,
                                  r->line, r->a, r->w, p->line, p->w);
                else
                    st = cm_error(CM_EFORMAT, "%s:%zu: edge %zu-%zu has weight "
                                  "%.17g, but line %zu gives %.17g (W must be "
                                  "symmetric)", path, r->line, r->a, r->b,
                                  r->w, p->line, p->w);
                goto cleanup;
            }
            continue;
        }
        if (r->a == r->b) {
            if (!weighted) {
                st = cm_error(CM_EFORMAT, "%s:%zu: self-loop %zu %zu without a "
                              "weight (self lines are only for weighted files)",
                              path, r->line, r->a, r->b);
                goto cleanup;
            }
            t->self[r->a] = r->w;
            continue;
        }
        edges[m++] = *r;
    }
    st = edges_from_recs(t, edges, m, weighted);
cleanup:
    free(edges);
    free(v.r);
    if (st != CM_OK)
        cm_topo_destroy(t);
    return st;
}

cm_status cm_topo_load(cm_topo *t, const char *path)
{
    cm_status st = cm_topo_read(t, path);
    if (st == CM_OK)
        st = cm_topo_validate(t, path);
    if (st != CM_OK)
        cm_topo_destroy(t);
    return st;
}

/* ---- writer ---------------------------------------------------------- */

cm_status cm_topo_write(const cm_topo *t, FILE *fp, const char *comment)
{
    if (comment) {
        const char *p = comment;
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            if (len > 0)
                fprintf(fp, "%s%.*s\n", *p == '#' ? "" : "# ", (int)len, p);
            p += len + (nl ? 1 : 0);
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        if (t->self)
            fprintf(fp, "%zu %zu %.17g\n", i, i, t->self[i]);
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            if (t->adj[p] < i)
                continue;
            if (t->adj_w)
                fprintf(fp, "%zu %zu %.17g\n", i, t->adj[p], t->adj_w[p]);
            else
                fprintf(fp, "%zu %zu\n", i, t->adj[p]);
        }
    }
    if (ferror(fp))
        return cm_error(CM_EIO, "write error");
    return CM_OK;
}

cm_status cm_topo_save(const cm_topo *t, const char *path,
                       const char *comment)
{
    if (strcmp(path, "-") == 0) {
        cm_status st = cm_topo_write(t, stdout, comment);
        if (st == CM_OK && fflush(stdout) != 0)
            st = cm_error(CM_EIO, "write error on standard output");
        return st;
    }
    cm_afile f;
    cm_status st = cm_atomic_open(&f, path);
    if (st != CM_OK)
        return st;
    st = cm_topo_write(t, f.fp, comment);
    if (st != CM_OK) {
        cm_atomic_abort(&f);
        return cm_error(CM_EIO, "cannot write %s", path);
    }
    return cm_atomic_commit(&f);
}

/* ---- structure ------------------------------------------------------- */

void cm_topo_degree_range(const cm_topo *t, size_t *dmin, size_t *dmax)
{
    size_t lo = t->n ? SIZE_MAX : 0, hi = 0;
    for (size_t i = 0; i < t->n; i++) {
        size_t d = cm_topo_degree(t, i);
        if (d < lo)
            lo = d;
        if (d > hi)
            hi = d;
    }
    *dmin = lo;
    *dmax = hi;
}

/* Breadth-first search from node 0; returns the number of nodes reached
 * and, when fewer than n, one unreached node in *missing. */
static size_t bfs_reach(const cm_topo *t, size_t *missing)
{
    size_t n = t->n, reached = 0;
    if (n == 0)
        return 0;
    unsigned char *seen = calloc(n, 1);
    size_t *queue = malloc(n * sizeof *queue);
    if (!seen || !queue) {
        free(seen);
        free(queue);
        return SIZE_MAX;
    }
    size_t head = 0, tail = 0;
    queue[tail++] = 0;
    seen[0] = 1;
    while (head < tail) {
        size_t u = queue[head++];
        reached++;
        for (size_t p = t->off[u]; p < t->off[u + 1]; p++)
            if (!seen[t->adj[p]]) {
                seen[t->adj[p]] = 1;
                queue[tail++] = t->adj[p];
            }
    }
    *missing = 0;
    for (size_t i = 0; i < n; i++)
        if (!seen[i]) {
            *missing = i;
            break;
        }
    free(seen);
    free(queue);
    return reached;
}

int cm_topo_is_connected(const cm_topo *t)
{
    size_t missing;
    return t->n <= 1 || bfs_reach(t, &missing) == t->n;
}

cm_status cm_topo_check_connected(const cm_topo *t, const char *path)
{
    if (t->n <= 1)
        return CM_OK;
    for (size_t i = 0; i < t->n; i++)
        if (cm_topo_degree(t, i) == 0)
            return cm_error(CM_ETOPO, "%s: node %zu has no edges (the graph "
                            "is disconnected)", path, i);
    size_t missing = 0, r = bfs_reach(t, &missing);
    if (r == SIZE_MAX)
        return cm_error(CM_ENOMEM, "%s: out of memory", path);
    if (r != t->n)
        return cm_error(CM_ETOPO, "%s: the graph is disconnected (node 0 "
                        "reaches %zu of %zu nodes; node %zu is not reached)",
                        path, r, t->n, missing);
    return CM_OK;
}
