#include "models/nfw/nfw_twin.h"
#include "models/common/cmn_fifo.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS  16
#define MAX_BBT      256
#define PDAT_DEPTH   4
#define DONE_DEPTH   8
#define FLIGHT_DEPTH 4
#define M30          0x3fffffffu

/* ------------------------------------------------------------------ state */

struct cmd_rec {
    uint64_t addr;
    uint32_t len;
    uint8_t stream;
};

struct dsc_rec {
    uint8_t off, stream;
    uint32_t len;
};

struct rsp_rec {
    uint64_t data;
    bool err;
};

struct pdat_rec {
    uint64_t data;
    bool last;
};

/* A page: its descriptor in the page buffer, the program command, the completion. */
struct page_rec {
    uint8_t stream, plane;
    uint32_t lpn;
    uint16_t pbn, die, block, page;
    bool err, first, last;
};

struct bbt_ent {
    bool v;
    uint16_t die; /* 12 bits */
    uint8_t plane;
    uint16_t blk, spare;
};

struct nfw_twin {
    struct nfw_params p;
    unsigned dies, bpp, page_sh, beat_w, stw_mask, pbw_mask;
    uint64_t cycle;
    struct nfw_in in;

    /* nfw_top */
    uint16_t st_first[MAX_STREAMS], st_nlb[MAX_STREAMS];
    bool idle;

    /* nfw_rd */
    struct cmn_fifo cmdq, dscq;
    bool rd_active, req_valid;
    uint64_t rd_beat; /* 37 bits */
    uint32_t rd_left; /* 30 bits */
    unsigned credit;
    uint64_t req_addr;

    /* response FIFO */
    struct cmn_fifo rspq;

    /* nfw_align */
    bool al_act, al_have, al_hold_err;
    uint8_t al_off, al_stream, al_lastn;
    uint32_t al_dleft, al_pleft, al_nin; /* 30 bits */
    unsigned al_bip;
    uint64_t al_hold;

    /* nfw_page_pack */
    uint32_t lpn[MAX_STREAMS];
    uint16_t lb[MAX_STREAMS], page[MAX_STREAMS], die[MAX_STREAMS], pbn[MAX_STREAMS];
    uint8_t plane[MAX_STREAMS];
    bool open[MAX_STREAMS];
    unsigned wslot, wbeat, occ, units;
    bool perr, first;
    struct page_rec *desc; /* [slots] */
    uint64_t *ram;         /* [slots x bpp] */
    uint64_t ram_rdata;

    /* nfw_alloc */
    uint8_t *busy; /* [streams x max_pbs] */
    uint32_t cursor[MAX_STREAMS], nblk[MAX_STREAMS];
    bool scan;
    unsigned sst;
    uint32_t cand;

    /* nfw_bbt */
    struct bbt_ent bbt[MAX_BBT];

    /* nfw_issue */
    bool pv;
    struct page_rec prog;
    unsigned pslot, dslot, rbeat;
    bool inunit, pend, dact, rinfl, rlast;
    struct cmn_fifo pdatq, flightq, doneq;
};

/* Combinational signals of one cycle, computed from the registers and the inputs. */
struct comb {
    /* rd */
    bool q_valid, q_pop, dq_push, issue, dsc_valid, dsc_take;
    struct cmd_rec q;
    /* rsp */
    bool rsp_valid;
    struct rsp_rec rsp;
    /* align */
    struct dsc_rec dsc;
    bool is_data, last_data, need_next, al_valid, al_fire, load_hold, rsp_pop;
    bool al_err, al_last_page, al_last_cmd;
    uint64_t al_data;
    /* pack */
    unsigned s;
    bool page_start, pk_ready, alloc_req, page_end;
    bool plane_wrap, die_wrap, page_wrap, lb_wrap, unit_last;
    /* alloc */
    bool cand_free, gnt;
    uint32_t cand_next;
    /* issue */
    const struct page_rec *d;
    uint16_t bbt_block;
    bool load, unit_take, pfire, rissue, rlast, dstart, pdat_end;
    /* cfg */
    bool cfg_set, cfg_free, cfg_use, cfg_bbt;
};

