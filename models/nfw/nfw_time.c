/*
 * nfw_time.c - a node's flash writes timed on the write pipeline; see nfw_time.h.
 */
#include "models/nfw/nfw_time.h"

#include "models/dram/dram_port.h"
#include "models/nfw/nfw_lanes_twin.h"
#include "models/nfw/nfw_twin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS 16
#define FREEQ       64 /* blocks the firmware has yet to free (one per cfg cycle) */
/* A write that has not finished after this many cycles per beat (plus a margin) is a bug of
 * a model or of this driver, not a slow pipeline: at most a few cycles per beat. */
#define CYCLES_PER_BEAT_LIMIT 64
#define CYCLES_MARGIN         100000

/* The firmware around one model: the block each lane of each stream is writing, the blocks
 * some lanes have left, the frees queued. A block is freed once every lane has moved past it,
 * so that the lanes' allocators, configured alike, keep handing out the same block for an LB
 * (rtl/nfw/nfw_lanes.v). */
#define LEFT 8
struct fw {
    int32_t cur_pbn[MAX_STREAMS][NFW_MAX_LANES]; /* -1 before the lane's first page */
    uint16_t left_pbn[MAX_STREAMS][LEFT];        /* blocks left by some lanes */
    uint8_t left_n[MAX_STREAMS][LEFT];           /* how many lanes left it; 0: free entry */
    uint16_t freeq[FREEQ];
    uint8_t freeq_stream[FREEQ];
    unsigned fq_head, fq_len;
    bool err; /* a completion carried the error flag */
};

/* One model of the pipeline and how far it has run the write history. */
struct dut {
    const struct nfw_be_ops *ops;
    void *h;
    uint64_t pos; /* writes of the history it has run */
    struct fw fw;
};

struct hist {
    uint64_t addr;
    uint32_t len;
    uint8_t stream;
};

struct nfw_time {
    struct nfw_lanes_params p;
    struct dut twin, rtl; /* rtl.h: NULL until the first rtl or lockstep mode */
    enum nfw_time_mode mode;
    struct dram *tb;                       /* timing-only copy of the tensor buffer */
    struct dram_port *port[NFW_MAX_LANES]; /* a memory port per lane */
    uint64_t owed[NFW_MAX_LANES];          /* idle cycles not yet applied to port[l] */
    uint64_t period_ps, total, replayed;
    unsigned streams;
    uint32_t lblocks[MAX_STREAMS];
    struct hist *hist; /* every write, for a model that has to catch up */
    uint64_t n_hist, cap_hist;
};

/* ------------------------------------------------------------------ the twin as a backend */

static int twin_create(const struct nfw_lanes_params *p, uint64_t seed, void **out, struct err *e)
{
    (void)seed;
    return nfw_lanes_twin_create(p, (struct nfw_lanes_twin **)out, e);
}

static void twin_destroy(void *h)
{
    nfw_lanes_twin_destroy(h);
}

static void twin_set(void *h, const struct nfw_lanes_in *in)
{
    nfw_lanes_twin_set(h, in);
}

static void twin_get(void *h, struct nfw_lanes_out *out)
{
    nfw_lanes_twin_get(h, out);
}

static void twin_step(void *h, uint64_t cycles)
{
    nfw_lanes_twin_step(h, cycles);
}

static void twin_io(void *h, struct nfw_lanes_in **in, const struct nfw_lanes_out **out)
{
    *in = nfw_lanes_twin_in(h);
    *out = nfw_lanes_twin_out(h);
}

static int twin_state(void *h, struct nfw_lanes_state *s)
{
    return nfw_lanes_twin_state(h, s);
}

const struct nfw_be_ops nfw_be_twin_ops = {.name = "twin",
                                           .create = twin_create,
                                           .destroy = twin_destroy,
                                           .set = twin_set,
                                           .get = twin_get,
                                           .step = twin_step,
                                           .io = twin_io,
                                           .state = twin_state};

/* ------------------------------------------------------------------ parameters */

unsigned nfw_time_lanes(const struct flash_cfg *fc, uint64_t period_ps)
{
    const struct flash_geom *g = &fc->geom;
    /* Bytes the FMS programs per t_prog against the bytes one pipeline moves in that time
     * (8 a cycle): need = dies x planes x page / t_prog / (8 / period), rounded up. */
    uint64_t unit = (uint64_t)flash_geom_dies(g) * g->planes_per_die * g->page_bytes;
    uint64_t per_lane = 8 * fc->tim.t_prog_ps;
    uint64_t need = per_lane ? (unit * period_ps + per_lane - 1) / per_lane : UINT64_MAX;
    unsigned lanes = 1;

    while (lanes < need && lanes < g->channels && lanes < NFW_MAX_LANES &&
           g->channels % (2 * lanes) == 0)
        lanes *= 2;
    return lanes;
}

