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
#include "dt_dpsgd_state.h"
#include "dt_gossip.h"
#include "dt_log.h"
#include "dt_net.h"
#include "dt_optim.h"
#include "dt_partition.h"
#include "dt_train.h"

/* Everything one rank holds. */
typedef struct {
    const dt_config *cfg;
    const dt_comm *comm;
    size_t rank, P;
    int allreduce;          /* 1: C-PSGD, one shared x */
    size_t n;               /* workers */
    size_t first, count;    /* this rank's workers */
    cm_topo topo;           /* gossip mode: the weighted topology */
    double slem;
    dt_gossip *g;
    dt_net *net;
    size_t len;             /* parameters per worker */
    size_t B;               /* batch */
    size_t steps_per_epoch;
    dt_data train;          /* this rank's shards, worker after worker */
    size_t *shard_off;      /* [count+1] worker i's images in train */
    dt_data test_slice;     /* this rank's part of the test set */
    dt_data test_local;     /* the first local_eval test images */
    size_t n_test;          /* images in the whole test set used */
    float **x, **xn, **v;   /* [count] worker arrays (all-reduce: 1 each) */
    float *gsum;            /* all-reduce: sum of the gradients */
    float *xbar;            /* evaluation: the average model */
    double *dsum;           /* evaluation: double accumulator */
    cm_rng *rng;            /* [count] generators (current state) */
    cm_rng *rng_pass;       /* [count] state at the start of the pass */
    size_t **order;         /* [count] batch order of the current pass */
    size_t *cursor;         /* [count] next position in order */
    float *xb;              /* a batch of images */
    uint8_t *yb;            /* its labels */
    uint64_t fingerprint;   /* settings a checkpoint must match */
    /* accumulators */
    double loss_sum;        /* sum of minibatch losses since the report */
    size_t loss_n;
    double t_compute, t_allreduce, t_eval;
    double train_base;      /* training seconds before a resume */
    uint64_t bytes_base;    /* bytes per rank before a resume */
    double t_train_start;
} run;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* ---- setup ------------------------------------------------------------- */

