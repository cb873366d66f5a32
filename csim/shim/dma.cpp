// Shim: the tensor-buffer DMA rtl/dma/dma_top.v behind the C interface of dma.h. VTOP/VTOP_H
// name the verilated class and its header; P_<Param> every parameter it was verilated with
// (rtl/dma/block.mk gives them all).
#include "csim/shim/dma.h"
#include "csim/shim/ports.hpp"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

static void params(struct dma_params *out)
{
    out->sram_addr_bits = P_SramAddrW;
    out->sram_bytes = P_SramBytes;
    out->tb_bytes = (uint64_t)P_TbSizeKiB * 1024;
    out->sram_lat = P_SramLat;
    out->max_rd_out = P_MaxRdOut;
    out->max_wr_out = P_MaxWrOut;
    out->desc_depth = P_DescDepth;
    out->cpl_depth = P_CplDepth;
}

static void drive(VTOP *t, const struct dma_in *in)
{
    t->rst_i = in->rst;
    drive_dma_outer(t, in);
    t->sram_req_ready_i = in->sram.req_ready;
    t->sram_rsp_valid_i = in->sram.rsp_valid;
    t->sram_rsp_rdata_i = in->sram.rdata;
    t->sram_rsp_err_i = in->sram.err;
}

static void sample(const VTOP *t, struct dma_out *out)
{
    *out = dma_out{};
    sample_dma_outer(t, out);
    out->sram.valid = t->sram_req_valid_o;
    out->sram.write = t->sram_req_write_o;
    out->sram.addr = t->sram_req_addr_o;
    out->sram.wdata = t->sram_req_wdata_o;
    out->sram.wstrb = t->sram_req_wstrb_o;
    out->idle = t->idle_o;
}

VMODEL_SHIM(dma)
VMODEL_SHIM_PARAMS(dma)
