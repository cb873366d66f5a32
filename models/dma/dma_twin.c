/*
 * dma_twin: see dma_twin.h. Each struct below is one RTL module; its fields are that
 * module's registers, named as in the Verilog without the _q. step_one() evaluates the
 * combinational logic from the registers and the inputs (eval_<module>), then updates every
 * register (clock_<module>), both in the order of the data flow (a value computed for the
 * cycle is never one updated in it).
 */
#include "models/dma/dma_twin.h"
#include "models/common/cmn_fifo.h"
#include "models/common/cmn_skid_buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M40 ((1ull << 40) - 1)

enum { STATE_IDLE = 0, STATE_CHECK = 1, STATE_RUN = 2, STATE_CPL = 3 };

/* The payload of the port skid buffers (cmn_skid_buf): a memory request. */
struct req {
    bool write;
    uint64_t addr, wdata;
    uint8_t wstrb;
};

/* dma_agen */
struct agen {
    bool walk_done;
    uint64_t walk_row_addr, walk_tile_row_addr;
    uint32_t walk_col, walk_row;
    bool beat_valid;
    uint64_t beat_addr; /* byte address, a multiple of 8 */
    uint32_t beats_left;
    bool beat_first;
    unsigned beat_off, beat_end;
    bool beat_tlast;
    unsigned beat_wm1;
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
    bool tlast, last_row, last_col, last_tile_row;
};

/* dma_rd_pack */
struct pack {
    bool out_valid;
    uint64_t out_data;
    bool out_slast, out_tlast;
    unsigned out_wm1;
    uint64_t prev;
    bool last_pending;
    unsigned prev_off;
    bool prev_tlast;
    unsigned prev_wm1;
};

/* dma_xpose */
struct xpose {
    uint64_t row[8];
    bool full[2];
    unsigned wm1[2], rows_m1[2];
    unsigned fill_bank, fill_row, drain_bank, drain_col;
};

/* dma_ctl */
struct ctl {
    unsigned state;
    struct dma_desc xfer;
    uint8_t status;
    uint32_t cycles;
    bool mem_err;
    unsigned wr_pending;
};

struct dma_twin {
    struct dma_params p;
    struct dma_in in;
    uint64_t cycle;
    struct cmn_fifo desc_q, meta_q, data_q, cpl_q;
    struct ctl ctl;
    struct agen rd_agen, wr_agen;
    struct pack pack;
    struct xpose xpose;
    uint64_t wr_prev; /* dma_wr */
    struct cmn_skid_buf mem_skid, sram_skid;
    uint64_t sram_acc; /* latency checker: bit k = a request accepted k + 1 cycles ago */
    uint64_t n_err;
    char err[256];
};

/* ---------------------------------------------------------------- helpers */

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

static uint8_t ctl_check_status(const struct dma_twin *t)
{
    return (uint8_t)dma_desc_check(&t->ctl.xfer, &t->p);
}

/* ---------------------------------------------------------------- dma_agen */

static void agen_seg(const struct agen *a, const struct walk *w, struct seg *s)
{
    uint32_t row_rest = (w->len - a->walk_col) & 0xffffff;
    s->len = w->tile && row_rest > 8 ? 8 : row_rest;
    s->addr = (a->walk_row_addr + a->walk_col) & M40;
    s->end = (uint32_t)(s->addr & 7) + s->len - 1;
    s->last_row = a->walk_row == ((w->rows - 1) & 0xffffff);
    s->tlast = (w->tile && (a->walk_row & 3) == 3) || s->last_row;
    s->last_col = !w->tile || row_rest <= 8;
    s->last_tile_row = (a->walk_row | 3) >= ((w->rows - 1) & 0xffffff);
}

