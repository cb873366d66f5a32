#include "models/flash/flash_cfg.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void flash_cfg_default(struct flash_cfg *c)
{
    memset(c, 0, sizeof(*c));
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

enum key_type { KEY_U32, KEY_TIME, KEY_BOOL };

struct key {
    const char *name;
    enum key_type type;
    size_t off;   /* offset in struct flash_cfg */
    uint64_t min; /* accepted range; for KEY_TIME in ps */
    uint64_t max;
    const char *unit;
    const char *help;
};

#define G(f) offsetof(struct flash_cfg, geom.f)
#define T(f) offsetof(struct flash_cfg, tim.f)
#define S(f) offsetof(struct flash_cfg, sw.f)

static const struct key keys[] = {
    {"channels", KEY_U32, G(channels), 1, 1024, "", "independent channels (buses)"},
    {"chips_per_chan", KEY_U32, G(chips_per_chan), 1, 64, "", "chips per channel"},
    {"dies_per_chip", KEY_U32, G(dies_per_chip), 1, 16, "", "dies per chip"},
    {"planes_per_die", KEY_U32, G(planes_per_die), 1, FLASH_MAX_PLANES, "", "planes per die"},
    {"blocks_per_plane", KEY_U32, G(blocks_per_plane), 1, 1u << 20, "", "blocks per plane"},
    {"pages_per_block", KEY_U32, G(pages_per_block), 1, 1u << 16, "", "pages per block"},
    {"page_bytes", KEY_U32, G(page_bytes), 64, 65536, "B",
     "page size, a power of two (below 4096 only for fast RTL tests)"},
    {"t_r_ns", KEY_TIME, T(t_r_ps), FLASH_PS_PER_NS, FLASH_PS_PER_S, "ns", "array read tR"},
    {"t_prog_ns", KEY_TIME, T(t_prog_ps), FLASH_PS_PER_NS, FLASH_PS_PER_S, "ns", "program tPROG"},
    {"t_bers_ns", KEY_TIME, T(t_bers_ps), FLASH_PS_PER_NS, 10 * FLASH_PS_PER_S, "ns",
     "block erase tBERS"},
    {"t_cmd_ns", KEY_TIME, T(t_cmd_ps), 0, 100 * FLASH_PS_PER_US, "ns",
     "command+address bus time per plane"},
    {"bus_mts", KEY_U32, T(bus_mts), 1, 100000, "MT/s", "channel bus rate"},
    {"bus_width_bits", KEY_U32, T(bus_width_bits), 8, 64, "bit", "bus width, multiple of 8"},
    {"t_ctrl_wr_ns", KEY_TIME, T(t_ctrl_wr_ps), 0, FLASH_PS_PER_MS, "ns",
     "controller time per write command"},
    {"t_ctrl_rd_ns", KEY_TIME, T(t_ctrl_rd_ps), 0, FLASH_PS_PER_MS, "ns",
     "controller time per read command"},
    {"ctrl_cmd_bytes", KEY_U32, T(ctrl_cmd_bytes), 64, 64u << 20, "B",
     "bytes per controller command, a multiple of page_bytes"},
    {"cache_program", KEY_BOOL, S(cache_program), 0, 1, "", "overlap data-in with tPROG"},
    {"multi_plane", KEY_BOOL, S(multi_plane), 0, 1, "", "multi-plane operations"},
    {"store_payload", KEY_BOOL, S(store_payload), 0, 1, "", "keep page data (functional mode)"},
};

#undef G
#undef T
#undef S

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static uint64_t key_get(const struct flash_cfg *c, const struct key *k)
{
    const char *p = (const char *)c + k->off;

    switch (k->type) {
    case KEY_U32:
        return *(const uint32_t *)(const void *)p;
    case KEY_TIME:
        return *(const uint64_t *)(const void *)p;
    case KEY_BOOL:
        return *(const bool *)(const void *)p;
    }
    return 0;
}

static void key_put(struct flash_cfg *c, const struct key *k, uint64_t v)
{
    char *p = (char *)c + k->off;

    switch (k->type) {
    case KEY_U32:
        *(uint32_t *)(void *)p = (uint32_t)v;
        break;
    case KEY_TIME:
        *(uint64_t *)(void *)p = v;
        break;
    case KEY_BOOL:
        *(bool *)(void *)p = v != 0;
        break;
    }
}

/* Range text for messages, e.g. "1..1024" or "1 ns..1000000000 ns". */
static void key_range(const struct key *k, char *buf, size_t len)
{
    if (k->type == KEY_TIME)
        snprintf(buf, len, "%.3f..%.3f ns", (double)k->min / FLASH_PS_PER_NS,
                 (double)k->max / FLASH_PS_PER_NS);
    else if (k->type == KEY_BOOL)
        snprintf(buf, len, "on/off");
    else
        snprintf(buf, len, "%llu..%llu", (unsigned long long)k->min, (unsigned long long)k->max);
}

static void key_value(const struct flash_cfg *c, const struct key *k, char *buf, size_t len)
{
    uint64_t v = key_get(c, k);

    if (k->type == KEY_TIME)
        snprintf(buf, len, "%.3f ns", (double)v / FLASH_PS_PER_NS);
    else if (k->type == KEY_BOOL)
        snprintf(buf, len, "%s", v ? "on" : "off");
    else
        snprintf(buf, len, "%llu", (unsigned long long)v);
}

static int key_check(const struct flash_cfg *c, const struct key *k, struct err *e)
{
    uint64_t v = key_get(c, k);
    char rng[64], val[64];

    if (v >= k->min && v <= k->max)
        return 0;
    key_range(k, rng, sizeof(rng));
    key_value(c, k, val, sizeof(val));
    return err_set(e, -EINVAL, "flash config: %s = %s is out of range; accepted %s (%s)", k->name,
                   val, rng, k->help);
}

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

int flash_cfg_validate(const struct flash_cfg *c, struct err *e)
{
    const struct flash_geom *g = &c->geom;
    const struct flash_timing *t = &c->tim;
    int rc;

    for (size_t i = 0; i < N_KEYS; i++) {
        rc = key_check(c, &keys[i], e);
        if (rc)
            return rc;
    }
    if (!is_pow2(g->page_bytes))
        return err_set(e, -EINVAL,
                       "flash config: page_bytes = %u is not a power of two; accepted "
                       "64, 128, ..., 65536",
                       g->page_bytes);
    if (t->bus_width_bits % 8)
        return err_set(e, -EINVAL,
                       "flash config: bus_width_bits = %u is not a multiple of 8; "
                       "accepted 8, 16, 24, ..., 64",
                       t->bus_width_bits);
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
    return 0;
}

static int parse_bool(const char *s, uint64_t *v)
{
    static const char *const on[] = {"1", "on", "true", "yes"};
    static const char *const off[] = {"0", "off", "false", "no"};

    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(s, on[i])) {
            *v = 1;
            return 0;
        }
        if (!strcasecmp(s, off[i])) {
            *v = 0;
            return 0;
        }
    }
    return -EINVAL;
}

