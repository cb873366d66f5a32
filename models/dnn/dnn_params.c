/*
 * dnn_params.c - master weights, optimizer and lr schedule; see dnn_params.h and
 * models/dnn/README.md (sections 3 and 8) for the arithmetic this file must follow exactly.
 *
 * Every fp32 operation is written as its own statement or with explicit parentheses so that the
 * order of rounding is visible; the build's -ffp-contract=off forbids FMA contraction and
 * FLT_EVAL_METHOD == 0 (checked below) forbids excess precision.
 */
#include "models/dnn/dnn_params.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/dnn/dnn_rng.h"
#include "models/ref/bf16.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "dnn_params.c needs float arithmetic evaluated in binary32 (FLT_EVAL_METHOD == 0)"
#endif

#define DNN_PI_F 3.14159265358979323846f /* pi rounded to fp32: 0x40490FDB */

void dnn_params_opt_sgd(struct dnn_opt *o, float lr, float momentum, float weight_decay)
{
    memset(o, 0, sizeof(*o));
    o->kind = DNN_OPT_SGD;
    o->lr = lr;
    o->momentum = momentum;
    o->weight_decay = weight_decay;
    o->beta1 = 0.9f;
    o->beta2 = 0.999f;
    o->eps = 1e-8f;
    o->sched = DNN_LR_CONST;
    o->step_size = 1;
    o->gamma = 1.0f;
    o->total_steps = 1;
}

void dnn_params_opt_adam(struct dnn_opt *o, float lr)
{
    dnn_params_opt_sgd(o, lr, 0.0f, 0.0f);
    o->kind = DNN_OPT_ADAM;
}

static bool in_unit(float x) /* 0 <= x < 1 */
{
    return x >= 0.0f && x < 1.0f;
}

int dnn_params_opt_validate(const struct dnn_opt *o, struct err *e)
{
    if (o->kind != DNN_OPT_SGD && o->kind != DNN_OPT_ADAM)
        return err_set(e, -EINVAL, "optimizer kind = %d; accepted 0 (sgd) or 1 (adam)",
                       (int)o->kind);
    if (!(isfinite(o->lr) && o->lr >= 0.0f))
        return err_set(e, -EINVAL, "optimizer lr = %g; accepted a finite value >= 0",
                       (double)o->lr);
    if (!(isfinite(o->weight_decay) && o->weight_decay >= 0.0f))
        return err_set(e, -EINVAL, "optimizer weight_decay = %g; accepted a finite value >= 0",
                       (double)o->weight_decay);
    if (o->kind == DNN_OPT_SGD && !in_unit(o->momentum))
        return err_set(e, -EINVAL, "optimizer momentum = %g; accepted 0 <= momentum < 1",
                       (double)o->momentum);
    if (o->kind == DNN_OPT_ADAM) {
        if (!in_unit(o->beta1))
            return err_set(e, -EINVAL, "optimizer beta1 = %g; accepted 0 <= beta1 < 1",
                           (double)o->beta1);
        if (!in_unit(o->beta2))
            return err_set(e, -EINVAL, "optimizer beta2 = %g; accepted 0 <= beta2 < 1",
                           (double)o->beta2);
        if (!(isfinite(o->eps) && o->eps > 0.0f))
            return err_set(e, -EINVAL, "optimizer eps = %g; accepted a finite value > 0",
                           (double)o->eps);
    }
    switch (o->sched) {
    case DNN_LR_CONST:
        break;
    case DNN_LR_STEP:
        if (o->step_size < 1)
            return err_set(e, -EINVAL, "lr schedule step: step_size = 0; accepted >= 1");
        if (!(isfinite(o->gamma) && o->gamma > 0.0f))
            return err_set(e, -EINVAL, "lr schedule step: gamma = %g; accepted a finite value > 0",
                           (double)o->gamma);
        break;
    case DNN_LR_COSINE:
        if (o->total_steps < 1)
            return err_set(e, -EINVAL, "lr schedule cosine: total_steps = 0; accepted >= 1");
        break;
    default:
        return err_set(e, -EINVAL, "lr schedule = %d; accepted 0 (const), 1 (step) or 2 (cosine)",
                       (int)o->sched);
    }
    return 0;
}

