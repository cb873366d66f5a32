/*
 * machine: the flashstream training machine, assembled and driven by the host: one Weight Node
 * (WN) holding the model in flash, N Activation Nodes (ANs) training data parallel, the fabric
 * between them; the host compiles the model into per-node command sequences
 * (models/host/compile.h) and this module runs them on the event kernel, one training step at
 * a time.
 *
 * Contract
 * --------
 * Modelled (README.md, "Execution model", has the diagram):
 *   - A step: the WN reads each layer's bf16 weights (and fp32 biases) from its flash and the
 *     fabric broadcasts them to every AN (double-buffered weight slots: the next layer is
 *     prefetched while the ANs compute); each AN reads its input shard from its NV stream,
 *     runs the forward pass layer by layer (DMA tensor buffer -> core SRAM, GEMM on the core,
 *     vector unit for bias/ReLU/bf16), appends every layer's bf16 input to its V stream, computes
 *     the loss at the last layer; the backward pass in reverse layer order with the weights
 *     streamed again (or the output layer kept resident: machine_cfg.keep_output_resident), the
 *     activations read back from flash, weight and bias gradients summed over the ANs by the
 *     fabric in node order; the WN reads the layer's master weights and optimizer state from
 *     flash, runs the optimizer of models/dnn/dnn_params (the only implementation) and appends
 *     the new bf16 weights, masters and state to its flash, releasing the old versions.
 *   - Numerics: models/dnn/README.md; after any number of steps the losses and every master
 *     weight equal the golden trainer's (models/dnn/dnn_golden.h) bit for bit, at any N.
 *   - Time: a command starts when its dependencies are done and its resource is free (each
 *     resource runs its commands in program order); its duration comes from the block's timing
 *     model: core twin/RTL cycles, DMA twin cycles, flash FMS/FTL completion times, fabric
 *     broadcast/reduce times, vector-unit and optimizer-unit formulas. Steps do not overlap:
 *     step k + 1 starts when every command of step k is done.
 *   - Fidelity (machine_fidelity): the AN cores run as the C twin (tlm), the verilated RTL (rtl) or
 *     both compared (lockstep), switchable between steps (machine_set_fidelity). With the AN
 *     backend (machine_cfg.rtl = &an_be_rtl_ops, models/core/core_be.h) the RTL is the node's
 *     whole datapath, DMA and core: DMA commands run through the RTL DMA and the node's tensor
 *     buffer. The write pipeline follows the mode with machine_cfg.nfw_rtl; everything else is
 *     C in every mode.
 *   - Perf (MACHINE_PERF, chosen at creation, for the machine's life): payload-free. No tensor-
 *     buffer byte is read or written, no core runs (a GEMM takes core_twin_cycles of its
 *     command), the DMA moves nothing (its twin's cycles, memoised), the vector unit and the
 *     optimizer compute nothing (their formulas), the fabric only times its transfers, the flash
 *     streams are timing only with every record appended, read, freed and released as in tlm.
 *     On the same program the simulated times, the layer records and every flash counter equal
 *     tlm's (testbench/flashstream/test_perf.c). A perf step's loss is NaN; there are no parameters
 *     (machine_params is NULL), no evaluation, no restore; host memory does not grow with the
 *     model's size. It runs the fully connected model of machine_create (with the RTL's array
 *     limits: the compiler's tiling needs them) or a perf program of any size
 *     (machine_create_program: arrays and cores the RTL does not build, thousands of layers).
 *     With storage MACHINE_STORAGE_IDEAL every flash, DMA and fabric command takes no time (the
 *     compute bound: only GEMMs, vector-unit operations and optimizer updates take time, the
 *     updates their compute: their tensor-buffer streams are free too). With
 *     MACHINE_STORAGE_SSD_RAID0 every node's streams are on its own RAID 0 of SSDs
 *     (models/node/nssd.h, models/ssd): a flash command is the array's reads or writes of the
 *     record, timed by the SSD model; its counters are "<node>.ssd.*".
 *   - A command whose `cycles` is nonzero (perf programs) takes that many cycles of its
 *     resource's clock instead of its operands' timing (DMA, GEMM, VU: the core clock;
 *     OPT_UPDATE: the optimizer unit's compute, its parameters u.opt.params; it still ends no
 *     earlier than its tensor-buffer streams).
 * Not modelled: see README.md "What is weak" (PCIe; the tensor buffer's banks, refresh and gap
 * filling, served in call order; agents without claims on it; overlap between steps).
 * Units: simulated time in picoseconds (uint64_t), sizes in bytes, losses fp32.
 *
 * Data for the stats/trace writers (csim/stats*, csim/trace*): plain C arrays, valid until the
 * next call that changes them:
 *   - machine_layer_recs(): one row per (step, layer, pass) = one row of layers.csv. Columns:
 *       step            optimizer step (0-based) the row belongs to
 *       layer           layer, 1-based as in the numerics spec (1 = first FC layer)
 *       pass            "fwd" or "bwd" (machine_pass_name)
 *       start_ps        first command of the layer and pass starts (any node)
 *       end_ps          last command of the layer and pass ends (any node)
 *       compute_ps      time with at least one AN core GEMM, DMA transfer or vector-unit
 *                       operation of this layer and pass running (union over ANs)
 *       weight_fetch_ps WN flash reading this layer's weights (and, bwd, masters and state)
 *       broadcast_ps    fabric broadcasting this layer's weights
 *       act_write_ps    AN flash writing this layer's input activations X_l (fwd)
 *       act_read_ps     AN flash reading them back (bwd); layer 1 fwd: reading the input
 *                       shard from the NV stream
 *       reduce_ps       fabric summing this layer's gradients (and the loss, last layer fwd)
 *       optimizer_ps    WN optimizer unit updating the layer, and writing it back to flash
 *       waited_on       the phase with the most time on the layer's critical path (the chain
 *                       of "waited for" commands that ends at end_ps, clipped to
 *                       [start_ps, end_ps]): "compute" when the cores were the bottleneck,
 *                       else the transfer the layer waited on
 *     Each *_ps phase column is the length of the union of that phase's busy intervals, so
 *     phases may overlap each other (prefetch) and their sum may exceed end_ps - start_ps.
 *   - machine_busy(): busy intervals per resource for a Chrome trace: one track per resource
 *     (machine_resource_name: "wn.flash_rd", "wn.flash_wr", "wn.opt", "fabric.down", "fabric.up",
 *     "an0.flash_rd", "an0.flash_wr", "an0.dma", "an0.core", "an0.vu", ...), each interval with
 *     start/end in ps and a label ("GEMM L2 bwd dW t3 [784x16x16]"). Recorded only while
 *     machine_record_busy(r, true) (off by default; an epoch makes ~10^6 of them).
 *   - machine_counters(): every counter of the run (name "an0.core.busy_ps", value, unit).
 *
 * Errors: functions that act return 0 or a negative errno with a message for people in the
 * caller's struct err (what was wrong, where, what is accepted).
 */
