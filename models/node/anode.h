/*
 * anode: an Activation Node: tensor buffer, DMA, the compute core's SRAM and array (twin, RTL or
 * both in lockstep), the vector unit, and a flash memory system holding the training inputs
 * (NV stream) and the activations (V stream): the node's storage (nstore.h), its flash memory
 * system, or in perf a RAID 0 of conventional SSDs (anode_cfg.ssd).
 *
 * Contract
 * --------
 * Modelled: the node's part of a compiled program (models/host/compile.h): anode_exec() performs
 * one command, functionally and in time, and returns when it ends:
 *   FLASH_RD  NV: the next loaded input shard (u8 pixels, then labels) into the tensor buffer;
 *             V: the bf16 input of a layer, written in this step's forward pass, back into the
 *             tensor buffer. Ends when the last byte is there (flash_ctrl; each page claims the
 *             buffer's channels when it comes off its flash channel, nflash.h).
 *   FLASH_WR  V: a layer's bf16 input from the tensor buffer appended to the V stream. Ends when
 *             programmed (ftl_stream), and no earlier than its bytes are read out of the buffer
 *             (one claim at the write's start, nflash.h).
 *   DMA_IN/OUT the descriptor's bytes moved between the tensor buffer (a dram model) and the
 *             core's scratchpads, plain or transposed, exactly as csim/shim/dma.h defines a
 *             descriptor (dma_desc_apply); its duration is the DMA twin's cycle count at the
 *             core clock (models/dma/dma_time.h: dma_time_run, the command started at its real time
 *             on the buffer's channels as the node's other agents left them, at its real
 *             addresses; its beats claim the channels). tlm, and a backend without a DMA of its
 *             own (core_be_rtl): the node moves the bytes itself through the backend's pad
 *             writes and reads, and the twin times them on no data; the copy is exact because
 *             the twin moves a descriptor's bytes as dma_desc_apply does (test_dma_twin) and
 *             its timing does not depend on them.
 *             rtl and lockstep with the AN backend (an_be_rtl_ops, core_be.h): the RTL DMA
 *             moves them between this node's tensor buffer, served through a port BFM
 *             (models/dram/dram_port.h, its cycle 0 at the command's start), and the RTL
 *             pads, and its count is the duration; lockstep also requires it to equal
 *             dma_time_run's on the same buffer state (-EPROTO otherwise).
 *   GEMM      on the core backend; duration = the command's cycles at the core clock (the twin's
 *             formula, the RTL's count in rtl mode).
 *   VU        the vector-unit operation on tensor-buffer data (models/node/vu.h); its operand
 *             streams claim the buffer's channels at the command's start (requester "vu"),
 *             and it ends no earlier than the last of them.
 *   HOST_WR   evaluation inputs already placed by the host: no time.
 * Records written in a step (V) and the shards read (NV) are freed at anode_end_step(), which
 * releases their logical blocks to the FTL. V records are numbered 0..n_act - 1 (the program's
 * n_rec[HC_S_V]); each is written at most once per step.
 * A command whose `cycles` is nonzero takes that many core-clock cycles instead of its
 * operands' timing (perf programs, models/host/compile.h).
 * Perf (anode_cfg.perf): payload-free. The node has no core backend and its tensor buffer
 * keeps no contents; DMA moves nothing (duration from the DMA timing memo), a GEMM's duration
 * is core_twin_cycles of its command, the vector unit computes nothing (same formula), and both
 * flash streams are timing only (nflash_set_nodata): records are appended, read, freed and
 * released exactly as in tlm, so the FTL, its erases and counters behave identically. Host
 * memory does not grow with the tensors' sizes.
 * The tensor buffer is shared (models/dram/dram.h): the DMA ("dma", through its port), the
 * flash ("flash_rd", "flash_wr"), the fabric ("fabric", models/machine) and the vector unit
 * ("vu") claim its channels at the times their bytes move, first come first served in call
 * order, and each keeps its bytes, bus time and queueing delay. rtl, lockstep and tlm make the
 * same claims, so they give the same times. A perf command with its own `cycles` (DMA, GEMM,
 * VU) is timed by them; a DMA command so timed claims no channel time (its duration was taken
 * alone, compile_zoo).
 * Not modelled: reordering among the buffer's users (a claim made earlier for a later time,
 * e.g. a flash read's last pages, delays a claim made after it for an earlier time: res.h's
 * call order, conservative); a DMA command overlapping a GEMM in the RTL (the node runs each
 * command to its end before the next; the scheduler's overlap is in simulated time only).
 * Units: picoseconds, bytes.
 */