/* ------------------------------------------------------------------ parameters */

static unsigned clog2(uint64_t v)
{
    unsigned n = 0;

    while ((1ull << n) < v)
        n++;
    return n;
}

static bool pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

void nfw_params_default(struct nfw_params *p)
{
    p->page_bytes = 256;
    p->planes = 2;
    p->channels = 2;
    p->dies_per_chan = 2;
    p->pages_per_block = 4;
    p->streams = 2;
    p->max_pbs = 16;
    p->bbt_entries = 4;
    p->slots = 4;
    p->max_reads = 64;
}

static int check_params(const struct nfw_params *p, struct err *e)
{
    if (!pow2(p->page_bytes) || p->page_bytes < 64 || p->page_bytes > 65536)
        return err_set(e, -EINVAL, "nfw twin: PageBytes = %u; accepted a power of two 64..65536",
                       p->page_bytes);
    if (p->planes < 1 || p->planes > 16)
        return err_set(e, -EINVAL, "nfw twin: Planes = %u; accepted 1..16", p->planes);
    if (!pow2(p->channels) || p->dies_per_chan < 1 ||
        (uint64_t)p->channels * p->dies_per_chan > 4096)
        return err_set(e, -EINVAL,
                       "nfw twin: Channels = %u, DiesPerChan = %u; accepted a power of "
                       "two and at least 1, at most 4096 dies",
                       p->channels, p->dies_per_chan);
    if (p->pages_per_block < 1 || p->pages_per_block > 65536)
        return err_set(e, -EINVAL, "nfw twin: PagesPerBlock = %u; accepted 1..65536",
                       p->pages_per_block);
    if (p->streams < 1 || p->streams > MAX_STREAMS)
        return err_set(e, -EINVAL, "nfw twin: Streams = %u; accepted 1..16", p->streams);
    if (p->max_pbs < 2 || p->max_pbs > 65536)
        return err_set(e, -EINVAL, "nfw twin: MaxPbs = %u; accepted 2..65536", p->max_pbs);
    if (p->bbt_entries < 1 || p->bbt_entries > MAX_BBT)
        return err_set(e, -EINVAL, "nfw twin: BbtEntries = %u; accepted 1..256", p->bbt_entries);
    if (!pow2(p->slots) || p->slots < 2 || p->slots < p->planes)
        return err_set(e, -EINVAL,
                       "nfw twin: Slots = %u; accepted a power of two >= 2 and >= "
                       "Planes (%u)",
                       p->slots, p->planes);
    if (!pow2(p->max_reads) || p->max_reads < 2)
        return err_set(e, -EINVAL, "nfw twin: MaxReads = %u; accepted a power of two >= 2",
                       p->max_reads);
    return 0;
}

