/* check_env.h: what the test runners (check_main.c, mpi_main.c) read from
 * the environment, handed to the tests explicitly, as dpsgd-train's main
 * hands it to the library: the library itself never reads it. */
#ifndef CHECK_ENV_H
#define CHECK_ENV_H

#include <stdlib.h>
#include <string.h>

#include "dt_layer.h"

/* 0 when the runner's environment has DPSGD_NO_AVX512 (non-empty, not
 * "0"): tests then run the portable OpenBLAS path. Set by main(). */
extern int check_allow_own;

/* What main() stores in check_allow_own. */
static inline int check_env_allow_own(void)
{
    const char *e = getenv("DPSGD_NO_AVX512");
    return !(e && *e && strcmp(e, "0") != 0);
}

/* The layer kernels tests should run: the own AVX-512 ones when allowed
 * and the CPU has them. */
static inline int check_use_avx512(void)
{
    return check_allow_own && dt_layer_cpu_avx512();
}

#endif
