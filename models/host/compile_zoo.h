/*
 * compile_zoo: the host compiler of the payload-free perf mode: a transformer of the model zoo
 * (models/zoo) and a machine into per-node command sequences for one training iteration, at a
 * granularity that keeps every resource's busy time exact while the program stays small (a few
 * hundred commands per layer, whatever the layer's width).
 *
 * Contract
 * --------
 * Modelled (docs/perf-mode.md has the arithmetic and what it leaves out):
 *   - Data parallel at two levels: every AN runs the same program; each of its `cores` cores
 *     trains its own `batch` sequences (the zoo model's shapes are one core's). A command on an
 *     AN's core, DMA or vector unit stands for that operation on every core of the AN at once,
 *     so it lasts one core's time; the DMA's time is also bounded below by the AN's tensor
 *     buffer: cores x bytes at its peak rate (the cores share it). Flash records and fabric
 *     transfers carry the whole AN's bytes (cores x one core's activations).
 *   - A GEMM, the faster of two dataflows that fit (docs/perf-mode.md):
 *     tiled, for the core's scratchpads as the RTL would run it (A panel, B panel and C tile
 *     each in half a pad, so loads overlap compute; K split into chunks accumulated in the
 *     C-pad when a panel of the whole K does not fit); or, with an SRAM (sram_bytes), weight
 *     streaming: the sequence's activations resident (models/host/zoo_live counts them), the
 *     weight streamed in K x cols panels once per chunk of the sequence, a weight gradient
 *     streamed out tile by tile, the attention core moving nothing; the sequence cut into
 *     chunks when the layer does not fit. Core time: the sum of core_twin_cycles over every
 *     core command (the RTL's formula, also for arrays and pads larger than the RTL builds),
 *     at least a streamed GEMM's SRAM traffic over its bandwidth; DMA time: the DMA twin's
 *     cycles (models/dma/dma_time) over every panel and tile, tiled, or the bytes at
 *     dma_bytes_per_cycle, streamed; and at least the AN's bytes at the buffer's peak rate.
 *     With `multicast` a weight crosses the buffer once for every core of the AN, and their
 *     weight gradients once, summed. Emitted as `pieces` pipeline stages (DMA in, GEMM, DMA
 *     out per piece): the core and DMA totals are exact, their overlap at piece granularity;
 *     a streamed GEMM's last store queues on the DMA behind the next GEMM's first two loads;
 *     on the pads the C-pad is read out only between GEMMs (rtl/core/README.md), the banked
 *     SRAM's commands carry `banked`.
 *   - Vector-unit operations: latency + ceil(rows x cols x cost / lanes) cycles (cost_exp for
 *     softmax, GELU and the loss, 1 otherwise), one core's rows.
 *   - Activations: every SAVE is a V-stream record appended by each AN (FLASH_WR), every LOAD
 *     reads it back (FLASH_RD) once the TB slots of the layer two before are free; with an SRAM
 *     they cross between SRAM and the buffer on the DMA's second queue (HC_RES_AN_DMA_ACT), in
 *     `pieces` parts (an elementwise operation follows a load part by part), at most two saves
 *     and one load waiting in the buffer.
 *   - Weights: each matrix weight of a layer is its own W record, the layer's vectors (biases,
 *     norm scales) one more; each is read at the WN and broadcast before its first use in each
 *     pass (two weight slots per node, so the next one is prefetched); in backward each
 *     record's gradient is reduced (fp32) over the ANs once it is complete, then the WN reads
 *     its masters (M) and optimizer state (O), updates it in `pieces` parts (OPT_UPDATE each:
 *     latency + ceil(params x cost / lanes) optimizer cycles for its share of the parameters,
 *     `tile` its part) and appends the new W, M and O records; the M and O
 *     reads follow the next weight's read. A streamed GEMM's weight is broadcast, and its
 *     gradient reduced, piece by piece, at most two pieces of each in an AN's buffer. A weight
 *     tied to an earlier block (the LM head's table) is streamed again where it is used and
 *     reduced where it is owned.
 *   - Capacity: per layer and pass, what those rules let an AN's buffer hold (hz_report); a
 *     program over tb_size_bytes is refused (-ENOSPC) naming the first layer.
 *   - Records are numbered per stream (u.fl.rec), their sizes in hc_prog.rec_size; layer =
 *     the block instance in forward order, 0-based (the embedding is 0; labels count from 1,
 *     as layers.csv does).
 * Not modelled: numerics; addresses in the buffer (its capacity is bounded per layer, not
 *   allocated); the Weight Node's buffer's capacity; the tokens and labels (kept in the TB).
 * Units: cycles of the resource's clock (hc_cmd.cycles), bytes, parameters.
 */
