// sa_fp32_add: fp32 + fp32, the accumulate half of a PE.
//
// Numerics contract (DESIGN.md section 5; C oracle fp32_add() in
// models/ref/bf16.c), bit for bit:
//   - inputs with exponent field 0 read as zeros of their sign (flush to zero);
//   - round to nearest, ties to even; a sum that rounds past the largest
//     finite value becomes an infinity;
//   - a sum below 2^-126 becomes a zero of its sign (flush to zero);
//   - any NaN input, or inf + -inf, gives the canonical NaN 0x7FC00000;
//   - signed zeros as IEEE under RNE: x + (-x) = +0, (-0) + (-0) = -0,
//     (+0) + (-0) = +0.
//
// Purely combinational: it sits in the PE's accumulator feedback loop
// (sa_pe.v), which must take one product per cycle.
//
// Datapath. The operands are ordered so that |hi| >= |lo| ("big"/"small"
// would read better, but small is a Verilog keyword). Both significands get
// three bits below their lsb; lo is shifted right by the exponent difference
// and every bit shifted out is ORed into its lowest bit (the sticky bit).
// That lowest bit makes the aligned operand "rounded to odd" at the 27-bit
// grid, and so is the sum or difference with hi (whose low bits are zero); a
// value rounded to odd with at least two bits more than the target precision
// rounds correctly to nearest-even afterwards. Normalization
// keeps at least 26 significant bits:
//   - a carry out of an addition shifts right by one (the dropped bit joins
//     the sticky bit), leaving 27;
//   - a subtraction with exponent difference >= 2 leaves a result above 2^25
//     in 27-bit units, so it shifts left by at most one, leaving 26;
//   - a subtraction with difference 0 or 1 loses no bits in alignment and is
//     exact, however far it shifts left.
// A result whose normalized exponent is <= 0 is below 2^-126; such a result is
// always exact (both operands are multiples of 2^-149), so flushing it before
// rounding is the same as flushing after, as the contract says. A normalized
// result >= 2^-126 cannot round below 2^-126.

`default_nettype none

module sa_fp32_add (
    input  wire [31:0] x_i,   // fp32 operand
    input  wire [31:0] y_i,   // fp32 operand
    output reg  [31:0] sum_o  // fp32 sum
);

  localparam logic [31:0] CanonNan = 32'h7FC0_0000;

  wire       x_sign = x_i[31];
  wire [7:0] x_exp = x_i[30:23];
  wire       x_zero = x_exp == 8'd0;  // zero or flushed subnormal
  wire       x_inf = x_exp == 8'hFF && x_i[22:0] == 23'd0;
  wire       x_nan = x_exp == 8'hFF && x_i[22:0] != 23'd0;
  wire       y_sign = y_i[31];
  wire [7:0] y_exp = y_i[30:23];
  wire       y_zero = y_exp == 8'd0;
  wire       y_inf = y_exp == 8'hFF && y_i[22:0] == 23'd0;
  wire       y_nan = y_exp == 8'hFF && y_i[22:0] != 23'd0;

  // For two normal numbers the unsigned order of {exp, frac} is the order of
  // magnitudes; zeros, infinities and NaNs never reach the general path.
  wire        swap = y_i[30:0] > x_i[30:0];
  wire [31:0] hi = swap ? y_i : x_i;
  wire [31:0] lo = swap ? x_i : y_i;
  wire        hi_sign = hi[31];
  wire [7:0]  hi_exp = hi[30:23];
  wire        eff_sub = hi[31] ^ lo[31];

  // Significands with the hidden one and three bits below the lsb.
  wire [26:0] hi_m = {1'b1, hi[22:0], 3'b000};
  wire [26:0] lo_m = {1'b1, lo[22:0], 3'b000};
  wire [7:0]  diff = hi_exp - lo[30:23];  // >= 0: hi has the larger exponent
  // A shift by >= 27 leaves 0 and a mask of all ones: everything is sticky.
  wire [26:0] lo_sh = lo_m >> diff;
  wire        sticky = |(lo_m & ~({27{1'b1}} << diff));
  wire [26:0] lo_al = {lo_sh[26:1], lo_sh[0] | sticky};

  // Magnitude of the sum (exact up to the sticky bit); never negative since
  // |hi| >= |lo|.
  wire [27:0] raw = eff_sub ? {1'b0, hi_m} - {1'b0, lo_al}
                            : {1'b0, hi_m} + {1'b0, lo_al};

  // Leading zeros of raw[26:0] (raw[27] is handled by the right shift).
  // 27 means raw is zero: exact cancellation.
  reg [4:0] lzc;
  integer   i;
  always @* begin
    lzc = 5'd27;
    for (i = 0; i < 27; i = i + 1) begin
      if (raw[i]) lzc = 5'd26 - i[4:0];
    end
  end

  // Normalized to a leading one at bit 26, and its biased exponent in 10-bit
  // two's complement (hi_exp + 1 - 26 >= -25 .. 255, so bit 9 is the sign).
  wire [26:0] norm = raw[27] ? {raw[27:2], raw[1] | raw[0]} : raw[26:0] << lzc;
  wire [9:0]  exp_norm = raw[27] ? {2'b00, hi_exp} + 10'd1 : {2'b00, hi_exp} - {5'd0, lzc};
  wire        tiny = exp_norm[9] || exp_norm == 10'd0;  // below 2^-126: flush

  // Round to nearest even on 24 bits: guard bit, then sticky of the rest.
  // The increment goes into {exponent, fraction} at once: a carry out of the
  // fraction (significand 1.11..1 + ulp = 2.0) bumps the exponent and leaves
  // the fraction zero, which is right, and a carry into exponent 255 leaves
  // exactly the pattern of infinity, which is the RNE overflow result.
  wire        guard = norm[2];
  wire        rest = norm[1] | norm[0];
  wire        round_up = guard && (rest || norm[3]);
  // exp_norm is 1..254 where this is used, so bits 7:0 hold it whole.
  wire [30:0] rounded = {exp_norm[7:0], norm[25:3]} + {30'd0, round_up};
  wire        ovf = exp_norm == 10'd255;  // carry of an addition at exponent 254

  // Lint waiver (Verilator ignores names starting with unused): the hidden
  // one, norm[26], is always 1 here and carries no information.
  wire        unused_lead = norm[26];

  always @* begin
    if (x_nan || y_nan || (x_inf && y_inf && x_sign != y_sign)) begin
      sum_o = CanonNan;
    end else if (x_inf) begin
      sum_o = {x_sign, 8'hFF, 23'd0};
    end else if (y_inf) begin
      sum_o = {y_sign, 8'hFF, 23'd0};
    end else if (x_zero && y_zero) begin
      sum_o = {x_sign & y_sign, 31'd0};  // -0 only for (-0) + (-0)
    end else if (x_zero) begin
      sum_o = y_i;  // y is normal here
    end else if (y_zero) begin
      sum_o = x_i;
    end else if (raw == 28'd0) begin
      sum_o = 32'd0;  // exact cancellation is +0 under RNE
    end else if (tiny) begin
      sum_o = {hi_sign, 31'd0};
    end else if (ovf) begin
      sum_o = {hi_sign, 8'hFF, 23'd0};
    end else begin
      sum_o = {hi_sign, rounded};
    end
  end

endmodule

`default_nettype wire
