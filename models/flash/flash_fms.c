#include "models/flash/flash_fms.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Counters per die and per channel in a timing snapshot (snap_walk). */
#define DIE_CNTS  5
#define CHAN_CNTS 4

struct flash_fms {
    struct flash_cfg cfg;
    uint32_t n_dies;
    struct flash_die *die;
    struct flash_block *blocks; /* every die's blocks, [block][die][plane] (flash_die.h) */
    struct flash_chan *chan;
    struct res ctrl;
    /* Fast path of long transfers (flash_fms_run_*). */
    bool fast;                 /* on: asked for and the faults allow it */
    bool want_fast;            /* asked for (flash_fms_set_fast) */
    struct flash_mpop last_rd; /* the last read: the fast path's RBER is its first block's */
    struct flash_mpop last_wr; /* the last program: the fast path's wear-out is its block's */
    uint64_t last_rd_at;
    uint64_t n_now_bound;      /* programs and reads whose start was set by the time asked for */
    uint64_t slack;            /* least margin by which such a time was early, since the last
                                * stripe boundary */
    uint64_t fast_stripes;     /* stripes accounted without simulating them */
    size_t n_times, n_cnts;    /* lengths of a timing snapshot's two parts */
    uint64_t *snap;            /* [2][n_times + n_cnts]: the state at the last two boundaries */
    uint64_t *inc;             /* [n_cnts]: what the counters gained over the last stripe */
    struct flash_fault *fault; /* bit errors, ECC and injected faults; NULL: none */
    uint64_t n_fail_program;   /* program failures injected on blocks (they stay checked) */
};

int flash_fms_create(const struct flash_cfg *cfg, struct flash_fms **out, struct err *e)
{
    struct flash_fms *f;
    uint32_t i, planes;
    size_t blocks;
    int rc;

    *out = NULL;
    rc = flash_cfg_validate(cfg, e);
    if (rc)
        return rc;
    f = calloc(1, sizeof(*f));
    if (!f)
        return err_set(e, -ENOMEM, "flash fms: out of memory");
    f->cfg = *cfg;
    f->n_dies = flash_geom_dies(&cfg->geom);
    planes = cfg->geom.planes_per_die;
    blocks = (size_t)f->n_dies * planes * cfg->geom.blocks_per_plane;
    f->fast = f->want_fast = true;
    f->slack = UINT64_MAX;
    f->n_times = (size_t)f->n_dies * (2 + cfg->geom.planes_per_die) + cfg->geom.channels;
    f->n_cnts = (size_t)f->n_dies * DIE_CNTS + (size_t)cfg->geom.channels * CHAN_CNTS;
    f->chan = calloc(cfg->geom.channels, sizeof(*f->chan));
    f->die = calloc(f->n_dies, sizeof(*f->die));
    f->blocks = calloc(blocks, sizeof(*f->blocks));
    f->snap = calloc(2 * (f->n_times + f->n_cnts), sizeof(*f->snap));
    f->inc = calloc(f->n_cnts, sizeof(*f->inc));
    if (!f->chan || !f->die || !f->blocks || !f->snap || !f->inc) {
        rc = err_set(e, -ENOMEM, "flash fms: out of memory for %u dies", f->n_dies);
        goto out_free;
    }
    for (i = 0; i < cfg->geom.channels; i++)
        flash_chan_init(&f->chan[i], cfg);
    for (i = 0; i < f->n_dies; i++)
        flash_die_init_shared(&f->die[i], cfg, i, f->blocks + (size_t)i * planes,
                              (size_t)f->n_dies * planes);
    if ((rc = flash_fms_set_faults(f, &cfg->fault, e))) {
        for (i = 0; i < f->n_dies; i++)
            flash_die_fini(&f->die[i]);
        goto out_free;
    }
    *out = f;
    return 0;

out_free:
    free(f->inc);
    free(f->snap);
    free(f->blocks);
    free(f->die);
    free(f->chan);
    free(f);
    return rc;
}

void flash_fms_destroy(struct flash_fms *f)
{
    if (!f)
        return;
    for (uint32_t i = 0; i < f->n_dies; i++)
        flash_die_fini(&f->die[i]);
    flash_fault_destroy(f->fault);
    free(f->inc);
    free(f->snap);
    free(f->blocks);
    free(f->die);
    free(f->chan);
    free(f);
}

