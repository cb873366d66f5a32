/*
 * test_flash_fast: the fast path of long sequential transfers (flash_fms_run_*, used by the
 * stream FTL's write and read paths and the controller's read path) against the page-by-page
 * path. Each scenario builds two identical flash memory systems with the same streams, one with
 * the fast path off, and runs the same random operations on both: writes of 1 page to several
 * LBs on 2-3 streams, reads through the controller (random byte offsets) and through the FTL,
 * releases, blocks gone bad and erases that fail, at random times (queued behind the last
 * operation, back to back, after idle gaps, past a stream's retention). Every return code,
 * completion time and statistic, and at the end every die, plane, channel, block and mapping,
 * must be identical. Geometries small, odd and default-like; cache program and multi-plane on
 * and off; controller commands of 1 to 32 pages and of several costs, so that transfers are
 * die-, channel- or controller-bound. Long transfers on the default FMS check that the fast
 * path engages (stripes skipped), so that the comparison is not vacuous. Random choices draw
 * from FS_SEED. With bit errors, the fast path draws a run's first decodes at once: the same
 * results without errors, and retries in the page path's number (statistically) with them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "csim/rng.h"
#include "models/flash/flash_ctrl.h"
#include "models/flash/flash_fms.h"
#include "models/flash/ftl_bbm.h"
#include "models/flash/ftl_layout.h"
#include "models/flash/ftl_stream.h"

#define DEFAULT_SEED 0xf1a5bf00dULL
#define MAX_STREAMS  3
#define N_SCENARIOS  48
#define N_OPS        70

/* One flash memory system with its streams and controller. */
struct world {
    struct flash_fms *fms;
    struct ftl_bbm bbm;
    struct ftl_stream *s[MAX_STREAMS];
    struct flash_ctrl ctrl;
};

/* What the test has written to a stream: pages per LB and where it appends next. */
struct mirror {
    uint32_t n_lb;
    uint64_t sbp, lpages, append;
    uint64_t *wp;
};

struct scen {
    uint64_t rng;
    int geom; /* 0 small, 1 odd, 2 default-like */
    struct flash_cfg cfg;
    uint32_t n_streams, spare_first, spare_count;
    struct ftl_stream_cfg sc[MAX_STREAMS];
    struct world w[2]; /* [0] page by page, [1] fast path */
    struct mirror m[MAX_STREAMS];
    uint64_t now, last_done, stripe;
    char what[160]; /* the operation being compared, for messages */
};

/* Skipped stripes per geometry, summed over the random scenarios. */
static uint64_t skipped_by_geom[3];

static uint64_t pick(uint64_t *rng, uint64_t n)
{
    return rng_below(rng, n);
}

/* ------------------------------------------------------------------ building the scenario */

static void random_cfg(struct scen *c)
{
    static const uint32_t cmd_pages[] = {1, 3, 16, 16, 32, 5};
    static const uint64_t t_ctrl[] = {0, 200, 1180, 1930, 5000, 20000};
    static const uint64_t t_prog[] = {20000, 100000, 300000};
    static const uint64_t t_r[] = {3000, 25000};
    static const uint32_t mts[] = {400, 1200, 3000};
    struct flash_cfg *f = &c->cfg;
    struct flash_geom *g = &f->geom;

    flash_cfg_default(f);
    /* Functional mode too: writes without data and FTL reads into no buffer take the fast
     * path there as well. */
    f->sw.store_payload = pick(&c->rng, 4) == 0;
    c->geom = (int)pick(&c->rng, 3);
    switch (c->geom) {
    case 0: /* 2 channels x 2 chips, 4 planes: a stripe is 16 pages */
        g->channels = 2;
        g->chips_per_chan = 2;
        g->dies_per_chip = 1;
        g->planes_per_die = 4;
        g->blocks_per_plane = 24;
        g->pages_per_block = 8;
        break;
    case 1: /* 3 channels x 1 chip x 2 dies, 2 planes: dies share channels unevenly */
        g->channels = 3;
        g->chips_per_chan = 1;
        g->dies_per_chip = 2;
        g->planes_per_die = 2;
        g->blocks_per_plane = 20;
        g->pages_per_block = 6;
        break;
    default: /* the default FMS's dies and planes, fewer and shorter blocks */
        g->blocks_per_plane = 16;
        g->pages_per_block = 4;
        break;
    }
    f->tim.ctrl_cmd_bytes = g->page_bytes * cmd_pages[pick(&c->rng, 6)];
    f->tim.t_ctrl_wr_ps = t_ctrl[pick(&c->rng, 6)] * FLASH_PS_PER_NS;
    f->tim.t_ctrl_rd_ps = t_ctrl[pick(&c->rng, 6)] * FLASH_PS_PER_NS;
    f->tim.t_prog_ps = t_prog[pick(&c->rng, 3)] * FLASH_PS_PER_NS;
    f->tim.t_r_ps = t_r[pick(&c->rng, 2)] * FLASH_PS_PER_NS;
    f->tim.t_cmd_ps = pick(&c->rng, 2) ? 100 * FLASH_PS_PER_NS : 0;
    f->tim.bus_mts = mts[pick(&c->rng, 3)];
    f->sw.cache_program = pick(&c->rng, 2);
    f->sw.multi_plane = pick(&c->rng, 4) != 0;
}

