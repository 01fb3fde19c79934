/* dt_gossip_mpi.c: the communicator wrapper (dt_comm.h) and the gossip
 * exchange (dt_gossip.h); the only file of the project that includes
 * <mpi.h>.
 *
 * Gossip follows D-PSGD (Lian et al. 2017, "Can decentralized algorithms
 * outperform centralized algorithms?"): x_i <- sum_j W_ij x_j. Workers
 * live on ranks in contiguous blocks; ranks sharing a topology edge are
 * joined in a distributed-graph communicator (MPI 3.0, section 7.5.4), and
 * one MPI_Ineighbor_alltoallv per round moves exactly the arrays each
 * neighbour rank needs, each array sent once per peer however many of the
 * peer's workers use it. Counts are in units of a contiguous datatype of
 * len floats, so counts stay small ints. Trade-off: the in-memory sum reads
 * the caller's arrays at finish time (no copy of in-rank data) and
 * accumulates in double in ascending neighbour order, which costs a double
 * scratch array of len but makes the result independent of P bit for bit.
 */
#include "dt_comm.h"
#include "dt_gossip.h"
#include "dt_partition.h"

#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cm_time.h"

#define AGREE_MSG 1024

struct dt_comm {
    MPI_Comm comm; /* the communicator; MPI_ERRORS_RETURN */
    int rank;      /* this rank in comm */
    int size;      /* ranks in comm */
    int owned;     /* 1 when made by dt_comm_split and freed by us */
};

static dt_comm world;       /* handle of MPI_COMM_WORLD, set lazily */
static int world_ready;     /* world is filled in */
static int we_initialized;  /* dt_comm_init called MPI_Init */

static cm_status mpi_fail(int rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error code %d", rc);
    return cm_error(CM_EMPI, "%s failed: %s", what, s);
}

/* ---- communicator wrapper ---------------------------------------------- */

cm_status dt_comm_init(int *argc, char ***argv)
{
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag) {
        int rc = MPI_Init(argc, argv);
        if (rc != MPI_SUCCESS)
            return cm_error(CM_EMPI, "MPI_Init failed (error %d)", rc);
        we_initialized = 1;
    }
    return dt_comm_world() ? CM_OK
                           : cm_error(CM_EMPI, "MPI is not initialized");
}

void dt_comm_finalize(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (we_initialized && !fin)
        MPI_Finalize();
    world_ready = 0;
}

dt_comm *dt_comm_world(void)
{
    int flag = 0, fin = 0;
    MPI_Initialized(&flag);
    MPI_Finalized(&fin);
    if (!flag || fin)
        return NULL;
    if (!world_ready) {
        world.comm = MPI_COMM_WORLD;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &world.size);
        world.owned = 0;
        world_ready = 1;
    }
    return &world;
}

size_t dt_comm_rank(const dt_comm *c) { return (size_t)c->rank; }

size_t dt_comm_size(const dt_comm *c) { return (size_t)c->size; }

size_t dt_comm_local_size(const dt_comm *c)
{
    MPI_Comm sh;
    int n = 1;
    if (MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank,
                            MPI_INFO_NULL, &sh) != MPI_SUCCESS)
        return 1;
    if (MPI_Comm_size(sh, &n) != MPI_SUCCESS || n < 1)
        n = 1;
    MPI_Comm_free(&sh);
    return (size_t)n;
}

void dt_comm_abort(const dt_comm *c, int code)
{
    MPI_Abort(c ? c->comm : MPI_COMM_WORLD, code);
}

cm_status dt_comm_barrier(const dt_comm *c)
{
    int rc = MPI_Barrier(c->comm);
    return rc == MPI_SUCCESS ? CM_OK : mpi_fail(rc, "MPI_Barrier");
}

/* In-place MPI_SUM allreduce of n elements of size esz, INT_MAX at a time. */
static cm_status allreduce_sum(const dt_comm *c, void *x, size_t n,
                               MPI_Datatype type, size_t esz)
{
    char *p = x;
    while (n > 0) {
        int k = n > INT_MAX ? INT_MAX : (int)n;
        int rc = MPI_Allreduce(MPI_IN_PLACE, p, k, type, MPI_SUM, c->comm);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Allreduce");
        p += (size_t)k * esz;
        n -= (size_t)k;
    }
    return CM_OK;
}

cm_status dt_comm_allreduce_sum_double(const dt_comm *c, double *x, size_t n)
{
    return allreduce_sum(c, x, n, MPI_DOUBLE, sizeof *x);
}

