/*
 * ftl_stream_priv: what the stream FTL's files share (not a public interface): the stream's
 * state and the block functions its writes and reads use.
 *   ftl_stream.c        the blocks: mapping, round-robin allocation, erase, spares, create,
 *                       release, lookups, pages adopted from the hardware pipeline
 *   ftl_stream_rw.c     the writes and reads: the page path, program failures, the fast path
 *   ftl_stream_stats.c  the endurance statistics and their printing
 */
#ifndef MODELS_FLASH_FTL_STREAM_PRIV_H
#define MODELS_FLASH_FTL_STREAM_PRIV_H

#include "models/flash/ftl_stream.h"

enum pb_state {
    PB_FREE,    /* erased, ready for an LB */
    PB_LIVE,    /* mapped by an LB */
    PB_DIRTY,   /* released, not yet erased */
    PB_RETIRED, /* a plane ran out of spares: unusable */
};

struct lblock {
    int64_t pbn;      /* -1: unmapped */
    uint64_t wp;      /* pages written: the LB's append point */
    uint64_t t_write; /* time of the first write since it was mapped */
};

struct ftl_stream {
    struct ftl_stream_cfg cfg;
    struct flash_fms *fms;
    struct ftl_bbm *bbm;
    uint32_t planes, dies, page_bytes;
    uint64_t sbp;      /* pages per superblock (LB) */
    uint64_t lpages;   /* pages of the logical space */
    bool payload;      /* functional mode: pass data down */
    struct lblock *lb; /* [n_lblocks] */
    uint8_t *pb;       /* [n_blocks] enum pb_state */
    uint32_t cursor;   /* next PBN in the round-robin rotation */
    uint32_t n_live, n_retired;
    uint64_t append; /* append point (LPN) */
    /* statistics */
    uint64_t lpages_written, ppages, pages_read, sb_erases, replaced;
    uint64_t prog_remaps, remap_pages, remap_ps; /* program failures survived, their copies */
    uint64_t t_first_write;
    bool written;
};

/* ftl_stream.c */

/* The flat index of plane `plane` of die `die` (the bad-block manager's). */
uint32_t ftl_stream_dp_of(const struct ftl_stream *s, uint32_t die, uint32_t plane);
/* Replace block blk (the stream's PBN, in plane p of die) with a spare; why: for the message. */
int ftl_stream_replace_block(struct ftl_stream *s, uint32_t die, uint32_t p, uint32_t blk,
                             const char *why, struct err *e);
/* The multi-plane operation of n pages from offset off of the superblock mapped to PB pbn. */
void ftl_stream_unit_op(const struct ftl_stream *s, uint64_t off, uint32_t n, uint32_t pbn,
                        struct flash_mpop *op);
/* Round-robin: the next PBN in rotation that holds no live data (erased first if dirty). */
int ftl_stream_alloc_pb(struct ftl_stream *s, uint64_t now, uint32_t *pbn, struct err *e);

/* ftl_stream_rw.c */

/* Whether pages [lpn, lpn + npages) can be read now: written, mapped, within retention. */
int ftl_stream_read_check(struct ftl_stream *s, uint64_t now, uint64_t lpn, uint64_t npages,
                          struct err *e);

#endif
