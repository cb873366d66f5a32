/*
 * Block test for the compute core rtl/core/core_top.v, driven from C through the core shim.
 * The binary is linked with one verilated configuration (1x1 .. 32x32); the same checks run
 * for every configuration, with fewer and smaller GEMMs on the big arrays.
 *
 *   test_core_<R>x<C> [--seed N] [--waves FILE.fst [--window FIRST:LAST] [--scopes A,B]]
 *
 * The trace covers the random-GEMM case (cycles FIRST..LAST of its model, default 0..2000):
 * operands going in through the DMA port, the first command, its results coming out.
 *
 * Everything goes through the ports: operands are written and results read back through the
 * DMA port, commands through the command port, with random stalls on every valid/ready (the
 * DMA response has no ready: it is checked to come exactly CORE_DMA_LATENCY cycles after its
 * request). A C twin (models/core/core_twin.h) holds what every pad byte must be: DMA writes
 * go into it, commands run on it when the RTL accepts them, and every DMA read is compared
 * with it, so each read-back checks the RTL against the twin bit for bit, guard bytes
 * included. The twin's results are in turn checked against the reference GEMM
 * (models/ref/ref_gemm.h), and every cycle count against the twin and against the formula of
 * rtl/core/README.md, written out again here from its named phases.
 *
 * A failure prints the seed, the command, the element and both values.
 */
#include "csim/shim/core.h"
#include "models/core/core_twin.h"
#include "models/ref/bf16.h"
#include "models/ref/ref_gemm.h"
#include "testbench/tb_util.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static struct tb_args args;

/* Completion timing (rtl/core/core_cmd.v): a good command's completion is on the port
 * DONE_LAG_OK cycles after the cycle of its last write, a bad one's DONE_LAG_ERR cycles after
 * the accepting cycle, when the port is free. */
#define DONE_LAG_OK  2u
#define DONE_LAG_ERR 3u

#define MAX_CMDS 16

struct req {
    bool we;
    uint32_t addr;
    uint64_t data;
    uint8_t strb;
};

struct expect {
    uint64_t due; /* cycle the response must be on the port */
    bool read, err;
    uint32_t addr;
    uint64_t data;
    uint64_t known; /* bits of data the RTL must match (bytes ever written) */
};

struct cmd_slot {
    struct core_cmd cmd;
    struct core_twin_result want;
    uint64_t accepted; /* cycle of the accepting edge */
};

struct dut {
    struct core_rtl *p;
    struct core_params cfg;
    struct core_twin_map map;
    struct core_twin *img; /* what every pad byte must hold ... */
    uint8_t *known;        /* ... once it is known: written, or computed from known bytes */
    uint64_t rng;
    unsigned p_dma, p_cmd, p_done; /* percent: valid raised, valid raised, ready high */

    /* DMA requests still to send, and responses still due */
    struct req *q;
    size_t q_cap, q_head, q_len;
    bool dma_valid;
    struct expect *e;
    size_t e_cap, e_head, e_len;

    /* commands: queued, sent (waiting for their completion) */
    struct cmd_slot cmds[MAX_CMDS];
    size_t c_sent, c_done, c_total;
    bool cmd_valid;
    uint64_t done_popped; /* cycle the last completion left */
    bool done_head_seen;

    /* the outputs of the previous cycle, for the stall rule */
    struct core_out prev;
    bool prev_done_ready;

    /* what the test is doing, for messages */
    const struct core_cmd *ctx;
    uint64_t n_reads, n_cmds;
    uint64_t n_busy_taken, n_busy_held; /* DMA requests taken / cycles held off while busy */
};

/* ---------------------------------------------------------------- messages */

static void cmd_str(const struct core_cmd *c, char *buf, size_t len)
{
    if (!c) {
        snprintf(buf, len, "(no command)");
        return;
    }
    snprintf(buf, len, "M %u N %u K %u a_addr %u b_addr %u c_addr %u lda %u ldb %u ldc %u%s%s%s",
             c->m, c->n, c->k, c->a_addr, c->b_addr, c->c_addr, c->lda, c->ldb, c->ldc,
             c->trans_a ? " trans_a" : "", c->trans_b ? " trans_b" : "",
             c->accumulate ? " accumulate" : "");
}

#define FAIL(d, ...)                                                                               \
    do {                                                                                           \
        char cs_[256];                                                                             \
        cmd_str((d)->ctx, cs_, sizeof(cs_));                                                       \
        print_error("seed %" PRIu64 " cycle %" PRIu64 " [%s]: ", args.seed,                        \
                    core_rtl_cycle((d)->p), cs_);                                                  \
        fail_msg(__VA_ARGS__);                                                                     \
    } while (0)

/* ---------------------------------------------------------------- the DUT */

static void dut_open(struct dut *d, uint64_t seed)
{
    memset(d, 0, sizeof(*d));
    d->p = core_rtl_create(seed);
    assert_non_null(d->p);
    core_rtl_params(d->p, &d->cfg);
    core_twin_map(&d->cfg, &d->map);
    assert_int_equal(core_twin_create(&d->cfg, &d->img, NULL), 0);
    d->known = calloc(d->map.end, 1);
    assert_non_null(d->known);
    d->rng = seed ^ 0xc0de;
    d->p_dma = d->p_cmd = d->p_done = 100;
    d->q_cap = 1 << 16;
    d->q = calloc(d->q_cap, sizeof(*d->q));
    d->e_cap = 64;
    d->e = calloc(d->e_cap, sizeof(*d->e));
    assert_non_null(d->q);
    assert_non_null(d->e);
    struct core_in in = {.rst = true};
    core_rtl_set(d->p, &in);
    core_rtl_step(d->p, 2);
    in.rst = false;
    core_rtl_set(d->p, &in);
}

static void dut_close(struct dut *d)
{
    core_rtl_destroy(d->p);
    core_twin_destroy(d->img);
    free(d->known);
    free(d->q);
    free(d->e);
}

