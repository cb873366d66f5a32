/*
 * fabric: the SwarmX-like tree between the Weight Node (WN) and N Activation Nodes (ANs):
 * weights broadcast down, gradients and losses summed up.
 *
 * Contract
 * --------
 * Modelled, timing (transaction level):
 *   - Topology: a tree of switches with fan-out F. levels = max(1, ceil(log_F N)); the root
 *     switch hangs off the WN, each leaf-level switch serves up to F ANs (AN n on leaf switch
 *     n / F, switch i of a level under switch i / F of the level above). Every AN is
 *     hops = levels + 1 links away from the WN.
 *   - Links: full duplex; each direction of each link is a busy-until resource (csim/res.h).
 *     A chunk of s bytes occupies the link for xfer(s) = ceil(s * 1e12 / link_Bps) ps and
 *     reaches the far end hop_latency_ps after it left (latency is flight time: the link is
 *     free again after xfer(s)). Store-and-forward per chunk: a switch forwards a chunk once
 *     it holds all of it.
 *   - Broadcast of S bytes in chunks of C (the last chunk S - (chunks-1) C): chunk k on the
 *     link into node x starts at max(arrival of chunk k at x's parent, busy_until of that
 *     link). Switches copy each chunk to all their children at once (separate links). Without
 *     contention and with equal chunks every AN has the last byte at
 *         start + hops * latency + (chunks + hops - 1) * xfer(C).
 *   - Reduce of S bytes from every AN (AN n ready at ready[n]): a switch sums chunk k once
 *     chunk k of all its children has arrived, on its adder (a resource, sum(s) =
 *     ceil(s * 1e12 / sum_Bps) ps per chunk, also for a single child), then sends the sum up.
 *     Without contention, equal chunks and equal ready times the WN has the last byte at
 *         ready + hops * (latency + xfer(C)) + levels * sum(C)
 *               + (chunks - 1) * max(xfer(C), sum(C)).
 *   - Loss gather: a reduce of one fp32 (4 bytes).
 *   - Concurrent transfers contend for links and adders in the order they are issued (each
 *     call reserves its chunks on the busy_until of every resource it uses).
 * Modelled, function: fabric_reduce_f32 sums the N partials in node order 0..N-1
 * (dst = p0, then dst = fl(dst + p1), ...), the order models/dnn/README.md section 7 fixes,
 * whatever the tree shape and timing. (With one switch level that is also the order a switch
 * that adds its children in ascending order produces; with more levels it is not: see the
 * README of models/dnn, "what is weak".) The *_data calls move the bytes of a broadcast, a
 * reduce or a loss gather between the nodes' tensor buffers (dram models) with that sum; they
 * take no time: a caller pairs each with its timing call.
 * Not modelled: packet headers, flow control credits, link errors, switch buffer limits,
 * in-switch queueing beyond the busy_until order, multicast trees other than the fan-out tree.
 * Units: time in picoseconds (uint64_t), sizes in bytes, rates in bytes per second.
 * Defaults (fabric_cfg_default) are (ours): the papers give no fabric figures.
 */
#ifndef MODELS_FABRIC_FABRIC_H
#define MODELS_FABRIC_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/dram/dram.h"

#define FABRIC_PS_PER_S  1000000000000ull
#define FABRIC_PS_PER_US 1000000ull
#define FABRIC_MAX_AN    4096u

struct fabric_cfg {
    uint32_t n_an;           /* N, Activation Nodes, 1..FABRIC_MAX_AN */
    uint32_t fanout;         /* F, children per switch, >= 2 */
    uint64_t link_Bps;       /* bytes per second, per link and direction */
    uint64_t hop_latency_ps; /* flight time of one link */
    uint64_t chunk_bytes;    /* C, unit of pipelining, >= 1 */
    uint64_t sum_Bps;        /* a switch's adder: bytes of summed output per second */
};

struct fabric_stats {
    uint64_t broadcasts;      /* fabric_broadcast calls with bytes > 0 */
    uint64_t reduces;         /* fabric_reduce calls with bytes > 0 (loss gathers included) */
    uint64_t bytes_down;      /* payload bytes broadcast (counted once, not per AN) */
    uint64_t bytes_up;        /* payload bytes reduced (as delivered to the WN) */
    uint64_t wn_down_busy_ps; /* time the WN's down link was transmitting */
    uint64_t wn_up_busy_ps;   /* time the WN's up link was transmitting */
};

struct fabric;

/* 4 ANs, F 16, 100 Gb/s links, 1 us per hop, 64 KiB chunks, adders at link rate (all ours). */
void fabric_cfg_default(struct fabric_cfg *c);
/* 0 or -EINVAL naming the field, its value and the accepted range. */
int fabric_cfg_validate(const struct fabric_cfg *c, struct err *e);

int fabric_create(const struct fabric_cfg *c, struct fabric **out, struct err *e);
void fabric_destroy(struct fabric *f);
/* Forget every reservation (all resources free at time 0) and the statistics. */
void fabric_reset(struct fabric *f);

