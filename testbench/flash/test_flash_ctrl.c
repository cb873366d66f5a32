/*
 * test_flash_ctrl: the controller's read path, timings as sums of named phases: one page, one
 * command striped over every die, two commands (channel-bound), per-page delivery times, a
 * slow tensor buffer, multi-plane off; byte-granular requests land exactly (guard bytes around
 * them untouched); data on a spare block after a replacement; sequential rate against the
 * read bound; errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/flash/flash_ctrl.h"
#include "models/flash/flash_fms.h"
#include "models/flash/ftl_bbm.h"
#include "models/flash/ftl_stream.h"

static uint64_t T_CMD, T_XFER, T_R, T_CTRL_RD;

/* 2 channels x 2 chips (4 dies; dies 0 and 2 on channel 0), 4 planes, 16 blocks of 8 pages,
 * 4 KiB pages, 64 KiB (16-page) commands. A superblock is 4 x 4 x 8 = 128 pages. */
#define PLANES   4
#define SB_PAGES 128
#define PAGE     4096
#define TB_BYTES (1u << 20)
#define GUARD    0xA5

struct fixture {
    struct flash_cfg cfg;
    struct flash_fms *fms;
    struct ftl_bbm bbm;
    struct ftl_stream *s;
    struct flash_ctrl c;
    struct err err;
    unsigned char *tb; /* the tensor buffer the sink writes */
    uint64_t sink_delay, last_t[64];
    unsigned n_deliv, fail_after;
};

static int sink_deliver(void *user, uint64_t addr, const void *data, uint32_t len, uint64_t t,
                        uint64_t *t_done)
{
    struct fixture *f = user;

    if (f->fail_after && f->n_deliv >= f->fail_after)
        return -EIO;
    if (addr + len > TB_BYTES)
        return -EFAULT;
    if (data)
        memcpy(f->tb + addr, data, len);
    if (f->n_deliv < 64)
        f->last_t[f->n_deliv] = t;
    f->n_deliv++;
    *t_done = t + f->sink_delay;
    return 0;
}

static int make(void **state, bool payload, bool multi_plane, bool cmd_cycles)
{
    struct fixture *f = calloc(1, sizeof(*f));
    struct ftl_stream_cfg sc;

    if (!f)
        return -1;
    flash_cfg_default(&f->cfg);
    f->cfg.geom.channels = 2;
    f->cfg.geom.chips_per_chan = 2;
    f->cfg.geom.planes_per_die = PLANES;
    f->cfg.geom.blocks_per_plane = 16;
    f->cfg.geom.pages_per_block = 8;
    f->cfg.sw.store_payload = payload;
    f->cfg.sw.multi_plane = multi_plane;
    if (!cmd_cycles)
        f->cfg.tim.t_cmd_ps = 0;
    T_CMD = f->cfg.tim.t_cmd_ps;
    T_XFER = flash_cfg_xfer_ps(&f->cfg.tim, PAGE);
    T_R = f->cfg.tim.t_r_ps;
    T_CTRL_RD = f->cfg.tim.t_ctrl_rd_ps;
    memset(&sc, 0, sizeof(sc));
    strcpy(sc.name, "V");
    sc.first_block = 1;
    sc.n_blocks = 12;
    sc.pe_budget = 1000;
    sc.retention_s = FTL_SEC_PER_DAY;
    sc.erase_on_release = true;
    f->tb = malloc(TB_BYTES);
    if (!f->tb || flash_fms_create(&f->cfg, &f->fms, &f->err) ||
        ftl_bbm_init(&f->bbm, &f->cfg.geom, 14, 2, &f->err) ||
        ftl_stream_create(&sc, f->fms, &f->bbm, &f->s, &f->err) ||
        flash_ctrl_init(&f->c, f->fms, &f->err))
        return -1;
    memset(f->tb, GUARD, TB_BYTES);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return make(state, true, true, true);
}

