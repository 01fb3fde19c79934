/* cm_atomic: write a file so that it appears whole or not at all.
 *
 * cm_atomic_open creates a temporary file next to the target
 * ("PATH.tmp.XXXXXX"), cm_atomic_commit flushes, fsyncs and renames it over
 * the target, cm_atomic_abort removes it. A crash or an error in between
 * never leaves a half-written topology, log or checkpoint at PATH.
 *
 * The file gets the mode open(PATH, O_CREAT | O_TRUNC, 0666) would give
 * it: a replaced file keeps its mode, a new one is 0666 & ~umask. Error
 * messages keep the cause of a failed write ("No space left on device").
 */
#ifndef CM_ATOMIC_H
#define CM_ATOMIC_H

#include <stdio.h>

#include "cm_status.h"

struct cm_afile_sink;  /* descriptor + first write errno, internal */

typedef struct {
    FILE *fp;        /* write here between open and commit/abort */
    char *path;      /* final path (owned) */
    char *tmp;       /* temporary path (owned) */
    struct cm_afile_sink *sink; /* where fp writes (owned, internal) */
} cm_afile;

/* Opens a temporary file for path. On failure (directory missing or not
 * writable) returns CM_EIO with a message naming path; nothing is created. */
cm_status cm_atomic_open(cm_afile *f, const char *path);

/* Flushes, fsyncs, closes and renames into place; frees f's strings.
 * On a write error removes the temporary and returns CM_EIO. */
cm_status cm_atomic_commit(cm_afile *f);

/* Checks that path can be written (opens and removes a temporary file
 * next to it), so a program can fail before its work rather than after.
 * CM_EIO naming path. */
cm_status cm_atomic_probe(const char *path);
/* For a caller that saw a write fail (fwrite short, ferror): removes the
 * temporary like cm_atomic_abort and returns CM_EIO with the message
 * "cannot write PATH: CAUSE", CAUSE from the failed write(2). */
cm_status cm_atomic_fail(cm_afile *f);

/* Closes and removes the temporary file; frees f's strings. Accepts a
 * zeroed or already-finished f. */
void cm_atomic_abort(cm_afile *f);

/* For a program's SIGTERM/SIGINT handler: unlinks the temporary file of
 * every cm_afile open in the process (the first 16, with paths under 4 KiB),
 * so a program killed while writing leaves no PATH.tmp.XXXXXX. Only
 * unlink(2) and atomic loads: async-signal-safe. The targets are
 * untouched (the handler then re-raises the signal to die by it). */
void cm_atomic_unlink_pending(void);

#endif