void nfw_time_params(const struct flash_cfg *fc, unsigned streams, uint64_t period_ps,
                     struct nfw_lanes_params *lp)
{
    const struct flash_geom *g = &fc->geom;
    struct nfw_params *p = &lp->p;

    (void)streams;
    nfw_params_default(p);
    p->page_bytes = g->page_bytes;
    p->planes = g->planes_per_die;
    p->channels = g->channels;
    p->dies_per_chan = g->chips_per_chan * g->dies_per_chip;
    p->pages_per_block = g->pages_per_block;
    /* One build for every node (an AN has 2 streams, the WN 4): 8 stream ids. */
    p->streams = 8;
    /* The firmware frees a block as soon as every lane has moved on: two would do; four
     * keep the allocator's round robin visible. */
    p->max_pbs = 4;
    p->bbt_entries = 1; /* no replacements: the FTL remaps bad blocks in the timed model */
    /* Page buffers: a whole program unit plus room for the next unit. */
    p->slots = 4;
    while (p->slots < 2 * p->planes)
        p->slots *= 2;
    p->max_reads = 64;
    lp->lanes = nfw_time_lanes(fc, period_ps);
}

/* ------------------------------------------------------------------ cycles */

static void idle_in(struct nfw_lanes_in *in)
{
    memset(in, 0, sizeof(*in));
}

/* Reset the model and attach the streams (SET_STREAM, one per cycle, pipeline idle). */
static void dut_init(struct nfw_time *t, struct dut *d)
{
    struct nfw_lanes_in in;
    struct nfw_in *s = &in.l[0];

    idle_in(&in);
    s->rst = true;
    d->ops->set(d->h, &in);
    d->ops->step(d->h, 2);
    for (unsigned i = 0; i < t->streams; i++) {
        idle_in(&in);
        s->cfg_valid = true;
        s->cfg_op = NFW_CFG_SET_STREAM;
        s->cfg_stream = (uint8_t)i;
        s->cfg_a = (uint32_t)t->p.p.max_pbs << 16; /* first block 0: numbers only, not timed */
        s->cfg_b = t->lblocks[i];
        d->ops->set(d->h, &in);
        d->ops->step(d->h, 1);
    }
    idle_in(&in);
    d->ops->set(d->h, &in);
    d->ops->step(d->h, 2);
    memset(&d->fw, 0, sizeof(d->fw));
    for (unsigned i = 0; i < MAX_STREAMS; i++)
        for (unsigned l = 0; l < NFW_MAX_LANES; l++)
            d->fw.cur_pbn[i][l] = -1;
    d->pos = 0;
}

/* Lane l of stream s has moved from block `from` on: once every lane has, it is freed. */
static void lane_left(struct nfw_time *t, struct fw *fw, unsigned s, uint16_t from)
{
    unsigned k, fre = LEFT;

    for (k = 0; k < LEFT; k++) {
        if (fw->left_n[s][k] && fw->left_pbn[s][k] == from)
            break;
        if (!fw->left_n[s][k] && fre == LEFT)
            fre = k;
    }
    if (k == LEFT) {
        if (fre == LEFT)
            return; /* more blocks half left than lanes can be apart: cannot happen */
        k = fre;
        fw->left_pbn[s][k] = from;
    }
    if (++fw->left_n[s][k] < t->p.lanes || fw->fq_len == FREEQ)
        return;
    fw->left_n[s][k] = 0;
    k = (fw->fq_head + fw->fq_len++) % FREEQ;
    fw->freeq[k] = from;
    fw->freeq_stream[k] = (uint8_t)s;
}

/* The run of one write on n models (n = 2: lockstep, d[0] the RTL, d[1] the twin). */
struct run {
    struct dut **d;
    unsigned n;
    const struct hist *w;
    uint64_t index; /* of the write in the history, for reports */
    bool offer, took;
    uint64_t done, cycle;
};

/* One cycle: the environment and d[0]'s firmware drive every model alike; in lockstep the
 * outputs are compared first. */
