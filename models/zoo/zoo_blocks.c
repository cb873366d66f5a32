/*
 * zoo_blocks.c - the block builder: every sublayer's and block's operations, weights and saved
 * tensors, forward and backward; see zoo.h and zoo_priv.h.
 */
#include "models/zoo/zoo_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ the block builder */

const struct style zoo_gpt_style = {
    .fused_qkv = true,
    .qkv_bias = true,
    .out_bias = true,
    .mlp_bias = true,
    .norm = ZOO_VEC_LAYERNORM,
    .norm_bwd = ZOO_VEC_LAYERNORM_BWD,
    .act = ZOO_VEC_GELU,
    .act_bwd = ZOO_VEC_GELU_BWD,
};
const struct style zoo_t5_style = {
    .norm = ZOO_VEC_RMSNORM,
    .norm_bwd = ZOO_VEC_RMSNORM_BWD,
    .act = ZOO_VEC_RELU,
    .act_bwd = ZOO_VEC_RELU_BWD,
};

/* A Hugging Face decoder's: its biases from its config. */
struct style zoo_hf_style(const struct zoo_shape *sh)
{
    return (struct style){
        .qkv_bias = sh->qkv_bias,
        .out_bias = sh->out_bias,
        .mlp_bias = sh->mlp_bias,
        .rope = true,
        .gated = true,
        .shared_gate = sh->d_shared && !strcmp(sh->arch, "Qwen2MoeForCausalLM"),
        .norm = ZOO_VEC_RMSNORM,
        .norm_bwd = ZOO_VEC_RMSNORM_BWD,
        .act = ZOO_VEC_SWIGLU,
        .act_bwd = ZOO_VEC_SWIGLU_BWD,
    };
}

/* Most ops and tensors a block kind has (the cross-decoder's are the most). */
#define MAX_OPS     80
#define MAX_WEIGHTS 24
#define MAX_SAVED   12

struct bb {
    enum zoo_block_kind kind;
    const struct style *st;
    struct dims x;
    struct zoo_op fwd[MAX_OPS], bwd[MAX_OPS];
    uint32_t n_fwd, n_bwd;
    struct zoo_weight w[MAX_WEIGHTS];
    uint32_t n_w;
    struct zoo_tensor saved[MAX_SAVED];
    uint32_t n_saved;
};

enum pass { FWD, BWD };

static struct zoo_op *push(struct bb *b, enum pass p)
{
    uint32_t *n = p == FWD ? &b->n_fwd : &b->n_bwd;
    struct zoo_op *op;

    assert(*n < MAX_OPS); /* the block definitions below are fixed */
    op = p == FWD ? &b->fwd[(*n)++] : &b->bwd[(*n)++];
    memset(op, 0, sizeof(*op));
    return op;
}

static struct zoo_opnd act(const char *n)
{
    return (struct zoo_opnd){ZOO_OPND_ACT, n};
}
static struct zoo_opnd saved(const char *n)
{
    return (struct zoo_opnd){ZOO_OPND_SAVED, n};
}
static struct zoo_opnd weight(const char *n)
{
    return (struct zoo_opnd){ZOO_OPND_WEIGHT, n};
}
static struct zoo_opnd grad(const char *n)
{
    return (struct zoo_opnd){ZOO_OPND_GRAD, n};
}
static struct zoo_opnd wgrad(const char *n)
{
    return (struct zoo_opnd){ZOO_OPND_WGRAD, n};
}

/* The forward shape of a GEMM kind: C[m x n] = A[m x k] B[k x n], count of them. */
struct shape {
    enum zoo_gemm_kind kind;
    uint64_t m, n, k, count;
};

static struct shape shape_of(const struct dims *x, enum zoo_gemm_kind kind)
{
    switch (kind) {
    case ZOO_GEMM_QKV:
        return (struct shape){kind, x->t, 3 * x->inner, x->d, 1};
    case ZOO_GEMM_K:
    case ZOO_GEMM_V:
        return (struct shape){kind, x->t, x->kv, x->d, 1};
    case ZOO_GEMM_Q:
    case ZOO_GEMM_XQ:
    case ZOO_GEMM_XK: /* the encoder's tokens: as many as the decoder's */
    case ZOO_GEMM_XV:
        return (struct shape){kind, x->t, x->inner, x->d, 1};
    case ZOO_GEMM_SCORES:
    case ZOO_GEMM_XSCORES:
        return (struct shape){kind, x->s, x->s, x->dqk, x->bh};
    case ZOO_GEMM_ATTN_V:
    case ZOO_GEMM_X_ATTN_V:
        return (struct shape){kind, x->s, x->dv, x->s, x->bh};
    case ZOO_GEMM_Q_A:
        return (struct shape){kind, x->t, x->ql, x->d, 1};
    case ZOO_GEMM_Q_B:
        return (struct shape){kind, x->t, x->heads * x->dqk, x->ql, 1};
    case ZOO_GEMM_KV_A:
        return (struct shape){kind, x->t, x->kl + x->rope, x->d, 1};
    case ZOO_GEMM_KV_B: /* per head: its keys without rotation, its values */
        return (struct shape){kind, x->t, x->heads * (x->dqk - x->rope + x->dv), x->kl, 1};
    case ZOO_GEMM_OUT_PROJ:
    case ZOO_GEMM_XOUT_PROJ:
        return (struct shape){kind, x->t, x->d, x->inner, 1};
    case ZOO_GEMM_FFN_UP:
        return (struct shape){kind, x->t, x->up, x->d, 1};
    case ZOO_GEMM_FFN_DOWN:
        return (struct shape){kind, x->t, x->d, x->ff, 1};
    case ZOO_GEMM_LM_HEAD:
        return (struct shape){kind, x->t, x->vocab, x->d, 1};
    case ZOO_GEMM_ROUTER:
        return (struct shape){kind, x->t, x->e, x->d, 1};
    case ZOO_GEMM_EXPERT_UP: /* expert_gemm sets a group's tokens and experts */
        return (struct shape){kind, 0, 2 * x->fe, x->d, 0};
    case ZOO_GEMM_EXPERT_DOWN:
        return (struct shape){kind, 0, x->d, x->fe, 0};
    case ZOO_GEMM_KINDS:
        break;
    }
    assert(0);
    return (struct shape){0};
}

static struct zoo_gemm *gemm_op(struct bb *b, enum pass p, enum zoo_gemm_role role, uint64_t m,
                                uint64_t n, uint64_t k, const struct shape *f, struct zoo_opnd a,
                                struct zoo_opnd bo, struct zoo_opnd c)
{
    struct zoo_op *op = push(b, p);

    op->type = ZOO_OP_GEMM;
    op->gemm = (struct zoo_gemm){
        .kind = f->kind,
        .role = role,
        .m = m,
        .n = n,
        .k = k,
        .count = f->count,
        .experts = f->kind == ZOO_GEMM_EXPERT_UP || f->kind == ZOO_GEMM_EXPERT_DOWN,
        .a = a,
        .b = bo,
        .c = c,
    };
    return &op->gemm;
}

/* Y = A B in forward (bias: a bias of n added). */
static void fwd_gemm(struct bb *b, enum zoo_gemm_kind kind, struct zoo_opnd a, struct zoo_opnd bo,
                     const char *c, bool bias)
{
    struct shape f = shape_of(&b->x, kind);

    gemm_op(b, FWD, ZOO_ROLE_FWD, f.m, f.n, f.k, &f, a, bo, act(c))->bias = bias;
}