const struct flash_cfg *flash_fms_cfg(const struct flash_fms *f)
{
    return &f->cfg;
}

uint32_t flash_fms_dies(const struct flash_fms *f)
{
    return f->n_dies;
}

static int check_die(struct flash_fms *f, const char *op, const struct flash_mpop *o, struct err *e)
{
    if (o->die < f->n_dies)
        return 0;
    return err_set(e, -EINVAL,
                   "flash %s refused: die index %u is out of range; accepted 0..%u "
                   "(%u channels x %u chips x %u dies)",
                   op, o->die, f->n_dies - 1, f->cfg.geom.channels, f->cfg.geom.chips_per_chan,
                   f->cfg.geom.dies_per_chip);
}

static struct flash_chan *chan_of(struct flash_fms *f, uint32_t die)
{
    return &f->chan[die % f->cfg.geom.channels];
}

/*
 * An operation asked for at now on a die whose own state lets it start at ready: for the fast
 * path of long transfers, did now set the start, and if not, by how much was it early.
 */
static void note_ready(struct flash_fms *f, uint64_t now, uint64_t ready)
{
    if (now > ready)
        f->n_now_bound++;
    else if (ready - now < f->slack)
        f->slack = ready - now;
}

/* Split a multi-plane request into single-plane operations when the switch is off. */
typedef int (*op_fn)(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                     const void *data, uint64_t *done, struct err *e);

/* ------------------------------------------------------------------ faults (flash_fault) */

/* 0 when the die answers at t (its channel and power too). */
static int alive(struct flash_fms *f, uint32_t die, uint64_t t, struct err *e)
{
    return flash_fault_alive(f->fault, die % f->cfg.geom.channels, die / f->cfg.geom.channels, t,
                             e);
}

/* After a program that began its data-in at t_in: each block's first page dates its data, and
 * an injected program failure (drawn at the fault model's rate, or set on the block by
 * flash_fms_inject_program_fail) retires the block (-EIO naming it). */
static int program_faults(struct flash_fms *f, const struct flash_mpop *op, uint64_t t_in,
                          struct err *e)
{
    struct flash_die *d = &f->die[op->die];

    for (uint32_t p = 0; p < d->planes; p++) {
        struct flash_block *b;
        bool fails;
        if (!(op->plane_mask >> p & 1))
            continue;
        b = flash_die_block(d, p, op->block[p]);
        if (b->wp == 1)
            b->prog_ps = t_in;
        fails = b->fail_program;
        b->fail_program = 0;
        if (f->fault && flash_fault_program_fails(f->fault, b->pe, f->cfg.geom.pages_per_block))
            fails = true;
        if (fails) {
            b->bad = 1;
            return err_set(e, -EIO,
                           "program failed (injected fault): channel %u, die %u, plane %u, "
                           "block %u, page %u; the block is retired as bad",
                           op->die % f->cfg.geom.channels, op->die / f->cfg.geom.channels, p,
                           op->block[p], op->page);
        }
    }
    return 0;
}

/*
 * After a read whose data were out at *done: the ECC decodes each page at its RBER (its
 * block's P/E cycles, its data's age at now); a page that fails is read again with shifted
 * voltages, the whole operation (tR and the data-out) once per retry the worst page needs.
 * -EBADMSG naming the page when one fails every retry (the code Linux's MTD layer gives an
 * uncorrectable ECC error), so a caller can tell lost data from a failed operation.
 */
