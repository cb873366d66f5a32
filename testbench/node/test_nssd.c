/*
 * test_nssd: a node's storage on a RAID 0 of SSDs (models/node/nssd.h) and the storage interface
 * in front of it (models/node/nstore.h).
 *
 * The allocator: each stream's range is its share of the FMS layout, in whole stripes; records
 * are appended one after the other, freed out of order, their pages reused only once every
 * older record is freed, the log wraps from the range's end to its start (a record across the
 * end is two requests), a full stream is refused naming the node and the stream. The timing:
 * every read and write is the array's, exactly (the same sequence of requests on an
 * ssd_raid0 of the same drive ends at the same times). The coarse grain (ssd_cfg_coarse): the
 * derived drive, and on the paper's drive the bound models/ssd/README.md states for requests
 * one at a time at a grain of 16 pages against the drive page by page.
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

#include "testbench/test_assert.h"

#include "models/flash/ftl_layout.h"
#include "models/node/nssd.h"
#include "models/node/nstore.h"
#include "models/ssd/ssd_raid0.h"

#define MIB (1ull << 20)

static const char *const an_names[] = {"NV", "V"};

/* The paper's SSD with fewer, shorter blocks (128 units of 8 x 16 pages per die, 2 GiB raw),
 * four in RAID 0 with stripe units of 64 KiB: a small array that holds a few hundred MiB. */
static void small_drive(struct ssd_cfg *c)
{
    ssd_cfg_default(c);
    c->nand.geom.blocks_per_plane = 128;
    c->nand.geom.pages_per_block = 16;
    c->nand.sw.store_payload = false;
    c->gc_free_urgent = 1;
    c->gc_free_low = 2;
    c->gc_free_high = 3;
    c->raid_stripe_bytes = 64 * 1024;
}

static void open_an(struct nssd *f, const struct ssd_cfg *c, uint32_t grain)
{
    struct ftl_layout l;
    struct err e = {{0}};

    ftl_layout_an(&l);
    if (nssd_init(f, "an0", c, grain, &l, an_names, 2, &e))
        fail_msg("nssd_init: %s", e.msg);
}

/* ------------------------------------------------------------------ ranges */

static void test_ranges_are_the_layouts_shares(void **state)
{
    struct ssd_cfg c;
    struct nssd f;
    struct ftl_layout l;
    uint64_t stripe, bytes, page;

    (void)state;
    small_drive(&c);
    open_an(&f, &c, 1);
    ftl_layout_an(&l);
    stripe = c.raid_stripe_bytes / 4096 * c.raid_ssds;
    assert_int_equal(f.n, 2);
    assert_int_equal(nssd_stream(&f, "V"), 1);
    assert_int_equal(nssd_stream(&f, "W"), -1);
    assert_int_equal(f.s[0].first, 0);
    assert_int_equal(f.s[1].first, f.s[0].pages);
    assert_int_equal(f.s[0].pages % stripe, 0);
    assert_int_equal(f.s[1].pages % stripe, 0);
    /* NV : V = 83 : 579 blocks of the FMS layout, to a stripe */
    uint64_t all = ssd_raid0_user_pages(f.raid) / stripe;
    assert_int_equal(f.s[0].pages / stripe, all * 83 / 662);
    assert_int_equal(f.s[1].pages / stripe, all * 579 / 662);
    assert_true(f.s[0].pages + f.s[1].pages <= ssd_raid0_user_pages(f.raid));
    nssd_stream_size(&c, 1, &l, an_names, 2, "V", &bytes, &page);
    assert_int_equal(page, 4096);
    assert_int_equal(bytes, f.s[1].pages * 4096);
    nssd_fini(&f);
}

/* ------------------------------------------------------------------ the log */

