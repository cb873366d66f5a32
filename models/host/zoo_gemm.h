/*
 * zoo_gemm: what one GEMM of the model zoo costs one core of the perf compiler's machine
 * (models/host/compile_zoo.h), in the faster of the two dataflows that fit: tiled in the
 * RTL's pads, or streamed through the scaled core's SRAM (weight streaming).
 *
 * Contract
 * --------
 * Modelled (docs/perf-mode.md has the arithmetic and the worked examples):
 *   - Tiled: A panel, B panel and C tile each in half a pad; K chunks of W, 2W, ... or the
 *     whole K and tile heights of R, 2R, ... with the widest tile each allows, for the least
 *     max(core, DMA) cycles. Core cycles: core_twin_cycles of every class of core command;
 *     DMA cycles: the DMA twin's (models/dma/dma_time) for every panel and tile, with the
 *     transposes the DMA does.
 *   - Streamed (cfg->sram_bytes > 0): the activation operands resident (`live` bytes of the
 *     layer's tensors, models/host/zoo_live), the weight streamed in K x cols panels (the
 *     experts' GEMMs: each instance its own weight), a weight gradient out tile by tile, an
 *     attention GEMM moving nothing; the sequence cut into 2,
 *     4, ... chunks (at least `rows` tokens) until the layer fits. Core cycles: the RTL's
 *     formula with pads as deep as a command needs, commands cut at CORE_DIM_MAX, and at least
 *     the SRAM traffic over its bandwidth; DMA cycles: bytes at dma_bytes_per_cycle.
 *   - Both: at least the AN's bytes at the tensor buffer's rate; with multicast a weight (in)
 *     and a weight gradient (out) cross the buffer once for all the AN's cores.
 * Units: core cycles, bytes.
 */
#ifndef MODELS_HOST_ZOO_GEMM_H
#define MODELS_HOST_ZOO_GEMM_H

#include <stdint.h>

#include "csim/err.h"
#include "models/host/compile_zoo.h"

/* What a GEMM costs one core. */
struct hz_gemm_cost {
    uint64_t core, dma_in, dma_out; /* cycles */
    uint64_t in_bytes, out_bytes;   /* one core's, through its DMA */
    uint64_t tiles;                 /* C tiles over all instances */
    enum hz_dataflow flow;
    uint64_t chunks;        /* HZ_STREAM: the sequence cut into this many, each streaming it */
    uint64_t held;          /* SRAM bytes per core while it runs */
    uint64_t tb_in, tb_out; /* through the AN's tensor buffer, all cores together */
    uint64_t tb_class[HZ_OPND_CLASSES];                         /* the same, per enum zoo_operand */
    uint64_t cls_in[HZ_OPND_CLASSES], cls_out[HZ_OPND_CLASSES]; /* one core's, in and out */
    uint64_t sram; /* bytes the array and the DMA move in one core's SRAM */
};

/* GEMM g's cost on c with `live` bytes of its layer held in SRAM: 0, or -EINVAL naming a GEMM
 * that fits neither dataflow, or the DMA twin's error. */
int hz_gemm_cost(const struct hz_cfg *c, const struct zoo_gemm *g, uint64_t live,
                 struct hz_gemm_cost *gc, struct err *e);

uint64_t hz_ceil_div(uint64_t a, uint64_t b);
/* An AN's tensor buffer, bytes per core cycle. */
double hz_tb_bytes_per_cycle(const struct hz_cfg *c);

#endif
