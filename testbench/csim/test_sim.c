/*
 * cmocka unit tests for the event kernel (csim/sim.c). A fresh sim per case (setup/teardown);
 * error messages go to the err of the call that failed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csim/sim.h"

/* ---- helpers ---- */

#define LOG_MAX 256

struct log {
    int n;
    sim_time_t t[LOG_MAX];
    int tag[LOG_MAX];
    const char *name[LOG_MAX];
};

/* A user pointer for logging events: which log, which tag. */
struct ev {
    struct log *log;
    int tag;
};

static void log_add(struct log *lg, sim_time_t t, int tag, const char *name)
{
    assert_true(lg->n < LOG_MAX);
    lg->t[lg->n] = t;
    lg->tag[lg->n] = tag;
    lg->name[lg->n] = name;
    lg->n++;
}

static void ev_log(struct sim *sim, void *user)
{
    struct ev *e = user;
    log_add(e->log, sim_now(sim), e->tag, sim_current_name(sim));
}

static void ev_nop(struct sim *sim, void *user)
{
    (void)sim;
    (void)user;
}

static void ev_stop(struct sim *sim, void *user)
{
    ev_log(sim, user);
    sim_stop(sim);
}

static int setup(void **state)
{
    struct sim *sim;
    if (sim_create(&sim, NULL))
        return -1;
    *state = sim;
    return 0;
}

/* A clock with its grid origin at now, priority 0, first tick at now; NULL on error. */
static struct sim_clock *clock_now(struct sim *sim, const char *name, int64_t period_ps,
                                   sim_tick_fn tick, void *user, struct err *e)
{
    struct sim_clock_cfg cfg = {
        .name = name, .period_ps = period_ps, .start = sim_now(sim), .tick = tick, .user = user};
    struct sim_clock *clk;
    return sim_clock_create(&cfg, sim, &clk, e) ? NULL : clk;
}

static struct sim_clock *clock_cfg(struct sim *sim, const struct sim_clock_cfg *cfg)
{
    struct sim_clock *clk;
    return sim_clock_create(cfg, sim, &clk, NULL) ? NULL : clk;
}

static int teardown(void **state)
{
    sim_destroy(*state);
    return 0;
}

static void assert_tags(const struct log *lg, const int *want, int n)
{
    assert_int_equal(lg->n, n);
    for (int i = 0; i < n; i++) {
        if (lg->tag[i] != want[i])
            fail_msg("log[%d]: tag %d, expected %d", i, lg->tag[i], want[i]);
    }
}

/* ---- ordering ---- */

static void test_events_fire_in_time_order(void **state)
{
    struct sim *sim = *state;
    struct log lg = {0};
    struct ev e[4] = {{&lg, 0}, {&lg, 1}, {&lg, 2}, {&lg, 3}};
    const sim_time_t times[4] = {30 * SIM_NS, 10 * SIM_NS, 40 * SIM_NS, 20 * SIM_NS};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sim_schedule_at(sim, times[i], 0, "e", ev_log, &e[i], NULL, NULL), 0);
    assert_int_equal(sim_run(sim, NULL), 0);
    const int want[] = {1, 3, 0, 2};
    assert_tags(&lg, want, 4);
    assert_int_equal(lg.t[0], 10 * SIM_NS);
    assert_int_equal(lg.t[3], 40 * SIM_NS);
    assert_int_equal(sim_now(sim), 40 * SIM_NS);
}

static void test_equal_time_orders_by_priority_smaller_first(void **state)
{
    struct sim *sim = *state;
    struct log lg = {0};
    struct ev e[4] = {{&lg, 0}, {&lg, 1}, {&lg, 2}, {&lg, 3}};
    const int prio[4] = {5, -3, 0, -100};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sim_schedule_at(sim, SIM_US, prio[i], "e", ev_log, &e[i], NULL, NULL), 0);
    sim_run(sim, NULL);
    const int want[] = {3, 1, 2, 0};
    assert_tags(&lg, want, 4);
}

static void test_equal_time_and_priority_orders_by_insertion(void **state)
{
    struct sim *sim = *state;
    struct log lg = {0};
    struct ev e[8];
    for (int i = 0; i < 8; i++) {
        e[i] = (struct ev){&lg, i};
        assert_int_equal(sim_schedule_at(sim, SIM_US, 7, "e", ev_log, &e[i], NULL, NULL), 0);
    }
    sim_run(sim, NULL);
    const int want[] = {0, 1, 2, 3, 4, 5, 6, 7};
    assert_tags(&lg, want, 8);
}

/* An event scheduled later in a reserved place fires where it would have fired had it been
 * scheduled when the place was taken; a place never given is refused. */
static void test_reserved_place_keeps_insertion_order(void **state)
{
    struct sim *sim = *state;
    struct log lg = {0};
    struct ev e[4] = {{&lg, 0}, {&lg, 1}, {&lg, 2}, {&lg, 3}};
    struct err er;
    assert_int_equal(sim_schedule_at(sim, SIM_US, 0, "e", ev_log, &e[0], NULL, NULL), 0);
    uint64_t place = sim_reserve(sim);
    assert_int_equal(sim_schedule_at(sim, SIM_US, 0, "e", ev_log, &e[2], NULL, NULL), 0);
    assert_int_equal(sim_run_until(sim, SIM_US / 2, NULL), 0);
    assert_int_equal(sim_schedule_reserved(sim, place, SIM_US, 0, "e", ev_log, &e[1], NULL, NULL),
                     0);
    assert_int_equal(sim_schedule_at(sim, SIM_US, 0, "e", ev_log, &e[3], NULL, NULL), 0);
    assert_int_equal(
        sim_schedule_reserved(sim, place + 100, SIM_US, 0, "e", ev_log, &e[3], NULL, &er), -EINVAL);
    assert_non_null(strstr(er.msg, "never gave"));
    assert_int_equal(sim_schedule_reserved(sim, place, SIM_NS, 0, "e", ev_log, &e[3], NULL, &er),
                     -EINVAL);
    assert_int_equal(sim_run(sim, NULL), 0);
    const int want[] = {0, 1, 2, 3};
    assert_tags(&lg, want, 4);
}

