/*
 * The per-die scheduler of struct ssd and its garbage collector (ssd.h says what is modelled).
 *
 * NAND operations are issued to flash_fms in the order of their start times, so that the
 * busy-until resources they share (the channel of two dies, the firmware) are reserved in time
 * order: each die knows its next operation and when it could start (max(ready, die free)); the
 * scheduler issues the earliest one over all dies, again and again, up to the time of the host
 * call being served. A die's next operation is its oldest queued host row program, unless the
 * GC's next step could start earlier, or the GC is forced (then the GC step goes first).
 * A GC step: pick a victim if none (greedy), read the valid pages of its next row with one
 * multi-plane read, charge the firmware for each page, and move them into the die's GC row,
 * programmed at once when full; or, with no valid page left, erase the victim.
 */
#include <errno.h>
#include <string.h>

#include "models/ssd/ssd_impl.h"

/* ------------------------------------------------------------------ which die, what, when */

/* Die d's start changed: replay its matches up the tournament (the lower die wins a tie, as
 * the left half of every match holds the lower dies). */
static void replay(struct ssd *s, uint32_t d)
{
    for (uint32_t i = (s->n_leaf + d) / 2; i >= 1; i /= 2) {
        uint32_t a = s->win[2 * i], b = s->win[2 * i + 1];

        s->win[i] = s->next_start[b] < s->next_start[a] ? b : a;
    }
}

void ssd_sched_update(struct ssd *s, uint32_t d)
{
    struct ssd_die *x = &s->die[d];
    const struct flash_die *fd = flash_fms_die(s->fms, d);
    /* A program's data-in may start when the register is free (cache program); a read or an
     * erase needs the array too. */
    uint64_t f_prog = fd->reg_free_at, f_rd = ssd_later(fd->busy_until, fd->reg_free_at);
    uint64_t t_host = 0, t_gc = 0;
    bool host = x->q_len > 0, gc = x->gc.active;

    if (host)
        t_host = ssd_later(s->rows[x->q_head].ready, f_prog);
    if (gc)
        t_gc = ssd_later(x->gc.cursor, f_rd);
    uint64_t next;

    if (gc && (x->gc.forced || !host || t_gc < t_host)) {
        x->next_op = SSD_OP_GC_STEP;
        next = t_gc;
    } else if (host) {
        x->next_op = SSD_OP_HOST_PROGRAM;
        next = t_host;
    } else {
        x->next_op = SSD_OP_NONE;
        next = UINT64_MAX;
    }
    if (next != s->next_start[d]) {
        s->next_start[d] = next;
        replay(s, d);
    }
}

/* The die whose next operation starts first (the lowest of those that tie), SSD_NONE if none
 * has one. */
static uint32_t earliest_die(const struct ssd *s)
{
    uint32_t best = s->win[1];

    return s->next_start[best] == UINT64_MAX ? SSD_NONE : best;
}

/* ------------------------------------------------------------------ GC */

static void gc_start(struct ssd *s, uint32_t d, uint64_t t)
{
    struct ssd_gc *g = &s->die[d].gc;

    g->active = true;
    g->cursor = t;
    g->t_start = t;
}

static void gc_stop(struct ssd *s, uint32_t d, uint64_t t)
{
    struct ssd_gc *g = &s->die[d].gc;

    g->active = false;
    s->st.gc_active_ps += t > g->t_start ? t - g->t_start : 0;
}

void ssd_gc_kick(struct ssd *s, uint32_t d, uint64_t t)
{
    if (!s->die[d].gc.active && s->map.n_free[d] < s->cfg.gc_free_low) {
        gc_start(s, d, t);
        ssd_sched_update(s, d);
    }
}

/* A page moved from old (its bytes at data in functional mode), ready at t, joins the die's
 * GC row, which is programmed as soon as it is full. */
static int gc_put(struct ssd *s, uint32_t d, uint32_t old, const unsigned char *data, uint64_t t,
                  struct err *e)
{
    struct ssd_row *row = &s->die[d].gc_row;
    uint64_t done;
    uint32_t ppn;
    int rc;

