/*
 * test_machine: the machine API (models/machine/machine.h) around the bit-exact core of
 * test_system: evaluation against the golden trainer, the checkpoint round trip, the records
 * for layers.csv / trace.json / stats.json, the V-stream release policy, the WN optimizer
 * unit's streams through its tensor buffer (exact times, idle and behind a broadcast), every bad
 * input giving its error with a message that says what and what is accepted, and an
 * uncorrectable flash read failing the step with its code.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csim/rng.h"
#include "csim/sim.h"
#include "models/dnn/dnn_golden.h"
#include "models/flash/flash_fault.h"
#include "models/machine/machine.h"
#include "models/node/anode.h"
#include "models/node/wnode.h"
#include "testbench/rand_data.h"

static struct machine *make(struct machine_cfg *c)
{
    struct machine *r;
    struct err e;
    if (machine_create(c, &r, &e))
        fail_msg("machine_create: %s", e.msg);
    return r;
}

static void train(struct machine *r, const struct rand_data *d, uint32_t first, uint32_t steps)
{
    const struct machine_cfg *c = machine_config(r);
    uint32_t in = dnn_model_inputs(&c->model);
    struct err e;
    for (uint32_t k = first; k < first + steps; k++)
        if (machine_train_batch(r, d->images + (size_t)k * c->batch * in, d->labels + k * c->batch,
                                NULL, &e))
            fail_msg("step %u: %s", k, e.msg);
}

static uint64_t counter(struct machine *r, const char *name)
{
    size_t n;
    const struct machine_counter *c = machine_counters(r, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].name, name) == 0)
            return c[i].is_f64 ? (uint64_t)c[i].f64 : c[i].u64;
    fail_msg("no counter %s", name);
    return 0;
}

/* machine_eval: the golden trainer's predictions and logits, for a count that is no multiple of B.
 */
static void test_eval_matches_golden(void **state)
{
    struct machine_cfg c;
    struct rand_data d;
    struct err de;
    struct err e;
    (void)state;
    machine_cfg_small(&c);
    c.n_an = 2;
    struct machine *r = make(&c);
    uint32_t in = dnn_model_inputs(&c.model), C = dnn_model_classes(&c.model);
    assert_int_equal(rand_data_make(&d, 29, in, 10, 3), 0);
    train(r, &d, 0, 2);

    float *zm = malloc(29 * C * sizeof(float)), *zg = malloc(29 * C * sizeof(float));
    uint32_t cm = 0, cg = 0;
    assert_int_equal(machine_eval(r, d.images, d.labels, 29, &cm, zm, &e), 0);
    assert_int_equal(dnn_golden_forward(machine_params(r), d.images, 29, zg, &de), 0);
    assert_int_equal(dnn_golden_eval(machine_params(r), d.images, d.labels, 29, 7, &cg, &de), 0);
    assert_int_equal(cm, cg);
    assert_memory_equal(zm, zg, 29 * C * sizeof(float));
    /* evaluation does not move the optimizer */
    assert_int_equal(machine_params(r)->step, 2);
    free(zm);
    free(zg);
    machine_destroy(r);
    rand_data_free(&d);
}

static struct dnn_params *params_copy(const struct dnn_params *p)
{
    struct dnn_params *q;
    struct err de;
    assert_int_equal(
        dnn_params_create(&(struct dnn_params_cfg){.model = &p->model, .opt = &p->opt, .seed = 0},
                          &q, &de),
        0);
    for (uint32_t l = 0; l < p->model.n_layers; l++) {
        size_t nw = (size_t)p->model.layer[l].in * p->model.layer[l].out,
               nb = p->model.layer[l].out;
        memcpy(q->layer[l].w, p->layer[l].w, nw * 4);
        memcpy(q->layer[l].wq, p->layer[l].wq, nw * 2);
        memcpy(q->layer[l].b, p->layer[l].b, nb * 4);
        memcpy(q->layer[l].w_v, p->layer[l].w_v, nw * 4);
        memcpy(q->layer[l].b_v, p->layer[l].b_v, nb * 4);
        if (p->layer[l].w_m) {
            memcpy(q->layer[l].w_m, p->layer[l].w_m, nw * 4);
            memcpy(q->layer[l].b_m, p->layer[l].b_m, nb * 4);
        }
    }
    q->step = p->step;
    return q;
}

