/* topogen_cli: topogen's command line (part of topogen's main, linked
 * into topogen only by the Makefile's topo/cli/ rule; like
 * topo/cli/topogen.c it prints and returns exit statuses). One table, FLAGS,
 * drives parsing, the usage text and the settings line of a file header,
 * so a flag is added in one place. Flags take `--flag value` or
 * `--flag=value`; every check that needs no heavy work (sizes, kinds,
 * combinations) is made here, before topogen.c builds anything.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "tg_graph.h"
#include "tg_groups.h"
#include "tg_search.h"
#include "tg_seq.h"
#include "topogen_cli.h"
#include "topogen_eval.h"

#define MAX_ROUNDS 10000000

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

#define OFF(f) offsetof(topogen_config, f)

/* Every flag of both modes; one row per flag. The rows marked H_ALL or
 * H_LEARNED are the settings that change the graph: the header records
 * them (resolved defaults included) so that `topogen SETTINGS` re-creates
 * the file byte for byte. */
static const flag_spec FLAGS[] = {
    {"-n", NULL, F_SIZE, OFF(search.n), GEN, 1, TG_MAX_BUILD, H_ALL, "N",
     "nodes (default 64; learned at most 4096, other kinds 10^6)"},
    {"-d", NULL, F_SIZE, OFF(search.d), GEN, 1, TG_MAX_BUILD, H_ALL, "D",
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
    {"--ranks", NULL, F_SIZE, OFF(ranks), EVAL, 1, TG_MAX_BUILD, H_NONE,
     "R", "eval --net: MPI ranks (default: one per node)"},
    {"--hosts", NULL, F_SIZE, OFF(hosts), EVAL, 1, TG_MAX_BUILD, H_NONE,
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
static int parse_value(const flag_spec *f, const char *v, topogen_config *c)
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

int topogen_parse_args(int argc, char **argv, topogen_config *c)
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
static const char *weights_name(const topogen_config *c)
{
    return topogen_weights_name(c->fdla, c->weights);
}

/* The value of header flag f in c, as the command line would give it. */
static void flag_value(const flag_spec *f, const topogen_config *c, char *buf,
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
static int in_header(const flag_spec *f, const topogen_config *c)
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

void topogen_settings_line(const topogen_config *c, char *buf, size_t cap)
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

void topogen_config_default(topogen_config *c)
{
    memset(c, 0, sizeof *c);
    c->kind = TG_KIND_LEARNED;
    c->weights = CM_WEIGHTS_LAPLACIAN;
    c->format = CM_FORMAT_EDGELIST;
    c->out = "-";
    tg_search_opts_default(&c->search);
}
