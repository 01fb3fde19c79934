/* cm_topo_doc.c: what the GML and GraphML readers share (see
 * cm_topo_doc.h): the node/edge accumulator, the node numbering, the
 * check of directed arcs, and the size-bounded read of a document.
 *
 * Nodes are collected as (key string, integer label) and edges as (source
 * key, target key, weight, line); finish numbers the nodes, sorts them by
 * key and maps each edge's keys by binary search, O((N + m) log N).
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo_doc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cm_topo.h"

void cm_topo_doc_acc_free(cm_topo_doc_acc *g)
{
    for (size_t k = 0; k < g->nn; k++)
        free(g->nodes[k].key);
    for (size_t k = 0; k < g->ne; k++) {
        free(g->edges[k].src);
        free(g->edges[k].dst);
    }
    free(g->nodes);
    free(g->edges);
    memset(g, 0, sizeof *g);
}

static int grow(void **p, size_t *cap, size_t len, size_t elem, size_t max)
{
    if (len < *cap)
        return 0;
    if (*cap >= max)
        return -1;
    size_t c = *cap ? 2 * *cap : 64;
    void *q = realloc(*p, c * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

cm_status cm_topo_doc_add_node(cm_topo_doc_acc *g, const char *path,
                               size_t line, const char *key, long long lab)
{
    if (g->nn >= CM_TOPO_MAX_NODES)
        return cm_error(CM_EFORMAT, "%s:%zu: more than %d nodes (the limit "
                        "of topology files)", path, line, CM_TOPO_MAX_NODES);
    if (grow((void **)&g->nodes, &g->ncap, g->nn, sizeof *g->nodes,
             (size_t)CM_TOPO_MAX_NODES + 64))
        return cm_error(CM_ENOMEM, "%s:%zu: out of memory", path, line);
    cm_topo_doc_node *nd = &g->nodes[g->nn];
    if (!(nd->key = strdup(key)))
        return cm_error(CM_ENOMEM, "%s:%zu: out of memory", path, line);
    nd->lab = lab;
    nd->num = 0;
    nd->line = line;
    g->nn++;
    return CM_OK;
}

cm_status cm_topo_doc_add_edge(cm_topo_doc_acc *g, const char *path,
                               size_t line, const char *src, const char *dst,
                               double w, int directed)
{
    if (g->ne >= CM_TOPO_MAX_EDGES)
        return cm_error(CM_EFORMAT, "%s:%zu: more than %d edges (the limit "
                        "of topology files)", path, line, CM_TOPO_MAX_EDGES);
    if (grow((void **)&g->edges, &g->ecap, g->ne, sizeof *g->edges,
             (size_t)CM_TOPO_MAX_EDGES + 64))
        return cm_error(CM_ENOMEM, "%s:%zu: out of memory", path, line);
    cm_topo_doc_edge *e = &g->edges[g->ne];
    e->src = strdup(src);
    e->dst = strdup(dst);
    e->w = w;
    e->line = line;
    e->directed = directed;
    if (!e->src || !e->dst) {
        free(e->src);
        free(e->dst);
        return cm_error(CM_ENOMEM, "%s:%zu: out of memory", path, line);
    }
    g->ne++;
    return CM_OK;
}

long long cm_topo_doc_int_key(const char *s)
{
    if (*s == 'n')
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p))
            return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    return errno || v >= CM_TOPO_MAX_NODES ? -2 : v;
}

cm_status cm_topo_doc_slurp(FILE *fp, const char *path, char **out,
                            size_t *len_out)
{
    const size_t max = CM_TOPO_MAX_BYTES;
    struct stat sb;
    int fd = fileno(fp);
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (unsigned long long)sb.st_size > max)
        return cm_error(CM_EFORMAT, "%s: %llu bytes, larger than the %zu-byte "
                        "(2 GiB) limit of topology files", path,
                        (unsigned long long)sb.st_size, max);
    size_t len = 0, cap = 0;
    char *buf = NULL;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            size_t c = cap ? 2 * cap : 65536;
            if (c > max + 2)
                c = max + 2;
            if (c <= cap) {
                free(buf);
                return cm_error(CM_EFORMAT, "%s: larger than the %zu-byte "
                                "(2 GiB) limit of topology files", path, max);
            }
            char *p = realloc(buf, c);
            if (!p) {
                free(buf);
                return cm_error(CM_ENOMEM, "%s: out of memory", path);
            }
            buf = p;
            cap = c;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, fp);
        len += got;
        if (len > max) {
            free(buf);
            return cm_error(CM_EFORMAT, "%s: larger than the %zu-byte (2 GiB) "
                            "limit of topology files", path, max);
        }
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        free(buf);
        return cm_error(CM_EIO, "%s: read error: %s", path, strerror(errno));
    }
    if (memchr(buf, '\0', len)) {
        free(buf);
        return cm_error(CM_EFORMAT, "%s: binary data (NUL byte); not a "
                        "topology text file", path);
    }
    buf[len] = '\0';
    *out = buf;
    *len_out = len;
    return CM_OK;
}

static int node_key_cmp(const void *a, const void *b)
{
    return strcmp(((const cm_topo_doc_node *)a)->key,
                  ((const cm_topo_doc_node *)b)->key);
}

static int node_lab_cmp(const void *a, const void *b)
{
    const cm_topo_doc_node *x = a, *y = b;
    return (x->lab > y->lab) - (x->lab < y->lab);
}

typedef struct {
    size_t s, t; /* arc s -> t */
    double w;
    size_t line;
} arc;