/* 2 or 3 streams over the blocks below the spares; some with fewer LBs than PBs, some erasing
 * only when a PB is reused, one at times with a retention of one second. */
static void random_streams(struct scen *c)
{
    uint32_t blocks = c->cfg.geom.blocks_per_plane;
    uint32_t first = 1, avail;

    c->spare_count = 3;
    c->spare_first = blocks - c->spare_count;
    avail = c->spare_first - first;
    c->n_streams = 2 + (uint32_t)pick(&c->rng, 2);
    for (uint32_t i = 0; i < c->n_streams; i++) {
        struct ftl_stream_cfg *sc = &c->sc[i];
        uint32_t n = avail / (c->n_streams - i);

        memset(sc, 0, sizeof(*sc));
        snprintf(sc->name, sizeof(sc->name), "S%u", i);
        sc->first_block = first;
        sc->n_blocks = n;
        sc->n_lblocks = pick(&c->rng, 3) ? 0 : n - 1 - (uint32_t)pick(&c->rng, n / 2);
        sc->pe_budget = pick(&c->rng, 4) ? 2000000 : 3 + (uint32_t)pick(&c->rng, 4);
        sc->retention_s = pick(&c->rng, 5) ? FTL_SEC_PER_DAY : 1;
        sc->erase_on_release = pick(&c->rng, 3) != 0;
        sc->check_retention = true;
        first += n;
        avail -= n;
    }
}

static void world_create(struct scen *c, struct world *w, bool fast)
{
    struct err e;

    memset(w, 0, sizeof(*w));
    if (flash_fms_create(&c->cfg, &w->fms, &e))
        fail_msg("flash_fms_create: %s", e.msg);
    flash_fms_set_fast(w->fms, fast);
    if (ftl_bbm_init(&w->bbm, &c->cfg.geom, c->spare_first, c->spare_count, &e))
        fail_msg("ftl_bbm_init: %s", e.msg);
    if (flash_ctrl_init(&w->ctrl, w->fms, &e))
        fail_msg("flash_ctrl_init: %s", e.msg);
}

static void world_streams(struct scen *c, struct world *w)
{
    struct err e;

    for (uint32_t i = 0; i < c->n_streams; i++)
        if (ftl_stream_create(&c->sc[i], w->fms, &w->bbm, &w->s[i], &e))
            fail_msg("ftl_stream_create: %s", e.msg);
}

static void world_destroy(struct world *w)
{
    for (uint32_t i = 0; i < MAX_STREAMS; i++)
        ftl_stream_destroy(w->s[i]);
    flash_ctrl_fini(&w->ctrl);
    ftl_bbm_fini(&w->bbm);
    flash_fms_destroy(w->fms);
}

/* A random block of a random stream's range: (die, plane, block). */
static struct flash_addr random_block(struct scen *c)
{
    const struct flash_geom *g = &c->cfg.geom;
    const struct ftl_stream_cfg *sc = &c->sc[pick(&c->rng, c->n_streams)];
    struct flash_addr a;

    flash_addr_from_die_index(g, (uint32_t)pick(&c->rng, flash_geom_dies(g)), &a);
    a.plane = (uint32_t)pick(&c->rng, g->planes_per_die);
    a.block = sc->first_block + (uint32_t)pick(&c->rng, sc->n_blocks);
    return a;
}

/* A block goes bad, or will fail its next erase, in both worlds. */
static void fault(struct scen *c, bool bad)
{
    struct flash_addr a = random_block(c);

    for (int k = 0; k < 2; k++) {
        int rc = bad ? flash_fms_mark_bad(c->w[k].fms, &a, NULL)
                     : flash_fms_inject_erase_fail(c->w[k].fms, &a, NULL);

        assert_int_equal(rc, 0);
    }
}

