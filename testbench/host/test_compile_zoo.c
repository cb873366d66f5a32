/*
 * test_compile_zoo: the perf compiler (models/host/compile_zoo.h) on the paper's machine (4 ANs
 * of 16 cores of 128 x 256 PEs): programs that a resource running its commands in order can
 * execute (every dependency earlier); records that add up to the model (W to its weights, V to
 * the cores' saved activations), each written before it is read, each weight updated once per
 * iteration; one GEMM's core cycles worked out by hand from the RTL's formula; GEMM cycles that
 * the model's FLOP bound from below; every AN with the same program; no tile store that can
 * overlap a GEMM (the core's DMA port rule); bad settings refused with a message that names
 * them. Weight streaming: one GPT-3 layer's SRAM, bytes per operand class and core cycles by
 * hand; the dense GEMMs at 95% of the array or more; multicast equal to unicast with one core
 * (and 16 times fewer weight bytes with 16); a buffer too small refused naming the layer, and
 * so is the pads-only machine without multicast; a save larger than half the buffer in pieces;
 * zoo_live's working set by hand; the vector unit behind a streamed GEMM's pieces where the data
 * and the SRAM allow; a weight gradient's last store queued behind the next GEMM's first loads,
 * and its update in pieces; a saved tensor's moves in parts; a backward layer's first load beside
 * the layer before where the SRAM holds both.
 */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/host/compile_zoo.h"
#include "models/host/zoo_live.h"

struct fix {
    struct zoo_model *m;
    struct dma_time *dma_time;
    struct hz_cfg cfg;
};

/* The machine of configs/behemoth-paper.ini: 16 cores x 128 x 256 PEs per AN, 4 ANs. */
static void paper_cfg(struct fix *f, const char *spec)
{
    struct err e = {{0}};
    struct dma_params dp;
    struct dram_cfg tb = {.size_bytes = 16ull << 30,
                          .channels = 4,
                          .chan_mbps = 25600,
                          .latency_ps = 50000,
                          .interleave_bytes = 256};
    struct core_params core = {128, 256, 4096, 4096, 4096, 1};

    dma_params_default(&dp);
    assert_int_equal(zoo_build(spec, 1, &f->m, &e), 0);
    assert_int_equal(dma_time_create_core(&dp, &core, &tb, 1250, &f->dma_time, &e), 0);
    f->cfg = (struct hz_cfg){.model = f->m,
                             .n_an = 4,
                             .cores = 16,
                             .core = core,
                             .vu = {.lanes = 256, .latency = 8, .cost_exp = 4},
                             .core_period_ps = 1250,
                             .tb_bytes_per_s = 4ull * 25600 * 1000000,
                             .opt_lanes = 256,
                             .opt_latency = 32,
                             .opt_cost = 4,
                             .opt_state_words = 2,
                             .pieces = 4,
                             .dma_time = f->dma_time};
}

/* The same machine as weight streaming runs it (configs/behemoth-paper.ini): 512 MiB of SRAM
 * per core, a 128-byte DMA, weights multicast to the 16 cores, a 16 GiB tensor buffer. */
static void stream_cfg(struct fix *f, const char *spec)
{
    paper_cfg(f, spec);
    f->cfg.sram_bytes = 512ull << 20;
    f->cfg.dma_bytes_per_cycle = 128;
    f->cfg.multicast = true;
    f->cfg.tb_size_bytes = 16ull << 30;
}

static void fix_free(struct fix *f)
{
    zoo_destroy(f->m);
    dma_time_destroy(f->dma_time);
}

static struct hc_prog *compile_ok(const struct hz_cfg *c)
{
    struct hc_prog *p = NULL;
    struct err e = {{0}};
    int rc = hz_compile(c, &p, &e);
    if (rc)
        fail_msg("hz_compile: %s", e.msg);
    return p;
}

/* Every dependency is an earlier command; every V record read was written before on its node;
 * every W record is written back exactly once; the record sizes add up to the model. */
