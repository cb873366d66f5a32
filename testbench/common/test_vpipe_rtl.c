/*
 * Block test for the single-stream primitives of rtl/common (cmn_skid_buf,
 * cmn_fifo), driven from C through the vpipe shim. The binary is linked with
 * one verilated configuration; the same checks run for every configuration.
 *
 *   test_<model> [--seed N] [--waves FILE.fst]
 *
 * The random stimulus comes from the printed seed; a failure prints the seed,
 * the beat index and both values.
 */
#include "csim/shim/common_vpipe.h"
#include "testbench/tb_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static struct tb_args args;

struct dut {
    struct vpipe_rtl *p;
    struct vpipe_params prm;
    uint64_t mask;
};

static void dut_open(struct dut *d, uint64_t seed)
{
    d->p = vpipe_rtl_create(seed);
    assert_non_null(d->p);
    vpipe_rtl_params(d->p, &d->prm);
    d->mask = d->prm.width >= 64 ? ~0ull : (1ull << d->prm.width) - 1;
    struct vpipe_in in = {.rst = true};
    vpipe_rtl_set(d->p, &in);
    vpipe_rtl_step(d->p, 2);
    in.rst = false;
    vpipe_rtl_set(d->p, &in);
}

static void dut_close(struct dut *d)
{
    vpipe_rtl_destroy(d->p);
}

static void reset_leaves_it_empty(void **state)
{
    (void)state;
    struct dut d;
    dut_open(&d, args.seed);
    struct vpipe_out out;
    vpipe_rtl_get(d.p, &out);
    assert_false(out.out_valid);
    assert_true(out.in_ready);
    assert_true(out.level == -1 || out.level == 0);
    dut_close(&d);
}

/* With the output stalled the block takes exactly `depth` beats. */
static void holds_depth_beats_when_stalled(void **state)
{
    (void)state;
    struct dut d;
    dut_open(&d, args.seed);
    struct vpipe_in in = {.in_valid = true, .out_ready = false};
    unsigned taken = 0;
    for (unsigned c = 0; c < 4 * d.prm.depth + 8; c++) {
        in.in_data = c & d.mask;
        vpipe_rtl_set(d.p, &in);
        struct vpipe_out out;
        vpipe_rtl_get(d.p, &out);
        taken += out.in_ready;
        vpipe_rtl_step(d.p, 1);
    }
    assert_int_equal(taken, d.prm.depth);
    dut_close(&d);
}

/* Both sides always ready: one beat per cycle once the first has arrived. */
static void full_throughput_without_stalls(void **state)
{
    (void)state;
    struct dut d;
    dut_open(&d, args.seed);
    const unsigned cycles = 10000;
    unsigned moved = 0;
    uint64_t next = 0;
    struct vpipe_in in = {.in_valid = true, .out_ready = true};
    for (unsigned c = 0; c < cycles; c++) {
        in.in_data = c & d.mask;
        vpipe_rtl_set(d.p, &in);
        struct vpipe_out out;
        vpipe_rtl_get(d.p, &out);
        assert_true(out.in_ready);
        if (out.out_valid) {
            assert_int_equal(out.out_data, next & d.mask);
            next++;
            moved++;
        }
        vpipe_rtl_step(d.p, 1);
    }
    assert_true(moved >= cycles - 2);
    dut_close(&d);
}

/*
 * Random stalls on both sides for many beats: every beat comes out once, in
 * order, and a stalled output holds its valid and payload.
 */
