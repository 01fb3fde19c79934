/* dt_slab: the many equal float arrays of a rank's workers (parameters,
 * gossip outputs, optimizer state) in one allocation.
 *
 * At thousands of workers per rank these arrays are gigabytes: allocated
 * one by one with calloc, every 4 KiB page is faulted in (and zeroed by
 * the kernel) the first time a step touches it, so the first timed steps
 * paid for start-up (at 4,096 LeNet workers on 2 ranks, 3 steps, one pair
 * of runs: compute 11.6 -> 7.1 s and in-memory gossip 4.7 -> 1.8 s per
 * rank once the faults moved here). One block, zeroed at allocation, takes the faults
 * at start-up. Arrays start on 64-byte boundaries. Plain C, no MPI.
 */
#ifndef DT_SLAB_H
#define DT_SLAB_H

#include <stddef.h>

#include "cm_status.h"

/* Allocates count arrays of len floats each, zeroed and touched, in one
 * block: arrays[i] (i < count) points into it. *slab gets the block (free
 * it with dt_slab_free; the arrays die with it). count or len 0: *slab
 * NULL, nothing set. CM_ENOMEM naming what (e.g. "parameter arrays"),
 * *slab NULL. O(count len) to zero. */
cm_status dt_slab_alloc(size_t count, size_t len, const char *what,
                        float **arrays, void **slab);

/* Bytes between consecutive arrays of a slab of len-float arrays: 4 len
 * rounded up to 64. */
size_t dt_slab_stride(size_t len);

/* Frees a slab of dt_slab_alloc; accepts NULL. */
void dt_slab_free(void *slab);

#endif
