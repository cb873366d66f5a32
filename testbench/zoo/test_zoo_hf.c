/*
 * test_zoo_hf: models from their Hugging Face config.json (models/zoo/zoo_hf.h): the shipped
 * configs (configs/models/) have their published parameter counts, total and active per
 * token; a LLaMA layer's GEMMs, saved tensors and FLOP against a hand calculation
 * (grouped-query K and V, the gated FFN, rotary positions on the vector unit), and a Mixtral
 * layer's (the router, 8 experts on a quarter of the tokens each); a skewed routing's groups of
 * experts against a hand calculation; tied embeddings counted once;
 * the operation lists walk as the paper families' do; every field that does not change the timing
 * is listed; bad files and fields are refused naming the field and what is accepted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "models/zoo/zoo.h"

static struct zoo_model *build(const char *spec, uint32_t seq)
{
    struct zoo_model *m = NULL;
    struct err e = {{0}};
    const struct zoo_opts o = {.batch = 1, .seq = seq};

    if (zoo_build_with(spec, &o, &m, &e))
        fail_msg("zoo_build_with(%s): %s", spec, e.msg);
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

/* The parameter counts the models' Hugging Face pages publish (safetensors, as rounded there)
 * against the zoo's exact count of the same config, within 1%; the active ones within the
 * rounding of the figure published (12.9 B: 0.05 B either way), DeepSeek's without its input
 * embedding table, which its 37 B leaves out (a token reads one row of it). */
static void test_shipped_configs_have_published_counts(void **state)
{
    static const struct {
        const char *file;
        uint64_t exact, active; /* active 0: all (dense) */
        double published, published_active, unit;
        bool active_without_embedding;
    } m[] = {
        {"configs/models/llama-3.1-8b.json", 8030261248ull, 0, 8.03e9, 0, 0, false},
        {"configs/models/llama-3.1-70b.json", 70553706496ull, 0, 70.6e9, 0, 0, false},
        {"configs/models/llama-3.1-405b.json", 405853388800ull, 0, 406e9, 0, 0, false},
        {"configs/models/mistral-7b-v0.1.json", 7241732096ull, 0, 7.24e9, 0, 0, false},
        {"configs/models/qwen2-7b.json", 7615616512ull, 0, 7.62e9, 0, 0, false},
        {"configs/models/mixtral-8x7b-v0.1.json", 46702792704ull, 12879925248ull, 46.7e9, 12.9e9,
         0.1e9, false},
        {"configs/models/qwen1.5-moe-a2.7b.json", 14315784192ull, 2689173504ull, 14.3e9, 2.7e9,
         0.1e9, false},
        {"configs/models/deepseek-v3.json", 671026404352ull, 37552282624ull, 671e9, 37e9, 1e9,
         true},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
        struct zoo_model *z = build(m[i].file, 2048);
        uint64_t active = m[i].active ? m[i].active : m[i].exact;
        double dev = (double)z->total.params / m[i].published - 1;
        if (z->total.params != m[i].exact || dev > 0.01 || dev < -0.01 ||
            z->total.params_active != active)
            fail_msg("%s: %llu parameters (%llu active), expected %llu (%llu; published %.4g)",
                     m[i].file, (unsigned long long)z->total.params,
                     (unsigned long long)z->total.params_active, (unsigned long long)m[i].exact,
                     (unsigned long long)active, m[i].published);
        if (m[i].active) {
            double a = (double)active;
            if (m[i].active_without_embedding)
                a -= (double)(z->shape.vocab * z->shape.d_model);
            if (a < m[i].published_active - m[i].unit / 2 ||
                a > m[i].published_active + m[i].unit / 2)
                fail_msg("%s: %.4g active, not the published %.4g", m[i].file, a,
                         m[i].published_active);
        }
        assert_int_equal(z->shape.family, ZOO_HF);
        assert_int_equal(z->total.weight_bytes, 2 * z->total.params);
        zoo_destroy(z);
    }
}

