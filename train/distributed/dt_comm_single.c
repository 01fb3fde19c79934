/* dt_comm_single.c: dt_comm.h and dt_gossip.h for one rank, without MPI.
 * Linked into check_unit only (the Makefile's rule for `*_single.c`), so
 * the run code of train/distributed (dt_dpsgd, the D-PSGD step, D^2, GT,
 * QGM, checkpoints, placement) is unit-tested in one process without
 * mpirun; dpsgd-train and check_mpi link dt_gossip_mpi.c instead.
 *
 * The world is one rank: collectives are identities (a sum over one
 * rank, a broadcast from rank 0 to itself), dt_comm_agree returns the
 * local status with its message, dt_comm_split gives a one-rank
 * communicator or none. Gossip runs dt_gossip_plan for P = 1 (every
 * worker local, nothing sent): the same plan and the same ordered sums as
 * the MPI exchange, so a run's bits equal an MPI run's on any number of
 * ranks (dt_gossip_plan.h). The --timeout watchdog has nothing to wait
 * for: set_timeout records the value, no wait ever times out.
 */
#include "dt_comm.h"
#include "dt_compress_wire.h"
#include "dt_gossip.h"
#include "dt_gossip_plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_time.h"

struct dt_comm {
    int owned; /* 1 when made by dt_comm_split and freed by us */
};

static dt_comm world;

cm_status dt_comm_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return CM_OK;
}

void dt_comm_finalize(void) {}

dt_comm *dt_comm_world(void) { return &world; }

size_t dt_comm_rank(const dt_comm *c)
{
    (void)c;
    return 0;
}

size_t dt_comm_size(const dt_comm *c)
{
    (void)c;
    return 1;
}

size_t dt_comm_local_size(const dt_comm *c)
{
    (void)c;
    return 1;
}

cm_status dt_comm_barrier(const dt_comm *c)
{
    (void)c;
    return CM_OK;
}

cm_status dt_comm_allreduce_sum_double(const dt_comm *c, double *x, size_t n)
{
    (void)c;
    (void)x;
    (void)n;
    return CM_OK;
}

cm_status dt_comm_allreduce_sum_float(const dt_comm *c, float *x, size_t n)
{
    (void)c;
    (void)x;
    (void)n;
    return CM_OK;
}

cm_status dt_comm_bcast(const dt_comm *c, void *buf, size_t bytes,
                        size_t root)
{
    (void)c;
    (void)buf;
    (void)bytes;
    if (root != 0)
        return cm_error(CM_EINVAL, "broadcast from rank %zu of 1", root);
    return CM_OK;
}

cm_status dt_comm_agree(const dt_comm *c, cm_status local)
{
    (void)c;
    return local;
}

cm_status dt_comm_agree_idle(const dt_comm *c, cm_status local)
{
    return dt_comm_agree(c, local);
}

cm_status dt_comm_split(const dt_comm *parent, int color, dt_comm **out)
{
    (void)parent;
    *out = NULL;
    if (color < 0)
        return CM_OK;
    dt_comm *c = malloc(sizeof *c);
    if (!c)
        return cm_error(CM_ENOMEM, "out of memory for a communicator");
    c->owned = 1;
    *out = c;
    return CM_OK;
}

void dt_comm_free(dt_comm *c)
{
    if (c && c->owned)
        free(c);
}

static double timeout_s;

cm_status dt_comm_set_timeout(double seconds)
{
    timeout_s = seconds > 0 ? seconds : 0;
    return CM_OK;
}

void dt_comm_set_adaptive(double floor_s) { (void)floor_s; }

int dt_comm_timed_out(int *report)
{
    if (report)
        *report = 0;
    return 0;
}

size_t dt_comm_silent_ranks(size_t *ranks, size_t cap)
{
    (void)ranks;
    (void)cap;
    return 0;
}

void dt_comm_abort_job(int code)
{
    exit(code);
}

/* ---- gossip: the plan for one rank ------------------------------------- */

struct dt_gossip {
    size_t len;          /* floats per worker array */
    dt_gossip_plan plan; /* rank 0 of 1: all workers, no peers */
    double *acc;         /* [len] accumulator */
    const float **x;     /* [count] arrays of the round in progress */
    int active;          /* a round is started */
    int dynamic;         /* 1: dt_gossip_retopo re-plans every round */
    int average;         /* 1: dt_gossip_new_average's exact average */
    int requant;         /* 1: dt_gossip_new_average_q: the mean quantized */
    dt_compress qz;      /* its compressor (int8 or int4) */
    float *mean;         /* [len] requant: the exact mean before qz */
    float *wx;           /* [count * len] requant: the inputs as the wire
                            carries them (dt_compress_wire_pack, decode) */
    unsigned char *wire; /* [wire(len)] requant: one array's wire form */
    const float **rows;  /* [count] requant: the arrays of wx */
    dt_gossip_stats st;  /* counters (nothing is ever sent) */
};

