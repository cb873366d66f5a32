#include "models/nfw/nfw_twin.h"
#include "models/common/cmn_fifo.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS  16
#define MAX_BBT      256
#define CMD_DEPTH    2
#define DESC_DEPTH   2
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

struct desc_rec {
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
    bool valid;
    uint16_t die; /* 12 bits */
    uint8_t plane;
    uint16_t block, spare;
};

struct nfw_twin {
    struct nfw_params p;
    unsigned dies, beats_per_page, page_bytes_log2, page_beat_w, stream_mask, pbn_mask;
    uint64_t cycle;
    struct nfw_in in;

    /* nfw_top */
    uint16_t stream_first[MAX_STREAMS], stream_lblocks[MAX_STREAMS];
    bool idle;

    /* nfw_rd */
    struct cmn_fifo cmd_q, desc_q;
    bool rd_active, req_valid;
    uint64_t next_beat;  /* 37 bits */
    uint32_t beats_left; /* 30 bits */
    unsigned credit;
    uint64_t req_addr;

    /* response FIFO */
    struct cmn_fifo rsp_q;

    /* nfw_align */
    bool align_active, align_hold_valid, align_hold_err;
    uint8_t align_byte_off, align_stream, align_last_bytes;
    uint32_t align_data_left, align_pad_left, align_in_left; /* 30 bits */
    unsigned align_page_beat;
    uint64_t align_hold;

    /* nfw_page_pack */
    uint32_t lpn[MAX_STREAMS];
    uint16_t lblock[MAX_STREAMS], page[MAX_STREAMS], die[MAX_STREAMS], pbn[MAX_STREAMS];
    uint8_t plane[MAX_STREAMS];
    bool open[MAX_STREAMS];
    unsigned write_slot, write_beat, slots_used, units;
    bool page_err, cmd_first;
    struct page_rec *slot; /* [slots] */
    uint64_t *ram;         /* [slots x beats_per_page] */
    /* Simulation only: some beat other than zero was ever written. Until then every word of
     * ram is zero (calloc), so a zero write changes nothing and a read gives zero: the loop's
     * timing-only writes move zeros, and their half-megabyte of page buffers per node stays
     * out of the caches. */
    bool ram_nonzero;
    uint64_t ram_rdata;

    /* nfw_alloc */
    uint8_t *busy; /* [streams x max_pbs] */
    uint32_t cursor[MAX_STREAMS], last_pbn[MAX_STREAMS];
    bool scan;
    unsigned scan_stream;
    uint32_t candidate;

    /* nfw_bbt */
    struct bbt_ent bbt[MAX_BBT];

    /* nfw_issue */
    bool prog_valid;
    struct page_rec prog;
    unsigned load_slot, data_slot, read_beat;
    bool in_unit, data_pending, data_active, rdata_valid, rdata_last;
    struct cmn_fifo pdat_q, flight_q, done_q;
};