int nfw_twin_create(const struct nfw_params *p, struct nfw_twin **out, struct err *e)
{
    struct nfw_twin *t;
    int rc;

    *out = NULL;
    rc = check_params(p, e);
    if (rc)
        return rc;
    t = calloc(1, sizeof(*t));
    if (!t)
        return err_set(e, -ENOMEM, "nfw twin: out of memory");
    t->p = *p;
    t->dies = p->channels * p->dies_per_chan;
    t->bpp = p->page_bytes / 8;
    t->page_sh = clog2(p->page_bytes);
    t->beat_w = clog2(t->bpp);
    t->stw_mask = p->streams > 1 ? (1u << clog2(p->streams)) - 1 : 1;
    t->pbw_mask = (1u << clog2(p->max_pbs)) - 1; /* max_pbs >= 2 */
    t->desc = calloc(p->slots, sizeof(*t->desc));
    t->ram = calloc((size_t)p->slots * t->bpp, sizeof(*t->ram));
    t->busy = calloc((size_t)p->streams * p->max_pbs, 1);
    if (!t->desc || !t->ram || !t->busy || cmn_fifo_init(&t->cmdq, 2, sizeof(struct cmd_rec)) ||
        cmn_fifo_init(&t->dscq, 2, sizeof(struct dsc_rec)) ||
        cmn_fifo_init(&t->rspq, p->max_reads, sizeof(struct rsp_rec)) ||
        cmn_fifo_init(&t->pdatq, PDAT_DEPTH, sizeof(struct pdat_rec)) ||
        cmn_fifo_init(&t->flightq, FLIGHT_DEPTH, sizeof(struct page_rec)) ||
        cmn_fifo_init(&t->doneq, DONE_DEPTH, sizeof(struct page_rec))) {
        nfw_twin_destroy(t);
        return err_set(e, -ENOMEM, "nfw twin: out of memory for %u page buffers", p->slots);
    }
    *out = t;
    return 0;
}

void nfw_twin_destroy(struct nfw_twin *t)
{
    if (!t)
        return;
    cmn_fifo_fini(&t->cmdq);
    cmn_fifo_fini(&t->dscq);
    cmn_fifo_fini(&t->rspq);
    cmn_fifo_fini(&t->pdatq);
    cmn_fifo_fini(&t->flightq);
    cmn_fifo_fini(&t->doneq);
    free(t->desc);
    free(t->ram);
    free(t->busy);
    free(t);
}

void nfw_twin_params(const struct nfw_twin *t, struct nfw_params *out)
{
    *out = t->p;
}

/* The inputs as the ports see them (the shim drops the same bits). */
void nfw_twin_set(struct nfw_twin *t, const struct nfw_in *in)
{
    t->in = *in;
    t->in.cmd_addr &= (1ull << 40) - 1;
    t->in.cmd_stream &= 0xf;
    t->in.cfg_op &= 3;
    t->in.cfg_stream &= 0xf;
}

uint64_t nfw_twin_cycle(const struct nfw_twin *t)
{
    return t->cycle;
}

/* ------------------------------------------------------------------ combinational */

static uint8_t *busy_bit(struct nfw_twin *t, unsigned s, uint32_t pbn)
{
    return &t->busy[(size_t)s * t->p.max_pbs + pbn];
}

static uint16_t bbt_lookup(const struct nfw_twin *t, uint16_t die, uint8_t plane, uint16_t blk)
{
    for (unsigned i = 0; i < t->p.bbt_entries; i++) {
        const struct bbt_ent *b = &t->bbt[i];

        if (b->v && b->die == die && b->plane == plane && b->blk == blk)
            return b->spare; /* the lowest matching entry wins */
    }
    return blk;
}

