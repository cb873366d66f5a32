/*
 * nssd: a node's storage on a RAID 0 of conventional SSDs (models/ssd: ssd_raid0), the
 * baseline of the paper (Table 5): the node's streams (AN: NV, V; WN: W, M, O) kept as files on
 * the array's logical block space.
 *
 * Contract
 * --------
 * Modelled:
 *   - The array: ssd_raid0 of the drive's configuration, every read and write of a record is
 *     ssd_raid0_read / ssd_raid0_write of its pages (NVMe commands, controller, firmware,
 *     write buffer, garbage collection as models/ssd models them), at a grain of `grain`
 *     pages (ssd_cfg_coarse): the array is built of the drive at that grain, whose throughputs,
 *     capacity and units are the drive's and whose operations take `grain` times the drive's
 *     latency (models/ssd/README.md, "The SSD as the machine's storage", says what that
 *     approximates and the test that bounds it). grain 1 is the drive page by page.
 *   - The allocator: each stream owns a fixed range of the array's logical pages, its share of
 *     the FMS layout's (ftl_layout_an / ftl_layout_wn: the region's blocks over those of the
 *     node's streams), whole stripes (stripe unit x members), consecutive in stream order.
 *     Records are appended one after the other as a log, each from a page boundary (the tail of
 *     its last page is padding), wrapping from the range's end to its start (a record that
 *     crosses the end is two requests, issued at the same time). Freed records' pages are
 *     reused when the log comes round to them, once every record appended before them is freed
 *     too (a first-in, first-out log: the record that holds the oldest pages keeps the pages
 *     after it). Cost: one descriptor per record kept; a free finds its record by a scan from
 *     the oldest (records kept: a few hundred per stream in a training iteration). The SSDs are
 *     told nothing of a free (no TRIM): a page becomes invalid when it is written again.
 *   - Time: a request starts at the time it is asked for; its end is the array's (the last
 *     page buffered, for a write; the last page in the controller, for a read); the node's
 *     path takes its next record then (*free_at = *done).
 * Not modelled: payload (timing only: perf nodes keep no data), the host's file system and its
 *   metadata writes, TRIM, the host link (PCIe).
 * Units: picoseconds, bytes; pages (lpn, pages of struct slog_ext) are the array's logical
 *   pages at the grain, of nssd_page_bytes() bytes; counters are in the drive's pages.
 * Errors (csim/err.h): -ENOSPC (a stream full: the message names the node and the stream, the
 *   pages asked and free), -EINVAL (a bad configuration, a record freed twice or not the
 *   stream's), -ENOMEM, and the array's.
 */
#ifndef MODELS_NODE_NSSD_H
#define MODELS_NODE_NSSD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/flash/ftl_layout.h"
#include "models/node/slog.h"
#include "models/ssd/ssd_raid0.h"

#define NSSD_MAX_STREAMS 6

/* A record kept by a stream's log, in append order. */
struct nssd_rec {
    uint64_t off, pages; /* first page (in the stream's range) and pages */
    bool live;
};

struct nssd_stream {
    const char *name;
    uint64_t first, pages; /* the range: array pages first .. first + pages - 1 */
    uint64_t append;       /* next page of the range to write */
    uint64_t used;         /* pages of the records kept (live, or freed behind a live one) */
    struct nssd_rec *q;    /* ring of the records kept, oldest at head */
    size_t head, n, cap;
    uint64_t live_pages;
    uint64_t pages_written, pages_read; /* at the grain */
};

struct nssd {
    char node[16];
    struct ssd_raid0 *raid;
    uint32_t grain;      /* drive pages per page of the array here */
    uint32_t page_bytes; /* bytes of a page here: grain x the drive's */
    uint32_t n;
    struct nssd_stream s[NSSD_MAX_STREAMS];
};

/* The array of `drive` at `grain` with a stream for each listed region of layout l (its share
 * as above). node names the node in messages ("an0", "wn"). */
int nssd_init(struct nssd *f, const char *node, const struct ssd_cfg *drive, uint32_t grain,
              const struct ftl_layout *l, const char *const *names, uint32_t n, struct err *e);
void nssd_fini(struct nssd *f);

/* Bytes of stream `name`'s range (0: not one of names, or the configuration is not valid) and
 * of a page, on the array nssd_init would build, without building it. */
void nssd_stream_size(const struct ssd_cfg *drive, uint32_t grain, const struct ftl_layout *l,
                      const char *const *names, uint32_t n, const char *name, uint64_t *bytes,
                      uint64_t *page_bytes);

/* Index of stream `name`, or -1. */
int nssd_stream(const struct nssd *f, const char *name);
uint32_t nssd_page_bytes(const struct nssd *f);

/* Append a record of `bytes` to stream i at now: *x = where it went, *done = the array has
 * it (buffered). */
int nssd_write(struct nssd *f, uint32_t i, uint64_t now, uint64_t bytes, struct slog_ext *x,
               uint64_t *done, struct err *e);
/* Read record x of stream i at now; *done = its last page is read. */
int nssd_read(struct nssd *f, uint32_t i, uint64_t now, const struct slog_ext *x, uint64_t *done,
              struct err *e);
/* Record x of stream i is consumed: its pages are reused once the older ones are freed. */
int nssd_free(struct nssd *f, uint32_t i, const struct slog_ext *x, struct err *e);

/* The array's counters in the drive's pages (ssd_stats of every member added up, pages x
 * grain), and the highest erase count of a block of any member. */
void nssd_stats(const struct nssd *f, struct ssd_stats *st, uint64_t *pe_max);

#endif