static void agen_clock(struct agen *a, const struct walk *w, bool start, bool ready)
{
    struct seg s;
    agen_seg(a, w, &s);
    bool beat_fire = a->beat_valid && ready;
    bool beat_last = a->beats_left == 0;
    bool seg_load = !a->walk_done && (!a->beat_valid || (beat_fire && beat_last));
    struct agen n = *a;

    /* walker control */
    if (start)
        n.walk_done = false;
    else if (seg_load && s.tlast && (!w->tile || (s.last_col && s.last_tile_row)))
        n.walk_done = true;
    /* walker position */
    if (start) {
        n.walk_row_addr = n.walk_tile_row_addr = w->base;
        n.walk_col = n.walk_row = 0;
    } else if (seg_load) {
        if (!s.tlast) {
            n.walk_row = a->walk_row + 1;
            n.walk_row_addr = (a->walk_row_addr + w->stride) & M40;
        } else if (!w->colmajor) {
            if (!s.last_col) {
                n.walk_col = a->walk_col + 8;
                n.walk_row = a->walk_row & ~3u;
                n.walk_row_addr = a->walk_tile_row_addr;
            } else {
                n.walk_col = 0;
                n.walk_row = a->walk_row + 1;
                n.walk_row_addr = n.walk_tile_row_addr = (a->walk_row_addr + w->stride) & M40;
            }
        } else {
            if (!s.last_tile_row) {
                n.walk_row = a->walk_row + 1;
                n.walk_row_addr = (a->walk_row_addr + w->stride) & M40;
            } else {
                n.walk_col = a->walk_col + 8;
                n.walk_row = 0;
                n.walk_row_addr = w->base;
            }
        }
        n.walk_row &= 0xffffff;
        n.walk_col &= 0xffffff;
    }
    /* beat stage */
    if (start)
        n.beat_valid = false;
    else if (seg_load)
        n.beat_valid = true;
    else if (beat_fire && beat_last)
        n.beat_valid = false;
    if (seg_load) {
        n.beat_addr = s.addr & ~7ull;
        n.beats_left = s.end >> 3;
        n.beat_first = true;
        n.beat_off = (unsigned)(s.addr & 7);
        n.beat_end = s.end & 7;
        n.beat_tlast = s.tlast;
        n.beat_wm1 = ((s.len >> 1) - 1) & 3;
    } else if (beat_fire) {
        n.beat_addr = (a->beat_addr + 8) & M40;
        n.beats_left = a->beats_left - 1;
        n.beat_first = false;
    }
    *a = n;
}

static bool agen_done(const struct agen *a)
{
    return a->walk_done && !a->beat_valid;
}

static void agen_reset(struct agen *a)
{
    a->walk_done = true;
    a->beat_valid = false;
}

/* ---------------------------------------------------------------- dma_xpose */

static uint64_t xpose_column(const struct xpose *x)
{
    uint64_t col = 0;
    unsigned bank = x->drain_bank;
    for (unsigned i = 0; i < 4; i++)
        if (i <= x->rows_m1[bank])
            col |= (x->row[4 * bank + i] >> (16 * x->drain_col) & 0xffff) << (16 * i);
    return col;
}

/* ---------------------------------------------------------------- one cycle */

/*
 * The combinational signals of one cycle, computed from the registers and the inputs by the
 * eval_* functions (one per RTL module, in the order of the data flow), then read by the
 * clock_* functions that update the registers.
 */
struct comb {
    struct walk rd_walk, wr_walk; /* geometry of the read and the write dma_agen */
    /* dma_ctl */
    bool desc_q_valid, desc_ready, desc_take, start, wr_gate, cpl_q_ready, xfer_done;
    uint8_t check_status;
    /* dma_ports */
    bool mem_in_ready, sram_in_ready, rd_ready, wr_ready;
    /* dma_top: reads, each with a place in the meta FIFO */
    bool rd_issue, rd_fire;
    /* dma_xpose */
    bool x_in_ready, x_out_valid, xpose_valid, drain_end, packed_ready, x_in_fire, x_out_fire;
    uint64_t xpose_data;
    /* dma_wr */
    bool wr_valid, wr_fire, xpose_ready;
    struct req wr_req;
    /* dma_rd_pack, on the heads of the meta and data FIFOs */
    bool data_valid, meta_first, meta_last, meta_tlast, can_load, emit, extra, pack_take;
    unsigned meta_off, meta_end, meta_wm1;
    uint64_t data, packed_data;
    /* dma_top: the memories' responses */
    bool data_push, data_in_ready, wr_ack, rsp_valid, rsp_err;
    uint64_t push_data;
};

