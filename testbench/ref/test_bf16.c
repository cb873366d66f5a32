/*
 * test_bf16.c - unit tests of the numerics contract (models/ref/bf16.h) and the reference GEMM
 * (models/ref/ref_gemm.h).
 *
 * Three opinions are compared: the contract implementation under test (host float arithmetic
 * plus flushing), an oracle in double arithmetic (operands decoded with ldexp, never bit-cast),
 * and an oracle in integer arithmetic only (exact sums in 128 bits, explicit RNE). Hand-written
 * tables pin the special cases. Random tests take their seed from FS_SEED (decimal or 0x hex)
 * and print it; a mismatch prints the seed, the index, the operands and both results.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testbench/test_assert.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/rng.h"
#include "models/ref/bf16.h"
#include "models/ref/ref_gemm.h"

#define N_RANDOM     1000000 /* random MAC steps per random test */
#define DEFAULT_SEED 0x5eed0b16f00dULL

/* ---------------------------------------------------------------------------------------- */
/* Random numbers: splitmix64, seeded from FS_SEED.                                         */

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(rng_next(s) % n);
}

/* A bf16 operand drawn so that every class shows up and sums interact: mostly exponents near
 * 1.0, some across the whole range, a few zeros, subnormals, infinities and NaNs. */
static uint16_t rnd_bf16(uint64_t *s)
{
    uint32_t r = rnd_below(s, 64);
    uint16_t sign = (uint16_t)(rnd_below(s, 2) << 15);
    uint16_t frac = (uint16_t)rnd_below(s, 128);
    uint32_t exp;

    if (r == 0)
        return sign; /* +-0 */
    if (r == 1)
        return (uint16_t)(sign | (frac ? frac : 1u)); /* subnormal */
    if (r == 2)
        return (uint16_t)(sign | BF16_POS_INF);
    if (r == 3)
        return (uint16_t)(sign | BF16_POS_INF | (frac ? frac : 0x40u)); /* NaN, any payload */
    if (r < 12)
        exp = 1 + rnd_below(s, 254); /* anywhere */
    else if (r < 16)
        exp = rnd_below(s, 2) ? 1 + rnd_below(s, 4) : 251 + rnd_below(s, 4); /* range edges */
    else
        exp = 120 + rnd_below(s, 16); /* near 1.0 */
    return (uint16_t)(sign | (exp << 7) | frac);
}

/* An fp32 accumulator: a random pattern near the exponent `near` (biased), or a special. */
static uint32_t rnd_fp32_near(uint64_t *s, int near)
{
    uint32_t r = rnd_below(s, 32);
    uint32_t sign = rnd_below(s, 2) << 31;
    uint32_t frac = (uint32_t)rng_next(s) & 0x7FFFFFu;
    int exp;

    if (r == 0)
        return sign;
    if (r == 1)
        return sign | (frac ? frac : 1u);
    if (r == 2)
        return sign | FP32_POS_INF;
    if (r == 3)
        return sign | FP32_POS_INF | (frac ? frac : 1u);
    if (r < 8)
        exp = 1 + (int)rnd_below(s, 254);
    else
        exp = near - 30 + (int)rnd_below(s, 33);
    if (exp < 1)
        exp = 1 + (int)rnd_below(s, 3);
    if (exp > 254)
        exp = 254 - (int)rnd_below(s, 3);
    if (rnd_below(s, 4) == 0)
        frac &= ~0u << rnd_below(s, 24); /* few low bits: exact cases and ties */
    return sign | ((uint32_t)exp << 23) | frac;
}

/* ---------------------------------------------------------------------------------------- */
/* Oracle 1: double arithmetic. Operands are decoded with ldexp, not bit casts. A product of   */
/* two bf16 is exact in double; an fp32 sum in double followed by one rounding to fp32 is     */
/* correctly rounded (53 >= 2 * 24 + 2, so the double rounding is innocuous for +).          */

static double dbl_from_bf16(uint16_t h)
{
    int exp = (h >> 7) & 0xFF;
    int frac = h & 0x7F;
    double sign = (h & 0x8000u) ? -1.0 : 1.0;

    if (exp == 0)
        return copysign(0.0, sign); /* zero or flushed subnormal */
    if (exp == 0xFF)
        return frac ? NAN : sign * INFINITY;
    return sign * ldexp(128 + frac, exp - 127 - 7);
}

static double dbl_from_fp32(uint32_t u)
{
    int exp = (u >> 23) & 0xFF;
    uint32_t frac = u & 0x7FFFFFu;
    double sign = (u & FP32_SIGN) ? -1.0 : 1.0;

    if (exp == 0)
        return copysign(0.0, sign);
    if (exp == 0xFF)
        return frac ? NAN : sign * INFINITY;
    return sign * ldexp((double)(0x800000u + frac), exp - 127 - 23);
}

