/* cm_topo_graphml.c: the GraphML reader (see cm_topo_doc.h), on libxml2's
 * streaming reader (xmlTextReader), so memory stays O(N + m) beyond the
 * document's own bytes.
 *
 * Two passes over the bytes: the first checks the whole document (any XML
 * error, a truncated file or an unterminated comment is refused with the
 * parser's line) and collects the <key> declarations, wherever they are;
 * the second reads <node> and <edge> elements of the one <graph>. The
 * parser gets XML_PARSE_NONET and no entity or DTD options, and a
 * DOCTYPE is refused outright (GraphML needs none), so nothing is fetched
 * or expanded; libxml2's default limits (no XML_PARSE_HUGE) bound names,
 * text nodes and depth. Character references and CDATA sections are
 * decoded by the parser; attribute values and <data> text are text,
 * never markup.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo_doc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlreader.h>

#include "cm_topo.h"

#define GRAPHML_NS "http://graphml.graphdrawing.org/xmlns"

typedef struct {
    const char *path;
    size_t line0;
    int failed;      /* an XML error was seen */
    size_t line;     /* its line */
    char msg[256];   /* its message, one line */
} xml_err;

static void on_error(void *ctx, xmlErrorPtr e)
{
    xml_err *x = ctx;
    if (x->failed || !e || e->level < XML_ERR_ERROR)
        return;
    x->failed = 1;
    x->line = e->line > 0 ? (size_t)e->line : 0;
    snprintf(x->msg, sizeof x->msg, "%s", e->message ? e->message : "error");
    size_t k = strlen(x->msg);
    while (k && isspace((unsigned char)x->msg[k - 1]))
        x->msg[--k] = '\0';
}

typedef struct {
    xmlTextReaderPtr r;
    xml_err err;
} reader;

static cm_status open_reader(reader *rd, const char *buf, size_t len,
                             const char *path, size_t line0)
{
    memset(rd, 0, sizeof *rd);
    rd->err.path = path;
    rd->err.line0 = line0;
    if (len > INT_MAX)
        return cm_error(CM_EFORMAT, "%s: larger than the %zu-byte (2 GiB) "
                        "limit of topology files", path,
                        (size_t)CM_TOPO_MAX_BYTES);
    xmlInitParser();
    rd->r = xmlReaderForMemory(buf, (int)len, NULL, NULL,
                               XML_PARSE_NONET | XML_PARSE_NOERROR |
                                   XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
    if (!rd->r)
        return cm_error(CM_ENOMEM, "%s: cannot start the XML parser", path);
    xmlTextReaderSetStructuredErrorHandler(rd->r, on_error, &rd->err);
    return CM_OK;
}

/* Line of the reader's current node in the whole file. */
static size_t node_line(const reader *rd)
{
    xmlNodePtr nd = xmlTextReaderCurrentNode(rd->r);
    long l = nd ? xmlGetLineNo(nd) : -1;
    return rd->err.line0 + (l > 0 ? (size_t)l : 1);
}

/* Advances; 1 at a node, 0 at the end, -1 after an error (message set). */
static int next(reader *rd, cm_status *st)
{
    int rc = xmlTextReaderRead(rd->r);
    if (rc < 0 || rd->err.failed) {
        if (rd->err.failed)
            *st = cm_error(CM_EFORMAT, "%s:%zu: GraphML: XML error: %s "
                           "(the document must be complete and well formed)",
                           rd->err.path, rd->err.line0 + (rd->err.line
                                                               ? rd->err.line
                                                               : 1),
                           rd->err.msg);
        else
            *st = cm_error(CM_EFORMAT, "%s: GraphML: XML error (the document "
                           "must be complete and well formed)", rd->err.path);
        return -1;
    }
    return rc;
}

/* Element of the GraphML namespace (or of none) named name? */
static int is_elem(const reader *rd, const char *name)
{
    if (xmlTextReaderNodeType(rd->r) != XML_READER_TYPE_ELEMENT)
        return 0;
    const xmlChar *ln = xmlTextReaderConstLocalName(rd->r);
    const xmlChar *ns = xmlTextReaderConstNamespaceUri(rd->r);
    return ln && strcmp((const char *)ln, name) == 0 &&
           (!ns || strcmp((const char *)ns, GRAPHML_NS) == 0);
}

/* Attribute value (decoded; the caller frees with free), or NULL. */
static char *attr(const reader *rd, const char *name)
{
    xmlChar *v = xmlTextReaderGetAttribute(rd->r, (const xmlChar *)name);
    if (!v)
        return NULL;
    char *s = strdup((const char *)v);
    xmlFree(v);
    return s;
}

/* The text of the current element (text and CDATA, decoded), or NULL. */
static char *text(const reader *rd)
{
    xmlChar *v = xmlTextReaderReadString(rd->r);
    char *s = strdup(v ? (const char *)v : "");
    xmlFree(v);
    return s;
}

static int parse_weight(const char *s, double *w)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    *w = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    return *end || !isfinite(*w) ? -1 : 0;
}