/* Combinational signals of one cycle, computed from the registers and the inputs. */
struct comb {
    /* nfw_rd */
    bool cmd_q_valid, cmd_q_pop, desc_q_push, issue, desc_valid, desc_take;
    struct cmd_rec cmd_q_data;
    /* response FIFO */
    bool rsp_valid;
    struct rsp_rec rsp_data;
    /* nfw_align */
    struct desc_rec desc;
    bool is_data, last_data, need_next, align_valid, align_fire, load_hold, rsp_pop;
    bool align_err, align_last_page, align_last_cmd;
    uint64_t align_data;
    /* nfw_page_pack */
    unsigned stream;
    bool page_start, align_ready, alloc_req, page_end;
    bool plane_wrap, die_wrap, page_wrap, lblock_wrap, unit_last;
    /* nfw_alloc */
    bool candidate_free, alloc_gnt;
    uint32_t candidate_next;
    /* nfw_issue */
    bool load_cmd, unit_take, prog_fire, read_issue, read_last, data_start, page_data_end;
    /* nfw_top: configuration */
    bool cfg_set_stream, cfg_free_pb, cfg_use_pb, cfg_bbt;
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
    t->beats_per_page = p->page_bytes / 8;
    t->page_bytes_log2 = clog2(p->page_bytes);
    t->page_beat_w = clog2(t->beats_per_page);
    t->stream_mask = p->streams > 1 ? (1u << clog2(p->streams)) - 1 : 1;
    t->pbn_mask = (1u << clog2(p->max_pbs)) - 1; /* max_pbs >= 2 */
    t->slot = calloc(p->slots, sizeof(*t->slot));
    t->ram = calloc((size_t)p->slots * t->beats_per_page, sizeof(*t->ram));
    t->busy = calloc((size_t)p->streams * p->max_pbs, 1);
    if (!t->slot || !t->ram || !t->busy ||
        cmn_fifo_init(&t->cmd_q, CMD_DEPTH, sizeof(struct cmd_rec)) ||
        cmn_fifo_init(&t->desc_q, DESC_DEPTH, sizeof(struct desc_rec)) ||
        cmn_fifo_init(&t->rsp_q, p->max_reads, sizeof(struct rsp_rec)) ||
        cmn_fifo_init(&t->pdat_q, PDAT_DEPTH, sizeof(struct pdat_rec)) ||
        cmn_fifo_init(&t->flight_q, FLIGHT_DEPTH, sizeof(struct page_rec)) ||
        cmn_fifo_init(&t->done_q, DONE_DEPTH, sizeof(struct page_rec))) {
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
    cmn_fifo_fini(&t->cmd_q);
    cmn_fifo_fini(&t->desc_q);
    cmn_fifo_fini(&t->rsp_q);
    cmn_fifo_fini(&t->pdat_q);
    cmn_fifo_fini(&t->flight_q);
    cmn_fifo_fini(&t->done_q);
    free(t->slot);
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

struct nfw_in *nfw_twin_in(struct nfw_twin *t)
{
    return &t->in;
}

uint64_t nfw_twin_cycle(const struct nfw_twin *t)
{
    return t->cycle;
}

/* (x + 1) % m for x < m, without a division: the pointers below run through a page's beats
 * and the page buffers once per beat of every lane, and a division each showed in profiles. */
static inline unsigned next_mod(unsigned x, unsigned m)
{
    return x + 1 == m ? 0 : x + 1;
}

/* cmn_fifo_clock with the entry's type known: a copy of a fixed size the compiler inlines,
 * where cmn_fifo_push calls memcpy for f->size bytes (the response, page-data and completion
 * FIFOs move an entry in most cycles of a write; the calls showed in profiles). Same
 * semantics: push if it was not full, pop if it was not empty. */
#define FIFO_CLOCK(name, type)                                                                     \
    static inline void name(struct cmn_fifo *f, bool push, const type *in, bool pop)               \
    {                                                                                              \
        bool out_fire = pop && f->count; /* as the FIFO was before the push */                     \
        if (push && f->count != f->depth) {                                                        \
            unsigned slot = f->head + f->count;                                                    \
            if (slot >= f->depth)                                                                  \
                slot -= f->depth;                                                                  \
            ((type *)(void *)f->mem)[slot] = *in;                                                  \
            f->count++;                                                                            \
        }                                                                                          \
        if (out_fire)                                                                              \
            cmn_fifo_pop(f);                                                                       \
    }
FIFO_CLOCK(clock_cmd_q, struct cmd_rec)
FIFO_CLOCK(clock_desc_q, struct desc_rec)
FIFO_CLOCK(clock_rsp_q, struct rsp_rec)
FIFO_CLOCK(clock_pdat_q, struct pdat_rec)
FIFO_CLOCK(clock_page_q, struct page_rec)

/* ------------------------------------------------------------------ combinational */

static uint8_t *busy_bit(struct nfw_twin *t, unsigned stream, uint32_t pbn)
{
    return &t->busy[(size_t)stream * t->p.max_pbs + pbn];
}

static uint16_t bbt_lookup(const struct nfw_twin *t, uint16_t die, uint8_t plane, uint16_t block)
{
    for (unsigned i = 0; i < t->p.bbt_entries; i++) {
        const struct bbt_ent *b = &t->bbt[i];

        if (b->valid && b->die == die && b->plane == plane && b->block == block)
            return b->spare; /* the lowest matching entry wins */
    }
    return block;
}

static void eval(struct nfw_twin *t, struct comb *c)
{
    const struct nfw_in *in = &t->in;
    const struct nfw_params *p = &t->p;
    unsigned stream;

    /* Every field below is assigned, but for the payloads of an empty FIFO and the aligner's
     * data outside a data beat, which read as zero (no memset of the whole: it showed in
     * profiles of the training loop). */
    memset(&c->cmd_q_data, 0, sizeof(c->cmd_q_data));
    memset(&c->rsp_data, 0, sizeof(c->rsp_data));
    memset(&c->desc, 0, sizeof(c->desc));
    c->align_data = 0;
    c->cfg_set_stream = in->cfg_valid && in->cfg_op == NFW_CFG_SET_STREAM;
    c->cfg_free_pb = in->cfg_valid && in->cfg_op == NFW_CFG_FREE_PB;
    c->cfg_use_pb = in->cfg_valid && in->cfg_op == NFW_CFG_USE_PB;
    c->cfg_bbt = in->cfg_valid && in->cfg_op == NFW_CFG_BBT;

    /* nfw_rd */
    c->cmd_q_valid = !cmn_fifo_empty(&t->cmd_q);
    if (c->cmd_q_valid)
        c->cmd_q_data = *(const struct cmd_rec *)cmn_fifo_head(&t->cmd_q);
    c->cmd_q_pop = !t->rd_active && c->cmd_q_valid && !cmn_fifo_full(&t->desc_q);
    c->desc_q_push = c->cmd_q_pop && c->cmd_q_data.len != 0;
    c->issue = t->rd_active && t->credit != 0 && (!t->req_valid || in->mem_req_ready);

    /* response FIFO */
    c->rsp_valid = !cmn_fifo_empty(&t->rsp_q);
    if (c->rsp_valid)
        c->rsp_data = *(const struct rsp_rec *)cmn_fifo_head(&t->rsp_q);

    /* nfw_align */
    c->desc_valid = !cmn_fifo_empty(&t->desc_q);
    if (c->desc_valid)
        c->desc = *(const struct desc_rec *)cmn_fifo_head(&t->desc_q);
    c->desc_take = !t->align_active && c->desc_valid;
    c->is_data = t->align_data_left != 0;
    c->last_data = t->align_data_left == 1;
    c->need_next = c->is_data && t->align_byte_off != 0 && t->align_in_left != 0;
    c->align_valid = t->align_active &&
                     (c->is_data ? t->align_hold_valid && (!c->need_next || c->rsp_valid) : true);
    c->align_err = c->is_data && (t->align_hold_err || (c->need_next && c->rsp_data.err));
    c->align_last_page = t->align_page_beat == t->beats_per_page - 1;
    c->align_last_cmd =
        c->is_data ? c->last_data && t->align_pad_left == 0 : t->align_pad_left == 1;
    if (c->is_data) {
        uint64_t next = c->need_next ? c->rsp_data.data : 0, v;

        v = t->align_byte_off
                ? t->align_hold >> (8 * t->align_byte_off) | next << (64 - 8 * t->align_byte_off)
                : t->align_hold;
        if (c->last_data && t->align_last_bytes < 8)
            v &= (1ull << (8 * t->align_last_bytes)) - 1;
        c->align_data = v;
    }

    /* nfw_page_pack (its in_ready decides the aligner's fire) */
    stream = c->stream = t->align_stream & t->stream_mask;
    c->page_start = t->write_beat == 0;
    c->align_ready =
        (!c->page_start || t->slots_used != p->slots) && (!c->page_start || t->open[stream]);
    c->alloc_req = c->align_valid && c->page_start && !t->open[stream];
    c->plane_wrap = t->plane[stream] == p->planes - 1;
    c->die_wrap = c->plane_wrap && t->die[stream] == t->dies - 1;
    c->page_wrap = c->die_wrap && t->page[stream] == p->pages_per_block - 1;
    c->lblock_wrap = c->page_wrap && t->lblock[stream] == (uint16_t)(t->stream_lblocks[stream] - 1);

    c->align_fire = c->align_valid && c->align_ready;
    c->load_hold = t->align_active && c->is_data && c->rsp_valid && t->align_in_left != 0 &&
                   (!t->align_hold_valid || (c->align_fire && !c->need_next && !c->last_data));
    c->rsp_pop = c->load_hold || (c->align_fire && c->need_next);
    c->page_end = c->align_fire && c->align_last_page;
    c->unit_last = c->align_last_cmd || c->plane_wrap;

    /* nfw_alloc */
    /* Read only while scanning (clock_alloc uses them only then: a grant needs the scan). */
    c->candidate_free = t->scan && !*busy_bit(t, t->scan_stream, t->candidate);
    c->candidate_next =
        t->scan && t->candidate != t->last_pbn[t->scan_stream] ? t->candidate + 1 : 0;
    c->alloc_gnt = c->candidate_free;

    /* nfw_issue */
    c->page_data_end = !cmn_fifo_empty(&t->pdat_q) && in->pdat_ready &&
                       ((const struct pdat_rec *)cmn_fifo_head(&t->pdat_q))->last;
    c->load_cmd = !t->prog_valid && !t->data_pending &&
                  cmn_fifo_count(&t->done_q) + cmn_fifo_count(&t->flight_q) < DONE_DEPTH &&
                  cmn_fifo_count(&t->flight_q) < FLIGHT_DEPTH && (t->in_unit || t->units != 0);
    c->unit_take = c->load_cmd && !t->in_unit;
    c->prog_fire = t->prog_valid && in->prog_ready;
    c->read_issue = t->data_active && cmn_fifo_count(&t->pdat_q) + t->rdata_valid < PDAT_DEPTH;
    c->read_last = c->read_issue && t->read_beat == t->beats_per_page - 1;
    c->data_start = t->data_pending && (!t->data_active || c->read_last);
}

void nfw_twin_get(struct nfw_twin *t, struct nfw_out *o)
{
    /* Field by field, the ones this pipeline never drives (writes) and payloads while their
     * valid is low as zeros: the same as zeroing the whole first, without the padding. */
    o->mem_req_write = false;
    o->mem_req_wdata = 0;
    o->mem_req_wstrb = 0;
    o->pdat_data = 0;
    o->pdat_last = false;
    o->done_stream = 0;
    o->done_lpn = 0;
    o->done_pbn = o->done_die = 0;
    o->done_plane = 0;
    o->done_block = o->done_page = 0;
    o->done_err = false;
    o->cmd_ready = !cmn_fifo_full(&t->cmd_q);
    o->mem_req_valid = t->req_valid;
    o->mem_req_addr = t->req_addr;
    o->mem_rsp_ready = true;
    o->prog_valid = t->prog_valid;
    o->prog_chan = (uint16_t)(t->prog.die & (t->p.channels - 1));
    o->prog_die = t->prog.die;
    o->prog_plane = t->prog.plane;
    o->prog_block = t->prog.block;
    o->prog_page = t->prog.page;
    o->prog_first = t->prog.first;
    o->prog_last = t->prog.last;
    o->pdat_valid = !cmn_fifo_empty(&t->pdat_q);
    if (o->pdat_valid) {
        const struct pdat_rec *r = cmn_fifo_head(&t->pdat_q);

        o->pdat_data = r->data;
        o->pdat_last = r->last;
    }
    o->done_valid = !cmn_fifo_empty(&t->done_q);
    if (o->done_valid) {
        const struct page_rec *r = cmn_fifo_head(&t->done_q);

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
    cmn_fifo_reset(&t->cmd_q);
    cmn_fifo_reset(&t->desc_q);
    cmn_fifo_reset(&t->rsp_q);
    cmn_fifo_reset(&t->pdat_q);
    cmn_fifo_reset(&t->flight_q);
    cmn_fifo_reset(&t->done_q);
    t->rd_active = t->req_valid = false;
    t->credit = t->p.max_reads;
    t->align_active = t->align_hold_valid = false;
    t->write_beat = t->write_slot = t->slots_used = t->units = 0;
    t->cmd_first = true;
    for (unsigned i = 0; i < t->p.streams; i++) {
        t->lpn[i] = 0;
        t->lblock[i] = t->page[i] = t->die[i] = 0;
        t->plane[i] = 0;
        t->open[i] = false;
        t->cursor[i] = t->last_pbn[i] = 0;
    }
    memset(t->busy, 0, (size_t)t->p.streams * t->p.max_pbs);
    t->scan = false;
    for (unsigned i = 0; i < t->p.bbt_entries; i++)
        t->bbt[i].valid = false;
    t->prog_valid = t->in_unit = t->data_pending = t->data_active = t->rdata_valid = t->rdata_last =
        false;
    t->load_slot = t->data_slot = t->read_beat = 0;
    t->idle = false;
}

static void clock_rd(struct nfw_twin *t, const struct comb *c)
{
    const struct nfw_in *in = &t->in;
    struct cmd_rec cmd_in = {in->cmd_addr & ((1ull << 40) - 1), in->cmd_len, in->cmd_stream & 0xf};
    struct desc_rec desc_in = {(uint8_t)(c->cmd_q_data.addr & 7), c->cmd_q_data.stream,
                               c->cmd_q_data.len};

    clock_cmd_q(&t->cmd_q, in->cmd_valid, &cmd_in, c->cmd_q_pop);
    clock_desc_q(&t->desc_q, c->desc_q_push, &desc_in, c->desc_take);
    if (c->cmd_q_pop) {
        t->rd_active = c->cmd_q_data.len != 0;
        t->next_beat = c->cmd_q_data.addr >> 3;
        t->beats_left =
            (uint32_t)(((c->cmd_q_data.addr & 7) + (uint64_t)c->cmd_q_data.len + 7) >> 3) & M30;
    } else if (c->issue) {
        t->rd_active = t->beats_left != 1;
    }
    if (c->issue) {
        t->req_valid = true;
        t->req_addr = t->next_beat << 3 & ((1ull << 40) - 1);
        if (!c->cmd_q_pop) {
            t->next_beat = (t->next_beat + 1) & ((1ull << 37) - 1);
            t->beats_left = (t->beats_left - 1) & M30;
        }
    } else if (in->mem_req_ready) {
        t->req_valid = false;
    }
    t->credit = t->credit - c->issue + c->rsp_pop;
}

static void clock_align(struct nfw_twin *t, const struct comb *c)
{
    if (!t->align_active) {
        if (c->desc_valid) {
            const struct desc_rec *desc = &c->desc;
            uint32_t desc_data_beats = (uint32_t)(((uint64_t)desc->len + 7) >> 3) & M30;
            uint32_t desc_in_beats = (uint32_t)(((uint64_t)desc->off + desc->len + 7) >> 3) & M30;
            uint32_t pages =
                (uint32_t)(((uint64_t)desc->len + t->p.page_bytes - 1) >> t->page_bytes_log2);
            uint32_t desc_out_beats = (pages << t->page_beat_w) & M30;

            t->align_active = true;
            t->align_hold_valid = false;
            t->align_byte_off = desc->off;
            t->align_stream = desc->stream;
            t->align_data_left = desc_data_beats;
            t->align_pad_left = (desc_out_beats - desc_data_beats) & M30;
            t->align_in_left = desc_in_beats;
            t->align_last_bytes = (uint8_t)(((desc->len - 1) & 7) + 1);
            t->align_page_beat = 0;
        }
        return;
    }
    if (c->align_fire && c->align_last_cmd)
        t->align_active = false;
    if (c->rsp_pop)
        t->align_in_left = (t->align_in_left - 1) & M30;
    if (c->align_fire) {
        t->align_page_beat = next_mod(t->align_page_beat, t->beats_per_page);
        if (c->is_data)
            t->align_data_left--;
        else
            t->align_pad_left--;
    }
    if (c->align_fire && c->need_next) {
        t->align_hold_valid = !c->last_data;
    } else if (c->load_hold) {
        t->align_hold_valid = true;
    } else if (c->align_fire && c->is_data) {
        t->align_hold_valid = false;
    }
    if ((c->align_fire && c->need_next) || c->load_hold) {
        t->align_hold = c->rsp_data.data;
        t->align_hold_err = c->rsp_data.err;
    }
}

static void clock_pack(struct nfw_twin *t, const struct comb *c)
{
    const struct nfw_in *in = &t->in;
    unsigned stream = c->stream;

    if (c->page_end) {
        struct page_rec *slot = &t->slot[t->write_slot];

        slot->stream = t->align_stream;
        slot->lpn = t->lpn[stream];
        slot->pbn = t->pbn[stream];
        slot->die = t->die[stream];
        slot->plane = t->plane[stream];
        slot->block = (uint16_t)(t->stream_first[stream] + t->pbn[stream]);
        slot->page = t->page[stream];
        slot->err = (t->page_err && !c->page_start) || c->align_err;
        slot->first = t->cmd_first || t->plane[stream] == 0;
        slot->last = c->unit_last;
    }
    if (c->align_fire) {
        if (c->align_data || t->ram_nonzero) {
            t->ram[t->write_slot * t->beats_per_page + t->write_beat] = c->align_data;
            t->ram_nonzero = true;
        }
        t->page_err = (t->page_err && !c->page_start) || c->align_err;
        t->write_beat = next_mod(t->write_beat, t->beats_per_page);
    }
    if (c->page_end) {
        t->write_slot = next_mod(t->write_slot, t->p.slots);
        t->cmd_first = c->align_last_cmd;
    }
    t->slots_used = t->slots_used + (c->align_fire && c->page_start) - c->read_last;
    t->units = t->units + (c->page_end && c->unit_last) - c->unit_take;

    /* Two streams at most change: the configured one (reset) and the aligner's (a grant, a
     * page's end); the configured one only resets, even when it is the aligner's. Visited
     * directly rather than by a loop over every stream per cycle (profiles of make sim). */
    bool reset_cs = c->cfg_set_stream && in->cfg_stream < t->p.streams;

    if (reset_cs) {
        unsigned i = in->cfg_stream;

        t->lpn[i] = 0;
        t->lblock[i] = t->page[i] = t->die[i] = 0;
        t->plane[i] = 0;
        t->open[i] = false;
    }
    if (stream < t->p.streams && !(reset_cs && in->cfg_stream == stream)) {
        unsigned i = stream;

        if (c->alloc_gnt) {
            t->open[i] = true;
            t->pbn[i] = (uint16_t)t->candidate;
        }
        if (c->page_end) {
            t->lpn[i] = c->lblock_wrap ? 0 : t->lpn[i] + 1;
            t->plane[i] = c->plane_wrap ? 0 : (uint8_t)((t->plane[i] + 1) & 15);
            if (c->plane_wrap)
                t->die[i] = c->die_wrap ? 0 : (uint16_t)(t->die[i] + 1);
            if (c->die_wrap)
                t->page[i] = c->page_wrap ? 0 : (uint16_t)(t->page[i] + 1);
            if (c->page_wrap) {
                t->lblock[i] = c->lblock_wrap ? 0 : (uint16_t)(t->lblock[i] + 1);
                t->open[i] = false;
            }
        }
    }
}

static void clock_alloc(struct nfw_twin *t, const struct comb *c)
{
    const struct nfw_in *in = &t->in;
    unsigned pbn_mask = t->pbn_mask;
    unsigned scan_stream_old = t->scan_stream;
    uint32_t candidate_old = t->candidate;

    if (!t->scan) {
        t->scan = c->alloc_req;
        t->scan_stream = c->stream;
        t->candidate = t->cursor[c->stream];
    } else if (c->candidate_free) {
        t->scan = false;
    } else {
        t->candidate = c->candidate_next;
    }
    /* The granted stream's block, then the configured stream's (in this order when they are
     * the same stream); visited directly, as in clock_pack. */
    if (c->alloc_gnt && scan_stream_old < t->p.streams) {
        *busy_bit(t, scan_stream_old, candidate_old) = 1;
        t->cursor[scan_stream_old] = c->candidate_next;
    }
    if (in->cfg_stream < t->p.streams) {
        unsigned i = in->cfg_stream;

        if (c->cfg_set_stream) {
            memset(busy_bit(t, i, 0), 0, t->p.max_pbs);
            t->cursor[i] = 0;
            t->last_pbn[i] = ((in->cfg_a >> 16) - 1) & 0xffff & pbn_mask;
        }
        if ((c->cfg_free_pb || c->cfg_use_pb) && ((in->cfg_a & 0xffff) & pbn_mask) < t->p.max_pbs)
            *busy_bit(t, i, (in->cfg_a & 0xffff) & pbn_mask) = c->cfg_use_pb;
    }
}

static void clock_issue(struct nfw_twin *t, const struct comb *c)
{
    struct pdat_rec pdat_in = {t->ram_rdata, t->rdata_last};

    static const struct page_rec none; /* an empty FIFO's head reads as zeros */
    const struct page_rec *flight_head =
        cmn_fifo_empty(&t->flight_q) ? &none : cmn_fifo_head(&t->flight_q);

    /* Completions and page data FIFOs first: they use this cycle's registers. A completion
     * moves from the in-flight FIFO to the done FIFO with the last beat of its page (read in
     * place: the in-flight FIFO is clocked after). */
    clock_page_q(&t->done_q, c->page_data_end, flight_head, t->in.done_ready);
    clock_page_q(&t->flight_q, c->prog_fire, &t->prog, c->page_data_end);
    clock_pdat_q(&t->pdat_q, t->rdata_valid, &pdat_in, t->in.pdat_ready);
    if (c->read_issue)
        t->ram_rdata = t->ram_nonzero ? t->ram[t->data_slot * t->beats_per_page + t->read_beat] : 0;
    if (c->load_cmd) {
        /* The descriptor of page buffer load_slot, its block after the BBT: read here, only
         * when loaded (clock_pack writes the descriptors and clock_cfg the BBT after this). */
        const struct page_rec *slot = &t->slot[t->load_slot];

        t->prog_valid = true;
        t->prog = *slot;
        t->prog.block = bbt_lookup(t, slot->die, slot->plane, slot->block);
        t->load_slot = next_mod(t->load_slot, t->p.slots);
        t->in_unit = !slot->last;
    } else if (c->prog_fire) {
        t->prog_valid = false;
    }
    if (c->prog_fire)
        t->data_pending = true;
    else if (c->data_start)
        t->data_pending = false;
    if (c->read_issue)
        t->read_beat = next_mod(t->read_beat, t->beats_per_page);
    if (c->read_last)
        t->data_slot = next_mod(t->data_slot, t->p.slots);
    if (c->data_start)
        t->data_active = true;
    else if (c->read_last)
        t->data_active = false;
    t->rdata_valid = c->read_issue;
    t->rdata_last = c->read_last;
}

static void clock_cfg(struct nfw_twin *t, const struct comb *c)
{
    const struct nfw_in *in = &t->in;

    if (c->cfg_set_stream && in->cfg_stream < t->p.streams) {
        t->stream_first[in->cfg_stream] = (uint16_t)in->cfg_a;
        t->stream_lblocks[in->cfg_stream] = (uint16_t)in->cfg_b;
    }
    if (c->cfg_bbt && in->cfg_idx < t->p.bbt_entries) {
        struct bbt_ent *b = &t->bbt[in->cfg_idx];

        b->valid = in->cfg_b >> 31;
        b->die = (uint16_t)(in->cfg_a >> 20);
        b->plane = (uint8_t)((in->cfg_a >> 16) & 15);
        b->block = (uint16_t)in->cfg_a;
        b->spare = (uint16_t)in->cfg_b;
    }
}

static void clock_one(struct nfw_twin *t)
{
    struct comb c;
    bool reader_idle, issue_idle;

    t->cycle++;
    if (t->in.rst) {
        reset(t);
        return;
    }
    eval(t, &c);
    reader_idle = !c.cmd_q_valid && !t->rd_active && !t->req_valid && t->credit == t->p.max_reads &&
                  !c.desc_valid;
    issue_idle = !t->prog_valid && !t->data_pending && !t->data_active && !t->rdata_valid &&
                 !t->in_unit && cmn_fifo_empty(&t->pdat_q) && cmn_fifo_empty(&t->flight_q) &&
                 cmn_fifo_empty(&t->done_q);
    t->idle = reader_idle && !c.rsp_valid && !t->align_active && t->slots_used == 0 && issue_idle &&
              !c.alloc_req;

    /* Registers of the issue stage before those of the pack (the issue reads the descriptors
     * and the RAM as they were before this edge). */
    clock_issue(t, &c);
    clock_rd(t, &c);
    {
        struct rsp_rec rsp_in = {t->in.mem_rsp_rdata, t->in.mem_rsp_err};

        clock_rsp_q(&t->rsp_q, t->in.mem_rsp_valid, &rsp_in, c.rsp_pop);
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

/* ------------------------------------------------------------------ state */

int nfw_twin_state(const struct nfw_twin *t, struct nfw_state *s)
{
    /* At rest: what clock_one's idle asks of the registers (idle_q then goes high at the next
     * edge), the page buffers empty. */
    bool rest =
        cmn_fifo_empty(&t->cmd_q) && !t->rd_active && !t->req_valid &&
        t->credit == t->p.max_reads && cmn_fifo_empty(&t->desc_q) && cmn_fifo_empty(&t->rsp_q) &&
        !t->align_active && t->slots_used == 0 && t->units == 0 && t->write_beat == 0 && !t->scan &&
        !t->prog_valid && !t->data_pending && !t->data_active && !t->rdata_valid && !t->in_unit &&
        cmn_fifo_empty(&t->pdat_q) && cmn_fifo_empty(&t->flight_q) && cmn_fifo_empty(&t->done_q);

    if (!rest || t->p.max_pbs > 64 || t->p.streams > NFW_STATE_STREAMS)
        return -EBUSY;
    memset(s, 0, sizeof(*s));
    s->idle = t->idle;
    for (unsigned i = 0; i < t->p.streams; i++) {
        s->lpn[i] = t->lpn[i];
        s->lblock[i] = t->lblock[i];
        s->page[i] = t->page[i];
        s->die[i] = t->die[i];
        s->pbn[i] = t->pbn[i];
        s->plane[i] = t->plane[i];
        s->open[i] = t->open[i];
        for (unsigned b = 0; b < t->p.max_pbs; b++)
            s->busy[i] |= (uint64_t)(t->busy[(size_t)i * t->p.max_pbs + b] != 0) << b;
        s->cursor[i] = t->cursor[i];
    }
    s->write_slot = t->write_slot;
    s->cmd_first = t->cmd_first;
    s->page_err = t->page_err;
    s->load_slot = t->load_slot;
    s->data_slot = t->data_slot;
    s->cmd_head = t->cmd_q.head;
    s->desc_head = t->desc_q.head;
    s->rsp_head = t->rsp_q.head;
    s->pdat_head = t->pdat_q.head;
    s->flight_head = t->flight_q.head;
    s->done_head = t->done_q.head;
    return 0;
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