/* The forward GEMM again in backward. */
static void recompute_gemm(struct bb *b, enum zoo_gemm_kind kind, struct zoo_opnd a,
                           struct zoo_opnd bo, const char *c)
{
    struct shape f = shape_of(&b->x, kind);

    gemm_op(b, BWD, ZOO_ROLE_RECOMPUTE, f.m, f.n, f.k, &f, a, bo, act(c));
}

/* dA = dY B^T. */
static void grad_a(struct bb *b, enum zoo_gemm_kind kind, struct zoo_opnd dy, struct zoo_opnd bo,
                   struct zoo_opnd da, bool accumulate)
{
    struct shape f = shape_of(&b->x, kind);

    gemm_op(b, BWD, ZOO_ROLE_GRAD_A, f.m, f.k, f.n, &f, dy, bo, da)->accumulate = accumulate;
}

/* dB = A^T dY (bias: also the bias's gradient). */
static struct zoo_gemm *grad_b(struct bb *b, enum zoo_gemm_kind kind, struct zoo_opnd a,
                               struct zoo_opnd dy, struct zoo_opnd db, bool bias)
{
    struct shape f = shape_of(&b->x, kind);
    struct zoo_gemm *g = gemm_op(b, BWD, ZOO_ROLE_GRAD_B, f.k, f.n, f.m, &f, a, dy, db);

    g->bias = bias;
    return g;
}

static struct zoo_vec *vec(struct bb *b, enum pass p, enum zoo_vec_kind kind, uint64_t rows,
                           uint64_t cols, const char *in, const char *out, const char *w)
{
    struct zoo_op *op = push(b, p);

    op->type = ZOO_OP_VEC;
    op->vec = (struct zoo_vec){
        .kind = kind, .rows = rows, .cols = cols, .in = in, .out = out, .weight = w};
    return &op->vec;
}

/* out = in + in2 over the residual stream's t x d. */
static void vec_add(struct bb *b, enum pass p, const char *in, const char *in2, const char *out,
                    const char *w)
{
    vec(b, p, ZOO_VEC_ADD, b->x.t, b->x.d, in, out, w)->in2 = in2;
}

/* A forward vector op again in backward. */
static void vec_recompute(struct bb *b, enum zoo_vec_kind kind, uint64_t rows, uint64_t cols,
                          const char *in, const char *out)
{
    vec(b, BWD, kind, rows, cols, in, out, NULL)->recompute = true;
}

static void add_weight(struct bb *b, const char *name, uint64_t rows, uint64_t cols, bool tied)
{
    assert(b->n_w < MAX_WEIGHTS);
    b->w[b->n_w++] = (struct zoo_weight){name, rows, cols, 2 * rows * cols, tied, 0};
}

/* Experts' weights, stacked (rows: all of theirs); a token uses k of the mixture's e. */
static void add_expert_weight(struct bb *b, const char *name, uint64_t rows, uint64_t cols)
{
    add_weight(b, name, rows, cols, false);
    b->w[b->n_w - 1].experts = (uint32_t)b->x.e;
}

/* A SAVE in forward and the tensor in the block's list; stat: a norm's output, which carries
 * its fp32 1/sigma (or 1/rms) per row for the backward. */
static void save(struct bb *b, const char *name, uint64_t rows, uint64_t cols, bool stat,
                 const char *what)
{
    struct zoo_op *op = push(b, FWD);
    uint64_t bytes = 2 * rows * cols + (stat ? 4 * rows : 0);

    assert(b->n_saved < MAX_SAVED);
    b->saved[b->n_saved++] = (struct zoo_tensor){name, rows, cols, bytes, what};
    op->type = ZOO_OP_SAVE;
    op->xfer = (struct zoo_xfer){name, bytes, b->kind};
}

static const struct zoo_tensor *find_saved(const struct bb *b, const char *name)
{
    for (uint32_t i = 0; i < b->n_saved; i++)
        if (!strcmp(b->saved[i].name, name))
            return &b->saved[i];
    return NULL;
}

/* A LOAD of a tensor this block saved. */
static void load(struct bb *b, const char *name)
{
    const struct zoo_tensor *t = find_saved(b, name);
    struct zoo_op *op = push(b, BWD);

    assert(t);
    op->type = ZOO_OP_LOAD;
    op->xfer = (struct zoo_xfer){name, t->bytes, b->kind};
}

/* The encoder's output, saved by the ENC_NORM block: its bytes are a norm output's. */
static void load_enc_out(struct bb *b, enum pass p)
{
    struct zoo_op *op = push(b, p);

    op->type = ZOO_OP_LOAD;
    op->xfer = (struct zoo_xfer){"enc_out", 2 * b->x.t * b->x.d + 4 * b->x.t, ZOO_BLOCK_ENC_NORM};
}

/* ------------------------------------------------------------------ sublayers */

struct norm_names {
    const char *out, *g, *b;  /* output; scale and (LayerNorm only) shift weights */
    const char *d_out, *d_in; /* the gradients of its output and of its input */
};

static const struct norm_names ln1 = {"ln1_out", "ln1.g", "ln1.b", "d_ln1_out", "d_ln1_in"};
static const struct norm_names ln2 = {"ln2_out", "ln2.g", "ln2.b", "d_ln2_out", "d_ln2_in"};
static const struct norm_names ln3 = {"ln3_out", "ln3.g", "ln3.b", "d_ln3_out", "d_ln3_in"};
static const struct norm_names lnf = {"lnf_out", "lnf.g", "lnf.b", "d_lnf_out", "dx"};
static const struct norm_names enc_lnf = {"enc_out", "enc_lnf.g", "enc_lnf.b", "d_enc_out", "dx"};

/* Forward: out = norm(in), saved (its backward needs only its output and 1/sigma, as Apex's
 * memory-efficient LayerNorm; the next GEMM's weight gradient needs it too). */
static void norm_fwd(struct bb *b, const char *in, const struct norm_names *nn, const char *what)
{
    const struct dims *x = &b->x;

    add_weight(b, nn->g, 1, x->d, false);
    if (b->st->norm == ZOO_VEC_LAYERNORM)
        add_weight(b, nn->b, 1, x->d, false);
    vec(b, FWD, b->st->norm, x->t, x->d, in, nn->out, nn->g);
    save(b, nn->out, x->t, x->d, true, what);
}

/* Backward: the gradient of the norm's input from its output's. */
static void norm_bwd(struct bb *b, const struct norm_names *nn)
{
    vec(b, BWD, b->st->norm_bwd, b->x.t, b->x.d, nn->d_out, nn->d_in, nn->g);
}

/* Backward of a sublayer out = in + f(norm(in)): d_in = d_out + norm_bwd(...). */
static void sublayer_in_grad(struct bb *b, const struct norm_names *nn, const char *d_out,
                             const char *d_in)
{
    norm_bwd(b, nn);
    vec_add(b, BWD, d_out, nn->d_in, d_in, NULL);
}

/* A separate Q, K or V projection of ln1_out into t x width (rotated, with rotary positions,
 * for Q and K), saved as `name`. */
static void qkv_fwd(struct bb *b, enum zoo_gemm_kind kind, const char *name, uint64_t width,
                    const char *what)
{
    const struct dims *x = &b->x;
    bool rope = b->st->rope && kind != ZOO_GEMM_V;
    const char *made = rope ? (kind == ZOO_GEMM_Q ? "q_pre" : "k_pre") : name;

    const char *w = kind == ZOO_GEMM_Q ? "attn.q.w" : kind == ZOO_GEMM_K ? "attn.k.w" : "attn.v.w";

    fwd_gemm(b, kind, act("ln1_out"), weight(w), made, b->st->qkv_bias);
    if (rope)
        vec(b, FWD, ZOO_VEC_ROPE, x->t, width, made, name, NULL);
    save(b, name, x->t, width, false, what);
}