typedef struct {
    char *id;        /* the weight key's id, or NULL */
    double dflt;     /* its <default>, or NAN */
    size_t line;     /* its line */
} weight_key;

/* Pass 1: the whole document well formed, root <graphml>, no DOCTYPE; the
 * weight key and its default. */
static cm_status scan_keys(const char *buf, size_t len, const char *path,
                           size_t line0, weight_key *wk)
{
    reader rd;
    cm_status st = open_reader(&rd, buf, len, path, line0);
    if (st != CM_OK)
        return st;
    int rc, in_key = 0, root = 0;
    char *id = NULL, *name = NULL, *dom = NULL;
    while ((rc = next(&rd, &st)) == 1) {
        int type = xmlTextReaderNodeType(rd.r);
        int depth = xmlTextReaderDepth(rd.r);
        if (type == XML_READER_TYPE_DOCUMENT_TYPE) {
            st = cm_error(CM_EFORMAT, "%s:%zu: GraphML: a DOCTYPE is not "
                          "accepted (GraphML needs none; entities are not "
                          "expanded)", path, node_line(&rd));
            goto done;
        }
        if (type != XML_READER_TYPE_ELEMENT)
            continue;
        if (depth == 0) {
            if (!is_elem(&rd, "graphml")) {
                st = cm_error(CM_EFORMAT, "%s:%zu: GraphML: the root element "
                              "is not <graphml>", path, node_line(&rd));
                goto done;
            }
            root = 1;
        } else if (depth == 1 && is_elem(&rd, "key")) {
            free(id);
            free(name);
            free(dom);
            id = attr(&rd, "id");
            name = attr(&rd, "attr.name");
            dom = attr(&rd, "for");
            in_key = name && strcmp(name, "weight") == 0 &&
                     (!dom || strcmp(dom, "edge") == 0 ||
                      strcmp(dom, "all") == 0);
            if (in_key) {
                if (!id) {
                    st = cm_error(CM_EFORMAT, "%s:%zu: GraphML: weight key "
                                  "without an id", path, node_line(&rd));
                    goto done;
                }
                if (wk->id) {
                    st = cm_error(CM_EFORMAT, "%s:%zu: GraphML: a second edge "
                                  "key named 'weight' (the first on line "
                                  "%zu)", path, node_line(&rd), wk->line);
                    goto done;
                }
                wk->id = id;
                wk->line = node_line(&rd);
                id = NULL;
            }
        } else if (depth == 2 && in_key && is_elem(&rd, "default")) {
            char *t = text(&rd);
            if (!t) {
                st = cm_error(CM_ENOMEM, "%s: out of memory", path);
                goto done;
            }
            int bad = parse_weight(t, &wk->dflt);
            free(t);
            if (bad) {
                st = cm_error(CM_EFORMAT, "%s:%zu: GraphML: the weight key's "
                              "<default> is not a finite number", path,
                              node_line(&rd));
                goto done;
            }
        } else if (depth == 1) {
            in_key = 0;
        }
    }
    if (rc == 0 && !root)
        st = cm_error(CM_EFORMAT, "%s: GraphML: no <graphml> element", path);
done:
    free(id);
    free(name);
    free(dom);
    xmlFreeTextReader(rd.r);
    return st;
}

