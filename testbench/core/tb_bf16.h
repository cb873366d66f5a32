/*
 * tb_bf16: the random bf16 operands of the array's block tests (the PE's and the array's):
 * every class, exponents mostly near 1.0 so that sums interact, a few at the range's edges.
 */
#ifndef TESTBENCH_CORE_TB_BF16_H
#define TESTBENCH_CORE_TB_BF16_H

#include "csim/rng.h"
#include "models/ref/bf16.h"

#include <stdint.h>

static inline uint16_t rnd_bf16(uint64_t *s)
{
    uint32_t r = rng_next(s) % 64;
    uint16_t sign = (uint16_t)((rng_next(s) & 1) << 15);
    uint16_t frac = (uint16_t)(rng_next(s) % 128);
    uint32_t exp;

    if (r == 0)
        return sign;
    if (r == 1)
        return (uint16_t)(sign | (frac ? frac : 1u)); /* subnormal */
    if (r == 2)
        return (uint16_t)(sign | BF16_POS_INF);
    if (r == 3)
        return (uint16_t)(sign | BF16_POS_INF | (frac ? frac : 0x40u)); /* NaN */
    if (r < 12)
        exp = 1 + rng_next(s) % 254;
    else if (r < 16)
        exp = (rng_next(s) & 1) ? 1 + rng_next(s) % 4 : 251 + rng_next(s) % 4; /* range edges */
    else
        exp = 120 + rng_next(s) % 16;
    return (uint16_t)(sign | (exp << 7) | frac);
}

#endif
