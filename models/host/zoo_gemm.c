#include "models/host/zoo_gemm.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "models/core/core_twin.h"

/* The costing of one GEMM: the machine it is for, and its first error. */
struct gx {
    const struct hz_cfg *cfg;
    struct err *e;
    int err;
};

static int fail(struct gx *z, int rc, const char *fmt, ...)
{
    va_list ap;
    if (z->err)
        return z->err;
    z->err = rc;
    va_start(ap, fmt);
    char msg[ERR_MSG_LEN];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return err_set(z->e, rc, "compile: %s", msg);
}

uint64_t hz_ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static uint64_t round_up(uint64_t a, uint64_t b)
{
    return hz_ceil_div(a, b) * b;
}

double hz_tb_bytes_per_cycle(const struct hz_cfg *c)
{
    return (double)c->tb_bytes_per_s * (double)c->core_period_ps * 1e-12;
}

/* Cycles of one core command C[m x n] (+)= A[m x k] B[k x n], operands in place. */
static uint64_t core_cycles(const struct gx *z, uint64_t m, uint64_t n, uint64_t k)
{
    unsigned w = core_twin_w(&z->cfg->core);
    struct core_cmd c = {.m = (uint32_t)m,
                         .n = (uint32_t)n,
                         .k = (uint32_t)k,
                         .lda = (uint32_t)round_up(k, w),
                         .ldb = (uint32_t)round_up(n, w),
                         .ldc = (uint32_t)round_up(n, w)};
    return core_twin_cycles(&z->cfg->core, &c);
}

static uint64_t dma_cycles(struct gx *z, const struct dma_desc *d)
{
    uint64_t cy = 0;
    if (!z->err) {
        int rc = dma_time_cycles(z->cfg->dma_time, d, &cy, z->e);
        if (rc)
            fail(z, rc, "DMA of %u rows of %u bytes: %s", d->rows, d->len, z->e->msg);
    }
    return cy;
}

/* The AN's tensor buffer, bytes per core cycle. */
static double tb_per_cycle(const struct gx *z)
{
    return hz_tb_bytes_per_cycle(z->cfg);
}

/* One dimension cut into tiles of t: `full` of them, and the last of size `rest` (0: none). */
struct cut {
    uint64_t t, full, rest;
};

static struct cut cut_of(uint64_t x, uint64_t t)
{
    return (struct cut){t, x / t, x % t};
}

static void share_tb(const struct gx *z, struct hz_gemm_cost *gc);

/* A tiling: C tiles of mt x nt, K in chunks of kc (accumulated in the C-pad). */
struct tiling {
    uint64_t mt, nt, kc;
};

/* Transposes the DMA does: A or B stored the other way round in the tensor buffer. */
static void operand_layout(const struct zoo_gemm *g, bool *xa, bool *xb)
{
    bool kt = g->kind == ZOO_GEMM_SCORES || g->kind == ZOO_GEMM_XSCORES; /* Q K^T */
    *xa = false;
    *xb = false;
    switch (g->role) {
    case ZOO_ROLE_FWD:
    case ZOO_ROLE_RECOMPUTE:
        *xb = kt;
        break;
    case ZOO_ROLE_GRAD_A: /* dA = dY B^T */
        *xb = !kt;
        break;
    case ZOO_ROLE_GRAD_B: /* dB = A^T dY */
        *xa = true;
        break;
    }
}

/* Load of a panel of `rows` x `cols` bf16 elements (rows of the stored matrix: xpose swaps). */
static struct dma_desc panel(uint64_t rows, uint64_t cols, bool xpose, uint64_t sram, unsigned w)
{
    uint64_t src_rows = xpose ? cols : rows, src_len = xpose ? rows : cols;
    return (struct dma_desc){.xpose = xpose,
                             .dst = sram,
                             .rows = (uint32_t)src_rows,
                             .len = (uint32_t)(2 * src_len),
                             .src_stride = 2 * round_up(src_len, 64),
                             .dst_stride = 2 * round_up(cols, w)};
}

