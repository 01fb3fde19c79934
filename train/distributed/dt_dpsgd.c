/* dt_dpsgd.c: the D-PSGD / C-PSGD training loop over MPI ranks.
 *
 * Algorithm: Lian et al. 2017, "Can decentralized algorithms outperform
 * centralized algorithms? A case study for decentralized parallel
 * stochastic gradient descent", Algorithm 1, with local momentum and
 * weight decay (v_i <- mu v_i + g_i + wd x_i; x_i <- sum_j W_ij x_j - lr v_i).
 * The exchange of the x_j is started before and finished after the
 * gradient computation, so it overlaps it. --algorithm swaps in another
 * update rule of dt_algo (D^2, gradient tracking, quasi-global momentum)
 * on the same gossip; d2's mixing matrices (1 - c) I + c W_t are settled
 * before training (dt_d2_mix, from the rounds' lambda_min).
 *
 * Reproducibility: everything a worker does depends on (seed, worker id)
 * only: its shard (dt_partition, from the seed), its batch order (its own
 * generator, stream 2 + id; every pass reshuffles the sorted shard, so a
 * pass is a function of the generator state at its start, which is what a
 * checkpoint stores), and the gossip sum (ascending neighbour order). So
 * the trajectory is the same for every number of ranks P, and a resumed
 * run equals an uninterrupted one. Evaluation is the only place where
 * floating-point sums over ranks happen, and it never feeds back.
 *
 * Time-varying topologies (cm_topo_seq): one gossip plan per round; step t
 * (counted from the start of the run, so also across a resume) gossips
 * over round t mod period, and the bytes sent follow that round's edges.
 * A single-round file is today's run, bit for bit. Every --algorithm runs
 * on a sequence: its gossip (x, gt's x and y together, d2's and qgm's
 * combined vectors) in step t uses round t mod period.
 *
 * Directed topologies gossip along their arcs (dt_gossip). Epidemic ones
 * (cm_topo_epidemic_draw) draw step t's graph from (--seed, t) on every
 * rank, t counted from the start of the run, so a resume continues the
 * same sequence; one dynamic gossip plan is re-planned every step.
 * Which algorithms apply (check_directed): d2 needs a symmetric W and is
 * refused on directed and epidemic topologies; gt and qgm need a doubly
 * stochastic W (every directed file, EL-Oracle) and are refused on
 * EL-Local, whose W is only row stochastic.
 *
 * Trade-off: one network (one set of activation and im2col buffers) per
 * rank runs all of the rank's workers in turn; worker state is just
 * (x_i, v_i, generator, batch order).
 *
 * This file sets up, steps and checkpoints the run; what it reports
 * (evaluation, the CSV row, the final summary) is dt_dpsgd_report.c, on
 * the per-rank state of dt_run.h.
 */
#include "dt_dpsgd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "cm_net.h"
#include "cm_atomic.h"
#include "cm_rng.h"
#include "cm_time.h"
#include "cm_hash.h"
#include "cm_idlist.h"
#include "cm_topo_seq.h"
#include "cm_topo.h"
#include "dt_algo.h"
#include "dt_compress.h"
#include "dt_d2_mix.h"
#include "dt_diverge.h"
#include "dt_local.h"
#include "dt_data.h"
#include "dt_drop.h"
#include "dt_handoff.h"
#include "dt_dpsgd_state.h"
#include "dt_gossip.h"
#include "dt_log.h"
#include "dt_loop.h"
#include "dt_metrics.h"
#include "dt_model_io.h"
#include "dt_net.h"
#include "dt_optim.h"
#include "dt_partition.h"
#include "dt_placement.h"
#include "dt_run.h"
#include "dt_run_ckpt.h"
#include "dt_topo_load.h"
#include "dt_train.h"
#include "dt_workers.h"
#include "dt_clique.h"
#include "dt_slab.h"
#include "dt_partition_file.h"

/* ---- setup ------------------------------------------------------------- */

/* d2's mixing matrices (1 - c) I + c W_t (dt_d2_mix_choose) on rank 0,
 * agreed and broadcast (collective). */
static cm_status setup_d2_mixing(dt_run *r)
{
    double v[2] = {0.0, 0.0};
    cm_status s = CM_OK;
    if (r->rank == 0) {
        dt_d2_mix m;
        s = dt_d2_mix_choose(&r->seq, r->cfg->topology, r->cfg->d2_mix, &m);
        v[0] = m.c;
        v[1] = m.slem;
    }
    s = dt_comm_agree_idle(r->comm, s);
    if (s == CM_OK)
        s = dt_comm_bcast(r->comm, v, sizeof v, 0);
    r->mix_c = v[0];
    r->mix_slem = v[1];
    return s;
}

/* What a directed or epidemic topology allows (CM_EINVAL: the usage exit
 * code 2); the same answer on every rank. */
static cm_status check_directed(const dt_run *r)
{
    const dt_config *cfg = r->cfg;
    const cm_topo *t = r->topo;
    if (!t || !t->directed)
        return CM_OK;
    const char *what = !cm_topo_is_epidemic(t) ? "a directed topology"
                       : t->epi_local ? "an epidemic (EL-Local) topology"
                                      : "an epidemic (EL-Oracle) topology";
    if (cfg->algorithm == DT_ALGO_D2)
        return cm_error(CM_EINVAL, "--algorithm d2 needs a symmetric W "
                        "(its mixing matrix (1 - c) I + c W must have "
                        "eigenvalues above -1/3), but %s is %s; use dpsgd, "
                        "gt or qgm", cfg->topology, what);
    if (cm_topo_is_epidemic(t) && t->epi_local &&
        (cfg->algorithm == DT_ALGO_GT || cfg->algorithm == DT_ALGO_QGM))
        return cm_error(CM_EINVAL, "--algorithm %s needs a doubly stochastic "
                        "W, but %s is EL-Local, whose receivers average what "
                        "they get (row stochastic only); use dpsgd, or "
                        "local=0 (EL-Oracle)", dt_algo_name(cfg->algorithm),
                        cfg->topology);
    if (cfg->weights_set)
        return cm_error(CM_EINVAL, "--weights %s does not apply to %s (%s): "
                        "its weights are in the file%s",
                        cm_weight_rule_name(cfg->weights), cfg->topology, what,
                        cm_topo_is_epidemic(t) ? " (1/(s+1), or 1/(in-degree "
                        "+ 1) for EL-Local)" : "");
    return CM_OK;
}

/* Topology (gossip) or worker count (all-reduce); ranks <= workers. */
static cm_status setup_workers(dt_run *r)
{
    const dt_config *cfg = r->cfg;
    cm_status s = CM_OK;
    if (r->allreduce) {
        r->n = cfg->workers ? cfg->workers : r->P;
        r->slem = 0.0;
    } else {
        /* every rank parses; rank 0 alone checks and computes the SLEM
         * and the weights of an unweighted file (or, --weights given, of
         * any static file: main prints a notice), agreed and broadcast */
        s = dt_topo_load_header(r->comm, cfg->topology, cfg->weights,
                                cfg->weights_set, &r->seq, &r->hdr,
                                &r->one_based, &r->slem);
        r->topo = s == CM_OK ? &r->seq.round[0] : NULL;
        r->period = r->seq.period;
        r->n = r->seq.n;
        r->epidemic = r->topo && cm_topo_is_epidemic(r->topo);
        if (s == CM_OK)
            s = check_directed(r);
        if (s == CM_OK && cfg->algorithm == DT_ALGO_D2)
            s = setup_d2_mixing(r);
    }
    s = dt_comm_agree(r->comm, s);
    if (s != CM_OK)
        return s;
    if (r->P > r->n)
        return cm_error(CM_EINVAL, "%zu MPI ranks but %s has only %zu "
                        "worker%s: run at most %zu ranks (mpirun -np %zu)",
                        r->P, r->allreduce ? "--workers" : cfg->topology,
                        r->n, r->n == 1 ? "" : "s", r->n, r->n);
    if (r->allreduce) {
        dt_partition_block_range(r->n, r->P, r->rank, &r->w.first,
                                 &r->w.count);
        return CM_OK;
    }
    /* gossip: the agreed placement (--placement) says which workers; a
     * time-varying topology is placed for the traffic of all its rounds */
    if (r->epidemic) { /* placed for round 0's graph (a typical one) */
        const cm_topo *t = r->topo;
        s = dt_comm_agree(r->comm, cm_topo_epidemic_draw(
                                       &r->epi, t->n, t->epi_s, t->epi_local,
                                       cfg->seed, 0));
        if (s == CM_OK)
            s = dt_placement_init(&r->pl, r->comm, &r->epi, cfg->placement);
    } else {
        s = dt_placement_init_seq(&r->pl, r->comm, &r->seq, cfg->placement);
    }
    if (s != CM_OK)
        return s;
    dt_workers *w = &r->w;
    w->id = malloc(r->n * sizeof *w->id);
    s = dt_comm_agree(r->comm, w->id ? CM_OK : cm_error(CM_ENOMEM, "out of "
                                                        "memory"));
    if (s == CM_OK) {
        w->count = dt_placement_workers(&r->pl, r->n, r->rank, w->id);
        w->first = w->id[0];
    }
    return s;
}

/* Labels and pixel statistics are read by rank 0 and broadcast; each rank
 * then loads only its workers' shards and its slices of the test set. */
static cm_status setup_data(dt_run *r, dt_partition *part,
                            const dt_drop_plan *drop)
{
    const dt_config *cfg = r->cfg;
    dt_workers *w = &r->w;
    dt_source src = {0};
    dt_norm norm;
    uint8_t *labels = NULL;
    uint64_t hdr[2] = {0, 0}; /* training labels, test images */
    memset(&norm, 0, sizeof norm);
    cm_status s = dt_source_init(&src, cfg->dataset,
                                 cfg->data_dir[0] ? cfg->data_dir : NULL,
                                 cfg->seed);
    if (s == CM_OK) {
        src.synth_n[DT_SPLIT_TRAIN] = cfg->synth_train;
        src.synth_n[DT_SPLIT_TEST] = cfg->synth_test;
    }
    if (r->rank == 0 && s == CM_OK) {
        size_t nl = 0;
        dt_shape sh;
        if ((s = dt_data_labels(&src, DT_SPLIT_TRAIN, &labels, &nl)) ==
                CM_OK &&
            (s = dt_source_shape(&src, DT_SPLIT_TEST, &sh)) == CM_OK &&
            (s = dt_data_stats(&src, &norm)) == CM_OK) {
            hdr[0] = nl;
            hdr[1] = sh.n;
        }
    }
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK)
        goto cleanup;
    if ((s = dt_comm_bcast(r->comm, hdr, sizeof hdr, 0)) != CM_OK ||
        (s = dt_comm_bcast(r->comm, &norm, sizeof norm, 0)) != CM_OK)
        goto cleanup;
    dt_train_model_meta(cfg, &norm, &r->meta);
    size_t n_train = (size_t)hdr[0];
    if (r->rank != 0 && !(labels = malloc(n_train ? n_train : 1)))
        s = cm_error(CM_ENOMEM, "out of memory for %zu labels", n_train);
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK ||
        (s = dt_comm_bcast(r->comm, labels, n_train, 0)) != CM_OK)
        goto cleanup;
    if (cfg->train_limit && cfg->train_limit < n_train)
        n_train = cfg->train_limit;
    r->n_train = n_train;
    r->ev.n_test = (size_t)hdr[1];
    if (cfg->test_limit && cfg->test_limit < r->ev.n_test)
        r->ev.n_test = cfg->test_limit;

    /* Shards: the same partition on every rank (it depends on the seed). */
    /* --drop-workers: the run's partition before the drop, then the lost
     * shards handed over (dt_handoff) */
    s = dt_partition_make(part, &cfg->partition, labels, n_train,
                          DT_DATA_CLASSES, drop ? drop->n0 : r->n, r->B,
                          cfg->seed);
    if (s != CM_OK)
        cm_error_prefix(s, "--partition");
    else if (drop)
        s = dt_handoff_apply(part, drop->lost, drop->k, drop->off, drop->nb);
    if (s == CM_OK && r->rank == 0 && cfg->write_partition[0])
        s = dt_partition_save_counts(cfg->write_partition, part, labels,
                                     n_train, cfg->dataset, &cfg->partition,
                                     cfg->seed);
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK)
        goto cleanup;
    s = dt_workers_load_shards(w, part, &src, &norm);
    if (s == CM_OK)
        s = dt_evaluator_load(&r->ev, &src, &norm, r->rank, r->P,
                              r->allreduce ? 0 : cfg->local_eval, n_train);
    s = dt_comm_agree(r->comm, s);
    if (s == CM_OK) {
        size_t used = part->off[r->n];
        r->steps_per_epoch = used / (r->n * r->B);
        if (r->steps_per_epoch == 0)
            r->steps_per_epoch = 1;
    }