#ifndef MODELS_HOST_COMPILE_ZOO_H
#define MODELS_HOST_COMPILE_ZOO_H

#include <stdint.h>

#include "csim/err.h"
#include "models/host/compile.h"
#include "models/dma/dma_time.h"
#include "models/node/vu.h"
#include "models/zoo/zoo.h"

#define HZ_MAX_PIECES 64

struct hz_cfg {
    const struct zoo_model *model;
    uint32_t n_an;           /* Activation Nodes, 1..HC_MAX_AN */
    uint32_t cores;          /* cores per AN, each with its own sequences */
    struct core_params core; /* each core: arrays beyond what the RTL builds are allowed */
    struct vu_cfg vu;        /* each core's vector unit */
    uint64_t core_period_ps;
    uint64_t tb_bytes_per_s;                   /* an AN's tensor buffer, all channels together */
    uint32_t opt_lanes, opt_latency, opt_cost; /* WN optimizer unit; opt_cost per parameter */
    uint32_t opt_state_words;                  /* fp32 state words per parameter (1 or 2) */
    uint32_t pieces;                           /* pipeline stages per GEMM, 1..HZ_MAX_PIECES */
    struct dma_time *dma_time;                 /* one core's DMA (not owned) */
    /* the memory hierarchy of the scaled perf-mode core (docs/perf-mode.md) */
    uint64_t sram_bytes;           /* each core's SRAM; 0: the pads only (every GEMM tiled) */
    uint32_t sram_bytes_per_cycle; /* its bandwidth; 0: the array's appetite, 2 (rows + cols),
                                      plus the DMA's width (never binds) */
    uint32_t dma_bytes_per_cycle;  /* each core's DMA into its SRAM (with sram_bytes); 0: the
                                      RTL's beat, CORE_DMA_BEAT */
    uint64_t tb_size_bytes; /* an AN's tensor buffer, for the capacity check (0: unchecked) */
    bool multicast; /* one tensor-buffer read of a weight feeds every core of the AN, and the
                       cores' weight gradients are summed on their way into the buffer */
};

enum hz_dataflow {
    HZ_TILED,  /* A and B panels and a C tile in the pads, everything through the buffer */
    HZ_STREAM, /* weight streaming: the sequence's activations resident in SRAM, the weight
                  (or the weight gradient) streamed through once per chunk of the sequence */
    HZ_DATAFLOWS,
};

#define HZ_OPND_CLASSES (ZOO_OPND_WGRAD + 1) /* enum zoo_operand */

/* One GEMM kind and role over an iteration, one core (what gemms.csv prints). */
struct hz_gemm_class {
    uint64_t ops[HZ_DATAFLOWS]; /* GEMM operations (of `count` instances each) run each way */
    uint64_t chunks_max;        /* the most chunks a streamed one cut the sequence into */
    uint64_t sram_held;         /* the most SRAM one of them holds, bytes per core */
    uint64_t tb_bytes[HZ_OPND_CLASSES]; /* through the AN's tensor buffer, per operand class */
    uint64_t sram_traffic;              /* bytes the array and the DMA move in one core's SRAM */
};

/* What the program keeps where, per layer and pass (0 forward, 1 backward). */
struct hz_layer_use {
    uint64_t sram_peak;  /* bytes one core holds in SRAM at its fullest (0: no SRAM) */
    uint64_t tb_peak;    /* bytes in an AN's tensor buffer at its fullest: the sum of */
    uint64_t tb_weights; /* its two weight slots (the layer's largest record, bf16) */
    uint64_t tb_grads;   /* its two gradient slots (fp32; one copy per core without multicast) */
    uint64_t tb_acts;    /* the activations on their way to flash (forward), or back from it
                            for this layer (when it reads them from the buffer) and the next */
};

struct hz_report {
    struct hz_gemm_class cls[ZOO_GEMM_KINDS][ZOO_ROLE_RECOMPUTE + 1];
    struct hz_layer_use *use[2]; /* n_layers each (free with hz_report_fini) */
    uint32_t n_layers;
    uint64_t saved_bytes; /* the V records of an iteration, all of an AN's cores */
};

/* Compile; 0 and *out (free with hc_prog_free), -EINVAL naming the bad value, -ENOMEM. */
int hz_compile(const struct hz_cfg *c, struct hc_prog **out, struct err *e);
/* The same, and what the compiler chose and what it holds into *rep (NULL: not wanted). */
int hz_compile_report(const struct hz_cfg *c, struct hc_prog **out, struct hz_report *rep,
                      struct err *e);
void hz_report_fini(struct hz_report *rep);

#endif
