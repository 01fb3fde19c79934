/* cm_place: which rank (and so which host) holds which worker.
 *
 * dpsgd-train runs the n nodes of a topology as n workers spread over P
 * ranks; rank r always holds the block size b_r = floor(n/P) + (r < n mod
 * P) of workers, only *which* workers it holds is chosen here. A gossip
 * round sends, for every worker i, its parameter array once to every
 * other rank holding a neighbour of i, so the traffic of a placement is
 * its communication volume
 *
 *     V = sum_i |{rank(j) : j in N(i)} \ {rank(i)}|      arrays per round,
 *
 * and the traffic between hosts the part of V whose destination rank sits
 * on another host than rank(i). `block` puts workers b_0.. on rank 0 in
 * index order (right for a ring lattice, wrong for a learned graph whose
 * labels are random); `graph` partitions the graph to minimise V: first
 * the workers over the hosts, then each host's workers over its ranks,
 * each step by METIS (recursive and k-way on the cut, k-way on the
 * volume; cm_place_metis.h) and by the own recursive bisection (spectral
 * order + balanced Fiduccia-Mattheyses refinement of V, ties broken by
 * cut edges; cm_place.c), keeping the partition of least
 * J = V (m + 1) + cut (METIS first on ties). The placement never changes
 * the arithmetic of a round, only where it runs.
 * Shared by both programs (topogen eval --net models a placement); no MPI.
 */
#ifndef CM_PLACE_H
#define CM_PLACE_H

#include <stddef.h>

#include "cm_place_metis.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"

typedef enum {
    CM_PLACE_BLOCK, /* contiguous blocks in worker order */
    CM_PLACE_GRAPH  /* graph partition minimising the volume V */
} cm_place_kind;

/* What a placement costs per gossip round (in arrays: multiply by the
 * bytes of one parameter array for bytes). */
typedef struct {
    size_t cut_edges;      /* edges whose ends are on different ranks */
    size_t cut_edges_host; /* edges whose ends are on different hosts */
    size_t volume;         /* V: arrays sent between ranks, all ranks */
    size_t volume_host;    /* arrays sent to a rank on another host */
    size_t max_rank;       /* most arrays one rank sends */
    size_t max_rank_host;  /* most arrays one rank sends to other hosts */
    size_t hosts;          /* distinct hosts among the ranks */
} cm_place_stats;

/* Parses "block" or "graph"; CM_EINVAL naming the value otherwise. */
cm_status cm_place_parse(const char *s, cm_place_kind *kind);

/* "block" or "graph". */
const char *cm_place_name(cm_place_kind kind);

/* Workers of rank r under the block sizes: floor(n/P) + (r < n mod P). */
size_t cm_place_rank_size(size_t n, size_t P, size_t r);

/* The partitioners a graph placement step may use (a bit set). */
enum {
    CM_PLACE_USE_OWN = 1,   /* the own recursive bisection */
    CM_PLACE_USE_METIS = 2, /* METIS's three partitioners */
    CM_PLACE_USE_ALL = 3    /* both: what --placement graph runs */
};

/* Partitioners by index: 0..CM_METIS_METHODS-1 the cm_metis_method
 * values, CM_PLACE_OWN the own bisection. */
#define CM_PLACE_OWN CM_METIS_METHODS
#define CM_PLACE_PARTITIONERS (CM_METIS_METHODS + 1)

/* Which partitioner produced a placement. */
typedef struct {
    size_t won[CM_PLACE_PARTITIONERS]; /* steps (the hosts step, each
                                          host's ranks step; steps of one
                                          part do not count) each
                                          partitioner's result was kept */
    int block;                         /* 1: block placement (kind block,
                                          or a sequence's block candidate) */
    int block_kept;                    /* kind graph: 1 when block's
                                          placement was kept because it is
                                          strictly cheaper than the
                                          partitioners' (below) */
    size_t block_cost[3], part_cost[3]; /* then: (arrays across hosts,
                                          arrays, cut edges) of block's
                                          placement and of the partition
                                          it replaced */
} cm_place_how;