cleanup:
    free(labels);
    dt_source_destroy(&src);
    return s;
}

/* Network, worker arrays, generators; identical initial x on all workers. */
static cm_status setup_state(dt_run *r)
{
    const dt_config *cfg = r->cfg;
    const dt_data *d = &r->w.train;
    cm_status s = dt_net_new(cfg->model, d->c, d->h, d->w, d->classes,
                             dt_net_eval_batch(r->B), cfg->own_kernels, &r->net);
    if (s == CM_OK)
        s = dt_net_set_threads(r->net, (size_t)cfg->threads);
    if (s != CM_OK)
        return s;
    const size_t len = r->net->n_params;
    r->ev.comm = r->comm;
    r->ev.net = r->net;
    r->ev.n = r->n;
    const size_t xlen = r->allreduce ? len
                                     : dt_algo_gossip_len(cfg->algorithm, len);
    if ((s = dt_workers_alloc(&r->w, r->allreduce && !r->local, len, xlen,
                              r->B,
                              cfg->seed)) != CM_OK ||
        (s = dt_evaluator_alloc(&r->ev, len)) != CM_OK)
        return s;
    if (r->allreduce && !r->local &&
        !(r->gsum = malloc(len * sizeof *r->gsum)))
        return cm_error(CM_ENOMEM, "out of memory for the gradient sum");
    cm_rng init;
    cm_rng_seed(&init, cfg->seed, 0);
    dt_net_init(r->net, r->w.x[0], &init);
    if (cfg->init_model[0] &&
        (s = dt_model_load(r->net, cfg->init_model, r->w.x[0])) != CM_OK) {
        if (s != CM_EINVAL) /* a file that does not fit the model is a */
            return cm_error_prefix(s, "--init-model"); /* bad file (exit */
        char msg[1024];                                /* 1), not a flag */
        snprintf(msg, sizeof msg, "%s", cm_last_error());
        return cm_error(CM_EFORMAT, "--init-model: %s", msg);
    }
    for (size_t i = 1; i < r->w.arrays; i++)
        memcpy(r->w.x[i], r->w.x[0], len * sizeof(float));
    r->x0_sq = 0.0; /* before a resume: the run's own x_0 on every rank */
    for (size_t k = 0; k < len; k++)
        r->x0_sq += (double)r->w.x[0][k] * (double)r->w.x[0][k];
    return CM_OK;
}

/* ---- one step ---------------------------------------------------------- */

/* Gradient of worker i at params p on its next minibatch, into
 * net->grads (all-reduce: the shared x, no momentum here). */
static cm_status worker_grad(dt_run *r, size_t i, const float *p)
{
    dt_workers_next_batch(&r->w, i);
    double loss;
    cm_status s = dt_net_grad(r->net, p, r->net->grads, r->w.xb, r->w.yb,
                              r->B, &loss);
    r->loss_sum += loss;
    r->loss_n++;
    return s;
}

/* The gossip as dt_algo's mixer: the plan of the current round. */
static cm_status mix_start(void *ctx, float *const *in)
{
    dt_run *r = ctx;
    return dt_gossip_start(r->global_now ? r->gg : r->g[r->cur], in);
}

static cm_status mix_finish(void *ctx, float *const *out)
{
    dt_run *r = ctx;
    return dt_gossip_finish(r->global_now ? r->gg : r->g[r->cur], out);
}

/* --outer: the outer step of every local worker after the communication
 * of step `step` (a no-op without --outer, or sgd:1, which only moves the
 * anchor). In the every-step warm-up of --local-after S (step < S) there
 * is no outer step, as in DiLoCo, whose outer loop starts after it: the
 * anchor follows x, the Nesterov buffer stays 0, so the first outer step
 * takes the pseudo-gradient of the first local round. (With the outer
 * step after each warm-up average, DiLoCo left the warm-up at 22%
 * accuracy, local SGD at 77%: an outer Nesterov step on every one-step
 * pseudo-gradient is heavy-ball momentum stacked on the workers' own.) */
static void outer_steps(dt_run *r, size_t step)
{
    if (!r->oa)
        return;
    const int warm = step < r->cfg->local_after;
    for (size_t i = 0; i < r->w.count; i++) {
        if (warm)
            memcpy(r->oa[i], r->w.x[i], r->w.len * sizeof(float));
        else
            dt_outer_step(&r->cfg->outer, r->w.x[i], r->oa[i],
                          r->ob ? r->ob[i] : NULL, r->w.len);
    }
}

void dt_run_count_comms(const dt_run *r, uint64_t t, dt_run_comms *c)
{
    const dt_config *cfg = r->cfg;
    memset(c, 0, sizeof *c);
    if (r->allreduce && !r->local) {
        c->grad_allreduce = t;
        return;
    }
    uint64_t n = dt_local_comms(cfg->average_every, cfg->local_after, t);
    if (r->allreduce) { /* + the momentum averages of the warm-up */
        c->warm_v = t < cfg->local_after ? t : cfg->local_after;
        if (r->frag) { /* the warm-up's whole averages, then fragments */
            c->frag = dt_frag_syncs(cfg->average_every, cfg->local_after,
                                    cfg->fragments.p, t);
            n = c->warm_v + c->frag;
        }
        c->global = n + c->warm_v;
        return;
    }
    c->global = cfg->global_every ? n / cfg->global_every : 0;
    c->gossip = n - c->global;
    c->clique = r->gc ? n : 0;
}

/* --compress in gossip mode: CHOCO-SGD's exchange (Koloskova, Stich,
 * Jaggi 2019, Algorithm 2; Koloskova, Lin, Stich, Jaggi 2020 for deep
 * learning), after dpsgd's local step x_i <- x_i - lr v_i. Each worker
 * keeps a public copy xh_i of its model, which every neighbour can
 * rebuild from what it received, and s_i = sum_j W_ij xh_j:
 *     q_i = Q(x_i - xh_i);  xh_i += q_i;  s_i += sum_j W_ij q_j
 *     x_i += gamma (s_i - xh_i)
 * The public copy is the error feedback (what Q dropped is in x - xh and
 * goes out later). Only q moves, in its wire form (dt_gossip_new_placed_q,
 * dt_compress_wire.h: int8/int4 codes and block scales, top-k values
 * and indices; dt_compress_bytes a worker array); gamma is
 * --consensus-step. At gamma = 1 without compression this is D-PSGD in
 * adapt-then-combine form. Needs one fixed
 * W (s_i is a sum over it): static topologies only (check_local).
 * Arrays: ca = xh, ce = s, cq = q, cp = the received sum. */
static cm_status choco_exchange(dt_run *r, dt_gossip *g)
{
    dt_workers *w = &r->w;
    const size_t n = w->len;
    const float gamma = (float)r->cfg->consensus_step;
    for (size_t i = 0; i < w->count; i++) {
        float *p = r->cp[i]; /* x - xh, then Q of it in cq */
        for (size_t k = 0; k < n; k++)
            p[k] = w->x[i][k] - r->ca[i][k];
        dt_compress_apply(&r->cfg->compress, p, r->cq[i], n);
        for (size_t k = 0; k < n; k++)
            r->ca[i][k] += r->cq[i][k];
    }
    cm_status s = dt_gossip_start(g, r->cq);
    if (s == CM_OK)
        s = dt_gossip_finish(g, r->cp);
    for (size_t i = 0; s == CM_OK && i < w->count; i++)
        for (size_t k = 0; k < n; k++) {
            r->ce[i][k] += r->cp[i][k];
            w->x[i][k] += gamma * (r->ce[i][k] - r->ca[i][k]);
        }
    return s;
}

/* --staleness S: communication c (after the algorithm's local step:
 * dpsgd's, or d2's as Local Exact-Diffusion) keeps x_i as the model sent
 * at c, and mixes with the models sent at c - S (dt_algo_stale_mix,
 * dt_algo.h; dpsgd: dt_stale_mix, dt_local.h; d2 also moves its
 * correction): slot c mod (S + 1) gets x, the stale slot
 * is (c - S) mod (S + 1) = (c + 1) mod (S + 1), x_0 until written.
 *
 * The rounds really are in flight: each slot k has its own gossip plan
 * sg[k] (its own graph communicator and buffers). Communication c
 * STARTS the round of the models of c (slot and plan c mod (S + 1); the
 * slot is not written again before that round is finished) and then
 * FINISHES the round started at c - S, whose result is the mix of the
 * stale slot, the same bits as one blocking round of those arrays. So a
 * round overlaps the next S communications (their H steps of compute
 * each) and, with no compute, S + 1 rounds share a latency: a
 * communication waits at least max(compute, L / (S + 1)) for a round
 * of latency L (--net's pricing; docs/train/staleness.md has the SMPI
 * times). The first S communications finish the rounds of x_0 that
 * start_stale posted at setup; a round that would be finished at or
 * after the run's last communication (stale_end) is not started, so the
 * run sends and counts exactly the rounds it mixes. The same bits on
 * any number of ranks. */
static cm_status stale_exchange(dt_run *r, uint64_t c, double lr)
{
    dt_workers *w = &r->w;
    const size_t S = r->cfg->staleness, n = w->len;
    float **now = r->sring[c % (S + 1)], **old = r->sring[(c + 1) % (S + 1)];
    for (size_t i = 0; i < w->count; i++)
        memcpy(now[i], w->x[i], n * sizeof(float));
    cm_status s = CM_OK;
    if (c + S < r->stale_end)
        s = dt_gossip_start(r->sg[c % (S + 1)], now);
    if (s == CM_OK)
        s = dt_gossip_finish(r->sg[(c + 1) % (S + 1)], r->smix);
    const float gamma = (float)(dt_config_given(r->cfg, "--consensus-step")
                                    ? r->cfg->consensus_step
                                    : dt_stale_gamma(S));
    for (size_t i = 0; s == CM_OK && i < w->count; i++)
        dt_algo_stale_mix(r->algo, i, r->smix[i], old[i], gamma,
                          (float)lr);
    return s;
}

