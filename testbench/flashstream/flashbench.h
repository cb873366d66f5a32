/*
 * flashbench: what the two halves of `flashstream flashbench` share: the options (one table,
 * in flashbench.c) and the fio-like report (flashbench_report.c). flashbench.c runs the node's
 * flash memory system (--device fms, the default); flashbench_ssd.c runs the conventional SSD
 * baseline (--device ssd | raid0, models/ssd/). Calls go one way: flashbench.c ->
 * flashbench_ssd.c -> flashbench_report.c.
 */
#ifndef TESTBENCH_FLASHSTREAM_FLASHBENCH_H
#define TESTBENCH_FLASHSTREAM_FLASHBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/flash/flash_cfg.h"
#include "models/flash/flash_fault.h"
#include "models/ssd/ssd_cfg.h"

enum fb_rw { RW_WRITE, RW_READ, RW_RANDWRITE, RW_RANDREAD };
extern const char *const fb_rw_names[4];

enum fb_device { DEV_FMS, DEV_SSD, DEV_RAID0 };
extern const char *const fb_device_names[3];

#define FB_MAX_SETS 64 /* --set and --cache-program options */

struct fb_opts {
    int rw; /* enum fb_rw */
    uint64_t bs, iodepth, size, seed;
    const char *stream;                /* region name of the node's layout */
    int node;                          /* enum node: whose layout and flash */
    uint32_t range_first, range_count; /* --range: a stream of its own; count 0 = layout */
    const char *config;                /* --config: the machine description */
    const char *sets[FB_MAX_SETS];     /* --set, --cache-program: "section.key=value" */
    int n_sets;
    char set_text[FB_MAX_SETS][48]; /* the assignment of a --cache-program, at its index */
    char ssd_set[FB_MAX_SETS][128]; /* a bare SSD key's --set as ssd.KEY=VALUE, at its index */
    bool list_keys, list_layouts;   /* --keys, --layout: print, do not run */
    bool exact;                     /* --exact: no fast path of long transfers */
    struct flash_cfg cfg;           /* the node's flash of the machine described */
    struct flash_fault_cfg fault;   /* [faults] and --fault: bit errors, ECC, injected faults */
    const char *fault_specs[32];    /* --fault, in order, applied over the description's */
    int n_fault_specs;
    /* --device ssd | raid0 */
    int device;          /* enum fb_device */
    bool precondition;   /* fill, then random overwrites to GC's steady state */
    uint64_t span;       /* bytes the offsets cover; 0: see flashbench_ssd.c */
    struct ssd_cfg ssd;  /* the description's [ssd] (or [an_ssd], [wn_ssd]), its NAND with the
                            NAND keys of --set */
    const char *ssd_key; /* an SSD-only key given with --set (refused for fms) */
};

/* A run's requests: their number, bytes, first start, last end and latencies. */
struct fb_result {
    uint64_t n_req, bytes, t_start, t_end;
    uint64_t *lat;         /* per request, ps */
    uint64_t fast_stripes; /* stripes the flash models accounted without simulating them */
    bool faults;           /* fault counters below */
    struct flash_fault_stats fst;
};

/* "64KiB": the largest binary unit that divides bytes. */
const char *fb_human(uint64_t bytes, char *buf, size_t len);

/* The "lat (usec)" and percentile lines; sorts r->lat. */
void fb_print_latency(const struct fb_result *r);
/* The "faults:" line of the fault counters s. */
void fb_print_fault_stats(const struct flash_fault_stats *s);

/* One term of a bound: its name, bytes per second and how it is reckoned. */
struct fb_term {
    const char *name;
    double bps;
    char how[160];
};

/* Each term, then the smallest and how much of it was achieved. */
void fb_print_terms(const struct fb_term *tm, size_t n, double achieved);

/* flashbench_ssd.c: the whole command for --device ssd | raid0 (options parsed and checked);
 * returns the exit status. */
int fb_run_ssd(const struct fb_opts *o);

#endif
