/*
 * ftl_layout: how the blocks of every plane are split between metadata, streams and spares.
 *
 * Contract
 * --------
 * Modelled: named block ranges per plane (the same in every plane of every die), each with its
 * kind, P/E budget, retention class and persistence: Behemoth's Activation Node layout (paper,
 * Table 2) and a Weight Node layout (ours: the paper has none). Validation against a geometry:
 * ranges inside the plane, no overlap, at most one spare range, every stream with a budget.
 * Not modelled: the metadata itself (blocks 0-9 are only reserved).
 * Units: block indices; retention in seconds (a year of picoseconds overflows uint64_t).
 */
#ifndef MODELS_FLASH_FTL_LAYOUT_H
#define MODELS_FLASH_FTL_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "csim/err.h"
#include "models/flash/flash_cfg.h"

#define FTL_LAYOUT_MAX   8
#define FTL_SEC_PER_DAY  86400ull
#define FTL_SEC_PER_YEAR (365ull * FTL_SEC_PER_DAY)

enum ftl_region_kind {
    FTL_REGION_META,   /* FTL metadata, not used by the model */
    FTL_REGION_STREAM, /* one stream */
    FTL_REGION_SPARE,  /* bad-block replacement */
};

struct ftl_region {
    const char *name;     /* short stream name: "NV", "V", ... */
    const char *contents; /* what it holds, for reports */
    enum ftl_region_kind kind;
    uint32_t first;       /* first block in every plane */
    uint32_t count;       /* blocks in every plane */
    uint32_t pe_budget;   /* streams: P/E cycles a block may take */
    uint64_t retention_s; /* streams: retention class */
    bool nonvolatile;     /* streams: outlives training (NV) or not (V) */
};

struct ftl_layout {
    const char *node; /* "AN", "WN" */
    uint32_t n;
    struct ftl_region r[FTL_LAYOUT_MAX];
};

/* Activation Node (paper, Table 2), for 683 blocks per plane. */
void ftl_layout_an(struct ftl_layout *l);
/* Weight Node (ours), for 683 blocks per plane. */
void ftl_layout_wn(struct ftl_layout *l);

int ftl_layout_validate(const struct ftl_layout *l, const struct flash_geom *g, struct err *e);
const struct ftl_region *ftl_layout_find(const struct ftl_layout *l, const char *name);
const struct ftl_region *ftl_layout_spare(const struct ftl_layout *l);

/* One line per region: range, blocks, capacity over the whole FMS, P/E, retention. */
void ftl_layout_fprint(FILE *f, const struct ftl_layout *l, const struct flash_geom *g);

#endif