/* Lets MPI advance the round of g and, with --staleness, every round in
 * flight (Open MPI moves them only inside MPI calls). */
static cm_status gossip_poke(dt_run *r, dt_gossip *g)
{
    cm_status s = dt_gossip_progress(g);
    for (size_t k = 0; r->sg && k <= r->cfg->staleness && s == CM_OK; k++)
        s = dt_gossip_progress(r->sg[k]);
    return s;
}

/* Seconds g spent in memory and in MPI, with --staleness those of the
 * rounds in flight too. */
static double gossip_seconds(const dt_run *r, const dt_gossip *g)
{
    dt_gossip_stats gs;
    dt_gossip_get_stats(g, &gs);
    double t = gs.t_mix + gs.t_mpi;
    for (size_t k = 0; r->sg && k <= r->cfg->staleness; k++) {
        dt_gossip_get_stats(r->sg[k], &gs);
        t += gs.t_mix + gs.t_mpi;
    }
    return t;
}

/* One step of every local worker: dt_algo_begin starts the gossip when the
 * algorithm overlaps it (dpsgd, gt), the gradients follow, dt_algo_end
 * finishes or runs the gossip and updates. For dpsgd this is the original
 * sequence of calls, so its bits are unchanged. */
static cm_status step_gossip(dt_run *r, size_t step, double lr)
{
    dt_workers *w = &r->w;
    const dt_config *cfg = r->cfg;
    const size_t H = cfg->average_every, S = cfg->local_after;
    /* the round of a time-varying topology advances per communication
     * (at H = 1: per step, as before) */
    r->cur = dt_local_comms(H, S, step) % r->period;
    r->comm_now = dt_local_comm(H, S, step);
    r->global_now = r->comm_now &&
                    dt_local_global(H, S, cfg->global_every, step);
    dt_gossip *g = r->global_now ? r->gg : r->g[r->cur];
    /* CHOCO-SGD: dpsgd's local step, then its own compressed exchange */
    dt_algo_set_step(r->algo, r->ca || r->sring ? 0 : r->comm_now,
                     r->global_now, dt_local_round_len(H, S, step));
    cm_status s = CM_OK;
    if (r->epidemic && r->comm_now && !r->global_now) {
        /* step's graph, the same on every rank */
        const cm_topo *t = r->topo;
        s = cm_topo_epidemic_draw(&r->epi, t->n, t->epi_s, t->epi_local,
                                  r->cfg->seed, (uint64_t)step);
        if (s == CM_OK)
            s = dt_gossip_retopo(g, &r->epi);
        if (s != CM_OK)
            return s;
    }
    s = dt_algo_begin(r->algo);
    if (s != CM_OK)
        return s;
    double t0 = cm_time_now();
    if (r->gc && r->comm_now) { /* clique-avg: all gradients, their
                    clique means, then dpsgd's update on those (at the
                    communications only: a local step sends nothing) */
        for (size_t i = 0; i < w->count && s == CM_OK; i++) {
            s = worker_grad(r, i, w->x[i]);
            memcpy(r->gbuf[i], r->net->grads, w->len * sizeof(float));
            if (s == CM_OK && i + 1 < w->count)
                s = dt_gossip_progress(g);
        }
        if (s == CM_OK)
            s = dt_gossip_round(r->gc, r->gbuf, r->gavg);
        for (size_t i = 0; i < w->count && s == CM_OK; i++)
            dt_algo_grad(r->algo, i, r->gavg[i], (float)lr);
    }
    for (size_t i = 0; i < w->count && s == CM_OK &&
                       !(r->gc && r->comm_now); i++) {
        s = worker_grad(r, i, w->x[i]);
        dt_algo_grad(r->algo, i, r->net->grads, (float)lr);
        /* Open MPI moves a nonblocking exchange only inside MPI calls:
         * poke it between workers so it proceeds during the computation. */
        if (s == CM_OK && i + 1 < w->count)
            s = gossip_poke(r, g);
    }
    r->t_compute += cm_time_now() - t0;
    /* the update after the gossip counts as compute, the gossip (CHOCO's
     * and the stale rounds' too) not */
    const double tg0 = gossip_seconds(r, g);
    t0 = cm_time_now();
    if (s == CM_OK)
        s = dt_algo_end(r->algo, (float)lr);
    if (s == CM_OK && r->comm_now && r->ca)
        s = choco_exchange(r, g);
    if (s == CM_OK && r->comm_now && r->sring)
        s = stale_exchange(r, dt_local_comms(H, S, step), lr);
    const double tg1 = gossip_seconds(r, g);
    if (s == CM_OK && r->comm_now)
        outer_steps(r, step);
    if (r->global_now) /* counted as an all-reduce of the gossip array */
        r->ar_bytes += w->xlen * sizeof(float);
    r->t_compute += cm_time_now() - t0 - (tg1 - tg0);
    return s;
}

/* Local SGD (all-reduce with --average-every > 1 or --outer): every
 * worker takes an SGD step on its own x (dpsgd's update with no gossip),
 * and at a communication the parameters are averaged exactly over all
 * workers (the same bits on any number of ranks), then the outer step.
 * In the warm-up of --local-after S (steps t < S) the momentum is
 * averaged too, so every worker leaves it with the global momentum, as
 * after the gradient all-reduce of torch's post-local SGD; each worker's
 * own momentum would otherwise have piled up its shard's gradient, which
 * the averaged model never fits (on 1-2 classes per worker, local SGD
 * then diverged within 20 steps of the switch even at lr 0.01). */
static cm_status average_momentum(dt_run *r)
{
    dt_workers *w = &r->w;
    float **v = malloc(w->count * sizeof *v);
    cm_status s = v ? CM_OK : cm_error(CM_ENOMEM, "out of memory");
    for (size_t i = 0; s == CM_OK && i < w->count; i++) {
        float *arr[DT_ALGO_MAX_STATE];
        dt_algo_state(r->algo, i, arr); /* dpsgd: {v} */
        v[i] = arr[0];
    }
    /* w->xn holds the x before the average: free as the output */
    if ((s = dt_comm_agree(r->comm, s)) == CM_OK)
        s = dt_gossip_round(r->gg, v, w->xn);
    for (size_t i = 0; s == CM_OK && i < w->count; i++)
        memcpy(v[i], w->xn[i], w->len * sizeof *v[i]);
    free(v);
    return s;
}

/* --compress: the average of local SGD / DiLoCo as the average of the
 * workers' compressed pseudo-gradients, d_i = a - x_i from the last
 * average a (the same on every worker), with error feedback e_i:
 *     q_i = Q(d_i + e_i);  e_i <- d_i + e_i - q_i;  x_i <- a - M(q)
 * then a <- x_i. The outer step (if any) follows on this x, so it takes
 * M(q) as its pseudo-gradient. For int8 and int4, M(q) = Q(mean_j q_j),
 * the two-way quantized all-reduce users run (torchft's for Streaming
 * DiLoCo) and the one the price charges: the exact mean of the dequantized
 * q, quantized again without error feedback (r->gq,
 * dt_gossip_new_average_q); for top-k, the exact mean itself (one-way:
 * a sum of sparse arrays has no second sparse phase). Rank-invariant bits
 * either way; the bytes counted are the compressed array's
 * (dt_compress_bytes), once per rank as for the plain average. */
static cm_status compressed_average(dt_run *r)
{
    dt_workers *w = &r->w;
    const size_t n = w->len;
    for (size_t i = 0; i < w->count; i++) {
        float *d = r->cq[i];
        for (size_t k = 0; k < n; k++)
            d[k] = r->ca[i][k] - w->x[i][k];
        dt_compress_ef(&r->cfg->compress, d, r->ce[i], r->cq[i], r->cp[i],
                       n); /* d is read before q is written */
    }
    cm_status s = dt_gossip_round(r->gq ? r->gq : r->gg, r->cq, w->xn);
    r->ar_bytes += (uint64_t)dt_compress_bytes(&r->cfg->compress, n);
    for (size_t i = 0; s == CM_OK && i < w->count; i++)
        for (size_t k = 0; k < n; k++) {
            w->x[i][k] = r->ca[i][k] - w->xn[i][k];
            r->ca[i][k] = w->x[i][k];
        }
    return s;
}

/* --fragments (Streaming DiLoCo; dt_frag.h): the outer step of fragment
 * p = [lo, hi) alone. Each worker's pseudo-gradient on it, d_i = a - x_i
 * (a the anchor, the global fragment after its last synchronisation, the
 * same on every worker), is averaged exactly (compressed with error
 * feedback under --compress: the mean of q_i = Q(d_i + e_i), quantized
 * again on the fragment's blocks for int8 / int4 as compressed_average
 * does; the block grid starts at lo), the outer
 * step makes the new global fragment g = the new anchor, and x_i's
 * fragment becomes g at once (T = 0) or T steps later, mixed with what
 * the worker trained meanwhile (fragment_merge). The bytes counted are
 * the fragment's (compressed) array, once per rank. */
static cm_status fragment_sync(dt_run *r, size_t p, uint64_t step)
{
    dt_workers *w = &r->w;
    const dt_config *cfg = r->cfg;
    size_t lo, hi;
    dt_frag_range(w->len, cfg->fragments.p, p, &lo, &hi);
    const size_t len = hi - lo;
    for (size_t i = 0; i < w->count; i++) {
        const float *a = r->oa[i] + lo, *x = w->x[i] + lo;
        r->fdst[i] = w->xn[i] + lo; /* scratch after the local step */
        if (!r->ca) {
            r->fsrc[i] = w->x[i] + lo;
            continue;
        }
        float *d = r->cq[i] + lo;
        for (size_t k = 0; k < len; k++)
            d[k] = a[k] - x[k];
        dt_compress_ef(&cfg->compress, d, r->ce[i] + lo, r->cq[i] + lo,
                       r->cp[i] + lo, len);
        r->fsrc[i] = d;
    }
    cm_status s = dt_gossip_round(r->fg[p], r->fsrc, r->fdst);
    r->ar_bytes += r->ca ? (uint64_t)dt_compress_bytes(&cfg->compress, len)
                         : len * sizeof(float);
    for (size_t i = 0; s == CM_OK && i < w->count; i++) {
        float *g = r->fdst[i], *a = r->oa[i] + lo;
        if (r->ca) /* the mean of the q: back to parameters */
            for (size_t k = 0; k < len; k++)
                g[k] = a[k] - g[k];
        dt_outer_step(&cfg->outer, g, a, r->ob ? r->ob[i] + lo : NULL, len);
        if (!cfg->fragments.overlap) /* a = g now */
            memcpy(w->x[i] + lo, g, len * sizeof(float));
    }
    if (cfg->fragments.overlap) {
        r->fpend = p;
        r->fdue = step + cfg->fragments.overlap;
    }
    return s;
}

/* The overlap's end: the fragment in flight, whose global result is its
 * anchor, merged into every worker (dt_frag_merge). */
