/* dt_dpsgd_report.c: what a D-PSGD run reports about itself (see
 * dt_run.h): the progress after a number of steps (dt_metrics over all
 * ranks, turned into rates, means and the --net model's seconds), rank
 * 0's CSV row, run-state row and callback, and the final summary of
 * times, bytes and hashes. Evaluation only reads the workers, so it never
 * changes a trajectory. Split from dt_dpsgd.c, which sets up and steps
 * the run.
 */
#include "dt_run.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cm_time.h"
#include "dt_compress.h"
#include "dt_gossip.h"
#include "dt_metrics.h"

/* This rank's gossip counters summed over the rounds' plans; bytes_round
 * is the mean over the period (bytes per step). */
static void gossip_stats(const dt_run *r, dt_gossip_stats *out,
                         double *bytes_round)
{
    memset(out, 0, sizeof *out);
    *bytes_round = 0.0;
    double mem_round = 0.0; /* out->bytes_mem_round: the period's mean */
    for (size_t t = 0; r->g && t < r->period; t++) {
        dt_gossip_stats gs;
        dt_gossip_get_stats(r->g[t], &gs);
        out->rounds += gs.rounds;
        out->bytes_sent += gs.bytes_sent;
        out->t_mix += gs.t_mix;
        out->t_mpi += gs.t_mpi;
        *bytes_round += (double)gs.bytes_round / (double)r->period;
        mem_round += (double)gs.bytes_mem_round / (double)r->period;
    }
    out->bytes_mem_round = (uint64_t)llround(mem_round);
    for (size_t k = 0; r->sg && k <= r->cfg->staleness; k++) {
        dt_gossip_stats gs; /* --staleness: the rounds in flight, g[0]'s
                               bytes a round (it sends none itself) */
        dt_gossip_get_stats(r->sg[k], &gs);
        out->rounds += gs.rounds;
        out->bytes_sent += gs.bytes_sent;
        out->t_mix += gs.t_mix;
        out->t_mpi += gs.t_mpi;
    }
    /* CHOCO: q moves in its wire form, the plans count its bytes */
    if (r->epidemic && out->rounds > 0) /* graphs differ: the mean */
        *bytes_round = (double)out->bytes_sent / (double)out->rounds;
    /* clique-avg's gradient exchange is sent and counted; an exact
     * average's time counts (the model replaces it), its bytes are
     * counted as an all-reduce's (ar_bytes), not as the complete graph's
     * simulation traffic */
    dt_gossip_stats gs;
    if (r->gc) {
        dt_gossip_get_stats(r->gc, &gs);
        out->bytes_sent += gs.bytes_sent;
        out->t_mix += gs.t_mix;
        out->t_mpi += gs.t_mpi;
    }
    if (r->gg && !r->allreduce) {
        dt_gossip_get_stats(r->gg, &gs);
        out->t_mix += gs.t_mix;
        out->t_mpi += gs.t_mpi;
    }
    const dt_config *c = r->cfg;
    if (r->gc || r->local || c->average_every > 1 || c->global_every) {
        /* not every step sends the same: the mean over this invocation's
         * steps, all-reduce convention included */
        uint64_t steps = r->steps_done > r->steps_start
                             ? r->steps_done - r->steps_start : 0;
        *bytes_round = steps ? (double)(out->bytes_sent + r->ar_bytes) /
                                   (double)steps
                             : 0.0;
    }
}

/* --net: the modelled seconds of the communications of steps [a, b). */
static double model_comm_s(const dt_run *r, size_t a, size_t b)
{
    dt_run_comms ca, cb;
    dt_run_count_comms(r, a, &ca);
    dt_run_count_comms(r, b, &cb);
    double s = (double)(cb.gossip - ca.gossip) * r->t_round;
    if (cb.global != ca.global)
        s += (double)((cb.global - cb.warm_v - cb.frag) -
                      (ca.global - ca.warm_v - ca.frag)) * r->t_ar +
             (double)(cb.warm_v - ca.warm_v) * r->t_ar_full +
             (double)(cb.frag - ca.frag) * r->t_frag;
    if (cb.grad_allreduce != ca.grad_allreduce) /* --mode allreduce, H = 1 */
        s += (double)(cb.grad_allreduce - ca.grad_allreduce) * r->t_ar;
    if (cb.clique != ca.clique)
        s += (double)(cb.clique - ca.clique) * r->t_clique;
    return s;
}