/*
 * Latent attention (DeepSeek-V2, V3), forward: the queries through a latent of q_lora (a GEMM
 * in, RMSNorm, a GEMM out to every head's nope + rope width, the rope part turned), the keys and
 * values through one of kv_lora (a GEMM in to the latent and a rotary part shared by the heads,
 * RMSNorm, a GEMM out to every head's keys and values); then attention as the others', its
 * scores over nope + rope, its values v_head wide, and the output projection. Saved: the
 * norm's output, both latents (normed, with 1/rms), Q, the heads' K and V, the shared rotary
 * keys.
 */
static void mla_fwd(struct bb *b, const char *in, const char *out)
{
    const struct dims *x = &b->x;

    norm_fwd(b, in, &ln1, "input of the latent projections");
    add_weight(b, "attn.q_a.w", x->d, x->ql, false);
    add_weight(b, "attn.q_a_norm.g", 1, x->ql, false);
    add_weight(b, "attn.q_b.w", x->ql, x->heads * x->dqk, false);
    add_weight(b, "attn.kv_a.w", x->d, x->kl + x->rope, false);
    add_weight(b, "attn.kv_a_norm.g", 1, x->kl, false);
    add_weight(b, "attn.kv_b.w", x->kl, x->heads * (x->dqk - x->rope + x->dv), false);
    fwd_gemm(b, ZOO_GEMM_Q_A, act("ln1_out"), weight("attn.q_a.w"), "q_a", false);
    vec(b, FWD, ZOO_VEC_RMSNORM, x->t, x->ql, "q_a", "q_lat", "attn.q_a_norm.g");
    save(b, "q_lat", x->t, x->ql, true, "the queries' latent, normed");
    fwd_gemm(b, ZOO_GEMM_Q_B, act("q_lat"), weight("attn.q_b.w"), "q_pre", false);
    vec(b, FWD, ZOO_VEC_ROPE, x->t, x->heads * x->rope, "q_pre", "q", NULL);
    save(b, "q", x->t, x->heads * x->dqk, false, "queries, their rotary part turned");
    fwd_gemm(b, ZOO_GEMM_KV_A, act("ln1_out"), weight("attn.kv_a.w"), "kv_a", false);
    vec(b, FWD, ZOO_VEC_RMSNORM, x->t, x->kl, "kv_a", "kv_lat", "attn.kv_a_norm.g");
    save(b, "kv_lat", x->t, x->kl, true, "the keys' and values' latent, normed");
    vec(b, FWD, ZOO_VEC_ROPE, x->t, x->rope, "kv_a", "k_pe", NULL);
    save(b, "k_pe", x->t, x->rope, false, "the keys' rotary part, shared by the heads");
    fwd_gemm(b, ZOO_GEMM_KV_B, act("kv_lat"), weight("attn.kv_b.w"), "kv", false);
    save(b, "kv", x->t, x->heads * (x->dqk - x->rope + x->dv), false,
         "every head's keys (kv.k) and values (kv.v)");
    fwd_gemm(b, ZOO_GEMM_SCORES, act("q"), act("kv.k"), "scores", false);
    vec(b, FWD, ZOO_VEC_SOFTMAX, x->bh * x->s, x->s, "scores", "probs", NULL);
    fwd_gemm(b, ZOO_GEMM_ATTN_V, act("probs"), act("kv.v"), "ctx", false);
    add_weight(b, "attn.out.w", x->inner, x->d, false);
    fwd_gemm(b, ZOO_GEMM_OUT_PROJ, act("ctx"), weight("attn.out.w"), "attn_out", false);
    vec_add(b, FWD, in, "attn_out", out, NULL);
}

static void mla_bwd(struct bb *b, const char *d_out, const char *d_in)
{
    const struct dims *x = &b->x;

    grad_a(b, ZOO_GEMM_OUT_PROJ, grad(d_out), weight("attn.out.w"), grad("d_ctx"), false);
    load(b, "kv");
    load(b, "k_pe");
    load(b, "q");
    recompute_gemm(b, ZOO_GEMM_SCORES, saved("q"), saved("kv.k"), "scores");
    vec_recompute(b, ZOO_VEC_SOFTMAX, x->bh * x->s, x->s, "scores", "probs");
    recompute_gemm(b, ZOO_GEMM_ATTN_V, act("probs"), saved("kv.v"), "ctx");
    grad_b(b, ZOO_GEMM_OUT_PROJ, act("ctx"), grad(d_out), wgrad("attn.out.w"), false);
    grad_a(b, ZOO_GEMM_ATTN_V, grad("d_ctx"), saved("kv.v"), grad("d_probs"), false);
    grad_b(b, ZOO_GEMM_ATTN_V, act("probs"), grad("d_ctx"), grad("d_kv.v"), false);
    vec(b, BWD, ZOO_VEC_SOFTMAX_BWD, x->bh * x->s, x->s, "d_probs", "d_scores", NULL);
    grad_a(b, ZOO_GEMM_SCORES, grad("d_scores"), saved("kv.k"), grad("d_q"), false);
    grad_b(b, ZOO_GEMM_SCORES, saved("q"), grad("d_scores"), grad("d_kv.k"), false);
    vec(b, BWD, ZOO_VEC_ROPE_BWD, x->t, x->heads * x->rope, "d_q", "d_q_pre", NULL);
    load(b, "q_lat");
    grad_a(b, ZOO_GEMM_Q_B, grad("d_q_pre"), weight("attn.q_b.w"), grad("d_q_lat"), false);
    grad_b(b, ZOO_GEMM_Q_B, saved("q_lat"), grad("d_q_pre"), wgrad("attn.q_b.w"), false);
    vec(b, BWD, ZOO_VEC_RMSNORM_BWD, x->t, x->ql, "d_q_lat", "d_q_a", "attn.q_a_norm.g");
    load(b, "kv_lat");
    grad_a(b, ZOO_GEMM_KV_B, grad("d_kv"), weight("attn.kv_b.w"), grad("d_kv_lat"), false);
    grad_b(b, ZOO_GEMM_KV_B, saved("kv_lat"), grad("d_kv"), wgrad("attn.kv_b.w"), false);
    vec(b, BWD, ZOO_VEC_RMSNORM_BWD, x->t, x->kl, "d_kv_lat", "d_kv_a", "attn.kv_a_norm.g");
    vec(b, BWD, ZOO_VEC_ROPE_BWD, x->t, x->rope, "d_kv.k", "d_kv_a.pe", NULL);
    load(b, "ln1_out");
    grad_a(b, ZOO_GEMM_Q_A, grad("d_q_a"), weight("attn.q_a.w"), grad("d_ln1_out"), false);
    grad_b(b, ZOO_GEMM_Q_A, saved("ln1_out"), grad("d_q_a"), wgrad("attn.q_a.w"), false);
    grad_a(b, ZOO_GEMM_KV_A, grad("d_kv_a"), weight("attn.kv_a.w"), grad("d_ln1_out"), true);
    grad_b(b, ZOO_GEMM_KV_A, saved("ln1_out"), grad("d_kv_a"), wgrad("attn.kv_a.w"), false);
    sublayer_in_grad(b, &ln1, d_out, d_in);
}

/* Self-attention, forward: out = in + proj(attention(norm(in))). Saved: the norm's output and
 * Q, K, V (Q and K after their rotation); the attention core is recomputed in backward. With
 * fewer K and V heads than Q heads (grouped-query), each K and V head serves heads / kv_heads
 * query heads. */
