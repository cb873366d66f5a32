/*
 * test_system_rtl: the assembled machine with the verilated compute core (rtl/core/core_top,
 * the 8 x 8 model core_8x8 with 512-word pads) in the loop: rtl mode and lockstep mode (twin
 * and RTL compared on every GEMM and every scratchpad read) give the golden trainer's losses
 * and parameters bit for bit, for 1, 2 and 4 Activation Nodes, SGD and Adam, a few steps each; a
 * run switches from rtl to tlm between steps (as `flashstream train` does after its RTL steps);
 * rtl and tlm give the same simulated time (the twin is cycle-exact). --waves FILE writes an
 * FST of AN 0's core during the first rtl run.
 * The same with the whole Activation Node datapath in the loop (rtl/an/an_top, the model
 * an_8x8, an_be_rtl_ops): DMA commands run through the RTL DMA and the tensor buffer; rtl,
 * lockstep and tlm give the same simulated time and the golden trainer's parameters; lockstep
 * reports an RTL whose C-pad drifted from the twin's (at the DMA store that moves it) and a
 * DMA whose cycles are not the DMA timing's, and a model whose DMA is not the machine's is
 * refused. A DMA command behind a flash read holding a tensor-buffer channel is delayed by
 * the same, worked-out, cycles in tlm (dma_time_run), rtl and lockstep.
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

#include "models/dnn/dnn_golden.h"
#include "models/machine/machine.h"
#include "models/dma/dma_time.h"
#include "testbench/tb_util.h"
#include "testbench/rand_data.h"

static struct tb_args args;
static const struct core_be_ops *be = &core_be_rtl_ops; /* the RTL backend of run() */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/*
 * Train `steps` steps; mode[k] is the fidelity of step k. Compares with the golden trainer
 * after every step. Returns the simulated end time.
 */
static uint64_t run(uint32_t n_an, int adam, uint32_t steps, const enum machine_fidelity *mode,
                    const char *waves)
{
    struct machine_cfg c;
    struct machine *r;
    struct err e;
    struct err de;
    struct dnn_params *gp;
    struct dnn_golden g;
    struct rand_data d;
    const uint32_t B = 8;

    machine_cfg_small(&c); /* 64-32-10, the 8x8 core with 512-word pads: the core_8x8 model */
    c.n_an = n_an;
    c.batch = B;
    c.rtl = be;
    c.nfw_rtl = &nfw_be_rtl_ops;
    c.seed = args.seed;
    c.init_seed = 77 + args.seed;
    if (adam)
        dnn_params_opt_adam(&c.opt, 0.002f);
    else
        dnn_params_opt_sgd(&c.opt, 0.05f, 0.9f, 0.0005f);
    uint32_t in = dnn_model_inputs(&c.model);
    assert_int_equal(
        rand_data_make(&d, B * steps, in, dnn_model_classes(&c.model), args.seed * 31 + n_an), 0);

    if (machine_create(&c, &r, &e))
        fail_msg("machine_create: %s", e.msg);
    assert_int_equal(
        dnn_params_create(
            &(struct dnn_params_cfg){.model = &c.model, .opt = &c.opt, .seed = c.init_seed}, &gp,
            &de),
        0);
    assert_int_equal(dnn_golden_init(&g, gp, &de), 0);
    for (uint32_t k = 0; k < steps; k++) {
        struct machine_step_info info;
        float gl;
        if (machine_set_fidelity(r, mode[k], &e))
            fail_msg("step %u: %s", k, e.msg);
        if (k == 0 && waves && mode[0] != MACHINE_TLM) {
            struct vtrace_opts o = {.path = waves,
                                    .first_cycle = args.first_cycle,
                                    .last_cycle = args.last_cycle,
                                    .scopes = args.scopes,
                                    .period_ps = c.core_period_ps};
            if (machine_trace_core(r, 0, &o, &e))
                fail_msg("waves: %s", e.msg);
        }
        const uint8_t *im = d.images + (size_t)k * B * in, *lb = d.labels + k * B;
        if (machine_train_batch(r, im, lb, &info, &e))
            fail_msg("seed %llu, N=%u, %s, step %u (%s): %s", (unsigned long long)args.seed, n_an,
                     adam ? "adam" : "sgd", k, machine_fidelity_name(mode[k]), e.msg);
        assert_int_equal(dnn_golden_step(&g, im, lb, B, n_an, &gl, &de), 0);
        if (f32_bits(gl) != f32_bits(info.loss))
            fail_msg("seed %llu, N=%u, step %u (%s): loss golden 0x%08x, machine 0x%08x",
                     (unsigned long long)args.seed, n_an, k, machine_fidelity_name(mode[k]),
                     f32_bits(gl), f32_bits(info.loss));
        if (!dnn_params_equal(gp, machine_params(r)))
            fail_msg("seed %llu, N=%u, step %u (%s): parameters differ from the golden trainer",
                     (unsigned long long)args.seed, n_an, k, machine_fidelity_name(mode[k]));
    }
    uint64_t t = machine_now(r);
    dnn_golden_fini(&g);
    dnn_params_destroy(gp);
    machine_destroy(r);
    rand_data_free(&d);
    return t;
}