/* Random stall settings: sometimes none, sometimes heavy. */
static void dut_shuffle_stalls(struct dut *d)
{
    static const unsigned pct[] = {100, 100, 90, 50, 20};
    d->p_dma = pct[rng_next(&d->rng) % 5];
    d->p_cmd = pct[rng_next(&d->rng) % 5];
    d->p_done = pct[rng_next(&d->rng) % 5];
}

static bool chance(struct dut *d, unsigned pct)
{
    return rng_next(&d->rng) % 100 < pct;
}

static bool is_ab_write(const struct dut *d, const struct req *r)
{
    return r->we && r->addr % 8 == 0 && r->addr < d->map.c_base;
}

static void check_response(struct dut *d, const struct core_out *out)
{
    uint64_t now = core_rtl_cycle(d->p);
    bool due = d->e_len > 0 && d->e[d->e_head].due == now;

    if (d->e_len > 0 && d->e[d->e_head].due < now)
        FAIL(d, "DMA response for %#x due in cycle %" PRIu64 " never came", d->e[d->e_head].addr,
             d->e[d->e_head].due);
    if (out->dma_resp_valid != due)
        FAIL(d, "DMA response valid %d, expected %d", out->dma_resp_valid, due);
    if (!due)
        return;
    struct expect x = d->e[d->e_head];
    d->e_head = (d->e_head + 1) % d->e_cap;
    d->e_len--;
    if (out->dma_resp_err != x.err)
        FAIL(d, "DMA %s of %#x: err %d, expected %d", x.read ? "read" : "write", x.addr,
             out->dma_resp_err, x.err);
    uint64_t want = x.read ? x.data & x.known : 0;
    uint64_t got_bits = x.read ? out->dma_resp_rdata & x.known : out->dma_resp_rdata;
    if (got_bits != want) {
        const struct core_cmd *c = d->ctx;
        if (x.addr >= d->map.c_base && c) {
            /* Name the C element: inside the command's result or outside it (a guard). */
            for (unsigned h = 0; h < 2; h++) {
                uint32_t e = (x.addr - d->map.c_base) / 4 + h, rel = e - c->c_addr;
                uint32_t got = (uint32_t)(got_bits >> (32 * h));
                uint32_t exp = (uint32_t)(want >> (32 * h));
                if (got == exp)
                    continue;
                if (e >= c->c_addr && rel / c->ldc < c->m && rel % c->ldc < c->n)
                    FAIL(d, "C[%u][%u] (C-pad element %u): RTL %#010x, twin %#010x", rel / c->ldc,
                         rel % c->ldc, e, got, exp);
                FAIL(d, "C-pad element %u, outside the result: RTL %#010x, twin %#010x", e, got,
                     exp);
            }
        }
        const char *pad = x.addr < d->map.b_base ? "A" : x.addr < d->map.c_base ? "B" : "C";
        uint32_t base = x.addr < d->map.b_base   ? d->map.a_base
                        : x.addr < d->map.c_base ? d->map.b_base
                                                 : d->map.c_base;
        unsigned esz = *pad == 'C' ? 4 : 2;
        FAIL(d, "DMA read of %#x (%s-pad element %u..): got %#018" PRIx64 ", expected %#018" PRIx64,
             x.addr, pad, (x.addr - base) / esz, got_bits, want);
    }
    d->n_reads += x.read;
}

static void check_done(struct dut *d, const struct core_out *out)
{
    uint64_t now = core_rtl_cycle(d->p);

    /* Stall rule: a completion that was not taken holds, valid and payload. */
    if (d->prev.done_valid && !d->prev_done_ready &&
        (!out->done_valid || out->done_status != d->prev.done_status ||
         out->done_cycles != d->prev.done_cycles))
        FAIL(d, "stalled completion changed (valid %d status %d cycles %u, was %d/%u)",
             out->done_valid, out->done_status, out->done_cycles, d->prev.done_status,
             d->prev.done_cycles);
    if (!out->done_valid)
        return;
    if (d->c_done == d->c_sent)
        FAIL(d, "completion (status %d cycles %u) without a command", out->done_status,
             out->done_cycles);
    struct cmd_slot *s = &d->cmds[d->c_done];
    d->ctx = &s->cmd;
    if (out->done_status != s->want.status || out->done_cycles != s->want.cycles)
        FAIL(d, "completion status %d cycles %u, twin: status %d cycles %" PRIu64, out->done_status,
             out->done_cycles, s->want.status, s->want.cycles);
    if (!d->done_head_seen) {
        /* First cycle on the port: a fixed lag after the last write, unless the port was
         * still busy with the previous completion. */
        uint64_t ready_at = s->want.status == CORE_OK ? s->accepted + s->want.cycles + DONE_LAG_OK
                                                      : s->accepted + DONE_LAG_ERR;
        uint64_t expect_at = d->done_popped + 1 > ready_at ? d->done_popped + 1 : ready_at;
        if (now != expect_at)
            FAIL(d,
                 "completion on the port in cycle %" PRIu64 ", expected %" PRIu64
                 " (accepted %" PRIu64 ", %" PRIu64 " cycles)",
                 now, expect_at, s->accepted, s->want.cycles);
        d->done_head_seen = true;
    }
}

static bool known_span(const struct dut *d, uint32_t base, uint32_t addr, uint32_t rows,
                       uint32_t cols, uint32_t ld)
{
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t b = 0; b < 2 * cols; b++)
            if (!d->known[base + 2 * (addr + r * ld) + b])
                return false;
    return true;
}

/* A good command was accepted: its result elements are known where everything they are
 * computed from is (the RTL's pads start random where nothing was written). */
static void mark_result(struct dut *d, const struct core_cmd *c)
{
    bool ops = known_span(d, d->map.a_base, c->a_addr, c->trans_a ? c->k : c->m,
                          c->trans_a ? c->m : c->k, c->lda) &&
               known_span(d, d->map.b_base, c->b_addr, c->trans_b ? c->n : c->k,
                          c->trans_b ? c->k : c->n, c->ldb);
    for (uint32_t i = 0; i < c->m; i++) {
        for (uint32_t j = 0; j < c->n; j++) {
            uint8_t *k = &d->known[d->map.c_base + 4 * (c->c_addr + i * c->ldc + j)];
            bool old = !c->accumulate || (k[0] && k[1] && k[2] && k[3]);
            memset(k, ops && old, 4);
        }
    }
}