static void walks(const struct dma_twin *t, struct walk *rd_walk, struct walk *wr_walk)
{
    const struct dma_desc *d = &t->ctl.xfer;
    *rd_walk = (struct walk){.tile = d->xpose,
                             .colmajor = false,
                             .base = d->src,
                             .stride = d->src_stride,
                             .rows = d->rows,
                             .len = d->len};
    *wr_walk = (struct walk){.tile = d->xpose,
                             .colmajor = true,
                             .base = d->dst,
                             .stride = d->dst_stride,
                             .rows = d->xpose ? d->len >> 1 : d->rows,
                             .len = d->xpose ? 2 * d->rows : d->len};
}

static void reset(struct dma_twin *t)
{
    cmn_fifo_reset(&t->desc_q);
    cmn_fifo_reset(&t->meta_q);
    cmn_fifo_reset(&t->data_q);
    cmn_fifo_reset(&t->cpl_q);
    t->ctl.state = STATE_IDLE;
    t->ctl.cycles = 1;
    t->ctl.mem_err = false;
    t->ctl.wr_pending = 0;
    agen_reset(&t->rd_agen);
    agen_reset(&t->wr_agen);
    t->pack.out_valid = t->pack.last_pending = false;
    t->xpose.full[0] = t->xpose.full[1] = false;
    t->xpose.fill_bank = t->xpose.fill_row = t->xpose.drain_bank = t->xpose.drain_col = 0;
    cmn_skid_buf_reset(&t->mem_skid);
    cmn_skid_buf_reset(&t->sram_skid);
    t->sram_acc = 0;
}

/* dma_ctl: the descriptor queue, the checks, the start pulse, the write credit, the end. */
static void eval_ctl(const struct dma_twin *t, struct comb *c)
{
    const struct ctl *ctl = &t->ctl;

    c->desc_q_valid = !cmn_fifo_empty(&t->desc_q);
    c->desc_ready = !cmn_fifo_full(&t->desc_q);
    c->desc_take = ctl->state == STATE_IDLE && c->desc_q_valid;
    c->check_status = ctl->state == STATE_CHECK ? ctl_check_status(t) : 0;
    c->start = ctl->state == STATE_CHECK && c->check_status == DMA_ST_OK;
    c->wr_gate = ctl->wr_pending != t->p.max_wr_out;
    c->cpl_q_ready = !cmn_fifo_full(&t->cpl_q);
    c->xfer_done = agen_done(&t->rd_agen) && agen_done(&t->wr_agen) && ctl->wr_pending == 0;
}

/* dma_ports: each skid buffer takes a request while its skid register is empty; a load reads
 * the tensor buffer and writes the SRAM, a store the other way round. */
static void eval_ports(const struct dma_twin *t, struct comb *c)
{
    bool store = t->ctl.xfer.store;

    c->mem_in_ready = cmn_skid_buf_in_ready(&t->mem_skid);
    c->sram_in_ready = cmn_skid_buf_in_ready(&t->sram_skid);
    c->rd_ready = store ? c->sram_in_ready : c->mem_in_ready;
    c->wr_ready = store ? c->mem_in_ready : c->sram_in_ready;
}

/* dma_top: a read beat issues only while the meta FIFO has room for its sideband. */
static void eval_rd_issue(const struct dma_twin *t, struct comb *c)
{
    bool meta_in_ready = !cmn_fifo_full(&t->meta_q);

    c->rd_issue = t->rd_agen.beat_valid && meta_in_ready;
    c->rd_fire = c->rd_issue && c->rd_ready;
}

/* dma_xpose's outputs, from its registers alone (dma_rd_pack's pass through on a plain copy). */
static void eval_xpose_out(const struct dma_twin *t, struct comb *c)
{
    const struct xpose *x = &t->xpose;
    bool en = t->ctl.xfer.xpose;

    c->x_in_ready = !x->full[x->fill_bank];
    c->x_out_valid = x->full[x->drain_bank];
    c->xpose_valid = en ? c->x_out_valid : t->pack.out_valid;
    c->xpose_data = en ? xpose_column(x) : t->pack.out_data;
    c->drain_end = x->drain_col == x->wm1[x->drain_bank];
}

