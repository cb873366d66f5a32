#include "models/host/compile_zoo_priv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/core/core_twin.h"
#include "models/host/zoo_live.h"

int zc_fail(struct zc *z, int rc, const char *fmt, ...)
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

bool zc_grow(struct zc *z, void **v, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap : 1024;
    while (n < need)
        n *= 2;
    void *q = realloc(*v, (size_t)n * elem);
    if (!q) {
        zc_fail(z, -ENOMEM, "out of memory");
        return false;
    }
    *v = q;
    *cap = n;
    return true;
}

/* ---------------------------------------------------------------- commands */

uint32_t zc_emit(struct zc *z, enum hc_kind kind, uint32_t node, uint32_t res, enum hc_phase phase,
                 uint64_t bytes, uint64_t cycles, const char *fmt, ...)
{
    struct hc_prog *p = z->p;
    if (z->err || !zc_grow(z, (void **)&p->cmd, &z->cap_cmd, p->n_cmd + 1, sizeof(*p->cmd)))
        return NONE;
    uint32_t id = p->n_cmd++;
    struct hc_cmd *c = &p->cmd[id];
    memset(c, 0, sizeof(*c));
    c->id = id;
    c->kind = (uint8_t)kind;
    c->node = (uint16_t)node;
    c->res = res;
    c->layer = (uint16_t)z->layer;
    c->pass = (uint8_t)z->pass;
    c->phase = (uint8_t)phase;
    c->bytes = bytes;
    c->cycles = cycles;
    c->dep0 = p->n_deps;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->label, sizeof(c->label), fmt, ap);
    va_end(ap);
    return id;
}

/* A dependency of the command emitted last (NONE: none). */
void zc_dep(struct zc *z, uint32_t id, uint32_t on)
{
    struct hc_prog *p = z->p;
    if (z->err || on == NONE || id == NONE)
        return;
    if (!zc_grow(z, (void **)&p->deps, &z->cap_deps, p->n_deps + 1, sizeof(*p->deps)))
        return;
    p->deps[p->n_deps++] = on;
    p->cmd[id].ndep++;
}

/* The same command on every AN, ids first .. first + N - 1; AN n depends on member n of each
 * group in on[] (NONE entries skipped) and on the node-wide command `shared` (NONE: none).
 * Returns the group's first id. */
static uint32_t an_group(struct zc *z, enum hc_kind kind, enum hc_res_an r, enum hc_phase phase,
                         uint64_t bytes, uint64_t cycles, const uint32_t *on, size_t n_on,
                         uint32_t shared, const char *label)
{
    uint32_t first = NONE;
    for (uint32_t n = 0; n < z->N; n++) {
        uint32_t id = zc_emit(z, kind, n, hc_res_an(n, r), phase, bytes, cycles, "%s", label);
        if (n == 0)
            first = id;
        for (size_t i = 0; i < n_on; i++)
            zc_dep(z, id, on[i] == NONE ? NONE : on[i] + n);
        zc_dep(z, id, shared);
    }
    return first;
}

/* A WN or fabric command depending on member n of group g for every AN. */
void zc_dep_all_an(struct zc *z, uint32_t id, uint32_t g)
{
    if (g != NONE)
        for (uint32_t n = 0; n < z->N; n++)
            zc_dep(z, id, g + n);
}

/* ---------------------------------------------------------------- timing */

/* Share i of total over n parts (the parts sum to total). */
uint64_t zc_share(uint64_t total, uint32_t i, uint32_t n)
{
    return total / n + (i < total % n);
}

/* ---------------------------------------------------------------- operations */

/* The V records of a saved tensor of `bytes` a core: one, or as many pieces as it takes for a
 * piece to be at most half the AN's buffer (the credits let two saves be in flight there), so a
 * tensor too large to pass whole streams to flash and back piece by piece. */
static uint32_t v_pieces(const struct zc *z, uint64_t bytes)
{
    uint64_t all = bytes * z->cfg->cores, half = z->cfg->tb_size_bytes / 2;
    return half && all > half ? (uint32_t)hz_ceil_div(all, half) : 1;
}

/* The first V record of saved tensor `name` and (n) its pieces; NONE if none. */
static uint32_t v_record(struct zc *z, const struct opctx *o, const char *name,
                         enum zoo_block_kind owner, uint32_t *n)
{
    if (owner != o->b->kind) {
        for (uint32_t i = 0; i < z->n_x; i++)
            if (!strcmp(z->x[i].name, name)) {
                *n = z->x[i].n;
                return z->x[i].rec;
            }
        return NONE;
    }
    uint32_t rec = o->vbase;
    for (uint32_t i = 0; i < o->b->n_saved; i++) {
        *n = v_pieces(z, o->b->saved[i].bytes);
        if (!strcmp(o->b->saved[i].name, name))
            return rec;
        rec += *n;
    }
    return NONE;
}

/* Dependencies of an operation reading `name` (saved: its LOAD, the last piece's). */
static uint32_t saved_dep(struct zc *z, const struct opctx *o, const char *name)
{
    uint32_t n = 1, r = v_record(z, o, name, o->b->kind, &n);
    if (r == NONE)
        r = v_record(z, o, name, ZOO_BLOCK_ENC_NORM, &n);
    return r == NONE ? NONE : z->v_rd[r + n - 1];
}

/* The weight operand: streamed (matrix or the layer's vectors), its slot marked as used;
 * by_piece: its broadcast left to the streamed GEMM that takes it (bcast_piece). */
