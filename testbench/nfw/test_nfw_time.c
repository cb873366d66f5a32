/*
 * test_nfw_time: flash writes timed on the NAND write pipeline's twin (models/nfw/nfw_time.h)
 * and a node's flash taking the slower of the pipeline and the FTL (models/node/nflash.h):
 * the pipeline's count against the beats it must move, its rate at the paper's geometry, a
 * write that the pipeline bounds and one that the flash bounds, bad input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/nfw/nfw_time.h"
#include "models/node/nflash.h"

#define PERIOD_PS 1250

static const struct flash_geom paper = {64, 2, 1, 8, 683, 768, 4096};

/* The paper's flash (flash_cfg_default: 100 us programs) with geometry g. */
static struct flash_cfg fcfg(const struct flash_geom *g)
{
    struct flash_cfg fc;

    flash_cfg_default(&fc);
    fc.geom = *g;
    return fc;
}

static struct nfw_time *timer(const struct flash_geom *g, unsigned streams)
{
    struct err e;
    struct dram_cfg dc;
    struct nfw_time *t;
    uint32_t lb[4] = {10, 10, 10, 10};
    struct flash_cfg fc = fcfg(g);

    dram_cfg_default(&dc);
    if (nfw_time_create(&fc, streams, lb, PERIOD_PS, &dc, &t, &e))
        fail_msg("%s", e.msg);
    return t;
}

/* The lanes the paper's FMS needs at 0.8 GHz: 128 dies x 8 planes x 4 KiB per 100 us =
 * 41.9 GB/s against 6.4 GB/s a lane: 6.6, so 8; a flash 8 times slower needs 1; a fast one
 * as many as its channels allow (16 at most). */
static void test_lanes(void **state)
{
    struct flash_cfg fc = fcfg(&paper);
    (void)state;
    assert_int_equal(nfw_time_lanes(&fc, PERIOD_PS), 8);
    fc.tim.t_prog_ps *= 8;
    assert_int_equal(nfw_time_lanes(&fc, PERIOD_PS), 1);
    fc.tim.t_prog_ps = 1000;
    assert_int_equal(nfw_time_lanes(&fc, PERIOD_PS), 16);
    fc.geom.channels = 2;
    assert_int_equal(nfw_time_lanes(&fc, PERIOD_PS), 2);
}

/* A write moves at least the beats of the lane that gets the most of its pages (program unit
 * u of the stream, 8 pages, goes to lane u % 8; the issue stage sends whole pages, one 8-byte
 * beat a cycle per lane), and at most 5% more plus the fill of one program unit; at the
 * paper's geometry the 8 lanes run 1 MiB at 38-51 GB/s and 3.3 MB at 43-51 GB/s, against
 * 8 x 6.4 = 51.2 GB/s raw. */
static void test_cycles_against_beats(void **state)
{
    struct err e;
    struct nfw_time *t = timer(&paper, 2);
    static const uint64_t sizes[] = {1, 100, 4096, 4097, 65536 + 3, 1u << 20, 3300000};
    uint64_t c, at = 0; /* the stream's append point, in pages */
    (void)state;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint64_t pages = (sizes[i] + 4095) / 4096, lane[8] = {0}, most = 0;
        for (uint64_t p = at; p < at + pages; p++)
            lane[(p / 8) % 8]++;
        for (int l = 0; l < 8; l++)
            most = lane[l] > most ? lane[l] : most;
        at += pages;
        assert_int_equal(nfw_time_write(t, 0, 0x1000 + i, sizes[i], &c, &e), 0);
        assert_true(c >= most * 512);
        assert_true(c <= (most + 8) * 512 * 105 / 100);
        if (sizes[i] >= 1u << 20) {
            double gbs = (double)sizes[i] / ((double)c * PERIOD_PS / 1000.0);
            printf("# %llu bytes: %llu cycles, %.1f GB/s\n", (unsigned long long)sizes[i],
                   (unsigned long long)c, gbs);
            /* A lane issues a unit once it has read all of it: 1 MiB is 4 units a lane, so 4
             * of 5 units' time moves data; 3.3 MB is 13 a lane. */
            assert_true(gbs < 8 * 6.4);
            assert_true(gbs > (sizes[i] > 3000000 ? 0.85 : 0.75) * 8 * 6.4);
        }
    }
    assert_true(nfw_time_total_cycles(t) > 0);
    nfw_time_destroy(t);
}

