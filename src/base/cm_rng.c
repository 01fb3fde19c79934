/* cm_rng.c: xoshiro256** with splitmix64 seeding (public-domain
 * algorithms by Blackman and Vigna), Lemire's unbiased bounded integers,
 * polar Box-Muller normals and Marsaglia-Tsang gamma variates. Chosen for
 * speed and a tiny copyable state; not for cryptography. */
#include "cm_rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void cm_rng_seed(cm_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ 0x5851f42d4c957f2dULL;
    uint64_t y = stream * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL;
    x ^= splitmix64(&y);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1;
}

uint64_t cm_rng_u64(cm_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double cm_rng_uniform(cm_rng *r)
{
    return (double)(cm_rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t cm_rng_below(cm_rng *r, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)cm_rng_u64(r) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t t = -n % n;
        while (lo < t) {
            m = (unsigned __int128)cm_rng_u64(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double cm_rng_normal(cm_rng *r)
{
    double u, v, s;
    do {
        u = 2.0 * cm_rng_uniform(r) - 1.0;
        v = 2.0 * cm_rng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * sqrt(-2.0 * log(s) / s);
}

double cm_rng_gamma(cm_rng *r, double shape)
{
    if (shape < 1.0) {
        /* Gamma(a) = Gamma(a + 1) * U^(1/a) */
        double u = cm_rng_uniform(r);
        while (u == 0.0)
            u = cm_rng_uniform(r);
        return cm_rng_gamma(r, shape + 1.0) * pow(u, 1.0 / shape);
    }
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v, u;
        do {
            x = cm_rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        u = cm_rng_uniform(r);
        if (u < 1.0 - 0.0331 * x * x * x * x)
            return d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return d * v;
    }
}

void cm_rng_shuffle_size(cm_rng *r, size_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)cm_rng_below(r, i);
        size_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}