static void scen_create(struct scen *c, uint64_t seed)
{
    const struct flash_geom *g;
    uint64_t dp, per_cmd;

    memset(c, 0, sizeof(*c));
    c->rng = seed;
    random_cfg(c);
    random_streams(c);
    for (int k = 0; k < 2; k++)
        world_create(c, &c->w[k], k == 1);
    /* Blocks bad from the start are replaced from spares: remapped blocks in long spans. */
    for (uint64_t i = pick(&c->rng, 4); i > 0; i--)
        fault(c, true);
    for (int k = 0; k < 2; k++)
        world_streams(c, &c->w[k]);
    g = &c->cfg.geom;
    dp = (uint64_t)flash_geom_dies(g) * g->planes_per_die;
    per_cmd = c->cfg.tim.ctrl_cmd_bytes / g->page_bytes;
    c->stripe = dp;
    while (c->stripe % per_cmd)
        c->stripe += dp;
    for (uint32_t i = 0; i < c->n_streams; i++) {
        struct mirror *m = &c->m[i];

        m->sbp = ftl_stream_sb_pages(c->w[0].s[i]);
        m->lpages = ftl_stream_lpages(c->w[0].s[i]);
        m->n_lb = (uint32_t)(m->lpages / m->sbp);
        m->wp = calloc(m->n_lb, sizeof(*m->wp));
        assert_non_null(m->wp);
    }
}

static void scen_destroy(struct scen *c)
{
    for (int k = 0; k < 2; k++)
        world_destroy(&c->w[k]);
    for (uint32_t i = 0; i < c->n_streams; i++)
        free(c->m[i].wp);
}

/* ------------------------------------------------------------------ comparing the worlds */

#define SAME(field)                                                                                \
    do {                                                                                           \
        if ((a)->field != (b)->field)                                                              \
            fail_msg("%s: %s differs: page by page %.17g, fast path %.17g", c->what, #field,       \
                     (double)(a)->field, (double)(b)->field);                                      \
    } while (0)

static void same_fms_stats(struct scen *c, uint64_t until)
{
    struct flash_fms_stats sa, sb, *a = &sa, *b = &sb;

    flash_fms_stats(c->w[0].fms, until, a);
    flash_fms_stats(c->w[1].fms, until, b);
    SAME(pages_programmed);
    SAME(pages_read);
    SAME(blocks_erased);
    SAME(bytes_in);
    SAME(bytes_out);
    SAME(ctrl_cmds);
    SAME(payload_pages);
    SAME(last_end);
    SAME(chan_util);
    SAME(die_util);
    SAME(ctrl_util);
}

static void same_stream_stats(struct scen *c, uint32_t i, uint64_t now)
{
    struct ftl_stream_stats sa, sb, *a = &sa, *b = &sb;

    ftl_stream_stats(c->w[0].s[i], now, a);
    ftl_stream_stats(c->w[1].s[i], now, b);
    SAME(lpages_written);
    SAME(ppages_programmed);
    SAME(pages_read);
    SAME(sb_erases);
    SAME(blocks_replaced);
    SAME(sb_total);
    SAME(sb_live);
    SAME(sb_retired);
    SAME(waf);
    SAME(pe_budget);
    SAME(pe_min);
    SAME(pe_max);
    SAME(pe_mean);
    SAME(pe_used);
    SAME(elapsed_s);
    SAME(write_bps);
    SAME(pe_per_year);
    SAME(lifetime_years);
    SAME(retention_s);
}

static void same_ctrl_stats(struct scen *c)
{
    const struct flash_ctrl_stats *a = &c->w[0].ctrl.st, *b = &c->w[1].ctrl.st;

    SAME(reqs);
    SAME(cmds);
    SAME(ops);
    SAME(pages);
    SAME(bytes);
    SAME(lat_ps);
    SAME(lat_max_ps);
}

