/*
 * test_flash_fms: timing of the flash memory system, written as sums of named phases:
 * single and multi-plane program/read/erase, cache program on and off, channel sharing,
 * multi-plane switch, controller commands; rule violations through the system are errors
 * that take no time; sparse payloads on the full 2 TiB geometry; with faults: fresh flash
 * read as without, retries repeating the whole read, an uncorrectable page, an injected
 * program failure, a dead die and power loss.
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

#include "models/flash/flash_fms.h"

/* Phases of the default timing (paper, Table 5; t_cmd ours). */
static uint64_t T_CMD, T_XFER, T_PROG, T_R, T_BERS, T_CTRL_WR, T_CTRL_RD;

struct fixture {
    struct flash_cfg cfg;
    struct flash_fms *fms;
    struct err err;
};

/* 2 channels x 2 chips x 1 die, 4 planes, 8 blocks of 4 pages: dies 0 and 2 share channel 0. */
static void small_cfg(struct flash_cfg *c)
{
    flash_cfg_default(c);
    c->geom.channels = 2;
    c->geom.chips_per_chan = 2;
    c->geom.planes_per_die = 4;
    c->geom.blocks_per_plane = 8;
    c->geom.pages_per_block = 4;
    T_CMD = c->tim.t_cmd_ps;
    T_XFER = flash_cfg_xfer_ps(&c->tim, c->geom.page_bytes);
    T_PROG = c->tim.t_prog_ps;
    T_R = c->tim.t_r_ps;
    T_BERS = c->tim.t_bers_ps;
    T_CTRL_WR = c->tim.t_ctrl_wr_ps;
    T_CTRL_RD = c->tim.t_ctrl_rd_ps;
}

static int make(void **state, bool cache, bool multi)
{
    struct fixture *f = calloc(1, sizeof(*f));

    if (!f)
        return -1;
    small_cfg(&f->cfg);
    f->cfg.sw.cache_program = cache;
    f->cfg.sw.multi_plane = multi;
    if (flash_fms_create(&f->cfg, &f->fms, &f->err)) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return make(state, true, true);
}

static int setup_nocache(void **state)
{
    return make(state, false, true);
}

static int setup_single_plane(void **state)
{
    return make(state, false, false);
}

static int setup_single_plane_cache(void **state)
{
    return make(state, true, false);
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    flash_fms_destroy(f->fms);
    free(f);
    return 0;
}

static struct flash_mpop mp(uint32_t die, uint32_t mask, uint32_t block, uint32_t page)
{
    struct flash_mpop op;

    memset(&op, 0, sizeof(op));
    op.die = die;
    op.plane_mask = mask;
    op.page = page;
    for (int p = 0; p < FLASH_MAX_PLANES; p++)
        op.block[p] = block;
    return op;
}

static void test_single_page_program(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {0};
    uint64_t done;

    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &done, &e), 0);
    assert_int_equal(done, T_CMD + T_XFER + T_PROG);
    /* Asked for later on an idle system: starts when asked. */
    a.page = 1;
    assert_int_equal(flash_fms_program_page(f->fms, 1000 * T_PROG, &a, NULL, &done, &e), 0);
    assert_int_equal(done, 1000 * T_PROG + T_CMD + T_XFER + T_PROG);
}

static void test_multi_plane_program(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop op = mp(1, 0xf, 2, 0);
    uint64_t done;

    assert_int_equal(flash_fms_program(f->fms, 0, &op, NULL, &done, &e), 0);
    assert_int_equal(done, 4 * (T_CMD + T_XFER) + T_PROG);
}

static void test_single_page_read(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {0};
    uint64_t t_prog, done;

    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &t_prog, &e), 0);
    assert_int_equal(flash_fms_read_page(f->fms, t_prog, &a, NULL, &done, &e), 0);
    assert_int_equal(done - t_prog, T_CMD + T_R + T_XFER);
}

static void test_multi_plane_read(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop op = mp(3, 0xf, 0, 0);
    uint64_t t_prog, done;

    assert_int_equal(flash_fms_program(f->fms, 0, &op, NULL, &t_prog, &e), 0);
    assert_int_equal(flash_fms_read(f->fms, t_prog, &op, NULL, &done, &e), 0);
    assert_int_equal(done - t_prog, 4 * T_CMD + T_R + 4 * T_XFER);
}

