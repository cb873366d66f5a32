/*
 * bench_core: speed of the verilated compute core (rtl/core/core_top.v) and of its C twin
 * (models/core/core_twin.c) on the same GEMM stream. Built once per array shape (the shims of
 * two models cannot share a binary): bench_core_8x8, bench_core_16x16.
 *
 *   verilated cycles/s : a stream of identical GEMMs (M = N = K = 64, operands written once
 *                        through the DMA port, which is not timed), command valid held high
 *                        and completion ready high, tracing off; the driver sets the inputs
 *                        once and steps the model, reading the outputs once per cycle to count
 *                        completions. Cycles of the core's clock per wall second (and per
 *                        CPU second of the process, which is what wall time would be on an
 *                        idle machine).
 *   GEMM MAC/s         : multiply-accumulates of the finished commands per wall second, for
 *                        the verilated core and for core_twin_exec() on the same command; their
 *                        ratio is the twin's speed-up.
 * Every timed figure is the median of 5 runs. The benchmark checks what it times: every command
 * reports the twin's cycle count, and the C-pad read back through the DMA port at the end equals
 * the twin's after the same command, bit for bit.
 *
 * `bench_core --once` does all of that once (one run of the stream, one twin command, the
 * check) and prints nothing: a short run for profilers (perf, callgrind).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/rng.h"
#include "csim/shim/core.h"
#include "models/core/core_twin.h"
#include "testbench/bench_util.h"

#define RUNS 5
#define DIM  64

/* A bf16 near 1.0, either sign: sums stay ordinary, as in training. */
static uint16_t operand(uint64_t *rng)
{
    uint64_t r = rng_next(rng);
    return (uint16_t)((r & 0x8000u) | (uint16_t)((120 + (r >> 16) % 16) << 7) | ((r >> 8) & 0x7F));
}

/* Write the whole A- and B-pads through the DMA port (and the twin the same way). */
static void load_operands(struct core_rtl *p, struct core_twin *t, const struct core_twin_map *m)
{
    uint64_t rng = 1;
    struct core_in in = {0};
    struct core_out out;
    uint32_t addr = 0;

    while (addr < m->c_base) {
        uint64_t v = 0;
        for (int e = 0; e < 4; e++)
            v |= (uint64_t)operand(&rng) << (16 * e);
        in.dma_valid = true;
        in.dma_we = true;
        in.dma_addr = addr;
        in.dma_wdata = v;
        in.dma_wstrb = 0xFF;
        core_rtl_set(p, &in);
        core_rtl_get(p, &out);
        if (out.dma_ready) {
            if (core_twin_dma_write(t, addr, v, 0xFF) != 0)
                abort();
            addr += 8;
        }
        core_rtl_step(p, 1);
    }
    in.dma_valid = false;
    core_rtl_set(p, &in);
    core_rtl_step(p, CORE_DMA_LATENCY + 1);
}

/*
 * Keep commands coming (valid held high, completion ready high) until `count` completions were
 * seen; each must be CORE_OK with `cycles` cycles. Returns 0, or -1 after saying what differed.
 */
static int run_stream(struct core_rtl *p, const struct core_cmd *cmd, unsigned count,
                      uint64_t cycles)
{
    struct core_in in = {.cmd_valid = true, .cmd = *cmd, .done_ready = true};
    unsigned done = 0;

    core_rtl_set(p, &in);
    while (done < count) {
        struct core_out out;
        core_rtl_get(p, &out);
        if (out.done_valid) {
            if (out.done_status != CORE_OK || out.done_cycles != cycles) {
                fprintf(stderr,
                        "bench_core: a command completed with status %d in %u cycles; "
                        "the twin says status 0 in %" PRIu64 "\n",
                        (int)out.done_status, out.done_cycles, cycles);
                return -1;
            }
            done++;
        }
        core_rtl_step(p, 1);
    }
    return 0;
}

/* Stop issuing, let the command in flight finish, and drain its completion. */
static void drain(struct core_rtl *p)
{
    struct core_in in = {.done_ready = true};
    struct core_out out;

    core_rtl_set(p, &in);
    do {
        core_rtl_step(p, 1);
        core_rtl_get(p, &out);
    } while (out.busy || out.done_valid);
}

/* Read bytes [first, end) of the pads back through the DMA port and compare them with the
   twin's. */
static int check_bytes(struct core_rtl *p, const struct core_twin *t, uint32_t first, uint32_t end)
{
    struct core_in in = {.dma_valid = true, .done_ready = true};
    struct core_out out;
    uint32_t next = first; /* next beat to request */
    uint32_t addr = first; /* next response expected */

    while (addr < end) {
        in.dma_valid = next < end;
        in.dma_addr = next;
        core_rtl_set(p, &in);
        core_rtl_get(p, &out);
        bool fire = in.dma_valid && out.dma_ready;
        if (out.dma_resp_valid) {
            uint64_t want;
            if (core_twin_dma_read(t, addr, &want) != 0 || out.dma_resp_err ||
                out.dma_resp_rdata != want) {
                fprintf(stderr,
                        "bench_core: byte 0x%" PRIx32 " of the pads reads 0x%016" PRIx64
                        ", the twin holds 0x%016" PRIx64 "\n",
                        addr, out.dma_resp_rdata, want);
                return -1;
            }
            addr += 8;
        }
        if (fire)
            next += 8;
        core_rtl_step(p, 1);
    }
    return 0;
}