static void eval(struct nfw_twin *t, struct comb *c)
{
    const struct nfw_in *in = &t->in;
    const struct nfw_params *p = &t->p;
    unsigned s;

    memset(c, 0, sizeof(*c));
    c->cfg_set = in->cfg_valid && in->cfg_op == NFW_CFG_SET_STREAM;
    c->cfg_free = in->cfg_valid && in->cfg_op == NFW_CFG_FREE_PB;
    c->cfg_use = in->cfg_valid && in->cfg_op == NFW_CFG_USE_PB;
    c->cfg_bbt = in->cfg_valid && in->cfg_op == NFW_CFG_BBT;

    /* nfw_rd */
    c->q_valid = !cmn_fifo_empty(&t->cmdq);
    if (c->q_valid)
        c->q = *(const struct cmd_rec *)cmn_fifo_head(&t->cmdq);
    c->q_pop = !t->rd_active && c->q_valid && !cmn_fifo_full(&t->dscq);
    c->dq_push = c->q_pop && c->q.len != 0;
    c->issue = t->rd_active && t->credit != 0 && (!t->req_valid || in->mem_req_ready);

    /* response FIFO */
    c->rsp_valid = !cmn_fifo_empty(&t->rspq);
    if (c->rsp_valid)
        c->rsp = *(const struct rsp_rec *)cmn_fifo_head(&t->rspq);

    /* nfw_align */
    c->dsc_valid = !cmn_fifo_empty(&t->dscq);
    if (c->dsc_valid)
        c->dsc = *(const struct dsc_rec *)cmn_fifo_head(&t->dscq);
    c->dsc_take = !t->al_act && c->dsc_valid;
    c->is_data = t->al_dleft != 0;
    c->last_data = t->al_dleft == 1;
    c->need_next = c->is_data && t->al_off != 0 && t->al_nin != 0;
    c->al_valid = t->al_act && (c->is_data ? t->al_have && (!c->need_next || c->rsp_valid) : true);
    c->al_err = c->is_data && (t->al_hold_err || (c->need_next && c->rsp.err));
    c->al_last_page = t->al_bip == t->bpp - 1;
    c->al_last_cmd = c->is_data ? c->last_data && t->al_pleft == 0 : t->al_pleft == 1;
    if (c->is_data) {
        uint64_t next = c->need_next ? c->rsp.data : 0, v;

        v = t->al_off ? t->al_hold >> (8 * t->al_off) | next << (64 - 8 * t->al_off) : t->al_hold;
        if (c->last_data && t->al_lastn < 8)
            v &= (1ull << (8 * t->al_lastn)) - 1;
        c->al_data = v;
    }

    /* nfw_page_pack (its in_ready decides the aligner's fire) */
    s = c->s = t->al_stream & t->stw_mask;
    c->page_start = t->wbeat == 0;
    c->pk_ready = (!c->page_start || t->occ != p->slots) && (!c->page_start || t->open[s]);
    c->alloc_req = c->al_valid && c->page_start && !t->open[s];
    c->plane_wrap = t->plane[s] == p->planes - 1;
    c->die_wrap = c->plane_wrap && t->die[s] == t->dies - 1;
    c->page_wrap = c->die_wrap && t->page[s] == p->pages_per_block - 1;
    c->lb_wrap = c->page_wrap && t->lb[s] == (uint16_t)(t->st_nlb[s] - 1);

    c->al_fire = c->al_valid && c->pk_ready;
    c->load_hold = t->al_act && c->is_data && c->rsp_valid && t->al_nin != 0 &&
                   (!t->al_have || (c->al_fire && !c->need_next && !c->last_data));
    c->rsp_pop = c->load_hold || (c->al_fire && c->need_next);
    c->page_end = c->al_fire && c->al_last_page;
    c->unit_last = c->al_last_cmd || c->plane_wrap;

    /* nfw_alloc */
    c->cand_free = !*busy_bit(t, t->sst, t->cand);
    c->cand_next = t->cand == t->nblk[t->sst] ? 0 : t->cand + 1;
    c->gnt = t->scan && c->cand_free;

    /* nfw_issue */
    c->d = &t->desc[t->pslot];
    c->bbt_block = bbt_lookup(t, c->d->die, c->d->plane, c->d->block);
    c->pdat_end = !cmn_fifo_empty(&t->pdatq) && in->pdat_ready &&
                  ((const struct pdat_rec *)cmn_fifo_head(&t->pdatq))->last;
    c->load = !t->pv && !t->pend &&
              cmn_fifo_count(&t->doneq) + cmn_fifo_count(&t->flightq) < DONE_DEPTH &&
              cmn_fifo_count(&t->flightq) < FLIGHT_DEPTH && (t->inunit || t->units != 0);
    c->unit_take = c->load && !t->inunit;
    c->pfire = t->pv && in->prog_ready;
    c->rissue = t->dact && cmn_fifo_count(&t->pdatq) + t->rinfl < PDAT_DEPTH;
    c->rlast = c->rissue && t->rbeat == t->bpp - 1;
    c->dstart = t->pend && (!t->dact || c->rlast);
}

