#include "models/ssd/ssd_cfg.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void ssd_cfg_default(struct ssd_cfg *c)
{
    memset(c, 0, sizeof(*c));
    /* The same NAND as the FMS (paper Table 5), 16 channels x 2 chips x 1 die: 512 GiB raw. */
    flash_cfg_default(&c->nand);
    c->nand.geom.channels = 16;                        /* (paper) Table 5, baseline SSD */
    c->nand.tim.t_ctrl_rd_ps = 1930 * FLASH_PS_PER_NS; /* (paper) 1.93 us per NVMe command */
    c->nand.tim.ctrl_cmd_bytes = 128 * 1024;           /* (ours) a common NVMe MDTS */

    c->op_ppm = 70000; /* (paper) Table 5: 7% over-provisioning */
    /* (ours) a few units per die: a unit is 24 MiB, and free units are spare space that GC
     * cannot use (with 683 units per die, 7% is 45 spare units; the pool holds about 3). */
    c->gc_free_urgent = 1;
    c->gc_free_low = 3;
    c->gc_free_high = 4;
    c->t_fw_page_ps = 1450 * FLASH_PS_PER_NS; /* (paper) Table 5: 1.45 us per 4 KB page */
    c->t_fw_gc_ps = 1450 * FLASH_PS_PER_NS;   /* (ours) a GC move updates the map the same way */
    c->sq_depth = 1024;                       /* (ours) */
    c->sram_bytes = 8u << 20;                 /* (paper) Table 5: SRAM 8 MB, I/O + GC buffer */
    c->raid_ssds = 4;                         /* (paper) four SSDs in RAID 0 */
    c->raid_stripe_bytes = 512 * 1024;        /* (ours) Linux md's default chunk */
}

double ssd_cfg_op(const struct ssd_cfg *c)
{
    return c->op_ppm / 1e6;
}

/* ------------------------------------------------------------------ keys */

/* The NAND keys whose SSD default differs from the FMS's, with their sources. */
static const char *const nand_notes[] = {
    "channels = 16: (paper) Table 5, 16 channels x 2 chips x 1 die per SSD",
    "t_ctrl_rd_ns = 1930: (paper) Table 5, controller read latency per NVMe command",
    "ctrl_cmd_bytes = 131072: (ours) bytes per NVMe command, a common MDTS",
    "t_ctrl_wr_ns: not used by the SSD (its writes cost firmware time per page)",
};

bool ssd_cfg_is_ssd_key(const char *key)
{
    return cfgkey_find(ssd_cfg_keys, key) != NULL;
}

/* The rules between keys, once each key is in its range. */
static int check_cross(const struct ssd_cfg *c, struct err *e)
{
    const struct flash_geom *n = &c->nand.geom;
    uint32_t dies = flash_geom_dies(n), b = n->planes_per_die * n->pages_per_block;
    uint64_t phys = flash_geom_pages(n), user, spare_units, spare, wbuf;

    if (c->gc_free_urgent >= c->gc_free_low || c->gc_free_low > c->gc_free_high)
        return err_set(e, -EINVAL,
                       "ssd config: gc_free_urgent = %u, gc_free_low = %u, gc_free_high = "
                       "%u; accepted urgent < low <= high",
                       c->gc_free_urgent, c->gc_free_low, c->gc_free_high);
    if (phys >= UINT32_MAX)
        return err_set(e, -EINVAL,
                       "ssd config: %llu physical pages; accepted fewer than 2^32 (the map "
                       "holds 32-bit page numbers): fewer blocks_per_plane or dies",
                       (unsigned long long)phys);
    user = (uint64_t)floor((double)phys / (1.0 + ssd_cfg_op(c)));
    /* GC must always find a unit with an invalid page: the user data must fit in the units
     * outside the free pool and the two open units of every die. */
    spare_units = (uint64_t)dies * (c->gc_free_high + 2);
    if (spare_units >= (uint64_t)dies * n->blocks_per_plane ||
        user >= ((uint64_t)dies * n->blocks_per_plane - spare_units) * b)
        return err_set(e, -EINVAL,
                       "ssd config: op = %g leaves %llu user pages, more than fit outside "
                       "gc_free_high = %u free and 2 open units per die (%u units of %u "
                       "pages per die); accepted a larger op or a smaller gc_free_high",
                       ssd_cfg_op(c), (unsigned long long)user, c->gc_free_high,
                       n->blocks_per_plane, b);
    wbuf = c->sram_bytes / n->page_bytes;
    if (wbuf < (uint64_t)dies * n->planes_per_die + 2ull * n->planes_per_die)
        return err_set(e, -EINVAL,
                       "ssd config: sram_bytes = %u holds %llu pages; accepted at least one "
                       "GC row per die and two host rows (%u pages of %u B)",
                       c->sram_bytes, (unsigned long long)wbuf, (dies + 2) * n->planes_per_die,
                       n->page_bytes);
    /* Buffered pages have their NAND pages already: their units cannot be collected until the
     * pages are programmed. Keep that within a quarter of the spare space GC works with. */
    wbuf -= (uint64_t)dies * n->planes_per_die;
    spare = ((uint64_t)dies * n->blocks_per_plane - spare_units) * b - user;
    if (4 * wbuf > spare)
        return err_set(
            e, -EINVAL,
            "ssd config: sram_bytes = %u buffers %llu pages, more than a quarter "
            "of the %llu spare pages GC works with (op = %g, outside the free "
            "and open units); accepted sram_bytes <= %llu",
            c->sram_bytes, (unsigned long long)wbuf, (unsigned long long)spare, ssd_cfg_op(c),
            (unsigned long long)((spare / 4 + (uint64_t)dies * n->planes_per_die) * n->page_bytes));
    if (c->raid_stripe_bytes % n->page_bytes)
        return err_set(e, -EINVAL,
                       "ssd config: raid_stripe_bytes = %u is not a multiple of page_bytes "
                       "= %u; accepted k x %u for k >= 1",
                       c->raid_stripe_bytes, n->page_bytes, n->page_bytes);
    return 0;
}