float dnn_params_lr(const struct dnn_opt *o, uint64_t k)
{
    float lr = o->lr;

    switch (o->sched) {
    case DNN_LR_STEP: {
        uint64_t drops = k / o->step_size;

        /* Once lr * gamma rounds back to lr (0, infinity, or a subnormal that gamma cannot
         * move), every later drop gives the same bits: stopping there keeps the result of the
         * full loop while bounding the work by gamma, not by k (a resumed run at step 2^40). */
        for (uint64_t i = 0; i < drops; i++) {
            float next = lr * o->gamma;

            if (next == lr)
                break;
            lr = next;
        }
        return lr;
    }
    case DNN_LR_COSINE: {
        uint64_t kk = k < o->total_steps ? k : o->total_steps;
        float angle = (DNN_PI_F * (float)kk) / (float)o->total_steps;
        float half = o->lr * 0.5f;

        return half * (1.0f + cosf(angle));
    }
    case DNN_LR_CONST:
    default:
        return lr;
    }
}

/* 1 - beta^t with beta^t by repeated fp32 multiplication: ((beta * beta) * beta) ..., t
 * factors, t >= 1 (README section 8.2). 0 <= beta < 1, so the product never grows and neither
 * does 1 - product shrink: once 1 - product rounds to 1.0f (product <= 2^-25), every later t
 * gives 1.0f too. Stopping there gives the bits of the full loop for every t with at most
 * about 17 / (1 - beta) multiplications (17 000 for beta = 0.999), however large t is. */
float dnn_params_one_minus_pow(float beta, uint64_t t)
{
    float p = beta;

    for (uint64_t i = 1; i < t && 1.0f - p != 1.0f; i++)
        p = p * beta;
    return 1.0f - p;
}

void dnn_params_scalars(const struct dnn_opt *o, uint64_t k, struct dnn_params_scalars *s)
{
    memset(s, 0, sizeof(*s));
    s->k = k;
    s->lr = dnn_params_lr(o, k);
    s->lr_wd = s->lr * o->weight_decay;
    s->omb1 = 1.0f - o->beta1;
    s->omb2 = 1.0f - o->beta2;
    if (o->kind == DNN_OPT_ADAM) {
        s->c1 = dnn_params_one_minus_pow(o->beta1, k + 1);
        s->c2 = dnn_params_one_minus_pow(o->beta2, k + 1);
    }
}

/* SGD, one element (README section 8.1):
 *   g' = g + (wd * w);  v = (mu * v) + g';  w = w - (lr * v). */
static void sgd_elem(float mu, float wd, float lr, float *w, float *v, float g)
{
    float wd_w = wd * *w;
    float gp = g + wd_w;
    float mu_v = mu * *v;
    float lr_v;

    *v = mu_v + gp;
    lr_v = lr * *v;
    *w = *w - lr_v;
}

/* Adam, one element (README section 8.2). */
static void adam_elem(const struct dnn_opt *o, const struct dnn_params_scalars *s, float *w,
                      float *m, float *v, float g)
{
    float t1, t2, mhat, vhat, den, step;

    if (o->weight_decay != 0.0f) {
        t1 = s->lr_wd * *w; /* (lr * wd) * w */
        *w = *w - t1;       /* w - ((lr * wd) * w) */
    }
    t1 = o->beta1 * *m;         /* b1 * m */
    t2 = s->omb1 * g;           /* (1 - b1) * g */
    *m = t1 + t2;               /* m = (b1 * m) + ((1 - b1) * g) */
    t1 = o->beta2 * *v;         /* b2 * v */
    t2 = s->omb2 * g;           /* (1 - b2) * g */
    t2 = t2 * g;                /* ((1 - b2) * g) * g */
    *v = t1 + t2;               /* v = (b2 * v) + (((1 - b2) * g) * g) */
    mhat = *m / s->c1;          /* m / (1 - b1^t) */
    vhat = *v / s->c2;          /* v / (1 - b2^t) */
    den = sqrtf(vhat) + o->eps; /* sqrt(vhat) + eps */
    step = mhat / den;          /* mhat / (sqrt(vhat) + eps) */
    step = s->lr * step;        /* lr * (...) */
    *w = *w - step;             /* w - (lr * (...)) */
}

