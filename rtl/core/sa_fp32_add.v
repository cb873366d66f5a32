// sa_fp32_add: fp32 + fp32 into a result register, the accumulate half of a
// PE (and the write-back's accumulate add, core_wb.v).
//
// Registers: on a cycle with en_i, q_o is loaded with x_i + y_i (or with y_i
// alone, with y_only_i), and with keep_i as well the same value goes into
// keep_o; both hold otherwise. In the PE, q_o is the accumulator (x_i is q_o
// itself: a one-cycle loop register -> add -> register, one product per
// cycle), y_only_i the clear of a tile's first step (the product *replaces*
// the accumulator: not 0 + p, which would turn a -0 product into +0) and
// keep_o the finished sum of a tile's last step. In the write-back, q_o is
// one lane of the word to write, y_only_i means "no accumulate".
// The registers live with the adder, written from a function in the clocked
// block, for the verilated model's sake: Verilator evaluates that function
// only on a clock edge with en_i, with every intermediate in a local
// variable, while a combinational adder would be evaluated in every cycle by
// every PE, busy or idle.
//
// The arithmetic (numerics contract included) is fp32_add() in
// sa_fp32_add.vh, shared with sa_grid.

`default_nettype none

module sa_fp32_add (
    input  wire        clk_i,
    input  wire        en_i,      // load q_o (and keep_o with keep_i) this cycle
    input  wire        y_only_i,  // load y_i itself rather than x_i + y_i
    input  wire        keep_i,    // load keep_o as well (with en_i)
    input  wire [31:0] x_i,       // fp32 operand
    input  wire [31:0] y_i,       // fp32 operand
    output wire [31:0] q_o,       // fp32 sum (registered), held without en_i
    output wire [31:0] keep_o     // a copy of q_o taken with keep_i, held otherwise
);

  `include "sa_fp32_add.vh"

  // Datapath registers: no reset, meaningful only after a load.
  reg [31:0] q_q;
  reg [31:0] keep_q;
  always @(posedge clk_i) begin : p_load
    logic [31:0] d;
    if (en_i) begin
      d = y_only_i ? y_i : fp32_add(x_i, y_i);
      q_q <= d;
      if (keep_i) keep_q <= d;
    end
  end

  assign q_o    = q_q;
  assign keep_o = keep_q;

endmodule

`default_nettype wire
