/*
 * compile: the host compiler: a fully connected model and a machine (N Activation Nodes, one
 * Weight Node, the fabric) into per-node command sequences for one training step (or one
 * evaluation batch), with the tensor-buffer allocation and the checks that the model fits.
 *
 * Contract
 * --------
 * Modelled:
 *   - Commands (enum hc_kind): flash reads and writes, fabric broadcast / reduce / loss gather,
 *     host writes (evaluation inputs), DMA loads and stores between a tensor buffer (TB) and the
 *     core's scratchpads, GEMMs (a struct core_cmd each), vector-unit operations, optimizer
 *     updates. Each has an id, a node, a resource, the layer and pass it belongs to, its
 *     operands, and its dependencies: ids of earlier commands only, so the program order is a
 *     valid schedule and a resource that runs its commands in program order cannot deadlock.
 *   - Dependencies are derived, not written by hand: every command names the buffers it reads
 *     and writes (TB regions, scratchpad halves, flash records); the compiler adds read-after-
 *     write, write-after-read and write-after-write edges against earlier commands.
 *   - Tiling: every GEMM is tiled over M and N only, never over K (splitting K would change the
 *     summation order and the bits). A tile's A panel (all K), B panel (all K) and C tile each
 *     fit half of their scratchpad (double buffering: the DMA fills one half while the core
 *     works on the other). Addresses and leading dimensions are multiples of W (the core's
 *     alignment rule); each operand is placed M x K or K x M (N x K or K x N) in the pad,
 *     whichever fits better, using the DMA's transpose or the core's trans flags. The tile
 *     sizes minimise an estimate of max(core cycles, DMA beats) over a few candidates.
 *   - TB allocation (per AN and for the WN): two weight slots (double-buffered weights), the
 *     input shard, each layer's bf16 input, the GEMM output, dZ, G, two read-back buffers, two
 *     gradient slots; at the WN two weight slots, two gradient slots, two master/state slots
 *     and two write-back slots.
 *   - Validation (hc_validate): a table of checks with need, capacity and OK/FAIL.
 * Not modelled: layers other than FC + ReLU + softmax cross-entropy; perf-mode coarsening.
 * Units: bytes (TB addresses, sizes), elements (GEMM dimensions, scratchpad addresses inside
 * struct core_cmd), DMA descriptors in bytes of their memories (the SRAM side is the core's
 * unified DMA map: A-pad at 0, B-pad, C-pad).
 */
#ifndef MODELS_HOST_COMPILE_H
#define MODELS_HOST_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csim/err.h"
#include "models/core/core_twin.h"
#include "models/dma/dma_desc.h"
#include "models/dnn/dnn_model.h"
#include "models/node/vu.h"

#define HC_WN     0xFFFFu /* node number of the Weight Node (ANs are 0..N-1) */
#define HC_MAX_AN 64      /* Activation Nodes a program may have */
#define HC_LABEL  48

enum hc_kind {
    HC_FLASH_RD = 0,  /* flash record -> TB (AN: input shard, activations; WN: weights,
                         masters/state) */
    HC_FLASH_WR,      /* TB -> flash record (AN: activations; WN: weights, masters, state) */
    HC_FABRIC_BCAST,  /* WN TB -> every AN's TB */
    HC_FABRIC_REDUCE, /* every AN's TB -> summed in node order -> WN TB */
    HC_LOSS_GATHER,   /* every AN's shard loss -> summed in node order -> host */
    HC_HOST_WR,       /* host -> AN TB (evaluation inputs; no simulated time) */
    HC_DMA_IN,        /* TB -> scratchpad */
    HC_DMA_OUT,       /* scratchpad -> TB */
    HC_GEMM,          /* core command */
    HC_VU,            /* vector-unit operation (enum vu_op) */
    HC_OPT_UPDATE,    /* WN optimizer on one layer */
    HC_N_KINDS
};

/* Flash streams (models/flash/ftl_layout.h region names). */
enum hc_stream {
    HC_S_NV = 0, /* AN: training inputs */
    HC_S_V,      /* AN: activations */
    HC_S_W,      /* WN: bf16 weights + fp32 biases (the broadcast copy) */
    HC_S_M,      /* WN: fp32 master weights and biases */
    HC_S_O,      /* WN: optimizer state */
    HC_N_STREAMS
};