/* d is exact or rounded once to 53 bits; round it to fp32 with FTZ and overflow to inf. */
static uint32_t dbl_to_fp32(double d)
{
    uint32_t sign = signbit(d) ? FP32_SIGN : 0;
    double mag = fabs(d);

    if (isnan(d))
        return FP32_NAN;
    if (mag < 0x1p-126)
        return sign; /* below 2^-126 the value is exact here; flush it */
    if (mag >= 0x1.ffffffp127)
        return sign | FP32_POS_INF; /* at or past the midpoint between FP32_MAX and 2^128 */
    return fp32_bits((float)d);
}

static double dbl_product(uint16_t a, uint16_t b)
{
    double p = dbl_from_bf16(a) * dbl_from_bf16(b);

    if (fabs(p) < 0x1p-126)
        return copysign(0.0, p);
    if (fabs(p) >= 0x1p128)
        return copysign(INFINITY, p);
    return p;
}

static uint32_t dbl_add(uint32_t x, uint32_t y)
{
    return dbl_to_fp32(dbl_from_fp32(x) + dbl_from_fp32(y));
}

static uint32_t dbl_mac(uint32_t acc, uint16_t a, uint16_t b, bool clear)
{
    double p = dbl_product(a, b);

    if (clear)
        return dbl_to_fp32(p);
    return dbl_to_fp32(dbl_from_fp32(acc) + p);
}

/* ---------------------------------------------------------------------------------------- */
/* Oracle 2: integers only. A finite value is (-1)^neg * sig * 2^exp.                          */

enum int_cls { INT_ZERO, INT_NUM, INT_INF, INT_NAN };

struct int_val {
    enum int_cls cls;
    bool neg;
    uint64_t sig;
    int exp;
};

static struct int_val int_unpack_bf16(uint16_t h)
{
    struct int_val v = {INT_NUM, (h >> 15) != 0, 0, 0};
    int e = (h >> 7) & 0xFF;
    int f = h & 0x7F;

    if (e == 0)
        v.cls = INT_ZERO;
    else if (e == 0xFF)
        v.cls = f ? INT_NAN : INT_INF;
    else {
        v.sig = 0x80u | (uint64_t)f;
        v.exp = e - 127 - 7;
    }
    return v;
}

static struct int_val int_unpack_fp32(uint32_t u)
{
    struct int_val v = {INT_NUM, (u >> 31) != 0, 0, 0};
    int e = (u >> 23) & 0xFF;
    uint32_t f = u & 0x7FFFFFu;

    if (e == 0)
        v.cls = INT_ZERO;
    else if (e == 0xFF)
        v.cls = f ? INT_NAN : INT_INF;
    else {
        v.sig = 0x800000u | f;
        v.exp = e - 127 - 23;
    }
    return v;
}

static int msb128(unsigned __int128 x)
{
    int n = -1;

    while (x) {
        x >>= 1;
        n++;
    }
    return n;
}

/* Round neg * mag * 2^exp to fp32: RNE to 24 bits, then inf above range, flush below it. */
static uint32_t int_round_pack(bool neg, unsigned __int128 mag, int exp)
{
    uint32_t sign = neg ? FP32_SIGN : 0;
    int top;
    uint64_t q;
    int biased;

    if (mag == 0)
        return sign;
    top = msb128(mag);
    if (top > 23) {
        int sh = top - 23;
        unsigned __int128 rem = mag & ((((unsigned __int128)1) << sh) - 1);
        unsigned __int128 half = ((unsigned __int128)1) << (sh - 1);

        q = (uint64_t)(mag >> sh);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        exp += sh;
        if (q == (1u << 24)) {
            q >>= 1;
            exp++;
        }
    } else {
        q = (uint64_t)mag << (23 - top);
        exp -= 23 - top;
    }
    biased = exp + 23 + 127; /* q in [2^23, 2^24): leading bit weighs 2^(exp + 23) */
    if (biased >= 0xFF)
        return sign | FP32_POS_INF;
    if (biased <= 0)
        return sign; /* only exact values get here (see bf16.c): flush */
    return sign | ((uint32_t)biased << 23) | ((uint32_t)q & 0x7FFFFFu);
}

static uint32_t int_pack(struct int_val v)
{
    if (v.cls == INT_NAN)
        return FP32_NAN;
    if (v.cls == INT_INF)
        return (v.neg ? FP32_SIGN : 0) | FP32_POS_INF;
    if (v.cls == INT_ZERO)
        return v.neg ? FP32_SIGN : 0;
    return int_round_pack(v.neg, v.sig, v.exp);
}

static struct int_val int_product(uint16_t a, uint16_t b)
{
    struct int_val x = int_unpack_bf16(a), y = int_unpack_bf16(b);
    struct int_val p = {INT_NUM, x.neg != y.neg, x.sig * y.sig, x.exp + y.exp};

    if (x.cls == INT_NAN || y.cls == INT_NAN || (x.cls == INT_INF && y.cls == INT_ZERO) ||
        (x.cls == INT_ZERO && y.cls == INT_INF))
        p.cls = INT_NAN;
    else if (x.cls == INT_INF || y.cls == INT_INF)
        p.cls = INT_INF;
    else if (x.cls == INT_ZERO || y.cls == INT_ZERO)
        p.cls = INT_ZERO;
    return p; /* int_pack rounds nothing away here: 16 bits fit in 24 */
}

