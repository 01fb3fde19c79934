/* cm_blas_reserve.c: a probe allocation of the buffers' total, then the
 * buffers themselves through OpenBLAS's pool (blas_memory_alloc/free:
 * exported by libopenblas, not declared in cblas.h; cm_lapack.h declares
 * them). */
#include "cm_blas_reserve.h"

#include <stdlib.h>
#include <sys/resource.h>

#include "cm_lapack.h"

/* One OpenBLAS work buffer: 128 MiB and a page (BUFFER_SIZE +
 * FIXED_PAGESIZE), rounded up. */
#define BLAS_BUFFER_BYTES ((size_t)129 << 20)
#define BLAS_RESERVE_MAX 64

cm_status cm_blas_reserve(size_t callers)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return CM_OK;
    if (callers < 1)
        callers = 1;
    if (callers > BLAS_RESERVE_MAX)
        callers = BLAS_RESERVE_MAX;
    void *probe = malloc(callers * BLAS_BUFFER_BYTES);
    if (!probe)
        return cm_error(CM_ENOMEM, "out of memory: the address-space limit "
                        "(ulimit -v %llu KB) leaves no room for OpenBLAS's "
                        "work buffers (%zu x 129 MiB, one per thread): raise "
                        "the limit", (unsigned long long)(rl.rlim_cur / 1024),
                        callers);
    free(probe);
    void *buf[BLAS_RESERVE_MAX];
    for (size_t k = 0; k < callers; k++)
        buf[k] = blas_memory_alloc(0);
    for (size_t k = 0; k < callers; k++)
        blas_memory_free(buf[k]);
    return CM_OK;
}
