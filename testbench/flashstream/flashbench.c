/*
 * flashstream flashbench: a fio-like benchmark of one node's flash memory system (FMS) through
 * the stream FTL and the controller.
 *
 * Requests of --bs bytes, --iodepth at a time, --size bytes in all, on one stream of the node's
 * layout. The flash is --node's in the machine of --config and --set (configs/README.md; a key
 * without a section is a flash key: --set channels=16 is --set flash.channels=16). Writes go
 * through the stream FTL (ftl_stream: controller command cost, append, page layout striped over
 * channels and dies, multi-plane program); reads through the controller's read path (flash_ctrl:
 * command cost, FTL lookup, striped die reads). Timing only: no payload. A request is submitted
 * when one of the iodepth in flight completes (all start at time 0), so the models serve them in
 * time order. Prints bandwidth, IOPS, latency percentiles and the configuration's theoretical bound
 * with each of its terms: channel bus, program (or read) rate with and without cache program,
 * controller time per command, and the queue depth over the unloaded latency (Little's law).
 *
 * Patterns: write = appends at the stream's append point; read = the same range read in order
 * (written first, not timed); randread = requests at random bs-aligned offsets of that range;
 * randwrite = each request appended to a randomly chosen logical block among those the size
 * spans (the stream FTL is append-only inside a logical block: "random" writes are interleaved
 * tensors, not overwrites in place).
 *
 * Long transfers take the flash models' fast path (flash_fms.h: whole stripes of a periodic
 * transfer accounted at once, with exactly the page-by-page results); --exact turns it off.
 *
 * --device ssd | raid0 runs the conventional SSD baseline instead (flashbench_ssd.c); the options
 * of both are this file's one table.
 */
#define _DEFAULT_SOURCE
#include "csim/hostmem.h"
#include "csim/rng.h"
#include "models/flash/flash_sys.h"
#include "models/machine/machine_ini.h"
#include "models/ssd/ssd_cfg.h"
#include "testbench/flashstream/cli.h"
#include "testbench/flashstream/commands.h"
#include "csim/minheap.h"
#include "testbench/flashstream/flashbench.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum node { NODE_AN, NODE_WN };
static const char *const node_names[] = {"an", "wn"};

/* Everything one run needs; built afresh per run. */
struct fb_sys {
    struct flash_sys sys; /* its one stream: sys.s[0] */
    char where[96];       /* "AN, blocks 93..671" */
};

/* ------------------------------------------------------------------ options */

/* "[SECTION.]KEY=VALUE": the key (without its section) in key[len] and the section, "" when
 * bare, in section[len]; false when the assignment is not of that form. */
static bool split_assignment(const char *kv, char *section, char *key, size_t len)
{
    const char *eq = strchr(kv, '='), *dot;

    if (!eq)
        return false;
    dot = memchr(kv, '.', (size_t)(eq - kv));
    if (dot && (size_t)(dot - kv) >= len)
        return false;
    snprintf(section, len, "%.*s", dot ? (int)(dot - kv) : 0, kv);
    if (dot)
        kv = dot + 1;
    if (eq == kv || (size_t)(eq - kv) >= len)
        return false;
    snprintf(key, len, "%.*s", (int)(eq - kv), kv);
    return true;
}

/* The SSD's keys of --set are the machine description's (one parser for every key): a bare SSD
 * key becomes ssd.KEY, one in section ssd, an_ssd or wn_ssd stays as it is; both are noted for
 * the check that refuses them on the fms device. 0 or -1 (message printed). */
static int ssd_sets(struct fb_opts *o)
{
    for (int i = 0; i < o->n_sets; i++) {
        const char *kv = o->sets[i];
        char section[64], key[64];

        if (!split_assignment(kv, section, key, sizeof(key)))
            continue;
        bool bare = !section[0] && ssd_cfg_is_ssd_key(key);
        if (!bare && strcmp(section, "ssd") && strcmp(section, "an_ssd") &&
            strcmp(section, "wn_ssd"))
            continue;
        o->ssd_key = kv;
        if (!bare)
            continue;
        if (strlen(kv) + 4 >= sizeof(o->ssd_set[i])) {
            fprintf(stderr,
                    "flashstream flashbench: --set %.40s...: %zu characters; accepted up to %zu\n",
                    kv, strlen(kv), sizeof(o->ssd_set[i]) - 5);
            return -1;
        }
        snprintf(o->ssd_set[i], sizeof(o->ssd_set[i]), "ssd.%s", kv);
        o->sets[i] = o->ssd_set[i];
    }
    return 0;
}