static int setup_timing_only(void **state)
{
    return make(state, false, true, true);
}

static int setup_single_plane(void **state)
{
    return make(state, false, false, true);
}

static int setup_no_cmd_cycles(void **state)
{
    return make(state, false, true, false);
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    flash_ctrl_fini(&f->c);
    ftl_stream_destroy(f->s);
    ftl_bbm_fini(&f->bbm);
    flash_fms_destroy(f->fms);
    free(f->tb);
    free(f);
    return 0;
}

/* rc is 0; otherwise fail with the message of the call, in e. */
static void ok(const struct err *e, int rc)
{
    if (rc)
        fail_msg("rc %d: %s", rc, e->msg);
}

/* Write n pages of a known pattern at the append point; returns when they are programmed. */
static uint64_t fill(struct fixture *f, uint64_t n, unsigned char **data)
{
    struct err e;
    unsigned char *d = malloc(n * PAGE);
    uint64_t lpn, done;

    assert_non_null(d);
    for (uint64_t i = 0; i < n * PAGE; i++)
        d[i] = (unsigned char)((i * 2654435761u) >> 11);
    ok(&e, ftl_stream_append(f->s, 0, n, f->cfg.sw.store_payload ? d : NULL, &lpn, &done, &e));
    if (data)
        *data = d;
    else
        free(d);
    return done;
}

static uint64_t rd(struct fixture *f, uint64_t now, uint64_t lpn, uint32_t off, uint64_t bytes,
                   uint64_t tb_addr)
{
    struct err e;
    struct flash_ctrl_req rq = {.lpn = lpn, .offset = off, .bytes = bytes, .tb_addr = tb_addr};
    struct flash_ctrl_sink sink = {.deliver = sink_deliver, .user = f};
    uint64_t done;

    ok(&e, flash_ctrl_read(&f->c, f->s, now, &rq, &sink, &done, &e));
    return done;
}

/* ------------------------------------------------------------------ timing */

static void test_one_page(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = fill(f, 1, NULL);

    assert_int_equal(rd(f, t0, 0, 0, PAGE, 0) - t0, T_CTRL_RD + T_CMD + T_R + T_XFER);
    assert_int_equal(f->c.st.cmds, 1);
    assert_int_equal(f->c.st.ops, 1);
}

/* 16 pages = one command = a 4-plane unit on each of the 4 dies, read in parallel; the two
 * dies of a channel take turns on its bus, which serves calls in order: die 2's command cycles
 * follow die 0's data-out. Page i of a die's unit is delivered when its own data-out ends. */
static void test_one_command_striped(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = fill(f, 16, NULL);
    /* One die's 4-plane read: 4 x 0.1 + 3 + 4 x 3.413334 = 17.053336 us. */
    uint64_t op = 4 * T_CMD + T_R + 4 * T_XFER;

    /* 1.93 + 2 x 17.053336 = 36.036672 us */
    assert_int_equal(rd(f, t0, 0, 0, 16 * PAGE, 0) - t0, T_CTRL_RD + 2 * op);
    assert_int_equal(f->c.st.cmds, 1);
    assert_int_equal(f->c.st.ops, 4);
    assert_int_equal(f->n_deliv, 16);
    for (int i = 0; i < 4; i++) /* die 0 (first on channel 0) */
        assert_int_equal(f->last_t[i] - t0, T_CTRL_RD + 4 * T_CMD + T_R + (i + 1) * T_XFER);
    for (int i = 0; i < 4; i++) /* die 2: command, tR and data-out after die 0's */
        assert_int_equal(f->last_t[8 + i] - t0,
                         T_CTRL_RD + op + 4 * T_CMD + T_R + (i + 1) * T_XFER);
}

/* 32 pages = two commands; each channel carries four 4-plane reads (two per die), one after
 * the other, each holding the bus from its command cycles to the end of its data-out:
 * channel-bound. */
