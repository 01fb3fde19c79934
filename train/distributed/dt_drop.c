/* dt_drop.c: the lost workers and the neighbours they had (see dt_drop.h).
 * Rank 0 alone reads the checkpoint directory; the plan is broadcast as
 * sizes, then arrays, so every rank hands the shards over alike.
 */
#include "dt_drop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_idlist.h"
#include "dt_ckpt.h"

void dt_drop_plan_init(dt_drop_plan *p) { memset(p, 0, sizeof *p); }

void dt_drop_plan_destroy(dt_drop_plan *p)
{
    if (!p)
        return;
    free(p->lost);
    free(p->off);
    free(p->nb);
    dt_drop_plan_init(p);
}

int dt_drop_recorded(const char *path, char **list, size_t *n0)
{
    static const char key[] = " without nodes ";
    *list = NULL;
    *n0 = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, fp)) > 0 && line[0] == '#') {
        if (strncmp(line, "# repaired: ", 12) != 0)
            continue;
        char *w = NULL; /* the last " without nodes " (FILE may hold one) */
        for (char *q = strstr(line, key); q; q = strstr(q + 1, key))
            w = q;
        char *of = w ? strstr(w, " (of ") : NULL;
        if (!of)
            break;
        *n0 = (size_t)strtoull(of + 5, NULL, 10);
        *of = '\0';
        *list = strdup(w + strlen(key));
        break;
    }
    free(line);
    fclose(fp);
    return *list != NULL;
}

/* Whether ascending a[0..ka) and b[0..kb) are the same ids. */
static int same_ids(const size_t *a, size_t ka, const size_t *b, size_t kb)
{
    return ka == kb && (!ka || memcmp(a, b, ka * sizeof *a) == 0);
}

/* Rank 0: a --topology that `topogen repair` wrote records which nodes it
 * removed, from how many: they must be the lost workers of this run. */
static cm_status check_recorded(const dt_config *cfg, const dt_drop_plan *p)
{
    char *rec;
    size_t rn0, *ids = NULL, k = 0;
    if (!dt_drop_recorded(cfg->topology, &rec, &rn0))
        return CM_OK;
    cm_status s = cm_idlist_parse(rec, 0, "--remove", &ids, &k);
    if (s != CM_OK)
        s = cm_error(CM_EFORMAT, "--topology: %s: its '# repaired:' line "
                     "names no valid list of removed nodes ('%s')",
                     cfg->topology, rec);
    else if (rn0 != p->n0 || !same_ids(ids, k, p->lost, p->k))
        s = cm_error(CM_EINVAL, "--drop-workers %s: --topology %s was "
                     "repaired without nodes %s of %zu (its header), but "
                     "the run in %s loses %s of %zu: give --drop-workers %s "
                     "with it, or the topology repaired without %s "
                     "(topogen repair FILE --remove %s -o NEW)",
                     cfg->drop_workers, cfg->topology, rec, rn0,
                     cfg->ckpt_dir, p->list, p->n0, rec, p->list, p->list);
    free(ids);
    free(rec);
    return s;
}

/* Rank 0: the plan from DIR/neighbours. */
static cm_status load_root(const dt_config *cfg, size_t n, dt_drop_plan *p)
{
    const char *L = cfg->drop_workers, *dir = cfg->ckpt_dir;
    uint64_t h = 0;
    size_t n0 = 0;
    cm_status s = cm_idlist_parse(L, 0, "--drop-workers", &p->lost, &p->k);
    if (s != CM_OK)
        return s;
    if (strlen(cm_idlist_format(p->lost, p->k, p->list, sizeof p->list)) +
            1 >= sizeof p->list)
        return cm_error(CM_EINVAL, "--drop-workers: the list of %zu ids is "
                        "longer than %zu characters in its shortest form "
                        "(ranges a-b): not supported", p->k,
                        sizeof p->list - 2);
    s = dt_ckpt_neighbours_read(dir, &n0, &h, &p->off, &p->nb);
    if (s != CM_OK) {
        char msg[1024];
        uint64_t e;
        snprintf(msg, sizeof msg, "%s", cm_last_error());
        if (s == CM_EIO && dt_ckpt_latest(dir, &e) != CM_OK)
            return cm_error(CM_EINVAL, "--drop-workers: %s holds no "
                            "checkpoint to continue without those workers",
                            dir);
        return s == CM_EIO ? cm_error(CM_EINVAL, "--drop-workers: %s holds "
                                      "no neighbours file: the checkpoint "
                                      "does not say who the lost workers' "
                                      "neighbours were (an epidemic "
                                      "topology has none; an older version "
                                      "wrote none)", dir)
                           : cm_error_prefix(s, "--drop-workers");
    }
    p->n0 = n0;
    if (p->lost[p->k - 1] >= n0)
        return cm_error(CM_EINVAL, "--drop-workers %s: worker %zu is not "
                        "among the %zu workers of the run in %s (ids 0..%zu)",
                        L, p->lost[p->k - 1], n0, dir, n0 - 1);
    if (p->k >= n0)
        return cm_error(CM_EINVAL, "--drop-workers %s: removes all %zu "
                        "workers of the run in %s", L, n0, dir);
    if (n0 - p->k != n)
        return cm_error(CM_EINVAL, "--drop-workers %s: the run in %s had %zu "
                        "workers, %zu survive, but --topology %s has %zu: "
                        "give the topology of the survivors (topogen repair "
                        "FILE --remove %s -o NEW)", L, dir, n0, n0 - p->k,
                        cfg->topology, n, p->list);
    return check_recorded(cfg, p);
}

