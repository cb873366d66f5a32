/*
 * test_dnn_golden: the golden trainer.
 *   - the loss falls over 50 steps on a tiny synthetic problem, with SGD and with Adam;
 *   - the backward pass against central finite differences of the loss in double precision
 *     (bf16-exact weights and inputs, so only the bf16 rounding of activations and of dZ
 *     separates the two: loose tolerance, but a sign, transpose or mask bug fails it);
 *   - N = 1, 2, 4 give different but deterministic bits; the same seed gives the same bits;
 *   - the tap sees partials that fold (node order) into the reduced gradient and loss;
 *   - a second implementation of a training step written from models/dnn/README.md alone
 *     (explicit loops over fp32_mac, its own optimizer) agrees with the golden trainer bit for
 *     bit, for SGD and Adam, N = 1, 2, 4;
 *   - evaluation does not depend on the batch size; argument errors are named.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/dnn/dnn_golden.h"
#include "models/dnn/dnn_rng.h"
#include "models/ref/bf16.h"

#define SYN_IN      16
#define SYN_CLASSES 4
#define SYN_B       8
#define SYN_COUNT   64

/* A separable synthetic problem: class c lights up the inputs j with j % 4 == c. */
static void make_data(uint8_t *img, uint8_t *lab, uint32_t count, uint64_t seed)
{
    struct dnn_rng r;

    dnn_rng_seed(&r, seed);
    for (uint32_t s = 0; s < count; s++) {
        uint32_t c = (uint32_t)dnn_rng_below(&r, SYN_CLASSES);

        lab[s] = (uint8_t)c;
        for (uint32_t j = 0; j < SYN_IN; j++)
            img[s * SYN_IN + j] =
                (uint8_t)((j % SYN_CLASSES == c ? 150 : 0) + dnn_rng_below(&r, 100));
    }
}

static struct dnn_params *make_params(const char *spec, const struct dnn_opt *o, uint64_t seed)
{
    struct dnn_model m;
    struct dnn_params *p;
    struct err e = {{0}};

    if (dnn_model_parse(&m, spec, &e) ||
        dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = o, .seed = seed}, &p, &e))
        fail_msg("%s", e.msg);
    return p;
}

/* ------------------------------------------------------------------ loss falls */

static void train_synthetic(const struct dnn_opt *o, const char *name)
{
    uint8_t img[SYN_COUNT * SYN_IN], lab[SYN_COUNT];
    struct dnn_params *p = make_params("mlp:16-32-4", o, 1);
    struct dnn_golden g;
    struct err e = {{0}};
    float first = 0, last = 0;

    make_data(img, lab, SYN_COUNT, 100);
    assert_int_equal(dnn_golden_init(&g, p, &e), 0);
    for (uint32_t k = 0; k < 50; k++) {
        uint32_t b = k % (SYN_COUNT / SYN_B);

        if (dnn_golden_step(&g, &img[b * SYN_B * SYN_IN], &lab[b * SYN_B], SYN_B, 2, NULL, &e))
            fail_msg("%s", e.msg);
    }
    assert_int_equal(g.n_losses, 50);
    assert_int_equal(p->step, 50);
    for (int k = 0; k < 8; k++) { /* one pass over the data at each end */
        first += g.losses[k];
        last += g.losses[42 + k];
    }
    print_message("%s: mean loss of steps 0-7 %.4f, of steps 42-49 %.4f\n", name, (double)first / 8,
                  (double)last / 8);
    assert_true(first / 8 > 1.0f);     /* about ln 4 = 1.386 at the start */
    assert_true(last < 0.25f * first); /* and falls by 4x */
    dnn_golden_fini(&g);
    dnn_params_destroy(p);
}

static void test_loss_falls_sgd(void **state)
{
    struct dnn_opt o;

    (void)state;
    dnn_params_opt_sgd(&o, 0.1f, 0.9f, 1e-4f);
    train_synthetic(&o, "sgd");
}