static int read_retries(struct flash_fms *f, const struct flash_mpop *op, uint64_t now,
                        uint64_t *done, struct err *e)
{
    struct flash_die *d = &f->die[op->die];
    struct flash_chan *ch = chan_of(f, op->die);
    uint32_t n = (uint32_t)__builtin_popcount(op->plane_mask);
    int worst = 0;
    uint64_t t0 = *done;

    for (uint32_t p = 0; p < d->planes; p++) {
        const struct flash_block *b;
        double age, r;
        int k;
        if (!(op->plane_mask >> p & 1))
            continue;
        b = flash_die_block_c(d, p, op->block[p]);
        age = now > b->prog_ps ? (double)(now - b->prog_ps) * 1e-12 : 0.0;
        r = flash_fault_rber(f->fault, b->pe, age);
        k = flash_fault_read(f->fault, d->page_bytes, r);
        if (k < 0)
            return err_set(e, -EBADMSG,
                           "uncorrectable read: channel %u, die %u, plane %u, block %u, page %u "
                           "(%u P/E cycles, data %.3g s old, RBER %.3g) failed the ECC after "
                           "every read retry",
                           op->die % f->cfg.geom.channels, op->die / f->cfg.geom.channels, p,
                           op->block[p], op->page, b->pe, age, r);
        if (k > worst)
            worst = k;
    }
    for (int i = 0; i < worst; i++) {
        uint64_t t_arr =
            flash_die_array(d, flash_chan_cmd(ch, *done, n), op->plane_mask, f->cfg.tim.t_r_ps);
        *done = d->reg_free_at = flash_chan_data_out(ch, t_arr, n);
    }
    flash_fault_add_retry_time(f->fault, *done - t0);
    return 0;
}

int flash_fms_set_faults(struct flash_fms *f, const struct flash_fault_cfg *c, struct err *e)
{
    struct flash_fault *x = NULL;
    int rc = c && c->on ? flash_fault_create(c, &x, e) : 0;

    if (rc)
        return rc;
    flash_fault_destroy(f->fault);
    f->fault = x;
    flash_fms_set_fast(f, f->want_fast);
    return 0;
}

bool flash_fms_fault_stats(const struct flash_fms *f, struct flash_fault_stats *s)
{
    if (!f->fault)
        return false;
    flash_fault_get_stats(f->fault, s);
    return true;
}

bool flash_fms_worn_out(struct flash_fms *f, uint32_t die, uint32_t plane, uint32_t block)
{
    struct flash_block *b;

    if (!f->fault || die >= f->n_dies || plane >= f->cfg.geom.planes_per_die ||
        block >= f->cfg.geom.blocks_per_plane)
        return false;
    b = flash_die_block(&f->die[die], plane, block);
    if (b->bad || !flash_fault_worn_out(f->fault, b->pe))
        return false;
    b->bad = 1;
    return true;
}

static int one_program(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                       const void *data, uint64_t *done, struct err *e)
{
    const void *const *pages = data;
    struct flash_die *d = &f->die[op->die];
    uint32_t n = (uint32_t)__builtin_popcount(op->plane_mask);
    uint64_t t_in, t_end;
    int rc;

    if (f->fault && (rc = alive(f, op->die, now, e)))
        return rc;
    rc = flash_die_program(d, op->plane_mask, op->block, op->page, pages, e);
    if (rc)
        return rc;
    note_ready(f, now, d->reg_free_at);
    t_in = flash_chan_data_in(chan_of(f, op->die), res_later(now, d->reg_free_at), n);
    t_end = flash_die_array(d, t_in, op->plane_mask, f->cfg.tim.t_prog_ps);
    d->reg_free_at = f->cfg.sw.cache_program ? t_end - f->cfg.tim.t_prog_ps : t_end;
    *done = t_end;
    if (f->fault)
        f->last_wr = *op;
    return f->fault || f->n_fail_program ? program_faults(f, op, t_in, e) : 0;
}

static int one_read(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                    const void *data, uint64_t *done, struct err *e)
{
    void *const *bufs = (void *const *)data;
    struct flash_die *d = &f->die[op->die];
    struct flash_chan *ch = chan_of(f, op->die);
    uint32_t n = (uint32_t)__builtin_popcount(op->plane_mask);
    uint64_t t0, t_arr, ready;
    int rc;

    if (f->fault && (rc = alive(f, op->die, now, e)))
        return rc;
    rc = flash_die_read(d, op->plane_mask, op->block, op->page, bufs, e);
    if (rc)
        return rc;
    /* The command waits for the channel too (when it has command cycles), so now sets the
     * start only when it is later than the die, its register and the channel. */
    ready = res_later(d->busy_until, d->reg_free_at);
    if (f->cfg.tim.t_cmd_ps)
        ready = res_later(ready, ch->bus.busy_until);
    note_ready(f, now, ready);
    t0 = res_later(res_later(now, d->busy_until), d->reg_free_at);
    t_arr = flash_die_array(d, flash_chan_cmd(ch, t0, n), op->plane_mask, f->cfg.tim.t_r_ps);
    d->reg_free_at = flash_chan_data_out(ch, t_arr, n);
    *done = d->reg_free_at;
    if (!f->fault)
        return 0;
    f->last_rd = *op;
    f->last_rd_at = now;
    return read_retries(f, op, now, done, e);
}

