/*
 * sim: the discrete-event kernel of flashstream (SystemC-style, in C).
 *
 * Contract
 * --------
 * Modelled:
 *   - Simulated time: sim_time_t, unsigned 64-bit picoseconds (max ~213 simulated days).
 *   - Timed events: a callback plus a user pointer, scheduled at an absolute time or after a
 *     delay. Fixed firing order: time, then priority (signed int, smaller first), then the
 *     order in which they were scheduled. An event scheduled at the current time from inside a
 *     callback runs in the same time step, after the running one, in that same order.
 *   - Clock domains: a tick function called on the edges start + k * period, only while it
 *     returns true ("I still have work"). An idle clock spends no events; sim_clock_wake()
 *     resumes it at the next edge at or after now, so cycle numbers stay integers. The cycle
 *     number counts idle cycles too; active ticks are counted separately.
 *   - Names: every event and clock carries a name, reported by sim_current_name() while it
 *     runs and passed to an optional trace hook for every fired event (NULL by default).
 * Not modelled:
 *   - Delta cycles, signals, sensitivity lists, threads/coroutines: a process is a callback
 *     that schedules its own continuation.
 *   - Parallel execution: one sim runs on one thread. Separate sims share nothing.
 * Units: every time and period is in picoseconds. Use SIM_NS, SIM_US, ... for readability:
 *   sim_schedule_in(sim, 3 * SIM_US, ...).
 *
 * Errors (csim/err.h): functions that act return 0 or a negative errno code (-EINVAL, -ENOENT,
 * -EOVERFLOW, -ENOMEM, -EBUSY) with the message, with the caller's values, in their err. The
 * kernel keeps no message and prints nothing. A clock that cannot take its next edge inside a
 * run (time range, memory) is left idle, the run goes on, and the run call returns the first
 * such failure.
 *
 * Lifetime: event names are stored by pointer, not copied; they must outlive the event (string
 * literals are the usual case). Clock names are copied. Clocks belong to the sim and are freed
 * by sim_destroy().
 */
#ifndef CSIM_SIM_H
#define CSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "csim/err.h"

typedef uint64_t sim_time_t;

#define SIM_PS       ((sim_time_t)1)
#define SIM_NS       ((sim_time_t)1000)
#define SIM_US       ((sim_time_t)1000000)
#define SIM_MS       ((sim_time_t)1000000000)
#define SIM_S        ((sim_time_t)1000000000000)
#define SIM_TIME_MAX UINT64_MAX

/* Event handle: (generation << 32) | (slot + 1). 0 is never a valid handle. A slot's
 * generation wraps after 2^32 reuses; a handle kept that long may then be misjudged. */
typedef uint64_t sim_event_id_t;
#define SIM_EVENT_NONE ((sim_event_id_t)0)

struct sim;
struct sim_clock;

typedef void (*sim_event_fn)(struct sim *sim, void *user);
/* Called on a clock edge; return true while there is more work (tick again next edge). */
typedef bool (*sim_tick_fn)(struct sim *sim, void *user);
/* Called before every fired event and clock tick when installed. */
typedef void (*sim_trace_fn)(void *ctx, sim_time_t t, const char *name);

/* ---- kernel ---- */

int sim_create(struct sim **out, struct err *e);
void sim_destroy(struct sim *sim);

sim_time_t sim_now(const struct sim *sim);

/* Schedule fn(sim, user) at absolute time t (t >= now). name may be NULL. id_out may be NULL;
 * it receives the handle for sim_cancel() (SIM_EVENT_NONE on error). */
int sim_schedule_at(struct sim *sim, sim_time_t t, int prio, const char *name, sim_event_fn fn,
                    void *user, sim_event_id_t *id_out, struct err *e);
/* Same, at now + delay; -EOVERFLOW when that passes SIM_TIME_MAX. */
int sim_schedule_in(struct sim *sim, sim_time_t delay, int prio, const char *name, sim_event_fn fn,
                    void *user, sim_event_id_t *id_out, struct err *e);
/* An event whose time is not known yet (a command that another executor completes later) can
 * keep the place it would have had if scheduled now, among events of equal time and priority:
 * sim_reserve() takes that place, sim_schedule_reserved() schedules the event there later (t >=
 * now; each place once: the caller's duty). -EINVAL for a place never reserved. */
uint64_t sim_reserve(struct sim *sim);
int sim_schedule_reserved(struct sim *sim, uint64_t place, sim_time_t t, int prio, const char *name,
                          sim_event_fn fn, void *user, sim_event_id_t *id_out, struct err *e);
/* Remove a pending event. -ENOENT if it already fired or was cancelled, -EINVAL if the handle
 * was never issued by this sim. */
int sim_cancel(struct sim *sim, sim_event_id_t id, struct err *e);
bool sim_event_pending(const struct sim *sim, sim_event_id_t id);

/* Fire every event with time <= t, then leave now = t (t >= now). If sim_stop() was called,
 * return at once with now = the time of the event that stopped it. -EBUSY from a callback. */
int sim_run_until(struct sim *sim, sim_time_t t, struct err *e);
/* sim_run_until(sim, now + d); -EOVERFLOW when that passes SIM_TIME_MAX. */
int sim_run_for(struct sim *sim, sim_time_t d, struct err *e);
/* Fire events until the queue is empty (or sim_stop()); now = time of the last event. A clock
 * that never goes idle keeps the queue non-empty: use sim_run_until() then. */
int sim_run(struct sim *sim, struct err *e);
/* From a callback: finish the running callback, then return from the current run call.
 * Outside a run call it has no effect (the next run clears it). */
void sim_stop(struct sim *sim);
/* True if the last run call returned because of sim_stop(). */
bool sim_stopped(const struct sim *sim);

/* Name of the event or clock whose callback is running; NULL outside callbacks. */
const char *sim_current_name(const struct sim *sim);
/* Install (or with fn == NULL remove) the trace hook. */
void sim_set_trace(struct sim *sim, sim_trace_fn fn, void *ctx);

/* Number of pending events; true and *t = time of the earliest one if there is one. */
uint64_t sim_pending(const struct sim *sim);
bool sim_next_time(const struct sim *sim, sim_time_t *t);
/* Events fired since creation (clock ticks included). */
uint64_t sim_events_fired(const struct sim *sim);

/* ---- clock domains ---- */

struct sim_clock_cfg {
    const char *name;  /* copied */
    int64_t period_ps; /* > 0 */
    sim_time_t start;  /* grid origin: edges at start + k * period_ps */
    int prio;          /* tie-break against events at the same time, as for events */
    sim_tick_fn tick;
    void *user;
    bool start_idle; /* true: no tick until sim_clock_wake() */
};

/* A clock of sim; the first tick is at the first edge at or after now (with start = now:
 * at now). -EINVAL for a period <= 0 or no tick function. */
int sim_clock_create(const struct sim_clock_cfg *cfg, struct sim *sim, struct sim_clock **out,
                     struct err *e);

/* New work: tick at the next edge at or after now (never twice on one edge). No-op while
 * active; called from the clock's own tick it makes that tick count as "more work". */
int sim_clock_wake(struct sim_clock *clk, struct err *e);
bool sim_clock_active(const struct sim_clock *clk);
/* floor((now - start) / period), 0 before start: idle cycles included. */
uint64_t sim_clock_cycle(const struct sim_clock *clk);
/* Number of tick calls so far. */
uint64_t sim_clock_ticks(const struct sim_clock *clk);
sim_time_t sim_clock_period(const struct sim_clock *clk);
const char *sim_clock_name(const struct sim_clock *clk);

#endif /* CSIM_SIM_H */
