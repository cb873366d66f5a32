// nfw_merge: the completion merger of the NAND write lanes (nfw_lanes).
//
// Each lane reports its pages in its own numbering: lane l's die d is the FMS's die
// d x Lanes + l, and its logical page x (plane p = x % Planes, unit v = x / Planes) is the
// stream's page (v x Lanes + l) x Planes + p = Lanes x (x - p) + l x Planes + p (the
// splitter's layout, nfw_split). The merger takes one completion a cycle, round robin over
// the lanes from the one after the last served, translates it and sends it out of a
// register. Completions of one lane stay in order; across lanes they interleave.
//
// Handshake contract: rtl/README.md. The output is a register; a lane's ready depends on the
// output register, the outer ready and the lanes' valids (registers of nfw_top).

`default_nettype none

module nfw_merge #(
    parameter int Planes = 2,  // planes per die, 1..16
    parameter int Lanes  = 2   // lanes, a power of two, 1..16
) (
    input  wire                clk_i,
    input  wire                rst_i,
    // the lanes' completions, lane l in bits [l*W +: W]
    input  wire [   Lanes-1:0] in_valid_i,
    output wire [   Lanes-1:0] in_ready_o,
    input  wire [ Lanes*4-1:0] in_stream_i,
    input  wire [Lanes*32-1:0] in_lpn_i,
    input  wire [Lanes*16-1:0] in_pbn_i,
    input  wire [Lanes*16-1:0] in_die_i,
    input  wire [ Lanes*4-1:0] in_plane_i,
    input  wire [Lanes*16-1:0] in_block_i,
    input  wire [Lanes*16-1:0] in_page_i,
    input  wire [   Lanes-1:0] in_err_i,
    // merged, in the FMS's numbering
    output wire                out_valid_o,
    input  wire                out_ready_i,
    output wire [         3:0] out_stream_o,
    output wire [        31:0] out_lpn_o,
    output wire [        15:0] out_pbn_o,
    output wire [        15:0] out_die_o,
    output wire [         3:0] out_plane_o,
    output wire [        15:0] out_block_o,
    output wire [        15:0] out_page_o,
    output wire                out_err_o
);

  localparam int LaneW = Lanes > 1 ? $clog2(Lanes) : 1;

  reg             valid_q;
  reg [      3:0] stream_q, plane_q;
  reg [     31:0] lpn_q;
  reg [     15:0] pbn_q, die_q, block_q, page_q;
  reg             err_q;
  reg [LaneW-1:0] rr_q;  // the lane served first this cycle

  wire            space = !valid_q || out_ready_i;

  // Round robin: the first valid lane from rr_q on.
  logic             found;
  logic [LaneW-1:0] g;
  always @* begin
    found = 1'b0;
    g = '0;
    for (int k = 0; k < Lanes; k++) begin
      logic [LaneW-1:0] idx;
      idx = Lanes == 1 ? '0 : LaneW'(rr_q + LaneW'(k));
      if (!found && in_valid_i[idx]) begin
        found = 1'b1;
        g = idx;
      end
    end
  end

  wire take = space && found;
  assign in_ready_o = take ? Lanes'(1) << g : '0;

  // The granted lane's fields, translated.
  wire [31:0] x = in_lpn_i[32*g+:32];
  wire [ 3:0] p = in_plane_i[4*g+:4];
  wire [31:0] lpn = 32'(Lanes) * (x - 32'(p)) + 32'(g) * 32'(Planes) + 32'(p);
  wire [15:0] die = 16'(32'(in_die_i[16*g+:16]) * Lanes + 32'(g));

  always @(posedge clk_i) begin
    if (rst_i) begin
      valid_q <= 1'b0;
      rr_q    <= '0;
    end else if (take) begin
      valid_q <= 1'b1;
      rr_q    <= Lanes == 1 ? '0 : g + 1'b1;
    end else if (out_ready_i) begin
      valid_q <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (take) begin
      stream_q <= in_stream_i[4*g+:4];
      lpn_q    <= lpn;
      pbn_q    <= in_pbn_i[16*g+:16];
      die_q    <= die;
      plane_q  <= p;
      block_q  <= in_block_i[16*g+:16];
      page_q   <= in_page_i[16*g+:16];
      err_q    <= in_err_i[g];
    end
  end

  assign out_valid_o  = valid_q;
  assign out_stream_o = stream_q;
  assign out_lpn_o    = lpn_q;
  assign out_pbn_o    = pbn_q;
  assign out_die_o    = die_q;
  assign out_plane_o  = plane_q;
  assign out_block_o  = block_q;
  assign out_page_o   = page_q;
  assign out_err_o    = err_q;

endmodule

`default_nettype wire
