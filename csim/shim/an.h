/*
 * an: C interface to the verilated Activation Node datapath (rtl/an/an_top.v): the
 * tensor-buffer DMA and the compute core joined at the core's DMA port. Functions are
 * prefixed an_rtl_.
 *
 * Ports: the DMA's descriptor, completion and tensor-buffer ports (the structs of the DMA's shim,
 * csim/shim/dma.h, and of csim/shim/mem_port.h) and the core's command and completion ports
 * (struct core_cmd, enum core_status of the core's shim, csim/shim/core.h): an_top's ports
 * are those of its two blocks. The SRAM port between them is inside.
 *
 * Cycle protocol, as for every shim: an_rtl_set() drives the inputs, an_rtl_get() settles the
 * model and reads the outputs that hold before the next rising edge, an_rtl_step() advances
 * whole cycles.
 */
#ifndef CSIM_SHIM_AN_H
#define CSIM_SHIM_AN_H

#include "csim/shim/core.h"
#include "csim/shim/dma.h"
#include "csim/shim/mem_port.h"
#include "csim/shim/vtrace.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct an_rtl;

struct an_params {
    struct core_params core; /* Rows, Cols, AWords, BWords, CWords */
    struct dma_params dma;   /* as an_top sets them: SramAddrW 32, SramBytes = map end,
                                SramLat 2 */
};

struct an_in {
    bool rst;
    /* DMA */
    bool desc_valid;
    struct dma_desc desc;
    bool cpl_ready;
    struct mem_port_rsp mem;
    /* core */
    bool cmd_valid;
    struct core_cmd cmd;
    bool done_ready;
};

struct an_out {
    /* DMA */
    bool desc_ready;
    bool cpl_valid;
    struct dma_cpl cpl;
    struct mem_port_req mem;
    bool dma_idle;
    /* The DMA's request to the core's DMA port, inside an_top (observed, not a port): what the
     * DMA writes into or reads from the pads this cycle. */
    struct dma_sram_req sram;
    /* core */
    bool cmd_ready;
    bool done_valid;
    enum core_status done_status;
    uint32_t done_cycles;
    bool busy;
};

/* seed randomizes the model's initial state, pads included (--x-initial unique). */
struct an_rtl *an_rtl_create(uint64_t seed);
void an_rtl_destroy(struct an_rtl *p);
void an_rtl_params(const struct an_rtl *p, struct an_params *out);
void an_rtl_set(struct an_rtl *p, const struct an_in *in);
void an_rtl_get(struct an_rtl *p, struct an_out *out);
void an_rtl_step(struct an_rtl *p, uint64_t cycles);
uint64_t an_rtl_cycle(const struct an_rtl *p);
/* Start an FST trace (see vtrace.h); 0 or a negative errno. */
int an_rtl_trace(struct an_rtl *p, const struct vtrace_opts *opts);
/* Finish the FST trace: close it and rename it into place; 0 (also when none is open) or a
 * negative errno (the rename failed: nothing is left under the temporary name). */
int an_rtl_trace_close(struct an_rtl *p);

#ifdef __cplusplus
}
#endif

#endif