#ifndef MODELS_MACHINE_MACHINE_H
#define MODELS_MACHINE_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csim/err.h"
#include "csim/shim/vtrace.h"
#include "csim/shim/core.h"
#include "csim/shim/dma.h"
#include "models/dnn/dnn_model.h"
#include "models/dnn/dnn_params.h"
#include "models/dram/dram.h"
#include "models/fabric/fabric.h"
#include "models/flash/flash_cfg.h"
#include "models/host/compile.h"
#include "models/nfw/nfw_time.h"
#include "models/core/core_be.h"
#include "models/node/vu.h"
#include "models/ssd/ssd_cfg.h"

#define MACHINE_MAX_AN 64

enum machine_fidelity {
    MACHINE_TLM = 0,      /* C twin of the core */
    MACHINE_RTL = 1,      /* verilated core (machine_cfg.rtl must be set) */
    MACHINE_LOCKSTEP = 2, /* both, every GEMM and read compared */
    MACHINE_PERF = 3,     /* payload-free: timing only (see the contract); at creation only */
};

/* Timing of the WN's reduce + optimizer unit (ours): a pipelined fp32 unit of `lanes` elements
 * per cycle at period_ps; updating n parameters computes for latency + ceil(n * cost / lanes)
 * cycles, cost = cost_sgd or cost_adam (the Adam update needs a divide and a square root), and
 * ends no earlier than its operand streams through the WN's tensor buffer (22 B per parameter
 * for SGD, 30 B for Adam: models/node/wnode.h). */
