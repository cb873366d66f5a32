// Shim: the NAND write lanes (rtl/nfw/nfw_lanes.v) behind the nfw_lanes C interface
// (nfw_lanes.h). Lane l's fields are bits [l*W +: W] of the verilated vectors, which are
// plain integers up to 64 bits and VlWide words beyond. nfw_lanes_rtl_load writes the lanes'
// history-dependent registers (struct nfw_lanes_state) by the names Verilator gives them, for a
// model joining the loop without replaying the writes it missed (models/nfw/nfw_time.h).
#include "csim/shim/nfw_lanes.h"
#include "csim/shim/vmodel.hpp"

#include <cstring>

#include VTOP_H

// The model's registers by their Verilator names, for nfw_lanes_rtl_load: the root class
// V<model>___024root, and its settle function (it recomputes the logic that depends on the
// registers; Verilator runs it once, on the first eval).
#define NFW_STR_(x)    #x
#define NFW_STR(x)     NFW_STR_(x)
#define NFW_CAT_(a, b) a##b
#define NFW_CAT(a, b)  NFW_CAT_(a, b)
#define VROOT          NFW_CAT(VTOP, ___024root)
#include NFW_STR(VROOT.h)
void NFW_CAT(VROOT, ___eval_settle)(VROOT *vlSelf);

static uint64_t mask(unsigned w)
{
    return w >= 64 ? ~0ull : (1ull << w) - 1;
}

template <class T> static uint64_t getb(const T &v, unsigned lsb, unsigned w)
{
    return (static_cast<uint64_t>(v) >> lsb) & mask(w);
}

template <std::size_t N> static uint64_t getb(const VlWide<N> &v, unsigned lsb, unsigned w)
{
    uint64_t r = 0;
    for (unsigned got = 0; got < w;) {
        unsigned b = lsb + got, off = b % 32, n = 32 - off < w - got ? 32 - off : w - got;
        r |= ((static_cast<uint64_t>(v[b / 32]) >> off) & mask(n)) << got;
        got += n;
    }
    return r;
}

template <class T> static void setb(T &v, unsigned lsb, unsigned w, uint64_t x)
{
    uint64_t m = mask(w) << lsb;
    v = static_cast<T>((static_cast<uint64_t>(v) & ~m) | ((x << lsb) & m));
}

template <std::size_t N> static void setb(VlWide<N> &v, unsigned lsb, unsigned w, uint64_t x)
{
    for (unsigned put = 0; put < w;) {
        unsigned b = lsb + put, off = b % 32, n = 32 - off < w - put ? 32 - off : w - put;
        uint32_t m = static_cast<uint32_t>(mask(n) << off);
        v[b / 32] = (v[b / 32] & ~m) | (static_cast<uint32_t>((x >> put) << off) & m);
        put += n;
    }
}

static void params(struct nfw_lanes_params *out)
{
    out->p.page_bytes = P_PageBytes;
    out->p.planes = P_Planes;
    out->p.channels = P_Channels;
    out->p.dies_per_chan = P_DiesPerChan;
    out->p.pages_per_block = P_PagesPerBlock;
    out->p.streams = P_Streams;
    out->p.max_pbs = P_MaxPbs;
    out->p.bbt_entries = P_BbtEntries;
    out->p.slots = P_Slots;
    out->p.max_reads = P_MaxReads;
    out->lanes = P_Lanes;
}

