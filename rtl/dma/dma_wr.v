// dma_wr: places packed segment beats at their destination byte offsets and turns them into
// write requests with byte strobes, one per cycle.
//
// The destination address generator (dma_agen) gives the write beats: address, first/last
// beat of the segment, lane of the segment's first byte (off) and last byte (end). A segment
// of len bytes starting in lane off takes nwr = ceil((off + len) / 8) writes and arrives as
// nin = ceil(len / 8) packed beats. Write j takes lanes off..7 from packed beat j and lanes
// 0..off-1 from packed beat j-1 (held in prev_q), so each write consumes one packed beat,
// except a last write that lies wholly in the previous packed beat (nwr == nin + 1, i.e.
// end < off), which consumes none. Strobes cover lanes off..7 of the first write and 0..end of
// the last; write data outside the strobes is zero.
//
// gate_i holds writes back (the tensor buffer's write-acknowledge credit).

`default_nettype none

module dma_wr #(
    parameter int AddrW = 40  // byte address bits
) (
    input  wire             clk_i,
    input  wire             rst_i,
    input  wire             gate_i,  // a write may go this cycle
    // write beats from the destination address generator
    input  wire             beat_valid_i,
    output wire             beat_ready_o,
    input  wire [AddrW-1:0] beat_addr_i,
    input  wire             beat_first_i,
    input  wire             beat_last_i,
    input  wire [      2:0] beat_off_i,
    input  wire [      2:0] beat_end_i,
    // packed destination beats
    input  wire             in_valid_i,
    output wire             in_ready_o,
    input  wire [     63:0] in_data_i,
    // write requests
    output wire             req_valid_o,
    input  wire             req_ready_i,
    output wire [AddrW-1:0] req_addr_o,
    output reg  [     63:0] req_wdata_o,
    output wire [      7:0] req_wstrb_o
);

  reg [63:0] prev_q;  // the previous packed beat of the segment

  wire consume = !(beat_last_i && beat_end_i < beat_off_i);
  wire go = beat_valid_i && (!consume || in_valid_i) && gate_i;
  wire fire = go && req_ready_i;

  // Lanes first_lane..last_lane are written.
  wire [2:0] first_lane = beat_first_i ? beat_off_i : 3'd0;
  wire [2:0] last_lane = beat_last_i ? beat_end_i : 3'd7;
  // ({in, prev} >> 8 * (8 - off))[63:0]: lanes off..7 from in, lanes 0..off-1 from prev (a
  // shift by 64 gives 0, so off = 0 is plain in).
  wire [6:0] shift_bits = {1'b0, beat_off_i, 3'b000};
  wire [63:0] placed = (prev_q >> (7'd64 - shift_bits)) | (in_data_i << shift_bits);

  reg [7:0] wstrb;
  always @(*) begin
    for (int i = 0; i < 8; i++) begin
      wstrb[i] = i >= {29'd0, first_lane} && i <= {29'd0, last_lane};
      req_wdata_o[8*i+:8] = wstrb[i] ? placed[8*i+:8] : 8'd0;
    end
  end

  assign beat_ready_o = fire;
  assign in_ready_o   = fire && consume;
  assign req_valid_o  = go;
  assign req_addr_o   = beat_addr_i;
  assign req_wstrb_o  = wstrb;

  always @(posedge clk_i) begin
    if (fire && consume) prev_q <= in_data_i;
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i && beat_valid_i) begin
      assert (beat_addr_i[2:0] == 3'd0)
      else $error("dma_wr: write beat address %h is not a multiple of 8", beat_addr_i);
      assert (first_lane <= last_lane)
      else $error("dma_wr: empty write (lanes %0d..%0d)", first_lane, last_lane);
    end
  end
`endif

endmodule

`default_nettype wire
