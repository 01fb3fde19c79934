/* dt_bench_gossip.c: timed gossip rounds alone, for checking the network
 * model against a real network (see dt_bench_gossip.h). Per-round times
 * of all ranks are collected with one sum-allreduce of an R x P matrix
 * (each rank fills its column), so timing adds no communication inside
 * the timed region beyond the barrier that starts each round.
 */
#include "dt_bench_gossip.h"

#include <stdlib.h>
#include <string.h>

#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_time.h"
#include "dt_gossip.h"
#include "dt_net.h"
#include "dt_topo_load.h"

#define WARMUP 3

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The topology exactly as a training run reads it (dt_topo_load: weights
 * by --weights when the file has none or --weights is given, checked on
 * rank 0, agreed over the ranks); a static one only. */
static cm_status load_topology(const dt_config *cfg, const dt_comm *comm,
                               cm_topo *t)
{
    if (!cfg->topology[0])
        return dt_comm_agree(comm, cm_error(CM_EINVAL, "--bench-gossip needs "
                                            "--topology FILE"));
    cm_topo_seq seq;
    int one_based = 0;
    double slem = -1.0;
    cm_topo_seq_init(&seq);
    cm_status s = dt_topo_load(comm, cfg->topology, cfg->weights,
                               cfg->weights_set, &seq, &one_based, &slem);
    if (s != CM_OK)
        return s;
    if (seq.period > 1) { /* the same on every rank: no agreement needed */
        s = cm_error(CM_ETOPO, "--bench-gossip: %s is time-varying (period "
                     "%zu); it times the rounds of one static topology",
                     cfg->topology, seq.period);
        cm_topo_seq_destroy(&seq);
        return s;
    }
    *t = seq.round[0]; /* moved out: round 0 no longer owns the arrays */
    cm_topo_init(&seq.round[0]);
    cm_topo_seq_destroy(&seq);
    if (s == CM_OK && dt_comm_size(comm) > t->n)
        s = cm_error(CM_EINVAL, "%zu MPI ranks but %s has only %zu workers: "
                     "run at most %zu ranks (mpirun -np %zu)",
                     dt_comm_size(comm), cfg->topology, t->n, t->n, t->n);
    return s;
}

/* Floats per array: --bench-floats, else the model's parameter count. */
static cm_status array_len(const dt_config *cfg, size_t *len)
{
    if (cfg->bench_floats) {
        *len = cfg->bench_floats;
        return CM_OK;
    }
    int rgb = cfg->dataset == DT_DS_CIFAR10;
    dt_net *net = NULL;
    cm_status s = dt_net_new(cfg->model, rgb ? 3 : 1, rgb ? 32 : 28,
                             rgb ? 32 : 28, 10, 1, 0, &net);
    if (s == CM_OK)
        *len = net->n_params;
    dt_net_free(net);
    return s;
}

cm_status dt_bench_gossip(const dt_config *cfg, const dt_comm *comm,
                          dt_gossip_bench *res)
{
    size_t P = dt_comm_size(comm), me = dt_comm_rank(comm);
    size_t R = cfg->bench_gossip, len = 0, count = 0;
    cm_topo t;
    dt_placement pl;
    dt_gossip *g = NULL;
    float *buf = NULL, **x = NULL, **out = NULL;
    double *times = NULL;
    memset(res, 0, sizeof *res);
    memset(&pl, 0, sizeof pl);
    cm_topo_init(&t);
    cm_status s = load_topology(cfg, comm, &t);
    if (s == CM_OK)
        s = dt_comm_agree(comm, array_len(cfg, &len));
    if (s == CM_OK)
        s = dt_placement_init(&pl, comm, &t, cfg->placement);
    if (s == CM_OK)
        s = dt_gossip_new_placed(comm, &t, pl.rank_of, len, &g);
    if (s == CM_OK) {
        count = dt_gossip_count(g);
        buf = malloc(2 * count * len * sizeof *buf);
        x = malloc(count * sizeof *x);
        out = malloc(count * sizeof *out);
        times = calloc(R * P, sizeof *times);
        if (!buf || !x || !out || !times)
            s = cm_error(CM_ENOMEM, "--bench-gossip: out of memory");
        for (size_t i = 0; s == CM_OK && i < count; i++) {
            x[i] = buf + 2 * i * len;
            out[i] = x[i] + len;
            for (size_t k = 0; k < len; k++)
                x[i][k] = 1.0f;
        }
        s = dt_comm_agree(comm, s);
    }
    for (size_t k = 0; s == CM_OK && k < WARMUP + R; k++) {
        s = dt_comm_barrier(comm);
        double t0 = cm_time_now();
        if (s == CM_OK)
            s = dt_gossip_round(g, x, out);
        if (k >= WARMUP)
            times[(k - WARMUP) * P + me] = cm_time_now() - t0;
        s = dt_comm_agree(comm, s);
    }
    if (s == CM_OK)
        s = dt_comm_allreduce_sum_double(comm, times, R * P);
    if (s == CM_OK) {
        res->n = t.n;
        res->P = P;
        res->hosts = pl.st.hosts;
        res->rounds = R;
        res->len = len;
        res->st = pl.st;
        res->kind = pl.kind;
        res->how = pl.how;
        double *w = times;  /* in place: row k's max goes to w[k] */
        for (size_t k = 0; k < R; k++) {
            double m = 0;
            for (size_t r = 0; r < P; r++)
                if (times[k * P + r] > m)
                    m = times[k * P + r];
            w[k] = m;
        }
        qsort(w, R, sizeof *w, cmp_double);
        res->min_s = w[0];
        res->median_s = R % 2 ? w[R / 2] : 0.5 * (w[R / 2 - 1] + w[R / 2]);
        res->model_s = cm_net_round_time(&cfg->net, pl.load, pl.host_of_rank, P,
                                          4.0 * (double)len, &res->model_rank,
                                          &t, pl.rank_of);
    }
    free(times);
    free(out);
    free(x);
    free(buf);
    dt_gossip_free(g);
    dt_placement_destroy(&pl);
    cm_topo_destroy(&t);
    return s;
}
