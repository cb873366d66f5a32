// sa_fp32_acc: a PE's fp32 accumulator with the add cut into four register
// stages, for FPGA clock rates: the PE of AccStages = 4 (sa_pe.v).
//
// One accumulator closes its loop register -> add -> register in one cycle
// (sa_fp32_add), and that add is the longest path of the compute core. Here
// the loop holds four registers, one after each step of the add
// (sa_fp32_add.vh: fp32_align | fp32_sum | fp32_norm | fp32_round), so it
// holds four independent sums at once, one per stage, each coming round every
// fourth cycle (a C-slow loop). Each sum still takes its products one at a
// time, in the order they come, through the same arithmetic as fp32_add():
// bit for bit the sums of sa_fp32_add, of four dot products interleaved.
//
// Slots: the sum a step adds into is the one at the loop's exit in the cycle
// the step is on y_i, the one whose turn it is; a sum's steps must therefore
// come a multiple of four cycles apart (cycle mod 4 names the sum). The
// registers advance every cycle: a cycle without en_i passes the exiting sum
// round unchanged, so gaps of any length keep every sum and its slot.
//
// Timing (cycle n: the step on en_i, y_i): the new sum is in q_o from cycle
// n+4, the cycle its next step may come, and with keep_i in keep_o from n+4
// as well, held until the next kept sum. sa_fp32_add's are in n+1.
//
// No register has a reset: a sum means something only after a step with
// y_only_i (the PE's clear), as in sa_fp32_add, and keep_o only after a step
// with keep_i; before that, keep_i's delay line may load keep_o with a value
// that means nothing.

`default_nettype none

module sa_fp32_acc (
    input  wire        clk_i,
    input  wire        en_i,      // y_i is a product: add it into the sum whose turn it is
    input  wire        y_only_i,  // with en_i: the product replaces that sum (a tile's first)
    input  wire        keep_i,    // with en_i: the new sum goes to keep_o as well (a tile's last)
    input  wire [31:0] y_i,       // fp32 operand
    output wire [31:0] q_o,       // the sum whose turn it is (the loop's exit)
    output wire [31:0] keep_o     // the last sum taken with keep_i, held otherwise
);

  `include "sa_fp32_add.vh"

  reg  [106:0] al_q;    // after fp32_align (the vectors: sa_fp32_add.vh)
  reg  [ 73:0] sum_q;   // after fp32_sum
  reg  [ 80:0] norm_q;  // after fp32_norm
  reg  [ 31:0] q_q;     // after fp32_round: the loop's exit
  reg  [ 31:0] keep_q;
  reg  [  2:0] keep_d_q;  // keep_i after stages 1, 2 and 3

  // Stage 1: a step aligns its product against the exiting sum; a first step
  // or a cycle without a step sends a finished value round (`done`, r).
  always @(posedge clk_i) begin
    if (en_i && !y_only_i) al_q <= fp32_align(q_q, y_i);
    else al_q <= {1'b1, en_i ? y_i : q_q, 74'd0};
  end

  always @(posedge clk_i) begin : p_rest
    logic [31:0] r;
    sum_q    <= fp32_sum(al_q);
    norm_q   <= fp32_norm(sum_q);
    r = fp32_round(norm_q);
    q_q      <= r;
    if (keep_d_q[2]) keep_q <= r;
    keep_d_q <= {keep_d_q[1:0], en_i && keep_i};
  end

  assign q_o    = q_q;
  assign keep_o = keep_q;

endmodule

`default_nettype wire