/* dma_wr: the write request of the current write beat, and whether it takes a packed beat. */
static void eval_wr(const struct dma_twin *t, struct comb *c)
{
    const struct agen *wr_agen = &t->wr_agen;
    bool wr_beat_last = wr_agen->beats_left == 0;
    bool consume = !(wr_beat_last && wr_agen->beat_end < wr_agen->beat_off);
    unsigned first_lane = wr_agen->beat_first ? wr_agen->beat_off : 0,
             last_lane = wr_beat_last ? wr_agen->beat_end : 7;
    uint64_t placed = shr(c->xpose_data, t->wr_prev, (8 - wr_agen->beat_off) & 7);

    c->wr_valid = wr_agen->beat_valid && (!consume || c->xpose_valid) && c->wr_gate;
    c->wr_fire = c->wr_valid && c->wr_ready;
    c->xpose_ready = c->wr_fire && consume;
    c->wr_req = (struct req){.write = true, .addr = wr_agen->beat_addr};
    if (wr_agen->beat_off == 0)
        placed = c->xpose_data;
    for (unsigned i = first_lane; i <= last_lane; i++)
        c->wr_req.wstrb |= (uint8_t)(1u << i);
    for (unsigned i = 0; i < 8; i++)
        if (c->wr_req.wstrb >> i & 1)
            c->wr_req.wdata |= placed & (0xffull << (8 * i));
}

/* dma_xpose's input side and its fires, once dma_wr has said whether it takes a beat. */
static void eval_xpose_in(const struct dma_twin *t, struct comb *c)
{
    bool en = t->ctl.xfer.xpose;

    c->packed_ready = en ? c->x_in_ready : c->xpose_ready;
    c->x_in_fire = en && t->pack.out_valid && c->x_in_ready;
    c->x_out_fire = en && c->x_out_valid && c->xpose_ready;
}

/* dma_rd_pack, fed by the heads of the meta and data FIFOs. */
static void eval_pack(const struct dma_twin *t, struct comb *c)
{
    const struct pack *pk = &t->pack;
    uint16_t meta;

    c->data_valid = !cmn_fifo_empty(&t->data_q);
    meta = c->data_valid ? *(const uint16_t *)cmn_fifo_head(&t->meta_q) : 0;
    c->data = c->data_valid ? *(const uint64_t *)cmn_fifo_head(&t->data_q) : 0;
    c->meta_first = meta >> 10 & 1;
    c->meta_last = meta >> 9 & 1;
    c->meta_tlast = meta >> 2 & 1;
    c->meta_off = meta >> 6 & 7;
    c->meta_end = meta >> 3 & 7;
    c->meta_wm1 = meta & 3;
    c->can_load = !pk->out_valid || c->packed_ready;
    c->emit = c->meta_off == 0 || !c->meta_first || c->meta_last;
    c->extra = c->meta_last && !c->meta_first && c->meta_off != 0 && c->meta_end >= c->meta_off;
    c->pack_take = !pk->last_pending && c->data_valid && (!c->emit || c->can_load);
    c->packed_data = (c->meta_first && c->meta_last) ? shr(0, c->data, c->meta_off)
                     : c->meta_off == 0              ? c->data
                                                     : shr(c->data, pk->prev, c->meta_off);
}

/* dma_top: the responses, read data for the data FIFO and acknowledgements for dma_ctl. */
static void eval_rsp(const struct dma_twin *t, struct comb *c)
{
    const struct dma_in *in = &t->in;
    bool store = t->ctl.xfer.store;

    c->data_push = store ? in->sram.rsp_valid : in->mem.rsp_valid;
    c->data_in_ready = !cmn_fifo_full(&t->data_q);
    c->push_data = store ? in->sram.rdata : in->mem.rdata;
    c->wr_ack = store ? in->mem.rsp_valid : in->sram.rsp_valid;
    c->rsp_valid = in->mem.rsp_valid || in->sram.rsp_valid;
    c->rsp_err = (in->mem.rsp_valid && in->mem.err) || (in->sram.rsp_valid && in->sram.err);
}

