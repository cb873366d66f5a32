/*
 * flashstream flashbench --device ssd | raid0: the fio-like benchmark of the conventional SSD
 * baseline (models/ssd/): one SSD, or raid_ssds of them in RAID 0. Timing only.
 *
 * Requests of --bs bytes (whole pages), --iodepth at a time, --size bytes in all, at offsets in
 * [0, span): write and read go in order (wrapping at span), randwrite and randread at random
 * bs-aligned offsets. span is --span, else the whole device with --precondition, else --size.
 * Reads of a device not preconditioned read a span written first (not timed). --precondition
 * fills the whole device and overwrites random pages until GC is steady (ssd_precondition), and
 * the run starts where that ends, GC still at work. The report is the FMS's (bandwidth, IOPS,
 * latency percentiles) plus the FTL's figures (write amplification against the greedy model,
 * GC counts and time) and the bound with its terms: writes: firmware (4 KiB / 1.45 us = 2.82
 * GB/s per SSD, less the firmware time of GC moves), program rate and channel bus over the
 * write amplification; reads: controller (1.93 us per command), read rate, channel bus; and the
 * queue depth over the unloaded latency (Little's law).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/rng.h"
#include "models/ssd/ssd.h"
#include "models/ssd/ssd_raid0.h"
#include "models/ssd/ssd_wa.h"
#include "testbench/flashstream/cli.h"
#include "csim/minheap.h"
#include "testbench/flashstream/flashbench.h"

/* ------------------------------------------------------------------ the device */

/* One SSD or a RAID 0 of them, behind one set of calls. */
struct dev {
    struct ssd *one;
    struct ssd_raid0 *raid;
};

/* --exact: the SSDs' fast path of sequential writes off too. */
static int dev_create(const struct fb_opts *o, struct dev *d, struct err *e)
{
    int rc;

    memset(d, 0, sizeof(*d));
    if (o->device != DEV_RAID0) {
        rc = ssd_create(&o->ssd, &d->one, e);
        if (!rc)
            ssd_set_fast(d->one, !o->exact);
        return rc;
    }
    rc = ssd_raid0_create(&o->ssd, &d->raid, e);
    for (uint32_t m = 0; !rc && m < ssd_raid0_members(d->raid); m++)
        ssd_set_fast(ssd_raid0_member(d->raid, m), !o->exact);
    return rc;
}

static void dev_destroy(struct dev *d)
{
    ssd_destroy(d->one);
    ssd_raid0_destroy(d->raid);
}

static int dev_write(struct dev *d, uint64_t t, uint64_t lpn, uint32_t n, uint64_t *done,
                     struct err *e)
{
    return d->raid ? ssd_raid0_write(d->raid, t, lpn, n, NULL, done, e)
                   : ssd_write(d->one, t, lpn, n, NULL, done, e);
}

static int dev_read(struct dev *d, uint64_t t, uint64_t lpn, uint32_t n, uint64_t *done,
                    struct err *e)
{
    return d->raid ? ssd_raid0_read(d->raid, t, lpn, n, NULL, done, e)
                   : ssd_read(d->one, t, lpn, n, NULL, done, e);
}

static int dev_flush(struct dev *d, uint64_t t, uint64_t *done, struct err *e)
{
    return d->raid ? ssd_raid0_flush(d->raid, t, done, e) : ssd_flush(d->one, t, done, e);
}

static void dev_stats(const struct dev *d, struct ssd_stats *st)
{
    if (d->raid)
        ssd_raid0_stats(d->raid, st);
    else
        ssd_stats(d->one, st);
}

/* The fault counters of every member's NAND, added up; false without a fault model. */
static bool dev_faults(struct dev *d, struct flash_fault_stats *sum)
{
    uint32_t n = d->raid ? ssd_raid0_members(d->raid) : 1;
    bool on = false;

    memset(sum, 0, sizeof(*sum));
    for (uint32_t i = 0; i < n; i++) {
        struct flash_fault_stats s;
        const struct ssd *m = d->raid ? ssd_raid0_member(d->raid, i) : d->one;

        if (!flash_fms_fault_stats(ssd_get_fms(m), &s))
            continue;
        on = true;
        sum->pages_checked += s.pages_checked;
        sum->pages_retried += s.pages_retried;
        sum->retries += s.retries;
        sum->retry_ps += s.retry_ps;
        sum->uncorrectable += s.uncorrectable;
        sum->program_failures += s.program_failures;
        sum->refused_dead += s.refused_dead;
        sum->refused_power += s.refused_power;
    }
    return on;
}