static void check_program(const struct fix *f, const struct hc_prog *p)
{
    uint32_t nv = p->n_rec[HC_S_V], nw = p->n_rec[HC_S_W];
    uint32_t *wr_w = calloc(nw, sizeof(*wr_w));
    uint8_t *v_written = calloc((size_t)nv * f->cfg.n_an, 1);
    uint64_t w_bytes = 0, v_bytes = 0;

    assert_non_null(wr_w);
    assert_non_null(v_written);
    assert_true(p->perf);
    for (uint32_t i = 0; i < p->n_cmd; i++) {
        const struct hc_cmd *c = &p->cmd[i];
        assert_int_equal(c->id, i);
        assert_true(c->res < p->n_res);
        for (uint32_t k = 0; k < c->ndep; k++)
            assert_true(p->deps[c->dep0 + k] < i);
        bool flash = c->kind == HC_FLASH_RD || c->kind == HC_FLASH_WR;
        if (flash && c->op == HC_S_V) {
            assert_true(c->u.fl.rec < nv);
            size_t at = (size_t)c->u.fl.rec * f->cfg.n_an + c->node;
            if (c->kind == HC_FLASH_WR)
                v_written[at] = 1;
            else
                assert_true(v_written[at]);
            assert_int_equal(c->bytes, p->rec_size[HC_S_V][c->u.fl.rec]);
        }
        if (flash && c->op == HC_S_W) {
            assert_true(c->u.fl.rec < nw);
            wr_w[c->u.fl.rec] += c->kind == HC_FLASH_WR;
        }
        if (c->kind == HC_GEMM || c->kind == HC_VU || c->kind == HC_OPT_UPDATE)
            assert_true(c->cycles > 0);
    }
    for (uint32_t r = 0; r < nw; r++) {
        assert_int_equal(wr_w[r], 1);
        w_bytes += p->rec_size[HC_S_W][r];
        assert_int_equal(p->rec_size[HC_S_M][r], 2 * p->rec_size[HC_S_W][r]);
        assert_int_equal(p->rec_size[HC_S_O][r], 4 * p->rec_size[HC_S_W][r]);
    }
    for (uint32_t r = 0; r < nv; r++)
        v_bytes += p->rec_size[HC_S_V][r];
    assert_int_equal(w_bytes, f->m->total.weight_bytes);
    assert_int_equal(v_bytes, f->cfg.cores * f->m->total.saved_bytes);
    free(wr_w);
    free(v_written);
}

static void test_programs_are_consistent(void **state)
{
    static const char *const specs[] = {"gpt3-like:1x1", "t5-like:1x1", "gpt3-like:1x2"};
    (void)state;
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        struct fix f;
        paper_cfg(&f, specs[i]);
        struct hc_prog *p = compile_ok(&f.cfg);
        check_program(&f, p);
        hc_prog_free(p);
        fix_free(&f);
    }
}

/* Every AN runs the same commands: AN n's program is AN 0's, command by command. */
static void test_every_an_runs_the_same_program(void **state)
{
    struct fix f;
    (void)state;
    paper_cfg(&f, "gpt3-like:1x1");
    struct hc_prog *p = compile_ok(&f.cfg);
    uint64_t sum[HC_MAX_AN] = {0}, cnt[HC_MAX_AN] = {0};
    for (uint32_t i = 0; i < p->n_cmd; i++) {
        const struct hc_cmd *c = &p->cmd[i];
        if (c->node == HC_WN)
            continue;
        sum[c->node] += c->cycles * 7 + c->bytes * 3 + c->kind;
        cnt[c->node]++;
    }
    for (uint32_t n = 1; n < f.cfg.n_an; n++) {
        assert_int_equal(sum[n], sum[0]);
        assert_int_equal(cnt[n], cnt[0]);
    }
    hc_prog_free(p);
    fix_free(&f);
}

/*
 * The forward QKV GEMM of layer 1, [2048 x 36864 x 12288], on a 128 x 256 core with 4096-word
 * pads (W = lcm(128, 256, 4) = 256 elements; half a pad = 524,288 elements). The least time is
 * the tiling with the least panel traffic: K chunks of kc = W = 256 (the core's tile period is
 * max(K, W, R, C) = 256 either way) and the largest C tile in half the C-pad, 512 x 1024, so
 * 4 x 36 tiles x 48 chunks = 6912 core commands [512 x 1024 x 256], each (rtl/core/README.md):
 *   tiles = 4 x 4 = 16, L0 = max(R, min(K, W)) = 256, P = max(K, 0 x W + L0, max(R, C)) = 256
 *   cycles = L0 + (tiles - 1) P + K + R + C + 8 = 256 + 3840 + 256 + 128 + 256 + 8 = 4744
 */
