/*
 * core: C interface to the verilated compute core (rtl/core/core_top.v): a Rows x Cols bf16
 * systolic array with its scratchpads, behind a GEMM command port, a completion port and a
 * DMA port, and the owner of those ports: the command, its status codes and the configuration
 * below are shared with the C twin (models/core/core_twin.h), so a test drives the RTL and the
 * twin with the same values.
 *
 * Ports (rtl/core/README.md has the contracts):
 *   command    valid/ready, one struct core_cmd per beat;
 *   completion valid/ready: status (enum core_status) and cycles;
 *   DMA        request valid/ready (we, byte address, 64-bit data, byte strobes), response
 *              valid for one cycle CORE_DMA_LATENCY cycles after the request was accepted, with
 *              read data and an error flag, no backpressure.
 *
 * Cycle protocol, as for every shim: core_rtl_set() drives the inputs, core_rtl_get() settles the
 * model and reads the outputs that hold before the next rising edge, core_rtl_step() advances whole
 * cycles. A beat moves at a rising edge where valid && ready were both high in core_rtl_get().
 */
#ifndef CSIM_SHIM_CORE_H
#define CSIM_SHIM_CORE_H

#include "csim/shim/vtrace.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One GEMM command, the fields of the command port (core_top cmd_*_i):
 *   C[M x N] = op(A) op(B)          (accumulate == false)
 *   C[M x N] = C + op(A) op(B)      (accumulate == true: fp32_add(C_old, dot) of bf16.h)
 * op(A) is M x K: A stored M x K row-major (lda >= K), or with trans_a stored K x M (lda >= M)
 * and read transposed; op(B) is K x N: B stored K x N (ldb >= N), or with trans_b stored N x K
 * (ldb >= K). C is M x N row-major (ldc >= N). Addresses are element addresses inside the
 * operand's own pad; W = lcm(Rows, Cols, 4) elements per SRAM word. Backward pass: dX =
 * dY W^T is trans_b, dW = X^T dY is trans_a.
 */
struct core_cmd {
    uint32_t m, n, k;                /* 1 .. 65535 each */
    uint32_t a_addr, b_addr, c_addr; /* multiples of W */
    uint32_t lda, ldb, ldc;          /* multiples of W, at least the stored row length */
    bool trans_a, trans_b, accumulate;
};

/* Completion status (done_status_o); checked in this order, the first failure wins. */
enum core_status {
    CORE_OK = 0,
    CORE_ERR_DIM = 1,   /* M, N or K is 0 or above 65535 */
    CORE_ERR_LD = 2,    /* lda, ldb or ldc below the stored row length */
    CORE_ERR_ALIGN = 3, /* an address or leading dimension is not a multiple of W */
    CORE_ERR_RANGE = 4, /* an element of A, B or C lies outside its pad */
};

#define CORE_DIM_MAX     65535u
#define CORE_DMA_LATENCY 2u /* a request accepted in cycle t responds in cycle t + 2 */
#define CORE_DMA_BEAT    8u /* bytes per DMA beat */

/* The configuration the RTL was built with (core_top parameters); the twin takes the same. */
struct core_params {
    unsigned rows, cols;                /* array: 1 .. 64 each */
    uint32_t a_words, b_words, c_words; /* pad depths in words, >= 2 */
    unsigned acc_stages;                /* the PEs' accumulator stages: 1 (0 reads as 1) or 4 */
};

struct core_rtl;

struct core_in {
    bool rst;
    /* command port */
    bool cmd_valid;
    struct core_cmd cmd;
    /* completion port */
    bool done_ready;
    /* DMA request */
    bool dma_valid;
    bool dma_we;
    uint32_t dma_addr; /* byte address, a multiple of 8 */
    uint64_t dma_wdata;
    uint8_t dma_wstrb; /* bit b: byte b (address dma_addr + b) */
};

struct core_out {
    bool cmd_ready;
    bool done_valid;
    enum core_status done_status;
    uint32_t done_cycles;
    bool dma_ready;
    bool dma_resp_valid;
    uint64_t dma_resp_rdata;
    bool dma_resp_err;
    bool busy; /* a command is executing */
};

/* seed randomizes the model's initial state, pads included (--x-initial unique). */
struct core_rtl *core_rtl_create(uint64_t seed);
void core_rtl_destroy(struct core_rtl *p);
/* The parameters the model was verilated with. */
void core_rtl_params(const struct core_rtl *p, struct core_params *cfg);
void core_rtl_set(struct core_rtl *p, const struct core_in *in);
void core_rtl_get(struct core_rtl *p, struct core_out *out);
void core_rtl_step(struct core_rtl *p, uint64_t cycles);
/* Account for idle cycles (inputs steady, no command, no DMA) without evaluating. */
void core_rtl_skip(struct core_rtl *p, uint64_t cycles);
uint64_t core_rtl_cycle(const struct core_rtl *p);
/* Start an FST trace (see vtrace.h); 0 or a negative errno. */
int core_rtl_trace(struct core_rtl *p, const struct vtrace_opts *opts);
/* Finish the FST trace: close it and rename it into place; 0 (also when none is open) or a
 * negative errno (the rename failed: nothing is left under the temporary name). */
int core_rtl_trace_close(struct core_rtl *p);

#ifdef __cplusplus
}
#endif

#endif
