// core_top: the compute core. A Rows x Cols bf16 systolic array with its
// operand and result scratchpads, a GEMM command port, a completion port
// and a DMA port into the scratchpads. rtl/core/README.md has the
// architecture, the command format, the address map, the alignment rule
// and the cycle formula; the C twin is models/core/core_twin.c.
//
//   cmd -> core_cmd (validate, completion) -> core_seq (slots, feed)
//          core_opnd A <- A-pad   \
//                                  sa_array -> core_wb -> C-pad
//          core_opnd B <- B-pad   /
//   DMA <-> core_dma <-> core_pads (A-, B-, C-pad)
//
// SRAM word: W = lcm(Rows, Cols, 4) elements (8x8: 8, 2x3: 12, 1x1: 4), so an
// array tile's row or column segment always sits inside one word and a word
// is a whole number of 64-bit DMA beats. The sequencer's tile is TRows x
// Cols: Rows rows, or with four-stage PEs (AccStages = 4, for FPGA clock
// rates) a group of four array tiles, 4 x Rows rows, that the array
// computes interleaved (core_seq). The pads are simple dual-port RAMs
// (cmn_ram_1r1w) with byte write enables: A and B hold W x bf16 per word, C
// W x fp32.
//
// Port sharing (core_pads): the A/B write ports belong to the DMA; the A/B
// read ports to the operand loaders while a command runs and to the DMA
// otherwise; the C ports to the write-back while a command runs and to the
// DMA otherwise (core_dma holds off the DMA's reads and C writes while busy).