/* Checkpoint after 2 steps, restore into a fresh machine: step 3 is the same on both. */
static void test_checkpoint_round_trip(void **state)
{
    struct machine_cfg c;
    struct rand_data d;
    struct err e;
    struct err de;
    (void)state;
    machine_cfg_small(&c);
    c.n_an = 2;
    dnn_params_opt_adam(&c.opt, 0.003f);
    struct machine *a = make(&c);
    assert_int_equal(rand_data_make(&d, 3 * c.batch, dnn_model_inputs(&c.model), 10, 9), 0);
    train(a, &d, 0, 2);
    struct dnn_params *ck = params_copy(machine_params(a));

    c.init_seed = 999; /* different initial weights: the restore must replace them */
    struct machine *b = make(&c);
    assert_false(dnn_params_equal(machine_params(a), machine_params(b)));
    assert_int_equal(machine_set_params(b, ck, &e), 0);
    assert_true(dnn_params_equal(machine_params(a), machine_params(b)));
    train(a, &d, 2, 1);
    train(b, &d, 2, 1);
    assert_true(dnn_params_equal(machine_params(a), machine_params(b)));
    assert_int_equal(machine_params(b)->step, 3);

    /* a checkpoint of another model or optimizer is refused */
    struct dnn_params *other;
    struct dnn_model m;
    struct dnn_opt o;
    assert_int_equal(dnn_model_parse(&m, "mlp:64-16-10", &de), 0);
    dnn_params_opt_adam(&o, 0.1f);
    assert_int_equal(
        dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = &o, .seed = 1}, &other, &de),
        0);
    assert_int_equal(machine_set_params(b, other, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "layer 1 is 64x16"));
    dnn_params_destroy(other);
    assert_int_equal(dnn_model_parse(&m, "mlp:64-32-10", &de), 0);
    dnn_params_opt_sgd(&o, 0.1f, 0.9f, 0.0f);
    assert_int_equal(
        dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = &o, .seed = 1}, &other, &de),
        0);
    assert_int_equal(machine_set_params(b, other, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "optimizer"));
    dnn_params_destroy(other);

    dnn_params_destroy(ck);
    machine_destroy(a);
    machine_destroy(b);
    rand_data_free(&d);
}