static void test_rtl_n1(void **state)
{
    static const enum machine_fidelity m[] = {MACHINE_RTL, MACHINE_RTL, MACHINE_RTL};
    (void)state;
    run(1, 0, 3, m, args.waves);
}

static void test_rtl_n2_adam(void **state)
{
    static const enum machine_fidelity m[] = {MACHINE_RTL, MACHINE_RTL};
    (void)state;
    run(2, 1, 2, m, NULL);
}

static void test_lockstep_n4(void **state)
{
    static const enum machine_fidelity m[] = {MACHINE_LOCKSTEP, MACHINE_RTL};
    (void)state;
    run(4, 1, 2, m, NULL);
}

static void test_lockstep_n1_adam(void **state)
{
    static const enum machine_fidelity m[] = {MACHINE_LOCKSTEP, MACHINE_LOCKSTEP};
    (void)state;
    run(1, 1, 2, m, NULL);
}

static void test_lockstep_n2(void **state)
{
    static const enum machine_fidelity m[] = {MACHINE_LOCKSTEP, MACHINE_LOCKSTEP};
    (void)state;
    run(2, 0, 2, m, NULL);
}

/* rtl, then tlm, then lockstep in one run; the same simulated time as tlm throughout. */
static void test_switch_modes(void **state)
{
    static const enum machine_fidelity mixed[] = {MACHINE_RTL, MACHINE_TLM, MACHINE_LOCKSTEP,
                                                  MACHINE_TLM};
    static const enum machine_fidelity tlm[] = {MACHINE_TLM, MACHINE_TLM, MACHINE_TLM, MACHINE_TLM};
    (void)state;
    uint64_t a = run(2, 0, 4, mixed, NULL);
    uint64_t b = run(2, 0, 4, tlm, NULL);
    assert_int_equal(a, b);
}

/* An RTL backend whose scratchpad reads flip one bit of the C-pad after a while: lockstep
 * must stop at the first GEMM whose output it reads back, with a report. */
static unsigned reads_left;

static int bad_read(void *h, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, void *buf,
                    struct err *e)
{
    int rc = core_be_rtl_ops.read(h, addr, stride, rows, len, buf, e);
    if (!rc && reads_left && --reads_left == 0)
        ((unsigned char *)buf)[0] ^= 1;
    return rc;
}