static int cycle(struct nfw_time *t, struct run *r, struct err *e)
{
    struct nfw_lanes_out ob, o2;
    struct nfw_lanes_in ib;
    const struct nfw_lanes_out *o = &ob;
    struct nfw_lanes_in *in = &ib;
    /* One model with its ports in place (the twin alone): no copies of the ports per cycle. */
    const bool direct = r->n == 1 && r->d[0]->ops->io;
    struct nfw_in *si;
    const struct nfw_out *so;
    struct fw *fw = &r->d[0]->fw;
    const unsigned lanes = t->p.lanes;
    bool rest[NFW_MAX_LANES];

    if (direct)
        r->d[0]->ops->io(r->d[0]->h, &in, &o);
    else
        r->d[0]->ops->get(r->d[0]->h, &ob);
    si = &in->l[0];
    so = &o->l[0];
    for (unsigned k = 1; k < r->n; k++) {
        char diff[192];
        r->d[k]->ops->get(r->d[k]->h, &o2);
        if (nfw_lanes_out_diff(o, &o2, lanes, diff, sizeof(diff)))
            return err_set(e, -EPROTO,
                           "nfw lockstep: write %" PRIu64 " (stream %u, %" PRIu32
                           " bytes at tensor-buffer 0x%" PRIx64 "), cycle %" PRIu64
                           " of the write: %s (%s vs %s)",
                           r->index, r->w->stream, r->w->len, r->w->addr, r->cycle, diff,
                           r->d[0]->ops->name, r->d[k]->ops->name);
    }
    /* Only the lanes' entries: the models read no others (lanes is the model's lane count). */
    memset(in->l, 0, lanes * sizeof(in->l[0]));
    for (unsigned l = 0; l < lanes; l++) {
        /* A port with nothing pending whose lane offers nothing: its outputs are known (ready,
         * no response) and its cycle is applied later, at once (dram_port_skip). */
        struct mem_port_rsp mr = {.req_ready = true};

        rest[l] = !o->l[l].mem_req_valid && !dram_port_pending(t->port[l]);
        if (!rest[l]) {
            if (t->owed[l])
                dram_port_skip(t->port[l], t->owed[l]);
            t->owed[l] = 0;
            dram_port_drive(t->port[l], &mr);
        }
        nfw_in_mem(&in->l[l], &mr);
        in->l[l].prog_ready = true;
        in->l[l].pdat_ready = true;
    }
    si->done_ready = true;
    if (r->offer && !r->took) {
        si->cmd_valid = true;
        si->cmd_addr = r->w->addr;
        si->cmd_len = r->w->len;
        si->cmd_stream = r->w->stream;
    }
    if (fw->fq_len) {
        si->cfg_valid = true;
        si->cfg_op = NFW_CFG_FREE_PB;
        si->cfg_stream = fw->freeq_stream[fw->fq_head];
        si->cfg_a = fw->freeq[fw->fq_head];
    }
    for (unsigned k = 0; k < r->n && !direct; k++)
        r->d[k]->ops->set(r->d[k]->h, in);
    for (unsigned l = 0; l < lanes; l++) {
        struct mem_port_req rq;

        if (rest[l]) {
            t->owed[l]++;
            continue;
        }
        nfw_out_mem(&o->l[l], &rq);
        dram_port_clock(t->port[l], &rq);
    }
    if (si->cfg_valid && so->cfg_ready) {
        fw->fq_head = (fw->fq_head + 1) % FREEQ;
        fw->fq_len--;
    }
    if (si->cmd_valid && so->cmd_ready)
        r->took = true;
    if (so->done_valid) {
        unsigned s = so->done_stream % MAX_STREAMS, l = so->done_die % lanes;
        int32_t *cur = &fw->cur_pbn[s][l];

        if (*cur >= 0 && *cur != so->done_pbn)
            lane_left(t, fw, s, (uint16_t)*cur);
        *cur = so->done_pbn;
        r->done++;
        fw->err |= so->done_err;
    }
    for (unsigned k = 0; k < r->n; k++)
        r->d[k]->ops->step(r->d[k]->h, 1);
    t->total++;
    r->cycle++;
    return 0;
}

/* Write w (history entry index) on models d[0..n-1] from idle to its last completion, then
 * the firmware's frees (outside the write's time). */
