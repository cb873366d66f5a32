/*
 * dnn_params: the trainable state of a model and THE optimizer (SGD-momentum-wd, Adam) with its
 * learning-rate schedule.
 *
 * Contract
 * --------
 * Modelled: per FC layer the fp32 master weights W [in x out] (row-major), fp32 biases b [out],
 * the bf16 copy of W that is streamed to the ANs (bf16_from_f32 of the master, refreshed after
 * every update), and the optimizer state (SGD: velocity v; Adam: m and v) for W and b.
 * Initialisation from a seed (splitmix64, Glorot-uniform, biases 0) and the optimizer step,
 * element by element, in exactly the fp32 operation order written in models/dnn/README.md
 * sections 3 and 8 (each binary operation rounds once; no FMA: built with -ffp-contract=off).
 * This module is shared by the golden trainer and the Weight Node's optimizer unit: there is
 * no second copy of the optimizer. The WN may update a layer in pieces as gradient chunks
 * arrive (dnn_params_update_range); the golden trainer updates whole layers.
 * Not modelled: timing (the WN's optimizer unit owns that), mixed-precision loss scaling,
 * gradient clipping, other optimizers.
 * Units: learning rates per step; steps counted from 0 (`step` = optimizer steps completed).
 * Host arithmetic: IEEE binary32, round to nearest even, gradual underflow (no FTZ/DAZ), as on
 * x86-64 SSE with the default MXCSR.
 */
#ifndef MODELS_DNN_DNN_PARAMS_H
#define MODELS_DNN_DNN_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/dnn/dnn_model.h"

enum dnn_opt_kind {
    DNN_OPT_SGD = 0,  /* momentum SGD with coupled L2 weight decay */
    DNN_OPT_ADAM = 1, /* Adam with bias correction, optional decoupled weight decay */
};

enum dnn_lr_sched {
    DNN_LR_CONST = 0,  /* lr = lr0 */
    DNN_LR_STEP = 1,   /* lr = lr0 * gamma^floor(k / step_size), by repeated multiplication */
    DNN_LR_COSINE = 2, /* lr = (lr0 * 0.5) * (1 + cos((pi * min(k, T)) / T)) */
};

struct dnn_opt {
    enum dnn_opt_kind kind;
    float lr;           /* lr0, >= 0 */
    float momentum;     /* SGD mu, 0 <= mu < 1 */
    float weight_decay; /* SGD: g + wd * w; Adam: w - (lr * wd) * w first, when wd != 0 */
    float beta1;        /* Adam, 0 <= b1 < 1 */
    float beta2;        /* Adam, 0 <= b2 < 1 */
    float eps;          /* Adam, > 0 */
    enum dnn_lr_sched sched;
    uint64_t step_size;   /* DNN_LR_STEP: S >= 1 */
    float gamma;          /* DNN_LR_STEP: factor every S steps, > 0 */
    uint64_t total_steps; /* DNN_LR_COSINE: T >= 1 */
};

/* The per-step scalars of the update for step k (0-based): lr(k), Adam t = k + 1 and the bias
 * corrections. Every value is a pure function of (opt, k). */
struct dnn_params_scalars {
    uint64_t k;  /* optimizer step, 0-based */
    float lr;    /* schedule at k */
    float lr_wd; /* lr * weight_decay (Adam decoupled decay) */
    float omb1;  /* 1 - beta1 */
    float omb2;  /* 1 - beta2 */
    float c1;    /* 1 - beta1^t, t = k + 1, beta1^t by repeated multiplication */
    float c2;    /* 1 - beta2^t */
};

struct dnn_params_layer {
    float *w;     /* master weights [in x out] */
    float *b;     /* biases [out] */
    uint16_t *wq; /* bf16 copy of w, what the ANs compute with */
    float *w_m;   /* Adam first moment of w; NULL for SGD */
    float *w_v;   /* SGD velocity / Adam second moment of w */
    float *b_m;   /* same for b */
    float *b_v;
};

