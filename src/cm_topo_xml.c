/* cm_topo_xml.c: GML and GraphML readers (see cm_topo_xml.h).
 *
 * Both read the whole file into memory (refused above MAX_BYTES), scan it
 * once, collect nodes as (key string, number) and edges as (source key,
 * target key, weight, line), then number the nodes (node_numbers) and map
 * each edge's keys through a sorted table. They read the subset of each
 * format that igraph's and networkx's writers produce: no XML entities
 * beyond the five predefined ones in keys, no GML nesting inside nodes or
 * edges beyond plain key-value pairs (nested lists are skipped).
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo_xml.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_topo.h"

/* Largest GML/GraphML file read (its bytes are held in memory). */
#define MAX_BYTES ((size_t)1 << 31)

typedef struct {
    char *key;     /* node key as written (owned) */
    size_t num;    /* node number, 0..n-1 once numbered */
    long long lab; /* integer label, or -1 */
} node_t;

typedef struct {
    char *src, *dst; /* node keys (owned) */
    double w;        /* weight or NAN */
    size_t line;     /* line of the edge */
} edge_t;

typedef struct {
    node_t *nodes;
    size_t nn, ncap;
    edge_t *edges;
    size_t ne, ecap;
} graph_acc;

static void acc_free(graph_acc *g)
{
    for (size_t k = 0; k < g->nn; k++)
        free(g->nodes[k].key);
    for (size_t k = 0; k < g->ne; k++) {
        free(g->edges[k].src);
        free(g->edges[k].dst);
    }
    free(g->nodes);
    free(g->edges);
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

static char *dup_n(const char *s, size_t len)
{
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

/* Integer value of "123" or "n123" (igraph's GraphML ids); -1 if not. */
static long long int_key(const char *s)
{
    if (*s == 'n')
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    return errno || *end || v >= CM_TOPO_MAX_NODES ? -1 : v;
}

static int node_key_cmp(const void *a, const void *b)
{
    return strcmp(((const node_t *)a)->key, ((const node_t *)b)->key);
}

static int node_lab_cmp(const void *a, const void *b)
{
    const node_t *x = a, *y = b;
    return (x->lab > y->lab) - (x->lab < y->lab);
}

/* Numbers the nodes (see cm_topo_xml.h), then turns edges into records.
 * Sorts g->nodes by key. */
static cm_status finish(graph_acc *g, const char *path, cm_topo_recvec *v,
                        size_t *n)
{
    size_t nn = g->nn;
    if (nn > CM_TOPO_MAX_NODES)
        return cm_error(CM_EFORMAT, "%s: %zu nodes (at most %d)", path, nn,
                        CM_TOPO_MAX_NODES);
    int all_int = 1;
    for (size_t k = 0; k < nn && all_int; k++)
        all_int = g->nodes[k].lab >= 0;
    if (all_int) {
        /* number by sorted integer label: 0..N-1 stay, 1..N shift down */
        qsort(g->nodes, nn, sizeof *g->nodes, node_lab_cmp);
        for (size_t k = 0; k < nn; k++) {
            if (k > 0 && g->nodes[k].lab == g->nodes[k - 1].lab)
                return cm_error(CM_EFORMAT, "%s: two nodes share the label "
                                "%lld", path, g->nodes[k].lab);
            g->nodes[k].num = k;
        }
    } else {
        for (size_t k = 0; k < nn; k++)
            g->nodes[k].num = k; /* order of appearance */
    }
    qsort(g->nodes, nn, sizeof *g->nodes, node_key_cmp);
    for (size_t k = 1; k < nn; k++)
        if (strcmp(g->nodes[k].key, g->nodes[k - 1].key) == 0)
            return cm_error(CM_EFORMAT, "%s: node '%s' is declared twice",
                            path, g->nodes[k].key);
    for (size_t k = 0; k < g->ne; k++) {
        const edge_t *e = &g->edges[k];
        node_t ka = {e->src, 0, 0}, kb = {e->dst, 0, 0};
        const node_t *a = bsearch(&ka, g->nodes, nn, sizeof ka, node_key_cmp);
        const node_t *b = bsearch(&kb, g->nodes, nn, sizeof kb, node_key_cmp);
        if (!a || !b)
            return cm_error(CM_EFORMAT, "%s:%zu: edge names an undeclared node "
                            "'%s'", path, e->line, !a ? e->src : e->dst);
        cm_topo_rec r = {a->num < b->num ? a->num : b->num,
                         a->num < b->num ? b->num : a->num, e->w, e->line};
        if (cm_topo_recvec_push(v, r))
            return cm_error(CM_EFORMAT, "%s:%zu: out of memory or more than "
                            "%d edges", path, e->line, CM_TOPO_MAX_EDGES);
    }
    *n = nn;
    return CM_OK;
}

static cm_status slurp(FILE *fp, const char *path, char **out)
{
    size_t len = 0, cap = 0;
    char *buf = NULL;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            if (cap >= MAX_BYTES) {
                free(buf);
                return cm_error(CM_EFORMAT, "%s: larger than %zu bytes", path,
                                MAX_BYTES);
            }
            cap = cap ? 2 * cap : 65536;
            char *p = realloc(buf, cap);
            if (!p) {
                free(buf);
                return cm_error(CM_ENOMEM, "%s: out of memory", path);
            }
            buf = p;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, fp);
        len += got;
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
    return CM_OK;
}

static int parse_double(const char *s, size_t len, double *w)
{
    char tmp[64];
    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    if (len == 0 || len >= sizeof tmp)
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end;
    *w = strtod(tmp, &end);
    return *end || !isfinite(*w) ? -1 : 0;
}

/* ---- GML ------------------------------------------------------------- */

typedef struct {
    const char *p;  /* cursor */
    size_t line;    /* current line */
    const char *tok;
    size_t len;     /* token; len 0 at the end */
} gml_lex;

static void gml_next(gml_lex *x)
{
    for (;;) {
        while (isspace((unsigned char)*x->p))
            x->line += *x->p++ == '\n';
        if (*x->p != '#')
            break;
        while (*x->p && *x->p != '\n')
            x->p++;
    }
    x->tok = x->p;
    if (!*x->p) {
        x->len = 0;
        return;
    }
    if (*x->p == '[' || *x->p == ']') {
        x->p++;
    } else if (*x->p == '"') {
        x->p++;
        while (*x->p && *x->p != '"')
            x->line += *x->p++ == '\n';
        if (*x->p)
            x->p++;
    } else {
        while (*x->p && !isspace((unsigned char)*x->p) && *x->p != '[' &&
               *x->p != ']')
            x->p++;
    }
    x->len = (size_t)(x->p - x->tok);
}

static int tok_is(const gml_lex *x, const char *s)
{
    return x->len == strlen(s) && strncmp(x->tok, s, x->len) == 0;
}

/* Skips a value: a token or a bracketed list. -1 when unbalanced. */
static int gml_skip_value(gml_lex *x)
{
    if (!tok_is(x, "["))
        return x->len ? 0 : -1;
    int depth = 1;
    while (depth > 0) {
        gml_next(x);
        if (!x->len)
            return -1;
        depth += tok_is(x, "[") - tok_is(x, "]");
    }
    return 0;
}

/* The integer in a GML token (quotes allowed); -1 if none. */
static long long gml_int(const gml_lex *x)
{
    char tmp[32];
    const char *s = x->tok;
    size_t len = x->len;
    if (len && *s == '"')
        s++, len -= len >= 2 ? 2 : 1;
    if (len == 0 || len >= sizeof tmp)
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    return int_key(tmp);
}

cm_status cm_topo_read_gml(FILE *fp, const char *path, size_t line0,
                           cm_topo_recvec *v, size_t *n)
{
    char *buf = NULL;
    graph_acc g = {0};
    cm_status st = slurp(fp, path, &buf);
    if (st != CM_OK)
        return st;
    gml_lex x = {buf, line0 + 1, NULL, 0};
    int in_graph = 0;
#define GML_FAIL(...) do { st = cm_error(CM_EFORMAT, __VA_ARGS__); \
                           goto cleanup; } while (0)
    for (gml_next(&x); x.len; gml_next(&x)) {
        if (tok_is(&x, "]") && in_graph) {
            in_graph = 0;
            continue;
        }
        int is_graph = tok_is(&x, "graph"), is_node = tok_is(&x, "node"),
            is_edge = tok_is(&x, "edge");
        size_t line = x.line;
        gml_next(&x);
        if (!x.len)
            GML_FAIL("%s:%zu: GML: key without a value", path, line);
        if (is_graph && !in_graph && tok_is(&x, "[")) {
            in_graph = 1;
            continue;
        }
        if (!in_graph || !(is_node || is_edge) || !tok_is(&x, "[")) {
            if (gml_skip_value(&x))
                GML_FAIL("%s:%zu: GML: unbalanced brackets", path, line);
            continue;
        }
        long long id = -1, label = -1, src = -1, dst = -1;
        double w = NAN;
        for (gml_next(&x); x.len && !tok_is(&x, "]"); gml_next(&x)) {
            gml_lex key = x;
            gml_next(&x);
            if (!x.len)
                GML_FAIL("%s:%zu: GML: unterminated %s", path, line,
                         is_node ? "node" : "edge");
            if (tok_is(&key, "id"))
                id = gml_int(&x);
            else if (tok_is(&key, "label"))
                label = gml_int(&x);
            else if (tok_is(&key, "source"))
                src = gml_int(&x);
            else if (tok_is(&key, "target"))
                dst = gml_int(&x);
            else if (tok_is(&key, "weight")) {
                if (parse_double(x.tok, x.len, &w))
                    GML_FAIL("%s:%zu: GML: weight is not a finite number",
                             path, x.line);
            } else if (gml_skip_value(&x))
                GML_FAIL("%s:%zu: GML: unbalanced brackets", path, line);
        }
        if (!x.len)
            GML_FAIL("%s:%zu: GML: unterminated %s", path, line,
                     is_node ? "node" : "edge");
        char key[32];
        if (is_node) {
            if (id < 0)
                GML_FAIL("%s:%zu: GML: node without an integer id", path,
                         line);
            if (grow((void **)&g.nodes, &g.ncap, g.nn, sizeof *g.nodes,
                     CM_TOPO_MAX_NODES + 1))
                GML_FAIL("%s:%zu: GML: out of memory or more than %d nodes",
                         path, line, CM_TOPO_MAX_NODES);
            snprintf(key, sizeof key, "%lld", id);
            node_t *nd = &g.nodes[g.nn];
            nd->key = dup_n(key, strlen(key));
            nd->lab = label >= 0 ? label : id;
            if (!nd->key)
                GML_FAIL("%s: out of memory", path);
            g.nn++;
        } else {
            if (src < 0 || dst < 0)
                GML_FAIL("%s:%zu: GML: edge without integer source and "
                         "target", path, line);
            if (grow((void **)&g.edges, &g.ecap, g.ne, sizeof *g.edges,
                     CM_TOPO_MAX_EDGES))
                GML_FAIL("%s:%zu: GML: out of memory or more than %d edges",
                         path, line, CM_TOPO_MAX_EDGES);
            edge_t *e = &g.edges[g.ne];
            snprintf(key, sizeof key, "%lld", src);
            e->src = dup_n(key, strlen(key));
            snprintf(key, sizeof key, "%lld", dst);
            e->dst = dup_n(key, strlen(key));
            e->w = w;
            e->line = line;
            g.ne++;
            if (!e->src || !e->dst)
                GML_FAIL("%s: out of memory", path);
        }
    }
    if (in_graph)
        GML_FAIL("%s:%zu: GML: unterminated graph (missing ']')", path,
                 x.line);
    if (g.nn == 0)
        GML_FAIL("%s: no `graph [ node [ id ... ] ... ]` found (read as GML "
                 "because it starts with a letter; edge lists need integer "
                 "node ids)", path);
#undef GML_FAIL
    st = finish(&g, path, v, n);
cleanup:
    acc_free(&g);
    free(buf);
    return st;
}

