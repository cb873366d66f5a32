/*
 * dram_port: a cycle-level bus-functional model that serves one RTL memory port
 * (rtl/README.md, "Memory port": struct mem_port_req / mem_port_rsp of csim/shim/mem_port.h)
 * from a dram model. Any block with that port shape can use it (the DMA, the NAND write
 * pipeline): it knows nothing of who drives it.
 *
 * Contract
 * --------
 * Modelled, per clock cycle of the block (period_ps; cycle c has its rising edge at
 * c * period_ps, or, after dram_port_set_time(t) in cycle c0, at t + (c - c0) * period_ps: one
 * time base with the memory's other users, so the block claims the channels at real times):
 *   - req_ready is high while fewer than max_outstanding requests are waiting for their
 *     response, and (tests only) unless a seeded random stall holds it low this cycle.
 *   - An accepted request is served at once functionally (a read samples the memory at
 *     acceptance, a write lands at acceptance) and timed by dram_access() as an 8-byte access
 *     at c * period_ps. Its response is due in the first cycle whose edge is at or after the
 *     time dram_access returns, and at least one cycle after acceptance.
 *   - Responses come back in request order, one per request (the write response is the
 *     acknowledgement); a due response is presented with rsp_valid until the block takes it
 *     (rsp_ready), unless (tests only) a seeded random stall holds it back for a cycle.
 *   - Timing-only (dram_port_set_nodata): reads return 0 and writes are dropped; the timing is
 *     the same (a block timed on data it does not have: models/dma/dma_time.h).
 *   - An address outside the memory, or not a multiple of 8, gets an error response (err = 1,
 *     rdata = 0) after latency_ps; it touches neither contents nor channel time.
 * All outputs of a cycle depend only on the port's state (nothing combinational from the
 * block's outputs), so the block's ready and valid may depend on them freely.
 * Not modelled: anything of the memory beyond dram.h's contract.
 * Units: cycles of the block's clock, picoseconds.
 *
 * Use, every cycle: dram_port_drive() gives the inputs of the block for this cycle; after the
 * block has settled its outputs, dram_port_clock() takes them and advances to the next cycle.
 */
#ifndef MODELS_DRAM_DRAM_PORT_H
#define MODELS_DRAM_DRAM_PORT_H

#include "csim/shim/mem_port.h"
#include "models/dram/dram.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dram_port_cfg {
    uint64_t period_ps;       /* the block's clock period: 1250 ps default (0.8 GHz core
                                 clock, derived from the paper) */
    unsigned max_outstanding; /* requests accepted, response not yet taken: 64 (ours) */
    unsigned req_stall_pct;   /* tests: % of cycles req_ready is held low; 0 default */
    unsigned rsp_stall_pct;   /* tests: % of cycles a due response is held back; 0 default */
    uint64_t seed;            /* for the stalls */
    const char *name;         /* requester name in the dram's statistics */
};

struct dram_port_stats {
    uint64_t cycles;
    uint64_t reads, writes, errors;
    uint64_t req_stall_cycles; /* valid && !ready */
    uint64_t rsp_wait_cycles;  /* a response was due but held back or not taken */
    uint64_t max_pending;
};

struct dram_port;

void dram_port_cfg_default(struct dram_port_cfg *c);
/* A port of memory d: 0, -EINVAL (bad cfg) or -ENOMEM / -ENOSPC (no requester id left). */
int dram_port_create(const struct dram_port_cfg *cfg, struct dram *d, struct dram_port **out,
                     struct err *e);
void dram_port_destroy(struct dram_port *p);

/* The port's outputs for the current cycle. */
void dram_port_drive(struct dram_port *p, struct mem_port_rsp *out);
/* The rising edge: take the block's request if valid && ready, retire the response if
 * rsp_valid && rsp_ready (as driven this cycle), advance one cycle. */
void dram_port_clock(struct dram_port *p, const struct mem_port_req *in);

/* Advance `cycles` cycles in which the block offers no request, for a port with nothing
 * pending and no stalls configured: what drive and clock would do then, at once (for a
 * caller that serves many mostly idle ports). */
void dram_port_skip(struct dram_port *p, uint64_t cycles);
uint64_t dram_port_cycle(const struct dram_port *p);
/* The current cycle's rising edge is at t_ps (the time base of the cycles from now on). */
void dram_port_set_time(struct dram_port *p, uint64_t t_ps);
/* Timing only (see the contract) from now on, or functional again. */
void dram_port_set_nodata(struct dram_port *p, bool nodata);
unsigned dram_port_pending(const struct dram_port *p);
const struct dram_port_stats *dram_port_stats(const struct dram_port *p);
int dram_port_requester(const struct dram_port *p);

#ifdef __cplusplus
}
#endif

#endif
