#include "models/dram/dram.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sparse store: a top table of leaves, each leaf a table of page pointers. */
#define LEAF_PAGES 1024u
#define LEAF_BYTES ((uint64_t)LEAF_PAGES * DRAM_PAGE_BYTES)

struct dram {
    struct dram_cfg cfg;
    uint8_t ***top; /* top[addr / LEAF_BYTES][page in leaf] -> DRAM_PAGE_BYTES bytes */
    uint64_t n_top;
    uint64_t n_pages;
    struct res chan[DRAM_MAX_CHANNELS]; /* the data buses */
    struct dram_req_stats req[DRAM_MAX_REQUESTERS];
    int n_req;
    bool free; /* dram_set_free: every access takes no time */
};

void dram_cfg_default(struct dram_cfg *c)
{
    *c = (struct dram_cfg){
        .size_bytes = 16ull << 30,
        .channels = 4,
        .chan_mbps = 25600,
        .latency_ps = 50 * DRAM_PS_PER_NS,
        .interleave_bytes = 256,
        .store_payload = true,
    };
}

int dram_cfg_check(const struct dram_cfg *c, struct err *e)
{
    if (c->size_bytes == 0 || c->size_bytes % DRAM_PAGE_BYTES || c->size_bytes > DRAM_MAX_SIZE)
        return err_set(e, -EINVAL,
                       "dram: size_bytes = %" PRIu64 ": must be a non-zero multiple of %u up to "
                       "2^40 (the memory port's address width)",
                       c->size_bytes, DRAM_PAGE_BYTES);
    if (c->channels == 0 || c->channels > DRAM_MAX_CHANNELS)
        return err_set(e, -EINVAL, "dram: channels = %" PRIu32 ": accepted 1..%u", c->channels,
                       DRAM_MAX_CHANNELS);
    if (c->chan_mbps == 0)
        return err_set(e, -EINVAL, "dram: chan_mbps = 0: a channel needs a bandwidth (MB/s >= 1)");
    if (c->interleave_bytes < 8 || (c->interleave_bytes & (c->interleave_bytes - 1)))
        return err_set(e, -EINVAL,
                       "dram: interleave_bytes = %" PRIu32 ": must be a power of two >= 8",
                       c->interleave_bytes);
    return 0;
}

int dram_create(const struct dram_cfg *cfg, struct dram **out, struct err *e)
{
    int rc = dram_cfg_check(cfg, e);
    if (rc)
        return rc;
    struct dram *d = calloc(1, sizeof(*d));
    if (!d)
        goto out_nomem;
    d->cfg = *cfg;
    d->n_top = (cfg->size_bytes + LEAF_BYTES - 1) / LEAF_BYTES;
    if (cfg->store_payload) {
        d->top = calloc(d->n_top, sizeof(*d->top));
        if (!d->top)
            goto out_free_d;
    }
    *out = d;
    return 0;

out_free_d:
    free(d);
out_nomem:
    return err_set(e, -ENOMEM, "dram: out of host memory");
}

void dram_destroy(struct dram *d)
{
    if (!d)
        return;
    if (d->top) {
        for (uint64_t i = 0; i < d->n_top; i++) {
            if (!d->top[i])
                continue;
            for (unsigned j = 0; j < LEAF_PAGES; j++)
                free(d->top[i][j]);
            free(d->top[i]);
        }
        free(d->top);
    }
    free(d);
}

const struct dram_cfg *dram_get_cfg(const struct dram *d)
{
    return &d->cfg;
}

bool dram_in_range(const struct dram *d, uint64_t addr, uint64_t len)
{
    return addr <= d->cfg.size_bytes && len <= d->cfg.size_bytes - addr;
}

uint64_t dram_pages(const struct dram *d)
{
    return d->n_pages;
}

/* The page holding addr; NULL if never written (and !alloc), or out of memory. */
static uint8_t *page_of(struct dram *d, uint64_t addr, bool alloc)
{
    uint64_t t = addr / LEAF_BYTES;
    unsigned p = (unsigned)(addr / DRAM_PAGE_BYTES % LEAF_PAGES);
    if (!d->top[t]) {
        if (!alloc)
            return NULL;
        d->top[t] = calloc(LEAF_PAGES, sizeof(**d->top));
        if (!d->top[t])
            return NULL;
    }
    if (!d->top[t][p] && alloc) {
        d->top[t][p] = calloc(1, DRAM_PAGE_BYTES);
        if (d->top[t][p])
            d->n_pages++;
    }
    return d->top[t][p];
}

int dram_read(struct dram *d, uint64_t addr, void *buf, size_t len)
{
    if (!dram_in_range(d, addr, len))
        return -ERANGE;
    uint8_t *dst = buf;
    while (len) {
        size_t in_page = DRAM_PAGE_BYTES - (size_t)(addr % DRAM_PAGE_BYTES);
        size_t n = len < in_page ? len : in_page;
        const uint8_t *pg = d->top ? page_of(d, addr, false) : NULL;
        if (pg)
            memcpy(dst, pg + addr % DRAM_PAGE_BYTES, n);
        else
            memset(dst, 0, n);
        dst += n;
        addr += n;
        len -= n;
    }
    return 0;
}