static int one_erase(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                     const void *data, uint64_t *done, struct err *e)
{
    struct flash_die *d = &f->die[op->die];
    uint32_t n = (uint32_t)__builtin_popcount(op->plane_mask);
    uint64_t t0;
    int rc;

    (void)data;
    if (f->fault && (rc = alive(f, op->die, now, e)))
        return rc;
    /* wear-out: a block that fails its erase is retired by the die (as an injected failure) */
    for (uint32_t p = 0; f->fault && p < d->planes; p++) {
        struct flash_block *b;
        if (!(op->plane_mask >> p & 1) || op->block[p] >= f->cfg.geom.blocks_per_plane)
            continue;
        b = flash_die_block(d, p, op->block[p]);
        if (!b->bad && flash_fault_erase_fails(f->fault, b->pe))
            b->fail_erase = 1;
    }
    rc = flash_die_erase(d, op->plane_mask, op->block, e);
    if (rc && rc != -EIO)
        return rc;
    t0 = res_later(res_later(now, d->busy_until), d->reg_free_at);
    d->reg_free_at = flash_die_array(d, flash_chan_cmd(chan_of(f, op->die), t0, n), op->plane_mask,
                                     f->cfg.tim.t_bers_ps);
    *done = d->reg_free_at;
    return rc;
}

static int run(struct flash_fms *f, const char *name, op_fn fn, uint64_t now,
               const struct flash_mpop *op, const void *data, uint64_t *done, struct err *e)
{
    struct flash_mpop one;
    uint64_t t, end = now;
    int rc, first_rc = 0;

    rc = check_die(f, name, op, e);
    if (rc)
        return rc;
    if (f->cfg.sw.multi_plane || !(op->plane_mask & (op->plane_mask - 1)))
        return fn(f, now, op, data, done, e);
    /* Multi-plane off: plane by plane, in plane order, each waiting for the previous. */
    one = *op;
    for (uint32_t p = 0; p < f->cfg.geom.planes_per_die && p < 32; p++) {
        if (!(op->plane_mask & (1u << p)))
            continue;
        one.plane_mask = 1u << p;
        rc = fn(f, now, &one, data, &t, e);
        /* A failed erase still took its time; the other planes are still erased (and read). */
        if (rc == -EIO || rc == -EBADMSG) {
            if (!first_rc)
                first_rc = rc;
        } else if (rc) {
            return rc;
        }
        end = res_later(end, t);
    }
    *done = end;
    return first_rc;
}

int flash_fms_program(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                      const void *const *data, uint64_t *done, struct err *e)
{
    return run(f, "program", one_program, now, op, data, done, e);
}

int flash_fms_read(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                   void *const *bufs, uint64_t *done, struct err *e)
{
    return run(f, "read", one_read, now, op, bufs, done, e);
}

int flash_fms_erase(struct flash_fms *f, uint64_t now, const struct flash_mpop *op, uint64_t *done,
                    struct err *e)
{
    return run(f, "erase", one_erase, now, op, NULL, done, e);
}

static int addr_op(struct flash_fms *f, const struct flash_addr *a, struct flash_mpop *op,
                   struct err *e)
{
    int rc = flash_addr_check(&f->cfg.geom, a, e);

    if (rc)
        return rc;
    memset(op, 0, sizeof(*op));
    op->die = flash_addr_die_index(&f->cfg.geom, a);
    op->plane_mask = 1u << a->plane;
    op->page = a->page;
    op->block[a->plane] = a->block;
    return 0;
}

