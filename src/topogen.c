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
 * main only parses flags into a config (one table, FLAGS, drives parsing,
 * the usage text and the file header), validates them (before any heavy
 * work), calls the tg_ library and reports. This file builds, learns and
 * writes a graph; `topogen eval` is topogen_eval.c, the time-varying
 * kinds topogen_seq.c. Flags take `--flag value` or `--flag=value`. Exit
 * status: 0 success, 1 a runtime failure (file unreadable or invalid,
 * output not writable), 2 a usage error.
 */
#include <errno.h>
#include <igraph.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_atomic.h"
#include "cm_mixing.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "cm_net.h"
#include "tg_fdla.h"
#include "tg_graph.h"
#include "tg_igraph.h"
#include "tg_groups.h"
#include "tg_search.h"
#include "topogen_eval.h"
#include "topogen_progress.h"
#include "tg_seq.h"
#include "topogen_seq.h"

extern void openblas_set_num_threads(int num_threads);

/* The program version, written into every file header. Bump it when a
 * change alters the graph or the bytes that given settings produce. */
#define TOPOGEN_VERSION "2.1"

#define EXIT_USAGE 2
#define MAX_ROUNDS 10000000

typedef struct {
    int eval;                /* `topogen eval FILE` mode */
    const char *file;        /* eval: the file to read */
    int json;                /* eval: one JSON object */
    size_t simulate;         /* eval: rounds to simulate (0: none) */
    int one_based;           /* eval: node ids start at 1 */
    int weights_given;       /* --weights was on the command line */
    tg_kind kind;            /* what to build */
    int seq;                 /* --kind is time-varying: seq_kind */
    tg_seq_kind seq_kind;    /* one-peer-exp or base */
    cm_weight_rule weights;  /* mixing weights (unless fdla) */
    int fdla;                /* --weights fdla: tg_fdla instead of a rule */
    cm_topo_format format;   /* output format (eval: input format) */
    tg_search_opts search;   /* n, d, objective, seed, iters, ... */
    const char *out;         /* -o FILE or "-" */
    int out_given;           /* -o on the command line (eval: writes) */
    int quiet;               /* no progress on stderr */
    int help, version;       /* --help, --version */
    const char *net;         /* eval: --net NET (NULL: no network model) */
    size_t params;           /* eval: --params, floats per worker array */
    size_t ranks, hosts;     /* eval: --ranks, --hosts (0: one per worker) */
} config;

typedef enum {
    F_SIZE, F_U64, F_SECONDS, F_KIND, F_WEIGHTS, F_OBJECTIVE, F_INIT,
    F_FORMAT, F_PATH, F_FLAG, F_SOLVER, F_NET
} ftype;

enum { GEN = 1, EVAL = 2, BOTH = 3 };          /* modes a flag belongs to */
enum { H_NONE, H_ALL, H_LEARNED };             /* written into the header */

typedef struct {
    const char *name;  /* "--kind"; alias (or NULL) e.g. "-q" */
    const char *alias;
    ftype type;
    size_t off;        /* offset of the field in config */
    int modes;         /* GEN, EVAL or BOTH */
    size_t lo, hi;     /* F_SIZE bounds */
    int header;        /* written into the header's settings line */
    const char *meta;  /* value name in the usage, or NULL */
    const char *help;  /* usage text */
} flag_spec;

#define OFF(f) offsetof(config, f)

/* Every flag of both modes; one row per flag. The rows marked H_ALL or
 * H_LEARNED are the settings that change the graph: the header records
 * them (resolved defaults included) so that `topogen SETTINGS` re-creates
 * the file byte for byte. */
