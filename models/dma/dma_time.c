/*
 * dma_time.c - DMA timing from the DMA twin, memoised where that is exact; see dma_time.h.
 *
 * A probe runs one descriptor through the twin, cycle by cycle, between the two memories the
 * DMA talks to: a tensor buffer (a dram model behind a port BFM, models/dram/dram_port.h, its
 * cycle 0 at the command's start time and timing only: the twin's SRAM holds no data) and the
 * core's SRAM port (sram_drive/sram_clock below). The descriptor is offered at once and its
 * completion taken at once, and one more cycle is run after it (the DMA goes idle).
 *
 * The memo's key is the descriptor with its tensor-buffer address reduced modulo the span of
 * one round of the channel interleave (channels x interleave_bytes): the dram model's timing
 * of an access depends on its address only through the channel it maps to and its offset in
 * the interleave unit (models/dram/dram.h), both functions of that residue; and by how long
 * after the command's start each channel stays busy with what came before it (0: free), the
 * whole of a busy-until channel's timing state. A probe records what it did to the buffer's
 * timing (a dram_run); a later command with the same key takes the same cycles and replays the
 * run at its own start (dram_run_replay: exact, see dram.h). The SRAM address is kept whole
 * (the map is small). The descriptor is checked at its real addresses.
 */
#include "models/dma/dma_time.h"

#include "models/core/core_twin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/dma/dma_desc.h"
#include "models/dma/dma_twin.h"
#include "models/dram/dram.h"
#include "models/dram/dram_port.h"

#define MAX_CYCLE 100000000ull
#define MEMO_MAX  (1u << 16) /* runs kept: about 2.6 KB each */

struct key {
    uint64_t busy[DRAM_MAX_CHANNELS]; /* each channel busy for this long after the start */
    uint64_t src, dst; /* the tensor-buffer side reduced modulo the interleave span */
    uint64_t src_stride, dst_stride;
    uint32_t rows, len;
    uint8_t store, xpose;
};

struct ent {
    struct key k;
    uint64_t cycles;
    struct dram_run *run; /* what the probe did to a free buffer */
    uint8_t used;
};

/* A response of the SRAM port, due in the cycle of its slot. */
struct sram_slot {
    bool valid, err;
};

struct dma_time {
    struct dma_params params;
    struct dma_twin *tw;
    struct dram *tb;        /* dma_time_cycles' own buffer */
    struct dram_cfg tb_cfg; /* the configuration the memo's runs are exact for */
    uint64_t span;          /* channels x interleave_bytes of tb */
    uint64_t period_ps;
    struct dram_port *port; /* dma_time_cycles' port of tb */
    struct dram_port *cur;  /* the port of the probe running */
    struct sram_slot *sram; /* sram_lat slots: slot c % sram_lat answers in cycle c */
    uint64_t cyc;           /* DMA cycles run since the reset */
    struct ent *tab;
    size_t cap, n;
    uint64_t simulated, hits, contended;
};

/*
 * The core's SRAM port as the DMA sees it (rtl/core/core_dma.v): always ready, every accepted
 * request answered exactly sram_lat cycles later, with an error for a beat outside the map.
 * The contents are not kept (read data 0): the DMA's timing does not depend on them.
 */
static void sram_drive(const struct dma_time *t, struct dma_sram_rsp *out)
{
    const struct sram_slot *h = &t->sram[t->cyc % t->params.sram_lat];
    out->req_ready = true;
    out->rsp_valid = h->valid;
    out->rdata = 0;
    out->err = h->valid && h->err;
}

static void sram_clock(struct dma_time *t, const struct dma_sram_req *in)
{
    struct sram_slot *h = &t->sram[t->cyc % t->params.sram_lat];
    uint64_t bytes = t->params.sram_bytes;
    h->valid = in->valid;
    h->err = in->valid && (in->addr % 8 || in->addr >= bytes || bytes - in->addr < 8);
}