static void test_erase(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.block = 3};
    struct flash_mpop op = mp(0, 0xf, 5, 0);
    uint64_t done;

    assert_int_equal(flash_fms_erase_block(f->fms, 0, &a, &done, &e), 0);
    assert_int_equal(done, T_CMD + T_BERS);
    /* The same die is busy until then: a 4-plane erase follows it. */
    assert_int_equal(flash_fms_erase(f->fms, 0, &op, &done, &e), 0);
    assert_int_equal(done, (T_CMD + T_BERS) + (4 * T_CMD + T_BERS));
    assert_int_equal(flash_fms_block(f->fms, 0, 3, 5)->pe, 1);
}

static void test_cache_program_overlaps_data_in(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {0};
    uint64_t d0, d1, d2;

    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &d0, &e), 0);
    a.page = 1;
    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &d1, &e), 0);
    a.page = 2;
    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &d2, &e), 0);
    /* Data-in of page 1 runs during tPROG of page 0. */
    assert_int_equal(d0, T_CMD + T_XFER + T_PROG);
    assert_int_equal(d1, T_CMD + T_XFER + T_PROG + T_PROG);
    assert_int_equal(d2, T_CMD + T_XFER + 3 * T_PROG);
}

static void test_no_cache_program_serializes(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {0};
    uint64_t d0, d1;

    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &d0, &e), 0);
    a.page = 1;
    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &d1, &e), 0);
    assert_int_equal(d0, T_CMD + T_XFER + T_PROG);
    assert_int_equal(d1, 2 * (T_CMD + T_XFER + T_PROG));
}

static void test_dies_share_a_channel(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop a = mp(0, 0xf, 0, 0), b = mp(2, 0xf, 0, 0), c = mp(1, 0xf, 0, 0);
    uint64_t da, db, dc;

    /* Dies 0 and 2 are on channel 0, die 1 on channel 1. */
    assert_int_equal(flash_fms_program(f->fms, 0, &a, NULL, &da, &e), 0);
    assert_int_equal(flash_fms_program(f->fms, 0, &b, NULL, &db, &e), 0);
    assert_int_equal(flash_fms_program(f->fms, 0, &c, NULL, &dc, &e), 0);
    assert_int_equal(da, 4 * (T_CMD + T_XFER) + T_PROG);
    assert_int_equal(db, 4 * (T_CMD + T_XFER) + 4 * (T_CMD + T_XFER) + T_PROG);
    assert_int_equal(dc, 4 * (T_CMD + T_XFER) + T_PROG);
    assert_int_equal(flash_fms_chan(f->fms, 0)->bytes_in, 8 * 4096);
}

static void test_reads_take_turns_on_a_channel(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop a = mp(0, 0x1, 0, 0), b = mp(2, 0x1, 0, 0);
    const struct flash_chan *ch = flash_fms_chan(f->fms, 0);
    uint64_t t, da, db, start;

    assert_int_equal(flash_fms_program(f->fms, 0, &a, NULL, &t, &e), 0);
    assert_int_equal(flash_fms_program(f->fms, 0, &b, NULL, &start, &e), 0);
    /* Both dies idle at `start`. Die 0: command, tR, data-out = 0.1 + 3 + 3.413334 = 6.513334
     * us. Die 2's command needs the bus, which serves calls in order: it follows die 0's
     * data-out, so die 2's tR no longer runs under it: 2 x 6.513334 = 13.026668 us. */
    assert_int_equal(flash_fms_read(f->fms, start, &a, NULL, &da, &e), 0);
    assert_int_equal(flash_fms_read(f->fms, start, &b, NULL, &db, &e), 0);
    assert_int_equal(da - start, T_CMD + T_R + T_XFER);
    assert_int_equal(db - start, 2 * (T_CMD + T_R + T_XFER));
    /* The bus carried two programs (command + data each) and two reads (command, then
     * data-out): 4 x (0.1 + 3.413334) = 14.053336 us in 6 transfers. */
    assert_int_equal(ch->bus.busy_ps, 4 * (T_CMD + T_XFER));
    assert_int_equal(ch->bus.n_ops, 6);
    assert_int_equal(ch->bus.busy_until, db);
}