static int set_cache_program(void *opts, const char *val)
{
    struct fb_opts *o = opts;
    struct flash_cfg scratch;
    struct err e;

    flash_cfg_default(&scratch);
    if (flash_cfg_set(&scratch, "cache_program", val, &e)) {
        fprintf(stderr, "flashstream flashbench: --cache-program: %s\n", e.msg);
        return -1;
    }
    if (o->n_sets == FB_MAX_SETS) {
        fprintf(stderr, "flashstream flashbench: give --set and --cache-program at most %d times\n",
                FB_MAX_SETS);
        return -1;
    }
    snprintf(o->set_text[o->n_sets], sizeof(o->set_text[0]), "flash.cache_program=%s", val);
    o->sets[o->n_sets] = o->set_text[o->n_sets];
    o->n_sets++;
    return 0;
}

static int set_range(void *opts, const char *val)
{
    struct fb_opts *o = opts;
    unsigned long long first = 0, count = 0;
    char *colon = NULL, *end = NULL;

    /* Decimal digits only, each part below 2^32: sscanf's %u would wrap "4294967296" to 0. */
    if (isdigit((unsigned char)val[0]))
        first = strtoull(val, &colon, 10);
    if (colon && *colon == ':' && isdigit((unsigned char)colon[1]))
        count = strtoull(colon + 1, &end, 10);
    if (!end || *end || !count || first > UINT32_MAX || count > UINT32_MAX) {
        fprintf(stderr,
                "flashstream flashbench: --range '%s' is not accepted: give FIRST:COUNT, decimal, "
                "FIRST below 2^32 and COUNT from 1 to 2^32 - 1, e.g. 2:12\n",
                val);
        return -1;
    }
    o->range_first = first;
    o->range_count = count;
    return 0;
}

static int add_fault(void *opts, const char *val)
{
    struct fb_opts *o = opts;
    struct err e;

    if (o->n_fault_specs == (int)(sizeof(o->fault_specs) / sizeof(o->fault_specs[0]))) {
        fprintf(stderr, "flashstream flashbench: more than %d --fault options\n", o->n_fault_specs);
        return -1;
    }
    if (flash_fault_parse(&o->fault, val, &e)) {
        fprintf(stderr, "flashstream flashbench: %s\n", e.msg);
        return -1;
    }
    o->fault_specs[o->n_fault_specs++] = val;
    return 0;
}

static void print_layouts(const struct fb_opts *o)
{
    struct ftl_layout l;

    ftl_layout_an(&l);
    ftl_layout_fprint(stdout, &l, &o->cfg.geom);
    ftl_layout_wn(&l);
    ftl_layout_fprint(stdout, &l, &o->cfg.geom);
}

#define FB_FIELD(member) CLI_FIELD(struct fb_opts, member)

