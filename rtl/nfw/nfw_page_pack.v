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
    input  wire [          Streams*16-1:0] st_first_i,  // first block of each stream
    input  wire [          Streams*16-1:0] st_nlb_i,    // logical blocks of each stream
    input  wire [             Streams-1:0] st_reset_i,  // append point back to LPN 0
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
    // the issuer: complete units, slot release, descriptor of slot rd_slot_i
    output wire                            units_o,      // at least one complete unit
    input  wire                            unit_take_i,  // the issuer starts a unit
    input  wire                            slot_free_i,  // the issuer read a page's last beat
    input  wire [     $clog2(Slots)-1:0]   rd_slot_i,
    output wire [                     3:0] d_stream_o,
    output wire [                    31:0] d_lpn_o,
    output wire [                    15:0] d_pbn_o,
    output wire [                    15:0] d_die_o,
    output wire [                     3:0] d_plane_o,
    output wire [                    15:0] d_block_o,
    output wire [                    15:0] d_page_o,
    output wire                            d_err_o,
    output wire                            d_first_o,  // first page of its unit
    output wire                            d_last_o,   // last page of its unit
    // no page in the buffers
    output wire                            idle_o
);

  localparam int Bpp = PageBytes / 8;
  localparam int BeatW = $clog2(Bpp);
  localparam int SlotW = $clog2(Slots);
  localparam int OccW = SlotW + 1;
  localparam int UnitW = SlotW + 1;
  localparam int StW = Streams > 1 ? $clog2(Streams) : 1;

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
  reg [31:0] lpn_q  [Streams];
  reg [15:0] lb_q   [Streams];
  reg [15:0] page_q [Streams];
  reg [15:0] die_q  [Streams];
  reg [ 3:0] plane_q[Streams];
  reg [15:0] pbn_q  [Streams];
  reg        open_q [Streams];  // the LB at the append point has its physical block

  // ---------------------------------------------------------------- write side
  reg [SlotW-1:0] wslot_q;
  reg [BeatW-1:0] wbeat_q;
  reg             perr_q;  // error flag of the page's beats so far
  reg             first_q;  // the next page is the first of a command
  reg [ OccW-1:0] occ_q;  // slots holding a page (being written or waiting to be read)
  reg [UnitW-1:0] units_q;

  wire [StW-1:0] s = in_stream_i[StW-1:0];
  wire page_start = wbeat_q == '0;
  wire s_open = open_q[s];
  wire slot_ok = !page_start || occ_q != OccW'(Slots);
  wire fire = in_valid_i && in_ready_o;
  wire page_end = fire && in_last_page_i;

  assign in_ready_o = slot_ok && (!page_start || s_open);
  assign alloc_req_o = in_valid_i && page_start && !s_open;
  assign alloc_stream_o = in_stream_i;

  assign ram_we_o = fire;
  assign ram_waddr_o = {wslot_q, wbeat_q};
  assign ram_wdata_o = in_data_i;

  // Where the page at the append point goes, and the next append point.
  wire [15:0] st_first = st_first_i[16*32'(s)+:16];
  wire [15:0] st_nlb = st_nlb_i[16*32'(s)+:16];
  wire plane_wrap = 32'(plane_q[s]) == Planes - 1;
  wire die_wrap = plane_wrap && 32'(die_q[s]) == Dies - 1;
  wire page_wrap = die_wrap && 32'(page_q[s]) == PagesPerBlock - 1;  // the LB is full
  wire lb_wrap = page_wrap && lb_q[s] == st_nlb - 16'd1;  // the logical space wraps
  wire unit_last = in_last_cmd_i || plane_wrap;

  // ---------------------------------------------------------------- descriptors
  reg [ 3:0] d_stream[Slots];
  reg [31:0] d_lpn   [Slots];
  reg [15:0] d_pbn   [Slots];
  reg [15:0] d_die   [Slots];
  reg [ 3:0] d_plane [Slots];
  reg [15:0] d_block [Slots];
  reg [15:0] d_page  [Slots];
  reg        d_err   [Slots];
  reg        d_first [Slots];
  reg        d_last  [Slots];

  always @(posedge clk_i) begin
    if (page_end) begin
      d_stream[wslot_q] <= in_stream_i;
      d_lpn[wslot_q]    <= lpn_q[s];
      d_pbn[wslot_q]    <= pbn_q[s];
      d_die[wslot_q]    <= die_q[s];
      d_plane[wslot_q]  <= plane_q[s];
      d_block[wslot_q]  <= st_first + pbn_q[s];
      d_page[wslot_q]   <= page_q[s];
      d_err[wslot_q]    <= (perr_q && !page_start) || in_err_i;
      d_first[wslot_q]  <= first_q || plane_q[s] == 4'd0;
      d_last[wslot_q]   <= unit_last;
    end
  end

  assign d_stream_o = d_stream[rd_slot_i];
  assign d_lpn_o = d_lpn[rd_slot_i];
  assign d_pbn_o = d_pbn[rd_slot_i];
  assign d_die_o = d_die[rd_slot_i];
  assign d_plane_o = d_plane[rd_slot_i];
  assign d_block_o = d_block[rd_slot_i];
  assign d_page_o = d_page[rd_slot_i];
  assign d_err_o = d_err[rd_slot_i];
  assign d_first_o = d_first[rd_slot_i];
  assign d_last_o = d_last[rd_slot_i];
  assign units_o = units_q != '0;
  assign idle_o = occ_q == '0;

  // ---------------------------------------------------------------- state
  always @(posedge clk_i) begin
    if (rst_i) begin
      wbeat_q <= '0;
      wslot_q <= '0;
      first_q <= 1'b1;
      occ_q   <= '0;
      units_q <= '0;
    end else begin
      if (fire) wbeat_q <= wbeat_q + 1'b1;
      if (page_end) begin
        wslot_q <= wslot_q + 1'b1;
        first_q <= in_last_cmd_i;
      end
      occ_q   <= occ_q + OccW'(fire && page_start) - OccW'(slot_free_i);
      units_q <= units_q + UnitW'(page_end && unit_last) - UnitW'(unit_take_i);
    end
  end

  always @(posedge clk_i) begin
    if (fire) perr_q <= (perr_q && !page_start) || in_err_i;
  end

  // Append points: a completed page moves its stream's point on; a grant opens the LB; a
  // stream reset puts the point back to LPN 0 (it wins).
  always @(posedge clk_i) begin
    for (int i = 0; i < Streams; i++) begin
      if (rst_i || st_reset_i[i]) begin
        lpn_q[i]   <= '0;
        lb_q[i]    <= '0;
        page_q[i]  <= '0;
        die_q[i]   <= '0;
        plane_q[i] <= '0;
        open_q[i]  <= 1'b0;
      end else begin
        if (alloc_gnt_i && StW'(i) == s) begin
          open_q[i] <= 1'b1;
          pbn_q[i]  <= alloc_pbn_i;
        end
        if (page_end && StW'(i) == s) begin
          lpn_q[i]   <= lb_wrap ? 32'd0 : lpn_q[i] + 32'd1;
          plane_q[i] <= plane_wrap ? 4'd0 : plane_q[i] + 4'd1;
          if (plane_wrap) die_q[i] <= die_wrap ? 16'd0 : die_q[i] + 16'd1;
          if (die_wrap) page_q[i] <= page_wrap ? 16'd0 : page_q[i] + 16'd1;
          if (page_wrap) begin
            lb_q[i]   <= lb_wrap ? 16'd0 : lb_q[i] + 16'd1;
            open_q[i] <= 1'b0;
          end
        end
      end
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (occ_q <= OccW'(Slots))
      else $error("nfw_page_pack: %0d pages in %0d slots", occ_q, Slots);
      assert (!fire || in_last_page_i == (wbeat_q == BeatW'(Bpp - 1)))
      else $error("nfw_page_pack: page end flag at beat %0d of %0d", wbeat_q, Bpp);
      assert (!fire || 32'(in_stream_i) < Streams)
      else $error("nfw_page_pack: beat of stream %0d; accepted 0..%0d", in_stream_i, Streams - 1);
      assert (!(alloc_gnt_i && (!alloc_req_o || s_open)))
      else $error("nfw_page_pack: allocator grant without a request");
      assert (!(unit_take_i && units_q == '0))
      else $error("nfw_page_pack: a unit taken while none is complete");
      assert (!page_end || s_open)
      else $error("nfw_page_pack: page completed in an LB without a physical block");
    end
  end
`endif

endmodule

`default_nettype wire
