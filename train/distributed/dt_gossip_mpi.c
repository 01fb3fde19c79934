/* dt_gossip_mpi.c: the communicator wrapper (dt_comm.h) and the gossip
 * exchange (dt_gossip.h); the only file of the project that includes
 * <mpi.h>.
 *
 * Gossip follows D-PSGD (Lian et al. 2017, "Can decentralized algorithms
 * outperform centralized algorithms?"): x_i <- sum_j W_ij x_j. Which
 * arrays go to which rank and the ordered weighted sum are planned in
 * plain C (dt_gossip_plan.c); this file only moves the arrays: ranks
 * sharing a topology edge are joined in a distributed-graph communicator
 * (MPI 3.0, section 7.5.4), and one MPI_Ineighbor_alltoallv per round
 * moves the plan's send list into its receive slots. Counts are in units
 * of a contiguous datatype of len floats, so counts stay small ints.
 * Trade-off: the sum reads the caller's arrays at finish time (no copy of
 * in-rank data). Where the MPI library lacks distributed-graph
 * communicators (SimGrid's SMPI 3.32: the build of `make smpi` defines
 * DT_SMPI) or the environment sets DT_GOSSIP_P2P=1, the same plan moves by
 * one MPI_Irecv and one MPI_Isend per peer instead (p2p below): the same
 * arrays land in the same receive slots, so the sums and the bits are the
 * same (docs/smpi.md). A plan made by dt_gossip_new_placed_q (CHOCO-SGD's
 * int8/int4 q) moves each array's wire form instead (dt_compress_wire:
 * MPI_BYTE counts, packed at start, decoded into the receive slots at
 * finish), on both paths.
 * same (docs/smpi.md). Every wait goes through dt_wd_wait (dt_watchdog_mpi.c:
 * --timeout), so collectives are issued in their non-blocking forms.
 */
#include "dt_comm.h"
#include "dt_comm_mpi.h"
#include "dt_compress_wire.h"
#include "dt_gossip.h"
#include "dt_gossip_plan.h"
#include "dt_slab.h"
#include "dt_watchdog.h"
#include "dt_nbc_smpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "cm_time.h"

#define AGREE_MSG 1024

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
#ifndef DT_SMPI
        /* Started without a launcher (one worker, or every worker on one
         * rank): Open MPI's singleton would fork a support daemon (orted)
         * for spawning, which this program never does; that fork took
         * 0.5-0.6 s of each such start here. A user's own setting wins. */
        if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") &&
            !getenv("PMI_RANK"))
            setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
#endif
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

cm_status dt_comm_barrier(const dt_comm *c)
{
    MPI_Request r;
    int rc = dt_wd_fired() ? MPI_ERR_OTHER : MPI_Ibarrier(c->comm, &r);
    return rc == MPI_SUCCESS ? dt_wd_wait(&r, "a barrier")
                             : mpi_fail(rc, "MPI_Ibarrier");
}

/* In-place MPI_SUM allreduce of n elements of size esz, INT_MAX at a time.
 * Under SMPI (DT_SMPI) the blocking MPI_Allreduce: SMPI 3.32's
 * MPI_Iallreduce with MPI_IN_PLACE returns the caller's own array for
 * arrays of about 64k doubles and crashes on larger ones (measured,
 * docs/smpi.md), and the blocking call is the one SMPI's collective
 * selection (--cfg=smpi/allreduce:ALG, smpi/coll-selector) applies to. */
static cm_status allreduce_sum(const dt_comm *c, void *x, size_t n,
                               MPI_Datatype type, size_t esz)
{
    char *p = x;
    while (n > 0) {
        int k = n > INT_MAX ? INT_MAX : (int)n;
#ifdef DT_SMPI
        int rc0 = MPI_Allreduce(MPI_IN_PLACE, p, k, type, MPI_SUM, c->comm);
        if (rc0 != MPI_SUCCESS)
            return mpi_fail(rc0, "MPI_Allreduce");
        p += (size_t)k * esz;
        n -= (size_t)k;
        continue;
#endif
        MPI_Request r;
        int rc = dt_wd_fired() ? MPI_ERR_OTHER
                          : MPI_Iallreduce(MPI_IN_PLACE, p, k, type, MPI_SUM,
                                           c->comm, &r);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Iallreduce");
        cm_status s = dt_wd_wait(&r, "an all-reduce");
        if (s != CM_OK)
            return s;
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
        MPI_Request r;
        int rc = dt_wd_fired() ? MPI_ERR_OTHER
                          : MPI_Ibcast(p, k, MPI_BYTE, (int)root, c->comm, &r);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Ibcast");
        cm_status s = dt_wd_wait(&r, "a broadcast");
        if (s != CM_OK)
            return s;
        p += k;
        bytes -= (size_t)k;
    }
    return CM_OK;
}

cm_status dt_comm_agree(const dt_comm *c, cm_status local)
{
    int me = local != CM_OK ? c->rank : c->size, low = c->size;
    if (dt_wd_fired()) /* keep the timeout's message: no collective ends */
        return local != CM_OK ? local : cm_error(CM_EMPI, "the job is "
                                                 "ending (--timeout)");
    MPI_Request r;
    int rc = MPI_Iallreduce(&me, &low, 1, MPI_INT, MPI_MIN, c->comm, &r);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Iallreduce (failure agreement)");
    cm_status ws = dt_wd_wait(&r, "a failure agreement");
    if (ws != CM_OK)
        return ws;
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
    rc = MPI_Ibcast(buf, (int)sizeof buf, MPI_BYTE, low, c->comm, &r);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Ibcast (failure agreement)");
    if ((ws = dt_wd_wait(&r, "a failure agreement")) != CM_OK)
        return ws;
    int code;
    memcpy(&code, buf, sizeof code);
    buf[sizeof buf - 1] = '\0';
    return cm_error((cm_status)code, "%s", buf + sizeof(int));
}

