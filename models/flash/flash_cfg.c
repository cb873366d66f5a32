#include "models/flash/flash_cfg.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

void flash_cfg_default(struct flash_cfg *c)
{
    memset(c, 0, sizeof(*c));
    flash_fault_cfg_default(&c->fault);
    /* Geometry: Behemoth FMS, 2 TiB per node. */
    c->geom.channels = 64;          /* (paper) Table 5: 64 channels */
    c->geom.chips_per_chan = 2;     /* (paper) Table 5: 2 chips/channel */
    c->geom.dies_per_chip = 1;      /* (paper) Table 5: 1 die/chip */
    c->geom.planes_per_die = 8;     /* (paper) Table 5: 8 planes/die */
    c->geom.blocks_per_plane = 683; /* (paper) Table 5: 683 blocks/plane */
    c->geom.pages_per_block = 768;  /* (paper) Table 5: 768 pages/block */
    c->geom.page_bytes = 4096;      /* (paper) Table 5: 4KB page, SLC */

    /* NAND timing. */
    c->tim.t_r_ps = 3 * FLASH_PS_PER_US;      /* (paper) Table 5: read 3 us */
    c->tim.t_prog_ps = 100 * FLASH_PS_PER_US; /* (paper) Table 5: program 100 us */
    c->tim.t_bers_ps = 5 * FLASH_PS_PER_MS;   /* (paper) Table 5: block erase 5 ms */
    /* (ours) ~7 command/address cycles at ~15 ns (ONFI-class); the paper gives none. */
    c->tim.t_cmd_ps = 100 * FLASH_PS_PER_NS;
    c->tim.bus_mts = 1200;     /* (paper) Table 5: channel speed 1200MT/s */
    c->tim.bus_width_bits = 8; /* (derived) 1.2 GB/s per channel, docs/sources.md */

    /* Controller. */
    c->tim.t_ctrl_wr_ps = 1180 * FLASH_PS_PER_NS; /* (paper) Table 5: write 1.18 us per cmd */
    c->tim.t_ctrl_rd_ps = 1930 * FLASH_PS_PER_NS; /* (paper) Table 5: read 1.93 us per cmd */
    /* (ours) the paper gives no command size; 64 KiB / 1.18 us = 55.5 GB/s, which matches the
     * "write-command pipeline 56 GB/s" of the talk (facts sheet section 2). */
    c->tim.ctrl_cmd_bytes = 64 * 1024;

    /* Switches. */
    c->sw.cache_program = true; /* (ours) standard ONFI cache program; needed for 41.9 GB/s */
    c->sw.multi_plane = true;   /* (derived) the 41.9 GB/s bound programs all 8 planes at once */
    c->sw.store_payload = true; /* (ours) functional by default; perf runs switch it off */
}

/* ------------------------------------------------------------------ key table */

#define FIELD(member) CFGKEY_FIELD(struct flash_cfg, member)
#define NS            FLASH_PS_PER_NS