/* DMA cycles of d: the twin's (exact), or one 8-byte beat per cycle (an estimate, to rank
 * tilings before the twin runs the chosen one). */
static uint64_t desc_cycles(struct gx *z, const struct dma_desc *d, bool exact)
{
    if (exact)
        return dma_cycles(z, d);
    return hz_ceil_div((uint64_t)d->rows * d->len, CORE_DMA_BEAT);
}

/* What GEMM g costs one core with tiling t: every class of core command (full or remainder in
 * each of M, N, K) counted, the panels and tiles it moves timed. */
static void plan_cost(struct gx *z, const struct zoo_gemm *g, const struct tiling *t, bool exact,
                      struct hz_gemm_cost *gc)
{
    const struct core_params *cp = &z->cfg->core;
    unsigned w = core_twin_w(cp);
    struct core_twin_map map;
    bool xa, xb;

    memset(gc, 0, sizeof(*gc));
    core_twin_map(cp, &map);
    operand_layout(g, &xa, &xb);
    struct cut cm = cut_of(g->m, t->mt), cn = cut_of(g->n, t->nt), ck = cut_of(g->k, t->kc);
    uint64_t tk = ck.full + (ck.rest > 0);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int l = 0; l < 2; l++) {
                uint64_t nm = i ? (cm.rest > 0) : cm.full, mm = i ? cm.rest : t->mt;
                uint64_t nn = j ? (cn.rest > 0) : cn.full, mn = j ? cn.rest : t->nt;
                uint64_t nk = l ? (ck.rest > 0) : ck.full, mk = l ? ck.rest : t->kc;
                uint64_t cnt = nm * nn * nk * g->count;
                if (!cnt)
                    continue;
                uint64_t cy = core_cycles(z, mm, mn, mk);
                if (!cy) {
                    fail(z, -EINVAL, "core command [%llu x %llu x %llu] rejected",
                         (unsigned long long)mm, (unsigned long long)mn, (unsigned long long)mk);
                    return;
                }
                gc->core += cnt * cy;
                /* a B panel for every command; with K whole, an A panel stays for its row of
                 * tiles (loaded with the first) */
                struct dma_desc b = panel(mk, mn, xb, map.b_base, w);
                gc->dma_in += cnt * desc_cycles(z, &b, exact);
                gc->in_bytes += cnt * 2 * mk * mn;
                gc->cls_in[g->b.role] += cnt * 2 * mk * mn;
                bool first_col = j == (cn.full == 0);
                uint64_t acnt = tk > 1 ? cnt : first_col ? nm * g->count : 0;
                struct dma_desc a = panel(mm, mk, xa, map.a_base, w);
                if (acnt)
                    gc->dma_in += acnt * desc_cycles(z, &a, exact);
                gc->in_bytes += acnt * 2 * mm * mk;
                gc->cls_in[g->a.role] += acnt * 2 * mm * mk;
                if (l == (ck.rest > 0)) { /* the last K chunk: the tile leaves */
                    struct dma_desc c = {.store = true,
                                         .src = map.c_base,
                                         .rows = (uint32_t)mm,
                                         .len = (uint32_t)(4 * mn),
                                         .src_stride = 4 * round_up(mn, w),
                                         .dst_stride = 4 * round_up(g->n, 64)};
                    uint64_t tiles = nm * nn * g->count;
                    gc->dma_out += tiles * desc_cycles(z, &c, exact);
                    gc->out_bytes += tiles * 4 * mm * mn;
                    gc->cls_out[g->c.role] += tiles * 4 * mm * mn;
                    gc->tiles += tiles;
                }
            }
    gc->flow = HZ_TILED;
    gc->chunks = 1;
    gc->held = (uint64_t)2 * (map.a_elems + map.b_elems) + 4ull * map.c_elems;
    gc->sram = 0; /* the pads are the RTL's: their bandwidth is the array's by construction */
    share_tb(z, gc);
}

