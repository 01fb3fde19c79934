/* cm_topo_gml.c: a strict GML reader (see cm_topo_doc.h).
 *
 * GML (Himsolt's Graph Modelling Language) is a list of `key value`
 * pairs; a value is an integer, a real, a "string" or a bracketed list.
 * The reader tokenizes the whole document and walks it once with an
 * explicit depth counter (no recursion, so nesting cannot overflow the
 * stack): every `[` needs its `]`, every key its value, every string its
 * closing quote, and nothing but blanks and `#` comments may follow the
 * top-level list, so a truncated document or a stray `]` is refused with
 * its line. Of the content only `graph [ directed D node [ id I label L ]
 * edge [ source S target T weight W ] ]` is read; other keys (Creator,
 * Version, graphics, ...) are checked for syntax and skipped.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo_doc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_topo.h"

/* Deepest list nesting accepted (igraph and networkx write 3). */
#define GML_MAX_DEPTH 64

typedef enum { T_END, T_KEY, T_SCALAR, T_STRING, T_OPEN, T_CLOSE } tok_kind;

typedef struct {
    const char *p;   /* cursor */
    size_t line;     /* line of the cursor */
    tok_kind kind;   /* the current token */
    const char *tok; /* its text (strings without the quotes) */
    size_t len;
    size_t tline;    /* its line */
    const char *path;
} lex;

/* Next token; CM_EFORMAT for an unterminated string or a stray byte. */
static cm_status next(lex *x)
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
    x->tline = x->line;
    unsigned char c = (unsigned char)*x->p;
    if (!c) {
        x->kind = T_END;
        x->len = 0;
        return CM_OK;
    }
    if (c == '[' || c == ']') {
        x->kind = c == '[' ? T_OPEN : T_CLOSE;
        x->p++;
    } else if (c == '"') {
        x->p++;
        x->tok = x->p;
        while (*x->p && *x->p != '"')
            x->line += *x->p++ == '\n';
        if (!*x->p)
            return cm_error(CM_EFORMAT, "%s:%zu: GML: unterminated string "
                            "(the document is truncated?)", x->path,
                            x->tline);
        x->len = (size_t)(x->p - x->tok);
        x->p++;
        x->kind = T_STRING;
        return CM_OK;
    } else if (isalpha(c) || c == '_') {
        while (isalnum((unsigned char)*x->p) || *x->p == '_')
            x->p++;
        x->kind = T_KEY;
    } else if (isdigit(c) || c == '-' || c == '+' || c == '.') {
        while (isalnum((unsigned char)*x->p) || *x->p == '-' ||
               *x->p == '+' || *x->p == '.')
            x->p++;
        x->kind = T_SCALAR;
    } else {
        return cm_error(CM_EFORMAT, "%s:%zu: GML: unexpected byte 0x%02x",
                        x->path, x->tline, c);
    }
    x->len = (size_t)(x->p - x->tok);
    if (x->kind == T_KEY && !isspace((unsigned char)*x->p) && *x->p &&
        *x->p != '[' && *x->p != ']' && *x->p != '"' && *x->p != '#')
        return cm_error(CM_EFORMAT, "%s:%zu: GML: malformed key '%.*s'",
                        x->path, x->tline, (int)(x->len + 1), x->tok);
    return CM_OK;
}

static int is(const lex *x, const char *s)
{
    return x->kind == T_KEY && x->len == strlen(s) &&
           strncmp(x->tok, s, x->len) == 0;
}

/* A scalar value: a GML integer, or a key-like word (networkx writes
 * NAN, INF). */
static int scalar_value(const lex *x)
{
    return x->kind == T_SCALAR || x->kind == T_KEY;
}

/* The integer of a scalar or string token: 0 and *v; -1 when not an
 * integer. */
static int int_tok(const lex *x, long long *v)
{
    char tmp[32];
    if (x->len == 0 || x->len >= sizeof tmp ||
        (x->kind != T_SCALAR && x->kind != T_STRING))
        return -1;
    memcpy(tmp, x->tok, x->len);
    tmp[x->len] = '\0';
    const char *s = tmp;
    if (*s == '-' || *s == '+')
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p))
            return -1;
    errno = 0;
    *v = strtoll(tmp, NULL, 10);
    if (errno)
        *v = tmp[0] == '-' ? -1 : CM_TOPO_MAX_NODES;
    return 0;
}

static int real_tok(const lex *x, double *w)
{
    char tmp[64];
    if (x->kind != T_SCALAR || x->len == 0 || x->len >= sizeof tmp)
        return -1;
    memcpy(tmp, x->tok, x->len);
    tmp[x->len] = '\0';
    char *end;
    *w = strtod(tmp, &end);
    return *end || !isfinite(*w) ? -1 : 0;
}

/* Skips the value at the current token (a scalar, a string or a list),
 * leaving the cursor on its last token. */
