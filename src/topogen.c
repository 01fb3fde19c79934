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
#include "cm_topo_seq.h"
#include "tg_eval.h"
#include "tg_fdla.h"
#include "tg_graph.h"
#include "tg_search.h"
#include "tg_seq.h"

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
    int seq;                 /* --kind is time-varying: seq_kind */
    tg_seq_kind seq_kind;    /* one-peer-exp or base */
    cm_weight_rule weights;  /* mixing weights (unless fdla) */
    int fdla;                /* --weights fdla: tg_fdla instead of a rule */
    tg_search_opts search;   /* n, d, objective, seed, iters, ... */
    const char *out;         /* -o FILE or "-" */
    int out_given;           /* eval: -o FILE writes the weighted graph */
    int quiet;               /* no progress on stderr */
} config;

static const char usage_text[] =
    "usage: topogen [-n N] [-d D] [--kind KIND] [--weights RULE]\n"
    "               [--objective OBJ] [--init random|rrl] [--seed S]\n"
    "               [--iters K] [--restarts R] [--time-limit SEC]\n"
    "               [--t0 T] [--t1 T] [--no-screen] [-o FILE] [--quiet]\n"
    "       topogen eval FILE [--weights RULE] [--json] [--simulate ROUNDS]\n"
    "               [--seed S] [-o OUT]\n"
    "\n"
    "  -n N              nodes (default 64)\n"
    "  -d D              degree for learned, random, rrl (default 4)\n"
    "  --kind KIND       learned (default), rrl, ring, torus, hypercube,\n"
    "                    exponential, random, complete; time-varying:\n"
    "                    one-peer-exp (n a power of 2), base (degree <= d)\n"
    "  --weights RULE    laplacian (default), mh, maxdeg, fdla (optimal\n"
    "                    weights of Xiao-Boyd, may be negative)\n"
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
    "  gossip disagreement per round next to SLEM^t (not with --json);\n"
    "  -o OUT writes FILE with the weights evaluated (e.g. --weights fdla).\n";

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
            "--simulate", "--t0", "--t1"};
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
        int gen_only = strcmp(a, "--weights") != 0 &&
                       strcmp(a, "--seed") != 0 && strcmp(a, "-o") != 0 &&
                       strcmp(a, "--simulate") != 0;
        if (c->eval && gen_only)
            return usage_error("%s: not a flag of 'topogen eval'%s", a, "");
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
        else if (strcmp(a, "--simulate") == 0) {
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
        else if (strcmp(a, "-o") == 0) {
            c->out = v;
            c->out_given = 1;
            if (c->eval && strcmp(v, "-") == 0)
                return usage_error("-o: 'topogen eval' prints its report on "
                                   "stdout; give a file name%s%s", "", "");
        }
        else if (strcmp(a, "--kind") == 0) {
            c->seq = tg_seq_kind_parse(v, &c->seq_kind);
            if (!c->seq && tg_kind_parse(v, &c->kind) != CM_OK)
                return status_to_usage();
        } else if (strcmp(a, "--weights") == 0) {
            c->fdla = strcmp(v, "fdla") == 0;
            if (!c->fdla && cm_weight_rule_parse(v, &c->weights) != CM_OK) {
                cm_error(CM_EINVAL, "--weights: unknown weight rule '%s' "
                         "(expected laplacian, mh, maxdeg or fdla)", v);
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
    if (c->json && c->simulate)
        return usage_error("--simulate: cannot be combined with --json (the "
                           "simulation prints columns)%s%s", "", "");
    if (!c->eval && (c->seq ? tg_seq_check(c->seq_kind, c->search.n,
                                           c->search.d)
                            : tg_kind_check(c->kind, c->search.n,
                                            c->search.d)) != CM_OK)
        return status_to_usage();
    if (!c->eval && c->seq && c->weights_given)
        return usage_error("--weights: --kind %s carries its own weights "
                           "(exact averaging)%s", tg_seq_kind_name(c->seq_kind),
                           "");
    return -1;
}

/* The weights dispatch: a cm_ rule, or FDLA (topo/tg_fdla.c), which also
 * reports its certificate in *fr (zeroed for a rule). */
static cm_status set_weights(const config *c, cm_topo *t, tg_fdla_result *fr)
{
    memset(fr, 0, sizeof *fr);
    if (c->fdla)
        return tg_fdla_weights(t, TG_FDLA_TOL, fr);
    return cm_topo_set_weights(t, c->weights);
}

static const char *weights_name(const config *c)
{
    return c->fdla ? "fdla" : cm_weight_rule_name(c->weights);
}

static void progress(void *ctx, const tg_progress *p)
{
    (void)ctx;
    fprintf(stderr, "topogen: restart %zu iter %zu/%zu T=%.2e energy=%.5f "
            "best=%.5f (%.1f s)\n", p->restart + 1, p->iter, p->iters,
            p->temperature, p->energy, p->best, p->seconds);
}

/* The header lines of a written topology: settings (`what`), spectrum,
 * and the FDLA certificate when --weights fdla. */
static void file_header(char *buf, size_t size, const config *c,
                        const char *what, size_t n, size_t dmax, double l2,
                        double ln, double slem, const tg_fdla_result *fr)
{
    int len = snprintf(buf, size, "# topogen 1 n=%zu d=%zu %s\n"
                       "# lambda2=%.4f lambdan=%.4f slem=%.4f", n, dmax,
                       what, l2, ln, slem);
    if (c->fdla && len > 0 && (size_t)len < size)
        snprintf(buf + len, size - (size_t)len,
                 "\n# fdla: slem=%.6f lower_bound=%.6f (certified gap "
                 "%.1e) laplacian_slem=%.6f negative_weights=%zu",
                 fr->slem, fr->lower, fr->slem - fr->lower, fr->slem_start,
                 fr->negative);
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
    tg_fdla_result fr;
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
        st = set_weights(c, &t, &fr);
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
    char comment[640], first[256];
    snprintf(first, sizeof first, "kind=%s objective=%s weights=%s seed=%llu",
             tg_kind_name(c->kind), tg_objective_name(c->search.obj),
             weights_name(c), (unsigned long long)c->search.seed);
    file_header(comment, sizeof comment, c, first, t.n, dmax, l2, ln, slem,
                &fr);
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
                weights_name(c), res.moves, res.evals,
                res.screened, res.vector_solves, res.seconds,
                res.timed_out ? " (time limit reached)" : "");
    if (!c->quiet && c->fdla)
        fprintf(stderr, "topogen: fdla weights: slem %.6f (constant "
                "Laplacian %.6f), certified lower bound %.6f, %zu negative "
                "edge weights, %zu Newton steps, %.2f s\n", fr.slem,
                fr.slem_start, fr.lower, fr.negative, fr.newton, fr.seconds);
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

/* Prints s as a JSON string. */
static void print_json_string(const char *s)
{
    putchar('"');
    for (const char *p = s; *p; p++)
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if ((unsigned char)*p < 0x20)
            printf("\\u%04x", (unsigned)(unsigned char)*p);
        else
            putchar(*p);
    putchar('"');
}

/* Builds a time-varying kind and writes it (cm_topo_seq format). */
static int generate_seq(const config *c)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    tg_seq_eval e;
    int rc = EXIT_FAILURE;
    cm_status st = tg_seq_build(&s, c->seq_kind, c->search.n, c->search.d);
    if (st == CM_OK)
        st = tg_seq_evaluate(&s, NULL, &e);
    if (st == CM_OK) {
        char comment[512];
        snprintf(comment, sizeof comment,
                 "# topogen 1 n=%zu d=%zu kind=%s period=%zu seed=%llu\n"
                 "# product_norm=%.3g exact=%d messages_per_period=%.4g",
                 s.n, e.dmax, tg_seq_kind_name(c->seq_kind), s.period,
                 (unsigned long long)c->search.seed, e.norm, e.exact,
                 e.messages);
        st = cm_topo_seq_save(&s, c->out, comment);
    }
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        goto cleanup;
    }
    if (!c->quiet)
        fprintf(stderr, "topogen: n=%zu kind=%s: period %zu, per-round "
                "degree <= %zu, ||product - 11^T/n|| = %.3g\n", s.n,
                tg_seq_kind_name(c->seq_kind), s.period, e.dmax, e.norm);
    rc = EXIT_SUCCESS;
cleanup:
    cm_topo_seq_destroy(&s);
    return rc;
}