static struct wslot *weight_for(struct zc *z, const struct opctx *o, const char *name,
                                bool by_piece)
{
    bool vec = false, tied = false;
    uint32_t rec = zc_find_weight(z, o->b, z->layer, name, &vec, &tied);
    if (vec)
        rec = z->w_rec[z->layer + 1] - 1; /* the vector record is the layer's last */
    else if (tied)
        rec = zc_owner_rec(z, z->layer, name);
    if (rec == NONE) {
        zc_fail(z, -EINVAL, "layer %u: weight '%s' is not in any block", z->layer + 1, name);
        return NULL;
    }
    bool pieces = by_piece && !vec;
    if (!pieces && z->p->rec_size[HC_S_W][rec] > z->w_max) /* whole, in one of two slots */
        z->w_max = z->p->rec_size[HC_S_W][rec];
    struct wslot *ws = zc_stream_weight(z, rec, vec ? "vectors" : name, vec, pieces);
    if (z->store.on) /* the updates waiting for the next weight (defer_update) */
        z->store.updates = true;
    else
        zc_flush_updates(z);
    return ws;
}

/* Piece i of a GEMM on every AN: loads, compute, store, double-buffered in the pads. */
struct pieces {
    uint32_t in[HZ_MAX_PIECES], gemm[HZ_MAX_PIECES], out[HZ_MAX_PIECES];
};

/* Tensor `name` made by pieces[0 .. n) (n 1: by one command, or usable only whole). */
static void made_by(struct zc *z, const char *name, const uint32_t *pieces, uint32_t n, bool rows)
{
    struct made *m = &z->made[z->made_next++ % (sizeof(z->made) / sizeof(z->made[0]))];
    *m = (struct made){.name = name, .n = n, .rows = rows, .op = z->op};
    memcpy(m->piece, pieces, n * sizeof(pieces[0]));
}

/* What made tensor `name` in this pass (a part "qkv.v" of "qkv" too); NULL: not known. */
static const struct made *made_of(const struct zc *z, const char *name)
{
    const uint32_t N = sizeof(z->made) / sizeof(z->made[0]);
    if (!name)
        return NULL;
    size_t dot = strcspn(name, ".");
    for (uint32_t i = 1; i <= N && i <= z->made_next; i++) {
        const struct made *m = &z->made[(z->made_next - i) % N];
        if (!strcmp(m->name, name) || (strlen(m->name) == dot && !strncmp(m->name, name, dot)))
            return m;
    }
    return NULL;
}

/* The command after which instances k of n pieces of tensor m are there. */
static uint32_t made_piece(const struct made *m, uint32_t k, uint32_t n)
{
    return m->n == n && m->rows ? m->piece[k] : m->piece[m->n - 1];
}

static bool made_operand(enum zoo_operand r)
{
    return r == ZOO_OPND_ACT || r == ZOO_OPND_GRAD;
}

static void tag_gemm(struct zc *z, uint32_t group, const struct zoo_gemm *g, bool banked)
{
    for (uint32_t n = 0; n < z->N && group != NONE && !z->err; n++) {
        z->p->cmd[group + n].op = (uint8_t)g->kind;
        z->p->cmd[group + n].sub = (uint8_t)g->role;
        z->p->cmd[group + n].banked = banked;
    }
}

/* What the report keeps of a GEMM: its class's choices and bytes, the layer's SRAM. */
static void note_gemm(struct zc *z, const struct zoo_gemm *g, const struct hz_gemm_cost *gc)
{
    struct hz_gemm_class *k = &z->rep->cls[g->kind][g->role];
    k->ops[gc->flow]++;
    if (gc->chunks > k->chunks_max)
        k->chunks_max = gc->chunks;
    if (gc->held > k->sram_held)
        k->sram_held = gc->held;
    for (int r = 0; r < HZ_OPND_CLASSES; r++)
        k->tb_bytes[r] += gc->tb_class[r];
    k->sram_traffic += gc->sram;
    if (gc->held > z->sram_now)
        z->sram_now = gc->held;
    if (gc->flow == HZ_STREAM)
        z->held[z->op] = gc->held;
    z->stream_layer |= gc->flow == HZ_STREAM;
}

/* A GEMM piece's store into the buffer and, for a streamed gradient, its reduce to the WN (its
 * id in *red); returns the store's group (NONE: none). */
static uint32_t store_piece(struct zc *z, const struct store *s, uint32_t *red)
{
    uint32_t out = NONE;
    if (s->out) {
        char lb[HC_LABEL];
        snprintf(lb, sizeof(lb), "DMA_OUT L%u %s %s p%u", z->layer + 1,
                 zoo_gemm_kind_name(s->g->kind), zoo_gemm_role_name(s->g->role), s->k);
        /* a gradient piece has room in the buffer once the piece two before is reduced */
        uint32_t oo[2] = {s->gemm, NONE};
        out = an_group(z, HC_DMA_OUT, HC_RES_AN_DMA, HC_PH_COMPUTE, s->tb_bytes, s->cycles, oo, 2,
                       s->wname ? zc_credit_oldest(z->g_credit) : NONE, lb);
        tag_gemm(z, out, s->g, s->banked);
    }
    if (s->wname) {
        *red = zc_emit(z, HC_FABRIC_REDUCE, HC_WN, HC_RES_FABRIC_UP, HC_PH_REDUCE, s->red_bytes, 0,
                       "REDUCE L%u %s p%u", z->layer + 1, s->wname, s->k);
        zc_dep_all_an(z, *red, s->out ? out : s->gemm);
        zc_dep(z, *red, s->red_after);
        zc_credit_push(z->g_credit, *red);
        z->reduced = *red;
    }
    return out;
}

/* The store held back (struct zc's store), and the updates that waited for it. */
static void flush_store(struct zc *z)
{
    if (!z->store.on)
        return;
    struct store s = z->store;
    uint32_t layer = z->layer, reduced = z->reduced, red = NONE;
    z->store.on = false;
    z->layer = s.layer;
    store_piece(z, &s, &red);
    z->layer = layer;
    for (uint32_t i = 0; i < z->n_pend; i++)
        if (z->pend[i].reduced == ZC_LATER)
            z->pend[i].reduced = red;
    z->reduced = reduced == ZC_LATER ? red : reduced;
    if (s.updates)
        zc_flush_updates(z);
}