void nfw_twin_get(struct nfw_twin *t, struct nfw_out *o)
{
    memset(o, 0, sizeof(*o));
    o->cmd_ready = !cmn_fifo_full(&t->cmdq);
    o->mem_req_valid = t->req_valid;
    o->mem_req_addr = t->req_addr;
    o->mem_rsp_ready = true;
    o->prog_valid = t->pv;
    o->prog_chan = (uint16_t)(t->prog.die & (t->p.channels - 1));
    o->prog_die = t->prog.die;
    o->prog_plane = t->prog.plane;
    o->prog_block = t->prog.block;
    o->prog_page = t->prog.page;
    o->prog_first = t->prog.first;
    o->prog_last = t->prog.last;
    o->pdat_valid = !cmn_fifo_empty(&t->pdatq);
    if (o->pdat_valid) {
        const struct pdat_rec *r = cmn_fifo_head(&t->pdatq);

        o->pdat_data = r->data;
        o->pdat_last = r->last;
    }
    o->done_valid = !cmn_fifo_empty(&t->doneq);
    if (o->done_valid) {
        const struct page_rec *r = cmn_fifo_head(&t->doneq);

        o->done_stream = r->stream;
        o->done_lpn = r->lpn;
        o->done_pbn = r->pbn;
        o->done_die = r->die;
        o->done_plane = r->plane;
        o->done_block = r->block;
        o->done_page = r->page;
        o->done_err = r->err;
    }
    o->cfg_ready = true;
    o->idle = t->idle;
}

/* ------------------------------------------------------------------ the rising edge */

static void reset(struct nfw_twin *t)
{
    cmn_fifo_reset(&t->cmdq);
    cmn_fifo_reset(&t->dscq);
    cmn_fifo_reset(&t->rspq);
    cmn_fifo_reset(&t->pdatq);
    cmn_fifo_reset(&t->flightq);
    cmn_fifo_reset(&t->doneq);
    t->rd_active = t->req_valid = false;
    t->credit = t->p.max_reads;
    t->al_act = t->al_have = false;
    t->wbeat = t->wslot = t->occ = t->units = 0;
    t->first = true;
    for (unsigned i = 0; i < t->p.streams; i++) {
        t->lpn[i] = 0;
        t->lb[i] = t->page[i] = t->die[i] = 0;
        t->plane[i] = 0;
        t->open[i] = false;
        t->cursor[i] = t->nblk[i] = 0;
    }
    memset(t->busy, 0, (size_t)t->p.streams * t->p.max_pbs);
    t->scan = false;
    for (unsigned i = 0; i < t->p.bbt_entries; i++)
        t->bbt[i].v = false;
    t->pv = t->inunit = t->pend = t->dact = t->rinfl = t->rlast = false;
    t->pslot = t->dslot = t->rbeat = 0;
    t->idle = false;
}

static void clock_rd(struct nfw_twin *t, const struct comb *c)
{
    const struct nfw_in *in = &t->in;
    struct cmd_rec cr = {in->cmd_addr & ((1ull << 40) - 1), in->cmd_len, in->cmd_stream & 0xf};
    struct dsc_rec dr = {(uint8_t)(c->q.addr & 7), c->q.stream, c->q.len};

    cmn_fifo_clock(&t->cmdq, in->cmd_valid, &cr, c->q_pop);
    cmn_fifo_clock(&t->dscq, c->dq_push, &dr, c->dsc_take);
    if (c->q_pop) {
        t->rd_active = c->q.len != 0;
        t->rd_beat = c->q.addr >> 3;
        t->rd_left = (uint32_t)(((c->q.addr & 7) + (uint64_t)c->q.len + 7) >> 3) & M30;
    } else if (c->issue) {
        t->rd_active = t->rd_left != 1;
    }
    if (c->issue) {
        t->req_valid = true;
        t->req_addr = t->rd_beat << 3 & ((1ull << 40) - 1);
        if (!c->q_pop) {
            t->rd_beat = (t->rd_beat + 1) & ((1ull << 37) - 1);
            t->rd_left = (t->rd_left - 1) & M30;
        }
    } else if (in->mem_req_ready) {
        t->req_valid = false;
    }
    t->credit = t->credit - c->issue + c->rsp_pop;
}

