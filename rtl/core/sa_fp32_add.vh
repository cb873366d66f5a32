// sa_fp32_add.vh: fp32 + fp32 as a function, fp32_add(x, y), included by
// the modules that add: sa_fp32_add (a PE's accumulator, the write-back's
// lanes) and sa_grid (every PE of its loop form). One definition of the
// arithmetic, whatever holds the registers.
//
// Numerics contract (docs/sources.md; C oracle fp32_add() in
// models/ref/bf16.c), bit for bit:
//   - inputs with exponent field 0 read as zeros of their sign (flush to zero);
//   - round to nearest, ties to even; a sum that rounds past the largest
//     finite value becomes an infinity;
//   - a sum below 2^-126 becomes a zero of its sign (flush to zero);
//   - any NaN input, or inf + -inf, gives the canonical NaN 0x7FC00000;
//   - signed zeros as IEEE under RNE: x + (-x) = +0, (-0) + (-0) = -0,
//     (+0) + (-0) = +0.
//
// Datapath. The operands are ordered so that |hi| >= |lo| ("big"/"small"
// would read better, but small is a Verilog keyword). Both significands sit in
// a 32-bit word, hidden one at bit 30 and seven zero bits below the lsb; lo
// is shifted right by the exponent difference (at most 31: a larger one
// shifts everything out all the same) and every bit shifted out is ORed into
// its lowest bit (the sticky bit). That lowest bit makes the aligned operand
// "rounded to odd" at the 31-bit grid, and so is the sum or difference with
// hi (whose low bits are zero); a value rounded to odd with at least two bits
// more than the target precision rounds correctly to nearest-even afterwards.
// The sum or difference fits the 32 bits (a carry lands in bit 31), so
// normalization is a single left shift that puts the leading one at bit 31,
// and it drops nothing:
//   - a carry out of an addition needs no shift;
//   - a subtraction with exponent difference >= 2 shifts left by at most one,
//     and the sticky bit stays far below the rounding position;
//   - a subtraction with difference 0 or 1 loses no bits in alignment and is
//     exact, however far it shifts left.
// The leading one is at bit 31, 30 or 29 except after a subtraction of
// operands less than two binades apart: two one-bit steps normalize those,
// a 5-step halving search (16, 8, 4, 2, 1 bits) the rest (a 32-way loop of
// data-dependent branches in the generated C++ used to cost most of the
// simulator's time). Only operands that are both normal take this path;
// zeros, infinities and NaNs take a separate branch, which is rare in real
// data and cheap to predict.
// A result whose normalized exponent is <= 0 is below 2^-126; such a result is
// always exact (both operands are multiples of 2^-149), so flushing it before
// rounding is the same as flushing after, as the contract says. A normalized
// result >= 2^-126 cannot round below 2^-126.

