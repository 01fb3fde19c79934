/* dt_allreduce: the all-reduce of --mode allreduce's gradients, run as
 * --allreduce ALG says (docs/smpi.md, "All-reduce algorithms"):
 *   auto          the MPI library's own (MPI_Iallreduce; under SMPI the
 *                 blocking MPI_Allreduce, whose algorithm smpirun's
 *                 --cfg=smpi/allreduce:ALG picks): dt_comm_allreduce_sum_float;
 *   direct        a reduce-scatter by one MPI_Ialltoall (rank q sends block
 *                 j, ceil(n/P) floats, to rank j), a local sum of the P
 *                 blocks in rank order 0..P-1, then an MPI_Iallgather of
 *                 the summed blocks: two latencies whatever P, all
 *                 messages of a phase posted together;
 *   hierarchical  MPI_Comm_split into groups (the ranks of one host,
 *                 MPI_COMM_TYPE_SHARED, or `groups` blocks of consecutive
 *                 ranks as --net-hosts S places them), a reduce to each
 *                 group's first rank, an all-reduce among those leaders
 *                 (the library's), a broadcast inside each group;
 *   hierarchical-site the same with one group per site: the ranks in
 *                 blocks on --net-hosts' hosts, the hosts in blocks on
 *                 the sites of --net's site level (issue 42);
 *   han           the blocking MPI_Allreduce (of a copy padded to whole
 *                 64 kB segments: 4.1.4's han crashes in place, and
 *                 writes past a buffer that ends mid-segment): the call Open
 *                 MPI's coll/han serves (4.1.4 sets no non-blocking
 *                 function, so MPI_Iallreduce never reaches it), chosen
 *                 with `mpirun --mca coll_han_priority 100`; without it
 *                 coll/tuned's. Outside the watchdog (--timeout): a
 *                 blocking call cannot be given up.
 * Every rank gets the same sum; the sums of the three differ in their
 * order, hence in the last bits (a float sum is not associative).
 */
#ifndef DT_ALLREDUCE_H
#define DT_ALLREDUCE_H

#include <stddef.h>

#include "cm_net.h"
#include "cm_status.h"
#include "dt_comm.h"

typedef struct dt_allreduce dt_allreduce; /* opaque */

/* 1 when the trainer runs alg for real (auto, direct, hierarchical,
 * hierarchical-site); the other names of cm_net_ar_alg are only priced by
 * --net. */
int dt_allreduce_runs(cm_net_ar_alg alg);

/* An all-reduce of alg over c into *out (free with dt_allreduce_free);
 * groups: hierarchical's groups of consecutive ranks (0: by host);
 * hierarchical-site: the ranks in blocks on `groups` hosts (>= 1), the
 * hosts on the sites of net's site level (cm_net_site_of), one group per
 * site, as cm_net prices it. net (borrowed; NULL or without sites for
 * the others) is read by hierarchical-site only.
 * Collective over c (the hierarchical one splits c). CM_EINVAL for an alg
 * that does not run; CM_EMPI, CM_ENOMEM. The handle borrows c. */
cm_status dt_allreduce_new(const dt_comm *c, cm_net_ar_alg alg,
                           size_t groups, const cm_net *net,
                           dt_allreduce **out);

/* The han one (above): alg CM_AR_AUTO's sum by the blocking call. */
cm_status dt_allreduce_new_han(const dt_comm *c, dt_allreduce **out);

/* x[k] <- sum over the ranks of x[k], k < n, in place, on every rank.
 * Collective. CM_EMPI on failure, CM_EINVAL when a block does not fit an
 * MPI int count. Costs (P ranks, B = 4n bytes): direct sends (P-1)/P B
 * twice per rank; hierarchical what the library's reduce, all-reduce and
 * broadcast send. */
cm_status dt_allreduce_sum_float(dt_allreduce *a, float *x, size_t n);

/* Frees a (its sub-communicators: collective over c). Accepts NULL. */
void dt_allreduce_free(dt_allreduce *a);

#endif