static void clock_align(struct nfw_twin *t, const struct comb *c)
{
    if (!t->al_act) {
        if (c->dsc_valid) {
            const struct dsc_rec *d = &c->dsc;
            uint32_t nd = (uint32_t)(((uint64_t)d->len + 7) >> 3) & M30;
            uint32_t nin = (uint32_t)(((uint64_t)d->off + d->len + 7) >> 3) & M30;
            uint32_t pages = (uint32_t)(((uint64_t)d->len + t->p.page_bytes - 1) >> t->page_sh);
            uint32_t nout = (pages << t->beat_w) & M30;

            t->al_act = true;
            t->al_have = false;
            t->al_off = d->off;
            t->al_stream = d->stream;
            t->al_dleft = nd;
            t->al_pleft = (nout - nd) & M30;
            t->al_nin = nin;
            t->al_lastn = (uint8_t)(((d->len - 1) & 7) + 1);
            t->al_bip = 0;
        }
        return;
    }
    if (c->al_fire && c->al_last_cmd)
        t->al_act = false;
    if (c->rsp_pop)
        t->al_nin = (t->al_nin - 1) & M30;
    if (c->al_fire) {
        t->al_bip = (t->al_bip + 1) % t->bpp;
        if (c->is_data)
            t->al_dleft--;
        else
            t->al_pleft--;
    }
    if (c->al_fire && c->need_next) {
        t->al_have = !c->last_data;
    } else if (c->load_hold) {
        t->al_have = true;
    } else if (c->al_fire && c->is_data) {
        t->al_have = false;
    }
    if ((c->al_fire && c->need_next) || c->load_hold) {
        t->al_hold = c->rsp.data;
        t->al_hold_err = c->rsp.err;
    }
}

static void clock_pack(struct nfw_twin *t, const struct comb *c)
{
    const struct nfw_in *in = &t->in;
    unsigned s = c->s;

    if (c->page_end) {
        struct page_rec *d = &t->desc[t->wslot];

        d->stream = t->al_stream;
        d->lpn = t->lpn[s];
        d->pbn = t->pbn[s];
        d->die = t->die[s];
        d->plane = t->plane[s];
        d->block = (uint16_t)(t->st_first[s] + t->pbn[s]);
        d->page = t->page[s];
        d->err = (t->perr && !c->page_start) || c->al_err;
        d->first = t->first || t->plane[s] == 0;
        d->last = c->unit_last;
    }
    if (c->al_fire) {
        t->ram[t->wslot * t->bpp + t->wbeat] = c->al_data;
        t->perr = (t->perr && !c->page_start) || c->al_err;
        t->wbeat = (t->wbeat + 1) % t->bpp;
    }
    if (c->page_end) {
        t->wslot = (t->wslot + 1) % t->p.slots;
        t->first = c->al_last_cmd;
    }
    t->occ = t->occ + (c->al_fire && c->page_start) - c->rlast;
    t->units = t->units + (c->page_end && c->unit_last) - c->unit_take;

    for (unsigned i = 0; i < t->p.streams; i++) {
        if (c->cfg_set && in->cfg_stream == i) {
            t->lpn[i] = 0;
            t->lb[i] = t->page[i] = t->die[i] = 0;
            t->plane[i] = 0;
            t->open[i] = false;
            continue;
        }
        if (i != s)
            continue;
        if (c->gnt) {
            t->open[i] = true;
            t->pbn[i] = (uint16_t)t->cand;
        }
        if (c->page_end) {
            t->lpn[i] = c->lb_wrap ? 0 : t->lpn[i] + 1;
            t->plane[i] = c->plane_wrap ? 0 : (uint8_t)((t->plane[i] + 1) & 15);
            if (c->plane_wrap)
                t->die[i] = c->die_wrap ? 0 : (uint16_t)(t->die[i] + 1);
            if (c->die_wrap)
                t->page[i] = c->page_wrap ? 0 : (uint16_t)(t->page[i] + 1);
            if (c->page_wrap) {
                t->lb[i] = c->lb_wrap ? 0 : (uint16_t)(t->lb[i] + 1);
                t->open[i] = false;
            }
        }
    }
}

