/* cm_net: a time model of one gossip round and of one all-reduce (each
 * algorithm as Open MPI 4.1 runs it: cm_net_allreduce_model, below) on a
 * network of hosts; docs/network-model.md.
 *
 * Two link classes: c = 0 between ranks on the same host (shared memory),
 * c = 1 between hosts. A message of b bytes on class c costs the Hockney
 * time alpha_c + b / beta_c (latency in seconds, bandwidth in bytes per
 * second). In a round rank r exchanges one message with each of its
 * peers_c(r) peer ranks and sends arrays_c(r) (receives arrays_in_c(r))
 * parameter arrays of B bytes (cm_place_load). The engine posts all sends
 * and receives of a round together (dt_gossip_mpi.c: one
 * MPI_Ineighbor_alltoallv per round, whose libnbc schedule holds every
 * receive and send in one round), so the latencies of one link class
 * overlap and are paid once; the two classes run at the same time, sending and receiving
 * overlap (full duplex), and the ranks of one host share its network
 * link, so between hosts the bandwidth term counts the arrays of the
 * whole host h(r):
 *
 *   T_0(r) = [peers_0(r) > 0] alpha_0 + max(arrays_0(r), arrays_in_0(r)) B / beta_0
 *   T_1(r) = [peers_1(r) > 0] alpha_1 + max(S_h, R_h) B / beta_1,
 *            S_h, R_h = sum over the ranks of h(r) of arrays_1, arrays_in_1
 *   T(r)   = max(T_0(r), T_1(r))          T_round = max_r T(r)
 *
 * (the worst rank decides: a synchronous round ends when the slowest rank
 * has its arrays). In-rank neighbours cost nothing here (memory).
 * Presets (round numbers; sources in docs/train/across-hosts.md,
 * "assumed" where no source gives the number directly):
 *   datacenter  intra 1 us, 10 GB/s;    inter 25 us, 3 GB/s (25 Gb/s Ethernet)
 *   wan         intra 1 us, 10 GB/s;    inter 50 ms, 12.5 MB/s (100 Mb/s)
 *   intra 1 us: measured here (scripts/benches/bench-net.sh); 10 GB/s: assumed
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
 * Three levels (site / host / worker; issue 42): "site=ALPHA,BETA;sites=S"
 * added to the explicit form puts the deployment's hosts on S sites in
 * blocks (site s holds cm_place_rank_size(H, S, s) consecutive hosts, as
 * the ranks fill hosts; a platform file of sites: the file's sites of its
 * first H hosts, cm_net_site_of), each site one shared uplink of bandwidth
 * beta_2 that carries all of its bytes to other sites; a message between
 * two sites has the latency alpha_2 (the whole path) and also crosses
 * both hosts' links (beta_1, shared with their other traffic):
 *
 *   T_1(r) = [peers_1'(r) > 0] alpha_1 + L_h,  L_h = max(S_h, R_h) B / beta_1
 *   T_2(r) = [peers_2(r) > 0] alpha_2 + max(L_h, max(S_s, R_s) B / beta_2)
 *   T(r)   = max(T_0(r), T_1(r), T_2(r))
 *
 * with peers_1' the peers on other hosts of r's site, peers_2 those on
 * other sites, S_h, R_h all the arrays host h sends to and receives from
 * other hosts (both levels), S_s, R_s those site s sends to and receives
 * from other sites. One host per site with site = inter, or one site,
 * gives the two-level price exactly (tests/unit/check_net3.c).
 * Explicit: "intra=ALPHA,BETA;inter=ALPHA,BETA" with ALPHA a number with
 * a unit s, ms, us, ns, and BETA a number with a unit B/s, kB/s, MB/s,
 * GB/s, Mb/s, Gb/s, kbit/s, Mbit/s, Gbit/s (SI: 1 kB = 1000 B; b and bit
 * are bits); a bare number is refused (the unit is required: "20" could
 * be seconds or milliseconds); either class may be omitted and keeps the
 * datacenter value. A spec ending in ".xml" is a SimGrid platform file
 * (topogen platform, or the user's own), read into the two classes by
 * cm_platform_net (cm_platform.h), or, when its hosts have links of
 * their own (the home platform), into per-host links (cm_net.hosts
 * below: each host its latency, up and down links; issue 42).
 */
#ifndef CM_NET_H
#define CM_NET_H

#include <stddef.h>

#include "cm_place.h"
#include "cm_status.h"

/* The most hosts a platform whose hosts have links of their own can
 * describe (cm_net.hosts); a larger one is refused by the reader. */
#define CM_NET_MAX_HOSTS 1024

