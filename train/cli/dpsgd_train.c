/* dpsgd_train.c: main() of dpsgd-train.
 *
 * Prolog: MPI init (also as a singleton, started without mpirun), parse
 * the flags into a dt_config on every rank. Loop: one rank without
 * --topology and without --mode allreduce trains a single worker
 * (dt_train_single); otherwise decentralized or all-reduce training over
 * all ranks (dt_dpsgd_run). Epilog: summary on rank 0, finalize. Only this
 * file prints or exits; every failure is agreed by all ranks inside the
 * library, so rank 0 prints one message and every rank exits non-zero.
 *
 * Signals: SIGTERM and SIGINT (mpirun forwards a user's Ctrl-C or kill as
 * SIGTERM to every rank, and sends it to the survivors when a rank dies)
 * make rank 0 print one line saying what happened and which checkpoint is
 * the last good one, read from DIR/latest at that moment; then every rank
 * dies of the signal as before.
 */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>
#include <gsl/gsl_errno.h>

#include "cm_atomic.h"
#include "cm_blas_reserve.h"
#include "cm_idlist.h"
#include "cm_labels.h"
#include "cm_status.h"
#include "cm_time.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "dt_ckpt.h"
#include "dt_bench.h"
#include "dt_bench_gossip.h"
#include "dt_comm.h"
#include "dt_diverge.h"
#include "dt_dpsgd.h"
#include "dt_drop.h"
#include "dt_outputs.h"
#include "dt_partition_file.h"
#include "dt_run_ckpt.h"
#include "dt_config.h"
#include "dt_summary.h"
#include "dt_topo_load.h"
#include "dt_train.h"

/* ---- signals ----------------------------------------------------------
 * The handler uses only async-signal-safe calls (open, read, write, close,
 * signal, raise) on buffers prepared before training starts. */
static volatile sig_atomic_t sig_root;
static char sig_dir[4096];      /* --checkpoint DIR, "" when none */
static int sig_drop;            /* workers can be dropped (gossip, no
                                   --drop-workers yet): say how */
static char sig_cont[8400];     /* the flags that continue a run that
                                   dropped workers ("--resume
                                   --drop-workers L --topology T"), ""
                                   otherwise: its stop messages name them */

/* cm_time_now() on entering main: the start-up figure counts from here
 * (MPI_Init included; mpirun's launch of the processes is not). */
static double t_main;

/* main's arguments, for the commands that continue a run without the
 * workers of a lost rank (print_continue). */
static int main_argc;
static char **main_argv;

/* Prints a to fp, single-quoted for sh when it holds anything but
 * [A-Za-z0-9_./:=,+-]. */
static void put_arg(FILE *fp, const char *a)
{
    if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789_./:=,+-") == strlen(a)) {
        fputs(a, fp);
        return;
    }
    fputc('\'', fp);
    for (; *a; a++)
        if (*a == '\'')
            fputs("'\\''", fp);
        else
            fputc(*a, fp);
    fputc('\'', fp);
}

/* After a timeout that named silent ranks: the two commands that continue
 * the run without their workers (topogen repair, then this command with
 * --resume --drop-workers LIST --topology NEW), indented under the
 * message. */
static void print_continue(const dt_config *cfg, const dt_dpsgd_result *r)
{
    uint64_t e;
    if (r->lost_too_long && dt_ckpt_latest(cfg->ckpt_dir, &e) == CM_OK) {
        fprintf(stderr, "  or continue without the silent ranks' workers "
                "(listed per rank in %s/placement): topogen repair --remove "
                "LIST, then --resume --drop-workers LIST --topology NEW "
                "(train/README.md)\n", cfg->ckpt_dir);
        return;
    }
    if (!r->lost[0] || !main_argv ||
        dt_ckpt_latest(cfg->ckpt_dir, &e) != CM_OK) /* nothing to continue */
        return;
    char topo[DT_PATH_MAX + 100];
    if (strlen(r->lost) <= 64) /* a file name stays below NAME_MAX */
        snprintf(topo, sizeof topo, "%s.without-%s", cfg->topology, r->lost);
    else
        snprintf(topo, sizeof topo, "%s.survivors", cfg->topology);
    fprintf(stderr, "  or continue without the silent rank%s workers %s, "
            "on the %zu rank%s left:\n    ",
            r->n_ranks - r->ranks_left > 1 ? "s'" : "'s", r->lost,
            r->ranks_left, r->ranks_left == 1 ? "" : "s");
    if (r->period > 1 || r->topo_kind) {
        /* repair takes one undirected graph: a time-varying or directed
         * topology of the survivors is made anew, of the file's kind when
         * topogen makes it for any n (base; perm, exp-directed), else base
         * (undirected) or perm (directed), with the file's degree */
        size_t d = 1, *ids = NULL, k = 0;
        const char *kind = r->topo_kind ? "perm" : "base";
        FILE *fp = fopen(cfg->topology, "r");
        char line[512] = "";
        if (fp && fgets(line, sizeof line, fp) && strstr(line, " d="))
            d = (size_t)strtoull(strstr(line, " d=") + 3, NULL, 10);
        if (strstr(line, " kind=exp-directed"))
            kind = "exp-directed";
        if (fp)
            fclose(fp);
        if (cm_idlist_parse(r->lost, 0, "--drop-workers", &ids, &k) != CM_OK)
            k = 0;
        free(ids);
        fprintf(stderr, "topogen -n %zu -d %zu --kind %s --seed %llu -o ",
                r->n_workers - k, d ? d : 1, kind,
                (unsigned long long)cfg->seed);
    } else {
        fprintf(stderr, "topogen repair ");
        put_arg(stderr, cfg->topology);
        fprintf(stderr, " --remove %s -o ", r->lost);
    }
    put_arg(stderr, topo);
    fprintf(stderr, "\n    mpirun -np %zu ", r->ranks_left);
    put_arg(stderr, main_argv[0]);
    for (int i = 1; i < main_argc; i++) {
        const char *a = main_argv[i];
        if (strcmp(a, "--resume") == 0 || strncmp(a, "--topology=", 11) == 0)
            continue;
        if (strcmp(a, "--topology") == 0) {
            i++;
            continue;
        }
        fputc(' ', stderr);
        put_arg(stderr, a);
    }
    fprintf(stderr, " --resume --drop-workers %s --topology ", r->lost);
    put_arg(stderr, topo);
    fputc('\n', stderr);
}

