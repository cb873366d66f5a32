// fv_nfw_top: the proof harness of nfw_top (scripts/formal/README.md).
//
// Environment (assumed): the command port keeps the handshake contract; the memory answers
// only requests it has accepted (never more responses than requests outstanding); payloads,
// the channels' and the firmware's ready signals, the configuration port are free.
//
// Block (asserted): the memory request, program command, page data and completion ports keep
// the contract and are idle after reset; the reader never has more requests unanswered than
// its credits (MaxReads).

`default_nettype none
`include "fv_harness.svh"

module fv_nfw_top #(
    parameter int PageBytes     = 64,
    parameter int Planes        = 1,
    parameter int Channels      = 1,
    parameter int DiesPerChan   = 1,
    parameter int PagesPerBlock = 2,
    parameter int Streams       = 1,
    parameter int MaxPbs        = 2,
    parameter int BbtEntries    = 1,
    parameter int Slots         = 2,
    parameter int MaxReads      = 2
) (
    input wire        clk_i,
    input wire        rst_i,
    input wire        cmd_valid_i,
    input wire [39:0] cmd_addr_i,
    input wire [31:0] cmd_len_i,
    input wire [ 3:0] cmd_stream_i,
    input wire        mem_req_ready_i,
    input wire        mem_rsp_valid_i,
    input wire [63:0] mem_rsp_rdata_i,
    input wire        mem_rsp_err_i,
    input wire        prog_ready_i,
    input wire        pdat_ready_i,
    input wire        done_ready_i,
    input wire        cfg_valid_i,
    input wire [ 1:0] cfg_op_i,
    input wire [ 3:0] cfg_stream_i,
    input wire [ 7:0] cfg_idx_i,
    input wire [31:0] cfg_a_i,
    input wire [31:0] cfg_b_i
);
  wire        cmd_ready_o;
  wire        mem_req_valid_o, mem_req_write_o, mem_rsp_ready_o;
  wire [39:0] mem_req_addr_o;
  wire [63:0] mem_req_wdata_o;
  wire [ 7:0] mem_req_wstrb_o;
  wire        prog_valid_o, prog_first_o, prog_last_o;
  wire [15:0] prog_chan_o, prog_die_o, prog_block_o, prog_page_o;
  wire [ 3:0] prog_plane_o;
  wire        pdat_valid_o, pdat_last_o;
  wire [63:0] pdat_data_o;
  wire        done_valid_o, done_err_o;
  wire [ 3:0] done_stream_o, done_plane_o;
  wire [31:0] done_lpn_o;
  wire [15:0] done_pbn_o, done_die_o, done_block_o, done_page_o;
  wire        cfg_ready_o, idle_o;
  nfw_top #(
      .PageBytes    (PageBytes),
      .Planes       (Planes),
      .Channels     (Channels),
      .DiesPerChan  (DiesPerChan),
      .PagesPerBlock(PagesPerBlock),
      .Streams      (Streams),
      .MaxPbs       (MaxPbs),
      .BbtEntries   (BbtEntries),
      .Slots        (Slots),
      .MaxReads     (MaxReads)
  ) dut (
      .*
  );

  `FV_LIVE

  // ---------------------------------------------------------------- environment
  `FV_SINK(u_cmd, cmd_valid_i, cmd_ready_o, {cmd_addr_i, cmd_len_i, cmd_stream_i})
  // Requests accepted and not yet answered: the memory answers only those.
  wire [7:0] out_q;
  fv_outstanding u_reads (
      .clk_i, .rst_i, .live_i(live), .req_fire_i(mem_req_valid_o && mem_req_ready_i),
      .rsp_valid_i(mem_rsp_valid_i), .rsp_ready_i(mem_rsp_ready_o), .count_o(out_q)
  );

  // ---------------------------------------------------------------- block
  `FV_SOURCE(u_mem, mem_req_valid_o, mem_req_ready_i, {mem_req_write_o, mem_req_addr_o,
             mem_req_wdata_o, mem_req_wstrb_o})
  `FV_SOURCE(u_prog, prog_valid_o, prog_ready_i, {prog_chan_o, prog_die_o, prog_block_o,
             prog_page_o, prog_plane_o, prog_first_o, prog_last_o})
  `FV_SOURCE(u_pdat, pdat_valid_o, pdat_ready_i, {pdat_data_o, pdat_last_o})
  `FV_SOURCE(u_done, done_valid_o, done_ready_i, {done_stream_o, done_lpn_o, done_pbn_o, done_die_o,
             done_block_o, done_page_o, done_plane_o, done_err_o})
  always @* begin
    if (live) assert (32'(out_q) <= MaxReads);
  end
endmodule

`default_nettype wire
