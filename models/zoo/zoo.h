/*
 * zoo: the transformer workloads of the Behemoth paper (FAST '21, Table 3) as shapes: what one
 * training iteration on one core computes, stores and streams, for a compiler to walk.
 *
 * Contract
 * --------
 * Modelled: two families, each at the paper's sizes W x D (W multiplies every layer's width,
 * D the number of layers), with a batch of sequences per core:
 *     "gpt3-like:WxD"   GPT-3 175B at 1x1: a decoder-only stack (d_model 12288, 96 layers, 96
 *                       heads of 128, FFN 4 x d_model, vocabulary 50257, learned positions)
 *     "t5-like:WxD"     an encoder-decoder at GPT-3's width: 36 encoder + 36 decoder layers,
 *                       the decoder's with cross-attention (shape derived from Table 3)
 * W and D are each 1, 2 or 4; every sequence is ZOO_SEQ tokens (the T5-like's encoder input and
 * decoder target both) unless zoo_build_with says otherwise. models/zoo/README.md gives every
 * value's source. And any dense decoder of the Hugging Face hub from its config.json
 * (models/zoo/zoo_hf.h: LLaMA, Mistral, Qwen2, and the mixtures of experts Mixtral and
 * Qwen2-MoE): grouped-query attention, rotary positions, RMSNorm, a SwiGLU FFN (its gate and
 * up projections one GEMM) or a mixture of SwiGLU experts with top-k routing (every expert
 * given the same tokens: t x k / experts, rounded up) and shared experts, untied or tied
 * embeddings.
 * A model is a short list of blocks (embedding, a layer kind with a repeat count, the head),
 * so its memory does not grow with D or W: a block is described once, per instance. A block
 * holds its weight tensors, the activations it saves to flash in forward (the V stream) for its
 * backward, and two operation lists, forward and backward, in program order:
 *   - GEMMs C[m x n] = A[m x k] B[k x n], `count` of them (batch x heads for attention), each
 *     with its kind (QKV, scores, ...), its role (forward; the gradient of A or of B; or a
 *     recompute in backward) and its three operands (activation, saved activation read back,
 *     weight streamed from the Weight Node, activation gradient, weight gradient), by name;
 *   - vector-unit operations on rows x cols elements (norms, softmax, GELU/ReLU, residual adds,
 *     embedding gather/scatter, the loss);
 *   - SAVE (forward) and LOAD (backward) of a named activation, in bytes.
 * Backward = 2 x forward for every GEMM: each forward GEMM has a gradient of A and one of B of
 * the same m*n*k. The attention core (scores, softmax, attention x V) is not saved but run
 * again in backward (recompute), as Megatron-LM's selective recomputation does.
 * Not modelled: numerics, dropout (off, as in GPT-3's and T5's large runs), the optimizer and
 * the reduction of weight gradients (every weight's gradient is reduced once per iteration at
 * the Weight Node; the compiler adds them), T5's relative position bias weights (32 x heads per
 * stack: an add folded into the softmax), the token ids and labels (8 B per token, kept in the
 * tensor buffer).
 * Units: elements; bytes (bf16 weights and activations, 2 B; a norm's saved output carries its
 * fp32 1/sigma per row, 4 B); FLOP, a multiply-add counting 2 (a GEMM: 2 m n k per instance).
 * Errors: functions that act return 0 or -errno and write one line into a struct err.
 */
#ifndef MODELS_ZOO_ZOO_H
#define MODELS_ZOO_ZOO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"

#define ZOO_SEQ           2048u    /* tokens per sequence, every model (paper, Table 3) */
#define ZOO_MAX_BATCH     64u      /* sequences per core; FLOP stay below 2^64 (4x4: 8.8e18) */
#define ZOO_MAX_SEQ       1048576u /* tokens per sequence */
#define ZOO_EXPERT_GROUPS 4u       /* a skewed routing's groups of experts */
#define ZOO_LOSS_COLS     8192u    /* a Hugging Face model's LM head: vocabulary columns a slice */
#define ZOO_LOSS_SLICES   16u      /* ... and at most this many slices */

enum zoo_family {
    ZOO_GPT3_LIKE,
    ZOO_T5_LIKE,
    ZOO_HF, /* a Hugging Face config.json */
};

enum zoo_block_kind {
    ZOO_BLOCK_EMBED,         /* token (and position) embedding: gather in, scatter-add back */
    ZOO_BLOCK_DECODER,       /* GPT: causal self-attention + FFN */
    ZOO_BLOCK_ENCODER,       /* T5 encoder layer: self-attention + FFN */
    ZOO_BLOCK_ENC_NORM,      /* T5: the encoder's final norm, whose output every decoder
                                layer's cross-attention reads */
    ZOO_BLOCK_CROSS_DECODER, /* T5 decoder layer: causal self-attention, cross-attention, FFN */
    ZOO_BLOCK_HEAD,          /* final norm, LM head (tied to the embedding), loss */
};

