/*
 * test_core_be: the twin backend of the core interface (models/core/core_be.h): 2-D
 * writes and reads through the DMA byte map land in the pads as the twin lays them out, a GEMM
 * through the backend gives the twin's status, cycles and bits, and accesses outside the map
 * are refused.
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

#include "csim/rng.h"
#include "models/core/core_be.h"
#include "models/ref/ref_gemm.h"

static void test_tlm_backend(void **state)
{
    struct core_params cfg = {8, 8, 64, 64, 64, 1};
    struct core_twin_map map;
    struct err e = {""};
    const struct core_be_ops *o = &core_be_tlm_ops;
    void *h;
    (void)state;
    core_twin_map(&cfg, &map);
    assert_int_equal(o->create(&cfg, 1, &h, &e), 0);

    /* A (8 x 16, lda 16) and B (16 x 8, ldb 8), random bf16 in [-2, 2) */
    uint16_t a[8 * 16], b[16 * 8];
    uint64_t s = 3;
    for (int i = 0; i < 8 * 16; i++)
        a[i] = (uint16_t)(0x3F80 | (rng_next(&s) & 0x807F));
    for (int i = 0; i < 16 * 8; i++)
        b[i] = (uint16_t)(0x3F80 | (rng_next(&s) & 0x807F));
    /* rows of A written with a stride: two rows of 16 elements per 64-byte step */
    assert_int_equal(o->write(h, map.a_base, 32, 8, 32, a, &e), 0);
    assert_int_equal(o->write(h, map.b_base, 16, 16, 16, b, &e), 0);
    uint16_t back[8 * 16];
    assert_int_equal(o->read(h, map.a_base, 32, 8, 32, back, &e), 0);
    assert_memory_equal(a, back, sizeof(a));

    struct core_cmd cmd = {.m = 8,
                           .n = 8,
                           .k = 16,
                           .a_addr = 0,
                           .b_addr = 0,
                           .c_addr = 0,
                           .lda = 16,
                           .ldb = 8,
                           .ldc = 8};
    struct core_twin_result res;
    assert_int_equal(o->exec(h, &cmd, &res, &e), 0);
    assert_int_equal(res.status, CORE_OK);
    assert_int_equal(res.cycles, core_twin_cycles(&cfg, &cmd));
    uint32_t c[64], ref[64];
    assert_int_equal(o->read(h, map.c_base, 32, 8, 32, c, &e), 0);
    assert_int_equal(ref_gemm(8, 8, 16, a, 16, false, b, 8, false, ref, 8, false), 0);
    assert_memory_equal(c, ref, sizeof(c));
    assert_int_equal(o->cycle(h), res.cycles);

    /* outside the map, or across a pad boundary */
    assert_int_equal(o->write(h, map.end - 8, 8, 2, 8, a, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "DMA write of 8 bytes"));
    assert_non_null(strstr(e.msg, "leaves its pad"));
    assert_int_equal(o->read(h, map.b_base - 8, 0, 1, 16, back, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "DMA read of 16 bytes"));
    cmd.m = 0; /* a bad command is a status */
    assert_int_equal(o->exec(h, &cmd, &res, &e), 0);
    assert_int_equal(res.status, CORE_ERR_DIM);
    o->destroy(h);

    struct core_params bad = {0, 8, 64, 64, 64, 1};
    h = &e; /* anything but NULL: a failed create leaves NULL */
    assert_int_equal(o->create(&bad, 1, &h, &e), -EINVAL);
    assert_null(h);
    assert_non_null(strstr(e.msg, "bad configuration"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tlm_backend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
