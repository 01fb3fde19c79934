/* topogen: learn fast-mixing topologies, build baselines, evaluate files.
 *
 *   topogen [-n N] [-d D] [--kind KIND] [--weights RULE] [--objective OBJ]
 *           [--init random|rrl] [--seed S] [--iters K] [--restarts R]
 *           [--time-limit SEC] [--t0 T] [--t1 T] [--no-screen]
 *           [-o FILE] [--quiet]
 *   topogen eval FILE [--weights RULE] [--json] [--simulate ROUNDS]
 *           [--seed S]
 *
 * main only parses flags into a config, validates them (before any heavy
 * work), calls the tg_ library and reports. Exit status: 0 success, 1 a
 * runtime failure (file unreadable or invalid, output not writable), 2 a
 * usage error (bad flag or value).
 */
#include <errno.h>
#include <igraph.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "cm_net.h"
#include "cm_place.h"
#include "tg_eval.h"
#include "tg_graph.h"
#include "tg_search.h"

extern void openblas_set_num_threads(int num_threads);

#define EXIT_USAGE 2
#define MAX_ROUNDS 10000000
#define MAX_ROUNDS_STR "10000000"

typedef struct {
    int eval;                /* `topogen eval FILE` mode */
    const char *file;        /* eval: the file to read */
    int json;                /* eval: one JSON object */
    size_t simulate;         /* eval: rounds to simulate (0: none) */
    int weights_given;       /* --weights was on the command line */
    tg_kind kind;            /* what to build */
    cm_weight_rule weights;  /* mixing weights */
    tg_search_opts search;   /* n, d, objective, seed, iters, ... */
    const char *out;         /* -o FILE or "-" */
    int quiet;               /* no progress on stderr */
    const char *net;         /* eval: --net SPEC (NULL: no network model) */
    size_t params;           /* eval: floats per worker array (--params) */
    size_t ranks, hosts;     /* eval: --ranks, --hosts (0: one per worker) */
} config;

static const char usage_text[] =
    "usage: topogen [-n N] [-d D] [--kind KIND] [--weights RULE]\n"
    "               [--objective OBJ] [--init random|rrl] [--seed S]\n"
    "               [--iters K] [--restarts R] [--time-limit SEC]\n"
    "               [--t0 T] [--t1 T] [--no-screen] [-o FILE] [--quiet]\n"
    "       topogen eval FILE [--weights RULE] [--json] [--simulate ROUNDS]\n"
    "               [--seed S] [--net NET [--params P] [--ranks R] [--hosts H]]\n"
    "\n"
    "  -n N              nodes (default 64)\n"
    "  -d D              degree for learned, random, rrl (default 4)\n"
    "  --kind KIND       learned (default), rrl, ring, torus, hypercube,\n"
    "                    exponential, random, complete\n"
    "  --weights RULE    laplacian (default), mh, maxdeg\n"
    "  --objective OBJ   ratio (default: max lambda2/lambdan), gap, slem-mh\n"
    "  --init INIT       learned: start from random (default) or rrl\n"
    "  --seed S          RNG seed (default 1)\n"
    "  --iters K         annealing moves per restart (default: by n)\n"
    "  --restarts R      independent annealing runs (default: 8 for n<=16,\n"
    "                    4 for n<=32, else 1)\n"
    "  --time-limit SEC  finish the search within SEC seconds, cooling on\n"
    "                    the clock (default none; then not deterministic)\n"
    "  --t0 T, --t1 T    annealing start/end temperature (energy units)\n"
    "  -o FILE           write the topology atomically to FILE (default "
    "stdout)\n"
    "  --no-screen       score every move exactly (same graph, slower)\n"
    "  --quiet           no progress or summary on stderr\n"
    "  eval: --json prints one JSON object; --simulate ROUNDS prints the\n"
    "  gossip disagreement per round next to SLEM^t (not with --json).\n"
    "  --net NET (datacenter, wan or intra=ALPHA,BETA;inter=ALPHA,BETA)\n"
    "  prints the modelled time of one gossip round of P-float arrays\n"
    "  (default 61706, LeNet) with the workers on R ranks (default n) on H\n"
    "  hosts (default R), placed in blocks and by graph partition.\n";

static int usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "topogen: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nTry 'topogen --help'.\n");
    return EXIT_USAGE;
}

