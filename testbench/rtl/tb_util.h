/*
 * tb_util: what every block test shares: command-line options (seed,
 * waveform file), a small deterministic random generator, and a ring
 * buffer scoreboard for beats in flight.
 */
#ifndef TESTBENCH_RTL_TB_UTIL_H
#define TESTBENCH_RTL_TB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tb_args {
    uint64_t seed;        /* --seed N, default 1 */
    const char *waves;    /* --waves FILE.fst, default none */
    const char *scopes;   /* --scopes A,B: scopes to trace, default all */
    uint64_t first_cycle; /* --window FIRST:LAST, cycles to trace, default 0:2000 */
    uint64_t last_cycle;
};

/* Parse argv; prints usage and returns -1 on a bad option. */
int tb_parse_args(int argc, char **argv, struct tb_args *out);

/* splitmix64: a full-period 64-bit generator, good enough for stimulus. */
static inline uint64_t tb_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

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
