/*
 * test_dma_twin: the C twin of the tensor-buffer DMA on its own: parameter and descriptor
 * checks, completion timing written as sums of named pipeline phases, bytes against the
 * reference (dma_desc_apply) with guard bytes, transposes, random backpressure everywhere,
 * rejected descriptors, tensor-buffer error responses. The RTL is held to the twin cycle by
 * cycle in testbench/dma/test_dma_rtl.c.
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

#include "testbench/dma/dma_env.h"
#include "testbench/dma/dma_scn.h"
#include "models/dma/dma_twin.h"

#define SEED 1

/* Phases of a transfer on the default timing (1250 ps clock, 50 ns + 313 ps tensor buffer):
 * see rtl/dma/README.md, "Timing". */
#define T_CHECK 1  /* CHECK state: the descriptor's status is decided */
#define T_WALK  1  /* the address generator loads its first segment */
#define T_ISSUE 1  /* the first request enters the port's skid buffer */
#define T_TB    41 /* tensor buffer: accepted, then 50.313 ns = 40.25 cycles, rounded up */
/* SRAM: its response latency L (the write acknowledgement that ends a load) */
#define T_RSP   1 /* the response cycle: data into the data FIFO */
#define T_PACK  1 /* dma_rd_pack takes it */
#define T_XFILL 4 /* transposes: the first tile's 4 rows enter the transpose buffer */
#define T_WR    1 /* dma_wr places it into the other port's skid buffer */
#define T_DONE  1 /* RUN sees every write landed */
#define T_CPL   1 /* CPL pushes the completion */

struct fx {
    struct dma_twin *tw;
    struct dma_env *env;
    struct dma_scn *scn;
    struct dma_env_cfg cfg;
};

/* A small SRAM (48 KiB of a 64 KiB map: not a power of two), latency 3, 16 reads in flight. */
static void small_params(struct dma_params *p)
{
    dma_params_default(p);
    p->sram_addr_bits = 16;
    p->sram_bytes = 48 * 1024;
    p->sram_lat = 3;
    p->max_rd_out = 16;
}

static struct fx *fx_open(const struct dma_env_cfg *cfg)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct err e;
    assert_non_null(f);
    f->cfg = *cfg;
    if (dma_twin_create(&cfg->params, &f->tw, &e))
        fail_msg("twin: %s", e.msg);
    struct dma_dut dut = dma_dut_twin(f->tw);
    if (dma_env_create(cfg, &dut, NULL, &f->env, &e))
        fail_msg("env: %s", e.msg);
    if (dma_scn_create(&(struct dma_scn_cfg){.seed = cfg->seed}, f->env, &f->scn, &e))
        fail_msg("scenario: %s", e.msg);
    return f;
}

static void fx_close(struct fx *f)
{
    dma_scn_destroy(f->scn);
    dma_env_destroy(f->env);
    dma_twin_destroy(f->tw);
    free(f);
}

static void run_and_check(struct fx *f, uint64_t max_cycles)
{
    struct err e;
    if (dma_env_run(f->env, max_cycles, &e))
        fail_msg("%s", e.msg);
    if (dma_scn_check(f->scn, &e))
        fail_msg("seed %llu: %s", (unsigned long long)f->cfg.seed, e.msg);
}

static void test_params_are_checked(void **state)
{
    (void)state;
    struct dma_params p;
    struct dma_twin *t = NULL;
    struct err e = {""};
    small_params(&p);
    p.max_rd_out = 12;
    assert_int_equal(dma_twin_create(&p, &t, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "powers of two"));
    small_params(&p);
    p.sram_bytes = 1 << 17;
    assert_int_equal(dma_twin_create(&p, &t, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "SramBytes"));
    small_params(&p);
    p.sram_lat = 0;
    assert_int_equal(dma_twin_create(&p, &t, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "sram_lat (SramLat) must be 1..63"));
    small_params(&p);
    assert_int_equal(dma_twin_create(&p, &t, &e), 0);
    dma_twin_destroy(t);
}

static void test_descriptor_checks(void **state)
{
    (void)state;
    struct dma_params p;
    small_params(&p);
    struct dma_desc ok = {.rows = 4, .len = 100, .src_stride = 128, .dst_stride = 100};
    struct dma_desc d = ok;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_OK);
    d.rows = 0;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_BAD_DESC);
    d = ok, d.len = 0;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_BAD_DESC);
    d = ok, d.dst_stride = 99; /* destination rows would overlap */
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_BAD_DESC);
    d = ok, d.src_stride = 0; /* source rows may overlap */
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_OK);
    d = ok, d.xpose = true, d.len = 101;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_BAD_DESC);
    d = ok, d.xpose = true, d.store = true;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_BAD_DESC);
    /* Transposed: 50 destination rows of 8 bytes. */
    d = ok, d.xpose = true, d.dst_stride = 8;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_OK);
    d.dst_stride = 7;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_BAD_DESC);
    d.dst_stride = 8, d.dst = p.sram_bytes - 49 * 8 - 8;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_OK);
    d.dst++;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_DST_RANGE);
    /* Loads: the source is in the tensor buffer, exactly up to its end. */
    d = ok, d.src = p.tb_bytes - 3 * 128 - 100;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_OK);
    d.src++;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_SRC_RANGE);
    d.dst = p.sram_bytes; /* both out: the source is reported */
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_SRC_RANGE);
    /* Stores: the source is in SRAM. */
    d = ok, d.store = true, d.src = p.sram_bytes - 3 * 128 - 100;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_OK);
    d.src++;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_SRC_RANGE);
    d = ok, d.store = true, d.dst = p.tb_bytes - 3 * 100 - 100;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_OK);
    d.dst = (1ull << 40) - 1; /* the largest address, no wrap */
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_DST_RANGE);
    d = ok, d.rows = 65535, d.src_stride = (1ull << 40) - 1;
    assert_int_equal(dma_desc_check(&d, &p), DMA_ST_SRC_RANGE);
    assert_true(dma_desc_fits(&d));
    d.rows = 65536;
    assert_false(dma_desc_fits(&d));
}

