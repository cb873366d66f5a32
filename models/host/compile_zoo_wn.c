/*
 * compile_zoo_wn.c - the perf compiler, the Weight Node's side: records, weights streamed to
 * the Activation Nodes, gradients reduced and applied; see compile_zoo_priv.h.
 */
#include "models/host/compile_zoo_priv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- records */

uint32_t zc_new_rec(struct zc *z, enum hc_stream s, uint64_t bytes)
{
    struct hc_prog *p = z->p;
    uint32_t r = p->n_rec[s];
    if (z->err || !zc_grow(z, (void **)&p->rec_size[s], &z->cap_rec[s], r + 1, sizeof(uint64_t)))
        return NONE;
    p->rec_size[s][r] = bytes;
    p->n_rec[s] = r + 1;
    return r;
}

void zc_set_rec(struct zc *z, uint32_t id, uint32_t stream, uint32_t rec)
{
    if (id == NONE)
        return;
    for (uint32_t n = 0; n < (z->p->cmd[id].node == HC_WN ? 1 : z->N); n++) {
        z->p->cmd[id + n].op = (uint8_t)stream;
        z->p->cmd[id + n].u.fl.rec = rec;
    }
}

/* ---------------------------------------------------------------- weights */

/* The W record of weight `name` of block b at this layer, or NONE for a vector (they travel
 * in the layer's vector record) and for a weight the block does not list. */
uint32_t zc_find_weight(const struct zc *z, const struct zoo_block *b, uint32_t layer0,
                        const char *name, bool *vector, bool *tied)
{
    uint32_t rec = z->w_rec[layer0];
    for (uint32_t i = 0; i < b->n_weights; i++) {
        const struct zoo_weight *wt = &b->weights[i];
        bool vec = wt->rows == 1;
        if (!strcmp(wt->name, name)) {
            *vector = vec;
            *tied = wt->tied;
            return vec ? NONE : rec;
        }
        if (!vec && !wt->tied)
            rec++;
    }
    return NONE;
}

/* The record holding a tied weight: the same name in the nearest earlier block that owns it. */
uint32_t zc_owner_rec(const struct zc *z, uint32_t layer, const char *name)
{
    const struct zoo_model *m = z->cfg->model;
    uint32_t l = 0;
    uint32_t found = NONE;
    for (uint32_t bi = 0; bi < m->n_blocks && l < layer; bi++)
        for (uint32_t i = 0; i < m->blocks[bi].repeat && l < layer; i++, l++) {
            bool v, t;
            uint32_t r = zc_find_weight(z, &m->blocks[bi], l, name, &v, &t);
            if (r != NONE && !t)
                found = r;
        }
    return found;
}

uint64_t zc_rec_params(const struct zc *z, uint32_t rec)
{
    return z->p->rec_size[HC_S_W][rec] / 2;
}

/* Read W record rec at the WN and broadcast it into the next weight slot (a layer's vectors, a
 * fraction of a megabyte, into a slot of their own, so that they never hold a matrix back);
 * returns the slot. */
struct wslot *zc_stream_weight(struct zc *z, uint32_t rec, const char *name, bool vec,
                               bool by_piece)
{
    for (int s = 0; s < 3; s++)
        if (z->ws[s].rec == rec)
            return &z->ws[s];
    struct wslot *ws = &z->ws[vec ? 2 : z->w_next];
    if (!vec)
        z->w_next ^= 1;
    uint64_t bytes = z->p->rec_size[HC_S_W][rec];
    uint32_t rd = zc_emit(z, HC_FLASH_RD, HC_WN, HC_RES_WN_FLASH_RD, HC_PH_WEIGHT_FETCH, bytes, 0,
                          "RD W L%u %s", z->layer + 1, name);
    zc_set_rec(z, rd, HC_S_W, rec);
    zc_dep(z, rd, ws->bcast); /* the WN's slot is free once its last broadcast is done */
    uint32_t bc = NONE;
    if (!by_piece) {
        bc = zc_emit(z, HC_FABRIC_BCAST, HC_WN, HC_RES_FABRIC_DOWN, HC_PH_BROADCAST, bytes, 0,
                     "BCAST L%u %s", z->layer + 1, name);
        zc_dep(z, bc, rd);
        zc_dep_all_an(z, bc, ws->user); /* ... and the ANs' once its last user is done */
    }
    *ws = (struct wslot){rec, rd, bc, NONE};
    return ws;
}