static size_t put(char *b, size_t at, size_t cap, const char *s)
{
    while (*s && at + 1 < cap)
        b[at++] = *s++;
    b[at] = '\0';
    return at;
}

/* Appends which checkpoint is the last good one (from DIR/latest, read
 * now) and a newline to msg[0..n); with hint, a second line on going on
 * without a lost rank's workers (DIR/placement lists them). Async-signal-
 * safe. */
static size_t put_ckpt(char *msg, size_t n, size_t cap, int hint)
{
    char latest[64] = "";
    if (sig_dir[0]) {
        char path[4200];
        size_t p = put(path, 0, sizeof path, sig_dir);
        put(path, p, sizeof path, "/latest");
        int fd = open(path, O_RDONLY);
        ssize_t got = fd >= 0 ? read(fd, latest, sizeof latest - 1) : -1;
        if (fd >= 0)
            close(fd);
        latest[got > 0 ? got : 0] = '\0';
        for (char *c = latest; *c; c++)
            if (*c == '\n')
                *c = '\0';
    }
    if (!sig_dir[0]) {
        n = put(msg, n, cap, "no checkpoint (run without "
                "--checkpoint)\n");
    } else if (!latest[0]) {
        n = put(msg, n, cap, "no complete checkpoint yet in ");
        n = put(msg, n, cap, sig_dir);
        n = put(msg, n, cap, "\n");
    } else {
        n = put(msg, n, cap, "last good checkpoint: ");
        n = put(msg, n, cap, sig_dir);
        n = put(msg, n, cap, "/");
        n = put(msg, n, cap, latest);
        n = put(msg, n, cap, " (continue with ");
        n = put(msg, n, cap, sig_cont[0] ? sig_cont : "--resume");
        n = put(msg, n, cap, ")\n");
        if (hint && sig_drop) { /* how to go on without a lost rank */
            n = put(msg, n, cap, "  or without a lost rank's workers "
                    "(listed per rank in ");
            n = put(msg, n, cap, sig_dir);
            n = put(msg, n, cap, "/placement): topogen repair --remove "
                    "LIST, then --resume --drop-workers LIST --topology NEW "
                    "(train/README.md)\n");
        }
    }
    return n;
}

