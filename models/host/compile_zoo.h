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
 *   - A GEMM: tiled for the core's scratchpads as the RTL would run it (A panel, B panel and C
 *     tile each in half a pad, so loads overlap compute; K is split into chunks accumulated in
 *     the C-pad when a panel of the whole K does not fit, which perf may do because no bits are
 *     kept); its core time is the sum of core_twin_cycles over every core command of the tiling
 *     (the RTL's formula, also for arrays larger than the RTL builds), its DMA time the sum of
 *     the DMA twin's cycles (models/node/dmat) over every panel load and tile store, with the
 *     transposes the DMA does. It is emitted as `pieces` pipeline stages (DMA in, GEMM, DMA
 *     out per piece), so the core and DMA totals are exact and their overlap is modelled at
 *     piece granularity: loads into the A- and B-pads overlap the core (double-buffered), the
 *     C-pad is read out only between GEMMs (rtl/core/README.md: the DMA may read a pad only
 *     while no command runs).
 *   - Vector-unit operations: latency + ceil(rows x cols x cost / lanes) cycles (cost_exp for
 *     softmax, GELU and the loss, 1 otherwise), one core's rows.
 *   - Activations: every SAVE is a V-stream record appended by each AN (FLASH_WR), every LOAD
 *     reads it back (FLASH_RD) once the TB slots of the layer two before are free.
 *   - Weights: each matrix weight of a layer is its own W record, the layer's vectors (biases,
 *     norm scales) one more; each is read at the WN and broadcast before its first use in each
 *     pass (two weight slots per node, so the next one is prefetched); in backward each
 *     record's gradient is reduced (fp32) over the ANs once it is complete, then the WN reads
 *     its masters (M) and optimizer state (O), updates it (OPT_UPDATE: latency + ceil(params
 *     x cost / lanes) optimizer cycles) and appends the new W, M and O records. A weight tied
 *     to an earlier block (the LM head's table) is streamed again where it is used and reduced
 *     where it is owned.
 *   - Records are numbered per stream (u.fl.rec), their sizes in hc_prog.rec_size; layer =
 *     the block instance in forward order, 0-based (the embedding is 0; labels count from 1,
 *     as layers.csv does).
 * Not modelled: numerics; the tensor buffer's capacity (nothing is allocated in it:
 *   docs/perf-mode.md gives what a layer needs); the tokens and labels (kept in the TB).
 * Units: cycles of the resource's clock (hc_cmd.cycles), bytes, parameters.
 */
#ifndef MODELS_HOST_COMPILE_ZOO_H
#define MODELS_HOST_COMPILE_ZOO_H

#include <stdint.h>

#include "csim/err.h"
#include "models/host/compile.h"
#include "models/node/dmat.h"
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
    struct dmat *dmat;                         /* one core's DMA (not owned) */
};

/* Compile; 0 and *out (free with hc_prog_free), -EINVAL naming the bad value, -ENOMEM. */
int hz_compile(const struct hz_cfg *c, struct hc_prog **out, struct err *e);

#endif