/* One clock cycle: drive, check, handshake, step. */
static void tick(struct dut *d)
{
    struct core_in in = {0};
    struct core_out out;
    uint64_t now = core_rtl_cycle(d->p);

    if (!d->dma_valid && d->q_len > 0 && chance(d, d->p_dma))
        d->dma_valid = true;
    if (!d->cmd_valid && d->c_sent < d->c_total && chance(d, d->p_cmd))
        d->cmd_valid = true;
    const struct req *r = &d->q[d->q_head];
    in.dma_valid = d->dma_valid;
    if (d->dma_valid) {
        in.dma_we = r->we;
        in.dma_addr = r->addr;
        in.dma_wdata = r->data;
        in.dma_wstrb = r->strb;
    }
    in.cmd_valid = d->cmd_valid;
    if (d->cmd_valid)
        in.cmd = d->cmds[d->c_sent].cmd;
    in.done_ready = chance(d, d->p_done);
    core_rtl_set(d->p, &in);
    core_rtl_get(d->p, &out);

    check_response(d, &out);
    check_done(d, &out);
    /* The DMA port's acceptance rule. */
    if (d->dma_valid) {
        bool want = !out.busy || is_ab_write(d, r);
        if (out.dma_ready != want)
            FAIL(d, "DMA %s of %#x: ready %d while %s", r->we ? "write" : "read", r->addr,
                 out.dma_ready, out.busy ? "busy" : "idle");
        d->n_busy_taken += out.busy && out.dma_ready;
        d->n_busy_held += out.busy && !out.dma_ready;
    }

    if (d->dma_valid && out.dma_ready) {
        struct expect x = {.due = now + CORE_DMA_LATENCY, .read = !r->we, .addr = r->addr};
        int rc = r->we ? core_twin_dma_write(d->img, r->addr, r->data, r->strb)
                       : core_twin_dma_read(d->img, r->addr, &x.data);
        x.err = rc != 0;
        for (unsigned b = 0; rc == 0 && b < 8; b++) {
            if (r->we && (r->strb >> b & 1))
                d->known[r->addr + b] = 1;
            if (!r->we && d->known[r->addr + b])
                x.known |= 0xFFull << (8 * b);
        }
        assert_true(d->e_len < d->e_cap);
        d->e[(d->e_head + d->e_len++) % d->e_cap] = x;
        d->q_head = (d->q_head + 1) % d->q_cap;
        d->q_len--;
        d->dma_valid = false;
    }
    if (d->cmd_valid && out.cmd_ready) {
        struct cmd_slot *s = &d->cmds[d->c_sent++];
        s->accepted = now;
        assert_int_equal(core_twin_exec(d->img, &s->cmd, &s->want, NULL), 0);
        if (s->want.status == CORE_OK)
            mark_result(d, &s->cmd);
        d->cmd_valid = false;
        d->n_cmds++;
    }
    if (out.done_valid && in.done_ready) {
        d->c_done++;
        d->done_popped = now;
        d->done_head_seen = false;
    }
    d->prev = out;
    d->prev_done_ready = in.done_ready;
    core_rtl_step(d->p, 1);
}

static void push_req(struct dut *d, bool we, uint32_t addr, uint64_t data, uint8_t strb)
{
    assert_true(d->q_len < d->q_cap);
    d->q[(d->q_head + d->q_len++) % d->q_cap] =
        (struct req){.we = we, .addr = addr, .data = data, .strb = strb};
}

/* Run until every queued request and command is done. */
static void drain(struct dut *d)
{
    uint64_t start = core_rtl_cycle(d->p);
    while (d->q_len || d->dma_valid || d->e_len || d->c_done < d->c_total) {
        tick(d);
        if (core_rtl_cycle(d->p) - start > 50000000)
            FAIL(d, "no progress: %zu requests, %zu responses, %zu of %zu commands left", d->q_len,
                 d->e_len, d->c_total - d->c_done, d->c_total);
    }
}

/* Queue byte writes [addr, addr + len) from src: whole beats with partial strobes at the
 * ends, as a DMA engine would send them. */
static void dma_write(struct dut *d, uint32_t addr, const uint8_t *src, size_t len)
{
    while (len) {
        uint32_t beat = addr & ~7u;
        unsigned off = addr - beat;
        unsigned n = 8 - off < len ? 8 - off : (unsigned)len;
        uint64_t data = rng_next(&d->rng); /* bytes outside the strobes are don't-care */
        uint8_t strb = 0;
        for (unsigned i = 0; i < n; i++) {
            data = (data & ~(0xFFull << (8 * (off + i)))) | (uint64_t)src[i] << (8 * (off + i));
            strb |= (uint8_t)(1u << (off + i));
        }
        push_req(d, true, beat, data, strb);
        addr += n;
        src += n;
        len -= n;
        if (d->q_len + 8 >= d->q_cap)
            drain(d);
    }
}

/* Queue reads of the beats covering [addr, addr + len); each is checked against the image. */
static void dma_check(struct dut *d, uint32_t addr, size_t len)
{
    for (uint32_t a = addr & ~7u; a < addr + len; a += 8) {
        uint64_t any = 0;
        memcpy(&any, &d->known[a], 8);
        if (!any)
            continue; /* nothing known there yet */
        push_req(d, false, a, 0, 0);
        if (d->q_len + 8 >= d->q_cap)
            drain(d);
    }
}

/* ---------------------------------------------------------------- stimulus */

/* A bf16 operand. specials: NaN/inf/max values now and then; otherwise zeros, subnormals
 * and normals, mostly near 1.0 so that sums interact. */
