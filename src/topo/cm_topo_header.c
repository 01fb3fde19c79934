/* cm_topo_header.c: the comment lines of a topology file into one struct
 * (cm_topo_header.h), fed line by line by the readers, so the header is
 * read in the same pass as the graph and never by a second open.
 *
 * The token rules (n=, directed=, the epidemic keys) stay in the edge-list
 * reader, which needs them to build the graph; this file keeps the lines
 * a program asks about afterwards. Strings are copied (the reader's line
 * buffer is reused); the cliques line is parsed here and checked against n
 * once the graph's n is known.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo_header.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cm_topo_header_init(cm_topo_header *h)
{
    memset(h, 0, sizeof *h);
}

void cm_topo_header_destroy(cm_topo_header *h)
{
    if (!h)
        return;
    free(h->settings);
    free(h->labels);
    free(h->cliques);
    free(h->notes);
    free(h->text);
    cm_topo_header_init(h);
}

/* A copy of text without leading blanks and trailing blanks/line ends. */
static char *trimmed(const char *text)
{
    while (*text == ' ' || *text == '\t')
        text++;
    size_t len = strcspn(text, "\r\n");
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, text, len);
        s[len] = '\0';
    }
    return s;
}

/* Appends line (len bytes) to *dst, '\n'-separated. 0, or -1 out of
 * memory. */
static int append(char **dst, const char *line, size_t len)
{
    size_t old = *dst ? strlen(*dst) : 0;
    char *s = realloc(*dst, old + len + 2);
    if (!s)
        return -1;
    if (old)
        s[old++] = '\n';
    memcpy(s + old, line, len);
    s[old + len] = '\0';
    *dst = s;
    return 0;
}

/* Appends a note line to h->notes. 0, or -1 out of memory. */
static int add_note(cm_topo_header *h, const char *text)
{
    char *t = trimmed(text);
    if (!t)
        return -1;
    int rc = append(&h->notes, t, strlen(t));
    free(t);
    return rc;
}

static cm_status parse_cliques(cm_topo_header *h, const char *p,
                               const char *path, size_t line)
{
    if (h->cliques_line)
        return cm_error(CM_EFORMAT, "%s:%zu: a second `# cliques:` line "
                        "(the first is line %zu)", path, line,
                        h->cliques_line);
    size_t cap = 64, k = 0;
    size_t *c = malloc(cap * sizeof *c);
    if (!c)
        return cm_error(CM_ENOMEM, "%s: out of memory for the cliques", path);
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '\n' || *p == '\r')
            break;
        char *end;
        errno = 0;
        unsigned long long v = isdigit((unsigned char)*p)
                                   ? strtoull(p, &end, 10) : 0;
        if (!isdigit((unsigned char)*p) || errno ||
            (*end && !isspace((unsigned char)*end))) {
            free(c);
            return cm_error(CM_EFORMAT, "%s:%zu: malformed `# cliques:` line "
                            "(expected one clique id, a non-negative "
                            "integer, per node)", path, line);
        }
        if (k == cap) {
            size_t *q = realloc(c, 2 * cap * sizeof *q);
            if (!q) {
                free(c);
                return cm_error(CM_ENOMEM, "%s: out of memory for the "
                                "cliques", path);
            }
            c = q;
            cap *= 2;
        }
        c[k++] = (size_t)v;
        p = end;
    }
    h->cliques = c;
    h->n_cliques = k;
    h->cliques_line = line;
    return CM_OK;
}

/* kind=K among the words of text, into h->kind (the first one wins). */
static void scan_kind(cm_topo_header *h, const char *text)
{
    if (h->kind[0])
        return;
    for (const char *p = strstr(text, "kind="); p; p = strstr(p + 1, "kind="))
        if (p == text || p[-1] == ' ' || p[-1] == '\t') {
            size_t len = strcspn(p + 5, " \t\r\n");
            if (len > 0 && len < sizeof h->kind) {
                memcpy(h->kind, p + 5, len);
                h->kind[len] = '\0';
            }
            return;
        }
}

