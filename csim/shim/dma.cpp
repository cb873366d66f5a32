// Shim: the tensor-buffer DMA rtl/dma/dma_top.v behind the C interface of dma.h. VTOP/VTOP_H
// name the verilated class and its header; P_<Param> the parameters it was verilated with
// (the RTL defaults where a block.mk passes none).
#include "csim/shim/dma.h"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

#include <cassert>

#ifndef P_SramAddrW
#define P_SramAddrW 20
#endif
#ifndef P_SramBytes
#define P_SramBytes (1 << 20)
#endif
#ifndef P_TbSizeKiB
#define P_TbSizeKiB (16 * 1024 * 1024)
#endif
#ifndef P_SramLat
#define P_SramLat 2
#endif
#ifndef P_MaxRdOut
#define P_MaxRdOut 64
#endif
#ifndef P_MaxWrOut
#define P_MaxWrOut 128
#endif
#ifndef P_DescDepth
#define P_DescDepth 4
#endif
#ifndef P_CplDepth
#define P_CplDepth 4
#endif

struct dma_rtl {
    VModel<VTOP> m;
    explicit dma_rtl(uint64_t seed) : m(seed)
    {
    }
};

extern "C" {

struct dma_rtl *dma_rtl_create(uint64_t seed)
{
    return new dma_rtl(seed);
}

void dma_rtl_destroy(struct dma_rtl *p)
{
    delete p;
}

void dma_rtl_params(const struct dma_rtl *p, struct dma_params *out)
{
    assert(p && out);
    out->sram_addr_bits = P_SramAddrW;
    out->sram_bytes = P_SramBytes;
    out->tb_bytes = (uint64_t)P_TbSizeKiB * 1024;
    out->sram_lat = P_SramLat;
    out->max_rd_out = P_MaxRdOut;
    out->max_wr_out = P_MaxWrOut;
    out->desc_depth = P_DescDepth;
    out->cpl_depth = P_CplDepth;
}

void dma_rtl_set(struct dma_rtl *p, const struct dma_in *in)
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
    t->sram_req_ready_i = in->sram.req_ready;
    t->sram_rsp_valid_i = in->sram.rsp_valid;
    t->sram_rsp_rdata_i = in->sram.rdata;
    t->sram_rsp_err_i = in->sram.err;
}

void dma_rtl_get(struct dma_rtl *p, struct dma_out *out)
{
    assert(p && out);
    p->m.settle();
    VTOP *t = p->m.top();
    *out = dma_out{};
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
    out->sram.valid = t->sram_req_valid_o;
    out->sram.write = t->sram_req_write_o;
    out->sram.addr = t->sram_req_addr_o;
    out->sram.wdata = t->sram_req_wdata_o;
    out->sram.wstrb = t->sram_req_wstrb_o;
    out->idle = t->idle_o;
}

void dma_rtl_step(struct dma_rtl *p, uint64_t cycles)
{
    assert(p);
    p->m.step(cycles);
}

uint64_t dma_rtl_cycle(const struct dma_rtl *p)
{
    assert(p);
    return p->m.cycle();
}

int dma_rtl_trace(struct dma_rtl *p, const struct vtrace_opts *opts)
{
    assert(p);
    return p->m.trace_open(opts);
}
}
