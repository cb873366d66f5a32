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

#include "csim/cfgkey.h"
#include "csim/err.h"
#include "models/flash/flash_cfg.h"

struct ssd_cfg {
    struct flash_cfg nand; /* geometry, NAND timing, controller read time, command size */
    /* FTL */
    uint32_t op_ppm;         /* over-provisioning: (physical - user) / user pages, in parts
                                per million (70000: 7%); ssd_cfg_op() gives the ratio */
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

/* Over-provisioning as a ratio: op_ppm / 10^6. */
double ssd_cfg_op(const struct ssd_cfg *c);

/* The SSD's own keys (not the NAND's) as rows of csim/cfgkey, fields of struct ssd_cfg, the same
 * names and ranges as ssd_cfg_set takes, each help line ending with the key's source: the
 * machine description file reads them (models/machine/machine_ini.h). */
extern const struct cfgkey ssd_cfg_keys[];

/*
 * The same drive observed at a grain of k pages (k a power of two, 1..65536 / page_bytes):
 * pages of k x page_bytes, k times fewer pages per block, a buffer of as many pages (SRAM k
 * times larger), and every time per page (tR, tPROG, command cycles, firmware per page written
 * or moved) k times longer; dies, planes, blocks, units, the free-unit thresholds, the erase
 * time, the NVMe commands (bytes, controller time, queue entries) and the stripe unit stay.
 * Every throughput (firmware, programs, reads, channels, controller, erases), the capacity, the
 * units and their number are the drive's; one operation of a coarse page does the work of k
 * of the drive's, in one die's time where the drive spreads it over up to k dies, so the
 * latency of an operation is k times the drive's. k = 1 is c itself. 0, or -EINVAL naming
 * the key that does not divide (pages_per_block; ctrl_cmd_bytes, raid_stripe_bytes by the
 * coarse page) or overflows its range, and what is accepted.
 */
int ssd_cfg_coarse(const struct ssd_cfg *c, uint32_t k, struct ssd_cfg *out, struct err *e);

/* 0 or -EINVAL naming the first bad key, its value and what is accepted. */
int ssd_cfg_validate(const struct ssd_cfg *c, struct err *e);

/* Set one key from text: an SSD key of ssd_cfg_keys, parsed as the machine description parses
 * it (csim/cfgkey), else a flash_cfg key of c->nand. -EINVAL (unknown key, unparsable value)
 * or -ERANGE. Cross-key rules: ssd_cfg_validate(). */
int ssd_cfg_set(struct ssd_cfg *c, const char *key, const char *value, struct err *e);

/* True when key is one of the SSD table's own keys (not a flash_cfg key). */
bool ssd_cfg_is_ssd_key(const char *key);

/* Print the SSD keys (value, unit, range, default, source, description), then the NAND keys. */
void ssd_cfg_fprint_keys(FILE *f, const struct ssd_cfg *c);

/* Sizes of c, which must be valid. */
void ssd_cfg_geom(const struct ssd_cfg *c, struct ssd_geom *g);

#endif