static void op_gemm(struct zc *z, const struct opctx *o, const struct zoo_gemm *g, uint64_t live)
{
    const struct zoo_opnd *opnd[2] = {&g->a, &g->b};
    uint32_t on[3] = {z->last, NONE, NONE}, bcast = NONE;
    struct wslot *ws = NULL;
    struct hz_gemm_cost gc;
    struct pieces pc;
    char lb[HC_LABEL];

    int rc = hz_gemm_cost(z->cfg, g, live, &gc, z->e);
    if (rc) {
        z->err = rc;
        return;
    }
    note_gemm(z, g, &gc);
    bool pads = gc.flow == HZ_TILED;
    /* a weight streams piece by piece into a streamed GEMM, and into an experts' GEMM in
     * either dataflow (a piece is some experts' weights, which only their instances read) */
    bool by_piece = !pads || g->experts;
    const char *w_in = NULL; /* the weight operand's name */
    for (int i = 0; i < 2; i++) {
        if (opnd[i]->role == ZOO_OPND_WEIGHT && (ws = weight_for(z, o, opnd[i]->name, by_piece))) {
            bcast = ws->bcast;
            w_in = opnd[i]->name;
        } else if (opnd[i]->role == ZOO_OPND_SAVED) {
            on[1 + i] = saved_dep(z, o, opnd[i]->name);
        }
    }
    /* a streamed weight not yet broadcast goes piece by piece; so does a streamed gradient */
    bool w_pieces = ws && bcast == NONE, g_pieces = by_piece && g->c.role == ZOO_OPND_WGRAD;
    uint32_t wrec = NONE;
    const char *wname = NULL;
    if (g_pieces) {
        bool v, t;
        wname = g->c.name;
        wrec = zc_find_weight(z, o->b, z->layer, wname, &v, &t);
        g_pieces = wrec != NONE && !v && !t;
    }
    /* the core's port rule: the C-pad is read out only while no command runs (the scaled core's
     * SRAM is banked: the DMA reads one bank while the array fills another); a streamed GEMM
     * whose operands are all resident moves nothing, so it has no DMA of its own */
    bool has_in = pads || gc.dma_in, has_out = pads || gc.dma_out;
    if (!w_pieces || !has_in) /* no weight loads to go before the held-back store */
        flush_store(z);
    z->reduced = NONE;
    if (g->c.role == ZOO_OPND_WGRAD && bcast == NONE) { /* the gradient slot it fills */
        zc_flush_updates(z);
        bcast = z->gs[z->g_next].reduce;
    }
    /* an experts' GEMM goes expert by expert (up to HZ_MAX_PIECES pieces): a piece of a
     * mixture's stacked weights is a few experts', not a quarter of them all */
    uint32_t P = z->cfg->pieces;
    if (g->experts && g->count > P)
        P = (uint32_t)(g->count < HZ_MAX_PIECES ? g->count : HZ_MAX_PIECES);
    if (gc.tiles < P)
        P = (uint32_t)(gc.tiles ? gc.tiles : 1);
    const char *kn = zoo_gemm_kind_name(g->kind), *rn = zoo_gemm_role_name(g->role);
    uint32_t red[HZ_MAX_PIECES];
    /* an attention GEMM whose input came piece by piece (whole instances) follows it so */
    const struct made *from[2] = {NULL, NULL};
    bool follow = !pads && !ws && !has_in && g->count % P == 0;
    bool pieced = false;
    for (int i = 0; i < 2 && follow; i++) {
        if (!made_operand(opnd[i]->role))
            continue;
        from[i] = made_of(z, opnd[i]->name);
        follow = from[i] != NULL;
        pieced |= follow && from[i]->n == P && from[i]->rows;
    }
    follow &= pieced;
    /* program order on the DMA: in0, in1, out0, in2, out1, ...: loads run one piece ahead */
    for (uint32_t i = 0; i <= P; i++) {
        if (i < P) {
            pc.in[i] = NONE;
            if (w_pieces)
                bcast = zc_bcast_piece(z, ws, i, P, w_in);
            if (has_in) {
                snprintf(lb, sizeof(lb), "DMA_IN L%u %s %s p%u", z->layer + 1, kn, rn, i);
                /* a load into a pad or panel buffer waits for the GEMM two pieces back (of
                 * this GEMM, or a streamed weight's of the one before) to free it; a tiled
                 * GEMM's operands are the operation before's output */
                uint32_t lo[4] = {on[0], on[1], on[2], i >= 2 ? pc.gemm[i - 2] : NONE};
                if (w_pieces) {
                    lo[0] = lo[1] = lo[2] = NONE;
                    if (i < 2)
                        lo[3] = z->panel[i];
                }
                pc.in[i] =
                    an_group(z, HC_DMA_IN, HC_RES_AN_DMA, HC_PH_COMPUTE, zc_share(gc.tb_in, i, P),
                             zc_share(gc.dma_in, i, P), lo, 4, bcast, lb);
                tag_gemm(z, pc.in[i], g, !pads);
            }
            if (w_pieces)
                zc_credit_push(z->w_credit, pc.in[i]);
            if (i == (P < 2 ? 0 : 1)) /* the loads of this GEMM's first two pieces are queued */
                flush_store(z);
        }
        if (i == 0)
            continue;
        uint32_t k = i - 1;
        snprintf(lb, sizeof(lb), "GEMM L%u %s %s p%u", z->layer + 1, kn, rn, k);
        uint32_t go[5] = {pc.in[k], pads && k >= 1 ? pc.out[k - 1] : NONE, NONE, NONE, NONE};
        if (!has_in || w_pieces)
            memcpy(&go[2], on, sizeof(on));
        if (follow) { /* its inputs' pieces instead of the operation before */
            for (int s = 0; s < 2; s++)
                go[s] = from[s] ? made_piece(from[s], k, P) : NONE;
            go[2] = NONE;
        }
        pc.gemm[k] = an_group(z, HC_GEMM, HC_RES_AN_CORE, HC_PH_COMPUTE, 0, zc_share(gc.core, k, P),
                              go, 5, has_in ? NONE : bcast, lb);
        tag_gemm(z, pc.gemm[k], g, !pads);
        struct store st = {.out = has_out,
                           .banked = !pads,
                           .g = g,
                           .layer = z->layer,
                           .gemm = pc.gemm[k],
                           .k = k,
                           .tb_bytes = zc_share(gc.tb_out, k, P),
                           .cycles = zc_share(gc.dma_out, k, P)};
        if (g_pieces) {
            st.wname = wname;
            st.red_bytes = zc_share(4 * zc_rec_params(z, wrec), k, P);
            st.red_after = k ? red[k - 1] : z->gs[z->g_next].update; /* the WN's slot */
            if (st.red_bytes > z->g_piece)
                z->g_piece = st.red_bytes;
        }
        if (k + 1 == P && has_out && !pads) { /* the next GEMM's loads go first */
            st.on = true;
            z->store = st;
            if (g_pieces)
                z->reduced = ZC_LATER;
        } else {
            pc.out[k] = store_piece(z, &st, &red[k]);
        }
    }
    if (ws)
        ws->user = pc.gemm[P - 1];
    if (w_pieces) { /* the panel buffers this GEMM frees last */
        z->panel[0] = P >= 2 ? pc.gemm[P - 2] : pc.gemm[P - 1];
        z->panel[1] = pc.gemm[P - 1];
    }
    /* what comes next waits for a tiled GEMM's tiles in the buffer, a streamed one's array */
    z->last = has_out && pads ? pc.out[P - 1] : pc.gemm[P - 1];
    if (!pads && !has_out)
        made_by(z, g->c.name, pc.gemm, P, !ws && g->count % P == 0);
    else
        made_by(z, g->c.name, &z->last, 1, false);
}

