#include "models/dram/dram_port.h"
#include "csim/rng.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct rsp_slot {
    uint64_t due; /* first cycle it may be presented */
    uint64_t rdata;
    bool err;
};

struct dram_port {
    struct dram *d;
    struct dram_port_cfg cfg;
    int rid;
    struct rsp_slot *q; /* ring of max_outstanding */
    unsigned head, len;
    uint64_t cyc;
    uint64_t base_cyc, base_ps; /* cycle base_cyc's edge is at base_ps */
    bool nodata;
    uint64_t rng;
    bool req_stall, rsp_stall; /* drawn for the current cycle */
    struct mem_port_rsp driven;
    bool drove;
    struct dram_port_stats st;
};

static void draw_stalls(struct dram_port *p)
{
    p->req_stall = p->cfg.req_stall_pct && rng_next(&p->rng) % 100 < p->cfg.req_stall_pct;
    p->rsp_stall = p->cfg.rsp_stall_pct && rng_next(&p->rng) % 100 < p->cfg.rsp_stall_pct;
}

void dram_port_cfg_default(struct dram_port_cfg *c)
{
    *c =
        (struct dram_port_cfg){.period_ps = 1250, .max_outstanding = 64, .seed = 1, .name = "port"};
}

int dram_port_create(const struct dram_port_cfg *cfg, struct dram *d, struct dram_port **out,
                     struct err *e)
{
    const char *name = cfg->name ? cfg->name : "?";

    if (cfg->period_ps == 0 || cfg->max_outstanding == 0 || cfg->req_stall_pct > 100 ||
        cfg->rsp_stall_pct > 100 || (cfg->req_stall_pct == 100 && cfg->rsp_stall_pct == 100))
        return err_set(e, -EINVAL,
                       "dram_port '%s': period_ps %llu, max_outstanding %u, stalls %u%%/%u%%: "
                       "accepted period_ps >= 1, max_outstanding >= 1, stalls 0..100",
                       name, (unsigned long long)cfg->period_ps, cfg->max_outstanding,
                       cfg->req_stall_pct, cfg->rsp_stall_pct);
    struct dram_port *p = calloc(1, sizeof(*p));
    if (!p)
        return err_set(e, -ENOMEM, "dram_port '%s': out of memory", name);
    p->q = calloc(cfg->max_outstanding, sizeof(*p->q));
    if (!p->q) {
        free(p);
        return err_set(e, -ENOMEM, "dram_port '%s': out of memory for %u requests", name,
                       cfg->max_outstanding);
    }
    p->d = d;
    p->cfg = *cfg;
    p->rid = dram_requester(d, cfg->name);
    if (p->rid < 0) {
        free(p->q);
        free(p);
        return err_set(e, -ENOSPC, "dram_port '%s': no requester id left (at most %u)", name,
                       DRAM_MAX_REQUESTERS);
    }
    p->rng = cfg->seed;
    draw_stalls(p);
    *out = p;
    return 0;
}

void dram_port_destroy(struct dram_port *p)
{
    if (!p)
        return;
    free(p->q);
    free(p);
}

void dram_port_drive(struct dram_port *p, struct mem_port_rsp *out)
{
    const struct rsp_slot *h = &p->q[p->head];
    out->req_ready = p->len < p->cfg.max_outstanding && !p->req_stall;
    out->rsp_valid = p->len && h->due <= p->cyc && !p->rsp_stall;
    out->rdata = out->rsp_valid ? h->rdata : 0;
    out->err = out->rsp_valid && h->err;
    p->driven = *out;
    p->drove = true;
}

static void accept(struct dram_port *p, const struct mem_port_req *in)
{
    uint64_t now = p->base_ps + (p->cyc - p->base_cyc) * p->cfg.period_ps;
    const struct dram_cfg *dc = dram_get_cfg(p->d);
    struct rsp_slot s = {0};
    uint64_t done;

    if (in->addr % 8 || !dram_in_range(p->d, in->addr, 8)) {
        s.err = true;
        done = now + dc->latency_ps;
        p->st.errors++;
    } else {
        done = dram_access(p->d, p->rid, now, in->addr, 8, in->write);
        if (p->nodata) {
            /* timing only: nothing read, nothing written */
        } else if (in->write) {
            int rc = dram_write_beat(p->d, in->addr, in->wdata, in->wstrb);
            s.err = rc != 0; /* only -ENOMEM can be left here */
        } else {
            dram_read_beat(p->d, in->addr, &s.rdata);
        }
    }
    if (in->write)
        p->st.writes++;
    else
        p->st.reads++;
    s.due = p->base_cyc + (done - p->base_ps + p->cfg.period_ps - 1) / p->cfg.period_ps;
    if (s.due < p->cyc + 1)
        s.due = p->cyc + 1;
    /* In order: never due before the response ahead of it. */
    if (p->len) {
        const struct rsp_slot *last = &p->q[(p->head + p->len - 1) % p->cfg.max_outstanding];
        if (s.due < last->due)
            s.due = last->due;
    }
    p->q[(p->head + p->len) % p->cfg.max_outstanding] = s;
    p->len++;
}

void dram_port_clock(struct dram_port *p, const struct mem_port_req *in)
{
    assert(p->drove && "dram_port_drive() must come before dram_port_clock() in a cycle");
    bool take = in->valid && p->driven.req_ready;
    bool retire = p->driven.rsp_valid && in->rsp_ready;

    if (in->valid && !p->driven.req_ready)
        p->st.req_stall_cycles++;
    if (p->len && p->q[p->head].due <= p->cyc && !retire)
        p->st.rsp_wait_cycles++;
    if (retire) {
        p->head = p->head + 1 == p->cfg.max_outstanding ? 0 : p->head + 1;
        p->len--;
    }
    if (take)
        accept(p, in);
    if (p->len > p->st.max_pending)
        p->st.max_pending = p->len;
    p->cyc++;
    p->st.cycles++;
    p->drove = false;
    draw_stalls(p);
}

void dram_port_skip(struct dram_port *p, uint64_t cycles)
{
    assert(!p->len && !p->cfg.req_stall_pct && !p->cfg.rsp_stall_pct && !p->drove);
    p->cyc += cycles;
    p->st.cycles += cycles;
}

uint64_t dram_port_cycle(const struct dram_port *p)
{
    return p->cyc;
}

void dram_port_set_time(struct dram_port *p, uint64_t t_ps)
{
    /* Responses pending keep their due cycles; the next ones are timed on the new base. */
    p->base_cyc = p->cyc;
    p->base_ps = t_ps;
}

void dram_port_set_nodata(struct dram_port *p, bool nodata)
{
    p->nodata = nodata;
}

unsigned dram_port_pending(const struct dram_port *p)
{
    return p->len;
}

const struct dram_port_stats *dram_port_stats(const struct dram_port *p)
{
    return &p->st;
}

int dram_port_requester(const struct dram_port *p)
{
    return p->rid;
}