/* ---- GraphML --------------------------------------------------------- */

/* The value of attribute name in the tag text [s, e), unescaped only for
 * the predefined entities; NULL when absent or out of memory. */
static char *xml_attr(const char *s, const char *e, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = s; p + nl < e; p++) {
        if (strncmp(p, name, nl) != 0 || !isspace((unsigned char)p[-1]))
            continue;
        const char *q = p + nl;
        while (q < e && isspace((unsigned char)*q))
            q++;
        if (q >= e || *q != '=')
            continue;
        q++;
        while (q < e && isspace((unsigned char)*q))
            q++;
        if (q >= e || (*q != '"' && *q != '\''))
            continue;
        char quote = *q++;
        const char *end = memchr(q, quote, (size_t)(e - q));
        if (!end)
            return NULL;
        char *out = malloc((size_t)(end - q) + 1), *o = out;
        if (!out)
            return NULL;
        static const struct { const char *ent; char c; } ents[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'},
            {"&apos;", '\''}};
        while (q < end) {
            size_t k = 0;
            for (; k < 5; k++)
                if (strncmp(q, ents[k].ent, strlen(ents[k].ent)) == 0)
                    break;
            if (k < 5) {
                *o++ = ents[k].c;
                q += strlen(ents[k].ent);
            } else {
                *o++ = *q++;
            }
        }
        *o = '\0';
        return out;
    }
    return NULL;
}