/* The tensor buffer's side of a GEMM: every core's operands, but a weight (in) or a weight
 * gradient (out) once for all with multicast; the DMA waits for the buffer's rate. */
static void share_tb(const struct gx *z, struct hz_gemm_cost *gc)
{
    const struct hz_cfg *c = z->cfg;
    gc->tb_in = gc->tb_out = 0;
    for (int r = 0; r < HZ_OPND_CLASSES; r++) {
        bool once = c->multicast && (r == ZOO_OPND_WEIGHT || r == ZOO_OPND_WGRAD);
        uint64_t f = once ? 1 : c->cores;
        gc->tb_class[r] = (gc->cls_in[r] + gc->cls_out[r]) * f;
        gc->tb_in += gc->cls_in[r] * f;
        gc->tb_out += gc->cls_out[r] * f;
    }
    double per_cycle = tb_per_cycle(z);
    uint64_t tb_in = (uint64_t)ceil((double)gc->tb_in / per_cycle);
    uint64_t tb_out = (uint64_t)ceil((double)gc->tb_out / per_cycle);
    if (tb_in > gc->dma_in)
        gc->dma_in = tb_in;
    if (tb_out > gc->dma_out)
        gc->dma_out = tb_out;
}

/* The widest C tile for K chunk kc and tile height mt: nt, or 0 if none fits. */
static uint64_t widest(const struct gx *z, const struct zoo_gemm *g, uint64_t mt, uint64_t kc)
{
    const struct core_params *cp = &z->cfg->core;
    unsigned w = core_twin_w(cp);
    struct core_twin_map map;
    core_twin_map(cp, &map);
    uint64_t ka = round_up(kc, w), c = cp->cols;
    uint64_t nt = map.b_elems / 2 / ka / c * c;
    if (nt > round_up(g->n, c))
        nt = round_up(g->n, c);
    while (nt >= c && mt * round_up(nt, w) > map.c_elems / 2)
        nt -= c;
    if (nt > g->n)
        nt = g->n;
    if (mt * ka > map.a_elems / 2 || nt > CORE_DIM_MAX)
        return 0;
    return nt;
}

/*
 * The tiling with the least estimated time, max(core cycles, DMA cycles), each of its panels
 * and its C tile in half a pad (double buffering), over K chunks of W, 2W, 4W, ... and the
 * whole K, and tile heights of R, 2R, 4R, ... with the widest tile each allows: a small K chunk
 * costs the core nothing (its tile period is max(K, W, R, C)) and lets the C tile grow, which
 * cuts the panel traffic. -ENOSPC if no panel fits.
 */
static int tile_gemm(struct gx *z, const struct zoo_gemm *g, struct tiling *best)
{
    const struct core_params *cp = &z->cfg->core;
    unsigned w = core_twin_w(cp);
    uint64_t best_t = UINT64_MAX, best_bytes = UINT64_MAX;
    uint64_t kcs[24];
    size_t nk = 0;

    for (uint64_t kc = w; kc < g->k && nk < 23 && kc <= CORE_DIM_MAX; kc *= 2)
        kcs[nk++] = kc;
    if (g->k <= CORE_DIM_MAX)
        kcs[nk++] = g->k;
    for (size_t i = 0; i < nk; i++)
        for (uint64_t mt = cp->rows; mt <= CORE_DIM_MAX; mt *= 2) {
            uint64_t m = mt > g->m ? g->m : mt;
            uint64_t nt = widest(z, g, round_up(m, cp->rows), kcs[i]);
            if (!nt)
                break;
            struct tiling t = {m, nt, kcs[i] > g->k ? g->k : kcs[i]};
            struct hz_gemm_cost gc;
            plan_cost(z, g, &t, false, &gc);
            uint64_t time = gc.core > gc.dma_in + gc.dma_out ? gc.core : gc.dma_in + gc.dma_out;
            uint64_t bytes = gc.in_bytes + gc.out_bytes;
            if (time < best_t || (time == best_t && bytes < best_bytes)) {
                best_t = time;
                best_bytes = bytes;
                *best = t;
            }
            if (m == g->m)
                break;
        }
    return best_t == UINT64_MAX ? -ENOSPC : 0;
}

