// sa_array: Rows x Cols output-stationary systolic array of sa_pe, with the
// operand skew at its inputs and the result de-skew at its output.
//
// In: one k-step per cycle, unskewed: lane r of step_a_i is op(A)[i0+r][k],
// lane c of step_b_i is op(B)[k][j0+c], with the PE flags (clear on the
// tile's first step, last on its last step). Row r's operand is delayed r
// cycles and column c's c cycles, and the operands travel through the PEs
// (a to the right, b down), so PE (r, c) sees a step r + c cycles after it is
// on the inputs, with its own operands. The flags of that step reach it from
// one shift register per flag shared by the whole grid (every PE of an
// anti-diagonal sees the same step in the same cycle), not through the PEs.
//
// Out: the finished tile, one row per cycle, rows 0 .. Rows-1 in order, all
// Cols sums of a row at once (row_sum_o lane c = C[i0+r][j0+c]). With the
// tile's last step on the inputs in cycle X:
//   PE (r, c) loads its sum_o in cycle X + r + c + 2 (SA_PE_SUM_LATENCY 2);
//   row r is read from the PEs in cycle X + r + Cols + 1, when the last
//     column's sum appears (every column of the row is done by then);
//   row_valid_o/row_sum_o show row r in cycle X + r + Cols + 2 (registered).
// So the latency from the last step to row r on the outputs is
//   ArrayLatency + r, ArrayLatency = Cols + 2.
//
// Timing rule (the caller's, checked by assertions here): the last steps of
// consecutive tiles are at least max(Rows, Cols) cycles apart. Rows cycles
// keep the output rows of two tiles from overlapping; Cols cycles keep PE
// (r, 0)'s sum_o held until it is read Cols - 1 cycles after it was loaded
// (sa_pe holds sum_o until the next tile's last step retires).
//
// There is no ready anywhere: the array takes whatever step is offered each
// cycle, and its output row is valid for one cycle. The core's sequencer
// (core_cmd) times everything so that nothing needs to wait.
//
// Two forms of the grid, the same registers and arithmetic, the same results
// and timing (the core's tests check both against the C twin):
//   PeLoop = 0  Rows x Cols sa_pe instances: the hardware as it is drawn,
//               and what synthesis builds (Yosys synthesizes the PE once and
//               counts it per instance; flattened, its resource-sharing pass
//               compares every PE with every other one: 0.8 s for a 2x2
//               array becomes 15 s, and an 8x8 does not finish).
//   PeLoop = 1  one clocked loop over arrays of the PE registers, for the
//               verilated models: the simulator emits one copy of the
//               evaluation code per instance, and 64 copies of the PE's
//               arithmetic are more code than the host's instruction front
//               end keeps up with (the 8x8 core ran 11 G instructions per
//               second, the 1x1 17 G). The loop keeps one copy per column
//               (the inner loop is unrolled while it is short) and runs the
//               8x8 core at 1.07 M cycles/s instead of 0.92 M, the 16x16 at
//               0.34 M instead of 0.22 M (rtl/core/README.md, Performance).
// The verilated models of rtl/core/block.mk say which form each one uses.

