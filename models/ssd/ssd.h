/*
 * ssd: a conventional NVMe SSD: its own flash_fms (the NAND dies and channels of models/flash)
 * behind a page-mapping FTL with greedy garbage collection, firmware and a write buffer.
 *
 * Contract
 * --------
 * Modelled (transaction level, analytical busy-until timing like flash_fms: each call computes
 * start and end times from the resources it uses; calls must come in non-decreasing time):
 *   - Host interface: a request of n pages is split into NVMe commands of up to ctrl_cmd_bytes;
 *     each command holds a submission queue entry (sq_depth of them) from its start until it
 *     completes, and waits for one when all are held.
 *   - Write path: for each page, a write-buffer slot (SRAM, wbuf_pages of them), then the
 *     firmware (serial, t_fw_page per page). The page completes to the host when buffered:
 *       QD1 write of n pages on an idle SSD = n x T_FW_PAGE
 *     Buffered pages fill one row (one page per plane) of the open host unit of the next die in
 *     rotation (flat die order: channels first); a full row is programmed with one multi-plane
 *     program from the time its last page was buffered, and its buffer slots come free when
 *     the program ends. A full buffer stalls the firmware, and so the host.
 *   - Read path: each command costs the controller t_ctrl_rd (serial, flash_fms's controller),
 *     then the L2P lookup (no time: the map is in DRAM), then one NAND read per run of pages
 *     that line up (same die, unit and row: a multi-plane read), all issued when the controller
 *     is done, after the dies' queued operations that start before then; the command completes
 *     with its last page:
 *       QD1 read of n pages of one row on an idle SSD = T_CTRL_RD + n x T_CMD + T_R + n x T_XFER
 *     Pages still in SRAM (a row not yet programmed) are served from it at no NAND cost; pages
 *     never written read as zeros at no NAND cost.
 *   - FTL (ssd_map.h): page mapping, units of one block per plane of a die, greedy victims per
 *     die, least-erased free unit first. Each die has a host unit and a GC unit open.
 *   - Garbage collection, per die, with free-unit thresholds urgent < low <= high:
 *       background (preemptible): starts when an allocation leaves fewer than gc_free_low free
 *       units, stops at gc_free_high. It runs as a sequence of steps, each one NAND read of the
 *       victim's valid pages in one row (multi-plane) and their firmware time (t_fw_gc per
 *       page), at the die's GC cursor (the end of its previous read). A step runs only when a
 *       host call arrives at or after its cursor, before that call's own operations, so host
 *       I/O issued before a step goes ahead of it and a step in progress is not interrupted.
 *       Moved pages fill rows of the die's GC unit, each programmed when full. A victim whose
 *       pages are all moved is erased (multi-plane) and its unit returns to the free pool.
 *       forced (not preemptible): a host row that needs a new unit on a die with gc_free_urgent
 *       or fewer free units first runs GC steps on that die, whatever their times, until it has
 *       more; the host's program then queues behind them on the die.
 *   - Functional mode (nand.sw.store_payload): the bytes of every page are kept (in the NAND
 *     model and in the SRAM rows), moved by GC, and read back. Timing-only mode keeps none.
 * Not modelled: the host link (PCIe) and its transfer time, the DRAM's timing, map persistence,
 *   power loss, ECC, read retry, bad blocks and their management, program/erase suspend, TRIM,
 *   static wear levelling, the GC of the map's own pages. A GC row buffer is reused as soon as
 *   its program is issued. Reads of data whose program is issued but not finished wait for it.
 * Units: picoseconds, logical pages of page_bytes (LPN from 0 to ssd_user_pages() - 1).
 */
#ifndef MODELS_SSD_SSD_H
#define MODELS_SSD_SSD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csim/err.h"
#include "models/flash/flash_fms.h"
#include "models/ssd/ssd_cfg.h"

struct ssd;

struct ssd_stats {
    uint64_t host_write_pages, host_read_pages;
    uint64_t write_cmds, read_cmds;
    uint64_t prog_pages;      /* pages programmed: host + GC + padding */
    uint64_t pad_pages;       /* pages of partly filled rows programmed empty (flush) */
    uint64_t gc_pages;        /* pages moved by GC */
    uint64_t gc_victims;      /* units chosen for GC */
    uint64_t gc_erases;       /* units erased */
    uint64_t gc_forced;       /* host unit allocations that had to wait for forced GC */
    uint64_t gc_active_ps;    /* over all dies: start to stop (to the last step if running) */
    uint64_t gc_forced_ps;    /* over all forced GCs: from the host's request to the last step */
    uint64_t sram_read_pages; /* reads served from the SRAM buffer */
    uint64_t unmapped_read_pages; /* reads of pages never written */
    uint64_t free_unit_sum;       /* sum over host pages written of the free units then */
    uint64_t sq_waits, wbuf_waits;
    uint64_t wbuf_wait_ps;
    uint64_t fw_busy_ps;
    uint64_t last_end; /* latest completion of any operation the SSD issued */
};

