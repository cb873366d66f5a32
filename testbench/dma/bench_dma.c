/*
 * bench_dma: the tensor-buffer DMA (rtl/dma) on long transfers, verilated, against the default
 * tensor buffer (4 channels x 25.6 GB/s, 50 ns) at a 1250 ps clock and an SRAM that never
 * stalls: the memory keeps up, so the DMA itself sets the pace.
 *
 *   dma.<case>.bytes_per_cycle   bytes moved / cycles from the descriptor leaving the queue
 *                                to its completion (deterministic: one run); the target is
 *                                within 5% of 8 (one 8-byte beat per cycle)
 *   dma.rtl.cycles_per_s         verilated DMA with its BFMs, wall clock, median of 5 runs
 *   dma.twin.cycles_per_s        the C twin with the same BFMs, median of 5 runs
 *
 * Every run is also checked byte for byte against the reference (testbench/dma/dma_scn.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testbench/bench_util.h"
#include "csim/shim/dma.h"
#include "testbench/dma/dma_env.h"
#include "testbench/dma/dma_scn.h"
#include "models/dma/dma_twin.h"

#define RUNS 5

struct bcase {
    const char *name;
    struct dma_desc d;
};

/* 512 KiB each: half the default 1 MiB SRAM. */
static const struct bcase cases[] = {
    {"load_1d", {.rows = 1, .len = 512 * 1024, .src = 1 << 20, .dst = 0}},
    {"store_1d", {.store = true, .rows = 1, .len = 512 * 1024, .src = 0, .dst = 3 << 20}},
    {"load_2d_4k_rows",
     {.rows = 128, .len = 4096, .src = 8 << 20, .src_stride = 6144, .dst = 8, .dst_stride = 4096}},
    {"load_1d_unaligned", {.rows = 1, .len = 512 * 1024 - 5, .src = (1 << 20) + 3, .dst = 5}},
    {"load_xpose",
     {.xpose = true,
      .rows = 256,
      .len = 2048,
      .src = 16 << 20,
      .src_stride = 2048,
      .dst = 0,
      .dst_stride = 512}},
};

/* Run one descriptor on a fresh env; returns the completion's cycle count, or 0 on failure.
 * *sim_cycles gets the env cycles, *dt the wall time of dma_env_run. */
static uint32_t run_one(bool rtl, const struct dma_desc *d, uint64_t *sim_cycles, double *dt)
{
    struct dma_env_cfg c;
    struct dma_rtl *r = NULL;
    struct dma_twin *t = NULL;
    struct dma_env *e = NULL;
    struct dma_scn *s = NULL;
    struct dma_dut dut;
    struct err err;
    uint32_t cycles = 0;

    dma_env_cfg_default(&c);
    r = dma_rtl_create(1);
    dma_rtl_params(r, &c.params);
    if (rtl) {
        dut = dma_dut_rtl(r);
    } else {
        dma_rtl_destroy(r);
        r = NULL;
        if (dma_twin_create(&c.params, &t, &err)) {
            fprintf(stderr, "bench_dma: %s\n", err.msg);
            return 0;
        }
        dut = dma_dut_twin(t);
    }
    if (dma_env_create(&c, &dut, NULL, &e, &err) ||
        dma_scn_create(&(struct dma_scn_cfg){.seed = 1}, e, &s, &err) || dma_scn_add(s, d, &err)) {
        fprintf(stderr, "bench_dma: cannot set up: %s\n", err.msg);
        goto out;
    }
    double t0 = bench_wall_s();
    if (dma_env_run(e, 100000000, &err)) {
        fprintf(stderr, "bench_dma: %s\n", err.msg);
        goto out;
    }
    *dt = bench_wall_s() - t0;
    *sim_cycles = dma_env_cycle(e);
    cycles = dma_env_cpl(e, 0)->cpl.cycles;
    if (dma_scn_check(s, &err)) {
        fprintf(stderr, "bench_dma: wrong result: %s\n", err.msg);
        cycles = 0;
    }
out:
    dma_scn_destroy(s);
    dma_env_destroy(e);
    dma_twin_destroy(t);
    if (r)
        dma_rtl_destroy(r);
    return cycles;
}

int main(void)
{
    printf("# bench_dma: tensor-buffer DMA, default parameters, default tensor buffer, 1250 ps "
           "clock, no stalls\n");
    double rtl_cps[RUNS], twin_cps[RUNS], worst = 8;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t sim;
        double dt;
        uint32_t cyc = run_one(true, &cases[i].d, &sim, &dt);
        uint32_t tcyc = run_one(false, &cases[i].d, &sim, &dt);
        if (!cyc || cyc != tcyc) {
            fprintf(stderr, "bench_dma: %s: rtl %u cycles, twin %u\n", cases[i].name, cyc, tcyc);
            return 1;
        }
        double bytes = (double)cases[i].d.rows * cases[i].d.len;
        char key[64];
        snprintf(key, sizeof(key), "dma.%s.bytes_per_cycle", cases[i].name);
        printf("%-38s %6.3f   (%.0f bytes in %u cycles; %.1f%% of 8; twin: same cycles)\n", key,
               bytes / cyc, bytes, cyc, 100.0 * bytes / cyc / 8);
        if (bytes / cyc < worst)
            worst = bytes / cyc;
    }
    bench_figure("DMA throughput, 512 KiB load/store/2-D/unaligned/transposed, memory keeping up",
                 "within 5% of 8 B/cycle",
                 "%.2f B/cycle at the slowest (%.1f%% of a beat per cycle)", worst,
                 100.0 * worst / 8);
    for (int r = 0; r < RUNS; r++) {
        uint64_t sim = 0;
        double dt = 1;
        if (!run_one(true, &cases[0].d, &sim, &dt))
            return 1;
        rtl_cps[r] = (double)sim / dt;
        if (!run_one(false, &cases[0].d, &sim, &dt))
            return 1;
        twin_cps[r] = (double)sim / dt;
    }
    printf("%-38s %6.2fe6 (load_1d with its BFMs and scoreboard, median of %d)\n",
           "dma.rtl.cycles_per_s", bench_median(rtl_cps, RUNS) / 1e6, RUNS);
    printf("%-38s %6.2fe6 (the same run on the C twin, median of %d)\n", "dma.twin.cycles_per_s",
           bench_median(twin_cps, RUNS) / 1e6, RUNS);
    bench_figure("verilated DMA with its BFMs / its C twin", "", "%.1f M / %.1f M cycles/s",
                 rtl_cps[RUNS / 2] / 1e6, twin_cps[RUNS / 2] / 1e6);
    return 0;
}
