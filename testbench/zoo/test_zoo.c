/*
 * test_zoo: the transformer workloads (models/zoo): the 12 of the Behemoth paper's Table 3
 * within 5% of the paper on activations, weights and PFLOP; GPT3-like 1x1 is GPT-3 175B; the
 * T5-like shape; the saved-activation set; W, D and batch scale as documented; bad specs and
 * batches refused with messages that name them and what is accepted; FLOP that add up (blocks
 * to the total, backward = 2 x forward per GEMM kind, recompute only in the attention core
 * and a Hugging Face model's sliced LM head);
 * operation lists a compiler can walk (every read operand produced, loaded or a weight of the
 * block; every saved tensor loaded back once), the FLOP and walk checks also on two Hugging
 * Face models (test_zoo_hf has the rest); a memory footprint that does not grow with the
 * model.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "models/zoo/zoo.h"

/* Behemoth (S. Kim et al., "Behemoth: A Flash-centric Training Accelerator for Extreme-scale
 * DNNs", USENIX FAST '21), Table 3, copied as printed: total activations (GB), total weights
 * (GB), PFLOP; sequence length 2048, batch 1. Kept here apart from the library's copy, which
 * test_table3_within_5_percent checks against it. */
static const struct {
    const char *spec;
    double act_gb, weight_gb, pflop;
} table3[] = {
    {"gpt3-like:1x1", 44, 350, 2.15},    {"gpt3-like:1x2", 88, 698, 4.42},
    {"gpt3-like:1x4", 175, 1393, 8.56},  {"gpt3-like:2x1", 88, 1395, 8.56},
    {"gpt3-like:2x2", 175, 2786, 17.12}, {"gpt3-like:2x4", 349, 5569, 34.21},
    {"t5-like:1x1", 40, 305, 0.62},      {"t5-like:1x2", 80, 609, 1.25},
    {"t5-like:1x4", 160, 1218, 2.49},    {"t5-like:2x1", 80, 1218, 2.49},
    {"t5-like:2x2", 160, 2436, 4.99},    {"t5-like:2x4", 319, 4871, 9.97},
};

#define N_ROWS (sizeof(table3) / sizeof(table3[0]))

static struct zoo_model *build(const char *spec, uint32_t batch)
{
    struct zoo_model *m = NULL;
    struct err e = {{0}};

    if (zoo_build(spec, batch, &m, &e))
        fail_msg("zoo_build(%s, %u): %s", spec, batch, e.msg);
    return m;
}

static const struct zoo_block *block_of(const struct zoo_model *m, enum zoo_block_kind kind)
{
    for (uint32_t i = 0; i < m->n_blocks; i++)
        if (m->blocks[i].kind == kind)
            return &m->blocks[i];
    fail_msg("%s has no %s block", m->spec, zoo_block_kind_name(kind));
    return NULL;
}

static void assert_within(double got, double want, double tol, const char *what, const char *spec)
{
    if (fabs(got / want - 1.0) > tol)
        fail_msg("%s %s: %.4g, want %.4g within %.0f%% (ratio %.4f)", spec, what, got, want,
                 100 * tol, got / want);
}

/* ------------------------------------------------------------------ Table 3 */

static void test_table3_within_5_percent(void **state)
{
    (void)state;
    assert_int_equal(N_ROWS, ZOO_PAPER_ROWS);
    for (size_t i = 0; i < N_ROWS; i++) {
        const struct zoo_paper_row *lib = &zoo_paper_table3[i];
        struct zoo_model *m = build(table3[i].spec, 1);

        assert_string_equal(lib->spec, table3[i].spec);
        assert_true(lib->act_gb == table3[i].act_gb && lib->weight_gb == table3[i].weight_gb &&
                    lib->pflop == table3[i].pflop);
        assert_string_equal(m->spec, table3[i].spec);
        assert_within((double)m->total.saved_bytes / 1e9, table3[i].act_gb, 0.05, "activations",
                      m->spec);
        assert_within((double)m->total.weight_bytes / 1e9, table3[i].weight_gb, 0.05, "weights",
                      m->spec);
        assert_within((double)zoo_table3_flop(m) / 1e15, table3[i].pflop, 0.05, "PFLOP", m->spec);
        zoo_destroy(m);
    }
}

