/*
 * test_flash_ftl_stream: Behemoth's stream FTL: the paper's round-robin example, page layout
 * of a superblock, write/read timing as phase sums, sequential rates against the stated bound,
 * append-only and overflow errors, reads of unwritten data, erase on release, wear-out and
 * erase failures replaced from spares until they run out, program failures remapped to spares
 * with the block's data copied over (timing, data, out of spares), retention, endurance statistics,
 * pages written by the hardware pipeline and reported to the FTL (adopt), and their checks.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/flash/flash_fms.h"
#include "models/flash/ftl_bbm.h"
#include "models/flash/ftl_layout.h"
#include "models/flash/ftl_stream.h"

static uint64_t T_CMD, T_XFER, T_PROG, T_R, T_BERS, T_CTRL_WR, T_CTRL_RD;

/* Small FMS: 2 channels x 2 chips (4 dies), 4 planes, 16 blocks of 8 pages, 4 KiB pages.
 * A superblock (LB) is 4 dies x 4 planes x 8 pages = 128 pages. Blocks 14-15 are spares. */
#define DIES     4
#define PLANES   4
#define SB_PAGES 128
#define PAGE     4096
#define SPARE0   14
#define N_SPARES 2

struct fixture {
    struct flash_cfg cfg;
    struct flash_fms *fms;
    struct ftl_bbm bbm;
    struct ftl_stream_cfg sc;
    struct ftl_stream *s;
    struct err err;
};

static void small_cfg(struct flash_cfg *c)
{
    flash_cfg_default(c);
    c->geom.channels = 2;
    c->geom.chips_per_chan = 2;
    c->geom.planes_per_die = PLANES;
    c->geom.blocks_per_plane = 16;
    c->geom.pages_per_block = 8;
    T_CMD = c->tim.t_cmd_ps;
    T_XFER = flash_cfg_xfer_ps(&c->tim, c->geom.page_bytes);
    T_PROG = c->tim.t_prog_ps;
    T_R = c->tim.t_r_ps;
    T_BERS = c->tim.t_bers_ps;
    T_CTRL_WR = c->tim.t_ctrl_wr_ps;
    T_CTRL_RD = c->tim.t_ctrl_rd_ps;
}

static void stream_cfg(struct ftl_stream_cfg *sc, uint32_t first, uint32_t n, uint32_t nl)
{
    memset(sc, 0, sizeof(*sc));
    strcpy(sc->name, "V");
    sc->first_block = first;
    sc->n_blocks = n;
    sc->n_lblocks = nl;
    sc->pe_budget = 2000000;
    sc->retention_s = FTL_SEC_PER_DAY;
    sc->erase_on_release = true;
    sc->check_retention = true;
}

/* Fixture with FMS and bad-block manager; the stream is made by make_stream(). */
static int setup_fms(void **state, bool payload)
{
    struct fixture *f = calloc(1, sizeof(*f));

    if (!f)
        return -1;
    small_cfg(&f->cfg);
    f->cfg.sw.store_payload = payload;
    if (flash_fms_create(&f->cfg, &f->fms, &f->err))
        return -1;
    if (ftl_bbm_init(&f->bbm, &f->cfg.geom, SPARE0, N_SPARES, &f->err))
        return -1;
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return setup_fms(state, true);
}

static int setup_timing_only(void **state)
{
    return setup_fms(state, false);
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    ftl_stream_destroy(f->s);
    ftl_bbm_fini(&f->bbm);
    flash_fms_destroy(f->fms);
    free(f);
    return 0;
}

static void make_stream(struct fixture *f, uint32_t first, uint32_t n, uint32_t nl)
{
    int rc;

    stream_cfg(&f->sc, first, n, nl);
    rc = ftl_stream_create(&f->sc, f->fms, &f->bbm, &f->s, &f->err);
    if (rc)
        fail_msg("ftl_stream_create: %s", f->err.msg);
}

static void make_stream_cfg(struct fixture *f)
{
    int rc = ftl_stream_create(&f->sc, f->fms, &f->bbm, &f->s, &f->err);

    if (rc)
        fail_msg("ftl_stream_create: %s", f->err.msg);
}

/* rc is 0; otherwise fail with the message of the call, in e. */
static void ok(const struct err *e, int rc)
{
    if (rc)
        fail_msg("rc %d: %s", rc, e->msg);
}

static uint32_t pbn_of(struct fixture *f, uint32_t lbn)
{
    uint32_t pbn = 99;

    assert_int_equal(ftl_stream_lookup(f->s, lbn, &pbn), 0);
    return pbn;
}

/* ------------------------------------------------------------------ mapping */

/* Paper's example: 4 physical blocks, 3 logical per iteration; iteration 1 uses PB 0, 1, 2;
 * iteration 2 uses 3, 0, 1. */
static void test_round_robin_paper_example(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    static const uint32_t expect[3][3] = {{0, 1, 2}, {3, 0, 1}, {2, 3, 0}};
    uint64_t now = 0, lpn, done;

    make_stream(f, 1, 4, 3);
    assert_int_equal(ftl_stream_lpages(f->s), 3 * SB_PAGES);
    for (int it = 0; it < 3; it++) {
        for (uint32_t lb = 0; lb < 3; lb++) {
            ok(&e, ftl_stream_append(f->s, now, SB_PAGES, NULL, &lpn, &done, &e));
            assert_int_equal(lpn, lb * SB_PAGES); /* the append point wraps each iteration */
            now = done;
        }
        for (uint32_t lb = 0; lb < 3; lb++)
            assert_int_equal(pbn_of(f, lb), expect[it][lb]);
        ok(&e, ftl_stream_release(f->s, now, 0, 3, &done, &e));
        now = done;
    }
}