struct machine_optu_cfg {
    uint64_t period_ps; /* 1250 (0.8 GHz, like the cores) */
    uint32_t lanes;     /* 16 */
    uint32_t latency;   /* 32 */
    uint32_t cost_sgd;  /* 1 */
    uint32_t cost_adam; /* 4 */
};

/* The host's link to the machine (paper: PCIe Gen4 x32). Described, not timed yet: the host
 * preloads inputs and reads results without simulated transfer time. */
struct machine_host_cfg {
    uint64_t link_Bps;   /* bytes per second, each direction: 63015384615 (derived) */
    uint64_t latency_ps; /* one transfer's latency: 1 us (ours) */
};

/* Where the nodes keep weights, activations and inputs. Only MACHINE_STORAGE_BEHEMOTH (each
 * node's FMS, flash_cfg) trains; perf also runs MACHINE_STORAGE_SSD_RAID0, every node's streams
 * on a RAID 0 of conventional SSDs of its own (models/node/nssd.h: an_ssd on each AN, wn_ssd on
 * the WN), and MACHINE_STORAGE_IDEAL, a store whose accesses are free (flash, DMA and fabric
 * commands take no time). */
enum machine_storage {
    MACHINE_STORAGE_BEHEMOTH = 0,
    MACHINE_STORAGE_SSD_RAID0 = 1,
    MACHINE_STORAGE_IDEAL = 2,
    MACHINE_STORAGE_N
};

/* Their names in the machine description: "behemoth", "ssd-raid0", "ideal". */
extern const char *const machine_storage_names[MACHINE_STORAGE_N];

