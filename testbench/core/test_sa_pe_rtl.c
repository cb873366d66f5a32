/*
 * Block test for the processing element rtl/core/sa_pe_cell.v (the PE datapath sa_pe.v with
 * its own flag registers), driven from C through the sa_pe shim and compared bit for bit with
 * the numerics contract (fp32_mac()/fp32_mac_clear() in models/ref/bf16.h).
 *
 *   test_sa_pe [--seed N] [--waves FILE.fst]
 *
 * Every cycle checks the forwarding outputs (the inputs of one cycle before,
 * flags gated by valid), that sum_valid pulses exactly 1 + AccStages cycles
 * after each step with last and never otherwise, the value it carries, and that
 * sum holds in between. A failure prints the seed, the step index, the operands
 * and both values. A PE of AccStages = 4 holds four sums: the test keeps four
 * tiles going, a step of the tile in slot cycle mod 4 in each cycle.
 */
#include "csim/shim/core_sa_pe.h"
#include "testbench/core/tb_bf16.h"
#include "models/ref/bf16.h"
#include "testbench/tb_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define N_RANDOM_STEPS 1000000 /* valid steps in the random test */
#define SLOTS          8       /* scoreboard ring, > 1 + the most accumulator stages */
#define MAX_SUMS       4       /* the most sums a PE holds (AccStages) */

static struct tb_args args;

/* What the PE owes at a future cycle. */
struct due {
    bool valid;
    uint32_t sum;
    uint64_t step; /* index of the step with last */
    uint32_t acc;  /* accumulator before that step */
    uint16_t a, b;
    bool clear;
};

struct dut {
    struct sa_pe_rtl *p;
    struct sa_pe_in prev; /* inputs of the previous cycle */
    struct due due[SLOTS];
    unsigned stages;        /* AccStages: the PE's sums, a tile's steps that many cycles apart */
    uint32_t acc[MAX_SUMS]; /* the C mirror of each sum */
    bool have_sum;
    uint32_t sum; /* last sum handed out */
    uint64_t steps, sums;
};

static void dut_open(struct dut *d, uint64_t seed)
{
    memset(d, 0, sizeof(*d));
    d->p = sa_pe_rtl_create(seed);
    assert_non_null(d->p);
    struct sa_pe_params prm;
    sa_pe_rtl_params(d->p, &prm);
    assert_true(prm.acc_stages >= 1 && prm.acc_stages <= MAX_SUMS);
    d->stages = prm.acc_stages;
    struct sa_pe_in in = {.rst = true};
    sa_pe_rtl_set(d->p, &in);
    sa_pe_rtl_step(d->p, 2);
}

/* One clock cycle with inputs `in`: check the outputs, update the mirror, step. */
static void dut_cycle(struct dut *d, const struct sa_pe_in *in)
{
    struct sa_pe_out out;
    uint64_t cyc = sa_pe_rtl_cycle(d->p);
    struct due *now = &d->due[cyc % SLOTS];

    sa_pe_rtl_set(d->p, in);
    sa_pe_rtl_get(d->p, &out);

    /* Forwarding: last cycle's step, flags only on valid steps. */
    if (out.valid != d->prev.valid || out.clear != (d->prev.valid && d->prev.clear) ||
        out.last != (d->prev.valid && d->prev.last))
        fail_msg("seed %llu cycle %llu: forwarded valid/clear/last %d/%d/%d, inputs were "
                 "%d/%d/%d",
                 (unsigned long long)args.seed, (unsigned long long)cyc, out.valid, out.clear,
                 out.last, d->prev.valid, d->prev.clear, d->prev.last);
    if (d->prev.valid && (out.a != d->prev.a || out.b != d->prev.b))
        fail_msg("seed %llu cycle %llu: forwarded a/b 0x%04x/0x%04x, inputs were 0x%04x/0x%04x",
                 (unsigned long long)args.seed, (unsigned long long)cyc, out.a, out.b, d->prev.a,
                 d->prev.b);

    /* The sum: exactly when due, with the contract's bits; held otherwise. */
    if (out.sum_valid != now->valid)
        fail_msg("seed %llu cycle %llu: sum_valid %d, expected %d", (unsigned long long)args.seed,
                 (unsigned long long)cyc, out.sum_valid, now->valid);
    if (now->valid) {
        if (out.sum != now->sum)
            fail_msg("seed %llu step %llu: acc 0x%08x %s a 0x%04x * b 0x%04x: PE 0x%08x, "
                     "fp32_mac 0x%08x",
                     (unsigned long long)args.seed, (unsigned long long)now->step, now->acc,
                     now->clear ? "(cleared)" : "+", now->a, now->b, out.sum, now->sum);
        d->have_sum = true;
        d->sum = out.sum;
        d->sums++;
        now->valid = false;
    } else if (d->have_sum && out.sum != d->sum) {
        fail_msg("seed %llu cycle %llu: sum changed to 0x%08x without sum_valid (was 0x%08x)",
                 (unsigned long long)args.seed, (unsigned long long)cyc, out.sum, d->sum);
    }

    if (in->valid) {
        uint32_t *acc = &d->acc[cyc % d->stages];
        uint32_t before = *acc;

        *acc = in->clear ? fp32_mac_clear(in->a, in->b) : fp32_mac(*acc, in->a, in->b);
        if (in->last) {
            struct due *later = &d->due[(cyc + 1 + d->stages) % SLOTS];
            *later = (struct due){.valid = true,
                                  .sum = *acc,
                                  .step = d->steps,
                                  .acc = before,
                                  .a = in->a,
                                  .b = in->b,
                                  .clear = in->clear};
        }
        d->steps++;
    }
    d->prev = *in;
    sa_pe_rtl_step(d->p, 1);
}

