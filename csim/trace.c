/*
 * trace.c - Chrome trace event writer; see trace.h.
 *
 * Strings (names, categories, argument keys and string values) are interned once; an event is a
 * small fixed record plus its arguments in a shared array. At write time the events are sorted
 * per track, laid out in lanes, and printed one cJSON object at a time.
 */
#include "csim/trace.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/afile.h"

#define NO_STR UINT32_MAX

struct ev {
    uint64_t ts, dur; /* ps */
    uint32_t track;
    uint32_t name, cat; /* interned */
    uint32_t arg0;      /* first argument in t->args */
    uint8_t nargs;
    char ph; /* 'X', 'i', 'C' */
};

struct earg {
    uint32_t key;
    enum trace_arg_type type;
    union {
        uint64_t u;
        int64_t i;
        double d;
        uint32_t s; /* interned */
    } v;
};

struct track {
    uint32_t proc;   /* index in procs */
    uint32_t thread; /* interned name */
    uint32_t lanes;  /* set by trace_write */
    uint32_t tid0;   /* tid of lane 0, set by trace_write */
};

struct kv {
    char *key, *value;
};

struct trace {
    uint64_t max_events, dropped, first_drop_ps;
    /* interned strings */
    char **str;
    size_t n_str, cap_str;
    uint32_t *htab; /* string index + 1, 0 = empty; power-of-two size */
    size_t cap_htab;
    /* processes (interned names), tracks */
    uint32_t *procs;
    size_t n_procs, cap_procs;
    struct track *tracks;
    size_t n_tracks, cap_tracks;
    /* events and their arguments */
    struct ev *evs;
    size_t n_evs, cap_evs;
    struct earg *args;
    size_t n_args, cap_args;
    struct kv *meta;
    size_t n_meta, cap_meta;
};

/* Make room for one more element in *arr (count n, capacity *cap, element size sz). */
static int reserve(void **arr, size_t n, size_t *cap, size_t sz)
{
    size_t c = *cap ? 2 * *cap : 64;
    void *a;

    if (n < *cap)
        return 0;
    if (c > SIZE_MAX / sz)
        return -ENOMEM;
    a = realloc(*arr, c * sz);
    if (!a)
        return -ENOMEM;
    *arr = a;
    *cap = c;
    return 0;
}

#define RESERVE(arr, n, cap) reserve((void **)&(arr), (n), &(cap), sizeof(*(arr)))

static uint64_t hash(const char *p)
{
    uint64_t h = 0xCBF29CE484222325ull;

    for (; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 0x100000001B3ull;
    }
    return h;
}

static uint32_t *hslot(const struct trace *t, const char *s)
{
    uint32_t mask = t->cap_htab - 1;

    for (uint32_t i = (uint32_t)hash(s) & mask;; i = (i + 1) & mask)
        if (!t->htab[i] || !strcmp(t->str[t->htab[i] - 1], s))
            return &t->htab[i];
}

static int grow_htab(struct trace *t)
{
    uint32_t cap = t->cap_htab ? 2 * t->cap_htab : 256;
    uint32_t *h = calloc(cap, sizeof(*h));

    if (!h)
        return -ENOMEM;
    free(t->htab);
    t->htab = h;
    t->cap_htab = cap;
    for (uint32_t i = 0; i < t->n_str; i++)
        *hslot(t, t->str[i]) = i + 1;
    return 0;
}

/* The index of string s, added if new; NO_STR when out of memory. */
static uint32_t intern(struct trace *t, const char *s)
{
    uint32_t *slot;
    char *copy;

    if (2 * (t->n_str + 1) > t->cap_htab && grow_htab(t))
        return NO_STR;
    slot = hslot(t, s);
    if (*slot)
        return *slot - 1;
    if (RESERVE(t->str, t->n_str, t->cap_str) || !(copy = strdup(s)))
        return NO_STR;
    t->str[t->n_str] = copy;
    *slot = ++t->n_str;
    return t->n_str - 1;
}

