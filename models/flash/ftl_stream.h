/*
 * ftl_stream: Behemoth's stream FTL: one append-only stream over its own block range.
 *
 * Contract
 * --------
 * Modelled (paper, Tables 1 and 2; facts sheet sections 2, 6, 7):
 *   - A stream owns blocks [first_block, first_block + n_blocks) in every plane of every die
 *     and has its own logical space of n_lblocks logical blocks (LBs). Block-level mapping:
 *     LB n maps to one physical block number (PBN, relative to first_block), used in every
 *     plane of every die: a superblock of dies x planes x pages_per_block pages.
 *   - Page order inside a superblock, for parallelism: offset o -> plane o % P, program unit
 *     u = o / P, die u % D (flat die index: channels first), page u / D. So a sequential write
 *     programs every plane of a die at once (multi-plane unit of P pages), and consecutive
 *     units go to different channels.
 *   - Append-only: each LB is written from its first page on, in order, once; rewriting it
 *     needs a release first. ftl_stream_append() writes at the stream's append point, which
 *     wraps to LPN 0 when it reaches the end of the logical space (a circular log).
 *   - Round-robin allocation: an LB being opened gets the next PBN of the stream, in rotation,
 *     that holds no live data (paper's example: 4 PBs, 3 LBs: iteration 1 maps LB0-2 to PB
 *     0,1,2; iteration 2 to PB 3,0,1). No garbage collection, no over-provisioning by default.
 *   - Release: when data are consumed (activations after the backward pass) their LBs are
 *     released. With erase_on_release (default) the PB is erased at once, ahead of its next
 *     use; otherwise when it is next allocated (then on the write path).
 *   - Wear and failures: after an erase, a block at or over the stream's P/E budget, or one
 *     that failed its erase, is replaced from the node's spare range (ftl_bbm); when a plane
 *     has no spare left the superblock is retired, the stream shrinks by one PB and the call
 *     returns -ENOSPC with a message saying so.
 *   - Program failures (grown bad blocks, flash_fault's program:rate): the failed block is
 *     retired and a spare of its plane takes its place in the superblock; the pages the block
 *     held (read back through the ECC) and the failed page (from the write buffer) are
 *     programmed there, one page after the other, before the write goes on. The data stay
 *     where the LB's mapping says (only the remap changes), so reads are unaffected. A spare
 *     that fails in turn is replaced too; a plane out of spares fails the write with -ENOSPC
 *     naming the stream, the LPN and the block.
 *   - Controller: a transfer asks the controller for its commands (flash_ctrl_cmds_* of
 *     models/flash/flash_ctrl.h: ceil(pages / pages per command), one at a time); a unit is
 *     sent to its die when the command carrying its last page is processed.
 *   - Retention: with check_retention, reading an LB written longer ago than the stream's
 *     retention class fails (-ESTALE).
 *   - Endurance statistics: P/E used (min/mean/max over the stream's blocks), write
 *     amplification (1.0: nothing is copied), and lifetime in years at the observed write
 *     rate against the P/E budget.
 *   - Fast path: a write or read without payload (buf NULL or timing-only mode) longer than a
 *     few stripes (a program unit on every die: dies x planes pages) runs stripe by stripe
 *     until its timing repeats exactly (flash_fms_run_*, models/flash/flash_fms.h), then
 *     accounts the whole stripes left at once: timing, counters, LBs opened in rotation, block
 *     write pointers, as the page path would. It stops before an LB whose opening needs an
 *     erase (a PB released but not erased), a block bad or not at the expected write pointer,
 *     or data that would fail a read check, and lets the page path run into it. The results
 *     (every completion time, statistic and block) are those of the page path.
 * Not modelled: metadata writes (blocks 0-9), power-loss recovery, I/O buffer capacity (the
 *   controller never waits for the flash), reads of a partly programmed unit.
 * Units: picoseconds; LPN = logical page number inside the stream (page_bytes each).
 */
#ifndef MODELS_FLASH_FTL_STREAM_H
#define MODELS_FLASH_FTL_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "csim/err.h"
#include "models/flash/flash_fms.h"
#include "models/flash/ftl_bbm.h"
#include "models/flash/ftl_layout.h"

#define FTL_NAME_LEN 16

struct ftl_stream;

struct ftl_stream_cfg {
    char name[FTL_NAME_LEN];
    uint32_t first_block;  /* first PBN of the range, in every plane */
    uint32_t n_blocks;     /* physical blocks (superblocks) of the stream */
    uint32_t n_lblocks;    /* logical blocks; 0 = n_blocks (no over-provisioning, paper T5) */
    uint32_t pe_budget;    /* P/E cycles a block may take */
    uint64_t retention_s;  /* retention class */
    bool erase_on_release; /* policy: erase released blocks at once (ahead of need) */
    bool check_retention;  /* policy: reads of data older than retention_s fail */
};

struct ftl_stream_stats {
    char name[FTL_NAME_LEN];
    uint64_t lpages_written;    /* pages written by the user */
    uint64_t ppages_programmed; /* pages programmed in flash for them */
    uint64_t pages_read;
    uint64_t sb_erases;       /* superblock erases */
    uint64_t blocks_replaced; /* blocks replaced by spares (worn out or failed) */
    uint64_t program_remaps;  /* of them, after a failed program (the data copied over) */
    uint64_t remap_pages;     /* pages read back from failed blocks and programmed again */
    uint64_t remap_ps;        /* time of those copies, summed over remaps */
    uint32_t sb_total, sb_live, sb_retired;
    double waf; /* ppages_programmed / lpages_written (1.0; 0 before any write) */
    uint32_t pe_budget, pe_min, pe_max;
    double pe_mean;
    double pe_used;        /* pe_max / pe_budget */
    double elapsed_s;      /* from the first write to `now` */
    double write_bps;      /* lpages_written x page_bytes / elapsed_s */
    double pe_per_year;    /* P/E cycles per block per year at write_bps (round-robin: even) */
    double lifetime_years; /* pe_budget / pe_per_year; infinity before any write */
    uint64_t retention_s;
};