/* An idle cycle: operands are garbage, valid and flags low. */
static void dut_idle(struct dut *d, uint64_t *rng)
{
    struct sa_pe_in in = {.a = (uint16_t)rng_next(rng), .b = (uint16_t)rng_next(rng)};
    dut_cycle(d, &in);
}

/* Idle until everything due has come out and been checked, then free. */
static void dut_close(struct dut *d)
{
    uint64_t rng = args.seed;

    for (int i = 0; i < SLOTS; i++)
        dut_idle(d, &rng);
    sa_pe_rtl_destroy(d->p);
}

static void dut_step(struct dut *d, uint16_t a, uint16_t b, bool clear, bool last)
{
    struct sa_pe_in in = {.valid = true, .clear = clear, .last = last, .a = a, .b = b};
    dut_cycle(d, &in);
}

/* The sum a step in this cycle adds into. */
static unsigned dut_slot(const struct dut *d)
{
    return (unsigned)(sa_pe_rtl_cycle(d->p) % d->stages);
}

/* A step of the tile in sum 0: idle until its turn. */
static void dut_step0(struct dut *d, uint64_t *rng, uint16_t a, uint16_t b, bool clear, bool last)
{
    while (dut_slot(d) != 0)
        dut_idle(d, rng);
    dut_step(d, a, b, clear, last);
}

static void reset_leaves_it_idle(void **state)
{
    (void)state;
    struct dut d;
    uint64_t rng = args.seed;

    dut_open(&d, args.seed);
    for (int i = 0; i < 8; i++)
        dut_idle(&d, &rng); /* dut_cycle checks: no valid_o, no sum_valid */
    dut_close(&d);
}

static const uint16_t specials[] = {
    0x0000, 0x8000,                 /* zeros */
    0x0001, 0x807F, 0x0040,         /* subnormals (read as zeros) */
    0x0080, 0x8080, 0x0081, 0x0100, /* min normal and near it */
    0x2000, 0xA000, 0x1FFF, 0x9FFF, /* 2^-63 and just below: products at 2^-126 */
    0x3F80, 0xBF80, 0x3F81, 0xBFFF, /* near 1 */
    0x4000, 0x4B80, 0xCB80,         /* 2, +-2^24 */
    0x3380, 0xB380, 0x3300,         /* 2^-24, 2^-25: ties against 1 */
    0x5F80, 0x5F7F, 0xDF7F, 0x7F00, /* products near 2^128 */
    0x7F7F, 0xFF7F,                 /* max finite */
    0x7F80, 0xFF80,                 /* infinities */
    0x7FC0, 0xFFC0, 0x7F81, 0xFFFF, /* NaNs */
};

/* (a, b) whose product sets the accumulator to one class of value. */
static const uint16_t acc_setters[][2] = {
    {0x0000, 0x3F80}, {0x8000, 0x3F80}, /* +-0 */
    {0x7F80, 0x3F80}, {0xFF80, 0x3F80}, /* +-inf */
    {0x7FC0, 0x3F80},                   /* NaN */
    {0x3F80, 0x3F80}, {0xBF80, 0x3F80}, /* +-1 */
    {0x2000, 0x2000}, {0xA000, 0x2000}, /* +-2^-126 */
    {0x2000, 0x2080},                   /* 2^-125 */
    {0x5F7F, 0x5F7F}, {0xDF7F, 0x5F7F}, /* +-0x7F7E0100, near max */
    {0x4B80, 0x3F80},                   /* 2^24 */
    {0x3FFF, 0x3FFF},                   /* 16 significant bits */
};