/* The paper's T5-like PFLOP is 2 x parameters x 2048 (a forward pass) on all six sizes, where
 * its GPT3-like PFLOP is 6 x parameters x 2048 (forward and backward): the README's finding,
 * and why zoo_table3_flop compares T5-like's forward pass. */
static void test_t5_paper_flop_is_a_forward_pass(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ROWS; i++) {
        struct zoo_model *m = build(table3[i].spec, 1);
        double params = (double)m->total.params, tokens = ZOO_SEQ;
        double passes = m->shape.family == ZOO_T5_LIKE ? 2 : 6;

        if (strcmp(m->spec, "gpt3-like:1x2")) /* the table's one outlier: 3% above */
            assert_within(passes * params * tokens / 1e15, table3[i].pflop, 0.01,
                          "PFLOP as passes x parameters x 2048", m->spec);
        if (m->shape.family == ZOO_T5_LIKE) {
            double train = (double)m->total.flop / 1e15;

            assert_true(train / table3[i].pflop > 3.0 && train / table3[i].pflop < 3.3);
            assert_int_equal(zoo_table3_flop(m), m->total.flop_fwd);
        } else {
            assert_int_equal(zoo_table3_flop(m), m->total.flop);
        }
        zoo_destroy(m);
    }
}

/* ------------------------------------------------------------------ shapes */

static void test_gpt3_1x1_is_gpt3_175b(void **state)
{
    struct zoo_model *m = build("gpt3-like:1x1", 1);
    const struct zoo_shape *s = &m->shape;
    /* Brown et al. 2020, Table 2.1 (GPT-3 175B) and the GPT-2 vocabulary. */
    const uint64_t d = 12288, layers = 96, vocab = 50257, ctx = 2048;
    const uint64_t matrices = 3 * d * d + d * d + 4 * d * d + 4 * d * d; /* qkv, out, up, down */
    const uint64_t biases = 3 * d + d + 4 * d + d, norms = 2 * 2 * d;
    const uint64_t embeddings = vocab * d + ctx * d, final_norm = 2 * d;

    (void)state;
    assert_int_equal(s->family, ZOO_GPT3_LIKE);
    assert_int_equal(s->d_model, d);
    assert_int_equal(s->dec_layers, layers);
    assert_int_equal(s->enc_layers, 0);
    assert_int_equal(s->heads, 96);
    assert_int_equal(s->d_head, 128);
    assert_int_equal(s->d_ff, 4 * d);
    assert_int_equal(s->vocab, vocab);
    assert_int_equal(s->seq, ctx);
    assert_int_equal(m->total.params,
                     layers * (matrices + biases + norms) + embeddings + final_norm);
    assert_int_equal(m->total.params, 174604259328ull); /* "175B" */
    assert_int_equal(m->total.weight_bytes, 2 * m->total.params);
    assert_int_equal(block_of(m, ZOO_BLOCK_DECODER)->repeat, layers);
    zoo_destroy(m);
}

static void test_t5_like_shape(void **state)
{
    struct zoo_model *m = build("t5-like:1x1", 1);
    const struct zoo_shape *s = &m->shape;
    const uint64_t d = 12288, layers = 36, vocab = 32128;
    const uint64_t enc = 4 * d * d + 8 * d * d + 2 * d;             /* self-attn, FFN, 2 norms */
    const uint64_t dec = 4 * d * d + 4 * d * d + 8 * d * d + 3 * d; /* + cross-attn, 3 norms */

    (void)state;
    assert_int_equal(s->family, ZOO_T5_LIKE);
    assert_int_equal(s->d_model, d);
    assert_int_equal(s->d_ff, 4 * d);
    assert_int_equal(s->heads, 96);
    assert_int_equal(s->d_head, 128);
    assert_int_equal(s->enc_layers, layers);
    assert_int_equal(s->dec_layers, layers);
    assert_int_equal(s->vocab, vocab);
    assert_int_equal(m->total.params, layers * enc + layers * dec + vocab * d + 2 * d);
    zoo_destroy(m);
}

/* Saved per token and layer: GPT3-like 9 x d_model values (ln1_out, qkv, ln2_out, ffn_pre) and
 * a 1/sigma per norm; T5-like encoder 9 x d_model, decoder 13 x d_model (+ ln2_out, xq, xk,
 * xv). */
