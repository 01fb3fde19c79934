/* cm_topo_read.c: the topology reader: format detection, the edge-list
 * parser, and the entry point that hands every format's records to
 * cm_topo_from_recs.
 *
 * Detection looks at the first non-blank bytes: '<' is GraphML, a GML key
 * ("graph", "Creator", "Version") followed by '[' or a value is GML,
 * anything else an edge list (ours, networkx's or igraph's ncol: `i j` or
 * `i j w`, `#` comments); a UTF-8 byte-order mark before any of them is
 * skipped. An edge-list line holding a carriage return that does not end
 * it (CR-only line endings) is refused by name. Limits (CM_TOPO_MAX_NODES, CM_TOPO_MAX_EDGES)
 * are checked while reading, before the allocations they would imply.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cm_topo_rec.h"
#include "cm_topo_doc.h"

static const struct {
    const char *name;
    cm_topo_format f;
} FORMATS[] = {
    {"auto", CM_FORMAT_AUTO},       {"edgelist", CM_FORMAT_EDGELIST},
    {"ncol", CM_FORMAT_NCOL},       {"graphml", CM_FORMAT_GRAPHML},
    {"gml", CM_FORMAT_GML},
};
#define N_FORMATS (sizeof FORMATS / sizeof FORMATS[0])

cm_status cm_topo_format_parse(const char *s, int allow_auto, const char *flag,
                               cm_topo_format *f)
{
    for (size_t k = allow_auto ? 0 : 1; k < N_FORMATS; k++)
        if (strcmp(s, FORMATS[k].name) == 0) {
            *f = FORMATS[k].f;
            return CM_OK;
        }
    return cm_error(CM_EINVAL, "%s: unknown format '%s' (expected %sedgelist, "
                    "ncol, graphml or gml)", flag, s, allow_auto ? "auto, " : "");
}

const char *cm_topo_format_name(cm_topo_format f)
{
    for (size_t k = 0; k < N_FORMATS; k++)
        if (FORMATS[k].f == f)
            return FORMATS[k].name;
    return "?";
}

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
        *why = "node id too large (ids run from 0 to 999999)";
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

/* Header tokens of a directed or epidemic file (cm_topo.h). */
typedef struct {
    int directed;   /* directed=1 seen */
    int epidemic;   /* kind=epidemic seen */
    size_t s;       /* s=S (epidemic) */
    size_t d;       /* d=S: topogen's spelling of s */
    int local;      /* local=0|1 (epidemic) */
    size_t line;    /* line of the first such token */
    int s_set, d_set, local_set; /* seen (a repeat must agree) */
    size_t bad_line;     /* first bad or contradicting epidemic key: */
    const char *bad_why; /* refused when the file is kind=epidemic */
} dir_header;

/* Records the first problem with an epidemic key (refused at the end of
 * the header when kind=epidemic, ignored in other files' comments). */
static void epi_bad(dir_header *h, size_t lineno, const char *why)
{
    if (!h->bad_line) {
        h->bad_line = lineno;
        h->bad_why = why;
    }
}

/* key=value of an epidemic count or flag: a repeat must agree. */
static void epi_set(dir_header *h, size_t *slot, int *set, size_t x,
                    size_t lineno, const char *twice)
{
    if (*set && *slot != x)
        epi_bad(h, lineno, twice);
    *slot = x;
    *set = 1;
}

/* Parses a decimal token value; -1 when not an integer up to max. */
static int parse_tok_num(const char *v, size_t max, size_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*v))
        return -1;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || x > max)
        return -1;
    *out = (size_t)x;
    return 0;
}

/* Scans a comment for the token n=N and the directed tokens (directed=,
 * kind=epidemic, s=, local=). Returns -1 on a bad value, -2 on a
 * contradicting n=, -3 on a bad directed token. */
