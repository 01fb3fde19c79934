/* topogen_directed.c: directed kinds and `topogen compare` (see
 * topogen_directed.h). The file writer is tg_digraph_save until the
 * shared reader/writer for directed files (src/cm_topo) lands; the header
 * token `directed=1` and the `i j w` lines (i sends, j receives with
 * weight w) are that format's. Epidemic files carry no edges: the
 * trainer draws each round's graph from the run's seed. */
#include "topogen_directed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_eigen.h"
#include "cm_mixing.h"
#include "cm_topo_seq.h"
#include "tg_digraph.h"
#include "tg_digraph_search.h"
#include "tg_hetero.h"
#include "tg_neff.h"
#include "tg_neff_search.h"
#include "tg_neff_weights.h"
#include "tg_search.h"
#include "tg_seq.h"
#include "topogen_data.h"
#include "topogen_neff.h"
#include "topogen_progress.h"
#include "topogen_seq.h"
#include "tg_graph.h"


/* ||W - J||_2 of a dense n x n W, from the eigenvalues of
 * (W - J)^T (W - J). O(n^3). */
cm_status topogen_norm_wj(const double *w, size_t n, double *out)
{
    double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
    double *ev = malloc(n * sizeof *ev), *work = malloc(3 * n * sizeof *work);
    cm_status st = CM_OK;
    if (!a || !b || !ev || !work) {
        st = cm_error(CM_ENOMEM, "out of memory");
        goto cleanup;
    }
    double jn = 1.0 / (double)n;
    for (size_t k = 0; k < n * n; k++)
        a[k] = w[k] - jn;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++) {
            double s = 0.0;
            for (size_t k = 0; k < n; k++)
                s += a[k * n + i] * a[k * n + j];
            b[i * n + j] = b[j * n + i] = s;
        }
    if ((st = cm_eigen_sym_work(CM_EIGEN_VALUES, n, b, ev, work, 3 * n)) !=
        CM_OK)
        goto cleanup;
    *out = sqrt(fmax(ev[n - 1], 0.0));
cleanup:
    free(a);
    free(b);
    free(ev);
    free(work);
    return st;
}

static cm_status digraph_norm(const tg_digraph *g, double *out)
{
    double *w = malloc(g->n * g->n * sizeof *w);
    if (!w)
        return cm_error(CM_ENOMEM, "out of memory");
    tg_digraph_dense(g, w);
    cm_status st = topogen_norm_wj(w, g->n, out);
    free(w);
    return st;
}

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

/* The header of a directed file into buf. */
static void header(const topogen_config *c, const char *extra, char *buf,
                   size_t cap)
{
    char settings[1024];
    topogen_settings_line(c, settings, sizeof settings);
    snprintf(buf, cap,
             "# topogen 2 n=%zu d=%zu kind=%s directed=1 weights=%s "
             "seed=%llu version=%s\n"
             "# settings: %s\n%s"
             "# one `i j w` line per edge i -> j (i sends its model, j "
             "receives it with weight w); W_jj = 1 - sum of j's incoming "
             "weights",
             c->search.n, c->search.d, topogen_kind_name(c),
             c->weights_given ? "neff" : "uniform",
             (unsigned long long)c->search.seed, TOPOGEN_VERSION, settings,
             extra);
}

