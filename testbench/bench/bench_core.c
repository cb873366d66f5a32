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
 * Every timed figure is the median of 5 runs.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csim/rng.h"
#include "csim/shim/core.h"
#include "models/core/core_twin.h"

#define RUNS 5
#define DIM  64

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: on a shared machine, what wall time would be on an idle one. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return v[n / 2];
}

/* A bf16 near 1.0, either sign: sums stay ordinary, as in training. */
static uint16_t operand(uint64_t *rng)
{
    uint64_t r = rng_next(rng);
    return (uint16_t)((r & 0x8000u) | (uint16_t)((120 + (r >> 16) % 16) << 7) | ((r >> 8) & 0x7F));
}

/* Write the whole A- and B-pads through the DMA port (and the twin the same way). */
static void load_operands(struct core *p, struct core_twin *t, const struct core_twin_map *m)
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
        core_set(p, &in);
        core_get(p, &out);
        if (out.dma_ready) {
            if (core_twin_dma_write(t, addr, v, 0xFF) != 0)
                abort();
            addr += 8;
        }
        core_step(p, 1);
    }
    in.dma_valid = false;
    core_set(p, &in);
    core_step(p, CORE_DMA_LATENCY + 1);
}

int main(void)
{
    struct core *p = core_create(1);
    struct core_twin_cfg cfg;
    struct core_twin_map map;

    core_params(p, &cfg);
    core_twin_map(&cfg, &map);
    struct core_twin *t = core_twin_create(&cfg);
    if (!t)
        return 1;
    unsigned w = map.w;
    struct core_cmd cmd = {.m = DIM, .n = DIM, .k = DIM, .lda = DIM, .ldb = DIM, .ldc = DIM};
    cmd.b_addr = 0;
    cmd.c_addr = 0;
    if (core_twin_check(&cfg, &cmd) != CORE_OK || DIM % w) {
        fprintf(stderr, "bench_core: a %dx%dx%d GEMM does not fit the %ux%u core's pads\n", DIM,
                DIM, DIM, cfg.rows, cfg.cols);
        return 1;
    }
    uint64_t cmd_cycles = core_twin_cycles(&cfg, &cmd);
    uint64_t macs = (uint64_t)DIM * DIM * DIM;

    struct core_in in = {.rst = true};
    core_set(p, &in);
    core_step(p, 2);
    in.rst = false;
    core_set(p, &in);
    load_operands(p, t, &map);

    /* Verilated: about one second of commands per run. */
    unsigned per_run = (unsigned)(cfg.rows * cfg.cols <= 64 ? 40 : 12);
    double cyc_s[RUNS], mac_s[RUNS], cyc_cpu[RUNS];
    uint32_t reported = 0;
    in.cmd_valid = true;
    in.cmd = cmd;
    in.done_ready = true;
    for (int r = 0; r < RUNS; r++) {
        unsigned done = 0;
        uint64_t c0 = core_cycle(p);
        core_set(p, &in);
        double t0 = wall_s(), u0 = cpu_s();
        while (done < per_run) {
            struct core_out out;
            core_get(p, &out);
            if (out.done_valid) {
                if (out.done_status != CORE_OK)
                    abort();
                reported = out.done_cycles;
                done++;
            }
            core_step(p, 1);
        }
        double dt = wall_s() - t0;
        cyc_cpu[r] = (double)(core_cycle(p) - c0) / (cpu_s() - u0);
        cyc_s[r] = (double)(core_cycle(p) - c0) / dt;
        mac_s[r] = (double)macs * per_run / dt;
    }
    if (reported != cmd_cycles) {
        fprintf(stderr, "bench_core: the RTL reports %u cycles per command, the twin %" PRIu64 "\n",
                reported, cmd_cycles);
        return 1;
    }

    /* Twin: the same command, repeated for about half a second per run. */
    double twin_s[RUNS];
    for (int r = 0; r < RUNS; r++) {
        unsigned n = 0;
        double t0 = wall_s(), dt;
        do {
            struct core_twin_result res;
            if (core_twin_exec(t, &cmd, &res) != 0 || res.status != CORE_OK)
                abort();
            n++;
            dt = wall_s() - t0;
        } while (dt < 0.5);
        twin_s[r] = (double)macs * n / dt;
    }

    double vc = median(cyc_s, RUNS), vm = median(mac_s, RUNS), tm = median(twin_s, RUNS);
    double vcpu = median(cyc_cpu, RUNS);
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

    core_twin_destroy(t);
    core_destroy(p);
    return 0;
}