static void drive(VTOP *t, const struct nfw_lanes_in *in)
{
    const struct nfw_in *s = &in->l[0];

    t->rst_i = s->rst;
    t->cmd_valid_i = s->cmd_valid;
    t->cmd_addr_i = s->cmd_addr & ((1ull << 40) - 1);
    t->cmd_len_i = s->cmd_len;
    t->cmd_stream_i = s->cmd_stream & 0xf;
    t->done_ready_i = s->done_ready;
    t->cfg_valid_i = s->cfg_valid;
    t->cfg_op_i = s->cfg_op & 3;
    t->cfg_stream_i = s->cfg_stream & 0xf;
    t->cfg_idx_i = s->cfg_idx;
    t->cfg_a_i = s->cfg_a;
    t->cfg_b_i = s->cfg_b;
    for (unsigned l = 0; l < P_Lanes; l++) {
        const struct nfw_in *i = &in->l[l];

        setb(t->mem_req_ready_i, l, 1, i->mem_req_ready);
        setb(t->mem_rsp_valid_i, l, 1, i->mem_rsp_valid);
        setb(t->mem_rsp_rdata_i, 64 * l, 64, i->mem_rsp_rdata);
        setb(t->mem_rsp_err_i, l, 1, i->mem_rsp_err);
        setb(t->prog_ready_i, l, 1, i->prog_ready);
        setb(t->pdat_ready_i, l, 1, i->pdat_ready);
    }
}

static void sample(const VTOP *t, struct nfw_lanes_out *out)
{
    struct nfw_out *s = &out->l[0];

    memset(out, 0, sizeof(*out));
    for (unsigned l = 0; l < P_Lanes; l++) {
        struct nfw_out *o = &out->l[l];

        o->mem_req_valid = getb(t->mem_req_valid_o, l, 1);
        o->mem_req_write = getb(t->mem_req_write_o, l, 1);
        o->mem_req_addr = getb(t->mem_req_addr_o, 40 * l, 40);
        o->mem_req_wdata = getb(t->mem_req_wdata_o, 64 * l, 64);
        o->mem_req_wstrb = static_cast<uint8_t>(getb(t->mem_req_wstrb_o, 8 * l, 8));
        o->mem_rsp_ready = getb(t->mem_rsp_ready_o, l, 1);
        o->prog_valid = getb(t->prog_valid_o, l, 1);
        o->prog_chan = static_cast<uint16_t>(getb(t->prog_chan_o, 16 * l, 16));
        o->prog_die = static_cast<uint16_t>(getb(t->prog_die_o, 16 * l, 16));
        o->prog_plane = static_cast<uint8_t>(getb(t->prog_plane_o, 4 * l, 4));
        o->prog_block = static_cast<uint16_t>(getb(t->prog_block_o, 16 * l, 16));
        o->prog_page = static_cast<uint16_t>(getb(t->prog_page_o, 16 * l, 16));
        o->prog_first = getb(t->prog_first_o, l, 1);
        o->prog_last = getb(t->prog_last_o, l, 1);
        o->pdat_valid = getb(t->pdat_valid_o, l, 1);
        o->pdat_data = getb(t->pdat_data_o, 64 * l, 64);
        o->pdat_last = getb(t->pdat_last_o, l, 1);
    }
    s->cmd_ready = t->cmd_ready_o;
    s->done_valid = t->done_valid_o;
    s->done_stream = t->done_stream_o;
    s->done_lpn = t->done_lpn_o;
    s->done_pbn = t->done_pbn_o;
    s->done_die = t->done_die_o;
    s->done_plane = t->done_plane_o;
    s->done_block = t->done_block_o;
    s->done_page = t->done_page_o;
    s->done_err = t->done_err_o;
    s->cfg_ready = t->cfg_ready_o;
    s->idle = t->idle_o;
}

