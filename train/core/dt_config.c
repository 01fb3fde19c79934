/* dt_config.c: defaults, a table-driven argv parser and the usage text.
 *
 * Each flag is one table row: name, value kind, field offset and the
 * allowed range, so adding a flag is adding a row. Values are parsed with
 * strtoull/strtod and checked whole ("12x" is rejected) and in range.
 */
#include "dt_config.h"

#include "cm_flags.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F_SIZE, F_U64, F_INT, F_DOUBLE, F_PATH, F_FLAG, F_DATASET,
               F_MODEL, F_SCHED, F_WEIGHTS, F_MODE, F_PARTITION, F_ALGO,
               F_D2MIX, F_PLACEMENT, F_NET, F_ALLREDUCE, F_OUTER, F_COMPRESS,
               F_PLATFORM, F_FRAG } flag_kind;

typedef struct {
    const char *name;
    flag_kind kind;
    size_t off;
    double lo, hi;   /* numeric range, inclusive lo; hi exclusive if excl */
    int hi_excl;
} flag_spec;

#define OFF(f) offsetof(dt_config, f)
static const flag_spec FLAGS[] = {
    {"--help", F_FLAG, OFF(help), 0, 0, 0},
    {"--version", F_FLAG, OFF(version), 0, 0, 0},
    {"--dataset", F_DATASET, OFF(dataset), 0, 0, 0},
    {"--data", F_PATH, OFF(data_dir), 0, 0, 0},
    {"--model", F_MODEL, OFF(model), 0, 0, 0},
    {"--epochs", F_SIZE, OFF(epochs), 0, 1e6, 0},
    {"--batch", F_SIZE, OFF(batch), 1, 65536, 0},
    {"--lr", F_DOUBLE, OFF(lr), 0, 1e3, 0},
    {"--momentum", F_DOUBLE, OFF(momentum), 0, 1, 1},
    {"--weight-decay", F_DOUBLE, OFF(weight_decay), 0, 1, 0},
    {"--schedule", F_SCHED, OFF(schedule), 0, 0, 0},
    {"--warmup", F_DOUBLE, OFF(warmup), 0, 1e6, 0},
    {"--step-epochs", F_DOUBLE, OFF(step_epochs), 1e-9, 1e6, 0},
    {"--lr-decay", F_DOUBLE, OFF(gamma), 1e-9, 1, 0},
    /* --lr-decay's old name (topogen's --gamma is n_eff's): still read,
       with a notice (dpsgd_train.c) */
    {"--gamma", F_DOUBLE, OFF(gamma), 1e-9, 1, 0},
    {"--seed", F_U64, OFF(seed), 0, 0, 0},
    {"--log", F_PATH, OFF(log_path), 0, 0, 0},
    {"--quiet", F_FLAG, OFF(quiet), 0, 0, 0},
    {"--threads", F_INT, OFF(threads), 1, 256, 0},
    {"--train-limit", F_SIZE, OFF(train_limit), 1, 1e9, 0},
    {"--test-limit", F_SIZE, OFF(test_limit), 1, 1e9, 0},
    {"--synthetic-train", F_SIZE, OFF(synth_train), 1, 1e8, 0},
    {"--synthetic-test", F_SIZE, OFF(synth_test), 1, 1e8, 0},
    {"--bench", F_FLAG, OFF(bench), 0, 0, 0},
    {"--bench-steps", F_SIZE, OFF(bench_steps), 1, 1e7, 0},
    {"--bench-repeat", F_SIZE, OFF(bench_repeat), 1, 1000, 0},
    {"--topology", F_PATH, OFF(topology), 0, 0, 0},
    {"--weights", F_WEIGHTS, OFF(weights), 0, 0, 0},
    {"--mode", F_MODE, OFF(mode), 0, 0, 0},
    {"--workers", F_SIZE, OFF(workers), 1, 1e6, 0},
    {"--partition", F_PARTITION, OFF(partition), 0, 0, 0},
    {"--algorithm", F_ALGO, OFF(algorithm), 0, 0, 0},
    {"--d2-mixing", F_D2MIX, OFF(d2_mix), 0, 0, 0},
    {"--eval-every", F_SIZE, OFF(eval_every), 1, 1e12, 0},
    {"--local-eval", F_SIZE, OFF(local_eval), 0, 1e9, 0},
    {"--checkpoint", F_PATH, OFF(ckpt_dir), 0, 0, 0},
    {"--resume", F_FLAG, OFF(resume), 0, 0, 0},
    {"--stop-after", F_SIZE, OFF(stop_after), 1, 1e6, 0},
    {"--keep", F_SIZE, OFF(keep), 1, 1e6, 0},
    {"--drop-workers", F_PATH, OFF(drop_workers), 0, 0, 0},
    {"--add-workers", F_SIZE, OFF(add_workers), 1, 1e6, 0},
    {"--timeout", F_DOUBLE, OFF(timeout), 0, 1e7, 0},
    {"--timeout-floor", F_DOUBLE, OFF(timeout_floor), 3, 1e7, 0},
    {"--save-model", F_PATH, OFF(save_model), 0, 0, 0},
    {"--save-model-every", F_SIZE, OFF(save_model_every), 1, 1e6, 0},
    {"--init-model", F_PATH, OFF(init_model), 0, 0, 0},
    {"--eval-model", F_PATH, OFF(eval_model), 0, 0, 0},
    {"--placement", F_PLACEMENT, OFF(placement), 0, 0, 0},
    {"--net", F_NET, OFF(net), 0, 0, 0},
    {"--platform", F_PLATFORM, OFF(net), 0, 0, 0},
    {"--allreduce", F_ALLREDUCE, OFF(net_allreduce), 0, 0, 0},
    {"--net-hosts", F_SIZE, OFF(net_hosts), 1, 1e6, 0},
    {"--bench-gossip", F_SIZE, OFF(bench_gossip), 1, 1e9, 0},
    {"--bench-floats", F_SIZE, OFF(bench_floats), 1, 1e9, 0},
    {"--summary", F_PATH, OFF(summary), 0, 0, 0},
    {"--write-partition", F_PATH, OFF(write_partition), 0, 0, 0},
    {"--average-every", F_SIZE, OFF(average_every), 1, 1e9, 0},
    {"--local-after", F_SIZE, OFF(local_after), 0, 1e12, 0},
    {"--global-every", F_SIZE, OFF(global_every), 1, 1e9, 0},
    {"--outer", F_OUTER, OFF(outer), 0, 0, 0},
    {"--compress", F_COMPRESS, OFF(compress), 0, 0, 0},
    {"--consensus-step", F_DOUBLE, OFF(consensus_step), 1e-6, 1, 0},
    {"--staleness", F_SIZE, OFF(staleness), 0, 64, 0},
    {"--fragments", F_FRAG, OFF(fragments), 0, 0, 0},
};
/* Short spellings: {alias, flag}. */
static const char *const ALIASES[][2] = {
    {"-h", "--help"},
    {"-q", "--quiet"},
};