static void test_two_commands_channel_bound(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = fill(f, 32, NULL);

    /* 1.93 + 4 x (4 x 0.1 + 3 + 4 x 3.413334) = 1.93 + 4 x 17.053336 = 70.143344 us */
    assert_int_equal(rd(f, t0, 0, 0, 32 * PAGE, 0) - t0,
                     T_CTRL_RD + 4 * (4 * T_CMD + T_R + 4 * T_XFER));
    assert_int_equal(f->c.st.cmds, 2);
}

/*
 * Many small requests back to back: request i reads the first page of unit i, on die i % 4,
 * so a die sees every 4th request and a channel every 2nd. With command cycles a 1-page read
 * holds its channel for 0.1 + 3 + 3.413334 = 6.513334 us, longer than two commands (3.86 us):
 * the channels bind, each serving its 32 reads back to back from its first command on.
 */
static void test_small_requests_channel_bound(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = fill(f, 256, NULL), end = 0;

    for (int i = 0; i < 64; i++) {
        uint64_t d = rd(f, t0, 4 * (uint64_t)i, 0, 512, 0);

        end = d > end ? d : end;
    }
    /* Channel 1's first command is the second one: 2 x 1.93 + 32 x 6.513334 = 212.286688 us. */
    assert_int_equal(end - t0, 2 * T_CTRL_RD + 32 * (T_CMD + T_R + T_XFER));
}

/* The same requests without command cycles: a channel carries a read's data-out only (3.413334
 * us) and a die is busy 3 + 3.413334 = 6.413334 us per read, both less than the time between
 * their requests (3.86 and 7.72 us): the controller's 1.93 us per command is the bound. */
static void test_small_requests_controller_bound(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = fill(f, 256, NULL), end = 0;

    for (int i = 0; i < 64; i++) {
        uint64_t d = rd(f, t0, 4 * (uint64_t)i, 0, 512, 0);

        end = d > end ? d : end;
    }
    /* 64 commands serial on the controller; the last page's die read follows its command:
     * 64 x 1.93 + 3 + 3.413334 = 129.933334 us. */
    assert_int_equal(end - t0, 64 * T_CTRL_RD + T_R + T_XFER);
}

static void test_slow_tensor_buffer(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = fill(f, 1, NULL);

    f->sink_delay = 777;
    assert_int_equal(rd(f, t0, 0, 0, 100, 0) - t0, T_CTRL_RD + T_CMD + T_R + T_XFER + 777);
}

static void test_multi_plane_off_page_by_page(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = fill(f, 4, NULL);

    assert_int_equal(rd(f, t0, 0, 0, 4 * PAGE, 0) - t0, T_CTRL_RD + 4 * (T_CMD + T_R + T_XFER));
    assert_int_equal(f->c.st.ops, 4);
}

/* Sequential 64 KiB requests reach the read bound of flash_cfg and never pass it: on this
 * geometry the channels, each holding the bus per 4-plane read for 4 x 0.1 + 3 + 4 x 3.413334
 * = 17.053336 us, 2 x 16 KiB / 17.053336 us = 1.921 GB/s. */
static void test_sequential_read_reaches_bound(void **state)
{
    struct fixture *f = *state;
    struct flash_bounds b;
    uint64_t pages = 8 * SB_PAGES, t0 = fill(f, pages, NULL), end = 0, hold;
    double rate, expect;

    for (uint64_t i = 0; i < pages; i += 16) {
        uint64_t d = rd(f, t0, i, 0, 16 * PAGE, 0);

        end = d > end ? d : end;
    }
    flash_cfg_read_bounds(&f->cfg, &b);
    /* 2 channels x 4 pages per bus hold: with command cycles the hold includes tR. */
    hold = 4 * T_CMD + (T_CMD ? T_R : 0) + 4 * T_XFER;
    expect = 2.0 * 4 * PAGE / ((double)hold / FLASH_PS_PER_S);
    if (b.min_bps != b.chan_bps || b.chan_bps < expect * 0.999999 || b.chan_bps > expect * 1.000001)
        fail_msg("read bound %.6f GB/s (channels %.6f), expected the channels' %.6f GB/s",
                 b.min_bps / 1e9, b.chan_bps / 1e9, expect / 1e9);
    rate = (double)pages * PAGE / ((double)(end - t0) / FLASH_PS_PER_S);
    if (rate < 0.95 * b.min_bps || rate > b.min_bps * 1.0001)
        fail_msg("sequential read %.3f GB/s, bound %.3f GB/s", rate / 1e9, b.min_bps / 1e9);
}