/* Cycles of one command of the scaled core, its operands anywhere in its SRAM: the RTL's formula
 * with pads as deep as the command needs. */
static uint64_t sram_cmd_cycles(const struct gx *z, uint64_t m, uint64_t n, uint64_t k)
{
    struct core_params cp = z->cfg->core;
    unsigned w = core_twin_w(&cp);
    uint64_t lda = round_up(k, w), ldn = round_up(n, w);
    cp.a_words = (uint32_t)hz_ceil_div(m * lda, w);
    cp.b_words = (uint32_t)hz_ceil_div(k * ldn, w);
    cp.c_words = (uint32_t)hz_ceil_div(m * ldn, w);
    struct core_cmd c = {.m = (uint32_t)m,
                         .n = (uint32_t)n,
                         .k = (uint32_t)k,
                         .lda = (uint32_t)lda,
                         .ldb = (uint32_t)ldn,
                         .ldc = (uint32_t)ldn};
    return core_twin_cycles(&cp, &c);
}

/* The same for a GEMM of any size: commands of at most CORE_DIM_MAX in each dimension (whole
 * tiles and words), the K parts accumulating. 0 if a command is refused. */
static uint64_t sram_core_cycles(const struct gx *z, uint64_t m, uint64_t n, uint64_t k)
{
    const struct core_params *cp = &z->cfg->core;
    unsigned w = core_twin_w(cp);
    struct cut c[3] = {cut_of(m, CORE_DIM_MAX / cp->rows * cp->rows),
                       cut_of(n, CORE_DIM_MAX / cp->cols * cp->cols),
                       cut_of(k, CORE_DIM_MAX / w * w)};
    uint64_t total = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t cnt = 1, dim[3];
        for (int d = 0; d < 3; d++) {
            bool rest = i >> d & 1;
            cnt *= rest ? (c[d].rest > 0) : c[d].full;
            dim[d] = rest ? c[d].rest : c[d].t;
        }
        if (!cnt)
            continue;
        uint64_t cy = sram_cmd_cycles(z, dim[0], dim[1], dim[2]);
        if (!cy)
            return 0;
        total += cnt * cy;
    }
    return total;
}

/* x cut into `chunks` parts of ceil(x / chunks) and the rest: the cycles of f over them. */
static uint64_t over_chunks(const struct gx *z, uint64_t m, uint64_t n, uint64_t k, int along,
                            uint64_t chunks)
{
    uint64_t x = along == 0 ? m : k, part = hz_ceil_div(x, chunks), cy = 0;
    for (uint64_t done = 0; done < x; done += part) {
        uint64_t p = x - done < part ? x - done : part;
        cy += sram_core_cycles(z, along == 0 ? p : m, n, along == 0 ? k : p);
    }
    return cy;
}

/*
 * Weight streaming: the operands that are activations stay in the core's SRAM (`live` bytes of
 * the layer's tensors at this operation), the weight streams in panels of K x cols (forward,
 * gradient of A), or the weight's gradient streams out tile by tile (gradient of B), each
 * double-buffered; an attention GEMM moves nothing. If the layer's tensors do not fit, the
 * sequence is cut into 2, 4, ... chunks of at least `rows` tokens, each streaming the weight
 * once. false if no chunking fits.
 */
static bool stream_cost(struct gx *z, const struct zoo_gemm *g, uint64_t live,
                        struct hz_gemm_cost *gc)
{
    const struct hz_cfg *c = z->cfg;
    const struct core_params *cp = &c->core;
    bool win = g->b.role == ZOO_OPND_WEIGHT, wout = g->c.role == ZOO_OPND_WGRAD;
    uint64_t tokens = win ? g->m : wout ? g->k : 0;
    /* a weight panel serves every row tile of the chunk; a gradient tile leaves when done */
    uint64_t panel = win ? 2 * g->k * cp->cols : wout ? 4ull * cp->rows * cp->cols : 0;
    uint64_t chunks = 1, dma_w = c->dma_bytes_per_cycle ? c->dma_bytes_per_cycle : CORE_DMA_BEAT;
    uint64_t sram_bw =
        c->sram_bytes_per_cycle ? c->sram_bytes_per_cycle : 2ull * (cp->rows + cp->cols) + dma_w;

