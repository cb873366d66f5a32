/*
 * ssd_fast: the fast path of long sequential writes (ssd_write_chunks), the SSD's counterpart of
 * flash_fms_run_at (ssd_impl.h states the contract; models/ssd/README.md the argument).
 *
 * A run of whole rows at one time t, with garbage collection idle, repeats: every period (each
 * die given the same number of rows) moves the firmware, the write buffer's release times, the
 * queued rows and the FMS by the same delta. At each period boundary the state is snapshot; two
 * snapshots in a row that differ only by that shift (and by the rows the frontiers moved on),
 * with t setting no time (the submission queue never full, the firmware past t), prove that the
 * next periods repeat the last one: ssd_fast_skip then accounts k of them at once, exactly as
 * the page-by-page path would leave them, and replays what is not a shift (the map's entries,
 * the submission queue's slots) operation by operation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/ssd/ssd_impl.h"

/* What a snapshot keeps of a queued host row. */
struct fast_row {
    uint64_t ready;
    uint32_t unit, row, fill;
};

struct ssd_fast_snap {
    uint64_t *fms;             /* flash_fms_state_get */
    struct res fw;             /* the firmware */
    struct ssd_slots wbuf;     /* its counts and counters (the arrays are not this copy's) */
    struct ssd_release *w_rel; /* [wbuf.n]: the FIFO's entries oldest first, then the heap's */
    struct ssd_slots sq;       /* the same of the submission queue */
    struct ssd_release *q_rel;
    uint32_t *next_row, *unit, *q_len; /* [dies]: host frontier and queue of each die */
    struct fast_row *rows;             /* [n_rows]: queued rows, die by die, oldest first */
    uint32_t n_queued;
    struct fast_row host; /* the host row being filled (fill 0: none) */
    uint32_t host_die;
    struct ssd_stats st;
    uint64_t host_prog_end;
    uint32_t next_die;
    bool ok; /* a run boundary the fast path can use (no row filling, GC idle) */
};

static void snap_free(struct ssd_fast_snap *x)
{
    free(x->fms);
    free(x->w_rel);
    free(x->q_rel);
    free(x->next_row);
    free(x->unit);
    free(x->q_len);
    free(x->rows);
}

int ssd_fast_init(struct ssd *s, struct err *e)
{
    struct ssd_fast *f = &s->fast;
    size_t fms = flash_fms_state_len(s->fms);

    f->on = true;
    for (int i = 0; i < 2; i++) {
        struct ssd_fast_snap *x = calloc(1, sizeof(*x));

        f->snap[i] = x;
        if (!x)
            return err_set(e, -ENOMEM, "ssd: out of memory for the fast path");
        x->fms = malloc(fms * sizeof(*x->fms));
        x->w_rel = malloc(((size_t)s->wbuf.n + 1) * sizeof(*x->w_rel));
        x->q_rel = malloc(((size_t)s->sq.n + 1) * sizeof(*x->q_rel));
        x->next_row = malloc(s->g.dies * sizeof(*x->next_row));
        x->unit = malloc(s->g.dies * sizeof(*x->unit));
        x->q_len = malloc(s->g.dies * sizeof(*x->q_len));
        x->rows = malloc(s->n_rows * sizeof(*x->rows));
        if (!x->fms || !x->w_rel || !x->q_rel || !x->next_row || !x->unit || !x->q_len || !x->rows)
            return err_set(e, -ENOMEM, "ssd: out of memory for the fast path");
    }
    return 0;
}

void ssd_fast_fini(struct ssd *s)
{
    for (int i = 0; i < 2; i++) {
        if (s->fast.snap[i])
            snap_free(s->fast.snap[i]);
        free(s->fast.snap[i]);
        s->fast.snap[i] = NULL;
    }
    free(s->fast.t_page);
    s->fast.t_page = NULL;
}

/* ------------------------------------------------------------------ the run */