static void test_loss_falls_adam(void **state)
{
    struct dnn_opt o;

    (void)state;
    dnn_params_opt_adam(&o, 1e-2f);
    train_synthetic(&o, "adam");
}

/* ------------------------------------------------------------------ gradient check */

#define GC_SPEC "mlp:6-5-4-3"
#define GC_B    4

/* Mean softmax-cross-entropy in double of the model with weights W, b on inputs x. */
static double loss_double(const struct dnn_model *m, double *const W[], double *const b[],
                          const double *x0, const uint8_t *lab, uint32_t B, double *min_hidden)
{
    double total = 0.0;

    for (uint32_t s = 0; s < B; s++) {
        double x[8], z[8];
        uint32_t w = m->layer[0].in;

        for (uint32_t i = 0; i < w; i++)
            x[i] = x0[s * w + i];
        for (uint32_t l = 0; l < m->n_layers; l++) {
            uint32_t in = m->layer[l].in, out = m->layer[l].out;

            for (uint32_t j = 0; j < out; j++) {
                z[j] = b[l][j];
                for (uint32_t i = 0; i < in; i++)
                    z[j] += x[i] * W[l][i * out + j];
            }
            for (uint32_t j = 0; j < out; j++) {
                if (l + 1 < m->n_layers) {
                    if (min_hidden && fabs(z[j]) < *min_hidden)
                        *min_hidden = fabs(z[j]);
                    x[j] = z[j] > 0 ? z[j] : 0.0;
                } else {
                    x[j] = z[j];
                }
            }
        }
        double mx = x[0], se = 0.0;
        uint32_t c = dnn_model_classes(m);

        for (uint32_t j = 1; j < c; j++)
            mx = x[j] > mx ? x[j] : mx;
        for (uint32_t j = 0; j < c; j++)
            se += exp(x[j] - mx);
        total += log(se) - (x[lab[s]] - mx);
    }
    return total / B;
}