void dnn_params_update_range(const struct dnn_opt *o, const struct dnn_params_scalars *s, float *w,
                             float *m, float *v, const float *g, size_t n)
{
    if (o->kind == DNN_OPT_SGD) {
        for (size_t i = 0; i < n; i++)
            sgd_elem(o->momentum, o->weight_decay, s->lr, &w[i], &v[i], g[i]);
    } else {
        for (size_t i = 0; i < n; i++)
            adam_elem(o, s, &w[i], &m[i], &v[i], g[i]);
    }
}

void dnn_params_refresh_bf16(struct dnn_params *p, uint32_t l)
{
    struct dnn_params_layer *L = &p->layer[l];
    uint64_t n = dnn_model_layer_weights(&p->model, l);

    for (uint64_t i = 0; i < n; i++)
        L->wq[i] = bf16_from_f32(L->w[i]);
}

void dnn_params_init(struct dnn_params *p, uint64_t seed)
{
    struct dnn_rng rng;

    dnn_rng_seed(&rng, seed);
    for (uint32_t l = 0; l < p->model.n_layers; l++) {
        const struct dnn_layer *d = &p->model.layer[l];
        struct dnn_params_layer *L = &p->layer[l];
        uint64_t nw = dnn_model_layer_weights(&p->model, l);
        float a = sqrtf(6.0f / (float)(d->in + d->out));

        for (uint64_t i = 0; i < nw; i++) {
            float u = dnn_rng_unit(&rng);
            float t = 2.0f * u;

            t = t - 1.0f;
            L->w[i] = t * a;
        }
        memset(L->b, 0, d->out * sizeof(float));
        memset(L->w_v, 0, nw * sizeof(float));
        memset(L->b_v, 0, d->out * sizeof(float));
        if (L->w_m) {
            memset(L->w_m, 0, nw * sizeof(float));
            memset(L->b_m, 0, d->out * sizeof(float));
        }
        dnn_params_refresh_bf16(p, l);
    }
    p->step = 0;
    p->updated = 0;
}

void dnn_params_destroy(struct dnn_params *p)
{
    if (!p)
        return;
    for (uint32_t l = 0; l < DNN_MAX_LAYERS; l++) {
        struct dnn_params_layer *L = &p->layer[l];

        free(L->w);
        free(L->b);
        free(L->wq);
        free(L->w_m);
        free(L->w_v);
        free(L->b_m);
        free(L->b_v);
    }
    free(p);
}

int dnn_params_create(const struct dnn_params_cfg *cfg, struct dnn_params **out, struct err *e)
{
    const struct dnn_model *m = cfg->model;
    const struct dnn_opt *o = cfg->opt;
    struct dnn_params *p;
    int rc;

    *out = NULL;
    if (m->n_layers < 1 || m->n_layers > DNN_MAX_LAYERS)
        return err_set(e, -EINVAL, "model has %u layers; accepted 1..%u (dnn_model_parse)",
                       m->n_layers, DNN_MAX_LAYERS);
    rc = dnn_params_opt_validate(o, e);
    if (rc)
        return rc;
    p = calloc(1, sizeof(*p));
    if (!p)
        return err_set(e, -ENOMEM, "dnn_params: out of memory");
    p->model = *m;
    p->opt = *o;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        struct dnn_params_layer *L = &p->layer[l];
        size_t nw = (size_t)dnn_model_layer_weights(m, l);
        size_t nb = m->layer[l].out;
        bool adam = o->kind == DNN_OPT_ADAM;

        L->w = calloc(nw, sizeof(float));
        L->b = calloc(nb, sizeof(float));
        L->wq = calloc(nw, sizeof(uint16_t));
        L->w_v = calloc(nw, sizeof(float));
        L->b_v = calloc(nb, sizeof(float));
        L->w_m = adam ? calloc(nw, sizeof(float)) : NULL;
        L->b_m = adam ? calloc(nb, sizeof(float)) : NULL;
        if (!L->w || !L->b || !L->wq || !L->w_v || !L->b_v || (adam && (!L->w_m || !L->b_m))) {
            dnn_params_destroy(p);
            return err_set(e, -ENOMEM, "dnn_params: out of memory for layer %u (%zu weights)", l,
                           nw);
        }
    }
    dnn_params_init(p, cfg->seed);
    *out = p;
    return 0;
}

