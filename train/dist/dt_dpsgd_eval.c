/* dt_dpsgd_eval.c: the parts of the D-PSGD trainer that look at the
 * whole run rather than one step: evaluation of the average and local
 * models, the final hashes that prove two runs equal, and checkpoints.
 * Evaluation is the only place floating-point sums cross ranks; it never
 * feeds back into training, so it cannot make a trajectory depend on P.
 */
#include "dt_dpsgd_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_time.h"
#include "dt_ckpt.h"
#include "dt_partition.h"
#include "dt_train.h"

uint64_t dt_run_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* ---- evaluation -------------------------------------------------------- */

static uint64_t bytes_per_rank_local(const dt_run *r)
{
    if (!r->g)
        return 0;
    dt_gossip_stats st;
    dt_gossip_get_stats(r->g, &st);
    return st.bytes_sent;
}

/* Fills p (on every rank) with the metrics of the current state. */
cm_status dt_run_evaluate(dt_run *r, size_t step, double lr,
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
cm_status dt_run_final_hashes(dt_run *r, dt_dpsgd_result *res)
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
            acc = dt_run_fnv(acc, &v, sizeof v);
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

static void ckpt_meta(const dt_run *r, size_t i, uint64_t epoch, size_t step,
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
    m->n_state = 1;
    m->rng = r->rng_pass[i];
}

/* Every rank writes its workers; rank 0 then writes the run state (log
 * rows, time and bytes so far) and the marker that makes it complete. */
cm_status dt_run_ckpt_save(dt_run *r, uint64_t epoch, size_t step,
                           const dt_run_state *rs)
{
    const char *dir = r->cfg->ckpt_dir;
    cm_status s = CM_OK;
    for (size_t i = 0; i < r->count && s == CM_OK; i++) {
        dt_ckpt_meta m;
        ckpt_meta(r, i, epoch, step, &m);
        size_t a = r->allreduce ? 0 : i;
        s = dt_ckpt_write(dir, &m, r->x[a], &r->v[a]);
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
cm_status dt_run_ckpt_restore(dt_run *r, size_t *step, dt_run_state *rs)
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
        s = dt_ckpt_read(dir, epoch, &want, &got, r->x[a], &r->v[a]);
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
            dt_run_new_pass(r, i);
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

uint64_t dt_run_fingerprint(const dt_run *r)
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
    uint64_t h = dt_run_fnv(1469598103934665603ull, buf, (size_t)len);
    if (!r->allreduce) {
        h = dt_run_fnv(h, r->topo.adj, 2 * r->topo.m * sizeof *r->topo.adj);
        h = dt_run_fnv(h, r->topo.adj_w, 2 * r->topo.m * sizeof *r->topo.adj_w);
        h = dt_run_fnv(h, r->topo.self, r->topo.n * sizeof *r->topo.self);
    }
    return h;
}
