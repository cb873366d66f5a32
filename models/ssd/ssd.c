#include "models/ssd/ssd.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "models/ssd/ssd_impl.h"

/* ------------------------------------------------------------------ life */

/* The host rows (as many as the write buffer can fill, and the one being filled) and, in
 * functional mode, the SRAM behind them, the GC rows and the GC read buffer. */
static int alloc_rows(struct ssd *s, struct err *e)
{
    size_t row = (size_t)s->g.planes * s->page_bytes;

    s->n_rows = s->g.wbuf_pages / s->g.planes + 2;
    s->rows = calloc(s->n_rows, sizeof(*s->rows));
    if (s->payload)
        s->sram = malloc(row * (s->n_rows + s->g.dies + 1));
    if (!s->rows || (s->payload && !s->sram))
        return err_set(e, -ENOMEM, "ssd: out of memory for %u buffer rows", s->n_rows);
    for (uint32_t i = 0; i < s->n_rows; i++) {
        s->rows[i].next = i + 1 < s->n_rows ? i + 1 : SSD_NONE;
        if (s->payload)
            s->rows[i].buf = s->sram + row * i;
    }
    s->free_rows = 0;
    s->host_row = SSD_NONE;
    for (uint32_t d = 0; s->payload && d < s->g.dies; d++)
        s->die[d].gc_row.buf = s->sram + row * (s->n_rows + d);
    if (s->payload)
        s->gc_buf = s->sram + row * (s->n_rows + s->g.dies);
    return 0;
}

int ssd_create(const struct ssd_cfg *cfg, struct ssd **out, struct err *e)
{
    struct ssd *s;
    int rc;

    *out = NULL;
    rc = ssd_cfg_validate(cfg, e);
    if (rc)
        return rc;
    s = calloc(1, sizeof(*s));
    if (!s)
        return err_set(e, -ENOMEM, "ssd: out of memory");
    s->cfg = *cfg;
    ssd_cfg_geom(cfg, &s->g);
    s->page_bytes = cfg->nand.geom.page_bytes;
    s->payload = cfg->nand.sw.store_payload;
    for (s->n_leaf = 1; s->n_leaf < s->g.dies; s->n_leaf *= 2)
        ;
    s->die = calloc(s->g.dies, sizeof(*s->die));
    s->next_start = malloc(s->n_leaf * sizeof(*s->next_start));
    s->win = calloc(2 * (size_t)s->n_leaf, sizeof(*s->win));
    if (!s->die || !s->next_start || !s->win) {
        rc = err_set(e, -ENOMEM, "ssd: out of memory for %u dies", s->g.dies);
        free(s->win);
        free(s->next_start);
        free(s->die);
        free(s);
        return rc;
    }
    for (uint32_t d = 0; d < s->g.dies; d++) {
        struct ssd_die *x = &s->die[d];

        x->host.unit = x->gcf.unit = x->gc.victim = SSD_NONE;
        x->q_head = x->q_tail = SSD_NONE;
    }
    /* No die has an operation: every match goes to the lower die. */
    for (uint32_t d = 0; d < s->n_leaf; d++) {
        s->next_start[d] = UINT64_MAX;
        s->win[s->n_leaf + d] = d;
    }
    for (uint32_t i = s->n_leaf - 1; i >= 1; i--)
        s->win[i] = s->win[2 * i];
    rc = flash_fms_create(&cfg->nand, &s->fms, e);
    if (!rc)
        rc = ssd_map_init(&s->map, &s->g, e);
    if (!rc)
        rc = ssd_slots_init(&s->sq, cfg->sq_depth, e);
    if (!rc)
        rc = ssd_slots_init(&s->wbuf, s->g.wbuf_pages, e);
    if (!rc)
        rc = alloc_rows(s, e);
    if (!rc)
        rc = ssd_fast_init(s, e);
    if (rc) {
        ssd_destroy(s);
        return rc;
    }
    *out = s;
    return 0;
}

