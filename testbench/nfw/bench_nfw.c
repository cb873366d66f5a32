/*
 * bench_nfw: the NAND write pipelines, verilated RTL against the C twin.
 *
 * The same workload through each: 64 commands of 64 KiB from the tensor buffer (dram model,
 * served by dram_port, 50 ns latency) into a fast flash model (so that the pipeline is the
 * bound), no stalls. Prints for each: pipeline cycles (equal for both: the twin is cycle
 * exact), simulated GB/s at the 0.8 GHz clock, and wall-clock cycles per second (median of 3).
 * Usage: bench_nfw [commands]   (default 64)
 *
 * Built twice: for nfw_top, and with NFW_LANES defined (bench_nfw_lanes.c) for the write lanes
 * (rtl/nfw/nfw_lanes.v), a memory port and a channel BFM per lane.
 */
#include "testbench/bench_util.h"
#include "csim/rng.h"
#include "csim/shim/nfw.h"
#include "csim/shim/nfw_lanes.h"
#include "models/dram/dram.h"
#include "models/dram/dram_port.h"
#include "testbench/nfw/nfw_bfm.h"
#include "models/nfw/nfw_lanes_twin.h"
#include "models/nfw/nfw_twin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS      3
#define CMD_BYTES (64u << 10)
#define PERIOD_PS 1250

#ifdef NFW_LANES
#define DUT_NAME "NAND write lanes"
struct dut {
    struct nfw_lanes_rtl *rtl;   /* one of the two */
    struct nfw_lanes_twin *twin; /* */
    unsigned lanes;
};

static int dut_open(struct dut *d, bool use_rtl, struct nfw_params *p, struct err *e)
{
    struct nfw_lanes_params lp;
    int rc = 0;

    d->rtl = nfw_lanes_rtl_create(1);
    nfw_lanes_rtl_params(d->rtl, &lp);
    *p = lp.p;
    d->lanes = lp.lanes;
    if (!use_rtl) {
        nfw_lanes_rtl_destroy(d->rtl);
        d->rtl = NULL;
        rc = nfw_lanes_twin_create(&lp, &d->twin, e);
    }
    return rc;
}

static void dut_close(struct dut *d)
{
    nfw_lanes_twin_destroy(d->twin);
    if (d->rtl)
        nfw_lanes_rtl_destroy(d->rtl);
}

static void dut_set(struct dut *d, const struct nfw_lanes_in *in)
{
    if (d->rtl)
        nfw_lanes_rtl_set(d->rtl, in);
    else
        nfw_lanes_twin_set(d->twin, in);
}

static void dut_get(struct dut *d, struct nfw_lanes_out *o)
{
    if (d->rtl)
        nfw_lanes_rtl_get(d->rtl, o);
    else
        nfw_lanes_twin_get(d->twin, o);
}

static void dut_step(struct dut *d)
{
    if (d->rtl)
        nfw_lanes_rtl_step(d->rtl, 1);
    else
        nfw_lanes_twin_step(d->twin, 1);
}
#else
#define DUT_NAME "NAND write pipeline"
struct dut {
    struct nfw_rtl *rtl;   /* one of the two */
    struct nfw_twin *twin; /* */
    unsigned lanes;
};

static int dut_open(struct dut *d, bool use_rtl, struct nfw_params *p, struct err *e)
{
    int rc = 0;

    d->rtl = nfw_rtl_create(1);
    nfw_rtl_params(d->rtl, p);
    d->lanes = 1;
    if (!use_rtl) {
        nfw_rtl_destroy(d->rtl);
        d->rtl = NULL;
        rc = nfw_twin_create(p, &d->twin, e);
    }
    return rc;
}

static void dut_close(struct dut *d)
{
    nfw_twin_destroy(d->twin);
    if (d->rtl)
        nfw_rtl_destroy(d->rtl);
}

static void dut_set(struct dut *d, const struct nfw_lanes_in *in)
{
    if (d->rtl)
        nfw_rtl_set(d->rtl, &in->l[0]);
    else
        nfw_twin_set(d->twin, &in->l[0]);
}

static void dut_get(struct dut *d, struct nfw_lanes_out *o)
{
    memset(o, 0, sizeof(*o));
    if (d->rtl)
        nfw_rtl_get(d->rtl, &o->l[0]);
    else
        nfw_twin_get(d->twin, &o->l[0]);
}

static void dut_step(struct dut *d)
{
    if (d->rtl)
        nfw_rtl_step(d->rtl, 1);
    else
        nfw_twin_step(d->twin, 1);
}
#endif