/* layers.csv rows, busy intervals and counters. */
static void test_records(void **state)
{
    struct machine_cfg c;
    struct rand_data d;
    (void)state;
    machine_cfg_small(&c);
    c.n_an = 2;
    struct machine *r = make(&c);
    uint32_t L = c.model.n_layers;
    assert_int_equal(rand_data_make(&d, 3 * c.batch, dnn_model_inputs(&c.model), 10, 4), 0);
    train(r, &d, 0, 1);
    machine_record_busy(r, true, 0);
    train(r, &d, 1, 1);

    size_t n;
    const struct machine_layer_rec *rec = machine_layer_recs(r, &n);
    assert_int_equal(n, 2 * 2 * L);
    for (size_t i = 0; i < n; i++) {
        const struct machine_layer_rec *x = &rec[i];
        uint32_t j = (uint32_t)(i % (2 * L));
        assert_int_equal(x->step, i / (2 * L));
        assert_int_equal(x->pass, j < L ? MACHINE_FWD : MACHINE_BWD);
        assert_int_equal(x->layer, j < L ? j + 1 : 2 * L - j);
        assert_true(x->start_ps < x->end_ps);
        assert_true(x->phase_ps[MACHINE_PH_COMPUTE] > 0);
        assert_true(x->phase_ps[MACHINE_PH_WEIGHT_FETCH] > 0);
        assert_true(x->phase_ps[MACHINE_PH_BROADCAST] > 0);
        for (int p = 0; p < MACHINE_PH_N; p++)
            assert_true(x->phase_ps[p] <= x->end_ps - x->start_ps);
        assert_true(x->waited_on < MACHINE_PH_N);
        if (x->pass == MACHINE_BWD) {
            assert_true(x->phase_ps[MACHINE_PH_REDUCE] > 0);
            assert_true(x->phase_ps[MACHINE_PH_OPTIMIZER] > 0);
            assert_true(x->phase_ps[MACHINE_PH_ACT_READ] > 0);
        } else {
            assert_int_equal(x->phase_ps[MACHINE_PH_OPTIMIZER], 0);
            assert_true(x->phase_ps[MACHINE_PH_ACT_WRITE] > 0);
        }
    }
    assert_string_equal(machine_phase_name(MACHINE_PH_WEIGHT_FETCH), "weight_fetch");
    assert_string_equal(machine_pass_name(MACHINE_BWD), "bwd");

    /* busy intervals: only the second step, every resource named */
    uint64_t dropped;
    const struct machine_busy *b = machine_busy(r, &n, &dropped);
    assert_true(n > 20);
    assert_int_equal(dropped, 0);
    bool seen_core = false, seen_wn = false, seen_fab = false;
    for (size_t i = 0; i < n; i++) {
        assert_true(b[i].res < machine_resources(r));
        assert_true(b[i].start_ps <= b[i].end_ps);
        assert_int_equal(b[i].step, 1);
        assert_true(b[i].label && b[i].label[0]);
        const char *name = machine_resource_name(r, b[i].res);
        seen_core |= strcmp(name, "an1.core") == 0;
        seen_wn |= strcmp(name, "wn.flash_rd") == 0;
        seen_fab |= strcmp(name, "fabric.down") == 0;
    }
    assert_true(seen_core && seen_wn && seen_fab);
    machine_clear_busy(r);
    machine_record_busy(r, true, 5);
    train(r, &d, 2, 1);
    machine_busy(r, &n, &dropped);
    assert_int_equal(n, 5);
    assert_true(dropped > 0);

    /* counters: unique names, units, the obvious values */
    const struct machine_counter *ct = machine_counters(r, &n);
    assert_true(n > 50);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(ct[i].unit);
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(ct[i].name, ct[j].name) == 0)
                fail_msg("counter %s twice", ct[i].name);
    }
    assert_int_equal(counter(r, "run.steps"), 3);
    assert_int_equal(counter(r, "wn.opt.step"), 3);
    assert_int_equal(counter(r, "wn.opt.updates"), 3 * L);
    assert_true(counter(r, "an1.core.gemms") > 0);
    assert_true(counter(r, "an0.core.busy_ps") > 0);
    assert_true(counter(r, "fabric.bytes_down") > 0);
    machine_clear_records(r);
    machine_layer_recs(r, &n);
    assert_int_equal(n, 0);
    machine_destroy(r);
    rand_data_free(&d);
}

/* act_fresh_lb: every step starts a fresh logical block of the V stream and releases it, so
 * the FTL's rotation and P/E counters move every step; packed, they do not for a few steps. */
static void test_v_stream_release(void **state)
{
    struct machine_cfg c;
    struct rand_data d;
    (void)state;
    for (int fresh = 0; fresh < 2; fresh++) {
        machine_cfg_small(&c);
        c.act_fresh_lb = fresh;
        struct machine *r = make(&c);
        assert_int_equal(rand_data_make(&d, 4 * c.batch, dnn_model_inputs(&c.model), 10, 6), 0);
        train(r, &d, 0, 4);
        uint64_t rel = counter(r, "an0.flash.V.released");
        uint64_t er = counter(r, "an0.flash.V.erases");
        if (fresh) {
            assert_true(rel >= 3);
            assert_true(er >= 3);
            assert_true(counter(r, "an0.flash.V.pe_max") >= 1);
        } else {
            assert_int_equal(rel, 0);
        }
        assert_int_equal(counter(r, "an0.flash.V.live_pages"), 0);
        assert_int_equal(counter(r, "an0.flash.NV.live_pages"), 0);
        machine_destroy(r);
        rand_data_free(&d);
    }
}

