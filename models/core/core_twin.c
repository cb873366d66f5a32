/*
 * core_twin.c - C twin of the compute core; see core_twin.h for the contract and
 * rtl/core/README.md for the architecture the cycle formula comes from.
 *
 * The GEMM kernel. The PE computes, per output element, s = p0, s = s + p1, ..., each product
 * and each sum flushed to zero below 2^-126 (models/ref/bf16.h). Host binary32 arithmetic gives
 * exactly that when every operand is already flushed and every result is flushed afterwards
 * (bf16.c explains why; -ffp-contract=off keeps the product out of the add): products of two
 * flushed bf16 values are exact in binary32 unless below 2^-126 (then flushed to their signed
 * zero) or at or above 2^128 (then infinite, as the contract says); a sum of two flushed values
 * below 2^-126 is exact, so flushing it afterwards is the contract's flush. NaNs come out of
 * the host with any sign and payload but stay NaN through every later step (the flush never
 * touches an exponent of all ones), so they are made canonical once, at the end.
 *
 * The loop is written with GCC vector types (four floats, SSE2 on x86-64): four output rows
 * at a time, a strip of columns at a time, k ascending. The flush after every product and sum
 * is the host's own where it has one (x86 MXCSR.FTZ: a result below 2^-126 becomes the zero of
 * its sign, exact results included), switched on around the kernel only, so the rest of the
 * program keeps IEEE subnormals; elsewhere it is two integer ops per value, no branch. The
 * operands are flushed in software when they are converted, once per command, into float
 * arrays laid out for that loop (op(A) row-major, op(B) as K rows of padded N).
 */
#include "models/core/core_twin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/ref/bf16.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#define HOST_FTZ 1 /* the host flushes results itself while MXCSR.FTZ is set */
#else
#define HOST_FTZ 0
#endif

/* Named phases of the cycle formula (rtl/core/README.md, "Cycle count"). */
#define T_START 3u /* accepting edge -> first slot (check, start, sequencer init) */
#define T_FEED  2u /* a step leaves the step counter -> it is on the array's inputs */
#define T_ARRAY 2u /* + cols: last step on the inputs -> first row out of the array */
#define T_WB    2u /* a row out of the array -> its write lands */

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

#define JV    16 /* vectors of 4 columns per strip */
#define IROWS 4  /* output rows computed together */

struct core_twin {
    struct core_params cfg;
    struct core_twin_map map;
    uint16_t *a, *b;
    uint32_t *c;
    /* Scratch for the kernel, grown on demand. */
    float *af;
    size_t af_cap;
    v4f *bf;
    size_t bf_cap;
};

/* ---------------------------------------------------------------- configuration */

