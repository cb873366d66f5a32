/*
 * zoo.c - the model zoo: names, the paper's Table 3, a model from its spec or config.json and
 * its totals; see zoo.h (zoo_priv.h: what its files share).
 */
#include "models/zoo/zoo.h"
#include "models/zoo/zoo_hf.h"
#include "models/zoo/zoo_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACCEPTED                                                                                   \
    "accepted: gpt3-like:WxD or t5-like:WxD with W and D each 1, 2 or 4, e.g. gpt3-like:1x1, "     \
    "or a Hugging Face config.json (a path ending in .json)"

/* ------------------------------------------------------------------ the paper's Table 3 */

/* Behemoth (FAST '21), Table 3, as printed: total activations (GB), total weights (GB), PFLOP;
 * sequence length 2048, batch 1. */
const struct zoo_paper_row zoo_paper_table3[ZOO_PAPER_ROWS] = {
    {"gpt3-like:1x1", 44, 350, 2.15},    {"gpt3-like:1x2", 88, 698, 4.42},
    {"gpt3-like:1x4", 175, 1393, 8.56},  {"gpt3-like:2x1", 88, 1395, 8.56},
    {"gpt3-like:2x2", 175, 2786, 17.12}, {"gpt3-like:2x4", 349, 5569, 34.21},
    {"t5-like:1x1", 40, 305, 0.62},      {"t5-like:1x2", 80, 609, 1.25},
    {"t5-like:1x4", 160, 1218, 2.49},    {"t5-like:2x1", 80, 1218, 2.49},
    {"t5-like:2x2", 160, 2436, 4.99},    {"t5-like:2x4", 319, 4871, 9.97},
};

/* ------------------------------------------------------------------ names */

const char *zoo_family_name(enum zoo_family f)
{
    return f == ZOO_T5_LIKE ? "t5-like" : f == ZOO_HF ? "hf" : "gpt3-like";
}

const char *zoo_block_kind_name(enum zoo_block_kind k)
{
    static const char *const n[] = {
        [ZOO_BLOCK_EMBED] = "embed",
        [ZOO_BLOCK_DECODER] = "decoder",
        [ZOO_BLOCK_ENCODER] = "encoder",
        [ZOO_BLOCK_ENC_NORM] = "enc_norm",
        [ZOO_BLOCK_CROSS_DECODER] = "cross_decoder",
        [ZOO_BLOCK_HEAD] = "head",
    };
    return (unsigned)k < sizeof(n) / sizeof(n[0]) ? n[k] : "?";
}

const char *zoo_gemm_kind_name(enum zoo_gemm_kind k)
{
    static const char *const n[ZOO_GEMM_KINDS] = {
        [ZOO_GEMM_QKV] = "qkv",
        [ZOO_GEMM_Q] = "q",
        [ZOO_GEMM_K] = "k",
        [ZOO_GEMM_V] = "v",
        [ZOO_GEMM_SCORES] = "scores",
        [ZOO_GEMM_ATTN_V] = "attn_v",
        [ZOO_GEMM_OUT_PROJ] = "out_proj",
        [ZOO_GEMM_XQ] = "xq",
        [ZOO_GEMM_XK] = "xk",
        [ZOO_GEMM_XV] = "xv",
        [ZOO_GEMM_XSCORES] = "xscores",
        [ZOO_GEMM_X_ATTN_V] = "x_attn_v",
        [ZOO_GEMM_XOUT_PROJ] = "xout_proj",
        [ZOO_GEMM_FFN_UP] = "ffn_up",
        [ZOO_GEMM_FFN_DOWN] = "ffn_down",
        [ZOO_GEMM_LM_HEAD] = "lm_head",
        [ZOO_GEMM_ROUTER] = "router",
        [ZOO_GEMM_EXPERT_UP] = "expert_up",
        [ZOO_GEMM_EXPERT_DOWN] = "expert_down",
        [ZOO_GEMM_Q_A] = "q_a",
        [ZOO_GEMM_Q_B] = "q_b",
        [ZOO_GEMM_KV_A] = "kv_a",
        [ZOO_GEMM_KV_B] = "kv_b",
    };
    return (unsigned)k < ZOO_GEMM_KINDS ? n[k] : "?";
}