static int dev_precondition(struct dev *d, const struct ssd_precond *p,
                            struct ssd_precond_result *r, struct err *e)
{
    return d->raid ? ssd_raid0_precondition(d->raid, 0, p, r, e)
                   : ssd_precondition(d->one, 0, p, r, e);
}

/* ------------------------------------------------------------------ one run */

struct ssd_run {
    struct fb_result r;
    struct ssd_stats st; /* of the run alone */
    struct ssd_precond_result pre;
    double pre_wall_s;
    uint64_t span; /* bytes */
};

static bool is_read(const struct fb_opts *o)
{
    return o->rw == RW_READ || o->rw == RW_RANDREAD;
}

/* Write [0, pages) in commands, each when the last is buffered, then flush: *t = all done. */
static int prefill(const struct fb_opts *o, struct dev *d, uint64_t pages, uint64_t *t,
                   struct err *e)
{
    uint64_t step = o->ssd.nand.tim.ctrl_cmd_bytes / o->ssd.nand.geom.page_bytes;
    struct ssd_stats st;

    for (uint64_t p = 0; p < pages; p += step) {
        int rc = dev_write(d, *t, p, (uint32_t)(pages - p < step ? pages - p : step), t, e);

        if (rc)
            return rc;
    }
    if (dev_flush(d, *t, t, e))
        return -1;
    dev_stats(d, &st);
    *t = st.last_end > *t ? st.last_end : *t;
    return 0;
}

/* The bytes the offsets cover: --span, else the whole device with --precondition, else --size
 * (at most the device), whole requests. 0 (message printed) when it holds none. */
static uint64_t span_of(const struct fb_opts *o)
{
    struct ssd_geom g;
    uint64_t pb = o->ssd.nand.geom.page_bytes, sp = o->ssd.raid_stripe_bytes / pb, user, span;

    ssd_cfg_geom(&o->ssd, &g);
    user =
        (o->device == DEV_RAID0 ? o->ssd.raid_ssds * (g.user_pages / sp * sp) : g.user_pages) * pb;
    span = o->span ? o->span : (o->precondition || o->size > user ? user : o->size);
    span -= span % o->bs;
    if (span > user || span < o->bs) {
        fprintf(stderr,
                "flashstream flashbench: --span %" PRIu64 ": accepted %" PRIu64 " to %" PRIu64
                " (one request to the user capacity of the device)\n",
                o->span, o->bs, user);
        return 0;
    }
    return span;
}

/* The device ready for the run from *t: preconditioned, or its span written for reads. */
static int prepare(const struct fb_opts *o, struct dev *d, bool precondition, struct ssd_run *x,
                   uint64_t *t, struct err *e)
{
    uint64_t pb = o->ssd.nand.geom.page_bytes;

    *t = 0;
    if (precondition) {
        /* Not the run's own sequence of offsets: the run would overwrite the pages in the
         * order the preconditioning wrote them, a correlation uniform traffic has not. */
        struct ssd_precond p = {.seed = ~o->seed, .iodepth = (uint32_t)o->iodepth};
        double w = cli_wall_s();
        int rc = dev_precondition(d, &p, &x->pre, e);

        x->pre_wall_s = cli_wall_s() - w;
        *t = x->pre.t_end;
        return rc;
    }
    return is_read(o) ? prefill(o, d, x->span / pb, t, e) : 0;
}

static int one_request(const struct fb_opts *o, struct dev *d, uint64_t i, uint64_t span,
                       uint64_t *rng, uint64_t t, uint64_t *done, struct err *e)
{
    uint64_t pb = o->ssd.nand.geom.page_bytes, slots = span / o->bs;
    bool rnd = o->rw == RW_RANDWRITE || o->rw == RW_RANDREAD;
    uint64_t lpn = (rnd ? rng_below(rng, slots) : i % slots) * o->bs / pb;

    if (is_read(o))
        return dev_read(d, t, lpn, (uint32_t)(o->bs / pb), done, e);
    return dev_write(d, t, lpn, (uint32_t)(o->bs / pb), done, e);
}

