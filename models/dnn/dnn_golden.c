/*
 * dnn_golden.c - the golden trainer; models/dnn/README.md is the specification it implements,
 * section by section (the section numbers are quoted in the comments).
 *
 * Style: clarity first. Every node (AN) is computed in turn with the same buffers; every GEMM
 * is models/ref/ref_gemm; every fp32 operation outside the GEMMs is a plain C float operation
 * (IEEE binary32, RNE, -ffp-contract=off), written one rounding at a time.
 */
#include "models/dnn/dnn_golden.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "models/ref/bf16.h"
#include "models/ref/ref_gemm.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "dnn_golden.c needs float arithmetic evaluated in binary32 (FLT_EVAL_METHOD == 0)"
#endif

/* ------------------------------------------------------------------ gradients */

int dnn_golden_grads_alloc(const struct dnn_model *m, struct dnn_grads *g, struct err *e)
{
    memset(g, 0, sizeof(*g));
    g->n_layers = m->n_layers;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        g->dw[l] = calloc((size_t)dnn_model_layer_weights(m, l), sizeof(float));
        g->db[l] = calloc(m->layer[l].out, sizeof(float));
        if (!g->dw[l] || !g->db[l]) {
            dnn_golden_grads_free(g);
            return err_set(e, -ENOMEM, "dnn_golden: out of memory for the gradients");
        }
    }
    return 0;
}

void dnn_golden_grads_free(struct dnn_grads *g)
{
    for (uint32_t l = 0; l < DNN_MAX_LAYERS; l++) {
        free(g->dw[l]);
        free(g->db[l]);
    }
    memset(g, 0, sizeof(*g));
}

/* ------------------------------------------------------------------ one node's buffers */

struct work {
    uint32_t rows;
    uint16_t *x[DNN_MAX_LAYERS]; /* x[l]: bf16 input of layer l, [rows x in_l] */
    uint32_t *acc;               /* GEMM output bits, [max(rows x maxw, maxw x maxw)] */
    float *z;                    /* fp32 Z of the current layer, [rows x maxw] */
    float *dz;                   /* fp32 dZ of the current layer, [rows x maxw] */
    uint16_t *g;                 /* bf16 G = bf16(dZ), [rows x maxw] */
    float *dw;                   /* one node's dW, [max in x out] */
    float *db;                   /* one node's db, [maxw] */
};

static void work_free(struct work *w)
{
    for (uint32_t l = 0; l < DNN_MAX_LAYERS; l++)
        free(w->x[l]);
    free(w->acc);
    free(w->z);
    free(w->dz);
    free(w->g);
    free(w->dw);
    free(w->db);
    memset(w, 0, sizeof(*w));
}

static int work_alloc(struct work *w, const struct dnn_model *m, uint32_t rows, bool backward,
                      struct err *e)
{
    size_t maxw = dnn_model_max_width(m);
    size_t acc = (size_t)rows * maxw, maxpw = 0;

    memset(w, 0, sizeof(*w));
    w->rows = rows;
    for (uint32_t l = 0; backward && l < m->n_layers; l++)
        if (dnn_model_layer_weights(m, l) > maxpw)
            maxpw = (size_t)dnn_model_layer_weights(m, l);
    acc = acc > maxpw ? acc : maxpw;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        w->x[l] = calloc((size_t)rows * m->layer[l].in, sizeof(uint16_t));
        if (!w->x[l])
            goto out_free;
    }
    w->acc = calloc(acc, sizeof(uint32_t));
    w->z = calloc((size_t)rows * maxw, sizeof(float));
    w->dz = calloc((size_t)rows * maxw, sizeof(float));
    w->g = calloc((size_t)rows * maxw, sizeof(uint16_t));
    w->dw = calloc(maxpw ? maxpw : 1, sizeof(float));
    w->db = calloc(maxw, sizeof(float));
    if (!w->acc || !w->z || !w->dz || !w->g || !w->dw || !w->db)
        goto out_free;
    return 0;

