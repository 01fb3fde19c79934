/* dt_run_ckpt.c: save and restore of a D-PSGD run (see dt_run_ckpt.h).
 * Rank 0 decides which epoch to resume (the marker) and broadcasts it;
 * the workers then read their own files, so a run saved on P ranks
 * resumes on any other number of ranks.
 */
#include "dt_run_ckpt.h"

#include <stdio.h>
#include <string.h>

#include "cm_hash.h"
#include "dt_ckpt.h"
#include "dt_partition.h"

static void ckpt_meta(const dt_run_ckpt *c, const dt_workers *w, size_t i,
                      uint64_t epoch, size_t step, dt_ckpt_meta *m)
{
    memset(m, 0, sizeof *m);
    m->n_workers = c->n;
    m->worker = dt_workers_id(w, i);
    m->epoch = epoch;
    m->step = step;
    m->pos = w->cursor[i];
    m->fingerprint = c->fingerprint;
    m->n_params = w->len;
    m->n_state = 1;
    if (c->algo) {
        float *arr[DT_ALGO_MAX_STATE];
        m->n_state = (unsigned)dt_algo_state(c->algo, i, arr);
    }
    m->rng = w->rng_pass[i];
}

/* Worker i's state beyond x: the algorithm's arrays, or the shared v. */
static unsigned state_of(const dt_run_ckpt *c, const dt_workers *w, size_t i,
                         float *arr[DT_ALGO_MAX_STATE])
{
    if (!c->algo) {
        arr[0] = w->v[0];
        return 1;
    }
    return (unsigned)dt_algo_state(c->algo, i, arr);
}

cm_status dt_run_ckpt_save(const dt_run_ckpt *c, const dt_workers *w,
                           uint64_t epoch, size_t step,
                           const dt_run_state *rs)
{
    cm_status s = CM_OK;
    for (size_t i = 0; i < w->count && s == CM_OK; i++) {
        dt_ckpt_meta m;
        ckpt_meta(c, w, i, epoch, step, &m);
        float *st[DT_ALGO_MAX_STATE];
        state_of(c, w, i, st);
        s = dt_ckpt_write(c->dir, &m, w->x[w->shared ? 0 : i], st);
    }
    if ((s = dt_comm_agree(c->comm, s)) != CM_OK)
        return cm_error_prefix(s, "--checkpoint");
    if (dt_comm_rank(c->comm) == 0) {
        s = dt_run_state_write(c->dir, epoch, rs);
        if (s == CM_OK)
            s = dt_ckpt_commit(c->dir, epoch, c->n);
        if (s == CM_OK)
            dt_run_state_prune(c->dir, epoch);
    }
    if ((s = dt_comm_agree(c->comm, s)) != CM_OK)
        return cm_error_prefix(s, "--checkpoint");
    return CM_OK;
}

cm_status dt_run_ckpt_restore(const dt_run_ckpt *c, dt_workers *w,
                              size_t *step, dt_run_state *rs)
{
    uint64_t epoch = 0;
    cm_status s = CM_OK;
    if (dt_comm_rank(c->comm) == 0) {
        s = dt_ckpt_latest(c->dir, &epoch);
        if (s == CM_OK)
            s = dt_run_state_read(c->dir, epoch, rs);
    }
    if ((s = dt_comm_agree(c->comm, s)) != CM_OK ||
        (s = dt_comm_bcast(c->comm, &epoch, sizeof epoch, 0)) != CM_OK)
        return cm_error_prefix(s, "--resume");
    uint64_t got_step = 0;
    for (size_t i = 0; i < w->count && s == CM_OK; i++) {
        dt_ckpt_meta want, got;
        ckpt_meta(c, w, i, epoch, 0, &want);
        float *st[DT_ALGO_MAX_STATE];
        state_of(c, w, i, st);
        s = dt_ckpt_read(c->dir, epoch, &want, &got, w->x[w->shared ? 0 : i],
                         st);
        if (s != CM_OK)
            break;
        size_t n_i = dt_workers_shard_size(w, i);
        if (got.pos > n_i) {
            s = cm_error(CM_EFORMAT, "worker %zu's position %llu is beyond "
                         "its shard of %zu images (corrupt checkpoint?)",
                         dt_workers_id(w, i), (unsigned long long)got.pos,
                         n_i);
            break;
        }
        /* Replay the pass the worker was in, then move to its position. */
        w->rng[i] = got.rng;
        if (got.pos < n_i || got.step > 0)
            dt_workers_new_pass(w, i);
        w->cursor[i] = (size_t)got.pos;
        got_step = got.step;
    }
    if ((s = dt_comm_agree(c->comm, s)) != CM_OK)
        return cm_error_prefix(s, "--resume");
    *step = (size_t)got_step;
    if ((s = dt_comm_bcast(c->comm, step, sizeof *step, 0)) != CM_OK)
        return s;
    if (*step != epoch * c->steps_per_epoch)
        s = cm_error(CM_EINVAL, "--resume: the checkpoint of epoch %llu is "
                     "at step %zu, but this configuration has %zu steps per "
                     "epoch", (unsigned long long)epoch, *step,
                     c->steps_per_epoch);
    return dt_comm_agree(c->comm, s);
}

uint64_t dt_run_ckpt_fingerprint(const dt_config *cfg, size_t n, size_t len,
                                 const cm_topo *topo)
{
    char buf[512];
    char part[64];
    dt_partition_spec_str(&cfg->partition, part, sizeof part);
    int k = snprintf(buf, sizeof buf,
                     "%d %d %s %zu %zu %.17g %.17g %.17g %d %.17g %.17g "
                     "%.17g %llu %s %d %zu %zu %zu %zu %zu",
                     (int)cfg->dataset, (int)cfg->model, part, n, cfg->batch,
                     cfg->lr, cfg->momentum, cfg->weight_decay,
                     (int)cfg->schedule, cfg->warmup, cfg->step_epochs,
                     cfg->gamma, (unsigned long long)cfg->seed,
                     cfg->data_dir, topo == NULL, cfg->epochs,
                     cfg->train_limit, cfg->synth_train, cfg->synth_test,
                     len);
    if (k < 0)
        k = 0;
    if ((size_t)k >= sizeof buf)
        k = (int)sizeof buf - 1;
    uint64_t h = cm_hash_fnv1a(CM_HASH_FNV_OFFSET, buf, (size_t)k);
    if (cfg->algorithm != DT_ALGO_DPSGD) { /* D-PSGD's stay as they were */
        k = snprintf(buf, sizeof buf, " %s %.17g",
                     dt_algo_name(cfg->algorithm), cfg->d2_mix);
        h = cm_hash_fnv1a(h, buf, (size_t)(k > 0 ? k : 0));
    }
    if (topo) {
        h = cm_hash_fnv1a(h, topo->adj, 2 * topo->m * sizeof *topo->adj);
        h = cm_hash_fnv1a(h, topo->adj_w, 2 * topo->m * sizeof *topo->adj_w);
        h = cm_hash_fnv1a(h, topo->self, topo->n * sizeof *topo->self);
    }
    return h;
}