static unsigned gcd_u(unsigned a, unsigned b)
{
    while (b) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

unsigned core_twin_stages(const struct core_params *cfg)
{
    return cfg->acc_stages ? cfg->acc_stages : 1;
}

unsigned core_twin_tile_rows(const struct core_params *cfg)
{
    return core_twin_stages(cfg) * cfg->rows;
}

unsigned core_twin_w(const struct core_params *cfg)
{
    unsigned l = cfg->rows / gcd_u(cfg->rows, cfg->cols) * cfg->cols;
    return l / gcd_u(l, 4) * 4;
}

int core_twin_params_check(const struct core_params *cfg, struct err *e)
{
    if (!cfg || cfg->rows < 1 || cfg->rows > 64 || cfg->cols < 1 || cfg->cols > 64)
        return err_set(e, -EINVAL, "core_twin: rows and cols must be 1..64, got %u x %u",
                       cfg ? cfg->rows : 0, cfg ? cfg->cols : 0);
    if (cfg->acc_stages > 1 && cfg->acc_stages != 4)
        return err_set(e, -EINVAL, "core_twin: acc_stages must be 1 or 4, got %u", cfg->acc_stages);
    if (core_twin_w(cfg) > 64)
        return err_set(e, -EINVAL,
                       "core_twin: lcm(rows, cols, 4) = %u is above 64 (rows %u, cols %u)",
                       core_twin_w(cfg), cfg->rows, cfg->cols);
    uint64_t w = core_twin_w(cfg);
    uint64_t bytes =
        ((uint64_t)cfg->a_words + cfg->b_words) * w * 2 + (uint64_t)cfg->c_words * w * 4;
    if (cfg->a_words < 2 || cfg->b_words < 2 || cfg->c_words < 2 || bytes > 0x80000000ull)
        return err_set(e, -EINVAL,
                       "core_twin: pads of %u/%u/%u words: each needs >= 2 words and all fit in "
                       "2 GiB",
                       cfg->a_words, cfg->b_words, cfg->c_words);
    return 0;
}

void core_twin_map(const struct core_params *cfg, struct core_twin_map *map)
{
    unsigned w = core_twin_w(cfg);

    map->w = w;
    map->a_elems = cfg->a_words * w;
    map->b_elems = cfg->b_words * w;
    map->c_elems = cfg->c_words * w;
    map->a_base = 0;
    map->b_base = map->a_elems * 2;
    map->c_base = map->b_base + map->b_elems * 2;
    map->end = map->c_base + map->c_elems * 4;
}

/* ---------------------------------------------------------------- checks and cycles */

enum core_status core_twin_check(const struct core_params *cfg, const struct core_cmd *cmd)
{
    uint64_t w = core_twin_w(cfg);
    uint64_t m = cmd->m, n = cmd->n, k = cmd->k;

    if (m == 0 || n == 0 || k == 0 || m > CORE_DIM_MAX || n > CORE_DIM_MAX || k > CORE_DIM_MAX)
        return CORE_ERR_DIM;

    uint64_t a_rows = cmd->trans_a ? k : m, a_cols = cmd->trans_a ? m : k;
    uint64_t b_rows = cmd->trans_b ? n : k, b_cols = cmd->trans_b ? k : n;

    if (cmd->lda < a_cols || cmd->ldb < b_cols || cmd->ldc < n)
        return CORE_ERR_LD;
    if (cmd->a_addr % w || cmd->b_addr % w || cmd->c_addr % w || cmd->lda % w || cmd->ldb % w ||
        cmd->ldc % w)
        return CORE_ERR_ALIGN;
    /* Last element of each operand; below 2^50, no wrap. */
    uint64_t a_last = cmd->a_addr + (a_rows - 1) * cmd->lda + a_cols - 1;
    uint64_t b_last = cmd->b_addr + (b_rows - 1) * cmd->ldb + b_cols - 1;
    uint64_t c_last = cmd->c_addr + (m - 1) * cmd->ldc + n - 1;
    if (a_last >= cfg->a_words * w || b_last >= cfg->b_words * w || c_last >= cfg->c_words * w)
        return CORE_ERR_RANGE;
    return CORE_OK;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a > b ? a : b;
    return m > c ? m : c;
}

/*
 * L(kb): cycles to load a block of kb steps: A stored M x K needs one word per tile row
 * (core_twin_tile_rows), stored K x M one per step and array tile (the tile's parts' slices may
 * sit in different words); B stored K x N one per step, stored N x K one per tile column; the two
 * pads are read in parallel.
 */
static uint64_t load_cycles(const struct core_params *cfg, const struct core_cmd *cmd, uint64_t kb)
{
    uint64_t la = cmd->trans_a ? core_twin_stages(cfg) * kb : core_twin_tile_rows(cfg);
    uint64_t lb = cmd->trans_b ? cfg->cols : kb;
    return la > lb ? la : lb;
}

uint64_t core_twin_cycles(const struct core_params *cfg, const struct core_cmd *cmd)
{
    if (core_twin_check(cfg, cmd) != CORE_OK)
        return 0;

    uint64_t w = core_twin_w(cfg), s = core_twin_stages(cfg), c = cfg->cols, k = cmd->k;
    uint64_t r = core_twin_tile_rows(cfg);
    uint64_t tiles = ((cmd->m + r - 1) / r) * ((cmd->n + c - 1) / c);
    uint64_t nb = (k + w - 1) / w;
    uint64_t l0 = load_cycles(cfg, cmd, k < w ? k : w);
    /* Tile period: the feed (s cycles a step), or the loads, or the drain spacing
     * max(tile rows, tile rows - rows + cols): max(rows, cols) with one stage. */
    uint64_t spacing = r - cfg->rows + c > r ? r - cfg->rows + c : r;
    uint64_t period = max3(s * k, s * (nb - 1) * w + l0, spacing);

    return T_START + l0 + (tiles - 1) * period + s * k + T_FEED + (c + T_ARRAY) + (r - 1) + T_WB;
}

/* ---------------------------------------------------------------- twin */

int core_twin_create(const struct core_params *cfg, struct core_twin **out, struct err *e)
{
    int rc = core_twin_params_check(cfg, e);

    *out = NULL;
    if (rc)
        return rc;
    struct core_twin *t = calloc(1, sizeof(*t));
    if (!t)
        return err_set(e, -ENOMEM, "core_twin: out of memory");
    t->cfg = *cfg;
    core_twin_map(cfg, &t->map);
    t->a = calloc(t->map.a_elems, sizeof(*t->a));
    if (!t->a)
        goto out_free_twin;
    t->b = calloc(t->map.b_elems, sizeof(*t->b));
    if (!t->b)
        goto out_free_a;
    t->c = calloc(t->map.c_elems, sizeof(*t->c));
    if (!t->c)
        goto out_free_b;
    *out = t;
    return 0;

out_free_b:
    free(t->b);
out_free_a:
    free(t->a);
out_free_twin:
    free(t);
    return err_set(e, -ENOMEM, "core_twin: out of memory for pads of %u/%u/%u words", cfg->a_words,
                   cfg->b_words, cfg->c_words);
}

void core_twin_destroy(struct core_twin *t)
{
    if (!t)
        return;
    free(t->af);
    free(t->bf);
    free(t->a);
    free(t->b);
    free(t->c);
    free(t);
}

const struct core_params *core_twin_config(const struct core_twin *t)
{
    return &t->cfg;
}

uint16_t *core_twin_a(struct core_twin *t)
{
    return t->a;
}

uint16_t *core_twin_b(struct core_twin *t)
{
    return t->b;
}

uint32_t *core_twin_c(struct core_twin *t)
{
    return t->c;
}

/* ---------------------------------------------------------------- DMA */

static bool beat_ok(const struct core_twin_map *map, uint32_t addr)
{
    return addr % CORE_DMA_BEAT == 0 && addr < map->end;
}

int core_twin_dma_write(struct core_twin *t, uint32_t addr, uint64_t data, uint8_t strb)
{
    const struct core_twin_map *map = &t->map;

    if (!beat_ok(map, addr))
        return -EINVAL;
    for (unsigned i = 0; i < CORE_DMA_BEAT; i++) {
        if (!(strb >> i & 1))
            continue;
        uint32_t byte = addr + i, v = (uint32_t)(data >> (8 * i)) & 0xFFu;
        if (byte < map->b_base) {
            uint16_t *e = &t->a[byte / 2];
            unsigned sh = 8 * (byte % 2);
            *e = (uint16_t)((*e & ~(0xFFu << sh)) | v << sh);
        } else if (byte < map->c_base) {
            uint16_t *e = &t->b[(byte - map->b_base) / 2];
            unsigned sh = 8 * ((byte - map->b_base) % 2);
            *e = (uint16_t)((*e & ~(0xFFu << sh)) | v << sh);
        } else {
            uint32_t *e = &t->c[(byte - map->c_base) / 4];
            unsigned sh = 8 * ((byte - map->c_base) % 4);
            *e = (*e & ~(0xFFu << sh)) | v << sh;
        }
    }
    return 0;
}

int core_twin_dma_read(const struct core_twin *t, uint32_t addr, uint64_t *data)
{
    const struct core_twin_map *map = &t->map;

    *data = 0;
    if (!beat_ok(map, addr))
        return -EINVAL;
    for (unsigned i = 0; i < CORE_DMA_BEAT; i++) {
        uint32_t byte = addr + i, v;
        if (byte < map->b_base)
            v = t->a[byte / 2] >> (8 * (byte % 2));
        else if (byte < map->c_base)
            v = t->b[(byte - map->b_base) / 2] >> (8 * ((byte - map->b_base) % 2));
        else
            v = t->c[(byte - map->c_base) / 4] >> (8 * ((byte - map->c_base) % 4));
        *data |= (uint64_t)(v & 0xFFu) << (8 * i);
    }
    return 0;
}

/* ---------------------------------------------------------------- GEMM */

/* A bf16 operand as the PE reads it, as a float: subnormals become signed zeros. */
static float operand(uint16_t h)
{
    if ((h & 0x7F80u) == 0)
        h &= 0x8000u;
    return bf16_to_f32(h);
}

/* Flush to zero, four lanes, no branch: a zero exponent keeps only the sign. Nothing to do
 * where the host flushes its results itself (inside host_ftz_on/off). */
static inline v4f ftz4(v4f x)
{
#if HOST_FTZ
    return x;
#else
    v4i b = (v4i)x;
    v4i tiny = (b & 0x7F800000) == 0;
    return (v4f)(b & ~(tiny & 0x7FFFFFFF));
#endif
}

/* The host's flush mode around the kernel; returns the mode to restore. */
static unsigned host_ftz_on(void)
{
#if HOST_FTZ
    unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | _MM_FLUSH_ZERO_ON);
    return csr;
#else
    return 0;
#endif
}