    /* at least `rows` tokens a chunk, but an expert's GEMM, already below them, down to one */
    uint64_t least = g->experts ? 1 : cp->rows;
    memset(gc, 0, sizeof(*gc));
    while (hz_ceil_div(live, chunks) + 2 * panel > c->sram_bytes) {
        if (!tokens || hz_ceil_div(tokens, 2 * chunks) < least)
            return false;
        chunks *= 2;
    }
    uint64_t cy = over_chunks(z, g->m, g->n, g->k, win ? 0 : 2, chunks);
    if (!cy)
        return false;
    gc->flow = HZ_STREAM;
    gc->chunks = chunks;
    gc->held = hz_ceil_div(live, chunks) + 2 * panel;
    gc->core = g->count * cy;
    gc->tiles = g->count * chunks * hz_ceil_div(g->m, cp->rows) * hz_ceil_div(g->n, cp->cols);
    uint64_t weights = g->experts ? g->count : 1; /* experts: a weight per instance */
    if (win)
        gc->cls_in[ZOO_OPND_WEIGHT] = gc->in_bytes = 2 * g->k * g->n * chunks * weights;
    if (wout)
        gc->cls_out[ZOO_OPND_WGRAD] = gc->out_bytes = 4 * g->m * g->n * chunks * weights;
    gc->dma_in = hz_ceil_div(gc->in_bytes, dma_w);
    gc->dma_out = hz_ceil_div(gc->out_bytes, dma_w);
    /* the array reads a column of A and a row of B a cycle at its full rate */
    uint64_t steps = g->count * g->m * g->n * g->k / ((uint64_t)cp->rows * cp->cols);
    gc->sram = steps * 2 * (cp->rows + cp->cols) + gc->in_bytes + gc->out_bytes;
    uint64_t sram_cy = hz_ceil_div(gc->sram, sram_bw);
    if (sram_cy > gc->core)
        gc->core = sram_cy;
    share_tb(z, gc);
    return true;
}

static uint64_t span(const struct hz_gemm_cost *gc)
{
    uint64_t dma = gc->dma_in + gc->dma_out;
    return gc->core > dma ? gc->core : dma;
}

/* The faster of the dataflows that fit: tiled in the pads, or streamed (with an SRAM). */
static void gemm_cost(struct gx *z, const struct zoo_gemm *g, uint64_t live,
                      struct hz_gemm_cost *gc)
{
    struct tiling t;
    struct hz_gemm_cost ws;
    bool tiled = !tile_gemm(z, g, &t);
    bool stream = z->cfg->sram_bytes && stream_cost(z, g, live, &ws);

    memset(gc, 0, sizeof(*gc));
    if (!tiled && !stream) {
        fail(z, -EINVAL, "GEMM %s %s [%llu x %llu x %llu] does not fit the %ux%u core's pads%s",
             zoo_gemm_kind_name(g->kind), zoo_gemm_role_name(g->role), (unsigned long long)g->m,
             (unsigned long long)g->n, (unsigned long long)g->k, z->cfg->core.rows,
             z->cfg->core.cols, z->cfg->sram_bytes ? " nor its SRAM" : "");
        return;
    }
    if (tiled)
        plan_cost(z, g, &t, true, gc);
    if (stream && (!tiled || span(&ws) <= span(gc)))
        *gc = ws;
}

int hz_gemm_cost(const struct hz_cfg *c, const struct zoo_gemm *g, uint64_t live,
                 struct hz_gemm_cost *gc, struct err *e)
{
    struct gx z = {.cfg = c, .e = e};
    gemm_cost(&z, g, live, gc);
    return z.err;
}