void ssd_destroy(struct ssd *s)
{
    if (!s)
        return;
    ssd_fast_fini(s);
    free(s->sram);
    free(s->rows);
    ssd_slots_fini(&s->wbuf);
    ssd_slots_fini(&s->sq);
    if (s->map.unit)
        ssd_map_fini(&s->map);
    flash_fms_destroy(s->fms);
    free(s->win);
    free(s->next_start);
    free(s->die);
    free(s);
}

const struct ssd_cfg *ssd_get_cfg(const struct ssd *s)
{
    return &s->cfg;
}

const struct ssd_geom *ssd_get_geom(const struct ssd *s)
{
    return &s->g;
}

uint64_t ssd_user_pages(const struct ssd *s)
{
    return s->g.user_pages;
}

const struct flash_fms *ssd_get_fms(const struct ssd *s)
{
    return s->fms;
}

/* ------------------------------------------------------------------ rows */

int ssd_open_row(struct ssd *s, uint32_t d, bool gc, uint64_t t, struct ssd_row *row, struct err *e)
{
    struct ssd_frontier *f = gc ? &s->die[d].gcf : &s->die[d].host;
    int rc;

    if (f->unit == SSD_NONE) {
        if (!gc) {
            rc = ssd_gc_make_room(s, d, t, e);
            if (rc)
                return rc;
        }
        f->unit = ssd_map_alloc(&s->map, d);
        if (f->unit == SSD_NONE)
            return err_set(e, -ENOSPC,
                           "ssd: die %u has no free unit for its %s frontier (GC found "
                           "no unit to collect)",
                           d, gc ? "GC" : "host");
        f->next_row = 0;
        ssd_gc_kick(s, d, t);
    }
    row->die = d;
    row->unit = f->unit;
    row->row = f->next_row++;
    row->fill = 0;
    row->ready = t;
    row->open = true;
    /* The unit closes when its last row is programmed (ssd_program_row). */
    if (f->next_row == s->g.rows)
        f->unit = SSD_NONE;
    return 0;
}

int ssd_program_row(struct ssd *s, struct ssd_row *row, uint64_t *done, struct err *e)
{
    const void *data[FLASH_MAX_PLANES] = {0};
    struct flash_mpop op;
    int rc;

    op.die = row->die;
    op.plane_mask = (uint32_t)((1ull << s->g.planes) - 1);
    op.page = row->row;
    for (uint32_t p = 0; p < s->g.planes; p++) {
        op.block[p] = row->unit % s->g.units_per_die;
        if (s->payload && p < row->fill)
            data[p] = row->buf + (size_t)p * s->page_bytes;
    }
    rc = flash_fms_program(s->fms, row->ready, &op, s->payload ? data : NULL, done, e);
    if (rc)
        return err_prefix(e, rc, "ssd: programming row %u of unit %u", row->row, row->unit);
    s->st.prog_pages += s->g.planes;
    s->st.pad_pages += s->g.planes - row->fill;
    s->st.last_end = ssd_later(s->st.last_end, *done);
    if (row->row == s->g.rows - 1)
        ssd_map_close(&s->map, row->unit);
    row->open = false;
    return 0;
}

/* ------------------------------------------------------------------ write */

/* The full (or flushed) host row goes to its die's queue of programs. */
static void queue_host_row(struct ssd *s)
{
    uint32_t i = s->host_row;
    struct ssd_die *x = &s->die[s->rows[i].die];

    s->rows[i].next = SSD_NONE;
    if (x->q_len++)
        s->rows[x->q_tail].next = i;
    else
        x->q_head = i;
    x->q_tail = i;
    s->queued_rows++;
    s->host_row = SSD_NONE;
    ssd_sched_update(s, s->rows[i].die);
}

/* Page lpn, buffered at t, takes the next slot of the host row. */
static int buffer_page(struct ssd *s, uint64_t lpn, const unsigned char *data, uint64_t t,
                       struct err *e)
{
    struct ssd_row *row;
    uint32_t ppn;
    int rc;

