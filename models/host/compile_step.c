/*
 * compile_step.c - the host compiler's emitters: the commands of the training step (inputs,
 * weights, forward and backward layers, loss, reduce, optimizer, write-back) and of the
 * evaluation batch, in program order (hc_emit_program); see compile.h.
 */
#include "models/host/compile_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- emitters */

static struct hc_cmd *emit_vu(struct cc *c, uint32_t an, enum vu_op op, uint32_t layer,
                              enum hc_pass pass, const int *rd, size_t nrd, const int *wr,
                              size_t nwr)
{
    struct hc_cmd *cmd = hc_emit(c, HC_VU, an, hc_res_an(an, HC_RES_AN_VU), layer, pass,
                                 HC_PH_COMPUTE, rd, nrd, wr, nwr);
    if (cmd) {
        cmd->op = (uint8_t)op;
        snprintf(cmd->label, HC_LABEL, "VU %s L%u %s", vu_op_name(op), layer + 1,
                 hc_pass_short(pass));
    }
    return cmd;
}

uint64_t hc_layer_stream_bytes(const struct dnn_model *m, uint32_t l)
{
    return dnn_model_layer_stream_bytes(m, l);
}

/* Weights of layer l to every AN's slot (WN flash read + broadcast). Returns the slot. */
static int emit_weights(struct cc *c, uint32_t l, enum hc_pass pass, uint32_t *slot)
{
    const struct hc_cfg *cfg = c->cfg;
    uint32_t s = c->wload++ % 2;
    uint64_t bytes = hc_layer_stream_bytes(&cfg->model, l);
    struct hc_cmd *cmd;

    {
        int rd[] = {c->fl_w[l]}, wr[] = {c->wn_w[s]};
        cmd = hc_emit(c, HC_FLASH_RD, HC_WN, HC_RES_WN_FLASH_RD, l, pass, HC_PH_WEIGHT_FETCH, rd, 1,
                      wr, 1);
        if (!cmd)
            return c->err;
        cmd->op = HC_S_W;
        cmd->u.fl.tb = c->w_w[s];
        cmd->u.fl.rec = l;
        cmd->bytes = bytes;
        snprintf(cmd->label, HC_LABEL, "FLASH_RD W L%u %s", l + 1, hc_pass_short(pass));
    }
    {
        int rd[] = {c->wn_w[s]}, wr[HC_MAX_AN] = {0};
        for (uint32_t n = 0; n < cfg->n_an; n++)
            wr[n] = c->an_w[n][s];
        cmd = hc_emit(c, HC_FABRIC_BCAST, HC_WN, HC_RES_FABRIC_DOWN, l, pass, HC_PH_BROADCAST, rd,
                      1, wr, cfg->n_an);
        if (!cmd)
            return c->err;
        cmd->u.fab.src = c->w_w[s];
        cmd->u.fab.dst = c->a_w[s];
        cmd->bytes = bytes;
        snprintf(cmd->label, HC_LABEL, "FABRIC_BCAST W L%u %s", l + 1, hc_pass_short(pass));
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
    if (hc_emit_gemm(c, &y))
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
        cmd = hc_emit(c, HC_FLASH_WR, an, hc_res_an(an, HC_RES_AN_FLASH_WR), l + 1, HC_FWD,
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
            cmd = hc_emit(c, HC_HOST_WR, an, HC_RES_HOST, 0, HC_FWD, HC_PH_COMPUTE, NULL, 0, wr, 1);
        else
            cmd = hc_emit(c, HC_FLASH_RD, an, hc_res_an(an, HC_RES_AN_FLASH_RD), 0, HC_FWD,
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
        cmd = hc_emit(c, HC_FLASH_WR, an, hc_res_an(an, HC_RES_AN_FLASH_WR), 0, HC_FWD,
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
        cmd = hc_emit(c, HC_FLASH_RD, an, hc_res_an(an, HC_RES_AN_FLASH_RD), l, HC_BWD,
                      HC_PH_ACT_READ, rd, 1, wr, 1);
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
        if (hc_emit_gemm(c, &dw))
            return c->err;
    }
    if (l > 0) { /* dX = G Wq^T: M = r, N = in, K = out */
        /* G [r x out] = M x K, Wq [in x out] = N x K, dX [r x in] = M x N */
        struct opnd A = {c->a_g, ly->out, LAY_PK, c->an_g[an]};
        struct opnd B = {c->a_w[slot], ly->out, LAY_PK, c->an_w[an][slot]};
        struct opnd C = {c->a_y, ly->in, LAY_PK, c->an_y[an]};
        struct gemm dx = {an, l, HC_BWD, HC_G_DX, r, ly->in, ly->out, A, B, C};
        if (hc_emit_gemm(c, &dx))
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
        cmd = hc_emit(c, HC_FABRIC_REDUCE, HC_WN, HC_RES_FABRIC_UP, l, HC_BWD, HC_PH_REDUCE, rd,
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
        cmd = hc_emit(c, HC_OPT_UPDATE, HC_WN, HC_RES_WN_OPT, l, HC_BWD, HC_PH_OPTIMIZER, rd, 2, wr,
                      1);
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
        cmd = hc_emit(c, HC_FLASH_WR, HC_WN, HC_RES_WN_FLASH_WR, l, HC_BWD, HC_PH_OPTIMIZER, rd, 1,
                      wr, 1);
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
        struct hc_cmd *cmd = hc_emit(c, HC_FLASH_RD, HC_WN, HC_RES_WN_FLASH_RD, l, HC_BWD,
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

int hc_emit_program(struct cc *c)
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
        struct hc_cmd *cmd = hc_emit(c, HC_LOSS_GATHER, HC_WN, HC_RES_FABRIC_UP, L - 1, HC_FWD,
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
