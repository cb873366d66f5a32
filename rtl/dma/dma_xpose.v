// dma_xpose: transposes 4 x 4 tiles of 2-byte elements between the packed source rows and
// the packed destination rows of a transposing load.
//
// In tile mode every source segment is one row of a tile: at most 4 elements, one packed beat
// (dma_agen, dma_rd_pack). A tile arrives as t <= 4 such beats, the last one flagged tlast and
// carrying w - 1, the number of elements per row minus one. It leaves as w beats, beat j
// holding element j of every row: lanes 2i+1:2i = row i's element j for i < t (zero above).
// Two tile banks: one fills while the other drains, so a stream of full tiles moves at a beat
// per cycle each way.
//
// With en_i low (plain copies) the block is a wire: packed beats pass straight through.

`default_nettype none

module dma_xpose (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        en_i,  // transpose; held for a whole transfer
    // packed source beats
    input  wire        in_valid_i,
    output wire        in_ready_o,
    input  wire [63:0] in_data_i,
    input  wire        in_tlast_i,  // last row of its tile
    input  wire [ 1:0] in_wm1_i,    // with in_tlast_i: elements per row - 1
    // packed destination beats
    output wire        out_valid_o,
    input  wire        out_ready_i,
    output wire [63:0] out_data_o
);

  reg [63:0] row_q      [8];  // bank b, row i at index 4b + i
  reg [ 1:0] full_q;  // bank holds a whole tile
  reg [ 1:0] wm1_q      [2];  // per bank: elements per row - 1
  reg [ 1:0] rows_m1_q  [2];  // per bank: rows - 1
  reg        fill_bank_q;
  reg [ 1:0] fill_row_q;
  reg        drain_bank_q;
  reg [ 1:0] drain_col_q;

  wire x_in_ready = !full_q[fill_bank_q];
  wire x_in_fire = en_i && in_valid_i && x_in_ready;
  wire x_out_valid = full_q[drain_bank_q];
  wire x_out_fire = en_i && x_out_valid && out_ready_i;

  // Column drain_col_q of the draining bank; rows past the tile's last read as zero.
  wire [63:0] drain_row0 = row_q[{drain_bank_q, 2'd0}];
  wire [63:0] drain_row1 = row_q[{drain_bank_q, 2'd1}];
  wire [63:0] drain_row2 = row_q[{drain_bank_q, 2'd2}];
  wire [63:0] drain_row3 = row_q[{drain_bank_q, 2'd3}];
  wire [ 1:0] drain_rows_m1 = rows_m1_q[drain_bank_q];
  wire [63:0] column = {
    drain_rows_m1 >= 2'd3 ? drain_row3[{drain_col_q, 4'd0}+:16] : 16'd0,
    drain_rows_m1 >= 2'd2 ? drain_row2[{drain_col_q, 4'd0}+:16] : 16'd0,
    drain_rows_m1 >= 2'd1 ? drain_row1[{drain_col_q, 4'd0}+:16] : 16'd0,
    drain_row0[{drain_col_q, 4'd0}+:16]
  };
  wire drain_end = drain_col_q == wm1_q[drain_bank_q];

  assign in_ready_o  = en_i ? x_in_ready : out_ready_i;
  assign out_valid_o = en_i ? x_out_valid : in_valid_i;
  assign out_data_o  = en_i ? column : in_data_i;

  always @(posedge clk_i) begin
    if (rst_i) begin
      full_q       <= 2'b00;
      fill_bank_q  <= 1'b0;
      fill_row_q   <= 2'd0;
      drain_bank_q <= 1'b0;
      drain_col_q  <= 2'd0;
    end else begin
      if (x_in_fire) begin
        if (in_tlast_i) begin
          fill_bank_q <= !fill_bank_q;
          fill_row_q  <= 2'd0;
        end else begin
          fill_row_q <= fill_row_q + 2'd1;
        end
      end
      if (x_out_fire) begin
        if (drain_end) begin
          drain_bank_q <= !drain_bank_q;
          drain_col_q  <= 2'd0;
        end else begin
          drain_col_q <= drain_col_q + 2'd1;
        end
      end
      // A bank fills (fill_bank_q) or drains (drain_bank_q), never both in one cycle: a
      // bank is filled only while empty and drained only while full.
      if (x_in_fire && in_tlast_i) full_q[fill_bank_q] <= 1'b1;
      if (x_out_fire && drain_end) full_q[drain_bank_q] <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (x_in_fire) begin
      row_q[{fill_bank_q, fill_row_q}] <= in_data_i;
      if (in_tlast_i) begin
        wm1_q[fill_bank_q]     <= in_wm1_i;
        rows_m1_q[fill_bank_q] <= fill_row_q;
      end
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i && x_in_fire && !in_tlast_i) begin
      assert (fill_row_q != 2'd3)
      else $error("dma_xpose: a tile row beyond the fourth");
    end
  end
`endif

endmodule

`default_nettype wire