/* Records the key of every fired event, to check the firing order against it. */
struct order_rec {
    int n;
    int cap;
    sim_time_t *t;
    int *prio;
    int *idx;
};

struct order_ev {
    struct order_rec *rec;
    int prio;
    int idx;
};

static void ev_order(struct sim *sim, void *user)
{
    struct order_ev *o = user;
    struct order_rec *r = o->rec;
    assert_true(r->n < r->cap);
    r->t[r->n] = sim_now(sim);
    r->prio[r->n] = o->prio;
    r->idx[r->n] = o->idx;
    r->n++;
}

static void assert_key_order(const struct order_rec *rec)
{
    for (int i = 1; i < rec->n; i++) {
        bool ok = rec->t[i - 1] < rec->t[i] ||
                  (rec->t[i - 1] == rec->t[i] &&
                   (rec->prio[i - 1] < rec->prio[i] ||
                    (rec->prio[i - 1] == rec->prio[i] && rec->idx[i - 1] < rec->idx[i])));
        if (!ok)
            fail_msg("fired %d (t %llu prio %d idx %d) before %d (t %llu prio %d idx %d)", i - 1,
                     (unsigned long long)rec->t[i - 1], rec->prio[i - 1], rec->idx[i - 1], i,
                     (unsigned long long)rec->t[i], rec->prio[i], rec->idx[i]);
    }
}

/* A heap check: many keys with many ties, past pool growth, with every third event cancelled. */
static void test_many_events_with_cancels_fire_in_key_order(void **state)
{
    struct sim *sim = *state;
    enum { N = 5000 };
    static sim_time_t t[N];
    static int prio[N], idx[N];
    static struct order_ev o[N];
    static sim_event_id_t id[N];
    struct order_rec rec = {0, N, t, prio, idx};
    const uint32_t seed = 12345;
    uint32_t x = seed;
    print_message("seed %u\n", seed);
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        o[i] = (struct order_ev){&rec, (int)((x >> 8) % 3) - 1, i};
        assert_int_equal(
            sim_schedule_at(sim, (x >> 16) % 50, o[i].prio, "o", ev_order, &o[i], &id[i], NULL), 0);
    }
    for (int i = 0; i < N; i += 3)
        assert_int_equal(sim_cancel(sim, id[i], NULL), 0);
    const int live = N - (N + 2) / 3;
    assert_int_equal(sim_pending(sim), live);
    assert_int_equal(sim_run(sim, NULL), 0);
    assert_int_equal(rec.n, live);
    for (int i = 0; i < rec.n; i++)
        assert_true(rec.idx[i] % 3 != 0);
    assert_key_order(&rec);
    for (int i = 0; i < N; i++)
        assert_false(sim_event_pending(sim, id[i]));
}

/* Cancels taken from the middle of a large queue while it runs. */
struct canceller {
    sim_event_id_t *ids;
    int n;
    const struct order_rec *rec;
    int fired_before; /* events fired before the canceller ran */
};

static void ev_cancel_some(struct sim *sim, void *user)
{
    struct canceller *c = user;
    c->fired_before = c->rec->n;
    for (int i = 1; i < c->n; i += 2) {
        int rc = sim_cancel(sim, c->ids[i], NULL);
        assert_true(rc == 0 || rc == -ENOENT);
    }
}

static void test_cancel_from_callback_mid_run_keeps_key_order(void **state)
{
    struct sim *sim = *state;
    enum { N = 1000 };
    static sim_time_t t[N];
    static int prio[N], idx[N];
    static struct order_ev o[N];
    static sim_event_id_t id[N];
    struct order_rec rec = {0, N, t, prio, idx};
    uint32_t x = 99;
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        o[i] = (struct order_ev){&rec, (int)((x >> 8) % 5) - 2, i};
        sim_schedule_at(sim, (x >> 16) % 200, o[i].prio, "o", ev_order, &o[i], &id[i], NULL);
    }
    struct canceller c = {id, N, &rec, -1};
    sim_schedule_at(sim, 100, 0, "canceller", ev_cancel_some, &c, NULL, NULL);
    sim_run(sim, NULL);
    assert_key_order(&rec);
    assert_true(c.fired_before > 0 && c.fired_before < rec.n);
    for (int i = c.fired_before; i < rec.n; i++) {
        if (rec.idx[i] % 2 == 1)
            fail_msg("event %d fired at %llu after its cancel at 100", rec.idx[i],
                     (unsigned long long)rec.t[i]);
    }
}

static void test_random_keys_fire_in_time_prio_insertion_order(void **state)
{
    struct sim *sim = *state;
    enum { N = 64 };
    sim_time_t t[N];
    int prio[N], idx[N];
    struct order_rec rec = {0, N, t, prio, idx};
    struct order_ev o[N];
    uint32_t x = 777;
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        o[i] = (struct order_ev){&rec, (int)((x >> 20) % 3) - 1, i};
        assert_int_equal(
            sim_schedule_at(sim, (x >> 8) % 4, o[i].prio, "o", ev_order, &o[i], NULL, NULL), 0);
    }
    sim_run(sim, NULL);
    assert_int_equal(rec.n, N);
    assert_key_order(&rec);
}

