/* topogen: learn fast-mixing topologies, build baselines, evaluate files.
 *
 *   topogen [-n N] [-d D] [--kind KIND] [--weights RULE] [--objective OBJ]
 *           [--init random|rrl] [--seed S] [--iters K] [--restarts R]
 *           [--time-limit SEC] [--t0 T] [--t1 T] [--no-screen]
 *           [--candidates C] [--eigensolver S] [--threads T]
 *           [--groups G [--max-cross C]] [--format FMT] [-o FILE] [--quiet]
 *   topogen eval FILE [--weights RULE] [--json] [--simulate ROUNDS]
 *           [--seed S] [--format FMT] [--one-based] [--groups G] [-o OUT]
 *
 * main only parses flags into a topogen_config (topogen_cli.c: one
 * table, FLAGS, drives parsing, the usage text and the file header; it
 * validates them before any heavy work), calls the tg_ library and
 * reports. This file builds, learns and writes a graph; `topogen eval` is
 * topogen_eval.c, the time-varying kinds topogen_seq.c. Flags take
 * `--flag value` or `--flag=value`. Exit status: 0 success, 1 a runtime
 * failure (file unreadable or invalid, output not writable), 2 a usage
 * error.
 */
#include <igraph.h>
#include <gsl/gsl_errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_atomic.h"
#include "cm_mixing.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "tg_catalog.h"
#include "tg_fdla.h"
#include "tg_graph.h"
#include "tg_igraph.h"
#include "tg_groups.h"
#include "tg_search.h"
#include "topogen_cli.h"
#include "topogen_eval.h"
#include "topogen_progress.h"
#include "topogen_seq.h"

extern void openblas_set_num_threads(int num_threads);

/* Replaces the search's automatic settings by the values they resolve to,
 * so that the header records them (the search then runs the same way). */
static void resolve_defaults(tg_search_opts *o)
{
    if (!o->iters)
        o->iters = tg_search_default_iters(o->n, o->d);
    if (!o->restarts)
        o->restarts = tg_search_default_restarts(o->n);
    if (!o->candidates)
        o->candidates = tg_search_default_candidates(o->n);
    if (o->solver == TG_SOLVER_AUTO)
        o->solver = o->n >= TG_SEARCH_SPARSE_FROM ? TG_SOLVER_SPARSE
                                                  : TG_SOLVER_DENSE;
    if (!(o->t0 > 0.0))
        o->t0 = tg_search_default_t0(o->n);
    if (!(o->t1 > 0.0))
        o->t1 = o->t0 / 100.0;
    if (o->groups && !o->max_cross)
        o->max_cross = tg_groups_min_cross(o->groups);
}

/* Writes t in c's format to path ("-" stdout) atomically. */
static cm_status write_topology(const topogen_config *c, const cm_topo *t,
                                const char *comment, const char *settings,
                                double l2, double ln, double slem)
{
    if (c->format == CM_FORMAT_EDGELIST || c->format == CM_FORMAT_NCOL) {
        const char *cm = c->format == CM_FORMAT_NCOL ? NULL : comment;
        return cm_topo_save(t, c->out, cm);
    }
    char nbuf[32], dbuf[32], l2b[32], lnb[32], sb[32], seed[32];
    size_t dmin, dmax;
    cm_topo_degree_range(t, &dmin, &dmax);
    snprintf(nbuf, sizeof nbuf, "%zu", t->n);
    snprintf(dbuf, sizeof dbuf, "%zu", dmax);
    snprintf(l2b, sizeof l2b, "%.17g", l2);
    snprintf(lnb, sizeof lnb, "%.17g", ln);
    snprintf(sb, sizeof sb, "%.17g", slem);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->search.seed);
    const char *keys[] = {"topogen", "n", "d", "kind", "weights", "seed",
                          "settings", "lambda2", "lambdan", "slem",
                          "self_weights"};
    const char *vals[] = {TOPOGEN_VERSION, nbuf, dbuf, tg_kind_name(c->kind),
                          topogen_weights_name(c->fdla, c->weights), seed,
                          settings, l2b, lnb, sb,
                          "implied: W_ii = 1 - sum_j W_ij"};
    FILE *fp = stdout;
    cm_afile f = {0};
    if (strcmp(c->out, "-") != 0) {
        cm_status st = cm_atomic_open(&f, c->out);
        if (st != CM_OK)
            return st;
        fp = f.fp;
    }
    cm_status st = tg_igraph_write(t, fp, c->format, keys, vals,
                                   sizeof keys / sizeof *keys);
    if (fp == stdout)
        return st == CM_OK && fflush(stdout) != 0
                   ? cm_error(CM_EIO, "write error on standard output") : st;
    if (st != CM_OK) {
        cm_atomic_abort(&f);
        return cm_error_prefix(st, "%s", c->out);
    }
    return cm_atomic_commit(&f);
}

