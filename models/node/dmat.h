/*
 * dmat: the timing of the Activation Node's DMA, taken from its cycle-exact C twin.
 *
 * Contract
 * --------
 * Modelled: the number of DMA clock cycles a descriptor takes, from the cycle the DMA takes it
 * (offered at once, its queue empty) to the cycle its completion comes out (taken at once), as
 * the DMA twin (models/dma/dma_twin, cycle-exact with rtl/dma) reports it when it runs the
 * descriptor alone against the node's tensor buffer model (its DDR4 channels, dram_cfg) and
 * the core's SRAM port (latency and size of the core's DMA map; always ready, as the core is
 * when no GEMM runs).
 * Every DMA command starts with the tensor buffer's channels idle (dram_idle): a command's
 * cycles are a function of its descriptor alone, at its real tensor-buffer and SRAM addresses.
 * The node's RTL backend (models/node/an_be_rtl.c) runs the verilated DMA under the same
 * rule, so rtl, lockstep and tlm give the same cycles for every command (lockstep checks it).
 * Results are memoised by the descriptor (its tensor-buffer address modulo the channel
 * interleave span, channels x interleave_bytes, which determines the timing exactly; dmat.c),
 * so a training run, which repeats its transfers every step, simulates each one once.
 * Deterministic: the same descriptor always gives the same cycles.
 * Not modelled: contention for the tensor buffer with the flash, the fabric or the vector unit
 * (each transfer is timed as if alone: the channels idle when it starts), the DMA's descriptor
 * queue (the node issues one descriptor at a time), a DMA overlapping a GEMM (the core would
 * hold its port back).
 * Units: cycles of the DMA clock (the core clock).
 */
#ifndef MODELS_NODE_DMAT_H
#define MODELS_NODE_DMAT_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "csim/shim/core.h"
#include "csim/shim/dma.h"
#include "models/dram/dram.h"

struct dmat;

/* params: the DMA's parameters; sram_bytes is the size of the core's DMA map. tb: the timing of
 * the node's tensor buffer (its size is raised to params->tb_bytes if below; NULL: the
 * defaults of dram_cfg_default). 0, -EINVAL or -ENOMEM. */
int dmat_create(const struct dma_params *params, const struct dram_cfg *tb, uint64_t period_ps,
                struct dmat **out, struct err *e);
/* The same for the DMA of a core with parameters core: its SRAM map is the core's DMA map
 * (A-, B- and C-pad), its SRAM latency the core's; tb_bytes is tb's size. */
int dmat_create_core(const struct dma_params *params, const struct core_params *core,
                     const struct dram_cfg *tb, uint64_t period_ps, struct dmat **out,
                     struct err *e);
void dmat_destroy(struct dmat *t);

/* Cycles of descriptor d (an error for a descriptor the DMA rejects). */
int dmat_cycles(struct dmat *t, const struct dma_desc *d, uint64_t *cycles, struct err *e);

/* The DMA's parameters the timing is taken with (the node's RTL DMA must have the same). */
const struct dma_params *dmat_params(const struct dmat *t);

/* Distinct descriptors simulated, and lookups answered from the memo. */
uint64_t dmat_simulated(const struct dmat *t);
uint64_t dmat_hits(const struct dmat *t);

#endif
