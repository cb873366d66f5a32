// nfw_issue: the NAND program pipeline's issue stage: program commands and page data to the
// channels, completions to the firmware.
//
// Complete program units are issued in order, page by page: a program command (channel, die,
// plane, block after bad-block replacement, page, first/last page of the unit) on the prog
// port, then the page's bytes on the pdat port (PageBytes / 8 beats, the last one flagged).
// The channel side (a bus-functional model over the C flash models) takes a command when the
// channel can take more, and programs the unit when its last page's data has arrived. While
// a page's data stream out, the next page's command is already offered, so pages follow each
// other without a gap.
//
// When the last beat of a page's data has been taken, a completion with the page's physical
// address (and its stream, LPN and PBN) goes to the done port, so the firmware's FTL can map
// the logical page and later serve reads of it. (The channel programs a unit when its last
// page's data arrive, so the completion of a unit's last page also says that the unit is in
// the flash.) Between the command and the end of its data, the completion waits in a small
// in-flight FIFO; room for it in the completion FIFO is reserved when the command is loaded.
//
// Page data are read from the SRAM (one cycle of latency) into a small FIFO, with credit so
// the FIFO never overflows; a page buffer is released once its last beat has been read.
//
// Handshake contract: rtl/README.md. prog_* are registers; pdat_* and done_* leave through
// FIFOs.