static void host_ftz_off(unsigned csr)
{
#if HOST_FTZ
    _mm_setcsr(csr);
#else
    (void)csr;
#endif
}

static int grow(void **p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return 0;
    bytes = (bytes + 63) / 64 * 64;
    void *q = aligned_alloc(64, bytes);
    if (!q)
        return -ENOMEM;
    free(*p);
    *p = q;
    *cap = bytes;
    return 0;
}

/* One strip: rows i0 .. i0+IROWS-1 (a[] holds their op(A) rows, zeros past M), vector columns
 * jv0 .. jv0+nv-1, all k. Leaves the sums in s[r * JV + v]. Not inlined: its arithmetic must
 * stay between host_ftz_on() and host_ftz_off(), which the compiler does not order it against. */
__attribute__((noinline)) static void strip(const float *const a[IROWS], const v4f *bf, size_t nvec,
                                            size_t k_len, size_t jv0, size_t nv, v4f s[IROWS * JV])
{
    for (size_t k = 0; k < k_len; k++) {
        const v4f *brow = bf + k * nvec + jv0;
        v4f a0 = {a[0][k], a[0][k], a[0][k], a[0][k]};
        v4f a1 = {a[1][k], a[1][k], a[1][k], a[1][k]};
        v4f a2 = {a[2][k], a[2][k], a[2][k], a[2][k]};
        v4f a3 = {a[3][k], a[3][k], a[3][k], a[3][k]};

        if (k == 0) { /* the clear rule: the first product replaces the sum */
            for (size_t v = 0; v < nv; v++) {
                v4f b = brow[v];
                s[0 * JV + v] = ftz4(a0 * b);
                s[1 * JV + v] = ftz4(a1 * b);
                s[2 * JV + v] = ftz4(a2 * b);
                s[3 * JV + v] = ftz4(a3 * b);
            }
        } else {
            for (size_t v = 0; v < nv; v++) {
                v4f b = brow[v];
                s[0 * JV + v] = ftz4(s[0 * JV + v] + ftz4(a0 * b));
                s[1 * JV + v] = ftz4(s[1 * JV + v] + ftz4(a1 * b));
                s[2 * JV + v] = ftz4(s[2 * JV + v] + ftz4(a2 * b));
                s[3 * JV + v] = ftz4(s[3 * JV + v] + ftz4(a3 * b));
            }
        }
    }
}

