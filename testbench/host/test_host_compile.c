/*
 * test_host_compile: the host compiler (models/host/compile.h) and the two flags built on it,
 * --compile_only (machine_compile_listing) and --validate_only (machine_validate).
 *
 * Properties of every compiled program: dependencies point to earlier commands; every GEMM is
 * a command the core accepts, with K whole (never split) and its C tiles covering the output
 * exactly once; every DMA descriptor passes the DMA's checks against the core's map and lands
 * inside its scratchpad half; every AN runs the same sequence. The listing names every node and
 * kind; validation passes a fitting machine and fails each non-fitting one with its reason.
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

#include "models/host/compile.h"
#include "models/machine/machine.h"

static void hc_small(struct hc_cfg *h, const char *model, uint32_t n, uint32_t b, unsigned words)
{
    struct err e;
    memset(h, 0, sizeof(*h));
    assert_int_equal(dnn_model_parse(&h->model, model, &e), 0);
    h->n_an = n;
    h->batch = b;
    h->core = (struct core_params){8, 8, words, words, words, 1};
    h->tb_bytes = 1ull << 30;
    h->opt_state_words = 1;
    for (int s = 0; s < HC_N_STREAMS; s++) {
        h->stream_cap[s] = 1ull << 30;
        h->stream_lb[s] = 1 << 20;
    }
    h->an_page = h->wn_page = 4096;
}

/* Check the invariants of a compiled program. */
static void check_prog(const struct hc_prog *p)
{
    const struct hc_cfg *c = &p->cfg;
    struct core_twin_map map;
    unsigned w = core_twin_w(&c->core);
    uint32_t per_an[HC_MAX_AN] = {0};

    core_twin_map(&c->core, &map);
    struct dma_params dp;
    dma_params_default(&dp);
    dp.sram_bytes = map.end;
    dp.tb_bytes = c->tb_bytes;

    for (uint32_t i = 0; i < p->n_cmd; i++) {
        const struct hc_cmd *k = &p->cmd[i];
        assert_int_equal(k->id, i);
        assert_true(k->res < p->n_res);
        for (uint32_t d = 0; d < k->ndep; d++)
            assert_true(p->deps[k->dep0 + d] < i);
        if (k->node != HC_WN) {
            assert_true(k->node < c->n_an);
            per_an[k->node]++;
            assert_true(k->res == HC_RES_HOST ||
                        (k->res >= hc_res_an(k->node, HC_RES_AN_FLASH_RD) &&
                         k->res <= hc_res_an(k->node, HC_RES_AN_VU)));
        }
        if (k->kind == HC_GEMM) {
            const struct core_cmd *g = &k->u.gemm;
            const struct dnn_layer *ly = &c->model.layer[k->layer];
            assert_int_equal(core_twin_check(&c->core, g), CORE_OK);
            assert_false(g->accumulate);
            /* K whole: the full sum of the numerics spec in one command */
            uint32_t want_k = k->op == HC_G_FWD ? ly->in : k->op == HC_G_DW ? p->rows : ly->out;
            assert_int_equal(g->k, want_k);
            assert_int_equal(g->a_addr % w, 0);
            assert_int_equal(g->lda % w, 0);
        }
        if (k->kind == HC_DMA_IN || k->kind == HC_DMA_OUT) {
            struct dma_desc d = k->u.dma;
            assert_int_equal(dma_desc_check(&d, &dp), DMA_ST_OK);
            assert_true(dma_desc_fits(&d));
            uint64_t sram = d.store ? d.src : d.dst,
                     end = d.store ? dma_desc_src_end(&d) : dma_desc_dst_end(&d);
            uint64_t lo, hi;
            if (sram < map.b_base) {
                lo = 0;
                hi = map.b_base;
            } else if (sram < map.c_base) {
                lo = map.b_base;
                hi = map.c_base;
            } else {
                lo = map.c_base;
                hi = map.end;
            }
            uint64_t half = (hi - lo) / 2;
            /* inside one half of one pad */
            assert_true(end <= (sram - lo < half ? lo + half : hi));
        }
    }
    for (uint32_t n = 1; n < c->n_an; n++)
        assert_int_equal(per_an[n], per_an[0]);

    /* the C tiles of every GEMM of AN 0 cover the output once */
    for (uint32_t l = 0; l < c->model.n_layers; l++) {
        for (int g = HC_G_FWD; g <= HC_G_DX; g++) {
            const struct dnn_layer *ly = &c->model.layer[l];
            uint32_t M = g == HC_G_DW ? ly->in : p->rows;
            uint32_t N = g == HC_G_FWD ? ly->out : g == HC_G_DW ? ly->out : ly->in;
            uint64_t cover = 0;
            bool any = false;
            for (uint32_t i = 0; i < p->n_cmd; i++) {
                const struct hc_cmd *k = &p->cmd[i];
                if (k->node != 0 || k->kind != HC_GEMM || k->layer != l || k->op != g)
                    continue;
                any = true;
                cover += (uint64_t)k->u.gemm.m * k->u.gemm.n;
            }
            if (!any)
                continue;
            assert_int_equal(cover, (uint64_t)M * N);
        }
    }
}

