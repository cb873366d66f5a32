/*
 * ftl_stream.c - the stream FTL, its blocks: the LB -> PB mapping, round-robin allocation, erase
 * and the replacement of failed blocks from spares, create, release, lookups and the pages the
 * hardware pipeline wrote (ftl_stream_adopt_page); see ftl_stream.h (the writes and reads:
 * ftl_stream_rw.c; the statistics: ftl_stream_stats.c; what they share: ftl_stream_priv.h).
 */
#include "models/flash/ftl_stream_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

uint32_t ftl_stream_dp_of(const struct ftl_stream *s, uint32_t die, uint32_t plane)
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
int ftl_stream_replace_block(struct ftl_stream *s, uint32_t die, uint32_t p, uint32_t blk,
                             const char *why, struct err *e)
{
    const struct flash_cfg *c = flash_fms_cfg(s->fms);
    uint32_t dp = ftl_stream_dp_of(s, die, p);
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
void ftl_stream_unit_op(const struct ftl_stream *s, uint64_t off, uint32_t n, uint32_t pbn,
                        struct flash_mpop *op)
{
    uint64_t unit = off / s->planes;
    uint32_t plane0 = (uint32_t)(off % s->planes);
    uint32_t blk = s->cfg.first_block + pbn;

    op->die = (uint32_t)(unit % s->dies);
    op->page = (uint32_t)(unit / s->dies);
    op->plane_mask = (uint32_t)(((1ull << n) - 1) << plane0);
    for (uint32_t p = plane0; p < plane0 + n; p++)
        op->block[p] = ftl_bbm_resolve(s->bbm, ftl_stream_dp_of(s, op->die, p), blk);
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
            op.block[p] = ftl_bbm_resolve(s->bbm, ftl_stream_dp_of(s, d, p), blk);
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
            rc = ftl_stream_replace_block(s, d, p, blk, why, e);
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
int ftl_stream_alloc_pb(struct ftl_stream *s, uint64_t now, uint32_t *pbn, struct err *e)
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
                uint32_t pb = ftl_bbm_resolve(s->bbm, ftl_stream_dp_of(s, d, p), blk);
                const struct flash_block *b = flash_fms_block(s->fms, d, p, pb);

                /* bad, or failed by wear-out in an injected age (flash_fault_worn_out) */
                if (!b->bad && !flash_fms_worn_out(s->fms, d, p, pb))
                    continue;
                if (ftl_stream_replace_block(s, d, p, blk, "bad at start", NULL)) {
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

    ftl_stream_unit_op(s, off, 1, pbn, &op);
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
    rc = ftl_stream_read_check(s, now, lpn, k, e);
    if (rc)
        return rc;
    memset(op, 0, sizeof(*op));
    ftl_stream_unit_op(s, off, k, (uint32_t)s->lb[lpn / s->sbp].pbn, op);
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
