/* cm_topo_seq_file.c: reading and writing periodic sequences of
 * weighted graphs (format and rules in cm_topo_seq.h).
 *
 * The reader loads the whole file, finds the `# round R` header lines and
 * hands each section to cm_topo_read_stream through fmemopen, with the
 * section's first line number, so every message from the single-graph
 * reader names the right line of the whole file. The spectral rules are
 * one floor up, in src/spectra/cm_topo_seq.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo_seq_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cm_atomic.h"
#include "cm_topo_rec.h"

void cm_topo_seq_init(cm_topo_seq *s)
{
    memset(s, 0, sizeof *s);
}

void cm_topo_seq_destroy(cm_topo_seq *s)
{
    if (!s)
        return;
    for (size_t r = 0; r < s->period && s->round; r++)
        cm_topo_destroy(&s->round[r]);
    free(s->round);
    free(s->line);
    cm_topo_seq_init(s);
}

cm_status cm_topo_seq_alloc(cm_topo_seq *s, size_t period, size_t n)
{
    cm_topo_seq_destroy(s);
    if (period == 0)
        return cm_error(CM_EINVAL, "a sequence needs at least one round "
                        "(period 0)");
    s->round = calloc(period, sizeof *s->round);
    s->line = calloc(period, sizeof *s->line);
    if (!s->round || !s->line) {
        free(s->round);
        free(s->line);
        cm_topo_seq_init(s);
        return cm_error(CM_ENOMEM, "out of memory for %zu rounds", period);
    }
    for (size_t r = 0; r < period; r++)
        cm_topo_init(&s->round[r]);
    s->period = period;
    s->n = n;
    return CM_OK;
}

cm_status cm_topo_seq_from_topo(cm_topo_seq *s, cm_topo *t)
{
    cm_status st = cm_topo_seq_alloc(s, 1, t->n);
    if (st != CM_OK)
        return st;
    s->round[0] = *t;
    cm_topo_init(t);
    return CM_OK;
}

static int size_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

cm_status cm_topo_seq_union(const cm_topo_seq *s, cm_topo *u)
{
    size_t total = 0, m = 0, n = s->n;
    int weighted = 1;
    for (size_t t = 0; t < s->period; t++) {
        total += s->round[t].m;
        weighted = weighted && s->round[t].ew && s->round[t].self;
    }
    /* every round's edge (a, b) as the key a n + b (< n^2, which
     * CM_TOPO_MAX_NODES keeps in a size_t), sorted, deduplicated */
    size_t *key = malloc((total + 1) * sizeof *key);
    size_t *ei = malloc((total + 1) * sizeof *ei);
    size_t *ej = malloc((total + 1) * sizeof *ej);
    cm_status st = CM_OK;
    if (!key || !ei || !ej) {
        st = cm_error(CM_ENOMEM, "out of memory for the union of %zu rounds",
                      s->period);
        goto done;
    }
    for (size_t t = 0, k = 0; t < s->period; t++)
        for (size_t e = 0; e < s->round[t].m; e++)
            key[k++] = s->round[t].ei[e] * n + s->round[t].ej[e];
    qsort(key, total, sizeof *key, size_cmp);
    for (size_t k = 0; k < total; k++)
        if (k == 0 || key[k] != key[k - 1]) {
            ei[m] = key[k] / n;
            ej[m++] = key[k] % n;
        }
    if ((st = cm_topo_from_edges(u, n, m, ei, ej)) != CM_OK || !weighted)
        goto done;
    if ((st = cm_topo_alloc_weights(u)) != CM_OK)
        goto done;
    memset(u->ew, 0, m * sizeof *u->ew);
    memset(u->self, 0, n * sizeof *u->self);
    for (size_t t = 0; t < s->period; t++) {
        const cm_topo *r = &s->round[t];
        for (size_t e = 0; e < r->m; e++)
            u->ew[cm_topo_edge_index(u, r->ei[e], r->ej[e])] += r->ew[e];
        for (size_t i = 0; i < n; i++)
            u->self[i] += r->self[i];
    }
    for (size_t i = 0; i < n; i++)
        for (size_t p = u->off[i]; p < u->off[i + 1]; p++) {
            size_t j = u->adj[p];
            u->adj_w[p] = u->ew[i < j ? cm_topo_edge_index(u, i, j)
                                      : cm_topo_edge_index(u, j, i)];
        }
done:
    if (st != CM_OK)
        cm_topo_destroy(u);
    free(key);
    free(ei);
    free(ej);
    return st;
}

/* ---- reader ---------------------------------------------------------- */