/* `topogen eval` of a sequence of period > 1 (validated). */
static int evaluate_seq(const config *c, const cm_topo_seq *s)
{
    size_t *deg = malloc(s->period * sizeof *deg);
    double *rel = NULL;
    int rc = EXIT_FAILURE;
    tg_seq_eval e;
    cm_status st = deg ? tg_seq_evaluate(s, deg, &e)
                       : cm_error(CM_ENOMEM, "out of memory");
    if (st == CM_OK && c->simulate) {
        rel = malloc((c->simulate + 1) * sizeof *rel);
        st = rel ? tg_simulate_seq(s->round, s->period, c->simulate,
                                   c->search.seed, rel)
                 : cm_error(CM_ENOMEM, "out of memory for %zu rounds",
                            c->simulate);
    }
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        goto cleanup;
    }
    if (c->simulate) {
        printf("# round disagreement bound\n");
        printf("# file=%s n=%zu period=%zu product_norm=%.6g seed=%llu "
               "dim=%d (bound: product_norm^floor(round/period))\n",
               c->file, e.n, e.period, e.norm,
               (unsigned long long)c->search.seed, TG_SIM_DIM);
        for (size_t r = 0; r <= c->simulate; r++)
            printf("%zu %.6g %.6g\n", r, rel[r],
                   pow(e.norm, (double)(r / e.period)));
    } else if (c->json) {
        printf("{\"file\":");
        print_json_string(c->file);
        printf(",\"n\":%zu,\"period\":%zu,\"degree_per_round\":[", e.n,
               e.period);
        for (size_t t = 0; t < e.period; t++)
            printf("%s%zu", t ? "," : "", deg[t]);
        printf("],\"max_degree\":%zu,", e.dmax);
        print_number("messages_per_period", e.messages, 0);
        print_number("product_norm", e.norm, 0);
        printf("\"exact\":%s,", e.exact ? "true" : "false");
        print_number("rounds_1e-3", e.rounds ? (double)e.rounds
                                             : e.rounds_est, 0);
        printf("\"weights\":\"file\"}\n");
    } else {
        printf("file          %s\n", c->file);
        printf("n             %zu\n", e.n);
        printf("period        %zu\n", e.period);
        printf("degree        ");
        for (size_t t = 0; t < e.period; t++)
            printf("%s%zu", t ? " " : "", deg[t]);
        printf("  (largest per round)\n");
        printf("messages      %.4g  (per node per period)\n", e.messages);
        printf("product_norm  %.3g  (||W_%zu ... W_0 - 11^T/n||_2%s)\n",
               e.norm, e.period - 1, e.exact ? "; exact averaging" : "");
        if (e.rounds)
            printf("rounds_1e-3   %zu\n", e.rounds);
        else
            printf("rounds_1e-3   %.1f  (estimated from the period)\n",
                   e.rounds_est);
        printf("weights       file\n");
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "topogen: write error on standard output\n");
        goto cleanup;
    }
    rc = EXIT_SUCCESS;
