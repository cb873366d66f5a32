/*
 * sim: discrete-event kernel. See sim.h for the contract.
 *
 * Layout: events live in slots (grown by doubling, recycled through a free list, so the hot
 * path never allocates). The queue is a 4-ary min-heap of 24-byte entries holding the whole
 * key (time, prio, seq) and the slot, placed so that the four children of a node span exactly
 * two 64-byte cache lines. Ties on time are common in hardware models (clock edges, quantized
 * latencies), so the key is never looked up elsewhere. Each pending slot records its heap
 * position in a compact side array, so cancel is O(log n) and removes the entry at once: no
 * tombstones are left in the queue.
 */
#include "csim/sim.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define SIM_INIT_CAP 64u
#define POS_FREE     UINT32_MAX
#define SLOT_MAX     (UINT32_MAX - 1u)
#define HEAP_ARITY   4u
#define CACHE_LINE   64u
/* Byte offset of heap[0] from a 64-byte boundary: heap[4i+1] then starts on a 32-byte
 * boundary, so each group of four 24-byte children spans two cache lines, never three. */
#define HEAP_OFFSET 8u
#define ANON_NAME   "(unnamed)"

#if defined(__GNUC__)
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#else
#define likely(x)   (x)
#define unlikely(x) (x)
#endif

/* One queue entry: the full key and the slot, 24 bytes. */
struct sim_hent {
    sim_time_t t;
    uint64_t seq;
    int32_t prio;
    uint32_t slot;
};
_Static_assert(sizeof(struct sim_hent) == 24, "HEAP_OFFSET assumes 24-byte entries");

/* The cold part of an event slot, read when it fires. */
struct sim_slot {
    sim_event_fn fn;
    void *user;
    const char *name; /* kept after the event ends, for error messages */
    uint32_t gen;     /* bumped each time the slot is released */
    uint32_t next_free;
};

enum clk_state { CLK_IDLE, CLK_PENDING, CLK_TICKING };

struct sim_clock {
    struct sim *sim;
    struct sim_clock *next; /* list of the sim's clocks, for destroy */
    char *name;
    sim_time_t period;
    sim_time_t start;
    int prio;
    sim_tick_fn tick;
    void *user;
    enum clk_state state;
    bool rewake; /* woken from its own tick */
    bool ticked; /* last_tick is valid */
    sim_time_t last_tick;
    uint64_t ticks;
};

struct sim {
    sim_time_t now;
    uint64_t next_seq;
    uint64_t fired;

    struct sim_hent *heap; /* heap_mem + HEAP_OFFSET bytes */
    void *heap_mem;        /* 64-byte aligned */
    uint32_t heap_n;

    /* Per slot, all of cap entries: */
    struct sim_slot *pool;
    uint32_t *pos; /* heap index while pending, POS_FREE otherwise */
    uint32_t cap;
    uint32_t free_head; /* POS_FREE: none */

    bool running;
    bool stop;
    bool stopped;
    const char *cur_name;

    sim_trace_fn trace;
    void *trace_ctx;

    struct sim_clock *clocks;

    /* The running call's err and its first failure: a clock that cannot take its next edge
     * fails inside the run, where only the run call can report it. */
    struct err *run_err;
    int run_rc;
};

/* ---- errors ---- */

/* A failure of the kernel's own work inside a run (a clock's next edge): the first one is
 * written to the run call's err and returned by it. */
