/*
 * Unit tests of the compute core's C twin (models/core/core_twin.h) on its own, against the
 * reference GEMM (models/ref/ref_gemm.h) and the numerics contract (models/ref/bf16.h). The
 * twin against the RTL is testbench/core/test_core_rtl.c's job.
 */
#include "models/core/core_twin.h"
#include "models/ref/bf16.h"
#include "models/ref/ref_gemm.h"
#include "csim/rng.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define ARRAY_LEN(x) (sizeof(x) / sizeof((x)[0]))

static const struct core_params cfg8 = {
    .rows = 8, .cols = 8, .a_words = 512, .b_words = 512, .c_words = 512};

/* ---------------------------------------------------------------- configuration */

static void word_is_lcm_of_rows_cols_and_4(void **state)
{
    (void)state;
    static const struct {
        unsigned r, c, w;
    } cases[] = {{1, 1, 4},    {2, 3, 12}, {4, 4, 4}, {8, 8, 8},    {16, 16, 16},
                 {32, 32, 32}, {3, 5, 60}, {8, 2, 8}, {64, 64, 64}, {6, 4, 12}};
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct core_params g = {cases[i].r, cases[i].c, 16, 16, 16, 1};
        assert_int_equal(core_twin_w(&g), cases[i].w);
        assert_int_equal(core_twin_params_check(&g, NULL), 0);
        g.acc_stages = 0; /* reads as one stage */
        assert_int_equal(core_twin_w(&g), cases[i].w);
    }
    /* Four stages: the same word; a tile is four array tiles, 4 x rows rows of C. */
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct core_params g = {cases[i].r, cases[i].c, 16, 16, 16, 4};
        assert_int_equal(core_twin_w(&g), cases[i].w);
        assert_int_equal(core_twin_tile_rows(&g), 4 * cases[i].r);
        assert_int_equal(core_twin_params_check(&g, NULL), 0);
    }
}

/* A twin of a configuration the RTL builds. */
static struct core_twin *new_twin(const struct core_params *cfg)
{
    struct core_twin *t;
    return core_twin_create(cfg, &t, NULL) ? NULL : t;
}

static void bad_configurations_are_refused(void **state)
{
    (void)state;
    const struct core_params bad[] = {
        {0, 8, 16, 16, 16, 1},          {8, 65, 16, 16, 16, 1},
        {7, 9, 16, 16, 16, 1}, /* W = 252 */
        {8, 8, 1, 16, 16, 1},           {8, 8, 16, 16, 0, 1},
        {8, 8, 0x10000000u, 16, 16, 1}, /* more than 2 GiB of map */
        {8, 8, 16, 16, 16, 2},
    };
    /* What each one breaks, as the message says it. */
    const char *const why[] = {"rows and cols must be 1..64",
                               "rows and cols must be 1..64",
                               "lcm(rows, cols, 4) = 252 is above 64",
                               "each needs >= 2 words",
                               "each needs >= 2 words",
                               "all fit in 2 GiB",
                               "acc_stages must be 1 or 4, got 2"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        struct err e = {""};
        struct core_twin *t = NULL;
        assert_int_equal(core_twin_params_check(&bad[i], &e), -EINVAL);
        assert_non_null(strstr(e.msg, why[i]));
        err_clear(&e);
        assert_int_equal(core_twin_create(&bad[i], &t, &e), -EINVAL);
        assert_null(t);
        assert_non_null(strstr(e.msg, why[i]));
    }
}

static void address_map(void **state)
{
    (void)state;
    struct core_twin_map m;
    core_twin_map(&cfg8, &m);
    assert_int_equal(m.w, 8);
    assert_int_equal(m.a_base, 0);
    assert_int_equal(m.b_base, 512 * 8 * 2);
    assert_int_equal(m.c_base, 2 * 512 * 8 * 2);
    assert_int_equal(m.end, 2 * 512 * 8 * 2 + 512 * 8 * 4);
    assert_int_equal(m.c_elems, 4096);
}

/* ---------------------------------------------------------------- DMA */

