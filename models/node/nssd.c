/*
 * nssd.c - a node's storage on a RAID 0 of SSDs; see nssd.h.
 */
#include "models/node/nssd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ ranges */

/* Pages of the array of the (coarse) drive c: its members' user pages in whole stripe units. */
static uint64_t array_pages(const struct ssd_cfg *c)
{
    uint64_t su = c->raid_stripe_bytes / c->nand.geom.page_bytes;
    struct ssd_geom g;

    ssd_cfg_geom(c, &g);
    return g.user_pages / su * su * c->raid_ssds;
}

/* Stream `name`'s range among the listed regions of l on the array of c: its share of the
 * array's pages in whole stripes, after those listed before it. 0 pages: not listed, or no
 * whole stripe. */
static void range_of(const struct ssd_cfg *c, const struct ftl_layout *l, const char *const *names,
                     uint32_t n, const char *name, uint64_t *first, uint64_t *pages)
{
    uint64_t stripe = (uint64_t)c->raid_stripe_bytes / c->nand.geom.page_bytes * c->raid_ssds;
    uint64_t total = 0, user = array_pages(c);

    *first = *pages = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct ftl_region *r = ftl_layout_find(l, names[i]);

        total += r ? r->count : 0;
    }
    for (uint32_t i = 0; i < n && total; i++) {
        const struct ftl_region *r = ftl_layout_find(l, names[i]);
        uint64_t share = r ? user / stripe * r->count / total * stripe : 0;

        if (!strcmp(names[i], name)) {
            *pages = share;
            return;
        }
        *first += share;
    }
}

/* Each listed region's range (range_of), in order. */
static int lay_out(struct nssd *f, const struct ssd_cfg *c, const struct ftl_layout *l,
                   const char *const *names, uint32_t n, struct err *e)
{
    for (uint32_t i = 0; i < n; i++) {
        struct nssd_stream *s = &f->s[i];

        if (!ftl_layout_find(l, names[i]))
            return err_set(e, -EINVAL, "%s ssd: the layout %s has no stream '%s'", f->node, l->node,
                           names[i]);
        range_of(c, l, names, n, names[i], &s->first, &s->pages);
        if (!s->pages)
            return err_set(e, -EINVAL,
                           "%s ssd: stream '%s' gets no whole stripe of the array (%" PRIu64
                           " pages of %u B); accepted a larger array",
                           f->node, names[i], array_pages(c), f->page_bytes);
        s->name = names[i];
        f->n = i + 1;
    }
    return 0;
}

void nssd_stream_size(const struct ssd_cfg *drive, uint32_t grain, const struct ftl_layout *l,
                      const char *const *names, uint32_t n, const char *name, uint64_t *bytes,
                      uint64_t *page_bytes)
{
    struct ssd_cfg c;
    uint64_t first, pages;

    *bytes = *page_bytes = 0;
    if (ssd_cfg_coarse(drive, grain, &c, NULL) || ssd_cfg_validate(&c, NULL))
        return;
    range_of(&c, l, names, n, name, &first, &pages);
    *page_bytes = c.nand.geom.page_bytes;
    *bytes = pages * *page_bytes;
}

int nssd_init(struct nssd *f, const char *node, const struct ssd_cfg *drive, uint32_t grain,
              const struct ftl_layout *l, const char *const *names, uint32_t n, struct err *e)
{
    struct ssd_cfg c;
    int rc;

    memset(f, 0, sizeof(*f));
    snprintf(f->node, sizeof(f->node), "%s", node);
    if (n > NSSD_MAX_STREAMS)
        return err_set(e, -EINVAL, "%s ssd: %u streams; accepted at most %d", node, n,
                       NSSD_MAX_STREAMS);
    rc = ssd_cfg_coarse(drive, grain, &c, e);
    if (rc)
        return err_prefix(e, rc, "%s", node);
    c.nand.sw.store_payload = false;
    rc = ssd_raid0_create(&c, &f->raid, e);
    if (rc)
        return err_prefix(e, rc, "%s", node);
    f->grain = grain;
    f->page_bytes = c.nand.geom.page_bytes;
    rc = lay_out(f, &c, l, names, n, e);
    if (rc)
        nssd_fini(f);
    return rc;
}

void nssd_fini(struct nssd *f)
{
    for (uint32_t i = 0; i < f->n; i++)
        free(f->s[i].q);
    ssd_raid0_destroy(f->raid);
    memset(f, 0, sizeof(*f));
}

int nssd_stream(const struct nssd *f, const char *name)
{
    for (uint32_t i = 0; i < f->n; i++)
        if (strcmp(f->s[i].name, name) == 0)
            return (int)i;
    return -1;
}

uint32_t nssd_page_bytes(const struct nssd *f)
{
    return f->page_bytes;
}

/* ------------------------------------------------------------------ the log */

static struct nssd_rec *rec_at(struct nssd_stream *s, size_t k)
{
    return &s->q[(s->head + k) % s->cap];
}

/* Room for one more descriptor. */
static int grow(struct nssd *f, struct nssd_stream *s, struct err *e)
{
    size_t cap = s->cap ? 2 * s->cap : 64;
    struct nssd_rec *q;

    if (s->n < s->cap)
        return 0;
    q = malloc(cap * sizeof(*q));
    if (!q)
        return err_set(e, -ENOMEM, "%s ssd stream '%s': out of memory for %zu records", f->node,
                       s->name, cap);
    for (size_t k = 0; k < s->n; k++)
        q[k] = *rec_at(s, k);
    free(s->q);
    s->q = q;
    s->cap = cap;
    s->head = 0;
    return 0;
}

