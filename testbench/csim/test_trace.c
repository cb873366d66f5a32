/*
 * test_trace: the Chrome trace event writer (csim/trace.h), read back with cJSON. Metadata names
 * every process and thread; complete events carry exact microsecond times from picoseconds,
 * their category and typed args; instants and counters; overlapping events of one track are
 * spread over lanes ("flash #2") while nested ones stay; the event cap drops and says so; the
 * same calls give the same bytes; bad arguments are refused with a reason; a failed write
 * leaves the old file.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "testbench/test_assert.h"

#include "csim/trace.h"
#include "testbench/tmpdir.h"

static int setup(void **state)
{
    return tmpdir_setup(state, "test_trace");
}

static struct trace *new_trace(uint64_t max_events)
{
    struct trace_cfg cfg = {.max_events = max_events};
    struct trace *t;
    return trace_create(&cfg, &t, NULL) ? NULL : t;
}

/* Write t to <dir>/name and parse it back. */
static cJSON *write_parse(struct tmpdir *c, struct trace *t, const char *name)
{
    struct err e = {""};
    char *text;
    cJSON *doc;

    assert_int_equal(trace_write(t, tmpdir_path(c, name), &e), 0);
    text = tmpdir_slurp(c->path);
    assert_non_null(text);
    doc = cJSON_Parse(text);
    if (!doc)
        fail_msg("%s is not JSON near: %.60s", name, cJSON_GetErrorPtr());
    free(text);
    return doc;
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* The first event with this ph and name (NULL: any name); NULL if none. */
static const cJSON *find_ev(const cJSON *doc, const char *ph, const char *name)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents"))
    {
        if (!strcmp(str_of(e, "ph"), ph) && (!name || !strcmp(str_of(e, "name"), name)))
            return e;
    }
    return NULL;
}

/* The tid that metadata names `thread` in process pid; -1 if none. */
static int tid_named(const cJSON *doc, int pid, const char *thread)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents"))
    {
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");

        if (!strcmp(str_of(e, "ph"), "M") && !strcmp(str_of(e, "name"), "thread_name") &&
            (int)num_of(e, "pid") == pid && !strcmp(str_of(args, "name"), thread))
            return (int)num_of(e, "tid");
    }
    return -1;
}

static int pid_named(const cJSON *doc, const char *process)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents"))
    {
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");

        if (!strcmp(str_of(e, "ph"), "M") && !strcmp(str_of(e, "name"), "process_name") &&
            !strcmp(str_of(args, "name"), process))
            return (int)num_of(e, "pid");
    }
    return -1;
}