/* Callback at T schedules more events at T: they run in the same step, by prio then insertion,
 * interleaved with what was already pending at T. */
struct same_step {
    struct log *lg;
    struct ev late_hi, early_lo1, early_lo2;
};

static void ev_spawn_now(struct sim *sim, void *user)
{
    struct same_step *s = user;
    log_add(s->lg, sim_now(sim), 0, "spawner");
    assert_int_equal(sim_schedule_in(sim, 0, 5, "x", ev_log, &s->late_hi, NULL, NULL), 0);
    assert_int_equal(sim_schedule_at(sim, sim_now(sim), -1, "y", ev_log, &s->early_lo1, NULL, NULL),
                     0);
    assert_int_equal(sim_schedule_in(sim, 0, -1, "z", ev_log, &s->early_lo2, NULL, NULL), 0);
}

static void
test_event_scheduled_now_from_callback_runs_same_step_by_prio_then_insertion(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T = 100 * SIM_NS;
    struct log lg = {0};
    struct same_step s = {&lg, {&lg, 1}, {&lg, 2}, {&lg, 3}};
    struct ev pending = {&lg, 4};
    struct ev later = {&lg, 5};
    assert_int_equal(sim_schedule_at(sim, T, -2, "spawner", ev_spawn_now, &s, NULL, NULL), 0);
    assert_int_equal(sim_schedule_at(sim, T, 0, "w", ev_log, &pending, NULL, NULL), 0);
    assert_int_equal(sim_schedule_at(sim, T + 1, -50, "later", ev_log, &later, NULL, NULL), 0);
    sim_run(sim, NULL);
    /* spawner(-2), y(-1), z(-1), w(0), x(5) all at T; then later at T + 1. */
    const int want[] = {0, 2, 3, 4, 1, 5};
    assert_tags(&lg, want, 6);
    for (int i = 0; i < 5; i++)
        assert_int_equal(lg.t[i], T);
    assert_int_equal(lg.t[5], T + 1);
}

/* ---- cancel ---- */

static void test_cancel_pending_event_does_not_fire(void **state)
{
    struct sim *sim = *state;
    struct log lg = {0};
    struct ev a = {&lg, 1}, b = {&lg, 2}, c = {&lg, 3};
    sim_event_id_t ida, idb, idc;
    sim_schedule_at(sim, 10, 0, "a", ev_log, &a, &ida, NULL);
    sim_schedule_at(sim, 20, 0, "b", ev_log, &b, &idb, NULL);
    sim_schedule_at(sim, 30, 0, "c", ev_log, &c, &idc, NULL);
    assert_true(sim_event_pending(sim, idb));
    assert_int_equal(sim_cancel(sim, idb, NULL), 0);
    assert_false(sim_event_pending(sim, idb));
    assert_int_equal(sim_pending(sim), 2);
    sim_run(sim, NULL);
    const int want[] = {1, 3};
    assert_tags(&lg, want, 2);
}

static void test_cancel_fired_event_returns_enoent(void **state)
{
    struct sim *sim = *state;
    sim_event_id_t id;
    struct err e = {""};
    assert_int_equal(sim_schedule_at(sim, 10, 0, "done", ev_nop, NULL, &id, NULL), 0);
    sim_run(sim, NULL);
    assert_false(sim_event_pending(sim, id));
    assert_int_equal(sim_cancel(sim, id, &e), -ENOENT);
    assert_non_null(strstr(e.msg, "'done'"));
    assert_non_null(strstr(e.msg, "already fired or was cancelled"));
}

static void test_cancel_twice_returns_enoent(void **state)
{
    struct sim *sim = *state;
    sim_event_id_t id;
    assert_int_equal(sim_schedule_at(sim, 10, 0, "e", ev_nop, NULL, &id, NULL), 0);
    assert_int_equal(sim_cancel(sim, id, NULL), 0);
    assert_int_equal(sim_cancel(sim, id, NULL), -ENOENT);
    assert_int_equal(sim_pending(sim), 0);
}

static void test_cancel_stale_handle_leaves_slot_reuser_alone(void **state)
{
    struct sim *sim = *state;
    struct log lg = {0};
    struct ev b = {&lg, 2};
    sim_event_id_t ida, idb;
    sim_schedule_at(sim, 10, 0, "a", ev_nop, NULL, &ida, NULL);
    assert_int_equal(sim_cancel(sim, ida, NULL), 0);
    /* b likely reuses a's slot; a's old handle must not touch it. */
    sim_schedule_at(sim, 20, 0, "b", ev_log, &b, &idb, NULL);
    assert_true(ida != idb);
    assert_int_equal(sim_cancel(sim, ida, NULL), -ENOENT);
    assert_true(sim_event_pending(sim, idb));
    sim_run(sim, NULL);
    assert_int_equal(lg.n, 1);
}

static void test_cancel_unknown_handle_returns_einval(void **state)
{
    struct sim *sim = *state;
    sim_event_id_t id;
    struct err e = {""};
    sim_schedule_at(sim, 10, 0, "e", ev_nop, NULL, &id, NULL);
    assert_int_equal(sim_cancel(sim, SIM_EVENT_NONE, NULL), -EINVAL);
    assert_int_equal(sim_cancel(sim, 0xffffffffu, NULL), -EINVAL);     /* slot never allocated */
    assert_int_equal(sim_cancel(sim, id + (7ull << 32), &e), -EINVAL); /* future generation */
    assert_non_null(strstr(e.msg, "not a handle issued by this sim"));
    assert_true(sim_event_pending(sim, id));
}

