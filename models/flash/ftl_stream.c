#include "models/flash/ftl_stream.h"

#include "models/flash/flash_ctrl_cmds.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum pb_state {
    PB_FREE,    /* erased, ready for an LB */
    PB_LIVE,    /* mapped by an LB */
    PB_DIRTY,   /* released, not yet erased */
    PB_RETIRED, /* a plane ran out of spares: unusable */
};

struct lblock {
    int64_t pbn;      /* -1: unmapped */
    uint64_t wp;      /* pages written: the LB's append point */
    uint64_t t_write; /* time of the first write since it was mapped */
};

struct ftl_stream {
    struct ftl_stream_cfg cfg;
    struct flash_fms *fms;
    struct ftl_bbm *bbm;
    uint32_t planes, dies, page_bytes;
    uint64_t sbp;      /* pages per superblock (LB) */
    uint64_t lpages;   /* pages of the logical space */
    bool payload;      /* functional mode: pass data down */
    struct lblock *lb; /* [n_lblocks] */
    uint8_t *pb;       /* [n_blocks] enum pb_state */
    uint32_t cursor;   /* next PBN in the round-robin rotation */
    uint32_t n_live, n_retired;
    uint64_t append; /* append point (LPN) */
    /* statistics */
    uint64_t lpages_written, ppages, pages_read, sb_erases, replaced;
    uint64_t prog_remaps, remap_pages, remap_ps; /* program failures survived, their copies */
    uint64_t t_first_write;
    bool written;
};

void ftl_stream_cfg_from_region(struct ftl_stream_cfg *c, const struct ftl_region *r)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", r->name);
    c->first_block = r->first;
    c->n_blocks = r->count;
    c->n_lblocks = 0;
    c->pe_budget = r->pe_budget;
    c->retention_s = r->retention_s;
    c->erase_on_release = true;
    c->check_retention = true;
}

/* ------------------------------------------------------------------ helpers */

static uint32_t dp_of(const struct ftl_stream *s, uint32_t die, uint32_t plane)
{
    return die * s->planes + plane;
}

static const char *addr_str(const struct ftl_stream *s, uint32_t die, uint32_t plane,
                            uint32_t block, char *buf, size_t len)
{
    struct flash_addr a;

    flash_addr_from_die_index(&flash_fms_cfg(s->fms)->geom, die, &a);
    a.plane = plane;
    a.block = block;
    snprintf(buf, len, "ch %u chip %u die %u plane %u block %u", a.channel, a.chip, a.die, a.plane,
             a.block);
    return buf;
}

/*
 * Replace block `blk` (the stream's PBN, in plane p of die) with a spare; the old physical
 * block is retired in the flash. Loops past spares that are bad themselves. why: what
 * happened to the old block, for the message.
 */
static int replace_block(struct ftl_stream *s, uint32_t die, uint32_t p, uint32_t blk,
                         const char *why, struct err *e)
{
    const struct flash_cfg *c = flash_fms_cfg(s->fms);
    uint32_t dp = dp_of(s, die, p);
    uint32_t old = ftl_bbm_resolve(s->bbm, dp, blk);
    struct flash_addr a;
    char buf[96];

    flash_addr_from_die_index(&c->geom, die, &a);
    a.plane = p;
    a.block = old;
    flash_fms_mark_bad(s->fms, &a, NULL);
    for (;;) {
        uint32_t spare;
        const struct flash_block *b;
        int rc = ftl_bbm_replace(s->bbm, dp, blk, &spare, e);

        if (rc)
            return err_prefix(e, rc, "stream '%s' PB %u at %s: %s", s->cfg.name,
                              blk - s->cfg.first_block, addr_str(s, die, p, old, buf, sizeof(buf)),
                              why);
        s->replaced++;
        b = flash_fms_block(s->fms, die, p, spare);
        assert(b);
        if (!b->bad && b->wp == 0)
            return 0;
    }
}

static void retire(struct ftl_stream *s, uint32_t pbn)
{
    s->pb[pbn] = PB_RETIRED;
    s->n_retired++;
}

/*
 * The multi-plane operation of n pages from offset off of a superblock mapped to PB pbn (the
 * page layout of the header: plane off % P onwards, unit off / P -> die unit % D, page unit / D),
 * with the spare remap applied to every plane.
 */
static void unit_op(const struct ftl_stream *s, uint64_t off, uint32_t n, uint32_t pbn,
                    struct flash_mpop *op)
{
    uint64_t unit = off / s->planes;
    uint32_t plane0 = (uint32_t)(off % s->planes);
    uint32_t blk = s->cfg.first_block + pbn;

    op->die = (uint32_t)(unit % s->dies);
    op->page = (uint32_t)(unit / s->dies);
    op->plane_mask = (uint32_t)(((1ull << n) - 1) << plane0);
    for (uint32_t p = plane0; p < plane0 + n; p++)
        op->block[p] = ftl_bbm_resolve(s->bbm, dp_of(s, op->die, p), blk);
}

