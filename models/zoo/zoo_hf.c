/*
 * zoo_hf.c - a model's shape from its Hugging Face config.json; see zoo_hf.h.
 */
#include "models/zoo/zoo_hf.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum arch { ARCH_LLAMA, ARCH_MISTRAL, ARCH_QWEN2, ARCH_MIXTRAL, ARCH_QWEN2_MOE, ARCH_DEEPSEEK };

static const char *const archs[] = {"LlamaForCausalLM",    "MistralForCausalLM",
                                    "Qwen2ForCausalLM",    "MixtralForCausalLM",
                                    "Qwen2MoeForCausalLM", "DeepseekV3ForCausalLM"};

#define ACCEPTED_ARCHS                                                                             \
    "accepted: LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, MixtralForCausalLM, "       \
    "Qwen2MoeForCausalLM, DeepseekV3ForCausalLM"

/* The fields that shape an iteration (zoo_hf.h); the others are listed as ignored. */
static const char *const used[] = {
    "architectures",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "hidden_act",
    "tie_word_embeddings",
    "attention_bias",
    "mlp_bias",
    "max_position_embeddings",
    "sliding_window",
    "use_sliding_window",
    "num_local_experts",
    "num_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "decoder_sparse_step",
    "mlp_only_layers",
    "n_routed_experts",
    "n_shared_experts",
    "first_k_dense_replace",
    "moe_layer_freq",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
};

struct rd {
    const char *path;
    const cJSON *root;
    struct err *e;
    int err;
};

static int fail(struct rd *r, const char *fmt, const char *field, const char *detail)
{
    if (!r->err)
        r->err = err_set(r->e, -EINVAL, fmt, r->path, field, detail);
    return r->err;
}

/* A field absent or null is not given. */
static const cJSON *field(const struct rd *r, const char *name)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(r->root, name);
    return j && !cJSON_IsNull(j) ? j : NULL;
}

/* An integer field in 1..max; dflt when absent (0: required). */
static uint64_t integer(struct rd *r, const char *name, uint64_t max, uint64_t dflt)
{
    const cJSON *j = field(r, name);
    char acc[96];
    snprintf(acc, sizeof(acc), "an integer 1..%llu", (unsigned long long)max);
    if (!j) {
        if (!dflt)
            fail(r, "%s: field %s is missing; accepted %s", name, acc);
        return dflt;
    }
    double v = cJSON_IsNumber(j) ? cJSON_GetNumberValue(j) : NAN;
    if (!(v >= 1 && v <= (double)max && v == floor(v))) {
        char *text = cJSON_PrintUnformatted(j);
        char msg[160];
        snprintf(msg, sizeof(msg), "%.40s; accepted %s", text ? text : "?", acc);
        free(text);
        fail(r, "%s: field %s is %s", name, msg);
        return dflt ? dflt : 1;
    }
    return (uint64_t)v;
}

static bool boolean(struct rd *r, const char *name, bool dflt)
{
    const cJSON *j = field(r, name);
    if (!j)
        return dflt;
    if (!cJSON_IsBool(j))
        fail(r, "%s: field %s is not true or false; accepted true, false", name, "");
    return cJSON_IsTrue(j);
}

static int arch_of(struct rd *r, char *name, size_t len)
{
    const cJSON *a = field(r, "architectures"), *first = a && cJSON_IsArray(a) ? a->child : NULL;
    if (!first || !cJSON_IsString(first))
        return fail(r, "%s: field %s is missing or not a list of names; %s", "architectures",
                    ACCEPTED_ARCHS);
    snprintf(name, len, "%s", first->valuestring);
    for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
        if (!strcmp(first->valuestring, archs[i]))
            return (int)i;
    return fail(r, "%s: architecture %s is not known; %s", first->valuestring, ACCEPTED_ARCHS);
}

