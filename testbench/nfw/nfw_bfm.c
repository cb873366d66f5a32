#include "testbench/nfw/nfw_bfm.h"

#include "csim/rng.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS 16
#define CMDQ        8    /* page commands taken whose data have not all arrived */
#define CFGQ        512  /* firmware operations waiting */
#define HELD        1024 /* completions held until the pages before them are reported */

struct pcmd {
    uint16_t chan, die, block, page;
    uint8_t plane;
    bool first, last;
};

struct cfg_op {
    uint8_t op, stream, idx;
    uint32_t a, b;
};

struct bbt_slot {
    bool used;
    uint32_t die, plane, block, spare;
};

struct nfw_bfm {
    struct nfw_params p;
    struct nfw_bfm_cfg cfg;
    struct flash_fms *fms;
    struct ftl_bbm *bbm;
    struct ftl_stream *st[MAX_STREAMS];
    uint32_t dies, bpp;
    uint64_t cycle, rng;
    /* page commands taken, data pending (ring) */
    struct pcmd cq[CMDQ];
    unsigned cq_head, cq_len, beat; /* beat: of the oldest command's page */
    /* the unit being received */
    unsigned char *unit; /* planes x page_bytes */
    struct pcmd upage[FLASH_MAX_PLANES];
    unsigned un; /* pages of the unit complete */
    /* cfg queue */
    struct cfg_op q[CFGQ];
    unsigned q_head, q_len;
    bool cfg_offered;
    /* bad-block table as loaded */
    struct bbt_slot bbt[256];
    /* completions ahead of their stream's next LPN (lanes report out of order) */
    struct nfw_out held[HELD];
    unsigned n_held;
    uint64_t next_lpn[MAX_STREAMS];
    /* port rule: stalled outputs hold */
    struct nfw_out prev;
    struct nfw_in prev_in;
    struct nfw_bfm_stats st_;
};

void nfw_bfm_cfg_default(struct nfw_bfm_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->period_ps = 1250; /* (derived) ~0.8 GHz core clock, docs/sources.md */
    c->seed = 1;
}

static bool stall(struct nfw_bfm *b, unsigned pct)
{
    return pct && rng_below(&b->rng, 100) < pct;
}

int nfw_bfm_create(const struct nfw_bfm_cfg *cfg, const struct nfw_params *p, struct flash_fms *fms,
                   struct ftl_bbm *bbm, struct nfw_bfm **out, struct err *e)
{
    const struct flash_geom *g = &flash_fms_cfg(fms)->geom;
    struct nfw_bfm *b;

    *out = NULL;
    if (g->planes_per_die != p->planes || g->channels != p->channels ||
        g->chips_per_chan * g->dies_per_chip != p->dies_per_chan ||
        g->pages_per_block != p->pages_per_block || g->page_bytes != p->page_bytes)
        return err_set(e, -EINVAL,
                       "nfw bfm: the pipeline (%u planes, %u channels x %u dies, %u pages "
                       "per block, %u B pages) and the flash model (%u planes, %u channels "
                       "x %u dies, %u pages per block, %u B pages) differ; accepted the "
                       "same geometry",
                       p->planes, p->channels, p->dies_per_chan, p->pages_per_block, p->page_bytes,
                       g->planes_per_die, g->channels, g->chips_per_chan * g->dies_per_chip,
                       g->pages_per_block, g->page_bytes);
    if (!cfg->period_ps)
        return err_set(e, -EINVAL, "nfw bfm: period_ps = 0; accepted >= 1");
    b = calloc(1, sizeof(*b));
    if (!b)
        return err_set(e, -ENOMEM, "nfw bfm: out of memory");
    b->unit = calloc(p->planes, p->page_bytes);
    if (!b->unit) {
        free(b);
        return err_set(e, -ENOMEM, "nfw bfm: out of memory");
    }
    b->p = *p;
    b->cfg = *cfg;
    b->fms = fms;
    b->bbm = bbm;
    b->dies = p->channels * p->dies_per_chan;
    b->bpp = p->page_bytes / 8;
    b->rng = cfg->seed ^ 0x6e66775f62666dull;
    *out = b;
    return 0;
}

void nfw_bfm_destroy(struct nfw_bfm *b)
{
    if (!b)
        return;
    free(b->unit);
    free(b);
}

