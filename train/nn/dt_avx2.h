/* dt_avx2: the AVX2 lane helpers the engine's AVX2 + FMA kernels share
 * (dt_direct.c, dt_ind.c): a mask of the first n lanes and a store of the
 * first n lanes. static inline, compiled with the kernels' target
 * attribute, so each file gets its own inlined copy and no AVX2 code runs
 * on a CPU without it (the callers dispatch at run time). */
#ifndef DT_AVX2_H
#define DT_AVX2_H

#include <string.h>

#include <immintrin.h>

/* Lane mask of the first n (0..8) lanes. */
__attribute__((target("avx2,fma"))) static inline __m256i lanes(long n)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), idx);
}

/* Stores the first n (any n) lanes of v at p: whole vectors with a plain
 * store (a masked store is microcoded on some CPUs, e.g. AMD Zen), a
 * partial one through a buffer. */
__attribute__((target("avx2,fma"))) static inline void store_n(float *p,
                                                              __m256 v, long n)
{
    if (n >= 8) {
        _mm256_storeu_ps(p, v);
    } else if (n > 0) {
        float t[8];
        _mm256_storeu_ps(t, v);
        memcpy(p, t, (size_t)n * sizeof *p);
    }
}

#endif
