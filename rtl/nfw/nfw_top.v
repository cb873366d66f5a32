// nfw_top: the NAND write pipelines of a node (Behemoth's hardware-automated write path).
//
//   cmd --> nfw_rd --(memory port)--> response FIFO --> nfw_align --> nfw_page_pack --> SRAM
//                                                                       |  ^ nfw_alloc
//   prog/pdat (to the channels) <-- nfw_issue <-- SRAM, descriptors ----+  nfw_bbt
//   done (physical addresses, to the firmware's FTL) <-- nfw_issue
//
// Write-command pipeline: a command (tensor-buffer address, length, stream) is read from the
// tensor buffer through the memory port (rtl/README.md; several reads outstanding, responses
// in order), aligned, zero-padded to whole pages and written into page buffers in the
// controller SRAM. NAND program pipeline: pages are grouped into multi-plane program units at
// the stream's append point (the C stream FTL's layout), an LB's first page takes the next
// physical block from the round-robin allocator, bad blocks are replaced through the table,
// and each unit goes to its channel as per-page program commands with their data; a
// completion per page reports where it went. No firmware is on this path; the firmware only
// configures streams, frees blocks it has erased, and loads bad-block replacements.
//
// Configuration port (cfg_ready_o is always high; one operation per beat):
//   op 0 SET_STREAM  stream: a[15:0] first block, a[31:16] physical blocks, b[15:0] logical
//                    blocks; its append point goes to LPN 0 and all its blocks are free
//   op 1 FREE_PB     stream: block a[15:0] (relative to the first) is erased and free
//   op 2 USE_PB      stream: block a[15:0] is busy (retired, never handed out)
//   op 3 BBT         entry idx: a[15:0] block, a[19:16] plane, a[31:20] die -> b[15:0] spare,
//                    b[31] entry valid
// Configure a stream only while the pipeline is idle (idle_o).
//
// Handshake contract: rtl/README.md. Every output is a register or leaves through a FIFO.

