/* topogen_schema.c: the settings schema's table (topogen_settings.h).
 * One table, FLAGS, drives value parsing (topogen_settings.c), the usage
 * text (printed by topo/cli/topogen_cli.c) and the settings line of a
 * file header (here), so a flag is added in one place.
 */
#include "topogen_schema.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cm_flags.h"
#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_topo.h"
#include "tg_graph.h"
#include "tg_neff.h"
#include "tg_search.h"

/* Every flag of both modes; one row per flag. The rows marked H_ALL or
 * H_LEARNED are the settings that change the graph: the header records
 * them (resolved defaults included) so that `topogen SETTINGS` re-creates
 * the file byte for byte. */
static const topogen_flag FLAGS[] = {
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
     "intra=ALPHA,BETA;inter=ALPHA,BETA (add ;site=ALPHA,BETA;sites=S "
     "for hosts on S sites), placed in blocks and by graph "
     "(time-varying: each round, in blocks), next to every all-reduce "
     "algorithm; plan: the network to plan for (P.xml: as --platform)"},
    {"--platform", NULL, F_PLATFORM, OFF(net), EVAL | PLAN, 0, 0, H_NONE,
     "P.XML", "eval, plan: the network as a SimGrid platform file (topogen "
     "platform, or your own; the one smpirun simulates), read into the "
     "model's link classes (a platform of sites: site, host, worker): "
     "instead of --net"},
    {"--params", NULL, F_SIZE, OFF(params), EVAL | PLAN, 1, SIZE_MAX / 8, H_NONE,
     "P", "eval --net, plan: floats per worker array (default 61706, "
     "LeNet; 329962: dpsgd-train --model cnn); plan reads only the runs "
     "of a model of P parameters (each run's summary JSON; LeNet's "
     "before the key) and its bench, when there are any"},
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
     "plan: the experiments the convergence model is fitted to and whose "
     "runs are the measured rows: DIR[,DIR...], each read in any layout "
     "the experiment scripts write (runs/ CSVs with their JSON, .settings "
     "or grid.env; per-run.tsv), itself and its subfolders; 'default' "
     "names the committed data/results* and data/bandwidth-bound (the default)"},
    {"--target", NULL, F_TARGET, OFF(target), PLAN, 0, 0, H_NONE, "ACC",
     "plan: the test accuracy to reach (default 0.85, the committed "
     "experiments')"},
    {"--partition", NULL, F_PARTITION, OFF(partition), PLAN, 0, 0, H_NONE,
     "P", "plan: the data partition, iid, dirichlet:A or shards:K "
     "(default dirichlet:0.1)"},
    {"--batch", NULL, F_SIZE, OFF(batch), PLAN, 1, 1 << 20, H_NONE, "B",
     "plan: images per worker per step (default 1024 / N, the committed "
     "schedule's global batch)"},
    {"--epochs", NULL, F_REAL, OFF(epochs), PLAN, 0, 0, H_NONE, "E",
     "plan: the epochs of a run, its budget (default 12)"},
    {"--eval-every", NULL, F_SIZE, OFF(eval_every), PLAN, 1, 1000000000,
     H_NONE, "K", "plan: the runs evaluate every K steps too (dpsgd-train "
     "--eval-every; default: at each epoch's end only, the trainer's "
     "default): each evaluation costs two failure agreements"},
    {"--compress", NULL, F_WORD, OFF(compress), PLAN, 0, 0, H_NONE, "C",
     "plan: also rank every schedule with dpsgd-train --compress C (int8, "
     "int4 or topk:F): local SGD and DiLoCo with compressed "
     "pseudo-gradients, CHOCO-SGD on each static graph; each message "
     "priced at the bytes the trainer counts (codes and scales)"},
    {"--fragments", NULL, F_WORD, OFF(fragments), PLAN, 0, 0, H_NONE,
     "P[:T]", "plan: also rank DiLoCo as Streaming DiLoCo, dpsgd-train "
     "--fragments P[:T] (with --compress C when given): one fragment's "
     "all-reduce every H/P steps, less the T inner steps it overlaps"},
    {"--extrapolate", NULL, F_FLAG, OFF(extrapolate), PLAN, 0, 0, H_NONE,
     NULL, "plan: rank the rows outside the fitted model's data with the "
     "predicted ones (default: below them)"},
    {"--help", "-h", F_FLAG, OFF(help), ALL, 0, 0, H_NONE, NULL,
     "print this help"},
    {"--version", NULL, F_FLAG, OFF(version), ALL, 0, 0, H_NONE, NULL,
     "print the version"},
};
#define N_FLAGS (sizeof FLAGS / sizeof FLAGS[0])

static int is_switch(const void *row)
{
    return ((const topogen_flag *)row)->type == F_FLAG;
}

const topogen_flag *topogen_flags(size_t *count)
{
    *count = N_FLAGS;
    return FLAGS;
}