static void test_qkv_core_cycles_by_hand(void **state)
{
    struct fix f;
    uint64_t cycles = 0;
    (void)state;
    paper_cfg(&f, "gpt3-like:1x1");
    struct hc_prog *p = compile_ok(&f.cfg);
    for (uint32_t i = 0; i < p->n_cmd; i++) {
        const struct hc_cmd *c = &p->cmd[i];
        if (c->kind == HC_GEMM && c->node == 0 && c->layer == 1 && c->pass == HC_FWD &&
            c->op == ZOO_GEMM_QKV && c->sub == ZOO_ROLE_FWD)
            cycles += c->cycles;
    }
    assert_int_equal(cycles, 6912ull * 4744);
    hc_prog_free(p);
    fix_free(&f);
}

/* An AN's GEMM cycles x PEs x 2 is at least one core's FLOP of the iteration, and the tiling
 * keeps the array above 70% busy over the whole iteration. */
static void test_gemm_cycles_bounded_by_flop(void **state)
{
    static const char *const specs[] = {"gpt3-like:1x1", "t5-like:1x1"};
    (void)state;
    for (size_t s = 0; s < 2; s++) {
        struct fix f;
        paper_cfg(&f, specs[s]);
        struct hc_prog *p = compile_ok(&f.cfg);
        uint64_t cycles = 0;
        for (uint32_t i = 0; i < p->n_cmd; i++)
            if (p->cmd[i].kind == HC_GEMM && p->cmd[i].node == 0)
                cycles += p->cmd[i].cycles;
        double peak = (double)cycles * 128 * 256 * 2, flop = (double)f.m->total.flop;
        assert_true(peak >= flop);
        assert_true(flop / peak > 0.7);
        hc_prog_free(p);
        fix_free(&f);
    }
}

/* Whether command a depends on command b, directly or through others (ids fall along deps). */
static bool depends_on(const struct hc_prog *p, uint32_t a, uint32_t b)
{
    const struct hc_cmd *c = &p->cmd[a];
    for (uint32_t k = 0; k < c->ndep; k++) {
        uint32_t d = p->deps[c->dep0 + k];
        if (d == b || (d > b && depends_on(p, d, b)))
            return true;
    }
    return false;
}

/* The core's DMA port reads the C-pad only while no command runs (rtl/core/README.md): every
 * GEMM waits for the tile store before it on its node, so none can overlap it. */
static void test_tile_stores_never_overlap_a_gemm(void **state)
{
    struct fix f;
    (void)state;
    paper_cfg(&f, "t5-like:1x1");
    struct hc_prog *p = compile_ok(&f.cfg);
    uint32_t last_out = UINT32_MAX, gemms = 0;
    for (uint32_t i = 0; i < p->n_cmd; i++) {
        const struct hc_cmd *c = &p->cmd[i];
        if (c->node != 1)
            continue;
        if (c->kind == HC_DMA_OUT)
            last_out = i;
        if (c->kind == HC_GEMM && last_out != UINT32_MAX) {
            if (!depends_on(p, i, last_out))
                fail_msg("GEMM %u '%s' may overlap DMA_OUT %u '%s'", i, c->label, last_out,
                         p->cmd[last_out].label);
            gemms++;
        }
    }
    assert_true(gemms > 1000);
    hc_prog_free(p);
    fix_free(&f);
}

/*
 * Weight streaming, one GPT-3 layer by hand. Forward QKV, [2048 x 36864 x 12288]: the layer's
 * input x, its norm ln1_out and the output qkv stay in SRAM (2 B x 2048 x (12288 + 12288 +
 * 36864) = 251.7 MB, and two weight panels of 12288 x 256 x 2 B = 6.3 MB each); the weight
 * streams once, multicast: 12288 x 36864 x 2 B = 906.0 MB through the AN's buffer for its 16
 * cores. Its core command [2048 x 36864 x 12288] has 16 x 144 = 2304 tiles, L0 = 256 and a
 * tile period of K = 12288: 256 + 2303 x 12288 + 12288 + 128 + 256 + 8 = 28,312,200 cycles
 * against the 28,311,552 of a perfect array (99.998%). Gradient of B of the FFN's up
 * projection: the weight's gradient leaves once, summed over the cores on its way into the
 * buffer: 12288 x 49152 x 4 B = 2.416 GB. The attention core moves nothing.
 */
