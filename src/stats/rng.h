/*
 * rng.h - latscope's seeded PRNG: xoshiro256** seeded through splitmix64.
 *
 * Used wherever a run must be reproducible from --seed (arrival schedules, fixture service
 * times and faults, random tensors). Never rand(): its state is global and its quality and
 * sequence differ between libcs. Not for cryptography. Threading: one state per user.
 */
#ifndef LAT_STATS_RNG_H
#define LAT_STATS_RNG_H

#include <stdint.h>

#include "core/mix.h"

struct lat_rng {
    uint64_t s[4];
};

/* splitmix64 step: also useful to derive independent seeds (seed ^ stream id). The one copy is
 * core/mix.h's lat_splitmix64 (for modules below stats); this name forwards to it. */
static inline uint64_t rng_splitmix64(uint64_t *state)
{
    return lat_splitmix64(state);
}
void rng_seed(struct lat_rng *r, uint64_t seed);
uint64_t rng_next(struct lat_rng *r);
/* Uniform in (0, 1]: never 0, so -log(u) is finite. */
double rng_uniform(struct lat_rng *r);
/* Uniform integer in [0, n) (n > 0), without modulo bias. */
uint64_t rng_below(struct lat_rng *r, uint64_t n);
/* Exponential with mean 1. */
double rng_exp(struct lat_rng *r);
/* Standard normal (Marsaglia polar method). */
double rng_normal(struct lat_rng *r);
/* Gamma(shape k > 0, scale 1): mean k, variance k (Marsaglia-Tsang; k < 1 by boosting). */
double rng_gamma(struct lat_rng *r, double k);

#endif