cm_status dt_run_evaluate(dt_run *r, size_t step, double lr,
                          dt_dpsgd_progress *p)
{
    double t0 = cm_time_now(), bytes_round;
    dt_gossip_stats gs;
    gossip_stats(r, &gs, &bytes_round);
    dt_metrics m = {.loss_sum = r->loss_sum, .loss_n = (double)r->loss_n,
                    .bytes_sent = (double)(gs.bytes_sent + r->ar_bytes),
                    .t_mpi = gs.t_mpi + (r->allreduce ? r->t_allreduce
                                                      : 0.0)};
    cm_status s = dt_metrics_eval(&r->ev, &r->w, &m);
    if (s != CM_OK)
        return s;
    const size_t n_local = r->ev.test_local.n;
    memset(p, 0, sizeof *p);
    p->step = step;
    p->epoch = (double)step / (double)r->steps_per_epoch;
    p->epochs = r->cfg->epochs;
    p->lr = lr;
    p->consensus = m.consensus_sq / (double)r->n;
    p->test_acc = r->ev.n_test ? m.correct_avg / (double)r->ev.n_test : 0.0;
    p->test_loss = r->ev.n_test ? m.test_loss_sum / (double)r->ev.n_test
                                : 0.0;
    /* all-reduce: every worker holds the average model; --local-eval 0:
     * not measured (NaN: an empty CSV field, "-" on the progress line) */
    p->test_acc_local_mean =
        r->allreduce ? p->test_acc
        : n_local == 0 ? NAN
                       : m.correct_local / ((double)r->n * (double)n_local);
    p->train_loss = m.loss_n > 0 ? m.loss_sum / m.loss_n : NAN;
    p->train_loss_global = r->ev.n_train_eval
                               ? m.global_loss / (double)r->ev.n_train_eval
                               : NAN;
    p->bytes_sent =
        r->bytes_base + (uint64_t)llround(m.bytes_sent / (double)r->P);
    p->wall_s = r->train_base + (t0 - r->t_train_start) - r->t_eval;
    p->images_per_s = p->wall_s > 0 ? (double)(step * r->n * r->B) /
                                          p->wall_s : 0.0;
    /* --net: this process's measured MPI gossip time (rank mean) replaced
     * by the model's rounds */
    if (r->cfg->net_given)
        p->model_s = r->model_base + (p->wall_s - r->wall_base) -
                     m.t_mpi / (double)r->P +
                     model_comm_s(r, r->step_base, step);
    r->loss_sum = 0.0;
    r->loss_n = 0;
    r->t_eval += cm_time_now() - t0;
    return CM_OK;
}

/* Peak resident set of every rank's process (getrusage: ru_maxrss, kB
 * on Linux), its max and mean over ranks in bytes. Collective. */
static cm_status peak_rss(const dt_run *r, double *max, double *mean)
{
    *max = *mean = 0.0;
    double *v = calloc(r->P, sizeof *v);
    cm_status s = v ? CM_OK : cm_error(CM_ENOMEM, "out of memory");
    struct rusage u;
    if (v && getrusage(RUSAGE_SELF, &u) == 0)
        v[r->rank] = 1024.0 * (double)u.ru_maxrss;
    if ((s = dt_comm_agree(r->comm, s)) == CM_OK &&
        (s = dt_comm_allreduce_sum_double(r->comm, v, r->P)) == CM_OK)
        for (size_t q = 0; q < r->P; q++) {
            *max = fmax(*max, v[q]);
            *mean += v[q] / (double)r->P;
        }
    free(v);
    return s;
}