int dram_write(struct dram *d, uint64_t addr, const void *buf, size_t len)
{
    if (!dram_in_range(d, addr, len))
        return -ERANGE;
    if (!d->top)
        return 0;
    const uint8_t *src = buf;
    while (len) {
        size_t in_page = DRAM_PAGE_BYTES - (size_t)(addr % DRAM_PAGE_BYTES);
        size_t n = len < in_page ? len : in_page;
        uint8_t *pg = page_of(d, addr, true);
        if (!pg)
            return -ENOMEM;
        memcpy(pg + addr % DRAM_PAGE_BYTES, src, n);
        src += n;
        addr += n;
        len -= n;
    }
    return 0;
}

int dram_read_beat(struct dram *d, uint64_t addr, uint64_t *data)
{
    if (addr % 8)
        return -EINVAL;
    if (!dram_in_range(d, addr, 8))
        return -ERANGE;
    const uint8_t *pg = d->top ? page_of(d, addr, false) : NULL;
    uint64_t v = 0;
    if (pg)
        for (int i = 7; i >= 0; i--)
            v = v << 8 | pg[addr % DRAM_PAGE_BYTES + (unsigned)i];
    *data = v;
    return 0;
}

int dram_write_beat(struct dram *d, uint64_t addr, uint64_t data, uint8_t strb)
{
    if (addr % 8)
        return -EINVAL;
    if (!dram_in_range(d, addr, 8))
        return -ERANGE;
    if (!d->top || !strb)
        return 0;
    uint8_t *pg = page_of(d, addr, true);
    if (!pg)
        return -ENOMEM;
    for (unsigned i = 0; i < 8; i++)
        if (strb >> i & 1)
            pg[addr % DRAM_PAGE_BYTES + i] = (uint8_t)(data >> (8 * i));
    return 0;
}

int dram_requester(struct dram *d, const char *name)
{
    if (d->n_req >= (int)DRAM_MAX_REQUESTERS)
        return -ENOSPC;
    struct dram_req_stats *r = &d->req[d->n_req];
    snprintf(r->name, sizeof(r->name), "%s", name ? name : "?");
    return d->n_req++;
}

uint32_t dram_channel_of(const struct dram *d, uint64_t addr)
{
    return (uint32_t)(addr / d->cfg.interleave_bytes % d->cfg.channels);
}

uint64_t dram_xfer_ps(const struct dram_cfg *c, uint64_t bytes)
{
    /* bytes / (mbps * 1e6 B/s) in ps = bytes * 1e6 / mbps, rounded up. */
    return (bytes * 1000000ull + c->chan_mbps - 1) / c->chan_mbps;
}

void dram_set_free(struct dram *d, bool free)
{
    d->free = free;
}

/*
 * Every piece of one access is asked for at t, so a channel serves its pieces of the access back
 * to back from max(t, busy_until): its bus ends after the sum of their transfer times, and only
 * the first can have waited for others. The pieces are counted per channel (the whole interleave
 * units in closed form: a long transfer costs one claim per channel, not one per unit), then each
 * channel is claimed once; the result is the piece-by-piece claims' exactly.
 */
uint64_t dram_access(struct dram *d, int rid, uint64_t t, uint64_t addr, uint64_t len, bool write)
{
    struct dram_req_stats *r = rid >= 0 && rid < d->n_req ? &d->req[rid] : NULL;
    const uint64_t unit = d->cfg.interleave_bytes, nch = d->cfg.channels;
    uint64_t xfer[DRAM_MAX_CHANNELS], pieces[DRAM_MAX_CHANNELS];
    uint64_t done = t + d->cfg.latency_ps, head, tail = 0, full = 0;

    if (d->free)
        return t;
    if (r) {
        r->accesses++;
        if (write)
            r->bytes_wr += len;
        else
            r->bytes_rd += len;
    }
    if (!len)
        return done;
    head = unit - addr % unit; /* the first piece, up to the unit's end */
    if (head >= len) {         /* one piece (a port's beat): its channel alone */
        struct res *ch = &d->chan[dram_channel_of(d, addr)];
        uint64_t x = dram_xfer_ps(&d->cfg, len), start = res_later(t, ch->busy_until);
        ch->busy_until = start + x;
        ch->busy_ps += x;
        ch->n_ops++;
        if (r) {
            r->pieces++;
            r->bus_ps += x;
            r->wait_ps += start - t;
        }
        return ch->busy_until + d->cfg.latency_ps;
    }
    memset(xfer, 0, nch * sizeof(xfer[0]));
    memset(pieces, 0, nch * sizeof(pieces[0]));
    {
        full = (len - head) / unit;
        tail = (len - head) % unit;
    }
    uint32_t c0 = dram_channel_of(d, addr);
    xfer[c0] += dram_xfer_ps(&d->cfg, head);
    pieces[c0]++;
    if (full) {
        uint64_t x = dram_xfer_ps(&d->cfg, unit), each = full / nch, more = full % nch;
        for (uint64_t k = 0; k < nch && k < full; k++) {
            uint64_t c = (c0 + 1 + k) % nch, n = each + (k < more);
            xfer[c] += n * x;
            pieces[c] += n;
        }
    }
    if (tail) {
        uint32_t c = dram_channel_of(d, addr + head + full * unit);
        xfer[c] += dram_xfer_ps(&d->cfg, tail);
        pieces[c]++;
    }
    for (uint32_t c = 0; c < nch; c++) {
        if (!pieces[c])
            continue;
        struct res *ch = &d->chan[c];
        uint64_t start = res_later(t, ch->busy_until);
        ch->busy_until = start + xfer[c];
        ch->busy_ps += xfer[c];
        ch->n_ops += pieces[c];
        if (r) {
            r->pieces += pieces[c];
            r->bus_ps += xfer[c];
            r->wait_ps += start - t;
        }
        done = res_later(done, ch->busy_until + d->cfg.latency_ps);
    }
    return done;
}