static void test_program_invariants(void **state)
{
    static const struct {
        const char *model;
        uint32_t n, b;
        unsigned words;
        bool resident, eval;
    } cases[] = {
        {"mlp:64-32-10", 1, 8, 512, false, false},    {"mlp:64-32-10", 4, 8, 512, true, false},
        {"mlp:50-37-21-7", 3, 12, 512, false, false}, {"fc-mnist", 4, 64, 512, false, false},
        {"fc-mnist", 4, 64, 4096, true, false},       {"fc-mnist", 2, 64, 4096, false, true},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct hc_cfg h;
        struct hc_prog *p;
        struct err e;
        hc_small(&h, cases[i].model, cases[i].n, cases[i].b, cases[i].words);
        h.keep_output_resident = cases[i].resident;
        h.eval = cases[i].eval;
        if (hc_compile(&h, &p, &e))
            fail_msg("case %zu: %s", i, e.msg);
        check_prog(p);
        /* the resident option saves the last layer's second fetch and broadcast */
        uint32_t bcast = 0;
        for (uint32_t k = 0; k < p->n_cmd; k++)
            bcast += p->cmd[k].kind == HC_FABRIC_BCAST;
        uint32_t L = h.model.n_layers;
        assert_int_equal(bcast, h.eval ? L : 2 * L - (h.keep_output_resident ? 1 : 0));
        hc_prog_free(p);
    }
}

static char *listing(const struct machine_cfg *c, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    struct err e;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    *rc = machine_compile_listing(c, f, &e);
    fclose(f);
    return buf;
}

static void test_compile_listing(void **state)
{
    struct machine_cfg c;
    int rc;
    (void)state;
    machine_cfg_small(&c);
    c.n_an = 2;
    char *s = listing(&c, &rc);
    assert_int_equal(rc, 0);
    static const char *const want[] = {
        "== an0",      "== an1", "== wn",   "FLASH_RD", "FLASH_WR", "FABRIC_BCAST", "FABRIC_REDUCE",
        "LOSS_GATHER", "DMA_IN", "DMA_OUT", "GEMM",     "VU",       "OPT_UPDATE",   "wslot0",
        "wslot1",      "deps [", "L2 bwd",  "stream V", "stream W", "an1.core",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(s, want[i]))
            fail_msg("listing lacks '%s':\n%.2000s", want[i], s);
    free(s);
}

static int validate(const struct machine_cfg *c, char **table, struct err *e)
{
    size_t len = 0;
    FILE *f = open_memstream(table, &len);
    assert_non_null(f);
    int rc = machine_validate(c, f, e);
    fclose(f);
    return rc;
}

static void test_validate_fits(void **state)
{
    struct machine_cfg c;
    struct err e;
    char *t;
    (void)state;
    machine_cfg_small(&c);
    assert_int_equal(validate(&c, &t, &e), 0);
    assert_non_null(strstr(t, "the model fits"));
    assert_null(strstr(t, "FAIL"));
    assert_non_null(strstr(t, "SRAM: layer 1 fwd"));
    assert_non_null(strstr(t, "AN V stream"));
    free(t);

    machine_cfg_default(&c); /* fc-mnist on the default machine */
    c.samples = 60000;
    assert_int_equal(validate(&c, &t, &e), 0);
    free(t);
}

/* Each non-fitting machine fails with its reason. */
static void test_validate_does_not_fit(void **state)
{
    struct machine_cfg c;
    struct err e;
    struct err de;
    char *t;
    (void)state;

    /* B not divisible by N */
    machine_cfg_small(&c);
    c.n_an = 3;
    assert_int_equal(validate(&c, &t, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "not divisible by 3"));
    assert_non_null(strstr(t, "FAIL"));
    free(t);

    /* a K panel that does not fit the SRAM: 2048 inputs, 512-word pads of the 8x8 core */
    machine_cfg_small(&c);
    assert_int_equal(dnn_model_parse(&c.model, "mlp:4096-16-10", &de), 0);
    assert_int_equal(validate(&c, &t, &e), -ENOSPC);
    assert_non_null(strstr(e.msg, "K is never split"));
    assert_non_null(strstr(t, "SRAM: layer 1 fwd"));
    free(t);

    /* tensor buffer too small for the double-buffered weights */
    machine_cfg_default(&c);
    c.tb.size_bytes = 256 * 1024;
    assert_int_equal(validate(&c, &t, &e), -ENOSPC);
    assert_non_null(strstr(e.msg, "tensor buffer"));
    free(t);

    /* NV stream too small for an epoch of inputs */
    machine_cfg_small(&c);
    c.samples = 1000000;
    assert_int_equal(validate(&c, &t, &e), -ENOSPC);
    assert_non_null(strstr(e.msg, "NV stream"));
    free(t);

    /* V stream too small for a step's activations */
    machine_cfg_small(&c);
    assert_int_equal(dnn_model_parse(&c.model, "mlp:1024-1024-10", &de), 0);
    c.core.a_words = c.core.b_words = c.core.c_words = 8192;
    c.batch = 4096;
    c.n_an = 1;
    c.an_flash.geom.planes_per_die = 1;
    c.an_flash.geom.channels = 1;
    c.an_flash.geom.pages_per_block = 2; /* V: 579 blocks x 8 KiB < 16 MiB of activations */
    assert_int_equal(validate(&c, &t, &e), -ENOSPC);
    assert_non_null(strstr(e.msg, "AN V stream"));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_invariants),
        cmocka_unit_test(test_compile_listing),
        cmocka_unit_test(test_validate_fits),
        cmocka_unit_test(test_validate_does_not_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
