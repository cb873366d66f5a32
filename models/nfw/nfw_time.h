/*
 * nfw_time: times a node's flash writes on the NAND write path (rtl/nfw/nfw_lanes.v: Lanes
 * write pipelines side by side), by running its cycle-exact twin
 * (models/nfw/nfw_lanes_twin.h) on every write.
 *
 * Contract
 * --------
 * Modelled: the write path's own time for one write command, in cycles of its clock: the twin
 *   takes the command from idle, splits it at program-unit boundaries over the lanes, each
 *   lane reads its bytes through its own memory port from a timing-only
 *   copy of the node's tensor buffer (the dram model's configuration, served by dram_port:
 *   latency, channels, reads in flight), aligns them, packs pages into program units at the
 *   stream's append point, allocates blocks and issues every page's program command and data;
 *   the write's cycles end when the last page's completion has been taken. The lanes: as many
 *   as the flash memory system's program bound needs (nfw_time_lanes), so that a long write
 *   is bounded by the FMS, not by the pipelines. Every write runs
 *   the twin, cycle by cycle: nothing is memoised. The twin keeps its state between writes
 *   (the streams' append points, the allocator), as the hardware does.
 * The environment is ideal around the pipeline: the channels take every command and beat at
 *   once and the firmware takes every completion at once, so the count is the pipeline's bound;
 *   the flash memory system's own time is the FTL's (models/flash), and a caller takes the
 *   slower of the two (models/node/nflash.c). The firmware frees a stream's physical block
 *   as soon as every lane has moved to the next one (the FTL does the real erases). The
 *   lanes' memory ports share the timing-only tensor buffer (its channels' contention).
 * Not modelled: the bytes. The tensor buffer copy holds no contents: the twin moves zeros and
 *   the caller carries the payload (nflash's record store or the flash model's pages). A
 *   write starts with the pipeline idle: back-to-back commands are not overlapped. The twin's
 *   append point follows only the writes it has run: a log that skips to a fresh logical
 *   block (slog's fresh-block alignment) moves the FTL's append point, not the twin's.
 * Fidelity (nfw_time_set_mode): the twin (tlm), the verilated nfw_top through a backend
 *   (rtl: nfw_be_rtl_ops, models/nfw/nfw_be_rtl.c; the program links a model verilated with
 *   nfw_time_params' parameters), or both on the same inputs (lockstep: every output of every
 *   cycle compared with nfw_out_diff; the first difference stops the write with a report:
 *   write, stream, length, cycle, field, both values). The environment is one: in lockstep it
 *   answers the RTL's requests and both see its answers. A model that was not running (the
 *   RTL before its first rtl step, the twin during rtl steps) first catches up, so that both
 *   always hold the state of the same write history: the RTL, when the twin has run that
 *   history, takes a copy of the twin's state (the lanes are at rest between writes, and
 *   their history then lives in the registers of struct nfw_lanes_state, which the shim
 *   writes into the verilated model: nfw_lanes_rtl_load); otherwise a model replays, alone,
 *   the writes it missed, at their cycles' cost (the twin after rtl steps: it is cheap). The
 *   copy runs nothing in the environment, the replay did; a write starts with every memory
 *   port empty and every tensor-buffer channel free, so its cycles do not depend on that.
 *   Lockstep after a copy compares every cycle as after a replay (test_nfw_time_paper,
 *   test_nfw_time_small).
 * Units: cycles of the pipeline clock, bytes.
 */
#ifndef MODELS_NFW_NFW_TIME_H
#define MODELS_NFW_NFW_TIME_H

#include <stdint.h>

#include "csim/err.h"
#include "csim/shim/vtrace.h"
#include "csim/shim/nfw_lanes.h"
#include "models/dram/dram.h"
#include "models/flash/flash_cfg.h"

struct nfw_time;