/* A two-entry credit ring: the oldest entry a new claim waits for (NONE: a free credit), and
 * the claim that takes its place. */
uint32_t zc_credit_oldest(uint32_t ring[2])
{
    return ring[0];
}

void zc_credit_push(uint32_t ring[2], uint32_t id)
{
    ring[0] = ring[1];
    ring[1] = id;
}

/*
 * Piece i of P of a streamed GEMM's weight, broadcast as the GEMM's loads take it: an AN's
 * buffer holds at most two streamed weight pieces, so a piece waits for the load of the piece
 * two before it (of this weight or the one before).
 */
uint32_t zc_bcast_piece(struct zc *z, struct wslot *ws, uint32_t i, uint32_t P, const char *name)
{
    uint64_t bytes = z->p->rec_size[HC_S_W][ws->rec];
    uint32_t bc = zc_emit(z, HC_FABRIC_BCAST, HC_WN, HC_RES_FABRIC_DOWN, HC_PH_BROADCAST,
                          zc_share(bytes, i, P), 0, "BCAST L%u %s p%u", z->layer + 1, name, i);
    zc_dep(z, bc, ws->read);
    zc_dep_all_an(z, bc, zc_credit_oldest(z->w_credit));
    if (zc_share(bytes, i, P) > z->w_piece)
        z->w_piece = zc_share(bytes, i, P);
    ws->bcast = bc;
    return bc;
}

/* Reduce record rec's gradient (unless `reduced`, its last piece, says the GEMM that made it
 * did), update it at the WN, write W, M and O back. */
void zc_update_weight(struct zc *z, uint32_t rec, uint32_t producer, uint32_t reduced,
                      const char *name)
{
    const struct hz_cfg *c = z->cfg;
    uint64_t params = zc_rec_params(z, rec);
    struct gslot *gs = &z->gs[z->g_next];
    if (reduced == NONE && 4 * params > z->g_max)
        z->g_max = 4 * params;
    z->g_next ^= 1;

    uint32_t red = reduced;
    if (red == NONE) {
        red = zc_emit(z, HC_FABRIC_REDUCE, HC_WN, HC_RES_FABRIC_UP, HC_PH_REDUCE, 4 * params, 0,
                      "REDUCE L%u %s", z->layer + 1, name);
        zc_dep_all_an(z, red, producer);
        zc_dep(z, red, gs->update); /* the WN's gradient slot */
    }
    uint32_t rm = zc_emit(z, HC_FLASH_RD, HC_WN, HC_RES_WN_FLASH_RD, HC_PH_WEIGHT_FETCH, 4 * params,
                          0, "RD M L%u %s", z->layer + 1, name);
    zc_set_rec(z, rm, HC_S_M, rec);
    zc_dep(z, rm, gs->update);
    uint32_t ro = zc_emit(z, HC_FLASH_RD, HC_WN, HC_RES_WN_FLASH_RD, HC_PH_WEIGHT_FETCH,
                          4ull * c->opt_state_words * params, 0, "RD O L%u %s", z->layer + 1, name);
    zc_set_rec(z, ro, HC_S_O, rec);
    zc_dep(z, ro, gs->update);
    /* the unit updates the record in as many pieces as a GEMM has, each claiming its share of
     * the buffer, so a gradient's reduce into the buffer waits for one piece, not the record */
    uint32_t P = c->pieces && params >= c->pieces ? c->pieces : 1, up = NONE;
    for (uint32_t k = 0; k < P; k++) {
        uint64_t share = zc_share(params, k, P);
        uint64_t cy = c->opt_latency + hz_ceil_div(share * c->opt_cost, c->opt_lanes);
        up = zc_emit(z, HC_OPT_UPDATE, HC_WN, HC_RES_WN_OPT, HC_PH_OPTIMIZER, 0, cy,
                     P > 1 ? "OPT L%u %s p%u" : "OPT L%u %s", z->layer + 1, name, k);
        if (up != NONE) {
            z->p->cmd[up].u.opt.params = share;
            z->p->cmd[up].tile = k;
        }
        zc_dep(z, up, red);
        zc_dep(z, up, rm);
        zc_dep(z, up, ro);
    }
    static const enum hc_stream st[3] = {HC_S_W, HC_S_M, HC_S_O};
    for (int i = 0; i < 3; i++) {
        uint32_t wr = zc_emit(z, HC_FLASH_WR, HC_WN, HC_RES_WN_FLASH_WR, HC_PH_OPTIMIZER,
                              z->p->rec_size[st[i]][rec], 0, "WR %s L%u %s", hc_stream_name(st[i]),
                              z->layer + 1, name);
        zc_set_rec(z, wr, st[i], rec);
        zc_dep(z, wr, up);
    }
    *gs = (struct gslot){red, up};
    z->w_done[rec] = true;
}