/* Erase superblock pbn on every die; replace worn-out or failed blocks from spares. */
static int erase_sb(struct ftl_stream *s, uint64_t now, uint32_t pbn, uint64_t *done, struct err *e)
{
    uint32_t blk = s->cfg.first_block + pbn;
    struct flash_mpop op;
    uint64_t end = now, t;
    char why[96];

    memset(&op, 0, sizeof(op));
    op.plane_mask = (uint32_t)((1ull << s->planes) - 1);
    s->sb_erases++;
    for (uint32_t d = 0; d < s->dies; d++) {
        int rc;

        op.die = d;
        for (uint32_t p = 0; p < s->planes; p++)
            op.block[p] = ftl_bbm_resolve(s->bbm, dp_of(s, d, p), blk);
        rc = flash_fms_erase(s->fms, now, &op, &t, e);
        if (rc && rc != -EIO) {
            /* Not expected: the stream only erases good blocks it owns. */
            return err_prefix(e, rc, "stream '%s' erase of PB %u", s->cfg.name, pbn);
        }
        end = res_later(end, t);
        for (uint32_t p = 0; p < s->planes; p++) {
            const struct flash_block *b = flash_fms_block(s->fms, d, p, op.block[p]);

            if (!b->bad && b->pe < s->cfg.pe_budget)
                continue;
            if (b->bad)
                snprintf(why, sizeof(why), "erase failed after %u P/E cycles", b->pe);
            else
                snprintf(why, sizeof(why), "worn out (P/E %u >= budget %u)", b->pe,
                         s->cfg.pe_budget);
            rc = replace_block(s, d, p, blk, why, e);
            if (rc) {
                retire(s, pbn);
                *done = end;
                return err_prefix(e, rc, "superblock retired, stream capacity now %u of %u PBs",
                                  s->cfg.n_blocks - s->n_retired, s->cfg.n_blocks);
            }
        }
    }
    s->pb[pbn] = PB_FREE;
    *done = end;
    return 0;
}

/* Round-robin: the next PBN in rotation that holds no live data. */
static int alloc_pb(struct ftl_stream *s, uint64_t now, uint32_t *pbn, struct err *e)
{
    uint32_t n = s->cfg.n_blocks;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = (s->cursor + i) % n;
        uint64_t t;
        int rc;

        if (s->pb[p] == PB_LIVE || s->pb[p] == PB_RETIRED)
            continue;
        if (s->pb[p] == PB_DIRTY) {
            rc = erase_sb(s, now, p, &t, e);
            if (rc && s->pb[p] == PB_RETIRED)
                continue; /* out of spares: that PB is gone, try the next one */
            if (rc)
                return rc;
        }
        s->pb[p] = PB_LIVE;
        s->n_live++;
        s->cursor = (p + 1) % n;
        *pbn = p;
        return 0;
    }
    return err_set(e, -ENOSPC,
                   "stream '%s' has no free physical block: %u live, %u retired of %u; "
                   "release consumed LBs first",
                   s->cfg.name, s->n_live, s->n_retired, s->cfg.n_blocks);
}

/* ------------------------------------------------------------------ create */

static int scan_bad(struct ftl_stream *s)
{
    for (uint32_t pbn = 0; pbn < s->cfg.n_blocks; pbn++) {
        uint32_t blk = s->cfg.first_block + pbn;

        for (uint32_t d = 0; d < s->dies && s->pb[pbn] != PB_RETIRED; d++) {
            for (uint32_t p = 0; p < s->planes; p++) {
                uint32_t pb = ftl_bbm_resolve(s->bbm, dp_of(s, d, p), blk);
                const struct flash_block *b = flash_fms_block(s->fms, d, p, pb);

                /* bad, or failed by wear-out in an injected age (flash_fault_worn_out) */
                if (!b->bad && !flash_fms_worn_out(s->fms, d, p, pb))
                    continue;
                if (replace_block(s, d, p, blk, "bad at start", NULL)) {
                    retire(s, pbn);
                    break;
                }
            }
        }
    }
    return 0;
}

int ftl_stream_create(const struct ftl_stream_cfg *c, struct flash_fms *fms, struct ftl_bbm *bbm,
                      struct ftl_stream **out, struct err *e)
{
    const struct flash_cfg *fc = flash_fms_cfg(fms);
    const struct flash_geom *g = &fc->geom;
    uint32_t nl = c->n_lblocks ? c->n_lblocks : c->n_blocks;
    struct ftl_stream *s;
    int rc;

    *out = NULL;
    if (!c->name[0])
        return err_set(e, -EINVAL, "ftl stream: empty name; accepted 1..%d characters",
                       FTL_NAME_LEN - 1);
    if (!c->n_blocks || (uint64_t)c->first_block + c->n_blocks > g->blocks_per_plane)
        return err_set(e, -EINVAL,
                       "ftl stream '%s': blocks %u..%u do not fit in a plane of %u "
                       "blocks; accepted a non-empty range inside 0..%u",
                       c->name, c->first_block, c->first_block + c->n_blocks - 1,
                       g->blocks_per_plane, g->blocks_per_plane - 1);
    if (c->first_block < bbm->spare_first + bbm->spare_count &&
        bbm->spare_first < c->first_block + c->n_blocks)
        return err_set(e, -EINVAL,
                       "ftl stream '%s': blocks %u..%u overlap the spare blocks %u..%u; "
                       "accepted a range outside the spares",
                       c->name, c->first_block, c->first_block + c->n_blocks - 1, bbm->spare_first,
                       bbm->spare_first + bbm->spare_count - 1);
    if (nl > c->n_blocks)
        return err_set(e, -EINVAL,
                       "ftl stream '%s': %u logical blocks need as many physical ones; "
                       "accepted n_lblocks 1..%u (n_blocks) or 0",
                       c->name, nl, c->n_blocks);
    if (!c->pe_budget)
        return err_set(e, -EINVAL, "ftl stream '%s': P/E budget 0; accepted >= 1", c->name);
    if (bbm->n_dp != flash_geom_dies(g) * g->planes_per_die || bbm->blocks != g->blocks_per_plane)
        return err_set(e, -EINVAL,
                       "ftl stream '%s': the bad-block manager was built for another "
                       "geometry (%u planes x %u blocks); accepted one built for this FMS",
                       c->name, bbm->n_dp, bbm->blocks);

