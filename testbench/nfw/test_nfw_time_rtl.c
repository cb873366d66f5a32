/*
 * test_nfw_time_rtl: the write lanes' RTL brought to the twin's state by a copy rather than a
 * replay (models/nfw/nfw_time.h, catch-up), proved by lockstep: the twin runs random writes
 * alone, then the RTL takes the twin's state and both run further random writes with every
 * output of every cycle compared; again after a stretch of twin-only writes (a copy over an
 * RTL that has a history of its own). A copy with one wrong register is caught. Built for the
 * loop's two builds: the paper's 8 lanes (the splitter's and merger's state) and the small
 * machine's 1 lane on a 2-die flash (its blocks fill in a few writes: the allocator's state
 * and the firmware's frees).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "csim/rng.h"
#include "csim/shim/nfw_lanes.h"
#include "models/nfw/nfw_time.h"
#include "testbench/tb_util.h"

#define PERIOD_PS 1250
#define STREAMS   3

static struct tb_args args;
static struct flash_cfg flash; /* model_flash's */

/* The flash whose write path is the linked model's build (nfw_time_params gives it back). */
static void model_flash(struct flash_cfg *fc)
{
    struct nfw_lanes_rtl *r = nfw_lanes_rtl_create(1);
    struct nfw_lanes_params mp, tp;

    assert_non_null(r);
    nfw_lanes_rtl_params(r, &mp);
    nfw_lanes_rtl_destroy(r);
    flash_cfg_default(fc);
    fc->geom.channels = mp.p.channels;
    fc->geom.chips_per_chan = mp.p.dies_per_chan;
    fc->geom.dies_per_chip = 1;
    fc->geom.planes_per_die = mp.p.planes;
    fc->geom.pages_per_block = mp.p.pages_per_block;
    fc->geom.page_bytes = mp.p.page_bytes;
    nfw_time_params(fc, STREAMS, PERIOD_PS, &tp);
    assert_memory_equal(&tp, &mp, sizeof(mp));
}

static struct nfw_time *timer(void)
{
    struct err e;
    struct dram_cfg dc;
    struct flash_cfg fc;
    struct nfw_time *t;
    uint32_t lb[STREAMS] = {3, 2, 5}; /* small: logical blocks wrap after a few writes */

    fc = flash;
    dram_cfg_default(&dc);
    dc.size_bytes = 64ull << 20;
    if (nfw_time_create(&fc, STREAMS, lb, PERIOD_PS, &dc, &t, &e))
        fail_msg("%s", e.msg);
    return t;
}

/* n random writes: a random stream, up to `most` bytes at a random address and byte offset
 * (short ones too: a piece of a program unit leaves the splitter's cursor inside it). */
static void writes(struct nfw_time *t, uint64_t *rng, unsigned n, uint64_t most, int want)
{
    for (unsigned i = 0; i < n; i++) {
        struct err e;
        unsigned s = (unsigned)rng_below(rng, STREAMS);
        uint64_t len = rng_below(rng, 4) ? 1 + rng_below(rng, most) : 1 + rng_below(rng, 5000);
        uint64_t addr = rng_below(rng, (32ull << 20) / 8) * 8 + rng_below(rng, 8), c;
        int rc = nfw_time_write(t, s, addr, len, &c, &e);

        if (rc != want)
            fail_msg("write %u (stream %u, %llu bytes at 0x%llx): %d, expected %d: %s", i, s,
                     (unsigned long long)len, (unsigned long long)addr, rc, want, rc ? e.msg : "");
        if (rc)
            return;
        assert_true(c > len / 8 / 16);
    }
}

/* Up to 1 MiB a write: the paper's 8 lanes all take pieces (a program unit of 32 KiB each);
 * the small flash's blocks (256 KiB: 2 dies of 2 planes of 16 pages) fill and are freed in
 * most writes. */
static uint64_t most_bytes(void)
{
    return flash.geom.pages_per_block > 64 ? 1u << 20 : 300000;
}

static void copy_then_lockstep(void **state)
{
    struct err e;
    struct nfw_time *t = timer();
    uint64_t rng = args.seed * 0x9e3779b97f4a7c15ull + 1, most = most_bytes();
    (void)state;

    writes(t, &rng, 40, most, 0);
    if (nfw_time_set_mode(t, NFW_TIME_LOCKSTEP, &nfw_be_rtl_ops, args.seed, &e))
        fail_msg("%s", e.msg);
    writes(t, &rng, 20, most, 0);
    assert_int_equal(nfw_time_replayed(t), 0); /* the RTL took a copy */
    /* Twin alone again, then a copy over the RTL's own history. */
    assert_int_equal(nfw_time_set_mode(t, NFW_TIME_TWIN, NULL, 0, &e), 0);
    writes(t, &rng, 25, most, 0);
    assert_int_equal(nfw_time_set_mode(t, NFW_TIME_LOCKSTEP, &nfw_be_rtl_ops, 0, &e), 0);
    writes(t, &rng, 15, most, 0);
    assert_int_equal(nfw_time_replayed(t), 0);
    /* The RTL alone, then the twin replays what it missed (it has no load) and lockstep
     * compares the two again. */
    assert_int_equal(nfw_time_set_mode(t, NFW_TIME_RTL, &nfw_be_rtl_ops, 0, &e), 0);
    writes(t, &rng, 5, most, 0);
    assert_int_equal(nfw_time_set_mode(t, NFW_TIME_LOCKSTEP, &nfw_be_rtl_ops, 0, &e), 0);
    writes(t, &rng, 5, most, 0);
    assert_int_equal(nfw_time_replayed(t), 5);
    nfw_time_destroy(t);
}

/* A copy with the append points one page ahead: the first completion differs (its LPN). */
static void rtl_load_off_by_one(void *h, const struct nfw_lanes_state *s)
{
    struct nfw_lanes_state w = *s;

    for (unsigned l = 0; l < NFW_MAX_LANES; l++)
        for (unsigned i = 0; i < NFW_STATE_STREAMS; i++)
            w.l[l].lpn[i]++;
    nfw_be_rtl_ops.load(h, &w);
}

static void wrong_copy_is_caught(void **state)
{
    struct err e;
    struct nfw_time *t = timer();
    struct nfw_be_ops bad = nfw_be_rtl_ops;
    uint64_t rng = args.seed + 7, c;
    (void)state;

    bad.load = rtl_load_off_by_one;
    writes(t, &rng, 10, most_bytes(), 0);
    assert_int_equal(nfw_time_set_mode(t, NFW_TIME_LOCKSTEP, &bad, args.seed, &e), 0);
    assert_int_equal(nfw_time_write(t, 0, 0, 4096, &c, &e), -EPROTO);
    if (!strstr(e.msg, "nfw lockstep: write") || !strstr(e.msg, "done_lpn"))
        fail_msg("unexpected report: %s", e.msg);
    nfw_time_destroy(t);
}

int main(int argc, char **argv)
{
    if (tb_parse_args(argc, argv, &args) != 0)
        return 2;
    model_flash(&flash);
    printf("# the write lanes' RTL caught up by a state copy, lockstep; seed %llu\n",
           (unsigned long long)args.seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_then_lockstep),
        cmocka_unit_test(wrong_copy_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