static int tag_is(const char *s, const char *name)
{
    size_t nl = strlen(name);
    return strncmp(s, name, nl) == 0 &&
           (isspace((unsigned char)s[nl]) || s[nl] == '>' || s[nl] == '/');
}

cm_status cm_topo_read_graphml(FILE *fp, const char *path, size_t line0,
                               cm_topo_recvec *v, size_t *n)
{
    char *buf = NULL, *wkey = NULL, *dkey = NULL, *a = NULL, *b = NULL;
    graph_acc g = {0};
    cm_status st = slurp(fp, path, &buf);
    if (st != CM_OK)
        return st;
    size_t line = line0 + 1;
    const char *p = buf, *mark = buf;
    int in_edge = 0;
    edge_t cur = {0};
#define XML_FAIL(...) do { st = cm_error(CM_EFORMAT, __VA_ARGS__); \
                           goto cleanup; } while (0)
    while ((p = strchr(p, '<')) != NULL) {
        for (; mark < p; mark++)
            line += *mark == '\n';
        const char *s = p + 1;
        if (strncmp(s, "!--", 3) == 0) {
            const char *e = strstr(s, "-->");
            p = e ? e + 3 : s + strlen(s);
            continue;
        }
        const char *e = strchr(s, '>');
        if (!e)
            XML_FAIL("%s:%zu: GraphML: unterminated tag", path, line);
        int closes = e > s && e[-1] == '/';
        if (tag_is(s, "key")) {
            free(a);
            free(b);
            a = xml_attr(s, e, "attr.name");
            b = xml_attr(s, e, "for");
            if (a && strcmp(a, "weight") == 0 &&
                (!b || strcmp(b, "edge") == 0 || strcmp(b, "all") == 0)) {
                free(wkey);
                wkey = xml_attr(s, e, "id");
            }
        } else if (tag_is(s, "node")) {
            char *id = xml_attr(s, e, "id");
            if (!id)
                XML_FAIL("%s:%zu: GraphML: node without an id", path, line);
            if (grow((void **)&g.nodes, &g.ncap, g.nn, sizeof *g.nodes,
                     CM_TOPO_MAX_NODES + 1)) {
                free(id);
                XML_FAIL("%s:%zu: GraphML: out of memory or more than %d "
                         "nodes", path, line, CM_TOPO_MAX_NODES);
            }
            g.nodes[g.nn].key = id;
            g.nodes[g.nn].lab = int_key(id);
            g.nn++;
        } else if (tag_is(s, "edge")) {
            if (in_edge)
                XML_FAIL("%s:%zu: GraphML: edge inside an edge", path, line);
            cur.src = xml_attr(s, e, "source");
            cur.dst = xml_attr(s, e, "target");
            cur.w = NAN;
            cur.line = line;
            if (!cur.src || !cur.dst)
                XML_FAIL("%s:%zu: GraphML: edge without source and target",
                         path, line);
            in_edge = 1;
        } else if (tag_is(s, "data") && in_edge && !closes) {
            free(dkey);
            dkey = xml_attr(s, e, "key");
            const char *text = e + 1, *end = strstr(text, "</data");
            if (!end)
                XML_FAIL("%s:%zu: GraphML: unterminated data", path, line);
            if (dkey && wkey && strcmp(dkey, wkey) == 0 &&
                parse_double(text, (size_t)(end - text), &cur.w))
                XML_FAIL("%s:%zu: GraphML: weight is not a finite number",
                         path, line);
            e = strchr(end, '>');
            if (!e)
                XML_FAIL("%s:%zu: GraphML: unterminated data", path, line);
        }
        if (in_edge && (strncmp(s, "/edge", 5) == 0 ||
                        (tag_is(s, "edge") && closes))) {
            if (grow((void **)&g.edges, &g.ecap, g.ne, sizeof *g.edges,
                     CM_TOPO_MAX_EDGES))
                XML_FAIL("%s:%zu: GraphML: out of memory or more than %d "
                         "edges", path, line, CM_TOPO_MAX_EDGES);
            g.edges[g.ne++] = cur;
            memset(&cur, 0, sizeof cur);
            in_edge = 0;
        }
        p = e + 1;
    }
    if (in_edge)
        XML_FAIL("%s:%zu: GraphML: unterminated edge", path, line);
    if (g.nn == 0)
        XML_FAIL("%s: GraphML: no nodes found", path);
#undef XML_FAIL
    st = finish(&g, path, v, n);
cleanup:
    free(cur.src);
    free(cur.dst);
    free(wkey);
    free(dkey);
    free(a);
    free(b);
    acc_free(&g);
    free(buf);
    return st;
}
