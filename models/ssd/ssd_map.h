/*
 * ssd_map: the page-mapping FTL's tables: logical-to-physical map, reverse map, units with their
 * valid-page counts, greedy victim selection and the free pool with its wear levelling.
 *
 * Contract
 * --------
 * Modelled (bookkeeping only, no time; ssd.c times it):
 *   - L2P: one 32-bit entry per logical page (the map the SSD keeps in its DRAM), physical page
 *     number + 1, 0 = never written. P2L: one entry per physical page, logical page + 1, 0 =
 *     invalid (stale, padding or erased). Both are calloc'ed: pages never touched cost no memory.
 *   - Physical page numbers: ppn = unit x unit_pages + row x planes + plane, unit = die x
 *     units_per_die + block. A unit is block `block` of every plane of one die: it is allocated,
 *     written (one multi-plane program per row, so its pages always line up) and erased whole.
 *   - Unit states: FREE -> OPEN (a write frontier) -> CLOSED (full, a GC candidate) -> VICTIM
 *     (being collected) -> FREE after its erase.
 *   - Greedy victim selection (fewest valid pages) per die. Ties: the unit whose valid count
 *     last changed while closed (or that closed last), the newest `seq`. Picking scans the
 *     die's units (a few hundred, one run of memory); an invalidation only counts down and
 *     stamps the unit (O(1), one cache line). A victim is picked once per unit collected, after
 *     hundreds or thousands of invalidations, and in the paper study's runs never (they fill
 *     no drive), so the scan costs less than keeping the units sorted on every write did (a
 *     bucket list per valid count: a tenth of an SSD point's time in its link updates).
 *   - Wear levelling (dynamic): a die's free unit with the fewest erases is allocated (ties: the
 *     lowest unit number), the top of the die's free pool, a heap (a fresh drive's pool holds
 *     every unit; in steady state a few, the GC thresholds). Why not FIFO: under skewed
 *     traffic the units that GC frees again and again are the same few; taking the
 *     least-erased free unit spreads their erases over every unit that passes through the
 *     pool. Static wear levelling (moving cold data off little-erased units) is not modelled.
 * Not modelled: map persistence and its flash writes, map caching (the whole map is in DRAM),
 *   bad blocks.
 * Units: pages, units.
 */
#ifndef MODELS_SSD_SSD_MAP_H
#define MODELS_SSD_SSD_MAP_H

#include <stdint.h>

#include "csim/err.h"
#include "models/ssd/ssd_cfg.h"

#define SSD_NONE UINT32_MAX

enum ssd_unit_state { SSD_UNIT_FREE, SSD_UNIT_OPEN, SSD_UNIT_CLOSED, SSD_UNIT_VICTIM };

struct ssd_unit {
    uint32_t valid;  /* valid pages */
    uint32_t erases; /* erase count (all its blocks are erased together) */
    uint64_t seq;    /* CLOSED: when it closed or its valid count last changed */
    uint8_t state;   /* enum ssd_unit_state */
};

struct ssd_map {
    uint32_t dies, units_per_die, unit_pages, planes;
    uint64_t user_pages, phys_pages;
    uint32_t *l2p;         /* [user_pages]: ppn + 1, 0 = unmapped */
    uint32_t *p2l;         /* [phys_pages]: lpn + 1, 0 = invalid */
    struct ssd_unit *unit; /* [dies x units_per_die] */
    uint32_t *free_pool;   /* [dies x units_per_die]: each die's free units, a binary
                            * min-heap by (erases, unit number) */
    uint32_t *n_free;      /* [dies] */
    uint64_t n_free_total; /* over all dies */
    uint64_t n_closed;     /* closed units over all dies */
    uint64_t seq;          /* the last unit's seq stamped */
};

int ssd_map_init(struct ssd_map *m, const struct ssd_geom *g, struct err *e);
void ssd_map_fini(struct ssd_map *m);

static inline uint32_t ssd_map_unit_of(const struct ssd_map *m, uint32_t ppn)
{
    return ppn / m->unit_pages;
}

/* Physical page of lpn, SSD_NONE when never written. */
static inline uint32_t ssd_map_ppn(const struct ssd_map *m, uint64_t lpn)
{
    return m->l2p[lpn] - 1; /* 0 - 1 wraps to SSD_NONE */
}

/* Logical page held at ppn, SSD_NONE when the page is invalid. */
static inline uint32_t ssd_map_lpn(const struct ssd_map *m, uint32_t ppn)
{
    return m->p2l[ppn] - 1;
}

/* lpn now lives at ppn (a page of an OPEN unit): its old page, if any, becomes invalid. */
void ssd_map_write(struct ssd_map *m, uint64_t lpn, uint32_t ppn);

/* GC moved lpn from old (its current page) to ppn (a page of an OPEN unit). As ssd_map_write,
 * without reading the L2P entry: GC knows the old page from the reverse map. */
void ssd_map_move(struct ssd_map *m, uint64_t lpn, uint32_t old, uint32_t ppn);

/* Bring the L2P entry of lpn into the cache ahead of a write to it. */
static inline void ssd_map_prefetch(const struct ssd_map *m, uint64_t lpn)
{
    __builtin_prefetch(&m->l2p[lpn], 1);
}

/* The free unit of die with the fewest erases, now OPEN; SSD_NONE if the pool is empty. */
uint32_t ssd_map_alloc(struct ssd_map *m, uint32_t die);

/* An OPEN unit is full: it becomes a GC candidate. */
void ssd_map_close(struct ssd_map *m, uint32_t unit);

/* The closed unit of die with the fewest valid pages, now VICTIM; SSD_NONE if none. */
uint32_t ssd_map_pick_victim(struct ssd_map *m, uint32_t die);

/* A victim, now without valid pages, was erased: FREE again, one erase more. */
void ssd_map_release(struct ssd_map *m, uint32_t unit);

#endif