size_t dt_gossip_first(const dt_gossip *g) { return g->plan.local[0]; }

size_t dt_gossip_count(const dt_gossip *g) { return g->plan.count; }

void dt_gossip_get_stats(const dt_gossip *g, dt_gossip_stats *s)
{
    *s = g->st;
}

cm_status dt_gossip_new(const dt_comm *comm, const cm_topo *t, size_t len,
                        dt_gossip **out)
{
    *out = NULL;
    size_t *owner = calloc(t->n ? t->n : 1, sizeof *owner);
    if (!owner)
        return cm_error(CM_ENOMEM, "out of memory for gossip");
    cm_status s = dt_gossip_new_placed(comm, t, owner, len, out);
    free(owner);
    return s;
}

static cm_status gossip_new(const cm_topo *t, const size_t *owner,
                            size_t len, int dynamic, dt_gossip **out)
{
    *out = NULL;
    if (!t->adj_w || !t->self)
        return cm_error(CM_EINVAL, "gossip needs a weighted topology (set "
                        "weights with --weights)");
    if (len == 0)
        return cm_error(CM_EINVAL, "gossip of empty arrays (len 0)");
    dt_gossip *g = calloc(1, sizeof *g);
    if (!g)
        return cm_error(CM_ENOMEM, "out of memory for gossip");
    g->len = len;
    g->dynamic = dynamic;
    cm_status s = dt_gossip_plan_make(&g->plan, t, owner, 1, 0);
    if (s == CM_OK) {
        g->acc = malloc(len * sizeof *g->acc);
        g->x = calloc(g->plan.count ? g->plan.count : 1, sizeof *g->x);
        if (!g->acc || !g->x)
            s = cm_error(CM_ENOMEM, "out of memory for gossip buffers");
        g->st.bytes_mem_round = dt_gossip_plan_mem_bytes(&g->plan, len);
    }
    if (s != CM_OK) {
        dt_gossip_free(g);
        return s;
    }
    *out = g;
    return CM_OK;
}

cm_status dt_gossip_new_placed(const dt_comm *comm, const cm_topo *t,
                               const size_t *owner, size_t len,
                               dt_gossip **out)
{
    (void)comm;
    return gossip_new(t, owner, len, 0, out);
}

/* One rank: every array is read in memory, as the MPI build reads its
 * in-rank arrays, so there is nothing to pack (and no byte is
 * counted). */
cm_status dt_gossip_new_placed_q(const dt_comm *comm, const cm_topo *t,
                                 const size_t *owner, size_t len,
                                 const dt_compress *c, dt_gossip **out)
{
    (void)comm;
    (void)c;
    return gossip_new(t, owner, len, 0, out);
}

cm_status dt_gossip_new_dynamic(const dt_comm *comm, const cm_topo *t,
                                const size_t *owner, size_t len,
                                dt_gossip **out)
{
    (void)comm;
    return gossip_new(t, owner, len, 1, out);
}

cm_status dt_gossip_new_average(const dt_comm *comm, size_t n,
                                const size_t *owner, size_t len,
                                dt_gossip **out)
{
    return dt_gossip_new_average_q(comm, n, owner, len, NULL, out);
}

/* One rank's segment is the whole array, on the block grid from 0: the
 * mean, then dt_compress_apply on all of it (dt_gossip_finish). */