enum zoo_op_type {
    ZOO_OP_GEMM,
    ZOO_OP_VEC,
    ZOO_OP_SAVE, /* forward: an activation to the V stream */
    ZOO_OP_LOAD, /* backward (and the cross-attention's forward): one back from it */
};

enum zoo_gemm_kind {
    ZOO_GEMM_QKV, /* fused Q, K, V projection (GPT) */
    ZOO_GEMM_Q,   /* separate projections (T5) */
    ZOO_GEMM_K,
    ZOO_GEMM_V,
    ZOO_GEMM_SCORES,   /* Q K^T, per sequence and head */
    ZOO_GEMM_ATTN_V,   /* softmax(scores) V, per sequence and head */
    ZOO_GEMM_OUT_PROJ, /* attention output projection */
    ZOO_GEMM_XQ,       /* cross-attention: Q from the decoder */
    ZOO_GEMM_XK,       /* K and V from the encoder's output */
    ZOO_GEMM_XV,
    ZOO_GEMM_XSCORES,
    ZOO_GEMM_X_ATTN_V,
    ZOO_GEMM_XOUT_PROJ,
    ZOO_GEMM_FFN_UP, /* a gated FFN's gate and up projections, fused: N = 2 x d_ff */
    ZOO_GEMM_FFN_DOWN,
    ZOO_GEMM_LM_HEAD,     /* logits over the vocabulary */
    ZOO_GEMM_ROUTER,      /* a mixture's router: each token's score of every expert */
    ZOO_GEMM_EXPERT_UP,   /* an expert's gate and up projections, fused, on its tokens */
    ZOO_GEMM_EXPERT_DOWN, /* an expert's down projection */
    ZOO_GEMM_Q_A,         /* latent attention (DeepSeek): the queries into their latent */
    ZOO_GEMM_Q_B,         /* ... and out of it, every head's */
    ZOO_GEMM_KV_A,        /* the keys' and values' latent, and the keys' rotary part */
    ZOO_GEMM_KV_B,        /* every head's keys and values out of the latent */
    ZOO_GEMM_KINDS,
};

/* What a GEMM computes, for the forward GEMM Y = A B of its kind. */
enum zoo_gemm_role {
    ZOO_ROLE_FWD,       /* Y = A B */
    ZOO_ROLE_GRAD_A,    /* dA = dY B^T: m = M, n = K, k = N */
    ZOO_ROLE_GRAD_B,    /* dB = A^T dY: m = K, n = N, k = M (the weight gradient if B is one) */
    ZOO_ROLE_RECOMPUTE, /* Y = A B again in backward (the attention core, not saved) */
};

enum zoo_operand {
    ZOO_OPND_ACT,    /* activation in the tensor buffer, made earlier in this pass */
    ZOO_OPND_SAVED,  /* activation read back from the V stream by a LOAD before */
    ZOO_OPND_WEIGHT, /* weight streamed from the Weight Node */
    ZOO_OPND_GRAD,   /* gradient of an activation */
    ZOO_OPND_WGRAD,  /* gradient of a weight, reduced at the Weight Node */
};

struct zoo_opnd {
    enum zoo_operand role;
    const char *name; /* a weight's, a saved tensor's, or a transient's ("scores") */
};

struct zoo_gemm {
    enum zoo_gemm_kind kind;
    enum zoo_gemm_role role;
    uint64_t m, n, k;
    uint64_t count; /* independent GEMMs of this shape */
    struct zoo_opnd a, b, c;
    bool bias;       /* FWD: adds a bias of n; GRAD_B: also sums dY's columns */
    bool accumulate; /* C += A B (a gradient with several sources) */
    bool experts;    /* each of the count instances has a weight of its own (one per expert of
                        a mixture: the weight operand holds count of them, stacked) */
};