static void attn_fwd(struct bb *b, const char *in, const char *out)
{
    const struct dims *x = &b->x;
    const struct style *st = b->st;
    const char *q = "q", *k = "k", *v = "v";

    norm_fwd(b, in, &ln1, "input of the Q, K, V projections");
    if (st->fused_qkv) {
        add_weight(b, "attn.qkv.w", x->d, 3 * x->inner, false);
        if (st->qkv_bias)
            add_weight(b, "attn.qkv.b", 1, 3 * x->inner, false);
        fwd_gemm(b, ZOO_GEMM_QKV, act("ln1_out"), weight("attn.qkv.w"), "qkv", st->qkv_bias);
        save(b, "qkv", x->t, 3 * x->inner, false, "queries, keys, values (qkv.q, .k, .v)");
        q = "qkv.q", k = "qkv.k", v = "qkv.v";
    } else {
        add_weight(b, "attn.q.w", x->d, x->inner, false);
        add_weight(b, "attn.k.w", x->d, x->kv, false);
        add_weight(b, "attn.v.w", x->d, x->kv, false);
        if (st->qkv_bias) {
            add_weight(b, "attn.q.b", 1, x->inner, false);
            add_weight(b, "attn.k.b", 1, x->kv, false);
            add_weight(b, "attn.v.b", 1, x->kv, false);
        }
        qkv_fwd(b, ZOO_GEMM_Q, "q", x->inner, "queries");
        qkv_fwd(b, ZOO_GEMM_K, "k", x->kv, "keys");
        qkv_fwd(b, ZOO_GEMM_V, "v", x->kv, "values");
    }
    fwd_gemm(b, ZOO_GEMM_SCORES, act(q), act(k), "scores", false);
    vec(b, FWD, ZOO_VEC_SOFTMAX, x->bh * x->s, x->s, "scores", "probs", NULL);
    fwd_gemm(b, ZOO_GEMM_ATTN_V, act("probs"), act(v), "ctx", false);
    add_weight(b, "attn.out.w", x->inner, x->d, false);
    if (st->out_bias)
        add_weight(b, "attn.out.b", 1, x->d, false);
    fwd_gemm(b, ZOO_GEMM_OUT_PROJ, act("ctx"), weight("attn.out.w"), "attn_out", st->out_bias);
    vec_add(b, FWD, in, "attn_out", out, NULL);
}

/* Self-attention, backward: d_in from d_out. */
static void attn_bwd(struct bb *b, const char *d_out, const char *d_in)
{
    const struct dims *x = &b->x;
    const struct style *st = b->st;
    bool fused = st->fused_qkv, grouped = x->kv < x->inner;
    const char *q = fused ? "qkv.q" : "q", *k = fused ? "qkv.k" : "k", *v = fused ? "qkv.v" : "v";
    /* the projections' gradients: of the rotated Q and K rotated back */
    const char *dq = st->rope ? "d_q_pre" : "d_q", *dk = st->rope ? "d_k_pre" : "d_k";

    grad_a(b, ZOO_GEMM_OUT_PROJ, grad(d_out), weight("attn.out.w"), grad("d_ctx"), false);
    if (fused) {
        load(b, "qkv");
    } else {
        load(b, "v");
        load(b, "k");
        load(b, "q");
    }
    recompute_gemm(b, ZOO_GEMM_SCORES, saved(q), saved(k), "scores");
    vec_recompute(b, ZOO_VEC_SOFTMAX, x->bh * x->s, x->s, "scores", "probs");
    recompute_gemm(b, ZOO_GEMM_ATTN_V, act("probs"), saved(v), "ctx");
    grad_b(b, ZOO_GEMM_OUT_PROJ, act("ctx"), grad(d_out), wgrad("attn.out.w"), st->out_bias);
    grad_a(b, ZOO_GEMM_ATTN_V, grad("d_ctx"), saved(v), grad("d_probs"), false);
    /* a K or V head's gradient sums those of the query heads it serves */
    grad_b(b, ZOO_GEMM_ATTN_V, act("probs"), grad("d_ctx"), grad(fused ? "d_qkv.v" : "d_v"), false)
        ->accumulate = grouped;
    vec(b, BWD, ZOO_VEC_SOFTMAX_BWD, x->bh * x->s, x->s, "d_probs", "d_scores", NULL);
    grad_a(b, ZOO_GEMM_SCORES, grad("d_scores"), saved(k), grad(fused ? "d_qkv.q" : "d_q"), false);
    grad_b(b, ZOO_GEMM_SCORES, saved(q), grad("d_scores"), grad(fused ? "d_qkv.k" : "d_k"), false)
        ->accumulate = grouped;
    if (st->rope) {
        vec(b, BWD, ZOO_VEC_ROPE_BWD, x->t, x->inner, "d_q", dq, NULL);
        vec(b, BWD, ZOO_VEC_ROPE_BWD, x->t, x->kv, "d_k", dk, NULL);
    }
    load(b, "ln1_out");
    if (fused) {
        grad_a(b, ZOO_GEMM_QKV, grad("d_qkv"), weight("attn.qkv.w"), grad("d_ln1_out"), false);
        grad_b(b, ZOO_GEMM_QKV, saved("ln1_out"), grad("d_qkv"), wgrad("attn.qkv.w"), st->qkv_bias);
    } else {
        grad_a(b, ZOO_GEMM_Q, grad(dq), weight("attn.q.w"), grad("d_ln1_out"), false);
        grad_b(b, ZOO_GEMM_Q, saved("ln1_out"), grad(dq), wgrad("attn.q.w"), st->qkv_bias);
        grad_a(b, ZOO_GEMM_K, grad(dk), weight("attn.k.w"), grad("d_ln1_out"), true);
        grad_b(b, ZOO_GEMM_K, saved("ln1_out"), grad(dk), wgrad("attn.k.w"), st->qkv_bias);
        grad_a(b, ZOO_GEMM_V, grad("d_v"), weight("attn.v.w"), grad("d_ln1_out"), true);
        grad_b(b, ZOO_GEMM_V, saved("ln1_out"), grad("d_v"), wgrad("attn.v.w"), st->qkv_bias);
    }
    sublayer_in_grad(b, &ln1, d_out, d_in);
}

/* Cross-attention (T5 decoder), forward: out = in + proj(attention(Q from norm(in), K and V
 * from the encoder's output)). Saved: the norm's output, Q, K, V. */
static void xattn_fwd(struct bb *b, const char *in, const char *out)
{
    const struct dims *x = &b->x;

    norm_fwd(b, in, &ln2, "input of the cross-attention's Q projection");
    add_weight(b, "xattn.q.w", x->d, x->inner, false);
    add_weight(b, "xattn.k.w", x->d, x->inner, false);
    add_weight(b, "xattn.v.w", x->d, x->inner, false);
    fwd_gemm(b, ZOO_GEMM_XQ, act("ln2_out"), weight("xattn.q.w"), "xq", b->st->qkv_bias);
    save(b, "xq", x->t, x->inner, false, "cross-attention queries");
    load_enc_out(b, FWD);
    fwd_gemm(b, ZOO_GEMM_XK, saved("enc_out"), weight("xattn.k.w"), "xk", b->st->qkv_bias);
    save(b, "xk", x->t, x->inner, false, "cross-attention keys (of the encoder's tokens)");
    fwd_gemm(b, ZOO_GEMM_XV, saved("enc_out"), weight("xattn.v.w"), "xv", b->st->qkv_bias);
    save(b, "xv", x->t, x->inner, false, "cross-attention values (of the encoder's tokens)");
    fwd_gemm(b, ZOO_GEMM_XSCORES, act("xq"), act("xk"), "xscores", false);
    vec(b, FWD, ZOO_VEC_SOFTMAX, x->bh * x->s, x->s, "xscores", "xprobs", NULL);
    fwd_gemm(b, ZOO_GEMM_X_ATTN_V, act("xprobs"), act("xv"), "xctx", false);
    add_weight(b, "xattn.out.w", x->inner, x->d, false);
    fwd_gemm(b, ZOO_GEMM_XOUT_PROJ, act("xctx"), weight("xattn.out.w"), "xattn_out",
             b->st->out_bias);
    vec_add(b, FWD, in, "xattn_out", out, NULL);
}