#ifndef MODELS_NODE_ANODE_H
#define MODELS_NODE_ANODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/dram/dram.h"
#include "models/host/compile.h"
#include "models/core/core_be.h"
#include "models/dma/dma_time.h"
#include "models/node/nflash.h"
#include "models/node/nstore.h"
#include "models/node/vu.h"

enum anode_mode {
    ANODE_TLM = 0,
    ANODE_RTL = 1,
    ANODE_LOCKSTEP = 2,
};

struct anode_cfg {
    uint32_t index;
    struct core_params core;
    uint64_t period_ps; /* core, DMA and vector-unit clock */
    struct vu_cfg vu;
    struct dram_cfg tb;
    struct flash_cfg flash;
    const struct core_be_ops *rtl; /* may be NULL */
    uint64_t seed;
    uint32_t batch;  /* B, for dZ = (p - t) / B */
    uint32_t n_act;  /* V records a step may write (the program's n_rec[HC_S_V]) */
    bool write_pipe; /* time flash writes on the NAND write pipeline too (nflash.h) */
    bool perf;       /* payload-free (see the contract); the mode stays tlm, no core backend */
    const struct ssd_cfg *ssd; /* perf: the streams on a RAID 0 of these SSDs (nssd.h), not on
                                  the flash; NULL: the flash. Read at creation only */
    uint32_t ssd_grain;        /* ... simulated at this grain of pages (ssd_cfg_coarse) */
};

struct anode_stats {
    uint64_t busy_ps[HC_RES_AN_N]; /* per resource */
    uint64_t cmds[HC_N_KINDS];
    uint64_t gemm_cycles, dma_cycles, vu_cycles;
    uint64_t dma_bytes, flash_rd_bytes, flash_wr_bytes;
    uint64_t macs;
};

struct anode;

/* dma_time: the DMA timing memo (shared by the ANs; not owned). */
int anode_create(const struct anode_cfg *cfg, struct dma_time *dma_time, struct anode **out,
                 struct err *e);
void anode_destroy(struct anode *a);

/* Core backend of the next commands. 0, or -EINVAL (no RTL backend; model mismatch; a perf
 * node, which has no core). */
int anode_set_mode(struct anode *a, enum anode_mode m, struct err *e);
/* The model of its flash write pipeline (nstore_set_write_mode), from the next write on. */
int anode_set_write_mode(struct anode *a, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                         struct err *e);
int anode_trace_core(struct anode *a, const struct vtrace_opts *o, struct err *e);
/* Finish the core's trace (close it, rename it into place); 0 also when none was started. */
int anode_trace_core_close(struct anode *a, struct err *e);
/* The same for AN's NAND write pipeline (its RTL in the loop: rtl or lockstep write mode). */
int anode_trace_write(struct anode *a, const struct vtrace_opts *o, struct err *e);
int anode_trace_write_close(struct anode *a, struct err *e);

/* Host preload: append one input shard (r x inputs u8 pixels, then r labels) to the NV stream
 * at now; *done = when programmed. Perf: only its size counts (images and labels may be
 * NULL). */
int anode_load_shard(struct anode *a, uint64_t now, const uint8_t *images, const uint8_t *labels,
                     uint32_t r, uint32_t inputs, uint64_t *done, struct err *e);
uint32_t anode_shards(const struct anode *a);
/* Drop every loaded shard. */
int anode_clear_shards(struct anode *a, uint64_t now, struct err *e);

/* Execute command c of program p, started at now: *end = when it ends (its results are
 * there), *free_at = when its resource can take the next command (<= *end; earlier for flash
 * transfers, whose controller is free before the dies are done). */
int anode_exec(struct anode *a, const struct hc_prog *p, const struct hc_cmd *c, uint64_t now,
               uint64_t *end, uint64_t *free_at, struct err *e);
/* The step is over: free its records (V) and its shard (NV); fresh_lb: the V stream's next
 * record starts a new logical block. */
int anode_end_step(struct anode *a, uint64_t now, bool fresh_lb, struct err *e);

/* The tensor buffer, for the host (evaluation inputs, results). */
struct dram *anode_tb(struct anode *a);
const struct anode_stats *anode_get_stats(const struct anode *a);
/* The node's flash (NULL when its storage is an SSD array) and its storage. */
struct nflash *anode_flash(struct anode *a);
struct nstore *anode_store(struct anode *a);

#endif
