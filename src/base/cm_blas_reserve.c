/* cm_blas_reserve.c: a probe allocation of the buffers' total, then the
 * buffers themselves through OpenBLAS's pool (blas_memory_alloc/free:
 * exported by libopenblas, not declared in cblas.h; cm_lapack.h declares
 * them). */
#include "cm_blas_reserve.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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

/* Appends the decimal digits of v to b[*at..). */
static void put_u(char *b, size_t *at, unsigned long long v)
{
    char d[24];
    size_t k = 0;
    do
        d[k++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (k)
        b[(*at)++] = d[--k];
}

void cm_blas_limit_early(const char *prog)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= BLAS_BUFFER_BYTES + ((size_t)32 << 20))
        return;
    char msg[512];
    size_t at = 0, l = strlen(prog);
    if (l > 64)
        l = 64;
    memcpy(msg, prog, l);
    at = l;
    static const char a[] = ": out of memory: the address-space limit "
                            "(ulimit -v ";
    static const char b[] = " KB) leaves no room for OpenBLAS's work buffer "
                            "(129 MiB, and its threads' stacks): raise the "
                            "limit\n";
    memcpy(msg + at, a, sizeof a - 1);
    at += sizeof a - 1;
    put_u(msg, &at, (unsigned long long)(rl.rlim_cur / 1024));
    memcpy(msg + at, b, sizeof b - 1);
    at += sizeof b - 1;
    ssize_t w = write(STDERR_FILENO, msg, at);
    (void)w;
    _exit(1);
}