/* Without command cycles a channel carries data-out only: 2 x 16 KiB / (4 x 3.413334 us) =
 * 2.400 GB/s. */
static void test_sequential_read_reaches_bound_no_cmd_cycles(void **state)
{
    test_sequential_read_reaches_bound(state);
}

/* ------------------------------------------------------------------ data */

static void check_guarded(struct fixture *f, const unsigned char *src, uint64_t tb_addr,
                          uint64_t len)
{
    for (uint64_t i = 0; i < TB_BYTES; i++) {
        unsigned char want = i >= tb_addr && i < tb_addr + len ? src[i - tb_addr] : GUARD;

        if (f->tb[i] != want)
            fail_msg("tensor buffer byte %#llx: %#x, expected %#x (target %#llx + %llu)",
                     (unsigned long long)i, f->tb[i], want, (unsigned long long)tb_addr,
                     (unsigned long long)len);
    }
}

/* Offsets and lengths across bus-width, page and command boundaries. */
static void test_byte_granular_requests(void **state)
{
    struct fixture *f = *state;
    static const struct {
        uint32_t off;
        uint64_t len, tb;
    } cases[] = {
        {0, 1, 0},
        {7, 1, 9},
        {4095, 2, 100},
        {1, 4094, 4096},
        {9, 3 * PAGE, 13},
        {0, 16 * PAGE + 1, 3},
        {4000, 17 * PAGE, 65533},
    };
    unsigned char *data;
    uint64_t t0 = fill(f, 40, &data);

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (uint64_t lpn = 0; lpn < 3; lpn++) {
            memset(f->tb, GUARD, TB_BYTES);
            rd(f, t0, lpn, cases[i].off, cases[i].len, cases[i].tb);
            check_guarded(f, data + lpn * PAGE + cases[i].off, cases[i].tb, cases[i].len);
        }
    }
    free(data);
}

/* A block that fails its erase is replaced by a spare; the read path follows the remap. */
static void test_reads_follow_spare_remap(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.channel = 1, .chip = 0, .plane = 1, .block = 1};
    unsigned char *data = malloc(SB_PAGES * PAGE);
    uint64_t lpn, done, now;
    uint32_t pbn;

    assert_non_null(data);
    for (uint64_t i = 0; i < SB_PAGES * PAGE; i++)
        data[i] = (unsigned char)(i * 7 + (i >> 12));
    assert_int_equal(flash_fms_inject_erase_fail(f->fms, &a, &e), 0);
    /* LB 0 in PB 0 (block 1): write, release (erase fails on die 1 plane 1: spare 14). */
    ok(&e, ftl_stream_append(f->s, 0, SB_PAGES, data, &lpn, &done, &e));
    ok(&e, ftl_stream_release(f->s, done, 0, 1, &now, &e));
    assert_int_equal(ftl_bbm_resolve(&f->bbm, 1 * PLANES + 1, 1), 14);
    /* Every other PB once, then PB 0 again: its die 1 plane 1 pages now live on block 14. */
    for (int i = 0; i < 11; i++) {
        ok(&e, ftl_stream_append(f->s, now, SB_PAGES, NULL, &lpn, &done, &e));
        ok(&e, ftl_stream_release(f->s, done, (uint32_t)(lpn / SB_PAGES), 1, &now, &e));
    }
    ftl_stream_rewind(f->s);
    ok(&e, ftl_stream_append(f->s, now, SB_PAGES, data, &lpn, &done, &e));
    assert_int_equal(ftl_stream_lookup(f->s, 0, &pbn), 0);
    assert_int_equal(pbn, 0);
    assert_int_equal(flash_fms_block(f->fms, 1, 1, 14)->wp, 8);
    memset(f->tb, GUARD, TB_BYTES);
    rd(f, done, 0, 0, SB_PAGES * PAGE, 0);
    check_guarded(f, data, 0, SB_PAGES * PAGE);
    free(data);
}