const struct cfgkey flash_cfg_keys[] = {
    {"channels", FIELD(geom.channels), CFGKEY_INT(1, 1024), .unit = "",
     .help = "independent channels (buses)"},
    {"chips_per_chan", FIELD(geom.chips_per_chan), CFGKEY_INT(1, 64), .unit = "",
     .help = "chips per channel"},
    {"dies_per_chip", FIELD(geom.dies_per_chip), CFGKEY_INT(1, 16), .unit = "",
     .help = "dies per chip"},
    {"planes_per_die", FIELD(geom.planes_per_die), CFGKEY_INT(1, FLASH_MAX_PLANES), .unit = "",
     .help = "planes per die"},
    {"blocks_per_plane", FIELD(geom.blocks_per_plane), CFGKEY_INT(1, 1u << 20), .unit = "",
     .help = "blocks per plane"},
    {"pages_per_block", FIELD(geom.pages_per_block), CFGKEY_INT(1, 1u << 16), .unit = "",
     .help = "pages per block"},
    {"page_bytes", FIELD(geom.page_bytes), CFGKEY_INT(64, 1u << 20), .pow2 = true, .unit = "B",
     .help = "page size (below 4096 only for fast RTL tests, above 16384 only for coarse "
             "models: ssd_grain)"},
    {"t_r_ns", FIELD(tim.t_r_ps), CFGKEY_DEC(3, NS, FLASH_PS_PER_S), .unit = "ns",
     .help = "array read tR"},
    {"t_prog_ns", FIELD(tim.t_prog_ps), CFGKEY_DEC(3, NS, FLASH_PS_PER_S), .unit = "ns",
     .help = "program tPROG"},
    {"t_bers_ns", FIELD(tim.t_bers_ps), CFGKEY_DEC(3, NS, 10 * FLASH_PS_PER_S), .unit = "ns",
     .help = "block erase tBERS"},
    {"t_cmd_ns", FIELD(tim.t_cmd_ps), CFGKEY_DEC(3, 0, 100 * FLASH_PS_PER_US), .unit = "ns",
     .help = "command+address bus time per plane"},
    {"bus_mts", FIELD(tim.bus_mts), CFGKEY_INT(1, 100000), .unit = "MT/s",
     .help = "channel bus rate"},
    {"bus_width_bits", FIELD(tim.bus_width_bits), CFGKEY_INT(8, 64), .mult = 8, .unit = "bit",
     .help = "bus width"},
    {"t_ctrl_wr_ns", FIELD(tim.t_ctrl_wr_ps), CFGKEY_DEC(3, 0, FLASH_PS_PER_MS), .unit = "ns",
     .help = "controller time per write command"},
    {"t_ctrl_rd_ns", FIELD(tim.t_ctrl_rd_ps), CFGKEY_DEC(3, 0, FLASH_PS_PER_MS), .unit = "ns",
     .help = "controller time per read command"},
    {"ctrl_cmd_bytes", FIELD(tim.ctrl_cmd_bytes), CFGKEY_INT(64, 64u << 20), .unit = "B",
     .help = "bytes per controller command, a multiple of page_bytes"},
    {"cache_program", FIELD(sw.cache_program), CFGKEY_BOOL, .unit = "",
     .help = "overlap data-in with tPROG"},
    {"multi_plane", FIELD(sw.multi_plane), CFGKEY_BOOL, .unit = "",
     .help = "multi-plane operations"},
    {"store_payload", FIELD(sw.store_payload), CFGKEY_BOOL, .unit = "",
     .help = "keep page data (functional mode)"},
    {0},
};

#undef FIELD
#undef NS

int flash_cfg_validate(const struct flash_cfg *c, struct err *e)
{
    const struct flash_geom *g = &c->geom;
    const struct flash_timing *t = &c->tim;
    int rc;

    for (const struct cfgkey *k = flash_cfg_keys; k->name; k++) {
        rc = cfgkey_check(k, k->name, c, e);
        if (rc)
            return err_prefix(e, rc, "flash config");
    }
    if (t->ctrl_cmd_bytes % g->page_bytes)
        return err_set(e, -EINVAL,
                       "flash config: ctrl_cmd_bytes = %u is not a multiple of "
                       "page_bytes = %u; accepted k x %u for k >= 1",
                       t->ctrl_cmd_bytes, g->page_bytes, g->page_bytes);
    if ((uint64_t)g->channels * g->chips_per_chan * g->dies_per_chip > 65536)
        return err_set(e, -EINVAL,
                       "flash config: channels x chips_per_chan x dies_per_chip = "
                       "%u x %u x %u dies is too many; accepted at most 65536",
                       g->channels, g->chips_per_chan, g->dies_per_chip);
    /* A fault on a die or channel the flash does not have would never fire. */
    for (uint32_t i = 0; i < c->fault.n_dead; i++) {
        const struct flash_dead *d = &c->fault.dead[i];
        uint32_t dies = g->chips_per_chan * g->dies_per_chip;

        if (d->ch >= g->channels)
            return err_set(e, -EINVAL,
                           "fault %s:ch=%u: the flash has channels 0..%u (channels = %u)",
                           d->channel ? "channel" : "die", d->ch, g->channels - 1, g->channels);
        if (!d->channel && d->die >= dies)
            return err_set(e, -EINVAL,
                           "fault die:ch=%u,die=%u: a channel has dies 0..%u (chips_per_chan x "
                           "dies_per_chip = %u x %u)",
                           d->ch, d->die, dies - 1, g->chips_per_chan, g->dies_per_chip);
    }
    return 0;
}

int flash_cfg_set(struct flash_cfg *c, const char *key, const char *value, struct err *e)
{
    const struct cfgkey *k = cfgkey_find(flash_cfg_keys, key);
    int rc;

    if (!k)
        return err_set(e, -EINVAL,
                       "flash config: unknown key '%s'; flash_cfg_fprint_keys() lists "
                       "the accepted keys (e.g. channels, t_prog_ns, cache_program)",
                       key);
    rc = cfgkey_parse(k, key, value, c, e);
    return rc ? err_prefix(e, rc, "flash config") : 0;
}

