// sa_pe_cell: one complete systolic cell, the PE datapath (sa_pe) with its
// own valid/clear/last flag registers. It is the unit the PE's block test
// (testbench/core/test_sa_pe_rtl.c) verilates and drives, and the single-PE view
// of what sa_array builds: there the flag registers are one shift register
// shared by each anti-diagonal, here they are the cell's own.
//
// Flags travel with the operands and qualify one step each:
//   clear_i  first k of a tile: the product *replaces* the accumulator.
//   last_i   last k of a tile: the sum after this step goes to sum_o.
// Both flags are ignored (and must be low, see the assertions) on a step
// without valid_i. Pipeline (cycle n: the step on the inputs): n+1 the step
// on the forwarding outputs (a_o, b_o, valid_o, clear_o, last_o) and added
// into its sum; n+1+AccStages (n+2 with one stage, n+5 with four) for a step
// with last, sum_o holds the finished sum and sum_valid_o is high for this one
// cycle. With four stages, a tile's steps come four cycles apart (sa_pe.v).
//
// The checks of the PE's own rules live here, once per cell, rather than in
// each of the array's Rows x Cols PEs: the block test runs every special
// value and a million random steps through them; in the array, sa_array
// checks the flag pipeline and the sums that leave it.

`default_nettype none

module sa_pe_cell #(
    parameter int AccStages = 1  // sa_pe's accumulator stages: 1 or 4
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // One step in, from the left/top neighbour or the array edge.
    input  wire        valid_i,      // a_i and b_i are the operands of one step
    input  wire        clear_i,      // first step of a tile (valid steps only)
    input  wire        last_i,       // last step of a tile (valid steps only)
    input  wire [15:0] a_i,          // bf16, from the left
    input  wire [15:0] b_i,          // bf16, from the top
    // The same step out, one cycle later, to the right/bottom neighbours.
    output wire        valid_o,
    output wire        clear_o,      // low on steps without valid_o
    output wire        last_o,       // low on steps without valid_o
    output wire [15:0] a_o,          // to the right
    output wire [15:0] b_o,          // to the bottom
    // A finished tile.
    output wire        sum_valid_o,  // one-cycle pulse: sum_o was just loaded
    output wire [31:0] sum_o         // fp32 dot product; held until the next last
);

  // Flags are control state: reset, and gated by valid so that downstream
  // cells never see a flag on an empty step.
  // sum_valid_q: last_q delayed by the accumulator's stages.
  reg                 valid_q;
  reg                 clear_q;
  reg                 last_q;
  reg [AccStages-1:0] sum_valid_q;

  always @(posedge clk_i) begin
    if (rst_i) begin
      valid_q     <= 1'b0;
      clear_q     <= 1'b0;
      last_q      <= 1'b0;
      sum_valid_q <= '0;
    end else begin
      valid_q     <= valid_i;
      clear_q     <= valid_i && clear_i;
      last_q      <= valid_i && last_i;
      sum_valid_q <= AccStages'({sum_valid_q, last_q});
    end
  end

  sa_pe #(
      .AccStages(AccStages)
  ) u_pe (
      .clk_i     (clk_i),
      .valid_i   (valid_i),
      .a_i       (a_i),
      .b_i       (b_i),
      .a_o       (a_o),
      .b_o       (b_o),
      .s2_valid_i(valid_q),
      .s2_clear_i(clear_q),
      .s2_last_i (last_q),
      .s2_slot_i (2'd0),        // Keeps = 1: one finished sum
      .sum_o     (sum_o)
  );

  assign valid_o     = valid_q;
  assign clear_o     = clear_q;
  assign last_o      = last_q;
  assign sum_valid_o = sum_valid_q[AccStages-1];

`ifndef SYNTHESIS
  // The PE's registered product and accumulator, by hierarchical name.
  wire [31:0] prod_q = u_pe.prod_q;
  wire [31:0] acc_q = u_pe.acc_q;

  // A sum holds a defined value only once a step with clear has gone through
  // it; adding into it before that is a missing clear upstream. live_q: one
  // bit per sum, going round with it (bit AccStages-1: the sum at the exit,
  // acc_q, the one the step in stage 2 adds into).
  reg [AccStages-1:0] live_q;
  wire acc_live_q = live_q[AccStages-1];
  always @(posedge clk_i) begin
    if (rst_i) live_q <= '0;
    else live_q <= AccStages'({live_q, (valid_q && clear_q) || acc_live_q});
  end

  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (valid_i || (!clear_i && !last_i))
      else $error("sa_pe: clear_i/last_i high on a step without valid_i");
      assert (!valid_q || clear_q || acc_live_q)
      else $error("sa_pe: step without clear_i into an accumulator never cleared since reset");
      // The multiplier and the adder never emit subnormals or non-canonical
      // NaNs; the C oracle compares bits, so either would be a real bug.
      assert (!valid_q || prod_q[30:23] != 8'd0 || prod_q[22:0] == 23'd0)
      else $error("sa_pe: subnormal product %h", prod_q);
      assert (!valid_q || prod_q[30:23] != 8'hFF || prod_q[22:0] == 23'd0 ||
              prod_q == 32'h7FC0_0000)
      else $error("sa_pe: non-canonical NaN product %h", prod_q);
      // Every sum at the loop's exit (one cycle after its step with one stage).
      assert (!acc_live_q || acc_q[30:23] != 8'd0 || acc_q[22:0] == 23'd0)
      else $error("sa_pe: subnormal sum %h", acc_q);
      assert (!acc_live_q || acc_q[30:23] != 8'hFF || acc_q[22:0] == 23'd0 ||
              acc_q == 32'h7FC0_0000)
      else $error("sa_pe: non-canonical NaN sum %h", acc_q);
    end
  end
`endif

endmodule

`default_nettype wire