static const struct cli_opt fb_options[] = {
    {CLI_OPT("rw", "MODE", NULL, "write | read | randwrite | randread (default write)"),
     CLI_ENUM(FB_FIELD(rw), fb_rw_names)},
    {CLI_OPT("bs", "SIZE", NULL, "request size (default 64k; k/m/g = KiB/MiB/GiB)"),
     CLI_SIZE(FB_FIELD(bs), 1, 1ull << 30)},
    {CLI_OPT("iodepth", "N", NULL, "requests in flight (default 32)"),
     CLI_U64(FB_FIELD(iodepth), 1, 65536)},
    {CLI_OPT("size", "SIZE", NULL, "total bytes (default 4g)"),
     CLI_SIZE(FB_FIELD(size), 1, 1ull << 44)},
    {CLI_OPT("stream", "NAME", NULL,
             "stream of the node's layout (AN: NV V, default V; WN: T W M\n"
             "O, default W)"),
     CLI_STR(FB_FIELD(stream))},
    {CLI_OPT("node", "an|wn", NULL,
             "layout and flash: Activation Node (paper Table 2) or Weight\n"
             "Node (ours)"),
     CLI_ENUM_NOCASE(FB_FIELD(node), node_names)},
    {CLI_OPT("range", "FIRST:N", NULL,
             "instead of a layout stream, blocks FIRST..FIRST+N-1 of every\n"
             "plane (for geometries other than 683 blocks per plane)"),
     CLI_CALL(set_range)},
    CLI_ROW_CONFIG(struct fb_opts, NULL,
                   "; the flash of --node's\nnodes is benchmarked, or with --device ssd|raid0\n"
                   "their SSDs ([ssd], [an_ssd], [wn_ssd])"),
    CLI_ROW_SET(struct fb_opts, NULL, FB_MAX_SETS, "[SECTION.]KEY=VALUE",
                ";\na KEY alone is flash.KEY (--keys lists them), e.g.\n"
                "--set channels=16 --set t_prog_ns=200000; for ssd and raid0\n"
                "also the SSD's keys, bare or ssd.KEY (--device ssd --keys\n"
                "lists them)"),
    {CLI_OPT("cache-program", "on|off", NULL, "shortcut for --set cache_program=..."),
     CLI_CALL(set_cache_program)},
    {CLI_OPT("fault", "SPEC", NULL, CLI_HELP_FAULT "; fms only"), CLI_CALL(add_fault)},
    {CLI_OPT("exact", NULL, NULL,
             "simulate every page: no fast path for long transfers (the\n"
             "results are the same; for comparing wall time)"),
     CLI_FLAG(FB_FIELD(exact))},
    {CLI_OPT("seed", "N", NULL, "random offsets (default 1)"),
     CLI_U64(FB_FIELD(seed), 0, UINT64_MAX)},
    {CLI_OPT("device", "fms|ssd|raid0", NULL,
             "device under test: the node's flash memory system (default),\n"
             "one conventional SSD, or raid_ssds of them in RAID 0 (the\n"
             "paper's baseline, Table 5; models/ssd/README.md)"),
     CLI_ENUM(FB_FIELD(device), fb_device_names)},
    {CLI_OPT("precondition", NULL, NULL,
             "ssd, raid0: fill the device, then random 4 KiB overwrites\n"
             "until GC is steady (write amplification of two windows of a\n"
             "quarter of the device within 1%), before the run"),
     CLI_FLAG(FB_FIELD(precondition))},
    {CLI_OPT("span", "SIZE", NULL,
             "ssd, raid0: bytes the offsets cover (default --size, or the\n"
             "whole device with --precondition)"),
     CLI_SIZE(FB_FIELD(span), 4096, 1ull << 50)},
    {CLI_OPT("keys", NULL, NULL,
             "list the flash parameters with their values and ranges\n"
             "(after --device ssd: the SSD's keys, their defaults and sources)"),
     CLI_FLAG(FB_FIELD(list_keys))},
    {CLI_OPT("layout", NULL, NULL, "print the block layouts of both node types and exit"),
     CLI_FLAG(FB_FIELD(list_layouts))},
    {0},
};

#undef FB_FIELD

static const struct cli_cmd fb_cli = {.name = "flashbench", .opts = fb_options};

/* --device ssd | raid0: the checks across options; 0 or -1 (message printed). */
static int validate_ssd(const struct fb_opts *o)
{
    struct err e;

    if (o->range_count || o->stream) {
        fprintf(stderr,
                "flashstream flashbench: %s applies to --device fms only (an SSD has no streams "
                "or block ranges: --node chooses the Activation Node's or the Weight Node's "
                "SSDs)\n",
                o->range_count ? "--range" : "--stream");
        return -1;
    }

    if (ssd_cfg_validate(&o->ssd, &e)) {
        fprintf(stderr, "flashstream flashbench: %s\n", e.msg);
        return -1;
    }
    if (o->bs % o->ssd.nand.geom.page_bytes) {
        fprintf(stderr,
                "flashstream flashbench: --bs %" PRIu64 " for --device %s: the SSD moves whole "
                "pages; accepted a multiple of the page size %u\n",
                o->bs, fb_device_names[o->device], o->ssd.nand.geom.page_bytes);
        return -1;
    }
    if (o->size < o->bs || (o->span && o->span < o->bs)) {
        fprintf(stderr,
                "flashstream flashbench: --size %" PRIu64 " and --span %" PRIu64
                " must hold one request of --bs %" PRIu64 "\n",
                o->size, o->span, o->bs);
        return -1;
    }
    return 0;
}

/* The checks across options, after each option's own; 0 or -1 (message printed). */
static int validate(const struct fb_opts *o)
{
    struct err e;

    if (o->device != DEV_FMS)
        return validate_ssd(o);
    if (o->ssd_key || o->precondition || o->span) {
        fprintf(stderr,
                "flashstream flashbench: %s%s applies to --device ssd or raid0 only; the "
                "device is fms\n",
                o->ssd_key ? "--set " : (o->precondition ? "--precondition" : "--span"),
                o->ssd_key ? o->ssd_key : "");
        return -1;
    }
    if (flash_cfg_validate(&o->cfg, &e)) {
        fprintf(stderr, "flashstream flashbench: %s\n", e.msg);
        return -1;
    }
    if ((o->rw == RW_WRITE || o->rw == RW_RANDWRITE) && o->bs % o->cfg.geom.page_bytes) {
        fprintf(stderr,
                "flashstream flashbench: --bs %" PRIu64 " for writes: the stream FTL writes "
                "whole pages; accepted a multiple of the page size %u\n",
                o->bs, o->cfg.geom.page_bytes);
        return -1;
    }
    if (o->size < o->bs) {
        fprintf(stderr,
                "flashstream flashbench: --size %" PRIu64 " is below --bs %" PRIu64
                "; accepted a size of at least one request\n",
                o->size, o->bs);
        return -1;
    }
    return 0;
}

