/* dt_clique.c: the clique graph of a D-Cliques file's `# cliques:` line. */
#define _POSIX_C_SOURCE 200809L
#include "dt_clique.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when i ~ j in topo (binary search in i's sorted CSR row). */
static int joined(const cm_topo *t, size_t i, size_t j)
{
    size_t lo = t->off[i], hi = t->off[i + 1];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->adj[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->off[i + 1] && t->adj[lo] == j;
}

cm_status dt_clique_topo(const char *path, const cm_topo *topo, cm_topo *t)
{
    static const char pre[] = "# cliques:";
    size_t n = topo->n;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return cm_error(CM_EIO, "cannot open %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    size_t *cl = NULL, *size = NULL, *ei = NULL, *ej = NULL;
    cm_status s = CM_OK;
    int found = 0;
    while ((len = getline(&line, &cap, fp)) >= 0 && line[0] == '#')
        if (strncmp(line, pre, sizeof pre - 1) == 0) {
            found = 1;
            break;
        }
    if (!found) {
        s = cm_error(CM_EINVAL, "--algorithm clique-avg: %s has no "
                     "`# cliques:` line (topogen --kind dcliques writes it)",
                     path);
        goto done;
    }
    cl = malloc((n + 1) * sizeof *cl);
    size = calloc(n + 1, sizeof *size);
    if (!cl || !size) {
        s = cm_error(CM_ENOMEM, "out of memory for the cliques");
        goto done;
    }
    size_t k = 0;
    for (char *p = line + sizeof pre - 1;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\r' || *p == '\0')
            break;
        char *end;
        errno = 0;
        unsigned long long v = isdigit((unsigned char)*p)
                                   ? strtoull(p, &end, 10) : n;
        if (!isdigit((unsigned char)*p) || errno || v >= n || k == n) {
            s = cm_error(CM_EINVAL, "--algorithm clique-avg: %s: the "
                         "`# cliques:` line needs %zu clique ids below %zu",
                         path, n, n);
            goto done;
        }
        cl[k++] = (size_t)v;
        size[v]++;
        p = end;
    }
    if (k != n) {
        s = cm_error(CM_EINVAL, "--algorithm clique-avg: %s: the `# cliques:` "
                     "line has %zu ids for %zu nodes", path, k, n);
        goto done;
    }
    size_t m = 0;
    for (size_t c = 0; c < n; c++)
        m += size[c] * (size[c] ? size[c] - 1 : 0) / 2;
    ei = malloc((m + 1) * sizeof *ei);
    ej = malloc((m + 1) * sizeof *ej);
    if (!ei || !ej) {
        s = cm_error(CM_ENOMEM, "out of memory for the cliques");
        goto done;
    }
    size_t e = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (cl[i] == cl[j]) {
                if (!joined(topo, i, j)) {
                    s = cm_error(CM_EINVAL, "--algorithm clique-avg: %s: "
                                 "nodes %zu and %zu share clique %zu but "
                                 "are not joined", path, i, j, cl[i]);
                    goto done;
                }
                ei[e] = i;
                ej[e++] = j;
            }
    if ((s = cm_topo_from_edges(t, n, m, ei, ej)) != CM_OK)
        goto done;
    t->ew = malloc((m + 1) * sizeof *t->ew);
    t->self = malloc(n * sizeof *t->self);
    t->adj_w = malloc((2 * m + 1) * sizeof *t->adj_w);
    if (!t->ew || !t->self || !t->adj_w) {
        cm_topo_destroy(t);
        s = cm_error(CM_ENOMEM, "out of memory for the cliques");
        goto done;
    }
    for (size_t q = 0; q < m; q++)
        t->ew[q] = 1.0 / (double)size[cl[t->ei[q]]];
    for (size_t i = 0; i < n; i++) {
        double w = 1.0 / (double)size[cl[i]];
        for (size_t q = t->off[i]; q < t->off[i + 1]; q++)
            t->adj_w[q] = w;
        t->self[i] = w;
    }
done:
    free(ej);
    free(ei);
    free(size);
    free(cl);
    free(line);
    fclose(fp);
    return s;
}

cm_status dt_complete_topo(size_t n, cm_topo *t)
{
    size_t m = n * (n - 1) / 2;
    size_t *ei = malloc((m + 1) * sizeof *ei), *ej = malloc((m + 1) *
                                                            sizeof *ej);
    cm_status s = ei && ej ? CM_OK
                           : cm_error(CM_ENOMEM, "out of memory for the "
                                      "exact average of %zu workers", n);
    size_t e = 0;
    for (size_t i = 0; s == CM_OK && i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            ei[e] = i;
            ej[e++] = j;
        }
    if (s == CM_OK)
        s = cm_topo_from_edges(t, n, m, ei, ej);
    free(ei);
    free(ej);
    if (s != CM_OK)
        return s;
    t->ew = malloc((m + 1) * sizeof *t->ew);
    t->self = malloc(n * sizeof *t->self);
    t->adj_w = malloc((2 * m + 1) * sizeof *t->adj_w);
    if (!t->ew || !t->self || !t->adj_w) {
        cm_topo_destroy(t);
        return cm_error(CM_ENOMEM, "out of memory for the exact average of "
                        "%zu workers", n);
    }
    const double w = 1.0 / (double)n;
    for (size_t q = 0; q < m; q++)
        t->ew[q] = w;
    for (size_t q = 0; q < 2 * m; q++)
        t->adj_w[q] = w;
    for (size_t i = 0; i < n; i++)
        t->self[i] = w;
    return CM_OK;
}
