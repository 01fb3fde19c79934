/* dt_dpsgd.c: the D-PSGD / C-PSGD training loop over MPI ranks.
 *
 * Algorithm: Lian et al. 2017, "Can decentralized algorithms outperform
 * centralized algorithms? A case study for decentralized parallel
 * stochastic gradient descent", Algorithm 1, with local momentum and
 * weight decay (v_i <- mu v_i + g_i + wd x_i; x_i <- sum_j W_ij x_j - lr v_i).
 * The exchange of the x_j is started before and finished after the
 * gradient computation, so it overlaps it.
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
 * Trade-off: one network (one set of activation and im2col buffers) per
 * rank runs all of the rank's workers in turn; worker state is just
 * (x_i, v_i, generator, batch order).
 */
#include "dt_dpsgd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "cm_rng.h"
#include "cm_time.h"
#include "cm_topo.h"
#include "dt_ckpt.h"
#include "dt_data.h"
#include "dt_dpsgd_impl.h"
#include "dt_dpsgd_state.h"
#include "dt_gossip.h"
#include "dt_log.h"
#include "dt_net.h"
#include "dt_optim.h"
#include "dt_partition.h"
#include "dt_train.h"

/* The rank's state, dt_run, is declared in dt_dpsgd_impl.h. */

/* ---- setup ------------------------------------------------------------- */

/* Topology (gossip) or worker count (all-reduce); ranks <= workers. */
static cm_status setup_workers(dt_run *r)
{
    const dt_config *cfg = r->cfg;
    cm_status s = CM_OK;
    if (r->allreduce) {
        r->n = cfg->workers ? cfg->workers : r->P;
        r->slem = 0.0;
    } else {
        /* a weighted file's SLEM comes from its validation; an unweighted
         * one's from the weights the rule gives it */
        s = cm_topo_read(&r->topo, cfg->topology);
        if (s == CM_OK)
            s = cm_topo_validate_slem(&r->topo, cfg->topology, &r->slem);
        if (s == CM_OK && !r->topo.self &&
            (s = cm_topo_set_weights(&r->topo, cfg->weights)) == CM_OK)
            s = cm_topo_slem(&r->topo, &r->slem);
        if (s != CM_OK)
            cm_error_prefix(s, "--topology");
        r->n = r->topo.n;
    }
    s = dt_comm_agree(r->comm, s);
    if (s != CM_OK)
        return s;
    if (r->P > r->n)
        return cm_error(CM_EINVAL, "%zu MPI ranks but %s has only %zu "
                        "worker%s: run at most %zu ranks (mpirun -np %zu)",
                        r->P, r->allreduce ? "--workers" : cfg->topology,
                        r->n, r->n == 1 ? "" : "s", r->n, r->n);
    dt_partition_block_range(r->n, r->P, r->rank, &r->first, &r->count);
    return CM_OK;
}

/* Labels and pixel statistics are read by rank 0 and broadcast; each rank
 * then loads only its workers' shards and its slices of the test set. */
