/*
 * flash_fms: a flash memory system: channels of dies, and the controller's command front end.
 *
 * Contract
 * --------
 * Modelled (transaction level, analytical: each call computes start and end times from the
 * busy_until of the resources it uses and returns the completion time; no event kernel):
 *   - Program (multi-plane): data-in of each page (command cycles + data) on the channel, from
 *     max(now, register free); then tPROG on the planes from max(data in, die and plane busy).
 *     Cache program on: the register is free again when tPROG starts, so the next page's
 *     data-in overlaps this tPROG. Off: it is free when tPROG ends.
 *       single op on idle resources: done = now + n x (T_CMD + T_XFER) + T_PROG
 *   - Read (multi-plane): n x T_CMD of command cycles on the channel, from max(now, die busy,
 *     register free, channel free); tR on the planes from their end (and die and plane busy);
 *     then data-out of n pages on the channel from the end of tR.
 *       single op on idle resources: done = now + n x T_CMD + T_R + n x T_XFER
 *     The channel serves calls in order and fills no idle gap, so a second read on the same
 *     channel sends its command after the first one's data-out: k n-page reads of k dies of
 *     one idle channel, called together, end at now + k x (n x T_CMD + T_R + n x T_XFER).
 *   - Erase (multi-plane, whole blocks): n x T_CMD of command cycles on the channel, from
 *     max(now, die busy, register free, channel free), then T_BERS on the planes.
 *       single op on idle resources: done = now + n x T_CMD + T_BERS
 *   - multi_plane switch off: a multi-plane request runs as single-plane operations in plane
 *     order, each with its own T_CMD on the channel.
 *   - Controller: one command at a time, t_ctrl_wr / t_ctrl_rd each (flash_fms_ctrl_cmd); the
 *     FTL decides how many commands a transfer takes.
 *   - NAND state and rules: flash_die. Rule violations return an error, change nothing and
 *     take no time; the message goes to the caller's err (csim/err.h).
 *   - Fast path of long transfers (flash_fms_run_*, below): the stripes of a long sequential
 *     transfer that repeat exactly are accounted at once, with exactly the results of running
 *     them operation by operation; on by default, off with flash_fms_set_fast.
 *   - Faults (flash_fms_set_faults; models/flash/flash_fault.h): every page read is decoded by
 *     the ECC at its RBER (its block's P/E cycles, its data's age since the block's first
 *     program); the read is repeated (tR and data-out) once per retry its worst page needs,
 *     and a page that fails every retry fails the call (-EBADMSG naming it, the code of an
 *     uncorrectable ECC error in Linux's MTD layer). Injected: program failures (the block
 *     turns bad, -EIO), dies and channels that stop answering, power loss.
 *     With bit errors alone the fast path stays on: a read run's first decodes are drawn at
 *     once (flash_fault_clean_run), exact in distribution at the run's RBER, and the stripes
 *     holding a failed decode run operation by operation with their retries. With an
 *     injected failure the fast path is off.
 * Not modelled: policy (which address to use: that is the FTL's job), queues and arbitration
 * (calls are served in call order per resource), the controller's read data path and its
 * buffers.
 * Units: picoseconds, bytes, flat die index (flash_addr.h).
 */
#ifndef MODELS_FLASH_FLASH_FMS_H
#define MODELS_FLASH_FLASH_FMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "csim/err.h"
#include "models/flash/flash_addr.h"
#include "models/flash/flash_cfg.h"
#include "models/flash/flash_fault.h"
#include "models/flash/flash_chan.h"
#include "models/flash/flash_die.h"
#include "csim/res.h"

struct flash_fms;

/* One operation on one die: same page number in each plane of the mask, block per plane. */
struct flash_mpop {
    uint32_t die;                     /* flat die index (flash_addr_die_index) */
    uint32_t plane_mask;              /* planes taking part, bit p = plane p */
    uint32_t page;                    /* page in the block (ignored by erase) */
    uint32_t block[FLASH_MAX_PLANES]; /* block of each plane in the mask */
};

struct flash_fms_stats {
    uint64_t pages_programmed, pages_read, blocks_erased;
    uint64_t bytes_in, bytes_out; /* over the channels */
    uint64_t ctrl_cmds;
    uint64_t payload_pages; /* pages with a stored payload (functional mode) */
    uint64_t last_end;      /* latest busy_until of any channel, die or the controller */
    double chan_util;       /* mean channel utilisation over [0, until] */
    double die_util;        /* mean die array utilisation over [0, until] */
    double ctrl_util;
};