out_free:
    work_free(w);
    return err_set(e, -ENOMEM, "dnn_golden: out of memory for %u rows of %zu-wide layers", rows,
                   maxw);
}

/* Every GEMM of the trainer: the contract's reference, C = A * B with the clear rule. Its only
 * failure is a NULL pointer or a short leading dimension, which this file never passes. */
static void gemm(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, bool trans_a,
                 const uint16_t *B, size_t ldb, bool trans_b, uint32_t *C, size_t ldc)
{
    int rc = ref_gemm(M, N, K, A, lda, trans_a, B, ldb, trans_b, C, ldc, false);

    assert(rc == 0);
    (void)rc;
}

static void tap_emit(dnn_tap_fn tap, void *ctx, enum dnn_tap_kind kind, uint32_t node,
                     uint32_t layer, uint32_t rows, uint32_t cols, const void *data)
{
    struct dnn_tap t = {kind, node, layer, rows, cols, data};

    if (tap)
        tap(ctx, &t);
}

/* ------------------------------------------------------------------ README section 2.1: data */

static void load_inputs(uint16_t *x, const uint8_t *pixels, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = (float)pixels[i] / 255.0f;

        x[i] = bf16_from_f32(v);
    }
}

/* ------------------------------------------------------------------ README section 4: forward */

/*
 * Forward pass of w->rows rows whose bf16 inputs are in w->x[0]. Fills w->x[1..L-1] and leaves
 * the logits of the last layer in w->z [rows x classes].
 */
static void forward(const struct dnn_params *p, struct work *w, uint32_t node, dnn_tap_fn tap,
                    void *ctx)
{
    const struct dnn_model *m = &p->model;
    uint32_t r = w->rows;

    for (uint32_t l = 0; l < m->n_layers; l++) {
        uint32_t in = m->layer[l].in, out = m->layer[l].out;
        const float *b = p->layer[l].b;

        tap_emit(tap, ctx, DNN_TAP_X, node, l, r, in, w->x[l]);
        /* Y [r x out] = X [r x in] * W [in x out], sum over k = 0..in-1 ascending. */
        gemm(r, out, in, w->x[l], in, false, p->layer[l].wq, out, false, w->acc, out);
        for (size_t i = 0; i < r; i++) {
            for (size_t j = 0; j < out; j++) {
                float y = fp32_from_bits(w->acc[i * out + j]);

                w->z[i * out + j] = y + b[j]; /* Z = fl(Y + b) */
            }
        }
        tap_emit(tap, ctx, DNN_TAP_Z, node, l, r, out, w->z);
        if (l + 1 == m->n_layers)
            break; /* the last Z are the logits */
        for (size_t i = 0; i < (size_t)r * out; i++) {
            float a = w->z[i] > 0.0f ? w->z[i] : +0.0f; /* ReLU; NaN and -0 give +0 */

            w->x[l + 1][i] = bf16_from_f32(a); /* stored to flash as bf16 */
        }
    }
}

/* ------------------------------------------------------------------ README section 5: loss */

/*
 * Softmax cross-entropy of r rows of logits z [r x c] with labels y. Writes
 * dz[i][j] = (p_ij - [j == y_i]) / Bf and returns the shard loss sum_i loss_i (ascending i,
 * the first term replaces the accumulator).
 */
static float softmax_ce(const float *z, const uint8_t *y, uint32_t r, uint32_t c, float Bf,
                        float *dz)
{
    float shard = 0.0f;

    for (size_t i = 0; i < r; i++) {
        const float *zi = &z[i * c];
        float *di = &dz[i * c];
        float m = zi[0], s, zy, loss;

        for (size_t j = 1; j < c; j++)
            if (zi[j] > m)
                m = zi[j];
        for (size_t j = 0; j < c; j++) {
            float d = zi[j] - m;

            di[j] = expf(d); /* e_ij, kept in dz until p is formed */
        }
        s = di[0];
        for (size_t j = 1; j < c; j++)
            s = s + di[j];
        for (size_t j = 0; j < c; j++) {
            float pij = di[j] / s;
            float t = pij - (j == y[i] ? 1.0f : 0.0f);

            di[j] = t / Bf;
        }
        zy = zi[y[i]] - m;
        loss = logf(s) - zy;
        shard = i == 0 ? loss : shard + loss;
    }
    return shard;
}