static void test_stream_layer_by_hand(void **state)
{
    struct fix f;
    struct hz_report rep;
    struct hc_prog *p = NULL;
    struct err e = {{0}};
    uint64_t cycles = 0;
    (void)state;
    stream_cfg(&f, "gpt3-like:1x1");
    assert_int_equal(hz_compile_report(&f.cfg, &p, &rep, &e), 0);
    const struct hz_gemm_class *qkv = &rep.cls[ZOO_GEMM_QKV][ZOO_ROLE_FWD];
    assert_int_equal(qkv->ops[HZ_STREAM], 96);
    assert_int_equal(qkv->ops[HZ_TILED], 0);
    assert_int_equal(qkv->chunks_max, 1);
    assert_int_equal(qkv->sram_held, 2ull * 2048 * (12288 + 12288 + 36864) + 2 * 2 * 12288 * 256);
    assert_int_equal(qkv->tb_bytes[ZOO_OPND_WEIGHT], 96ull * 12288 * 36864 * 2);
    assert_int_equal(qkv->tb_bytes[ZOO_OPND_ACT], 0);
    assert_int_equal(qkv->tb_bytes[ZOO_OPND_WGRAD], 0);
    assert_int_equal(rep.cls[ZOO_GEMM_FFN_UP][ZOO_ROLE_GRAD_B].tb_bytes[ZOO_OPND_WGRAD],
                     96ull * 12288 * 49152 * 4);
    for (int r = 0; r < HZ_OPND_CLASSES; r++)
        assert_int_equal(rep.cls[ZOO_GEMM_SCORES][ZOO_ROLE_FWD].tb_bytes[r], 0);
    for (uint32_t i = 0; i < p->n_cmd; i++) {
        const struct hc_cmd *c = &p->cmd[i];
        if (c->kind == HC_GEMM && c->node == 0 && c->layer == 1 && c->pass == HC_FWD &&
            c->op == ZOO_GEMM_QKV && c->sub == ZOO_ROLE_FWD)
            cycles += c->cycles;
    }
    assert_int_equal(cycles, 28312200);
    hz_report_fini(&rep);
    hc_prog_free(p);
    fix_free(&f);
}

/* Dense GEMMs near the array's peak: every QKV, projection and FFN class at 95% or more. */
static void test_stream_dense_gemms_near_peak(void **state)
{
    struct fix f;
    (void)state;
    stream_cfg(&f, "gpt3-like:1x1");
    struct hc_prog *p = compile_ok(&f.cfg);
    uint64_t cy[ZOO_GEMM_KINDS] = {0};
    for (uint32_t i = 0; i < p->n_cmd; i++)
        if (p->cmd[i].kind == HC_GEMM && p->cmd[i].node == 0)
            cy[p->cmd[i].op] += p->cmd[i].cycles;
    static const enum zoo_gemm_kind dense[] = {ZOO_GEMM_QKV, ZOO_GEMM_OUT_PROJ, ZOO_GEMM_FFN_UP,
                                               ZOO_GEMM_FFN_DOWN};
    const uint64_t n[] = {36864, 12288, 49152, 12288}, k[] = {12288, 12288, 12288, 49152};
    for (int d = 0; d < 4; d++) { /* three GEMMs of 2048 x n x k per layer and iteration */
        double ideal = 3.0 * 96 * 2048 * (double)n[d] * (double)k[d] / (128 * 256);
        assert_true(ideal / (double)cy[dense[d]] >= 0.95);
    }
    hc_prog_free(p);
    fix_free(&f);
}

/* Node 0's commands of one kind in layer 1 (the first decoder), pass and op, in program
 * order; their count. */
static uint32_t find_cmds(const struct hc_prog *p, enum hc_kind kind, enum hc_pass pass, int op,
                          int sub, uint32_t *ids, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_cmd && n < max; i++) {
        const struct hc_cmd *c = &p->cmd[i];
        if (c->kind == kind && c->node == 0 && c->layer == 1 && c->pass == pass && c->op == op &&
            (sub < 0 || c->sub == sub))
            ids[n++] = i;
    }
    return n;
}

/* The vector unit behind a streamed GEMM's pieces: piece k of the softmax after piece k of the
 * scores (whole heads), not after the next; the attention GEMM after it piece by piece; the
 * softmax's gradient beside the GEMM that followed its input's (SRAM holds both), GELU's
 * gradient after it (SRAM does not); one command on the pads-only machine. */
