/*
 * nfw_be_rtl.c - the verilated NAND write lanes (rtl/nfw/nfw_lanes.v) as a backend of
 * nfw_time (nfw_time.h). This object references the nfw_lanes shim (csim/shim/nfw_lanes.h):
 * link it only into a program that also links one verilated nfw_lanes (e.g. nfw_lanes_paper).
 * Nothing else in the library refers to nfw_be_rtl_ops, so programs without the model never pull it
 * in.
 */
#include "models/nfw/nfw_time.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Verilator 5.006's runtime has been seen to hang destroying one of these models while others
 * live (a lock of its scope registry found taken), and every node of a machine has one. So a
 * model given back is parked, not destroyed, and the next create takes a parked model of the
 * same build: nfw_time resets it and configures its streams before its first write (the
 * registers the reset leaves alone are undefined for the twin too, and nfw_out_diff ignores
 * them). The parked models live until the program ends (still reachable: not a leak).
 */
struct slot {
    struct nfw_lanes_rtl *r;
    bool parked;
};

static struct slot *pool;
static size_t n_pool, cap_pool;

static void rtl_park(struct nfw_lanes_rtl *r)
{
    for (size_t i = 0; i < n_pool; i++)
        if (pool[i].r == r)
            pool[i].parked = true;
}

static int rtl_create(const struct nfw_lanes_params *lp, uint64_t seed, void **out, struct err *e)
{
    struct nfw_lanes_rtl *r = NULL;
    struct nfw_lanes_params ml;
    const struct nfw_params *p = &lp->p, *mp = &ml.p;

    *out = NULL;
    for (size_t i = 0; i < n_pool && !r; i++)
        if (pool[i].parked) {
            pool[i].parked = false;
            r = pool[i].r;
        }
    if (!r) {
        if (n_pool == cap_pool) {
            size_t cap = cap_pool ? 2 * cap_pool : 16;
            struct slot *q = realloc(pool, cap * sizeof(*q));
            if (!q)
                return err_set(e, -ENOMEM, "rtl nfw: out of memory");
            pool = q;
            cap_pool = cap;
        }
        r = nfw_lanes_rtl_create(seed);
        if (!r)
            return err_set(e, -ENOMEM, "rtl nfw: the verilated model could not be created");
        pool[n_pool++] = (struct slot){r, false};
    }
    nfw_lanes_rtl_params(r, &ml);
    if (memcmp(&ml, lp, sizeof(ml))) {
        rtl_park(r);
        return err_set(e, -EINVAL,
                       "rtl nfw: the linked model is built for %u B pages, %u planes, %u "
                       "channels x %u dies, %u pages per block, %u streams, %u blocks, %u BBT "
                       "entries, %u slots, %u reads, %u lanes; the flash asks for %u B, %u, %u x "
                       "%u, %u, %u, %u, %u, %u, %u, %u; accepted: the model's geometry (link "
                       "the model built for this flash, nfw_time_params)",
                       mp->page_bytes, mp->planes, mp->channels, mp->dies_per_chan,
                       mp->pages_per_block, mp->streams, mp->max_pbs, mp->bbt_entries, mp->slots,
                       mp->max_reads, ml.lanes, p->page_bytes, p->planes, p->channels,
                       p->dies_per_chan, p->pages_per_block, p->streams, p->max_pbs, p->bbt_entries,
                       p->slots, p->max_reads, lp->lanes);
    }
    *out = r;
    return 0;
}

static void rtl_destroy(void *h)
{
    rtl_park(h);
}

static void rtl_set(void *h, const struct nfw_lanes_in *in)
{
    nfw_lanes_rtl_set(h, in);
}

static void rtl_get(void *h, struct nfw_lanes_out *out)
{
    nfw_lanes_rtl_get(h, out);
}

static void rtl_step(void *h, uint64_t cycles)
{
    nfw_lanes_rtl_step(h, cycles);
}

static void rtl_load(void *h, const struct nfw_lanes_state *s)
{
    nfw_lanes_rtl_load(h, s);
}

static int rtl_trace(void *h, const struct vtrace_opts *o, struct err *e)
{
    int rc = nfw_lanes_rtl_trace(h, o);

    return rc ? err_set(e, rc, "rtl nfw: cannot start the waves '%s': %s", o->path, strerror(-rc))
              : 0;
}

static int rtl_trace_close(void *h, struct err *e)
{
    int rc = nfw_lanes_rtl_trace_close(h);

    return rc ? err_set(e, rc, "rtl nfw: cannot finish the waves: %s", strerror(-rc)) : 0;
}

const struct nfw_be_ops nfw_be_rtl_ops = {.name = "rtl",
                                          .create = rtl_create,
                                          .destroy = rtl_destroy,
                                          .set = rtl_set,
                                          .get = rtl_get,
                                          .step = rtl_step,
                                          .load = rtl_load,
                                          .trace = rtl_trace,
                                          .trace_close = rtl_trace_close};
