// fv_dma_top: the proof harness of dma_top (scripts/formal/README.md).
//
// Environment (assumed): the descriptor port keeps the handshake contract; the tensor buffer
// answers only requests it has accepted (one response per request, in order), and the SRAM
// answers every accepted request exactly SramLat cycles later, as rtl/dma/README.md promises.
// Everything else (payloads, ready signals, response data and errors, when the tensor buffer
// answers) is free.
//
// Block (asserted): the completion port and both request ports keep the contract and are idle
// after reset; completions come one per descriptor, in descriptor order (each carries the tag
// of its descriptor: fv_track on the tag), and never more than the descriptors taken; no more
// tensor-buffer requests are outstanding than MaxRdOut + MaxWrOut.

`default_nettype none
`include "fv_harness.svh"

module fv_dma_top #(
    parameter int SramAddrW = 8,
    parameter int SramBytes = 256,
    parameter int TbSizeKiB = 1,
    parameter int SramLat   = 2,
    parameter int MaxRdOut  = 2,
    parameter int MaxWrOut  = 2,
    parameter int DescDepth = 2,
    parameter int CplDepth  = 2
) (
    input wire                 clk_i,
    input wire                 rst_i,
    input wire                 desc_valid_i,
    input wire                 desc_store_i,
    input wire                 desc_xpose_i,
    input wire [          7:0] desc_tag_i,
    input wire [         39:0] desc_src_i,
    input wire [         39:0] desc_dst_i,
    input wire [         15:0] desc_rows_i,
    input wire [         23:0] desc_len_i,
    input wire [         39:0] desc_src_stride_i,
    input wire [         39:0] desc_dst_stride_i,
    input wire                 cpl_ready_i,
    input wire                 mem_req_ready_i,
    input wire                 mem_rsp_valid_i,
    input wire [         63:0] mem_rsp_rdata_i,
    input wire                 mem_rsp_err_i,
    input wire                 sram_req_ready_i,
    input wire                 sram_rsp_valid_i,
    input wire [         63:0] sram_rsp_rdata_i,
    input wire                 sram_rsp_err_i,
    input wire                 pick_i
);
  wire                 desc_ready_o;
  wire                 cpl_valid_o;
  wire [          7:0] cpl_tag_o;
  wire [          2:0] cpl_status_o;
  wire [         31:0] cpl_cycles_o;
  wire                 mem_req_valid_o;
  wire                 mem_req_write_o;
  wire [         39:0] mem_req_addr_o;
  wire [         63:0] mem_req_wdata_o;
  wire [          7:0] mem_req_wstrb_o;
  wire                 mem_rsp_ready_o;
  wire                 sram_req_valid_o;
  wire                 sram_req_write_o;
  wire [SramAddrW-1:0] sram_req_addr_o;
  wire [         63:0] sram_req_wdata_o;
  wire [          7:0] sram_req_wstrb_o;
  wire                 idle_o;
  dma_top #(
      .SramAddrW(SramAddrW),
      .SramBytes(SramBytes),
      .TbSizeKiB(TbSizeKiB),
      .SramLat  (SramLat),
      .MaxRdOut (MaxRdOut),
      .MaxWrOut (MaxWrOut),
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
  // Tensor-buffer requests accepted and not yet answered.
  localparam int MemCap = MaxRdOut + MaxWrOut;
  wire [7:0] mem_out_q;
  fv_outstanding u_mem_out (
      .clk_i, .rst_i, .live_i(live), .req_fire_i(mem_req_valid_o && mem_req_ready_i),
      .rsp_valid_i(mem_rsp_valid_i), .rsp_ready_i(mem_rsp_ready_o), .count_o(mem_out_q)
  );
  // The SRAM's fixed latency.
  reg [SramLat-1:0] sram_acc_q;
  always @(posedge clk_i) begin
    if (rst_i) sram_acc_q <= '0;
    else sram_acc_q <= {sram_acc_q[SramLat-2:0], sram_req_valid_o && sram_req_ready_i};
  end
  always @* if (live) assume (sram_rsp_valid_i == sram_acc_q[SramLat-1]);

  // ---------------------------------------------------------------- block
  `FV_SOURCE(u_cpl, cpl_valid_o, cpl_ready_i, {cpl_tag_o, cpl_status_o, cpl_cycles_o})
  `FV_SOURCE(u_mem_req, mem_req_valid_o, mem_req_ready_i, {mem_req_write_o, mem_req_addr_o,
             mem_req_wdata_o, mem_req_wstrb_o})
  `FV_SOURCE(u_sram_req, sram_req_valid_o, sram_req_ready_i, {sram_req_write_o, sram_req_addr_o,
             sram_req_wdata_o, sram_req_wstrb_o})
  // Descriptors inside: the queue, the one running, the completion queue.
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
  always @* begin
    if (live) begin
      assert (mem_out_q <= 8'(MemCap));
      if (held == 0) assert (!cpl_valid_o);
    end
  end
endmodule

`default_nettype wire