static cm_status setup_data(dt_run *r, dt_partition *part)
{
    const dt_config *cfg = r->cfg;
    dt_source src = {0};
    dt_norm norm;
    uint8_t *labels = NULL;
    size_t *idx = NULL;
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
    size_t n_train = (size_t)hdr[0];
    if (r->rank != 0 && !(labels = malloc(n_train ? n_train : 1)))
        s = cm_error(CM_ENOMEM, "out of memory for %zu labels", n_train);
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK ||
        (s = dt_comm_bcast(r->comm, labels, n_train, 0)) != CM_OK)
        goto cleanup;
    if (cfg->train_limit && cfg->train_limit < n_train)
        n_train = cfg->train_limit;
    r->n_test = (size_t)hdr[1];
    if (cfg->test_limit && cfg->test_limit < r->n_test)
        r->n_test = cfg->test_limit;

    /* Shards: the same partition on every rank (it depends on the seed). */
    s = dt_partition_make(part, &cfg->partition, labels, n_train, 10, r->n,
                          r->B, cfg->seed);
    if (s != CM_OK)
        cm_error_prefix(s, "--partition");
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK)
        goto cleanup;
    size_t lo = part->off[r->first], hi = part->off[r->first + r->count];
    r->shard_off = malloc((r->count + 1) * sizeof *r->shard_off);
    if (!r->shard_off)
        s = cm_error(CM_ENOMEM, "out of memory");
    for (size_t i = 0; s == CM_OK && i <= r->count; i++)
        r->shard_off[i] = part->off[r->first + i] - lo;
    if (s == CM_OK)
        s = dt_data_load(&src, DT_SPLIT_TRAIN, part->idx + lo, hi - lo,
                         &norm, &r->train);
    /* The test set: a contiguous slice per rank for the average model, and
     * the first local_eval images for every worker's own model. */
    size_t t0 = r->n_test * r->rank / r->P;
    size_t t1 = r->n_test * (r->rank + 1) / r->P;
    size_t nl = cfg->local_eval < r->n_test ? cfg->local_eval : r->n_test;
    size_t m = (t1 - t0) > nl ? (t1 - t0) : nl;
    if (s == CM_OK && !(idx = malloc((m ? m : 1) * sizeof *idx)))
        s = cm_error(CM_ENOMEM, "out of memory");
    if (s == CM_OK && t1 > t0) {
        for (size_t k = t0; k < t1; k++)
            idx[k - t0] = k;
        s = dt_data_load(&src, DT_SPLIT_TEST, idx, t1 - t0, &norm,
                         &r->test_slice);
    }
    if (s == CM_OK && nl > 0 && !r->allreduce) {
        for (size_t k = 0; k < nl; k++)
            idx[k] = k;
        s = dt_data_load(&src, DT_SPLIT_TEST, idx, nl, &norm, &r->test_local);
    }
    s = dt_comm_agree(r->comm, s);
    if (s == CM_OK) {
        size_t used = part->off[r->n];
        r->steps_per_epoch = used / (r->n * r->B);
        if (r->steps_per_epoch == 0)
            r->steps_per_epoch = 1;
    }
cleanup:
    free(idx);
    free(labels);
    dt_source_destroy(&src);
    return s;
}

/* Network, worker arrays, generators; identical initial x on all workers. */
static cm_status setup_state(dt_run *r)
{
    const dt_config *cfg = r->cfg;
    const dt_data *d = &r->train;
    size_t arrays = r->allreduce ? 1 : r->count;
    cm_status s = dt_net_new(cfg->model, d->c, d->h, d->w, 10,
                             r->B > 256 ? r->B : 256, &r->net);
    if (s == CM_OK)
        s = dt_net_set_threads(r->net, (size_t)cfg->threads);
    if (s != CM_OK)
        return s;
    r->len = r->net->n_params;
    size_t img = d->c * d->h * d->w;
    r->x = calloc(r->count, sizeof *r->x);
    r->xn = calloc(r->count, sizeof *r->xn);
    r->v = calloc(r->count, sizeof *r->v);
    r->rng = calloc(r->count, sizeof *r->rng);
    r->rng_pass = calloc(r->count, sizeof *r->rng_pass);
    r->order = calloc(r->count, sizeof *r->order);
    r->cursor = calloc(r->count, sizeof *r->cursor);
    r->xb = malloc(r->B * img * sizeof *r->xb);
    r->yb = malloc(r->B);
    r->xbar = malloc(r->len * sizeof *r->xbar);
    r->dsum = malloc(r->len * sizeof *r->dsum);
    if (r->allreduce)
        r->gsum = malloc(r->len * sizeof *r->gsum);
    if (!r->x || !r->xn || !r->v || !r->rng || !r->rng_pass || !r->order ||
        !r->cursor || !r->xb || !r->yb || !r->xbar || !r->dsum ||
        (r->allreduce && !r->gsum))
        return cm_error(CM_ENOMEM, "out of memory for %zu workers",
                        r->count);
    for (size_t i = 0; i < arrays; i++) {
        r->x[i] = malloc(r->len * sizeof(float));
        r->v[i] = calloc(r->len, sizeof(float));
        if (!r->allreduce)
            r->xn[i] = malloc(r->len * sizeof(float));
        if (!r->x[i] || !r->v[i] || (!r->allreduce && !r->xn[i]))
            return cm_error(CM_ENOMEM, "out of memory for %zu workers of "
                            "%zu parameters", r->count, r->len);
    }
    cm_rng init;
    cm_rng_seed(&init, cfg->seed, 0);
    dt_net_init(r->net, r->x[0], &init);
    for (size_t i = 1; i < arrays; i++)
        memcpy(r->x[i], r->x[0], r->len * sizeof(float));
    for (size_t i = 0; i < r->count; i++) {
        size_t n_i = r->shard_off[i + 1] - r->shard_off[i];
        if (!(r->order[i] = malloc(n_i * sizeof(size_t))))
            return cm_error(CM_ENOMEM, "out of memory for batch orders");
        cm_rng_seed(&r->rng[i], cfg->seed, 2 + r->first + i);
        r->cursor[i] = n_i; /* the first step starts a pass */
    }
    return CM_OK;
}

