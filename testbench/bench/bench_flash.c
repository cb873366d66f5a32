/*
 * bench_flash: wall-time cost of the flash models in timing-only mode.
 *
 * Writes 64 GiB sequentially through the Behemoth AN's V stream on the default 64-channel FMS
 * (paper Table 5 geometry), then reads it back, and prints for each: simulated GB/s, the
 * configuration's stated bound, wall seconds (median of 3 runs) and simulated multi-plane
 * operations per wall second. Target (issue, item 9): the write in at most 10 s of wall time.
 * Usage: bench_flash [GiB]   (default 64)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "testbench/bench/bench_util.h"
#include "models/flash/flash_fms.h"
#include "models/flash/ftl_bbm.h"
#include "models/flash/ftl_layout.h"
#include "models/flash/ftl_stream.h"

#define RUNS        3
#define CHUNK_PAGES 256 /* 1 MiB per call, all queued at time 0 */

struct result {
    double wall_s;
    uint64_t sim_ps;
};

static int run_once(uint64_t pages, struct result *wr, struct result *rd)
{
    struct flash_cfg cfg;
    struct flash_fms *fms = NULL;
    struct ftl_layout lay;
    struct ftl_bbm bbm;
    struct ftl_stream_cfg sc;
    struct ftl_stream *s = NULL;
    struct err e;
    const struct ftl_region *spare;
    uint64_t lpn, t, end = 0;
    double t0;
    int rc;

    flash_cfg_default(&cfg);
    cfg.sw.store_payload = false; /* timing only */
    ftl_layout_an(&lay);
    spare = ftl_layout_spare(&lay);
    rc = flash_fms_create(&cfg, &fms, &e);
    if (rc)
        goto out_err;
    rc = ftl_bbm_init(&bbm, &cfg.geom, spare->first, spare->count, &e);
    if (rc)
        goto out_fms;
    ftl_stream_cfg_from_region(&sc, ftl_layout_find(&lay, "V"));
    rc = ftl_stream_create(&sc, fms, &bbm, &s, &e);
    if (rc)
        goto out_bbm;

    t0 = bench_wall_s();
    for (uint64_t done_pages = 0; done_pages < pages; done_pages += CHUNK_PAGES) {
        rc = ftl_stream_append(s, 0, CHUNK_PAGES, NULL, &lpn, &t, &e);
        if (rc) {
            fprintf(stderr, "bench_flash: %s\n", e.msg);
            goto out_stream;
        }
        end = end > t ? end : t;
    }
    wr->wall_s = bench_wall_s() - t0;
    wr->sim_ps = end;

    t0 = bench_wall_s();
    for (uint64_t p = 0; p < pages; p += CHUNK_PAGES) {
        rc = ftl_stream_read(s, end, p, CHUNK_PAGES, NULL, &t, &e);
        if (rc) {
            fprintf(stderr, "bench_flash: %s\n", e.msg);
            goto out_stream;
        }
        rd->sim_ps = t > rd->sim_ps ? t : rd->sim_ps;
    }
    rd->wall_s = bench_wall_s() - t0;
    rd->sim_ps -= end;

out_stream:
    ftl_stream_destroy(s);
out_bbm:
    ftl_bbm_fini(&bbm);
out_fms:
    flash_fms_destroy(fms);
    if (!rc)
        return 0;
out_err:
    if (rc && e.msg[0])
        fprintf(stderr, "bench_flash: %s\n", e.msg);
    return rc;
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
    return 0;
}
