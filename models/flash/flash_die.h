/*
 * flash_die: state, rules and array timing of one NAND die.
 *
 * Contract
 * --------
 * Modelled:
 *   - Per block: erase count (P/E cycles), write pointer (pages programmed since the last
 *     erase), bad flag, and in functional mode the page payloads, stored sparsely: the page
 *     table of a block is allocated on its first program, a page buffer on each program with
 *     data, and both are freed on erase. Timing-only mode stores no payload at all.
 *   - NAND rules, reported as errors (never a crash): program only erased pages, pages of a
 *     block strictly in order, erase whole blocks only (the API has no smaller unit), no
 *     program or erase on a bad block, no read of a page not programmed since the last erase.
 *   - Multi-plane operations: one page number, one block per plane (planes chosen by a mask);
 *     all planes are checked before any state changes.
 *   - Array timing: an array phase (tR, tPROG, tBERS) of a multi-plane operation starts at
 *     max(data ready, die busy_until, busy_until of each plane in the mask). The die is busy
 *     (R/B#) during any array phase. reg_free_at is the time the data/cache register can take
 *     the next data-in or read; flash_fms sets it, as it composes bus and array phases.
 *   - Fault injection: a block can be made to fail its next erase (it becomes bad).
 * Not modelled here: partial-page program, program/erase suspend, read disturb, independent
 *   multi-plane reads (the die is one array resource); retention loss and bit errors are
 *   flash_fault's (flash_fms applies them).
 * Units: picoseconds; page indices; bytes.
 */
#ifndef MODELS_FLASH_FLASH_DIE_H
#define MODELS_FLASH_FLASH_DIE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/flash/flash_addr.h"
#include "models/flash/flash_cfg.h"

struct flash_block {
    uint32_t pe;          /* erase count: P/E cycles used */
    uint32_t wp;          /* pages programmed since the last erase; 0 = erased */
    uint8_t bad;          /* retired: program and erase refused */
    uint8_t fail_erase;   /* injected fault: the next erase fails and marks the block bad */
    uint8_t fail_program; /* injected fault: the next program fails and marks it bad (flash_fms) */
    uint64_t prog_ps;     /* when its first page since the last erase was programmed (faults:
                           * the retention age of its data) */
    unsigned char **data; /* functional mode: page table, NULL until the first program */
};

struct flash_die {
    struct flash_addr where; /* channel, chip and die of this die, for messages */
    uint32_t planes, blocks, pages, page_bytes;
    bool store_payload;
    uint64_t busy_until;  /* array busy (R/B#) until the running array phase ends */
    uint64_t reg_free_at; /* data/cache register free for the next data-in or read */
    uint64_t plane_busy[FLASH_MAX_PLANES];
    struct flash_block *blk; /* block b of plane p at blk[b x stride + p] */
    size_t stride;           /* planes, or the planes of every die of a shared table */
    bool own_blk;            /* blk is this die's own allocation */
    /* statistics */
    uint64_t n_read_pages, n_prog_pages, n_erase_blocks;
    uint64_t array_busy_ps; /* sum of array phase durations */
    uint64_t payload_pages; /* pages holding a stored payload now */
};

int flash_die_init(struct flash_die *d, const struct flash_cfg *c, uint32_t die_index,
                   struct err *e);
/* The same on a table the caller owns, zeroed, of blocks_per_plane rows of `stride` blocks, this
 * die's planes at the start of each row: flash_fms lays its dies' blocks out block-major across
 * dies, so that one block number on every die and plane (a stream FTL's superblock) is one run
 * of memory instead of a cache miss per die. */
void flash_die_init_shared(struct flash_die *d, const struct flash_cfg *c, uint32_t die_index,
                           struct flash_block *blk, size_t stride);
void flash_die_fini(struct flash_die *d);

/* Block `block` of plane `plane` (inline: the FTLs' hottest lookup). */
static inline struct flash_block *flash_die_block(struct flash_die *d, uint32_t plane,
                                                  uint32_t block)
{
    assert(plane < d->planes && block < d->blocks);
    return &d->blk[(size_t)block * d->stride + plane];
}

static inline const struct flash_block *flash_die_block_c(const struct flash_die *d, uint32_t plane,
                                                          uint32_t block)
{
    assert(plane < d->planes && block < d->blocks);
    return &d->blk[(size_t)block * d->stride + plane];
}

/*
 * Program page `page` of blocks[p] in every plane p of plane_mask. data: NULL, or an array
 * indexed by plane whose entries are page_bytes buffers or NULL (the page then reads back as
 * zeros). Functional mode copies the data. 0, -EINVAL (address or rule), -EIO (bad block),
 * -ENOMEM.
 */
int flash_die_program(struct flash_die *d, uint32_t plane_mask, const uint32_t *blocks,
                      uint32_t page, const void *const *data, struct err *e);

/* Read page `page` of blocks[p] for every plane p of the mask into data[p] (functional mode;
 * NULL entries or data NULL skip the copy). -ENODATA for a page not programmed. */
int flash_die_read(struct flash_die *d, uint32_t plane_mask, const uint32_t *blocks, uint32_t page,
                   void *const *data, struct err *e);

/* Erase blocks[p] in every plane of the mask: write pointer to 0, P/E + 1, payload freed.
 * -EIO if a block failed (injected); it is then bad, and the other planes are still erased. */
int flash_die_erase(struct flash_die *d, uint32_t plane_mask, const uint32_t *blocks,
                    struct err *e);

/* Reserve the array for dur from max(t_ready, die and plane busy); returns the end time. */
uint64_t flash_die_array(struct flash_die *d, uint64_t t_ready, uint32_t plane_mask, uint64_t dur);

#endif