    s = calloc(1, sizeof(*s));
    if (!s)
        return err_set(e, -ENOMEM, "ftl stream '%s': out of memory", c->name);
    s->cfg = *c;
    s->cfg.name[FTL_NAME_LEN - 1] = '\0';
    s->cfg.n_lblocks = nl;
    s->fms = fms;
    s->bbm = bbm;
    s->planes = g->planes_per_die;
    s->dies = flash_geom_dies(g);
    s->page_bytes = g->page_bytes;
    s->sbp = (uint64_t)s->dies * s->planes * g->pages_per_block;
    s->lpages = s->sbp * nl;
    s->payload = fc->sw.store_payload;
    s->lb = calloc(nl, sizeof(*s->lb));
    s->pb = calloc(c->n_blocks, sizeof(*s->pb));
    if (!s->lb || !s->pb) {
        rc = err_set(e, -ENOMEM, "ftl stream '%s': out of memory", c->name);
        goto out_free;
    }
    for (uint32_t i = 0; i < nl; i++)
        s->lb[i].pbn = -1;
    scan_bad(s);
    *out = s;
    return 0;

out_free:
    ftl_stream_destroy(s);
    return rc;
}

void ftl_stream_destroy(struct ftl_stream *s)
{
    if (!s)
        return;
    free(s->lb);
    free(s->pb);
    free(s);
}

/* ------------------------------------------------------------------ fast path of long transfers
 *
 * The timing of stripes that repeat is flash_fms_run_*'s; here is the FTL's part of them: are
 * the pages where the page path would put them, on blocks in the state it needs, and what it
 * would have changed (mapping, write pointers, counters). */

static int read_check(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t npages,
                      struct err *e);

/* Units [ua, ub) of a superblock that fall on die d: the first one's page and how many (units
 * u with u % D == d, on pages u / D, one page apart). */
static uint32_t die_pages(const struct ftl_stream *s, uint64_t ua, uint64_t ub, uint32_t d,
                          uint32_t *first)
{
    uint64_t u = ua + (d + s->dies - ua % s->dies) % s->dies;

    if (u >= ub)
        return 0;
    *first = (uint32_t)(u / s->dies);
    return (uint32_t)((ub - 1 - u) / s->dies + 1);
}

/*
 * Offsets [oa, ob) (whole units) of superblock pbn. Check (apply false) that every block they
 * touch passes the page path's checks: for a write, good and with its write pointer at the first
 * page written (flash_die_program), for a read, programmed past the last page read
 * (flash_die_read). apply: move the write pointers past the pages written; a block whose first
 * page is among them dates its data from t.
 */
static bool span_blocks(struct ftl_stream *s, uint32_t pbn, uint64_t oa, uint64_t ob, bool write,
                        bool apply, uint64_t t)
{
    uint64_t ua = oa / s->planes, ub = ob / s->planes;
    uint32_t blk = s->cfg.first_block + pbn;

    for (uint32_t d = 0; d < s->dies; d++) {
        uint32_t first = 0, n = die_pages(s, ua, ub, d, &first);

        for (uint32_t p = 0; n && p < s->planes; p++) {
            uint32_t b = ftl_bbm_resolve(s->bbm, dp_of(s, d, p), blk);
            const struct flash_block *fb = flash_fms_block(s->fms, d, p, b);

            if (apply)
                flash_fms_set_wp(s->fms, d, p, b, first + n, t);
            else if (write ? fb->bad || fb->fail_program || fb->wp != first : first + n > fb->wp)
                return false;
        }
    }
    return true;
}

/* The end of the LB segment of [p, end): the LB's last page or end. */
static uint64_t seg_end(const struct ftl_stream *s, uint64_t p, uint64_t end)
{
    uint64_t lb_end = (p / s->sbp + 1) * s->sbp;

    return lb_end < end ? lb_end : end;
}

/*
 * A write's next n stripes of sp pages from LPN cur (at a unit boundary): how many of them the
 * page path would write with no erase (each LB opened takes a free PB, in rotation) and no error.
 * Those are written as the page path would write them: LBs mapped, write pointers, counters; the
 * caller skips their timing (flash_fms_run_skip). t: the end of the last operation before them,
 * the date of the data of the blocks they open (flash_fault's retention age).
 */
static uint64_t write_stripes(struct ftl_stream *s, uint64_t now, uint64_t cur, uint64_t n,
                              uint64_t sp, uint64_t t)
{
    uint64_t end = cur + n * sp, p = cur;
    uint32_t pos = s->cursor, scanned = 0;

    while (p < end) {
        uint64_t lb = p / s->sbp, se = seg_end(s, p, end);
        int64_t pbn = s->lb[lb].pbn;

        /* The PB alloc_pb would give the LB; one released but not erased ends the run here. */
        while (pbn < 0 && scanned < s->cfg.n_blocks && s->pb[pos] != PB_DIRTY) {
            if (s->pb[pos] == PB_FREE)
                pbn = pos;
            pos = (pos + 1) % s->cfg.n_blocks;
            scanned++;
        }
        if (pbn < 0 || !span_blocks(s, (uint32_t)pbn, p % s->sbp, se - lb * s->sbp, true, false, 0))
            break;
        p = se;
    }
    n = (p - cur) / sp;
    end = cur + n * sp;
    for (p = cur; p < end; p = seg_end(s, p, end)) {
        struct lblock *l = &s->lb[p / s->sbp];
        uint64_t se = seg_end(s, p, end);

        if (l->pbn < 0) {
            uint32_t pbn = 0;

            (void)alloc_pb(s, now, &pbn, NULL); /* a free PB, found above: no erase */
            l->pbn = pbn;
            l->t_write = now;
        }
        span_blocks(s, (uint32_t)l->pbn, p % s->sbp, se - p / s->sbp * s->sbp, true, true, t);
        l->wp += se - p;
    }
    s->lpages_written += n * sp;
    s->ppages += n * sp;
    return n;
}

