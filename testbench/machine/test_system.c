/*
 * test_system: the assembled machine (models/machine/machine) against the golden trainer
 * (models/dnn/dnn_golden), bit for bit, in tlm mode: after a few steps on small synthetic data
 * every loss and every master weight, bf16 copy and optimizer state are identical, for 1, 2 and
 * 4 Activation Nodes, SGD (momentum, weight decay) and Adam, with the output layer streamed
 * twice or kept resident. Also: evaluation counts, the checkpoint round trip through
 * machine_params / machine_set_params, timing records, counters and busy intervals; every
 * tensor buffer's per-requester counters carry what its agents moved (the WN optimizer's
 * streams byte for byte).
 */
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
#include "models/machine/machine.h"
#include "testbench/rand_data.h"

#define SEED 20240611u

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* First difference between two parameter sets, for the failure message. */
static void params_diff(const struct dnn_params *a, const struct dnn_params *b, char *buf,
                        size_t len)
{
    snprintf(buf, len, "(no element differs: step %llu vs %llu)", (unsigned long long)a->step,
             (unsigned long long)b->step);
    for (uint32_t l = 0; l < a->model.n_layers; l++) {
        size_t nw = (size_t)a->model.layer[l].in * a->model.layer[l].out;
        for (size_t i = 0; i < nw; i++)
            if (f32_bits(a->layer[l].w[i]) != f32_bits(b->layer[l].w[i])) {
                snprintf(buf, len, "layer %u w[%zu]: golden 0x%08x machine 0x%08x", l + 1, i,
                         f32_bits(a->layer[l].w[i]), f32_bits(b->layer[l].w[i]));
                return;
            }
        for (size_t i = 0; i < a->model.layer[l].out; i++)
            if (f32_bits(a->layer[l].b[i]) != f32_bits(b->layer[l].b[i])) {
                snprintf(buf, len, "layer %u b[%zu]: golden 0x%08x machine 0x%08x", l + 1, i,
                         f32_bits(a->layer[l].b[i]), f32_bits(b->layer[l].b[i]));
                return;
            }
    }
}

struct run {
    const char *model;
    uint32_t n_an, batch, steps;
    int opt; /* 0 SGD, 1 Adam */
    bool resident;
    bool fresh_lb;
    bool record_store; /* bytes beside a timing-only flash model (machine_cfg_default's way) */
};

static void cfg_for(const struct run *ru, struct machine_cfg *c)
{
    struct err de;
    machine_cfg_small(c);
    assert_int_equal(dnn_model_parse(&c->model, ru->model, &de), 0);
    c->n_an = ru->n_an;
    c->batch = ru->batch;
    if (ru->opt) {
        dnn_params_opt_adam(&c->opt, 0.001f);
        c->opt.weight_decay = 0.01f;
    } else {
        dnn_params_opt_sgd(&c->opt, 0.05f, 0.9f, 0.0001f);
    }
    c->init_seed = SEED;
    c->keep_output_resident = ru->resident;
    c->act_fresh_lb = ru->fresh_lb;
    if (ru->record_store) {
        c->an_flash.sw.store_payload = false;
        c->wn_flash.sw.store_payload = false;
        c->wn_state_payload = false;
    }
}

/* Counter `name` of r (fails if missing). */
static uint64_t ctr_u(struct machine *r, const char *name)
{
    size_t n;
    const struct machine_counter *c = machine_counters(r, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(c[i].name, name))
            return c[i].is_f64 ? (uint64_t)c[i].f64 : c[i].u64;
    fail_msg("no counter %s", name);
    return 0;
}

/* Every AN's tensor buffer carried what its agents moved: the flash's reads and writes byte for
 * byte, the DMA's in whole 8-byte beats, the broadcasts, the vector unit's streams; the WN's
 * the broadcasts it sent, the flash's bytes and the optimizer's streams: per update of a
 * layer of nw weights and nb biases with s state words per parameter, it reads the fp32
 * gradients, masters and state, 4 (nw + nb) (2 + s), and writes the new records, bf16
 * weights and fp32 biases 2 nw + 4 nb, masters and state 4 (nw + nb) (1 + s). */
static void check_tb_counters(struct machine *r, uint32_t n_an, const struct machine_cfg *c,
                              uint32_t steps)
{
    char a[64], b[64];
    uint64_t down = ctr_u(r, "fabric.bytes_down");
    for (uint32_t n = 0; n < n_an; n++) {
        static const char *const same[][2] = {{"tb.flash_rd.bytes", "flash.bytes_read"},
                                              {"tb.flash_wr.bytes", "flash.bytes_written"}};
        for (int k = 0; k < 2; k++) {
            snprintf(a, sizeof(a), "an%u.%s", n, same[k][0]);
            snprintf(b, sizeof(b), "an%u.%s", n, same[k][1]);
            assert_int_equal(ctr_u(r, a), ctr_u(r, b));
        }
        snprintf(a, sizeof(a), "an%u.tb.dma.bytes", n);
        snprintf(b, sizeof(b), "an%u.dma.bytes", n);
        assert_true(ctr_u(r, a) >= ctr_u(r, b) && ctr_u(r, b) > 0);
        snprintf(a, sizeof(a), "an%u.tb.fabric.bytes", n);
        assert_true(ctr_u(r, a) > down);
        snprintf(a, sizeof(a), "an%u.tb.vu.bytes", n);
        assert_true(ctr_u(r, a) > 0);
    }
    assert_int_equal(ctr_u(r, "wn.tb.flash_rd.bytes"), ctr_u(r, "wn.flash.bytes_read"));
    assert_int_equal(ctr_u(r, "wn.tb.flash_wr.bytes"), ctr_u(r, "wn.flash.bytes_written"));
    assert_true(ctr_u(r, "wn.tb.fabric.bytes") > down);
    uint64_t opt = 0, st = c->opt.kind == DNN_OPT_ADAM ? 2 : 1;
    for (uint32_t l = 0; l < c->model.n_layers; l++) {
        uint64_t nw = (uint64_t)c->model.layer[l].in * c->model.layer[l].out,
                 nb = c->model.layer[l].out;
        opt += 4 * (nw + nb) * (2 + st) + 2 * nw + 4 * nb + 4 * (nw + nb) * (1 + st);
    }
    assert_int_equal(ctr_u(r, "wn.tb.optimizer.bytes"), steps * opt);
}