static void gradient_check(uint32_t N, int break_what)
{
    struct dnn_opt o;
    struct dnn_params *p;
    struct dnn_grads gr;
    struct dnn_rng r;
    struct err e = {{0}};
    uint8_t img[GC_B * 6], lab[GC_B] = {0, 2, 1, 2};
    double x0[GC_B * 6], *W[3], *b[3], min_hidden = 1e30;
    float loss;

    dnn_params_opt_sgd(&o, 0.1f, 0.0f, 0.0f);
    p = make_params(GC_SPEC, &o, 1);
    /* bf16-exact weights k / 64 (|k| <= 48, at most 6 significant bits) and small biases. */
    dnn_rng_seed(&r, 2037); /* a point whose hidden pre-activations are all >= 0.25 from 0 */
    for (uint32_t l = 0; l < p->model.n_layers; l++) {
        size_t nw = (size_t)dnn_model_layer_weights(&p->model, l);

        W[l] = calloc(nw, sizeof(double));
        b[l] = calloc(p->model.layer[l].out, sizeof(double));
        for (size_t i = 0; i < nw; i++) {
            p->layer[l].w[i] = (float)((int)dnn_rng_below(&r, 97) - 48) / 64.0f;
            W[l][i] = p->layer[l].w[i];
        }
        for (size_t j = 0; j < p->model.layer[l].out; j++) {
            p->layer[l].b[j] = (float)((int)dnn_rng_below(&r, 33) - 16) / 128.0f;
            b[l][j] = p->layer[l].b[j];
        }
        dnn_params_refresh_bf16(p, l);
    }
    for (uint32_t i = 0; i < GC_B * 6; i++) {
        img[i] = (uint8_t)dnn_rng_below(&r, 256);
        x0[i] = bf16_to_f32(bf16_from_f32((float)img[i] / 255.0f)); /* the inputs as trained */
    }

    assert_int_equal(dnn_golden_grads_alloc(&p->model, &gr, &e), 0);
    assert_int_equal(dnn_golden_grad(p, img, lab, GC_B, N, &gr, &loss, NULL, NULL, &e), 0);
    double f0 = loss_double(&p->model, W, b, x0, lab, GC_B, &min_hidden);
    if (min_hidden < 0.05) /* bf16 rounding must not move any unit across the ReLU kink */
        fail_msg("a hidden pre-activation is %g from the ReLU kink: pick another seed", min_hidden);
    assert_true(fabs(loss - f0) < 1e-2 * f0);

    if (break_what == 1) /* self-test of the check: a flipped sign must fail it */
        gr.dw[1][3] = -gr.dw[1][3];
    if (break_what == 2) /* a transposed gradient */
        for (uint32_t i = 0; i < 4; i++)
            for (uint32_t j = 0; j < i; j++) {
                float t = gr.dw[1][i * 4 + j];

                gr.dw[1][i * 4 + j] = gr.dw[1][j * 4 + i];
                gr.dw[1][j * 4 + i] = t;
            }

    int bad = 0;
    for (uint32_t l = 0; l < p->model.n_layers; l++) {
        uint32_t out = p->model.layer[l].out;
        size_t nw = (size_t)dnn_model_layer_weights(&p->model, l);
        double scale = 0.0, h = 1e-4;
        double *fd = calloc(nw + out, sizeof(double));

        for (size_t i = 0; i < nw + out; i++) {
            double *v = i < nw ? &W[l][i] : &b[l][i - nw];
            double keep = *v, fp, fm;

            *v = keep + h;
            fp = loss_double(&p->model, W, b, x0, lab, GC_B, NULL);
            *v = keep - h;
            fm = loss_double(&p->model, W, b, x0, lab, GC_B, NULL);
            *v = keep;
            fd[i] = (fp - fm) / (2 * h);
            scale = fabs(fd[i]) > scale ? fabs(fd[i]) : scale;
        }
        if (scale < 1e-3) /* a dead layer would make the check vacuous */
            fail_msg("layer %u: largest gradient %g", l, scale);
        for (size_t i = 0; i < nw + out; i++) {
            double got = i < nw ? gr.dw[l][i] : gr.db[l][i - nw];
            double tol = 0.02 * scale + 1e-6;

            if (fabs(got - fd[i]) > tol) {
                if (!break_what)
                    print_message("layer %u %s[%zu]: golden %.6g, finite difference %.6g\n", l,
                                  i < nw ? "dW" : "db", i < nw ? i : i - nw, got, fd[i]);
                bad++;
            }
        }
        free(fd);
    }
    for (uint32_t l = 0; l < p->model.n_layers; l++) {
        free(W[l]);
        free(b[l]);
    }
    dnn_golden_grads_free(&gr);
    dnn_params_destroy(p);
    if (break_what)
        assert_true(bad > 0);
    else
        assert_int_equal(bad, 0);
}

static void test_gradient_check(void **state)
{
    (void)state;
    gradient_check(1, 0);
    gradient_check(2, 0);
    gradient_check(4, 0);
    gradient_check(1, 1); /* the check catches a sign error ... */
    gradient_check(1, 2); /* ... and a transpose */
}

/* ------------------------------------------------------------------ determinism and N */

static uint64_t run_steps(uint32_t N, uint64_t seed, float *loss_out)
{
    uint8_t img[SYN_COUNT * SYN_IN], lab[SYN_COUNT];
    struct dnn_opt o;
    struct dnn_params *p;
    struct dnn_golden g;
    struct err e = {{0}};
    uint64_t d;

    dnn_params_opt_sgd(&o, 0.1f, 0.9f, 1e-4f);
    p = make_params("mlp:16-32-4", &o, seed);
    make_data(img, lab, SYN_COUNT, 100);
    assert_int_equal(dnn_golden_init(&g, p, &e), 0);
    for (uint32_t k = 0; k < 10; k++) {
        uint32_t b = k % (SYN_COUNT / SYN_B);

        if (dnn_golden_step(&g, &img[b * SYN_B * SYN_IN], &lab[b * SYN_B], SYN_B, N, &loss_out[k],
                            &e))
            fail_msg("%s", e.msg);
    }
    d = dnn_params_digest(p);
    dnn_golden_fini(&g);
    dnn_params_destroy(p);
    return d;
}