int main(int argc, char **argv)
{
    bool once = argc == 2 && strcmp(argv[1], "--once") == 0;
    if (argc > 1 && !once) {
        fprintf(stderr, "usage: %s [--once]\n", argv[0]);
        return 2;
    }

    struct core_rtl *p = core_rtl_create(1);
    struct core_params cfg;
    struct core_twin_map map;

    core_rtl_params(p, &cfg);
    core_twin_map(&cfg, &map);
    struct core_twin *t;
    struct err e;
    if (core_twin_create(&cfg, &t, &e)) {
        fprintf(stderr, "bench_core: %s\n", e.msg);
        return 1;
    }
    unsigned w = map.w;
    struct core_cmd cmd = {.m = DIM, .n = DIM, .k = DIM, .lda = DIM, .ldb = DIM, .ldc = DIM};
    if (core_twin_check(&cfg, &cmd) != CORE_OK || DIM % w) {
        fprintf(stderr, "bench_core: a %dx%dx%d GEMM does not fit the %ux%u core's pads\n", DIM,
                DIM, DIM, cfg.rows, cfg.cols);
        return 1;
    }
    uint64_t cmd_cycles = core_twin_cycles(&cfg, &cmd);
    uint64_t macs = (uint64_t)DIM * DIM * DIM;

    struct core_in in = {.rst = true};
    core_rtl_set(p, &in);
    core_rtl_step(p, 2);
    in.rst = false;
    core_rtl_set(p, &in);
    load_operands(p, t, &map);

    /* Verilated: about one second of commands per run. */
    unsigned per_run = (unsigned)(cfg.rows * cfg.cols <= 64 ? 40 : 12);
    int runs = once ? 1 : RUNS;
    double cyc_s[RUNS], mac_s[RUNS], cyc_cpu[RUNS];
    for (int r = 0; r < runs; r++) {
        uint64_t c0 = core_rtl_cycle(p);
        double t0 = bench_wall_s(), u0 = bench_cpu_s();
        if (run_stream(p, &cmd, per_run, cmd_cycles) != 0)
            return 1;
        double dt = bench_wall_s() - t0;
        cyc_cpu[r] = (double)(core_rtl_cycle(p) - c0) / (bench_cpu_s() - u0);
        cyc_s[r] = (double)(core_rtl_cycle(p) - c0) / dt;
        mac_s[r] = (double)macs * per_run / dt;
    }

    /* Twin: the same command, repeated for about half a second per run (once, untimed, with
       --once). */
    double twin_s[RUNS];
    for (int r = 0; r < runs; r++) {
        unsigned n = 0;
        double t0 = bench_wall_s(), dt;
        do {
            struct core_twin_result res;
            if (core_twin_exec(t, &cmd, &res, NULL) != 0 || res.status != CORE_OK)
                abort();
            n++;
            dt = bench_wall_s() - t0;
        } while (dt < 0.5 && !once);
        twin_s[r] = (double)macs * n / dt;
    }

    /* Both have run the command (which overwrites C): their results must be equal. */
    drain(p);
    if (check_bytes(p, t, map.c_base, map.c_base + (uint32_t)(DIM * DIM * 4)) != 0)
        return 1;
    if (once) {
        core_twin_destroy(t);
        core_rtl_destroy(p);
        return 0;
    }

    double vc = bench_median(cyc_s, RUNS), vm = bench_median(mac_s, RUNS);
    double tm = bench_median(twin_s, RUNS), vcpu = bench_median(cyc_cpu, RUNS);
    char key[64];
    snprintf(key, sizeof(key), "core%ux%u.verilated_cycles_per_s", cfg.rows, cfg.cols);
    printf("%-36s %8.3fe6   (%ux%u, %dx%dx%d GEMMs back to back, %" PRIu64
           " cycles each, tracing off, median of %d; per CPU-second %.3fe6)\n",
           key, vc / 1e6, cfg.rows, cfg.cols, DIM, DIM, DIM, cmd_cycles, RUNS, vcpu / 1e6);
    snprintf(key, sizeof(key), "core%ux%u.verilated_gemm_mac_per_s", cfg.rows, cfg.cols);
    printf("%-36s %8.3fe6   (%.0f%% of the array's peak %u MAC/cycle)\n", key, vm / 1e6,
           100.0 * vm / (vc * cfg.rows * cfg.cols), cfg.rows * cfg.cols);
    snprintf(key, sizeof(key), "core%ux%u.twin_gemm_mac_per_s", cfg.rows, cfg.cols);
    printf("%-36s %8.3fe6   (core_twin_exec, same GEMM, median of %d)\n", key, tm / 1e6, RUNS);
    snprintf(key, sizeof(key), "core%ux%u.twin_speedup", cfg.rows, cfg.cols);
    printf("%-36s %8.1f     (twin GEMM throughput / verilated GEMM throughput)\n", key, tm / vm);
    bool is8 = cfg.rows == 8 && cfg.cols == 8, is16 = cfg.rows == 16 && cfg.cols == 16;
    char fig[128];
    snprintf(fig, sizeof(fig),
             "verilated %ux%u compute core, %dx%dx%d GEMMs back to back, results checked", cfg.rows,
             cfg.cols, DIM, DIM, DIM);
    bench_figure(fig,
                 is8    ? ">= 1 M cycles/s"
                 : is16 ? ">= 0.2 M cycles/s"
                        : "",
                 "%.2f M cycles/s (%.2f M per CPU second)", vc / 1e6, vcpu / 1e6);
    snprintf(fig, sizeof(fig),
             "the %ux%u core's C twin on the same GEMMs, against the verilated core", cfg.rows,
             cfg.cols);
    bench_figure(fig, is8 ? ">= 50x" : "", "%.0fx (%.1fe9 MAC/s)", tm / vm, tm / 1e9);

    core_twin_destroy(t);
    core_rtl_destroy(p);
    return 0;
}