/* One LLaMA-3.1-8B layer at 4096 tokens, by hand: d 4096, 32 heads of 128, 8 K and V heads
 * (width 1024), d_ff 14336 (gate and up: 28672). */
static void test_llama_layer_by_hand(void **state)
{
    const uint64_t t = 4096, d = 4096, kv = 1024, ff = 14336, heads = 32, dh = 128;
    struct zoo_model *m = build("configs/models/llama-3.1-8b.json", (uint32_t)t);
    const struct zoo_block *k = block_of(m, ZOO_BLOCK_DECODER);
    uint64_t proj = 2 * t * (d * d + 2 * d * kv + d * d + d * 2 * ff + ff * d);
    uint64_t attn = 2 * 2 * t * t * dh * heads; /* scores and attention x V */
    int rope = 0, rope_bwd = 0, swiglu = 0;

    (void)state;
    assert_int_equal(m->shape.seq, t);
    assert_int_equal(k->repeat, 32);
    assert_int_equal(k->per.params, d * d * 2 + 2 * d * kv + 3 * d * ff + 2 * d);
    assert_int_equal(k->per.flop_fwd, proj + attn);
    assert_int_equal(k->per.flop_bwd, 2 * (proj + attn));
    assert_int_equal(k->per.flop_recompute, attn);
    /* saved: both norms' outputs (with 1/rms), Q, K and V after rotation, the gate and up */
    assert_int_equal(k->per.saved_bytes,
                     2 * (2 * t * d + 4 * t) + 2 * t * d + 2 * 2 * t * kv + 2 * t * 2 * ff);
    for (uint32_t i = 0; i < k->n_fwd; i++) {
        const struct zoo_op *op = &k->fwd[i];
        if (op->type == ZOO_OP_GEMM && (op->gemm.kind == ZOO_GEMM_K || op->gemm.kind == ZOO_GEMM_V))
            assert_int_equal(op->gemm.n, kv);
        if (op->type == ZOO_OP_GEMM && op->gemm.kind == ZOO_GEMM_SCORES)
            assert_int_equal(op->gemm.count, heads);
        if (op->type == ZOO_OP_VEC) {
            rope += op->vec.kind == ZOO_VEC_ROPE;
            swiglu += op->vec.kind == ZOO_VEC_SWIGLU;
        }
    }
    for (uint32_t i = 0; i < k->n_bwd; i++) {
        const struct zoo_op *op = &k->bwd[i];
        rope_bwd += op->type == ZOO_OP_VEC && op->vec.kind == ZOO_VEC_ROPE_BWD;
        /* a K or V head's gradient sums its 4 query heads' */
        if (op->type == ZOO_OP_GEMM && op->gemm.role == ZOO_ROLE_GRAD_B &&
            (op->gemm.kind == ZOO_GEMM_SCORES || op->gemm.kind == ZOO_GEMM_ATTN_V))
            assert_true(op->gemm.accumulate);
    }
    assert_int_equal(rope, 2);
    assert_int_equal(rope_bwd, 2);
    assert_int_equal(swiglu, 1);
    /* untied: the head has its own table */
    assert_int_equal(block_of(m, ZOO_BLOCK_HEAD)->per.params, 128256 * d + d);
    zoo_destroy(m);
}

/* One Mixtral-8x7B layer by hand: its attention is Mistral's; the FFN 8 experts of d_ff 14336,
 * 2 a token, so each expert computes on 2048 x 2 / 8 = 512 tokens, and a router of 8. */
