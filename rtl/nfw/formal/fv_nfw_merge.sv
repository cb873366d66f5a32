// fv_nfw_merge: the proof harness of nfw_merge, the write lanes' completion merger
// (scripts/formal/README.md).
//
// Environment (assumed): every lane's completion port keeps the handshake contract, and a
// lane's completion names the plane of its page (plane = lpn % Planes, as nfw_top numbers
// its pages); payloads, the outer ready and the lanes' valids are otherwise free.
//
// Block (asserted): the output keeps the contract and is idle after reset; each lane's
// completions leave once each, in the lane's order (fv_track per lane), renumbered as the
// splitter laid the pages out (rtl/nfw/nfw_split.v): lane l's page x, of unit v = x / Planes
// and plane p = x % Planes, is the stream's page (v x Lanes + l) x Planes + p, and its die d
// the FMS's d x Lanes + l; every other field unchanged. The merger holds one completion: it
// is valid exactly when a lane's tracker has one inside, and that one's die names the lane.

`default_nettype none
`include "fv_harness.svh"

module fv_nfw_merge #(
    parameter  int Planes = 2,
    parameter  int Lanes  = 2,
    localparam int W      = 4 + 32 + 16 + 16 + 4 + 16 + 16 + 1  // a completion's fields
) (
    input wire                clk_i,
    input wire                rst_i,
    input wire [   Lanes-1:0] in_valid_i,
    input wire [ Lanes*4-1:0] in_stream_i,
    input wire [Lanes*32-1:0] in_lpn_i,
    input wire [Lanes*16-1:0] in_pbn_i,
    input wire [Lanes*16-1:0] in_die_i,
    input wire [ Lanes*4-1:0] in_plane_i,
    input wire [Lanes*16-1:0] in_block_i,
    input wire [Lanes*16-1:0] in_page_i,
    input wire [   Lanes-1:0] in_err_i,
    input wire                out_ready_i,
    input wire [   Lanes-1:0] pick_i
);
  wire [Lanes-1:0] in_ready_o;
  wire             out_valid_o;
  wire [      3:0] out_stream_o;
  wire [     31:0] out_lpn_o;
  wire [     15:0] out_pbn_o;
  wire [     15:0] out_die_o;
  wire [      3:0] out_plane_o;
  wire [     15:0] out_block_o;
  wire [     15:0] out_page_o;
  wire             out_err_o;
  nfw_merge #(
      .Planes(Planes),
      .Lanes (Lanes)
  ) dut (
      .*
  );

  `FV_LIVE

  wire [W-1:0] out_data = {out_stream_o, out_lpn_o, out_pbn_o, out_die_o, out_plane_o,
                           out_block_o, out_page_o, out_err_o};
  wire out_fire = out_valid_o && out_ready_i;
  // The reference's arithmetic is shifts and masks (a divider by a constant costs Yosys
  // minutes to lower): Planes and Lanes are powers of two here.
  localparam int PlW = $clog2(Planes);
  localparam int LaneW = Lanes > 1 ? $clog2(Lanes) : 1;
  if ((1 << PlW) != Planes || (1 << $clog2(Lanes)) != Lanes) begin : g_bad
    fv_nfw_merge_needs_Planes_and_Lanes_powers_of_two u_err ();
  end
  wire [LaneW-1:0] out_lane = Lanes > 1 ? out_die_o[LaneW-1:0] : '0;

  `FV_SOURCE(u_out, out_valid_o, out_ready_i, out_data)

  wire [Lanes*2-1:0] held;  // per lane, fv_track's count (Cap 1: two bits)
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    wire [ 3:0] stream = in_stream_i[4*l+:4];
    wire [31:0] x = in_lpn_i[32*l+:32];
    wire [ 3:0] plane = in_plane_i[4*l+:4];
    wire [15:0] die = in_die_i[16*l+:16];

    // ---------------------------------------------------------------- environment
    `FV_SINK(u_in, in_valid_i[l], in_ready_o[l],
             {stream, x, in_pbn_i[16*l+:16], die, plane, in_block_i[16*l+:16],
              in_page_i[16*l+:16], in_err_i[l]})
    wire [31:0] p = x & 32'(Planes - 1);  // x % Planes
    always @* if (in_valid_i[l]) assume (32'(plane) == p);

    // ---------------------------------------------------------------- block
    // ((x / Planes) x Lanes + l) x Planes + x % Planes, and die x Lanes + l
    wire [31:0] lpn = (((x >> PlW) << $clog2(Lanes)) + 32'(l)) << PlW | p;
    wire [15:0] fms_die = (die << $clog2(Lanes)) | 16'(l);
    wire [W-1:0] expect = {stream, lpn, in_pbn_i[16*l+:16], fms_die, plane,
                           in_block_i[16*l+:16], in_page_i[16*l+:16], in_err_i[l]};
    wire armed;
    wire [1:0] ahead;
    wire [W-1:0] tracked;
    fv_track #(.Width(W), .Cap(1)) u_track (
        .clk_i, .rst_i, .live_i(live),
        .in_fire_i(in_valid_i[l] && in_ready_o[l]), .in_data_i(expect),
        .out_fire_i(out_fire && out_lane == LaneW'(l)), .out_data_i(out_data),
        .pick_i(pick_i[l]), .held_o(held[2*l+:2]), .armed_o(armed), .ahead_o(ahead),
        .data_o(tracked)
    );
    always @* begin
      if (live) begin
        if (held[2*l+:2] != '0) assert (out_valid_o && out_lane == LaneW'(l));
        if (armed) assert (out_data == tracked);
      end
    end
  end

  always @* begin
    if (live) begin
      assert (out_valid_o == (held != '0));
    end
  end
endmodule

`default_nettype wire