static void dma_bytes_are_little_endian_elements(void **state)
{
    (void)state;
    struct core_twin *t = new_twin(&cfg8);
    struct core_twin_map m;
    uint64_t v;

    assert_non_null(t);
    core_twin_map(&cfg8, &m);
    /* A-pad element e is at byte 2e, low byte first */
    assert_int_equal(core_twin_dma_write(t, 8, 0x4444333322221111ull, 0xFF), 0);
    assert_int_equal(core_twin_a(t)[4], 0x1111);
    assert_int_equal(core_twin_a(t)[7], 0x4444);
    /* strobes: only bytes 1 and 6 */
    assert_int_equal(core_twin_dma_write(t, 8, 0xAABBCCDDEEFF0011ull, 0x42), 0);
    assert_int_equal(core_twin_a(t)[4], 0x0011);
    assert_int_equal(core_twin_a(t)[7], 0x44BB);
    /* B and C */
    assert_int_equal(core_twin_dma_write(t, m.b_base + 16, 0x1234, 0x03), 0);
    assert_int_equal(core_twin_b(t)[8], 0x1234);
    assert_int_equal(core_twin_dma_write(t, m.c_base + 8, 0x89ABCDEF01234567ull, 0xFF), 0);
    assert_int_equal(core_twin_c(t)[2], 0x01234567u);
    assert_int_equal(core_twin_c(t)[3], 0x89ABCDEFu);
    assert_int_equal(core_twin_dma_read(t, m.c_base + 8, &v), 0);
    assert_int_equal(v, 0x89ABCDEF01234567ull);
    /* errors: misaligned, past the map; nothing changes, reads give 0 */
    assert_int_equal(core_twin_dma_write(t, 9, ~0ull, 0xFF), -EINVAL);
    assert_int_equal(core_twin_dma_write(t, m.end, ~0ull, 0xFF), -EINVAL);
    assert_int_equal(core_twin_dma_read(t, m.end + 8, &v), -EINVAL);
    assert_int_equal(v, 0);
    assert_int_equal(core_twin_dma_read(t, 8, &v), 0);
    assert_int_equal(v, 0x44BB333322220011ull);
    core_twin_destroy(t);
}

/* ---------------------------------------------------------------- checks */

static void status_codes_and_their_order(void **state)
{
    (void)state;
    const struct core_cmd good = {.m = 2, .n = 3, .k = 4, .lda = 8, .ldb = 8, .ldc = 8};
    struct core_cmd c;

    assert_int_equal(core_twin_check(&cfg8, &good), CORE_OK);
#define EXPECT(field, value, status)                                                               \
    do {                                                                                           \
        c = good;                                                                                  \
        c.field = (value);                                                                         \
        assert_int_equal(core_twin_check(&cfg8, &c), (status));                                    \
        assert_true(((status) == CORE_OK) == (core_twin_cycles(&cfg8, &c) != 0));                  \
    } while (0)
    EXPECT(m, 0, CORE_ERR_DIM);
    EXPECT(k, 65536, CORE_ERR_DIM);
    EXPECT(n, 65535, CORE_ERR_LD); /* ldc 8 < N: the leading dimension fails first */
    EXPECT(lda, 0, CORE_ERR_LD);
    EXPECT(lda, 12, CORE_ERR_ALIGN);
    EXPECT(c_addr, 4, CORE_ERR_ALIGN);
    EXPECT(c_addr, 4096, CORE_ERR_RANGE);
    EXPECT(c_addr, 4088, CORE_ERR_RANGE); /* row 1 past the end */
    EXPECT(c_addr, 4080, CORE_OK);        /* rows 0 and 1 are the last two words */
    EXPECT(ldb, 0xFFFFFFF8u, CORE_ERR_RANGE);
#undef EXPECT
    /* dims beat everything else */
    c = good;
    c.m = 0;
    c.lda = 3;
    c.a_addr = 1;
    assert_int_equal(core_twin_check(&cfg8, &c), CORE_ERR_DIM);
    /* transposes change which leading dimension is needed */
    c = good;
    c.trans_a = true; /* A stored K x M = 4 x 2 */
    c.lda = 8;
    assert_int_equal(core_twin_check(&cfg8, &c), CORE_OK);
    c.m = 9; /* lda 8 < M */
    assert_int_equal(core_twin_check(&cfg8, &c), CORE_ERR_LD);
}

