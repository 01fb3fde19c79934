/* cm_labels.c: the counts file (per-worker class counts), strict reader
 * and atomic writer. The reader goes line by line with a bounded buffer,
 * counts the first line's K, checks each later line against it, and
 * grows its array geometrically, refusing a size beyond the limits before
 * allocating for it.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_labels.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"

void cm_labels_init(cm_labels *l)
{
    memset(l, 0, sizeof *l);
}

void cm_labels_destroy(cm_labels *l)
{
    if (!l)
        return;
    free(l->count);
    cm_labels_init(l);
}

void cm_labels_set_identity(cm_labels *l, const char *dataset,
                            const char *partition, uint64_t seed,
                            size_t images)
{
    snprintf(l->identity, sizeof l->identity, "dataset=%s partition=%s "
             "seed=%llu workers=%zu images=%zu", dataset, partition,
             (unsigned long long)seed, l->n, images);
}

int cm_labels_identity_get(const char *identity, const char *key, char *buf,
                           size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = identity; p && *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (len > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t vl = len - kl - 1;
            if (vl >= cap)
                vl = cap - 1;
            memcpy(buf, p + kl + 1, vl);
            buf[vl] = '\0';
            return 0;
        }
        p += len;
    }
    return -1;
}

/* Parses the header line "# labels 1 ..." into identity (other comments
 * are ignored). -1 when the identity does not fit. */
static int parse_header(const char *line, char *identity, size_t cap)
{
    static const char pre[] = "# labels 1 ";
    if (strncmp(line, pre, sizeof pre - 1) != 0)
        return 0;
    const char *v = line + sizeof pre - 1;
    size_t len = strcspn(v, "\r\n");
    if (len >= cap)
        return -1;
    memcpy(identity, v, len);
    identity[len] = '\0';
    return 0;
}