/* Cross-attention, backward: d_in from d_out; adds into d_enc_out, the gradient of the encoder's
 * output that every decoder layer contributes to. */
static void xattn_bwd(struct bb *b, const char *d_out, const char *d_in)
{
    const struct dims *x = &b->x;

    grad_a(b, ZOO_GEMM_XOUT_PROJ, grad(d_out), weight("xattn.out.w"), grad("d_xctx"), false);
    load(b, "xv");
    load(b, "xk");
    load(b, "xq");
    recompute_gemm(b, ZOO_GEMM_XSCORES, saved("xq"), saved("xk"), "xscores");
    vec_recompute(b, ZOO_VEC_SOFTMAX, x->bh * x->s, x->s, "xscores", "xprobs");
    recompute_gemm(b, ZOO_GEMM_X_ATTN_V, act("xprobs"), saved("xv"), "xctx");
    grad_b(b, ZOO_GEMM_XOUT_PROJ, act("xctx"), grad(d_out), wgrad("xattn.out.w"), b->st->out_bias);
    grad_a(b, ZOO_GEMM_X_ATTN_V, grad("d_xctx"), saved("xv"), grad("d_xprobs"), false);
    grad_b(b, ZOO_GEMM_X_ATTN_V, act("xprobs"), grad("d_xctx"), grad("d_xv"), false);
    vec(b, BWD, ZOO_VEC_SOFTMAX_BWD, x->bh * x->s, x->s, "d_xprobs", "d_xscores", NULL);
    grad_a(b, ZOO_GEMM_XSCORES, grad("d_xscores"), saved("xk"), grad("d_xq"), false);
    grad_b(b, ZOO_GEMM_XSCORES, saved("xq"), grad("d_xscores"), grad("d_xk"), false);
    load_enc_out(b, BWD);
    grad_a(b, ZOO_GEMM_XK, grad("d_xk"), weight("xattn.k.w"), grad("d_enc_out"), true);
    grad_b(b, ZOO_GEMM_XK, saved("enc_out"), grad("d_xk"), wgrad("xattn.k.w"), b->st->qkv_bias);
    grad_a(b, ZOO_GEMM_XV, grad("d_xv"), weight("xattn.v.w"), grad("d_enc_out"), true);
    grad_b(b, ZOO_GEMM_XV, saved("enc_out"), grad("d_xv"), wgrad("xattn.v.w"), b->st->qkv_bias);
    load(b, "ln2_out");
    grad_a(b, ZOO_GEMM_XQ, grad("d_xq"), weight("xattn.q.w"), grad("d_ln2_out"), false);
    grad_b(b, ZOO_GEMM_XQ, saved("ln2_out"), grad("d_xq"), wgrad("xattn.q.w"), b->st->qkv_bias);
    sublayer_in_grad(b, &ln2, d_out, d_in);
}

/* Feed-forward, forward: out = in + down(act(up(norm(in)))). Saved: the norm's output and the
 * pre-activation (the activation's backward needs it; its output is recomputed). A gated FFN
 * (SwiGLU) has its gate and up projections as one GEMM of 2 x d_ff outputs, ffn_pre, and
 * act(ffn_pre) = silu(gate) x up. */
static void ffn_fwd(struct bb *b, const char *in, const char *out, const struct norm_names *nn)
{
    const struct dims *x = &b->x;
    const struct style *st = b->st;
    const char *up = st->gated ? "mlp.gate_up.w" : "mlp.up.w";

    norm_fwd(b, in, nn, "input of the FFN's up projection");
    add_weight(b, up, x->d, x->up, false);
    if (st->mlp_bias)
        add_weight(b, st->gated ? "mlp.gate_up.b" : "mlp.up.b", 1, x->up, false);
    fwd_gemm(b, ZOO_GEMM_FFN_UP, act(nn->out), weight(up), "ffn_pre", st->mlp_bias);
    save(b, "ffn_pre", x->t, x->up, false,
         st->gated ? "the FFN's gate and up projections, before SwiGLU"
                   : "the FFN's hidden layer before its activation");
    vec(b, FWD, st->act, x->t, x->ff, "ffn_pre", "ffn_act", NULL);
    add_weight(b, "mlp.down.w", x->ff, x->d, false);
    if (st->mlp_bias)
        add_weight(b, "mlp.down.b", 1, x->d, false);
    fwd_gemm(b, ZOO_GEMM_FFN_DOWN, act("ffn_act"), weight("mlp.down.w"), "ffn_out", st->mlp_bias);
    vec_add(b, FWD, in, "ffn_out", out, NULL);
}

/* Backward; a gated FFN's activation gradient makes both halves of d_ffn_pre (2 x d_ff). */
static void ffn_bwd(struct bb *b, const char *d_out, const char *d_in, const struct norm_names *nn)
{
    const struct dims *x = &b->x;
    const struct style *st = b->st;
    const char *up = st->gated ? "mlp.gate_up.w" : "mlp.up.w";

    load(b, "ffn_pre");
    vec_recompute(b, st->act, x->t, x->ff, "ffn_pre", "ffn_act");
    grad_a(b, ZOO_GEMM_FFN_DOWN, grad(d_out), weight("mlp.down.w"), grad("d_ffn_act"), false);
    grad_b(b, ZOO_GEMM_FFN_DOWN, act("ffn_act"), grad(d_out), wgrad("mlp.down.w"), st->mlp_bias);
    vec(b, BWD, st->act_bwd, x->t, x->up, "d_ffn_act", "d_ffn_pre", NULL);
    load(b, nn->out);
    grad_a(b, ZOO_GEMM_FFN_UP, grad("d_ffn_pre"), weight(up), grad(nn->d_out), false);
    grad_b(b, ZOO_GEMM_FFN_UP, saved(nn->out), grad("d_ffn_pre"), wgrad(up), st->mlp_bias);
    sublayer_in_grad(b, nn, d_out, d_in);
}

/* The names of an expert group's weights and tensors: with one group (uniform routing) the
 * plain ones; with several, group g's part of each tensor (moe_pre.g1 of moe_pre). */