/* ---------------------------------------------------------------- cycles */

/* The formula of rtl/core/README.md as sums of named phases, by hand for a few cases on 8x8
 * (W = 8, rows = cols = 8). */
static void cycle_formula_by_hand(void **state)
{
    (void)state;
    const uint64_t T_START = 3, T_FEED = 2, T_ARRAY = 8 + 2, T_ROWS = 8 - 1, T_WB = 2;
    const uint64_t T_FIXED = T_START + T_FEED + T_ARRAY + T_ROWS + T_WB;
    struct core_cmd c = {.m = 8, .n = 8, .k = 8, .lda = 8, .ldb = 8, .ldc = 8};

    /* one tile, one block: load L0 = max(rows, K) = 8, feed K = 8 */
    assert_int_equal(core_twin_cycles(&cfg8, &c), T_FIXED + 8 + 8);
    /* a stream of 4 tiles of K = 8: period max(K, L0, max(rows, cols)) = 8 */
    c.m = c.n = 16;
    c.lda = 8;
    c.ldb = c.ldc = 16;
    assert_int_equal(core_twin_cycles(&cfg8, &c), T_FIXED + 8 + 3 * 8 + 8);
    /* K = 64: 8 blocks per tile, period max(64, 7 * 8 + 8, 8) = 64 */
    c.k = 64;
    c.lda = 64;
    assert_int_equal(core_twin_cycles(&cfg8, &c), T_FIXED + 8 + 3 * 64 + 64);
    /* K = 4, A transposed: L0 = max(K, K) = 4, period max(4, 4, 8) = 8: the drain spacing */
    c.k = 4;
    c.trans_a = true;
    c.lda = 16;
    assert_int_equal(core_twin_cycles(&cfg8, &c), T_FIXED + 4 + 3 * 8 + 4);
    /* K = 9 (W + 1), B transposed: L(8) = max(8, cols) = 8, period max(9, 8 + 8, 8) = 16 */
    c.k = 9;
    c.trans_a = false;
    c.trans_b = true;
    c.lda = 16;
    c.ldb = 16;
    assert_int_equal(core_twin_cycles(&cfg8, &c), T_FIXED + 8 + 3 * 16 + 9);
    /* a bad command: 0 */
    c.k = 0;
    assert_int_equal(core_twin_cycles(&cfg8, &c), 0);
}

/* The same with four-stage PEs: a tile is four array tiles (4 x rows rows), a step is fed in
 * four cycles, one array tile each, and A stored K x M is loaded a part a read; 8x8: tile 32 x 8,
 * W = 8. */
static void cycle_formula_by_hand_four_stages(void **state)
{
    (void)state;
    const struct core_params g = {8, 8, 512, 512, 512, 4};
    const uint64_t T_START = 3, T_FEED = 2, T_ARRAY = 8 + 2, T_ROWS = 32 - 1, T_WB = 2;
    const uint64_t T_FIXED = T_START + T_FEED + T_ARRAY + T_ROWS + T_WB;
    struct core_cmd c = {.m = 32, .n = 8, .k = 32, .lda = 32, .ldb = 32, .ldc = 32};

    /* one tile of 4 blocks: load L0 = max(tile rows, W) = 32, feed 4 K = 128 */
    assert_int_equal(core_twin_cycles(&g, &c), T_FIXED + 32 + 128);
    /* 4 tiles: period max(4 K, 4 x 3 x W + L0, max(4 rows, 3 rows + cols)) = 128 */
    c.m = 64;
    c.n = 16;
    assert_int_equal(core_twin_cycles(&g, &c), T_FIXED + 32 + 3 * 128 + 128);
    /* K = 4, A transposed: L0 = 4 parts x K = 16, period max(16, 16, 32) = 32: the drain of
     * four array tiles */
    c.k = 4;
    c.trans_a = true;
    c.lda = 64;
    assert_int_equal(core_twin_cycles(&g, &c), T_FIXED + 16 + 3 * 32 + 16);
    /* 2 x 8 array (tile 8 x 8, W = 8), K = 1: period max(4, 8, max(8, 6 + 8)) = 14: an array
     * tile's sums wait for their read while the next tile of its slot finishes */
    const struct core_params g28 = {2, 8, 512, 512, 512, 4};
    struct core_cmd d = {.m = 16, .n = 8, .k = 1, .lda = 8, .ldb = 8, .ldc = 8};
    assert_int_equal(core_twin_cycles(&g28, &d), 3 + 2 + 10 + 7 + 2 + 8 + 14 + 4);
}

