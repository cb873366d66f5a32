/*
 * dma_time: the timing of the Activation Node's DMA, taken from its cycle-exact C twin.
 *
 * Contract
 * --------
 * Modelled: the number of DMA clock cycles a descriptor takes, from the cycle the DMA takes it
 * (offered at once, its queue empty) to the cycle its completion comes out (taken at once), as
 * the DMA twin (models/dma/dma_twin, cycle-exact with rtl/dma) reports it when it runs the
 * descriptor against a node's tensor buffer (a dram model: its DDR4 channels, their state at
 * the command's start) and the core's SRAM port (latency and size of the core's DMA map;
 * always ready, as the core is when no GEMM runs).
 * dma_time_run: the command starts at `now` on the node's buffer as the node's other agents left
 * it (flash reads and writes, fabric transfers, the vector unit: claims made before this call,
 * first come first served, csim/res.h). The buffer's port maps the command's cycle 0 to now
 * (dram_port_set_time), so the DMA claims the channels at the times its beats move, and a
 * channel busy with another agent's bytes delays it. The node's RTL backend
 * (models/an/an_be_rtl.c) runs the verilated DMA the same way on the same buffer, so rtl,
 * lockstep and tlm give the same cycles for every command (lockstep checks it).
 * The twin times the command on no data (the port is timing only while it runs): its timing
 * does not depend on the bytes; the node moves them itself (models/node/anode.h).
 * Memo, exact: a command takes the cycles, and leaves the buffer's timing as, the first command
 * met with the same key did, shifted to its own start (dram_run_replay, models/dram/dram.h).
 * The key is the descriptor (its tensor-buffer address modulo channels x interleave_bytes: the
 * timing depends on the address only through that residue, dma_time.c) and, per channel, how long
 * after the start the channel stays busy with what came before (0: free): the whole timing
 * state of a busy-until channel. Nothing else claims the buffer while a command runs (it is
 * timed in one call), so the same key meets the same waits. A training step repeats its
 * transfers and, mostly, their neighbours, so most commands are answered from the memo; the
 * memo holds at most 65536 runs (then the twin runs every new key).
 * dma_time_cycles: the descriptor alone, on the timing's own buffer from the time all its channels
 * are free (the compiler's perf timing, models/host/compile_zoo.c).
 * Deterministic: the same descriptor on the same buffer state gives the same cycles.
 * Not modelled: the DMA's descriptor queue (the node issues one descriptor at a time), a DMA
 * overlapping a GEMM (the core would hold its port back), another agent's access that would
 * arrive while the command runs (it is timed after it, in call order).
 * Units: cycles of the DMA clock (the core clock).
 */
#ifndef MODELS_DMA_DMA_TIME_H
#define MODELS_DMA_DMA_TIME_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "csim/shim/core.h"
#include "csim/shim/dma.h"
#include "models/dram/dram.h"
#include "models/dram/dram_port.h"

struct dma_time;

/* params: the DMA's parameters; sram_bytes is the size of the core's DMA map. tb: the timing of
 * the node's tensor buffer (its size is raised to params->tb_bytes if below; NULL: the
 * defaults of dram_cfg_default). 0, -EINVAL or -ENOMEM. */
int dma_time_create(const struct dma_params *params, const struct dram_cfg *tb, uint64_t period_ps,
                    struct dma_time **out, struct err *e);
/* The same for the DMA of a core with parameters core: its SRAM map is the core's DMA map
 * (A-, B- and C-pad), its SRAM latency the core's; tb_bytes is tb's size. */
int dma_time_create_core(const struct dma_params *params, const struct core_params *core,
                         const struct dram_cfg *tb, uint64_t period_ps, struct dma_time **out,
                         struct err *e);
void dma_time_destroy(struct dma_time *t);

/* Cycles of descriptor d started at now on tensor buffer tb, through its port (a port of tb
 * with the timing's clock period and nothing pending; its requester is the DMA's), claiming
 * tb's channels. An error for a descriptor the DMA rejects or a tb whose timing is not the
 * one the timing was created with (-EINVAL). */
int dma_time_run(struct dma_time *t, const struct dma_desc *d, struct dram_port *port,
                 struct dram *tb, uint64_t now, uint64_t *cycles, struct err *e);
/* Cycles of descriptor d alone (an error for a descriptor the DMA rejects). */
int dma_time_cycles(struct dma_time *t, const struct dma_desc *d, uint64_t *cycles, struct err *e);

/* The DMA's parameters the timing is taken with (the node's RTL DMA must have the same). */
const struct dma_params *dma_time_params(const struct dma_time *t);

/* Commands run on the twin (a descriptor and buffer state not met before), commands answered
 * from the memo, and commands that found a tensor-buffer channel busy at their start (either
 * way). */
uint64_t dma_time_simulated(const struct dma_time *t);
uint64_t dma_time_hits(const struct dma_time *t);
uint64_t dma_time_contended(const struct dma_time *t);

#endif
