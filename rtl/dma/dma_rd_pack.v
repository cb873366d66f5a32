// dma_rd_pack: turns read beats (8-byte aligned memory words) into packed segment beats:
// byte 0 of a segment in lane 0 of its first packed beat, 8 bytes per packed beat, the last
// packed beat of a segment partly filled. Every segment starts a new packed beat.
//
// A segment whose first byte sits in lane off of its first read beat needs
// nsrc = ceil((off + len) / 8) read beats and gives nout = ceil(len / 8) packed beats. With
// off = 0 every read beat is a packed beat. Otherwise packed beat k takes lanes off..7 of read
// beat k and lanes 0..off-1 of read beat k+1, and goes out when read beat k+1 arrives; the
// first read beat only fills the holding register. When nsrc == nout (the segment's last lane
// end >= off) the last packed beat lies wholly in the last read beat, so the last read beat
// gives two packed beats: the second one leaves in an extra cycle (last_pending_q) in which no read
// beat is taken. A one-beat segment gives its packed beat at once.
//
// The per-beat sideband comes from the read address generator through the meta FIFO
// (dma_agen: first, last, off, end, tlast, wm1); tlast and wm1 travel with the segment's last
// packed beat for the transpose buffer.

`default_nettype none

module dma_rd_pack (
    input  wire        clk_i,
    input  wire        rst_i,
    // read beats, in request order, with their sideband
    input  wire        in_valid_i,
    output wire        in_ready_o,
    input  wire [63:0] in_data_i,
    input  wire        in_first_i,
    input  wire        in_last_i,
    input  wire [ 2:0] in_off_i,
    input  wire [ 2:0] in_end_i,
    input  wire        in_tlast_i,
    input  wire [ 1:0] in_wm1_i,
    // packed beats
    output wire        out_valid_o,
    input  wire        out_ready_i,
    output wire [63:0] out_data_o,
    output wire        out_slast_o,  // last packed beat of its segment
    output wire        out_tlast_o,  // ... and the segment is the last row of its tile
    output wire [ 1:0] out_wm1_o
);

  reg        out_valid_q;
  reg [63:0] out_data_q;
  reg        out_slast_q;
  reg        out_tlast_q;
  reg [ 1:0] out_wm1_q;
  reg [63:0] prev_q;  // the previous read beat of the segment
  reg        last_pending_q;  // a last packed beat still to go out of prev_q
  reg [ 2:0] prev_off_q;
  reg        prev_tlast_q;
  reg [ 1:0] prev_wm1_q;

  wire can_load = !out_valid_q || out_ready_i;
  wire off_zero = in_off_i == 3'd0;
  // This read beat completes a packed beat.
  wire emit = off_zero || !in_first_i || in_last_i;
  // ... and its segment's last packed beat still follows (nsrc == nout, more than one beat).
  wire extra = in_last_i && !in_first_i && !off_zero && in_end_i >= in_off_i;
  wire take = !last_pending_q && in_valid_i && (!emit || can_load);

  // ({hi, lo} >> 8 * off)[63:0]; a shift by 64 or more gives 0.
  function automatic [63:0] shr(input [63:0] hi, input [63:0] lo, input [2:0] off);
    shr = (lo >> {off, 3'b000}) | (hi << (7'd64 - {1'b0, off, 3'b000}));
  endfunction

  wire [63:0] packed_data = (in_first_i && in_last_i) ? shr(64'd0, in_data_i, in_off_i) :
                            off_zero ? in_data_i : shr(in_data_i, prev_q, in_off_i);

  assign in_ready_o  = take;
  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;
  assign out_slast_o = out_slast_q;
  assign out_tlast_o = out_tlast_q;
  assign out_wm1_o   = out_wm1_q;

  always @(posedge clk_i) begin
    if (rst_i) begin
      out_valid_q    <= 1'b0;
      last_pending_q <= 1'b0;
    end else if (last_pending_q) begin
      if (can_load) begin
        out_valid_q    <= 1'b1;
        last_pending_q <= 1'b0;
      end
    end else if (take && emit) begin
      out_valid_q    <= 1'b1;
      last_pending_q <= extra;
    end else if (can_load) begin
      out_valid_q <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (last_pending_q) begin
      if (can_load) begin
        out_data_q  <= shr(64'd0, prev_q, prev_off_q);
        out_slast_q <= 1'b1;
        out_tlast_q <= prev_tlast_q;
        out_wm1_q   <= prev_wm1_q;
      end
    end else if (take && emit) begin
      out_data_q  <= packed_data;
      out_slast_q <= in_last_i && !extra;
      out_tlast_q <= in_tlast_i && in_last_i && !extra;
      out_wm1_q   <= in_wm1_i;
    end
    if (take) begin
      prev_q       <= in_data_i;
      prev_off_q   <= in_off_i;
      prev_tlast_q <= in_tlast_i;
      prev_wm1_q   <= in_wm1_i;
    end
  end

endmodule

`default_nettype wire