struct machine_cfg {
    /* ---- the training job ---- */
    struct dnn_model model; /* dnn_model_parse(&model, "fc-mnist", ...) */
    struct dnn_opt opt;     /* dnn_params_opt_sgd / dnn_params_opt_adam */
    uint64_t init_seed;     /* weight initialisation (dnn_params_init) */
    uint32_t batch;         /* B: global batch, a multiple of n_an */
    uint32_t samples;       /* samples per epoch the NV streams must hold (validation only;
                               0: one batch) */
    /* ---- the machine ---- */
    uint32_t n_an;                 /* N Activation Nodes, 1..MACHINE_MAX_AN */
    uint32_t cores_per_an;         /* cores of each AN: 1 (training runs one core per AN) */
    struct core_params core;       /* each AN's core: array and scratchpad words */
    uint64_t sram_bytes;           /* perf: each core's SRAM beside its pads, for weight
                                      streaming (0: the pads alone, every GEMM tiled in them) */
    uint32_t sram_bytes_per_cycle; /* perf: that SRAM's bandwidth (0: what the array and the DMA
                                      take at full rate) */
    uint32_t dma_bytes_per_cycle;  /* perf: each core's DMA into that SRAM (the RTL's: 8) */
    bool multicast;                /* perf: one tensor-buffer read of a weight feeds every core
                                      of an AN, and their weight gradients are summed on the way
                                      in (off: each core moves its own) */
    uint64_t core_period_ps;       /* core, DMA and vector-unit clock: 1250 (0.8 GHz, derived) */
    struct vu_cfg vu;              /* AN vector unit timing */
    struct machine_optu_cfg optu;  /* WN reduce + optimizer unit timing */
    struct dma_params dma;         /* AN DMA parameters (timing from its twin) */
    struct dram_cfg tb;            /* every node's tensor buffer (size checked by validation) */
    uint32_t wn_tb_channels;       /* the Weight Node's buffer's channels (0: tb.channels) */
    struct flash_cfg an_flash;     /* each AN's FMS */
    struct flash_cfg wn_flash;     /* the WN's FMS */
    struct ssd_cfg an_ssd;         /* each AN's SSDs, with storage ssd-raid0: ssd_cfg_default */
    struct ssd_cfg wn_ssd;         /* the WN's SSDs (raid_ssds of them), the same */
    uint32_t ssd_grain;            /* the SSDs simulated at this grain of pages
                                      (ssd_cfg_coarse): 1, page by page */
    struct fabric_cfg fabric;      /* n_an is overwritten with n_an */
    struct machine_host_cfg host;  /* the host link (not timed yet) */
    enum machine_storage storage;  /* MACHINE_STORAGE_BEHEMOTH */
    bool keep_output_resident;     /* bwd of the last layer reuses its fwd weights (no 2nd fetch) */
    bool write_pipe;               /* flash writes take the slower of the NAND write pipeline
                                      (rtl/nfw: its twin runs every write) and the FTL; off: the
                                      FTL's time alone (faster to simulate: the twin costs about
                                      20 ns of CPU per byte written) */
    bool act_fresh_lb;             /* each step's activations start a fresh logical block of the
                                      V stream, released after the backward pass (so the FTL's
                                      rotation and P/E counters move every step); off: steps
                                      pack the V stream and blocks are released when all their
                                      data are consumed. On the default FMS a block is a 3 GiB
                                      superblock: releasing one per step costs a 5 ms erase on
                                      every die (fc-mnist: 0.93 -> 5.8 ms per step) */
    bool wn_state_payload;         /* keep the bytes of the masters and optimizer state in the
                                      WN's flash (host memory grows with every step until a
                                      logical block is released); off: those streams are timed
                                      only, the optimizer works on the WN's own fp32 copy
                                      either way. The bf16 weights always keep their bytes: the
                                      ANs compute with what the WN reads back from flash. */
    /* ---- the simulation ---- */
    enum machine_fidelity fidelity;   /* of the first step; machine_set_fidelity() changes it
                                         (not to or from perf) */
    const struct core_be_ops *rtl;    /* the RTL backend for rtl/lockstep: &an_be_rtl_ops (DMA
                                         and core) or &core_be_rtl_ops (core); NULL: tlm only */
    const struct nfw_be_ops *nfw_rtl; /* the RTL write pipeline (&nfw_be_rtl_ops) for
                                         rtl/lockstep with write_pipe; NULL: tlm only */
    uint64_t seed;                    /* machine seed: RTL initial state */
};

/*
 * Defaults: fc-mnist (784-256-128-10), SGD lr 0.01 momentum 0.9 wd 0, init seed 1, B 64,
 * 4 ANs, an 8 x 8 core with 4096-word pads (64 KiB A, 64 KiB B, 128 KiB C: ours), core clock
 * 1250 ps, one core per AN, vu/optimizer/DMA/DRAM/fabric defaults of their modules, the
 * Behemoth FMS (flash_cfg_default, 2 TiB) on every node, timed without payload in the flash
 * model (the bytes of live records are kept beside it: models/node/nflash.h), the host link of
 * PCIe Gen4 x32 (not timed), the Behemoth storage, the paper's baseline SSDs for the SSD
 * storage (ssd_cfg_default: four per node, timing only, simulated page by page), tlm.
 * configs/fc-mnist.ini writes the
 * machine's part of them out, each with its source.
 */