static void expect(int rc, int want, const struct err *e, const char *needle)
{
    assert_int_equal(rc, want);
    if (!strstr(e->msg, needle))
        fail_msg("message '%s' lacks '%s'", e->msg, needle);
}

static void test_bad_configs(void **state)
{
    struct machine_cfg c;
    struct machine *r = NULL;
    struct err e;
    struct err de;
    enum machine_fidelity f;
    (void)state;

    machine_cfg_small(&c);
    c.n_an = 0;
    expect(machine_create(&c, &r, &e), -EINVAL, &e, "accepted 1..");
    machine_cfg_small(&c);
    c.batch = 12;
    c.n_an = 8;
    expect(machine_create(&c, &r, &e), -EINVAL, &e, "not divisible by 8");
    machine_cfg_small(&c);
    c.opt.lr = -1.0f;
    expect(machine_create(&c, &r, &e), -EINVAL, &e, "optimizer");
    machine_cfg_small(&c);
    assert_int_equal(dnn_model_parse(&c.model, "mlp:8192-10", &de), 0);
    expect(machine_create(&c, &r, &e), -ENOSPC, &e, "K is never split");
    machine_cfg_small(&c);
    c.an_flash.geom.blocks_per_plane = 100;
    expect(machine_create(&c, &r, &e), -EINVAL, &e, "blocks");
    machine_cfg_small(&c);
    c.core.rows = 0;
    expect(machine_create(&c, &r, &e), -EINVAL, &e, "rows and cols 1..64");
    machine_cfg_small(&c);
    c.tb.size_bytes = 8192;
    expect(machine_create(&c, &r, &e), -ENOSPC, &e, "tensor buffer");
    machine_cfg_small(&c);
    assert_int_equal(dnn_model_parse(&c.model, "mlp:64-300", &de), 0);
    expect(machine_create(&c, &r, &e), -EINVAL, &e, "classes");
    assert_null(r);
    expect(machine_fidelity_parse("fast", &f, &e), -EINVAL, &e,
           "accepted tlm, rtl, lockstep or perf");
    assert_int_equal(machine_fidelity_parse("lockstep", &f, &e), 0);
    assert_int_equal(f, MACHINE_LOCKSTEP);
}

static void test_bad_calls(void **state)
{
    struct machine_cfg c;
    struct err e;
    struct rand_data d;
    uint32_t ok;
    (void)state;
    machine_cfg_small(&c);
    struct machine *r = make(&c);
    assert_int_equal(rand_data_make(&d, 2 * c.batch, dnn_model_inputs(&c.model), 10, 8), 0);

    expect(machine_step(r, NULL, &e), -ENODATA, &e, "no batch loaded");
    expect(machine_load_inputs(r, d.images, d.labels, c.batch + 1, &e), -EINVAL, &e,
           "multiple of the batch");
    d.labels[3] = 10;
    expect(machine_load_inputs(r, d.images, d.labels, c.batch, &e), -EINVAL, &e, "label 10");
    d.labels[3] = 1;
    expect(machine_set_fidelity(r, MACHINE_RTL, &e), -EINVAL, &e, "needs the RTL core backend");
    expect(machine_set_fidelity(r, MACHINE_LOCKSTEP, &e), -EINVAL, &e,
           "needs the RTL core backend");
    assert_int_equal(machine_get_fidelity(r), MACHINE_TLM);
    struct vtrace_opts o = {.path = "/tmp/none.fst"};
    expect(machine_trace_core(r, 0, &o, &e), -EINVAL, &e, "rtl or lockstep");
    expect(machine_trace_core(r, 5, &o, &e), -EINVAL, &e, "accepted 0..0");
    expect(machine_eval(r, d.images, d.labels, 0, &ok, NULL, &e), -EINVAL, &e, "at least one");

    /* pending batches, and clearing them */
    assert_int_equal(machine_load_inputs(r, d.images, d.labels, 2 * c.batch, &e), 0);
    assert_int_equal(machine_batches_pending(r), 2);
    assert_int_equal(machine_step(r, NULL, &e), 0);
    assert_int_equal(machine_batches_pending(r), 1);
    assert_int_equal(machine_clear_inputs(r, &e), 0);
    assert_int_equal(machine_batches_pending(r), 0);
    expect(machine_step(r, NULL, &e), -ENODATA, &e, "no batch loaded");
    machine_destroy(r);

    /* the NV stream fills up: 83 logical blocks of 8 pages, one page per shard */
    machine_cfg_small(&c);
    c.an_flash.geom.pages_per_block = 2;
    r = make(&c);
    int rc = 0;
    uint32_t loaded = 0;
    for (; loaded < 1000 && !rc; loaded++)
        rc = machine_load_inputs(r, d.images, d.labels, c.batch, &e);
    expect(rc, -ENOSPC, &e, "stream 'NV' is full");
    assert_true(loaded > 600);
    machine_destroy(r);
    rand_data_free(&d);
}