const char *zoo_gemm_role_name(enum zoo_gemm_role r)
{
    static const char *const n[] = {
        [ZOO_ROLE_FWD] = "fwd",
        [ZOO_ROLE_GRAD_A] = "grad_a",
        [ZOO_ROLE_GRAD_B] = "grad_b",
        [ZOO_ROLE_RECOMPUTE] = "recompute",
    };
    return (unsigned)r < sizeof(n) / sizeof(n[0]) ? n[r] : "?";
}

const char *zoo_operand_name(enum zoo_operand o)
{
    static const char *const n[] = {
        [ZOO_OPND_ACT] = "act",   [ZOO_OPND_SAVED] = "saved", [ZOO_OPND_WEIGHT] = "weight",
        [ZOO_OPND_GRAD] = "grad", [ZOO_OPND_WGRAD] = "wgrad",
    };
    return (unsigned)o < sizeof(n) / sizeof(n[0]) ? n[o] : "?";
}

const char *zoo_vec_kind_name(enum zoo_vec_kind k)
{
    static const char *const n[ZOO_VEC_KINDS] = {
        [ZOO_VEC_LAYERNORM] = "layernorm",
        [ZOO_VEC_LAYERNORM_BWD] = "layernorm_bwd",
        [ZOO_VEC_RMSNORM] = "rmsnorm",
        [ZOO_VEC_RMSNORM_BWD] = "rmsnorm_bwd",
        [ZOO_VEC_SOFTMAX] = "softmax",
        [ZOO_VEC_SOFTMAX_BWD] = "softmax_bwd",
        [ZOO_VEC_GELU] = "gelu",
        [ZOO_VEC_GELU_BWD] = "gelu_bwd",
        [ZOO_VEC_RELU] = "relu",
        [ZOO_VEC_RELU_BWD] = "relu_bwd",
        [ZOO_VEC_ADD] = "add",
        [ZOO_VEC_EMBED] = "embed",
        [ZOO_VEC_EMBED_BWD] = "embed_bwd",
        [ZOO_VEC_LOSS] = "loss",
        [ZOO_VEC_ROPE] = "rope",
        [ZOO_VEC_ROPE_BWD] = "rope_bwd",
        [ZOO_VEC_SWIGLU] = "swiglu",
        [ZOO_VEC_SWIGLU_BWD] = "swiglu_bwd",
        [ZOO_VEC_ROUTE] = "route",
        [ZOO_VEC_ROUTE_BWD] = "route_bwd",
        [ZOO_VEC_DISPATCH] = "dispatch",
        [ZOO_VEC_DISPATCH_BWD] = "dispatch_bwd",
        [ZOO_VEC_COMBINE] = "combine",
        [ZOO_VEC_COMBINE_BWD] = "combine_bwd",
        [ZOO_VEC_LOGSUMEXP] = "logsumexp",
    };
    return (unsigned)k < ZOO_VEC_KINDS ? n[k] : "?";
}

uint64_t zoo_op_flop(const struct zoo_op *op)
{
    const struct zoo_gemm *g = &op->gemm;

    return op->type == ZOO_OP_GEMM ? 2 * g->m * g->n * g->k * g->count : 0;
}

/* ------------------------------------------------------------------ the model */

static void totals_add(struct zoo_totals *sum, const struct zoo_totals *t, uint64_t times)
{
    sum->params += t->params * times;
    sum->params_active += t->params_active * times;
    sum->weight_bytes += t->weight_bytes * times;
    sum->saved_bytes += t->saved_bytes * times;
    sum->saved_tensors += t->saved_tensors * times;
    sum->flop_fwd += t->flop_fwd * times;
    sum->flop_bwd += t->flop_bwd * times;
    sum->flop_recompute += t->flop_recompute * times;
    sum->flop += t->flop * times;
}

