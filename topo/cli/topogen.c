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
 * main only parses flags into a topogen_config (topogen_cli.c, over the
 * settings schema of topo/make/topogen_settings.c, which validates them
 * before any heavy work), runs the command from a table, and reports:
 * generation calls topo/make/ (shared with libtopogen), whose kind table
 * builds, learns and writes any kind; `topogen eval` is topogen_eval.c
 * and topogen_seq.c. Flags take
 * `--flag value` or `--flag=value`. Exit status: 0 success, 1 a runtime
 * failure (file unreadable or invalid, output not writable), 2 a usage
 * error.
 */
#include <igraph.h>
#include <signal.h>
#include <gsl/gsl_errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_atomic.h"
#include "cm_blas_reserve.h"
#include "cm_lapack.h"
#include "cm_mixing.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "tg_graph.h"
#include "tg_neff.h"
#include "tg_search.h"
#include "topogen_cli.h"
#include "topogen_config.h"
#include "topogen_directed.h"
#include "topogen_eval.h"
#include "topogen_make.h"
#include "topogen_plan.h"
#include "topogen_progress.h"
#include "topogen_platform.h"
#include "topogen_repair.h"
#include "topogen_weights.h"

/* LeakSanitizer's check, when the program is built with it */
extern void __lsan_do_leak_check(void) __attribute__((weak));

/* The end of every run: the streams flushed, then _exit, not exit: an
 * OpenBLAS thread still retrying an allocation (a run that hit a memory
 * limit) would keep exit()'s join of it waiting forever. Files are
 * complete by now (cm_atomic); a leak check still runs under ASan. */
static int finish(int rc)
{
    if (fflush(NULL) != 0 && rc == 0)
        rc = EXIT_FAILURE;
    if (__lsan_do_leak_check)
        __lsan_do_leak_check();
    _exit(rc);
}

/* The summary of a learned or built undirected graph on stderr; the exit
 * status (a search cut short by a signal: 128 + the signal). */
static int report_graph(const topogen_config *c, const topogen_made *m)
{
    int rc = EXIT_SUCCESS;
    if (m->catalog && !c->quiet)
        fprintf(stderr, "topogen: the catalogue's %s graph beats the search "
                "(energy %.6f < %.6f): using it\n", m->catalog,
                m->catalog_energy, m->search_energy);
    const tg_search_result res = m->res;
    const cm_topo t = m->t;
    char cross[192] = "";
    if (c->search.groups)
        snprintf(cross, sizeof cross, "; %zu of %zu edges between the %zu "
                 "groups (at most %zu)", res.cross, t.m, c->search.groups,
                 c->search.max_cross);
    if (c->labels) {
        size_t len = strlen(cross);
        snprintf(cross + len, sizeof cross - len, "; H %.5f (weights "
                 "1/(d+1)), energy with %g * H", res.hetero,
                 c->search.hetero_weight);
    }
    char moves[160];
    if (res.swaps > res.accepted) /* moves of several swaps */
        snprintf(moves, sizeof moves, "%zu moves (%zu swaps accepted)",
                 res.moves, res.swaps);
    else
        snprintf(moves, sizeof moves, "%zu moves", res.moves);
    if (res.failed_solves) { /* rejected: their eigensolve failed */
        size_t len = strlen(moves);
        snprintf(moves + len, sizeof moves - len, " (%zu rejected: "
                 "eigensolve not converged)", res.failed_solves);
    }
    if (!c->quiet && c->kind->family == TOPOGEN_FAM_LEARNED)
        fprintf(stderr, "topogen: n=%zu d=%zu objective=%s: energy %.5f "
                "(start %.5f), slem=%.4f with %s weights; %s, %zu "
                "eigensolves, %zu screened, %zu vector solves, %zu "
                "products, %s eigensolver, %zu threads, %.2f s%s%s\n",
                c->search.n, c->search.d, tg_objective_name(c->search.obj),
                res.energy, res.start_energy, m->slem,
                topogen_weights_name(c->fdla, c->weights), moves, res.evals,
                res.screened, res.vector_solves, res.matvecs,
                res.sparse ? "sparse" : "dense", res.threads, res.seconds,
                res.interrupted ? " (interrupted)"
                : res.timed_out ? " (time limit reached)" : "", cross);
    if (!c->quiet && (c->fdla == TOPOGEN_W_NEFF ||
                      c->fdla == TOPOGEN_W_NEFF_ALPHA)) {
        char nl[256];
        topogen_neff_line(c->fdla, &m->nr, nl, sizeof nl);
        fprintf(stderr, "topogen: %s weights:%s, %zu Newton steps, %.2f s\n",
                topogen_weights_name(c->fdla, c->weights), nl + 8,
                m->nr.newton, m->nr.seconds);
    }
    if (!c->quiet && c->fdla == TOPOGEN_W_FDLA)
        fprintf(stderr, "topogen: fdla weights: slem %.6f (constant "
                "Laplacian %.6f), certified lower bound %.6f, %zu negative "
                "edge weights, %zu Newton steps, %.2f s\n", m->fr.slem,
                m->fr.slem_start, m->fr.lower, m->fr.negative, m->fr.newton,
                m->fr.seconds);
    if (res.interrupted) { /* the best graph is written; still a failure */
        fprintf(stderr, "topogen: interrupted by signal %d: wrote the best "
                "graph found so far (header: interrupted=1)\n",
                (int)*c->search.stop);
        rc = 128 + (int)*c->search.stop;
    }
    return rc;
}