static void test_vector_unit_follows_pieces(void **state)
{
    struct fix f;
    uint32_t sc[8], sm[8], av[8], dp[8], gb[8], vb[8], dn[8];
    (void)state;
    stream_cfg(&f, "gpt3-like:1x1");
    struct hc_prog *p = compile_ok(&f.cfg);
    assert_int_equal(find_cmds(p, HC_GEMM, HC_FWD, ZOO_GEMM_SCORES, ZOO_ROLE_FWD, sc, 8), 4);
    assert_int_equal(find_cmds(p, HC_VU, HC_FWD, ZOO_VEC_SOFTMAX, -1, sm, 8), 4);
    assert_int_equal(find_cmds(p, HC_GEMM, HC_FWD, ZOO_GEMM_ATTN_V, ZOO_ROLE_FWD, av, 8), 4);
    for (uint32_t k = 0; k < 4; k++) {
        assert_true(depends_on(p, sm[k], sc[k]));
        assert_true(depends_on(p, av[k], sm[k]));
        if (k < 3) {
            assert_false(depends_on(p, sm[k], sc[k + 1]));
            assert_false(depends_on(p, av[k], sm[k + 1]));
        }
    }
    assert_int_equal(find_cmds(p, HC_GEMM, HC_BWD, ZOO_GEMM_ATTN_V, ZOO_ROLE_GRAD_A, dp, 8), 4);
    assert_int_equal(find_cmds(p, HC_GEMM, HC_BWD, ZOO_GEMM_ATTN_V, ZOO_ROLE_GRAD_B, gb, 8), 4);
    assert_int_equal(find_cmds(p, HC_VU, HC_BWD, ZOO_VEC_SOFTMAX_BWD, -1, vb, 8), 4);
    for (uint32_t k = 0; k < 4; k++) {
        assert_true(depends_on(p, vb[k], dp[k]));
        assert_false(depends_on(p, vb[k], gb[0]));
    }
    assert_int_equal(find_cmds(p, HC_GEMM, HC_BWD, ZOO_GEMM_FFN_DOWN, ZOO_ROLE_GRAD_B, dn, 8), 4);
    assert_int_equal(find_cmds(p, HC_VU, HC_BWD, ZOO_VEC_GELU_BWD, -1, vb, 8), 1);
    assert_true(depends_on(p, vb[0], dn[3]));
    hc_prog_free(p);
    fix_free(&f);

    paper_cfg(&f, "gpt3-like:1x1");
    p = compile_ok(&f.cfg);
    assert_int_equal(find_cmds(p, HC_VU, HC_FWD, ZOO_VEC_SOFTMAX, -1, sm, 8), 1);
    hc_prog_free(p);
    fix_free(&f);
}

/* The first command labelled as the format says, or fail. */
static uint32_t find_label(const struct hc_prog *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static uint32_t find_label(const struct hc_prog *p, const char *fmt, ...)
{
    char label[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(label, sizeof(label), fmt, ap);
    va_end(ap);
    for (uint32_t i = 0; i < p->n_cmd; i++)
        if (!strcmp(p->cmd[i].label, label))
            return i;
    fail_msg("no command '%s'", label);
    return 0;
}

/* A weight gradient's last store waits on the DMA's queue behind the next GEMM's first two
 * loads (the array waits for those, not for the store), the rest in their order; the gradient's
 * reduce and the weight's update still wait for that store; the update goes in as many pieces
 * as the GEMM. */
static void test_last_store_after_next_loads(void **state)
{
    struct fix f;
    uint32_t out[8], in[8];
    (void)state;
    stream_cfg(&f, "gpt3-like:1x1");
    struct hc_prog *p = compile_ok(&f.cfg);
    assert_int_equal(find_cmds(p, HC_DMA_OUT, HC_BWD, ZOO_GEMM_FFN_DOWN, ZOO_ROLE_GRAD_B, out, 8),
                     4);
    assert_int_equal(find_cmds(p, HC_DMA_IN, HC_BWD, ZOO_GEMM_FFN_UP, ZOO_ROLE_GRAD_A, in, 8), 4);
    assert_true(out[2] < in[0]);
    assert_true(in[1] < out[3] && out[3] < in[2]);
    uint32_t red = find_label(p, "REDUCE L2 mlp.down.w p3");
    assert_true(red > out[3] && depends_on(p, red, out[3]));
    assert_int_equal(p->cmd[out[3]].layer, 1);
    /* the update in as many pieces, each after the reduce, together the whole matrix */
    uint64_t params = 0;
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t u = find_label(p, "OPT L2 mlp.down.w p%u", k);
        assert_true(depends_on(p, u, red));
        assert_int_equal(p->cmd[u].tile, k);
        params += p->cmd[u].u.opt.params;
    }
    assert_int_equal(params, 49152ull * 12288);
    hc_prog_free(p);
    fix_free(&f);
}

/* A saved tensor leaves SRAM in as many parts as a GEMM has pieces, one after another, the
 * whole tensor together, and its flash write waits for the last; so does its load back, which an
 * elementwise operation follows part by part. */
static void test_saves_move_in_parts(void **state)
{
    struct fix f;
    (void)state;
    stream_cfg(&f, "gpt3-like:1x1");
    struct hc_prog *p = compile_ok(&f.cfg);
    static const char *const dir[2] = {"DMA_OUT", "DMA_IN"};
    for (int d = 0; d < 2; d++) {
        uint32_t part[4];
        uint64_t bytes = 0;
        for (uint32_t k = 0; k < 4; k++) {
            part[k] = find_label(p, "%s L2 qkv c%u", dir[d], k);
            bytes += p->cmd[part[k]].bytes;
            if (k)
                assert_true(depends_on(p, part[k], part[k - 1]));
        }
        assert_int_equal(bytes, 16ull * 2048 * 36864 * 2);
        if (d == 0)
            assert_true(depends_on(p, find_label(p, "WR V L2 qkv"), part[3]));
        else
            assert_true(depends_on(p, part[0], find_label(p, "RD V L2 qkv")));
    }
    /* GELU's recompute follows its loaded input part by part */
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t vu = find_label(p, "VU L2 gelu again p%u", k);
        assert_true(depends_on(p, vu, find_label(p, "DMA_IN L2 ffn_pre c%u", k)));
        if (k < 3)
            assert_false(depends_on(p, vu, find_label(p, "DMA_IN L2 ffn_pre c%u", k + 1)));
    }
    hc_prog_free(p);
    fix_free(&f);
}