bool ssd_fast_begin(struct ssd *s, uint64_t lpn, uint64_t npages, uint32_t chunk, bool data)
{
    struct ssd_fast *f = &s->fast;
    uint64_t row_round = (uint64_t)s->g.dies * s->g.planes, a = row_round, b = chunk;

    f->period = 0;
    f->seen = 0;
    if (!f->on || data || s->payload || !chunk)
        return false;
    while (b) {
        uint64_t r = a % b;

        a = b;
        b = r;
    }
    /* A period: each die the same rows, a whole number of calls. */
    f->period = row_round / a * chunk;
    f->cpc = (chunk + s->g.cmd_pages - 1) / s->g.cmd_pages;
    f->cmds = f->period / chunk * f->cpc;
    f->rows_per_die = f->period / row_round;
    f->base = (chunk - lpn % chunk) % chunk;
    /* Two periods to see it repeat, one at least to skip. */
    if (npages < f->base || (npages - f->base) / f->period < 3) {
        f->period = 0;
        return false;
    }
    if (f->cmds > f->t_page_len) {
        uint64_t *t = realloc(f->t_page, f->cmds * sizeof(*t));

        if (!t) {
            f->period = 0; /* no memory for the fast path: the exact one needs none */
            return false;
        }
        f->t_page = t;
        f->t_page_len = f->cmds;
    }
    return true;
}

/* A pool of slots into x: its counts, counters and release times (FIFO first, oldest first). */
static void slots_take(const struct ssd_slots *w, struct ssd_slots *x, struct ssd_release *rel)
{
    *x = *w;
    for (uint32_t i = 0; i < w->f_len; i++)
        rel[i] = w->fifo[(w->f_head + i) % w->n];
    memcpy(rel + w->f_len, w->heap, w->entries * sizeof(*w->heap));
}

/* Whether pool c is pool p with every release time delta later. */
static bool slots_shifted(const struct ssd_slots *p, const struct ssd_release *pr,
                          const struct ssd_slots *c, const struct ssd_release *cr, uint64_t delta)
{
    if (c->pending != p->pending || c->held != p->held || c->entries != p->entries ||
        c->f_len != p->f_len)
        return false;
    for (uint32_t i = 0; i < c->f_len + c->entries; i++)
        if (cr[i].t - pr[i].t != delta || cr[i].n != pr[i].n)
            return false;
    return true;
}

/* The earliest release time of a pool (UINT64_MAX: none). */
static uint64_t slots_first(const struct ssd_slots *x, const struct ssd_release *rel)
{
    uint64_t t = UINT64_MAX;

    for (uint32_t i = 0; i < x->f_len + x->entries; i++)
        t = rel[i].t < t ? rel[i].t : t;
    return t;
}

/* The state at a period boundary into x. */
static void snap_take(struct ssd *s, struct ssd_fast_snap *x)
{
    uint32_t k = 0;

    x->ok = true;
    x->host = (struct fast_row){0, SSD_NONE, 0, 0};
    x->host_die = SSD_NONE;
    if (s->host_row != SSD_NONE) {
        const struct ssd_row *r = &s->rows[s->host_row];

        x->host = (struct fast_row){r->ready, r->unit, r->row, r->fill};
        x->host_die = r->die;
        x->ok = r->unit == s->die[r->die].host.unit;
    }
    flash_fms_state_get(s->fms, x->fms);
    x->fw = s->fw.res;
    slots_take(&s->wbuf, &x->wbuf, x->w_rel);
    /* The submission queue's release times matter only when it is full (a thousand of them:
     * not copied otherwise). */
    x->sq = s->sq;
    if (s->sq.held + s->sq.pending >= s->sq.n)
        slots_take(&s->sq, &x->sq, x->q_rel);
    x->n_queued = 0;
    for (uint32_t d = 0; d < s->g.dies; d++) {
        const struct ssd_die *y = &s->die[d];

        x->ok = x->ok && !y->gc.active && y->host.unit != SSD_NONE;
        x->next_row[d] = y->host.next_row;
        x->unit[d] = y->host.unit;
        x->q_len[d] = y->q_len;
        for (uint32_t i = y->q_head; i != SSD_NONE; i = s->rows[i].next) {
            const struct ssd_row *r = &s->rows[i];

            x->rows[k++] = (struct fast_row){r->ready, r->unit, r->row, r->fill};
        }
    }
    x->n_queued = k;
    x->st = s->st;
    x->host_prog_end = s->host_prog_end;
    x->next_die = s->next_die;
}