static const flag_spec FLAGS[] = {
    {"-n", NULL, F_SIZE, OFF(search.n), GEN, 1, TG_MAX_NODES, H_ALL, "N",
     "nodes (default 64)"},
    {"-d", NULL, F_SIZE, OFF(search.d), GEN, 1, TG_MAX_NODES, H_ALL, "D",
     "degree for learned, random, rrl (default 4)"},
    {"--kind", NULL, F_KIND, OFF(kind), GEN, 0, 0, H_ALL, "KIND",
     "learned (default), rrl, ring, torus, hypercube, exponential, "
     "random, complete; time-varying: one-peer-exp (n a power of 2), base "
     "(at most D peers per round)"},
    {"--weights", NULL, F_WEIGHTS, OFF(weights), BOTH, 0, 0, H_ALL, "RULE",
     "mixing weights (default laplacian)"},
    {"--objective", NULL, F_OBJECTIVE, OFF(search.obj), GEN, 0, 0,
     H_LEARNED, "OBJ", "ratio (default: max lambda2/lambdan), gap, slem-mh"},
    {"--init", NULL, F_INIT, OFF(search.init_rrl), GEN, 0, 0, H_LEARNED,
     "INIT", "learned: start from random (default) or rrl"},
    {"--seed", NULL, F_U64, OFF(search.seed), BOTH, 0, 0, H_ALL, "S",
     "RNG seed (default 1)"},
    {"--iters", NULL, F_SIZE, OFF(search.iters), GEN, 1, SIZE_MAX / 4,
     H_LEARNED, "K", "annealing moves per restart (default: by n)"},
    {"--restarts", NULL, F_SIZE, OFF(search.restarts), GEN, 1, 1000000,
     H_LEARNED, "R", "independent annealing runs (default: 8 for n<=16, "
     "4 for n<=32, 1 below 96, else 2)"},
    {"--candidates", NULL, F_SIZE, OFF(search.candidates), GEN, 1, 65536,
     H_LEARNED, "C", "swaps ranked per move by their first-order energy "
     "from the eigenvectors, the best proposed (default 1 below n = 512, "
     "else 1024)"},
    {"--eigensolver", NULL, F_SOLVER, OFF(search.solver), GEN, 0, 0,
     H_LEARNED, "S", "dense (LAPACK) or sparse (Lanczos); default auto: "
     "sparse from n = 96"},
    {"--threads", NULL, F_SIZE, OFF(search.threads), GEN, 1, 64, H_NONE,
     "T", "restarts run in parallel (default: one per core; the graph does "
     "not depend on it)"},
    {"--time-limit", NULL, F_SECONDS, OFF(search.time_limit), GEN, 0, 0,
     H_LEARNED, "SEC", "finish the search within SEC seconds, cooling on "
     "the clock (then not deterministic)"},
    {"--t0", NULL, F_SECONDS, OFF(search.t0), GEN, 0, 0, H_LEARNED, "T",
     "annealing start temperature (energy units)"},
    {"--t1", NULL, F_SECONDS, OFF(search.t1), GEN, 0, 0, H_LEARNED, "T",
     "annealing end temperature"},
    {"--groups", NULL, F_SIZE, OFF(search.groups), BOTH, 1,
     CM_TOPO_MAX_NODES, H_LEARNED, "G", "learned: G equal groups of "
     "contiguous node ids (hosts: group of i = i*G/n, as --placement block) "
     "with at most --max-cross edges between groups; eval: print the cut"},
    {"--max-cross", NULL, F_SIZE, OFF(search.max_cross), GEN, 1,
     SIZE_MAX / 4, H_LEARNED, "C", "with --groups: at most C edges between "
     "groups (default: the least that connects them, G; 2 for G = 2)"},
    {"--no-screen", NULL, F_FLAG, OFF(search.no_screen), GEN, 0, 0, H_NONE,
     NULL, "score every move exactly (same graph, slower)"},
    {"--format", NULL, F_FORMAT, OFF(format), BOTH, 0, 0, H_ALL, "FMT",
     "edgelist (default), ncol, graphml, gml; eval: auto (default)"},
    {"-o", "--output", F_PATH, OFF(out), BOTH, 0, 0, H_NONE, "FILE",
     "write the topology atomically to FILE (default stdout); eval: write "
     "FILE with the weights evaluated (e.g. --weights fdla)"},
    {"--quiet", "-q", F_FLAG, OFF(quiet), BOTH, 0, 0, H_NONE, NULL,
     "no progress or summary on stderr"},
    {"--json", NULL, F_FLAG, OFF(json), EVAL, 0, 0, H_NONE, NULL,
     "eval: print one JSON object"},
    {"--simulate", NULL, F_SIZE, OFF(simulate), EVAL, 1, MAX_ROUNDS, H_NONE,
     "ROUNDS", "eval: print the gossip disagreement per round next to "
     "SLEM^t"},
    {"--one-based", NULL, F_FLAG, OFF(one_based), EVAL, 0, 0, H_NONE, NULL,
     "eval: node ids of the edge list start at 1 (detected when no id is "
     "0 and no n= is given)"},
    {"--net", NULL, F_NET, OFF(net), EVAL, 0, 0, H_NONE, "NET",
     "eval: model a gossip round on datacenter, wan or "
     "intra=ALPHA,BETA;inter=ALPHA,BETA, placed in blocks and by graph "
     "(time-varying: each round, in blocks), next to a ring all-reduce"},
    {"--params", NULL, F_SIZE, OFF(params), EVAL, 1, SIZE_MAX / 8, H_NONE,
     "P", "eval --net: floats per worker array (default 61706, LeNet)"},
    {"--ranks", NULL, F_SIZE, OFF(ranks), EVAL, 1, TG_MAX_NODES, H_NONE,
     "R", "eval --net: MPI ranks (default: one per node)"},
    {"--hosts", NULL, F_SIZE, OFF(hosts), EVAL, 1, TG_MAX_NODES, H_NONE,
     "H", "eval --net: hosts, ranks filled in blocks (default: --ranks)"},
    {"--help", "-h", F_FLAG, OFF(help), BOTH, 0, 0, H_NONE, NULL,
     "print this help"},
    {"--version", NULL, F_FLAG, OFF(version), BOTH, 0, 0, H_NONE, NULL,
     "print the version"},
};
#define N_FLAGS (sizeof FLAGS / sizeof FLAGS[0])

