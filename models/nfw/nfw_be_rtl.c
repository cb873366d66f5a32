/*
 * nfw_be_rtl.c - the verilated NAND write pipeline (rtl/nfw/nfw_top.v) as a backend of
 * nfw_time (nfw_time.h). This object references the nfw shim (csim/shim/nfw.h): link it only
 * into a program that also links one verilated nfw_top (e.g. nfw_top_paper). Nothing else in
 * the library refers to nfw_be_rtl_ops, so programs without the model never pull it in.
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
    struct nfw_rtl *r;
    bool parked;
};

static struct slot *pool;
static size_t n_pool, cap_pool;

static void rtl_park(struct nfw_rtl *r)
{
    for (size_t i = 0; i < n_pool; i++)
        if (pool[i].r == r)
            pool[i].parked = true;
}

static int rtl_create(const struct nfw_params *p, uint64_t seed, void **out, struct err *e)
{
    struct nfw_rtl *r = NULL;
    struct nfw_params m;

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
        r = nfw_rtl_create(seed);
        if (!r)
            return err_set(e, -ENOMEM, "rtl nfw: the verilated model could not be created");
        pool[n_pool++] = (struct slot){r, false};
    }
    nfw_rtl_params(r, &m);
    if (memcmp(&m, p, sizeof(m))) {
        rtl_park(r);
        return err_set(e, -EINVAL,
                       "rtl nfw: the linked model is built for %u B pages, %u planes, %u "
                       "channels x %u dies, %u pages per block, %u streams, %u blocks, %u BBT "
                       "entries, %u slots, %u reads; the flash asks for %u B, %u, %u x %u, %u, "
                       "%u, %u, %u, %u, %u; accepted: the model's geometry (link the model "
                       "built for this flash, nfw_time_params)",
                       m.page_bytes, m.planes, m.channels, m.dies_per_chan, m.pages_per_block,
                       m.streams, m.max_pbs, m.bbt_entries, m.slots, m.max_reads, p->page_bytes,
                       p->planes, p->channels, p->dies_per_chan, p->pages_per_block, p->streams,
                       p->max_pbs, p->bbt_entries, p->slots, p->max_reads);
    }
    *out = r;
    return 0;
}

static void rtl_destroy(void *h)
{
    rtl_park(h);
}

static void rtl_set(void *h, const struct nfw_in *in)
{
    nfw_rtl_set(h, in);
}

static void rtl_get(void *h, struct nfw_out *out)
{
    nfw_rtl_get(h, out);
}

static void rtl_step(void *h, uint64_t cycles)
{
    nfw_rtl_step(h, cycles);
}

static int rtl_trace(void *h, const struct vtrace_opts *o, struct err *e)
{
    int rc = nfw_rtl_trace(h, o);

    return rc ? err_set(e, rc, "rtl nfw: cannot start the waves '%s': %s", o->path, strerror(-rc))
              : 0;
}

static int rtl_trace_close(void *h, struct err *e)
{
    int rc = nfw_rtl_trace_close(h);

    return rc ? err_set(e, rc, "rtl nfw: cannot finish the waves: %s", strerror(-rc)) : 0;
}

const struct nfw_be_ops nfw_be_rtl_ops = {.name = "rtl",
                                          .create = rtl_create,
                                          .destroy = rtl_destroy,
                                          .set = rtl_set,
                                          .get = rtl_get,
                                          .step = rtl_step,
                                          .trace = rtl_trace,
                                          .trace_close = rtl_trace_close};
