"""topogen._rng: the C code's generator (src/base/cm_rng.c) in pure
Python, draw for draw: xoshiro256** seeded by splitmix64 from (seed,
stream), Lemire's unbiased bounded integers, Fisher-Yates shuffles. The
same seed gives the same stream as `topogen --seed S`, so the builders
of topogen._build draw what the C builders draw. Not for cryptography.
"""

_M = (1 << 64) - 1


def _splitmix64(x):
    """(next state, output) of splitmix64 from state x."""
    x = (x + 0x9e3779b97f4a7c15) & _M
    z = x
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & _M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & _M
    return x, z ^ (z >> 31)


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & _M


class Rng:
    """cm_rng: Rng(seed, stream) is cm_rng_seed(&r, seed, stream)."""

    def __init__(self, seed, stream=0):
        x = (int(seed) & _M) ^ 0x5851f42d4c957f2d
        y = ((int(stream) & _M) * 0xd1342543de82ef95 +
             0x2545f4914f6cdd1d) & _M
        y, z = _splitmix64(y)
        x ^= z
        s = []
        for _ in range(4):
            x, z = _splitmix64(x)
            s.append(z)
        if not any(s):
            s[0] = 1
        self.s = s

    def u64(self):
        """cm_rng_u64: the next 64-bit output."""
        s = self.s
        result = (_rotl((s[1] * 5) & _M, 7) * 9) & _M
        t = (s[1] << 17) & _M
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def uniform(self):
        """cm_rng_uniform: a double in [0, 1), 53 random bits."""
        return (self.u64() >> 11) * (1.0 / 9007199254740992.0)

    def below(self, n):
        """cm_rng_below: uniform in [0, n), Lemire's method (n >= 1)."""
        m = self.u64() * n
        lo = m & _M
        if lo < n:
            t = ((1 << 64) - n) % n
            while lo < t:
                m = self.u64() * n
                lo = m & _M
        return m >> 64

    def shuffle(self, a):
        """cm_rng_shuffle_size: a list shuffled in place."""
        for i in range(len(a), 1, -1):
            j = self.below(i)
            a[i - 1], a[j] = a[j], a[i - 1]