static void usage(FILE *fp)
{
    fputs("usage: topogen [-n N] [-d D] [--kind KIND] [--weights RULE] "
          "[OPTIONS] [-o FILE]\n"
          "       topogen eval FILE [--weights RULE] [--json] "
          "[--simulate ROUNDS]\n"
          "                    [OPTIONS]\n\n"
          "Flags take `--flag value` or `--flag=value`.\n", fp);
    for (size_t k = 0; k < N_FLAGS; k++) {
        const flag_spec *f = &FLAGS[k];
        char lhs[48];
        snprintf(lhs, sizeof lhs, "%s%s%s%s%s", f->name,
                 f->alias ? ", " : "", f->alias ? f->alias : "",
                 f->meta ? " " : "", f->meta ? f->meta : "");
        char text[512];
        snprintf(text, sizeof text, "%s%s%s%s", f->help,
                 f->type == F_WEIGHTS ? ": " : "",
                 f->type == F_WEIGHTS ? cm_weight_rule_list() : "",
                 f->type == F_WEIGHTS ? ", fdla (optimal, may be negative)"
                                      : "");
        /* word-wrap the help at 79 columns, indented under itself */
        fprintf(fp, "  %-20s", lhs);
        size_t col = 22;
        for (const char *w = text; *w;) {
            size_t len = strcspn(w, " ");
            if (col + 1 + len > 79) {
                fprintf(fp, "\n%22s", "");
                col = 22;
            }
            fprintf(fp, " %.*s", (int)len, w);
            col += 1 + len;
            w += len;
            while (*w == ' ')
                w++;
        }
        fputc('\n', fp);
    }
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "topogen: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'topogen --help'.\n");
    va_end(ap);
    return EXIT_USAGE;
}

static int status_to_usage(void)
{
    return usage_error("%s", cm_last_error());
}

/* Parses one value v for flag f into c. 0 on success, else the exit
 * status of the usage error already printed. */
static int parse_value(const flag_spec *f, const char *v, config *c)
{
    void *dst = (char *)c + f->off;
    char *end;
    errno = 0;
    switch (f->type) {
    case F_SIZE:
    case F_U64: {
        int nonneg = f->type == F_U64;
        unsigned long long x = 0;
        if (*v && *v != '-' && *v != '+' && *v != ' ')
            x = strtoull(v, &end, 10);
        if (!*v || *v == '-' || *v == '+' || *v == ' ' || errno || *end ||
            (!nonneg && x == 0))
            return usage_error("%s: expected a %s integer", f->name,
                               nonneg ? "non-negative" : "positive");
        if (f->type == F_U64) {
            *(uint64_t *)dst = (uint64_t)x;
        } else {
            if (x > f->hi)
                return usage_error("%s: at most %zu (got %s)", f->name,
                                   f->hi, v);
            if (x < f->lo)
                return usage_error("%s: at least %zu (got %s)", f->name,
                                   f->lo, v);
            *(size_t *)dst = (size_t)x;
        }
        return 0;
    }
    case F_SECONDS: {
        double x = strtod(v, &end);
        if (!*v || errno || *end || !(x > 0.0) || !isfinite(x))
            return usage_error("%s: expected a positive number%s", f->name,
                               strcmp(f->name, "--time-limit") == 0
                                   ? " of seconds" : "");
        *(double *)dst = x;
        return 0;
    }
    case F_KIND:
        c->seq = tg_seq_kind_parse(v, &c->seq_kind);
        return c->seq || tg_kind_parse(v, dst) == CM_OK ? 0
                                                        : status_to_usage();
    case F_WEIGHTS:
        c->fdla = strcmp(v, "fdla") == 0;
        if (c->fdla) {
            c->weights_given = 1;
            return 0;
        }
        if (cm_weight_rule_parse(v, dst) != CM_OK)
            return usage_error("--weights: unknown weight rule '%s' "
                               "(expected %s, fdla)", v,
                               cm_weight_rule_list());
        c->weights_given = 1;
        return 0;
    case F_OBJECTIVE:
        return tg_objective_parse(v, dst) == CM_OK ? 0 : status_to_usage();
    case F_INIT:
        if (strcmp(v, "rrl") == 0 || strcmp(v, "random") == 0) {
            *(int *)dst = strcmp(v, "rrl") == 0;
            return 0;
        }
        return usage_error("--init: unknown start '%s' (expected random or "
                           "rrl)", v);
    case F_SOLVER:
        return tg_solver_parse(v, dst) == CM_OK ? 0 : status_to_usage();
    case F_FORMAT:
        return cm_topo_format_parse(v, c->eval, "--format", dst) == CM_OK
                   ? 0 : status_to_usage();
    case F_PATH:
        if (!*v)
            return usage_error("%s: empty file name", f->name);
        if (c->eval && strcmp(v, "-") == 0)
            return usage_error("%s: 'topogen eval' prints its report on "
                               "stdout; give a file name", f->name);
        *(const char **)dst = v;
        c->out_given = 1;
        return 0;
    case F_FLAG:
        *(int *)dst = 1;
        return 0;
    case F_NET: {
        cm_net net;
        if (cm_net_parse(v, &net) != CM_OK)
            return status_to_usage();
        *(const char **)dst = v;
        return 0;
    }
    }
    return usage_error("%s: internal error", f->name);
}

