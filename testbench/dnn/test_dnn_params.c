/*
 * test_dnn_params: splitmix64 against its published reference values, Glorot-uniform init from
 * a seed, the SGD and Adam element updates against the README's formulas restated here one
 * rounding at a time, the lr schedules, and the per-step update protocol.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/dnn/dnn_params.h"
#include "models/dnn/dnn_rng.h"
#include "models/ref/bf16.h"

static void assert_same_bits(float got, float want, const char *what, size_t i)
{
    if (fp32_bits(got) != fp32_bits(want))
        fail_msg("%s[%zu]: got %a (0x%08X), want %a (0x%08X)", what, i, (double)got, fp32_bits(got),
                 (double)want, fp32_bits(want));
}

static void test_splitmix64_reference(void **state)
{
    /* Vigna's splitmix64.c with seed 1234567: the first five outputs. */
    static const uint64_t want[] = {6457827717110365317ull, 3203168211198807973ull,
                                    9817491932198370423ull, 4593380528125082431ull,
                                    16408922859458223821ull};
    struct dnn_rng r;

    (void)state;
    dnn_rng_seed(&r, 1234567);
    for (size_t i = 0; i < 5; i++)
        assert_true(dnn_rng_next(&r) == want[i]);
    /* unit: the top 24 bits times 2^-24. */
    dnn_rng_seed(&r, 1234567);
    assert_true(dnn_rng_unit(&r) == (float)(want[0] >> 40) / 16777216.0f);
}

static void test_init_glorot(void **state)
{
    struct dnn_model m;
    struct dnn_opt o;
    struct dnn_params *p, *q;
    struct dnn_rng r;

    (void)state;
    assert_int_equal(dnn_model_parse(&m, "mlp:16-32-4", NULL), 0);
    dnn_params_opt_sgd(&o, 0.1f, 0.9f, 0.0f);
    assert_int_equal(
        dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = &o, .seed = 42}, &p, NULL),
        0);
    assert_int_equal(
        dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = &o, .seed = 42}, &q, NULL),
        0);
    assert_true(dnn_params_equal(p, q));
    assert_true(dnn_params_digest(p) == dnn_params_digest(q));

    /* One stream, layer 0 then 1, row-major; a = sqrtf(6 / (in + out)); w = (2u - 1) * a. */
    dnn_rng_seed(&r, 42);
    for (uint32_t l = 0; l < m.n_layers; l++) {
        float a = sqrtf(6.0f / (float)(m.layer[l].in + m.layer[l].out));

        for (size_t i = 0; i < (size_t)m.layer[l].in * m.layer[l].out; i++) {
            volatile float u = dnn_rng_unit(&r);
            volatile float t = 2.0f * u;
            volatile float t1 = t - 1.0f;
            float want = t1 * a;

            assert_same_bits(p->layer[l].w[i], want, "w", i);
            assert_true(p->layer[l].w[i] >= -a && p->layer[l].w[i] < a);
            assert_int_equal(p->layer[l].wq[i], bf16_from_f32(want));
            assert_true(p->layer[l].w_v[i] == 0.0f);
        }
        for (size_t j = 0; j < m.layer[l].out; j++)
            assert_true(fp32_bits(p->layer[l].b[j]) == 0);
        assert_null(p->layer[l].w_m); /* SGD keeps no first moment */
    }

    dnn_params_init(q, 43);
    assert_false(dnn_params_equal(p, q));
    dnn_params_init(q, 42);
    assert_true(dnn_params_equal(p, q));
    dnn_params_destroy(p);
    dnn_params_destroy(q);
}

/* The README's SGD element, restated: every volatile store is one rounding. */
static void sgd_ref(float lr, float mu, float wd, float *w, float *v, float g)
{
    volatile float wd_w = wd * *w;
    volatile float gp = g + wd_w;
    volatile float mu_v = mu * *v;
    volatile float nv = mu_v + gp;
    volatile float lr_v = lr * nv;

    *v = nv;
    *w = *w - lr_v;
}