static void test_mixtral_layer_by_hand(void **state)
{
    const uint64_t t = 2048, d = 4096, kv = 1024, fe = 14336, e = 8, k = 2;
    struct zoo_model *m = build("configs/models/mixtral-8x7b-v0.1.json", (uint32_t)t);
    const struct zoo_block *b = block_of(m, ZOO_BLOCK_DECODER);
    uint64_t attn = 2 * t * (2 * d * d + 2 * d * kv) + 2 * 2 * t * t * 128 * 32;
    uint64_t experts = 2 * (t * k) * (d * 2 * fe + fe * d), router = 2 * t * d * e;
    int up = 0;

    (void)state;
    assert_int_equal(b->per.flop_fwd, attn + experts + router);
    assert_int_equal(b->per.flop_bwd, 2 * b->per.flop_fwd);
    assert_int_equal(b->per.params, 2 * d * d + 2 * d * kv + e * 3 * d * fe + d * e + 2 * d);
    assert_int_equal(b->per.params_active, 2 * d * d + 2 * d * kv + k * 3 * d * fe + d * e + 2 * d);
    for (uint32_t i = 0; i < b->n_fwd; i++) {
        const struct zoo_gemm *g = &b->fwd[i].gemm;
        if (b->fwd[i].type != ZOO_OP_GEMM || g->kind != ZOO_GEMM_EXPERT_UP)
            continue;
        up++;
        assert_int_equal(g->m, t * k / e);
        assert_int_equal(g->count, e);
        assert_true(g->experts);
    }
    assert_int_equal(up, 1);
    /* each token's rows: dispatched and combined, t x k of them */
    assert_int_equal(b->per.saved_bytes, 2 * (2 * t * d + 4 * t) + 2 * t * d + 2 * 2 * t * kv +
                                             2 * t * e + 2 * t * k * 2 * fe + 2 * t * k * d);
    zoo_destroy(m);
}

/* LLaMA-3.1-8B's head in vocabulary slices: 128,256 / 16 = 8016 columns each; it saves its
 * input and a log-sum-exp per token, never a t x vocabulary tensor, and computes its logits
 * again in backward. */
static void test_sliced_head(void **state)
{
    const uint64_t t = 2048, d = 4096;
    struct zoo_model *m = build("configs/models/llama-3.1-8b.json", (uint32_t)t);
    const struct zoo_block *h = block_of(m, ZOO_BLOCK_HEAD);
    int slices = 0;

    (void)state;
    for (uint32_t i = 0; i < h->n_weights; i++)
        if (h->weights[i].rows == 8016 && h->weights[i].cols == d)
            slices++;
    assert_int_equal(slices, 16);
    assert_int_equal(h->per.saved_bytes, (2 * t * d + 4 * t) + 4 * t);
    assert_int_equal(h->per.flop_fwd, 2 * t * d * 128256);
    assert_int_equal(h->per.flop_recompute, h->per.flop_fwd);
    for (uint32_t i = 0; i < h->n_saved; i++)
        assert_true(h->saved[i].cols < 8016);
    zoo_destroy(m);
}

/* DeepSeek-V3's latent attention by hand: d 7168, 128 heads, queries through a 1536 latent to
 * 128 + 64 a head, keys and values through a 512 latent (and a 64-wide rotary key) to 128 +
 * 128 a head; its first 3 layers dense (d_ff 18432), the other 58 mixtures of 256 experts of
 * 2048, 8 a token, and a shared one. */
static void test_deepseek_by_hand(void **state)
{
    const uint64_t t = 2048, d = 7168, h = 128, ql = 1536, kl = 512, qk = 192, v = 128;
    struct zoo_model *m = build("configs/models/deepseek-v3.json", (uint32_t)t);
    uint64_t attn_params =
        d * ql + ql + ql * h * qk + d * (kl + 64) + kl + kl * h * (128 + v) + h * v * d;
    uint64_t attn_flop =
        2 * t * (d * ql + ql * h * qk + d * (kl + 64) + kl * h * (128 + v) + h * v * d) +
        2 * t * t * h * (qk + v);
    const struct zoo_block *dense = &m->blocks[1], *moe = &m->blocks[2];

    (void)state;
    assert_int_equal(m->n_blocks, 4);
    assert_string_equal(dense->name, "dense_decoder");
    assert_int_equal(dense->repeat, 3);
    assert_int_equal(moe->repeat, 58);
    assert_int_equal(dense->per.params, attn_params + 3 * d * 18432 + 2 * d);
    assert_int_equal(dense->per.flop_fwd, attn_flop + 2 * t * 3 * d * 18432);
    assert_int_equal(moe->per.params,
                     attn_params + d * 256 + 256 * 3 * d * 2048 + 3 * d * 2048 + 2 * d);
    assert_int_equal(moe->per.params_active,
                     attn_params + d * 256 + 8 * 3 * d * 2048 + 3 * d * 2048 + 2 * d);
    assert_int_equal(moe->per.flop_fwd, attn_flop + 2 * t * d * 256 + 2 * (t * 8) * 3 * d * 2048 +
                                            2 * t * 3 * d * 2048);
    zoo_destroy(m);
}

