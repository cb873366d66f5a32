/*
 * Preconditioning of an SSD (ssd.h): a sequential fill, then uniformly random single-page
 * overwrites until garbage collection reaches its steady state.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "csim/minheap.h"
#include "csim/rng.h"
#include "models/ssd/ssd.h"

static int fill(struct ssd *s, uint64_t *t, struct ssd_precond_result *r, struct err *e)
{
    uint64_t user = ssd_user_pages(s), step = ssd_get_geom(s)->cmd_pages;

    for (uint64_t lpn = 0; lpn < user; lpn += step) {
        uint32_t n = (uint32_t)(user - lpn < step ? user - lpn : step);
        int rc = ssd_write(s, *t, lpn, n, NULL, t, e);

        if (rc)
            return rc;
        r->fill_pages += n;
    }
    return 0;
}

/* One window of random overwrites, q in flight (f) from *t (left at the latest issue);
 * *wa = its write amplification, *gc = whether GC ran. */
static int window(struct ssd *s, uint64_t n, uint64_t *rng, struct minheap *f, uint32_t q,
                  uint64_t *t, double *wa, bool *gc, struct err *e)
{
    struct ssd_stats a, b, d;
    uint64_t user = ssd_user_pages(s);

    ssd_stats(s, &a);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t done;

        if (f->n == q)
            *t = minheap_pop(f);
        int rc = ssd_write(s, *t, rng_below(rng, user), 1, NULL, &done, e);

        if (rc)
            return rc;
        minheap_push(f, done);
    }
    ssd_stats(s, &b);
    ssd_stats_sub(&d, &b, &a);
    *wa = ssd_stats_wa(&d);
    *gc = d.gc_victims > 0;
    return 0;
}

int ssd_precondition(struct ssd *s, uint64_t t, const struct ssd_precond *p,
                     struct ssd_precond_result *r, struct err *e)
{
    uint64_t rng = p->seed, n = p->window_pages ? p->window_pages : ssd_user_pages(s) / 4;
    double tol = p->tol > 0.0 ? p->tol : 0.01;
    uint32_t max = p->max_windows ? p->max_windows : 40;
    uint32_t q = p->iodepth ? p->iodepth : 1;
    struct minheap f = {0};
    bool gc_prev = false, gc;
    int rc;

    *r = (struct ssd_precond_result){0};
    if (n == 0)
        n = 1;
    f.v = malloc(q * sizeof(*f.v));
    if (!f.v)
        return err_set(e, -ENOMEM, "ssd precondition: out of memory for %u writes in flight", q);
    rc = fill(s, &t, r, e);
    while (!rc && r->windows < max && !r->steady) {
        r->wa_prev = r->wa_last;
        rc = window(s, n, &rng, &f, q, &t, &r->wa_last, &gc, e);
        r->rand_pages += n;
        r->windows++;
        r->steady = gc && gc_prev && fabs(r->wa_last - r->wa_prev) <= tol * r->wa_prev;
        gc_prev = gc;
    }
    while (f.n) /* the last completion */
        t = minheap_pop(&f);
    free(f.v);
    r->t_end = t;
    return rc;
}
