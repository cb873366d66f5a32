// sa_pe: output-stationary processing element of the systolic array: the
// datapath of one PE, as sa_grid places it (its loop form, PeLoop = 1, does
// the same with the same functions and registers).
//
// Each valid step brings one k of a dot product: a (bf16, from the left) and b
// (bf16, from the top). The PE multiplies them (sa_bf16_mul: exact product,
// flush to zero) and adds the product into its fp32 accumulator
// (sa_fp32_add: round to nearest even, flush to zero), exactly as fp32_mac()
// in models/ref/bf16.c, so a finished tile equals ref_gemm() bit for bit.
//
// Pipeline and latency (cycle n is the cycle the step is on the inputs):
//   n     a_i, b_i, valid_i on the ports; the product is formed.
//   n+1   a_o, b_o for the right/bottom neighbours (one register stage); the
//         step's flags are on s2_valid_i, s2_clear_i and s2_last_i, and the
//         registered product is added into the accumulator:
//           s2_clear_i  first k of a tile: the product *replaces* the
//                       accumulator (fp32_mac_clear(): not 0 + p, which would
//                       turn a -0 product into +0);
//           s2_last_i   last k of a tile: the sum after this step is copied
//                       into the output register (sum_o), so the accumulator
//                       can start the next tile on the very next step. It
//                       does not end accumulation by itself: a later step
//                       without clear keeps adding.
//   n+2   for a step with last: sum_o holds the finished sum.
// So the forwarding latency is 1 and a tile's sum appears 2 cycles after its
// last step. The accumulator loop is one cycle long (register -> sa_fp32_add
// -> register), so the PE takes one step per cycle with no gaps required;
// gaps (valid low) are allowed anywhere. sum_o holds its value until the next
// step with last reaches the second stage.
//
// Why the flags come from outside: every PE of an anti-diagonal of the array
// sees the same step in the same cycle, so the valid/clear/last pipeline is
// one shift register per array (sa_array), not three registers and their
// gating in each of Rows x Cols PEs; the PE only takes the taps it needs.
// That also keeps the PE free of control state (no reset). sa_pe_cell is the
// same PE with its own flag registers, the unit the PE test drives.
// Contract: s2_clear_i and s2_last_i only with s2_valid_i, and s2_* are the
// flags of the step that was on valid_i/a_i/b_i one cycle before (sa_pe_cell
// and sa_array assert their side of it; sa_pe_cell also checks prod_q and
// acc_q, by hierarchical name, so that the array's PEs have no extra ports).
//
// Simulation cost: the product register is loaded only on valid_i and the
// accumulator only on s2_valid_i, and the arithmetic is evaluated in those
// clock edges only (see sa_bf16_mul.v and sa_fp32_add.v), so idle PEs skip
// it entirely in the verilated model.
//
// AccStages = 4, the PE for FPGA clock rates: the one-cycle accumulator loop
// is the compute core's longest path (an iCE40 HX8K PE closes at about 15
// MHz), so this form cuts the add into four register stages (sa_fp32_acc)
// and holds four sums at once, of four tiles whose steps come interleaved,
// each tile's steps four cycles apart (cycle mod 4 names its sum). Each sum
// takes its products in k order through the same arithmetic: the same bits.
// A tile's sum appears 5 cycles after its last step instead of 2. In the
// array (Keeps = 4) the PE holds the four finished sums, one per slot, until
// the array reads them out (s2_slot_i: the slot of the step on s2_valid_i;
// sum_o lane s: slot s's sum); the PE test drives Keeps = 1 (every finished
// sum on sum_o). The core builds the PE of AccStages = 1; the interleaved
// tile walk the four-stage PE needs is not in core_seq.
//
// There is no preload of the accumulator from outside: a tile always starts
// with clear, and accumulation across tiles (C += A*B) is done outside the
// array.

