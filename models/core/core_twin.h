/*
 * core_twin.h - C twin of the compute core (rtl/core/core_top.v): the same GEMM command
 * interface, the same scratchpad image and DMA address map, bit-identical results and the
 * identical cycle count for the same configuration.
 *
 * The command, its status codes and the configuration are the RTL's ports and parameters,
 * owned by the core's shim header (csim/shim/core.h): the twin and the verilated core take the
 * same values.
 *
 * What is modelled
 *   - The three scratchpads as element arrays in the RTL's layout: A and B hold bf16 (raw
 *     uint16_t), C holds fp32 (raw uint32_t); word w of a pad is elements [w*W, (w+1)*W).
 *   - The DMA port's unified byte map (A-pad at 0, then B-pad, then C-pad, little-endian), with
 *     its 64-bit beats, byte strobes and error rule (core_twin_dma_write/read).
 *   - A GEMM command: the RTL's checks and status codes, the result bits (numerics contract,
 *     docs/sources.md: the dot product runs over k ascending with the PE's clear rule; with
 *     accumulate the result is fp32_add(C_old, dot)), the elements written (only the M x N
 *     elements of C), and the command's cycle count (core_twin_cycles, the formula in
 *     rtl/core/README.md).
 *
 * What is not modelled: the cycle-by-cycle behaviour inside a command (only its total), the
 * DMA port's timing (ready/latency), the contents of the pads before anything was written (the
 * RTL starts with random bits, the twin with zeros).
 *
 * Units: counts of clock cycles of the core's clock; addresses in elements (command) or bytes
 * (DMA); numbers as raw bit patterns (models/ref/bf16.h).
 */
#ifndef FLASHSTREAM_MODELS_CORE_CORE_TWIN_H
#define FLASHSTREAM_MODELS_CORE_CORE_TWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "csim/shim/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The DMA byte map of a configuration. */
struct core_twin_map {
    unsigned w;                      /* elements per word: core_twin_w */
    uint32_t a_base, b_base, c_base; /* byte address of each pad */
    uint32_t end;                    /* first byte past the C-pad */
    uint32_t a_elems, b_elems, c_elems;
};

struct core_twin_result {
    enum core_status status;
    uint64_t cycles; /* accepting edge to the edge of the last result write; 0 on error */
};

struct core_twin;

/* 0, or -EINVAL when the configuration is not one the RTL builds. */
int core_twin_params_check(const struct core_params *cfg, struct err *e);
/* The PEs' accumulator stages (1 or 4), and the rows of C in one tile of the sequencer's walk:
 * rows, or with four stages a group of four array tiles (rtl/core/README.md). */
unsigned core_twin_stages(const struct core_params *cfg);
unsigned core_twin_tile_rows(const struct core_params *cfg);
/* Elements per SRAM word: lcm(rows, cols, 4). */
unsigned core_twin_w(const struct core_params *cfg);
void core_twin_map(const struct core_params *cfg, struct core_twin_map *map);

/* The command's status, as the RTL's checks give it. */
enum core_status core_twin_check(const struct core_params *cfg, const struct core_cmd *cmd);
/* The command's cycle count (0 for a bad command); see rtl/core/README.md. */
uint64_t core_twin_cycles(const struct core_params *cfg, const struct core_cmd *cmd);

/* A twin with zeroed pads; -EINVAL on a bad configuration, -ENOMEM. */
int core_twin_create(const struct core_params *cfg, struct core_twin **out, struct err *e);
void core_twin_destroy(struct core_twin *t);
const struct core_params *core_twin_config(const struct core_twin *t);

/* The pads, for direct access: a_words * W bf16, b_words * W bf16, c_words * W fp32. */
uint16_t *core_twin_a(struct core_twin *t);
uint16_t *core_twin_b(struct core_twin *t);
uint32_t *core_twin_c(struct core_twin *t);

/*
 * The DMA port's effect: write the bytes of data selected by strb (bit b: byte b, at address
 * addr + b) or read 8 bytes. 0, or -EINVAL (nothing written, *data = 0) when addr is not a
 * multiple of 8 or the beat is outside the map: the RTL's response error.
 */
int core_twin_dma_write(struct core_twin *t, uint32_t addr, uint64_t data, uint8_t strb);
int core_twin_dma_read(const struct core_twin *t, uint32_t addr, uint64_t *data);

/*
 * Run one command on the pads; *res gets the status and cycles the RTL reports (a bad command
 * is a status, not an error: it returns 0 and writes nothing). Returns -ENOMEM, with *res
 * undefined, only when the host is out of memory for the kernel's scratch.
 */
int core_twin_exec(struct core_twin *t, const struct core_cmd *cmd, struct core_twin_result *res,
                   struct err *e);

#ifdef __cplusplus
}
#endif

#endif /* FLASHSTREAM_MODELS_CORE_CORE_TWIN_H */
