/*
 * mix.h - splitmix64 (Steele, Lea & Flood's SplittableRandom step), the one copy.
 *
 * A fast 64-bit mix that advances a state by the golden gamma: a seeded stream of well-mixed
 * words, or an independent seed per stream (seed ^ stream id). Used by stats/rng (xoshiro
 * seeding, rng_splitmix64) and by modules below stats that need a deterministic draw without
 * depending on it (llm/workload.c). Not for cryptography. Threading: one state per user.
 */
#ifndef LAT_CORE_MIX_H
#define LAT_CORE_MIX_H

#include <stdint.h>

/* Advances *state by 0x9e3779b97f4a7c15 and returns the mixed value. */
static inline uint64_t lat_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
