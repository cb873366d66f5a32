// fpga_harness: the narrow-I/O part of an FPGA board wrapper.
//
// An RTL block of this tree has hundreds of port bits; an iCE40 board has a
// few dozen pins. The harness lets any block be placed, routed and timed on
// such a board with four pins, without the tools optimizing any of it away:
//
//   clk_i  the block's own clock, straight through (it is the timed clock);
//   rst_i  board reset, synchronized into dut_rst_o (synchronous, active-high,
//          as every block of this tree expects);
//   ser_i  one serial stimulus pin: it feeds an InW-bit shift register whose
//          parallel outputs drive every block input (dut_in_o), so each input
//          bit is a free, independent signal to the tools;
//   sig_o  one signature pin: every block output bit (dut_out_i) is folded
//          into a rotating XOR signature register (a MISR without taps), so
//          every output bit is observable and nothing upstream can be
//          removed.
//
// Each signature lane takes three output bits and its neighbour: one LUT4
// level between the block's outputs and a register, so the harness adds no
// path longer than the block's own. The generated board top
// (scripts/synth/flow.py, out/synth/build/*/fpga_top.v) instantiates this
// harness and the block side by side and wires the concatenated ports.
//
// Cost: InW + ceil(OutW/3) + 3 flip-flops and ceil(OutW/3) LUTs, reported
// beside the block's own figures (the block's standalone synthesis is in the
// same report).

`default_nettype none

module fpga_harness #(
    parameter int InW  = 8,  // block input bits, driven from the shift register
    parameter int OutW = 8   // block output bits, folded into the signature
) (
    input  wire            clk_i,
    input  wire            rst_i,      // board reset pin, asynchronous to clk_i
    // board pins
    input  wire            ser_i,      // serial stimulus
    output wire            sig_o,      // signature bit
    // block side
    output wire            dut_rst_o,  // synchronized reset for the block
    output wire [ InW-1:0] dut_in_o,   // every block input but clock and reset
    input  wire [OutW-1:0] dut_out_i   // every block output
);

  localparam int Lanes = (OutW + 2) / 3;  // signature register width

  if (InW < 1) begin : g_bad_inw
    fpga_param_error_InW_must_be_at_least_1 u_err ();
  end
  if (OutW < 1) begin : g_bad_outw
    fpga_param_error_OutW_must_be_at_least_1 u_err ();
  end

  // ---------------------------------------------------------------- reset
  // Two-flop synchronizer: the pin may change at any time.
  reg [1:0] rst_sync_q;
  always @(posedge clk_i) rst_sync_q <= {rst_sync_q[0], rst_i};
  assign dut_rst_o = rst_sync_q[1];

  // ---------------------------------------------------------------- stimulus
  // The pin is registered first; then one bit moves along per cycle.
  reg           ser_q;
  reg [InW-1:0] shift_q;
  always @(posedge clk_i) begin
    ser_q      <= ser_i;
    shift_q[0] <= ser_q;
    for (int i = 1; i < InW; i++) shift_q[i] <= shift_q[i-1];
  end
  assign dut_in_o = shift_q;

  // ---------------------------------------------------------------- signature
  // Output bits padded with zeros to three per lane; lane i takes its three
  // bits and lane i-1 (lane 0 takes the last lane: a rotation).
  reg [3*Lanes-1:0] out_pad;
  always @* begin
    out_pad           = '0;
    out_pad[OutW-1:0] = dut_out_i;
  end

  reg [Lanes-1:0] sig_q;
  always @(posedge clk_i) begin
    for (int i = 0; i < Lanes; i++) begin
      sig_q[i] <= sig_q[(i+Lanes-1)%Lanes] ^ out_pad[3*i] ^ out_pad[3*i+1] ^ out_pad[3*i+2];
    end
  end
  assign sig_o = sig_q[Lanes-1];

endmodule

`default_nettype wire
