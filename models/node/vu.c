/*
 * vu.c - the Activation Node's vector unit; see vu.h. Every formula below is the numerics
 * specification's (models/dnn/README.md), written out again here: the accelerator path must not
 * share code with the golden trainer. One fp32 operation per C operator, in the order written.
 */
#include "models/node/vu.h"

#include <math.h>

#include "models/ref/bf16.h"

void vu_cfg_default(struct vu_cfg *c)
{
    c->lanes = 16;
    c->latency = 8;
    c->cost_exp = 4;
}

const char *vu_op_name(enum vu_op op)
{
    static const char *const names[VU_N_OPS] = {"input", "bias_act", "loss",
                                                "grad",  "mask",     "argmax"};
    return (unsigned)op < VU_N_OPS ? names[op] : "?";
}

uint64_t vu_cycles(const struct vu_cfg *c, enum vu_op op, uint64_t elems)
{
    uint64_t cost = op == VU_LOSS ? c->cost_exp : 1;
    uint64_t lanes = c->lanes ? c->lanes : 1;
    return c->latency + (elems * cost + lanes - 1) / lanes;
}

void vu_input(const uint8_t *px, uint16_t *x, size_t n)
{
    /* 256 possible pixels: the table is the same formula, evaluated once per value. */
    uint16_t t[256];
    for (unsigned v = 0; v < 256; v++)
        t[v] = bf16_from_f32((float)v / 255.0f);
    for (size_t i = 0; i < n; i++)
        x[i] = t[px[i]];
}

void vu_bias_act(const float *y, const float *b, size_t r, size_t cols, int relu,
                 uint16_t *out_bf16, float *out_f32)
{
    for (size_t i = 0; i < r; i++) {
        const float *yr = y + i * cols;
        if (relu) {
            uint16_t *o = out_bf16 + i * cols;
            for (size_t j = 0; j < cols; j++) {
                float z = yr[j] + b[j];
                o[j] = bf16_from_f32(z > 0.0f ? z : 0.0f);
            }
        } else {
            float *o = out_f32 + i * cols;
            for (size_t j = 0; j < cols; j++)
                o[j] = yr[j] + b[j];
        }
    }
}

float vu_loss(const float *z, const uint8_t *y, size_t r, size_t C, uint32_t B, float *dz)
{
    float shard = 0.0f, fb = (float)B;

    for (size_t i = 0; i < r; i++) {
        const float *zr = z + i * C;
        float *dr = dz + i * C;
        float m = zr[0], s;
        for (size_t j = 1; j < C; j++)
            if (zr[j] > m)
                m = zr[j];
        /* e_j kept in dr until p_j replaces it */
        for (size_t j = 0; j < C; j++)
            dr[j] = expf(zr[j] - m);
        s = dr[0];
        for (size_t j = 1; j < C; j++)
            s = s + dr[j];
        float loss = logf(s) - (zr[y[i]] - m);
        for (size_t j = 0; j < C; j++) {
            float p = dr[j] / s;
            float t = j == y[i] ? 1.0f : 0.0f;
            dr[j] = (p - t) / fb;
        }
        shard = i == 0 ? loss : shard + loss;
    }
    return shard;
}

void vu_grad(const float *dz, size_t r, size_t cols, uint16_t *g, float *db)
{
    for (size_t j = 0; j < cols; j++)
        db[j] = dz[j];
    for (size_t i = 0; i < r; i++) {
        const float *d = dz + i * cols;
        uint16_t *gr = g + i * cols;
        for (size_t j = 0; j < cols; j++)
            gr[j] = bf16_from_f32(d[j]);
        if (i)
            for (size_t j = 0; j < cols; j++)
                db[j] = db[j] + d[j];
    }
}

void vu_mask(const float *dx, const uint16_t *x, size_t n, float *dz)
{
    for (size_t i = 0; i < n; i++)
        dz[i] = bf16_to_f32(x[i]) > 0.0f ? dx[i] : 0.0f;
}

void vu_argmax(const float *z, size_t r, size_t C, uint8_t *cls)
{
    for (size_t i = 0; i < r; i++) {
        const float *zr = z + i * C;
        size_t best = 0;
        for (size_t j = 1; j < C; j++) /* strict >: a NaN never replaces the best */
            if (zr[j] > zr[best])
                best = j;
        cls[i] = (uint8_t)best;
    }
}
