/*
 * compile.c - the host compiler; see compile.h for the contract.
 *
 * Structure: a scoreboard of buffers (each command names what it reads and writes, the
 * dependencies follow), the tensor-buffer allocator, the GEMM tiler, the emitters of the
 * training step and of the evaluation batch (the listing: compile_list.c; the validation
 * table: compile_check.c; what they share: compile_priv.h).
 */
#include "models/host/compile_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const gemm_names[] = {"Y", "dW", "dX"};

uint64_t hc_ru64(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static int buf_new(struct cc *c)
{
    if (c->n_buf == c->cap_buf) {
        uint32_t cap = c->cap_buf ? 2 * c->cap_buf : 256;
        struct buf *b = realloc(c->buf, cap * sizeof(*b));
        if (!b) {
            c->err = -ENOMEM;
            return 0;
        }
        c->buf = b;
        c->cap_buf = cap;
    }
    c->buf[c->n_buf] = (struct buf){.writer = -1};
    return (int)c->n_buf++;
}

static int push_dep(struct cc *c, uint32_t id)
{
    struct hc_prog *p = c->p;
    if (p->n_deps == c->cap_deps) {
        uint32_t cap = c->cap_deps ? 2 * c->cap_deps : 4096;
        uint32_t *d = realloc(p->deps, cap * sizeof(*d));
        if (!d)
            return -ENOMEM;
        p->deps = d;
        c->cap_deps = cap;
    }
    p->deps[p->n_deps++] = id;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int add_reader(struct cc *c, struct buf *b, uint32_t id, uint32_t res)
{
    for (uint32_t i = 0; i < b->n_rd; i++)
        if (b->rd[i].res == res) { /* in-order resource: the later reader ends later */
            b->rd[i].id = id;
            return 0;
        }
    if (b->n_rd == b->cap_rd) {
        uint32_t cap = b->cap_rd ? 2 * b->cap_rd : 4;
        struct reader *r = realloc(b->rd, cap * sizeof(*r));
        if (!r) {
            c->err = -ENOMEM;
            return -ENOMEM;
        }
        b->rd = r;
        b->cap_rd = cap;
    }
    b->rd[b->n_rd++] = (struct reader){id, res};
    return 0;
}

/*
 * Append a command; rd/wr list the buffers it reads and writes (negative entries are
 * skipped). Returns the command (valid until the next emit) or NULL on error (c->err).
 */
static struct hc_cmd *emit(struct cc *c, enum hc_kind kind, uint32_t node, uint32_t res,
                           uint32_t layer, enum hc_pass pass, enum hc_phase phase, const int *rd,
                           size_t nrd, const int *wr, size_t nwr)
{
    struct hc_prog *p = c->p;
    uint32_t n = 0;

    if (c->err)
        return NULL;
    if (p->n_cmd == c->cap_cmd) {
        uint32_t cap = c->cap_cmd ? 2 * c->cap_cmd : 1024;
        struct hc_cmd *q = realloc(p->cmd, cap * sizeof(*q));
        if (!q) {
            c->err = -ENOMEM;
            return NULL;
        }
        p->cmd = q;
        c->cap_cmd = cap;
    }
    uint32_t id = p->n_cmd;

    for (size_t i = 0; i < nrd; i++) {
        if (rd[i] < 0)
            continue;
        struct buf *b = &c->buf[rd[i]];
        if (b->writer >= 0 && n < sizeof(c->tmp) / sizeof(c->tmp[0]))
            c->tmp[n++] = (uint32_t)b->writer;
    }
    for (size_t i = 0; i < nwr; i++) {
        if (wr[i] < 0)
            continue;
        struct buf *b = &c->buf[wr[i]];
        if (b->writer >= 0 && n < sizeof(c->tmp) / sizeof(c->tmp[0]))
            c->tmp[n++] = (uint32_t)b->writer;
        for (uint32_t k = 0; k < b->n_rd && n < sizeof(c->tmp) / sizeof(c->tmp[0]); k++)
            c->tmp[n++] = b->rd[k].id;
    }
    qsort(c->tmp, n, sizeof(c->tmp[0]), cmp_u32);

    struct hc_cmd *cmd = &p->cmd[id];
    memset(cmd, 0, sizeof(*cmd));
    cmd->id = id;
    cmd->kind = (uint8_t)kind;
    cmd->node = (uint16_t)node;
    cmd->res = res;
    cmd->layer = (uint16_t)layer;
    cmd->pass = (uint8_t)pass;
    cmd->phase = (uint8_t)phase;
    cmd->dep0 = p->n_deps;
    for (uint32_t i = 0; i < n; i++) {
        if (i && c->tmp[i] == c->tmp[i - 1])
            continue;
        if (push_dep(c, c->tmp[i])) {
            c->err = -ENOMEM;
            return NULL;
        }
    }
    cmd = &p->cmd[id];
    cmd->ndep = p->n_deps - cmd->dep0;

    /* Update the scoreboard: writes first clear the readers, then reads register. */
    for (size_t i = 0; i < nwr; i++) {
        if (wr[i] < 0)
            continue;
        c->buf[wr[i]].writer = id;
        c->buf[wr[i]].n_rd = 0;
    }
    for (size_t i = 0; i < nrd; i++)
        if (rd[i] >= 0 && add_reader(c, &c->buf[rd[i]], id, res))
            return NULL;
    p->n_cmd++;
    return cmd;
}

/* ---------------------------------------------------------------- TB allocation */

static uint64_t tb_alloc(struct cc *c, bool wn, const char *name, uint64_t bytes)
{
    struct hc_prog *p = c->p;
    struct hc_region *r;
    uint64_t *used = wn ? &p->wn_tb_used : &p->an_tb_used;
    uint32_t *n = wn ? &p->n_wn_tb : &p->n_an_tb;

    if (*n >= HC_MAX_REGIONS) {
        c->err =
            err_set(c->e, -EINVAL, "compile: more than %u tensor-buffer regions", HC_MAX_REGIONS);
        return 0;
    }
    r = wn ? &p->wn_tb[(*n)++] : &p->an_tb[(*n)++];
    snprintf(r->name, sizeof(r->name), "%s", name);
    r->addr = *used;
    r->bytes = bytes;
    *used = hc_ru64(*used + (bytes ? bytes : 1), TB_ALIGN);
    return r->addr;
}

/* ---------------------------------------------------------------- tiling */

static uint64_t foot(unsigned w, int lay, uint64_t cnt, uint64_t k)
{
    return lay == LAY_PK ? cnt * hc_ru64(k, w) : k * hc_ru64(cnt, w);
}

/* Largest panel count (<= limit) whose footprint fits `half` elements; 0 if none. */
static uint64_t max_cnt(unsigned w, int lay, uint64_t k, uint64_t half, uint64_t limit)
{
    uint64_t m;
    if (lay == LAY_PK)
        m = half / hc_ru64(k, w);
    else
        m = (half / k) / w * w;
    return m < limit ? m : limit;
}

static uint64_t tile_cycles(const struct cc *c, uint32_t m, uint32_t n, uint32_t k, int a_lay,
                            int b_lay)
{
    struct core_cmd cmd = {.m = m, .n = n, .k = k};
    cmd.trans_a = a_lay == LAY_KP;
    cmd.trans_b = b_lay == LAY_PK;
    cmd.lda = (uint32_t)(cmd.trans_a ? hc_ru64(m, c->w) : hc_ru64(k, c->w));
    cmd.ldb = (uint32_t)(cmd.trans_b ? hc_ru64(k, c->w) : hc_ru64(n, c->w));
    cmd.ldc = (uint32_t)hc_ru64(n, c->w);
    return core_twin_cycles(&c->cfg->core, &cmd);
}

static void plan_score(const struct cc *c, uint32_t M, uint32_t N, uint32_t K, struct plan *p)
{
    uint32_t me = M - (p->tm - 1) * p->mt, ne = N - (p->tn - 1) * p->nt;
    uint64_t cyc = 0;

    cyc +=
        (uint64_t)(p->tm - 1) * (p->tn - 1) * tile_cycles(c, p->mt, p->nt, K, p->a_lay, p->b_lay);
    cyc += (uint64_t)(p->tm - 1) * tile_cycles(c, p->mt, ne, K, p->a_lay, p->b_lay);
    cyc += (uint64_t)(p->tn - 1) * tile_cycles(c, me, p->nt, K, p->a_lay, p->b_lay);
    cyc += tile_cycles(c, me, ne, K, p->a_lay, p->b_lay);

    uint64_t a = (uint64_t)M * K * 2, b = (uint64_t)N * K * 2;
    uint64_t mo = a + (p->tm > 1 ? (uint64_t)p->tm * b : b); /* m outer: B per m-tile */
    uint64_t no = b + (p->tn > 1 ? (uint64_t)p->tn * a : a);
    p->n_outer = no < mo;
    uint64_t bytes = (p->n_outer ? no : mo) + (uint64_t)M * N * 4;
    uint64_t descs = (uint64_t)p->tm * p->tn * 3;
    uint64_t dma = bytes / 8 + descs * 16;
    p->score = (cyc > dma ? cyc : dma) + descs;
}

/*
 * Choose tile sizes and scratchpad layouts for C[M x N] = op(A) op(B) with K whole. 0, or
 * -ENOSPC with the reason (the K panel does not fit) in e.
 */
int hc_plan_gemm(const struct cc *c, uint32_t M, uint32_t N, uint32_t K, struct plan *best,
                 struct err *e)
{
    unsigned w = c->w;
    bool found = false;

    for (int al = 0; al < 2; al++) {
        for (int bl = 0; bl < 2; bl++) {
            uint64_t mmax = max_cnt(w, al, K, c->a_half, M);
            uint64_t nmax_b = max_cnt(w, bl, K, c->b_half, N);
            if (!mmax || !nmax_b)
                continue;
            uint32_t tm0 = (uint32_t)((M + mmax - 1) / mmax);
            for (uint32_t tm = tm0; tm <= M && tm < tm0 + 8; tm++) {
                uint32_t mt = (M + tm - 1) / tm;
                if ((uint64_t)(tm - 1) * mt >= M)
                    continue;
                uint64_t nmax_c = (c->c_half / mt) / w * w;
                if (N <= nmax_c)
                    nmax_c = N;
                uint64_t nmax = nmax_b < nmax_c ? nmax_b : nmax_c;
                if (!nmax)
                    continue;
                uint32_t tn0 = (uint32_t)((N + nmax - 1) / nmax);
                for (uint32_t tn = tn0; tn <= N && tn < tn0 + 4; tn++) {
                    uint32_t nt = (N + tn - 1) / tn;
                    if ((uint64_t)(tn - 1) * nt >= N)
                        continue;
                    if (foot(w, al, mt, K) > c->a_half || foot(w, bl, nt, K) > c->b_half ||
                        (uint64_t)mt * hc_ru64(nt, w) > c->c_half)
                        continue;
                    struct plan p = {
                        .mt = mt, .nt = nt, .tm = tm, .tn = tn, .a_lay = al, .b_lay = bl};
                    plan_score(c, M, N, K, &p);
                    if (!found || p.score < best->score) {
                        *best = p;
                        found = true;
                    }
                }
            }
        }
    }
    if (found)
        return 0;
    uint64_t need_a = foot(w, LAY_PK, 1, K) < foot(w, LAY_KP, 1, K) ? foot(w, LAY_PK, 1, K)
                                                                    : foot(w, LAY_KP, 1, K);
    return err_set(e, -ENOSPC,
                   "GEMM %ux%ux%u: a K-panel of K = %u needs at least %" PRIu64
                   " elements of a scratchpad half (A half %u, B half %u, C half %u elements; K "
                   "is never split)",
                   M, N, K, K, need_a, c->a_half, c->b_half, c->c_half);
}

/* The DMA descriptor that loads panel [p0, p0 + cnt) of an operand into the SRAM. */
static void panel_desc(const struct opnd *o, int sram_lay, uint32_t p0, uint32_t cnt, uint32_t k,
                       uint64_t sram, uint32_t sld, struct dma_desc *d)
{
    memset(d, 0, sizeof(*d));
    d->store = false;
    d->dst = sram;
    d->dst_stride = (uint64_t)sld * 2;
    d->src_stride = (uint64_t)o->ld * 2;
    if (o->lay == LAY_PK) {
        d->src = o->tb + (uint64_t)p0 * o->ld * 2;
        d->rows = cnt;
        d->len = k * 2;
    } else {
        d->src = o->tb + (uint64_t)p0 * 2;
        d->rows = k;
        d->len = cnt * 2;
    }
    d->xpose = o->lay != sram_lay;
}

static const char *pass_short(enum hc_pass p)
{
    return p == HC_FWD ? "fwd" : "bwd";
}

/* One GEMM of a layer's pass on AN an: C [M x N] = op(A) op(B), A and B bf16, C fp32 with TB
 * rows over M (LAY_PK). */
struct gemm {
    uint32_t an, layer;
    enum hc_pass pass;
    enum hc_gemm g;
    uint32_t M, N, K;
    struct opnd A, B, C;
};

/* Tile t of a planned GEMM: its panels (rows m0.. and columns n0.. of C, mc x nc) and their
 * leading dimensions in the scratchpads. */
struct tile {
    uint32_t t, mi, ni, m0, n0, mc, nc, lda, ldb;
};

/* The store of a tile's C, queued after the next tile's loads (the DMA runs them in order). */
struct held_store {
    bool valid;
    struct dma_desc d;
    uint32_t tile, half;
    uint64_t bytes;
};

/* Tile t of T = tm x tn; t == T is past the last tile (all zero but the leading dimensions). */
static void tile_at(const struct cc *c, const struct gemm *gm, const struct plan *pl, uint32_t t,
                    struct tile *tl)
{
    unsigned w = c->w;

    memset(tl, 0, sizeof(*tl));
    tl->t = t;
    if (t < pl->tm * pl->tn) {
        tl->mi = pl->n_outer ? t % pl->tm : t / pl->tn;
        tl->ni = pl->n_outer ? t / pl->tm : t % pl->tn;
        tl->m0 = tl->mi * pl->mt;
        tl->n0 = tl->ni * pl->nt;
        tl->mc = gm->M - tl->m0 < pl->mt ? gm->M - tl->m0 : pl->mt;
        tl->nc = gm->N - tl->n0 < pl->nt ? gm->N - tl->n0 : pl->nt;
    }
    tl->lda = (uint32_t)(pl->a_lay == LAY_PK ? hc_ru64(gm->K, w) : hc_ru64(tl->mc ? tl->mc : 1, w));
    tl->ldb = (uint32_t)(pl->b_lay == LAY_KP ? hc_ru64(tl->nc ? tl->nc : 1, w) : hc_ru64(gm->K, w));
}

/* Load tile tl's panel of A (is_b false) or B into the next half of its pad; *half: which. */
static int emit_panel_load(struct cc *c, const struct gemm *gm, const struct plan *pl,
                           const struct tile *tl, bool is_b, uint32_t *half)
{
    uint32_t an = gm->an, *next = is_b ? &c->next_b[an] : &c->next_a[an];
    const struct opnd *o = is_b ? &gm->B : &gm->A;
    uint32_t p0 = is_b ? tl->n0 : tl->m0, cnt = is_b ? tl->nc : tl->mc;
    uint64_t sram = is_b ? c->map.b_base : c->map.a_base;
    uint32_t half_elems = is_b ? c->b_half : c->a_half;
    struct hc_cmd *cmd;

    *half = *next;
    *next ^= 1;
    int rd[] = {o->buf}, wr[] = {is_b ? c->pad_b[an][*half] : c->pad_a[an][*half]};
    cmd = emit(c, HC_DMA_IN, an, hc_res_an(an, HC_RES_AN_DMA), gm->layer, gm->pass, HC_PH_COMPUTE,
               rd, 1, wr, 1);
    if (!cmd)
        return c->err;
    panel_desc(o, is_b ? pl->b_lay : pl->a_lay, p0, cnt, gm->K,
               sram + (uint64_t)*half * half_elems * 2, is_b ? tl->ldb : tl->lda, &cmd->u.dma);
    cmd->op = (uint8_t)gm->g;
    cmd->tile = tl->t;
    cmd->bytes = (uint64_t)cnt * gm->K * 2;
    snprintf(cmd->label, HC_LABEL, "DMA_IN L%u %s %s t%u %c", gm->layer + 1, pass_short(gm->pass),
             gemm_names[gm->g], tl->t, is_b ? 'B' : 'A');
    return 0;
}

/* The core's GEMM of tile tl, from pad halves ha and hb into the next half of the C pad. */
static int emit_tile_gemm(struct cc *c, const struct gemm *gm, const struct plan *pl,
                          const struct tile *tl, uint32_t ha, uint32_t hb)
{
    uint32_t an = gm->an, hc_ = c->next_c[an];
    struct hc_cmd *cmd;

    c->next_c[an] ^= 1;
    int rd[] = {c->pad_a[an][ha], c->pad_b[an][hb]}, wr[] = {c->pad_c[an][hc_], c->core_port[an]};
    cmd = emit(c, HC_GEMM, an, hc_res_an(an, HC_RES_AN_CORE), gm->layer, gm->pass, HC_PH_COMPUTE,
               rd, 2, wr, 2);
    if (!cmd)
        return c->err;
    struct core_cmd *k = &cmd->u.gemm;
    k->m = tl->mc;
    k->n = tl->nc;
    k->k = gm->K;
    k->trans_a = pl->a_lay == LAY_KP;
    k->trans_b = pl->b_lay == LAY_PK;
    k->a_addr = ha * c->a_half;
    k->b_addr = hb * c->b_half;
    k->c_addr = hc_ * c->c_half;
    k->lda = tl->lda;
    k->ldb = tl->ldb;
    k->ldc = (uint32_t)hc_ru64(tl->nc, c->w);
    k->accumulate = false;
    cmd->op = (uint8_t)gm->g;
    cmd->tile = tl->t;
    snprintf(cmd->label, HC_LABEL, "GEMM L%u %s %s t%u [%ux%ux%u]", gm->layer + 1,
             pass_short(gm->pass), gemm_names[gm->g], tl->t, tl->mc, tl->nc, gm->K);
    c->p->gemms += an == 0;
    return 0;
}

/* Hold the store of the C half tile tl's GEMM has just written. */
static void hold_store(const struct cc *c, const struct gemm *gm, const struct tile *tl,
                       struct held_store *st)
{
    uint32_t hc_ = c->next_c[gm->an] ^ 1;

    memset(&st->d, 0, sizeof(st->d));
    st->d.store = true;
    st->d.src = c->map.c_base + (uint64_t)hc_ * c->c_half * 4;
    st->d.src_stride = hc_ru64(tl->nc, c->w) * 4;
    st->d.dst = gm->C.tb + ((uint64_t)tl->m0 * gm->C.ld + tl->n0) * 4;
    st->d.dst_stride = (uint64_t)gm->C.ld * 4;
    st->d.rows = tl->mc;
    st->d.len = tl->nc * 4;
    st->tile = tl->t;
    st->half = hc_;
    st->bytes = (uint64_t)tl->mc * tl->nc * 4;
    st->valid = true;
}

static int emit_held_store(struct cc *c, const struct gemm *gm, struct held_store *st)
{
    uint32_t an = gm->an;
    int rd[] = {c->pad_c[an][st->half], c->core_port[an]}, wr[] = {gm->C.buf};
    struct hc_cmd *cmd = emit(c, HC_DMA_OUT, an, hc_res_an(an, HC_RES_AN_DMA), gm->layer, gm->pass,
                              HC_PH_COMPUTE, rd, 2, wr, 1);

    if (!cmd)
        return c->err;
    cmd->u.dma = st->d;
    cmd->op = (uint8_t)gm->g;
    cmd->tile = st->tile;
    cmd->bytes = st->bytes;
    snprintf(cmd->label, HC_LABEL, "DMA_OUT L%u %s %s t%u C", gm->layer + 1, pass_short(gm->pass),
             gemm_names[gm->g], st->tile);
    st->valid = false;
    return 0;
}

/*
 * Emit the tiles of one GEMM. Per tile, in the DMA queue's order: the A and B panels it does
 * not share with the tile before (they load while the tile before computes), the store of the
 * tile before (between the two GEMMs: the core's DMA port reads no pad while a command runs),
 * then its GEMM; the last store after the last tile.
 */
static int emit_gemm(struct cc *c, const struct gemm *gm)
{
    struct plan pl;
    struct held_store st = {.valid = false};
    uint32_t prev_m = UINT32_MAX, prev_n = UINT32_MAX, ha = 0, hb = 0;
    int rc = hc_plan_gemm(c, gm->M, gm->N, gm->K, &pl, c->e);

    if (rc) {
        c->err = err_prefix(c->e, rc, "layer %u %s %s", gm->layer + 1, pass_short(gm->pass),
                            gemm_names[gm->g]);
        return rc;
    }
    for (uint32_t t = 0, T = pl.tm * pl.tn; t <= T; t++) {
        struct tile tl;

        tile_at(c, gm, &pl, t, &tl);
        if (t < T && tl.mi != prev_m) {
            if (emit_panel_load(c, gm, &pl, &tl, false, &ha))
                return c->err;
            prev_m = tl.mi;
        }
        if (t < T && tl.ni != prev_n) {
            if (emit_panel_load(c, gm, &pl, &tl, true, &hb))
                return c->err;
            prev_n = tl.ni;
        }
        if (st.valid && emit_held_store(c, gm, &st))
            return c->err;
        if (t < T && emit_tile_gemm(c, gm, &pl, &tl, ha, hb))
            return c->err;
        if (t < T)
            hold_store(c, gm, &tl, &st);
    }
    return 0;
}

/* ---------------------------------------------------------------- emitters */

static struct hc_cmd *emit_vu(struct cc *c, uint32_t an, enum vu_op op, uint32_t layer,
                              enum hc_pass pass, const int *rd, size_t nrd, const int *wr,
                              size_t nwr)
{
    struct hc_cmd *cmd = emit(c, HC_VU, an, hc_res_an(an, HC_RES_AN_VU), layer, pass, HC_PH_COMPUTE,
                              rd, nrd, wr, nwr);
    if (cmd) {
        cmd->op = (uint8_t)op;
        snprintf(cmd->label, HC_LABEL, "VU %s L%u %s", vu_op_name(op), layer + 1, pass_short(pass));
    }
    return cmd;
}

static uint64_t layer_stream_bytes(const struct dnn_model *m, uint32_t l)
{
    return dnn_model_layer_stream_bytes(m, l);
}

/* Weights of layer l to every AN's slot (WN flash read + broadcast). Returns the slot. */
static int emit_weights(struct cc *c, uint32_t l, enum hc_pass pass, uint32_t *slot)
{
    const struct hc_cfg *cfg = c->cfg;
    uint32_t s = c->wload++ % 2;
    uint64_t bytes = layer_stream_bytes(&cfg->model, l);
    struct hc_cmd *cmd;

    {
        int rd[] = {c->fl_w[l]}, wr[] = {c->wn_w[s]};
        cmd = emit(c, HC_FLASH_RD, HC_WN, HC_RES_WN_FLASH_RD, l, pass, HC_PH_WEIGHT_FETCH, rd, 1,
                   wr, 1);
        if (!cmd)
            return c->err;
        cmd->op = HC_S_W;
        cmd->u.fl.tb = c->w_w[s];
        cmd->u.fl.rec = l;
        cmd->bytes = bytes;
        snprintf(cmd->label, HC_LABEL, "FLASH_RD W L%u %s", l + 1, pass_short(pass));
    }
    {
        int rd[] = {c->wn_w[s]}, wr[HC_MAX_AN] = {0};
        for (uint32_t n = 0; n < cfg->n_an; n++)
            wr[n] = c->an_w[n][s];
        cmd = emit(c, HC_FABRIC_BCAST, HC_WN, HC_RES_FABRIC_DOWN, l, pass, HC_PH_BROADCAST, rd, 1,
                   wr, cfg->n_an);
        if (!cmd)
            return c->err;
        cmd->u.fab.src = c->w_w[s];
        cmd->u.fab.dst = c->a_w[s];
        cmd->bytes = bytes;
        snprintf(cmd->label, HC_LABEL, "FABRIC_BCAST W L%u %s", l + 1, pass_short(pass));
    }
    *slot = s;
    return 0;
}

static int emit_forward_layer(struct cc *c, uint32_t an, uint32_t l, uint32_t slot)
{
    const struct hc_cfg *cfg = c->cfg;
    const struct dnn_layer *ly = &cfg->model.layer[l];
    bool last = l + 1 == c->L;
    uint32_t r = c->r;
    struct hc_cmd *cmd;

    struct opnd A = {c->a_x[l], ly->in, LAY_PK, c->an_x[an][l]};        /* X [r x in] = M x K */
    struct opnd B = {c->a_w[slot], ly->out, LAY_KP, c->an_w[an][slot]}; /* Wq [in x out] = K x N */
    struct opnd C = {c->a_y, ly->out, LAY_PK, c->an_y[an]};             /* Y [r x out] = M x N */
    struct gemm y = {an, l, HC_FWD, HC_G_FWD, r, ly->out, ly->in, A, B, C};
    if (emit_gemm(c, &y))
        return c->err;
    {
        int rd[] = {c->an_y[an], c->an_w[an][slot]};
        int wr[] = {last ? c->an_logits[an] : c->an_x[an][l + 1]};
        cmd = emit_vu(c, an, VU_BIAS_ACT, l, HC_FWD, rd, 2, wr, 1);
        if (!cmd)
            return c->err;
        cmd->u.vu.src = c->a_y;
        cmd->u.vu.src2 = c->a_w[slot] + (uint64_t)ly->in * ly->out * 2;
        cmd->u.vu.dst = last ? c->a_logits : c->a_x[l + 1];
        cmd->u.vu.rows = r;
        cmd->u.vu.cols = ly->out;
        cmd->u.vu.relu = !last;
    }
    if (!last && !cfg->eval) { /* the next layer's input to the V stream */
        int rd[] = {c->an_x[an][l + 1]}, wr[] = {c->fl_x[an][l + 1]};
        cmd = emit(c, HC_FLASH_WR, an, hc_res_an(an, HC_RES_AN_FLASH_WR), l + 1, HC_FWD,
                   HC_PH_ACT_WRITE, rd, 1, wr, 1);
        if (!cmd)
            return c->err;
        cmd->op = HC_S_V;
        cmd->u.fl.tb = c->a_x[l + 1];
        cmd->u.fl.rec = l + 1;
        cmd->bytes = (uint64_t)r * cfg->model.layer[l + 1].in * 2;
        snprintf(cmd->label, HC_LABEL, "FLASH_WR V X%u", l + 2);
    }
    return 0;
}

static int emit_input(struct cc *c, uint32_t an)
{
    const struct hc_cfg *cfg = c->cfg;
    uint32_t r = c->r, in0 = cfg->model.layer[0].in;
    struct hc_cmd *cmd;
    {
        int rd[] = {c->fl_in[an]}, wr[] = {c->an_in[an]};
        if (cfg->eval)
            cmd = emit(c, HC_HOST_WR, an, HC_RES_HOST, 0, HC_FWD, HC_PH_COMPUTE, NULL, 0, wr, 1);
        else
            cmd = emit(c, HC_FLASH_RD, an, hc_res_an(an, HC_RES_AN_FLASH_RD), 0, HC_FWD,
                       HC_PH_ACT_READ, rd, 1, wr, 1);
        if (!cmd)
            return c->err;
        cmd->op = HC_S_NV;
        cmd->u.fl.tb = c->a_in;
        cmd->bytes = (uint64_t)r * in0 + r;
        snprintf(cmd->label, HC_LABEL, cfg->eval ? "HOST_WR inputs" : "FLASH_RD NV inputs");
    }
    {
        int rd[] = {c->an_in[an]}, wr[] = {c->an_x[an][0]};
        cmd = emit_vu(c, an, VU_INPUT, 0, HC_FWD, rd, 1, wr, 1);
        if (!cmd)
            return c->err;
        cmd->u.vu.src = c->a_in;
        cmd->u.vu.dst = c->a_x[0];
        cmd->u.vu.rows = r;
        cmd->u.vu.cols = in0;
    }
    if (!cfg->eval) {
        int rd[] = {c->an_x[an][0]}, wr[] = {c->fl_x[an][0]};
        cmd = emit(c, HC_FLASH_WR, an, hc_res_an(an, HC_RES_AN_FLASH_WR), 0, HC_FWD,
                   HC_PH_ACT_WRITE, rd, 1, wr, 1);
        if (!cmd)
            return c->err;
        cmd->op = HC_S_V;
        cmd->u.fl.tb = c->a_x[0];
        cmd->u.fl.rec = 0;
        cmd->bytes = (uint64_t)r * in0 * 2;
        snprintf(cmd->label, HC_LABEL, "FLASH_WR V X1");
    }
    return 0;
}

static int emit_backward_layer(struct cc *c, uint32_t an, uint32_t l, uint32_t slot, uint32_t xr)
{
    const struct hc_cfg *cfg = c->cfg;
    const struct dnn_layer *ly = &cfg->model.layer[l];
    uint32_t r = c->r;
    uint32_t gs = l % 2; /* gradient slot */
    struct hc_cmd *cmd;

    { /* X_l back from the V stream */
        int rd[] = {c->fl_x[an][l]}, wr[] = {c->an_xr[an][xr]};
        cmd = emit(c, HC_FLASH_RD, an, hc_res_an(an, HC_RES_AN_FLASH_RD), l, HC_BWD, HC_PH_ACT_READ,
                   rd, 1, wr, 1);
        if (!cmd)
            return c->err;
        cmd->op = HC_S_V;
        cmd->u.fl.tb = c->a_xr[xr];
        cmd->u.fl.rec = l;
        cmd->bytes = (uint64_t)r * ly->in * 2;
        snprintf(cmd->label, HC_LABEL, "FLASH_RD V X%u", l + 1);
    }
    { /* G and db */
        int rd[] = {c->an_dz[an]}, wr[] = {c->an_g[an], c->an_dw[an][gs]};
        cmd = emit_vu(c, an, VU_GRAD, l, HC_BWD, rd, 1, wr, 2);
        if (!cmd)
            return c->err;
        cmd->u.vu.src = c->a_dz;
        cmd->u.vu.dst = c->a_g;
        cmd->u.vu.dst2 = c->a_dw[gs] + (uint64_t)ly->in * ly->out * 4;
        cmd->u.vu.rows = r;
        cmd->u.vu.cols = ly->out;
    }
    { /* dW = X^T G: M = in, N = out, K = r */
        struct opnd A = {c->a_xr[xr], ly->in, LAY_KP, c->an_xr[an][xr]};  /* X [r x in] = K x M */
        struct opnd B = {c->a_g, ly->out, LAY_KP, c->an_g[an]};           /* G [r x out] = K x N */
        struct opnd C = {c->a_dw[gs], ly->out, LAY_PK, c->an_dw[an][gs]}; /* dW [in x out] */
        struct gemm dw = {an, l, HC_BWD, HC_G_DW, ly->in, ly->out, r, A, B, C};
        if (emit_gemm(c, &dw))
            return c->err;
    }
    if (l > 0) { /* dX = G Wq^T: M = r, N = in, K = out */
        /* G [r x out] = M x K, Wq [in x out] = N x K, dX [r x in] = M x N */
        struct opnd A = {c->a_g, ly->out, LAY_PK, c->an_g[an]};
        struct opnd B = {c->a_w[slot], ly->out, LAY_PK, c->an_w[an][slot]};
        struct opnd C = {c->a_y, ly->in, LAY_PK, c->an_y[an]};
        struct gemm dx = {an, l, HC_BWD, HC_G_DX, r, ly->in, ly->out, A, B, C};
        if (emit_gemm(c, &dx))
            return c->err;
        int rd[] = {c->an_y[an], c->an_xr[an][xr]}, wr[] = {c->an_dz[an]};
        cmd = emit_vu(c, an, VU_MASK, l, HC_BWD, rd, 2, wr, 1);
        if (!cmd)
            return c->err;
        cmd->u.vu.src = c->a_y;
        cmd->u.vu.src2 = c->a_xr[xr];
        cmd->u.vu.dst = c->a_dz;
        cmd->u.vu.rows = r;
        cmd->u.vu.cols = ly->in;
    }
    return 0;
}

/* WN side of the backward pass of layer l: reduce, optimizer, write-back. */
static int emit_update(struct cc *c, uint32_t l, uint32_t j)
{
    const struct hc_cfg *cfg = c->cfg;
    const struct dnn_layer *ly = &cfg->model.layer[l];
    uint64_t params = (uint64_t)ly->in * ly->out + ly->out;
    uint32_t gs = l % 2, s = j % 2;
    struct hc_cmd *cmd;

    {
        int rd[HC_MAX_AN] = {0}, wr[] = {c->wn_grad[s]};
        for (uint32_t n = 0; n < cfg->n_an; n++)
            rd[n] = c->an_dw[n][gs];
        cmd = emit(c, HC_FABRIC_REDUCE, HC_WN, HC_RES_FABRIC_UP, l, HC_BWD, HC_PH_REDUCE, rd,
                   cfg->n_an, wr, 1);
        if (!cmd)
            return c->err;
        cmd->u.fab.src = c->a_dw[gs];
        cmd->u.fab.dst = c->w_grad[s];
        cmd->bytes = params * 4;
        snprintf(cmd->label, HC_LABEL, "FABRIC_REDUCE dW L%u", l + 1);
    }
    {
        int rd[] = {c->wn_grad[s], c->wn_mo[s]}, wr[] = {c->wn_wout[s]};
        cmd =
            emit(c, HC_OPT_UPDATE, HC_WN, HC_RES_WN_OPT, l, HC_BWD, HC_PH_OPTIMIZER, rd, 2, wr, 1);
        if (!cmd)
            return c->err;
        cmd->u.opt.grad = c->w_grad[s];
        cmd->u.opt.state = c->w_mo[s];
        cmd->u.opt.wout = c->w_wout[s];
        cmd->bytes = params * 4;
        snprintf(cmd->label, HC_LABEL, "OPT_UPDATE L%u", l + 1);
    }
    static const enum hc_stream st[3] = {HC_S_W, HC_S_M, HC_S_O};
    uint64_t off = 0;
    for (int i = 0; i < 3; i++) {
        int *fl = st[i] == HC_S_W ? c->fl_w : st[i] == HC_S_M ? c->fl_m : c->fl_o;
        int rd[] = {c->wn_wout[s]}, wr[] = {fl[l]};
        cmd = emit(c, HC_FLASH_WR, HC_WN, HC_RES_WN_FLASH_WR, l, HC_BWD, HC_PH_OPTIMIZER, rd, 1, wr,
                   1);
        if (!cmd)
            return c->err;
        cmd->op = (uint8_t)st[i];
        cmd->u.fl.tb = c->w_wout[s] + off;
        cmd->u.fl.rec = l;
        cmd->bytes = c->p->rec_bytes[st[i]][l];
        off += hc_ru64(cmd->bytes, TB_ALIGN);
        snprintf(cmd->label, HC_LABEL, "FLASH_WR %s L%u", hc_stream_name(st[i]), l + 1);
    }
    return 0;
}

static int emit_state_read(struct cc *c, uint32_t l, uint32_t j)
{
    uint32_t s = j % 2;
    uint64_t off = 0;
    static const enum hc_stream st[2] = {HC_S_M, HC_S_O};
    for (int i = 0; i < 2; i++) {
        int *fl = st[i] == HC_S_M ? c->fl_m : c->fl_o;
        int rd[] = {fl[l]}, wr[] = {c->wn_mo[s]};
        struct hc_cmd *cmd = emit(c, HC_FLASH_RD, HC_WN, HC_RES_WN_FLASH_RD, l, HC_BWD,
                                  HC_PH_WEIGHT_FETCH, rd, 1, wr, 1);
        if (!cmd)
            return c->err;
        cmd->op = (uint8_t)st[i];
        cmd->u.fl.tb = c->w_mo[s] + off;
        cmd->u.fl.rec = l;
        cmd->bytes = c->p->rec_bytes[st[i]][l];
        off += hc_ru64(cmd->bytes, TB_ALIGN);
        snprintf(cmd->label, HC_LABEL, "FLASH_RD %s L%u", hc_stream_name(st[i]), l + 1);
    }
    return 0;
}

static int emit_program(struct cc *c)
{
    const struct hc_cfg *cfg = c->cfg;
    uint32_t N = cfg->n_an, L = c->L;
    uint32_t fwd_slot[DNN_MAX_LAYERS];

    for (uint32_t n = 0; n < N; n++)
        if (emit_input(c, n))
            return c->err;
    for (uint32_t l = 0; l < L; l++) {
        if (emit_weights(c, l, HC_FWD, &fwd_slot[l]))
            return c->err;
        for (uint32_t n = 0; n < N; n++)
            if (emit_forward_layer(c, n, l, fwd_slot[l]))
                return c->err;
    }
    if (cfg->eval) {
        for (uint32_t n = 0; n < N; n++) {
            int rd[] = {c->an_logits[n]}, wr[] = {c->an_cls[n]};
            struct hc_cmd *cmd = emit_vu(c, n, VU_ARGMAX, L - 1, HC_FWD, rd, 1, wr, 1);
            if (!cmd)
                return c->err;
            cmd->u.vu.src = c->a_logits;
            cmd->u.vu.dst = c->a_cls;
            cmd->u.vu.rows = c->r;
            cmd->u.vu.cols = cfg->model.layer[L - 1].out;
        }
        return c->err;
    }
    /* loss and dZ_L on every AN, the loss gathered */
    for (uint32_t n = 0; n < N; n++) {
        int rd[] = {c->an_logits[n], c->an_in[n]}, wr[] = {c->an_dz[n], c->an_loss[n]};
        struct hc_cmd *cmd = emit_vu(c, n, VU_LOSS, L - 1, HC_FWD, rd, 2, wr, 2);
        if (!cmd)
            return c->err;
        cmd->u.vu.src = c->a_logits;
        cmd->u.vu.src2 = c->a_in + (uint64_t)c->r * cfg->model.layer[0].in;
        cmd->u.vu.dst = c->a_dz;
        cmd->u.vu.dst2 = c->a_loss;
        cmd->u.vu.rows = c->r;
        cmd->u.vu.cols = cfg->model.layer[L - 1].out;
    }
    {
        int rd[HC_MAX_AN] = {0}, wr[] = {c->host_loss};
        for (uint32_t n = 0; n < N; n++)
            rd[n] = c->an_loss[n];
        struct hc_cmd *cmd = emit(c, HC_LOSS_GATHER, HC_WN, HC_RES_FABRIC_UP, L - 1, HC_FWD,
                                  HC_PH_REDUCE, rd, N, wr, 1);
        if (!cmd)
            return c->err;
        cmd->u.fab.src = c->a_loss;
        cmd->bytes = 4;
        snprintf(cmd->label, HC_LABEL, "LOSS_GATHER");
    }
    /* backward */
    for (uint32_t j = 0; j < L; j++) {
        uint32_t l = L - 1 - j, slot;
        if (l == L - 1 && cfg->keep_output_resident) {
            slot = fwd_slot[l];
        } else if (emit_weights(c, l, HC_BWD, &slot)) {
            return c->err;
        }
        if (emit_state_read(c, l, j))
            return c->err;
        for (uint32_t n = 0; n < N; n++)
            if (emit_backward_layer(c, n, l, slot, j % 2))
                return c->err;
        if (emit_update(c, l, j))
            return c->err;
    }
    return c->err;
}

/* ---------------------------------------------------------------- compile */

int hc_check_cfg(const struct hc_cfg *cfg, struct err *e)
{
    const struct core_params *k = &cfg->core;

    if (cfg->model.n_layers < 1 || cfg->model.n_layers > DNN_MAX_LAYERS)
        return err_set(e, -EINVAL, "model: %u layers; accepted 1..%u", cfg->model.n_layers,
                       DNN_MAX_LAYERS);
    if (cfg->n_an < 1 || cfg->n_an > HC_MAX_AN)
        return err_set(e, -EINVAL, "n_an = %u; accepted 1..%u Activation Nodes", cfg->n_an,
                       HC_MAX_AN);
    if (cfg->batch < 1 || cfg->batch % cfg->n_an)
        return err_set(e, -EINVAL,
                       "batch B = %u is not divisible by N = %u Activation Nodes; accepted a "
                       "multiple of N (each AN takes B / N rows)",
                       cfg->batch, cfg->n_an);
    if (cfg->batch / cfg->n_an > CORE_DIM_MAX)
        return err_set(e, -EINVAL, "rows per AN B / N = %u; accepted 1..%u", cfg->batch / cfg->n_an,
                       CORE_DIM_MAX);
    if (k->rows < 1 || k->rows > 64 || k->cols < 1 || k->cols > 64 || core_twin_w(k) > 64 ||
        k->a_words < 2 || k->b_words < 2 || k->c_words < 2)
        return err_set(e, -EINVAL,
                       "core %ux%u with pads of %u/%u/%u words: accepted rows and cols 1..64, "
                       "lcm(rows, cols, 4) <= 64, pads >= 2 words",
                       k->rows, k->cols, k->a_words, k->b_words, k->c_words);
    for (uint32_t l = 0; l < cfg->model.n_layers; l++) {
        const struct dnn_layer *ly = &cfg->model.layer[l];
        if (ly->in < 1 || ly->out < 1 || ly->in > CORE_DIM_MAX || ly->out > CORE_DIM_MAX)
            return err_set(e, -EINVAL, "layer %u: %u x %u; accepted widths 1..%u (core limit)",
                           l + 1, ly->in, ly->out, CORE_DIM_MAX);
        if (l && ly->in != cfg->model.layer[l - 1].out)
            return err_set(e, -EINVAL, "layer %u: %u inputs but layer %u has %u outputs", l + 1,
                           ly->in, l, cfg->model.layer[l - 1].out);
    }
    if (dnn_model_classes(&cfg->model) > 256)
        return err_set(e, -EINVAL, "model: %u classes; accepted 2..256 (labels are bytes)",
                       dnn_model_classes(&cfg->model));
    return 0;
}

/* The largest of each kind of tensor over the layers: one region serves every layer. */
struct tb_sizes {
    uint64_t max_in, max_out, max_w, max_stream, max_grad, max_state;
};

/* The bytes of each layer's flash stream records, and the largest tensors. */
static void size_records(struct cc *c, struct tb_sizes *z)
{
    const struct hc_cfg *cfg = c->cfg;
    const struct dnn_model *m = &cfg->model;
    uint32_t r = c->r;

    memset(z, 0, sizeof(*z));
    for (uint32_t l = 0; l < c->L; l++) {
        uint64_t params = dnn_model_layer_params(m, l);
        z->max_in = max64(z->max_in, m->layer[l].in);
        z->max_out = max64(z->max_out, m->layer[l].out);
        z->max_stream = max64(z->max_stream, layer_stream_bytes(m, l));
        z->max_grad = max64(z->max_grad, params * 4);
        z->max_state =
            max64(z->max_state, hc_ru64(params * 4, TB_ALIGN) * (1 + cfg->opt_state_words));
        c->p->rec_bytes[HC_S_W][l] = layer_stream_bytes(m, l);
        c->p->rec_bytes[HC_S_M][l] = params * 4;
        c->p->rec_bytes[HC_S_O][l] = params * 4 * cfg->opt_state_words;
        c->p->rec_bytes[HC_S_V][l] = (uint64_t)r * m->layer[l].in * 2;
    }
    c->p->rec_bytes[HC_S_NV][0] = (uint64_t)r * m->layer[0].in + r;
    z->max_w = max64(z->max_in, z->max_out);
}

/* Every AN's tensor buffer (the same map on each): weight slots, inputs, activations,
 * gradients. */
static void alloc_an_tb(struct cc *c, const struct tb_sizes *z)
{
    const struct dnn_model *m = &c->cfg->model;
    uint32_t r = c->r;
    char name[24];

    c->a_w[0] = tb_alloc(c, false, "wslot0", z->max_stream);
    c->a_w[1] = tb_alloc(c, false, "wslot1", z->max_stream);
    c->a_in = tb_alloc(c, false, "input", c->p->rec_bytes[HC_S_NV][0]);
    for (uint32_t l = 0; l < c->L; l++) {
        snprintf(name, sizeof(name), "x%u", l + 1);
        c->a_x[l] = tb_alloc(c, false, name, (uint64_t)r * m->layer[l].in * 2);
    }
    c->a_y = tb_alloc(c, false, "y", (uint64_t)r * z->max_w * 4);
    c->a_logits = tb_alloc(c, false, "logits", (uint64_t)r * dnn_model_classes(m) * 4);
    c->a_dz = tb_alloc(c, false, "dz", (uint64_t)r * z->max_w * 4);
    c->a_g = tb_alloc(c, false, "g", (uint64_t)r * z->max_out * 2);
    c->a_xr[0] = tb_alloc(c, false, "xread0", (uint64_t)r * z->max_in * 2);
    c->a_xr[1] = tb_alloc(c, false, "xread1", (uint64_t)r * z->max_in * 2);
    c->a_dw[0] = tb_alloc(c, false, "grad0", z->max_grad);
    c->a_dw[1] = tb_alloc(c, false, "grad1", z->max_grad);
    c->a_loss = tb_alloc(c, false, "loss", 4);
    c->a_cls = tb_alloc(c, false, "classes", r);
}

/* The WN's tensor buffer: weight slots, reduced gradients, optimizer state, write-back. */
static void alloc_wn_tb(struct cc *c, const struct tb_sizes *z)
{
    c->w_w[0] = tb_alloc(c, true, "wslot0", z->max_stream);
    c->w_w[1] = tb_alloc(c, true, "wslot1", z->max_stream);
    c->w_grad[0] = tb_alloc(c, true, "grad0", z->max_grad);
    c->w_grad[1] = tb_alloc(c, true, "grad1", z->max_grad);
    c->w_mo[0] = tb_alloc(c, true, "state0", z->max_state);
    c->w_mo[1] = tb_alloc(c, true, "state1", z->max_state);
    c->w_wout[0] = tb_alloc(c, true, "wback0", hc_ru64(z->max_stream, TB_ALIGN) + z->max_state);
    c->w_wout[1] = tb_alloc(c, true, "wback1", hc_ru64(z->max_stream, TB_ALIGN) + z->max_state);
}

/* The scoreboard buffers of one AN: its tensors, its pad halves, its flash records. */
static void new_an_buffers(struct cc *c, uint32_t n)
{
    c->an_in[n] = buf_new(c);
    for (uint32_t l = 0; l < c->L; l++) {
        c->an_x[n][l] = buf_new(c);
        c->fl_x[n][l] = buf_new(c);
    }
    c->an_y[n] = buf_new(c);
    c->an_logits[n] = buf_new(c);
    c->an_dz[n] = buf_new(c);
    c->an_g[n] = buf_new(c);
    c->an_loss[n] = buf_new(c);
    c->an_cls[n] = buf_new(c);
    c->fl_in[n] = buf_new(c);
    c->core_port[n] = buf_new(c);
    for (int s = 0; s < 2; s++) {
        c->an_xr[n][s] = buf_new(c);
        c->an_w[n][s] = buf_new(c);
        c->an_dw[n][s] = buf_new(c);
        c->pad_a[n][s] = buf_new(c);
        c->pad_b[n][s] = buf_new(c);
        c->pad_c[n][s] = buf_new(c);
    }
}

/* The scoreboard buffers of the WN, of its flash records and of the host. */
static void new_wn_buffers(struct cc *c)
{
    for (int s = 0; s < 2; s++) {
        c->wn_w[s] = buf_new(c);
        c->wn_grad[s] = buf_new(c);
        c->wn_mo[s] = buf_new(c);
        c->wn_wout[s] = buf_new(c);
    }
    for (uint32_t l = 0; l < c->L; l++) {
        c->fl_w[l] = buf_new(c);
        c->fl_m[l] = buf_new(c);
        c->fl_o[l] = buf_new(c);
    }
    c->host_loss = buf_new(c);
}

static void alloc_all(struct cc *c)
{
    struct tb_sizes z;

    size_records(c, &z);
    alloc_an_tb(c, &z);
    alloc_wn_tb(c, &z);
    c->p->an_in = c->a_in;
    c->p->an_logits = c->a_logits;
    c->p->an_cls = c->a_cls;
    c->p->an_loss = c->a_loss;
    for (uint32_t n = 0; n < c->cfg->n_an; n++)
        new_an_buffers(c, n);
    new_wn_buffers(c);
}

int hc_compile(const struct hc_cfg *cfg, struct hc_prog **out, struct err *e)
{
    struct cc *c;
    int rc;

    *out = NULL;
    rc = hc_check_cfg(cfg, e);
    if (rc)
        return rc;
    c = calloc(1, sizeof(*c));
    if (!c)
        return err_set(e, -ENOMEM, "compile: out of memory");
    c->p = calloc(1, sizeof(*c->p));
    if (!c->p) {
        free(c);
        return err_set(e, -ENOMEM, "compile: out of memory");
    }
    c->cfg = cfg;
    c->e = e;
    c->p->cfg = *cfg;
    c->r = cfg->batch / cfg->n_an;
    c->L = cfg->model.n_layers;
    c->p->rows = c->r;
    c->p->n_layers = c->L;
    for (int st = 0; st < HC_N_STREAMS; st++)
        c->p->n_rec[st] = c->L; /* a stream's record of layer l is record l */
    c->p->n_res = HC_RES_FIXED + cfg->n_an * HC_RES_AN_N;
    c->w = core_twin_w(&cfg->core);
    core_twin_map(&cfg->core, &c->map);
    c->a_half = (uint32_t)(c->map.a_elems / 2 / c->w * c->w);
    c->b_half = (uint32_t)(c->map.b_elems / 2 / c->w * c->w);
    c->c_half = (uint32_t)(c->map.c_elems / 2 / c->w * c->w);

    alloc_all(c);
    if (!c->err)
        emit_program(c);
    rc = c->err;
    if (rc == -ENOMEM)
        err_set(e, rc, "compile: out of memory");
    for (uint32_t i = 0; i < c->n_buf; i++)
        free(c->buf[i].rd);
    free(c->buf);
    if (rc) {
        hc_prog_free(c->p);
        free(c);
        return rc;
    }
    *out = c->p;
    free(c);
    return 0;
}

void hc_prog_free(struct hc_prog *p)
{
    if (!p)
        return;
    free(p->cmd);
    free(p->deps);
    for (int st = 0; st < HC_N_STREAMS; st++)
        free(p->rec_size[st]);
    free(p);
}
