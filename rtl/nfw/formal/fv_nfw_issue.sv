// fv_nfw_issue: the proof harness of nfw_issue, the NAND write pipeline's issue stage, alone
// (scripts/formal/README.md): its page data and completion ports are beyond the bound of
// nfw_top's proof (a page must be read and packed first), here they move from the first
// cycles.
//
// Environment (assumed): nothing. Whether a complete unit waits, the page buffers'
// descriptors, the bad-block lookup, the page bytes and the channels' and firmware's ready
// signals are free in every cycle (the packer's real behaviour is among them).
//
// Block (asserted): the program command, page data and completion ports keep the contract and
// are idle after reset; every page's data are PageBytes / 8 beats, the last one flagged, and
// follow a program command (never more pages of data than commands); a completion leaves
// only for a page whose data have all left (never more completions than pages), and never
// more than the completion FIFO holds wait.

`default_nettype none
`include "fv_harness.svh"

module fv_nfw_issue #(
    parameter  int PageBytes = 64,
    parameter  int Channels  = 1,
    parameter  int Slots     = 2,
    localparam int SlotW     = $clog2(Slots),
    localparam int AddrW     = $clog2(Slots * PageBytes / 8)
) (
    input wire        clk_i,
    input wire        rst_i,
    input wire        units_i,
    input wire [ 3:0] slot_stream_i,
    input wire [31:0] slot_lpn_i,
    input wire [15:0] slot_pbn_i,
    input wire [15:0] slot_die_i,
    input wire [ 3:0] slot_plane_i,
    input wire [15:0] slot_block_i,
    input wire [15:0] slot_page_i,
    input wire        slot_err_i,
    input wire        slot_first_i,
    input wire        slot_last_i,
    input wire [15:0] bbt_block_i,
    input wire [63:0] ram_rdata_i,
    input wire        prog_ready_i,
    input wire        pdat_ready_i,
    input wire        done_ready_i
);
  wire             unit_take_o, slot_free_o, ram_re_o, idle_o;
  wire [SlotW-1:0] rd_slot_o;
  wire [     15:0] bbt_die_o, bbt_block_o;
  wire [      3:0] bbt_plane_o;
  wire [AddrW-1:0] ram_raddr_o;
  wire             prog_valid_o, prog_first_o, prog_last_o;
  wire [     15:0] prog_chan_o, prog_die_o, prog_block_o, prog_page_o;
  wire [      3:0] prog_plane_o;
  wire             pdat_valid_o, pdat_last_o;
  wire [     63:0] pdat_data_o;
  wire             done_valid_o, done_err_o;
  wire [      3:0] done_stream_o, done_plane_o;
  wire [     31:0] done_lpn_o;
  wire [     15:0] done_pbn_o, done_die_o, done_block_o, done_page_o;
  nfw_issue #(
      .PageBytes(PageBytes),
      .Channels (Channels),
      .Slots    (Slots)
  ) dut (
      .*
  );

  `FV_LIVE

  // ---------------------------------------------------------------- block
  `FV_SOURCE(u_prog, prog_valid_o, prog_ready_i, {prog_chan_o, prog_die_o, prog_block_o,
             prog_page_o, prog_plane_o, prog_first_o, prog_last_o})
  `FV_SOURCE(u_pdat, pdat_valid_o, pdat_ready_i, {pdat_data_o, pdat_last_o})
  `FV_SOURCE(u_done, done_valid_o, done_ready_i, {done_stream_o, done_lpn_o, done_pbn_o,
             done_die_o, done_block_o, done_page_o, done_plane_o, done_err_o})

  // Commands taken, pages whose data have all left, completions taken (since reset; 8 bits:
  // more than the bound's cycles), and the beats of the page leaving.
  localparam int Beats = PageBytes / 8;
  wire prog_fire = prog_valid_o && prog_ready_i;
  wire pdat_fire = pdat_valid_o && pdat_ready_i;
  wire done_fire = done_valid_o && done_ready_i;
  reg [7:0] cmds_q, pages_q, dones_q, beat_q;
  always @(posedge clk_i) begin
    if (rst_i) begin
      cmds_q  <= '0;
      pages_q <= '0;
      dones_q <= '0;
      beat_q  <= '0;
    end else begin
      cmds_q  <= cmds_q + 8'(prog_fire);
      pages_q <= pages_q + 8'(pdat_fire && pdat_last_o);
      dones_q <= dones_q + 8'(done_fire);
      if (pdat_fire) beat_q <= pdat_last_o ? '0 : beat_q + 1'b1;
    end
  end

  always @* begin
    if (live) begin
      if (pdat_valid_o) assert (pdat_last_o == (32'(beat_q) == Beats - 1));
      assert (32'(beat_q) < Beats);
      if (pdat_valid_o) assert (pages_q < cmds_q);
      assert (dones_q <= pages_q);
      if (done_valid_o) assert (dones_q < pages_q);
      assert (pages_q - dones_q <= 8'd8);  // the completion FIFO's depth
    end
  end
endmodule

`default_nettype wire
