// sa_bf16_mul: bf16 x bf16 -> fp32 product, the multiply half of a PE.
//
// Numerics contract (DESIGN.md section 5; C oracle fp32_mul_bf16() in
// models/ref/bf16.c), bit for bit:
//   - an operand with exponent field 0 (zero or subnormal) reads as a zero of
//     its sign (flush to zero);
//   - two 8-bit significands give a 16-bit product, which fits the 24-bit
//     fp32 significand: there is nothing to round, the product is exact
//     whenever its exponent is in range;
//   - |p| < 2^-126 gives a zero of the product's sign, |p| >= 2^128 an
//     infinity of that sign;
//   - NaN operands, inf * 0 (and inf * subnormal, which is inf * 0) give the
//     canonical NaN 0x7FC00000; inf * finite gives an infinity.
//
// Purely combinational: the PE (sa_pe.v) registers the product, so the
// pipeline cut is placed there, next to the accumulator it feeds.

`default_nettype none

module sa_bf16_mul (
    input  wire [15:0] a_i,  // bf16 operand
    input  wire [15:0] b_i,  // bf16 operand
    output reg  [31:0] p_o   // fp32 product
);

  localparam logic [31:0] CanonNan = 32'h7FC0_0000;
  localparam logic [9:0] ExpBias = 10'd127;
  // ea + eb + carry is the biased product exponent plus the bias: the result
  // is below 2^-126 when that sum is <= 127 and at or above 2^128 when it is
  // >= 127 + 255.
  localparam logic [9:0] ExpSumOvf = 10'd382;

  wire       a_sign = a_i[15];
  wire [7:0] a_exp = a_i[14:7];
  wire [6:0] a_frac = a_i[6:0];
  wire       b_sign = b_i[15];
  wire [7:0] b_exp = b_i[14:7];
  wire [6:0] b_frac = b_i[6:0];

  wire       a_zero = a_exp == 8'd0;  // zero or flushed subnormal
  wire       a_inf = a_exp == 8'hFF && a_frac == 7'd0;
  wire       a_nan = a_exp == 8'hFF && a_frac != 7'd0;
  wire       b_zero = b_exp == 8'd0;
  wire       b_inf = b_exp == 8'hFF && b_frac == 7'd0;
  wire       b_nan = b_exp == 8'hFF && b_frac != 7'd0;

  wire       sign = a_sign ^ b_sign;

  // 1.f x 1.f lies in [1, 4): sig is in [2^14, 2^16), its top bit says
  // whether the product needs the exponent one higher.
  wire [15:0] sig = {1'b1, a_frac} * {1'b1, b_frac};
  wire        carry = sig[15];

  // Biased exponents ea, eb in 1..254, so the sum fits in 10 bits unsigned.
  wire [9:0] exp_sum = {2'b00, a_exp} + {2'b00, b_exp} + {9'd0, carry};
  // Only used when 1 <= exp_sum - 127 <= 254, so 8 bits (mod 256) suffice.
  wire [7:0] exp_res = exp_sum[7:0] - ExpBias[7:0];
  // Drop the leading one and left-align the remaining bits in 23.
  wire [22:0] frac = carry ? {sig[14:0], 8'd0} : {sig[13:0], 9'd0};

  always @* begin
    if (a_nan || b_nan || (a_inf && b_zero) || (a_zero && b_inf)) begin
      p_o = CanonNan;
    end else if (a_inf || b_inf) begin
      p_o = {sign, 8'hFF, 23'd0};
    end else if (a_zero || b_zero || exp_sum <= ExpBias) begin
      p_o = {sign, 31'd0};  // zero operand, or product below 2^-126
    end else if (exp_sum >= ExpSumOvf) begin
      p_o = {sign, 8'hFF, 23'd0};  // product at or above 2^128
    end else begin
      p_o = {sign, exp_res, frac};
    end
  end

endmodule

`default_nettype wire
