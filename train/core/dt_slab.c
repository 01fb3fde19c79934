/* dt_slab.c: equal float arrays in one zeroed block (see dt_slab.h).
 * The memset is what takes the page faults here rather than in a timed
 * step. Transparent huge pages (madvise MADV_HUGEPAGE on a 2 MiB aligned
 * block) were tried and left out: on this machine (defrag=madvise, a VM)
 * the compaction they trigger doubled the system time and start-up at
 * 4,096 workers on 2 ranks (2.5 -> 5.5 s of sys per rank, start-up 7.5 ->
 * 13.5 s) with no faster steps.
 */
#include "dt_slab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t dt_slab_stride(size_t len)
{
    return (len * sizeof(float) + 63) / 64 * 64;
}

cm_status dt_slab_alloc(size_t count, size_t len, const char *what,
                        float **arrays, void **slab)
{
    *slab = NULL;
    if (count == 0 || len == 0)
        return CM_OK;
    if (len > (SIZE_MAX - 63) / sizeof(float) ||
        count > SIZE_MAX / dt_slab_stride(len))
        return cm_error(CM_ENOMEM, "%zu %s of %zu floats: too large",
                        count, what, len);
    const size_t stride = dt_slab_stride(len), bytes = count * stride;
    char *b = aligned_alloc(64, bytes); /* bytes: a multiple of 64 */
    if (!b)
        return cm_error(CM_ENOMEM, "out of memory for %zu %s of %zu floats "
                        "(%.1f MB)", count, what, len, (double)bytes / 1e6);
    memset(b, 0, bytes);
    for (size_t i = 0; i < count; i++)
        arrays[i] = (float *)(void *)(b + i * stride);
    *slab = b;
    return CM_OK;
}

void dt_slab_free(void *slab) { free(slab); }
