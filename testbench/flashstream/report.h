/*
 * report: what a run of the machine reports, shared by `flashstream train` and `flashstream
 * perf`: layers.csv (one row per step, layer and pass) and its sums ("where the time went"),
 * the trace tracks of the machine's resources and their busy intervals, the flash endurance
 * table, and the machine's counters in stats.json. The command owns the files' other contents.
 *
 * Layers are numbered from 1 as machine_layer_recs gives them; a run may name them (perf: the
 * block each layer is an instance of). Consecutive layers of the same name share a row of the
 * "where the time went" table (mean per layer), so a 96-layer stack is one line.
 */
#ifndef TESTBENCH_FLASHSTREAM_REPORT_H
#define TESTBENCH_FLASHSTREAM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csim/stats.h"
#include "csim/trace.h"
#include "models/machine/machine.h"

/* Sums of layers.csv over the steps run, per layer and pass. */
struct report_layer_sum {
    uint64_t rows;
    uint64_t span_ps;
    uint64_t phase_ps[MACHINE_PH_N];
    uint64_t waited[MACHINE_PH_N];
};

struct report {
    struct machine *m;              /* not owned */
    const char *cmd;                /* "train", "perf": the prefix of messages */
    uint32_t n_layers;              /* layers 1..n_layers */
    const char *const *layer_names; /* [n_layers], layer l at l - 1; NULL: layers by number */
    struct stats_csv *layers_csv;   /* NULL: no layers.csv */
    struct trace *trace;            /* not owned; NULL: no trace */
    uint32_t layer_track;           /* the trace's track of layer spans */
    uint32_t *res_track;            /* the trace's track of each resource */
    size_t n_res;
    struct report_layer_sum *lsum; /* [n_layers][2]: fwd, bwd */
    uint64_t step_offset;          /* layers.csv's step of the machine's step 0 (a resumed run's
                                      first step) */
};

/* 0, or -1 with the message printed (out of memory). names may be NULL. */
int report_init(struct report *r, struct machine *m, const char *cmd, uint32_t n_layers,
                const char *const *names);
void report_fini(struct report *r);

/* layers.csv at path: step, layer, [block,] pass, times and phases in us, waited_on. */
int report_open_layers(struct report *r, const char *path);
/* Its columns into cols[0 .. n) (n returned, at most REPORT_LAYERS_COLS), valid while r is. */
#define REPORT_LAYERS_COLS (7 + MACHINE_PH_N + 1)
size_t report_layers_cols(const struct report *r, const char **cols);
/* Close layers.csv (its rows become the file). 0 or -1 (message printed). */
int report_close_layers(struct report *r);
/* One track per resource in tr ("an0" process, "core" thread, ...), and layer spans on track
 * layer_track. 0 or -1 (message printed). */
int report_open_trace(struct report *r, struct trace *tr, uint32_t layer_track);

/* The machine's layer records since the last call: rows of layers.csv, the sums, and (trace_it)
 * one trace span per layer and pass. Times offset by offset_ps. Clears them in the machine. */
void report_take_layers(struct report *r, uint64_t offset_ps, bool trace_it);
/* The machine's busy intervals into the trace (offset_ps later); cleared in the machine unless
 * keep. */
void report_take_busy(struct report *r, uint64_t offset_ps, bool keep);

/* "where the time went" over `steps` steps: per layer (or run of same-named layers) and pass,
 * the mean span, the phases and what the layer waited on most. */
void report_where(const struct report *r, uint64_t steps);
/* stats.json's layers.*: the sums of layers.csv per layer and pass. */
void report_layer_stats(const struct report *r, struct stats *s);

/* Every counter of the machine into s; a counter stats refuses is skipped with a warning. */
void report_counters(struct machine *m, struct stats *s, const char *cmd);
/* The flash endurance table: one row per stream (and per node's SSD array), streams equal on
 * every AN shown once. */
void report_endurance(struct machine *m);

#endif
