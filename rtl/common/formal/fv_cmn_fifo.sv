// fv_cmn_fifo: the proof harness of cmn_fifo (scripts/formal/README.md).
//
// The writer obeys the handshake contract (assumed); the FIFO must keep it on its read side,
// come out of reset empty and ready, pass every beat through once, unchanged and in order,
// and report its occupancy: count_o is the number of beats inside, output valid exactly when
// there is one, input ready exactly when there are fewer than Depth. mem_peek (the storage,
// entry e in bits e*Width) and rd_ptr_peek are the FIFO's registers, connected by the proof
// script, for the invariant that lets the induction close: the tracked beat sits in the entry
// `ahead` places after the read pointer.

`default_nettype none
`include "fv_harness.svh"

module fv_cmn_fifo #(
    parameter  int Width = 4,  // payload bits
    parameter  int Depth = 4,  // entries
    localparam int AddrW = $clog2(Depth)
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
  wire [  AddrW:0] count_o;
  cmn_fifo #(.Width(Width), .Depth(Depth)) dut (.*);

  (* keep *) wire [Depth*Width-1:0] mem_peek;
  (* keep *) wire [AddrW:0] rd_ptr_peek;

  `FV_LIVE
  `FV_SINK(u_in, in_valid_i, in_ready_o, in_data_i)
  `FV_SOURCE(u_out, out_valid_o, out_ready_i, out_data_o)

  localparam int CntW = $clog2(Depth + 1) + 1;
  wire [CntW-1:0] held, ahead;
  wire armed;
  wire [Width-1:0] tracked;
  fv_track #(.Width(Width), .Cap(Depth)) u_track (
      .clk_i, .rst_i, .live_i(live),
      .in_fire_i(in_valid_i && in_ready_o), .in_data_i,
      .out_fire_i(out_valid_o && out_ready_i), .out_data_i(out_data_o),
      .pick_i, .held_o(held), .armed_o(armed), .ahead_o(ahead), .data_o(tracked)
  );

  wire [AddrW-1:0] tracked_entry = rd_ptr_peek[AddrW-1:0] + AddrW'(ahead);

  reg rst_q = 1'b0;
  always @(posedge clk_i) rst_q <= rst_i;
  always @* begin
    if (rst_q) assert (in_ready_o);
    if (live) begin
      assert (CntW'(count_o) == held);
      assert (out_valid_o == (held != 0));
      assert (in_ready_o == (held < CntW'(Depth)));
      if (armed) assert (mem_peek[tracked_entry*Width+:Width] == tracked);
    end
  end
endmodule

`default_nettype wire