/* For the ratio objective at n <= 20 without groups: replaces the
 * learned t by a catalogue graph of the same (n, d) with a lower energy
 * (tg_catalog.h: K_{d,d}, Petersen, Paley, ...), saying so unless quiet. */
static cm_status catalog_check(const topogen_config *c, cm_topo *t)
{
    size_t n = c->search.n, d = c->search.d;
    if (c->search.obj != TG_OBJ_RATIO || c->search.groups || n > 20)
        return CM_OK;
    double l2, ln;
    cm_status st = cm_topo_laplacian_extremes(t, &l2, &ln);
    double best = tg_objective_energy(c->search.obj, d, l2, ln);
    for (size_t k = 0; st == CM_OK && k < tg_catalog_count(n, d); k++) {
        cm_topo u;
        cm_topo_init(&u);
        const char *name = "";
        st = tg_catalog_build(n, d, k, &u, &name);
        if (st == CM_OK)
            st = cm_topo_laplacian_extremes(&u, &l2, &ln);
        double e = tg_objective_energy(c->search.obj, d, l2, ln);
        if (st == CM_OK && e < best - 1e-12) {
            if (!c->quiet)
                fprintf(stderr, "topogen: the catalogue's %s graph beats the "
                        "search (energy %.6f < %.6f): using it\n", name, e,
                        best);
            best = e;
            cm_topo_destroy(t);
            *t = u;
            cm_topo_init(&u);
        }
        cm_topo_destroy(&u);
    }
    return st;
}