uint64_t ftl_stream_read_stripes(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t n,
                                 uint64_t sp)
{
    uint64_t end = lpn + n * sp, p = lpn;

    while (p < end) {
        uint64_t lb = p / s->sbp, se = seg_end(s, p, end);

        if (read_check(s, now, p, se - p, NULL) ||
            !span_blocks(s, (uint32_t)s->lb[lb].pbn, p % s->sbp, se - lb * s->sbp, false, false, 0))
            break;
        p = se;
    }
    n = (p - lpn) / sp;
    s->pages_read += n * sp;
    return n;
}

/* ------------------------------------------------------------------ write */

/* After a program of op failed: true when it was a program failure (a block of the op turned
 * bad with the page programmed), not a die, channel or power fault (nothing programmed). */
static bool program_failed(const struct ftl_stream *s, const struct flash_mpop *op)
{
    bool bad = false;

    for (uint32_t p = 0; p < s->planes; p++) {
        const struct flash_block *b;

        if (!(op->plane_mask >> p & 1))
            continue;
        b = flash_fms_block(s->fms, op->die, p, op->block[p]);
        if (b->wp != op->page + 1)
            return false;
        bad |= b->bad;
    }
    return bad;
}

/*
 * Survive a failed program of page `page` of the stream's block blk in plane p of die d: the
 * block is retired and a spare of the plane takes its place, and what the failed block held
 * goes there, pages 0..page-1 read back from it (each through the ECC, as any read) and
 * programmed one by one, then page `page` from the controller's write buffer (data, NULL for
 * no payload). A spare that fails a program in turn is retired as well and the next one is
 * tried. The copies run one after the other from now; *end = when the last is programmed.
 * -ENOSPC naming the block when the plane has no spare left.
 */
static int remap_program(struct ftl_stream *s, uint64_t now, uint32_t d, uint32_t p, uint32_t blk,
                         uint32_t page, const void *data, uint64_t *end, struct err *e)
{
    const struct flash_cfg *c = flash_fms_cfg(s->fms);
    uint32_t dp = dp_of(s, d, p), from = ftl_bbm_resolve(s->bbm, dp, blk);
    unsigned char *buf = NULL;
    struct flash_addr src, dst;
    char why[64];
    int rc;

    if (s->payload && page && !(buf = malloc(s->page_bytes)))
        return err_set(e, -ENOMEM, "stream '%s': out of memory for a page copy", s->cfg.name);
    flash_addr_from_die_index(&c->geom, d, &src);
    src.plane = p;
    src.block = from;
    dst = src;
    snprintf(why, sizeof(why), "program of page %u failed", page);
    for (;;) {
        uint64_t t = now;

        rc = replace_block(s, d, p, blk, why, e);
        if (rc)
            break;
        s->prog_remaps++;
        dst.block = ftl_bbm_resolve(s->bbm, dp, blk);
        for (uint32_t i = 0; i <= page && !rc; i++) {
            src.page = dst.page = i;
            if (i < page) {
                rc = flash_fms_read_page(s->fms, t, &src, buf, &t, e);
                s->remap_pages++;
            }
            if (!rc)
                rc = flash_fms_program_page(s->fms, t, &dst, i < page ? buf : data, &t, e);
        }
        s->remap_ps += t - now;
        *end = res_later(*end, t);
        if (rc != -EIO || !flash_fms_block(s->fms, d, p, dst.block)->bad)
            break; /* done, or a failure that is not the spare's program */
        snprintf(why, sizeof(why), "program of page %u of its copy failed", dst.page);
    }
    free(buf);
    return rc;
}

/* A program of op (the unit at offset off of the LB mapped to pbn) failed on a plane: remap every
 * plane whose block failed (remap_program), from done, the failed program's end. */
static int survive_program(struct ftl_stream *s, const struct flash_mpop *op, uint32_t pbn,
                           const void *const *data, uint64_t *done, struct err *e)
{
    uint64_t t = *done;

    for (uint32_t p = 0; p < s->planes; p++) {
        int rc;

        if (!(op->plane_mask >> p & 1) || !flash_fms_block(s->fms, op->die, p, op->block[p])->bad)
            continue;
        rc = remap_program(s, *done, op->die, p, s->cfg.first_block + pbn, op->page,
                           data ? data[p] : NULL, &t, e);
        if (rc)
            return rc;
    }
    *done = t;
    return 0;
}