/* Parses a positive integer for flag; 0 on success. */
static int parse_count(const char *flag, const char *s, size_t *out,
                       int allow_zero)
{
    char *end;
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return usage_error("%s: expected a %s integer", flag,
                           allow_zero ? "non-negative" : "positive");
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || (!allow_zero && v == 0) || v > SIZE_MAX / 4)
        return usage_error("%s: expected a %s integer", flag,
                           allow_zero ? "non-negative" : "positive");
    *out = (size_t)v;
    return 0;
}

static int parse_seconds(const char *flag, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || !*s || errno || *end || !(v > 0.0) || !isfinite(v))
        return usage_error("%s: expected a positive number of seconds",
                           flag, "");
    *out = v;
    return 0;
}

static int status_to_usage(void)
{
    fprintf(stderr, "topogen: %s\nTry 'topogen --help'.\n", cm_last_error());
    return EXIT_USAGE;
}

/* Parses argv into c. Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, config *c)
{
    int i = 1;
    if (argc > 1 && strcmp(argv[1], "eval") == 0) {
        c->eval = 1;
        i = 2;
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        size_t seed;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strcmp(a, "--json") == 0 && c->eval) {
            c->json = 1;
            continue;
        }
        if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            c->quiet = 1;
            continue;
        }
        if (strcmp(a, "--no-screen") == 0 && !c->eval) {
            c->search.no_screen = 1;
            continue;
        }
        if ((a[0] != '-' || strcmp(a, "-") == 0) && c->eval && !c->file) {
            c->file = a;
            continue;
        }
        static const char *with_value[] = {
            "-n", "-d", "--kind", "--weights", "--objective", "--init",
            "--seed", "--iters", "--restarts", "--time-limit", "-o",
            "--simulate", "--t0", "--t1", "--net", "--params", "--ranks",
            "--hosts"};
        int known = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            known |= strcmp(a, with_value[k]) == 0;
        if (!known)
            return usage_error(a[0] == '-' ? "unknown flag '%s'%s"
                                           : "unexpected argument '%s'%s",
                               a, "");
        if (!v)
            return usage_error("%s: missing value%s", a, "");
        i++;
        int net_flag = strcmp(a, "--net") == 0 ||
                       strcmp(a, "--params") == 0 ||
                       strcmp(a, "--ranks") == 0 || strcmp(a, "--hosts") == 0;
        int gen_only = strcmp(a, "--weights") != 0 &&
                       strcmp(a, "--seed") != 0 &&
                       strcmp(a, "--simulate") != 0 && !net_flag;
        if (c->eval && gen_only)
            return usage_error("%s: not a flag of 'topogen eval'%s", a, "");
        if (!c->eval && net_flag)
            return usage_error("%s: only 'topogen eval FILE' models the "
                               "network%s", a, "");
        if (!c->eval && strcmp(a, "--simulate") == 0)
            return usage_error("%s: only 'topogen eval FILE' simulates%s", a,
                               "");
        int rc = 0;
        if (strcmp(a, "-n") == 0)
            rc = parse_count(a, v, &c->search.n, 0);
        else if (strcmp(a, "-d") == 0)
            rc = parse_count(a, v, &c->search.d, 0);
        else if (strcmp(a, "--iters") == 0)
            rc = parse_count(a, v, &c->search.iters, 0);
        else if (strcmp(a, "--restarts") == 0)
            rc = parse_count(a, v, &c->search.restarts, 0);
        else if (strcmp(a, "--params") == 0)
            rc = parse_count(a, v, &c->params, 0);
        else if (strcmp(a, "--ranks") == 0)
            rc = parse_count(a, v, &c->ranks, 0);
        else if (strcmp(a, "--hosts") == 0)
            rc = parse_count(a, v, &c->hosts, 0);
        else if (strcmp(a, "--net") == 0) {
            cm_net net;
            if (cm_net_parse(v, &net) != CM_OK)
                return status_to_usage();
            c->net = v;
        } else if (strcmp(a, "--simulate") == 0) {
            rc = parse_count(a, v, &c->simulate, 0);
            if (!rc && c->simulate > MAX_ROUNDS)
                return usage_error("--simulate: at most %s rounds%s",
                                   MAX_ROUNDS_STR, "");
        }
        else if (strcmp(a, "--seed") == 0) {
            rc = parse_count(a, v, &seed, 1);
            c->search.seed = seed;
        } else if (strcmp(a, "--time-limit") == 0)
            rc = parse_seconds(a, v, &c->search.time_limit);
        else if (strcmp(a, "--t0") == 0)
            rc = parse_seconds(a, v, &c->search.t0);
        else if (strcmp(a, "--t1") == 0)
            rc = parse_seconds(a, v, &c->search.t1);
        else if (strcmp(a, "-o") == 0)
            c->out = v;
        else if (strcmp(a, "--kind") == 0) {
            if (tg_kind_parse(v, &c->kind) != CM_OK)
                return status_to_usage();
        } else if (strcmp(a, "--weights") == 0) {
            if (cm_weight_rule_parse(v, &c->weights) != CM_OK) {
                cm_error_prefix(CM_EINVAL, "--weights");
                return status_to_usage();
            }
            c->weights_given = 1;
        } else if (strcmp(a, "--objective") == 0) {
            if (tg_objective_parse(v, &c->search.obj) != CM_OK)
                return status_to_usage();
        } else if (strcmp(a, "--init") == 0) {
            if (strcmp(v, "rrl") == 0)
                c->search.init_rrl = 1;
            else if (strcmp(v, "random") == 0)
                c->search.init_rrl = 0;
            else
                return usage_error("--init: unknown start '%s'%s (expected "
                                   "random or rrl)", v, "");
        }
        if (rc)
            return rc;
    }
    if (c->eval && !c->file)
        return usage_error("eval: missing FILE%s%s", "", "");
    if (!c->net && (c->params || c->ranks || c->hosts))
        return usage_error("--params, --ranks and --hosts need --net%s%s", "",
                           "");
    if (c->net && c->simulate)
        return usage_error("--net: cannot be combined with --simulate%s%s",
                           "", "");
    if (c->json && c->simulate)
        return usage_error("--simulate: cannot be combined with --json (the "
                           "simulation prints columns)%s%s", "", "");
    if (!c->eval && tg_kind_check(c->kind, c->search.n, c->search.d) != CM_OK)
        return status_to_usage();
    return -1;
}

static void progress(void *ctx, const tg_progress *p)
{
    (void)ctx;
    fprintf(stderr, "topogen: restart %zu iter %zu/%zu T=%.2e energy=%.5f "
            "best=%.5f (%.1f s)\n", p->restart + 1, p->iter, p->iters,
            p->temperature, p->energy, p->best, p->seconds);
}

/* Builds (or learns) the graph, weights it and writes it. */
static int generate(config *c)
{
    tg_graph g;
    cm_topo t;
    tg_graph_init(&g);
    cm_topo_init(&t);
    int rc = EXIT_FAILURE;
    cm_status st;
    tg_search_result res = {0};
    if (strcmp(c->out, "-") != 0) { /* fail on an unwritable -o up front */
        cm_afile probe;
        if (cm_atomic_open(&probe, c->out) != CM_OK) {
            fprintf(stderr, "topogen: -o: %s\n", cm_last_error());
            return EXIT_FAILURE;
        }
        cm_atomic_abort(&probe);
    }
    if (c->kind == TG_KIND_LEARNED) {
        if (!c->quiet) {
            c->search.progress = progress;
        }
        st = tg_search_run(&c->search, &g, &res);
    } else {
        cm_rng rng;
        cm_rng_seed(&rng, c->search.seed, 0);
        st = tg_graph_build(&g, c->kind, c->search.n, c->search.d, &rng);
    }
    if (st == CM_OK)
        st = tg_graph_to_topo(&g, &t);
    if (st == CM_OK)
        st = cm_topo_set_weights(&t, c->weights);
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
    char comment[512];
    snprintf(comment, sizeof comment,
             "# topogen 1 n=%zu d=%zu kind=%s objective=%s weights=%s "
             "seed=%llu\n# lambda2=%.4f lambdan=%.4f slem=%.4f",
             t.n, dmax, tg_kind_name(c->kind),
             tg_objective_name(c->search.obj),
             cm_weight_rule_name(c->weights),
             (unsigned long long)c->search.seed, l2, ln, slem);
    st = cm_topo_save(&t, c->out, comment);
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        goto cleanup;
    }
    if (!c->quiet && c->kind == TG_KIND_LEARNED)
        fprintf(stderr, "topogen: n=%zu d=%zu objective=%s: energy %.5f "
                "(start %.5f), slem=%.4f with %s weights; %zu moves, %zu "
                "eigensolves, %zu screened, %zu vector solves, %.2f s%s\n",
                c->search.n, c->search.d, tg_objective_name(c->search.obj),
                res.energy, res.start_energy, slem,
                cm_weight_rule_name(c->weights), res.moves, res.evals,
                res.screened, res.vector_solves, res.seconds,
                res.timed_out ? " (time limit reached)" : "");
    rc = EXIT_SUCCESS;
