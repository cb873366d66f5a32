/*
 * core_sa_pe: C interface to the verilated processing element (rtl/core/sa_pe_cell.v: the PE
 * datapath rtl/core/sa_pe.v with its own flag registers).
 *
 * One step per cycle: a (bf16, from the left) and b (bf16, from the top) with
 * valid and the clear/last flags; the PE forwards them one cycle later and
 * hands a finished dot product out on sum/sum_valid. Numbers are raw bit
 * patterns (models/ref/bf16.h); the PE matches fp32_mac()/fp32_mac_clear().
 *
 * Cycle protocol, as for every shim: sa_pe_rtl_set() drives the inputs,
 * sa_pe_rtl_get() settles the model and reads the outputs that hold before the
 * next rising edge, sa_pe_rtl_step() advances whole cycles.
 */
#ifndef CSIM_SHIM_CORE_SA_PE_H
#define CSIM_SHIM_CORE_SA_PE_H

#include "csim/shim/vtrace.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Cycles from a step on the inputs to the same step on the forwarding outputs. */
#define SA_PE_FWD_LATENCY 1

/* The parameters the model was built with. A tile's sum is on sum (sum_valid high) 1 + acc_stages
 * cycles after its step with last was on the inputs; with acc_stages = 4 a tile's steps come four
 * cycles apart (rtl/core/sa_pe.v). */
struct sa_pe_params {
    unsigned acc_stages; /* AccStages: 1 or 4 */
};

struct sa_pe_rtl;

struct sa_pe_in {
    bool rst;
    bool valid; /* a and b are one step of a dot product */
    bool clear; /* first step of a tile: the product replaces the accumulator */
    bool last;  /* last step of a tile: the sum after it goes to sum */
    uint16_t a; /* bf16 */
    uint16_t b; /* bf16 */
};

struct sa_pe_out {
    bool valid; /* the step forwarded to the neighbours */
    bool clear;
    bool last;
    uint16_t a;
    uint16_t b;
    bool sum_valid; /* high for one cycle when sum was loaded */
    uint32_t sum;   /* fp32 bits; holds until the next last step retires */
};

/* seed randomizes the model's initial state (--x-initial unique). */
struct sa_pe_rtl *sa_pe_rtl_create(uint64_t seed);
void sa_pe_rtl_destroy(struct sa_pe_rtl *p);
void sa_pe_rtl_set(struct sa_pe_rtl *p, const struct sa_pe_in *in);
void sa_pe_rtl_get(struct sa_pe_rtl *p, struct sa_pe_out *out);
void sa_pe_rtl_step(struct sa_pe_rtl *p, uint64_t cycles);
uint64_t sa_pe_rtl_cycle(const struct sa_pe_rtl *p);
/* Start an FST trace (see vtrace.h); 0 or a negative errno. */
int sa_pe_rtl_trace(struct sa_pe_rtl *p, const struct vtrace_opts *opts);
/* Finish the FST trace: close it and rename it into place; 0 (also when none is open) or a
 * negative errno (the rename failed: nothing is left under the temporary name). */
int sa_pe_rtl_trace_close(struct sa_pe_rtl *p);
void sa_pe_rtl_params(const struct sa_pe_rtl *p, struct sa_pe_params *out);

#ifdef __cplusplus
}
#endif

#endif