/* ---- one step ---------------------------------------------------------- */

/* Starts a new pass of worker i: its sorted shard, shuffled. */
void dt_run_new_pass(dt_run *r, size_t i)
{
    size_t lo = r->shard_off[i], n_i = r->shard_off[i + 1] - lo;
    r->rng_pass[i] = r->rng[i];
    for (size_t k = 0; k < n_i; k++)
        r->order[i][k] = lo + k;
    cm_rng_shuffle_size(&r->rng[i], r->order[i], n_i);
    r->cursor[i] = 0;
}

/* Gradient of worker i at params p on its next minibatch; v_i updated. */
static cm_status worker_grad(dt_run *r, size_t i, const float *p, float *grad)
{
    size_t n_i = r->shard_off[i + 1] - r->shard_off[i];
    if (r->cursor[i] + r->B > n_i)
        dt_run_new_pass(r, i);
    dt_batch_gather(&r->train, r->order[i], r->cursor[i], r->B, r->xb,
                    r->yb);
    r->cursor[i] += r->B;
    double loss;
    cm_status s = dt_net_grad(r->net, p, grad, r->xb, r->yb, r->B, &loss);
    r->loss_sum += loss;
    r->loss_n++;
    return s;
}

static cm_status step_gossip(dt_run *r, double lr)
{
    const float mu = (float)r->cfg->momentum, wd = (float)r->cfg->weight_decay;
    cm_status s = dt_gossip_start(r->g, r->x);
    if (s != CM_OK)
        return s;
    double t0 = cm_time_now();
    for (size_t i = 0; i < r->count && s == CM_OK; i++) {
        s = worker_grad(r, i, r->x[i], r->net->grads);
        dt_sgd_velocity(r->v[i], r->net->grads, r->x[i], r->len, mu, wd);
        /* Open MPI moves a nonblocking exchange only inside MPI calls:
         * poke it between workers so it proceeds during the computation. */
        if (s == CM_OK && i + 1 < r->count)
            s = dt_gossip_progress(r->g);
    }
    r->t_compute += cm_time_now() - t0;
    if (s == CM_OK)
        s = dt_gossip_finish(r->g, r->xn);
    t0 = cm_time_now();
    for (size_t i = 0; i < r->count; i++) {
        dt_sgd_apply(r->xn[i], r->v[i], r->len, (float)lr);
        float *tmp = r->x[i];
        r->x[i] = r->xn[i];
        r->xn[i] = tmp;
    }
    r->t_compute += cm_time_now() - t0;
    return s;
}