/* A backward layer's first load into SRAM starts where it fits beside the layer before (during
 * that layer's last operations, not after them), and that layer's SRAM peak counts it. */
static void test_first_load_beside_the_layer_before(void **state)
{
    struct fix f;
    struct hz_report rep;
    struct hc_prog *p = NULL;
    struct err e = {{0}};
    (void)state;
    stream_cfg(&f, "gpt3-like:1x1");
    assert_int_equal(hz_compile_report(&f.cfg, &p, &rep, &e), 0);
    uint32_t load = find_label(p, "DMA_IN L2 ffn_pre c0"), end = 0;
    for (uint32_t i = 0; i < load; i++) /* the layer before's (L3's) last command on AN 0 */
        if (p->cmd[i].node == 0 && p->cmd[i].layer == 2 && p->cmd[i].pass == HC_BWD &&
            (p->cmd[i].kind == HC_GEMM || p->cmd[i].kind == HC_VU))
            end = i;
    bool beside = false; /* it waits for an operation of the layer before, not its last */
    for (uint32_t k = 0; k < p->cmd[load].ndep; k++) {
        const struct hc_cmd *c = &p->cmd[p->deps[p->cmd[load].dep0 + k]];
        beside |= c->id != end && c->layer == 2 && c->pass == HC_BWD &&
                  (c->kind == HC_GEMM || c->kind == HC_VU);
    }
    assert_true(beside);
    assert_false(depends_on(p, load, end));
    uint64_t peak = rep.use[1][2].sram_peak, own = rep.use[1][1].sram_peak;
    assert_true(peak > own && peak <= f.cfg.sram_bytes);
    hz_report_fini(&rep);
    hc_prog_free(p);
    fix_free(&f);
}

