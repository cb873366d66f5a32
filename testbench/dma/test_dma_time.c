/*
 * test_dma_time: DMA timing from the DMA twin (models/dma/dma_time.h): a long plain transfer runs
 * at about one 8-byte beat per cycle, a transposing load is not faster than a plain one, the
 * same descriptor at a tensor-buffer address one interleave span (channels x interleave_bytes)
 * away is answered from the memo with the same cycles while another offset is simulated, a
 * descriptor's cycles alone (dma_time_cycles) do not depend on what ran before it, and a
 * descriptor the DMA rejects is an error, also when one in range with the same residue was
 * memoised. On a node's buffer (dma_time_run), a flash read holding a channel delays a command by
 * the picoseconds worked out below, and the memo replays such a command exactly. That the residue
 * gives the real address's cycles is checked against the RTL DMA at the real addresses
 * (test_system_rtl's lockstep runs).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "models/dma/dma_desc.h"
#include "models/dma/dma_time.h"

static struct dma_time *open_dmat(void)
{
    struct dma_params p;
    struct dma_time *t;
    struct err e;
    dma_params_default(&p);
    p.sram_addr_bits = 18;
    p.sram_bytes = 3 * 65536; /* the core map of 8x8 with 4096-word pads: 64 + 64 + 128 KiB */
    p.sram_bytes += 65536;
    if (dma_time_create(&p, NULL, 1250, &t, &e))
        fail_msg("%s", e.msg);
    return t;
}

static void test_rates_and_memo(void **state)
{
    struct dma_time *t = open_dmat();
    struct err e = {""};
    uint64_t a, b, c, x;
    (void)state;
    struct dma_desc d = {.store = false,
                         .src = 0x4000,
                         .dst = 0,
                         .rows = 64,
                         .len = 512,
                         .src_stride = 512,
                         .dst_stride = 512};
    assert_int_equal(dma_time_cycles(t, &d, &a, &e), 0);
    uint64_t beats = 64 * 512 / 8;
    assert_true(a >= beats && a < beats + beats / 4 + 64);
    assert_int_equal(dma_time_simulated(t), 1);
    d.src = 0x4000 + 1024 * 77; /* one residue modulo 4 x 256 bytes: memo */
    assert_int_equal(dma_time_cycles(t, &d, &b, &e), 0);
    assert_int_equal(a, b);
    assert_int_equal(dma_time_simulated(t), 1);
    assert_int_equal(dma_time_hits(t), 1);
    d.src = 0x4000 + 1024 * 77 + 8; /* another residue: simulated */
    assert_int_equal(dma_time_cycles(t, &d, &b, &e), 0);
    assert_int_equal(dma_time_simulated(t), 2);
    d.src = (16ull << 30) - 512; /* the residue of a memoised one, but out of range */
    d.src -= d.src % 1024;
    d.src += 0x4000 % 1024;
    assert_int_equal(dma_time_cycles(t, &d, &b, &e), -EINVAL);
    d.src = 0x4000;
    d.xpose = true; /* 64 rows of 256 elements -> 256 rows of 128 bytes */
    d.dst_stride = 128;
    assert_int_equal(dma_time_cycles(t, &d, &x, &e), 0);
    assert_true(x >= beats);
    d.xpose = false;
    d.store = true; /* SRAM -> TB */
    d.src = 0;
    d.dst = 0x8000;
    d.dst_stride = 512;
    assert_int_equal(dma_time_cycles(t, &d, &c, &e), 0);
    assert_true(c >= beats);
    d.len = 0; /* rejected */
    assert_int_equal(dma_time_cycles(t, &d, &c, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "rejected"));
    dma_time_destroy(t);
}

/* A descriptor's cycles alone in a fresh model equal its cycles after a long store: each
 * dma_time_cycles starts from an idle DMA and free channels, whatever ran before. */
static void test_idle_start(void **state)
{
    struct dma_time *t = open_dmat(), *u = open_dmat();
    struct err e = {""};
    uint64_t a, b, c;
    (void)state;
    struct dma_desc ld = {
        .src = 0x300, .dst = 0, .rows = 3, .len = 200, .src_stride = 4096, .dst_stride = 256};
    struct dma_desc st = {.store = true,
                          .src = 0,
                          .dst = 0x300,
                          .rows = 32,
                          .len = 1024,
                          .src_stride = 1024,
                          .dst_stride = 1024};
    assert_int_equal(dma_time_cycles(t, &ld, &a, &e), 0);
    assert_int_equal(dma_time_cycles(u, &st, &c, &e), 0);
    assert_int_equal(dma_time_cycles(u, &ld, &b, &e), 0);
    assert_int_equal(a, b);
    dma_time_destroy(t);
    dma_time_destroy(u);
}