/* Every die, plane, channel and block, the spare remap and every LB's mapping. */
static void same_everything(struct scen *c)
{
    const struct flash_geom *g = &c->cfg.geom;

    same_fms_stats(c, c->now + 1);
    same_ctrl_stats(c);
    for (uint32_t i = 0; i < c->n_streams; i++)
        same_stream_stats(c, i, c->now + 1);
    for (uint32_t d = 0; d < flash_geom_dies(g); d++) {
        const struct flash_die *a = flash_fms_die(c->w[0].fms, d);
        const struct flash_die *b = flash_fms_die(c->w[1].fms, d);

        SAME(busy_until);
        SAME(reg_free_at);
        SAME(n_read_pages);
        SAME(n_prog_pages);
        SAME(n_erase_blocks);
        SAME(array_busy_ps);
        SAME(payload_pages);
        for (uint32_t p = 0; p < g->planes_per_die; p++) {
            SAME(plane_busy[p]);
            for (uint32_t k = 0; k < g->blocks_per_plane; k++) {
                const struct flash_block *ba = flash_fms_block(c->w[0].fms, d, p, k);
                const struct flash_block *bb = flash_fms_block(c->w[1].fms, d, p, k);

                if (ba->pe != bb->pe || ba->wp != bb->wp || ba->bad != bb->bad ||
                    ba->fail_erase != bb->fail_erase)
                    fail_msg("%s: die %u plane %u block %u differs: pe %u/%u wp %u/%u bad "
                             "%u/%u",
                             c->what, d, p, k, ba->pe, bb->pe, ba->wp, bb->wp, ba->bad, bb->bad);
            }
        }
    }
    for (uint32_t ch = 0; ch < g->channels; ch++) {
        const struct flash_chan *a = flash_fms_chan(c->w[0].fms, ch);
        const struct flash_chan *b = flash_fms_chan(c->w[1].fms, ch);

        SAME(bus.busy_until);
        SAME(bus.busy_ps);
        SAME(bus.n_ops);
        SAME(bytes_in);
        SAME(bytes_out);
    }
    {
        const struct ftl_bbm *a = &c->w[0].bbm, *b = &c->w[1].bbm;

        SAME(n_replaced);
        assert_memory_equal(a->map, b->map, (size_t)a->n_dp * a->blocks * sizeof(*a->map));
        assert_memory_equal(a->used, b->used, (size_t)a->n_dp * sizeof(*a->used));
    }
    for (uint32_t i = 0; i < c->n_streams; i++) {
        for (uint32_t lb = 0; lb < c->m[i].n_lb; lb++) {
            uint32_t pa = UINT32_MAX, pb = UINT32_MAX;
            int ra = ftl_stream_lookup(c->w[0].s[i], lb, &pa);
            int rb = ftl_stream_lookup(c->w[1].s[i], lb, &pb);

            if (ra != rb || pa != pb)
                fail_msg("%s: stream %u LB %u maps to %d/%u page by page, %d/%u fast", c->what, i,
                         lb, ra, pa, rb, pb);
        }
    }
}

/* The two worlds' answers to the same call. */
static void same_result(struct scen *c, int ra, int rb, uint64_t da, uint64_t db)
{
    if (ra != rb || da != db)
        fail_msg("%s: page by page rc %d done %" PRIu64 ", fast path rc %d done %" PRIu64, c->what,
                 ra, da, rb, db);
    if (!ra)
        c->last_done = da;
}

/* ------------------------------------------------------------------ operations */

static bool mapped(struct scen *c, uint32_t i, uint32_t lb)
{
    uint32_t pbn;

    return ftl_stream_lookup(c->w[0].s[i], lb, &pbn) == 0;
}

static void release(struct scen *c, uint32_t i, uint32_t lb, uint32_t count)
{
    uint64_t d[2];
    int rc[2];

    snprintf(c->what, sizeof(c->what), "release of stream %u LBs %u+%u at %" PRIu64, i, lb, count,
             c->now);
    for (int k = 0; k < 2; k++)
        rc[k] = ftl_stream_release(c->w[k].s[i], c->now, lb, count, &d[k], NULL);
    same_result(c, rc[0], rc[1], d[0], d[1]);
    for (uint32_t j = lb; j < lb + count && !rc[0]; j++)
        c->m[i].wp[j] = 0;
}

/* Release about half the mapped LBs: room for the next writes. */
static void make_room(struct scen *c, uint32_t i)
{
    for (uint32_t lb = 0; lb < c->m[i].n_lb; lb++)
        if (mapped(c, i, lb) && pick(&c->rng, 2))
            release(c, i, lb, 1);
}

static uint64_t record_pages(struct scen *c, const struct mirror *m)
{
    uint64_t r = pick(&c->rng, 10), max;

    if (r < 3)
        max = 2 * c->stripe;
    else if (r < 7)
        max = m->sbp;
    else
        max = 4 * m->sbp;
    if (max > m->lpages)
        max = m->lpages;
    return 1 + pick(&c->rng, max);
}