/* The counters of struct ssd_stats, in order, all uint64_t before last_end. */
#define SSD_STATS_COUNTERS (offsetof(struct ssd_stats, last_end) / sizeof(uint64_t))

/* Validates cfg (ssd_cfg_validate), builds the FMS (erased) and the FTL. 0, -EINVAL, -ENOMEM. */
int ssd_create(const struct ssd_cfg *cfg, struct ssd **out, struct err *e);
void ssd_destroy(struct ssd *s);

const struct ssd_cfg *ssd_get_cfg(const struct ssd *s);
const struct ssd_geom *ssd_get_geom(const struct ssd *s);
uint64_t ssd_user_pages(const struct ssd *s);
const struct flash_fms *ssd_get_fms(const struct ssd *s);

/* Write npages from lpn at time t; data: NULL or npages x page_bytes (functional mode).
 * *done = when the last page is buffered. -EINVAL (range), -ENOSPC, -EIO (NAND refused). */
int ssd_write(struct ssd *s, uint64_t t, uint64_t lpn, uint32_t npages, const void *data,
              uint64_t *done, struct err *e);

/* The calls ssd_write(t, ...) of [lpn, lpn + npages) cut at every multiple of chunk pages (a
 * RAID 0 member's stripe units), one after the other: the same results, state and statistics.
 * *done = the latest of their ends. A long run without payload may take the fast path (ssd_fast.c,
 * models/ssd/README.md): the periods of the run that provably repeat the one before are
 * accounted at once, exactly as page by page. */
int ssd_write_chunks(struct ssd *s, uint64_t t, uint64_t lpn, uint64_t npages, uint32_t chunk,
                     const void *data, uint64_t *done, struct err *e);

/* The fast path of ssd_write_chunks: on by default; off, every page is simulated (the tests
 * compare both). */
void ssd_set_fast(struct ssd *s, bool on);
/* Host rows the fast path accounted without simulating them, since creation. */
uint64_t ssd_fast_rows(const struct ssd *s);

/* Read npages from lpn at time t into buf (NULL or npages x page_bytes; filled in functional
 * mode only). *done = when the last page is in the controller. -EINVAL, -EIO. */
int ssd_read(struct ssd *s, uint64_t t, uint64_t lpn, uint32_t npages, void *buf, uint64_t *done,
             struct err *e);

/* Program every partly filled row (host and GC) with empty pages for the rest, from t at the
 * earliest; *done = the end of the last program (t if none). */
int ssd_flush(struct ssd *s, uint64_t t, uint64_t *done, struct err *e);

void ssd_stats(const struct ssd *s, struct ssd_stats *st);
/* out = a - b, counter by counter (last_end: a's). */
void ssd_stats_sub(struct ssd_stats *out, const struct ssd_stats *a, const struct ssd_stats *b);
/* acc += x (last_end: the later). */
void ssd_stats_add(struct ssd_stats *acc, const struct ssd_stats *x);
/* Pages programmed per host page written; 0 when nothing was written. */
double ssd_stats_wa(const struct ssd_stats *st);
/* Free units averaged over the host pages written (all dies); 0 when nothing was written. */
double ssd_stats_mean_free(const struct ssd_stats *st);

/* Preconditioning: fill every logical page in order, then overwrite uniformly random single
 * pages in windows of window_pages until two windows in a row both ran GC and their write
 * amplifications differ by at most tol (relative): GC's steady state. The overwrites go
 * iodepth at a time (each issued when the earliest in flight completed), from time t: the
 * regime of the run that follows, whose free pool a slower host would leave fuller (background
 * GC catching up), so that its first writes would draw on it at a write amplification near 1. */
struct ssd_precond {
    uint64_t window_pages; /* 0: a quarter of the user pages */
    double tol;            /* 0: 0.01 */
    uint32_t max_windows;  /* 0: 40 */
    uint32_t iodepth;      /* overwrites in flight; 0: 1 */
    uint64_t seed;
};

struct ssd_precond_result {
    uint64_t fill_pages, rand_pages;
    uint32_t windows;
    double wa_prev, wa_last; /* of the last two windows */
    bool steady;
    uint64_t t_end; /* completion of the last write */
};

int ssd_precondition(struct ssd *s, uint64_t t, const struct ssd_precond *p,
                     struct ssd_precond_result *r, struct err *e);

#endif