/* With one core per node, a multicast read feeds one core: the same program either way. */
static void test_multicast_one_core_is_unicast(void **state)
{
    struct fix f;
    (void)state;
    stream_cfg(&f, "gpt3-like:1x1");
    f.cfg.cores = 1;
    struct hc_prog *on = compile_ok(&f.cfg);
    f.cfg.multicast = false;
    struct hc_prog *off = compile_ok(&f.cfg);
    assert_int_equal(on->n_cmd, off->n_cmd);
    for (uint32_t i = 0; i < on->n_cmd; i++) {
        assert_int_equal(on->cmd[i].bytes, off->cmd[i].bytes);
        assert_int_equal(on->cmd[i].cycles, off->cmd[i].cycles);
        assert_int_equal(on->cmd[i].ndep, off->cmd[i].ndep);
    }
    f.cfg.cores = 16; /* ... and with 16, every weight byte is read 16 times without it (and
                         each core's weight gradients need a larger buffer) */
    f.cfg.tb_size_bytes = 64ull << 30;
    struct hc_prog *uni = compile_ok(&f.cfg);
    f.cfg.multicast = true;
    struct hc_prog *multi = compile_ok(&f.cfg);
    uint64_t b_uni = 0, b_multi = 0;
    for (uint32_t i = 0; i < uni->n_cmd; i++)
        if (uni->cmd[i].node == 0 && uni->cmd[i].kind == HC_DMA_IN &&
            uni->cmd[i].op == ZOO_GEMM_QKV && uni->cmd[i].sub == ZOO_ROLE_FWD)
            b_uni += uni->cmd[i].bytes;
    for (uint32_t i = 0; i < multi->n_cmd; i++)
        if (multi->cmd[i].node == 0 && multi->cmd[i].kind == HC_DMA_IN &&
            multi->cmd[i].op == ZOO_GEMM_QKV && multi->cmd[i].sub == ZOO_ROLE_FWD)
            b_multi += multi->cmd[i].bytes;
    assert_int_equal(b_multi, 96ull * 12288 * 36864 * 2);
    assert_int_equal(b_uni, 16 * b_multi);
    hc_prog_free(on);
    hc_prog_free(off);
    hc_prog_free(uni);
    hc_prog_free(multi);
    fix_free(&f);
}

/* A program that does not fit its tensor buffer is refused naming the first layer, by how much
 * and what it holds; the report still says what every layer holds. */
static void test_capacity_refused_names_the_layer(void **state)
{
    struct fix f;
    struct hz_report rep;
    struct hc_prog *p = (struct hc_prog *)1;
    struct err e = {{0}};
    (void)state;
    stream_cfg(&f, "gpt3-like:1x1");
    /* 2 GiB: the embedding's table, a 2.47 GB weight record, does not fit its slot (4 GiB
     * would: the FFN's 3.2 GB of activations then go in pieces of 2 GiB) */
    f.cfg.tb_size_bytes = 2ull << 30;
    assert_int_equal(hz_compile_report(&f.cfg, &p, &rep, &e), -ENOSPC);
    assert_null(p);
    if (!strstr(e.msg, "layer 1, forward: the tensor buffer would hold 2.47 GB") ||
        !strstr(e.msg, "0.32 GB more than its 2.15 GB"))
        fail_msg("message '%s'", e.msg);
    assert_int_equal(rep.n_layers, 98);
    assert_true(rep.use[0][1].tb_peak > f.cfg.tb_size_bytes);
    assert_true(rep.use[1][50].sram_peak <= f.cfg.sram_bytes);
    hz_report_fini(&rep);
    /* today's tiled program on the same buffer: each core's own weight gradients */
    fix_free(&f);
    paper_cfg(&f, "gpt3-like:1x1");
    f.cfg.tb_size_bytes = 16ull << 30;
    assert_int_equal(hz_compile(&f.cfg, &p, &e), -ENOSPC);
    if (!strstr(e.msg, "backward") || !strstr(e.msg, "gradient slots 77.31 GB"))
        fail_msg("message '%s'", e.msg);
    fix_free(&f);
}

/* LLaMA-3.1-70B at 8192 tokens: 16 cores' FFN pre-activations are 15.0 GB, more than half of
 * the 16 GiB buffer, so they go to flash and back in pieces of at most half of it (two in
 * flight, as the credits let them): the program compiles, every piece is written before it is
 * read and the pieces add up to the saved bytes; the buffer holds its peak. And an experts'
 * GEMM takes its weights piece by piece in either dataflow: Mixtral at 8192 tokens fits. */
static void test_large_saves_in_pieces(void **state)
{
    static const char *const spec[] = {"configs/models/llama-3.1-70b.json",
                                       "configs/models/mixtral-8x7b-v0.1.json"};
    (void)state;
    for (int i = 0; i < 2; i++) {
        struct fix f;
        struct hz_report rep;
        struct hc_prog *p = NULL;
        struct err e = {{0}};
        const struct zoo_opts o = {.batch = 1, .seq = 8192};
        stream_cfg(&f, "gpt3-like:1x1");
        zoo_destroy(f.m);
        assert_int_equal(zoo_build_with(spec[i], &o, &f.m, &e), 0);
        f.cfg.model = f.m;
        if (hz_compile_report(&f.cfg, &p, &rep, &e))
            fail_msg("%s: %s", spec[i], e.msg);
        check_program(&f, p);
        uint64_t saves = 0, largest = 0;
        for (uint32_t b = 0; b < f.m->n_blocks; b++)
            saves += (uint64_t)f.m->blocks[b].n_saved * f.m->blocks[b].repeat;
        for (uint32_t r = 0; r < p->n_rec[HC_S_V]; r++)
            largest = p->rec_size[HC_S_V][r] > largest ? p->rec_size[HC_S_V][r] : largest;
        assert_true(largest <= f.cfg.tb_size_bytes / 2);
        if (i == 0)
            assert_true(p->n_rec[HC_S_V] > saves); /* some in pieces */
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t l = 0; l < rep.n_layers; l++)
                assert_true(rep.use[pass][l].tb_peak <= f.cfg.tb_size_bytes);
        hz_report_fini(&rep);
        hc_prog_free(p);
        fix_free(&f);
    }
}

