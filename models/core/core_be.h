/*
 * core_be: the compute core of an Activation Node behind one interface, so that the node can
 * run the C twin (tlm), the verilated RTL (rtl) or both compared (lockstep) and switch between
 * them between steps.
 *
 * Contract
 * --------
 * Modelled: what the node needs of its core: write and read bytes of the core's unified DMA
 * map (A-pad at 0, then B-pad, then C-pad; models/core/core_twin.h), run one GEMM command and
 * get its status and cycle count, and (RTL) start a waveform trace. A backend is a table of
 * functions and one handle per core.
 *   - core_be_tlm_ops: the C twin; pad access is a memcpy.
 *   - core_be_rtl_ops (models/core/core_be_rtl.c): the verilated core_top through its shim
 *     (csim/shim/core.h). Pad access goes through the core's DMA port, one 8-byte beat per cycle
 *     with byte strobes; a command goes through the command port and the completion is waited
 *     for, cycle by cycle. That file references the shim, so only a program that links a
 *     verilated core model may reference core_be_rtl_ops (a static library pulls the object in
 *     only then): the flashstream program and testbench/machine/test_system_rtl.c do.
 *   - core_be_lockstep_*: a twin and an RTL core side by side: every write goes to both, every
 *     GEMM runs on both, then status, cycles and every output element of C are compared; reads
 *     are compared too. The first divergence fails the call (-EPROTO) with a report naming the
 *     block, the command (a label the caller sets), the RTL cycle, the element and both values.
 *   - an_be_rtl_ops (models/an/an_be_rtl.c): the verilated Activation Node datapath
 *     (rtl/an/an_top.v: the tensor-buffer DMA and the core joined at the core's DMA port). It
 *     has its own DMA: a DMA command runs through the RTL DMA between the node's tensor buffer
 *     (its dram model behind the port BFM) and the pads (attach, dma); a GEMM through the
 *     command port. Its lockstep form (an_be_rtl_ops.lockstep) runs the DMA twin and the core
 *     twin beside it: the DMA's outer ports (descriptor, completion, tensor-buffer requests
 *     with their write data) and its requests to the pads (with the bytes a load writes
 *     there) are compared every cycle of every DMA command, a GEMM's status and cycles after
 *     it; the first divergence fails the call (-EPROTO) naming the block, the command, the
 *     cycle and what differed. The C-pad is not read but by the DMA (an_top has no other
 *     port to it): a wrong GEMM result shows where the program stores it back to the tensor
 *     buffer.
 * Not modelled here: timing between commands (the node's scheduler owns time); for the core
 * backends, the DMA engine (the node moves bytes itself and times them with the DMA twin).
 * Units: bytes of the DMA map; cycles of the core clock.
 */
#ifndef MODELS_CORE_CORE_BE_H
#define MODELS_CORE_CORE_BE_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "csim/shim/dma.h"
#include "csim/shim/vtrace.h"
#include "models/core/core_twin.h"
#include "models/dram/dram_port.h"

struct core_be_ops {
    const char *name; /* "tlm", "rtl" */
    /* One core of configuration cfg into *out; seed randomises the RTL's initial state. The
     * RTL backend refuses a cfg other than the model's. */
    int (*create)(const struct core_params *cfg, uint64_t seed, void **out, struct err *e);
    void (*destroy)(void *h);
    /* rows of len bytes at DMA byte addresses addr + i * stride (each a multiple of 8; len
     * any), from / into buf holding the rows packed (row i at buf + i * len). 0, or -EINVAL
     * (outside the map, misaligned) / -EIO (the port answered with an error) /
     * -ETIMEDOUT (the port stopped answering). */
    int (*write)(void *h, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len,
                 const void *buf, struct err *e);
    int (*read)(void *h, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, void *buf,
                struct err *e);
    /* One GEMM: *res = status and cycles. 0, or a negative errno (host failure, -ETIMEDOUT,
     * -EPROTO: the lockstep pair diverged, e says where). */
    int (*exec)(void *h, const struct core_cmd *cmd, struct core_twin_result *res, struct err *e);
    /* Optional (NULL: not supported): start an FST trace. */
    int (*trace)(void *h, const struct vtrace_opts *o, struct err *e);
    /* Optional: finish the trace (close, rename into place); 0 also when none is open. */
    int (*trace_close)(void *h, struct err *e);
    /* Optional: the core's cycle counter (RTL), for reports. */
    uint64_t (*cycle)(void *h);
    /* ---- a backend with its own DMA (the whole Activation Node datapath, an_be_rtl.c) ---- */
    /* Optional: give the backend the node's tensor buffer tb, served to its DMA through port
     * (a port of tb), and the DMA parameters the node's timing (dma_time) uses; the backend refuses
     * parameters other than its DMA's (-EINVAL). Called once after create, before dma. */
    int (*attach)(void *h, struct dram *tb, struct dram_port *port, const struct dma_params *dma,
                  struct err *e);
    /* Optional (NULL: the node moves a DMA command's bytes itself with write and read, and
     * times it with dma_time): run descriptor d through the backend's DMA between the tensor
     * buffer and the pads, from an idle DMA, on the tensor buffer's channels as they are (the
     * node has set the port's time base to the command's start, dram_port_set_time);
     * *cycles = from the cycle the DMA took d to the cycle its completion came out, the
     * quantity dma_time_run gives on the same buffer state. 0, or -EIO (completed with an error
     * status, e names it), -ETIMEDOUT, -EPROTO (lockstep divergence, e says where). write and
     * read may be NULL when dma is set: the pads are reached only through the DMA. */
    int (*dma)(void *h, const struct dma_desc *d, uint64_t *cycles, struct err *e);
    /* Optional: the lockstep form of this backend (its twins run beside it and are compared
     * inside it; created with its create, named with its label); NULL: core_be_lockstep pairs
     * this backend with the core twin. */
    const struct core_be_ops *lockstep;
    /* Optional: the block (the node) and the command named in divergence reports (copied). */
    void (*label)(void *h, const char *block, const char *cmd);
};

/* The C twin. */
extern const struct core_be_ops core_be_tlm_ops;
/* The verilated core (defined in core_be_rtl.c; see the contract before referencing it). */
extern const struct core_be_ops core_be_rtl_ops;
/* The verilated Activation Node datapath, DMA and core (an_be_rtl.c, rtl/an/an_top.v; it
 * references the an shim: the same linking rule as core_be_rtl_ops), and its lockstep form
 * (an_be_rtl_ops.lockstep). */
extern const struct core_be_ops an_be_rtl_ops;

/* A core of some backend, as a node holds it. */
struct core_be {
    const struct core_be_ops *ops;
    void *h;
};

/* ---- lockstep: a twin and an RTL core compared ---- */

struct core_be_lockstep;

/* rtl: the RTL backend's ops (the caller passes &core_be_rtl_ops); block names the core in
 * reports ("an1.core"). */
int core_be_lockstep_create(const struct core_params *cfg, const struct core_be_ops *rtl,
                            uint64_t seed, const char *block, struct core_be_lockstep **out,
                            struct err *e);
void core_be_lockstep_destroy(struct core_be_lockstep *l);
/* The label of the command about to run, for divergence reports (copied). */
void core_be_lockstep_label(struct core_be_lockstep *l, const char *label);
/* The lockstep pair as a backend (handle = l). A divergence is -EPROTO with the report
 * (block, command, cycle, what differed) in e. */
extern const struct core_be_ops core_be_lockstep_ops;

#endif