static uint16_t rnd_bf16(uint64_t *s, bool specials)
{
    uint32_t r = rng_next(s) % 256;
    uint16_t sign = (uint16_t)((rng_next(s) & 1) << 15);
    uint16_t frac = (uint16_t)(rng_next(s) % 128);

    if (r < 8)
        return sign;
    if (r < 12)
        return (uint16_t)(sign | (frac ? frac : 1u)); /* subnormal: reads as zero */
    if (specials && r < 14)
        return (uint16_t)(sign | 0x7F80u); /* inf */
    if (specials && r < 16)
        return (uint16_t)(sign | 0x7F80u | (frac ? frac : 0x40u)); /* NaN */
    if (specials && r < 24)
        return (uint16_t)(sign |
                          (uint16_t)((rng_next(s) & 1 ? 1 + rng_next(s) % 3 : 252 + rng_next(s) % 3)
                                     << 7) |
                          frac); /* range edges: products under- and overflow */
    return (uint16_t)(sign | (uint16_t)((120 + rng_next(s) % 16) << 7) | frac);
}

/* An old C value for accumulate: every class, non-canonical NaNs and subnormals included. */
static uint32_t rnd_fp32(uint64_t *s, bool specials)
{
    uint32_t r = rng_next(s) % 64, u = (uint32_t)rng_next(s);
    if (r == 0)
        return u & FP32_SIGN;
    if (r == 1)
        return (u & 0x807FFFFFu) | 1u; /* subnormal */
    if (specials && r == 2)
        return (u & FP32_SIGN) | FP32_POS_INF;
    if (specials && r == 3)
        return u | 0x7F800001u; /* NaN with a payload */
    return (u & 0x807FFFFFu) | (uint32_t)(118 + rng_next(s) % 20) << 23;
}

static uint32_t round_up(uint32_t x, uint32_t w)
{
    return (x + w - 1) / w * w;
}

/* Footprint in elements of an operand stored rows x cols with leading dimension ld. */
static uint64_t footprint(uint32_t rows, uint32_t cols, uint32_t ld)
{
    return (uint64_t)(rows - 1) * ld + cols;
}

/* Place a command's operands at random aligned addresses with random padding; false if it does
 * not fit in the pads. */
static bool place(struct dut *d, struct core_cmd *c)
{
    uint32_t w = d->map.w;
    uint32_t a_rows = c->trans_a ? c->k : c->m, a_cols = c->trans_a ? c->m : c->k;
    uint32_t b_rows = c->trans_b ? c->n : c->k, b_cols = c->trans_b ? c->k : c->n;

    c->lda = round_up(a_cols, w) + w * (uint32_t)(rng_next(&d->rng) % 3 == 0 ? 1 : 0);
    c->ldb = round_up(b_cols, w) + w * (uint32_t)(rng_next(&d->rng) % 3 == 0 ? 1 : 0);
    c->ldc = round_up(c->n, w) + w * (uint32_t)(rng_next(&d->rng) % 3 == 0 ? 1 : 0);
    uint64_t fa = footprint(a_rows, a_cols, c->lda), fb = footprint(b_rows, b_cols, c->ldb);
    uint64_t fc = footprint(c->m, c->n, c->ldc);
    if (fa > d->map.a_elems || fb > d->map.b_elems || fc > d->map.c_elems)
        return false;
    c->a_addr = w * (uint32_t)(rng_next(&d->rng) % ((d->map.a_elems - fa) / w + 1));
    c->b_addr = w * (uint32_t)(rng_next(&d->rng) % ((d->map.b_elems - fb) / w + 1));
    c->c_addr = w * (uint32_t)(rng_next(&d->rng) % ((d->map.c_elems - fc) / w + 1));
    return true;
}

/* Write a stored operand's rows (row elements only; the padding keeps what it had). */
static void write_operand(struct dut *d, uint32_t base, uint32_t addr, uint32_t rows, uint32_t cols,
                          uint32_t ld, bool specials)
{
    uint8_t *buf = malloc((size_t)cols * 2);
    assert_non_null(buf);
    for (uint32_t r = 0; r < rows; r++) {
        for (uint32_t c = 0; c < cols; c++) {
            uint16_t v = rnd_bf16(&d->rng, specials);
            buf[2 * c] = (uint8_t)v;
            buf[2 * c + 1] = (uint8_t)(v >> 8);
        }
        dma_write(d, base + 2 * (addr + r * ld), buf, (size_t)cols * 2);
    }
    free(buf);
}

static void write_c_rows(struct dut *d, const struct core_cmd *c, bool specials)
{
    uint8_t *buf = malloc((size_t)c->n * 4);
    assert_non_null(buf);
    for (uint32_t i = 0; i < c->m; i++) {
        for (uint32_t j = 0; j < c->n; j++) {
            uint32_t v = rnd_fp32(&d->rng, specials);
            for (int b = 0; b < 4; b++)
                buf[4 * j + b] = (uint8_t)(v >> (8 * b));
        }
        dma_write(d, d->map.c_base + 4 * (c->c_addr + i * c->ldc), buf, (size_t)c->n * 4);
    }
    free(buf);
}

/* The C footprint plus a word of guard on both sides, clipped to the pad: [*first, *last). */
static bool c_region(const struct dut *d, const struct core_cmd *c, uint64_t *first, uint64_t *last)
{
    *first = c->c_addr >= d->map.w ? c->c_addr - d->map.w : 0;
    *last = (uint64_t)c->c_addr + footprint(c->m, c->n, c->ldc) + d->map.w;
    if (*last > d->map.c_elems)
        *last = d->map.c_elems;
    return *first < *last;
}

/* Random bytes over the C region and its guards, so that a read-back checks them all. */
static void write_c_region(struct dut *d, const struct core_cmd *c)
{
    uint64_t first, last;
    if (!c_region(d, c, &first, &last))
        return;
    for (uint64_t e = first; e < last; e += 2)
        push_req(d, true, d->map.c_base + (uint32_t)e * 4, rng_next(&d->rng), 0xFF);
}

/* Read back the C region and its guards. */
static void check_c_region(struct dut *d, const struct core_cmd *c)
{
    uint64_t first, last;
    if (c_region(d, c, &first, &last))
        dma_check(d, d->map.c_base + (uint32_t)first * 4, (size_t)(last - first) * 4);
}

/* ---------------------------------------------------------------- oracles */