/* ---- the asynchronous port: a C port that starts every GEMM and completes it later ---- */

struct aport {
    struct machine *m;
    uint32_t n;       /* in flight */
    uint32_t id[64];  /* their commands ... */
    uint64_t now[64]; /* ... and starts */
    int fault;        /* 0; 1: end before start; 2: a failure with a message */
    uint64_t started;
};

static int aport_exec(void *user, const struct hc_prog *p, const struct hc_cmd *c,
                      const uint64_t *ready, uint64_t now, uint64_t *end, uint64_t *free_at,
                      struct err *e)
{
    struct aport *a = user;
    if (!ready && c->kind == HC_GEMM) {
        if (a->n == 64)
            return err_set(e, -ENOSPC, "test port: too many in flight");
        a->id[a->n] = c->id;
        a->now[a->n++] = now;
        a->started++;
        return MACHINE_PORT_STARTED;
    }
    if (ready)
        return machine_fabric_exec(a->m, c, ready, now, end, free_at);
    if (c->node == HC_WN)
        return wnode_exec(machine_wnode(a->m), p, c, now, end, free_at, e);
    return anode_exec(machine_anode(a->m, c->node), p, c, now, end, free_at, e);
}

/* Before each time step, complete what is in flight, last started first (the events' places
 * must restore the order), then fire the step. */
static int aport_run(void *user, struct sim *sim, struct err *e)
{
    struct aport *a = user;
    const struct hc_prog *p = machine_program(a->m);
    sim_time_t t;
    for (;;) {
        while (a->n) {
            uint32_t k = --a->n;
            const struct hc_cmd *c = &p->cmd[a->id[k]];
            uint64_t end = a->now[k], free_at = end;
            struct err ce;
            int rc = anode_exec(machine_anode(a->m, c->node), p, c, a->now[k], &end, &free_at, &ce);
            if (a->fault == 1)
                end = a->now[k] - 1;
            if (a->fault == 2)
                rc = err_set(&ce, -EIO, "test port: the core caught fire");
            machine_port_done(a->m, c->id, rc, end, free_at, &ce);
        }
        if (!sim_next_time(sim, &t))
            return 0;
        int rc = sim_run_until(sim, t, e);
        if (rc || sim_stopped(sim))
            return rc;
    }
}

/* Every GEMM completed later, out of order: the same command times, losses, counters and
 * parameters as the synchronous machine; a bad completion fails the step with its reason. */