_Static_assert(sizeof FLAGS / sizeof FLAGS[0] <= DT_FLAGS_MAX,
               "dt_config.given has one bit per flag: raise DT_FLAGS_MAX");

void dt_config_default(dt_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->dataset = DT_DS_FASHION;
    cfg->model = DT_MODEL_LENET;
    cfg->epochs = 15;
    cfg->batch = 32;
    cfg->lr = 0.02;
    cfg->momentum = 0.9;
    cfg->weight_decay = 5e-4;
    cfg->schedule = DT_SCHED_COSINE;
    cfg->warmup = 0.0;
    cfg->step_epochs = 5;
    cfg->gamma = 0.1;
    cfg->seed = 1;
    cfg->threads = 1;
    cfg->own_kernels = 1;
    cfg->synth_train = 4096;
    cfg->synth_test = 1024;
    cfg->bench_steps = 50;
    cfg->bench_repeat = 3;
    cfg->weights = CM_WEIGHTS_LAPLACIAN;
    cfg->mode = DT_MODE_GOSSIP;
    cfg->partition.kind = DT_PART_IID;
    cfg->local_eval = 1000;
    cfg->keep = 2;
    cfg->timeout = 600;
    cfg->timeout_floor = 30;
    cfg->placement = CM_PLACE_GRAPH;
    cm_net_parse("datacenter", &cfg->net);
    cfg->net_allreduce = CM_AR_AUTO;
    cfg->consensus_step = 1.0;
    cfg->fragments.p = 1;
    cfg->average_every = 1;
}