static void fragment_merge(dt_run *r)
{
    dt_workers *w = &r->w;
    const dt_config *cfg = r->cfg;
    size_t lo, hi;
    dt_frag_range(w->len, cfg->fragments.p, r->fpend, &lo, &hi);
    for (size_t i = 0; i < w->count; i++)
        dt_frag_merge(w->x[i] + lo, r->oa[i] + lo, hi - lo,
                      dt_frag_alpha(&cfg->fragments));
    r->fpend = cfg->fragments.p;
}

/* The end of a local step after the warm-up under --fragments: the
 * fragment due is merged, then the fragment whose turn it is starts. */
static cm_status fragment_step(dt_run *r, size_t step, double t1)
{
    const dt_config *cfg = r->cfg;
    if (r->fpend < cfg->fragments.p && r->fdue == step)
        fragment_merge(r);
    size_t p = dt_frag_at(cfg->average_every, cfg->local_after,
                          cfg->fragments.p, step);
    cm_status s = p < cfg->fragments.p ? fragment_sync(r, p, step) : CM_OK;
    r->t_allreduce += cm_time_now() - t1;
    return s;
}

/* One step of local SGD (above). */
static cm_status step_allreduce_local(dt_run *r, size_t step, double lr)
{
    dt_workers *w = &r->w;
    const dt_config *cfg = r->cfg;
    dt_algo_set_step(r->algo, 0, 0, 1);
    cm_status s = dt_algo_begin(r->algo);
    double t0 = cm_time_now();
    for (size_t i = 0; i < w->count && s == CM_OK; i++) {
        s = worker_grad(r, i, w->x[i]);
        dt_algo_grad(r->algo, i, r->net->grads, (float)lr);
    }
    if (s == CM_OK)
        s = dt_algo_end(r->algo, (float)lr);
    double t1 = cm_time_now();
    r->t_compute += t1 - t0;
    if (s == CM_OK && r->frag && step >= cfg->local_after)
        return fragment_step(r, step, t1);
    if (s != CM_OK ||
        !dt_local_comm(cfg->average_every, cfg->local_after, step))
        return s;
    if (r->ca) {
        s = compressed_average(r);
    } else {
        s = dt_gossip_round(r->gg, w->x, w->xn);
        r->ar_bytes += w->len * sizeof(float);
        for (size_t i = 0; i < w->count; i++) {
            float *t = w->x[i];
            w->x[i] = w->xn[i];
            w->xn[i] = t;
        }
    }
    if (s == CM_OK && step < cfg->local_after) {
        s = average_momentum(r); /* a second all-reduce, counted */
        r->ar_bytes += w->len * sizeof(float);
    }
    double t2 = cm_time_now();
    r->t_allreduce += t2 - t1;
    if (s == CM_OK)
        outer_steps(r, step);
    /* the next pseudo-gradient is taken from where the workers start,
     * after the outer step (until issue 41's fix it was taken from the
     * average before it, so every compressed array also carried the
     * outer step's own move) */
    for (size_t i = 0; s == CM_OK && r->ca && r->oa && i < w->count; i++)
        memcpy(r->ca[i], w->x[i], w->len * sizeof(float));
    r->t_compute += cm_time_now() - t2;
    return s;
}

/* The outer optimizer's arrays (anchor = the initial x; Nesterov buffer
 * 0), one slab each. */
static cm_status setup_outer(dt_run *r)
{
    const size_t k = dt_outer_arrays(&r->cfg->outer), cnt = r->w.count;
    float ***arr[2] = {&r->oa, &r->ob};
    for (size_t j = 0; j < k; j++) {
        if (!(*arr[j] = calloc(cnt, sizeof(float *))))
            return cm_error(CM_ENOMEM, "out of memory (--outer)");
        cm_status s = dt_slab_alloc(cnt, r->w.len, "--outer arrays",
                                    *arr[j], &r->oslab[j]);
        if (s != CM_OK)
            return s;
    }
    for (size_t i = 0; k && i < cnt; i++)
        memcpy(r->oa[i], r->w.x[i], r->w.len * sizeof(float));
    return CM_OK;
}

/* The exact average of all workers (--global-every, local all-reduce):
 * the complete graph's round, each rank summing a segment of every
 * worker's array and all-gathering the means (dt_gossip_new_average)
 * on the run's placement. Collective. */
static cm_status setup_exact(dt_run *r, const size_t *rank_of, size_t len)
{
    return dt_gossip_new_average(r->comm, r->n, rank_of, len, &r->gg);
}

/* Never called: a local all-reduce run's dt_algo steps are all local. */
static cm_status no_mix(void *ctx, float *const *a)
{
    (void)ctx;
    (void)a;
    return cm_error(CM_EINTERNAL, "local all-reduce: no gossip");
}

/* The compressor whose averages are re-quantized (--compress int8 or
 * int4; dt_gossip_new_average_q), or NULL (none, top-k: exact). */
static const dt_compress *requant_of(const dt_config *cfg)
{
    const dt_compress *c = &cfg->compress;
    return c->kind == DT_COMPRESS_INT8 || c->kind == DT_COMPRESS_INT4 ? c
                                                                      : NULL;
}

/* --compress: anchor (the initial x), error feedback (0), q and p
 * scratch, one slab each. */
static cm_status setup_compress(dt_run *r)
{
    const size_t cnt = r->w.count, n = r->w.len;
    float ***arr[4] = {&r->ca, &r->ce, &r->cq, &r->cp};
    for (size_t j = 0; j < 4; j++) {
        if (!(*arr[j] = calloc(cnt, sizeof(float *))))
            return cm_error(CM_ENOMEM, "out of memory (--compress)");
        cm_status s = dt_slab_alloc(cnt, n, "--compress arrays", *arr[j],
                                    &r->cslab[j]);
        if (s != CM_OK)
            return s;
    }
    for (size_t i = 0; i < cnt; i++)
        memcpy(r->ca[i], r->w.x[i], n * sizeof(float));
    return CM_OK;
}

/* --staleness S: S + 1 slots of models sent, all x_0; the mix scratch. */
static cm_status setup_stale(dt_run *r)
{
    const size_t S = r->cfg->staleness, cnt = r->w.count, n = r->w.len;
    if (!(r->sring = calloc(S + 1, sizeof *r->sring)) ||
        !(r->sslab = calloc(S + 1, sizeof *r->sslab)) ||
        !(r->smix = calloc(cnt, sizeof *r->smix)))
        return cm_error(CM_ENOMEM, "out of memory (--staleness)");
    cm_status s = dt_slab_alloc(cnt, n, "--staleness arrays", r->smix,
                                &r->smix_slab);
    for (size_t k = 0; s == CM_OK && k <= S; k++) {
        if (!(r->sring[k] = calloc(cnt, sizeof(float *))))
            return cm_error(CM_ENOMEM, "out of memory (--staleness)");
        s = dt_slab_alloc(cnt, n, "--staleness arrays", r->sring[k],
                          &r->sslab[k]);
        for (size_t i = 0; s == CM_OK && i < cnt; i++)
            memcpy(r->sring[k][i], r->w.x[i], n * sizeof(float));
    }
    return s;
}

/* --staleness S, after setup_stale succeeded on every rank: the S + 1
 * gossip plans of the rounds in flight (g[0] stays idle: the algorithm's
 * local form sends nothing itself), the run's communications,
 * and the rounds of x_0 that communications 0 .. S - 1 finish (round
 * j = -S .. -1 in slot and plan j mod (S + 1) = j + S + 1), each started
 * only if the run reaches its communication j + S (stale_exchange).
 * Collective; the run has no resume (--checkpoint is refused), so it
 * starts at step 0. */
static cm_status start_stale(dt_run *r)
{
    const dt_config *cfg = r->cfg;
    const size_t S = cfg->staleness;
    r->sg = calloc(S + 1, sizeof *r->sg);
    cm_status s = dt_comm_agree(r->comm, r->sg ? CM_OK
                                                : cm_error(CM_ENOMEM, "out of "
                                                           "memory "
                                                           "(--staleness)"));
    if (s != CM_OK)
        return s;
    for (size_t k = 0; k <= S && s == CM_OK; k++)
        s = dt_gossip_new_placed(r->comm, &r->seq.round[0], r->pl.rank_of,
                                 r->w.xlen, &r->sg[k]);
    if (s != CM_OK)
        return s;
    /* dt_loop_run's steps: every epoch, or up to --stop-after's */
    const size_t E = cfg->stop_after && cfg->stop_after < cfg->epochs
                         ? cfg->stop_after : cfg->epochs;
    r->stale_end = dt_local_comms(cfg->average_every, cfg->local_after,
                                  (uint64_t)r->steps_per_epoch * E);
    for (size_t k = 0; k < S && k < r->stale_end && s == CM_OK; k++)
        s = dt_gossip_start(r->sg[k + 1], r->sring[k + 1]);
    return dt_comm_agree(r->comm, s);
}

/* CHOCO-SGD's arrays: xh = 0, s = 0 (the paper's start), q, the sum. */
static cm_status setup_choco(dt_run *r)
{
    cm_status s = setup_compress(r);
    for (size_t i = 0; s == CM_OK && i < r->w.count; i++)
        memset(r->ca[i], 0, r->w.len * sizeof(float));
    return s;
}

/* --fragments: one exact average per fragment (its length), the
 * pointer arrays. Collective (every rank makes the same P plans). */
static cm_status setup_frag(dt_run *r)
{
    const size_t P = r->cfg->fragments.p;
    r->fpend = P;
    r->fg = calloc(P, sizeof *r->fg);
    r->fsrc = calloc(r->w.count + 1, sizeof *r->fsrc);
    r->fdst = calloc(r->w.count + 1, sizeof *r->fdst);
    cm_status s = r->fg && r->fsrc && r->fdst
                      ? CM_OK
                      : cm_error(CM_ENOMEM, "out of memory (--fragments)");
    for (size_t p = 0; p < P && dt_comm_agree(r->comm, s) == CM_OK; p++) {
        size_t lo, hi;
        dt_frag_range(r->w.len, P, p, &lo, &hi);
        s = dt_gossip_new_average_q(r->comm, r->n, NULL, hi - lo,
                                    requant_of(r->cfg), &r->fg[p]);
    }
    return s;
}

/* Local all-reduce: the dpsgd rule (local steps only), the exact
 * average, the outer arrays. Collective. */
static cm_status setup_local(dt_run *r)
{
    const dt_config *cfg = r->cfg;
    dt_workers *w = &r->w;
    cm_status s = setup_exact(r, NULL, w->len);
    if (s != CM_OK)
        return s;
    dt_algo_spec spec = {.kind = DT_ALGO_DPSGD, .n = w->len,
                         .count = w->count, .mu = (float)cfg->momentum,
                         .wd = (float)cfg->weight_decay, .mix_w = 1.0f,
                         .local = 1};
    dt_algo_mixer mx = {r, no_mix, no_mix};
    s = dt_algo_new(&spec, w->x, w->xn, &mx, &r->algo);
    if (s == CM_OK)
        s = setup_outer(r);
    if (s == CM_OK && dt_compress_active(&cfg->compress))
        s = setup_compress(r);
    if (s == CM_OK && requant_of(cfg)) /* collective */
        s = dt_gossip_new_average_q(r->comm, r->n, NULL, w->len,
                                    requant_of(cfg), &r->gq);
    if (s == CM_OK && r->frag)
        s = setup_frag(r);
    return dt_comm_agree(r->comm, s);
}