/* "family:WxD" with W, D in {1, 2, 4}; 0 or -EINVAL (message). */
static int parse_spec(const char *spec, struct zoo_shape *sh, struct err *e)
{
    const char *colon = spec ? strchr(spec, ':') : NULL;
    size_t fam_len = colon ? (size_t)(colon - spec) : 0;
    const char *size = colon ? colon + 1 : NULL;
    unsigned w, d;

    if (!spec || !*spec)
        return err_set(e, -EINVAL, "model: no spec given; " ACCEPTED);
    if (colon && fam_len == strlen("gpt3-like") && !strncmp(spec, "gpt3-like", fam_len))
        sh->family = ZOO_GPT3_LIKE;
    else if (colon && fam_len == strlen("t5-like") && !strncmp(spec, "t5-like", fam_len))
        sh->family = ZOO_T5_LIKE;
    else
        return err_set(e, -EINVAL, "model '%s' is not known; " ACCEPTED, spec);
    if (strlen(size) != 3 || size[0] < '0' || size[0] > '9' || size[1] != 'x' || size[2] < '0' ||
        size[2] > '9')
        return err_set(e, -EINVAL, "model '%s': the size '%s' is not WxD; " ACCEPTED, spec, size);
    w = (unsigned)(size[0] - '0');
    d = (unsigned)(size[2] - '0');
    if (w != 1 && w != 2 && w != 4)
        return err_set(e, -EINVAL, "model '%s': width W %u is not accepted; " ACCEPTED, spec, w);
    if (d != 1 && d != 2 && d != 4)
        return err_set(e, -EINVAL, "model '%s': depth D %u is not accepted; " ACCEPTED, spec, d);
    sh->w = w;
    sh->d = d;
    return 0;
}

/* The shape of a family at W x D (README: every value's source). */
static void shape_fill(struct zoo_shape *sh)
{
    sh->seq = ZOO_SEQ;
    sh->d_model = 12288ull * sh->w; /* GPT-3 175B; T5-like derived from Table 3 */
    sh->d_head = 128;               /* GPT-3 175B; kept as W grows: heads scale */
    sh->heads = sh->d_model / sh->d_head;
    sh->kv_heads = sh->heads;
    sh->d_ff = 4 * sh->d_model;
    if (sh->family == ZOO_GPT3_LIKE) {
        sh->vocab = 50257; /* GPT-2/3 BPE */
        sh->enc_layers = 0;
        sh->dec_layers = 96 * sh->d;
    } else {
        sh->vocab = 32128; /* T5's SentencePiece vocabulary as its embedding stores it */
        sh->enc_layers = 36 * sh->d;
        sh->dec_layers = 36 * sh->d;
    }
}

/* "hf:<the file's name without its directory and .json>". */
static void hf_spec(const char *path, char *spec, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base) - strlen(".json");
    snprintf(spec, len, "hf:%.*s", (int)(n < len - 4 ? n : len - 4), base);
}

/* The iteration's FLOP, in double: an exact total needs them below 2^64. */
static double flop_estimate(const struct zoo_model *m)
{
    double f = 0;
    for (uint32_t i = 0; i < m->n_blocks; i++) {
        const struct zoo_block *k = &m->blocks[i];
        double per = 0;
        for (uint32_t j = 0; j < k->n_fwd + k->n_bwd; j++) {
            const struct zoo_op *op = j < k->n_fwd ? &k->fwd[j] : &k->bwd[j - k->n_fwd];
            if (op->type == ZOO_OP_GEMM)
                per += 2.0 * (double)op->gemm.m * (double)op->gemm.n * (double)op->gemm.k *
                       (double)op->gemm.count;
        }
        f += per * k->repeat;
    }
    return f;
}