/* Every combinational signal of the cycle. dma_xpose comes in two parts: its outputs depend
 * on its registers only, its input side on whether dma_wr takes a beat. */
static void eval(const struct dma_twin *t, struct comb *c)
{
    walks(t, &c->rd_walk, &c->wr_walk);
    eval_ctl(t, c);
    eval_ports(t, c);
    eval_rd_issue(t, c);
    eval_xpose_out(t, c);
    eval_wr(t, c);
    eval_xpose_in(t, c);
    eval_pack(t, c);
    eval_rsp(t, c);
}

/* What dma_top and dma_ctl assert about the environment, in the same order. */
static void check_env(struct dma_twin *t, const struct comb *c)
{
    const struct dma_in *in = &t->in;

    if (in->sram.rsp_valid != (bool)(t->sram_acc >> (t->p.sram_lat - 1) & 1))
        twin_err(t, "SRAM response %s, expected %u cycles after each request",
                 in->sram.rsp_valid ? "without a request" : "missing", t->p.sram_lat);
    if (c->data_push && !c->data_in_ready)
        twin_err(t, "read data with no room reserved for it");
    if (c->wr_ack && t->ctl.wr_pending == 0)
        twin_err(t, "a write acknowledgement with no write outstanding");
    if (c->rsp_valid && t->ctl.state != STATE_RUN)
        twin_err(t, "a memory response outside a transfer");
}

/* dma_top's latency checker: bit k = a request accepted k + 1 cycles ago. */
static void clock_sram_acc(struct dma_twin *t)
{
    bool sram_acc = t->sram_skid.out_valid && t->in.sram.req_ready;

    t->sram_acc = (t->sram_acc << 1 | sram_acc) & ((1ull << t->p.sram_lat) - 1);
}

/* dma_ports: the two skid buffers. */
static void clock_ports(struct dma_twin *t, const struct comb *c)
{
    const struct dma_in *in = &t->in;
    bool store = t->ctl.xfer.store;
    struct req rd_req = {.write = false, .addr = t->rd_agen.beat_addr};

    cmn_skid_buf_clock(&t->mem_skid, store ? c->wr_valid : c->rd_issue,
                       store ? &c->wr_req : &rd_req, in->mem.req_ready);
    cmn_skid_buf_clock(&t->sram_skid, store ? c->rd_issue : c->wr_valid,
                       store ? &rd_req : &c->wr_req, in->sram.req_ready);
}

/* dma_wr: the packed beat a write took, for the low lanes of the next write. */
static void clock_wr(struct dma_twin *t, const struct comb *c)
{
    if (c->xpose_ready)
        t->wr_prev = c->xpose_data;
}

/* dma_xpose: a row into the filling bank, a column out of the draining one. */
static void clock_xpose(struct dma_twin *t, const struct comb *c)
{
    struct xpose *x = &t->xpose;
    const struct pack *pk = &t->pack;

    if (c->x_in_fire) {
        x->row[4 * x->fill_bank + x->fill_row] = pk->out_data;
        if (pk->out_tlast) {
            x->wm1[x->fill_bank] = pk->out_wm1;
            x->rows_m1[x->fill_bank] = x->fill_row;
            x->full[x->fill_bank] = true;
            x->fill_bank ^= 1;
            x->fill_row = 0;
        } else {
            x->fill_row = (x->fill_row + 1) & 3;
        }
    }
    if (c->x_out_fire) {
        if (c->drain_end) {
            x->full[x->drain_bank] = false;
            x->drain_bank ^= 1;
            x->drain_col = 0;
        } else {
            x->drain_col = (x->drain_col + 1) & 3;
        }
    }
}