/* ---------------------------------------------------------------- results */

static uint16_t rnd_bf16(uint64_t *s, bool specials)
{
    uint32_t r = (uint32_t)rng_below(s, 256);
    uint16_t sign = (uint16_t)((rng_next(s) & 1) << 15);
    uint16_t frac = (uint16_t)rng_below(s, 128);

    if (r < 8)
        return sign;
    if (r < 12)
        return (uint16_t)(sign | (frac ? frac : 1u));
    if (specials && r < 14)
        return (uint16_t)(sign | 0x7F80u);
    if (specials && r < 16)
        return (uint16_t)(sign | 0x7F80u | (frac ? frac : 1u));
    if (specials && r < 24)
        return (uint16_t)(sign |
                          (uint16_t)((rng_next(s) & 1 ? 1 + rng_below(s, 3) : 252 + rng_below(s, 3))
                                     << 7) |
                          frac);
    return (uint16_t)(sign | (uint16_t)((120 + rng_below(s, 16)) << 7) | frac);
}

static uint32_t round_up(uint32_t x, uint32_t w)
{
    return (x + w - 1) / w * w;
}

/* Run cmd on a twin filled with random operands and C, compare the M x N result with
 * ref_gemm (plus fp32_add of the old C for accumulate) and everything else with the old C. */
static void run_against_reference(struct core_twin *t, const struct core_cmd *c, uint64_t *rng,
                                  bool specials)
{
    struct core_twin_map m;
    core_twin_map(core_twin_config(t), &m);
    for (uint32_t i = 0; i < m.a_elems; i++)
        core_twin_a(t)[i] = rnd_bf16(rng, specials);
    for (uint32_t i = 0; i < m.b_elems; i++)
        core_twin_b(t)[i] = rnd_bf16(rng, specials);
    for (uint32_t i = 0; i < m.c_elems; i++)
        core_twin_c(t)[i] = (uint32_t)rng_next(rng);

    uint32_t *old = malloc(m.c_elems * sizeof(*old));
    uint32_t *dot = calloc((size_t)c->m * c->n, sizeof(*dot));
    assert_non_null(old);
    assert_non_null(dot);
    memcpy(old, core_twin_c(t), m.c_elems * sizeof(*old));
    assert_int_equal(ref_gemm(c->m, c->n, c->k, core_twin_a(t) + c->a_addr, c->lda, c->trans_a,
                              core_twin_b(t) + c->b_addr, c->ldb, c->trans_b, dot, c->n, false),
                     0);
    struct core_twin_result res;
    assert_int_equal(core_twin_exec(t, c, &res, NULL), 0);
    assert_int_equal(res.status, CORE_OK);
    assert_int_equal(res.cycles, core_twin_cycles(core_twin_config(t), c));
    for (uint32_t e = 0; e < m.c_elems; e++) {
        uint32_t got = core_twin_c(t)[e], want = old[e];
        uint32_t rel = e - c->c_addr;
        if (e >= c->c_addr && rel / c->ldc < c->m && rel % c->ldc < c->n) {
            uint32_t i = rel / c->ldc, j = rel % c->ldc;
            want = dot[i * c->n + j];
            if (c->accumulate)
                want = fp32_add(old[e], want);
        }
        if (got != want)
            fail_msg("M %u N %u K %u ta %d tb %d acc %d: C element %u: twin %#010x, reference "
                     "%#010x",
                     c->m, c->n, c->k, c->trans_a, c->trans_b, c->accumulate, e, got, want);
    }
    free(old);
    free(dot);
}