/* Every top-level name once; the ones not used into ignored. */
static void list_ignored(struct rd *r, char *ignored, size_t len)
{
    size_t n = 0;
    if (len)
        ignored[0] = 0;
    for (const cJSON *j = r->root->child; j; j = j->next) {
        for (const cJSON *k = r->root->child; k != j; k = k->next)
            if (!strcmp(k->string, j->string)) {
                fail(r, "%s: field %s is given twice; %s", j->string, "accepted: each field once");
                return;
            }
        bool is_used = false;
        for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
            is_used = is_used || !strcmp(j->string, used[i]);
        if (is_used || !len)
            continue;
        int w = snprintf(ignored + n, len - n, "%s%s", n ? ", " : "", j->string);
        if (w < 0 || (size_t)w >= len - n) {
            if (len >= 4)
                memcpy(ignored + len - 4, "...", 4);
            return;
        }
        n += (size_t)w;
    }
}

/* A mixture's experts: Mixtral's num_local_experts of intermediate_size; Qwen2-MoE's
 * num_experts of moe_intermediate_size and a shared expert of shared_expert_intermediate_size
 * (0 or absent: none), in every layer (decoder_sparse_step 1, no mlp_only_layers). */
static void read_experts(struct rd *r, int arch, struct zoo_shape *sh)
{
    if (arch != ARCH_MIXTRAL && arch != ARCH_QWEN2_MOE && arch != ARCH_DEEPSEEK)
        return;
    bool mixtral = arch == ARCH_MIXTRAL, deepseek = arch == ARCH_DEEPSEEK;
    sh->experts = integer(r,
                          mixtral    ? "num_local_experts"
                          : deepseek ? "n_routed_experts"
                                     : "num_experts",
                          ZOO_HF_MAX_HEADS, 0);
    sh->experts_per_tok = integer(r, "num_experts_per_tok", ZOO_HF_MAX_HEADS, 0);
    if (!r->err && sh->experts_per_tok > sh->experts) {
        char msg[96];
        snprintf(msg, sizeof(msg), "%llu, more than the %llu experts",
                 (unsigned long long)sh->experts_per_tok, (unsigned long long)sh->experts);
        fail(r, "%s: field %s is %s; accepted up to their number", "num_experts_per_tok", msg);
    }
    if (r->err || mixtral) {
        sh->d_expert = sh->d_ff;
        return;
    }
    sh->d_expert = integer(r, "moe_intermediate_size", ZOO_HF_MAX_DIM, 0);
    if (deepseek) { /* n_shared_experts of the experts' size; the first layers dense */
        const cJSON *n = field(r, "n_shared_experts");
        bool none = !n || (cJSON_IsNumber(n) && cJSON_GetNumberValue(n) == 0);
        sh->d_shared =
            none ? 0 : integer(r, "n_shared_experts", ZOO_HF_MAX_HEADS, 0) * sh->d_expert;
        const cJSON *k = field(r, "first_k_dense_replace");
        bool zero = !k || (cJSON_IsNumber(k) && cJSON_GetNumberValue(k) == 0);
        sh->dense_layers =
            zero ? 0 : (uint32_t)integer(r, "first_k_dense_replace", ZOO_HF_MAX_LAYER, 0);
        if (!r->err && sh->dense_layers >= sh->dec_layers)
            fail(r, "%s: field %s is not less than num_hidden_layers; %s", "first_k_dense_replace",
                 "accepted fewer (at least one layer a mixture)");
        if (integer(r, "moe_layer_freq", ZOO_HF_MAX_LAYER, 1) != 1)
            fail(r,
                 "%s: field %s is not 1 (dense layers between the mixtures are not "
                 "modelled); %s",
                 "moe_layer_freq", "accepted 1");
        return;
    }
    const cJSON *shared = field(r, "shared_expert_intermediate_size");
    bool none = !shared || (cJSON_IsNumber(shared) && cJSON_GetNumberValue(shared) == 0);
    sh->d_shared = none ? 0 : integer(r, "shared_expert_intermediate_size", ZOO_HF_MAX_DIM, 0);
    if (integer(r, "decoder_sparse_step", ZOO_HF_MAX_LAYER, 1) != 1)
        fail(r, "%s: field %s is not 1 (dense layers between the mixtures are not modelled); %s",
             "decoder_sparse_step", "accepted 1");
    const cJSON *dense = field(r, "mlp_only_layers");
    if (dense && !(cJSON_IsArray(dense) && !dense->child))
        fail(r, "%s: field %s is not [] (dense layers among the mixtures are not modelled); %s",
             "mlp_only_layers", "accepted []");
}

