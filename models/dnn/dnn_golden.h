/*
 * dnn_golden: the golden trainer, the executable specification of the training numerics.
 *
 * Contract
 * --------
 * Modelled: one data-parallel training step of a dnn_model on a batch of B u8 images split into
 * N equal shards (one per Activation Node), exactly as models/dnn/README.md specifies: bf16
 * inputs, GEMMs through models/ref/ref_gemm (the numerics contract), fp32 bias, ReLU, softmax
 * cross-entropy, backward, the reduction of the N partial gradients in node order 0..N-1, and
 * the optimizer of models/dnn/dnn_params (the only copy of it). Evaluation (test accuracy) is
 * the N = 1 forward pass. The accelerator, at any N, must reproduce these bits exactly.
 * Written to be read, not to be fast: plain loops, one node after the other, fresh buffers per
 * call. A tap callback exposes every intermediate tensor for lockstep comparison.
 * Not modelled: timing, the placement of tensors in buffers or flash, anything of the machine.
 * Units: images are u8 pixels, row-major [rows x inputs]; labels are u8 class indices; losses
 * are fp32 (the mean over the batch); gradients fp32, laid out like the parameters.
 */
#ifndef MODELS_DNN_DNN_GOLDEN_H
#define MODELS_DNN_DNN_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/dnn/dnn_model.h"
#include "models/dnn/dnn_params.h"

/* Reduced (summed over nodes) gradients of every layer, laid out like the parameters. */
struct dnn_grads {
    uint32_t n_layers;
    float *dw[DNN_MAX_LAYERS]; /* [in x out] */
    float *db[DNN_MAX_LAYERS]; /* [out] */
};

int dnn_golden_grads_alloc(const struct dnn_model *m, struct dnn_grads *g, struct err *e);
void dnn_golden_grads_free(struct dnn_grads *g);

/* What a tap sees. node is the AN (0..N-1), or DNN_TAP_ALL_NODES after the reduction. */
#define DNN_TAP_ALL_NODES UINT32_MAX

enum dnn_tap_kind {
    DNN_TAP_X,          /* bf16 input of layer `layer` (layer 0: the images), [rows x in] */
    DNN_TAP_Z,          /* fp32 fl(Y + b) of layer `layer` (last layer: logits), [rows x out] */
    DNN_TAP_DZ,         /* fp32 dZ of layer `layer`, [rows x out] */
    DNN_TAP_DW_PARTIAL, /* fp32 one node's dW of layer `layer`, [in x out] */
    DNN_TAP_DB_PARTIAL, /* fp32 one node's db, [1 x out] */
    DNN_TAP_SHARD_LOSS, /* fp32 one node's summed loss, [1 x 1] */
    DNN_TAP_DW,         /* fp32 reduced dW (node = DNN_TAP_ALL_NODES) */
    DNN_TAP_DB,         /* fp32 reduced db */
    DNN_TAP_LOSS,       /* fp32 global loss, [1 x 1] */
};

struct dnn_tap {
    enum dnn_tap_kind kind;
    uint32_t node;
    uint32_t layer; /* 0-based; 0 for the losses */
    uint32_t rows, cols;
    const void *data; /* uint16_t bf16 patterns for DNN_TAP_X, float otherwise */
};

typedef void (*dnn_tap_fn)(void *ctx, const struct dnn_tap *t);

/*
 * Loss and reduced gradients of one batch without updating p. images [B x inputs], labels [B].
 * B >= 1, N >= 1, B % N == 0, every label < classes. tap may be NULL.
 * 0, -EINVAL (bad arguments, named in e) or -ENOMEM.
 */
int dnn_golden_grad(const struct dnn_params *p, const uint8_t *images, const uint8_t *labels,
                    uint32_t B, uint32_t N, struct dnn_grads *out, float *loss, dnn_tap_fn tap,
                    void *tap_ctx, struct err *e);

/* The trainer: params borrowed (updated by every step), gradients and loss history owned. */
struct dnn_golden {
    struct dnn_params *params;
    struct dnn_grads grads; /* reduced gradients of the last step */
    float *losses;          /* losses[k]: global loss of step k */
    size_t n_losses;
    size_t cap_losses;
    dnn_tap_fn tap; /* optional, NULL by default */
    void *tap_ctx;
};

int dnn_golden_init(struct dnn_golden *g, struct dnn_params *p, struct err *e);
void dnn_golden_fini(struct dnn_golden *g);

/* One training step: dnn_golden_grad, then dnn_params_step, then the loss is recorded.
 * *loss (may be NULL) receives the global loss. Errors as dnn_golden_grad; p is unchanged on
 * error. */
int dnn_golden_step(struct dnn_golden *g, const uint8_t *images, const uint8_t *labels, uint32_t B,
                    uint32_t N, float *loss, struct err *e);

/* N = 1 forward of `rows` images: logits [rows x classes]. */
int dnn_golden_forward(const struct dnn_params *p, const uint8_t *images, uint32_t rows,
                       float *logits, struct err *e);

/* Class of one row of logits: the first index of the maximum (NaN never wins). */
uint32_t dnn_golden_argmax(const float *z, uint32_t classes);

/* Accuracy on `count` samples, forwarded `batch` rows at a time (the bits do not depend on
 * batch: every output row depends on its input row only). *correct = samples whose predicted
 * class equals the label. */
int dnn_golden_eval(const struct dnn_params *p, const uint8_t *images, const uint8_t *labels,
                    uint32_t count, uint32_t batch, uint32_t *correct, struct err *e);

#endif
