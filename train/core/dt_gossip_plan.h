/* dt_gossip_plan: the arithmetic of one gossip round, without MPI.
 *
 * A round computes, for every worker i of a weighted topology,
 *     out_i[k] = (float) sum_{j in {i} U N(i), ascending j} W_ij x_j[k]
 * with a double accumulator. Workers are placed on P ranks by an explicit
 * mapping owner[j] (today dt_gossip uses contiguous blocks; any other
 * placement plugs in here without touching the arithmetic). The plan of
 * rank r says:
 *   - which workers r holds (local[], ascending ids),
 *   - which local arrays go to which peer rank: the send list, grouped by
 *     peer ascending, each array once per peer however many of the peer's
 *     workers need it (ascending id within a peer),
 *   - where each remote array lands: receive slots grouped by sender rank
 *     ascending, ascending id within a sender (the order the sender packs),
 *   - the terms of each local worker's sum: source (local array or
 *     receive slot) and weight, in ascending neighbour id, self merged in.
 * A directed topology (cm_topo.h) sends along out-arcs and sums over
 * in-arcs: i's array goes to the ranks of its out-neighbours, and worker
 * i's terms are its in-neighbours (row i of W), so the peers a rank sends
 * to (peers) and receives from (srcs) may differ.
 * The terms are added in the same order whatever the mapping and P are,
 * so the result is bit-identical for every placement. dt_gossip_mpi.c
 * moves the send list into the receive slots (one neighbourhood
 * all-to-all); everything else is here and unit-tested without mpirun.
 */
#ifndef DT_GOSSIP_PLAN_H
#define DT_GOSSIP_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "cm_topo.h"

typedef struct {
    size_t n;            /* workers (topology nodes) */
    size_t P;            /* ranks */
    size_t rank;         /* the rank this plan is for */
    size_t count;        /* workers on this rank */
    size_t *local;       /* [count] their ids, ascending */
    size_t npeers;       /* ranks this one sends to (destinations) */
    size_t *peers;       /* [npeers] their numbers, ascending */
    size_t *scount;      /* [npeers] arrays sent to each peer */
    size_t *sdispl;      /* [npeers] first entry of each in the send list */
    size_t nsrcs;        /* ranks this one receives from (sources); for an
                            undirected topology the same as peers */
    size_t *srcs;        /* [nsrcs] their numbers, ascending */
    size_t *rcount;      /* [nsrcs] arrays received from each source */
    size_t *rdispl;      /* [nsrcs] first receive slot of each */
    size_t nsend;        /* entries in the send list */
    size_t *send_local;  /* [nsend] local index of each array sent */
    size_t nrecv;        /* receive slots */
    size_t *recv_worker; /* [nrecv] worker id arriving in each slot */
    size_t *term_off;    /* [count+1] terms of local worker i */
    size_t *term_src;    /* source of each term: < count a local index,
                            else count + receive slot */
    double *term_w;      /* W_ij of each term */
} dt_gossip_plan;

/* Zeroes p (then dt_gossip_plan_destroy is safe). */
void dt_gossip_plan_init(dt_gossip_plan *p);

/* Frees what p owns and zeroes it. Accepts a zeroed p. */
void dt_gossip_plan_destroy(dt_gossip_plan *p);

/* Owner of worker j under the contiguous-block placement: the first
 * n mod P ranks hold ceil(n/P) workers, the rest floor(n/P). Fills
 * owner[0..n) (dt_partition_block_owner). P in 1..n. */
void dt_gossip_plan_blocks(size_t n, size_t P, size_t *owner);

/* Plans rank `rank` of P for topology t (weighted: adj_w and self set) and
 * the placement owner[0..t->n) (every value < P). p initialized; its old
 * content is destroyed. CM_EINVAL when t is unweighted, P is 0, rank >= P,
 * an owner is out of range or the rank holds no worker; CM_ENOMEM.
 * O(n + m + e log e), e the edges leaving the rank's workers. */
cm_status dt_gossip_plan_make(dt_gossip_plan *p, const cm_topo *t,
                              const size_t *owner, size_t P, size_t rank);

/* Packs the send list: sendbuf[e * len ..] = x[send_local[e]], e < nsend.
 * x[i] is local worker i's array of len floats. */
void dt_gossip_plan_pack(const dt_gossip_plan *p, const float *const *x,
                         size_t len, float *sendbuf);

/* The weighted sums: out[i][k] = (float) sum over the terms of local
 * worker i, in order, of w * x_src[k], accumulated in double in acc
 * (scratch of min(len, 256) doubles; len is always enough). x_src is
 * x[src] for a local source and recvbuf + slot * len for a received one.
 * out[i] must not overlap any x array, recvbuf or acc. Runs in blocks of
 * 256 elements, all terms of a worker over one block at a time, so each
 * source array is read once and out[i] written once per round (the
 * memory traffic of a round: 4 len (terms + 1) bytes per worker). The
 * bits do not depend on the blocking. O(len * terms). */
/* The mean of n arrays x[0..n) of len floats, with the arithmetic of
 * dt_gossip_plan_mix on the complete graph with W = 11^T/n:
 * out[k] = (float) sum_{j ascending} (1/n) x_j[k] in a double
 * accumulator acc[len]. The exact average (dt_gossip_new_average) gives
 * the bits of that gossip round in O(n len) work instead of O(n^2 len). */
void dt_gossip_plan_mean(const float *const *x, size_t n, size_t len,
                         double *acc, float *out);

void dt_gossip_plan_mix(const dt_gossip_plan *p, const float *const *x,
                        const float *recvbuf, size_t len, double *acc,
                        float *const *out);

/* Bytes the in-memory part of a round streams for arrays of len floats:
 * packing reads and writes each of the nsend arrays, the sums read every
 * term's array once and write one array per local worker:
 * 4 len (2 nsend + terms + count). O(1). */
uint64_t dt_gossip_plan_mem_bytes(const dt_gossip_plan *p, size_t len);

#endif
