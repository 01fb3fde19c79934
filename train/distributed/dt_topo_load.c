/* dt_topo_load.c: read the topology on every rank, check it on rank 0.
 *
 * Before, every rank of dpsgd-train ran the whole validation itself, so a
 * weighted 2,000-node file cost each of P ranks the same dense O(n^3)
 * eigensolve, all competing for the same cores. Now rank 0 runs it once
 * and the others wait in the agreement, then receive the results:
 *
 *   rank 0:    stat: a directory or a file beyond the size limit is
 *              refused before any rank reads a byte -> agree
 *   all ranks: parse (O(m))                       -> agree
 *   all ranks: broadcast rank 0's (n, m, period, weights to set) and
 *              compare (a file that differs between hosts is refused)
 *   rank 0:    connectivity, weight rule, SLEM / period product norm
 *   others:    allocate the weight arrays rank 0 will fill
 *                                                 -> agree
 *   all ranks: broadcast the SLEM and, if rank 0 set them, the weights.
 *
 * The broadcast weights are rank 0's bits, which equal what each rank
 * computed before (same code, same input), so trajectories do not change.
 * A file problem is never reported as CM_EINVAL, which dpsgd-train maps
 * to the usage exit code 2: a file beyond a size limit is a runtime
 * failure (exit 1), as in topogen.
 */
#include "dt_topo_load.h"

#include <stdlib.h>

#include "cm_status.h"
#include "cm_topo.h"

/* Prefixes a failure with the flag and makes a size-limit CM_EINVAL of
 * the file's checks a CM_ETOPO; CM_OK passes through. */
static cm_status file_status(cm_status s)
{
    if (s == CM_OK)
        return s;
    return cm_error_prefix(s == CM_EINVAL ? CM_ETOPO : s, "--topology");
}

/* Rank 0's checks: the ones each rank ran before this module. */
static cm_status check_root(cm_topo_seq *seq, const char *path,
                            cm_weight_rule rule, int set, double *slem)
{
    cm_status s = CM_OK;
    cm_topo *t = &seq->round[0];
    if (t->directed) /* strong connectivity and W: cm_topo_validate_slem */
        return cm_topo_seq_validate(seq, path, slem);
    if (seq->period == 1) {
        s = cm_topo_check_connected(t, path);
        if (s == CM_OK && set)
            s = cm_topo_set_weights(t, rule);
    }
    if (s == CM_OK) /* one round: cm_topo_validate_slem */
        s = cm_topo_seq_validate(seq, path, slem);
    return s;
}

/* (n, total edges, period, weights to set) of what this rank read. */
static void describe(const cm_topo_seq *seq, int replace, size_t hdr[4])
{
    hdr[0] = seq->n;
    hdr[1] = 0;
    for (size_t r = 0; r < seq->period; r++)
        hdr[1] += seq->round[r].m;
    hdr[2] = seq->period;
    hdr[3] = seq->period == 1 && !seq->round[0].directed &&
             (!seq->round[0].self || replace); /* directed: in the file */
}

/* The parse, its failure not yet prefixed. */
static cm_status read_file(const char *path, cm_topo_seq *seq,
                           int *one_based, cm_topo_header *hdr)
{
    cm_topo_read_opts ro = {.format = CM_FORMAT_AUTO, .base = CM_BASE_AUTO,
                            .header = hdr};
    cm_status s = cm_topo_seq_read_ex(seq, path, &ro);
    *one_based = s == CM_OK ? ro.one_based : 0;
    return s;
}

cm_status dt_topo_read(const char *path, cm_topo_seq *seq, int *one_based)
{
    return file_status(read_file(path, seq, one_based, NULL));
}

cm_status dt_topo_load(const dt_comm *comm, const char *path,
                       cm_weight_rule rule, int replace, cm_topo_seq *seq,
                       int *one_based, double *slem)
{
    return dt_topo_load_header(comm, path, rule, replace, seq, NULL,
                               one_based, slem);
}

cm_status dt_topo_load_header(const dt_comm *comm, const char *path,
                              cm_weight_rule rule, int replace,
                              cm_topo_seq *seq, cm_topo_header *head,
                              int *one_based, double *slem)
{
    const size_t rank = dt_comm_rank(comm);
    size_t mine[4], hdr[4];
    double num = -1.0; /* rank 0's SLEM */
    *one_based = 0;
    *slem = -1.0;
    cm_status s = rank == 0 ? cm_topo_file_check(path) : CM_OK;
    if ((s = dt_comm_agree(comm, file_status(s))) != CM_OK)
        goto fail;
    int ob = 0;
    s = read_file(path, seq, &ob, head); /* prefixed once, at the agreement */
    for (size_t r = 0; s == CM_OK && seq->period > 1 && r < seq->period; r++)
        if (seq->round[r].directed)
            s = cm_error(CM_ETOPO, "%s: round %zu is directed: a "
                         "time-varying sequence of directed rounds is not "
                         "supported (an epidemic topology, kind=epidemic, "
                         "draws its rounds itself)", path, r);
    if ((s = dt_comm_agree(comm, file_status(s))) != CM_OK)
        goto fail;
    *one_based = ob;
    if (replace && seq->period > 1) { /* every rank read the same period */
        s = cm_error(CM_EINVAL, "--weights: %s is time-varying (period %zu) "
                     "and carries its own weights; --weights applies to "
                     "one-round files", path, seq->period);
        goto fail;
    }
    describe(seq, replace, mine);
    for (size_t k = 0; k < 4; k++)
        hdr[k] = mine[k];
    if ((s = dt_comm_bcast(comm, hdr, sizeof hdr, 0)) != CM_OK)
        goto agree;
    if (rank == 0)
        s = check_root(seq, path, rule, (int)hdr[3], &num);
    else if (hdr[0] != mine[0] || hdr[1] != mine[1] || hdr[2] != mine[2] ||
             hdr[3] != mine[3])
        s = cm_error(CM_ETOPO, "%s: rank %zu read %zu nodes, %zu edges, %zu "
                     "round(s) but rank 0 read %zu, %zu, %zu: the file "
                     "differs between the ranks' hosts", path, rank,
                     mine[0], mine[1], mine[2], hdr[0], hdr[1], hdr[2]);
    else if (hdr[3])
        s = cm_topo_alloc_weights(&seq->round[0]); /* rank 0 fills them */
agree: /* the others sleep while rank 0 checks */
    if ((s = dt_comm_agree_idle(comm, file_status(s))) != CM_OK)
        goto fail;
    cm_topo *t = &seq->round[0];
    s = dt_comm_bcast(comm, &num, sizeof num, 0);
    if (s == CM_OK && hdr[3])
        s = dt_comm_bcast(comm, t->ew, t->m * sizeof *t->ew, 0);
    if (s == CM_OK && hdr[3])
        s = dt_comm_bcast(comm, t->self, t->n * sizeof *t->self, 0);
    if (s == CM_OK && hdr[3])
        s = dt_comm_bcast(comm, t->adj_w, 2 * t->m * sizeof *t->adj_w, 0);
    if ((s = dt_comm_agree(comm, s)) != CM_OK)
        goto fail;
    *slem = num;
    return CM_OK;
fail:
    cm_topo_seq_destroy(seq);
    cm_topo_header_destroy(head);
    *one_based = 0;
    return s;
}
