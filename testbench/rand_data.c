#include "testbench/rand_data.h"
#include "csim/rng.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

int rand_data_make(struct rand_data *d, uint32_t count, uint32_t inputs, uint32_t classes,
                   uint64_t seed)
{
    uint64_t s = seed;

    d->count = count;
    d->inputs = inputs;
    d->classes = classes;
    d->images = malloc((size_t)count * inputs);
    d->labels = malloc(count);
    if (!d->images || !d->labels) {
        rand_data_free(d);
        return -ENOMEM;
    }
    for (size_t i = 0; i < (size_t)count * inputs; i++) {
        uint64_t v = rng_next(&s);
        d->images[i] = v % 3 == 0 ? 0 : (uint8_t)(v >> 8);
    }
    for (uint32_t i = 0; i < count; i++)
        d->labels[i] = (uint8_t)rng_below(&s, classes);
    return 0;
}

void rand_data_free(struct rand_data *d)
{
    free(d->images);
    free(d->labels);
    d->images = d->labels = NULL;
}