enum gname { G_GATE_UP, G_DOWN, G_IN, G_PRE, G_ACT, G_OUT, G_D_OUT, G_D_ACT, G_D_PRE, G_D_IN, G_N };
static const char *const group_names[G_N][1 + ZOO_EXPERT_GROUPS] = {
    {"moe.gate_up.w", "moe.gate_up.g0", "moe.gate_up.g1", "moe.gate_up.g2", "moe.gate_up.g3"},
    {"moe.down.w", "moe.down.g0", "moe.down.g1", "moe.down.g2", "moe.down.g3"},
    {"moe_in", "moe_in.g0", "moe_in.g1", "moe_in.g2", "moe_in.g3"},
    {"moe_pre", "moe_pre.g0", "moe_pre.g1", "moe_pre.g2", "moe_pre.g3"},
    {"moe_act", "moe_act.g0", "moe_act.g1", "moe_act.g2", "moe_act.g3"},
    {"moe_out", "moe_out.g0", "moe_out.g1", "moe_out.g2", "moe_out.g3"},
    {"d_moe.out", "d_moe.g0", "d_moe.g1", "d_moe.g2", "d_moe.g3"},
    {"d_moe_act", "d_moe_act.g0", "d_moe_act.g1", "d_moe_act.g2", "d_moe_act.g3"},
    {"d_moe_pre", "d_moe_pre.g0", "d_moe_pre.g1", "d_moe_pre.g2", "d_moe_pre.g3"},
    {"d_moe_in", "d_moe_in.g0", "d_moe_in.g1", "d_moe_in.g2", "d_moe_in.g3"},
};

static const char *gname(const struct dims *x, enum gname n, uint32_t g)
{
    return group_names[n][x->groups > 1 ? 1 + g : 0];
}

/* An expert GEMM of group g: its experts as instances, each at the group's tokens. */
static void expert_gemm(struct bb *b, enum pass p, enum zoo_gemm_role role, enum zoo_gemm_kind kind,
                        uint32_t g, struct zoo_opnd a, struct zoo_opnd bo, struct zoo_opnd c)
{
    struct shape f = shape_of(&b->x, kind);
    f.m = b->x.gm[g];
    f.count = b->x.gn[g];
    if (role == ZOO_ROLE_FWD)
        gemm_op(b, p, role, f.m, f.n, f.k, &f, a, bo, c);
    else if (role == ZOO_ROLE_GRAD_A)
        gemm_op(b, p, role, f.m, f.k, f.n, &f, a, bo, c);
    else
        gemm_op(b, p, role, f.k, f.n, f.m, &f, a, bo, c);
}

/*
 * A mixture of experts in place of the FFN, forward: out = in + sum over the token's top k
 * experts of p_e x expert_e(norm(in)) (+ the shared experts' FFN of norm(in)). The router scores
 * every expert (a GEMM, then softmax and top k on the vector unit); each token's row is copied
 * to its experts (dispatch), each expert a SwiGLU FFN on its tokens (uniform routing: every
 * expert the same number; skewed: the experts in groups, each at its most used one's), the
 * outputs weighted and summed back (combine). Saved: the norm's output, the routing, each
 * expert's pre-activation and output (the router's gradient needs it), and the shared experts'
 * pre-activation.
 */
static void moe_fwd(struct bb *b, const char *in, const char *out, const struct norm_names *nn)
{
    const struct dims *x = &b->x;

    norm_fwd(b, in, nn, "input of the router, the experts and the shared experts");
    add_weight(b, "moe.router.w", x->d, x->e, false);
    fwd_gemm(b, ZOO_GEMM_ROUTER, act(nn->out), weight("moe.router.w"), "router_logits", false);
    vec(b, FWD, ZOO_VEC_ROUTE, x->t, x->e, "router_logits", "route", NULL);
    save(b, "route", x->t, x->e, false, "each token's experts and their weights");
    vec(b, FWD, ZOO_VEC_DISPATCH, x->tk, x->d, nn->out, "moe_in", NULL)->in2 = "route";
    for (uint32_t g = 0; g < x->groups; g++)
        add_expert_weight(b, gname(x, G_GATE_UP, g), x->gn[g] * x->d, 2 * x->fe);
    for (uint32_t g = 0; g < x->groups; g++)
        add_expert_weight(b, gname(x, G_DOWN, g), x->gn[g] * x->fe, x->d);
    for (uint32_t g = 0; g < x->groups; g++)
        expert_gemm(b, FWD, ZOO_ROLE_FWD, ZOO_GEMM_EXPERT_UP, g, act(gname(x, G_IN, g)),
                    weight(gname(x, G_GATE_UP, g)), act(gname(x, G_PRE, g)));
    save(b, "moe_pre", x->tk, 2 * x->fe, false, "the experts' gate and up projections");
    vec(b, FWD, ZOO_VEC_SWIGLU, x->tk, x->fe, "moe_pre", "moe_act", NULL);
    for (uint32_t g = 0; g < x->groups; g++)
        expert_gemm(b, FWD, ZOO_ROLE_FWD, ZOO_GEMM_EXPERT_DOWN, g, act(gname(x, G_ACT, g)),
                    weight(gname(x, G_DOWN, g)), act(gname(x, G_OUT, g)));
    save(b, "moe_out", x->tk, x->d, false, "the experts' outputs, before their weighting");
    vec(b, FWD, ZOO_VEC_COMBINE, x->tk, x->d, "moe_out", "ffn_out", NULL)->in2 = "route";
    if (x->up) {
        add_weight(b, "shared.gate_up.w", x->d, x->up, false);
        add_weight(b, "shared.down.w", x->ff, x->d, false);
        if (b->st->shared_gate) /* sigmoid(x . w) per token: its 2 d FLOP a token not timed */
            add_weight(b, "shared.gate.w", 1, x->d, false);
        fwd_gemm(b, ZOO_GEMM_FFN_UP, act(nn->out), weight("shared.gate_up.w"), "ffn_pre", false);
        save(b, "ffn_pre", x->t, x->up, false, "the shared experts' gate and up projections");
        vec(b, FWD, ZOO_VEC_SWIGLU, x->t, x->ff, "ffn_pre", "ffn_act", NULL);
        fwd_gemm(b, ZOO_GEMM_FFN_DOWN, act("ffn_act"), weight("shared.down.w"), "shared_out",
                 false);
        vec_add(b, FWD, "ffn_out", "shared_out", "moe_sum", NULL);
    }
    vec_add(b, FWD, in, x->up ? "moe_sum" : "ffn_out", out, NULL);
}

