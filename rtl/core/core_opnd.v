// core_opnd: one operand path of the compute core (A or B): reads the
// blocks that core_seq asks for from the operand's pad, stages them in two
// buffers, and hands one step (Lanes bf16 values, or a part of them) per
// cycle to the array.
//
// A buffer holds one block: Lanes x W elements, element (l, kk) = operand
// lane l (a tile row of op(A), or a tile column of op(B)) at step kk of the
// block. A pad word is W consecutive elements of one stored row; depending
// on how the operand is stored, one read fills either
//   - a lane (lane mode, mode_i = 0): the word holds lane n's W steps
//     (A stored M x K: a row of A; B stored N x K: a row of B^T), or
//   - a step (step mode, mode_i = 1): the word holds step n for every lane,
//     in the Lanes-wide slice number sel (A stored K x M; B stored K x N).
// The alignment rule (addresses and leading dims multiples of W, W a
// multiple of Lanes / Parts) puts every such row segment inside one word.
//
// Load: ld_valid_i starts count reads at base, base + stride, ... one per
// cycle, the first in the ld_valid_i cycle; read n lands in buffer ld_buf_i
// at the end of the cycle after it was issued. Lanes or steps beyond count
// keep what they held (the array computes garbage there, which the
// write-back never writes).
// Step: rd_valid_i reads step rd_kk_i of buffer rd_buf_i; vec_o shows it in
// the next cycle (held until the next read).
//
// Parts > 1: the A operand of a core of four-stage PEs, whose tile is Parts
// array tiles of OutLanes = Lanes / Parts rows each. A step read takes part
// rd_part_i of the step (lanes rd_part_i * OutLanes .. + OutLanes - 1). In
// step mode a step takes Parts reads, one per part, each the OutLanes-wide
// slice of its own word: read n is part p = n % Parts of step kk = n / Parts,
// at base + kk * stride + (sel + p) / Slices, slice (sel + p) % Slices (sel:
// the first part's slice), so that W need only be a multiple of OutLanes.
//
// core_seq schedules loads and reads so that a buffer is never read while
// it is being loaded.

