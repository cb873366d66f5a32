/*
 * End-to-end test of the Activation Node datapath (rtl/an/an_top.v: the tensor-buffer DMA and
 * the compute core as one verilated model): for each layer shape, A (M x K) and W (N x K) go
 * into the tensor buffer, the DMA loads A and W transposed into the core's pads, the core runs
 * C = A W^T, the DMA stores C back, and the tensor buffer's C must equal the reference GEMM
 * (models/ref/ref_gemm.h) bit for bit, with the guard bytes around it untouched. The same
 * layer runs in C-twin form (DMA twin + core twin, testbench/an/an_flow.h) on an identical
 * tensor buffer: the same bytes, and the same cycle counts for every DMA descriptor, the GEMM
 * and the whole DMA traffic.
 *
 *   test_an_<R>x<C> [--seed N] [--waves FILE.fst [--window FIRST:LAST] [--scopes A,B]]
 */
#include "csim/shim/an.h"
#include "models/ref/bf16.h"
#include "models/ref/ref_gemm.h"
#include "testbench/an/an_flow.h"
#include "testbench/tb_util.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static struct tb_args args;

static uint16_t rand_bf16(uint64_t *rng)
{
    /* [-4, 4) in steps of 1/2048: finite, normal or zero, varied exponents */
    float f = (float)((int64_t)rng_below(rng, 16384) - 8192) / 2048.0f;
    return bf16_from_f32(f);
}

static uint32_t round_up(uint32_t x, uint32_t w)
{
    return (x + w - 1) / w * w;
}

/* The parameters of the model this test is linked with. */
static struct an_params model_params(void)
{
    struct an_params p;
    struct an_rtl *probe = an_rtl_create(0);
    an_rtl_params(probe, &p);
    an_rtl_destroy(probe);
    return p;
}

/* Run one layer in both forms and check everything; returns the RTL result. */
static void run_layer(const struct an_layer *L, const struct dma_env_cfg *ecfg, uint64_t seed,
                      bool waves)
{
    struct core_params core = model_params().core;

    uint64_t rng = seed;
    size_t na = (size_t)L->m * L->k, nw = (size_t)L->n * L->k, nc = (size_t)L->m * L->n;
    uint16_t *A = malloc(na * 2), *W = malloc(nw * 2);
    uint32_t *want = malloc(nc * 4);
    uint8_t *got[2];
    struct an_result res[2];
    struct err err;
    assert_non_null(A);
    assert_non_null(W);
    assert_non_null(want);
    for (size_t i = 0; i < na; i++)
        A[i] = rand_bf16(&rng);
    for (size_t i = 0; i < nw; i++)
        W[i] = rand_bf16(&rng);
    assert_int_equal(ref_gemm(L->m, L->n, L->k, A, L->k, false, W, L->k, true, want, L->n, false),
                     0);

    for (int form = 0; form < 2; form++) {
        struct an_sys s;
        if (an_flow_open(&s, form == 0, &core, ecfg, &err))
            fail_msg("seed %llu: %s", (unsigned long long)seed, err.msg);
        if (form == 0 && waves && args.waves) {
            struct vtrace_opts o = {.path = args.waves,
                                    .first_cycle = args.first_cycle,
                                    .last_cycle = args.last_cycle,
                                    .scopes = args.scopes};
            assert_int_equal(an_rtl_trace(s.a, &o), 0);
        }
        if (an_flow_layer(&s, L, A, W, &res[form], &err))
            fail_msg("seed %llu %s: %s", (unsigned long long)seed, form ? "twin" : "rtl", err.msg);
        got[form] = malloc(nc * 4 + 2 * AN_GUARD);
        assert_non_null(got[form]);
        assert_int_equal(
            dram_read(dma_env_dram(s.env), L->c_tb - AN_GUARD, got[form], nc * 4 + 2 * AN_GUARD),
            0);
        an_flow_close(&s);
    }

    for (int form = 0; form < 2; form++) {
        const char *fn = form ? "twin" : "rtl";
        const struct an_result *r = &res[form];
        for (int i = 0; i < 3; i++)
            if (r->dma[i].status != DMA_ST_OK || r->dma[i].tag != i + 1)
                fail_msg("seed %llu %s: DMA descriptor %d: tag %u status %s",
                         (unsigned long long)seed, fn, i, r->dma[i].tag,
                         dma_status_name(r->dma[i].status));
        if (r->gemm_status != CORE_OK)
            fail_msg("seed %llu %s: GEMM status %d", (unsigned long long)seed, fn, r->gemm_status);
        const uint8_t *g = got[form];
        for (size_t i = 0; i < AN_GUARD; i++)
            if (g[i] != 0xa5 || g[AN_GUARD + nc * 4 + i] != 0xa5)
                fail_msg("seed %llu %s: guard byte %zu around C changed", (unsigned long long)seed,
                         fn, i);
        for (size_t e = 0; e < nc; e++) {
            const uint8_t *p = g + AN_GUARD + 4 * e;
            uint32_t v = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            if (v != want[e])
                fail_msg("seed %llu %s: %ux%ux%u C[%zu][%zu] = %#010x, reference %#010x",
                         (unsigned long long)seed, fn, L->m, L->n, L->k, e / L->n, e % L->n, v,
                         want[e]);
        }
    }
    for (int i = 0; i < 3; i++)
        if (res[0].dma[i].cycles != res[1].dma[i].cycles)
            fail_msg("seed %llu: DMA descriptor %d: %u cycles in RTL, %u in the twin",
                     (unsigned long long)seed, i, res[0].dma[i].cycles, res[1].dma[i].cycles);
    if (res[0].gemm_cycles != res[1].gemm_cycles)
        fail_msg("seed %llu: GEMM %u cycles in RTL, %u in the twin", (unsigned long long)seed,
                 res[0].gemm_cycles, res[1].gemm_cycles);
    if (res[0].env_cycles != res[1].env_cycles)
        fail_msg("seed %llu: DMA traffic %llu cycles in RTL, %llu in the twin",
                 (unsigned long long)seed, (unsigned long long)res[0].env_cycles,
                 (unsigned long long)res[1].env_cycles);
    printf("# %ux%ux%u: DMA in %u + %u, GEMM %u, DMA out %u cycles (RTL = twin)\n", L->m, L->n,
           L->k, res[0].dma[0].cycles, res[0].dma[1].cycles, res[0].gemm_cycles,
           res[0].dma[2].cycles);
    free(A);
    free(W);
    free(want);
    free(got[0]);
    free(got[1]);
}