void flash_cfg_fprint_keys(FILE *f, const struct flash_cfg *c)
{
    char rng[3 * CFGKEY_TEXT_MAX], val[CFGKEY_TEXT_MAX];

    for (const struct cfgkey *k = flash_cfg_keys; k->name; k++) {
        cfgkey_range(k, rng, sizeof(rng));
        cfgkey_show(k, c, val, sizeof(val));
        fprintf(f, "%-18s = %-16s  %-4s accepted %s: %s\n", k->name, val, k->unit, rng, k->help);
    }
}

/* ------------------------------------------------------------------ derived numbers */

uint32_t flash_geom_dies(const struct flash_geom *g)
{
    return g->channels * g->chips_per_chan * g->dies_per_chip;
}

uint64_t flash_geom_pages(const struct flash_geom *g)
{
    return (uint64_t)flash_geom_dies(g) * g->planes_per_die * g->blocks_per_plane *
           g->pages_per_block;
}

uint64_t flash_geom_bytes(const struct flash_geom *g)
{
    return flash_geom_pages(g) * g->page_bytes;
}

uint64_t flash_cfg_xfer_ps(const struct flash_timing *t, uint64_t bytes)
{
    /* transfers = bytes * 8 / width; each transfer takes 1e6 / MT/s picoseconds. */
    uint64_t transfers = (bytes * 8 + t->bus_width_bits - 1) / t->bus_width_bits;

    return (transfers * 1000000ull + t->bus_mts - 1) / t->bus_mts;
}

static double rate(double bytes, uint64_t ps)
{
    return ps ? bytes * (double)FLASH_PS_PER_S / (double)ps : 1e30;
}

static void bounds_common(const struct flash_cfg *c, struct flash_bounds *b, uint64_t t_ctrl)
{
    const struct flash_geom *g = &c->geom;
    const struct flash_timing *t = &c->tim;
    uint64_t page_xfer = flash_cfg_xfer_ps(t, g->page_bytes);

    b->chan_raw_bps = (double)g->channels * t->bus_mts * 1e6 * (t->bus_width_bits / 8);
    b->chan_bps = g->channels * rate(g->page_bytes, t->t_cmd_ps + page_xfer);
    b->ctrl_bps = rate(t->ctrl_cmd_bytes, t_ctrl);
}

static void bounds_min(struct flash_bounds *b)
{
    b->min_bps = b->array_bps;
    if (b->chan_bps < b->min_bps)
        b->min_bps = b->chan_bps;
    if (b->ctrl_bps < b->min_bps)
        b->min_bps = b->ctrl_bps;
}

void flash_cfg_write_bounds(const struct flash_cfg *c, struct flash_bounds *b)
{
    const struct flash_geom *g = &c->geom;
    const struct flash_timing *t = &c->tim;
    uint32_t ppo = c->sw.multi_plane ? g->planes_per_die : 1; /* pages per operation */
    uint64_t in = ppo * (t->t_cmd_ps + flash_cfg_xfer_ps(t, g->page_bytes));
    /* Per die and operation: cache program hides data-in behind the previous tPROG. */
    uint64_t per_op =
        c->sw.cache_program ? (in > t->t_prog_ps ? in : t->t_prog_ps) : in + t->t_prog_ps;

    bounds_common(c, b, t->t_ctrl_wr_ps);
    b->array_bps = flash_geom_dies(g) * rate((double)ppo * g->page_bytes, per_op);
    bounds_min(b);
}

void flash_cfg_read_bounds(const struct flash_cfg *c, struct flash_bounds *b)
{
    const struct flash_geom *g = &c->geom;
    const struct flash_timing *t = &c->tim;
    uint32_t ppo = c->sw.multi_plane ? g->planes_per_die : 1;
    uint64_t cmd = ppo * t->t_cmd_ps, out = ppo * flash_cfg_xfer_ps(t, g->page_bytes);
    /* Per die and operation: command, tR and data-out in series (no cache read). */
    uint64_t per_op = cmd + t->t_r_ps + out;
    /* Per channel and operation: a read reserves its command cycles and its data-out in one
     * call, and the bus serves calls in order without filling idle gaps, so a later transfer
     * can only follow the data-out: the read holds the bus through its tR. Without command
     * cycles only the data-out is on the bus, and one die's tR runs under another's data-out. */
    uint64_t per_chan_op = cmd ? per_op : out;

    bounds_common(c, b, t->t_ctrl_rd_ps);
    b->array_bps = flash_geom_dies(g) * rate((double)ppo * g->page_bytes, per_op);
    b->chan_bps = g->channels * rate((double)ppo * g->page_bytes, per_chan_op);
    bounds_min(b);
}