static void test_read_command_waits_for_the_channel(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop a = mp(2, 0x1, 0, 0), b = mp(0, 0xf, 0, 0);
    uint64_t t1, done;

    /* Die 2 holds a page and is idle at t1; then die 0's 4-page data-in takes channel 0 for
     * 4 x (0.1 + 3.413334) = 14.053336 us from t1. */
    assert_int_equal(flash_fms_program(f->fms, 0, &a, NULL, &t1, &e), 0);
    assert_int_equal(flash_fms_program(f->fms, t1, &b, NULL, &done, &e), 0);
    /* Die 2's read at t1 sends its command after that data-in: 14.053336 + 0.1 + 3 + 3.413334
     * = 20.56667 us (were the command not on the bus, its tR would end at 3.1 us and only the
     * data-out would wait: 17.46667 us). */
    assert_int_equal(flash_fms_read(f->fms, t1, &a, NULL, &done, &e), 0);
    assert_int_equal(done - t1, 4 * (T_CMD + T_XFER) + T_CMD + T_R + T_XFER);
}

static void test_erase_command_waits_for_the_channel(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop a = mp(0, 0xf, 0, 0), b = mp(2, 0xf, 1, 0);
    const struct flash_chan *ch = flash_fms_chan(f->fms, 0);
    uint64_t done;

    /* Die 0's 4-page data-in holds channel 0 for 14.053336 us; die 2's 4-plane erase, asked
     * for at 0, sends its 4 x 0.1 us of command cycles after it, then erases for 5 ms:
     * 14.053336 + 0.4 + 5000 = 5014.453336 us. */
    assert_int_equal(flash_fms_program(f->fms, 0, &a, NULL, &done, &e), 0);
    assert_int_equal(flash_fms_erase(f->fms, 0, &b, &done, &e), 0);
    assert_int_equal(done, 4 * (T_CMD + T_XFER) + 4 * T_CMD + T_BERS);
    assert_int_equal(ch->bus.busy_ps, 4 * (T_CMD + T_XFER) + 4 * T_CMD);
    assert_int_equal(ch->bus.n_ops, 2);
}

/* Without command cycles a read is on the bus for its data-out only: the second die's tR runs
 * while the first die's data is on the bus, and nothing else is claimed. */
static void test_no_command_cycles_reads_overlap_tr(void **state)
{
    struct err e = {""};
    struct flash_cfg c;
    struct flash_fms *fms;
    struct flash_mpop a = mp(0, 0x1, 0, 0), b = mp(2, 0x1, 0, 0), er = mp(2, 0x1, 1, 0);
    uint64_t t, da, db, start;

    (void)state;
    small_cfg(&c);
    c.tim.t_cmd_ps = 0;
    assert_int_equal(flash_fms_create(&c, &fms, &e), 0);
    assert_int_equal(flash_fms_program(fms, 0, &a, NULL, &t, &e), 0);
    assert_int_equal(flash_fms_program(fms, 0, &b, NULL, &start, &e), 0);
    /* 3 + 3.413334 = 6.413334 us; die 2's data-out follows die 0's: 9.826668 us. */
    assert_int_equal(flash_fms_read(fms, start, &a, NULL, &da, &e), 0);
    assert_int_equal(flash_fms_read(fms, start, &b, NULL, &db, &e), 0);
    assert_int_equal(da - start, T_R + T_XFER);
    assert_int_equal(db - start, T_R + 2 * T_XFER);
    /* An erase takes no bus time either, and leaves the bus free. */
    assert_int_equal(flash_fms_erase(fms, db, &er, &t, &e), 0);
    assert_int_equal(t - db, T_BERS);
    assert_int_equal(flash_fms_chan(fms, 0)->bus.n_ops, 4);
    assert_int_equal(flash_fms_chan(fms, 0)->bus.busy_until, db);
    flash_fms_destroy(fms);
}