/* The pages [off, off + pages) of stream s as at most two runs of the array: to the range's
 * end, then from its start. */
typedef int (*xfer_fn)(struct ssd_raid0 *r, uint64_t t, uint64_t lpn, uint32_t npages, void *buf,
                       uint64_t *done, struct err *e);

static int write_fn(struct ssd_raid0 *r, uint64_t t, uint64_t lpn, uint32_t npages, void *buf,
                    uint64_t *done, struct err *e)
{
    return ssd_raid0_write(r, t, lpn, npages, buf, done, e);
}

static int xfer(struct nssd *f, const struct nssd_stream *s, xfer_fn fn, uint64_t now, uint64_t off,
                uint64_t pages, uint64_t *done, struct err *e)
{
    *done = now;
    while (pages) {
        uint64_t run = s->pages - off < pages ? s->pages - off : pages, d;
        int rc;

        if (run > UINT32_MAX / 2)
            run = UINT32_MAX / 2;
        rc = fn(f->raid, now, s->first + off, (uint32_t)run, NULL, &d, e);
        if (rc)
            return err_prefix(e, rc, "%s ssd stream '%s'", f->node, s->name);
        *done = *done > d ? *done : d;
        off = (off + run) % s->pages;
        pages -= run;
    }
    return 0;
}

int nssd_write(struct nssd *f, uint32_t i, uint64_t now, uint64_t bytes, struct slog_ext *x,
               uint64_t *done, struct err *e)
{
    struct nssd_stream *s = &f->s[i];
    uint64_t pages = (bytes + f->page_bytes - 1) / f->page_bytes;
    int rc;

    if (pages > s->pages - s->used)
        return err_set(e, -ENOSPC,
                       "%s ssd stream '%s' is full: a record of %" PRIu64 " bytes needs %" PRIu64
                       " pages of %u B, %" PRIu64 " of the stream's %" PRIu64 " are free (%" PRIu64
                       " held by live records; a freed record's pages "
                       "come free once every older record is freed)",
                       f->node, s->name, bytes, pages, f->page_bytes, s->pages - s->used, s->pages,
                       s->live_pages);
    if ((rc = grow(f, s, e)) || (rc = xfer(f, s, write_fn, now, s->append, pages, done, e)))
        return rc;
    *rec_at(s, s->n++) = (struct nssd_rec){.off = s->append, .pages = pages, .live = true};
    *x = (struct slog_ext){.lpn = s->append, .pages = pages, .bytes = bytes, .data = NULL};
    s->append = (s->append + pages) % s->pages;
    s->used += pages;
    s->live_pages += pages;
    s->pages_written += pages;
    return 0;
}

int nssd_read(struct nssd *f, uint32_t i, uint64_t now, const struct slog_ext *x, uint64_t *done,
              struct err *e)
{
    struct nssd_stream *s = &f->s[i];
    int rc = xfer(f, s, ssd_raid0_read, now, x->lpn, x->pages, done, e);

    if (!rc)
        s->pages_read += x->pages;
    return rc;
}

int nssd_free(struct nssd *f, uint32_t i, const struct slog_ext *x, struct err *e)
{
    struct nssd_stream *s = &f->s[i];
    size_t k = 0;

    while (k < s->n &&
           !(rec_at(s, k)->live && rec_at(s, k)->off == x->lpn && rec_at(s, k)->pages == x->pages))
        k++;
    if (k == s->n)
        return err_set(e, -EINVAL,
                       "%s ssd stream '%s': no live record at page %" PRIu64 " of %" PRIu64
                       " pages to free (freed twice, or another stream's)",
                       f->node, s->name, x->lpn, x->pages);
    rec_at(s, k)->live = false;
    s->live_pages -= x->pages;
    /* The oldest records, once freed, give their pages back to the log. */
    while (s->n && !rec_at(s, 0)->live) {
        s->used -= rec_at(s, 0)->pages;
        s->head = (s->head + 1) % s->cap;
        s->n--;
    }
    return 0;
}

/* ------------------------------------------------------------------ counters */

/* The highest erase count of any block of the members. A unit is erased whole (one block in
 * every plane of its die), so plane 0 tells. */
static uint64_t pe_max_of(const struct nssd *f)
{
    uint64_t pe = 0;

    for (uint32_t m = 0; m < ssd_raid0_members(f->raid); m++) {
        const struct ssd *d = ssd_raid0_member(f->raid, m);
        const struct ssd_geom *g = ssd_get_geom(d);

        for (uint32_t die = 0; die < g->dies; die++)
            for (uint32_t b = 0; b < g->units_per_die; b++) {
                const struct flash_block *blk = flash_fms_block(ssd_get_fms(d), die, 0, b);

                pe = blk && blk->pe > pe ? blk->pe : pe;
            }
    }
    return pe;
}

void nssd_stats(const struct nssd *f, struct ssd_stats *st, uint64_t *pe_max)
{
    ssd_raid0_stats(f->raid, st);
    st->host_write_pages *= f->grain;
    st->host_read_pages *= f->grain;
    st->prog_pages *= f->grain;
    st->pad_pages *= f->grain;
    st->gc_pages *= f->grain;
    st->sram_read_pages *= f->grain;
    st->unmapped_read_pages *= f->grain;
    *pe_max = pe_max_of(f);
}