cm_status cm_topo_header_line(cm_topo_header *h, const char *text,
                              const char *path, size_t line)
{
    static const char settings[] = "settings:", labels[] = "labels:",
                      cliques[] = "cliques:";
    if (h->closed)
        return CM_OK;
    /* the verbatim line: '#' and the text up to the line end */
    size_t len = strcspn(text, "\r\n");
    char *verb = malloc(len + 2);
    if (!verb)
        return cm_error(CM_ENOMEM, "%s: out of memory", path);
    verb[0] = '#';
    memcpy(verb + 1, text, len);
    int rc = append(&h->text, verb, len + 1);
    free(verb);
    if (rc != 0)
        return cm_error(CM_ENOMEM, "%s: out of memory", path);
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    char **slot = NULL;
    const char *rest = NULL;
    if (strncmp(p, cliques, sizeof cliques - 1) == 0)
        return parse_cliques(h, p + sizeof cliques - 1, path, line);
    if (strncmp(p, settings, sizeof settings - 1) == 0) {
        slot = &h->settings;
        rest = p + sizeof settings - 1;
    } else if (strncmp(p, labels, sizeof labels - 1) == 0) {
        slot = &h->labels;
        rest = p + sizeof labels - 1;
    }
    if (slot && !*slot) { /* the first of each; a repeat is a note */
        if (!(*slot = trimmed(rest)))
            return cm_error(CM_ENOMEM, "%s: out of memory", path);
        return CM_OK;
    }
    scan_kind(h, p);
    if (add_note(h, p) != 0)
        return cm_error(CM_ENOMEM, "%s: out of memory", path);
    return CM_OK;
}

cm_status cm_topo_header_check(const cm_topo_header *h, size_t n,
                               const char *path)
{
    if (!h->cliques_line)
        return CM_OK;
    if (h->n_cliques != n)
        return cm_error(CM_EFORMAT, "%s:%zu: the `# cliques:` line has %zu "
                        "ids for %zu nodes", path, h->cliques_line,
                        h->n_cliques, n);
    for (size_t i = 0; i < n; i++)
        if (h->cliques[i] >= n)
            return cm_error(CM_EFORMAT, "%s:%zu: clique id %zu of node %zu "
                            "is not below the node count %zu", path,
                            h->cliques_line, h->cliques[i], i, n);
    return CM_OK;
}

/* ---- the writer --------------------------------------------------------- */

/* A growing string; a failed allocation leaves s NULL. */
typedef struct {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    if (!t->s)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (k < 0) {
        free(t->s);
        t->s = NULL;
        return;
    }
    if ((size_t)k >= t->cap - t->len) {
        size_t cap = 2 * (t->len + (size_t)k + 1);
        char *s = realloc(t->s, cap);
        if (!s) {
            free(t->s);
            t->s = NULL;
            return;
        }
        t->s = s;
        t->cap = cap;
        va_start(ap, fmt);
        vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
    }
    t->len += (size_t)k;
}

/* Note lines [from, to) of notes, each on its own line. */
static void put_notes(text *t, const char *notes, size_t from, size_t to)
{
    size_t k = 0;
    for (const char *p = notes; p && *p && k < to; k++) {
        size_t len = strcspn(p, "\n");
        if (k >= from)
            put(t, "\n%s%.*s", *p == '#' ? "" : "# ", (int)len, p);
        p += len + (p[len] == '\n');
    }
}

char *cm_topo_header_format(const cm_topo_header *h)
{
    text t = {malloc(256), 0, 256};
    if (t.s)
        t.s[0] = '\0';
    if (h->generator) {
        put(&t, "# %s n=%zu d=%zu kind=%s", h->generator, h->n, h->d,
            h->kind);
        if (h->directed)
            put(&t, " directed=1");
        if (h->epidemic)
            put(&t, " s=%zu local=%d epidemic=%s", h->epi_s, h->epi_local,
                h->epi_local ? "local" : "oracle");
    } else {
        put(&t, "# directed=1 n=%zu", h->n);
        if (h->epidemic)
            put(&t, " kind=epidemic s=%zu local=%d", h->epi_s, h->epi_local);
    }
    if (h->tokens && *h->tokens)
        put(&t, " %s", h->tokens);
    if (h->settings)
        put(&t, "\n# settings: %s", h->settings);
    put_notes(&t, h->notes, 0, h->labels_at);
    if (h->labels)
        put(&t, "\n# labels: %s", h->labels);
    if (h->cliques) {
        put(&t, "\n# cliques:");
        for (size_t i = 0; i < h->n_cliques; i++)
            put(&t, " %zu", h->cliques[i]);
    }
    put_notes(&t, h->notes, h->labels_at, (size_t)-1);
    if (!t.s)
        cm_error(CM_ENOMEM, "out of memory for a file header");
    return t.s;
}