cm_status dt_comm_agree_idle(const dt_comm *c, cm_status local)
{
    MPI_Request req;
    int rc = MPI_Ibarrier(c->comm, &req), done = 0;
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Ibarrier (idle agreement)");
    /* sleep 50 us, doubling up to 10 ms, between tests: a rank that waits
     * minutes for another's eigensolve costs no core, and at most ~10 ms
     * of latency once it arrives */
    long ns = 50000;
    done = req == MPI_REQUEST_NULL; /* dt_nbc_smpi.h: already complete */
    while (!done &&
           (rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS &&
           !done) {
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        ns = ns < 5000000 ? 2 * ns : 10000000;
    }
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Test (idle agreement)");
    return dt_comm_agree(c, local);
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

/* The plan (dt_gossip_plan.c) says what moves where and how it is summed;
 * this part only moves it: one MPI_Ineighbor_alltoallv per round over a
 * distributed-graph communicator of the plan's peers. */
struct dt_gossip {
    MPI_Comm graph;        /* distributed-graph communicator of the ranks */
    MPI_Datatype arr;      /* len contiguous floats: one worker array */
    size_t len;            /* floats per worker array */
    dt_gossip_plan plan;   /* this rank's part of the round */
    int npeers;            /* destinations of the graph communicator */
    int *peers;            /* [npeers] plan.peers as ints (dynamic: every
                              other rank) */
    int *scount, *sdispl;  /* [npeers] plan's send counts, offsets */
    int nsrcs;             /* sources of the graph communicator */
    int *srcs;             /* [nsrcs] plan.srcs as ints (dynamic: every
                              other rank) */
    int *rcount, *rdispl;  /* [nsrcs] plan's receive counts, offsets */
    int dynamic;           /* 1: the graph joins all ranks and
                              dt_gossip_retopo re-plans every round */
    size_t *owner;         /* [n] the placement (dynamic only) */
    size_t scap, rcap;     /* arrays sendbuf, recvbuf can hold */
    float *sendbuf;        /* [nsend * len] */
    float *recvbuf;        /* [nrecv * len] */
    double *acc;           /* [len] accumulator */
    const float **x;       /* [count] arrays of the round in progress */
    MPI_Request req;       /* the exchange in progress */
    int p2p;               /* 1: point-to-point path (graph is a dup of the
                              communicator, no neighbourhood collective) */
    int pack;              /* 1: the round packs sendbuf; 0 (p2p, no peer
                              gets more than one array): each message is
                              sent from the caller's array itself */
    MPI_Request *reqs;     /* [npeers + nsrcs] p2p: the round's requests */
    int nreq;              /* p2p: requests posted this round */
    int active;            /* a round is started */
    dt_gossip_stats st;    /* counters */
    /* dt_gossip_new_average only: each chunk cut into P segments, rank q
     * gets segment q of every worker (all-to-all), sums it in worker
     * order, and every rank gets every mean segment (all-gather) */
    int average;           /* 1: this is an exact average */
    const dt_comm *dc;     /* the job's communicator (not owned) */
    size_t chunk;          /* floats of each array per all-to-all */
    size_t *wcount;        /* [P] workers per rank */
    size_t *slot;          /* [n] worker j's place in gbuf, in segments */
    int *gcount, *gdispl;  /* [P] receive counts, offsets (all-to-all) */
    int *acount, *adispl;  /* [P] send counts, offsets (all-to-all) */
    int *segn, *segd;      /* [P] the chunk's segments: sizes, offsets */
    float *gbuf;           /* [n * segmax] this rank's segment of every
                              worker (segmax: chunk / P + 1, re-quantized
                              whole blocks: average_local) */
    const float **rows;    /* [n] worker j's segment in gbuf */
    float *seg;            /* [segmax] this rank's mean segment */
    float *avg;            /* [chunk] the mean's chunk */
    int requant;           /* 1: dt_gossip_new_average_q: both phases
                              move codes and scales (dt_compress_wire),
                              the mean segment quantized again (qz) */
    dt_compress qz;        /* its compressor (int8 or int4) */
    int *wn, *wd;          /* [P] requant: the segments' wire bytes,
                              offsets */
    unsigned char *swire;  /* [count * wire(chunk)] all-to-all send */
    unsigned char *gwire;  /* [n * wire(segmax)] all-to-all receive */
    unsigned char *qwire;  /* [wire(segmax)] this rank's quantized mean */
    unsigned char *awire;  /* [wire(chunk)] every quantized mean segment */
    /* dt_gossip_new_placed_q only: the round moves each worker array's
     * wire form (dt_compress_wire, qz), wb bytes, decoded into recvbuf */
    int wire;              /* 1: compressed gossip */
    size_t wb;             /* wire bytes of one worker array */
    size_t wunit;          /* bytes per count: 1 (MPI_BYTE counts), or wb
                              when those overflow an int (arr is then wb
                              contiguous bytes) */
    unsigned char *wsend;  /* [nsend * wb] the packed send list */
    unsigned char *wrecv;  /* [nrecv * wb] what arrives, before decoding */
    size_t *wdone;         /* [count] a round's send entry holding local
                              worker i's packed array, or SIZE_MAX */
};

size_t dt_gossip_first(const dt_gossip *g) { return g->plan.local[0]; }

size_t dt_gossip_count(const dt_gossip *g) { return g->plan.count; }

void dt_gossip_get_stats(const dt_gossip *g, dt_gossip_stats *s)
{
    *s = g->st;
}

static void gossip_free_local(dt_gossip *g)
{
    dt_gossip_plan_destroy(&g->plan);
    free(g->peers);
    free(g->scount);
    free(g->sdispl);
    free(g->srcs);
    free(g->rcount);
    free(g->rdispl);
    free(g->reqs);
    free(g->owner);
    dt_slab_free(g->sendbuf);
    dt_slab_free(g->recvbuf);
    free(g->acc);
    free(g->x);
    free(g->wcount);
    free(g->slot);
    free(g->gcount);
    free(g->gdispl);
    free(g->gbuf);
    free(g->rows);
    free(g->avg);
    free(g->acount);
    free(g->adispl);
    free(g->segn);
    free(g->segd);
    free(g->seg);
    free(g->wn);
    free(g->wd);
    free(g->swire);
    free(g->gwire);
    free(g->qwire);
    free(g->awire);
    free(g->wsend);
    free(g->wrecv);
    free(g->wdone);
    free(g);
}

/* Position of rank q in the dynamic neighbour list (every rank but r). */
static size_t dyn_index(size_t q, size_t r) { return q < r ? q : q - 1; }

/* Compressed gossip (static plans only): the plan's counts and offsets in
 * bytes (MPI_BYTE) when the largest fits an int, else in arrays of wb
 * bytes (arr); the wire buffers, and recvbuf for the decoded floats. */
static cm_status wire_counts(dt_gossip *g)
{
    const dt_gossip_plan *p = &g->plan;
    const size_t most = p->nsend > p->nrecv ? p->nsend : p->nrecv;
    if (most > SIZE_MAX / g->wb || p->nrecv > SIZE_MAX / sizeof(float) /
                                                   g->len)
        return cm_error(CM_EINVAL, "gossip buffers too large (%zu arrays "
                        "of %zu floats)", p->nsend + p->nrecv, g->len);
    if (g->wb > (size_t)INT_MAX)
        return cm_error(CM_EINVAL, "gossip arrays too large to send packed "
                        "(%zu bytes)", g->wb);
    g->wunit = most * g->wb <= (size_t)INT_MAX ? 1 : g->wb;
    const size_t k = g->wb / g->wunit; /* counts per array */
    g->pack = 0;
    void *b;
    g->wsend = malloc((p->nsend ? p->nsend : 1) * g->wb);
    g->wrecv = malloc((p->nrecv ? p->nrecv : 1) * g->wb);
    g->wdone = malloc((p->count ? p->count : 1) * sizeof *g->wdone);
    g->rcap = p->nrecv ? p->nrecv : 1;
    if (dt_slab_alloc(1, g->rcap * g->len, "gossip receive buffers",
                      &g->recvbuf, &b) != CM_OK)
        g->recvbuf = NULL;
    if (!g->wsend || !g->wrecv || !g->wdone || !g->recvbuf)
        return cm_error(CM_ENOMEM, "out of memory for gossip buffers");
    for (size_t a = 0; a < p->npeers; a++) {
        g->peers[a] = (int)p->peers[a];
        g->scount[a] = (int)(p->scount[a] * k);
        g->sdispl[a] = (int)(p->sdispl[a] * k);
    }
    for (size_t a = 0; a < p->nsrcs; a++) {
        g->srcs[a] = (int)p->srcs[a];
        g->rcount[a] = (int)(p->rcount[a] * k);
        g->rdispl[a] = (int)(p->rdispl[a] * k);
    }
    return CM_OK;
}

/* The datatype of the exchange's counts: a worker array (floats), or
 * (wire) a byte or a packed array. */
static MPI_Datatype xtype(const dt_gossip *g)
{
    return g->wire && g->wunit == 1 ? MPI_BYTE : g->arr;
}

/* Packs the send list's wire forms: each local array once, copied to its
 * later entries (one array may go to several peers). */
static void wire_pack(dt_gossip *g)
{
    const dt_gossip_plan *p = &g->plan;
    for (size_t i = 0; i < p->count; i++)
        g->wdone[i] = SIZE_MAX;
    for (size_t e = 0; e < p->nsend; e++) {
        const size_t i = p->send_local[e];
        unsigned char *d = g->wsend + e * g->wb;
        if (g->wdone[i] != SIZE_MAX) {
            memcpy(d, g->wsend + g->wdone[i] * g->wb, g->wb);
        } else {
            dt_compress_wire_pack(&g->qz, g->x[i], g->len, d);
            g->wdone[i] = e;
        }
    }
}

/* The plan's counts as MPI ints: static, the plan's own peer lists;
 * dynamic, zero for every other rank but the plan's peers. Grows the
 * buffers to the plan. */
static cm_status gossip_counts(dt_gossip *g)
{
    const dt_gossip_plan *p = &g->plan;
    if (p->nsend > INT_MAX || p->nrecv > INT_MAX || g->len > INT_MAX ||
        (p->nsend + p->nrecv) > SIZE_MAX / sizeof(float) / g->len)
        return cm_error(CM_EINVAL, "gossip buffers too large (%zu arrays "
                        "of %zu floats)", p->nsend + p->nrecv, g->len);
    /* p2p, every peer one array or none (one worker per rank: the SMPI
     * runs): each message goes out of the caller's array, which must stay
     * unchanged until dt_gossip_finish anyway (dt_gossip.h), so the bytes
     * sent are those packing would copy, and no send buffer is needed
     * (at 1,024 simulated ranks of degree 4, 1 MB a rank less) */
    if (g->wire) /* packed into wsend, decoded from wrecv into recvbuf */
        return wire_counts(g);
    g->pack = 1;
    if (g->p2p) {
        g->pack = 0;
        for (size_t a = 0; a < p->npeers; a++)
            if (p->scount[a] > 1)
                g->pack = 1;
    }
    /* one block each, zeroed now (dt_slab): the first round's packing
     * and receiving take no page faults */
    void *b;
    if (g->pack && (p->nsend > g->scap || !g->sendbuf)) {
        dt_slab_free(g->sendbuf);
        g->scap = p->nsend ? p->nsend : 1;
        if (dt_slab_alloc(1, g->scap * g->len, "gossip send buffers",
                          &g->sendbuf, &b) != CM_OK)
            g->sendbuf = NULL;
    }
    if (p->nrecv > g->rcap || !g->recvbuf) {
        dt_slab_free(g->recvbuf);
        g->rcap = p->nrecv ? p->nrecv : 1;
        if (dt_slab_alloc(1, g->rcap * g->len, "gossip receive buffers",
                          &g->recvbuf, &b) != CM_OK)
            g->recvbuf = NULL;
    }
    if ((g->pack && !g->sendbuf) || !g->recvbuf)
        return cm_error(CM_ENOMEM, "out of memory for gossip buffers");
    if (g->dynamic) {
        for (int a = 0; a < g->npeers; a++)
            g->scount[a] = g->sdispl[a] = g->rcount[a] = g->rdispl[a] = 0;
        for (size_t a = 0; a < p->npeers; a++) {
            size_t k = dyn_index(p->peers[a], p->rank);
            g->scount[k] = (int)p->scount[a];
            g->sdispl[k] = (int)p->sdispl[a];
        }
        for (size_t a = 0; a < p->nsrcs; a++) {
            size_t k = dyn_index(p->srcs[a], p->rank);
            g->rcount[k] = (int)p->rcount[a];
            g->rdispl[k] = (int)p->rdispl[a];
        }
        return CM_OK;
    }
    for (size_t a = 0; a < p->npeers; a++) {
        g->peers[a] = (int)p->peers[a];
        g->scount[a] = (int)p->scount[a];
        g->sdispl[a] = (int)p->sdispl[a];
    }
    for (size_t a = 0; a < p->nsrcs; a++) {
        g->srcs[a] = (int)p->srcs[a];
        g->rcount[a] = (int)p->rcount[a];
        g->rdispl[a] = (int)p->rdispl[a];
    }
    return CM_OK;
}

/* The plan, its counts as MPI ints, and the buffers: no communication. */
static cm_status gossip_local(dt_gossip *g, const cm_topo *t,
                              const size_t *owner, size_t P, size_t r)
{
    dt_gossip_plan *p = &g->plan;
    cm_status s = dt_gossip_plan_make(p, t, owner, P, r);
    if (s != CM_OK)
        return s;
    g->npeers = g->dynamic ? (int)(P - 1) : (int)p->npeers;
    g->nsrcs = g->dynamic ? (int)(P - 1) : (int)p->nsrcs;
    size_t pa = g->npeers ? (size_t)g->npeers : 1; /* never malloc(0) */
    size_t ra = g->nsrcs ? (size_t)g->nsrcs : 1;
    g->peers = malloc(pa * sizeof *g->peers);
    g->scount = malloc(pa * sizeof *g->scount);
    g->sdispl = malloc(pa * sizeof *g->sdispl);
    g->srcs = malloc(ra * sizeof *g->srcs);
    g->rcount = malloc(ra * sizeof *g->rcount);
    g->rdispl = malloc(ra * sizeof *g->rdispl);
    g->acc = malloc(g->len * sizeof *g->acc);
    g->x = calloc(p->count, sizeof *g->x);
    if (!g->peers || !g->scount || !g->sdispl || !g->srcs || !g->rcount ||
        !g->rdispl || !g->acc || !g->x)
        return cm_error(CM_ENOMEM, "out of memory for gossip buffers");
    if (g->dynamic) {
        g->owner = malloc((t->n + 1) * sizeof *g->owner);
        if (!g->owner)
            return cm_error(CM_ENOMEM, "out of memory for gossip");
        memcpy(g->owner, owner, t->n * sizeof *g->owner);
        for (size_t q = 0, k = 0; q < P; q++)
            if (q != r)
                g->peers[k] = g->srcs[k] = (int)q, k++;
    }
    return gossip_counts(g);
}

/* 1: move gossip by point-to-point messages (see the top of the file). */
static int gossip_use_p2p(void)
{
#ifdef DT_SMPI
    return 1;
#else
    const char *e = getenv("DT_GOSSIP_P2P");
    return e && strcmp(e, "1") == 0;
#endif
}

/* The p2p round: the receives first (into the plan's receive slots), then
 * the sends, one message per peer with a non-zero count (a dynamic plan
 * lists every rank, most with zero arrays: both sides skip those alike,
 * since the plan's send and receive counts of a pair agree).
 *
 * A message is count x len MPI_FLOATs, not count of g->arr, whenever that
 * fits an int (the same bytes, so the same bits): SMPI treats every
 * MPI_Type_contiguous as a derived type and, for each send and each
 * receive, mallocs a buffer of the message's size and packs or unpacks
 * through it (smpi::Request::init_buffer). With all ranks' rounds in
 * flight at once those buffers were about 2 MB per simulated rank of the
 * simulation's peak memory, and two extra copies of every array
 * (docs/smpi.md, "Memory"). Both sides pick alike: the pair's counts and
 * len agree. */
static void p2p_msg(const dt_gossip *g, int arrays, int *count,
                    MPI_Datatype *type)
{
    if ((size_t)arrays <= (size_t)INT_MAX / (g->len ? g->len : 1)) {
        *count = (int)((size_t)arrays * g->len);
        *type = MPI_FLOAT;
    } else {
        *count = arrays;
        *type = g->arr;
    }
}

static cm_status p2p_post(dt_gossip *g)
{
    g->nreq = 0;
    int count;
    MPI_Datatype type;
    for (int a = 0; a < g->nsrcs; a++) {
        if (g->rcount[a] == 0)
            continue;
        void *buf = g->recvbuf + (size_t)g->rdispl[a] * g->len;
        if (g->wire) { /* counts already in bytes (or packed arrays) */
            count = g->rcount[a];
            type = xtype(g);
            buf = g->wrecv + (size_t)g->rdispl[a] * g->wunit;
        } else {
            p2p_msg(g, g->rcount[a], &count, &type);
        }
        int rc = MPI_Irecv(buf, count, type, g->srcs[a], 0, g->graph,
                           &g->reqs[g->nreq]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Irecv (gossip)");
        g->nreq++;
    }
    for (int a = 0; a < g->npeers; a++) {
        if (g->scount[a] == 0)
            continue;
        const void *buf;
        if (g->wire) {
            count = g->scount[a];
            type = xtype(g);
            buf = g->wsend + (size_t)g->sdispl[a] * g->wunit;
        } else {
            p2p_msg(g, g->scount[a], &count, &type);
            buf = g->pack ? g->sendbuf + (size_t)g->sdispl[a] * g->len
                          : g->x[g->plan.send_local[g->sdispl[a]]];
        }
        int rc = MPI_Isend(buf, count, type, g->peers[a], 0, g->graph,
                           &g->reqs[g->nreq]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Isend (gossip)");
        g->nreq++;
    }
    return CM_OK;
}

cm_status dt_gossip_new(const dt_comm *comm, const cm_topo *t, size_t len,
                        dt_gossip **out)
{
    const size_t P = dt_comm_size(comm);
    size_t *owner = NULL;
    cm_status s = CM_OK;
    *out = NULL;
    if (P > t->n)
        s = cm_error(CM_EINVAL, "%zu MPI ranks but the topology has only "
                     "%zu nodes: run at most %zu ranks (mpirun -np %zu)",
                     P, t->n, t->n, t->n);
    else if (!(owner = malloc(t->n * sizeof *owner)))
        s = cm_error(CM_ENOMEM, "out of memory for gossip");
    else
        dt_gossip_plan_blocks(t->n, P, owner);
    s = dt_comm_agree(comm, s);
    if (s == CM_OK)
        s = dt_gossip_new_placed(comm, t, owner, len, out);
    free(owner);
    return s;
}

static cm_status gossip_new(const dt_comm *comm, const cm_topo *t,
                            const size_t *owner, size_t len, int dynamic,
                            const dt_compress *c, dt_gossip **out);

cm_status dt_gossip_new_placed(const dt_comm *comm, const cm_topo *t,
                               const size_t *owner, size_t len,
                               dt_gossip **out)
{
    return gossip_new(comm, t, owner, len, 0, NULL, out);
}

cm_status dt_gossip_new_placed_q(const dt_comm *comm, const cm_topo *t,
                                 const size_t *owner, size_t len,
                                 const dt_compress *c, dt_gossip **out)
{
    return gossip_new(comm, t, owner, len, 0, c, out);
}

cm_status dt_gossip_new_dynamic(const dt_comm *comm, const cm_topo *t,
                                const size_t *owner, size_t len,
                                dt_gossip **out)
{
    return gossip_new(comm, t, owner, len, 1, NULL, out);
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
    size_t P = g->plan.P, r = g->plan.rank;
    cm_status s = dt_gossip_plan_make(&g->plan, t, g->owner, P, r);
    if (s != CM_OK)
        return s;
    s = gossip_counts(g);
    g->st.arrays_sent = g->plan.nsend;
    g->st.bytes_round = (uint64_t)g->plan.nsend * g->len * sizeof(float);
    g->st.bytes_mem_round = dt_gossip_plan_mem_bytes(&g->plan, g->len);
    return s;
}

static cm_status gossip_new(const dt_comm *comm, const cm_topo *t,
                            const size_t *owner, size_t len, int dynamic,
                            const dt_compress *c, dt_gossip **out)
{
    const size_t P = dt_comm_size(comm), r = dt_comm_rank(comm);
    cm_status s = CM_OK;
    *out = NULL;
    dt_gossip *g = calloc(1, sizeof *g);
    if (g) {
        g->graph = MPI_COMM_NULL;
        g->arr = MPI_DATATYPE_NULL;
        g->dynamic = dynamic;
        g->p2p = gossip_use_p2p();
        g->wire = c && dt_compress_active(c);
        if (g->wire) {
            g->qz = *c;
            g->wb = dt_compress_wire_bytes(c, len);
        }
    }
    if (!g) {
        s = cm_error(CM_ENOMEM, "out of memory for gossip");
    } else if (!t->adj_w || !t->self) {
        s = cm_error(CM_EINVAL, "gossip needs a weighted topology (set "
                     "weights with --weights)");
    } else if (len == 0) {
        s = cm_error(CM_EINVAL, "gossip of empty arrays (len 0)");
    } else {
        g->len = len;
        s = gossip_local(g, t, owner, P, r);
        size_t nr = (size_t)g->npeers + (size_t)g->nsrcs;
        if (s == CM_OK && g->p2p &&
            !(g->reqs = malloc((nr ? nr : 1) * sizeof *g->reqs)))
            s = cm_error(CM_ENOMEM, "out of memory for gossip requests");
    }
    s = dt_comm_agree(comm, s);
    if (s != CM_OK)
        goto fail;
    /* Edge weights of 1 rather than MPI_UNWEIGHTED: Open MPI's sentinel
     * is a zero-length array that trips GCC's -Wstringop-overread. The
     * graph is only a neighbour list; reorder = 0 keeps rank numbers. */
    int nmax = g->npeers > g->nsrcs ? g->npeers : g->nsrcs;
    int *ones = malloc((size_t)(nmax ? nmax : 1) * sizeof *ones);
    cm_status sg = CM_OK;
    int rc = MPI_SUCCESS;
    if (!ones) {
        sg = cm_error(CM_ENOMEM, "out of memory for the gossip graph");
    } else {
        for (int k = 0; k < nmax; k++)
            ones[k] = 1;
    }
    sg = dt_comm_agree(comm, sg);
    if (sg != CM_OK) {
        free(ones);
        s = sg;
        goto fail;
    }
    /* sources (whom this rank receives from) and destinations differ
     * for a directed topology */
    if (g->p2p) /* a private context: no match with other traffic */
        rc = MPI_Comm_dup(comm->comm, &g->graph);
    else
        rc = MPI_Dist_graph_create_adjacent(comm->comm, g->nsrcs, g->srcs,
                                            ones, g->npeers, g->peers, ones,
                                            MPI_INFO_NULL, 0, &g->graph);
    free(ones);
    if (rc != MPI_SUCCESS)
        sg = mpi_fail(rc, g->p2p ? "MPI_Comm_dup (gossip)"
                                 : "MPI_Dist_graph_create_adjacent");
    if (sg == CM_OK) {
        MPI_Comm_set_errhandler(g->graph, MPI_ERRORS_RETURN);
        rc = g->wire && g->wunit == 1
                 ? MPI_SUCCESS /* MPI_BYTE counts: xtype */
                 : g->wire ? MPI_Type_contiguous((int)g->wb, MPI_BYTE, &g->arr)
                           : MPI_Type_contiguous((int)len, MPI_FLOAT, &g->arr);
        if (rc == MPI_SUCCESS && g->arr != MPI_DATATYPE_NULL)
            rc = MPI_Type_commit(&g->arr);
        if (rc != MPI_SUCCESS)
            sg = mpi_fail(rc, "MPI_Type_contiguous");
    }
    s = dt_comm_agree(comm, sg);
    if (s != CM_OK)
        goto fail;
    g->st.peers = g->dynamic ? (size_t)g->npeers : g->plan.npeers;
    g->st.arrays_sent = g->plan.nsend;
    g->st.bytes_round = (uint64_t)g->plan.nsend *
                        (g->wire ? g->wb : len * sizeof(float));
    g->st.bytes_mem_round = dt_gossip_plan_mem_bytes(&g->plan, len);
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
    if (g->active && !dt_wd_fired()) { /* after a timeout it may never
                                           finish */
        if (g->p2p)
            MPI_Waitall(g->nreq, g->reqs, MPI_STATUSES_IGNORE);
        else
            MPI_Wait(&g->req, MPI_STATUS_IGNORE);
    }
    if (g->arr != MPI_DATATYPE_NULL)
        MPI_Type_free(&g->arr);
    if (g->graph != MPI_COMM_NULL)
        MPI_Comm_free(&g->graph);
    gossip_free_local(g);
}

/* ---- exact average ---------------------------------------------------- */

/* Gathered floats per chunk, over all workers: 32 MiB on rank 0. */
#define AVERAGE_CHUNK_FLOATS ((size_t)8 << 20)

/* The P segments of a chunk of c floats into g->segn, g->segd: c / P
 * each, the first c mod P one more; re-quantized (g->requant), whole
 * blocks of DT_COMPRESS_BLOCK (the chunk's last one may be short), the
 * first (blocks mod P) ranks one block more, ranks past the last block
 * none, so each segment starts on the whole array's block grid (chunks
 * start on it: average_local). */
static void average_segments(dt_gossip *g, size_t c)
{
    const size_t P = g->plan.P, B = DT_COMPRESS_BLOCK;
    const size_t nb = (c + B - 1) / B;
    for (size_t q = 0; q < P; q++) {
        size_t d = q ? (size_t)g->segd[q - 1] + (size_t)g->segn[q - 1] : 0;
        size_t k = g->requant ? (nb / P + (q < nb % P)) * B
                              : c / P + (q < c % P);
        g->segd[q] = (int)d;
        g->segn[q] = (int)(k < c - d ? k : c - d);
    }
}

/* Counts and buffers of an exact average for rank r of P. */
static cm_status average_local(dt_gossip *g, size_t n, const size_t *owner,
                               size_t P, size_t r)
{
    dt_gossip_plan *p = &g->plan;
    p->n = n;
    p->P = P;
    p->rank = r;
    for (size_t j = 0; j < n; j++)
        p->count += owner[j] == r;
    if (p->count == 0)
        return cm_error(CM_EINVAL, "rank %zu holds no worker", r);
    g->chunk = AVERAGE_CHUNK_FLOATS / n;
    if (g->chunk == 0)
        g->chunk = 1;
    if (g->requant) /* every chunk starts on the block grid */
        g->chunk = g->chunk < DT_COMPRESS_BLOCK
                       ? DT_COMPRESS_BLOCK
                       : g->chunk / DT_COMPRESS_BLOCK * DT_COMPRESS_BLOCK;
    if (g->chunk > g->len)
        g->chunk = g->len;
    p->local = malloc(p->count * sizeof *p->local);
    g->x = calloc(p->count, sizeof *g->x);
    g->sendbuf = malloc(p->count * g->chunk * sizeof *g->sendbuf);
    g->avg = malloc(g->chunk * sizeof *g->avg);
    if (!p->local || !g->x || !g->sendbuf || !g->avg)
        return cm_error(CM_ENOMEM, "out of memory for the exact average");
    for (size_t j = 0, i = 0; j < n; j++)
        if (owner[j] == r)
            p->local[i++] = j;
    const size_t segmax =
        g->requant ? ((g->chunk + DT_COMPRESS_BLOCK - 1) / DT_COMPRESS_BLOCK /
                          P + 1) * DT_COMPRESS_BLOCK
                   : g->chunk / P + 1;
    g->acc = malloc(segmax * sizeof *g->acc);
    g->wcount = calloc(P, sizeof *g->wcount);
    g->slot = malloc(n * sizeof *g->slot);
    g->gcount = malloc(P * sizeof *g->gcount);
    g->gdispl = malloc(P * sizeof *g->gdispl);
    g->acount = malloc(P * sizeof *g->acount);
    g->adispl = malloc(P * sizeof *g->adispl);
    g->segn = malloc(P * sizeof *g->segn);
    g->segd = malloc(P * sizeof *g->segd);
    g->gbuf = malloc(n * segmax * sizeof *g->gbuf);
    g->rows = malloc(n * sizeof *g->rows);
    g->seg = malloc(segmax * sizeof *g->seg);
    if (g->requant) {
        const size_t wc = dt_compress_wire_bytes(&g->qz, g->chunk);
        const size_t ws = dt_compress_wire_bytes(&g->qz, segmax);
        g->wn = malloc(P * sizeof *g->wn);
        g->wd = malloc(P * sizeof *g->wd);
        g->swire = malloc(p->count * wc);
        g->gwire = malloc(n * ws);
        g->qwire = malloc(ws);
        g->awire = malloc(wc);
        if (!g->wn || !g->wd || !g->swire || !g->gwire || !g->qwire ||
            !g->awire)
            return cm_error(CM_ENOMEM, "out of memory for the quantized "
                            "average of %zu workers", n);
    }
    if (!g->acc || !g->wcount || !g->slot || !g->gcount || !g->gdispl ||
        !g->acount || !g->adispl || !g->segn || !g->segd || !g->gbuf ||
        !g->rows || !g->seg)
        return cm_error(CM_ENOMEM, "out of memory for the exact average of "
                        "%zu workers", n);
    /* rank q's workers arrive together, in ascending id */
    size_t *first = calloc(P, sizeof *first);
    if (!first)
        return cm_error(CM_ENOMEM, "out of memory for the exact average");
    for (size_t j = 0; j < n; j++)
        g->wcount[owner[j]]++;
    for (size_t q = 1; q < P; q++)
        first[q] = first[q - 1] + g->wcount[q - 1];
    for (size_t j = 0; j < n; j++)
        g->slot[j] = first[owner[j]]++;
    free(first);
    return CM_OK;
}

cm_status dt_gossip_new_average(const dt_comm *comm, size_t n,
                                const size_t *owner, size_t len,
                                dt_gossip **out)
{
    return dt_gossip_new_average_q(comm, n, owner, len, NULL, out);
}

cm_status dt_gossip_new_average_q(const dt_comm *comm, size_t n,
                                  const size_t *owner, size_t len,
                                  const dt_compress *c, dt_gossip **out)
{
    const size_t P = dt_comm_size(comm), r = dt_comm_rank(comm);
    cm_status s = CM_OK;
    size_t *blocks = NULL;
    *out = NULL;
    dt_gossip *g = calloc(1, sizeof *g);
    if (g) {
        g->graph = MPI_COMM_NULL;
        g->arr = MPI_DATATYPE_NULL;
        g->average = 1;
        g->dc = comm;
        g->len = len;
        g->requant = c && dt_compress_active(c);
        if (g->requant)
            g->qz = *c;
    }
    if (!g)
        s = cm_error(CM_ENOMEM, "out of memory for the exact average");
    else if (g->requant && c->kind == DT_COMPRESS_TOPK)
        s = cm_error(CM_EINVAL, "a re-quantized average is for int8 and "
                     "int4, not top-k");
    else if (P > n)
        s = cm_error(CM_EINVAL, "%zu MPI ranks but only %zu workers: run at "
                     "most %zu ranks (mpirun -np %zu)", P, n, n, n);
    else if (len == 0)
        s = cm_error(CM_EINVAL, "exact average of empty arrays (len 0)");
    else if (!owner && !(blocks = malloc(n * sizeof *blocks)))
        s = cm_error(CM_ENOMEM, "out of memory for the exact average");
    if (s == CM_OK) {
        if (blocks)
            dt_gossip_plan_blocks(n, P, blocks);
        s = average_local(g, n, owner ? owner : blocks, P, r);
    }
    free(blocks);
    s = dt_comm_agree(comm, s);
    if (s != CM_OK) {
        if (g)
            gossip_free_local(g);
        return s;
    }
    /* every rank sends its workers' segments but its own to the P - 1
     * others, then its mean segment to them: floats, or (requant) their
     * wire form */
    uint64_t bytes = 0;
    for (size_t off = 0; off < len; off += g->chunk) {
        const size_t cl = len - off < g->chunk ? len - off : g->chunk;
        average_segments(g, cl);
        const size_t own = (size_t)g->segn[r];
        const size_t wc = g->requant ? dt_compress_wire_bytes(&g->qz, cl)
                                     : cl * sizeof(float);
        const size_t wo = g->requant ? dt_compress_wire_bytes(&g->qz, own)
                                     : own * sizeof(float);
        bytes += (uint64_t)g->plan.count * (wc - wo) + wo * (P - 1);
    }
    g->st.peers = P - 1;
    g->st.arrays_sent = P > 1 ? g->plan.count : 0;
    g->st.bytes_round = bytes;
    *out = g;
    return CM_OK;
}

/* The chunk's all-to-all counts and send buffer (from off, c floats):
 * segment q of every local worker for rank q, as floats or (requant)
 * packed into codes and scales (lossless for the callers' Q outputs:
 * dt_compress_wire.h); what rank r receives of each worker. */
static void average_pack(dt_gossip *g, size_t off, size_t own)
{
    const size_t cnt = g->plan.count, P = g->plan.P;
    const size_t ew = g->requant ? 1 : sizeof(float); /* bytes per count */
    const size_t wo = g->requant ? dt_compress_wire_bytes(&g->qz, own) : own;
    unsigned char *base = g->requant ? g->swire : (unsigned char *)g->sendbuf;
    unsigned char *sb = base;
    for (size_t q = 0; q < P; q++) {
        const size_t m = (size_t)g->segn[q];
        const size_t wm = g->requant ? dt_compress_wire_bytes(&g->qz, m) : m;
        g->acount[q] = (int)(cnt * wm);
        g->adispl[q] = (int)((size_t)(sb - base) / ew);
        for (size_t i = 0; i < cnt; i++, sb += wm * ew) {
            const float *src = g->x[i] + off + g->segd[q];
            if (g->requant)
                dt_compress_wire_pack(&g->qz, src, m, sb);
            else
                memcpy(sb, src, m * sizeof(float));
        }
        g->gcount[q] = (int)(g->wcount[q] * wo);
        g->gdispl[q] = q ? g->gdispl[q - 1] + g->gcount[q - 1] : 0;
    }
}

/* One exact average, chunk by chunk: segment q of the chunk (of P,
 * average_segments) of every worker goes to rank q (MPI_Ialltoallv),
 * which takes their mean in worker order (dt_gossip_plan_mean, the order
 * of every element as when one rank summed them all: the same bits on
 * any number of ranks), then every rank gets every mean segment
 * (MPI_Iallgatherv) and copies the chunk into its local outs. Each rank
 * sends and receives about a worker's array twice, like a direct
 * all-reduce; no rank receives all of them. Re-quantized (requant), both
 * phases move codes and scales (MPI_BYTE, dt_compress_wire): the
 * workers' segments packed (their floats come back bit for bit), the mean
 * segment quantized on the whole array's blocks as it is encoded (each
 * block alone, so the bits do not depend on P either). */
static cm_status average_round(dt_gossip *g, float *const *out)
{
    const size_t cnt = g->plan.count, P = g->plan.P, n = g->plan.n;
    const size_t r = g->plan.rank;
    const int rq = g->requant;
    const MPI_Datatype et = rq ? MPI_BYTE : MPI_FLOAT;
    double t_mpi = 0.0, t_mix = 0.0;
    for (size_t off = 0; off < g->len; off += g->chunk) {
        const size_t c = g->len - off < g->chunk ? g->len - off : g->chunk;
        double t0 = cm_time_now();
        average_segments(g, c);
        const size_t own = (size_t)g->segn[r];
        const size_t wo = rq ? dt_compress_wire_bytes(&g->qz, own) : own;
        average_pack(g, off, own);
        double t1 = cm_time_now();
        MPI_Request req;
        int rc = dt_wd_fired() ? MPI_ERR_OTHER
                               : MPI_Ialltoallv(rq ? (void *)g->swire
                                                   : (void *)g->sendbuf,
                                                g->acount, g->adispl, et,
                                                rq ? (void *)g->gwire
                                                   : (void *)g->gbuf,
                                                g->gcount, g->gdispl, et,
                                                g->dc->comm, &req);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Ialltoallv (exact average)");
        cm_status s = dt_wd_wait(&req, "the exact average's all-to-all");
        if (s != CM_OK)
            return s;
        double t2 = cm_time_now();
        for (size_t j = 0; j < n; j++) {
            g->rows[j] = g->gbuf + g->slot[j] * own;
            if (rq && own)
                dt_compress_wire_decode(&g->qz, g->gwire + g->slot[j] * wo,
                                        own, g->gbuf + g->slot[j] * own);
        }
        if (own)
            dt_gossip_plan_mean(g->rows, n, own, g->acc, g->seg);
        if (rq && own) /* own starts on the block grid */
            dt_compress_wire_encode(&g->qz, g->seg, own, g->qwire);
        for (size_t q = 0; rq && q < P; q++) {
            g->wn[q] = (int)dt_compress_wire_bytes(&g->qz,
                                                   (size_t)g->segn[q]);
            g->wd[q] = q ? g->wd[q - 1] + g->wn[q - 1] : 0;
        }
        double t3 = cm_time_now();
        rc = dt_wd_fired() ? MPI_ERR_OTHER
             : rq ? MPI_Iallgatherv(g->qwire, (int)wo, MPI_BYTE, g->awire,
                                    g->wn, g->wd, MPI_BYTE, g->dc->comm,
                                    &req)
                  : MPI_Iallgatherv(g->seg, (int)own, MPI_FLOAT, g->avg,
                                    g->segn, g->segd, MPI_FLOAT,
                                    g->dc->comm, &req);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "MPI_Iallgatherv (exact average)");
        if ((s = dt_wd_wait(&req, "the exact average's all-gather")) != CM_OK)
            return s;
        double t4 = cm_time_now();
        for (size_t q = 0; rq && q < P; q++)
            if (g->segn[q])
                dt_compress_wire_decode(&g->qz, g->awire + g->wd[q],
                                        (size_t)g->segn[q],
                                        g->avg + g->segd[q]);
        for (size_t i = 0; i < cnt; i++)
            memcpy(out[i] + off, g->avg, c * sizeof(float));
        t_mix += (t1 - t0) + (t3 - t2) + (cm_time_now() - t4);
        t_mpi += (t2 - t1) + (t4 - t3);
    }
    g->st.t_mix += t_mix;
    g->st.t_mpi += t_mpi;
    g->st.rounds++;
    g->st.bytes_sent += g->st.bytes_round;
    return CM_OK;
}

cm_status dt_gossip_start(dt_gossip *g, float *const *x)
{
    if (g->active)
        return cm_error(CM_EINVAL, "gossip round already started");
    double t0 = cm_time_now();
    for (size_t i = 0; i < g->plan.count; i++)
        g->x[i] = x[i];
    if (g->average) { /* no overlap: dt_gossip_finish does it all */
        g->active = 1;
        return CM_OK;
    }
    if (g->wire)
        wire_pack(g);
    else if (g->pack)
        dt_gossip_plan_pack(&g->plan, g->x, g->len, g->sendbuf);
    double t1 = cm_time_now();
    g->st.t_mix += t1 - t0;
    if (g->p2p) {
        cm_status s = p2p_post(g);
        g->st.t_mpi += cm_time_now() - t1;
        if (s != CM_OK)
            return s;
    } else if (g->npeers + g->nsrcs > 0) {
        void *sb = g->wire ? (void *)g->wsend : (void *)g->sendbuf;
        void *rb = g->wire ? (void *)g->wrecv : (void *)g->recvbuf;
        int rc = MPI_Ineighbor_alltoallv(sb, g->scount, g->sdispl, xtype(g),
                                         rb, g->rcount, g->rdispl, xtype(g),
                                         g->graph, &g->req);
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
    if (g->average)
        return average_round(g, out);
    if (g->p2p) {
        for (int k = 0; k < g->nreq; k++) {
            cm_status s = dt_wd_wait(&g->reqs[k], "the gossip exchange");
            if (s != CM_OK)
                return s;
        }
        g->nreq = 0;
    } else if (g->npeers + g->nsrcs > 0) {
        cm_status s = dt_wd_wait(&g->req, "the gossip exchange");
        if (s != CM_OK)
            return s;
    }
    double t1 = cm_time_now();
    for (size_t e = 0; g->wire && e < g->plan.nrecv; e++)
        dt_compress_wire_decode(&g->qz, g->wrecv + e * g->wb, g->len,
                                g->recvbuf + e * g->len);
    dt_gossip_plan_mix(&g->plan, g->x, g->recvbuf, g->len, g->acc, out);
    g->st.t_mpi += t1 - t0;
    g->st.t_mix += cm_time_now() - t1;
    g->st.rounds++;
    g->st.bytes_sent += g->st.bytes_round;
    return CM_OK;
}

cm_status dt_gossip_progress(dt_gossip *g)
{
    if (!g->active || g->npeers + g->nsrcs == 0 || (g->p2p && !g->nreq))
        return CM_OK;
    double t0 = cm_time_now();
    int done = 0;
    int rc = g->p2p ? MPI_Testall(g->nreq, g->reqs, &done,
                                  MPI_STATUSES_IGNORE)
                    : MPI_Test(&g->req, &done, MPI_STATUS_IGNORE);
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