/*
 * One DMA clock cycle: the memories drive the DMA's inputs, the twin settles its outputs, then
 * the rising edge clocks all three. desc: the descriptor offered this cycle (NULL: none);
 * *taken: whether the DMA took it; the completion is always taken (*cpl_valid, *cpl).
 */
static void cycle(struct dma_time *t, const struct dma_desc *desc, bool *taken, bool *cpl_valid,
                  struct dma_cpl *cpl)
{
    struct dma_in in = {0};
    struct dma_out o;

    dram_port_drive(t->cur, &in.mem);
    sram_drive(t, &in.sram);
    in.desc_valid = desc != NULL;
    if (desc)
        in.desc = *desc;
    in.cpl_ready = true;
    dma_twin_set(t->tw, &in);
    dma_twin_get(t->tw, &o);
    *taken = desc && o.desc_ready;
    *cpl_valid = o.cpl_valid;
    if (o.cpl_valid)
        *cpl = o.cpl;
    dram_port_clock(t->cur, &o.mem);
    sram_clock(t, &o.sram);
    dma_twin_step(t->tw, 1);
    t->cyc++;
}

/* Run descriptor d on port (its time base set): *cycles from the cycle it was taken to the
 * cycle its completion was. */
static int probe(struct dma_time *t, struct dram_port *port, const struct dma_desc *d,
                 uint64_t *cycles, struct err *e)
{
    uint64_t end = t->cyc + MAX_CYCLE, accepted = 0;
    bool offered = true, done = false, taken, cpl_valid;
    struct dma_cpl cpl = {0};

    t->cur = port;
    while (!done) {
        if (t->cyc >= end) {
            return err_set(e, -ETIMEDOUT, "dma timing probe: no completion after %llu cycles",
                           (unsigned long long)MAX_CYCLE);
        }
        uint64_t now = t->cyc;
        cycle(t, offered ? d : NULL, &taken, &cpl_valid, &cpl);
        if (taken) {
            accepted = now;
            offered = false;
        }
        if (cpl_valid) {
            if (offered) {
                return err_set(e, -EIO, "dma timing probe: a completion for no descriptor");
            }
            *cycles = now - accepted;
            done = true;
        }
        if (dma_twin_errors(t->tw)) {
            return err_set(e, -EIO, "dma timing probe: %s", dma_twin_error(t->tw));
        }
    }
    cycle(t, NULL, &taken, &cpl_valid, &cpl); /* the DMA goes idle */
    if (cpl.status != DMA_ST_OK) {
        return err_set(e, -EIO, "dma timing probe: status %s", dma_status_name(cpl.status));
    }
    return 0;
}

int dma_time_create(const struct dma_params *params, const struct dram_cfg *tb_cfg,
                    uint64_t period_ps, struct dma_time **out, struct err *e)
{
    struct dma_time *t = calloc(1, sizeof(*t));
    struct dram_cfg tb;
    struct dram_port_cfg pc;
    int rc;

    *out = NULL;
    if (!t) {
        return err_set(e, -ENOMEM, "dma timing: out of memory");
    }
    t->params = *params;
    rc = dma_twin_create(params, &t->tw, e);
    if (rc)
        goto fail;
    /* The node's tensor buffer: its DDR4 channels, at least tb_bytes. */
    if (tb_cfg)
        tb = *tb_cfg;
    else
        dram_cfg_default(&tb);
    if (params->tb_bytes > tb.size_bytes)
        tb.size_bytes = params->tb_bytes;
    rc = dram_create(&tb, &t->tb, e);
    if (rc)
        goto fail;
    t->tb_cfg = tb;
    t->span = (uint64_t)tb.channels * tb.interleave_bytes;
    t->period_ps = period_ps;
    dram_port_cfg_default(&pc);
    pc.period_ps = period_ps;
    pc.name = "dma";
    rc = dram_port_create(&pc, t->tb, &t->port, e);
    if (rc)
        goto fail;
    t->sram = calloc(params->sram_lat, sizeof(*t->sram));
    t->cap = 256;
    t->tab = calloc(t->cap, sizeof(*t->tab));
    if (!t->sram || !t->tab) {
        rc = err_set(e, -ENOMEM, "dma timing: out of memory");
        goto fail;
    }
    /* Reset: two cycles, the memories not clocked. */
    struct dma_in in = {.rst = true};
    for (int i = 0; i < 2; i++) {
        dma_twin_set(t->tw, &in);
        dma_twin_step(t->tw, 1);
    }
    *out = t;
    return 0;

fail:
    dma_time_destroy(t);
    return rc;
}