cm_status dt_gossip_new_average_q(const dt_comm *comm, size_t n,
                                  const size_t *owner, size_t len,
                                  const dt_compress *c, dt_gossip **out)
{
    (void)comm;
    (void)owner; /* one rank holds every worker */
    *out = NULL;
    if (n == 0 || len == 0)
        return cm_error(CM_EINVAL, "exact average of %zu arrays of %zu "
                        "floats", n, len);
    if (c && c->kind == DT_COMPRESS_TOPK)
        return cm_error(CM_EINVAL, "a re-quantized average is for int8 and "
                        "int4, not top-k");
    dt_gossip *g = calloc(1, sizeof *g);
    if (!g)
        return cm_error(CM_ENOMEM, "out of memory for the exact average");
    g->len = len;
    g->average = 1;
    g->requant = c && dt_compress_active(c);
    if (g->requant) {
        g->qz = *c;
        g->mean = malloc(len * sizeof *g->mean);
        g->wx = n <= SIZE_MAX / sizeof(float) / len
                    ? malloc(n * len * sizeof *g->wx) : NULL;
        g->wire = malloc(dt_compress_wire_bytes(c, len));
        g->rows = malloc(n * sizeof *g->rows);
        if (!g->mean || !g->wx || !g->wire || !g->rows) {
            dt_gossip_free(g);
            return cm_error(CM_ENOMEM, "out of memory for the quantized "
                            "average");
        }
    }
    g->plan.n = n;
    g->plan.P = 1;
    g->plan.count = n;
    g->plan.local = malloc(n * sizeof *g->plan.local);
    g->acc = malloc(len * sizeof *g->acc);
    g->x = calloc(n, sizeof *g->x);
    if (!g->plan.local || !g->acc || !g->x) {
        dt_gossip_free(g);
        return cm_error(CM_ENOMEM, "out of memory for the exact average");
    }
    for (size_t j = 0; j < n; j++)
        g->plan.local[j] = j;
    *out = g;
    return CM_OK;
}

cm_status dt_gossip_retopo(dt_gossip *g, const cm_topo *t)
{
    if (g->active)
        return cm_error(CM_EINVAL, "gossip: new topology during a round");
    if (!g->dynamic)
        return cm_error(CM_EINVAL, "gossip: the topology of a static plan "
                        "cannot change (dt_gossip_new_dynamic)");
    if (t->n != g->plan.n)
        return cm_error(CM_EINVAL, "gossip: a %zu-node topology for %zu "
                        "workers", t->n, g->plan.n);
    size_t *owner = calloc(t->n ? t->n : 1, sizeof *owner); /* all rank 0 */
    if (!owner)
        return cm_error(CM_ENOMEM, "out of memory for gossip");
    cm_status s = dt_gossip_plan_make(&g->plan, t, owner, 1, 0);
    free(owner);
    if (s == CM_OK)
        g->st.bytes_mem_round = dt_gossip_plan_mem_bytes(&g->plan, g->len);
    return s;
}

void dt_gossip_free(dt_gossip *g)
{
    if (!g)
        return;
    dt_gossip_plan_destroy(&g->plan);
    free(g->acc);
    free(g->x);
    free(g->mean);
    free(g->wx);
    free(g->wire);
    free(g->rows);
    free(g);
}

cm_status dt_gossip_start(dt_gossip *g, float *const *x)
{
    if (g->active)
        return cm_error(CM_EINVAL, "gossip round already started");
    for (size_t i = 0; i < g->plan.count; i++)
        g->x[i] = x[i];
    g->active = 1;
    return CM_OK;
}

cm_status dt_gossip_finish(dt_gossip *g, float *const *out)
{
    if (!g->active)
        return cm_error(CM_EINVAL, "gossip round not started");
    double t0 = cm_time_now();
    g->active = 0;
    if (g->average && g->requant) { /* what the MPI build's wire does */
        const size_t n = g->plan.count, len = g->len;
        for (size_t j = 0; j < n; j++) {
            dt_compress_wire_pack(&g->qz, g->x[j], len, g->wire);
            dt_compress_wire_decode(&g->qz, g->wire, len, g->wx + j * len);
            g->rows[j] = g->wx + j * len;
        }
        dt_gossip_plan_mean(g->rows, n, len, g->acc, g->mean);
        dt_compress_wire_encode(&g->qz, g->mean, len, g->wire);
        dt_compress_wire_decode(&g->qz, g->wire, len, out[0]);
        for (size_t i = 1; i < n; i++)
            memcpy(out[i], out[0], len * sizeof *out[i]);
    } else if (g->average) { /* the mean once, copied to every worker */
        dt_gossip_plan_mean(g->x, g->plan.count, g->len, g->acc, out[0]);
        for (size_t i = 1; i < g->plan.count; i++)
            memcpy(out[i], out[0], g->len * sizeof *out[i]);
    } else {
        dt_gossip_plan_mix(&g->plan, g->x, NULL, g->len, g->acc, out);
    }
    g->st.t_mix += cm_time_now() - t0;
    g->st.rounds++;
    return CM_OK;
}

cm_status dt_gossip_progress(dt_gossip *g)
{
    (void)g;
    return CM_OK;
}

cm_status dt_gossip_round(dt_gossip *g, float *const *x, float *const *out)
{
    cm_status s = dt_gossip_start(g, x);
    return s != CM_OK ? s : dt_gossip_finish(g, out);
}
