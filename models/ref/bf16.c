/*
 * bf16.c - the flashstream numerics contract; see bf16.h for what it promises.
 *
 * Why host float arithmetic gives exactly the contract
 *
 * The contract asks for flush-to-zero (FTZ) with an unbounded-exponent view of rounding:
 * "compute, round to nearest even, then a result below 2^-126 becomes a signed zero". The host
 * (IEEE binary32, round to nearest even, gradual underflow) rounds to the subnormal grid
 * instead. The two agree here because of what the operands can be:
 *
 *   Product. Flushed bf16 operands have 8-bit significands, so a * b has at most 16 significant
 *   bits and is exact in binary32 whenever 2^-126 <= |p| < 2^128. If |p| < 2^-126 the host
 *   rounds it onto the subnormal grid (step 2^-149), but the largest 16-bit-significand value
 *   below 2^-126 is (1 - 2^-16) * 2^-126, which is 2^-142 below 2^-126, far more than half a
 *   grid step: the host result stays below 2^-126 and we flush it, as the contract says. If
 *   |p| >= 2^128 the host overflows to a signed infinity, which is the contract's rule.
 *
 *   Sum. After flushing, acc and p are zeros or normal numbers, all integer multiples of 2^-149,
 *   so their exact sum s is one too. If |s| < 2^-126, s is representable (as a subnormal or
 *   zero), the host returns it exactly with its sign, and we flush it to a signed zero. If
 *   |s| >= 2^-126, the host's rounded result is >= 2^-126 (rounding is monotonic and 2^-126 is
 *   representable), so the subnormal range never affected the rounding: it is the RNE result,
 *   and overflow goes to infinity under RNE. Exact cancellation gives +0 (RNE rule), and
 *   (-0) + (-0) gives -0, both from the host.
 *
 *   If the host runs with FTZ/DAZ set in MXCSR, it returns the same signed zeros we would
 *   produce, so the results do not change. A non-default rounding mode would break this.
 *
 * The product is never contracted into the add: it goes through fp32_bits() and the flush as
 * a uint32_t before the add sees it, and the build passes -ffp-contract=off besides (GCC
 * ignores the STDC pragma and warns about it, so the pragma is for clang only). x87 excess
 * precision would double-round, so it is rejected at compile time.
 */
#include "models/ref/bf16.h"

#include <float.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "bf16.c needs float arithmetic evaluated in binary32 (FLT_EVAL_METHOD == 0, e.g. SSE)"
#endif

#define FP32_EXP_MASK 0x7F800000u
#define FP32_FRAC     0x007FFFFFu
#define BF16_EXP_MASK 0x7F80u
#define BF16_FRAC     0x007Fu

bool bf16_is_nan(uint16_t h)
{
    return (h & BF16_EXP_MASK) == BF16_EXP_MASK && (h & BF16_FRAC) != 0;
}

bool bf16_is_inf(uint16_t h)
{
    return (h & BF16_EXP_MASK) == BF16_EXP_MASK && (h & BF16_FRAC) == 0;
}

bool bf16_is_subnormal(uint16_t h)
{
    return (h & BF16_EXP_MASK) == 0 && (h & BF16_FRAC) != 0;
}

bool fp32_is_inf(uint32_t u)
{
    return (u & FP32_EXP_MASK) == FP32_EXP_MASK && (u & FP32_FRAC) == 0;
}

bool fp32_is_subnormal(uint32_t u)
{
    return (u & FP32_EXP_MASK) == 0 && (u & FP32_FRAC) != 0;
}

uint16_t bf16_flush(uint16_t h)
{
    if (bf16_is_nan(h))
        return BF16_NAN;
    if ((h & BF16_EXP_MASK) == 0)
        return h & BF16_SIGN;
    return h;
}

uint32_t fp32_flush(uint32_t u)
{
    if (fp32_is_nan(u))
        return FP32_NAN;
    if ((u & FP32_EXP_MASK) == 0)
        return u & FP32_SIGN;
    return u;
}

uint16_t bf16_from_f32_bits(uint32_t u)
{
    u = fp32_flush(u);
    if (u == FP32_NAN)
        return BF16_NAN;
    /*
     * Round to nearest even on the 16 dropped bits: add just under half an ulp, plus one more
     * when the kept lsb is odd, and truncate. A carry out of the fraction is the correct
     * round-up into the next binade, and 0x7F7F.8000 and above carries into 0x7F80 (inf).
     * The input is zero or normal here and rounding never shrinks it, so the result cannot be
     * subnormal. Infinities pass unchanged (their low half is zero). No uint32_t overflow:
     * the largest value left is 0xFF800000.
     */
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

uint16_t bf16_from_f32(float f)
{
    return bf16_from_f32_bits(fp32_bits(f));
}

uint32_t fp32_mul_bf16(uint16_t a, uint16_t b)
{
    float fa = bf16_to_f32(bf16_flush(a));
    float fb = bf16_to_f32(bf16_flush(b));

    /* Exact, or a signed zero/subnormal that the flush turns into a signed zero, or a signed
     * infinity, or NaN (NaN operand, inf * 0) that the flush makes canonical. */
    return fp32_flush(fp32_bits(fa * fb));
}

uint32_t fp32_add(uint32_t x, uint32_t y)
{
    float fx = fp32_from_bits(fp32_flush(x));
    float fy = fp32_from_bits(fp32_flush(y));

    return fp32_flush(fp32_bits(fx + fy));
}

uint32_t fp32_mac(uint32_t acc, uint16_t a, uint16_t b)
{
    return fp32_add(acc, fp32_mul_bf16(a, b));
}

uint32_t fp32_mac_clear(uint16_t a, uint16_t b)
{
    return fp32_mul_bf16(a, b);
}