/* The gossip (of dt_algo_gossip_len floats per worker) and the update
 * rule on the workers' arrays. Collective. */
static cm_status setup_algo(dt_run *r)
{
    const dt_config *cfg = r->cfg;
    dt_workers *w = &r->w;
    /* one plan per round, the allocation agreed before the first */
    r->g = calloc(r->period, sizeof *r->g);
    cm_status s = dt_comm_agree(r->comm, r->g ? CM_OK
                                              : cm_error(CM_ENOMEM, "out of "
                                                         "memory"));
    if (r->epidemic) { /* planned on round 0's graph, re-planned per step */
        const cm_topo *t = r->topo;
        s = dt_comm_agree(r->comm, cm_topo_epidemic_draw(
                                       &r->epi, t->n, t->epi_s, t->epi_local,
                                       cfg->seed, 0));
        if (s == CM_OK)
            s = dt_gossip_new_dynamic(r->comm, &r->epi, r->pl.rank_of,
                                      w->xlen, &r->g[0]);
    }
    /* CHOCO-SGD's q moves in its wire form (int8, int4: codes and
     * scales; top-k: values and indices): the plan packs it (lossless:
     * q is Q's output) and decodes it on arrival */
    const dt_compress *cq =
        dt_compress_active(&cfg->compress) ? &cfg->compress : NULL;
    for (size_t t = 0; !r->epidemic && t < r->period && s == CM_OK; t++)
        s = dt_gossip_new_placed_q(r->comm, &r->seq.round[t], r->pl.rank_of,
                                   w->xlen, cq, &r->g[t]);
    if (s == CM_OK && cfg->clique_avg && r->period > 1)
        s = cm_error(CM_EINVAL, "--algorithm clique-avg: %s is time-varying; "
                     "clique averaging needs a static D-Cliques topology",
                     cfg->topology);
    if (s == CM_OK && cfg->clique_avg) { /* the clique graph, same placement */
        cm_topo ct;
        cm_topo_init(&ct);
        s = dt_clique_topo(&r->hdr, cfg->topology, r->topo, &ct);
        r->gbuf = calloc(2 * w->count, sizeof *r->gbuf);
        r->gmem = malloc(2 * w->count * w->len * sizeof *r->gmem);
        if (s == CM_OK && (!r->gbuf || !r->gmem))
            s = cm_error(CM_ENOMEM, "out of memory for clique averaging");
        s = dt_comm_agree(r->comm, s);
        if (s == CM_OK) {
            r->gavg = r->gbuf + w->count;
            for (size_t i = 0; i < 2 * w->count; i++)
                r->gbuf[i] = r->gmem + i * w->len;
            s = dt_gossip_new_placed(r->comm, &ct, r->pl.rank_of, w->len,
                                     &r->gc);
        }
        cm_topo_destroy(&ct);
    }
    if (s != CM_OK)
        return s;
    if (cfg->global_every && (s = setup_exact(r, r->pl.rank_of, w->xlen)) !=
                                 CM_OK)
        return s;
    if (cfg->staleness && (r->period > 1 || r->epidemic))
        return cm_error(CM_EINVAL, "--staleness with %s: the delayed mix is "
                        "defined here for one fixed W; use a static "
                        "topology", cfg->topology);
    if (dt_compress_active(&cfg->compress) && (r->period > 1 || r->epidemic))
        return cm_error(CM_EINVAL, "--compress with %s: CHOCO-SGD keeps "
                        "sum_j W_ij xh_j for one fixed W; use a static "
                        "topology", cfg->topology); /* same on every rank */
    dt_algo_spec spec = {.kind = cfg->algorithm, .n = w->len,
                         .count = w->count, .mu = (float)cfg->momentum,
                         .wd = (float)cfg->weight_decay,
                         .mix_w = (float)r->mix_c,
                         /* d2 with --staleness: its local form (LED),
                            whose steps skip the algorithm's own gossip */
                         .local = cfg->average_every > 1 ||
                                  cfg->staleness};
    dt_algo_mixer mx = {r, mix_start, mix_finish};
    s = dt_algo_new(&spec, w->x, w->xn, &mx, &r->algo);
    if (s == CM_OK)
        s = setup_outer(r);
    if (s == CM_OK && dt_compress_active(&cfg->compress))
        s = setup_choco(r);
    if (s == CM_OK && cfg->staleness)
        s = setup_stale(r);
    s = dt_comm_agree(r->comm, s);
    if (s == CM_OK && cfg->staleness)
        s = start_stale(r);
    return s;
}

static cm_status step_allreduce(dt_run *r, double lr)
{
    dt_workers *w = &r->w;
    cm_status s = CM_OK;
    double t0 = cm_time_now();
    memset(r->gsum, 0, w->len * sizeof *r->gsum);
    for (size_t i = 0; i < w->count && s == CM_OK; i++) {
        s = worker_grad(r, i, w->x[0]);
        cblas_saxpy((int)w->len, 1.0f, r->net->grads, 1, r->gsum, 1);
    }
    double t1 = cm_time_now();
    r->t_compute += t1 - t0;
    if (s == CM_OK)
        s = dt_allreduce_sum_float(r->ar, r->gsum, w->len);
    r->ar_bytes += w->len * sizeof *r->gsum;
    double t2 = cm_time_now();
    r->t_allreduce += t2 - t1;
    cblas_sscal((int)w->len, 1.0f / (float)r->n, r->gsum, 1);
    dt_sgd_velocity(w->v[0], r->gsum, w->x[0], w->len,
                    (float)r->cfg->momentum, (float)r->cfg->weight_decay);
    dt_sgd_apply(w->x[0], w->v[0], w->len, (float)lr);
    r->t_compute += cm_time_now() - t2;
    return s;
}

/* ---- the run ----------------------------------------------------------- */

static void run_free(dt_run *r)
{
    float **carr[4] = {r->ca, r->ce, r->cq, r->cp};
    for (size_t j = 0; j < 4; j++) {
        dt_slab_free(r->cslab[j]);
        free(carr[j]);
    }
    /* a round still in flight (a run that failed) is waited for by
       dt_gossip_free, which every rank calls in the same order, before
       its slot (a point-to-point round sends from it) is freed */
    for (size_t k = 0; r->sg && k <= r->cfg->staleness; k++)
        dt_gossip_free(r->sg[k]);
    free(r->sg);
    for (size_t k = 0; r->sring && k <= r->cfg->staleness; k++) {
        dt_slab_free(r->sslab[k]);
        free(r->sring[k]);
    }
    free(r->sring);
    free(r->sslab);
    dt_slab_free(r->smix_slab);
    free(r->smix);
    free(r->gsum);
    dt_allreduce_free(r->ar);
    dt_gossip_free(r->gg);
    dt_gossip_free(r->gq);
    for (size_t p = 0; r->fg && p < r->cfg->fragments.p; p++)
        dt_gossip_free(r->fg[p]);
    free(r->fg);
    free(r->fsrc);
    free(r->fdst);
    dt_slab_free(r->oslab[0]);
    dt_slab_free(r->oslab[1]);
    free(r->oa);
    free(r->ob);
    free(r->host_of_rank);
    dt_algo_free(r->algo);
    dt_gossip_free(r->gc);
    free(r->gbuf);
    free(r->gmem);
    for (size_t t = 0; r->g && t < r->period; t++)
        dt_gossip_free(r->g[t]);
    free(r->g);
    dt_placement_destroy(&r->pl);
    dt_evaluator_destroy(&r->ev);
    dt_workers_destroy(&r->w);
    dt_net_free(r->net);
    cm_topo_seq_destroy(&r->seq);
    cm_topo_header_destroy(&r->hdr);
    cm_topo_destroy(&r->epi);
}

/* The checkpoint fingerprint: dt_run_ckpt_fingerprint of round 0 (so a
 * static run's is unchanged), then the period and every later round, so
 * a resume with another sequence is refused. The position in the period
 * is the checkpointed step mod period. */
static uint64_t run_fingerprint(const dt_run *r)
{
    const cm_topo *t0 = r->allreduce ? NULL : r->topo;
    uint64_t h = dt_run_ckpt_fingerprint(r->cfg, r->n, r->w.len, t0);
    if (r->allreduce || r->period <= 1)
        return h;
    uint64_t p = r->period;
    h = cm_hash_fnv1a(h, &p, sizeof p);
    for (size_t k = 1; k < r->period; k++) {
        const cm_topo *t = &r->seq.round[k];
        h = cm_hash_fnv1a(h, t->adj, 2 * t->m * sizeof *t->adj);
        h = cm_hash_fnv1a(h, t->adj_w, 2 * t->m * sizeof *t->adj_w);
        h = cm_hash_fnv1a(h, t->self, t->n * sizeof *t->self);
    }
    return h;
}

/* --net --net-hosts S: a gossip round of the n workers, one per rank, on
 * S hosts: the static topology placed by --placement, a time-varying one
 * round by round in blocks (as topogen eval --net prices it). */
static cm_status model_round_hosts(dt_run *r, double array_bytes)
{
    const dt_config *cfg = r->cfg; /* --net-hosts checked by net_deployment */
    size_t rounds = r->period > 1 ? r->period : 1;
    double sum = 0.0;
    cm_status s = CM_OK;
    for (size_t t = 0; t < rounds && s == CM_OK; t++) {
        const cm_topo *g = r->period > 1 ? &r->seq.round[t] : r->topo;
        cm_net_eval ev;
        s = cm_net_eval_placement(&cfg->net, g, r->n, cfg->net_hosts,
                                  r->period > 1 ? CM_PLACE_BLOCK
                                                : cfg->placement,
                                  array_bytes, &ev);
        sum += ev.round_s;
    }
    r->t_round = sum / (double)rounds;
    return s;
}

/* The all-reduce the trainer runs for --allreduce: a name it runs as
 * given (hierarchical-site: by the sites of --net), any other the
 * library's (auto; the model prices the name). */
static cm_net_ar_alg run_alg(const dt_config *cfg)
{
    return dt_allreduce_runs(cfg->net_allreduce) ? cfg->net_allreduce
                                                 : CM_AR_AUTO;
}

/* The deployment --net models: --net-hosts S puts the n workers, one per
 * rank, on S hosts (refused above n); otherwise this run's P ranks on
 * its hosts: the placement's host labels (a gossip run) or, for an
 * all-reduce run, the labels asked of MPI (collective: every rank or
 * none). A host's label is its lowest rank. */