/* ------------------------------------------------------------------ argument checks */

static int check_batch(const struct dnn_params *p, const uint8_t *images, const uint8_t *labels,
                       uint32_t B, uint32_t N, struct err *e)
{
    uint32_t classes = dnn_model_classes(&p->model);

    if (!images || !labels)
        return err_set(e, -EINVAL, "dnn_golden: images or labels is NULL");
    if (B < 1 || B > (1u << 24))
        return err_set(e, -EINVAL, "dnn_golden: batch B = %u; accepted 1..%u", B, 1u << 24);
    if (N < 1 || B % N != 0)
        return err_set(e, -EINVAL,
                       "dnn_golden: B = %u rows cannot be split into N = %u equal shards; "
                       "accepted N >= 1 dividing B",
                       B, N);
    for (uint32_t i = 0; i < B; i++)
        if (labels[i] >= classes)
            return err_set(e, -EINVAL,
                           "dnn_golden: label %u of batch row %u is out of range; accepted "
                           "0..%u (the model has %u classes)",
                           labels[i], i, classes - 1, classes);
    return 0;
}

/* ------------------------------------------------------------------ README section 6: backward */

/* G = bf16(dZ), and this node's partials of layer l [in x o] from it. */
static void layer_partials(struct work *w, uint32_t l, uint32_t in, uint32_t o)
{
    uint32_t r = w->rows;

    for (size_t i = 0; i < (size_t)r * o; i++)
        w->g[i] = bf16_from_f32(w->dz[i]); /* G = bf16(dZ) */
    /* dW partial [in x o] = X^T [in x r] * G [r x o], k = rows ascending. */
    gemm(in, o, r, w->x[l], in, true, w->g, o, false, w->acc, o);
    for (size_t i = 0; i < (size_t)in * o; i++)
        w->dw[i] = fp32_from_bits(w->acc[i]);
    /* db partial[j] = sum over rows i ascending of fp32 dZ[i][j]. */
    for (size_t j = 0; j < o; j++) {
        float s = w->dz[j];

        for (size_t i = 1; i < r; i++)
            s = s + w->dz[i * o + j];
        w->db[j] = s;
    }
}

/* Section 7: fold node's partials of layer l into the sums, node order 0..N-1. */
static void fold_partials(struct dnn_grads *out, const struct work *w, uint32_t node, uint32_t l,
                          size_t nw, uint32_t o)
{
    for (size_t i = 0; i < nw; i++)
        out->dw[l][i] = node == 0 ? w->dw[i] : out->dw[l][i] + w->dw[i];
    for (size_t j = 0; j < o; j++)
        out->db[l][j] = node == 0 ? w->db[j] : out->db[l][j] + w->db[j];
}

/* dZ of layer l-1 from G of layer l, l >= 1. */
static void propagate(const struct dnn_params *p, struct work *w, uint32_t l)
{
    uint32_t r = w->rows, in = p->model.layer[l].in, o = p->model.layer[l].out;

    /* dX [r x in] = G [r x o] * W^T [o x in] (W stored [in x o]), k = o ascending. */
    gemm(r, in, o, w->g, o, false, p->layer[l].wq, o, true, w->acc, in);
    /* dZ of layer l-1: masked by the stored bf16 activation (value > 0). */
    for (size_t i = 0; i < (size_t)r * in; i++) {
        float x = bf16_to_f32(w->x[l][i]);

        w->dz[i] = x > 0.0f ? fp32_from_bits(w->acc[i]) : +0.0f;
    }
}