/* A model of the write lanes behind the ports of csim/shim/nfw_lanes.h. */
struct nfw_be_ops {
    const char *name; /* "twin", "rtl" */
    /* The model with parameters p; the RTL refuses parameters other than its build's. */
    int (*create)(const struct nfw_lanes_params *p, uint64_t seed, void **out, struct err *e);
    void (*destroy)(void *h);
    void (*set)(void *h, const struct nfw_lanes_in *in);
    void (*get)(void *h, struct nfw_lanes_out *out);
    void (*step)(void *h, uint64_t cycles);
    /* Optional (the twin): its inputs and outputs in place, for a model run alone (set and
     * get without the copies: write *in before step, read *out after it). */
    void (*io)(void *h, struct nfw_lanes_in **in, const struct nfw_lanes_out **out);
    /* Optional: the model's history-dependent state while it is idle (0, or -EBUSY), and
     * the loading of one into an idle model reset and configured alike (csim/shim/nfw_lanes.h,
     * struct nfw_lanes_state). The twin gives its state, the RTL takes one. */
    int (*state)(void *h, struct nfw_lanes_state *s);
    void (*load)(void *h, const struct nfw_lanes_state *s);
    /* Optional (NULL: none, the twin): start an FST trace; finish it (0 also when none). */
    int (*trace)(void *h, const struct vtrace_opts *o, struct err *e);
    int (*trace_close)(void *h, struct err *e);
};

extern const struct nfw_be_ops nfw_be_twin_ops;
/* models/nfw/nfw_be_rtl.c: the verilated nfw_lanes the program links (csim/shim/nfw_lanes.h). */
extern const struct nfw_be_ops nfw_be_rtl_ops;

enum nfw_time_mode {
    NFW_TIME_TWIN = 0,     /* tlm */
    NFW_TIME_RTL = 1,      /* the verilated RTL */
    NFW_TIME_LOCKSTEP = 2, /* both, compared every cycle */
};

/*
 * The write path for the flash memory system fc (its geometry: pages, planes, channels, dies,
 * pages per block; its t_prog for the lanes), with `streams` streams of lblocks[i] logical
 * blocks each, clocked at period_ps, reading from a tensor buffer configured as tb. 0,
 * -EINVAL (a geometry or stream the pipeline cannot take, with the parameter named), -ENOMEM.
 */
int nfw_time_create(const struct flash_cfg *fc, unsigned streams, const uint32_t *lblocks,
                    uint64_t period_ps, const struct dram_cfg *tb, struct nfw_time **out,
                    struct err *e);
void nfw_time_destroy(struct nfw_time *t);

/*
 * The lanes the write path of fc needs at period_ps: one pipeline moves 8 bytes a cycle, the
 * FMS programs dies x planes x page bytes per t_prog, so lanes = that / (8 / period), rounded
 * up to a power of two, at most the channels (and 16). The paper's FMS at 0.8 GHz:
 * 128 x 8 x 4096 B / 100 us = 41.9 GB/s against 6.4 GB/s a lane: 6.6, so 8 lanes.
 */
unsigned nfw_time_lanes(const struct flash_cfg *fc, uint64_t period_ps);

/* The twin's parameters for fc (what nfw_time_create builds; the RTL in the loop is built
 * with the same: rtl/nfw/block.mk). */
void nfw_time_params(const struct flash_cfg *fc, unsigned streams, uint64_t period_ps,
                     struct nfw_lanes_params *p);

/*
 * Run the write of `bytes` (>= 1) from tensor-buffer address tb_addr into stream `stream` on
 * the model(s) of the mode, from idle to its last completion; *cycles = its pipeline cycles.
 * 0, -EINVAL (bad stream or range), -EIO (a completion with the error flag, or no end: a bug,
 * with a message), -EPROTO (lockstep: the RTL and the twin differ; e says where), -ENOMEM.
 */
int nfw_time_write(struct nfw_time *t, unsigned stream, uint64_t tb_addr, uint64_t bytes,
                   uint64_t *cycles, struct err *e);

/* From the next write on. rtl and lockstep need rtl (the RTL backend): -EINVAL without it,
 * or its create's error (a model built with other parameters). */
int nfw_time_set_mode(struct nfw_time *t, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                      uint64_t seed, struct err *e);
enum nfw_time_mode nfw_time_mode(const struct nfw_time *t);

/* An FST trace of the RTL in the loop (rtl or lockstep mode; -EINVAL otherwise), and its end:
 * the file is in place only when the close returns 0 (0 also when none was started). */
int nfw_time_trace(struct nfw_time *t, const struct vtrace_opts *o, struct err *e);
int nfw_time_trace_close(struct nfw_time *t, struct err *e);

uint64_t nfw_time_period_ps(const struct nfw_time *t);
/* Cycles run in all (for the wall-clock cost). */
uint64_t nfw_time_total_cycles(const struct nfw_time *t);
/* Writes a model replayed to catch up (those the RTL took as a state copy are not counted). */
uint64_t nfw_time_replayed(const struct nfw_time *t);

#endif
