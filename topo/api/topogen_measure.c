/* topogen_measure.c: libtopogen's view of a topology (topogen.h): its
 * size, neighbours, the dense mixing matrix W of a round (row i from the
 * in-neighbour lists of cm_topo, self weights on the diagonal: the same
 * layout for symmetric and directed files), weights by rule, and the
 * measures: tg_eval's spectra and diameter, W's extremes, n_eff
 * (topogen_neff: closed form, Lyapunov for sequences and directed W).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mixing.h"
#include "tg_eval.h"
#include "tg_neff.h"
#include "tg_seq.h"
#include "topogen_config.h"
#include "topogen_handle.h"
#include "topogen_neff.h"
#include "topogen_weights.h"

/* ---- the graph and its mixing matrix ----------------------------------- */

size_t topogen_nodes(const topogen_topology *t)
{
    if (!t)
        return 0;
    return topogen_round_of(t, 0)->n;
}

size_t topogen_rounds(const topogen_topology *t)
{
    if (!t)
        return 0;
    if (t->made)
        return t->cfg.kind->family == TOPOGEN_FAM_SEQ ? t->m.seq.period : 1;
    return t->seq.period;
}

int topogen_is_directed(const topogen_topology *t)
{
    if (!t)
        return 0;
    const cm_topo *r = topogen_round_of(t, 0);
    return r->directed || cm_topo_is_epidemic(r);
}

int topogen_is_weighted(const topogen_topology *t)
{
    if (!t)
        return 0;
    for (size_t r = 0; r < topogen_rounds(t); r++)
        if (!topogen_round_of(t, r)->adj_w)
            return 0;
    return 1;
}

size_t topogen_edges(const topogen_topology *t, size_t round)
{
    if (!t)
        return 0;
    return topogen_round_of(t, round)->m;
}

const char *topogen_header(const topogen_topology *t)
{
    if (!t)
        return "";
    if (t->made)
        return t->m.comment;
    return t->header ? t->header : "";
}

topogen_status topogen_set_weights(topogen_topology *t, const char *rule)
{
    if (!t || !rule)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_set_weights: t "
                                        "or rule is NULL");
    if (topogen_rounds(t) > 1)
        return (topogen_status)cm_error(CM_EINVAL, "--weights: a "
                                        "time-varying topology carries its "
                                        "own weights");
    if (topogen_is_directed(t))
        return (topogen_status)cm_error(CM_EINVAL, "--weights: a directed "
                                        "topology carries its own weights");
    int fdla = strcmp(rule, "fdla") == 0 ? TOPOGEN_W_FDLA
               : strcmp(rule, "neff") == 0 ? TOPOGEN_W_NEFF
               : strcmp(rule, "neff-alpha") == 0 ? TOPOGEN_W_NEFF_ALPHA
                                                 : TOPOGEN_W_RULE;
    cm_weight_rule wr = CM_WEIGHTS_LAPLACIAN;
    if (!fdla && cm_weight_rule_parse(rule, &wr) != CM_OK)
        return (topogen_status)cm_error(CM_EINVAL, "--weights: unknown "
                                        "weight rule '%s' (expected %s, "
                                        "fdla, neff, neff-alpha)", rule,
                                        cm_weight_rule_list());
    guard g;
    topogen_enter(&g);
    cm_topo *r = t->made ? &t->m.t : &t->seq.round[0];
    size_t n = r->n; /* r moves into t->seq below */
    tg_fdla_result fr;
    tg_neff_weights_result nr; /* neff rules: gamma = TG_NEFF_GAMMA */
    cm_status st = topogen_weights_set(fdla, wr, TG_NEFF_GAMMA, r, &fr, &nr);
    if (st == CM_OK && t->made) { /* now a plain topology: move it over */
        cm_status s2 = cm_topo_seq_from_topo(&t->seq, &t->m.t);
        if (s2 != CM_OK)
            return topogen_leave(&g, s2);
        topogen_made_destroy(&t->m);
        topogen_made_init(&t->m);
        t->made = 0;
    }
    if (st == CM_OK) {
        char buf[128];
        snprintf(buf, sizeof buf, "# n=%zu weights=%s (libtopogen %s)", n,
                 rule, TOPOGEN_VERSION);
        char *h = strdup(buf);
        if (!h)
            return topogen_leave(&g, cm_error(CM_ENOMEM, "out of memory"));
        free(t->header);
        t->header = h;
    }
    return topogen_leave(&g, st);
}

topogen_status topogen_neighbours(const topogen_topology *t, size_t round,
                                  size_t i, size_t *ids, double *w,
                                  size_t cap, size_t *count)
{
    if (!t)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_neighbours: t is "
                                        "NULL");
    const cm_topo *r = topogen_round_of(t, round);
    if (cm_topo_is_epidemic(r))
        return (topogen_status)cm_error(CM_EINVAL, "an epidemic topology "
                                        "draws its arcs every round from the "
                                        "run's seed");
    if (i >= r->n)
        return (topogen_status)cm_error(CM_EINVAL, "node %zu: the topology "
                                        "has %zu nodes", i, r->n);
    if (w && !r->adj_w)
        return (topogen_status)cm_error(CM_EINVAL, "the topology is "
                                        "unweighted (topogen_set_weights)");
    size_t deg = r->off[i + 1] - r->off[i];
    for (size_t k = 0; k < deg && k < cap; k++) {
        if (ids)
            ids[k] = r->adj[r->off[i] + k];
        if (w)
            w[k] = r->adj_w[r->off[i] + k];
    }
    if (count)
        *count = deg;
    return TOPOGEN_OK;
}

