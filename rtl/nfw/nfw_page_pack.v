// nfw_page_pack: fills page buffers in the controller SRAM and assembles program units.
//
// The SRAM holds Slots page buffers, used as a ring. Page beats from the aligner are written
// into the next free slot; when a page is complete, its descriptor is written beside it: the
// stream's append point gives its logical page (LPN) and its place in the superblock of the
// stream's current logical block (LB), exactly as the C stream FTL lays pages out
// (models/flash/ftl_stream.h): page offset o -> plane o % Planes, unit u = o / Planes -> die
// u % Dies, page u / Dies; block = first block of the stream + the LB's physical block (PBN).
// The offsets are kept as counters (plane, die, page, LB) per stream, so no divider is needed.
//
// A program unit is the pages of one die at one page number: it ends at the last plane or at
// the end of a command (a command's last pages form a partial unit, as the C FTL writes
// them); the next command continues at the next plane. The issuer takes whole units only
// (units_o counts the complete units in the buffer).
//
// Opening an LB (its first page) needs a physical block: the pack asks the allocator and
// holds the page's first beat until the grant.
//
// Handshake contract: rtl/README.md. in_ready_o depends on registers only.

`default_nettype none

module nfw_page_pack #(
    parameter int PageBytes     = 256,  // bytes per page, a power of two >= 64
    parameter int Planes        = 2,    // planes per die, 1..16
    parameter int Dies          = 4,    // dies in all (flat die index)
    parameter int PagesPerBlock = 4,    // pages per block
    parameter int Streams       = 2,    // streams, 1..16
    parameter int Slots         = 4     // page buffers, a power of two >= 2 and >= Planes
) (
    input  wire                            clk_i,
    input  wire                            rst_i,
    // stream settings (held by the top) and their reset
    input  wire [          Streams*16-1:0] stream_first_i,    // first block of each stream
    input  wire [          Streams*16-1:0] stream_lblocks_i,  // logical blocks of each stream
    input  wire [             Streams-1:0] stream_reset_i,    // append point back to LPN 0
    // page beats from the aligner
    input  wire                            in_valid_i,
    output wire                            in_ready_o,
    input  wire [                    63:0] in_data_i,
    input  wire                            in_err_i,
    input  wire [                     3:0] in_stream_i,
    input  wire                            in_last_page_i,
    input  wire                            in_last_cmd_i,
    // physical block allocator
    output wire                            alloc_req_o,
    output wire [                     3:0] alloc_stream_o,
    input  wire                            alloc_gnt_i,
    input  wire [                    15:0] alloc_pbn_i,
    // SRAM write port
    output wire                            ram_we_o,
    output wire [$clog2(Slots*PageBytes/8)-1:0] ram_waddr_o,
    output wire [                    63:0] ram_wdata_o,
    // the issuer: complete units, slot release, the descriptor of page buffer rd_slot_i
    output wire                            units_o,      // at least one complete unit
    input  wire                            unit_take_i,  // the issuer starts a unit
    input  wire                            slot_free_i,  // the issuer read a page's last beat
    input  wire [     $clog2(Slots)-1:0]   rd_slot_i,
    output wire [                     3:0] slot_stream_o,
    output wire [                    31:0] slot_lpn_o,
    output wire [                    15:0] slot_pbn_o,
    output wire [                    15:0] slot_die_o,
    output wire [                     3:0] slot_plane_o,
    output wire [                    15:0] slot_block_o,
    output wire [                    15:0] slot_page_o,
    output wire                            slot_err_o,
    output wire                            slot_first_o,  // first page of its unit
    output wire                            slot_last_o,   // last page of its unit
    // no page in the buffers
    output wire                            idle_o
);

  localparam int BeatsPerPage = PageBytes / 8;
  localparam int PageBeatW = $clog2(BeatsPerPage);
  localparam int SlotW = $clog2(Slots);
  localparam int SlotsUsedW = SlotW + 1;
  localparam int UnitsW = SlotW + 1;
  localparam int StreamW = Streams > 1 ? $clog2(Streams) : 1;

  if (Slots < 2 || (1 << SlotW) != Slots || Slots < Planes) begin : g_bad_slots
    nfw_param_error_Slots_must_be_a_power_of_two_at_least_2_and_Planes u_err ();
  end
  if (Planes < 1 || Planes > 16 || Dies < 1 || Dies > 65536) begin : g_bad_geom
    nfw_param_error_Planes_1_to_16_and_Dies_1_to_65536 u_err ();
  end
  if (PagesPerBlock < 1 || PagesPerBlock > 65536 || Streams < 1 || Streams > 16) begin : g_bad_sp
    nfw_param_error_PagesPerBlock_1_to_65536_and_Streams_1_to_16 u_err ();
  end

  // ---------------------------------------------------------------- per-stream append point
  reg [31:0] lpn_q   [Streams];
  reg [15:0] lblock_q[Streams];
  reg [15:0] page_q  [Streams];
  reg [15:0] die_q   [Streams];
  reg [ 3:0] plane_q [Streams];
  reg [15:0] pbn_q   [Streams];
  reg        open_q  [Streams];  // the LB at the append point has its physical block

  // ---------------------------------------------------------------- write side
  reg [     SlotW-1:0] write_slot_q;
  reg [ PageBeatW-1:0] write_beat_q;
  reg                  page_err_q;  // error flag of the page's beats so far
  reg                  cmd_first_q;  // the next page is the first of a command
  reg [SlotsUsedW-1:0] slots_used_q;  // slots holding a page (being written or waiting to be read)
  reg [    UnitsW-1:0] units_q;  // complete units in the buffer

  wire [StreamW-1:0] stream = in_stream_i[StreamW-1:0];
  wire page_start = write_beat_q == '0;
  wire stream_open = open_q[stream];
  wire slot_available = !page_start || slots_used_q != SlotsUsedW'(Slots);
  wire in_fire = in_valid_i && in_ready_o;
  wire page_end = in_fire && in_last_page_i;

  assign in_ready_o = slot_available && (!page_start || stream_open);
  assign alloc_req_o = in_valid_i && page_start && !stream_open;
  assign alloc_stream_o = in_stream_i;

  assign ram_we_o = in_fire;
  assign ram_waddr_o = {write_slot_q, write_beat_q};
  assign ram_wdata_o = in_data_i;

  // Where the page at the append point goes, and the next append point.
  wire [15:0] stream_first = stream_first_i[16*32'(stream)+:16];
  wire [15:0] stream_lblocks = stream_lblocks_i[16*32'(stream)+:16];
  wire plane_wrap = 32'(plane_q[stream]) == Planes - 1;
  wire die_wrap = plane_wrap && 32'(die_q[stream]) == Dies - 1;
  wire page_wrap = die_wrap && 32'(page_q[stream]) == PagesPerBlock - 1;  // the LB is full
  wire lblock_wrap = page_wrap && lblock_q[stream] == stream_lblocks - 16'd1;  // LPN back to 0
  wire unit_last = in_last_cmd_i || plane_wrap;

  // ---------------------------------------------------------------- descriptors, one per slot
  reg [ 3:0] slot_stream_q[Slots];
  reg [31:0] slot_lpn_q   [Slots];
  reg [15:0] slot_pbn_q   [Slots];
  reg [15:0] slot_die_q   [Slots];
  reg [ 3:0] slot_plane_q [Slots];
  reg [15:0] slot_block_q [Slots];
  reg [15:0] slot_page_q  [Slots];
  reg        slot_err_q   [Slots];
  reg        slot_first_q [Slots];
  reg        slot_last_q  [Slots];

  always @(posedge clk_i) begin
    if (page_end) begin
      slot_stream_q[write_slot_q] <= in_stream_i;
      slot_lpn_q[write_slot_q]    <= lpn_q[stream];
      slot_pbn_q[write_slot_q]    <= pbn_q[stream];
      slot_die_q[write_slot_q]    <= die_q[stream];
      slot_plane_q[write_slot_q]  <= plane_q[stream];
      slot_block_q[write_slot_q]  <= stream_first + pbn_q[stream];
      slot_page_q[write_slot_q]   <= page_q[stream];
      slot_err_q[write_slot_q]    <= (page_err_q && !page_start) || in_err_i;
      slot_first_q[write_slot_q]  <= cmd_first_q || plane_q[stream] == 4'd0;
      slot_last_q[write_slot_q]   <= unit_last;
    end
  end

  assign slot_stream_o = slot_stream_q[rd_slot_i];
  assign slot_lpn_o = slot_lpn_q[rd_slot_i];
  assign slot_pbn_o = slot_pbn_q[rd_slot_i];
  assign slot_die_o = slot_die_q[rd_slot_i];
  assign slot_plane_o = slot_plane_q[rd_slot_i];
  assign slot_block_o = slot_block_q[rd_slot_i];
  assign slot_page_o = slot_page_q[rd_slot_i];
  assign slot_err_o = slot_err_q[rd_slot_i];
  assign slot_first_o = slot_first_q[rd_slot_i];
  assign slot_last_o = slot_last_q[rd_slot_i];
  assign units_o = units_q != '0;
  assign idle_o = slots_used_q == '0;

  // ---------------------------------------------------------------- state
  always @(posedge clk_i) begin
    if (rst_i) begin
      write_beat_q <= '0;
      write_slot_q <= '0;
      cmd_first_q  <= 1'b1;
      slots_used_q <= '0;
      units_q      <= '0;
    end else begin
      if (in_fire) write_beat_q <= write_beat_q + 1'b1;
      if (page_end) begin
        write_slot_q <= write_slot_q + 1'b1;
        cmd_first_q  <= in_last_cmd_i;
      end
      slots_used_q <= slots_used_q + SlotsUsedW'(in_fire && page_start) -
          SlotsUsedW'(slot_free_i);
      units_q      <= units_q + UnitsW'(page_end && unit_last) - UnitsW'(unit_take_i);
    end
  end

  always @(posedge clk_i) begin
    if (in_fire) page_err_q <= (page_err_q && !page_start) || in_err_i;
  end

  // Append points: a completed page moves its stream's point on; a grant opens the LB; a
  // stream reset puts the point back to LPN 0 (it wins).
  always @(posedge clk_i) begin
    for (int i = 0; i < Streams; i++) begin
      if (rst_i || stream_reset_i[i]) begin
        lpn_q[i]    <= '0;
        lblock_q[i] <= '0;
        page_q[i]   <= '0;
        die_q[i]    <= '0;
        plane_q[i]  <= '0;
        open_q[i]   <= 1'b0;
      end else begin
        if (alloc_gnt_i && StreamW'(i) == stream) begin
          open_q[i] <= 1'b1;
          pbn_q[i]  <= alloc_pbn_i;
        end
        if (page_end && StreamW'(i) == stream) begin
          lpn_q[i]   <= lblock_wrap ? 32'd0 : lpn_q[i] + 32'd1;
          plane_q[i] <= plane_wrap ? 4'd0 : plane_q[i] + 4'd1;
          if (plane_wrap) die_q[i] <= die_wrap ? 16'd0 : die_q[i] + 16'd1;
          if (die_wrap) page_q[i] <= page_wrap ? 16'd0 : page_q[i] + 16'd1;
          if (page_wrap) begin
            lblock_q[i] <= lblock_wrap ? 16'd0 : lblock_q[i] + 16'd1;
            open_q[i]   <= 1'b0;
          end
        end
      end
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (slots_used_q <= SlotsUsedW'(Slots))
      else $error("nfw_page_pack: %0d pages in %0d slots", slots_used_q, Slots);
      assert (!in_fire || in_last_page_i == (write_beat_q == PageBeatW'(BeatsPerPage - 1)))
      else $error("nfw_page_pack: page end flag at beat %0d of %0d", write_beat_q, BeatsPerPage);
      assert (!in_fire || 32'(in_stream_i) < Streams)
      else $error("nfw_page_pack: beat of stream %0d; accepted 0..%0d", in_stream_i, Streams - 1);
      assert (!(alloc_gnt_i && (!alloc_req_o || stream_open)))
      else $error("nfw_page_pack: allocator grant without a request");
      assert (!(unit_take_i && units_q == '0))
      else $error("nfw_page_pack: a unit taken while none is complete");
      assert (!page_end || stream_open)
      else $error("nfw_page_pack: page completed in an LB without a physical block");
    end
  end
`endif

endmodule

`default_nettype wire