/* Every write runs the twin: a write that starts mid-unit (the stream's append point after an
 * odd number of pages) takes a different count from the same write at a unit boundary. */
static void test_state_carries_over(void **state)
{
    struct err e;
    struct nfw_time *t = timer(&paper, 2);
    uint64_t a, b, c;
    (void)state;
    assert_int_equal(nfw_time_write(t, 1, 0, 8 * 4096, &a, &e), 0);
    assert_int_equal(nfw_time_write(t, 1, 0, 3 * 4096, &b, &e), 0);
    assert_int_equal(nfw_time_write(t, 1, 0, 8 * 4096, &c, &e), 0); /* mid-unit */
    assert_true(a > 0 && b > 0 && c > 0);
    assert_true(a != c);
    nfw_time_destroy(t);
}

static void test_bad_input(void **state)
{
    struct err e;
    struct nfw_time *t = timer(&paper, 2);
    struct flash_geom g = paper;
    struct flash_cfg fc;
    struct dram_cfg dc;
    struct nfw_time *u;
    uint32_t lb[2] = {1, 1};
    uint64_t c;
    (void)state;
    assert_int_equal(nfw_time_write(t, 2, 0, 4096, &c, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "stream 2; accepted 0..1"));
    assert_int_equal(nfw_time_write(t, 0, 0, 0, &c, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "accepted 1.."));
    assert_int_equal(nfw_time_write(t, 0, (16ull << 30) - 8, 64, &c, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "inside the tensor buffer"));
    nfw_time_destroy(t);

    dram_cfg_default(&dc);
    g.page_bytes = 3000; /* the pipeline takes power-of-two pages only */
    fc = fcfg(&g);
    assert_int_equal(nfw_time_create(&fc, 2, lb, PERIOD_PS, &dc, &u, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "PageBytes = 3000"));
    assert_non_null(strstr(e.msg, "does not fit the write pipeline"));
    assert_null(u);
    lb[1] = 0;
    fc = fcfg(&paper);
    assert_int_equal(nfw_time_create(&fc, 2, lb, PERIOD_PS, &dc, &u, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "stream 1 has 0 logical blocks"));
}

/* ------------------------------------------------------------------ modes */

/* A second twin as the "RTL" (the unit tests link no verilated model): the mode machinery
 * (replay of missed writes, lockstep comparison) is the same for any backend. */
static unsigned flip_after; /* completions until bad_get changes one; 0: never */

static void bad_get(void *h, struct nfw_lanes_out *o)
{
    nfw_be_twin_ops.get(h, o);
    if (o->l[0].done_valid && flip_after && --flip_after == 0)
        o->l[0].done_pbn ^= 1;
}

static struct nfw_be_ops other_twin(void)
{
    struct nfw_be_ops o = nfw_be_twin_ops;
    o.name = "rtl";
    return o;
}

/* The same writes through tlm, then rtl (the "RTL" replays the writes it missed), then
 * lockstep, then tlm again (the twin replays the rtl write): the same cycles as tlm all along. */
