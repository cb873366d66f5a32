/*
 * Block test of the NAND write pipelines (rtl/nfw/nfw_top.v), driven from C through the nfw
 * shim, in lockstep with the C twin (models/nfw/nfw_twin.h): every output of every cycle is
 * compared, so the twin gives the same memory requests, program addresses, page bytes,
 * completions and cycle counts.
 *
 * Around the pipeline: the tensor buffer (models/dram, served through its memory-port BFM
 * dram_port with random stalls), the flash channels and firmware (testbench/nfw/nfw_bfm: flash
 * model programs, FTL completions, configuration; random stalls on every valid/ready), and the
 * controller's read path (models/flash/flash_ctrl) to read the data back.
 *
 *   test_<model> [--seed N] [--waves FILE.fst [--window FIRST:LAST] [--scopes A,B]]
 *
 * The waves are those of the random test (its first 2000 cycles unless --window says
 * otherwise; gtkwave waves/nfw.gtkw).
 *
 * A failure prints the seed, the cycle or command index, and both values.
 *
 * Built twice: for nfw_top, and with NFW_LANES defined (testbench/nfw/test_nfw_lanes_rtl.c) for
 * the write lanes (rtl/nfw/nfw_lanes.v) and their twin: then every lane has its own memory
 * port (dram_port, one dram) and its own channel BFM (nfw_bfm; lane 0's also serves the
 * completions and the configuration), and the tests are the same.
 */
#include "csim/rng.h"
#include "csim/shim/nfw.h"
#include "csim/shim/nfw_lanes.h"
#include "models/dram/dram.h"
#include "models/dram/dram_port.h"
#include "models/flash/flash_ctrl.h"
#include "models/flash/flash_fms.h"
#include "models/flash/ftl_bbm.h"
#include "models/flash/ftl_stream.h"
#include "testbench/nfw/nfw_bfm.h"
#include "models/nfw/nfw_lanes_twin.h"
#include "models/nfw/nfw_twin.h"
#include "testbench/tb_util.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static struct tb_args args;

/* The device: nfw_top (one lane) or nfw_lanes, behind the lanes' port structs. */
#ifdef NFW_LANES
#define DUT_NAME "nfw_lanes"
typedef struct nfw_lanes_rtl dut_rtl;
typedef struct nfw_lanes_twin dut_twin;
#else
#define DUT_NAME "nfw_top"
typedef struct nfw_rtl dut_rtl;
typedef struct nfw_twin dut_twin;
#endif

#define TB_BYTES  (4u << 20) /* tensor buffer */
#define BLOCKS    16         /* per plane: 0-1 meta, 2-5 stream 0, 6-9 stream 1, 12-15 spare */
#define SPARE0    12
#define N_SPARES  4
#define MAX_CMDS  4096
#define PERIOD_PS 1250

struct wcmd {
    uint64_t addr;
    uint32_t len;
    uint8_t stream;
    uint64_t lpn; /* where the test expects it: the stream's append point */
};

struct done_rec {
    uint8_t stream, plane;
    uint32_t lpn;
    uint16_t pbn, die, block, page;
    bool err;
};

/* Stall probabilities (%) of one run. */
struct stalls {
    unsigned cmd, mem_req, mem_rsp, prog, pdat, done, cfg;
};

struct tb {
    dut_rtl *rtl;
    dut_twin *twin;
    struct nfw_params prm; /* the flash memory system's geometry (all lanes) */
    unsigned lanes;
    struct flash_cfg fc;
    struct flash_fms *fms;
    struct ftl_bbm bbm;
    struct ftl_stream *st[2];
    unsigned n_streams;
    struct flash_ctrl ctrl;
    struct dram *dram;
    struct dram_port *port[NFW_MAX_LANES]; /* one per lane */
    struct nfw_bfm *bfm;                   /* lane 0's: channels, completions, firmware */
    struct nfw_bfm *lbfm[NFW_MAX_LANES];   /* lbfm[0] = bfm; the others: their channels */
    unsigned char *tb; /* the tensor buffer's contents, as written at the start */
    struct stalls sp;
    uint64_t rng, cycle;
    /* commands */
    struct wcmd cmd[MAX_CMDS];
    unsigned n_cmd, sent;
    bool offered;
    /* the test's mirror of the append points, and the expected page contents */
    uint64_t append[2], lpages[2], sbp;
    unsigned char *expect[2]; /* lpages x page_bytes */
    uint32_t lb_wp[2][64];    /* pages written per LB, released at a full LB */
    /* observations */
    struct done_rec *done;
    size_t n_done, cap_done;
    uint64_t pdat_beats, busy_cycles;
    struct nfw_lanes_out prev;
    struct nfw_lanes_in prev_in;
};

