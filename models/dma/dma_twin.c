/*
 * dma_twin: see dma_twin.h. Each struct below is one RTL module; its fields are that
 * module's registers, named as in the Verilog without the _q. step_one() evaluates the
 * combinational logic from the registers and the inputs, then updates every register, in the
 * order of the data flow (a value computed for the cycle is never one updated in it).
 */
#include "models/dma/dma_twin.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M40 ((1ull << 40) - 1)

enum { S_IDLE = 0, S_CHECK = 1, S_RUN = 2, S_CPL = 3 };

/* cmn_fifo: a ring; the RTL's pointer pair is (head, count) here. */
struct ring {
    void *v;
    size_t elem;
    unsigned depth, head, count;
};

/* cmn_skid_buf with the memory request payload. */
struct req {
    bool write;
    uint64_t addr, wdata;
    uint8_t wstrb;
};

struct skid {
    bool out_valid, skid_valid;
    struct req out, skid;
};

/* dma_agen */
struct agen {
    bool w_done;
    uint64_t w_row, w_rb;
    uint32_t w_col, w_gr;
    bool b_valid;
    uint64_t b_addr; /* byte address, a multiple of 8 */
    uint32_t b_left;
    bool b_first;
    unsigned b_off, b_end;
    bool b_tlast;
    unsigned b_wm1;
};

/* Geometry inputs of a dma_agen. */
struct walk {
    bool tile, colmajor;
    uint64_t base, stride;
    uint32_t rows, len;
};

/* Combinational outputs of a dma_agen's walker. */
struct seg {
    uint64_t addr;
    uint32_t len, end; /* end: off + len - 1 */
    bool tlast, last_row, last_col, last_rowblk;
};

/* dma_rd_pack */
struct pack {
    bool o_valid;
    uint64_t o_data;
    bool o_slast, o_tlast;
    unsigned o_wm1;
    uint64_t prev;
    bool pend;
    unsigned pend_off;
    bool pend_tlast;
    unsigned pend_wm1;
};

/* dma_xpose */
struct xpose {
    uint64_t row[8];
    bool full[2];
    unsigned wm1[2], tm1[2];
    unsigned fill_bank, fill_row, drain_bank, drain_col;
};

/* dma_ctl */
struct ctl {
    unsigned state;
    struct dma_desc d;
    uint8_t status;
    uint32_t cyc;
    bool err;
    unsigned pend;
};

struct dma_twin {
    struct dma_params p;
    struct dma_in in;
    uint64_t cycle;
    struct ring desc_q, meta_q, data_q, cpl_q;
    struct ctl ctl;
    struct agen rd, wr;
    struct pack pack;
    struct xpose xp;
    uint64_t wr_prev; /* dma_wr */
    struct skid mem, sram;
    uint64_t sram_acc; /* latency checker: bit k = a request accepted k + 1 cycles ago */
    uint64_t n_err;
    char err[256];
};

/* ---------------------------------------------------------------- helpers */

static int ring_init(struct ring *r, size_t elem, unsigned depth)
{
    r->v = calloc(depth, elem);
    r->elem = elem;
    r->depth = depth;
    r->head = r->count = 0;
    return r->v ? 0 : -ENOMEM;
}

static void *ring_head(const struct ring *r)
{
    return (char *)r->v + r->head * r->elem;
}

static void ring_push(struct ring *r, const void *x)
{
    memcpy((char *)r->v + (r->head + r->count) % r->depth * r->elem, x, r->elem);
    r->count++;
}

static void ring_pop(struct ring *r)
{
    r->head = (r->head + 1) % r->depth;
    r->count--;
}

static bool is_pow2(unsigned x)
{
    return x >= 2 && (x & (x - 1)) == 0;
}