static cm_status net_deployment(dt_run *r, size_t *P, size_t *H)
{
    const dt_config *cfg = r->cfg;
    if (cfg->net_hosts) {
        if (cfg->net_hosts > r->n)
            return cm_error(CM_EINVAL, "--net-hosts %zu: more hosts than "
                            "the %zu workers", cfg->net_hosts, r->n);
        *P = r->n;
        *H = cfg->net_hosts;
        if (cm_net_check_hosts(&cfg->net, *H) != CM_OK) /* per-host links */
            return cm_error_prefix(CM_EINVAL, "--net-hosts %zu", *H);
        return CM_OK;
    }
    *P = r->P;
    *H = 0;
    const size_t *host = r->pl.host_of_rank;
    size_t *asked = NULL;
    if (!host && r->allreduce) {
        asked = malloc(r->P * sizeof *asked);
        cm_status s = dt_comm_agree(r->comm, asked ? CM_OK
                                    : cm_error(CM_ENOMEM, "out of memory "
                                               "(--net)"));
        if (s == CM_OK)
            s = dt_comm_host_ids(r->comm, asked);
        if (s != CM_OK) {
            free(asked);
            return s;
        }
        host = asked;
    }
    for (size_t q = 0; host && q < r->P; q++)
        *H += host[q] == q;
    if (!host)
        *H = 1;
    free(asked);
    return cm_net_check_hosts(&cfg->net, *H);
}

/* --net --mode allreduce: one all-reduce of array_bytes as --allreduce
 * prices it on the modelled deployment (net_deployment); *hosts gets its
 * hosts. Collective (host names). */
static cm_status model_allreduce(dt_run *r, double array_bytes,
                                 size_t *hosts)
{
    size_t P, H;
    cm_status s = net_deployment(r, &P, &H);
    if (s != CM_OK)
        return s;
    *hosts = H;
    cm_net_ar a;
    s = cm_net_allreduce_model(&r->cfg->net, r->cfg->net_allreduce, P, H,
                               array_bytes, &a, NULL, NULL);
    r->t_round = a.time_s;
    return s;
}

/* --net: r->t_round, the modelled seconds of a gossip round of arrays of
 * array_bytes bytes under the agreed placement: cm_net_round_time of each
 * round's load, the mean over the period (a static topology: its one
 * round). Every rank computes the same integers' model. CM_ENOMEM. */
/* --net: the other communications' prices (issue 31): an exact average
 * (--global-every) as one all-reduce of the gossip array priced as
 * --allreduce says (cm_net_allreduce_model) over this run's ranks and
 * hosts, or over the n workers on --net-hosts S; a clique-avg gradient
 * round as a gossip round of the clique graph under the run's placement
 * (cm_net_round_time of its load). */
static cm_status model_other(dt_run *r, double array_bytes)
{
    const dt_config *cfg = r->cfg;
    const size_t *host = r->pl.host_of_rank;
    size_t hosts, P;
    cm_status sd = net_deployment(r, &P, &hosts);
    if (sd != CM_OK)
        return sd;
    cm_net_ar a;
    cm_status sa = cm_net_allreduce_model(&cfg->net, cfg->net_allreduce, P,
                                          hosts, array_bytes, &a, NULL, NULL);
    if (sa != CM_OK)
        return sa;
    r->t_ar = a.time_s;
    if (!r->gc)
        return CM_OK;
    cm_topo ct;
    cm_topo_init(&ct);
    cm_place_load *load = calloc(r->P, sizeof *load);
    cm_status s = load ? dt_clique_topo(&r->hdr, r->cfg->topology, r->topo, &ct)
                       : cm_error(CM_ENOMEM, "out of memory (--net)");
    cm_place_stats st;
    if (s == CM_OK)
        s = cm_place_eval(&ct, r->P, host, r->pl.rank_of, load, &st);
    if (s == CM_OK)
        r->t_clique = cm_net_round_time(&r->cfg->net, load, host, r->P,
                                        4.0 * (double)r->w.len, NULL, &ct,
                                        r->pl.rank_of);
    free(load);
    cm_topo_destroy(&ct);
    return s;
}

static cm_status model_round(dt_run *r, double array_bytes)
{
    cm_status so = model_other(r, array_bytes);
    if (so != CM_OK)
        return so;
    if (r->cfg->net_hosts)
        return model_round_hosts(r, array_bytes);
    if (r->period <= 1) {
        r->t_round = cm_net_round_time(&r->cfg->net, r->pl.load,
                                       r->pl.host_of_rank, r->P, array_bytes,
                                       NULL, r->topo, r->pl.rank_of);
        return CM_OK;
    }
    cm_place_load *load = calloc(r->P, sizeof *load);
    if (!load)
        return cm_error(CM_ENOMEM, "out of memory (--net)");
    cm_status s = CM_OK;
    double sum = 0.0;
    for (size_t t = 0; t < r->period && s == CM_OK; t++) {
        cm_place_stats st;
        s = cm_place_eval(&r->seq.round[t], r->P, r->pl.host_of_rank,
                          r->pl.rank_of, load, &st);
        sum += cm_net_round_time(&r->cfg->net, load, r->pl.host_of_rank,
                                 r->P, array_bytes, NULL, &r->seq.round[t],
                                 r->pl.rank_of);
    }
    free(load);
    r->t_round = sum / (double)r->period;
    return s;
}

/* The flags of issue 31 (dt_local.h): what each combination means, or a
 * refusal naming it. */
static cm_status check_local(const dt_config *cfg)
{
    if (cfg->local_after && cfg->average_every == 1)
        return cm_error(CM_EINVAL, "--local-after %zu: it starts the local "
                        "steps of --average-every H, which is 1 here (give "
                        "--average-every H > 1, or drop --local-after)",
                        cfg->local_after);
    if (cfg->global_every && cfg->mode == DT_MODE_ALLREDUCE)
        return cm_error(CM_EINVAL, "--global-every is for gossip runs "
                        "(--topology): every communication of --mode "
                        "allreduce is already an exact average");
    if (dt_compress_active(&cfg->compress)) {
        char c[64];
        dt_compress_str(&cfg->compress, c, sizeof c);
        if (cfg->mode == DT_MODE_GOSSIP && (cfg->algorithm != DT_ALGO_DPSGD ||
                                            cfg->clique_avg))
            return cm_error(CM_EINVAL, "--compress %s is for --algorithm "
                            "dpsgd (CHOCO-SGD) and for local SGD / DiLoCo "
                            "(--mode allreduce); not for --algorithm %s", c,
                            cfg->clique_avg ? "clique-avg"
                                            : dt_algo_name(cfg->algorithm));
        if (cfg->mode == DT_MODE_ALLREDUCE && cfg->average_every == 1 &&
            !dt_outer_active(&cfg->outer))
            return cm_error(CM_EINVAL, "--compress %s compresses the "
                            "pseudo-gradients of local SGD / DiLoCo: give "
                            "--average-every H > 1 or --outer (the "
                            "gradient all-reduce of H = 1 is not "
                            "compressed)", c);
        if (cfg->ckpt_dir[0])
            return cm_error(CM_EINVAL, "--compress %s with --checkpoint: "
                            "the error-feedback state is not checkpointed "
                            "yet (drop one of them)", c);
        if (cfg->global_every)
            return cm_error(CM_EINVAL, "--compress %s with --global-every: "
                            "CHOCO-SGD keeps sum_j W_ij xh_j for one fixed W "
                            "(drop one of them)", c);
    }
    if (cfg->fragments.p > 1 || cfg->fragments.overlap) {
        const dt_frag *f = &cfg->fragments;
        char fs[64];
        dt_frag_str(f, fs, sizeof fs);
        if (cfg->mode != DT_MODE_ALLREDUCE || !dt_outer_active(&cfg->outer))
            return cm_error(CM_EINVAL, "--fragments %s is Streaming "
                            "DiLoCo's: it needs --mode allreduce and --outer "
                            "sgd:LR or nesterov:LR,MOM (DiLoCo)", fs);
        if (f->p > cfg->average_every)
            return cm_error(CM_EINVAL, "--fragments %s: at most H = "
                            "--average-every = %zu fragments (each starts "
                            "at its own step of the H-step period)", fs,
                            cfg->average_every);
        if (f->overlap * f->p > cfg->average_every)
            return cm_error(CM_EINVAL, "--fragments %s: the overlap T = %zu "
                            "must be at most H / P = %zu / %zu (one fragment "
                            "in flight at a time)", fs, f->overlap,
                            cfg->average_every, f->p);
        if (cfg->ckpt_dir[0])
            return cm_error(CM_EINVAL, "--fragments %s with --checkpoint: "
                            "the fragment in flight is not checkpointed yet "
                            "(drop one of them)", fs);
    }
    if (cfg->staleness) {
        const char *why =
            cfg->mode != DT_MODE_GOSSIP ? "a gossip run (--topology)"
            : (cfg->algorithm != DT_ALGO_DPSGD &&
               cfg->algorithm != DT_ALGO_D2) || cfg->clique_avg
                ? "--algorithm dpsgd or d2 (gt and qgm have no delayed "
                  "form here)"
            : dt_compress_active(&cfg->compress) ? "no --compress"
            : cfg->global_every ? "no --global-every"
            : cfg->ckpt_dir[0] ? "no --checkpoint (the models in flight are "
                                 "not checkpointed)"
                               : NULL;
        if (why)
            return cm_error(CM_EINVAL, "--staleness %zu needs %s",
                            cfg->staleness, why);
    }
    if (dt_config_given(cfg, "--consensus-step") &&
        !((dt_compress_active(&cfg->compress) || cfg->staleness) &&
          cfg->mode == DT_MODE_GOSSIP))
        return cm_error(CM_EINVAL, "--consensus-step is CHOCO-SGD's gamma "
                        "or --staleness's: it needs --compress or "
                        "--staleness and a gossip run (--topology)");
    return CM_OK;
}