void machine_cfg_default(struct machine_cfg *c);
/* The flash faults f on every node's flash and the NAND of every node's SSDs. */
void machine_cfg_set_faults(struct machine_cfg *c, const struct flash_fault_cfg *f);
/* A small machine for tests: a 64-32-10 MLP, B 8, the 8 x 8 core with 512-word pads (the
 * verilated core_8x8), and a small FMS (2 channels, 1 chip, 2 planes, 683 blocks of 16 pages
 * of 4 KiB: 256 KiB per logical block) on every node, with the bytes stored in the flash
 * model's pages (wn_state_payload on too). */
void machine_cfg_small(struct machine_cfg *c);

/*
 * Whether training can run c's machine at c->fidelity: one core per AN, a core array the C twin
 * and the RTL build (rows and cols 1..64, lcm(rows, cols, 4) <= 64: the fully connected
 * compiler tiles for them), the Behemoth storage; perf also accepts the SSD array and the
 * ideal storage. 0, or
 * -EINVAL naming the key (as the machine description spells it, models/machine/machine_ini.h)
 * and saying which mode is meant to accept it. Part of machine_validate and machine_create
 * (not of machine_create_program).
 */
int machine_cfg_supported(const struct machine_cfg *c, struct err *e);

const char *machine_fidelity_name(enum machine_fidelity f);
/* "tlm", "rtl", "lockstep", "perf": 0, or -EINVAL naming the text and what is accepted. */
int machine_fidelity_parse(const char *s, enum machine_fidelity *f, struct err *e);

/*
 * --compile_only: compile cfg and print the per-node command sequences, one line per command
 * (id, node, kind, layer/pass, sizes, dependencies), with the tensor-buffer allocation. 0, or
 * the error of compilation (a model that does not fit: see machine_validate).
 */
int machine_compile_listing(const struct machine_cfg *c, FILE *out, struct err *e);
/*
 * --validate_only: check that the model fits the machine and print a table of every check
 * (need, capacity, OK/FAIL): B divisible by N, dimensions, SRAM panels of every GEMM (K is never
 * split), tensor buffers with double-buffered weights, every flash stream. 0 when everything
 * fits; -ENOSPC (capacity) or -EINVAL (bad configuration) with every failed check's reason in
 * e. out may be NULL.
 */
int machine_validate(const struct machine_cfg *c, FILE *out, struct err *e);

struct machine;
struct sim;

/*
 * Build the machine for c: validate (errors as machine_validate), compile, create the nodes, write
 * the initial weights, masters and optimizer state (dnn_params_init(init_seed)) into the WN's
 * flash. That preload takes simulated time; the first step starts after it. Perf
 * (c->fidelity): the nodes are payload-free and the preload writes records of the same sizes
 * without their bytes (the ideal storage: none).
 * 0, -EINVAL, -ENOSPC, -ENOMEM (message in e).
 */
int machine_create(const struct machine_cfg *c, struct machine **out, struct err *e);
/*
 * A perf machine that runs program p (a perf program, hc_prog.perf: compiled from another
 * model, e.g. models/host/compile_zoo.h) as every step, instead of compiling c's model. p is the
 * machine's from this call on (freed by machine_destroy, or here on failure). Checked: c's
 * blocks (nodes 1..MACHINE_MAX_AN, fabric, flash, tensor buffer, clocks), core rows, cols and
 * cores per node >= 1 (no RTL limit: the cycle formula is the same), any storage
 * (c->fidelity and c->model are not used); p's commands: ids, kinds, nodes and resources of c's
 * machine, layers below p->n_layers, dependencies on earlier commands only, flash records below
 * p->n_rec of their stream, no NV stream (a perf program reads no inputs). The WN's flash is
 * preloaded with every W, M and O record, in record order, each at its p->rec_size (a stream
 * without one: every record a command names, at the bytes of its first FLASH_RD or FLASH_WR). Steps
 * need no machine_load_inputs (machine_load_inputs is -EINVAL). 0, -EINVAL, -ENOSPC (the records do
 * not fit the WN's flash), -ENOMEM.
 */