static void adam_ref(float lr, float b1, float b2, float eps, float wd, uint64_t t, float *w,
                     float *m, float *v, float g)
{
    volatile float b1t = b1, b2t = b2, x, y;

    for (uint64_t i = 1; i < t; i++) {
        b1t = b1t * b1;
        b2t = b2t * b2;
    }
    if (wd != 0.0f) {
        x = lr * wd;
        x = x * *w;
        *w = *w - x;
    }
    x = b1 * *m;
    y = 1.0f - b1;
    y = y * g;
    *m = x + y;
    x = b2 * *v;
    y = 1.0f - b2;
    y = y * g;
    y = y * g;
    *v = x + y;
    volatile float c1 = 1.0f - b1t, c2 = 1.0f - b2t;
    volatile float mhat = *m / c1, vhat = *v / c2;
    volatile float den = sqrtf(vhat);
    den = den + eps;
    x = mhat / den;
    x = lr * x;
    *w = *w - x;
}

static float rnd(struct dnn_rng *r, float scale)
{
    return (2.0f * dnn_rng_unit(r) - 1.0f) * scale;
}

static void test_sgd_elements(void **state)
{
    enum { N = 1000 };
    struct dnn_opt o;
    struct dnn_params_scalars s;
    float w[N], v[N], g[N], rw[N], rv[N];
    struct dnn_rng r;

    (void)state;
    dnn_rng_seed(&r, 7);
    dnn_params_opt_sgd(&o, 0.05f, 0.9f, 5e-4f);
    for (size_t i = 0; i < N; i++) {
        rw[i] = w[i] = rnd(&r, 1.0f);
        rv[i] = v[i] = rnd(&r, 0.1f);
        g[i] = rnd(&r, 0.01f);
    }
    for (uint64_t k = 0; k < 3; k++) {
        dnn_params_scalars(&o, k, &s);
        assert_true(s.lr == 0.05f);
        dnn_params_update_range(&o, &s, w, NULL, v, g, N);
        for (size_t i = 0; i < N; i++) {
            sgd_ref(0.05f, 0.9f, 5e-4f, &rw[i], &rv[i], g[i]);
            assert_same_bits(w[i], rw[i], "sgd w", i);
            assert_same_bits(v[i], rv[i], "sgd v", i);
        }
    }
    /* Hand-checked single element: w = 1, v = 0, g = 0.5, wd = 0.25, mu = 0.5, lr = 0.5:
     * g' = 0.5 + 0.25 = 0.75; v = 0 + 0.75; w = 1 - 0.375 = 0.625 (all exact). */
    dnn_params_opt_sgd(&o, 0.5f, 0.5f, 0.25f);
    dnn_params_scalars(&o, 0, &s);
    w[0] = 1.0f;
    v[0] = 0.0f;
    g[0] = 0.5f;
    dnn_params_update_range(&o, &s, w, NULL, v, g, 1);
    assert_true(v[0] == 0.75f && w[0] == 0.625f);
}

static void test_adam_elements(void **state)
{
    enum { N = 1000 };
    struct dnn_opt o;
    struct dnn_params_scalars s;
    float w[N], m[N], v[N], g[N], rw[N], rm[N], rv[N];
    struct dnn_rng r;

    (void)state;
    for (int decay = 0; decay < 2; decay++) {
        dnn_rng_seed(&r, 11);
        dnn_params_opt_adam(&o, 1e-3f);
        o.weight_decay = decay ? 0.01f : 0.0f;
        for (size_t i = 0; i < N; i++) {
            rw[i] = w[i] = rnd(&r, 1.0f);
            rm[i] = m[i] = 0.0f;
            rv[i] = v[i] = 0.0f;
        }
        for (uint64_t k = 0; k < 20; k++) {
            for (size_t i = 0; i < N; i++)
                g[i] = rnd(&r, 0.01f);
            dnn_params_scalars(&o, k, &s);
            dnn_params_update_range(&o, &s, w, m, v, g, N);
            for (size_t i = 0; i < N; i++) {
                adam_ref(1e-3f, 0.9f, 0.999f, 1e-8f, o.weight_decay, k + 1, &rw[i], &rm[i], &rv[i],
                         g[i]);
                assert_same_bits(w[i], rw[i], "adam w", i);
                assert_same_bits(m[i], rm[i], "adam m", i);
                assert_same_bits(v[i], rv[i], "adam v", i);
            }
        }
    }
    /* Step 1 with g != 0 and no decay moves w by about lr * sign(g) (mhat / sqrt(vhat) = 1). */
    dnn_params_opt_adam(&o, 1e-3f);
    dnn_params_scalars(&o, 0, &s);
    w[0] = 1.0f;
    m[0] = v[0] = 0.0f;
    g[0] = 0.5f;
    dnn_params_update_range(&o, &s, w, m, v, g, 1);
    assert_true(fabsf(w[0] - (1.0f - 1e-3f)) < 1e-6f);
}