/* All checks of a write before anything happens: space, append points, free PBs. */
static int write_check(struct ftl_stream *s, uint64_t lpn, uint64_t npages, struct err *e)
{
    uint64_t first = lpn / s->sbp, last = (lpn + npages - 1) / s->sbp;
    uint32_t need = 0;

    for (uint64_t i = first; i <= last; i++) {
        const struct lblock *l = &s->lb[i];
        uint64_t start = i == first ? lpn % s->sbp : 0;

        if (l->pbn >= 0 && l->wp == s->sbp)
            return err_set(e, -EBUSY,
                           "stream '%s' write at LPN %llu: LB %llu holds live data (full "
                           "since its first write at %llu ps); release it before "
                           "rewriting",
                           s->cfg.name, (unsigned long long)lpn, (unsigned long long)i,
                           (unsigned long long)l->t_write);
        if (l->wp != start)
            return err_set(e, -EINVAL,
                           "stream '%s' write at LPN %llu refused: streams are "
                           "append-only; LB %llu takes its next page at LPN %llu",
                           s->cfg.name, (unsigned long long)(i * s->sbp + start),
                           (unsigned long long)i, (unsigned long long)(i * s->sbp + l->wp));
        if (l->pbn < 0)
            need++;
    }
    if (need > s->cfg.n_blocks - s->n_live - s->n_retired)
        return err_set(e, -ENOSPC,
                       "stream '%s' write at LPN %llu needs %u free physical blocks; "
                       "%u live and %u retired of %u leave %u; release consumed LBs "
                       "first",
                       s->cfg.name, (unsigned long long)lpn, need, s->n_live, s->n_retired,
                       s->cfg.n_blocks, s->cfg.n_blocks - s->n_live - s->n_retired);
    return 0;
}

int ftl_stream_write(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t npages,
                     const void *buf, uint64_t *done, struct err *e)
{
    const unsigned char *src = s->payload ? buf : NULL;
    const void *data[FLASH_MAX_PLANES] = {0};
    uint64_t left = npages, cur = lpn, end = now, t;
    struct flash_ctrl_cmds cmds;
    struct flash_fms_run run;
    struct flash_mpop op;
    int rc;

    *done = now;
    if (!npages)
        return 0;
    if (lpn >= s->lpages || npages > s->lpages - lpn)
        return err_set(e, -ENOSPC,
                       "stream '%s' overflow: write of %llu pages at LPN %llu ends past "
                       "the logical space of %llu pages (%u LBs of %llu pages); "
                       "accepted LPN + pages <= %llu",
                       s->cfg.name, (unsigned long long)npages, (unsigned long long)lpn,
                       (unsigned long long)s->lpages, s->cfg.n_lblocks, (unsigned long long)s->sbp,
                       (unsigned long long)s->lpages);
    rc = write_check(s, lpn, npages, e);
    if (rc)
        return rc;

    memset(&op, 0, sizeof(op));
    flash_ctrl_cmds_begin(&cmds, s->fms, now, true);
    flash_fms_run_begin(s->fms, &run, true, (s->planes - lpn % s->planes) % s->planes, !src);
    if (!s->written) {
        s->written = true;
        s->t_first_write = now;
    }
    while (left) {
        struct lblock *l = &s->lb[cur / s->sbp];
        uint64_t off = cur % s->sbp;
        uint32_t plane0 = (uint32_t)(off % s->planes);
        uint32_t n = s->planes - plane0;

        if (run.stripe && cur - lpn == run.next) {
            uint64_t k = flash_fms_run_at(s->fms, &run, left / run.stripe);

            if (k && (k = write_stripes(s, now, cur, k, run.stripe, run.t_max_prev)) != 0) {
                flash_fms_run_skip(s->fms, &run, k, &end);
                cmds.t_ready += k * run.t_cmds;
                cur += k * run.stripe;
                left -= k * run.stripe;
                continue;
            }
        }
        if (n > left)
            n = (uint32_t)left;
        if (l->pbn < 0) {
            uint32_t pbn = 0;

            rc = alloc_pb(s, now, &pbn, e);
            if (rc)
                return rc;
            l->pbn = pbn;
            l->t_write = now;
        }
        flash_ctrl_cmds_take(&cmds, n);

        unit_op(s, off, n, (uint32_t)l->pbn, &op);
        for (uint32_t q = 0; src && q < n; q++)
            data[plane0 + q] = src + (cur - lpn + q) * s->page_bytes;
        rc = flash_fms_program(s->fms, cmds.t_ready, &op, src ? data : NULL, &t, e);
        if (rc == -EIO && program_failed(s, &op))
            rc = survive_program(s, &op, (uint32_t)l->pbn, src ? data : NULL, &t, e);
        if (rc)
            return err_prefix(e, rc, "stream '%s' write at LPN %llu", s->cfg.name,
                              (unsigned long long)cur);
        end = res_later(end, t);
        flash_fms_run_note(&run, t);
        l->wp += n;
        cur += n;
        left -= n;
        s->lpages_written += n;
        s->ppages += n;
    }
    *done = end;
    return 0;
}

int ftl_stream_append(struct ftl_stream *s, uint64_t now, uint64_t npages, const void *buf,
                      uint64_t *lpn, uint64_t *done, struct err *e)
{
    int rc;

    if (s->append >= s->lpages)
        s->append = 0; /* circular log: wrap at the end of the logical space */
    rc = ftl_stream_write(s, now, s->append, npages, buf, done, e);
    if (rc)
        return rc;
    *lpn = s->append;
    s->append += npages;
    return 0;
}

void ftl_stream_rewind(struct ftl_stream *s)
{
    s->append = 0;
}

/* ------------------------------------------------------------------ read */

static int read_check(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t npages,
                      struct err *e)
{
    uint64_t first = lpn / s->sbp, last = (lpn + npages - 1) / s->sbp;