int dma_time_create_core(const struct dma_params *params, const struct core_params *core,
                         const struct dram_cfg *tb, uint64_t period_ps, struct dma_time **out,
                         struct err *e)
{
    struct core_twin_map map;
    struct dma_params dp = *params;

    core_twin_map(core, &map);
    dp.sram_bytes = map.end;
    dp.sram_addr_bits = 1;
    while ((1ull << dp.sram_addr_bits) < map.end)
        dp.sram_addr_bits++;
    dp.sram_lat = CORE_DMA_LATENCY;
    dp.tb_bytes = tb->size_bytes;
    return dma_time_create(&dp, tb, period_ps, out, e);
}

void dma_time_destroy(struct dma_time *t)
{
    if (!t)
        return;
    dram_port_destroy(t->port);
    dram_destroy(t->tb);
    dma_twin_destroy(t->tw);
    free(t->sram);
    for (size_t i = 0; t->tab && i < t->cap; i++)
        free(t->tab[i].run);
    free(t->tab);
    free(t);
}

static uint64_t hash(const struct key *k)
{
    uint64_t h = 1469598103934665603ull, w[sizeof(*k) / 8];
    memcpy(w, k, sizeof(w));
    for (size_t i = 0; i < sizeof(w) / 8; i++)
        h = (h ^ w[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static struct ent *find(struct dma_time *t, const struct key *k)
{
    size_t i = hash(k) & (t->cap - 1);
    while (t->tab[i].used && memcmp(&t->tab[i].k, k, sizeof(*k)) != 0)
        i = (i + 1) & (t->cap - 1);
    return &t->tab[i];
}

static int grow(struct dma_time *t)
{
    struct ent *old = t->tab;
    size_t oc = t->cap;
    t->cap *= 2;
    t->tab = calloc(t->cap, sizeof(*t->tab));
    if (!t->tab) {
        t->tab = old;
        t->cap = oc;
        return -ENOMEM;
    }
    for (size_t i = 0; i < oc; i++)
        if (old[i].used)
            *find(t, &old[i].k) = old[i];
    free(old);
    return 0;
}

/* The memo's runs were recorded on a buffer of this timing; another would make them wrong. */
static int check_tb(const struct dma_time *t, const struct dram *tb, struct err *e)
{
    const struct dram_cfg *c = dram_get_cfg(tb), *m = &t->tb_cfg;
    if (c->channels != m->channels || c->chan_mbps != m->chan_mbps ||
        c->latency_ps != m->latency_ps || c->interleave_bytes != m->interleave_bytes)
        return err_set(e, -EINVAL,
                       "dma timing: a tensor buffer of %u channels of %u MB/s, latency %" PRIu64
                       " ps, interleave %u B; accepted: the timing's own (%u, %u, %" PRIu64 ", %u)",
                       c->channels, c->chan_mbps, c->latency_ps, c->interleave_bytes, m->channels,
                       m->chan_mbps, m->latency_ps, m->interleave_bytes);
    return 0;
}

/* Probe d at now on port of tb, timing only; with run, record what it did to tb's timing. */
static int probe_at(struct dma_time *t, struct dram_port *port, struct dram *tb, uint64_t now,
                    const struct dma_desc *d, uint64_t *cycles, struct dram_run *run, struct err *e)
{
    struct dram_timing *before = NULL;
    int rc;

    if (run && !(before = malloc(sizeof(*before))))
        return err_set(e, -ENOMEM, "dma timing: out of memory");
    if (before)
        dram_timing_save(tb, before);
    dram_port_set_time(port, now);
    dram_port_set_nodata(port, true);
    rc = probe(t, port, d, cycles, e);
    dram_port_set_nodata(port, false);
    if (!rc && run)
        dram_run_record(tb, dram_port_requester(port), now, before, run);
    free(before);
    return rc;
}

int dma_time_run(struct dma_time *t, const struct dma_desc *d, struct dram_port *port,
                 struct dram *tb, uint64_t now, uint64_t *cycles, struct err *e)
{
    struct key k;
    struct dram_run *run = NULL;
    uint64_t c = 0; /* probe() sets it when it returns 0 */
    bool fresh = true;
    int rc;

    enum dma_status st = dma_desc_check(d, &t->params);
    if (st != DMA_ST_OK) {
        char b[160];
        dma_desc_format(d, b, sizeof(b));
        return err_set(e, -EINVAL, "dma: descriptor rejected (%s): %s", dma_status_name(st), b);
    }
    if ((rc = check_tb(t, tb, e)))
        return rc;
    if (dram_port_pending(port))
        return err_set(e, -EIO, "dma timing: the tensor-buffer port has %u responses pending",
                       dram_port_pending(port));
    memset(&k, 0, sizeof(k));
    k.store = d->store;
    k.xpose = d->xpose;
    k.rows = d->rows;
    k.len = d->len;
    k.src_stride = d->src_stride;
    k.dst_stride = d->dst_stride;
    k.src = d->store ? d->src : d->src % t->span;
    k.dst = d->store ? d->dst % t->span : d->dst;
    const struct dram_cfg *tc = dram_get_cfg(tb);
    for (uint32_t ch = 0; ch < tc->channels; ch++) {
        uint64_t b = dram_chan_stats(tb, ch)->busy_until;
        k.busy[ch] = b > now ? b - now : 0;
        fresh = fresh && !k.busy[ch];
    }
    t->contended += !fresh;
    struct ent *ent = find(t, &k);
    if (ent->used) {
        t->hits++;
        dram_run_replay(tb, dram_port_requester(port), now, ent->run);
        *cycles = ent->cycles;
        return 0;
    }
    t->simulated++;
    if (t->n >= MEMO_MAX) /* a bound on host memory: from then on, the twin runs them all */
        return probe_at(t, port, tb, now, d, cycles, NULL, e);
    if (!(run = malloc(sizeof(*run))))
        return err_set(e, -ENOMEM, "dma timing: out of memory");
    rc = probe_at(t, port, tb, now, d, &c, run, e);
    if (rc) {
        free(run);
        return rc;
    }
    *cycles = c;
    if ((t->n + 1) * 2 > t->cap) {
        if (grow(t)) {
            free(run);
            return err_set(e, -ENOMEM, "dma timing: out of memory");
        }
        ent = find(t, &k);
    }
    ent->k = k;
    ent->cycles = c;
    ent->run = run;
    ent->used = 1;
    t->n++;
    return 0;
}

int dma_time_cycles(struct dma_time *t, const struct dma_desc *d, uint64_t *cycles, struct err *e)
{
    /* Its own buffer, from the time every channel of it is free: the descriptor alone. */
    return dma_time_run(t, d, t->port, t->tb, dram_free_from(t->tb), cycles, e);
}

const struct dma_params *dma_time_params(const struct dma_time *t)
{
    return &t->params;
}

uint64_t dma_time_simulated(const struct dma_time *t)
{
    return t->simulated;
}

uint64_t dma_time_hits(const struct dma_time *t)
{
    return t->hits;
}

uint64_t dma_time_contended(const struct dma_time *t)
{
    return t->contended;
}
