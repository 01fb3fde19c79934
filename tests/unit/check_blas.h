/* check_blas.h: a Check fixture shared by the topogen suites. OpenBLAS
 * threads only slow down the small eigensolves there (and spin on a shared
 * machine): one thread while a suite runs, as in topogen itself. Included
 * by one test file each, so the static definitions are not shared state. */
#ifndef CHECK_BLAS_H
#define CHECK_BLAS_H

extern int openblas_get_num_threads(void);
extern void openblas_set_num_threads(int num_threads);

static int saved_threads = 1;

static void one_thread(void)
{
    saved_threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
}

static void restore_threads(void)
{
    openblas_set_num_threads(saved_threads);
}

#endif