enum hc_pass {
    HC_FWD = 0,
    HC_BWD = 1,
};

/* Which GEMM of a layer. */
enum hc_gemm {
    HC_G_FWD = 0, /* Y = X Wq */
    HC_G_DW,      /* dW = X^T G */
    HC_G_DX,      /* dX = G Wq^T */
};

/* Phase a command's time counts for (same order as enum machine_phase). */
enum hc_phase {
    HC_PH_COMPUTE = 0,
    HC_PH_WEIGHT_FETCH,
    HC_PH_BROADCAST,
    HC_PH_ACT_WRITE,
    HC_PH_ACT_READ,
    HC_PH_REDUCE,
    HC_PH_OPTIMIZER,
    HC_PH_N
};

/* Resources: fixed ones, then HC_RES_AN_N per AN (index hc_res_an(n, HC_RES_AN_*)). */
enum hc_res {
    HC_RES_WN_FLASH_RD = 0,
    HC_RES_WN_FLASH_WR,
    HC_RES_WN_OPT,
    HC_RES_FABRIC_DOWN,
    HC_RES_FABRIC_UP,
    HC_RES_HOST,
    HC_RES_FIXED
};
enum hc_res_an {
    HC_RES_AN_FLASH_RD = 0,
    HC_RES_AN_FLASH_WR,
    HC_RES_AN_DMA,
    HC_RES_AN_CORE,
    HC_RES_AN_VU,
    HC_RES_AN_DMA_ACT, /* the DMA's second queue: perf programs' activations between the cores'
                          SRAM and the buffer, beside the weight streams of the first */
    HC_RES_AN_N
};

static inline uint32_t hc_res_an(uint32_t an, enum hc_res_an r)
{
    return HC_RES_FIXED + an * HC_RES_AN_N + (uint32_t)r;
}

struct hc_cmd {
    uint32_t id;
    uint8_t kind;  /* enum hc_kind */
    uint8_t op;    /* HC_VU: enum vu_op; flash: enum hc_stream; GEMM: enum hc_gemm */
    uint8_t pass;  /* enum hc_pass */
    uint8_t phase; /* enum hc_phase */
    uint16_t node; /* AN index or HC_WN */
    uint16_t layer;
    uint32_t res;
    uint32_t tile;       /* GEMM and DMA: tile number inside the layer's GEMM; OPT_UPDATE: its
                            piece of the record (perf programs) */
    uint32_t dep0, ndep; /* dependencies: prog->deps[dep0 .. dep0 + ndep) */
    uint64_t bytes;      /* payload moved (flash, fabric, DMA, host), for listings */
    uint64_t cycles;     /* perf programs: the duration in cycles of the resource's clock (core
                            clock for DMA, GEMM and VU; the optimizer unit's for OPT_UPDATE),
                            worked out by the compiler for a command that stands for many;
                            0: from the operands, as the blocks' timing models give it */
    uint8_t sub;         /* perf programs: GEMM and DMA: enum zoo_gemm_role (op holds the
                            enum zoo_gemm_kind); VU: 0 (op holds the enum zoo_vec_kind) */
    bool banked;         /* perf programs: GEMM and DMA on the scaled core's banked SRAM, not
                            the RTL's pads, so the pads' port rule does not apply */
    union {
        struct dma_desc dma; /* DMA_IN / DMA_OUT: TB and SRAM byte addresses */
        struct core_cmd gemm;
        struct {
            uint64_t src, src2, dst, dst2; /* TB addresses (see hc.c for each op) */
            uint32_t rows, cols;
            bool relu;
        } vu;
        struct {
            uint64_t tb;  /* TB address of the record */
            uint32_t rec; /* record: layer (V, W, M, O) */
        } fl;
        struct {
            uint64_t src, dst; /* TB address on the sending side / receiving side */
        } fab;
        struct {
            uint64_t grad;   /* WN TB: the reduced gradients (fp32 dW then db) */
            uint64_t state;  /* WN TB: the M record, then the O record at the next TB_ALIGN
                                boundary (as the FLASH_RDs of M and O placed them) */
            uint64_t wout;   /* WN TB: the write-back slot (W, M, O records, each aligned) */
            uint64_t params; /* parameters updated (perf programs; else the layer's) */
        } opt;
    } u;
    char label[HC_LABEL];
};