const cm_flag_table *topogen_flag_table(void)
{
    static const cm_flag_table table = {FLAGS, N_FLAGS, sizeof FLAGS[0],
                                        offsetof(topogen_flag, name),
                                        offsetof(topogen_flag, alias), NULL,
                                        0, is_switch};
    return &table;
}

const topogen_flag *topogen_flag_find(const char *name)
{
    for (size_t k = 0; k < N_FLAGS; k++)
        if (strcmp(FLAGS[k].name, name) == 0)
            return &FLAGS[k];
    return NULL;
}

cm_status topogen_flag_mode_check(const topogen_flag *f,
                                  topogen_command command)
{
    int mode = command == TOPOGEN_PLAN ? PLAN
               : command == TOPOGEN_EVAL ? EVAL : GEN;
    if (f->modes & mode)
        return CM_OK;
    if (command != TOPOGEN_GENERATE)
        return cm_error(CM_EINVAL, "%s: not a flag of 'topogen %s'", f->name,
                        command == TOPOGEN_PLAN   ? "plan"
                        : command == TOPOGEN_EVAL ? "eval" : "compare");
    return cm_error(CM_EINVAL, "%s: only 'topogen %s' takes it", f->name,
                    f->modes & EVAL ? "eval FILE" : "plan");
}

/* The value of header flag f in c, as the command line would give it. */
static void flag_value(const topogen_flag *f, const topogen_config *c,
                       char *buf, size_t cap)
{
    const void *src = (const char *)c + f->off;
    switch (f->type) {
    case F_SIZE: snprintf(buf, cap, "%zu", *(const size_t *)src); break;
    case F_U64:
        snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)src);
        break;
    case F_SECONDS: snprintf(buf, cap, "%.17g", *(const double *)src); break;
    case F_KIND: snprintf(buf, cap, "%s", topogen_kind_name(c)); break;
    case F_LABELS:
        snprintf(buf, cap, "%s", *(const char *const *)src);
        break;
    case F_REAL: snprintf(buf, cap, "%.17g", *(const double *)src); break;
    case F_INTER:
        snprintf(buf, cap, "%s", topogen_inter_name(c->inter));
        break;
    case F_CWEIGHTS:
        snprintf(buf, cap, "%s", c->clique_equal ? "equal" : "mh");
        break;
    case F_WEIGHTS:
        snprintf(buf, cap, "%s", topogen_weights_name(c->fdla, c->weights));
        break;
    case F_OBJECTIVE:
        if (topogen_objective_row(c->search.obj)->neff)
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

/* 1 when the data-aware setting f belongs in c's header. */
static int data_in_header(const topogen_flag *f, const topogen_config *c)
{
    const topogen_kind *k = c->kind;
    if (f->off == OFF(labels))
        return c->labels != NULL;
    if (f->off == OFF(search.hetero_weight)) /* learned, also --directed */
        return c->labels && (k->family == TOPOGEN_FAM_LEARNED ||
                             k->family == TOPOGEN_FAM_DIRECTED);
    if (k->family != TOPOGEN_FAM_DATA)
        return 0;
    if (f->off == OFF(lambda))
        return k->code == TOPOGEN_DK_STLFW;
    if (f->off == OFF(symmetric))
        return k->code == TOPOGEN_DK_STLFW && c->symmetric;
    return k->code == TOPOGEN_DK_DCLIQUES; /* --inter, --clique-weights */
}

/* Header rows that apply to c: all H_ALL rows, and H_LEARNED rows for the
 * learned kinds; --time-limit only when set. */
static int in_header(const topogen_flag *f, const topogen_config *c)
{
    topogen_family fam = c->kind->family;
    int directed = fam == TOPOGEN_FAM_DIRECTED;
    if (f->type == F_GAMMA) /* only the n_eff weights depend on it */
        return c->command != TOPOGEN_EVAL &&
               c->command != TOPOGEN_COMPARE &&
               (c->fdla == TOPOGEN_W_NEFF || c->fdla == TOPOGEN_W_NEFF_ALPHA);
    if (f->off == OFF(directed) || f->off == OFF(local))
        return *(const int *)((const char *)c + f->off);
    if (f->header == H_NONE)
        return 0;
    if (f->off == OFF(search.d) && topogen_kind_fixes_degree(c))
        return 0; /* the kind's own degree, in the first line's d= */
    if (f->header == H_DATA)
        return data_in_header(f, c);
    if (f->header == H_LEARNED && fam != TOPOGEN_FAM_LEARNED &&
        !(directed && c->kind->code == TOPOGEN_D_LEARNED))
        return 0;
    if (directed && f->type == F_WEIGHTS)
        return c->fdla == TOPOGEN_W_NEFF;
    if (directed && (f->type == F_FORMAT || f->off == OFF(search.init_rrl) ||
                     f->off == OFF(search.candidates) ||
                     f->off == OFF(search.solver)))
        return 0;
    if ((fam == TOPOGEN_FAM_SEQ || fam == TOPOGEN_FAM_DATA) &&
        f->type == F_WEIGHTS)
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