static int scan_comment(char *s, size_t *n_decl, int *has_n, dir_header *h,
                        size_t lineno)
{
    for (char *tok = strtok(s, " \t"); tok; tok = strtok(NULL, " \t")) {
        size_t x = 0;
        if (strncmp(tok, "directed=", 9) == 0) {
            if (parse_tok_num(tok + 9, 1, &x))
                return -3;
            h->directed = (int)x;
            h->line = h->line ? h->line : lineno;
            continue;
        }
        if (strcmp(tok, "kind=epidemic") == 0) {
            h->epidemic = 1;
            h->line = h->line ? h->line : lineno;
            continue;
        }
        if (strncmp(tok, "s=", 2) == 0) {
            if (parse_tok_num(tok + 2, CM_TOPO_MAX_NODES, &x) == 0)
                epi_set(h, &h->s, &h->s_set, x, lineno, "s= given twice "
                        "with different values");
            else
                epi_bad(h, lineno, "bad s=... (the peers each node sends "
                        "to per round: a positive integer)");
            continue;
        }
        if (strncmp(tok, "local=", 6) == 0 ||
            strcmp(tok, "epidemic=local") == 0 ||
            strcmp(tok, "epidemic=oracle") == 0) { /* topogen's local= */
            if (tok[0] == 'e')
                x = tok[9] == 'l';
            else if (parse_tok_num(tok + 6, 1, &x) != 0) {
                epi_bad(h, lineno, "bad local=... (must be 0, EL-Oracle, "
                        "or 1, EL-Local)");
                continue;
            }
            size_t cur = (size_t)h->local;
            epi_set(h, &cur, &h->local_set, x, lineno, "local= (or "
                    "epidemic=) given twice with different values");
            h->local = (int)cur;
            continue;
        }
        if (strncmp(tok, "d=", 2) == 0) {
            if (parse_tok_num(tok + 2, CM_TOPO_MAX_NODES, &x) == 0)
                epi_set(h, &h->d, &h->d_set, x, lineno, "d= given twice "
                        "with different values");
            continue;
        }
        if (strncmp(tok, "n=", 2) != 0)
            continue;
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)tok[2]))
            return -1;
        unsigned long long v = strtoull(tok + 2, &end, 10);
        if (errno || *end || v > CM_TOPO_MAX_NODES)
            return -1;
        if (*has_n && *n_decl != v)
            return -2;
        *n_decl = v;
        *has_n = 1;
    }
    return 0;
}

/* Parses all lines of fp into records. */
static cm_status read_edgelist(FILE *fp, const char *path, size_t line0,
                               cm_topo_recvec *v,
                              size_t *n_decl, int *has_n, size_t *n_decl_line,
                              dir_header *h, cm_topo_header *hd)
{
    char *line = NULL;
    size_t cap = 0, lineno = line0;
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
        if (memchr(line, '\r', (size_t)len)) {
            st = cm_error(CM_EFORMAT, "%s:%zu: carriage return inside a line: "
                          "CR-only line endings (old Mac style) are not read; "
                          "convert them to newlines (tr '\\r' '\\n')", path,
                          lineno);
            goto cleanup;
        }
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            continue;
        if (*p == '#') {
            int had = *has_n;
            if (hd && (st = cm_topo_header_line(hd, p + 1, path, lineno)) !=
                          CM_OK)
                goto cleanup;
            int rc = scan_comment(p + 1, n_decl, has_n, h, lineno);
            if (rc == -3) {
                st = cm_error(CM_EFORMAT, "%s:%zu: bad directed=... (must be "
                              "0 or 1)", path, lineno);
                goto cleanup;
            }
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
        if (hd) /* the header ends at the first edge line */
            hd->closed = 1;
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
        cm_topo_rec r = {0, 0, NAN, lineno};
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
        r.a = i; /* oriented as written; undirected files are */
        r.b = j; /* normalized before cm_topo_from_recs */
        if (cm_topo_recvec_push(v, r)) {
            st = cm_error(CM_EFORMAT, "%s:%zu: out of memory or more than "
                          "%d edges", path, lineno, CM_TOPO_MAX_EDGES);
            goto cleanup;
        }
    }
    if (ferror(fp))
        st = cm_error(CM_EIO, "%s: read error: %s", path, strerror(errno));
cleanup:
    free(line);
    return st;
}

/* Guesses the format from the first non-blank byte (pushed back): '<'
 * GraphML, a letter GML (an edge list starts with a digit or '#'), else
 * an edge list. *skipped counts the newlines passed over. */
static cm_topo_format detect(FILE *fp, size_t *skipped)
{
    int c;
    *skipped = 0;
    if ((c = getc(fp)) == 0xEF) { /* a UTF-8 byte-order mark: skip it */
        int c2 = getc(fp), c3 = c2 == 0xBB ? getc(fp) : EOF;
        if (c2 != 0xBB || c3 != 0xBF)
            return CM_FORMAT_AUTO; /* not a BOM: the caller names it */
        c = getc(fp);
    }
    while (c != EOF && isspace(c)) {
        *skipped += c == '\n';
        c = getc(fp);
    }
    if (c == EOF)
        return CM_FORMAT_EDGELIST;
    ungetc(c, fp);
    if (c == '<')
        return CM_FORMAT_GRAPHML;
    if (isalpha(c))
        return CM_FORMAT_GML;
    return CM_FORMAT_EDGELIST;
}

