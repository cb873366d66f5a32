/*
 * nfw_lanes_twin.c - the NAND write lanes' twin; see nfw_lanes_twin.h. The comments name the
 * RTL registers each field mirrors (rtl/nfw/nfw_split.v, nfw_merge.v, nfw_lanes.v).
 */
#include "models/nfw/nfw_lanes_twin.h"

#include "models/nfw/nfw_twin.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS 16

struct nfw_lanes_twin {
    struct nfw_lanes_params p;
    unsigned lanes, pg_shift;
    struct nfw_twin *t[NFW_MAX_LANES];
    struct nfw_out lo[NFW_MAX_LANES]; /* each lane's outputs now (they change only on a step) */
    struct nfw_lanes_in in;
    /* The outputs now, as nfw_lanes_twin_get gives them: a lane's entry is remapped when it
     * steps, the shared fields (lane 0's) every step; the other lanes' shared fields stay 0. */
    struct nfw_lanes_out out;
    /* nfw_split */
    bool have;                                     /* have_q */
    uint64_t addr;                                 /* addr_q */
    uint32_t len;                                  /* len_q */
    uint8_t stream;                                /* stream_q */
    uint8_t plane[MAX_STREAMS], lane[MAX_STREAMS]; /* plane_q, lane_q */
    /* nfw_merge */
    bool mvalid; /* valid_q */
    unsigned rr; /* rr_q */
    uint8_t m_stream, m_plane;
    uint32_t m_lpn;
    uint16_t m_pbn, m_die, m_block, m_page;
    bool m_err;
    /* nfw_lanes */
    bool idle; /* idle_q */
    /* Simulation only: lane l's inputs were quiet in the last cycle it ran. */
    bool was_quiet[NFW_MAX_LANES];
};

static void map_lane(struct nfw_lanes_twin *t, unsigned l);
static void map_shared(struct nfw_lanes_twin *t);

/* A lane's inputs that move nothing: no reset, command, response or configuration. */
static bool quiet_in(const struct nfw_in *i)
{
    return !i->rst && !i->cmd_valid && !i->mem_rsp_valid && !i->cfg_valid;
}

/* A lane that was idle (idle_o: every stage empty at the last edge), offers nothing, and had
 * and has quiet inputs sits in a fixed point of nfw_top: its registers keep their values, so
 * the twin skips stepping it (most of a short write's cycles have 7 of 8 lanes idle). The
 * block test compares every output of every cycle with the RTL, skips included. */
static bool at_rest(const struct nfw_out *o)
{
    return o->idle && !o->mem_req_valid && !o->prog_valid && !o->pdat_valid && !o->done_valid;
}

static bool pow2(unsigned x)
{
    return x && !(x & (x - 1));
}

int nfw_lanes_twin_create(const struct nfw_lanes_params *p, struct nfw_lanes_twin **out,
                          struct err *e)
{
    struct nfw_lanes_twin *t;
    struct nfw_params lp = p->p;
    int rc;

    *out = NULL;
    if (!pow2(p->lanes) || p->lanes > NFW_MAX_LANES || p->p.channels % p->lanes)
        return err_set(e, -EINVAL,
                       "nfw lanes: %u lanes for %u channels; accepted a power of two from 1 "
                       "to %u that divides the channels",
                       p->lanes, p->p.channels, NFW_MAX_LANES);
    t = calloc(1, sizeof(*t));
    if (!t)
        return err_set(e, -ENOMEM, "nfw lanes: out of memory");
    t->p = *p;
    t->lanes = p->lanes;
    while ((1u << t->pg_shift) < p->p.page_bytes)
        t->pg_shift++;
    lp.channels = p->p.channels / p->lanes;
    for (unsigned l = 0; l < t->lanes; l++) {
        rc = nfw_twin_create(&lp, &t->t[l], e);
        if (rc) {
            nfw_lanes_twin_destroy(t);
            return err_prefix(e, rc, "nfw lanes: lane %u", l);
        }
        nfw_twin_get(t->t[l], &t->lo[l]);
        map_lane(t, l);
    }
    map_shared(t);
    *out = t;
    return 0;
}

void nfw_lanes_twin_destroy(struct nfw_lanes_twin *t)
{
    if (!t)
        return;
    for (unsigned l = 0; l < t->lanes; l++)
        nfw_twin_destroy(t->t[l]);
    free(t);
}

void nfw_lanes_twin_set(struct nfw_lanes_twin *t, const struct nfw_lanes_in *in)
{
    memcpy(t->in.l, in->l, t->lanes * sizeof(in->l[0]));
}

/* Lane l's own fields of the outputs from its pipeline's, in the FMS's channel and die
 * numbers. */