/* dma_rd_pack: the output register, the pending last beat, the previous read beat. */
static void clock_pack(struct dma_twin *t, const struct comb *c)
{
    struct pack *pk = &t->pack;

    if (pk->last_pending) {
        if (c->can_load) {
            pk->out_valid = true;
            pk->last_pending = false;
            pk->out_data = shr(0, pk->prev, pk->prev_off);
            pk->out_slast = true;
            pk->out_tlast = pk->prev_tlast;
            pk->out_wm1 = pk->prev_wm1;
        }
    } else if (c->pack_take && c->emit) {
        pk->out_valid = true;
        pk->last_pending = c->extra;
        pk->out_data = c->packed_data;
        pk->out_slast = c->meta_last && !c->extra;
        pk->out_tlast = c->meta_tlast && c->meta_last && !c->extra;
        pk->out_wm1 = c->meta_wm1;
    } else if (c->can_load) {
        pk->out_valid = false;
    }
    if (c->pack_take) {
        pk->prev = c->data;
        pk->prev_off = c->meta_off;
        pk->prev_tlast = c->meta_tlast;
        pk->prev_wm1 = c->meta_wm1;
    }
}

/* dma_top: the meta and data FIFOs between the read requests and dma_rd_pack. */
static void clock_rd_fifos(struct dma_twin *t, const struct comb *c)
{
    const struct agen *rd_agen = &t->rd_agen;

    if (c->pack_take) {
        cmn_fifo_pop(&t->meta_q);
        cmn_fifo_pop(&t->data_q);
    }
    if (c->rd_fire) {
        uint16_t meta = (uint16_t)(rd_agen->beat_first << 10 | (rd_agen->beats_left == 0) << 9 |
                                   rd_agen->beat_off << 6 | rd_agen->beat_end << 3 |
                                   rd_agen->beat_tlast << 2 | rd_agen->beat_wm1);
        cmn_fifo_push(&t->meta_q, &meta);
    }
    if (c->data_push && c->data_in_ready)
        cmn_fifo_push(&t->data_q, &c->push_data);
}

static unsigned ctl_next_state(unsigned state, const struct comb *c)
{
    switch (state) {
    case STATE_IDLE:
        return c->desc_q_valid ? STATE_CHECK : STATE_IDLE;
    case STATE_CHECK:
        return c->check_status == DMA_ST_OK ? STATE_RUN : STATE_CPL;
    case STATE_RUN:
        return c->xfer_done ? STATE_CPL : STATE_RUN;
    default:
        return c->cpl_q_ready ? STATE_IDLE : state;
    }
}

/* dma_ctl: the completion queue, the descriptor registers, the counters, the state, and the
 * descriptor queue (its push sees the readiness from before the pop, as in cmn_fifo). */
static void clock_ctl(struct dma_twin *t, const struct comb *c)
{
    struct ctl *ctl = &t->ctl;

    if (!cmn_fifo_empty(&t->cpl_q) && t->in.cpl_ready)
        cmn_fifo_pop(&t->cpl_q);
    if (ctl->state == STATE_CPL && c->cpl_q_ready) {
        struct dma_cpl cpl = {.tag = ctl->xfer.tag, .status = ctl->status, .cycles = ctl->cycles};
        cmn_fifo_push(&t->cpl_q, &cpl);
    }
    if (ctl->state == STATE_CHECK)
        ctl->status = c->check_status;
    else if (ctl->state == STATE_RUN && c->xfer_done)
        ctl->status = ctl->mem_err ? DMA_ST_MEM_ERR : DMA_ST_OK;
    if (c->start)
        ctl->mem_err = false;
    else if (c->rsp_err)
        ctl->mem_err = true;
    if (c->wr_fire && !c->wr_ack)
        ctl->wr_pending++;
    else if (!c->wr_fire && c->wr_ack)
        ctl->wr_pending--;
    if (c->desc_take)
        ctl->cycles = 1;
    else if (ctl->state != STATE_IDLE && ctl->cycles != UINT32_MAX)
        ctl->cycles++;
    if (c->desc_take) {
        ctl->xfer = *(const struct dma_desc *)cmn_fifo_head(&t->desc_q);
        cmn_fifo_pop(&t->desc_q);
    }
    ctl->state = ctl_next_state(ctl->state, c);
    if (t->in.desc_valid && c->desc_ready) {
        struct dma_desc desc_in = t->in.desc;
        dma_desc_truncate(&desc_in);
        cmn_fifo_push(&t->desc_q, &desc_in);
    }
}