int trace_create(const struct trace_cfg *cfg, struct trace **out, struct err *e)
{
    struct trace *t = calloc(1, sizeof(*t));

    *out = NULL;
    if (!t)
        return err_set(e, -ENOMEM, "trace: out of memory");
    t->max_events = cfg->max_events ? cfg->max_events : TRACE_DEFAULT_MAX_EVENTS;
    if (grow_htab(t)) {
        free(t);
        return err_set(e, -ENOMEM, "trace: out of memory");
    }
    *out = t;
    return 0;
}

void trace_destroy(struct trace *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n_str; i++)
        free(t->str[i]);
    for (size_t i = 0; i < t->n_meta; i++) {
        free(t->meta[i].key);
        free(t->meta[i].value);
    }
    free(t->meta);
    free(t->str);
    free(t->htab);
    free(t->procs);
    free(t->tracks);
    free(t->evs);
    free(t->args);
    free(t);
}

int trace_track(struct trace *t, const char *process, const char *thread, uint32_t *id,
                struct err *e)
{
    uint32_t p, th, pi;

    if (!process || !*process || !thread || !*thread)
        return err_set(e, -EINVAL,
                       "trace: a track needs a non-empty process and thread name "
                       "(e.g. \"an0\", \"core\")");
    p = intern(t, process);
    th = intern(t, thread);
    if (p == NO_STR || th == NO_STR)
        return err_set(e, -ENOMEM, "trace: out of memory");
    for (pi = 0; pi < t->n_procs && t->procs[pi] != p; pi++)
        ;
    for (uint32_t k = 0; k < t->n_tracks; k++) {
        if (t->tracks[k].proc == pi && t->tracks[k].thread == th) {
            *id = k;
            return 0;
        }
    }
    if (pi == t->n_procs) {
        if (RESERVE(t->procs, t->n_procs, t->cap_procs))
            return err_set(e, -ENOMEM, "trace: out of memory");
        t->procs[t->n_procs++] = p;
    }
    if (RESERVE(t->tracks, t->n_tracks, t->cap_tracks))
        return err_set(e, -ENOMEM, "trace: out of memory");
    t->tracks[t->n_tracks] = (struct track){.proc = pi, .thread = th};
    *id = t->n_tracks++;
    return 0;
}

/* Add an event; 0 also when dropped because the trace is full. */
static int add(struct trace *t, char ph, uint32_t track, uint64_t ts, uint64_t dur,
               const char *name, const char *cat, const struct trace_arg *args, size_t nargs,
               struct err *err)
{
    struct ev e = {.ts = ts, .dur = dur, .track = track, .ph = ph, .nargs = (uint8_t)nargs};

    if (track >= t->n_tracks)
        return err_set(err, -EINVAL, "trace: track %u does not exist (%zu tracks; use trace_track)",
                       track, t->n_tracks);
    if (!name || !*name)
        return err_set(err, -EINVAL, "trace: an event needs a non-empty name");
    if (nargs > TRACE_MAX_ARGS || (nargs && !args))
        return err_set(err, -EINVAL, "trace: event \"%s\" has %zu args; accepted 0..%d", name,
                       nargs, TRACE_MAX_ARGS);
    for (size_t i = 0; i < nargs; i++)
        if (!args[i].key || !*args[i].key || args[i].type > TRACE_ARG_STR ||
            (args[i].type == TRACE_ARG_STR && !args[i].v.s))
            return err_set(err, -EINVAL, "trace: event \"%s\": arg %zu needs a key and a value",
                           name, i);
    if (ts > UINT64_MAX - dur)
        return err_set(err, -EINVAL, "trace: event \"%s\" ends after 2^64 ps", name);
    if (t->n_evs >= t->max_events) {
        if (!t->dropped++ || ts < t->first_drop_ps)
            t->first_drop_ps = ts;
        return 0;
    }
    e.name = intern(t, name);
    e.cat = intern(t, cat ? cat : "sim");
    e.arg0 = (uint32_t)t->n_args;
    if (e.name == NO_STR || e.cat == NO_STR || t->n_args + nargs > UINT32_MAX)
        return err_set(err, -ENOMEM, "trace: out of memory");
    for (size_t i = 0; i < nargs; i++) {
        struct earg a = {.key = intern(t, args[i].key), .type = args[i].type};

        switch (a.type) {
        case TRACE_ARG_U64:
            a.v.u = args[i].v.u;
            break;
        case TRACE_ARG_I64:
            a.v.i = args[i].v.i;
            break;
        case TRACE_ARG_F64:
            a.v.d = args[i].v.d;
            break;
        case TRACE_ARG_STR:
            a.v.s = intern(t, args[i].v.s);
            if (a.v.s == NO_STR)
                goto out_nomem;
            break;
        }
        if (a.key == NO_STR || RESERVE(t->args, t->n_args, t->cap_args))
            goto out_nomem;
        t->args[t->n_args++] = a;
    }
    if (RESERVE(t->evs, t->n_evs, t->cap_evs))
        goto out_nomem;
    t->evs[t->n_evs++] = e;
    return 0;

out_nomem:
    t->n_args = e.arg0;
    return err_set(err, -ENOMEM, "trace: out of memory");
}