static void test_append_free_reuse_wrap(void **state)
{
    struct ssd_cfg c;
    struct nssd f;
    struct slog_ext a, b, d, w, x;
    struct err e = {{0}};
    uint64_t done, range;

    (void)state;
    small_drive(&c);
    open_an(&f, &c, 1);
    range = f.s[1].pages;

    /* appended one after the other, from page boundaries */
    assert_int_equal(nssd_write(&f, 1, 0, 10000, &a, &done, &e), 0);
    assert_int_equal(a.lpn, 0);
    assert_int_equal(a.pages, 3);
    assert_int_equal(a.bytes, 10000);
    assert_int_equal(nssd_write(&f, 1, done, 4096, &b, &done, &e), 0);
    assert_int_equal(b.lpn, 3);
    assert_int_equal(nssd_write(&f, 1, done, 8192, &d, &done, &e), 0);
    assert_int_equal(d.lpn, 4);
    assert_int_equal(f.s[1].used, 6);

    /* freed out of order: the pages come back with the oldest record */
    assert_int_equal(nssd_free(&f, 1, &b, &e), 0);
    assert_int_equal(f.s[1].used, 6);
    assert_int_equal(f.s[1].live_pages, 5);
    assert_int_equal(nssd_free(&f, 1, &a, &e), 0);
    assert_int_equal(f.s[1].used, 2);
    assert_int_equal(nssd_free(&f, 1, &b, &e), -EINVAL);
    assert_msg_has(e.msg, "no live record at page 3");

    /* a record to the range's end, then one across it: two requests, the log wraps */
    assert_int_equal(nssd_write(&f, 1, done, (range - 6 - 2) * 4096, &w, &done, &e), 0);
    assert_int_equal(w.lpn, 6);
    assert_int_equal(f.s[1].used, range - 6);
    assert_int_equal(nssd_free(&f, 1, &d, &e), 0);
    assert_int_equal(f.s[1].used, range - 6 - 2);
    assert_int_equal(nssd_write(&f, 1, done, 5 * 4096, &x, &done, &e), 0);
    assert_int_equal(x.lpn, range - 2);
    assert_int_equal(f.s[1].append, 3);
    assert_int_equal(nssd_read(&f, 1, done, &x, &done, &e), 0);
    assert_int_equal(f.s[1].pages_read, 5);

    /* full: the freed pages before the oldest live record are all there is */
    assert_int_equal(nssd_write(&f, 1, done, 4 * 4096, &a, &done, &e), -ENOSPC);
    assert_msg_has(e.msg, "an0 ssd stream 'V' is full");
    assert_msg_has(e.msg, "needs 4 pages of 4096 B, 3 of the stream's");
    assert_int_equal(nssd_write(&f, 1, done, 3 * 4096, &a, &done, &e), 0);
    assert_int_equal(a.lpn, 3);
    assert_int_equal(f.s[1].used, range);
    assert_int_equal(nssd_free(&f, 1, &w, &e), 0);
    assert_int_equal(nssd_free(&f, 1, &x, &e), 0);
    assert_int_equal(nssd_free(&f, 1, &a, &e), 0);
    assert_int_equal(f.s[1].used, 0);
    assert_int_equal(f.s[1].n, 0);
    /* the NV stream is its own */
    assert_int_equal(f.s[0].used, 0);
    nssd_fini(&f);
}

/* Many records through the log, freed in FIFO order with one kept behind: descriptors grow. */
static void test_many_records(void **state)
{
    struct ssd_cfg c;
    struct nssd f;
    struct slog_ext x[300];
    struct err e = {{0}};
    uint64_t done = 0;

    (void)state;
    small_drive(&c);
    open_an(&f, &c, 1);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 300; i++)
            if (nssd_write(&f, 0, done, 3 * 4096, &x[i], &done, &e))
                fail_msg("round %d record %d: %s", round, i, e.msg);
        for (int i = 299; i >= 0; i--)
            assert_int_equal(nssd_free(&f, 0, &x[i], &e), 0);
        assert_int_equal(f.s[0].used, 0);
    }
    assert_int_equal(f.s[0].pages_written, 2700);
    assert_int_equal(f.s[0].append, 2700 % f.s[0].pages);
    nssd_fini(&f);
}

/* ------------------------------------------------------------------ timing */

/* A sequence of requests on the node's storage ends when the same requests end on a bare
 * array of the same drive: nssd adds no time of its own. */