/* Flag combinations that only make sense together. */
static cm_status check_config(const dt_config *cfg, size_t P)
{
    if (cfg->mode == DT_MODE_GOSSIP && !cfg->topology[0])
        return cm_error(CM_EINVAL, "%zu MPI ranks need --topology FILE "
                        "(decentralized) or --mode allreduce", P);
    if (cfg->mode == DT_MODE_ALLREDUCE && cfg->topology[0])
        return cm_error(CM_EINVAL, "--topology is not used with --mode "
                        "allreduce (drop one of them)");
    if (cfg->mode == DT_MODE_GOSSIP && cfg->workers)
        return cm_error(CM_EINVAL, "--workers is for --mode allreduce; with "
                        "--topology the workers are its nodes");
    if (cfg->resume && !cfg->ckpt_dir[0])
        return cm_error(CM_EINVAL, "--resume needs --checkpoint DIR");
    if (cfg->drop_workers[0]) { /* the list's syntax here, its ids later */
        size_t *ids = NULL, k = 0;
        cm_status s = cm_idlist_parse(cfg->drop_workers, 0, "--drop-workers",
                                      &ids, &k);
        free(ids);
        if (s != CM_OK)
            return s;
        if (!cfg->resume || cfg->mode != DT_MODE_GOSSIP)
            return cm_error(CM_EINVAL, "--drop-workers continues a "
                            "checkpoint's run without some of its workers: it "
                            "needs --resume, --checkpoint DIR and the "
                            "survivors' --topology");
    }
    if (cfg->clique_avg && cfg->mode == DT_MODE_ALLREDUCE)
        return cm_error(CM_EINVAL, "--algorithm clique-avg is for "
                        "decentralized runs on a D-Cliques --topology");
    if (cfg->mode == DT_MODE_ALLREDUCE &&
        cfg->net_allreduce == CM_AR_HIER_SITE &&
        (!cfg->net_given || !cfg->net.sites || !cfg->net_hosts))
        return cm_error(CM_EINVAL, "--allreduce hierarchical-site groups the "
                        "ranks by site: it needs %s", !cfg->net_given ||
                        !cfg->net.sites
                            ? "--net with a site level (...;site=ALPHA,BETA;"
                              "sites=S) or --platform P.xml of sites, and "
                              "--net-hosts H"
                            : "--net-hosts H (the hosts the ranks fill in "
                              "blocks, then the sites)");
    if (!cfg->net_given && cfg->net_hosts &&
        !(cfg->mode == DT_MODE_ALLREDUCE && cfg->net_allreduce == CM_AR_HIER &&
          !cfg->allreduce_han))
        return cm_error(CM_EINVAL, "--net-hosts is for the network model "
                        "and --allreduce hierarchical's groups: add --net "
                        "NET or --platform P.xml");
    if (!cfg->net_given && dt_config_given(cfg, "--allreduce") &&
        !dt_allreduce_runs(cfg->net_allreduce))
        return cm_error(CM_EINVAL, "--allreduce %s is only priced by the "
                        "network model: add --net NET or --platform P.xml "
                        "(the trainer runs "
                        "auto, direct or hierarchical)",
                        cm_net_ar_name(cfg->net_allreduce));
    if (cfg->mode == DT_MODE_GOSSIP && dt_config_given(cfg, "--allreduce"))
        return cm_error(CM_EINVAL, "--allreduce is --mode allreduce's "
                        "all-reduce; a gossip run does not call one");
    if (cfg->mode == DT_MODE_ALLREDUCE &&
        (cfg->average_every > 1 || dt_outer_active(&cfg->outer)) &&
        dt_config_given(cfg, "--allreduce") &&
        cfg->net_allreduce != CM_AR_AUTO && !cfg->net_given)
        return cm_error(CM_EINVAL, "--allreduce %s runs the gradients' "
                        "all-reduce; local SGD and --outer average by the "
                        "exact average (their all-reduce is only priced, "
                        "with --net)", cfg->allreduce_han
                                           ? "han"
                                           : cm_net_ar_name(cfg->net_allreduce));
    if (cfg->mode == DT_MODE_ALLREDUCE &&
        (cfg->weights_set || dt_config_given(cfg, "--placement")))
        return cm_error(CM_EINVAL, "%s is for decentralized runs "
                        "(--topology); it is not used with --mode allreduce",
                        cfg->weights_set ? "--weights" : "--placement");
    if (cfg->mode == DT_MODE_ALLREDUCE && cfg->algorithm != DT_ALGO_DPSGD)
        return cm_error(CM_EINVAL, "--algorithm %s is for decentralized "
                        "runs (--topology); all-reduce already averages the "
                        "exact gradients", dt_algo_name(cfg->algorithm));
    return check_local(cfg);
}

/* What the loop's callbacks need. */
typedef struct {
    dt_run *r;
    dt_log *lg;
    dt_run_state *rs;
    const dt_run_ckpt *ck;
    dt_dpsgd_fn on_progress;
    void *ctx;
    dt_dpsgd_result *res;
} loop_ctx;

/* A step's failure is agreed every DT_AGREE_EVERY steps and at every
 * evaluation, not after each step: the agreement is an all-reduce of one
 * int, log2 P latencies, which on a WAN costs more than the gossip round
 * itself (SMPI, 256 hosts of 50 ms: 0.45 s against 0.14 s; docs/smpi.md).
 * A rank whose step failed goes on stepping with the others until then
 * (a diverged loss stays non-finite), and the agreement reports its first
 * failure. The training itself is the same: no step reads the agreement. */
#define DT_AGREE_EVERY 16

/* Keeps the first failure s of this rank (with its message) for the next
 * agreement. */
static void keep_failure(dt_run *r, cm_status s)
{
    if (s == CM_OK || r->pend != CM_OK)
        return;
    r->pend = s;
    snprintf(r->pend_msg, sizeof r->pend_msg, "%s", cm_last_error());
}

/* The agreement over every rank's kept failure (and s). Collective. */
static cm_status agree_kept(dt_run *r, cm_status s)
{
    keep_failure(r, s);
    cm_status mine = r->pend;
    if (mine != CM_OK) /* the failure's own message, whatever came since */
        cm_error(mine, "%s", r->pend_msg);
    r->pend = CM_OK;
    return dt_comm_agree(r->comm, mine);
}

/* dt_loop step: every local worker, gossip or allreduce; agreed every
 * DT_AGREE_EVERY steps (and by loop_evaluate). */
static cm_status loop_step(void *ctx, size_t step, double lr)
{
    dt_run *r = ((loop_ctx *)ctx)->r;
    cm_status s = r->local       ? step_allreduce_local(r, step, lr)
                  : r->allreduce ? step_allreduce(r, lr)
                                 : step_gossip(r, step, lr);
    r->steps_done = step + 1;
    if (s == CM_OK && !isfinite(r->loss_sum)) /* divergence */
        s = dt_check_finite(r->loss_sum, NULL, 0,
                            step / r->steps_per_epoch + 1, step + 1, lr);
    keep_failure(r, s);
    if ((step + 1) % DT_AGREE_EVERY != 0)
        return CM_OK;
    return agree_kept(r, CM_OK);
}

/* dt_loop evaluation: metrics, CSV row, callback; checkpoint at the end
 * of an epoch. */
static cm_status loop_evaluate(void *ctx, size_t done, double lr,
                               int epoch_end)
{
    loop_ctx *c = ctx;
    dt_run *r = c->r;
    dt_dpsgd_progress p;
    cm_status s = CM_OK;
    for (size_t i = 0; i < r->w.arrays && s == CM_OK; i++)
        s = dt_check_finite(0.0, r->w.x[i], r->w.len,
                            (done + r->steps_per_epoch - 1) /
                                r->steps_per_epoch, done, lr);
    if ((s = agree_kept(r, s)) != CM_OK ||
        (s = dt_run_evaluate(r, done, lr, &p)) != CM_OK ||
        (s = dt_run_record(r, &p, c->lg, c->rs, c->on_progress, c->ctx)) !=
            CM_OK)
        return s;
    c->res->last = p;
    /* an explosion without a NaN (dt_diverge.h): the row above is logged,
     * no checkpoint is written */
    s = dt_diverge_check(p.train_loss, p.consensus, r->x0_sq,
                         r->w.train.classes,
                         (done + r->steps_per_epoch - 1) / r->steps_per_epoch,
                         done, lr);
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK)
        return s;
    const size_t K = r->cfg->save_model_every;
    if (epoch_end && K && r->cfg->save_model[0] &&
        (done / r->steps_per_epoch) % K == 0) { /* evaluate formed xbar */
        if (r->rank == 0)
            s = dt_model_save(r->net, r->ev.xbar, &r->meta,
                              r->cfg->save_model);
        if ((s = dt_comm_agree(r->comm, s)) != CM_OK)
            return s;
    }
    if (epoch_end && r->cfg->ckpt_dir[0])
        s = dt_run_ckpt_save(c->ck, &r->w, done / r->steps_per_epoch, done,
                             c->rs);
    return s;
}

/* After a timeout that named silent ranks: their workers into res->lost
 * (a LIST for topogen repair --remove and --drop-workers), the ranks left
 * into res->ranks_left; nothing when no worker can be dropped (all-reduce,
 * no checkpoint, epidemic, or a run that dropped workers already). */
static void lost_workers(const dt_run *r, dt_dpsgd_result *res)
{
    size_t silent[64];
    size_t ns = dt_comm_silent_ranks(silent, 64);
    if (!ns || r->allreduce || r->epidemic || !r->pl.rank_of ||
        !r->cfg->ckpt_dir[0] || r->cfg->drop_workers[0] || ns >= r->P)
        return;
    size_t *ids = malloc(r->n * sizeof *ids), k = 0;
    if (!ids)
        return;
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < ns; j++)
            if (r->pl.rank_of[i] == silent[j]) {
                ids[k++] = i;
                break;
            }
    if (k && k < r->n) {
        cm_idlist_format(ids, k, res->lost, sizeof res->lost);
        if (strlen(res->lost) + 1 >= sizeof res->lost) { /* never cut */
            res->lost[0] = '\0';
            res->lost_too_long = 1;
        }
        res->ranks_left = r->P - ns;
    }
    free(ids);
}