/* Whether cur is prev moved on by one period of delta (> 0). */
static bool repeats(const struct ssd *s, const struct ssd_fast_snap *p,
                    const struct ssd_fast_snap *c, uint64_t delta)
{
    const struct ssd_fast *f = &s->fast;

    if (c->fw.busy_until - p->fw.busy_until != delta || c->next_die != p->next_die ||
        c->n_queued != p->n_queued || c->st.last_end - p->st.last_end != delta ||
        c->host_prog_end - p->host_prog_end != delta ||
        flash_fms_state_delta(s->fms, p->fms, c->fms) != delta)
        return false;
    if (c->host_die != p->host_die || c->host.fill != p->host.fill ||
        c->host.unit != p->host.unit ||
        (c->host_die != SSD_NONE &&
         (c->host.ready - p->host.ready != delta || c->host.row - p->host.row != f->rows_per_die)))
        return false;
    if (!slots_shifted(&p->wbuf, p->w_rel, &c->wbuf, c->w_rel, delta))
        return false;
    for (uint32_t d = 0, k = 0; d < s->g.dies; d++) {
        if (c->unit[d] != p->unit[d] || c->q_len[d] != p->q_len[d] ||
            c->next_row[d] - p->next_row[d] != f->rows_per_die)
            return false;
        /* Every queued row is of the die's open unit: the programs of the next periods are
         * the next rows of the same blocks. */
        for (uint32_t i = 0; i < c->q_len[d]; i++, k++)
            if (c->rows[k].ready - p->rows[k].ready != delta ||
                c->rows[k].fill != p->rows[k].fill || c->rows[k].unit != c->unit[d] ||
                p->rows[k].unit != c->unit[d] || c->rows[k].row - p->rows[k].row != f->rows_per_die)
                return false;
    }
    return true;
}

uint64_t ssd_fast_at(struct ssd *s, uint64_t t, uint64_t max)
{
    struct ssd_fast *f = &s->fast;
    struct ssd_fast_snap *p, *c;
    uint64_t delta, k = max;
    uint32_t slot = f->seen ? f->cur ^ 1 : 0;

    if (!max)
        return 0;
    c = f->snap[slot];
    snap_take(s, c);
    p = f->snap[f->cur];
    f->cur = slot;
    if (!c->ok) {
        f->seen = 0;
        return 0;
    }
    if (!f->seen++)
        return 0;
    /* t sets no time: the firmware (every page waits for it) is past t; the submission queue
     * either was never full (every command started at t) or is full and repeats too, every
     * release after t (every command starts at a release). */
    delta = c->fw.busy_until - p->fw.busy_until;
    if (p->fw.busy_until < t || !delta || c->fw.busy_until < p->fw.busy_until ||
        !repeats(s, p, c, delta))
        return 0;
    f->sq_full = p->sq.held + p->sq.pending >= p->sq.n && c->sq.held + c->sq.pending >= c->sq.n &&
                 slots_shifted(&p->sq, p->q_rel, &c->sq, c->q_rel, delta) &&
                 slots_first(&p->sq, p->q_rel) > t;
    if (!f->sq_full && c->sq.waits != p->sq.waits)
        return 0;
    /* Limits: no unit fills (its last row is not handed out), the queue never fills. */
    for (uint32_t d = 0; d < s->g.dies && k; d++) {
        uint64_t left = s->g.rows - 1 - c->next_row[d];

        if (left / f->rows_per_die < k)
            k = left / f->rows_per_die;
        /* A block's first program sets no more than its write pointer on the exact path. */
        for (uint32_t pl = 0; pl < s->g.planes && k; pl++)
            if (!flash_fms_block(s->fms, d, pl, c->unit[d] % s->g.units_per_die)->wp)
                k = 0;
    }
    if (!f->sq_full && (s->sq.held + s->sq.pending + k * f->cmds) > s->sq.n)
        k = (s->sq.n - s->sq.held - s->sq.pending) / f->cmds;
    f->delta = delta;
    return k;
}

