/*
 * vu: the Activation Node's vector unit: the element-wise work of training around the GEMMs.
 *
 * Contract
 * --------
 * Modelled, function: written from the numerics specification (models/dnn/README.md sections
 * 2.1, 4, 5, 6, 9), independently of the golden trainer (no dnn_golden call):
 *   - vu_input:     u8 pixels -> bf16 inputs, x = bf16(fl((float)pixel / 255.0f))     (2.1)
 *   - vu_bias_act:  Z = fl(Y + b); hidden layers ReLU (Z > 0 ? Z : +0) then bf16, the last
 *                   layer keeps Z in fp32 (the logits)                                  (4)
 *   - vu_loss:      softmax cross-entropy of a shard: the shard loss (left fold of the row
 *                   losses) and dZ_L = (p - t) / B                                      (5)
 *   - vu_grad:      G = bf16(dZ) and the bias gradient db = column fold of dZ (fp32)    (6)
 *   - vu_mask:      dZ_{l-1} = (X_l > 0) ? dX : +0, X_l the stored bf16 input            (6)
 *   - vu_argmax:    predicted class of each row, first maximum, NaN never wins           (9)
 *   Plain fp32 C arithmetic, one rounding per operation (built with -ffp-contract=off), gradual
 *   underflow; expf and logf of the C library, as the specification says.
 * Modelled, timing (ours: the papers describe no vector unit): a pipelined SIMD unit of `lanes`
 * fp32 lanes at the core clock; an operation over n elements takes
 *     latency + ceil(n * cost / lanes)  cycles,
 * with cost 1 per element for add/ReLU/convert/mask/column-sum work and cost_exp per element
 * for the softmax (exp, divide, log). vu_cycles() gives it.
 * Not modelled: the unit's own SRAM (it reads and writes the tensor buffer as a stream next to
 * the DMA; the node claims the buffer's channels for those streams, models/node/anode.h).
 * Units: elements, cycles of the core clock; matrices row-major with the given row counts and
 * widths (no padding).
 */
#ifndef MODELS_NODE_VU_H
#define MODELS_NODE_VU_H

#include <stddef.h>
#include <stdint.h>

enum vu_op {
    VU_INPUT = 0, /* u8 -> bf16 inputs */
    VU_BIAS_ACT,  /* bias + ReLU + bf16 (hidden) or bias only (last layer) */
    VU_LOSS,      /* softmax cross-entropy: shard loss and dZ_L */
    VU_GRAD,      /* G = bf16(dZ), db = column sums of dZ */
    VU_MASK,      /* ReLU mask of dX */
    VU_ARGMAX,    /* predicted classes (evaluation) */
    VU_N_OPS
};

/* Timing parameters (all ours). */
struct vu_cfg {
    uint32_t lanes;    /* fp32 elements per cycle, >= 1 (default 16) */
    uint32_t latency;  /* pipeline fill per operation, cycles (default 8) */
    uint32_t cost_exp; /* cycles per element per lane of the softmax (default 4) */
};

void vu_cfg_default(struct vu_cfg *c);
/* Name of an op ("bias_act", ...), for listings. */
const char *vu_op_name(enum vu_op op);
/* Cycles of op over `elems` elements (see the contract). */
uint64_t vu_cycles(const struct vu_cfg *c, enum vu_op op, uint64_t elems);

/* x[i] = bf16(fl((float)px[i] / 255.0f)), i < n. */
void vu_input(const uint8_t *px, uint16_t *x, size_t n);

/* For r rows of `cols`: z = fl(y + b[j]). relu: out_bf16[i] = bf16(z > 0 ? z : +0), out_f32
 * unused (may be NULL). !relu: out_f32[i] = z, out_bf16 unused. */
void vu_bias_act(const float *y, const float *b, size_t r, size_t cols, int relu,
                 uint16_t *out_bf16, float *out_f32);

/* Softmax cross-entropy of r rows of C logits with labels y[i] < C; dz [r x C]; B the global
 * batch. Returns the shard loss (left fold of the row losses). */
float vu_loss(const float *z, const uint8_t *y, size_t r, size_t C, uint32_t B, float *dz);

/* g[i] = bf16(dz[i]) over r x cols; db[j] = dz[0][j], then fl(db[j] + dz[i][j]), i = 1..r-1. */
void vu_grad(const float *dz, size_t r, size_t cols, uint16_t *g, float *db);

/* dz[i] = (bf16 value of x[i] > 0) ? dx[i] : +0, i < n. dz may be dx. */
void vu_mask(const float *dx, const uint16_t *x, size_t n, float *dz);

/* cls[i] = first index of the maximum of row i of z [r x C] (strict >, NaN never wins). */
void vu_argmax(const float *z, size_t r, size_t C, uint8_t *cls);

#endif
