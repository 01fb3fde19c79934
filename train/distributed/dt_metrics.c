/* dt_metrics.c: evaluation of a D-PSGD run (see dt_metrics.h). The sums
 * over ranks are double; the average model is cast to float once, the
 * same way on every rank, so every rank evaluates the same xbar.
 */
#include "dt_metrics.h"

#include <stdlib.h>
#include <string.h>

#include "cm_hash.h"
#include "dt_log.h"
#include "dt_train.h"

/* dt_metrics_reduce adds the struct as an array of doubles. */
#define METRICS_N (sizeof(dt_metrics) / sizeof(double))
_Static_assert(sizeof(dt_metrics) == METRICS_N * sizeof(double),
               "dt_metrics must hold doubles only");

void dt_evaluator_init(dt_evaluator *ev) { memset(ev, 0, sizeof *ev); }

cm_status dt_evaluator_alloc(dt_evaluator *ev, size_t len)
{
    ev->xbar = malloc((len ? len : 1) * sizeof *ev->xbar);
    ev->dsum = malloc((len ? len : 1) * sizeof *ev->dsum);
    if (!ev->xbar || !ev->dsum)
        return cm_error(CM_ENOMEM, "out of memory for the average model");
    return CM_OK;
}

void dt_evaluator_destroy(dt_evaluator *ev)
{
    free(ev->xbar);
    free(ev->dsum);
    dt_data_destroy(&ev->test_slice);
    dt_data_destroy(&ev->test_local);
    dt_data_destroy(&ev->train_slice);
    memset(ev, 0, sizeof *ev);
}

cm_status dt_metrics_reduce(const dt_comm *comm, dt_metrics *m)
{
    double a[METRICS_N];
    memcpy(a, m, sizeof a);
    cm_status s = dt_comm_allreduce_sum_double(comm, a, METRICS_N);
    if (s == CM_OK)
        memcpy(m, a, sizeof a);
    return s;
}

/* dsum = sum of this rank's parameter arrays. */
static void sum_local(dt_evaluator *ev, const dt_workers *w)
{
    memset(ev->dsum, 0, w->len * sizeof *ev->dsum);
    for (size_t i = 0; i < w->arrays; i++)
        for (size_t k = 0; k < w->len; k++)
            ev->dsum[k] += w->x[i][k];
}

cm_status dt_metrics_eval(dt_evaluator *ev, const dt_workers *w,
                          dt_metrics *m)
{
    const size_t len = w->len;
    cm_status s = CM_OK;
    m->consensus_sq = m->correct_avg = m->correct_local = 0.0;
    m->global_loss = 0.0;
    m->test_loss_sum = 0.0;
    if (w->shared) {
        memcpy(ev->xbar, w->x[0], len * sizeof *ev->xbar);
    } else {
        sum_local(ev, w);
        if ((s = dt_comm_allreduce_sum_double(ev->comm, ev->dsum, len)) !=
            CM_OK)
            return s;
        for (size_t k = 0; k < len; k++)
            ev->xbar[k] = (float)(ev->dsum[k] / (double)ev->n);
        for (size_t i = 0; i < w->count; i++)
            for (size_t k = 0; k < len; k++) {
                double d = (double)w->x[i][k] - (double)ev->xbar[k];
                m->consensus_sq += d * d;
            }
    }
    size_t correct = 0;
    double loss = 0.0;
    const dt_data *ts = &ev->test_slice, *tl = &ev->test_local;
    if (ts->n > 0 && (s = dt_net_eval(ev->net, ev->xbar, ts->x, ts->y, ts->n,
                                      &correct, &loss)) != CM_OK)
        return s;
    m->correct_avg = (double)correct;
    m->test_loss_sum = loss * (double)ts->n;
    const dt_data *tr = &ev->train_slice;
    double mean_loss = 0.0;
    if (tr->n > 0 && (s = dt_net_eval(ev->net, ev->xbar, tr->x, tr->y, tr->n,
                                      NULL, &mean_loss)) != CM_OK)
        return s;
    m->global_loss = mean_loss * (double)tr->n;
    for (size_t i = 0; !w->shared && tl->n > 0 && i < w->count; i++) {
        if ((s = dt_net_eval(ev->net, w->x[i], tl->x, tl->y, tl->n,
                             &correct, NULL)) != CM_OK)
            return s;
        m->correct_local += (double)correct;
    }
    return dt_metrics_reduce(ev->comm, m);
}

