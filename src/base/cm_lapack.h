/* cm_lapack: the one place where LAPACK and BLAS are declared. Every call
 * into them goes through the prototypes of Debian's headers included here,
 * never through a hand-written `extern void dpotrf_(...)`:
 *
 *   <cblas.h>    OpenBLAS's CBLAS (cblas_dgemm, cblas_dsyrk, ...) and its
 *                thread control (openblas_set_num_threads);
 *   <lapack.h>   liblapacke-dev's Fortran LAPACK prototypes, called as
 *                LAPACK_dsyev(...), LAPACK_dpotrf(...): the macros append
 *                the hidden string lengths, so a call passes exactly what
 *                the Fortran routine expects (OpenBLAS provides the
 *                routines; nothing of LAPACKE is involved);
 *   <lapacke.h>  LAPACKE's C interface (LAPACKE_dstebz, LAPACKE_dstein),
 *                where a routine is easier to call through it;
 *   below, the two functions of OpenBLAS's buffer pool that libopenblas
 *                exports but no header declares (cm_blas_reserve.c).
 *
 * Integers: lapack_int and the CBLAS int are 32-bit (Debian's default
 * build); callers check a size_t fits before the cast.
 */
#ifndef CM_LAPACK_H
#define CM_LAPACK_H

#include <cblas.h>
#include <lapack.h>
#include <lapacke.h>

/* OpenBLAS's work-buffer pool (driver/others/memory.c): a buffer of
 * BUFFER_SIZE + FIXED_PAGESIZE bytes for caller procpos, and its return. */
void *blas_memory_alloc(int procpos);
void blas_memory_free(void *buffer);

#endif
