/*
 * nflash: a node's flash memory system as the nodes use it: the FMS, its bad-block manager,
 * one stream FTL and one record log (slog) per stream region of the node's layout (AN: NV and
 * V; WN: T, W, M, O), and the controller's read path delivering into the node's tensor buffer.
 *
 * Contract
 * --------
 * Modelled: what models/flash models (flash_fms, ftl_stream, flash_ctrl), assembled: streams
 * from the layout's regions (ftl_layout_an / ftl_layout_wn) with erase on release; reads go
 * through flash_ctrl (controller commands, FTL lookup, multi-plane reads, per-page delivery
 * into the tensor buffer, a dram model, functionally); writes through ftl_stream_write (the
 * FTL's write path: controller commands, multi-plane programs).
 * Payload, two ways: with the FMS's store_payload on, the bytes go into the flash model's pages
 * and reads come back from them (exact flash contents; host memory grows with every page
 * written until its block is erased, which for small models on a 2 TiB FMS is rarely). With it
 * off, the FMS is timed only and nflash keeps each live record's bytes beside it (the "record
 * store": a record's bytes are freed with the record), so reads return exactly what was
 * written and host memory holds only live data. Either way a stream can be made timing-only
 * (nflash_set_nodata).
 * Write timing, with the write pipeline attached (nflash_set_write_pipe; the nodes attach it):
 * a write takes the slower of the NAND write pipeline (rtl/nfw, run on every write at the
 * node's clock: its cycle-exact twin, the verilated RTL or both in lockstep, as
 * nflash_set_write_mode says; models/nfw/nfw_time.h) and the FTL's write path. The pipeline
 * is one resource: a write starts when it is free, and the FTL write starts then. Without
 * it, writes are timed by the FTL's write path alone.
 * The tensor buffer's channels (a dram model shared with the node's other agents, claimed first
 * come first served in call order): a read claims its bytes as one write to the buffer asked
 * for at the read's start (requester "flash_rd"), and is done no earlier than that write ends;
 * a write claims its bytes as one read of the buffer asked for at the write's call (requester
 * "flash_wr"), and is done no earlier than that read ends. Both at the call's time: the
 * machine calls in simulated-time order, so such a claim delays nothing asked for earlier.
 * Timing-only streams claim the same.
 * Not modelled: the pipeline moving the bytes: it runs timing-only on zeros, the payload goes
 * the two ways above; its own reads of the buffer (models/nfw reads a timing-only copy of it):
 * the write's one claim above stands for them, at its call rather than as the pipeline reads;
 * a read's pages landing in the buffer one by one as the controller delivers them (the one
 * claim stands for them, as a burst at the buffer's rate: per-page claims would cost the
 * controller's fast path for long timing-only reads, and, served in call order, delay every
 * claim made after them for an earlier time until the read's last page: tried, it put 70 us
 * on fc-mnist's layer-2 gradient sum, queued at the WN behind the optimizer's reads).
 * Units: picoseconds, bytes.
 */
#ifndef MODELS_NODE_NFLASH_H
#define MODELS_NODE_NFLASH_H

#include <stdbool.h>
#include <stdint.h>

#include "models/dram/dram.h"
#include "models/flash/flash_cfg.h"
#include "models/flash/flash_ctrl.h"
#include "models/flash/flash_sys.h"
#include "models/flash/flash_fms.h"
#include "models/flash/ftl_bbm.h"
#include "models/flash/ftl_layout.h"
#include "models/flash/ftl_stream.h"
#include "models/nfw/nfw_time.h"
#include "models/node/slog.h"

#define NFLASH_MAX_STREAMS 6

struct nflash {
    struct flash_sys sys; /* dies, bad-block manager, controller, streams sys.s[0 .. n) */
    struct ftl_layout layout;
    uint32_t n;
    const char *name[NFLASH_MAX_STREAMS];
    struct slog log[NFLASH_MAX_STREAMS];
    bool nodata[NFLASH_MAX_STREAMS]; /* stream keeps no payload (timing only) */
    struct dram *tb;                 /* where reads deliver, and writes take their bytes */
    int rid_rd, rid_wr;              /* its requesters of tb: flash reads, flash writes */
    uint32_t page_bytes;
    unsigned char *page_buf; /* write staging */
    uint64_t page_cap;
    struct nfw_time *wp; /* the write pipeline's timing, or NULL */
    uint64_t wp_free;    /* the pipeline is free from then on */
    uint64_t wp_ps;      /* sum of the writes' pipeline times */
    uint64_t wp_bound;   /* writes whose pipeline time was longer than the FTL's */
};

/* Stream capacity of region `name` of layout l on geometry g: bytes, and bytes per LB. 0 if
 * the region is missing or the layout does not fit the geometry. */
void nflash_stream_size(const struct ftl_layout *l, const struct flash_geom *g, const char *name,
                        uint64_t *bytes, uint64_t *lb_bytes);

/* Build the FMS of cfg with layout l (copied) and a stream for each listed region name. */
int nflash_init(struct nflash *f, const struct flash_cfg *cfg, const struct ftl_layout *l,
                const char *const *names, uint32_t n, struct dram *tb, struct err *e);
void nflash_fini(struct nflash *f);

/* Time every write also on the NAND write pipeline clocked at period_ps (see above). 0,
 * -EINVAL (the geometry does not fit the pipeline, with the parameter named), -ENOMEM. */
int nflash_set_write_pipe(struct nflash *f, uint64_t period_ps, struct err *e);

/* The write pipeline's model from the next write on (nfw_time_set_mode; rtl: the RTL backend,
 * seed: its initial state). 0 without a write pipeline. */
int nflash_set_write_mode(struct nflash *f, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                          uint64_t seed, struct err *e);

/* Stream i keeps no payload: writes and reads are timed, bytes are not stored (reads leave
 * the tensor buffer unchanged). Saves host memory for data kept elsewhere. */
void nflash_set_nodata(struct nflash *f, uint32_t i, bool nodata);

/* Index of stream `name`, or -1. */
int nflash_stream(const struct nflash *f, const char *name);

/*
 * Append `bytes` from the tensor buffer at tb_addr as one record of stream i, at now. *x =
 * where it went, *done = programmed, *free_at (may be NULL) = when the controller has taken the
 * last of its commands (the write path can take the next transfer then; the dies program in
 * parallel). Errors of the log, with their message in e.
 */
int nflash_write_tb(struct nflash *f, uint32_t i, uint64_t now, uint64_t tb_addr, uint64_t bytes,
                    struct slog_ext *x, uint64_t *done, uint64_t *free_at, struct err *e);
/* The same from host memory (preloads). */
int nflash_write_buf(struct nflash *f, uint32_t i, uint64_t now, const void *buf, uint64_t bytes,
                     struct slog_ext *x, uint64_t *done, struct err *e);
/* Read record x of stream i into the tensor buffer at tb_addr; *done = all of it there,
 * *free_at (may be NULL) = when the controller has processed its read commands. */
int nflash_read_tb(struct nflash *f, uint32_t i, uint64_t now, const struct slog_ext *x,
                   uint64_t tb_addr, uint64_t *done, uint64_t *free_at, struct err *e);

/* Controller time of a transfer of `pages` pages: ceil(pages / pages per command) commands of
 * t_ctrl_wr (write) or t_ctrl_rd (read). */
uint64_t nflash_ctrl_ps(const struct nflash *f, uint64_t pages, bool write);
/* Free record x (slog_free, and its bytes in the record store). */
int nflash_free(struct nflash *f, uint32_t i, uint64_t now, struct slog_ext *x, struct err *e);

#endif