static void test_async_port(void **state)
{
    struct machine_cfg c;
    struct rand_data d;
    struct err e;
    (void)state;
    machine_cfg_small(&c);
    c.n_an = 2;
    assert_int_equal(rand_data_make(&d, 2 * c.batch, dnn_model_inputs(&c.model), 10, 5), 0);
    struct machine *ref = make(&c), *m = make(&c);
    struct aport a = {.m = m};
    struct machine_port port = {aport_exec, aport_run, &a};
    uint32_t in = dnn_model_inputs(&c.model);
    machine_set_port(m, &port);
    machine_record_busy(ref, true, 0);
    machine_record_busy(m, true, 0);
    for (uint32_t k = 0; k < 2; k++) {
        struct machine_step_info i0, i1;
        const uint64_t *s0, *e0, *s1, *e1;
        size_t n0, n1;
        const uint8_t *img = d.images + (size_t)k * c.batch * in, *lab = d.labels + k * c.batch;
        if (machine_train_batch(ref, img, lab, &i0, &e) ||
            machine_train_batch(m, img, lab, &i1, &e))
            fail_msg("step %u: %s", k, e.msg);
        assert_memory_equal(&i0.loss, &i1.loss, sizeof(float));
        assert_int_equal(i0.end_ps, i1.end_ps);
        assert_int_equal(i0.gemms, i1.gemms);
        machine_cmd_times(ref, &s0, &e0, &n0);
        machine_cmd_times(m, &s1, &e1, &n1);
        assert_int_equal(n0, n1);
        assert_memory_equal(s0, s1, n0 * sizeof(*s0));
        assert_memory_equal(e0, e1, n0 * sizeof(*e0));
    }
    /* the commands that started synchronously started in the same order (their busy records:
     * a started command records its interval when it completes) */
    size_t nb0, nb1, j = 0;
    uint64_t dropped;
    const struct machine_busy *b0 = machine_busy(ref, &nb0, &dropped);
    const struct machine_busy *b1 = machine_busy(m, &nb1, &dropped);
    assert_int_equal(nb0, nb1);
    for (size_t i = 0; i < nb0; i++) {
        if (strstr(machine_resource_name(ref, b0[i].res), "core"))
            continue;
        while (j < nb1 && strstr(machine_resource_name(m, b1[j].res), "core"))
            j++;
        assert_true(j < nb1);
        if (b0[i].res != b1[j].res || b0[i].start_ps != b1[j].start_ps ||
            strcmp(b0[i].label, b1[j].label))
            fail_msg("busy record %zu: %s at %llu, %s at %llu", i, b0[i].label,
                     (unsigned long long)b0[i].start_ps, b1[j].label,
                     (unsigned long long)b1[j].start_ps);
        j++;
    }
    assert_true(a.started > 0);
    assert_int_equal(a.started, counter(m, "an0.core.gemms") + counter(m, "an1.core.gemms"));
    size_t n0, n1;
    const struct machine_counter *c0 = machine_counters(ref, &n0);
    struct machine_counter *cc = malloc(n0 * sizeof(*cc));
    assert_non_null(cc);
    memcpy(cc, c0, n0 * sizeof(*cc));
    const struct machine_counter *c1 = machine_counters(m, &n1);
    assert_int_equal(n0, n1);
    for (size_t i = 0; i < n0; i++)
        if (strcmp(cc[i].name, c1[i].name) || cc[i].u64 != c1[i].u64 ||
            memcmp(&cc[i].f64, &c1[i].f64, sizeof(double)))
            fail_msg("counter %s differs", cc[i].name);
    free(cc);
    assert_true(dnn_params_equal(machine_params(ref), machine_params(m)));
    /* no step runs: nothing is in flight */
    assert_int_equal(machine_port_done(m, 0, 0, 0, 0, NULL), -EINVAL);
    machine_destroy(m);
    machine_destroy(ref);

    for (int f = 1; f <= 2; f++) {
        m = make(&c);
        a = (struct aport){.m = m, .fault = f};
        machine_set_port(m, &port);
        int rc = machine_train_batch(m, d.images, d.labels, NULL, &e);
        assert_int_equal(rc, f == 1 ? -EPROTO : -EIO);
        assert_non_null(strstr(e.msg, f == 1 ? "before its start" : "the core caught fire"));
        machine_destroy(m);
    }
    rand_data_free(&d);
}