cleanup:
    free(rel);
    free(deg);
    return rc;
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
    cm_topo_seq seq;
    cm_topo_seq_init(&seq);
    cm_status st = cm_topo_seq_read(&seq, c->file);
    if (st == CM_OK && seq.n > TG_MAX_NODES)
        st = cm_error(CM_EINVAL, "%s: %zu nodes is too many to evaluate "
                      "(dense n x n spectra; at most %d)", c->file, seq.n,
                      TG_MAX_NODES);
    if (st == CM_OK && seq.period > 1) { /* time-varying */
        if (c->out_given)
            st = cm_error(CM_EINVAL, "-o: %s is time-varying (period %zu); "
                          "-o rewrites one-round files with new weights",
                          c->file, seq.period);
        else if (c->weights_given)
            st = cm_error(CM_EINVAL, "--weights: %s is time-varying (period "
                          "%zu) and carries its own weights", c->file,
                          seq.period);
        else if ((st = cm_topo_seq_validate(&seq, c->file, NULL)) == CM_OK)
            rc = evaluate_seq(c, &seq);
        if (st != CM_OK)
            fprintf(stderr, "topogen: %s\n", cm_last_error());
        cm_topo_seq_destroy(&seq);
        return rc;
    }
    if (st == CM_OK) { /* one round: today's evaluation */
        t = seq.round[0];
        cm_topo_init(&seq.round[0]);
    }
    cm_topo_seq_destroy(&seq);
    if (st == CM_OK && t.n > TG_MAX_NODES)
        st = cm_error(CM_EINVAL, "%s: %zu nodes is too many to evaluate "
                      "(dense n x n spectra; at most %d)", c->file, t.n,
                      TG_MAX_NODES);
    if (st == CM_OK)
        st = cm_topo_validate(&t, c->file);
    const char *wname = "file";
    tg_fdla_result fr = {0};
    if (st == CM_OK && (!t.self || c->weights_given)) {
        st = set_weights(c, &t, &fr);
        wname = weights_name(c);
    }
    tg_eval e;
    if (st == CM_OK)
        st = tg_eval_topo(&t, &e);
    if (st == CM_OK && c->out_given) { /* the weighted graph, atomically */
        char comment[1024], what[600];
        snprintf(what, sizeof what, "kind=file weights=%s source=%s", wname,
                 c->file);
        file_header(comment, sizeof comment, c, what, t.n, e.dmax, e.l2,
                    e.ln, e.slem, &fr);
        st = cm_topo_save(&t, c->out, comment);
    }
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
        printf("{\"file\":");
        print_json_string(c->file);
        printf(",\"n\":%zu,\"edges\":%zu,\"min_degree\":%zu,"
               "\"max_degree\":%zu,", e.n, e.m, e.dmin, e.dmax);
        print_number("diameter", e.diameter, 0);
        print_number("lambda2", e.l2, 0);
        print_number("lambdan", e.ln, 0);
        print_number("slem", e.slem, 0);
        print_number("slem_best_laplacian", e.slem_best, 0);
        print_number("rounds_1e-3", e.rounds, 0);
        if (c->fdla && fr.newton)
            print_number("fdla_lower_bound", fr.lower, 0);
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
        if (c->fdla && fr.newton)
            printf("fdla_bound    %.6f  (no W on this graph has a smaller "
                   "slem; gap %.1e)\n", fr.lower, fr.slem - fr.lower);
        printf("weights       %s\n", wname);
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
    if (c.eval)
        return evaluate(&c);
    return c.seq ? generate_seq(&c) : generate(&c);
}
