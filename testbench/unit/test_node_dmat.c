/*
 * test_node_dmat: DMA timing from the DMA twin (models/node/dmat.h): a long plain transfer runs
 * at about one 8-byte beat per cycle, a transposing load is not faster than a plain one, the
 * same shape at another tensor-buffer address in the same alignment class is answered from the
 * memo with the same cycles, and a descriptor the DMA rejects is an error.
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
    d.src = 0x123000; /* same alignment class, other address: memo */
    assert_int_equal(dmat_cycles(t, &d, &b, &e), 0);
    assert_int_equal(a, b);
    assert_int_equal(dmat_simulated(t), 1);
    assert_int_equal(dmat_hits(t), 1);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates_and_memo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