typedef struct {
    double alpha[3]; /* latency per message, seconds: [0] intra, [1] inter
                        (per-host links: the largest path latency), [2]
                        between sites (sites > 0) */
    double beta[3];  /* bandwidth, bytes per second (per-host links: the
                        slowest up or down link); [2]: a site's uplink */
    size_t sites;    /* 0: two levels; S >= 1: hosts on S sites in blocks
                        (site=ALPHA,BETA;sites=S, or a platform of sites) */
    size_t site_hosts; /* a platform file of sites: its N hosts, in blocks
                          on the sites; the deployment's host j is the
                          file's host j (at most N hosts). 0 (--net
                          spec): the deployment's H hosts in blocks */
    char name[32];   /* preset name, or "custom" */
    /* Per-host links (issue 42: home internet, a platform whose hosts
     * have up and down links of their own). hosts = 0: none, the class
     * alpha[1], beta[1] prices every link between hosts. hosts = K > 0:
     * host h < K (the platform's file order, the host smpirun gives the
     * h-th host of the deployment) sends over its up link (latency
     * lat_up[h], up[h] bytes/s, shared by all it sends) and receives over
     * its down link (lat_down[h], down[h]); a message from host a to host
     * b has the path latency lat_up[a] + lat_core + lat_down[b]. The
     * deployment's j-th host (in the order of the ranks that first name
     * it) is the platform's host j; a deployment of more than K hosts is
     * refused (cm_net_check_hosts). Inside a host: alpha[0], beta[0]. */
    size_t hosts;
    double lat_core;                  /* between access links, seconds */
    double lat_up[CM_NET_MAX_HOSTS];  /* seconds */
    double lat_down[CM_NET_MAX_HOSTS];
    double up[CM_NET_MAX_HOSTS];      /* bytes per second */
    double down[CM_NET_MAX_HOSTS];
} cm_net;

/* Parses a preset name or "intra=A,B;inter=A,B[;site=A,B;sites=S]"
 * (above; site= and sites= go together, S a whole number >= 1). CM_EINVAL
 * with a message naming --net and the bad part otherwise (alpha must be
 * >= 0 and finite, beta > 0 and finite). A name ending in ".xml" is a
 * platform file (as cm_net_parse_platform, its errors naming --net). */
cm_status cm_net_parse(const char *spec, cm_net *net);

/* --platform P.xml: a SimGrid platform file only (cm_platform_net). A
 * name not ending in ".xml" is CM_EINVAL pointing to --net; a file that
 * cannot be read or priced is CM_EIO or CM_EFORMAT, naming --platform and
 * the file (exit 1 in the programs, as every bad input file). */
cm_status cm_net_parse_platform(const char *path, cm_net *net);

/* One line describing net: "datacenter (intra 1 us, 10 GB/s; inter ...)";
 * per-host links: "home.xml (64 hosts with their own links: path latency
 * 12-150 ms, up 1.3-6.2 MB/s, down 6.4-37 MB/s; intra 1 us, 10 GB/s)".
 * Writes at most size bytes to buf; returns buf. */
char *cm_net_describe(const cm_net *net, char *buf, size_t size);

/* The site of host h (0-based, h < H) of a deployment of H hosts on
 * net->sites sites: in blocks (site s holds cm_place_rank_size(H, S, s)
 * hosts), or, for a platform file (site_hosts = N), the file's site of
 * its host h (blocks of N); 0 without sites. O(1). */
size_t cm_net_site_of(const cm_net *net, size_t H, size_t h);

/* Sites that hold hosts in a deployment of H >= 1 hosts (they are sites
 * 0 .. count-1): min(S, H), or a file's sites among its first H hosts;
 * 0 without sites. */
size_t cm_net_sites_used(const cm_net *net, size_t H);

/* CM_OK when a deployment of H hosts can be priced on net: always for
 * the two classes; per-host links: H <= net->hosts, a platform file of
 * sites: H <= net->site_hosts, else CM_EINVAL saying the platform's host
 * count. */
cm_status cm_net_check_hosts(const cm_net *net, size_t H);

/* Path latency from the platform's host a to host b (per-host links;
 * alpha[1] otherwise). O(1). */
double cm_net_path_lat(const cm_net *net, size_t a, size_t b);