/* ---- errors ---- */

static void test_schedule_in_past_is_error_with_values(void **state)
{
    struct sim *sim = *state;
    sim_event_id_t id = 42;
    struct err e = {""};
    assert_int_equal(sim_run_until(sim, 250, NULL), 0);
    assert_int_equal(sim_schedule_at(sim, 100, 0, "x", ev_nop, NULL, &id, &e), -EINVAL);
    assert_int_equal(id, SIM_EVENT_NONE);
    assert_non_null(strstr(e.msg, "event 'x' at 100 ps is before now (250 ps)"));
    assert_int_equal(sim_pending(sim), 0);
}

static void test_error_without_err_keeps_the_code(void **state)
{
    struct sim *sim = *state;
    sim_run_until(sim, 250, NULL);
    assert_int_equal(sim_schedule_at(sim, 100, 0, "x", ev_nop, NULL, NULL, NULL), -EINVAL);
    assert_int_equal(sim_pending(sim), 0);
}

static void test_success_leaves_err_alone(void **state)
{
    struct sim *sim = *state;
    struct err e = {"untouched"};
    assert_int_equal(sim_schedule_at(sim, 1, 0, "ok", ev_nop, NULL, NULL, &e), 0);
    assert_int_equal(sim_run(sim, &e), 0);
    assert_string_equal(e.msg, "untouched");
}

static bool tick_false(struct sim *sim, void *user)
{
    (void)sim;
    (void)user;
    return false;
}

static void test_clock_zero_period_is_error(void **state)
{
    struct sim *sim = *state;
    struct err e = {""};
    assert_null(clock_now(sim, "clk0", 0, tick_false, NULL, &e));
    assert_non_null(strstr(e.msg, "clock 'clk0': period 0 ps must be > 0"));
    assert_int_equal(sim_pending(sim), 0);
}

static void test_clock_negative_period_is_error(void **state)
{
    struct sim *sim = *state;
    struct err e = {""};
    assert_null(clock_now(sim, "clkneg", -1250, tick_false, NULL, &e));
    assert_non_null(strstr(e.msg, "clock 'clkneg': period -1250 ps must be > 0"));
    assert_int_equal(sim_pending(sim), 0);
}

static void test_schedule_in_overflow_is_error(void **state)
{
    struct sim *sim = *state;
    struct err e = {""};
    sim_run_until(sim, 1000, NULL);
    sim_event_id_t id = 1;
    assert_int_equal(sim_schedule_in(sim, SIM_TIME_MAX - 999, 0, "far", ev_nop, NULL, &id, &e),
                     -EOVERFLOW);
    assert_int_equal(id, SIM_EVENT_NONE);
    assert_non_null(strstr(e.msg, "event 'far': now (1000 ps)"));
    /* The last representable time is fine. */
    assert_int_equal(sim_schedule_in(sim, SIM_TIME_MAX - 1000, 0, "edge", ev_nop, NULL, &id, NULL),
                     0);
    assert_true(sim_event_pending(sim, id));
}

static void test_run_for_overflow_is_error(void **state)
{
    struct sim *sim = *state;
    sim_run_until(sim, 5, NULL);
    assert_int_equal(sim_run_for(sim, SIM_TIME_MAX, NULL), -EOVERFLOW);
    assert_int_equal(sim_now(sim), 5);
}

static void test_run_until_before_now_is_error(void **state)
{
    struct sim *sim = *state;
    struct err e = {""};
    sim_run_until(sim, 500, NULL);
    assert_int_equal(sim_run_until(sim, 499, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "sim_run_until(499 ps) is before now (500 ps)"));
    assert_int_equal(sim_now(sim), 500);
}

struct nested {
    int rc;
    struct err e;
};

static void ev_run_inside(struct sim *sim, void *user)
{
    struct nested *n = user;
    n->rc = sim_run(sim, &n->e);
}

static void test_run_from_callback_is_ebusy(void **state)
{
    struct sim *sim = *state;
    struct nested n = {0, {""}};
    sim_schedule_at(sim, 1, 0, "nested", ev_run_inside, &n, NULL, NULL);
    assert_int_equal(sim_run(sim, NULL), 0);
    assert_int_equal(n.rc, -EBUSY);
    assert_non_null(strstr(n.e.msg, "inside callback 'nested'"));
}

static bool tick_busy(struct sim *sim, void *user)
{
    (void)sim;
    (void)user;
    return true;
}

/* A clock whose next edge passes the time range fails inside the run: the clock is left idle,
 * and the run call returns the failure with its message. */
static void test_clock_overflow_inside_run_is_returned_by_the_run(void **state)
{
    struct sim *sim = *state;
    struct err e = {""};
    struct sim_clock *clk = clock_now(sim, "slow", INT64_MAX, tick_busy, NULL, NULL);
    assert_non_null(clk);
    assert_int_equal(sim_run(sim, &e), -EOVERFLOW);
    assert_non_null(strstr(e.msg, "clock 'slow': next edge after"));
    assert_non_null(strstr(e.msg, "overflows the time range; clock left idle"));
    assert_int_equal(sim_clock_ticks(clk), 3);
    assert_false(sim_clock_active(clk));
    assert_int_equal(sim_pending(sim), 0);
    /* The failure belongs to that run only. */
    assert_int_equal(sim_run(sim, &e), 0);
}