static void run_fail(struct sim *sim, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void run_fail(struct sim *sim, int code, const char *fmt, ...)
{
    va_list ap;

    if (sim->run_rc)
        return;
    sim->run_rc = code;
    if (!sim->run_err)
        return;
    va_start(ap, fmt);
    vsnprintf(sim->run_err->msg, sizeof(sim->run_err->msg), fmt, ap);
    va_end(ap);
}

/* ---- create / destroy ---- */

static int pool_grow(struct sim *sim, struct err *e);

int sim_create(struct sim **out, struct err *e)
{
    *out = NULL;
    struct sim *sim = calloc(1, sizeof(*sim));
    if (!sim)
        return err_set(e, -ENOMEM, "out of memory creating the event kernel");
    sim->free_head = POS_FREE;
    int rc = pool_grow(sim, e);
    if (rc) {
        sim_destroy(sim);
        return rc;
    }
    *out = sim;
    return 0;
}

void sim_destroy(struct sim *sim)
{
    if (!sim)
        return;
    struct sim_clock *c = sim->clocks;
    while (c) {
        struct sim_clock *next = c->next;
        free(c->name);
        free(c);
        c = next;
    }
    free(sim->heap_mem);
    free(sim->pool);
    free(sim->pos);
    free(sim);
}

/* ---- queries ---- */

sim_time_t sim_now(const struct sim *sim)
{
    return sim->now;
}

uint64_t sim_pending(const struct sim *sim)
{
    return sim->heap_n;
}

bool sim_next_time(const struct sim *sim, sim_time_t *t)
{
    if (sim->heap_n == 0)
        return false;
    *t = sim->heap[0].t;
    return true;
}

uint64_t sim_events_fired(const struct sim *sim)
{
    return sim->fired;
}

const char *sim_current_name(const struct sim *sim)
{
    return sim->cur_name;
}

void sim_set_trace(struct sim *sim, sim_trace_fn fn, void *ctx)
{
    sim->trace = fn;
    sim->trace_ctx = ctx;
}

bool sim_stopped(const struct sim *sim)
{
    return sim->stopped;
}

void sim_stop(struct sim *sim)
{
    sim->stop = true;
}

/* ---- heap ---- */

static inline bool hent_less(const struct sim_hent *a, const struct sim_hent *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->prio != b->prio)
        return a->prio < b->prio;
    return a->seq < b->seq;
}

/* Move entry e up from hole i to its place. */
static inline void heap_sift_up(struct sim *sim, uint32_t i, struct sim_hent e)
{
    struct sim_hent *h = sim->heap;
    while (i > 0) {
        uint32_t parent = (i - 1) / HEAP_ARITY;
        if (!hent_less(&e, &h[parent]))
            break;
        h[i] = h[parent];
        sim->pos[h[i].slot] = i;
        i = parent;
    }
    h[i] = e;
    sim->pos[e.slot] = i;
}

/* Move entry e down from hole i to its place. */
static inline void heap_sift_down(struct sim *sim, uint32_t i, struct sim_hent e)
{
    struct sim_hent *h = sim->heap;
    uint32_t n = sim->heap_n;
    for (;;) {
        uint32_t first = i * HEAP_ARITY + 1;
        if (first >= n)
            break;
        uint32_t last = first + HEAP_ARITY < n ? first + HEAP_ARITY : n;
        uint32_t best = first;
        for (uint32_t c = first + 1; c < last; c++) {
            if (hent_less(&h[c], &h[best]))
                best = c;
        }
        if (!hent_less(&h[best], &e))
            break;
        h[i] = h[best];
        sim->pos[h[i].slot] = i;
        i = best;
    }
    h[i] = e;
    sim->pos[e.slot] = i;
}

/* Remove the entry at heap index i. */
static void heap_remove(struct sim *sim, uint32_t i)
{
    uint32_t n = --sim->heap_n;
    if (i == n)
        return;
    struct sim_hent e = sim->heap[n];
    if (i > 0 && hent_less(&e, &sim->heap[(i - 1) / HEAP_ARITY]))
        heap_sift_up(sim, i, e);
    else
        heap_sift_down(sim, i, e);
}

/* ---- slots ---- */

/* Double every per-slot array and the queue (cap 0 -> SIM_INIT_CAP). heap_n <= slots in use
 * <= cap, so the queue never fills first. On failure the old arrays stay valid. */
