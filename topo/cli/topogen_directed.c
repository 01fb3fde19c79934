/* topogen_directed.c: `topogen compare` (every kind side by side) and the
 * report on an epidemic file (see topogen_directed.h). */
#include "topogen_directed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mixing.h"
#include "cm_rng.h"
#include "cm_topo_seq.h"
#include "tg_digraph.h"
#include "tg_graph.h"
#include "tg_neff.h"
#include "tg_neff_weights.h"
#include "tg_search.h"
#include "tg_seq.h"
#include "topogen_neff_print.h"
#include "topogen_progress.h"


/* n_eff of epidemic learning by Monte Carlo into v (errors set), on the
 * rounds dpsgd-train draws for a run seeded `seed`. */
static cm_status epidemic_neff(size_t n, size_t s, int local, uint64_t seed,
                               topogen_neff *v)
{
    tg_neff_epidemic ep = {s, local, seed, {0}};
    cm_topo_init(&ep.t);
    cm_status st = CM_OK;
    v->msgs = (double)s;
    v->how = local ? "Monte Carlo, EL-Local" : "Monte Carlo, EL-Oracle";
    for (size_t g = 0; g < v->k && st == CM_OK; g++)
        st = tg_neff_mc(n, tg_neff_apply_epidemic, &ep, v->gamma[g], 32, 0,
                        seed, &v->neff[g], &v->err[g]);
    cm_topo_destroy(&ep.t);
    return st;
}

int topogen_epidemic_eval(const char *path, size_t n, size_t s, int local,
                          const char *gamma, uint64_t seed, int json)
{
    topogen_neff v = {0};
    cm_status st = topogen_neff_gammas(gamma, &v);
    if (st == CM_OK)
        st = epidemic_neff(n, s, local, seed, &v);
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s: %s\n", path, cm_last_error());
        return EXIT_FAILURE;
    }
    if (json) {
        int bad = 0;
        json_t *o = json_object();
        topogen_json_str(o, "file", path, &bad);
        topogen_json_int(o, "n", n, &bad);
        topogen_json_str(o, "kind", "epidemic", &bad);
        topogen_json_int(o, "peers", s, &bad);
        topogen_json_set(o, "local", json_boolean(local), &bad);
        topogen_neff_json(&v, o, &bad);
        topogen_json_str(o, "weights", "uniform", &bad);
        if (topogen_json_print(o, bad))
            return EXIT_FAILURE;
    } else {
        printf("file          %s (epidemic: a fresh graph every round)\n",
               path);
        printf("n             %zu\n", n);
        printf("peers         %zu per node per round (%s)\n", s,
               local ? "EL-Local: each node samples" : "EL-Oracle: S "
               "random permutations");
        topogen_neff_print(&v);
    }
    return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* One row of the comparison. */
static void row(const char *name, const char *weights, double slem,
                const char *slem_note, const topogen_neff *v)
{
    printf("%-22s %-10s ", name, weights);
    if (slem_note)
        printf("%-9s", slem_note);
    else if (isfinite(slem))
        printf("%-9.4f", slem);
    else
        printf("%-9s", "-");
    for (size_t g = 0; g < v->k; g++) {
        char cell[32];
        if (isfinite(v->neff[g]) && v->neff[g] > 0.0)
            snprintf(cell, sizeof cell, v->err[g] > 0.0 ? "%.1f+-%.1f"
                                                          : "%.1f",
                     v->neff[g], v->err[g]);
        else
            snprintf(cell, sizeof cell, "-");
        printf(" %-11s", cell);
    }
    if (v->msgs > 0.0 && v->k && v->neff[0] > 0.0)
        printf(" %-6.3g %.2f\n", v->msgs, v->neff[0] / v->msgs);
    else
        printf(" %-6s -\n", "-");
}

/* A symmetric kind built, weighted by rule, and its row. */
static cm_status sym_row(const char *name, cm_topo *t, cm_weight_rule rule,
                         int neffw, topogen_neff *v)
{
    cm_status st;
    tg_neff_weights_result nr;
    const char *wname = cm_weight_rule_name(rule);
    if (neffw) {
        st = t->m <= TG_NEFF_MAX_EDGES ? tg_neff_weights(t, v->gamma[0], &nr)
                                       : tg_neff_alpha(t, v->gamma[0], &nr);
        wname = t->m <= TG_NEFF_MAX_EDGES ? "neff" : "neff-alpha";
    } else {
        st = cm_topo_set_weights(t, rule);
    }
    double slem = NAN;
    if (st == CM_OK)
        st = cm_topo_slem(t, &slem);
    if (st == CM_OK)
        st = topogen_neff_topo(t, v);
    if (st == CM_OK)
        row(name, wname, slem, NULL, v);
    return st;
}

