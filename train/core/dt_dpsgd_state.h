/* dt_dpsgd_state: the part of a D-PSGD checkpoint that belongs to the run
 * rather than to a worker: the CSV rows so far, the training seconds and
 * the gossip bytes per rank so far. Rank 0 writes it as
 * DIR/state-EEEEEE.bin (atomically, before the marker DIR/latest), so a
 * resumed run continues its log, clock and byte count where they were.
 *
 * Format: magic "DPSGDST\0", u32 version (1), u32 row size, u64 epoch,
 * f64 train_s, u64 bytes, u64 n_rows, the rows (dt_log_row as stored in
 * memory: a checkpoint is read back by the same build), u32 crc32 (zlib)
 * of everything before it.
 */
#ifndef DT_DPSGD_STATE_H
#define DT_DPSGD_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "dt_log.h"

typedef struct {
    double train_s;     /* training seconds so far */
    uint64_t bytes;     /* gossip bytes per rank so far */
    size_t n_rows;      /* rows in use */
    size_t cap;         /* rows allocated */
    dt_log_row *rows;   /* the CSV rows so far (owned) */
} dt_run_state;

/* Appends a row and sets the clock and byte count. CM_ENOMEM. */
cm_status dt_run_state_add(dt_run_state *rs, const dt_log_row *row,
                           double train_s, uint64_t bytes);

/* Frees the rows; accepts a zeroed state. */
void dt_run_state_destroy(dt_run_state *rs);

/* Writes DIR/state-EEEEEE.bin atomically. CM_EIO naming the file. */
cm_status dt_run_state_write(const char *dir, uint64_t epoch,
                             const dt_run_state *rs);

/* Reads and checks (magic, version, sizes, crc, epoch) the state of epoch
 * into rs (zeroed or destroyed before). CM_EIO / CM_EFORMAT naming the
 * file. */
cm_status dt_run_state_read(const char *dir, uint64_t epoch,
                            dt_run_state *rs);

/* Removes every DIR/state-*.bin but the one of keep. Errors ignored. */
void dt_run_state_prune(const char *dir, uint64_t keep);

#endif