static void test_events_and_metadata(void **state)
{
    struct err err = {""};
    struct tmpdir *c = *state;
    struct trace *t = new_trace(0);
    uint32_t core, dma, wn_opt, again;
    const cJSON *e, *args;
    cJSON *doc;
    char *text;

    assert_non_null(t);
    assert_int_equal(trace_max_events(t), TRACE_DEFAULT_MAX_EVENTS);
    assert_int_equal(trace_track(t, "an0", "core", &core, &err), 0);
    assert_int_equal(trace_track(t, "an0", "dma", &dma, &err), 0);
    assert_int_equal(trace_track(t, "wn", "optimizer", &wn_opt, &err), 0);
    assert_int_equal(trace_track(t, "an0", "core", &again, &err), 0);
    assert_int_equal(again, core);
    struct trace_arg a[] = {TRACE_U64("bytes", 18446744073709551615ull), TRACE_I64("delta", -3),
                            TRACE_F64("util", 0.5), TRACE_STR("waited_on", "flash")};
    assert_int_equal(
        trace_complete(t, core, 1234567, 2000001, "L1 fwd gemm", "compute", a, 4, &err), 0);
    assert_int_equal(trace_complete(t, dma, 0, 500000, "L1 weights", NULL, NULL, 0, &err), 0);
    assert_int_equal(
        trace_complete(t, wn_opt, 3000000000000ull, 1, "adam L1", "opt", NULL, 0, &err), 0);
    assert_int_equal(trace_instant(t, core, 7000000, "switch to tlm", NULL, 0, &err), 0);
    assert_int_equal(trace_counter(t, dma, 100, "queue depth", 3.0, &err), 0);
    assert_int_equal(trace_meta(t, "command", "flashstream train", &err), 0);
    assert_int_equal(trace_events(t), 5);
    assert_int_equal(trace_dropped(t), 0);

    doc = write_parse(c, t, "trace.json");
    text = tmpdir_slurp(c->path);
    /* Times exact in microseconds, from picoseconds. */
    assert_non_null(strstr(text, "\"ts\":1.234567,\"dur\":2.000001"));
    assert_non_null(strstr(text, "\"ts\":3000000,\"dur\":0.000001"));
    assert_non_null(strstr(text, "\"bytes\":18446744073709551615"));
    free(text);

    assert_string_equal(str_of(doc, "displayTimeUnit"), "ns");
    int an0 = pid_named(doc, "an0"), wn = pid_named(doc, "wn");
    assert_true(an0 > 0 && wn > 0 && an0 != wn);
    int tcore = tid_named(doc, an0, "core"), tdma = tid_named(doc, an0, "dma");
    assert_true(tcore > 0 && tdma > 0 && tcore != tdma);
    assert_true(tid_named(doc, wn, "optimizer") > 0);

    e = find_ev(doc, "X", "L1 fwd gemm");
    assert_non_null(e);
    assert_string_equal(str_of(e, "cat"), "compute");
    assert_int_equal((int)num_of(e, "pid"), an0);
    assert_int_equal((int)num_of(e, "tid"), tcore);
    args = cJSON_GetObjectItemCaseSensitive(e, "args");
    assert_true(num_of(args, "delta") == -3);
    assert_true(num_of(args, "util") == 0.5);
    assert_string_equal(str_of(args, "waited_on"), "flash");
    e = find_ev(doc, "X", "L1 weights");
    assert_string_equal(str_of(e, "cat"), "sim");
    assert_int_equal((int)num_of(e, "tid"), tdma);
    e = find_ev(doc, "i", "switch to tlm");
    assert_non_null(e);
    assert_string_equal(str_of(e, "s"), "t");
    assert_true(num_of(e, "ts") == 7.0);
    e = find_ev(doc, "C", "queue depth");
    assert_non_null(e);
    assert_true(num_of(cJSON_GetObjectItemCaseSensitive(e, "args"), "value") == 3.0);
    assert_int_equal((int)num_of(e, "pid"), an0);
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(doc, "otherData");
    assert_string_equal(str_of(other, "command"), "flashstream train");
    assert_true(num_of(other, "events") == 5);
    assert_true(num_of(other, "dropped_events") == 0);
    assert_ptr_equal(find_ev(doc, "i", NULL), find_ev(doc, "i", "switch to tlm")); /* no note */
    cJSON_Delete(doc);
    assert_int_equal(tmpdir_temporaries(c, "trace.json"), 0);
    trace_destroy(t);
}