const char *dt_config_usage(void)
{
    return
        "usage: dpsgd-train [options]\n"
        "  --dataset D        fashion-mnist (default), mnist, cifar10, "
        "synthetic\n"
        "  --data DIR         data directory (default "
        "/usr/share/datasets/<D>)\n"
        "  --model M          lenet (default) or cnn\n"
        "  --epochs E         training epochs (15)\n"
        "  --batch B          minibatch size (32)\n"
        "  --lr LR            base learning rate (0.02)\n"
        "  --momentum M       momentum in [0,1) (0.9)\n"
        "  --weight-decay WD  L2 weight decay (5e-4)\n"
        "  --schedule S       const, step or cosine (cosine)\n"
        "  --warmup W         epochs of linear warm-up from lr/10 (0)\n"
        "  --step-epochs N    step schedule: epochs per decay (5)\n"
        "  --lr-decay G       step schedule: decay factor (0.1; --gamma, its\n"
        "                     old name, still works)\n"
        "  --seed S           seed of init, shuffling, synthetic data (1)\n"
        "  --log FILE.csv     per-epoch CSV log (written atomically)\n"
        "  --quiet, -q        no per-epoch progress lines\n"
        "  --threads T        engine threads per process (1; same result for "
        "any T)\n"
        "  --train-limit N    use only the first N training images\n"
        "  --test-limit N     use only the first N test images\n"
        "  --synthetic-train N, --synthetic-test N  synthetic set sizes "
        "(4096, 1024)\n"
        "  --bench            measure training speed of --model at --batch "
        "on\n"
        "                     random 1x28x28 inputs (no data, no training)\n"
        "  --bench-steps N    steps per timed run (50)\n"
        "  --bench-repeat R   timed runs, best kept (3)\n"
        "model files (safetensors, PyTorch names and layouts):\n"
        "  --save-model FILE  write the final (average) model, atomically\n"
        "  --save-model-every K  also after every K-th epoch\n"
        "  --init-model FILE  start training from this model\n"
        "  --eval-model FILE  only evaluate this model on the test set\n"
        "  --summary FILE.json  settings, final metrics, timings, bytes,\n"
        "                     hashes and version of the run (atomically)\n"
        "decentralized training (run under mpirun; ranks <= workers):\n"
        "  --topology FILE    D-PSGD on this topology (topogen's format or "
        "an\n"
        "                     edge list); one worker per node\n"
        "  --weights RULE     laplacian (default), mh or maxdeg, for files "
        "without\n"
        "                     weights; on a weighted file, replaces its "
        "weights\n"
        "  --mode M           gossip (default, needs --topology) or "
        "allreduce\n"
        "  --workers N        allreduce: number of workers (one per rank)\n"
        "  --partition P      iid (default), dirichlet:ALPHA (label skew) or "
        "shards:C\n"
        "                     (exactly C classes per worker)\n"
        "  --write-partition FILE  the partition's per-worker class counts "
        "(topogen\n"
        "                     --labels); with --epochs 0 only that "
        "(--workers N or\n"
        "                     --topology FILE gives the workers)\n"
        "  --algorithm A      dpsgd (default), d2 (D^2 / exact diffusion), "
        "gt\n"
        "                     (gradient tracking, 2x bytes), qgm "
        "(quasi-global\n"
        "                     momentum) or clique-avg (dpsgd, gradients "
        "averaged in the\n"
        "                     clique of a D-Cliques topology); see "
        "train/README.md\n"
        "  --d2-mixing C      d2 mixes with (1-C) I + C W: auto (the largest "
        "C\n"
        "                     <= 1 with lambda_min >= -1/4), half (C = 0.5), "
        "w (C = 1)\n"
        "                     or a number in (0, 1] (auto)\n"
        "  --eval-every K     also evaluate every K steps (default: per "
        "epoch)\n"
        "  --local-eval N     test images for each worker's own model "
        "(1000)\n"
        "  --checkpoint DIR   save every epoch (atomically) into DIR\n"
        "  --resume           continue from the last checkpoint in DIR "
        "(none yet:\n"
        "                     start from scratch); a larger --epochs "
        "extends it\n"
        "  --keep K           checkpoint generations kept in DIR (2)\n"
        "  --drop-workers L   with --resume: continue without the workers "
        "L (48-63,\n"
        "                     ids of the checkpoint's run) on --topology of "
        "the\n"
        "                     survivors (topogen repair); their shards go "
        "to their\n"
        "                     former neighbours\n"
        "  --add-workers K    with --resume: continue the checkpoint's run "
        "with K new\n"
        "                     workers (the last K nodes of --topology: "
        "topogen repair\n"
        "                     --add K), each starting from its old "
        "neighbours' average\n"
        "  --timeout SEC      end the job, naming the silent rank, when no "
        "message\n"
        "                     arrives for SEC seconds (0 = never); without "
        "it the\n"
        "                     deadline adapts: median + 8 MAD of the last "
        "64 rounds,\n"
        "                     3 to 5 median rounds, at least "
        "--timeout-floor (the\n"
        "                     first 8 rounds: 600 s)\n"
        "  --timeout-floor SEC  the adaptive deadline's least value (30; "
        "at least 3)\n"
        "  --stop-after E     stop after epoch E as if interrupted (to test "
        "--resume)\n"
        "communicating less (train/README.md, \"Local steps\"):\n"
        "  --average-every H  H local steps per communication (1: every "
        "step)\n"
        "  --local-after S    communicate every step for the first S steps, "
        "then every H\n"
        "  --global-every K   gossip: every K-th communication is an exact "
        "average\n"
        "  --outer OPT        none (default), sgd:LR or nesterov:LR,MOM: an "
        "outer\n"
        "                     step on the change since the last "
        "communication (DiLoCo)\n"
        "  --compress C       none (default), int8, int4 or topk:F: local "
        "SGD / DiLoCo\n"
        "                     send their pseudo-gradients so compressed, "
        "with error\n"
        "                     feedback (--mode allreduce, H > 1 or "
        "--outer); gossip\n"
        "                     (--algorithm dpsgd, a static topology) runs "
        "CHOCO-SGD\n"
        "  --consensus-step G CHOCO-SGD's consensus step in (0, 1] (1); with "
        "--staleness\n"
        "                     its step (sin(pi/(4S+2)))\n"
        "  --staleness S      gossip (dpsgd, d2): mix with the neighbours' "
        "models of S\n"
        "                     rounds back (S rounds in flight; 0: none; d2's "
        "correction\n"
        "                     follows the stale mix at half its step)\n"
        "  --fragments P[:T]  DiLoCo (--outer) in P fragments synchronised "
        "in turn,\n"
        "                     H/P steps apart, each in flight for T inner "
        "steps\n"
        "                     (Streaming DiLoCo; 1: the whole model at "
        "once)\n"
        "across hosts:\n"
        "  --placement P      graph (default: partition the topology to keep "
        "edges\n"
        "                     inside ranks and hosts) or block (contiguous)\n"
        "  --net NET          datacenter, wan or "
        "intra=ALPHA,BETA;inter=ALPHA,BETA\n"
        "                     [;site=ALPHA,BETA;sites=S] (hosts on S sites):"
        "\n"
        "                     add the modelled wall clock to the CSV "
        "(model_s)\n"
        "  --platform P.xml   the same from a SimGrid platform file "
        "(topogen platform,\n"
        "                     or your own: the one smpirun simulates); "
        "instead of --net\n"
        "  --net-hosts S      --net: model the n workers on S hosts, one "
        "per rank,\n"
        "                     placed by --placement (default: this run's "
        "ranks,\n"
        "                     hosts; --allreduce hierarchical: its "
        "groups)\n"
        "  --allreduce ALG    --mode allreduce's all-reduce, run and (--net) "
        "priced:\n"
        "                     auto (the MPI library's; priced as Open MPI "
        "4.1's\n"
        "                     choice), direct (all-to-all, local sum, "
        "all-gather),\n"
        "                     hierarchical (reduce in each host or "
        "--net-hosts\n"
        "                     group, all-reduce of the leaders, broadcast), "
        "han (the\n"
        "                     blocking MPI_Allreduce, which Open MPI's "
        "coll/han serves\n"
        "                     under --mca coll_han_priority 100; priced as\n"
        "                     hierarchical); with --net only priced: best, "
        "ring,\n"
        "                     recursive-doubling, rabenseifner, binomial;\n"
        "                     hierarchical-site: by site (--net with sites,\n"
        "                     --net-hosts: hosts, then sites)\n"
        "  --bench-gossip R   time R gossip rounds alone on --topology (no "
        "training)\n"
        "  --bench-floats N   --bench-gossip: floats per array (default: "
        "the model's)\n"
        "  --help, -h         this text\n"
        "  --version          print the version\n";
}

