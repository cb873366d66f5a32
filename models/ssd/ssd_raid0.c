#include "models/ssd/ssd_raid0.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ssd_raid0 {
    uint32_t n, stripe_pages, page_bytes;
    uint64_t user_pages;
    struct ssd **dev;
};

int ssd_raid0_create(const struct ssd_cfg *cfg, struct ssd_raid0 **out, struct err *e)
{
    struct ssd_raid0 *r;
    int rc;

    *out = NULL;
    rc = ssd_cfg_validate(cfg, e);
    if (rc)
        return rc;
    r = calloc(1, sizeof(*r));
    if (r)
        r->dev = calloc(cfg->raid_ssds, sizeof(*r->dev));
    if (!r || !r->dev) {
        free(r);
        return err_set(e, -ENOMEM, "ssd raid0: out of memory");
    }
    r->n = cfg->raid_ssds;
    r->page_bytes = cfg->nand.geom.page_bytes;
    r->stripe_pages = cfg->raid_stripe_bytes / r->page_bytes;
    for (uint32_t i = 0; i < r->n; i++) {
        rc = ssd_create(cfg, &r->dev[i], e);
        if (rc) {
            ssd_raid0_destroy(r);
            return err_prefix(e, rc, "ssd raid0 member %u", i);
        }
    }
    r->user_pages = ssd_user_pages(r->dev[0]) / r->stripe_pages * r->stripe_pages * r->n;
    if (!r->user_pages) {
        rc = err_set(e, -EINVAL,
                     "ssd raid0: raid_stripe_bytes = %u is more than a member holds; "
                     "accepted at most %llu",
                     cfg->raid_stripe_bytes,
                     (unsigned long long)ssd_user_pages(r->dev[0]) * r->page_bytes);
        ssd_raid0_destroy(r);
        return rc;
    }
    *out = r;
    return 0;
}

void ssd_raid0_destroy(struct ssd_raid0 *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n; i++)
        ssd_destroy(r->dev[i]);
    free(r->dev);
    free(r);
}

uint32_t ssd_raid0_members(const struct ssd_raid0 *r)
{
    return r->n;
}

struct ssd *ssd_raid0_member(struct ssd_raid0 *r, uint32_t i)
{
    return i < r->n ? r->dev[i] : NULL;
}

uint64_t ssd_raid0_user_pages(const struct ssd_raid0 *r)
{
    return r->user_pages;
}

typedef int (*piece_fn)(struct ssd *s, uint64_t t, uint64_t lpn, uint32_t npages, void *buf,
                        uint64_t *done, struct err *e);

static int write_piece(struct ssd *s, uint64_t t, uint64_t lpn, uint32_t npages, void *buf,
                       uint64_t *done, struct err *e)
{
    return ssd_write(s, t, lpn, npages, buf, done, e);
}

/* Split [lpn, lpn + npages) at stripe unit boundaries and give each piece to its member. */
static int split(struct ssd_raid0 *r, piece_fn fn, const char *op, uint64_t t, uint64_t lpn,
                 uint32_t npages, unsigned char *buf, uint64_t *done, struct err *e)
{
    uint64_t end = t;

    if (!npages || lpn >= r->user_pages || npages > r->user_pages - lpn)
        return err_set(e, -EINVAL,
                       "ssd raid0 %s refused: pages %llu..+%u; accepted 1 or more pages "
                       "within 0..%llu",
                       op, (unsigned long long)lpn, npages, (unsigned long long)r->user_pages - 1);
    for (uint32_t p = 0; p < npages;) {
        uint64_t su = (lpn + p) / r->stripe_pages, in = (lpn + p) % r->stripe_pages, d;
        uint32_t n = (uint32_t)(r->stripe_pages - in), m = (uint32_t)(su % r->n);
        int rc;

        if (n > npages - p)
            n = npages - p;
        rc = fn(r->dev[m], t, su / r->n * r->stripe_pages + in, n,
                buf ? buf + (size_t)p * r->page_bytes : NULL, &d, e);
        if (rc)
            return err_prefix(e, rc, "ssd raid0 member %u", m);
        end = end > d ? end : d;
        p += n;
    }
    *done = end;
    return 0;
}

