#include "testbench/flashstream/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static double us(uint64_t ps)
{
    return (double)ps / 1e6;
}

int report_init(struct report *r, struct machine *m, const char *cmd, uint32_t n_layers,
                const char *const *names)
{
    *r = (struct report){.m = m, .cmd = cmd, .n_layers = n_layers, .layer_names = names};
    r->lsum = calloc(2 * (size_t)(n_layers ? n_layers : 1), sizeof(*r->lsum));
    if (!r->lsum) {
        fprintf(stderr, "flashstream %s: out of memory\n", cmd);
        return -1;
    }
    return 0;
}

void report_fini(struct report *r)
{
    stats_csv_abort(r->layers_csv);
    free(r->res_track);
    free(r->lsum);
    memset(r, 0, sizeof(*r));
}

/* ---------------------------------------------------------------- layers.csv */

size_t report_layers_cols(const struct report *r, const char **cols)
{
    static char names[MACHINE_PH_N][40];
    size_t n = 0;

    cols[n++] = "step";
    cols[n++] = "layer";
    if (r->layer_names)
        cols[n++] = "block";
    cols[n++] = "pass";
    cols[n++] = "start_us";
    cols[n++] = "end_us";
    cols[n++] = "span_us";
    for (int p = 0; p < MACHINE_PH_N; p++) {
        snprintf(names[p], sizeof(names[p]), "%s_us", machine_phase_name((enum machine_phase)p));
        cols[n++] = names[p];
    }
    cols[n++] = "waited_on";
    return n;
}

int report_open_layers(struct report *r, const char *path)
{
    const char *cols[REPORT_LAYERS_COLS];
    size_t n = report_layers_cols(r, cols);
    struct err e;

    if (stats_csv_open(path, n, cols, &r->layers_csv, &e)) {
        fprintf(stderr, "flashstream %s: %s\n", r->cmd, e.msg);
        return -1;
    }
    return 0;
}

int report_close_layers(struct report *r)
{
    struct err e;
    int rc = 0;

    if (r->layers_csv && stats_csv_close(r->layers_csv, &e)) {
        fprintf(stderr, "flashstream %s: %s\n", r->cmd, e.msg);
        rc = -1;
    }
    r->layers_csv = NULL;
    return rc;
}

static const char *layer_name(const struct report *r, uint32_t layer)
{
    return r->layer_names && layer >= 1 && layer <= r->n_layers ? r->layer_names[layer - 1] : "";
}

static void csv_row(struct report *r, const struct machine_layer_rec *x, uint64_t span)
{
    struct stats_csv *c = r->layers_csv;

    stats_csv_u64(c, r->step_offset + x->step, NULL);
    stats_csv_u64(c, x->layer, NULL);
    if (r->layer_names)
        stats_csv_str(c, layer_name(r, x->layer), NULL);
    stats_csv_str(c, machine_pass_name(x->pass), NULL);
    stats_csv_fixed(c, us(x->start_ps), 6, NULL);
    stats_csv_fixed(c, us(x->end_ps), 6, NULL);
    stats_csv_fixed(c, us(span), 6, NULL);
    for (int p = 0; p < MACHINE_PH_N; p++)
        stats_csv_fixed(c, us(x->phase_ps[p]), 6, NULL);
    stats_csv_str(c, machine_phase_name(x->waited_on), NULL);
    stats_csv_end_row(c, NULL);
}

static void trace_layer(struct report *r, const struct machine_layer_rec *x, uint64_t offset_ps,
                        uint64_t span)
{
    struct trace_arg a[MACHINE_PH_N + 1];
    char name[64];

    for (int p = 0; p < MACHINE_PH_N; p++)
        a[p] = TRACE_F64(machine_phase_name((enum machine_phase)p), us(x->phase_ps[p]));
    a[MACHINE_PH_N] = TRACE_STR("waited_on", machine_phase_name(x->waited_on));
    snprintf(name, sizeof(name), "L%u %s%s%s", x->layer, layer_name(r, x->layer),
             r->layer_names ? " " : "", machine_pass_name(x->pass));
    trace_complete(r->trace, r->layer_track, offset_ps + x->start_ps, span, name, "layer", a,
                   MACHINE_PH_N < TRACE_MAX_ARGS ? MACHINE_PH_N + 1 : TRACE_MAX_ARGS, NULL);
}