static int arc_cmp(const void *a, const void *b)
{
    const arc *x = a, *y = b;
    if (x->s != y->s)
        return (x->s > y->s) - (x->s < y->s);
    return (x->t > y->t) - (x->t < y->t);
}

/* Every directed arc s -> t needs t -> s with the same weight. */
static cm_status check_arcs(const cm_topo_doc_acc *g, const size_t *num_s,
                            const size_t *num_t, const char *path)
{
    size_t na = 0;
    for (size_t k = 0; k < g->ne; k++)
        na += g->edges[k].directed;
    if (na == 0)
        return CM_OK;
    arc *a = malloc(na * sizeof *a);
    if (!a)
        return cm_error(CM_ENOMEM, "%s: out of memory", path);
    for (size_t k = 0, i = 0; k < g->ne; k++)
        if (g->edges[k].directed)
            a[i++] = (arc){num_s[k], num_t[k], g->edges[k].w,
                           g->edges[k].line};
    qsort(a, na, sizeof *a, arc_cmp);
    cm_status st = CM_OK;
    for (size_t i = 0; i < na && st == CM_OK; i++) {
        if (a[i].s == a[i].t)
            continue;
        arc key = {a[i].t, a[i].s, 0, 0};
        const arc *r = bsearch(&key, a, na, sizeof *a, arc_cmp);
        int same = r && ((isnan(r->w) && isnan(a[i].w)) || r->w == a[i].w);
        if (!same)
            st = cm_error(CM_EFORMAT, "%s:%zu: directed edge %zu -> %zu has %s "
                          "(a topology is undirected: list both directions "
                          "with one weight, or write the graph undirected)",
                          path, a[i].line, a[i].s, a[i].t,
                          r ? "a reverse with another weight"
                            : "no reverse edge");
    }
    free(a);
    return st;
}

cm_status cm_topo_doc_finish(cm_topo_doc_acc *g, const char *path,
                             cm_topo_recvec *v, size_t *n)
{
    size_t nn = g->nn;
    int all_int = 1;
    for (size_t k = 0; k < nn && all_int; k++)
        all_int = g->nodes[k].lab >= 0;
    if (all_int) {
        /* number by sorted integer label: 0..N-1 stay, 1..N shift down */
        qsort(g->nodes, nn, sizeof *g->nodes, node_lab_cmp);
        for (size_t k = 0; k < nn; k++) {
            if (k > 0 && g->nodes[k].lab == g->nodes[k - 1].lab)
                return cm_error(CM_EFORMAT, "%s:%zu: two nodes share the "
                                "label %lld", path, g->nodes[k].line,
                                g->nodes[k].lab);
            g->nodes[k].num = k;
        }
    } else {
        for (size_t k = 0; k < nn; k++)
            g->nodes[k].num = k; /* order of appearance */
    }
    qsort(g->nodes, nn, sizeof *g->nodes, node_key_cmp);
    for (size_t k = 1; k < nn; k++)
        if (strcmp(g->nodes[k].key, g->nodes[k - 1].key) == 0)
            return cm_error(CM_EFORMAT, "%s:%zu: node '%s' is declared twice",
                            path, g->nodes[k].line, g->nodes[k].key);
    size_t *ns = malloc((g->ne + 1) * sizeof *ns);
    size_t *nt = malloc((g->ne + 1) * sizeof *nt);
    cm_status st = CM_OK;
    if (!ns || !nt) {
        st = cm_error(CM_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t k = 0; k < g->ne; k++) {
        const cm_topo_doc_edge *e = &g->edges[k];
        cm_topo_doc_node ka = {e->src, 0, 0, 0}, kb = {e->dst, 0, 0, 0};
        const cm_topo_doc_node *a = bsearch(&ka, g->nodes, nn, sizeof ka,
                                            node_key_cmp);
        const cm_topo_doc_node *b = bsearch(&kb, g->nodes, nn, sizeof kb,
                                            node_key_cmp);
        if (!a || !b) {
            st = cm_error(CM_EFORMAT, "%s:%zu: edge names an undeclared node "
                          "'%s'", path, e->line, !a ? e->src : e->dst);
            goto done;
        }
        ns[k] = a->num;
        nt[k] = b->num;
    }
    if ((st = check_arcs(g, ns, nt, path)) != CM_OK)
        goto done;
    for (size_t k = 0; k < g->ne; k++) {
        const cm_topo_doc_edge *e = &g->edges[k];
        /* an undirected graph written as a digraph: each pair once */
        if (e->directed && ns[k] > nt[k])
            continue;
        cm_topo_rec r = {ns[k] < nt[k] ? ns[k] : nt[k],
                         ns[k] < nt[k] ? nt[k] : ns[k], e->w, e->line};
        if (cm_topo_recvec_push(v, r)) {
            st = cm_error(CM_EFORMAT, "%s:%zu: out of memory or more than "
                          "%d edges", path, e->line, CM_TOPO_MAX_EDGES);
            goto done;
        }
    }
    *n = nn;
done:
    free(ns);
    free(nt);
    return st;
}