static void twin_err(struct dma_twin *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void twin_err(struct dma_twin *t, const char *fmt, ...)
{
    if (t->n_err++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        int n = snprintf(t->err, sizeof(t->err), "cycle %llu: ", (unsigned long long)t->cycle);
        vsnprintf(t->err + n, sizeof(t->err) - (size_t)n, fmt, ap);
        va_end(ap);
    }
}

/* ({hi, lo} >> 8 * off)[63:0], off 0..7. */
static uint64_t shr(uint64_t hi, uint64_t lo, unsigned off)
{
    return off ? lo >> (8 * off) | hi << (64 - 8 * off) : lo;
}

/* ---------------------------------------------------------------- dma_ctl checks */

static uint8_t ctl_check(const struct dma_twin *t)
{
    return (uint8_t)dma_desc_check(&t->ctl.d, &t->p);
}

/* ---------------------------------------------------------------- dma_agen */

static void agen_seg(const struct agen *a, const struct walk *w, struct seg *s)
{
    uint32_t rem = (w->len - a->w_col) & 0xffffff;
    s->len = w->tile && rem > 8 ? 8 : rem;
    s->addr = (a->w_row + a->w_col) & M40;
    s->end = (uint32_t)(s->addr & 7) + s->len - 1;
    s->last_row = a->w_gr == ((w->rows - 1) & 0xffffff);
    s->tlast = (w->tile && (a->w_gr & 3) == 3) || s->last_row;
    s->last_col = !w->tile || rem <= 8;
    s->last_rowblk = (a->w_gr | 3) >= ((w->rows - 1) & 0xffffff);
}

static void agen_clock(struct agen *a, const struct walk *w, bool start, bool ready)
{
    struct seg s;
    agen_seg(a, w, &s);
    bool fire = a->b_valid && ready;
    bool b_last = a->b_left == 0;
    bool load = !a->w_done && (!a->b_valid || (fire && b_last));
    struct agen n = *a;

    /* walker control */
    if (start)
        n.w_done = false;
    else if (load && s.tlast && (!w->tile || (s.last_col && s.last_rowblk)))
        n.w_done = true;
    /* walker position */
    if (start) {
        n.w_row = n.w_rb = w->base;
        n.w_col = n.w_gr = 0;
    } else if (load) {
        if (!s.tlast) {
            n.w_gr = a->w_gr + 1;
            n.w_row = (a->w_row + w->stride) & M40;
        } else if (!w->colmajor) {
            if (!s.last_col) {
                n.w_col = a->w_col + 8;
                n.w_gr = a->w_gr & ~3u;
                n.w_row = a->w_rb;
            } else {
                n.w_col = 0;
                n.w_gr = a->w_gr + 1;
                n.w_row = n.w_rb = (a->w_row + w->stride) & M40;
            }
        } else {
            if (!s.last_rowblk) {
                n.w_gr = a->w_gr + 1;
                n.w_row = (a->w_row + w->stride) & M40;
            } else {
                n.w_col = a->w_col + 8;
                n.w_gr = 0;
                n.w_row = w->base;
            }
        }
        n.w_gr &= 0xffffff;
        n.w_col &= 0xffffff;
    }
    /* beat stage */
    if (start)
        n.b_valid = false;
    else if (load)
        n.b_valid = true;
    else if (fire && b_last)
        n.b_valid = false;
    if (load) {
        n.b_addr = s.addr & ~7ull;
        n.b_left = s.end >> 3;
        n.b_first = true;
        n.b_off = (unsigned)(s.addr & 7);
        n.b_end = s.end & 7;
        n.b_tlast = s.tlast;
        n.b_wm1 = ((s.len >> 1) - 1) & 3;
    } else if (fire) {
        n.b_addr = (a->b_addr + 8) & M40;
        n.b_left = a->b_left - 1;
        n.b_first = false;
    }
    *a = n;
}

static bool agen_done(const struct agen *a)
{
    return a->w_done && !a->b_valid;
}

static void agen_reset(struct agen *a)
{
    a->w_done = true;
    a->b_valid = false;
}

/* ---------------------------------------------------------------- dma_xpose */

static uint64_t xpose_column(const struct xpose *x)
{
    uint64_t col = 0;
    unsigned b = x->drain_bank;
    for (unsigned i = 0; i < 4; i++)
        if (i <= x->tm1[b])
            col |= (x->row[4 * b + i] >> (16 * x->drain_col) & 0xffff) << (16 * i);
    return col;
}

/* ---------------------------------------------------------------- skid */

static void skid_clock(struct skid *s, bool in_valid, const struct req *in, bool out_ready)
{
    bool in_fire = in_valid && !s->skid_valid;
    bool out_fire = s->out_valid && out_ready;
    if (!s->out_valid || out_fire) {
        if (s->skid_valid || in_fire)
            s->out = s->skid_valid ? s->skid : *in;
        s->out_valid = s->skid_valid || in_fire;
        s->skid_valid = false;
    } else if (in_fire) {
        s->skid_valid = true;
        s->skid = *in;
    }
}

/* ---------------------------------------------------------------- one cycle */

static void walks(const struct dma_twin *t, struct walk *rw, struct walk *ww)
{
    const struct dma_desc *d = &t->ctl.d;
    *rw = (struct walk){.tile = d->xpose,
                        .colmajor = false,
                        .base = d->src,
                        .stride = d->src_stride,
                        .rows = d->rows,
                        .len = d->len};
    *ww = (struct walk){.tile = d->xpose,
                        .colmajor = true,
                        .base = d->dst,
                        .stride = d->dst_stride,
                        .rows = d->xpose ? d->len >> 1 : d->rows,
                        .len = d->xpose ? 2 * d->rows : d->len};
}

static void reset(struct dma_twin *t)
{
    t->desc_q.count = t->meta_q.count = t->data_q.count = t->cpl_q.count = 0;
    t->ctl.state = S_IDLE;
    t->ctl.cyc = 1;
    t->ctl.err = false;
    t->ctl.pend = 0;
    agen_reset(&t->rd);
    agen_reset(&t->wr);
    t->pack.o_valid = t->pack.pend = false;
    t->xp.full[0] = t->xp.full[1] = false;
    t->xp.fill_bank = t->xp.fill_row = t->xp.drain_bank = t->xp.drain_col = 0;
    t->mem.out_valid = t->mem.skid_valid = false;
    t->sram.out_valid = t->sram.skid_valid = false;
    t->sram_acc = 0;
}

static void step_one(struct dma_twin *t)
{
    const struct dma_in *in = &t->in;
    struct ctl *c = &t->ctl;
    const struct dma_desc *d = &c->d;
    struct walk rw, ww;

    if (in->rst) {
        /* Registers without a reset keep their values; none of them is read before it is
         * written again after the reset. */
        reset(t);
        t->cycle++;
        return;
    }
    walks(t, &rw, &ww);

    /* dma_ctl */
    bool q_valid = t->desc_q.count > 0;
    bool desc_in_ready = t->desc_q.count < t->desc_q.depth;
    bool take = c->state == S_IDLE && q_valid;
    uint8_t check = c->state == S_CHECK ? ctl_check(t) : 0;
    bool start = c->state == S_CHECK && check == DMA_ST_OK;
    bool wr_gate = c->pend != t->p.max_wr_out;

    /* read side */
    bool mem_in_ready = !t->mem.skid_valid, sram_in_ready = !t->sram.skid_valid;
    bool meta_in_ready = t->meta_q.count < t->meta_q.depth;
    bool rd_issue = t->rd.b_valid && meta_in_ready;
    bool rd_fire = rd_issue && (d->store ? sram_in_ready : mem_in_ready);

    /* dma_xpose outputs */
    struct xpose *x = &t->xp;
    struct pack *pk = &t->pack;
    bool x_in_ready = !x->full[x->fill_bank];
    bool x_out_valid = x->full[x->drain_bank];
    bool xp_valid = d->xpose ? x_out_valid : pk->o_valid;
    uint64_t xp_data = d->xpose ? xpose_column(x) : pk->o_data;
    bool drain_end = x->drain_col == x->wm1[x->drain_bank];

    /* dma_wr */
    const struct agen *wb = &t->wr;
    bool wb_last = wb->b_left == 0;
    bool consume = !(wb_last && wb->b_end < wb->b_off);
    bool wr_valid = wb->b_valid && (!consume || xp_valid) && wr_gate;
    bool wr_fire = wr_valid && (d->store ? mem_in_ready : sram_in_ready);
    bool xp_ready = wr_fire && consume;
    struct req wreq = {.write = true, .addr = wb->b_addr};
    {
        unsigned lo = wb->b_first ? wb->b_off : 0, hi = wb_last ? wb->b_end : 7;
        uint64_t placed = shr(xp_data, t->wr_prev, (8 - wb->b_off) & 7);
        if (wb->b_off == 0)
            placed = xp_data;
        for (unsigned i = lo; i <= hi; i++)
            wreq.wstrb |= (uint8_t)(1u << i);
        for (unsigned i = 0; i < 8; i++)
            if (wreq.wstrb >> i & 1)
                wreq.wdata |= placed & (0xffull << (8 * i));
    }

    /* dma_xpose input side */
    bool pk_ready = d->xpose ? x_in_ready : xp_ready;
    bool x_in_fire = d->xpose && pk->o_valid && x_in_ready;
    bool x_out_fire = d->xpose && x_out_valid && xp_ready;

    /* dma_rd_pack */
    bool data_valid = t->data_q.count > 0;
    uint16_t meta = data_valid ? *(uint16_t *)ring_head(&t->meta_q) : 0;
    uint64_t data = data_valid ? *(uint64_t *)ring_head(&t->data_q) : 0;
    bool m_first = meta >> 10 & 1, m_last = meta >> 9 & 1, m_tlast = meta >> 2 & 1;
    unsigned m_off = meta >> 6 & 7, m_end = meta >> 3 & 7, m_wm1 = meta & 3;
    bool can_load = !pk->o_valid || pk_ready;
    bool emit = m_off == 0 || !m_first || m_last;
    bool extra = m_last && !m_first && m_off != 0 && m_end >= m_off;
    bool pack_take = !pk->pend && data_valid && (!emit || can_load);
    uint64_t packed = (m_first && m_last) ? shr(0, data, m_off)
                      : m_off == 0        ? data
                                          : shr(data, pk->prev, m_off);

    /* responses */
    bool data_push = d->store ? in->sram.rsp_valid : in->mem.rsp_valid;
    bool data_in_ready = t->data_q.count < t->data_q.depth;
    uint64_t push_data = d->store ? in->sram.rdata : in->mem.rdata;
    bool ack = d->store ? in->mem.rsp_valid : in->sram.rsp_valid;
    bool rsp = in->mem.rsp_valid || in->sram.rsp_valid;
    bool err = (in->mem.rsp_valid && in->mem.err) || (in->sram.rsp_valid && in->sram.err);

    /* completion and end of transfer */
    bool cq_ready = t->cpl_q.count < t->cpl_q.depth;
    bool finished = agen_done(&t->rd) && agen_done(&t->wr) && c->pend == 0;

    /* environment checks (the RTL's assertions) */
    if (in->sram.rsp_valid != (bool)(t->sram_acc >> (t->p.sram_lat - 1) & 1))
        twin_err(t, "SRAM response %s, expected %u cycles after each request",
                 in->sram.rsp_valid ? "without a request" : "missing", t->p.sram_lat);
    if (data_push && !data_in_ready)
        twin_err(t, "read data with no room reserved for it");
    if (ack && c->pend == 0)
        twin_err(t, "a write acknowledgement with no write outstanding");
    if (rsp && c->state != S_RUN)
        twin_err(t, "a memory response outside a transfer");

    /* ---- register updates ---- */
    struct req rreq = {.write = false, .addr = t->rd.b_addr};
    bool sram_acc = t->sram.out_valid && in->sram.req_ready;
    t->sram_acc = (t->sram_acc << 1 | sram_acc) & ((1ull << t->p.sram_lat) - 1);
    skid_clock(&t->mem, d->store ? wr_valid : rd_issue, d->store ? &wreq : &rreq,
               in->mem.req_ready);
    skid_clock(&t->sram, d->store ? rd_issue : wr_valid, d->store ? &rreq : &wreq,
               in->sram.req_ready);

    /* completion queue: push from CPL, pop by the consumer */
    if (t->cpl_q.count && in->cpl_ready)
        ring_pop(&t->cpl_q);
    if (c->state == S_CPL && cq_ready) {
        struct dma_cpl cp = {.tag = d->tag, .status = c->status, .cycles = c->cyc};
        ring_push(&t->cpl_q, &cp);
    }

    /* dma_wr, dma_xpose, dma_rd_pack */
    if (xp_ready)
        t->wr_prev = xp_data;
    if (x_in_fire) {
        x->row[4 * x->fill_bank + x->fill_row] = pk->o_data;
        if (pk->o_tlast) {
            x->wm1[x->fill_bank] = pk->o_wm1;
            x->tm1[x->fill_bank] = x->fill_row;
            x->full[x->fill_bank] = true;
            x->fill_bank ^= 1;
            x->fill_row = 0;
        } else {
            x->fill_row = (x->fill_row + 1) & 3;
        }
    }
    if (x_out_fire) {
        if (drain_end) {
            x->full[x->drain_bank] = false;
            x->drain_bank ^= 1;
            x->drain_col = 0;
        } else {
            x->drain_col = (x->drain_col + 1) & 3;
        }
    }
    if (pk->pend) {
        if (can_load) {
            pk->o_valid = true;
            pk->pend = false;
            pk->o_data = shr(0, pk->prev, pk->pend_off);
            pk->o_slast = true;
            pk->o_tlast = pk->pend_tlast;
            pk->o_wm1 = pk->pend_wm1;
        }
    } else if (pack_take && emit) {
        pk->o_valid = true;
        pk->pend = extra;
        pk->o_data = packed;
        pk->o_slast = m_last && !extra;
        pk->o_tlast = m_tlast && m_last && !extra;
        pk->o_wm1 = m_wm1;
    } else if (can_load) {
        pk->o_valid = false;
    }
    if (pack_take) {
        pk->prev = data;
        pk->pend_off = m_off;
        pk->pend_tlast = m_tlast;
        pk->pend_wm1 = m_wm1;
    }

    /* meta and data FIFOs */
    if (pack_take) {
        ring_pop(&t->meta_q);
        ring_pop(&t->data_q);
    }
    if (rd_fire) {
        uint16_t m = (uint16_t)(t->rd.b_first << 10 | (t->rd.b_left == 0) << 9 | t->rd.b_off << 6 |
                                t->rd.b_end << 3 | t->rd.b_tlast << 2 | t->rd.b_wm1);
        ring_push(&t->meta_q, &m);
    }
    if (data_push && data_in_ready)
        ring_push(&t->data_q, &push_data);

    /* address generators */
    agen_clock(&t->rd, &rw, start, rd_fire);
    agen_clock(&t->wr, &ww, start, wr_fire);

    /* dma_ctl */
    if (c->state == S_CHECK)
        c->status = check;
    else if (c->state == S_RUN && finished)
        c->status = c->err ? DMA_ST_MEM_ERR : DMA_ST_OK;
    if (start)
        c->err = false;
    else if (err)
        c->err = true;
    if (wr_fire && !ack)
        c->pend++;
    else if (!wr_fire && ack)
        c->pend--;
    if (take)
        c->cyc = 1;
    else if (c->state != S_IDLE && c->cyc != UINT32_MAX)
        c->cyc++;
    if (take) {
        c->d = *(struct dma_desc *)ring_head(&t->desc_q);
        ring_pop(&t->desc_q);
    }
    switch (c->state) {
    case S_IDLE:
        if (q_valid)
            c->state = S_CHECK;
        break;
    case S_CHECK:
        c->state = check == DMA_ST_OK ? S_RUN : S_CPL;
        break;
    case S_RUN:
        if (finished)
            c->state = S_CPL;
        break;
    default:
        if (cq_ready)
            c->state = S_IDLE;
        break;
    }

    /* descriptor queue push (readiness as before the pop, as in cmn_fifo) */
    if (in->desc_valid && desc_in_ready) {
        struct dma_desc nd = in->desc;
        dma_desc_truncate(&nd);
        ring_push(&t->desc_q, &nd);
    }
    t->cycle++;
}

/* ---------------------------------------------------------------- interface */

int dma_twin_create(const struct dma_params *p, struct dma_twin **out, char *msg, size_t msglen)
{
    const char *why = NULL;
    if (p->sram_addr_bits < 4 || p->sram_addr_bits > 40)
        why = "sram_addr_bits (SramAddrW) must be 4..40";
    else if (p->sram_bytes < 8 || p->sram_bytes > (1ull << p->sram_addr_bits) ||
             p->sram_bytes > INT32_MAX)
        why = "sram_bytes (SramBytes) must be 8 .. min(2^SramAddrW, 2^31 - 1)";
    else if (p->tb_bytes < 1024 || p->tb_bytes % 1024 || p->tb_bytes / 1024 > INT32_MAX)
        why = "tb_bytes must be a multiple of 1024, 1 KiB .. (2^31 - 1) KiB";
    else if (p->sram_lat < 1 || p->sram_lat > 63)
        why = "sram_lat (SramLat) must be 1..63";
    else if (!is_pow2(p->max_rd_out) || !is_pow2(p->desc_depth) || !is_pow2(p->cpl_depth))
        why = "max_rd_out, desc_depth and cpl_depth must be powers of two >= 2";
    else if (p->max_wr_out < 1)
        why = "max_wr_out (MaxWrOut) must be >= 1";
    if (why) {
        if (msg && msglen)
            snprintf(msg, msglen, "dma_twin: %s", why);
        return -EINVAL;
    }
    struct dma_twin *t = calloc(1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    t->p = *p;
    if (ring_init(&t->desc_q, sizeof(struct dma_desc), p->desc_depth) ||
        ring_init(&t->meta_q, sizeof(uint16_t), p->max_rd_out) ||
        ring_init(&t->data_q, sizeof(uint64_t), p->max_rd_out) ||
        ring_init(&t->cpl_q, sizeof(struct dma_cpl), p->cpl_depth)) {
        dma_twin_destroy(t);
        return -ENOMEM;
    }
    reset(t);
    *out = t;
    return 0;
}

void dma_twin_destroy(struct dma_twin *t)
{
    if (!t)
        return;
    free(t->desc_q.v);
    free(t->meta_q.v);
    free(t->data_q.v);
    free(t->cpl_q.v);
    free(t);
}

void dma_twin_params(const struct dma_twin *t, struct dma_params *out)
{
    *out = t->p;
}

void dma_twin_set(struct dma_twin *t, const struct dma_in *in)
{
    t->in = *in;
}

void dma_twin_get(struct dma_twin *t, struct dma_out *out)
{
    memset(out, 0, sizeof(*out));
    out->desc_ready = t->desc_q.count < t->desc_q.depth;
    out->cpl_valid = t->cpl_q.count > 0;
    if (out->cpl_valid)
        out->cpl = *(const struct dma_cpl *)ring_head(&t->cpl_q);
    out->mem.valid = t->mem.out_valid;
    if (out->mem.valid) {
        out->mem.write = t->mem.out.write;
        out->mem.addr = t->mem.out.addr;
        out->mem.wdata = t->mem.out.wdata;
        out->mem.wstrb = t->mem.out.wstrb;
    }
    out->mem.rsp_ready = true;
    out->sram.valid = t->sram.out_valid;
    if (out->sram.valid) {
        out->sram.write = t->sram.out.write;
        out->sram.addr = t->sram.out.addr & ((1ull << t->p.sram_addr_bits) - 1);
        out->sram.wdata = t->sram.out.wdata;
        out->sram.wstrb = t->sram.out.wstrb;
    }
    out->idle = t->ctl.state == S_IDLE && t->desc_q.count == 0 && t->cpl_q.count == 0;
}

void dma_twin_step(struct dma_twin *t, uint64_t cycles)
{
    while (cycles--)
        step_one(t);
}

uint64_t dma_twin_cycle(const struct dma_twin *t)
{
    return t->cycle;
}

uint64_t dma_twin_errors(const struct dma_twin *t)
{
    return t->n_err;
}

const char *dma_twin_error(const struct dma_twin *t)
{
    return t->err;
}
