/*
 * flash_ctrl: the FMS controller: its command timing on the read and the write path, and its
 * read path, from a read command to bytes in the tensor buffer.
 *
 * Contract
 * --------
 * Modelled (transaction level, analytical like flash_fms: each call computes its times from the
 * busy_until of the resources it uses):
 *   - Commands (flash_ctrl_cmds.h), both paths: a request of P pages takes
 *     ceil(P / pages per command) controller commands (ctrl_cmd_bytes each, an NVMe-like
 *     command), processed one at a time on the controller (flash_fms_ctrl_cmd), t_ctrl_wr per
 *     write command and t_ctrl_rd per read command (paper, Table 5: 1.18 us and 1.93 us). A
 *     unit of pages goes to its die once the command that carries its last page is processed.
 *     The FTL's write and read paths (ftl_stream) and the read path below take their commands
 *     this way.
 *   - A read request names a stream, a logical page (LPN), a byte offset into that page, a
 *     length and a tensor-buffer address. It covers P = ceil((offset + bytes) / page) pages and
 *     takes their read commands.
 *   - The pages of a command are read once the command is processed: the FTL lookup
 *     (ftl_stream_lookup_unit: LB -> PB, spare remap) turns them into multi-plane reads, one per
 *     program unit. Consecutive units sit on consecutive dies, channels first, so a sequential
 *     request is striped over every channel and die, which read in parallel (flash_fms: n x T_CMD
 *     of command cycles on the die's channel, T_R on the die, then n x T_XFER of data-out on the
 *     channel; the dies of one channel take turns on it, each read holding it from its command
 *     cycles to its data-out).
 *   - Each page's bytes (the part inside the request) go to the tensor buffer through the
 *     caller's sink, at the time its data-out on the channel ends (page i of an n-page
 *     operation ends (n - 1 - i) x T_XFER before the operation). The sink may report when the
 *     tensor buffer has them; the request is done when the last page is delivered.
 *   - Fast path: a long read whose data go nowhere (timing-only mode, no sink or a sink
 *     without deliver) accounts the stripes whose timing repeats at once, with the page
 *     path's results (flash_fms_run_*, ftl_stream_read_stripes).
 * Not modelled: the controller's internal data bus and its buffer capacity (the channel is the
 *   narrower path: 1.2 GB/s against the controller's 64-bit internal path), ECC, read retry,
 *   reordering of requests (they are served in call order), reads of data still in a write
 *   pipeline.
 * Units: picoseconds, bytes, LPN = logical page number inside the stream.
 */
#ifndef MODELS_FLASH_FLASH_CTRL_H
#define MODELS_FLASH_FLASH_CTRL_H

#include <stdbool.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/flash/flash_ctrl_cmds.h"
#include "models/flash/flash_fms.h"
#include "models/flash/ftl_stream.h"

/* Where the read data go: the tensor buffer's model (or a test's buffer). */
struct flash_ctrl_sink {
    /*
     * len bytes for tensor-buffer address addr, off the channel at time t. data is NULL in
     * timing-only mode. Set *t_done to when the tensor buffer holds them (left alone: t).
     * Return 0, or a negative errno that stops the read.
     */
    int (*deliver)(void *user, uint64_t addr, const void *data, uint32_t len, uint64_t t,
                   uint64_t *t_done);
    void *user;
};

struct flash_ctrl_req {
    uint64_t lpn;     /* first logical page of the stream */
    uint32_t offset;  /* byte offset into that page, < page_bytes */
    uint64_t bytes;   /* length, >= 1 */
    uint64_t tb_addr; /* tensor-buffer address of the first byte */
};

struct flash_ctrl_stats {
    uint64_t reqs;   /* read requests served */
    uint64_t cmds;   /* controller commands */
    uint64_t ops;    /* multi-plane die reads */
    uint64_t pages;  /* pages read from flash */
    uint64_t bytes;  /* bytes delivered to the tensor buffer */
    uint64_t lat_ps; /* sum of request latencies (done - now) */
    uint64_t lat_max_ps;
};

/* Caller-owned. */
struct flash_ctrl {
    struct flash_fms *fms;
    uint32_t page_bytes, planes;
    uint64_t t_xfer_ps;  /* one page on the channel */
    unsigned char *unit; /* functional mode: one program unit of pages (planes x page) */
    struct flash_ctrl_stats st;
};

/* 0 or -ENOMEM. fms must outlive the controller. */
int flash_ctrl_init(struct flash_ctrl *c, struct flash_fms *fms, struct err *e);
void flash_ctrl_fini(struct flash_ctrl *c);

/*
 * Read rq from stream s, asked for at now; *done = when the last byte is in the tensor buffer.
 * sink NULL: the data are dropped (timing only). -EINVAL (bad request), -ENODATA / -ESTALE
 * (FTL lookup), or the sink's error; the message is in e. On an error, pages
 * before the failing one may already have been delivered.
 */
int flash_ctrl_read(struct flash_ctrl *c, struct ftl_stream *s, uint64_t now,
                    const struct flash_ctrl_req *rq, const struct flash_ctrl_sink *sink,
                    uint64_t *done, struct err *e);

#endif
