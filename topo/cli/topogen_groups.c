/* topogen_groups.c: the cut report of `topogen eval --groups G` (see
 * topogen_groups.h): edges between groups in total, per group and as a
 * fraction of all edges, the figure `--placement block` turns into bytes
 * between ranks or hosts when the G groups are its G ranks or hosts. */
#include "topogen_groups.h"

#include <stdio.h>
#include <stdlib.h>

#include "tg_groups.h"

cm_status topogen_cut_eval(const cm_topo *t, size_t G, const char *file,
                           topogen_cut *c)
{
    c->per = NULL;
    cm_status st = tg_groups_check_n(t->n, G, "--groups");
    if (st != CM_OK)
        return cm_error_prefix(st, "%s", file);
    c->per = malloc(G * sizeof *c->per);
    if (!c->per)
        return cm_error(CM_ENOMEM, "out of memory for %zu groups", G);
    c->groups = G;
    c->size = t->n / G;
    c->edges = t->m;
    tg_groups_cut(t->n, t->m, t->ei, t->ej, G, c->per, &c->cross);
    return CM_OK;
}

void topogen_cut_destroy(topogen_cut *c)
{
    if (!c)
        return;
    free(c->per);
    c->per = NULL;
}

void topogen_cut_json(const topogen_cut *c, json_t *o, int *bad)
{
    double frac = c->edges ? (double)c->cross / (double)c->edges : 0.0;
    topogen_json_int(o, "groups", c->groups, bad);
    topogen_json_int(o, "cross_edges", c->cross, bad);
    topogen_json_num(o, "cross_fraction", frac, bad);
    topogen_json_ints(o, "cross_per_group", c->per, c->groups, bad);
}

void topogen_cut_print(const topogen_cut *c, int json)
{
    double frac = c->edges ? (double)c->cross / (double)c->edges : 0.0;
    (void)json;
    printf("groups        %zu of %zu nodes (ids in blocks: group of i = "
           "i*G/n)\n", c->groups, c->size);
    printf("cross_edges   %zu of %zu (%.1f%% of all edges)\n", c->cross,
           c->edges, 100.0 * frac);
    printf("cross_group  ");
    for (size_t g = 0; g < c->groups; g++)
        printf(" %zu", c->per[g]);
    printf("  (edges leaving each group)\n");
}