static void test_saved_activation_set(void **state)
{
    struct zoo_model *g = build("gpt3-like:1x1", 1), *t = build("t5-like:1x1", 1);
    const uint64_t d = 12288, tok = ZOO_SEQ, bf16 = 2, stat = 4;
    const struct zoo_block *dec = block_of(g, ZOO_BLOCK_DECODER);

    (void)state;
    assert_int_equal(dec->per.saved_bytes, tok * (9 * d * bf16 + 2 * stat));
    assert_int_equal(dec->n_saved, 4);
    assert_string_equal(dec->saved[0].name, "ln1_out");
    assert_string_equal(dec->saved[1].name, "qkv");
    assert_string_equal(dec->saved[2].name, "ln2_out");
    assert_string_equal(dec->saved[3].name, "ffn_pre");
    assert_int_equal(block_of(t, ZOO_BLOCK_ENCODER)->per.saved_bytes,
                     tok * (9 * d * bf16 + 2 * stat));
    assert_int_equal(block_of(t, ZOO_BLOCK_CROSS_DECODER)->per.saved_bytes,
                     tok * (13 * d * bf16 + 3 * stat));
    assert_int_equal(block_of(t, ZOO_BLOCK_ENCODER)->n_saved, 6);
    assert_int_equal(block_of(t, ZOO_BLOCK_CROSS_DECODER)->n_saved, 10);
    /* Tensors per iteration: 4 per GPT layer, 6 + 10 per T5 layer pair, and the head's two
     * (and T5's encoder output); the paper's Figure 10 shows about 370 and 560. */
    assert_int_equal(g->total.saved_tensors, 96 * 4 + 2);
    assert_int_equal(t->total.saved_tensors, 36 * (6 + 10) + 1 + 2);
    zoo_destroy(g);
    zoo_destroy(t);
}

/* ------------------------------------------------------------------ scaling */

/* Forward FLOP of one layer at batch 1: GEMMs with weights 2 x tokens x their parameters, the
 * attention core 2 x 2 x tokens x seq x d per attention. */
static uint64_t layer_fwd_flop(uint64_t d, uint64_t matrices_d2, uint64_t attentions)
{
    return 2 * ZOO_SEQ * matrices_d2 * d * d + attentions * 4ull * ZOO_SEQ * ZOO_SEQ * d;
}

static void test_scaling_w_and_d(void **state)
{
    static const char *const fam[] = {"gpt3-like", "t5-like"};

    (void)state;
    for (int f = 0; f < 2; f++) {
        for (uint32_t w = 1; w <= 4; w *= 2) {
            for (uint32_t dd = 1; dd <= 4; dd *= 2) {
                char spec[32];
                struct zoo_model *m, *base;

                snprintf(spec, sizeof(spec), "%s:%ux%u", fam[f], w, dd);
                m = build(spec, 1);
                base = build(f ? "t5-like:1x1" : "gpt3-like:1x1", 1);
                /* W: every width, the heads (of 128) too; D: the layers. */
                assert_int_equal(m->shape.d_model, w * base->shape.d_model);
                assert_int_equal(m->shape.d_ff, w * base->shape.d_ff);
                assert_int_equal(m->shape.heads, w * base->shape.heads);
                assert_int_equal(m->shape.d_head, base->shape.d_head);
                assert_int_equal(m->shape.vocab, base->shape.vocab);
                assert_int_equal(m->shape.enc_layers, dd * base->shape.enc_layers);
                assert_int_equal(m->shape.dec_layers, dd * base->shape.dec_layers);
                for (uint32_t i = 0; i < m->n_blocks; i++) {
                    const struct zoo_block *k = &m->blocks[i], *k1 = &base->blocks[i];
                    uint64_t d = m->shape.d_model;

                    assert_int_equal(k->repeat, k1->repeat == 1 ? 1 : dd * k1->repeat);
                    /* A layer: matrices grow W^2, saved activations and norms W. */
                    if (k->kind == ZOO_BLOCK_DECODER) {
                        assert_int_equal(k->per.params, 12 * d * d + 13 * d);
                        assert_int_equal(k->per.saved_bytes, ZOO_SEQ * (18 * d + 8));
                        assert_int_equal(k->per.flop_fwd, layer_fwd_flop(d, 12, 1));
                    } else if (k->kind == ZOO_BLOCK_ENCODER) {
                        assert_int_equal(k->per.params, 12 * d * d + 2 * d);
                        assert_int_equal(k->per.saved_bytes, ZOO_SEQ * (18 * d + 8));
                        assert_int_equal(k->per.flop_fwd, layer_fwd_flop(d, 12, 1));
                    } else if (k->kind == ZOO_BLOCK_CROSS_DECODER) {
                        assert_int_equal(k->per.params, 16 * d * d + 3 * d);
                        assert_int_equal(k->per.saved_bytes, ZOO_SEQ * (26 * d + 12));
                        assert_int_equal(k->per.flop_fwd, layer_fwd_flop(d, 16, 2));
                    }
                }
                zoo_destroy(base);
                zoo_destroy(m);
            }
        }
    }
}