static void random_gemms_match_the_reference(void **state)
{
    (void)state;
    const struct core_params cfgs[] = {{8, 8, 512, 512, 512, 1}, {2, 3, 64, 64, 64, 1},
                                       {1, 1, 256, 256, 256, 1}, {16, 16, 256, 256, 256, 1},
                                       {2, 2, 64, 64, 64, 4},    {3, 5, 64, 64, 64, 4}};
    uint64_t rng = 42;
    for (size_t g = 0; g < ARRAY_LEN(cfgs); g++) {
        struct core_twin *t = new_twin(&cfgs[g]);
        assert_non_null(t);
        unsigned w = core_twin_w(&cfgs[g]);
        struct core_twin_map m;
        core_twin_map(&cfgs[g], &m);
        for (int n = 0; n < 60; n++) {
            struct core_cmd c = {0};
            c.m = 1 + (uint32_t)rng_below(&rng, 40);
            c.n = 1 + (uint32_t)rng_below(&rng, 40);
            c.k = 1 + (uint32_t)rng_below(&rng, n % 3 ? 40 : 3);
            c.trans_a = rng_next(&rng) & 1;
            c.trans_b = rng_next(&rng) & 1;
            c.accumulate = rng_next(&rng) & 1;
            c.lda = round_up(c.trans_a ? c.m : c.k, w) + w * (uint32_t)rng_below(&rng, 2);
            c.ldb = round_up(c.trans_b ? c.k : c.n, w) + w * (uint32_t)rng_below(&rng, 2);
            c.ldc = round_up(c.n, w) + w * (uint32_t)rng_below(&rng, 2);
            uint64_t fa = (uint64_t)((c.trans_a ? c.k : c.m) - 1) * c.lda + (c.trans_a ? c.m : c.k);
            uint64_t fb = (uint64_t)((c.trans_b ? c.n : c.k) - 1) * c.ldb + (c.trans_b ? c.k : c.n);
            uint64_t fc = (uint64_t)(c.m - 1) * c.ldc + c.n;
            if (fa > m.a_elems || fb > m.b_elems || fc > m.c_elems)
                continue;
            c.a_addr = w * (uint32_t)rng_below(&rng, (m.a_elems - fa) / w + 1);
            c.b_addr = w * (uint32_t)rng_below(&rng, (m.b_elems - fb) / w + 1);
            c.c_addr = w * (uint32_t)rng_below(&rng, (m.c_elems - fc) / w + 1);
            run_against_reference(t, &c, &rng, n % 4 == 0);
        }
        core_twin_destroy(t);
    }
}

/* Every pair of special operands in dot products of length 1..3, against the PE step by step
 * (fp32_mac_clear, fp32_mac), and through the accumulate add. */
static void special_values(void **state)
{
    (void)state;
    static const uint16_t sp[] = {0x0000, 0x8000, 0x0001, 0x807F, 0x0080, 0x8080, 0x2000, 0xA000,
                                  0x1FFF, 0x3F80, 0xBF80, 0x3F81, 0x4B80, 0x3380, 0x5F80, 0xDF7F,
                                  0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0xFFFF};
    static const uint32_t olds[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu,
                                    0x3F800000u, 0xBF800000u, 0x7F800000u, 0xFF800000u,
                                    0x7F800001u, 0xFFC12345u, 0x7F7FFFFFu, 0x00800000u};
    struct core_params g = {1, 1, 16, 16, 16, 1};
    struct core_twin *t = new_twin(&g);
    assert_non_null(t);
    const size_t n = ARRAY_LEN(sp);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            for (uint32_t k = 1; k <= 3; k++) {
                for (size_t o = 0; o < ARRAY_LEN(olds); o++) {
                    /* A row: sp[i], sp[j], sp[i] ^ sign; B column: sp[j], 0x3F80, sp[j] */
                    uint16_t a[3] = {sp[i], sp[j], (uint16_t)(sp[i] ^ 0x8000)};
                    uint16_t b[3] = {sp[j], 0x3F80, sp[j]};
                    for (uint32_t kk = 0; kk < k; kk++) {
                        core_twin_a(t)[kk] = a[kk];
                        core_twin_b(t)[4 * kk] = b[kk]; /* B stored K x 1, ldb 4 */
                    }
                    core_twin_c(t)[0] = olds[o];
                    struct core_cmd c = {
                        .m = 1, .n = 1, .k = k, .lda = 4, .ldb = 4, .ldc = 4, .accumulate = o > 0};
                    struct core_twin_result res;
                    assert_int_equal(core_twin_exec(t, &c, &res, NULL), 0);
                    assert_int_equal(res.status, CORE_OK);
                    uint32_t s = fp32_mac_clear(a[0], b[0]);
                    for (uint32_t kk = 1; kk < k; kk++)
                        s = fp32_mac(s, a[kk], b[kk]);
                    if (o > 0)
                        s = fp32_add(olds[o], s);
                    if (core_twin_c(t)[0] != s)
                        fail_msg("a %04x %04x b %04x K %u old %08x acc %d: twin %08x, PE %08x",
                                 a[0], a[1], b[0], k, olds[o], o > 0, core_twin_c(t)[0], s);
                }
            }
        }
    }
    core_twin_destroy(t);
}