int zoo_build(const char *spec, uint32_t batch, struct zoo_model **out, struct err *e)
{
    const struct zoo_opts o = {.batch = batch};
    return zoo_build_with(spec, &o, out, e);
}

int zoo_build_with(const char *spec, const struct zoo_opts *o, struct zoo_model **out,
                   struct err *e)
{
    uint32_t batch = o->batch, seq = o->seq ? o->seq : ZOO_SEQ;
    struct zoo_model *m;
    struct zoo_shape sh = {0};
    const struct block_def *defs;
    struct style hf;
    const struct style *st;
    char ignored[sizeof(m->ignored)] = "";
    size_t len = spec ? strlen(spec) : 0;
    bool json = len > 5 && !strcmp(spec + len - 5, ".json");
    struct dims x;
    int rc;

    *out = NULL;
    if (seq < 1 || seq > ZOO_MAX_SEQ)
        return err_set(e, -EINVAL, "model '%s': %u tokens per sequence; accepted 1..%u",
                       spec ? spec : "", seq, ZOO_MAX_SEQ);
    rc = json ? zoo_hf_read(spec, seq, &sh, ignored, sizeof(ignored), e) : parse_spec(spec, &sh, e);
    if (rc)
        return rc;
    if (batch < 1 || batch > ZOO_MAX_BATCH)
        return err_set(e, -EINVAL,
                       "model '%s': batch %u is not accepted; accepted 1..%u sequences per "
                       "core",
                       spec, batch, ZOO_MAX_BATCH);
    sh.batch = batch;
    if (!json)
        shape_fill(&sh);
    sh.seq = seq;
    if (o->zipf && !sh.experts)
        return err_set(e, -EINVAL,
                       "model '%s': a skewed routing needs a mixture of experts; it has none "
                       "(accepted: --routing uniform)",
                       spec);
    if (o->zipf < 0 || o->zipf > 8)
        return err_set(e, -EINVAL, "model '%s': routing skew %g; accepted 0 (uniform) to 8", spec,
                       o->zipf);
    sh.zipf = o->zipf;
    if (zoo_route_groups(&sh, (uint64_t)batch * seq))
        return err_set(e, -ENOMEM, "model '%s': out of memory", spec);
    x = (struct dims){
        .t = (uint64_t)batch * sh.seq,
        .s = sh.seq,
        .bh = batch * sh.heads,
        .d = sh.d_model,
        .inner = sh.heads * (sh.kv_lora ? sh.v_head : sh.d_head),
        .kv = sh.kv_heads * sh.d_head,
        .dh = sh.d_head,
        .ff = sh.experts ? sh.d_shared : sh.d_ff,
        .up = json ? 2 * (sh.experts ? sh.d_shared : sh.d_ff) : sh.d_ff,
        .vocab = sh.vocab,
        .e = sh.experts,
        .tk = (uint64_t)batch * sh.seq * sh.experts_per_tok,
        .topk = sh.experts_per_tok,
        .fe = sh.d_expert,
        .groups = sh.groups,
        .heads = sh.heads,
        .dqk = sh.kv_lora ? sh.qk_nope + sh.qk_rope : sh.d_head,
        .dv = sh.kv_lora ? sh.v_head : sh.d_head,
        .ql = sh.q_lora,
        .kl = sh.kv_lora,
        .rope = sh.qk_rope,
    };
    for (uint32_t g = 0; g < sh.groups; g++) {
        x.gn[g] = sh.group_experts[g];
        x.gm[g] = sh.group_tokens[g];
    }
    m = calloc(1, sizeof(*m));
    if (!m)
        return err_set(e, -ENOMEM, "model '%s': out of memory", spec);
    if (json)
        hf_spec(spec, m->spec, sizeof(m->spec));
    else
        snprintf(m->spec, sizeof(m->spec), "%s:%ux%u", zoo_family_name(sh.family), sh.w, sh.d);
    snprintf(m->ignored, sizeof(m->ignored), "%s", ignored);
    m->shape = sh;
    switch (sh.family) {
    case ZOO_GPT3_LIKE:
        defs = zoo_gpt_blocks, m->n_blocks = sizeof(zoo_gpt_blocks) / sizeof(zoo_gpt_blocks[0]);
        st = &zoo_gpt_style;
        break;
    case ZOO_T5_LIKE:
        defs = zoo_t5_blocks, m->n_blocks = sizeof(zoo_t5_blocks) / sizeof(zoo_t5_blocks[0]);
        st = &zoo_t5_style;
        break;
    default:
        defs = zoo_hf_blocks, m->n_blocks = sizeof(zoo_hf_blocks) / sizeof(zoo_hf_blocks[0]);
        hf = zoo_hf_style(&sh);
        st = &hf;
        break;
    }
    struct block_def head;
    bool dense_first = json && sh.dense_layers;
    if (json && !dense_first)
        m->n_blocks--;
    m->blocks = calloc(m->n_blocks, sizeof(m->blocks[0]));
    rc = m->blocks ? 0 : -ENOMEM;
    for (uint32_t i = 0; !rc && i < m->n_blocks; i++) {
        const struct block_def *def = &defs[json && !dense_first && i >= ZOO_HF_DENSE ? i + 1 : i];
        struct dims bx = x; /* the dense layers': no experts, the dense FFN */
        if (def == &zoo_hf_blocks[ZOO_HF_DENSE]) {
            bx.e = bx.groups = 0;
            bx.ff = sh.d_ff;
            bx.up = 2 * sh.d_ff;
        }
        if (json && def->kind == ZOO_BLOCK_HEAD && sh.tied) { /* the LM head is the table */
            head = *def;
            head.table = defs[0].table;
            head.d_table = defs[0].d_table;
            head.tied = true;
            def = &head;
        }
        rc = zoo_build_block(&m->blocks[i], def, &sh, st, &bx);
        if (!rc && dense_first && def->repeat) /* the dense layers, then the mixtures */
            m->blocks[i].repeat = def == &zoo_hf_blocks[ZOO_HF_DENSE]
                                      ? sh.dense_layers
                                      : sh.dec_layers - sh.dense_layers;
        if (!rc)
            totals_add(&m->total, &m->blocks[i].per, m->blocks[i].repeat);
    }
    if (rc) {
        zoo_destroy(m);
        return err_set(e, rc, "model '%s': out of memory", spec);
    }
    if (flop_estimate(m) >= 18446744073709551616.0) {
        zoo_destroy(m);
        return err_set(e, -EINVAL,
                       "model '%s': an iteration of %u sequences of %u tokens per core is more "
                       "than 2^64 FLOP; accepted: fewer sequences or tokens",
                       spec, batch, seq);
    }
    *out = m;
    return 0;
}

void zoo_destroy(struct zoo_model *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; m->blocks && i < m->n_blocks; i++) {
        free(m->blocks[i].fwd);
        free(m->blocks[i].bwd);
        free(m->blocks[i].weights);
        free(m->blocks[i].saved);
    }
    free(m->blocks);
    free(m);
}

size_t zoo_footprint(const struct zoo_model *m)
{
    size_t n = sizeof(*m) + m->n_blocks * sizeof(m->blocks[0]);

    for (uint32_t i = 0; i < m->n_blocks; i++) {
        const struct zoo_block *k = &m->blocks[i];

        n += (k->n_fwd + k->n_bwd) * sizeof(struct zoo_op);
        n += k->n_weights * sizeof(struct zoo_weight) + k->n_saved * sizeof(struct zoo_tensor);
    }
    return n;
}

uint64_t zoo_table3_flop(const struct zoo_model *m)
{
    return m->shape.family == ZOO_T5_LIKE ? m->total.flop_fwd : m->total.flop;
}