cleanup:
    cm_topo_destroy(&t);
    tg_graph_destroy(&g);
    return rc;
}

static void print_number(const char *key, double v, int last)
{
    if (isfinite(v))
        printf("\"%s\":%.10g%s", key, v, last ? "" : ",");
    else
        printf("\"%s\":null%s", key, last ? "" : ",");
}

/* --net: the modelled time of one gossip round under block ([0]) and
 * graph ([1]) placement (cm_place, cm_net), computed before anything is
 * printed. CM_EINVAL for --ranks > n or --hosts > ranks. */
typedef struct {
    cm_net net;
    size_t P, H;
    double bytes;           /* one worker array */
    cm_place_stats ps[2];
    double round_s[2];
    size_t worst[2];        /* the rank that decides */
} net_report;

static cm_status net_eval(const config *c, const cm_topo *t, net_report *r)
{
    cm_status st = cm_net_parse(c->net, &r->net);
    r->P = c->ranks ? c->ranks : t->n;
    r->H = c->hosts ? c->hosts : r->P;
    r->bytes = 4.0 * (double)(c->params ? c->params : 61706);
    if (st != CM_OK)
        return st;
    if (r->P > t->n)
        return cm_error(CM_EINVAL, "--ranks %zu: %s has only %zu nodes "
                        "(workers)", r->P, c->file, t->n);
    if (r->H > r->P)
        return cm_error(CM_EINVAL, "--hosts %zu: more hosts than the %zu "
                        "ranks", r->H, r->P);
    size_t *host = malloc(r->P * sizeof *host);
    size_t *ro = malloc(t->n * sizeof *ro);
    cm_place_load *ld = malloc(r->P * sizeof *ld);
    if (!host || !ro || !ld)
        st = cm_error(CM_ENOMEM, "out of memory (--net)");
    for (size_t h = 0, q = 0; st == CM_OK && h < r->H; h++)
        for (size_t k = cm_place_rank_size(r->P, r->H, h); k > 0; k--)
            host[q++] = h;  /* ranks on hosts in blocks, as mpirun maps */
    for (int k = 0; k < 2 && st == CM_OK; k++) {
        st = cm_place_workers(t, r->P, host, (cm_place_kind)k, ro);
        if (st == CM_OK)
            st = cm_place_eval(t, r->P, host, ro, ld, &r->ps[k]);
        if (st == CM_OK)
            r->round_s[k] = cm_net_round_time(&r->net, ld, host, r->P, r->bytes,
                                              &r->worst[k]);
    }
    free(ld);
    free(ro);
    free(host);
    return st;
}