void ssd_fast_skip(struct ssd *s, uint64_t t, uint64_t lpn, uint64_t k, uint64_t *end)
{
    struct ssd_fast *f = &s->fast;
    const struct ssd_fast_snap *p = f->snap[f->cur ^ 1];
    struct ssd_fast_snap *c = f->snap[f->cur];
    uint64_t shift = k * f->delta;
    struct ssd_slots *w = &s->wbuf;
    uint32_t planes = s->g.planes, dies = s->g.dies;

    /* The map: the skipped pages fill the host row, then rows die after die from next_die,
     * as buffer_page hands them out. */
    {
        uint32_t d = c->host_die, row = c->host.row, fill = c->host.fill, next_die = c->next_die;
        uint32_t *next_row = c->next_row; /* the snapshot's copy: not needed after this */

        for (uint64_t i = 0; i < k * f->period; i++) {
            if (d == SSD_NONE || fill == planes) {
                d = next_die;
                next_die = next_die + 1 == dies ? 0 : next_die + 1;
                row = next_row[d]++;
                fill = 0;
            }
            ssd_map_write(&s->map, lpn++, c->unit[d] * s->g.unit_pages + row * planes + fill++);
        }
    }
    /* The submission queue, replayed: every command takes a slot at t (at a release when the
     * queue is full) and holds it to its last page. */
    for (uint64_t m = 1; m <= k; m++)
        for (uint64_t j = 0; j < f->cmds; j++) {
            uint64_t at = f->t_page[j] + m * f->delta;

            ssd_slots_take(&s->sq, t);
            ssd_slots_hold(&s->sq, at, 1);
            *end = ssd_later(*end, at);
        }
    /* Frontiers, queued rows and the blocks' write pointers move on; the FMS shifts. */
    for (uint32_t d = 0; d < dies; d++) {
        struct ssd_die *x = &s->die[d];
        uint32_t rows = (uint32_t)(k * f->rows_per_die);

        x->host.next_row += rows;
        if (s->host_row != SSD_NONE && s->rows[s->host_row].die == d) {
            s->rows[s->host_row].row += rows;
            s->rows[s->host_row].ready += shift;
        }
        for (uint32_t i = x->q_head; i != SSD_NONE; i = s->rows[i].next) {
            s->rows[i].row += rows;
            s->rows[i].ready += shift;
        }
        for (uint32_t pl = 0; pl < planes; pl++) {
            uint32_t b = x->host.unit % s->g.units_per_die;

            flash_fms_set_wp(s->fms, d, pl, b, flash_fms_block(s->fms, d, pl, b)->wp + rows, 0);
        }
    }
    flash_fms_state_advance(s->fms, p->fms, c->fms, k, f->delta);
    /* The firmware and the write buffer shift; counters gain k periods' worth. */
    s->fw.res.busy_until += shift;
    s->fw.res.busy_ps += k * (c->fw.busy_ps - p->fw.busy_ps);
    s->fw.res.n_ops += k * (c->fw.n_ops - p->fw.n_ops);
    for (uint32_t i = 0; i < w->f_len; i++)
        w->fifo[(w->f_head + i) % w->n].t += shift;
    for (uint32_t i = 0; i < w->entries; i++)
        w->heap[i].t += shift;
    w->waits += k * (c->wbuf.waits - p->wbuf.waits);
    w->wait_ps += k * (c->wbuf.wait_ps - p->wbuf.wait_ps);
    {
        const uint64_t *a = (const uint64_t *)(const void *)&c->st;
        const uint64_t *b = (const uint64_t *)(const void *)&p->st;
        uint64_t *o = (uint64_t *)(void *)&s->st;

        for (size_t i = 0; i < SSD_STATS_COUNTERS; i++)
            o[i] = a[i] + k * (a[i] - b[i]);
    }
    s->st.last_end = c->st.last_end + shift;
    s->host_prog_end = c->host_prog_end + shift;
    for (uint32_t d = 0; d < dies; d++)
        ssd_sched_update(s, d);
    f->rows_skipped += k * f->period / planes;
    f->seen = 0;
}