static int pool_grow(struct sim *sim, struct err *e)
{
    uint32_t old = sim->cap;
    if (old > SLOT_MAX / 2)
        return err_set(e, -ENOMEM, "event pool full (%" PRIu32 " events pending)", old);
    uint32_t cap = old ? old * 2 : SIM_INIT_CAP;

    size_t heap_bytes = HEAP_OFFSET + (size_t)cap * sizeof(struct sim_hent);
    heap_bytes = (heap_bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
    void *hm = aligned_alloc(CACHE_LINE, heap_bytes);
    if (!hm)
        goto out_oom;
    struct sim_slot *p = realloc(sim->pool, (size_t)cap * sizeof(*p));
    if (!p)
        goto out_free_hm;
    sim->pool = p;
    uint32_t *pos = realloc(sim->pos, (size_t)cap * sizeof(*pos));
    if (!pos)
        goto out_free_hm;
    sim->pos = pos;

    struct sim_hent *h = (struct sim_hent *)((char *)hm + HEAP_OFFSET);
    if (sim->heap_n)
        memcpy(h, sim->heap, (size_t)sim->heap_n * sizeof(*h));
    free(sim->heap_mem);
    sim->heap_mem = hm;
    sim->heap = h;

    for (uint32_t i = old; i < cap; i++) {
        p[i] = (struct sim_slot){.name = ANON_NAME, .next_free = i + 1};
        pos[i] = POS_FREE;
    }
    p[cap - 1].next_free = sim->free_head;
    sim->free_head = old;
    sim->cap = cap;
    return 0;

out_free_hm:
    free(hm);
out_oom:
    return err_set(e, -ENOMEM, "out of memory growing the event pool to %" PRIu32 " events", cap);
}

static inline void slot_release(struct sim *sim, uint32_t s)
{
    struct sim_slot *sl = &sim->pool[s];
    sl->gen++;
    sim->pos[s] = POS_FREE;
    sl->next_free = sim->free_head;
    sim->free_head = s;
}

/* ---- scheduling ---- */

/* t already validated (t >= now). */
static inline int enqueue(struct sim *sim, sim_time_t t, int prio, uint64_t seq, const char *name,
                          sim_event_fn fn, void *user, sim_event_id_t *id_out, struct err *e)
{
    if (unlikely(sim->free_head == POS_FREE)) {
        int rc = pool_grow(sim, e);
        if (rc)
            return rc;
    }
    uint32_t s = sim->free_head;
    struct sim_slot *sl = &sim->pool[s];
    sim->free_head = sl->next_free;
    sl->fn = fn;
    sl->user = user;
    sl->name = name ? name : ANON_NAME;

    struct sim_hent ent = {.t = t, .seq = seq, .prio = prio, .slot = s};
    heap_sift_up(sim, sim->heap_n++, ent);
    if (id_out)
        *id_out = ((uint64_t)sl->gen << 32) | ((uint64_t)s + 1);
    return 0;
}

int sim_schedule_at(struct sim *sim, sim_time_t t, int prio, const char *name, sim_event_fn fn,
                    void *user, sim_event_id_t *id_out, struct err *e)
{
    if (id_out)
        *id_out = SIM_EVENT_NONE;
    if (unlikely(!fn))
        return err_set(e, -EINVAL, "event '%s' at %" PRIu64 " ps has no callback",
                       name ? name : ANON_NAME, t);
    if (unlikely(t < sim->now))
        return err_set(e, -EINVAL,
                       "event '%s' at %" PRIu64 " ps is before now (%" PRIu64
                       " ps); schedule at or after now",
                       name ? name : ANON_NAME, t, sim->now);
    return enqueue(sim, t, prio, sim->next_seq++, name, fn, user, id_out, e);
}

uint64_t sim_reserve(struct sim *sim)
{
    return sim->next_seq++;
}

int sim_schedule_reserved(struct sim *sim, uint64_t place, sim_time_t t, int prio, const char *name,
                          sim_event_fn fn, void *user, sim_event_id_t *id_out, struct err *e)
{
    if (id_out)
        *id_out = SIM_EVENT_NONE;
    if (unlikely(!fn || place >= sim->next_seq))
        return err_set(e, -EINVAL, "event '%s' at %" PRIu64 " ps: %s", name ? name : ANON_NAME, t,
                       fn ? "a place sim_reserve() never gave" : "no callback");
    if (unlikely(t < sim->now))
        return err_set(e, -EINVAL,
                       "event '%s' at %" PRIu64 " ps is before now (%" PRIu64
                       " ps); schedule at or after now",
                       name ? name : ANON_NAME, t, sim->now);
    return enqueue(sim, t, prio, place, name, fn, user, id_out, e);
}

int sim_schedule_in(struct sim *sim, sim_time_t delay, int prio, const char *name, sim_event_fn fn,
                    void *user, sim_event_id_t *id_out, struct err *e)
{
    if (id_out)
        *id_out = SIM_EVENT_NONE;
    if (unlikely(delay > SIM_TIME_MAX - sim->now))
        return err_set(e, -EOVERFLOW,
                       "event '%s': now (%" PRIu64 " ps) + delay (%" PRIu64
                       " ps) overflows the %" PRIu64 " ps time range",
                       name ? name : ANON_NAME, sim->now, delay, SIM_TIME_MAX);
    return sim_schedule_at(sim, sim->now + delay, prio, name, fn, user, id_out, e);
}

/* Slot index of a live handle, or a negative code (no message). */
static int64_t handle_slot(const struct sim *sim, sim_event_id_t id)
{
    uint64_t s1 = id & 0xffffffffu;
    if (s1 == 0 || s1 > sim->cap)
        return -EINVAL;
    uint32_t s = (uint32_t)(s1 - 1);
    uint32_t gen = (uint32_t)(id >> 32);
    const struct sim_slot *sl = &sim->pool[s];
    if (gen < sl->gen)
        return -ENOENT; /* issued, then released: fired or cancelled */
    if (gen == sl->gen && sim->pos[s] != POS_FREE)
        return s;
    return -EINVAL; /* a generation this slot has not reached */
}

int sim_cancel(struct sim *sim, sim_event_id_t id, struct err *e)
{
    int64_t s = handle_slot(sim, id);
    if (s == -EINVAL)
        return err_set(e, -EINVAL,
                       "cannot cancel event id 0x%016" PRIx64
                       ": not a handle issued by this sim (slot %" PRIu64 ", %" PRIu32
                       " slots); pass an id from sim_schedule_*()",
                       id, (id & 0xffffffffu), sim->cap);
    if (s < 0) {
        uint32_t slot = (uint32_t)(id & 0xffffffffu) - 1;
        const struct sim_slot *sl = &sim->pool[slot];
        uint32_t gen = (uint32_t)(id >> 32);
        /* The slot still holds this event's name unless it was reused since. */
        const char *name = (sl->gen == gen + 1 && sim->pos[slot] == POS_FREE) ? sl->name : "?";
        return err_set(e, -ENOENT,
                       "cannot cancel event '%s' (id 0x%016" PRIx64
                       "): it already fired or was cancelled (now %" PRIu64 " ps)",
                       name, id, sim->now);
    }
    heap_remove(sim, sim->pos[s]);
    slot_release(sim, (uint32_t)s);
    return 0;
}

bool sim_event_pending(const struct sim *sim, sim_event_id_t id)
{
    return handle_slot(sim, id) >= 0;
}

/* ---- run ---- */

static void run_loop(struct sim *sim, sim_time_t limit)
{
    while (sim->heap_n) {
        struct sim_hent *top = &sim->heap[0];
        if (top->t > limit)
            break;
        uint32_t s = top->slot;
        sim->now = top->t;
        heap_remove(sim, 0);

        struct sim_slot *sl = &sim->pool[s];
        sim_event_fn fn = sl->fn;
        void *user = sl->user;
        const char *name = sl->name;
        slot_release(sim, s);

        sim->cur_name = name;
        sim->fired++;
        if (unlikely(sim->trace != NULL))
            sim->trace(sim->trace_ctx, sim->now, name);
        fn(sim, user);
        if (unlikely(sim->stop))
            break;
    }
    sim->cur_name = NULL;
}

static int run_enter(struct sim *sim, const char *what, struct err *e)
{
    if (sim->running)
        return err_set(e, -EBUSY,
                       "%s called from inside callback '%s' at %" PRIu64
                       " ps; schedule an event or call sim_stop() instead",
                       what, sim->cur_name ? sim->cur_name : "?", sim->now);
    sim->running = true;
    sim->stop = false;
    sim->stopped = false;
    sim->run_err = e;
    sim->run_rc = 0;
    return 0;
}

/* 0, or the first failure of the kernel's own work during the run. */
static int run_leave(struct sim *sim)
{
    int rc = sim->run_rc;

    sim->stopped = sim->stop;
    sim->stop = false;
    sim->running = false;
    sim->run_err = NULL;
    sim->run_rc = 0;
    return rc;
}

int sim_run_until(struct sim *sim, sim_time_t t, struct err *e)
{
    if (t < sim->now)
        return err_set(e, -EINVAL,
                       "sim_run_until(%" PRIu64 " ps) is before now (%" PRIu64
                       " ps); pass a time at or after now",
                       t, sim->now);
    int rc = run_enter(sim, "sim_run_until", e);
    if (rc)
        return rc;
    run_loop(sim, t);
    if (!sim->stop)
        sim->now = t;
    return run_leave(sim);
}

int sim_run_for(struct sim *sim, sim_time_t d, struct err *e)
{
    if (d > SIM_TIME_MAX - sim->now)
        return err_set(e, -EOVERFLOW,
                       "sim_run_for: now (%" PRIu64 " ps) + %" PRIu64 " ps overflows the %" PRIu64
                       " ps time range",
                       sim->now, d, SIM_TIME_MAX);
    return sim_run_until(sim, sim->now + d, e);
}

int sim_run(struct sim *sim, struct err *e)
{
    int rc = run_enter(sim, "sim_run", e);
    if (rc)
        return rc;
    run_loop(sim, SIM_TIME_MAX);
    return run_leave(sim);
}

/* ---- clocks ---- */

/* First edge at or after t; false if it lies past SIM_TIME_MAX. */
static bool clock_edge_at_or_after(const struct sim_clock *clk, sim_time_t t, sim_time_t *edge)
{
    if (t <= clk->start) {
        *edge = clk->start;
        return true;
    }
    sim_time_t rem = (t - clk->start) % clk->period;
    if (rem == 0) {
        *edge = t;
        return true;
    }
    sim_time_t add = clk->period - rem;
    if (t > SIM_TIME_MAX - add)
        return false;
    *edge = t + add;
    return true;
}

static void clock_fire(struct sim *sim, void *user);

static int clock_schedule(struct sim_clock *clk, sim_time_t t, struct err *e)
{
    int rc =
        enqueue(clk->sim, t, clk->prio, clk->sim->next_seq++, clk->name, clock_fire, clk, NULL, e);
    clk->state = rc ? CLK_IDLE : CLK_PENDING;
    return rc;
}

static void clock_fire(struct sim *sim, void *user)
{
    struct sim_clock *clk = user;
    clk->state = CLK_TICKING;
    clk->rewake = false;
    clk->last_tick = sim->now;
    clk->ticked = true;
    clk->ticks++;
    bool more = clk->tick(sim, clk->user);
    if (!more && !clk->rewake) {
        clk->state = CLK_IDLE;
        return;
    }
    if (sim->now > SIM_TIME_MAX - clk->period) {
        clk->state = CLK_IDLE;
        run_fail(sim, -EOVERFLOW,
                 "clock '%s': next edge after %" PRIu64 " ps + %" PRIu64
                 " ps overflows the time range; clock left idle",
                 clk->name, sim->now, clk->period);
        return;
    }
    int rc = clock_schedule(clk, sim->now + clk->period, sim->run_rc ? NULL : sim->run_err);
    if (rc && !sim->run_rc)
        sim->run_rc = rc;
}

int sim_clock_create(const struct sim_clock_cfg *cfg, struct sim *sim, struct sim_clock **out,
                     struct err *e)
{
    const char *name = cfg->name ? cfg->name : ANON_NAME;
    int rc;

    *out = NULL;
    if (cfg->period_ps <= 0)
        return err_set(e, -EINVAL, "clock '%s': period %" PRId64 " ps must be > 0", name,
                       cfg->period_ps);
    if (!cfg->tick)
        return err_set(e, -EINVAL, "clock '%s': no tick function", name);
    struct sim_clock *clk = calloc(1, sizeof(*clk));
    if (!clk)
        goto out_oom;
    size_t len = strlen(name) + 1;
    clk->name = malloc(len);
    if (!clk->name)
        goto out_free_clk;
    memcpy(clk->name, name, len);
    clk->sim = sim;
    clk->period = (sim_time_t)cfg->period_ps;
    clk->start = cfg->start;
    clk->prio = cfg->prio;
    clk->tick = cfg->tick;
    clk->user = cfg->user;
    clk->state = CLK_IDLE;

    if (!cfg->start_idle) {
        sim_time_t edge;
        if (!clock_edge_at_or_after(clk, sim->now, &edge)) {
            rc = err_set(e, -EOVERFLOW,
                         "clock '%s': first edge at or after %" PRIu64
                         " ps overflows the time range (start %" PRIu64 " ps, period %" PRIu64
                         " ps)",
                         name, sim->now, clk->start, clk->period);
            goto out_free_name;
        }
        rc = clock_schedule(clk, edge, e);
        if (rc)
            goto out_free_name;
    }
    clk->next = sim->clocks;
    sim->clocks = clk;
    *out = clk;
    return 0;

out_free_name:
    free(clk->name);
    free(clk);
    return rc;
out_free_clk:
    free(clk);
out_oom:
    return err_set(e, -ENOMEM, "clock '%s': out of memory", name);
}

int sim_clock_wake(struct sim_clock *clk, struct err *e)
{
    struct sim *sim = clk->sim;
    if (clk->state == CLK_PENDING)
        return 0;
    if (clk->state == CLK_TICKING) {
        clk->rewake = true;
        return 0;
    }
    sim_time_t edge;
    if (!clock_edge_at_or_after(clk, sim->now, &edge))
        return err_set(e, -EOVERFLOW,
                       "clock '%s': next edge after %" PRIu64 " ps overflows the time range",
                       clk->name, sim->now);
    /* Never tick twice on one edge: the edge after the last tick is the earliest. */
    if (clk->ticked && edge <= clk->last_tick) {
        if (clk->last_tick > SIM_TIME_MAX - clk->period)
            return err_set(e, -EOVERFLOW,
                           "clock '%s': edge after %" PRIu64 " ps overflows the time range",
                           clk->name, clk->last_tick);
        edge = clk->last_tick + clk->period;
    }
    return clock_schedule(clk, edge, e);
}

bool sim_clock_active(const struct sim_clock *clk)
{
    return clk->state != CLK_IDLE;
}

uint64_t sim_clock_cycle(const struct sim_clock *clk)
{
    sim_time_t now = clk->sim->now;
    if (now < clk->start)
        return 0;
    return (now - clk->start) / clk->period;
}

uint64_t sim_clock_ticks(const struct sim_clock *clk)
{
    return clk->ticks;
}

sim_time_t sim_clock_period(const struct sim_clock *clk)
{
    return clk->period;
}

const char *sim_clock_name(const struct sim_clock *clk)
{
    return clk->name;
}