/* n_req requests (all when 0), iodepth in flight, over span bytes; fills x. 0 or -1 (message
 * printed). */
static int run(const struct fb_opts *o, uint64_t iodepth, uint64_t n_req, bool precondition,
               uint64_t span, struct ssd_run *x)
{
    struct dev d;
    struct minheap h = {0};
    struct err e = {{0}};
    struct ssd_stats a, b;
    uint64_t rng = o->seed, t = 0;
    int rc;

    memset(x, 0, sizeof(*x));
    x->span = span;
    rc = dev_create(o, &d, &e);
    if (!rc)
        rc = prepare(o, &d, precondition, x, &t, &e);
    if (!rc) {
        x->r.n_req = n_req ? n_req : o->size / o->bs;
        x->r.lat = malloc(x->r.n_req * sizeof(*x->r.lat));
        h.v = malloc(iodepth * sizeof(*h.v));
        if (!x->r.lat || !h.v)
            rc = err_set(&e, -ENOMEM, "out of memory for %" PRIu64 " requests", x->r.n_req);
    }
    dev_stats(&d, &a);
    x->r.t_start = x->r.t_end = t;
    for (uint64_t i = 0; !rc && i < x->r.n_req; i++) {
        uint64_t done;

        if (h.n == iodepth)
            t = minheap_pop(&h);
        rc = one_request(o, &d, i, x->span, &rng, t, &done, &e);
        x->r.lat[i] = done - t;
        x->r.t_end = done > x->r.t_end ? done : x->r.t_end;
        minheap_push(&h, done);
    }
    /* What is still buffered is programmed (not timed), so that the write amplification
     * counts every page the run wrote. */
    if (!rc)
        rc = dev_flush(&d, x->r.t_end, &t, &e);
    dev_stats(&d, &b);
    ssd_stats_sub(&x->st, &b, &a);
    x->r.bytes = x->r.n_req * o->bs;
    free(h.v);
    if (d.one || d.raid) {
        x->r.faults = dev_faults(&d, &x->r.fst);
        dev_destroy(&d);
    }
    if (rc)
        fprintf(stderr, "flashstream flashbench: %s\n", e.msg);
    return rc ? -1 : 0;
}

/* ------------------------------------------------------------------ report */

static void print_config(const struct fb_opts *o, uint64_t span)
{
    const struct ssd_cfg *c = &o->ssd;
    const struct flash_timing *t = &c->nand.tim;
    struct ssd_geom g;
    char b1[32], b2[32], b3[32];
    double gib = (double)(1ull << 30);

    ssd_cfg_geom(c, &g);
    printf("flashbench: rw=%s bs=%s iodepth=%" PRIu64 " size=%s span=%s device=%s seed=%" PRIu64
           "\n",
           fb_rw_names[o->rw], fb_human(o->bs, b1, sizeof(b1)), o->iodepth,
           fb_human(o->size, b2, sizeof(b2)), fb_human(span, b3, sizeof(b3)),
           fb_device_names[o->device], o->seed);
    if (o->device == DEV_RAID0)
        printf("raid0: %u SSDs, stripe unit %s\n", c->raid_ssds,
               fb_human(c->raid_stripe_bytes, b1, sizeof(b1)));
    printf("ssd: %u ch x %u chips x %u die x %u planes, %u blocks x %u pages of %u B = %.2f GiB "
           "raw, %.2f GiB user (op %g%%)\n",
           c->nand.geom.channels, c->nand.geom.chips_per_chan, c->nand.geom.dies_per_chip, g.planes,
           g.units_per_die, g.rows, c->nand.geom.page_bytes,
           (double)g.phys_pages * c->nand.geom.page_bytes / gib,
           (double)g.user_pages * c->nand.geom.page_bytes / gib, ssd_cfg_op(c) * 100);
    printf("     tR %.3f us, tPROG %.3f us, tBERS %.3f ms, bus %u MT/s x %u bit, t_cmd %.3f us\n",
           (double)t->t_r_ps / FLASH_PS_PER_US, (double)t->t_prog_ps / FLASH_PS_PER_US,
           (double)t->t_bers_ps / FLASH_PS_PER_MS, t->bus_mts, t->bus_width_bits,
           (double)t->t_cmd_ps / FLASH_PS_PER_US);
    printf("     firmware %.3f us per page written, %.3f us per page moved by GC; controller "
           "%.3f us per read command of %s\n",
           (double)c->t_fw_page_ps / FLASH_PS_PER_US, (double)c->t_fw_gc_ps / FLASH_PS_PER_US,
           (double)t->t_ctrl_rd_ps / FLASH_PS_PER_US, fb_human(t->ctrl_cmd_bytes, b1, sizeof(b1)));
    printf("     SQ %u entries, write buffer %u pages (SRAM %s), GC per die: units of %u pages, "
           "free units urgent %u < low %u <= high %u; cache program %s, multi-plane %s\n",
           c->sq_depth, g.wbuf_pages, fb_human(c->sram_bytes, b2, sizeof(b2)), g.unit_pages,
           c->gc_free_urgent, c->gc_free_low, c->gc_free_high,
           c->nand.sw.cache_program ? "on" : "off", c->nand.sw.multi_plane ? "on" : "off");
}