    for (uint64_t i = first; i <= last; i++) {
        const struct lblock *l = &s->lb[i];
        uint64_t end = i == last ? (lpn + npages - 1) % s->sbp + 1 : s->sbp;
        uint64_t age = now > l->t_write ? now - l->t_write : 0;

        if (l->pbn < 0)
            return err_set(e, -ENODATA,
                           "stream '%s' read of LPN %llu: LB %llu was never written (or "
                           "was released); accepted LPNs of written pages",
                           s->cfg.name, (unsigned long long)(lpn > i * s->sbp ? lpn : i * s->sbp),
                           (unsigned long long)i);
        if (l->wp < end)
            return err_set(e, -ENODATA,
                           "stream '%s' read of LPN %llu: never written; LB %llu holds "
                           "LPNs %llu..%lld",
                           s->cfg.name, (unsigned long long)(i * s->sbp + end - 1),
                           (unsigned long long)i, (unsigned long long)(i * s->sbp),
                           (long long)(i * s->sbp + l->wp) - 1);
        if (s->cfg.check_retention && s->cfg.retention_s < UINT64_MAX / FLASH_PS_PER_S &&
            age > s->cfg.retention_s * FLASH_PS_PER_S)
            return err_set(e, -ESTALE,
                           "stream '%s' read of LB %llu: data written %.0f s ago, past "
                           "the stream's retention of %llu s; accepted reads within "
                           "retention",
                           s->cfg.name, (unsigned long long)i, (double)age / FLASH_PS_PER_S,
                           (unsigned long long)s->cfg.retention_s);
    }
    return 0;
}

int ftl_stream_read(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t npages, void *buf,
                    uint64_t *done, struct err *e)
{
    unsigned char *dst = s->payload ? buf : NULL;
    void *data[FLASH_MAX_PLANES] = {0};
    uint64_t left = npages, cur = lpn, end = now, t;
    struct flash_ctrl_cmds cmds;
    struct flash_fms_run run;
    struct flash_mpop op;
    int rc;

    *done = now;
    if (!npages)
        return 0;
    if (lpn >= s->lpages || npages > s->lpages - lpn)
        return err_set(e, -EINVAL,
                       "stream '%s' read of %llu pages at LPN %llu ends past the "
                       "logical space of %llu pages; accepted LPN + pages <= %llu",
                       s->cfg.name, (unsigned long long)npages, (unsigned long long)lpn,
                       (unsigned long long)s->lpages, (unsigned long long)s->lpages);
    rc = read_check(s, now, lpn, npages, e);
    if (rc)
        return rc;

    memset(&op, 0, sizeof(op));
    flash_ctrl_cmds_begin(&cmds, s->fms, now, false);
    flash_fms_run_begin(s->fms, &run, false, (s->planes - lpn % s->planes) % s->planes, !dst);
    while (left) {
        const struct lblock *l = &s->lb[cur / s->sbp];
        uint64_t off = cur % s->sbp;
        uint32_t plane0 = (uint32_t)(off % s->planes);
        uint32_t n = s->planes - plane0;

        if (run.stripe && cur - lpn == run.next) {
            uint64_t k = flash_fms_run_at(s->fms, &run, left / run.stripe);

            if (k && (k = ftl_stream_read_stripes(s, now, cur, k, run.stripe)) != 0) {
                flash_fms_run_skip(s->fms, &run, k, &end);
                cmds.t_ready += k * run.t_cmds;
                cur += k * run.stripe;
                left -= k * run.stripe;
                continue;
            }
        }
        if (n > left)
            n = (uint32_t)left;
        flash_ctrl_cmds_take(&cmds, n);

        unit_op(s, off, n, (uint32_t)l->pbn, &op);
        for (uint32_t q = 0; dst && q < n; q++)
            data[plane0 + q] = dst + (cur - lpn + q) * s->page_bytes;
        rc = flash_fms_read(s->fms, cmds.t_ready, &op, dst ? data : NULL, &t, e);
        if (rc)
            return err_prefix(e, rc, "stream '%s' read at LPN %llu", s->cfg.name,
                              (unsigned long long)cur);
        end = res_later(end, t);
        flash_fms_run_note(&run, t);
        cur += n;
        left -= n;
        s->pages_read += n;
    }
    *done = end;
    return 0;
}

/* ------------------------------------------------------------------ release */

int ftl_stream_release(struct ftl_stream *s, uint64_t now, uint32_t lbn, uint32_t count,
                       uint64_t *done, struct err *e)
{
    uint64_t end = now, t;
    int rc = 0;

    *done = now;
    if ((uint64_t)lbn + count > s->cfg.n_lblocks)
        return err_set(e, -EINVAL,
                       "stream '%s' release of LBs %u..%llu: beyond the %u LBs of the "
                       "stream; accepted LBs 0..%u",
                       s->cfg.name, lbn, (unsigned long long)lbn + count - 1, s->cfg.n_lblocks,
                       s->cfg.n_lblocks - 1);
    for (uint32_t i = lbn; i < lbn + count; i++)
        if (s->lb[i].pbn < 0)
            return err_set(e, -EINVAL,
                           "stream '%s' release of LB %u: not mapped (never written or "
                           "already released); accepted mapped LBs",
                           s->cfg.name, i);
    for (uint32_t i = lbn; i < lbn + count; i++) {
        struct lblock *l = &s->lb[i];
        uint32_t pbn = (uint32_t)l->pbn;
        int r;

        l->pbn = -1;
        l->wp = 0;
        s->pb[pbn] = PB_DIRTY;
        s->n_live--;
        if (!s->cfg.erase_on_release)
            continue;
        r = erase_sb(s, now, pbn, &t, rc ? NULL : e); /* the first failure's message */
        end = res_later(end, t);
        if (r && !rc)
            rc = r;
    }
    *done = end;
    return rc;
}