/* The cycle count of rtl/core/README.md, from its named phases. */
static uint64_t formula_cycles(const struct core_params *g, const struct core_cmd *c)
{
    const uint64_t T_START = 3, T_FEED = 2, T_WB = 2;
    uint64_t S = core_twin_stages(g), R = S * g->rows, C = g->cols, W = core_twin_w(g), K = c->k;
    uint64_t tiles = ((c->m + R - 1) / R) * ((c->n + C - 1) / C);
    uint64_t nb = (K + W - 1) / W;
    uint64_t k0 = K < W ? K : W;
    uint64_t la = c->trans_a ? S * k0 : R, lb = c->trans_b ? C : k0;
    uint64_t L0 = la > lb ? la : lb;
    uint64_t D = R > R - g->rows + C ? R : R - g->rows + C;
    uint64_t P = S * K;
    if (S * (nb - 1) * W + L0 > P)
        P = S * (nb - 1) * W + L0;
    if (D > P)
        P = D;
    uint64_t T_ARRAY = C + 2, T_ROWS = R - 1;
    return T_START + L0 + (tiles - 1) * P + S * K + T_FEED + T_ARRAY + T_ROWS + T_WB;
}

/* The reference result of a good command on the image as it is now (before the command):
 * ref_gemm, and for accumulate fp32_add(C_old, dot) (see rtl/core/README.md: the core adds the
 * old C to the finished dot product; ref_gemm's accumulate mode would start the sum from it). */
static uint32_t *reference(struct dut *d, const struct core_cmd *c)
{
    size_t n = (size_t)c->m * c->n;
    uint32_t *out = calloc(n, sizeof(*out));
    assert_non_null(out);
    assert_int_equal(ref_gemm(c->m, c->n, c->k, core_twin_a(d->img) + c->a_addr, c->lda, c->trans_a,
                              core_twin_b(d->img) + c->b_addr, c->ldb, c->trans_b, out, c->n,
                              false),
                     0);
    if (c->accumulate) {
        const uint32_t *old = core_twin_c(d->img) + c->c_addr;
        for (uint32_t i = 0; i < c->m; i++)
            for (uint32_t j = 0; j < c->n; j++)
                out[i * c->n + j] = fp32_add(old[i * c->ldc + j], out[i * c->n + j]);
    }
    return out;
}

static void compare_reference(struct dut *d, const struct core_cmd *c, const uint32_t *want)
{
    const uint32_t *got = core_twin_c(d->img) + c->c_addr;
    for (uint32_t i = 0; i < c->m; i++)
        for (uint32_t j = 0; j < c->n; j++) {
            if (got[i * c->ldc + j] != want[i * c->n + j])
                FAIL(d, "C[%u][%u]: twin %#010x, reference %#010x", i, j, got[i * c->ldc + j],
                     want[i * c->n + j]);
        }
}

/* ---------------------------------------------------------------- one GEMM */

/* Queue a command, run it with the current stall settings, check everything. */
static void run_gemm(struct dut *d, struct core_cmd *c, bool specials)
{
    d->ctx = c;
    write_operand(d, d->map.a_base, c->a_addr, c->trans_a ? c->k : c->m, c->trans_a ? c->m : c->k,
                  c->lda, specials);
    write_operand(d, d->map.b_base, c->b_addr, c->trans_b ? c->n : c->k, c->trans_b ? c->k : c->n,
                  c->ldb, specials);
    write_c_region(d, c);
    if (c->accumulate)
        write_c_rows(d, c, specials);
    drain(d);

    uint32_t *want = reference(d, c);
    d->c_total = d->c_sent = d->c_done = 0;
    d->cmds[0].cmd = *c;
    d->c_total = 1;
    drain(d);
    struct cmd_slot *s = &d->cmds[0];
    if (s->want.status != CORE_OK)
        FAIL(d, "a command the test built as good was rejected with status %d", s->want.status);
    uint64_t f = formula_cycles(&d->cfg, c);
    if (s->want.cycles != f || core_twin_cycles(&d->cfg, c) != f)
        FAIL(d, "cycles: twin %" PRIu64 ", README formula %" PRIu64, s->want.cycles, f);
    compare_reference(d, c, want);
    free(want);
    check_c_region(d, c);
    drain(d);
}

/* A random good command for this array. */
static void random_cmd(struct dut *d, struct core_cmd *c, uint32_t dim_max)
{
    uint32_t R = core_twin_tile_rows(&d->cfg), C = d->cfg.cols, W = d->map.w;
    do {
        memset(c, 0, sizeof(*c));
        switch (rng_next(&d->rng) % 6) {
        case 0:
            c->k = 1;
            break;
        case 1:
            c->k = 1 + rng_next(&d->rng) % W;
            break;
        case 2:
            c->k = W * (1 + rng_next(&d->rng) % 3);
            break;
        case 3:
            c->k = W * (1 + rng_next(&d->rng) % 2) + 1;
            break;
        default:
            c->k = 1 + rng_next(&d->rng) % dim_max;
            break;
        }
        switch (rng_next(&d->rng) % 4) {
        case 0:
            c->m = 1 + rng_next(&d->rng) % R;
            break;
        case 1:
            c->m = R * (1 + rng_next(&d->rng) % 3);
            break;
        default:
            c->m = 1 + rng_next(&d->rng) % dim_max;
            break;
        }
        switch (rng_next(&d->rng) % 4) {
        case 0:
            c->n = 1 + rng_next(&d->rng) % C;
            break;
        case 1:
            c->n = C * (1 + rng_next(&d->rng) % 3);
            break;
        default:
            c->n = 1 + rng_next(&d->rng) % dim_max;
            break;
        }
        c->trans_a = rng_next(&d->rng) & 1;
        c->trans_b = rng_next(&d->rng) & 1;
        c->accumulate = rng_next(&d->rng) % 3 == 0;
    } while (!place(d, c));
}

/* How much of n suits this array: all of it up to 4x4, less as the verilated model slows
 * down with rows * cols (8x8: 2/3, 16x16: 1/5, 32x32: 1/25), at least 1. */
