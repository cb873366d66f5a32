/*
 * test_node_vu: the Activation Node's vector unit (models/node/vu.h), stage by stage, against
 * the golden trainer's intermediate tensors (dnn_golden_grad's tap): every op of a forward and
 * backward pass of two nodes gives the golden bits, computed from the golden inputs of that
 * stage (the GEMMs in between by models/ref/ref_gemm). Special values (signed zeros, NaN) and
 * the timing formula too.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csim/rng.h"
#include "models/dnn/dnn_golden.h"
#include "models/node/vu.h"
#include "models/ref/bf16.h"
#include "models/ref/ref_gemm.h"

#define N_NODES 2
#define B       6
#define R       (B / N_NODES)

/* Copies of what the tap saw, by kind, node and layer. */
struct taps {
    void *t[16][N_NODES + 1][DNN_MAX_LAYERS];
};

static void tap(void *ctx, const struct dnn_tap *t)
{
    struct taps *s = ctx;
    uint32_t node = t->node == DNN_TAP_ALL_NODES ? N_NODES : t->node;
    size_t n = (size_t)t->rows * t->cols * (t->kind == DNN_TAP_X ? 2 : 4);
    void *p = malloc(n);
    assert_non_null(p);
    memcpy(p, t->data, n);
    free(s->t[t->kind][node][t->layer]);
    s->t[t->kind][node][t->layer] = p;
}

static void gemm(size_t M, size_t N, size_t K, const uint16_t *A, bool ta, size_t lda,
                 const uint16_t *Bm, bool tb, size_t ldb, float *C)
{
    uint32_t *c = malloc(M * N * 4);
    assert_non_null(c);
    assert_int_equal(ref_gemm(M, N, K, A, lda, ta, Bm, ldb, tb, c, N, false), 0);
    memcpy(C, c, M * N * 4);
    free(c);
}

static void test_against_golden_taps(void **state)
{
    struct dnn_model m;
    struct dnn_opt o;
    struct dnn_params *p;
    struct dnn_grads g;
    struct err de;
    static struct taps s;
    uint8_t images[B * 40], labels[B];
    uint64_t rs = 11;
    float loss;
    (void)state;

    assert_int_equal(dnn_model_parse(&m, "mlp:40-24-16-7", &de), 0);
    dnn_params_opt_sgd(&o, 0.1f, 0.9f, 0.0f);
    assert_int_equal(
        dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = &o, .seed = 5}, &p, &de), 0);
    /* biases away from zero so that the bias add matters */
    for (uint32_t l = 0; l < m.n_layers; l++)
        for (uint32_t j = 0; j < m.layer[l].out; j++)
            p->layer[l].b[j] = (float)((int)(j % 5) - 2) * 0.0625f;
    for (size_t i = 0; i < sizeof(images); i++)
        images[i] = (uint8_t)(rng_next(&rs) % 4 ? rng_next(&rs) : 0);
    for (int i = 0; i < B; i++)
        labels[i] = (uint8_t)rng_below(&rs, 7);
    assert_int_equal(dnn_golden_grads_alloc(&m, &g, &de), 0);
    assert_int_equal(dnn_golden_grad(p, images, labels, B, N_NODES, &g, &loss, tap, &s, &de), 0);

    uint32_t L = m.n_layers, C = m.layer[L - 1].out;
    for (uint32_t n = 0; n < N_NODES; n++) {
        uint16_t x0[R * 40];
        vu_input(images + n * R * 40, x0, R * 40);
        assert_memory_equal(x0, s.t[DNN_TAP_X][n][0], sizeof(x0));
        /* forward */
        for (uint32_t l = 0; l < L; l++) {
            uint32_t in = m.layer[l].in, out = m.layer[l].out;
            float y[R * 64], z[R * 64];
            uint16_t xn[R * 64];
            gemm(R, out, in, s.t[DNN_TAP_X][n][l], false, in, p->layer[l].wq, false, out, y);
            if (l + 1 < L) {
                vu_bias_act(y, p->layer[l].b, R, out, 1, xn, NULL);
                assert_memory_equal(xn, s.t[DNN_TAP_X][n][l + 1], (size_t)R * out * 2);
            } else {
                vu_bias_act(y, p->layer[l].b, R, out, 0, NULL, z);
                assert_memory_equal(z, s.t[DNN_TAP_Z][n][l], (size_t)R * out * 4);
            }
        }
        /* loss */
        float dz[R * 64];
        float sl = vu_loss(s.t[DNN_TAP_Z][n][L - 1], labels + n * R, R, C, B, dz);
        assert_memory_equal(&sl, s.t[DNN_TAP_SHARD_LOSS][n][0], 4);
        assert_memory_equal(dz, s.t[DNN_TAP_DZ][n][L - 1], (size_t)R * C * 4);
        /* backward */
        for (uint32_t l = L; l-- > 0;) {
            uint32_t in = m.layer[l].in, out = m.layer[l].out;
            uint16_t gq[R * 64];
            float db[64], dx[R * 64], dzp[R * 64];
            vu_grad(s.t[DNN_TAP_DZ][n][l], R, out, gq, db);
            assert_memory_equal(db, s.t[DNN_TAP_DB_PARTIAL][n][l], (size_t)out * 4);
            if (l == 0)
                continue;
            gemm(R, in, out, gq, false, out, p->layer[l].wq, true, out, dx);
            vu_mask(dx, s.t[DNN_TAP_X][n][l], (size_t)R * in, dzp);
            assert_memory_equal(dzp, s.t[DNN_TAP_DZ][n][l - 1], (size_t)R * in * 4);
        }
    }
    for (size_t k = 0; k < 16; k++)
        for (size_t n = 0; n <= N_NODES; n++)
            for (size_t l = 0; l < DNN_MAX_LAYERS; l++)
                free(s.t[k][n][l]);
    dnn_golden_grads_free(&g);
    dnn_params_destroy(p);
}