int flash_fms_program_page(struct flash_fms *f, uint64_t now, const struct flash_addr *a,
                           const void *data, uint64_t *done, struct err *e)
{
    const void *pages[FLASH_MAX_PLANES] = {0};
    struct flash_mpop op;
    int rc = addr_op(f, a, &op, e);

    if (rc)
        return rc;
    pages[a->plane] = data;
    return flash_fms_program(f, now, &op, pages, done, e);
}

int flash_fms_read_page(struct flash_fms *f, uint64_t now, const struct flash_addr *a, void *buf,
                        uint64_t *done, struct err *e)
{
    void *bufs[FLASH_MAX_PLANES] = {0};
    struct flash_mpop op;
    int rc = addr_op(f, a, &op, e);

    if (rc)
        return rc;
    bufs[a->plane] = buf;
    return flash_fms_read(f, now, &op, bufs, done, e);
}

int flash_fms_erase_block(struct flash_fms *f, uint64_t now, const struct flash_addr *a,
                          uint64_t *done, struct err *e)
{
    struct flash_mpop op;
    char buf[96];
    int rc;

    if (a->page != 0)
        return err_set(e, -EINVAL,
                       "flash erase refused at %s: NAND erases whole blocks; accepted "
                       "page 0 (the block address), got page %u",
                       flash_addr_fmt(a, buf, sizeof(buf)), a->page);
    rc = addr_op(f, a, &op, e);
    if (rc)
        return rc;
    return flash_fms_erase(f, now, &op, done, e);
}

void flash_fms_ctrl_cmd(struct flash_fms *f, uint64_t now, bool write, uint64_t *done)
{
    *done = res_claim(&f->ctrl, now, write ? f->cfg.tim.t_ctrl_wr_ps : f->cfg.tim.t_ctrl_rd_ps);
}

/* ------------------------------------------------------------------ long transfers */

void flash_fms_set_fast(struct flash_fms *f, bool on)
{
    /* Bit errors and wear-out are drawn in runs on the fast path (flash_fault_clean_run,
     * flash_fault_clean_programs); injected failures (a program rate, dies, channels, power)
     * operation by operation. */
    f->want_fast = on;
    f->fast = on && (!f->fault || flash_fault_fast_ok(f->fault));
}

bool flash_fms_fast(const struct flash_fms *f)
{
    return f->fast;
}

uint64_t flash_fms_fast_stripes(const struct flash_fms *f)
{
    return f->fast_stripes;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;

        a = b;
        b = t;
    }
    return a;
}

void flash_fms_run_begin(struct flash_fms *f, struct flash_fms_run *r, bool write, uint64_t first,
                         bool allowed)
{
    const struct flash_geom *g = &f->cfg.geom;
    uint64_t unit = (uint64_t)f->n_dies * g->planes_per_die;
    uint64_t per_cmd = f->cfg.tim.ctrl_cmd_bytes / g->page_bytes;

    memset(r, 0, sizeof(*r));
    if (f->fault)
        flash_fault_end_run(f->fault); /* a run of clean decodes is one transfer's */
    if (!f->fast || !allowed || !per_cmd)
        return;
    r->write = write;
    /* Whole commands per stripe, so that every stripe's commands fall on the same pages. */
    r->stripe = unit * (per_cmd / gcd(per_cmd, unit));
    r->cmds = r->stripe / per_cmd;
    r->t_cmds = r->cmds * (write ? f->cfg.tim.t_ctrl_wr_ps : f->cfg.tim.t_ctrl_rd_ps);
    r->next = first;
}

/* One value of a snapshot: read it into the cursor's slot, or (store) write the slot back. */
static void walk1(uint64_t *field, uint64_t **cur, bool store)
{
    if (store)
        *field = **cur;
    else
        **cur = *field;
    (*cur)++;
}

/*
 * The timing state as a vector v: first every busy-until (die array, register, each plane, each
 * channel's bus), then every counter the operations add to (per die and per channel). A
 * channel's bus carries every operation's command cycles and data, so its busy-until, busy time
 * and operation count hold all of them. The controller is not in it: a transfer's commands run
 * back to back, at a rate of their own.
 * store: write v back into the FMS.
 */
