/*
 * common_vpipe: C interface to a verilated single-stream block, one valid/ready
 * input and one valid/ready output carrying up to 64 payload bits
 * (rtl/common: cmn_skid_buf, cmn_fifo). One shim, csim/shim/common_vpipe.cpp, serves
 * them all: it is compiled once per verilated block and configuration
 * (VPIPE_MODULE names the block), and a test links one of them.
 *
 * Cycle protocol, as for every shim: vpipe_rtl_set() drives the inputs,
 * vpipe_rtl_get() settles the model and reads the outputs that hold before the
 * next rising edge, vpipe_rtl_step() advances whole cycles. A beat moves at a
 * rising edge where valid && ready were both high in vpipe_rtl_get().
 */
#ifndef CSIM_SHIM_COMMON_VPIPE_H
#define CSIM_SHIM_COMMON_VPIPE_H

#include "csim/shim/vtrace.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vpipe_rtl;

/* Parameters the model was verilated with. */
struct vpipe_params {
    const char *module; /* RTL module name */
    unsigned width;     /* payload bits */
    unsigned depth;     /* entries buffered at most (2 for a skid buffer) */
};

struct vpipe_in {
    bool rst;
    bool in_valid;
    uint64_t in_data;
    bool out_ready;
};

struct vpipe_out {
    bool in_ready;
    bool out_valid;
    uint64_t out_data;
    int level; /* entries held, or -1 if the block does not report it */
};

/* seed randomizes the model's initial state (--x-initial unique). */
struct vpipe_rtl *vpipe_rtl_create(uint64_t seed);
void vpipe_rtl_destroy(struct vpipe_rtl *p);
void vpipe_rtl_params(const struct vpipe_rtl *p, struct vpipe_params *out);
void vpipe_rtl_set(struct vpipe_rtl *p, const struct vpipe_in *in);
void vpipe_rtl_get(struct vpipe_rtl *p, struct vpipe_out *out);
void vpipe_rtl_step(struct vpipe_rtl *p, uint64_t cycles);
/* Account for idle cycles (inputs steady, block empty) without evaluating. */
void vpipe_rtl_skip(struct vpipe_rtl *p, uint64_t cycles);
uint64_t vpipe_rtl_cycle(const struct vpipe_rtl *p);
/* Start an FST trace (see vtrace.h); 0 or a negative errno. */
int vpipe_rtl_trace(struct vpipe_rtl *p, const struct vtrace_opts *opts);
/* Finish the FST trace: close it and rename it into place; 0 (also when none is open) or a
 * negative errno (the rename failed: nothing is left under the temporary name). */
int vpipe_rtl_trace_close(struct vpipe_rtl *p);

#ifdef __cplusplus
}
#endif

#endif