static void test_nodes_deterministic(void **state)
{
    static const uint32_t Ns[] = {1, 2, 4};
    float loss[3][10], again[10];
    uint64_t d[3];

    (void)state;
    for (int i = 0; i < 3; i++) {
        d[i] = run_steps(Ns[i], 9, loss[i]);
        /* Same seed, same N: the same bits. */
        assert_true(run_steps(Ns[i], 9, again) == d[i]);
        assert_memory_equal(again, loss[i], sizeof(again));
        print_message("N = %u: digest %016llx, loss step 9 = %.9g\n", Ns[i],
                      (unsigned long long)d[i], (double)loss[i][9]);
    }
    /* Different N: different bits, nearly the same training. */
    assert_true(d[0] != d[1] && d[0] != d[2] && d[1] != d[2]);
    for (int i = 1; i < 3; i++)
        for (int k = 0; k < 10; k++)
            assert_true(fabsf(loss[i][k] - loss[0][k]) < 1e-3f * loss[0][k]);
    /* A different seed: different bits. */
    assert_true(run_steps(1, 10, again) != d[0]);
}

/* ------------------------------------------------------------------ tap */

struct tap_log {
    float *dw_part[4]; /* layer 0 partials of each node */
    float db_part[4][32];
    float shard[4];
    float *dw; /* reduced layer 0 */
    float loss;
    uint16_t x1[SYN_B * SYN_IN]; /* layer-0 input of node 1 */
    int n_events;
};

static void tap(void *ctx, const struct dnn_tap *t)
{
    struct tap_log *lg = ctx;
    size_t n = (size_t)t->rows * t->cols;

    lg->n_events++;
    if (t->kind == DNN_TAP_DW_PARTIAL && t->layer == 0) {
        lg->dw_part[t->node] = malloc(n * sizeof(float));
        memcpy(lg->dw_part[t->node], t->data, n * sizeof(float));
    } else if (t->kind == DNN_TAP_DB_PARTIAL && t->layer == 0) {
        memcpy(lg->db_part[t->node], t->data, n * sizeof(float));
    } else if (t->kind == DNN_TAP_SHARD_LOSS) {
        lg->shard[t->node] = *(const float *)t->data;
    } else if (t->kind == DNN_TAP_DW && t->layer == 0) {
        assert_int_equal(t->node, DNN_TAP_ALL_NODES);
        lg->dw = malloc(n * sizeof(float));
        memcpy(lg->dw, t->data, n * sizeof(float));
    } else if (t->kind == DNN_TAP_LOSS) {
        lg->loss = *(const float *)t->data;
    } else if (t->kind == DNN_TAP_X && t->layer == 0 && t->node == 1) {
        memcpy(lg->x1, t->data, n * sizeof(uint16_t));
    }
}