void report_take_layers(struct report *r, uint64_t offset_ps, bool trace_it)
{
    size_t n;
    const struct machine_layer_rec *rec = machine_layer_recs(r->m, &n);

    for (size_t i = 0; i < n; i++) {
        const struct machine_layer_rec *x = &rec[i];
        uint64_t span = x->end_ps > x->start_ps ? x->end_ps - x->start_ps : 0;

        if (r->layers_csv)
            csv_row(r, x, span);
        if (x->layer >= 1 && x->layer <= r->n_layers && x->pass <= MACHINE_BWD) {
            struct report_layer_sum *s = &r->lsum[2 * (x->layer - 1) + x->pass];

            s->rows++;
            s->span_ps += span;
            for (int p = 0; p < MACHINE_PH_N; p++)
                s->phase_ps[p] += x->phase_ps[p];
            if (x->waited_on < MACHINE_PH_N)
                s->waited[x->waited_on]++;
        }
        if (trace_it && r->trace)
            trace_layer(r, x, offset_ps, span);
    }
    machine_clear_records(r->m);
}

/* ---------------------------------------------------------------- trace */

/* "an0.core" -> process "an0", thread "core"; "host" -> "host", "host". */
static void split_resource(const char *name, char *proc, size_t plen, char *thr, size_t tlen)
{
    const char *dot = strchr(name, '.');

    if (dot && dot != name && dot[1]) {
        snprintf(proc, plen, "%.*s", (int)(dot - name), name);
        snprintf(thr, tlen, "%s", dot + 1);
    } else {
        snprintf(proc, plen, "%s", name);
        snprintf(thr, tlen, "%s", name);
    }
}

int report_open_trace(struct report *r, struct trace *tr, uint32_t layer_track)
{
    r->trace = tr;
    r->layer_track = layer_track;
    r->n_res = machine_resources(r->m);
    r->res_track = calloc(r->n_res ? r->n_res : 1, sizeof(*r->res_track));
    if (!r->res_track) {
        fprintf(stderr, "flashstream %s: out of memory\n", r->cmd);
        return -1;
    }
    for (size_t i = 0; i < r->n_res; i++) {
        char proc[64], thr[64];
        struct err e;

        split_resource(machine_resource_name(r->m, i), proc, sizeof(proc), thr, sizeof(thr));
        if (trace_track(tr, proc, thr, &r->res_track[i], &e)) {
            fprintf(stderr, "flashstream %s: %s\n", r->cmd, e.msg);
            return -1;
        }
    }
    return 0;
}

void report_take_busy(struct report *r, uint64_t offset_ps, bool keep)
{
    size_t n;
    uint64_t dropped;
    const struct machine_busy *b = machine_busy(r->m, &n, &dropped);

    for (size_t i = 0; i < n && r->trace; i++) {
        uint64_t dur = b[i].end_ps > b[i].start_ps ? b[i].end_ps - b[i].start_ps : 0;

        if (b[i].res < r->n_res)
            trace_complete(r->trace, r->res_track[b[i].res], offset_ps + b[i].start_ps, dur,
                           b[i].label && *b[i].label ? b[i].label : "busy", NULL, NULL, 0, NULL);
    }
    if (!keep)
        machine_clear_busy(r->m);
}

/* ---------------------------------------------------------------- where the time went */

/* Layers first..last (1-based) share a row: the same name, consecutive. */
static uint32_t run_end(const struct report *r, uint32_t first)
{
    uint32_t last = first;
    if (r->layer_names)
        while (last < r->n_layers && !strcmp(layer_name(r, last + 1), layer_name(r, first)))
            last++;
    return last;
}

static void where_row(const struct report *r, uint32_t first, uint32_t last, int pass)
{
    struct report_layer_sum s = {0};
    char label[48];
    int most = 0;

    for (uint32_t l = first; l <= last; l++) {
        const struct report_layer_sum *x = &r->lsum[2 * (l - 1) + pass];
        s.rows += x->rows;
        s.span_ps += x->span_ps;
        for (int p = 0; p < MACHINE_PH_N; p++) {
            s.phase_ps[p] += x->phase_ps[p];
            s.waited[p] += x->waited[p];
        }
    }
    if (!s.rows)
        return;
    for (int p = 1; p < MACHINE_PH_N; p++)
        if (s.waited[p] > s.waited[most])
            most = p;
    if (!r->layer_names)
        snprintf(label, sizeof(label), "%u", first);
    else if (first == last)
        snprintf(label, sizeof(label), "%u %s", first, layer_name(r, first));
    else
        snprintf(label, sizeof(label), "%u-%u %s", first, last, layer_name(r, first));
    if (r->layer_names)
        printf("  %-18s %-4s %11.3f", label, machine_pass_name((enum machine_pass)pass),
               us(s.span_ps) / (double)s.rows);
    else
        printf("  %5s %-4s %9.3f", label, machine_pass_name((enum machine_pass)pass),
               us(s.span_ps) / (double)s.rows);
    for (int p = 0; p < MACHINE_PH_N; p++)
        printf(r->layer_names ? " %10.3f" : " %8.3f", us(s.phase_ps[p]) / (double)s.rows);
    printf("  %s (%.0f%% of %s)\n", machine_phase_name((enum machine_phase)most),
           100.0 * (double)s.waited[most] / (double)s.rows,
           r->layer_names ? "layer-steps" : "steps");
}