/* Parses argv into c. Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, config *c)
{
    int i = 1;
    if (argc > 1 && strcmp(argv[1], "eval") == 0) {
        c->eval = 1;
        c->format = CM_FORMAT_AUTO;
        i = 2;
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        if ((a[0] != '-' || strcmp(a, "-") == 0) && c->eval && !c->file) {
            c->file = a;
            continue;
        }
        const char *eq = a[0] == '-' ? strchr(a, '=') : NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const flag_spec *f = NULL;
        for (size_t k = 0; k < N_FLAGS && !f; k++)
            if ((strlen(FLAGS[k].name) == len &&
                 strncmp(a, FLAGS[k].name, len) == 0) ||
                (FLAGS[k].alias && strlen(FLAGS[k].alias) == len &&
                 strncmp(a, FLAGS[k].alias, len) == 0))
                f = &FLAGS[k];
        if (!f)
            return usage_error(a[0] == '-' ? "unknown flag '%.*s'"
                                           : "unexpected argument '%.*s'",
                               (int)len, a);
        if (!(f->modes & (c->eval ? EVAL : GEN)))
            return usage_error(c->eval ? "%s: not a flag of 'topogen eval'"
                                       : "%s: only 'topogen eval FILE' takes "
                                         "it", f->name);
        const char *v;
        if (f->type == F_FLAG) {
            if (eq)
                return usage_error("%s: takes no value", f->name);
            v = "";
        } else if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            return usage_error("%s: missing value", f->name);
        }
        int rc = parse_value(f, v, c);
        if (rc)
            return rc;
        if (c->help) {
            usage(stdout);
            return 0;
        }
        if (c->version) {
            printf("topogen %s\n", TOPOGEN_VERSION);
            return 0;
        }
    }
    if (c->eval && !c->file)
        return usage_error("eval: missing FILE");
    if (c->json && c->simulate)
        return usage_error("--simulate: cannot be combined with --json (the "
                           "simulation prints columns)");
    if (c->search.max_cross && !c->search.groups)
        return usage_error("--max-cross: needs --groups");
    if (c->search.groups && c->simulate)
        return usage_error("--groups: cannot be combined with --simulate");
    if (!c->eval && c->search.groups &&
        (c->seq || c->kind != TG_KIND_LEARNED))
        return usage_error("--groups: only --kind learned is learned for "
                           "groups ('topogen eval FILE --groups G' prints "
                           "any graph's cut)");
    if (!c->eval && c->search.groups && !c->seq &&
        tg_kind_check(c->kind, c->search.n, c->search.d) == CM_OK &&
        tg_groups_check(c->search.n, c->search.d, c->search.groups,
                        c->search.max_cross
                            ? c->search.max_cross
                            : tg_groups_min_cross(c->search.groups)) != CM_OK)
        return status_to_usage();
    if (!c->net && (c->params || c->ranks || c->hosts))
        return usage_error("--params, --ranks and --hosts need --net");
    if (c->net && c->simulate)
        return usage_error("--net: cannot be combined with --simulate");
    if (!c->eval && (c->seq ? tg_seq_check(c->seq_kind, c->search.n,
                                           c->search.d)
                            : tg_kind_check(c->kind, c->search.n,
                                            c->search.d)) != CM_OK)
        return status_to_usage();
    if (!c->eval && c->seq && c->weights_given)
        return usage_error("--weights: --kind %s carries its own weights "
                           "(exact averaging)", tg_seq_kind_name(c->seq_kind));
    if (!c->eval && c->seq && c->format != CM_FORMAT_EDGELIST)
        return usage_error("--format: --kind %s writes one edge list section "
                           "per round (--format edgelist)",
                           tg_seq_kind_name(c->seq_kind));
    return -1;
}

/* The --weights choice's name (topogen_eval.c holds the dispatch). */
static const char *weights_name(const config *c)
{
    return topogen_weights_name(c->fdla, c->weights);
}

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