cm_status cm_labels_read(cm_labels *l, const char *path)
{
    cm_labels_destroy(l);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return cm_error(CM_EIO, "cannot open %s: %s", path, strerror(errno));
    char *line = malloc(CM_LABELS_MAX_LINE + 2);
    uint64_t *row = malloc(CM_LABELS_MAX_CLASSES * sizeof *row);
    size_t cap = 0, lineno = 0, header_workers = 0;
    int first_comment = 1;
    cm_status s = CM_OK;
    if (!line || !row) {
        s = cm_error(CM_ENOMEM, "out of memory reading %s", path);
        goto done;
    }
    for (;;) {
        /* one line into line[0..len), bounded, NUL bytes refused */
        size_t len = 0;
        int ch = EOF;
        while ((ch = getc(fp)) != EOF && ch != '\n') {
            if (ch == '\0' || len == CM_LABELS_MAX_LINE) {
                s = cm_error(CM_EFORMAT, ch == '\0' ? "%s:%zu: NUL byte"
                             : "%s:%zu: line longer than 65536 bytes", path,
                             lineno + 1);
                goto done;
            }
            line[len++] = (char)ch;
        }
        if (ch == EOF && len == 0)
            break;
        line[len] = '\0';
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#') {
            if (first_comment && p == line && l->n == 0) {
                if (parse_header(line, l->identity, sizeof l->identity)) {
                    s = cm_error(CM_EFORMAT, "%s:%zu: the `# labels 1` "
                                 "header is longer than %zu bytes", path,
                                 lineno, sizeof l->identity - 1);
                    goto done;
                }
                char w[32];
                if (l->identity[0] &&
                    cm_labels_identity_get(l->identity, "workers", w,
                                           sizeof w) == 0) {
                    char *end;
                    errno = 0;
                    unsigned long long v = strtoull(w, &end, 10);
                    if (errno || *end || !isdigit((unsigned char)w[0]) ||
                        v == 0 || v > CM_LABELS_MAX_WORKERS) {
                        s = cm_error(CM_EFORMAT, "%s:%zu: bad workers=%s in "
                                     "the header", path, lineno, w);
                        goto done;
                    }
                    header_workers = (size_t)v;
                }
            }
            first_comment = 0;
            continue;
        }
        first_comment = 0;
        if (*p == '\n' || *p == '\r' || *p == '\0')
            continue; /* blank line */
        size_t k = 0;
        uint64_t sum = 0;
        while (*p && *p != '\n' && *p != '\r') {
            if (!isdigit((unsigned char)*p)) {
                s = cm_error(CM_EFORMAT, "%s:%zu: expected a non-negative "
                             "integer count, got '%.20s'", path, lineno, p);
                goto done;
            }
            errno = 0;
            char *end;
            unsigned long long v = strtoull(p, &end, 10);
            if (errno == ERANGE || v > CM_LABELS_MAX_COUNT) {
                s = cm_error(CM_EFORMAT, "%s:%zu: count too large (at most "
                             "%llu)", path, lineno, CM_LABELS_MAX_COUNT);
                goto done;
            }
            if (*end && *end != ' ' && *end != '\t' && *end != '\n' &&
                *end != '\r') {
                s = cm_error(CM_EFORMAT, "%s:%zu: expected a non-negative "
                             "integer count, got '%.20s'", path, lineno, p);
                goto done;
            }
            if (k == CM_LABELS_MAX_CLASSES) {
                s = cm_error(CM_EFORMAT, "%s:%zu: more than %d classes",
                             path, lineno, CM_LABELS_MAX_CLASSES);
                goto done;
            }
            row[k++] = v;
            sum += v;
            p = end;
            while (*p == ' ' || *p == '\t')
                p++;
        }
        if (*p == '\r' && p[1] != '\n' && p[1] != '\0') {
            s = cm_error(CM_EFORMAT, "%s:%zu: stray carriage return", path,
                         lineno);
            goto done;
        }
        if (l->n == 0)
            l->k = k;
        else if (k != l->k) {
            s = cm_error(CM_EFORMAT, "%s:%zu: %zu counts, but the first "
                         "worker's line has %zu", path, lineno, k, l->k);
            goto done;
        }
        if (sum == 0) {
            s = cm_error(CM_EFORMAT, "%s:%zu: worker %zu has no images",
                         path, lineno, l->n);
            goto done;
        }
        if (l->n == CM_LABELS_MAX_WORKERS ||
            (l->n + 1) * l->k > CM_LABELS_MAX_CELLS) {
            s = cm_error(CM_EFORMAT, "%s:%zu: too many workers (at most %d, "
                         "and workers x classes at most %zu)", path, lineno,
                         CM_LABELS_MAX_WORKERS, CM_LABELS_MAX_CELLS);
            goto done;
        }
        if (l->n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            uint64_t *c = realloc(l->count, nc * l->k * sizeof *c);
            if (!c) {
                s = cm_error(CM_ENOMEM, "out of memory reading %s", path);
                goto done;
            }
            l->count = c;
            cap = nc;
        }
        memcpy(l->count + l->n * l->k, row, l->k * sizeof *row);
        l->n++;
    }
    if (ferror(fp)) {
        s = cm_error(CM_EIO, "%s: read error", path);
        goto done;
    }
    if (l->n == 0) {
        s = cm_error(CM_EFORMAT, "%s: no worker line (expected one line of "
                     "class counts per worker)", path);
        goto done;
    }
    if (header_workers && header_workers != l->n) {
        s = cm_error(CM_EFORMAT, "%s: the header says workers=%zu, the file "
                     "has %zu worker lines", path, header_workers, l->n);
        goto done;
    }
done:
    free(row);
    free(line);
    fclose(fp);
    if (s != CM_OK)
        cm_labels_destroy(l);
    return s;
}

cm_status cm_labels_save(const cm_labels *l, const char *path,
                         const char *comment)
{
    cm_afile f;
    cm_status s = cm_atomic_open(&f, path);
    if (s != CM_OK)
        return s;
    if (l->identity[0])
        fprintf(f.fp, "# labels 1 %s\n", l->identity);
    for (const char *c = comment; c && *c;) {
        size_t len = strcspn(c, "\n");
        fprintf(f.fp, "%s%.*s\n", c[0] == '#' ? "" : "# ", (int)len, c);
        c += len;
        if (*c == '\n')
            c++;
    }
    for (size_t i = 0; i < l->n; i++)
        for (size_t c = 0; c < l->k; c++)
            fprintf(f.fp, "%llu%c",
                    (unsigned long long)l->count[i * l->k + c],
                    c + 1 == l->k ? '\n' : ' ');
    if (ferror(f.fp))
        return cm_atomic_fail(&f);
    return cm_atomic_commit(&f);
}

void cm_labels_proportions(const cm_labels *l, double *pi)
{
    for (size_t i = 0; i < l->n; i++) {
        const uint64_t *c = l->count + i * l->k;
        double sum = 0.0;
        for (size_t j = 0; j < l->k; j++)
            sum += (double)c[j];
        for (size_t j = 0; j < l->k; j++)
            pi[i * l->k + j] = sum > 0.0 ? (double)c[j] / sum : 0.0;
    }
}

size_t cm_labels_classes_of(const cm_labels *l, size_t i)
{
    size_t c = 0;
    for (size_t j = 0; j < l->k; j++)
        c += l->count[i * l->k + j] != 0;
    return c;
}