int machine_create_program(const struct machine_cfg *c, struct hc_prog *p, struct machine **out,
                           struct err *e);
void machine_destroy(struct machine *r);
const struct machine_cfg *machine_config(const struct machine *r);

/* ---- training data ---- */

/*
 * Host preload (as in Behemoth: the host writes the training inputs into each AN's NV stream
 * before training): `count` samples, a multiple of B, in the order they will be trained on:
 * batch b is samples b*B .. b*B + B - 1, and its shard n (rows n*r .. n*r + r - 1, r = B / N)
 * is appended to AN n's NV stream. images [count x inputs] u8, labels [count] (< classes).
 * Queued behind batches loaded before. Takes simulated flash time, not part of any step: the
 * next step starts after it. Perf: images and labels may be NULL (only count matters; labels
 * given are checked); the shards' records are appended with their sizes, timed as in tlm (the
 * ideal storage: only counted). -EINVAL (count, labels, a machine of machine_create_program),
 * -ENOSPC (NV stream full: consume or machine_clear_inputs first).
 */
int machine_load_inputs(struct machine *r, const uint8_t *images, const uint8_t *labels,
                        uint32_t count, struct err *e);
/* Batches loaded and not yet trained on. */
uint32_t machine_batches_pending(const struct machine *r);
/* Drop every pending batch (their NV-stream blocks are released). */
int machine_clear_inputs(struct machine *r, struct err *e);

/* ---- training ---- */

/* What one step did. */
struct machine_step_info {
    uint64_t step;     /* optimizer step k of this batch (0-based) */
    float loss;        /* global loss, as models/dnn/README.md section 5 defines it; perf: NaN */
    uint64_t start_ps; /* simulated time the step started */
    uint64_t end_ps;   /* ... and ended (every command done, weights back in flash) */
    uint64_t commands; /* commands executed */
    uint64_t gemms;    /* GEMM commands among them */
};

/* One training step on the next pending batch (a machine of machine_create_program: one run of
 * its program, no batch needed). -ENODATA (nothing loaded), -EPROTO (lockstep divergence: the
 * report is in e), other errors of the blocks. info may be NULL. After any error other than
 * -ENODATA the machine is left mid-step: report and machine_destroy it. */
int machine_step(struct machine *r, struct machine_step_info *info, struct err *e);
/* machine_load_inputs of one batch (B samples), then machine_step. */
int machine_train_batch(struct machine *r, const uint8_t *images, const uint8_t *labels,
                        struct machine_step_info *info, struct err *e);

/*
 * Test accuracy: forward passes of `count` samples (any count >= 1) on the ANs with the current
 * weights, no update; the host writes the images into the ANs' tensor buffers directly (no
 * flash), a last partial batch is padded. *correct = samples whose predicted class (first
 * maximum logit) equals the label. Takes simulated time; does not change the step count.
 * logits (may be NULL): [count x classes] fp32. Perf: -EINVAL (evaluation needs data).
 */
int machine_eval(struct machine *r, const uint8_t *images, const uint8_t *labels, uint32_t count,
                 uint32_t *correct, float *logits, struct err *e);

/* ---- fidelity and waves ---- */

/* Takes effect at the next step. -EINVAL when rtl/lockstep is asked and cfg.rtl is NULL or the
 * RTL model's configuration differs from cfg.core (the message says both), and between perf
 * and the others (a perf machine has no data to switch to; perf to perf is 0). */
int machine_set_fidelity(struct machine *r, enum machine_fidelity f, struct err *e);
enum machine_fidelity machine_get_fidelity(const struct machine *r);
/* Start an FST trace of AN an's RTL core (rtl or lockstep mode only). */
int machine_trace_core(struct machine *r, uint32_t an, const struct vtrace_opts *o, struct err *e);
/* Finish that trace: the FST is in place at its path only when this returns 0 (0 also when no
 * trace was started); machine_destroy finishes it too, but cannot say whether it worked. */