static void test_lanes(void **state)
{
    struct err err = {""};
    struct tmpdir *c = *state;
    struct trace *t = new_trace(0);
    uint32_t fl;
    const cJSON *e;
    cJSON *doc;

    assert_int_equal(trace_track(t, "an1", "flash", &fl, &err), 0);
    /* step [0,100) holds read [10,40) and program [50,90): nested, lane 1. */
    assert_int_equal(trace_complete(t, fl, 10000000, 30000000, "read", NULL, NULL, 0, &err), 0);
    assert_int_equal(trace_complete(t, fl, 0, 100000000, "step", NULL, NULL, 0, &err), 0);
    assert_int_equal(trace_complete(t, fl, 50000000, 40000000, "program", NULL, NULL, 0, &err), 0);
    /* [80,120) overlaps "program" and crosses the end of "step": a second lane. */
    assert_int_equal(trace_complete(t, fl, 80000000, 40000000, "erase", NULL, NULL, 0, &err), 0);
    /* [120,130) starts when the others ended: back in the first lane. */
    assert_int_equal(trace_complete(t, fl, 120000000, 10000000, "after", NULL, NULL, 0, &err), 0);
    doc = write_parse(c, t, "lanes.json");
    int pid = pid_named(doc, "an1");
    int t1 = tid_named(doc, pid, "flash"), t2 = tid_named(doc, pid, "flash #2");
    assert_true(t1 > 0 && t2 > 0);
    assert_int_equal(tid_named(doc, pid, "flash #3"), -1);
    assert_int_equal((int)num_of(find_ev(doc, "X", "step"), "tid"), t1);
    assert_int_equal((int)num_of(find_ev(doc, "X", "read"), "tid"), t1);
    assert_int_equal((int)num_of(find_ev(doc, "X", "program"), "tid"), t1);
    assert_int_equal((int)num_of(find_ev(doc, "X", "erase"), "tid"), t2);
    assert_int_equal((int)num_of(find_ev(doc, "X", "after"), "tid"), t1);
    /* Events of a track are written in start order. */
    double last = -1;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents"))
    {
        if (!strcmp(str_of(e, "ph"), "X")) {
            assert_true(num_of(e, "ts") >= last);
            last = num_of(e, "ts");
        }
    }
    cJSON_Delete(doc);
    trace_destroy(t);
}

static void test_cap(void **state)
{
    struct err err = {""};
    struct tmpdir *c = *state;
    struct trace *t = new_trace(5);
    uint32_t k;
    const cJSON *e, *other;
    cJSON *doc;
    int n_x = 0;

    assert_int_equal(trace_track(t, "an0", "core", &k, &err), 0);
    for (uint64_t i = 0; i < 12; i++)
        assert_int_equal(trace_complete(t, k, i * 1000000, 1000000, "op", NULL, NULL, 0, &err), 0);
    assert_int_equal(trace_events(t), 5);
    assert_int_equal(trace_dropped(t), 7);
    doc = write_parse(c, t, "cap.json");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents"))
    {
        n_x += !strcmp(str_of(e, "ph"), "X");
    }
    assert_int_equal(n_x, 5);
    e = find_ev(doc, "i", NULL);
    assert_non_null(e);
    assert_msg_has(str_of(e, "name"), "trace truncated: 7 events after the first 5");
    assert_string_equal(str_of(e, "s"), "g");
    assert_true(num_of(e, "ts") == 5.0); /* the first event dropped started at 5 us */
    other = cJSON_GetObjectItemCaseSensitive(doc, "otherData");
    assert_true(num_of(other, "dropped_events") == 7);
    assert_true(num_of(other, "max_events") == 5);
    cJSON_Delete(doc);
    trace_destroy(t);
}

static void build_same(struct trace *t)
{
    struct err e = {""};
    uint32_t a, b;

    assert_int_equal(trace_track(t, "an0", "core", &a, &e), 0);
    assert_int_equal(trace_track(t, "wn", "flash", &b, &e), 0);
    for (uint64_t i = 0; i < 100; i++) {
        struct trace_arg arg = TRACE_U64("i", i);

        assert_int_equal(trace_complete(t, (i % 3) ? a : b, (i * 7919) % 1000 * 1000, 500 + i, "ev",
                                        NULL, &arg, 1, &e),
                         0);
    }
}