static void test_modes_same_cycles(void **state)
{
    struct err e;
    struct nfw_be_ops rtl = other_twin();
    struct nfw_time *a = timer(&paper, 2), *b = timer(&paper, 2);
    static const enum nfw_time_mode m[] = {NFW_TIME_TWIN,     NFW_TIME_TWIN, NFW_TIME_RTL,
                                           NFW_TIME_LOCKSTEP, NFW_TIME_TWIN, NFW_TIME_LOCKSTEP};
    (void)state;
    assert_int_equal(nfw_time_set_mode(a, NFW_TIME_RTL, NULL, 0, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "needs the write pipeline's RTL backend"));
    for (unsigned k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
        uint64_t ca, cb, n = 4096 * (k + 1) + 8 * k + 3;
        assert_int_equal(nfw_time_set_mode(a, m[k], &rtl, 1, &e), 0);
        assert_int_equal(nfw_time_mode(a), m[k]);
        assert_int_equal(nfw_time_write(a, k % 2, 0x100 + k, n, &ca, &e), 0);
        assert_int_equal(nfw_time_write(b, k % 2, 0x100 + k, n, &cb, &e), 0);
        assert_int_equal(ca, cb);
    }
    nfw_time_destroy(a);
    nfw_time_destroy(b);
}

/* Lockstep stops at the first output that differs, saying where. */
static void test_lockstep_reports(void **state)
{
    struct err e;
    struct nfw_be_ops rtl = other_twin();
    struct nfw_time *t = timer(&paper, 2);
    uint64_t c;
    (void)state;
    rtl.get = bad_get;
    flip_after = 3;
    assert_int_equal(nfw_time_set_mode(t, NFW_TIME_LOCKSTEP, &rtl, 1, &e), 0);
    assert_int_equal(nfw_time_write(t, 1, 0x40, 5 * 4096, &c, &e), -EPROTO);
    assert_non_null(strstr(e.msg, "nfw lockstep: write 0 (stream 1, 20480 bytes"));
    assert_non_null(strstr(e.msg, "done_pbn"));
    assert_non_null(strstr(e.msg, "(rtl vs twin)"));
    printf("# %s\n", e.msg);
    flip_after = 0;
    nfw_time_destroy(t);
}

/* ------------------------------------------------------------------ max(pipeline, FTL) */

struct fx {
    struct flash_cfg cfg;
    struct dram *tb;
    struct nflash with, without; /* the same flash, with and without the pipeline */
    struct nfw_time *alone;      /* the pipeline for the same writes, on its own */
    int v;
};

/* 4 channels x 1 die x 2 planes, 16 pages of 4 KiB per block; fast: a flash that programs in
 * 1 ns, erases in 1 ns, on a wide bus (the pipeline is the bound), else the paper's timing (the
 * flash is). */
static struct fx *fx_open(bool fast)
{
    struct err e;
    struct fx *f = calloc(1, sizeof(*f));
    struct dram_cfg dc;
    struct ftl_layout lay;
    static const char *const names[2] = {"NV", "V"};
    uint32_t lb[2];

    assert_non_null(f);
    flash_cfg_default(&f->cfg);
    f->cfg.geom.channels = 4;
    f->cfg.geom.chips_per_chan = 1;
    f->cfg.geom.planes_per_die = 2;
    f->cfg.geom.pages_per_block = 16;
    f->cfg.sw.store_payload = false;
    if (fast) {
        f->cfg.tim.t_prog_ps = 1000;
        f->cfg.tim.t_bers_ps = 1000;
        f->cfg.tim.t_cmd_ps = 0;
        f->cfg.tim.bus_mts = 100000;
        f->cfg.tim.bus_width_bits = 64;
        f->cfg.tim.t_ctrl_wr_ps = 1;
    }
    dram_cfg_default(&dc);
    assert_int_equal(dram_create(&dc, &f->tb, &e), 0);
    ftl_layout_an(&lay);
    if (nflash_init(&f->with, &f->cfg, &lay, names, 2, f->tb, &e) ||
        nflash_init(&f->without, &f->cfg, &lay, names, 2, f->tb, &e) ||
        nflash_set_write_pipe(&f->with, PERIOD_PS, &e))
        fail_msg("%s", e.msg);
    f->v = nflash_stream(&f->with, "V");
    for (uint32_t i = 0; i < 2; i++)
        lb[i] =
            (uint32_t)(ftl_stream_lpages(f->with.sys.s[i]) / ftl_stream_sb_pages(f->with.sys.s[i]));
    if (nfw_time_create(&f->cfg, 2, lb, PERIOD_PS, &dc, &f->alone, &e))
        fail_msg("%s", e.msg);
    return f;
}