/* ---- run semantics ---- */

static void test_run_until_fires_events_at_exactly_t_and_leaves_now_at_t(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T = 7 * SIM_US;
    struct log lg = {0};
    struct ev before = {&lg, 1}, at = {&lg, 2}, after = {&lg, 3};
    sim_schedule_at(sim, T - 1, 0, "before", ev_log, &before, NULL, NULL);
    sim_schedule_at(sim, T, 0, "at", ev_log, &at, NULL, NULL);
    sim_schedule_at(sim, T + 1, 0, "after", ev_log, &after, NULL, NULL);
    assert_int_equal(sim_run_until(sim, T, NULL), 0);
    const int want[] = {1, 2};
    assert_tags(&lg, want, 2);
    assert_int_equal(sim_now(sim), T);
    assert_int_equal(sim_pending(sim), 1);
    /* With nothing due, now still moves to t. */
    assert_int_equal(sim_run_until(sim, T, NULL), 0);
    assert_int_equal(sim_now(sim), T);
}

static void test_run_for_advances_now_by_delay(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T_FIRST = 3 * SIM_NS, T_SECOND = 4 * SIM_NS;
    struct log lg = {0};
    struct ev a = {&lg, 1};
    sim_schedule_at(sim, T_FIRST + T_SECOND, 0, "a", ev_log, &a, NULL, NULL);
    assert_int_equal(sim_run_for(sim, T_FIRST, NULL), 0);
    assert_int_equal(sim_now(sim), T_FIRST);
    assert_int_equal(lg.n, 0);
    assert_int_equal(sim_run_for(sim, T_SECOND, NULL), 0);
    assert_int_equal(sim_now(sim), T_FIRST + T_SECOND);
    assert_int_equal(lg.n, 1);
}

static void test_run_empties_queue_and_now_is_last_event_time(void **state)
{
    struct sim *sim = *state;
    sim_schedule_at(sim, 9 * SIM_MS, 0, "last", ev_nop, NULL, NULL, NULL);
    sim_schedule_at(sim, 2 * SIM_MS, 0, "first", ev_nop, NULL, NULL, NULL);
    assert_int_equal(sim_run(sim, NULL), 0);
    assert_int_equal(sim_pending(sim), 0);
    assert_int_equal(sim_now(sim), 9 * SIM_MS);
    assert_int_equal(sim_events_fired(sim), 2);
    assert_false(sim_stopped(sim));
}

static void test_stop_from_callback_returns_after_that_callback(void **state)
{
    struct sim *sim = *state;
    struct log lg = {0};
    struct ev a = {&lg, 1}, s = {&lg, 2}, same = {&lg, 3}, b = {&lg, 4};
    sim_schedule_at(sim, 10, 0, "a", ev_log, &a, NULL, NULL);
    sim_schedule_at(sim, 20, 0, "stop", ev_stop, &s, NULL, NULL);
    sim_schedule_at(sim, 20, 1, "same", ev_log, &same, NULL, NULL);
    sim_schedule_at(sim, 30, 0, "b", ev_log, &b, NULL, NULL);
    assert_int_equal(sim_run_until(sim, 100, NULL), 0);
    assert_true(sim_stopped(sim));
    assert_int_equal(sim_now(sim), 20); /* not 100: stopped */
    const int want1[] = {1, 2};
    assert_tags(&lg, want1, 2);
    /* The next run resumes where it stopped. */
    assert_int_equal(sim_run_until(sim, 100, NULL), 0);
    assert_false(sim_stopped(sim));
    assert_int_equal(sim_now(sim), 100);
    const int want2[] = {1, 2, 3, 4};
    assert_tags(&lg, want2, 4);
}

/* ---- names and tracing ---- */

static void test_current_name_reports_running_event_or_null_outside(void **state)
{
    struct sim *sim = *state;
    struct log lg = {0};
    struct ev a = {&lg, 1}, b = {&lg, 2};
    assert_null(sim_current_name(sim));
    sim_schedule_at(sim, 1, 0, "dma.rd", ev_log, &a, NULL, NULL);
    sim_schedule_at(sim, 2, 0, NULL, ev_log, &b, NULL, NULL);
    sim_run(sim, NULL);
    assert_string_equal(lg.name[0], "dma.rd");
    assert_string_equal(lg.name[1], "(unnamed)");
    assert_null(sim_current_name(sim));
}

struct trace_log {
    int n;
    sim_time_t t[16];
    const char *name[16];
};

static void trace_hook(void *ctx, sim_time_t t, const char *name)
{
    struct trace_log *tl = ctx;
    assert_true(tl->n < 16);
    tl->t[tl->n] = t;
    tl->name[tl->n] = name;
    tl->n++;
}

static bool tick_three(struct sim *sim, void *user)
{
    (void)sim;
    int *left = user;
    return --*left > 0;
}

static void test_trace_hook_sees_every_fired_event_and_tick(void **state)
{
    struct sim *sim = *state;
    struct trace_log tl = {0};
    int left = 3;
    sim_set_trace(sim, trace_hook, &tl);
    sim_schedule_at(sim, 5, 0, "ev", ev_nop, NULL, NULL, NULL);
    assert_non_null(clock_now(sim, "core.clk", 4, tick_three, &left, NULL));
    sim_run(sim, NULL);
    /* clock ticks at 0, 4, 8; the event at 5. */
    assert_int_equal(tl.n, 4);
    assert_string_equal(tl.name[0], "core.clk");
    assert_int_equal(tl.t[0], 0);
    assert_string_equal(tl.name[1], "core.clk");
    assert_int_equal(tl.t[1], 4);
    assert_string_equal(tl.name[2], "ev");
    assert_int_equal(tl.t[2], 5);
    assert_string_equal(tl.name[3], "core.clk");
    assert_int_equal(tl.t[3], 8);
    /* Removing the hook stops the calls. */
    sim_set_trace(sim, NULL, NULL);
    sim_schedule_in(sim, 1, 0, "quiet", ev_nop, NULL, NULL, NULL);
    sim_run(sim, NULL);
    assert_int_equal(tl.n, 4);
}

