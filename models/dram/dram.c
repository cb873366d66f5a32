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

uint64_t dram_access(struct dram *d, int rid, uint64_t t, uint64_t addr, uint64_t len, bool write)
{
    struct dram_req_stats *r = rid >= 0 && rid < d->n_req ? &d->req[rid] : NULL;
    uint64_t done = t + d->cfg.latency_ps;
    if (r) {
        r->accesses++;
        if (write)
            r->bytes_wr += len;
        else
            r->bytes_rd += len;
    }
    while (len) {
        uint64_t unit = d->cfg.interleave_bytes;
        uint64_t n = unit - addr % unit;
        if (n > len)
            n = len;
        uint64_t xfer = dram_xfer_ps(&d->cfg, n);
        uint64_t end = res_claim(&d->chan[dram_channel_of(d, addr)], t, xfer);
        if (r) {
            r->pieces++;
            r->bus_ps += xfer;
            r->wait_ps += end - xfer - t;
        }
        done = res_later(done, end + d->cfg.latency_ps);
        addr += n;
        len -= n;
    }
    return done;
}

void dram_idle(struct dram *d)
{
    for (uint32_t c = 0; c < d->cfg.channels; c++)
        d->chan[c].busy_until = 0;
}

const struct dram_req_stats *dram_req_stats(const struct dram *d, int rid)
{
    return rid >= 0 && rid < d->n_req ? &d->req[rid] : NULL;
}

const struct res *dram_chan_stats(const struct dram *d, uint32_t chan)
{
    return chan < d->cfg.channels ? &d->chan[chan] : NULL;
}
