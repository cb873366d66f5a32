// ports: the groups of ports that more than one verilated top has, under the same names, and so
// the part of those shims' drive and sample they share. In and Out are the shim's port structs
// (csim/shim/<block>.h), which carry these groups' fields under the same names too.
//   DMA outer ports (dma_top, an_top): the descriptor queue (desc_*), the completion queue
//     (cpl_*) and the tensor-buffer memory port (mem_*, csim/shim/mem_port.h);
//   core command ports (core_top, an_top): the GEMM command (cmd_*), its completion (done_*)
//     and busy.
// Inputs wider than their ports are truncated to the port, as the RTL would see them.
#ifndef CSIM_SHIM_PORTS_HPP
#define CSIM_SHIM_PORTS_HPP

#include <cstdint>

template <class Top, class In> void drive_dma_outer(Top *t, const In *in)
{
    const uint64_t m40 = (1ull << 40) - 1;
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
}

template <class Top, class Out> void sample_dma_outer(const Top *t, Out *out)
{
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
}

template <class Top, class In> void drive_core_cmd(Top *t, const In *in)
{
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

template <class Top, class Out> void sample_core_cmd(const Top *t, Out *out)
{
    out->cmd_ready = t->cmd_ready_o;
    out->done_valid = t->done_valid_o;
    out->done_status = static_cast<decltype(out->done_status)>(t->done_status_o);
    out->done_cycles = t->done_cycles_o;
    out->busy = t->busy_o;
}

#endif