static void test_tap_partials_fold(void **state)
{
    uint8_t img[SYN_COUNT * SYN_IN], lab[SYN_COUNT];
    struct tap_log lg;
    struct dnn_opt o;
    struct dnn_params *p;
    struct dnn_grads gr;
    struct err e = {{0}};
    float loss;

    (void)state;
    memset(&lg, 0, sizeof(lg));
    dnn_params_opt_sgd(&o, 0.1f, 0.9f, 0.0f);
    p = make_params("mlp:16-32-4", &o, 3);
    make_data(img, lab, SYN_COUNT, 100);
    assert_int_equal(dnn_golden_grads_alloc(&p->model, &gr, &e), 0);
    assert_int_equal(dnn_golden_grad(p, img, lab, SYN_B, 4, &gr, &loss, tap, &lg, &e), 0);
    /* Per node: X, Z per layer; loss; dZ, dW, db per layer. Then dW, db per layer, loss. */
    assert_int_equal(lg.n_events, 4 * (2 * 2 + 1 + 3 * 2) + 2 * 2 + 1);
    for (size_t i = 0; i < 16 * 32; i++) {
        float s = lg.dw_part[0][i];

        for (int n = 1; n < 4; n++)
            s = s + lg.dw_part[n][i];
        assert_true(fp32_bits(s) == fp32_bits(lg.dw[i]));
        assert_true(fp32_bits(s) == fp32_bits(gr.dw[0][i]));
    }
    for (size_t j = 0; j < 32; j++) {
        float s = lg.db_part[0][j];

        for (int n = 1; n < 4; n++)
            s = s + lg.db_part[n][j];
        assert_true(fp32_bits(s) == fp32_bits(gr.db[0][j]));
    }
    float s = lg.shard[0];
    for (int n = 1; n < 4; n++)
        s = s + lg.shard[n];
    s = s / (float)SYN_B;
    assert_true(fp32_bits(s) == fp32_bits(loss) && fp32_bits(s) == fp32_bits(lg.loss));
    /* Node 1 of 4 holds batch rows 2 and 3. */
    for (size_t i = 0; i < 2 * SYN_IN; i++)
        assert_int_equal(lg.x1[i], bf16_from_f32((float)img[2 * SYN_IN + i] / 255.0f));
    for (int n = 0; n < 4; n++)
        free(lg.dw_part[n]);
    free(lg.dw);
    dnn_golden_grads_free(&gr);
    dnn_params_destroy(p);
}

/* ------------------------------------------------------------------ second implementation */

/*
 * One training step written from models/dnn/README.md alone, with its own loops: the dot
 * products with fp32_mac_clear / fp32_mac, every other operation through a volatile float (one
 * rounding each), its own optimizer. It updates q in place (q is used for storage only).
 */
#define IR_MAXW 32

static float v_add(float a, float b)
{
    volatile float r = a + b;
    return r;
}
static float v_sub(float a, float b)
{
    volatile float r = a - b;
    return r;
}
static float v_mul(float a, float b)
{
    volatile float r = a * b;
    return r;
}
static float v_div(float a, float b)
{
    volatile float r = a / b;
    return r;
}