/* DeepSeek's latent attention: every width required, the rotary one even; no biases. */
static void read_latent(struct rd *r, struct zoo_shape *sh)
{
    if (!field(r, "q_lora_rank"))
        fail(r, "%s: field %s is missing or null (queries without a latent are not modelled); %s",
             "q_lora_rank", "accepted an integer");
    sh->q_lora = integer(r, "q_lora_rank", ZOO_HF_MAX_DIM, 0);
    sh->kv_lora = integer(r, "kv_lora_rank", ZOO_HF_MAX_DIM, 0);
    sh->qk_nope = integer(r, "qk_nope_head_dim", ZOO_HF_MAX_DIM, 0);
    sh->qk_rope = integer(r, "qk_rope_head_dim", ZOO_HF_MAX_DIM, 0);
    sh->v_head = integer(r, "v_head_dim", ZOO_HF_MAX_DIM, 0);
    if (!r->err && sh->qk_rope % 2)
        fail(r, "%s: field %s is odd; %s", "qk_rope_head_dim",
             "accepted an even size (rotary positions turn pairs)");
    if (!r->err && boolean(r, "attention_bias", false))
        fail(r, "%s: field %s is true (latent attention with biases is not modelled); %s",
             "attention_bias", "accepted false");
    sh->d_head = sh->qk_nope + sh->qk_rope;
}

static void read_shape(struct rd *r, uint32_t seq, struct zoo_shape *sh)
{
    int arch = arch_of(r, sh->arch, sizeof(sh->arch));
    if (r->err)
        return;
    sh->family = ZOO_HF;
    sh->w = sh->d = 1;
    sh->d_model = integer(r, "hidden_size", ZOO_HF_MAX_DIM, 0);
    sh->d_ff = integer(r, "intermediate_size", ZOO_HF_MAX_DIM, 0);
    sh->dec_layers = (uint32_t)integer(r, "num_hidden_layers", ZOO_HF_MAX_LAYER, 0);
    sh->heads = integer(r, "num_attention_heads", ZOO_HF_MAX_HEADS, 0);
    sh->vocab = integer(r, "vocab_size", ZOO_HF_MAX_VOCAB, 0);
    if (r->err)
        return;
    sh->kv_heads = integer(r, "num_key_value_heads", ZOO_HF_MAX_HEADS, sh->heads);
    if (!r->err && sh->heads % sh->kv_heads) {
        char msg[96];
        snprintf(msg, sizeof(msg), "%llu, which does not divide num_attention_heads %llu",
                 (unsigned long long)sh->kv_heads, (unsigned long long)sh->heads);
        fail(r, "%s: field %s is %s; accepted a divisor of it", "num_key_value_heads", msg);
    }
    if (arch == ARCH_DEEPSEEK)
        read_latent(r, sh);
    else if (!r->err && !field(r, "head_dim") && sh->d_model % sh->heads) {
        char msg[96];
        snprintf(msg, sizeof(msg), "%llu, which num_attention_heads %llu does not divide",
                 (unsigned long long)sh->d_model, (unsigned long long)sh->heads);
        fail(r, "%s: field %s is %s; accepted a multiple of it, or give head_dim", "hidden_size",
             msg);
    }
    if (arch != ARCH_DEEPSEEK)
        sh->d_head =
            integer(r, "head_dim", ZOO_HF_MAX_DIM, sh->heads ? sh->d_model / sh->heads : 1);
    if (!r->err && sh->d_head % 2)
        fail(r, "%s: field %s is odd; accepted an even head size (rotary positions turn pairs)",
             "head_dim", "");
    const cJSON *act = field(r, "hidden_act");
    if (!r->err && act && !(cJSON_IsString(act) && !strcmp(act->valuestring, "silu")))
        fail(r, "%s: field %s is not \"silu\"; %s", "hidden_act",
             "accepted \"silu\" (these architectures' SwiGLU FFN)");
    read_experts(r, arch, sh);
    sh->tied = boolean(r, "tie_word_embeddings", false);
    bool attn_bias = boolean(r, "attention_bias", false);
    bool qwen = arch == ARCH_QWEN2 || arch == ARCH_QWEN2_MOE;
    sh->qkv_bias = qwen || attn_bias;
    sh->out_bias = !qwen && attn_bias;
    sh->mlp_bias = boolean(r, "mlp_bias", false);
    sh->max_positions = integer(r, "max_position_embeddings", UINT32_MAX, UINT32_MAX);
    bool windowed = arch == ARCH_MISTRAL || arch == ARCH_MIXTRAL ||
                    (qwen && boolean(r, "use_sliding_window", false));
    uint64_t window = windowed ? integer(r, "sliding_window", UINT32_MAX, UINT32_MAX) : UINT32_MAX;
    if (r->err)
        return;
    char msg[160];
    if (seq > sh->max_positions) {
        snprintf(msg, sizeof(msg), "%llu, less than the %u tokens asked; accepted --seq up to it",
                 (unsigned long long)sh->max_positions, seq);
        fail(r, "%s: field %s is %s", "max_position_embeddings", msg);
    } else if (seq > window) {
        snprintf(msg, sizeof(msg),
                 "%llu, less than the %u tokens asked (banded attention is not modelled); "
                 "accepted --seq up to it",
                 (unsigned long long)window, seq);
        fail(r, "%s: field %s is %s", "sliding_window", msg);
    }
}