static void test_lr_schedules(void **state)
{
    struct dnn_opt o;
    volatile float lr;

    (void)state;
    dnn_params_opt_sgd(&o, 0.1f, 0.9f, 0.0f);
    assert_true(dnn_params_lr(&o, 0) == 0.1f && dnn_params_lr(&o, 1000000) == 0.1f);

    /* step: lr0 * gamma^floor(k / S), by repeated fp32 multiplication. */
    o.sched = DNN_LR_STEP;
    o.step_size = 10;
    o.gamma = 0.1f;
    assert_true(dnn_params_lr(&o, 0) == 0.1f);
    assert_true(dnn_params_lr(&o, 9) == 0.1f);
    lr = 0.1f * 0.1f;
    assert_true(dnn_params_lr(&o, 10) == lr);
    assert_true(dnn_params_lr(&o, 19) == lr);
    lr = lr * 0.1f;
    assert_true(dnn_params_lr(&o, 20) == lr);

    /* cosine: (lr0 * 0.5) * (1 + cosf((pi * min(k, T)) / T)). */
    o.sched = DNN_LR_COSINE;
    o.total_steps = 100;
    assert_true(dnn_params_lr(&o, 0) == 0.1f);
    {
        volatile float ang = (3.14159265358979323846f * 25.0f) / 100.0f;
        volatile float c = cosf(ang);
        volatile float half = 0.1f * 0.5f;
        volatile float one_c = 1.0f + c;

        lr = half * one_c;
        assert_true(dnn_params_lr(&o, 25) == lr);
    }
    assert_true(fabsf(dnn_params_lr(&o, 50) - 0.05f) < 1e-8f);
    assert_true(dnn_params_lr(&o, 100) == 0.0f);
    assert_true(dnn_params_lr(&o, 1000) == 0.0f); /* clamped at T */
}

/* 1 - beta^t gives the bits of the plain loop (t - 1 fp32 multiplications) for every t up to
 * 100 000 steps, the number of steps of normal runs, and costs nothing at step 2^40. */
static void test_bias_correction_exact_and_bounded(void **state)
{
    static const float betas[] = {0.0f, 0.5f, 0.9f, 0.99f, 0.999f, 0.9999f};
    struct dnn_opt o;
    struct dnn_params_scalars s;

    (void)state;
    for (size_t b = 0; b < sizeof(betas) / sizeof(betas[0]); b++) {
        volatile float p = betas[b]; /* beta^t, the plain loop carried along with t */

        for (uint64_t t = 1; t <= 100000; t++) {
            if (t > 1)
                p = p * betas[b];
            /* Every t while the product matters, then every 97th: the whole range at an
             * affordable cost under the sanitizers. */
            if (t <= 20000 || t % 97 == 0) {
                volatile float want = 1.0f - p;

                if (dnn_params_one_minus_pow(betas[b], t) != want)
                    fail_msg("beta %g, t %llu: %a, plain loop %a", (double)betas[b],
                             (unsigned long long)t, (double)dnn_params_one_minus_pow(betas[b], t),
                             (double)want);
            }
        }
    }
    /* A run at step 2^40 (a crafted or very long checkpoint): both corrections are exactly 1. */
    dnn_params_opt_adam(&o, 1e-3f);
    dnn_params_scalars(&o, (uint64_t)1 << 40, &s);
    assert_true(s.c1 == 1.0f && s.c2 == 1.0f);
    /* The step schedule at step 2^40 with a drop every step: 0.1 * 0.5^(2^40) is 0. */
    o.sched = DNN_LR_STEP;
    o.step_size = 1;
    o.gamma = 0.5f;
    assert_true(dnn_params_lr(&o, (uint64_t)1 << 40) == 0.0f);
    o.gamma = 2.0f; /* growing: infinity, as the plain loop gives */
    assert_true(isinf(dnn_params_lr(&o, (uint64_t)1 << 40)));
}