static cm_status parse_value(dt_config *cfg, const flag_spec *f,
                             const char *v)
{
    char *p = (char *)cfg + f->off;
    char *end = NULL;
    errno = 0;
    switch (f->kind) {
    case F_DATASET:
        if (dt_dataset_parse(v, (dt_dataset *)(void *)p) != CM_OK)
            return cm_error_prefix(CM_EINVAL, "%s", f->name);
        return CM_OK;
    case F_MODEL:
        if (dt_model_parse(v, (dt_model *)(void *)p) != CM_OK)
            return cm_error_prefix(CM_EINVAL, "%s", f->name);
        return CM_OK;
    case F_WEIGHTS:
        if (cm_weight_rule_parse(v, (cm_weight_rule *)(void *)p) != CM_OK)
            return cm_error_prefix(CM_EINVAL, "%s", f->name);
        return CM_OK;
    case F_MODE:
        if (strcmp(v, "gossip") == 0 || strcmp(v, "dpsgd") == 0)
            *(dt_mode *)(void *)p = DT_MODE_GOSSIP;
        else if (strcmp(v, "allreduce") == 0)
            *(dt_mode *)(void *)p = DT_MODE_ALLREDUCE;
        else
            return cm_error(CM_EINVAL, "%s: unknown mode '%s' (expected "
                            "gossip or allreduce)", f->name, v);
        return CM_OK;
    case F_PARTITION:
        return dt_partition_parse(v, (dt_part_spec *)(void *)p);
    case F_ALGO:
        cfg->clique_avg = strcmp(v, "clique-avg") == 0;
        if (cfg->clique_avg) { /* dpsgd's update on clique-mean gradients */
            *(dt_algo_kind *)(void *)p = DT_ALGO_DPSGD;
            return CM_OK;
        }
        if (dt_algo_parse(v, (dt_algo_kind *)(void *)p) != CM_OK)
            return cm_error_prefix(CM_EINVAL, "%s", f->name);
        return CM_OK;
    case F_D2MIX: {
        double c = strcmp(v, "auto") == 0 ? 0.0
                   : strcmp(v, "half") == 0 ? 0.5
                   : strcmp(v, "w") == 0 ? 1.0 : strtod(v, &end);
        if ((end && (end == v || *end)) || errno || !(c >= 0.0 && c <= 1.0) ||
            (end && c == 0.0))
            return cm_error(CM_EINVAL, "%s: '%s' is not auto, half, w or a "
                            "number in (0, 1]", f->name, v);
        *(double *)(void *)p = c;
        return CM_OK;
    }
    case F_PLACEMENT:
        return cm_place_parse(v, (cm_place_kind *)(void *)p);
    case F_ALLREDUCE:
        /* han: not a schedule of the model's; it runs the blocking
         * MPI_Allreduce (coll/han serves no MPI_Iallreduce) and is priced
         * as the model's hierarchical one (docs/smpi.md) */
        cfg->allreduce_han = strcmp(v, "han") == 0;
        if (cfg->allreduce_han) {
            *(cm_net_ar_alg *)(void *)p = CM_AR_HIER;
            return CM_OK;
        }
        return cm_net_ar_parse(v, f->name, (cm_net_ar_alg *)(void *)p);
    case F_OUTER:
        return dt_outer_parse(v, (dt_outer *)(void *)p);
    case F_COMPRESS:
        return dt_compress_parse(v, (dt_compress *)(void *)p);
    case F_FRAG:
        return dt_frag_parse(v, (dt_frag *)(void *)p);
    case F_NET:
    case F_PLATFORM: {
        /* one network, named by either flag */
        int plat = f->kind == F_PLATFORM;
        if (cfg->net_given && cfg->net_platform != plat)
            return cm_error(CM_EINVAL, "--net and --platform together: give "
                            "one (--platform P.xml, or --net with a preset, "
                            "intra=ALPHA,BETA;inter=ALPHA,BETA or P.xml)");
        cfg->net_given = 1;
        cfg->net_platform = plat;
        return plat ? cm_net_parse_platform(v, (cm_net *)(void *)p)
                    : cm_net_parse(v, (cm_net *)(void *)p);
    }
    case F_SCHED:
        if (dt_sched_parse(v, (dt_sched_kind *)(void *)p) != CM_OK)
            return cm_error_prefix(CM_EINVAL, "%s", f->name);
        return CM_OK;
    case F_PATH:
        if (strcmp(f->name, "--drop-workers") == 0 && /* a LIST: never cut */
            (!*v || strlen(v) >= DT_PATH_MAX))
            return !*v ? cm_error(CM_EINVAL, "%s: an empty LIST (ids such as "
                                  "3,7,48-63)", f->name)
                       : cm_error(CM_EINVAL, "%s: a LIST of %zu characters, "
                                  "longer than %d: give runs of ids as "
                                  "ranges (48-63)", f->name, strlen(v),
                                  DT_PATH_MAX - 1);
        if (!*v || strlen(v) >= DT_PATH_MAX)
            return cm_error(CM_EINVAL, "%s: empty or too long path", f->name);
        memcpy(p, v, strlen(v) + 1);
        return CM_OK;
    case F_U64: {
        if (*v == '-')
            return cm_error(CM_EINVAL, "%s: '%s' is not a non-negative "
                            "integer", f->name, v);
        unsigned long long u = strtoull(v, &end, 10);
        if (end == v || *end || errno)
            return cm_error(CM_EINVAL, "%s: '%s' is not a non-negative "
                            "integer", f->name, v);
        *(uint64_t *)(void *)p = u;
        return CM_OK;
    }
    case F_SIZE:
    case F_INT: {
        long long i = strtoll(v, &end, 10);
        if (end == v || *end || errno)
            return cm_error(CM_EINVAL, "%s: '%s' is not an integer", f->name,
                            v);
        if ((double)i < f->lo || (double)i > f->hi)
            return cm_error(CM_EINVAL, "%s: %lld is outside %.0f..%.0f",
                            f->name, i, f->lo, f->hi);
        if (f->kind == F_SIZE)
            *(size_t *)(void *)p = (size_t)i;
        else
            *(int *)(void *)p = (int)i;
        return CM_OK;
    }
    case F_DOUBLE: {
        double d = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(d))
            return cm_error(CM_EINVAL, "%s: '%s' is not a number", f->name, v);
        if (d < f->lo || d > f->hi || (f->hi_excl && d >= f->hi))
            return cm_error(CM_EINVAL, "%s: %g is outside [%g, %g%c", f->name,
                            d, f->lo, f->hi, f->hi_excl ? ')' : ']');
        *(double *)(void *)p = d;
        return CM_OK;
    }
    case F_FLAG:
        break;
    }
    return cm_error(CM_EINTERNAL, "%s: bad flag table", f->name);
}

