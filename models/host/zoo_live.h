/*
 * zoo_live: what one core holds in its SRAM while it runs a block's operation list the way
 * weight streaming runs it: the sequence's activations and activation gradients stay on chip
 * from the operation that makes them (or the LOAD that brings them back from the V stream) to
 * the last one that reads them; weights and weight gradients stream through and are not held.
 *
 * Contract
 * --------
 * Modelled: a tensor by its base name (the part before the first '.': "qkv.q" is part of
 * "qkv"); its size the sum of its parts as the operations make them, bf16 (2 B an element); a
 * tensor read but not made in the list (the layer's input x, the incoming gradient dy) held from
 * the start, one made but not read (the output y, dx) held to the end. The attention core runs
 * head by head (as its softmax does row by row): a tensor of one row per query and one column
 * per key (scores, probabilities and their gradients) is held one head at a time.
 * Not modelled: the array's fp32 accumulators (in the PEs), the stream buffers of the GEMM being
 * run (the compiler adds them), alignment.
 * Units: bytes per core.
 */
#ifndef MODELS_HOST_ZOO_LIVE_H
#define MODELS_HOST_ZOO_LIVE_H

#include <stdint.h>

#include "csim/err.h"
#include "models/zoo/zoo.h"

#define ZOO_LIVE_MAX_TENSORS 64 /* distinct tensors of one operation list */

/*
 * live[i] = bytes one core holds while ops[i] runs, for the n operations of one block's
 * forward or backward list; seq = tokens of one sequence (a per-head tensor is seq x seq).
 * 0, or -EINVAL naming the list's tensor that overflowed ZOO_LIVE_MAX_TENSORS.
 */
int zoo_live(const struct zoo_op *ops, uint32_t n, uint64_t seq, uint64_t *live, struct err *e);

/* Bytes one core holds of vector operation v's output (seq as above). */
uint64_t zoo_live_vec_bytes(const struct zoo_vec *v, uint64_t seq);

#endif