static void test_timing_is_the_arrays(void **state)
{
    struct ssd_cfg c;
    struct nssd f;
    struct ssd_raid0 *r;
    struct slog_ext a, b, w;
    struct err e = {{0}};
    uint64_t t = 1000, d1, d2, base, range;

    (void)state;
    small_drive(&c);
    open_an(&f, &c, 1);
    assert_int_equal(ssd_raid0_create(&c, &r, &e), 0);
    base = f.s[1].first;
    range = f.s[1].pages;

    assert_int_equal(nssd_write(&f, 1, t, 3 * MIB + 100, &a, &d1, &e), 0);
    assert_int_equal(ssd_raid0_write(r, t, base, 769, NULL, &d2, &e), 0);
    assert_int_equal(d1, d2);
    assert_int_equal(nssd_write(&f, 1, t, MIB, &b, &d1, &e), 0); /* queued behind it */
    assert_int_equal(ssd_raid0_write(r, t, base + 769, 256, NULL, &d2, &e), 0);
    assert_int_equal(d1, d2);
    t = d1 + 5000;
    assert_int_equal(nssd_read(&f, 1, t, &a, &d1, &e), 0);
    assert_int_equal(ssd_raid0_read(r, t, base, 769, NULL, &d2, &e), 0);
    assert_int_equal(d1, d2);
    /* round the range's end: two requests at the same time */
    assert_int_equal(nssd_free(&f, 1, &a, &e), 0);
    assert_int_equal(nssd_free(&f, 1, &b, &e), 0);
    /* nothing is live: move the append point near the range's end rather than fill the range */
    f.s[1].append = range - 100;
    assert_int_equal(nssd_write(&f, 1, t, 300 * 4096, &w, &d1, &e), 0);
    uint64_t x1, x2;
    assert_int_equal(ssd_raid0_write(r, t, base + range - 100, 100, NULL, &x1, &e), 0);
    assert_int_equal(ssd_raid0_write(r, t, base, 200, NULL, &x2, &e), 0);
    assert_int_equal(d1, x1 > x2 ? x1 : x2);
    t = d1;
    assert_int_equal(nssd_read(&f, 1, t, &w, &d1, &e), 0);
    assert_int_equal(ssd_raid0_read(r, t, base + range - 100, 100, NULL, &x1, &e), 0);
    assert_int_equal(ssd_raid0_read(r, t, base, 200, NULL, &x2, &e), 0);
    assert_int_equal(d1, x1 > x2 ? x1 : x2);

    struct ssd_stats a_st, b_st;
    uint64_t pe;
    nssd_stats(&f, &a_st, &pe);
    ssd_raid0_stats(r, &b_st);
    assert_int_equal(a_st.host_write_pages, b_st.host_write_pages);
    assert_int_equal(a_st.host_read_pages, b_st.host_read_pages);
    assert_int_equal(pe, 0);
    ssd_raid0_destroy(r);
    nssd_fini(&f);
}

/* The interface: the SSD backend behind nstore, timing only. */
static void test_nstore_ssd(void **state)
{
    struct ssd_cfg c;
    struct nstore s;
    struct ftl_layout l;
    struct slog_ext x;
    struct err e = {{0}};
    uint64_t done, free_at;

    (void)state;
    small_drive(&c);
    ftl_layout_an(&l);
    assert_int_equal(nstore_init_ssd(&s, "an1", &c, 1, &l, an_names, 2, &e), 0);
    assert_null(nstore_flash(&s));
    assert_non_null(nstore_ssd(&s));
    assert_int_equal(nstore_stream(&s, "V"), 1);
    nstore_set_nodata(&s, 1, true);
    assert_int_equal(nstore_write_tb(&s, 1, 0, 0, MIB, &x, &done, &free_at, &e), 0);
    assert_int_equal(free_at, done);
    assert_true(done >= 256 * c.t_fw_page_ps / c.raid_ssds);
    assert_int_equal(nstore_read_tb(&s, 1, done, &x, 0, &done, &free_at, &e), 0);
    assert_int_equal(free_at, done);
    assert_int_equal(nstore_align(&s, 1, done, &e), 0);
    assert_int_equal(nstore_free(&s, 1, done, &x, &e), 0);
    assert_int_equal(nstore_free(&s, 1, done, &x, &e), -EINVAL);
    assert_msg_has(e.msg, "an1 ssd stream 'V'");
    nstore_fini(&s);
}

/* ------------------------------------------------------------------ the coarse grain */

