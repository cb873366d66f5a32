/*
 * dma_sram: a cycle-level model of the compute core's SRAM port as the DMA sees it
 * (rtl/core/core_dma.v), for the DMA's tests and benchmarks.
 *
 * Contract
 * --------
 * Modelled: a byte array of cfg.bytes behind the port of csim/shim/dma.h (struct
 * dma_sram_req / dma_sram_rsp): req_ready is high unless a seeded random stall holds it low
 * this cycle (stall_pct, the core computing); an accepted write lands at once under its
 * strobes; an accepted read samples the array at once. Every accepted request is answered
 * exactly rd_lat cycles later (a request accepted at the edge ending cycle c answers in cycle
 * c + rd_lat), with no backpressure: read data, or 0 for a write. A request outside the array
 * or not beat-aligned is answered with err (read data 0, write dropped) and counted: a correct
 * DMA never makes one.
 * Outputs of a cycle depend only on the model's state.
 * Not modelled: banks, conflicts with the core's own accesses (only as random stalls).
 * Units: bytes, cycles.
 */
#ifndef TESTBENCH_ENV_DMA_SRAM_H
#define TESTBENCH_ENV_DMA_SRAM_H

#include "csim/err.h"
#include "csim/shim/dma.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dma_sram_cfg {
    uint64_t bytes;     /* size of the array */
    unsigned rd_lat;    /* response latency, cycles, >= 1 */
    unsigned stall_pct; /* % of cycles req_ready is low, 0..99 */
    uint64_t seed;
};

struct dma_sram_stats {
    uint64_t reads, writes, errors, stall_cycles;
};

struct dma_sram;

/* -EINVAL on a bad cfg (bytes 0, rd_lat 0, stall_pct > 99), -ENOMEM. */
int dma_sram_create(const struct dma_sram_cfg *cfg, struct dma_sram **out, struct err *e);
void dma_sram_destroy(struct dma_sram *s);

/* The port's outputs for the current cycle. */
void dma_sram_drive(struct dma_sram *s, struct dma_sram_rsp *out);
/* The rising edge: take the request if valid && ready, advance one cycle. */
void dma_sram_clock(struct dma_sram *s, const struct dma_sram_req *in);

/* The array, for loading and checking (cfg.bytes bytes). */
uint8_t *dma_sram_bytes(struct dma_sram *s);
const struct dma_sram_stats *dma_sram_stats(const struct dma_sram *s);

#ifdef __cplusplus
}
#endif

#endif
