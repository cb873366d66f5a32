/*
 * dram: the node's DDR tensor buffer, a transaction-level model.
 *
 * Contract
 * --------
 * Modelled: a byte-addressable memory of cfg.size_bytes.
 *   - Contents (functional mode, store_payload): kept sparsely in 4 KiB pages, allocated on the
 *     first write that touches them, so a 16 GiB buffer costs host memory only for what was
 *     written. Bytes never written read as zero (a choice: it makes results independent of
 *     allocation and needs no "uninitialised" tracking). Timing-only mode keeps no contents:
 *     reads return zeros, writes are dropped.
 *   - Timing as resources (STYLE rule 13): the address space is interleaved over `channels`
 *     in units of `interleave_bytes` (channel = addr / interleave_bytes % channels). Each
 *     channel is one data bus of chan_mbps, a busy-until resource (csim/res.h). An access of
 *     n bytes to a channel asked for at t starts at max(t, busy_until), holds the bus for
 *     n / bandwidth, and its data (read) or acknowledgement (write) is there latency_ps after
 *     the transfer ends. An access that crosses interleave units is split; it ends when its
 *     last piece does.
 *   - Contention: requesters (the DMA, the NAND write pipeline, the fabric, ...) register by
 *     name and get an id; each keeps counts of accesses, bytes, bus time and queueing delay
 *     (start - asked), so a run shows who waited for whom.
 * Not modelled: banks, rows and their open/close cost, refresh, read/write turnaround, burst
 * granularity (an 8-byte access costs 8 bytes of bus time: the controller is assumed to
 * coalesce sequential beats), and reordering: each channel serves accesses first come, first
 * served in call order, which is exact when calls arrive in time order.
 * Units: bytes, picoseconds, MB/s (10^6 bytes per second).
 *
 * Defaults (dram_cfg_default), with their source:
 *   size_bytes       16 GiB   (paper: 16 GB DDR4 tensor buffer per NPU)
 *   channels         4        (ours: four 64-bit DDR4 channels per node)
 *   chan_mbps        25600    (derived: DDR4-3200 on a 64-bit bus, 3200 MT/s x 8 B)
 *   latency_ps       50 ns    (ours: tRCD + CL, 2 x 13.75 ns at DDR4-3200 CL22, plus ~22 ns
 *                              of controller and PHY)
 *   interleave_bytes 256      (ours: a common channel-interleave granule)
 *   store_payload    true     (functional mode)
 */
#ifndef MODELS_DRAM_DRAM_H
#define MODELS_DRAM_DRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/res.h"
#include "csim/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DRAM_PAGE_BYTES     4096u        /* unit of the sparse store */
#define DRAM_MAX_SIZE       (1ull << 40) /* the memory port carries 40-bit addresses */
#define DRAM_MAX_CHANNELS   64u
#define DRAM_MAX_REQUESTERS 16u

#define DRAM_PS_PER_NS 1000ull

struct dram_cfg {
    uint64_t size_bytes;       /* capacity: a multiple of DRAM_PAGE_BYTES, <= DRAM_MAX_SIZE */
    uint32_t channels;         /* independent channels, 1..DRAM_MAX_CHANNELS */
    uint32_t chan_mbps;        /* data-bus bandwidth of one channel, MB/s */
    uint64_t latency_ps;       /* from the end of the bus transfer to data/acknowledgement */
    uint32_t interleave_bytes; /* channel interleave unit, a power of two >= 8 */
    bool store_payload;        /* functional mode: keep contents; off: timing only */
};

/* Per-requester contention statistics. */
struct dram_req_stats {
    char name[32];
    uint64_t accesses; /* calls of dram_access */
    uint64_t pieces;   /* per-channel pieces they were split into */
    uint64_t bytes_rd;
    uint64_t bytes_wr;
    uint64_t bus_ps;  /* bus time used */
    uint64_t wait_ps; /* sum over pieces of start - asked: time spent queued behind others */
};

struct dram;

/* The defaults listed above. */
void dram_cfg_default(struct dram_cfg *c);

/* 0, or -EINVAL with a message naming the key, its value and what is accepted. */
int dram_cfg_check(const struct dram_cfg *c, struct err *e);

/* Create a model (cfg is copied); 0 or -EINVAL (bad cfg) / -ENOMEM. */
int dram_create(const struct dram_cfg *cfg, struct dram **out, struct err *e);
void dram_destroy(struct dram *d);
const struct dram_cfg *dram_get_cfg(const struct dram *d);

/* True when [addr, addr + len) lies inside the memory (len 0: addr <= size). */
bool dram_in_range(const struct dram *d, uint64_t addr, uint64_t len);

/* ---- functional access: no time passes ---- */

/* Copy len bytes out of / into the memory; 0 or -ERANGE (nothing done) when outside. */
int dram_read(struct dram *d, uint64_t addr, void *buf, size_t len);
int dram_write(struct dram *d, uint64_t addr, const void *buf, size_t len);
/* One 8-byte beat at an address that is a multiple of 8: read it, or write the bytes whose
 * strobe bit is set (byte i of the beat is bits 8i+7:8i). 0 or -ERANGE / -EINVAL. */
int dram_read_beat(struct dram *d, uint64_t addr, uint64_t *data);
int dram_write_beat(struct dram *d, uint64_t addr, uint64_t data, uint8_t strb);
/* 4 KiB pages holding contents now. */
uint64_t dram_pages(const struct dram *d);

/* ---- timing ---- */

/* Register a requester for statistics; returns its id (>= 0) or -ENOSPC. */
int dram_requester(struct dram *d, const char *name);

/* Channel that serves addr. */
uint32_t dram_channel_of(const struct dram *d, uint64_t addr);

/* Bus time of n bytes on one channel (rounded up to whole picoseconds). */
uint64_t dram_xfer_ps(const struct dram_cfg *c, uint64_t bytes);

/*
 * Timing of an access of len bytes at addr asked for at t by requester rid: claims the bus of
 * every channel it touches and returns the time its data (read) or acknowledgement (write) is
 * there. Contents are not touched (see dram_read/dram_write). The range is not checked.
 */
uint64_t dram_access(struct dram *d, int rid, uint64_t t, uint64_t addr, uint64_t len, bool write);

/* Every channel's bus free from time 0 on (busy_until 0); its statistics are kept. The start of
 * a sequence of accesses timed as if nothing had come before it (models/node/dmat.h: every DMA
 * command starts with the tensor buffer idle). */
void dram_idle(struct dram *d);

const struct dram_req_stats *dram_req_stats(const struct dram *d, int rid);
/* Channel chan's data bus (busy_until, bus time, pieces served), or NULL past the last channel. */
const struct res *dram_chan_stats(const struct dram *d, uint32_t chan);

#ifdef __cplusplus
}
#endif

#endif
