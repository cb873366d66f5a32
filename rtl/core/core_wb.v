// core_wb: the write-back of the compute core. Takes the finished rows from
// the array (one row of Cols fp32 sums per cycle, tiles in the sequencer's
// order), adds the old C for an accumulating command, and writes each row
// segment into one C-pad word.
//
// Pipeline (cycle s: row_valid_i):
//   s     the row's C-pad word address is formed from the tile counters; for
//         accumulate, the word is read (re_o);
//   s+1   the old values arrive (rdata_i, registered RAM); new = old + sum,
//         one fp32 add per lane (sa_fp32_add: RNE, FTZ, canonical NaN), or
//         new = sum without accumulate; the result is registered;
//   s+2   the write is on the C-pad write port (we_o, byte lanes) and lands
//         at the end of the cycle. last_o is high in this cycle for the
//         last row of the command's last tile.
// The latency is the same with and without accumulate. The row goes into
// the word replicated W/Cols times; the byte enables select the tile's
// lanes and drop the rows and columns past M and N (edge tiles), so nothing
// outside C is written. Reading a word while another tile's row is written
// into other lanes of it is harmless: only the tile's own lanes are used.
//
// Accumulate is fl(C_old + dot): the dot product runs in the array from the
// PE's clear rule, then one fp32 add here. (ref_gemm's accumulate starts the
// dot product from C_old instead; see rtl/core/README.md.)

