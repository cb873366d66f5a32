/*
 * bench_sim: throughput of the event kernel (csim/sim.c).
 *
 *   events : P concurrent processes, each rescheduling itself after a pseudo-random delay of
 *            1..1000 ns (xorshift32 per process, fixed seeds), until E events have fired.
 *   cancel : the same, but every firing also arms a timeout 2 us later (past any step delay) and
 * cancels the previous one (one schedule + one cancel of a pending event per firing). clock  : one
 * clock whose tick always has work, for T ticks. idle   : one clock ticks 10 times, idles for 10^12
 * cycles, is woken, ticks 10 more: shows the idle gap costs no events.
 *
 * Every timed figure is the median of 5 runs.
 * Usage: bench_sim [events_per_run [events|p100k|cancel|clock|idle]]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testbench/bench_util.h"
#include "csim/sim.h"

#define RUNS 5

/* ---- self-rescheduling processes ---- */

struct proc {
    uint32_t rng;
    uint64_t *budget; /* events left, shared */
    sim_event_id_t timeout;
    bool with_timeout;
};

static inline uint32_t xorshift32(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

/* A kernel and a clock ticking from now; a benchmark has no use for a failure but to stop. */
static struct sim *new_sim(void)
{
    struct sim *sim;

    if (sim_create(&sim, NULL))
        abort();
    return sim;
}

static struct sim_clock *new_clock(struct sim *sim, const char *name, int64_t period,
                                   sim_tick_fn tick, void *user)
{
    struct sim_clock_cfg cfg = {
        .name = name, .period_ps = period, .start = sim_now(sim), .tick = tick, .user = user};
    struct sim_clock *clk;

    if (sim_clock_create(&cfg, sim, &clk, NULL))
        abort();
    return clk;
}

static void proc_timeout(struct sim *sim, void *user)
{
    (void)sim;
    (void)user;
}

static void proc_step(struct sim *sim, void *user)
{
    struct proc *p = user;
    if (*p->budget == 0)
        return;
    --*p->budget;
    if (p->with_timeout) {
        if (p->timeout != SIM_EVENT_NONE && sim_cancel(sim, p->timeout, NULL) != 0)
            abort();
        if (sim_schedule_in(sim, 2 * SIM_US, 0, "timeout", proc_timeout, p, &p->timeout, NULL) != 0)
            abort();
    }
    sim_time_t delay = (1 + xorshift32(&p->rng) % 1000) * SIM_NS;
    if (sim_schedule_in(sim, delay, (int)(p->rng >> 30), "proc", proc_step, p, NULL, NULL) != 0)
        abort();
}

/* Returns events per wall second (timeouts excluded: they are all cancelled). */
static double run_procs(int nproc, uint64_t events, bool with_timeout, uint64_t *fired_out)
{
    struct sim *sim = new_sim();
    struct proc *procs = calloc((size_t)nproc, sizeof(*procs));
    if (!procs)
        abort();
    uint64_t budget = events;
    for (int i = 0; i < nproc; i++) {
        procs[i] = (struct proc){.rng = 0x9e3779b9u ^ (uint32_t)(i * 2654435761u),
                                 .budget = &budget,
                                 .with_timeout = with_timeout};
        if (procs[i].rng == 0)
            procs[i].rng = 1;
        if (sim_schedule_at(sim, (sim_time_t)i, 0, "proc", proc_step, &procs[i], NULL, NULL) != 0)
            abort();
    }
    double t0 = bench_wall_s();
    if (sim_run(sim, NULL))
        abort();
    double dt = bench_wall_s() - t0;
    uint64_t fired = sim_events_fired(sim);
    if (fired_out)
        *fired_out = fired;
    sim_destroy(sim);
    free(procs);
    return (double)fired / dt;
}

static void bench_procs(const char *key, int nproc, uint64_t events, bool with_timeout)
{
    double v[RUNS];
    uint64_t fired = 0, fired0 = 0;
    for (int r = 0; r < RUNS; r++) {
        v[r] = run_procs(nproc, events, with_timeout, &fired);
        if (r == 0)
            fired0 = fired;
        else if (fired != fired0) {
            fprintf(stderr, "bench_sim: run %d fired %llu events, run 0 fired %llu\n", r,
                    (unsigned long long)fired, (unsigned long long)fired0);
            exit(1);
        }
    }
    double med = bench_median(v, RUNS);
    printf("%-28s %6.1fe6   (%d processes, %llu events/run%s, median of %d)\n", key, med / 1e6,
           nproc, (unsigned long long)fired0,
           with_timeout ? ", + 1 schedule and 1 cancel of a timeout per event" : "", RUNS);
    char what[160];
    snprintf(what, sizeof(what),
             "event kernel: %d self-rescheduling processes, random 1-1000 ns delays%s", nproc,
             with_timeout ? ", a schedule + cancel per event" : "");
    bench_figure(what, nproc == 1000 && !with_timeout ? ">= 10 M events/s" : "", "%.1f M events/s",
                 med / 1e6);
}

/* ---- clocks ---- */

struct ticker {
    uint64_t left;
};

static bool tick_busy(struct sim *sim, void *user)
{
    (void)sim;
    struct ticker *t = user;
    return --t->left > 0;
}

static void bench_clock(uint64_t ticks)
{
    double v[RUNS];
    for (int r = 0; r < RUNS; r++) {
        struct sim *sim = new_sim();
        struct ticker t = {ticks};
        struct sim_clock *clk = new_clock(sim, "core", 1250, tick_busy, &t);
        double t0 = bench_wall_s();
        if (sim_run(sim, NULL))
            abort();
        double dt = bench_wall_s() - t0;
        if (sim_clock_ticks(clk) != ticks)
            abort();
        v[r] = (double)ticks / dt;
        sim_destroy(sim);
    }
    printf("%-28s %6.1fe6   (1 clock, 1250 ps period, tick always busy, %llu ticks/run, "
           "median of %d)\n",
           "sim.clock_ticks_per_s", bench_median(v, RUNS) / 1e6, (unsigned long long)ticks, RUNS);
    bench_figure("event kernel: one always-busy clock domain", "", "%.0f M ticks/s",
                 v[RUNS / 2] / 1e6);
}

static void bench_idle(void)
{
    const int64_t period = 1000; /* 1 GHz */
    const uint64_t idle_cycles = 1000000000000ull;
    struct sim *sim = new_sim();
    struct ticker t = {10};
    struct sim_clock *clk = new_clock(sim, "core", period, tick_busy, &t);
    if (sim_run(sim, NULL))
        abort();
    uint64_t ev0 = sim_events_fired(sim);
    sim_time_t wake_at = sim_now(sim) + idle_cycles * (sim_time_t)period;
    double t0 = bench_wall_s();
    if (sim_run_until(sim, wake_at, NULL))
        abort();
    double dt = bench_wall_s() - t0;
    uint64_t ev_idle = sim_events_fired(sim) - ev0;
    t.left = 10;
    if (sim_clock_wake(clk, NULL) || sim_run(sim, NULL))
        abort();
    printf("%-28s %6llu     (clock idle for %llu cycles = %.0f s simulated: %llu events, "
           "%.1f us wall; after wake: cycle %llu, active ticks %llu)\n",
           "sim.idle_gap_events", (unsigned long long)ev_idle, (unsigned long long)idle_cycles,
           (double)(idle_cycles * (sim_time_t)period) / (double)SIM_S, (unsigned long long)ev_idle,
           dt * 1e6, (unsigned long long)sim_clock_cycle(clk),
           (unsigned long long)sim_clock_ticks(clk));
    bench_figure("event kernel: a clock idle for 10^12 cycles", "idle time is free", "%llu events",
                 (unsigned long long)ev_idle);
    sim_destroy(sim);
}

int main(int argc, char **argv)
{
    uint64_t events = 10000000;
    const char *only = argc > 2 ? argv[2] : NULL;
    if (argc > 1)
        events = strtoull(argv[1], NULL, 0);
    if (events == 0 || argc > 3) {
        fprintf(stderr, "usage: bench_sim [events_per_run [events|p100k|cancel|clock|idle]]\n");
        return 2;
    }
#define WANT(name) (!only || strcmp(only, name) == 0)
    printf("# bench_sim: event kernel throughput, wall clock, median of %d runs\n", RUNS);
    if (WANT("events"))
        bench_procs("sim.events_per_s", 1000, events, false);
    if (WANT("p100k"))
        bench_procs("sim.events_per_s.p100k", 100000, events, false);
    if (WANT("cancel"))
        bench_procs("sim.events_per_s.cancel", 1000, events, true);
    if (WANT("clock"))
        bench_clock(events);
    if (WANT("idle"))
        bench_idle();
#undef WANT
    return 0;
}