uint64_t nfw_bfm_now(const struct nfw_bfm *b)
{
    return b->cycle * b->cfg.period_ps;
}

const struct nfw_bfm_stats *nfw_bfm_stats(const struct nfw_bfm *b)
{
    return &b->st_;
}

bool nfw_bfm_idle(const struct nfw_bfm *b)
{
    return !b->q_len && !b->cq_len && !b->un && !b->n_held;
}

/* ------------------------------------------------------------------ firmware operations */

static int push_op(struct nfw_bfm *b, uint8_t op, unsigned stream, unsigned idx, uint32_t a,
                   uint32_t bb, struct err *e)
{
    struct cfg_op *o;

    if (b->q_len == CFGQ)
        return err_set(e, -ENOSPC,
                       "nfw bfm: %u firmware operations already queued; run the pipeline "
                       "to send them",
                       CFGQ);
    o = &b->q[(b->q_head + b->q_len++) % CFGQ];
    o->op = op;
    o->stream = (uint8_t)stream;
    o->idx = (uint8_t)idx;
    o->a = a;
    o->b = bb;
    return 0;
}

int nfw_bfm_sync_bbt(struct nfw_bfm *b, struct err *e)
{
    for (unsigned id = 0; id < MAX_STREAMS; id++) {
        const struct ftl_stream_cfg *sc;

        if (!b->st[id])
            continue;
        sc = ftl_stream_get_cfg(b->st[id]);
        for (uint32_t die = 0; die < b->dies; die++) {
            for (uint32_t pl = 0; pl < b->p.planes; pl++) {
                for (uint32_t blk = sc->first_block; blk < sc->first_block + sc->n_blocks; blk++) {
                    uint32_t spare = ftl_bbm_resolve(b->bbm, die * b->p.planes + pl, blk);
                    unsigned i, fre = 256;
                    int rc;

                    if (spare == blk)
                        continue;
                    for (i = 0; i < b->p.bbt_entries; i++) {
                        const struct bbt_slot *s = &b->bbt[i];

                        if (s->used && s->die == die && s->plane == pl && s->block == blk)
                            break;
                        if (!s->used && fre == 256)
                            fre = i;
                    }
                    if (i < b->p.bbt_entries && b->bbt[i].spare == spare)
                        continue; /* loaded already */
                    if (i == b->p.bbt_entries)
                        i = fre;
                    if (i == 256)
                        return err_set(e, -ENOSPC,
                                       "nfw bfm: die %u plane %u block %u is replaced by "
                                       "spare %u, but all %u bad-block table entries of "
                                       "the pipeline are in use; accepted at most %u "
                                       "replacements in the hardware-written streams",
                                       die, pl, blk, spare, b->p.bbt_entries, b->p.bbt_entries);
                    rc = push_op(b, NFW_CFG_BBT, 0, i, blk | pl << 16 | die << 20, spare | 1u << 31,
                                 e);
                    if (rc)
                        return rc;
                    b->bbt[i] = (struct bbt_slot){true, die, pl, blk, spare};
                    b->st_.bbt_entries += i == fre;
                }
            }
        }
    }
    return 0;
}

int nfw_bfm_attach(struct nfw_bfm *b, unsigned id, struct ftl_stream *s, struct err *e)
{
    const struct ftl_stream_cfg *sc = ftl_stream_get_cfg(s);
    int rc;

    if (id >= b->p.streams || id >= MAX_STREAMS)
        return err_set(e, -EINVAL, "nfw bfm: stream id %u; accepted 0..%u", id, b->p.streams - 1);
    if (sc->n_blocks > b->p.max_pbs || sc->n_lblocks > 65535 || sc->first_block > 65535)
        return err_set(e, -EINVAL,
                       "nfw bfm: stream '%s' has %u physical blocks from block %u; the "
                       "pipeline's allocator takes at most %u",
                       sc->name, sc->n_blocks, sc->first_block, b->p.max_pbs);
    if (!sc->erase_on_release)
        return err_set(e, -EINVAL,
                       "nfw bfm: stream '%s' defers erases to allocation; the hardware "
                       "allocator needs erased blocks: accepted erase_on_release",
                       sc->name);
    b->st[id] = s;
    b->next_lpn[id] = 0; /* SET_STREAM: the append point to LPN 0 */
    rc = push_op(b, NFW_CFG_SET_STREAM, id, 0, sc->first_block | sc->n_blocks << 16, sc->n_lblocks,
                 e);
    for (uint32_t pbn = 0; !rc && pbn < sc->n_blocks; pbn++)
        if (!ftl_stream_pb_free(s, pbn))
            rc = push_op(b, NFW_CFG_USE_PB, id, 0, pbn, 0, e);
    if (!rc)
        rc = nfw_bfm_sync_bbt(b, e);
    return rc;
}