/* T_round = max_r T(r) over the P ranks' loads for arrays of array_bytes
 * bytes; host_of_rank[r] labels rank r's host (equal labels: same host;
 * NULL: one host). *worst (may be NULL) receives the rank that decides
 * (the lowest on ties). O(P^2) for the host sums (once per run).
 * Per-host links (net->hosts > 0): between hosts
 *
 *   T_1(r) = [peers_1(r) > 0] lat_h + max(S_h B / up_h, R_h B / down_h)
 *
 * with h the platform host of r (cm_net above) and lat_h the largest path
 * latency of a message h sends or receives in the round: from the
 * topology t with its placement rank_of when both are given (O(n d)),
 * else the largest between h and any other host of the deployment (an
 * upper bound). A deployment of more hosts than the platform's: NAN and
 * cm_last_error (cm_net_check_hosts first). Three levels (net->sites >
 * 0; above): the hosts indexed by their first rank, on their sites by
 * cm_net_site_of; the arrays across sites from t and rank_of
 * (cm_place_eval on the ranks' site labels, O(n d + P)), or, when either
 * is NULL, every array between hosts taken to cross sites (an upper
 * bound); NAN and cm_last_error on a failure. With neither, t and
 * rank_of are not read (may be NULL). */
double cm_net_round_time(const cm_net *net, const cm_place_load *load,
                         const size_t *host_of_rank, size_t P,
                         double array_bytes, size_t *worst,
                         const cm_topo *t, const size_t *rank_of);

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

/* The same placement's round at each of nb array sizes: out[k] as
 * cm_net_eval_placement with array_bytes[k], the placement made once
 * (a graph placement costs far more than a round's model). */
cm_status cm_net_eval_placement_sizes(const cm_net *net, const cm_topo *t,
                                      size_t P, size_t H, cm_place_kind kind,
                                      size_t nb, const double *array_bytes,
                                      cm_net_eval *out);

/* Ring all-reduce of an array of `bytes` bytes over n participants joined
 * by link class cls (0 intra, 1 inter): the standard bandwidth-optimal
 * ring (reduce-scatter then all-gather; Thakur, Rabenseifner and Gropp,
 * "Optimization of collective communication operations in MPICH", IJHPCA
 * 2005; Patarasuk and Yuan, JPDC 2009): 2(n-1) steps, in each of which
 * every participant sends and receives one chunk of bytes/n, so
 *
 *   T_ring = 2(n-1) alpha_cls + 2 (n-1)/n bytes / beta_cls   (0 for n <= 1)
 *
 * The textbook ring, kept for its callers; what MPI runs, with several
 * ranks per host, is cm_net_allreduce_model / cm_net_allreduce_alg_time
 * (the caller passes the algorithm). Seconds; O(1). cls outside {0, 1}
 * is treated as 1. */
double cm_net_allreduce_time(const cm_net *net, size_t n, int cls,
                             double bytes);

/* All-reduce algorithms, as Open MPI 4.1 runs them (ompi/mca/coll/base/
 * coll_base_allreduce.c, ompi/mca/coll/libnbc/nbc_iallreduce.c at tag
 * v4.1.4), on P ranks placed in blocks on H hosts (host h holds
 * cm_place_rank_size(P, H, h) consecutive ranks, as mpirun fills a
 * hostfile), for an array of `bytes` bytes (4-byte floats when bytes is a
 * multiple of 4, bytes otherwise):
 *   CM_AR_RING      reduce-scatter then all-gather around the ranks: 2(P-1)
 *                   steps of one block, ceil(count/P) elements at most;
 *   CM_AR_RDOUBLING recursive doubling: lg p' exchanges of the whole array
 *                   (p' = 2^floor(lg P)), plus one step before and one after
 *                   when P is not a power of two (the r = P - p' extra ranks
 *                   fold into their even neighbours and get the result back);
 *   CM_AR_RABENSEIFNER recursive halving reduce-scatter then recursive
 *                   doubling all-gather (lg p' steps each, halves rounded
 *                   as Open MPI splits them); P not a power of two: two
 *                   half-array steps before and one whole-array step after;
 *   CM_AR_BINOMIAL  binomial reduce to rank 0 then binomial broadcast
 *                   (libnbc's "binomial", what MPI_Iallreduce runs in place):
 *                   2 ceil(lg P) steps of the whole array;
 *   CM_AR_HIER      hierarchical: binomial reduce inside each host, the
 *                   cheapest of the four above among one rank per host, a
 *                   binomial broadcast inside each host;
 *   CM_AR_AUTO      what Open MPI 4.1 runs for the trainer's call
 *                   (MPI_Iallreduce, MPI_IN_PLACE, MPI_SUM: coll/libnbc;
 *                   cm_net_allreduce_openmpi);
 *   CM_AR_BEST      the cheapest of ring, recursive doubling, Rabenseifner,
 *                   binomial and (H > 1) hierarchical;
 *   CM_AR_DIRECT    not Open MPI's: a reduce-scatter by one all-to-all
 *                   (every rank sends block j, ceil(count/P) elements, to
 *                   rank j, all posted together), a local sum, then an
 *                   all-gather of the same blocks, also posted together
 *                   (dpsgd-train --allreduce direct, dt_allreduce_mpi.c):
 *                   2 steps, each one latency and (P-1) blocks per rank
 *                   out and in; not among best's candidates;
 *   CM_AR_HIER_SITE hierarchical by site (three levels, net->sites > 0):
 *                   CM_AR_HIER with the ranks of a site as its group (a
 *                   binomial reduce inside each site, the cheapest flat
 *                   one among one rank per site, a binomial broadcast);
 *                   among best's candidates when some site holds several
 *                   ranks and there are several sites; without sites it
 *                   is CM_AR_HIER. */
