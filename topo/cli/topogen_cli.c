/* topogen_cli: topogen's command line (part of topogen's main, linked
 * into topogen only by the Makefile's topo/cli/ rule; like
 * topo/cli/topogen.c it prints and returns exit statuses). One table, FLAGS,
 * drives parsing, the usage text and the settings line of a file header,
 * so a flag is added in one place. Flags take `--flag value` or
 * `--flag=value`; every check that needs no heavy work (sizes, kinds,
 * combinations) is made here, before topogen.c builds anything.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_flags.h"
#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "tg_graph.h"
#include "tg_groups.h"
#include "tg_neff.h"
#include "tg_search.h"
#include "tg_seq.h"
#include "topogen_cli.h"
#include "topogen_data.h"
#include "topogen_eval.h"

#define MAX_ROUNDS 10000000

typedef enum {
    F_SIZE, F_U64, F_SECONDS, F_KIND, F_WEIGHTS, F_OBJECTIVE, F_INIT,
    F_FORMAT, F_PATH, F_FLAG, F_SOLVER, F_NET, F_GAMMA, F_LABELS, F_REAL,
    F_INTER, F_CWEIGHTS, F_ALLREDUCE, F_DIR, F_TARGET
} ftype;

/* modes a flag belongs to: generation (and compare), eval, plan */
enum { GEN = 1, EVAL = 2, BOTH = 3, PLAN = 4, ALL = 7 };
enum { H_NONE, H_ALL, H_LEARNED, H_DATA };     /* written into the header */

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
    {"-n", NULL, F_SIZE, OFF(search.n), GEN | PLAN, 1, TG_MAX_BUILD, H_ALL, "N",
     "nodes (default 64; learned at most 65536, 4096 with n_eff, "
     "--directed, --groups or --labels; other kinds 10^6)"},
    {"-d", NULL, F_SIZE, OFF(search.d), GEN | PLAN, 1, TG_MAX_BUILD, H_ALL, "D",
     "degree for learned, random, rrl (default 4)"},
    {"--kind", NULL, F_KIND, OFF(kind), GEN, 0, 0, H_ALL, "KIND",
     "learned (default), rrl, ring, torus, hypercube, exponential-sym "
     "(i ~ i +- 2^k; old name exponential), random, complete; "
     "time-varying: one-peer-exp (n a power of 2), base (at most D peers "
     "per round); directed: perm (D random permutations), exp-directed "
     "(i -> i + 2^k), epidemic (a fresh graph of D peers each round); from "
     "--labels: stl-fw (D the budget), dcliques"},
    {"--directed", NULL, F_FLAG, OFF(directed), GEN, 0, 0, H_NONE, NULL,
     "learned: search over D permutations (directed, D sends and receives "
     "per node) for --objective neff (default) or ratio (min ||W - J||_2)"},
    {"--local", NULL, F_FLAG, OFF(local), GEN, 0, 0, H_NONE, NULL,
     "epidemic: EL-Local (each node samples D peers) instead of EL-Oracle"},
    {"--gamma", NULL, F_GAMMA, OFF(gamma), BOTH, 0, 0, H_NONE, "G[,G...]",
     "n_eff's gamma (default 0.951): eval prints n_eff at each; --weights "
     "neff optimises for the first"},
    {"--weights", NULL, F_WEIGHTS, OFF(weights), BOTH, 0, 0, H_ALL, "RULE",
     "mixing weights (default laplacian)"},
    {"--objective", NULL, F_OBJECTIVE, OFF(search.obj), GEN, 0, 0,
     H_LEARNED, "OBJ", "ratio (default: max lambda2/lambdan), gap, slem-mh, "
     "neff[:GAMMA] (max n_eff of the MH weights), neff-per-message[:GAMMA]"},
    {"--init", NULL, F_INIT, OFF(search.init_rrl), GEN, 0, 0, H_LEARNED,
     "INIT", "learned: start from random (default) or rrl"},
    {"--seed", NULL, F_U64, OFF(search.seed), ALL, 0, 0, H_ALL, "S",
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
    {"--swaps", NULL, F_SIZE, OFF(search.swaps), GEN, 1, TG_SEARCH_MAX_SWAPS,
     H_LEARNED, "S", "at most S node-disjoint swaps per move, the best "
     "candidates predicting a gain, judged by one eigensolve (default 1 "
     "below n = 2048, else n/512)"},
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
    {"--quiet", "-q", F_FLAG, OFF(quiet), ALL, 0, 0, H_NONE, NULL,
     "no progress or summary on stderr"},
    {"--json", NULL, F_FLAG, OFF(json), EVAL | PLAN, 0, 0, H_NONE, NULL,
     "eval, plan: print one JSON object"},
    {"--simulate", NULL, F_SIZE, OFF(simulate), EVAL, 1, MAX_ROUNDS, H_NONE,
     "ROUNDS", "eval: print the gossip disagreement per round next to "
     "SLEM^t"},
    {"--one-based", NULL, F_FLAG, OFF(one_based), EVAL, 0, 0, H_NONE, NULL,
     "eval: node ids of the edge list start at 1 (detected when no id is "
     "0 and no n= is given)"},
    {"--net", NULL, F_NET, OFF(net), EVAL | PLAN, 0, 0, H_NONE, "NET",
     "eval: model a gossip round on datacenter, wan or "
     "intra=ALPHA,BETA;inter=ALPHA,BETA, placed in blocks and by graph "
     "(time-varying: each round, in blocks), next to every all-reduce "
     "algorithm; plan: the network to plan for"},
    {"--params", NULL, F_SIZE, OFF(params), EVAL | PLAN, 1, SIZE_MAX / 8, H_NONE,
     "P", "eval --net, plan: floats per worker array (default 61706, "
     "LeNet)"},
    {"--ranks", NULL, F_SIZE, OFF(ranks), EVAL, 1, TG_MAX_BUILD, H_NONE,
     "R", "eval --net: MPI ranks (default: one per node)"},
    {"--hosts", NULL, F_SIZE, OFF(hosts), EVAL | PLAN, 1, TG_MAX_BUILD, H_NONE,
     "H", "eval --net: hosts, ranks filled in blocks (default: --ranks); "
     "plan: hosts of the N workers, one per rank (default N)"},
    {"--allreduce", NULL, F_ALLREDUCE, OFF(allreduce), EVAL, 0, 0, H_NONE,
     "ALG", "eval --net: the all-reduce algorithm that prices all-reduce: "
     "auto (default: what Open MPI 4.1 runs for dpsgd-train's in-place "
     "MPI_Iallreduce, binomial), best, ring, recursive-doubling, "
     "rabenseifner, binomial, hierarchical; every one is printed"},
    {"--labels", NULL, F_LABELS, OFF(labels), ALL, 0, 0, H_DATA, "COUNTS",
     "the partition's class counts (dpsgd-train --write-partition): "
     "needed by --kind stl-fw and dcliques; learned: add --hetero-weight "
     "times the neighbourhood heterogeneity H to the energy; eval: print "
     "H = (1/n)||(W - J) Pi||_F^2"},
    {"--hetero-weight", NULL, F_REAL, OFF(search.hetero_weight), GEN, 0, 0,
     H_DATA, "MU", "learned --labels: weight of H in the energy (default "
     "10; topo/README.md says how to choose it)"},
    {"--lambda", NULL, F_REAL, OFF(lambda), GEN, 0, 0, H_DATA, "L",
     "stl-fw: weight of ||W - J||_F^2 in the objective (default 0.1)"},
    {"--symmetric", NULL, F_FLAG, OFF(symmetric), GEN, 0, 0, H_DATA, NULL,
     "stl-fw: symmetric atoms (P + P^T)/2, an undirected graph"},
    {"--inter", NULL, F_INTER, OFF(inter), GEN, 0, 0, H_DATA, "LINKS",
     "dcliques: ring, small-world (default) or fractal links between "
     "cliques"},
    {"--clique-weights", NULL, F_CWEIGHTS, OFF(clique_equal), GEN, 0, 0,
     H_DATA, "W", "dcliques: mh (default) or equal (equal-clique: every "
     "clique member 1/(c+1), inter-clique edges taken from the self "
     "weight)"},
    {"--results", NULL, F_DIR, OFF(results), PLAN, 0, 0, H_NONE, "DIR",
     "plan: reprice the experiments of -n workers in DIR (grid.env, runs/, "
     "modelled.tsv; DIR or one level down): steps to --target x the "
     "modelled step"},
    {"--target", NULL, F_TARGET, OFF(target), PLAN, 0, 0, H_NONE, "ACC",
     "plan --results: the test accuracy to reach (default 0.85)"},
    {"--help", "-h", F_FLAG, OFF(help), ALL, 0, 0, H_NONE, NULL,
     "print this help"},
    {"--version", NULL, F_FLAG, OFF(version), ALL, 0, 0, H_NONE, NULL,
     "print the version"},
};
#define N_FLAGS (sizeof FLAGS / sizeof FLAGS[0])