/* One run; returns the cycles, or 0 on an error (printed). */
static uint64_t run(bool use_rtl, unsigned n_cmd, double *wall)
{
    struct nfw_params p;
    struct dut d = {0};
    struct flash_cfg fc;
    struct flash_fms *fms = NULL;
    struct ftl_bbm bbm;
    struct ftl_stream_cfg sc;
    struct ftl_stream *s = NULL;
    struct dram_cfg dc;
    struct dram *dram = NULL;
    struct dram_port_cfg pc;
    struct dram_port *port[NFW_MAX_LANES] = {0};
    struct nfw_bfm_cfg bc;
    struct nfw_bfm *lbfm[NFW_MAX_LANES] = {0}, *bfm = NULL;
    struct err e = {""};
    uint64_t cycles = 0, rng = 1, sbp, nlb, done = 0;
    unsigned sent = 0, quiet = 0;
    double t0;

    if (dut_open(&d, use_rtl, &p, &e))
        goto out;
    flash_cfg_default(&fc);
    fc.geom.channels = p.channels;
    fc.geom.chips_per_chan = p.dies_per_chan;
    fc.geom.planes_per_die = p.planes;
    /* The stream's blocks and no more: the paper's geometry has 128 dies x 8 planes. */
    fc.geom.blocks_per_plane = p.max_pbs < 64 ? p.max_pbs : 64;
    fc.geom.pages_per_block = p.pages_per_block;
    fc.geom.page_bytes = p.page_bytes;
    fc.tim.t_prog_ps = 1000; /* a fast flash: the pipeline is the bound */
    fc.tim.t_bers_ps = 1000;
    fc.tim.t_cmd_ps = 0;
    fc.tim.bus_mts = 100000;
    fc.tim.bus_width_bits = 64;
    fc.tim.ctrl_cmd_bytes = p.page_bytes;
    fc.sw.store_payload = false;
    if (flash_fms_create(&fc, &fms, &e) ||
        ftl_bbm_init(&bbm, &fc.geom, fc.geom.blocks_per_plane, 0, &e))
        goto out;
    memset(&sc, 0, sizeof(sc));
    strcpy(sc.name, "V");
    sc.first_block = 0;
    sc.n_blocks = p.max_pbs < 64 ? p.max_pbs : 64;
    sc.pe_budget = 1000;
    sc.erase_on_release = true;
    if (ftl_stream_create(&sc, fms, &bbm, &s, &e))
        goto out_bbm;
    sbp = ftl_stream_sb_pages(s);
    nlb = ftl_stream_lpages(s) / sbp;
    dram_cfg_default(&dc);
    dc.size_bytes = 64ull << 20;
    dc.store_payload = false;
    if (dram_create(&dc, &dram, &e))
        goto out_bbm;
    dram_port_cfg_default(&pc);
    pc.period_ps = PERIOD_PS;
    pc.name = "nfw";
    nfw_bfm_cfg_default(&bc);
    bc.period_ps = PERIOD_PS;
    for (unsigned l = 0; l < d.lanes; l++)
        if (dram_port_create(&pc, dram, &port[l], &e) ||
            nfw_bfm_create(&bc, &p, fms, &bbm, &lbfm[l], &e))
            goto out_bbm;
    bfm = lbfm[0];
    if (nfw_bfm_attach(bfm, 0, s, &e))
        goto out_bbm;
    {
        struct nfw_lanes_in in;

        memset(&in, 0, sizeof(in));
        in.l[0].rst = true;
        dut_set(&d, &in);
        for (int i = 0; i < 3; i++)
            dut_step(&d);
    }
    /* The configuration goes in first (streams are configured while the pipeline is idle). */
    while (!nfw_bfm_idle(bfm)) {
        struct nfw_lanes_out lo;
        struct nfw_lanes_in li;

        memset(&li, 0, sizeof(li));
        dut_get(&d, &lo);
        nfw_bfm_drive(bfm, &lo.l[0], &li.l[0]);
        dut_set(&d, &li);
        if (nfw_bfm_clock(bfm, &lo.l[0], &li.l[0], &e))
            goto out_bbm;
        dut_step(&d);
    }
    t0 = bench_wall_s();
    while (quiet < 4) {
        struct nfw_lanes_out lo;
        struct nfw_lanes_in li;
        const struct nfw_out o = (dut_get(&d, &lo), lo.l[0]);
        struct nfw_in *in = &li.l[0];
        bool env_idle = true;

        memset(&li, 0, sizeof(li));
        for (unsigned l = 0; l < d.lanes; l++) {
            struct mem_port_rsp mr;

            dram_port_drive(port[l], &mr);
            nfw_in_mem(&li.l[l], &mr);
            nfw_bfm_drive(lbfm[l], &lo.l[l], &li.l[l]);
        }
        if (sent < n_cmd) {
            in->cmd_valid = true;
            in->cmd_addr = rng_below(&rng, 60ull << 20);
            in->cmd_len = CMD_BYTES;
        }
        dut_set(&d, &li);
        for (unsigned l = 0; l < d.lanes; l++) {
            struct mem_port_req rq;

            nfw_out_mem(&lo.l[l], &rq);
            dram_port_clock(port[l], &rq);
            if (nfw_bfm_clock(lbfm[l], &lo.l[l], &li.l[l], &e)) {
                cycles = 0;
                goto out_bbm;
            }
            env_idle &= nfw_bfm_idle(lbfm[l]);
        }
        sent += in->cmd_valid && o.cmd_ready;
        /* The firmware releases each LB as soon as it is full: the stream keeps rotating. */
        if (o.done_valid && in->done_ready && ++done % sbp == 0 &&
            nfw_bfm_release(bfm, 0, (uint32_t)((done / sbp - 1) % nlb), 1, &e)) {
            cycles = 0;
            goto out_bbm;
        }
        if (!(in->cmd_valid && o.cmd_ready))
            rng -= 0x9e3779b97f4a7c15ull; /* the same address until it is taken */
        dut_step(&d);
        cycles++;
        quiet = sent == n_cmd && o.idle && env_idle ? quiet + 1 : 0;
    }
    *wall = bench_wall_s() - t0;
out_bbm:
    ftl_bbm_fini(&bbm);
out:
    if (!cycles) /* every way here without cycles is a failure, with its message */
        fprintf(stderr, "bench_nfw: %s\n", e.msg);
    for (unsigned l = 0; l < NFW_MAX_LANES; l++) {
        nfw_bfm_destroy(lbfm[l]);
        dram_port_destroy(port[l]);
    }
    dram_destroy(dram);
    ftl_stream_destroy(s);
    flash_fms_destroy(fms);
    dut_close(&d);
    return cycles;
}