/* Validates cfg (flash_cfg_validate) and builds an erased FMS. 0, -EINVAL, -ENOMEM. */
int flash_fms_create(const struct flash_cfg *cfg, struct flash_fms **out, struct err *e);
void flash_fms_destroy(struct flash_fms *f);

const struct flash_cfg *flash_fms_cfg(const struct flash_fms *f);
uint32_t flash_fms_dies(const struct flash_fms *f);

/* data / bufs: NULL or an array indexed by plane (see flash_die_program / flash_die_read). */
int flash_fms_program(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                      const void *const *data, uint64_t *done, struct err *e);
int flash_fms_read(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                   void *const *bufs, uint64_t *done, struct err *e);
/* -EIO with *done set if a block failed its erase (it is then bad). */
int flash_fms_erase(struct flash_fms *f, uint64_t now, const struct flash_mpop *op, uint64_t *done,
                    struct err *e);

/* Single-plane forms by physical address. Erase needs a->page == 0 (whole blocks only). */
int flash_fms_program_page(struct flash_fms *f, uint64_t now, const struct flash_addr *a,
                           const void *data, uint64_t *done, struct err *e);
int flash_fms_read_page(struct flash_fms *f, uint64_t now, const struct flash_addr *a, void *buf,
                        uint64_t *done, struct err *e);
int flash_fms_erase_block(struct flash_fms *f, uint64_t now, const struct flash_addr *a,
                          uint64_t *done, struct err *e);

/* One controller command (write or read) asked for at now; *done = when it is processed. */
void flash_fms_ctrl_cmd(struct flash_fms *f, uint64_t now, bool write, uint64_t *done);

/*
 * Fast path of long transfers. A long sequential transfer (ftl_stream's write and read paths,
 * flash_ctrl_read) runs stripe after stripe: a stripe is a program or read unit on every die
 * (dies x planes pages), or the fewest stripes that hold a whole number of controller commands.
 * Over identical dies the transfer becomes periodic: after a few stripes each one leaves every
 * busy-until (die array, register, planes, channels) exactly delta later than the one before.
 * The caller runs its transfer page by page and, at each stripe boundary, asks
 * flash_fms_run_at how many of the remaining whole stripes need no simulation; it checks its
 * own part (FTL mapping, block states) and skips them with flash_fms_run_skip: every busy-until
 * moves by n x delta, every counter (pages, bytes, busy times, operations, controller commands)
 * by n x what it gained over the last stripe, exactly what the operations would have done. The
 * state is taken as periodic only when it provably stays so: every busy-until moved by the same
 * delta, no erase in the stripe, and the controller's commands (t_cmds apart per stripe) either
 * moved by delta too, or set no operation's start in the stripe; then, if they come more than
 * delta apart, only as many stripes are skipped as their least margin in the stripe lasts.
 * Anything else (a state that never repeats, a short transfer) leaves the caller on the
 * page-by-page path. The proof needs of the caller what the FTL's paths and the controller's
 * read path do: every stripe issues the same operations (dies, planes, pages per operation),
 * with its controller commands taken back to back (flash_ctrl_cmds_*) and nothing else using
 * the FMS during the transfer.
 * The results are exactly those of the page-by-page path; flash_fms_set_fast(f, false) turns
 * the fast path off (tests compare both; flashbench --exact).
 */
struct flash_fms_run {
    uint64_t stripe;     /* pages per stripe; 0: the fast path is off for this transfer */
    uint64_t cmds;       /* controller commands per stripe */
    uint64_t t_cmds;     /* their time: the controller's advance per stripe */
    uint64_t next;       /* pages of the transfer done at the next stripe boundary */
    uint64_t delta;      /* shift of the timing state over the last stripe */
    uint64_t t_max;      /* latest end of an operation since the last boundary */
    uint64_t t_max_prev; /* the same over the last whole stripe */
    uint64_t bound;      /* operations started by the time asked for, at the last boundary */
    uint32_t slot, seen; /* snapshot of the last boundary; boundaries seen */
    bool write;          /* a program transfer, else a read */
};

/* On by default. */
void flash_fms_set_fast(struct flash_fms *f, bool on);
bool flash_fms_fast(const struct flash_fms *f);
/* Stripes accounted by the fast path without simulating them, since creation. */
uint64_t flash_fms_fast_stripes(const struct flash_fms *f);