static void ir_step(struct dnn_params *q, const uint8_t *img, const uint8_t *lab, uint32_t B,
                    uint32_t N)
{
    const struct dnn_model *m = &q->model;
    uint32_t L = m->n_layers, r = B / N, C = dnn_model_classes(m), in0 = m->layer[0].in;
    static uint16_t X[DNN_MAX_LAYERS][SYN_B][IR_MAXW];
    static float gw[DNN_MAX_LAYERS][IR_MAXW * IR_MAXW], gb[DNN_MAX_LAYERS][IR_MAXW];
    float shard[8], dz[SYN_B][IR_MAXW], z[SYN_B][IR_MAXW];

    for (uint32_t n = 0; n < N; n++) {
        for (uint32_t i = 0; i < r; i++) /* section 2 */
            for (uint32_t c = 0; c < in0; c++)
                X[0][i][c] = bf16_from_f32(v_div((float)img[(n * r + i) * in0 + c], 255.0f));
        for (uint32_t l = 0; l < L; l++) { /* section 4 */
            uint32_t in = m->layer[l].in, out = m->layer[l].out;

            for (uint32_t i = 0; i < r; i++)
                for (uint32_t j = 0; j < out; j++) {
                    uint32_t s = fp32_mac_clear(X[l][i][0], q->layer[l].wq[j]);

                    for (uint32_t k = 1; k < in; k++)
                        s = fp32_mac(s, X[l][i][k], q->layer[l].wq[k * out + j]);
                    z[i][j] = v_add(fp32_from_bits(s), q->layer[l].b[j]);
                    if (l + 1 < L)
                        X[l + 1][i][j] = bf16_from_f32(z[i][j] > 0.0f ? z[i][j] : 0.0f);
                }
        }
        for (uint32_t i = 0; i < r; i++) { /* section 5 */
            uint32_t y = lab[n * r + i];
            float mx = z[i][0], s, e[IR_MAXW], li;

            for (uint32_t j = 1; j < C; j++)
                if (z[i][j] > mx)
                    mx = z[i][j];
            for (uint32_t j = 0; j < C; j++)
                e[j] = expf(v_sub(z[i][j], mx));
            s = e[0];
            for (uint32_t j = 1; j < C; j++)
                s = v_add(s, e[j]);
            for (uint32_t j = 0; j < C; j++)
                dz[i][j] = v_div(v_sub(v_div(e[j], s), j == y ? 1.0f : 0.0f), (float)B);
            li = v_sub(logf(s), v_sub(z[i][y], mx));
            shard[n] = i == 0 ? li : v_add(shard[n], li);
        }
        for (uint32_t l = L; l-- > 0;) { /* sections 6 and 7 */
            uint32_t in = m->layer[l].in, out = m->layer[l].out;
            uint16_t G[SYN_B][IR_MAXW];
            float dx[SYN_B][IR_MAXW];

            for (uint32_t i = 0; i < r; i++)
                for (uint32_t j = 0; j < out; j++)
                    G[i][j] = bf16_from_f32(dz[i][j]);
            for (uint32_t a = 0; a < in; a++)
                for (uint32_t j = 0; j < out; j++) {
                    uint32_t s = fp32_mac_clear(X[l][0][a], G[0][j]);

                    for (uint32_t k = 1; k < r; k++)
                        s = fp32_mac(s, X[l][k][a], G[k][j]);
                    gw[l][a * out + j] =
                        n == 0 ? fp32_from_bits(s) : v_add(gw[l][a * out + j], fp32_from_bits(s));
                }
            for (uint32_t j = 0; j < out; j++) {
                float s = dz[0][j];

                for (uint32_t i = 1; i < r; i++)
                    s = v_add(s, dz[i][j]);
                gb[l][j] = n == 0 ? s : v_add(gb[l][j], s);
            }
            if (l == 0)
                break;
            for (uint32_t i = 0; i < r; i++)
                for (uint32_t c = 0; c < in; c++) {
                    uint32_t s = fp32_mac_clear(G[i][0], q->layer[l].wq[c * out + 0]);

                    for (uint32_t k = 1; k < out; k++)
                        s = fp32_mac(s, G[i][k], q->layer[l].wq[c * out + k]);
                    dx[i][c] = bf16_to_f32(X[l][i][c]) > 0.0f ? fp32_from_bits(s) : 0.0f;
                }
            for (uint32_t i = 0; i < r; i++)
                for (uint32_t c = 0; c < in; c++)
                    dz[i][c] = dx[i][c];
        }
    }
    (void)shard;
    /* Section 8. */
    const struct dnn_opt *o = &q->opt;
    uint64_t t = q->step + 1;
    float lr = o->lr, b1t = o->beta1, b2t = o->beta2;

    for (uint64_t i = 1; i < t; i++) {
        b1t = v_mul(b1t, o->beta1);
        b2t = v_mul(b2t, o->beta2);
    }
    for (uint32_t l = 0; l < L; l++) {
        size_t nw = (size_t)dnn_model_layer_weights(m, l), nb = m->layer[l].out;

        for (size_t i = 0; i < nw + nb; i++) {
            bool isw = i < nw;
            float *w = isw ? &q->layer[l].w[i] : &q->layer[l].b[i - nw];
            float *v = isw ? &q->layer[l].w_v[i] : &q->layer[l].b_v[i - nw];
            float g = isw ? gw[l][i] : gb[l][i - nw];

            if (o->kind == DNN_OPT_SGD) {
                float gp = v_add(g, v_mul(o->weight_decay, *w));

                *v = v_add(v_mul(o->momentum, *v), gp);
                *w = v_sub(*w, v_mul(lr, *v));
            } else {
                float *mm = isw ? &q->layer[l].w_m[i] : &q->layer[l].b_m[i - nw];
                float mhat, vhat, den;

                if (o->weight_decay != 0.0f)
                    *w = v_sub(*w, v_mul(v_mul(lr, o->weight_decay), *w));
                *mm = v_add(v_mul(o->beta1, *mm), v_mul(v_sub(1.0f, o->beta1), g));
                *v = v_add(v_mul(o->beta2, *v), v_mul(v_mul(v_sub(1.0f, o->beta2), g), g));
                mhat = v_div(*mm, v_sub(1.0f, b1t));
                vhat = v_div(*v, v_sub(1.0f, b2t));
                den = v_add(sqrtf(vhat), o->eps);
                *w = v_sub(*w, v_mul(lr, v_div(mhat, den)));
            }
        }
        for (size_t i = 0; i < nw; i++)
            q->layer[l].wq[i] = bf16_from_f32(q->layer[l].w[i]);
    }
    q->step++;
}