// Exponent field 0 or 255 <=> field + 1 (mod 256) is 0 or 1 <=> bits 30:24
// of x + 2^23 are zero (one add and one test in C++, for both classes).
function automatic logic fp32_not_normal(input logic [31:0] x);
  fp32_not_normal = ((x + 32'h0080_0000) & 32'h7F00_0000) == 32'd0;
endfunction

// The add in four steps, so that a pipelined accumulator (sa_fp32_acc) can
// put a register after each, and fp32_add() as their composition, so that
// there is one definition of the arithmetic whatever holds the registers:
//   fp32_align  the operand classes, the order of magnitudes, the alignment
//               shift and its sticky bit (or the result, for a zero, infinite
//               or NaN operand: `done`);
//   fp32_sum    the magnitude of the sum or difference;
//   fp32_norm   the leading one to bit 31;
//   fp32_round  round to nearest even, pack, the ends of the exponent range.
// A step handed a `done` value passes it on. The normal path is written for
// the C++ the verilated model becomes: no data-dependent selects where a coin
// flip decides (the swap, add or subtract: masks and conditional negation
// instead, which the C++ compiler cannot turn into mispredicted branches),
// 32-bit words throughout (no masking of odd widths), and the rare cases
// (deep cancellation, results at the ends of the exponent range) behind one
// well-predicted test. In hardware the same expressions are the same muxes
// and adders.

// What passes from one step to the next, as plain vectors (Yosys 0.23 takes
// no struct-typed functions), packed and unpacked by concatenation:
//   after fp32_align (107 bits): {done, r, sign, hexp, sub, hi_m, lo_al}
//   after fp32_sum    (74 bits): {done, r, sign, hexp, raw}
//   after fp32_norm   (81 bits): {done, r, sign, hexp, zero, deep, lz, n}
// done: r (32 bits) is the result already; sign, hexp (8): the larger
// operand's sign and exponent field; sub: the signs differ; hi_m, lo_al: the
// significands, the larger with its hidden one at bit 30 and 7 zero bits
// below, the smaller aligned to it with the sticky bit as its lowest; raw
// (32): |sum|, exact up to the sticky bit; zero: raw was 0; deep: raw's
// leading one was below bit 29; lz (5): raw's leading zeros; n (32): raw <<
// lz.

function automatic logic [106:0] fp32_align(input logic [31:0] x, input logic [31:0] y);
  logic        x_zero, x_inf, x_nan, y_zero, y_inf, y_nan;
  logic        swap;
  logic [31:0] t, hi;
  logic [22:0] lo;  // the smaller's fraction: sub says its sign, diff its exponent
  logic [ 7:0] diff;
  logic [ 4:0] sh;
  logic [31:0] lo_m, lo_sh;
  logic        done, sign, sub;
  logic [ 7:0] hexp;
  logic [31:0] r, hi_m, lo_al;
  begin
    {done, r, sign, hexp, sub, hi_m, lo_al} = '0;
    if (fp32_not_normal(x) || fp32_not_normal(y)) begin
      // At least one operand zero (or flushed subnormal), infinite or NaN.
      x_zero = x[30:23] == 8'd0;
      x_inf  = x[30:23] == 8'hFF && x[22:0] == 23'd0;
      x_nan  = x[30:23] == 8'hFF && x[22:0] != 23'd0;
      y_zero = y[30:23] == 8'd0;
      y_inf  = y[30:23] == 8'hFF && y[22:0] == 23'd0;
      y_nan  = y[30:23] == 8'hFF && y[22:0] != 23'd0;
      done = 1'b1;
      if (x_nan || y_nan || (x_inf && y_inf && x[31] != y[31])) r = 32'h7FC0_0000;  // the canonical NaN
      else if (x_inf) r = {x[31], 8'hFF, 23'd0};
      else if (y_inf) r = {y[31], 8'hFF, 23'd0};
      else if (x_zero && y_zero) r = {x[31] & y[31], 31'd0};  // -0 only for (-0) + (-0)
      else if (x_zero) r = y;  // y is normal here
      else r = x;  // y is zero, x normal
    end else begin
      // Both normal. For two normal numbers the unsigned order of
      // {exp, frac} is the order of magnitudes; swap them by a mask.
      // The exponent difference is formed both ways beside the comparison
      // and picked by it, so that in hardware the three carry chains run
      // side by side, not one after the other.
      swap    = y[30:0] > x[30:0];
      t       = (x ^ y) & {32{swap}};
      hi      = x ^ t;
      lo      = y[22:0] ^ t[22:0];
      sign    = hi[31];
      hexp    = hi[30:23];
      sub     = x[31] ^ y[31];
      diff    = swap ? y[30:23] - x[30:23] : x[30:23] - y[30:23];  // hi's minus lo's, >= 0
      sh      = diff > 8'd31 ? 5'd31 : diff[4:0];
      hi_m    = {2'b01, hi[22:0], 7'd0};
      lo_m    = {2'b01, lo[22:0], 7'd0};
      lo_sh   = lo_m >> sh;
      // Sticky: some bit below bit sh of lo_m, the bits shifted out (a mask
      // from sh, beside the shifter rather than after it).
      lo_al   = lo_sh | {31'd0, (lo_m & ~(32'hFFFF_FFFF << sh)) != 32'd0};
    end
    fp32_align = {done, r, sign, hexp, sub, hi_m, lo_al};
  end
endfunction

function automatic logic [73:0] fp32_sum(input logic [106:0] a);
  logic        done, sign, sub;
  logic [ 7:0] hexp;
  logic [31:0] r, hi_m, lo_al, raw;
  begin
    {done, r, sign, hexp, sub, hi_m, lo_al} = a;
    // hi_m + lo_al or hi_m - lo_al (two's complement: invert and add one).
    // Never negative since |hi| >= |lo|; below 2^32 since both are below 2^31.
    raw = done ? 32'd0 : hi_m + ((lo_al ^ {32{sub}}) + {31'd0, sub});
    fp32_sum = {done, r, sign, hexp, raw};
  end