void report_where(const struct report *r, uint64_t steps)
{
    static const char *const short_names[MACHINE_PH_N] = {"compute", "w_fetch", "bcast", "act_wr",
                                                          "act_rd",  "reduce",  "optim"};
    if (!steps)
        return;
    if (r->layer_names) {
        printf("\nwhere the time went, per layer and pass (mean per layer and step over %" PRIu64
               " step%s, us of\nsimulated time; phases overlap, so they may add up to more than "
               "the span):\n",
               steps, steps == 1 ? "" : "s");
        printf("  %-18s %-4s %11s", "layer", "pass", "span");
    } else {
        printf("\nwhere the time went, per layer and pass (mean per step over %" PRIu64
               " steps, us of simulated time;\n"
               "phases overlap, so they may add up to more than the span):\n",
               steps);
        printf("  layer pass      span");
    }
    for (int p = 0; p < MACHINE_PH_N; p++)
        printf(r->layer_names ? " %10s" : " %8s", short_names[p]);
    printf("  waited on\n");
    /* fwd 1..L, then bwd L..1: the order of a step */
    for (uint32_t l = 1; l <= r->n_layers; l = run_end(r, l) + 1)
        where_row(r, l, run_end(r, l), MACHINE_FWD);
    for (uint32_t l = r->n_layers; l >= 1;) {
        uint32_t first = l;
        while (r->layer_names && first > 1 && !strcmp(layer_name(r, first - 1), layer_name(r, l)))
            first--;
        where_row(r, first, l, MACHINE_BWD);
        l = first - 1;
    }
}

void report_layer_stats(const struct report *r, struct stats *s)
{
    for (uint32_t l = 0; l < r->n_layers; l++) {
        for (int pass = 0; pass < 2; pass++) {
            const struct report_layer_sum *ls = &r->lsum[2 * l + pass];
            const char *pn = machine_pass_name((enum machine_pass)pass);
            char name[96];

            if (!ls->rows)
                continue;
            snprintf(name, sizeof(name), "layers.l%u.%s.span_ps", l + 1, pn);
            stats_set_u64(s, name, "ps", "sum over steps of the layer's span", ls->span_ps, NULL);
            for (int p = 0; p < MACHINE_PH_N; p++) {
                const char *ph = machine_phase_name((enum machine_phase)p);
                snprintf(name, sizeof(name), "layers.l%u.%s.%s_ps", l + 1, pn, ph);
                stats_set_u64(s, name, "ps", "sum over steps of the phase's busy time",
                              ls->phase_ps[p], NULL);
                snprintf(name, sizeof(name), "layers.l%u.%s.waited_on.%s", l + 1, pn, ph);
                stats_set_u64(s, name, "steps", "steps in which the layer waited on this phase",
                              ls->waited[p], NULL);
            }
        }
    }
}

void report_counters(struct machine *m, struct stats *s, const char *cmd)
{
    size_t n;
    const struct machine_counter *c = machine_counters(m, &n);

    for (size_t i = 0; i < n; i++) {
        struct err e;
        int r = c[i].is_f64 ? stats_set_f64(s, c[i].name, c[i].unit, c[i].desc, c[i].f64, &e)
                            : stats_set_u64(s, c[i].name, c[i].unit, c[i].desc, c[i].u64, &e);
        if (r)
            fprintf(stderr, "flashstream %s: warning: %s (counter skipped)\n", cmd, e.msg);
    }
}

/* ---------------------------------------------------------------- flash endurance */

/* One row per flash stream, from the counters named "<node>.flash.<stream>.<key>"; with the
 * SSD storage, one row per node's SSD array ("<node>.ssd.<key>": pages written, erases, P/E,
 * WAF) and one per stream on it ("<node>.ssd.<stream>.pages_written"). */
#define END_COLS 6
static const char *const end_keys[END_COLS] = {"pages_written", "erases", "pe_max",
                                               "pe_budget",     "waf",    "lifetime_years"};
static const char *const end_heads[END_COLS] = {"pages written", "erases", "P/E max",
                                                "P/E budget",    "WAF",    "lifetime (years)"};

struct end_row {
    char prefix[64]; /* "an0.flash.V" */
    bool has[END_COLS];
    double v[END_COLS];
    bool shown;
};

