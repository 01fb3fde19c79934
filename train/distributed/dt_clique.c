/* dt_clique.c: the clique graph of a D-Cliques file's `# cliques:` line,
 * as the topology reader kept it (cm_topo_header: parsed and range-checked
 * while the file was read; the file is not opened again). */
#define _POSIX_C_SOURCE 200809L
#include "dt_clique.h"

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

cm_status dt_clique_topo(const cm_topo_header *h, const char *path,
                         const cm_topo *topo, cm_topo *t)
{
    size_t n = topo->n;
    size_t *size = NULL, *ei = NULL, *ej = NULL;
    const size_t *cl = h->cliques;
    cm_status s = CM_OK;
    if (!h->cliques_line) {
        s = cm_error(CM_EINVAL, "--algorithm clique-avg: %s has no "
                     "`# cliques:` line (topogen --kind dcliques writes it, "
                     "topogen repair --remove keeps it, a file grown by "
                     "--add has none)",
                     path);
        goto done;
    }
    if (h->n_cliques != n) /* the reader checked it against the file's n */
        return cm_error(CM_ETOPO, "%s: %zu clique ids for %zu nodes", path,
                        h->n_cliques, n);
    size = calloc(n + 1, sizeof *size);
    if (!size) {
        s = cm_error(CM_ENOMEM, "out of memory for the cliques");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        size[cl[i]]++;
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
                    s = cm_error(CM_EFORMAT, "%s:%zu: the `# cliques:` "
                                 "line puts nodes %zu and %zu in clique %zu, "
                                 "but the file has no edge %zu-%zu "
                                 "(--algorithm clique-avg averages within "
                                 "cliques)", path, h->cliques_line, i, j,
                                 cl[i], i, j);
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
    return s;
}