typedef enum {
    CM_AR_RING,
    CM_AR_RDOUBLING,
    CM_AR_RABENSEIFNER,
    CM_AR_BINOMIAL,
    CM_AR_HIER,
    CM_AR_AUTO,
    CM_AR_BEST,
    CM_AR_DIRECT,
    CM_AR_HIER_SITE,
    CM_AR_COUNT
} cm_net_ar_alg;

/* "ring", "recursive-doubling", "rabenseifner", "binomial",
 * "hierarchical", "auto", "best", "direct", "hierarchical-site"; "?"
 * outside the enum. */
const char *cm_net_ar_name(cm_net_ar_alg alg);

/* Parses one of the names above (also "rd", "hier" and "hier-site" as
 * short forms) into *alg; CM_EINVAL naming `flag` and the choices. */
cm_status cm_net_ar_parse(const char *s, const char *flag,
                          cm_net_ar_alg *alg);

/* Open MPI 4.1.4's choice for an all-reduce (MPI_SUM, commutative) of
 * `bytes` bytes over P ranks, returned as one of the four flat
 * algorithms:
 *   nonblocking (MPI_Iallreduce, coll/libnbc, nbc_iallreduce.c): binomial
 *     when P < 4, bytes < 65536 or in place, else Rabenseifner when the
 *     element count >= p', else ring;
 *   blocking (MPI_Allreduce, coll/tuned's fixed decision,
 *     coll_tuned_decision_fixed.c, commutative branch): its algorithm
 *     3 -> recursive doubling, 4 and 5 (segmented ring) -> ring,
 *     6 -> Rabenseifner, 1 (linear) and 2 (reduce + broadcast) ->
 *     binomial (the nearest modelled schedule).
 * O(1). */
cm_net_ar_alg cm_net_allreduce_openmpi(size_t P, double bytes, int blocking,
                                       int in_place);

/* One all-reduce as modelled. Every step of the schedule costs the
 * slowest of its links: a rank's messages inside its host alpha_0 +
 * max(bytes out, bytes in) / beta_0, a host's messages to other hosts
 * alpha_1 + max(its ranks' bytes out, in) / beta_1 (the host link is
 * shared; latency once per step and link, as for a gossip round); the
 * steps add up (each waits for the one before). Per-host links: host h's
 * messages of a step cost lat_h + max(bytes out / up_h, bytes in /
 * down_h), lat_h the largest path latency among them (each step its
 * slowest pair); host h of the blocks is the platform's host h. Three
 * levels (net->sites): a host with messages to other sites pays alpha_2
 * instead of alpha_1 (its slowest path), over its link beta_1 carrying
 * all its bytes to other hosts, and each site's uplink alpha_2 +
 * max(its bytes out, in to other sites) / beta_2. */
typedef struct {
    double time_s;         /* modelled seconds of one all-reduce */
    cm_net_ar_alg alg;     /* the algorithm priced (auto, best resolved) */
    cm_net_ar_alg inter;   /* CM_AR_HIER: the algorithm among hosts
                              (CM_AR_HIER_SITE: among sites) */
    size_t steps;          /* steps of the schedule */
    double msgs_max;       /* messages sent by the busiest rank */
    double bytes_max;      /* bytes sent by the busiest rank */
    double msgs_mean;      /* messages sent per rank, mean */
    double bytes_mean;     /* bytes sent per rank, mean */
} cm_net_ar;

/* Models alg on P ranks on H hosts (above) into *out; when msgs / sent
 * are not NULL (P entries each) they receive every rank's messages and
 * bytes sent (for checks against Open MPI's counters). CM_EINVAL when P
 * is 0 or H is 0 or > P, or alg is out of range; CM_ENOMEM. P = 1: zero
 * time. Cost O(P log P) (the ring: O(P)). */
cm_status cm_net_allreduce_model(const cm_net *net, cm_net_ar_alg alg,
                                 size_t P, size_t H, double bytes,
                                 cm_net_ar *out, size_t *msgs, double *sent);

/* cm_net_allreduce_model's time alone; NAN on an error (the message is in
 * cm_last_error). */
double cm_net_allreduce_alg_time(const cm_net *net, cm_net_ar_alg alg,
                                 size_t P, size_t H, double bytes);

#endif