    if (!row->open) {
        rc = ssd_open_row(s, d, true, t, row, e);
        if (rc)
            return rc;
    }
    ppn = row->unit * s->g.unit_pages + row->row * s->g.planes + row->fill;
    ssd_map_move(&s->map, ssd_map_lpn(&s->map, old), old, ppn);
    if (data)
        memcpy(row->buf + (size_t)row->fill * s->page_bytes, data, s->page_bytes);
    row->fill++;
    row->ready = ssd_later(row->ready, t);
    if (row->fill == s->g.planes)
        return ssd_program_row(s, row, &done, e);
    return 0;
}

/* The planes of row `row` of unit u that hold valid pages. */
static uint32_t valid_mask(const struct ssd *s, uint32_t u, uint32_t row)
{
    uint32_t base = u * s->g.unit_pages + row * s->g.planes, mask = 0;

    /* The victim's reverse map is read row after row: ask for the rows ahead early. */
    if (row + 4 < s->g.rows)
        __builtin_prefetch(&s->map.p2l[base + 4 * s->g.planes]);

    for (uint32_t p = 0; p < s->g.planes; p++)
        if (s->map.p2l[base + p])
            mask |= 1u << p;
    return mask;
}

static int erase_victim(struct ssd *s, uint32_t d, uint64_t t, struct err *e)
{
    struct ssd_gc *g = &s->die[d].gc;
    struct flash_mpop op = {.die = d, .plane_mask = (uint32_t)((1ull << s->g.planes) - 1)};
    uint64_t done;
    int rc;

    for (uint32_t p = 0; p < s->g.planes; p++)
        op.block[p] = g->victim % s->g.units_per_die;
    rc = flash_fms_erase(s->fms, t, &op, &done, e);
    if (rc)
        return err_prefix(e, rc, "ssd: GC erasing unit %u", g->victim);
    ssd_map_release(&s->map, g->victim);
    g->victim = SSD_NONE;
    g->cursor = t;
    s->st.gc_erases++;
    s->st.last_end = ssd_later(s->st.last_end, done);
    if (s->map.n_free[d] >= s->cfg.gc_free_high && !g->forced)
        gc_stop(s, d, t);
    return 0;
}

/* Read the valid pages of row `row` of the victim with one multi-plane read from t, charge the
 * firmware for each and move them to the GC row. */
static int move_row(struct ssd *s, uint32_t d, uint32_t row, uint32_t mask, uint64_t t,
                    struct err *e)
{
    struct ssd_gc *g = &s->die[d].gc;
    void *bufs[FLASH_MAX_PLANES] = {0};
    struct flash_mpop op = {.die = d, .plane_mask = mask, .page = row};
    uint32_t base = g->victim * s->g.unit_pages + row * s->g.planes;
    uint64_t t_read;
    int rc;

    for (uint32_t p = 0; p < s->g.planes; p++) {
        op.block[p] = g->victim % s->g.units_per_die;
        if (s->payload)
            bufs[p] = s->gc_buf + (size_t)p * s->page_bytes;
        /* The map entries of the moved pages are scattered: fetch them all at once. */
        if (mask & (1u << p))
            ssd_map_prefetch(&s->map, ssd_map_lpn(&s->map, base + p));
    }
    rc = flash_fms_read(s->fms, t, &op, s->payload ? bufs : NULL, &t_read, e);
    if (rc)
        return err_prefix(e, rc, "ssd: GC reading unit %u row %u", g->victim, row);
    for (uint32_t p = 0; !rc && p < s->g.planes; p++) {
        uint64_t t_fw;

        if (!(mask & (1u << p)))
            continue;
        /* The firmware handles the move when it issues the read (its time stays near now). */
        t_fw = ssd_serial_claim(&s->fw, t, s->cfg.t_fw_gc_ps);
        rc = gc_put(s, d, base + p, bufs[p], ssd_later(t_read, t_fw), e);
        s->st.gc_pages++;
    }
    g->vrow = row + 1;
    g->cursor = t_read;
    return rc;
}