    if (s->host_row == SSD_NONE) {
        uint32_t i = s->free_rows;

        s->free_rows = s->rows[i].next;
        rc = ssd_open_row(s, s->next_die, false, t, &s->rows[i], e);
        if (rc) {
            s->rows[i].next = s->free_rows;
            s->free_rows = i;
            return rc;
        }
        s->host_row = i;
        s->next_die = (s->next_die + 1) % s->g.dies;
    }
    row = &s->rows[s->host_row];
    ppn = row->unit * s->g.unit_pages + row->row * s->g.planes + row->fill;
    ssd_map_write(&s->map, lpn, ppn);
    if (s->payload) {
        unsigned char *slot = row->buf + (size_t)row->fill * s->page_bytes;

        if (data)
            memcpy(slot, data, s->page_bytes);
        else
            memset(slot, 0, s->page_bytes);
    }
    row->fill++;
    row->ready = ssd_later(row->ready, t);
    s->st.host_write_pages++;
    s->st.free_unit_sum += s->map.n_free_total;
    if (row->fill == s->g.planes)
        queue_host_row(s);
    return 0;
}

/* A write-buffer slot for a page the firmware could take from t; when every slot waits for a
 * program not yet issued, the dies run ahead (in time order) until one is. */
static int take_wbuf(struct ssd *s, uint64_t t, uint64_t *at, struct err *e)
{
    while (ssd_slots_blocked(&s->wbuf)) {
        int rc = ssd_sched_one(s, e);

        if (rc)
            return rc;
    }
    *at = ssd_slots_take(&s->wbuf, t);
    return 0;
}

static int check_range(const struct ssd *s, const char *op, uint64_t lpn, uint32_t npages,
                       struct err *e)
{
    if (npages && lpn < s->g.user_pages && npages <= s->g.user_pages - lpn)
        return 0;
    return err_set(e, -EINVAL,
                   "ssd %s refused: pages %llu..+%u; accepted 1 or more pages within "
                   "0..%llu (the user capacity)",
                   op, (unsigned long long)lpn, npages, (unsigned long long)s->g.user_pages - 1);
}

/* ssd_write; run: the fast path's run it is part of (NULL: none), its command ends go to the
 * run's t_page from command index cmd on. */
static int write_call(struct ssd *s, uint64_t t, uint64_t lpn, uint32_t npages, const void *data,
                      uint64_t *done, struct ssd_fast *run, uint64_t cmd, struct err *e)
{
    const unsigned char *src = data;
    uint64_t end = t;
    int rc = check_range(s, "write", lpn, npages, e);

    if (!rc)
        rc = ssd_sched_until(s, t, e);
    for (uint32_t p = 0; !rc && p < npages; p += s->g.cmd_pages, cmd++) {
        uint32_t n = npages - p < s->g.cmd_pages ? npages - p : s->g.cmd_pages;
        uint64_t t_cmd = ssd_slots_take(&s->sq, t), t_page = t_cmd, t_slot;

        for (uint32_t i = 0; !rc && i < n; i++) {
            rc = take_wbuf(s, ssd_later(t_cmd, ssd_serial_free_at(&s->fw)), &t_slot, e);
            if (rc)
                break;
            t_page = ssd_serial_claim(&s->fw, t_slot, s->cfg.t_fw_page_ps);
            rc = buffer_page(s, lpn + p + i, src ? src + (size_t)(p + i) * s->page_bytes : NULL,
                             t_page, e);
        }
        ssd_slots_hold(&s->sq, t_page, 1);
        end = ssd_later(end, t_page);
        s->st.write_cmds++;
        if (run)
            run->t_page[cmd % run->cmds] = t_page;
    }
    /* A sequential writer's next call (a RAID 0 stripe unit) goes on from here. */
    if (lpn + npages < s->g.user_pages)
        ssd_map_prefetch(&s->map, lpn + npages);
    *done = end;
    return rc;
}

int ssd_write(struct ssd *s, uint64_t t, uint64_t lpn, uint32_t npages, const void *data,
              uint64_t *done, struct err *e)
{
    return write_call(s, t, lpn, npages, data, done, NULL, 0, e);
}

