/*
 * dma: C interface to the verilated tensor-buffer DMA (rtl/dma/dma_top.v). Functions are
 * prefixed dma_rtl_ (the C twin, models/dma/dma_twin.h, has the same shape as dma_twin_).
 *
 * Ports are the plain C structs of models/dma/dma_if.h (struct dma_in / dma_out), shared
 * with the twin so that tests can run both in lockstep. Descriptor fields wider than their
 * ports are truncated (dma_desc_fits() says whether they fit).
 *
 * Cycle protocol, as for every shim: dma_rtl_set() drives the inputs, dma_rtl_get() settles
 * the model and reads the outputs that hold before the next rising edge, dma_rtl_step()
 * advances whole cycles. A beat moves at a rising edge where valid && ready were both high.
 */
#ifndef CSIM_SHIM_DMA_H
#define CSIM_SHIM_DMA_H

#include "csim/shim/vtrace.h"
#include "models/dma/dma_if.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dma_rtl;

/* seed randomizes the model's initial state (--x-initial unique). */
struct dma_rtl *dma_rtl_create(uint64_t seed);
void dma_rtl_destroy(struct dma_rtl *p);
/* The parameters the model was verilated with. */
void dma_rtl_params(const struct dma_rtl *p, struct dma_params *out);
void dma_rtl_set(struct dma_rtl *p, const struct dma_in *in);
void dma_rtl_get(struct dma_rtl *p, struct dma_out *out);
void dma_rtl_step(struct dma_rtl *p, uint64_t cycles);
uint64_t dma_rtl_cycle(const struct dma_rtl *p);
/* Start an FST trace (see vtrace.h); 0 or a negative errno. */
int dma_rtl_trace(struct dma_rtl *p, const struct vtrace_opts *opts);

#ifdef __cplusplus
}
#endif

#endif
