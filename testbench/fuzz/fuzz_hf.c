/*
 * fuzz_hf: the Hugging Face config.json reader (models/zoo/zoo_hf) on any file. A file is
 * either read or refused with a message; one that is read gives a shape the zoo can build:
 * every size within its limit, K and V heads dividing the heads, an even head size, a
 * mixture's experts a token uses at most their number, the ignored fields' list a terminated
 * string.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/zoo/zoo_hf.h"
#include "testbench/fuzz/scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zoo_shape sh;
    struct err e = {{0}};
    char ignored[64];
    const char *path = scratch_write(data, size);

    if (zoo_hf_read(path, 2048, &sh, ignored, sizeof(ignored), &e)) {
        if (!e.msg[0])
            abort(); /* a refusal says why */
        return 0;
    }
    if (sh.family != ZOO_HF || !sh.d_model || sh.d_model > ZOO_HF_MAX_DIM || !sh.d_ff ||
        sh.d_ff > ZOO_HF_MAX_DIM || !sh.dec_layers || sh.dec_layers > ZOO_HF_MAX_LAYER ||
        !sh.heads || sh.heads > ZOO_HF_MAX_HEADS || !sh.kv_heads || sh.heads % sh.kv_heads ||
        !sh.d_head || sh.d_head % 2 || !sh.vocab || sh.vocab > ZOO_HF_MAX_VOCAB ||
        sh.max_positions < 2048 || strnlen(ignored, sizeof(ignored)) == sizeof(ignored) ||
        (sh.experts && (!sh.experts_per_tok || sh.experts_per_tok > sh.experts || !sh.d_expert)))
        abort();
    return 0;
}