int trace_complete(struct trace *t, uint32_t track, uint64_t start_ps, uint64_t dur_ps,
                   const char *name, const char *cat, const struct trace_arg *args, size_t nargs,
                   struct err *e)
{
    return add(t, 'X', track, start_ps, dur_ps, name, cat, args, nargs, e);
}

int trace_instant(struct trace *t, uint32_t track, uint64_t ts_ps, const char *name,
                  const struct trace_arg *args, size_t nargs, struct err *e)
{
    return add(t, 'i', track, ts_ps, 0, name, NULL, args, nargs, e);
}

int trace_counter(struct trace *t, uint32_t track, uint64_t ts_ps, const char *name, double value,
                  struct err *e)
{
    struct trace_arg a = TRACE_F64("value", value);

    return add(t, 'C', track, ts_ps, 0, name, NULL, &a, 1, e);
}

int trace_meta(struct trace *t, const char *key, const char *value, struct err *e)
{
    char *v;

    if (!key || !*key)
        return err_set(e, -EINVAL, "trace: meta key must be non-empty");
    v = strdup(value ? value : "");
    if (!v)
        return err_set(e, -ENOMEM, "trace: out of memory");
    for (size_t i = 0; i < t->n_meta; i++) {
        if (!strcmp(t->meta[i].key, key)) {
            free(t->meta[i].value);
            t->meta[i].value = v;
            return 0;
        }
    }
    if (RESERVE(t->meta, t->n_meta, t->cap_meta) || !(t->meta[t->n_meta].key = strdup(key))) {
        free(v);
        return err_set(e, -ENOMEM, "trace: out of memory");
    }
    t->meta[t->n_meta++].value = v;
    return 0;
}

uint64_t trace_events(const struct trace *t)
{
    return t->n_evs;
}

uint64_t trace_dropped(const struct trace *t)
{
    return t->dropped;
}

uint64_t trace_max_events(const struct trace *t)
{
    return t->max_events;
}

/* ---- writing ---- */

/* Sort key of an event: track, start, longer first, then order of arrival. */
struct key {
    uint64_t ts, dur, idx;
    uint32_t track;
};

static int key_cmp(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;

    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->dur != b->dur)
        return a->dur > b->dur ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* A lane: the end times of its open (enclosing) events, innermost last. */
struct lane {
    uint64_t *end;
    size_t n, cap;
};

/* "12.345678": ps as microseconds, exact, trailing zeros trimmed. */
static void us_text(uint64_t ps, char *buf, size_t len)
{
    uint64_t frac = ps % 1000000;
    int n = snprintf(buf, len, "%" PRIu64, ps / 1000000);

    if (frac) {
        snprintf(buf + n, len - (size_t)n, ".%06" PRIu64, frac);
        for (char *e = buf + strlen(buf) - 1; *e == '0'; e--)
            *e = '\0';
    }
}

