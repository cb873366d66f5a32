/*
 * bench_an: the verilated Activation Node datapath (rtl/an/an_top.v: DMA + 8x8 core), one
 * 64 x 64 x 64 layer end to end (A and W^T in by DMA from the default tensor buffer, GEMM, C
 * out), as testbench/an/an_flow.h runs it.
 *
 *   an.rtl.cycles_per_s    simulated cycles (DMA phases + GEMM) per wall second, median of 5
 *   an.layer.cycles        cycles of the layer (deterministic), split into its phases
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "testbench/bench_util.h"
#include "csim/rng.h"
#include "models/ref/bf16.h"
#include "testbench/an/an_flow.h"

#define RUNS 5

int main(void)
{
    enum { M = 64, N = 64, K = 64 };
    static uint16_t A[M * K], W[N * K];
    uint64_t rng = 1;
    for (size_t i = 0; i < M * K; i++)
        A[i] = bf16_from_f32((float)((int64_t)(rng_next(&rng) % 4096) - 2048) / 1024.0f);
    for (size_t i = 0; i < N * K; i++)
        W[i] = bf16_from_f32((float)((int64_t)(rng_next(&rng) % 4096) - 2048) / 1024.0f);

    struct an_params rp;
    struct an_rtl *probe = an_rtl_create(0);
    an_rtl_params(probe, &rp);
    an_rtl_destroy(probe);
    const uint32_t w = core_twin_w(&rp.core);
    struct an_layer L = {.m = M,
                         .n = N,
                         .k = K,
                         .a_tb = 1 << 20,
                         .w_tb = 2 << 20,
                         .c_tb = 3 << 20,
                         .lda = (K + w - 1) / w * w,
                         .ldb = (N + w - 1) / w * w,
                         .ldc = (N + w - 1) / w * w};
    struct dma_env_cfg ec;
    dma_env_cfg_default(&ec);
    double cps[RUNS];
    struct an_result r = {0};
    uint64_t cycles = 0;
    struct err e;
    for (int run = 0; run < RUNS; run++) {
        struct an_sys s;
        if (an_flow_open(&s, true, &rp.core, &ec, &e)) {
            fprintf(stderr, "bench_an: %s\n", e.msg);
            return 1;
        }
        double t0 = bench_wall_s();
        if (an_flow_layer(&s, &L, A, W, &r, &e)) {
            fprintf(stderr, "bench_an: %s\n", e.msg);
            return 1;
        }
        double dt = bench_wall_s() - t0;
        cycles = r.env_cycles + r.gemm_port_cycles;
        cps[run] = (double)cycles / dt;
        an_flow_close(&s);
    }
    qsort(cps, RUNS, sizeof(cps[0]), bench_cmp_double);
    printf("# bench_an: an_top %ux%u, one %dx%dx%d layer, default tensor buffer\n", rp.core.rows,
           rp.core.cols, M, N, K);
    printf("%-38s %6.1fe3 (%llu cycles per layer, median of %d; the core's array dominates: "
           "the idle model steps at about this rate too)\n",
           "an.rtl.cycles_per_s", cps[RUNS / 2] / 1e3, (unsigned long long)cycles, RUNS);
    printf("%-38s %6llu   (DMA in %u + %u, GEMM %u, DMA out %u; the rest is the harness's "
           "handshakes)\n",
           "an.layer.cycles", (unsigned long long)cycles, r.dma[0].cycles, r.dma[1].cycles,
           r.gemm_cycles, r.dma[2].cycles);
    char fig[96];
    snprintf(fig, sizeof(fig), "verilated AN datapath (DMA + %ux%u core), %d x %d x %d layer",
             rp.core.rows, rp.core.cols, M, N, K);
    bench_figure(fig, "", "%.2f M cycles/s", cps[RUNS / 2] / 1e6);
    return 0;
}
