// core_cmd: the command and completion ports of the compute core. Takes one
// GEMM command at a time, validates it, derives the word-level geometry the
// sequencer and the write-back need, starts them, and reports completion
// with a status and a cycle count.
//
// Command semantics, the field table and the error codes: rtl/core/README.md
// (the C twin models/core/core_twin.c mirrors every check here).
//
// Timeline of one command (cycle a: cmd_valid_i && cmd_ready_o):
//   a+1      StateCheck: the checks and the derived geometry are computed and
//            registered;
//   a+2      StateRun until the write-back reports the last row; start_o pulses
//            in this first cycle (busy_o is high from a+1 to StateDone);
//   ...      the last result row is written in the cycle wb_last_i is high
//            (its write lands at the end of that cycle);
//   then     StateDone for one cycle: the completion enters the output skid
//            buffer and leaves it in the next cycle.
// cycles = (cycle of the last write) - a, i.e. the number of clock edges from
// the accepting edge to the edge that writes the last result row. A bad
// command goes StateCheck -> StateDone with its status and cycles = 0; it starts
// nothing and writes nothing.
//
// A command is accepted only while idle and while the completion skid buffer
// has room, so a finished command never waits for done_ready_i: the count
// depends on the command alone (see the formula in rtl/core/README.md).

`default_nettype none

module core_cmd #(
    parameter int W      = 8,    // elements per SRAM word (core_top)
    parameter int AWords = 512,  // A-pad words
    parameter int BWords = 512,  // B-pad words
    parameter int CWords = 512,  // C-pad words
    localparam int AAw = AWords > 1 ? $clog2(AWords) : 1,
    localparam int BAw = BWords > 1 ? $clog2(BWords) : 1,
    localparam int CAw = CWords > 1 ? $clog2(CWords) : 1
) (
    input  wire           clk_i,
    input  wire           rst_i,
    // command port
    input  wire           cmd_valid_i,
    output wire           cmd_ready_o,
    input  wire [   31:0] cmd_m_i,
    input  wire [   31:0] cmd_n_i,
    input  wire [   31:0] cmd_k_i,
    input  wire [   31:0] cmd_a_addr_i,
    input  wire [   31:0] cmd_b_addr_i,
    input  wire [   31:0] cmd_c_addr_i,
    input  wire [   31:0] cmd_lda_i,
    input  wire [   31:0] cmd_ldb_i,
    input  wire [   31:0] cmd_ldc_i,
    input  wire           cmd_trans_a_i,
    input  wire           cmd_trans_b_i,
    input  wire           cmd_accumulate_i,
    // completion port
    output wire           done_valid_o,
    input  wire           done_ready_i,
    output wire [    2:0] done_status_o,
    output wire [   31:0] done_cycles_o,
    // the validated command, held while run_o is high
    output wire           busy_o,        // from the accepting edge to the completion
    output wire           start_o,       // the command passed its checks: start
    output wire [   15:0] m_o,
    output wire [   15:0] n_o,
    output wire [   15:0] k_o,
    output wire           trans_a_o,
    output wire           trans_b_o,
    output wire           accumulate_o,
    output wire [AAw-1:0] a_word_o,      // a_addr / W
    output wire [AAw-1:0] lda_word_o,    // lda / W
    output wire [BAw-1:0] b_word_o,
    output wire [BAw-1:0] ldb_word_o,
    output wire [CAw-1:0] c_word_o,
    output wire [CAw-1:0] ldc_word_o,
    // end of the command: the write-back writes the last row this cycle
    input  wire           wb_last_i
);

  if (W < 1) begin : g_bad_w
    cmn_param_error_W_must_be_at_least_1 u_err ();
  end

  // Completion status codes; C: enum core_status.
  localparam logic [2:0] StatusOk = 3'd0;  // C: CORE_OK
  localparam logic [2:0] StatusErrDim = 3'd1;  // M, N or K is 0 or >= 2^16; C: CORE_ERR_DIM
  localparam logic [2:0] StatusErrLd = 3'd2;  // a leading dim below its row length; C: CORE_ERR_LD
  // an address or a leading dim not a multiple of W
  localparam logic [2:0] StatusErrAlign = 3'd3;  // C: CORE_ERR_ALIGN
  localparam logic [2:0] StatusErrRange = 3'd4;  // an element outside its pad; C: CORE_ERR_RANGE

  localparam logic [2:0] StateIdle = 3'd0;
  localparam logic [2:0] StateCheck = 3'd1;
  localparam logic [2:0] StateRun = 3'd2;
  localparam logic [2:0] StateDone = 3'd3;

  localparam logic [31:0] DimMax = 32'd65535;  // M, N and K at most; C: CORE_DIM_MAX
  localparam logic [63:0] AElems = 64'(AWords) * 64'(W);
  localparam logic [63:0] BElems = 64'(BWords) * 64'(W);
  localparam logic [63:0] CElems = 64'(CWords) * 64'(W);

  // The range check: is an operand's last element, addr + (rows-1) * ld + cols - 1, at or
  // past the E elements of its pad? Its answer is used only when the dimension and
  // leading-dimension checks have passed (check_status takes the first failure), so then
  // 1 <= cols <= ld and rows - 1 < 65535. It is decided on Pb = clog2(largest pad) bits
  // rather than in 64-bit arithmetic (which needs three 16 x 32-bit multipliers): an addr, a
  // ld with rows > 1, a rows - 1 or a cols - 1 of 2^Pb or more alone puts the last element
  // past every pad; otherwise each term is below 2^Pb and the sum is exact in 2 Pb + 2 bits.
  // Same answer as the wide sum, for a fraction of the logic (the C twin computes the wide one).
  localparam logic [63:0] PadMax = AElems > BElems ? (AElems > CElems ? AElems : CElems) :
      (BElems > CElems ? BElems : CElems);
  localparam int Pb = PadMax > 1 ? $clog2(PadMax) : 1;
  localparam logic [47:0] Far = 48'd1 << Pb;

  if (Pb > 32) begin : g_bad_pads
    cmn_param_error_a_pad_holds_at_most_2_to_the_32_elements u_err ();
  end

  function automatic logic past_pad(input logic [31:0] addr, input logic [15:0] rows_m1,
                                    input logic [31:0] ld, input logic [15:0] cols,
                                    input logic [2*Pb+1:0] elems);
    logic [    47:0] r, c;  // rows_m1 and cols, wide enough to slice at any Pb <= 32
    logic [2*Pb+1:0] last;
    logic            far;
    r = 48'(rows_m1);
    c = 48'(cols);
    far = 48'(addr) >= Far || (r != 48'd0 && 48'(ld) >= Far) || r >= Far || c > Far;
    last = (2 * Pb + 2)'(addr[Pb-1:0]) + (2 * Pb + 2)'(r[Pb-1:0]) * (2 * Pb + 2)'(ld[Pb-1:0]) +
        (2 * Pb + 2)'(c[Pb:0]) - (2 * Pb + 2)'(1);
    past_pad = far || last >= elems;
  endfunction

  reg  [ 2:0] state_q;
  reg  [31:0] m_q, n_q, k_q, a_addr_q, b_addr_q, c_addr_q, lda_q, ldb_q, ldc_q;
  reg         trans_a_q, trans_b_q, accumulate_q;
  reg  [ 2:0] status_q;
  reg  [31:0] elapsed_q;  // edges since the accepting edge, minus one
  reg  [31:0] cycles_q;

  wire        skid_ready;
  // Ready while idle and while the completion skid buffer has room (both
  // registers): the skid fills only from our own completions, so a command
  // accepted now can always complete without waiting for done_ready_i.
  wire        ready = state_q == StateIdle && skid_ready;
  wire        accept = cmd_valid_i && ready;

  // ---------------------------------------------------------------- checks
  // Rows and columns of each stored operand. The range check only matters
  // when the dims are good (1 .. 65535), so rows - 1 fits 16 bits and each
  // product 48; the sums are formed in 64 bits and nothing wraps.
  wire [15:0] m16 = m_q[15:0];
  wire [15:0] n16 = n_q[15:0];
  wire [15:0] k16 = k_q[15:0];
  wire [15:0] a_rows = trans_a_q ? k16 : m16;
  wire [15:0] a_cols = trans_a_q ? m16 : k16;
  wire [15:0] b_rows = trans_b_q ? n16 : k16;
  wire [15:0] b_cols = trans_b_q ? k16 : n16;

  wire dims_bad = m_q == 0 || n_q == 0 || k_q == 0 || m_q > DimMax || n_q > DimMax ||
      k_q > DimMax;
  wire ld_bad = lda_q < 32'(a_cols) || ldb_q < 32'(b_cols) || ldc_q < 32'(n16);
  wire align_bad = a_addr_q % W != 0 || b_addr_q % W != 0 || c_addr_q % W != 0 ||
      lda_q % W != 0 || ldb_q % W != 0 || ldc_q % W != 0;
  // Last element of each operand (valid dims: rows, cols >= 1).
  wire [15:0] a_rows_m1 = a_rows - 16'd1;
  wire [15:0] b_rows_m1 = b_rows - 16'd1;
  wire [15:0] c_rows_m1 = m16 - 16'd1;
  wire range_bad = past_pad(a_addr_q, a_rows_m1, lda_q, a_cols, (2 * Pb + 2)'(AElems)) ||
      past_pad(b_addr_q, b_rows_m1, ldb_q, b_cols, (2 * Pb + 2)'(BElems)) ||
      past_pad(c_addr_q, c_rows_m1, ldc_q, n16, (2 * Pb + 2)'(CElems));

  reg [2:0] check_status;
  always @* begin
    if (dims_bad) check_status = StatusErrDim;
    else if (ld_bad) check_status = StatusErrLd;
    else if (align_bad) check_status = StatusErrAlign;
    else if (range_bad) check_status = StatusErrRange;
    else check_status = StatusOk;
  end

  // ---------------------------------------------------------------- state
  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q <= StateIdle;
    end else begin
      case (state_q)
        StateIdle: if (accept) state_q <= StateCheck;
        StateCheck: state_q <= check_status == StatusOk ? StateRun : StateDone;
        StateRun: if (wb_last_i) state_q <= StateDone;
        default: state_q <= StateIdle;  // StateDone: the completion is pushed
      endcase
    end
  end

  always @(posedge clk_i) begin
    if (accept) begin
      m_q          <= cmd_m_i;
      n_q          <= cmd_n_i;
      k_q          <= cmd_k_i;
      a_addr_q     <= cmd_a_addr_i;
      b_addr_q     <= cmd_b_addr_i;
      c_addr_q     <= cmd_c_addr_i;
      lda_q        <= cmd_lda_i;
      ldb_q        <= cmd_ldb_i;
      ldc_q        <= cmd_ldc_i;
      trans_a_q    <= cmd_trans_a_i;
      trans_b_q    <= cmd_trans_b_i;
      accumulate_q <= cmd_accumulate_i;
    end
    if (state_q == StateCheck) status_q <= check_status;
    elapsed_q <= accept ? 32'd0 : elapsed_q + 32'd1;
    if (state_q == StateCheck && check_status != StatusOk) cycles_q <= 32'd0;
    if (state_q == StateRun && wb_last_i) cycles_q <= elapsed_q + 32'd1;
  end

  // ---------------------------------------------------------------- outputs
  // Word addresses and strides, truncated to the pad's address width: every
  // address the engine forms is below the pad size (checked above), so
  // arithmetic modulo 2^width gives it exactly.
  reg start_q;
  always @(posedge clk_i) begin
    if (rst_i) start_q <= 1'b0;
    else start_q <= state_q == StateCheck && check_status == StatusOk;
  end

  assign busy_o       = state_q != StateIdle;
  assign start_o      = start_q;
  assign m_o          = m_q[15:0];
  assign n_o          = n_q[15:0];
  assign k_o          = k_q[15:0];
  assign trans_a_o    = trans_a_q;
  assign trans_b_o    = trans_b_q;
  assign accumulate_o = accumulate_q;
  assign a_word_o     = AAw'(a_addr_q / W);
  assign lda_word_o   = AAw'(lda_q / W);
  assign b_word_o     = BAw'(b_addr_q / W);
  assign ldb_word_o   = BAw'(ldb_q / W);
  assign c_word_o     = CAw'(c_addr_q / W);
  assign ldc_word_o   = CAw'(ldc_q / W);
  assign cmd_ready_o  = ready;

  // ---------------------------------------------------------------- completion
  wire [34:0] done_data;
  cmn_skid_buf #(
      .Width(35)
  ) u_done (
      .clk_i      (clk_i),
      .rst_i      (rst_i),
      .in_valid_i (state_q == StateDone),
      .in_ready_o (skid_ready),
      .in_data_i  ({status_q, cycles_q}),
      .out_valid_o(done_valid_o),
      .out_ready_i(done_ready_i),
      .out_data_o (done_data)
  );
  assign done_status_o = done_data[34:32];
  assign done_cycles_o = done_data[31:0];

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (state_q != StateDone || skid_ready)
      else $error("core_cmd: completion with a full skid buffer");
      assert (!(state_q == StateRun && elapsed_q == 32'hFFFF_FFFF))
      else $error("core_cmd: cycle count overflows 32 bits");
      assert (!wb_last_i || state_q == StateRun)
      else $error("core_cmd: write-back finished outside a command");
      // The narrow range check against the 64-bit sums it stands for, whenever it decides.
      assert (state_q != StateCheck || dims_bad || ld_bad || range_bad == (
          64'(a_addr_q) + 64'(a_rows_m1) * 64'(lda_q) + 64'(a_cols) - 64'd1 >= AElems ||
          64'(b_addr_q) + 64'(b_rows_m1) * 64'(ldb_q) + 64'(b_cols) - 64'd1 >= BElems ||
          64'(c_addr_q) + 64'(c_rows_m1) * 64'(ldc_q) + 64'(n16) - 64'd1 >= CElems))
      else $error("core_cmd: the range check differs from its 64-bit form");
    end
  end
`endif

endmodule

`default_nettype wire