`default_nettype none

module nfw_issue #(
    parameter int PageBytes = 256,  // bytes per page, a power of two >= 64
    parameter int Channels  = 2,    // channels, a power of two: channel = die % Channels
    parameter int Slots     = 4     // page buffers, a power of two >= 2
) (
    input  wire                                  clk_i,
    input  wire                                  rst_i,
    // page buffers (nfw_page_pack)
    input  wire                                  units_i,
    output wire                                  unit_take_o,
    output wire                                  slot_free_o,
    output wire [             $clog2(Slots)-1:0] rd_slot_o,
    input  wire [                           3:0] d_stream_i,
    input  wire [                          31:0] d_lpn_i,
    input  wire [                          15:0] d_pbn_i,
    input  wire [                          15:0] d_die_i,
    input  wire [                           3:0] d_plane_i,
    input  wire [                          15:0] d_block_i,
    input  wire [                          15:0] d_page_i,
    input  wire                                  d_err_i,
    input  wire                                  d_first_i,
    input  wire                                  d_last_i,
    // bad-block table lookup
    output wire [                          15:0] bbt_die_o,
    output wire [                           3:0] bbt_plane_o,
    output wire [                          15:0] bbt_block_o,
    input  wire [                          15:0] bbt_block_i,
    // SRAM read port (data one cycle after re)
    output wire                                  ram_re_o,
    output wire [$clog2(Slots*PageBytes/8)-1:0] ram_raddr_o,
    input  wire [                          63:0] ram_rdata_i,
    // program commands, one per page
    output wire                                  prog_valid_o,
    input  wire                                  prog_ready_i,
    output wire [                          15:0] prog_chan_o,
    output wire [                          15:0] prog_die_o,
    output wire [                           3:0] prog_plane_o,
    output wire [                          15:0] prog_block_o,
    output wire [                          15:0] prog_page_o,
    output wire                                  prog_first_o,
    output wire                                  prog_last_o,
    // page data, after each command
    output wire                                  pdat_valid_o,
    input  wire                                  pdat_ready_i,
    output wire [                          63:0] pdat_data_o,
    output wire                                  pdat_last_o,
    // completions, one per page
    output wire                                  done_valid_o,
    input  wire                                  done_ready_i,
    output wire [                           3:0] done_stream_o,
    output wire [                          31:0] done_lpn_o,
    output wire [                          15:0] done_pbn_o,
    output wire [                          15:0] done_die_o,
    output wire [                           3:0] done_plane_o,
    output wire [                          15:0] done_block_o,
    output wire [                          15:0] done_page_o,
    output wire                                  done_err_o,
    // nothing in flight
    output wire                                  idle_o
);

  localparam int Bpp = PageBytes / 8;
  localparam int BeatW = $clog2(Bpp);
  localparam int SlotW = $clog2(Slots);
  localparam int PdatDepth = 4;
  localparam int DoneDepth = 8;

  if (Channels < 1 || (1 << $clog2(Channels)) != Channels) begin : g_bad_chan
    nfw_param_error_Channels_must_be_a_power_of_two u_err ();
  end

  // ---------------------------------------------------------------- program command
  reg             pv_q;
  reg [      3:0] p_stream_q;
  reg [     31:0] p_lpn_q;
  reg [     15:0] p_pbn_q;
  reg [     15:0] p_die_q;
  reg [      3:0] p_plane_q;
  reg [     15:0] p_block_q;
  reg [     15:0] p_page_q;
  reg             p_err_q;
  reg             p_first_q;
  reg             p_last_q;
  reg [SlotW-1:0] pslot_q;  // slot of the next command
  reg             inunit_q;  // more pages of the current unit to come
  reg             pend_q;  // a command was taken, its data not yet started

  // ---------------------------------------------------------------- data
  reg             dact_q;  // reading a page's beats
  reg [SlotW-1:0] dslot_q;
  reg [BeatW-1:0] rbeat_q;
  reg             rinfl_q;  // a beat read last cycle arrives now
  reg             rlast_q;

  wire [2:0] pdat_count, flight_count;
  wire [3:0] done_count;
  wire done_in_ready, flight_in_ready, flight_valid;
  wire [104:0] flight_data;
  wire pdat_end = pdat_valid_o && pdat_ready_i && pdat_last_o;

  // A command is loaded only when its completion will find room: every page loaded and not yet
  // reported holds an entry of the completion FIFO in reserve.
  wire done_room = 32'(done_count) + 32'(flight_count) < DoneDepth && 32'(flight_count) < 4;
  wire load = !pv_q && !pend_q && done_room && (inunit_q || units_i);
  wire pfire = pv_q && prog_ready_i;
  wire rissue = dact_q && 32'(pdat_count) + 32'(rinfl_q) < PdatDepth;
  wire rlast = rissue && rbeat_q == BeatW'(Bpp - 1);
  wire dstart = pend_q && (!dact_q || rlast);

  assign rd_slot_o = pslot_q;
  assign unit_take_o = load && !inunit_q;
  assign slot_free_o = rlast;
  assign bbt_die_o = d_die_i;
  assign bbt_plane_o = d_plane_i;
  assign bbt_block_o = d_block_i;
  assign ram_re_o = rissue;
  assign ram_raddr_o = {dslot_q, rbeat_q};

  always @(posedge clk_i) begin
    if (rst_i) begin
      pv_q     <= 1'b0;
      pslot_q  <= '0;
      inunit_q <= 1'b0;
      pend_q   <= 1'b0;
      dact_q   <= 1'b0;
      dslot_q  <= '0;
      rbeat_q  <= '0;
      rinfl_q  <= 1'b0;
      rlast_q  <= 1'b0;
    end else begin
      if (load) begin
        pv_q     <= 1'b1;
        pslot_q  <= pslot_q + 1'b1;
        inunit_q <= !d_last_i;
      end else if (pfire) begin
        pv_q <= 1'b0;
      end
      if (pfire) pend_q <= 1'b1;
      else if (dstart) pend_q <= 1'b0;
      if (rissue) rbeat_q <= rbeat_q + 1'b1;
      if (rlast) dslot_q <= dslot_q + 1'b1;
      if (dstart) dact_q <= 1'b1;
      else if (rlast) dact_q <= 1'b0;
      rinfl_q <= rissue;
      rlast_q <= rlast;
    end
  end

  always @(posedge clk_i) begin
    if (load) begin
      p_stream_q <= d_stream_i;
      p_lpn_q    <= d_lpn_i;
      p_pbn_q    <= d_pbn_i;
      p_die_q    <= d_die_i;
      p_plane_q  <= d_plane_i;
      p_block_q  <= bbt_block_i;
      p_page_q   <= d_page_i;
      p_err_q    <= d_err_i;
      p_first_q  <= d_first_i;
      p_last_q   <= d_last_i;
    end
  end

  assign prog_valid_o = pv_q;
  assign prog_chan_o = p_die_q & 16'(Channels - 1);
  assign prog_die_o = p_die_q;
  assign prog_plane_o = p_plane_q;
  assign prog_block_o = p_block_q;
  assign prog_page_o = p_page_q;
  assign prog_first_o = p_first_q;
  assign prog_last_o = p_last_q;

  // ---------------------------------------------------------------- output FIFOs
  wire pdat_in_ready;

  cmn_fifo #(
      .Width(65),
      .Depth(PdatDepth)
  ) u_pdat_q (
      .clk_i,
      .rst_i,
      .in_valid_i (rinfl_q),
      .in_ready_o (pdat_in_ready),
      .in_data_i  ({rlast_q, ram_rdata_i}),
      .out_valid_o(pdat_valid_o),
      .out_ready_i(pdat_ready_i),
      .out_data_o ({pdat_last_o, pdat_data_o}),
      .count_o    (pdat_count)
  );

  // Completions of pages whose command was taken and whose data are still going out.
  cmn_fifo #(
      .Width(105),
      .Depth(4)
  ) u_flight_q (
      .clk_i,
      .rst_i,
      .in_valid_i (pfire),
      .in_ready_o (flight_in_ready),
      .in_data_i  ({p_stream_q, p_lpn_q, p_pbn_q, p_die_q, p_plane_q, p_block_q, p_page_q, p_err_q}),
      .out_valid_o(flight_valid),
      .out_ready_i(pdat_end),
      .out_data_o (flight_data),
      .count_o    (flight_count)
  );

  cmn_fifo #(
      .Width(105),
      .Depth(DoneDepth)
  ) u_done_q (
      .clk_i,
      .rst_i,
      .in_valid_i (pdat_end),
      .in_ready_o (done_in_ready),
      .in_data_i  (flight_data),
      .out_valid_o(done_valid_o),
      .out_ready_i(done_ready_i),
      .out_data_o ({done_stream_o, done_lpn_o, done_pbn_o, done_die_o, done_plane_o, done_block_o,
                    done_page_o, done_err_o}),
      .count_o    (done_count)
  );

  assign idle_o = !pv_q && !pend_q && !dact_q && !rinfl_q && !inunit_q && !pdat_valid_o &&
      !flight_valid && !done_valid_o;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!rinfl_q || pdat_in_ready)
      else $error("nfw_issue: page data FIFO full when a beat arrives");
      assert (!pfire || flight_in_ready)
      else $error("nfw_issue: in-flight FIFO full when a command is taken");
      assert (!pdat_end || (flight_valid && done_in_ready))
      else $error("nfw_issue: a page's data ended with no completion waiting or no room");
      assert (!(load && pfire))
      else $error("nfw_issue: a command loaded while one is offered");
      assert (!(pfire && dstart))
      else $error("nfw_issue: a command taken while another waits for its data");
    end
  end
`endif

endmodule

`default_nettype wire