int ssd_cfg_validate(const struct ssd_cfg *c, struct err *e)
{
    const struct flash_fault_cfg *f = &c->nand.fault;
    int rc = flash_cfg_validate(&c->nand, e);

    if (rc)
        return err_prefix(e, rc, "ssd config");
    /* Bit errors, read retries and dead dies the NAND models; a failed program or erase needs
     * the FTL to retire the block, which the SSD's does not (models/ssd/README.md). */
    if (f->on && (f->program_rate > 0 || f->wear))
        return err_set(e, -EINVAL,
                       "ssd config: fault %s: the SSD's FTL does not retire a block whose program "
                       "or erase fails (models/ssd/README.md); accepted on an SSD: rber, age, die, "
                       "channel, power, seed",
                       f->program_rate > 0 ? "program" : "wear");
    for (const struct cfgkey *k = ssd_cfg_keys; k->name; k++) {
        rc = cfgkey_check(k, k->name, c, e);
        if (rc)
            return err_prefix(e, rc, "ssd config");
    }
    return check_cross(c, e);
}

int ssd_cfg_set(struct ssd_cfg *c, const char *key, const char *value, struct err *e)
{
    /* the machine description's parser of the [ssd] keys (ssd_cfg_keys), the one for them */
    const struct cfgkey *k = cfgkey_find(ssd_cfg_keys, key);

    if (!k)
        return flash_cfg_set(&c->nand, key, value, e);
    int rc = cfgkey_parse(k, key, value, c, e);
    return rc ? err_prefix(e, rc, "ssd config") : 0;
}

void ssd_cfg_fprint_keys(FILE *f, const struct ssd_cfg *c)
{
    struct ssd_cfg d;
    char rng[3 * CFGKEY_TEXT_MAX], val[CFGKEY_TEXT_MAX], def[CFGKEY_TEXT_MAX];

    ssd_cfg_default(&d);
    fprintf(f, "SSD keys (value, accepted range, default; each help ends with its source):\n");
    for (const struct cfgkey *k = ssd_cfg_keys; k->name; k++) {
        cfgkey_range(k, rng, sizeof(rng));
        cfgkey_format(k, c, val, sizeof(val));
        cfgkey_format(k, &d, def, sizeof(def));
        fprintf(f, "%-18s = %-10s %-5s accepted %s; default %s; %s\n", k->name, val, k->unit, rng,
                def, k->help);
    }
    fprintf(f, "NAND keys (flash_cfg; paper Table 5 unless said):\n");
    for (size_t i = 0; i < sizeof(nand_notes) / sizeof(nand_notes[0]); i++)
        fprintf(f, "  %s\n", nand_notes[i]);
    flash_cfg_fprint_keys(f, &c->nand);
}

void ssd_cfg_geom(const struct ssd_cfg *c, struct ssd_geom *g)
{
    const struct flash_geom *n = &c->nand.geom;

    g->dies = flash_geom_dies(n);
    g->planes = n->planes_per_die;
    g->rows = n->pages_per_block;
    g->unit_pages = g->planes * g->rows;
    g->units_per_die = n->blocks_per_plane;
    g->units = g->dies * g->units_per_die;
    g->phys_pages = (uint64_t)g->units * g->unit_pages;
    g->user_pages = (uint64_t)floor((double)g->phys_pages / (1.0 + ssd_cfg_op(c)));
    g->wbuf_pages = c->sram_bytes / n->page_bytes - g->dies * g->planes;
    g->cmd_pages = c->nand.tim.ctrl_cmd_bytes / n->page_bytes;
}

/* ------------------------------------------------------------------ the machine's rows */

#define CK(member) CFGKEY_FIELD(struct ssd_cfg, member)
#define NS         1000ull /* ps per ns */

/* The SSD's keys: one table for the machine description, --set, the validation and the --keys
 * listing (the source closes each help line). */