cm_status dt_run_summarize(dt_run *r, dt_dpsgd_result *res)
{
    dt_gossip_stats gs;
    double bytes_round;
    gossip_stats(r, &gs, &bytes_round);
    if (r->allreduce && !r->local) /* the gradient each rank hands to
                                      MPI_Allreduce */
        bytes_round = (double)(r->w.len * sizeof(float));
    struct {
        double compute, mix, mpi, eval, bytes_round, bytes_mem;
    } t = {r->t_compute, gs.t_mix, r->allreduce ? r->t_allreduce : gs.t_mpi,
           r->t_eval, bytes_round, (double)gs.bytes_mem_round};
    double a[6];
    _Static_assert(sizeof t == sizeof a, "time sums are 6 doubles");
    memcpy(a, &t, sizeof a);
    cm_status s = dt_comm_allreduce_sum_double(r->comm, a, 6);
    if (s != CM_OK)
        return s;
    memcpy(&t, a, sizeof a);
    if ((s = peak_rss(r, &res->rss_max, &res->rss_mean)) != CM_OK)
        return s;
    const double P = (double)r->P;
    res->n_workers = r->n;
    res->n_ranks = r->P;
    res->n_params = r->w.len;
    res->n_train = r->n_train;
    res->n_test = r->ev.n_test;
    res->slem = r->slem;
    res->period = r->allreduce ? 0 : r->period;
    res->topo_one_based = r->one_based;
    res->topo_kind = r->allreduce || !r->topo || !r->topo->directed ? 0
                     : r->epidemic                      ? 2
                                                        : 1;
    res->algorithm = r->allreduce ? DT_ALGO_DPSGD : r->cfg->algorithm;
    res->mix_c = r->mix_c;
    res->mix_slem = r->mix_slem;
    res->t_compute = t.compute / P;
    res->t_gossip_mem = t.mix / P;
    res->t_gossip_mpi = t.mpi / P;
    res->t_eval = t.eval / P;
    res->bytes_per_step = (uint64_t)llround(t.bytes_round / P);
    res->mem_bytes_per_step = (uint64_t)llround(t.bytes_mem / P);
    return dt_metrics_final_hashes(&r->ev, &r->w, &res->mean_hash,
                                   &res->workers_hash);
}

dt_dpsgd_progress dt_run_progress_of_row(const dt_log_row *row)
{
    return (dt_dpsgd_progress){
        .epoch = row->epoch, .step = row->step, .test_acc = row->test_acc,
        .test_acc_local_mean = row->test_acc_local_mean,
        .consensus = row->consensus, .train_loss = row->train_loss,
        .train_loss_global = row->train_loss_global,
        .bytes_sent = row->bytes_sent, .wall_s = row->wall_s, .lr = row->lr,
        .test_loss = row->test_loss, .model_s = row->model_s};
}

cm_status dt_run_record(const dt_run *r, const dt_dpsgd_progress *p,
                        dt_log *lg, dt_run_state *rs, dt_dpsgd_fn on_progress,
                        void *ctx)
{
    dt_log_row row = {.epoch = p->epoch, .step = p->step,
                      .wall_s = p->wall_s, .train_loss = p->train_loss,
                      .test_acc = p->test_acc,
                      .test_acc_local_mean = p->test_acc_local_mean,
                      .consensus = p->consensus, .bytes_sent = p->bytes_sent,
                      .lr = p->lr, .test_loss = p->test_loss,
                      .train_loss_global = p->train_loss_global,
                      .model_s = p->model_s};
    cm_status s = CM_OK;
    if (r->rank == 0) {
        s = dt_log_append(lg, &row);
        if (s == CM_OK)
            s = dt_run_state_add(rs, &row, p->wall_s, p->bytes_sent);
        if (s == CM_OK && on_progress)
            on_progress(ctx, p);
    }
    return dt_comm_agree(r->comm, s);
}