// Lane n's register reg (nfw_lanes' generate block g_lane[n], its nfw_top u_nfw).
#define LREG(n, reg) r->nfw_lanes__DOT__g_lane__BRA__##n##__KET____DOT__u_nfw__DOT__##reg
// An empty FIFO whose next read is entry head: both pointers at head, wrap bits clear.
#define LFIFO(n, f, head)                                                                          \
    do {                                                                                           \
        LREG(n, f##__DOT__rd_ptr_q) = (head);                                                      \
        LREG(n, f##__DOT__wr_ptr_q) = (head);                                                      \
    } while (0)
#define LOAD_LANE(n)                                                                               \
    do {                                                                                           \
        const struct nfw_state *l = &s->l[n];                                                      \
        for (unsigned i = 0; i < P_Streams; i++) {                                                 \
            LREG(n, u_pack__DOT__lpn_q)[i] = l->lpn[i];                                            \
            LREG(n, u_pack__DOT__lblock_q)[i] = l->lblock[i];                                      \
            LREG(n, u_pack__DOT__page_q)[i] = l->page[i];                                          \
            LREG(n, u_pack__DOT__die_q)[i] = l->die[i];                                            \
            LREG(n, u_pack__DOT__plane_q)[i] = l->plane[i];                                        \
            LREG(n, u_pack__DOT__pbn_q)[i] = l->pbn[i];                                            \
            LREG(n, u_pack__DOT__open_q)[i] = l->open[i];                                          \
            LREG(n, u_alloc__DOT__busy_q)[i] = l->busy[i];                                         \
            LREG(n, u_alloc__DOT__cursor_q)[i] = l->cursor[i];                                     \
        }                                                                                          \
        LREG(n, idle_q) = l->idle;                                                                 \
        LREG(n, u_pack__DOT__write_slot_q) = l->write_slot;                                        \
        LREG(n, u_pack__DOT__cmd_first_q) = l->cmd_first;                                          \
        LREG(n, u_pack__DOT__page_err_q) = l->page_err;                                            \
        LREG(n, u_issue__DOT__load_slot_q) = l->load_slot;                                         \
        LREG(n, u_issue__DOT__data_slot_q) = l->data_slot;                                         \
        LFIFO(n, u_rd__DOT__u_cmd_q, l->cmd_head);                                                 \
        LFIFO(n, u_rd__DOT__u_desc_q, l->desc_head);                                               \
        LFIFO(n, u_rsp_q, l->rsp_head);                                                            \
        LFIFO(n, u_issue__DOT__u_pdat_q, l->pdat_head);                                            \
        LFIFO(n, u_issue__DOT__u_flight_q, l->flight_head);                                        \
        LFIFO(n, u_issue__DOT__u_done_q, l->done_head);                                            \
    } while (0)

// The registers nfw_lanes_state lists, lane by lane (their names differ by the lane's index,
// so each lane the build has is written out), then the logic that depends on them.
static void load(VTOP *t, const struct nfw_lanes_state *s)
{
    VROOT *r = t->rootp;

    for (unsigned i = 0; i < P_Streams; i++) {
        r->nfw_lanes__DOT__u_split__DOT__plane_q[i] = s->split_plane[i];
        r->nfw_lanes__DOT__u_split__DOT__lane_q[i] = s->split_lane[i];
    }
    r->nfw_lanes__DOT__u_merge__DOT__rr_q = s->rr;
    r->nfw_lanes__DOT__idle_q = s->idle;
#if P_Lanes > 0
    LOAD_LANE(0);
#endif
#if P_Lanes > 1
    LOAD_LANE(1);
#endif
#if P_Lanes > 2
    LOAD_LANE(2);
    LOAD_LANE(3);
#endif
#if P_Lanes > 4
    LOAD_LANE(4);
    LOAD_LANE(5);
    LOAD_LANE(6);
    LOAD_LANE(7);
#endif
#if P_Lanes > 8
    LOAD_LANE(8);
    LOAD_LANE(9);
    LOAD_LANE(10);
    LOAD_LANE(11);
    LOAD_LANE(12);
    LOAD_LANE(13);
    LOAD_LANE(14);
    LOAD_LANE(15);
#endif
    NFW_CAT(VROOT, ___eval_settle)(r);
}

VMODEL_SHIM(nfw_lanes)
VMODEL_SHIM_PARAMS(nfw_lanes)

extern "C" void nfw_lanes_rtl_load(struct nfw_lanes_rtl *p, const struct nfw_lanes_state *s)
{
    assert(p);
    assert(s);
    load(p->m.top(), s);
}