#ifdef NFW_LANES
static dut_rtl *rtl_open(uint64_t seed, struct nfw_params *p, unsigned *lanes)
{
    struct nfw_lanes_rtl *r = nfw_lanes_rtl_create(seed);
    struct nfw_lanes_params lp;

    assert_non_null(r);
    nfw_lanes_rtl_params(r, &lp);
    *p = lp.p;
    *lanes = lp.lanes;
    return r;
}

static int twin_open(const struct tb *t, dut_twin **out, struct err *e)
{
    struct nfw_lanes_params lp = {t->prm, t->lanes};

    return nfw_lanes_twin_create(&lp, out, e);
}

#define rtl_close  nfw_lanes_rtl_destroy
#define rtl_get    nfw_lanes_rtl_get
#define rtl_set    nfw_lanes_rtl_set
#define rtl_step   nfw_lanes_rtl_step
#define rtl_trace  nfw_lanes_rtl_trace
#define twin_close nfw_lanes_twin_destroy
#define twin_get   nfw_lanes_twin_get
#define twin_set   nfw_lanes_twin_set
#define twin_step  nfw_lanes_twin_step
#else
static dut_rtl *rtl_open(uint64_t seed, struct nfw_params *p, unsigned *lanes)
{
    struct nfw_rtl *r = nfw_rtl_create(seed);

    assert_non_null(r);
    nfw_rtl_params(r, p);
    *lanes = 1;
    return r;
}

static int twin_open(const struct tb *t, dut_twin **out, struct err *e)
{
    return nfw_twin_create(&t->prm, out, e);
}

static void rtl_get(dut_rtl *r, struct nfw_lanes_out *o)
{
    memset(o, 0, sizeof(*o));
    nfw_rtl_get(r, &o->l[0]);
}

static void rtl_set(dut_rtl *r, const struct nfw_lanes_in *in)
{
    nfw_rtl_set(r, &in->l[0]);
}

static void twin_get(dut_twin *w, struct nfw_lanes_out *o)
{
    memset(o, 0, sizeof(*o));
    nfw_twin_get(w, &o->l[0]);
}

static void twin_set(dut_twin *w, const struct nfw_lanes_in *in)
{
    nfw_twin_set(w, &in->l[0]);
}

#define rtl_close  nfw_rtl_destroy
#define rtl_step   nfw_rtl_step
#define rtl_trace  nfw_rtl_trace
#define twin_close nfw_twin_destroy
#define twin_step  nfw_twin_step
#endif

static uint64_t rnd(struct tb *t)
{
    return rng_next(&t->rng);
}

static bool stall(struct tb *t, unsigned pct)
{
    return pct && rnd(t) % 100 < pct;
}

/* ------------------------------------------------------------------ build */

struct opts {
    struct stalls sp;
    uint64_t t_prog_ns, t_r_ns, t_bers_ns, t_cmd_ns;
    uint32_t bus_mts, bus_width;
    bool bad_at_start; /* a block of stream 1 bad before the FTL starts */
    bool fail_erase;   /* a block of stream 0 fails its first erase */
    uint32_t s0_blocks, s0_lblocks;
};

static void opts_default(struct opts *o)
{
    memset(o, 0, sizeof(*o));
    o->sp = (struct stalls){20, 20, 20, 20, 20, 20, 30};
    /* NAND times scaled down from the paper's (100 us, 3 us, 5 ms) so that a test takes
     * ~100k cycles; the channel keeps its 1.2 GB/s. */
    o->t_prog_ns = 2000;
    o->t_r_ns = 100;
    o->t_bers_ns = 2000;
    o->t_cmd_ns = 100;
    o->bus_mts = 1200;
    o->bus_width = 8;
    o->s0_blocks = 4;
    o->s0_lblocks = 3;
}

static void ok(int rc, const char *what, const char *msg)
{
    if (rc)
        fail_msg("seed %llu: %s: rc %d: %s", (unsigned long long)args.seed, what, rc, msg);
}

static void tb_reset(struct tb *t)
{
    struct nfw_lanes_in in;

    memset(&in, 0, sizeof(in));
    in.l[0].rst = true;
    rtl_set(t->rtl, &in);
    twin_set(t->twin, &in);
    rtl_step(t->rtl, 3);
    twin_step(t->twin, 3);
}

static bool env_idle(const struct tb *t);
static void tb_cycle(struct tb *t);

static struct tb *tb_open(const struct opts *o, uint64_t seed)
{
    struct tb *t = calloc(1, sizeof(*t));
    struct err e = {{0}};
    struct ftl_stream_cfg sc;
    struct dram_cfg dc;
    struct dram_port_cfg pc;
    struct nfw_bfm_cfg bc;

