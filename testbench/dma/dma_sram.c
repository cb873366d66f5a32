#include "testbench/dma/dma_sram.h"
#include "csim/rng.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

struct slot {
    bool valid, err;
    uint64_t data;
};

struct dma_sram {
    struct dma_sram_cfg cfg;
    uint8_t *mem;
    struct slot *pipe; /* rd_lat slots; slot c % rd_lat answers in cycle c */
    uint64_t cyc, rng;
    bool stall;
    struct dma_sram_rsp driven;
    bool drove;
    struct dma_sram_stats st;
};

int dma_sram_create(const struct dma_sram_cfg *cfg, struct dma_sram **out, struct err *e)
{
    *out = NULL;
    if (!cfg->bytes || !cfg->rd_lat || cfg->stall_pct > 99)
        return err_set(e, -EINVAL,
                       "SRAM model: bytes %" PRIu64 " latency %u stall %u%%; accepted bytes >= 1, "
                       "latency >= 1, stall 0..99",
                       cfg->bytes, cfg->rd_lat, cfg->stall_pct);
    struct dma_sram *s = calloc(1, sizeof(*s));
    if (!s)
        return err_set(e, -ENOMEM, "SRAM model: out of memory");
    s->mem = calloc(cfg->bytes, 1);
    s->pipe = calloc(cfg->rd_lat, sizeof(*s->pipe));
    if (!s->mem || !s->pipe) {
        dma_sram_destroy(s);
        return err_set(e, -ENOMEM, "SRAM model: out of memory for %" PRIu64 " bytes", cfg->bytes);
    }
    s->cfg = *cfg;
    s->rng = cfg->seed;
    s->stall = cfg->stall_pct && rng_next(&s->rng) % 100 < cfg->stall_pct;
    *out = s;
    return 0;
}

void dma_sram_destroy(struct dma_sram *s)
{
    if (!s)
        return;
    free(s->mem);
    free(s->pipe);
    free(s);
}

void dma_sram_drive(struct dma_sram *s, struct dma_sram_rsp *out)
{
    const struct slot *h = &s->pipe[s->cyc % s->cfg.rd_lat];
    out->req_ready = !s->stall;
    out->rsp_valid = h->valid;
    out->rdata = h->valid ? h->data : 0;
    out->err = h->valid && h->err;
    s->driven = *out;
    s->drove = true;
}

void dma_sram_clock(struct dma_sram *s, const struct dma_sram_req *in)
{
    assert(s->drove && "dma_sram_drive() must come before dma_sram_clock() in a cycle");
    struct slot *h = &s->pipe[s->cyc % s->cfg.rd_lat];
    h->valid = false;
    if (in->valid && !s->driven.req_ready)
        s->st.stall_cycles++;
    if (in->valid && s->driven.req_ready) {
        bool ok = in->addr % 8 == 0 && in->addr < s->cfg.bytes && s->cfg.bytes - in->addr >= 8;
        uint64_t v = 0;
        if (!ok)
            s->st.errors++;
        if (in->write) {
            s->st.writes++;
            for (unsigned i = 0; ok && i < 8; i++)
                if (in->wstrb >> i & 1)
                    s->mem[in->addr + i] = (uint8_t)(in->wdata >> (8 * i));
        } else {
            for (int i = 7; ok && i >= 0; i--)
                v = v << 8 | s->mem[in->addr + (unsigned)i];
            s->st.reads++;
        }
        h->valid = true;
        h->err = !ok;
        h->data = v;
    }
    s->cyc++;
    s->drove = false;
    s->stall = s->cfg.stall_pct && rng_next(&s->rng) % 100 < s->cfg.stall_pct;
}

uint8_t *dma_sram_bytes(struct dma_sram *s)
{
    return s->mem;
}

const struct dma_sram_stats *dma_sram_stats(const struct dma_sram *s)
{
    return &s->st;
}