int ssd_write_chunks(struct ssd *s, uint64_t t, uint64_t lpn, uint64_t npages, uint32_t chunk,
                     const void *data, uint64_t *done, struct err *e)
{
    const unsigned char *src = data;
    struct ssd_fast *f = &s->fast;
    bool fast = ssd_fast_begin(s, lpn, npages, chunk, data != NULL);
    uint64_t end = t, off = 0;
    int rc = 0;

    if (!chunk)
        return err_set(e, -EINVAL, "ssd write refused: chunks of 0 pages; accepted 1 or more");
    if (!npages || npages > s->g.user_pages || lpn > s->g.user_pages - npages)
        return check_range(s, "write", lpn, npages > UINT32_MAX ? UINT32_MAX : (uint32_t)npages, e);
    while (!rc && off < npages) {
        uint32_t n = chunk - (uint32_t)((lpn + off) % chunk);
        uint64_t d;

        /* At a period boundary: skip what provably repeats. */
        if (fast && off >= f->base && (off - f->base) % f->period == 0) {
            uint64_t k = ssd_fast_at(s, t, (npages - off) / f->period);

            if (k) {
                ssd_fast_skip(s, t, lpn + off, k, &end);
                off += k * f->period;
                continue;
            }
        }
        if (n > npages - off)
            n = (uint32_t)(npages - off);
        rc = write_call(s, t, lpn + off, n, src ? src + off * s->page_bytes : NULL, &d,
                        fast && off >= f->base ? f : NULL,
                        fast && off >= f->base ? (off - f->base) / chunk * f->cpc : 0, e);
        end = ssd_later(end, d);
        off += n;
    }
    *done = end;
    return rc;
}

void ssd_set_fast(struct ssd *s, bool on)
{
    s->fast.on = on;
}

uint64_t ssd_fast_rows(const struct ssd *s)
{
    return s->fast.rows_skipped;
}

/* ------------------------------------------------------------------ read */

static bool row_is(const struct ssd_row *r, uint32_t unit, uint32_t row)
{
    return r->open && r->unit == unit && r->row == row;
}

/* The SRAM copy of a page whose row is not programmed yet (functional mode). */
static const unsigned char *sram_copy(const struct ssd *s, uint32_t ppn)
{
    uint32_t unit = ppn / s->g.unit_pages, off = ppn % s->g.unit_pages;
    uint32_t row = off / s->g.planes, plane = off % s->g.planes;
    const struct ssd_die *x = &s->die[unit / s->g.units_per_die];
    size_t at = (size_t)plane * s->page_bytes;

    if (s->host_row != SSD_NONE && row_is(&s->rows[s->host_row], unit, row))
        return s->rows[s->host_row].buf + at;
    for (uint32_t i = x->q_head; i != SSD_NONE; i = s->rows[i].next)
        if (row_is(&s->rows[i], unit, row))
            return s->rows[i].buf + at;
    return row_is(&x->gc_row, unit, row) ? x->gc_row.buf + at : NULL;
}

/* Whether the page at ppn is programmed (else its row is still in SRAM). */
static bool programmed(const struct ssd *s, uint32_t ppn)
{
    uint32_t unit = ppn / s->g.unit_pages, off = ppn % s->g.unit_pages;
    const struct flash_block *b = flash_fms_block(s->fms, unit / s->g.units_per_die,
                                                  off % s->g.planes, unit % s->g.units_per_die);

    return b->wp > off / s->g.planes;
}

/* A multi-plane read being gathered: pages of one row of one unit. */
struct read_op {
    struct flash_mpop op;
    void *bufs[FLASH_MAX_PLANES];
    bool open;
};

static int issue_read(struct ssd *s, struct read_op *r, uint64_t t, uint64_t *end, struct err *e)
{
    uint64_t done;
    int rc;

    if (!r->open)
        return 0;
    r->open = false;
    rc = flash_fms_read(s->fms, t, &r->op, s->payload ? r->bufs : NULL, &done, e);
    if (rc)
        return err_prefix(e, rc, "ssd: reading die %u row %u", r->op.die, r->op.page);
    ssd_sched_update(s, r->op.die);
    *end = ssd_later(*end, done);
    s->st.last_end = ssd_later(s->st.last_end, done);
    return 0;
}

