/* topogen_make.c: make, weight, measure and write the topology of a
 * topogen_config (see topogen_make.h): the dispatch to the kind's maker,
 * the learned, static and time-varying makers (the directed ones are
 * topogen_make_directed.c, the data-aware ones topogen_make_data.c) and
 * the writer. This is `topogen`'s generation without its printing, so
 * that topogen's main and the public library (topo/api/) produce the same
 * bytes for the same settings: the header comes from the one settings
 * line of the schema (topogen_settings.c) through the one header writer
 * (cm_topo_header_format).
 */
#include "topogen_make.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_labels.h"
#include "cm_mixing.h"
#include "cm_rng.h"
#include "cm_topo_header.h"
#include "tg_catalog.h"
#include "tg_graph.h"
#include "tg_groups.h"
#include "tg_igraph.h"
#include "tg_neff_search.h"
#include "topogen_neff.h"
#include "topogen_settings.h"
#include "topogen_weights.h"

void topogen_made_init(topogen_made *m)
{
    memset(m, 0, sizeof *m);
    cm_topo_init(&m->t);
    cm_topo_seq_init(&m->seq);
    tg_digraph_init(&m->dg);
}

void topogen_made_destroy(topogen_made *m)
{
    if (!m)
        return;
    cm_topo_destroy(&m->t);
    cm_topo_seq_destroy(&m->seq);
    tg_digraph_destroy(&m->dg);
    free(m->cres.clique);
    free(m->comment);
    m->cres.clique = NULL;
    m->comment = NULL;
}

/* For the ratio objective at n <= 20 without groups or labels: replaces
 * the learned m->t by a catalogue graph of the same (n, d) with a lower
 * energy (tg_catalog.h: complete multipartite, Petersen, Paley, ...) and
 * names it in m->catalog for the caller to report. */
static cm_status catalog_check(const topogen_config *c, topogen_made *m)
{
    size_t n = c->search.n, d = c->search.d;
    m->catalog = NULL;
    if (c->search.obj != TG_OBJ_RATIO || c->search.groups || c->labels ||
        n > 20)
        return CM_OK;
    double l2, ln;
    cm_status st = cm_topo_laplacian_extremes(&m->t, &l2, &ln);
    double best = tg_objective_energy(c->search.obj, d, l2, ln);
    m->search_energy = best;
    for (size_t k = 0; st == CM_OK && k < tg_catalog_count(n, d); k++) {
        cm_topo u;
        cm_topo_init(&u);
        const char *name = "";
        st = tg_catalog_build(n, d, k, &u, &name);
        if (st == CM_OK)
            st = cm_topo_laplacian_extremes(&u, &l2, &ln);
        double e = tg_objective_energy(c->search.obj, d, l2, ln);
        if (st == CM_OK && e < best - 1e-12) {
            best = e;
            m->catalog = name;
            m->catalog_energy = e;
            cm_topo_destroy(&m->t);
            m->t = u;
            cm_topo_init(&u);
        }
        cm_topo_destroy(&u);
    }
    return st;
}

void topogen_resolve_defaults(tg_search_opts *o)
{
    if (topogen_objective_row(o->obj)->neff) {
        if (!o->iters) /* the n_eff hook's moves are cheap: 4x below 512 */
            o->iters = tg_search_default_iters(o->n, o->d) *
                       (o->n < 512 ? 4 : 1);
        if (!(o->t0 > 0.0))
            o->t0 = TG_HOOK_T0 / (double)o->n;
    }
    tg_search_opts_resolve(o); /* the rest, as the search resolves them */
}

/* The header of m from h's first-line fields and the settings line, into
 * m->comment. */
static cm_status put_header(topogen_made *m, cm_topo_header *h)
{
    h->settings = m->settings;
    h->labels = m->labels[0] ? m->labels : NULL;
    free(m->comment);
    m->comment = cm_topo_header_format(h);
    return m->comment ? CM_OK : CM_ENOMEM;
}