/* Offset o of a superblock -> plane o % P, unit o / P -> die unit % D, page unit / D. */
static void test_superblock_page_layout(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t done;

    make_stream(f, 1, 4, 0);
    /* LPN 0..21: units 0..4 fully (dies 0-3 page 0, die 0 page 1), unit 5 half (die 1). */
    ok(&e, ftl_stream_write(f->s, 0, 0, 22, NULL, &done, &e));
    for (uint32_t d = 0; d < DIES; d++)
        for (uint32_t p = 0; p < PLANES; p++) {
            uint32_t wp = flash_fms_block(f->fms, d, p, 1)->wp;
            uint32_t expect = d == 0 ? 2 : d == 1 ? (p < 2 ? 2 : 1) : 1;

            assert_int_equal(wp, expect);
        }
    /* The next write continues die 1 at plane 2: a 2-plane unit, then onwards. */
    ok(&e, ftl_stream_write(f->s, done, 22, 2, NULL, &done, &e));
    assert_int_equal(flash_fms_block(f->fms, 1, 3, 1)->wp, 2);
}

/* ------------------------------------------------------------------ timing */

static void test_single_page_write_timing(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t lpn, done;

    make_stream(f, 1, 4, 0);
    ok(&e, ftl_stream_append(f->s, 0, 1, NULL, &lpn, &done, &e));
    assert_int_equal(done, T_CTRL_WR + T_CMD + T_XFER + T_PROG);
}

static void test_command_of_four_units_timing(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t lpn, done, t_read;

    make_stream(f, 1, 4, 0);
    /* 16 pages = one 64 KiB command = one 4-plane unit on each of the 4 dies; dies 0 and 2 share
     * channel 0, so the second unit on a channel waits for the first's data-in. */
    ok(&e, ftl_stream_append(f->s, 0, 16, NULL, &lpn, &done, &e));
    assert_int_equal(done, T_CTRL_WR + 2 * 4 * (T_CMD + T_XFER) + T_PROG);
    /* Reading them back: one read command, then per channel two 4-plane reads, one after the
     * other on the bus (the second die's command cycles follow the first's data-out):
     * 1.93 + 2 x (4 x 0.1 + 3 + 4 x 3.413334) = 36.036672 us. */
    ok(&e, ftl_stream_read(f->s, done, 0, 16, NULL, &t_read, &e));
    assert_int_equal(t_read - done, T_CTRL_RD + 2 * (4 * T_CMD + T_R + 4 * T_XFER));
}

static void seq_write_rate(struct fixture *f, double *rate, double *bound)
{
    struct err e;
    struct flash_bounds b;
    uint64_t lpn, done, end = 0, pages = 12 * SB_PAGES;

    make_stream(f, 1, 12, 0);
    for (uint64_t i = 0; i < pages; i += 64) {
        ok(&e, ftl_stream_append(f->s, 0, 64, NULL, &lpn, &done, &e));
        end = done > end ? done : end;
    }
    flash_cfg_write_bounds(&f->cfg, &b);
    *rate = (double)pages * PAGE / ((double)end / FLASH_PS_PER_S);
    *bound = b.min_bps;
}

static void test_seq_write_reaches_bound_cache_on(void **state)
{
    struct fixture *f = *state;
    double rate, bound;

    seq_write_rate(f, &rate, &bound);
    if (rate < 0.95 * bound)
        fail_msg("sequential write %.3f GB/s < 95%% of the bound %.3f GB/s", rate / 1e9,
                 bound / 1e9);
}

static int setup_nocache(void **state)
{
    int rc = setup_fms(state, false);
    struct fixture *f = *state;

    if (rc)
        return rc;
    flash_fms_destroy(f->fms);
    f->cfg.sw.cache_program = false;
    return flash_fms_create(&f->cfg, &f->fms, &f->err);
}

static void test_seq_write_reaches_bound_cache_off(void **state)
{
    struct fixture *f = *state;
    struct flash_cfg on = f->cfg;
    struct flash_bounds b_on;
    double rate, bound;

    seq_write_rate(f, &rate, &bound);
    if (rate < 0.95 * bound)
        fail_msg("sequential write %.3f GB/s < 95%% of the bound %.3f GB/s", rate / 1e9,
                 bound / 1e9);
    /* Without cache program the bound itself drops: data-in no longer hides. */
    on.sw.cache_program = true;
    flash_cfg_write_bounds(&on, &b_on);
    assert_true(bound < 0.9 * b_on.min_bps);
}

static void test_seq_read_reaches_bound(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_bounds b;
    uint64_t lpn, done, start = 0, end = 0, pages = 12 * SB_PAGES;
    double rate;

    make_stream(f, 1, 12, 0);
    ok(&e, ftl_stream_append(f->s, 0, pages, NULL, &lpn, &start, &e));
    for (uint64_t i = 0; i < pages; i += 64) {
        ok(&e, ftl_stream_read(f->s, start, i, 64, NULL, &done, &e));
        end = done > end ? done : end;
    }
    flash_cfg_read_bounds(&f->cfg, &b);
    rate = (double)pages * PAGE / ((double)(end - start) / FLASH_PS_PER_S);
    if (rate < 0.95 * b.min_bps)
        fail_msg("sequential read %.3f GB/s < 95%% of the bound %.3f GB/s", rate / 1e9,
                 b.min_bps / 1e9);
}

