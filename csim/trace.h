/*
 * trace: a Chrome trace event file (trace.json) of what each resource did and when; opens in
 * Perfetto UI (ui.perfetto.dev) and chrome://tracing.
 *
 * Contract
 * --------
 * Modelled: the JSON object form of the Trace Event Format,
 *     {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}
 * with one track per resource: a track is a (process, thread) pair of names, e.g. process "an0"
 * (a node), thread "core", "dma", "vu", "flash", "fabric", "optimizer". Processes and threads
 * get pid/tid numbers in order of first use and metadata events naming them and keeping that
 * order in the viewer (process_name, process_sort_index, thread_name, thread_sort_index).
 * Events: complete events ("ph": "X": name, category, start, duration, args), instant events
 * ("ph": "i", thread scope) and counters ("ph": "C", per process). Times are given in
 * picoseconds (uint64, as the kernel's) and written as microseconds, a double (ts = ps / 1e6),
 * exact to the picosecond up to 2^53 ps (about 2.5 simulated hours).
 * Viewers drop or misdraw complete events of one thread that overlap without nesting, so at
 * write time each track's events are sorted by start (longer first on ties) and laid out in
 * lanes: an event goes to the first lane where it starts after the lane's last event ended or
 * nests inside it; lanes after the first become extra threads named "<thread> #2", "#3", ...
 * Bounded size: at most max_events events are kept; later ones are counted, not stored, and the
 * file then carries a global instant event "trace truncated: ..." at the time of the first one
 * dropped, and otherData.dropped_events. trace_dropped() tells the caller.
 * Written with cJSON one event at a time (the document is never held as a tree) to
 * a temporary, fsync, rename (csim/afile.h). The same calls give the same file, byte for byte.
 * Generic: nothing here knows the machine.
 * Not modelled: flow events (arrows), async events, the protobuf format, streaming to the file
 * during the run (events are kept in memory until trace_write).
 * Units: picoseconds in, microseconds out.
 *
 * Errors (csim/err.h): 0 or a negative errno (-EINVAL bad argument, -ENOMEM, I/O errors of the
 * write), the message for people in the caller's err.
 */
#ifndef CSIM_TRACE_H
#define CSIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"

#define TRACE_DEFAULT_MAX_EVENTS 1000000u
#define TRACE_MAX_ARGS           8 /* args of one event */

enum trace_arg_type {
    TRACE_ARG_U64 = 0,
    TRACE_ARG_I64 = 1,
    TRACE_ARG_F64 = 2,
    TRACE_ARG_STR = 3,
};

/* One argument shown in the viewer's details pane. key and s are copied. */
struct trace_arg {
    const char *key;
    enum trace_arg_type type;
    union {
        uint64_t u;
        int64_t i;
        double d;
        const char *s;
    } v;
};

#define TRACE_U64(k, x) ((struct trace_arg){.key = (k), .type = TRACE_ARG_U64, .v.u = (x)})
#define TRACE_I64(k, x) ((struct trace_arg){.key = (k), .type = TRACE_ARG_I64, .v.i = (x)})
#define TRACE_F64(k, x) ((struct trace_arg){.key = (k), .type = TRACE_ARG_F64, .v.d = (x)})
#define TRACE_STR(k, x) ((struct trace_arg){.key = (k), .type = TRACE_ARG_STR, .v.s = (x)})

struct trace;

struct trace_cfg {
    uint64_t max_events; /* events kept (0: TRACE_DEFAULT_MAX_EVENTS) */
};

/* -ENOMEM when out of memory. */
int trace_create(const struct trace_cfg *cfg, struct trace **out, struct err *e);
void trace_destroy(struct trace *t);

/* The track of (process, thread), created on first use; names copied, non-empty. The id is
 * what the event calls take. */
int trace_track(struct trace *t, const char *process, const char *thread, uint32_t *id,
                struct err *e);

/* A complete event: [start_ps, start_ps + dur_ps) on track. name non-empty; cat may be NULL
 * (then "sim"); nargs <= TRACE_MAX_ARGS. 0 also when the event was dropped because the trace is
 * full (see trace_dropped); -EINVAL for a bad track, name or argument count. */
int trace_complete(struct trace *t, uint32_t track, uint64_t start_ps, uint64_t dur_ps,
                   const char *name, const char *cat, const struct trace_arg *args, size_t nargs,
                   struct err *e);
/* An instant event on a track (a marker: "switch to tlm", "checkpoint"). */
int trace_instant(struct trace *t, uint32_t track, uint64_t ts_ps, const char *name,
                  const struct trace_arg *args, size_t nargs, struct err *e);
/* A counter sample of the track's process: series `name`, value from ts_ps on. */
int trace_counter(struct trace *t, uint32_t track, uint64_t ts_ps, const char *name, double value,
                  struct err *e);

/* A key/value written under "otherData" (run description), insertion order, replaced when
 * set again. */
int trace_meta(struct trace *t, const char *key, const char *value, struct err *e);

uint64_t trace_events(const struct trace *t);  /* events kept */
uint64_t trace_dropped(const struct trace *t); /* events refused because of max_events */
uint64_t trace_max_events(const struct trace *t);

/* Write the file atomically. The trace stays usable (more events, another write). */
int trace_write(struct trace *t, const char *path, struct err *e);

#endif