/* One step of die d's GC from t: pick a victim, then move one row of it or erase it. */
static int gc_step(struct ssd *s, uint32_t d, uint64_t t, struct err *e)
{
    struct ssd_gc *g = &s->die[d].gc;
    uint32_t mask = 0, row;

    if (g->victim == SSD_NONE) {
        g->victim = ssd_map_pick_victim(&s->map, d);
        if (g->victim == SSD_NONE) {
            gc_stop(s, d, t);
            return g->forced ? err_set(e, -ENOSPC,
                                       "ssd: die %u has %u free units and GC found no "
                                       "unit to collect",
                                       d, s->map.n_free[d])
                             : 0;
        }
        g->vrow = 0;
        s->st.gc_victims++;
    }
    for (row = g->vrow; row < s->g.rows; row++) {
        mask = valid_mask(s, g->victim, row);
        if (mask)
            break;
    }
    if (!mask)
        return erase_victim(s, d, t, e);
    return move_row(s, d, row, mask, t, e);
}

/* ------------------------------------------------------------------ host rows */

static int host_program(struct ssd *s, uint32_t d, struct err *e)
{
    struct ssd_die *x = &s->die[d];
    uint32_t i = x->q_head;
    struct ssd_row *row = &s->rows[i];
    uint64_t done;
    int rc;

    x->q_head = row->next;
    if (--x->q_len == 0)
        x->q_tail = SSD_NONE;
    s->queued_rows--;
    rc = ssd_program_row(s, row, &done, e);
    if (row->fill)
        ssd_slots_hold(&s->wbuf, done, row->fill);
    s->host_prog_end = ssd_later(s->host_prog_end, done);
    row->next = s->free_rows;
    s->free_rows = i;
    return rc;
}

/* ------------------------------------------------------------------ the loop */

static int run_die(struct ssd *s, uint32_t d, struct err *e)
{
    struct ssd_die *x = &s->die[d];
    int rc = x->next_op == SSD_OP_HOST_PROGRAM ? host_program(s, d, e)
                                               : gc_step(s, d, s->next_start[d], e);

    ssd_sched_update(s, d);
    return rc;
}

int ssd_sched_until(struct ssd *s, uint64_t t, struct err *e)
{
    for (;;) {
        uint32_t d = earliest_die(s);
        int rc;

        if (d == SSD_NONE || s->next_start[d] >= t)
            return 0;
        rc = run_die(s, d, e);
        if (rc)
            return rc;
    }
}

int ssd_sched_one(struct ssd *s, struct err *e)
{
    uint32_t d = earliest_die(s);

    if (d == SSD_NONE)
        return err_set(e, -EDEADLK, "ssd: waiting for a NAND operation, but no die has one");
    return run_die(s, d, e);
}

int ssd_gc_make_room(struct ssd *s, uint32_t d, uint64_t t, struct err *e)
{
    struct ssd_gc *g = &s->die[d].gc;
    uint64_t victims;
    int rc = 0;

    if (s->map.n_free[d] > s->cfg.gc_free_urgent)
        return 0;
    s->st.gc_forced++;
    if (!g->active)
        gc_start(s, d, t);
    g->forced = true;
    ssd_sched_update(s, d);
    /* Everything runs in time order, the die's GC first on it, until the die has room. A GC
     * that collects every unit of the die without gaining one is stuck (ssd_cfg_validate keeps
     * the units held by buffered pages too few for that): say so rather than spin. */
    victims = s->st.gc_victims;
    while (!rc && s->map.n_free[d] <= s->cfg.gc_free_urgent) {
        if (s->st.gc_victims - victims > 2ull * s->g.units)
            rc = err_set(e, -ENOSPC,
                         "ssd: forced GC on die %u collected %llu units without freeing "
                         "one: the valid data leave no unit to gain",
                         d, (unsigned long long)(s->st.gc_victims - victims));
        else
            rc = ssd_sched_one(s, e);
    }
    g->forced = false;
    s->st.gc_forced_ps += g->cursor > t ? g->cursor - t : 0;
    if (!rc && s->map.n_free[d] >= s->cfg.gc_free_high && g->victim == SSD_NONE && g->active)
        gc_stop(s, d, g->cursor);
    ssd_sched_update(s, d);
    return rc;
}