cm_status dt_metrics_final_hashes(dt_evaluator *ev, const dt_workers *w,
                                  uint64_t *mean_hash,
                                  uint64_t *workers_hash)
{
    double *h = calloc(ev->n, sizeof *h);
    cm_status s = CM_OK;
    if (!h)
        return cm_error(CM_ENOMEM, "out of memory");
    for (size_t i = 0; i < w->count; i++)
        h[dt_workers_id(w, i)] = (double)(dt_hash_floats(w->x[w->shared ? 0 : i],
                                                  w->len) >> 16);
    sum_local(ev, w);
    if ((s = dt_comm_allreduce_sum_double(ev->comm, h, ev->n)) == CM_OK &&
        (w->shared || (s = dt_comm_allreduce_sum_double(
                           ev->comm, ev->dsum, w->len)) == CM_OK)) {
        uint64_t acc = CM_HASH_FNV_OFFSET;
        for (size_t i = 0; i < ev->n; i++) {
            uint64_t v = (uint64_t)h[i];
            acc = cm_hash_fnv1a(acc, &v, sizeof v);
        }
        *workers_hash = acc;
        double div = w->shared ? 1.0 : (double)ev->n;
        for (size_t k = 0; k < w->len; k++)
            ev->xbar[k] = (float)(ev->dsum[k] / div);
        *mean_hash = dt_hash_floats(ev->xbar, w->len);
    }
    free(h);
    return s;
}

/* This rank's test images: a contiguous slice for the average model, and
 * the first local_eval images for every worker's model. */
static cm_status load_test(dt_evaluator *ev, const dt_source *src,
                           const dt_norm *norm, size_t rank, size_t P,
                           size_t local_eval)
{
    size_t t0 = ev->n_test * rank / P;
    size_t t1 = ev->n_test * (rank + 1) / P;
    size_t nl = local_eval < ev->n_test ? local_eval : ev->n_test;
    size_t m = (t1 - t0) > nl ? (t1 - t0) : nl;
    size_t *idx = malloc((m ? m : 1) * sizeof *idx);
    cm_status s = CM_OK;
    if (!idx)
        return cm_error(CM_ENOMEM, "out of memory");
    if (t1 > t0) {
        for (size_t k = t0; k < t1; k++)
            idx[k - t0] = k;
        s = dt_data_load(src, DT_SPLIT_TEST, idx, t1 - t0, norm,
                         &ev->test_slice);
    }
    if (s == CM_OK && nl > 0) {
        for (size_t k = 0; k < nl; k++)
            idx[k] = k;
        s = dt_data_load(src, DT_SPLIT_TEST, idx, nl, norm, &ev->test_local);
    }
    free(idx);
    return s;
}

/* This rank's contiguous slice of the first min(DT_TRAIN_LOSS_EVAL,
 * n_train) training images (file order, whatever the partition): the
 * images of the global training loss. */
static cm_status load_train_eval(dt_evaluator *ev, const dt_source *src,
                                 const dt_norm *norm, size_t rank, size_t P,
                                 size_t n_train)
{
    ev->n_train_eval = n_train < DT_TRAIN_LOSS_EVAL ? n_train
                                                    : DT_TRAIN_LOSS_EVAL;
    size_t t0 = ev->n_train_eval * rank / P;
    size_t t1 = ev->n_train_eval * (rank + 1) / P;
    if (t1 == t0)
        return CM_OK;
    size_t *idx = malloc((t1 - t0) * sizeof *idx);
    if (!idx)
        return cm_error(CM_ENOMEM, "out of memory");
    for (size_t k = t0; k < t1; k++)
        idx[k - t0] = k;
    cm_status s = dt_data_load(src, DT_SPLIT_TRAIN, idx, t1 - t0, norm,
                               &ev->train_slice);
    free(idx);
    return s;
}

cm_status dt_evaluator_load(dt_evaluator *ev, const dt_source *src,
                            const dt_norm *norm, size_t rank, size_t P,
                            size_t local_eval, size_t n_train)
{
    cm_status s = load_test(ev, src, norm, rank, P, local_eval);
    return s == CM_OK ? load_train_eval(ev, src, norm, rank, P, n_train) : s;
}
