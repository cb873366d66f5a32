// fv_cmn_skid_buf: the proof harness of cmn_skid_buf (scripts/formal/README.md).
//
// The upstream obeys the handshake contract (assumed); the buffer must keep it on its output,
// come out of reset empty and ready, pass every beat through once, unchanged and in order, and
// hold at most two beats: output valid exactly when it holds one, input ready exactly when it
// holds fewer than two. skid_data_peek is the skid register (connected by the proof script),
// for the invariant that lets the induction close.

`default_nettype none
`include "fv_harness.svh"

module fv_cmn_skid_buf #(
    parameter int Width = 4  // payload bits
) (
    input wire             clk_i,
    input wire             rst_i,
    input wire             in_valid_i,
    input wire [Width-1:0] in_data_i,
    input wire             out_ready_i,
    input wire             pick_i
);
  wire             in_ready_o;
  wire             out_valid_o;
  wire [Width-1:0] out_data_o;
  cmn_skid_buf #(.Width(Width)) dut (.*);

  (* keep *) wire [Width-1:0] skid_data_peek;

  `FV_LIVE
  `FV_SINK(u_in, in_valid_i, in_ready_o, in_data_i)
  `FV_SOURCE(u_out, out_valid_o, out_ready_i, out_data_o)

  wire [2:0] held, ahead;
  wire armed;
  wire [Width-1:0] tracked;
  fv_track #(.Width(Width), .Cap(2)) u_track (
      .clk_i, .rst_i, .live_i(live),
      .in_fire_i(in_valid_i && in_ready_o), .in_data_i,
      .out_fire_i(out_valid_o && out_ready_i), .out_data_i(out_data_o),
      .pick_i, .held_o(held), .armed_o(armed), .ahead_o(ahead), .data_o(tracked)
  );

  reg rst_q = 1'b0;
  always @(posedge clk_i) rst_q <= rst_i;
  always @* begin
    if (rst_q) assert (in_ready_o);
    if (live) begin
      assert (out_valid_o == (held != 0));
      assert (in_ready_o == (held < 2));
      // The tracked beat is at the output or, behind it, in the skid register.
      if (armed && ahead == 0) assert (out_data_o == tracked);
      if (armed && ahead == 1) assert (skid_data_peek == tracked);
    end
  end
endmodule

`default_nettype wire