/* The summary of a time-varying sequence. */
static int report_seq(const topogen_config *c, const topogen_made *m)
{
    if (!c->quiet)
        fprintf(stderr, "topogen: n=%zu kind=%s: period %zu, per-round "
                "degree <= %zu, ||product - 11^T/n|| = %.3g\n", m->seq.n,
                topogen_kind_name(c), m->seq.period, m->se.dmax,
                m->se.norm);
    return EXIT_SUCCESS;
}

/* The summary of a directed kind (the search of learned --directed); 130
 * when a signal cut the search short. */
static int report_directed(const topogen_config *c, const topogen_made *m)
{
    const tg_digraph_search_result *res = &m->dres;
    int learned = c->kind->code == TOPOGEN_D_LEARNED;
    if (!c->quiet && learned)
        fprintf(stderr, "topogen: n=%zu %zu permutations objective=%s%s: "
                "n_eff %.4f (start %.4f) at gamma %g; %zu moves, %zu "
                "accepted, %zu evaluations (%s), %.2f s%s\n", c->search.n,
                c->search.d, tg_objective_name(c->search.obj),
                c->search.obj == TG_OBJ_RATIO ? " (min ||W - J||_2)" : "",
                res->neff, res->neff_start,
                c->search.obj_gamma > 0.0 ? c->search.obj_gamma
                                          : TG_NEFF_GAMMA,
                res->moves, res->accepted, res->evals,
                c->search.obj == TG_OBJ_RATIO ? "dense eigenvalues"
                : res->estimated              ? "stochastic estimate"
                                              : "exact series",
                res->seconds,
                res->interrupted ? " (interrupted)"
                : res->timed_out ? " (time limit reached)" : "");
    if (!c->quiet && c->labels && learned)
        fprintf(stderr, "topogen: data-aware: H %.5f (weights 1/(d+1)), "
                "energy with %g * H\n", res->hetero,
                c->search.hetero_weight);
    return res->interrupted ? 130 : EXIT_SUCCESS;
}

/* The summary of a data-aware kind. */
static int report_data(const topogen_config *c, const topogen_made *m)
{
    if (c->quiet)
        return EXIT_SUCCESS;
    size_t n = c->search.n;
    if (c->kind->code == TOPOGEN_DK_STLFW) {
        const tg_stlfw_result *res = &m->sres;
        fprintf(stderr, "topogen: stl-fw n=%zu budget=%zu lambda=%g%s: "
                "H %.5f (alone %.5f), worst node %.5f, ||W - J||_2 "
                "%.4f, n_eff(0.951) %.2f, degrees out %zu in %zu, %zu "
                "iterations (objective %.5f -> %.5f), %.2f s "
                "(assignments %.2f s)\n", n, c->search.d, c->lambda,
                c->symmetric ? " symmetric" : " directed", m->h.h, m->h0.h,
                m->h.worst, m->norm, m->neff, res->max_out, res->max_in,
                res->iters, res->obj[0], res->obj[res->iters], res->seconds,
                res->lap_seconds);
        return EXIT_SUCCESS;
    }
    size_t dmin, dmax;
    cm_topo_degree_range(&m->t, &dmin, &dmax);
    fprintf(stderr, "topogen: dcliques n=%zu: %zu cliques, mean "
            "skew %.4f (random start %.4f, %zu swaps), %zu "
            "inter-clique edges (%s), degree %zu..%zu, H %.5f, "
            "slem %.4f\n", n, m->cres.q, m->cres.skew, m->cres.skew_start,
            m->cres.swaps, m->cres.inter_edges, topogen_inter_name(c->inter),
            dmin, dmax, m->h.h, m->slem);
    return EXIT_SUCCESS;
}

/* `topogen [FLAGS]`: makes c's kind (topo/make/topogen_make.c), writes it
 * (-o) and reports on stderr by the kind's family. */
