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
// AccStages = 4, the array of the PE for FPGA clock rates (sa_pe.v): each PE
// holds four sums, the slot of a step the phase of the cycle it is on the
// inputs (cycles since reset, mod 4), so the array computes up to four tiles
// interleaved, a tile's steps all in cycles of one phase (four cycles apart,
// or a multiple of four where there are gaps). A PE loads a finished sum 5
// cycles after its stage 2 instead of 2, and keeps one per slot. The tiles
// leave in the order their last steps came, each tile's rows 0 .. Rows-1 in
// consecutive cycles: a tile whose row 0 is ready (X + Cols + 4) while the
// rows of another are still going out waits in a queue of four. Alone,
//   ArrayLatency = Cols + 5,
// and a group of four tiles with last steps in X .. X+3 leaves in 4 x Rows
// cycles from X + Cols + 5. Timing rule (asserted): no PE's sum of a slot
// is replaced before its row was read, i.e. a tile's last step comes no
// earlier than S - 4 for the previous tile of its slot, read from cycle S;
// for full groups with last steps X .. X+3 and then X' .. X'+3 that is
// X' - X >= Cols + 3 (Rows - 1).
//
// The grid of PEs and its row read are sa_grid, in two forms that compute
// the same (PeLoop: Rows x Cols sa_pe instances for synthesis, or one loop
// over the PE registers for the verilated models; see sa_grid.v). This
// module is the wrapper around it: the operand skew at its inputs, the flag
// pipeline, the output row's valid, and the array's assertions.

`default_nettype none

module sa_array #(
    parameter int Rows   = 8,  // PE rows: rows of op(A) in one tile
    parameter int Cols   = 8,  // PE columns: columns of op(B) in one tile
    parameter int PeLoop = 0,  // the grid: 0 sa_pe instances, 1 one loop (sa_grid)
    parameter int AccStages = 1  // the PEs' accumulator stages: 1, or 4 (four tiles interleaved)
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
  // The last flag goes on to the taps of the row reads (AccStages = 1) or of
  // the drain queue and the assertions (4): Rows + Cols + AccStages - 1.
  localparam int Taps = Rows + Cols;  // d + 2 <= Rows + Cols
  localparam int LastTaps = Taps + AccStages - 1;

  if (AccStages != 1 && AccStages != 4) begin : g_bad_acc
    cmn_param_error_AccStages_must_be_1_or_4 u_err ();
  end

  reg  [    Taps-1:1] valid_q;
  reg  [    Taps-1:1] clear_q;
  reg  [  LastTaps:1] last_q;
  wire [    Taps-1:0] valid = {valid_q, step_valid_i};
  wire [    Taps-1:0] clear = {clear_q, step_valid_i && step_clear_i};
  wire [  LastTaps:0] last = {last_q, step_valid_i && step_last_i};
  reg  [         1:0] phase_q;  // cycles since reset mod 4: the slot of a step on the inputs

  always @(posedge clk_i) begin
    if (rst_i) begin
      valid_q <= '0;
      clear_q <= '0;
      last_q  <= '0;
      phase_q <= '0;
    end else begin
      valid_q <= valid[Taps-2:0];
      clear_q <= clear[Taps-2:0];
      last_q  <= last[LastTaps-1:0];
      phase_q <= phase_q + 2'd1;
    end
  end

  // ---------------------------------------------------------------- skew
  // Operands of the PEs on the left and top edges: lane r of step_a_i delayed
  // r cycles (lane r of a_edge), lane c of step_b_i c cycles (lane c of
  // b_edge).
  wire [Rows*16-1:0] a_edge;
  wire [Cols*16-1:0] b_edge;

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
    assign a_edge[r*16+:16] = q;
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
    assign b_edge[c*16+:16] = q;
  end

  // ---------------------------------------------------------------- grid and row out
  // PE (r, Cols-1) loads its sum at tap r + Cols + AccStages; from then on
  // the whole row r can be read (every column of it is done).
  wire [Rows-1:0] row_read;
  wire [     1:0] read_slot;
  reg             row_valid_q;

  if (AccStages == 1) begin : g_read1
    // Row r in the cycle it is done, one row at a time by the timing rule:
    // the row reads are a slice of the last-flag pipeline.
    assign row_read  = last[Rows+Cols:Cols+1];
    assign read_slot = 2'd0;
  end else begin : g_read4
    // The drain: a tile joins the queue (its slot) the cycle before its row 0
    // is done (tap Cols + 3), and the reader takes the queue's head when it
    // is idle or reading the last row of a tile, so a lone tile's rows are
    // read as they are done and a group's tiles follow back to back.
    localparam int RowW = Rows > 1 ? $clog2(Rows) : 1;
    wire           push = last[Cols+3];
    wire [     1:0] push_slot = phase_q - 2'(Cols + 3);  // the slot of the step at that tap
    reg            busy_q;      // reading row row_q of slot slot_q in this cycle
    reg [RowW-1:0] row_q;
    reg [     1:0] slot_q;
    reg [     1:0] queue_q[4];  // waiting tiles' slots, head at 0
    reg [     2:0] count_q;
    wire           free = !busy_q || row_q == RowW'(Rows - 1);  // a tile can start next cycle
    wire           take = free && (count_q != 0 || push);
    wire           pop = take && count_q != 0;
    wire           enq = push && !(take && count_q == 0);

    always @(posedge clk_i) begin
      if (rst_i) begin
        busy_q  <= 1'b0;
        count_q <= '0;
      end else begin
        busy_q  <= take || (busy_q && row_q != RowW'(Rows - 1));
        count_q <= count_q - 3'(pop) + 3'(enq);
      end
      if (take) begin
        row_q  <= '0;
        slot_q <= pop ? queue_q[0] : push_slot;
      end else begin
        row_q <= row_q + 1'b1;
      end
      if (pop) begin
        queue_q[0] <= queue_q[1];
        queue_q[1] <= queue_q[2];
        queue_q[2] <= queue_q[3];
      end
      if (enq) queue_q[count_q[1:0]-2'(pop)] <= push_slot;
    end

    for (genvar r = 0; r < Rows; r++) begin : g_row_read
      assign row_read[r] = busy_q && row_q == RowW'(r);
    end
    assign read_slot = slot_q;

`ifndef SYNTHESIS
    always @(posedge clk_i) begin
      if (!rst_i) begin
        assert (!(enq && count_q - 3'(pop) == 3'd4))
        else $error("sa_array: a fifth tile waits to be read (tiles too close)");
      end
    end