static void test_opt_validate(void **state)
{
    struct dnn_opt o;
    struct err e = {{0}};

    (void)state;
    dnn_params_opt_sgd(&o, 0.1f, 0.9f, 0.0f);
    assert_int_equal(dnn_params_opt_validate(&o, &e), 0);
    o.momentum = 1.0f;
    assert_int_equal(dnn_params_opt_validate(&o, &e), -EINVAL);
    assert_msg_has(e.msg, "momentum = 1; accepted 0 <= momentum < 1");
    dnn_params_opt_sgd(&o, -0.1f, 0.9f, 0.0f);
    assert_int_equal(dnn_params_opt_validate(&o, &e), -EINVAL);
    assert_msg_has(e.msg, "lr = -0.1");
    dnn_params_opt_sgd(&o, NAN, 0.9f, 0.0f);
    assert_int_equal(dnn_params_opt_validate(&o, &e), -EINVAL);
    dnn_params_opt_adam(&o, 1e-3f);
    o.eps = 0.0f;
    assert_int_equal(dnn_params_opt_validate(&o, &e), -EINVAL);
    assert_msg_has(e.msg, "eps = 0");
    dnn_params_opt_adam(&o, 1e-3f);
    o.beta2 = 1.5f;
    assert_int_equal(dnn_params_opt_validate(&o, &e), -EINVAL);
    assert_msg_has(e.msg, "beta2");
    dnn_params_opt_adam(&o, 1e-3f);
    o.sched = DNN_LR_STEP;
    o.step_size = 0;
    assert_int_equal(dnn_params_opt_validate(&o, &e), -EINVAL);
    assert_msg_has(e.msg, "step_size = 0");
    o.sched = DNN_LR_COSINE;
    o.total_steps = 0;
    assert_int_equal(dnn_params_opt_validate(&o, &e), -EINVAL);
    assert_msg_has(e.msg, "total_steps = 0");
}

static void test_step_protocol(void **state)
{
    struct dnn_model m;
    struct dnn_opt o;
    struct dnn_params *p;
    struct err e = {{0}};
    float dw0[16 * 32] = {0}, db0[32] = {0}, dw1[32 * 4] = {0}, db1[4] = {0};
    float *dw[2] = {dw0, dw1}, *db[2] = {db0, db1};

    (void)state;
    assert_int_equal(dnn_model_parse(&m, "mlp:16-32-4", NULL), 0);
    dnn_params_opt_adam(&o, 1e-3f);
    assert_int_equal(
        dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = &o, .seed = 1}, &p, &e), 0);
    assert_non_null(p->layer[0].w_m);

    assert_int_equal(dnn_params_update_layer(p, 1, dw1, db1, &e), 0);
    assert_int_equal(dnn_params_update_layer(p, 1, dw1, db1, &e), -EALREADY);
    assert_msg_has(e.msg, "layer 1 already updated in step 0");
    assert_int_equal(dnn_params_end_step(p, &e), -EINVAL);
    assert_msg_has(e.msg, "mask 0x2");
    assert_int_equal(dnn_params_update_layer(p, 2, dw1, db1, &e), -EINVAL);
    assert_int_equal(dnn_params_update_layer(p, 0, dw0, db0, &e), 0);
    assert_int_equal(dnn_params_end_step(p, &e), 0);
    assert_int_equal(p->step, 1);
    assert_int_equal(dnn_params_step(p, dw, db, &e), 0);
    assert_int_equal(p->step, 2);

    /* A weight changed by hand is pushed to the bf16 copy on request. */
    p->layer[0].w[3] = 1.0f + 0x1p-9f; /* a tie in bf16: rounds to even, 1.0 */
    dnn_params_refresh_bf16(p, 0);
    assert_int_equal(p->layer[0].wq[3], 0x3F80);
    dnn_params_destroy(p);

    o.lr = -1.0f;
    assert_int_equal(
        dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = &o, .seed = 1}, &p, &e),
        -EINVAL);
    assert_null(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix64_reference),
        cmocka_unit_test(test_init_glorot),
        cmocka_unit_test(test_sgd_elements),
        cmocka_unit_test(test_adam_elements),
        cmocka_unit_test(test_lr_schedules),
        cmocka_unit_test(test_opt_validate),
        cmocka_unit_test(test_step_protocol),
        cmocka_unit_test(test_bias_correction_exact_and_bounded),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