int dnn_params_update_layer(struct dnn_params *p, uint32_t l, const float *dw, const float *db,
                            struct err *e)
{
    struct dnn_params_scalars s;
    struct dnn_params_layer *L;

    if (l >= p->model.n_layers)
        return err_set(e, -EINVAL, "dnn_params_update_layer: layer %u; accepted 0..%u", l,
                       p->model.n_layers - 1);
    if (p->updated & (1u << l))
        return err_set(e, -EALREADY,
                       "dnn_params_update_layer: layer %u already updated in step %llu; "
                       "each layer is updated once per step, then dnn_params_end_step",
                       l, (unsigned long long)p->step);
    L = &p->layer[l];
    dnn_params_scalars(&p->opt, p->step, &s);
    dnn_params_update_range(&p->opt, &s, L->w, L->w_m, L->w_v, dw,
                            (size_t)dnn_model_layer_weights(&p->model, l));
    dnn_params_update_range(&p->opt, &s, L->b, L->b_m, L->b_v, db, p->model.layer[l].out);
    dnn_params_refresh_bf16(p, l);
    p->updated |= 1u << l;
    return 0;
}

int dnn_params_end_step(struct dnn_params *p, struct err *e)
{
    uint32_t all = (uint32_t)((1ull << p->model.n_layers) - 1);

    if (p->updated != all)
        return err_set(e, -EINVAL,
                       "dnn_params_end_step: step %llu updated layer mask 0x%x; every layer "
                       "(mask 0x%x) must be updated before the step ends",
                       (unsigned long long)p->step, p->updated, all);
    p->updated = 0;
    p->step++;
    return 0;
}

int dnn_params_step(struct dnn_params *p, float *const dw[], float *const db[], struct err *e)
{
    for (uint32_t l = p->model.n_layers; l-- > 0;) {
        int rc = dnn_params_update_layer(p, l, dw[l], db[l], e);

        if (rc)
            return rc;
    }
    return dnn_params_end_step(p, e);
}

static bool same(const void *a, const void *b, size_t bytes)
{
    if (!a || !b)
        return a == b;
    return memcmp(a, b, bytes) == 0;
}

bool dnn_params_equal(const struct dnn_params *a, const struct dnn_params *b)
{
    if (memcmp(&a->model, &b->model, sizeof(a->model)) != 0 || a->step != b->step)
        return false;
    for (uint32_t l = 0; l < a->model.n_layers; l++) {
        const struct dnn_params_layer *x = &a->layer[l], *y = &b->layer[l];
        size_t nw = (size_t)dnn_model_layer_weights(&a->model, l);
        size_t nb = a->model.layer[l].out;

        if (!same(x->w, y->w, nw * 4) || !same(x->b, y->b, nb * 4) || !same(x->wq, y->wq, nw * 2) ||
            !same(x->w_v, y->w_v, nw * 4) || !same(x->b_v, y->b_v, nb * 4) ||
            !same(x->w_m, y->w_m, nw * 4) || !same(x->b_m, y->b_m, nb * 4))
            return false;
    }
    return true;
}

static uint64_t fnv(uint64_t h, const void *data, size_t bytes)
{
    const unsigned char *c = data;

    for (size_t i = 0; c && i < bytes; i++) {
        h ^= c[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

uint64_t dnn_params_digest(const struct dnn_params *p)
{
    uint64_t h = 0xCBF29CE484222325ull;

    for (uint32_t l = 0; l < p->model.n_layers; l++) {
        const struct dnn_params_layer *L = &p->layer[l];
        size_t nw = (size_t)dnn_model_layer_weights(&p->model, l);
        size_t nb = p->model.layer[l].out;

        h = fnv(h, L->w, nw * 4);
        h = fnv(h, L->b, nb * 4);
        h = fnv(h, L->wq, nw * 2);
        h = fnv(h, L->w_m, nw * 4);
        h = fnv(h, L->w_v, nw * 4);
        h = fnv(h, L->b_m, nb * 4);
        h = fnv(h, L->b_v, nb * 4);
    }
    return h;
}