static void one(struct fx *f, const struct dma_desc *d)
{
    assert_int_equal(dma_scn_add(f->scn, d, NULL), 0);
    run_and_check(f, 100000);
}

static struct dma_env_cfg base_cfg(void)
{
    struct dma_env_cfg c;
    dma_env_cfg_default(&c);
    small_params(&c.params);
    c.seed = SEED;
    return c;
}

/* Timing without stalls, as sums of phases: the RTL test holds the RTL to the same. */
static void test_timing_is_a_sum_of_phases(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg();
    c.params.max_rd_out = 64; /* more than the tensor buffer's round trip */
    struct fx *f = fx_open(&c);
    const uint32_t L = c.params.sram_lat;
    struct {
        struct dma_desc d;
        uint32_t want;
    } cases[] = {
        /* load of N aligned beats: the last write's acknowledgement ends it */
        {{.rows = 1, .len = 64 * 8, .src = 4096, .dst = 0},
         T_CHECK + T_WALK + T_ISSUE + T_TB + T_RSP + T_PACK + T_WR + 64 + L + T_DONE + T_CPL},
        /* store of N aligned beats: the last write's acknowledgement ends it */
        {{.store = true, .rows = 1, .len = 64 * 8, .src = 0, .dst = 8192},
         T_CHECK + T_WALK + T_ISSUE + L + T_RSP + T_PACK + T_WR + 64 + T_TB + T_DONE + T_CPL},
        /* 2-D load, rows of whole beats: no gap between rows */
        {{.rows = 8, .len = 32, .src = 4096, .src_stride = 40, .dst = 0, .dst_stride = 48},
         T_CHECK + T_WALK + T_ISSUE + T_TB + T_RSP + T_PACK + T_WR + 8 * 4 + L + T_DONE + T_CPL},
        /* a bad descriptor: decided and reported */
        {{.rows = 0, .len = 8}, T_CHECK + T_CPL},
        /* transpose of aligned 4 x 4 tiles: the first tile's four packed rows fill the
         * transpose buffer (T_XFILL), then one beat per cycle */
        {{.xpose = true,
          .rows = 8,
          .len = 16,
          .src = 4096,
          .src_stride = 16,
          .dst = 0,
          .dst_stride = 16},
         T_CHECK + T_WALK + T_ISSUE + T_TB + T_RSP + T_PACK + T_XFILL + T_WR + 16 + L + T_DONE +
             T_CPL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(dma_scn_add(f->scn, &cases[i].d, NULL), 0);
        struct err e;
        if (dma_env_run(f->env, 100000, &e))
            fail_msg("%s", e.msg);
        uint32_t got = dma_env_cpl(f->env, 0)->cpl.cycles;
        if (got != cases[i].want)
            fail_msg("case %zu: %u cycles, expected %u", i, got, cases[i].want);
        if (dma_scn_check(f->scn, &e))
            fail_msg("case %zu: %s", i, e.msg);
    }
    fx_close(f);
}

/* Every length 1..80 at every source and destination offset 0..7, both directions. */
static void test_sweep_lengths_and_offsets(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg();
    struct fx *f = fx_open(&c);
    for (int store = 0; store < 2; store++) {
        for (uint32_t len = 1; len <= 80; len += (len < 24 ? 1 : 7)) {
            for (uint64_t so = 0; so < 8; so++)
                for (uint64_t doff = 0; doff < 8; doff += (len > 24 ? 3 : 1)) {
                    uint64_t tb = 4096 * 3 - 16 + so, sram = 1024 + doff;
                    struct dma_desc d = {.store = store,
                                         .tag = (uint8_t)len,
                                         .rows = 1,
                                         .len = len,
                                         .src = store ? sram : tb,
                                         .dst = store ? tb + 64 : sram};
                    assert_int_equal(dma_scn_add(f->scn, &d, NULL), 0);
                }
            run_and_check(f, 1000000);
        }
    }
    fx_close(f);
}

static void test_transposes(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg();
    struct fx *f = fx_open(&c);
    for (uint32_t rows = 1; rows <= 9; rows++)
        for (uint32_t cols = 1; cols <= 9; cols += 2) {
            struct dma_desc d = {.xpose = true,
                                 .tag = (uint8_t)(rows * 16 + cols),
                                 .rows = rows,
                                 .len = 2 * cols,
                                 .src = 4096 * 5 - 6 + rows,
                                 .src_stride = 2 * cols + (rows & 3),
                                 .dst = 3 + cols,
                                 .dst_stride = 2 * rows + (cols & 1) * 6};
            assert_int_equal(dma_scn_add(f->scn, &d, NULL), 0);
        }
    run_and_check(f, 1000000);
    fx_close(f);
}

/* Random descriptors of every kind with random stalls on every port. */
static void test_random_with_backpressure(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg();
    c.port.req_stall_pct = 30;
    c.port.rsp_stall_pct = 30;
    c.port.max_outstanding = 8;
    c.sram_stall_pct = 30;
    c.desc_stall_pct = 50;
    c.cpl_stall_pct = 50;
    c.dram.latency_ps = 5000;
    struct fx *f = fx_open(&c);
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 25; i++) {
            struct dma_desc d;
            dma_scn_random(f->scn, DMA_SCN_ANY, 12, 300, 1 << 20, &d);
            assert_int_equal(dma_scn_add(f->scn, &d, NULL), 0);
        }
        run_and_check(f, 2000000);
    }
    fx_close(f);
}