/* Mixtral with --routing zipf:1: expert i (from 1) gets 4096 / i / H(8) of the 2048 x 2 token
 * slots, H(8) = 2.717857: the first 1507.1, so 1507 (no other expert's share rounds up past
 * it); the groups hold every expert once, their tokens are the routing's to within a token an
 * expert, the most used first; zipf:8 puts the most used at every token (2048), the cap. */
static void test_skewed_routing(void **state)
{
    const uint64_t tk = 2048 * 2;
    const char *mixtral = "configs/models/mixtral-8x7b-v0.1.json";
    struct zoo_opts o = {.batch = 1, .seq = 2048, .zipf = 1};
    struct zoo_model *u = build(mixtral, 2048), *z = NULL, *top = NULL;
    struct err e = {{0}};

    (void)state;
    assert_int_equal(zoo_build_with(mixtral, &o, &z, &e), 0);
    o.zipf = 8;
    assert_int_equal(zoo_build_with(mixtral, &o, &top, &e), 0);
    assert_int_equal(u->shape.groups, 1);
    assert_int_equal(u->shape.group_tokens[0], tk / 8);
    assert_int_equal(z->shape.groups, 4);
    assert_int_equal(z->shape.group_experts[0], 1);
    assert_int_equal(z->shape.group_tokens[0], 1507);
    assert_int_equal(top->shape.group_tokens[0], 2048);
    uint64_t experts = 0, slots = 0;
    for (uint32_t g = 0; g < z->shape.groups; g++) {
        experts += z->shape.group_experts[g];
        slots += z->shape.group_experts[g] * z->shape.group_tokens[g];
        if (g)
            assert_true(z->shape.group_tokens[g] <= z->shape.group_tokens[g - 1]);
    }
    assert_int_equal(experts, 8);
    assert_true(slots >= tk && slots < tk + 8);
    /* the same weights and, to within the rounding, the same FLOP */
    assert_int_equal(z->total.params, u->total.params);
    assert_int_equal(z->total.params_active, u->total.params_active);
    assert_true(z->total.flop >= u->total.flop &&
                (double)z->total.flop < 1.001 * (double)u->total.flop);
    zoo_destroy(u);
    zoo_destroy(z);
    zoo_destroy(top);
}

/* ---------------------------------------------------------------- files of our own */

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/test_zoo_hf.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    char path[128];
    (void)state;
    snprintf(path, sizeof(path), "%s/config.json", dir);
    unlink(path);
    return rmdir(dir);
}