static bool exp_class(enum zoo_vec_kind k)
{
    return k == ZOO_VEC_SOFTMAX || k == ZOO_VEC_SOFTMAX_BWD || k == ZOO_VEC_GELU ||
           k == ZOO_VEC_GELU_BWD || k == ZOO_VEC_LOSS || k == ZOO_VEC_SWIGLU ||
           k == ZOO_VEC_SWIGLU_BWD /* SiLU's sigmoid */ || k == ZOO_VEC_ROUTE ||
           k == ZOO_VEC_ROUTE_BWD || k == ZOO_VEC_LOGSUMEXP;
}

/* An operation on each element by itself (the others work on whole rows). */
static bool elementwise(enum zoo_vec_kind k)
{
    return k == ZOO_VEC_GELU || k == ZOO_VEC_GELU_BWD || k == ZOO_VEC_RELU ||
           k == ZOO_VEC_RELU_BWD || k == ZOO_VEC_ADD || k == ZOO_VEC_ROPE ||
           k == ZOO_VEC_ROPE_BWD || k == ZOO_VEC_SWIGLU || k == ZOO_VEC_SWIGLU_BWD ||
           k == ZOO_VEC_DISPATCH || k == ZOO_VEC_DISPATCH_BWD || k == ZOO_VEC_COMBINE ||
           k == ZOO_VEC_COMBINE_BWD;
}

/*
 * A vector operation. Behind the streamed GEMM that made its input, piece by piece (each piece
 * a command of its own, with the unit's latency), so that the unit works on one piece while the
 * array makes the next, and waiting for nothing the program ran after that GEMM (the array
 * goes on with it) if SRAM holds the operation's output beside what those hold. A row
 * operation does so only when each piece holds whole rows.
 */
static void op_vec(struct zc *z, const struct opctx *o, const struct zoo_vec *v)
{
    const struct vu_cfg *vu = &z->cfg->vu;
    uint64_t cost = exp_class(v->kind) ? vu->cost_exp : 1;
    uint64_t work = hz_ceil_div(v->rows * v->cols * cost, vu->lanes);
    uint32_t saved2 = v->in2 ? saved_dep(z, o, v->in2) : NONE;
    uint32_t on[3] = {z->last, saved_dep(z, o, v->in), saved2};
    struct wslot *ws = v->weight ? weight_for(z, o, v->weight, false) : NULL;
    const struct made *in = made_of(z, v->in), *in2 = made_of(z, v->in2);
    bool behind = !ws && in && in->n > 1 && (elementwise(v->kind) || in->rows) &&
                  (!v->in2 || in2 || saved2 != NONE);
    char lb[HC_LABEL];

    if (behind) {
        /* the SRAM it needs beside the operations it overlaps: its output beside those after
         * the GEMM; a row operation, two more heads (one being made, one being read) */
        uint64_t bytes = zoo_live_vec_bytes(v, z->cfg->model->shape.seq), need = z->held[z->op];
        for (uint32_t j = in->op + 1; j < z->op; j++)
            need = z->held[j] + bytes > need ? z->held[j] + bytes : need;
        need += in->rows ? 2 * bytes : 0;
        if (z->cfg->sram_bytes && need > z->cfg->sram_bytes)
            behind = false;
        else if (need > z->sram_now)
            z->sram_now = need;
        if (behind) /* after the GEMM's pieces, not after what followed them */
            on[0] = in2 ? in2->piece[in2->n - 1] : NONE;
        if (behind && on[1] == in->piece[in->n - 1]) /* a loaded input: after its parts */
            on[1] = NONE;
    }
    uint32_t P = behind ? in->n : 1, g = NONE;
    for (uint32_t k = 0; k < P && !z->err; k++) {
        int len = snprintf(lb, sizeof(lb), "VU L%u %s%s", z->layer + 1, zoo_vec_kind_name(v->kind),
                           v->recompute ? " again" : "");
        if (behind)
            snprintf(lb + len, sizeof(lb) - (size_t)len, " p%u", k);
        uint32_t after[4] = {on[0], on[1], on[2], behind ? in->piece[k] : NONE};
        g = an_group(z, HC_VU, HC_RES_AN_VU, HC_PH_COMPUTE, 0, vu->latency + zc_share(work, k, P),
                     after, 4, ws ? ws->bcast : NONE, lb);
        for (uint32_t n = 0; n < z->N && g != NONE && !z->err; n++)
            z->p->cmd[g + n].op = (uint8_t)v->kind;
        z->pieces[k] = g;
    }
    if (ws)
        ws->user = g;
    z->last = g;
    made_by(z, v->out, z->pieces, P, behind && in->rows);
}