static bool add_us(cJSON *o, const char *key, uint64_t ps)
{
    char buf[40];

    us_text(ps, buf, sizeof(buf));
    return cJSON_AddRawToObject(o, key, buf) != NULL;
}

static bool add_arg(const struct trace *t, cJSON *args, const struct earg *a)
{
    const char *k = t->str[a->key];
    char buf[32];

    switch (a->type) {
    case TRACE_ARG_U64:
        snprintf(buf, sizeof(buf), "%" PRIu64, a->v.u);
        return cJSON_AddRawToObject(args, k, buf) != NULL;
    case TRACE_ARG_I64:
        snprintf(buf, sizeof(buf), "%" PRId64, a->v.i);
        return cJSON_AddRawToObject(args, k, buf) != NULL;
    case TRACE_ARG_F64:
        return (isfinite(a->v.d) ? cJSON_AddNumberToObject(args, k, a->v.d)
                                 : cJSON_AddNullToObject(args, k)) != NULL;
    case TRACE_ARG_STR:
        return cJSON_AddStringToObject(args, k, t->str[a->v.s]) != NULL;
    }
    return false;
}

/* Print o unformatted to the file, preceded by a separator unless it is the first; delete o. */
static int emit(struct afile *af, cJSON *o, bool *first)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;

    cJSON_Delete(o);
    if (!text)
        return afile_fail(af, "format (out of memory)", ENOMEM);
    if (fputs(*first ? "\n" : ",\n", af->f) == EOF || fputs(text, af->f) == EOF)
        afile_fail(af, "write", errno);
    *first = false;
    free(text);
    return 0;
}