    assert_non_null(t);
    t->rng = seed;
    t->sp = o->sp;
    t->rtl = rtl_open(seed, &t->prm, &t->lanes);
    ok(twin_open(t, &t->twin, &e), "twin", e.msg);
    t->n_streams = t->prm.streams < 2 ? t->prm.streams : 2;

    /* The flash model has the pipeline's geometry (one place: the verilated parameters). */
    flash_cfg_default(&t->fc);
    t->fc.geom.channels = t->prm.channels;
    t->fc.geom.chips_per_chan = t->prm.dies_per_chan;
    t->fc.geom.dies_per_chip = 1;
    t->fc.geom.planes_per_die = t->prm.planes;
    t->fc.geom.blocks_per_plane = BLOCKS;
    t->fc.geom.pages_per_block = t->prm.pages_per_block;
    t->fc.geom.page_bytes = t->prm.page_bytes;
    t->fc.tim.t_prog_ps = o->t_prog_ns * FLASH_PS_PER_NS;
    t->fc.tim.t_r_ps = o->t_r_ns * FLASH_PS_PER_NS;
    t->fc.tim.t_bers_ps = o->t_bers_ns * FLASH_PS_PER_NS;
    t->fc.tim.t_cmd_ps = o->t_cmd_ns * FLASH_PS_PER_NS;
    t->fc.tim.bus_mts = o->bus_mts;
    t->fc.tim.bus_width_bits = o->bus_width;
    t->fc.tim.ctrl_cmd_bytes = 16 * t->prm.page_bytes;
    /* The test reads every page back through the controller between batches; at 1.93 us per
     * read command (test_flash_ctrl checks that cost) the read-back would hold the dies for
     * milliseconds of model time, and the pipeline would wait for it. */
    t->fc.tim.t_ctrl_rd_ps = 0;
    ok(flash_fms_create(&t->fc, &t->fms, &e), "flash model", e.msg);
    ok(ftl_bbm_init(&t->bbm, &t->fc.geom, SPARE0, N_SPARES, &e), "bad-block manager", e.msg);
    if (o->bad_at_start && t->n_streams > 1) {
        /* Last die, last plane, block 7 (stream 1's PB 1): bad from the factory. */
        struct flash_addr a;

        flash_addr_from_die_index(&t->fc.geom, flash_geom_dies(&t->fc.geom) - 1, &a);
        a.plane = t->prm.planes - 1;
        a.block = 7;
        ok(flash_fms_mark_bad(t->fms, &a, &e), "mark bad", "");
    }
    for (unsigned s = 0; s < t->n_streams; s++) {
        memset(&sc, 0, sizeof(sc));
        snprintf(sc.name, sizeof(sc.name), "%s", s ? "NV" : "V");
        sc.first_block = s ? 6 : 2;
        sc.n_blocks = s ? 4 : o->s0_blocks;
        sc.n_lblocks = s ? 2 : o->s0_lblocks;
        sc.pe_budget = 1000;
        sc.retention_s = FTL_SEC_PER_DAY;
        sc.erase_on_release = true;
        ok(ftl_stream_create(&sc, t->fms, &t->bbm, &t->st[s], &e), "stream", e.msg);
        t->lpages[s] = ftl_stream_lpages(t->st[s]);
        t->expect[s] = calloc(t->lpages[s], t->prm.page_bytes);
        assert_non_null(t->expect[s]);
    }
    t->sbp = ftl_stream_sb_pages(t->st[0]);
    assert_true(t->sbp * (o->s0_lblocks > 2 ? o->s0_lblocks : 2) <= 64 * t->sbp);
    if (o->fail_erase) {
        /* Stream 0's PB 1 (block 3) on die 2 % dies, plane 0: fails its first erase. */
        struct flash_addr a;

        flash_addr_from_die_index(&t->fc.geom, 2 % flash_geom_dies(&t->fc.geom), &a);
        a.block = 3;
        ok(flash_fms_inject_erase_fail(t->fms, &a, &e), "inject", "");
    }
    ok(flash_ctrl_init(&t->ctrl, t->fms, &e), "controller", e.msg);