static void test_coarse_drive(void **state)
{
    struct ssd_cfg c, k;
    struct ssd_geom g, h;
    struct err e = {{0}};

    (void)state;
    ssd_cfg_default(&c);
    assert_int_equal(ssd_cfg_coarse(&c, 1, &k, &e), 0);
    assert_memory_equal(&c, &k, sizeof(c));
    assert_int_equal(ssd_cfg_coarse(&c, 16, &k, &e), 0);
    assert_int_equal(ssd_cfg_validate(&k, &e), 0);
    assert_int_equal(k.nand.geom.page_bytes, 65536);
    assert_int_equal(k.nand.geom.pages_per_block, 48);
    assert_int_equal(k.nand.tim.t_r_ps, 16 * c.nand.tim.t_r_ps);
    assert_int_equal(k.nand.tim.t_prog_ps, 16 * c.nand.tim.t_prog_ps);
    assert_int_equal(k.nand.tim.t_bers_ps, c.nand.tim.t_bers_ps);
    assert_int_equal(k.t_fw_page_ps, 16 * c.t_fw_page_ps);
    /* a command of one coarse row (8 x 64 KiB), the controller's time per byte the drive's */
    assert_int_equal(k.nand.tim.ctrl_cmd_bytes, 512 * 1024);
    assert_int_equal(k.nand.tim.t_ctrl_rd_ps, 4 * c.nand.tim.t_ctrl_rd_ps);
    assert_int_equal(k.raid_stripe_bytes, c.raid_stripe_bytes);
    assert_int_equal(k.sq_depth, c.sq_depth);
    /* the same capacity, units and free-unit thresholds */
    ssd_cfg_geom(&c, &g);
    ssd_cfg_geom(&k, &h);
    assert_int_equal(h.units, g.units);
    assert_int_equal(h.phys_pages * 16, g.phys_pages);
    assert_int_equal(h.wbuf_pages, g.wbuf_pages);
    /* a write buffer of as many coarse pages as the drive's pages would pass 1 GiB */
    assert_int_equal(ssd_cfg_coarse(&c, 256, &k, &e), -EINVAL);
    assert_msg_has(e.msg, "sram_bytes = 8388608 x 256");
    assert_int_equal(ssd_cfg_coarse(&c, 3, &k, &e), -EINVAL);
    assert_msg_has(e.msg, "accepted a power of two");
    c.nand.geom.pages_per_block = 24;
    assert_int_equal(ssd_cfg_coarse(&c, 16, &k, &e), -EINVAL);
    assert_msg_has(e.msg, "pages_per_block = 24 is not a multiple");
}

/*
 * The bound of models/ssd/README.md: on the paper's drive, four in RAID 0, records of 4 MiB to
 * 1 GiB written, then read back, one request at a time. At a grain of 16 pages every write ends
 * when it ends page by page, and every read ends no earlier and at most one coarse row read's
 * extra latency later: (k - 1) x (tR + planes x (t_cmd + t_xfer)), 0.47 ms.
 */
static void test_coarse_bound(void **state)
{
    static const uint64_t mib[] = {4, 16, 64, 256, 1024};
    enum { N = sizeof(mib) / sizeof(mib[0]), K = 16 };
    struct ssd_cfg c;
    struct nssd f[2];
    struct err e = {{0}};
    uint64_t dur[2][2 * N], slack;

    (void)state;
    ssd_cfg_default(&c);
    c.nand.sw.store_payload = false;
    slack = (K - 1) *
            (c.nand.tim.t_r_ps + c.nand.geom.planes_per_die *
                                     (c.nand.tim.t_cmd_ps + flash_cfg_xfer_ps(&c.nand.tim, 4096)));
    for (int k = 0; k < 2; k++) {
        struct slog_ext x[N];
        uint64_t t = 0, d;

        open_an(&f[k], &c, k ? K : 1);
        for (int i = 0; i < 2 * N; i++) {
            int rc = i < N ? nssd_write(&f[k], 1, t, mib[i] * MIB, &x[i], &d, &e)
                           : nssd_read(&f[k], 1, t, &x[i - N], &d, &e);

            if (rc)
                fail_msg("grain %d request %d: %s", k ? K : 1, i, e.msg);
            dur[k][i] = d - t;
            t = d + 1000000000ull; /* a millisecond apart: the programs are done */
        }
        nssd_fini(&f[k]);
    }
    for (int i = 0; i < 2 * N; i++) {
        uint64_t a = dur[0][i], b = dur[1][i];

        if (i < N ? b != a : (b < a || b > a + slack))
            fail_msg("%s of %llu MiB: %.3f ms page by page, %.3f ms at grain %d (bound +%.3f)",
                     i < N ? "write" : "read", (unsigned long long)mib[i % N], a / 1e9, b / 1e9, K,
                     i < N ? 0.0 : slack / 1e9);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_are_the_layouts_shares),
        cmocka_unit_test(test_append_free_reuse_wrap),
        cmocka_unit_test(test_many_records),
        cmocka_unit_test(test_timing_is_the_arrays),
        cmocka_unit_test(test_nstore_ssd),
        cmocka_unit_test(test_coarse_drive),
        cmocka_unit_test(test_coarse_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