static uint32_t bits(float f)
{
    return fp32_bits(f);
}

static void test_special_values(void **state)
{
    (void)state;
    /* ReLU gives +0 for -0, +0 and NaN; bias add of y = -b gives +0 (RNE) */
    float y[4] = {-0.0f, 0.0f, NAN, -1.5f}, b[4] = {0.0f, -0.0f, 1.0f, 1.5f};
    uint16_t x[4];
    vu_bias_act(y, b, 1, 4, 1, x, NULL);
    for (int i = 0; i < 4; i++)
        assert_int_equal(x[i], 0x0000);
    float z[4];
    vu_bias_act(y, b, 1, 4, 0, NULL, z);
    assert_int_equal(bits(z[0]), 0x00000000); /* -0 + +0 = +0 */
    assert_true(isnan(z[2]));

    /* mask: -0 and NaN inputs are not > 0 */
    uint16_t xs[4] = {0x8000, 0x0000, 0x7FC0, 0x3F80};
    float dx[4] = {-2.0f, -3.0f, 4.0f, -0.0f}, dz[4];
    vu_mask(dx, xs, 4, dz);
    assert_int_equal(bits(dz[0]), 0);
    assert_int_equal(bits(dz[1]), 0);
    assert_int_equal(bits(dz[2]), 0);
    assert_int_equal(bits(dz[3]), 0x80000000); /* passes -0 through */

    /* column sums keep the sign of a lone -0 and start with the first row */
    float d2[4] = {-0.0f, 1.0f, -0.0f, 2.0f}, db[2];
    uint16_t g2[4];
    vu_grad(d2, 2, 2, g2, db);
    assert_int_equal(bits(db[0]), 0x80000000);
    assert_int_equal(bits(db[1]), bits(3.0f));
    assert_int_equal(g2[0], 0x8000);

    /* argmax: first maximum, NaN never replaces it */
    float lz[2 * 4] = {1.0f, 3.0f, 3.0f, NAN, NAN, 2.0f, 5.0f, 5.0f};
    uint8_t cls[2];
    vu_argmax(lz, 2, 4, cls);
    assert_int_equal(cls[0], 1);
    assert_int_equal(cls[1], 0); /* golden rule: a NaN in column 0 stays best */

    /* input: 0 -> +0, 255 -> 1.0 */
    uint8_t px[2] = {0, 255};
    uint16_t xi[2];
    vu_input(px, xi, 2);
    assert_int_equal(xi[0], 0);
    assert_int_equal(xi[1], 0x3F80);
}

static void test_cycles(void **state)
{
    struct vu_cfg c;
    (void)state;
    vu_cfg_default(&c);
    const uint64_t LAT = c.latency, LANES = c.lanes, EXP = c.cost_exp;
    assert_int_equal(vu_cycles(&c, VU_BIAS_ACT, 1), LAT + 1);
    assert_int_equal(vu_cycles(&c, VU_BIAS_ACT, LANES), LAT + 1);
    assert_int_equal(vu_cycles(&c, VU_MASK, LANES + 1), LAT + 2);
    assert_int_equal(vu_cycles(&c, VU_LOSS, 10 * LANES), LAT + 10 * EXP);
    assert_string_equal(vu_op_name(VU_GRAD), "grad");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_golden_taps),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