/* A saved tensor of `bytes` (all the AN's cores) between SRAM and the buffer: each core's
 * share at its DMA's width, or the buffer's rate for all of them. */
static uint64_t act_dma_cycles(const struct zc *z, uint64_t bytes)
{
    uint64_t w = z->cfg->dma_bytes_per_cycle ? z->cfg->dma_bytes_per_cycle : CORE_DMA_BEAT;
    uint64_t core = hz_ceil_div(hz_ceil_div(bytes, z->cfg->cores), w);
    uint64_t tb = (uint64_t)ceil((double)bytes / hz_tb_bytes_per_cycle(z->cfg));
    return core > tb ? core : tb;
}

/* An activation's DMA: on the banked SRAM, and no GEMM's (op past the GEMM kinds). */
static void mark_banked(struct zc *z, uint32_t group)
{
    for (uint32_t n = 0; n < z->N && group != NONE && !z->err; n++) {
        z->p->cmd[group + n].banked = true;
        z->p->cmd[group + n].op = ZOO_GEMM_KINDS;
    }
}

/*
 * A saved tensor's move between the cores' SRAM and the buffer on the activations' DMA queue,
 * in as many parts as a GEMM has pieces (each part one claim on the buffer, so a weight's load
 * waits for one part, not the tensor), the first after on[], each next after the one before;
 * their groups in parts[], their number returned.
 */
static uint32_t act_dma(struct zc *z, enum hc_kind kind, enum hc_phase phase, uint64_t bytes,
                        const uint32_t *on, size_t n_on, const char *label, uint32_t *parts)
{
    uint32_t P = bytes >= z->cfg->pieces ? z->cfg->pieces : 1;
    char lb[HC_LABEL];
    for (uint32_t k = 0; k < P && !z->err; k++) {
        if (P > 1)
            snprintf(lb, sizeof(lb), "%s c%u", label, k);
        else
            snprintf(lb, sizeof(lb), "%s", label);
        uint64_t part = zc_share(bytes, k, P);
        parts[k] = an_group(z, kind, HC_RES_AN_DMA_ACT, phase, part, act_dma_cycles(z, part),
                            k ? &parts[k - 1] : on, k ? 1 : n_on, NONE, lb);
        mark_banked(z, parts[k]);
    }
    return P;
}

static void grow_v(struct zc *z, uint32_t need)
{
    uint32_t cap = z->cap_v;
    if (!zc_grow(z, (void **)&z->v_wr, &cap, need, sizeof(uint32_t)))
        return;
    cap = z->cap_v;
    if (!zc_grow(z, (void **)&z->v_rd, &cap, need, sizeof(uint32_t)))
        return;
    z->cap_v = cap;
}

/* SAVE: every AN appends the tensor of its cores to its V stream (in pieces, v_pieces). */
static void op_save(struct zc *z, const struct opctx *o, const struct zoo_xfer *x)
{
    uint64_t all = x->bytes * z->cfg->cores;
    uint32_t n = v_pieces(z, x->bytes), first = z->p->n_rec[HC_S_V];
    char lb[HC_LABEL];

    for (uint32_t k = 0; k < n && !z->err; k++) {
        uint64_t bytes = zc_share(all, k, n);
        uint32_t rec = zc_new_rec(z, HC_S_V, bytes);
        grow_v(z, rec + 1);
        if (z->err)
            return;
        int len = snprintf(lb, sizeof(lb), "L%u %s", z->layer + 1, x->tensor);
        if (n > 1)
            snprintf(lb + len, sizeof(lb) - (size_t)len, " p%u", k);
        char what[HC_LABEL + 8];
        uint32_t src = z->last;
        if (z->cfg->sram_bytes) { /* the tensor is in the cores' SRAM: out to the buffer first,
                                     once the write two saves back has left room */
            snprintf(what, sizeof(what), "DMA_OUT %s", lb);
            uint32_t on[2] = {z->last, zc_credit_oldest(z->v_credit)};
            uint32_t parts[HZ_MAX_PIECES];
            src = parts[act_dma(z, HC_DMA_OUT, HC_PH_ACT_WRITE, bytes, on, 2, what, parts) - 1];
            /* in the buffer now: this save and the one before it (the credits') */
            if (bytes + z->v_saved_last > z->v_out)
                z->v_out = bytes + z->v_saved_last;
            z->v_saved_last = bytes;
        }
        snprintf(what, sizeof(what), "WR V %s", lb);
        uint32_t g = an_group(z, HC_FLASH_WR, HC_RES_AN_FLASH_WR, HC_PH_ACT_WRITE, bytes, 0, &src,
                              1, NONE, what);
        if (z->cfg->sram_bytes)
            zc_credit_push(z->v_credit, g);
        zc_set_rec(z, g, HC_S_V, rec);
        z->v_wr[rec] = g;
        z->v_rd[rec] = NONE;
    }
    if (x->owner != o->b->kind || o->b->kind == ZOO_BLOCK_ENC_NORM) {
        if (z->n_x == sizeof(z->x) / sizeof(z->x[0])) {
            zc_fail(z, -EINVAL, "too many tensors read by other blocks");
            return;
        }
        z->x[z->n_x++] = (struct xrec){x->tensor, first, n};
    }
}

