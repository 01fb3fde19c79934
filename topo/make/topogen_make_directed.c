/* topogen_make_directed.c: the maker of the directed and randomised kinds
 * (perm, exp-directed, learned --directed, epidemic) for topogen_make.h.
 * The file is the directed edge-list format (tg_digraph_save: header token
 * `directed=1`, `i j w` per edge i -> j, i sends, j receives with weight
 * w). Epidemic files carry no edges: the trainer draws each round's graph
 * from the run's seed.
 */
#include "topogen_make.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_labels.h"
#include "cm_rng.h"
#include "cm_topo_header.h"
#include "tg_digraph.h"
#include "tg_digraph_search.h"
#include "tg_hetero.h"
#include "tg_neff.h"
#include "topogen_neff.h"
#include "topogen_settings.h"

/* The first line's fields shared by the directed headers into h. */
static void header_init(cm_topo_header *h, const topogen_config *c)
{
    cm_topo_header_init(h);
    h->generator = "topogen 2";
    h->n = c->search.n;
    h->d = c->search.d;
    h->directed = 1;
    snprintf(h->kind, sizeof h->kind, "%s", topogen_kind_name(c));
}

/* epidemic: a header and no edges */
static cm_status make_epidemic(topogen_config *c, topogen_made *m)
{
    size_t s = c->search.d;
    char tokens[128], notes[256];
    topogen_settings_line(c, m->settings, sizeof m->settings);
    snprintf(tokens, sizeof tokens, "seed=%llu version=%s",
             (unsigned long long)c->search.seed, TOPOGEN_VERSION);
    snprintf(notes, sizeof notes, "no edges: every round each node sends to "
             "%zu %s; dpsgd-train draws the graph from the run's seed", s,
             c->local ? "peers it samples (EL-Local)"
                      : "others, every node receiving from as many "
                        "(EL-Oracle)");
    cm_topo_header h;
    header_init(&h, c);
    h.epidemic = 1;
    h.epi_s = s;
    h.epi_local = c->local ? 1 : 0;
    h.tokens = tokens;
    h.notes = notes;
    h.settings = m->settings;
    m->dg.n = c->search.n; /* the trainer draws from its own --seed */
    m->comment = cm_topo_header_format(&h);
    return m->comment ? CM_OK : CM_ENOMEM;
}

/* learned --directed: the search over D permutations (tg_digraph_search),
 * its automatic settings resolved into c->search */
static cm_status search(topogen_config *c, topogen_made *m)
{
    size_t n = c->search.n;
    tg_digraph_search_opts o = {0};
    o.n = n;
    o.s = c->search.d;
    o.gamma = c->search.obj_gamma > 0.0 ? c->search.obj_gamma
                                        : TG_NEFF_GAMMA;
    o.seed = c->search.seed;
    if (!c->search.iters)
        c->search.iters = tg_digraph_search_default_iters(n);
    if (!c->search.restarts)
        c->search.restarts = 1;
    if (!(c->search.t0 > 0.0))
        c->search.t0 = 0.01 / (double)n;
    if (!(c->search.t1 > 0.0))
        c->search.t1 = c->search.t0 / 100.0;
    if (c->search.obj == TG_OBJ_RATIO && !c->obj_given)
        c->search.obj = TG_OBJ_NEFF; /* the default objective here */
    o.norm = c->search.obj == TG_OBJ_RATIO;
    o.iters = c->search.iters;
    o.restarts = c->search.restarts;
    o.t0 = c->search.t0;
    o.t1 = c->search.t1;
    o.time_limit = c->search.time_limit;
    o.stop = c->search.stop; /* the caller's flag (the CLI: signals) */
    cm_labels lab;
    cm_labels_init(&lab);
    double *pi = NULL, *pibar = NULL;
    cm_status st = CM_OK;
    if (c->labels) { /* data-aware: + mu * H (tg_digraph_search.c) */
        st = topogen_read_labels(c, m, &lab, &pi, &pibar);
        m->usage = 0; /* --directed: a bad counts file is a failure */
        o.pi = pi;
        o.pibar = pibar;
        o.k = lab.k;
        o.hetero_weight = c->search.hetero_weight;
    }
    if (st == CM_OK)
        st = tg_digraph_search(&o, &m->dg, &m->dres);
    free(pi);
    free(pibar);
    cm_labels_destroy(&lab);
    return st;
}

