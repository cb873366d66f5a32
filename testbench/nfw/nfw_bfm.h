/*
 * nfw_bfm: the C side of the NAND write pipelines' ports (csim/shim/nfw.h), except the memory
 * port (models/dram/dram_port.h serves that): the flash channels behind prog/pdat, and the
 * firmware behind done/cfg. It drives the RTL (shim) or its twin alike: it sees only the port
 * structs.
 *
 * Contract
 * --------
 * Modelled, per clock cycle of the pipeline (period_ps; cycle c at c x period_ps):
 *   - prog: a unit's first page command is taken when its channel can take more: the channel's
 *     bus holds no transfer past the current time (flash_chan busy_until <= now). The other
 *     pages of the unit are taken at once. (Tests) seeded random stalls on top.
 *   - pdat: data beats are taken (random stalls) and collected page by page in command order.
 *     When the last beat of a unit's last page arrives, the unit is programmed into the flash
 *     model as one multi-plane operation at that time: flash_fms_program (NAND rules, timing).
 *   - done: completions are taken (random stalls) and reported to the stream's FTL, which maps
 *     the logical page (ftl_stream_adopt_page; it checks the address against its own layout).
 *     The FTL takes a stream's pages in LPN order: a completion ahead of its stream's next LPN
 *     (write lanes side by side, rtl/nfw/nfw_lanes.v, report in any order) waits in the
 *     firmware until the pages before it have been reported.
 *   - cfg: firmware operations wait in a queue and go out one per cycle (random gaps): stream
 *     settings when a stream is attached, blocks freed after a release (the FTL erases them;
 *     replacements of failed blocks are loaded into the bad-block table first), retired blocks.
 *   - Protocol checks, reported as errors: a channel that is not die % channels, data beats
 *     per page, first/last page flags, a unit's pages on one die and page in ascending planes,
 *     a stalled valid that drops or a payload that changes.
 * Not modelled: program failures and status polling (the flash model's rules errors are
 *   reported as -EIO), the firmware's own time (its operations cost one cycle each).
 * Units: cycles of the pipeline clock, picoseconds.
 */
#ifndef TESTBENCH_ENV_NFW_BFM_H
#define TESTBENCH_ENV_NFW_BFM_H

#include <stdbool.h>
#include <stdint.h>

#include "csim/err.h"
#include "csim/shim/nfw.h"
#include "models/flash/flash_fms.h"
#include "models/flash/ftl_bbm.h"
#include "models/flash/ftl_stream.h"

struct nfw_bfm_cfg {
    uint64_t period_ps;      /* pipeline clock period */
    unsigned prog_stall_pct; /* tests: % of cycles prog_ready is held low */
    unsigned pdat_stall_pct; /* ... pdat_ready */
    unsigned done_stall_pct; /* ... done_ready */
    unsigned cfg_stall_pct;  /* ... cycles without a queued cfg operation */
    uint64_t seed;           /* for the stalls */
};

struct nfw_bfm_stats {
    uint64_t cycles;
    uint64_t pages;           /* pages received with their data */
    uint64_t units;           /* multi-plane programs issued to the flash model */
    uint64_t done;            /* completions reported to the FTL */
    uint64_t err_pages;       /* completions with the error flag */
    uint64_t chan_wait;       /* cycles a first page waited for its channel */
    uint64_t cfg_ops;         /* firmware operations sent */
    uint64_t bbt_entries;     /* bad-block table entries in use */
    uint64_t last_program_ps; /* end of the latest program */
};

struct nfw_bfm;

void nfw_bfm_cfg_default(struct nfw_bfm_cfg *c);

/* fms and bbm must outlive the BFM; the pipeline's geometry must be the flash model's
 * (planes, channels, dies, pages per block, page size). 0, -EINVAL (message), -ENOMEM. */
int nfw_bfm_create(const struct nfw_bfm_cfg *cfg, const struct nfw_params *p, struct flash_fms *fms,
                   struct ftl_bbm *bbm, struct nfw_bfm **out, struct err *e);
void nfw_bfm_destroy(struct nfw_bfm *b);

/* Stream id -> FTL stream: queues SET_STREAM (and USE_PB for blocks that are not free, BBT
 * entries for replaced ones). The stream must fit the pipeline (blocks <= MaxPbs, erase on
 * release). 0 or -EINVAL (message). */
int nfw_bfm_attach(struct nfw_bfm *b, unsigned id, struct ftl_stream *s, struct err *e);

/* The inputs the BFM drives this cycle (prog_ready, pdat_ready, done_ready, cfg_*), from its
 * state and the pipeline's outputs o. */
void nfw_bfm_drive(struct nfw_bfm *b, const struct nfw_out *o, struct nfw_in *in);

/* The rising edge: take what moved (o and in as driven this cycle); advance one cycle.
 * 0, or a negative errno with the message in e: -EPROTO (port rule), -EIO
 * (the flash model refused a program), -EINVAL (the FTL refused a completion). */
int nfw_bfm_clock(struct nfw_bfm *b, const struct nfw_out *o, const struct nfw_in *in,
                  struct err *e);

/* Firmware: the data of LBs [lbn, lbn + count) of stream id are consumed: release them in the
 * FTL (which erases them and replaces failed blocks from spares), load the replacements into
 * the bad-block table, then free the blocks in the pipeline's allocator. */
int nfw_bfm_release(struct nfw_bfm *b, unsigned id, uint32_t lbn, uint32_t count, struct err *e);

/* Load every spare replacement of the attached streams' blocks into the bad-block table
 * (entries already loaded are kept). -ENOSPC when the table is full. */
int nfw_bfm_sync_bbt(struct nfw_bfm *b, struct err *e);

/* Nothing queued for the cfg port, no page or unit partly received. */
bool nfw_bfm_idle(const struct nfw_bfm *b);
uint64_t nfw_bfm_now(const struct nfw_bfm *b);
const struct nfw_bfm_stats *nfw_bfm_stats(const struct nfw_bfm *b);

/* A read-back buffer for the controller's read path (struct flash_ctrl_sink: deliver =
 * nfw_bfm_readback, user = the buffer): the tests read what the pipeline wrote back through
 * flash_ctrl and compare it byte for byte. A delivery past len is -EFAULT. */
struct nfw_bfm_rb {
    unsigned char *buf;
    uint64_t len;
};

int nfw_bfm_readback(void *user, uint64_t addr, const void *data, uint32_t len, uint64_t t,
                     uint64_t *t_done);

#endif