static void snap_walk(struct flash_fms *f, uint64_t *v, bool store)
{
    uint64_t *t = v, *c = v + f->n_times;

    for (uint32_t i = 0; i < f->n_dies; i++) {
        struct flash_die *d = &f->die[i];

        walk1(&d->busy_until, &t, store);
        walk1(&d->reg_free_at, &t, store);
        for (uint32_t p = 0; p < f->cfg.geom.planes_per_die; p++)
            walk1(&d->plane_busy[p], &t, store);
        walk1(&d->n_read_pages, &c, store);
        walk1(&d->n_prog_pages, &c, store);
        walk1(&d->n_erase_blocks, &c, store); /* counter 2 of the die's: see run_at */
        walk1(&d->array_busy_ps, &c, store);
        walk1(&d->payload_pages, &c, store);
    }
    for (uint32_t i = 0; i < f->cfg.geom.channels; i++) {
        struct flash_chan *ch = &f->chan[i];

        walk1(&ch->bus.busy_until, &t, store);
        walk1(&ch->bus.busy_ps, &c, store);
        walk1(&ch->bus.n_ops, &c, store);
        walk1(&ch->bytes_in, &c, store);
        walk1(&ch->bytes_out, &c, store);
    }
}

/* Of max read stripes, how many pass every page's first decode (flash_fault_clean_run, at the
 * RBER of the last read's first block and age). */
static uint64_t clean_stripes(struct flash_fms *f, const struct flash_fms_run *r, uint64_t max)
{
    const struct flash_mpop *op = &f->last_rd;
    uint32_t p = op->plane_mask ? (uint32_t)__builtin_ctz(op->plane_mask) : 0;
    const struct flash_block *b = flash_die_block_c(&f->die[op->die], p, op->block[p]);
    uint64_t at = f->last_rd_at;
    double age = at > b->prog_ps ? (double)(at - b->prog_ps) * 1e-12 : 0.0;
    double rber = flash_fault_rber(f->fault, b->pe, age);
    uint64_t pages = max > UINT64_MAX / r->stripe ? UINT64_MAX : max * r->stripe;

    return flash_fault_clean_run(f->fault, f->cfg.geom.page_bytes, rber, pages) / r->stripe;
}

uint64_t flash_fms_run_at(struct flash_fms *f, struct flash_fms_run *r, uint64_t max)
{
    size_t len = f->n_times + f->n_cnts;
    uint32_t slot = r->seen ? r->slot ^ 1 : 0;
    uint64_t *v = f->snap + slot * len, *prev = f->snap + r->slot * len, delta, slack;
    bool bound;

    r->next += r->stripe;
    r->t_max_prev = r->t_max;
    r->t_max = 0;
    if (!max)
        return 0; /* no whole stripe left: nothing to skip */
    snap_walk(f, v, false);
    bound = f->n_now_bound != r->bound;
    r->bound = f->n_now_bound;
    slack = f->slack;
    f->slack = UINT64_MAX;
    r->slot = slot;
    if (!r->seen++)
        return 0;
    /* Periodic: every busy-until moved by the same delta over the stripe. */
    delta = v[0] - prev[0];
    for (size_t i = 1; i < f->n_times; i++)
        if (v[i] - prev[i] != delta)
            return 0;
    for (size_t i = 0; i < f->n_cnts; i++)
        f->inc[i] = v[f->n_times + i] - prev[f->n_times + i];
    /* A stripe with an erase in it is not one the following stripes repeat. */
    for (size_t i = 0; i < f->n_dies; i++)
        if (f->inc[i * DIE_CNTS + 2])
            return 0;
    /*
     * The controller's commands come t_cmds apart per stripe. Equal to delta: the whole system
     * (state and commands) moves by delta per stripe, so it repeats exactly. Otherwise it
     * repeats while the commands set no operation's start: the flash, not they, then sets
     * every time, and the flash's state moves by delta per stripe. Commands below delta apart
     * come ever earlier relative to the flash: if they set no start in this stripe, they never
     * will. Above, they come t_cmds - delta later each stripe: the least margin they had in
     * this stripe lasts that many more stripes.
     */
    if (!delta || (r->t_cmds != delta && bound))
        return 0;
    r->delta = delta;
    if (r->t_cmds > delta && slack / (r->t_cmds - delta) < max)
        max = slack / (r->t_cmds - delta);
    if (f->fault && r->write) {
        const struct flash_mpop *op = &f->last_wr;
        uint32_t p = op->plane_mask ? (uint32_t)__builtin_ctz(op->plane_mask) : 0;
        const struct flash_block *b = flash_die_block_c(&f->die[op->die], p, op->block[p]);
        uint64_t pages = max > UINT64_MAX / r->stripe ? UINT64_MAX : max * r->stripe;

        return flash_fault_clean_programs(f->fault, b->pe, f->cfg.geom.pages_per_block, pages) /
               r->stripe;
    }
    return f->fault ? clean_stripes(f, r, max) : max;
}

