/*
 * slog.c - a circular log of records on a flash stream; see slog.h.
 */
#include "models/node/slog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int slog_init(struct slog *l, struct ftl_stream *s, uint32_t page_bytes, struct err *e)
{
    memset(l, 0, sizeof(*l));
    l->s = s;
    l->sbp = ftl_stream_sb_pages(s);
    l->lpages = ftl_stream_lpages(s);
    l->n_lb = (uint32_t)(l->lpages / l->sbp);
    l->page_bytes = page_bytes;
    l->live = calloc(l->n_lb, sizeof(*l->live));
    l->mapped = calloc(l->n_lb, sizeof(*l->mapped));
    if (!l->live || !l->mapped) {
        slog_fini(l);
        return err_set(e, -ENOMEM, "stream '%s': out of memory for its record log of %u LBs",
                       ftl_stream_get_cfg(s)->name, l->n_lb);
    }
    return 0;
}

void slog_fini(struct slog *l)
{
    free(l->live);
    free(l->mapped);
    l->live = NULL;
    l->mapped = NULL;
}

uint64_t slog_pages(const struct slog *l, uint64_t bytes)
{
    return (bytes + l->page_bytes - 1) / l->page_bytes;
}

/* LB lb is closed when the append point is not inside it. */
static bool closed(const struct slog *l, uint32_t lb)
{
    return !(l->append % l->sbp != 0 && l->append / l->sbp == lb);
}

static int release(struct slog *l, uint64_t now, uint32_t lb, uint64_t *done, struct err *e)
{
    uint64_t t = now;
    int rc;

    if (!l->mapped[lb] || l->live[lb] || !closed(l, lb))
        return 0;
    rc = ftl_stream_release(l->s, now, lb, 1, &t, e);
    l->mapped[lb] = false;
    l->released++;
    if (t > *done)
        *done = t;
    return rc;
}

int slog_append(struct slog *l, uint64_t now, const void *buf, uint64_t bytes, struct slog_ext *x,
                uint64_t *done, struct err *e)
{
    uint64_t pages = slog_pages(l, bytes ? bytes : 1), t = now;
    int rc;

    *done = now;
    if (pages > l->lpages)
        return err_set(e, -ENOSPC,
                       "stream '%s': a record of %" PRIu64
                       " pages is larger than the stream (%" PRIu64 " pages)",
                       ftl_stream_get_cfg(l->s)->name, pages, l->lpages);
    if (l->append + pages > l->lpages) { /* wrap: the tail of the last LB stays unused */
        uint32_t lb = (uint32_t)(l->append / l->sbp);
        l->append = 0;
        if (lb < l->n_lb && (rc = release(l, now, lb, &t, e)) != 0)
            return rc;
    }
    uint32_t first = (uint32_t)(l->append / l->sbp);
    uint32_t last = (uint32_t)((l->append + pages - 1) / l->sbp);
    for (uint32_t lb = first; lb <= last; lb++) {
        bool starts_here = lb > first || l->append % l->sbp == 0;
        if (starts_here && l->mapped[lb])
            return err_set(e, -ENOSPC,
                           "stream '%s' is full: logical block %u still holds %" PRIu64
                           " pages of unconsumed records (%" PRIu64
                           " pages live in all); consume them or give the stream more blocks",
                           ftl_stream_get_cfg(l->s)->name, lb, l->live[lb], l->live_pages);
    }
    rc = ftl_stream_write(l->s, now, l->append, pages, buf, done, e);
    if (rc)
        return rc;
    x->lpn = l->append;
    x->pages = pages;
    x->bytes = bytes;
    for (uint64_t p = l->append; p < l->append + pages;) {
        uint32_t lb = (uint32_t)(p / l->sbp);
        uint64_t n = (uint64_t)(lb + 1) * l->sbp - p;
        if (n > l->append + pages - p)
            n = l->append + pages - p;
        l->live[lb] += n;
        l->mapped[lb] = true;
        p += n;
    }
    l->live_pages += pages;
    l->append += pages;
    if (l->append >= l->lpages)
        l->append = 0;
    /* LBs the append point left behind may be empty already (records freed early) */
    for (uint32_t lb = first; lb <= last; lb++)
        if ((rc = release(l, now, lb, &t, e)) != 0)
            return rc;
    return 0;
}

int slog_free(struct slog *l, uint64_t now, const struct slog_ext *x, uint64_t *done, struct err *e)
{
    int rc;

    *done = now;
    for (uint64_t p = x->lpn; p < x->lpn + x->pages;) {
        uint32_t lb = (uint32_t)(p / l->sbp);
        uint64_t n = (uint64_t)(lb + 1) * l->sbp - p;
        if (n > x->lpn + x->pages - p)
            n = x->lpn + x->pages - p;
        if (l->live[lb] < n)
            return err_set(e, -EINVAL,
                           "stream '%s': freeing %" PRIu64 " pages of LB %u that has %" PRIu64
                           " live (a record freed twice?)",
                           ftl_stream_get_cfg(l->s)->name, n, lb, l->live[lb]);
        l->live[lb] -= n;
        l->live_pages -= n;
        if ((rc = release(l, now, lb, done, e)) != 0)
            return rc;
        p += n;
    }
    return 0;
}

int slog_align(struct slog *l, uint64_t now, uint64_t *done, struct err *e)
{
    *done = now;
    if (l->append % l->sbp == 0)
        return 0;
    uint32_t lb = (uint32_t)(l->append / l->sbp);
    l->append = (uint64_t)(lb + 1) * l->sbp;
    if (l->append >= l->lpages)
        l->append = 0;
    return release(l, now, lb, done, e);
}