enum zoo_vec_kind {
    ZOO_VEC_LAYERNORM,     /* GPT: (x - mean) / sigma * g + b per row */
    ZOO_VEC_LAYERNORM_BWD, /* from the saved output and 1/sigma; also g's and b's gradients */
    ZOO_VEC_RMSNORM,       /* T5: x / rms * g per row */
    ZOO_VEC_RMSNORM_BWD,   /* from the saved output and 1/rms; also g's gradient */
    ZOO_VEC_SOFTMAX,       /* scale, mask (causal) or position bias, softmax per row */
    ZOO_VEC_SOFTMAX_BWD,
    ZOO_VEC_GELU,
    ZOO_VEC_GELU_BWD,
    ZOO_VEC_RELU,
    ZOO_VEC_RELU_BWD,
    ZOO_VEC_ADD,          /* in + in2: a residual add, a gradient's two sources, positions */
    ZOO_VEC_EMBED,        /* rows gathered from the table */
    ZOO_VEC_EMBED_BWD,    /* rows scatter-added into the table's gradient */
    ZOO_VEC_LOSS,         /* softmax cross-entropy per row, and its gradient (the last op) */
    ZOO_VEC_ROPE,         /* rotary positions: each pair of a query's or key's values rotated */
    ZOO_VEC_ROPE_BWD,     /* the gradient rotated back */
    ZOO_VEC_SWIGLU,       /* silu(gate) x up: rows x cols outputs from rows x 2 cols inputs */
    ZOO_VEC_SWIGLU_BWD,   /* the gradients of gate and up: rows x cols is both (2 x d_ff) */
    ZOO_VEC_ROUTE,        /* softmax over the experts and the top experts_per_tok, per token */
    ZOO_VEC_ROUTE_BWD,    /* the gradient of the router's scores */
    ZOO_VEC_DISPATCH,     /* each token's row copied to the experts it is routed to */
    ZOO_VEC_DISPATCH_BWD, /* their gradients summed back into the token's row */
    ZOO_VEC_COMBINE,      /* the experts' outputs weighted and summed into each token's row */
    ZOO_VEC_COMBINE_BWD,  /* the gradients of the experts' outputs and of the weights */
    ZOO_VEC_LOGSUMEXP,    /* a slice of the logits into each row's running max and exp-sum */
    ZOO_VEC_KINDS,
};

struct zoo_vec {
    enum zoo_vec_kind kind;
    uint64_t rows, cols;
    const char *in, *in2, *out; /* in2: ADD's second input, else NULL */
    const char *weight;         /* the weight it reads (norm scale, embedding table); NULL: none */
    bool recompute;             /* backward: the forward op again (softmax, activation function) */
};

struct zoo_xfer {
    const char *tensor;
    uint64_t bytes;
    enum zoo_block_kind owner; /* the block whose SAVE wrote it (the LOAD's block but for the
                                  encoder output, saved by ZOO_BLOCK_ENC_NORM) */
};

struct zoo_op {
    enum zoo_op_type type;
    union {
        struct zoo_gemm gemm;
        struct zoo_vec vec;
        struct zoo_xfer xfer;
    };
};

struct zoo_weight {
    const char *name;
    uint64_t rows, cols; /* a bias or a norm's scale has rows 1 */
    uint64_t bytes;      /* 2 * rows * cols (bf16) */
    bool tied;           /* the tensor of that name in an earlier block: counted there */
    uint32_t experts;    /* the mixture's experts, of which this weight stacks some (0: a
                            dense weight): a token uses experts_per_tok / experts of it */
};

struct zoo_tensor {
    const char *name;
    uint64_t rows, cols; /* tokens x values */
    uint64_t bytes;      /* 2 * rows * cols, plus 4 * rows for a norm's 1/sigma */
    const char *what;
};

/* Per block instance, or for a whole model (blocks times their repeat). */
struct zoo_totals {
    uint64_t params;        /* weights counted once (tied ones where they are first listed) */
    uint64_t params_active; /* ... of which a token uses (a mixture: its experts_per_tok) */
    uint64_t weight_bytes;  /* 2 * params */
    uint64_t saved_bytes;   /* activations written to the V stream in forward */
    uint64_t saved_tensors;
    uint64_t flop_fwd;       /* forward GEMMs */
    uint64_t flop_bwd;       /* gradient GEMMs: 2 x flop_fwd */
    uint64_t flop_recompute; /* backward GEMMs that redo forward ones */
    uint64_t flop;           /* fwd + bwd + recompute: one training iteration */
};

struct zoo_block {
    enum zoo_block_kind kind;
    const char *name;
    uint32_t repeat; /* consecutive identical instances (the layers) */
    struct zoo_op *fwd, *bwd;
    uint32_t n_fwd, n_bwd;
    struct zoo_weight *weights;
    uint32_t n_weights;
    struct zoo_tensor *saved; /* in the order of their SAVE ops */
    uint32_t n_saved;
    struct zoo_totals per; /* one instance */
};