static cm_status step_allreduce(dt_run *r, double lr)
{
    cm_status s = CM_OK;
    double t0 = cm_time_now();
    memset(r->gsum, 0, r->len * sizeof *r->gsum);
    for (size_t i = 0; i < r->count && s == CM_OK; i++) {
        s = worker_grad(r, i, r->x[0], r->net->grads);
        cblas_saxpy((int)r->len, 1.0f, r->net->grads, 1, r->gsum, 1);
    }
    double t1 = cm_time_now();
    r->t_compute += t1 - t0;
    if (s == CM_OK)
        s = dt_comm_allreduce_sum_float(r->comm, r->gsum, r->len);
    double t2 = cm_time_now();
    r->t_allreduce += t2 - t1;
    cblas_sscal((int)r->len, 1.0f / (float)r->n, r->gsum, 1);
    dt_sgd_velocity(r->v[0], r->gsum, r->x[0], r->len,
                    (float)r->cfg->momentum, (float)r->cfg->weight_decay);
    dt_sgd_apply(r->x[0], r->v[0], r->len, (float)lr);
    r->t_compute += cm_time_now() - t2;
    return s;
}

/* ---- the run ----------------------------------------------------------- */


static void run_free(dt_run *r)
{
    size_t arrays = r->allreduce ? 1 : r->count;
    for (size_t i = 0; r->x && i < arrays; i++) {
        free(r->x[i]);
        free(r->v[i]);
        free(r->xn[i]);
    }
    for (size_t i = 0; r->order && i < r->count; i++)
        free(r->order[i]);
    free(r->x);
    free(r->xn);
    free(r->v);
    free(r->order);
    free(r->cursor);
    free(r->rng);
    free(r->rng_pass);
    free(r->xb);
    free(r->yb);
    free(r->gsum);
    free(r->xbar);
    free(r->dsum);
    free(r->shard_off);
    dt_gossip_free(r->g);
    dt_net_free(r->net);
    dt_data_destroy(&r->train);
    dt_data_destroy(&r->test_slice);
    dt_data_destroy(&r->test_local);
    cm_topo_destroy(&r->topo);
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
    return CM_OK;
}

