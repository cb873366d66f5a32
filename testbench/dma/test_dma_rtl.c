/*
 * Block test of the tensor-buffer DMA (rtl/dma/dma_top.v), driven from C through its shim,
 * in lockstep with the C twin (models/dma/dma_twin.c): every output of both is compared every
 * cycle, so the twin's bytes and cycle counts are the RTL's. On top, every completion and
 * every destination byte is checked against the reference (dma_desc_apply), with guard bytes
 * on both sides of every destination and in the gaps between its rows (testbench/dma/dma_scn.h).
 *
 *   test_dma [--seed N] [--waves FILE.fst [--window FIRST:LAST] [--scopes A,B]]
 *
 * The tensor-buffer port is served by the dram_port BFM, the SRAM port by the dma_sram model;
 * the stalls of every port come from the printed seed. A failure prints the seed, the cycle
 * or the descriptor, and both values.
 */
#include "csim/shim/dma.h"
#include "testbench/dma/dma_env.h"
#include "testbench/dma/dma_scn.h"
#include "models/dma/dma_twin.h"
#include "testbench/tb_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static struct tb_args args;

struct fx {
    struct dma_rtl *rtl;
    struct dma_twin *tw;
    struct dma_env *env;
    struct dma_scn *scn;
    struct dma_env_cfg cfg;
};

/* The default environment of these tests: the model's parameters, a fast tensor buffer
 * (10 ns) so that sweeps stay short, no stalls. */
static struct dma_env_cfg base_cfg(uint64_t salt)
{
    struct dma_env_cfg c;
    dma_env_cfg_default(&c);
    struct dma_rtl *r = dma_rtl_create(0);
    dma_rtl_params(r, &c.params);
    dma_rtl_destroy(r);
    c.dram.latency_ps = 10000;
    c.seed = args.seed * 1000003 + salt;
    return c;
}

static struct fx *fx_open(const struct dma_env_cfg *cfg, const char *waves)
{
    struct fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->cfg = *cfg;
    f->rtl = dma_rtl_create(cfg->seed);
    assert_non_null(f->rtl);
    if (waves) {
        struct vtrace_opts o = {.path = waves,
                                .first_cycle = args.first_cycle,
                                .last_cycle = args.last_cycle,
                                .scopes = args.scopes};
        assert_int_equal(dma_rtl_trace(f->rtl, &o), 0);
    }
    struct err e;
    if (dma_twin_create(&cfg->params, &f->tw, &e))
        fail_msg("twin: %s", e.msg);
    struct dma_dut rtl = dma_dut_rtl(f->rtl);
    struct dma_dut tw = dma_dut_twin(f->tw);
    if (dma_env_create(cfg, &rtl, &tw, &f->env, &e))
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
    dma_rtl_destroy(f->rtl);
    free(f);
}

static void add(struct fx *f, const struct dma_desc *d)
{
    struct err e;
    int rc = dma_scn_add(f->scn, d, &e);
    if (rc)
        fail_msg("seed %llu: cannot set up descriptor %zu (%d): %s", (unsigned long long)args.seed,
                 dma_scn_count(f->scn), rc, e.msg);
}

static void run_and_check(struct fx *f, uint64_t max_cycles)
{
    struct err e;
    if (dma_env_run(f->env, max_cycles, &e))
        fail_msg("%s", e.msg);
    if (dma_scn_check(f->scn, &e))
        fail_msg("seed %llu: %s", (unsigned long long)args.seed, e.msg);
}

static void reset_leaves_it_idle(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg(1);
    struct fx *f = fx_open(&c, NULL);
    struct dma_out o;
    dma_rtl_get(f->rtl, &o);
    assert_true(o.idle);
    assert_true(o.desc_ready);
    assert_false(o.cpl_valid);
    assert_false(o.mem.valid);
    assert_false(o.sram.valid);
    assert_true(o.mem.rsp_ready);
    fx_close(f);
}

/*
 * The C side's defaults (dma_params_default, which the machine and the twin's tests start from)
 * are the verilated configuration's: the parameters this model leaves at dma_top's defaults
 * (rtl/dma/block.mk: all but the SRAM map, its latency and the reads in flight) match them.
 */