struct dnn_params {
    struct dnn_model model;
    struct dnn_opt opt;
    uint64_t step;    /* optimizer steps completed */
    uint32_t updated; /* bit l: layer l updated in the step in progress */
    struct dnn_params_layer layer[DNN_MAX_LAYERS];
};

/* Optimizer presets (constant lr); change fields afterwards for wd or a schedule.
 * SGD: mu and wd as given. Adam: beta1 0.9, beta2 0.999, eps 1e-8, wd 0. */
void dnn_params_opt_sgd(struct dnn_opt *o, float lr, float momentum, float weight_decay);
void dnn_params_opt_adam(struct dnn_opt *o, float lr);
/* 0 or -EINVAL naming the first bad field, its value and the accepted range. */
int dnn_params_opt_validate(const struct dnn_opt *o, struct err *e);

/* Learning rate of step k (0-based) under o's schedule. */
float dnn_params_lr(const struct dnn_opt *o, uint64_t k);
void dnn_params_scalars(const struct dnn_opt *o, uint64_t k, struct dnn_params_scalars *s);
/* Adam's bias correction 1 - beta^t (t >= 1, 0 <= beta < 1) with beta^t by repeated fp32
 * multiplication (README section 8.2), in time bounded by beta, not by t. */
float dnn_params_one_minus_pow(float beta, uint64_t t);

/* What a parameter set is made of (both copied by dnn_params_create). */
struct dnn_params_cfg {
    const struct dnn_model *model;
    const struct dnn_opt *opt;
    uint64_t seed; /* of the initial weights (dnn_params_init) */
};

/* Allocate the state of cfg's model with its optimizer and initialise it from its seed.
 * -EINVAL (bad model or optimizer) or -ENOMEM. */
int dnn_params_create(const struct dnn_params_cfg *cfg, struct dnn_params **out, struct err *e);
void dnn_params_destroy(struct dnn_params *p);

/* Glorot-uniform weights from one splitmix64 stream seeded with `seed`, drawn layer 0..L-1,
 * each layer row-major (i over in, j over out): a = sqrtf(6.0f / (float)(in + out)),
 * u = dnn_rng_unit(), w = ((2.0f * u) - 1.0f) * a. Biases +0, optimizer state +0, step 0, bf16
 * copies refreshed. */
void dnn_params_init(struct dnn_params *p, uint64_t seed);

/* wq = bf16_from_f32(w) for layer l (after the caller changed w directly, e.g. in a test). */
void dnn_params_refresh_bf16(struct dnn_params *p, uint32_t l);

/*
 * One optimizer update of n elements, the numerics spec's per-element formulas in order:
 * w, state and g point at the same n elements (weights or biases). m is used by Adam only.
 */
void dnn_params_update_range(const struct dnn_opt *o, const struct dnn_params_scalars *s, float *w,
                             float *m, float *v, const float *g, size_t n);

/*
 * Update layer l with its reduced gradients dw [in x out] and db [out] at step p->step, and
 * refresh its bf16 copy. -EINVAL if l is out of range, -EALREADY if layer l was already updated
 * in this step.
 */
int dnn_params_update_layer(struct dnn_params *p, uint32_t l, const float *dw, const float *db,
                            struct err *e);
/* Close the step: every layer must have been updated once (-EINVAL otherwise); step += 1. */
int dnn_params_end_step(struct dnn_params *p, struct err *e);
/* The whole step: update layers L-1 .. 0 (backward order), then end it. */
int dnn_params_step(struct dnn_params *p, float *const dw[], float *const db[], struct err *e);

/* Bitwise equality of everything trainable (masters, bf16 copies, state, step). */
bool dnn_params_equal(const struct dnn_params *a, const struct dnn_params *b);
/* FNV-1a 64 over the bits of masters, bf16 copies and state, layer by layer; for reports. */
uint64_t dnn_params_digest(const struct dnn_params *p);

#endif