static void print_precondition(const struct ssd_run *x)
{
    printf("precondition: %" PRIu64 " pages filled, then %" PRIu64 " random 4 KiB writes in %u "
           "windows: WA %.3f then %.3f (%s), %.2f s wall\n",
           x->pre.fill_pages, x->pre.rand_pages, x->pre.windows, x->pre.wa_prev, x->pre.wa_last,
           x->pre.steady ? "steady" : "NOT steady: window limit reached", x->pre_wall_s);
}

static void print_ftl(const struct fb_opts *o, const struct ssd_stats *st)
{
    struct ssd_geom g;
    double rho;

    ssd_cfg_geom(&o->ssd, &g);
    if (!st->host_write_pages && !st->gc_victims)
        return;
    printf("  ftl: WA %.3f (%" PRIu64 " pages programmed for %" PRIu64 " written: %" PRIu64
           " moved by GC, %" PRIu64 " padding)\n",
           ssd_stats_wa(st), st->prog_pages, st->host_write_pages, st->gc_pages, st->pad_pages);
    printf("       GC: %" PRIu64 " victims, %" PRIu64 " erases, active %.3f ms (sum over dies), "
           "%" PRIu64 " forced (%.3f ms); write buffer full %" PRIu64 " times (%.3f ms)\n",
           st->gc_victims, st->gc_erases, (double)st->gc_active_ps / FLASH_PS_PER_MS, st->gc_forced,
           (double)st->gc_forced_ps / FLASH_PS_PER_MS, st->wbuf_waits,
           (double)st->wbuf_wait_ps / FLASH_PS_PER_MS);
    if (!st->gc_victims || !st->host_write_pages)
        return;
    /* The members share the pages written evenly: the model of one applies to each, and the
     * added-up statistics give a member's free units averaged over the pages written. */
    rho = ssd_wa_util(&g, ssd_stats_mean_free(st));
    double wa = ssd_wa_greedy(g.unit_pages, rho);
    if (rho < 1.0 && isfinite(wa))
        printf("       greedy GC model (mean field, models/ssd/README.md): WA %.3f at utilisation "
               "%.4f\n",
               wa, rho);
    else /* the free units say more than the drive holds: not the model's uniform random writes */
        printf("       greedy GC model (mean field, models/ssd/README.md): does not apply "
               "(utilisation %.4f from the free units; the model is of uniform random writes "
               "over less than the drive holds)\n",
               rho);
}

/* Commands of a request of bs bytes: split at stripe units (aligned), then into commands. */
static uint64_t request_cmds(const struct fb_opts *o, uint32_t members)
{
    uint64_t cmd = o->ssd.nand.tim.ctrl_cmd_bytes, piece = o->bs, cmds = 0;

    if (members > 1 && piece > o->ssd.raid_stripe_bytes)
        piece = o->ssd.raid_stripe_bytes;
    for (uint64_t b = 0; b < o->bs; b += piece) {
        uint64_t n = o->bs - b < piece ? o->bs - b : piece;

        cmds += (n + cmd - 1) / cmd;
    }
    return cmds;
}