static void c_defaults_match_the_model(void **state)
{
    (void)state;
    struct dma_params rtl, c;
    struct dma_rtl *r = dma_rtl_create(0);
    dma_rtl_params(r, &rtl);
    dma_rtl_destroy(r);
    dma_params_default(&c);
    assert_int_equal(rtl.tb_bytes, c.tb_bytes);
    assert_int_equal(rtl.max_wr_out, c.max_wr_out);
    assert_int_equal(rtl.desc_depth, c.desc_depth);
    assert_int_equal(rtl.cpl_depth, c.cpl_depth);
}

/*
 * One-row transfers of every length 1..72 and a spread of longer ones up to 9 KiB, at every
 * source offset 0..7 inside a beat, destination offsets spread over a beat, across 4 KiB
 * boundaries on the tensor-buffer side, in both directions. With --waves, the first batch is
 * traced.
 */
static void sweep_lengths_and_offsets(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg(2);
    struct fx *f = fx_open(&c, args.waves);
    static const uint32_t longer[] = {73,   127,  128,  129,  255,  256,  257,  511, 1000,
                                      1023, 2048, 4095, 4096, 4097, 5000, 8191, 9216};
    uint8_t tag = 0;
    for (int store = 0; store < 2; store++) {
        for (uint32_t len = 1; len <= 72; len++) {
            for (uint64_t so = 0; so < 8; so++) {
                uint64_t doff = (so * 3 + len) % 8;
                /* tensor buffer: straddle a 4 KiB boundary for most lengths */
                uint64_t tb = 4096 * (1 + len % 5) - 40 + so;
                uint64_t sram = 256 * len % 32768 + doff;
                struct dma_desc d = {.store = store,
                                     .tag = tag++,
                                     .rows = 1,
                                     .len = len,
                                     .src = store ? sram : tb,
                                     .dst = store ? tb : sram};
                add(f, &d);
            }
            if (len % 24 == 0)
                run_and_check(f, 2000000);
        }
        for (size_t i = 0; i < sizeof(longer) / sizeof(longer[0]); i++)
            for (uint64_t so = 0; so < 8; so += 3) {
                uint64_t doff = (so + i) % 8;
                uint64_t tb = 4096 * (3 + i) - 1000 * (so & 1) + so;
                uint64_t sram = 1024 * (i % 4) + doff;
                struct dma_desc d = {.store = store,
                                     .tag = tag++,
                                     .rows = 1,
                                     .len = longer[i],
                                     .src = store ? sram : tb,
                                     .dst = store ? tb : sram};
                add(f, &d);
            }
        run_and_check(f, 2000000);
    }
    fx_close(f);
}

/* 2-D transfers: random rows, lengths, strides and offsets, both directions. */
static void strided_transfers(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg(3);
    struct fx *f = fx_open(&c, NULL);
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 40; i++) {
            struct dma_desc d;
            dma_scn_random(f->scn, i & 1 ? DMA_SCN_STORE : DMA_SCN_LOAD, 24, 200, 1 << 22, &d);
            add(f, &d);
        }
        run_and_check(f, 2000000);
    }
    fx_close(f);
}

/* Transposes: every shape up to 9 x 9 elements (whole and partial tiles) at shifting
 * offsets and strides, then random ones up to 40 x 40. */
static void transposes(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg(4);
    struct fx *f = fx_open(&c, NULL);
    uint8_t tag = 0;
    for (uint32_t rows = 1; rows <= 9; rows++) {
        for (uint32_t cols = 1; cols <= 9; cols++) {
            struct dma_desc d = {.xpose = true,
                                 .tag = tag++,
                                 .rows = rows,
                                 .len = 2 * cols,
                                 .src = 4096 * (1 + cols % 3) - 8 + (rows + cols) % 8,
                                 .src_stride = 2 * cols + (rows % 3) * 5,
                                 .dst = 64 * tag + (rows * cols) % 8,
                                 .dst_stride = 2 * rows + (cols % 4) * 3};
            add(f, &d);
        }
        run_and_check(f, 2000000);
    }
    for (int i = 0; i < 40; i++) {
        struct dma_desc d;
        dma_scn_random(f->scn, DMA_SCN_XPOSE, 40, 80, 1 << 20, &d);
        add(f, &d);
    }
    run_and_check(f, 2000000);
    fx_close(f);
}

