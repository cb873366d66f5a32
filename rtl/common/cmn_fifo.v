// cmn_fifo: synchronous first-word-fall-through FIFO with valid/ready ports.
//
// Depth entries of Width bits. The head entry is presented on out_data_o as
// soon as it is written (one cycle after the input beat), so an empty FIFO
// adds one cycle of latency and a non-empty one sustains a beat per cycle in
// and out at the same time. in_ready_o and out_valid_o come straight from
// registered state (no combinational path from the other side), as the
// handshake contract in rtl/README.md asks.
//
// Storage is a plain register array read asynchronously: distributed RAM or
// flip-flops on an FPGA, which suits the shallow queues this tree needs.

`default_nettype none

module cmn_fifo #(
    parameter int Width = 32,  // payload bits
    parameter int Depth = 4    // entries, a power of two >= 2
) (
    input  wire                 clk_i,
    input  wire                 rst_i,
    // write side
    input  wire                 in_valid_i,
    output wire                 in_ready_o,
    input  wire [    Width-1:0] in_data_i,
    // read side
    output wire                 out_valid_o,
    input  wire                 out_ready_i,
    output wire [    Width-1:0] out_data_o,
    // occupancy, for monitoring
    output wire [$clog2(Depth):0] count_o
);

  localparam int AddrW = $clog2(Depth);

  if (Width < 1) begin : g_bad_width
    cmn_param_error_Width_must_be_at_least_1 u_err ();
  end
  if (Depth < 2 || (1 << AddrW) != Depth) begin : g_bad_depth
    cmn_param_error_Depth_must_be_a_power_of_two_at_least_2 u_err ();
  end

  reg [Width-1:0] mem_q[Depth];
  // Pointers carry one extra wrap bit so that full and empty differ.
  reg [AddrW:0] wr_ptr_q, rd_ptr_q;

  wire [AddrW:0] count = wr_ptr_q - rd_ptr_q;
  wire full = count == Depth[AddrW:0];
  wire empty = count == '0;
  wire in_fire = in_valid_i && !full;
  wire out_fire = out_ready_i && !empty;

  assign in_ready_o  = !full;
  assign out_valid_o = !empty;
  assign out_data_o  = mem_q[rd_ptr_q[AddrW-1:0]];
  assign count_o     = count;

  always @(posedge clk_i) begin
    if (rst_i) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
    end else begin
      if (in_fire) wr_ptr_q <= wr_ptr_q + 1'b1;
      if (out_fire) rd_ptr_q <= rd_ptr_q + 1'b1;
    end
  end

  always @(posedge clk_i) begin
    if (in_fire) mem_q[wr_ptr_q[AddrW-1:0]] <= in_data_i;
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (count <= Depth[AddrW:0])
      else $error("cmn_fifo: occupancy %0d exceeds depth %0d", count, Depth);
    end
  end
`endif

endmodule

`default_nettype wire