/*
 * A weight's update once its gradient is complete, emitted after the next weight's read: the
 * Weight Node's flash serves reads in program order, and the Activation Nodes wait on the next
 * weight, not on the masters and state of this one (12 B a parameter with Adam against 2).
 */
void zc_defer_update(struct zc *z, uint32_t rec, uint32_t producer, uint32_t reduced,
                     const char *name)
{
    if (z->n_pend == sizeof(z->pend) / sizeof(z->pend[0])) {
        zc_fail(z, -EINVAL, "layer %u: more than %zu weight updates waiting", z->layer + 1,
                sizeof(z->pend) / sizeof(z->pend[0]));
        return;
    }
    z->pend[z->n_pend++] = (struct pending){rec, producer, reduced, z->layer, name};
    z->w_done[rec] = true;
}

void zc_flush_updates(struct zc *z)
{
    uint32_t layer = z->layer;
    for (uint32_t i = 0; i < z->n_pend && !z->err; i++) {
        z->layer = z->pend[i].layer;
        zc_update_weight(z, z->pend[i].rec, z->pend[i].producer, z->pend[i].reduced,
                         z->pend[i].name);
    }
    z->n_pend = 0;
    z->layer = layer;
}

/* Every layer's W, M and O records, in forward order. */
void zc_make_weight_records(struct zc *z)
{
    const struct zoo_model *m = z->cfg->model;
    uint32_t l = 0;
    for (uint32_t bi = 0; bi < m->n_blocks; bi++) {
        const struct zoo_block *b = &m->blocks[bi];
        for (uint32_t i = 0; i < b->repeat && !z->err; i++, l++) {
            uint64_t vec_params = 0;
            z->w_rec[l] = z->p->n_rec[HC_S_W];
            for (uint32_t k = 0; k < b->n_weights; k++) {
                const struct zoo_weight *wt = &b->weights[k];
                uint64_t params = wt->rows * wt->cols;
                if (wt->tied)
                    continue;
                if (wt->rows == 1) {
                    vec_params += params;
                    continue;
                }
                zc_new_rec(z, HC_S_W, 2 * params);
                zc_new_rec(z, HC_S_M, 4 * params);
                zc_new_rec(z, HC_S_O, 4ull * z->cfg->opt_state_words * params);
            }
            if (vec_params) {
                zc_new_rec(z, HC_S_W, 2 * vec_params);
                zc_new_rec(z, HC_S_M, 4 * vec_params);
                zc_new_rec(z, HC_S_O, 4ull * z->cfg->opt_state_words * vec_params);
            }
        }
    }
    z->w_rec[l] = z->p->n_rec[HC_S_W];
}