/* ------------------------------------------------------------------ queries */

int ftl_stream_lookup(const struct ftl_stream *s, uint32_t lbn, uint32_t *pbn)
{
    if (lbn >= s->cfg.n_lblocks)
        return -EINVAL;
    if (s->lb[lbn].pbn < 0)
        return -ENOENT;
    *pbn = (uint32_t)s->lb[lbn].pbn;
    return 0;
}

void ftl_stream_ppa(const struct ftl_stream *s, uint64_t lpn, uint32_t pbn, struct ftl_ppa *a)
{
    uint64_t off = lpn % s->sbp;
    struct flash_mpop op;

    unit_op(s, off, 1, pbn, &op);
    a->die = op.die;
    a->plane = (uint32_t)(off % s->planes);
    a->block = op.block[a->plane];
    a->page = op.page;
}

int ftl_stream_lookup_unit(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t max,
                           struct flash_mpop *op, uint32_t *n, struct err *e)
{
    uint64_t off = lpn % s->sbp;
    uint32_t plane0 = (uint32_t)(off % s->planes), k = s->planes - plane0;
    int rc;

    if (lpn >= s->lpages || !max)
        return err_set(e, -EINVAL,
                       "stream '%s' lookup of %llu pages at LPN %llu: outside the logical "
                       "space of %llu pages; accepted LPN < %llu and at least one page",
                       s->cfg.name, (unsigned long long)max, (unsigned long long)lpn,
                       (unsigned long long)s->lpages, (unsigned long long)s->lpages);
    if (k > max)
        k = (uint32_t)max;
    rc = read_check(s, now, lpn, k, e);
    if (rc)
        return rc;
    memset(op, 0, sizeof(*op));
    unit_op(s, off, k, (uint32_t)s->lb[lpn / s->sbp].pbn, op);
    s->pages_read += k;
    *n = k;
    return 0;
}

static const char *ppa_str(const struct ftl_ppa *a, char *buf, size_t len)
{
    snprintf(buf, len, "die %u plane %u block %u page %u", a->die, a->plane, a->block, a->page);
    return buf;
}

int ftl_stream_adopt_page(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint32_t pbn,
                          const struct ftl_ppa *a, struct err *e)
{
    static const char *const state[] = {"free", "live", "released but not erased", "retired"};
    struct lblock *l;
    struct ftl_ppa want;
    uint64_t off;
    char b1[80], b2[80];

    if (lpn >= s->lpages)
        return err_set(e, -EINVAL,
                       "stream '%s' hardware page at LPN %llu: outside the logical space "
                       "of %llu pages; accepted LPN < %llu",
                       s->cfg.name, (unsigned long long)lpn, (unsigned long long)s->lpages,
                       (unsigned long long)s->lpages);
    if (pbn >= s->cfg.n_blocks)
        return err_set(e, -EINVAL,
                       "stream '%s' hardware page at LPN %llu: PB %u out of range; "
                       "accepted 0..%u",
                       s->cfg.name, (unsigned long long)lpn, pbn, s->cfg.n_blocks - 1);
    l = &s->lb[lpn / s->sbp];
    off = lpn % s->sbp;
    if (l->pbn >= 0 && l->wp == s->sbp)
        return err_set(e, -EBUSY,
                       "stream '%s' hardware page at LPN %llu: LB %llu holds live data; "
                       "release it before rewriting",
                       s->cfg.name, (unsigned long long)lpn, (unsigned long long)(lpn / s->sbp));
    if (l->wp != off)
        return err_set(e, -EINVAL,
                       "stream '%s' hardware page at LPN %llu refused: streams are "
                       "append-only; LB %llu takes its next page at LPN %llu",
                       s->cfg.name, (unsigned long long)lpn, (unsigned long long)(lpn / s->sbp),
                       (unsigned long long)(lpn - off + l->wp));
    if (l->pbn < 0 && s->pb[pbn] != PB_FREE)
        return err_set(e, -EINVAL,
                       "stream '%s' hardware page at LPN %llu opens LB %llu in PB %u, "
                       "which is %s; accepted a free (erased) PB",
                       s->cfg.name, (unsigned long long)lpn, (unsigned long long)(lpn / s->sbp),
                       pbn, state[s->pb[pbn]]);
    if (l->pbn >= 0 && (uint32_t)l->pbn != pbn)
        return err_set(e, -EINVAL,
                       "stream '%s' hardware page at LPN %llu in PB %u, but LB %llu is "
                       "mapped to PB %lld",
                       s->cfg.name, (unsigned long long)lpn, pbn,
                       (unsigned long long)(lpn / s->sbp), (long long)l->pbn);
    ftl_stream_ppa(s, lpn, pbn, &want);
    if (memcmp(&want, a, sizeof(want)))
        return err_set(e, -EINVAL,
                       "stream '%s' hardware page at LPN %llu (PB %u) was programmed at "
                       "%s; the layout and spare remap put it at %s",
                       s->cfg.name, (unsigned long long)lpn, pbn, ppa_str(a, b1, sizeof(b1)),
                       ppa_str(&want, b2, sizeof(b2)));
    if (l->pbn < 0) {
        s->pb[pbn] = PB_LIVE;
        s->n_live++;
        s->cursor = (pbn + 1) % s->cfg.n_blocks;
        l->pbn = pbn;
        l->t_write = now;
    }
    if (!s->written) {
        s->written = true;
        s->t_first_write = now;
    }
    l->wp++;
    s->lpages_written++;
    s->ppages++;
    return 0;
}

