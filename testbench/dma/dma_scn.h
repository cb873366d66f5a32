/*
 * dma_scn: checked DMA scenarios on a dma_env, shared by the twin's unit test, the RTL block
 * test and the benchmark.
 *
 * Contract
 * --------
 * dma_scn_add() fills, with bytes from the scenario's seed, every source row of a descriptor
 * and its whole destination window (the destination region, gaps between rows included,
 * widened by DMA_SCN_GUARD bytes on both sides and clipped to the memory), in the env's
 * memories and in a reference copy of them, then submits the descriptor. After dma_env_run(),
 * dma_scn_check() applies, in order, every descriptor the DMA should have run
 * (dma_desc_check() == OK) to the reference with dma_desc_apply(), and compares: each
 * completion's tag and status (MEM_ERR expected where an OK descriptor touches tensor-buffer
 * bytes beyond the dram's real size; there reads give zeros and writes are dropped, as the
 * dram_port does), then the whole SRAM and every tensor-buffer destination window, byte by
 * byte. So guard bytes, row gaps and the destinations of rejected descriptors must be
 * untouched. A mismatch names the descriptor, the memory, the address and both bytes.
 * Units: bytes.
 */
#ifndef TESTBENCH_ENV_DMA_SCN_H
#define TESTBENCH_ENV_DMA_SCN_H

#include "testbench/dma/dma_env.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DMA_SCN_GUARD 72 /* bytes checked on each side of a destination: a beat and then some */

struct dma_scn;

struct dma_scn_cfg {
    uint64_t seed; /* of the fills and of dma_scn_random */
};

/* A scenario on env e, which must outlive it. -ENOMEM. */
int dma_scn_create(const struct dma_scn_cfg *cfg, struct dma_env *e, struct dma_scn **out,
                   struct err *err);
void dma_scn_destroy(struct dma_scn *s);

/* Fill and submit; 0, -ENOMEM, or -EINVAL if a region to fill is larger than 64 MiB. */
int dma_scn_add(struct dma_scn *s, const struct dma_desc *d, struct err *err);

/* Check every completion and byte so far (see above); 0, or -EIO with the first mismatch in
 * err. The completions checked are removed from the env (dma_env_clear_cpls). */
int dma_scn_check(struct dma_scn *s, struct err *err);

enum dma_scn_kind {
    DMA_SCN_LOAD,  /* plain TB -> SRAM */
    DMA_SCN_STORE, /* plain SRAM -> TB */
    DMA_SCN_XPOSE, /* transposing TB -> SRAM */
    DMA_SCN_ANY,   /* one of the three */
};

/*
 * A random descriptor of a kind that passes dma_desc_check() on the env's parameters: rows
 * 1..max_rows, row length 1..max_len bytes (even for transposes; may come out shorter to fit
 * the SRAM), strides from the row length up to twice it plus 17, addresses at any byte
 * offset; tensor-buffer addresses within tb_window bytes, often just before a 4 KiB boundary.
 * The tag counts up.
 */
void dma_scn_random(struct dma_scn *s, enum dma_scn_kind kind, uint32_t max_rows, uint32_t max_len,
                    uint64_t tb_window, struct dma_desc *out);

/* Descriptors added and bytes they move (OK ones: rows x len). */
size_t dma_scn_count(const struct dma_scn *s);
uint64_t dma_scn_bytes(const struct dma_scn *s);

#ifdef __cplusplus
}
#endif

#endif
