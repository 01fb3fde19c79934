/* ta_price.c: the communication patterns of `topogen plan`, priced (see
 * ta_price.h). With one worker per host every D-regular graph costs the
 * same round, so the learned graphs are priced by the random one instead
 * of searched; with several workers per host they are searched as
 * topogen would (seconds at n = 256).
 */
#include "ta_price.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mixing.h"
#include "cm_place.h"
#include "cm_rng.h"
#include "tg_dcliques.h"
#include "tg_graph.h"
#include "tg_groups.h"
#include "tg_seq.h"
#include "topogen_make.h"

void ta_plan_skip(ta_plan *p, const char *what)
{
    size_t len = strlen(p->skipped);
    if (strstr(p->skipped, what))
        return;
    snprintf(p->skipped + len, sizeof p->skipped - len, "%s%s",
             len ? "; " : "", what);
}

void ta_shell_word(const char *v, char *buf, size_t cap)
{
    if (strpbrk(v, ";& ()|<>$'\""))
        snprintf(buf, cap, "'%s'", v);
    else
        snprintf(buf, cap, "%s", v);
}

/* libnbc's number of each flat algorithm (coll_libnbc_iallreduce_algorithm) */
static int libnbc_number(cm_net_ar_alg a)
{
    return a == CM_AR_RING ? 1 : a == CM_AR_BINOMIAL ? 2
           : a == CM_AR_RABENSEIFNER ? 3 : a == CM_AR_RDOUBLING ? 4 : 0;
}

static price *new_price(ta_ctx *x, const char *graph)
{
    price *g = &x->g[x->ng++];
    memset(g, 0, sizeof *g);
    snprintf(g->graph, sizeof g->graph, "%s", graph);
    g->slem = NAN;
    return g;
}

price *ta_price_of(ta_ctx *x, const char *graph)
{
    for (size_t k = 0; k < x->ng; k++)
        if (!strcmp(x->g[k].graph, graph))
            return x->g[k].ok ? &x->g[k] : NULL;
    return NULL;
}

int ta_price_size(ta_ctx *x, double bytes)
{
    if (!x->nsizes)
        x->sizes[x->nsizes++] = x->bytes;
    for (size_t k = 0; k < x->nsizes; k++)
        if (x->sizes[k] == bytes)
            return 0;
    if (x->nsizes == TA_NSIZES)
        return -1;
    x->sizes[x->nsizes++] = bytes;
    return 0;
}

double ta_price_at(const ta_ctx *x, const price *g, double bytes)
{
    if (!g && bytes == x->bytes)
        return x->ar.time_s;
    if (!g) {
        cm_net_ar m;
        if (cm_net_allreduce_model(x->o->net, x->ar.alg, x->n, x->S, bytes,
                                   &m, NULL, NULL) != CM_OK) {
            cm_error_clear();
            return NAN;
        }
        return m.time_s;
    }
    for (size_t k = 0; k < x->nsizes; k++)
        if (x->sizes[k] == bytes)
            return g->round_at[k];
    return NAN;
}

/* t's round at every size priced, from one placement: ev[0..nsizes) the
 * message sizes, ev[nsizes] one array, ev[nsizes + 1] two (GT) */
static cm_status rounds(const ta_ctx *x, const cm_topo *t, cm_place_kind kind,
                        cm_net_eval ev[TA_NSIZES + 2])
{
    double bytes[TA_NSIZES + 2];
    size_t nb = x->nsizes;
    memcpy(bytes, x->sizes, nb * sizeof *bytes);
    bytes[nb] = x->bytes;
    bytes[nb + 1] = 2 * x->bytes;
    return cm_net_eval_placement_sizes(x->o->net, t, x->n, x->S, kind, nb + 2,
                                       bytes, ev);
}

static cm_status price_graph(ta_ctx *x, price *g, const cm_topo *t, int block)
{
    cm_net_eval ev[TA_NSIZES + 2];
    size_t nb = x->nsizes;
    cm_status st = rounds(x, t, block ? CM_PLACE_BLOCK : CM_PLACE_GRAPH, ev);
    for (size_t k = 0; k < nb; k++)
        g->round_at[k] = st == CM_OK ? ev[k].round_s : NAN;
    if (st == CM_OK) {
        g->round_s = ev[nb].round_s;
        g->round2_s = ev[nb + 1].round_s;
    }
    g->block = block;
    g->ok = st == CM_OK;
    if (st == CM_OK && t->adj_w)
        cm_topo_slem(t, &g->slem);
    cm_error_clear();
    return st;
}