static void test_deterministic(void **state)
{
    struct err e = {""};
    struct tmpdir *c = *state;
    struct trace *x = new_trace(0), *y = new_trace(0);
    char *tx, *ty;

    build_same(x);
    build_same(y);
    assert_int_equal(trace_write(x, tmpdir_path(c, "x.json"), &e), 0);
    tx = tmpdir_slurp(c->path);
    assert_int_equal(trace_write(y, tmpdir_path(c, "y.json"), &e), 0);
    ty = tmpdir_slurp(c->path);
    assert_string_equal(tx, ty);
    /* A second write of the same trace, after more events, is still valid. */
    uint32_t k;
    assert_int_equal(trace_track(x, "an0", "core", &k, &e), 0);
    assert_int_equal(trace_complete(x, k, 0, 1, "late", NULL, NULL, 0, &e), 0);
    cJSON_Delete(write_parse(c, x, "x2.json"));
    free(tx);
    free(ty);
    trace_destroy(x);
    trace_destroy(y);
}

static void test_errors(void **state)
{
    struct err e = {""};
    struct tmpdir *c = *state;
    struct trace *t = new_trace(0);
    struct trace_arg many[TRACE_MAX_ARGS + 1];
    uint32_t k;
    char path[256], tmp[270];
    char *text;

    for (int i = 0; i <= TRACE_MAX_ARGS; i++)
        many[i] = TRACE_U64("k", 1);
    assert_int_equal(trace_track(t, "", "core", &k, &e), -EINVAL);
    assert_msg_has(e.msg, "non-empty process and thread");
    assert_int_equal(trace_track(t, "an0", NULL, &k, &e), -EINVAL);
    assert_int_equal(trace_track(t, "an0", "core", &k, &e), 0);
    assert_int_equal(trace_complete(t, k + 1, 0, 1, "x", NULL, NULL, 0, &e), -EINVAL);
    assert_msg_has(e.msg, "track 1 does not exist (1 tracks");
    assert_int_equal(trace_complete(t, k, 0, 1, "", NULL, NULL, 0, &e), -EINVAL);
    assert_msg_has(e.msg, "non-empty name");
    assert_int_equal(trace_complete(t, k, 0, 1, "x", NULL, many, TRACE_MAX_ARGS + 1, &e), -EINVAL);
    assert_msg_has(e.msg, "accepted 0..8");
    many[0].key = NULL;
    assert_int_equal(trace_complete(t, k, 0, 1, "x", NULL, many, 1, &e), -EINVAL);
    assert_int_equal(trace_complete(t, k, UINT64_MAX, 2, "x", NULL, NULL, 0, &e), -EINVAL);
    assert_msg_has(e.msg, "after 2^64 ps");
    assert_int_equal(trace_events(t), 0);

    /* A failed write leaves the old file and no temporary. */
    assert_int_equal(trace_complete(t, k, 0, 1, "x", NULL, NULL, 0, &e), 0);
    snprintf(path, sizeof(path), "%s", tmpdir_path(c, "trace.json"));
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old", f);
    fclose(f);
    assert_int_equal(tmpdir_fsize_limit(2), 0);
    assert_int_equal(trace_write(t, path, &e), -EFBIG);
    assert_int_equal(tmpdir_fsize_limit(-1), 0);
    assert_msg_has(e.msg, "trace.json.tmp");
    text = tmpdir_slurp(path);
    assert_string_equal(text, "old");
    free(text);
    assert_int_equal(tmpdir_temporaries(c, "trace.json"), 0);
    /* A symlink planted at the temporary's old fixed name is not written through. */
    assert_int_equal(symlink("/dev/full", tmp), 0);
    assert_int_equal(trace_write(t, path, &e), 0);
    assert_int_equal(unlink(tmp), 0);
    assert_int_equal(trace_write(t, tmpdir_path(c, "no/such/dir/trace.json"), &e), -ENOENT);
    assert_msg_has(e.msg, "create");
    trace_destroy(t);
}

static void test_empty(void **state)
{
    struct tmpdir *c = *state;
    struct trace *t = new_trace(0);
    cJSON *doc = write_parse(c, t, "empty.json");

    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "traceEvents")), 0);
    cJSON_Delete(doc);
    trace_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_events_and_metadata, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_lanes, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_cap, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_deterministic, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_empty, setup, tmpdir_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
