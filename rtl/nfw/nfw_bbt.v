// nfw_bbt: bad-block replacement table of the NAND program pipeline.
//
// The firmware's bad-block manager (models/flash/ftl_bbm.h) maps a block of one plane of one
// die to a spare block of the same plane when it fails or wears out. The entries that concern
// the hardware-written streams are loaded here: (die, plane, block) -> spare. A lookup
// returns the spare of the matching entry, the block itself when none matches; the lowest
// matching entry wins. Entries are written one per cycle; the lookup is combinational.

`default_nettype none

module nfw_bbt #(
    parameter int Entries = 4  // table entries, 1..256
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // write entry idx: valid, key (die, plane, block), spare
    input  wire        we_i,
    input  wire [ 7:0] idx_i,
    input  wire        entry_valid_i,
    input  wire [11:0] entry_die_i,
    input  wire [ 3:0] entry_plane_i,
    input  wire [15:0] entry_block_i,
    input  wire [15:0] entry_spare_i,
    // lookup
    input  wire [15:0] die_i,
    input  wire [ 3:0] plane_i,
    input  wire [15:0] block_i,
    output reg  [15:0] block_o
);

  if (Entries < 1 || Entries > 256) begin : g_bad_entries
    nfw_param_error_Entries_must_be_1_to_256 u_err ();
  end

  reg        valid_q[Entries];
  reg [11:0] die_q  [Entries];
  reg [ 3:0] plane_q[Entries];
  reg [15:0] block_q[Entries];
  reg [15:0] spare_q[Entries];

  always @(posedge clk_i) begin
    for (int i = 0; i < Entries; i++) begin
      if (rst_i) begin
        valid_q[i] <= 1'b0;
      end else if (we_i && idx_i == 8'(i)) begin
        valid_q[i] <= entry_valid_i;
        die_q[i]   <= entry_die_i;
        plane_q[i] <= entry_plane_i;
        block_q[i] <= entry_block_i;
        spare_q[i] <= entry_spare_i;
      end
    end
  end

  always @* begin
    block_o = block_i;
    for (int i = Entries - 1; i >= 0; i--) begin
      if (valid_q[i] && {4'd0, die_q[i]} == die_i && plane_q[i] == plane_i &&
          block_q[i] == block_i)
        block_o = spare_q[i];
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i && we_i) begin
      assert (32'(idx_i) < Entries)
      else $error("nfw_bbt: entry %0d; accepted 0..%0d", idx_i, Entries - 1);
    end
  end
`endif

endmodule

`default_nettype wire
