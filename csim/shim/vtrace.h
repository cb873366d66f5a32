/*
 * vtrace: waveform options shared by every verilated-block shim.
 *
 * Full-signal tracing slows a verilated model 30-150x, so a trace is limited
 * to a window of clock cycles and to a list of scopes. The FST file is
 * written under "<path>.tmp" and renamed to <path> by <block>_rtl_trace_close,
 * whose result says whether the file is in place (or, unchecked, when the model
 * is destroyed), so an interrupted run never leaves a half-written file behind.
 * Timestamps are in picoseconds: cycle c has its rising edge at c * period_ps.
 */
#ifndef CSIM_SHIM_VTRACE_H
#define CSIM_SHIM_VTRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vtrace_opts {
    const char *path;     /* FST file to write */
    uint64_t first_cycle; /* first cycle dumped */
    uint64_t last_cycle;  /* last cycle dumped (inclusive); UINT64_MAX = no end */
    const char *scopes;   /* comma-separated scopes, e.g. "TOP.cmn_fifo"; NULL or "" = all */
    uint64_t period_ps;   /* clock period in the waves; 0 means 1000 ps (1 GHz) */
};

#ifdef __cplusplus
}
#endif

#endif
