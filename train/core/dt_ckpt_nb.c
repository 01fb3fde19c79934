/* dt_ckpt_nb.c: DIR/neighbours of a checkpoint (see dt_ckpt.h), the
 * topology the workers had before a loss, for --drop-workers.
 */
#include "dt_ckpt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_atomic.h"

#define NB_PATH 4200

static cm_status nb_write(const char *dir, size_t n, const size_t *off,
                          const size_t *nb, uint64_t topo_hash, int replace);

cm_status dt_ckpt_neighbours_write(const char *dir, size_t n,
                                   const size_t *off, const size_t *nb,
                                   uint64_t topo_hash)
{
    return nb_write(dir, n, off, nb, topo_hash, 0);
}

cm_status dt_ckpt_neighbours_replace(const char *dir, size_t n,
                                     const size_t *off, const size_t *nb,
                                     uint64_t topo_hash)
{
    return nb_write(dir, n, off, nb, topo_hash, 1);
}

static cm_status nb_write(const char *dir, size_t n, const size_t *off,
                          const size_t *nb, uint64_t topo_hash, int replace)
{
    char path[NB_PATH];
    snprintf(path, sizeof path, "%s/neighbours", dir);
    if (!replace && access(path, F_OK) == 0)
        return CM_OK; /* the run's first topology stays */
    cm_afile f;
    cm_status s = cm_atomic_open(&f, path);
    if (s != CM_OK)
        return s;
    int ok = fprintf(f.fp, "# dpsgd-train neighbours n=%zu topology="
                     "edges-and-weights-hash:%016llx\n# one line per worker: "
                     "i: its neighbours, ascending\n", n,
                     (unsigned long long)topo_hash) > 0;
    for (size_t i = 0; ok && i < n; i++) {
        ok = fprintf(f.fp, "%zu:", i) > 0;
        for (size_t p = off[i]; ok && p < off[i + 1]; p++)
            ok = fprintf(f.fp, " %zu", nb[p]) > 0;
        ok = ok && fputc('\n', f.fp) != EOF;
    }
    if (!ok)
        return cm_atomic_fail(&f);
    return cm_atomic_commit(&f);
}

/* Reads one line of any length into *buf (*cap grows). 0 at EOF. */
static int get_line(FILE *fp, char **buf, size_t *cap)
{
    size_t len = 0;
    int c;
    while ((c = fgetc(fp)) != EOF) {
        if (len + 2 > *cap) {
            size_t nc = 2 * *cap + 256;
            char *nb = realloc(*buf, nc);
            if (!nb)
                return -1;
            *buf = nb;
            *cap = nc;
        }
        if (c == '\n')
            break;
        (*buf)[len++] = (char)c;
    }
    if (c == EOF && len == 0)
        return 0;
    (*buf)[len] = '\0';
    return 1;
}

cm_status dt_ckpt_neighbours_read(const char *dir, size_t *n_io,
                                  uint64_t *topo_hash, size_t **off_out,
                                  size_t **nb_out)
{
    size_t n = *n_io;
    char path[NB_PATH];
    snprintf(path, sizeof path, "%s/neighbours", dir);
    *off_out = *nb_out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return cm_error(CM_EIO, "cannot open %s: %s", path,
                        strerror(errno));
    cm_status s = CM_OK;
    char *line = NULL;
    size_t cap = 0, lno = 0, *off = NULL, *nb = NULL;
    size_t ncap = 0, m = 0;
    unsigned long long fn = 0, h = 0;
    int r = get_line(fp, &line, &cap);
    lno++;
    if (r < 0) {
        s = cm_error(CM_ENOMEM, "out of memory reading %s", path);
        goto done;
    }
    if (r == 0 || sscanf(line, "# dpsgd-train neighbours n=%llu topology="
                         "edges-and-weights-hash:%llx", &fn, &h) != 2 ||
        fn < 1 || fn > 100000000ULL) {
        s = cm_error(CM_EFORMAT, "%s:1: not a neighbours file of dpsgd-train",
                     path);
        goto done;
    }
    if (n == 0)
        n = (size_t)fn;
    if (!(off = calloc(n + 1, sizeof *off))) {
        s = cm_error(CM_ENOMEM, "out of memory reading %s", path);
        goto done;
    }
    if (fn != n) {
        s = cm_error(CM_EFORMAT, "%s:1: %llu workers, but the checkpoint's "
                     "run has %zu", path, fn, n);
        goto done;
    }
    size_t i = 0;
    while ((r = get_line(fp, &line, &cap)) > 0) {
        lno++;
        if (line[0] == '#')
            continue;
        char *p = line, *end;
        unsigned long long id = strtoull(p, &end, 10);
        if (end == p || *end != ':' || id != i || i >= n) {
            s = cm_error(CM_EFORMAT, "%s:%zu: expected '%zu: ...'", path, lno,
                         i);
            goto done;
        }
        p = end + 1;
        for (;;) {
            while (*p == ' ')
                p++;
            if (!*p)
                break;
            unsigned long long j = strtoull(p, &end, 10);
            if (end == p || j >= n || j == i ||
                (m > off[i] && j <= nb[m - 1])) {
                s = cm_error(CM_EFORMAT, "%s:%zu: bad neighbour list of "
                             "worker %zu (ids below %zu, ascending, not "
                             "itself)", path, lno, i, n);
                goto done;
            }
            if (m == ncap) {
                size_t nc = 2 * ncap + 64, *x = realloc(nb, nc * sizeof *x);
                if (!x) {
                    s = cm_error(CM_ENOMEM, "out of memory reading %s", path);
                    goto done;
                }
                nb = x;
                ncap = nc;
            }
            nb[m++] = (size_t)j;
            p = end;
        }
        off[++i] = m;
    }
    if (r < 0 || i != n) {
        s = r < 0 ? cm_error(CM_ENOMEM, "out of memory reading %s", path)
                  : cm_error(CM_EFORMAT, "%s: %zu worker lines, expected %zu",
                             path, i, n);
        goto done;
    }
    for (size_t u = 0; u < n && s == CM_OK; u++) /* symmetric */
        for (size_t p = off[u]; p < off[u + 1]; p++) {
            size_t v = nb[p], lo = off[v], hi = off[v + 1];
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (nb[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == off[v + 1] || nb[lo] != u) {
                s = cm_error(CM_EFORMAT, "%s: %zu lists %zu as a neighbour "
                             "but not the reverse", path, u, v);
                break;
            }
        }
    if (s == CM_OK) {
        *topo_hash = (uint64_t)h;
        *n_io = n;
        *off_out = off;
        *nb_out = nb ? nb : malloc(1);
        off = NULL;
        nb = NULL;
        if (!*nb_out) {
            free(*off_out);
            *off_out = NULL;
            s = cm_error(CM_ENOMEM, "out of memory");
        }
    }
done:
    fclose(fp);
    free(line);
    free(off);
    free(nb);
    return s;
}