`default_nettype none

module core_opnd #(
    parameter int Lanes = 8,    // operand lanes (TRows for A, Cols for B)
    parameter int W     = 8,    // elements per word, a multiple of Lanes / Parts
    parameter int Words = 512,  // words of the pad
    parameter int Parts = 1,    // parts of a step (Lanes a multiple)
    localparam int OutLanes = Lanes / Parts,
    localparam int PartW = Parts > 1 ? $clog2(Parts) : 1,
    localparam int Aw = Words > 1 ? $clog2(Words) : 1,
    localparam int KkW = W > 1 ? $clog2(W) : 1,
    localparam int LaneIdxW = Lanes > 1 ? $clog2(Lanes) : 1,
    localparam int CntW = $clog2(W * Parts + 1),  // reads of a load: <= Lanes, or W x Parts
    localparam int Slices = W / OutLanes,
    localparam int SelW = Slices > 1 ? $clog2(Slices) : 1
) (
    input  wire                 clk_i,
    input  wire                 rst_i,
    input  wire                 mode_i,       // 0: a read fills a lane, 1: a step (or a part)
    // load requests (core_seq)
    input  wire                 ld_valid_i,
    input  wire                 ld_buf_i,
    input  wire [       Aw-1:0] ld_base_i,
    input  wire [       Aw-1:0] ld_stride_i,
    input  wire [     CntW-1:0] ld_count_i,
    input  wire [     SelW-1:0] ld_sel_i,
    // pad read port
    output wire                 re_o,
    output wire [       Aw-1:0] raddr_o,
    input  wire [     W*16-1:0] rdata_i,
    // step reads (core_seq)
    input  wire                 rd_valid_i,
    input  wire                 rd_buf_i,
    input  wire [      KkW-1:0] rd_kk_i,
    input  wire [    PartW-1:0] rd_part_i,
    output wire [OutLanes*16-1:0] vec_o      // lane l: bf16
);

  if (Parts < 1 || Lanes % Parts != 0 || W % OutLanes != 0) begin : g_bad_lanes
    cmn_param_error_W_must_be_a_multiple_of_Lanes_over_Parts u_err ();
  end

  // ---------------------------------------------------------------- reads
  // A read's row (the lane's, or the step's) and, in step mode, its part;
  // the row advances after every read in lane mode and after the last part
  // of a step in step mode.
  localparam logic [PartW-1:0] PLast = PartW'(Parts - 1);

  reg  [  Aw-1:0] row_q;  // the row of the next read
  reg  [  Aw-1:0] stride_q;
  reg  [CntW-1:0] left_q;  // reads still to issue after this cycle's
  reg  [CntW-1:0] idx_q;  // the next read's lane (lane mode) or step (step mode)
  reg  [PartW-1:0] part_q;  // the next read's part (step mode)
  reg             buf_q;
  reg  [SelW-1:0] sel_q;  // the first part's slice

  wire            issue = ld_valid_i ? ld_count_i != '0 : left_q != '0;
  wire [  Aw-1:0] row = ld_valid_i ? ld_base_i : row_q;
  wire [PartW-1:0] part = ld_valid_i ? '0 : part_q;
  wire [SelW-1:0] sel0 = ld_valid_i ? ld_sel_i : sel_q;
  wire            step_end = !mode_i || Parts == 1 || part == PLast;

  // Part p's slice of a step: sel0 + p slices on, across words.
  function automatic logic [Aw-1:0] part_word(input logic [SelW-1:0] s, input logic [PartW-1:0] p);
    part_word = Aw'((32'(s) + 32'(p)) / Slices);
  endfunction
  function automatic logic [SelW-1:0] part_sel(input logic [SelW-1:0] s, input logic [PartW-1:0] p);
    part_sel = SelW'((32'(s) + 32'(p)) % Slices);
  endfunction

  always @(posedge clk_i) begin
    if (rst_i) begin
      left_q <= '0;
    end else if (ld_valid_i) begin
      left_q <= ld_count_i != '0 ? ld_count_i - 1'b1 : '0;
    end else if (left_q != '0) begin
      left_q <= left_q - 1'b1;
    end
  end

  always @(posedge clk_i) begin
    if (ld_valid_i) begin
      stride_q <= ld_stride_i;
      buf_q    <= ld_buf_i;
      sel_q    <= ld_sel_i;
    end
    row_q  <= step_end ? row + (ld_valid_i ? ld_stride_i : stride_q) : row;
    part_q <= step_end ? '0 : part + 1'b1;
    idx_q  <= (ld_valid_i ? '0 : idx_q) + CntW'(step_end);
  end

  assign re_o    = issue;
  assign raddr_o = row + (mode_i && Parts > 1 ? part_word(sel0, part) : '0);

  // ---------------------------------------------------------------- landing
  reg            wr_valid_q;
  reg [CntW-1:0] wr_idx_q;
  reg [PartW-1:0] wr_part_q;
  reg            wr_buf_q;
  reg [SelW-1:0] wr_sel_q;

  always @(posedge clk_i) begin
    if (rst_i) wr_valid_q <= 1'b0;
    else wr_valid_q <= issue;
  end

  always @(posedge clk_i) begin
    wr_idx_q  <= ld_valid_i ? '0 : idx_q;
    wr_part_q <= part;
    wr_buf_q  <= ld_valid_i ? ld_buf_i : buf_q;
    wr_sel_q  <= Parts > 1 ? part_sel(sel0, part) : sel0;
  end

  // The OutLanes-wide slice of the word that step mode uses.
  reg [OutLanes*16-1:0] slice;
  always @* begin
    slice = rdata_i[OutLanes*16-1:0];
    for (int s = 1; s < Slices; s++) begin
      if (32'(wr_sel_q) == s) slice = rdata_i[s*OutLanes*16+:OutLanes*16];
    end
  end

  reg  [        15:0] stage_q[2][Lanes][W];  // [buffer][lane][step]
  wire [LaneIdxW-1:0] wr_lane = LaneIdxW'(wr_idx_q);
  wire [     KkW-1:0] wr_kk = KkW'(wr_idx_q);

  always @(posedge clk_i) begin
    if (wr_valid_q) begin
      if (!mode_i) begin
        for (int kk = 0; kk < W; kk++) stage_q[wr_buf_q][wr_lane][kk] <= rdata_i[kk*16+:16];
      end else begin
        for (int l = 0; l < OutLanes; l++) begin
          stage_q[wr_buf_q][32'(wr_part_q)*OutLanes+l][wr_kk] <= slice[l*16+:16];
        end
      end
    end
  end

  // ---------------------------------------------------------------- steps
  reg [OutLanes*16-1:0] vec_q;
  always @(posedge clk_i) begin
    if (rd_valid_i) begin
      for (int l = 0; l < OutLanes; l++) begin
        vec_q[l*16+:16] <= stage_q[rd_buf_i][32'(rd_part_i)*OutLanes+l][rd_kk_i];
      end
    end
  end

  assign vec_o = vec_q;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!ld_valid_i || left_q == '0)
      else $error("core_opnd: load started while %0d reads of the last are left", left_q);
      assert (!ld_valid_i || 32'(ld_count_i) <= (mode_i ? W * Parts : Lanes))
      else $error("core_opnd: load of %0d reads", ld_count_i);
      assert (!wr_valid_q || (mode_i ? 32'(wr_idx_q) < W : 32'(wr_idx_q) < Lanes))
      else $error("core_opnd: read %0d lands outside the buffer", wr_idx_q);
    end
  end
`endif

endmodule

`default_nettype wire