/* config.json of dir holding text; its path. */
static const char *write_config(const char *text)
{
    static char path[128];
    snprintf(path, sizeof(path), "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    return path;
}

#define SMALL_FIELDS                                                                               \
    "\"hidden_size\": 256, \"intermediate_size\": 512, \"num_hidden_layers\": 2, "                 \
    "\"num_attention_heads\": 4, \"vocab_size\": 1000"

static void test_tied_and_ignored(void **state)
{
    const char *path = write_config("{\"architectures\": [\"LlamaForCausalLM\"], " SMALL_FIELDS
                                    ", \"tie_word_embeddings\": true, \"rope_theta\": 10000.0, "
                                    "\"custom_note\": \"x\"}");
    struct zoo_model *m = build(path, 128);
    const struct zoo_block *head = block_of(m, ZOO_BLOCK_HEAD);

    (void)state;
    assert_string_equal(m->spec, "hf:config");
    assert_string_equal(m->ignored, "rope_theta, custom_note");
    /* the head's table is the embedding's, counted there */
    assert_int_equal(head->per.params, 256);
    assert_true(head->weights[1].tied);
    assert_string_equal(head->weights[1].name, "embed_tokens");
    /* 4 heads, no num_key_value_heads: as many K and V heads */
    assert_int_equal(m->shape.kv_heads, 4);
    assert_int_equal(m->total.params,
                     1000 * 256 + 2 * (4 * 256 * 256 + 3 * 256 * 512 + 2 * 256) + 256);
    zoo_destroy(m);
}

static void test_bad_configs_refused(void **state)
{
    static const struct {
        const char *text;
        uint32_t seq;
        const char *needle, *accepted;
    } bad[] = {
        {"{\"architectures\": [\"GPT2LMHeadModel\"], " SMALL_FIELDS "}", 64,
         "architecture GPT2LMHeadModel is not known", "LlamaForCausalLM"},
        {"{\"architectures\": [\"DeepseekV3ForCausalLM\"], " SMALL_FIELDS
         ", \"n_routed_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 64, "
         "\"q_lora_rank\": null}",
         64, "q_lora_rank is missing or null", "accepted an integer"},
        {"{\"architectures\": [\"DeepseekV3ForCausalLM\"], " SMALL_FIELDS
         ", \"n_routed_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 64, "
         "\"first_k_dense_replace\": 2, \"q_lora_rank\": 32, \"kv_lora_rank\": 16, "
         "\"qk_nope_head_dim\": 16, \"qk_rope_head_dim\": 8, \"v_head_dim\": 16}",
         64, "first_k_dense_replace is not less than num_hidden_layers", "accepted fewer"},
        {"{\"architectures\": [\"DeepseekV3ForCausalLM\"], " SMALL_FIELDS
         ", \"n_routed_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 64, "
         "\"q_lora_rank\": 32, \"kv_lora_rank\": 16, \"qk_nope_head_dim\": 16, "
         "\"qk_rope_head_dim\": 8, \"v_head_dim\": 16, \"attention_bias\": true}",
         64, "latent attention with biases is not modelled", "accepted false"},
        {"{\"architectures\": [\"MixtralForCausalLM\"], " SMALL_FIELDS "}", 64,
         "field num_local_experts is missing", "an integer"},
        {"{\"architectures\": [\"MixtralForCausalLM\"], " SMALL_FIELDS
         ", \"num_local_experts\": 4, \"num_experts_per_tok\": 5}",
         64, "num_experts_per_tok is 5, more than the 4 experts", "accepted up to their number"},
        {"{\"architectures\": [\"Qwen2MoeForCausalLM\"], " SMALL_FIELDS
         ", \"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 64, "
         "\"decoder_sparse_step\": 2}",
         64, "decoder_sparse_step is not 1", "accepted 1"},
        {"{\"architectures\": [\"Qwen2MoeForCausalLM\"], " SMALL_FIELDS
         ", \"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 64, "
         "\"mlp_only_layers\": [0]}",
         64, "mlp_only_layers is not []", "accepted []"},
        {"{" SMALL_FIELDS "}", 64, "field architectures is missing", "accepted"},
        {"{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 256, "
         "\"intermediate_size\": 512, \"num_hidden_layers\": 2, \"vocab_size\": 1000}",
         64, "field num_attention_heads is missing", "an integer 1..4096"},
        {"{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": \"256\", "
         "\"intermediate_size\": 512, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
         "\"vocab_size\": 1000}",
         64, "field hidden_size is \"256\"", "an integer 1..1048576"},
        {"{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 256.5, "
         "\"intermediate_size\": 512, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
         "\"vocab_size\": 1000}",
         64, "field hidden_size is 256.5", "an integer"},
        {"{\"architectures\": [\"LlamaForCausalLM\"], " SMALL_FIELDS
         ", \"num_key_value_heads\": 3}",
         64, "3, which does not divide num_attention_heads 4", "a divisor"},
        {"{\"architectures\": [\"LlamaForCausalLM\"], " SMALL_FIELDS ", \"hidden_act\": \"gelu\"}",
         64, "field hidden_act is not \"silu\"", "accepted \"silu\""},
        {"{\"architectures\": [\"LlamaForCausalLM\"], " SMALL_FIELDS
         ", \"max_position_embeddings\": 128}",
         256, "max_position_embeddings is 128, less than the 256 tokens", "--seq up to it"},
        {"{\"architectures\": [\"MistralForCausalLM\"], " SMALL_FIELDS ", \"sliding_window\": 64}",
         128, "sliding_window is 64", "banded attention is not modelled"},
        {"{\"architectures\": [\"LlamaForCausalLM\"], " SMALL_FIELDS ", \"vocab_size\": 9}", 64,
         "field vocab_size is given twice", "each field once"},
        {"{\"architectures\": [\"LlamaForCausalLM\"], " SMALL_FIELDS
         ", \"tie_word_embeddings\": 1}",
         64, "tie_word_embeddings is not true or false", "accepted true, false"},
        {"{\"architectures\": [\"LlamaForCausalLM\"],\n \"hidden_size\": 256,,}", 64,
         "config.json:2:", "not valid JSON"},
        {"[1, 2]", 64, "not an object", "a JSON object"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *path = write_config(bad[i].text);
        struct zoo_model *m = (struct zoo_model *)&bad; /* must be cleared */
        struct err e = {{0}};

        const struct zoo_opts o = {.batch = 1, .seq = bad[i].seq};
        assert_int_equal(zoo_build_with(path, &o, &m, &e), -EINVAL);
        assert_null(m);
        if (!strstr(e.msg, bad[i].needle) || !strstr(e.msg, bad[i].accepted) ||
            !strstr(e.msg, path))
            fail_msg("config %zu: message \"%s\" lacks the file, \"%s\" or \"%s\"", i, e.msg,
                     bad[i].needle, bad[i].accepted);
    }
    struct zoo_model *m = NULL;
    struct err e = {{0}};
    struct zoo_opts o = {.batch = 1, .seq = 64};
    assert_int_equal(zoo_build_with("/nonexistent/config.json", &o, &m, &e), -ENOENT);
    assert_non_null(strstr(e.msg, "/nonexistent/config.json: cannot be read"));
    o.seq = ZOO_MAX_SEQ + 1;
    assert_int_equal(zoo_build_with("configs/models/llama-3.1-8b.json", &o, &m, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "accepted 1..1048576"));
    o.seq = 64;
    o.zipf = 1;
    assert_int_equal(zoo_build_with("configs/models/llama-3.1-8b.json", &o, &m, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "a skewed routing needs a mixture of experts"));
    static const char *const bad_routing[] = {"zipf", "zipf:0", "zipf:9", "zipf:1x", "skew", ""};
    for (size_t i = 0; i < sizeof(bad_routing) / sizeof(bad_routing[0]); i++) {
        double z = -1;
        assert_int_equal(zoo_routing_parse(bad_routing[i], &z, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "accepted uniform or zipf:S with S in (0, 8]"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_configs_have_published_counts),
        cmocka_unit_test(test_llama_layer_by_hand),
        cmocka_unit_test(test_mixtral_layer_by_hand),
        cmocka_unit_test(test_skewed_routing),
        cmocka_unit_test(test_deepseek_by_hand),
        cmocka_unit_test(test_sliced_head),
        cmocka_unit_test(test_tied_and_ignored),
        cmocka_unit_test(test_bad_configs_refused),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