static int is_switch(const void *row)
{
    return ((const flag_spec *)row)->kind == F_FLAG;
}

/* Under SimGrid's SMPI (the DT_SMPI build, bin/dpsgd-train-smpi), the
 * options the simulated run would not use are refused, not ignored
 * (docs/smpi.md, "What differs"). */
static cm_status check_smpi(const dt_config *cfg)
{
#ifdef DT_SMPI
    if (dt_config_given(cfg, "--timeout") ||
        dt_config_given(cfg, "--timeout-floor"))
        return cm_error(CM_EINVAL, "%s: the watchdog is off under SMPI "
                        "(simulated time; SimGrid reports a deadlock "
                        "itself): the SMPI build does not take it",
                        dt_config_given(cfg, "--timeout") ? "--timeout"
                                                          : "--timeout-floor");
    if (cfg->threads > 1)
        return cm_error(CM_EINVAL, "--threads %d: SMPI times a rank's "
                        "compute by its own thread's CPU clock, so the "
                        "engine's other threads would not count; the SMPI "
                        "build runs one (a faster host: a higher speed in "
                        "the platform file)", cfg->threads);
    if (cfg->allreduce_han)
        return cm_error(CM_EINVAL, "--allreduce han is Open MPI's coll/han; "
                        "SMPI has none: auto runs the blocking "
                        "MPI_Allreduce there (smpirun "
                        "--cfg=smpi/allreduce:ALG picks its algorithm)");
#else
    (void)cfg;
#endif
    return CM_OK;
}