static cJSON *meta_ev(const char *what, uint32_t pid, uint32_t tid, bool with_tid, const char *key,
                      const char *sval, int64_t ival)
{
    cJSON *o = cJSON_CreateObject(), *args;

    if (!o || !cJSON_AddStringToObject(o, "name", what) || !cJSON_AddStringToObject(o, "ph", "M") ||
        !cJSON_AddNumberToObject(o, "pid", pid) ||
        (with_tid && !cJSON_AddNumberToObject(o, "tid", tid)) ||
        !(args = cJSON_AddObjectToObject(o, "args")) ||
        (sval ? !cJSON_AddStringToObject(args, key, sval)
              : !cJSON_AddNumberToObject(args, key, (double)ival))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *event_json(const struct trace *t, const struct ev *e, uint32_t pid, uint32_t tid)
{
    cJSON *o = cJSON_CreateObject(), *args;
    char ph[2] = {e->ph, '\0'};

    if (!o || !cJSON_AddStringToObject(o, "name", t->str[e->name]) ||
        (e->ph != 'C' && !cJSON_AddStringToObject(o, "cat", t->str[e->cat])) ||
        !cJSON_AddStringToObject(o, "ph", ph) || !add_us(o, "ts", e->ts) ||
        (e->ph == 'X' && !add_us(o, "dur", e->dur)) ||
        (e->ph == 'i' && !cJSON_AddStringToObject(o, "s", "t")) ||
        !cJSON_AddNumberToObject(o, "pid", pid) ||
        (e->ph != 'C' && !cJSON_AddNumberToObject(o, "tid", tid)))
        goto out_fail;
    if (e->nargs) {
        if (!(args = cJSON_AddObjectToObject(o, "args")))
            goto out_fail;
        for (uint32_t i = 0; i < e->nargs; i++)
            if (!add_arg(t, args, &t->args[e->arg0 + i]))
                goto out_fail;
    }
    return o;

out_fail:
    cJSON_Delete(o);
    return NULL;
}

/* Lay out the sorted events of each track in lanes: lane[i] for event order[i]. */
static int assign_lanes(struct trace *t, const uint64_t *order, uint32_t *lane_of, struct err *e)
{
    struct lane *lanes = NULL;
    size_t n_lanes = 0, cap_lanes = 0;
    uint64_t i = 0;
    int rc = 0;

    while (i < t->n_evs) {
        uint32_t track = t->evs[order[i]].track;
        size_t used = 1;

        for (size_t k = 0; k < n_lanes; k++)
            lanes[k].n = 0;
        for (; i < t->n_evs && t->evs[order[i]].track == track; i++) {
            const struct ev *ev = &t->evs[order[i]];
            uint64_t end = ev->ts + ev->dur;
            size_t k = 0;

            if (ev->ph != 'X') { /* instants and counters: first lane, no nesting */
                lane_of[i] = 0;
                continue;
            }
            for (;; k++) {
                if (k == n_lanes) {
                    if (n_lanes == cap_lanes) {
                        size_t cap = cap_lanes ? 2 * cap_lanes : 4;
                        struct lane *a = realloc(lanes, cap * sizeof(*a));

                        if (!a)
                            goto out_nomem;
                        memset(a + cap_lanes, 0, (cap - cap_lanes) * sizeof(*a));
                        lanes = a;
                        cap_lanes = cap;
                    }
                    n_lanes++;
                }
                struct lane *L = &lanes[k];

                while (L->n && L->end[L->n - 1] <= ev->ts)
                    L->n--;
                if (!L->n || end <= L->end[L->n - 1]) {
                    if (L->n == L->cap) {
                        size_t cap = L->cap ? 2 * L->cap : 8;
                        uint64_t *a = realloc(L->end, cap * sizeof(*a));

                        if (!a)
                            goto out_nomem;
                        L->end = a;
                        L->cap = cap;
                    }
                    L->end[L->n++] = end;
                    break;
                }
            }
            lane_of[i] = (uint32_t)k;
            if (k + 1 > used)
                used = k + 1;
        }
        t->tracks[track].lanes = (uint32_t)used;
    }
    goto out;

out_nomem:
    rc = err_set(e, -ENOMEM, "trace: out of memory laying out events");
out:
    for (size_t k = 0; k < n_lanes; k++)
        free(lanes[k].end);
    free(lanes);
    return rc;
}

/* order[i]: the index of the i-th event in output order (by time, then duration, track). */
static int sort_events(const struct trace *t, uint64_t *order)
{
    struct key *keys = malloc(t->n_evs * sizeof(*keys));

    if (!keys)
        return -ENOMEM;
    for (size_t i = 0; i < t->n_evs; i++)
        keys[i] = (struct key){
            .ts = t->evs[i].ts, .dur = t->evs[i].dur, .idx = i, .track = t->evs[i].track};
    qsort(keys, t->n_evs, sizeof(*keys), key_cmp);
    for (size_t i = 0; i < t->n_evs; i++)
        order[i] = keys[i].idx;
    free(keys);
    return 0;
}

/* The metadata events: names and order of the processes, and of the threads (a track's lanes). */
static void emit_names(const struct trace *t, struct afile *af, bool *first)
{
    for (uint32_t p = 0; p < t->n_procs; p++) {
        emit(af, meta_ev("process_name", p + 1, 0, false, "name", t->str[t->procs[p]], 0), first);
        emit(af, meta_ev("process_sort_index", p + 1, 0, false, "sort_index", NULL, p), first);
    }
    for (uint32_t k = 0; k < t->n_tracks; k++) {
        const struct track *tr = &t->tracks[k];

        for (uint32_t l = 0; l < tr->lanes; l++) {
            char name[320];

            if (l)
                snprintf(name, sizeof(name), "%s #%u", t->str[tr->thread], l + 1);
            else
                snprintf(name, sizeof(name), "%s", t->str[tr->thread]);
            emit(af, meta_ev("thread_name", tr->proc + 1, tr->tid0 + l, true, "name", name, 0),
                 first);
            emit(af,
                 meta_ev("thread_sort_index", tr->proc + 1, tr->tid0 + l, true, "sort_index", NULL,
                         tr->tid0 + l),
                 first);
        }
    }
}

/* The global instant event that says how many events the cap dropped. */
static void emit_drop_note(const struct trace *t, struct afile *af, bool *first)
{
    char note[256];
    cJSON *o = cJSON_CreateObject();

    snprintf(note, sizeof(note),
             "trace truncated: %" PRIu64 " events after the first %" PRIu64
             " were dropped (raise the event cap to keep them)",
             t->dropped, t->max_events);
    if (o && (!cJSON_AddStringToObject(o, "name", note) || !cJSON_AddStringToObject(o, "ph", "i") ||
              !cJSON_AddStringToObject(o, "s", "g") || !add_us(o, "ts", t->first_drop_ps))) {
        cJSON_Delete(o);
        o = NULL;
    }
    emit(af, o, first);
}

/* "otherData": the run's metadata and the event counts. */
static void emit_other_data(const struct trace *t, struct afile *af)
{
    cJSON *other = cJSON_CreateObject();
    char *text;

    if (!other)
        afile_fail(af, "format (out of memory)", ENOMEM);
    for (size_t i = 0; other && i < t->n_meta; i++)
        if (!cJSON_AddStringToObject(other, t->meta[i].key, t->meta[i].value))
            afile_fail(af, "format (out of memory)", ENOMEM);
    if (other) {
        const struct {
            const char *key;
            uint64_t v;
        } counts[] = {
            {"events", t->n_evs}, {"dropped_events", t->dropped}, {"max_events", t->max_events}};

        for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
            char buf[32];

            snprintf(buf, sizeof(buf), "%" PRIu64, counts[i].v);
            if (!cJSON_AddRawToObject(other, counts[i].key, buf))
                afile_fail(af, "format (out of memory)", ENOMEM);
        }
    }
    text = other ? cJSON_PrintUnformatted(other) : NULL;
    cJSON_Delete(other);
    if (!text)
        afile_fail(af, "format (out of memory)", ENOMEM);
    else if (fputs(text, af->f) == EOF || fputs("}\n", af->f) == EOF)
        afile_fail(af, "write", errno);
    free(text);
}

int trace_write(struct trace *t, const char *path, struct err *e)
{
    uint64_t *order = NULL;
    uint32_t *lane_of = NULL;
    struct afile af;
    bool first = true;
    int rc;

    if (t->n_evs) {
        order = malloc(t->n_evs * sizeof(*order));
        lane_of = malloc(t->n_evs * sizeof(*lane_of));
        if (!order || !lane_of || sort_events(t, order)) {
            rc = err_set(e, -ENOMEM, "trace: out of memory writing '%s'", path);
            goto out_free;
        }
    }
    for (uint32_t k = 0; k < t->n_tracks; k++)
        t->tracks[k].lanes = 1;
    rc = assign_lanes(t, order, lane_of, e);
    if (rc)
        goto out_free;
    /* tids: tracks in order of creation, their lanes consecutive. */
    uint32_t tid = 1;
    for (uint32_t k = 0; k < t->n_tracks; k++) {
        t->tracks[k].tid0 = tid;
        tid += t->tracks[k].lanes;
    }

    rc = afile_open(&af, path, e);
    if (rc) {
        err_prefix(e, rc, "trace");
        goto out_free;
    }
    if (fputs("{\"traceEvents\":[", af.f) == EOF)
        afile_fail(&af, "write", errno);
    emit_names(t, &af, &first);
    for (uint64_t i = 0; i < t->n_evs && !af.err; i++) {
        const struct ev *ev = &t->evs[order[i]];
        const struct track *tr = &t->tracks[ev->track];

        emit(&af, event_json(t, ev, tr->proc + 1, tr->tid0 + lane_of[i]), &first);
    }
    if (t->dropped)
        emit_drop_note(t, &af, &first);
    if (fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":", af.f) == EOF)
        afile_fail(&af, "write", errno);
    emit_other_data(t, &af);
    rc = afile_commit(&af, e);
    if (rc)
        err_prefix(e, rc, "trace");

out_free:
    free(order);
    free(lane_of);
    return rc;
}