void dram_idle(struct dram *d)
{
    for (uint32_t c = 0; c < d->cfg.channels; c++)
        d->chan[c].busy_until = 0;
}

bool dram_free_at(const struct dram *d, uint64_t t)
{
    return dram_free_from(d) <= t;
}

uint64_t dram_free_from(const struct dram *d)
{
    uint64_t t = 0;
    for (uint32_t c = 0; c < d->cfg.channels; c++)
        t = res_later(t, d->chan[c].busy_until);
    return t;
}

void dram_timing_save(const struct dram *d, struct dram_timing *s)
{
    memcpy(s->chan, d->chan, sizeof(s->chan));
    memcpy(s->req, d->req, sizeof(s->req));
}

void dram_timing_restore(struct dram *d, const struct dram_timing *s)
{
    memcpy(d->chan, s->chan, sizeof(d->chan));
    memcpy(d->req, s->req, sizeof(d->req));
}

/* A channel the run claimed ends later than before (every claim lasts at least 1 ps); one it
 * did not claim keeps its state. */
void dram_run_record(const struct dram *d, int rid, uint64_t t0, const struct dram_timing *before,
                     struct dram_run *run)
{
    memset(run, 0, sizeof(*run));
    run->t0 = t0;
    run->channels = d->cfg.channels;
    for (uint32_t c = 0; c < d->cfg.channels; c++) {
        const struct res *a = &before->chan[c], *b = &d->chan[c];
        run->touched[c] = b->busy_until != a->busy_until || b->n_ops != a->n_ops;
        run->end_off[c] = b->busy_until > t0 ? b->busy_until - t0 : 0;
        run->busy_ps[c] = b->busy_ps - a->busy_ps;
        run->n_ops[c] = b->n_ops - a->n_ops;
    }
    if (rid >= 0 && rid < d->n_req) {
        const struct dram_req_stats *x = &before->req[rid], *y = &d->req[rid];
        run->req.accesses = y->accesses - x->accesses;
        run->req.pieces = y->pieces - x->pieces;
        run->req.bytes_rd = y->bytes_rd - x->bytes_rd;
        run->req.bytes_wr = y->bytes_wr - x->bytes_wr;
        run->req.bus_ps = y->bus_ps - x->bus_ps;
        run->req.wait_ps = y->wait_ps - x->wait_ps;
    }
}

void dram_run_replay(struct dram *d, int rid, uint64_t t1, const struct dram_run *run)
{
    for (uint32_t c = 0; c < d->cfg.channels && c < run->channels; c++) {
        if (!run->touched[c])
            continue;
        d->chan[c].busy_until = t1 + run->end_off[c];
        d->chan[c].busy_ps += run->busy_ps[c];
        d->chan[c].n_ops += run->n_ops[c];
    }
    if (rid >= 0 && rid < d->n_req) {
        struct dram_req_stats *r = &d->req[rid];
        r->accesses += run->req.accesses;
        r->pieces += run->req.pieces;
        r->bytes_rd += run->req.bytes_rd;
        r->bytes_wr += run->req.bytes_wr;
        r->bus_ps += run->req.bus_ps;
        r->wait_ps += run->req.wait_ps;
    }
}

const struct dram_req_stats *dram_req_stats(const struct dram *d, int rid)
{
    return rid >= 0 && rid < d->n_req ? &d->req[rid] : NULL;
}

int dram_requesters(const struct dram *d)
{
    return d->n_req;
}

const struct res *dram_chan_stats(const struct dram *d, uint32_t chan)
{
    return chan < d->cfg.channels ? &d->chan[chan] : NULL;
}