void flash_fms_run_skip(struct flash_fms *f, struct flash_fms_run *r, uint64_t n, uint64_t *end)
{
    uint64_t *v = f->snap + r->slot * (f->n_times + f->n_cnts);

    for (size_t i = 0; i < f->n_times; i++)
        v[i] += n * r->delta;
    for (size_t i = 0; i < f->n_cnts; i++)
        v[f->n_times + i] += n * f->inc[i];
    snap_walk(f, v, true);
    f->ctrl.busy_until += n * r->t_cmds;
    f->ctrl.busy_ps += n * r->t_cmds;
    f->ctrl.n_ops += n * r->cmds;
    f->fast_stripes += n;
    if (f->fault && !r->write)
        flash_fault_skip_clean(f->fault, n * r->stripe);
    else if (f->fault)
        flash_fault_skip_programs(f->fault, n * r->stripe);
    r->next += n * r->stripe;
    r->t_max_prev += n * r->delta;
    *end = res_later(*end, r->t_max_prev);
}

size_t flash_fms_state_len(const struct flash_fms *f)
{
    return f->n_times + f->n_cnts + 1;
}

void flash_fms_state_get(const struct flash_fms *f, uint64_t *v)
{
    /* snap_walk only reads f when it does not store. */
    snap_walk((struct flash_fms *)(uintptr_t)f, v, false);
    v[f->n_times + f->n_cnts] = f->n_now_bound;
}

uint64_t flash_fms_state_delta(const struct flash_fms *f, const uint64_t *prev, const uint64_t *cur)
{
    uint64_t delta = cur[0] - prev[0];

    if (f->fault || f->n_fail_program || !delta || cur[0] < prev[0])
        return 0;
    for (size_t i = 1; i < f->n_times; i++)
        if (cur[i] - prev[i] != delta)
            return 0;
    for (size_t i = 0; i < f->n_dies; i++)
        if (cur[f->n_times + i * DIE_CNTS + 2] != prev[f->n_times + i * DIE_CNTS + 2])
            return 0; /* an erase is not part of a repeating stripe */
    return delta;
}

void flash_fms_state_advance(struct flash_fms *f, const uint64_t *prev, const uint64_t *cur,
                             uint64_t n, uint64_t delta)
{
    size_t len = f->n_times + f->n_cnts;
    uint64_t *v = f->snap; /* scratch: the FMS's own fast path is not in a run meanwhile */

    for (size_t i = 0; i < f->n_times; i++)
        v[i] = cur[i] + n * delta;
    for (size_t i = f->n_times; i < len; i++)
        v[i] = cur[i] + n * (cur[i] - prev[i]);
    snap_walk(f, v, true);
    f->n_now_bound = cur[len] + n * (cur[len] - prev[len]);
}

void flash_fms_set_wp(struct flash_fms *f, uint32_t die, uint32_t plane, uint32_t block,
                      uint32_t wp, uint64_t t)
{
    struct flash_block *b = flash_die_block(&f->die[die], plane, block);

    if (!b->wp && wp)
        b->prog_ps = t;
    b->wp = wp;
}

const struct flash_block *flash_fms_block(const struct flash_fms *f, uint32_t die, uint32_t plane,
                                          uint32_t block)
{
    if (die >= f->n_dies || plane >= f->cfg.geom.planes_per_die ||
        block >= f->cfg.geom.blocks_per_plane)
        return NULL;
    return flash_die_block_c(&f->die[die], plane, block);
}