/* ------------------------------------------------------------------ errors */

static void test_errors(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_ctrl_sink sink = {.deliver = sink_deliver, .user = f};
    struct flash_ctrl_req rq = {.lpn = 0, .offset = 0, .bytes = PAGE};
    uint64_t done, t0;

    assert_int_equal(flash_ctrl_read(&f->c, f->s, 0, &rq, &sink, &done, &e), -ENODATA);
    assert_msg_has(e.msg, "LB 0 was never written");
    t0 = fill(f, 8, NULL);
    rq.offset = PAGE;
    assert_int_equal(flash_ctrl_read(&f->c, f->s, t0, &rq, &sink, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "an offset below the page size 4096");
    rq.offset = 0;
    rq.bytes = 0;
    assert_int_equal(flash_ctrl_read(&f->c, f->s, t0, &rq, &sink, &done, &e), -EINVAL);
    rq.bytes = 9 * PAGE;
    assert_int_equal(flash_ctrl_read(&f->c, f->s, t0, &rq, &sink, &done, &e), -ENODATA);
    assert_msg_has(e.msg, "read of LPN 8: never written");
    rq.lpn = 12 * SB_PAGES - 1;
    rq.bytes = 2 * PAGE;
    assert_int_equal(flash_ctrl_read(&f->c, f->s, t0, &rq, &sink, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "ends past the stream's logical space");
    rq.lpn = 0;
    f->n_deliv = 0;
    f->fail_after = 3;
    assert_int_equal(flash_ctrl_read(&f->c, f->s, t0, &rq, &sink, &done, &e), 0);
    rq.bytes = 8 * PAGE;
    assert_int_equal(flash_ctrl_read(&f->c, f->s, t0, &rq, &sink, &done, &e), -EIO);
    assert_msg_has(e.msg, "the tensor buffer refused");
}

/* Timing-only mode hands NULL data to the sink and still times every page. */
static void test_timing_only_delivers_null(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = fill(f, 4, NULL);

    memset(f->tb, GUARD, TB_BYTES);
    assert_int_equal(rd(f, t0, 0, 0, 4 * PAGE, 0) - t0, T_CTRL_RD + 4 * T_CMD + T_R + 4 * T_XFER);
    assert_int_equal(f->n_deliv, 4);
    assert_int_equal(f->tb[0], GUARD);
    assert_int_equal(f->c.st.bytes, 4 * PAGE);
}

#define T(fn, su) cmocka_unit_test_setup_teardown(fn, su, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_one_page, setup),
        T(test_one_command_striped, setup),
        T(test_two_commands_channel_bound, setup_timing_only),
        T(test_small_requests_channel_bound, setup_timing_only),
        T(test_small_requests_controller_bound, setup_no_cmd_cycles),
        T(test_slow_tensor_buffer, setup),
        T(test_multi_plane_off_page_by_page, setup_single_plane),
        T(test_sequential_read_reaches_bound, setup_timing_only),
        T(test_sequential_read_reaches_bound_no_cmd_cycles, setup_no_cmd_cycles),
        T(test_byte_granular_requests, setup),
        T(test_reads_follow_spare_remap, setup),
        T(test_errors, setup),
        T(test_timing_only_delivers_null, setup_timing_only),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