static int gemm(struct core_twin *t, const struct core_cmd *cmd, struct err *e)
{
    size_t m = cmd->m, n = cmd->n, k = cmd->k;
    size_t nvec = (n + 3) / 4;

    /* op(A) as floats, M x K row-major, plus one zero row for the rows past M. */
    if (grow((void **)&t->af, &t->af_cap, (m + 1) * k * sizeof(float)) != 0 ||
        grow((void **)&t->bf, &t->bf_cap, k * nvec * sizeof(v4f)) != 0)
        return err_set(e, -ENOMEM,
                       "core_twin: out of memory for the operands of a %zux%zux%zu GEMM", m, n, k);
    for (size_t i = 0; i < m; i++)
        for (size_t kk = 0; kk < k; kk++)
            t->af[i * k + kk] = operand(cmd->trans_a ? t->a[cmd->a_addr + kk * cmd->lda + i]
                                                     : t->a[cmd->a_addr + i * cmd->lda + kk]);
    memset(t->af + m * k, 0, k * sizeof(float));
    float *bf = (float *)t->bf;
    for (size_t kk = 0; kk < k; kk++) {
        for (size_t j = 0; j < nvec * 4; j++)
            bf[kk * nvec * 4 + j] =
                j >= n ? 0.0f
                       : operand(cmd->trans_b ? t->b[cmd->b_addr + j * cmd->ldb + kk]
                                              : t->b[cmd->b_addr + kk * cmd->ldb + j]);
    }

    v4f s[IROWS * JV];
    unsigned csr = host_ftz_on();
    for (size_t i0 = 0; i0 < m; i0 += IROWS) {
        const float *a[IROWS];
        for (size_t r = 0; r < IROWS; r++)
            a[r] = t->af + (i0 + r < m ? i0 + r : m) * k;
        for (size_t jv0 = 0; jv0 < nvec; jv0 += JV) {
            size_t nv = nvec - jv0 < JV ? nvec - jv0 : JV;
            strip(a, t->bf, nvec, k, jv0, nv, s);
            for (size_t r = 0; r < IROWS && i0 + r < m; r++) {
                uint32_t *crow = t->c + cmd->c_addr + (i0 + r) * cmd->ldc;
                for (size_t v = 0; v < nv; v++) {
                    for (size_t l = 0; l < 4; l++) {
                        size_t j = (jv0 + v) * 4 + l;
                        if (j >= n)
                            break;
                        uint32_t u = fp32_bits(s[r * JV + v][l]);
                        if (fp32_is_nan(u))
                            u = FP32_NAN;
                        crow[j] = cmd->accumulate ? fp32_add(crow[j], u) : u;
                    }
                }
            }
        }
    }
    host_ftz_off(csr);
    return 0;
}

int core_twin_exec(struct core_twin *t, const struct core_cmd *cmd, struct core_twin_result *res,
                   struct err *e)
{
    res->status = core_twin_check(&t->cfg, cmd);
    res->cycles = 0;
    if (res->status != CORE_OK)
        return 0;
    int err = gemm(t, cmd, e);
    if (err)
        return err;
    res->cycles = core_twin_cycles(&t->cfg, cmd);
    return 0;
}