/* The file, whole, NUL-terminated; NULL with r->err set. */
static char *slurp(struct rd *r, size_t *len)
{
    FILE *f = fopen(r->path, "rb");
    char *buf = NULL;
    if (!f) {
        r->err = err_set(r->e, -ENOENT, "%s: cannot be read (%s)", r->path, strerror(errno));
        return NULL;
    }
    buf = malloc(ZOO_HF_MAX_FILE + 1);
    *len = buf ? fread(buf, 1, ZOO_HF_MAX_FILE + 1, f) : 0;
    if (!buf)
        r->err = err_set(r->e, -ENOMEM, "%s: out of memory", r->path);
    else if (ferror(f))
        r->err = err_set(r->e, -ENOENT, "%s: cannot be read", r->path);
    else if (*len > ZOO_HF_MAX_FILE)
        r->err = err_set(r->e, -EINVAL, "%s: more than %u bytes; accepted a config.json", r->path,
                         ZOO_HF_MAX_FILE);
    else if (memchr(buf, 0, *len))
        r->err = err_set(r->e, -EINVAL, "%s: holds a NUL byte; accepted a JSON text", r->path);
    fclose(f);
    if (r->err) {
        free(buf);
        return NULL;
    }
    buf[*len] = 0;
    return buf;
}

int zoo_hf_read(const char *path, uint32_t seq, struct zoo_shape *sh, char *ignored, size_t len,
                struct err *e)
{
    struct rd r = {.path = path, .e = e};
    size_t n = 0;
    char *text = slurp(&r, &n);
    if (!text)
        return r.err;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, n + 1, &end, true); /* with its NUL */
    if (!root || !cJSON_IsObject(root)) {
        unsigned line = 1, col = 1;
        const char *at = root ? text : (end ? end : text);
        for (const char *p = text; p < at; p++, col++)
            if (*p == '\n')
                line++, col = 0;
        r.err = err_set(e, -EINVAL, "%s:%u:%u: %s; accepted a JSON object (a config.json)", path,
                        line, col, root ? "not an object" : "not valid JSON");
        cJSON_Delete(root);
        free(text);
        return r.err;
    }
    r.root = root;
    memset(sh, 0, sizeof(*sh));
    list_ignored(&r, ignored, len);
    if (!r.err)
        read_shape(&r, seq, sh);
    cJSON_Delete(root);
    free(text);
    return r.err;
}
