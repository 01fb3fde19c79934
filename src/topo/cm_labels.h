/* cm_labels: the partition as data both programs share (the "counts
 * file"): per-worker class counts of a training partition.
 *
 * dpsgd-train --write-partition writes it, topogen --labels reads it to
 * learn or evaluate a topology for that partition. Text, one line per
 * worker in worker order, K whitespace-separated non-negative integer
 * counts (the same K on every line); `#` lines are comments. The first
 * comment line, when it is
 *
 *     # labels 1 dataset=fashion-mnist partition=dirichlet:0.1 seed=1 workers=256 images=60000
 *
 * names the partition (its identity: what a topology learned from the
 * file records, and what a run compares with its own). The reader is
 * strict: every line, count and limit is checked, with messages naming
 * the file and line.
 */
#ifndef CM_LABELS_H
#define CM_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"

#define CM_LABELS_MAX_WORKERS 1000000      /* as CM_TOPO_MAX_NODES */
#define CM_LABELS_MAX_CLASSES 1000
#define CM_LABELS_MAX_CELLS   ((size_t)1 << 26) /* n * K, 512 MB of counts */
#define CM_LABELS_MAX_COUNT   1000000000000ULL /* one count */
#define CM_LABELS_MAX_LINE    65536        /* bytes per line */

typedef struct {
    size_t n;            /* workers (lines) */
    size_t k;            /* classes (counts per line) */
    uint64_t *count;     /* [n*k] count[i*k + c]: images of class c on i */
    char identity[256];  /* "dataset=... partition=... seed=... workers=...
                            images=..." from the header; "" when none */
} cm_labels;

/* Sets every field to empty. */
void cm_labels_init(cm_labels *l);

/* Frees what l owns and re-initializes it. Accepts NULL. */
void cm_labels_destroy(cm_labels *l);

/* Reads a counts file (l initialized; old content destroyed). CM_EIO when
 * it cannot be opened; CM_EFORMAT naming path and line for: a token that
 * is not a non-negative integer, a count above CM_LABELS_MAX_COUNT, lines
 * with different numbers of counts, a worker with no images, a line
 * longer than CM_LABELS_MAX_LINE, no worker line, more than
 * CM_LABELS_MAX_WORKERS lines, K above CM_LABELS_MAX_CLASSES or n*K above
 * CM_LABELS_MAX_CELLS (checked before allocating), a header whose
 * workers= differs from the line count. O(file size). */
cm_status cm_labels_read(cm_labels *l, const char *path);

/* Writes l to path atomically (tmp + rename): the `# labels 1 IDENTITY`
 * line (when l->identity is set), then `comment` lines (each gets "# ";
 * NULL for none), then one line of counts per worker. CM_EIO. */
cm_status cm_labels_save(const cm_labels *l, const char *path,
                         const char *comment);

/* Fills l->identity from the partition's names. */
void cm_labels_set_identity(cm_labels *l, const char *dataset,
                            const char *partition, uint64_t seed,
                            size_t images);

/* The value of key ("partition", "seed", ...) in an identity string, into
 * buf; 0 when found. */
int cm_labels_identity_get(const char *identity, const char *key, char *buf,
                           size_t cap);

/* Row-normalized class proportions: pi[i*k + c] = count / row sum (rows
 * are non-empty in a file read by cm_labels_read). pi: caller's [n*k]. */
void cm_labels_proportions(const cm_labels *l, double *pi);

/* Number of classes with a non-zero count on worker i. */
size_t cm_labels_classes_of(const cm_labels *l, size_t i);

#endif