int nfw_bfm_release(struct nfw_bfm *b, unsigned id, uint32_t lbn, uint32_t count, struct err *e)
{
    struct ftl_stream *s = id < MAX_STREAMS ? b->st[id] : NULL;
    uint32_t pbns[64];
    uint64_t done;
    int rc;

    if (!s || count > 64)
        return err_set(e, -EINVAL,
                       "nfw bfm: release of %u LBs of stream %u; accepted an attached "
                       "stream and at most 64 LBs at a time",
                       count, id);
    for (uint32_t i = 0; i < count; i++) {
        rc = ftl_stream_lookup(s, lbn + i, &pbns[i]);
        if (rc)
            return err_set(e, -EINVAL,
                           "nfw bfm: release of LB %u of stream %u: "
                           "not mapped",
                           lbn + i, id);
    }
    rc = ftl_stream_release(s, nfw_bfm_now(b), lbn, count, &done, e);
    if (rc && rc != -ENOSPC)
        return err_prefix(e, rc, "nfw bfm");
    /* Replacements first, so a freed block is never programmed before its spare is known. */
    rc = nfw_bfm_sync_bbt(b, e);
    for (uint32_t i = 0; !rc && i < count; i++)
        if (ftl_stream_pb_free(s, pbns[i]))
            rc = push_op(b, NFW_CFG_FREE_PB, id, 0, pbns[i], 0, e);
    return rc;
}

/* ------------------------------------------------------------------ ports */

void nfw_bfm_drive(struct nfw_bfm *b, const struct nfw_out *o, struct nfw_in *in)
{
    bool chan_ok = true;

    if (o->prog_valid && o->prog_first) {
        const struct flash_chan *ch = flash_fms_chan(b->fms, o->prog_chan);

        chan_ok = ch && ch->bus.busy_until <= nfw_bfm_now(b);
    }
    in->prog_ready = chan_ok && b->cq_len < CMDQ && !stall(b, b->cfg.prog_stall_pct);
    b->st_.chan_wait += o->prog_valid && !chan_ok;
    in->pdat_ready = !stall(b, b->cfg.pdat_stall_pct);
    in->done_ready = !stall(b, b->cfg.done_stall_pct);
    /* A cfg operation, once offered, stays until taken (the port's rule). */
    if (!b->cfg_offered)
        b->cfg_offered = b->q_len && !stall(b, b->cfg.cfg_stall_pct);
    in->cfg_valid = b->cfg_offered;
    if (b->cfg_offered) {
        const struct cfg_op *q = &b->q[b->q_head];

        in->cfg_op = q->op;
        in->cfg_stream = q->stream;
        in->cfg_idx = q->idx;
        in->cfg_a = q->a;
        in->cfg_b = q->b;
    } else {
        in->cfg_op = 0;
        in->cfg_stream = 0;
        in->cfg_idx = 0;
        in->cfg_a = 0;
        in->cfg_b = 0;
    }
}

/* A stalled valid must stay, with its payload (rtl/README.md, rule 2). */
static int check_hold(struct nfw_bfm *b, const struct nfw_out *o, struct err *e)
{
    const struct nfw_out *p = &b->prev;
    const struct nfw_in *pi = &b->prev_in;

    if (b->cycle == 0)
        return 0;
    if (p->prog_valid && !pi->prog_ready &&
        (!o->prog_valid || o->prog_die != p->prog_die || o->prog_plane != p->prog_plane ||
         o->prog_block != p->prog_block || o->prog_page != p->prog_page ||
         o->prog_first != p->prog_first || o->prog_last != p->prog_last))
        return err_set(e, -EPROTO,
                       "nfw bfm cycle %llu: a stalled program command changed or dropped",
                       (unsigned long long)b->cycle);
    if (p->pdat_valid && !pi->pdat_ready &&
        (!o->pdat_valid || o->pdat_data != p->pdat_data || o->pdat_last != p->pdat_last))
        return err_set(e, -EPROTO, "nfw bfm cycle %llu: a stalled data beat changed or dropped",
                       (unsigned long long)b->cycle);
    if (p->done_valid && !pi->done_ready &&
        (!o->done_valid || o->done_lpn != p->done_lpn || o->done_block != p->done_block ||
         o->done_die != p->done_die || o->done_plane != p->done_plane ||
         o->done_page != p->done_page || o->done_pbn != p->done_pbn ||
         o->done_stream != p->done_stream || o->done_err != p->done_err))
        return err_set(e, -EPROTO, "nfw bfm cycle %llu: a stalled completion changed or dropped",
                       (unsigned long long)b->cycle);
    return 0;
}

