/*
 * bench_flash: wall-time cost of the flash models in timing-only mode.
 *
 * Writes 64 GiB sequentially through the Behemoth AN's V stream on the default 64-channel FMS
 * (paper Table 5 geometry), then reads it back, and prints for each: simulated GB/s, the
 * configuration's stated bound, wall seconds (median of 3 runs) and simulated multi-plane
 * operations per wall second. Target (issue, item 9): the write in at most 10 s of wall time.
 * Those requests are of 1 MiB, below a stripe (4 MiB), so the flash models simulate every page.
 *
 * Then the long transfers of a training iteration: records of 1 GiB, two in flight, written
 * then read back through the controller, with the fast path of long transfers (flash_fms.h) and
 * without it: wall seconds of each (median of 3), after checking that both end at the same
 * simulated time.
 * Usage: bench_flash [GiB [record GiB]]   (defaults 64 and 256)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "testbench/bench_util.h"
#include "models/flash/flash_sys.h"

#define RUNS        3
#define CHUNK_PAGES 256 /* 1 MiB per call, all queued at time 0 */

struct result {
    double wall_s;
    uint64_t sim_ps;
};

static int run_once(uint64_t pages, struct result *wr, struct result *rd)
{
    static const char *const v[1] = {"V"};
    struct flash_cfg cfg;
    struct ftl_layout lay;
    struct flash_sys y;
    struct err e = {{0}};
    uint64_t lpn, t, end = 0;
    double t0;
    int rc;

    flash_cfg_default(&cfg);
    cfg.sw.store_payload = false; /* timing only */
    ftl_layout_an(&lay);
    rc = flash_sys_init_layout(&y, &cfg, &lay, v, 1, &e);
    if (rc) {
        fprintf(stderr, "bench_flash: %s\n", e.msg);
        return rc;
    }
    t0 = bench_wall_s();
    for (uint64_t done_pages = 0; done_pages < pages && !rc; done_pages += CHUNK_PAGES) {
        rc = ftl_stream_append(y.s[0], 0, CHUNK_PAGES, NULL, &lpn, &t, &e);
        end = end > t ? end : t;
    }
    wr->wall_s = bench_wall_s() - t0;
    wr->sim_ps = end;

    t0 = bench_wall_s();
    for (uint64_t p = 0; p < pages && !rc; p += CHUNK_PAGES) {
        rc = ftl_stream_read(y.s[0], end, p, CHUNK_PAGES, NULL, &t, &e);
        rd->sim_ps = t > rd->sim_ps ? t : rd->sim_ps;
    }
    rd->wall_s = bench_wall_s() - t0;
    rd->sim_ps -= end;
    if (rc)
        fprintf(stderr, "bench_flash: %s\n", e.msg);
    flash_sys_fini(&y);
    return rc;
}

#define REC_PAGES (1ull << 18) /* 1 GiB */

/* One request at a time of two in flight: asked for when the earlier of the two completes. */
static int record(struct ftl_stream *s, struct flash_ctrl *c, bool rd, uint64_t i, uint64_t *t,
                  uint64_t *end)
{
    struct flash_ctrl_req rq = {.lpn = i * REC_PAGES, .bytes = REC_PAGES * 4096};
    uint64_t *slot = t[0] <= t[1] ? &t[0] : &t[1], done;
    struct err e;
    int rc = rd ? flash_ctrl_read(c, s, *slot, &rq, NULL, &done, &e)
                : ftl_stream_write(s, *slot, i * REC_PAGES, REC_PAGES, NULL, &done, &e);

    if (rc) {
        fprintf(stderr, "bench_flash: record %llu: %s\n", (unsigned long long)i, e.msg);
        return rc;
    }
    *slot = done;
    *end = done > *end ? done : *end;
    return 0;
}

/* n_rec records of 1 GiB written, then read, two in flight, on the AN's V stream. */
static int run_records(uint64_t n_rec, bool fast, struct result *wr, struct result *rd)
{
    static const char *const v[1] = {"V"};
    struct flash_cfg cfg;
    struct ftl_layout lay;
    struct flash_sys y;
    struct err e = {{0}};
    uint64_t t[2] = {0, 0}, end = 0;
    double t0;
    int rc;

    flash_cfg_default(&cfg);
    cfg.sw.store_payload = false;
    ftl_layout_an(&lay);
    rc = flash_sys_init_layout(&y, &cfg, &lay, v, 1, &e);
    if (rc) {
        fprintf(stderr, "bench_flash: %s\n", e.msg);
        return rc;
    }
    flash_fms_set_fast(y.fms, fast);
    t0 = bench_wall_s();
    for (uint64_t i = 0; i < n_rec && !rc; i++)
        rc = record(y.s[0], &y.ctrl, false, i, t, &end);
    wr->wall_s = bench_wall_s() - t0;
    wr->sim_ps = end;
    t[0] = t[1] = end;
    t0 = bench_wall_s();
    for (uint64_t i = 0; i < n_rec && !rc; i++)
        rc = record(y.s[0], &y.ctrl, true, i, t, &end);
    rd->wall_s = bench_wall_s() - t0;
    rd->sim_ps = end - wr->sim_ps;
    flash_sys_fini(&y);
    return rc;
}