static unsigned budget(const struct dut *d, unsigned n)
{
    unsigned pes = d->cfg.rows * d->cfg.cols;
    unsigned b = pes <= 16 ? n : pes <= 64 ? n * 2 / 3 : pes <= 256 ? n / 5 : n / 25;
    return b ? b : 1;
}

/* ---------------------------------------------------------------- cases */

static void reset_state(void **state)
{
    (void)state;
    struct dut d;
    struct core_out out;

    dut_open(&d, args.seed);
    for (int i = 0; i < 4; i++) {
        core_rtl_get(d.p, &out);
        assert_true(out.cmd_ready);
        assert_false(out.done_valid);
        assert_false(out.busy);
        assert_true(out.dma_ready);
        assert_false(out.dma_resp_valid);
        core_rtl_step(d.p, 1);
    }
    dut_close(&d);
}

/* Random DMA traffic over the whole map: partial strobes, every pad, misaligned and
 * out-of-map requests (error responses), random stalls; every read checked. */
static void dma_port(void **state)
{
    (void)state;
    struct dut d;

    dut_open(&d, args.seed);
    unsigned n = budget(&d, 20000);
    for (unsigned i = 0; i < n; i++) {
        if (i % 1000 == 0)
            dut_shuffle_stalls(&d);
        uint32_t r = rng_next(&d.rng) % 100;
        uint32_t addr = (uint32_t)(rng_next(&d.rng) % d.map.end) & ~7u;
        if (r < 3)
            addr |= 1 + rng_next(&d.rng) % 7; /* misaligned */
        else if (r < 6)
            addr = d.map.end + 8 * (uint32_t)(rng_next(&d.rng) % 64); /* past the map */
        else if (r < 8)
            addr = 0xFFFFFFF8u;
        bool we = rng_next(&d.rng) & 1;
        push_req(&d, we, addr, rng_next(&d.rng), we ? (uint8_t)rng_next(&d.rng) : 0);
    }
    drain(&d);
    /* and read everything back */
    dma_check(&d, 0, d.map.end);
    drain(&d);
    printf("# dma: %u random requests, %" PRIu64 " reads checked, map %u bytes (A %u, B %u, C "
           "%u)\n",
           n, d.n_reads, d.map.end, d.map.b_base, d.map.c_base - d.map.b_base,
           d.map.end - d.map.c_base);
    dut_close(&d);
}

/* Shapes every array must get right: K = 1, K = W, K = W + 1, M and N below, at and above the
 * array, each with every transpose combination, with and without accumulate. */
static void gemm_edge_shapes(void **state)
{
    (void)state;
    struct dut d;
    uint32_t R, C, W;

    dut_open(&d, args.seed + 1);
    R = core_twin_tile_rows(&d.cfg); /* a tile's rows: the array's, or four tiles' (4 stages) */
    C = d.cfg.cols;
    W = d.map.w;
    const uint32_t shapes[][3] = {
        {1, 1, 1},         {R, C, 1},         {R, C, W},     {R + 1, C + 1, W + 1},
        {1, 2 * C + 1, 2}, {2 * R + 1, 1, 3}, {R, C, 2 * W}, {R > 1 ? R - 1 : 1, C, W - 1},
    };
    unsigned runs = 0;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        for (unsigned f = 0; f < 8; f++) {
            struct core_cmd c = {.m = shapes[s][0],
                                 .n = shapes[s][1],
                                 .k = shapes[s][2],
                                 .trans_a = f & 1,
                                 .trans_b = f >> 1 & 1,
                                 .accumulate = f >> 2 & 1};
            if (d.cfg.rows * d.cfg.cols > 256 && f != (3 + 3 * s) % 8)
                continue; /* the 32x32 runs one combination per shape, a different one each */
            if (!place(&d, &c))
                continue;
            dut_shuffle_stalls(&d);
            run_gemm(&d, &c, (s + f) % 4 == 0);
            runs++;
        }
    }
    printf("# edge shapes: %u GEMMs checked, %" PRIu64 " cycles\n", runs, core_rtl_cycle(d.p));
    dut_close(&d);
}

static void gemm_random(void **state)
{
    (void)state;
    struct dut d;

    dut_open(&d, args.seed + 2);
    if (args.waves) {
        struct vtrace_opts o = {.path = args.waves,
                                .first_cycle = args.first_cycle,
                                .last_cycle = args.last_cycle,
                                .scopes = args.scopes};
        assert_int_equal(core_rtl_trace(d.p, &o), 0);
    }
    /* No fill: run_gemm writes every byte it reads back, so the first command starts within
     * a few hundred cycles (and inside the default trace window). */
    unsigned n = budget(&d, 150);
    uint32_t big = d.cfg.rows > d.cfg.cols ? d.cfg.rows : d.cfg.cols;
    uint32_t dim_max = big >= 32 ? 2 * big + 5 : 4 * big + 5 > 24 ? 4 * big + 5 : 24;
    uint64_t macs = 0, cycles = 0;
    for (unsigned i = 0; i < n; i++) {
        struct core_cmd c;
        random_cmd(&d, &c, dim_max);
        dut_shuffle_stalls(&d);
        run_gemm(&d, &c, rng_next(&d.rng) % 4 == 0);
        macs += (uint64_t)c.m * c.n * c.k;
        cycles += d.cmds[0].want.cycles;
    }
    printf("# random: %u GEMMs, %" PRIu64 " MACs in %" PRIu64 " command cycles, %" PRIu64
           " cycles in all\n",
           n, macs, cycles, core_rtl_cycle(d.p));
    dut_close(&d);
}

/* Commands back to back with valid held high and the completion port stalling: each command
 * waits for the one before, its count stays its own. */