`default_nettype none

module sa_pe #(
    parameter int AccStages = 1,  // the accumulator's register stages: 1 or 4 (see below)
    parameter int Keeps     = 1   // finished sums held: 1, or 4 with AccStages = 4 (one per slot)
) (
    input  wire        clk_i,
    // Stage 1: one step in, from the left/top neighbour or the array edge.
    input  wire        valid_i,     // a_i and b_i are the operands of one step
    input  wire [15:0] a_i,         // bf16, from the left
    input  wire [15:0] b_i,         // bf16, from the top
    // The operands out, one cycle later, to the right/bottom neighbours.
    output wire [15:0] a_o,         // to the right
    output wire [15:0] b_o,         // to the bottom
    // Stage 2: the flags of the step that was on the inputs one cycle before.
    input  wire        s2_valid_i,  // the registered product is a step
    input  wire        s2_clear_i,  // first step of a tile (valid steps only)
    input  wire        s2_last_i,   // last step of a tile (valid steps only)
    input  wire [ 1:0] s2_slot_i,   // Keeps = 4: the step's slot (the array's cycle mod 4)
    // A finished tile.
    output wire [Keeps*32-1:0] sum_o  // fp32 dot product (lane s: slot s's); held until the next last
);

  if (Keeps != 1 && !(Keeps == 4 && AccStages == 4)) begin : g_bad_keeps
    cmn_param_error_Keeps_must_be_1_or_4_with_AccStages_4 u_err ();
  end

  // ---------------------------------------------------------------- stage 1
  // Forwarding registers double as the first pipeline stage: the product of
  // the step (registered in sa_bf16_mul, loaded on valid steps only) sits
  // beside its flags (which sa_array shares per anti-diagonal). The operands
  // are loaded every cycle, meaningful only beside a valid step.
  reg  [15:0] a_q;
  reg  [15:0] b_q;
  wire [31:0] prod_q;

  always @(posedge clk_i) begin
    a_q <= a_i;
    b_q <= b_i;
  end

  sa_bf16_mul u_mul (
      .clk_i(clk_i),
      .en_i (valid_i),
      .a_i  (a_i),
      .b_i  (b_i),
      .p_o  (prod_q)
  );

  // ---------------------------------------------------------------- stage 2
  // The accumulator and the finished sum. AccStages = 1: sa_fp32_add's two
  // registers, acc_q <= clear ? prod_q : acc_q + prod_q on a valid step, and
  // the same value into sum_q on a step with last. AccStages = 4:
  // sa_fp32_acc, the add in four register stages holding four sums, a
  // step's sum the one whose turn it is (cycle mod 4), the finished sum in
  // sum_q three cycles later than with one stage.
  wire [31:0] acc_q;
  wire [Keeps*32-1:0] sum_q;

  if (AccStages == 1) begin : g_acc1
    wire unused_slot = ^s2_slot_i;  // lint waiver by name
    sa_fp32_add u_add (
        .clk_i   (clk_i),
        .en_i    (s2_valid_i),
        .y_only_i(s2_clear_i),
        .keep_i  (s2_last_i),
        .x_i     (acc_q),
        .y_i     (prod_q),
        .q_o     (acc_q),
        .keep_o  (sum_q)
    );
  end else if (AccStages == 4) begin : g_acc4
    // The loop's exit is read only by sa_pe_cell's checks (by name). Lint waiver by name.
    wire unused_acc = ^acc_q;
    sa_fp32_acc #(
        .Keeps(Keeps)
    ) u_add (
        .clk_i   (clk_i),
        .en_i    (s2_valid_i),
        .y_only_i(s2_clear_i),
        .keep_i  (s2_last_i),
        .slot_i  (s2_slot_i),
        .y_i     (prod_q),
        .q_o     (acc_q),
        .keep_o  (sum_q)
    );
  end else begin : g_bad_acc
    cmn_param_error_AccStages_must_be_1_or_4 u_err ();
  end

  assign a_o   = a_q;
  assign b_o   = b_q;
  assign sum_o = sum_q;

endmodule

`default_nettype wire
