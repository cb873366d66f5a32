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
 *     (start - asked of an access's first piece on each channel it uses), so a run shows who
 *     waited for whom.
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
    uint64_t wait_ps; /* queueing behind others: over every access and channel it used, the
                         start of its first piece there less the time asked (its later
                         pieces on that channel follow it at once and add none) */
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

/* free: every access takes no time from now on (returns the time it is asked for) and claims
 * nothing, its requester's statistics untouched: the ideal storage's buffer, where every memory
 * access is free (models/machine). Off by default. */
void dram_set_free(struct dram *d, bool free);

/* Every channel's bus free from time 0 on (busy_until 0); its statistics are kept. For tests
 * and tools that time accesses as if nothing had come before them (no node model uses it: its
 * agents share the channels' real state). */
void dram_idle(struct dram *d);

/* True when every channel's bus is free at t (busy_until <= t). */
bool dram_free_at(const struct dram *d, uint64_t t);
/* The latest busy_until of the channels: every bus is free from then on. */
uint64_t dram_free_from(const struct dram *d);

/*
 * The timing state of a memory: its channels' buses and its requesters' statistics. Saved and
 * restored around accesses to be undone (a second timing of the same command, models/node:
 * lockstep's check of the DMA timing).
 */
struct dram_timing {
    struct res chan[DRAM_MAX_CHANNELS];
    struct dram_req_stats req[DRAM_MAX_REQUESTERS];
};
void dram_timing_save(const struct dram *d, struct dram_timing *s);
void dram_timing_restore(struct dram *d, const struct dram_timing *s);

/*
 * A recorded run: what a sequence of accesses of one requester (rid), started at t0 and met by
 * no other requester's access, did to the memory's timing. Replayed at t1 on a memory of the
 * same configuration whose channels are busy until t1 + (b - t0) wherever they were busy until
 * b > t0 at the recording (and free at t1 wherever they were free at t0), for requester rid,
 * it leaves the channels and statistics exactly as the same accesses shifted by t1 - t0 would:
 * a channel's timing is a function of its busy_until alone (busy-until, first come first
 * served), so the accesses meet the same waits.
 */
struct dram_run {
    uint64_t t0;
    uint32_t channels;
    bool touched[DRAM_MAX_CHANNELS];     /* the run claimed the channel */
    uint64_t end_off[DRAM_MAX_CHANNELS]; /* its busy_until after the run, less t0 */
    uint64_t busy_ps[DRAM_MAX_CHANNELS], n_ops[DRAM_MAX_CHANNELS];
    struct dram_req_stats req; /* the requester's statistics grew by these */
};
/* The run from state before (saved at t0) to d's state now, of requester rid. */
void dram_run_record(const struct dram *d, int rid, uint64_t t0, const struct dram_timing *before,
                     struct dram_run *run);
void dram_run_replay(struct dram *d, int rid, uint64_t t1, const struct dram_run *run);

const struct dram_req_stats *dram_req_stats(const struct dram *d, int rid);
/* Requesters registered (ids 0 .. n - 1). */
int dram_requesters(const struct dram *d);
/* Channel chan's data bus (busy_until, bus time, pieces served), or NULL past the last channel. */
const struct res *dram_chan_stats(const struct dram *d, uint32_t chan);

#ifdef __cplusplus
}
#endif

#endif