static cm_status skip_value(lex *x, size_t key_line)
{
    if (x->kind == T_END)
        return cm_error(CM_EFORMAT, "%s:%zu: GML: key without a value "
                        "(the document is truncated?)", x->path, key_line);
    if (x->kind == T_CLOSE)
        return cm_error(CM_EFORMAT, "%s:%zu: GML: key without a value",
                        x->path, key_line);
    if (x->kind != T_OPEN)
        return CM_OK;
    size_t depth = 1, open_line = x->tline;
    cm_status st;
    while (depth > 0) {
        /* inside a list: key value pairs */
        if ((st = next(x)) != CM_OK)
            return st;
        if (x->kind == T_CLOSE) {
            depth--;
            continue;
        }
        if (x->kind == T_END)
            return cm_error(CM_EFORMAT, "%s:%zu: GML: list opened on line "
                            "%zu is never closed (the document is "
                            "truncated?)", x->path, x->tline, open_line);
        if (x->kind != T_KEY)
            return cm_error(CM_EFORMAT, "%s:%zu: GML: expected a key",
                            x->path, x->tline);
        size_t kl = x->tline;
        if ((st = next(x)) != CM_OK)
            return st;
        if (x->kind == T_OPEN) {
            if (++depth > GML_MAX_DEPTH)
                return cm_error(CM_EFORMAT, "%s:%zu: GML: lists nested deeper "
                                "than %d", x->path, x->tline, GML_MAX_DEPTH);
        } else if (x->kind == T_END || x->kind == T_CLOSE) {
            return cm_error(CM_EFORMAT, "%s:%zu: GML: key without a value%s",
                            x->path, kl, x->kind == T_END
                                             ? " (the document is truncated?)"
                                             : "");
        }
    }
    return CM_OK;
}

typedef struct {
    long long id, label, src, dst;
    int has_id, has_label, has_src, has_dst;
    double w;
} item;

/* Reads the list of a node or an edge (cursor on its '['). */
static cm_status read_item(lex *x, int is_node, item *it)
{
    cm_status st;
    size_t open_line = x->tline;
    memset(it, 0, sizeof *it);
    it->w = NAN;
    for (;;) {
        if ((st = next(x)) != CM_OK)
            return st;
        if (x->kind == T_CLOSE)
            return CM_OK;
        if (x->kind == T_END)
            return cm_error(CM_EFORMAT, "%s:%zu: GML: unterminated %s opened "
                            "on line %zu (the document is truncated?)",
                            x->path, x->tline, is_node ? "node" : "edge",
                            open_line);
        if (x->kind != T_KEY)
            return cm_error(CM_EFORMAT, "%s:%zu: GML: expected a key",
                            x->path, x->tline);
        lex key = *x;
        if ((st = next(x)) != CM_OK)
            return st;
        if (x->kind == T_CLOSE || x->kind == T_END)
            return skip_value(x, key.tline); /* the message */
        long long v;
        if (is_node && is(&key, "id")) {
            if (int_tok(x, &v))
                return cm_error(CM_EFORMAT, "%s:%zu: GML: node without an "
                                "integer id", x->path, key.tline);
            it->id = v;
            it->has_id = 1;
        } else if (is_node && is(&key, "label")) {
            if (int_tok(x, &v) == 0) { /* a name, unless an integer */
                it->label = v;
                it->has_label = 1;
            }
        } else if (!is_node && (is(&key, "source") || is(&key, "target"))) {
            if (int_tok(x, &v))
                return cm_error(CM_EFORMAT, "%s:%zu: GML: edge %.*s is not an "
                                "integer", x->path, key.tline, (int)key.len,
                                key.tok);
            if (key.tok[0] == 's') {
                it->src = v;
                it->has_src = 1;
            } else {
                it->dst = v;
                it->has_dst = 1;
            }
        } else if (!is_node && is(&key, "weight")) {
            if (real_tok(x, &it->w))
                return cm_error(CM_EFORMAT, "%s:%zu: GML: weight is not a "
                                "finite number", x->path, x->tline);
        }
        if ((st = skip_value(x, key.tline)) != CM_OK)
            return st;
    }
}

/* An integer id in 0..CM_TOPO_MAX_NODES-1 (what), or the limit's message. */
static cm_status check_id(const lex *x, size_t line, const char *what,
                          long long v)
{
    if (v < 0)
        return cm_error(CM_EFORMAT, "%s:%zu: GML: negative %s %lld", x->path,
                        line, what, v);
    if (v >= CM_TOPO_MAX_NODES)
        return cm_error(CM_EFORMAT, "%s:%zu: GML: %s %lld is beyond the limit "
                        "(ids run from 0 to %d)", x->path, line, what, v,
                        CM_TOPO_MAX_NODES - 1);
    return CM_OK;
}

