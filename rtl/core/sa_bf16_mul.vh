// sa_bf16_mul.vh: bf16 x bf16 -> fp32 as a function, bf16_mul(a, b),
// included by the modules that multiply: sa_bf16_mul (one PE's product
// register) and sa_grid (every PE of its loop form). One definition of the
// arithmetic, whatever holds the registers.
//
// Numerics contract (docs/sources.md; C oracle fp32_mul_bf16() in
// models/ref/bf16.c), bit for bit:
//   - an operand with exponent field 0 (zero or subnormal) reads as a zero of
//     its sign (flush to zero);
//   - two 8-bit significands give a 16-bit product, which fits the 24-bit
//     fp32 significand: there is nothing to round, the product is exact
//     whenever its exponent is in range;
//   - |p| < 2^-126 gives a zero of the product's sign, |p| >= 2^128 an
//     infinity of that sign;
//   - NaN operands, inf * 0 (and inf * subnormal, which is inf * 0) give the
//     canonical NaN 0x7FC00000; inf * finite gives an infinity;
//   - ea + eb + carry is the biased product exponent plus the bias: the
//     result is below 2^-126 when that sum is <= 127 and at or above 2^128
//     when it is >= 127 + 255.

// The whole multiply as one function with one `if` per operand class: the
// verilated model then evaluates only the branch taken.
function automatic logic [31:0] bf16_mul(input logic [15:0] a, input logic [15:0] b);
  logic        a_zero, a_inf, a_nan, b_zero, b_inf, b_nan;
  logic        sign;
  logic [15:0] sig;
  logic [ 9:0] exp_sum;
  logic [23:0] m24;
  logic [31:0] r;
  begin
    sign = a[15] ^ b[15];
    // Exponent field 0 or 255 <=> field + 1 (mod 256) is 0 or 1 <=> bits
    // 14:8 of a + 2^7 are zero (one add and one test in C++).
    if (((a + 16'h0080) & 16'h7F00) == 16'd0 || ((b + 16'h0080) & 16'h7F00) == 16'd0) begin
      // At least one operand zero (or flushed subnormal), infinite or NaN.
      a_zero = a[14:7] == 8'd0;
      a_inf  = a[14:7] == 8'hFF && a[6:0] == 7'd0;
      a_nan  = a[14:7] == 8'hFF && a[6:0] != 7'd0;
      b_zero = b[14:7] == 8'd0;
      b_inf  = b[14:7] == 8'hFF && b[6:0] == 7'd0;
      b_nan  = b[14:7] == 8'hFF && b[6:0] != 7'd0;
      if (a_nan || b_nan || (a_inf && b_zero) || (a_zero && b_inf)) r = 32'h7FC0_0000;  // the canonical NaN
      else if (a_inf || b_inf) r = {sign, 8'hFF, 23'd0};
      else r = {sign, 31'd0};  // a zero operand
    end else begin
      // Both normal. 1.f x 1.f lies in [1, 4): sig is in [2^14, 2^16), its
      // top bit says whether the product needs the exponent one higher.
      sig     = {1'b1, a[6:0]} * {1'b1, b[6:0]};
      // Biased exponents ea, eb in 1..254, so the sum fits in 10 bits.
      exp_sum = {2'b00, a[14:7]} + {2'b00, b[14:7]} + {9'd0, sig[15]};
      // The significand with its leading one at bit 23 (a shift by the
      // inverted carry, not a select: the carry is a coin flip, and the
      // C++ compiler would make a select a branch). Added onto the
      // exponent field minus one, its leading one makes the field right.
      m24     = 24'({sig, 8'd0} << !sig[15]);
      // In range iff 1 <= exp_sum - 127 <= 254 (one unsigned compare);
      // then 8 bits of exp_sum - 128 suffice.
      if (10'(exp_sum - 10'd128) < 10'd254)
        r = {sign, {exp_sum[7:0] - 8'd128, 23'd0} + {7'd0, m24}};
      else if (exp_sum <= 10'd127) r = {sign, 31'd0};  // below 2^-126
      else r = {sign, 8'hFF, 23'd0};  // at or above 2^128
    end
    bf16_mul = r;
  end
endfunction
