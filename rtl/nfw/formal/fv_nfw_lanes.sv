// fv_nfw_lanes: the proof harness of nfw_lanes, the write lanes joined: nfw_split, Lanes
// nfw_top pipelines and nfw_merge (scripts/formal/README.md).
//
// Environment (assumed): the command port keeps the handshake contract; each lane's memory
// answers only requests it has accepted; payloads, the channels' and the firmware's ready
// signals and the configuration port are free.
//
// Block (asserted): every lane's memory request, program command and page data port and the
// completion port keep the contract and are idle after reset; no lane has more reads
// unanswered than MaxReads. The splitter's cuts and order and the merger's numbering are
// proved on the blocks alone (fv_nfw_split, fv_nfw_merge), each lane's ports on nfw_top
// (fv_nfw_top): this proof checks them joined, with the lanes' own wiring.

`default_nettype none
`include "fv_harness.svh"

module fv_nfw_lanes #(
    parameter int PageBytes     = 64,
    parameter int Planes        = 1,
    parameter int Channels      = 2,
    parameter int DiesPerChan   = 1,
    parameter int PagesPerBlock = 2,
    parameter int Streams       = 1,
    parameter int MaxPbs        = 2,
    parameter int BbtEntries    = 1,
    parameter int Slots         = 2,
    parameter int MaxReads      = 2,
    parameter int Lanes         = 2
) (
    input wire                clk_i,
    input wire                rst_i,
    input wire                cmd_valid_i,
    input wire [        39:0] cmd_addr_i,
    input wire [        31:0] cmd_len_i,
    input wire [         3:0] cmd_stream_i,
    input wire [   Lanes-1:0] mem_req_ready_i,
    input wire [   Lanes-1:0] mem_rsp_valid_i,
    input wire [Lanes*64-1:0] mem_rsp_rdata_i,
    input wire [   Lanes-1:0] mem_rsp_err_i,
    input wire [   Lanes-1:0] prog_ready_i,
    input wire [   Lanes-1:0] pdat_ready_i,
    input wire                done_ready_i,
    input wire                cfg_valid_i,
    input wire [         1:0] cfg_op_i,
    input wire [         3:0] cfg_stream_i,
    input wire [         7:0] cfg_idx_i,
    input wire [        31:0] cfg_a_i,
    input wire [        31:0] cfg_b_i
);
  wire                cmd_ready_o;
  wire [   Lanes-1:0] mem_req_valid_o, mem_req_write_o, mem_rsp_ready_o;
  wire [Lanes*40-1:0] mem_req_addr_o;
  wire [Lanes*64-1:0] mem_req_wdata_o;
  wire [ Lanes*8-1:0] mem_req_wstrb_o;
  wire [   Lanes-1:0] prog_valid_o, prog_first_o, prog_last_o;
  wire [Lanes*16-1:0] prog_chan_o, prog_die_o, prog_block_o, prog_page_o;
  wire [ Lanes*4-1:0] prog_plane_o;
  wire [   Lanes-1:0] pdat_valid_o, pdat_last_o;
  wire [Lanes*64-1:0] pdat_data_o;
  wire                done_valid_o, done_err_o;
  wire [         3:0] done_stream_o, done_plane_o;
  wire [        31:0] done_lpn_o;
  wire [        15:0] done_pbn_o, done_die_o, done_block_o, done_page_o;
  wire                cfg_ready_o, idle_o;
  nfw_lanes #(
      .PageBytes    (PageBytes),
      .Planes       (Planes),
      .Channels     (Channels),
      .DiesPerChan  (DiesPerChan),
      .PagesPerBlock(PagesPerBlock),
      .Streams      (Streams),
      .MaxPbs       (MaxPbs),
      .BbtEntries   (BbtEntries),
      .Slots        (Slots),
      .MaxReads     (MaxReads),
      .Lanes        (Lanes)
  ) dut (
      .*
  );

  `FV_LIVE

  // ---------------------------------------------------------------- environment
  `FV_SINK(u_cmd, cmd_valid_i, cmd_ready_o, {cmd_addr_i, cmd_len_i, cmd_stream_i})

  // ---------------------------------------------------------------- block
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    wire [7:0] reads;
    fv_outstanding u_reads (
        .clk_i, .rst_i, .live_i(live),
        .req_fire_i(mem_req_valid_o[l] && mem_req_ready_i[l]),
        .rsp_valid_i(mem_rsp_valid_i[l]), .rsp_ready_i(mem_rsp_ready_o[l]), .count_o(reads)
    );
    `FV_SOURCE(u_mem, mem_req_valid_o[l], mem_req_ready_i[l],
               {mem_req_write_o[l], mem_req_addr_o[40*l+:40], mem_req_wdata_o[64*l+:64],
                mem_req_wstrb_o[8*l+:8]})
    `FV_SOURCE(u_prog, prog_valid_o[l], prog_ready_i[l],
               {prog_chan_o[16*l+:16], prog_die_o[16*l+:16], prog_block_o[16*l+:16],
                prog_page_o[16*l+:16], prog_plane_o[4*l+:4], prog_first_o[l], prog_last_o[l]})
    `FV_SOURCE(u_pdat, pdat_valid_o[l], pdat_ready_i[l], {pdat_data_o[64*l+:64], pdat_last_o[l]})
    always @* if (live) assert (32'(reads) <= MaxReads);
  end
  `FV_SOURCE(u_done, done_valid_o, done_ready_i,
             {done_stream_o, done_lpn_o, done_pbn_o, done_die_o, done_block_o, done_page_o,
              done_plane_o, done_err_o})
endmodule

`default_nettype wire