    /* Tensor buffer: random contents. */
    dram_cfg_default(&dc);
    dc.size_bytes = TB_BYTES;
    ok(dram_create(&dc, &t->dram, &e), "dram", e.msg);
    t->tb = malloc(TB_BYTES);
    assert_non_null(t->tb);
    for (size_t i = 0; i < TB_BYTES; i += 8) {
        uint64_t v = rnd(t);

        memcpy(t->tb + i, &v, 8);
    }
    ok(dram_write(t->dram, 0, t->tb, TB_BYTES), "dram write", "");
    dram_port_cfg_default(&pc);
    pc.period_ps = PERIOD_PS;
    pc.req_stall_pct = o->sp.mem_req;
    pc.rsp_stall_pct = o->sp.mem_rsp;
    pc.seed = seed * 3 + 1;
    pc.name = "nfw";
    for (unsigned l = 0; l < t->lanes; l++) {
        pc.seed = seed * 3 + 1 + 7 * l;
        ok(dram_port_create(&pc, t->dram, &t->port[l], &e), "dram port", e.msg);
    }

    nfw_bfm_cfg_default(&bc);
    bc.period_ps = PERIOD_PS;
    bc.prog_stall_pct = o->sp.prog;
    bc.pdat_stall_pct = o->sp.pdat;
    bc.done_stall_pct = o->sp.done;
    bc.cfg_stall_pct = o->sp.cfg;
    for (unsigned l = 0; l < t->lanes; l++) {
        bc.seed = seed * 5 + 2 + 11 * l;
        ok(nfw_bfm_create(&bc, &t->prm, t->fms, &t->bbm, &t->lbfm[l], &e), "bfm", e.msg);
    }
    t->bfm = t->lbfm[0];
    tb_reset(t);
    for (unsigned s = 0; s < t->n_streams; s++)
        ok(nfw_bfm_attach(t->bfm, s, t->st[s], &e), "attach", e.msg);
    /* Streams are configured while the pipeline is idle (nfw_top.v): the splitter of the
     * lanes moves its cursors as soon as it takes a command, before its pages are packed. */
    while (!env_idle(t))
        tb_cycle(t);
    return t;
}

static void tb_close(struct tb *t)
{
    for (unsigned l = 0; l < t->lanes; l++) {
        nfw_bfm_destroy(t->lbfm[l]);
        dram_port_destroy(t->port[l]);
    }
    dram_destroy(t->dram);
    flash_ctrl_fini(&t->ctrl);
    for (unsigned s = 0; s < t->n_streams; s++) {
        ftl_stream_destroy(t->st[s]);
        free(t->expect[s]);
    }
    ftl_bbm_fini(&t->bbm);
    flash_fms_destroy(t->fms);
    twin_close(t->twin);
    rtl_close(t->rtl);
    free(t->tb);
    free(t->done);
    free(t);
}

/* ------------------------------------------------------------------ one cycle */

static void check_out_hold(struct tb *t, const struct nfw_lanes_out *o)
{
    for (unsigned l = 0; l < t->lanes; l++) {
        const struct nfw_out *p = &t->prev.l[l], *c = &o->l[l];

        if (t->cycle && p->mem_req_valid && !t->prev_in.l[l].mem_req_ready &&
            (!c->mem_req_valid || c->mem_req_addr != p->mem_req_addr))
            fail_msg("seed %llu cycle %llu lane %u: stalled memory request changed (valid %d "
                     "addr %#llx, was %#llx)",
                     (unsigned long long)args.seed, (unsigned long long)t->cycle, l,
                     c->mem_req_valid, (unsigned long long)c->mem_req_addr,
                     (unsigned long long)p->mem_req_addr);
    }
}

