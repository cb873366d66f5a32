// sa_grid: the Rows x Cols grid of output-stationary PEs of the systolic
// array, and the register that reads its finished sums one row at a time.
// sa_array wraps it with the operand skew and the flag pipeline (as
// Gemmini's MeshWithDelays wraps its Mesh).
//
// In, every cycle: the operands of the edge PEs, already skewed (lane r of
// a_edge_i goes into PE (r, 0), lane c of b_edge_i into PE (0, c)); the
// operands travel through the PEs, a to the right and b down, one PE per
// cycle. The flags come per anti-diagonal: tap j of valid_i, clear_i and
// last_i is the step that was on the array's inputs j cycles ago, and every
// PE of anti-diagonal d = r + c sees its step at tap d. PE (r, c) takes tap
// d of valid_i (form the product) and tap d + 1 of all three (its stage 2:
// add, clear, last); its sum is loaded at tap d + 2. Clear and last come
// gated by valid.
//
// Out: row_read_i[r] (at most one bit per cycle) reads the finished sums of
// row r into the row register: row_sum_o shows them from the next cycle on,
// lane c = PE (r, c)'s sum, held until the next read. The caller reads row r
// no earlier than the cycle PE (r, Cols-1) loads its sum and before PE (r, 0)
// loads the next one (sa_array: its timing rule and its assertions).
//
// Two forms of the grid, the same registers and arithmetic, the same results
// and timing (the core's tests check both against the C twin):
//   PeLoop = 0  Rows x Cols sa_pe instances: the hardware as it is drawn,
//               and what synthesis builds (Yosys synthesizes the PE once and
//               counts it per instance; flattened, its resource-sharing pass
//               compares every PE with every other one and does not finish
//               for an 8x8).
//   PeLoop = 1  one clocked loop over arrays of the PE registers, for the
//               verilated models: the simulator emits one copy of the
//               evaluation code per instance, more code than the host's
//               instruction front end keeps up with; the loop keeps one copy
//               per column (the inner loop is unrolled while it is short).
//               The speeds of both: rtl/core/README.md, Performance.
// The verilated models of rtl/core/block.mk say which form each one uses.
//
// AccStages = 4 (the PE for FPGA clock rates, sa_pe.v): the PEs hold four
// interleaved sums, a step's slot the phase of the cycle it was on the
// array's inputs (phase_i: that cycle mod 4, of the step on the inputs now),
// and four finished sums each, one per slot; read_slot_i picks the slot of
// the row read. Instances only (PeLoop = 0).
//
// The edge operands cross the module boundary as packed vectors (Yosys 0.23
// fails an internal assertion when an unpacked wire array is connected
// straight to a module output); the grid cuts them into lanes.