/* Page ppn joins the read being gathered, or starts the next one (the current one issued). */
static int gather_read(struct ssd *s, struct read_op *r, uint32_t ppn, void *out, uint64_t t,
                       uint64_t *end, struct err *e)
{
    uint32_t unit = ppn / s->g.unit_pages, off = ppn % s->g.unit_pages;
    uint32_t die = unit / s->g.units_per_die, block = unit % s->g.units_per_die;
    uint32_t row = off / s->g.planes, plane = off % s->g.planes;
    int rc;

    if (r->open && (r->op.die != die || r->op.page != row || r->op.block[0] != block ||
                    (r->op.plane_mask & (1u << plane)))) {
        rc = issue_read(s, r, t, end, e);
        if (rc)
            return rc;
    }
    if (!r->open) {
        r->open = true;
        r->op.die = die;
        r->op.page = row;
        r->op.plane_mask = 0;
        for (uint32_t p = 0; p < s->g.planes; p++) {
            r->op.block[p] = block;
            r->bufs[p] = NULL;
        }
    }
    r->op.plane_mask |= 1u << plane;
    r->bufs[plane] = out;
    return 0;
}

/* The pages of one command, the controller done at t_ctl: SRAM, zeros or NAND reads.
 * Consecutive logical pages mostly sit in one row (the host fills a row with consecutive
 * pages): the row of the page before says whether the page is programmed (every program is of
 * a whole row, and nothing is programmed while the command's pages are looked up) and, when it
 * is the read being gathered, the page joins it without the address arithmetic. */
static int read_cmd(struct ssd *s, uint64_t t_ctl, uint64_t lpn, uint32_t n, unsigned char *dst,
                    uint64_t *end, struct err *e)
{
    /* r: gather_read fills it when it opens; row0, r_row0: first pages of rows. */
    struct read_op r;
    uint32_t planes = s->g.planes, row0 = 0, r_row0 = 0;
    bool known = false, prog = false;
    int rc = 0;

    r.open = false;

    for (uint32_t i = 0; !rc && i < n; i++) {
        uint32_t ppn = ssd_map_ppn(&s->map, lpn + i);
        unsigned char *out = dst ? dst + (size_t)i * s->page_bytes : NULL;

        if (ppn == SSD_NONE) {
            if (out && s->payload)
                memset(out, 0, s->page_bytes);
            s->st.unmapped_read_pages++;
            continue;
        }
        if (!known || ppn - row0 >= planes) {
            row0 = ppn - ppn % planes;
            prog = programmed(s, ppn);
            known = true;
        }
        if (!prog) {
            const unsigned char *src = s->payload ? sram_copy(s, ppn) : NULL;

            assert(!s->payload || src); /* an unprogrammed valid page is in an SRAM row */
            if (out && src)
                memcpy(out, src, s->page_bytes);
            s->st.sram_read_pages++;
        } else if (r.open && r_row0 == row0 && !(r.op.plane_mask & (1u << (ppn - row0)))) {
            r.op.plane_mask |= 1u << (ppn - row0);
            r.bufs[ppn - row0] = out;
        } else {
            rc = gather_read(s, &r, ppn, out, t_ctl, end, e);
            r_row0 = row0;
        }
    }
    return rc ? rc : issue_read(s, &r, t_ctl, end, e);
}

int ssd_read(struct ssd *s, uint64_t t, uint64_t lpn, uint32_t npages, void *buf, uint64_t *done,
             struct err *e)
{
    unsigned char *dst = buf;
    uint64_t end = t;
    int rc = check_range(s, "read", lpn, npages, e);