static int take_prog(struct nfw_bfm *b, const struct nfw_out *o, struct err *e)
{
    struct pcmd *c;

    if (o->prog_die >= b->dies || o->prog_chan != o->prog_die % b->p.channels ||
        o->prog_plane >= b->p.planes || o->prog_page >= b->p.pages_per_block)
        return err_set(e, -EPROTO,
                       "nfw bfm cycle %llu: program command channel %u die %u plane %u "
                       "page %u; accepted die < %u on channel die %% %u, plane < %u, page "
                       "< %u",
                       (unsigned long long)b->cycle, o->prog_chan, o->prog_die, o->prog_plane,
                       o->prog_page, b->dies, b->p.channels, b->p.planes, b->p.pages_per_block);
    c = &b->cq[(b->cq_head + b->cq_len++) % CMDQ];
    c->chan = o->prog_chan;
    c->die = o->prog_die;
    c->plane = o->prog_plane;
    c->block = o->prog_block;
    c->page = o->prog_page;
    c->first = o->prog_first;
    c->last = o->prog_last;
    return 0;
}

/* The unit's pages are all here: one multi-plane program. */
static int program_unit(struct nfw_bfm *b, struct err *e)
{
    const void *data[FLASH_MAX_PLANES] = {0};
    struct flash_mpop op;
    uint64_t done;
    int rc;

    memset(&op, 0, sizeof(op));
    op.die = b->upage[0].die;
    op.page = b->upage[0].page;
    for (unsigned i = 0; i < b->un; i++) {
        const struct pcmd *c = &b->upage[i];

        if (c->die != op.die || c->page != op.page || (i && c->plane <= b->upage[i - 1].plane))
            return err_set(e, -EPROTO,
                           "nfw bfm cycle %llu: page %u of a unit is die %u page %u "
                           "plane %u after die %u page %u plane %u; accepted one die and "
                           "page, planes ascending",
                           (unsigned long long)b->cycle, i, c->die, c->page, c->plane, op.die,
                           op.page, i ? b->upage[i - 1].plane : 0);
        op.plane_mask |= 1u << c->plane;
        op.block[c->plane] = c->block;
        data[c->plane] = b->unit + (size_t)i * b->p.page_bytes;
    }
    rc = flash_fms_program(b->fms, nfw_bfm_now(b), &op, data, &done, e);
    if (rc)
        return err_prefix(e, -EIO, "nfw bfm cycle %llu", (unsigned long long)b->cycle);
    b->st_.units++;
    if (done > b->st_.last_program_ps)
        b->st_.last_program_ps = done;
    b->un = 0;
    return 0;
}

static int take_beat(struct nfw_bfm *b, const struct nfw_out *o, struct err *e)
{
    struct pcmd *c = &b->cq[b->cq_head];
    unsigned char *dst;

    if (!b->cq_len)
        return err_set(e, -EPROTO, "nfw bfm cycle %llu: a data beat before its program command",
                       (unsigned long long)b->cycle);
    if (b->beat == 0) {
        if (c->first != (b->un == 0))
            return err_set(e, -EPROTO,
                           "nfw bfm cycle %llu: page with first = %d after %u pages of "
                           "its unit",
                           (unsigned long long)b->cycle, c->first, b->un);
        b->upage[b->un] = *c;
    }
    dst = b->unit + (size_t)b->un * b->p.page_bytes + 8 * b->beat;
    for (int i = 0; i < 8; i++)
        dst[i] = (unsigned char)(o->pdat_data >> (8 * i));
    if (o->pdat_last != (b->beat == b->bpp - 1))
        return err_set(e, -EPROTO, "nfw bfm cycle %llu: last flag %d on beat %u of a %u-beat page",
                       (unsigned long long)b->cycle, o->pdat_last, b->beat, b->bpp);
    if (++b->beat < b->bpp)
        return 0;
    /* A page is complete. */
    b->beat = 0;
    b->un++;
    b->st_.pages++;
    b->cq_head = (b->cq_head + 1) % CMDQ;
    b->cq_len--;
    if (c->last || b->un == b->p.planes) {
        if (!c->last)
            return err_set(e, -EPROTO, "nfw bfm cycle %llu: %u pages in a unit without a last flag",
                           (unsigned long long)b->cycle, b->un);
        return program_unit(b, e);
    }
    return 0;
}