/* Pass 2: nodes and edges of the one graph. */
static cm_status scan_graph(const char *buf, size_t len, const char *path,
                            size_t line0, const weight_key *wk,
                            cm_topo_doc_acc *g)
{
    reader rd;
    cm_status st = open_reader(&rd, buf, len, path, line0);
    if (st != CM_OK)
        return st;
    int rc, graphs = 0, dir_default = 0, in_edge = 0, has_w = 0;
    char *src = NULL, *dst = NULL, *v = NULL;
    double w = NAN;
    size_t eline = 0;
    int edir = 0;
#define G_FAIL(...) do { st = cm_error(CM_EFORMAT, __VA_ARGS__); \
                         goto done; } while (0)
    while ((rc = next(&rd, &st)) == 1) {
        int type = xmlTextReaderNodeType(rd.r);
        int depth = xmlTextReaderDepth(rd.r);
        if (type == XML_READER_TYPE_END_ELEMENT && depth == 2 && in_edge) {
            if ((st = cm_topo_doc_add_edge(g, path, eline, src, dst,
                                           has_w ? w : wk->dflt, edir)) !=
                CM_OK)
                goto done;
            in_edge = 0;
            continue;
        }
        if (type != XML_READER_TYPE_ELEMENT)
            continue;
        if (depth == 1 && is_elem(&rd, "graph")) {
            if (++graphs > 1)
                G_FAIL("%s:%zu: GraphML: a second <graph> (a topology file "
                       "holds one graph)", path, node_line(&rd));
            free(v);
            v = attr(&rd, "edgedefault");
            if (v && strcmp(v, "directed") == 0)
                dir_default = 1;
            else if (v && strcmp(v, "undirected") != 0)
                G_FAIL("%s:%zu: GraphML: edgedefault=\"%s\" (expected "
                       "\"directed\" or \"undirected\")", path,
                       node_line(&rd), v);
        } else if (depth >= 2 && is_elem(&rd, "graph")) {
            G_FAIL("%s:%zu: GraphML: nested graphs are not read", path,
                   node_line(&rd));
        } else if (depth == 2 && is_elem(&rd, "hyperedge")) {
            G_FAIL("%s:%zu: GraphML: hyperedges are not read", path,
                   node_line(&rd));
        } else if (depth == 2 && graphs == 1 && is_elem(&rd, "node")) {
            free(v);
            if (!(v = attr(&rd, "id")))
                G_FAIL("%s:%zu: GraphML: node without an id", path,
                       node_line(&rd));
            long long lab = cm_topo_doc_int_key(v);
            if (lab == -2)
                G_FAIL("%s:%zu: GraphML: node id '%s' is beyond the limit "
                       "(ids run from 0 to %d)", path, node_line(&rd), v,
                       CM_TOPO_MAX_NODES - 1);
            if ((st = cm_topo_doc_add_node(g, path, node_line(&rd), v,
                                           lab)) != CM_OK)
                goto done;
        } else if (depth == 2 && graphs == 1 && is_elem(&rd, "edge")) {
            free(src);
            free(dst);
            src = attr(&rd, "source");
            dst = attr(&rd, "target");
            eline = node_line(&rd);
            if (!src || !dst)
                G_FAIL("%s:%zu: GraphML: edge without source and target",
                       path, eline);
            free(v);
            v = attr(&rd, "directed");
            edir = dir_default;
            if (v && strcmp(v, "true") == 0)
                edir = 1;
            else if (v && strcmp(v, "false") == 0)
                edir = 0;
            else if (v)
                G_FAIL("%s:%zu: GraphML: directed=\"%s\" (expected \"true\" "
                       "or \"false\")", path, eline, v);
            has_w = 0;
            w = NAN;
            if (xmlTextReaderIsEmptyElement(rd.r)) {
                if ((st = cm_topo_doc_add_edge(g, path, eline, src, dst,
                                               wk->dflt, edir)) != CM_OK)
                    goto done;
            } else {
                in_edge = 1;
            }
        } else if (depth == 3 && in_edge && wk->id && is_elem(&rd, "data")) {
            free(v);
            v = attr(&rd, "key");
            if (!v || strcmp(v, wk->id) != 0)
                continue;
            if (has_w)
                G_FAIL("%s:%zu: GraphML: two weights on one edge", path,
                       node_line(&rd));
            free(v);
            if (!(v = text(&rd))) {
                st = cm_error(CM_ENOMEM, "%s: out of memory", path);
                goto done;
            }
            if (parse_weight(v, &w))
                G_FAIL("%s:%zu: GraphML: weight is not a finite number "
                       "('%.40s')", path, node_line(&rd), v);
            has_w = 1;
        }
    }
    if (rc == 0 && graphs == 0)
        G_FAIL("%s: GraphML: no <graph> element", path);
#undef G_FAIL
done:
    free(src);
    free(dst);
    free(v);
    xmlFreeTextReader(rd.r);
    return st;
}

cm_status cm_topo_read_graphml(FILE *fp, const char *path, size_t line0,
                               cm_topo_recvec *v, size_t *n)
{
    char *buf = NULL;
    size_t len = 0;
    cm_topo_doc_acc g = {0};
    weight_key wk = {NULL, NAN, 0};
    cm_status st = cm_topo_doc_slurp(fp, path, &buf, &len);
    if (st != CM_OK)
        return st;
    if ((st = scan_keys(buf, len, path, line0, &wk)) == CM_OK &&
        (st = scan_graph(buf, len, path, line0, &wk, &g)) == CM_OK) {
        if (g.nn == 0)
            st = cm_error(CM_EFORMAT, "%s: GraphML: no nodes found", path);
        else
            st = cm_topo_doc_finish(&g, path, v, n);
    }
    cm_topo_doc_acc_free(&g);
    free(wk.id);
    free(buf);
    return st;
}
