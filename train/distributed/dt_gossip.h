/* dt_gossip: one gossip-averaging round x_i <- sum_j W_ij x_j of the n
 * workers of a topology, spread over the P ranks of a communicator.
 * A directed topology sends along its arcs: the graph communicator's
 * sources (ranks holding in-neighbours) and destinations (ranks holding
 * out-neighbours) then differ.
 *
 * Placement: dt_gossip_new puts workers on ranks in contiguous blocks
 * (dt_partition_block_range): rank r holds workers first..first+count-1,
 * the first n mod P ranks one more than the rest; dt_gossip_new_placed
 * takes any placement owner[j]. What moves where and the weighted sum are
 * planned in plain C by dt_gossip_plan (unit-tested without MPI). Setup
 * builds an MPI distributed-graph communicator
 * (MPI_Dist_graph_create_adjacent) whose edges join ranks that share a
 * topology edge, works out once which local worker arrays each neighbour
 * rank needs, and allocates the send and receive buffers once.
 *
 * A round is split in two so the trainer can overlap it with the gradient
 * computation: dt_gossip_start copies the arrays other ranks need into the
 * send buffer and starts one MPI_Ineighbor_alltoallv; dt_gossip_finish
 * waits for it and computes, for each local worker i,
 *     out_i[k] = (float) sum_{j in {i} U N(i), ascending j} W_ij x_j[k]
 * with a double accumulator, reading in-rank x_j from the caller's arrays
 * and cross-rank x_j from the receive buffer. The terms are added in the
 * same order whatever P is, so the result is bit-identical for every P.
 * One plan has at most one round started; rounds of different plans (each
 * its own graph communicator and buffers) may be in flight together and
 * finished in any order the ranks share, as dpsgd-train --staleness S
 * keeps S + 1 plans of one graph (tests/mpi/mpi_check_gossip.c,
 * rounds_in_flight).
 *
 * The MPI communicator type never appears here; the implementation is in
 * dt_gossip_mpi.c.
 */
#ifndef DT_GOSSIP_H
#define DT_GOSSIP_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "cm_topo.h"
#include "dt_comm.h"
#include "dt_compress.h"

typedef struct dt_gossip dt_gossip; /* opaque; see dt_gossip_new */

typedef struct {
    uint64_t rounds;       /* completed rounds (dt_gossip_finish calls) */
    uint64_t bytes_sent;   /* bytes this rank sent over MPI, cumulative */
    uint64_t bytes_round;  /* bytes this rank sends per round */
    uint64_t bytes_mem_round; /* bytes the in-memory part streams per
                                 round (dt_gossip_plan_mem_bytes) */
    size_t peers;          /* neighbour ranks in the graph communicator */
    size_t arrays_sent;    /* worker arrays sent per round (over all peers) */
    double t_mix;          /* s in memory: packing + the weighted sums */
    double t_mpi;          /* s in MPI: starting the exchange + waiting */
} dt_gossip_stats;

/* Sets up gossip of float arrays of len elements on topology t (validated
 * and weighted: adj_w and self set) over the ranks of comm. Collective over
 * comm; every rank passes the same t and len. The ranks agree on failure
 * (dt_comm_agree), so every rank gets the same status and message:
 * CM_EINVAL when P > n ("N MPI ranks but the topology has only n nodes"),
 * when t has no weights, or when len is 0 or too large for MPI counts;
 * CM_ENOMEM, CM_EMPI. t is copied where needed and may be freed after.
 * Cost: O(n + m) per rank and one graph-communicator creation. *out is
 * freed with dt_gossip_free. */
cm_status dt_gossip_new(const dt_comm *comm, const cm_topo *t, size_t len,
                        dt_gossip **out);

/* As dt_gossip_new, for the placement owner[0..t->n) (worker j on rank
 * owner[j] < P; every rank must hold at least one worker and pass the
 * same owner). dt_gossip_first / dt_gossip_count then describe the
 * rank's workers only when they are contiguous. */
cm_status dt_gossip_new_placed(const dt_comm *comm, const cm_topo *t,
                               const size_t *owner, size_t len,
                               dt_gossip **out);

/* As dt_gossip_new_placed, with the arrays sent compressed by c (NULL or
 * none: dt_gossip_new_placed). dt_gossip_start packs each array another
 * rank needs into its wire form (dt_compress_wire_pack: int8/int4 a float
 * scale and the codes per block of DT_COMPRESS_BLOCK, top-k its k
 * (index, value) pairs; dt_compress_wire_bytes(c, len) bytes an array,
 * once per local array however many peers get it), the exchange moves those
 * bytes (MPI_BYTE counts; both the neighbourhood collective and the
 * DT_GOSSIP_P2P path), and dt_gossip_finish decodes each received array
 * into floats before the same weighted sum. The callers' arrays must be
 * Q's output (dt_compress_apply(c, .) of a whole array, as CHOCO-SGD's
 * q): the decode then gives their floats bit for bit, so the sums, the
 * bits and their P-invariance are those of the float plan; an input Q
 * did not make (a block no scale reproduces, a non-finite value, more
 * than k non-zero values) is compressed by Q on the way, and only for the
 * peers on other ranks. In-rank
 * arrays are read as floats, as in every plan (the one-process build packs
 * nothing). bytes_round counts the wire bytes. c is copied. */
cm_status dt_gossip_new_placed_q(const dt_comm *comm, const cm_topo *t,
                                 const size_t *owner, size_t len,
                                 const dt_compress *c, dt_gossip **out);

/* As dt_gossip_new_placed, for a topology that changes every round (an
 * epidemic one, cm_topo_epidemic_draw): the graph communicator joins
 * every pair of ranks once, t is the first round's graph, and
 * dt_gossip_retopo gives each later round's. A round moves only the
 * arrays of the current graph's arcs (the other counts are 0). */