static void tb_cycle(struct tb *t)
{
    struct err e;
    struct nfw_lanes_out o, o2, ot;
    struct nfw_lanes_in in;
    const struct nfw_out *s = &o.l[0];
    char diff[192];
    int rc;

    memset(&in, 0, sizeof(in));
    rtl_get(t->rtl, &o);
    check_out_hold(t, &o);
    for (unsigned l = 0; l < t->lanes; l++) {
        struct mem_port_rsp mr;

        dram_port_drive(t->port[l], &mr);
        nfw_in_mem(&in.l[l], &mr);
        nfw_bfm_drive(t->lbfm[l], &o.l[l], &in.l[l]);
    }
    if (!t->offered && t->sent < t->n_cmd && !stall(t, t->sp.cmd))
        t->offered = true;
    if (t->offered) {
        in.l[0].cmd_valid = true;
        in.l[0].cmd_addr = t->cmd[t->sent].addr;
        in.l[0].cmd_len = t->cmd[t->sent].len;
        in.l[0].cmd_stream = t->cmd[t->sent].stream;
    }
    rtl_set(t->rtl, &in);
    /* Every output is a register: the inputs of this cycle do not change them. */
    rtl_get(t->rtl, &o2);
    if (nfw_lanes_out_diff(&o, &o2, t->lanes, diff, sizeof(diff)))
        fail_msg("seed %llu cycle %llu: output depends on an input of the same cycle: %s",
                 (unsigned long long)args.seed, (unsigned long long)t->cycle, diff);
    twin_set(t->twin, &in);
    twin_get(t->twin, &ot);
    if (nfw_lanes_out_diff(&o, &ot, t->lanes, diff, sizeof(diff)))
        fail_msg("seed %llu cycle %llu: RTL and twin differ: %s (RTL vs twin)",
                 (unsigned long long)args.seed, (unsigned long long)t->cycle, diff);

    for (unsigned l = 0; l < t->lanes; l++) {
        struct mem_port_req rq;

        nfw_out_mem(&o.l[l], &rq);
        dram_port_clock(t->port[l], &rq);
        rc = nfw_bfm_clock(t->lbfm[l], &o.l[l], &in.l[l], &e);
        if (rc)
            fail_msg("seed %llu lane %u: %s", (unsigned long long)args.seed, l, e.msg);
        t->pdat_beats += o.l[l].pdat_valid && in.l[l].pdat_ready;
    }
    if (in.l[0].cmd_valid && s->cmd_ready) {
        t->sent++;
        t->offered = false;
    }
    if (s->done_valid && in.l[0].done_ready) {
        if (t->n_done == t->cap_done) {
            t->cap_done = t->cap_done ? 2 * t->cap_done : 1024;
            t->done = realloc(t->done, t->cap_done * sizeof(*t->done));
            assert_non_null(t->done);
        }
        t->done[t->n_done++] =
            (struct done_rec){s->done_stream, s->done_plane, s->done_lpn,  s->done_pbn,
                              s->done_die,    s->done_block, s->done_page, s->done_err};
    }
    t->prev = o;
    t->prev_in = in;
    rtl_step(t->rtl, 1);
    twin_step(t->twin, 1);
    t->cycle++;
}

/* Every lane's BFM and memory port idle. */
static bool env_idle(const struct tb *t)
{
    for (unsigned l = 0; l < t->lanes; l++)
        if (!nfw_bfm_idle(t->lbfm[l]) || dram_port_pending(t->port[l]))
            return false;
    return true;
}

static uint64_t env_units(const struct tb *t)
{
    uint64_t n = 0;

    for (unsigned l = 0; l < t->lanes; l++)
        n += nfw_bfm_stats(t->lbfm[l])->units;
    return n;
}

static uint64_t env_chan_wait(const struct tb *t)
{
    uint64_t n = 0;

    for (unsigned l = 0; l < t->lanes; l++)
        n += nfw_bfm_stats(t->lbfm[l])->chan_wait;
    return n;
}

/* Run until every command is in flash and reported, the firmware's queue is empty. */
static void tb_drain(struct tb *t)
{
    uint64_t limit = t->cycle + 4000000;
    unsigned quiet = 0;

    while (quiet < 4) {
        struct nfw_lanes_out lo;
        const struct nfw_out *o = &lo.l[0];

        tb_cycle(t);
        rtl_get(t->rtl, &lo);
        quiet = t->sent == t->n_cmd && o->idle && env_idle(t) ? quiet + 1 : 0;
        if (t->cycle > limit)
            fail_msg("seed %llu: no progress by cycle %llu: %u of %u commands sent, %zu "
                     "completions, idle %d, bfm idle %d",
                     (unsigned long long)args.seed, (unsigned long long)t->cycle, t->sent, t->n_cmd,
                     t->n_done, o->idle, env_idle(t));
    }
}

/* ------------------------------------------------------------------ commands and checks */

static uint64_t cmd_pages(const struct tb *t, uint32_t len)
{
    return (len + t->prm.page_bytes - 1) / t->prm.page_bytes;
}

/* Queue a write command; the test's mirror of the append point says where its pages go. */
static void add_cmd(struct tb *t, uint64_t addr, uint32_t len, unsigned s)
{
    uint64_t pb = t->prm.page_bytes, n = cmd_pages(t, len);
    struct wcmd *c;

    assert_true(t->n_cmd < MAX_CMDS);
    c = &t->cmd[t->n_cmd++];
    c->addr = addr;
    c->len = len;
    c->stream = (uint8_t)s;
    c->lpn = t->append[s];
    for (uint64_t i = 0; i < n; i++) {
        uint64_t lpn = (c->lpn + i) % t->lpages[s];
        unsigned char *dst = t->expect[s] + lpn * pb;
        uint64_t lo = i * pb, hi = lo + pb < len ? lo + pb : len;

        memset(dst, 0, pb);
        if (addr + len <= TB_BYTES) /* else: error responses, zeros */
            memcpy(dst, t->tb + addr + lo, hi - lo);
        t->lb_wp[s][lpn / t->sbp]++;
    }
    t->append[s] = (t->append[s] + n) % t->lpages[s];
}