/* A TB region, for listings and validation. */
struct hc_region {
    char name[24];
    uint64_t addr, bytes;
};

#define HC_MAX_REGIONS 64

/* What the compiler needs to know about the machine. */
struct hc_cfg {
    struct dnn_model model;
    uint32_t n_an, batch;
    struct core_params core;
    uint64_t tb_bytes; /* each node's tensor buffer */
    bool keep_output_resident;
    bool eval;                /* forward only: host inputs, no flash writes, argmax */
    uint32_t opt_state_words; /* fp32 state values per parameter: 1 (SGD) or 2 (Adam) */
    /* flash streams, for validation: capacity and logical-block size in bytes, page size */
    uint64_t stream_cap[HC_N_STREAMS];
    uint64_t stream_lb[HC_N_STREAMS];
    uint32_t an_page, wn_page;
    uint32_t samples; /* samples per epoch the NV streams hold (0: one batch) */
    bool act_fresh_lb;
};

struct hc_prog {
    struct hc_cfg cfg;
    bool perf;         /* payload-free (models/host/compile_zoo.h): no operands in the tensor
                          buffers, every command's time from `cycles` or its block's timing of
                          `bytes`; only the perf fidelity runs it */
    uint32_t n_layers; /* layers (perf programs: block instances), numbered 1..n_layers */
    uint32_t n_rec[HC_N_STREAMS];     /* record numbers of each stream are 0..n_rec - 1 */
    uint64_t *rec_size[HC_N_STREAMS]; /* perf programs: bytes of each record (NULL: see
                                         rec_bytes) */
    uint32_t rows;                    /* r = B / N: rows per AN */
    struct hc_cmd *cmd;
    uint32_t n_cmd;
    uint32_t *deps;
    uint32_t n_deps;
    uint32_t n_res; /* resources: HC_RES_FIXED + N * HC_RES_AN_N */
    struct hc_region an_tb[HC_MAX_REGIONS], wn_tb[HC_MAX_REGIONS];
    uint32_t n_an_tb, n_wn_tb;
    uint64_t an_tb_used, wn_tb_used;
    /* TB addresses the machine needs */
    uint64_t an_in;     /* input shard: r x inputs u8, then r labels */
    uint64_t an_logits; /* r x classes fp32 */
    uint64_t an_cls;    /* r predicted classes (eval) */
    uint64_t an_loss;   /* fp32 shard loss */
    uint64_t rec_bytes[HC_N_STREAMS][DNN_MAX_LAYERS]; /* bytes of each flash record */
    uint32_t gemms;                                   /* GEMM commands per AN */
};

const char *hc_kind_name(enum hc_kind k);
const char *hc_stream_name(enum hc_stream s);
/* The streams' names, the one table of them: an AN's are hc_stream_names + HC_S_NV (2), the
 * WN's hc_stream_names + HC_S_W (3). */
extern const char *const hc_stream_names[HC_N_STREAMS];
#define HC_AN_STREAMS (hc_stream_names + HC_S_NV)
#define HC_WN_STREAMS (hc_stream_names + HC_S_W)
const char *hc_phase_name(enum hc_phase p);
/* "wn.flash_rd", "an3.core", ... into buf. */
void hc_res_name(uint32_t res, char *buf, size_t len);

/* Compile; 0, -EINVAL (bad configuration), -ENOSPC (does not fit: a panel, a buffer), -ENOMEM,
 * with the reason in e. */
int hc_compile(const struct hc_cfg *c, struct hc_prog **out, struct err *e);
void hc_prog_free(struct hc_prog *p);

/* The listing of --compile_only: TB maps, then each node's commands, one per line. */
void hc_print(const struct hc_prog *p, FILE *f);
/* One command as a line (no newline). */
void hc_format(const struct hc_prog *p, const struct hc_cmd *c, char *buf, size_t len);

/* The table of --validate_only (out may be NULL). 0 if everything fits, else -ENOSPC or
 * -EINVAL with every failed check in e. */
int hc_validate(const struct hc_cfg *c, FILE *out, struct err *e);

#endif