/* Reads all of fp into a NUL-terminated buffer. */
static cm_status slurp(FILE *fp, const char *path, char **buf, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    struct stat sb;
    if (fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode) &&
        (unsigned long long)sb.st_size > CM_TOPO_MAX_BYTES)
        return cm_error(CM_EFORMAT, "%s: %llu bytes, larger than the %d-byte "
                        "(2 GiB) limit of topology files", path,
                        (unsigned long long)sb.st_size, CM_TOPO_MAX_BYTES);
    char *b = malloc(cap);
    if (!b)
        return cm_error(CM_ENOMEM, "%s: out of memory", path);
    for (;;) {
        if (cap - n < 4096) {
            /* at most the limit and 2 bytes: one byte over it proves a
             * pipe too long, without doubling to 4 GiB first */
            size_t c = cap * 2;
            if (c > (size_t)CM_TOPO_MAX_BYTES + 2)
                c = (size_t)CM_TOPO_MAX_BYTES + 2;
            if (c <= cap) {
                free(b);
                return cm_error(CM_EFORMAT, "%s: larger than the %d-byte "
                                "(2 GiB) limit of topology files", path,
                                CM_TOPO_MAX_BYTES);
            }
            char *p = realloc(b, c);
            if (!p) {
                free(b);
                return cm_error(CM_ENOMEM, "%s: out of memory", path);
            }
            b = p;
            cap = c;
        }
        size_t got = fread(b + n, 1, cap - n - 1, fp);
        n += got;
        if (n > CM_TOPO_MAX_BYTES) {
            free(b);
            return cm_error(CM_EFORMAT, "%s: larger than the %d-byte (2 GiB) "
                            "limit of topology files", path,
                            CM_TOPO_MAX_BYTES);
        }
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        free(b);
        return cm_error(CM_EIO, "%s: read error: %s", path, strerror(errno));
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return CM_OK;
}

/* If the line at p (up to end) is `# round R...`, stores R and returns 1;
 * returns -1 for `# round` without a number, 0 for any other line. */
static int round_header(const char *p, const char *end, size_t *r)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || *p++ != '#')
        return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end - p < 5 || strncmp(p, "round", 5) != 0)
        return 0;
    p += 5;
    if (p < end && !isspace((unsigned char)*p))
        return 0; /* e.g. "# rounds_1e-3 ..." is a plain comment */
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || !isdigit((unsigned char)*p))
        return -1;
    size_t v = 0;
    while (p < end && isdigit((unsigned char)*p)) {
        if (v > 100000000)
            return -1;
        v = v * 10 + (size_t)(*p++ - '0');
    }
    if (p < end && !isspace((unsigned char)*p))
        return -1;
    *r = v;
    return 1;
}

/* Finds a token `key=VALUE` (VALUE a decimal integer) in the comment line
 * [p, end). Returns 1 and *v when found, -1 when malformed, 0 if absent. */
static int comment_token(const char *p, const char *end, const char *key,
                         size_t *v)
{
    size_t kl = strlen(key);
    for (const char *q = p; q + kl <= end; q++) {
        if ((q > p && !isspace((unsigned char)q[-1])) ||
            strncmp(q, key, kl) != 0)
            continue;
        q += kl;
        if (q >= end || !isdigit((unsigned char)*q))
            return -1;
        size_t x = 0;
        while (q < end && isdigit((unsigned char)*q)) {
            if (x > 100000000)
                return -1;
            x = x * 10 + (size_t)(*q++ - '0');
        }
        *v = x;
        return 1;
    }
    return 0;
}

/* Reads [buf, buf+len) as one topology whose first line is first_line+1
 * (o: cm_topo_read_ex's options). */
static cm_status read_section(cm_topo *t, const char *buf, size_t len,
                              const char *path, size_t first_line,
                              cm_topo_read_opts *o)
{
    static char newline[] = "\n";
    FILE *fp = len ? fmemopen((void *)buf, len, "r")
                   : fmemopen(newline, 1, "r");
    if (!fp)
        return cm_error(CM_ENOMEM, "%s: cannot open a memory stream", path);
    cm_status st = cm_topo_read_stream(t, fp, path, first_line, o);
    fclose(fp);
    return st;
}

typedef struct {
    size_t off;   /* byte offset of the header line */
    size_t line;  /* its 1-based line number */
    size_t round; /* R of `# round R` */
} section;

/* Splits buf into sections; checks the file header (period=, n=, no data
 * before the first section). *ns = 0 for a single-round file. */
