/* dt_run_settings: the text of a checkpoint's DIR/settings beyond what
 * dt_run_ckpt.h declares (dt_run_ckpt_settings, _fingerprint,
 * _recorded_drop): the helpers dt_run_ckpt.c needs for a change of
 * membership. Internal to train/distributed.
 */
#ifndef DT_RUN_SETTINGS_H
#define DT_RUN_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"

#define DT_RUN_SETTINGS_MAX 16384 /* bytes of DIR/settings written or read */

/* text without the lines a change of membership changes (workers,
 * --topology, --drop-workers, workers-before-drop, dropped-at-epoch,
 * added-at-epoch) into out (cap bytes; lines that do not fit are left
 * out). O(length). */
void dt_run_settings_strip(const char *text, char *out, size_t cap);

/* DIR/settings into buf (cap bytes, NUL-terminated), "" when missing. */
void dt_run_settings_read(const char *dir, char *buf, size_t cap);

/* Rank 0, --drop-workers, the latest checkpoint (of epoch) of the workers
 * before a drop: 1 when DIR/settings records a drop at that same epoch
 * (the first save after a drop stopped between DIR/settings and
 * DIR/latest), else 0. With 1, *s is CM_OK when DIR/settings, stripped,
 * equals settings0, stripped, else CM_EINVAL naming the first
 * difference. */
int dt_run_settings_pending_drop(const char *dir, const char *settings0,
                                 uint64_t epoch, cm_status *s);

#endif