cm_status topogen_directed_make(topogen_config *c, int *interrupted)
{
    size_t n = c->search.n, s = c->search.d;
    tg_digraph g;
    tg_digraph_init(&g);
    cm_rng rng;
    cm_rng_seed(&rng, c->search.seed, 0);
    cm_status st = CM_OK;
    size_t *perm = NULL;
    char extra[1024] = "", comment[2560], labline[512] = "";
    tg_digraph_search_result res = {0};
    cm_labels lab;
    cm_labels_init(&lab);
    double *pi = NULL, *pibar = NULL;
    *interrupted = 0;
    if (c->dkind == TOPOGEN_D_EPIDEMIC) {
        char settings[1024];
        topogen_settings_line(c, settings, sizeof settings);
        snprintf(comment, sizeof comment,
                 "# topogen 2 n=%zu d=%zu kind=epidemic directed=1 s=%zu "
                 "local=%d epidemic=%s seed=%llu version=%s\n"
                 "# settings: %s\n"
                 "# no edges: every round each node sends to %zu %s; "
                 "dpsgd-train draws the graph from the run's seed",
                 n, s, s, c->local ? 1 : 0, c->local ? "local" : "oracle",
                 (unsigned long long)c->search.seed, TOPOGEN_VERSION,
                 settings, s,
                 c->local ? "peers it samples (EL-Local)"
                          : "others, every node receiving from as many "
                            "(EL-Oracle)");
        tg_digraph empty = {n, 0, NULL, NULL, NULL, NULL};
        /* the trainer draws from its own --seed: the file names none */
        return tg_digraph_save(&empty, c->out, comment);
    }
    if (c->dkind == TOPOGEN_D_EXP) {
        c->search.d = 0;
        while (((size_t)1 << c->search.d) < n)
            c->search.d++;
        st = tg_digraph_exp(&g, n);
    } else if (c->dkind == TOPOGEN_D_PERM) {
        perm = malloc(s * n * sizeof *perm);
        st = perm ? tg_digraph_random_perms(n, s, &rng, perm)
                  : cm_error(CM_ENOMEM, "out of memory");
        if (st == CM_OK)
            st = tg_digraph_from_perms(&g, n, s, perm);
    } else {
        tg_digraph_search_opts o = {0};
        o.n = n;
        o.s = s;
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
        if (c->labels) { /* data-aware: + mu * H (tg_digraph_search.c) */
            if ((st = cm_labels_read(&lab, c->labels)) != CM_OK)
                goto cleanup;
            if (lab.n != n) {
                st = cm_error(CM_EINVAL, "--labels: %s has %zu workers, but "
                              "-n is %zu", c->labels, lab.n, n);
                goto cleanup;
            }
            if ((st = tg_hetero_pi(&lab, &pi, &pibar)) != CM_OK)
                goto cleanup;
            o.pi = pi;
            o.pibar = pibar;
            o.k = lab.k;
            o.hetero_weight = c->search.hetero_weight;
            topogen_data_header_line(&lab, c->labels, labline,
                                     sizeof labline);
        }
        st = tg_digraph_search(&o, &g, &res);
    }
    topogen_neff v = {0};
    double norm = 0.0, lazy_t = 1.0, lazy_neff = 0.0;
    if (st == CM_OK)
        st = topogen_neff_gammas(c->gamma, &v);
    if (st == CM_OK && c->weights_given)
        st = tg_digraph_best_lazy(&g, v.gamma[0], &lazy_t, &lazy_neff);
    /* the header's n_eff is the exact series, O(n^2) memory: above
     * TG_NEFF_DENSE_MAX nodes the line gives the messages only and says
     * so (--help promises these kinds up to 10^6 nodes; eval has the same
     * limit for a directed W) */
    int exact = n <= TG_NEFF_DENSE_MAX;
    if (st == CM_OK && exact)
        st = topogen_neff_digraph(&g, &v);
    else if (st == CM_OK)
        v.msgs = tg_digraph_messages(&g);
    if (st == CM_OK && n <= 2048)
        st = digraph_norm(&g, &norm);
    if (st != CM_OK)
        goto cleanup;
    if (exact)
        snprintf(extra, sizeof extra, "# norm_w_minus_j=%.4f neff=%.4f "
                 "(gamma %g) messages=%.4g%s%s\n", norm, v.neff[0],
                 v.gamma[0], v.msgs, res.interrupted ? " interrupted=1" : "",
                 labline[0] ? labline : "");
    else
        snprintf(extra, sizeof extra, "# messages=%.4g (n_eff and "
                 "||W - J||_2 are computed up to %d nodes)%s%s\n", v.msgs,
                 TG_NEFF_DENSE_MAX,
                 res.interrupted ? " interrupted=1" : "",
                 labline[0] ? labline : "");
    if (c->weights_given) {
        size_t len = strlen(extra);
        snprintf(extra + len, sizeof extra - len, "# neff weights: W = (1 - "
                 "t) I + t W_uniform, t=%.17g (best for n_eff at gamma %g), "
                 "self weight %.6f\n", lazy_t, v.gamma[0], g.self[0]);
    }
    header(c, extra, comment, sizeof comment);
    if ((st = tg_digraph_save(&g, c->out, comment)) != CM_OK)
        goto cleanup;
    if (!c->quiet && c->dkind == TOPOGEN_D_LEARNED)
        fprintf(stderr, "topogen: n=%zu %zu permutations objective=%s%s: "
                "n_eff %.4f (start %.4f) at gamma %g; %zu moves, %zu "
                "accepted, %zu evaluations (%s), %.2f s%s\n", n, s,
                tg_objective_name(c->search.obj),
                c->search.obj == TG_OBJ_RATIO ? " (min ||W - J||_2)" : "",
                res.neff, res.neff_start,
                c->search.obj_gamma > 0.0 ? c->search.obj_gamma
                                          : TG_NEFF_GAMMA,
                res.moves, res.accepted, res.evals,
                c->search.obj == TG_OBJ_RATIO ? "dense eigenvalues"
                : res.estimated              ? "stochastic estimate"
                                             : "exact series",
                res.seconds,
                res.interrupted ? " (interrupted)"
                : res.timed_out ? " (time limit reached)" : "");
    if (!c->quiet && c->labels && c->dkind == TOPOGEN_D_LEARNED)
        fprintf(stderr, "topogen: data-aware: H %.5f (weights 1/(d+1)), "
                "energy with %g * H\n", res.hetero,
                c->search.hetero_weight);
    *interrupted = res.interrupted;
cleanup:
    free(pi);
    free(pibar);
    cm_labels_destroy(&lab);
    free(perm);
    tg_digraph_destroy(&g);
    return st;
}

int topogen_directed_generate(topogen_config *c)
{
    int interrupted = 0;
    c->search.stop = topogen_catch_signals();
    if (topogen_directed_make(c, &interrupted) != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        return EXIT_FAILURE;
    }
    return interrupted ? 130 : EXIT_SUCCESS;
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
            st = digraph_norm(&dg, &norm);
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
