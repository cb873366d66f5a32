// Shim: the NAND write pipelines (rtl/nfw/nfw_top.v) behind the nfw C interface (nfw.h).
// Built once per verilated configuration: VTOP/VTOP_H name the class and its header, P_<Name>
// the parameters it was verilated with.
#include "csim/shim/nfw.h"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

static void params(struct nfw_params *out)
{
    out->page_bytes = P_PageBytes;
    out->planes = P_Planes;
    out->channels = P_Channels;
    out->dies_per_chan = P_DiesPerChan;
    out->pages_per_block = P_PagesPerBlock;
    out->streams = P_Streams;
    out->max_pbs = P_MaxPbs;
    out->bbt_entries = P_BbtEntries;
    out->slots = P_Slots;
    out->max_reads = P_MaxReads;
}

static void drive(VTOP *t, const struct nfw_in *in)
{
    t->rst_i = in->rst;
    t->cmd_valid_i = in->cmd_valid;
    t->cmd_addr_i = in->cmd_addr & ((1ull << 40) - 1);
    t->cmd_len_i = in->cmd_len;
    t->cmd_stream_i = in->cmd_stream & 0xf;
    t->mem_req_ready_i = in->mem_req_ready;
    t->mem_rsp_valid_i = in->mem_rsp_valid;
    t->mem_rsp_rdata_i = in->mem_rsp_rdata;
    t->mem_rsp_err_i = in->mem_rsp_err;
    t->prog_ready_i = in->prog_ready;
    t->pdat_ready_i = in->pdat_ready;
    t->done_ready_i = in->done_ready;
    t->cfg_valid_i = in->cfg_valid;
    t->cfg_op_i = in->cfg_op & 3;
    t->cfg_stream_i = in->cfg_stream & 0xf;
    t->cfg_idx_i = in->cfg_idx;
    t->cfg_a_i = in->cfg_a;
    t->cfg_b_i = in->cfg_b;
}

static void sample(const VTOP *t, struct nfw_out *out)
{
    out->cmd_ready = t->cmd_ready_o;
    out->mem_req_valid = t->mem_req_valid_o;
    out->mem_req_write = t->mem_req_write_o;
    out->mem_req_addr = t->mem_req_addr_o;
    out->mem_req_wdata = t->mem_req_wdata_o;
    out->mem_req_wstrb = t->mem_req_wstrb_o;
    out->mem_rsp_ready = t->mem_rsp_ready_o;
    out->prog_valid = t->prog_valid_o;
    out->prog_chan = t->prog_chan_o;
    out->prog_die = t->prog_die_o;
    out->prog_plane = t->prog_plane_o;
    out->prog_block = t->prog_block_o;
    out->prog_page = t->prog_page_o;
    out->prog_first = t->prog_first_o;
    out->prog_last = t->prog_last_o;
    out->pdat_valid = t->pdat_valid_o;
    out->pdat_data = t->pdat_data_o;
    out->pdat_last = t->pdat_last_o;
    out->done_valid = t->done_valid_o;
    out->done_stream = t->done_stream_o;
    out->done_lpn = t->done_lpn_o;
    out->done_pbn = t->done_pbn_o;
    out->done_die = t->done_die_o;
    out->done_plane = t->done_plane_o;
    out->done_block = t->done_block_o;
    out->done_page = t->done_page_o;
    out->done_err = t->done_err_o;
    out->cfg_ready = t->cfg_ready_o;
    out->idle = t->idle_o;
}

VMODEL_SHIM(nfw)
VMODEL_SHIM_PARAMS(nfw)
