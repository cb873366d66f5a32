/*
 * Preconditioning of an SSD (ssd.h): a sequential fill, then uniformly random single-page
 * overwrites until garbage collection reaches its steady state.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

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

/* The completion times of the writes in flight: a binary min-heap of at most q. */
struct flight {
    uint64_t *v;
    uint32_t n, q;
};

static void push(struct flight *f, uint64_t t)
{
    uint32_t i = f->n++;

    for (; i && f->v[(i - 1) / 2] > t; i = (i - 1) / 2)
        f->v[i] = f->v[(i - 1) / 2];
    f->v[i] = t;
}

static uint64_t pop(struct flight *f)
{
    uint64_t top = f->v[0], last = f->v[--f->n];
    uint32_t i = 0;

    for (;;) {
        uint32_t c = 2 * i + 1;

        if (c >= f->n)
            break;
        if (c + 1 < f->n && f->v[c + 1] < f->v[c])
            c++;
        if (f->v[c] >= last)
            break;
        f->v[i] = f->v[c];
        i = c;
    }
    if (f->n)
        f->v[i] = last;
    return top;
}

/* One window of random overwrites, f->q in flight from *t (left at the latest issue);
 * *wa = its write amplification, *gc = whether GC ran. */
static int window(struct ssd *s, uint64_t n, uint64_t *rng, struct flight *f, uint64_t *t,
                  double *wa, bool *gc, struct err *e)
{
    struct ssd_stats a, b, d;
    uint64_t user = ssd_user_pages(s);

    ssd_stats(s, &a);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t done;

        if (f->n == f->q)
            *t = pop(f);
        int rc = ssd_write(s, *t, rng_below(rng, user), 1, NULL, &done, e);

        if (rc)
            return rc;
        push(f, done);
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
    struct flight f = {.q = p->iodepth ? p->iodepth : 1};
    bool gc_prev = false, gc;
    int rc;

    *r = (struct ssd_precond_result){0};
    if (n == 0)
        n = 1;
    f.v = malloc(f.q * sizeof(*f.v));
    if (!f.v)
        return err_set(e, -ENOMEM, "ssd precondition: out of memory for %u writes in flight", f.q);
    rc = fill(s, &t, r, e);
    while (!rc && r->windows < max && !r->steady) {
        r->wa_prev = r->wa_last;
        rc = window(s, n, &rng, &f, &t, &r->wa_last, &gc, e);
        r->rand_pages += n;
        r->windows++;
        r->steady = gc && gc_prev && fabs(r->wa_last - r->wa_prev) <= tol * r->wa_prev;
        gc_prev = gc;
    }
    while (f.n) /* the last completion */
        t = pop(&f);
    free(f.v);
    r->t_end = t;
    return rc;
}
