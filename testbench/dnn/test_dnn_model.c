/*
 * test_dnn_model: model spec parsing (good and bad specs, messages that name the problem and
 * what is accepted), formatting, parameter counts and byte sizes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/dnn/dnn_model.h"

static void test_fc_mnist(void **state)
{
    struct dnn_model m;
    struct err e = {{0}};
    char buf[64];

    (void)state;
    assert_int_equal(dnn_model_parse(&m, "fc-mnist", &e), 0);
    assert_int_equal(m.n_layers, 3);
    assert_int_equal(m.layer[0].in, 784);
    assert_int_equal(m.layer[0].out, 256);
    assert_int_equal(m.layer[1].in, 256);
    assert_int_equal(m.layer[1].out, 128);
    assert_int_equal(m.layer[2].in, 128);
    assert_int_equal(m.layer[2].out, 10);
    assert_int_equal(m.layer[0].act, DNN_ACT_RELU);
    assert_int_equal(m.layer[1].act, DNN_ACT_RELU);
    assert_int_equal(m.layer[2].act, DNN_ACT_NONE);
    assert_int_equal(dnn_model_inputs(&m), 784);
    assert_int_equal(dnn_model_classes(&m), 10);
    assert_int_equal(dnn_model_max_width(&m), 784);
    assert_int_equal(dnn_model_format(&m, buf, sizeof(buf)), 14);
    assert_string_equal(buf, "784-256-128-10");

    /* Counts: weights in * out, biases out, per layer. */
    const uint64_t W0 = 784 * 256, W1 = 256 * 128, W2 = 128 * 10;
    const uint64_t B0 = 256, B1 = 128, B2 = 10;
    assert_int_equal(dnn_model_layer_weights(&m, 0), W0);
    assert_int_equal(dnn_model_layer_params(&m, 1), W1 + B1);
    assert_int_equal(dnn_model_params(&m), W0 + B0 + W1 + B1 + W2 + B2);
    assert_int_equal(dnn_model_params(&m), 235146);
    /* Streamed: bf16 weights (2 B) + fp32 biases (4 B); gradients fp32. */
    assert_int_equal(dnn_model_layer_stream_bytes(&m, 0), 2 * W0 + 4 * B0);
    assert_int_equal(dnn_model_layer_grad_bytes(&m, 2), 4 * (W2 + B2));
    assert_int_equal(dnn_model_master_bytes(&m), 4 * (W0 + B0 + W1 + B1 + W2 + B2));
    /* bf16 inputs of every layer, per sample: 784 + 256 + 128 values. */
    assert_int_equal(dnn_model_act_bytes_per_sample(&m), 2 * (784 + 256 + 128));
}

static void test_mlp_specs(void **state)
{
    struct dnn_model m;
    struct err e = {{0}};
    char buf[128];

    (void)state;
    assert_int_equal(dnn_model_parse(&m, "mlp:784-128-10", &e), 0);
    assert_int_equal(m.n_layers, 2);
    assert_int_equal(m.layer[0].act, DNN_ACT_RELU);
    assert_int_equal(m.layer[1].act, DNN_ACT_NONE);
    dnn_model_format(&m, buf, sizeof(buf));
    assert_string_equal(buf, "784-128-10");

    /* One layer: a linear classifier, no hidden ReLU. */
    assert_int_equal(dnn_model_parse(&m, "mlp:16-4", &e), 0);
    assert_int_equal(m.n_layers, 1);
    assert_int_equal(m.layer[0].act, DNN_ACT_NONE);

    /* The largest accepted: 17 widths (16 layers) of up to 65536. */
    assert_int_equal(dnn_model_parse(&m, "mlp:65536-2-2-2-2-2-2-2-2-2-2-2-2-2-2-2-65536", &e), 0);
    assert_int_equal(m.n_layers, DNN_MAX_LAYERS);
    assert_int_equal(dnn_model_classes(&m), 65536);

    /* format truncates safely and reports the length it needs. */
    assert_int_equal(dnn_model_parse(&m, "mlp:16-32-4", &e), 0);
    assert_int_equal(dnn_model_format(&m, buf, 4), 7);
    assert_string_equal(buf, "16-");
}

struct bad {
    const char *spec;
    const char *needle;
};

static void test_bad_specs(void **state)
{
    static const struct bad bad[] = {
        {"", "empty"},
        {"fc", "unknown model"},
        {"FC-MNIST", "unknown model"},
        {"mlp", "unknown model"},
        {"mlp:", "found the end of the spec"},
        {"mlp:784", "at least 2 widths"},
        {"mlp:784-", "position 8, found the end"},
        {"mlp:-784-10", "position 4, found '-'"},
        {"mlp:+784-10", "position 4, found '+'"},
        {"mlp: 784-10", "position 4, found ' '"},
        {"mlp:784--10", "position 8, found '-'"},
        {"mlp:784-0-10", "width 0 at position 8"},
        {"mlp:784-128-1", "1 class"},
        {"mlp:784-65537-10", "exceeds 65536"},
        {"mlp:784-99999999999999999999-10", "exceeds 65536"},
        {"mlp:784-128-10x", "unexpected 'x' at position 14"},
        {"mlp:784,128,10", "unexpected ','"},
        {"mlp:2-2-2-2-2-2-2-2-2-2-2-2-2-2-2-2-2-2", "more than 16 layers"},
    };
    struct dnn_model m;
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&e, 0, sizeof(e));
        memset(&m, 0xA5, sizeof(m));
        if (dnn_model_parse(&m, bad[i].spec, &e) != -EINVAL)
            fail_msg("spec \"%s\" was accepted", bad[i].spec);
        assert_msg_has(e.msg, bad[i].needle);
        assert_msg_has(e.msg, "accepted");
        if (bad[i].spec[0])
            assert_msg_has(e.msg, bad[i].spec);
        assert_int_equal(m.n_layers, 0); /* left zeroed */
    }
    memset(&e, 0, sizeof(e));
    assert_int_equal(dnn_model_parse(&m, NULL, &e), -EINVAL);
    assert_msg_has(e.msg, "fc-mnist");
    /* A NULL error buffer is allowed. */
    assert_int_equal(dnn_model_parse(&m, "bogus", NULL), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fc_mnist),
        cmocka_unit_test(test_mlp_specs),
        cmocka_unit_test(test_bad_specs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