/* Random descriptors of every kind with random stalls on every port: descriptor valid,
 * tensor-buffer request ready and response valid, SRAM ready, completion ready. */
static void random_backpressure_everywhere(void **state)
{
    (void)state;
    static const unsigned pct[][5] = {
        {30, 30, 30, 50, 50}, {70, 10, 60, 10, 80}, {5, 80, 20, 90, 20}, {50, 50, 50, 50, 50}};
    for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
        struct dma_env_cfg c = base_cfg(10 + k);
        c.port.req_stall_pct = pct[k][0];
        c.port.rsp_stall_pct = pct[k][1];
        c.sram_stall_pct = pct[k][2];
        c.desc_stall_pct = pct[k][3];
        c.cpl_stall_pct = pct[k][4];
        c.port.max_outstanding = 1 + (unsigned)k * 5;
        c.dram.latency_ps = 2000 + 20000 * k;
        struct fx *f = fx_open(&c, NULL);
        for (int i = 0; i < 40; i++) {
            struct dma_desc d;
            dma_scn_random(f->scn, DMA_SCN_ANY, 10, 120, 1 << 20, &d);
            add(f, &d);
        }
        run_and_check(f, 4000000);
        fx_close(f);
    }
}

/* Descriptors that reach outside either memory, or are malformed, complete with their
 * status and move nothing; the good ones around them run. */
static void bad_descriptors_are_rejected(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg(5);
    c.cpl_stall_pct = 40;
    c.desc_stall_pct = 20;
    struct fx *f = fx_open(&c, NULL);
    const uint64_t S = c.params.sram_bytes, T = c.params.tb_bytes;
    struct dma_desc bad[] = {
        {.rows = 0, .len = 8, .src = 64, .dst = 64},
        {.rows = 2, .len = 0, .src = 64, .dst = 64},
        {.rows = 2, .len = 16, .src = 64, .dst = 64, .src_stride = 16, .dst_stride = 15},
        {.xpose = true, .rows = 2, .len = 15, .src = 64, .dst = 64, .dst_stride = 64},
        {.xpose = true, .store = true, .rows = 2, .len = 16, .src = 64, .dst = 64},
        {.xpose = true,
         .rows = 5,
         .len = 16,
         .src = 64,
         .src_stride = 16,
         .dst = 64,
         .dst_stride = 9},
        {.rows = 2, .len = 16, .src = T - 31, .src_stride = 16, .dst = 64, .dst_stride = 16},
        {.rows = 1, .len = 1, .src = T, .dst = 64},
        {.rows = 2, .len = 16, .src = 64, .src_stride = 16, .dst = S - 31, .dst_stride = 16},
        {.rows = 1, .len = 1, .src = 64, .dst = S},
        {.xpose = true,
         .rows = 3,
         .len = 8,
         .src = 64,
         .src_stride = 8,
         .dst = S - 3 * 6,
         .dst_stride = 6},
        {.store = true, .rows = 1, .len = 9, .src = S - 8, .dst = 64},
        {.store = true, .rows = 1, .len = 9, .src = 0, .dst = T - 8},
        {.store = true, .rows = 3, .len = 8, .src = 0, .dst = 0, .dst_stride = 1ull << 39},
        {.rows = 65535,
         .len = 1,
         .src = 0,
         .src_stride = (1ull << 40) - 1,
         .dst = 0,
         .dst_stride = 1},
        {.store = true, .rows = 1, .len = 0xffffff, .src = 0, .dst = 0},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct dma_desc good = {.store = i & 1,
                                .rows = 3,
                                .len = 21,
                                .src = 8192 + 100 * i,
                                .src_stride = 30,
                                .dst = 4000 + 100 * i,
                                .dst_stride = 25};
        bad[i].tag = (uint8_t)(0x80 + i);
        if (dma_desc_check(&bad[i], &c.params) == DMA_ST_OK)
            fail_msg("bad descriptor %zu passes the check", i);
        add(f, &bad[i]);
        add(f, &good);
    }
    /* Exactly at the ends: these run. */
    struct dma_desc edge[] = {
        {.rows = 1, .len = 5, .src = T - 5, .dst = S - 5},
        {.store = true,
         .rows = 2,
         .len = 7,
         .src = S - 7 - 9,
         .src_stride = 9,
         .dst = T - 16,
         .dst_stride = 9},
        {.xpose = true,
         .rows = 3,
         .len = 4,
         .src = T - 4 - 2 * 5,
         .src_stride = 5,
         .dst = S - 6 - 7,
         .dst_stride = 7},
    };
    for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
        edge[i].tag = (uint8_t)(0x40 + i);
        assert_int_equal(dma_desc_check(&edge[i], &c.params), DMA_ST_OK);
        add(f, &edge[i]);
    }
    run_and_check(f, 1000000);
    fx_close(f);
}

