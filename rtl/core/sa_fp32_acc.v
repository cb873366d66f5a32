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
// Keeps = 4 (the array's PEs): one keep register per sum, so that the four
// tiles of a group, finishing in four consecutive cycles, are all held until
// the array reads them out one row at a time; slot_i names the sum of the
// step on en_i (the array's phase, the cycle mod 4) and keep_o lane s holds
// the last sum kept in slot s. Keeps = 1: one register, every kept sum.
//
// No register has a reset: a sum means something only after a step with
// y_only_i (the PE's clear), as in sa_fp32_add, and keep_o only after a step
// with keep_i; before that, keep_i's delay line may load keep_o with a value
// that means nothing.

`default_nettype none

module sa_fp32_acc #(
    parameter int Keeps = 1  // keep registers: 1 (every kept sum) or 4 (one per slot)
) (
    input  wire                  clk_i,
    input  wire                  en_i,      // y_i is a product: add it into the sum whose turn it is
    input  wire                  y_only_i,  // with en_i: the product replaces that sum (a tile's first)
    input  wire                  keep_i,    // with en_i: the new sum goes to keep_o as well (a tile's last)
    input  wire [           1:0] slot_i,    // Keeps = 4: the slot of the step on en_i (cycle mod 4)
    input  wire [          31:0] y_i,       // fp32 operand
    output wire [          31:0] q_o,       // the sum whose turn it is (the loop's exit)
    output wire [Keeps*32-1:0]   keep_o     // lane s: the last sum kept in slot s (Keeps = 1: any)
);

  if (Keeps != 1 && Keeps != 4) begin : g_bad_keeps
    cmn_param_error_Keeps_must_be_1_or_4 u_err ();
  end

  `include "sa_fp32_add.vh"

  reg  [106:0] al_q;    // after fp32_align (the vectors: sa_fp32_add.vh)
  reg  [ 73:0] sum_q;   // after fp32_sum
  reg  [ 80:0] norm_q;  // after fp32_norm
  reg  [ 31:0] q_q;     // after fp32_round: the loop's exit
  reg  [  2:0] keep_d_q;  // keep_i after stages 1, 2 and 3
  wire [ 31:0] r = fp32_round(norm_q);

  // Stage 1: a step aligns its product against the exiting sum; a first step
  // or a cycle without a step sends a finished value round (`done`, r).
  always @(posedge clk_i) begin
    if (en_i && !y_only_i) al_q <= fp32_align(q_q, y_i);
    else al_q <= {1'b1, en_i ? y_i : q_q, 74'd0};
  end

  always @(posedge clk_i) begin
    sum_q    <= fp32_sum(al_q);
    norm_q   <= fp32_norm(sum_q);
    q_q      <= r;
    keep_d_q <= {keep_d_q[1:0], en_i && keep_i};
  end

  // The kept sums: the one register, or the register of the step's slot
  // (slot_i delayed beside keep_i).
  if (Keeps == 1) begin : g_keep1
    reg [31:0] keep_q;
    always @(posedge clk_i) if (keep_d_q[2]) keep_q <= r;
    assign keep_o = keep_q;
    wire unused_slot = ^slot_i;  // lint waiver by name
  end else begin : g_keep4
    reg [31:0] keep_q[4];
    reg [ 5:0] slot_d_q;  // slot_i after stages 1, 2 and 3
    always @(posedge clk_i) begin
      if (keep_d_q[2]) keep_q[slot_d_q[5:4]] <= r;
      slot_d_q <= {slot_d_q[3:0], slot_i};
    end
    for (genvar s = 0; s < 4; s++) begin : g_lane
      assign keep_o[s*32+:32] = keep_q[s];
    end
  end

  assign q_o = q_q;

endmodule

`default_nettype wire