static void write_op(struct scen *c, uint32_t i)
{
    struct mirror *m = &c->m[i];
    struct ftl_stream_stats st;
    uint64_t n = record_pages(c, m), lpn = m->append, before, w, d[2];
    int rc[2];

    if (lpn + n > m->lpages)
        lpn = 0;
    /* Writes append: inside the LB being filled at its write pointer, else from an LB's start. */
    if (lpn % m->sbp && m->wp[lpn / m->sbp] != lpn % m->sbp)
        lpn = (lpn / m->sbp + 1) * m->sbp;
    if (lpn + n > m->lpages)
        lpn = 0;
    for (uint64_t lb = lpn / m->sbp; lb <= (lpn + n - 1) / m->sbp; lb++)
        if ((lb > lpn / m->sbp || lpn % m->sbp == 0) && mapped(c, i, (uint32_t)lb))
            release(c, i, (uint32_t)lb, 1);
    ftl_stream_stats(c->w[0].s[i], c->now, &st);
    before = st.lpages_written;
    snprintf(c->what, sizeof(c->what),
             "write of stream %u, %" PRIu64 " pages at LPN %" PRIu64 " at %" PRIu64, i, n, lpn,
             c->now);
    for (int k = 0; k < 2; k++)
        rc[k] = ftl_stream_write(c->w[k].s[i], c->now, lpn, n, NULL, &d[k], NULL);
    same_result(c, rc[0], rc[1], d[0], d[1]);
    same_stream_stats(c, i, c->now);
    ftl_stream_stats(c->w[0].s[i], c->now, &st);
    w = st.lpages_written - before;
    for (uint64_t p = lpn; p < lpn + w;) {
        uint64_t lb = p / m->sbp, e = (lb + 1) * m->sbp < lpn + w ? (lb + 1) * m->sbp : lpn + w;

        m->wp[lb] = e - lb * m->sbp;
        p = e;
    }
    m->append = lpn + w;
    if (rc[0] && m->append % m->sbp) /* that LB stays as far as it got */
        m->append = (m->append / m->sbp + 1) * m->sbp;
    if (rc[0] == -ENOSPC)
        make_room(c, i);
}

/* A random range of written pages, contiguous across full LBs; sometimes one page too many. */
static bool read_range(struct scen *c, uint32_t i, uint64_t *lpn, uint64_t *n)
{
    const struct mirror *m = &c->m[i];
    uint32_t lb = (uint32_t)pick(&c->rng, m->n_lb), tries;
    uint64_t end;

    for (tries = 0; tries < m->n_lb && !(m->wp[lb] && mapped(c, i, lb)); tries++)
        lb = (lb + 1) % m->n_lb;
    if (tries == m->n_lb)
        return false;
    *lpn = lb * m->sbp + pick(&c->rng, m->wp[lb]);
    end = lb * m->sbp + m->wp[lb];
    while (m->wp[lb] == m->sbp && lb + 1 < m->n_lb && m->wp[lb + 1] && mapped(c, i, lb + 1)) {
        lb++;
        end = lb * m->sbp + m->wp[lb];
    }
    *n = pick(&c->rng, 2) ? end - *lpn : 1 + pick(&c->rng, end - *lpn);
    /* Past what was written, by a page or into LBs not written: both must fail alike, the
     * controller's read after the pages before the gap. */
    if (!pick(&c->rng, 20))
        *n += 1;
    else if (!pick(&c->rng, 10))
        *n += 1 + pick(&c->rng, 2 * m->sbp);
    if (*n > m->lpages - *lpn)
        *n = m->lpages - *lpn;
    return true;
}

static void read_op(struct scen *c, uint32_t i)
{
    uint32_t page = c->cfg.geom.page_bytes;
    uint64_t lpn, n, d[2];
    int rc[2];

    if (!read_range(c, i, &lpn, &n))
        return;
    if (pick(&c->rng, 3)) {
        struct flash_ctrl_req rq = {.lpn = lpn, .offset = (uint32_t)pick(&c->rng, page)};

        rq.bytes = n * page - rq.offset - pick(&c->rng, page - rq.offset);
        snprintf(c->what, sizeof(c->what),
                 "controller read of stream %u, %" PRIu64 " bytes at LPN %" PRIu64
                 "+%u at %" PRIu64,
                 i, rq.bytes, lpn, rq.offset, c->now);
        for (int k = 0; k < 2; k++)
            rc[k] = flash_ctrl_read(&c->w[k].ctrl, c->w[k].s[i], c->now, &rq, NULL, &d[k], NULL);
        same_result(c, rc[0], rc[1], d[0], d[1]);
        same_ctrl_stats(c);
    } else {
        snprintf(c->what, sizeof(c->what),
                 "FTL read of stream %u, %" PRIu64 " pages at LPN %" PRIu64 " at %" PRIu64, i, n,
                 lpn, c->now);
        for (int k = 0; k < 2; k++)
            rc[k] = ftl_stream_read(c->w[k].s[i], c->now, lpn, n, NULL, &d[k], NULL);
        same_result(c, rc[0], rc[1], d[0], d[1]);
    }
    same_stream_stats(c, i, c->now);
}