`default_nettype none

module sa_grid #(
    parameter int Rows   = 8,  // PE rows
    parameter int Cols   = 8,  // PE columns
    parameter int PeLoop = 0,  // 0: sa_pe instances; 1: one loop (see above)
    parameter int AccStages = 1,  // the PEs' accumulator stages: 1, or 4 (sa_pe.v)
    // Flag taps: PE (r, c) uses taps r + c and r + c + 1 <= Rows + Cols - 1.
    localparam int Taps  = Rows + Cols
) (
    input  wire               clk_i,
    // Operands of the edge PEs, skewed by the caller.
    input  wire [Rows*16-1:0] a_edge_i,    // lane r: PE (r, 0)'s a, bf16
    input  wire [Cols*16-1:0] b_edge_i,    // lane c: PE (0, c)'s b, bf16
    // Flags per anti-diagonal, tap j: the step that was on the inputs j cycles ago.
    input  wire [   Taps-1:0] valid_i,
    input  wire [   Taps-1:0] clear_i,     // first step of a tile (gated by valid)
    input  wire [   Taps-1:0] last_i,      // last step of a tile (gated by valid)
    // Row read: row r's sums into the row register (one bit at a time).
    input  wire [   Rows-1:0] row_read_i,
    input  wire [        1:0] phase_i,     // AccStages = 4: cycle mod 4 of the step on the inputs
    input  wire [        1:0] read_slot_i, // AccStages = 4: the slot the row read takes
    output wire [Cols*32-1:0] row_sum_o    // lane c: the read row's column c, fp32
);

  if (Rows < 1 || Rows > 64) begin : g_bad_rows
    cmn_param_error_Rows_must_be_1_to_64 u_err ();
  end
  if (Cols < 1 || Cols > 64) begin : g_bad_cols
    cmn_param_error_Cols_must_be_1_to_64 u_err ();
  end
  if (AccStages != 1 && !(AccStages == 4 && PeLoop == 0)) begin : g_bad_acc
    cmn_param_error_AccStages_must_be_1_or_4_with_PeLoop_0 u_err ();
  end

  // Tap 0 of clear and last is no PE's stage 2: the full tap vectors come in
  // anyway, so that a PE's taps are the same bit indexes as in sa_array
  // (sliced ones cost the verilated loop form a bounds check per PE). Lint
  // waiver by name.
  wire unused_tap0 = clear_i[0] ^ last_i[0];

  // Operands of the PEs on the left and top edges, lane by lane.
  wire [15:0] a_edge[Rows];
  wire [15:0] b_edge[Cols];

  for (genvar r = 0; r < Rows; r++) begin : g_a_edge_lane
    assign a_edge[r] = a_edge_i[r*16+:16];
  end
  for (genvar c = 0; c < Cols; c++) begin : g_b_edge_lane
    assign b_edge[c] = b_edge_i[c*16+:16];
  end

  // Both grids compute the same thing, PE (r, c) as in sa_pe with the same
  // arithmetic (bf16_mul, fp32_add): operands on to the right and down, the
  // product of a step on valid (tap r + c), and on the step's stage 2 (tap
  // r + c + 1) the accumulator loaded with the product (clear) or with the
  // sum, the finished sum copied on last. And both read the finished tile
  // one row per cycle into the row register, on row_read_i.
  if (PeLoop != 0) begin : g_loop
    wire unused_slots = ^{phase_i, read_slot_i};  // AccStages = 1 only; lint waiver by name
    // The PEs' registers, one array per register of sa_pe, PE (r, c) at
    // [r][c]. No reset: datapath, meaningful only behind the flags.
    // (mem2reg: registers, not a memory, for synthesis.)
    (* mem2reg *) reg [15:0] a_q   [Rows][Cols];
    (* mem2reg *) reg [15:0] b_q   [Rows][Cols];
    (* mem2reg *) reg [31:0] prod_q[Rows][Cols];
    (* mem2reg *) reg [31:0] acc_q [Rows][Cols];
    (* mem2reg *) reg [31:0] sum_q [Rows][Cols];
    reg [Cols*32-1:0] row_sum_q;

    // The row register and every PE in one clocked block, with blocking
    // assignments (Verilator does not take non-blocking ones to arrays
    // inside a loop) in an order that reads every register before it is
    // written in the same edge, so each one is the flip-flop a non-blocking
    // assignment would make: the row register first (it reads the sums),
    // then the PEs from the last to the first, row-major, so a PE reads its
    // left and top neighbours' operands before they move on; within a PE,
    // stage 2 reads the product before stage 1 replaces it. Nothing outside
    // this block reads the PE arrays.
    /* verilator lint_off BLKSEQ */
    always @(posedge clk_i) begin : p_grid
      if (|row_read_i) begin
        for (int r = 0; r < Rows; r++) begin
          if (row_read_i[r]) begin
            for (int c = 0; c < Cols; c++) row_sum_q[c*32+:32] <= sum_q[r][c];
          end
        end
      end
      for (int r = Rows - 1; r >= 0; r--) begin
        for (int c = Cols - 1; c >= 0; c--) begin
          if (valid_i[r+c+1]) begin
            acc_q[r][c] = clear_i[r+c+1] ? prod_q[r][c] : fp32_add(acc_q[r][c], prod_q[r][c]);
            if (last_i[r+c+1]) sum_q[r][c] = acc_q[r][c];
          end
          a_q[r][c] = c > 0 ? a_q[r][c-1] : a_edge[r];
          b_q[r][c] = r > 0 ? b_q[r-1][c] : b_edge[c];
          if (valid_i[r+c]) prod_q[r][c] = bf16_mul(a_q[r][c], b_q[r][c]);
        end
      end
    end
    /* verilator lint_on BLKSEQ */

    `include "sa_bf16_mul.vh"
    `include "sa_fp32_add.vh"

    assign row_sum_o = row_sum_q;

  end else begin : g_inst
    // PE (r, c) takes a from its left neighbour (or a_edge[r]) and b from
    // its top neighbour (or b_edge[c]), by name: neighbour wires in the
    // generate blocks rather than Rows x Cols unpacked arrays, so the
    // verilated model reads the neighbour's register directly instead of
    // copying every output into an array each cycle. Only the sums go into
    // an array, for the row read (AccStages = 4: a PE's four, one per slot).
    wire [AccStages*32-1:0] sum[Rows][Cols];
    reg [Cols*32-1:0] row_sum_q;
    wire [1:0] read_lane;
    if (AccStages == 1) begin : g_one_sum
      assign read_lane = 2'd0;
      wire unused_read_slot = ^read_slot_i;  // lint waiver by name
    end else begin : g_four_sums
      assign read_lane = read_slot_i;
    end

    for (genvar r = 0; r < Rows; r++) begin : g_row
      for (genvar c = 0; c < Cols; c++) begin : g_col
        wire [15:0] a_in;
        wire [15:0] b_in;
        wire [15:0] a_o;
        wire [15:0] b_o;

        if (c > 0) begin : g_a_left
          assign a_in = g_col[c-1].a_o;
        end else begin : g_a_edge
          assign a_in = a_edge[r];
        end
        if (r > 0) begin : g_b_top
          assign b_in = g_row[r-1].g_col[c].b_o;
        end else begin : g_b_edge
          assign b_in = b_edge[c];
        end

        // The slot of the step at this PE's stage 2 (tap r + c + 1): the
        // phase of the cycle it was on the array's inputs.
        wire [1:0] s2_slot = phase_i - 2'(r + c + 1);

        sa_pe #(
            .AccStages(AccStages),
            .Keeps    (AccStages)
        ) u_pe (
            .clk_i     (clk_i),
            .valid_i   (valid_i[r+c]),
            .a_i       (a_in),
            .b_i       (b_in),
            .a_o       (a_o),
            .b_o       (b_o),
            .s2_valid_i(valid_i[r+c+1]),
            .s2_clear_i(clear_i[r+c+1]),
            .s2_last_i (last_i[r+c+1]),
            .s2_slot_i (s2_slot),
            .sum_o     (sum[r][c])
        );

        // The forwarding outputs of the last column (a) and the last row
        // (b) go nowhere. Lint waivers by name.
        if (c == Cols - 1) begin : g_a_end
          wire unused_a = ^a_o;
        end
        if (r == Rows - 1) begin : g_b_end
          wire unused_b = ^b_o;
        end
      end
    end

    // Written only on a row read (Rows cycles per tile), so the verilated
    // model reads the PE sums only then; filled lane by lane (STYLE rule 8).
    always @(posedge clk_i) begin
      if (|row_read_i) begin
        for (int r = 0; r < Rows; r++) begin
          if (row_read_i[r]) begin
            for (int c = 0; c < Cols; c++) row_sum_q[c*32+:32] <= sum[r][c][read_lane*32+:32];
          end
        end
      end
    end

    assign row_sum_o = row_sum_q;
  end

endmodule

`default_nettype wire
