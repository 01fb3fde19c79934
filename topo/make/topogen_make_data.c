/* topogen_make_data.c: the maker of the data-aware kinds, built from a
 * counts file (src/topo/cm_labels.h, written by dpsgd-train
 * --write-partition), for topogen_make.h: --kind stl-fw (tg_stlfw, on a
 * dense W) and --kind dcliques (tg_dcliques). The undirected results
 * (stl-fw --symmetric, D-Cliques) are ordinary weighted edge lists; the
 * directed STL-FW W goes to the directed edge-list format (an arc j -> i
 * for each W_ij > 0, i != j, self weights implied).
 */
#include "topogen_make.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_labels.h"
#include "cm_mixing.h"
#include "cm_topo_header.h"
#include "tg_dcliques.h"
#include "tg_digraph.h"
#include "tg_hetero.h"
#include "tg_stlfw.h"
#include "tg_wdense.h"
#include "topogen_settings.h"

/* The directed W (dense) as arcs j -> i (j sends) for each W_ij > 0,
 * i != j, in (sender, receiver) order, into g (empty). */
static cm_status dense_to_digraph(size_t n, const double *W, tg_digraph *g)
{
    size_t m = 0;
    for (size_t e = 0; e < n * n; e++)
        m += e / n != e % n && W[e] > 0.0;
    g->n = n;
    g->m = 0;
    g->src = malloc((m + 1) * sizeof(size_t));
    g->dst = malloc((m + 1) * sizeof(size_t));
    g->w = malloc((m + 1) * sizeof(double));
    g->self = malloc((n + 1) * sizeof(double));
    if (!g->src || !g->dst || !g->w || !g->self)
        return cm_error(CM_ENOMEM, "out of memory for the directed graph");
    for (size_t j = 0; j < n; j++)       /* sender */
        for (size_t i = 0; i < n; i++)   /* receiver */
            if (i != j && W[i * n + j] > 0.0) {
                g->src[g->m] = j;
                g->dst[g->m] = i;
                g->w[g->m++] = W[i * n + j];
            }
    for (size_t i = 0; i < n; i++)
        g->self[i] = W[i * n + i];
    return CM_OK;
}

/* stl-fw: W learned by Frank-Wolfe; its figures into m */
static cm_status make_stlfw(topogen_config *c, topogen_made *m,
                            const cm_labels *l, const double *pi,
                            const double *pibar, cm_topo_header *h,
                            char *notes, size_t cap)
{
    size_t n = l->n;
    if (n > 4096)
        return cm_error(CM_EINVAL, "--kind stl-fw: at most 4096 workers "
                        "(dense W; %s has %zu)", c->labels, n);
    double *W = malloc(n * n * sizeof *W);
    double *I = calloc(n * n, sizeof *I);
    cm_status st = CM_OK;
    if (!W || !I) {
        st = cm_error(CM_ENOMEM, "out of memory for W (n = %zu)", n);
        goto done;
    }
    tg_stlfw_opts o = {c->search.d, c->lambda, c->symmetric};
    if ((st = tg_stlfw_learn(n, l->k, pi, pibar, &o, W, &m->sres)) != CM_OK)
        goto done;
    m->norm = m->neff = NAN;
    if (n <= 512 && ((st = tg_wdense_norm(n, W, &m->norm)) != CM_OK ||
                     (st = tg_wdense_neff(n, W, 0.951, &m->neff)) != CM_OK))
        goto done;
    for (size_t i = 0; i < n; i++)
        I[i * n + i] = 1.0;
    tg_hetero_dense(n, l->k, I, pi, pibar, &m->h0);
    tg_hetero_dense(n, l->k, W, pi, pibar, &m->h);
    size_t len = (size_t)snprintf(notes, cap, "heterogeneity=%.6f (alone "
                                  "%.6f) norm=%.4f iterations=%zu "
                                  "max_out=%zu max_in=%zu", m->h.h, m->h0.h,
                                  m->norm, m->sres.iters, m->sres.max_out,
                                  m->sres.max_in);
    m->slem = NAN;
    if (c->symmetric) {
        st = tg_wdense_to_topo(n, W, &m->t);
        if (st == CM_OK)
            st = cm_topo_slem(&m->t, &m->slem);
        if (st == CM_OK && len < cap)
            len += (size_t)snprintf(notes + len, cap - len, " slem=%.4f",
                                    m->slem);
    } else {
        m->directed = 1;
        st = dense_to_digraph(n, W, &m->dg);
    }
    if (len < cap)
        snprintf(notes + len, cap - len, "\n%s",
                 c->symmetric ? "one `i j W_ij` line per edge; W_ii = 1 - "
                                "sum_j W_ij"
                              : "one `i j w` line per arc i -> j (j averages "
                                "in i's model with weight W_ji = w); "
                                "W_jj = 1 - sum_i W_ji");
    h->d = c->search.d;
    h->directed = !c->symmetric;
done:
    free(I);
    free(W);
    return st;
}

