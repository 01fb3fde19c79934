/* cm_blas_reserve: OpenBLAS's work buffers taken before a run under an
 * address-space limit (ulimit -v), so that the run fails instead of
 * hanging.
 *
 * OpenBLAS gives every thread that calls a level-3 routine (gemm, and
 * LAPACK through it) a work buffer from a pool, allocating a new one
 * (128 MiB and a page) when none is free, and retries that allocation
 * forever when it fails: under a low `ulimit -v` the program spins (and
 * exit() then waits for OpenBLAS's own thread, spinning the same way).
 */
#ifndef CM_BLAS_RESERVE_H
#define CM_BLAS_RESERVE_H

#include <stddef.h>

#include "cm_status.h"

/* With no address-space limit: CM_OK, nothing done. With one: takes
 * `callers` buffers (at most 64) into OpenBLAS's pool and frees them to
 * it, so that as many threads calling BLAS at once never allocate again;
 * when the limit leaves no room for them, CM_ENOMEM "out of memory: the
 * address-space limit (ulimit -v N KB) leaves no room for OpenBLAS's work
 * buffers (K x 129 MiB, one per thread): raise the limit", before any
 * BLAS call could spin. Call it first thing in main, on the main
 * thread. */
cm_status cm_blas_reserve(size_t callers);

/* Before OpenBLAS starts (called from the program's .preinit_array,
 * which runs before any shared library's constructor: OpenBLAS's own
 * starts its threads and, under a low `ulimit -v`, dies with its message
 * and exit 130): with an address-space limit below one work buffer and
 * a margin (161 MiB), writes "PROG: out of memory: the address-space
 * limit (ulimit -v N KB) leaves no room for OpenBLAS's work buffer ...:
 * raise the limit" and _exits 1. Uses only getrlimit, write, _exit. */
void cm_blas_limit_early(const char *prog);

#endif
