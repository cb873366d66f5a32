/*
 * ftl_stream_rw.c - the stream FTL's writes and reads: the page path (controller commands,
 * multi-plane programs and reads, program failures survived by a remap to a spare), and the fast
 * path of long transfers; see ftl_stream.h.
 */
#include "models/flash/ftl_stream_priv.h"

#include "models/flash/flash_ctrl_cmds.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ fast path of long transfers
 *
 * The timing of stripes that repeat is flash_fms_run_*'s; here is the FTL's part of them: are
 * the pages where the page path would put them, on blocks in the state it needs, and what it
 * would have changed (mapping, write pointers, counters). */

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
            uint32_t b = ftl_bbm_resolve(s->bbm, ftl_stream_dp_of(s, d, p), blk);
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

            (void)ftl_stream_alloc_pb(s, now, &pbn, NULL); /* a free PB, found above: no erase */
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

        if (ftl_stream_read_check(s, now, p, se - p, NULL) ||
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
    uint32_t dp = ftl_stream_dp_of(s, d, p), from = ftl_bbm_resolve(s->bbm, dp, blk);
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

        rc = ftl_stream_replace_block(s, d, p, blk, why, e);
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

            rc = ftl_stream_alloc_pb(s, now, &pbn, e);
            if (rc)
                return rc;
            l->pbn = pbn;
            l->t_write = now;
        }
        flash_ctrl_cmds_take(&cmds, n);

        ftl_stream_unit_op(s, off, n, (uint32_t)l->pbn, &op);
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

int ftl_stream_read_check(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t npages,
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
    rc = ftl_stream_read_check(s, now, lpn, npages, e);
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

        ftl_stream_unit_op(s, off, n, (uint32_t)l->pbn, &op);
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
