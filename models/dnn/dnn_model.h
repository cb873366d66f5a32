/*
 * dnn_model: the description of a fully connected classifier, parsed from a compact spec.
 *
 * Contract
 * --------
 * Modelled: a stack of L fully connected (FC) layers, layer l mapping in_l inputs to out_l
 * outputs (out_l == in_{l+1}), ReLU after every hidden layer, no activation after the last,
 * whose outputs are the logits of a softmax-cross-entropy loss. Parameter counts and the byte
 * sizes the accelerator moves (bf16 weights streamed, fp32 biases, fp32 gradients, fp32 master
 * and optimizer state, bf16 activations stored to flash).
 * Spec strings:
 *     "fc-mnist"              784-256-128-10 (the Cerebras weight-streaming example's FC-MNIST)
 *     "mlp:W0-W1-...-WL"      W0 inputs, hidden widths, WL classes; e.g. "mlp:784-128-10"
 * Widths are decimal, 1..DNN_MAX_WIDTH (classes 2..DNN_MAX_WIDTH), 1..DNN_MAX_LAYERS layers,
 * no spaces or signs.
 * Not modelled: other layer types or activations, the numerics (models/dnn/README.md).
 * Units: counts in elements, sizes in bytes. C arrays index layers from 0: layer[0] is the
 * numerics spec's layer l = 1.
 */
#ifndef MODELS_DNN_DNN_MODEL_H
#define MODELS_DNN_DNN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"

#define DNN_MAX_LAYERS 16    /* FC layers a model may have */
#define DNN_MAX_WIDTH  65536 /* largest in/out width of a layer */

enum dnn_act {
    DNN_ACT_NONE = 0, /* last layer: logits */
    DNN_ACT_RELU = 1, /* hidden layers */
};

struct dnn_layer {
    uint32_t in;  /* inputs (rows of W, stored [in x out] row-major) */
    uint32_t out; /* outputs (columns of W, length of b) */
    enum dnn_act act;
};

struct dnn_model {
    uint32_t n_layers; /* L */
    struct dnn_layer layer[DNN_MAX_LAYERS];
};

/* Parse spec into m. 0, or -EINVAL with a message naming the spec, the position and what is
 * accepted (m is then left zeroed). */
int dnn_model_parse(struct dnn_model *m, const char *spec, struct err *e);

/* Write "W0-W1-...-WL" into buf (always terminated). Returns the length it needs, like
 * snprintf. */
int dnn_model_format(const struct dnn_model *m, char *buf, size_t len);

uint32_t dnn_model_inputs(const struct dnn_model *m);  /* in of layer 0 */
uint32_t dnn_model_classes(const struct dnn_model *m); /* out of the last layer */
uint32_t dnn_model_max_width(const struct dnn_model *m);

uint64_t dnn_model_layer_weights(const struct dnn_model *m, uint32_t l); /* in * out */
uint64_t dnn_model_layer_params(const struct dnn_model *m, uint32_t l);  /* in * out + out */
uint64_t dnn_model_params(const struct dnn_model *m);                    /* all layers */

/* Bytes the WN streams to each AN for layer l: bf16 W (2 * in * out) + fp32 b (4 * out). */
uint64_t dnn_model_layer_stream_bytes(const struct dnn_model *m, uint32_t l);
/* Bytes of one AN's gradient for layer l: fp32 dW + fp32 db (4 * (in * out + out)). */
uint64_t dnn_model_layer_grad_bytes(const struct dnn_model *m, uint32_t l);
/* Bytes of the fp32 master weights and biases (4 * params). */
uint64_t dnn_model_master_bytes(const struct dnn_model *m);
/* Bytes of bf16 activations an AN stores per sample: the bf16 input of every layer
 * (2 * sum of in_l, l = 0..L-1, the images included). */
uint64_t dnn_model_act_bytes_per_sample(const struct dnn_model *m);

#endif
