// core_seq: the tile sequencer of the compute core. It walks a validated
// command's blocks and, in lockstep slots, tells the two operand loaders
// (core_opnd) what to read and the operand buffers and the array what to
// feed.
//
// Tiles and blocks. The output is cut into tiles of Rows x Cols (tile rows
// ti outer, tile columns tj inner; edge tiles are partial), and each tile's
// k range into blocks of W steps (the last block has kl = K - (nb-1)*W
// steps, nb = ceil(K/W)). The blocks of all tiles form one sequence,
// b = 0 .. NB-1, NB = tiles * nb.
//
// Slots. Slot b loads block b+1 into one operand buffer while block b is
// fed from the other (double buffering), so a slot lasts
//   S_b = max(kb_b, L_{b+1}, nb == 1 ? max(Rows, Cols) : 0)
// cycles, where kb_b is block b's step count and L the load time of a block
// (L = 0 after the last block):
//   L(kb) = max(trans_a ? kb : Rows, trans_b ? Cols : kb)
// (A stored M x K needs one word per tile row, Rows words; stored K x M one
// word per step; B the other way round; the two pads are read in
// parallel). The max(Rows, Cols) term spaces single-block tiles so that the
// array can drain one tile while the next computes (sa_array's timing rule);
// tiles of nb >= 2 blocks are longer than W >= max(Rows, Cols) anyway. A
// prologue slot loads block 0 (S = L_0). rtl/core/README.md turns this into
// the cycle formula.
//
// Timing inside a slot starting in cycle t (the cycle slot_start is high):
//   t+1 + n   loader read n (core_opnd), n < L; lands in the buffer at the
//             end of cycle t+2+n;
//   t+1 + k   step k of the fed block leaves the step counter (k < kb);
//   t+2 + k   the operand buffers are read for step k (rd_*);
//   t+3 + k   step k is on the array's inputs (step_*).
// The first read of a buffer comes after the last load of the block into
// it, and the first load into a buffer after the last read of the block
// it held (see the README for the cycle-by-cycle argument).
//
// Four-stage PEs (AccStages = 4): the array computes four tiles of
// Rows x Cols interleaved, a step of each in turn (sa_array), so this
// sequencer's tile is a group of four array tiles stacked in M, TRows =
// 4 x Rows rows of C sharing each step of B. A block of kb steps is fed in
// 4 x kb cycles: in feed cycle 4 kk + p the step kk of part p (the array
// tile of rows p x Rows .. of the group; rd_part_o) with the B step kk, so
// each array tile's steps are four cycles apart, all in one phase. A is
// loaded for a TRows x Cols tile: TRows words a block stored M x K, and
// stored K x M one read per part and step (the parts' Rows-wide slices may
// sit in different words: W is a multiple of Rows, not of TRows), so
//   L(kb) = max(trans_a ? 4 kb : TRows, trans_b ? Cols : kb),
// and the single-block spacing becomes max(4 Rows, 3 Rows + Cols): the
// drain reads a group's four tiles out one after the other (4 x Rows
// cycles), and an array tile's finished sums must be read before the tile
// of the next group in its slot finishes (sa_array's rule, for any phase).
// In general
//   S_b = max(AccStages x kb_b, L_{b+1}, nb == 1 ? D : 0),
//   D   = max(AccStages x Rows, (AccStages - 1) x Rows + Cols),
// AccStages = 1 being the one-stage core.