/* Topology (gossip) or worker count (all-reduce); ranks <= workers. */
static cm_status setup_workers(run *r)
{
    const dt_config *cfg = r->cfg;
    cm_status s = CM_OK;
    if (r->allreduce) {
        r->n = cfg->workers ? cfg->workers : r->P;
        r->slem = 0.0;
    } else {
        s = cm_topo_load(&r->topo, cfg->topology);
        if (s == CM_OK && !r->topo.self)
            s = cm_topo_set_weights(&r->topo, cfg->weights);
        if (s == CM_OK)
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
static cm_status setup_data(run *r, dt_partition *part)
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
static cm_status setup_state(run *r)
{
    const dt_config *cfg = r->cfg;
    const dt_data *d = &r->train;
    size_t arrays = r->allreduce ? 1 : r->count;
    cm_status s = dt_net_new(cfg->model, d->c, d->h, d->w, 10,
                             r->B > 256 ? r->B : 256, &r->net);
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
static void new_pass(run *r, size_t i)
{
    size_t lo = r->shard_off[i], n_i = r->shard_off[i + 1] - lo;
    r->rng_pass[i] = r->rng[i];
    for (size_t k = 0; k < n_i; k++)
        r->order[i][k] = lo + k;
    cm_rng_shuffle_size(&r->rng[i], r->order[i], n_i);
    r->cursor[i] = 0;
}

/* Gradient of worker i at params p on its next minibatch; v_i updated. */
static cm_status worker_grad(run *r, size_t i, const float *p, float *grad)
{
    size_t n_i = r->shard_off[i + 1] - r->shard_off[i];
    if (r->cursor[i] + r->B > n_i)
        new_pass(r, i);
    dt_batch_gather(&r->train, r->order[i], r->cursor[i], r->B, r->xb,
                    r->yb);
    r->cursor[i] += r->B;
    double loss;
    cm_status s = dt_net_grad(r->net, p, grad, r->xb, r->yb, r->B, &loss);
    r->loss_sum += loss;
    r->loss_n++;
    return s;
}

static cm_status step_gossip(run *r, double lr)
{
    const float mu = (float)r->cfg->momentum, wd = (float)r->cfg->weight_decay;
    cm_status s = dt_gossip_start(r->g, r->x);
    if (s != CM_OK)
        return s;
    double t0 = cm_time_now();
    for (size_t i = 0; i < r->count && s == CM_OK; i++) {
        s = worker_grad(r, i, r->x[i], r->net->grads);
        dt_sgd_velocity(r->v[i], r->net->grads, r->x[i], r->len, mu, wd);
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

static cm_status step_allreduce(run *r, double lr)
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

/* ---- evaluation -------------------------------------------------------- */

static uint64_t bytes_per_rank_local(const run *r)
{
    if (!r->g)
        return 0;
    dt_gossip_stats st;
    dt_gossip_get_stats(r->g, &st);
    return st.bytes_sent;
}

/* Fills p (on every rank) with the metrics of the current state. */
static cm_status evaluate(run *r, size_t step, double lr,
                          dt_dpsgd_progress *p)
{
    double t0 = cm_time_now();
    cm_status s = CM_OK;
    double sc[6] = {0, 0, 0, r->loss_sum, (double)r->loss_n,
                    (double)bytes_per_rank_local(r)};
    if (r->allreduce) {
        memcpy(r->xbar, r->x[0], r->len * sizeof *r->xbar);
    } else {
        memset(r->dsum, 0, r->len * sizeof *r->dsum);
        for (size_t i = 0; i < r->count; i++)
            for (size_t k = 0; k < r->len; k++)
                r->dsum[k] += r->x[i][k];
        if ((s = dt_comm_allreduce_sum_double(r->comm, r->dsum, r->len)) !=
            CM_OK)
            return s;
        for (size_t k = 0; k < r->len; k++)
            r->xbar[k] = (float)(r->dsum[k] / (double)r->n);
        for (size_t i = 0; i < r->count; i++)
            for (size_t k = 0; k < r->len; k++) {
                double d = (double)r->x[i][k] - (double)r->xbar[k];
                sc[0] += d * d;
            }
    }
    size_t correct = 0;
    if (r->test_slice.n > 0 &&
        (s = dt_net_eval(r->net, r->xbar, r->test_slice.x, r->test_slice.y,
                         r->test_slice.n, &correct, NULL)) != CM_OK)
        return s;
    sc[1] = (double)correct;
    for (size_t i = 0; !r->allreduce && i < r->count; i++) {
        if (r->test_local.n == 0)
            break;
        if ((s = dt_net_eval(r->net, r->x[i], r->test_local.x,
                             r->test_local.y, r->test_local.n, &correct,
                             NULL)) != CM_OK)
            return s;
        sc[2] += (double)correct;
    }
    if ((s = dt_comm_allreduce_sum_double(r->comm, sc, 6)) != CM_OK)
        return s;
    memset(p, 0, sizeof *p);
    p->step = step;
    p->epoch = (double)step / (double)r->steps_per_epoch;
    p->epochs = r->cfg->epochs;
    p->lr = lr;
    p->consensus = sc[0] / (double)r->n;
    p->test_acc = r->n_test ? sc[1] / (double)r->n_test : 0.0;
    p->test_acc_local_mean =
        r->allreduce || r->test_local.n == 0
            ? p->test_acc
            : sc[2] / ((double)r->n * (double)r->test_local.n);
    p->train_loss = sc[4] > 0 ? sc[3] / sc[4] : 0.0;
    p->bytes_sent = r->bytes_base + (uint64_t)llround(sc[5] / (double)r->P);
    p->wall_s = r->train_base + (t0 - r->t_train_start) - r->t_eval;
    p->images_per_s = p->wall_s > 0 ? (double)(step * r->n * r->B) /
                                          p->wall_s : 0.0;
    r->loss_sum = 0.0;
    r->loss_n = 0;
    r->t_eval += cm_time_now() - t0;
    return CM_OK;
}

/* The average model's hash and a hash of every worker's parameters: each
 * worker's FNV-1a, cut to 48 bits so that a double holds it exactly, is
 * summed into slot i of an otherwise-zero array, then combined in worker
 * order on every rank. */
static cm_status final_hashes(run *r, dt_dpsgd_result *res)
{
    double *h = calloc(r->n, sizeof *h);
    cm_status s = CM_OK;
    if (!h)
        return cm_error(CM_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->count; i++)
        h[r->first + i] = (double)(dt_hash_floats(r->x[r->allreduce ? 0 : i],
                                                  r->len) >> 16);
    memset(r->dsum, 0, r->len * sizeof *r->dsum);
    for (size_t i = 0; i < (r->allreduce ? 1 : r->count); i++)
        for (size_t k = 0; k < r->len; k++)
            r->dsum[k] += r->x[i][k];
    if ((s = dt_comm_allreduce_sum_double(r->comm, h, r->n)) == CM_OK &&
        (r->allreduce ||
         (s = dt_comm_allreduce_sum_double(r->comm, r->dsum, r->len)) ==
             CM_OK)) {
        uint64_t acc = 1469598103934665603ull;
        for (size_t i = 0; i < r->n; i++) {
            uint64_t v = (uint64_t)h[i];
            acc = fnv(acc, &v, sizeof v);
        }
        res->workers_hash = acc;
        double div = r->allreduce ? 1.0 : (double)r->n;
        for (size_t k = 0; k < r->len; k++)
            r->xbar[k] = (float)(r->dsum[k] / div);
        res->mean_hash = dt_hash_floats(r->xbar, r->len);
    }
    free(h);
    return s;
}

/* ---- checkpoints ------------------------------------------------------- */

static void ckpt_meta(const run *r, size_t i, uint64_t epoch, size_t step,
                      dt_ckpt_meta *m)
{
    memset(m, 0, sizeof *m);
    m->n_workers = r->n;
    m->worker = r->first + i;
    m->epoch = epoch;
    m->step = step;
    m->pos = r->cursor[i];
    m->fingerprint = r->fingerprint;
    m->n_params = r->len;
    m->has_momentum = 1;
    m->rng = r->rng_pass[i];
}

/* Every rank writes its workers; rank 0 then writes the run state (log
 * rows, time and bytes so far) and the marker that makes it complete. */
static cm_status ckpt_save(run *r, uint64_t epoch, size_t step,
                           const dt_run_state *rs)
{
    const char *dir = r->cfg->ckpt_dir;
    cm_status s = CM_OK;
    for (size_t i = 0; i < r->count && s == CM_OK; i++) {
        dt_ckpt_meta m;
        ckpt_meta(r, i, epoch, step, &m);
        size_t a = r->allreduce ? 0 : i;
        s = dt_ckpt_write(dir, &m, r->x[a], r->v[a]);
    }
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK)
        return cm_error_prefix(s, "--checkpoint");
    if (r->rank == 0) {
        s = dt_run_state_write(dir, epoch, rs);
        if (s == CM_OK)
            s = dt_ckpt_commit(dir, epoch, r->n);
        if (s == CM_OK)
            dt_run_state_prune(dir, epoch);
    }
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK)
        return cm_error_prefix(s, "--checkpoint");
    return CM_OK;
}

/* Restores every local worker from the last complete checkpoint; rank 0
 * also gets the run state. Returns the step to continue from. */
static cm_status ckpt_restore(run *r, size_t *step, dt_run_state *rs)
{
    const char *dir = r->cfg->ckpt_dir;
    uint64_t epoch = 0;
    cm_status s = CM_OK;
    if (r->rank == 0) {
        s = dt_ckpt_latest(dir, &epoch);
        if (s == CM_OK)
            s = dt_run_state_read(dir, epoch, rs);
    }
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK ||
        (s = dt_comm_bcast(r->comm, &epoch, sizeof epoch, 0)) != CM_OK)
        return cm_error_prefix(s, "--resume");
    uint64_t got_step = 0;
    for (size_t i = 0; i < r->count && s == CM_OK; i++) {
        dt_ckpt_meta want, got;
        ckpt_meta(r, i, epoch, 0, &want);
        size_t a = r->allreduce ? 0 : i;
        s = dt_ckpt_read(dir, epoch, &want, &got, r->x[a], r->v[a]);
        if (s != CM_OK)
            break;
        size_t n_i = r->shard_off[i + 1] - r->shard_off[i];
        if (got.pos > n_i) {
            s = cm_error(CM_EFORMAT, "worker %zu's position %llu is beyond "
                         "its shard of %zu images (corrupt checkpoint?)",
                         r->first + i, (unsigned long long)got.pos, n_i);
            break;
        }
        /* Replay the pass the worker was in, then move to its position. */
        r->rng[i] = got.rng;
        if (got.pos < n_i || got.step > 0)
            new_pass(r, i);
        r->cursor[i] = (size_t)got.pos;
        got_step = got.step;
    }
    if ((s = dt_comm_agree(r->comm, s)) != CM_OK)
        return cm_error_prefix(s, "--resume");
    *step = (size_t)got_step;
    if ((s = dt_comm_bcast(r->comm, step, sizeof *step, 0)) != CM_OK)
        return s;
    if (*step != epoch * r->steps_per_epoch)
        s = cm_error(CM_EINVAL, "--resume: the checkpoint of epoch %llu is "
                     "at step %zu, but this configuration has %zu steps per "
                     "epoch", (unsigned long long)epoch, *step,
                     r->steps_per_epoch);
    return dt_comm_agree(r->comm, s);
}

/* ---- the run ----------------------------------------------------------- */

static uint64_t config_fingerprint(const run *r)
{
    const dt_config *c = r->cfg;
    char buf[512];
    char part[64];
    dt_partition_spec_str(&c->partition, part, sizeof part);
    int len = snprintf(buf, sizeof buf,
                       "%d %d %s %zu %zu %.17g %.17g %.17g %d %.17g %.17g "
                       "%.17g %llu %s %d %zu %zu %zu %zu %zu", (int)c->dataset,
                       (int)c->model, part, r->n, c->batch, c->lr,
                       c->momentum, c->weight_decay, (int)c->schedule,
                       c->warmup, c->step_epochs, c->gamma,
                       (unsigned long long)c->seed, c->data_dir,
                       r->allreduce, c->epochs, c->train_limit,
                       c->synth_train, c->synth_test, r->len);
    uint64_t h = fnv(1469598103934665603ull, buf, (size_t)len);
    if (!r->allreduce) {
        h = fnv(h, r->topo.adj, 2 * r->topo.m * sizeof *r->topo.adj);
        h = fnv(h, r->topo.adj_w, 2 * r->topo.m * sizeof *r->topo.adj_w);
        h = fnv(h, r->topo.self, r->topo.n * sizeof *r->topo.self);
    }
    return h;
}

static void run_free(run *r)
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
    run r;
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
    openblas_set_num_threads(cfg->threads);

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
    r.fingerprint = config_fingerprint(&r);
    size_t step = 0;
    if (cfg->resume) {
        if ((s = ckpt_restore(&r, &step, &rs)) != CM_OK)
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
        if ((s = evaluate(&r, step + 1, lr, &p)) != CM_OK)
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
            (s = ckpt_save(&r, (step + 1) / S, step + 1, &rs)) != CM_OK)
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
    if ((s = final_hashes(&r, res)) != CM_OK)
        goto cleanup;
    res->t_total = cm_time_now() - t_begin;
cleanup:
    dt_run_state_destroy(&rs);
    dt_log_close(&lg);
    dt_partition_destroy(&part);
    run_free(&r);
    return s;
}