/* The time of the next operation: queued behind the last one, back to back with it, after the
 * whole FMS went idle, a little later, or rarely past a one-second retention. */
static void advance_now(struct scen *c)
{
    struct flash_fms_stats st;
    uint64_t t = c->now;

    switch (pick(&c->rng, 10)) {
    case 0:
    case 1:
    case 2:
        break;
    case 3:
    case 4:
    case 5:
        t = c->last_done;
        break;
    case 6:
    case 7:
        flash_fms_stats(c->w[0].fms, 1, &st);
        t = st.last_end + pick(&c->rng, FLASH_PS_PER_MS);
        break;
    default:
        t += pick(&c->rng, 300 * FLASH_PS_PER_US);
        break;
    }
    if (!pick(&c->rng, 60))
        t += 2 * FLASH_PS_PER_S;
    c->now = t > c->now ? t : c->now;
}

static void run_scenario(uint64_t seed)
{
    struct scen c;

    scen_create(&c, seed);
    snprintf(c.what, sizeof(c.what), "scenario start");
    for (int op = 0; op < N_OPS; op++) {
        uint32_t i = (uint32_t)pick(&c.rng, c.n_streams);
        uint64_t r = pick(&c.rng, 100);

        advance_now(&c);
        if (r < 48) {
            write_op(&c, i);
        } else if (r < 85) {
            read_op(&c, i);
        } else if (r < 95) {
            uint32_t lb = (uint32_t)pick(&c.rng, c.m[i].n_lb), cnt = 1;

            while (lb + cnt < c.m[i].n_lb && cnt < 3 && mapped(&c, i, lb + cnt) && pick(&c.rng, 2))
                cnt++;
            if (mapped(&c, i, lb))
                release(&c, i, lb, cnt);
        } else {
            fault(&c, r < 97);
        }
        same_fms_stats(&c, c.now + 1);
        if (op % 16 == 15)
            same_everything(&c);
    }
    same_everything(&c);
    assert_int_equal(flash_fms_fast_stripes(c.w[0].fms), 0);
    skipped_by_geom[c.geom] += flash_fms_fast_stripes(c.w[1].fms);
    scen_destroy(&c);
}

static void test_random_scenarios_match(void **state)
{
    uint64_t seed = test_seed("test_flash_fast", DEFAULT_SEED);

    (void)state;
    for (int k = 0; k < N_SCENARIOS; k++)
        run_scenario(rng_next(&seed));
    printf("test_flash_fast: stripes skipped: small %" PRIu64 ", odd %" PRIu64
           ", default-like %" PRIu64 "\n",
           skipped_by_geom[0], skipped_by_geom[1], skipped_by_geom[2]);
    /* Each geometry's long transfers took the fast path at least once. */
    for (int g = 0; g < 3; g++)
        assert_true(skipped_by_geom[g] > 0);
}

/* ------------------------------------------------------------------ long transfers */

/*
 * The default FMS (Behemoth AN, stream V): records of 256 MiB written as a queue of two (both
 * asked for at once, then each when one completes), then read back through the controller the
 * same way. Both worlds agree, and the fast path skips most stripes of the writes and most of
 * the reads.
 */