static void test_lockstep_reports_divergence(void **state)
{
    struct core_be_ops bad = core_be_rtl_ops;
    struct machine_cfg c;
    struct machine *r;
    struct err e;
    struct rand_data d;
    (void)state;
    bad.read = bad_read;
    machine_cfg_small(&c);
    c.rtl = &bad;
    c.nfw_rtl = &nfw_be_rtl_ops;
    c.fidelity = MACHINE_LOCKSTEP;
    assert_int_equal(rand_data_make(&d, c.batch, dnn_model_inputs(&c.model), 10, 5), 0);
    if (machine_create(&c, &r, &e))
        fail_msg("machine_create: %s", e.msg);
    reads_left = 3;
    int rc = machine_train_batch(r, d.images, d.labels, NULL, &e);
    assert_int_equal(rc, -EPROTO);
    if (!strstr(e.msg, "lockstep divergence") || !strstr(e.msg, "an0.core") ||
        !strstr(e.msg, "GEMM") || !strstr(e.msg, "cycle") || !strstr(e.msg, "tlm 0x"))
        fail_msg("report lacks block, command, cycle or values: %s", e.msg);
    printf("# divergence report: %s\n", e.msg);
    machine_destroy(r);
    rand_data_free(&d);
}

/* An RTL write pipeline whose completions report a wrong LPN: lockstep must stop at the first
 * write it runs beside the twin (the RTL first replays, alone, the preloads written before the
 * machine's first step) with a report naming the write, the cycle and the field. */
static void bad_nfw_get(void *h, struct nfw_lanes_out *o)
{
    nfw_be_rtl_ops.get(h, o);
    if (o->l[0].done_valid)
        o->l[0].done_lpn ^= 4;
}

static void test_nfw_lockstep_reports_divergence(void **state)
{
    struct nfw_be_ops bad = nfw_be_rtl_ops;
    struct machine_cfg c;
    struct machine *r;
    struct err e;
    struct rand_data d;
    (void)state;
    bad.get = bad_nfw_get;
    machine_cfg_small(&c);
    c.rtl = &core_be_rtl_ops;
    c.nfw_rtl = &bad;
    c.fidelity = MACHINE_LOCKSTEP;
    assert_int_equal(rand_data_make(&d, c.batch, dnn_model_inputs(&c.model), 10, 5), 0);
    if (machine_create(&c, &r, &e))
        fail_msg("machine_create: %s", e.msg);
    int rc = machine_train_batch(r, d.images, d.labels, NULL, &e);
    assert_int_equal(rc, -EPROTO);
    if (!strstr(e.msg, "nfw lockstep: write") || !strstr(e.msg, "cycle") ||
        !strstr(e.msg, "done_lpn") || !strstr(e.msg, "(rtl vs twin)"))
        fail_msg("report lacks write, cycle, field or models: %s", e.msg);
    printf("# divergence report: %s\n", e.msg);
    machine_destroy(r);
    rand_data_free(&d);
}

/* Without the RTL write pipeline, rtl mode is refused, saying what is missing. */
static void test_nfw_rtl_missing(void **state)
{
    struct machine_cfg c;
    struct machine *r;
    struct err e;
    (void)state;
    machine_cfg_small(&c);
    c.rtl = &core_be_rtl_ops;
    if (machine_create(&c, &r, &e))
        fail_msg("machine_create: %s", e.msg);
    assert_int_equal(machine_set_fidelity(r, MACHINE_RTL, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "write pipeline's RTL backend"));
    assert_int_equal(machine_get_fidelity(r), MACHINE_TLM);
    machine_destroy(r);
}

/* The RTL write pipeline must match the flash geometry (nfw_time_params). */
static void test_nfw_rtl_config_mismatch(void **state)
{
    struct machine_cfg c;
    struct machine *r;
    struct err e;
    (void)state;
    machine_cfg_small(&c);
    c.an_flash.geom.pages_per_block = c.wn_flash.geom.pages_per_block = 32;
    c.rtl = &core_be_rtl_ops;
    c.nfw_rtl = &nfw_be_rtl_ops;
    if (machine_create(&c, &r, &e))
        fail_msg("machine_create: %s", e.msg);
    assert_int_equal(machine_set_fidelity(r, MACHINE_LOCKSTEP, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "rtl nfw: the linked model"));
    assert_non_null(strstr(e.msg, "16 pages per block"));
    assert_int_equal(machine_get_fidelity(r), MACHINE_TLM);
    machine_destroy(r);
}