    if (!rc)
        rc = ssd_sched_until(s, t, e);
    for (uint32_t p = 0; !rc && p < npages; p += s->g.cmd_pages) {
        uint32_t n = npages - p < s->g.cmd_pages ? npages - p : s->g.cmd_pages;
        uint64_t t_cmd = ssd_slots_take(&s->sq, t), t_ctl, t_end;

        flash_fms_ctrl_cmd(s->fms, t_cmd, false, &t_ctl);
        t_end = t_ctl;
        /* The dies' operations that start before the command's reads go first. */
        rc = ssd_sched_until(s, t_ctl, e);
        if (!rc)
            rc = read_cmd(s, t_ctl, lpn + p, n, dst ? dst + (size_t)p * s->page_bytes : NULL,
                          &t_end, e);
        ssd_slots_hold(&s->sq, t_end, 1);
        end = ssd_later(end, t_end);
        s->st.read_cmds++;
        s->st.host_read_pages += n;
    }
    /* A sequential reader's next call (a RAID 0 stripe unit) goes on from here. */
    if (lpn + npages < s->g.user_pages)
        __builtin_prefetch(&s->map.l2p[lpn + npages]);
    *done = end;
    return rc;
}

/* ------------------------------------------------------------------ flush */

int ssd_flush(struct ssd *s, uint64_t t, uint64_t *done, struct err *e)
{
    uint64_t before = s->host_prog_end;
    int rc = ssd_sched_until(s, t, e);

    *done = t;
    if (!rc && s->host_row != SSD_NONE) {
        s->rows[s->host_row].ready = ssd_later(s->rows[s->host_row].ready, t);
        queue_host_row(s);
    }
    while (!rc && s->queued_rows)
        rc = ssd_sched_one(s, e);
    if (s->host_prog_end > before)
        *done = ssd_later(*done, s->host_prog_end);
    for (uint32_t d = 0; !rc && d < s->g.dies; d++) {
        struct ssd_row *row = &s->die[d].gc_row;
        uint64_t end;

        if (!row->open)
            continue;
        row->ready = ssd_later(row->ready, t);
        rc = ssd_program_row(s, row, &end, e);
        ssd_sched_update(s, d);
        *done = ssd_later(*done, end);
    }
    return rc;
}

/* ------------------------------------------------------------------ statistics */

void ssd_stats(const struct ssd *s, struct ssd_stats *st)
{
    *st = s->st;
    st->sq_waits = s->sq.waits;
    st->wbuf_waits = s->wbuf.waits;
    st->wbuf_wait_ps = s->wbuf.wait_ps;
    st->fw_busy_ps = s->fw.res.busy_ps;
    /* GC still running counts up to its cursor. */
    for (uint32_t d = 0; d < s->g.dies; d++)
        if (s->die[d].gc.active && s->die[d].gc.cursor > s->die[d].gc.t_start)
            st->gc_active_ps += s->die[d].gc.cursor - s->die[d].gc.t_start;
    st->last_end = ssd_later(st->last_end, ssd_serial_free_at(&s->fw));
}

void ssd_stats_sub(struct ssd_stats *out, const struct ssd_stats *a, const struct ssd_stats *b)
{
    const uint64_t *x = (const uint64_t *)(const void *)a, *y = (const uint64_t *)(const void *)b;
    uint64_t *o = (uint64_t *)(void *)out;

    for (size_t i = 0; i < SSD_STATS_COUNTERS; i++)
        o[i] = x[i] - y[i];
    out->last_end = a->last_end;
}

void ssd_stats_add(struct ssd_stats *acc, const struct ssd_stats *x)
{
    const uint64_t *y = (const uint64_t *)(const void *)x;
    uint64_t *o = (uint64_t *)(void *)acc;

    for (size_t i = 0; i < SSD_STATS_COUNTERS; i++)
        o[i] += y[i];
    acc->last_end = ssd_later(acc->last_end, x->last_end);
}

double ssd_stats_wa(const struct ssd_stats *st)
{
    return st->host_write_pages ? (double)st->prog_pages / (double)st->host_write_pages : 0.0;
}

double ssd_stats_mean_free(const struct ssd_stats *st)
{
    return st->host_write_pages ? (double)st->free_unit_sum / (double)st->host_write_pages : 0.0;
}