/* The value of header flag f in c, as the command line would give it. */
static void flag_value(const flag_spec *f, const config *c, char *buf,
                       size_t cap)
{
    const void *src = (const char *)c + f->off;
    switch (f->type) {
    case F_SIZE: snprintf(buf, cap, "%zu", *(const size_t *)src); break;
    case F_U64:
        snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)src);
        break;
    case F_SECONDS: snprintf(buf, cap, "%.17g", *(const double *)src); break;
    case F_KIND:
        snprintf(buf, cap, "%s", c->seq ? tg_seq_kind_name(c->seq_kind)
                                        : tg_kind_name(c->kind));
        break;
    case F_WEIGHTS: snprintf(buf, cap, "%s", weights_name(c)); break;
    case F_OBJECTIVE:
        snprintf(buf, cap, "%s", tg_objective_name(c->search.obj));
        break;
    case F_INIT:
        snprintf(buf, cap, "%s", c->search.init_rrl ? "rrl" : "random");
        break;
    case F_FORMAT:
        snprintf(buf, cap, "%s", cm_topo_format_name(c->format));
        break;
    case F_SOLVER:
        snprintf(buf, cap, "%s", tg_solver_name(c->search.solver));
        break;
    default: buf[0] = '\0'; break;
    }
}

/* Header rows that apply to c: all H_ALL rows, and H_LEARNED rows for the
 * learned kind; --time-limit only when set. */
static int in_header(const flag_spec *f, const config *c)
{
    if (f->header == H_NONE)
        return 0;
    if (f->header == H_LEARNED && (c->kind != TG_KIND_LEARNED || c->seq))
        return 0;
    if (c->seq && f->type == F_WEIGHTS)
        return 0;
    if (f->off == OFF(search.time_limit) && !(c->search.time_limit > 0.0))
        return 0;
    if ((f->off == OFF(search.groups) || f->off == OFF(search.max_cross)) &&
        !c->search.groups)
        return 0;
    return 1;
}

/* The settings as one command line ("-n 64 -d 4 --kind learned ..."). */
static void settings_line(const config *c, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < N_FLAGS; k++) {
        if (!in_header(&FLAGS[k], c))
            continue;
        char v[64];
        flag_value(&FLAGS[k], c, v, sizeof v);
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0,
                                "%s%s %s", len ? " " : "", FLAGS[k].name, v);
    }
}

/* Writes t in c's format to path ("-" stdout) atomically. */
static cm_status write_topology(const config *c, const cm_topo *t,
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
                          weights_name(c), seed, settings,
                          l2b, lnb, sb, "implied: W_ii = 1 - sum_j W_ij"};
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
    settings_line(c, settings, sizeof settings);
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
             tg_objective_name(c->search.obj), weights_name(c),
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
                weights_name(c), res.moves, res.evals,
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
static int generate_seq(const config *c)
{
    char settings[1024];
    settings_line(c, settings, sizeof settings);
    const topogen_seq_job job = {c->seq_kind, c->search.n, c->search.d,
                                 c->search.seed, settings, TOPOGEN_VERSION,
                                 c->out, c->quiet};
    return topogen_seq_generate(&job);
}

/* `topogen eval FILE` (topogen_eval.c), with c's eval flags. */
static int evaluate(const config *c)
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

    config c;
    memset(&c, 0, sizeof c);
    c.kind = TG_KIND_LEARNED;
    c.weights = CM_WEIGHTS_LAPLACIAN;
    c.format = CM_FORMAT_EDGELIST;
    c.out = "-";
    tg_search_opts_default(&c.search);
    int rc = parse_args(argc, argv, &c);
    if (rc >= 0)
        return rc;
    if (c.eval)
        return evaluate(&c);
    return c.seq ? generate_seq(&c) : generate(&c);
}