int topogen_compare(topogen_config *c)
{
    size_t n = c->search.n, d = c->search.d;
    topogen_neff v = {0};
    cm_status st = topogen_neff_gammas(c->gamma, &v);
    if (st == CM_OK)
        st = tg_kind_check(TG_KIND_LEARNED, n, d);
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        return EXIT_USAGE;
    }
    printf("# topogen compare -n %zu -d %zu --seed %llu: SLEM (directed: "
           "||W - J||_2; sequences: per-round rate of the period's product, "
           "'exact/P' when it averages exactly), n_eff, models sent per node "
           "per round, n_eff per message (first gamma)\n", n, d,
           (unsigned long long)c->search.seed);
    printf("%-22s %-10s %-9s", "graph", "weights", "slem");
    for (size_t g = 0; g < v.k; g++) {
        char h[24];
        snprintf(h, sizeof h, "neff@%g", v.gamma[g]);
        printf(" %-11s", h);
    }
    printf(" %-6s %s\n", "msgs", "neff/msg");
    fflush(stdout);
    tg_graph g;
    cm_topo t;
    tg_graph_init(&g);
    cm_topo_init(&t);
    /* learned (ratio, the default search), with both weight rules */
    tg_search_opts so = c->search;
    so.obj = TG_OBJ_RATIO;
    so.progress = NULL;
    so.stop = topogen_catch_signals();
    tg_search_result sr;
    st = tg_search_run(&so, &g, &sr);
    if (st == CM_OK)
        st = tg_graph_to_topo(&g, &t);
    if (st == CM_OK)
        st = sym_row("learned (ratio)", &t, CM_WEIGHTS_LAPLACIAN, 0, &v);
    if (st == CM_OK)
        st = sym_row("learned (ratio)", &t, CM_WEIGHTS_MH, 0, &v);
    if (st == CM_OK && t.m <= TG_NEFF_MAX_EDGES)
        st = sym_row("learned (ratio)", &t, CM_WEIGHTS_MH, 1, &v);
    static const struct {
        tg_kind kind;
        const char *name;
    } base[] = {{TG_KIND_RANDOM, "random regular"},
                {TG_KIND_RRL, "ring lattice"}};
    for (size_t k = 0; k < 2 && st == CM_OK; k++) {
        cm_rng rng;
        cm_rng_seed(&rng, c->search.seed, 0);
        cm_topo_destroy(&t);
        st = tg_kind_build(&t, base[k].kind, n, d, &rng);
        if (st == CM_OK)
            st = sym_row(base[k].name, &t, CM_WEIGHTS_LAPLACIAN, 0, &v);
        if (st == CM_OK)
            st = sym_row(base[k].name, &t, CM_WEIGHTS_MH, 0, &v);
    }
    /* sequences: one-peer exponential (n a power of two), Base-D */
    for (int k = 0; k < 2 && st == CM_OK; k++) {
        tg_seq_kind sk = k ? TG_SEQ_BASE : TG_SEQ_ONE_PEER_EXP;
        size_t sd = k ? (d > 1 ? d - 1 : 1) : 1;
        char name[32];
        snprintf(name, sizeof name, k ? "Base-%zu" : "one-peer exponential",
                 sd + 1);
        if (tg_seq_check(sk, n, sd) != CM_OK) {
            printf("%-22s (not defined for n = %zu)\n", name, n);
            continue;
        }
        cm_topo_seq s;
        cm_topo_seq_init(&s);
        tg_seq_eval e;
        st = tg_seq_build(&s, sk, n, sd);
        if (st == CM_OK)
            st = tg_seq_evaluate(&s, NULL, &e);
        if (st == CM_OK)
            st = topogen_neff_seq(&s, &v);
        if (st == CM_OK) {
            char note[24];
            snprintf(note, sizeof note, "exact/%zu", e.period);
            row(name, "file", e.exact ? NAN : pow(e.norm, 1.0 /
                                                  (double)e.period),
                e.exact ? note : NULL, &v);
        }
        cm_topo_seq_destroy(&s);
    }
    /* directed: D permutations, the exponential graph, epidemic */
    tg_digraph dg;
    tg_digraph_init(&dg);
    size_t *perm = malloc((d * n + 1) * sizeof *perm);
    if (st == CM_OK && !perm)
        st = cm_error(CM_ENOMEM, "out of memory");
    for (int k = 0; k < 2 && st == CM_OK; k++) {
        cm_rng rng;
        cm_rng_seed(&rng, c->search.seed, 0);
        if (k == 0) {
            st = tg_digraph_random_perms(n, d, &rng, perm);
            if (st == CM_OK)
                st = tg_digraph_from_perms(&dg, n, d, perm);
        } else {
            st = tg_digraph_exp(&dg, n);
        }
        double norm = NAN;
        if (st == CM_OK)
            st = topogen_neff_digraph(&dg, &v);
        if (st == CM_OK && n <= 2048)
            st = topogen_digraph_norm(&dg, &norm);
        if (st == CM_OK)
            row(k ? "exp-directed" : "perm (directed)", "uniform", norm,
                NULL, &v);
    }
    if (st == CM_OK && n <= 1024) {
        st = epidemic_neff(n, d, 0, c->search.seed, &v);
        if (st == CM_OK)
            row("epidemic (EL-Oracle)", "uniform", NAN, "fresh", &v);
    }
    if (st == CM_OK) { /* Ramanujan: lambda in [d - 2 sqrt(d-1), d + ...] */
        topogen_neff r = v;
        for (size_t k = 0; k < r.k; k++)
            r.neff[k] = NAN, r.err[k] = 0.0;
        r.msgs = (double)d;
        row("Ramanujan bound", "laplacian", 2.0 * sqrt((double)d - 1.0) /
                                                 (double)d, NULL, &r);
    }
    free(perm);
    tg_digraph_destroy(&dg);
    cm_topo_destroy(&t);
    tg_graph_destroy(&g);
    if (st != CM_OK) {
        fprintf(stderr, "topogen: compare: %s\n", cm_last_error());
        return EXIT_FAILURE;
    }
    return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