static void clock_alloc(struct nfw_twin *t, const struct comb *c)
{
    const struct nfw_in *in = &t->in;
    unsigned pbw_mask = t->pbw_mask;
    unsigned sst_old = t->sst;
    uint32_t cand_old = t->cand;

    if (!t->scan) {
        t->scan = c->alloc_req;
        t->sst = c->s;
        t->cand = t->cursor[c->s];
    } else if (c->cand_free) {
        t->scan = false;
    } else {
        t->cand = c->cand_next;
    }
    for (unsigned i = 0; i < t->p.streams; i++) {
        if (c->gnt && sst_old == i) {
            *busy_bit(t, i, cand_old) = 1;
            t->cursor[i] = c->cand_next;
        }
        if (in->cfg_stream != i)
            continue;
        if (c->cfg_set) {
            memset(busy_bit(t, i, 0), 0, t->p.max_pbs);
            t->cursor[i] = 0;
            t->nblk[i] = ((in->cfg_a >> 16) - 1) & 0xffff & pbw_mask;
        }
        if ((c->cfg_free || c->cfg_use) && ((in->cfg_a & 0xffff) & pbw_mask) < t->p.max_pbs)
            *busy_bit(t, i, (in->cfg_a & 0xffff) & pbw_mask) = c->cfg_use;
    }
}

static void clock_issue(struct nfw_twin *t, const struct comb *c)
{
    struct pdat_rec pr = {t->ram_rdata, t->rlast};

    struct page_rec fl;

    /* Completions and page data FIFOs first: they use this cycle's registers. A completion
     * moves from the in-flight FIFO to the done FIFO with the last beat of its page. */
    if (!cmn_fifo_empty(&t->flightq))
        fl = *(const struct page_rec *)cmn_fifo_head(&t->flightq);
    else
        memset(&fl, 0, sizeof(fl));
    cmn_fifo_clock(&t->doneq, c->pdat_end, &fl, t->in.done_ready);
    cmn_fifo_clock(&t->flightq, c->pfire, &t->prog, c->pdat_end);
    cmn_fifo_clock(&t->pdatq, t->rinfl, &pr, t->in.pdat_ready);
    if (c->rissue)
        t->ram_rdata = t->ram[t->dslot * t->bpp + t->rbeat];
    if (c->load) {
        t->pv = true;
        t->prog = *c->d;
        t->prog.block = c->bbt_block;
        t->pslot = (t->pslot + 1) % t->p.slots;
        t->inunit = !c->d->last;
    } else if (c->pfire) {
        t->pv = false;
    }
    if (c->pfire)
        t->pend = true;
    else if (c->dstart)
        t->pend = false;
    if (c->rissue)
        t->rbeat = (t->rbeat + 1) % t->bpp;
    if (c->rlast)
        t->dslot = (t->dslot + 1) % t->p.slots;
    if (c->dstart)
        t->dact = true;
    else if (c->rlast)
        t->dact = false;
    t->rinfl = c->rissue;
    t->rlast = c->rlast;
}