static void test_multi_plane_off_runs_plane_by_plane(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop op = mp(0, 0xf, 1, 0);
    uint64_t done;

    assert_int_equal(flash_fms_program(f->fms, 0, &op, NULL, &done, &e), 0);
    assert_int_equal(done, 4 * (T_CMD + T_XFER + T_PROG));
}

static void test_multi_plane_off_with_cache(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop op = mp(0, 0xf, 1, 0);
    uint64_t done;

    assert_int_equal(flash_fms_program(f->fms, 0, &op, NULL, &done, &e), 0);
    assert_int_equal(done, (T_CMD + T_XFER) + 4 * T_PROG);
}

static void test_controller_commands_serialize(void **state)
{
    struct fixture *f = *state;
    uint64_t d0, d1, d2;

    flash_fms_ctrl_cmd(f->fms, 0, true, &d0);
    flash_fms_ctrl_cmd(f->fms, 0, true, &d1);
    flash_fms_ctrl_cmd(f->fms, 0, false, &d2);
    assert_int_equal(d0, T_CTRL_WR);
    assert_int_equal(d1, 2 * T_CTRL_WR);
    assert_int_equal(d2, 2 * T_CTRL_WR + T_CTRL_RD);
}

static void test_rule_violations_take_no_time(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.channel = 1, .chip = 1, .plane = 2, .block = 6};
    const struct flash_die *d = flash_fms_die(f->fms, 3);
    struct flash_mpop bad_die = mp(4, 1, 0, 0);
    uint64_t done, busy;

    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &done, &e), 0);
    busy = d->busy_until;
    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "ch 1 chip 1 die 0 plane 2 block 6 page 0");
    assert_msg_has(e.msg, "already programmed");
    a.page = 3;
    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "in order");
    assert_int_equal(flash_fms_read_page(f->fms, 0, &a, NULL, &done, &e), -ENODATA);
    assert_msg_has(e.msg, "page 3: page not written");
    assert_int_equal(flash_fms_erase_block(f->fms, 0, &a, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "whole blocks");
    a.page = 0;
    a.chip = 2;
    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "chip 2 is out of range; accepted 0..1");
    assert_int_equal(flash_fms_program(f->fms, 0, &bad_die, NULL, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "die index 4 is out of range; accepted 0..3");
    assert_int_equal(d->busy_until, busy);
    assert_int_equal(flash_fms_chan(f->fms, 1)->bus.n_ops, 1);
}

static void test_erase_failure_and_bad_blocks(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.plane = 1, .block = 2};
    uint64_t done;

    assert_int_equal(flash_fms_inject_erase_fail(f->fms, &a, &e), 0);
    assert_int_equal(flash_fms_erase_block(f->fms, 0, &a, &done, &e), -EIO);
    assert_int_equal(done, T_CMD + T_BERS); /* the failed erase took its time */
    assert_true(flash_fms_block(f->fms, 0, 1, 2)->bad);
    assert_int_equal(flash_fms_program_page(f->fms, done, &a, NULL, &done, &e), -EIO);
    a.block = 8;
    assert_int_equal(flash_fms_mark_bad(f->fms, &a, &e), -EINVAL);
}

/* Plane by plane, an erase goes on past every failing plane: each takes its time, the
 * multi-plane erase ends with the last and reports the failure. */
static void test_multi_plane_off_erase_past_two_failures(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.block = 3};
    struct flash_mpop op = mp(0, 0xf, 3, 0);
    uint64_t done = 0;

    a.plane = 1;
    assert_int_equal(flash_fms_inject_erase_fail(f->fms, &a, &e), 0);
    a.plane = 2;
    assert_int_equal(flash_fms_inject_erase_fail(f->fms, &a, &e), 0);
    assert_int_equal(flash_fms_erase(f->fms, 0, &op, &done, &e), -EIO);
    assert_int_equal(done, 4 * (T_CMD + T_BERS));
    for (uint32_t p = 0; p < 4; p++) {
        assert_int_equal(flash_fms_block(f->fms, 0, p, 3)->pe, 1);
        assert_int_equal(flash_fms_block(f->fms, 0, p, 3)->bad, p == 1 || p == 2);
    }
}

