/* cm_topo_seq: the spectral rules of time-varying topologies (the storage,
 * the reader and the writer are one floor down, in cm_topo_seq_file.h,
 * which this header includes).
 *
 * Rules for P > 1: every round weighted, W_t symmetric (the reader), rows
 * summing to 1, eigenvalues of W_t in [-1, 1] (a round may be
 * disconnected: a one-peer round is a matching), and the period's product
 * mixes: ||W_{P-1} ... W_0 - 11^T/n||_2 < 1. A single round keeps the
 * one-graph rules (cm_topo_validate_slem). Messages name the file, the
 * round and its header line.
 */
#ifndef CM_TOPO_SEQ_H
#define CM_TOPO_SEQ_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo_seq_file.h"

/* Tolerance on eigenvalues of a round beyond [-1, 1], and on the period
 * product's norm below 1. */
#define CM_TOPO_SEQ_EIG_TOL 1e-9

/* The rules above. For P = 1 exactly cm_topo_validate_slem (and *norm is
 * the SLEM); for P > 1, *norm is ||W_{P-1} ... W_0 - 11^T/n||_2. norm may
 * be NULL. CM_ETOPO naming path, round and line. O(P n^3) (dense). */
cm_status cm_topo_seq_validate(const cm_topo_seq *s, const char *path,
                               double *norm);

/* cm_topo_seq_read then cm_topo_seq_validate. */
cm_status cm_topo_seq_load(cm_topo_seq *s, const char *path, double *norm);

/* *norm = ||W_{(r-1) mod P} ... W_1 W_0 - 11^T/n||_2 for r = rounds: the
 * worst-case contraction of disagreement after that many rounds. It does
 * not grow with r once every round has eigenvalues in [-1, 1]. Every
 * round must be weighted. O(rounds n (n + m) + n^3): the product is
 * built sparsely, the norm is a dense symmetric eigensolve of A^T A.
 * CM_EINVAL, CM_ENOMEM, CM_ENUMERIC. */
cm_status cm_topo_seq_norm(const cm_topo_seq *s, size_t rounds,
                           double *norm);

#endif