/* Places the t->n workers on P ranks (1 <= P <= n): rank_of[i] in 0..P-1,
 * rank r receiving exactly cm_place_rank_size(n, P, r) workers.
 * host_of_rank[r] is an arbitrary label of rank r's host (ranks with equal
 * labels share a host; NULL: one host). kind graph: hosts first, then
 * ranks inside each host; each step partitions the subgraph of its
 * workers into its parts (of exact sizes) with METIS recursive, METIS
 * k-way, METIS k-way on the volume (cm_place_metis) and the own recursive
 * bisection that minimises the volume, and keeps, in that order, the
 * first of least J = V (m + 1) + cut on that subgraph: the own code only
 * when strictly better. With one host the placement's J is so never above
 * either partitioner's alone. Over several hosts the steps' J do not add
 * up to the traffic, so the own bisection's whole placement is computed
 * too and replaces the result when strictly cheaper by (arrays across
 * hosts, arrays, cut edges): never worse than the own code alone. A pure
 * function of (t, P, host labels), the same on every machine that rounds
 * alike. Last, block's placement is priced too and kept when strictly
 * cheaper by (arrays across hosts, arrays, cut edges): graph placement
 * never sends more across hosts than block (METIS and the own code are
 * heuristics; on a learned graph of 8 workers on 4 ranks over 2 hosts
 * METIS's cut crossed 11 arrays a round, block's 10).
 * Cost: the own bisection's, a dense eigensolve O(s^3) per
 * bisection of s <= 1024 workers (larger parts are ordered by breadth-
 * first search instead) plus O(s^2 d) per refinement pass (parts above
 * 1024: two starts, at most 8 passes; above 4096 not refined: O(n + m)),
 * plus three METIS runs per step (near O(m log P)) and their repairs;
 * over several hosts twice the own bisection's cost.
 * CM_EINVAL for P = 0 or P > n, CM_ENOMEM, CM_ENUMERIC. */
cm_status cm_place_workers(const cm_topo *t, size_t P,
                           const size_t *host_of_rank, cm_place_kind kind,
                           size_t *rank_of);

/* cm_place_workers with only the partitioners in use (CM_PLACE_USE_*;
 * CM_PLACE_USE_ALL is cm_place_workers) and, when how is not NULL, which
 * ones won (zeroed first; block_kept when block's placement replaced
 * them, which only CM_PLACE_USE_ALL considers). A METIS run that fails
 * (other than for memory) is left out as a candidate; CM_ENUMERIC when
 * use is METIS alone and all three fail at a step. Cost and errors as
 * cm_place_workers. */
cm_status cm_place_workers_how(const cm_topo *t, size_t P,
                               const size_t *host_of_rank,
                               cm_place_kind kind, unsigned use,
                               size_t *rank_of, cm_place_how *how);

/* How as one phrase into buf[size] (returns buf): "" for no step (one
 * part), "block", the partitioner's name ("METIS k-way", "own
 * bisection") when one won every step, else each with its steps
 * ("METIS k-way 1 step, own bisection 2 steps"); block_kept: "block, 10
 * arrays across hosts against the partition's 11" (the first of the
 * three costs that differs: "arrays", "cut edges"). */
char *cm_place_how_describe(const cm_place_how *how, char *buf, size_t size);

/* Places the s->n workers of a time-varying topology (as
 * cm_place_workers; period 1: exactly cm_place_workers on its round).
 * kind graph: of the candidates, the graph placement of the union of the
 * rounds' edges (cm_topo_seq_union), the graph placement of each round
 * alone, and block, the one whose traffic over the period is least:
 * summed over the rounds, arrays across hosts first, then arrays, then
 * cut edges (cm_place_eval of each round); the earlier candidate, the
 * union's first, on ties. The union alone can mislead: it counts a
 * worker's array once however many rounds send it. Cost: period + 1
 * graph placements plus O(period (n d + P)) per candidate. CM_EINVAL,
 * CM_ENOMEM, CM_ENUMERIC as cm_place_workers. */
cm_status cm_place_workers_seq(const cm_topo_seq *s, size_t P,
                               const size_t *host_of_rank,
                               cm_place_kind kind, size_t *rank_of);

/* cm_place_workers_seq that also says (how, may be NULL) which
 * partitioner made the candidate kept. */
cm_status cm_place_workers_seq_how(const cm_topo_seq *s, size_t P,
                                   const size_t *host_of_rank,
                                   cm_place_kind kind, size_t *rank_of,
                                   cm_place_how *how);

/* One rank's share of a round, per link class c: 0 = to ranks on the same
 * host, 1 = to ranks on other hosts. */
typedef struct {
    size_t arrays[2];    /* arrays the rank sends */
    size_t arrays_in[2]; /* arrays the rank receives */
    size_t peers[2];     /* ranks it exchanges with (one message each way) */
} cm_place_load;

/* The costs of the placement rank_of (as above; host_of_rank may be NULL
 * for one host). load (optional, [P]) receives each rank's share.
 * CM_EINVAL when a rank_of entry is >= P, CM_ENOMEM. O(n d + P). */
cm_status cm_place_eval(const cm_topo *t, size_t P,
                        const size_t *host_of_rank, const size_t *rank_of,
                        cm_place_load *load, cm_place_stats *st);

#endif
