/*
 * nfw_lanes_twin: the C twin of the NAND write lanes (rtl/nfw/nfw_lanes.v): Lanes twins of
 * the write pipeline (nfw_twin) with the command splitter (nfw_split) and the completion
 * merger (nfw_merge) around them.
 *
 * Contract
 * --------
 * Modelled: every register of nfw_lanes that decides an output, cycle by cycle, behind the
 *   ports of csim/shim/nfw_lanes.h: the splitter's held command and per-stream cursors (plane,
 *   lane), the merger's output register and round-robin pointer, the idle flag, and each
 *   lane's nfw_top as nfw_twin. Given the same inputs in every cycle the twin gives the same
 *   outputs in every cycle; the block test (testbench/nfw/test_nfw_lanes_rtl.c) compares them.
 * Not modelled: what nfw_twin leaves out (values the RTL leaves undefined; nfw_lanes_out_diff
 *   ignores them).
 * Units: clock cycles, bytes.
 */
#ifndef MODELS_NFW_NFW_LANES_TWIN_H
#define MODELS_NFW_NFW_LANES_TWIN_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "csim/shim/nfw_lanes.h"

struct nfw_lanes_twin;

/* Checks the parameters as the RTL's elaboration does (lanes a power of two from 1 to 16
 * dividing the channels, and each lane's nfw_top). 0, -EINVAL (message), -ENOMEM. */
int nfw_lanes_twin_create(const struct nfw_lanes_params *p, struct nfw_lanes_twin **out,
                          struct err *e);
void nfw_lanes_twin_destroy(struct nfw_lanes_twin *t);

/* Same cycle protocol as the shim; both read and write the entries of the model's lanes only
 * (l[0 .. lanes - 1]), as the shim does. */
void nfw_lanes_twin_set(struct nfw_lanes_twin *t, const struct nfw_lanes_in *in);
void nfw_lanes_twin_get(struct nfw_lanes_twin *t, struct nfw_lanes_out *out);
void nfw_lanes_twin_step(struct nfw_lanes_twin *t, uint64_t cycles);
/* The same ports in place, for a caller that runs the twin alone (no copies per cycle): the
 * inputs the next step reads (write the lanes' entries; set copies into them), and the
 * outputs now (what get copies; they change on a step). */
struct nfw_lanes_in *nfw_lanes_twin_in(struct nfw_lanes_twin *t);
const struct nfw_lanes_out *nfw_lanes_twin_out(const struct nfw_lanes_twin *t);

/* The lanes' history-dependent state (csim/shim/nfw_lanes.h, struct nfw_lanes_state): 0, or
 * -EBUSY when they are not at rest: a command held, a completion in the merger, a lane busy. */
int nfw_lanes_twin_state(const struct nfw_lanes_twin *t, struct nfw_lanes_state *s);

/* Compare the outputs of `lanes` lanes (nfw_out_diff per lane). 0 when they agree, else 1
 * with "lane L: field: a vs b" of the first difference in buf. */
int nfw_lanes_out_diff(const struct nfw_lanes_out *a, const struct nfw_lanes_out *b, unsigned lanes,
                       char *buf, size_t len);

#endif