static void random_stalls_keep_order_without_loss(void **state)
{
    (void)state;
    struct dut d;
    dut_open(&d, args.seed);
    if (args.waves) {
        struct vtrace_opts o = {.path = args.waves,
                                .first_cycle = args.first_cycle,
                                .last_cycle = args.last_cycle,
                                .scopes = args.scopes};
        assert_int_equal(vpipe_rtl_trace(d.p, &o), 0);
    }
    const uint64_t beats = 100000;
    uint64_t sent = 0, recvd = 0, rng = args.seed;
    /* Stall probabilities change every few thousand cycles so both the
     * nearly-full and nearly-empty regimes are exercised. */
    unsigned p_in = 50, p_out = 50;
    uint64_t payload = rng_next(&rng) & d.mask;
    bool was_stalled = false, in_valid = false;
    struct vpipe_out prev = {0};
    struct tb_ring ring;
    tb_ring_init(&ring, d.prm.depth + 64);

    for (uint64_t c = 0; recvd < beats; c++) {
        if (c % 4096 == 0) {
            p_in = 10 + rng_next(&rng) % 90;
            p_out = 10 + rng_next(&rng) % 90;
        }
        /* Valid holds until the beat is taken (never depends on ready). */
        if (!in_valid && sent < beats)
            in_valid = rng_next(&rng) % 100 < p_in;
        struct vpipe_in in = {
            .in_valid = in_valid,
            .in_data = payload,
            .out_ready = rng_next(&rng) % 100 < p_out,
        };
        vpipe_rtl_set(d.p, &in);
        struct vpipe_out out;
        vpipe_rtl_get(d.p, &out);

        if (was_stalled) {
            if (!out.out_valid || out.out_data != prev.out_data)
                fail_msg("seed %llu cycle %llu: stalled output changed (valid %d data "
                         "%#llx, was %#llx)",
                         (unsigned long long)args.seed, (unsigned long long)c, out.out_valid,
                         (unsigned long long)out.out_data, (unsigned long long)prev.out_data);
        }
        if (out.level >= 0) {
            assert_true((unsigned)out.level <= d.prm.depth);
            assert_int_equal((unsigned)out.level, tb_ring_len(&ring));
        }
        if (out.out_valid && in.out_ready) {
            if (tb_ring_len(&ring) == 0)
                fail_msg("seed %llu beat %llu: output beat %#llx with nothing sent",
                         (unsigned long long)args.seed, (unsigned long long)recvd,
                         (unsigned long long)out.out_data);
            uint64_t want = tb_ring_pop(&ring);
            if (out.out_data != want)
                fail_msg("seed %llu beat %llu: got %#llx, expected %#llx",
                         (unsigned long long)args.seed, (unsigned long long)recvd,
                         (unsigned long long)out.out_data, (unsigned long long)want);
            recvd++;
        }
        if (in.in_valid && out.in_ready) {
            tb_ring_push(&ring, payload);
            sent++;
            if (tb_ring_len(&ring) > d.prm.depth)
                fail_msg("seed %llu cycle %llu: %zu beats inside a block of depth %u",
                         (unsigned long long)args.seed, (unsigned long long)c, tb_ring_len(&ring),
                         d.prm.depth);
            in_valid = false;
            payload = rng_next(&rng) & d.mask;
        }
        was_stalled = out.out_valid && !in.out_ready;
        prev = out;
        vpipe_rtl_step(d.p, 1);
        if (c > 100 * beats)
            fail_msg("seed %llu: no progress after %llu cycles (%llu sent, %llu received)",
                     (unsigned long long)args.seed, (unsigned long long)c, (unsigned long long)sent,
                     (unsigned long long)recvd);
    }
    assert_int_equal(sent, beats);
    assert_int_equal(tb_ring_len(&ring), 0);
    tb_ring_fini(&ring);
    dut_close(&d);
}

int main(int argc, char **argv)
{
    if (tb_parse_args(argc, argv, &args) != 0)
        return 2;
    struct dut d;
    d.p = vpipe_rtl_create(0);
    vpipe_rtl_params(d.p, &d.prm);
    printf("# %s width %u depth %u, seed %llu\n", d.prm.module, d.prm.width, d.prm.depth,
           (unsigned long long)args.seed);
    vpipe_rtl_destroy(d.p);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reset_leaves_it_empty),
        cmocka_unit_test(holds_depth_beats_when_stalled),
        cmocka_unit_test(full_throughput_without_stalls),
        cmocka_unit_test(random_stalls_keep_order_without_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
