/* dt_partition_file: the partition a run uses, written as a counts file
 * (src/cm_labels.h) for topogen --labels.
 *
 * Both ways to write it go through dt_partition_save_counts: a training
 * run with --write-partition writes the very partition it trains on (rank
 * 0, after dt_partition_make), and `--epochs 0 --write-partition FILE`
 * computes the same partition without training (dt_partition_write_only:
 * same labels, same train limit, same minimum shard, same seed).
 */
#ifndef DT_PARTITION_FILE_H
#define DT_PARTITION_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "dt_data.h"
#include "dt_partition.h"

/* Writes p's per-worker class counts to path atomically, with the
 * identity (dataset, spec, seed, workers, images used) in the header.
 * labels: the n_images labels p was made from. CM_EIO, CM_ENOMEM.
 * O(images + workers * classes). */
cm_status dt_partition_save_counts(const char *path, const dt_partition *p,
                                   const uint8_t *labels, size_t n_images,
                                   dt_dataset dataset,
                                   const dt_part_spec *spec, uint64_t seed);

/* Loads the training labels of (dataset, dir, synth_train), keeps the
 * first train_limit (0: all), partitions them over n_workers by spec with
 * min_shard and seed exactly as a run does, and saves the counts to path.
 * Errors of the data set, the partition (prefixed --partition) or the
 * file. */
cm_status dt_partition_write_only(const char *path, dt_dataset dataset,
                                  const char *dir, size_t synth_train,
                                  size_t train_limit, size_t n_workers,
                                  const dt_part_spec *spec, size_t min_shard,
                                  uint64_t seed);

#endif
