/* cm_lock: an advisory lock (flock(2)) that keeps two runs from writing
 * the same log or checkpoint directory at once.
 *
 * The lock lives in a small file of its own (the log is replaced by
 * rename on every row, so its own inode cannot carry a lock): "LOG.lock"
 * next to a log, "DIR/lock" inside a checkpoint directory. It is taken
 * without waiting: a second writer is refused at start-up with a message
 * naming the path, instead of both running and interleaving their output.
 * The kernel drops the lock when the process dies, however it dies, so a
 * stale lock file never blocks the next run.
 */
#ifndef CM_LOCK_H
#define CM_LOCK_H

#include "cm_status.h"

typedef struct {
    int fd;      /* the locked file's descriptor, -1 when none */
    char *path;  /* the lock file (owned) */
} cm_lock;

/* Creates (0666 & ~umask) and locks lock_path exclusively. `what` names
 * the protected thing in the message: CM_EIO "WHAT is in use by another
 * run (LOCK_PATH is locked)" when another process holds it, CM_EIO with
 * the cause when the file cannot be created. l is left unlocked (fd -1)
 * on error. */
cm_status cm_lock_acquire(cm_lock *l, const char *lock_path,
                          const char *what);

/* Removes the lock file and releases the lock; accepts an unlocked or
 * zeroed l. */
void cm_lock_release(cm_lock *l);

#endif
