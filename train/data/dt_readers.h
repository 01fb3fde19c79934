/* dt_readers: the file-format back ends behind dt_data (IDX, CIFAR-10
 * binary, synthetic). Each streams the images of a split in order and calls
 * a visitor for those selected by a mask, so dt_data can load shards and
 * compute statistics without holding a whole split. Internal to train/.
 */
#ifndef DT_READERS_H
#define DT_READERS_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "dt_data.h"

/* Called for image i (0-based within the split) with its c*h*w raw pixels
 * (borrowed for the call) and label. A non-OK return stops the scan. */
typedef cm_status (*dt_visit_fn)(void *ctx, size_t i, const uint8_t *pix,
                                 uint8_t label);

/* IDX in dir: shape from the headers (checks the magic numbers, the image
 * and label counts agree, and dims are sane). */
cm_status dt_idx_shape(const char *dir, dt_split sp, dt_shape *sh);
/* Streams images (want[i] != 0, or all when want is NULL) to f. */
cm_status dt_idx_scan(const char *dir, dt_split sp, const uint8_t *want,
                      dt_visit_fn f, void *ctx);
/* Reads all labels (sh->n of them, from dt_idx_shape) into labels. */
cm_status dt_idx_labels(const char *dir, dt_split sp, uint8_t *labels);

/* CIFAR-10 binary batches in dir or dir/cifar-10-batches-bin. */
cm_status dt_cifar_shape(const char *dir, dt_split sp, dt_shape *sh);
cm_status dt_cifar_scan(const char *dir, dt_split sp, const uint8_t *want,
                        dt_visit_fn f, void *ctx);
cm_status dt_cifar_labels(const char *dir, dt_split sp, uint8_t *labels);

/* Synthetic: image i of a split is generated from (seed, split, i) alone. */
cm_status dt_synth_shape(const dt_source *s, dt_split sp, dt_shape *sh);
cm_status dt_synth_scan(const dt_source *s, dt_split sp, const uint8_t *want,
                        dt_visit_fn f, void *ctx);
cm_status dt_synth_labels(const dt_source *s, dt_split sp, uint8_t *labels);

#endif
