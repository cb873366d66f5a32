/*
 * nfw_twin: the C twin of the NAND write pipelines (rtl/nfw/nfw_top.v).
 *
 * Contract
 * --------
 * Modelled: every register of the RTL that decides an output, cycle by cycle, behind the same
 * ports as the verilated model (csim/shim/nfw.h: struct nfw_in / nfw_out). Given the same
 * inputs in every cycle, the twin gives the same outputs in every cycle: the same memory
 * requests, program commands (addresses), page bytes, completions and idle flag, in the same
 * cycles. The block test (testbench/nfw/test_nfw_rtl.c) runs both in lockstep and compares every
 * output of every cycle; tlm runs use the twin alone.
 *   Stages mirrored: command FIFO and tensor-buffer reader with read credits (nfw_rd), the
 *   response FIFO, the aligner (nfw_align), page buffers and program-unit assembly with the
 *   per-stream append points (nfw_page_pack), the round-robin allocator (nfw_alloc), the
 *   bad-block table (nfw_bbt), program issue with its data and completion FIFOs (nfw_issue).
 * Not modelled: values the RTL leaves undefined (payloads while valid is low, registers before
 *   they are first written): the twin starts them at zero; nfw_out_diff() ignores them.
 *   Assertions of the RTL on its inputs are not repeated (the lockstep run has the RTL's).
 * Units: clock cycles of the pipeline, bytes.
 */
#ifndef MODELS_NFW_NFW_TWIN_H
#define MODELS_NFW_NFW_TWIN_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "csim/shim/nfw.h"

struct nfw_twin;

/* Checks the parameters as the RTL's elaboration does. 0, -EINVAL (message), -ENOMEM. */
int nfw_twin_create(const struct nfw_params *p, struct nfw_twin **out, struct err *e);
void nfw_twin_destroy(struct nfw_twin *t);
void nfw_twin_params(const struct nfw_twin *t, struct nfw_params *out);

/* Same cycle protocol as the shim: set the inputs, get the outputs, step whole cycles. */
void nfw_twin_set(struct nfw_twin *t, const struct nfw_in *in);
void nfw_twin_get(struct nfw_twin *t, struct nfw_out *out);
void nfw_twin_step(struct nfw_twin *t, uint64_t cycles);
/* The inputs the next step reads, in place: what nfw_twin_set writes, for a caller that keeps
 * every field in the ports' range (cmd_addr 40 bits, streams 4, cfg_op 2) itself. */
struct nfw_in *nfw_twin_in(struct nfw_twin *t);
uint64_t nfw_twin_cycle(const struct nfw_twin *t);

/* The pipeline's history-dependent state (csim/shim/nfw.h, struct nfw_state): 0, or -EBUSY
 * when it is not at rest (a stage holds work; nothing is written). */
int nfw_twin_state(const struct nfw_twin *t, struct nfw_state *s);

/* Parameters of the RTL's defaults (rtl/nfw/nfw_top.v). */
void nfw_params_default(struct nfw_params *p);

/*
 * Compare two sets of outputs, payloads only while their valid is high. Returns 0 when they
 * agree, else 1 with "field: a vs b" of the first difference in buf.
 */
int nfw_out_diff(const struct nfw_out *a, const struct nfw_out *b, char *buf, size_t len);

#endif