cm_status dt_comm_allreduce_sum_float(const dt_comm *c, float *x, size_t n)
{
    return allreduce_sum(c, x, n, MPI_FLOAT, sizeof *x);
}

cm_status dt_comm_bcast(const dt_comm *c, void *buf, size_t bytes,
                        size_t root)
{
    if (root >= (size_t)c->size)
        return cm_error(CM_EINVAL, "broadcast root %zu but only %d ranks",
                        root, c->size);
    char *p = buf;
    while (bytes > 0) {
        int k = bytes > INT_MAX ? INT_MAX : (int)bytes;
        int rc = MPI_Bcast(p, k, MPI_BYTE, (int)root, c->comm);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Bcast");
        p += k;
        bytes -= (size_t)k;
    }
    return CM_OK;
}

cm_status dt_comm_agree(const dt_comm *c, cm_status local)
{
    int me = local != CM_OK ? c->rank : c->size, low = c->size;
    int rc = MPI_Allreduce(&me, &low, 1, MPI_INT, MPI_MIN, c->comm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Allreduce (failure agreement)");
    if (low == c->size)
        return CM_OK;
    /* The lowest failing rank sends its status and message to everyone. */
    char buf[sizeof(int) + AGREE_MSG];
    memset(buf, 0, sizeof buf);
    if (low == c->rank) {
        int code = (int)local;
        memcpy(buf, &code, sizeof code);
        snprintf(buf + sizeof(int), AGREE_MSG, "%s", cm_last_error());
    }
    rc = MPI_Bcast(buf, (int)sizeof buf, MPI_BYTE, low, c->comm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Bcast (failure agreement)");
    int code;
    memcpy(&code, buf, sizeof code);
    buf[sizeof buf - 1] = '\0';
    return cm_error((cm_status)code, "%s", buf + sizeof(int));
}

cm_status dt_comm_split(const dt_comm *parent, int color, dt_comm **out)
{
    MPI_Comm nc = MPI_COMM_NULL;
    *out = NULL;
    int rc = MPI_Comm_split(parent->comm, color < 0 ? MPI_UNDEFINED : color,
                            parent->rank, &nc);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Comm_split");
    if (nc == MPI_COMM_NULL)
        return CM_OK;
    dt_comm *c = malloc(sizeof *c);
    if (!c) {
        MPI_Comm_free(&nc);
        return cm_error(CM_ENOMEM, "out of memory for a communicator");
    }
    MPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
    c->comm = nc;
    MPI_Comm_rank(nc, &c->rank);
    MPI_Comm_size(nc, &c->size);
    c->owned = 1;
    *out = c;
    return CM_OK;
}

void dt_comm_free(dt_comm *c)
{
    if (!c || !c->owned)
        return;
    MPI_Comm_free(&c->comm);
    free(c);
}

/* ---- gossip ------------------------------------------------------------ */

struct dt_gossip {
    MPI_Comm graph;        /* distributed-graph communicator of the ranks */
    MPI_Datatype arr;      /* len contiguous floats: one worker array */
    size_t len;            /* floats per worker array */
    size_t first, count;   /* local workers first .. first+count-1 */
    int npeers;            /* neighbour ranks (sources = destinations) */
    int *peers;            /* [npeers] ascending */
    int *scount, *sdispl;  /* [npeers] arrays sent to each peer, offsets */
    int *rcount, *rdispl;  /* [npeers] arrays received from each, offsets */
    size_t nsend, nrecv;   /* arrays sent / received per round */
    size_t *send_local;    /* [nsend] local index of each sent array */
    float *sendbuf;        /* [nsend * len] */
    float *recvbuf;        /* [nrecv * len] */
    size_t *term_off;      /* [count+1] terms of local worker i */
    size_t *term_src;      /* source: < count local index, else
                              count + receive slot */
    double *term_w;        /* W_ij of each term */
    double *acc;           /* [len] accumulator */
    const float **x;       /* [count] arrays of the round in progress */
    MPI_Request req;       /* the exchange in progress */
    int active;            /* a round is started */
    dt_gossip_stats st;    /* counters */
};

size_t dt_gossip_first(const dt_gossip *g) { return g->first; }

size_t dt_gossip_count(const dt_gossip *g) { return g->count; }

void dt_gossip_get_stats(const dt_gossip *g, dt_gossip_stats *s)
{
    *s = g->st;
}

static void gossip_free_local(dt_gossip *g)
{
    free(g->peers);
    free(g->scount);
    free(g->sdispl);
    free(g->rcount);
    free(g->rdispl);
    free(g->send_local);
    free(g->sendbuf);
    free(g->recvbuf);
    free(g->term_off);
    free(g->term_src);
    free(g->term_w);
    free(g->acc);
    free(g->x);
    free(g);
}

typedef struct {
    size_t peer;  /* owner rank of the neighbour */
    size_t local; /* local worker index */
} send_pair;

static int pair_cmp(const void *pa, const void *pb)
{
    const send_pair *a = pa, *b = pb;
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    return (a->local > b->local) - (a->local < b->local);
}

/* Everything that needs no communication: lists, terms, buffers. */
static cm_status gossip_plan(dt_gossip *g, const cm_topo *t, size_t P,
                             size_t r)
{
    const size_t n = t->n, first = g->first, count = g->count;
    size_t *slot = NULL;
    send_pair *pairs = NULL;
    cm_status s = CM_OK;
    size_t nlocal_adj = t->off[first + count] - t->off[first];

    slot = malloc(n * sizeof *slot);
    pairs = malloc((nlocal_adj + 1) * sizeof *pairs);
    g->term_off = malloc((count + 1) * sizeof *g->term_off);
    g->term_src = malloc((nlocal_adj + count) * sizeof *g->term_src);
    g->term_w = malloc((nlocal_adj + count) * sizeof *g->term_w);
    g->acc = malloc(g->len * sizeof *g->acc);
    g->x = calloc(count, sizeof *g->x);
    if (!slot || !pairs || !g->term_off || !g->term_src || !g->term_w ||
        !g->acc || !g->x) {
        s = cm_error(CM_ENOMEM, "out of memory planning gossip");
        goto done;
    }
    /* Receive slots: remote neighbours of local workers, ascending id,
     * hence grouped by owner rank ascending. */
    for (size_t j = 0; j < n; j++)
        slot[j] = SIZE_MAX;
    size_t np = 0;
    for (size_t i = first; i < first + count; i++)
        for (size_t k = t->off[i]; k < t->off[i + 1]; k++) {
            size_t j = t->adj[k], q = dt_partition_block_owner(n, P, j);
            if (q == r)
                continue;
            slot[j] = 0;
            pairs[np++] = (send_pair){q, i - first};
        }
    g->nrecv = 0;
    for (size_t j = 0; j < n; j++)
        if (slot[j] != SIZE_MAX)
            slot[j] = g->nrecv++;
    /* Send list: (peer, local worker) pairs, sorted and unique. */
    qsort(pairs, np, sizeof *pairs, pair_cmp);
    size_t u = 0;
    for (size_t k = 0; k < np; k++)
        if (u == 0 || pair_cmp(&pairs[u - 1], &pairs[k]) != 0)
            pairs[u++] = pairs[k];
    g->nsend = u;
    size_t npeers = 0;
    for (size_t k = 0; k < u; k++)
        npeers += k == 0 || pairs[k].peer != pairs[k - 1].peer;
    if (g->nsend > INT_MAX || g->nrecv > INT_MAX || g->len > INT_MAX ||
        (g->nsend + g->nrecv) > SIZE_MAX / sizeof(float) / g->len) {
        s = cm_error(CM_EINVAL, "gossip buffers too large (%zu arrays of "
                     "%zu floats)", g->nsend + g->nrecv, g->len);
        goto done;
    }
    g->npeers = (int)npeers;
    size_t pa = npeers ? npeers : 1; /* never malloc(0) */
    g->peers = malloc(pa * sizeof *g->peers);
    g->scount = calloc(pa, sizeof *g->scount);
    g->sdispl = calloc(pa, sizeof *g->sdispl);
    g->rcount = calloc(pa, sizeof *g->rcount);
    g->rdispl = calloc(pa, sizeof *g->rdispl);
    g->send_local = malloc((u ? u : 1) * sizeof *g->send_local);
    g->sendbuf = malloc((u ? u : 1) * g->len * sizeof(float));
    g->recvbuf = malloc((g->nrecv ? g->nrecv : 1) * g->len * sizeof(float));
    if (!g->peers || !g->scount || !g->sdispl || !g->rcount || !g->rdispl ||
        !g->send_local || !g->sendbuf || !g->recvbuf) {
        s = cm_error(CM_ENOMEM, "out of memory for gossip buffers");
        goto done;
    }
    int p = -1;
    for (size_t k = 0; k < u; k++) {
        if (k == 0 || pairs[k].peer != pairs[k - 1].peer) {
            p++;
            g->peers[p] = (int)pairs[k].peer;
            g->sdispl[p] = (int)k;
        }
        g->scount[p]++;
        g->send_local[k] = pairs[k].local;
    }
    /* Receive counts per peer: slots are grouped by owner ascending, and
     * the peers that send to us are exactly those we send to. */
    for (size_t j = 0; j < n; j++) {
        if (slot[j] == SIZE_MAX)
            continue;
        int q = (int)dt_partition_block_owner(n, P, j), a = 0;
        while (a < g->npeers && g->peers[a] != q)
            a++;
        if (a == g->npeers) {
            s = cm_error(CM_EINTERNAL, "gossip: rank %d needed but not a "
                         "peer (topology not symmetric?)", q);
            goto done;
        }
        if (g->rcount[a]++ == 0)
            g->rdispl[a] = (int)slot[j];
    }
    /* Terms of each local worker: self merged into the ascending list. */
    size_t nt = 0;
    for (size_t i = first; i < first + count; i++) {
        g->term_off[i - first] = nt;
        int self_done = 0;
        for (size_t k = t->off[i]; k <= t->off[i + 1]; k++) {
            size_t j = k < t->off[i + 1] ? t->adj[k] : SIZE_MAX;
            if (!self_done && i < j) {
                g->term_src[nt] = i - first;
                g->term_w[nt++] = t->self[i];
                self_done = 1;
            }
            if (j == SIZE_MAX)
                break;
            g->term_src[nt] = (j >= first && j < first + count)
                                  ? j - first : count + slot[j];
            g->term_w[nt++] = t->adj_w[k];
        }
    }
    g->term_off[count] = nt;
done:
    free(pairs);
    free(slot);
    return s;
}

cm_status dt_gossip_new(const dt_comm *comm, const cm_topo *t, size_t len,
                        dt_gossip **out)
{
    const size_t P = dt_comm_size(comm), r = dt_comm_rank(comm);
    cm_status s = CM_OK;
    *out = NULL;
    dt_gossip *g = calloc(1, sizeof *g);
    if (g) {
        g->graph = MPI_COMM_NULL;
        g->arr = MPI_DATATYPE_NULL;
    }
    if (!g) {
        s = cm_error(CM_ENOMEM, "out of memory for gossip");
    } else if (P > t->n) {
        s = cm_error(CM_EINVAL, "%zu MPI ranks but the topology has only "
                     "%zu nodes: run at most %zu ranks (mpirun -np %zu)",
                     P, t->n, t->n, t->n);
    } else if (!t->adj_w || !t->self) {
        s = cm_error(CM_EINVAL, "gossip needs a weighted topology (set "
                     "weights with --weights)");
    } else if (len == 0) {
        s = cm_error(CM_EINVAL, "gossip of empty arrays (len 0)");
    } else {
        g->len = len;
        dt_partition_block_range(t->n, P, r, &g->first, &g->count);
        s = gossip_plan(g, t, P, r);
    }
    s = dt_comm_agree(comm, s);
    if (s != CM_OK)
        goto fail;
    /* Edge weights of 1 rather than MPI_UNWEIGHTED: Open MPI's sentinel
     * is a zero-length array that trips GCC's -Wstringop-overread. The
     * graph is only a neighbour list; reorder = 0 keeps rank numbers. */
    int *ones = malloc((size_t)(g->npeers ? g->npeers : 1) * sizeof *ones);
    cm_status sg = CM_OK;
    int rc = MPI_SUCCESS;
    if (!ones) {
        sg = cm_error(CM_ENOMEM, "out of memory for the gossip graph");
    } else {
        for (int k = 0; k < g->npeers; k++)
            ones[k] = 1;
    }
    sg = dt_comm_agree(comm, sg);
    if (sg != CM_OK) {
        free(ones);
        s = sg;
        goto fail;
    }
    rc = MPI_Dist_graph_create_adjacent(comm->comm, g->npeers, g->peers,
                                        ones, g->npeers, g->peers, ones,
                                        MPI_INFO_NULL, 0, &g->graph);
    free(ones);
    if (rc != MPI_SUCCESS)
        sg = mpi_fail(rc, "MPI_Dist_graph_create_adjacent");
    if (sg == CM_OK) {
        MPI_Comm_set_errhandler(g->graph, MPI_ERRORS_RETURN);
        rc = MPI_Type_contiguous((int)len, MPI_FLOAT, &g->arr);
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_commit(&g->arr);
        if (rc != MPI_SUCCESS)
            sg = mpi_fail(rc, "MPI_Type_contiguous");
    }
    s = dt_comm_agree(comm, sg);
    if (s != CM_OK)
        goto fail;
    g->st.peers = (size_t)g->npeers;
    g->st.arrays_sent = g->nsend;
    g->st.bytes_round = (uint64_t)g->nsend * len * sizeof(float);
    *out = g;
    return CM_OK;
fail:
    if (g) {
        if (g->arr != MPI_DATATYPE_NULL)
            MPI_Type_free(&g->arr);
        if (g->graph != MPI_COMM_NULL)
            MPI_Comm_free(&g->graph);
        gossip_free_local(g);
    }
    return s;
}

void dt_gossip_free(dt_gossip *g)
{
    if (!g)
        return;
    if (g->active)
        MPI_Wait(&g->req, MPI_STATUS_IGNORE);
    if (g->arr != MPI_DATATYPE_NULL)
        MPI_Type_free(&g->arr);
    if (g->graph != MPI_COMM_NULL)
        MPI_Comm_free(&g->graph);
    gossip_free_local(g);
}

cm_status dt_gossip_start(dt_gossip *g, float *const *x)
{
    if (g->active)
        return cm_error(CM_EINVAL, "gossip round already started");
    double t0 = cm_time_now();
    for (size_t i = 0; i < g->count; i++)
        g->x[i] = x[i];
    for (size_t k = 0; k < g->nsend; k++)
        memcpy(g->sendbuf + k * g->len, x[g->send_local[k]],
               g->len * sizeof(float));
    double t1 = cm_time_now();
    g->st.t_mix += t1 - t0;
    if (g->npeers > 0) {
        int rc = MPI_Ineighbor_alltoallv(g->sendbuf, g->scount, g->sdispl,
                                         g->arr, g->recvbuf, g->rcount,
                                         g->rdispl, g->arr, g->graph,
                                         &g->req);
        g->st.t_mpi += cm_time_now() - t1;
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Ineighbor_alltoallv");
    }
    g->active = 1;
    return CM_OK;
}

cm_status dt_gossip_finish(dt_gossip *g, float *const *out)
{
    if (!g->active)
        return cm_error(CM_EINVAL, "gossip round not started");
    double t0 = cm_time_now();
    g->active = 0;
    if (g->npeers > 0) {
        int rc = MPI_Wait(&g->req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Wait (gossip)");
    }
    double t1 = cm_time_now();
    const size_t len = g->len;
    double *acc = g->acc;
    for (size_t i = 0; i < g->count; i++) {
        for (size_t e = g->term_off[i]; e < g->term_off[i + 1]; e++) {
            size_t src = g->term_src[e];
            const float *xj = src < g->count
                                  ? g->x[src]
                                  : g->recvbuf + (src - g->count) * len;
            const double w = g->term_w[e];
            if (e == g->term_off[i])
                for (size_t k = 0; k < len; k++)
                    acc[k] = w * (double)xj[k];
            else
                for (size_t k = 0; k < len; k++)
                    acc[k] += w * (double)xj[k];
        }
        float *o = out[i];
        for (size_t k = 0; k < len; k++)
            o[k] = (float)acc[k];
    }
    g->st.t_mpi += t1 - t0;
    g->st.t_mix += cm_time_now() - t1;
    g->st.rounds++;
    g->st.bytes_sent += g->st.bytes_round;
    return CM_OK;
}

cm_status dt_gossip_progress(dt_gossip *g)
{
    if (!g->active || g->npeers == 0)
        return CM_OK;
    double t0 = cm_time_now();
    int done = 0;
    int rc = MPI_Test(&g->req, &done, MPI_STATUS_IGNORE);
    g->st.t_mpi += cm_time_now() - t0;
    /* A completed request becomes MPI_REQUEST_NULL; the MPI_Wait in
     * dt_gossip_finish then returns at once. */
    return rc == MPI_SUCCESS ? CM_OK : mpi_fail(rc, "MPI_Test (gossip)");
}

cm_status dt_gossip_round(dt_gossip *g, float *const *x,
                          float *const *out)
{
    cm_status s = dt_gossip_start(g, x);
    return s != CM_OK ? s : dt_gossip_finish(g, out);
}