`default_nettype none

module nfw_top #(
    parameter int PageBytes     = 256,  // bytes per flash page, a power of two >= 64
    parameter int Planes        = 2,    // planes per die, 1..16
    parameter int Channels      = 2,    // channels, a power of two
    parameter int DiesPerChan   = 2,    // dies on each channel (chips x dies per chip)
    parameter int PagesPerBlock = 4,    // pages per block
    parameter int Streams       = 2,    // streams, 1..16
    parameter int MaxPbs        = 16,   // physical blocks a stream may own
    parameter int BbtEntries    = 4,    // bad-block replacement entries
    parameter int Slots         = 4,    // page buffers in SRAM, a power of two >= Planes
    parameter int MaxReads      = 64    // tensor-buffer reads outstanding, a power of two
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // write commands
    input  wire        cmd_valid_i,
    output wire        cmd_ready_o,
    input  wire [39:0] cmd_addr_i,
    input  wire [31:0] cmd_len_i,
    input  wire [ 3:0] cmd_stream_i,
    // memory port (tensor buffer), reads only
    output wire        mem_req_valid_o,
    input  wire        mem_req_ready_i,
    output wire        mem_req_write_o,
    output wire [39:0] mem_req_addr_o,
    output wire [63:0] mem_req_wdata_o,
    output wire [ 7:0] mem_req_wstrb_o,
    input  wire        mem_rsp_valid_i,
    output wire        mem_rsp_ready_o,
    input  wire [63:0] mem_rsp_rdata_i,
    input  wire        mem_rsp_err_i,
    // program commands to the channels, one per page
    output wire        prog_valid_o,
    input  wire        prog_ready_i,
    output wire [15:0] prog_chan_o,
    output wire [15:0] prog_die_o,
    output wire [ 3:0] prog_plane_o,
    output wire [15:0] prog_block_o,
    output wire [15:0] prog_page_o,
    output wire        prog_first_o,
    output wire        prog_last_o,
    // page data after each command
    output wire        pdat_valid_o,
    input  wire        pdat_ready_i,
    output wire [63:0] pdat_data_o,
    output wire        pdat_last_o,
    // completions, one per page
    output wire        done_valid_o,
    input  wire        done_ready_i,
    output wire [ 3:0] done_stream_o,
    output wire [31:0] done_lpn_o,
    output wire [15:0] done_pbn_o,
    output wire [15:0] done_die_o,
    output wire [ 3:0] done_plane_o,
    output wire [15:0] done_block_o,
    output wire [15:0] done_page_o,
    output wire        done_err_o,
    // configuration
    input  wire        cfg_valid_i,
    output wire        cfg_ready_o,
    input  wire [ 1:0] cfg_op_i,
    input  wire [ 3:0] cfg_stream_i,
    input  wire [ 7:0] cfg_idx_i,
    input  wire [31:0] cfg_a_i,
    input  wire [31:0] cfg_b_i,
    // nothing queued or in flight (one cycle late)
    output wire        idle_o
);

  localparam int Dies = Channels * DiesPerChan;
  localparam int BeatsPerPage = PageBytes / 8;
  localparam int RamAddrW = $clog2(Slots * BeatsPerPage);
  localparam int SlotW = $clog2(Slots);
  localparam int RspW = 1 + 64;  // a memory response: error flag, data

  // Configuration operations (cfg_op_i), as the table above.
  localparam logic [1:0] CfgSetStream = 2'd0;  // C: NFW_CFG_SET_STREAM
  localparam logic [1:0] CfgFreePb = 2'd1;  // C: NFW_CFG_FREE_PB
  localparam logic [1:0] CfgUsePb = 2'd2;  // C: NFW_CFG_USE_PB
  localparam logic [1:0] CfgBbt = 2'd3;  // C: NFW_CFG_BBT

  if (DiesPerChan < 1 || Dies > 4096) begin : g_bad_dies
    nfw_param_error_DiesPerChan_at_least_1_and_at_most_4096_dies u_err ();
  end

  // ---------------------------------------------------------------- configuration
  wire cfg_set_stream = cfg_valid_i && cfg_op_i == CfgSetStream;
  wire cfg_free_pb = cfg_valid_i && cfg_op_i == CfgFreePb;
  wire cfg_use_pb = cfg_valid_i && cfg_op_i == CfgUsePb;
  wire cfg_bbt = cfg_valid_i && cfg_op_i == CfgBbt;

  // The operands' fields, per operation (the die of a BBT entry is 12 bits: at most 4096 dies).
  wire [15:0] cfg_first_block = cfg_a_i[15:0];  // SET_STREAM
  wire [15:0] cfg_pblocks = cfg_a_i[31:16];  // SET_STREAM
  wire [15:0] cfg_lblocks = cfg_b_i[15:0];  // SET_STREAM
  wire [15:0] cfg_pbn = cfg_a_i[15:0];  // FREE_PB, USE_PB
  wire [15:0] cfg_bbt_block = cfg_a_i[15:0];
  wire [ 3:0] cfg_bbt_plane = cfg_a_i[19:16];
  wire [11:0] cfg_bbt_die = cfg_a_i[31:20];
  wire [15:0] cfg_bbt_spare = cfg_b_i[15:0];
  wire        cfg_bbt_valid = cfg_b_i[31];

  reg [Streams*16-1:0] stream_first_q, stream_lblocks_q;
  reg [   Streams-1:0] stream_reset;  // SET_STREAM of stream i: its append point to LPN 0

  always @(posedge clk_i) begin
    for (int i = 0; i < Streams; i++) begin
      if (cfg_set_stream && cfg_stream_i == 4'(i)) begin
        stream_first_q[16*i+:16]   <= cfg_first_block;
        stream_lblocks_q[16*i+:16] <= cfg_lblocks;
      end
    end
  end

  always @* begin
    for (int i = 0; i < Streams; i++) stream_reset[i] = cfg_set_stream && cfg_stream_i == 4'(i);
  end

  assign cfg_ready_o = 1'b1;

  // ---------------------------------------------------------------- write-command pipeline
  wire            desc_valid, desc_ready;
  wire [     2:0] desc_off;
  wire [    31:0] desc_len;
  wire [     3:0] desc_stream;
  wire            rsp_valid, rsp_pop, rsp_in_ready;
  wire [RspW-1:0] rsp_data;
  wire            reader_idle, align_idle, pack_idle, issue_idle;

  nfw_rd #(
      .Streams (Streams),
      .MaxReads(MaxReads)
  ) u_rd (
      .clk_i,
      .rst_i,
      .cmd_valid_i,
      .cmd_ready_o,
      .cmd_addr_i,
      .cmd_len_i,
      .cmd_stream_i,
      .mem_req_valid_o,
      .mem_req_ready_i,
      .mem_req_addr_o,
      .rsp_pop_i    (rsp_pop),
      .desc_valid_o (desc_valid),
      .desc_ready_i (desc_ready),
      .desc_off_o   (desc_off),
      .desc_len_o   (desc_len),
      .desc_stream_o(desc_stream),
      .idle_o       (reader_idle)
  );

  assign mem_req_write_o = 1'b0;
  assign mem_req_wdata_o = 64'd0;
  assign mem_req_wstrb_o = 8'd0;
  assign mem_rsp_ready_o = 1'b1;  // the reader's credits keep room for every response

  cmn_fifo #(
      .Width(RspW),
      .Depth(MaxReads)
  ) u_rsp_q (
      .clk_i,
      .rst_i,
      .in_valid_i (mem_rsp_valid_i),
      .in_ready_o (rsp_in_ready),
      .in_data_i  ({mem_rsp_err_i, mem_rsp_rdata_i}),
      .out_valid_o(rsp_valid),
      .out_ready_i(rsp_pop),
      .out_data_o (rsp_data),
      /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
      .count_o    ()
      /* verilator lint_on PINCONNECTEMPTY */
  );

  wire        align_valid, align_ready, align_err, align_last_page, align_last_cmd;
  wire [63:0] align_data;
  wire [ 3:0] align_stream;

  nfw_align #(
      .PageBytes(PageBytes)
  ) u_align (
      .clk_i,
      .rst_i,
      .desc_valid_i   (desc_valid),
      .desc_ready_o   (desc_ready),
      .desc_off_i     (desc_off),
      .desc_len_i     (desc_len),
      .desc_stream_i  (desc_stream),
      .in_valid_i     (rsp_valid),
      .in_ready_o     (rsp_pop),
      .in_data_i      (rsp_data[63:0]),
      .in_err_i       (rsp_data[64]),
      .out_valid_o    (align_valid),
      .out_ready_i    (align_ready),
      .out_data_o     (align_data),
      .out_err_o      (align_err),
      .out_stream_o   (align_stream),
      .out_last_page_o(align_last_page),
      .out_last_cmd_o (align_last_cmd),
      .idle_o         (align_idle)
  );

  // ---------------------------------------------------------------- page buffers and units
  wire                alloc_req, alloc_gnt;
  wire [         3:0] alloc_stream;
  wire [        15:0] alloc_pbn;
  wire                ram_we, ram_re;
  wire [RamAddrW-1:0] ram_waddr, ram_raddr;
  wire [        63:0] ram_wdata, ram_rdata;
  wire                units, unit_take, slot_free;
  wire [   SlotW-1:0] rd_slot;
  wire [         3:0] slot_stream, slot_plane;
  wire [        31:0] slot_lpn;
  wire [15:0] slot_pbn, slot_die, slot_block, slot_page;
  wire slot_err, slot_first, slot_last;

  nfw_page_pack #(
      .PageBytes    (PageBytes),
      .Planes       (Planes),
      .Dies         (Dies),
      .PagesPerBlock(PagesPerBlock),
      .Streams      (Streams),
      .Slots        (Slots)
  ) u_pack (
      .clk_i,
      .rst_i,
      .stream_first_i  (stream_first_q),
      .stream_lblocks_i(stream_lblocks_q),
      .stream_reset_i  (stream_reset),
      .in_valid_i      (align_valid),
      .in_ready_o      (align_ready),
      .in_data_i       (align_data),
      .in_err_i        (align_err),
      .in_stream_i     (align_stream),
      .in_last_page_i  (align_last_page),
      .in_last_cmd_i   (align_last_cmd),
      .alloc_req_o     (alloc_req),
      .alloc_stream_o  (alloc_stream),
      .alloc_gnt_i     (alloc_gnt),
      .alloc_pbn_i     (alloc_pbn),
      .ram_we_o        (ram_we),
      .ram_waddr_o     (ram_waddr),
      .ram_wdata_o     (ram_wdata),
      .units_o         (units),
      .unit_take_i     (unit_take),
      .slot_free_i     (slot_free),
      .rd_slot_i       (rd_slot),
      .slot_stream_o   (slot_stream),
      .slot_lpn_o      (slot_lpn),
      .slot_pbn_o      (slot_pbn),
      .slot_die_o      (slot_die),
      .slot_plane_o    (slot_plane),
      .slot_block_o    (slot_block),
      .slot_page_o     (slot_page),
      .slot_err_o      (slot_err),
      .slot_first_o    (slot_first),
      .slot_last_o     (slot_last),
      .idle_o          (pack_idle)
  );

  nfw_alloc #(
      .Streams(Streams),
      .MaxPbs (MaxPbs)
  ) u_alloc (
      .clk_i,
      .rst_i,
      .set_i       (cfg_set_stream),
      .free_i      (cfg_free_pb),
      .use_i       (cfg_use_pb),
      .cfg_stream_i(cfg_stream_i),
      .cfg_pbn_i   (cfg_pbn),
      .cfg_n_i     (cfg_pblocks),
      .req_i       (alloc_req),
      .req_stream_i(alloc_stream),
      .gnt_o       (alloc_gnt),
      .gnt_pbn_o   (alloc_pbn)
  );

  cmn_ram_1r1w #(
      .Width(64),
      .Depth(Slots * BeatsPerPage),
      .LaneW(64)
  ) u_ram (
      .clk_i,
      .we_i   (ram_we),
      .waddr_i(ram_waddr),
      .wdata_i(ram_wdata),
      .re_i   (ram_re),
      .raddr_i(ram_raddr),
      .rdata_o(ram_rdata)
  );

  // ---------------------------------------------------------------- program issue
  wire [15:0] bbt_die, bbt_block, bbt_spare;
  wire [ 3:0] bbt_plane;

  nfw_bbt #(
      .Entries(BbtEntries)
  ) u_bbt (
      .clk_i,
      .rst_i,
      .we_i         (cfg_bbt),
      .idx_i        (cfg_idx_i),
      .entry_valid_i(cfg_bbt_valid),
      .entry_die_i  (cfg_bbt_die),
      .entry_plane_i(cfg_bbt_plane),
      .entry_block_i(cfg_bbt_block),
      .entry_spare_i(cfg_bbt_spare),
      .die_i        (bbt_die),
      .plane_i      (bbt_plane),
      .block_i      (bbt_block),
      .block_o      (bbt_spare)
  );

  nfw_issue #(
      .PageBytes(PageBytes),
      .Channels (Channels),
      .Slots    (Slots)
  ) u_issue (
      .clk_i,
      .rst_i,
      .units_i      (units),
      .unit_take_o  (unit_take),
      .slot_free_o  (slot_free),
      .rd_slot_o    (rd_slot),
      .slot_stream_i(slot_stream),
      .slot_lpn_i   (slot_lpn),
      .slot_pbn_i   (slot_pbn),
      .slot_die_i   (slot_die),
      .slot_plane_i (slot_plane),
      .slot_block_i (slot_block),
      .slot_page_i  (slot_page),
      .slot_err_i   (slot_err),
      .slot_first_i (slot_first),
      .slot_last_i  (slot_last),
      .bbt_die_o    (bbt_die),
      .bbt_plane_o  (bbt_plane),
      .bbt_block_o  (bbt_block),
      .bbt_block_i  (bbt_spare),
      .ram_re_o     (ram_re),
      .ram_raddr_o  (ram_raddr),
      .ram_rdata_i  (ram_rdata),
      .prog_valid_o,
      .prog_ready_i,
      .prog_chan_o,
      .prog_die_o,
      .prog_plane_o,
      .prog_block_o,
      .prog_page_o,
      .prog_first_o,
      .prog_last_o,
      .pdat_valid_o,
      .pdat_ready_i,
      .pdat_data_o,
      .pdat_last_o,
      .done_valid_o,
      .done_ready_i,
      .done_stream_o,
      .done_lpn_o,
      .done_pbn_o,
      .done_die_o,
      .done_plane_o,
      .done_block_o,
      .done_page_o,
      .done_err_o,
      .idle_o       (issue_idle)
  );

  // ---------------------------------------------------------------- status
  reg idle_q;
  always @(posedge clk_i) begin
    if (rst_i) idle_q <= 1'b0;
    else idle_q <= reader_idle && !rsp_valid && align_idle && pack_idle && issue_idle && !alloc_req;
  end
  assign idle_o = idle_q;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!mem_rsp_valid_i || rsp_in_ready)
      else $error("nfw_top: a memory response with no room (more responses than requests)");
      assert (!cfg_valid_i || cfg_b_i[30:16] == 15'd0)
      else $error("nfw_top: configuration bits b[30:16] = %0h are reserved; accepted 0",
                  cfg_b_i[30:16]);
      assert (!cfg_valid_i || cfg_op_i == CfgBbt || 32'(cfg_stream_i) < Streams)
      else $error("nfw_top: configuration of stream %0d; accepted 0..%0d", cfg_stream_i,
                  Streams - 1);
    end
  end
`endif

endmodule

`default_nettype wire
