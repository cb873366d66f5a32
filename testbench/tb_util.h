/*
 * tb_util: what every block test shares: command-line options (seed,
 * waveform options) and a ring buffer scoreboard for beats in flight.
 * Stimulus comes from the project's generator, csim/rng.h.
 */
#ifndef TESTBENCH_RTL_TB_UTIL_H
#define TESTBENCH_RTL_TB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/rng.h"

struct tb_args {
    uint64_t seed;        /* --seed N, default 1 */
    const char *waves;    /* --waves FILE.fst, default none */
    const char *scopes;   /* --scopes A,B: scopes to trace, default all */
    uint64_t first_cycle; /* --window FIRST:LAST, cycles to trace, default 0:2000 */
    uint64_t last_cycle;
};

/* Parse argv; prints usage and returns -1 on a bad option. */
int tb_parse_args(int argc, char **argv, struct tb_args *out);

/* Fixed-capacity FIFO of 64-bit values (the expected beats). */
struct tb_ring {
    uint64_t *v;
    size_t cap, head, len;
};

void tb_ring_init(struct tb_ring *r, size_t cap);
void tb_ring_fini(struct tb_ring *r);
void tb_ring_push(struct tb_ring *r, uint64_t x);
uint64_t tb_ring_pop(struct tb_ring *r);
static inline size_t tb_ring_len(const struct tb_ring *r)
{
    return r->len;
}

#endif