`default_nettype none

module sa_array #(
    parameter int Rows   = 8,  // PE rows: rows of op(A) in one tile
    parameter int Cols   = 8,  // PE columns: columns of op(B) in one tile
    parameter int PeLoop = 0   // 0: sa_pe instances; 1: one loop (see above)
) (
    input  wire                 clk_i,
    input  wire                 rst_i,
    // One k-step in (no backpressure).
    input  wire                 step_valid_i,
    input  wire                 step_clear_i,  // first step of a tile
    input  wire                 step_last_i,   // last step of a tile
    input  wire [Rows*16-1:0]   step_a_i,      // lane r: op(A)[i0+r][k], bf16
    input  wire [Cols*16-1:0]   step_b_i,      // lane c: op(B)[k][j0+c], bf16
    // One finished row per cycle out (no backpressure).
    output wire                 row_valid_o,
    output wire [Cols*32-1:0]   row_sum_o      // lane c: C[i0+r][j0+c], fp32
);

  if (Rows < 1 || Rows > 64) begin : g_bad_rows
    cmn_param_error_Rows_must_be_1_to_64 u_err ();
  end
  if (Cols < 1 || Cols > 64) begin : g_bad_cols
    cmn_param_error_Cols_must_be_1_to_64 u_err ();
  end

  // ---------------------------------------------------------------- flags
  // Every PE of anti-diagonal d = r + c sees a step d cycles after it is on
  // the inputs, so one shift register per flag serves the whole grid: tap j
  // is the step that was on the inputs j cycles ago. PE (r, c) takes tap d
  // (valid: form the product) and tap d + 1 (its stage 2: add, clear, last);
  // its sum is loaded at tap d + 2. Clear and last are gated by valid once,
  // here, and are control state (reset), like valid.
  localparam int Taps = Rows + Cols;  // d + 2 <= Rows + Cols

  reg  [Taps-1:1] valid_q;
  reg  [Taps-1:1] clear_q;
  reg  [  Taps:1] last_q;
  wire [Taps-1:0] valid = {valid_q, step_valid_i};
  wire [Taps-1:0] clear = {clear_q, step_valid_i && step_clear_i};
  wire [  Taps:0] last = {last_q, step_valid_i && step_last_i};

  always @(posedge clk_i) begin
    if (rst_i) begin
      valid_q <= '0;
      clear_q <= '0;
      last_q  <= '0;
    end else begin
      valid_q <= valid[Taps-2:0];
      clear_q <= clear[Taps-2:0];
      last_q  <= last[Taps-1:0];
    end
  end

  // ---------------------------------------------------------------- skew
  // Operands of the PEs on the left and top edges: lane r of step_a_i delayed
  // r cycles (a_edge[r]), lane c of step_b_i c cycles (b_edge[c]).
  wire [15:0] a_edge[Rows];
  wire [15:0] b_edge[Cols];

  for (genvar r = 0; r < Rows; r++) begin : g_askew
    wire [15:0] q;
    cmn_delay #(
        .Width(16),
        .Depth(r)
    ) u_dly (
        .clk_i(clk_i),
        .d_i  (step_a_i[r*16+:16]),
        .q_o  (q)
    );
    assign a_edge[r] = q;
  end

  for (genvar c = 0; c < Cols; c++) begin : g_bskew
    wire [15:0] q;
    cmn_delay #(
        .Width(16),
        .Depth(c)
    ) u_dly (
        .clk_i(clk_i),
        .d_i  (step_b_i[c*16+:16]),
        .q_o  (q)
    );
    assign b_edge[c] = q;
  end

  // ---------------------------------------------------------------- grid
  // Both grids compute the same thing, PE (r, c) as in sa_pe with the same
  // arithmetic (bf16_mul, fp32_add): operands on to the right and down, the
  // product of a step on valid (tap r + c), and on the step's stage 2 (tap
  // r + c + 1) the accumulator loaded with the product (clear) or with the
  // sum, the finished sum copied on last. And both read the finished tile
  // one row per cycle: PE (r, Cols-1) loads its sum at tap r + Cols + 1;
  // that cycle reads the whole row r (every column of it is done by then),
  // one row at a time by the timing rule, so the strobes are a slice of the
  // last-flag pipeline.
  wire [Rows-1:0] strobe = last[Rows+Cols:Cols+1];
  reg             row_valid_q;

  always @(posedge clk_i) begin
    if (rst_i) row_valid_q <= 1'b0;
    else row_valid_q <= |strobe;
  end

  assign row_valid_o = row_valid_q;

  if (PeLoop != 0) begin : g_loop
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
      if (|strobe) begin
        for (int r = 0; r < Rows; r++) begin
          if (strobe[r]) begin
            for (int c = 0; c < Cols; c++) row_sum_q[c*32+:32] <= sum_q[r][c];
          end
        end
      end
      for (int r = Rows - 1; r >= 0; r--) begin
        for (int c = Cols - 1; c >= 0; c--) begin
          if (valid[r+c+1]) begin
            acc_q[r][c] = clear[r+c+1] ? prod_q[r][c] : fp32_add(acc_q[r][c], prod_q[r][c]);
            if (last[r+c+1]) sum_q[r][c] = acc_q[r][c];
          end
          a_q[r][c] = c > 0 ? a_q[r][c-1] : a_edge[r];
          b_q[r][c] = r > 0 ? b_q[r-1][c] : b_edge[c];
          if (valid[r+c]) prod_q[r][c] = bf16_mul(a_q[r][c], b_q[r][c]);
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
    // an array, for the row read.
    wire [31:0] sum[Rows][Cols];
    reg [Cols*32-1:0] row_sum_q;

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

        sa_pe u_pe (
            .clk_i     (clk_i),
            .valid_i   (valid[r+c]),
            .a_i       (a_in),
            .b_i       (b_in),
            .a_o       (a_o),
            .b_o       (b_o),
            .s2_valid_i(valid[r+c+1]),
            .s2_clear_i(clear[r+c+1]),
            .s2_last_i (last[r+c+1]),
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

    // Written only in a strobe cycle (Rows cycles per tile), so the verilated
    // model reads the PE sums only then; filled lane by lane (STYLE rule 8).
    always @(posedge clk_i) begin
      if (|strobe) begin
        for (int r = 0; r < Rows; r++) begin
          if (strobe[r]) begin
            for (int c = 0; c < Cols; c++) row_sum_q[c*32+:32] <= sum[r][c];
          end
        end
      end
    end

    assign row_sum_o = row_sum_q;
  end

`ifndef SYNTHESIS
  // Timing rule: at most one row leaves per cycle, and PE (r, 0) is not
  // reloaded before row r was read (pending_q[r]: loaded, not yet read).
  // PE (r, 0) loads its sum at tap r + 2.
  wire [Rows-1:0] loaded = last[Rows+1:2];
  reg  [Rows-1:0] pending_q;
  always @(posedge clk_i) begin
    if (rst_i) begin
      pending_q <= '0;
    end else begin
      pending_q <= loaded | (pending_q & ~strobe);
      // A reload shows the new sum in the cycle its tap is high, so a reload
      // in the reading cycle is too early as well. With Cols == 1 column 0
      // is the last column: load and read coincide by design.
      if (Cols > 1) begin
        assert ((loaded & pending_q) == '0)
        else
          $error("sa_array: row reloaded before it was read (tiles too close): %b",
                 loaded & pending_q);
      end
      assert ((strobe & (strobe - 1'b1)) == '0)
      else $error("sa_array: two rows finish in one cycle (tiles too close)");
    end
  end

  // The PE's rules, checked once per array rather than in every PE:
  // a step without clear needs an accumulator cleared since reset (per
  // anti-diagonal: all its PEs see the same steps), and the sums that leave
  // the array are never subnormal or non-canonical NaNs (sa_pe_cell checks
  // every product and every partial sum of the PE's datapath in its test).
  reg [Taps-2:0] live_q;  // anti-diagonal d has seen a clear at its stage 2
  always @(posedge clk_i) begin
    if (rst_i) begin
      live_q <= '0;
    end else begin
      live_q <= live_q | clear[Taps-1:1];
      assert ((valid[Taps-1:1] & ~clear[Taps-1:1] & ~live_q) == '0)
      else $error("sa_array: step without clear into an accumulator never cleared since reset");
    end
  end

  always @(posedge clk_i) begin
    if (!rst_i && row_valid_q) begin
      for (int c = 0; c < Cols; c++) begin
        assert (row_sum_o[c*32+23+:8] != 8'd0 || row_sum_o[c*32+:23] == 23'd0)
        else $error("sa_array: subnormal sum %h in lane %0d", row_sum_o[c*32+:32], c);
        assert (row_sum_o[c*32+23+:8] != 8'hFF || row_sum_o[c*32+:23] == 23'd0 ||
                row_sum_o[c*32+:32] == 32'h7FC0_0000)
        else $error("sa_array: non-canonical NaN sum %h in lane %0d", row_sum_o[c*32+:32], c);
      end
    end
  end
`endif

endmodule

`default_nettype wire