cm_status dt_gossip_new_dynamic(const dt_comm *comm, const cm_topo *t,
                                const size_t *owner, size_t len,
                                dt_gossip **out);

/* The exact average of the n workers (worker j on rank owner[j]; NULL:
 * the contiguous blocks of dt_gossip_new): a round writes every local
 * out_i = the bits of the complete graph's round with W = 11^T/n
 * (dt_gossip_plan_mean: ascending j, double accumulator), the same on any
 * number of ranks. In column chunks of at most 8 Mi floats in all, each
 * cut into P segments: rank q receives segment q of every worker (an
 * all-to-all), sums it, and all-gathers the mean: O(n len / P) work and
 * memory O(min(n len, 8 Mi) / P) a rank, each rank sending and receiving
 * about two arrays, where the complete graph's plan makes every worker
 * sum all n arrays (O(n^2 len)). Its
 * round does not overlap (dt_gossip_start only records x). Collective;
 * the ranks agree on failure: CM_EINVAL when P > n or len is 0,
 * CM_ENOMEM. Free with dt_gossip_free; dt_gossip_retopo refuses it. */
cm_status dt_gossip_new_average(const dt_comm *comm, size_t n,
                                const size_t *owner, size_t len,
                                dt_gossip **out);

/* As dt_gossip_new_average, with the mean quantized a second time: the
 * two-way quantized all-reduce that torchft runs for Streaming DiLoCo
 * (quantize, all-to-all, dequantize and sum in fp32, re-quantize the
 * reduced segment, all-gather, dequantize), which is what a direct
 * all-reduce of the compressed array (2 (P-1)/P dt_compress_bytes a rank,
 * the price topogen plan and the experiments charge) can carry. Each
 * segment owner takes its segment's mean exactly as dt_gossip_new_average
 * does (double accumulator, ascending worker), quantizes it with c on the
 * block grid of the whole array (block b covers values [256 b, 256 b +
 * 256) of the len: chunks and segments are cut on multiples of
 * DT_COMPRESS_BLOCK), and the all-gather carries the dequantized result,
 * so every local out is dt_compress_apply(c, the exact mean) bit for bit,
 * the same on any number of ranks. Both phases move the wire form of
 * dt_compress_wire.h (codes and block scales, MPI_BYTE; bytes_round
 * counts them): each worker's segments packed, which gives back its
 * floats bit for bit when Q made them on this grid (the callers' inputs:
 * dt_compress_ef's q); any other block of an input is quantized by c on
 * the way, in every build (the one-rank build packs and decodes too, so
 * the bits stay P-invariant). There is no error feedback on this
 * second quantization (torchft keeps none); the callers' inputs carry
 * their own (dt_compress_ef). c is int8 or int4; NULL or none gives
 * dt_gossip_new_average; top-k has no re-quantized reduce (a sum of
 * sparse arrays is not sparse on the same indices) and is refused
 * (CM_EINVAL): the trainer averages top-k arrays exactly (one-way). c is
 * copied. */
cm_status dt_gossip_new_average_q(const dt_comm *comm, size_t n,
                                  const size_t *owner, size_t len,
                                  const dt_compress *c, dt_gossip **out);

/* Re-plans a dynamic g for topology t (weighted, g's node count) on the
 * same placement; no round may be in progress. Local (no communication):
 * every rank must pass the same t before its next dt_gossip_start.
 * CM_EINVAL for a static g, a round in progress or another n; CM_ENOMEM.
 * O(n + m + e log e) as dt_gossip_plan_make. */
cm_status dt_gossip_retopo(dt_gossip *g, const cm_topo *t);

/* Frees g (collective: frees its MPI communicator). Accepts NULL. */
void dt_gossip_free(dt_gossip *g);

/* The lowest-numbered worker held by this rank. */
size_t dt_gossip_first(const dt_gossip *g);

/* The number of workers held by this rank (>= 1). */
size_t dt_gossip_count(const dt_gossip *g);

/* Starts a round. x[i] is the len-float array of local worker first+i,
 * i < count. The arrays needed by other ranks are copied now; the in-rank
 * ones are read by dt_gossip_finish, so x and the arrays it points to must
 * stay valid and unchanged until then (the trainer may read them, e.g. to
 * compute gradients); dt_gossip never writes them (the pointer type is
 * non-const only so that a float ** converts without a cast). Collective over the ranks of g. CM_EINVAL when a
 * round is already started; CM_EMPI on MPI failure. */
cm_status dt_gossip_start(dt_gossip *g, float *const *x);

/* Finishes the round begun by dt_gossip_start: waits for the exchange and
 * writes out[i][k] = sum_j W_ij x_j[k] (see the top of this header) for
 * each local worker i. out[i] must not overlap any x array. Cost
 * O(len * (count + local edges)) flops plus the wait. CM_EINVAL when no
 * round is started; CM_EMPI on MPI failure. */
cm_status dt_gossip_finish(dt_gossip *g, float *const *out);

/* Lets MPI advance the round in progress (one MPI_Test; Open MPI moves
 * nonblocking collectives forward only inside MPI calls, so a trainer that
 * overlaps may call this between layers). No-op when no round is active
 * or when the round needs no MPI. CM_EMPI on failure. */
cm_status dt_gossip_progress(dt_gossip *g);

/* dt_gossip_start then dt_gossip_finish, without overlap. */
cm_status dt_gossip_round(dt_gossip *g, float *const *x,
                          float *const *out);

/* Copies g's counters (this rank's) into *s. */
void dt_gossip_get_stats(const dt_gossip *g, dt_gossip_stats *s);

#endif