`default_nettype none

module core_top #(
    parameter int Rows   = 8,    // array rows
    parameter int Cols   = 8,    // array columns
    parameter int AWords = 512,  // A-pad words (W bf16 each)
    parameter int BWords = 512,  // B-pad words (W bf16 each)
    parameter int CWords = 512,  // C-pad words (W fp32 each)
    parameter int PeLoop = 0,    // 1: the array's grid (sa_grid) as one loop (verilated models)
    parameter int AccStages = 1  // the PEs' accumulator stages: 1, or 4 (instances only)
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // command port
    input  wire        cmd_valid_i,
    output wire        cmd_ready_o,
    input  wire [31:0] cmd_m_i,           // rows of C and op(A), 1 .. 65535
    input  wire [31:0] cmd_n_i,           // columns of C and op(B)
    input  wire [31:0] cmd_k_i,           // the dot-product length
    input  wire [31:0] cmd_a_addr_i,      // element address in the A-pad
    input  wire [31:0] cmd_b_addr_i,      // element address in the B-pad
    input  wire [31:0] cmd_c_addr_i,      // element address in the C-pad
    input  wire [31:0] cmd_lda_i,         // leading dimensions, in elements
    input  wire [31:0] cmd_ldb_i,
    input  wire [31:0] cmd_ldc_i,
    input  wire        cmd_trans_a_i,     // A is stored K x M
    input  wire        cmd_trans_b_i,     // B is stored N x K
    input  wire        cmd_accumulate_i,  // C = C + op(A) op(B)
    // completion port
    output wire        done_valid_o,
    input  wire        done_ready_i,
    output wire [ 2:0] done_status_o,     // 0 ok, 1 dims, 2 leading dim, 3 alignment, 4 range
    output wire [31:0] done_cycles_o,     // accepting edge to last result write
    // DMA request
    input  wire        dma_req_valid_i,
    output wire        dma_req_ready_o,
    input  wire        dma_req_we_i,
    input  wire [31:0] dma_req_addr_i,    // byte address, a multiple of 8
    input  wire [63:0] dma_req_wdata_i,
    input  wire [ 7:0] dma_req_wstrb_i,
    // DMA response (2 cycles after the request, no backpressure)
    output wire        dma_resp_valid_o,
    output wire [63:0] dma_resp_rdata_o,
    output wire        dma_resp_err_o,
    // status
    output wire        busy_o             // a command is executing
);

  // W = lcm(Rows, Cols, 4). Constant function: assignment to the function
  // name rather than return, for Yosys 0.23.
  function automatic int gcd(input int a, input int b);
    int x, y, t;
    x = a;
    y = b;
    for (int i = 0; i < 32; i++) begin
      if (y != 0) begin
        t = x % y;
        x = y;
        y = t;
      end
    end
    gcd = x;
  endfunction

  localparam int TRows = AccStages * Rows;
  localparam int Lrc = Rows / gcd(Rows, Cols) * Cols;
  localparam int W = Lrc / gcd(Lrc, 4) * 4;
  localparam int AAw = AWords > 1 ? $clog2(AWords) : 1;
  localparam int BAw = BWords > 1 ? $clog2(BWords) : 1;
  localparam int CAw = CWords > 1 ? $clog2(CWords) : 1;
  localparam int KkW = W > 1 ? $clog2(W) : 1;
  localparam int CntW = $clog2(W + 1);
  localparam int ACntW = $clog2(W * AccStages + 1);
  localparam int ASelW = W / Rows > 1 ? $clog2(W / Rows) : 1;
  localparam int PartW = AccStages > 1 ? $clog2(AccStages) : 1;
  localparam int BSelW = W / Cols > 1 ? $clog2(W / Cols) : 1;

  if (W > 64) begin : g_bad_w
    cmn_param_error_lcm_of_Rows_Cols_and_4_must_be_at_most_64 u_err ();
  end
  if (AccStages != 1 && (AccStages != 4 || PeLoop != 0)) begin : g_bad_acc
    cmn_param_error_AccStages_must_be_1_or_4_with_PeLoop_0 u_err ();
  end
  if (AWords < 2 || BWords < 2 || CWords < 2) begin : g_bad_words
    cmn_param_error_every_pad_needs_at_least_2_words u_err ();
  end

  // ---------------------------------------------------------------- command
  wire busy, start, trans_a, trans_b, accumulate, wb_last;
  wire [15:0] m, n, k;
  wire [AAw-1:0] a_word, lda_word;
  wire [BAw-1:0] b_word, ldb_word;
  wire [CAw-1:0] c_word, ldc_word;

  core_cmd #(
      .W     (W),
      .AWords(AWords),
      .BWords(BWords),
      .CWords(CWords)
  ) u_cmd (
      .clk_i           (clk_i),
      .rst_i           (rst_i),
      .cmd_valid_i     (cmd_valid_i),
      .cmd_ready_o     (cmd_ready_o),
      .cmd_m_i         (cmd_m_i),
      .cmd_n_i         (cmd_n_i),
      .cmd_k_i         (cmd_k_i),
      .cmd_a_addr_i    (cmd_a_addr_i),
      .cmd_b_addr_i    (cmd_b_addr_i),
      .cmd_c_addr_i    (cmd_c_addr_i),
      .cmd_lda_i       (cmd_lda_i),
      .cmd_ldb_i       (cmd_ldb_i),
      .cmd_ldc_i       (cmd_ldc_i),
      .cmd_trans_a_i   (cmd_trans_a_i),
      .cmd_trans_b_i   (cmd_trans_b_i),
      .cmd_accumulate_i(cmd_accumulate_i),
      .done_valid_o    (done_valid_o),
      .done_ready_i    (done_ready_i),
      .done_status_o   (done_status_o),
      .done_cycles_o   (done_cycles_o),
      .busy_o          (busy),
      .start_o         (start),
      .m_o             (m),
      .n_o             (n),
      .k_o             (k),
      .trans_a_o       (trans_a),
      .trans_b_o       (trans_b),
      .accumulate_o    (accumulate),
      .a_word_o        (a_word),
      .lda_word_o      (lda_word),
      .b_word_o        (b_word),
      .ldb_word_o      (ldb_word),
      .c_word_o        (c_word),
      .ldc_word_o      (ldc_word),
      .wb_last_i       (wb_last)
  );

  // A command occupies the core from the cycle after its accepting edge
  // until its completion is pushed (core_cmd out of its idle state).
  assign busy_o = busy;

  // ---------------------------------------------------------------- sequencer
  wire             lda_valid, ldb_valid;
  wire             lda_buf, ldb_buf;
  wire [  AAw-1:0] lda_base, lda_stride;
  wire [  BAw-1:0] ldb_base, ldb_stride;
  wire [ACntW-1:0] lda_count;
  wire [ CntW-1:0] ldb_count;
  wire [ASelW-1:0] lda_sel;
  wire [BSelW-1:0] ldb_sel;
  wire             rd_valid;
  wire             rd_buf;
  wire [  KkW-1:0] rd_kk;
  wire [PartW-1:0] rd_part;
  wire             step_valid;
  wire             step_clear;
  wire             step_last;

  core_seq #(
      .Rows  (Rows),
      .Cols  (Cols),
      .W     (W),
      .AWords(AWords),
      .BWords(BWords),
      .AccStages(AccStages)
  ) u_seq (
      .clk_i       (clk_i),
      .rst_i       (rst_i),
      .start_i     (start),
      .m_i         (m),
      .n_i         (n),
      .k_i         (k),
      .trans_a_i   (trans_a),
      .trans_b_i   (trans_b),
      .a_word_i    (a_word),
      .lda_word_i  (lda_word),
      .b_word_i    (b_word),
      .ldb_word_i  (ldb_word),
      .lda_valid_o (lda_valid),
      .lda_buf_o   (lda_buf),
      .lda_base_o  (lda_base),
      .lda_stride_o(lda_stride),
      .lda_count_o (lda_count),
      .lda_sel_o   (lda_sel),
      .ldb_valid_o (ldb_valid),
      .ldb_buf_o   (ldb_buf),
      .ldb_base_o  (ldb_base),
      .ldb_stride_o(ldb_stride),
      .ldb_count_o (ldb_count),
      .ldb_sel_o   (ldb_sel),
      .rd_valid_o  (rd_valid),
      .rd_buf_o    (rd_buf),
      .rd_kk_o     (rd_kk),
      .rd_part_o   (rd_part),
      .step_valid_o(step_valid),
      .step_clear_o(step_clear),
      .step_last_o (step_last)
  );

  // ---------------------------------------------------------------- operands
  wire            opa_re, opb_re;
  wire [ AAw-1:0] opa_raddr;
  wire [ BAw-1:0] opb_raddr;
  wire [W*16-1:0] a_rdata, b_rdata;
  wire [Rows*16-1:0] step_a;
  wire [Cols*16-1:0] step_b;

  core_opnd #(
      .Lanes(TRows),
      .W    (W),
      .Words(AWords),
      .Parts(AccStages)
  ) u_opa (
      .clk_i      (clk_i),
      .rst_i      (rst_i),
      .mode_i     (trans_a),      // A stored K x M: a word is one step
      .ld_valid_i (lda_valid),
      .ld_buf_i   (lda_buf),
      .ld_base_i  (lda_base),
      .ld_stride_i(lda_stride),
      .ld_count_i (lda_count),
      .ld_sel_i   (lda_sel),
      .re_o       (opa_re),
      .raddr_o    (opa_raddr),
      .rdata_i    (a_rdata),
      .rd_valid_i (rd_valid),
      .rd_buf_i   (rd_buf),
      .rd_kk_i    (rd_kk),
      .rd_part_i  (rd_part),
      .vec_o      (step_a)
  );

  core_opnd #(
      .Lanes(Cols),
      .W    (W),
      .Words(BWords)
  ) u_opb (
      .clk_i      (clk_i),
      .rst_i      (rst_i),
      .mode_i     (!trans_b),     // B stored K x N: a word is one step
      .ld_valid_i (ldb_valid),
      .ld_buf_i   (ldb_buf),
      .ld_base_i  (ldb_base),
      .ld_stride_i(ldb_stride),
      .ld_count_i (ldb_count),
      .ld_sel_i   (ldb_sel),
      .re_o       (opb_re),
      .raddr_o    (opb_raddr),
      .rdata_i    (b_rdata),
      .rd_valid_i (rd_valid),
      .rd_buf_i   (rd_buf),
      .rd_kk_i    (rd_kk),
      .rd_part_i  (1'b0),
      .vec_o      (step_b)
  );

  // ---------------------------------------------------------------- array
  wire               row_valid;
  wire [Cols*32-1:0] row_sum;

  sa_array #(
      .Rows  (Rows),
      .Cols  (Cols),
      .PeLoop(PeLoop),
      .AccStages(AccStages)
  ) u_array (
      .clk_i       (clk_i),
      .rst_i       (rst_i),
      .step_valid_i(step_valid),
      .step_clear_i(step_clear),
      .step_last_i (step_last),
      .step_a_i    (step_a),
      .step_b_i    (step_b),
      .row_valid_o (row_valid),
      .row_sum_o   (row_sum)
  );

  // ---------------------------------------------------------------- write-back
  wire            wb_re;
  wire [ CAw-1:0] wb_raddr;
  wire [W*32-1:0] c_rdata;
  wire [ W*4-1:0] wb_we;
  wire [ CAw-1:0] wb_waddr;
  wire [W*32-1:0] wb_wdata;

  core_wb #(
      .Rows  (TRows),
      .Cols  (Cols),
      .W     (W),
      .CWords(CWords)
  ) u_wb (
      .clk_i       (clk_i),
      .rst_i       (rst_i),
      .start_i     (start),
      .m_i         (m),
      .n_i         (n),
      .accumulate_i(accumulate),
      .c_word_i    (c_word),
      .ldc_word_i  (ldc_word),
      .row_valid_i (row_valid),
      .row_sum_i   (row_sum),
      .re_o        (wb_re),
      .raddr_o     (wb_raddr),
      .rdata_i     (c_rdata),
      .we_o        (wb_we),
      .waddr_o     (wb_waddr),
      .wdata_o     (wb_wdata),
      .last_o      (wb_last)
  );

  // ---------------------------------------------------------------- DMA
  wire [ W*2-1:0] dma_a_we, dma_b_we;
  wire [ W*4-1:0] dma_c_we;
  wire [ AAw-1:0] dma_a_waddr, dma_a_raddr;
  wire [ BAw-1:0] dma_b_waddr, dma_b_raddr;
  wire [ CAw-1:0] dma_c_waddr, dma_c_raddr;
  wire [W*16-1:0] dma_a_wdata, dma_b_wdata;
  wire [W*32-1:0] dma_c_wdata;
  wire            dma_a_re, dma_b_re, dma_c_re;

  core_dma #(
      .W     (W),
      .AWords(AWords),
      .BWords(BWords),
      .CWords(CWords)
  ) u_dma (
      .clk_i       (clk_i),
      .rst_i       (rst_i),
      .busy_i      (busy),
      .req_valid_i (dma_req_valid_i),
      .req_ready_o (dma_req_ready_o),
      .req_we_i    (dma_req_we_i),
      .req_addr_i  (dma_req_addr_i),
      .req_wdata_i (dma_req_wdata_i),
      .req_wstrb_i (dma_req_wstrb_i),
      .resp_valid_o(dma_resp_valid_o),
      .resp_rdata_o(dma_resp_rdata_o),
      .resp_err_o  (dma_resp_err_o),
      .a_we_o      (dma_a_we),
      .a_waddr_o   (dma_a_waddr),
      .a_wdata_o   (dma_a_wdata),
      .a_re_o      (dma_a_re),
      .a_raddr_o   (dma_a_raddr),
      .a_rdata_i   (a_rdata),
      .b_we_o      (dma_b_we),
      .b_waddr_o   (dma_b_waddr),
      .b_wdata_o   (dma_b_wdata),
      .b_re_o      (dma_b_re),
      .b_raddr_o   (dma_b_raddr),
      .b_rdata_i   (b_rdata),
      .c_we_o      (dma_c_we),
      .c_waddr_o   (dma_c_waddr),
      .c_wdata_o   (dma_c_wdata),
      .c_re_o      (dma_c_re),
      .c_raddr_o   (dma_c_raddr),
      .c_rdata_i   (c_rdata)
  );

  // ---------------------------------------------------------------- pads
  core_pads #(
      .W     (W),
      .AWords(AWords),
      .BWords(BWords),
      .CWords(CWords)
  ) u_pads (
      .clk_i        (clk_i),
      .rst_i        (rst_i),
      .dma_a_we_i   (dma_a_we),
      .dma_a_waddr_i(dma_a_waddr),
      .dma_a_wdata_i(dma_a_wdata),
      .dma_a_re_i   (dma_a_re),
      .dma_a_raddr_i(dma_a_raddr),
      .eng_a_re_i   (opa_re),
      .eng_a_raddr_i(opa_raddr),
      .a_rdata_o    (a_rdata),
      .dma_b_we_i   (dma_b_we),
      .dma_b_waddr_i(dma_b_waddr),
      .dma_b_wdata_i(dma_b_wdata),
      .dma_b_re_i   (dma_b_re),
      .dma_b_raddr_i(dma_b_raddr),
      .eng_b_re_i   (opb_re),
      .eng_b_raddr_i(opb_raddr),
      .b_rdata_o    (b_rdata),
      .dma_c_we_i   (dma_c_we),
      .dma_c_waddr_i(dma_c_waddr),
      .dma_c_wdata_i(dma_c_wdata),
      .dma_c_re_i   (dma_c_re),
      .dma_c_raddr_i(dma_c_raddr),
      .eng_c_we_i   (wb_we),
      .eng_c_waddr_i(wb_waddr),
      .eng_c_wdata_i(wb_wdata),
      .eng_c_re_i   (wb_re),
      .eng_c_raddr_i(wb_raddr),
      .c_rdata_o    (c_rdata)
  );

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (busy || (!opa_re && !opb_re && !wb_re && wb_we == '0 && !step_valid))
      else $error("core_top: engine active while idle");
    end
  end
`endif

endmodule

`default_nettype wire