int main(int argc, char **argv)
{
    unsigned n_cmd = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 64;
    uint64_t cyc[2] = {0, 0};
    double cps[2] = {0, 0};
    const char *name[2] = {"rtl (verilated)", "twin (C)"};

    printf("bench_nfw: " DUT_NAME ", %u commands of %u KiB, tensor buffer latency 50 ns, fast "
           "flash, no stalls, clock %.1f GHz\n",
           n_cmd, CMD_BYTES >> 10, 1000.0 / PERIOD_PS);
    for (int k = 0; k < 2; k++) {
        double wall[RUNS];

        for (int r = 0; r < RUNS; r++) {
            uint64_t c = run(k == 0, n_cmd, &wall[r]);

            if (!c || (cyc[k] && c != cyc[k]))
                return 1;
            cyc[k] = c;
        }
        qsort(wall, RUNS, sizeof(wall[0]), bench_cmp_double);
        printf("%-16s %9llu cycles, %.2f GB/s simulated; wall %.3f s (median of %d), %.2f M "
               "cycles/s\n",
               name[k], (unsigned long long)cyc[k],
               (double)n_cmd * CMD_BYTES / ((double)cyc[k] * PERIOD_PS * 1e-12) / 1e9,
               wall[RUNS / 2], RUNS, (double)cyc[k] / wall[RUNS / 2] / 1e6);
        cps[k] = (double)cyc[k] / wall[RUNS / 2];
    }
    if (cyc[0] != cyc[1]) {
        printf("cycle counts differ: rtl %llu, twin %llu\n", (unsigned long long)cyc[0],
               (unsigned long long)cyc[1]);
        return 1;
    }
    printf("rtl and twin: the same %llu cycles\n", (unsigned long long)cyc[0]);
    bench_figure("verilated " DUT_NAME " with its BFMs / its C twin", "",
                 "%.2f M / %.2f M cycles/s, %.2f GB/s simulated", cps[0] / 1e6, cps[1] / 1e6,
                 (double)n_cmd * CMD_BYTES / ((double)cyc[0] * PERIOD_PS * 1e-12) / 1e9);
    return 0;
}