/* Backward; d_ln2_out sums the experts' (dispatch's), the router's and the shared experts'. */
static void moe_bwd(struct bb *b, const char *d_out, const char *d_in, const struct norm_names *nn)
{
    const struct dims *x = &b->x;

    load(b, "moe_out");
    load(b, "route");
    vec(b, BWD, ZOO_VEC_COMBINE_BWD, x->tk, x->d, d_out, "d_moe", NULL)->in2 = "moe_out";
    load(b, "moe_pre");
    vec_recompute(b, ZOO_VEC_SWIGLU, x->tk, x->fe, "moe_pre", "moe_act");
    for (uint32_t g = 0; g < x->groups; g++) {
        expert_gemm(b, BWD, ZOO_ROLE_GRAD_A, ZOO_GEMM_EXPERT_DOWN, g, grad(gname(x, G_D_OUT, g)),
                    weight(gname(x, G_DOWN, g)), grad(gname(x, G_D_ACT, g)));
        expert_gemm(b, BWD, ZOO_ROLE_GRAD_B, ZOO_GEMM_EXPERT_DOWN, g, act(gname(x, G_ACT, g)),
                    grad(gname(x, G_D_OUT, g)), wgrad(gname(x, G_DOWN, g)));
    }
    vec(b, BWD, ZOO_VEC_SWIGLU_BWD, x->tk, 2 * x->fe, "d_moe_act", "d_moe_pre", NULL);
    load(b, nn->out);
    vec(b, BWD, ZOO_VEC_DISPATCH, x->tk, x->d, nn->out, "moe_in", NULL)->recompute = true;
    for (uint32_t g = 0; g < x->groups; g++) {
        expert_gemm(b, BWD, ZOO_ROLE_GRAD_A, ZOO_GEMM_EXPERT_UP, g, grad(gname(x, G_D_PRE, g)),
                    weight(gname(x, G_GATE_UP, g)), grad(gname(x, G_D_IN, g)));
        expert_gemm(b, BWD, ZOO_ROLE_GRAD_B, ZOO_GEMM_EXPERT_UP, g, act(gname(x, G_IN, g)),
                    grad(gname(x, G_D_PRE, g)), wgrad(gname(x, G_GATE_UP, g)));
    }
    vec(b, BWD, ZOO_VEC_DISPATCH_BWD, x->tk, x->d, "d_moe_in", nn->d_out, NULL);
    vec(b, BWD, ZOO_VEC_ROUTE_BWD, x->t, x->e, "d_moe.route", "d_router_logits", NULL);
    grad_a(b, ZOO_GEMM_ROUTER, grad("d_router_logits"), weight("moe.router.w"), grad(nn->d_out),
           true);
    grad_b(b, ZOO_GEMM_ROUTER, saved(nn->out), grad("d_router_logits"), wgrad("moe.router.w"),
           false);
    if (x->up) {
        load(b, "ffn_pre");
        vec_recompute(b, ZOO_VEC_SWIGLU, x->t, x->ff, "ffn_pre", "ffn_act");
        grad_a(b, ZOO_GEMM_FFN_DOWN, grad(d_out), weight("shared.down.w"), grad("d_ffn_act"),
               false);
        grad_b(b, ZOO_GEMM_FFN_DOWN, act("ffn_act"), grad(d_out), wgrad("shared.down.w"), false);
        vec(b, BWD, ZOO_VEC_SWIGLU_BWD, x->t, x->up, "d_ffn_act", "d_ffn_pre", NULL);
        grad_a(b, ZOO_GEMM_FFN_UP, grad("d_ffn_pre"), weight("shared.gate_up.w"), grad(nn->d_out),
               true);
        grad_b(b, ZOO_GEMM_FFN_UP, saved(nn->out), grad("d_ffn_pre"), wgrad("shared.gate_up.w"),
               false);
    }
    sublayer_in_grad(b, nn, d_out, d_in);
}

/* ------------------------------------------------------------------ blocks */

/* tokens -> y. GPT3-like: wte[tokens] + wpe; T5-like: shared[tokens] (relative positions are
 * a bias on the scores). The table may belong to an earlier block (tied); its gradient is added
 * into by every block that uses it. */
static void embed_block(struct bb *b, const struct block_def *def)
{
    const struct dims *x = &b->x;

    add_weight(b, def->table, x->vocab, x->d, def->tied);
    vec(b, FWD, ZOO_VEC_EMBED, x->t, x->d, "tokens", def->positions ? "tok_emb" : "y", def->table);
    if (def->positions) {
        add_weight(b, "wpe", x->s, x->d, false);
        vec_add(b, FWD, "tok_emb", "wpe", "y", "wpe");
        vec(b, BWD, ZOO_VEC_EMBED_BWD, x->t, x->d, "dy", "d_wpe", "wpe");
    }
    vec(b, BWD, ZOO_VEC_EMBED_BWD, x->t, x->d, "dy", def->d_table, def->table);
}

/* GPT3-like decoder layer (causal) or T5-like encoder layer: self-attention and FFN. */
static void layer_block(struct bb *b)
{
    if (b->x.kl)
        mla_fwd(b, "x", "h");
    else
        attn_fwd(b, "x", "h");
    if (b->x.e) {
        moe_fwd(b, "h", "y", &ln2);
        moe_bwd(b, "dy", "dh", &ln2);
    } else {
        ffn_fwd(b, "h", "y", &ln2);
        ffn_bwd(b, "dy", "dh", &ln2);
    }
    if (b->x.kl)
        mla_bwd(b, "dh", "dx");
    else
        attn_bwd(b, "dh", "dx");
}

static void cross_decoder_block(struct bb *b)
{
    attn_fwd(b, "x", "h1");
    xattn_fwd(b, "h1", "h2");
    ffn_fwd(b, "h2", "y", &ln3);
    ffn_bwd(b, "dy", "dh2", &ln3);
    xattn_bwd(b, "dh2", "dh1");
    attn_bwd(b, "dh1", "dx");
}

/* The encoder's final norm: enc_out, read by every decoder layer's cross-attention; its
 * backward starts from d_enc_out, which those layers accumulated. */
static void enc_norm_block(struct bb *b)
{
    norm_fwd(b, "x", &enc_lnf, "the encoder's output: cross-attention K, V inputs");
    load(b, "enc_out");
    norm_bwd(b, &enc_lnf);
}

/* Final norm, logits against the embedding table (tied) or a table of its own, softmax
 * cross-entropy. The loss is the
 * last op: it writes the logits' gradient at once, saved like any activation. */
static void head_block(struct bb *b, const struct block_def *def)
{
    const struct dims *x = &b->x;
    const char *table = def->table;

    norm_fwd(b, "x", &lnf, "input of the LM head");
    add_weight(b, table, x->vocab, x->d, def->tied);
    fwd_gemm(b, ZOO_GEMM_LM_HEAD, act("lnf_out"), weight(table), "logits", false);
    vec(b, FWD, ZOO_VEC_LOSS, x->t, x->vocab, "logits", "logits_grad", NULL);
    save(b, "logits_grad", x->t, x->vocab, false, "gradient of the loss by the logits");
    load(b, "logits_grad");
    grad_a(b, ZOO_GEMM_LM_HEAD, saved("logits_grad"), weight(table), grad("d_lnf_out"), false);
    load(b, "lnf_out");
    grad_b(b, ZOO_GEMM_LM_HEAD, saved("lnf_out"), saved("logits_grad"), wgrad(table), false);
    norm_bwd(b, &lnf);
}