/*
 * A page that fails every read retry fails the step with -EBADMSG, the code flashstream train's
 * checkpoint fallback tests (the message is for people): the flash model sets it, and the
 * controller, the node's store, the Activation or Weight Node and the machine's run pass it on
 * unchanged with their context in front of the message. Faults on one kind of node at a time,
 * so each node's path is the one taken.
 */
static void test_uncorrectable_read_keeps_its_code(void **state)
{
    static const char *const specs[] = {"rber:x=100", "age:pe=2000000,days=30"};
    static const char *const prefix[] = {"an0: ", "wn: "};
    struct machine_cfg c;
    struct rand_data d;
    struct err e;

    (void)state;
    machine_cfg_small(&c);
    assert_int_equal(rand_data_make(&d, c.batch, dnn_model_inputs(&c.model), 10, 7), 0);
    for (int wn = 0; wn <= 1; wn++) {
        struct flash_fault_cfg f;

        flash_fault_cfg_default(&f);
        for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
            if (flash_fault_parse(&f, specs[i], &e))
                fail_msg("%s: %s", specs[i], e.msg);
        machine_cfg_small(&c);
        flash_fault_cfg_default(&c.an_flash.fault);
        flash_fault_cfg_default(&c.wn_flash.fault);
        if (wn)
            c.wn_flash.fault = f;
        else
            c.an_flash.fault = f;
        struct machine *m = make(&c);
        int rc = machine_train_batch(m, d.images, d.labels, NULL, &e);
        if (rc != -EBADMSG || strncmp(e.msg, prefix[wn], strlen(prefix[wn])) ||
            !strstr(e.msg, "flash controller: uncorrectable read: channel "))
            fail_msg("faults on the %s: code %d, message '%s'", wn ? "WN" : "AN", rc, e.msg);
        machine_destroy(m);
    }
    rand_data_free(&d);
}

/* ---- the optimizer unit's streams through the WN's tensor buffer ---- */

#define OPT_N   (1ull << 16) /* parameters: every stream a whole number of rounds of the channels */
#define OPT_RGN (1ull << 20) /* the streams' regions, 1 MiB apart */

/* The optimizer's requester statistics on the WN's buffer. */
static const struct dram_req_stats *opt_req(struct dram *tb)
{
    for (int i = 0; i < dram_requesters(tb); i++)
        if (!strcmp(dram_req_stats(tb, i)->name, "optimizer"))
            return dram_req_stats(tb, i);
    fail_msg("no requester 'optimizer' on the WN's tensor buffer");
    return NULL;
}

/* An update of OPT_N parameters at t (its own cycles when cycles is nonzero); returns its end. */
static uint64_t opt_at(struct machine *r, uint64_t t, uint64_t cycles)
{
    struct hc_cmd up = {.kind = HC_OPT_UPDATE, .node = HC_WN, .res = HC_RES_WN_OPT};
    uint64_t end, free_at;
    struct err e;
    up.cycles = cycles;
    up.u.opt.params = OPT_N;
    up.u.opt.grad = OPT_RGN;
    up.u.opt.state = 2 * OPT_RGN;
    up.u.opt.wout = 4 * OPT_RGN;
    if (wnode_exec(machine_wnode(r), machine_program(r), &up, t, &end, &free_at, &e))
        fail_msg("wnode_exec: %s", e.msg);
    assert_int_equal(free_at, end);
    return end;
}

/* Bus time of `bytes` spread evenly over the buffer's channels (from the configuration). */
static uint64_t spread_ps(const struct dram_cfg *tb, uint64_t bytes)
{
    uint64_t per_chan = bytes / tb->channels;
    assert_int_equal(per_chan * tb->channels, bytes);
    assert_int_equal(per_chan * 1000000 % tb->chan_mbps, 0); /* whole picoseconds */
    return per_chan * 1000000 / tb->chan_mbps;
}