static void test_independent_reimplementation(void **state)
{
    uint8_t img[SYN_COUNT * SYN_IN], lab[SYN_COUNT];
    static const uint32_t Ns[] = {1, 2, 4};

    (void)state;
    make_data(img, lab, SYN_COUNT, 100);
    for (int kind = 0; kind < 2; kind++) {
        for (int ni = 0; ni < 3; ni++) {
            struct dnn_opt o;
            struct dnn_params *p, *q;
            struct dnn_golden g;
            struct err e = {{0}};

            if (kind == 0) {
                dnn_params_opt_sgd(&o, 0.1f, 0.9f, 1e-3f);
            } else {
                dnn_params_opt_adam(&o, 1e-2f);
                o.weight_decay = 1e-2f;
            }
            p = make_params("mlp:16-24-8-4", &o, 77);
            q = make_params("mlp:16-24-8-4", &o, 77);
            assert_int_equal(dnn_golden_init(&g, p, &e), 0);
            for (uint32_t k = 0; k < 6; k++) {
                uint32_t b = k % (SYN_COUNT / SYN_B);

                assert_int_equal(dnn_golden_step(&g, &img[b * SYN_B * SYN_IN], &lab[b * SYN_B],
                                                 SYN_B, Ns[ni], NULL, &e),
                                 0);
                ir_step(q, &img[b * SYN_B * SYN_IN], &lab[b * SYN_B], SYN_B, Ns[ni]);
                if (!dnn_params_equal(p, q))
                    fail_msg("%s N=%u step %u: the README reimplementation differs",
                             kind ? "adam" : "sgd", Ns[ni], k);
            }
            dnn_golden_fini(&g);
            dnn_params_destroy(p);
            dnn_params_destroy(q);
        }
    }
}

/* ------------------------------------------------------------------ eval and errors */