static void long_records(bool cache_program, bool multi_plane, uint64_t ctrl_wr_ns,
                         uint64_t ctrl_rd_ns)
{
    const uint64_t rec = 65536, n_rec = 6; /* pages: 256 MiB each */
    const uint64_t per_pass = n_rec * rec / 1024;
    struct ftl_layout lay;
    struct scen c;
    uint64_t t[2] = {0, 0}, stripes, w_stripes = 0, d[2];
    int rc[2];

    memset(&c, 0, sizeof(c));
    flash_cfg_default(&c.cfg);
    c.cfg.sw.store_payload = false;
    c.cfg.sw.cache_program = cache_program;
    c.cfg.sw.multi_plane = multi_plane;
    c.cfg.tim.t_ctrl_wr_ps = ctrl_wr_ns * FLASH_PS_PER_NS;
    c.cfg.tim.t_ctrl_rd_ps = ctrl_rd_ns * FLASH_PS_PER_NS;
    ftl_layout_an(&lay);
    c.spare_first = ftl_layout_spare(&lay)->first;
    c.spare_count = ftl_layout_spare(&lay)->count;
    c.n_streams = 1;
    ftl_stream_cfg_from_region(&c.sc[0], ftl_layout_find(&lay, "V"));
    for (int k = 0; k < 2; k++) {
        world_create(&c, &c.w[k], k == 1);
        world_streams(&c, &c.w[k]);
    }
    c.m[0].n_lb = (uint32_t)(ftl_stream_lpages(c.w[0].s[0]) / ftl_stream_sb_pages(c.w[0].s[0]));
    for (uint64_t r = 0; r < 2 * n_rec; r++) {
        bool rd = r >= n_rec;
        uint64_t now = t[r % 2];

        if (r == n_rec)
            w_stripes = flash_fms_fast_stripes(c.w[1].fms);
        snprintf(c.what, sizeof(c.what), "%s of record %" PRIu64 " at %" PRIu64,
                 rd ? "read" : "write", r % n_rec, now);
        for (int k = 0; k < 2; k++) {
            if (rd) {
                struct flash_ctrl_req rq = {.lpn = (r - n_rec) * rec, .bytes = rec * 4096};

                rc[k] = flash_ctrl_read(&c.w[k].ctrl, c.w[k].s[0], now, &rq, NULL, &d[k], NULL);
            } else {
                rc[k] = ftl_stream_write(c.w[k].s[0], now, r * rec, rec, NULL, &d[k], NULL);
            }
        }
        same_result(&c, rc[0], rc[1], d[0], d[1]);
        assert_int_equal(rc[0], 0);
        t[r % 2] = d[0];
        c.now = d[0] > c.now ? d[0] : c.now;
    }
    same_fms_stats(&c, c.now);
    same_ctrl_stats(&c);
    same_stream_stats(&c, 0, c.now);
    same_everything(&c);
    /* 64 stripes of 1024 pages per record: all but a few of them skipped, in each pass. */
    stripes = flash_fms_fast_stripes(c.w[1].fms);
    printf("test_flash_fast: cache %s, multi-plane %s, controller %" PRIu64 " / %" PRIu64
           " ns: %" PRIu64 " of %" PRIu64 " write and %" PRIu64 " of %" PRIu64
           " read stripes skipped\n",
           cache_program ? "on" : "off", multi_plane ? "on" : "off", ctrl_wr_ns, ctrl_rd_ns,
           w_stripes, per_pass, stripes - w_stripes, per_pass);
    assert_true(w_stripes >= per_pass * 3 / 4);
    assert_true(stripes - w_stripes >= per_pass * 3 / 4);
    for (int k = 0; k < 2; k++)
        world_destroy(&c.w[k]);
}

static void test_long_records_default(void **state)
{
    (void)state;
    long_records(true, true, 1180, 1930);
}

static void test_long_records_no_cache_program(void **state)
{
    (void)state;
    long_records(false, true, 1180, 1930);
}

static void test_long_records_single_plane(void **state)
{
    (void)state;
    long_records(true, false, 1180, 1930);
}

static void test_long_records_controller_bound(void **state)
{
    (void)state;
    long_records(true, true, 4000, 1930); /* 16 pages per 4 us: 16.4 GB/s, below the dies' 41.9 */
}

/*
 * Reads whose controller commands come faster than the channels serve them (64 KiB per 0.5 us
 * = 131 GB/s against the channels' 67.4): the commands run ahead and each read's start is set
 * by its channel, busy with the command cycles, tR and data-out of the read before it.
 */
static void test_long_records_channel_bound_reads(void **state)
{
    (void)state;
    long_records(true, true, 1180, 500);
}

/*
 * Bit errors on the fast path (flash_fault_clean_run): 6 records of 256 MiB written on the
 * default FMS, then read back through the controller with faults, once page by page and once
 * with the fast path. Without bit errors (rber:x=0) both give the same times and counters, the
 * fast path skipping most stripes. At an RBER where about one page in 4,000 needs a retry, the
 * fast path still skips stripes, and the pages retried on each path agree with each other and
 * with the model's expectation (pages x the probability a page fails its first decode) within
 * 5 standard deviations.
 */
