/*
 * ftl_bbm: bad-block manager: replaces worn-out or failed blocks with spare blocks.
 *
 * Contract
 * --------
 * Modelled: a spare range of blocks [spare_first, spare_first + spare_count) in every plane of
 * every die (Behemoth AN: 672-682, 11 per plane), a remap table per plane (block -> block in
 * use, identity at start), and hand-out of the spares of a plane in order. Shared by all
 * streams of a node: a spare replaces a block of whichever stream needs it first.
 * Not modelled: remap metadata in flash (blocks 0-9), its persistence and recovery.
 * Units: indices. A "die-plane" index dp = flat die index x planes_per_die + plane.
 */
#ifndef MODELS_FLASH_FTL_BBM_H
#define MODELS_FLASH_FTL_BBM_H

#include <stdint.h>

#include "csim/err.h"
#include "models/flash/flash_cfg.h"

struct ftl_bbm {
    uint32_t n_dp;        /* die-planes */
    uint32_t blocks;      /* blocks per plane */
    uint32_t spare_first; /* first spare block of every plane */
    uint32_t spare_count; /* spares per plane */
    uint32_t *map;        /* [block * n_dp + dp]: block in use for `block`; block-major, as
                           * the streams resolve one block on every die-plane in turn */
    uint32_t *used;       /* [dp]: spares of that plane handed out */
    uint64_t n_replaced;  /* replacements made */
};

/* -EINVAL if the spare range does not fit in the plane, -ENOMEM. spare_count may be 0. */
int ftl_bbm_init(struct ftl_bbm *b, const struct flash_geom *g, uint32_t spare_first,
                 uint32_t spare_count, struct err *e);
void ftl_bbm_fini(struct ftl_bbm *b);

static inline uint32_t ftl_bbm_resolve(const struct ftl_bbm *b, uint32_t dp, uint32_t block)
{
    return b->map[(uint64_t)block * b->n_dp + dp];
}

/* Map `block` of plane dp to the next spare of that plane; *spare = the new block.
 * -ENOSPC (message: which plane, how many spares, which range) when none is left. */
int ftl_bbm_replace(struct ftl_bbm *b, uint32_t dp, uint32_t block, uint32_t *spare, struct err *e);

uint32_t ftl_bbm_spares_left(const struct ftl_bbm *b, uint32_t dp);

#endif