static int run_write(struct nfw_time *t, struct dut **d, unsigned n, uint64_t index,
                     uint64_t *cycles, struct err *e)
{
    const struct hist *w = &t->hist[index];
    struct run r = {.d = d, .n = n, .w = w, .index = index, .offer = true};
    uint64_t pages = (w->len + t->p.p.page_bytes - 1) / t->p.p.page_bytes;
    uint64_t limit =
        ((uint64_t)w->len / 8 + 1) * CYCLES_PER_BEAT_LIMIT + CYCLES_MARGIN; /* a lane's */
    int rc;

    while (r.done < pages) {
        if (r.cycle == limit)
            return err_set(e, -EIO,
                           "nfw (%s): write %" PRIu64 " of %" PRIu32 " bytes to stream %u did "
                           "not finish in %" PRIu64 " cycles (%" PRIu64 " of %" PRIu64
                           " pages done)",
                           d[0]->ops->name, index, w->len, w->stream, limit, r.done, pages);
        if ((rc = cycle(t, &r, e)))
            return rc;
        if (d[0]->fw.err)
            return err_set(e, -EIO,
                           "nfw (%s): write %" PRIu64 " of %" PRIu32 " bytes to stream %u: a "
                           "page completed with the error flag (memory error)",
                           d[0]->ops->name, index, w->len, w->stream);
    }
    *cycles = r.cycle;
    r.offer = false;
    while (d[0]->fw.fq_len)
        if ((rc = cycle(t, &r, e)))
            return rc;
    for (unsigned k = 0; k < n; k++) {
        d[k]->fw = d[0]->fw; /* the same completions: the same firmware state */
        d[k]->pos = index + 1;
    }
    return 0;
}

/* Model d takes the state the write history up to write `upto` left: the RTL by a copy of
 * the twin's state when the twin has run that history (the lanes are at rest between writes,
 * so the history-dependent registers are all there is to carry: struct nfw_lanes_state), else
 * by running, alone, the writes it missed. The copy runs no cycles in the environment, where
 * the replay ran the missed writes' cycles; but a write starts with every memory port empty
 * and every tensor-buffer channel free, so its cycles do not depend on how many went before. */
static int catch_up(struct nfw_time *t, struct dut *d, uint64_t upto, struct err *e)
{
    uint64_t c;
    if (d->pos < upto && d != &t->twin && d->ops->load && t->twin.pos == upto) {
        struct nfw_lanes_state s;

        if (!t->twin.ops->state(t->twin.h, &s)) {
            d->ops->load(d->h, &s);
            d->fw = t->twin.fw;
            d->pos = upto;
            return 0;
        }
    }
    while (d->pos < upto) {
        int rc = run_write(t, &d, 1, d->pos, &c, e);
        if (rc)
            return err_prefix(e, rc, "nfw: replaying the writes %s missed", d->ops->name);
        t->replayed++;
    }
    return 0;
}

/* ------------------------------------------------------------------ interface */

int nfw_time_create(const struct flash_cfg *fc, unsigned streams, const uint32_t *lblocks,
                    uint64_t period_ps, const struct dram_cfg *tb, struct nfw_time **out,
                    struct err *e)
{
    struct nfw_time *t;
    struct dram_cfg dc = *tb;
    struct dram_port_cfg pc;
    int rc;

    *out = NULL;
    if (!streams || streams > 8)
        return err_set(e, -EINVAL, "nfw: %u streams; accepted 1..8", streams);
    if (!period_ps)
        return err_set(e, -EINVAL, "nfw: clock period 0 ps; accepted >= 1");
    for (unsigned i = 0; i < streams; i++)
        if (!lblocks[i] || lblocks[i] > 0xffff)
            return err_set(e, -EINVAL,
                           "nfw: stream %u has %" PRIu32 " logical blocks; accepted "
                           "1..65535",
                           i, lblocks[i]);
    t = calloc(1, sizeof(*t));
    if (!t)
        return err_set(e, -ENOMEM, "nfw: out of memory");
    t->period_ps = period_ps;
    t->streams = streams;
    memcpy(t->lblocks, lblocks, streams * sizeof(*lblocks));
    nfw_time_params(fc, streams, period_ps, &t->p);
    t->twin.ops = &nfw_be_twin_ops;
    rc = nfw_be_twin_ops.create(&t->p, 0, &t->twin.h, e);
    if (rc) {
        err_prefix(e, rc, "the flash geometry does not fit the write pipeline");
        goto out;
    }
    dc.store_payload = false;
    rc = dram_create(&dc, &t->tb, e);
    if (rc)
        goto out;
    dram_port_cfg_default(&pc);
    pc.period_ps = period_ps;
    pc.max_outstanding = t->p.p.max_reads;
    pc.name = "nfw";
    for (unsigned l = 0; l < t->p.lanes; l++) {
        rc = dram_port_create(&pc, t->tb, &t->port[l], e);
        if (rc)
            goto out;
    }
    dut_init(t, &t->twin);
    *out = t;
    return 0;
out:
    nfw_time_destroy(t);
    return rc;
}