/* Read every page of every command back through the controller's read path (whole pages,
 * so the zero padding is checked too) and compare with the bytes of the tensor buffer. */
static void verify_cmds(struct tb *t, unsigned from)
{
    struct err e;
    uint64_t pb = t->prm.page_bytes;
    unsigned char *buf = malloc(pb + 16);
    struct nfw_bfm_rb k = {buf, pb + 16};
    struct flash_ctrl_sink sink = {nfw_bfm_readback, &k};

    assert_non_null(buf);
    for (unsigned i = from; i < t->n_cmd; i++) {
        const struct wcmd *c = &t->cmd[i];

        for (uint64_t p = 0; p < cmd_pages(t, c->len); p++) {
            uint64_t lpn = (c->lpn + p) % t->lpages[c->stream], done;
            struct flash_ctrl_req rq = {.lpn = lpn, .offset = 0, .bytes = pb, .tb_addr = 8};
            const unsigned char *want = t->expect[c->stream] + lpn * pb;
            int rc;

            memset(buf, 0xA5, pb + 16);
            rc = flash_ctrl_read(&t->ctrl, t->st[c->stream], nfw_bfm_now(t->bfm), &rq, &sink, &done,
                                 &e);
            if (rc)
                fail_msg("seed %llu command %u (stream %u LPN %llu): read back: %s",
                         (unsigned long long)args.seed, i, c->stream, (unsigned long long)lpn,
                         e.msg);
            for (uint64_t j = 0; j < pb + 16; j++) {
                unsigned char w = j < 8 || j >= pb + 8 ? 0xA5 : want[j - 8];

                if (buf[j] != w)
                    fail_msg("seed %llu command %u (addr %#llx len %u stream %u) page %llu "
                             "(LPN %llu) byte %lld: read %#x, expected %#x",
                             (unsigned long long)args.seed, i, (unsigned long long)c->addr, c->len,
                             c->stream, (unsigned long long)p, (unsigned long long)lpn,
                             (long long)j - 8, buf[j], w);
            }
        }
    }
    free(buf);
}

/* Release the LBs that are full: the firmware consumed them. */
static void release_full(struct tb *t)
{
    struct err e;
    for (unsigned s = 0; s < t->n_streams; s++) {
        uint64_t nlb = t->lpages[s] / t->sbp;

        for (uint32_t l = 0; l < nlb; l++) {
            if (t->lb_wp[s][l] < t->sbp)
                continue;
            ok(nfw_bfm_release(t->bfm, s, l, 1, &e), "release", e.msg);
            t->lb_wp[s][l] = 0;
        }
    }
}

/* A batch: send, drain, read back, release (at most batch_limit() pages per stream). */
static void batch(struct tb *t, unsigned from)
{
    tb_drain(t);
    verify_cmds(t, from);
    release_full(t);
}

/* Pages a batch may write to stream s: all but one LB of its logical space (the LB open at
 * the batch's start stays live while the batch writes). */
static uint64_t batch_limit(const struct tb *t, unsigned s)
{
    return t->lpages[s] - t->sbp;
}

static unsigned pages_of(const struct tb *t, unsigned from, unsigned s)
{
    unsigned n = 0;

    for (unsigned i = from; i < t->n_cmd; i++)
        if (t->cmd[i].stream == s)
            n += (unsigned)cmd_pages(t, t->cmd[i].len);
    return n;
}

/* ------------------------------------------------------------------ tests */

static void reset_leaves_it_idle(void **state)
{
    struct opts o;
    struct tb *t;
    struct nfw_lanes_out out;

    (void)state;
    opts_default(&o);
    t = tb_open(&o, args.seed);
    for (int i = 0; i < 40; i++)
        tb_cycle(t); /* the configuration goes in */
    rtl_get(t->rtl, &out);
    assert_true(out.l[0].idle);
    assert_true(out.l[0].cmd_ready);
    assert_false(out.l[0].done_valid);
    for (unsigned l = 0; l < t->lanes; l++) {
        assert_false(out.l[l].mem_req_valid);
        assert_false(out.l[l].prog_valid);
        assert_false(out.l[l].pdat_valid);
        assert_true(out.l[l].mem_rsp_ready);
    }
    tb_close(t);
}

/*
 * The paper's round-robin example in hardware: stream 0 has 4 physical blocks and 3 logical
 * blocks; each iteration writes all 3 LBs and then releases them. Iteration 1 maps LB 0-2 to
 * PB 0, 1, 2; iteration 2 to PB 3, 0, 1; iteration 3 to PB 2, 3, 0. Data read back exact.
 */
