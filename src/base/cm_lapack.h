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
 *                where a routine is easier to call through it.
 *
 * Integers: lapack_int and the CBLAS int are 32-bit (Debian's default
 * build); callers check a size_t fits before the cast.
 */
#ifndef CM_LAPACK_H
#define CM_LAPACK_H

#include <cblas.h>
#include <lapack.h>
#include <lapacke.h>

#endif