const struct cfgkey ssd_cfg_keys[] = {
    {"op", CK(op_ppm), CFGKEY_DEC(6, 1000, 10000000), .unit = "",
     .help = "over-provisioning: (physical - user) / user pages; (paper) Table 5: 7%"},
    {"gc_free_urgent", CK(gc_free_urgent), CFGKEY_INT(1, 1u << 20), .unit = "units",
     .help = "free units per die at or below which GC is forced (host waits); (ours)"},
    {"gc_free_low", CK(gc_free_low), CFGKEY_INT(2, 1u << 20), .unit = "units",
     .help = "below this many free units a die starts background GC; (ours)"},
    {"gc_free_high", CK(gc_free_high), CFGKEY_INT(2, 1u << 20), .unit = "units",
     .help = "background GC stops at this many free units; (ours)"},
    {"t_fw_page_ns", CK(t_fw_page_ps), CFGKEY_DEC(3, 0, 1000000 * NS), .unit = "ns",
     .help = "firmware time per host page written (serial); (paper) Table 5: 1.45 us per 4 KB"},
    {"t_fw_gc_ns", CK(t_fw_gc_ps), CFGKEY_DEC(3, 0, 1000000 * NS), .unit = "ns",
     .help = "firmware time per page moved by GC; (ours) as a host page"},
    {"sq_depth", CK(sq_depth), CFGKEY_INT(1, 65536), .unit = "",
     .help = "NVMe submission queue entries; (ours)"},
    {"sram_bytes", CK(sram_bytes), CFGKEY_SIZE(4096, 1u << 30), .unit = "bytes",
     .help = "SRAM: one GC row per die, the rest buffers host writes; (paper) Table 5: 8 MB"},
    {"raid_ssds", CK(raid_ssds), CFGKEY_INT(1, 64), .unit = "",
     .help = "members of the RAID 0 array; (paper) four SSDs in RAID 0"},
    {"raid_stripe_bytes", CK(raid_stripe_bytes), CFGKEY_SIZE(512, 1u << 30), .unit = "bytes",
     .help = "stripe unit, a multiple of page_bytes; (ours) Linux md's default chunk"},
    {0},
};

#undef CK
#undef NS

/* ------------------------------------------------------------------ coarse grain */

/* *v x k into *v, or -EINVAL naming key when the result passes max. */
static int scale_u32(uint32_t *v, uint32_t k, uint64_t max, const char *key, struct err *e)
{
    uint64_t x = (uint64_t)*v * k;

    if (x > max)
        return err_set(e, -EINVAL,
                       "ssd at a grain of %u pages: %s = %u x %u = %llu is more than the %llu "
                       "accepted; accepted a smaller grain",
                       k, key, *v, k, (unsigned long long)x, (unsigned long long)max);
    *v = (uint32_t)x;
    return 0;
}

int ssd_cfg_coarse(const struct ssd_cfg *c, uint32_t k, struct ssd_cfg *out, struct err *e)
{
    struct flash_geom *g = &out->nand.geom;
    struct flash_timing *t = &out->nand.tim;
    uint64_t row;
    int rc;

    *out = *c;
    if (!k || (k & (k - 1)))
        return err_set(e, -EINVAL, "ssd grain of %u pages; accepted a power of two >= 1", k);
    if (g->pages_per_block % k)
        return err_set(e, -EINVAL,
                       "ssd grain of %u pages: pages_per_block = %u is not a multiple of it; "
                       "accepted a grain that divides pages_per_block",
                       k, g->pages_per_block);
    g->pages_per_block /= k;
    /* The page, and the buffer in pages: as many slots of coarse pages as of the drive's. */
    if ((rc = scale_u32(&g->page_bytes, k, 1u << 20, "page_bytes", e)) ||
        (rc = scale_u32(&out->sram_bytes, k, 1u << 30, "sram_bytes", e)))
        return rc;
    /* An NVMe command covers at least one coarse row, as the drive's covers whole rows (a
     * command's read is then one multi-plane read of a row, its tR paid once), with the
     * controller's time in proportion to its bytes; the stripe unit keeps its bytes, so a
     * record spreads over the members as on the drive. */
    row = (uint64_t)g->planes_per_die * g->page_bytes;
    if (t->ctrl_cmd_bytes < row) {
        t->t_ctrl_rd_ps = t->t_ctrl_rd_ps * row / t->ctrl_cmd_bytes;
        t->t_ctrl_wr_ps = t->t_ctrl_wr_ps * row / t->ctrl_cmd_bytes;
        t->ctrl_cmd_bytes = (uint32_t)row;
    }
    if (t->ctrl_cmd_bytes % g->page_bytes || out->raid_stripe_bytes % g->page_bytes)
        return err_set(e, -EINVAL,
                       "ssd at a grain of %u pages: ctrl_cmd_bytes = %u and raid_stripe_bytes "
                       "= %u must be multiples of its page of %u B; accepted a smaller grain",
                       k, t->ctrl_cmd_bytes, out->raid_stripe_bytes, g->page_bytes);
    /* Times per page: a coarse page's is the work of k pages. The bus's time per page follows
     * from page_bytes; an erase still erases one block per plane. */
    t->t_r_ps *= k;
    t->t_prog_ps *= k;
    t->t_cmd_ps *= k;
    out->t_fw_page_ps *= k;
    out->t_fw_gc_ps *= k;
    return 0;
}