`endif
  end

  always @(posedge clk_i) begin
    if (rst_i) row_valid_q <= 1'b0;
    else row_valid_q <= |row_read;
  end

  assign row_valid_o = row_valid_q;

  sa_grid #(
      .Rows  (Rows),
      .Cols  (Cols),
      .PeLoop(PeLoop),
      .AccStages(AccStages)
  ) u_grid (
      .clk_i     (clk_i),
      .a_edge_i  (a_edge),
      .b_edge_i  (b_edge),
      .valid_i   (valid),
      .clear_i   (clear),
      .last_i    (last[Taps-1:0]),
      .row_read_i(row_read),
      .phase_i   (phase_q),
      .read_slot_i(read_slot),
      .row_sum_o (row_sum_o)
  );

`ifndef SYNTHESIS
  // The slot of the step at tap j.
  function automatic [1:0] tap_slot(input [1:0] j);  // j mod 4
    tap_slot = AccStages == 1 ? 2'd0 : phase_q - j;
  endfunction

  // Timing rule: at most one row leaves per cycle, and PE (r, 0)'s sum of a
  // slot is not replaced before row r of that slot was read (pending_q:
  // loaded, not yet read). PE (r, 0) loads its sum at tap r + 1 + AccStages,
  // and the new sum shows in that cycle, so a reload in the reading cycle is
  // too early as well; a row read in its load's cycle reads the new sum
  // (with Cols == 1 column 0 is the last column: that is the design).
  for (genvar s = 0; s < AccStages; s++) begin : g_rule_slot
    for (genvar r = 0; r < Rows; r++) begin : g_rule_row
      wire ld = last[r+1+AccStages] && tap_slot(2'(r + 1 + AccStages)) == 2'(s);
      wire rd = row_read[r] && read_slot == 2'(s);
      reg  pending_q;
      always @(posedge clk_i) begin
        if (rst_i) begin
          pending_q <= 1'b0;
        end else begin
          pending_q <= (pending_q || ld) && !rd;
          assert (!(ld && pending_q))
          else $error("sa_array: row %0d of slot %0d reloaded before it was read (tiles too close)", r, s);
          assert (!(rd && !ld && !pending_q))
          else $error("sa_array: row %0d of slot %0d read with no finished sum", r, s);
        end
      end
    end
  end

  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert ((row_read & (row_read - 1'b1)) == '0)
      else $error("sa_array: two rows finish in one cycle (tiles too close)");
    end
  end

  // The PE's rules, checked once per array rather than in every PE:
  // a step without clear needs an accumulator cleared since reset (per
  // anti-diagonal: all its PEs see the same steps), and the sums that leave
  // the array are never subnormal or non-canonical NaNs (sa_pe_cell checks
  // every product and every partial sum of the PE's datapath in its test).
  // With four stages, per slot.
  for (genvar s = 0; s < AccStages; s++) begin : g_live_slot
    for (genvar j = 1; j < Taps; j++) begin : g_live_tap
      reg live_q;  // anti-diagonal j - 1's sum of slot s has seen a clear at its stage 2
      wire mine = tap_slot(2'(j)) == 2'(s);
      always @(posedge clk_i) begin
        if (rst_i) begin
          live_q <= 1'b0;
        end else if (mine) begin
          live_q <= live_q || clear[j];
          assert (!(valid[j] && !clear[j] && !live_q))
          else $error("sa_array: step without clear into an accumulator never cleared since reset");
        end
      end
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