static uint32_t int_add_vals(struct int_val x, struct int_val y)
{
    unsigned __int128 mx, my;
    int emin;

    if (x.cls == INT_NAN || y.cls == INT_NAN)
        return FP32_NAN;
    if (x.cls == INT_INF && y.cls == INT_INF)
        return x.neg == y.neg ? int_pack(x) : FP32_NAN;
    if (x.cls == INT_INF)
        return int_pack(x);
    if (y.cls == INT_INF)
        return int_pack(y);
    if (x.cls == INT_ZERO && y.cls == INT_ZERO)
        return (x.neg && y.neg) ? FP32_SIGN : 0;
    if (x.cls == INT_ZERO)
        return int_pack(y);
    if (y.cls == INT_ZERO)
        return int_pack(x);
    /* Exact sum when the exponents are within 100; beyond that the smaller operand is below
     * a quarter ulp of the larger one and cannot change its rounding. */
    if (x.exp - y.exp > 100)
        return int_pack(x);
    if (y.exp - x.exp > 100)
        return int_pack(y);
    emin = x.exp < y.exp ? x.exp : y.exp;
    mx = (unsigned __int128)x.sig << (x.exp - emin);
    my = (unsigned __int128)y.sig << (y.exp - emin);
    if (x.neg == y.neg)
        return int_round_pack(x.neg, mx + my, emin);
    if (mx == my)
        return 0; /* exact cancellation: +0 under RNE */
    return mx > my ? int_round_pack(x.neg, mx - my, emin) : int_round_pack(y.neg, my - mx, emin);
}

static uint32_t int_add(uint32_t x, uint32_t y)
{
    return int_add_vals(int_unpack_fp32(x), int_unpack_fp32(y));
}

static uint32_t int_mac(uint32_t acc, uint16_t a, uint16_t b, bool clear)
{
    uint32_t p = int_pack(int_product(a, b));

    if (clear)
        return p;
    return int_add(acc, p);
}

/* ---------------------------------------------------------------------------------------- */
/* Tables.                                                                                   */

struct cvt_case {
    uint32_t in;
    uint16_t want;
};

static void test_bf16_from_f32_table(void **state)
{
    static const struct cvt_case cases[] = {
        {0x00000000, 0x0000}, /* +0 */
        {0x80000000, 0x8000}, /* -0 */
        {0x00000001, 0x0000}, /* smallest subnormal flushes */
        {0x007FFFFF, 0x0000}, /* largest subnormal flushes (would round to 0x0080 otherwise) */
        {0x807FFFFF, 0x8000}, /* negative subnormal keeps its sign */
        {0x80000001, 0x8000},
        {0x00800000, 0x0080}, /* min normal */
        {0x0080FFFF, 0x0081},
        {0x3F800000, 0x3F80}, /* 1.0 */
        {0x3F807FFF, 0x3F80}, /* below half: down */
        {0x3F808000, 0x3F80}, /* tie, even lsb: down */
        {0x3F808001, 0x3F81}, /* above half: up */
        {0x3F818000, 0x3F82}, /* tie, odd lsb: up */
        {0xBF808000, 0xBF80}, /* negative tie, even: toward zero */
        {0xBF818000, 0xBF82}, /* negative tie, odd: away from zero */
        {0x3FFF8000, 0x4000}, /* tie rounds up into the next binade */
        {0x7F7F0000, 0x7F7F}, /* max finite bf16 */
        {0x7F7F7FFF, 0x7F7F}, /* just below the overflow midpoint */
        {0x7F7F8000, 0x7F80}, /* tie at max, odd lsb: overflows to +inf */
        {0x7F7E8000, 0x7F7E}, /* tie, even lsb: stays */
        {0x7F7FFFFF, 0x7F80}, /* fp32 max overflows by rounding */
        {0xFF7FFFFF, 0xFF80}, /* ... to -inf */
        {0x7F800000, 0x7F80}, /* +inf */
        {0xFF800000, 0xFF80}, /* -inf */
        {0x7FC00000, 0x7FC0}, /* canonical NaN */
        {0xFFC00000, 0x7FC0}, /* negative NaN (the x86 default NaN) */
        {0x7F800001, 0x7FC0}, /* payload only in the dropped half: truncation would give inf */
        {0x7FBF0000, 0x7FC0}, /* signalling NaN */
        {0xFF812345, 0x7FC0},
        {0x7FFFFFFF, 0x7FC0}, /* all-ones payload: no carry out of the exponent */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint16_t got = bf16_from_f32_bits(cases[i].in);

        if (got != cases[i].want)
            fail_msg("case %zu: bf16_from_f32_bits(0x%08" PRIx32 ") = 0x%04x, want 0x%04x", i,
                     cases[i].in, got, cases[i].want);
        if (!fp32_is_nan(cases[i].in) &&
            bf16_from_f32(fp32_from_bits(cases[i].in)) != cases[i].want)
            fail_msg("case %zu: bf16_from_f32 disagrees with the _bits variant", i);
    }
    assert_int_equal(bf16_from_f32(1.0f), 0x3F80);
    assert_int_equal(bf16_from_f32(-2.5f), 0xC020);
    assert_int_equal(bf16_to_f32_bits(0xC020), 0xC0200000);
    assert_true(bf16_to_f32(0xC020) == -2.5f);
    assert_int_equal(bf16_flush(0x0001), 0x0000);
    assert_int_equal(bf16_flush(0x807F), 0x8000);
    assert_int_equal(bf16_flush(0xFF81), BF16_NAN);
    assert_int_equal(bf16_flush(0xFF80), 0xFF80);
    assert_int_equal(fp32_flush(0x807FFFFF), 0x80000000);
    assert_int_equal(fp32_flush(0xFFFFFFFF), FP32_NAN);
    assert_true(bf16_is_subnormal(0x8001) && !bf16_is_subnormal(0x8000));
    assert_true(bf16_is_inf(0xFF80) && !bf16_is_nan(0xFF80) && bf16_is_nan(0xFF81));
    assert_true(fp32_is_subnormal(0x00000001) && fp32_is_inf(0xFF800000));
}