static void fx_close(struct fx *f)
{
    nflash_fini(&f->with);
    nflash_fini(&f->without);
    nfw_time_destroy(f->alone);
    dram_destroy(f->tb);
    free(f);
}

/* Writes far apart (each finds the pipeline free): done = max(pipeline end, FTL's done);
 * returns how many the pipeline bounded. */
static unsigned run_writes(struct fx *f, uint64_t bytes, unsigned n)
{
    struct err e;
    unsigned bounded = 0;
    for (unsigned k = 0; k < n; k++) {
        uint64_t now = (uint64_t)k * 1000000000, d1, d2, f1, f2, cyc;
        struct slog_ext x1, x2;
        if (nflash_write_tb(&f->with, (uint32_t)f->v, now, 0x2000 + 8 * k, bytes, &x1, &d1, &f1,
                            &e) ||
            nflash_write_tb(&f->without, (uint32_t)f->v, now, 0x2000 + 8 * k, bytes, &x2, &d2, &f2,
                            &e) ||
            nfw_time_write(f->alone, (unsigned)f->v, 0x2000 + 8 * k, bytes, &cyc, &e))
            fail_msg("%s", e.msg);
        uint64_t pipe = now + cyc * PERIOD_PS;
        assert_int_equal(x1.lpn, x2.lpn);
        assert_int_equal(d1, pipe > d2 ? pipe : d2);
        assert_true(f1 >= pipe && f1 <= d1);
        bounded += pipe > d2;
        assert_int_equal(nflash_free(&f->with, (uint32_t)f->v, now, &x1, &e), 0);
        assert_int_equal(nflash_free(&f->without, (uint32_t)f->v, now, &x2, &e), 0);
    }
    return bounded;
}

static void test_pipeline_bound(void **state)
{
    struct fx *f = fx_open(true);
    (void)state;
    assert_int_equal(run_writes(f, 256 * 1024 + 100, 4), 4);
    assert_int_equal(f->with.wp_bound, 4);
    fx_close(f);
}

static void test_flash_bound(void **state)
{
    struct fx *f = fx_open(false);
    (void)state;
    assert_int_equal(run_writes(f, 4096, 4), 0); /* a 100 us program against ~1.4 us */
    assert_int_equal(f->with.wp_bound, 0);
    fx_close(f);
}

/* Back to back: a write asked for while the pipeline is busy waits for it. */
static void test_pipeline_is_one_resource(void **state)
{
    struct err e;
    struct fx *f = fx_open(true);
    struct slog_ext x[2];
    uint64_t d[2], fr[2], c0, c1;
    (void)state;
    assert_int_equal(
        nflash_write_tb(&f->with, (uint32_t)f->v, 0, 0, 65536, &x[0], &d[0], &fr[0], &e), 0);
    assert_int_equal(
        nflash_write_tb(&f->with, (uint32_t)f->v, 0, 0, 65536, &x[1], &d[1], &fr[1], &e), 0);
    assert_int_equal(nfw_time_write(f->alone, (unsigned)f->v, 0, 65536, &c0, &e), 0);
    assert_int_equal(nfw_time_write(f->alone, (unsigned)f->v, 0, 65536, &c1, &e), 0);
    assert_int_equal(d[0], c0 * PERIOD_PS);
    assert_int_equal(d[1], (c0 + c1) * PERIOD_PS);
    assert_int_equal(f->with.wp_ps, (c0 + c1) * PERIOD_PS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(nflash_free(&f->with, (uint32_t)f->v, d[1], &x[i], &e), 0);
    fx_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes),
        cmocka_unit_test(test_cycles_against_beats),
        cmocka_unit_test(test_state_carries_over),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_modes_same_cycles),
        cmocka_unit_test(test_lockstep_reports),
        cmocka_unit_test(test_pipeline_bound),
        cmocka_unit_test(test_flash_bound),
        cmocka_unit_test(test_pipeline_is_one_resource),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