/* Die time per page written: WA pages programmed (planes per program; cache program hides
 * data-in behind tPROG when it is shorter), WA - 1 pages read by GC (planes per read: t_cmd,
 * tR, data-out), and the erases per page written. */
static double die_ps_per_page(const struct ssd_cfg *c, double wa, double erases)
{
    const struct flash_timing *t = &c->nand.tim;
    double planes = c->nand.geom.planes_per_die;
    double xfer = (double)flash_cfg_xfer_ps(t, c->nand.geom.page_bytes);
    double in = planes * ((double)t->t_cmd_ps + xfer), prog = (double)t->t_prog_ps;
    double per_prog = c->nand.sw.cache_program ? (in > prog ? in : prog) : in + prog;
    double per_read = planes * ((double)t->t_cmd_ps + xfer) + (double)t->t_r_ps;

    return wa / planes * per_prog + (wa - 1.0) / planes * per_read + erases * (double)t->t_bers_ps;
}

static void write_terms(const struct fb_opts *o, const struct ssd_stats *st, uint32_t m,
                        struct fb_term *tm)
{
    const struct ssd_cfg *c = &o->ssd;
    const struct flash_timing *t = &c->nand.tim;
    double wa = ssd_stats_wa(st) > 1.0 ? ssd_stats_wa(st) : 1.0;
    double erases = st->host_write_pages ? (double)st->gc_erases / st->host_write_pages : 0.0;
    double pb = c->nand.geom.page_bytes, xfer = (double)flash_cfg_xfer_ps(t, (uint64_t)pb);
    double fw = (double)c->t_fw_page_ps + (wa - 1.0) * (double)c->t_fw_gc_ps;
    double planes = c->nand.geom.planes_per_die, cmd = (double)t->t_cmd_ps;
    /* Bus time per page written: WA pages programmed (command cycles + data each); WA - 1 pages
     * read by GC in reads of `planes` pages, each holding the bus from its command cycles
     * through tR to its data-out (the bus serves calls in order; without command cycles only
     * the data-out is on it); the erases' command cycles. */
    double gc_read = cmd > 0.0 ? planes * (cmd + xfer) + (double)t->t_r_ps : planes * xfer;
    double per_page = wa * (cmd + xfer) + (wa - 1.0) / planes * gc_read + erases * planes * cmd;
    uint32_t dies = flash_geom_dies(&c->nand.geom);

    tm[0].name = "firmware";
    tm[0].bps = m * pb / fw * FLASH_PS_PER_S;
    snprintf(tm[0].how, sizeof(tm[0].how),
             "%u x 4 KiB / (%.3f us + (WA - 1) x %.3f us of GC moves); %.2f per SSD at WA 1", m,
             (double)c->t_fw_page_ps / FLASH_PS_PER_US, (double)c->t_fw_gc_ps / FLASH_PS_PER_US,
             pb / (double)c->t_fw_page_ps * FLASH_PS_PER_S / 1e9);
    tm[1].name = "program rate";
    tm[1].bps = m * dies * pb / die_ps_per_page(c, wa, erases) * FLASH_PS_PER_S;
    snprintf(tm[1].how, sizeof(tm[1].how),
             "%u x %u dies; per page written: WA %.3f pages programmed, %.3f read by GC "
             "(%u-page operations), %.4f erases",
             m, dies, wa, wa - 1.0, c->nand.geom.planes_per_die, erases);
    tm[2].name = "channel bus";
    tm[2].bps = m * c->nand.geom.channels * pb / per_page * FLASH_PS_PER_S;
    snprintf(tm[2].how, sizeof(tm[2].how),
             "%u x %u x %u MT/s x %u bit; per page written: WA programs in, WA - 1 GC reads out "
             "(each holding it through tR), erase commands",
             m, c->nand.geom.channels, t->bus_mts, t->bus_width_bits);
}

