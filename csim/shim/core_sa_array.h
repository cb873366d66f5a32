/*
 * core_sa_array: C interface to the verilated systolic array rtl/core/sa_array.v (the grid of
 * PEs with its operand skew, flag pipeline and row read-out), for the array's own block test.
 *
 * One k-step per cycle in (unskewed: lane r of a is op(A)[i0+r][k], lane c of b op(B)[k][j0+c],
 * with valid and the tile's clear/last flags); one finished row per cycle out (row_valid, lane c
 * of row_sum). No backpressure either way. Numbers are raw bit patterns (models/ref/bf16.h).
 *
 * Cycle protocol, as for every shim: sa_array_rtl_set() drives the inputs, sa_array_rtl_get()
 * settles the model and reads the outputs that hold before the next rising edge,
 * sa_array_rtl_step() advances whole cycles.
 */
#ifndef CSIM_SHIM_CORE_SA_ARRAY_H
#define CSIM_SHIM_CORE_SA_ARRAY_H

#include "csim/shim/vtrace.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SA_ARRAY_MAX_LANES 64 /* Rows and Cols: 1 .. 64 */

/* The parameters the model was built with (rtl/core/sa_array.v says what each one means). */
struct sa_array_params {
    unsigned rows, cols;
    unsigned acc_stages; /* AccStages: 1, or 4 (a step's slot: cycles since reset mod 4) */
};

struct sa_array_rtl;

struct sa_array_in {
    bool rst;
    bool valid;                     /* a and b are one k-step */
    bool clear;                     /* first step of a tile */
    bool last;                      /* last step of a tile */
    uint16_t a[SA_ARRAY_MAX_LANES]; /* bf16, lanes 0 .. rows - 1 */
    uint16_t b[SA_ARRAY_MAX_LANES]; /* bf16, lanes 0 .. cols - 1 */
};

struct sa_array_out {
    bool row_valid;                       /* row_sum is one finished row of a tile */
    uint32_t row_sum[SA_ARRAY_MAX_LANES]; /* fp32, lanes 0 .. cols - 1 */
};

/* seed randomizes the model's initial state (--x-initial unique). */
struct sa_array_rtl *sa_array_rtl_create(uint64_t seed);
void sa_array_rtl_destroy(struct sa_array_rtl *p);
void sa_array_rtl_set(struct sa_array_rtl *p, const struct sa_array_in *in);
void sa_array_rtl_get(struct sa_array_rtl *p, struct sa_array_out *out);
void sa_array_rtl_step(struct sa_array_rtl *p, uint64_t cycles);
uint64_t sa_array_rtl_cycle(const struct sa_array_rtl *p);
/* Start an FST trace (see vtrace.h); 0 or a negative errno. */
int sa_array_rtl_trace(struct sa_array_rtl *p, const struct vtrace_opts *opts);
/* Finish the FST trace: close it and rename it into place; 0 (also when none is open) or a
 * negative errno (the rename failed: nothing is left under the temporary name). */
int sa_array_rtl_trace_close(struct sa_array_rtl *p);
void sa_array_rtl_params(const struct sa_array_rtl *p, struct sa_array_params *out);

#ifdef __cplusplus
}
#endif

#endif