cm_status topogen_make_seq(topogen_config *c, topogen_made *m)
{
    tg_seq_kind sk = (tg_seq_kind)c->kind->code;
    cm_status st = tg_seq_build(&m->seq, sk, c->search.n, c->search.d);
    if (st == CM_OK)
        st = tg_seq_evaluate(&m->seq, NULL, &m->se);
    if (st != CM_OK)
        return st;
    topogen_settings_line(c, m->settings, sizeof m->settings);
    char tokens[256], notes[512];
    snprintf(tokens, sizeof tokens, "period=%zu seed=%llu version=%s",
             m->seq.period, (unsigned long long)c->search.seed,
             TOPOGEN_VERSION);
    snprintf(notes, sizeof notes, "product_norm=%.3g exact=%d "
             "messages_per_period=%.4g\n"
             "one `# round R` section per round, `i j W_ij` lines; "
             "W_ii = 1 - sum_j W_ij", m->se.norm, m->se.exact,
             m->se.messages);
    cm_topo_header h;
    cm_topo_header_init(&h);
    h.generator = "topogen 2";
    h.n = m->seq.n;
    h.d = m->se.dmax;
    snprintf(h.kind, sizeof h.kind, "%s", tg_seq_kind_name(sk));
    h.tokens = tokens;
    h.notes = notes;
    return put_header(m, &h);
}

/* The weights, spectrum and header of the undirected graph m->t. */
static cm_status weigh(topogen_config *c, topogen_made *m)
{
    topogen_neff wg = {0};
    cm_status st = topogen_neff_gammas(c->gamma, &wg);
    if (st == CM_OK)
        st = topogen_weights_set(c->fdla, c->weights, wg.gamma[0], &m->t,
                                 &m->fr, &m->nr);
    if (st == CM_OK)
        st = cm_topo_spectra(&m->t, &m->l2, &m->ln, &m->slem);
    if (st != CM_OK)
        return st;
    size_t dmin, dmax;
    cm_topo_degree_range(&m->t, &dmin, &dmax);
    char fl[384], tokens[256], notes[768];
    topogen_settings_line(c, m->settings, sizeof m->settings);
    topogen_fdla_line(c->fdla, &m->fr, fl, sizeof fl);
    if (!fl[0])
        topogen_neff_line(c->fdla, &m->nr, fl, sizeof fl);
    if (c->search.groups) { /* the cut, after any fdla line */
        size_t len = strlen(fl);
        snprintf(fl + len, sizeof fl - len, "\n# groups=%zu (ids in blocks "
                 "of %zu) cross_edges=%zu max_cross=%zu", c->search.groups,
                 c->search.n / c->search.groups, m->res.cross,
                 c->search.max_cross);
    }
    snprintf(tokens, sizeof tokens, "objective=%s weights=%s seed=%llu "
             "version=%s%s", tg_objective_name(c->search.obj),
             topogen_weights_name(c->fdla, c->weights),
             (unsigned long long)c->search.seed, TOPOGEN_VERSION,
             m->res.interrupted ? " interrupted=1" : "");
    snprintf(notes, sizeof notes, "lambda2=%.4f lambdan=%.4f slem=%.4f%s\n"
             "one `i j W_ij` line per edge; W_ii = 1 - sum_j W_ij", m->l2,
             m->ln, m->slem, fl);
    cm_topo_header h;
    cm_topo_header_init(&h);
    h.generator = "topogen 2";
    h.n = m->t.n;
    h.d = dmax;
    snprintf(h.kind, sizeof h.kind, "%s", topogen_kind_name(c));
    h.tokens = tokens;
    h.notes = notes;
    return put_header(m, &h);
}

cm_status topogen_make_static(topogen_config *c, topogen_made *m)
{
    cm_rng rng;
    cm_rng_seed(&rng, c->search.seed, 0);
    cm_status st = tg_kind_build(&m->t, (tg_kind)c->kind->code, c->search.n,
                                 c->search.d, &rng);
    return st == CM_OK ? weigh(c, m) : st;
}

/* --labels of a learned kind: the counts file read into *l, checked
 * against -n, its proportions (*pi, *pibar: caller frees) and the
 * header's labels identity in m->labels. */
cm_status topogen_read_labels(const topogen_config *c, topogen_made *m,
                              cm_labels *l, double **pi, double **pibar)
{
    cm_status st = cm_labels_read(l, c->labels);
    if (st != CM_OK)
        return st;
    if (l->n != c->search.n) {
        m->usage = 1;
        return cm_error(CM_EINVAL, "--labels: %s has %zu workers, but -n is "
                        "%zu", c->labels, l->n, c->search.n);
    }
    if ((st = tg_hetero_pi(l, pi, pibar)) != CM_OK)
        return st;
    snprintf(m->labels, sizeof m->labels, "%s file=%s",
             l->identity[0] ? l->identity : "unnamed", c->labels);
    return CM_OK;
}