static void test_payload_round_trip_and_stats(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    unsigned char in[4][4096], out[4][4096];
    const void *src[FLASH_MAX_PLANES] = {in[0], in[1], in[2], in[3]};
    void *dst[FLASH_MAX_PLANES] = {out[0], out[1], out[2], out[3]};
    struct flash_mpop op = mp(2, 0xf, 4, 0);
    struct flash_fms_stats st;
    uint64_t done;

    for (int p = 0; p < 4; p++)
        memset(in[p], 0x10 + p, sizeof(in[p]));
    assert_int_equal(flash_fms_program(f->fms, 0, &op, src, &done, &e), 0);
    assert_int_equal(flash_fms_read(f->fms, done, &op, dst, &done, &e), 0);
    assert_memory_equal(in, out, sizeof(in));
    flash_fms_stats(f->fms, done, &st);
    assert_int_equal(st.pages_programmed, 4);
    assert_int_equal(st.pages_read, 4);
    assert_int_equal(st.payload_pages, 4);
    assert_int_equal(st.bytes_in, 4 * 4096);
    assert_int_equal(st.bytes_out, 4 * 4096);
    assert_int_equal(st.last_end, done);
    assert_true(st.chan_util > 0.0 && st.chan_util < 1.0);
}

/* The full 2 TiB geometry costs nothing per page until written. */
static void test_full_geometry_is_sparse(void **state)
{
    struct flash_cfg c;
    struct flash_fms *fms;
    struct err e;
    struct flash_addr a = {.channel = 63, .chip = 1, .plane = 7, .block = 682, .page = 0};
    unsigned char page[4096] = {1, 2, 3};
    unsigned char back[4096];
    struct flash_fms_stats st;
    uint64_t done;

    (void)state;
    flash_cfg_default(&c);
    assert_int_equal(flash_fms_create(&c, &fms, &e), 0);
    assert_int_equal(flash_fms_program_page(fms, 0, &a, page, &done, &e), 0);
    assert_int_equal(flash_fms_read_page(fms, done, &a, back, &done, &e), 0);
    assert_memory_equal(page, back, sizeof(page));
    flash_fms_stats(fms, done, &st);
    assert_int_equal(st.payload_pages, 1);
    flash_fms_destroy(fms);
}

/* Faults (flash_fault.h) set from specs; -1 on a bad spec. */
static void set_faults(struct fixture *f, const char *const *specs, int n)
{
    struct flash_fault_cfg c;
    struct err e = {""};

    flash_fault_cfg_default(&c);
    c.on = true;
    for (int i = 0; i < n; i++)
        if (flash_fault_parse(&c, specs[i], &e))
            fail_msg("%s", e.msg);
    if (flash_fms_set_faults(f->fms, &c, &e))
        fail_msg("%s", e.msg);
}

static void test_faults_fresh_flash_reads_as_without(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop op = mp(3, 0xf, 0, 0);
    struct flash_fault_stats st;
    uint64_t t_prog, done;

    set_faults(f, NULL, 0);
    assert_int_equal(flash_fms_program(f->fms, 0, &op, NULL, &t_prog, &e), 0);
    assert_int_equal(flash_fms_read(f->fms, t_prog, &op, NULL, &done, &e), 0);
    assert_int_equal(done - t_prog, 4 * T_CMD + T_R + 4 * T_XFER);
    assert_true(flash_fms_fault_stats(f->fms, &st));
    assert_int_equal(st.pages_checked, 4);
    assert_int_equal(st.retries, 0);
}

/* Worn and aged past the rating, a read is repeated whole once per retry its worst page
 * needs, and the retry time counted is exactly what was added. */
static void test_faults_retries_repeat_the_read(void **state)
{
    static const char *const specs[] = {"age:pe=2000000,days=2"};
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_mpop op = mp(3, 0xf, 0, 0);
    struct flash_fault_stats st;
    uint64_t t_prog, done, one = 4 * T_CMD + T_R + 4 * T_XFER;
    int retried = 0;

    set_faults(f, specs, 1);
    for (uint32_t page = 0; page < 4; page++) {
        op.page = page;
        assert_int_equal(flash_fms_program(f->fms, 0, &op, NULL, &t_prog, &e), 0);
        assert_int_equal(flash_fms_read(f->fms, t_prog, &op, NULL, &done, &e), 0);
        assert_int_equal((done - t_prog) % one, 0);
        retried += done - t_prog > one;
        flash_fms_fault_stats(f->fms, &st);
    }
    assert_true(retried > 0);
    assert_int_equal(st.pages_checked, 16);
    assert_true(st.retries >= (uint64_t)retried && st.retry_ps >= retried * one);
}