`default_nettype none

module core_seq #(
    parameter int Rows   = 8,    // array rows
    parameter int Cols   = 8,    // array columns
    parameter int W      = 8,    // elements per SRAM word
    parameter int AWords = 512,  // A-pad words
    parameter int BWords = 512,  // B-pad words
    parameter int AccStages = 1, // the PEs' accumulator stages: 1, or 4
    localparam int TRows = AccStages * Rows,            // rows of C in a tile
    localparam int PartW = AccStages > 1 ? $clog2(AccStages) : 1,
    localparam int AAw = AWords > 1 ? $clog2(AWords) : 1,
    localparam int BAw = BWords > 1 ? $clog2(BWords) : 1,
    localparam int KkW = W > 1 ? $clog2(W) : 1,        // a step index in a block
    localparam int CntW = $clog2(W + 1),                // a B load count, <= W
    localparam int ACntW = $clog2(W * AccStages + 1),   // an A load count, <= W x AccStages
    localparam int ASlices = W / Rows,                  // Rows-wide slices of a word
    localparam int ASelW = ASlices > 1 ? $clog2(ASlices) : 1,
    localparam int BSelW = W / Cols > 1 ? $clog2(W / Cols) : 1
) (
    input  wire             clk_i,
    input  wire             rst_i,
    // the command (core_cmd), held from start_i to the end
    input  wire             start_i,
    input  wire [     15:0] m_i,
    input  wire [     15:0] n_i,
    input  wire [     15:0] k_i,
    input  wire             trans_a_i,
    input  wire             trans_b_i,
    input  wire [  AAw-1:0] a_word_i,
    input  wire [  AAw-1:0] lda_word_i,
    input  wire [  BAw-1:0] b_word_i,
    input  wire [  BAw-1:0] ldb_word_i,
    // A loads: count reads at base, base + stride, ... into buffer buf
    output wire             lda_valid_o,
    output wire             lda_buf_o,
    output wire [  AAw-1:0] lda_base_o,
    output wire [  AAw-1:0] lda_stride_o,
    output wire [ACntW-1:0] lda_count_o,
    output wire [ASelW-1:0] lda_sel_o,    // which Rows-wide slice of a word (trans_a): the first part's
    // B loads
    output wire             ldb_valid_o,
    output wire             ldb_buf_o,
    output wire [  BAw-1:0] ldb_base_o,
    output wire [  BAw-1:0] ldb_stride_o,
    output wire [ CntW-1:0] ldb_count_o,
    output wire [BSelW-1:0] ldb_sel_o,    // which Cols-wide slice of a word (!trans_b)
    // operand buffer reads, one step per cycle
    output wire             rd_valid_o,
    output wire             rd_buf_o,
    output wire [  KkW-1:0] rd_kk_o,
    output wire [PartW-1:0] rd_part_o,    // the part of the A step (AccStages > 1)
    // step flags for the array, aligned with the operand buffers' outputs
    output wire             step_valid_o,
    output wire             step_clear_o,
    output wire             step_last_o
);

  if (W % Rows != 0 || W % Cols != 0) begin : g_bad_w
    cmn_param_error_W_must_be_a_multiple_of_Rows_and_Cols u_err ();
  end
  if (AccStages != 1 && AccStages != 4) begin : g_bad_acc
    cmn_param_error_AccStages_must_be_1_or_4 u_err ();
  end

  localparam int Spacing = TRows > TRows - Rows + Cols ? TRows : TRows - Rows + Cols;
  localparam logic [15:0] R16 = 16'(TRows);
  localparam logic [15:0] C16 = 16'(Cols);
  localparam logic [15:0] W16 = 16'(W);
  localparam logic [15:0] D16 = 16'(Spacing);
  localparam logic [PartW-1:0] PLast = PartW'(AccStages - 1);

  // ---------------------------------------------------------------- command constants
  reg [15:0] nbm1_q;  // nb - 1
  reg [15:0] kl_q;  // steps of a tile's last block
  reg [15:0] dpad_q;  // D when nb == 1, else 0
  reg [AAw-1:0] a_rstep_q, a_kstep_q;  // TRows * lda_word, W * lda_word
  reg [BAw-1:0] b_cstep_q, b_kstep_q;  // Cols * ldb_word, W * ldb_word

  always @(posedge clk_i) begin
    if (start_i) begin
      nbm1_q    <= (k_i - 16'd1) / W16;
      kl_q      <= (k_i - 16'd1) % W16 + 16'd1;
      dpad_q    <= k_i <= W16 ? D16 : 16'd0;
      a_rstep_q <= AAw'(TRows) * lda_word_i;
      a_kstep_q <= AAw'(W) * lda_word_i;
      b_cstep_q <= BAw'(Cols) * ldb_word_i;
      b_kstep_q <= BAw'(W) * ldb_word_i;
    end
  end

  // ---------------------------------------------------------------- block iterator
  // Points at the next block to load: block kblk of tile (i0, j0), with
  // mrem = M - i0, nrem = N - j0 and the word addresses it needs.
  reg             it_valid_q;
  reg [     15:0] kblk_q;
  reg [     15:0] mrem_q;
  reg [     15:0] nrem_q;
  reg [  AAw-1:0] a_rowb_q;  // a_word + i0 * lda_word         (A stored M x K)
  reg [  AAw-1:0] a_kb_q;  // a_word + k0 * lda_word         (A stored K x M)
  reg [  AAw-1:0] i0w_q;  // i0 / W
  reg [ASelW-1:0] isel_q;  // (i0 % W) / Rows
  reg [  BAw-1:0] b_kb_q;  // b_word + k0 * ldb_word         (B stored K x N)
  reg [  BAw-1:0] b_colb_q;  // b_word + j0 * ldb_word         (B stored N x K)
  reg [  BAw-1:0] j0w_q;  // j0 / W
  reg [BSelW-1:0] jsel_q;  // (j0 % W) / Cols

  wire            it_klast = kblk_q == nbm1_q;
  wire            it_jlast = nrem_q <= C16;
  wire            it_ilast = mrem_q <= R16;
  wire [15:0]     it_kb = it_klast ? kl_q : W16;
  wire [15:0]     it_mi = it_ilast ? mrem_q : R16;
  wire [15:0]     it_nj = it_jlast ? nrem_q : C16;
  wire [15:0]     it_la = trans_a_i ? it_kb * 16'(AccStages) : R16;
  wire [15:0]     it_lb = trans_b_i ? C16 : it_kb;
  wire [15:0]     it_load = it_la > it_lb ? it_la : it_lb;

  // ---------------------------------------------------------------- slots
  reg         in_slot_q;  // a slot is running
  reg  [15:0] slot_left_q;  // cycles of the slot after this one
  reg         ld_buf_q;  // buffer of the next load
  reg         pend_valid_q;  // the block loaded in this slot, fed in the next
  reg  [15:0] pend_kb_q;
  reg         pend_first_q;
  reg         pend_last_q;
  reg         pend_buf_q;

  wire        slot_start = in_slot_q && slot_left_q == 16'd0;
  wire        feeding = slot_start && pend_valid_q;
  wire        loading = slot_start && it_valid_q;
  wire [15:0] pend_cy = pend_kb_q * 16'(AccStages);  // feed cycles of the block
  wire [15:0] s_feed = feeding ? (pend_cy > dpad_q ? pend_cy : dpad_q) : 16'd0;
  wire [15:0] s_load = loading ? it_load : 16'd0;
  wire [15:0] s_len = s_feed > s_load ? s_feed : s_load;

  always @(posedge clk_i) begin
    if (rst_i) begin
      in_slot_q    <= 1'b0;
      it_valid_q   <= 1'b0;
      pend_valid_q <= 1'b0;
    end else if (start_i) begin
      in_slot_q    <= 1'b1;
      it_valid_q   <= 1'b1;
      pend_valid_q <= 1'b0;
    end else if (slot_start) begin
      // A slot with nothing to feed or load ends the sequence.
      in_slot_q    <= feeding || loading;
      pend_valid_q <= loading;
      if (loading && it_klast && it_jlast && it_ilast) it_valid_q <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (start_i) begin
      slot_left_q <= 16'd0;
      ld_buf_q    <= 1'b0;
      kblk_q      <= 16'd0;
      mrem_q      <= m_i;
      nrem_q      <= n_i;
      a_rowb_q    <= a_word_i;
      a_kb_q      <= a_word_i;
      i0w_q       <= '0;
      isel_q      <= '0;
      b_kb_q      <= b_word_i;
      b_colb_q    <= b_word_i;
      j0w_q       <= '0;
      jsel_q      <= '0;
    end else if (in_slot_q) begin
      slot_left_q <= slot_start ? s_len - 16'd1 : slot_left_q - 16'd1;
      if (loading) begin
        ld_buf_q     <= !ld_buf_q;
        pend_kb_q    <= it_kb;
        pend_first_q <= kblk_q == 16'd0;
        pend_last_q  <= it_klast;
        pend_buf_q   <= ld_buf_q;
        // Advance: k blocks innermost, then tile columns, then tile rows.
        if (!it_klast) begin
          kblk_q <= kblk_q + 16'd1;
          a_kb_q <= a_kb_q + a_kstep_q;
          b_kb_q <= b_kb_q + b_kstep_q;
        end else begin
          kblk_q <= 16'd0;
          a_kb_q <= a_word_i;
          b_kb_q <= b_word_i;
          if (!it_jlast) begin
            nrem_q   <= nrem_q - C16;
            b_colb_q <= b_colb_q + b_cstep_q;
            if (32'(jsel_q) == W / Cols - 1) begin
              jsel_q <= '0;
              j0w_q  <= j0w_q + 1'b1;
            end else begin
              jsel_q <= jsel_q + 1'b1;
            end
          end else begin
            nrem_q   <= n_i;
            b_colb_q <= b_word_i;
            jsel_q   <= '0;
            j0w_q    <= '0;
            mrem_q   <= mrem_q - R16;
            a_rowb_q <= a_rowb_q + a_rstep_q;
            // i0 moves TRows = AccStages slices of Rows on, across words
            isel_q <= ASelW'((32'(isel_q) + AccStages) % ASlices);
            i0w_q  <= i0w_q + AAw'((32'(isel_q) + AccStages) / ASlices);
          end
        end
      end
    end
  end

  // ---------------------------------------------------------------- load descriptors
  reg             ld_valid_q;
  reg             ld_dbuf_q;
  reg [  AAw-1:0] lda_base_q;
  reg [ACntW-1:0] lda_count_q;
  reg [ASelW-1:0] lda_sel_q;
  reg [  BAw-1:0] ldb_base_q;
  reg [ CntW-1:0] ldb_count_q;
  reg [BSelW-1:0] ldb_sel_q;

  always @(posedge clk_i) begin
    if (rst_i) ld_valid_q <= 1'b0;
    else ld_valid_q <= loading;
  end

  always @(posedge clk_i) begin
    if (loading) begin
      ld_dbuf_q   <= ld_buf_q;
      lda_base_q  <= trans_a_i ? a_kb_q + i0w_q : a_rowb_q + AAw'(kblk_q);
      lda_count_q <= ACntW'(trans_a_i ? it_kb * 16'(AccStages) : it_mi);
      lda_sel_q   <= isel_q;
      ldb_base_q  <= trans_b_i ? b_colb_q + BAw'(kblk_q) : b_kb_q + j0w_q;
      ldb_count_q <= CntW'(trans_b_i ? it_nj : it_kb);
      ldb_sel_q   <= jsel_q;
    end
  end

  assign lda_valid_o  = ld_valid_q;
  assign lda_buf_o    = ld_dbuf_q;
  assign lda_base_o   = lda_base_q;
  assign lda_stride_o = lda_word_i;
  assign lda_count_o  = lda_count_q;
  assign lda_sel_o    = lda_sel_q;
  assign ldb_valid_o  = ld_valid_q;
  assign ldb_buf_o    = ld_dbuf_q;
  assign ldb_base_o   = ldb_base_q;
  assign ldb_stride_o = ldb_word_i;
  assign ldb_count_o  = ldb_count_q;
  assign ldb_sel_o    = ldb_sel_q;

  // ---------------------------------------------------------------- feed
  // Step counter (stage 0), buffer read (stage 1), array inputs (stage 2).
  // The counter counts parts of a step (AccStages of them), then steps.
  reg           f_valid_q;
  reg  [  15:0] f_kk_q;
  reg  [PartW-1:0] f_part_q;
  reg  [  15:0] f_kb_q;
  reg           f_buf_q;
  reg           f_first_q;
  reg           f_last_q;
  reg           rd_valid_q;
  reg           rd_buf_q;
  reg  [KkW-1:0] rd_kk_q;
  reg  [PartW-1:0] rd_part_q;
  reg           rd_clear_q;
  reg           rd_last_q;
  reg           st_valid_q;
  reg           st_clear_q;
  reg           st_last_q;

  wire          f_part_end = AccStages == 1 || f_part_q == PLast;
  wire          f_step_end = f_kk_q + 16'd1 == f_kb_q;
  wire          f_end = f_step_end && f_part_end;

  always @(posedge clk_i) begin
    if (rst_i) begin
      f_valid_q  <= 1'b0;
      rd_valid_q <= 1'b0;
      st_valid_q <= 1'b0;
    end else begin
      if (feeding) f_valid_q <= 1'b1;
      else if (f_end) f_valid_q <= 1'b0;
      rd_valid_q <= f_valid_q;
      st_valid_q <= rd_valid_q;
    end
  end

  always @(posedge clk_i) begin
    if (feeding) begin
      f_kk_q    <= 16'd0;
      f_part_q  <= '0;
      f_kb_q    <= pend_kb_q;
      f_buf_q   <= pend_buf_q;
      f_first_q <= pend_first_q;
      f_last_q  <= pend_last_q;
    end else begin
      if (f_part_end) f_kk_q <= f_kk_q + 16'd1;
      f_part_q <= f_part_end ? '0 : f_part_q + 1'b1;
    end
    rd_buf_q   <= f_buf_q;
    rd_kk_q    <= KkW'(f_kk_q);
    rd_part_q  <= f_part_q;
    rd_clear_q <= f_valid_q && f_first_q && f_kk_q == 16'd0;
    rd_last_q  <= f_valid_q && f_last_q && f_step_end;
    st_clear_q <= rd_valid_q && rd_clear_q;
    st_last_q  <= rd_valid_q && rd_last_q;
  end

  assign rd_valid_o   = rd_valid_q;
  assign rd_buf_o     = rd_buf_q;
  assign rd_kk_o      = rd_kk_q;
  assign rd_part_o    = rd_part_q;
  assign step_valid_o = st_valid_q;
  assign step_clear_o = st_clear_q;
  assign step_last_o  = st_last_q;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      // A slot never ends before its feed: the next block's feed would
      // overwrite the step counter.
      assert (!(feeding && f_valid_q && !f_end))
      else $error("core_seq: slot ended while a block was still being fed");
      assert (!slot_start || s_len != 16'd0 || (!feeding && !loading))
      else $error("core_seq: empty slot");
    end
  end
`endif

endmodule

`default_nettype wire