/* Train ru->steps steps on both and compare every loss and the parameters after each step. */
static void check_run(const struct run *ru)
{
    struct machine_cfg c;
    struct machine *r;
    struct err e;
    struct err de;
    struct dnn_params *gp;
    struct dnn_golden g;
    struct rand_data d;
    char diff[256];

    cfg_for(ru, &c);
    uint32_t in = dnn_model_inputs(&c.model), C = dnn_model_classes(&c.model);
    assert_int_equal(rand_data_make(&d, ru->batch * ru->steps, in, C, SEED + ru->n_an), 0);
    if (machine_create(&c, &r, &e))
        fail_msg("machine_create: %s", e.msg);
    assert_int_equal(
        dnn_params_create(
            &(struct dnn_params_cfg){.model = &c.model, .opt = &c.opt, .seed = c.init_seed}, &gp,
            &de),
        0);
    assert_int_equal(dnn_golden_init(&g, gp, &de), 0);
    assert_true(dnn_params_equal(gp, machine_params(r)));

    for (uint32_t k = 0; k < ru->steps; k++) {
        const uint8_t *im = d.images + (size_t)k * ru->batch * in, *lb = d.labels + k * ru->batch;
        struct machine_step_info info;
        float gl;
        if (machine_train_batch(r, im, lb, &info, &e))
            fail_msg("%s N=%u step %u: %s", ru->model, ru->n_an, k, e.msg);
        assert_int_equal(dnn_golden_step(&g, im, lb, ru->batch, ru->n_an, &gl, &de), 0);
        if (f32_bits(gl) != f32_bits(info.loss))
            fail_msg("%s N=%u %s step %u: loss golden %a (0x%08x), machine %a (0x%08x)", ru->model,
                     ru->n_an, ru->opt ? "adam" : "sgd", k, gl, f32_bits(gl), info.loss,
                     f32_bits(info.loss));
        if (!dnn_params_equal(gp, machine_params(r))) {
            params_diff(gp, machine_params(r), diff, sizeof(diff));
            fail_msg("%s N=%u %s step %u: parameters differ: %s", ru->model, ru->n_an,
                     ru->opt ? "adam" : "sgd", k, diff);
        }
        assert_int_equal(info.step, k);
        assert_true(info.end_ps > info.start_ps);
    }
    check_tb_counters(r, ru->n_an, &c, ru->steps);
    dnn_golden_fini(&g);
    dnn_params_destroy(gp);
    machine_destroy(r);
    rand_data_free(&d);
}

static void test_sgd_n1(void **state)
{
    (void)state;
    struct run ru = {"mlp:64-32-10", 1, 8, 3, 0, false, false, false};
    check_run(&ru);
}

static void test_sgd_n2(void **state)
{
    (void)state;
    struct run ru = {"mlp:64-32-10", 2, 8, 3, 0, false, false, false};
    check_run(&ru);
}

static void test_sgd_n4(void **state)
{
    (void)state;
    struct run ru = {"mlp:64-32-10", 4, 8, 3, 0, false, false, false};
    check_run(&ru);
}

static void test_adam_n1(void **state)
{
    (void)state;
    struct run ru = {"mlp:64-32-10", 1, 8, 3, 1, false, false, false};
    check_run(&ru);
}

static void test_adam_n2(void **state)
{
    (void)state;
    struct run ru = {"mlp:64-32-10", 2, 8, 3, 1, false, false, false};
    check_run(&ru);
}

static void test_adam_n4(void **state)
{
    (void)state;
    struct run ru = {"mlp:64-32-10", 4, 8, 3, 1, false, false, false};
    check_run(&ru);
}

static void test_output_resident(void **state)
{
    (void)state;
    struct run a = {"mlp:64-32-10", 2, 8, 3, 0, true, false, false};
    struct run b = {"mlp:64-32-10", 4, 8, 2, 1, true, false, false};
    check_run(&a);
    check_run(&b);
}

/* Three layers, odd widths (not multiples of the core's W = 8), more rows than the array. */
static void test_deeper_odd_widths(void **state)
{
    (void)state;
    struct run a = {"mlp:50-37-21-7", 2, 12, 3, 1, false, false, false};
    struct run b = {"mlp:50-37-21-7", 3, 12, 2, 0, true, true, true};
    check_run(&a);
    check_run(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sgd_n1),          cmocka_unit_test(test_sgd_n2),
        cmocka_unit_test(test_sgd_n4),          cmocka_unit_test(test_adam_n1),
        cmocka_unit_test(test_adam_n2),         cmocka_unit_test(test_adam_n4),
        cmocka_unit_test(test_output_resident), cmocka_unit_test(test_deeper_odd_widths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