static void clock_cfg(struct nfw_twin *t, const struct comb *c)
{
    const struct nfw_in *in = &t->in;

    if (c->cfg_set && in->cfg_stream < t->p.streams) {
        t->st_first[in->cfg_stream] = (uint16_t)in->cfg_a;
        t->st_nlb[in->cfg_stream] = (uint16_t)in->cfg_b;
    }
    if (c->cfg_bbt && in->cfg_idx < t->p.bbt_entries) {
        struct bbt_ent *b = &t->bbt[in->cfg_idx];

        b->v = in->cfg_b >> 31;
        b->die = (uint16_t)(in->cfg_a >> 20);
        b->plane = (uint8_t)((in->cfg_a >> 16) & 15);
        b->blk = (uint16_t)in->cfg_a;
        b->spare = (uint16_t)in->cfg_b;
    }
}

static void clock_one(struct nfw_twin *t)
{
    struct comb c;
    bool rd_idle, is_idle;

    t->cycle++;
    if (t->in.rst) {
        reset(t);
        return;
    }
    eval(t, &c);
    rd_idle =
        !c.q_valid && !t->rd_active && !t->req_valid && t->credit == t->p.max_reads && !c.dsc_valid;
    is_idle = !t->pv && !t->pend && !t->dact && !t->rinfl && !t->inunit &&
              cmn_fifo_empty(&t->pdatq) && cmn_fifo_empty(&t->flightq) && cmn_fifo_empty(&t->doneq);
    t->idle = rd_idle && !c.rsp_valid && !t->al_act && t->occ == 0 && is_idle && !c.alloc_req;

    /* Registers of the issue stage before those of the pack (the issue reads the descriptors
     * and the RAM as they were before this edge). */
    clock_issue(t, &c);
    clock_rd(t, &c);
    {
        struct rsp_rec r = {t->in.mem_rsp_rdata, t->in.mem_rsp_err};

        cmn_fifo_clock(&t->rspq, t->in.mem_rsp_valid, &r, c.rsp_pop);
    }
    clock_pack(t, &c);
    clock_align(t, &c);
    clock_alloc(t, &c);
    clock_cfg(t, &c);
}

void nfw_twin_step(struct nfw_twin *t, uint64_t cycles)
{
    while (cycles--)
        clock_one(t);
}

/* ------------------------------------------------------------------ comparison */

int nfw_out_diff(const struct nfw_out *a, const struct nfw_out *b, char *buf, size_t len)
{
#define CHK(cond, f)                                                                               \
    do {                                                                                           \
        if ((cond) && a->f != b->f) {                                                              \
            snprintf(buf, len, #f ": %#llx vs %#llx", (unsigned long long)a->f,                    \
                     (unsigned long long)b->f);                                                    \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
    CHK(1, cmd_ready);
    CHK(1, mem_req_valid);
    CHK(a->mem_req_valid, mem_req_addr);
    CHK(a->mem_req_valid, mem_req_write);
    CHK(a->mem_req_valid, mem_req_wdata);
    CHK(a->mem_req_valid, mem_req_wstrb);
    CHK(1, mem_rsp_ready);
    CHK(1, prog_valid);
    CHK(a->prog_valid, prog_chan);
    CHK(a->prog_valid, prog_die);
    CHK(a->prog_valid, prog_plane);
    CHK(a->prog_valid, prog_block);
    CHK(a->prog_valid, prog_page);
    CHK(a->prog_valid, prog_first);
    CHK(a->prog_valid, prog_last);
    CHK(1, pdat_valid);
    CHK(a->pdat_valid, pdat_data);
    CHK(a->pdat_valid, pdat_last);
    CHK(1, done_valid);
    CHK(a->done_valid, done_stream);
    CHK(a->done_valid, done_lpn);
    CHK(a->done_valid, done_pbn);
    CHK(a->done_valid, done_die);
    CHK(a->done_valid, done_plane);
    CHK(a->done_valid, done_block);
    CHK(a->done_valid, done_page);
    CHK(a->done_valid, done_err);
    CHK(1, cfg_ready);
    CHK(1, idle);
#undef CHK
    buf[0] = '\0';
    return 0;
}
