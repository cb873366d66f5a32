/*
 * dma_env: a cycle-level test environment for the tensor-buffer DMA: it drives a DMA (the
 * verilated RTL through its shim, or the C twin, behind an ops table) with descriptors, serves
 * its tensor-buffer port from a dram model through a dram_port BFM and its SRAM port from a
 * dma_sram model, takes its completions, and optionally runs a second DMA (a shadow, e.g. the
 * twin beside the RTL) in lockstep on the same inputs, comparing every output every cycle.
 *
 * Contract
 * --------
 * Modelled: a descriptor producer that raises desc_valid after random gaps (desc_stall_pct)
 * and holds it until the descriptor is taken; a completion consumer whose cpl_ready is low in
 * a random cpl_stall_pct of cycles; the BFMs' own seeded stalls. Every random stream comes
 * from cfg.seed. Checks, each failing the run with a message naming the cycle, the signal and
 * both values: lockstep equality of all outputs (payloads only while valid); the handshake
 * rule that a stalled valid output holds its payload (completion, both request ports); SRAM
 * requests inside the SRAM; the shadow's own error report.
 * Not modelled: anything timed in picoseconds beyond the dram_port (one clock domain).
 * Units: cycles of the DMA clock.
 */
#ifndef TESTBENCH_ENV_DMA_ENV_H
#define TESTBENCH_ENV_DMA_ENV_H

#include "models/dma/dma_desc.h"
#include "testbench/dma/dma_sram.h"
#include "models/dram/dram.h"
#include "models/dram/dram_port.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A DMA under test: the shim's or the twin's functions with their handle. */
struct dma_dut {
    const char *name;
    void *h;
    void (*set)(void *h, const struct dma_in *in);
    void (*get)(void *h, struct dma_out *out);
    void (*step)(void *h, uint64_t cycles);
    const char *(*error)(void *h); /* optional: a problem the DUT found, or NULL */
};

struct dma_twin;
struct dma_rtl;

/* The C twin as a DUT named "twin"; its error is the first problem the twin found. */
struct dma_dut dma_dut_twin(struct dma_twin *tw);

/* The verilated DMA as a DUT named "rtl", without an error of its own (its assertions stop the
 * run). Defined apart (dma_env_rtl.c), so that only a program linked with a DMA shim pulls it
 * from the library. */
struct dma_dut dma_dut_rtl(struct dma_rtl *rtl);

struct dma_env_cfg {
    struct dma_params params;  /* of the DUT(s) */
    struct dram_cfg dram;      /* the tensor buffer (its size may differ from tb_bytes) */
    struct dram_port_cfg port; /* tensor-buffer port BFM, its stalls */
    unsigned sram_stall_pct;   /* % of cycles the SRAM is not ready */
    unsigned desc_stall_pct;   /* % of cycles the producer waits before raising desc_valid */
    unsigned cpl_stall_pct;    /* % of cycles cpl_ready is low */
    uint64_t seed;
};

/* One completion as taken from the DMA. */
struct dma_env_cpl {
    struct dma_cpl cpl;
    uint64_t accepted; /* env cycle the descriptor was taken */
    uint64_t done;     /* env cycle the completion was taken */
};

struct dma_env;

/* A cfg with the default DMA parameters, the default functional dram, no
 * stalls, and seed 1. The dram is the default 16 GiB one: sparse, so cheap. */
void dma_env_cfg_default(struct dma_env_cfg *c);

/* Build the environment around dut (and shadow, may be NULL) and reset the DUT(s) for two
 * cycles. 0, or -EINVAL / -ENOMEM. */
int dma_env_create(const struct dma_env_cfg *cfg, const struct dma_dut *dut,
                   const struct dma_dut *shadow, struct dma_env **out, struct err *err);
void dma_env_destroy(struct dma_env *e);

/* Queue a descriptor for the producer; 0 or -ENOMEM. */
int dma_env_submit(struct dma_env *e, const struct dma_desc *d, struct err *err);

/* Run until every submitted descriptor has completed (then one more cycle, to see the DMA
 * idle). 0, -ETIMEDOUT after max_cycles, or -EPROTO on a failed check, with the seed, the
 * cycle and what went wrong in err. */
int dma_env_run(struct dma_env *e, uint64_t max_cycles, struct err *err);

uint64_t dma_env_cycle(const struct dma_env *e);
size_t dma_env_ncpl(const struct dma_env *e);
const struct dma_env_cpl *dma_env_cpl(const struct dma_env *e, size_t i);
void dma_env_clear_cpls(struct dma_env *e);

void dma_env_params(const struct dma_env *e, struct dma_params *out);
struct dram *dma_env_dram(struct dma_env *e);
struct dram_port *dma_env_port(struct dma_env *e);
struct dma_sram *dma_env_sram(struct dma_env *e);

/* dma_mem_ops over the env's tensor buffer and SRAM, for dma_desc_apply (ctx: the env). */
extern const struct dma_mem_ops dma_env_tb_ops;
extern const struct dma_mem_ops dma_env_sram_ops;

#ifdef __cplusplus
}
#endif

#endif