/* The graph list (cursor on its '['). */
static cm_status read_graph(lex *x, cm_topo_doc_acc *g)
{
    cm_status st;
    size_t open_line = x->tline;
    int directed = 0;
    char ka[24], kb[24];
    for (;;) {
        if ((st = next(x)) != CM_OK)
            return st;
        if (x->kind == T_CLOSE)
            return CM_OK;
        if (x->kind == T_END)
            return cm_error(CM_EFORMAT, "%s:%zu: GML: unterminated graph "
                            "opened on line %zu (missing ']'; the document "
                            "is truncated?)", x->path, x->tline, open_line);
        if (x->kind != T_KEY)
            return cm_error(CM_EFORMAT, "%s:%zu: GML: expected a key",
                            x->path, x->tline);
        lex key = *x;
        if ((st = next(x)) != CM_OK)
            return st;
        int node = is(&key, "node"), edge = is(&key, "edge");
        if ((node || edge) && x->kind == T_OPEN) {
            item it;
            if ((st = read_item(x, node, &it)) != CM_OK)
                return st;
            if (node) {
                if (!it.has_id)
                    return cm_error(CM_EFORMAT, "%s:%zu: GML: node without "
                                    "an integer id", x->path, key.tline);
                if ((st = check_id(x, key.tline, "node id", it.id)) != CM_OK ||
                    (it.has_label && (st = check_id(x, key.tline, "label",
                                                    it.label)) != CM_OK))
                    return st;
                snprintf(ka, sizeof ka, "%lld", it.id);
                st = cm_topo_doc_add_node(g, x->path, key.tline, ka,
                                          it.has_label ? it.label : it.id);
            } else {
                if (!it.has_src || !it.has_dst)
                    return cm_error(CM_EFORMAT, "%s:%zu: GML: edge without "
                                    "integer source and target", x->path,
                                    key.tline);
                if ((st = check_id(x, key.tline, "source", it.src)) != CM_OK ||
                    (st = check_id(x, key.tline, "target", it.dst)) != CM_OK)
                    return st;
                snprintf(ka, sizeof ka, "%lld", it.src);
                snprintf(kb, sizeof kb, "%lld", it.dst);
                st = cm_topo_doc_add_edge(g, x->path, key.tline, ka, kb, it.w,
                                          directed);
            }
            if (st != CM_OK)
                return st;
            continue;
        }
        if (is(&key, "directed")) {
            long long d;
            if (int_tok(x, &d) || (d != 0 && d != 1))
                return cm_error(CM_EFORMAT, "%s:%zu: GML: directed must be 0 "
                                "or 1", x->path, key.tline);
            if (g->ne > 0 && (int)d != directed)
                return cm_error(CM_EFORMAT, "%s:%zu: GML: `directed` after "
                                "the first edge", x->path, key.tline);
            directed = (int)d;
        }
        if (!scalar_value(x) && x->kind != T_STRING && x->kind != T_OPEN)
            return cm_error(CM_EFORMAT, "%s:%zu: GML: key without a value%s",
                            x->path, key.tline, x->kind == T_END
                                ? " (the document is truncated?)" : "");
        if ((st = skip_value(x, key.tline)) != CM_OK)
            return st;
    }
}

cm_status cm_topo_read_gml(FILE *fp, const char *path, size_t line0,
                           cm_topo_recvec *v, size_t *n)
{
    char *buf = NULL;
    size_t len = 0;
    cm_topo_doc_acc g = {0};
    cm_status st = cm_topo_doc_slurp(fp, path, &buf, &len);
    if (st != CM_OK)
        return st;
    lex x = {buf, line0 + 1, T_END, NULL, 0, 0, path};
    int graphs = 0;
    /* the top level: key value pairs up to the end of the file */
    for (;;) {
        if ((st = next(&x)) != CM_OK)
            goto cleanup;
        if (x.kind == T_END)
            break;
        if (x.kind == T_CLOSE) {
            st = cm_error(CM_EFORMAT, "%s:%zu: GML: ']' without a matching "
                          "'['", path, x.tline);
            goto cleanup;
        }
        if (x.kind != T_KEY) {
            st = cm_error(CM_EFORMAT, "%s:%zu: GML: expected a key", path,
                          x.tline);
            goto cleanup;
        }
        lex key = x;
        if ((st = next(&x)) != CM_OK)
            goto cleanup;
        if (is(&key, "graph") && x.kind == T_OPEN) {
            if (++graphs > 1) {
                st = cm_error(CM_EFORMAT, "%s:%zu: GML: a second graph (a "
                              "topology file holds one graph)", path,
                              key.tline);
                goto cleanup;
            }
            if ((st = read_graph(&x, &g)) != CM_OK)
                goto cleanup;
            continue;
        }
        if ((st = skip_value(&x, key.tline)) != CM_OK)
            goto cleanup;
    }
    if (g.nn == 0) {
        st = cm_error(CM_EFORMAT, "%s: no `graph [ node [ id ... ] ... ]` "
                      "found (read as GML because it starts with a letter; "
                      "edge lists need integer node ids)", path);
        goto cleanup;
    }
    st = cm_topo_doc_finish(&g, path, v, n);
cleanup:
    cm_topo_doc_acc_free(&g);
    free(buf);
    return st;
}