/* A transfer of the write or read path begins; its first stripe starts after `first` pages (the
 * pages up to the first whole program unit). allowed false: no fast path (e.g. a payload). */
void flash_fms_run_begin(struct flash_fms *f, struct flash_fms_run *r, bool write, uint64_t first,
                         bool allowed);
/* At a stripe boundary (pages done == r->next): how many stripes, at most max (the whole stripes
 * left), may be skipped now; 0 while the state is not periodic. */
uint64_t flash_fms_run_at(struct flash_fms *f, struct flash_fms_run *r, uint64_t max);
/* Skip n stripes (1 to what flash_fms_run_at returned); *end = the later of *end and the
 * last end of an operation in them. The caller's commands are then n x t_cmds later. */
void flash_fms_run_skip(struct flash_fms *f, struct flash_fms_run *r, uint64_t n, uint64_t *end);
/* Every operation of the transfer reports its end. */
static inline void flash_fms_run_note(struct flash_fms_run *r, uint64_t t)
{
    if (t > r->t_max)
        r->t_max = t;
}
/*
 * The timing state of the FMS for a caller's own fast path (models/ssd's): a vector of
 * flash_fms_state_len values, every busy-until (die array, register, planes, channels bus) then
 * every counter the operations add to, as flash_fms_run_at snapshots it, with the count of
 * operations whose start the time asked for set. flash_fms_state_delta says whether the state
 * moved from prev to cur as a repeating stripe moves it (every busy-until by the same delta > 0,
 * no erase in between: returns delta, else 0); flash_fms_state_advance sets the state n such
 * stripes past cur (busy-untils n x delta later, counters n times what they gained from prev to
 * cur), what the operations of those stripes would leave. With faults set (the FMS draws them
 * operation by operation) flash_fms_state_delta is 0: the caller keeps to its exact path.
 */
size_t flash_fms_state_len(const struct flash_fms *f);
void flash_fms_state_get(const struct flash_fms *f, uint64_t *v);
uint64_t flash_fms_state_delta(const struct flash_fms *f, const uint64_t *prev,
                               const uint64_t *cur);
void flash_fms_state_advance(struct flash_fms *f, const uint64_t *prev, const uint64_t *cur,
                             uint64_t n, uint64_t delta);
/* The write pointer of a block after pages programmed by a skipped stripe (no checks: the
 * caller checked the block as flash_die_program would); t: about when, the age of the block's
 * data if its first page is among them. */
void flash_fms_set_wp(struct flash_fms *f, uint32_t die, uint32_t plane, uint32_t block,
                      uint32_t wp, uint64_t t);

/* Bit errors, ECC and injected faults from c (c NULL or off: none; the default). */
int flash_fms_set_faults(struct flash_fms *f, const struct flash_fault_cfg *c, struct err *e);
/* The fault counters into *s; false (and *s untouched) without faults. */
bool flash_fms_fault_stats(const struct flash_fms *f, struct flash_fault_stats *s);
/* Whether a block failed in the fault model's injected age (flash_fault_worn_out): then it is
 * marked bad. False without a fault model. For an FTL's scan of its blocks at start. */
bool flash_fms_worn_out(struct flash_fms *f, uint32_t die, uint32_t plane, uint32_t block);

/* Inspection and fault injection. NULL / -EINVAL for an address out of range. */
const struct flash_block *flash_fms_block(const struct flash_fms *f, uint32_t die, uint32_t plane,
                                          uint32_t block);
const struct flash_die *flash_fms_die(const struct flash_fms *f, uint32_t die);
const struct flash_chan *flash_fms_chan(const struct flash_fms *f, uint32_t channel);
int flash_fms_mark_bad(struct flash_fms *f, const struct flash_addr *a, struct err *e);
int flash_fms_inject_erase_fail(struct flash_fms *f, const struct flash_addr *a, struct err *e);
/* The next program of the block at a fails (the page is programmed, the block turns bad, the
 * call returns -EIO naming it), as a program:rate failure would. */
int flash_fms_inject_program_fail(struct flash_fms *f, const struct flash_addr *a, struct err *e);

void flash_fms_stats(const struct flash_fms *f, uint64_t until, struct flash_fms_stats *s);
/* "fms.pages_programmed = 12 pages" lines, one per figure, with units; prefix e.g. "an0.fms". */
void flash_fms_stats_fprint(FILE *out, const char *prefix, const struct flash_fms_stats *s);

#endif