/* The flash of --node in the machine of --config and --set; 0 or -1 (message printed). */
static int load_flash(struct fb_opts *o)
{
    struct machine_ini *m;

    if (cli_machine(&fb_cli, o->config, o->sets, o->n_sets, "flash", &m))
        return -1;
    o->cfg = o->node == NODE_WN ? machine_ini_cfg(m)->wn_flash : machine_ini_cfg(m)->an_flash;
    o->ssd = o->node == NODE_WN ? machine_ini_cfg(m)->wn_ssd : machine_ini_cfg(m)->an_ssd;
    machine_ini_destroy(m);
    /* the SSD's NAND: a NAND key of --set (bare or in section flash) too, by the same parser as
     * the machine's flash (the machine has checked it) */
    o->ssd.nand.sw.store_payload = false;
    for (int i = 0; i < o->n_sets; i++) {
        char section[64], key[64];
        struct err e;
        if (split_assignment(o->sets[i], section, key, sizeof(key)) &&
            (!section[0] || !strcmp(section, "flash")))
            flash_cfg_set(&o->ssd.nand, key, strchr(o->sets[i], '=') + 1, &e);
    }
    /* --fault over the description's [faults] (parsed once already: no error here) */
    o->fault = o->cfg.fault;
    for (int i = 0; i < o->n_fault_specs; i++)
        if (cli_faults(&fb_cli, &o->fault, &o->fault_specs[i], 1, &o->fault))
            return -1;
    o->ssd.nand.fault = o->fault; /* an SSD's NAND has the same faults as the FMS's */
    return 0;
}

/* 0 (run), CLI_DONE (help or a list printed: exit 0), -1 (error printed). */
static int parse(int argc, char **argv, struct fb_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->rw = RW_WRITE;
    o->bs = 64 << 10;
    o->iodepth = 32;
    o->size = 4ull << 30;
    o->seed = 1;
    o->node = NODE_AN; /* the stream: the node's default (after the options) */
    o->device = DEV_FMS;
    flash_fault_cfg_default(&o->fault);

    int rc = cli_parse(&fb_cli, argc, argv, o, NULL);
    if (rc)
        return rc;
    if (ssd_sets(o) || load_flash(o))
        return -1;
    if (o->list_keys || o->list_layouts) {
        if (o->list_keys && o->device != DEV_FMS)
            ssd_cfg_fprint_keys(stdout, &o->ssd);
        else if (o->list_keys)
            flash_cfg_fprint_keys(stdout, &o->cfg);
        if (o->list_layouts)
            print_layouts(o);
        return CLI_DONE;
    }
    rc = validate(o);
    if (!o->stream)
        o->stream = o->node == NODE_WN ? "W" : "V";
    return rc;
}

/* ------------------------------------------------------------------ the system under test */

static void sys_destroy(struct fb_sys *y)
{
    flash_sys_fini(&y->sys);
}

static int range_stream(const struct fb_opts *o, struct ftl_stream_cfg *sc, struct fb_sys *y)
{
    const struct flash_geom *g = &o->cfg.geom;

    if ((uint64_t)o->range_first + o->range_count > g->blocks_per_plane) {
        fprintf(stderr,
                "flashstream flashbench: --range %u:%u does not fit in a plane of %u "
                "blocks; accepted FIRST + COUNT <= %u\n",
                o->range_first, o->range_count, g->blocks_per_plane, g->blocks_per_plane);
        return -EINVAL;
    }
    memset(sc, 0, sizeof(*sc));
    snprintf(sc->name, sizeof(sc->name), "%s", o->stream);
    sc->first_block = o->range_first;
    sc->n_blocks = o->range_count;
    sc->pe_budget = 2000000;
    sc->retention_s = FTL_SEC_PER_DAY;
    sc->erase_on_release = true;
    snprintf(y->where, sizeof(y->where), "blocks %u..%u", sc->first_block,
             sc->first_block + sc->n_blocks - 1);
    return 0;
}

/* The stream --stream of the node's layout, and the layout's spare blocks (kept when it has
 * none); 0 or -EINVAL (message printed). */