/*
 * A flash read holding a channel delays a DMA command, by exactly what the tensor buffer's
 * timing says (models/dram/dram.h: 4 channels of 25.6 GB/s, 256-byte interleave, 50 ns; the
 * DMA's port at 1250 ps, models/dram/dram_port.h):
 *   - at t0 = 1 us a 4 KiB flash page lands at tensor-buffer address 0: 16 pieces of 256 B,
 *     4 on each channel, 10 000 ps each (256 B / 25.6 GB/s), back to back: channel 0 is busy
 *     until t0 + 40 000 ps;
 *   - a DMA load of one 8-byte beat from address 0 (channel 0) starts at t0: the DMA asks for
 *     the beat in cycle 5 of the command (t0 + 6 250 ps; the twin's pipeline, the RTL's too:
 *     test_system_rtl). Alone it is served at once: bus end t0 + 6 563 (8 B = 313 ps, rounded
 *     up), data at t0 + 56 563, response in cycle ceil(56 563 / 1250) = 46. Behind the page it
 *     starts at t0 + 40 000 (queued 33 750 ps), data at t0 + 90 313, response in cycle
 *     ceil(90 313 / 1250) = 73: the command takes 73 - 46 = 27 cycles more.
 * The same command at another time on the same buffer state (relative to its start) is
 * answered from the memo and leaves the channels exactly as a fresh twin run does.
 */
struct tb_fix {
    struct dram *tb;
    struct dram_port *port;
    int flash;
};

static void tb_open(struct tb_fix *f)
{
    struct dram_cfg dc;
    struct dram_port_cfg pc;
    struct err e = {""};
    dram_cfg_default(&dc);
    assert_int_equal(dram_create(&dc, &f->tb, &e), 0);
    dram_port_cfg_default(&pc);
    pc.name = "dma";
    assert_int_equal(dram_port_create(&pc, f->tb, &f->port, &e), 0);
    f->flash = dram_requester(f->tb, "flash_rd");
}

static void tb_close(struct tb_fix *f)
{
    dram_port_destroy(f->port);
    dram_destroy(f->tb);
}

static void test_flash_read_delays_dma(void **state)
{
    struct dma_time *t = open_dmat(), *u = open_dmat();
    struct tb_fix a, b, c;
    struct err e = {""};
    uint64_t alone, behind, again, fresh;
    const uint64_t t0 = 1000000, t1 = 7000000;
    (void)state;
    struct dma_desc d = {.src = 0, .dst = 0, .rows = 1, .len = 8, .src_stride = 8, .dst_stride = 8};

    tb_open(&a);
    tb_open(&b);
    tb_open(&c);
    assert_int_equal(dma_time_run(t, &d, a.port, a.tb, t0, &alone, &e), 0);
    assert_int_equal(dram_access(b.tb, b.flash, t0, 0, 4096, true), t0 + 40000 + 50000);
    assert_int_equal(dram_chan_stats(b.tb, 0)->busy_until, t0 + 40000);
    assert_int_equal(dma_time_run(t, &d, b.port, b.tb, t0, &behind, &e), 0);
    assert_int_equal(behind, alone + 27);
    assert_int_equal(dram_req_stats(b.tb, 0)->wait_ps, 33750);
    assert_int_equal(dram_req_stats(a.tb, 0)->wait_ps, 0);
    assert_int_equal(dram_chan_stats(b.tb, 0)->busy_until, t0 + 40313);
    assert_int_equal(dma_time_contended(t), 1);

    /* the same at t1 (another residue-equal address): from the memo, the same state after */
    uint64_t hits = dma_time_hits(t);
    assert_int_equal(dram_access(b.tb, b.flash, t1, 1024 * 4096, 4096, true), t1 + 90000);
    d.src = 1024 * 4096;
    assert_int_equal(dma_time_run(t, &d, b.port, b.tb, t1, &again, &e), 0);
    assert_int_equal(dma_time_hits(t), hits + 1);
    assert_int_equal(again, behind);
    assert_int_equal(dram_access(c.tb, c.flash, t1, 1024 * 4096, 4096, true), t1 + 90000);
    assert_int_equal(dma_time_run(u, &d, c.port, c.tb, t1, &fresh, &e), 0);
    assert_int_equal(dma_time_hits(u), 0);
    assert_int_equal(fresh, behind);
    for (uint32_t ch = 0; ch < 4; ch++) {
        assert_int_equal(dram_chan_stats(b.tb, ch)->busy_until,
                         dram_chan_stats(c.tb, ch)->busy_until);
        assert_int_equal(dram_chan_stats(b.tb, ch)->busy_ps,
                         2 * dram_chan_stats(c.tb, ch)->busy_ps);
    }
    assert_int_equal(dram_req_stats(b.tb, 0)->wait_ps, 2 * dram_req_stats(c.tb, 0)->wait_ps);
    assert_int_equal(dram_req_stats(b.tb, 0)->bytes_rd, 16);
    tb_close(&a);
    tb_close(&b);
    tb_close(&c);
    dma_time_destroy(t);
    dma_time_destroy(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates_and_memo),
        cmocka_unit_test(test_idle_start),
        cmocka_unit_test(test_flash_read_delays_dma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