static void test_faults_uncorrectable_names_the_page(void **state)
{
    static const char *const specs[] = {"rber:x=100", "age:pe=2000000,days=30"};
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.channel = 1, .block = 5, .page = 0};
    uint64_t t_prog, done;

    set_faults(f, specs, 2);
    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &t_prog, &e), 0);
    assert_int_equal(flash_fms_read_page(f->fms, t_prog, &a, NULL, &done, &e), -EBADMSG);
    assert_msg_has(e.msg, "uncorrectable read: channel 1, die 0, plane 0, block 5, page 0");
}

static void test_faults_program_failure_retires_the_block(void **state)
{
    static const char *const specs[] = {"program:rate=1"};
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.block = 2};
    uint64_t done;

    set_faults(f, specs, 1);
    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &done, &e), -EIO);
    assert_msg_has(e.msg, "program failed (injected fault): channel 0, die 0, plane 0, block 2");
    assert_true(flash_fms_block(f->fms, 0, 0, 2)->bad);
}

static void test_faults_dead_die_and_power(void **state)
{
    static const char *const specs[] = {"die:ch=1,die=1,at=1ms", "power:at=5ms"};
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.channel = 1, .chip = 1};
    struct flash_fault_stats st;
    uint64_t done, ms = 1000000000ull;

    set_faults(f, specs, 2);
    assert_int_equal(flash_fms_program_page(f->fms, 0, &a, NULL, &done, &e), 0);
    a.page = 1;
    assert_int_equal(flash_fms_program_page(f->fms, ms, &a, NULL, &done, &e), -EIO);
    assert_msg_has(e.msg, "die 1 of channel 1 stopped answering at 1.000000 ms");
    a.chip = 0;
    a.page = 0;
    assert_int_equal(flash_fms_program_page(f->fms, ms, &a, NULL, &done, &e), 0);
    a.page = 1;
    assert_int_equal(flash_fms_program_page(f->fms, 5 * ms, &a, NULL, &done, &e), -EIO);
    assert_msg_has(e.msg, "power lost at 5.000000 ms");
    flash_fms_fault_stats(f->fms, &st);
    assert_int_equal(st.refused_dead, 1);
    assert_int_equal(st.refused_power, 1);
}

#define T(fn, su) cmocka_unit_test_setup_teardown(fn, su, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_single_page_program, setup),
        T(test_multi_plane_program, setup),
        T(test_single_page_read, setup),
        T(test_multi_plane_read, setup),
        T(test_erase, setup),
        T(test_cache_program_overlaps_data_in, setup),
        T(test_no_cache_program_serializes, setup_nocache),
        T(test_dies_share_a_channel, setup),
        T(test_reads_take_turns_on_a_channel, setup),
        T(test_read_command_waits_for_the_channel, setup),
        T(test_erase_command_waits_for_the_channel, setup),
        cmocka_unit_test(test_no_command_cycles_reads_overlap_tr),
        T(test_multi_plane_off_runs_plane_by_plane, setup_single_plane),
        T(test_multi_plane_off_with_cache, setup_single_plane_cache),
        T(test_controller_commands_serialize, setup),
        T(test_rule_violations_take_no_time, setup),
        T(test_erase_failure_and_bad_blocks, setup),
        T(test_multi_plane_off_erase_past_two_failures, setup_single_plane),
        T(test_payload_round_trip_and_stats, setup),
        cmocka_unit_test(test_full_geometry_is_sparse),
        T(test_faults_fresh_flash_reads_as_without, setup),
        T(test_faults_retries_repeat_the_read, setup),
        T(test_faults_uncorrectable_names_the_page, setup),
        T(test_faults_program_failure_retires_the_block, setup),
        T(test_faults_dead_die_and_power, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