topogen_status topogen_mixing_matrix(const topogen_topology *t,
                                     size_t round, double *w)
{
    if (!t || !w)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_mixing_matrix: t "
                                        "or w is NULL");
    const cm_topo *r = topogen_round_of(t, round);
    if (cm_topo_is_epidemic(r))
        return (topogen_status)cm_error(CM_EINVAL, "an epidemic topology "
                                        "draws a new graph every round from "
                                        "the run's seed: it has no fixed W");
    if (!r->adj_w || !r->self)
        return (topogen_status)cm_error(CM_EINVAL, "the topology is "
                                        "unweighted (topogen_set_weights)");
    size_t n = r->n;
    memset(w, 0, n * n * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        w[i * n + i] = r->self[i];
        for (size_t k = r->off[i]; k < r->off[i + 1]; k++)
            w[i * n + r->adj[k]] = r->adj_w[k];
    }
    return TOPOGEN_OK;
}

void topogen_measures_init(topogen_measures *m)
{
    memset(m, 0, sizeof *m);
    m->size = sizeof *m;
}

/* The measures of a directed round: sizes, ||W - J||_2 and n_eff. */
static cm_status measure_directed(const cm_topo *r, double gamma,
                                  topogen_measures *m)
{
    size_t n = r->n;
    m->n = n;
    m->m = r->m;
    cm_topo_degree_range(r, &m->dmin, &m->dmax);
    m->components = 1; /* the reader checks strong connectivity */
    m->diameter = m->lambda2_l = m->lambdan_l = m->slem_best = NAN;
    m->lambda2 = m->lambdan = NAN; /* W's eigenvalues may be complex */
    double *w = malloc(n * n * sizeof *w);
    if (!w)
        return cm_error(CM_ENOMEM, "out of memory");
    tg_neff_fill_dense(r, w);
    cm_status st = topogen_norm_wj(w, n, &m->slem);
    const double *ws[1] = {w};
    if (st == CM_OK)
        st = tg_neff_dense(ws, 1, n, gamma, &m->neff);
    free(w);
    m->rounds = tg_eval_rounds(m->slem);
    m->messages = (double)r->m / (double)n;
    return st;
}

topogen_status topogen_measure(const topogen_topology *t, size_t round,
                               topogen_measures *m)
{
    if (!t || !m || m->size < sizeof *m)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_measure: "
                                        "measures not initialized "
                                        "(topogen_measures_init)");
    const cm_topo *r = topogen_round_of(t, round);
    if (cm_topo_is_epidemic(r))
        return (topogen_status)cm_error(CM_EINVAL, "an epidemic topology "
                                        "draws a new graph every round: "
                                        "`topogen eval` estimates its n_eff "
                                        "by simulation");
    if (!r->adj_w)
        return (topogen_status)cm_error(CM_EINVAL, "the topology is "
                                        "unweighted (topogen_set_weights)");
    if (!(m->gamma >= 0.0 && m->gamma < 1.0))
        return (topogen_status)cm_error(CM_EINVAL, "gamma %g: n_eff needs "
                                        "0 < gamma < 1 (0 for %g)", m->gamma,
                                        TG_NEFF_GAMMA);
    double gamma = m->gamma > 0.0 ? m->gamma : TG_NEFF_GAMMA;
    m->gamma = gamma;
    guard g;
    topogen_enter(&g);
    m->period = topogen_rounds(t);
    cm_status st;
    if (r->directed) {
        st = measure_directed(r, gamma, m);
        m->period_norm = m->slem;
        m->period_rounds = m->rounds;
        if (st == CM_OK && m->period > 1)
            st = cm_error(CM_EINVAL, "a directed sequence: only its rounds "
                          "are measured here");
        return topogen_leave(&g, st);
    }
    tg_eval e;
    st = tg_eval_topo(r, &e);
    double l2w = 1, lnw = 1;
    if (st == CM_OK)
        st = cm_topo_w_extremes(r, &l2w, &lnw);
    topogen_neff v = {0};
    v.k = 1;
    v.gamma[0] = gamma;
    const cm_topo_seq *seq = t->made ? &t->m.seq : &t->seq;
    if (st == CM_OK)
        st = m->period > 1 ? topogen_neff_seq(seq, &v)
                           : topogen_neff_topo(r, &v);
    if (st != CM_OK)
        return topogen_leave(&g, st);
    m->n = e.n;
    m->m = e.m;
    m->dmin = e.dmin;
    m->dmax = e.dmax;
    m->components = e.components;
    m->diameter = e.diameter;
    m->lambda2_l = e.l2;
    m->lambdan_l = e.ln;
    m->slem = e.slem;
    m->lambda2 = l2w;
    m->lambdan = lnw;
    m->slem_best = e.slem_best;
    m->rounds = e.rounds;
    m->period_norm = e.slem;
    m->period_rounds = e.rounds;
    m->neff = v.neff[0];
    m->messages = v.msgs;
    if (m->period > 1) {
        tg_seq_eval se;
        st = tg_seq_evaluate(seq, NULL, &se);
        if (st != CM_OK)
            return topogen_leave(&g, st);
        m->period_norm = se.norm;
        m->period_rounds = se.rounds ? (double)se.rounds : se.rounds_est;
    }
    return topogen_leave(&g, CM_OK);
}