static void fault_reads(const char *age, uint64_t retried[2], uint64_t done[2], double *expect,
                        uint64_t *skipped)
{
    const uint64_t rec = 65536, n_rec = 6;
    struct flash_fault_cfg fc;
    struct flash_fault_stats st;
    struct flash_fault *model;
    struct ftl_layout lay;
    struct scen c;
    struct err e;
    uint64_t t, s0;

    memset(&c, 0, sizeof(c));
    flash_cfg_default(&c.cfg);
    c.cfg.sw.store_payload = false;
    ftl_layout_an(&lay);
    c.spare_first = ftl_layout_spare(&lay)->first;
    c.spare_count = ftl_layout_spare(&lay)->count;
    c.n_streams = 1;
    ftl_stream_cfg_from_region(&c.sc[0], ftl_layout_find(&lay, "V"));
    flash_fault_cfg_default(&fc);
    if (flash_fault_parse(&fc, age, &e) || flash_fault_parse(&fc, "seed:n=5", &e))
        fail_msg("%s", e.msg);
    for (int k = 0; k < 2; k++) {
        world_create(&c, &c.w[k], k == 1);
        world_streams(&c, &c.w[k]);
        t = 0;
        for (uint64_t r = 0; r < n_rec; r++)
            if (ftl_stream_write(c.w[k].s[0], t, r * rec, rec, NULL, &t, &e))
                fail_msg("%s", e.msg);
        if (flash_fms_set_faults(c.w[k].fms, &fc, &e))
            fail_msg("%s", e.msg);
        s0 = flash_fms_fast_stripes(c.w[k].fms);
        for (uint64_t r = 0; r < n_rec; r++) {
            struct flash_ctrl_req rq = {.lpn = r * rec, .bytes = rec * 4096};

            if (flash_ctrl_read(&c.w[k].ctrl, c.w[k].s[0], t, &rq, NULL, &t, &e))
                fail_msg("%s", e.msg);
        }
        assert_true(flash_fms_fault_stats(c.w[k].fms, &st));
        assert_int_equal(st.pages_checked, n_rec * rec);
        retried[k] = st.pages_retried;
        done[k] = t;
        if (k)
            *skipped = flash_fms_fast_stripes(c.w[k].fms) - s0;
    }
    assert_int_equal(flash_fms_fast_stripes(c.w[0].fms), 0);
    /* the expectation: every page's data are a few ms old, its block at 1 P/E cycle */
    if (flash_fault_create(&fc, &model, &e))
        fail_msg("%s", e.msg);
    *expect = (double)(n_rec * rec) *
              -expm1(4.0 * log1p(-flash_fault_cw_fail(model, flash_fault_rber(model, 0, 0.01))));
    flash_fault_destroy(model);
    for (int k = 0; k < 2; k++)
        world_destroy(&c.w[k]);
}

static void test_fault_draws_on_the_fast_path(void **state)
{
    uint64_t retried[2], done[2], skipped;
    double expect, sd;

    (void)state;
    fault_reads("rber:x=0", retried, done, &expect, &skipped);
    assert_int_equal(retried[0], 0);
    assert_int_equal(retried[1], 0);
    assert_int_equal(done[0], done[1]);
    assert_true(skipped >= 6 * 64 * 3 / 4);

    fault_reads("age:pe=2000000,days=1.15", retried, done, &expect, &skipped);
    sd = sqrt(expect);
    printf("test_flash_fast: bit errors: %" PRIu64 " pages retried page by page, %" PRIu64
           " on the fast path (%" PRIu64 " stripes skipped), %.1f expected\n",
           retried[0], retried[1], skipped, expect);
    assert_true(expect > 50 && expect < 400);
    assert_true(skipped >= 6 * 64 / 4);
    for (int k = 0; k < 2; k++)
        assert_true(fabs((double)retried[k] - expect) <= 5 * sd);
    assert_true(fabs((double)retried[0] - (double)retried[1]) <= 5 * sqrt(2.0) * sd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_records_default),
        cmocka_unit_test(test_long_records_no_cache_program),
        cmocka_unit_test(test_long_records_single_plane),
        cmocka_unit_test(test_long_records_controller_bound),
        cmocka_unit_test(test_long_records_channel_bound_reads),
        cmocka_unit_test(test_random_scenarios_match),
        cmocka_unit_test(test_fault_draws_on_the_fast_path),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