cm_status dt_dpsgd_run(const dt_config *cfg, const dt_comm *comm,
                       dt_dpsgd_fn on_progress, void *ctx,
                       dt_dpsgd_result *res)
{
    dt_run r;
    dt_partition part;
    dt_log lg;
    dt_run_state rs = {0};
    memset(&r, 0, sizeof r);
    memset(&lg, 0, sizeof lg);
    memset(res, 0, sizeof *res);
    dt_partition_init(&part);
    cm_topo_init(&r.topo);
    double t_begin = cm_time_now();
    r.cfg = cfg;
    r.comm = comm;
    r.rank = dt_comm_rank(comm);
    r.P = dt_comm_size(comm);
    r.allreduce = cfg->mode == DT_MODE_ALLREDUCE;
    r.B = cfg->batch;
    openblas_set_num_threads(1); /* threads are the engine's (--threads) */

    cm_status s = dt_comm_agree(comm, check_config(cfg, r.P));
    if (s != CM_OK || (s = setup_workers(&r)) != CM_OK)
        goto cleanup;
    if (r.rank == 0)
        s = dt_log_open(&lg, cfg->log_path);
    if ((s = dt_comm_agree(comm, s)) != CM_OK ||
        (s = setup_data(&r, &part)) != CM_OK)
        goto cleanup;
    s = dt_comm_agree(comm, setup_state(&r));
    if (s != CM_OK)
        goto cleanup;
    if (!r.allreduce &&
        (s = dt_gossip_new(comm, &r.topo, r.len, &r.g)) != CM_OK)
        goto cleanup;
    r.fingerprint = dt_run_fingerprint(&r);
    size_t step = 0;
    if (cfg->resume) {
        if ((s = dt_run_ckpt_restore(&r, &step, &rs)) != CM_OK)
            goto cleanup;
        r.train_base = rs.train_s;
        r.bytes_base = rs.bytes;
        for (size_t k = 0; r.rank == 0 && k < rs.n_rows && s == CM_OK; k++)
            s = dt_log_append(&lg, &rs.rows[k]);
        if ((s = dt_comm_agree(comm, s)) != CM_OK)
            goto cleanup;
        if (rs.n_rows)
            res->last = *(const dt_dpsgd_progress *)&(dt_dpsgd_progress){
                .epoch = rs.rows[rs.n_rows - 1].epoch,
                .step = rs.rows[rs.n_rows - 1].step,
                .test_acc = rs.rows[rs.n_rows - 1].test_acc,
                .test_acc_local_mean =
                    rs.rows[rs.n_rows - 1].test_acc_local_mean,
                .consensus = rs.rows[rs.n_rows - 1].consensus,
                .train_loss = rs.rows[rs.n_rows - 1].train_loss,
                .bytes_sent = rs.rows[rs.n_rows - 1].bytes_sent,
                .wall_s = rs.rows[rs.n_rows - 1].wall_s};
    }
    res->start_step = step;
    dt_sched sched = {.kind = cfg->schedule, .lr = cfg->lr,
                      .warmup = cfg->warmup, .total = (double)cfg->epochs,
                      .step_epochs = cfg->step_epochs, .gamma = cfg->gamma};
    const size_t S = r.steps_per_epoch, T = S * cfg->epochs;
    r.t_train_start = cm_time_now();
    for (; step < T; step++) {
        double lr = dt_sched_lr(&sched, (double)step / (double)S);
        s = r.allreduce ? step_allreduce(&r, lr) : step_gossip(&r, lr);
        if ((s = dt_comm_agree(comm, s)) != CM_OK)
            goto cleanup;
        int epoch_end = (step + 1) % S == 0;
        if (!epoch_end &&
            !(cfg->eval_every && (step + 1) % cfg->eval_every == 0))
            continue;
        dt_dpsgd_progress p;
        if ((s = dt_run_evaluate(&r, step + 1, lr, &p)) != CM_OK)
            goto cleanup;
        res->last = p;
        dt_log_row row = {.epoch = p.epoch, .step = p.step,
                          .wall_s = p.wall_s, .train_loss = p.train_loss,
                          .test_acc = p.test_acc,
                          .test_acc_local_mean = p.test_acc_local_mean,
                          .consensus = p.consensus,
                          .bytes_sent = p.bytes_sent};
        if (r.rank == 0) {
            s = dt_log_append(&lg, &row);
            if (s == CM_OK)
                s = dt_run_state_add(&rs, &row, p.wall_s, p.bytes_sent);
            if (s == CM_OK && on_progress)
                on_progress(ctx, &p);
        }
        if ((s = dt_comm_agree(comm, s)) != CM_OK)
            goto cleanup;
        if (epoch_end && cfg->ckpt_dir[0] &&
            (s = dt_run_ckpt_save(&r, (step + 1) / S, step + 1, &rs)) != CM_OK)
            goto cleanup;
        if (epoch_end && cfg->stop_after && (step + 1) / S >= cfg->stop_after) {
            step++;
            break;
        }
    }
    res->steps = step;

    /* Summary: per-rank times, averaged over the ranks. */
    dt_gossip_stats gs = {0};
    if (r.g)
        dt_gossip_get_stats(r.g, &gs);
    double t[6] = {r.t_compute, gs.t_mix, r.allreduce ? r.t_allreduce
                                                      : gs.t_mpi,
                   r.t_eval, (double)gs.bytes_round, 0};
    if ((s = dt_comm_allreduce_sum_double(comm, t, 6)) != CM_OK)
        goto cleanup;
    res->n_workers = r.n;
    res->n_ranks = r.P;
    res->n_params = r.len;
    res->slem = r.slem;
    res->t_compute = t[0] / (double)r.P;
    res->t_gossip_mem = t[1] / (double)r.P;
    res->t_gossip_mpi = t[2] / (double)r.P;
    res->t_eval = t[3] / (double)r.P;
    res->bytes_per_step = (uint64_t)llround(t[4] / (double)r.P);
    if ((s = dt_run_final_hashes(&r, res)) != CM_OK)
        goto cleanup;
    res->t_total = cm_time_now() - t_begin;
cleanup:
    dt_run_state_destroy(&rs);
    dt_log_close(&lg);
    dt_partition_destroy(&part);
    run_free(&r);
    return s;
}