static void back_to_back(void **state)
{
    (void)state;
    struct dut d;

    dut_open(&d, args.seed + 3);
    unsigned rounds = budget(&d, 12);
    for (unsigned r = 0; r < rounds; r++) {
        bool big = d.cfg.rows * d.cfg.cols > 64;
        size_t n = 2 + rng_next(&d.rng) % (big ? 4 : MAX_CMDS - 2);
        for (size_t i = 0; i < n; i++) {
            struct core_cmd *c = &d.cmds[i].cmd;
            random_cmd(&d, c, big ? d.map.w + 3 : 2 * d.map.w + 3);
            c->accumulate = false; /* operands written once below, results compared at the end */
            if (i % 5 == 4)
                c->k = 0; /* a bad one in the stream */
        }
        /* All operands first (they may overlap: the image keeps the truth). */
        for (size_t i = 0; i < n; i++) {
            struct core_cmd *c = &d.cmds[i].cmd;
            write_c_region(&d, c);
            if (c->k == 0)
                continue;
            write_operand(&d, d.map.a_base, c->a_addr, c->trans_a ? c->k : c->m,
                          c->trans_a ? c->m : c->k, c->lda, false);
            write_operand(&d, d.map.b_base, c->b_addr, c->trans_b ? c->n : c->k,
                          c->trans_b ? c->k : c->n, c->ldb, false);
        }
        drain(&d);
        d.p_cmd = 100;
        d.p_done = r % 2 ? 100 : 30;
        d.ctx = NULL;
        d.c_sent = d.c_done = 0;
        d.c_total = n;
        drain(&d);
        for (size_t i = 0; i < n; i++) {
            struct core_cmd *c = &d.cmds[i].cmd;
            d.ctx = c;
            if (c->k != 0 && d.cmds[i].want.cycles != formula_cycles(&d.cfg, c))
                FAIL(&d, "cycles %" PRIu64 ", README formula %" PRIu64, d.cmds[i].want.cycles,
                     formula_cycles(&d.cfg, c));
            check_c_region(&d, c);
        }
        drain(&d);
    }
    printf("# back to back: %" PRIu64 " commands, %" PRIu64 " cycles\n", d.n_cmds,
           core_rtl_cycle(d.p));
    dut_close(&d);
}

/* While a command runs: reads and C-pad writes wait (ready low), A/B writes go in; the
 * command's result and cycle count do not change. */
static void dma_during_command(void **state)
{
    (void)state;
    struct dut d;

    dut_open(&d, args.seed + 4);
    unsigned rounds = budget(&d, 12);
    for (unsigned r = 0; r < rounds; r++) {
        struct core_cmd c;
        do {
            random_cmd(&d, &c, d.cfg.rows * d.cfg.cols > 64 ? d.map.w + 9 : 2 * d.map.w + 9);
        } while (c.k < 4);
        d.ctx = &c;
        write_operand(&d, d.map.a_base, c.a_addr, c.trans_a ? c.k : c.m, c.trans_a ? c.m : c.k,
                      c.lda, false);
        write_operand(&d, d.map.b_base, c.b_addr, c.trans_b ? c.n : c.k, c.trans_b ? c.k : c.n,
                      c.ldb, false);
        write_c_region(&d, &c);
        if (c.accumulate)
            write_c_rows(&d, &c, false);
        drain(&d);
        uint32_t *want = reference(&d, &c);
        /* The command, then a stream of DMA requests right behind it. A/B writes avoid the
         * command's operands (software's duty); the twin image checks the rest. */
        d.cmds[0].cmd = c;
        d.c_sent = d.c_done = 0;
        d.c_total = 1;
        d.p_cmd = 100;
        d.p_dma = 100;
        d.p_done = 100;
        /* Writes keep off the command's operands and result: a write to C after the command
         * would change what compare_reference() sees. */
        uint32_t lo[3], hi[3];
        lo[0] = d.map.a_base + 2 * c.a_addr;
        hi[0] =
            lo[0] + 2 * (uint32_t)footprint(c.trans_a ? c.k : c.m, c.trans_a ? c.m : c.k, c.lda);
        lo[1] = d.map.b_base + 2 * c.b_addr;
        hi[1] =
            lo[1] + 2 * (uint32_t)footprint(c.trans_b ? c.n : c.k, c.trans_b ? c.k : c.n, c.ldb);
        lo[2] = d.map.c_base + 4 * c.c_addr;
        hi[2] = lo[2] + 4 * (uint32_t)footprint(c.m, c.n, c.ldc);
        /* A few A/B writes first, so that they go in while the command runs (the shortest
         * command here lasts longer than they take); then reads and C writes, which wait for
         * its end. */
        for (int pass = 0; pass < 2; pass++) {
            for (unsigned i = 0; i < (pass == 0 ? 8u : 100u); i++) {
                uint32_t addr = (uint32_t)(rng_next(&d.rng) % d.map.end) & ~7u;
                bool we = pass == 0 || (rng_next(&d.rng) & 1), hit = false;
                if (pass == 0)
                    addr %= d.map.c_base;
                for (int o = 0; o < 3; o++)
                    hit |= addr + 8 > lo[o] && addr < hi[o];
                if (!(we && hit))
                    push_req(&d, we, addr, rng_next(&d.rng), (uint8_t)rng_next(&d.rng));
            }
        }
        drain(&d);
        if (d.cmds[0].want.cycles != formula_cycles(&d.cfg, &c))
            FAIL(&d, "cycles %" PRIu64 ", README formula %" PRIu64, d.cmds[0].want.cycles,
                 formula_cycles(&d.cfg, &c));
        compare_reference(&d, &c, want);
        free(want);
        check_c_region(&d, &c);
        drain(&d);
    }
    printf("# DMA during commands: %u commands, %" PRIu64 " requests taken and %" PRIu64
           " request-cycles held off while busy, %" PRIu64 " cycles\n",
           rounds, d.n_busy_taken, d.n_busy_held, core_rtl_cycle(d.p));
    if (d.n_busy_taken == 0 || d.n_busy_held == 0)
        FAIL(&d,
             "the case never had a DMA request taken (%" PRIu64 ") and one held off (%" PRIu64
             ") while busy",
             d.n_busy_taken, d.n_busy_held);
    dut_close(&d);
}

