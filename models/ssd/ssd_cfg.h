/*
 * ssd_cfg: the parameters of the conventional SSD baseline and of its RAID 0 array.
 *
 * Contract
 * --------
 * Modelled: every number the SSD model (ssd.h) and the array (ssd_raid0.h) read: the NAND (a
 * struct flash_cfg, all of its keys), the FTL (over-provisioning, the free-unit thresholds of
 * garbage collection, firmware time per page), the host interface (submission queue depth,
 * controller time per read command and bytes per command, which are the flash_cfg keys
 * t_ctrl_rd_ns and ctrl_cmd_bytes), the SRAM buffer, and the array (members, stripe unit).
 * Defaults are the baseline of Behemoth (FAST '21, Table 5, right column): a 500 GB commercial
 * SSD of 16 channels x 2 chips x 1 die of the same SLC NAND as the FMS, four of them in RAID 0.
 * Each key has one row in one table (ssd_cfg.c): name, type, accepted range, default, source
 * ((paper) Table 5, (derived) arithmetic on paper numbers, (ours) a choice where the paper gives
 * none) and a description; the machine description file reads the same keys.
 * Also: validation with messages naming the key and the accepted range, a key/value setter that
 * falls through to flash_cfg_set for the NAND keys, and the derived sizes (units, user pages).
 * Not modelled: anything timed (ssd.h), the host link (PCIe), power.
 * Units: times in picoseconds (the setter takes nanoseconds), sizes in bytes, op as a ratio.
 */
#ifndef MODELS_SSD_SSD_CFG_H
#define MODELS_SSD_SSD_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "models/flash/flash_cfg.h"
#include "csim/err.h"

struct ssd_cfg {
    struct flash_cfg nand; /* geometry, NAND timing, controller read time, command size */
    /* FTL */
    double op;               /* over-provisioning: (physical - user) / user pages */
    uint32_t gc_free_urgent; /* free units per die at or below which GC is forced */
    uint32_t gc_free_low;    /* below this many free units a die starts background GC */
    uint32_t gc_free_high;   /* background GC stops at this many free units */
    uint64_t t_fw_page_ps;   /* firmware time per host page written (serial) */
    uint64_t t_fw_gc_ps;     /* firmware time per page moved by GC (same firmware) */
    /* host interface and buffer */
    uint32_t sq_depth;   /* NVMe submission queue entries (commands in the device) */
    uint32_t sram_bytes; /* SRAM for the I/O and GC buffer */
    /* RAID 0 */
    uint32_t raid_ssds;         /* members of the array */
    uint32_t raid_stripe_bytes; /* stripe unit: bytes on one member before the next */
};

/* The derived sizes of a valid configuration. A unit is one block in every plane of a die
 * (the GC and allocation unit: it programs with multi-plane operations). */
struct ssd_geom {
    uint32_t dies, planes, rows; /* rows = pages per block: one multi-plane program each */
    uint32_t unit_pages;         /* planes x rows */
    uint32_t units_per_die;      /* blocks per plane */
    uint32_t units;              /* dies x units_per_die */
    uint64_t phys_pages;         /* units x unit_pages */
    uint64_t user_pages;         /* phys_pages / (1 + op), rounded down */
    uint32_t wbuf_pages;         /* write buffer: SRAM less one GC row per die */
    uint32_t cmd_pages;          /* pages per NVMe command */
};

/* The baseline SSD of paper Table 5 (and its RAID 0 of four). */
void ssd_cfg_default(struct ssd_cfg *c);

/* 0 or -EINVAL naming the first bad key, its value and what is accepted. */
int ssd_cfg_validate(const struct ssd_cfg *c, struct err *e);

/* Set one key from text: an SSD key of the table, else a flash_cfg key of c->nand. -EINVAL
 * (unknown key, unparsable value) or -ERANGE. Cross-key rules: ssd_cfg_validate(). */
int ssd_cfg_set(struct ssd_cfg *c, const char *key, const char *value, struct err *e);

/* True when key is one of the SSD table's own keys (not a flash_cfg key). */
bool ssd_cfg_is_ssd_key(const char *key);

/* Print the SSD keys (value, unit, range, default, source, description), then the NAND keys. */
void ssd_cfg_fprint_keys(FILE *f, const struct ssd_cfg *c);

/* Sizes of c, which must be valid. */
void ssd_cfg_geom(const struct ssd_cfg *c, struct ssd_geom *g);

#endif