/*
 * A write without payload goes to each member as one run of its stripe units
 * (ssd_write_chunks): the members share nothing, so each one's pieces may go one after the other
 * rather than in turn with the others', and a member's pieces are consecutive pages of it, whole
 * stripe units but for the first and the last. A long run can then take the SSD's fast path.
 */
static int write_runs(struct ssd_raid0 *r, uint64_t t, uint64_t lpn, uint32_t npages,
                      uint64_t *done, struct err *e)
{
    uint64_t end = t, su0 = lpn / r->stripe_pages;
    uint32_t members = npages / r->stripe_pages + 2 < r->n ? npages / r->stripe_pages + 2 : r->n;

    /* The pieces of member (su0 + i) % n: the stripe units su0 + i, su0 + i + n, ... */
    for (uint32_t i = 0; i < members; i++) {
        uint64_t su = su0 + i, from = su * r->stripe_pages, first, pages = 0, d;
        uint32_t m = (uint32_t)(su % r->n);
        int rc;

        if (from < lpn)
            from = lpn;
        if (from >= lpn + npages)
            break;
        first = su / r->n * r->stripe_pages + from % r->stripe_pages;
        /* Its stripe units' pages within the request. */
        for (uint64_t u = su; u * r->stripe_pages < lpn + npages; u += r->n) {
            uint64_t a = u * r->stripe_pages > lpn ? u * r->stripe_pages : lpn;
            uint64_t b =
                (u + 1) * r->stripe_pages < lpn + npages ? (u + 1) * r->stripe_pages : lpn + npages;

            pages += b - a;
        }
        rc = ssd_write_chunks(r->dev[m], t, first, pages, r->stripe_pages, NULL, &d, e);
        if (rc)
            return err_prefix(e, rc, "ssd raid0 member %u", m);
        end = end > d ? end : d;
    }
    *done = end;
    return 0;
}

int ssd_raid0_write(struct ssd_raid0 *r, uint64_t t, uint64_t lpn, uint32_t npages,
                    const void *data, uint64_t *done, struct err *e)
{
    if (!data && npages && lpn < r->user_pages && npages <= r->user_pages - lpn)
        return write_runs(r, t, lpn, npages, done, e);
    /* The write path only reads the buffer; split() passes it along as it is. */
    return split(r, write_piece, "write", t, lpn, npages, (unsigned char *)(uintptr_t)data, done,
                 e);
}

int ssd_raid0_read(struct ssd_raid0 *r, uint64_t t, uint64_t lpn, uint32_t npages, void *buf,
                   uint64_t *done, struct err *e)
{
    return split(r, ssd_read, "read", t, lpn, npages, buf, done, e);
}

int ssd_raid0_flush(struct ssd_raid0 *r, uint64_t t, uint64_t *done, struct err *e)
{
    *done = t;
    for (uint32_t i = 0; i < r->n; i++) {
        uint64_t d;
        int rc = ssd_flush(r->dev[i], t, &d, e);

        if (rc)
            return err_prefix(e, rc, "ssd raid0 member %u", i);
        *done = *done > d ? *done : d;
    }
    return 0;
}

void ssd_raid0_stats(const struct ssd_raid0 *r, struct ssd_stats *st)
{
    memset(st, 0, sizeof(*st));
    for (uint32_t i = 0; i < r->n; i++) {
        struct ssd_stats x;

        ssd_stats(r->dev[i], &x);
        ssd_stats_add(st, &x);
    }
}

int ssd_raid0_precondition(struct ssd_raid0 *r, uint64_t t, const struct ssd_precond *p,
                           struct ssd_precond_result *res, struct err *e)
{
    struct ssd_precond_result one, all = {.steady = true};

    for (uint32_t i = 0; i < r->n; i++) {
        struct ssd_precond q = *p;
        int rc;

        q.seed = p->seed + i;
        rc = ssd_precondition(r->dev[i], t, &q, &one, e);
        if (rc)
            return err_prefix(e, rc, "ssd raid0 member %u", i);
        all.fill_pages += one.fill_pages;
        all.rand_pages += one.rand_pages;
        all.windows = one.windows > all.windows ? one.windows : all.windows;
        all.wa_prev = one.wa_prev;
        all.wa_last = one.wa_last;
        all.steady = all.steady && one.steady;
        all.t_end = one.t_end > all.t_end ? one.t_end : all.t_end;
    }
    *res = all;
    return 0;
}