static int layout_stream(const struct fb_opts *o, struct ftl_stream_cfg *sc, uint32_t *sp_first,
                         uint32_t *sp_count, struct fb_sys *y)
{
    struct ftl_layout lay;
    const struct ftl_region *r, *spare;
    struct err e = {{0}};

    if (o->node == NODE_WN)
        ftl_layout_wn(&lay);
    else
        ftl_layout_an(&lay);
    if (ftl_layout_validate(&lay, &o->cfg.geom, &e)) {
        fprintf(stderr,
                "flashstream flashbench: %s; for this geometry give the stream's blocks "
                "with --range FIRST:COUNT\n",
                e.msg);
        return -EINVAL;
    }
    r = ftl_layout_find(&lay, o->stream);
    if (!r || r->kind != FTL_REGION_STREAM) {
        fprintf(stderr,
                "flashstream flashbench: --stream '%s' is not a stream of the %s "
                "layout; accepted:",
                o->stream, lay.node);
        for (uint32_t i = 0; i < lay.n; i++)
            if (lay.r[i].kind == FTL_REGION_STREAM)
                fprintf(stderr, " %s", lay.r[i].name);
        fprintf(stderr, "\n");
        return -EINVAL;
    }
    ftl_stream_cfg_from_region(sc, r);
    sc->check_retention = false; /* long runs of simulated time are not the point here */
    spare = ftl_layout_spare(&lay);
    if (spare) {
        *sp_first = spare->first;
        *sp_count = spare->count;
    }
    snprintf(y->where, sizeof(y->where), "%s, blocks %u..%u, %s", lay.node, r->first,
             r->first + r->count - 1, r->contents);
    return 0;
}

static int sys_create(const struct fb_opts *o, struct fb_sys *y)
{
    const struct flash_geom *g = &o->cfg.geom;
    struct ftl_stream_cfg sc;
    struct err e = {{0}};
    uint32_t sp_first = g->blocks_per_plane, sp_count = 0;
    int rc;

    memset(y, 0, sizeof(*y));
    rc = o->range_count ? range_stream(o, &sc, y) : layout_stream(o, &sc, &sp_first, &sp_count, y);
    if (rc)
        return rc;
    /* The model keeps a record of every block of every plane (models/flash/flash_die.h): a
     * geometry the host cannot hold is refused with the figure, before minutes of allocating. */
    uint64_t blocks = (uint64_t)flash_geom_dies(g) * g->planes_per_die * g->blocks_per_plane;
    char what[96];

    snprintf(what, sizeof(what), "the flash model's record of its %" PRIu64 " blocks", blocks);
    rc = hostmem_check(blocks * sizeof(struct flash_block), what, &e);
    struct flash_cfg cfg = o->cfg;
    cfg.fault = o->fault;
    if (!rc)
        rc = flash_sys_init(&y->sys, &cfg, sp_first, sp_count, &sc, 1, &e);
    if (!rc)
        flash_fms_set_fast(y->sys.fms, !o->exact);
    if (rc) {
        fprintf(stderr, "flashstream flashbench: %s\n", e.msg);
        sys_destroy(y);
    }
    return rc;
}

/* ------------------------------------------------------------------ one run */

/*
 * Write the range that reads will read, all at time 0, in appends of one controller command's
 * pages. When a command holds whole program units, one append of the whole range takes the same
 * commands, program units and times (each command's appends would begin at a command and a unit
 * boundary, where the long append takes its next command too), and is a long transfer for the
 * FTL's fast path: then it is one append.
 */
static int prefill(const struct fb_opts *o, struct fb_sys *y, uint64_t pages, uint64_t *end)
{
    struct err e;
    uint64_t chunk = o->cfg.tim.ctrl_cmd_bytes / o->cfg.geom.page_bytes, lpn, t;

    if (chunk % o->cfg.geom.planes_per_die == 0)
        chunk = pages;

    *end = 0;
    for (uint64_t p = 0; p < pages; p += chunk) {
        uint64_t n = pages - p < chunk ? pages - p : chunk;

        if (ftl_stream_append(y->sys.s[0], 0, n, NULL, &lpn, &t, &e)) {
            fprintf(stderr, "flashstream flashbench: writing the range to read: %s\n", e.msg);
            return -1;
        }
        *end = t > *end ? t : *end;
    }
    return 0;
}

