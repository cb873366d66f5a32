// Shim: the Activation Node datapath rtl/an/an_top.v behind the C interface of an.h.
// VTOP/VTOP_H name the verilated class and its header, VROOT_H its root class's header (the
// DMA-core port is read from it); P_<Param> every parameter it was verilated with
// (rtl/an/block.mk gives them all).
#include "csim/shim/an.h"
#include "csim/shim/ports.hpp"
#include "csim/shim/vmodel.hpp"

#include VTOP_H
#include VROOT_H /* the DMA-core port's wires, public_flat_rd in rtl/an/an_top.v */

/* What an_top fixes for its DMA (rtl/an/an_top.v): a 32-bit SRAM address, the core's DMA port
 * answering 2 cycles after a request, and dma_top's default MaxWrOut, which an_top does not
 * set. test_an holds them to the C side's (an_flow_params, from dma_params_default). */
static constexpr unsigned kDmaSramAddrW = 32;
static constexpr unsigned kDmaSramLat = 2;
static constexpr unsigned kDmaMaxWrOut = 128;

/* an_top's derived parameters (rtl/an/an_top.v): elements per SRAM word, W = lcm(Rows, Cols,
 * 4), and the size of the core's DMA map, the DMA's SRAM. */
static constexpr uint64_t gcd_u(uint64_t a, uint64_t b)
{
    return b ? gcd_u(b, a % b) : a;
}
static constexpr uint64_t kLrc = P_Rows / gcd_u(P_Rows, P_Cols) * P_Cols;
static constexpr uint64_t kW = kLrc / gcd_u(kLrc, 4) * 4;
static constexpr uint64_t kMapBytes = (P_AWords + P_BWords) * kW * 2 + P_CWords * kW * 4;

static void params(struct an_params *out)
{
    out->core.rows = P_Rows;
    out->core.cols = P_Cols;
    out->core.a_words = P_AWords;
    out->core.b_words = P_BWords;
    out->core.c_words = P_CWords;
    out->core.acc_stages = 1; /* an_top builds the one-stage core */
    out->dma.sram_addr_bits = kDmaSramAddrW;
    out->dma.sram_bytes = kMapBytes;
    out->dma.tb_bytes = (uint64_t)P_TbSizeKiB * 1024;
    out->dma.sram_lat = kDmaSramLat;
    out->dma.max_rd_out = P_MaxRdOut;
    out->dma.max_wr_out = kDmaMaxWrOut;
    out->dma.desc_depth = P_DescDepth;
    out->dma.cpl_depth = P_CplDepth;
}

static void drive(VTOP *t, const struct an_in *in)
{
    t->rst_i = in->rst;
    drive_dma_outer(t, in);
    drive_core_cmd(t, in);
}

static void sample(const VTOP *t, struct an_out *out)
{
    *out = an_out{};
    sample_dma_outer(t, out);
    out->dma_idle = t->dma_idle_o;
    out->sram.valid = t->rootp->an_top__DOT__sram_valid;
    out->sram.write = t->rootp->an_top__DOT__sram_write;
    out->sram.addr = t->rootp->an_top__DOT__sram_addr;
    out->sram.wdata = t->rootp->an_top__DOT__sram_wdata;
    out->sram.wstrb = t->rootp->an_top__DOT__sram_wstrb;
    sample_core_cmd(t, out);
}

VMODEL_SHIM(an)
VMODEL_SHIM_PARAMS(an)