/* Prints r as text lines, or as JSON members (the caller prints braces). */
static void net_print(const net_report *r, size_t n, int json)
{
    char desc[160];
    cm_net_describe(&r->net, desc, sizeof desc);
    if (json)
        printf("\"net\":\"%s\",\"ranks\":%zu,\"hosts\":%zu,"
               "\"array_bytes\":%.0f,", desc, r->P, r->H, r->bytes);
    else
        printf("net           %s\n"
               "placement     %zu workers on %zu ranks on %zu hosts, arrays "
               "of %.0f bytes\n", desc, n, r->P, r->H, r->bytes);
    for (int k = 0; k < 2; k++) {
        const cm_place_stats *ps = &r->ps[k];
        const char *name = cm_place_name((cm_place_kind)k);
        if (json)
            printf("\"%s\":{\"cut_edges\":%zu,\"cut_edges_host\":%zu,"
                   "\"arrays\":%zu,\"arrays_host\":%zu,\"round_s\":%.6g},",
                   name, ps->cut_edges, ps->cut_edges_host, ps->volume,
                   ps->volume_host, r->round_s[k]);
        else
            printf("  %-11s cut %zu edges (%zu across hosts), %zu arrays per "
                   "round (%zu across hosts, %.3g MB), modelled %.4g ms per "
                   "round (rank %zu decides)\n", name, ps->cut_edges,
                   ps->cut_edges_host, ps->volume, ps->volume_host,
                   (double)ps->volume * r->bytes / 1e6, r->round_s[k] * 1e3,
                   r->worst[k]);
    }
}

