/*
 * compile_gemm.c - the host compiler's GEMM tiler: tile sizes and scratchpad layouts of a GEMM
 * (hc_plan_gemm), and the DMA loads, core GEMMs and DMA stores of its tiles (hc_emit_gemm); see
 * compile.h.
 */
#include "models/host/compile_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const gemm_names[] = {"Y", "dW", "dX"};

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

const char *hc_pass_short(enum hc_pass p)
{
    return p == HC_FWD ? "fwd" : "bwd";
}

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
    cmd = hc_emit(c, HC_DMA_IN, an, hc_res_an(an, HC_RES_AN_DMA), gm->layer, gm->pass,
                  HC_PH_COMPUTE, rd, 1, wr, 1);
    if (!cmd)
        return c->err;
    panel_desc(o, is_b ? pl->b_lay : pl->a_lay, p0, cnt, gm->K,
               sram + (uint64_t)*half * half_elems * 2, is_b ? tl->ldb : tl->lda, &cmd->u.dma);
    cmd->op = (uint8_t)gm->g;
    cmd->tile = tl->t;
    cmd->bytes = (uint64_t)cnt * gm->K * 2;
    snprintf(cmd->label, HC_LABEL, "DMA_IN L%u %s %s t%u %c", gm->layer + 1,
             hc_pass_short(gm->pass), gemm_names[gm->g], tl->t, is_b ? 'B' : 'A');
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
    cmd = hc_emit(c, HC_GEMM, an, hc_res_an(an, HC_RES_AN_CORE), gm->layer, gm->pass, HC_PH_COMPUTE,
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
             hc_pass_short(gm->pass), gemm_names[gm->g], tl->t, tl->mc, tl->nc, gm->K);
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
    struct hc_cmd *cmd = hc_emit(c, HC_DMA_OUT, an, hc_res_an(an, HC_RES_AN_DMA), gm->layer,
                                 gm->pass, HC_PH_COMPUTE, rd, 2, wr, 1);

    if (!cmd)
        return c->err;
    cmd->u.dma = st->d;
    cmd->op = (uint8_t)gm->g;
    cmd->tile = st->tile;
    cmd->bytes = st->bytes;
    snprintf(cmd->label, HC_LABEL, "DMA_OUT L%u %s %s t%u C", gm->layer + 1,
             hc_pass_short(gm->pass), gemm_names[gm->g], st->tile);
    st->valid = false;
    return 0;
}

/*
 * Emit the tiles of one GEMM. Per tile, in the DMA queue's order: the A and B panels it does
 * not share with the tile before (they load while the tile before computes), the store of the
 * tile before (between the two GEMMs: the core's DMA port reads no pad while a command runs),
 * then its GEMM; the last store after the last tile.
 */
int hc_emit_gemm(struct cc *c, const struct gemm *gm)
{
    struct plan pl;
    struct held_store st = {.valid = false};
    uint32_t prev_m = UINT32_MAX, prev_n = UINT32_MAX, ha = 0, hb = 0;
    int rc = hc_plan_gemm(c, gm->M, gm->N, gm->K, &pl, c->e);

    if (rc) {
        c->err = err_prefix(c->e, rc, "layer %u %s %s", gm->layer + 1, hc_pass_short(gm->pass),
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
