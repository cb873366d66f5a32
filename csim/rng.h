/*
 * rng: the one pseudo-random generator of flashstream (splitmix64).
 *
 * Every seeded choice in the simulator and its tests draws from it, so a
 * seed means the same thing everywhere. splitmix64 has a full 2^64 period,
 * passes BigCrush, and its state is a single uint64_t that a struct can hold.
 */
#ifndef CSIM_RNG_H
#define CSIM_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform integer in [0, n), n > 0 (modulo bias below 2^-40 for n < 2^24). */
static inline uint64_t rng_below(uint64_t *state, uint64_t n)
{
    return rng_next(state) % n;
}

#endif
