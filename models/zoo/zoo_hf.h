/*
 * zoo_hf: a model's shape from its Hugging Face config.json (the file every model on the hub
 * ships), for the zoo to build (zoo_build_with, a path ending in ".json").
 *
 * Contract
 * --------
 * Read: the dense decoders LlamaForCausalLM, MistralForCausalLM and Qwen2ForCausalLM, and the
 * mixtures of experts MixtralForCausalLM, Qwen2MoeForCausalLM and DeepseekV3ForCausalLM (the
 * first name of `architectures`). Their fields that shape an iteration:
 *   hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, vocab_size
 *                           required, positive integers within the limits below
 *   num_key_value_heads     default num_attention_heads; must divide it (grouped-query: fewer)
 *   head_dim                default hidden_size / num_attention_heads (which must divide then)
 *   hidden_act              "silu" (a SwiGLU FFN, the only one these architectures have)
 *   tie_word_embeddings     default false: the LM head is a table of its own
 *   attention_bias          LLaMA and Mistral: biases on Q, K, V and the output (default false);
 *                           Qwen2 has them on Q, K and V always
 *   mlp_bias                LLaMA: biases on the FFN's projections (default false)
 *   max_position_embeddings the longest sequence: a longer one is refused
 *   sliding_window          Mistral and Mixtral, and Qwen2 with use_sliding_window: a sequence
 *                           longer than the window is refused (banded attention is not modelled)
 *   num_local_experts       Mixtral: its experts, each of intermediate_size
 *   num_experts, moe_intermediate_size, shared_expert_intermediate_size
 *                           Qwen2-MoE: its experts, their size, its shared expert's (0: none)
 *   num_experts_per_tok     the experts a token is routed to, at most their number
 *   decoder_sparse_step, mlp_only_layers
 *                           Qwen2-MoE: 1 and [] (every layer a mixture), else refused
 * Every other field does not change the timing (norm epsilons, rotary base and scaling, token
 * ids, dtype: the machine computes in bf16) and is listed in `ignored`, never dropped silently.
 *   n_routed_experts, n_shared_experts, first_k_dense_replace, moe_layer_freq
 *                           DeepSeek: its experts (of moe_intermediate_size), its shared ones,
 *                           its first layers' dense FFN (of intermediate_size); freq 1
 *   q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim
 *                           DeepSeek's latent attention: all required, no attention_bias
 * Errors: -EINVAL naming the file, the field, its value and what is accepted; -ENOENT (the file
 * cannot be read); -ENOMEM.
 */
#ifndef MODELS_ZOO_ZOO_HF_H
#define MODELS_ZOO_ZOO_HF_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/zoo/zoo.h"

#define ZOO_HF_MAX_FILE  (1u << 20) /* a config.json is a few KB */
#define ZOO_HF_MAX_DIM   (1u << 20) /* hidden_size, intermediate_size, head_dim */
#define ZOO_HF_MAX_HEADS 4096u
#define ZOO_HF_MAX_LAYER 4096u
#define ZOO_HF_MAX_VOCAB (1u << 24)

/* Fill sh from the config.json at path for sequences of seq tokens: family ZOO_HF, size 1 x 1,
 * its sizes, architecture and flags; ignored (len bytes) gets the ignored fields' names,
 * ", "-separated (truncated with "..." if they do not fit). 0 or -errno (above). */
int zoo_hf_read(const char *path, uint32_t seq, struct zoo_shape *sh, char *ignored, size_t len,
                struct err *e);

#endif