static int end_key(const char *name, char *prefix, size_t len)
{
    const char *last = strrchr(name, '.');

    if (!last || (!strstr(name, ".flash.") && !strstr(name, ".ssd.")))
        return -1;
    for (int k = 0; k < END_COLS; k++) {
        if (!strcmp(last + 1, end_keys[k])) {
            snprintf(prefix, len, "%.*s", (int)(last - name), name);
            return k;
        }
    }
    return -1;
}

/* "an12.flash.V" -> "flash.V" (the part after the AN number); NULL if not an AN's. */
static const char *an_suffix(const char *prefix)
{
    const char *p = prefix + 2;

    if (strncmp(prefix, "an", 2) || !(*p >= '0' && *p <= '9'))
        return NULL;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == '.' ? p + 1 : NULL;
}

static int col_width(int k)
{
    return (int)strlen(end_heads[k]) > 9 ? (int)strlen(end_heads[k]) : 9;
}

static void print_end_row(const struct end_row *r, const char *name, const bool *cols)
{
    printf("  %-22s", name);
    for (int k = 0; k < END_COLS; k++) {
        if (!cols[k])
            continue;
        if (!r->has[k])
            printf(" %*s", col_width(k), "-");
        else if (k == 5 && r->v[k] == 0)
            printf(" %*s", col_width(k), "not written");
        else if (k == 4 || k == 5)
            printf(" %*.3g", col_width(k), r->v[k]);
        else
            printf(" %*.0f", col_width(k), r->v[k]);
    }
    printf("\n");
}

/* One row per flash stream of the n counters c, into rows; cols[k]: some row has column k.
 * The number of rows. */
static size_t end_rows(const struct machine_counter *c, size_t n, struct end_row *rows, bool *cols)
{
    size_t nr = 0;

    for (size_t i = 0; i < n; i++) {
        char prefix[64];
        int k = end_key(c[i].name, prefix, sizeof(prefix));
        size_t r;

        if (k < 0)
            continue;
        for (r = 0; r < nr && strcmp(rows[r].prefix, prefix); r++)
            ;
        if (r == nr)
            snprintf(rows[nr++].prefix, sizeof(rows[0].prefix), "%s", prefix);
        rows[r].has[k] = true;
        rows[r].v[k] = c[i].is_f64 ? c[i].f64 : (double)c[i].u64;
        cols[k] = true;
    }
    return nr;
}

/* Row r and every other AN's row of the same stream, when all are equal: one row "an*.S (xN)".
 * Returns whether it printed them so. */
static bool print_an_rows(struct end_row *rows, size_t nr, size_t r, const bool *cols)
{
    const char *suf = an_suffix(rows[r].prefix);
    size_t same = 0, ans = 0;
    char name[64];

    if (!suf)
        return false;
    for (size_t q = r; q < nr; q++) {
        const char *s2 = an_suffix(rows[q].prefix);

        if (!s2 || strcmp(s2, suf))
            continue;
        ans++;
        same += !memcmp(rows[q].has, rows[r].has, sizeof(rows[r].has)) &&
                !memcmp(rows[q].v, rows[r].v, sizeof(rows[r].v));
    }
    if (ans < 2 || same != ans)
        return false;
    snprintf(name, sizeof(name), "an*.%s (x%zu)", suf, ans);
    print_end_row(&rows[r], name, cols);
    for (size_t q = r; q < nr; q++) {
        const char *s2 = an_suffix(rows[q].prefix);

        if (s2 && !strcmp(s2, suf))
            rows[q].shown = true;
    }
    return true;
}

void report_endurance(struct machine *m)
{
    size_t n, nr;
    const struct machine_counter *c = machine_counters(m, &n);
    struct end_row *rows = calloc(n ? n : 1, sizeof(*rows));
    bool cols[END_COLS] = {false};

    if (!rows)
        return;
    nr = end_rows(c, n, rows, cols);
    if (!nr) {
        printf("\nflash endurance: the machine reports no flash stream counters\n");
        free(rows);
        return;
    }
    printf("\nflash endurance, per stream (P/E cycles per block; lifetime at this run's write "
           "rate):\n  %-22s",
           "stream");
    for (int k = 0; k < END_COLS; k++)
        if (cols[k])
            printf(" %*s", col_width(k), end_heads[k]);
    printf("\n");
    for (size_t r = 0; r < nr; r++) {
        if (rows[r].shown || print_an_rows(rows, nr, r, cols))
            continue;
        print_end_row(&rows[r], rows[r].prefix, cols);
        rows[r].shown = true;
    }
    free(rows);
}