/* Check every bf16 -> fp32 -> bf16 round trip and every half-way pattern around each bf16. */
static void test_bf16_from_f32_exhaustive(void **state)
{
    (void)state;
    for (uint32_t h = 0; h <= 0xFFFF; h++) {
        uint32_t u = h << 16;
        uint16_t want = bf16_flush((uint16_t)h);
        uint16_t up = (uint16_t)(h + 1); /* next pattern away from zero, same sign */

        if (bf16_from_f32_bits(u) != want)
            fail_msg("round trip 0x%04" PRIx32 " gave 0x%04x", h, bf16_from_f32_bits(u));
        if (bf16_is_nan((uint16_t)h) || bf16_is_inf((uint16_t)h) || (h & 0x7F80) == 0)
            continue; /* NaN, inf: done above; zero/subnormal: flushed whatever the low half */
        /* half-way: to even; just above: away from zero; just below: toward zero */
        if (bf16_from_f32_bits(u | 0x8000) != ((h & 1) ? up : h))
            fail_msg("tie above 0x%04" PRIx32 " gave 0x%04x", h, bf16_from_f32_bits(u | 0x8000));
        if (bf16_from_f32_bits(u | 0x8001) != up)
            fail_msg("above-half 0x%04" PRIx32 " gave 0x%04x", h, bf16_from_f32_bits(u | 0x8001));
        if (bf16_from_f32_bits(u | 0x7FFF) != h)
            fail_msg("below-half 0x%04" PRIx32 " gave 0x%04x", h, bf16_from_f32_bits(u | 0x7FFF));
    }
}

struct mul_case {
    uint16_t a, b;
    uint32_t want;
};

static void test_mul_table(void **state)
{
    static const struct mul_case cases[] = {
        {0x3F80, 0x3F80, 0x3F800000}, /* 1 * 1 */
        {0x3FFF, 0x3FFF, 0x407E0100}, /* (255/128)^2 = 65025/16384: all 16 product bits kept */
        {0xBFFF, 0x3FFF, 0xC07E0100},
        {0x0000, 0x3F80, 0x00000000}, /* +0 * 1 */
        {0x8000, 0x3F80, 0x80000000}, /* -0 * 1 */
        {0x8000, 0xBF80, 0x00000000}, /* -0 * -1 */
        {0x8000, 0x8000, 0x00000000}, /* -0 * -0 */
        {0x0001, 0x7F7F, 0x00000000}, /* subnormal reads as zero */
        {0x8001, 0x3F80, 0x80000000}, /* ... keeping its sign */
        {0x007F, 0xBF80, 0x80000000},
        {0x2000, 0x2000, 0x00800000}, /* 2^-63 * 2^-63 = 2^-126: min normal, kept */
        {0xA000, 0x2000, 0x80800000},
        {0x1FFF, 0x2000, 0x00000000}, /* just below 2^-126: flushed */
        {0x9FFF, 0x2000, 0x80000000}, /* ... to a signed zero */
        {0x9FFF, 0xA000, 0x00000000},
        {0x0080, 0x0080, 0x00000000}, /* min normal squared: far below */
        {0x5F80, 0x5F00, 0x7F000000}, /* 2^64 * 2^63 = 2^127 */
        {0x5F7F, 0x5F7F, 0x7F7E0100}, /* largest square below 2^128 */
        {0x5F80, 0x5F80, 0x7F800000}, /* 2^128: overflows to inf */
        {0x7F7F, 0x7F7F, 0x7F800000},
        {0x7F7F, 0xFF7F, 0xFF800000},
        {0x7F80, 0x4000, 0x7F800000}, /* inf * 2 */
        {0xFF80, 0x4000, 0xFF800000},
        {0xFF80, 0xFF80, 0x7F800000},
        {0x7F80, 0x0000, FP32_NAN}, /* inf * 0 */
        {0x8000, 0xFF80, FP32_NAN},
        {0x7F80, 0x0040, FP32_NAN}, /* inf * subnormal = inf * 0 */
        {0x7FC0, 0x3F80, FP32_NAN}, /* NaN operands, any payload and sign */
        {0xFFFF, 0x3F80, FP32_NAN},
        {0x3F80, 0x7F81, FP32_NAN},
        {0x7F81, 0x0000, FP32_NAN},
        {0xFFC1, 0x7F80, FP32_NAN},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint32_t got = fp32_mul_bf16(cases[i].a, cases[i].b);

        if (got != cases[i].want)
            fail_msg("case %zu: 0x%04x * 0x%04x = 0x%08" PRIx32 ", want 0x%08" PRIx32, i,
                     cases[i].a, cases[i].b, got, cases[i].want);
        if (fp32_mac_clear(cases[i].a, cases[i].b) != cases[i].want)
            fail_msg("case %zu: fp32_mac_clear differs from the product", i);
        if (int_pack(int_product(cases[i].a, cases[i].b)) != cases[i].want)
            fail_msg("case %zu: integer oracle disagrees with the table", i);
    }
}

