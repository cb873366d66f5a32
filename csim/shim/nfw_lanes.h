/*
 * nfw_lanes: C interface to the verilated NAND write lanes (rtl/nfw/nfw_lanes.v: Lanes write
 * pipelines behind one command port and one completion port), and the port structs shared
 * with their C twin (models/nfw/nfw_lanes_twin.h), which implements the same ports cycle for
 * cycle.
 *
 * The ports are nfw_top's (csim/shim/nfw.h), lane by lane: struct nfw_lanes_in/out hold one
 * struct nfw_in/nfw_out per lane. Lane l's memory port (mem_*) and channel ports (prog_*,
 * pdat_*) are the fields of l[l]; the ports the lanes share (rst, cmd, done, cfg, idle) are
 * the fields of l[0], and the other lanes' copies of them are ignored (inputs) or zero
 * (outputs). So lane l's struct is a whole nfw_top port view for code that serves one
 * pipeline (the memory-port and channel BFMs), lane 0's with the shared ports too. Program
 * commands carry the flash memory system's channel and die numbers, completions its die and
 * logical page numbers.
 *
 * Cycle protocol, as for every shim: nfw_lanes_rtl_set() drives the inputs,
 * nfw_lanes_rtl_get() settles the model and reads the outputs that hold before the next rising
 * edge, nfw_lanes_rtl_step() advances whole cycles. Every output is a register.
 */
#ifndef CSIM_SHIM_NFW_LANES_H
#define CSIM_SHIM_NFW_LANES_H

#include "csim/shim/nfw.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NFW_MAX_LANES 16

/* Parameters the model was built with (rtl/nfw/nfw_lanes.v): nfw_top's with the flash memory
 * system's channels (every lane has channels / lanes of them), and the lanes. bbt_entries,
 * slots and max_reads are per lane. */
struct nfw_lanes_params {
    struct nfw_params p;
    unsigned lanes;
};

struct nfw_lanes_in {
    struct nfw_in l[NFW_MAX_LANES];
};

struct nfw_lanes_out {
    struct nfw_out l[NFW_MAX_LANES];
};

/* The lanes' state that depends on their write history once they are at rest (see struct
 * nfw_state: no command held, no completion in the merger, every lane at rest): the splitter's
 * cursor per stream, the merger's round-robin pointer, and each lane's pipeline state. */
struct nfw_lanes_state {
    uint8_t split_plane[NFW_STATE_STREAMS], split_lane[NFW_STATE_STREAMS]; /* plane_q, lane_q */
    unsigned rr;                                                           /* rr_q */
    bool idle; /* idle_q, a cycle late as the lanes' */
    struct nfw_state l[NFW_MAX_LANES];
};

struct nfw_lanes_rtl;

struct nfw_lanes_rtl *nfw_lanes_rtl_create(uint64_t seed);
void nfw_lanes_rtl_destroy(struct nfw_lanes_rtl *p);
void nfw_lanes_rtl_params(const struct nfw_lanes_rtl *p, struct nfw_lanes_params *out);
void nfw_lanes_rtl_set(struct nfw_lanes_rtl *p, const struct nfw_lanes_in *in);
void nfw_lanes_rtl_get(struct nfw_lanes_rtl *p, struct nfw_lanes_out *out);
void nfw_lanes_rtl_step(struct nfw_lanes_rtl *p, uint64_t cycles);
uint64_t nfw_lanes_rtl_cycle(const struct nfw_lanes_rtl *p);
int nfw_lanes_rtl_trace(struct nfw_lanes_rtl *p, const struct vtrace_opts *opts);
/* Load s into the history-dependent registers of a model at rest, reset and configured as the
 * one s was taken from (its other outputs are unchanged), then settle its logic. */
void nfw_lanes_rtl_load(struct nfw_lanes_rtl *p, const struct nfw_lanes_state *s);
int nfw_lanes_rtl_trace_close(struct nfw_lanes_rtl *p);

#ifdef __cplusplus
}
#endif

#endif