/* ------------------------------------------------------------------ data and errors */

static void test_functional_round_trip(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t n = 2 * SB_PAGES + 37, done;
    unsigned char *in = malloc(n * PAGE), *out = malloc(n * PAGE);

    assert_non_null(in);
    assert_non_null(out);
    for (uint64_t i = 0; i < n * PAGE; i++)
        in[i] = (unsigned char)(i * 2654435761u >> 13);
    make_stream(f, 1, 4, 0);
    /* Odd pieces: partial units, crossing LB boundaries. */
    ok(&e, ftl_stream_write(f->s, 0, 0, 5, in, &done, &e));
    ok(&e, ftl_stream_write(f->s, done, 5, SB_PAGES, in + 5 * PAGE, &done, &e));
    ok(&e, ftl_stream_write(f->s, done, 5 + SB_PAGES, n - 5 - SB_PAGES, in + (5 + SB_PAGES) * PAGE,
                            &done, &e));
    ok(&e, ftl_stream_read(f->s, done, 3, n - 3, out + 3 * PAGE, &done, &e));
    ok(&e, ftl_stream_read(f->s, done, 0, 3, out, &done, &e));
    assert_memory_equal(in, out, n * PAGE);
    free(in);
    free(out);
}

static void test_append_only_errors(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t done;

    make_stream(f, 1, 4, 0);
    ok(&e, ftl_stream_write(f->s, 0, 0, 10, NULL, &done, &e));
    assert_int_equal(ftl_stream_write(f->s, done, 5, 1, NULL, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "append-only; LB 0 takes its next page at LPN 10");
    assert_int_equal(ftl_stream_write(f->s, done, 11, 1, NULL, &done, &e), -EINVAL);
    assert_int_equal(ftl_stream_write(f->s, done, SB_PAGES + 3, 1, NULL, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "LB 1 takes its next page at LPN 128");
    ok(&e, ftl_stream_write(f->s, done, 10, SB_PAGES - 10, NULL, &done, &e));
    assert_int_equal(ftl_stream_write(f->s, done, 0, 1, NULL, &done, &e), -EBUSY);
    assert_msg_has(e.msg, "LB 0 holds live data");
    assert_msg_has(e.msg, "release it before rewriting");
}

static void test_overflow_is_an_error(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t lpn, done;

    make_stream(f, 1, 4, 2);
    ok(&e, ftl_stream_append(f->s, 0, SB_PAGES + 100, NULL, &lpn, &done, &e));
    assert_int_equal(ftl_stream_append(f->s, done, 29, NULL, &lpn, &done, &e), -ENOSPC);
    assert_msg_has(e.msg, "stream 'V' overflow");
    assert_msg_has(e.msg, "logical space of 256 pages (2 LBs of 128 pages)");
    ok(&e, ftl_stream_append(f->s, done, 28, NULL, &lpn, &done, &e));
    /* The append point wraps, but LB 0 still holds live data. */
    assert_int_equal(ftl_stream_append(f->s, done, 1, NULL, &lpn, &done, &e), -EBUSY);
}

static void test_read_never_written_is_an_error(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t done;

    make_stream(f, 1, 4, 0);
    assert_int_equal(ftl_stream_read(f->s, 0, 200, 1, NULL, &done, &e), -ENODATA);
    assert_msg_has(e.msg, "LB 1 was never written");
    ok(&e, ftl_stream_write(f->s, 0, 0, 6, NULL, &done, &e));
    assert_int_equal(ftl_stream_read(f->s, done, 4, 3, NULL, &done, &e), -ENODATA);
    assert_msg_has(e.msg, "read of LPN 6: never written; LB 0 holds LPNs 0..5");
    ok(&e, ftl_stream_read(f->s, done, 4, 2, NULL, &done, &e));
    ok(&e, ftl_stream_release(f->s, done, 0, 1, &done, &e));
    assert_int_equal(ftl_stream_read(f->s, done, 0, 1, NULL, &done, &e), -ENODATA);
    assert_int_equal(ftl_stream_read(f->s, done, 4 * SB_PAGES, 1, NULL, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "past the logical space");
    assert_int_equal(ftl_stream_release(f->s, done, 0, 1, &done, &e), -EINVAL);
    assert_msg_has(e.msg, "release of LB 0: not mapped");
}

/* ------------------------------------------------------------------ erase, wear, spares */

static void test_erase_on_release_is_ahead_of_need(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t lpn, done, t_rel, t_w;

    make_stream(f, 1, 2, 0);
    ok(&e, ftl_stream_append(f->s, 0, 2 * SB_PAGES, NULL, &lpn, &done, &e));
    ok(&e, ftl_stream_release(f->s, done, 0, 1, &t_rel, &e));
    /* One 4-plane erase on every die, in parallel once the two dies of a channel have sent
     * their command cycles one after the other: 2 x 4 x 0.1 + 5000 = 5000.8 us. */
    assert_int_equal(t_rel - done, 2 * 4 * T_CMD + T_BERS);
    assert_int_equal(flash_fms_block(f->fms, 3, 2, 1)->pe, 1);
    /* Rewriting LB 0 after the erase finished costs no erase. */
    ok(&e, ftl_stream_append(f->s, t_rel, 1, NULL, &lpn, &t_w, &e));
    assert_int_equal(lpn, 0);
    assert_int_equal(t_w - t_rel, T_CTRL_WR + T_CMD + T_XFER + T_PROG);
}

static void test_erase_deferred_to_reallocation(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t lpn, done, t_rel, t_w;

    stream_cfg(&f->sc, 1, 2, 0);
    f->sc.erase_on_release = false;
    make_stream_cfg(f);
    ok(&e, ftl_stream_append(f->s, 0, 2 * SB_PAGES, NULL, &lpn, &done, &e));
    ok(&e, ftl_stream_release(f->s, done, 0, 1, &t_rel, &e));
    assert_int_equal(t_rel, done);
    assert_int_equal(flash_fms_block(f->fms, 0, 0, 1)->pe, 0);
    /* Now the erase is on the write path. */
    ok(&e, ftl_stream_append(f->s, t_rel, 1, NULL, &lpn, &t_w, &e));
    assert_int_equal(t_w - t_rel, 4 * T_CMD + T_BERS + T_CMD + T_XFER + T_PROG);
}

/* Write and release one LB (round-robin over the stream's PBs). */
static int cycle(struct fixture *f, uint64_t *now, struct err *e)
{
    uint64_t lpn, done;
    int rc = ftl_stream_append(f->s, *now, SB_PAGES, NULL, &lpn, &done, e);

    if (rc)
        return rc;
    rc = ftl_stream_release(f->s, done, (uint32_t)(lpn / SB_PAGES), 1, now, e);
    return rc;
}

static void test_wear_out_uses_spares_then_reports(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct ftl_stream_stats st;
    uint64_t now = 0;
    int rc = 0, i;

    /* Budget 3 P/E, 2 PBs, 1 LB: PB k is erased on cycles k, k+2, k+4. */
    stream_cfg(&f->sc, 1, 2, 1);
    f->sc.pe_budget = 3;
    make_stream_cfg(f);
    for (i = 0; i < 4; i++)
        ok(&e, cycle(f, &now, &e));
    /* 2 erases each: still the original blocks. */
    assert_int_equal(ftl_bbm_resolve(&f->bbm, 0, 1), 1);
    ok(&e, cycle(f, &now, &e)); /* PB 0's 3rd erase: worn out, replaced by spare 14 everywhere */
    assert_int_equal(ftl_bbm_resolve(&f->bbm, 0, 1), SPARE0);
    assert_int_equal(ftl_bbm_resolve(&f->bbm, DIES * PLANES - 1, 1), SPARE0);
    assert_true(flash_fms_block(f->fms, 2, 3, 1)->bad);
    ok(&e, cycle(f, &now, &e)); /* PB 1 worn out: spare 15 */
    assert_int_equal(ftl_bbm_resolve(&f->bbm, 5, 2), SPARE0 + 1);
    ftl_stream_stats(f->s, now, &st);
    assert_int_equal(st.blocks_replaced, 2 * DIES * PLANES);
    /* Spares (new blocks) wear out three cycles later; then none is left. */
    for (i = 0; i < 8 && !rc; i++)
        rc = cycle(f, &now, &e);
    assert_int_equal(rc, -ENOSPC);
    assert_msg_has(e.msg, "stream 'V' PB 0");
    assert_msg_has(e.msg, "worn out (P/E 3 >= budget 3)");
    assert_msg_has(e.msg, "no spare block left in this plane: all 2 spares "
                          "(blocks 14..15) are in use");
    assert_msg_has(e.msg, "superblock retired, stream capacity now 1 of 2");
    ftl_stream_stats(f->s, now, &st);
    assert_int_equal(st.sb_retired, 1);
}

static void test_erase_failure_replaced_from_spare(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.channel = 1, .chip = 1, .plane = 2, .block = 1};
    uint32_t die = flash_addr_die_index(&f->cfg.geom, &a);
    uint32_t dp = die * PLANES + 2;
    unsigned char in[PAGE], out[PAGE];
    uint64_t now = 0, done;

    make_stream(f, 1, 2, 1);
    assert_int_equal(flash_fms_inject_erase_fail(f->fms, &a, &e), 0);
    ok(&e, cycle(f, &now, &e)); /* PB 0's erase fails on one plane: it goes to spare 14 */
    assert_int_equal(ftl_bbm_resolve(&f->bbm, dp, 1), SPARE0);
    assert_int_equal(ftl_bbm_resolve(&f->bbm, dp - 1, 1), 1);
    assert_int_equal(ftl_bbm_spares_left(&f->bbm, dp), N_SPARES - 1);
    /* The stream keeps working on the replacement: LPN 14 = unit 3 (die 3), plane 2, page 0. */
    ok(&e, cycle(f, &now, &e));
    for (int i = 0; i < 16; i++) {
        memset(in, i, sizeof(in));
        ok(&e, ftl_stream_append(f->s, now, 1, in, &done, &now, &e));
    }
    ok(&e, ftl_stream_read(f->s, now, 14, 1, out, &now, &e));
    memset(in, 14, sizeof(in));
    assert_memory_equal(in, out, PAGE);
    assert_int_equal(flash_fms_block(f->fms, die, 2, SPARE0)->wp, 1);
    assert_int_equal(flash_fms_block(f->fms, die, 2, 1)->wp, 0);
}

/* ------------------------------------------------------------------ program failures */

static void set_faults(struct fixture *f, const char *const *specs, int n)
{
    struct flash_fault_cfg c;
    struct err e = {""};

    flash_fault_cfg_default(&c);
    for (int i = 0; i < n; i++)
        if (flash_fault_parse(&c, specs[i], &e))
            fail_msg("%s", e.msg);
    if (flash_fms_set_faults(f->fms, &c, &e))
        fail_msg("%s", e.msg);
}

/* A program failing at page 3 of a block: a spare takes the block's place, pages 0-2 are read
 * back from the failed block and programmed there one after the other, then page 3 from the
 * write buffer; the data read back are those written, and the time is the phases' sum. */
static void test_program_failure_remapped_to_spare(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    /* LPN 3 x 16 + 5 = 53: unit 13 -> die 1 (channel 1, chip 0), page 3, plane 1 */
    struct flash_addr a = {.channel = 1, .chip = 0, .plane = 1, .block = 1};
    uint32_t die = flash_addr_die_index(&f->cfg.geom, &a), dp = die * PLANES + 1;
    uint64_t n = SB_PAGES, done, t_unit;
    unsigned char *in = malloc(n * PAGE), *out = malloc(n * PAGE);
    struct ftl_stream_stats st;
    uint64_t copy = (T_CMD + T_R + T_XFER) + (T_CMD + T_XFER + T_PROG);

    assert_non_null(in);
    assert_non_null(out);
    assert_int_equal(die, 1);
    for (uint64_t i = 0; i < n * PAGE; i++)
        in[i] = (unsigned char)(i * 2654435761u >> 11);
    make_stream(f, 1, 4, 0);
    ok(&e, ftl_stream_write(f->s, 0, 0, 52, in, &done, &e));
    assert_int_equal(flash_fms_inject_program_fail(f->fms, &a, &e), 0);
    /* The unit of LPN 52..55 alone, on idle resources: its program ends at t_unit. */
    t_unit = done + T_CTRL_WR + 4 * (T_CMD + T_XFER) + T_PROG;
    ok(&e, ftl_stream_write(f->s, done, 52, 4, in + 52 * PAGE, &done, &e));
    assert_int_equal(done, t_unit + 3 * copy + (T_CMD + T_XFER + T_PROG));
    assert_int_equal(ftl_bbm_resolve(&f->bbm, dp, 1), SPARE0);
    assert_int_equal(ftl_bbm_resolve(&f->bbm, dp - 1, 1), 1);
    assert_true(flash_fms_block(f->fms, die, 1, 1)->bad);
    assert_int_equal(flash_fms_block(f->fms, die, 1, SPARE0)->wp, 4);
    ok(&e, ftl_stream_write(f->s, done, 56, n - 56, in + 56 * PAGE, &done, &e));
    ok(&e, ftl_stream_read(f->s, done, 0, n, out, &done, &e));
    assert_memory_equal(in, out, n * PAGE);
    ftl_stream_stats(f->s, done, &st);
    assert_int_equal(st.program_remaps, 1);
    assert_int_equal(st.blocks_replaced, 1);
    assert_int_equal(st.remap_pages, 3);
    assert_int_equal(st.remap_ps, 3 * copy + T_CMD + T_XFER + T_PROG);
    free(in);
    free(out);
}

/* Failures at a rate over several LBs, written and released: every failure is remapped, the
 * data read back are those written, and the counts agree with the fault model's. */
static void test_program_failures_at_a_rate_keep_the_data(void **state)
{
    static const char *const specs[] = {"program:rate=0.004", "seed:n=7"};
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t n = 3 * SB_PAGES, done = 0;
    unsigned char *in = malloc(n * PAGE), *out = malloc(n * PAGE);
    struct flash_fault_stats fs;
    struct ftl_stream_stats st;

    assert_non_null(in);
    assert_non_null(out);
    set_faults(f, specs, 2);
    make_stream(f, 1, 4, 0);
    for (int round = 0; round < 2; round++) {
        for (uint64_t i = 0; i < n * PAGE; i++)
            in[i] = (unsigned char)((i + round) * 2654435761u >> 9);
        ok(&e, ftl_stream_write(f->s, done, 0, n, in, &done, &e));
        ok(&e, ftl_stream_read(f->s, done, 0, n, out, &done, &e));
        assert_memory_equal(in, out, n * PAGE);
        ok(&e, ftl_stream_release(f->s, done, 0, 3, &done, &e));
    }
    assert_true(flash_fms_fault_stats(f->fms, &fs));
    ftl_stream_stats(f->s, done, &st);
    assert_true(fs.program_failures >= 2);
    assert_int_equal(st.program_remaps, fs.program_failures);
    assert_int_equal(st.blocks_replaced, fs.program_failures);
    assert_true(st.remap_pages > 0);
    free(in);
    free(out);
}

/* Every program fails: the block and both spares of its plane fail in turn, and the write
 * stops naming the stream, the LPN, the block and the spares. */
static void test_program_failure_out_of_spares_reports(void **state)
{
    static const char *const specs[] = {"program:rate=1"};
    struct err e = {""};
    struct fixture *f = *state;
    struct ftl_stream_stats st;
    uint64_t done;

    set_faults(f, specs, 1);
    make_stream(f, 1, 4, 0);
    assert_int_equal(ftl_stream_write(f->s, 0, 0, 1, NULL, &done, &e), -ENOSPC);
    assert_msg_has(e.msg, "stream 'V' write at LPN 0");
    assert_msg_has(e.msg, "stream 'V' PB 0 at ch 0 chip 0 die 0 plane 0 block 15: program of "
                          "page 0 of its copy failed");
    assert_msg_has(e.msg, "no spare block left in this plane: all 2 spares (blocks 14..15)");
    ftl_stream_stats(f->s, done, &st);
    assert_int_equal(st.program_remaps, 2);
    assert_true(flash_fms_block(f->fms, 0, 0, 1)->bad);
    assert_true(flash_fms_block(f->fms, 0, 0, SPARE0)->bad);
    assert_true(flash_fms_block(f->fms, 0, 0, SPARE0 + 1)->bad);
}

static void test_bad_block_at_start_is_replaced(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct flash_addr a = {.channel = 0, .chip = 1, .plane = 3, .block = 2};
    uint64_t lpn, done;

    assert_int_equal(flash_fms_mark_bad(f->fms, &a, &e), 0);
    make_stream(f, 1, 4, 0);
    assert_int_equal(
        ftl_bbm_resolve(&f->bbm, flash_addr_die_index(&f->cfg.geom, &a) * PLANES + 3, 2), SPARE0);
    ok(&e, ftl_stream_append(f->s, 0, 2 * SB_PAGES, NULL, &lpn, &done, &e));
}

static void test_retention_class_enforced(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    uint64_t done;

    stream_cfg(&f->sc, 1, 4, 0);
    f->sc.retention_s = 1;
    make_stream_cfg(f);
    ok(&e, ftl_stream_write(f->s, 0, 0, 4, NULL, &done, &e));
    ok(&e, ftl_stream_read(f->s, FLASH_PS_PER_S, 0, 4, NULL, &done, &e));
    assert_int_equal(ftl_stream_read(f->s, 2 * FLASH_PS_PER_S, 0, 4, NULL, &done, &e), -ESTALE);
    assert_msg_has(e.msg, "past the stream's retention of 1 s");
}

static void test_stream_settings_errors(void **state)
{
    struct fixture *f = *state;
    struct ftl_stream *s = NULL;

    stream_cfg(&f->sc, 10, 5, 0);
    assert_int_equal(ftl_stream_create(&f->sc, f->fms, &f->bbm, &s, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "overlap the spare blocks 14..15");
    stream_cfg(&f->sc, 12, 5, 0);
    assert_int_equal(ftl_stream_create(&f->sc, f->fms, &f->bbm, &s, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "do not fit in a plane of 16 blocks");
    stream_cfg(&f->sc, 1, 4, 5);
    assert_int_equal(ftl_stream_create(&f->sc, f->fms, &f->bbm, &s, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "5 logical blocks need as many physical ones");
    stream_cfg(&f->sc, 1, 4, 0);
    f->sc.pe_budget = 0;
    assert_int_equal(ftl_stream_create(&f->sc, f->fms, &f->bbm, &s, &f->err), -EINVAL);
    assert_null(s);
}

/* ------------------------------------------------------------------ endurance */

static void test_endurance_stats(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct ftl_stream_stats st;
    uint64_t now = 0;
    double years, cap = 4.0 * SB_PAGES * PAGE;

    make_stream(f, 1, 4, 0);
    ftl_stream_stats(f->s, 0, &st);
    assert_true(isinf(st.lifetime_years));
    for (int i = 0; i < 8; i++)
        ok(&e, cycle(f, &now, &e));
    ftl_stream_stats(f->s, 10 * FLASH_PS_PER_S, &st);
    assert_int_equal(st.lpages_written, 8 * SB_PAGES);
    assert_true(st.waf == 1.0);
    /* 8 LBs written round-robin over 4 PBs: every block erased twice. */
    assert_int_equal(st.pe_min, 2);
    assert_int_equal(st.pe_max, 2);
    assert_true(st.pe_mean == 2.0);
    assert_int_equal(st.sb_erases, 8);
    /* 8 LBs in 10 s against 4 LBs of capacity: 0.2 P/E per second. */
    assert_true(fabs(st.write_bps - 8.0 * SB_PAGES * PAGE / 10.0) < 1e-6);
    years = 2e6 / (st.write_bps / cap * FTL_SEC_PER_YEAR);
    assert_true(fabs(st.lifetime_years - years) < 1e-9 * years);
}

/* Paper, Figure 11: the V stream (1737 GiB, 2M P/E) written at ~17.6 GB/s lasts ~6.7 years. */
static void test_paper_v_stream_lifetime(void **state)
{
    struct flash_cfg c;
    struct flash_fms *fms;
    struct ftl_layout lay;
    struct ftl_bbm bbm;
    struct ftl_stream_cfg sc;
    struct ftl_stream *s;
    struct ftl_stream_stats st;
    struct err e;
    uint64_t lpn, done, bytes;

    (void)state;
    flash_cfg_default(&c);
    c.sw.store_payload = false;
    ftl_layout_an(&lay);
    assert_int_equal(flash_fms_create(&c, &fms, &e), 0);
    assert_int_equal(ftl_bbm_init(&bbm, &c.geom, 672, 11, &e), 0);
    ftl_stream_cfg_from_region(&sc, ftl_layout_find(&lay, "V"));
    assert_int_equal(ftl_stream_create(&sc, fms, &bbm, &s, &e), 0);
    assert_int_equal(ftl_stream_lpages(s), 579ull * 786432);
    assert_int_equal(ftl_stream_append(s, 0, 8192, NULL, &lpn, &done, &e), 0);
    bytes = 8192ull * 4096;
    ftl_stream_stats(s, (uint64_t)(bytes / 17.6e9 * FLASH_PS_PER_S), &st);
    if (st.lifetime_years < 6.6 || st.lifetime_years > 6.8)
        fail_msg("lifetime %.3f years, paper ~6.7", st.lifetime_years);
    ftl_stream_destroy(s);
    ftl_bbm_fini(&bbm);
    flash_fms_destroy(fms);
}

/* ------------------------------------------------------------------ layouts */

static void test_layouts(void **state)
{
    struct fixture *f = *state;
    struct flash_cfg c;
    struct ftl_layout an, wn, bad;
    const struct ftl_region *nv, *v;

    flash_cfg_default(&c);
    ftl_layout_an(&an);
    ftl_layout_wn(&wn);
    assert_int_equal(ftl_layout_validate(&an, &c.geom, &f->err), 0);
    assert_int_equal(ftl_layout_validate(&wn, &c.geom, &f->err), 0);
    nv = ftl_layout_find(&an, "NV");
    v = ftl_layout_find(&an, "V");
    assert_int_equal(nv->first, 10);
    assert_int_equal(nv->count, 83);
    assert_int_equal(v->first, 93);
    assert_int_equal(v->count, 579);
    assert_int_equal(ftl_layout_spare(&an)->first, 672);
    assert_int_equal(ftl_layout_spare(&an)->count, 11);
    /* 83 x 3 MiB x 8 planes x 128 dies = 249 GiB (paper, Table 2). */
    assert_int_equal(nv->count * 3ull * 8 * 128 >> 10, 249);
    assert_int_equal(nv->pe_budget, 50000);
    assert_int_equal(v->pe_budget, 2000000);
    assert_int_equal(v->retention_s, 86400);
    /* The paper's layout does not fit the small test geometry. */
    assert_int_equal(ftl_layout_validate(&an, &f->cfg.geom, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "region 'NV' blocks 10..92 do not fit in a plane of 16 blocks");
    bad = an;
    bad.r[2].first = 90;
    assert_int_equal(ftl_layout_validate(&bad, &c.geom, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "'V' (blocks 90..668) overlaps 'NV' (blocks 10..92)");
}

/* Every stream of both node layouts on the full 2 TiB FMS, sharing one spare pool. */
static void node_streams(void (*layout)(struct ftl_layout *), uint32_t n_streams)
{
    struct flash_cfg c;
    struct flash_fms *fms;
    struct ftl_layout lay;
    struct ftl_bbm bbm;
    struct ftl_stream_cfg sc;
    struct ftl_stream *s[FTL_LAYOUT_MAX] = {0};
    struct ftl_stream_stats st;
    struct err e;
    const struct ftl_region *spare;
    uint64_t lpn, done;
    uint32_t n = 0;

    flash_cfg_default(&c);
    c.sw.store_payload = false;
    layout(&lay);
    spare = ftl_layout_spare(&lay);
    assert_int_equal(ftl_layout_validate(&lay, &c.geom, &e), 0);
    assert_int_equal(flash_fms_create(&c, &fms, &e), 0);
    assert_int_equal(ftl_bbm_init(&bbm, &c.geom, spare->first, spare->count, &e), 0);
    for (uint32_t i = 0; i < lay.n; i++) {
        if (lay.r[i].kind != FTL_REGION_STREAM)
            continue;
        ftl_stream_cfg_from_region(&sc, &lay.r[i]);
        assert_int_equal(ftl_stream_create(&sc, fms, &bbm, &s[n], &e), 0);
        assert_int_equal(ftl_stream_append(s[n], 0, 64, NULL, &lpn, &done, &e), 0);
        ftl_stream_stats(s[n], done, &st);
        assert_string_equal(st.name, lay.r[i].name);
        assert_int_equal(st.sb_total, lay.r[i].count);
        assert_true(st.waf == 1.0);
        n++;
    }
    assert_int_equal(n, n_streams);
    /* Each stream's first block is its own range's first block, in every plane. */
    assert_int_equal(flash_fms_block(fms, 0, 0, lay.r[1].first)->wp, 1);
    for (uint32_t i = 0; i < n; i++)
        ftl_stream_destroy(s[i]);
    ftl_bbm_fini(&bbm);
    flash_fms_destroy(fms);
}

static void test_an_node_streams(void **state)
{
    (void)state;
    node_streams(ftl_layout_an, 2);
}

static void test_wn_node_streams(void **state)
{
    (void)state;
    node_streams(ftl_layout_wn, 4);
}

/* ------------------------------------------------------------------ hardware-written pages */

/* Program LPN lpn at the address the layout gives for PB pbn, as the write pipeline would,
 * then report it to the FTL. */
static int hw_page(struct fixture *f, uint64_t now, uint64_t lpn, uint32_t pbn, const void *data)
{
    struct err e;
    struct ftl_ppa a;
    struct flash_mpop op;
    const void *pages[FLASH_MAX_PLANES] = {0};
    uint64_t done;
    int rc;

    ftl_stream_ppa(f->s, lpn, pbn, &a);
    memset(&op, 0, sizeof(op));
    op.die = a.die;
    op.plane_mask = 1u << a.plane;
    op.page = a.page;
    op.block[a.plane] = a.block;
    pages[a.plane] = data;
    rc = flash_fms_program(f->fms, now, &op, pages, &done, &e);
    if (rc)
        fail_msg("program: %s", e.msg);
    return ftl_stream_adopt_page(f->s, now, lpn, pbn, &a, &e);
}

/* Pages written outside the FTL, in a PB the hardware chose, read back through the FTL; the
 * FTL's own rotation continues after the hardware's choice. */
static void test_adopt_hw_pages(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    unsigned char in[PAGE], out[PAGE];
    uint64_t lpn, done;
    struct ftl_ppa a;

    make_stream(f, 1, 4, 0);
    ftl_stream_ppa(f->s, 21, 2, &a); /* offset 21: plane 1, unit 5 -> die 1, page 1 */
    assert_int_equal(a.die, 1);
    assert_int_equal(a.plane, 1);
    assert_int_equal(a.block, 3);
    assert_int_equal(a.page, 1);
    for (uint64_t i = 0; i < 40; i++) {
        memset(in, (int)i + 1, sizeof(in));
        ok(&e, hw_page(f, 0, i, 2, in));
    }
    assert_int_equal(pbn_of(f, 0), 2);
    ok(&e, ftl_stream_read(f->s, 0, 33, 1, out, &done, &e));
    memset(in, 34, sizeof(in));
    assert_memory_equal(in, out, PAGE);
    /* LB 0 continues from LPN 40 through the FTL itself; LB 1 opens in PB 3 (after 2). */
    ok(&e, ftl_stream_write(f->s, 0, 40, SB_PAGES - 40 + 1, NULL, &done, &e));
    assert_int_equal(pbn_of(f, 1), 3);
    assert_false(ftl_stream_pb_free(f->s, 2));
    assert_true(ftl_stream_pb_free(f->s, 0));
    (void)lpn;
}

static void test_adopt_mismatches_change_nothing(void **state)
{
    struct err e = {""};
    struct fixture *f = *state;
    struct ftl_ppa a;
    uint64_t done;

    make_stream(f, 1, 4, 0);
    ok(&e, hw_page(f, 0, 0, 1, NULL));
    /* Not at the append point. */
    ftl_stream_ppa(f->s, 2, 1, &a);
    assert_int_equal(ftl_stream_adopt_page(f->s, 0, 2, 1, &a, &e), -EINVAL);
    assert_msg_has(e.msg, "LB 0 takes its next page at LPN 1");
    /* Another PB than the LB's. */
    ftl_stream_ppa(f->s, 1, 0, &a);
    assert_int_equal(ftl_stream_adopt_page(f->s, 0, 1, 0, &a, &e), -EINVAL);
    assert_msg_has(e.msg, "but LB 0 is mapped to PB 1");
    /* Right PB, wrong address. */
    ftl_stream_ppa(f->s, 1, 1, &a);
    a.page++;
    assert_int_equal(ftl_stream_adopt_page(f->s, 0, 1, 1, &a, &e), -EINVAL);
    assert_msg_has(e.msg, "was programmed at die 0 plane 1 block 2 page 1; the "
                          "layout and spare remap put it at die 0 plane 1 "
                          "block 2 page 0");
    /* Opening LB 1 in PB 1, which is live. */
    ftl_stream_ppa(f->s, SB_PAGES, 1, &a);
    ok(&e, ftl_stream_write(f->s, 0, 1, SB_PAGES - 1, NULL, &done, &e));
    assert_int_equal(ftl_stream_adopt_page(f->s, 0, SB_PAGES, 1, &a, &e), -EINVAL);
    assert_msg_has(e.msg, "opens LB 1 in PB 1, which is live");
    assert_int_equal(ftl_stream_adopt_page(f->s, 0, 0, 1, &a, &e), -EBUSY);
    assert_int_equal(ftl_stream_adopt_page(f->s, 0, 4 * SB_PAGES, 1, &a, &e), -EINVAL);
    assert_int_equal(ftl_stream_adopt_page(f->s, 0, SB_PAGES, 4, &a, &e), -EINVAL);
    assert_msg_has(e.msg, "PB 4 out of range; accepted 0..3");
    /* Nothing of the refused pages was counted. */
    struct ftl_stream_stats st;
    ftl_stream_stats(f->s, 1, &st);
    assert_int_equal(st.lpages_written, SB_PAGES);
    assert_int_equal(st.sb_live, 1);
}

#define T(fn, su) cmocka_unit_test_setup_teardown(fn, su, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_round_robin_paper_example, setup_timing_only),
        T(test_superblock_page_layout, setup_timing_only),
        T(test_single_page_write_timing, setup_timing_only),
        T(test_command_of_four_units_timing, setup_timing_only),
        T(test_seq_write_reaches_bound_cache_on, setup_timing_only),
        T(test_seq_write_reaches_bound_cache_off, setup_nocache),
        T(test_seq_read_reaches_bound, setup_timing_only),
        T(test_functional_round_trip, setup),
        T(test_append_only_errors, setup),
        T(test_overflow_is_an_error, setup),
        T(test_read_never_written_is_an_error, setup),
        T(test_erase_on_release_is_ahead_of_need, setup_timing_only),
        T(test_erase_deferred_to_reallocation, setup_timing_only),
        T(test_wear_out_uses_spares_then_reports, setup_timing_only),
        T(test_erase_failure_replaced_from_spare, setup),
        T(test_program_failure_remapped_to_spare, setup),
        T(test_program_failures_at_a_rate_keep_the_data, setup),
        T(test_program_failure_out_of_spares_reports, setup_timing_only),
        T(test_bad_block_at_start_is_replaced, setup_timing_only),
        T(test_retention_class_enforced, setup_timing_only),
        T(test_stream_settings_errors, setup_timing_only),
        T(test_endurance_stats, setup_timing_only),
        cmocka_unit_test(test_paper_v_stream_lifetime),
        T(test_layouts, setup_timing_only),
        cmocka_unit_test(test_an_node_streams),
        cmocka_unit_test(test_wn_node_streams),
        T(test_adopt_hw_pages, setup),
        T(test_adopt_mismatches_change_nothing, setup_timing_only),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
