// dma_agen: walks the segments of one side (source or destination) of a 2-D transfer and
// splits each segment into 8-byte beats, one beat per cycle.
//
// A segment is a run of contiguous bytes on this side. Row mode (tile_i = 0): segment r is
// row r, len_i bytes at base_i + r * stride_i, for r = 0 .. rows_i - 1. Tile mode (tile_i =
// 1, for transposes): the rows_i x len_i bytes are cut into tiles of 4 rows x 8 bytes (smaller
// at the right and bottom edges); segment = one row of one tile. Tiles go row of tiles by row
// of tiles (colmajor_i = 0, the source of a transpose) or column by column (colmajor_i = 1, its
// destination); inside a tile, rows go top to bottom. So the k-th tile of the source is the
// transpose of the k-th tile of the destination.
//
// Two register stages: the walker holds the next segment (row address, column offset, row
// index), the beat stage the current one (beat address, beats left). The beat stage loads the
// next segment in the cycle its last beat leaves, so one-beat segments still go at one per
// cycle.
//
// Per beat: first/last beat of its segment, the byte lanes of the segment's first (off) and
// last (end) byte, whether the segment ends its tile (tlast), and in tile mode the elements
// of the segment minus one (wm1).

`default_nettype none

module dma_agen #(
    parameter int AddrW = 40  // byte address bits
) (
    input  wire             clk_i,
    input  wire             rst_i,
    // walk: geometry held from start_i until done_o
    input  wire             start_i,     // one-cycle pulse: begin a walk
    input  wire             tile_i,      // 1: 4-row x 8-byte tiles; 0: whole rows
    input  wire             colmajor_i,  // tile order: 1 = down each column of tiles first
    input  wire [AddrW-1:0] base_i,      // address of row 0
    input  wire [AddrW-1:0] stride_i,    // bytes from one row to the next
    input  wire [     23:0] rows_i,      // rows on this side, >= 1
    input  wire [     23:0] len_i,       // bytes per row on this side, >= 1 (even in tile mode)
    output wire             done_o,      // every beat of the walk has left
    // beats
    output wire             beat_valid_o,
    input  wire             beat_ready_i,
    output wire [AddrW-1:0] beat_addr_o,   // a multiple of 8
    output wire             beat_first_o,  // first beat of its segment
    output wire             beat_last_o,   // last beat of its segment
    output wire [      2:0] beat_off_o,    // lane of the segment's first byte
    output wire [      2:0] beat_end_o,    // lane of the segment's last byte
    output wire             beat_tlast_o,  // the segment is the last row of its tile
    output wire [      1:0] beat_wm1_o     // tile mode: 2-byte elements in the segment - 1
);

  if (AddrW < 8) begin : g_bad_addrw
    cmn_param_error_AddrW_must_be_at_least_8 u_err ();
  end

  // ---------------------------------------------------------------- walker: next segment
  reg             walk_done_q;  // no segment left
  reg [AddrW-1:0] walk_row_addr_q;  // base + walk_row_q * stride
  reg [AddrW-1:0] walk_tile_row_addr_q;  // address of the first row of the current row of tiles
  reg [     23:0] walk_col_q;  // byte offset of the current column of tiles (0 in row mode)
  reg [     23:0] walk_row_q;  // row index on this side

  wire [23:0] row_rest = len_i - walk_col_q;  // bytes of the row from the tile column on
  wire [23:0] seg_len = (tile_i && row_rest > 24'd8) ? 24'd8 : row_rest;
  wire [AddrW-1:0] seg_addr = walk_row_addr_q + {{(AddrW - 24) {1'b0}}, walk_col_q};
  wire [24:0] seg_end = {22'd0, seg_addr[2:0]} + {1'b0, seg_len} - 25'd1;  // off + len - 1
  wire last_row = walk_row_q == rows_i - 24'd1;
  wire seg_tlast = (tile_i && walk_row_q[1:0] == 2'b11) || last_row;
  wire last_col = !tile_i || row_rest <= 24'd8;
  wire last_tile_row = (walk_row_q | 24'd3) >= rows_i - 24'd1;

  // ---------------------------------------------------------------- beat stage: current segment
  reg             beat_valid_q;
  reg [AddrW-4:0] beat_addr_q;  // beat address / 8
  reg [     21:0] beats_left_q;  // beats after this one
  reg             beat_first_q;
  reg [      2:0] beat_off_q;
  reg [      2:0] beat_end_q;
  reg             beat_tlast_q;
  reg [      1:0] beat_wm1_q;

  wire beat_fire = beat_valid_q && beat_ready_i;
  wire beat_last = beats_left_q == 22'd0;
  wire seg_load = !walk_done_q && (!beat_valid_q || (beat_fire && beat_last));

  assign done_o       = walk_done_q && !beat_valid_q;
  assign beat_valid_o = beat_valid_q;
  assign beat_addr_o  = {beat_addr_q, 3'b000};
  assign beat_first_o = beat_first_q;
  assign beat_last_o  = beat_last;
  assign beat_off_o   = beat_off_q;
  assign beat_end_o   = beat_end_q;
  assign beat_tlast_o = beat_tlast_q;
  assign beat_wm1_o   = beat_wm1_q;

  // Walker: control state.
  always @(posedge clk_i) begin
    if (rst_i) begin
      walk_done_q <= 1'b1;
    end else if (start_i) begin
      walk_done_q <= 1'b0;
    end else if (seg_load && seg_tlast && (!tile_i || (last_col && last_tile_row))) begin
      walk_done_q <= 1'b1;  // the last row of the last tile (row mode: the last row)
    end
  end

  // Walker: position. Only its control state (walk_done_q) needs a reset: start_i sets the rest.
  always @(posedge clk_i) begin
    if (start_i) begin
      walk_row_addr_q      <= base_i;
      walk_tile_row_addr_q <= base_i;
      walk_col_q           <= 24'd0;
      walk_row_q           <= 24'd0;
    end else if (seg_load) begin
      if (!seg_tlast) begin
        // next row of the same tile (or of the transfer, in row mode)
        walk_row_q      <= walk_row_q + 24'd1;
        walk_row_addr_q <= walk_row_addr_q + stride_i;
      end else if (!colmajor_i) begin
        if (!last_col) begin
          // same row of tiles, next column of tiles: back to its first row
          walk_col_q      <= walk_col_q + 24'd8;
          walk_row_q      <= {walk_row_q[23:2], 2'b00};
          walk_row_addr_q <= walk_tile_row_addr_q;
        end else begin
          // next row of tiles, first column
          walk_col_q           <= 24'd0;
          walk_row_q           <= walk_row_q + 24'd1;
          walk_row_addr_q      <= walk_row_addr_q + stride_i;
          walk_tile_row_addr_q <= walk_row_addr_q + stride_i;
        end
      end else begin
        if (!last_tile_row) begin
          // down the same column of tiles
          walk_row_q      <= walk_row_q + 24'd1;
          walk_row_addr_q <= walk_row_addr_q + stride_i;
        end else begin
          // top of the next column of tiles
          walk_col_q      <= walk_col_q + 24'd8;
          walk_row_q      <= 24'd0;
          walk_row_addr_q <= base_i;
        end
      end
    end
  end

  // Beat stage.
  always @(posedge clk_i) begin
    if (rst_i || start_i) begin
      beat_valid_q <= 1'b0;
    end else if (seg_load) begin
      beat_valid_q <= 1'b1;
    end else if (beat_fire && beat_last) begin
      beat_valid_q <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (seg_load) begin
      beat_addr_q  <= seg_addr[AddrW-1:3];
      beats_left_q <= seg_end[24:3];
      beat_first_q <= 1'b1;
      beat_off_q   <= seg_addr[2:0];
      beat_end_q   <= seg_end[2:0];
      beat_tlast_q <= seg_tlast;
      beat_wm1_q   <= seg_len[2:1] - 2'd1;
    end else if (beat_fire) begin
      beat_addr_q  <= beat_addr_q + 1'b1;
      beats_left_q <= beats_left_q - 22'd1;
      beat_first_q <= 1'b0;
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      if (start_i) begin
        assert (rows_i != 24'd0 && len_i != 24'd0)
        else $error("dma_agen: started with rows %0d len %0d", rows_i, len_i);
        assert (!tile_i || !len_i[0])
        else $error("dma_agen: tile mode needs an even row length, got %0d", len_i);
        assert (done_o)
        else $error("dma_agen: started while a walk is still running");
      end
      if (seg_load) begin
        assert (seg_len != 24'd0 && walk_row_q < rows_i && walk_col_q < len_i)
        else $error("dma_agen: segment outside the walk (row %0d col %0d)", walk_row_q, walk_col_q);
      end
    end
  end
`endif

endmodule

`default_nettype wire