/*
 * Where a backward layer's first loads can start bringing `bytes` more into a core's SRAM: after
 * the operation of the layer before from which on what it holds leaves room for them (at its
 * end if nowhere sooner); that layer's SRAM peak counts them.
 */
static uint32_t early_start(struct zc *z, uint64_t bytes)
{
    uint64_t most = 0, peak = 0;
    uint32_t at = z->bwd_end[1];
    for (uint32_t i = z->n_prev; i-- > 0;) {
        if (z->prev_held[i] > most)
            most = z->prev_held[i];
        if (most + bytes > z->cfg->sram_bytes)
            break;
        at = i ? z->prev_done[i - 1] : z->bwd_end[0];
        peak = most + bytes;
    }
    struct hz_layer_use *u = &z->rep->use[1][z->layer + 1];
    if (peak > u->sram_peak)
        u->sram_peak = peak;
    return at;
}

/* LOAD: read a saved tensor back (piece by piece), once the TB slots of two layers back are
 * free. */
static void op_load(struct zc *z, const struct opctx *o, const struct zoo_xfer *x)
{
    uint32_t n = 1, first = v_record(z, o, x->tensor, x->owner, &n);
    char lb[HC_LABEL];

    if (first == NONE) {
        zc_fail(z, -EINVAL, "layer %u: LOAD of '%s', which no SAVE wrote", z->layer + 1, x->tensor);
        return;
    }
    for (uint32_t rec = first; rec < first + n && !z->err; rec++) {
        char what[HC_LABEL + 8];
        int len = snprintf(lb, sizeof(lb), "L%u %s", z->layer + 1, x->tensor);
        if (n > 1)
            snprintf(lb + len, sizeof(lb) - (size_t)len, " p%u", rec - first);
        snprintf(what, sizeof(what), "RD V %s", lb);
        /* with an SRAM, one piece at a time waits in the buffer: the read follows the previous
         * load into SRAM */
        uint32_t on[3] = {z->v_wr[rec], z->pass == HC_BWD ? z->bwd_end[0] : NONE,
                          z->cfg->sram_bytes ? z->load_in : NONE};
        uint32_t g = an_group(z, HC_FLASH_RD, HC_RES_AN_FLASH_RD, HC_PH_ACT_READ,
                              z->p->rec_size[HC_S_V][rec], 0, on, 3, NONE, what);
        zc_set_rec(z, g, HC_S_V, rec);
        if (z->cfg->sram_bytes) { /* ... and on into the cores' SRAM */
            uint64_t bytes = z->p->rec_size[HC_S_V][rec];
            /* into SRAM when the layer that reads it starts (the one before it is done); a
             * backward layer's first loads of whole tensors as soon as the one before has room */
            snprintf(what, sizeof(what), "DMA_IN %s", lb);
            uint32_t on2[2] = {g, z->pass == HC_BWD ? z->bwd_end[1] : NONE};
            if (z->pass == HC_BWD && z->lead && n == 1 && z->n_prev) {
                z->early += x->bytes;
                on2[1] = early_start(z, z->early);
            }
            uint32_t parts[HZ_MAX_PIECES],
                P = act_dma(z, HC_DMA_IN, HC_PH_ACT_READ, bytes, on2, 2, what, parts);
            g = parts[P - 1];
            if (n == 1) /* an elementwise operation can follow it part by part (rows of tokens,
                           not whole instances) */
                made_by(z, x->tensor, parts, P, false);
            z->load_in = g;
            if (bytes > z->v_in)
                z->v_in = bytes;
        }
        z->v_rd[rec] = g;
    }
}

/* ---------------------------------------------------------------- layers */

/* The weight a backward op completes the gradient of (NONE: none): a matrix the block owns. */
static uint32_t grad_done(struct zc *z, const struct opctx *o, const struct zoo_op *op,
                          const char **name)
{
    bool vec = false, tied = false;
    if (op->type == ZOO_OP_GEMM && op->gemm.c.role == ZOO_OPND_WGRAD)
        *name = op->gemm.c.name;
    else if (op->type == ZOO_OP_VEC && op->vec.kind == ZOO_VEC_EMBED_BWD && op->vec.weight)
        *name = op->vec.weight;
    else
        return NONE;
    uint32_t rec = zc_find_weight(z, o->b, z->layer, *name, &vec, &tied);
    return vec || tied ? NONE : rec;
}

static void run_ops(struct zc *z, const struct opctx *o, const struct zoo_op *ops, uint32_t n)
{
    if (n > sizeof(z->live) / sizeof(z->live[0])) {
        zc_fail(z, -EINVAL, "block %s: %u operations; accepted up to %zu", o->b->name, n,
                sizeof(z->live) / sizeof(z->live[0]));
        return;
    }
    int rc = zoo_live(ops, n, z->cfg->model->shape.seq, z->live, z->e);
    if (rc) {
        zc_fail(z, rc, "%s", z->e->msg);
        return;
    }
    z->sram_now = 0;
    z->stream_layer = false;
    z->made_next = 0;
    z->lead = true;
    z->early = 0;
    for (uint32_t i = 0; i < n && !z->err; i++) {
        const struct zoo_op *op = &ops[i];
        z->op = i;
        z->held[i] = z->live[i];
        const char *name = NULL;
        switch (op->type) {
        case ZOO_OP_GEMM:
            op_gemm(z, o, &op->gemm, z->live[i]);
            break;
        case ZOO_OP_VEC:
            op_vec(z, o, &op->vec);
            break;
        case ZOO_OP_SAVE:
            op_save(z, o, &op->xfer);
            break;
        case ZOO_OP_LOAD:
            op_load(z, o, &op->xfer);
            break;
        }
        z->done[i] = z->last;
        z->lead &= op->type == ZOO_OP_LOAD;
        if (z->pass == HC_BWD) {
            uint32_t rec = grad_done(z, o, op, &name);
            if (rec != NONE)
                zc_defer_update(z, rec, z->last, op->type == ZOO_OP_GEMM ? z->reduced : NONE, name);
        }
    }
}