cm_status dt_config_parse(dt_config *cfg, int argc, char **argv)
{
    const cm_flag_table table = {FLAGS, sizeof FLAGS / sizeof FLAGS[0],
                                 sizeof FLAGS[0], offsetof(flag_spec, name),
                                 CM_FLAGS_NO_ALIAS, ALIASES,
                                 sizeof ALIASES / sizeof ALIASES[0],
                                 is_switch};
    cm_flag_iter it = {1, NULL, NULL, NULL, NULL};
    for (;;) {
        int done = 0;
        cm_status s = cm_flags_next(&table, argc, argv, 0, &it, &done);
        if (s != CM_OK)
            return s;
        if (done) /* every flag read: the checks across flags below */
            break;
        const flag_spec *f = it.row;
        /* one value each: a second one would silently win (issue 44) */
        size_t row = (size_t)(f - FLAGS);
        if (f->kind != F_FLAG && dt_flag_set_has(&cfg->given, row))
            return cm_error(CM_EINVAL, "%s given twice (the second: '%s'): "
                            "give it once%s", f->name, it.value,
                            strcmp(f->name, "--drop-workers") == 0
                                ? " (a LIST joins ids with commas: 3,7)"
                                : "");
        dt_flag_set_add(&cfg->given, row);
        if (f->kind == F_FLAG) {
            *(int *)(void *)((char *)cfg + f->off) = 1;
            if (cfg->help || cfg->version)
                return CM_OK;
            continue;
        }
        s = parse_value(cfg, f, it.value);
        if (s != CM_OK)
            return s;
        if (f->kind == F_WEIGHTS)
            cfg->weights_set = 1;
        cfg->model_given |= f->kind == F_MODEL;
        cfg->dataset_given |= f->kind == F_DATASET;
    }
    if (cfg->epochs == 0 && !cfg->write_partition[0])
        return cm_error(CM_EINVAL, "--epochs: at least 1 (0 only with "
                        "--write-partition FILE: write the partition, do "
                        "not train)");
    if (cfg->add_workers && !cfg->resume)
        return cm_error(CM_EINVAL, "--add-workers %zu continues a "
                        "checkpoint's run with new workers: it needs "
                        "--resume (and the grown --topology: topogen repair "
                        "FILE --add %zu -o NEW)", cfg->add_workers,
                        cfg->add_workers);
    if (cfg->add_workers && cfg->drop_workers[0])
        return cm_error(CM_EINVAL, "--add-workers and --drop-workers in one "
                        "start: drop first, then add (two resumes)");
    if (cfg->add_workers && cfg->mode != DT_MODE_GOSSIP)
        return cm_error(CM_EINVAL, "--add-workers: gossip runs only (new "
                        "workers start from their neighbours)");
    if (dt_config_given(cfg, "--timeout-floor") &&
        (dt_config_given(cfg, "--timeout") || cfg->mode != DT_MODE_GOSSIP))
        return cm_error(CM_EINVAL, "--timeout-floor is the least adaptive "
                        "deadline of gossip training, which %s",
                        cfg->mode != DT_MODE_GOSSIP
                            ? "--mode allreduce does not use"
                            : "--timeout replaces by a fixed one: give one "
                              "of them");
    if (cfg->dataset == DT_DS_SYNTHETIC && cfg->data_dir[0])
        return cm_error(CM_EINVAL, "--data %s: --dataset synthetic makes its "
                        "own images (--synthetic-train, --synthetic-test); "
                        "--data is for the data sets read from files",
                        cfg->data_dir);
    return check_smpi(cfg);
}