static void paper_round_robin(void **state)
{
    static const uint16_t expect[3][3] = {{0, 1, 2}, {3, 0, 1}, {2, 3, 0}};
    struct opts o;
    struct tb *t;
    uint64_t pb;

    (void)state;
    opts_default(&o);
    t = tb_open(&o, args.seed);
    pb = t->prm.page_bytes;
    for (int it = 0; it < 3; it++) {
        unsigned from = t->n_cmd;
        size_t d0 = t->n_done;

        /* One command per LB, from a different place of the tensor buffer each time. */
        for (uint64_t lb = 0; lb < 3; lb++)
            add_cmd(t, (uint64_t)(it * 3 + lb) * t->sbp * pb + 8 * it, (uint32_t)(t->sbp * pb), 0);
        batch(t, from);
        for (size_t i = d0; i < t->n_done; i++) {
            const struct done_rec *d = &t->done[i];
            uint32_t lb = (uint32_t)(d->lpn / t->sbp);

            if (d->pbn != expect[it][lb])
                fail_msg("seed %llu iteration %d: LB %u in PB %u, expected PB %u",
                         (unsigned long long)args.seed, it + 1, lb, d->pbn, expect[it][lb]);
        }
        assert_int_equal(t->n_done - d0, 3 * t->sbp);
    }
    tb_close(t);
}

/* Lengths and offsets across the bus width (8 B), the page and 4 KiB boundaries; every byte
 * read back exact, the padding of each last page zero, neighbours untouched. */
static void sweep_lengths_and_offsets(void **state)
{
    struct opts o;
    struct tb *t;
    uint32_t pb;

    (void)state;
    opts_default(&o);
    t = tb_open(&o, args.seed);
    pb = t->prm.page_bytes;
    {
        const uint32_t lens[] = {1,          2,    7,      8,    9,         15,
                                 16,         17,   pb - 1, pb,   pb + 1,    2 * pb - 8,
                                 2 * pb + 7, 4095, 4096,   4097, 3 * pb + 5};
        const uint64_t offs[] = {0, 1, 3, 7, 8, 9, 4096 - 5, 4096 - 8, 4096 + 1, 2 * 4096 - 1};
        unsigned from = t->n_cmd, s = 0;

        for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
            for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
                uint64_t base = 65536 * (1 + (i * 17 + j) % 40);

                if (pages_of(t, from, s) + cmd_pages(t, lens[j]) > batch_limit(t, s)) {
                    batch(t, from);
                    from = t->n_cmd;
                    s = (s + 1) % t->n_streams;
                }
                add_cmd(t, base + offs[i], lens[j], s);
            }
        }
        batch(t, from);
    }
    tb_close(t);
}

/*
 * Random commands on both streams with random stalls everywhere, over many block rotations,
 * with a bad block replaced at start (stream 1) and a block whose erase fails on the way
 * (stream 0): every byte read back through the C read path, the spare blocks really used.
 */
static void random_data_across_rotations_and_replacement(void **state)
{
    struct opts o;
    struct tb *t;
    unsigned spare_pages = 0;
    uint64_t pb;

    (void)state;
    opts_default(&o);
    o.bad_at_start = true;
    o.fail_erase = true;
    t = tb_open(&o, args.seed);
    pb = t->prm.page_bytes;
    if (args.waves) {
        struct vtrace_opts w = {.path = args.waves,
                                .first_cycle = args.first_cycle,
                                .last_cycle = args.last_cycle,
                                .scopes = args.scopes};

        assert_int_equal(rtl_trace(t->rtl, &w), 0);
    }
    for (int b = 0; b < 12; b++) {
        unsigned from = t->n_cmd;

        /* Stall probabilities change per batch: full and empty regimes both. */
        t->sp.cmd = (unsigned)(rnd(t) % 60);
        for (int i = 0; i < 24; i++) {
            unsigned s = (unsigned)(rnd(t) % t->n_streams);
            uint32_t len = (uint32_t)(1 + rnd(t) % (3 * pb + 64));
            uint64_t addr = rnd(t) % (TB_BYTES - len);

            if (rnd(t) % 4 == 0)
                addr = (addr & ~4095ull) + 4096 - 1 - rnd(t) % 16; /* across 4 KiB */
            if (addr + len > TB_BYTES)
                addr = TB_BYTES - len;
            if (pages_of(t, from, s) + cmd_pages(t, len) > batch_limit(t, s))
                continue;
            add_cmd(t, addr, len, s);
        }
        batch(t, from);
    }
    for (size_t i = 0; i < t->n_done; i++)
        spare_pages += t->done[i].block >= SPARE0;
    if (t->n_streams > 1 && spare_pages == 0)
        fail_msg("seed %llu: no page went to a spare block", (unsigned long long)args.seed);
    if (ftl_bbm_resolve(&t->bbm, (2 % flash_geom_dies(&t->fc.geom)) * t->prm.planes, 3) == 3)
        fail_msg("seed %llu: the failed erase did not replace block 3",
                 (unsigned long long)args.seed);
    print_message("# %u commands, %zu pages, %u on spare blocks, %llu cycles, %llu units, "
                  "%llu cycles waiting for a channel\n",
                  t->n_cmd, t->n_done, spare_pages, (unsigned long long)t->cycle,
                  (unsigned long long)env_units(t), (unsigned long long)env_chan_wait(t));
    tb_close(t);
}

