// sa_array: Rows x Cols output-stationary systolic array of sa_pe, with the
// operand skew at its inputs and the result de-skew at its output.
//
// In: one k-step per cycle, unskewed: lane r of step_a_i is op(A)[i0+r][k],
// lane c of step_b_i is op(B)[k][j0+c], with the PE flags (clear on the
// tile's first step, last on its last step). Row r's operand is delayed r
// cycles and column c's c cycles, and the flags travel through the PEs
// (down column 0, then right along each row), so PE (r, c) sees a step
// r + c cycles after it is on the inputs, with its own operands.
//
// Out: the finished tile, one row per cycle, rows 0 .. Rows-1 in order, all
// Cols sums of a row at once (row_sum_o lane c = C[i0+r][j0+c]). With the
// tile's last step on the inputs in cycle X:
//   PE (r, c) loads its sum_o in cycle X + r + c + 2 (SA_PE_SUM_LATENCY 2);
//   row r is read from the PEs in cycle X + r + Cols + 1, when the last
//     column's sum_valid_o pulses (every column of the row is done by then);
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

`default_nettype none

module sa_array #(
    parameter int Rows = 8,  // PE rows: rows of op(A) in one tile
    parameter int Cols = 8   // PE columns: columns of op(B) in one tile
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

  // ---------------------------------------------------------------- skew
  // Operands of the PEs on the left and top edges, delayed by row/column.
  wire [15:0] a_edge[Rows];
  wire [15:0] b_edge[Cols];

  assign a_edge[0] = step_a_i[15:0];
  for (genvar r = 1; r < Rows; r++) begin : g_askew
    reg [15:0] dly_q[r];  // dly_q[s]: lane r delayed s + 1 cycles
    always @(posedge clk_i) begin
      dly_q[0] <= step_a_i[r*16+:16];
      for (int s = 1; s < r; s++) dly_q[s] <= dly_q[s-1];
    end
    assign a_edge[r] = dly_q[r-1];
  end

  assign b_edge[0] = step_b_i[15:0];
  for (genvar c = 1; c < Cols; c++) begin : g_bskew
    reg [15:0] dly_q[c];
    always @(posedge clk_i) begin
      dly_q[0] <= step_b_i[c*16+:16];
      for (int s = 1; s < c; s++) dly_q[s] <= dly_q[s-1];
    end
    assign b_edge[c] = dly_q[c-1];
  end

  // ---------------------------------------------------------------- grid
  // Outputs of PE (r, c); the inputs of a PE are its left/top neighbour's
  // outputs, or the edge. Flags: PE (r, 0) from above, PE (r, c > 0) from
  // the left (every PE of an anti-diagonal sees the same step).
  wire [15:0] a_out    [Rows][Cols];
  wire [15:0] b_out    [Rows][Cols];
  wire        valid_out[Rows][Cols];
  wire        clear_out[Rows][Cols];
  wire        last_out [Rows][Cols];
  wire        sum_valid[Rows][Cols];
  wire [31:0] sum      [Rows][Cols];

  for (genvar r = 0; r < Rows; r++) begin : g_row
    for (genvar c = 0; c < Cols; c++) begin : g_col
      wire        valid_in;
      wire        clear_in;
      wire        last_in;
      wire [15:0] a_in;
      wire [15:0] b_in;

      if (c > 0) begin : g_from_left
        assign valid_in = valid_out[r][c-1];
        assign clear_in = clear_out[r][c-1];
        assign last_in  = last_out[r][c-1];
        assign a_in     = a_out[r][c-1];
      end else if (r > 0) begin : g_from_top
        assign valid_in = valid_out[r-1][0];
        assign clear_in = clear_out[r-1][0];
        assign last_in  = last_out[r-1][0];
        assign a_in     = a_edge[r];
      end else begin : g_corner
        assign valid_in = step_valid_i;
        assign clear_in = step_valid_i && step_clear_i;
        assign last_in  = step_valid_i && step_last_i;
        assign a_in     = a_edge[0];
      end
      if (r > 0) begin : g_b_from_top
        assign b_in = b_out[r-1][c];
      end else begin : g_b_edge
        assign b_in = b_edge[c];
      end

      sa_pe u_pe (
          .clk_i      (clk_i),
          .rst_i      (rst_i),
          .valid_i    (valid_in),
          .clear_i    (clear_in),
          .last_i     (last_in),
          .a_i        (a_in),
          .b_i        (b_in),
          .valid_o    (valid_out[r][c]),
          .clear_o    (clear_out[r][c]),
          .last_o     (last_out[r][c]),
          .a_o        (a_out[r][c]),
          .b_o        (b_out[r][c]),
          .sum_valid_o(sum_valid[r][c]),
          .sum_o      (sum[r][c])
      );
    end
  end

  // The forwarding outputs of the last row and column go nowhere (in a 1x1
  // array no forwarding output is used at all). Lint waiver by name.
  wire unused_fwd = ^{
    a_out[Rows-1][Cols-1],
    b_out[Rows-1][Cols-1],
    valid_out[Rows-1][Cols-1],
    clear_out[Rows-1][Cols-1],
    last_out[Rows-1][Cols-1]
  };

  // ---------------------------------------------------------------- de-skew
  // The last column's sum_valid pulses for row r in cycle X + r + Cols + 1:
  // that pulse reads the whole row (one-hot over rows by the timing rule).
  reg  [Rows-1:0] strobe;
  reg             row_valid_q;
  reg [Cols*32-1:0] row_sum_q;
  reg [Cols*32-1:0] row_sum_d;

  always @* begin
    for (int r = 0; r < Rows; r++) strobe[r] = sum_valid[r][Cols-1];
  end

  // AND-OR mux over the rows, filled lane by lane (STYLE rule 8).
  always @* begin
    row_sum_d = '0;
    for (int r = 0; r < Rows; r++) begin
      if (strobe[r]) begin
        for (int c = 0; c < Cols; c++) row_sum_d[c*32+:32] = row_sum_d[c*32+:32] | sum[r][c];
      end
    end
  end

  always @(posedge clk_i) begin
    if (rst_i) row_valid_q <= 1'b0;
    else row_valid_q <= |strobe;
  end

  always @(posedge clk_i) begin
    if (|strobe) row_sum_q <= row_sum_d;
  end

  assign row_valid_o = row_valid_q;
  assign row_sum_o   = row_sum_q;

`ifndef SYNTHESIS
  // Timing rule: at most one row leaves per cycle, and PE (r, 0) is not
  // reloaded before row r was read (pending_q[r]: loaded, not yet read).
  reg [Rows-1:0] pending_q;
  always @(posedge clk_i) begin
    if (rst_i) begin
      pending_q <= '0;
    end else begin
      for (int r = 0; r < Rows; r++) begin
        if (sum_valid[r][0]) pending_q[r] <= 1'b1;
        else if (strobe[r]) pending_q[r] <= 1'b0;
        // A reload shows the new sum in the cycle its sum_valid pulses, so a
        // reload in the reading cycle is too early as well. With Cols == 1
        // column 0 is the last column: load and read coincide by design.
        if (Cols > 1) begin
          assert (!(sum_valid[r][0] && pending_q[r]))
          else $error("sa_array: row %0d reloaded before it was read (tiles too close)", r);
        end
      end
      assert ((strobe & (strobe - 1'b1)) == '0)
      else $error("sa_array: two rows finish in one cycle (tiles too close)");
    end
  end
`endif

endmodule

`default_nettype wire