/* Rejected descriptors complete with their status and change nothing, between good ones. */
static void test_bad_descriptors_move_nothing(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg();
    c.cpl_stall_pct = 40;
    struct fx *f = fx_open(&c);
    const uint64_t S = c.params.sram_bytes, T = c.params.tb_bytes;
    struct dma_desc bad[] = {
        {.rows = 0, .len = 8, .src = 64, .dst = 64},
        {.rows = 2, .len = 0, .src = 64, .dst = 64},
        {.rows = 2, .len = 16, .src = 64, .dst = 64, .src_stride = 16, .dst_stride = 15},
        {.xpose = true, .rows = 2, .len = 15, .src = 64, .dst = 64, .dst_stride = 64},
        {.xpose = true, .store = true, .rows = 2, .len = 16, .src = 64, .dst = 64},
        {.rows = 2, .len = 16, .src = T - 16, .src_stride = 16, .dst = 64, .dst_stride = 16},
        {.rows = 2, .len = 16, .src = 64, .src_stride = 16, .dst = S - 31, .dst_stride = 16},
        {.store = true, .rows = 1, .len = 9, .src = S - 8, .dst = 64},
        {.store = true, .rows = 1, .len = 9, .src = 0, .dst = T - 8},
        {.store = true, .rows = 3, .len = 8, .src = 0, .dst = 0, .dst_stride = 1ull << 39},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct dma_desc good = {.rows = 3,
                                .len = 21,
                                .src = 8192 + 100 * i,
                                .src_stride = 30,
                                .dst = 4000 + 100 * i,
                                .dst_stride = 25};
        bad[i].tag = (uint8_t)(0x80 + i);
        assert_int_not_equal(dma_desc_check(&bad[i], &c.params), DMA_ST_OK);
        assert_int_equal(dma_scn_add(f->scn, &bad[i], NULL), 0);
        assert_int_equal(dma_scn_add(f->scn, &good, NULL), 0);
    }
    run_and_check(f, 1000000);
    fx_close(f);
}

/* A tensor buffer smaller than the DMA believes: the transfer runs, the status says so. */
static void test_tensor_buffer_errors_are_reported(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg();
    c.dram.size_bytes = 1 << 20;
    struct fx *f = fx_open(&c);
    struct dma_desc d[] = {
        {.rows = 2, .len = 64, .src = (1 << 20) - 64, .src_stride = 64, .dst = 0, .dst_stride = 64},
        {.store = true, .rows = 1, .len = 40, .src = 0, .dst = (1 << 20) - 16},
        {.rows = 1, .len = 64, .src = (1 << 20) - 64, .dst = 512},
    };
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(dma_scn_add(f->scn, &d[i], NULL), 0);
    run_and_check(f, 100000);
    fx_close(f);
}

/* Long transfers with no stalls run at a beat per cycle. */
static void test_long_transfer_beat_per_cycle(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg();
    c.params.max_rd_out = 64;
    struct fx *f = fx_open(&c);
    struct dma_desc d = {.rows = 1, .len = 32768, .src = 1 << 16, .dst = 0};
    one(f, &d);
    fx_close(f);
    (void)d;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_are_checked),
        cmocka_unit_test(test_descriptor_checks),
        cmocka_unit_test(test_timing_is_a_sum_of_phases),
        cmocka_unit_test(test_sweep_lengths_and_offsets),
        cmocka_unit_test(test_transposes),
        cmocka_unit_test(test_random_with_backpressure),
        cmocka_unit_test(test_bad_descriptors_move_nothing),
        cmocka_unit_test(test_tensor_buffer_errors_are_reported),
        cmocka_unit_test(test_long_transfer_beat_per_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