const struct flash_die *flash_fms_die(const struct flash_fms *f, uint32_t die)
{
    return die < f->n_dies ? &f->die[die] : NULL;
}

const struct flash_chan *flash_fms_chan(const struct flash_fms *f, uint32_t channel)
{
    return channel < f->cfg.geom.channels ? &f->chan[channel] : NULL;
}

static struct flash_block *block_at(struct flash_fms *f, const struct flash_addr *a, struct err *e)
{
    if (flash_addr_check(&f->cfg.geom, a, e))
        return NULL;
    return flash_die_block(&f->die[flash_addr_die_index(&f->cfg.geom, a)], a->plane, a->block);
}

int flash_fms_mark_bad(struct flash_fms *f, const struct flash_addr *a, struct err *e)
{
    struct flash_block *b = block_at(f, a, e);

    if (!b)
        return -EINVAL;
    b->bad = 1;
    return 0;
}

int flash_fms_inject_erase_fail(struct flash_fms *f, const struct flash_addr *a, struct err *e)
{
    struct flash_block *b = block_at(f, a, e);

    if (!b)
        return -EINVAL;
    b->fail_erase = 1;
    return 0;
}

int flash_fms_inject_program_fail(struct flash_fms *f, const struct flash_addr *a, struct err *e)
{
    struct flash_block *b = block_at(f, a, e);

    if (!b)
        return -EINVAL;
    b->fail_program = 1;
    f->n_fail_program++;
    return 0;
}

void flash_fms_stats(const struct flash_fms *f, uint64_t until, struct flash_fms_stats *s)
{
    double cu = 0.0, du = 0.0;

    memset(s, 0, sizeof(*s));
    for (uint32_t i = 0; i < f->cfg.geom.channels; i++) {
        const struct flash_chan *ch = &f->chan[i];

        s->bytes_in += ch->bytes_in;
        s->bytes_out += ch->bytes_out;
        s->last_end = res_later(s->last_end, ch->bus.busy_until);
        cu += res_util(&ch->bus, until);
    }
    for (uint32_t i = 0; i < f->n_dies; i++) {
        const struct flash_die *d = &f->die[i];

        s->pages_programmed += d->n_prog_pages;
        s->pages_read += d->n_read_pages;
        s->blocks_erased += d->n_erase_blocks;
        s->payload_pages += d->payload_pages;
        s->last_end = res_later(s->last_end, d->busy_until);
        s->last_end = res_later(s->last_end, d->reg_free_at);
        du += until ? (double)d->array_busy_ps / (double)until : 0.0;
    }
    s->ctrl_cmds = f->ctrl.n_ops;
    s->last_end = res_later(s->last_end, f->ctrl.busy_until);
    s->chan_util = cu / f->cfg.geom.channels;
    s->die_util = du / f->n_dies;
    s->ctrl_util = res_util(&f->ctrl, until);
}

void flash_fms_stats_fprint(FILE *out, const char *prefix, const struct flash_fms_stats *s)
{
    fprintf(out, "%s.pages_programmed = %llu pages\n", prefix,
            (unsigned long long)s->pages_programmed);
    fprintf(out, "%s.pages_read = %llu pages\n", prefix, (unsigned long long)s->pages_read);
    fprintf(out, "%s.blocks_erased = %llu blocks\n", prefix, (unsigned long long)s->blocks_erased);
    fprintf(out, "%s.bytes_in = %llu B\n", prefix, (unsigned long long)s->bytes_in);
    fprintf(out, "%s.bytes_out = %llu B\n", prefix, (unsigned long long)s->bytes_out);
    fprintf(out, "%s.ctrl_cmds = %llu commands\n", prefix, (unsigned long long)s->ctrl_cmds);
    fprintf(out, "%s.payload_pages = %llu pages\n", prefix, (unsigned long long)s->payload_pages);
    fprintf(out, "%s.last_end = %llu ps\n", prefix, (unsigned long long)s->last_end);
    fprintf(out, "%s.chan_util = %.4f\n", prefix, s->chan_util);
    fprintf(out, "%s.die_util = %.4f\n", prefix, s->die_util);
    fprintf(out, "%s.ctrl_util = %.4f\n", prefix, s->ctrl_util);
}