cm_status topogen_make_learned(topogen_config *c, topogen_made *m)
{
    cm_labels lab;
    cm_labels_init(&lab);
    double *pi = NULL, *pibar = NULL;
    tg_graph g;
    tg_graph_init(&g);
    cm_status st = CM_OK;
    if (c->labels) { /* data-aware search: + mu * H */
        st = topogen_read_labels(c, m, &lab, &pi, &pibar);
        c->search.pi = pi;
        c->search.pibar = pibar;
        c->search.k = lab.k;
    }
    if (st == CM_OK) {
        topogen_resolve_defaults(&c->search);
        tg_energy_hook hook;
        tg_neff_hook_cfg hcfg = {c->search.obj_gamma > 0.0
                                     ? c->search.obj_gamma : TG_NEFF_GAMMA,
                                 TG_NEFF_PROBES, -1, c->search.seed};
        if (topogen_objective_row(c->search.obj)->neff) {
            tg_neff_hook(&hook, &hcfg);
            c->search.hook = &hook;
        }
        st = tg_search_run(&c->search, &g, &m->res);
        c->search.hook = NULL; /* hook and hcfg end here */
    }
    c->search.pi = c->search.pibar = NULL;
    free(pi);
    free(pibar);
    cm_labels_destroy(&lab);
    if (st == CM_OK)
        st = tg_graph_to_topo(&g, &m->t);
    if (st == CM_OK)
        st = catalog_check(c, m);
    tg_graph_destroy(&g);
    return st == CM_OK ? weigh(c, m) : st;
}

cm_status topogen_make(topogen_config *c, topogen_made *m)
{
    m->directed = c->kind->family == TOPOGEN_FAM_DIRECTED;
    return c->kind->make(c, m);
}

cm_status topogen_made_write(const topogen_config *c, const topogen_made *m,
                             const char *path, cm_topo_format f)
{
    if (c->kind->family == TOPOGEN_FAM_SEQ) {
        if (f != CM_FORMAT_EDGELIST && f != CM_FORMAT_AUTO)
            return cm_error(CM_EINVAL, "--format: --kind %s writes one edge "
                            "list section per round (--format edgelist)",
                            topogen_kind_name(c));
        return cm_topo_seq_save(&m->seq, path, m->comment);
    }
    if (m->directed) {
        if (f != CM_FORMAT_EDGELIST && f != CM_FORMAT_AUTO)
            return cm_error(CM_EINVAL, "--format: --kind %s writes a directed "
                            "edge list (--format edgelist)",
                            topogen_kind_name(c));
        return tg_digraph_save(&m->dg, path, m->comment);
    }
    const cm_topo *t = &m->t;
    if (f == CM_FORMAT_EDGELIST || f == CM_FORMAT_NCOL ||
        f == CM_FORMAT_AUTO)
        return cm_topo_save(t, path, f == CM_FORMAT_NCOL ? NULL : m->comment);
    char nbuf[32], dbuf[32], l2b[32], lnb[32], sb[32], seed[32];
    size_t dmin, dmax;
    cm_topo_degree_range(t, &dmin, &dmax);
    snprintf(nbuf, sizeof nbuf, "%zu", t->n);
    snprintf(dbuf, sizeof dbuf, "%zu", dmax);
    snprintf(l2b, sizeof l2b, "%.17g", m->l2);
    snprintf(lnb, sizeof lnb, "%.17g", m->ln);
    snprintf(sb, sizeof sb, "%.17g", m->slem);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->search.seed);
    const char *keys[] = {"topogen", "n", "d", "kind", "weights", "seed",
                          "settings", "lambda2", "lambdan", "slem",
                          "self_weights"};
    const char *vals[] = {TOPOGEN_VERSION, nbuf, dbuf, topogen_kind_name(c),
                          topogen_weights_name(c->fdla, c->weights), seed,
                          m->settings, l2b, lnb, sb,
                          "implied: W_ii = 1 - sum_j W_ij"};
    FILE *fp = stdout;
    cm_afile af = {0};
    if (strcmp(path, "-") != 0) {
        cm_status st = cm_atomic_open(&af, path);
        if (st != CM_OK)
            return st;
        fp = af.fp;
    }
    cm_status st = tg_igraph_write(t, fp, f, keys, vals,
                                   sizeof keys / sizeof *keys);
    if (fp == stdout)
        return st == CM_OK && fflush(stdout) != 0
                   ? cm_error(CM_EIO, "write error on standard output") : st;
    if (st != CM_OK) {
        cm_atomic_abort(&af);
        return cm_error_prefix(st, "%s", path);
    }
    return cm_atomic_commit(&af);
}
