// Shim: the Activation Node datapath rtl/an/an_top.v behind the C interface of an.h.
// VTOP/VTOP_H name the verilated class and its header; P_<Param> the parameters it was
// verilated with (the RTL defaults where a block.mk passes none).
#include "csim/shim/an.h"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

#include <cassert>

#ifndef P_Rows
#define P_Rows 8
#endif
#ifndef P_Cols
#define P_Cols 8
#endif
#ifndef P_AWords
#define P_AWords 512
#endif
#ifndef P_BWords
#define P_BWords 512
#endif
#ifndef P_CWords
#define P_CWords 512
#endif
#ifndef P_TbSizeKiB
#define P_TbSizeKiB (16 * 1024 * 1024)
#endif
#ifndef P_MaxRdOut
#define P_MaxRdOut 64
#endif
#ifndef P_DescDepth
#define P_DescDepth 4
#endif
#ifndef P_CplDepth
#define P_CplDepth 4
#endif
/* What an_top leaves to dma_top's default (rtl/dma/dma_top.v). */
#define DMA_TOP_MaxWrOut 128

/* an_top's derived parameters (rtl/an/an_top.v): elements per SRAM word, W = lcm(Rows, Cols,
 * 4), and the size of the core's DMA map, the DMA's SRAM. */
static constexpr uint64_t gcd_u(uint64_t a, uint64_t b)
{
    return b ? gcd_u(b, a % b) : a;
}
static constexpr uint64_t kLrc = P_Rows / gcd_u(P_Rows, P_Cols) * P_Cols;
static constexpr uint64_t kW = kLrc / gcd_u(kLrc, 4) * 4;
static constexpr uint64_t kMapBytes = (P_AWords + P_BWords) * kW * 2 + P_CWords * kW * 4;

struct an_rtl {
    VModel<VTOP> m;
    explicit an_rtl(uint64_t seed) : m(seed)
    {
    }
};

extern "C" {

struct an_rtl *an_rtl_create(uint64_t seed)
{
    return new an_rtl(seed);
}

void an_rtl_destroy(struct an_rtl *p)
{
    delete p;
}

void an_rtl_params(const struct an_rtl *p, struct an_params *out)
{
    assert(p && out);
    out->core.rows = P_Rows;
    out->core.cols = P_Cols;
    out->core.a_words = P_AWords;
    out->core.b_words = P_BWords;
    out->core.c_words = P_CWords;
    out->dma.sram_addr_bits = 32;
    out->dma.sram_bytes = kMapBytes;
    out->dma.tb_bytes = (uint64_t)P_TbSizeKiB * 1024;
    out->dma.sram_lat = 2;
    out->dma.max_rd_out = P_MaxRdOut;
    out->dma.max_wr_out = DMA_TOP_MaxWrOut;
    out->dma.desc_depth = P_DescDepth;
    out->dma.cpl_depth = P_CplDepth;
}

void an_rtl_set(struct an_rtl *p, const struct an_in *in)
{
    assert(p && in);
    VTOP *t = p->m.top();
    const uint64_t m40 = (1ull << 40) - 1;
    t->rst_i = in->rst;
    t->desc_valid_i = in->desc_valid;
    t->desc_store_i = in->desc.store;
    t->desc_xpose_i = in->desc.xpose;
    t->desc_tag_i = in->desc.tag;
    t->desc_src_i = in->desc.src & m40;
    t->desc_dst_i = in->desc.dst & m40;
    t->desc_rows_i = in->desc.rows & 0xffff;
    t->desc_len_i = in->desc.len & 0xffffff;
    t->desc_src_stride_i = in->desc.src_stride & m40;
    t->desc_dst_stride_i = in->desc.dst_stride & m40;
    t->cpl_ready_i = in->cpl_ready;
    t->mem_req_ready_i = in->mem.req_ready;
    t->mem_rsp_valid_i = in->mem.rsp_valid;
    t->mem_rsp_rdata_i = in->mem.rdata;
    t->mem_rsp_err_i = in->mem.err;
    t->cmd_valid_i = in->cmd_valid;
    t->cmd_m_i = in->cmd.m;
    t->cmd_n_i = in->cmd.n;
    t->cmd_k_i = in->cmd.k;
    t->cmd_a_addr_i = in->cmd.a_addr;
    t->cmd_b_addr_i = in->cmd.b_addr;
    t->cmd_c_addr_i = in->cmd.c_addr;
    t->cmd_lda_i = in->cmd.lda;
    t->cmd_ldb_i = in->cmd.ldb;
    t->cmd_ldc_i = in->cmd.ldc;
    t->cmd_trans_a_i = in->cmd.trans_a;
    t->cmd_trans_b_i = in->cmd.trans_b;
    t->cmd_accumulate_i = in->cmd.accumulate;
    t->done_ready_i = in->done_ready;
}

void an_rtl_get(struct an_rtl *p, struct an_out *out)
{
    assert(p && out);
    p->m.settle();
    VTOP *t = p->m.top();
    *out = an_out{};
    out->desc_ready = t->desc_ready_o;
    out->cpl_valid = t->cpl_valid_o;
    out->cpl.tag = t->cpl_tag_o;
    out->cpl.status = t->cpl_status_o;
    out->cpl.cycles = t->cpl_cycles_o;
    out->mem.valid = t->mem_req_valid_o;
    out->mem.write = t->mem_req_write_o;
    out->mem.addr = t->mem_req_addr_o;
    out->mem.wdata = t->mem_req_wdata_o;
    out->mem.wstrb = t->mem_req_wstrb_o;
    out->mem.rsp_ready = t->mem_rsp_ready_o;
    out->dma_idle = t->dma_idle_o;
    out->cmd_ready = t->cmd_ready_o;
    out->done_valid = t->done_valid_o;
    out->done_status = static_cast<enum core_status>(t->done_status_o);
    out->done_cycles = t->done_cycles_o;
    out->busy = t->busy_o;
}

void an_rtl_step(struct an_rtl *p, uint64_t cycles)
{
    assert(p);
    p->m.step(cycles);
}

uint64_t an_rtl_cycle(const struct an_rtl *p)
{
    assert(p);
    return p->m.cycle();
}

int an_rtl_trace(struct an_rtl *p, const struct vtrace_opts *opts)
{
    assert(p);
    return p->m.trace_open(opts);
}
}