static int generate(topogen_config *c)
{
    static int (*const report[])(const topogen_config *,
                                 const topogen_made *) = {
        [TOPOGEN_FAM_LEARNED] = report_graph,
        [TOPOGEN_FAM_STATIC] = report_graph,
        [TOPOGEN_FAM_SEQ] = report_seq,
        [TOPOGEN_FAM_DIRECTED] = report_directed,
        [TOPOGEN_FAM_DATA] = report_data};
    topogen_family fam = c->kind->family;
    if (c->kind->old_name && !c->quiet)
        fprintf(stderr, "topogen: notice: --kind exponential is the "
                "symmetric i ~ i +- 2^k graph, now named exponential-sym "
                "(the literature's exponential graph is directed: --kind "
                "exp-directed)\n");
    /* fail on an unwritable -o up front (a directed kind: when writing) */
    if (fam != TOPOGEN_FAM_DIRECTED && strcmp(c->out, "-") != 0 &&
        cm_atomic_probe(c->out) != CM_OK) {
        fprintf(stderr, "topogen: -o: %s\n", cm_last_error());
        return EXIT_FAILURE;
    }
    int tty = isatty(STDERR_FILENO);
    if (fam == TOPOGEN_FAM_LEARNED && !c->quiet) {
        c->search.progress = topogen_progress;
        c->search.ctx = &tty;
    }
    if (fam == TOPOGEN_FAM_LEARNED || fam == TOPOGEN_FAM_DIRECTED)
        c->search.stop = topogen_catch_signals();
    topogen_made m;
    topogen_made_init(&m);
    cm_status st = topogen_make(c, &m);
    if (tty == 2)
        fputc('\n', stderr);
    if (st == CM_OK)
        st = topogen_made_write(c, &m, c->out, c->format);
    int rc;
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        rc = m.usage ? EXIT_USAGE : EXIT_FAILURE;
    } else {
        rc = report[fam](c, &m);
    }
    topogen_made_destroy(&m);
    return rc;
}

/* `topogen eval FILE` (topogen_eval.c), with c's eval flags. */
static int evaluate(topogen_config *c)
{
    const topogen_eval_job job = {
        .file = c->file, .format = c->format, .one_based = c->one_based,
        .json = c->json, .simulate = c->simulate, .seed = c->search.seed,
        .groups = c->search.groups, .weights = c->weights, .fdla = c->fdla,
        .gamma = c->gamma,
        .weights_given = c->weights_given, .out = c->out,
        .out_given = c->out_given, .quiet = c->quiet, .net = c->net,
        .netm = c->net ? &c->netm : NULL, .platform = c->platform,
        .params = c->params, .ranks = c->ranks, .hosts = c->hosts,
        .allreduce = c->allreduce,
        .version = TOPOGEN_VERSION, .labels = c->labels};
    return topogen_evaluate(&job);
}

/* SIGINT, SIGTERM or SIGHUP outside a search (which catches the first
 * two to write its best graph): the file being written loses its
 * temporary (cm_atomic), then the signal's default action ends the
 * process as before. */
static void on_fatal_signal(int sig)
{
    cm_atomic_unlink_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_fatal_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction old;
        /* a signal the caller ignores (nohup, a background job's SIGINT)
         * stays ignored */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[k], &sa, NULL);
    }
}

static int run(int argc, char **argv);

/* Before OpenBLAS's constructor: a clear message under a low ulimit -v. */
static void preinit(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    (void)envp;
    cm_blas_limit_early("topogen");
}
__attribute__((section(".preinit_array"), used)) static void (
    *const preinit_hook)(int, char **, char **) = preinit;

int main(int argc, char **argv)
{
    return finish(run(argc, argv));
}

static int run(int argc, char **argv)
{
    /* no library may abort the process: errors come back as codes */
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    gsl_set_error_handler_off();
    openblas_set_num_threads(1);
    catch_fatal_signals();

    if (argc > 1 && strcmp(argv[1], "repair") == 0)
        return topogen_repair_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "platform") == 0)
        return topogen_platform_main(argc - 1, argv + 1);
    topogen_config c;
    topogen_config_default(&c);
    int rc = topogen_parse_args(argc, argv, &c);
    if (rc >= 0)
        return rc;
    size_t callers = c.search.threads ? c.search.threads : 1;
    if (c.command != TOPOGEN_EVAL && !c.search.threads) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        callers = cpus > 0 ? (size_t)cpus : 1;
    }
    if (cm_blas_reserve(callers) != CM_OK) {
        fprintf(stderr, "topogen: %s%s\n", cm_last_error(),
                callers > 1 ? " or give fewer --threads" : "");
        return EXIT_FAILURE;
    }
    static int (*const run_command[])(topogen_config *) = {
        [TOPOGEN_GENERATE] = generate, [TOPOGEN_EVAL] = evaluate,
        [TOPOGEN_COMPARE] = topogen_compare, [TOPOGEN_PLAN] = topogen_plan};
    return run_command[c.command](&c);
}