struct add_case {
    uint32_t x, y, want;
};

static void test_add_table(void **state)
{
    static const struct add_case cases[] = {
        {0x3F800000, 0xBF800000, 0x00000000}, /* 1 + -1 = +0 */
        {0xBF800000, 0x3F800000, 0x00000000}, /* -1 + 1 = +0 */
        {0x80000000, 0x80000000, 0x80000000}, /* -0 + -0 = -0 */
        {0x00000000, 0x80000000, 0x00000000}, /* +0 + -0 = +0 */
        {0x80000000, 0x00000000, 0x00000000},
        {0x80000000, 0x3F800000, 0x3F800000}, /* -0 + 1 */
        {0x00400000, 0x00400000, 0x00000000}, /* subnormals read as 0 (else 2^-126) */
        {0x80000001, 0x00000000, 0x00000000}, /* -0 + +0 */
        {0x80000001, 0x80000001, 0x80000000}, /* -0 + -0 */
        {0x807FFFFF, 0x3F800000, 0x3F800000},
        {0x00800000, 0x80800000, 0x00000000}, /* exact cancellation at min normal */
        {0x00800001, 0x80800000, 0x00000000}, /* 2^-149: subnormal result flushed */
        {0x80800001, 0x00800000, 0x80000000}, /* ... keeping the sign of the sum */
        {0x00C00000, 0x80800000, 0x00000000}, /* 0.5 * 2^-126 */
        {0x01000000, 0x80800001, 0x00000000}, /* 2^-126 - 2^-149 */
        {0x81000000, 0x00800001, 0x80000000},
        {0x01000001, 0x80800000, 0x00800002}, /* 2^-126 + 2^-148: stays normal */
        {0x00800000, 0x00800000, 0x01000000}, /* 2^-126 + 2^-126 */
        {0x3F800000, 0x33800000, 0x3F800000}, /* 1 + 2^-24: tie, even: down */
        {0x3F800001, 0x33800000, 0x3F800002}, /* tie, odd: up */
        {0x3F800000, 0x33800001, 0x3F800001}, /* just above the tie: up */
        {0x3F800000, 0xB3000000, 0x3F800000}, /* 1 - 2^-25: tie below 1, even is 1.0 */
        {0x3F800000, 0xB3000001, 0x3F7FFFFF}, /* just past the tie: down */
        {0x3F800000, 0xB3800000, 0x3F7FFFFF}, /* 1 - 2^-24 is exact */
        {0x4B800000, 0x3F800000, 0x4B800000}, /* 2^24 + 1: tie, even */
        {0x4B800000, 0x40400000, 0x4B800002}, /* 2^24 + 3: tie, up to even */
        {0x3F800000, 0x0D800000, 0x3F800000}, /* 1 + 2^-100 */
        {0x3F800000, 0x8D800000, 0x3F800000}, /* 1 - 2^-100: rounds back to 1 */
        {0x7F7FFFFF, 0x7F7FFFFF, 0x7F800000}, /* max + max overflows */
        {0xFF7FFFFF, 0xFF7FFFFF, 0xFF800000},
        {0x7F7FFFFF, 0x73000000, 0x7F800000}, /* max + half ulp: tie, odd: to inf */
        {0x7F7FFFFF, 0x72FFFFFF, 0x7F7FFFFF}, /* just below the tie: stays */
        {0x7F7FFFFF, 0xFF7FFFFF, 0x00000000},
        {0x7F800000, 0xFF800000, FP32_NAN}, /* inf - inf */
        {0x7F800000, 0x3F800000, 0x7F800000},
        {0xFF800000, 0x7F7FFFFF, 0xFF800000},
        {0x7F800000, 0x7F800000, 0x7F800000},
        {0x7F800000, 0x00000001, 0x7F800000},
        {0x7FC00000, 0x3F800000, FP32_NAN},
        {0xFFFFFFFF, 0x00000000, FP32_NAN}, /* negative NaN with payload */
        {0x7F800001, 0x7F800000, FP32_NAN}, /* signalling NaN + inf */
        {0x7F800000, 0xFF800001, FP32_NAN},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct add_case *c = &cases[i];
        uint32_t got = fp32_add(c->x, c->y);

        if (got != c->want)
            fail_msg("case %zu: 0x%08" PRIx32 " + 0x%08" PRIx32 " = 0x%08" PRIx32
                     ", want 0x%08" PRIx32,
                     i, c->x, c->y, got, c->want);
        if (fp32_add(c->y, c->x) != c->want)
            fail_msg("case %zu: fp32_add is not commutative here", i);
        if (int_add(c->x, c->y) != c->want || dbl_add(c->x, c->y) != c->want)
            fail_msg("case %zu: an oracle disagrees with the table", i);
    }
}