cm_status dt_drop_load(const dt_comm *comm, const dt_config *cfg, size_t n,
                       dt_drop_plan *p)
{
    cm_status s = CM_OK;
    uint64_t sz[3] = {0, 0, 0}; /* k, n0, edges */
    if (dt_comm_rank(comm) == 0) {
        s = load_root(cfg, n, p);
        if (s == CM_OK) {
            sz[0] = p->k;
            sz[1] = p->n0;
            sz[2] = p->off[p->n0];
        }
    }
    if ((s = dt_comm_agree(comm, s)) != CM_OK ||
        (s = dt_comm_bcast(comm, sz, sizeof sz, 0)) != CM_OK ||
        (s = dt_comm_bcast(comm, p->list, sizeof p->list, 0)) != CM_OK)
        return s;
    if (dt_comm_rank(comm) != 0) {
        p->k = (size_t)sz[0];
        p->n0 = (size_t)sz[1];
        p->lost = malloc((p->k + 1) * sizeof *p->lost);
        p->off = malloc((p->n0 + 1) * sizeof *p->off);
        p->nb = malloc(((size_t)sz[2] + 1) * sizeof *p->nb);
        if (!p->lost || !p->off || !p->nb)
            s = cm_error(CM_ENOMEM, "out of memory for --drop-workers");
    }
    if ((s = dt_comm_agree(comm, s)) != CM_OK ||
        (s = dt_comm_bcast(comm, p->lost, p->k * sizeof *p->lost, 0)) !=
            CM_OK ||
        (s = dt_comm_bcast(comm, p->off, (p->n0 + 1) * sizeof *p->off, 0)) !=
            CM_OK ||
        (s = dt_comm_bcast(comm, p->nb, (size_t)sz[2] * sizeof *p->nb, 0)) !=
            CM_OK)
        return s;
    return CM_OK;
}

static int cmp_pair(const void *a, const void *b)
{
    const size_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1)
                        : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

cm_status dt_drop_union(const cm_topo_seq *seq, cm_topo *u)
{
    size_t total = 0, n = seq->n;
    for (size_t t = 0; t < seq->period; t++)
        total += seq->round[t].m;
    size_t *e = malloc((2 * total + 2) * sizeof *e);
    if (!e)
        return cm_error(CM_ENOMEM, "out of memory for the neighbour lists");
    size_t m = 0;
    for (size_t t = 0; t < seq->period; t++) {
        const cm_topo *r = &seq->round[t];
        for (size_t q = 0; q < r->m; q++) {
            size_t a = r->ei[q], b = r->ej[q];
            e[2 * m] = a < b ? a : b;
            e[2 * m + 1] = a < b ? b : a;
            m += a != b;
        }
    }
    qsort(e, m, 2 * sizeof *e, cmp_pair);
    size_t k = 0;
    for (size_t q = 0; q < m; q++)
        if (!k || e[2 * q] != e[2 * (k - 1)] ||
            e[2 * q + 1] != e[2 * (k - 1) + 1]) {
            e[2 * k] = e[2 * q];
            e[2 * k + 1] = e[2 * q + 1];
            k++;
        }
    size_t *ei = malloc((k + 1) * sizeof *ei), *ej = malloc((k + 1) *
                                                            sizeof *ej);
    cm_status s = CM_OK;
    if (!ei || !ej)
        s = cm_error(CM_ENOMEM, "out of memory for the neighbour lists");
    for (size_t q = 0; s == CM_OK && q < k; q++) {
        ei[q] = e[2 * q];
        ej[q] = e[2 * q + 1];
    }
    if (s == CM_OK)
        s = cm_topo_from_edges(u, n, k, ei, ej);
    free(e);
    free(ei);
    free(ej);
    return s;
}