/* Issue one request at t; *done = its completion. */
static int one_request(const struct fb_opts *o, struct fb_sys *y, uint64_t i, uint64_t t,
                       uint64_t *wp, uint64_t n_lb, uint64_t *rng, uint64_t *done)
{
    struct err e;
    uint64_t pb = o->cfg.geom.page_bytes, pages = o->bs / pb, off, lpn;
    uint64_t slots = o->size / o->bs, sbp = ftl_stream_sb_pages(y->sys.s[0]);
    struct flash_ctrl_req rq;
    int rc = 0;

    switch (o->rw) {
    case RW_WRITE:
        rc = ftl_stream_append(y->sys.s[0], t, pages, NULL, &lpn, done, &e);
        break;
    case RW_RANDWRITE: {
        uint64_t lb = rng_below(rng, n_lb);

        while (wp[lb] + pages > sbp) /* full: the next one with room */
            lb = (lb + 1) % n_lb;
        rc = ftl_stream_write(y->sys.s[0], t, lb * sbp + wp[lb], pages, NULL, done, &e);
        wp[lb] += pages;
        break;
    }
    case RW_READ:
    case RW_RANDREAD:
        off = (o->rw == RW_READ ? i : rng_below(rng, slots)) * o->bs;
        rq.lpn = off / pb;
        rq.offset = (uint32_t)(off % pb);
        rq.bytes = o->bs;
        rq.tb_addr = 0;
        rc = flash_ctrl_read(&y->sys.ctrl, y->sys.s[0], t, &rq, NULL, done, &e);
        if (rc)
            fprintf(stderr, "flashstream flashbench: request %" PRIu64 ": %s\n", i, e.msg);
        return rc;
    }
    if (rc)
        fprintf(stderr, "flashstream flashbench: request %" PRIu64 ": %s\n", i, e.msg);
    return rc;
}

/* randwrite: a write pointer per logical block the range spans (*n_lb of them, from 0); 0 or
 * -1 (message printed). */
static int write_pointers(const struct fb_opts *o, struct fb_sys *y, uint64_t range_pages,
                          uint64_t **wp, uint64_t *n_lb)
{
    uint64_t pb = o->cfg.geom.page_bytes, sbp = ftl_stream_sb_pages(y->sys.s[0]);

    *n_lb = (range_pages + sbp - 1) / sbp;
    *wp = calloc(*n_lb, sizeof(**wp));
    if (!*wp || sbp % (o->bs / pb)) {
        fprintf(stderr,
                "flashstream flashbench: randwrite needs requests that divide a logical "
                "block of %" PRIu64 " pages; --bs %" PRIu64 " is %" PRIu64 " pages\n",
                sbp, o->bs, o->bs / pb);
        return -1;
    }
    return 0;
}

/* Run n_req requests (all of them when n_req is 0); fills r. */
static int run(const struct fb_opts *o, uint64_t iodepth, uint64_t n_req, struct fb_result *r)
{
    struct fb_sys y;
    struct minheap h = {0};
    uint64_t pb = o->cfg.geom.page_bytes, rng = o->seed, *wp = NULL, n_lb = 0;
    uint64_t range_pages = (o->size / o->bs * o->bs + pb - 1) / pb, t = 0;
    bool rd = o->rw == RW_READ || o->rw == RW_RANDREAD;
    int rc;

    memset(r, 0, sizeof(*r));
    if (sys_create(o, &y))
        return -1;
    rc = -1;
    if (range_pages > ftl_stream_lpages(y.sys.s[0])) {
        fprintf(stderr,
                "flashstream flashbench: --size %" PRIu64 " needs %" PRIu64
                " pages; the stream holds %" PRIu64 " (%" PRIu64 " bytes)\n",
                o->size, range_pages, ftl_stream_lpages(y.sys.s[0]),
                ftl_stream_lpages(y.sys.s[0]) * pb);
        goto out_sys;
    }
    r->n_req = n_req ? n_req : o->size / o->bs;
    r->lat = malloc(r->n_req * sizeof(*r->lat));
    h.v = malloc(iodepth * sizeof(*h.v));
    if (!r->lat || !h.v) {
        fprintf(stderr, "flashstream flashbench: out of memory for %" PRIu64 " requests\n",
                r->n_req);
        goto out_mem;
    }
    if (o->rw == RW_RANDWRITE && write_pointers(o, &y, range_pages, &wp, &n_lb))
        goto out_mem;
    if (rd && prefill(o, &y, range_pages, &t))
        goto out_mem;
    /* Reads start when the prefill has drained: every die idle. */
    r->t_start = r->t_end = t;
    for (uint64_t i = 0; i < r->n_req; i++) {
        uint64_t done;

        if (h.n == iodepth)
            t = minheap_pop(&h);
        if (one_request(o, &y, i, t, wp, n_lb, &rng, &done))
            goto out_mem;
        r->lat[i] = done - t;
        r->t_end = done > r->t_end ? done : r->t_end;
        minheap_push(&h, done);
    }
    r->bytes = r->n_req * o->bs;
    r->fast_stripes = flash_fms_fast_stripes(y.sys.fms);
    r->faults = flash_fms_fault_stats(y.sys.fms, &r->fst);
    rc = 0;
out_mem:
    free(wp);
    free(h.v);
    if (rc) { /* the caller frees the latencies of a run that finished */
        free(r->lat);
        r->lat = NULL;
    }
out_sys:
    sys_destroy(&y);
    return rc;
}