static struct dma_env_cfg env_cfg(uint64_t salt)
{
    struct dma_env_cfg c;
    dma_env_cfg_default(&c);
    c.seed = args.seed * 1000003 + salt;
    return c;
}

/* A spread of shapes: whole and partial tiles, K longer and shorter than the array, operands
 * at unaligned tensor-buffer addresses, pads with gaps between rows. */
static void layers_match_reference_and_twin(void **state)
{
    (void)state;
    struct an_params rp = model_params();
    const uint32_t w = core_twin_w(&rp.core);
    static const uint32_t shapes[][3] = {{8, 8, 8},    {1, 1, 1},   {13, 7, 21},
                                         {16, 24, 32}, {5, 33, 12}, {32, 16, 64}};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        uint32_t m = shapes[i][0], n = shapes[i][1], k = shapes[i][2];
        struct an_layer L = {.m = m,
                             .n = n,
                             .k = k,
                             .a_tb = (1 << 20) + 3 * i,
                             .w_tb = (2 << 20) + 5 * i,
                             .c_tb = (3 << 20) + 4096 - 8 + i,
                             .a_addr = 0,
                             .b_addr = w * (uint32_t)i,
                             .c_addr = 0,
                             .lda = round_up(k, w) + (i & 1) * w,
                             .ldb = round_up(n, w),
                             .ldc = round_up(n, w) + (i & 2 ? w : 0)};
        struct dma_env_cfg c = env_cfg(i);
        run_layer(&L, &c, c.seed, i == 0);
    }
}

/* The same with random stalls on the tensor-buffer port (the same seed in both forms). */
static void layers_with_tensor_buffer_stalls(void **state)
{
    (void)state;
    struct an_params rp = model_params();
    const uint32_t w = core_twin_w(&rp.core);
    struct dma_env_cfg c = env_cfg(100);
    c.port.req_stall_pct = 30;
    c.port.rsp_stall_pct = 30;
    c.port.max_outstanding = 8;
    c.desc_stall_pct = 50;
    c.cpl_stall_pct = 50;
    struct an_layer L = {.m = 12,
                         .n = 20,
                         .k = 24,
                         .a_tb = 4096 - 2,
                         .w_tb = 2 * 4096 + 7,
                         .c_tb = 5 * 4096 - 30,
                         .lda = round_up(24, w),
                         .ldb = round_up(20, w),
                         .ldc = round_up(20, w)};
    run_layer(&L, &c, c.seed, false);
}

int main(int argc, char **argv)
{
    if (tb_parse_args(argc, argv, &args) != 0)
        return 2;
    struct an_params p = model_params();
    printf("# an_top %ux%u, pads %u/%u/%u words, SRAM map %llu bytes, seed %llu\n", p.core.rows,
           p.core.cols, p.core.a_words, p.core.b_words, p.core.c_words,
           (unsigned long long)p.dma.sram_bytes, (unsigned long long)args.seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layers_match_reference_and_twin),
        cmocka_unit_test(layers_with_tensor_buffer_stalls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