int flash_cfg_set(struct flash_cfg *c, const char *key, const char *value, struct err *e)
{
    const struct key *k = NULL;
    uint64_t v = 0;
    char *end = NULL;
    char rng[64];

    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(keys[i].name, key))
            k = &keys[i];
    if (!k)
        return err_set(e, -EINVAL,
                       "flash config: unknown key '%s'; flash_cfg_fprint_keys() lists "
                       "the accepted keys (e.g. channels, t_prog_ns, cache_program)",
                       key);
    key_range(k, rng, sizeof(rng));
    errno = 0;
    if (k->type == KEY_BOOL) {
        if (parse_bool(value, &v))
            return err_set(e, -EINVAL,
                           "flash config: %s = '%s' is not a switch value; accepted "
                           "on/off, true/false, yes/no, 1/0",
                           key, value);
    } else if (k->type == KEY_TIME) {
        double ns = strtod(value, &end);

        if (end == value || *end || errno || !(ns >= 0.0) || ns > 1e12)
            return err_set(e, -EINVAL,
                           "flash config: %s = '%s' is not a time in ns; accepted a "
                           "decimal number in %s",
                           key, value, rng);
        v = (uint64_t)(ns * (double)FLASH_PS_PER_NS + 0.5);
    } else {
        unsigned long long u = strtoull(value, &end, 0);

        if (end == value || *end || errno || value[0] == '-')
            return err_set(e, -EINVAL,
                           "flash config: %s = '%s' is not an unsigned integer; "
                           "accepted %s",
                           key, value, rng);
        v = u;
    }
    if (v < k->min || v > k->max)
        return err_set(e, -ERANGE, "flash config: %s = '%s' is out of range; accepted %s", key,
                       value, rng);
    key_put(c, k, v);
    return 0;
}

void flash_cfg_fprint_keys(FILE *f, const struct flash_cfg *c)
{
    char rng[64], val[64];

    for (size_t i = 0; i < N_KEYS; i++) {
        key_range(&keys[i], rng, sizeof(rng));
        key_value(c, &keys[i], val, sizeof(val));
        fprintf(f, "%-18s = %-16s  %-4s accepted %s: %s\n", keys[i].name, val, keys[i].unit, rng,
                keys[i].help);
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
    uint64_t xfer = flash_cfg_xfer_ps(t, g->page_bytes);
    /* Per die and operation: command, tR and data-out in series (no cache read). Read command
     * cycles are charged as latency, not as bus occupancy, so the channel moves data only. */
    uint64_t per_op = ppo * t->t_cmd_ps + t->t_r_ps + ppo * xfer;
    double per_chan;

    bounds_common(c, b, t->t_ctrl_rd_ps);
    b->array_bps = flash_geom_dies(g) * rate((double)ppo * g->page_bytes, per_op);
    per_chan = rate(g->page_bytes, xfer);
    b->chan_bps = g->channels * per_chan;
    bounds_min(b);
}
