/*
 * rand_data: a synthetic data set for the tests of the training machine: count images of
 * `inputs` 8-bit pixels and their labels, all drawn from one seed (csim/rng.h).
 *
 * Contract
 * --------
 * The images first, pixel by pixel, then the labels: a pixel is dark (0) when its draw is a
 * multiple of 3 (a third of them, as in real images, so that zeros exercise ReLU and its mask),
 * else bits 15:8 of the draw; a label is uniform over 0 .. classes - 1. The same arguments give
 * the same bytes.
 */
#ifndef TESTBENCH_ENV_RAND_DATA_H
#define TESTBENCH_ENV_RAND_DATA_H

#include <stdint.h>

struct rand_data {
    uint32_t count, inputs, classes;
    uint8_t *images; /* count x inputs */
    uint8_t *labels; /* count */
};

/* 0, or -ENOMEM with nothing left to free. */
int rand_data_make(struct rand_data *d, uint32_t count, uint32_t inputs, uint32_t classes,
                   uint64_t seed);
void rand_data_free(struct rand_data *d);

#endif