cm_status topogen_make_directed(topogen_config *c, topogen_made *m)
{
    int code = c->kind->code;
    if (code == TOPOGEN_D_EPIDEMIC)
        return make_epidemic(c, m);
    size_t n = c->search.n, s = c->search.d;
    cm_status st = CM_OK;
    if (code == TOPOGEN_D_EXP) {
        c->search.d = 0;
        while (((size_t)1 << c->search.d) < n)
            c->search.d++;
        st = tg_digraph_exp(&m->dg, n);
    } else if (code == TOPOGEN_D_PERM) {
        cm_rng rng;
        cm_rng_seed(&rng, c->search.seed, 0);
        size_t *perm = malloc(s * n * sizeof *perm);
        st = perm ? tg_digraph_random_perms(n, s, &rng, perm)
                  : cm_error(CM_ENOMEM, "out of memory");
        if (st == CM_OK)
            st = tg_digraph_from_perms(&m->dg, n, s, perm);
        free(perm);
    } else {
        st = search(c, m);
    }
    topogen_neff v = {0};
    double lazy_t = 1.0, lazy_neff = 0.0;
    if (st == CM_OK)
        st = topogen_neff_gammas(c->gamma, &v);
    if (st == CM_OK && c->weights_given)
        st = tg_digraph_best_lazy(&m->dg, v.gamma[0], &lazy_t, &lazy_neff);
    /* the header's n_eff is the exact series, O(n^2) memory: above
     * TG_NEFF_DENSE_MAX nodes the line gives the messages only and says
     * so (--help promises these kinds up to 10^6 nodes; eval has the same
     * limit for a directed W) */
    int exact = n <= TG_NEFF_DENSE_MAX;
    if (st == CM_OK && exact)
        st = topogen_neff_digraph(&m->dg, &v);
    else if (st == CM_OK)
        v.msgs = tg_digraph_messages(&m->dg);
    m->norm = 0.0;
    if (st == CM_OK && n <= 2048)
        st = topogen_digraph_norm(&m->dg, &m->norm);
    if (st != CM_OK)
        return st;
    const char *intr = m->dres.interrupted ? " interrupted=1" : "";
    char notes[1024], tokens[256];
    size_t len;
    if (exact)
        len = (size_t)snprintf(notes, sizeof notes, "norm_w_minus_j=%.4f "
                               "neff=%.4f (gamma %g) messages=%.4g%s",
                               m->norm, v.neff[0], v.gamma[0], v.msgs, intr);
    else
        len = (size_t)snprintf(notes, sizeof notes, "messages=%.4g (n_eff "
                               "and ||W - J||_2 are computed up to %d "
                               "nodes)%s", v.msgs, TG_NEFF_DENSE_MAX, intr);
    if (c->weights_given && len < sizeof notes)
        len += (size_t)snprintf(notes + len, sizeof notes - len, "\nneff "
                                "weights: W = (1 - t) I + t W_uniform, "
                                "t=%.17g (best for n_eff at gamma %g), self "
                                "weight %.6f", lazy_t, v.gamma[0],
                                m->dg.self[0]);
    if (len < sizeof notes)
        snprintf(notes + len, sizeof notes - len, "\none `i j w` line per "
                 "edge i -> j (i sends its model, j receives it with weight "
                 "w); W_jj = 1 - sum of j's incoming weights");
    topogen_settings_line(c, m->settings, sizeof m->settings);
    snprintf(tokens, sizeof tokens, "weights=%s seed=%llu version=%s",
             c->weights_given ? "neff" : "uniform",
             (unsigned long long)c->search.seed, TOPOGEN_VERSION);
    cm_topo_header h;
    header_init(&h, c);
    h.tokens = tokens;
    h.notes = notes;
    h.labels_at = 1; /* after the figures: the files written so far */
    h.settings = m->settings;
    h.labels = m->labels[0] ? m->labels : NULL;
    m->comment = cm_topo_header_format(&h);
    return m->comment ? CM_OK : CM_ENOMEM;
}