/* A tensor buffer smaller than the DMA was built for: error responses, status MEM_ERR,
 * the in-range part still moved. */
static void tensor_buffer_errors_are_reported(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg(6);
    c.dram.size_bytes = 1 << 20;
    struct fx *f = fx_open(&c, NULL);
    struct dma_desc d[] = {
        {.rows = 2, .len = 64, .src = (1 << 20) - 64, .src_stride = 64, .dst = 0, .dst_stride = 64},
        {.store = true, .rows = 1, .len = 40, .src = 0, .dst = (1 << 20) - 16},
        {.rows = 1, .len = 64, .src = (1 << 20) - 64, .dst = 512},
    };
    for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
        d[i].tag = (uint8_t)i;
        add(f, &d[i]);
    }
    run_and_check(f, 100000);
    fx_close(f);
}

/* Long transfers with a memory that keeps up: within 5% of a beat per cycle, both ways. */
static void long_transfers_run_at_a_beat_per_cycle(void **state)
{
    (void)state;
    struct dma_env_cfg c = base_cfg(7);
    struct fx *f = fx_open(&c, NULL);
    struct dma_desc d[] = {
        {.rows = 1, .len = 32768, .src = 1 << 20, .dst = 0},
        {.store = true, .rows = 1, .len = 32768, .src = 0, .dst = 1 << 21},
        {.rows = 8, .len = 4096, .src = 3 << 20, .src_stride = 8192, .dst = 0, .dst_stride = 4096},
        {.xpose = true,
         .rows = 64,
         .len = 256,
         .src = 5 << 20,
         .src_stride = 256,
         .dst = 0,
         .dst_stride = 128},
    };
    for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
        d[i].tag = (uint8_t)i;
        add(f, &d[i]);
        struct err e;
        if (dma_env_run(f->env, 1000000, &e))
            fail_msg("%s", e.msg);
        uint64_t rd, wr;
        dma_desc_beats(&d[i], &rd, &wr);
        uint32_t cyc = dma_env_cpl(f->env, 0)->cpl.cycles;
        double bpc = (double)(rd > wr ? rd : wr) / cyc;
        printf("# descriptor %zu: %llu beats in %u cycles: %.3f beats/cycle\n", i,
               (unsigned long long)(rd > wr ? rd : wr), cyc, bpc);
        if (bpc < 0.95)
            fail_msg("descriptor %zu: %.3f beats per cycle, below 0.95", i, bpc);
        if (dma_scn_check(f->scn, &e))
            fail_msg("seed %llu: %s", (unsigned long long)args.seed, e.msg);
    }
    fx_close(f);
}

int main(int argc, char **argv)
{
    if (tb_parse_args(argc, argv, &args) != 0)
        return 2;
    struct dma_params p;
    struct dma_rtl *r = dma_rtl_create(0);
    dma_rtl_params(r, &p);
    dma_rtl_destroy(r);
    printf("# dma_top SramAddrW %u SramBytes %llu SramLat %u MaxRdOut %u, seed %llu\n",
           p.sram_addr_bits, (unsigned long long)p.sram_bytes, p.sram_lat, p.max_rd_out,
           (unsigned long long)args.seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(c_defaults_match_the_model),
        cmocka_unit_test(reset_leaves_it_idle),
        cmocka_unit_test(sweep_lengths_and_offsets),
        cmocka_unit_test(strided_transfers),
        cmocka_unit_test(transposes),
        cmocka_unit_test(random_backpressure_everywhere),
        cmocka_unit_test(bad_descriptors_are_rejected),
        cmocka_unit_test(tensor_buffer_errors_are_reported),
        cmocka_unit_test(long_transfers_run_at_a_beat_per_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