/* The RTL model must match the machine's core configuration. */
static void test_rtl_config_mismatch(void **state)
{
    struct machine_cfg c;
    struct machine *r;
    struct err e;
    (void)state;
    machine_cfg_small(&c);
    c.core.a_words = c.core.b_words = c.core.c_words = 1024;
    c.rtl = &core_be_rtl_ops;
    c.nfw_rtl = &nfw_be_rtl_ops;
    if (machine_create(&c, &r, &e))
        fail_msg("machine_create: %s", e.msg);
    assert_int_equal(machine_set_fidelity(r, MACHINE_RTL, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "512/512/512"));
    assert_int_equal(machine_get_fidelity(r), MACHINE_TLM);
    machine_destroy(r);
}

/* ---- the Activation Node datapath (an_top) in the loop */

static void test_an_modes(void **state)
{
    static const enum machine_fidelity mixed[] = {MACHINE_RTL, MACHINE_TLM, MACHINE_LOCKSTEP,
                                                  MACHINE_RTL};
    static const enum machine_fidelity tlm[] = {MACHINE_TLM, MACHINE_TLM, MACHINE_TLM, MACHINE_TLM};
    (void)state;
    be = &an_be_rtl_ops;
    uint64_t a = run(2, 0, 4, mixed, NULL);
    be = &core_be_rtl_ops;
    uint64_t b = run(2, 0, 4, tlm, NULL);
    assert_int_equal(a, b);
}

/*
 * One DMA command behind a flash read that holds a tensor-buffer channel, on the RTL DMA
 * (an_be_rtl_ops, rtl and lockstep) and on the DMA timing tlm takes (dma_time_run): the same
 * cycles alone, the same cycles behind the read, 27 cycles more, and the same channel state
 * after. The picoseconds are worked out in test_dma_time (test_flash_read_delays_dma): at
 * t0 a 4 KiB page lands at address 0 and holds channel 0 until t0 + 40 000 ps; the DMA's one
 * beat at address 0, asked in cycle 5, waits 33 750 ps and answers in cycle 73 instead of 46.
 */
struct an_tb {
    struct dram *tb;
    struct dram_port *port;
    int flash;
};

static void an_tb_open(const struct machine_cfg *c, struct an_tb *f, bool behind, uint64_t t0)
{
    struct dram_port_cfg pc;
    struct dram_cfg dc = c->tb;
    struct err e = {""};
    assert_int_equal(dram_create(&dc, &f->tb, &e), 0);
    dram_port_cfg_default(&pc);
    pc.period_ps = c->core_period_ps;
    pc.name = "dma";
    assert_int_equal(dram_port_create(&pc, f->tb, &f->port, &e), 0);
    f->flash = dram_requester(f->tb, "flash_rd");
    if (behind)
        assert_int_equal(dram_access(f->tb, f->flash, t0, 0, 4096, true), t0 + 90000);
}

static void an_tb_close(struct an_tb *f)
{
    dram_port_destroy(f->port);
    dram_destroy(f->tb);
}

/* The command at t0 on ops (NULL: dma_time_run), alone or behind the page: its cycles, and
 * channel 0's busy_until and the DMA's queueing after it. */