/* A command outside the tensor buffer: error responses, every page of it flagged. */
static void memory_errors_flag_pages(void **state)
{
    struct opts o;
    struct tb *t;
    unsigned errs = 0;
    uint64_t pb;

    (void)state;
    opts_default(&o);
    t = tb_open(&o, args.seed);
    pb = t->prm.page_bytes;
    add_cmd(t, 4096, (uint32_t)pb, 0);
    add_cmd(t, TB_BYTES - 8, (uint32_t)(2 * pb), 0); /* the first beat in, the rest out */
    add_cmd(t, 8192 + 3, (uint32_t)pb, 0);
    tb_drain(t);
    /* LPN 0 and 3 read inside the buffer, 1 and 2 outside (lanes report in any order). */
    assert_int_equal(t->n_done, 4);
    for (size_t i = 0; i < t->n_done; i++) {
        errs += t->done[i].err;
        assert_int_equal(t->done[i].err, t->done[i].lpn == 1 || t->done[i].lpn == 2);
    }
    assert_int_equal(errs, 2);
    tb_close(t);
}

/* No stalls and a fast flash: the pipeline moves a beat per cycle (data beats out over busy
 * cycles), and the twin still agrees. */
static void full_throughput(void **state)
{
    struct opts o;
    struct tb *t;
    uint64_t c0, beats, pages;
    double rate, want;

    (void)state;
    opts_default(&o);
    o.sp = (struct stalls){0};
    o.t_prog_ns = 1;
    o.t_cmd_ns = 0;
    o.bus_mts = 100000;
    o.bus_width = 64;
    t = tb_open(&o, args.seed);
    for (int i = 0; i < 40; i++)
        tb_cycle(t);
    c0 = t->cycle;
    pages = 2 * t->sbp;
    add_cmd(t, 0, (uint32_t)(pages * t->prm.page_bytes), 0);
    tb_drain(t);
    beats = pages * t->prm.page_bytes / 8;
    assert_int_equal(t->pdat_beats, beats);
    rate = (double)beats / (double)(t->cycle - c0);
    print_message("# %llu beats in %llu cycles: %.3f beats per cycle\n", (unsigned long long)beats,
                  (unsigned long long)(t->cycle - c0), rate);
    /* Reads in flight cover the tensor buffer's ~41-cycle latency at MaxReads >= 48. */
    want = 0.85 * (t->prm.max_reads >= 48 ? 1.0 : t->prm.max_reads / 48.0);
    /* Lanes side by side: each moves its beat per cycle, less the splitter's start (a piece
     * per cycle) and the last lane's tail. */
    want *= t->lanes > 1 ? 0.9 * t->lanes : 1.0;
    if (rate < want)
        fail_msg("seed %llu: %.3f beats per cycle, expected at least %.3f with %u reads in "
                 "flight",
                 (unsigned long long)args.seed, rate, want, t->prm.max_reads);
    verify_cmds(t, 0);
    tb_close(t);
}

int main(int argc, char **argv)
{
    dut_rtl *n;
    struct nfw_params p;
    unsigned lanes;

    if (tb_parse_args(argc, argv, &args) != 0)
        return 2;
    n = rtl_open(0, &p, &lanes);
    rtl_close(n);
    printf("# " DUT_NAME " page %u B, %u planes, %u channels x %u dies, %u pages/block, %u "
           "streams, %u slots, %u reads, %u lanes; seed %llu\n",
           p.page_bytes, p.planes, p.channels, p.dies_per_chan, p.pages_per_block, p.streams,
           p.slots, p.max_reads, lanes, (unsigned long long)args.seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reset_leaves_it_idle),
        cmocka_unit_test(paper_round_robin),
        cmocka_unit_test(sweep_lengths_and_offsets),
        cmocka_unit_test(random_data_across_rotations_and_replacement),
        cmocka_unit_test(memory_errors_flag_pages),
        cmocka_unit_test(full_throughput),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