/* Stream settings from a layout region (defaults: erase_on_release, check_retention). */
void ftl_stream_cfg_from_region(struct ftl_stream_cfg *c, const struct ftl_region *r);

/* The stream uses fms and bbm (not owned; they must outlive it). Blocks of its range already
 * bad are replaced from spares. 0, -EINVAL (bad settings), -ENOSPC (spares), -ENOMEM. */
int ftl_stream_create(const struct ftl_stream_cfg *c, struct flash_fms *fms, struct ftl_bbm *bbm,
                      struct ftl_stream **out, struct err *e);
void ftl_stream_destroy(struct ftl_stream *s);

/*
 * Write npages pages at LPN lpn (append-only per LB), asked for at now. buf: npages x
 * page_bytes, or NULL (no payload). *done = when the last page is programmed. Nothing is
 * written on error: -ENOSPC (beyond the logical space, or no free PB), -EINVAL (not at the
 * LB's append point), -EBUSY (LB full of live data).
 */
int ftl_stream_write(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t npages,
                     const void *buf, uint64_t *done, struct err *e);
/* Write at the append point; *lpn = where the data went. */
int ftl_stream_append(struct ftl_stream *s, uint64_t now, uint64_t npages, const void *buf,
                      uint64_t *lpn, uint64_t *done, struct err *e);
/* Read npages at lpn into buf (NULL: timing only). -ENODATA for pages never written (or
 * released), -ESTALE past retention, -EINVAL beyond the logical space. */
int ftl_stream_read(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t npages, void *buf,
                    uint64_t *done, struct err *e);
/* Release LBs [lbn, lbn + count): their data are consumed. *done = end of the erases (now if
 * erases are deferred). -EINVAL if an LB is not mapped. */
int ftl_stream_release(struct ftl_stream *s, uint64_t now, uint32_t lbn, uint32_t count,
                       uint64_t *done, struct err *e);
/* Move the append point back to LPN 0 (the LBs there must be released before writing). */
void ftl_stream_rewind(struct ftl_stream *s);

/* PBN (relative to first_block) of LB lbn, or -ENOENT if unmapped / -EINVAL if out of range. */
int ftl_stream_lookup(const struct ftl_stream *s, uint32_t lbn, uint32_t *pbn);

/* ------------------------------------------------------------------ controller and hardware
 *
 * The controller's read path (flash_ctrl) and the hardware write pipeline (rtl/nfw, reported
 * through nfw_bfm) use the stream at page level, with these calls. */

/* Physical address of one page: flat die index (flash_addr.h), plane, block, page. */
struct ftl_ppa {
    uint32_t die, plane, block, page;
};

/* Where the page layout puts LPN lpn when its LB is mapped to PBN pbn, spare remap applied. */
void ftl_stream_ppa(const struct ftl_stream *s, uint64_t lpn, uint32_t pbn, struct ftl_ppa *a);

/*
 * FTL lookup for a read: the multi-plane operation that reads LPN lpn and the pages after it in
 * the same program unit, at most max of them; *n = pages covered (1 .. planes). Same checks as
 * ftl_stream_read (-EINVAL, -ENODATA, -ESTALE); counts the pages as read.
 */
int ftl_stream_lookup_unit(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t max,
                           struct flash_mpop *op, uint32_t *n, struct err *e);

/*
 * Fast path of a long read (flash_fms_run_*): of the n stripes of sp pages from LPN lpn (at a
 * unit boundary), how many pass every check the page path's lookups and die reads would make
 * (mapped, written, within retention, blocks programmed that far); those are counted as read.
 * Their timing is the caller's (flash_fms_run_skip).
 */
uint64_t ftl_stream_read_stripes(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t n,
                                 uint64_t sp);

/*
 * Record a page that the hardware write pipeline programmed at *a for LPN lpn of LB lpn / sb
 * pages, in superblock pbn (its allocator's choice). The page must be at its LB's append point;
 * if it opens the LB, pbn must be free (erased, not live, not retired) and becomes the LB's PB
 * (the rotation cursor moves past it, as in the FTL's own allocator); otherwise pbn must be the
 * LB's PB. *a must be where the layout and the spare remap put the page. On success the page is
 * mapped and counted as written; on a mismatch nothing changes: -EINVAL (or -EBUSY for a full
 * live LB), with a message naming both addresses.
 */
int ftl_stream_adopt_page(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint32_t pbn,
                          const struct ftl_ppa *a, struct err *e);

/* PB pbn is erased and holds no data: the hardware allocator may hand it out. (A PB released
 * with erase_on_release off is not free until the FTL's own allocator erases it.) */
bool ftl_stream_pb_free(const struct ftl_stream *s, uint32_t pbn);

const struct ftl_stream_cfg *ftl_stream_get_cfg(const struct ftl_stream *s);

uint64_t ftl_stream_sb_pages(const struct ftl_stream *s); /* pages per LB */
uint64_t ftl_stream_lpages(const struct ftl_stream *s);   /* pages of the logical space */

void ftl_stream_stats(const struct ftl_stream *s, uint64_t now, struct ftl_stream_stats *st);
/* "stream.V.pe_max = 3 cycles" lines, one per figure, with units. */
void ftl_stream_stats_fprint(FILE *f, const struct ftl_stream_stats *st);

#endif