static uint64_t an_tb_dma(const struct machine_cfg *c, struct dma_time *dm,
                          const struct core_be_ops *ops, bool behind, uint64_t *busy,
                          uint64_t *wait)
{
    const uint64_t t0 = 1000000;
    struct an_tb f;
    struct err e = {""};
    uint64_t cycles = 0;
    void *h = NULL;
    struct dma_desc d = {.src = 0, .dst = 0, .rows = 1, .len = 8, .src_stride = 8, .dst_stride = 8};

    an_tb_open(c, &f, behind, t0);
    if (!ops) {
        if (dma_time_run(dm, &d, f.port, f.tb, t0, &cycles, &e))
            fail_msg("dma_time_run: %s", e.msg);
    } else {
        if (ops->create(&c->core, 1, &h, &e) ||
            ops->attach(h, f.tb, f.port, dma_time_params(dm), &e))
            fail_msg("%s: %s", ops->name, e.msg);
        dram_port_set_time(f.port, t0);
        if (ops->dma(h, &d, &cycles, &e))
            fail_msg("%s: %s", ops->name, e.msg);
        ops->destroy(h);
    }
    *busy = dram_chan_stats(f.tb, 0)->busy_until;
    *wait = dram_req_stats(f.tb, 0)->wait_ps;
    an_tb_close(&f);
    return cycles;
}

static void test_an_dma_behind_flash_read(void **state)
{
    const struct core_be_ops *ops[] = {NULL, &an_be_rtl_ops, an_be_rtl_ops.lockstep};
    struct machine_cfg c;
    struct dma_time *dm;
    struct err e = {""};
    uint64_t a0 = 0, b0 = 0, busy0 = 0, wait0 = 0;
    (void)state;

    machine_cfg_small(&c);
    assert_int_equal(dma_time_create_core(&c.dma, &c.core, &c.tb, c.core_period_ps, &dm, &e), 0);
    for (int i = 0; i < 3; i++) {
        uint64_t busy, wait, a, b;
        a = an_tb_dma(&c, dm, ops[i], false, &busy, &wait);
        assert_int_equal(wait, 0);
        b = an_tb_dma(&c, dm, ops[i], true, &busy, &wait);
        assert_int_equal(b, a + 27);
        assert_int_equal(wait, 33750);
        assert_int_equal(busy, 1000000 + 40313);
        if (i == 0) {
            a0 = a;
            b0 = b;
            busy0 = busy;
            wait0 = wait;
        }
        assert_int_equal(a, a0);
        assert_int_equal(b, b0);
        assert_int_equal(busy, busy0);
        assert_int_equal(wait, wait0);
    }
    dma_time_destroy(dm);
}

static void test_an_lockstep_n4_adam(void **state)
{
    static const enum machine_fidelity m[] = {MACHINE_LOCKSTEP, MACHINE_LOCKSTEP};
    (void)state;
    be = &an_be_rtl_ops;
    run(4, 1, 2, m, NULL);
    be = &core_be_rtl_ops;
}

/* A lockstep AN whose RTL core runs one GEMM twice (accumulating), once after the twin: its
 * C-pad drifts; lockstep must stop at the DMA store that moves that C-pad to the tensor
 * buffer, naming the block, the command, the cycle and the write data of both. The RTL
 * backend's functions run the RTL alone on a lockstep handle (an_be_rtl.c). */
static struct core_be_ops bad_ls, bad_an;
static unsigned gemms_left;

static int bad_exec(void *h, const struct core_cmd *cmd, struct core_twin_result *res,
                    struct err *e)
{
    int rc = an_be_rtl_ops.lockstep->exec(h, cmd, res, e);
    if (!rc && gemms_left && --gemms_left == 0) {
        struct core_cmd again = *cmd;
        struct core_twin_result r2;
        again.accumulate = true;
        rc = an_be_rtl_ops.exec(h, &again, &r2, e);
    }
    return rc;
}

static int bad_dma(void *h, const struct dma_desc *d, uint64_t *cycles, struct err *e)
{
    int rc = an_be_rtl_ops.lockstep->dma(h, d, cycles, e);
    if (!rc && d->store)
        (*cycles)++;
    return rc;
}