/* Bad commands complete at once with their status, 0 cycles, and write nothing. */
static void bad_commands(void **state)
{
    (void)state;
    struct dut d;

    dut_open(&d, args.seed + 5);
    uint32_t W = d.map.w;
    const uint32_t ce = d.map.c_elems;
    struct core_cmd good = {.m = 2, .n = 3, .k = 4, .lda = W, .ldb = W, .ldc = W};
    struct {
        struct core_cmd c;
        enum core_status want;
    } cases[24];
    size_t n = 0;
#define CASE(field, value, status)                                                                 \
    do {                                                                                           \
        cases[n].c = good;                                                                         \
        cases[n].c.field = (value);                                                                \
        cases[n].want = (status);                                                                  \
        n++;                                                                                       \
    } while (0)
    CASE(m, 0, CORE_ERR_DIM);
    CASE(n, 0, CORE_ERR_DIM);
    CASE(k, 0, CORE_ERR_DIM);
    CASE(m, 65536, CORE_ERR_DIM);
    CASE(k, 0xFFFFFFFFu, CORE_ERR_DIM);
    CASE(lda, 0, CORE_ERR_LD);
    CASE(ldc, 0, CORE_ERR_LD);
    CASE(a_addr, 1, CORE_ERR_ALIGN);
    CASE(c_addr, W / 2, CORE_ERR_ALIGN);
    CASE(ldb, W + 2, CORE_ERR_ALIGN);
    CASE(c_addr, ce, CORE_ERR_RANGE);
    CASE(c_addr, ce - W, CORE_ERR_RANGE); /* row 1 of C past the end */
    CASE(a_addr, 0xFFFFFFF0u / W * W, CORE_ERR_RANGE);
    CASE(ldb, 0x80000000u / W * W, CORE_ERR_RANGE); /* (K-1) * ldb past the pad, no wrap */
    CASE(m, 65535, CORE_ERR_RANGE);
    CASE(m, 32769, CORE_ERR_RANGE); /* rows - 1 = 2^15: its low bits alone fit every pad */
    cases[n].c = good;
    cases[n].c.trans_a = true; /* A stored K x M: lda >= M holds, range too */
    cases[n].want = CORE_OK;
    n++;
    cases[n].c = good;
    cases[n].c.trans_b = true;
    cases[n].c.ldb = 0; /* B stored N x K needs ldb >= K */
    cases[n].want = CORE_ERR_LD;
    n++;
#undef CASE
    for (size_t i = 0; i < n; i++) {
        struct core_cmd *c = &cases[i].c;
        d.ctx = c;
        if (core_twin_check(&d.cfg, c) != cases[i].want)
            FAIL(&d, "twin says status %d, the test expects %d", core_twin_check(&d.cfg, c),
                 cases[i].want);
        /* The C-pad as far as the command names it (clipped to the pad) gets known bytes
         * first; after the command it must still hold them. */
        struct core_cmd clip = *c;
        bool clipped = false;
        if (clip.c_addr < ce && clip.m && clip.n && clip.ldc && clip.m < 64 && clip.n < 64 &&
            clip.ldc < 4096) {
            while (clip.c_addr + footprint(clip.m, clip.n, clip.ldc) > ce && clip.m > 1)
                clip.m--;
            clipped = clip.c_addr + footprint(clip.m, clip.n, clip.ldc) <= ce;
        }
        if (clipped)
            write_c_region(&d, &clip);
        drain(&d);
        dut_shuffle_stalls(&d);
        d.cmds[0].cmd = *c;
        d.c_sent = d.c_done = 0;
        d.c_total = 1;
        drain(&d);
        if (d.cmds[0].want.status != cases[i].want)
            FAIL(&d, "status %d, expected %d", d.cmds[0].want.status, cases[i].want);
        if (clipped)
            check_c_region(&d, &clip);
        drain(&d);
    }
    /* Random field soup: the RTL's status always equals the twin's. */
    unsigned soup = budget(&d, 300);
    for (unsigned i = 0; i < soup; i++) {
        struct core_cmd c = good;
        uint32_t *f[] = {&c.m, &c.n, &c.k, &c.a_addr, &c.b_addr, &c.c_addr, &c.lda, &c.ldb, &c.ldc};
        for (int j = 0; j < 2; j++) {
            uint32_t *p = f[rng_next(&d.rng) % 9];
            switch (rng_next(&d.rng) % 4) {
            case 0:
                *p = (uint32_t)rng_next(&d.rng);
                break;
            case 1:
                *p = (uint32_t)(rng_next(&d.rng) % (2 * ce));
                break;
            case 2:
                *p = W * (uint32_t)(rng_next(&d.rng) % 64);
                break;
            default:
                *p = (uint32_t)(rng_next(&d.rng) % 8);
                break;
            }
        }
        c.trans_a = rng_next(&d.rng) & 1;
        c.trans_b = rng_next(&d.rng) & 1;
        if (core_twin_check(&d.cfg, &c) == CORE_OK)
            continue; /* good ones are the other cases' job (and would need operands) */
        d.ctx = &c;
        d.cmds[0].cmd = c;
        d.c_sent = d.c_done = 0;
        d.c_total = 1;
        drain(&d);
    }
    printf("# bad commands: %zu listed, %u random tried, %" PRIu64 " cycles\n", n, soup,
           core_rtl_cycle(d.p));
    dut_close(&d);
}

int main(int argc, char **argv)
{
    if (tb_parse_args(argc, argv, &args) != 0)
        return 2;
    struct core_rtl *p = core_rtl_create(0);
    struct core_params cfg;
    core_rtl_params(p, &cfg);
    core_rtl_destroy(p);
    printf("# core_top %ux%u, %u accumulator stage(s), W %u, pads %u/%u/%u words, seed %" PRIu64
           "\n",
           cfg.rows, cfg.cols, core_twin_stages(&cfg), core_twin_w(&cfg), cfg.a_words, cfg.b_words,
           cfg.c_words, args.seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reset_state),      cmocka_unit_test(dma_port),
        cmocka_unit_test(gemm_edge_shapes), cmocka_unit_test(gemm_random),
        cmocka_unit_test(back_to_back),     cmocka_unit_test(dma_during_command),
        cmocka_unit_test(bad_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