static void on_signal(int sig)
{
    if (sig_root) {
        char msg[8400];
        size_t n = put(msg, 0, sizeof msg, "dpsgd-train: stopped by ");
        n = put(msg, n, sizeof msg, sig == SIGINT ? "SIGINT" : "SIGTERM");
        n = put(msg, n, sizeof msg, " (the job was interrupted, or another "
                "rank died); ");
        n = put_ckpt(msg, n, sizeof msg, 1);
        ssize_t w = write(STDERR_FILENO, msg, n);
        (void)w;
        sig_root = 0; /* one message, even if the signal comes twice */
        /* mpirun relays our stderr only while a rank lives: give the line
         * time to get out before dying (nanosleep is async-signal-safe) */
        struct timespec ts = {0, 300000000L};
        nanosleep(&ts, NULL);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signals(const dt_config *cfg, int root)
{
    sig_root = root;
    size_t len = strlen(cfg->ckpt_dir);
    if (len < sizeof sig_dir)
        memcpy(sig_dir, cfg->ckpt_dir, len + 1);
    sig_drop = cfg->mode == DT_MODE_GOSSIP && cfg->topology[0] &&
               !cfg->drop_workers[0];
    sig_cont[0] = '\0';
    if (cfg->add_workers && cfg->topology[0] &&
        strlen(cfg->topology) + 64 < sizeof sig_cont)
        snprintf(sig_cont, sizeof sig_cont, "--resume --add-workers %zu "
                 "--topology %s", cfg->add_workers, cfg->topology);
    if (cfg->drop_workers[0] && cfg->topology[0] &&
        strlen(cfg->drop_workers) + strlen(cfg->topology) + 64 <
            sizeof sig_cont)
        snprintf(sig_cont, sizeof sig_cont, "--resume --drop-workers %s "
                 "--topology %s", cfg->drop_workers, cfg->topology);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

static void print_epoch(void *ctx, const dt_epoch_stats *e)
{
    (void)ctx;
    printf("epoch %zu/%zu  loss %.4f  test_acc %.4f  test_loss %.4f  "
           "lr %.4g  %.0f img/s  %.1f s\n",
           e->epoch, e->epochs, e->train_loss, e->test_acc, e->test_loss,
           e->lr, e->images_per_s, e->wall_s);
    fflush(stdout);
}

/* --bench: one summary line, then one line per conv/fc layer. */
static int run_bench(const dt_config *cfg)
{
    static const char *kinds[] = {"conv", "pool", "fc", "relu"};
    dt_bench_result r;
    if (dt_bench_train(cfg->model, cfg->batch, cfg->bench_steps,
                       cfg->bench_repeat, cfg->own_kernels, (size_t)cfg->threads,
                       &r) != CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return 1;
    }
    printf("bench %s batch %zu: %.1f images/s  %.3f ms/step  %.2f GFLOP/s  "
           "(sgemm 512^3: %.2f GFLOP/s)  threads %zu  cpu %.1f images/s\n",
           dt_model_name(r.model), r.batch, r.images_per_s, 1e3 * r.step_s,
           r.flops_per_image * r.images_per_s * 1e-9, r.sgemm_gflops,
           r.threads, r.cpu_images_per_s);
    /* per layer: ms, share of the profiled step, GFLOP/s and its fraction
       of the sgemm rate measured in the same process */
    double step = r.prof_step_s > 0 ? r.prof_step_s : 1.0;
    for (size_t i = 0; i < r.n_layers; i++) {
        const dt_layer *l = &r.layers[i];
        double ff = dt_bench_layer_flops(l, r.batch, 0, i == 0);
        double fb = dt_bench_layer_flops(l, r.batch, 1, i == 0);
        double gf = ff > 0 ? ff / r.fwd_s[i] * 1e-9 : 0.0;
        double gb = fb > 0 ? fb / r.bwd_s[i] * 1e-9 : 0.0;
        printf("layer %2zu %-4s %3zux%2zux%2zu -> %3zux%2zux%2zu  share %5.1f%%  "
               "fwd %7.3f ms %6.2f GFLOP/s %4.0f%%  bwd %7.3f ms %6.2f GFLOP/s "
               "%4.0f%%\n", i, kinds[l->kind], l->c, l->h, l->w, l->oc, l->oh,
               l->ow, 100.0 * (r.fwd_s[i] + r.bwd_s[i]) / step,
               1e3 * r.fwd_s[i], gf, 100.0 * gf / r.sgemm_gflops,
               1e3 * r.bwd_s[i], gb, 100.0 * gb / r.sgemm_gflops);
    }
    printf("update %.3f ms  share %.1f%%  (rest: loss, bookkeeping)\n",
           1e3 * r.update_s, 100.0 * r.update_s / step);
    return 0;
}

/* The placement line, at start-up and after the run: cut edges, arrays
 * and bytes per round in all, per rank (mean and busiest) and across
 * hosts, and with --net the modelled round. A time-varying topology is
 * placed for the traffic of all its rounds: the counts are those of the
 * rounds' union, the modelled round the mean over the rounds. */
static void print_placement(const dt_config *cfg, const dt_dpsgd_result *r)
{
    const cm_place_stats *st = &r->place;
    double B = r->array_bytes, P = (double)r->n_ranks;
    char by[128];
    cm_place_how_describe(&r->place_how, by, sizeof by);
    printf("placement %s", cm_place_name(r->placement));
    if (r->placement == CM_PLACE_GRAPH && by[0])
        printf(" (%s)", by);
    if (r->period > 1)
        printf(" (for all %zu rounds; counts of their union)", r->period);
    if (r->topo_kind == 2)
        printf(" (for round 0's graph of the epidemic topology)");
    printf(": %zu workers on %zu ranks on %zu host%s: cut %zu "
           "%s (%zu across hosts); per round %.3g MB between ranks "
           "(%zu arrays; per rank %.3g MB, busiest %.3g MB), %.3g MB across "
           "hosts (%zu arrays)", r->n_workers,
           r->n_ranks, st->hosts, st->hosts == 1 ? "" : "s", st->cut_edges,
           r->topo_kind ? "arcs" : "edges", st->cut_edges_host, (double)st->volume * B / 1e6, st->volume,
           (double)st->volume * B / P / 1e6,
           (double)st->max_rank * B / 1e6,
           (double)st->volume_host * B / 1e6, st->volume_host);
    if (cfg->net_given) {
        char net[160];
        printf("; modelled round %.3g ms%s (%s)", 1e3 * r->round_model_s,
               r->period > 1 ? ", mean over the rounds" : "",
               cm_net_describe(&cfg->net, net, sizeof net));
    }
    printf("\n");
    fflush(stdout);
}

/* --net --mode allreduce: the modelled all-reduce and wall clock. */
static void print_net_allreduce(const dt_config *cfg,
                                const dt_dpsgd_result *r)
{
    char net[160];
    size_t P = cfg->net_hosts ? r->n_workers : r->n_ranks;
    cm_net_ar a = {.alg = cfg->net_allreduce}; /* auto, best: resolved */
    cm_net_allreduce_model(&cfg->net, cfg->net_allreduce, P, r->net_hosts,
                           r->array_bytes, &a, NULL, NULL);
    printf("modelled all-reduce %.3g ms each: priced as %s%s (%s) on %zu "
           "ranks on %zu host%s, arrays of %.0f bytes (%s)\n",
           1e3 * r->round_model_s,
           cfg->allreduce_han ? "han, the model's " : "",
           cm_net_ar_name(cfg->net_allreduce),
           cm_net_ar_name(a.alg), P, r->net_hosts,
           r->net_hosts == 1 ? "" : "s", r->array_bytes,
           cm_net_describe(&cfg->net, net, sizeof net));
    if (r->comm_frag)
        printf("modelled fragment all-reduce %.3g ms each (%llu of the "
               "all-reduces below), arrays of %.0f bytes, the overlap not "
               "credited\n", 1e3 * r->frag_model_s,
               (unsigned long long)r->comm_frag, r->frag_bytes);
    printf("modelled wall clock %.2f s (measured %.2f s, MPI all-reduce time "
           "replaced by %llu modelled all-reduces)\n", r->last.model_s,
           r->last.wall_s,
           (unsigned long long)(r->comm_grad_allreduce + r->comm_exact));
}

/* ctx: {cfg, result} of the run in progress. */
typedef struct {
    const dt_config *cfg;
    const dt_dpsgd_result *res;
    int placement_due;  /* start-up seen: print the placement line before
                           the first progress line (a run that fails before
                           it prints nothing on stdout) */
    int adopted_said;   /* the notice of an adopted checkpoint is out */
    int placement_done; /* printed: the report does not print it again */
} progress_ctx;

/* What the resume found, said once: a complete epoch adopted without
 * DIR/latest; workers dropped (--drop-workers). */
static void say_adopted(progress_ctx *c)
{
    const dt_dpsgd_result *r = c->res;
    if (c->adopted_said ||
        (!r->ckpt_adopted && !r->dropped[0] && !r->add_now))
        return;
    if (r->ckpt_adopted)
        fprintf(stderr, "dpsgd-train: notice: --resume: %s/latest was "
                "missing (a save killed before its marker): continuing from "
                "epoch-%06llu, the newest complete checkpoint, whose "
                "settings are this run's (the marker is restored)\n",
                c->cfg->ckpt_dir, (unsigned long long)r->ckpt_adopted);
    if (r->dropped[0] && r->drop_now)
        fprintf(stderr, "dpsgd-train: notice: --drop-workers %s: the run of "
                "%zu workers continues from epoch %llu on %zu; the shards "
                "of the %zu lost workers go to their nearest survivors\n",
                r->dropped, r->workers_before_drop,
                (unsigned long long)r->dropped_epoch, r->n_workers,
                r->dropped_count);
    if (r->add_now)
        fprintf(stderr, "dpsgd-train: notice: --add-workers %zu: the run of "
                "%zu workers continues from epoch %llu on %zu; each new "
                "worker (%zu-%zu) starts from the mean of its old "
                "neighbours, the data is partitioned anew\n",
                r->added_count, r->n_workers - r->added_count,
                (unsigned long long)r->added_epoch, r->n_workers,
                r->n_workers - r->added_count, r->n_workers - 1);
    fflush(stderr);
    c->adopted_said = 1;
}

/* Rank 0's notices about the topology file, from what the run's one read
 * of it kept (dt_dpsgd_result): weights that --weights replaces, and a
 * topology learned for another partition than this run's. */
static void print_topo_notices(const dt_config *cfg, const dt_dpsgd_result *r)
{
    if (r->topo_weights_replaced)
        fprintf(stderr, "dpsgd-train: notice: --weights %s replaces the "
                "weights in %s\n", cm_weight_rule_name(cfg->weights),
                cfg->topology);
    char v[128], part[64], seed[32];
    const char *id = r->topo_labels;
    if (id[0]) { /* a topology learned for a partition: is it this run's? */
        dt_partition_spec_str(&cfg->partition, part, sizeof part);
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)cfg->seed);
        const char *keys[] = {"dataset", "partition", "seed"};
        const char *mine[] = {dt_dataset_name(cfg->dataset), part, seed};
        for (size_t k = 0; k < 3; k++)
            if (cm_labels_identity_get(id, keys[k], v, sizeof v) == 0 &&
                strcmp(v, mine[k]) != 0) {
                fprintf(stderr, "dpsgd-train: notice: %s was learned for "
                        "the partition %s, but this run uses dataset=%s "
                        "partition=%s seed=%s: its neighbourhoods are not "
                        "balanced for this run's shards\n", cfg->topology,
                        id, mine[0], mine[1], mine[2]);
                break;
            }
    }
    fflush(stderr);
}

static void print_progress(void *ctx, const dt_dpsgd_progress *p)
{
    progress_ctx *c = ctx;
    say_adopted(c);
    if (p->start) {
        print_topo_notices(c->cfg, c->res);
        c->placement_due = !c->cfg->quiet;
        return;
    }
    if (c->cfg->quiet)
        return;
    if (c->placement_due) {
        print_placement(c->cfg, c->res);
#ifdef DT_SMPI
        if (c->res->n_ranks > 1)
            printf("watchdog: off under SMPI (SimGrid reports a deadlock)"
                   "\n");
        else
#endif
        if (c->res->n_ranks > 1 && c->cfg->mode == DT_MODE_GOSSIP &&
            dt_config_given(c->cfg, "--timeout"))
            printf("watchdog: fixed deadline %g s (--timeout)\n",
                   c->cfg->timeout);
        else if (c->res->n_ranks > 1 && c->cfg->mode == DT_MODE_GOSSIP)
            printf("watchdog: the deadline adapts to the round times: median + 8 MAD of the last 64 rounds, 3 to "
                   "5 median rounds, at least %g s (--timeout-floor); "
                   "--timeout SEC fixes one\n", c->cfg->timeout_floor);
        c->placement_due = 0;
        c->placement_done = 1;
    }
    /* loss: the workers' own minibatches (none yet at epoch 0); global:
     * the average model on the first training images; NaN: not measured
     * ("-", e.g. local_acc under --local-eval 0) */
    char loss[32] = "-", global[32] = "-", local[32] = "-";
    if (!isnan(p->train_loss))
        snprintf(loss, sizeof loss, "%.4f", p->train_loss);
    if (!isnan(p->train_loss_global))
        snprintf(global, sizeof global, "%.4f", p->train_loss_global);
    if (!isnan(p->test_acc_local_mean))
        snprintf(local, sizeof local, "%.4f", p->test_acc_local_mean);
    printf("epoch %.3g/%zu  step %zu  loss %s  global_loss %s  "
           "test_acc %.4f  test_loss %.4f  local_acc %s  consensus %.3g  "
           "lr %.4g  sent %.1f MB/rank  %.0f img/s  %.1f s\n", p->epoch,
           p->epochs, p->step, loss, global, p->test_acc, p->test_loss,
           local, p->consensus, p->lr,
           (double)p->bytes_sent / 1e6, p->images_per_s, p->wall_s);
    fflush(stdout);
}

/* --bench-gossip: one line on rank 0. */
static int run_bench_gossip(const dt_config *cfg, const dt_comm *comm)
{
    dt_gossip_bench b;
    cm_status s = dt_bench_gossip(cfg, comm, &b);
    int rc = s == CM_OK ? 0 : s == CM_EINVAL ? 2 : 1; /* same on all ranks */
    if (dt_comm_rank(comm) != 0)
        return rc;
    if (s != CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return rc;
    }
    char net[160], by[128] = "", how[120];
    if (b.kind == CM_PLACE_GRAPH &&
        cm_place_how_describe(&b.how, how, sizeof how)[0])
        snprintf(by, sizeof by, " (%s)", how);
    printf("bench-gossip: %zu workers on %zu ranks on %zu host%s, placement "
           "%s%s: cut %zu edges (%zu across hosts), %zu arrays of %zu bytes "
           "per round (%zu across hosts)\n", b.n, b.P, b.hosts,
           b.hosts == 1 ? "" : "s",
           cm_place_name(b.kind), by, b.st.cut_edges, b.st.cut_edges_host,
           b.st.volume, 4 * b.len, b.st.volume_host);
    printf("bench-gossip: measured %.3f ms per round (median of %zu, "
           "slowest rank; fastest %.3f ms); modelled %.3f ms (%s, rank %zu "
           "decides)\n", 1e3 * b.median_s, b.rounds, 1e3 * b.min_s,
           1e3 * b.model_s, cm_net_describe(&cfg->net, net, sizeof net),
           b.model_rank);
    return 0;
}

/* --summary: written last, after a successful run (rank 0). */
static int write_summary(const dt_config *cfg, const dt_summary *sm)
{
    if (cfg->summary[0] && dt_summary_write(cfg->summary, cfg, sm) != CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return 1;
    }
    return 0;
}


/* The final line's plain word on a run that did not train (dt_diverge.h):
 * "" or "  AT CHANCE: ...". */
static const char *chance_note(double acc)
{
    static char buf[128];
    if (!dt_at_chance(acc, DT_DATA_CLASSES))
        return "";
    snprintf(buf, sizeof buf, "  AT CHANCE: test_acc %.4f is below %g/%d, "
             "the run did not train", acc, DT_CHANCE_FACTOR,
             DT_DATA_CLASSES);
    return buf;
}

static int run_single(const dt_config *cfg)
{
    dt_train_result res;
    double t0 = cm_time_now();
    if (cfg->summary[0] && cm_atomic_probe(cfg->summary) != CM_OK) {
        fprintf(stderr, "dpsgd-train: --summary: %s\n", cm_last_error());
        return 1;
    }
    if (dt_train_single(cfg, cfg->quiet ? NULL : print_epoch, NULL, &res) !=
        CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return 1;
    }
    printf("final: model %s  dataset %s  epochs %zu  test_acc %.4f  "
           "test_loss %.4f  %.0f img/s  params %zu  hash %016llx%s\n",
           dt_model_name(cfg->model), dt_dataset_name(cfg->dataset),
           cfg->epochs, res.test_acc, res.test_loss, res.images_per_s,
           res.n_params, (unsigned long long)res.param_hash,
           chance_note(res.test_acc));
    const dt_summary sm = {
        .mode = "single", .workers = 1, .ranks = 1, .steps = res.steps,
        .n_params = res.n_params, .n_train = res.n_train,
        .n_test = res.n_test, .test_acc = res.test_acc,
        .test_loss = res.test_loss, .train_loss = res.train_loss,
        .local_acc = res.test_acc, .lr = res.lr,
        .train_loss_global = res.train_loss_global,
        .epoch = (double)res.epochs_done, .wall_s = res.wall_s,
        .model_s = NAN, .d2_mixing = NAN,
        .images_per_s = res.images_per_s, .t_total = cm_time_now() - t0,
        .t_compute = res.train_s, .param_hash = res.param_hash};
    return write_summary(cfg, &sm);
}

/* Notices printed by rank 0 before training: a setting that the run takes
 * differently from what a user may expect is said, never silently applied
 * or ignored. */
static void print_notices(const dt_config *cfg)
{
    if (cfg->resume && cfg->ckpt_dir[0] && !cfg->drop_workers[0]) {
        uint64_t e;
        dt_ckpt_dir_info info;
        if (dt_ckpt_latest(cfg->ckpt_dir, &e) == CM_EIO &&
            dt_ckpt_scan(cfg->ckpt_dir, 0, &info) == CM_OK && !info.complete)
            fprintf(stderr, "dpsgd-train: notice: --resume: no checkpoint in "
                    "%s yet: starting from scratch\n", cfg->ckpt_dir);
    }
    fflush(stderr);
}

/* --eval-model: one line with the saved model's test accuracy and loss. */
static int run_eval_model(const dt_config *given)
{
    dt_train_result res;
    dt_config c = *given, *cfg = &c; /* model and data set: the file's */
    cm_status s = dt_train_apply_model_meta(cfg);
    if (s != CM_OK) { /* unreadable, or contradicts --model/--dataset */
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return s == CM_EINVAL ? 2 : 1;
    }
    if (dt_train_eval_model(cfg, &res) != CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return 1;
    }
    printf("eval: model %s  file %s  dataset %s  test_acc %.4f  "
           "test_loss %.4f  test images %zu  params %zu  hash %016llx\n",
           dt_model_name(cfg->model), cfg->eval_model,
           dt_dataset_name(cfg->dataset), res.test_acc, res.test_loss,
           res.n_test, res.n_params, (unsigned long long)res.param_hash);
    return 0;
}

/* --epochs 0 --write-partition FILE: the partition a run with these
 * flags would use, over --workers N or the nodes of --topology, written
 * by rank 0 (dt_partition_write_only), no training. */
static int run_write_partition(const dt_config *cfg, int root)
{
    if (!root)
        return 0;
    size_t n = cfg->workers;
    if (!n && cfg->topology[0]) {
        cm_topo_seq seq;
        cm_topo_seq_init(&seq);
        if (cm_topo_seq_read(&seq, cfg->topology) != CM_OK) {
            fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
            return 1;
        }
        n = seq.n;
        cm_topo_seq_destroy(&seq);
    }
    if (!n) {
        fprintf(stderr, "dpsgd-train: --epochs 0 --write-partition: give "
                "the workers with --workers N or --topology FILE\n");
        return 2;
    }
    cm_status s = dt_partition_write_only(
        cfg->write_partition, cfg->dataset,
        cfg->data_dir[0] ? cfg->data_dir : NULL, cfg->synth_train,
        cfg->train_limit, n, &cfg->partition, cfg->batch, cfg->seed);
    if (s != CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return s == CM_EINVAL ? 2 : 1;
    }
    if (!cfg->quiet)
        printf("partition: %zu workers written to %s\n", n,
               cfg->write_partition);
    return 0;
}

/* A plain --resume of a run that continued without workers: their list
 * from DIR/settings into cfg->drop_workers (rank 0 reads, every rank gets
 * it), so the run goes on without them as with --drop-workers LIST. The
 * --topology must then be the survivors' (dt_drop_load says so). */
static int adopt_recorded_drop(dt_config *cfg, const dt_comm *comm, int root)
{
    if (!cfg->resume || !cfg->ckpt_dir[0] || cfg->drop_workers[0] ||
        cfg->add_workers ||
        cfg->mode != DT_MODE_GOSSIP || !cfg->topology[0])
        return 0;
    char list[sizeof cfg->drop_workers] = "";
    const char *where = "settings"; /* which file recorded the drop */
    cm_status s = CM_OK;
    if (root)
        s = dt_run_ckpt_recorded_drop(cfg->ckpt_dir, list, sizeof list);
    if (root && s == CM_OK && !list[0]) {
        /* a drop whose first save never wrote DIR/settings: the repaired
         * --topology records it, for a checkpoint of its workers before */
        char *rec;
        size_t n0;
        uint64_t e;
        dt_ckpt_meta m;
        if (dt_drop_recorded(cfg->topology, &rec, &n0) &&
            strlen(rec) < sizeof list &&
            dt_ckpt_latest(cfg->ckpt_dir, &e) == CM_OK &&
            dt_ckpt_epoch_meta(cfg->ckpt_dir, e, &m) == CM_OK &&
            m.n_workers == n0) {
            memcpy(list, rec, strlen(rec) + 1);
            where = "topology";
        }
        free(rec);
        cm_error_clear();
    }
    if ((s = dt_comm_agree(comm, s)) != CM_OK ||
        (s = dt_comm_bcast(comm, list, sizeof list, 0)) != CM_OK) {
        if (root)
            fprintf(stderr, "dpsgd-train: --resume: %s\n", cm_last_error());
        return 1;
    }
    if (list[0]) {
        memcpy(cfg->drop_workers, list, sizeof list);
        if (root)
            fprintf(stderr, "dpsgd-train: notice: --resume: the run in %s "
                    "continues without workers %s (recorded in %s), as with "
                    "--drop-workers %s\n", cfg->ckpt_dir, list,
                    strcmp(where, "settings") == 0 ? "its settings"
                                                   : cfg->topology, list);
    }
    return 0;
}

static int run_distributed(const dt_config *cfg, const dt_comm *comm)
{
    int root = dt_comm_rank(comm) == 0;
    dt_dpsgd_result r;
    progress_ctx pc = {cfg, &r, 0, 0, 0};
    if (root)
        print_notices(cfg);
    cm_status s = dt_comm_set_timeout(cfg->timeout);
    if (s == CM_OK && !dt_config_given(cfg, "--timeout") &&
        cfg->mode == DT_MODE_GOSSIP)
        dt_comm_set_adaptive(cfg->timeout_floor);
    const double t_run = cm_time_now();
    if (s == CM_OK)
        s = dt_dpsgd_run(cfg, comm, root ? print_progress : NULL, &pc, &r);
    int report;
    if (s != CM_OK && dt_comm_timed_out(&report)) {
        /* Some rank is silent: no agreement can finish. The reporting
         * rank prints and ends the job; the others give it time to. */
        sig_root = 0; /* the SIGTERM of the abort adds no second line */
        if (report) {
            char msg[8400];
            size_t n = put(msg, 0, sizeof msg, "dpsgd-train: ");
            n = put(msg, n, sizeof msg, cm_last_error());
            n = put(msg, n, sizeof msg, "; ");
            n = put_ckpt(msg, n, sizeof msg, 0);
            fputs(msg, stderr);
            print_continue(cfg, &r);
            fflush(stderr);
        } else {
            /* the reporting rank answered our ping, so it is waiting and
             * times out itself within --timeout (and its grace period):
             * give it that long (at most 30 s) to print and end the job */
            double t = cfg->timeout < 25 ? cfg->timeout : 25;
            struct timespec ts = {(time_t)(5 + t), 0};
            nanosleep(&ts, NULL);
        }
        dt_comm_abort_job(1);
    }
    if (s != CM_OK) {
        sig_root = 0; /* the one message: a SIGTERM of mpirun while the
                         ranks leave adds no "stopped by" line */
        if (root)
            fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return s == CM_EINVAL ? 2 : 1;
    }
    if (!root)
        return 0;
    say_adopted(&pc);
    if (r.topo_one_based)
        fprintf(stderr, "dpsgd-train: notice: %s has no node 0 and no n=: "
                "read as 1-based (worker i is its node i+1)\n",
                cfg->topology);
    char part[64];
    dt_partition_spec_str(&cfg->partition, part, sizeof part);
    /* epochs done, not asked for: --stop-after ends a run early */
    char epochs[64];
    if (r.last.epoch < (double)cfg->epochs)
        snprintf(epochs, sizeof epochs, "%.4g of %zu", r.last.epoch,
                 cfg->epochs);
    else
        snprintf(epochs, sizeof epochs, "%.4g", r.last.epoch);
    char local[32] = "-";
    if (!isnan(r.last.test_acc_local_mean))
        snprintf(local, sizeof local, "%.4f", r.last.test_acc_local_mean);
    /* all-reduce has no W: no SLEM, no gossip time */
    char mixing[48] = "";
    if (cfg->mode != DT_MODE_ALLREDUCE)
        snprintf(mixing, sizeof mixing, "%s %.4f  ",
                 r.period > 1 ? "product-norm" : "slem", r.slem);
    printf("final: %s  workers %zu  ranks %zu  model %s  partition %s  "
           "epochs %s  test_acc %.4f  local_acc %s  consensus %.3g  "
           "%shash %016llx  workers-hash %016llx%s\n",
           cfg->mode == DT_MODE_ALLREDUCE ? "allreduce"
           : cfg->clique_avg ? "clique-avg" : dt_algo_name(r.algorithm),
           r.n_workers, r.n_ranks, dt_model_name(cfg->model), part,
           epochs, r.last.test_acc, local, r.last.consensus, mixing,
           (unsigned long long)r.mean_hash,
           (unsigned long long)r.workers_hash, chance_note(r.last.test_acc));
    char mem_gossip[48] = "";
    if (cfg->mode != DT_MODE_ALLREDUCE)
        snprintf(mem_gossip, sizeof mem_gossip, "gossip in-memory %.2f s  ",
                 r.t_gossip_mem);
    printf("time per rank: compute %.2f s  %s"
           "%s %.2f s  evaluation %.2f s  total %.2f s  start-up %.2f s "
           "(CPU %.2f s)  (%zu steps%s, %.1f kB sent per step per rank)\n",
           r.t_compute, mem_gossip,
           cfg->mode == DT_MODE_ALLREDUCE ? "allreduce" : "gossip MPI",
           r.t_gossip_mpi, r.t_eval, r.t_total,
           (t_run - t_main) + r.t_setup, r.cpu_setup, r.steps - r.start_step,
           r.start_step ? " after resume" : "",
           (double)r.bytes_per_step / 1e3);
    /* bytes per worker: all ranks' peak RSS over all workers, so the
     * per-rank parts (network, test set, gossip buffers) are in it */
    printf("memory per rank: peak RSS %.1f MB max, %.1f MB mean (%.0f bytes "
           "per worker)", r.rss_max / 1e6, r.rss_mean / 1e6,
           r.rss_mean * (double)r.n_ranks / (double)r.n_workers);
    if (cfg->mode == DT_MODE_GOSSIP)
        printf("; gossip in memory %.1f MB streamed per step per rank",
               (double)r.mem_bytes_per_step / 1e6);
    printf("\n");
    if (r.period > 1)
        printf("time-varying topology: %zu rounds per period (step t gossips "
               "over round t mod %zu)\n", r.period, r.period);
    if (r.algorithm == DT_ALGO_D2)
        printf("d2 mixing matrix: (1 - C) I + C W with C = %.4f, SLEM %.4f "
               "(W: %.4f)\n", r.mix_c, r.mix_slem, r.slem);
    if (cfg->mode == DT_MODE_GOSSIP) {
        if (!pc.placement_done) /* --quiet: not printed with the epochs */
            print_placement(cfg, &r);
        if (cfg->net_given)
            printf("modelled wall clock %.2f s (measured %.2f s, MPI time "
                   "replaced by the model's %llu gossip rounds, %llu exact "
                   "averages, %llu clique rounds)\n", r.last.model_s,
                   r.last.wall_s, (unsigned long long)r.comm_gossip,
                   (unsigned long long)r.comm_exact,
                   (unsigned long long)r.comm_clique);
    }
    if (cfg->mode == DT_MODE_ALLREDUCE && cfg->net_given)
        print_net_allreduce(cfg, &r);
    if (cfg->net_given && r.net_hosts == 1)
        fprintf(stderr, "dpsgd-train: notice: %s%s: the modelled "
                "deployment has one host, so no link between hosts: model_s "
                "is the measured time with in-host %s (--net-hosts S models "
                "S hosts)\n", cfg->net_platform ? "--platform " : "--net",
                cfg->net_platform ? cfg->net.name : "",
                cfg->mode == DT_MODE_ALLREDUCE ? "all-reduces" : "rounds");
    if (r.dropped[0])
        printf("dropped: workers %s (%zu of %zu) at epoch %llu; continued on "
               "%zu workers\n", r.dropped, r.dropped_count,
               r.workers_before_drop, (unsigned long long)r.dropped_epoch,
               r.n_workers);
    if (r.add_now)
        printf("joined: workers %zu-%zu (%zu new) at epoch %llu; continued "
               "on %zu workers\n", r.n_workers - r.added_count,
               r.n_workers - 1, r.added_count,
               (unsigned long long)r.added_epoch, r.n_workers);
    if (cfg->log_path[0])
        printf("log: %s\n", cfg->log_path);
    char placed_by[128];
    cm_place_how_describe(&r.place_how, placed_by, sizeof placed_by);
    dt_summary sm = {
        .mode = cfg->mode == DT_MODE_ALLREDUCE ? "allreduce"
                                               : dt_algo_name(r.algorithm),
        .d2_mixing = cfg->mode != DT_MODE_ALLREDUCE &&
                             r.algorithm == DT_ALGO_D2 ? r.mix_c : NAN,
        .workers = r.n_workers, .ranks = r.n_ranks, .steps = r.steps,
        .n_params = r.n_params, .n_train = r.n_train, .n_test = r.n_test,
        .test_acc = r.last.test_acc,
        .test_loss = r.last.test_loss, .train_loss = r.last.train_loss,
        .local_acc = r.last.test_acc_local_mean,
        .consensus = r.last.consensus, .lr = r.last.lr,
        .slem = cfg->mode == DT_MODE_ALLREDUCE ? NAN : r.slem,
        .train_loss_global = r.last.train_loss_global,
        .epoch = r.last.epoch, .wall_s = r.last.wall_s,
        .model_s = cfg->net_given ? r.last.model_s : NAN,
        .images_per_s = r.last.images_per_s, .t_total = r.t_total,
        .t_compute = r.t_compute, .t_gossip_mem = r.t_gossip_mem,
        .t_gossip_mpi = r.t_gossip_mpi, .t_eval = r.t_eval,
        .bytes_per_step = r.bytes_per_step, .bytes_sent = r.last.bytes_sent,
        .param_hash = r.mean_hash, .workers_hash = r.workers_hash,
        .placed_by = cfg->mode == DT_MODE_GOSSIP ? placed_by : NULL,
        .dropped = r.dropped[0] ? r.dropped : NULL,
        .dropped_count = r.dropped_count,
        .workers_before_drop = r.workers_before_drop,
        .dropped_epoch = r.dropped_epoch,
        .comm_gossip = r.comm_gossip, .comm_exact = r.comm_exact,
        .comm_clique = r.comm_clique, .comm_frag = r.comm_frag,
        .comm_grad_allreduce = r.comm_grad_allreduce, .has_comms = 1,
        .has_steps_to = 1};
    memcpy(sm.steps_to, r.steps_to, sizeof r.steps_to);
    return write_summary(cfg, &sm);
}

/* A flag given by its old name: a notice on rank 0 naming the new one.
 * Returns 0 (the run goes on). */
static int old_names(const dt_config *cfg, int root)
{
    if (root && dt_config_given(cfg, "--gamma"))
        fprintf(stderr, "dpsgd-train: notice: --gamma is now --lr-decay (the "
                "step schedule's decay factor; topogen's --gamma is "
                "n_eff's)\n");
    return 0;
}

/* The outputs against the inputs and each other (exit 2 naming both
 * flags), then rank 0 locks --summary, --save-model and --write-partition
 * for the run (exit 1 when another run holds one); every rank agrees. */
static int claim_outputs(const dt_config *cfg, dt_comm *world, int root,
                         dt_outputs *o)
{
    cm_status s = root ? dt_outputs_check(cfg) : CM_OK;
    if (s == CM_OK && root)
        s = dt_outputs_lock(o, cfg);
    s = dt_comm_agree(world, s);
    if (s == CM_OK)
        return 0;
    if (root) {
        dt_outputs_unlock(o);
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
    }
    return s == CM_EINVAL ? 2 : 1;
}

/* Under an address-space limit, OpenBLAS's buffers for the engine's
 * threads are taken first (cm_blas_reserve): a limit too low for them
 * ends the run at once (exit 1) instead of a hang in OpenBLAS. */
static int reserve_blas(const dt_config *cfg, dt_comm *world, int root)
{
    cm_status s = dt_comm_agree(world, cm_blas_reserve((size_t)cfg->threads));
    if (s == CM_OK)
        return 0;
    if (root)
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
    return 1;
}

/* LeakSanitizer's check, when the program is built with it */
extern void __lsan_do_leak_check(void) __attribute__((weak));

/* The environment and the global BLAS state belong to main: the library
 * gets them through cfg. DPSGD_NO_AVX512 (non-empty, not "0") forces the
 * portable path (OpenBLAS, NCHW, none of the own AVX-512 or AVX2 kernels),
 * e.g. to test it. OpenBLAS runs one thread: --threads are the engine's
 * (dt_net_set_threads), which split a batch so that any count gives the
 * same bits; BLAS threads inside them would only oversubscribe. */
static void apply_environment(dt_config *cfg)
{
    const char *e = getenv("DPSGD_NO_AVX512");
    if (e && *e && strcmp(e, "0") != 0)
        cfg->own_kernels = 0;
    openblas_set_num_threads(1);
}

/* Before OpenBLAS's constructor: a clear message under a low ulimit -v;
 * and one OpenBLAS thread, which is all this program uses (see
 * apply_environment), so that its start-up needs no second stack. */
static void preinit(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    (void)envp;
    cm_blas_limit_early("dpsgd-train");
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
}
#ifndef DT_SMPI
__attribute__((section(".preinit_array"), used)) static void (
    *const preinit_hook)(int, char **, char **) = preinit;
#else
/* smpicc links the program as a shared object, where .preinit_array is
 * not allowed; SimGrid loads it after its own start-up (and OpenBLAS's),
 * so the hook could not run first anyway: smpi-run.sh sets one thread */
__attribute__((unused)) static void (*const preinit_hook)(int, char **,
                                                           char **) = preinit;
#endif

int main(int argc, char **argv)
{
    main_argc = argc;
    main_argv = argv;
    dt_config cfg;
    dt_outputs outs;
    int rc;
    dt_outputs_init(&outs);
    t_main = cm_time_now();
    /* GSL's default handler aborts (exit 134) on e.g. a failed allocation;
     * its codes come back as cm_status instead */
    gsl_set_error_handler_off();
    /* before MPI: its fork joins OpenBLAS's thread, which spins when a
     * memory limit left it no buffer */
    if (cm_blas_reserve(1) != CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        fflush(NULL);
        _exit(1);
    }
    if (dt_comm_init(&argc, &argv) != CM_OK) {
        fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
        return 1;
    }
#ifdef DT_SMPI
    t_main = cm_time_now(); /* SMPI: simulated time starts at MPI_Init */
#endif
    dt_comm *world = dt_comm_world();
    int root = dt_comm_rank(world) == 0;
    dt_config_default(&cfg);
    cm_status parsed = dt_config_parse(&cfg, argc, argv);
    if (parsed != CM_OK) {
        /* every rank parses the same argv: all fail alike, none hangs; a
         * file a flag reads (--platform P.xml) that is missing or bad is
         * a bad input file, exit 1 */
        int file = parsed == CM_EIO || parsed == CM_EFORMAT;
        if (root)
            fprintf(stderr, "dpsgd-train: %s\n%s", cm_last_error(),
                    file ? "" : "Try 'dpsgd-train --help'.\n");
        rc = file ? 1 : 2;
    } else if (cfg.help) {
        if (root)
            fputs(dt_config_usage(), stdout);
        rc = 0;
    } else if (cfg.version) {
        if (root)
            printf("dpsgd-train %s\n", DT_TRAIN_VERSION);
        rc = 0;
    } else if ((rc = old_names(&cfg, root)) != 0 ||
               (rc = claim_outputs(&cfg, world, root, &outs)) != 0 ||
               (rc = reserve_blas(&cfg, world, root)) != 0) {
        /* refused: rank 0 said why */
    } else if (apply_environment(&cfg), cfg.bench_gossip) {
        rc = run_bench_gossip(&cfg, world);
    } else if (cfg.bench) {
        rc = root ? run_bench(&cfg) : 0;
    } else if (cfg.eval_model[0]) {
        rc = root ? run_eval_model(&cfg) : 0;
    } else if (cfg.epochs == 0) {
        rc = run_write_partition(&cfg, root);
    } else if (dt_comm_size(world) == 1 && !cfg.topology[0] &&
               cfg.mode == DT_MODE_GOSSIP) {
        if (cfg.resume || cfg.ckpt_dir[0] || cfg.write_partition[0]) {
            fprintf(stderr, "dpsgd-train: --checkpoint/--resume%s need "
                    "--topology or --mode allreduce\n",
                    cfg.write_partition[0] ? " (and --write-partition, "
                    "unless --epochs 0)" : "");
            rc = 2;
        } else if (dt_config_check_single(&cfg) != CM_OK) {
            fprintf(stderr, "dpsgd-train: %s\n", cm_last_error());
            rc = 2;
        } else {
            catch_signals(&cfg, root);
            rc = run_single(&cfg);
        }
    } else if ((rc = adopt_recorded_drop(&cfg, world, root)) == 0) {
        catch_signals(&cfg, root);
        rc = run_distributed(&cfg, world);
    }
    dt_outputs_unlock(&outs);
#ifdef DT_SMPI
    /* SMPI runs every rank in this one process, and SMPI times each rank's
     * start from this machine's clock, so their order varies: without a
     * barrier a rank's _exit below could end the process before rank 0
     * has printed why the run stopped (1 run in 15 of a bad flag) */
    dt_comm_barrier(world);
#endif
    dt_comm_finalize();
    /* _exit, not exit: an OpenBLAS thread still retrying an allocation
     * (a run that hit a memory limit) would keep exit()'s join of it
     * waiting forever; the outputs are complete by now */
    if (fflush(NULL) != 0 && rc == 0)
        rc = 1;
    if (__lsan_do_leak_check)
        __lsan_do_leak_check();
    _exit(rc);
}
