/*
 * bf16.h - the flashstream numerics contract (docs/sources.md), in C.
 *
 * This is the oracle that every RTL test and C twin is compared against, bit for bit. It is
 * written from the contract, not from the RTL.
 *
 * What is modelled
 *   - bf16 is the upper half of an IEEE-754 binary32 (1 sign, 8 exponent, 7 fraction bits).
 *   - Flush to zero (FTZ): a subnormal input (exponent field 0, fraction != 0) reads as a zero
 *     of the same sign; a result whose magnitude is below 2^-126 is written as a zero of the
 *     same sign. No function here ever returns a subnormal.
 *   - NaN is canonical on every output: bf16 0x7FC0, fp32 0x7FC00000 (positive, quiet, no
 *     payload). A NaN on any input gives the canonical NaN.
 *   - Rounding is round to nearest, ties to even, everywhere. A result that rounds past the
 *     largest finite value becomes an infinity of its sign.
 *   - The processing element (PE) step, fp32_mac(): p = a * b formed in fp32 (exact, since two
 *     8-bit significands give at most 16 bits), p flushed to a signed zero if |p| < 2^-126 and
 *     turned into a signed infinity if |p| >= 2^128; then acc + p in fp32, RNE, FTZ.
 *   - Infinities and NaN follow IEEE: inf * 0 = NaN (also inf * subnormal, since the subnormal
 *     is read as zero first), inf + -inf = NaN, inf + finite = inf.
 *   - Signed zeros follow IEEE RNE: x + (-x) = +0, (+0) + (-0) = +0, (-0) + (-0) = -0, and the
 *     product of zeros carries sign(a) ^ sign(b).
 *
 * The clear rule (the "first" step of a dot product)
 *   fp32_mac_clear(a, b) returns the flushed product p itself: the first product *replaces*
 *   the accumulator. It is NOT 0 + p: that would turn a -0 product into +0. So a dot product
 *   over k = 0..K-1 is  s = p0; s = s + p1; ...; s = s + p(K-1), exactly IEEE summation of the
 *   list in ascending k. The PE RTL (rtl/core/sa_pe.v) implements the same rule.
 *
 * What is not modelled: other rounding modes, exception flags, NaN payloads, subnormals.
 *
 * Units: raw bit patterns. bf16 values are uint16_t, fp32 values are uint32_t; float appears
 * only at the convenience conversions. The implementation assumes the host computes float as
 * IEEE binary32 with round-to-nearest-even (x86-64 SSE default); see bf16.c for why that gives
 * exactly the contract.
 */
#ifndef FLASHSTREAM_MODELS_REF_BF16_H
#define FLASHSTREAM_MODELS_REF_BF16_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define BF16_NAN      0x7FC0u /* canonical bf16 NaN */
#define BF16_POS_INF  0x7F80u
#define BF16_NEG_INF  0xFF80u
#define BF16_SIGN     0x8000u
#define FP32_NAN      0x7FC00000u /* canonical fp32 NaN */
#define FP32_POS_INF  0x7F800000u
#define FP32_NEG_INF  0xFF800000u
#define FP32_SIGN     0x80000000u
#define FP32_MIN_NORM 0x00800000u /* 2^-126 */
#define FP32_MAX      0x7F7FFFFFu /* largest finite, (2 - 2^-23) * 2^127 */

/* Bit casts between float and its IEEE binary32 pattern (memcpy, no aliasing tricks). Inline,
 * like the other one-line patterns below: the GEMM kernels call them per element. */
static inline uint32_t fp32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float fp32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* Classification of raw patterns (no flushing implied). */
bool bf16_is_nan(uint16_t h);
bool bf16_is_inf(uint16_t h);
bool bf16_is_subnormal(uint16_t h); /* exponent 0, fraction != 0 */
static inline bool fp32_is_nan(uint32_t u)
{
    return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0;
}
bool fp32_is_inf(uint32_t u);
bool fp32_is_subnormal(uint32_t u);

/* How an operand is read: subnormal -> signed zero, any NaN -> canonical NaN, rest unchanged. */
uint16_t bf16_flush(uint16_t h);
uint32_t fp32_flush(uint32_t u);

/* fp32 -> bf16: flush the input, round to nearest even on the low 16 bits, canonical NaN,
 * rounding past 0x7F7F gives infinity. The _bits variant takes the raw pattern. */
uint16_t bf16_from_f32_bits(uint32_t u);
uint16_t bf16_from_f32(float f);

/* bf16 -> fp32: exact widening (append 16 zero bits); no flushing. */
static inline uint32_t bf16_to_f32_bits(uint16_t h)
{
    return (uint32_t)h << 16;
}

static inline float bf16_to_f32(uint16_t h)
{
    return fp32_from_bits(bf16_to_f32_bits(h));
}

/* The PE product: flushed a * flushed b as an fp32 pattern, exact when 2^-126 <= |p| < 2^128,
 * signed zero below, signed infinity above, canonical NaN for NaN operands and inf * 0. */
uint32_t fp32_mul_bf16(uint16_t a, uint16_t b);

/* fp32 x + y: inputs flushed, RNE, result flushed, canonical NaN, IEEE signed-zero rules. */
uint32_t fp32_add(uint32_t x, uint32_t y);

/* One PE step: fp32_add(acc, fp32_mul_bf16(a, b)). acc is read flushed like any input. */
uint32_t fp32_mac(uint32_t acc, uint16_t a, uint16_t b);

/* The first PE step of a dot product: the product replaces the accumulator (see above). */
uint32_t fp32_mac_clear(uint16_t a, uint16_t b);

#endif /* FLASHSTREAM_MODELS_REF_BF16_H */