/* The usage of one mode (ALL: every flag, topogen --help). */
static void usage(FILE *fp, int mode)
{
    if (mode == EVAL)
        fputs("usage: topogen eval FILE [--weights RULE] [--json] "
              "[--simulate ROUNDS]\n"
              "                    [--net NET [--ranks R] [--hosts H] "
              "[--params P]\n"
              "                    [--allreduce ALG]] [OPTIONS]\n\n"
              "Report on a topology file; its flags:\n", fp);
    else if (mode == PLAN)
        fputs("usage: topogen plan -n N [-d D] --net NET [--hosts S] "
              "[--params P]\n"
              "                    [--labels COUNTS] [--results DIR "
              "[--target ACC]] [--json]\n\n"
              "One ranked table of what to run on that network: all-reduce "
              "by algorithm and\n"
              "gossip on the graphs topogen builds, each with its modelled "
              "time per\n"
              "communication, the dpsgd-train flags and the topogen "
              "command; its flags:\n", fp);
    else if (mode == GEN + 8)
        fputs("usage: topogen compare [-n N] [-d D] [--seed S] [--gamma G] "
              "[search flags]\n\n"
              "SLEM, n_eff and messages of every kind at -n, -d (no "
              "network; `topogen plan`\n"
              "ranks by modelled time on a network); the generation "
              "flags it takes:\n", fp);
    else
        fputs("usage: topogen [-n N] [-d D] [--kind KIND] [--weights RULE] "
              "[OPTIONS] [-o FILE]\n"
              "       topogen eval FILE [--weights RULE] [--json] "
              "[--simulate ROUNDS]\n"
              "                    [OPTIONS]\n"
              "       topogen plan -n N [-d D] --net NET [OPTIONS]\n"
              "       topogen compare [-n N] [-d D] [OPTIONS]\n"
              "       topogen repair FILE --remove LIST -o NEW [OPTIONS]\n"
              "(`topogen eval --help`, `topogen plan --help`, `topogen "
              "compare --help`\n"
              "and `topogen repair --help` print their flags alone)\n\n", fp);
    fputs("Flags take `--flag value` or `--flag=value`.\n", fp);
    int want = mode == GEN + 8 ? GEN : mode;
    for (size_t k = 0; k < N_FLAGS; k++) {
        const flag_spec *f = &FLAGS[k];
        if (!(f->modes & want))
            continue;
        char lhs[48];
        snprintf(lhs, sizeof lhs, "%s%s%s%s%s", f->name,
                 f->alias ? ", " : "", f->alias ? f->alias : "",
                 f->meta ? " " : "", f->meta ? f->meta : "");
        char text[512];
        snprintf(text, sizeof text, "%s%s%s%s", f->help,
                 f->type == F_WEIGHTS ? ": " : "",
                 f->type == F_WEIGHTS ? cm_weight_rule_list() : "",
                 f->type == F_WEIGHTS ? ", fdla (optimal SLEM, may be "
                                        "negative), neff (optimal n_eff at "
                                        "--gamma, certified), neff-alpha "
                                        "(best W = I - alpha L for n_eff)"
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

/* Set while topogen_config_words parses for the library: usage errors
 * then go to the last-error message instead of stderr. */
static _Thread_local int quiet_errors;

static int usage_error(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (quiet_errors)
        cm_error(CM_EINVAL, "%s", msg);
    else
        fprintf(stderr, "topogen: %s\nTry 'topogen --help'.\n", msg);
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
        c->datakind = strcmp(v, "stl-fw") == 0 ? TOPOGEN_DK_STLFW
                      : strcmp(v, "dcliques") == 0 ? TOPOGEN_DK_DCLIQUES : 0;
        if (c->datakind) { /* built by topogen_data.c, not a tg_kind */
            c->kind = TG_KIND_RANDOM;
            c->seq = 0;
            c->exp_sym = 0;
            c->dkind = TOPOGEN_D_NONE;
            return 0;
        }
        c->exp_sym = strcmp(v, "exponential-sym") == 0   ? 1
                     : strcmp(v, "exponential") == 0 ? 2 : 0;
        c->dkind = strcmp(v, "perm") == 0           ? TOPOGEN_D_PERM
                   : strcmp(v, "exp-directed") == 0 ? TOPOGEN_D_EXP
                   : strcmp(v, "epidemic") == 0     ? TOPOGEN_D_EPIDEMIC
                                                    : TOPOGEN_D_NONE;
        if (c->exp_sym) {
            c->seq = 0;
            *(tg_kind *)dst = TG_KIND_EXPONENTIAL;
            return 0;
        }
        if (c->dkind) {
            c->seq = 0;
            *(tg_kind *)dst = TG_KIND_LEARNED; /* not used */
            return 0;
        }
        c->seq = tg_seq_kind_parse(v, &c->seq_kind);
        if (c->seq || tg_kind_parse(v, dst) == CM_OK)
            return 0;
        return usage_error("--kind: unknown kind '%s' (expected learned, "
                           "rrl, ring, torus, hypercube, exponential-sym, "
                           "random, complete; directed: perm, exp-directed, "
                           "epidemic; time-varying: one-peer-exp, base; "
                           "from --labels: stl-fw, dcliques)", v);
    case F_WEIGHTS:
        c->fdla = strcmp(v, "fdla") == 0         ? TOPOGEN_W_FDLA
                  : strcmp(v, "neff") == 0       ? TOPOGEN_W_NEFF
                  : strcmp(v, "neff-alpha") == 0 ? TOPOGEN_W_NEFF_ALPHA
                                                 : TOPOGEN_W_RULE;
        if (c->fdla) {
            c->weights_given = 1;
            return 0;
        }
        if (cm_weight_rule_parse(v, dst) != CM_OK)
            return usage_error("--weights: unknown weight rule '%s' "
                               "(expected %s, fdla, neff, neff-alpha)", v,
                               cm_weight_rule_list());
        c->weights_given = 1;
        return 0;
    case F_OBJECTIVE:
        c->obj_given = 1;
        return tg_objective_parse_gamma(v, dst, &c->search.obj_gamma) ==
                       CM_OK
                   ? 0
                   : status_to_usage();
    case F_GAMMA: {
        double g[TG_NEFF_MAX_GAMMAS];
        size_t k;
        if (tg_neff_parse_gammas(v, "--gamma", g, &k) != CM_OK)
            return status_to_usage();
        *(const char **)dst = v;
        return 0;
    }
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
    case F_LABELS:
        if (!*v)
            return usage_error("--labels: empty file name");
        *(const char **)dst = v;
        return 0;
    case F_REAL: {
        double x = strtod(v, &end);
        if (!*v || errno || *end || !(x >= 0.0) || !isfinite(x))
            return usage_error("%s: expected a number >= 0", f->name);
        *(double *)dst = x;
        return 0;
    }
    case F_INTER:
        if (strcmp(v, "ring") == 0 || strcmp(v, "small-world") == 0 ||
            strcmp(v, "fractal") == 0) {
            *(int *)dst = v[0] == 'r' ? 1 : v[0] == 's' ? 0 : 2;
            return 0;
        }
        return usage_error("--inter: unknown '%s' (expected ring, "
                           "small-world or fractal)", v);
    case F_CWEIGHTS:
        if (strcmp(v, "mh") == 0 || strcmp(v, "equal") == 0) {
            *(int *)dst = v[0] == 'e';
            return 0;
        }
        return usage_error("--clique-weights: unknown '%s' (expected mh or "
                           "equal)", v);
    case F_DIR:
        if (!*v)
            return usage_error("%s: empty directory name", f->name);
        *(const char **)dst = v;
        return 0;
    case F_TARGET: {
        double x = strtod(v, &end);
        if (!*v || errno || *end || !(x > 0.0 && x <= 1.0))
            return usage_error("%s: expected an accuracy in (0, 1]",
                               f->name);
        *(double *)dst = x;
        return 0;
    }
    case F_ALLREDUCE:
        if (cm_net_ar_parse(v, "--allreduce", dst) != CM_OK)
            return status_to_usage();
        c->allreduce_given = 1;
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

/* plan's flags together: -n and --net given, the sizes it can build */
static int plan_check(topogen_config *c, int n_given)
{
    if (!n_given)
        return usage_error("plan: -n N is required (the workers)");
    if (!c->net)
        return usage_error("plan: --net NET is required (datacenter, wan or "
                           "intra=ALPHA,BETA;inter=ALPHA,BETA)");
    if (c->search.n < 2 || c->search.n > TG_MAX_NODES)
        return usage_error("plan: -n %zu: give 2..%d workers (plan builds "
                           "the learned graphs it prices)", c->search.n,
                           TG_MAX_NODES);
    if (tg_kind_check(TG_KIND_RANDOM, c->search.n, c->search.d) != CM_OK)
        return status_to_usage();
    if (c->hosts > c->search.n)
        return usage_error("--hosts %zu: more hosts than the %zu workers "
                           "(one per rank)", c->hosts, c->search.n);
    if (c->target > 0 && !c->results)
        return usage_error("--target: needs --results DIR");
    if (c->results && c->hosts && c->hosts != c->search.n)
        return usage_error("--results: the experiment's modelled.tsv prices "
                           "every worker on its own host; drop --hosts (or "
                           "give --hosts %zu)", c->search.n);
    if (!c->target)
        c->target = 0.85;
    return -1;
}

static int is_switch(const void *row)
{
    return ((const flag_spec *)row)->type == F_FLAG;
}

/* The degree --kind hypercube (log2 n) or exponential-sym (the distinct
 * offsets +-2^k mod n) has on n nodes; 0 when n does not fit the kind
 * (tg_kind_check says why). */
static size_t implied_degree(tg_kind kind, size_t n)
{
    size_t d = 0;
    if (kind == TG_KIND_HYPERCUBE) {
        if (n < 2 || (n & (n - 1)))
            return 0;
        for (size_t s = 1; s < n; s <<= 1)
            d++;
        return d;
    }
    size_t off[2 * 64];
    for (size_t s = 1; s < n; s <<= 1) { /* +s and -s mod n, distinct */
        const size_t pm[2] = {s, n - s};
        for (int k = 0; k < 2; k++) {
            size_t j = 0;
            while (j < d && off[j] != pm[k])
                j++;
            if (j == d)
                off[d++] = pm[k];
        }
    }
    return d;
}

/* The command a mistyped first word probably meant ("evaluate", "eva",
 * "comapre"), or NULL. */
static const char *near_command(const char *w)
{
    static const char *const cmds[] = {"eval", "compare"};
    size_t lw = strlen(w);
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        size_t lc = strlen(cmds[k]);
        if ((lw > lc && strncmp(w, cmds[k], lc) == 0) ||
            (lw >= 3 && lw < lc && strncmp(cmds[k], w, lw) == 0) ||
            cm_flags_distance(w, lw, cmds[k], lc, 2) <= 2)
            return cmds[k];
    }
    return NULL;
}

int topogen_parse_args(int argc, char **argv, topogen_config *c)
{
    int i = 1;
    int d_given = 0, hetero_given = 0; /* on this command line */
    if (argc > 1 && strcmp(argv[1], "eval") == 0) {
        c->eval = 1;
        c->format = CM_FORMAT_AUTO;
        i = 2;
    } else if (argc > 1 && strcmp(argv[1], "compare") == 0) {
        c->compare = 1; /* generation's flags; topogen_compare.c */
        i = 2;
    } else if (argc > 1 && strcmp(argv[1], "plan") == 0) {
        c->plan = 1; /* topogen_plan.c */
        i = 2;
    }
    const int mode = c->plan ? PLAN : c->eval ? EVAL : GEN;
    const char *sub = c->plan ? "plan" : c->eval ? "eval" : "compare";
    int n_given = 0;
    if (!c->eval && !c->compare && argc > 1 && argv[1][0] != '-' &&
        near_command(argv[1]))
        return usage_error("unknown command '%s' (did you mean '%s'?)",
                           argv[1], near_command(argv[1]));
    const cm_flag_table table = {FLAGS, N_FLAGS, sizeof FLAGS[0],
                                 offsetof(flag_spec, name),
                                 offsetof(flag_spec, alias), NULL, 0,
                                 is_switch};
    cm_flag_iter it = {i, NULL, NULL, NULL, NULL};
    for (;;) {
        int done = 0;
        if (cm_flags_next(&table, argc, argv, c->eval && !c->file, &it,
                          &done) != CM_OK)
            return status_to_usage();
        if (done)
            break;
        if (it.arg) {
            c->file = it.arg;
            continue;
        }
        const flag_spec *f = it.row;
        if (!(f->modes & mode) && (c->eval || c->plan || c->compare))
            return usage_error("%s: not a flag of 'topogen %s'", f->name,
                               sub);
        if (!(f->modes & mode))
            return usage_error("%s: only 'topogen %s' takes it", f->name,
                               f->modes & EVAL ? "eval FILE" : "plan");
        n_given |= f->off == OFF(search.n) && f->type == F_SIZE;
        d_given |= strcmp(f->name, "-d") == 0;
        hetero_given |= strcmp(f->name, "--hetero-weight") == 0;
        int rc = parse_value(f, it.value ? it.value : "", c);
        if (rc)
            return rc;
        if (c->help) {
            usage(stdout, c->compare ? GEN + 8 : c->eval || c->plan ? mode
                                                                    : ALL);
            return 0;
        }
        if (c->version) {
            printf("topogen %s\n", TOPOGEN_VERSION);
            return 0;
        }
    }
    if (c->eval && !c->file)
        return usage_error("eval: missing FILE");
    if (hetero_given && !c->labels)
        return usage_error("--hetero-weight: needs --labels COUNTS (the "
                           "weight mu of the label-mix term mu * H)");
    /* -d of a kind whose degree is implied: refused unless it is that
     * degree. The library (quiet_errors) always passes its d (default 4),
     * so this applies to the command line only. */
    if (d_given && !quiet_errors && !c->eval && !c->seq && !c->dkind &&
        (c->kind == TG_KIND_HYPERCUBE || c->kind == TG_KIND_EXPONENTIAL)) {
        size_t di = implied_degree(c->kind, c->search.n);
        if (di && di != c->search.d)
            return usage_error("-d %zu: --kind %s on %zu nodes has degree "
                               "%zu (implied by the kind): leave -d out",
                               c->search.d, topogen_kind_name(c),
                               c->search.n, di);
    }
    if (c->plan)
        return plan_check(c, n_given);
    if (c->compare && (c->kind != TG_KIND_LEARNED || c->seq || c->dkind ||
                       c->out_given || c->weights_given || c->search.groups))
        return usage_error("compare: takes -n, -d, --seed, --gamma and the "
                           "search's flags (it builds every kind itself and "
                           "writes no file)");
    if (c->directed && (c->kind != TG_KIND_LEARNED || c->seq || c->dkind))
        return usage_error("--directed: only --kind learned is searched over "
                           "permutations");
    if (c->local && c->dkind != TOPOGEN_D_EPIDEMIC)
        return usage_error("--local: only --kind epidemic samples locally");
    if (c->directed && !c->compare)
        c->dkind = TOPOGEN_D_LEARNED;
    if (!c->eval && c->dkind) {
        if (c->weights_given &&
            (c->fdla != TOPOGEN_W_NEFF || c->dkind == TOPOGEN_D_EPIDEMIC))
            return usage_error("--weights: --kind %s carries its own "
                               "weights (uniform%s)", topogen_kind_name(c),
                               c->dkind == TOPOGEN_D_EPIDEMIC
                                   ? "" : "; --weights neff picks the best "
                                          "self weight");
        if (c->format != CM_FORMAT_EDGELIST)
            return usage_error("--format: --kind %s writes a directed edge "
                               "list (--format edgelist)",
                               topogen_kind_name(c));
        if (c->search.groups)
            return usage_error("--groups: not for --kind %s",
                               topogen_kind_name(c));
        size_t n = c->search.n, d = c->search.d;
        if (c->dkind == TOPOGEN_D_EXP ? n < 2 : n < d + 1 || n < 3)
            return usage_error("-n: --kind %s needs %s (got -n %zu -d %zu)",
                               topogen_kind_name(c),
                               c->dkind == TOPOGEN_D_EXP ? "n >= 2"
                                                         : "n >= 3 and "
                                                           "n > d",
                               n, d);
        if (c->dkind == TOPOGEN_D_LEARNED && c->search.obj != TG_OBJ_NEFF &&
            c->search.obj != TG_OBJ_NEFF_MSG && c->search.obj != TG_OBJ_RATIO)
            return usage_error("--objective: --directed searches for neff "
                               "(default), neff-per-message or ratio (the "
                               "spectral norm of W - J)");
        if (c->dkind == TOPOGEN_D_LEARNED && n > TG_MAX_NODES)
            return usage_error("-n: %zu nodes: --directed learns at most %d "
                               "(its search holds n x n matrices)", n,
                               TG_MAX_NODES);
        return -1;
    }
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
    if (c->search.t1 > 0 &&
        c->search.t1 > (c->search.t0 > 0 ? c->search.t0
                                         : tg_search_default_t0(c->search.n)))
        return usage_error("--t1 %g: above the start temperature %g; the "
                           "annealing cools from --t0 down to --t1",
                           c->search.t1, c->search.t0 > 0 ? c->search.t0
                           : tg_search_default_t0(c->search.n));
    if (!c->net && (c->params || c->ranks || c->hosts || c->allreduce_given))
        return usage_error("--params, --ranks, --hosts and --allreduce need "
                           "--net");
    if (c->net && c->simulate)
        return usage_error("--net: cannot be combined with --simulate");
    int rcd = topogen_data_check_args(c);
    if (rcd >= 0)
        return rcd;
    if (!c->eval && !c->dkind && !c->datakind &&
        (c->seq ? tg_seq_check(c->seq_kind, c->search.n, c->search.d)
                            : tg_kind_check(c->kind, c->search.n,
                                            c->search.d)) != CM_OK)
        return status_to_usage();
    if (!c->eval && !c->seq && !c->dkind && !c->datakind &&
        c->kind == TG_KIND_LEARNED && c->search.n > TG_MAX_NODES &&
        (c->compare || c->labels || c->search.groups ||
         c->search.solver == TG_SOLVER_DENSE ||
         c->search.obj == TG_OBJ_NEFF || c->search.obj == TG_OBJ_NEFF_MSG))
        return usage_error("-n: %zu nodes: above %d nodes topogen learns only "
                           "with the sparse eigensolver and the ratio, gap or "
                           "slem-mh objective, without --groups, --labels or "
                           "compare (those hold n x n matrices)",
                           c->search.n, TG_MAX_NODES);
    if (!c->eval && c->seq && c->weights_given)
        return usage_error("--weights: --kind %s carries its own weights "
                           "(exact averaging)", tg_seq_kind_name(c->seq_kind));
    if (!c->eval && c->seq && c->format != CM_FORMAT_EDGELIST)
        return usage_error("--format: --kind %s writes one edge list section "
                           "per round (--format edgelist)",
                           tg_seq_kind_name(c->seq_kind));
    return -1;
}

cm_status topogen_config_words(topogen_config *c, size_t count,
                               const char *const *words)
{
    static const char *const refused[] = {
        "eval", "compare", "plan", "-o", "--output", "--format", "--quiet", "-q",
        "--help", "-h", "--version"};
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
            if (strncmp(words[i], refused[k], strlen(refused[k])) == 0 &&
                (words[i][strlen(refused[k])] == '\0' ||
                 words[i][strlen(refused[k])] == '='))
                return cm_error(CM_EINVAL, "%s: not an option of the library "
                                "(it writes files through topogen_write)",
                                words[i]);
    char **argv = malloc((count + 2) * sizeof *argv);
    if (!argv)
        return cm_error(CM_ENOMEM, "out of memory");
    argv[0] = (char *)"topogen";
    for (size_t i = 0; i < count; i++)
        argv[i + 1] = (char *)words[i];
    argv[count + 1] = NULL;
    cm_error_clear();
    quiet_errors = 1;
    int rc = count + 1 > (size_t)INT_MAX
                 ? cm_error(CM_EINVAL, "too many options"), EXIT_USAGE
                 : topogen_parse_args((int)(count + 1), argv, c);
    quiet_errors = 0;
    free(argv);
    return rc == -1 ? CM_OK : CM_EINVAL;
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
        snprintf(buf, cap, "%s", topogen_kind_name(c));
        break;
    case F_LABELS:
        snprintf(buf, cap, "%s", *(const char *const *)src);
        break;
    case F_REAL: snprintf(buf, cap, "%.17g", *(const double *)src); break;
    case F_INTER:
        snprintf(buf, cap, "%s", topogen_data_inter_name(c->inter));
        break;
    case F_CWEIGHTS:
        snprintf(buf, cap, "%s", c->clique_equal ? "equal" : "mh");
        break;
    case F_WEIGHTS: snprintf(buf, cap, "%s", weights_name(c)); break;
    case F_OBJECTIVE:
        if (c->search.obj == TG_OBJ_NEFF || c->search.obj == TG_OBJ_NEFF_MSG)
            snprintf(buf, cap, "%s:%g", tg_objective_name(c->search.obj),
                     c->search.obj_gamma > 0.0 ? c->search.obj_gamma
                                               : TG_NEFF_GAMMA);
        else
            snprintf(buf, cap, "%s", tg_objective_name(c->search.obj));
        break;
    case F_GAMMA:
        snprintf(buf, cap, "%s", c->gamma ? c->gamma : "0.951");
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
    if (f->type == F_GAMMA) /* only the n_eff weights depend on it */
        return !c->eval && !c->compare && (c->fdla == TOPOGEN_W_NEFF ||
                            c->fdla == TOPOGEN_W_NEFF_ALPHA);
    if (f->off == OFF(directed) || f->off == OFF(local))
        return *(const int *)((const char *)c + f->off);
    if (f->header == H_NONE)
        return 0;
    if (f->header == H_DATA)
        return topogen_data_in_header(f->name, c);
    if (f->header == H_LEARNED &&
        (c->kind != TG_KIND_LEARNED || c->seq ||
         (c->dkind && c->dkind != TOPOGEN_D_LEARNED)))
        return 0;
    if (c->dkind && f->type == F_WEIGHTS)
        return c->fdla == TOPOGEN_W_NEFF;
    if (c->dkind && (f->type == F_FORMAT ||
                     f->off == OFF(search.init_rrl) ||
                     f->off == OFF(search.candidates) ||
                     f->off == OFF(search.solver)))
        return 0;
    if ((c->seq || c->dkind || c->datakind) && f->type == F_WEIGHTS)
        return 0;
    if (f->off == OFF(search.time_limit) && !(c->search.time_limit > 0.0))
        return 0;
    if (f->off == OFF(search.swaps) && c->search.swaps <= 1)
        return 0; /* one swap a move: the headers written before --swaps */
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
                                "%s%s%s%s", len ? " " : "", FLAGS[k].name,
                                FLAGS[k].type == F_FLAG ? "" : " ", v);
    }
}

const char *topogen_kind_name(const topogen_config *c)
{
    static const char *dnames[] = {"", "perm", "exp-directed", "epidemic",
                                   "learned"};
    if (c->dkind)
        return dnames[c->dkind];
    if (c->datakind)
        return topogen_data_kind_name(c->datakind);
    if (c->seq)
        return tg_seq_kind_name(c->seq_kind);
    if (c->exp_sym == 1)
        return "exponential-sym";
    return tg_kind_name(c->kind);
}

void topogen_config_default(topogen_config *c)
{
    memset(c, 0, sizeof *c);
    c->kind = TG_KIND_LEARNED;
    c->weights = CM_WEIGHTS_LAPLACIAN;
    c->format = CM_FORMAT_EDGELIST;
    c->out = "-";
    c->lambda = 0.1;
    c->allreduce = CM_AR_AUTO;
    tg_search_opts_default(&c->search);
}