/* A bad command changes nothing. */
static void bad_command_writes_nothing(void **state)
{
    (void)state;
    struct core_twin *t = new_twin(&cfg8);
    assert_non_null(t);
    for (uint32_t i = 0; i < 4096; i++)
        core_twin_c(t)[i] = i * 2654435761u;
    struct core_cmd c = {.m = 8, .n = 8, .k = 8, .lda = 8, .ldb = 8, .ldc = 12};
    struct core_twin_result res;
    assert_int_equal(core_twin_exec(t, &c, &res, NULL), 0);
    assert_int_equal(res.status, CORE_ERR_ALIGN);
    assert_int_equal(res.cycles, 0);
    for (uint32_t i = 0; i < 4096; i++)
        assert_int_equal(core_twin_c(t)[i], i * 2654435761u);
    core_twin_destroy(t);
}

/*
 * The core's accumulate is fp32_add(C_old, dot); ref_gemm's accumulate mode starts the dot
 * product from C_old instead, which this PE cannot do (no preload). They differ: with C_old = 1
 * and two products of 2^-24, ref_gemm rounds 1 + 2^-24 back to 1 twice, the core adds the
 * exact 2^-23. This pins the difference the core's README describes.
 */
static void accumulate_is_old_plus_dot_not_ref_gemm_accumulate(void **state)
{
    (void)state;
    struct core_params g = {1, 1, 16, 16, 16, 1};
    struct core_twin *t = new_twin(&g);
    assert_non_null(t);
    core_twin_a(t)[0] = core_twin_a(t)[1] = 0x3380; /* 2^-24 */
    core_twin_b(t)[0] = core_twin_b(t)[4] = 0x3F80; /* 1, B stored K x 1 with ldb 4 */
    core_twin_c(t)[0] = 0x3F800000u;
    struct core_cmd c = {.m = 1, .n = 1, .k = 2, .lda = 4, .ldb = 4, .ldc = 4, .accumulate = true};
    struct core_twin_result res;
    assert_int_equal(core_twin_exec(t, &c, &res, NULL), 0);
    assert_int_equal(core_twin_c(t)[0], 0x3F800001u); /* 1 + 2^-23 */
    uint32_t ref = 0x3F800000u;
    assert_int_equal(
        ref_gemm(1, 1, 2, core_twin_a(t), 4, false, core_twin_b(t), 4, false, &ref, 4, true), 0);
    assert_int_equal(ref, 0x3F800000u); /* ref_gemm's accumulate: 1 */
    core_twin_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(word_is_lcm_of_rows_cols_and_4),
        cmocka_unit_test(bad_configurations_are_refused),
        cmocka_unit_test(address_map),
        cmocka_unit_test(dma_bytes_are_little_endian_elements),
        cmocka_unit_test(status_codes_and_their_order),
        cmocka_unit_test(cycle_formula_by_hand),
        cmocka_unit_test(cycle_formula_by_hand_four_stages),
        cmocka_unit_test(random_gemms_match_the_reference),
        cmocka_unit_test(special_values),
        cmocka_unit_test(bad_command_writes_nothing),
        cmocka_unit_test(accumulate_is_old_plus_dot_not_ref_gemm_accumulate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