static void test_batch_scales_activations_and_flop(void **state)
{
    static const char *const specs[] = {"gpt3-like:1x1", "t5-like:2x4"};

    (void)state;
    for (int i = 0; i < 2; i++) {
        struct zoo_model *one = build(specs[i], 1), *b8 = build(specs[i], 8);

        assert_int_equal(b8->shape.batch, 8);
        assert_int_equal(b8->total.params, one->total.params);
        assert_int_equal(b8->total.weight_bytes, one->total.weight_bytes);
        assert_int_equal(b8->total.saved_bytes, 8 * one->total.saved_bytes);
        assert_int_equal(b8->total.saved_tensors, one->total.saved_tensors);
        assert_int_equal(b8->total.flop_fwd, 8 * one->total.flop_fwd);
        assert_int_equal(b8->total.flop, 8 * one->total.flop);
        zoo_destroy(one);
        zoo_destroy(b8);
    }
}

/* ------------------------------------------------------------------ bad input */

static void test_bad_specs_refused(void **state)
{
    static const struct {
        const char *spec;
        const char *needle;
    } bad[] = {
        {"gpt3-like:3x1", "width W 3 is not accepted"},
        {"gpt3-like:1x8", "depth D 8 is not accepted"},
        {"t5-like:0x1", "width W 0"},
        {"bert:1x1", "model 'bert:1x1' is not known"},
        {"gpt3-like", "model 'gpt3-like' is not known"},
        {"GPT3-like:1x1", "is not known"},
        {"gpt3-like:1x1x", "the size '1x1x' is not WxD"},
        {"t5-like:1*1", "the size '1*1' is not WxD"},
        {"t5-like:", "the size '' is not WxD"},
        {"", "no spec given"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct zoo_model *m = (struct zoo_model *)&bad; /* must be cleared */
        struct err e = {{0}};

        assert_int_equal(zoo_build(bad[i].spec, 1, &m, &e), -EINVAL);
        assert_null(m);
        if (!strstr(e.msg, bad[i].needle) ||
            !strstr(e.msg, "gpt3-like:WxD or t5-like:WxD with W and D each 1, 2 or 4"))
            fail_msg("spec '%s': message \"%s\" lacks \"%s\" or what is accepted", bad[i].spec,
                     e.msg, bad[i].needle);
    }
    for (uint32_t batch = 0; batch <= ZOO_MAX_BATCH + 1; batch += ZOO_MAX_BATCH + 1) {
        struct zoo_model *m = NULL;
        struct err e = {{0}};

        assert_int_equal(zoo_build("gpt3-like:1x1", batch, &m, &e), -EINVAL);
        assert_null(m);
        assert_non_null(strstr(e.msg, "batch"));
        assert_non_null(strstr(e.msg, "accepted 1..64"));
    }
}

/* ------------------------------------------------------------------ FLOP */

static bool is_attention_core(enum zoo_gemm_kind k)
{
    return k == ZOO_GEMM_SCORES || k == ZOO_GEMM_ATTN_V || k == ZOO_GEMM_XSCORES ||
           k == ZOO_GEMM_X_ATTN_V;
}

static void check_block_flop(const struct zoo_block *k, bool sliced)
{
    uint64_t fwd[ZOO_GEMM_KINDS] = {0}, grads[ZOO_GEMM_KINDS] = {0}, redo[ZOO_GEMM_KINDS] = {0};

    for (uint32_t i = 0; i < k->n_fwd; i++)
        if (k->fwd[i].type == ZOO_OP_GEMM) {
            assert_int_equal(k->fwd[i].gemm.role, ZOO_ROLE_FWD);
            fwd[k->fwd[i].gemm.kind] += zoo_op_flop(&k->fwd[i]);
        }
    for (uint32_t i = 0; i < k->n_bwd; i++) {
        const struct zoo_op *op = &k->bwd[i];

        if (op->type != ZOO_OP_GEMM)
            continue;
        assert_int_not_equal(op->gemm.role, ZOO_ROLE_FWD);
        if (op->gemm.role == ZOO_ROLE_RECOMPUTE)
            redo[op->gemm.kind] += zoo_op_flop(op);
        else
            grads[op->gemm.kind] += zoo_op_flop(op);
    }
    for (int g = 0; g < ZOO_GEMM_KINDS; g++) {
        if (grads[g] != 2 * fwd[g])
            fail_msg("block %s, %s: gradient FLOP %llu, want 2 x forward %llu", k->name,
                     zoo_gemm_kind_name(g), (unsigned long long)grads[g],
                     (unsigned long long)(2 * fwd[g]));
        /* recomputed: the attention core, and a Hugging Face model's sliced LM head */
        bool again = is_attention_core(g) || (g == ZOO_GEMM_LM_HEAD && sliced);
        assert_int_equal(redo[g], again ? fwd[g] : 0);
    }
    assert_int_equal(k->per.flop_bwd, 2 * k->per.flop_fwd);
    assert_int_equal(k->per.flop, k->per.flop_fwd + k->per.flop_bwd + k->per.flop_recompute);
}

static void test_flop_add_up(void **state)
{
    static const char *const hf[] = {"configs/models/llama-3.1-8b.json",
                                     "configs/models/qwen2-7b.json",
                                     "configs/models/qwen1.5-moe-a2.7b.json"};

    (void)state;
    for (size_t r = 0; r < N_ROWS + 3; r++) {
        struct zoo_model *m = build(r < N_ROWS ? table3[r].spec : hf[r - N_ROWS], 2);
        uint64_t sum = 0, fwd = 0, params = 0, saved = 0;

        for (uint32_t i = 0; i < m->n_blocks; i++) {
            const struct zoo_block *k = &m->blocks[i];

            check_block_flop(k, m->shape.family == ZOO_HF);
            sum += k->repeat * k->per.flop;
            fwd += k->repeat * k->per.flop_fwd;
            params += k->repeat * k->per.params;
            saved += k->repeat * k->per.saved_bytes;
        }
        assert_int_equal(sum, m->total.flop);
        assert_int_equal(fwd, m->total.flop_fwd);
        assert_int_equal(m->total.flop_bwd, 2 * m->total.flop_fwd);
        assert_int_equal(params, m->total.params);
        assert_int_equal(saved, m->total.saved_bytes);
        zoo_destroy(m);
    }
}

/* ------------------------------------------------------------------ a walk */

/* "qkv.q" is part q of the tensor "qkv"; a tensor is available when it or its parts are. */
static bool same_tensor(const char *part, const char *whole)
{
    size_t n = strlen(whole);

    return !strcmp(part, whole) || (!strncmp(part, whole, n) && part[n] == '.');
}

static bool is_weight(const struct zoo_block *k, const char *name)
{
    for (uint32_t i = 0; i < k->n_weights; i++)
        if (!strcmp(k->weights[i].name, name))
            return true;
    return false;
}

/* The names an op list has made available so far: produced, loaded. */
struct seen {
    const char *name[128];
    int n;
};

static void see(struct seen *s, const char *name)
{
    assert_true(s->n < 128);
    s->name[s->n++] = name;
}

static bool seen(const struct seen *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (same_tensor(name, s->name[i]) || same_tensor(s->name[i], name))
            return true;
    return false;
}

/* The block's inputs: the residual stream from the block before (x, or dy in backward), token
 * ids, and the gradient of the encoder output that the decoder layers accumulate. */
static void walk(const struct zoo_block *k, const struct zoo_op *ops, uint32_t n, bool bwd)
{
    struct seen s = {0};

    see(&s, bwd ? "dy" : "x");
    see(&s, "tokens");
    if (bwd)
        see(&s, "d_enc_out");
    for (uint32_t i = 0; i < n; i++) {
        const struct zoo_op *op = &ops[i];
        const struct zoo_gemm *g = &op->gemm;

        if (op->type == ZOO_OP_LOAD) {
            see(&s, op->xfer.tensor);
            continue;
        }
        if (op->type == ZOO_OP_SAVE) {
            if (!seen(&s, op->xfer.tensor))
                fail_msg("block %s: SAVE of %s before it is made", k->name, op->xfer.tensor);
            continue;
        }
        if (op->type == ZOO_OP_VEC) {
            if (!seen(&s, op->vec.in) ||
                (op->vec.in2 && !seen(&s, op->vec.in2) && !is_weight(k, op->vec.in2)))
                fail_msg("block %s: %s reads %s before it is made", k->name,
                         zoo_vec_kind_name(op->vec.kind), op->vec.in);
            if (op->vec.weight && !is_weight(k, op->vec.weight))
                fail_msg("block %s: %s reads weight %s, not the block's", k->name,
                         zoo_vec_kind_name(op->vec.kind), op->vec.weight);
            see(&s, op->vec.out);
            continue;
        }
        const struct zoo_opnd *in[2] = {&g->a, &g->b};
        for (int j = 0; j < 2; j++) {
            bool ok =
                in[j]->role == ZOO_OPND_WEIGHT ? is_weight(k, in[j]->name) : seen(&s, in[j]->name);

            if (in[j]->role == ZOO_OPND_WGRAD)
                ok = false;
            if (!ok)
                fail_msg("block %s, %s %s: operand %s (%s) is not available", k->name,
                         zoo_gemm_kind_name(g->kind), zoo_gemm_role_name(g->role), in[j]->name,
                         zoo_operand_name(in[j]->role));
        }
        /* Forward and recompute make activations; gradients make gradients. */
        if (g->role == ZOO_ROLE_FWD || g->role == ZOO_ROLE_RECOMPUTE)
            assert_int_equal(g->c.role, ZOO_OPND_ACT);
        else if (g->c.role == ZOO_OPND_WGRAD)
            assert_true(g->role == ZOO_ROLE_GRAD_B && g->b.role != ZOO_OPND_WEIGHT &&
                        is_weight(k, g->c.name));
        else
            assert_int_equal(g->c.role, ZOO_OPND_GRAD);
        see(&s, g->c.name);
    }
}

static void test_operation_lists_walk(void **state)
{
    static const char *const specs[] = {"gpt3-like:1x1",
                                        "t5-like:1x1",
                                        "configs/models/llama-3.1-8b.json",
                                        "configs/models/qwen2-7b.json",
                                        "configs/models/mixtral-8x7b-v0.1.json",
                                        "configs/models/deepseek-v3.json",
                                        "configs/models/qwen1.5-moe-a2.7b.json",
                                        "configs/models/qwen1.5-moe-a2.7b.json"};
    const size_t n = sizeof(specs) / sizeof(specs[0]);

    (void)state;
    for (size_t m_i = 0; m_i < n; m_i++) {
        /* the last one with a skewed routing: its experts in groups */
        const struct zoo_opts o = {.batch = 1, .zipf = m_i + 1 == n ? 1.2 : 0};
        struct zoo_model *m = NULL;
        struct err e = {{0}};
        if (zoo_build_with(specs[m_i], &o, &m, &e))
            fail_msg("%s: %s", specs[m_i], e.msg);
        assert_true(m_i + 1 < n || m->shape.groups == 4);

        for (uint32_t i = 0; i < m->n_blocks; i++) {
            const struct zoo_block *k = &m->blocks[i];
            uint32_t saves = 0;

            walk(k, k->fwd, k->n_fwd, false);
            walk(k, k->bwd, k->n_bwd, true);
            /* SAVEs in the order of the saved list; each loaded back once, same bytes. */
            for (uint32_t j = 0; j < k->n_fwd; j++) {
                const struct zoo_op *op = &k->fwd[j];
                uint32_t loads = 0;

                if (op->type != ZOO_OP_SAVE)
                    continue;
                assert_true(saves < k->n_saved);
                assert_string_equal(op->xfer.tensor, k->saved[saves].name);
                assert_int_equal(op->xfer.bytes, k->saved[saves].bytes);
                assert_int_equal(op->xfer.owner, k->kind);
                saves++;
                for (uint32_t l = 0; l < k->n_bwd; l++)
                    if (k->bwd[l].type == ZOO_OP_LOAD &&
                        !strcmp(k->bwd[l].xfer.tensor, op->xfer.tensor)) {
                        assert_int_equal(k->bwd[l].xfer.bytes, op->xfer.bytes);
                        assert_int_equal(k->bwd[l].xfer.owner, k->kind);
                        loads++;
                    }
                assert_int_equal(loads, 1);
            }
            assert_int_equal(saves, k->n_saved);
        }
        /* The one tensor read by other blocks: the encoder's output, in forward and backward
         * of every decoder layer, the bytes its SAVE wrote. */
        if (m->shape.family == ZOO_T5_LIKE) {
            const struct zoo_block *dec = block_of(m, ZOO_BLOCK_CROSS_DECODER);
            const struct zoo_tensor *enc_out = &block_of(m, ZOO_BLOCK_ENC_NORM)->saved[0];
            int loads = 0;

            for (uint32_t j = 0; j < dec->n_fwd + dec->n_bwd; j++) {
                const struct zoo_op *op = j < dec->n_fwd ? &dec->fwd[j] : &dec->bwd[j - dec->n_fwd];

                if (op->type == ZOO_OP_LOAD && op->xfer.owner == ZOO_BLOCK_ENC_NORM) {
                    assert_string_equal(op->xfer.tensor, enc_out->name);
                    assert_int_equal(op->xfer.bytes, enc_out->bytes);
                    loads++;
                }
            }
            assert_int_equal(loads, 2);
        }
        zoo_destroy(m);
    }
}

/* Tied weights: the embedding table is counted once, where it is first listed. */
static void test_tied_embedding_counted_once(void **state)
{
    struct zoo_model *t = build("t5-like:1x1", 1), *g = build("gpt3-like:1x1", 1);
    int owners = 0, ties = 0;

    (void)state;
    for (uint32_t i = 0; i < t->n_blocks; i++)
        for (uint32_t j = 0; j < t->blocks[i].n_weights; j++)
            if (!strcmp(t->blocks[i].weights[j].name, "shared")) {
                owners += !t->blocks[i].weights[j].tied;
                ties += t->blocks[i].weights[j].tied;
            }
    assert_int_equal(owners, 1);
    assert_int_equal(ties, 2); /* the decoder's embedding and the LM head */
    assert_int_equal(block_of(g, ZOO_BLOCK_HEAD)->per.params, 2 * 12288);
    zoo_destroy(t);
    zoo_destroy(g);
}

/* ------------------------------------------------------------------ memory */

static void test_footprint_does_not_grow(void **state)
{
    static const char *const fam[] = {"gpt3-like", "t5-like"};

    (void)state;
    for (int f = 0; f < 2; f++) {
        char small[32], big[32];
        struct zoo_model *a, *b;

        snprintf(small, sizeof(small), "%s:1x1", fam[f]);
        snprintf(big, sizeof(big), "%s:4x4", fam[f]);
        a = build(small, 1);
        b = build(big, ZOO_MAX_BATCH);
        assert_int_equal(zoo_footprint(a), zoo_footprint(b));
        /* A few KB per block kind. */
        assert_true(zoo_footprint(a) < 6 * 1024 * a->n_blocks);
        zoo_destroy(a);
        zoo_destroy(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table3_within_5_percent),
        cmocka_unit_test(test_t5_paper_flop_is_a_forward_pass),
        cmocka_unit_test(test_gpt3_1x1_is_gpt3_175b),
        cmocka_unit_test(test_t5_like_shape),
        cmocka_unit_test(test_saved_activation_set),
        cmocka_unit_test(test_scaling_w_and_d),
        cmocka_unit_test(test_batch_scales_activations_and_flop),
        cmocka_unit_test(test_bad_specs_refused),
        cmocka_unit_test(test_flop_add_up),
        cmocka_unit_test(test_operation_lists_walk),
        cmocka_unit_test(test_tied_embedding_counted_once),
        cmocka_unit_test(test_footprint_does_not_grow),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