int machine_trace_core_close(struct machine *r, uint32_t an, struct err *e);
/* The same for AN an's NAND write pipeline (machine.write_pipe on, its RTL in the loop). */
int machine_trace_write(struct machine *r, uint32_t an, const struct vtrace_opts *o, struct err *e);
int machine_trace_write_close(struct machine *r, uint32_t an, struct err *e);

/* ---- parameters (checkpoints) ---- */

/* The fp32 masters, optimizer state and step count, as the WN holds them. Read them between
 * steps; do not change them through this pointer (use machine_set_params). NULL in perf. */
const struct dnn_params *machine_params(const struct machine *r);
/* Restore: copy p (same model and optimizer kind) into the WN, masters, bf16 copies, state and
 * step count, and rewrite them into the WN's flash (simulated time passes; no step runs).
 * -EINVAL naming the mismatch; in perf (no parameters). */
int machine_set_params(struct machine *r, const struct dnn_params *p, struct err *e);

/* ---- records for stats.json, layers.csv and trace.json ---- */

enum machine_pass {
    MACHINE_FWD = 0,
    MACHINE_BWD = 1,
};

enum machine_phase {
    MACHINE_PH_COMPUTE = 0,  /* AN core, DMA, vector unit */
    MACHINE_PH_WEIGHT_FETCH, /* WN flash reads */
    MACHINE_PH_BROADCAST,    /* fabric down */
    MACHINE_PH_ACT_WRITE,    /* AN flash writes of activations */
    MACHINE_PH_ACT_READ,     /* AN flash reads of activations (and of the input shard) */
    MACHINE_PH_REDUCE,       /* fabric up: gradients, loss */
    MACHINE_PH_OPTIMIZER,    /* WN optimizer unit and its flash write-back */
    MACHINE_PH_N
};

const char *machine_pass_name(enum machine_pass p);   /* "fwd", "bwd" */
const char *machine_phase_name(enum machine_phase p); /* "compute", "weight_fetch", ... (column
                                               names without "_ps") */

/* One row of layers.csv (see the contract for every column). */
struct machine_layer_rec {
    uint64_t step;
    uint32_t layer; /* 1-based */
    enum machine_pass pass;
    uint64_t start_ps, end_ps;
    uint64_t phase_ps[MACHINE_PH_N]; /* indexed by enum machine_phase */
    enum machine_phase waited_on;
};

/* Every row since creation (or machine_clear_records), step by step, fwd 1..L then bwd L..1. */
const struct machine_layer_rec *machine_layer_recs(const struct machine *r, size_t *n);
void machine_clear_records(struct machine *r);

/* Resources (tracks): machine_resources() of them, named by machine_resource_name(i). */
size_t machine_resources(const struct machine *r);
const char *machine_resource_name(const struct machine *r, size_t i);

struct machine_busy {
    uint32_t res; /* resource index */
    uint64_t step;
    uint64_t start_ps, end_ps;
    const char *label; /* valid until machine_destroy */
};

/* Turn busy-interval recording on or off (off at creation); max (0: unlimited) caps the
 * number kept, later ones are counted as dropped. */
void machine_record_busy(struct machine *r, bool on, size_t max);
const struct machine_busy *machine_busy(const struct machine *r, size_t *n, uint64_t *dropped);
void machine_clear_busy(struct machine *r);

struct machine_counter {
    char name[64]; /* "an0.core.busy_ps", "wn.flash.W.pe_max", ... */
    bool is_f64;   /* value in f64, else in u64 */
    uint64_t u64;
    double f64;
    const char *unit; /* "ps", "bytes", "count", "ratio", ... */
    const char *desc;
};

/* A fresh snapshot of every counter (refreshed by each call). */
const struct machine_counter *machine_counters(struct machine *r, size_t *count);

/* Simulated time now (ps). */
uint64_t machine_now(const struct machine *r);

/* ---- another executor (models/sc: the nodes and the fabric as SystemC/TLM-2.0 modules) ---- */

struct wnode;
struct anode;

