/* dt_topo_load: the run's topology, read on every rank, checked once.
 *
 * Every rank needs the edges and weights of the gossip graph, so every
 * rank parses the file (O(m)). The checks that cost more -- connectivity,
 * the weight rule of an unweighted file (laplacian: a dense Laplacian
 * spectrum), the SLEM of W or the norm of a time-varying period's product
 * (dense eigensolves, O(n^3) per round) -- run on rank 0 alone. Their
 * status and message are agreed over all ranks (dt_comm_agree: no hang,
 * one message, every rank fails alike), and what rank 0 derived (the
 * weights it set, the SLEM) is broadcast, so every rank holds the same
 * bits as if it had computed them itself.
 */
#ifndef DT_TOPO_LOAD_H
#define DT_TOPO_LOAD_H

#include "cm_mixing.h"
#include "cm_topo_seq.h"
#include "dt_comm.h"

/* Reads path (format and numbering detected) into *seq (initialized by
 * the caller; old content destroyed) on every rank of comm, and validates
 * it as above. A static file without weights, or any static file when
 * replace is non-zero (--weights given), gets rule's weights (set on rank
 * 0, broadcast); replace with a time-varying file is CM_EINVAL (a flag
 * conflict: its rounds carry their own weights, as topogen eval says).
 * *one_based: 1 when the ids were read as 1-based.
 * *slem: SLEM of W for a static file, the norm of the period's product
 * for a sequence, -1 when not computed (above CM_MIXING_DENSE_MAX nodes);
 * the same on every rank.
 * Collective over comm. Returns the agreed status, the same on every rank
 * with rank-lowest failing rank's message, prefixed "--topology: ". A
 * problem of the file, including one beyond a size limit (a dense
 * eigensolve above CM_MIXING_DENSE_MAX nodes), is never CM_EINVAL (that
 * code means a bad flag, as for --weights on a time-varying file): it is CM_EIO, CM_EFORMAT, CM_ETOPO, CM_ENOMEM
 * or CM_ENUMERIC. On failure *seq is left empty. Cost: O(m) on every rank,
 * plus O(period n^3) on rank 0 and broadcasts of O(period + n + m) words. */
cm_status dt_topo_load(const dt_comm *comm, const char *path,
                       cm_weight_rule rule, int replace, cm_topo_seq *seq,
                       int *one_based, double *slem);

/* dt_topo_load that also keeps the file's `#` header in *hdr
 * (initialized by the caller, who destroys it; NULL: not kept), read in
 * the same pass as the graph: the one open of the file on each rank.
 * On failure *hdr is left empty. */
cm_status dt_topo_load_header(const dt_comm *comm, const char *path,
                              cm_weight_rule rule, int replace,
                              cm_topo_seq *seq, cm_topo_header *hdr,
                              int *one_based, double *slem);

/* The parse step of dt_topo_load alone, on this process: path (format and
 * numbering detected, a file of `# round` sections read as a sequence)
 * into *seq (initialized by the caller; old content destroyed), no
 * checks, no weights set; failures prefixed "--topology: " and never
 * CM_EINVAL, as above. The one way the trainer reads a topology file
 * (--epochs 0 --write-partition). O(m). */
cm_status dt_topo_read(const char *path, cm_topo_seq *seq, int *one_based);

#endif
