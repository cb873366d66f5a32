/*
 * flash_cfg: geometry, timing and switches of a NAND flash memory system (FMS).
 *
 * Contract
 * --------
 * Modelled: the numbers every flash model reads: geometry (channels, chips per channel, dies
 * per chip, planes, blocks, pages, page size), NAND timing (tR, tPROG, tBERS, command/address
 * time on the bus), bus rate and width, controller time per command, and the policy switches
 * (cache program, multi-plane, payload storage). Defaults are the Behemoth FMS (FAST '21,
 * Table 5); each number says where it comes from: (paper), (derived) or (ours).
 * Also: the table of keys (flash_cfg_keys: every field with its name, range, unit and help,
 * csim/cfgkey.h), from which come the validation with messages naming the key and the
 * accepted range, the key/value setter for config files and the listing; and the throughput
 * bounds the configuration implies.
 * Not modelled: MLC/TLC page types, read retry, ECC, status polling, suspend/resume.
 * Units: times in picoseconds (uint64_t); the setter takes nanoseconds (decimals allowed);
 * sizes in bytes; bus rate in MT/s; rates in bytes per second (double).
 */
#ifndef MODELS_FLASH_FLASH_CFG_H
#define MODELS_FLASH_FLASH_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "csim/cfgkey.h"
#include "csim/err.h"
#include "models/flash/flash_fault.h"

#define FLASH_MAX_PLANES 16 /* planes per die the models accept */

#define FLASH_PS_PER_NS 1000ull
#define FLASH_PS_PER_US 1000000ull
#define FLASH_PS_PER_MS 1000000000ull
#define FLASH_PS_PER_S  1000000000000ull

struct flash_geom {
    uint32_t channels;         /* independent buses */
    uint32_t chips_per_chan;   /* chips (chip enables) sharing one channel */
    uint32_t dies_per_chip;    /* dies (LUNs) per chip */
    uint32_t planes_per_die;   /* planes that program/read/erase in parallel */
    uint32_t blocks_per_plane; /* erase blocks per plane */
    uint32_t pages_per_block;  /* program pages per block */
    uint32_t page_bytes;       /* bytes per page (data area) */
};

struct flash_timing {
    uint64_t t_r_ps;         /* array read: cells to page register */
    uint64_t t_prog_ps;      /* array program: page register to cells */
    uint64_t t_bers_ps;      /* block erase */
    uint64_t t_cmd_ps;       /* command + address cycles on the bus, per plane and operation */
    uint32_t bus_mts;        /* bus rate, mega-transfers per second */
    uint32_t bus_width_bits; /* bus width: bits per transfer */
    uint64_t t_ctrl_wr_ps;   /* controller time per write command (serial) */
    uint64_t t_ctrl_rd_ps;   /* controller time per read command (serial) */
    uint32_t ctrl_cmd_bytes; /* bytes carried by one controller (NVMe-like) command */
};

struct flash_switches {
    bool cache_program; /* next page's data-in overlaps the current tPROG (cache register) */
    bool multi_plane;   /* one operation spans several planes of a die; off: plane by plane */
    bool store_payload; /* functional mode: keep page data; off: timing only, no payload */
};

struct flash_cfg {
    struct flash_geom geom;
    struct flash_timing tim;
    struct flash_switches sw;
    struct flash_fault_cfg fault; /* bit errors, ECC, injected faults (flash_fault.h); not a
                                   * key: --fault sets it; off by default */
};

/* Throughput bounds in bytes per second for large sequential transfers over all dies. */
struct flash_bounds {
    double array_bps;    /* dies x (pages per op) / (per-die time per op) */
    double chan_raw_bps; /* channels x MT/s x width, no command cycles (paper's 76.8 GB/s) */
    double chan_bps;     /* channels x pages / bus time the model charges for them (write:
                          * command cycles + data per page; read, per operation: command
                          * cycles, tR and data-out, as the bus, serving calls in order,
                          * carries nothing else during the read's tR; data-out only when
                          * t_cmd is 0) */
    double ctrl_bps;     /* ctrl_cmd_bytes / controller time per command */
    double min_bps;      /* min(array, chan, ctrl): the configuration's stated bound */
};

/* Behemoth FMS defaults (paper, Table 5). */
void flash_cfg_default(struct flash_cfg *c);

/* Every key of struct flash_cfg, ended by a row with a NULL name. Time keys are given in ns
 * ("t_prog_ns"), stored in ps. */
extern const struct cfgkey flash_cfg_keys[];

/* 0 or -EINVAL naming the first bad key, its value and the accepted range. */
int flash_cfg_validate(const struct flash_cfg *c, struct err *e);

/*
 * Set one key from text, e.g. ("t_prog_ns", "100000") or ("cache_program", "off"). Keys are
 * listed by flash_cfg_fprint_keys(). -EINVAL (unknown key, unparsable value) or -ERANGE.
 * Cross-key rules are checked by flash_cfg_validate().
 */
int flash_cfg_set(struct flash_cfg *c, const char *key, const char *value, struct err *e);

/* Print every key with its current value, unit and accepted range. */
void flash_cfg_fprint_keys(FILE *f, const struct flash_cfg *c);

uint32_t flash_geom_dies(const struct flash_geom *g);
uint64_t flash_geom_pages(const struct flash_geom *g); /* all pages of the FMS */
uint64_t flash_geom_bytes(const struct flash_geom *g);

/* Bus time to move `bytes` over one channel, rounded up to whole picoseconds. */
uint64_t flash_cfg_xfer_ps(const struct flash_timing *t, uint64_t bytes);

void flash_cfg_write_bounds(const struct flash_cfg *c, struct flash_bounds *b);
void flash_cfg_read_bounds(const struct flash_cfg *c, struct flash_bounds *b);

#endif