/* Backward pass of one node, l = L-1 .. 0, from dZ of the last layer in w->dz; its partials
 * are folded into out. */
static void backward(const struct dnn_params *p, struct work *w, uint32_t node,
                     struct dnn_grads *out, dnn_tap_fn tap, void *ctx)
{
    const struct dnn_model *m = &p->model;

    for (uint32_t l = m->n_layers; l-- > 0;) {
        uint32_t in = m->layer[l].in, o = m->layer[l].out;

        tap_emit(tap, ctx, DNN_TAP_DZ, node, l, w->rows, o, w->dz);
        layer_partials(w, l, in, o);
        tap_emit(tap, ctx, DNN_TAP_DW_PARTIAL, node, l, in, o, w->dw);
        tap_emit(tap, ctx, DNN_TAP_DB_PARTIAL, node, l, 1, o, w->db);
        fold_partials(out, w, node, l, (size_t)in * o, o);
        if (l == 0)
            break;
        propagate(p, w, l);
    }
}

/* ------------------------------------------------------------------ README sections 4-7 */

/* Section 5: global loss = (shard losses summed in node order) / B. */
static float global_loss(const float *shard_loss, uint32_t N, float Bf)
{
    float total = shard_loss[0];

    for (uint32_t n = 1; n < N; n++)
        total = total + shard_loss[n];
    return total / Bf;
}

static void tap_sums(const struct dnn_model *m, const struct dnn_grads *out, dnn_tap_fn tap,
                     void *ctx)
{
    for (uint32_t l = 0; l < m->n_layers; l++) {
        tap_emit(tap, ctx, DNN_TAP_DW, DNN_TAP_ALL_NODES, l, m->layer[l].in, m->layer[l].out,
                 out->dw[l]);
        tap_emit(tap, ctx, DNN_TAP_DB, DNN_TAP_ALL_NODES, l, 1, m->layer[l].out, out->db[l]);
    }
}

int dnn_golden_grad(const struct dnn_params *p, const uint8_t *images, const uint8_t *labels,
                    uint32_t B, uint32_t N, struct dnn_grads *out, float *loss, dnn_tap_fn tap,
                    void *tap_ctx, struct err *e)
{
    const struct dnn_model *m = &p->model;
    uint32_t L = m->n_layers, in0 = dnn_model_inputs(m), classes = dnn_model_classes(m);
    float Bf = (float)B, total = 0.0f;
    float *shard_loss;
    struct work w;
    uint32_t r;
    int rc;

    rc = check_batch(p, images, labels, B, N, e);
    if (rc)
        return rc;
    if (!out || out->n_layers != L)
        return err_set(e, -EINVAL,
                       "dnn_golden: gradients for %u layers given, the model has %u "
                       "(dnn_golden_grads_alloc)",
                       out ? out->n_layers : 0, L);
    r = B / N;
    shard_loss = calloc(N, sizeof(float));
    if (!shard_loss)
        return err_set(e, -ENOMEM, "dnn_golden: out of memory");
    rc = work_alloc(&w, m, r, true, e);
    if (rc)
        goto out_shard;

    for (uint32_t n = 0; n < N; n++) {
        /* Section 2.2: AN n gets rows n*r .. n*r+r-1. */
        load_inputs(w.x[0], &images[(size_t)n * r * in0], (size_t)r * in0);
        forward(p, &w, n, tap, tap_ctx);
        /* Section 5: loss and dZ of the last layer. */
        shard_loss[n] = softmax_ce(w.z, &labels[(size_t)n * r], r, classes, Bf, w.dz);
        tap_emit(tap, tap_ctx, DNN_TAP_SHARD_LOSS, n, 0, 1, 1, &shard_loss[n]);
        backward(p, &w, n, out, tap, tap_ctx);
    }
    tap_sums(m, out, tap, tap_ctx);
    total = global_loss(shard_loss, N, Bf);
    tap_emit(tap, tap_ctx, DNN_TAP_LOSS, DNN_TAP_ALL_NODES, 0, 1, 1, &total);
    if (loss)
        *loss = total;
    work_free(&w);
out_shard:
    free(shard_loss);
    return rc;
}

