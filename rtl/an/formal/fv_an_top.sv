// fv_an_top: the proof harness of an_top, the DMA and the core joined (scripts/formal/README.md).
//
// Environment (assumed): the descriptor, command and tensor-buffer response ports keep the
// handshake contract; the tensor buffer answers only requests it has accepted. Everything
// else (payloads, ready signals, response data and errors, when the tensor buffer answers)
// is free. The DMA's SRAM port is no longer the environment's: the core answers it.
//
// Block (asserted): the DMA completion, tensor-buffer request and GEMM completion ports keep
// the contract and are idle after reset; DMA completions come one per descriptor, in
// descriptor order, each with its descriptor's tag (fv_track on the tag); GEMM completions
// one per command, never one without a command, at most two inside. Inside, on the DMA's
// SRAM port: the DMA keeps the contract, and the core answers every accepted request exactly
// two cycles later and never otherwise (at most two unanswered).

`default_nettype none
`include "fv_harness.svh"

module fv_an_top #(
    parameter int Rows      = 1,
    parameter int Cols      = 1,
    parameter int AWords    = 2,
    parameter int BWords    = 2,
    parameter int CWords    = 2,
    parameter int TbSizeKiB = 1,
    parameter int MaxRdOut  = 2,
    parameter int DescDepth = 2,
    parameter int CplDepth  = 2
) (
    input wire        clk_i,
    input wire        rst_i,
    input wire        desc_valid_i,
    input wire        desc_store_i,
    input wire        desc_xpose_i,
    input wire [ 7:0] desc_tag_i,
    input wire [39:0] desc_src_i,
    input wire [39:0] desc_dst_i,
    input wire [15:0] desc_rows_i,
    input wire [23:0] desc_len_i,
    input wire [39:0] desc_src_stride_i,
    input wire [39:0] desc_dst_stride_i,
    input wire        cpl_ready_i,
    input wire        mem_req_ready_i,
    input wire        mem_rsp_valid_i,
    input wire [63:0] mem_rsp_rdata_i,
    input wire        mem_rsp_err_i,
    input wire        cmd_valid_i,
    input wire [31:0] cmd_m_i,
    input wire [31:0] cmd_n_i,
    input wire [31:0] cmd_k_i,
    input wire [31:0] cmd_a_addr_i,
    input wire [31:0] cmd_b_addr_i,
    input wire [31:0] cmd_c_addr_i,
    input wire [31:0] cmd_lda_i,
    input wire [31:0] cmd_ldb_i,
    input wire [31:0] cmd_ldc_i,
    input wire        cmd_trans_a_i,
    input wire        cmd_trans_b_i,
    input wire        cmd_accumulate_i,
    input wire        done_ready_i,
    input wire        pick_i
);
  wire        desc_ready_o;
  wire        cpl_valid_o;
  wire [ 7:0] cpl_tag_o;
  wire [ 2:0] cpl_status_o;
  wire [31:0] cpl_cycles_o;
  wire        mem_req_valid_o;
  wire        mem_req_write_o;
  wire [39:0] mem_req_addr_o;
  wire [63:0] mem_req_wdata_o;
  wire [ 7:0] mem_req_wstrb_o;
  wire        mem_rsp_ready_o;
  wire        cmd_ready_o;
  wire        done_valid_o;
  wire [ 2:0] done_status_o;
  wire [31:0] done_cycles_o;
  wire        dma_idle_o;
  wire        busy_o;
  an_top #(
      .Rows     (Rows),
      .Cols     (Cols),
      .AWords   (AWords),
      .BWords   (BWords),
      .CWords   (CWords),
      .TbSizeKiB(TbSizeKiB),
      .MaxRdOut (MaxRdOut),
      .DescDepth(DescDepth),
      .CplDepth (CplDepth)
  ) dut (
      .*
  );

  `FV_LIVE

  // ---------------------------------------------------------------- environment
  `FV_SINK(u_desc, desc_valid_i, desc_ready_o, {desc_store_i, desc_xpose_i, desc_tag_i, desc_src_i,
           desc_dst_i, desc_rows_i, desc_len_i, desc_src_stride_i, desc_dst_stride_i})
  `FV_SINK(u_mem_rsp, mem_rsp_valid_i, mem_rsp_ready_o, {mem_rsp_err_i, mem_rsp_rdata_i})
  `FV_SINK(u_cmd, cmd_valid_i, cmd_ready_o, {cmd_m_i, cmd_n_i, cmd_k_i, cmd_a_addr_i, cmd_b_addr_i,
           cmd_c_addr_i, cmd_lda_i, cmd_ldb_i, cmd_ldc_i, cmd_trans_a_i, cmd_trans_b_i,
           cmd_accumulate_i})
  // Tensor-buffer requests accepted and not yet answered: the tensor buffer answers only those.
  wire [7:0] mem_out_q;
  fv_outstanding u_mem_out (
      .clk_i, .rst_i, .live_i(live), .req_fire_i(mem_req_valid_o && mem_req_ready_i),
      .rsp_valid_i(mem_rsp_valid_i), .rsp_ready_i(mem_rsp_ready_o), .count_o(mem_out_q)
  );

  // ---------------------------------------------------------------- block
  `FV_SOURCE(u_cpl, cpl_valid_o, cpl_ready_i, {cpl_tag_o, cpl_status_o, cpl_cycles_o})
  `FV_SOURCE(u_mem_req, mem_req_valid_o, mem_req_ready_i, {mem_req_write_o, mem_req_addr_o,
             mem_req_wdata_o, mem_req_wstrb_o})
  `FV_SOURCE(u_done, done_valid_o, done_ready_i, {done_status_o, done_cycles_o})
  // Descriptors inside the DMA: the queue, the one running, the completion queue.
  localparam int Cap = DescDepth + 1 + CplDepth;
  wire [$clog2(Cap+1):0] held, ahead;
  wire armed;
  wire [7:0] tracked;
  fv_track #(.Width(8), .Cap(Cap)) u_tags (
      .clk_i, .rst_i, .live_i(live),
      .in_fire_i(desc_valid_i && desc_ready_o), .in_data_i(desc_tag_i),
      .out_fire_i(cpl_valid_o && cpl_ready_i), .out_data_i(cpl_tag_o),
      .pick_i, .held_o(held), .armed_o(armed), .ahead_o(ahead), .data_o(tracked)
  );
  // Commands inside the core: the one executing and a completion waiting in its skid buffer.
  wire [2:0] cmd_held, cmd_ahead;
  wire cmd_armed;
  wire [0:0] cmd_tracked;
  fv_track #(.Width(1), .Cap(2)) u_cmds (
      .clk_i, .rst_i, .live_i(live),
      .in_fire_i(cmd_valid_i && cmd_ready_o), .in_data_i(1'b0),
      .out_fire_i(done_valid_o && done_ready_i), .out_data_i(1'b0),
      .pick_i, .held_o(cmd_held), .armed_o(cmd_armed), .ahead_o(cmd_ahead),
      .data_o(cmd_tracked)
  );
  // The DMA's SRAM port, inside (peek lines of rtl/an/formal/proofs): the DMA's requests keep
  // the contract, and the core answers each accepted one exactly two cycles later, for one
  // cycle, and never otherwise (the fixed latency the DMA counts on, dma_top's SramLat): so
  // never more than two are unanswered.
  (* keep *) wire sram_valid_peek, sram_ready_peek, sram_write_peek, sram_rsp_peek;
  (* keep *) wire [31:0] sram_addr_peek;
  (* keep *) wire [63:0] sram_wdata_peek;
  (* keep *) wire [7:0] sram_wstrb_peek;
  `FV_SOURCE(u_sram, sram_valid_peek, sram_ready_peek, {sram_write_peek, sram_addr_peek,
             sram_wdata_peek, sram_wstrb_peek})
  reg [1:0] sram_acc_q;
  always @(posedge clk_i) begin
    if (rst_i) sram_acc_q <= '0;
    else sram_acc_q <= {sram_acc_q[0], sram_valid_peek && sram_ready_peek};
  end

  always @* begin
    if (live) begin
      assert (sram_rsp_peek == sram_acc_q[1]);
      if (held == 0) assert (!cpl_valid_o);
      if (cmd_held == 0) assert (!done_valid_o);
    end
  end
endmodule

`default_nettype wire