/* ------------------------------------------------------------------ report */

static void print_config(const struct fb_opts *o, const char *where)
{
    const struct flash_geom *g = &o->cfg.geom;
    const struct flash_timing *t = &o->cfg.tim;
    char b1[32], b2[32];

    printf("flashbench: rw=%s bs=%s iodepth=%" PRIu64 " size=%s stream=%s (%s) seed=%" PRIu64 "\n",
           fb_rw_names[o->rw], fb_human(o->bs, b1, sizeof(b1)), o->iodepth,
           fb_human(o->size, b2, sizeof(b2)), o->stream, where, o->seed);
    printf("fms: %u ch x %u chips x %u die x %u planes, %u blocks x %u pages of %u B = %.2f "
           "TiB\n",
           g->channels, g->chips_per_chan, g->dies_per_chip, g->planes_per_die, g->blocks_per_plane,
           g->pages_per_block, g->page_bytes, (double)flash_geom_bytes(g) / (double)(1ull << 40));
    printf("     tR %.3f us, tPROG %.3f us, tBERS %.3f ms, bus %u MT/s x %u bit, t_cmd %.3f us\n",
           (double)t->t_r_ps / FLASH_PS_PER_US, (double)t->t_prog_ps / FLASH_PS_PER_US,
           (double)t->t_bers_ps / FLASH_PS_PER_MS, t->bus_mts, t->bus_width_bits,
           (double)t->t_cmd_ps / FLASH_PS_PER_US);
    printf("     controller %.3f us per write, %.3f us per read command of %s; cache program %s, "
           "multi-plane %s\n",
           (double)t->t_ctrl_wr_ps / FLASH_PS_PER_US, (double)t->t_ctrl_rd_ps / FLASH_PS_PER_US,
           fb_human(t->ctrl_cmd_bytes, b1, sizeof(b1)), o->cfg.sw.cache_program ? "on" : "off",
           o->cfg.sw.multi_plane ? "on" : "off");
}

/* The flash bounds of operations of ppo pages per die (bus terms from the same call): b for
 * the configuration, and for writes b_cache and b_nocache with cache program on and off. */
static void die_op_bounds(const struct fb_opts *o, uint32_t ppo, struct flash_bounds *b,
                          struct flash_bounds *b_cache, struct flash_bounds *b_nocache)
{
    struct flash_cfg c = o->cfg;

    c.geom.planes_per_die = ppo;
    c.sw.multi_plane = o->cfg.sw.multi_plane;
    if (o->rw == RW_READ || o->rw == RW_RANDREAD) {
        flash_cfg_read_bounds(&c, b);
        *b_cache = *b_nocache = *b;
    } else {
        c.sw.cache_program = true;
        flash_cfg_write_bounds(&c, b_cache);
        c.sw.cache_program = false;
        flash_cfg_write_bounds(&c, b_nocache);
        *b = o->cfg.sw.cache_program ? *b_cache : *b_nocache;
    }
}