/* Builds (or learns) the graph, weights it and writes it. */
static int generate(topogen_config *c)
{
    tg_graph g;
    cm_topo t;
    tg_graph_init(&g);
    cm_topo_init(&t);
    int rc = EXIT_FAILURE;
    cm_status st;
    tg_search_result res = {0};
    tg_fdla_result fr;
    if (strcmp(c->out, "-") != 0) { /* fail on an unwritable -o up front */
        cm_afile probe;
        if (cm_atomic_open(&probe, c->out) != CM_OK) {
            fprintf(stderr, "topogen: -o: %s\n", cm_last_error());
            return EXIT_FAILURE;
        }
        cm_atomic_abort(&probe);
    }
    int tty = isatty(STDERR_FILENO);
    if (c->kind == TG_KIND_LEARNED) {
        resolve_defaults(&c->search);
        if (!c->quiet) {
            c->search.progress = topogen_progress;
            c->search.ctx = &tty;
        }
        c->search.stop = topogen_catch_signals();
        st = tg_search_run(&c->search, &g, &res);
        if (tty == 2)
            fputc('\n', stderr);
        if (st == CM_OK)
            st = tg_graph_to_topo(&g, &t);
        if (st == CM_OK)
            st = catalog_check(c, &t);
    } else {
        cm_rng rng;
        cm_rng_seed(&rng, c->search.seed, 0);
        st = tg_kind_build(&t, c->kind, c->search.n, c->search.d, &rng);
    }
    if (st == CM_OK)
        st = topogen_weights_set(c->fdla, c->weights, &t, &fr);
    double l2 = 0, ln = 0, slem = 0;
    if (st == CM_OK)
        st = cm_topo_laplacian_extremes(&t, &l2, &ln);
    if (st == CM_OK)
        st = cm_topo_slem(&t, &slem);
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        goto cleanup;
    }
    size_t dmin, dmax;
    cm_topo_degree_range(&t, &dmin, &dmax);
    char settings[1024], comment[1792], fl[384];
    topogen_settings_line(c, settings, sizeof settings);
    topogen_fdla_line(c->fdla, &fr, fl, sizeof fl);
    if (c->search.groups) { /* the cut, after any fdla line */
        size_t len = strlen(fl);
        snprintf(fl + len, sizeof fl - len, "\n# groups=%zu (ids in blocks "
                 "of %zu) cross_edges=%zu max_cross=%zu", c->search.groups,
                 c->search.n / c->search.groups, res.cross,
                 c->search.max_cross);
    }
    snprintf(comment, sizeof comment,
             "# topogen 2 n=%zu d=%zu kind=%s objective=%s weights=%s "
             "seed=%llu version=%s%s\n"
             "# settings: %s\n"
             "# lambda2=%.4f lambdan=%.4f slem=%.4f%s\n"
             "# one `i j W_ij` line per edge; W_ii = 1 - sum_j W_ij",
             t.n, dmax, tg_kind_name(c->kind),
             tg_objective_name(c->search.obj),
             topogen_weights_name(c->fdla, c->weights),
             (unsigned long long)c->search.seed, TOPOGEN_VERSION,
             res.interrupted ? " interrupted=1" : "", settings, l2, ln, slem,
             fl);
    st = write_topology(c, &t, comment, settings, l2, ln, slem);
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        goto cleanup;
    }
    char cross[96] = "";
    if (c->search.groups)
        snprintf(cross, sizeof cross, "; %zu of %zu edges between the %zu "
                 "groups (at most %zu)", res.cross, t.m, c->search.groups,
                 c->search.max_cross);
    if (!c->quiet && c->kind == TG_KIND_LEARNED)
        fprintf(stderr, "topogen: n=%zu d=%zu objective=%s: energy %.5f "
                "(start %.5f), slem=%.4f with %s weights; %zu moves, %zu "
                "eigensolves, %zu screened, %zu vector solves, %zu "
                "products, %s eigensolver, %zu threads, %.2f s%s%s\n",
                c->search.n, c->search.d, tg_objective_name(c->search.obj),
                res.energy, res.start_energy, slem,
                topogen_weights_name(c->fdla, c->weights), res.moves,
                res.evals,
                res.screened, res.vector_solves, res.matvecs,
                res.sparse ? "sparse" : "dense", res.threads, res.seconds,
                res.interrupted ? " (interrupted)"
                : res.timed_out ? " (time limit reached)" : "", cross);
    if (!c->quiet && c->fdla)
        fprintf(stderr, "topogen: fdla weights: slem %.6f (constant "
                "Laplacian %.6f), certified lower bound %.6f, %zu negative "
                "edge weights, %zu Newton steps, %.2f s\n", fr.slem,
                fr.slem_start, fr.lower, fr.negative, fr.newton, fr.seconds);
    rc = EXIT_SUCCESS;
    if (res.interrupted) { /* the best graph is written; still a failure */
        fprintf(stderr, "topogen: interrupted by signal %d: wrote the best "
                "graph found so far (header: interrupted=1)\n",
                (int)*c->search.stop);
        rc = 128 + (int)*c->search.stop;
    }
cleanup:
    cm_topo_destroy(&t);
    tg_graph_destroy(&g);
    return rc;
}

/* Builds a time-varying kind and writes it (topogen_seq.c). */
static int generate_seq(const topogen_config *c)
{
    char settings[1024];
    topogen_settings_line(c, settings, sizeof settings);
    const topogen_seq_job job = {c->seq_kind, c->search.n, c->search.d,
                                 c->search.seed, settings, TOPOGEN_VERSION,
                                 c->out, c->quiet};
    return topogen_seq_generate(&job);
}

/* `topogen eval FILE` (topogen_eval.c), with c's eval flags. */
static int evaluate(const topogen_config *c)
{
    const topogen_eval_job job = {
        .file = c->file, .format = c->format, .one_based = c->one_based,
        .json = c->json, .simulate = c->simulate, .seed = c->search.seed,
        .groups = c->search.groups, .weights = c->weights, .fdla = c->fdla,
        .weights_given = c->weights_given, .out = c->out,
        .out_given = c->out_given, .quiet = c->quiet, .net = c->net,
        .params = c->params, .ranks = c->ranks, .hosts = c->hosts,
        .version = TOPOGEN_VERSION};
    return topogen_evaluate(&job);
}

int main(int argc, char **argv)
{
    /* no library may abort the process: errors come back as codes */
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    gsl_set_error_handler_off();
    openblas_set_num_threads(1);

    topogen_config c;
    topogen_config_default(&c);
    int rc = topogen_parse_args(argc, argv, &c);
    if (rc >= 0)
        return rc;
    if (c.eval)
        return evaluate(&c);
    return c.seq ? generate_seq(&c) : generate(&c);
}