void nfw_time_destroy(struct nfw_time *t)
{
    if (!t)
        return;
    for (unsigned l = 0; l < NFW_MAX_LANES; l++)
        dram_port_destroy(t->port[l]);
    dram_destroy(t->tb);
    if (t->twin.h)
        t->twin.ops->destroy(t->twin.h);
    if (t->rtl.h)
        t->rtl.ops->destroy(t->rtl.h);
    free(t->hist);
    free(t);
}

int nfw_time_set_mode(struct nfw_time *t, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                      uint64_t seed, struct err *e)
{
    int rc;

    if (m != NFW_TIME_TWIN && m != NFW_TIME_RTL && m != NFW_TIME_LOCKSTEP)
        return err_set(e, -EINVAL, "nfw: mode %d; accepted twin, rtl, lockstep", (int)m);
    if (m != NFW_TIME_TWIN && !t->rtl.h) {
        if (!rtl)
            return err_set(e, -EINVAL,
                           "nfw: %s mode needs the write pipeline's RTL backend, and this "
                           "program has none; accepted: tlm, or link a verilated nfw_top and "
                           "pass &nfw_be_rtl_ops",
                           m == NFW_TIME_RTL ? "rtl" : "lockstep");
        t->rtl.ops = rtl;
        rc = rtl->create(&t->p, seed, &t->rtl.h, e);
        if (rc) {
            t->rtl.h = NULL;
            return rc;
        }
        dut_init(t, &t->rtl);
    }
    t->mode = m;
    return 0;
}

enum nfw_time_mode nfw_time_mode(const struct nfw_time *t)
{
    return t->mode;
}

int nfw_time_trace(struct nfw_time *t, const struct vtrace_opts *o, struct err *e)
{
    if (t->mode == NFW_TIME_TWIN || !t->rtl.h || !t->rtl.ops->trace)
        return err_set(e, -EINVAL,
                       "nfw: waves need the write pipeline's RTL in the loop (rtl or lockstep "
                       "mode); it runs the twin");
    return t->rtl.ops->trace(t->rtl.h, o, e);
}

int nfw_time_trace_close(struct nfw_time *t, struct err *e)
{
    if (!t->rtl.h || !t->rtl.ops->trace_close)
        return 0;
    return t->rtl.ops->trace_close(t->rtl.h, e);
}

uint64_t nfw_time_period_ps(const struct nfw_time *t)
{
    return t->period_ps;
}

uint64_t nfw_time_total_cycles(const struct nfw_time *t)
{
    return t->total;
}

uint64_t nfw_time_replayed(const struct nfw_time *t)
{
    return t->replayed;
}

int nfw_time_write(struct nfw_time *t, unsigned stream, uint64_t tb_addr, uint64_t bytes,
                   uint64_t *cycles, struct err *e)
{
    struct dut *d[2];
    unsigned n = 0;
    uint64_t k;
    int rc;

    *cycles = 0;
    if (stream >= t->streams)
        return err_set(e, -EINVAL, "nfw: stream %u; accepted 0..%u", stream, t->streams - 1);
    if (!bytes || bytes > UINT32_MAX || tb_addr >> 40 ||
        !dram_in_range(t->tb, tb_addr & ~7ull, (tb_addr & 7) + bytes))
        return err_set(e, -EINVAL,
                       "nfw: write of %" PRIu64 " bytes at tensor-buffer address 0x%" PRIx64
                       "; accepted 1..4 GiB - 1 bytes inside the tensor buffer",
                       bytes, tb_addr);
    if (t->n_hist == t->cap_hist) {
        uint64_t cap = t->cap_hist ? 2 * t->cap_hist : 256;
        struct hist *h = realloc(t->hist, cap * sizeof(*h));
        if (!h)
            return err_set(e, -ENOMEM, "nfw: out of memory for the write history");
        t->hist = h;
        t->cap_hist = cap;
    }
    k = t->n_hist++;
    t->hist[k] = (struct hist){tb_addr, (uint32_t)bytes, (uint8_t)stream};
    if (t->mode != NFW_TIME_TWIN)
        d[n++] = &t->rtl;
    if (t->mode != NFW_TIME_RTL)
        d[n++] = &t->twin;
    for (unsigned i = 0; i < n; i++)
        if ((rc = catch_up(t, d[i], k, e)))
            return rc;
    return run_write(t, d, n, k, cycles, e);
}
