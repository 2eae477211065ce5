/*
 * rng.c - xoshiro256** (Blackman & Vigna, public-domain algorithm, written from its
 * description) with splitmix64 seeding, plus the few distributions latscope needs.
 *
 * Distributions: exponential by inversion, normal by Marsaglia's polar method, gamma by
 * Marsaglia-Tsang's squeeze method (shape >= 1) with the U^(1/k) boost for shape < 1.
 * Rejected: the libc's random()/drand48 (global state or weak low bits) and the Box-Muller
 * transform (needs sin/cos; the polar method is as simple and cheaper).
 */
#include "stats/rng.h"

#include <math.h>

void rng_seed(struct lat_rng *r, uint64_t seed)
{
    uint64_t st = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = rng_splitmix64(&st);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct lat_rng *r)
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

double rng_uniform(struct lat_rng *r)
{
    /* 53 random bits -> (0, 1]. */
    return (double)((rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

uint64_t rng_below(struct lat_rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = rng_next(r);
    while (x >= limit);
    return x % n;
}

double rng_exp(struct lat_rng *r)
{
    return -log(rng_uniform(r));
}

double rng_normal(struct lat_rng *r)
{
    double u, v, s;
    do {
        u = 2.0 * rng_uniform(r) - 1.0;
        v = 2.0 * rng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * sqrt(-2.0 * log(s) / s);
}

double rng_gamma(struct lat_rng *r, double k)
{
    if (k < 1.0) {
        /* Gamma(k) = Gamma(k + 1) * U^(1/k). */
        return rng_gamma(r, k + 1.0) * pow(rng_uniform(r), 1.0 / k);
    }
    double d = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = rng_uniform(r);
        if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
    }
}