/* The names of the LM head's vocabulary slices: weights, logits, their gradients. */
#define SLICES(p)                                                                                  \
    {                                                                                              \
        p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7", p "8", p "9", p "10", p "11",      \
            p "12", p "13", p "14", p "15"                                                         \
    }
static const char *const slice_w[ZOO_LOSS_SLICES] = SLICES("lm_head.s");
static const char *const slice_logits[ZOO_LOSS_SLICES] = SLICES("logits.s");
static const char *const slice_grad[ZOO_LOSS_SLICES] = SLICES("logits_grad.s");
#undef SLICES

/* An LM head GEMM of a vocabulary slice of n columns. */
static struct zoo_gemm *slice_gemm(struct bb *b, enum pass p, enum zoo_gemm_role role, uint64_t n,
                                   struct zoo_opnd a, struct zoo_opnd bo, struct zoo_opnd c)
{
    struct shape f = shape_of(&b->x, ZOO_GEMM_LM_HEAD);
    f.n = n;
    if (role == ZOO_ROLE_GRAD_A)
        return gemm_op(b, p, role, f.m, f.k, f.n, &f, a, bo, c);
    if (role == ZOO_ROLE_GRAD_B)
        return gemm_op(b, p, role, f.k, f.n, f.m, &f, a, bo, c);
    return gemm_op(b, p, role, f.m, f.n, f.k, &f, a, bo, c);
}

/*
 * A Hugging Face model's head with a table of its own: the loss over the vocabulary in slices
 * of ZOO_LOSS_COLS columns (at most ZOO_LOSS_SLICES), so that no whole t x vocabulary tensor is
 * ever held or saved (a chunked cross-entropy). Forward: per slice its logits and their running
 * log-sum-exp per row (saved, fp32); backward: per slice its logits again (a recompute), their
 * gradient, its share of d_lnf_out and its weights' gradient.
 */
static void sliced_head_block(struct bb *b)
{
    const struct dims *x = &b->x;
    uint64_t n = (x->vocab + ZOO_LOSS_COLS - 1) / ZOO_LOSS_COLS;
    n = n > ZOO_LOSS_SLICES ? ZOO_LOSS_SLICES : n;
    uint64_t w = (x->vocab + n - 1) / n;

    norm_fwd(b, "x", &lnf, "input of the LM head");
    for (uint64_t i = 0; i < n; i++)
        add_weight(b, slice_w[i], i + 1 < n ? w : x->vocab - (n - 1) * w, x->d, false);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t cols = i + 1 < n ? w : x->vocab - (n - 1) * w;
        slice_gemm(b, FWD, ZOO_ROLE_FWD, cols, act("lnf_out"), weight(slice_w[i]),
                   act(slice_logits[i]));
        vec(b, FWD, ZOO_VEC_LOGSUMEXP, x->t, cols, slice_logits[i], "lse", NULL);
    }
    save(b, "lse", x->t, 2, false, "each token's log-sum-exp of its logits (fp32)");
    load(b, "lse");
    load(b, "lnf_out");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t cols = i + 1 < n ? w : x->vocab - (n - 1) * w;
        slice_gemm(b, BWD, ZOO_ROLE_RECOMPUTE, cols, saved("lnf_out"), weight(slice_w[i]),
                   act(slice_logits[i]));
        vec(b, BWD, ZOO_VEC_LOSS, x->t, cols, slice_logits[i], slice_grad[i], NULL)->in2 = "lse";
        slice_gemm(b, BWD, ZOO_ROLE_GRAD_A, cols, grad(slice_grad[i]), weight(slice_w[i]),
                   grad("d_lnf_out"))
            ->accumulate = i > 0;
        slice_gemm(b, BWD, ZOO_ROLE_GRAD_B, cols, saved("lnf_out"), grad(slice_grad[i]),
                   wgrad(slice_w[i]));
    }
    norm_bwd(b, &lnf);
}

static void block_totals(struct zoo_block *k, uint64_t experts_per_tok)
{
    struct zoo_totals *t = &k->per;

    memset(t, 0, sizeof(*t));
    for (uint32_t i = 0; i < k->n_weights; i++) {
        const struct zoo_weight *w = &k->weights[i];
        uint64_t n = w->rows * w->cols;
        if (w->tied)
            continue;
        t->params += n;
        t->params_active += w->experts ? n / w->experts * experts_per_tok : n;
    }
    t->weight_bytes = 2 * t->params;
    for (uint32_t i = 0; i < k->n_saved; i++)
        t->saved_bytes += k->saved[i].bytes;
    t->saved_tensors = k->n_saved;
    for (uint32_t i = 0; i < k->n_fwd; i++)
        t->flop_fwd += zoo_op_flop(&k->fwd[i]);
    for (uint32_t i = 0; i < k->n_bwd; i++) {
        const struct zoo_op *op = &k->bwd[i];

        if (op->type != ZOO_OP_GEMM)
            continue;
        if (op->gemm.role == ZOO_ROLE_RECOMPUTE)
            t->flop_recompute += zoo_op_flop(op);
        else
            t->flop_bwd += zoo_op_flop(op);
    }
    t->flop = t->flop_fwd + t->flop_bwd + t->flop_recompute;
}

static void *dup_array(const void *src, size_t n, size_t size)
{
    void *p = malloc(n ? n * size : 1);

    if (p && n)
        memcpy(p, src, n * size);
    return p;
}

/* Copy the builder's lists into k, exactly sized. 0 or -ENOMEM. */
static int block_take(struct zoo_block *k, const struct bb *b)
{
    k->fwd = dup_array(b->fwd, b->n_fwd, sizeof(b->fwd[0]));
    k->bwd = dup_array(b->bwd, b->n_bwd, sizeof(b->bwd[0]));
    k->weights = dup_array(b->w, b->n_w, sizeof(b->w[0]));
    k->saved = dup_array(b->saved, b->n_saved, sizeof(b->saved[0]));
    if (!k->fwd || !k->bwd || !k->weights || !k->saved)
        return -ENOMEM;
    k->n_fwd = b->n_fwd;
    k->n_bwd = b->n_bwd;
    k->n_weights = b->n_w;
    k->n_saved = b->n_saved;
    block_totals(k, b->x.topk);
    return 0;
}

const struct block_def zoo_gpt_blocks[ZOO_GPT_BLOCKS] = {
    {ZOO_BLOCK_EMBED, "embed", false, false, "wte", "d_wte", false, true},
    {ZOO_BLOCK_DECODER, "decoder", true, false, NULL, NULL, false, false},
    {ZOO_BLOCK_HEAD, "head", false, false, "wte", "d_wte", true, false},
};

const struct block_def zoo_t5_blocks[ZOO_T5_BLOCKS] = {
    {ZOO_BLOCK_EMBED, "enc_embed", false, true, "shared", "d_shared", false, false},
    {ZOO_BLOCK_ENCODER, "encoder", true, true, NULL, NULL, false, false},
    {ZOO_BLOCK_ENC_NORM, "enc_norm", false, true, NULL, NULL, false, false},
    {ZOO_BLOCK_EMBED, "dec_embed", false, false, "shared", "d_shared", true, false},
    {ZOO_BLOCK_CROSS_DECODER, "decoder", true, false, NULL, NULL, false, false},
    {ZOO_BLOCK_HEAD, "head", false, false, "shared", "d_shared", true, false},
};

/* A Hugging Face decoder: rotary positions (no table), the LM head tied or its own; a
 * mixture's first dense_layers with a dense FFN (DeepSeek) in a block of their own. */
const struct block_def zoo_hf_blocks[ZOO_HF_BLOCKS] = {
    {ZOO_BLOCK_EMBED, "embed", false, false, "embed_tokens", "d_embed_tokens", false, false},
    {ZOO_BLOCK_DECODER, "dense_decoder", true, false, NULL, NULL, false, false},
    {ZOO_BLOCK_DECODER, "decoder", true, false, NULL, NULL, false, false},
    {ZOO_BLOCK_HEAD, "head", false, false, "lm_head", "d_lm_head", false, false},
};

int zoo_build_block(struct zoo_block *k, const struct block_def *def, const struct zoo_shape *sh,
                    const struct style *st, const struct dims *x)
{
    struct bb *b = calloc(1, sizeof(*b));
    int rc;

    if (!b)
        return -ENOMEM;
    b->kind = def->kind;
    b->st = st;
    b->x = *x;
    switch (def->kind) {
    case ZOO_BLOCK_EMBED:
        embed_block(b, def);
        break;
    case ZOO_BLOCK_DECODER:
    case ZOO_BLOCK_ENCODER:
        layer_block(b);
        break;
    case ZOO_BLOCK_ENC_NORM:
        enc_norm_block(b);
        break;
    case ZOO_BLOCK_CROSS_DECODER:
        cross_decoder_block(b);
        break;
    case ZOO_BLOCK_HEAD:
        if (sh->family == ZOO_HF && !def->tied)
            sliced_head_block(b);
        else
            head_block(b, def);
        break;
    }
    k->kind = def->kind;
    k->name = def->name;
    k->repeat = def->repeat ? (def->enc ? sh->enc_layers : sh->dec_layers) : 1;
    rc = block_take(k, b);
    free(b);
    return rc;
}