endfunction

function automatic logic [80:0] fp32_norm(input logic [73:0] s);
  logic        done, sign, zero, deep;
  logic [ 7:0] hexp;
  logic [ 4:0] lz;
  logic [31:0] r, raw, n, n16, n8, n4, n2;
  logic z16, z8, z4, z2, z1;
  begin
    {done, r, sign, hexp, raw} = s;
    {zero, deep, lz, n} = '0;
    if (!done) begin
      // Leading one to bit 31 (n), lz = the leading zeros of raw. The
      // leading one is at bit 31 or 30 after an addition and at bit 30 or
      // 29 after a subtraction with exponent difference >= 2. Only a
      // subtraction with difference 0 or 1 (exact, no rounding needed) can
      // cancel further ("deep"); then five halving steps find it (16, 8,
      // 4, 2, 1 bits). In the verilated model the deep case is a rare,
      // well-predicted branch; in hardware the short path is a small extra
      // shifter beside the full one (with the 32-bit datapath and the
      // shift-back sticky test, an iCE40 UP5K PE grew from 1009 to 1191 LCs
      // and its post-route Fmax fell from 7.9 to 5.9 MHz).
      zero = raw == 32'd0;
      deep = raw[31:29] == 3'd0;
      if (!deep) begin
        lz = {4'd0, !raw[31]} + {4'd0, raw[31:30] == 2'd0};
        n  = raw << lz;
      end else begin
        z16  = raw[31:16] == 16'd0;
        n16  = raw << {z16, 4'd0};
        z8   = n16[31:24] == 8'd0;
        n8   = n16 << {z8, 3'd0};
        z4   = n8[31:28] == 4'd0;
        n4   = n8 << {z4, 2'd0};
        z2   = n4[31:30] == 2'd0;
        n2   = n4 << {z2, 1'd0};
        z1   = !n2[31];
        n    = n2 << z1;
        lz   = {z16, z8, z4, z2, z1};
      end
    end
    fp32_norm = {done, r, sign, hexp, zero, deep, lz, n};
  end
endfunction

function automatic logic [31:0] fp32_round(input logic [80:0] m);
  logic        done, sign, zero, deep;
  logic [ 7:0] hexp;
  logic [ 4:0] lz;
  logic [31:0] r, n;
  logic        round_up, rare;
  logic [30:0] res;  // {exponent, fraction} of the rounded result
  begin
    {done, r, sign, hexp, zero, deep, lz, n} = m;
    if (!done) begin
      // Round to nearest even on 24 bits (n[31] is the hidden one, the
      // fraction n[30:8]): guard bit n[7], then sticky of the rest. The
      // result's exponent field is hi's + 1 - lz: packing adds the
      // significand with its hidden one (n[31:8], 24 bits) onto the field
      // hi - lz, and the rounding increment on top. A carry out of the
      // fraction (1.11..1 + ulp = 2.0) bumps the exponent and leaves the
      // fraction zero, which is right, and a carry into exponent 255
      // leaves exactly the pattern of infinity, the RNE overflow result.
      round_up = n[7] && (n[6:0] != 7'd0 || n[8]);
      res      = {hexp, 23'd0} - {3'd0, lz, 23'd0} + {7'd0, n[31:8]} +
          {30'd0, round_up};
      // The ends of the exponent range need a closer look: with lz <= 2
      // and hi's exponent 3 .. 253 the result is normal and finite.
      rare     = deep || 8'(hexp - 8'd3) > 8'd250;
      if (!rare) r = {sign, res};
      else if (zero) r = 32'd0;  // exact cancellation is +0 under RNE
      // Exponent hi + 1 - lz <= 0: below 2^-126, flush (exact, see above).
      else if (hexp < {3'd0, lz}) r = {sign, 31'd0};
      // Exponent 255: the carry of an addition at exponent 254.
      else if (hexp == 8'd254 && lz == 5'd0) r = {sign, 8'hFF, 23'd0};
      else r = {sign, res};
    end
    fp32_round = r;
  end
endfunction

// The whole add, one cycle: what the PE with one accumulator, the loop form
// of the grid and the write-back use.
function automatic logic [31:0] fp32_add(input logic [31:0] x, input logic [31:0] y);
  fp32_add = fp32_round(fp32_norm(fp32_sum(fp32_align(x, y))));
endfunction