static void test_two_sims_are_independent(void **state)
{
    struct sim *a = *state;
    struct sim *b;
    struct err ea = {""}, eb = {""};
    assert_int_equal(sim_create(&b, NULL), 0);
    sim_schedule_at(a, 10, 0, "a", ev_nop, NULL, NULL, NULL);
    sim_schedule_at(b, 99, 0, "b", ev_nop, NULL, NULL, NULL);
    sim_run(a, NULL);
    assert_int_equal(sim_now(a), 10);
    assert_int_equal(sim_now(b), 0);
    assert_int_equal(sim_pending(b), 1);
    sim_schedule_at(b, 1, 0, "past", ev_nop, NULL, NULL, NULL);
    sim_run(b, NULL);
    assert_int_equal(sim_now(b), 99);
    assert_int_equal(sim_schedule_at(b, 1, 0, "past", ev_nop, NULL, NULL, &eb), -EINVAL);
    assert_int_equal(sim_schedule_at(a, 11, 0, "a", ev_nop, NULL, NULL, &ea), 0);
    assert_string_not_equal(eb.msg, "");
    assert_string_equal(ea.msg, "");
    sim_destroy(b);
}

/* ---- clocks ---- */

/* A block with a work counter: ticks while work is left. */
struct block {
    int work;
    int tag;
    struct log *lg;
    struct sim_clock *clk;
    const char *name_seen;
};

static bool block_tick(struct sim *sim, void *user)
{
    struct block *b = user;
    if (b->lg)
        log_add(b->lg, sim_now(sim), b->tag, sim_current_name(sim));
    b->name_seen = sim_current_name(sim);
    if (b->work > 0)
        b->work--;
    return b->work > 0;
}

static void test_clock_ticks_only_while_busy(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T_CLK = 1250; /* 800 MHz */
    struct block b = {.work = 5};
    b.clk = clock_now(sim, "core", (int64_t)T_CLK, block_tick, &b, NULL);
    assert_non_null(b.clk);
    assert_true(sim_clock_active(b.clk));
    assert_int_equal(sim_run_until(sim, 100 * T_CLK, NULL), 0);
    assert_int_equal(sim_clock_ticks(b.clk), 5);
    assert_false(sim_clock_active(b.clk));
    assert_int_equal(sim_events_fired(sim), 5);
    assert_int_equal(sim_pending(sim), 0);
    assert_int_equal(sim_clock_cycle(b.clk), 100);
    assert_string_equal(b.name_seen, "core");
}

static void ev_give_work(struct sim *sim, void *user)
{
    (void)sim;
    struct block *b = user;
    b->work += 2;
    assert_int_equal(sim_clock_wake(b->clk, NULL), 0);
}

static void test_clock_idle_gap_costs_no_events_and_cycle_counts_it(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T_CLK = SIM_NS;
    const uint64_t IDLE_CYCLES = 1000000000000ull; /* 10^12 cycles = 1000 s at 1 GHz */
    struct block b = {.work = 3};
    b.clk = clock_now(sim, "core", (int64_t)T_CLK, block_tick, &b, NULL);
    assert_int_equal(sim_run_until(sim, 3 * T_CLK, NULL), 0);
    assert_int_equal(sim_clock_ticks(b.clk), 3);
    uint64_t fired_before = sim_events_fired(sim);

    /* Long idle gap, then new work arrives exactly on an edge. */
    const sim_time_t T_WAKE = (3 + IDLE_CYCLES) * T_CLK;
    sim_schedule_at(sim, T_WAKE, 0, "work", ev_give_work, &b, NULL, NULL);
    assert_int_equal(sim_run_until(sim, T_WAKE - 1, NULL), 0);
    assert_int_equal(sim_events_fired(sim), fired_before); /* idle: no events spent */
    assert_int_equal(sim_clock_cycle(b.clk), 3 + IDLE_CYCLES - 1);

    assert_int_equal(sim_run(sim, NULL), 0);
    /* The wake event, then two ticks at T_WAKE and T_WAKE + T_CLK. */
    assert_int_equal(sim_events_fired(sim), fired_before + 1 + 2);
    assert_int_equal(sim_clock_ticks(b.clk), 3 + 2);
    assert_int_equal(sim_now(sim), T_WAKE + T_CLK);
    assert_int_equal(sim_clock_cycle(b.clk), 3 + IDLE_CYCLES + 1);
}

static void test_clock_wake_between_edges_ticks_on_next_edge(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T_CLK = 10 * SIM_NS, T_OFF = 5 * SIM_NS;
    struct log lg = {0};
    struct block b = {.work = 1, .lg = &lg};
    b.clk = clock_now(sim, "core", (int64_t)T_CLK, block_tick, &b, NULL);
    sim_schedule_at(sim, 2 * T_CLK + T_OFF, 0, "work", ev_give_work, &b, NULL, NULL);
    sim_run(sim, NULL);
    assert_int_equal(lg.n, 3);
    assert_int_equal(lg.t[0], 0);
    assert_int_equal(lg.t[1], 3 * T_CLK); /* next edge after 2.5 periods */
    assert_int_equal(lg.t[2], 4 * T_CLK);
    assert_int_equal(sim_clock_cycle(b.clk), 4);
}