static cm_status find_sections(const char *buf, size_t len, const char *path,
                               section **out, size_t *ns, size_t *period,
                               size_t *period_line, size_t *n_head)
{
    size_t cap = 0, k = 0, line = 0;
    section *sec = NULL;
    *period = 0;
    *period_line = 0;
    *n_head = 0;
    for (size_t off = 0; off < len;) {
        const char *p = buf + off, *nl = memchr(p, '\n', len - off);
        const char *end = nl ? nl : buf + len;
        line++;
        size_t r;
        int h = round_header(p, end, &r);
        if (h < 0) {
            free(sec);
            return cm_error(CM_EFORMAT, "%s:%zu: malformed round header "
                            "(expected `# round R`, R = 0, 1, ...)", path,
                            line);
        }
        if (h > 0) {
            if (k == cap) {
                cap = cap ? 2 * cap : 16;
                section *q = realloc(sec, cap * sizeof *q);
                if (!q) {
                    free(sec);
                    return cm_error(CM_ENOMEM, "%s: out of memory", path);
                }
                sec = q;
            }
            sec[k].off = off;
            sec[k].line = line;
            sec[k].round = r;
            k++;
        } else if (k == 0) { /* the file header */
            const char *q = p;
            while (q < end && isspace((unsigned char)*q))
                q++;
            if (q < end && *q == '#') {
                size_t v;
                int tk = comment_token(q + 1, end, "period=", &v);
                if (tk < 0) {
                    free(sec);
                    return cm_error(CM_EFORMAT, "%s:%zu: bad period=... "
                                    "(a positive integer)", path, line);
                }
                if (tk > 0) {
                    *period = v;
                    *period_line = line;
                }
                if (comment_token(q + 1, end, "n=", &v) > 0)
                    *n_head = v;
            }
        }
        off = (size_t)(end - buf) + (nl ? 1 : 0);
    }
    *out = sec;
    *ns = k;
    return CM_OK;
}

cm_status cm_topo_seq_read(cm_topo_seq *s, const char *path)
{
    return cm_topo_seq_read_ex(s, path, NULL);
}