struct zoo_shape {
    enum zoo_family family;
    uint32_t w, d;  /* the size W x D (a Hugging Face model: 1 x 1) */
    uint32_t batch; /* sequences per core */
    uint32_t seq;   /* tokens per sequence (ZOO_SEQ unless zoo_build_with's) */
    uint64_t d_model, d_ff, heads, d_head, vocab;
    uint64_t kv_heads;                 /* K and V heads: heads, or fewer (grouped-query) */
    uint64_t experts, experts_per_tok; /* a mixture of experts in every layer (0: dense) */
    uint64_t d_expert, d_shared;       /* an expert's d_ff; the shared experts' (0: none) */
    double zipf;                       /* the routing's skew (0: uniform) */
    uint32_t dense_layers;             /* a mixture's first layers with a dense FFN of d_ff */
    /* latent attention (DeepSeek; kv_lora 0: none): the latents' widths, a head's query and key
     * width without and with rotation, and its value width */
    uint64_t q_lora, kv_lora, qk_nope, qk_rope, v_head;
    /* the experts in groups of equal tokens per core (uniform: one), most used first; each
     * group's experts run at its most used one's tokens */
    uint32_t groups;
    uint64_t group_experts[ZOO_EXPERT_GROUPS], group_tokens[ZOO_EXPERT_GROUPS];
    uint32_t enc_layers, dec_layers; /* GPT3-like: 0 encoder layers */
    /* ZOO_HF only */
    char arch[40];           /* "LlamaForCausalLM", ... */
    bool tied;               /* the LM head is the embedding table */
    bool qkv_bias, out_bias; /* biases on the Q, K, V and on the output projection */
    bool mlp_bias;           /* ... on the FFN's projections */
    uint64_t max_positions;  /* max_position_embeddings: the longest sequence */
};

struct zoo_model {
    char spec[64]; /* "gpt3-like:1x1", or "hf:<file name without .json>" */
    struct zoo_shape shape;
    struct zoo_block *blocks; /* in forward order; backward walks them in reverse */
    uint32_t n_blocks;
    struct zoo_totals total;
    char ignored[512]; /* a config.json's fields that do not change the timing, ", "-separated */
};

/*
 * Build the model of spec ("gpt3-like:WxD" or "t5-like:WxD", W and D in {1, 2, 4}) at batch
 * sequences per core (1..ZOO_MAX_BATCH). 0 and *out (free with zoo_destroy), or -EINVAL with a
 * message naming the spec or batch and what is accepted, or -ENOMEM.
 */
int zoo_build(const char *spec, uint32_t batch, struct zoo_model **out, struct err *e);

/* How a model is built beyond its spec. */
struct zoo_opts {
    uint32_t batch; /* sequences per core, 1..ZOO_MAX_BATCH */
    uint32_t seq;   /* tokens per sequence, 1..ZOO_MAX_SEQ (0: ZOO_SEQ); a Hugging Face
                       model's at most its max_position_embeddings */
    double zipf;    /* a mixture's routing: 0 uniform (every expert t x k / experts tokens),
                       else the i-th most used expert's share of them ~ 1 / i^zipf, in (0, 8] */
};

/* The same with o; spec may also be the path of a Hugging Face config.json (a name ending in
 * ".json"). The iteration's FLOP must stay below 2^64 (-EINVAL otherwise), and a skewed
 * routing needs a mixture of experts. */
int zoo_build_with(const char *spec, const struct zoo_opts *o, struct zoo_model **out,
                   struct err *e);

/* "uniform" (0) or "zipf:S" with S in (0, 8] into *zipf; 0 or -EINVAL naming what is
 * accepted. */
int zoo_routing_parse(const char *text, double *zipf, struct err *e);
/* The same as a yes or no, for an option parser. */
bool zoo_routing_ok(const char *text);

void zoo_destroy(struct zoo_model *m);

/* Bytes of heap the model holds: the same at every W, D and batch of a family. */
size_t zoo_footprint(const struct zoo_model *m);

/* The FLOP comparable to Table 3's PFLOP column: a training iteration (flop) for GPT3-like,
 * the forward pass (flop_fwd) for T5-like, whose column is 2 x parameters x 2048 on all six
 * sizes (models/zoo/README.md). */
uint64_t zoo_table3_flop(const struct zoo_model *m);

/* One row of the paper's Table 3 (copied as printed). */
struct zoo_paper_row {
    const char *spec;
    double act_gb, weight_gb, pflop; /* GB = 1e9 B */
};

#define ZOO_PAPER_ROWS 12
extern const struct zoo_paper_row zoo_paper_table3[ZOO_PAPER_ROWS];

const char *zoo_family_name(enum zoo_family f);
const char *zoo_block_kind_name(enum zoo_block_kind k);
const char *zoo_gemm_kind_name(enum zoo_gemm_kind k);
const char *zoo_gemm_role_name(enum zoo_gemm_role r);
const char *zoo_operand_name(enum zoo_operand o);
const char *zoo_vec_kind_name(enum zoo_vec_kind k);

/* FLOP of one op: 2 m n k count for a GEMM, 0 otherwise. */
uint64_t zoo_op_flop(const struct zoo_op *op);

#endif