/*
 * An update takes the later of its compute and its streams: on an idle buffer exactly
 * max(compute, bytes / bandwidth + latency), 22 B per parameter for SGD (read gradient, master,
 * velocity: 12; write bf16 weight, master, velocity: 10) and 30 B for Adam (16 + 14); behind a
 * broadcast's read of the same channels it waits for it; the ideal storage's streams are free.
 * Expected values from the configuration: 4 channels of 25.6 GB/s, 50 ns, 16 lanes at 1.25 ns.
 */
static void test_optimizer_tb(void **state)
{
    struct machine_cfg c;
    (void)state;

    for (int adam = 0; adam < 2; adam++) {
        machine_cfg_small(&c);
        c.fidelity = MACHINE_PERF; /* the update's timing alone: no numerics on OPT_N params */
        if (adam) {
            dnn_params_opt_adam(&c.opt, 0.001f);
            c.optu.lanes = 64; /* else Adam's cost of 4 is about the buffer's bound */
        }
        struct machine *r = make(&c);
        struct dram *tb = wnode_tb(machine_wnode(r));
        uint64_t bytes = (adam ? 30 : 22) * OPT_N;
        uint64_t mem = spread_ps(&c.tb, bytes) + c.tb.latency_ps;
        uint64_t cost = adam ? c.optu.cost_adam : c.optu.cost_sgd;
        uint64_t compute =
            (c.optu.latency + (OPT_N * cost + c.optu.lanes - 1) / c.optu.lanes) * c.optu.period_ps;
        assert_true(mem > compute); /* the buffer bounds it */

        /* idle: the streams' bytes at the buffer's bandwidth */
        uint64_t t = dram_free_from(tb) + 1000000;
        assert_int_equal(opt_at(r, t, 0), t + mem);
        assert_int_equal(opt_req(tb)->bytes_rd, (adam ? 16 : 12) * OPT_N);
        assert_int_equal(opt_req(tb)->bytes_wr, (adam ? 14 : 10) * OPT_N);
        assert_int_equal(opt_req(tb)->bus_ps, c.tb.channels * spread_ps(&c.tb, bytes));

        /* a command of its own cycles longer than its streams: the cycles */
        uint64_t cy = 2 * mem / c.optu.period_ps;
        t = dram_free_from(tb) + 1000000;
        assert_int_equal(opt_at(r, t, cy), t + cy * c.optu.period_ps);

        /* behind a broadcast of F bytes sent from the WN's buffer at t: F / bandwidth later */
        const uint64_t F = 256 * 1024;
        struct hc_cmd bc = {.kind = HC_FABRIC_BCAST, .node = HC_WN, .bytes = F};
        uint64_t bend, bfree;
        bc.u.fab.src = 8 * OPT_RGN;
        bc.u.fab.dst = OPT_RGN;
        t = dram_free_from(tb) + 1000000;
        assert_int_equal(machine_fabric_time(r, &bc, NULL, t, &bend, &bfree), 0);
        assert_int_equal(opt_at(r, t, 0), t + spread_ps(&c.tb, F) + mem);
        machine_destroy(r);
    }

    /* the ideal storage: every memory access free, the update its compute alone */
    machine_cfg_small(&c);
    c.fidelity = MACHINE_PERF;
    c.storage = MACHINE_STORAGE_IDEAL;
    struct machine *r = make(&c);
    uint64_t compute =
        (c.optu.latency + (OPT_N * c.optu.cost_sgd + c.optu.lanes - 1) / c.optu.lanes) *
        c.optu.period_ps;
    assert_int_equal(opt_at(r, 1000, 0), 1000 + compute);
    assert_int_equal(opt_req(wnode_tb(machine_wnode(r)))->accesses, 0);
    machine_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_matches_golden),
        cmocka_unit_test(test_checkpoint_round_trip),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_v_stream_release),
        cmocka_unit_test(test_bad_configs),
        cmocka_unit_test(test_bad_calls),
        cmocka_unit_test(test_async_port),
        cmocka_unit_test(test_uncorrectable_read_keeps_its_code),
        cmocka_unit_test(test_optimizer_tb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