cm_status cm_topo_file_check(const char *path)
{
    struct stat sb;
    if (strcmp(path, "-") == 0)
        return CM_OK;
    if (stat(path, &sb) != 0)
        return cm_error(CM_EIO, "cannot open topology file %s: %s", path,
                        strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return cm_error(CM_EIO, "cannot read topology file %s: it is a "
                        "directory", path);
    if (S_ISREG(sb.st_mode) &&
        (unsigned long long)sb.st_size > CM_TOPO_MAX_BYTES)
        return cm_error(CM_EFORMAT, "%s: %llu bytes, larger than the %d-byte "
                        "(2 GiB) limit of topology files", path,
                        (unsigned long long)sb.st_size, CM_TOPO_MAX_BYTES);
    return CM_OK;
}

cm_status cm_topo_read(cm_topo *t, const char *path)
{
    return cm_topo_read_ex(t, path, NULL);
}

cm_status cm_topo_read_ex(cm_topo *t, const char *path, cm_topo_read_opts *o)
{
    int use_stdin = strcmp(path, "-") == 0;
    cm_topo_destroy(t);
    cm_status st = cm_topo_file_check(path);
    if (st != CM_OK)
        return st;
    FILE *fp = use_stdin ? stdin : fopen(path, "r");
    if (!fp)
        return cm_error(CM_EIO, "cannot open topology file %s: %s", path,
                        strerror(errno));
    st = cm_topo_read_stream(t, fp, path, 0, o);
    if (!use_stdin)
        fclose(fp);
    return st;
}

cm_status cm_topo_read_stream(cm_topo *t, FILE *fp, const char *path,
                              size_t first_line, cm_topo_read_opts *o)
{
    cm_topo_read_opts dflt = {.format = CM_FORMAT_AUTO,
                              .base = CM_BASE_AUTO};
    if (!o)
        o = &dflt;
    cm_status st = CM_OK;
    cm_topo_recvec v = {NULL, 0, 0};
    size_t n_decl = 0, n_line = 0;
    int has_n = 0;
    cm_topo_destroy(t);
    size_t skipped = 0;
    cm_topo_format f = o->format;
    if (f == CM_FORMAT_AUTO || f == CM_FORMAT_GRAPHML || f == CM_FORMAT_GML) {
        /* a named GraphML/GML file too: past a byte-order mark and blank
         * lines, as auto reads it (libxml2 wants its declaration first) */
        cm_topo_format d = detect(fp, &skipped);
        if (f == CM_FORMAT_AUTO || d == CM_FORMAT_AUTO)
            f = d;
    }
    skipped += first_line;
    cm_topo_base base = o->base;
    dir_header h = {0};
    cm_topo_header_destroy(o->header); /* the old content goes */
    if (f == CM_FORMAT_AUTO)
        return cm_error(CM_EFORMAT, "%s:%zu: unexpected non-ASCII byte 0xef "
                        "that does not start a UTF-8 byte-order mark; not a "
                        "topology text file", path, first_line + 1);
    switch (f) {
    case CM_FORMAT_GRAPHML:
        st = cm_topo_read_graphml(fp, path, skipped, &v, &n_decl);
        has_n = 1;
        base = CM_BASE_0;
        break;
    case CM_FORMAT_GML:
        st = cm_topo_read_gml(fp, path, skipped, &v, &n_decl);
        has_n = 1;
        base = CM_BASE_0;
        break;
    default:
        st = read_edgelist(fp, path, skipped, &v, &n_decl, &has_n, &n_line,
                           &h, o->header);
        break;
    }
    if (st == CM_OK && h.epidemic && h.bad_line)
        st = cm_error(CM_EFORMAT, "%s:%zu: %s", path, h.bad_line, h.bad_why);
    if (h.epidemic && h.s == 0)
        h.s = h.d; /* topogen writes d=S */
    if (st == CM_OK && h.epidemic && h.s == 0)
        st = cm_error(CM_EFORMAT, "%s:%zu: kind=epidemic needs s=S (or d=S: "
                      "the number of peers each node sends to per round)",
                      path, h.line);
    if (st == CM_OK && !ferror(fp)) {
        int shifted = 0;
        size_t self_lines = 0;
        if (h.directed || h.epidemic) {
            st = cm_topo_from_arc_recs(t, path, &v, n_decl, has_n, n_line,
                                       base, &shifted, &self_lines,
                                       h.epidemic ? h.s : 0, h.local);
        } else {
            for (size_t k = 0; k < v.len; k++)
                if (v.r[k].a > v.r[k].b) {
                    size_t x = v.r[k].a;
                    v.r[k].a = v.r[k].b;
                    v.r[k].b = x;
                }
            st = cm_topo_from_recs(t, path, &v, n_decl, has_n, n_line, base,
                                   &shifted, &self_lines);
        }
        o->found = f;
        o->one_based = shifted;
        o->self_lines = self_lines;
        if (st == CM_OK && o->header) {
            o->header->directed = h.directed || h.epidemic;
            o->header->epidemic = h.epidemic;
            o->header->epi_s = h.epidemic ? h.s : 0;
            o->header->epi_local = h.epidemic ? h.local : 0;
            o->header->weighted = t->ew != NULL;
            st = cm_topo_header_check(o->header, t->n, path);
        }
    } else if (st == CM_OK) {
        st = cm_error(CM_EIO, "%s: read error: %s", path, strerror(errno));
    }
    free(v.r);
    if (st != CM_OK) {
        cm_topo_destroy(t);
        cm_topo_header_destroy(o->header);
    }
    return st;
}