bool ftl_stream_pb_free(const struct ftl_stream *s, uint32_t pbn)
{
    return pbn < s->cfg.n_blocks && s->pb[pbn] == PB_FREE;
}

const struct ftl_stream_cfg *ftl_stream_get_cfg(const struct ftl_stream *s)
{
    return &s->cfg;
}

uint64_t ftl_stream_sb_pages(const struct ftl_stream *s)
{
    return s->sbp;
}

uint64_t ftl_stream_lpages(const struct ftl_stream *s)
{
    return s->lpages;
}

void ftl_stream_stats(const struct ftl_stream *s, uint64_t now, struct ftl_stream_stats *st)
{
    double sum = 0.0, cap_bytes, n = 0.0;

    memset(st, 0, sizeof(*st));
    memcpy(st->name, s->cfg.name, sizeof(st->name));
    st->lpages_written = s->lpages_written;
    st->ppages_programmed = s->ppages;
    st->pages_read = s->pages_read;
    st->sb_erases = s->sb_erases;
    st->blocks_replaced = s->replaced;
    st->program_remaps = s->prog_remaps;
    st->remap_pages = s->remap_pages;
    st->remap_ps = s->remap_ps;
    st->sb_total = s->cfg.n_blocks;
    st->sb_live = s->n_live;
    st->sb_retired = s->n_retired;
    st->waf = s->lpages_written ? (double)s->ppages / (double)s->lpages_written : 0.0;
    st->pe_budget = s->cfg.pe_budget;
    st->pe_min = UINT32_MAX;
    for (uint32_t pbn = 0; pbn < s->cfg.n_blocks; pbn++) {
        uint32_t blk = s->cfg.first_block + pbn;

        for (uint32_t d = 0; d < s->dies; d++) {
            for (uint32_t p = 0; p < s->planes; p++) {
                const struct flash_block *b =
                    flash_fms_block(s->fms, d, p, ftl_bbm_resolve(s->bbm, dp_of(s, d, p), blk));
                uint32_t pe = b->pe;

                if (pe < st->pe_min)
                    st->pe_min = pe;
                if (pe > st->pe_max)
                    st->pe_max = pe;
                sum += pe;
                n += 1.0;
            }
        }
    }
    st->pe_mean = n > 0.0 ? sum / n : 0.0;
    st->pe_used = (double)st->pe_max / st->pe_budget;
    st->retention_s = s->cfg.retention_s;
    st->elapsed_s = s->written && now > s->t_first_write
                        ? (double)(now - s->t_first_write) / FLASH_PS_PER_S
                        : 0.0;
    st->write_bps =
        st->elapsed_s > 0.0 ? (double)s->lpages_written * s->page_bytes / st->elapsed_s : 0.0;
    /* Every write lands on the stream's blocks, spread evenly by the round-robin allocator:
     * P/E per block per second = bytes programmed per second / bytes of the stream. */
    cap_bytes = (double)s->cfg.n_blocks * s->sbp * s->page_bytes;
    st->pe_per_year = st->write_bps * st->waf / cap_bytes * (double)FTL_SEC_PER_YEAR;
    st->lifetime_years = st->pe_per_year > 0.0 ? st->pe_budget / st->pe_per_year : INFINITY;
}

void ftl_stream_stats_fprint(FILE *f, const struct ftl_stream_stats *st)
{
    const char *n = st->name;

    fprintf(f, "stream.%s.lpages_written = %llu pages\n", n,
            (unsigned long long)st->lpages_written);
    fprintf(f, "stream.%s.ppages_programmed = %llu pages\n", n,
            (unsigned long long)st->ppages_programmed);
    fprintf(f, "stream.%s.pages_read = %llu pages\n", n, (unsigned long long)st->pages_read);
    fprintf(f, "stream.%s.sb_erases = %llu superblocks\n", n, (unsigned long long)st->sb_erases);
    fprintf(f, "stream.%s.blocks_replaced = %llu blocks\n", n,
            (unsigned long long)st->blocks_replaced);
    fprintf(f, "stream.%s.program_remaps = %llu blocks (%llu pages copied, %.3f ms)\n", n,
            (unsigned long long)st->program_remaps, (unsigned long long)st->remap_pages,
            (double)st->remap_ps / 1e9);
    fprintf(f, "stream.%s.sb_live = %u of %u superblocks (%u retired)\n", n, st->sb_live,
            st->sb_total, st->sb_retired);
    fprintf(f, "stream.%s.waf = %.3f\n", n, st->waf);
    fprintf(f, "stream.%s.pe = min %u mean %.2f max %u of budget %u cycles (%.6f%% used)\n", n,
            st->pe_min, st->pe_mean, st->pe_max, st->pe_budget, 100.0 * st->pe_used);
    fprintf(f, "stream.%s.write_rate = %.3f GB/s over %.6f s\n", n, st->write_bps / 1e9,
            st->elapsed_s);
    fprintf(f, "stream.%s.pe_per_year = %.1f cycles/year\n", n, st->pe_per_year);
    fprintf(f, "stream.%s.lifetime = %.2f years\n", n, st->lifetime_years);
    fprintf(f, "stream.%s.retention = %llu s\n", n, (unsigned long long)st->retention_s);
}
