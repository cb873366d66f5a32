// Shim: the compute core rtl/core/core_top.v behind the C interface of core.h.
// VTOP/VTOP_H name the verilated class and its header; P_Rows, P_Cols,
// P_AWords, P_BWords, P_CWords and P_AccStages (1 when not given) are the
// parameters it was verilated with.
#include "csim/shim/core.h"
#include "csim/shim/ports.hpp"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

static void params(struct core_params *out)
{
    out->rows = P_Rows;
    out->cols = P_Cols;
    out->a_words = P_AWords;
    out->b_words = P_BWords;
    out->c_words = P_CWords;
#ifdef P_AccStages
    out->acc_stages = P_AccStages;
#else
    out->acc_stages = 1;
#endif
}

static void drive(VTOP *t, const struct core_in *in)
{
    t->rst_i = in->rst;
    drive_core_cmd(t, in);
    t->dma_req_valid_i = in->dma_valid;
    t->dma_req_we_i = in->dma_we;
    t->dma_req_addr_i = in->dma_addr;
    t->dma_req_wdata_i = in->dma_wdata;
    t->dma_req_wstrb_i = in->dma_wstrb;
}

static void sample(const VTOP *t, struct core_out *out)
{
    sample_core_cmd(t, out);
    out->dma_ready = t->dma_req_ready_o;
    out->dma_resp_valid = t->dma_resp_valid_o;
    out->dma_resp_rdata = t->dma_resp_rdata_o;
    out->dma_resp_err = t->dma_resp_err_o;
}

VMODEL_SHIM(core)
VMODEL_SHIM_PARAMS(core)
VMODEL_SHIM_SKIP(core)