/* learned (groups 0) or host-aware as `topogen` builds it */
static cm_status learned(ta_ctx *x, size_t groups, cm_topo *out)
{
    topogen_config c;
    topogen_config_default(&c);
    c.search.n = x->n;
    c.search.d = x->d;
    c.search.seed = x->o->seed;
    c.search.groups = groups;
    c.quiet = 1;
    topogen_made m;
    topogen_made_init(&m);
    cm_status st = topogen_make(&c, &m);
    if (st == CM_OK) {
        *out = m.t;
        cm_topo_init(&m.t);
    }
    topogen_made_destroy(&m);
    return st;
}

cm_status ta_prices(ta_ctx *x)
{
    const ta_plan_opts *o = x->o;
    if (ta_price_size(x, x->bytes) != 0) /* sizes[0]: the whole array */
        return cm_error(CM_ENOMEM, "message sizes");
    char base[200];
    snprintf(base, sizeof base, "topogen -n %zu -d %zu --weights laplacian "
             "--seed %llu", x->n, x->d, o->seed);
    cm_topo rr, t;
    cm_topo_init(&rr);
    cm_topo_init(&t);
    cm_rng rng;
    cm_rng_seed(&rng, o->seed, 0);
    /* per-host links or sites: which hosts a graph joins changes its
     * round */
    int one_each = x->S == x->n && !o->net->hosts && o->net->sites <= 1;
    cm_status st = tg_kind_build(&rr, TG_KIND_RANDOM, x->n, x->d, &rng);
    if (st == CM_OK)
        st = cm_topo_set_weights(&rr, CM_WEIGHTS_LAPLACIAN);
    price *g;
    if (st == CM_OK) {
        g = new_price(x, "random");
        snprintf(g->topogen, sizeof g->topogen, "%s --kind random -o "
                 "random.txt", base);
        snprintf(g->file, sizeof g->file, "random.txt");
        st = price_graph(x, g, &rr, 0);
    }
    /* learned: with one worker per host on alike links every D-regular
     * graph costs the same round, so it is priced by the random graph,
     * not searched */
    if (st == CM_OK) {
        g = new_price(x, "learned");
        snprintf(g->topogen, sizeof g->topogen, "%s -o learned.txt", base);
        snprintf(g->file, sizeof g->file, "learned.txt");
        if (one_each) {
            st = price_graph(x, g, &rr, 0);
            g->slem = NAN;
            snprintf(g->note, sizeof g->note, "round priced as any "
                     "%zu-regular graph (one worker per host)", x->d);
        } else if ((st = learned(x, 0, &t)) == CM_OK)
            st = price_graph(x, g, &t, 0);
    }
    if (st == CM_OK) {
        price *l = &x->g[x->ng - 1];
        g = new_price(x, "aware");
        *g = *l;
        snprintf(g->graph, sizeof g->graph, "aware");
        g->slem = NAN;
        const char *part = o->partition ? o->partition : "dirichlet:0.1";
        if (o->labels_path)
            snprintf(g->topogen, sizeof g->topogen, "%s --hetero-weight 10 "
                     "--labels %s -o aware.txt", base, o->labels_path);
        else
            snprintf(g->topogen, sizeof g->topogen, "dpsgd-train --epochs 0 "
                     "--workers %zu --partition %s --seed %llu --quiet "
                     "--write-partition counts.txt && %s --hetero-weight 10 "
                     "--labels counts.txt -o aware.txt", x->n, part, o->seed,
                     base);
        snprintf(g->file, sizeof g->file, "aware.txt");
        snprintf(g->note, sizeof g->note, "round priced as the learned "
                 "graph (same degree; not searched here)");
    }
    if (st == CM_OK) {
        cm_rng_seed(&rng, o->seed, 0);
        cm_topo_destroy(&t);
        st = tg_kind_build(&t, TG_KIND_RRL, x->n, x->d, &rng);
        if (st == CM_OK)
            st = cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN);
        g = new_price(x, "rrl");
        snprintf(g->topogen, sizeof g->topogen, "%s --kind rrl -o rrl.txt",
                 base);
        snprintf(g->file, sizeof g->file, "rrl.txt");
        if (st == CM_OK)
            st = price_graph(x, g, &t, 0);
    }
    if (st == CM_OK && tg_seq_check(TG_SEQ_ONE_PEER_EXP, x->n, 1) == CM_OK) {
        cm_topo_seq s;
        cm_topo_seq_init(&s);
        st = tg_seq_build(&s, TG_SEQ_ONE_PEER_EXP, x->n, 1);
        double sum = 0, sum2 = 0, at[TA_NSIZES] = {0};
        for (size_t k = 0; st == CM_OK && k < s.period; k++) {
            cm_net_eval ev[TA_NSIZES + 2];
            st = rounds(x, &s.round[k], CM_PLACE_BLOCK, ev);
            for (size_t b = 0; st == CM_OK && b < x->nsizes; b++)
                at[b] += ev[b].round_s;
            if (st == CM_OK) {
                sum += ev[x->nsizes].round_s;
                sum2 += ev[x->nsizes + 1].round_s;
            }
        }
        if (st == CM_OK) {
            g = new_price(x, "opexp");
            g->ok = 1;
            g->block = 1;
            g->round_s = sum / (double)s.period;
            g->round2_s = sum2 / (double)s.period;
            for (size_t b = 0; b < x->nsizes; b++)
                g->round_at[b] = at[b] / (double)s.period;
            snprintf(g->topogen, sizeof g->topogen, "topogen -n %zu --kind "
                     "one-peer-exp -o ope.txt", x->n);
            snprintf(g->file, sizeof g->file, "ope.txt");
            snprintf(g->note, sizeof g->note, "time-varying, %zu rounds: the "
                     "mean round, in blocks", s.period);
        }
        cm_topo_seq_destroy(&s);
    } else if (st == CM_OK) {
        ta_plan_skip(x->p, "one-peer exponential (n not a power of two)");
        cm_error_clear();
    }
    /* the host-aware graph: groups = hosts when several workers share a
     * host; with one worker per host on a platform of sites, groups =
     * sites (the committed 4-site runs' --groups 4) */
    int sites = x->S == x->n && o->net->sites > 1 && !o->net->hosts;
    size_t groups = x->S > 1 && x->S < x->n ? x->S
                    : sites ? o->net->sites : 0;
    const char *unit = sites ? "sites" : "hosts";
    if (st == CM_OK && groups &&
        tg_groups_check(x->n, x->d, groups, tg_groups_min_cross(groups)) !=
            CM_OK) {
        char why[300];
        snprintf(why, sizeof why, "host-aware graphs (%s)", cm_last_error());
        ta_plan_skip(x->p, why);
        cm_error_clear();
    } else if (st == CM_OK && groups) {
        cm_topo_destroy(&t);
        g = new_price(x, "hosts");
        snprintf(g->topogen, sizeof g->topogen, "%s --groups %zu -o "
                 "hosts.txt", base, groups);
        snprintf(g->file, sizeof g->file, "hosts.txt");
        snprintf(g->note, sizeof g->note, "learned with at most the fewest "
                 "edges between %s (groups = %s, placed in blocks)", unit,
                 unit);
        if ((st = learned(x, groups, &t)) == CM_OK)
            st = price_graph(x, g, &t, 1);
    }
    if (st == CM_OK && o->labels) {
        tg_dcliques_result res;
        cm_topo_destroy(&t);
        st = tg_dcliques_build(o->labels, TG_INTER_SMALL_WORLD, 0, o->seed,
                               1000 + 20 * x->n, &t, &res);
        if (st == CM_OK) {
            free(res.clique);
            g = new_price(x, "dcliques");
            snprintf(g->topogen, sizeof g->topogen, "topogen -n %zu --kind "
                     "dcliques --labels %s --seed %llu -o dcliques.txt",
                     x->n, o->labels_path, o->seed);
            snprintf(g->file, sizeof g->file, "dcliques.txt");
            st = price_graph(x, g, &t, 0);
        }
    }
    cm_topo_destroy(&rr);
    cm_topo_destroy(&t);
    if (st != CM_OK)
        return st;
    st = cm_net_allreduce_model(o->net, CM_AR_BEST, x->n, x->S, x->bytes,
                                &x->ar, NULL, NULL);
    if (st != CM_OK)
        return st;
    x->flat = x->ar;
    int hier = x->ar.alg == CM_AR_HIER || x->ar.alg == CM_AR_HIER_SITE;
    for (int a = CM_AR_RING; a <= CM_AR_BINOMIAL && hier; a++) {
        cm_net_ar m;
        st = cm_net_allreduce_model(o->net, (cm_net_ar_alg)a, x->n, x->S,
                                    x->bytes, &m, NULL, NULL);
        if (st != CM_OK)
            return st;
        if (a == CM_AR_RING || m.time_s < x->flat.time_s)
            x->flat = m;
    }
    /* the direct all-reduce (dpsgd-train --allreduce direct) posts its
     * messages together, as a gossip round does: priced by the same rule,
     * it competes with the library's algorithms */
    cm_net_ar d;
    st = cm_net_allreduce_model(o->net, CM_AR_DIRECT, x->n, x->S, x->bytes,
                                &d, NULL, NULL);
    if (st != CM_OK)
        return st;
    if (d.time_s < x->flat.time_s)
        x->flat = d;
    if (d.time_s < x->ar.time_s)
        x->ar = d;
    cm_net_ar_alg auto_alg = cm_net_allreduce_openmpi(x->n, x->bytes, 0, 1);
    if (libnbc_number(x->flat.alg) && x->flat.alg != auto_alg)
        snprintf(x->mca, sizeof x->mca, "--mca "
                 "coll_libnbc_iallreduce_algorithm %d ",
                 libnbc_number(x->flat.alg));
    return CM_OK;
}