static void map_lane(struct nfw_lanes_twin *t, unsigned l)
{
    const struct nfw_out *lo = &t->lo[l];
    struct nfw_out *o = &t->out.l[l];

    o->mem_req_valid = lo->mem_req_valid;
    o->mem_req_write = lo->mem_req_write;
    o->mem_req_addr = lo->mem_req_addr;
    o->mem_req_wdata = lo->mem_req_wdata;
    o->mem_req_wstrb = lo->mem_req_wstrb;
    o->mem_rsp_ready = lo->mem_rsp_ready;
    o->prog_valid = lo->prog_valid;
    o->prog_chan = (uint16_t)(lo->prog_chan * t->lanes + l);
    o->prog_die = (uint16_t)(lo->prog_die * t->lanes + l);
    o->prog_plane = lo->prog_plane;
    o->prog_block = lo->prog_block;
    o->prog_page = lo->prog_page;
    o->prog_first = lo->prog_first;
    o->prog_last = lo->prog_last;
    o->pdat_valid = lo->pdat_valid;
    o->pdat_data = lo->pdat_data;
    o->pdat_last = lo->pdat_last;
}

/* The ports the lanes share: lane 0's entry. */
static void map_shared(struct nfw_lanes_twin *t)
{
    struct nfw_out *s = &t->out.l[0];

    s->cmd_ready = !t->have;
    s->done_valid = t->mvalid;
    s->done_stream = t->m_stream;
    s->done_lpn = t->m_lpn;
    s->done_pbn = t->m_pbn;
    s->done_die = t->m_die;
    s->done_plane = t->m_plane;
    s->done_block = t->m_block;
    s->done_page = t->m_page;
    s->done_err = t->m_err;
    s->cfg_ready = true;
    s->idle = t->idle;
}

void nfw_lanes_twin_get(struct nfw_lanes_twin *t, struct nfw_lanes_out *out)
{
    memcpy(out->l, t->out.l, t->lanes * sizeof(out->l[0]));
}

struct nfw_lanes_in *nfw_lanes_twin_in(struct nfw_lanes_twin *t)
{
    return &t->in;
}

const struct nfw_lanes_out *nfw_lanes_twin_out(const struct nfw_lanes_twin *t)
{
    return &t->out;
}

/* One cycle of nfw_lanes: the lanes' inputs from the splitter, the merger and the outer
 * inputs, then every register's next value from the current ones. */