static int adopt(struct nfw_bfm *b, struct ftl_stream *s, const struct nfw_out *o, struct err *e)
{
    struct ftl_ppa a = {o->done_die, o->done_plane, o->done_block, o->done_page};
    int rc = ftl_stream_adopt_page(s, nfw_bfm_now(b), o->done_lpn, o->done_pbn, &a, e);

    if (rc)
        return err_prefix(e, rc, "nfw bfm cycle %llu", (unsigned long long)b->cycle);
    b->next_lpn[o->done_stream] = (o->done_lpn + 1) % ftl_stream_lpages(s);
    b->st_.done++;
    b->st_.err_pages += o->done_err;
    return 0;
}

/* The FTL adopts a stream's pages in LPN order; lanes side by side report them in any order,
 * so a completion ahead of its stream's next LPN waits here for the ones before it. */
static int take_done(struct nfw_bfm *b, const struct nfw_out *o, struct err *e)
{
    struct ftl_stream *s = o->done_stream < MAX_STREAMS ? b->st[o->done_stream] : NULL;
    bool moved = true;
    int rc;

    if (!s)
        return err_set(e, -EPROTO,
                       "nfw bfm cycle %llu: completion for stream %u, which is not "
                       "attached",
                       (unsigned long long)b->cycle, o->done_stream);
    if (o->done_lpn != b->next_lpn[o->done_stream]) {
        if (b->n_held == HELD)
            return err_set(e, -EPROTO,
                           "nfw bfm cycle %llu: %u completions wait for an earlier page of "
                           "their stream (stream %u LPN %u, next %llu)",
                           (unsigned long long)b->cycle, HELD, o->done_stream, o->done_lpn,
                           (unsigned long long)b->next_lpn[o->done_stream]);
        b->held[b->n_held++] = *o;
        return 0;
    }
    if ((rc = adopt(b, s, o, e)))
        return rc;
    while (moved) {
        moved = false;
        for (unsigned i = 0; i < b->n_held; i++) {
            const struct nfw_out *h = &b->held[i];

            if (h->done_lpn != b->next_lpn[h->done_stream])
                continue;
            if ((rc = adopt(b, b->st[h->done_stream], h, e)))
                return rc;
            b->held[i] = b->held[--b->n_held];
            moved = true;
            break;
        }
    }
    return 0;
}

int nfw_bfm_clock(struct nfw_bfm *b, const struct nfw_out *o, const struct nfw_in *in,
                  struct err *e)
{
    int rc = check_hold(b, o, e);

    if (!rc && o->done_valid && in->done_ready)
        rc = take_done(b, o, e);
    /* A beat of this cycle belongs to a command taken in an earlier cycle. */
    if (!rc && o->pdat_valid && in->pdat_ready)
        rc = take_beat(b, o, e);
    if (!rc && o->prog_valid && in->prog_ready)
        rc = take_prog(b, o, e);
    if (!rc && in->cfg_valid && o->cfg_ready) {
        b->q_head = (b->q_head + 1) % CFGQ;
        b->q_len--;
        b->cfg_offered = false;
        b->st_.cfg_ops++;
    }
    b->prev = *o;
    b->prev_in = *in;
    b->cycle++;
    b->st_.cycles++;
    return rc;
}

int nfw_bfm_readback(void *user, uint64_t addr, const void *data, uint32_t len, uint64_t t,
                     uint64_t *t_done)
{
    struct nfw_bfm_rb *k = user;

    (void)t;
    (void)t_done;
    if (addr + len > k->len)
        return -EFAULT;
    memcpy(k->buf + addr, data, len);
    return 0;
}
