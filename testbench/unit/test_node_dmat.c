/*
 * test_node_dmat: DMA timing from the DMA twin (models/node/dmat.h): a long plain transfer runs
 * at about one 8-byte beat per cycle, a transposing load is not faster than a plain one, the
 * same descriptor at a tensor-buffer address one interleave span (channels x interleave_bytes)
 * away is answered from the memo with the same cycles while another offset is simulated, a
 * descriptor's cycles do not depend on what ran before it (every command starts from idle
 * channels), and a descriptor the DMA rejects is an error, also when one in range with the
 * same residue was memoised. That the residue gives the real address's cycles is checked
 * against the RTL DMA at the real addresses (test_system_rtl's lockstep runs).
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
#include "models/node/dmat.h"

static struct dmat *open_dmat(void)
{
    struct dma_params p;
    struct dmat *t;
    struct err e;
    dma_params_default(&p);
    p.sram_addr_bits = 18;
    p.sram_bytes = 3 * 65536; /* the core map of 8x8 with 4096-word pads: 64 + 64 + 128 KiB */
    p.sram_bytes += 65536;
    if (dmat_create(&p, NULL, 1250, &t, &e))
        fail_msg("%s", e.msg);
    return t;
}

static void test_rates_and_memo(void **state)
{
    struct dmat *t = open_dmat();
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
    assert_int_equal(dmat_cycles(t, &d, &a, &e), 0);
    uint64_t beats = 64 * 512 / 8;
    assert_true(a >= beats && a < beats + beats / 4 + 64);
    assert_int_equal(dmat_simulated(t), 1);
    d.src = 0x4000 + 1024 * 77; /* one residue modulo 4 x 256 bytes: memo */
    assert_int_equal(dmat_cycles(t, &d, &b, &e), 0);
    assert_int_equal(a, b);
    assert_int_equal(dmat_simulated(t), 1);
    assert_int_equal(dmat_hits(t), 1);
    d.src = 0x4000 + 1024 * 77 + 8; /* another residue: simulated */
    assert_int_equal(dmat_cycles(t, &d, &b, &e), 0);
    assert_int_equal(dmat_simulated(t), 2);
    d.src = (16ull << 30) - 512; /* the residue of a memoised one, but out of range */
    d.src -= d.src % 1024;
    d.src += 0x4000 % 1024;
    assert_int_equal(dmat_cycles(t, &d, &b, &e), -EINVAL);
    d.src = 0x4000;
    d.xpose = true; /* 64 rows of 256 elements -> 256 rows of 128 bytes */
    d.dst_stride = 128;
    assert_int_equal(dmat_cycles(t, &d, &x, &e), 0);
    assert_true(x >= beats);
    d.xpose = false;
    d.store = true; /* SRAM -> TB */
    d.src = 0;
    d.dst = 0x8000;
    d.dst_stride = 512;
    assert_int_equal(dmat_cycles(t, &d, &c, &e), 0);
    assert_true(c >= beats);
    d.len = 0; /* rejected */
    assert_int_equal(dmat_cycles(t, &d, &c, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "rejected"));
    dmat_destroy(t);
}

/* A descriptor's cycles in a fresh model equal its cycles after a long store: each probe
 * starts from an idle DMA and idle channels, whatever ran before. */
static void test_idle_start(void **state)
{
    struct dmat *t = open_dmat(), *u = open_dmat();
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
    assert_int_equal(dmat_cycles(t, &ld, &a, &e), 0);
    assert_int_equal(dmat_cycles(u, &st, &c, &e), 0);
    assert_int_equal(dmat_cycles(u, &ld, &b, &e), 0);
    assert_int_equal(a, b);
    dmat_destroy(t);
    dmat_destroy(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates_and_memo),
        cmocka_unit_test(test_idle_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