static void test_clock_wake_on_an_edge_ticks_on_that_edge(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T_CLK = 10 * SIM_NS;
    struct log lg = {0};
    struct block b = {.work = 1, .lg = &lg};
    b.clk = clock_now(sim, "core", (int64_t)T_CLK, block_tick, &b, NULL);
    sim_schedule_at(sim, 4 * T_CLK, 0, "work", ev_give_work, &b, NULL, NULL);
    sim_run(sim, NULL);
    assert_int_equal(lg.n, 3);
    assert_int_equal(lg.t[1], 4 * T_CLK);
    assert_int_equal(lg.t[2], 5 * T_CLK);
}

static void test_clock_wake_after_its_idle_tick_on_same_edge_waits_one_period(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T_CLK = 10 * SIM_NS;
    struct log lg = {0};
    struct block b = {.work = 1, .lg = &lg};
    b.clk = clock_now(sim, "core", (int64_t)T_CLK, block_tick, &b, NULL);
    /* Fires after the tick at 0 (larger prio), which went idle: no second tick at 0. */
    sim_schedule_at(sim, 0, 1, "work", ev_give_work, &b, NULL, NULL);
    sim_run(sim, NULL);
    assert_int_equal(lg.n, 3);
    assert_int_equal(lg.t[0], 0);
    assert_int_equal(lg.t[1], T_CLK);
    assert_int_equal(lg.t[2], 2 * T_CLK);
}

static void test_clock_wake_while_active_is_a_no_op(void **state)
{
    struct sim *sim = *state;
    struct block b = {.work = 3};
    b.clk = clock_now(sim, "core", 100, block_tick, &b, NULL);
    assert_int_equal(sim_clock_wake(b.clk, NULL), 0);
    assert_int_equal(sim_clock_wake(b.clk, NULL), 0);
    assert_int_equal(sim_pending(sim), 1);
    sim_run(sim, NULL);
    assert_int_equal(sim_clock_ticks(b.clk), 3);
}

struct waker2 {
    struct sim_clock *clk;
    int ticks;
};

static bool tick_wakes_itself_once(struct sim *sim, void *user)
{
    (void)sim;
    struct waker2 *w = user;
    w->ticks++;
    if (w->ticks == 1)
        assert_int_equal(sim_clock_wake(w->clk, NULL), 0);
    return false;
}

static void test_clock_woken_inside_its_own_tick_ticks_next_edge(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T_CLK = 10;
    struct waker2 w = {0};
    struct sim_clock_cfg cfg = {
        .name = "self",
        .period_ps = (int64_t)T_CLK,
        .start = 0,
        .tick = tick_wakes_itself_once,
        .user = &w,
        .start_idle = true,
    };
    w.clk = clock_cfg(sim, &cfg);
    assert_non_null(w.clk);
    assert_false(sim_clock_active(w.clk));
    assert_int_equal(sim_pending(sim), 0);
    assert_int_equal(sim_clock_wake(w.clk, NULL), 0);
    sim_run(sim, NULL);
    assert_int_equal(w.ticks, 2);
    assert_int_equal(sim_now(sim), T_CLK);
}

static void test_clock_with_start_offset_ticks_on_shifted_grid(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T_CLK = 10 * SIM_NS, T_PHASE = 3 * SIM_NS;
    struct log lg = {0};
    struct block b = {.work = 3, .lg = &lg};
    struct sim_clock_cfg cfg = {
        .name = "shifted",
        .period_ps = (int64_t)T_CLK,
        .start = T_PHASE,
        .tick = block_tick,
        .user = &b,
    };
    b.clk = clock_cfg(sim, &cfg);
    assert_non_null(b.clk);
    assert_int_equal(sim_clock_cycle(b.clk), 0); /* before start */
    sim_run(sim, NULL);
    assert_int_equal(lg.n, 3);
    assert_int_equal(lg.t[0], T_PHASE);
    assert_int_equal(lg.t[1], T_PHASE + T_CLK);
    assert_int_equal(lg.t[2], T_PHASE + 2 * T_CLK);
    assert_int_equal(sim_clock_cycle(b.clk), 2);
    /* Wake between edges: lands on the shifted grid. */
    sim_run_until(sim, T_PHASE + 5 * T_CLK + 1, NULL);
    b.work = 1;
    sim_clock_wake(b.clk, NULL);
    sim_run(sim, NULL);
    assert_int_equal(lg.t[3], T_PHASE + 6 * T_CLK);
}

static void test_clock_created_late_with_past_start_keeps_grid(void **state)
{
    struct sim *sim = *state;
    const sim_time_t T_CLK = 1000;
    struct log lg = {0};
    struct block b = {.work = 1, .lg = &lg};
    sim_run_until(sim, 2500, NULL);
    struct sim_clock_cfg cfg = {
        .name = "late", .period_ps = (int64_t)T_CLK, .start = 0, .tick = block_tick, .user = &b};
    b.clk = clock_cfg(sim, &cfg);
    assert_int_equal(sim_clock_cycle(b.clk), 2);
    sim_run(sim, NULL);
    assert_int_equal(lg.t[0], 3 * T_CLK);
    assert_int_equal(sim_clock_cycle(b.clk), 3);
}