#define ARRAY_LEN(x) (sizeof(x) / sizeof((x)[0]))

/* Every pair of specials against every accumulator class, and against its own
 * negation (exact cancellation); each tile is one cleared step then one step
 * with last, back to back, and the single-step tile (clear and last at once).
 * With gaps == true, idle cycles are sprinkled in between. */
static void run_specials(bool gaps)
{
    struct dut d;
    uint64_t rng = args.seed ^ 0x5bec1a15;
    const size_t n = ARRAY_LEN(specials);

    dut_open(&d, args.seed);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            uint16_t a = specials[i], b = specials[j];

            for (size_t s = 0; s <= ARRAY_LEN(acc_setters); s++) {
                uint16_t sa = s < ARRAY_LEN(acc_setters) ? acc_setters[s][0] : (a ^ 0x8000);
                uint16_t sb = s < ARRAY_LEN(acc_setters) ? acc_setters[s][1] : b;

                dut_step0(&d, &rng, sa, sb, true, false);
                if (gaps && rng_next(&rng) % 2)
                    dut_idle(&d, &rng);
                dut_step0(&d, &rng, a, b, false, true);
                if (gaps && rng_next(&rng) % 2)
                    dut_idle(&d, &rng);
            }
            dut_step0(&d, &rng, a, b, true, true);
        }
    }
    printf("# specials%s: %llu steps, %llu sums checked\n", gaps ? " with gaps" : "",
           (unsigned long long)d.steps, (unsigned long long)d.sums);
    dut_close(&d);
}

static void specials_back_to_back(void **state)
{
    (void)state;
    run_specials(false);
}

static void specials_with_gaps(void **state)
{
    (void)state;
    run_specials(true);
}

/*
 * Random tiles: lengths 1..64, one in each of the PE's sums, interleaved; random
 * gaps whose density changes every few thousand steps (none at all in some
 * phases: one step per cycle), partial sums
 * read out with extra last flags in some phases, operands that cancel the
 * running sum now and then. Every step's result is checked, since the phases
 * that put last on every step see every partial sum.
 */
static void random_tiles_match_fp32_mac(void **state)
{
    (void)state;
    struct dut d;
    uint64_t rng = args.seed;
    unsigned p_gap = 0, p_peek = 0;

    dut_open(&d, args.seed);
    if (args.waves) {
        struct vtrace_opts o = {
            .path = args.waves, .first_cycle = 0, .last_cycle = 2000, .scopes = NULL};
        assert_int_equal(sa_pe_rtl_trace(d.p, &o), 0);
    }
    struct {
        uint64_t k, k_len;
    } tile[MAX_SUMS] = {{0, 0}};
    while (d.steps < N_RANDOM_STEPS) {
        unsigned s = dut_slot(&d);

        if (rng_next(&rng) % 100 < p_gap) {
            dut_idle(&d, &rng);
            continue;
        }
        if (tile[s].k == tile[s].k_len) {
            tile[s].k = 0;
            tile[s].k_len = 1 + rng_next(&rng) % 64;
            if (rng_next(&rng) % 64 == 0) {
                static const unsigned gap_pct[] = {0, 0, 5, 30, 70};
                static const unsigned peek_pct[] = {0, 10, 100};
                p_gap = gap_pct[rng_next(&rng) % ARRAY_LEN(gap_pct)];
                p_peek = peek_pct[rng_next(&rng) % ARRAY_LEN(peek_pct)];
            }
        }
        uint64_t k = tile[s].k++;
        uint16_t a = rnd_bf16(&rng), b = rnd_bf16(&rng);
        bool last = k + 1 == tile[s].k_len || rng_next(&rng) % 100 < p_peek;

        if (k > 0 && rng_next(&rng) % 8 == 0) {
            /* a ~ -acc, b = 1: the sum cancels to a few ulps, often below 2^-126 */
            a = (uint16_t)(bf16_from_f32_bits(d.acc[s]) ^ 0x8000);
            b = 0x3F80;
        }
        dut_step(&d, a, b, k == 0, last);
    }
    printf("# random: %llu steps, %llu sums checked, %llu cycles\n", (unsigned long long)d.steps,
           (unsigned long long)d.sums, (unsigned long long)sa_pe_rtl_cycle(d.p));
    dut_close(&d);
}

int main(int argc, char **argv)
{
    if (tb_parse_args(argc, argv, &args) != 0)
        return 2;
    printf("# sa_pe, seed %llu\n", (unsigned long long)args.seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reset_leaves_it_idle),
        cmocka_unit_test(specials_back_to_back),
        cmocka_unit_test(specials_with_gaps),
        cmocka_unit_test(random_tiles_match_fp32_mac),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
