/* cm_topo_seq_file: time-varying topologies, a periodic sequence of weighted
 * graphs W_0, ..., W_{P-1}; round t of gossip uses W_{t mod P}.
 *
 * File format: today's topology format (cm_topo.h), cut into sections by
 * header lines `# round R ...` (R = 0, 1, ..., P-1 in order). Lines before
 * the first section are the file's header (comments; a token `period=P`
 * there must match the number of sections). Each section is read as a
 * topology file of its own and must declare or imply the same n. A file
 * without `# round` lines is one round: exactly today's format, so every
 * existing file is a sequence of period 1.
 *
 *     # topogen 1 n=8 kind=one-peer-exp period=3 ...
 *     # round 0 n=8
 *     0 0 0.5
 *     0 1 0.5
 *     ...
 *     # round 1 n=8
 *     ...
 *
 * The spectral rules (cm_topo_seq_validate) are one floor up, in
 * src/spectra/cm_topo_seq.h.
 */
#ifndef CM_TOPO_SEQ_FILE_H
#define CM_TOPO_SEQ_FILE_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"

typedef struct {
    size_t period;  /* rounds per period, >= 1 (0 only when empty) */
    size_t n;       /* nodes, the same in every round */
    cm_topo *round; /* [period] W_t of round t */
    size_t *line;   /* [period] 1-based line of round t's `# round` header
                       (0 for a single-round file) */
} cm_topo_seq;

/* Sets every field to empty. */
void cm_topo_seq_init(cm_topo_seq *s);

/* Frees what s owns and re-initializes it. Accepts NULL. */
void cm_topo_seq_destroy(cm_topo_seq *s);

/* Makes s (initialized; old content destroyed) a sequence of `period`
 * empty rounds on n nodes, for a builder to fill. CM_EINVAL for period 0. */
cm_status cm_topo_seq_alloc(cm_topo_seq *s, size_t period, size_t n);

/* Moves t into a period-1 sequence s (t is left empty). */
cm_status cm_topo_seq_from_topo(cm_topo_seq *s, cm_topo *t);

/* The union of s's rounds into u (initialized; old content destroyed):
 * an edge wherever some round has one, its weight the sum of the rounds'
 * W_ij, and W_ii the sum of the rounds' self weights (so rows sum to the
 * period; u is not a mixing matrix). Unweighted when some round is. For
 * period 1, round 0 itself. Used to place a time-varying run's workers
 * (every round's edges count). CM_ENOMEM. O(M log M), M = sum of the
 * rounds' edges. */
cm_status cm_topo_seq_union(const cm_topo_seq *s, cm_topo *u);

/* Reads a topology file ("-" is stdin), one round or several. Syntax and
 * local checks only (as cm_topo_read, per section), plus: sections in
 * order from round 0, the same n in every round, period= consistent and
 * not 0, every round weighted when P > 1, and an edge list whose first
 * line is `# topogen ...` ends with a line end (else it was truncated).
 * Messages name path, line and round. CM_EIO, CM_EFORMAT, CM_ENOMEM.
 * O(file size + m log m). */
cm_status cm_topo_seq_read(cm_topo_seq *s, const char *path);

/* cm_topo_seq_read with cm_topo_read_ex's options: a one-round file is
 * read exactly as cm_topo_read_ex reads it (any format, numbering
 * detected or forced; o's out fields set); sections exist only in edge
 * lists and are 0-based. o may be NULL. */
cm_status cm_topo_seq_read_ex(cm_topo_seq *s, const char *path,
                              cm_topo_read_opts *o);

/* Writes s: for P = 1 exactly cm_topo_save(round 0); else the comment,
 * then per round a line `# round R n=N` and the round's lines. Atomic
 * (temporary file + rename); "-" is stdout. */
cm_status cm_topo_seq_save(const cm_topo_seq *s, const char *path,
                           const char *comment);

#endif