int dt_config_given(const dt_config *cfg, const char *flag)
{
    for (size_t k = 0; k < sizeof FLAGS / sizeof FLAGS[0]; k++)
        if (strcmp(FLAGS[k].name, flag) == 0)
            return dt_flag_set_has(&cfg->given, k);
    return 0;
}

cm_status dt_config_check_single(const dt_config *cfg)
{
    static const char *const distributed[] = {
        "--algorithm", "--d2-mixing", "--partition", "--workers",
        "--placement", "--net", "--platform", "--weights", "--local-eval", "--timeout",
        "--timeout-floor", "--add-workers",
        "--allreduce", "--net-hosts", "--drop-workers",
        "--average-every", "--local-after", "--global-every", "--outer",
        "--compress", "--consensus-step", "--staleness", "--fragments"};
    for (size_t k = 0; k < sizeof distributed / sizeof *distributed; k++)
        if (dt_config_given(cfg, distributed[k]) &&
            !(cfg->write_partition[0] && cfg->epochs == 0 &&
              (strcmp(distributed[k], "--workers") == 0 ||
               strcmp(distributed[k], "--partition") == 0)))
            return cm_error(CM_EINVAL, "%s is for distributed runs "
                            "(--topology FILE, or --mode allreduce under "
                            "mpirun); without them one worker trains alone",
                            distributed[k]);
    return CM_OK;
}