static void test_eval_batch_independent(void **state)
{
    uint8_t img[SYN_COUNT * SYN_IN], lab[SYN_COUNT], timg[SYN_COUNT * SYN_IN], tlab[SYN_COUNT];
    float z_all[SYN_COUNT * SYN_CLASSES], z_one[SYN_CLASSES];
    struct dnn_opt o;
    struct dnn_params *p;
    struct dnn_golden g;
    struct err e = {{0}};
    uint32_t c1, c7, c64;

    (void)state;
    dnn_params_opt_adam(&o, 1e-2f);
    p = make_params("mlp:16-32-4", &o, 1);
    make_data(img, lab, SYN_COUNT, 100);
    make_data(timg, tlab, SYN_COUNT, 200);
    assert_int_equal(dnn_golden_init(&g, p, &e), 0);
    for (uint32_t k = 0; k < 40; k++) {
        uint32_t b = k % (SYN_COUNT / SYN_B);

        assert_int_equal(
            dnn_golden_step(&g, &img[b * SYN_B * SYN_IN], &lab[b * SYN_B], SYN_B, 4, NULL, &e), 0);
    }
    assert_int_equal(dnn_golden_eval(p, timg, tlab, SYN_COUNT, 1, &c1, &e), 0);
    assert_int_equal(dnn_golden_eval(p, timg, tlab, SYN_COUNT, 7, &c7, &e), 0);
    assert_int_equal(dnn_golden_eval(p, timg, tlab, SYN_COUNT, 64, &c64, &e), 0);
    print_message("held-out accuracy %u / %u\n", c64, SYN_COUNT);
    assert_int_equal(c1, c64);
    assert_int_equal(c7, c64);
    assert_true(c64 >= 58); /* >= 90% on the separable problem */
    /* Each row's logits are the same bits alone or in a batch. */
    assert_int_equal(dnn_golden_forward(p, timg, SYN_COUNT, z_all, &e), 0);
    for (uint32_t i = 0; i < SYN_COUNT; i++) {
        assert_int_equal(dnn_golden_forward(p, &timg[i * SYN_IN], 1, z_one, &e), 0);
        assert_memory_equal(z_one, &z_all[i * SYN_CLASSES], sizeof(z_one));
    }
    /* argmax: the first maximum; NaN never wins. */
    {
        const float z[4] = {1.0f, 3.0f, 3.0f, NAN};
        const float zn[3] = {NAN, -1.0f, -2.0f};

        assert_int_equal(dnn_golden_argmax(z, 4), 1);
        assert_int_equal(dnn_golden_argmax(zn, 3), 0); /* NaN first: nothing beats it */
    }
    dnn_golden_fini(&g);
    dnn_params_destroy(p);
}

static void test_errors(void **state)
{
    uint8_t img[SYN_COUNT * SYN_IN], lab[SYN_COUNT];
    struct dnn_opt o;
    struct dnn_params *p;
    struct dnn_golden g;
    struct err e = {{0}};
    uint64_t d;

    (void)state;
    dnn_params_opt_sgd(&o, 0.1f, 0.9f, 0.0f);
    p = make_params("mlp:16-32-4", &o, 1);
    make_data(img, lab, SYN_COUNT, 100);
    assert_int_equal(dnn_golden_init(&g, p, &e), 0);
    d = dnn_params_digest(p);
    assert_int_equal(dnn_golden_step(&g, img, lab, 8, 3, NULL, &e), -EINVAL);
    assert_msg_has(e.msg, "B = 8 rows cannot be split into N = 3 equal shards");
    assert_int_equal(dnn_golden_step(&g, img, lab, 8, 0, NULL, &e), -EINVAL);
    assert_int_equal(dnn_golden_step(&g, img, lab, 0, 1, NULL, &e), -EINVAL);
    assert_msg_has(e.msg, "B = 0");
    lab[5] = 4;
    assert_int_equal(dnn_golden_step(&g, img, lab, 8, 2, NULL, &e), -EINVAL);
    assert_msg_has(e.msg, "label 4 of batch row 5 is out of range; accepted 0..3");
    assert_int_equal(dnn_golden_step(&g, NULL, lab, 8, 2, NULL, &e), -EINVAL);
    assert_true(dnn_params_digest(p) == d); /* untouched by failed steps */
    assert_int_equal(g.n_losses, 0);
    assert_int_equal(p->step, 0);
    dnn_golden_fini(&g);
    dnn_params_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loss_falls_sgd),
        cmocka_unit_test(test_loss_falls_adam),
        cmocka_unit_test(test_gradient_check),
        cmocka_unit_test(test_nodes_deterministic),
        cmocka_unit_test(test_tap_partials_fold),
        cmocka_unit_test(test_independent_reimplementation),
        cmocka_unit_test(test_eval_batch_independent),
        cmocka_unit_test(test_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
