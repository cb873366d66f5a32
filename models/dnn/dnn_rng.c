#include "models/dnn/dnn_rng.h"

#include <assert.h>

void dnn_rng_seed(struct dnn_rng *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t dnn_rng_next(struct dnn_rng *r)
{
    uint64_t z;

    r->state += 0x9E3779B97F4A7C15ull;
    z = r->state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float dnn_rng_unit(struct dnn_rng *r)
{
    /* A 24-bit integer converts to float exactly; scaling by 2^-24 is exact too. */
    return (float)(dnn_rng_next(r) >> 40) * 0x1p-24f;
}

uint64_t dnn_rng_below(struct dnn_rng *r, uint64_t n)
{
    assert(n >= 1);
    return dnn_rng_next(r) % n;
}