/* The configuration's bound for these requests: each term, then the smallest. */
static void print_bound(const struct fb_opts *o, double unloaded_ps, double achieved)
{
    const struct flash_geom *g = &o->cfg.geom;
    const struct flash_timing *t = &o->cfg.tim;
    bool rd = o->rw == RW_READ || o->rw == RW_RANDREAD;
    uint64_t pb = g->page_bytes;
    /* Pages a request touches, commands it takes, pages per die operation. */
    uint64_t req_pages = (o->bs + pb - 1) / pb;
    uint64_t cmd_pages = t->ctrl_cmd_bytes / pb;
    uint64_t cmds = (req_pages + cmd_pages - 1) / cmd_pages;
    uint32_t ppo = (uint32_t)(req_pages < g->planes_per_die ? req_pages : g->planes_per_die);
    struct flash_bounds b, b_cache, b_nocache;
    struct fb_term tm[4];
    double t_ctrl = (double)(rd ? t->t_ctrl_rd_ps : t->t_ctrl_wr_ps);
    double useful = rd ? (double)o->bs : (double)req_pages * pb;
    char b1[32];

    die_op_bounds(o, ppo, &b, &b_cache, &b_nocache);
    /* Bytes delivered per byte moved: a read of a partial page moves the whole page. */
    double eff = useful / ((double)req_pages * pb);

    tm[0].name = "channel bus";
    tm[0].bps = b.chan_bps * eff;
    /* A read holds its channel from its command cycles to its data-out, tR included (the bus
     * serves calls in order); without command cycles only its data-out is on the bus. */
    snprintf(tm[0].how, sizeof(tm[0].how), "%u x %u MT/s x %u bit = %.2f raw%s", g->channels,
             t->bus_mts, t->bus_width_bits, b.chan_raw_bps / 1e9,
             !rd           ? ", less command cycles per page"
             : t->t_cmd_ps ? "; a read holds it for t_cmd + tR + data-out"
                           : ", data-out only");
    tm[1].name = rd ? "read rate" : "program rate";
    tm[1].bps = b.array_bps * eff;
    if (rd)
        snprintf(tm[1].how, sizeof(tm[1].how),
                 "%u dies x %u-page reads, t_cmd + tR + data-out each (no cache read)",
                 flash_geom_dies(g), ppo);
    else
        snprintf(tm[1].how, sizeof(tm[1].how),
                 "%u dies x %u-page programs: %.2f with cache program, %.2f without",
                 flash_geom_dies(g), ppo, b_cache.array_bps * eff / 1e9,
                 b_nocache.array_bps * eff / 1e9);
    tm[2].name = "controller";
    tm[2].bps = (double)o->bs / ((double)cmds * t_ctrl) * FLASH_PS_PER_S;
    snprintf(tm[2].how, sizeof(tm[2].how),
             "%" PRIu64 " command%s per request (up to %s each), %.3f us each", cmds,
             cmds == 1 ? "" : "s", fb_human(t->ctrl_cmd_bytes, b1, sizeof(b1)),
             t_ctrl / FLASH_PS_PER_US);
    tm[3].name = "queue depth";
    tm[3].bps = (double)o->iodepth * (double)o->bs / unloaded_ps * FLASH_PS_PER_S;
    snprintf(tm[3].how, sizeof(tm[3].how), "%" PRIu64 " x %s / unloaded latency %.2f us",
             o->iodepth, fb_human(o->bs, b1, sizeof(b1)), unloaded_ps / FLASH_PS_PER_US);
    fb_print_terms(tm, 4, achieved);
}

/* The fault counters of the run, and what the faults cost: the same run without them. */
static int print_faults(const struct fb_opts *o, const struct fb_result *r)
{
    const struct flash_fault_stats *s = &r->fst;
    struct fb_opts clean = *o;
    struct fb_result base;
    double with = (double)(r->t_end - r->t_start), without;

    clean.fault.on = false;
    if (run(&clean, o->iodepth, 0, &base))
        return -1;
    without = (double)(base.t_end - base.t_start);
    free(base.lat);
    fb_print_fault_stats(s);
    printf("  fault cost: %.3f ms against %.3f ms without faults (%+.1f%%)\n", with / 1e9,
           without / 1e9, without > 0 ? 100.0 * (with - without) / without : 0.0);
    return 0;
}

int cmd_flashbench(int argc, char **argv)
{
    struct fb_opts o;
    struct fb_result r, one;
    struct fb_sys y;
    double wall, secs, bw;
    char b1[32];

    int rc = parse(argc, argv, &o);
    if (rc)
        return rc > 0 ? 0 : 2;
    if (o.device != DEV_FMS)
        return fb_run_ssd(&o);
    if (sys_create(&o, &y))
        return 2;
    print_config(&o, y.where);
    sys_destroy(&y);

    wall = cli_wall_s();
    /* Unloaded latency: one request alone on an idle system. */
    if (run(&o, 1, 1, &one))
        return 1;
    if (run(&o, o.iodepth, 0, &r)) {
        free(one.lat);
        return 1;
    }
    wall = cli_wall_s() - wall;
    secs = (double)(r.t_end - r.t_start) / FLASH_PS_PER_S;
    bw = (double)r.bytes / secs;
    printf("  %s: IOPS=%.0f, BW=%.2fGB/s (%.2fGiB/s)(%s/%.3fms)\n", fb_rw_names[o.rw],
           (double)r.n_req / secs, bw / 1e9, bw / (double)(1ull << 30),
           fb_human(r.bytes, b1, sizeof(b1)), secs * 1e3);
    fb_print_latency(&r);
    print_bound(&o, (double)one.lat[0], bw);
    printf("  simulated %.3f ms of flash time in %.2f s of wall time%s", secs * 1e3, wall,
           r.fast_stripes ? "" : "\n");
    if (r.fast_stripes)
        printf(" (fast path: %" PRIu64 " stripes not simulated page by page)\n", r.fast_stripes);
    if (r.faults && print_faults(&o, &r))
        rc = 1;
    free(one.lat);
    free(r.lat);
    return rc;
}
