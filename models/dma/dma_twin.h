/*
 * dma_twin: the cycle-exact C twin of the tensor-buffer DMA (rtl/dma/dma_top.v).
 *
 * Contract
 * --------
 * Modelled: every register of the RTL and the combinational logic between them, evaluated once
 * per clock cycle, so that for the same parameters and the same inputs every cycle, the twin's
 * outputs equal the RTL's in every cycle (tests run both in lockstep). Hence the same
 * descriptors give the same bytes, the same memory requests in the same cycles, and the same
 * completion cycle counts, under any memory timing.
 * The interface is the shim's (csim/shim/dma.h): dma_twin_set() holds the inputs,
 * dma_twin_get() reads the outputs (which depend only on state), dma_twin_step() clocks.
 * The twin also checks what the RTL asserts about its environment (the SRAM's response
 * latency, a read response with nowhere to go, an acknowledgement with no write outstanding): a
 * violation is counted and described in dma_twin_error(). Not modelled: registers the RTL never
 * reads before writing (their reset-time contents are random in the RTL and zero here; no output
 * depends on them). Units: clock cycles.
 */
#ifndef MODELS_DMA_DMA_TWIN_H
#define MODELS_DMA_DMA_TWIN_H

#include "csim/err.h"
#include "csim/shim/dma.h"
#include "models/dma/dma_desc.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dma_twin;

/* 0, or -EINVAL with the reason in e (the RTL rejects the same combinations at
 * elaboration), or -ENOMEM. */
int dma_twin_create(const struct dma_params *p, struct dma_twin **out, struct err *e);
void dma_twin_destroy(struct dma_twin *t);
void dma_twin_params(const struct dma_twin *t, struct dma_params *out);

void dma_twin_set(struct dma_twin *t, const struct dma_in *in);
void dma_twin_get(struct dma_twin *t, struct dma_out *out);
void dma_twin_step(struct dma_twin *t, uint64_t cycles);
uint64_t dma_twin_cycle(const struct dma_twin *t);

/* Environment violations seen so far, and the first one's description ("" if none). */
uint64_t dma_twin_errors(const struct dma_twin *t);
const char *dma_twin_error(const struct dma_twin *t);

#ifdef __cplusplus
}
#endif

#endif
