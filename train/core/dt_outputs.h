/* dt_outputs: the files a dpsgd-train run writes, checked against each
 * other and against the files it reads before anything is written, and
 * locked for the run.
 *
 * An output (--log, --summary, --save-model, --write-partition,
 * --checkpoint) that is the same file as an input (--topology,
 * --init-model, --eval-model) or as another output would replace the
 * input or interleave two outputs; it is refused. Two paths are the same
 * file when both exist and have the same device and inode (hard links,
 * symbolic links, "./x" and "x"), or when neither exists and they name the
 * same entry of the same directory. Devices and FIFOs (--log /dev/null
 * twice) are not files and never collide.
 *
 * --summary, --save-model and --write-partition are locked as --log is
 * (dt_log, cm_lock: "FILE.lock" beside a regular or new file), so a second
 * run writing the same file is refused at start-up instead of both
 * running and the last writer winning.
 */
#ifndef DT_OUTPUTS_H
#define DT_OUTPUTS_H

#include "cm_lock.h"
#include "cm_status.h"
#include "dt_config.h"

#define DT_OUTPUT_LOCKS 3

typedef struct {
    cm_lock lock[DT_OUTPUT_LOCKS]; /* --summary, --save-model,
                                      --write-partition (fd -1 when none) */
} dt_outputs;

/* 1 when paths a and b are the same file (see above), else 0. O(1)
 * system calls. */
int dt_outputs_same_file(const char *a, const char *b);

/* CM_EINVAL "--FLAG1 P: the same file as --FLAG2 Q ..." for the first
 * output of cfg that is the same file as an input or an earlier output;
 * CM_OK when none is. Names the flags in the order they appear in the
 * lists above. */
cm_status dt_outputs_check(const dt_config *cfg);

/* Locks cfg's --summary, --save-model and --write-partition (those given,
 * that are regular files or do not exist yet). CM_EIO naming the file
 * when another run holds one; on error o holds no lock. */
cm_status dt_outputs_lock(dt_outputs *o, const dt_config *cfg);

/* Releases what dt_outputs_lock took (removing the lock files). Accepts a
 * zeroed o only after dt_outputs_lock; use dt_outputs_init otherwise. */
void dt_outputs_unlock(dt_outputs *o);

/* Sets o to hold no lock. */
void dt_outputs_init(dt_outputs *o);

#endif