cm_status cm_topo_seq_read_ex(cm_topo_seq *s, const char *path,
                              cm_topo_read_opts *o)
{
    cm_topo_read_opts dflt = {.format = CM_FORMAT_AUTO,
                              .base = CM_BASE_AUTO};
    if (!o)
        o = &dflt;
    int use_stdin = strcmp(path, "-") == 0;
    FILE *fp = NULL;
    char *buf = NULL;
    section *sec = NULL;
    size_t len = 0, ns = 0, period = 0, pline = 0, n_head = 0;
    cm_topo_seq_destroy(s);
    cm_topo_header_destroy(o->header); /* the old content goes */
    cm_status st = cm_topo_file_check(path);
    if (st != CM_OK)
        return st;
    fp = use_stdin ? stdin : fopen(path, "r");
    if (!fp)
        return cm_error(CM_EIO, "cannot open topology file %s: %s", path,
                        strerror(errno));
    st = slurp(fp, path, &buf, &len);
    if (!use_stdin)
        fclose(fp);
    if (st != CM_OK)
        return st;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        /* a UTF-8 byte-order mark: read as if absent (lines unchanged) */
        memmove(buf, buf + 3, len - 3 + 1);
        len -= 3;
    }
    /* sections exist only in edge lists: not in GraphML ('<'), GML (a
     * letter) or a format forced to something else */
    const char *first = buf;
    while (*first && isspace((unsigned char)*first))
        first++;
    int edgelist = (o->format == CM_FORMAT_AUTO ||
                    o->format == CM_FORMAT_EDGELIST) &&
                   *first != '<' && !isalpha((unsigned char)*first);
    /* topogen (and the Python package) end every edge list with a line
     * end: one whose last line has none was cut off (a copy stopped half
     * way); a cut at a line end is not seen here */
    if (edgelist && len > 0 && buf[len - 1] != '\n' &&
        strncmp(buf, "# topogen ", 10) == 0) {
        size_t line = 1;
        for (size_t k = 0; k < len; k++)
            line += buf[k] == '\n';
        st = cm_error(CM_EFORMAT, "%s:%zu: the file ends inside a line: a "
                      "file topogen wrote ends with a line end, so this one "
                      "is truncated (copy or write it again)", path, line);
        goto cleanup;
    }
    if (edgelist)
        st = find_sections(buf, len, path, &sec, &ns, &period, &pline,
                           &n_head);
    if (st != CM_OK)
        goto cleanup;
    if (pline && period == 0) {
        st = cm_error(CM_EFORMAT, "%s:%zu: period=0: a sequence needs at "
                      "least one round", path, pline);
        goto cleanup;
    }
    if (pline && period != (ns ? ns : 1)) {
        st = cm_error(CM_EFORMAT, "%s:%zu: period=%zu, but the file has %zu "
                      "`# round` section%s", path, pline, period, ns,
                      ns == 1 ? "" : "s");
        goto cleanup;
    }
    if (ns == 0) { /* today's format: one round */
        st = cm_topo_seq_alloc(s, 1, 0);
        if (st == CM_OK)
            st = read_section(&s->round[0], buf, len, path, 0, o);
        if (st == CM_OK)
            s->n = s->round[0].n;
        goto cleanup;
    }
    /* data before the first section would belong to no round; its comment
     * lines are the file's header */
    if (sec[0].off > 0) {
        size_t line = 1;
        for (const char *p = buf; p < buf + sec[0].off; line++) {
            const char *nl = memchr(p, '\n', (size_t)(buf + sec[0].off - p));
            const char *end = nl ? nl : buf + sec[0].off;
            const char *q = p;
            while (q < end && isspace((unsigned char)*q))
                q++;
            if (q < end && *q != '#') {
                st = cm_error(CM_EFORMAT, "%s:%zu: data line before the first "
                              "`# round` header (line %zu)", path, line,
                              sec[0].line);
                goto cleanup;
            }
            if (q < end && o->header) {
                char *text = strndup(q + 1, (size_t)(end - q - 1));
                st = text ? cm_topo_header_line(o->header, text, path, line)
                          : cm_error(CM_ENOMEM, "%s: out of memory", path);
                free(text);
                if (st != CM_OK)
                    goto cleanup;
            }
            p = nl ? nl + 1 : end;
        }
    }
    if ((st = cm_topo_seq_alloc(s, ns, 0)) != CM_OK)
        goto cleanup;
    for (size_t r = 0; r < ns; r++) {
        if (sec[r].round != r) {
            st = cm_error(CM_EFORMAT, "%s:%zu: round %zu where round %zu was "
                          "expected (sections go 0, 1, ..., period-1)", path,
                          sec[r].line, sec[r].round, r);
            goto cleanup;
        }
        size_t end = r + 1 < ns ? sec[r + 1].off : len;
        s->line[r] = sec[r].line;
        cm_topo_read_opts so = {.format = CM_FORMAT_EDGELIST,
                                .base = CM_BASE_0};
        st = read_section(&s->round[r], buf + sec[r].off, end - sec[r].off,
                          path, sec[r].line - 1, &so);
        if (st != CM_OK) {
            cm_error_prefix(st, "round %zu", r);
            goto cleanup;
        }
        const cm_topo *t = &s->round[r];
        if (t->n != s->round[0].n) {
            st = cm_error(CM_EFORMAT, "%s:%zu: round %zu has %zu nodes, but "
                          "round 0 (line %zu) has %zu (every round must have "
                          "the same n)", path, sec[r].line, r, t->n,
                          sec[0].line, s->round[0].n);
            goto cleanup;
        }
        if (n_head && t->n != n_head) {
            st = cm_error(CM_EFORMAT, "%s:%zu: round %zu has %zu nodes, but "
                          "the file header declares n=%zu", path, sec[r].line,
                          r, t->n, n_head);
            goto cleanup;
        }
        if (ns > 1 && !t->self) {
            st = cm_error(CM_EFORMAT, "%s:%zu: round %zu has no weights (every "
                          "round of a sequence needs its W: `i j w` lines)",
                          path, sec[r].line, r);
            goto cleanup;
        }
    }
    s->n = s->round[0].n;
    o->found = CM_FORMAT_EDGELIST;
    o->one_based = 0;
    if (o->header) {
        o->header->weighted = 1;
        st = cm_topo_header_check(o->header, s->n, path);
    }
cleanup:
    free(sec);
    free(buf);
    if (st != CM_OK) {
        cm_topo_seq_destroy(s);
        cm_topo_header_destroy(o->header);
    }
    return st;
}

/* ---- writer ---------------------------------------------------------- */

cm_status cm_topo_seq_save(const cm_topo_seq *s, const char *path,
                           const char *comment)
{
    if (s->period == 1)
        return cm_topo_save(&s->round[0], path, comment);
    int to_stdout = strcmp(path, "-") == 0;
    cm_afile f = {0};
    FILE *fp = stdout;
    if (!to_stdout) {
        cm_status st = cm_atomic_open(&f, path);
        if (st != CM_OK)
            return st;
        fp = f.fp;
    }
    /* the header: the comment, then each round's section */
    cm_status st = CM_OK;
    cm_topo_write_comment(fp, comment);
    for (size_t r = 0; r < s->period && st == CM_OK; r++) {
        fprintf(fp, "# round %zu n=%zu\n", r, s->n);
        st = cm_topo_write(&s->round[r], fp, NULL);
    }
    if (to_stdout) {
        if (st == CM_OK && fflush(stdout) != 0)
            st = cm_error(CM_EIO, "write error on standard output");
        return st;
    }
    if (st != CM_OK || ferror(fp)) {
        cm_atomic_abort(&f);
        return cm_error(CM_EIO, "cannot write %s", path);
    }
    return cm_atomic_commit(&f);
}