`default_nettype none

module core_wb #(
    parameter int Rows   = 8,    // array rows
    parameter int Cols   = 8,    // array columns
    parameter int W      = 8,    // elements per SRAM word
    parameter int CWords = 512,  // C-pad words
    localparam int CAw = CWords > 1 ? $clog2(CWords) : 1,
    localparam int Slices = W / Cols,
    localparam int SelW = Slices > 1 ? $clog2(Slices) : 1,
    localparam int RowW = Rows > 1 ? $clog2(Rows) : 1
) (
    input  wire               clk_i,
    input  wire               rst_i,
    // the command (core_cmd), held from start_i to the end
    input  wire               start_i,
    input  wire [       15:0] m_i,
    input  wire [       15:0] n_i,
    input  wire               accumulate_i,
    input  wire [    CAw-1:0] c_word_i,
    input  wire [    CAw-1:0] ldc_word_i,
    // finished rows (sa_array), no backpressure
    input  wire               row_valid_i,
    input  wire [Cols*32-1:0] row_sum_i,
    // C-pad read port (old values for accumulate)
    output wire               re_o,
    output wire [    CAw-1:0] raddr_o,
    input  wire [   W*32-1:0] rdata_i,
    // C-pad write port
    output wire [    W*4-1:0] we_o,      // byte lanes
    output wire [    CAw-1:0] waddr_o,
    output wire [   W*32-1:0] wdata_o,
    // the last row of the command is being written
    output wire               last_o
);

  if (W % Cols != 0) begin : g_bad_w
    cmn_param_error_W_must_be_a_multiple_of_Cols u_err ();
  end

  localparam logic [15:0] R16 = 16'(Rows);
  localparam logic [15:0] C16 = 16'(Cols);

  // ---------------------------------------------------------------- tile counters
  reg [ RowW-1:0] r_q;  // row within the tile
  reg [     15:0] mrem_q;  // M - i0
  reg [     15:0] nrem_q;  // N - j0
  reg [  CAw-1:0] ti_base_q;  // c_word + i0 * ldc_word
  reg [  CAw-1:0] tile_base_q;  // ti_base + j0 / W
  reg [  CAw-1:0] row_ptr_q;  // tile_base + r * ldc_word
  reg [ SelW-1:0] sel_q;  // (j0 % W) / Cols
  reg [  CAw-1:0] rstep_q;  // Rows * ldc_word

  wire            row_last = 32'(r_q) == Rows - 1;
  wire            jlast = nrem_q <= C16;
  wire            ilast = mrem_q <= R16;
  wire            row_ok = 16'(r_q) < mrem_q;
  wire [    15:0] nj = jlast ? nrem_q : C16;
  wire            sel_wrap = 32'(sel_q) == Slices - 1;
  wire [ CAw-1:0] next_ti_base = ti_base_q + rstep_q;
  wire [ CAw-1:0] next_tile_base = tile_base_q + (sel_wrap ? CAw'(1) : CAw'(0));

  always @(posedge clk_i) begin
    if (start_i) begin
      r_q         <= '0;
      mrem_q      <= m_i;
      nrem_q      <= n_i;
      ti_base_q   <= c_word_i;
      tile_base_q <= c_word_i;
      row_ptr_q   <= c_word_i;
      sel_q       <= '0;
      rstep_q     <= CAw'(Rows) * ldc_word_i;
    end else if (row_valid_i) begin
      if (!row_last) begin
        r_q       <= r_q + 1'b1;
        row_ptr_q <= row_ptr_q + ldc_word_i;
      end else if (!jlast) begin
        r_q         <= '0;
        nrem_q      <= nrem_q - C16;
        sel_q       <= sel_wrap ? '0 : sel_q + 1'b1;
        tile_base_q <= next_tile_base;
        row_ptr_q   <= next_tile_base;
      end else begin
        r_q         <= '0;
        nrem_q      <= n_i;
        mrem_q      <= mrem_q - R16;
        sel_q       <= '0;
        ti_base_q   <= next_ti_base;
        tile_base_q <= next_ti_base;
        row_ptr_q   <= next_ti_base;
      end
    end
  end

  assign re_o    = row_valid_i && accumulate_i && row_ok;
  assign raddr_o = row_ptr_q;

  // ---------------------------------------------------------------- stage 1
  reg               s1_valid_q;
  reg               s1_ok_q;
  reg               s1_last_q;
  reg [ SelW-1:0]   s1_sel_q;
  reg [ CAw-1:0]    s1_addr_q;
  reg [Cols-1:0]    s1_mask_q;  // lanes inside N
  reg [Cols*32-1:0] s1_sum_q;

  always @(posedge clk_i) begin
    if (rst_i) s1_valid_q <= 1'b0;
    else s1_valid_q <= row_valid_i;
  end

  always @(posedge clk_i) begin
    if (row_valid_i) begin
      s1_ok_q   <= row_ok;
      s1_last_q <= row_last && jlast && ilast;
      s1_sel_q  <= sel_q;
      s1_addr_q <= row_ptr_q;
      for (int c = 0; c < Cols; c++) s1_mask_q[c] <= 16'(c) < nj;
      s1_sum_q <= row_sum_i;
    end
  end

  // The tile's lanes of the old word.
  reg [Cols*32-1:0] old;
  always @* begin
    old = rdata_i[Cols*32-1:0];
    for (int s = 1; s < Slices; s++) begin
      if (32'(s1_sel_q) == s) old = rdata_i[s*Cols*32+:Cols*32];
    end
  end

  // ---------------------------------------------------------------- stage 2
  reg             s2_valid_q;
  reg             s2_last_q;
  reg [ W*4-1:0]  s2_we_q;
  reg [ CAw-1:0]  s2_addr_q;
  reg [W*32-1:0]  s2_data;

  always @(posedge clk_i) begin
    if (rst_i) begin
      s2_valid_q <= 1'b0;
      s2_we_q    <= '0;
    end else begin
      s2_valid_q <= s1_valid_q;
      for (int e = 0; e < W; e++) begin
        s2_we_q[e*4+:4] <= {4{s1_valid_q && s1_ok_q && 32'(s1_sel_q) == e / Cols &&
                             s1_mask_q[e%Cols]}};
      end
    end
  end

  // The result lanes: old + sum with accumulate, else the sum itself, loaded
  // with the stage-2 registers (sa_fp32_add holds the register, so the add is
  // evaluated only for a row that is written with accumulate).
  wire [31:0] lane_q[Cols];
  for (genvar c = 0; c < Cols; c++) begin : g_add
    /* verilator lint_off PINCONNECTEMPTY */
    sa_fp32_add u_add (
        .clk_i   (clk_i),
        .en_i    (s1_valid_q),
        .y_only_i(!accumulate_i),
        .keep_i  (1'b0),
        .x_i     (old[c*32+:32]),
        .y_i     (s1_sum_q[c*32+:32]),
        .q_o     (lane_q[c]),
        .keep_o  ()
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end

  always @(posedge clk_i) begin
    if (s1_valid_q) begin
      s2_last_q <= s1_last_q;
      s2_addr_q <= s1_addr_q;
    end
  end

  // The word replicates the row W / Cols times; the byte enables pick the
  // tile's lanes.
  always @* begin
    for (int e = 0; e < W; e++) s2_data[e*32+:32] = lane_q[e%Cols];
  end

  assign we_o    = s2_we_q;
  assign waddr_o = s2_addr_q;
  assign wdata_o = s2_data;
  assign last_o  = s2_valid_q && s2_last_q;

endmodule

`default_nettype wire
