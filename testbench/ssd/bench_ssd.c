/*
 * bench_ssd: wall-time cost of the SSD model at garbage collection's steady state, timing only.
 *
 * The paper's baseline SSD (16 channels x 2 chips x 1 die, 8 planes, SLC timing of Table 5,
 * firmware 1.45 us per page, 7% over-provisioning) with 256 blocks of 16 pages per plane (4 GiB,
 * so that preconditioning takes seconds, not hours; 256 GC units of 128 pages per die) is
 * preconditioned (filled, then random 4 KiB overwrites until the write amplification of two
 * windows in a row agrees within 1%), then takes N uniformly random 4 KiB writes at queue depth 32
 * (default 10^7). Prints the simulated result (write amplification against the greedy model, IOPS,
 * bandwidth against the firmware bound) and the wall time of the N writes, median of 3 runs. Target
 * (issue 16, item 4): 10^7 page writes with GC in at most 20 s of wall time. Usage: bench_ssd [N]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "csim/rng.h"
#include "models/ssd/ssd.h"
#include "models/ssd/ssd_wa.h"
#include "testbench/bench_util.h"

#define RUNS 3
#define QD   32

struct result {
    double wall_s, pre_wall_s;
    uint64_t sim_ps;
    struct ssd_stats st;
    struct ssd_precond_result pre;
};

static void bench_cfg(struct ssd_cfg *c)
{
    ssd_cfg_default(c);
    c->nand.geom.blocks_per_plane = 256;
    c->nand.geom.pages_per_block = 16;
    c->nand.sw.store_payload = false;
}

/* n random single-page writes, QD in flight, from t0. */
static int random_writes(struct ssd *s, uint64_t n, uint64_t t0, uint64_t *end, struct err *e)
{
    uint64_t inflight[QD], rng = 12345, user = ssd_user_pages(s);

    *end = t0;
    for (int i = 0; i < QD; i++)
        inflight[i] = t0;
    for (uint64_t i = 0; i < n; i++) {
        int k = 0, rc;

        for (int j = 1; j < QD; j++)
            if (inflight[j] < inflight[k])
                k = j;
        rc = ssd_write(s, inflight[k], rng_below(&rng, user), 1, NULL, &inflight[k], e);
        if (rc)
            return rc;
        *end = inflight[k] > *end ? inflight[k] : *end;
    }
    return 0;
}

static int run_once(uint64_t n, struct result *r)
{
    struct ssd_cfg c;
    struct ssd *s;
    struct ssd_precond p = {.seed = 1};
    struct ssd_stats a, b;
    struct err e = {{0}};
    uint64_t end;
    double t0;
    int rc;

    bench_cfg(&c);
    rc = ssd_create(&c, &s, &e);
    if (rc)
        goto out;
    t0 = bench_wall_s();
    rc = ssd_precondition(s, 0, &p, &r->pre, &e);
    r->pre_wall_s = bench_wall_s() - t0;
    if (rc)
        goto out_ssd;
    ssd_stats(s, &a);
    t0 = bench_wall_s();
    rc = random_writes(s, n, r->pre.t_end, &end, &e);
    r->wall_s = bench_wall_s() - t0;
    r->sim_ps = end - r->pre.t_end;
    ssd_stats(s, &b);
    ssd_stats_sub(&r->st, &b, &a);
out_ssd:
    ssd_destroy(s);
out:
    if (rc)
        fprintf(stderr, "bench_ssd: %s\n", e.msg);
    return rc;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;
    struct result r[RUNS];
    struct ssd_cfg c;
    struct ssd_geom g;
    double wall[RUNS], secs, wa, rho, bound;

    bench_cfg(&c);
    ssd_cfg_geom(&c, &g);
    printf("bench_ssd: %u dies x %u planes, %u units of %u pages per die, %.2f GiB raw, %.2f GiB "
           "user (op %.0f%%), timing only\n",
           g.dies, g.planes, g.units_per_die, g.unit_pages,
           (double)g.phys_pages * 4096 / (1ull << 30), (double)g.user_pages * 4096 / (1ull << 30),
           ssd_cfg_op(&c) * 100);
    for (int i = 0; i < RUNS; i++) {
        if (run_once(n, &r[i]))
            return 1;
        wall[i] = r[i].wall_s;
    }
    secs = (double)r[0].sim_ps / FLASH_PS_PER_S;
    wa = ssd_stats_wa(&r[0].st);
    rho = ssd_wa_util(&g, ssd_stats_mean_free(&r[0].st));
    bound = 4096.0 / ((double)c.t_fw_page_ps + (wa - 1.0) * (double)c.t_fw_gc_ps) * FLASH_PS_PER_S;
    printf("precondition: %" PRIu64 " pages filled, %" PRIu64 " random in %u windows (WA %.3f, "
           "%.3f), %.2f s wall\n",
           r[0].pre.fill_pages, r[0].pre.rand_pages, r[0].pre.windows, r[0].pre.wa_prev,
           r[0].pre.wa_last, r[0].pre_wall_s);
    printf("random 4 KiB writes, QD%d: %" PRIu64 " pages, WA %.3f (greedy model %.3f at "
           "utilisation %.4f), %" PRIu64 " victims, %" PRIu64 " forced\n",
           QD, n, wa, ssd_wa_greedy(g.unit_pages, rho), rho, r[0].st.gc_victims, r[0].st.gc_forced);
    printf("  simulated %.3f s: %.0f IOPS, %.1f MB/s (firmware bound at this WA %.1f MB/s)\n", secs,
           (double)n / secs, (double)n * 4096 / secs / 1e6, bound / 1e6);
    qsort(wall, RUNS, sizeof(wall[0]), bench_cmp_double);
    printf("  wall %.2f s (median of %d: %.2f %.2f %.2f), %.2f M host page writes per wall s\n",
           wall[RUNS / 2], RUNS, wall[0], wall[1], wall[2], (double)n / wall[RUNS / 2] / 1e6);
    bench_figure("SSD, timing only: 10^7 random 4 KiB writes at GC steady state", "<= 20 s",
                 "%.2f s wall (WA %.2f, %.0f simulated IOPS)", wall[RUNS / 2], wa,
                 (double)n / secs);
    return 0;
}