static void read_terms(const struct fb_opts *o, uint32_t m, struct fb_term *tm)
{
    const struct ssd_cfg *c = &o->ssd;
    uint64_t req_pages = o->bs / c->nand.geom.page_bytes, cmds = request_cmds(o, m);
    struct flash_cfg n = c->nand;
    struct flash_bounds rb;
    char b1[32];

    n.geom.planes_per_die =
        (uint32_t)(req_pages < n.geom.planes_per_die ? req_pages : n.geom.planes_per_die);
    flash_cfg_read_bounds(&n, &rb);
    tm[0].name = "controller";
    tm[0].bps = m * (double)o->bs / ((double)cmds * (double)n.tim.t_ctrl_rd_ps) * FLASH_PS_PER_S;
    snprintf(tm[0].how, sizeof(tm[0].how),
             "%u x %" PRIu64 " command%s per request (up to %s each), %.3f us each", m, cmds,
             cmds == 1 ? "" : "s", fb_human(n.tim.ctrl_cmd_bytes, b1, sizeof(b1)),
             (double)n.tim.t_ctrl_rd_ps / FLASH_PS_PER_US);
    tm[1].name = "read rate";
    tm[1].bps = m * rb.array_bps;
    snprintf(tm[1].how, sizeof(tm[1].how),
             "%u x %u dies x %u-page reads, t_cmd + tR + data-out each", m,
             flash_geom_dies(&n.geom), n.geom.planes_per_die);
    tm[2].name = "channel bus";
    tm[2].bps = m * rb.chan_bps;
    snprintf(tm[2].how, sizeof(tm[2].how), "%u x %u x %u MT/s x %u bit%s", m, n.geom.channels,
             n.tim.bus_mts, n.tim.bus_width_bits,
             n.tim.t_cmd_ps ? "; a read holds it for t_cmd + tR + data-out" : ", data-out only");
}

static void print_bound(const struct fb_opts *o, const struct ssd_stats *st, double unloaded_ps,
                        double achieved)
{
    uint32_t m = o->device == DEV_RAID0 ? o->ssd.raid_ssds : 1;
    struct fb_term tm[4];
    char b1[32];

    if (is_read(o))
        read_terms(o, m, tm);
    else
        write_terms(o, st, m, tm);
    tm[3].name = "queue depth";
    tm[3].bps = (double)o->iodepth * (double)o->bs / unloaded_ps * FLASH_PS_PER_S;
    snprintf(tm[3].how, sizeof(tm[3].how), "%" PRIu64 " x %s / unloaded latency %.2f us",
             o->iodepth, fb_human(o->bs, b1, sizeof(b1)), unloaded_ps / FLASH_PS_PER_US);
    fb_print_terms(tm, 4, achieved);
}

int fb_run_ssd(const struct fb_opts *o)
{
    struct ssd_run x, one;
    double wall, secs, bw;
    uint64_t span = span_of(o);
    char b1[32];

    if (!span)
        return 2;
    print_config(o, span);
    wall = cli_wall_s();
    /* Unloaded latency: one request alone on a fresh, idle device. */
    if (run(o, 1, 1, false, o->bs, &one))
        return 1;
    if (run(o, o->iodepth, 0, o->precondition, span, &x)) {
        free(one.r.lat);
        return 1;
    }
    wall = cli_wall_s() - wall - x.pre_wall_s;
    if (o->precondition)
        print_precondition(&x);
    secs = (double)(x.r.t_end - x.r.t_start) / FLASH_PS_PER_S;
    bw = (double)x.r.bytes / secs;
    printf("  %s: IOPS=%.0f, BW=%.2fGB/s (%.2fGiB/s)(%s/%.3fms)\n", fb_rw_names[o->rw],
           (double)x.r.n_req / secs, bw / 1e9, bw / (double)(1ull << 30),
           fb_human(x.r.bytes, b1, sizeof(b1)), secs * 1e3);
    fb_print_latency(&x.r);
    print_ftl(o, &x.st);
    if (x.r.faults)
        fb_print_fault_stats(&x.r.fst);
    print_bound(o, &x.st, (double)one.r.lat[0], bw);
    printf("  simulated %.3f ms of flash time in %.2f s of wall time\n", secs * 1e3, wall);
    free(one.r.lat);
    free(x.r.lat);
    return 0;
}