/* The layer's vector record (biases, norm scales) is reduced and updated at its end. */
static void finish_bwd_layer(struct zc *z)
{
    for (uint32_t r = z->w_rec[z->layer]; r < z->w_rec[z->layer + 1] && !z->err; r++)
        if (!z->w_done[r])
            zc_update_weight(z, r, z->last, NONE, "vectors");
    z->bwd_end[0] = z->bwd_end[1];
    z->bwd_end[1] = z->last;
}

/* Bytes of the V records layer l saved (all the AN's cores); in forward, l is the last layer
 * compiled so far. */
static uint64_t layer_saved(const struct zc *z, uint32_t l)
{
    bool last = z->pass == HC_FWD || l + 1 == z->p->n_layers;
    uint32_t end = last ? z->p->n_rec[HC_S_V] : z->v_rec[l + 1];
    uint64_t sum = 0;
    for (uint32_t r = z->v_rec[l]; r < end; r++)
        sum += z->p->rec_size[HC_S_V][r];
    return sum;
}

/* What layer l kept in SRAM and in the tensor buffer in pass `pass` (0 forward). */
static void note_layer(struct zc *z, int pass, uint32_t l)
{
    struct hz_layer_use *u = &z->rep->use[pass][l];
    const struct hz_cfg *c = z->cfg;
    u->sram_peak = c->sram_bytes ? z->sram_now : 0;
    /* whole records in two slots, and two streamed pieces (the credits of z) */
    u->tb_weights = 2 * z->w_max + 2 * z->w_piece;
    u->tb_grads = 2 * (z->g_max + z->g_piece) * (c->multicast ? 1 : c->cores);
    uint64_t out = z->v_out > z->v_out_prev ? z->v_out : z->v_out_prev;
    uint64_t in = z->v_in > z->v_in_prev ? z->v_in : z->v_in_prev;
    if (pass == 0)
        u->tb_acts = c->sram_bytes ? out : layer_saved(z, l);
    else if (c->sram_bytes && z->stream_layer)
        u->tb_acts = in; /* one on its way into SRAM */
    else                 /* read from the buffer by this layer, and the next one's on their way */
        u->tb_acts = layer_saved(z, l) + (l ? layer_saved(z, l - 1) : 0);
    u->tb_peak = u->tb_weights + u->tb_grads + u->tb_acts;
}

/* A layer starts: its own largest of each buffer use (the last layer's kept for the credits
 * that reach back into it). */
static void begin_layer(struct zc *z)
{
    z->w_max = z->g_max = z->w_piece = z->g_piece = 0;
    z->v_out_prev = z->v_out;
    z->v_in_prev = z->v_in;
    z->v_out = z->v_in = 0;
}

/* A program whose buffer would overflow is refused at the first layer that does. */
static void check_capacity(struct zc *z)
{
    static const char *const pass_name[2] = {"forward", "backward"};
    uint64_t cap = z->cfg->tb_size_bytes;
    for (int pass = 0; pass < 2 && cap && !z->err; pass++)
        for (uint32_t i = 0; i < z->p->n_layers; i++) {
            uint32_t l = pass ? z->p->n_layers - 1 - i : i;
            const struct hz_layer_use *u = &z->rep->use[pass][l];
            if (u->tb_peak <= cap)
                continue;
            zc_fail(z, -ENOSPC,
                    "layer %u, %s: the tensor buffer would hold %.2f GB, %.2f GB more than its "
                    "%.2f GB (weight slots %.2f GB, gradient slots %.2f GB, activations %.2f GB)",
                    l + 1, pass_name[pass], (double)u->tb_peak / 1e9,
                    (double)(u->tb_peak - cap) / 1e9, (double)cap / 1e9,
                    (double)u->tb_weights / 1e9, (double)u->tb_grads / 1e9,
                    (double)u->tb_acts / 1e9);
            return;
        }
}

static void forward(struct zc *z)
{
    const struct zoo_model *m = z->cfg->model;
    uint32_t l = 0;
    z->pass = HC_FWD;
    for (uint32_t bi = 0; bi < m->n_blocks; bi++) {
        const struct zoo_block *b = &m->blocks[bi];
        for (uint32_t i = 0; i < b->repeat && !z->err; i++, l++) {
            z->layer = l;
            z->v_rec[l] = z->p->n_rec[HC_S_V];
            struct opctx o = {b, l - i, z->v_rec[l]};
            begin_layer(z);
            run_ops(z, &o, b->fwd, b->n_fwd);
            note_layer(z, 0, l);
        }
    }
    /* the shard losses, summed over the ANs */
    uint32_t g = zc_emit(z, HC_LOSS_GATHER, HC_WN, HC_RES_FABRIC_UP, HC_PH_REDUCE, 4, 0, "LOSS");
    zc_dep_all_an(z, g, z->last);
}

