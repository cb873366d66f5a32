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
    // page buffers (nfw_page_pack): complete units, slot release, the descriptor of page buffer
    // rd_slot_o (the next page to load)
    input  wire                                  units_i,
    output wire                                  unit_take_o,
    output wire                                  slot_free_o,
    output wire [             $clog2(Slots)-1:0] rd_slot_o,
    input  wire [                           3:0] slot_stream_i,
    input  wire [                          31:0] slot_lpn_i,
    input  wire [                          15:0] slot_pbn_i,
    input  wire [                          15:0] slot_die_i,
    input  wire [                           3:0] slot_plane_i,
    input  wire [                          15:0] slot_block_i,
    input  wire [                          15:0] slot_page_i,
    input  wire                                  slot_err_i,
    input  wire                                  slot_first_i,
    input  wire                                  slot_last_i,
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

  localparam int BeatsPerPage = PageBytes / 8;
  localparam int PageBeatW = $clog2(BeatsPerPage);  // a beat's index in its page
  localparam int SlotW = $clog2(Slots);
  localparam int PdatW = 1 + 64;  // last flag, data
  // A page's completion: stream, LPN, PBN, die, plane, block, page, error flag.
  localparam int DoneW = 4 + 32 + 16 + 16 + 4 + 16 + 16 + 1;
  localparam int PdatDepth = 4;  // page data FIFO (read credit); C: PDAT_DEPTH
  localparam int FlightDepth = 4;  // completions of pages whose data go out; C: FLIGHT_DEPTH
  localparam int DoneDepth = 8;  // completion FIFO; C: DONE_DEPTH

  if (Channels < 1 || (1 << $clog2(Channels)) != Channels) begin : g_bad_chan
    nfw_param_error_Channels_must_be_a_power_of_two u_err ();
  end

  // ---------------------------------------------------------------- program command
  reg                 prog_valid_q;
  reg [          3:0] prog_stream_q;
  reg [         31:0] prog_lpn_q;
  reg [         15:0] prog_pbn_q;
  reg [         15:0] prog_die_q;
  reg [          3:0] prog_plane_q;
  reg [         15:0] prog_block_q;
  reg [         15:0] prog_page_q;
  reg                 prog_err_q;
  reg                 prog_first_q;
  reg                 prog_last_q;
  reg [    SlotW-1:0] load_slot_q;  // slot of the next command
  reg                 in_unit_q;  // more pages of the current unit to come
  reg                 data_pending_q;  // a command was taken, its data not yet started

  // ---------------------------------------------------------------- data
  reg                 data_active_q;  // reading a page's beats
  reg [    SlotW-1:0] data_slot_q;
  reg [PageBeatW-1:0] read_beat_q;
  reg                 rdata_valid_q;  // a beat read last cycle arrives now
  reg                 rdata_last_q;

  // ---------------------------------------------------------------- output FIFO status
  wire [  $clog2(PdatDepth):0] pdat_count;
  wire [$clog2(FlightDepth):0] flight_count;
  wire [  $clog2(DoneDepth):0] done_count;
  wire pdat_in_ready, done_in_ready, flight_in_ready, flight_valid;
  wire [DoneW-1:0] flight_data;
  wire page_data_end = pdat_valid_o && pdat_ready_i && pdat_last_o;

  // A command is loaded only when its completion will find room: every page loaded and not yet
  // reported holds an entry of the completion FIFO in reserve.
  wire done_room = 32'(done_count) + 32'(flight_count) < DoneDepth &&
      32'(flight_count) < FlightDepth;
  wire load_cmd = !prog_valid_q && !data_pending_q && done_room && (in_unit_q || units_i);
  wire prog_fire = prog_valid_q && prog_ready_i;
  wire read_issue = data_active_q && 32'(pdat_count) + 32'(rdata_valid_q) < PdatDepth;
  wire read_last = read_issue && read_beat_q == PageBeatW'(BeatsPerPage - 1);
  wire data_start = data_pending_q && (!data_active_q || read_last);

  assign rd_slot_o = load_slot_q;
  assign unit_take_o = load_cmd && !in_unit_q;
  assign slot_free_o = read_last;
  assign bbt_die_o = slot_die_i;
  assign bbt_plane_o = slot_plane_i;
  assign bbt_block_o = slot_block_i;
  assign ram_re_o = read_issue;
  assign ram_raddr_o = {data_slot_q, read_beat_q};

  always @(posedge clk_i) begin
    if (rst_i) begin
      prog_valid_q   <= 1'b0;
      load_slot_q    <= '0;
      in_unit_q      <= 1'b0;
      data_pending_q <= 1'b0;
      data_active_q  <= 1'b0;
      data_slot_q    <= '0;
      read_beat_q    <= '0;
      rdata_valid_q  <= 1'b0;
      rdata_last_q   <= 1'b0;
    end else begin
      if (load_cmd) begin
        prog_valid_q <= 1'b1;
        load_slot_q  <= load_slot_q + 1'b1;
        in_unit_q    <= !slot_last_i;
      end else if (prog_fire) begin
        prog_valid_q <= 1'b0;
      end
      if (prog_fire) data_pending_q <= 1'b1;
      else if (data_start) data_pending_q <= 1'b0;
      if (read_issue) read_beat_q <= read_beat_q + 1'b1;
      if (read_last) data_slot_q <= data_slot_q + 1'b1;
      if (data_start) data_active_q <= 1'b1;
      else if (read_last) data_active_q <= 1'b0;
      rdata_valid_q <= read_issue;
      rdata_last_q  <= read_last;
    end
  end

  always @(posedge clk_i) begin
    if (load_cmd) begin
      prog_stream_q <= slot_stream_i;
      prog_lpn_q    <= slot_lpn_i;
      prog_pbn_q    <= slot_pbn_i;
      prog_die_q    <= slot_die_i;
      prog_plane_q  <= slot_plane_i;
      prog_block_q  <= bbt_block_i;
      prog_page_q   <= slot_page_i;
      prog_err_q    <= slot_err_i;
      prog_first_q  <= slot_first_i;
      prog_last_q   <= slot_last_i;
    end
  end

  assign prog_valid_o = prog_valid_q;
  assign prog_chan_o = prog_die_q & 16'(Channels - 1);
  assign prog_die_o = prog_die_q;
  assign prog_plane_o = prog_plane_q;
  assign prog_block_o = prog_block_q;
  assign prog_page_o = prog_page_q;
  assign prog_first_o = prog_first_q;
  assign prog_last_o = prog_last_q;

  // ---------------------------------------------------------------- output FIFOs
  cmn_fifo #(
      .Width(PdatW),
      .Depth(PdatDepth)
  ) u_pdat_q (
      .clk_i,
      .rst_i,
      .in_valid_i (rdata_valid_q),
      .in_ready_o (pdat_in_ready),
      .in_data_i  ({rdata_last_q, ram_rdata_i}),
      .out_valid_o(pdat_valid_o),
      .out_ready_i(pdat_ready_i),
      .out_data_o ({pdat_last_o, pdat_data_o}),
      .count_o    (pdat_count)
  );

  // Completions of pages whose command was taken and whose data are still going out.
  cmn_fifo #(
      .Width(DoneW),
      .Depth(FlightDepth)
  ) u_flight_q (
      .clk_i,
      .rst_i,
      .in_valid_i (prog_fire),
      .in_ready_o (flight_in_ready),
      .in_data_i  ({prog_stream_q, prog_lpn_q, prog_pbn_q, prog_die_q, prog_plane_q, prog_block_q,
                    prog_page_q, prog_err_q}),
      .out_valid_o(flight_valid),
      .out_ready_i(page_data_end),
      .out_data_o (flight_data),
      .count_o    (flight_count)
  );

  cmn_fifo #(
      .Width(DoneW),
      .Depth(DoneDepth)
  ) u_done_q (
      .clk_i,
      .rst_i,
      .in_valid_i (page_data_end),
      .in_ready_o (done_in_ready),
      .in_data_i  (flight_data),
      .out_valid_o(done_valid_o),
      .out_ready_i(done_ready_i),
      .out_data_o ({done_stream_o, done_lpn_o, done_pbn_o, done_die_o, done_plane_o, done_block_o,
                    done_page_o, done_err_o}),
      .count_o    (done_count)
  );

  assign idle_o = !prog_valid_q && !data_pending_q && !data_active_q && !rdata_valid_q &&
      !in_unit_q && !pdat_valid_o && !flight_valid && !done_valid_o;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!rdata_valid_q || pdat_in_ready)
      else $error("nfw_issue: page data FIFO full when a beat arrives");
      assert (!prog_fire || flight_in_ready)
      else $error("nfw_issue: in-flight FIFO full when a command is taken");
      assert (!page_data_end || (flight_valid && done_in_ready))
      else $error("nfw_issue: a page's data ended with no completion waiting or no room");
      assert (!(load_cmd && prog_fire))
      else $error("nfw_issue: a command loaded while one is offered");
      assert (!(prog_fire && data_start))
      else $error("nfw_issue: a command taken while another waits for its data");
    end
  end
`endif

endmodule

`default_nettype wire