/* dcliques: the cliques and their links; figures into m */
static cm_status make_dcliques(topogen_config *c, topogen_made *m,
                               const cm_labels *l, cm_topo_header *h,
                               char *notes, size_t cap)
{
    size_t n = l->n;
    tg_inter in = c->inter == 1   ? TG_INTER_RING
                  : c->inter == 2 ? TG_INTER_FRACTAL
                                  : TG_INTER_SMALL_WORLD;
    size_t steps = 1000 + 20 * n;
    cm_status st = tg_dcliques_build(l, in, c->clique_equal, c->search.seed,
                                     steps, &m->t, &m->cres);
    if (st == CM_OK)
        st = tg_hetero_topo(&m->t, l, &m->h);
    if (st != CM_OK)
        return st;
    m->slem = NAN;
    if (n <= 4096 && cm_topo_slem(&m->t, &m->slem) != CM_OK)
        m->slem = NAN;
    size_t dmin, dmax;
    cm_topo_degree_range(&m->t, &dmin, &dmax);
    h->d = dmax;
    /* the clique of each node, for dpsgd-train --algorithm clique-avg
     * (dt_clique.c reads it), after the labels line */
    h->cliques = m->cres.clique;
    h->n_cliques = n;
    snprintf(notes, cap, "cliques=%zu inter_edges=%zu skew=%.6f (start "
             "%.6f) heterogeneity=%.6f slem=%.4f\n"
             "one `i j W_ij` line per edge; W_ii = 1 - sum_j W_ij",
             m->cres.q, m->cres.inter_edges, m->cres.skew,
             m->cres.skew_start, m->h.h, m->slem);
    return CM_OK;
}

cm_status topogen_make_data(topogen_config *c, topogen_made *m)
{
    cm_labels l;
    cm_labels_init(&l);
    double *pi = NULL, *pibar = NULL;
    cm_status st = cm_labels_read(&l, c->labels);
    if (st == CM_OK)
        st = tg_hetero_pi(&l, &pi, &pibar);
    if (st != CM_OK)
        goto done;
    size_t n = l.n;
    c->search.n = n;
    topogen_settings_line(c, m->settings, sizeof m->settings);
    snprintf(m->labels, sizeof m->labels, "%s file=%s",
             l.identity[0] ? l.identity : "unnamed", c->labels);
    int stlfw = c->kind->code == TOPOGEN_DK_STLFW;
    char tokens[256], notes[1024];
    cm_topo_header h;
    cm_topo_header_init(&h);
    h.generator = "topogen 2";
    h.n = n;
    snprintf(h.kind, sizeof h.kind, "%s", c->kind->name);
    if (stlfw) {
        snprintf(tokens, sizeof tokens, "budget=%zu lambda=%.17g seed=%llu "
                 "version=%s", c->search.d, c->lambda,
                 (unsigned long long)c->search.seed, TOPOGEN_VERSION);
        st = make_stlfw(c, m, &l, pi, pibar, &h, notes, sizeof notes);
    } else {
        snprintf(tokens, sizeof tokens, "inter=%s weights=%s seed=%llu "
                 "version=%s", topogen_inter_name(c->inter),
                 c->clique_equal ? "equal-clique" : "mh",
                 (unsigned long long)c->search.seed, TOPOGEN_VERSION);
        st = make_dcliques(c, m, &l, &h, notes, sizeof notes);
    }
    if (st != CM_OK)
        goto done;
    h.tokens = tokens;
    h.notes = notes;
    h.settings = m->settings;
    h.labels = m->labels;
    m->comment = cm_topo_header_format(&h);
    st = m->comment ? CM_OK : CM_ENOMEM;
done:
    free(pi);
    free(pibar);
    cm_labels_destroy(&l);
    return st;
}
