// fv_core_top: the proof harness of core_top (scripts/formal/README.md).
//
// Environment (assumed): the command port and the DMA request port keep the handshake
// contract; payloads, ready and the DMA requests themselves are free.
//
// Block (asserted): the completion port keeps the contract and is idle after reset; there is
// one completion per command, never one without a command, and at most two commands are
// inside (the one executing and a completion waiting in its skid buffer); the DMA port answers
// every accepted request exactly two cycles later, for one cycle, and never otherwise.

`default_nettype none
`include "fv_harness.svh"

module fv_core_top #(
    parameter int Rows   = 1,
    parameter int Cols   = 1,
    parameter int AWords = 2,
    parameter int BWords = 2,
    parameter int CWords = 2
) (
    input wire        clk_i,
    input wire        rst_i,
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
    input wire        dma_req_valid_i,
    input wire        dma_req_we_i,
    input wire [31:0] dma_req_addr_i,
    input wire [63:0] dma_req_wdata_i,
    input wire [ 7:0] dma_req_wstrb_i,
    input wire        pick_i
);
  wire        cmd_ready_o;
  wire        done_valid_o;
  wire [ 2:0] done_status_o;
  wire [31:0] done_cycles_o;
  wire        dma_req_ready_o;
  wire        dma_resp_valid_o;
  wire [63:0] dma_resp_rdata_o;
  wire        dma_resp_err_o;
  wire        busy_o;
  core_top #(
      .Rows  (Rows),
      .Cols  (Cols),
      .AWords(AWords),
      .BWords(BWords),
      .CWords(CWords)
  ) dut (
      .*
  );

  `FV_LIVE

  // ---------------------------------------------------------------- environment
  `FV_SINK(u_cmd, cmd_valid_i, cmd_ready_o, {cmd_m_i, cmd_n_i, cmd_k_i, cmd_a_addr_i, cmd_b_addr_i,
           cmd_c_addr_i, cmd_lda_i, cmd_ldb_i, cmd_ldc_i, cmd_trans_a_i, cmd_trans_b_i,
           cmd_accumulate_i})
  `FV_SINK(u_dma_req, dma_req_valid_i, dma_req_ready_o, {dma_req_we_i, dma_req_addr_i,
           dma_req_wdata_i, dma_req_wstrb_i})

  // ---------------------------------------------------------------- block
  `FV_SOURCE(u_done, done_valid_o, done_ready_i, {done_status_o, done_cycles_o})
  wire [2:0] held, ahead;
  wire armed;
  wire [0:0] tracked;
  fv_track #(.Width(1), .Cap(2)) u_cmds (
      .clk_i, .rst_i, .live_i(live),
      .in_fire_i(cmd_valid_i && cmd_ready_o), .in_data_i(1'b0),
      .out_fire_i(done_valid_o && done_ready_i), .out_data_i(1'b0),
      .pick_i, .held_o(held), .armed_o(armed), .ahead_o(ahead), .data_o(tracked)
  );
  reg [1:0] dma_acc_q;
  always @(posedge clk_i) begin
    if (rst_i) dma_acc_q <= '0;
    else dma_acc_q <= {dma_acc_q[0], dma_req_valid_i && dma_req_ready_o};
  end
  always @* begin
    if (live) begin
      if (held == 0) assert (!done_valid_o);
      assert (dma_resp_valid_o == dma_acc_q[1]);
    end
  end
endmodule

`default_nettype wire
