// cmn_ram_1r1w: simple dual-port RAM, one write port and one registered read
// port, written so that Yosys infers a block RAM (and Verilator keeps it an
// array).
//
// Write: in a cycle with any bit of we_i set, the lanes whose bit is set are
// written at the rising edge (lane l = wdata_i[l*LaneW +: LaneW]).
// Read: in a cycle with re_i, rdata_o shows mem[raddr_i] from the next cycle
// on, and holds it until the next read (latency 1, a register: no reset).
// Reading the word that is being written in the same cycle returns its old
// value in simulation; block RAMs differ there, so callers must not rely on
// the lanes being written (the core never does: see rtl/core/README.md).
//
// The array has no reset and no initial value (random under Verilator's
// --x-initial unique); an address beyond Depth is an error (assertion).

`default_nettype none

module cmn_ram_1r1w #(
    parameter int Width = 64,  // bits per word
    parameter int Depth = 64,  // words
    parameter int LaneW = 8,   // bits per write-enable lane; divides Width
    localparam int Lanes = Width / LaneW,
    localparam int AddrW = Depth > 1 ? $clog2(Depth) : 1
) (
    input  wire             clk_i,
    // write port
    input  wire [Lanes-1:0] we_i,     // one enable per lane
    input  wire [AddrW-1:0] waddr_i,
    input  wire [Width-1:0] wdata_i,
    // read port
    input  wire             re_i,
    input  wire [AddrW-1:0] raddr_i,
    output wire [Width-1:0] rdata_o
);

  if (Width < 1 || LaneW < 1 || Width % LaneW != 0) begin : g_bad_lane
    cmn_param_error_LaneW_must_divide_Width u_err ();
  end
  if (Depth < 2) begin : g_bad_depth
    cmn_param_error_Depth_must_be_at_least_2 u_err ();
  end

  reg [Width-1:0] mem[Depth];
  reg [Width-1:0] rdata_q;

  // One process per lane: Verilator cannot unroll a loop of delayed writes
  // into a wide memory, and Yosys merges the lanes into one write port with
  // per-lane enables (a byte-enable block RAM for LaneW = 8).
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    always @(posedge clk_i) begin
      if (we_i[l]) mem[waddr_i][l*LaneW+:LaneW] <= wdata_i[l*LaneW+:LaneW];
    end
  end

  always @(posedge clk_i) begin
    if (re_i) rdata_q <= mem[raddr_i];
  end

  assign rdata_o = rdata_q;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    assert (we_i == '0 || 32'(waddr_i) < Depth)
    else $error("cmn_ram_1r1w: write to word %0d of %0d", waddr_i, Depth);
    assert (!re_i || 32'(raddr_i) < Depth)
    else $error("cmn_ram_1r1w: read of word %0d of %0d", raddr_i, Depth);
  end
`endif

endmodule

`default_nettype wire