static int an_diverge(int which, struct err *e)
{
    struct machine_cfg c;
    struct machine *r;
    struct rand_data d;
    bad_ls = *an_be_rtl_ops.lockstep;
    if (which == 0)
        bad_ls.exec = bad_exec;
    else
        bad_ls.dma = bad_dma;
    bad_an = an_be_rtl_ops;
    bad_an.lockstep = &bad_ls;
    machine_cfg_small(&c);
    c.rtl = &bad_an;
    c.nfw_rtl = &nfw_be_rtl_ops;
    c.fidelity = MACHINE_LOCKSTEP;
    assert_int_equal(rand_data_make(&d, c.batch, dnn_model_inputs(&c.model), 10, 5), 0);
    if (machine_create(&c, &r, e))
        fail_msg("machine_create: %s", e->msg);
    gemms_left = 1;
    int rc = machine_train_batch(r, d.images, d.labels, NULL, e);
    machine_destroy(r);
    rand_data_free(&d);
    return rc;
}

static void test_an_lockstep_reports_divergence(void **state)
{
    struct err e;
    (void)state;
    assert_int_equal(an_diverge(0, &e), -EPROTO);
    if (!strstr(e.msg, "lockstep divergence") || !strstr(e.msg, "an0.dma") ||
        !strstr(e.msg, "cycle") || !strstr(e.msg, "tensor-buffer request") ||
        !strstr(e.msg, "tlm write 0x"))
        fail_msg("report lacks block, command, cycle or values: %s", e.msg);
    printf("# divergence report: %s\n", e.msg);
    assert_int_equal(an_diverge(1, &e), -EPROTO);
    if (!strstr(e.msg, "lockstep divergence") || !strstr(e.msg, "an0.dma") ||
        !strstr(e.msg, "cycles in the RTL") || !strstr(e.msg, "DMA timing"))
        fail_msg("report lacks block, command or cycles: %s", e.msg);
    printf("# divergence report: %s\n", e.msg);
}

/* The RTL DMA must be the one the machine's DMA timing describes. */
static void test_an_dma_config_mismatch(void **state)
{
    struct machine_cfg c;
    struct machine *r;
    struct err e;
    (void)state;
    machine_cfg_small(&c);
    c.dma.max_rd_out = 32;
    c.rtl = &an_be_rtl_ops;
    c.nfw_rtl = &nfw_be_rtl_ops;
    if (machine_create(&c, &r, &e))
        fail_msg("machine_create: %s", e.msg);
    assert_int_equal(machine_set_fidelity(r, MACHINE_RTL, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "rtl an: the linked model's DMA"));
    assert_int_equal(machine_set_fidelity(r, MACHINE_LOCKSTEP, &e), -EINVAL);
    assert_int_equal(machine_get_fidelity(r), MACHINE_TLM);
    machine_destroy(r);
}

int main(int argc, char **argv)
{
    if (tb_parse_args(argc, argv, &args) != 0)
        return 2;
    printf("# test_system_rtl: seed %llu\n", (unsigned long long)args.seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rtl_n1),
        cmocka_unit_test(test_rtl_n2_adam),
        cmocka_unit_test(test_lockstep_n1_adam),
        cmocka_unit_test(test_lockstep_n2),
        cmocka_unit_test(test_lockstep_n4),
        cmocka_unit_test(test_switch_modes),
        cmocka_unit_test(test_lockstep_reports_divergence),
        cmocka_unit_test(test_rtl_config_mismatch),
        cmocka_unit_test(test_nfw_lockstep_reports_divergence),
        cmocka_unit_test(test_nfw_rtl_missing),
        cmocka_unit_test(test_nfw_rtl_config_mismatch),
        cmocka_unit_test(test_an_modes),
        cmocka_unit_test(test_an_lockstep_n4_adam),
        cmocka_unit_test(test_an_dma_behind_flash_read),
        cmocka_unit_test(test_an_lockstep_reports_divergence),
        cmocka_unit_test(test_an_dma_config_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