/*
 * The machine schedules the commands (dependencies, resource order, its event kernel); a port
 * takes over what happens in between. exec performs command c of program p at now and sets
 * *end and *free_at as wnode_exec, anode_exec and machine_fabric_exec do (ready: per AN, when
 * its operands of a fabric command are ready; NULL for node commands); NULL: the machine calls
 * them itself. run drives the event kernel of a step until it is empty (instead of sim_run, as
 * sim_run defines it); NULL: sim_run. Set between steps; p NULL removes the port.
 *
 * Synchronous or asynchronous, command by command: exec returns 0 when the command is done
 * (*end, *free_at set: the synchronous path, the only one without a port), a negative errno
 * when it failed (message in e), or MACHINE_PORT_STARTED when it has only started the command
 * (another executor that needs its own time to pass, e.g. a clocked SystemC model). A started
 * command holds its resource and counts as running from now; later, from within run, the port
 * calls machine_port_done with its end and free_at (or its failure), and the machine schedules
 * what follows from them exactly as if exec had returned them: the command's events take the
 * places among equal-time events that they would have taken at its start (sim_reserve), so
 * the firing order, and with it every time and result, is the synchronous path's. The port's
 * run must hold the event kernel while a command is in flight: no event after the command's
 * end may fire before its completion (machine_port_done refuses an end before the kernel's
 * now, and one before the start).
 */
#define MACHINE_PORT_STARTED 1
struct machine_port {
    int (*exec)(void *user, const struct hc_prog *p, const struct hc_cmd *c, const uint64_t *ready,
                uint64_t now, uint64_t *end, uint64_t *free_at, struct err *e);
    int (*run)(void *user, struct sim *sim, struct err *e);
    void *user;
};
void machine_set_port(struct machine *r, const struct machine_port *p);
/* The completion of command id, which exec started (MACHINE_PORT_STARTED) in the running step:
 * rc 0 with end and free_at as exec would have set them (free_at is clamped to [start, end]),
 * or rc < 0 with the message in e (NULL: a generic one), which fails the step. Returns 0, the
 * step's error (the command is then dropped: the step fails), or -EINVAL when no step runs or
 * the command is not in flight. */
int machine_port_done(struct machine *r, uint32_t id, int rc, uint64_t end, uint64_t free_at,
                      const struct err *e);
/* The nodes, for a port's executor. NULL for n >= n_an. */
struct wnode *machine_wnode(struct machine *r);
struct anode *machine_anode(struct machine *r, uint32_t n);
/* A fabric command (broadcast, reduce, loss gather) at now, AN n's operands ready at ready[n]:
 * the bytes between the nodes' tensor buffers (not in perf; a loss gather sets the step's
 * loss), then the timing of models/fabric. Errors go to the running step's message. */
int machine_fabric_exec(struct machine *r, const struct hc_cmd *c, const uint64_t *ready,
                        uint64_t now, uint64_t *end, uint64_t *free_at);
/* Its two halves, for a port that moves the bytes itself: the timing alone (as above, no bytes
 * moved), and the loss gather's result: the sum of the ANs' losses, in node order
 * (fabric_reduce_f32), which makes the step's loss sum / B. */
int machine_fabric_time(struct machine *r, const struct hc_cmd *c, const uint64_t *ready,
                        uint64_t now, uint64_t *end, uint64_t *free_at);
void machine_fabric_loss(struct machine *r, float sum);
/* The machine's fabric (for fabric_reduce_f32 and its configuration). */
const struct fabric *machine_fabric(const struct machine *r);
/* The training program the machine runs (its commands' ids index machine_cmd_times). */
const struct hc_prog *machine_program(const struct machine *r);
/* When each command of the last training step started and ended (ps), indexed by command id;
 * *n = the program's commands (0 before the first step). Valid until the next step. */
void machine_cmd_times(const struct machine *r, const uint64_t **start, const uint64_t **end,
                       size_t *n);

#endif
