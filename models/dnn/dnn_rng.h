/*
 * dnn_rng: the one random number generator of the training numerics (splitmix64).
 *
 * Contract
 * --------
 * Modelled: splitmix64 (Steele, Lea, Flood 2014; Vigna's reference code), bit for bit:
 *     state = state + 0x9E3779B97F4A7C15            (mod 2^64)
 *     z = state
 *     z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9     (mod 2^64)
 *     z = (z ^ (z >> 27)) * 0x94D049BB133111EB     (mod 2^64)
 *     return z ^ (z >> 31)
 * Seeding sets state = seed (no scrambling). Derived draws, used by weight init and the shuffle:
 *     unit:  (float)(next >> 40) * 2^-24, in [0, 1), exact in fp32 (24-bit integer, power of 2)
 *     below: next % n, for n >= 1 (modulo bias of at most n / 2^64 is accepted, and specified)
 * Not modelled: anything cryptographic; streams, jumps.
 * Units: none. Caller-owned state, no globals.
 */
#ifndef MODELS_DNN_DNN_RNG_H
#define MODELS_DNN_DNN_RNG_H

#include <stdint.h>

struct dnn_rng {
    uint64_t state;
};

void dnn_rng_seed(struct dnn_rng *r, uint64_t seed);
uint64_t dnn_rng_next(struct dnn_rng *r);
float dnn_rng_unit(struct dnn_rng *r);                 /* (next >> 40) * 2^-24 */
uint64_t dnn_rng_below(struct dnn_rng *r, uint64_t n); /* next % n; n >= 1 */

#endif
