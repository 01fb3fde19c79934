/* cm_net: a time model of one gossip round on a network of hosts.
 *
 * Two link classes: c = 0 between ranks on the same host (shared memory),
 * c = 1 between hosts. A message of b bytes on class c costs the Hockney
 * time alpha_c + b / beta_c (latency in seconds, bandwidth in bytes per
 * second). In a round rank r exchanges one message with each of its
 * peers_c(r) peer ranks and sends arrays_c(r) (receives arrays_in_c(r))
 * parameter arrays of B bytes (cm_place_load). Messages of one class go
 * out one after the other, the two classes run at the same time, sending
 * and receiving overlap (full duplex), and the ranks of one host share
 * its network link, so between hosts the bandwidth term counts the
 * arrays of the whole host h(r):
 *
 *   T_0(r) = peers_0(r) alpha_0 + max(arrays_0(r), arrays_in_0(r)) B / beta_0
 *   T_1(r) = peers_1(r) alpha_1 + max(S_h, R_h) B / beta_1,
 *            S_h, R_h = sum over the ranks of h(r) of arrays_1, arrays_in_1
 *   T(r)   = max(T_0(r), T_1(r))          T_round = max_r T(r)
 *
 * (the worst rank decides: a synchronous round ends when the slowest rank
 * has its arrays). In-rank neighbours cost nothing here (memory).
 * Presets (round numbers; sources in train/README.md "Running across
 * hosts", "assumed" where no source gives the number directly):
 *   datacenter  intra 1 us, 10 GB/s;    inter 25 us, 3 GB/s (25 Gb/s Ethernet)
 *   wan         intra 1 us, 10 GB/s;    inter 50 ms, 12.5 MB/s (100 Mb/s)
 *   intra 1 us: measured here (scripts/bench-net.sh); 10 GB/s: assumed
 *     (a shared-memory copy on a current server).
 *   inter 3 GB/s: a 25 Gb/s cloud instance's bandwidth, usable in full
 *     within a Region (AWS, "Amazon EC2 instance network bandwidth").
 *   inter 25 us: assumed, tuned kernel TCP; untuned cloud VMs in one
 *     zone see round trips up to ~500 us (80th percentile, E. Jones 2021,
 *     Google Cloud; Barroso et al., "Attack of the Killer Microseconds",
 *     CACM 2017: tens to hundreds of microseconds).
 *   wan 50 ms: half a ~100-130 ms intercontinental round trip (public
 *     mtr / latency tables, 2021); 12.5 MB/s: assumed, WAN one to two
 *     orders below LAN bandwidth (Hsieh et al., Gaia, NSDI 2017).
 * Explicit: "intra=ALPHA,BETA;inter=ALPHA,BETA" with ALPHA a number of
 * seconds or with a unit s, ms, us, ns, and BETA bytes per second or with
 * a unit B/s, kB/s, MB/s, GB/s, Mb/s, Gb/s (SI: 1 kB = 1000 B); either
 * class may be omitted and keeps the datacenter value.
 */
#ifndef CM_NET_H
#define CM_NET_H

#include <stddef.h>

#include "cm_place.h"
#include "cm_status.h"

typedef struct {
    double alpha[2]; /* latency per message, seconds: [0] intra, [1] inter */
    double beta[2];  /* bandwidth, bytes per second */
    char name[32];   /* preset name, or "custom" */
} cm_net;

/* Parses a preset name or "intra=A,B;inter=A,B" (above). CM_EINVAL with a
 * message naming --net and the bad part otherwise (alpha must be >= 0 and
 * finite, beta > 0 and finite). */
cm_status cm_net_parse(const char *spec, cm_net *net);

/* One line describing net: "datacenter (intra 1 us, 10 GB/s; inter ...)".
 * Writes at most size bytes to buf; returns buf. */
char *cm_net_describe(const cm_net *net, char *buf, size_t size);

/* T_round = max_r T(r) over the P ranks' loads for arrays of array_bytes
 * bytes; host_of_rank[r] labels rank r's host (equal labels: same host;
 * NULL: one host). *worst (may be NULL) receives the rank that decides
 * (the lowest on ties). O(P^2) for the host sums (once per run). */
double cm_net_round_time(const cm_net *net, const cm_place_load *load,
                         const size_t *host_of_rank, size_t P,
                         double array_bytes, size_t *worst);

/* One placement and its modelled round. */
typedef struct {
    cm_place_stats st;  /* costs per round, in arrays */
    double round_s;     /* T_round */
    size_t worst;       /* the rank that decides */
    cm_place_how how;   /* which partitioner placed the workers */
} cm_net_eval;

/* Places t's workers on P ranks spread over H hosts in blocks (host h
 * holds ranks sum_{g<h} b_g .. as mpirun fills a hostfile slot by slot,
 * b_h = floor(P/H) + (h < P mod H)) by kind, and models a round of arrays
 * of array_bytes bytes. CM_EINVAL naming the count when P is 0 or > n, or
 * H is 0 or > P; CM_ENOMEM. Cost: cm_place_workers plus O(n d + P^2). */
cm_status cm_net_eval_placement(const cm_net *net, const cm_topo *t,
                                size_t P, size_t H, cm_place_kind kind,
                                double array_bytes, cm_net_eval *out);

/* Ring all-reduce of an array of `bytes` bytes over n participants joined
 * by link class cls (0 intra, 1 inter): the standard bandwidth-optimal
 * ring (reduce-scatter then all-gather; Thakur, Rabenseifner and Gropp,
 * "Optimization of collective communication operations in MPICH", IJHPCA
 * 2005; Patarasuk and Yuan, JPDC 2009): 2(n-1) steps, in each of which
 * every participant sends and receives one chunk of bytes/n, so
 *
 *   T_ring = 2(n-1) alpha_cls + 2 (n-1)/n bytes / beta_cls   (0 for n <= 1)
 *
 * A model of the traffic, not of what MPI_Allreduce does (its library
 * picks an algorithm by size; e.g. recursive halving and doubling has a
 * latency term of 2 log2(n) alpha instead). Seconds; O(1). cls outside
 * {0, 1} is treated as 1. */
double cm_net_allreduce_time(const cm_net *net, size_t n, int cls,
                             double bytes);

#endif