static void step1(struct nfw_lanes_twin *t)
{
    const struct nfw_in *s = &t->in.l[0];
    const unsigned L = t->lanes, planes = t->p.p.planes, pb = t->p.p.page_bytes;
    const struct nfw_out *lo = t->lo; /* the outputs before this edge */
    bool all_idle = true, found = false, take, load, mtake, space, is_bbt;
    bool step[NFW_MAX_LANES] = {false};
    unsigned g = 0, bbt_die;
    uint8_t plane = 0, lane = 0;
    uint32_t room, piece, pages, next_plane;
    bool unit_end;

    for (unsigned l = 0; l < L; l++)
        all_idle &= lo[l].idle;
    /* nfw_split: the held stream's cursor and the piece. */
    if (t->stream < t->p.p.streams) {
        plane = t->plane[t->stream];
        lane = t->lane[t->stream];
    }
    room = (uint32_t)(planes - plane) << t->pg_shift;
    piece = t->len < room ? t->len : room;
    pages = (uint32_t)((piece + (uint64_t)pb - 1) >> t->pg_shift) & 31;
    next_plane = (plane + pages) & 31;
    unit_end = next_plane == planes;
    take = t->have && lo[lane].cmd_ready;
    load = s->cmd_valid && !t->have;
    /* nfw_merge: round robin from rr. */
    space = !t->mvalid || s->done_ready;
    for (unsigned k = 0; k < L && !found; k++) {
        unsigned idx = (t->rr + k) & (L - 1); /* L: a power of two */
        if (lo[idx].done_valid) {
            found = true;
            g = idx;
        }
    }
    mtake = space && found;
    /* The lanes' inputs. */
    is_bbt = s->cfg_op == NFW_CFG_BBT;
    bbt_die = s->cfg_a >> 20;
    for (unsigned l = 0; l < L; l++) {
        const struct nfw_in *i = &t->in.l[l];
        bool cmd_l = t->have && lane == l;
        bool cfg_l = s->cfg_valid && (!is_bbt || (bbt_die & (L - 1)) == l);
        struct nfw_in *li;

        /* quiet_in(li) of the li built below, decided before building it */
        if (t->was_quiet[l] && !s->rst && !cmd_l && !i->mem_rsp_valid && !cfg_l && at_rest(&lo[l]))
            continue; /* skipped: see at_rest */
        /* Every field, in place (what nfw_twin_set would copy; these are in range already). */
        li = nfw_twin_in(t->t[l]);
        li->rst = s->rst;
        li->cmd_valid = cmd_l;
        li->cmd_addr = t->addr;
        li->cmd_len = piece;
        li->cmd_stream = t->stream;
        li->mem_req_ready = i->mem_req_ready;
        li->mem_rsp_valid = i->mem_rsp_valid;
        li->mem_rsp_rdata = i->mem_rsp_rdata;
        li->mem_rsp_err = i->mem_rsp_err;
        li->prog_ready = i->prog_ready;
        li->pdat_ready = i->pdat_ready;
        li->done_ready = mtake && g == l;
        li->cfg_valid = cfg_l;
        li->cfg_op = s->cfg_op & 3;
        li->cfg_stream = s->cfg_stream & 0xf;
        li->cfg_idx = s->cfg_idx;
        li->cfg_a = is_bbt ? (uint32_t)(bbt_die / L) << 20 | (s->cfg_a & 0xfffff) : s->cfg_a;
        li->cfg_b = s->cfg_b;
        t->was_quiet[l] = quiet_in(li);
        nfw_twin_step(t->t[l], 1);
        step[l] = true;
    }

    /* Registers. */
    t->idle = s->rst ? false : !t->have && all_idle && !t->mvalid;
    for (unsigned i = 0; i < t->p.p.streams && i < MAX_STREAMS; i++) {
        bool reset =
            s->cfg_valid && (s->cfg_op & 3) == NFW_CFG_SET_STREAM && (s->cfg_stream & 0xf) == i;
        if (s->rst || reset) {
            t->plane[i] = 0;
            t->lane[i] = 0;
        } else if (take && t->stream == i) {
            t->plane[i] = unit_end ? 0 : (uint8_t)next_plane;
            if (unit_end)
                t->lane[i] = (uint8_t)((lane + 1) & (L - 1));
        }
    }
    if (s->rst)
        t->have = false;
    else if (load)
        t->have = s->cmd_len != 0;
    else if (take && t->len == piece)
        t->have = false;
    if (load) {
        t->addr = s->cmd_addr & ((1ull << 40) - 1);
        t->len = s->cmd_len;
        t->stream = s->cmd_stream & 0xf;
    } else if (take) {
        t->addr = (t->addr + piece) & ((1ull << 40) - 1);
        t->len -= piece;
    }
    if (mtake) {
        const struct nfw_out *d = &lo[g];
        uint32_t x = d->done_lpn, p = d->done_plane;

        t->m_stream = d->done_stream;
        t->m_lpn = (uint32_t)(L * (x - p) + g * planes + p);
        t->m_pbn = d->done_pbn;
        t->m_die = (uint16_t)(d->done_die * L + g);
        t->m_plane = d->done_plane;
        t->m_block = d->done_block;
        t->m_page = d->done_page;
        t->m_err = d->done_err;
    }
    if (s->rst) {
        t->mvalid = false;
        t->rr = 0;
    } else if (mtake) {
        t->mvalid = true;
        t->rr = (g + 1) & (L - 1);
    } else if (s->done_ready) {
        t->mvalid = false;
    }
    for (unsigned l = 0; l < L; l++)
        if (step[l]) {
            nfw_twin_get(t->t[l], &t->lo[l]);
            map_lane(t, l);
        }
    map_shared(t);
}

void nfw_lanes_twin_step(struct nfw_lanes_twin *t, uint64_t cycles)
{
    while (cycles--)
        step1(t);
}

int nfw_lanes_twin_state(const struct nfw_lanes_twin *t, struct nfw_lanes_state *s)
{
    if (t->have || t->mvalid)
        return -EBUSY;
    memset(s, 0, sizeof(*s));
    s->idle = t->idle;
    for (unsigned i = 0; i < t->p.p.streams && i < NFW_STATE_STREAMS; i++) {
        s->split_plane[i] = t->plane[i];
        s->split_lane[i] = t->lane[i];
    }
    s->rr = t->rr;
    for (unsigned l = 0; l < t->lanes; l++) {
        int rc = nfw_twin_state(t->t[l], &s->l[l]);
        if (rc)
            return rc;
    }
    return 0;
}

int nfw_lanes_out_diff(const struct nfw_lanes_out *a, const struct nfw_lanes_out *b, unsigned lanes,
                       char *buf, size_t len)
{
    for (unsigned l = 0; l < lanes && l < NFW_MAX_LANES; l++) {
        char d[160];

        if (nfw_out_diff(&a->l[l], &b->l[l], d, sizeof(d))) {
            snprintf(buf, len, "lane %u: %s", l, d);
            return 1;
        }
    }
    return 0;
}
