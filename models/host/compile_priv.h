/*
 * compile_priv: what the host compiler's files share (not a public interface): the compiler's
 * working state and its GEMM tiler.
 *   compile.c        the scoreboard, the tensor-buffer allocator, the checks of the
 *                    configuration, the allocation of every tensor, hc_compile
 *   compile_gemm.c   the GEMM tiler: tile sizes, and the loads, GEMMs and stores of the tiles
 *   compile_step.c   the emitters of the training step and the evaluation batch
 *   compile_list.c   the names of kinds, streams, phases and resources, and the listing
 *   compile_check.c  hc_validate: the validation table
 */
#ifndef MODELS_HOST_COMPILE_PRIV_H
#define MODELS_HOST_COMPILE_PRIV_H

#include "models/host/compile.h"

#define TB_ALIGN 256u
#define MAX_RW   (2 * 64 + 8) /* buffers one command may name (fabric: every AN) */

/* ---------------------------------------------------------------- scoreboard */

struct reader {
    uint32_t id, res;
};

struct buf {
    int64_t writer; /* last writer, -1 none */
    struct reader *rd;
    uint32_t n_rd, cap_rd;
};

/* The compiler's working state. */
struct cc {
    const struct hc_cfg *cfg;
    struct hc_prog *p;
    uint32_t cap_cmd, cap_deps;
    struct buf *buf;
    uint32_t n_buf, cap_buf;
    uint32_t tmp[4 * MAX_RW + 64];
    int err;
    struct err *e;
    /* geometry */
    unsigned w;
    uint32_t a_half, b_half, c_half; /* elements per scratchpad half */
    struct core_twin_map map;
    uint32_t r, L;
    /* buffers, per AN: [an] */
    int an_in[HC_MAX_AN], an_x[HC_MAX_AN][DNN_MAX_LAYERS], an_y[HC_MAX_AN], an_logits[HC_MAX_AN],
        an_dz[HC_MAX_AN], an_g[HC_MAX_AN], an_xr[HC_MAX_AN][2], an_w[HC_MAX_AN][2],
        an_dw[HC_MAX_AN][2], an_loss[HC_MAX_AN], an_cls[HC_MAX_AN], pad_a[HC_MAX_AN][2],
        pad_b[HC_MAX_AN][2], pad_c[HC_MAX_AN][2], fl_x[HC_MAX_AN][DNN_MAX_LAYERS], fl_in[HC_MAX_AN];
    /* the core's pad ports while a command runs: a GEMM writes it, a tile store reads it, so a
     * store waits for the GEMM in flight and the next GEMM for the store (rtl/core/README.md:
     * the DMA may read a pad only while no command runs) */
    int core_port[HC_MAX_AN];
    int wn_w[2], wn_grad[2], wn_mo[2], wn_wout[2], fl_w[DNN_MAX_LAYERS], fl_m[DNN_MAX_LAYERS],
        fl_o[DNN_MAX_LAYERS], host_loss;
    /* TB addresses (same on every AN) */
    uint64_t a_in, a_x[DNN_MAX_LAYERS], a_y, a_logits, a_dz, a_g, a_xr[2], a_w[2], a_dw[2], a_loss,
        a_cls;
    uint64_t w_w[2], w_grad[2], w_mo[2], w_wout[2];
    /* per AN: which half of each pad is next, and what it holds */
    uint32_t next_a[HC_MAX_AN], next_b[HC_MAX_AN], next_c[HC_MAX_AN];
    uint32_t wload; /* weight loads so far: slot = wload % 2 */
    uint32_t tile_seq;
};

enum { LAY_PK = 0, LAY_KP = 1 };

/* An operand of a GEMM as it sits in the TB: P is M (A) or N (B), K the shared dimension. */
struct opnd {
    uint64_t tb; /* byte address of element (0, 0) */
    uint32_t ld; /* elements between TB rows */
    int lay;     /* LAY_PK: TB rows run over P; LAY_KP: TB rows run over K */
    int buf;     /* the scoreboard buffer that holds it */
};

struct plan {
    uint32_t mt, nt, tm, tn;
    int a_lay, b_lay; /* SRAM layouts */
    bool n_outer;
    uint64_t score;
};

/* One GEMM of a layer's pass on AN an: C [M x N] = op(A) op(B), A and B bf16, C fp32 with TB
 * rows over M (LAY_PK). */
struct gemm {
    uint32_t an, layer;
    enum hc_pass pass;
    enum hc_gemm g;
    uint32_t M, N, K;
    struct opnd A, B, C;
};

/* compile.c */

/* x rounded up to a multiple of a. */
uint64_t hc_ru64(uint64_t x, uint64_t a);
/* 0, or -EINVAL naming the first setting of cfg the compiler cannot take. */
int hc_check_cfg(const struct hc_cfg *cfg, struct err *e);
/* Append a command; rd/wr list the buffers it reads and writes (negative entries are
 * skipped). Returns the command (valid until the next hc_emit) or NULL on error (c->err). */
struct hc_cmd *hc_emit(struct cc *c, enum hc_kind kind, uint32_t node, uint32_t res, uint32_t layer,
                       enum hc_pass pass, enum hc_phase phase, const int *rd, size_t nrd,
                       const int *wr, size_t nwr);

/* compile_gemm.c */

/* Tile sizes and scratchpad layouts for C[M x N] = op(A) op(B) with K whole: 0, or -ENOSPC
 * with the reason (the K panel does not fit) in e. */
int hc_plan_gemm(const struct cc *c, uint32_t M, uint32_t N, uint32_t K, struct plan *best,
                 struct err *e);
/* "fwd" or "bwd", for the labels. */
const char *hc_pass_short(enum hc_pass p);
/* Emit the tiles of one GEMM: 0, or the error (c->err). */
int hc_emit_gemm(struct cc *c, const struct gemm *gm);

/* compile_step.c */

/* The bytes of layer l's W record (dnn_model_layer_stream_bytes). */
uint64_t hc_layer_stream_bytes(const struct dnn_model *m, uint32_t l);
/* Emit the whole program, training step or evaluation batch: 0, or the error (c->err). */
int hc_emit_program(struct cc *c);

#endif