/* ------------------------------------------------------------------ trainer */

int dnn_golden_init(struct dnn_golden *g, struct dnn_params *p, struct err *e)
{
    memset(g, 0, sizeof(*g));
    g->params = p;
    return dnn_golden_grads_alloc(&p->model, &g->grads, e);
}

void dnn_golden_fini(struct dnn_golden *g)
{
    dnn_golden_grads_free(&g->grads);
    free(g->losses);
    memset(g, 0, sizeof(*g));
}

int dnn_golden_step(struct dnn_golden *g, const uint8_t *images, const uint8_t *labels, uint32_t B,
                    uint32_t N, float *loss, struct err *e)
{
    float l;
    int rc;

    if (g->n_losses == g->cap_losses) {
        size_t cap = g->cap_losses ? 2 * g->cap_losses : 64;
        float *n = realloc(g->losses, cap * sizeof(float));

        if (!n)
            return err_set(e, -ENOMEM, "dnn_golden: out of memory for the loss history");
        g->losses = n;
        g->cap_losses = cap;
    }
    rc = dnn_golden_grad(g->params, images, labels, B, N, &g->grads, &l, g->tap, g->tap_ctx, e);
    if (rc)
        return rc;
    /* Section 8: the optimizer on the masters, then the bf16 copies are refreshed. */
    rc = dnn_params_step(g->params, g->grads.dw, g->grads.db, e);
    if (rc)
        return rc;
    g->losses[g->n_losses++] = l;
    if (loss)
        *loss = l;
    return 0;
}

/* ------------------------------------------------------------------ evaluation */

uint32_t dnn_golden_argmax(const float *z, uint32_t classes)
{
    uint32_t best = 0;

    for (uint32_t j = 1; j < classes; j++)
        if (z[j] > z[best])
            best = j;
    return best;
}

int dnn_golden_forward(const struct dnn_params *p, const uint8_t *images, uint32_t rows,
                       float *logits, struct err *e)
{
    uint32_t classes = dnn_model_classes(&p->model);
    struct work w;
    int rc;

    if (!images || !logits || rows < 1)
        return err_set(e, -EINVAL, "dnn_golden_forward: need images, logits and rows >= 1");
    rc = work_alloc(&w, &p->model, rows, false, e);
    if (rc)
        return rc;
    load_inputs(w.x[0], images, (size_t)rows * dnn_model_inputs(&p->model));
    forward(p, &w, 0, NULL, NULL);
    memcpy(logits, w.z, (size_t)rows * classes * sizeof(float));
    work_free(&w);
    return 0;
}

int dnn_golden_eval(const struct dnn_params *p, const uint8_t *images, const uint8_t *labels,
                    uint32_t count, uint32_t batch, uint32_t *correct, struct err *e)
{
    uint32_t in0 = dnn_model_inputs(&p->model), classes = dnn_model_classes(&p->model);
    uint32_t ok = 0;
    float *z;

    *correct = 0;
    if (!images || !labels || batch < 1)
        return err_set(e, -EINVAL, "dnn_golden_eval: need images, labels and batch >= 1");
    z = malloc((size_t)batch * classes * sizeof(float));
    if (!z)
        return err_set(e, -ENOMEM, "dnn_golden_eval: out of memory");
    for (uint32_t first = 0; first < count; first += batch) {
        uint32_t rows = count - first < batch ? count - first : batch;
        int rc = dnn_golden_forward(p, &images[(size_t)first * in0], rows, z, e);

        if (rc) {
            free(z);
            return rc;
        }
        for (uint32_t i = 0; i < rows; i++)
            ok += dnn_golden_argmax(&z[(size_t)i * classes], classes) == labels[first + i];
    }
    free(z);
    *correct = ok;
    return 0;
}
