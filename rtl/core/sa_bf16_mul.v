// sa_bf16_mul: bf16 x bf16 -> fp32 product, the multiply half of a PE.
//
// The product is registered here (p_o is the PE's first pipeline stage, next
// to the accumulator it feeds) and loaded only on a cycle with en_i; it holds
// otherwise. The register lives with the multiplier, written from a function
// in the clocked block, for the verilated model's sake: Verilator evaluates
// that function only on a clock edge with en_i, with every intermediate in a
// local variable, while a combinational multiplier would be evaluated in
// every cycle by every PE, busy or idle. Operands that are both normal take
// one branch-free path; zeros, infinities and NaNs a separate branch, rare
// in real data and cheap to predict.
//
// The arithmetic (numerics contract included) is bf16_mul() in sa_bf16_mul.vh,
// shared with sa_grid.

`default_nettype none

module sa_bf16_mul (
    input  wire        clk_i,
    input  wire        en_i,  // a_i and b_i are operands: load p_o with their product
    input  wire [15:0] a_i,   // bf16 operand
    input  wire [15:0] b_i,   // bf16 operand
    output wire [31:0] p_o    // fp32 product (registered), held without en_i
);

  `include "sa_bf16_mul.vh"

  // Datapath register: no reset, meaningful only beside its step's valid.
  reg [31:0] p_q;
  always @(posedge clk_i) begin
    if (en_i) p_q <= bf16_mul(a_i, b_i);
  end

  assign p_o = p_q;

endmodule

`default_nettype wire