static void run_two_clocks(int prio_a, int prio_b, struct log *lg)
{
    struct sim *sim;
    assert_int_equal(sim_create(&sim, NULL), 0);
    struct block a = {.work = 1000, .tag = 'A', .lg = lg}, b = {.work = 1000, .tag = 'B', .lg = lg};
    struct sim_clock_cfg ca = {
        .name = "A", .period_ps = 2, .prio = prio_a, .tick = block_tick, .user = &a};
    struct sim_clock_cfg cb = {
        .name = "B", .period_ps = 3, .prio = prio_b, .tick = block_tick, .user = &b};
    assert_non_null(clock_cfg(sim, &cb));
    assert_non_null(clock_cfg(sim, &ca));
    assert_int_equal(sim_run_until(sim, 12, NULL), 0);
    sim_destroy(sim);
}

static void test_two_clocks_interleave_by_edge_time_then_prio(void **state)
{
    (void)state;
    struct log lg = {0};
    run_two_clocks(0, 1, &lg);
    /* A: 0 2 4 6 8 10 12; B: 0 3 6 9 12; A first on the shared edges (smaller prio). */
    const sim_time_t want_t[] = {0, 0, 2, 3, 4, 6, 6, 8, 9, 10, 12, 12};
    const char want_c[] = "ABABAABABAAB";
    assert_int_equal(lg.n, 12);
    for (int i = 0; i < 12; i++) {
        if (lg.t[i] != want_t[i] || lg.tag[i] != want_c[i])
            fail_msg("tick %d: %c at %llu, expected %c at %llu", i, lg.tag[i],
                     (unsigned long long)lg.t[i], want_c[i], (unsigned long long)want_t[i]);
    }
}

static void test_two_clocks_same_prio_give_same_order_every_run(void **state)
{
    (void)state;
    struct log a = {0}, b = {0};
    run_two_clocks(0, 0, &a);
    run_two_clocks(0, 0, &b);
    assert_int_equal(a.n, 12);
    assert_int_equal(a.n, b.n);
    for (int i = 0; i < a.n; i++) {
        assert_int_equal(a.t[i], b.t[i]);
        assert_int_equal(a.tag[i], b.tag[i]);
    }
}

static void test_clock_cycle_counts_from_start(void **state)
{
    struct sim *sim = *state;
    struct block b = {.work = 1};
    b.clk = clock_now(sim, "c", 800, block_tick, &b, NULL);
    sim_run_until(sim, 799, NULL);
    assert_int_equal(sim_clock_cycle(b.clk), 0);
    sim_run_until(sim, 800, NULL);
    assert_int_equal(sim_clock_cycle(b.clk), 1);
    sim_run_until(sim, 800 * 1000 + 799, NULL);
    assert_int_equal(sim_clock_cycle(b.clk), 1000);
    assert_int_equal(sim_clock_ticks(b.clk), 1);
    assert_int_equal(sim_clock_period(b.clk), 800);
    assert_string_equal(sim_clock_name(b.clk), "c");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_events_fire_in_time_order),
        T(test_equal_time_orders_by_priority_smaller_first),
        T(test_equal_time_and_priority_orders_by_insertion),
        T(test_reserved_place_keeps_insertion_order),
        T(test_many_events_with_cancels_fire_in_key_order),
        T(test_random_keys_fire_in_time_prio_insertion_order),
        T(test_cancel_from_callback_mid_run_keeps_key_order),
        T(test_event_scheduled_now_from_callback_runs_same_step_by_prio_then_insertion),
        T(test_cancel_pending_event_does_not_fire),
        T(test_cancel_fired_event_returns_enoent),
        T(test_cancel_twice_returns_enoent),
        T(test_cancel_stale_handle_leaves_slot_reuser_alone),
        T(test_cancel_unknown_handle_returns_einval),
        T(test_schedule_in_past_is_error_with_values),
        T(test_error_without_err_keeps_the_code),
        T(test_success_leaves_err_alone),
        T(test_clock_zero_period_is_error),
        T(test_clock_negative_period_is_error),
        T(test_schedule_in_overflow_is_error),
        T(test_run_for_overflow_is_error),
        T(test_run_until_before_now_is_error),
        T(test_run_from_callback_is_ebusy),
        T(test_clock_overflow_inside_run_is_returned_by_the_run),
        T(test_run_until_fires_events_at_exactly_t_and_leaves_now_at_t),
        T(test_run_for_advances_now_by_delay),
        T(test_run_empties_queue_and_now_is_last_event_time),
        T(test_stop_from_callback_returns_after_that_callback),
        T(test_current_name_reports_running_event_or_null_outside),
        T(test_trace_hook_sees_every_fired_event_and_tick),
        T(test_two_sims_are_independent),
        T(test_clock_ticks_only_while_busy),
        T(test_clock_idle_gap_costs_no_events_and_cycle_counts_it),
        T(test_clock_wake_between_edges_ticks_on_next_edge),
        T(test_clock_wake_on_an_edge_ticks_on_that_edge),
        T(test_clock_wake_after_its_idle_tick_on_same_edge_waits_one_period),
        T(test_clock_wake_while_active_is_a_no_op),
        T(test_clock_woken_inside_its_own_tick_ticks_next_edge),
        T(test_clock_with_start_offset_ticks_on_shifted_grid),
        T(test_clock_created_late_with_past_start_keeps_grid),
        T(test_two_clocks_interleave_by_edge_time_then_prio),
        T(test_two_clocks_same_prio_give_same_order_every_run),
        T(test_clock_cycle_counts_from_start),
    };
#undef T
    return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