/* The records with and without the fast path: same simulated times, and the wall times. */
static int bench_records(uint64_t gib)
{
    struct result r[2][2][RUNS]; /* [fast][read][run] */
    double wall[2][2][RUNS];
    const char *what[2] = {"write", "read"};

    for (int f = 0; f < 2; f++)
        for (int i = 0; i < RUNS; i++)
            if (run_records(gib, f, &r[f][0][i], &r[f][1][i]))
                return 1;
    for (int k = 0; k < 2; k++) {
        double gbps = (double)(gib << 30) / ((double)r[1][k][0].sim_ps / FLASH_PS_PER_S) / 1e9;
        char fig[128];

        for (int f = 0; f < 2; f++)
            for (int i = 0; i < RUNS; i++)
                wall[f][k][i] = r[f][k][i].wall_s;
        if (r[0][k][0].sim_ps != r[1][k][0].sim_ps) {
            fprintf(stderr, "bench_flash: records %s: %llu ps with the fast path, %llu without\n",
                    what[k], (unsigned long long)r[1][k][0].sim_ps,
                    (unsigned long long)r[0][k][0].sim_ps);
            return 1;
        }
        printf("%-5s %6llu GiB in 1 GiB records, two in flight: simulated %6.2f GB/s; wall %.1f ms "
               "with the fast path, %.3f s page by page (medians of %d)\n",
               what[k], (unsigned long long)gib, gbps, 1e3 * bench_median(wall[1][k], RUNS),
               bench_median(wall[0][k], RUNS), RUNS);
        snprintf(fig, sizeof(fig),
                 "flash, timing only: %llu GiB %s in 1 GiB records, fast path of long transfers",
                 (unsigned long long)gib, what[k]);
        bench_figure(fig, "", "%.1f ms wall (page by page: %.2f s; same simulated %.2f GB/s)",
                     1e3 * bench_median(wall[1][k], RUNS), bench_median(wall[0][k], RUNS), gbps);
    }
    return 0;
}

static void report(const char *what, uint64_t bytes, uint64_t ops, const struct result *r,
                   double bound)
{
    double wall[RUNS], gbps = bytes / ((double)r[0].sim_ps / FLASH_PS_PER_S) / 1e9;

    for (int i = 0; i < RUNS; i++)
        wall[i] = r[i].wall_s;
    qsort(wall, RUNS, sizeof(wall[0]), bench_cmp_double);
    printf("%-5s %6.1f GiB: simulated %6.2f GB/s (bound %6.2f GB/s, %5.1f%%), simulated %.3f s; "
           "wall %.3f s (median of %d: %.3f %.3f %.3f); %.2f M ops/wall-s\n",
           what, bytes / (double)(1ull << 30), gbps, bound / 1e9, 100.0 * gbps * 1e9 / bound,
           (double)r[0].sim_ps / FLASH_PS_PER_S, wall[RUNS / 2], RUNS, wall[0], wall[1], wall[2],
           ops / wall[RUNS / 2] / 1e6);
    char fig[128];
    snprintf(fig, sizeof(fig), "flash, timing only: %.0f GiB sequential %s through the default FMS",
             bytes / (double)(1ull << 30), what);
    bench_figure(fig, "<= 10 s", "%.2f s wall (%.2f GB/s simulated, %.1f%% of the bound)",
                 wall[RUNS / 2], gbps, 100.0 * gbps * 1e9 / bound);
}

int main(int argc, char **argv)
{
    struct result wr[RUNS] = {0}, rd[RUNS] = {0};
    struct flash_cfg cfg;
    struct flash_bounds wb, rb;
    uint64_t gib = argc > 1 ? strtoull(argv[1], NULL, 0) : 64;
    uint64_t bytes, pages;

    flash_cfg_default(&cfg);
    bytes = gib << 30;
    pages = bytes / cfg.geom.page_bytes;
    pages -= pages % CHUNK_PAGES;
    bytes = pages * cfg.geom.page_bytes;
    flash_cfg_write_bounds(&cfg, &wb);
    flash_cfg_read_bounds(&cfg, &rb);
    printf("bench_flash: default FMS (%u ch x %u chips x %u die, %u planes, %u B pages), "
           "timing only, AN V stream\n",
           cfg.geom.channels, cfg.geom.chips_per_chan, cfg.geom.dies_per_chip,
           cfg.geom.planes_per_die, cfg.geom.page_bytes);
    printf("write bounds: array %.2f, channel %.2f (raw %.2f), controller %.2f GB/s\n",
           wb.array_bps / 1e9, wb.chan_bps / 1e9, wb.chan_raw_bps / 1e9, wb.ctrl_bps / 1e9);
    printf("read bounds:  array %.2f, channel %.2f, controller %.2f GB/s\n", rb.array_bps / 1e9,
           rb.chan_bps / 1e9, rb.ctrl_bps / 1e9);
    for (int i = 0; i < RUNS; i++)
        if (run_once(pages, &wr[i], &rd[i]))
            return 1;
    /* One multi-plane operation per die and program unit (planes_per_die pages). */
    report("write", bytes, pages / cfg.geom.planes_per_die, wr, wb.min_bps);
    report("read", bytes, pages / cfg.geom.planes_per_die, rd, rb.min_bps);
    return bench_records(argc > 2 ? strtoull(argv[2], NULL, 0) : 256);
}