/* Reads, weights and reports on a topology file. */
static int evaluate(const config *c)
{
    cm_topo t;
    cm_topo_init(&t);
    int rc = EXIT_FAILURE;
    double *rel = NULL;
    /* read, then refuse sizes the dense spectra cannot handle, then the
     * (dense, for weighted files) validation */
    cm_status st = cm_topo_read(&t, c->file);
    if (st == CM_OK && t.n > TG_MAX_NODES)
        st = cm_error(CM_EINVAL, "%s: %zu nodes is too many to evaluate "
                      "(dense n x n spectra; at most %d)", c->file, t.n,
                      TG_MAX_NODES);
    if (st == CM_OK)
        st = cm_topo_validate(&t, c->file);
    const char *wname = "file";
    if (st == CM_OK && (!t.self || c->weights_given)) {
        st = cm_topo_set_weights(&t, c->weights);
        wname = cm_weight_rule_name(c->weights);
    }
    tg_eval e;
    net_report nr;
    if (st == CM_OK && c->net)
        st = net_eval(c, &t, &nr);
    if (st == CM_OK)
        st = tg_eval_topo(&t, &e);
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        goto cleanup;
    }
    if (c->simulate) {
        rel = malloc((c->simulate + 1) * sizeof *rel);
        if (!rel) {
            fprintf(stderr, "topogen: out of memory for %zu rounds\n",
                    c->simulate);
            goto cleanup;
        }
        st = tg_simulate(&t, c->simulate, c->search.seed, rel);
        if (st != CM_OK) {
            fprintf(stderr, "topogen: %s\n", cm_last_error());
            goto cleanup;
        }
        printf("# round disagreement slem_bound\n");
        printf("# file=%s n=%zu slem=%.6g weights=%s seed=%llu dim=%d\n",
               c->file, e.n, e.slem, wname,
               (unsigned long long)c->search.seed, TG_SIM_DIM);
        for (size_t r = 0; r <= c->simulate; r++)
            printf("%zu %.6g %.6g\n", r, rel[r], pow(e.slem, (double)r));
    } else if (c->json) {
        printf("{\"file\":\"");
        for (const char *p = c->file; *p; p++)
            if (*p == '"' || *p == '\\')
                printf("\\%c", *p);
            else if ((unsigned char)*p < 0x20)
                printf("\\u%04x", (unsigned)(unsigned char)*p);
            else
                putchar(*p);
        printf("\",\"n\":%zu,\"edges\":%zu,\"min_degree\":%zu,"
               "\"max_degree\":%zu,", e.n, e.m, e.dmin, e.dmax);
        print_number("diameter", e.diameter, 0);
        print_number("lambda2", e.l2, 0);
        print_number("lambdan", e.ln, 0);
        print_number("slem", e.slem, 0);
        print_number("slem_best_laplacian", e.slem_best, 0);
        print_number("rounds_1e-3", e.rounds, 0);
        if (c->net)
            net_print(&nr, t.n, 1);
        printf("\"weights\":\"%s\"}\n", wname);
    } else {
        printf("file          %s\n", c->file);
        printf("n             %zu\n", e.n);
        printf("edges         %zu\n", e.m);
        printf("degree        min %zu max %zu\n", e.dmin, e.dmax);
        printf("diameter      %.0f\n", e.diameter);
        printf("lambda2       %.6f\n", e.l2);
        printf("lambdan       %.6f\n", e.ln);
        printf("slem          %.6f  (W %s)\n", e.slem,
               strcmp(wname, "file") == 0 ? "as written in the file"
                                          : "from --weights");
        printf("slem_best     %.6f  (optimal Laplacian weights)\n",
               e.slem_best);
        printf("rounds_1e-3   %.1f  (log 1e-3 / log slem)\n", e.rounds);
        printf("weights       %s\n", wname);
        if (c->net)
            net_print(&nr, t.n, 0);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "topogen: write error on standard output\n");
        goto cleanup;
    }
    rc = EXIT_SUCCESS;
cleanup:
    free(rel);
    cm_topo_destroy(&t);
    return rc;
}

int main(int argc, char **argv)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    gsl_set_error_handler_off();
    openblas_set_num_threads(1);

    config c;
    memset(&c, 0, sizeof c);
    c.kind = TG_KIND_LEARNED;
    c.weights = CM_WEIGHTS_LAPLACIAN;
    c.out = "-";
    tg_search_opts_default(&c.search);
    int rc = parse_args(argc, argv, &c);
    if (rc >= 0)
        return rc;
    return c.eval ? evaluate(&c) : generate(&c);
}