cm_status dt_dpsgd_run(const dt_config *cfg, const dt_comm *comm,
                       dt_dpsgd_fn on_progress, void *ctx,
                       dt_dpsgd_result *res)
{
    dt_run r;
    dt_partition part;
    dt_log lg;
    dt_run_state rs = {0};
    cm_lock ck_lock = {.fd = -1};
    char settings[16384], settings0[16384] = ""; /* a LIST of 4095 */
    dt_drop_plan dp;
    cm_topo nbu;
    dt_drop_plan_init(&dp);
    cm_topo_init(&nbu);
    memset(&r, 0, sizeof r);
    memset(&lg, 0, sizeof lg);
    memset(res, 0, sizeof *res);
    dt_partition_init(&part);
    cm_topo_seq_init(&r.seq);
    cm_topo_header_init(&r.hdr);
    cm_topo_init(&r.epi);
    dt_workers_init(&r.w);
    dt_evaluator_init(&r.ev);
    double t_begin = cm_time_now();
    r.cfg = cfg;
    r.comm = comm;
    r.rank = dt_comm_rank(comm);
    r.P = dt_comm_size(comm);
    r.allreduce = cfg->mode == DT_MODE_ALLREDUCE;
    r.local = r.allreduce &&
              (cfg->average_every > 1 || dt_outer_active(&cfg->outer));
    r.frag = r.local &&
             (cfg->fragments.p > 1 || cfg->fragments.overlap > 0);
    r.B = cfg->batch;

    cm_status s = dt_comm_agree(comm, check_config(cfg, r.P));
    if (s != CM_OK || (s = setup_workers(&r)) != CM_OK)
        goto cleanup;
    if (cfg->drop_workers[0] &&
        (s = dt_drop_load(comm, cfg, r.n, &dp)) != CM_OK)
        goto cleanup;
    /* the outputs checked before any work, each message naming its flag
     * (a model file's messages name the file) */
    if (r.rank == 0)
        s = dt_log_open_model(&lg, cfg->log_path, cfg->net_given);
    if (r.rank == 0 && s == CM_OK && cfg->save_model[0] &&
        (s = dt_model_check_path(cfg->save_model)) != CM_OK)
        cm_error_prefix(s, "--save-model");
    if (r.rank == 0 && s == CM_OK && cfg->init_model[0] &&
        (s = dt_model_check_file(cfg->init_model)) != CM_OK)
        cm_error_prefix(s, "--init-model"); /* before any rank reads */
    if (r.rank == 0 && s == CM_OK && cfg->summary[0] &&
        (s = cm_atomic_probe(cfg->summary)) != CM_OK)
        cm_error_prefix(s, "--summary");
    if ((s = dt_comm_agree(comm, s)) != CM_OK ||
        (s = setup_data(&r, &part, cfg->drop_workers[0] ? &dp : NULL)) !=
            CM_OK)
        goto cleanup;
    s = dt_comm_agree(comm, setup_state(&r));
    if (s != CM_OK)
        goto cleanup;
    /* --allreduce: the gradients' all-reduce as it runs (a name the
     * model only prices runs the library's) */
    if (r.allreduce && !r.local &&
        (s = cfg->allreduce_han
                 ? dt_allreduce_new_han(comm, &r.ar)
                 : dt_allreduce_new(comm, run_alg(cfg), cfg->net_hosts,
                                    &cfg->net, &r.ar)) != CM_OK)
        goto cleanup;
    if (!r.allreduce && (s = setup_algo(&r)) != CM_OK)
        goto cleanup;
    if (r.local && (s = setup_local(&r)) != CM_OK)
        goto cleanup;
    if (!r.allreduce) {  /* the placement's report, before training */
        res->placement = r.pl.kind;
        res->place_how = r.pl.how;
        res->place = r.pl.st;
        res->array_bytes = 4.0 * (double)r.w.xlen; /* gt: x and y */
        if (dt_compress_active(&cfg->compress)) /* CHOCO's q */
            res->array_bytes = dt_compress_bytes(&cfg->compress, r.w.len);
        res->n_workers = r.n;
        res->n_ranks = r.P;
        res->period = r.period; /* placed by the union when > 1 */
        res->topo_kind = !r.topo->directed ? 0 : r.epidemic ? 2 : 1;
        res->topo_weights_replaced = cfg->weights_set && r.period == 1 &&
                                     r.hdr.weighted && !r.topo->directed;
        if (r.hdr.labels)
            snprintf(res->topo_labels, sizeof res->topo_labels, "%s",
                     r.hdr.labels);
        if (cfg->net_given &&
            (s = dt_comm_agree(comm, model_round(&r, res->array_bytes))) !=
                CM_OK)
            goto cleanup;
        if (cfg->net_given && cfg->staleness) { /* S + 1 rounds in flight
                overlap their latencies; the bytes still take their time */
            const double S1 = (double)cfg->staleness + 1.0;
            r.t_round = fmax(r.t_round / S1, r.t_round - cfg->net.alpha[1]);
        }
        res->round_model_s = r.t_round;
        res->net_hosts = cfg->net_hosts ? cfg->net_hosts : r.pl.st.hosts;
    }
    if (r.allreduce && cfg->net_given) { /* the modelled all-reduce */
        res->array_bytes = 4.0 * (double)r.w.len;
        res->n_workers = r.n;
        res->n_ranks = r.P;
        if ((s = dt_comm_agree(comm, model_allreduce(&r, res->array_bytes,
                                                     &res->net_hosts))) !=
            CM_OK)
            goto cleanup;
        res->round_model_s = r.t_round;
        r.t_ar = r.t_round; /* every all-reduce of the run (issue 31) */
        r.t_ar_full = r.t_ar;
        if (dt_compress_active(&cfg->compress)) { /* the pseudo-gradient's
                compressed bytes; the warm-up's momentum goes uncompressed */
            size_t h;
            if ((s = dt_comm_agree(comm, model_allreduce(
                     &r, dt_compress_bytes(&cfg->compress, r.w.len), &h))) !=
                CM_OK)
                goto cleanup;
            r.t_ar = res->round_model_s = r.t_round;
            res->array_bytes = dt_compress_bytes(&cfg->compress, r.w.len);
        }
        if (r.frag) { /* one fragment's array (the longest), compressed */
            const size_t fl = (r.w.len + cfg->fragments.p - 1) /
                              cfg->fragments.p;
            const double fb = dt_compress_active(&cfg->compress)
                                  ? (double)dt_compress_bytes(&cfg->compress,
                                                              fl)
                                  : 4.0 * (double)fl;
            size_t h;
            if ((s = dt_comm_agree(comm, model_allreduce(&r, fb, &h))) !=
                CM_OK)
                goto cleanup;
            r.t_frag = res->frag_model_s = r.t_round;
            res->frag_bytes = fb;
            r.t_round = res->round_model_s;
        }
    }
    const cm_topo *topo = r.allreduce ? NULL : r.topo;
    dt_run_ckpt_settings(cfg, r.n, r.w.len, topo, settings, sizeof settings);
    dt_run_drop drop = {.lost = dp.lost, .k = dp.k, .n0 = dp.n0,
                        .algo = cfg->algorithm};
    if (cfg->drop_workers[0]) { /* the settings of the run before it */
        dt_config c0 = *cfg;
        c0.drop_workers[0] = '\0';
        dt_run_ckpt_settings(&c0, dp.n0, r.w.len, topo, settings0,
                             sizeof settings0);
    }
    /* --add-workers: the run before had n - K workers; after the join the
     * run is a run of n workers (its settings those of a fresh one) */
    dt_run_add add = {.n0 = r.n > cfg->add_workers ? r.n - cfg->add_workers
                                                   : 0,
                      .k = cfg->add_workers, .algo = cfg->algorithm};
    if (cfg->add_workers)
        dt_run_ckpt_settings(cfg, add.n0, r.w.len, topo, settings0,
                             sizeof settings0);
    /* the neighbour lists a later --drop-workers needs (DIR/neighbours) */
    const cm_topo *nbt = NULL;
    if (cfg->ckpt_dir[0] && !r.allreduce && !r.epidemic &&
        !cfg->drop_workers[0]) {
        if (r.period == 1 && !r.topo->directed) {
            nbt = r.topo;
        } else if ((s = dt_comm_agree(comm, dt_drop_union(&r.seq, &nbu))) ==
                   CM_OK) {
            nbt = &nbu;
        } else {
            goto cleanup;
        }
    }
    if (cfg->add_workers && (!nbt || cfg->add_workers >= r.n)) {
        s = cm_error(CM_EINVAL, "--add-workers %zu: %s", cfg->add_workers,
                     !nbt ? "new workers start from their neighbours, which "
                            "an epidemic topology (or a run without "
                            "--checkpoint) does not fix"
                          : "--topology has no more nodes than that (give "
                            "the grown topology: topogen repair FILE --add K "
                            "-o NEW)");
        goto cleanup;
    }
    const dt_run_ckpt ck = {
        .comm = comm, .dir = cfg->ckpt_dir, .n = r.n,
        .steps_per_epoch = r.steps_per_epoch, .algo = r.algo,
        .fingerprint = run_fingerprint(&r),
        .settings = settings, .keep = cfg->keep, .epochs = cfg->epochs,
        .drop = cfg->drop_workers[0] ? &drop : NULL, .settings0 = settings0,
        .add = cfg->add_workers ? &add : NULL,
        .nb_off = nbt ? nbt->off : NULL, .nb = nbt ? nbt->adj : NULL,
        .topo_hash = dt_run_ckpt_topo_hash(topo),
        .outer = {r.oa, r.ob}, .n_outer = dt_outer_arrays(&cfg->outer)};
    size_t step = 0;
    int resume = 0;
    if (cfg->ckpt_dir[0] &&
        (s = dt_run_ckpt_open(&ck, cfg->resume, &ck_lock, &resume,
                              &res->ckpt_adopted)) != CM_OK)
        goto cleanup;
    if (resume) {
        if ((s = dt_run_ckpt_restore(&ck, &r.w, &step, &rs)) != CM_OK)
            goto cleanup;
        if (ck.drop) { /* what was dropped and when, for the summary */
            snprintf(res->dropped, sizeof res->dropped, "%s", dp.list);
            res->dropped_count = dp.k;
            res->dropped_epoch = drop.epoch;
            res->workers_before_drop = dp.n0;
            res->drop_now = drop.first;
        }
        if (ck.add) { /* who joined and when, for the report */
            res->added_count = add.k;
            res->added_epoch = add.epoch;
            res->add_now = add.first;
        }
        r.train_base = rs.train_s;
        r.bytes_base = rs.bytes;
        for (size_t k = 0; r.rank == 0 && k < rs.n_rows && s == CM_OK; k++)
            s = dt_log_append(&lg, &rs.rows[k]);
        if ((s = dt_comm_agree(comm, s)) != CM_OK)
            goto cleanup;
        if (rs.n_rows) {
            res->last = dt_run_progress_of_row(&rs.rows[rs.n_rows - 1]);
            r.model_base = res->last.model_s;
            r.wall_base = res->last.wall_s;
            r.step_base = res->last.step;
        }
    }
    if (cfg->ckpt_dir[0] && !r.allreduce && r.rank == 0)
        s = dt_run_ckpt_placement(cfg->ckpt_dir, r.n, r.P, r.pl.rank_of);
    if ((s = dt_comm_agree(comm, s)) != CM_OK)
        goto cleanup;
    res->start_step = step;
    r.steps_start = r.steps_done = step;
    dt_loop_plan plan;
    dt_loop_plan_init(&plan, cfg, r.steps_per_epoch);
    loop_ctx lc = {.r = &r, .lg = &lg, .rs = &rs, .ck = &ck,
                   .on_progress = on_progress, .ctx = ctx, .res = res};
    const dt_loop_body body = {.step = loop_step, .evaluate = loop_evaluate,
                               .ctx = &lc};
    if (!r.allreduce && r.rank == 0 && on_progress) /* all set up */
        on_progress(ctx, &(dt_dpsgd_progress){.start = 1});
    r.t_train_start = cm_time_now();
    res->cpu_setup = cm_time_cpu();
    /* Epoch 0: the initial model, before any step (a fresh run only; a
     * resumed run has the row from its state). Evaluation never feeds
     * back into training, so the trajectory is the same with or without
     * it. */
    if (step == 0 &&
        (s = loop_evaluate(&lc, 0, dt_sched_lr(&plan.sched, 0.0), 0)) !=
            CM_OK)
        goto cleanup;
    if ((s = dt_loop_run(&plan, &body, &step)) != CM_OK)
        goto cleanup;
    res->steps = step;
    res->t_setup = r.t_train_start - t_begin;
    {
        dt_run_comms cc;
        dt_run_count_comms(&r, step, &cc);
        res->comm_gossip = cc.gossip;
        res->comm_exact = cc.global;
        res->comm_frag = cc.frag;
        res->comm_clique = cc.clique;
        res->comm_grad_allreduce = cc.grad_allreduce;
        for (size_t k = 0; k < DT_N_TARGETS; k++) {
            res->steps_to[k] = -1;
            for (size_t q = 0; q < rs.n_rows && res->steps_to[k] < 0; q++)
                if (rs.rows[q].test_acc >= dt_targets[k])
                    res->steps_to[k] = (long long)rs.rows[q].step;
        }
    }
    if ((s = dt_run_summarize(&r, res)) != CM_OK)
        goto cleanup;
    /* the average model xbar, formed on every rank by dt_run_summarize */
    if (cfg->save_model[0] && r.rank == 0)
        s = dt_model_save(r.net, r.ev.xbar, &r.meta, cfg->save_model);
    if ((s = dt_comm_agree(comm, s)) != CM_OK)
        goto cleanup;
    res->t_total = cm_time_now() - t_begin;
cleanup:
    if (s != CM_OK && dt_comm_timed_out(NULL))
        lost_workers(&r, res);
    dt_drop_plan_destroy(&dp);
    cm_topo_destroy(&nbu);
    cm_lock_release(&ck_lock);
    dt_run_state_destroy(&rs);
    dt_log_close(&lg);
    dt_partition_destroy(&part);
    run_free(&r);
    return s;
}