struct mac_case {
    uint32_t acc;
    uint16_t a, b;
    bool clear;
    uint32_t want;
};

static void test_mac_table(void **state)
{
    static const struct mac_case cases[] = {
        {0x00000000, 0x8000, 0x3F80, true, 0x80000000},  /* clear keeps a -0 product */
        {0x00000000, 0x8000, 0x3F80, false, 0x00000000}, /* +0 + -0 = +0 */
        {0x80000000, 0x8000, 0x3F80, false, 0x80000000}, /* -0 + -0 = -0 */
        {0x80000000, 0x1FFF, 0x2000, false, 0x00000000}, /* -0 + (+0 flushed product) */
        {0x80000000, 0x9FFF, 0x2000, false, 0x80000000}, /* -0 + (-0 flushed product) */
        {0x3F800000, 0x1FFF, 0x2000, false, 0x3F800000}, /* underflowed product adds 0 */
        {0x80800000, 0x2000, 0x2000, false, 0x00000000}, /* -2^-126 + 2^-126 = +0 */
        {0x00000005, 0x3F80, 0x3F80, false, 0x3F800000}, /* subnormal acc reads as 0 */
        {0x3F800000, 0xBF80, 0x3F80, false, 0x00000000}, /* 1 - 1 */
        {0x7F800000, 0x0000, 0x3F80, false, 0x7F800000}, /* inf + 0 */
        {0xFF800000, 0x7F80, 0x3F80, false, FP32_NAN},   /* -inf + inf */
        {0x7F800123, 0x3F80, 0x3F80, false, FP32_NAN},   /* NaN acc */
        {0x7FC00000, 0x3F80, 0x3F80, true, 0x3F800000},  /* clear ignores the old acc */
        {0x3F800000, 0x7F80, 0x0000, false, FP32_NAN},   /* inf * 0 */
        {0x7F7FFFFF, 0x5F80, 0x5F80, false, 0x7F800000}, /* product overflow */
        {0xFF800000, 0x5F80, 0x5F80, false, FP32_NAN},   /* -inf + (overflowed +inf) */
        {0x7F7FFFFF, 0x7380, 0x3F80, false, 0x7F800000}, /* max + 2^104 rounds up to inf */
        {0x4B800000, 0x3F80, 0x3F80, false, 0x4B800000}, /* 2^24 + 1: tie to even */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct mac_case *c = &cases[i];
        uint32_t got = c->clear ? fp32_mac_clear(c->a, c->b) : fp32_mac(c->acc, c->a, c->b);

        if (got != c->want)
            fail_msg("case %zu: mac(0x%08" PRIx32 ", 0x%04x, 0x%04x, clear=%d) = 0x%08" PRIx32
                     ", want 0x%08" PRIx32,
                     i, c->acc, c->a, c->b, c->clear, got, c->want);
        if (int_mac(c->acc, c->a, c->b, c->clear) != c->want ||
            dbl_mac(c->acc, c->a, c->b, c->clear) != c->want)
            fail_msg("case %zu: an oracle disagrees with the table", i);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Random tests against both oracles.                                                        */

static bool output_ok(uint32_t u)
{
    return !fp32_is_subnormal(u) && (!fp32_is_nan(u) || u == FP32_NAN);
}

/* 10^6 MAC steps: accumulators chained from the previous result, random, or placed right at
 * minus the product (cancellation, ties, subnormal results), with random clears. */
static void test_mac_random(void **state)
{
    uint64_t s = test_seed("test_bf16", DEFAULT_SEED) ^ 0x6d6163ULL;
    uint32_t acc = 0;

    (void)state;
    for (long i = 0; i < N_RANDOM; i++) {
        uint16_t a = rnd_bf16(&s), b = rnd_bf16(&s);
        uint32_t p = fp32_mul_bf16(a, b);
        int pexp = (int)((p >> 23) & 0xFF);
        uint32_t r = rnd_below(&s, 16);
        bool clear = rnd_below(&s, 16) == 0;
        uint32_t got, want_i, want_d;

        if (r < 6) {
            /* keep the chain */
        } else if (r < 11) {
            acc = rnd_fp32_near(&s, pexp ? pexp : 127);
        } else if (pexp != 0 && pexp != 0xFF) {
            /* -p nudged by a few ulps: cancellation down to tiny or subnormal sums */
            uint32_t d = rnd_below(&s, 8);

            acc = (p ^ FP32_SIGN) + (rnd_below(&s, 2) ? d : 0u - d);
            if ((acc & 0x7F800000u) == 0x7F800000u || ((acc ^ p) & FP32_SIGN) == 0)
                acc = p ^ FP32_SIGN; /* the nudge left the binade: use -p itself */
        }
        got = clear ? fp32_mac_clear(a, b) : fp32_mac(acc, a, b);
        want_i = int_mac(acc, a, b, clear);
        want_d = dbl_mac(acc, a, b, clear);
        if (got != want_i || got != want_d || !output_ok(got))
            fail_msg("seed 0x%" PRIx64 " step %ld: mac(acc 0x%08" PRIx32
                     ", a 0x%04x, b 0x%04x, clear %d) = 0x%08" PRIx32
                     ", integer oracle 0x%08" PRIx32 ", double oracle 0x%08" PRIx32,
                     test_seed("test_bf16", DEFAULT_SEED), i, acc, a, b, clear, got, want_i,
                     want_d);
        acc = got;
        if (fp32_is_nan(acc) || fp32_is_inf(acc))
            acc = 0; /* restart the chain */
    }
}

/* fp32 + fp32 alone, with operands near each other (alignment, cancellation, carries) and at
 * the bottom and top of the exponent range (flushed results, overflow). */
static void test_add_random(void **state)
{
    uint64_t s = test_seed("test_bf16", DEFAULT_SEED) ^ 0x616464ULL;

    (void)state;
    for (long i = 0; i < N_RANDOM; i++) {
        uint32_t r = rnd_below(&s, 8);
        int near = r == 0 ? 3 : r == 1 ? 252 : 1 + (int)rnd_below(&s, 254);
        uint32_t x = rnd_fp32_near(&s, near);
        uint32_t y = rnd_fp32_near(&s, (int)((x >> 23) & 0xFF) + 15);
        uint32_t got = fp32_add(x, y);
        uint32_t want_i = int_add(x, y);
        uint32_t want_d = dbl_add(x, y);

        if (got != want_i || got != want_d || !output_ok(got))
            fail_msg("seed 0x%" PRIx64 " step %ld: 0x%08" PRIx32 " + 0x%08" PRIx32 " = 0x%08" PRIx32
                     ", integer oracle 0x%08" PRIx32 ", double oracle 0x%08" PRIx32,
                     test_seed("test_bf16", DEFAULT_SEED), i, x, y, got, want_i, want_d);
    }
}

/* Every bf16 x bf16 product is the 2^32 pairs; test all a against a spread of b: all 2^16 a
 * times 256 b drawn to cover every exponent and class. */
static void test_mul_sweep(void **state)
{
    uint64_t s = test_seed("test_bf16", DEFAULT_SEED) ^ 0x6d756cULL;

    (void)state;
    for (uint32_t j = 0; j < 256; j++) {
        uint16_t b = (uint16_t)((j << 8) | rnd_below(&s, 256)); /* every top byte */

        for (uint32_t a = 0; a <= 0xFFFF; a++) {
            uint32_t got = fp32_mul_bf16((uint16_t)a, b);
            uint32_t want = int_pack(int_product((uint16_t)a, b));

            if (got != want || dbl_to_fp32(dbl_product((uint16_t)a, b)) != want)
                fail_msg("seed 0x%" PRIx64 ": 0x%04" PRIx32 " * 0x%04x = 0x%08" PRIx32
                         ", integer oracle 0x%08" PRIx32,
                         test_seed("test_bf16", DEFAULT_SEED), a, b, got, want);
        }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* ref_gemm.                                                                                 */

#define GUARD32 0xDEADBEEFu

/* The dot product the slow way, with the double oracle (shares no code with ref_gemm). */
static uint32_t oracle_dot(const uint16_t *a_row, const uint16_t *b_col, size_t K, uint32_t c0,
                           bool accumulate)
{
    uint32_t s = c0;

    if (K == 0)
        return accumulate ? c0 : 0;
    for (size_t k = 0; k < K; k++)
        s = dbl_mac(s, a_row[k], b_col[k], k == 0 && !accumulate);
    return s;
}

static void gemm_check(uint64_t *s, size_t M, size_t N, size_t K, bool ta, bool tb, bool acc)
{
    size_t lda = (ta ? M : K) + rnd_below(s, 3);
    size_t ldb = (tb ? K : N) + rnd_below(s, 3);
    size_t ldc = N + rnd_below(s, 3);
    uint16_t *A = calloc((ta ? K : M) * lda + 1, sizeof(*A));
    uint16_t *B = calloc((tb ? N : K) * ldb + 1, sizeof(*B));
    uint32_t *C = calloc(M * ldc + 1, sizeof(*C));
    uint32_t *C0 = calloc(M * ldc + 1, sizeof(*C0));
    uint16_t *a_row = calloc(K + 1, sizeof(*a_row));
    uint16_t *b_col = calloc(K + 1, sizeof(*b_col));

    assert_non_null(A);
    assert_non_null(B);
    assert_non_null(C);
    assert_non_null(C0);
    assert_non_null(a_row);
    assert_non_null(b_col);
    for (size_t i = 0; i < (ta ? K : M) * lda; i++)
        A[i] = rnd_bf16(s);
    for (size_t i = 0; i < (tb ? N : K) * ldb; i++)
        B[i] = rnd_bf16(s);
    for (size_t i = 0; i < M * ldc; i++)
        C[i] = (i % ldc) < N ? rnd_fp32_near(s, 127) : GUARD32;
    memcpy(C0, C, M * ldc * sizeof(*C));

    assert_int_equal(ref_gemm(M, N, K, A, lda, ta, B, ldb, tb, C, ldc, acc), 0);
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < ldc; j++) {
            uint32_t want;

            if (j >= N) {
                assert_int_equal(C[i * ldc + j], GUARD32); /* padding untouched */
                continue;
            }
            for (size_t k = 0; k < K; k++) {
                a_row[k] = ta ? A[k * lda + i] : A[i * lda + k];
                b_col[k] = tb ? B[j * ldb + k] : B[k * ldb + j];
            }
            want = oracle_dot(a_row, b_col, K, C0[i * ldc + j], acc);
            if (C[i * ldc + j] != want)
                fail_msg("gemm %zux%zux%zu ta %d tb %d acc %d: C[%zu][%zu] = 0x%08" PRIx32
                         ", want 0x%08" PRIx32,
                         M, N, K, ta, tb, acc, i, j, C[i * ldc + j], want);
        }
    }
    free(A);
    free(B);
    free(C);
    free(C0);
    free(a_row);
    free(b_col);
}

static void test_gemm_random(void **state)
{
    uint64_t s = test_seed("test_bf16", DEFAULT_SEED) ^ 0x67656d6dULL;

    (void)state;
    for (int t = 0; t < 200; t++) {
        size_t M = 1 + rnd_below(&s, 9), N = 1 + rnd_below(&s, 9), K = rnd_below(&s, 40);

        gemm_check(&s, M, N, K, t & 1, (t >> 1) & 1, (t >> 2) & 1);
    }
}

static void test_gemm_rules(void **state)
{
    /* Ascending k: (2^24 + 1) - 2^24 = +0, whereas descending would give 1. */
    const uint16_t a_order[3] = {0x4B80, 0x3F80, 0xCB80};
    const uint16_t b_one[3] = {0x3F80, 0x3F80, 0x3F80};
    const uint16_t a_negz[1] = {0x8000};
    uint32_t c[2] = {GUARD32, GUARD32};

    (void)state;
    assert_int_equal(ref_gemm(1, 1, 3, a_order, 3, false, b_one, 1, false, c, 1, false), 0);
    assert_int_equal(c[0], 0x00000000);
    assert_int_equal(c[1], GUARD32);

    /* Clear: a -0 product starts the sum at -0; accumulating onto +0 gives +0. */
    assert_int_equal(ref_gemm(1, 1, 1, a_negz, 1, false, b_one, 1, false, c, 1, false), 0);
    assert_int_equal(c[0], 0x80000000);
    c[0] = 0;
    assert_int_equal(ref_gemm(1, 1, 1, a_negz, 1, false, b_one, 1, false, c, 1, true), 0);
    assert_int_equal(c[0], 0x00000000);

    /* K == 0: empty sum is +0 without accumulate; C untouched with it. */
    c[0] = 0x12345678;
    assert_int_equal(ref_gemm(1, 1, 0, NULL, 0, false, NULL, 1, false, c, 1, true), 0);
    assert_int_equal(c[0], 0x12345678);
    assert_int_equal(ref_gemm(1, 1, 0, NULL, 0, false, NULL, 1, false, c, 1, false), 0);
    assert_int_equal(c[0], 0x00000000);

    /* Bad arguments. */
    assert_int_equal(ref_gemm(1, 1, 3, a_order, 2, false, b_one, 1, false, c, 1, false), -EINVAL);
    assert_int_equal(ref_gemm(2, 1, 1, a_negz, 1, true, b_one, 1, false, c, 1, false), -EINVAL);
    assert_int_equal(ref_gemm(1, 2, 1, a_negz, 1, false, b_one, 1, false, c, 1, false), -EINVAL);
    assert_int_equal(ref_gemm(1, 1, 1, NULL, 1, false, b_one, 1, false, c, 1, false), -EINVAL);
    assert_int_equal(ref_gemm(1, 1, 1, a_negz, 1, false, b_one, 1, false, NULL, 1, false), -EINVAL);
    assert_int_equal(ref_gemm(0, 5, 5, NULL, 0, false, NULL, 0, false, NULL, 0, false), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bf16_from_f32_table), cmocka_unit_test(test_bf16_from_f32_exhaustive),
        cmocka_unit_test(test_mul_table),           cmocka_unit_test(test_add_table),
        cmocka_unit_test(test_mac_table),           cmocka_unit_test(test_mul_sweep),
        cmocka_unit_test(test_add_random),          cmocka_unit_test(test_mac_random),
        cmocka_unit_test(test_gemm_rules),          cmocka_unit_test(test_gemm_random),
    };

    test_seed("test_bf16", DEFAULT_SEED);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
