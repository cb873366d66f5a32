/*
 * zoo_priv: what the zoo's files share (not an interface).
 *   zoo.c         names, the paper's Table 3, a model from its spec or config.json, its totals
 *   zoo_blocks.c  the block builder: the operations, weights and saved tensors of every
 *                 sublayer (attention, latent attention, FFN, mixture of experts, the LM head)
 *                 and block, per family
 *   zoo_route.c   a mixture's routing: uniform or skewed, its experts in groups
 *   zoo_hf.c      a Hugging Face config.json's shape (zoo_hf.h)
 */
#ifndef MODELS_ZOO_ZOO_PRIV_H
#define MODELS_ZOO_ZOO_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "models/zoo/zoo.h"

/* The families differ in these only (README: "The two families", "Hugging Face models"). */
struct style {
    bool fused_qkv;          /* GPT: one QKV GEMM; T5 and LLaMA: separate q, k, v */
    bool qkv_bias, out_bias; /* biases on the Q, K, V projections, on the output projection */
    bool mlp_bias;           /* ... on the FFN's two projections */
    bool rope;               /* rotary positions on the queries and keys (LLaMA) */
    bool gated;              /* SwiGLU: gate and up projections as one GEMM (LLaMA) */
    bool shared_gate;        /* a mixture's shared experts scaled by a gate (Qwen2-MoE) */
    enum zoo_vec_kind norm, norm_bwd;
    enum zoo_vec_kind act, act_bwd;
};

/* The sizes every op is made of. */
struct dims {
    uint64_t t;     /* tokens per core: batch x seq */
    uint64_t s;     /* tokens per sequence */
    uint64_t bh;    /* attention GEMMs of one kind per layer: batch x heads */
    uint64_t d;     /* d_model */
    uint64_t inner; /* heads x d_head */
    uint64_t kv;    /* kv_heads x d_head: the K and V projections' width */
    uint64_t dh;    /* d_head */
    uint64_t ff;    /* d_ff */
    uint64_t up;    /* the up projection's width: d_ff, or 2 x d_ff gated (a mixture: its shared
                       experts', 0 without) */
    uint64_t e;     /* a mixture's experts (0: a dense FFN) */
    uint64_t topk;  /* experts_per_tok */
    uint64_t tk;    /* tokens x experts_per_tok: the rows the experts compute */
    uint64_t fe;    /* an expert's d_ff */
    uint64_t heads;
    uint64_t dqk, dv;      /* a head's query and key width, its value width: d_head, but latent
                              attention's */
    uint64_t ql, kl, rope; /* latent attention: the latents' widths (kl 0: none), the rotary
                              part of a head's queries and keys */
    uint32_t groups;       /* the experts' groups (zoo_shape) */
    uint64_t gn[ZOO_EXPERT_GROUPS]; /* a group's experts */
    uint64_t gm[ZOO_EXPERT_GROUPS]; /* ... and tokens each */
    uint64_t vocab;
};

/* What a model is made of, in forward order. */
struct block_def {
    enum zoo_block_kind kind;
    const char *name;
    bool repeat;         /* one instance per layer of its stack */
    bool enc;            /* the stack: encoder (T5), else decoder */
    const char *table;   /* EMBED, HEAD: the embedding table */
    const char *d_table; /* its gradient */
    bool tied, positions;
};

#define ZOO_GPT_BLOCKS 3
#define ZOO_T5_BLOCKS  6
#define ZOO_HF_BLOCKS  4
#define ZOO_HF_DENSE   1 /* zoo_hf_blocks' dense layers, left out without them */
extern const struct block_def zoo_gpt_blocks[ZOO_GPT_BLOCKS], zoo_t5_blocks[ZOO_T5_BLOCKS],
    zoo_hf_blocks[ZOO_HF_BLOCKS];
extern const struct style zoo_gpt_style, zoo_t5_style;
/* A Hugging Face decoder's style: its biases and experts from its config. */
struct style zoo_hf_style(const struct zoo_shape *sh);

/* Block k of def on shape sh in style st at sizes x: its operation lists, weights, saved
 * tensors and totals; 0 or -ENOMEM. */
int zoo_build_block(struct zoo_block *k, const struct block_def *def, const struct zoo_shape *sh,
                    const struct style *st, const struct dims *x);

/* The experts' tokens per core of sh's routing, t tokens a core, into sh's groups; 0 or
 * -ENOMEM. */
int zoo_route_groups(struct zoo_shape *sh, uint64_t t);

#endif