/* What one core holds in SRAM at each operation of a GPT-3 decoder's forward list, by hand
 * (2 B an element, 2048 tokens): at the QKV GEMM x, ln1_out and qkv, 2048 x (12288 + 12288 +
 * 36864) x 2 = 251.7 MB; at the softmax x, qkv and one head's scores and probabilities,
 * 2048 x (12288 + 36864) x 2 + 2 x 2048 x 2048 x 2 = 218.1 MB. */
static void test_live_by_hand(void **state)
{
    struct zoo_model *m;
    struct err e = {{0}};
    uint64_t live[64];
    (void)state;
    assert_int_equal(zoo_build("gpt3-like:1x1", 1, &m, &e), 0);
    const struct zoo_block *dec = &m->blocks[1];
    assert_int_equal(zoo_live(dec->fwd, dec->n_fwd, ZOO_SEQ, live, &e), 0);
    int qkv = -1, softmax = -1;
    for (uint32_t i = 0; i < dec->n_fwd; i++) {
        const struct zoo_op *op = &dec->fwd[i];
        if (op->type == ZOO_OP_GEMM && op->gemm.kind == ZOO_GEMM_QKV)
            qkv = (int)i;
        if (op->type == ZOO_OP_VEC && op->vec.kind == ZOO_VEC_SOFTMAX)
            softmax = (int)i;
    }
    assert_true(qkv >= 0 && softmax >= 0);
    assert_int_equal(live[qkv], 2ull * 2048 * (12288 + 12288 + 36864));
    assert_int_equal(live[softmax], 2ull * 2048 * (12288 + 36864) + 2ull * 2 * 2048 * 2048);
    zoo_destroy(m);
}

static void expect_refused(struct hz_cfg c, const char *needle)
{
    struct hc_prog *p = (struct hc_prog *)1;
    struct err e = {{0}};
    assert_int_equal(hz_compile(&c, &p, &e), -EINVAL);
    assert_null(p);
    if (!strstr(e.msg, needle))
        fail_msg("message '%s' lacks '%s'", e.msg, needle);
}

static void test_bad_settings_refused(void **state)
{
    struct fix f;
    struct hz_cfg c;
    (void)state;
    paper_cfg(&f, "gpt3-like:1x1");
    c = f.cfg;
    c.pieces = 0;
    expect_refused(c, "pieces per GEMM; accepted 1..");
    c = f.cfg;
    c.n_an = 0;
    expect_refused(c, "Activation Nodes; accepted 1..");
    c = f.cfg;
    c.opt_state_words = 3;
    expect_refused(c, "state words; accepted 1 or 2");
    c = f.cfg;
    c.core = (struct core_params){128, 256, 4, 4, 4, 1}; /* pads too small for any panel */
    expect_refused(c, "does not fit");
    fix_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_programs_are_consistent),
        cmocka_unit_test(test_every_an_runs_the_same_program),
        cmocka_unit_test(test_qkv_core_cycles_by_hand),
        cmocka_unit_test(test_gemm_cycles_bounded_by_flop),
        cmocka_unit_test(test_tile_stores_never_overlap_a_gemm),
        cmocka_unit_test(test_bad_settings_refused),
        cmocka_unit_test(test_stream_layer_by_hand),
        cmocka_unit_test(test_stream_dense_gemms_near_peak),
        cmocka_unit_test(test_multicast_one_core_is_unicast),
        cmocka_unit_test(test_capacity_refused_names_the_layer),
        cmocka_unit_test(test_large_saves_in_pieces),
        cmocka_unit_test(test_live_by_hand),
        cmocka_unit_test(test_vector_unit_follows_pieces),
        cmocka_unit_test(test_last_store_after_next_loads),
        cmocka_unit_test(test_saves_move_in_parts),
        cmocka_unit_test(test_first_load_beside_the_layer_before),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