const struct fabric_cfg *fabric_cfg(const struct fabric *f);
uint32_t fabric_levels(const struct fabric *f);   /* switch levels */
uint32_t fabric_hops(const struct fabric *f);     /* links from the WN to an AN: levels + 1 */
uint32_t fabric_switches(const struct fabric *f); /* switches in all levels */
void fabric_get_stats(const struct fabric *f, struct fabric_stats *s);

uint64_t fabric_chunks(const struct fabric_cfg *c, uint64_t bytes);  /* ceil(bytes / C) */
uint64_t fabric_xfer_ps(const struct fabric_cfg *c, uint64_t bytes); /* one link, rounded up */
uint64_t fabric_sum_ps(const struct fabric_cfg *c, uint64_t bytes);  /* one adder, rounded up */

/*
 * Broadcast `bytes` from the WN (all of them available at `now`) to every AN. done[n] (NULL:
 * not wanted) receives the time AN n holds the last byte; *last the latest of them (now when
 * bytes == 0). 0 or -EINVAL (NULL last).
 */
int fabric_broadcast(struct fabric *f, uint64_t now, uint64_t bytes, uint64_t *done, uint64_t *last,
                     struct err *e);

/*
 * Sum `bytes` from every AN (AN n has all of them at ready[n]) into the WN. *done receives the
 * time the WN holds the last byte of the sum (the latest ready time when bytes == 0).
 * 0 or -EINVAL (NULL argument).
 */
int fabric_reduce(struct fabric *f, const uint64_t *ready, uint64_t bytes, uint64_t *done,
                  struct err *e);

/* The loss gather: fabric_reduce of one fp32 (4 bytes). */
int fabric_gather_loss(struct fabric *f, const uint64_t *ready, uint64_t *done, struct err *e);

/*
 * dst[i] = partials[0][i], then dst[i] = dst[i] + partials[n][i] for n = 1..N-1, in fp32
 * (IEEE binary32, RNE). dst may be partials[0], no other partial.
 */
void fabric_reduce_f32(const struct fabric *f, float *dst, const float *const *partials,
                       size_t count);

/*
 * The fabric's transfers timed end to end, through the nodes' tensor buffers (first come,
 * first served with the nodes' other agents): a node sends from its buffer as one read asked
 * for when its send starts, and takes a stream into its buffer as one write asked for when the
 * first byte can arrive (the stream's end less one link's time for its bytes). A transfer ends
 * no earlier than the last of these claims.
 */
struct fabric_ends {
    struct dram *wn_tb;         /* the Weight Node's buffer ... */
    int wn_rid;                 /* ... and the fabric's requester id there */
    struct dram *const *an_tbs; /* every AN's buffer, n = 0 .. N-1 ... */
    const int *an_rids;         /* ... and the fabric's requester id at each */
};
/* Broadcast `bytes` at src of the WN's buffer to dst of every AN's, from now: *end when every
 * AN's buffer holds them, *free_at when the WN's down link has sent them (the tree forwards). */
int fabric_time_broadcast(struct fabric *f, const struct fabric_ends *x, uint64_t now, uint64_t src,
                          uint64_t dst, uint64_t bytes, uint64_t *end, uint64_t *free_at,
                          struct err *e);
/* Reduce `bytes` at src of every AN's buffer (AN n's ready at ready[n]) to dst of the WN's;
 * loss: the 4-byte loss gather, whose sum goes to the host, not into the WN's buffer.
 * *end = *free_at: when the WN's buffer holds the sum. */
int fabric_time_reduce(struct fabric *f, const struct fabric_ends *x, bool loss,
                       const uint64_t *ready, uint64_t now, uint64_t src, uint64_t dst,
                       uint64_t bytes, uint64_t *end, uint64_t *free_at, struct err *e);

/*
 * The bytes of the fabric's transfers, between the WN's tensor buffer wn_tb and the ANs' an_tbs[n]
 * (n = 0..N-1); no time passes. Each returns 0, -ERANGE when a region lies outside its buffer
 * (the buffers written before that keep what they got), or -ENOMEM (the fabric's scratch).
 */
/* Broadcast: `bytes` bytes at src of wn_tb, to dst of every AN's buffer. */
int fabric_broadcast_data(struct fabric *f, struct dram *wn_tb, uint64_t src,
                          struct dram *const *an_tbs, uint64_t dst, uint64_t bytes, struct err *e);
/* Reduce: the fp32 vectors of bytes / 4 elements at src of every AN's buffer, summed in node
 * order (fabric_reduce_f32), to dst of wn_tb. */
int fabric_reduce_data(struct fabric *f, struct dram *const *an_tbs, uint64_t src, uint64_t bytes,
                       struct dram *wn_tb, uint64_t dst, struct err *e);
/* Loss gather: the fp32 at src of every AN's buffer, summed in node order, in *sum. */
int fabric_gather_loss_data(struct fabric *f, struct dram *const *an_tbs, uint64_t src, float *sum,
                            struct err *e);

#endif
