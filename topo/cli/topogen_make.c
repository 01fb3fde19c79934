/* topogen_make.c: build, weight, measure and write the topology of a
 * topogen_config (see topogen_make.h). This is the body of `topogen`'s
 * generation without its printing, so that topogen's main and the public
 * library (topo/api/topogen_api.c) produce the same bytes for the same
 * settings: the header is built here from the one settings line of
 * topogen_cli.c's flag table.
 */
#include "topogen_make.h"

#include <stdio.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_mixing.h"
#include "cm_rng.h"
#include "tg_catalog.h"
#include "tg_graph.h"
#include "tg_groups.h"
#include "tg_igraph.h"
#include "topogen_eval.h"
#include "topogen_neff.h"
#include "tg_neff_search.h"

void topogen_made_init(topogen_made *m)
{
    memset(m, 0, sizeof *m);
    cm_topo_init(&m->t);
    cm_topo_seq_init(&m->seq);
}

void topogen_made_destroy(topogen_made *m)
{
    if (!m)
        return;
    cm_topo_destroy(&m->t);
    cm_topo_seq_destroy(&m->seq);
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
    if (o->obj == TG_OBJ_NEFF || o->obj == TG_OBJ_NEFF_MSG) {
        if (!o->iters) /* the n_eff hook's moves are cheap: 4x below 512 */
            o->iters = tg_search_default_iters(o->n, o->d) *
                       (o->n < 512 ? 4 : 1);
        if (!(o->t0 > 0.0))
            o->t0 = TG_HOOK_T0 / (double)o->n;
    }
    tg_search_opts_resolve(o); /* the rest, as the search resolves them */
}

/* The time-varying kinds: the rounds, their figures and the header. */
static cm_status make_seq(const topogen_config *c, topogen_made *m)
{
    cm_status st = tg_seq_build(&m->seq, c->seq_kind, c->search.n,
                                c->search.d);
    if (st == CM_OK)
        st = tg_seq_evaluate(&m->seq, NULL, &m->se);
    if (st != CM_OK)
        return st;
    topogen_settings_line(c, m->settings, sizeof m->settings);
    snprintf(m->comment, sizeof m->comment,
             "# topogen 2 n=%zu d=%zu kind=%s period=%zu seed=%llu "
             "version=%s\n"
             "# settings: %s\n"
             "# product_norm=%.3g exact=%d messages_per_period=%.4g\n"
             "# one `# round R` section per round, `i j W_ij` lines; "
             "W_ii = 1 - sum_j W_ij",
             m->seq.n, m->se.dmax, tg_seq_kind_name(c->seq_kind),
             m->seq.period, (unsigned long long)c->search.seed,
             TOPOGEN_VERSION, m->settings, m->se.norm, m->se.exact,
             m->se.messages);
    return CM_OK;
}

cm_status topogen_make(topogen_config *c, topogen_made *m)
{
    if (c->seq)
        return make_seq(c, m);
    tg_graph g;
    tg_graph_init(&g);
    cm_status st;
    if (c->kind == TG_KIND_LEARNED) {
        topogen_resolve_defaults(&c->search);
        tg_energy_hook hook;
        tg_neff_hook_cfg hcfg = {c->search.obj_gamma > 0.0
                                     ? c->search.obj_gamma : TG_NEFF_GAMMA,
                                 TG_NEFF_PROBES, -1, c->search.seed};
        if (c->search.obj == TG_OBJ_NEFF || c->search.obj == TG_OBJ_NEFF_MSG) {
            tg_neff_hook(&hook, &hcfg);
            c->search.hook = &hook;
        }
        st = tg_search_run(&c->search, &g, &m->res);
        c->search.hook = NULL; /* hook and hcfg end here */
        if (st == CM_OK)
            st = tg_graph_to_topo(&g, &m->t);
        if (st == CM_OK)
            st = catalog_check(c, m);
    } else {
        cm_rng rng;
        cm_rng_seed(&rng, c->search.seed, 0);
        st = tg_kind_build(&m->t, c->kind, c->search.n, c->search.d, &rng);
    }
    tg_graph_destroy(&g);
    topogen_neff wg = {0};
    if (st == CM_OK)
        st = topogen_neff_gammas(c->gamma, &wg);
    if (st == CM_OK)
        st = topogen_weights_set(c->fdla, c->weights, wg.gamma[0], &m->t,
                                 &m->fr, &m->nr);
    if (st == CM_OK)
        st = cm_topo_spectra(&m->t, &m->l2, &m->ln, &m->slem);
    if (st != CM_OK)
        return st;
    size_t dmin, dmax;
    cm_topo_degree_range(&m->t, &dmin, &dmax);
    char fl[384];
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
    snprintf(m->comment, sizeof m->comment,
             "# topogen 2 n=%zu d=%zu kind=%s objective=%s weights=%s "
             "seed=%llu version=%s%s\n"
             "# settings: %s%s\n"
             "# lambda2=%.4f lambdan=%.4f slem=%.4f%s\n"
             "# one `i j W_ij` line per edge; W_ii = 1 - sum_j W_ij",
             m->t.n, dmax, topogen_kind_name(c),
             tg_objective_name(c->search.obj),
             topogen_weights_name(c->fdla, c->weights),
             (unsigned long long)c->search.seed, TOPOGEN_VERSION,
             m->res.interrupted ? " interrupted=1" : "", m->settings,
             m->labline, m->l2, m->ln, m->slem, fl);
    return CM_OK;
}

cm_status topogen_made_write(const topogen_config *c, const topogen_made *m,
                             const char *path, cm_topo_format f)
{
    if (c->seq) {
        if (f != CM_FORMAT_EDGELIST && f != CM_FORMAT_AUTO)
            return cm_error(CM_EINVAL, "--format: --kind %s writes one edge "
                            "list section per round (--format edgelist)",
                            tg_seq_kind_name(c->seq_kind));
        return cm_topo_seq_save(&m->seq, path, m->comment);
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