static void backward(struct zc *z)
{
    const struct zoo_model *m = z->cfg->model;
    uint32_t l = z->p->n_layers;
    z->pass = HC_BWD;
    for (uint32_t bi = m->n_blocks; bi-- > 0;) {
        const struct zoo_block *b = &m->blocks[bi];
        for (uint32_t i = b->repeat; i-- > 0 && !z->err;) {
            z->layer = --l;
            struct opctx o = {b, l - i, z->v_rec[l]};
            begin_layer(z);
            run_ops(z, &o, b->bwd, b->n_bwd);
            finish_bwd_layer(z);
            note_layer(z, 1, l);
            memcpy(z->prev_held, z->held, b->n_bwd * sizeof(z->held[0]));
            memcpy(z->prev_done, z->done, b->n_bwd * sizeof(z->done[0]));
            z->n_prev = b->n_bwd;
        }
    }
}

static int check_cfg(const struct hz_cfg *c, struct err *e)
{
    if (!c->model)
        return err_set(e, -EINVAL, "compile: no model");
    if (c->n_an < 1 || c->n_an > HC_MAX_AN)
        return err_set(e, -EINVAL, "compile: %u Activation Nodes; accepted 1..%u", c->n_an,
                       HC_MAX_AN);
    if (c->cores < 1)
        return err_set(e, -EINVAL, "compile: %u cores per node; accepted 1 or more", c->cores);
    if (c->pieces < 1 || c->pieces > HZ_MAX_PIECES)
        return err_set(e, -EINVAL, "compile: %u pieces per GEMM; accepted 1..%u", c->pieces,
                       HZ_MAX_PIECES);
    if (!c->vu.lanes || !c->opt_lanes || !c->tb_bytes_per_s || !c->core_period_ps || !c->dma_time)
        return err_set(e, -EINVAL,
                       "compile: vector-unit or optimizer lanes, tensor-buffer rate, "
                       "clock or DMA timing missing");
    struct core_twin_map map;
    core_twin_map(&c->core, &map);
    uint64_t pads = 2ull * (map.a_elems + map.b_elems) + 4ull * map.c_elems;
    if (c->sram_bytes && c->sram_bytes < pads)
        return err_set(e, -EINVAL,
                       "compile: core.sram_bytes = %llu is less than the core's pads (%llu "
                       "bytes), which it holds; accepted 0 (the pads alone) or at least that",
                       (unsigned long long)c->sram_bytes, (unsigned long long)pads);
    if (c->opt_state_words < 1 || c->opt_state_words > 2)
        return err_set(e, -EINVAL, "compile: %u optimizer state words; accepted 1 or 2",
                       c->opt_state_words);
    return 0;
}

void hz_report_fini(struct hz_report *rep)
{
    if (!rep)
        return;
    free(rep->use[0]);
    free(rep->use[1]);
    memset(rep, 0, sizeof(*rep));
}

int hz_compile(const struct hz_cfg *c, struct hc_prog **out, struct err *e)
{
    return hz_compile_report(c, out, NULL, e);
}

int hz_compile_report(const struct hz_cfg *c, struct hc_prog **out, struct hz_report *rep,
                      struct err *e)
{
    struct hz_report own;
    struct zc z = {.cfg = c, .e = e, .N = c->n_an, .last = NONE, .rep = rep ? rep : &own};
    int rc = check_cfg(c, e);

    *out = NULL;
    memset(z.rep, 0, sizeof(*z.rep));
    if (rc)
        return rc;
    uint32_t layers = 0;
    for (uint32_t bi = 0; bi < c->model->n_blocks; bi++)
        layers += c->model->blocks[bi].repeat;
    if (layers > UINT16_MAX)
        return err_set(e, -EINVAL, "compile: %u layers; accepted up to %u", layers, UINT16_MAX);
    z.p = calloc(1, sizeof(*z.p));
    z.w_rec = calloc(layers + 1, sizeof(*z.w_rec));
    z.v_rec = calloc(layers, sizeof(*z.v_rec));
    z.rep->n_layers = layers;
    z.rep->use[0] = calloc(layers, sizeof(*z.rep->use[0]));
    z.rep->use[1] = calloc(layers, sizeof(*z.rep->use[1]));
    if (!z.p || !z.w_rec || !z.v_rec || !z.rep->use[0] || !z.rep->use[1]) {
        rc = err_set(e, -ENOMEM, "compile: out of memory");
        goto out;
    }
    z.p->perf = true;
    z.p->n_layers = layers;
    z.p->cfg.n_an = c->n_an;
    z.p->cfg.core = c->core;
    z.p->cfg.opt_state_words = c->opt_state_words;
    z.p->n_res = HC_RES_FIXED + c->n_an * HC_RES_AN_N;
    for (int s = 0; s < 3; s++)
        z.ws[s] = (struct wslot){NONE, NONE, NONE, NONE};
    z.load_in = z.reduced = NONE;
    for (int s = 0; s < 2; s++)
        z.w_credit[s] = z.g_credit[s] = z.v_credit[s] = z.panel[s] = NONE;
    for (int s = 0; s < 2; s++) {
        z.gs[s] = (struct gslot){NONE, NONE};
        z.bwd_end[s] = NONE;
    }
    zc_make_weight_records(&z);
    if (!z.err && !(z.w_done = calloc(z.p->n_rec[HC_S_W] + 1, sizeof(*z.w_done))))
        zc_fail(&z, -ENOMEM, "out of memory");
    if (!z.err)
        forward(&z);
    if (!z.err)
        backward(&z);
    flush_store(&z);
    zc_flush_updates(&z);
    for (uint32_t r = 0; r < z.p->n_rec[HC_S_V]; r++)
        z.rep->saved_bytes += z.p->rec_size[HC_S_V][r];
    check_capacity(&z);
    rc = z.err;
out:
    free(z.w_rec);
    free(z.v_rec);
    free(z.w_done);
    free(z.v_wr);
    free(z.v_rd);
    if (!rep || (rc && rc != -ENOSPC)) /* the report says where it does not fit */
        hz_report_fini(z.rep);
    if (rc) {
        hc_prog_free(z.p);
        return rc;
    }
    *out = z.p;
    return 0;
}
