/* cm_rng: a small, fast, explicitly passed random number generator.
 *
 * xoshiro256** (Blackman & Vigna 2018) seeded through splitmix64 from a
 * (seed, stream) pair, so that every worker, restart or test derives an
 * independent stream from one user seed: cm_rng_seed(&r, seed, worker_id).
 * The state is a plain struct of four words: copy it to checkpoint it.
 * There is no global generator anywhere in the project.
 */
#ifndef CM_RNG_H
#define CM_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t s[4]; /* xoshiro256** state; never all zero */
} cm_rng;

/* Seeds r from (seed, stream); distinct streams give unrelated sequences. */
void cm_rng_seed(cm_rng *r, uint64_t seed, uint64_t stream);

/* Next 64 random bits. O(1). */
uint64_t cm_rng_u64(cm_rng *r);

/* Uniform double in [0, 1) with 53 random bits. */
double cm_rng_uniform(cm_rng *r);

/* Uniform integer in [0, n); n > 0. Unbiased (Lemire's method). */
uint64_t cm_rng_below(cm_rng *r, uint64_t n);

/* Standard normal N(0, 1) (polar Box-Muller; draws pairs, returns one;
 * stateless so that the sequence depends only on r). */
double cm_rng_normal(cm_rng *r);

/* Gamma(shape, 1) variate, shape > 0 (Marsaglia & Tsang 2000). */
double cm_rng_gamma(cm_rng *r, double shape);

/* Fisher-Yates shuffle of a[0..n). */
void cm_rng_shuffle_size(cm_rng *r, size_t *a, size_t n);

#endif
