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
// gives two packed beats: the second one leaves in an extra cycle (pend_q) in which no read
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

  reg        o_valid_q;
  reg [63:0] o_data_q;
  reg        o_slast_q;
  reg        o_tlast_q;
  reg [ 1:0] o_wm1_q;
  reg [63:0] prev_q;  // the previous read beat of the segment
  reg        pend_q;  // a last packed beat still to go out of prev_q
  reg [ 2:0] pend_off_q;
  reg        pend_tlast_q;
  reg [ 1:0] pend_wm1_q;

  wire can_load = !o_valid_q || out_ready_i;
  wire off0 = in_off_i == 3'd0;
  // This read beat completes a packed beat.
  wire emit = off0 || !in_first_i || in_last_i;
  // ... and its segment's last packed beat still follows (nsrc == nout, more than one beat).
  wire extra = in_last_i && !in_first_i && !off0 && in_end_i >= in_off_i;
  wire take = !pend_q && in_valid_i && (!emit || can_load);

  // ({hi, lo} >> 8 * off)[63:0]; a shift by 64 or more gives 0.
  function automatic [63:0] shr(input [63:0] hi, input [63:0] lo, input [2:0] off);
    shr = (lo >> {off, 3'b000}) | (hi << (7'd64 - {1'b0, off, 3'b000}));
  endfunction

  wire [63:0] packed_data = (in_first_i && in_last_i) ? shr(64'd0, in_data_i, in_off_i) :
                            off0 ? in_data_i : shr(in_data_i, prev_q, in_off_i);

  assign in_ready_o  = take;
  assign out_valid_o = o_valid_q;
  assign out_data_o  = o_data_q;
  assign out_slast_o = o_slast_q;
  assign out_tlast_o = o_tlast_q;
  assign out_wm1_o   = o_wm1_q;

  always @(posedge clk_i) begin
    if (rst_i) begin
      o_valid_q <= 1'b0;
      pend_q    <= 1'b0;
    end else if (pend_q) begin
      if (can_load) begin
        o_valid_q <= 1'b1;
        pend_q    <= 1'b0;
      end
    end else if (take && emit) begin
      o_valid_q <= 1'b1;
      pend_q    <= extra;
    end else if (can_load) begin
      o_valid_q <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (pend_q) begin
      if (can_load) begin
        o_data_q  <= shr(64'd0, prev_q, pend_off_q);
        o_slast_q <= 1'b1;
        o_tlast_q <= pend_tlast_q;
        o_wm1_q   <= pend_wm1_q;
      end
    end else if (take && emit) begin
      o_data_q  <= packed_data;
      o_slast_q <= in_last_i && !extra;
      o_tlast_q <= in_tlast_i && in_last_i && !extra;
      o_wm1_q   <= in_wm1_i;
    end
    if (take) begin
      prev_q       <= in_data_i;
      pend_off_q   <= in_off_i;
      pend_tlast_q <= in_tlast_i;
      pend_wm1_q   <= in_wm1_i;
    end
  end

endmodule

`default_nettype wire