/*
 * One rising edge. Every clock_* function reads only registers no earlier one has updated:
 * dma_ports reads the descriptor and the read beat, dma_xpose dma_rd_pack's output register,
 * the meta FIFO the read beat, the address generators their walks (taken in eval), all before
 * their owners are clocked.
 */
static void step_one(struct dma_twin *t)
{
    struct comb c;

    if (t->in.rst) {
        /* Registers without a reset keep their values; none of them is read before it is
         * written again after the reset. */
        reset(t);
        t->cycle++;
        return;
    }
    eval(t, &c);
    check_env(t, &c);
    clock_sram_acc(t);
    clock_ports(t, &c);
    clock_wr(t, &c);
    clock_xpose(t, &c);
    clock_pack(t, &c);
    clock_rd_fifos(t, &c);
    agen_clock(&t->rd_agen, &c.rd_walk, c.start, c.rd_fire);
    agen_clock(&t->wr_agen, &c.wr_walk, c.start, c.wr_fire);
    clock_ctl(t, &c);
    t->cycle++;
}

/* ---------------------------------------------------------------- interface */

int dma_twin_create(const struct dma_params *p, struct dma_twin **out, struct err *e)
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
    if (why)
        return err_set(e, -EINVAL, "dma_twin: %s", why);
    struct dma_twin *t = calloc(1, sizeof(*t));
    if (!t)
        return err_set(e, -ENOMEM, "dma_twin: out of memory");
    t->p = *p;
    if (cmn_fifo_init(&t->desc_q, p->desc_depth, sizeof(struct dma_desc)) ||
        cmn_fifo_init(&t->meta_q, p->max_rd_out, sizeof(uint16_t)) ||
        cmn_fifo_init(&t->data_q, p->max_rd_out, sizeof(uint64_t)) ||
        cmn_fifo_init(&t->cpl_q, p->cpl_depth, sizeof(struct dma_cpl)) ||
        cmn_skid_buf_init(&t->mem_skid, sizeof(struct req)) ||
        cmn_skid_buf_init(&t->sram_skid, sizeof(struct req))) {
        dma_twin_destroy(t);
        return err_set(e, -ENOMEM, "dma_twin: out of memory for its queues");
    }
    reset(t);
    *out = t;
    return 0;
}

void dma_twin_destroy(struct dma_twin *t)
{
    if (!t)
        return;
    cmn_fifo_fini(&t->desc_q);
    cmn_fifo_fini(&t->meta_q);
    cmn_fifo_fini(&t->data_q);
    cmn_fifo_fini(&t->cpl_q);
    cmn_skid_buf_fini(&t->mem_skid);
    cmn_skid_buf_fini(&t->sram_skid);
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
    out->desc_ready = !cmn_fifo_full(&t->desc_q);
    out->cpl_valid = !cmn_fifo_empty(&t->cpl_q);
    if (out->cpl_valid)
        out->cpl = *(const struct dma_cpl *)cmn_fifo_head(&t->cpl_q);
    out->mem.valid = t->mem_skid.out_valid;
    if (out->mem.valid) {
        const struct req *r = cmn_skid_buf_out(&t->mem_skid);
        out->mem.write = r->write;
        out->mem.addr = r->addr;
        out->mem.wdata = r->wdata;
        out->mem.wstrb = r->wstrb;
    }
    out->mem.rsp_ready = true;
    out->sram.valid = t->sram_skid.out_valid;
    if (out->sram.valid) {
        const struct req *r = cmn_skid_buf_out(&t->sram_skid);
        out->sram.write = r->write;
        out->sram.addr = r->addr & ((1ull << t->p.sram_addr_bits) - 1);
        out->sram.wdata = r->wdata;
        out->sram.wstrb = r->wstrb;
    }
    out->idle =
        t->ctl.state == STATE_IDLE && cmn_fifo_empty(&t->desc_q) && cmn_fifo_empty(&t->cpl_q);
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
