/*
 * test_stats: the statistics registry (csim/stats.h) and its writers. Counters: define, find,
 * set, add, type and unit conflicts, counter/group conflicts, bad names. stats.json: read back
 * with cJSON, groups nested, uint64 exact to 2^64 - 1, NaN as null, key order independent of the
 * definition order (an2 before an10), meta in insertion order, the configuration object typed
 * and in insertion order. CSV: header, quoting, field counts. Atomic writes: a write that
 * cannot create its temporary file, or whose writes fail (the temporary file is a symlink to
 * /dev/full), leaves the existing file byte for byte and no temporary file behind.
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

#include "csim/stats.h"
#include "testbench/tmpdir.h"

static int setup(void **state)
{
    return tmpdir_setup(state, "test_stats");
}

static void put_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static bool exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

/* ---- registry ---- */

static struct stats *new_stats(void)
{
    struct stats *s;
    return stats_create(&s, NULL) ? NULL : s;
}

/* The handle of a counter, or NULL with the message in e. */
static struct stats_ctr *ctr_u64(struct stats *s, const char *name, const char *unit,
                                 const char *desc, struct err *e)
{
    struct stats_ctr *c;
    return stats_u64(s, name, unit, desc, &c, e) ? NULL : c;
}

static struct stats_ctr *ctr_f64(struct stats *s, const char *name, const char *unit,
                                 const char *desc, struct err *e)
{
    struct stats_ctr *c;
    return stats_f64(s, name, unit, desc, &c, e) ? NULL : c;
}

static struct stats_csv *open_csv(const char *path, size_t ncols, const char *const cols[],
                                  struct err *e)
{
    struct stats_csv *c;
    return stats_csv_open(path, ncols, cols, &c, e) ? NULL : c;
}

static void test_define_set_add(void **state)
{
    struct err e = {""};
    struct stats *s = new_stats();
    struct stats_ctr *busy, *again, *util;
    const struct stats_ctr *f;

    (void)state;
    assert_non_null(s);
    busy = ctr_u64(s, "an0.core.busy_ps", "ps", "time the core computed", &e);
    assert_non_null(busy);
    stats_ctr_add_u64(busy, 5);
    stats_ctr_add_u64(busy, 7);
    again = ctr_u64(s, "an0.core.busy_ps", "ps", "another description", &e);
    assert_ptr_equal(again, busy); /* found, not redefined */
    assert_int_equal(stats_ctr_u64(busy), 12);
    stats_ctr_max_u64(busy, 3);
    assert_int_equal(stats_ctr_u64(busy), 12);
    stats_ctr_max_u64(busy, 30);
    assert_int_equal(stats_ctr_u64(busy), 30);

    util = ctr_f64(s, "an0.core.util", "ratio", NULL, &e);
    assert_non_null(util);
    stats_ctr_set_f64(util, 0.25);
    stats_ctr_add_f64(util, 0.5);
    assert_true(stats_ctr_f64(util) == 0.75);

    assert_int_equal(stats_set_u64(s, "wn.flash.bytes_out", "bytes", "read", 100, &e), 0);
    assert_int_equal(stats_add_u64(s, "wn.flash.bytes_out", 28, &e), 0);
    f = stats_find(s, "wn.flash.bytes_out");
    assert_non_null(f);
    assert_int_equal(stats_ctr_type(f), STATS_U64);
    assert_int_equal(stats_ctr_u64(f), 128);
    assert_string_equal(stats_ctr_unit(f), "bytes");
    assert_string_equal(stats_ctr_name(f), "wn.flash.bytes_out");
    assert_int_equal(stats_set_f64(s, "wn.flash.util", "ratio", "", 0.5, &e), 0);
    assert_int_equal(stats_add_f64(s, "wn.flash.util", 0.25, &e), 0);
    assert_true(stats_ctr_f64(stats_find(s, "wn.flash.util")) == 0.75);

    assert_null(stats_find(s, "wn.flash"));   /* a group, not a counter */
    assert_null(stats_find(s, "wn.nothing")); /* absent */
    assert_int_equal(stats_add_u64(s, "wn.nothing", 1, &e), -ENOENT);
    assert_msg_has(e.msg, "wn.nothing");
    assert_int_equal(stats_add_f64(s, "wn.flash.bytes_out", 1.0, &e), -EINVAL);
    assert_msg_has(e.msg, "u64");
    assert_int_equal(stats_count(s), 4);
    stats_destroy(s);
}

static void test_conflicts_and_names(void **state)
{
    struct err e = {""};
    struct stats *s = new_stats();

    (void)state;
    assert_non_null(ctr_u64(s, "an0.core.busy_ps", "ps", NULL, &e));
    /* Same name, another type or unit. */
    assert_null(ctr_f64(s, "an0.core.busy_ps", "ps", NULL, &e));
    assert_msg_has(e.msg, "already defined as u64 [ps]");
    assert_int_equal(stats_set_u64(s, "an0.core.busy_ps", "ns", NULL, 1, &e), -EEXIST);
    assert_msg_has(e.msg, "asked for u64 [ns]");
    /* A group cannot become a counter, and a counter cannot hold others. */
    assert_null(ctr_u64(s, "an0.core", "ps", NULL, &e));
    assert_msg_has(e.msg, "already a group");
    assert_null(ctr_u64(s, "an0", "ps", NULL, &e));
    assert_null(ctr_u64(s, "an0.core.busy_ps.max", "ps", NULL, &e));
    assert_msg_has(e.msg, "\"an0.core.busy_ps\" is a counter");
    assert_int_equal(stats_set_u64(s, "an0.core.busy_ps.max", "ps", NULL, 1, &e), -EEXIST);
    /* Bad names: each says what is accepted. */
    assert_null(ctr_u64(s, "", "ps", NULL, &e));
    assert_msg_has(e.msg, "empty counter name");
    assert_null(ctr_u64(s, "an0..busy", "ps", NULL, &e));
    assert_msg_has(e.msg, "empty component at character 4");
    assert_null(ctr_u64(s, ".x", "ps", NULL, &e));
    assert_null(ctr_u64(s, "x.", "ps", NULL, &e));
    assert_null(ctr_u64(s, "an0.core busy", "ps", NULL, &e));
    assert_msg_has(e.msg, "has ' ' (0x20) at character 8");
    assert_int_equal(stats_set_u64(s, "a/b", "ps", NULL, 1, &e), -EINVAL);
    char longname[300];
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    assert_null(ctr_u64(s, longname, "", NULL, &e));
    assert_msg_has(e.msg, "at most 255");
    longname[70] = '\0';
    assert_null(ctr_u64(s, longname, "", NULL, &e));
    assert_msg_has(e.msg, "longer than 63");
    /* Nothing of the refused definitions was left behind. */
    assert_int_equal(stats_count(s), 1);
    assert_non_null(ctr_u64(s, "an0.core.idle_ps", "ps", NULL, &e));
    assert_int_equal(stats_count(s), 2);
    assert_int_equal(stats_meta(s, "", "x", &e), -EINVAL);
    stats_destroy(s);
}

/* ---- stats.json ---- */

static cJSON *leaf(cJSON *doc, const char *const *path)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, "stats");

    for (; *path && o; path++)
        o = cJSON_GetObjectItemCaseSensitive(o, *path);
    return o;
}

static void define_machine(struct stats *s, bool reverse)
{
    struct err e = {""};
    static const char *names[] = {"an10.core.busy_ps", "an2.core.busy_ps", "an0.dma.bytes",
                                  "an0.core.busy_ps",  "wn.opt.steps",     "an2.core.util",
                                  "an0.core.big"};
    size_t n = sizeof(names) / sizeof(names[0]);

    for (size_t k = 0; k < n; k++) {
        const char *name = names[reverse ? n - 1 - k : k];

        if (strstr(name, "util"))
            assert_int_equal(stats_set_f64(s, name, "ratio", "share of time busy", 0.5, &e), 0);
        else if (strstr(name, "big"))
            assert_int_equal(stats_set_u64(s, name, "count", "2^64 - 1", UINT64_MAX, &e), 0);
        else
            assert_int_equal(stats_set_u64(s, name, "ps", "a \"quoted\" desc", strlen(name), &e),
                             0);
    }
}

static void test_json_roundtrip_and_order(void **state)
{
    struct err e = {""};
    struct tmpdir *c = *state;
    struct stats *a = new_stats(), *b = new_stats();
    char pa[256], pb[256];
    char *ta, *tb;
    cJSON *doc, *o, *meta;

    define_machine(a, false);
    define_machine(b, true);
    assert_int_equal(stats_meta(a, "command", "flashstream train", &e), 0);
    assert_int_equal(stats_meta(a, "seed", "1", &e), 0);
    assert_int_equal(stats_meta(a, "command", "flashstream train --steps 3", &e), 0); /* replaced */
    assert_int_equal(stats_meta(b, "command", "flashstream train --steps 3", &e), 0);
    assert_int_equal(stats_meta(b, "seed", "1", &e), 0);
    snprintf(pa, sizeof(pa), "%s", tmpdir_path(c, "a.json"));
    snprintf(pb, sizeof(pb), "%s", tmpdir_path(c, "b.json"));
    assert_int_equal(stats_write_json(a, pa, &e), 0);
    assert_int_equal(stats_write_json(b, pb, &e), 0);
    assert_int_equal(tmpdir_temporaries(c, "a.json"), 0);
    ta = tmpdir_slurp(pa);
    tb = tmpdir_slurp(pb);
    assert_non_null(ta);
    assert_non_null(tb);
    assert_string_equal(ta, tb); /* definition order does not matter */
    /* Natural order of the groups: an0 < an2 < an10 < wn. */
    const char *p0 = strstr(ta, "\"an0\""), *p2 = strstr(ta, "\"an2\""),
               *p10 = strstr(ta, "\"an10\""), *pw = strstr(ta, "\"wn\"");
    assert_true(p0 && p2 && p10 && pw && p0 < p2 && p2 < p10 && p10 < pw);
    /* Within an0: core (big < busy_ps) before dma. */
    assert_true(strstr(ta, "\"big\"") < strstr(ta, "\"busy_ps\""));
    assert_true(strstr(ta, "\"core\"") < strstr(ta, "\"dma\""));
    /* uint64 exact. */
    assert_non_null(strstr(ta, "18446744073709551615"));

    doc = cJSON_Parse(ta);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(doc, "format")->valuestring,
                        "flashstream-stats");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(doc, "version")->valueint, 1);
    meta = cJSON_GetObjectItemCaseSensitive(doc, "meta");
    assert_string_equal(meta->child->string, "command"); /* insertion order */
    assert_string_equal(meta->child->valuestring, "flashstream train --steps 3");
    assert_string_equal(meta->child->next->string, "seed");
    o = leaf(doc, (const char *[]){"an2", "core", "util", NULL});
    assert_non_null(o);
    assert_true(cJSON_GetObjectItemCaseSensitive(o, "value")->valuedouble == 0.5);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "unit")->valuestring, "ratio");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "desc")->valuestring,
                        "share of time busy");
    o = leaf(doc, (const char *[]){"an10", "core", "busy_ps", NULL});
    assert_non_null(o);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(o, "value")->valuedouble, 17);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "desc")->valuestring,
                        "a \"quoted\" desc");
    cJSON_Delete(doc);
    free(ta);
    free(tb);
    stats_destroy(a);
    stats_destroy(b);
}

static void test_json_special_values(void **state)
{
    struct err e = {""};
    struct tmpdir *c = *state;
    struct stats *s = new_stats();
    cJSON *doc, *v;
    char *t;

    assert_int_equal(stats_set_f64(s, "x.nan", "", "", NAN, &e), 0);
    assert_int_equal(stats_set_f64(s, "x.inf", "", "", INFINITY, &e), 0);
    assert_int_equal(stats_set_f64(s, "x.third", "", "", 1.0 / 3.0, &e), 0);
    assert_int_equal(stats_set_u64(s, "x.big", "", "", (1ull << 53) + 1, &e), 0);
    assert_int_equal(stats_write_json(s, tmpdir_path(c, "s.json"), &e), 0);
    t = tmpdir_slurp(tmpdir_path(c, "s.json"));
    doc = cJSON_Parse(t);
    assert_non_null(doc);
    v = cJSON_GetObjectItemCaseSensitive(leaf(doc, (const char *[]){"x", "nan", NULL}), "value");
    assert_true(cJSON_IsNull(v));
    v = cJSON_GetObjectItemCaseSensitive(leaf(doc, (const char *[]){"x", "inf", NULL}), "value");
    assert_true(cJSON_IsNull(v));
    v = cJSON_GetObjectItemCaseSensitive(leaf(doc, (const char *[]){"x", "third", NULL}), "value");
    assert_true(v->valuedouble == 1.0 / 3.0);
    assert_non_null(strstr(t, "9007199254740993")); /* 2^53 + 1: not rounded */
    cJSON_Delete(doc);
    free(t);

    /* An empty registry is a valid document too. */
    stats_destroy(s);
    s = new_stats();
    assert_int_equal(stats_write_json(s, tmpdir_path(c, "empty.json"), &e), 0);
    t = tmpdir_slurp(tmpdir_path(c, "empty.json"));
    doc = cJSON_Parse(t);
    assert_non_null(doc);
    assert_true(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "stats")));
    cJSON_Delete(doc);
    free(t);
    stats_destroy(s);
}

/* The configuration object: sections in the order of their first key, keys in insertion order,
 * a key set again replaced in place, numbers written exactly, switches and strings typed. */
static void test_json_config(void **state)
{
    struct err e = {""};
    struct tmpdir *c = *state;
    struct stats *s = new_stats();
    cJSON *doc, *cfg, *core;
    char *t;

    assert_int_equal(stats_config(s, "core", "rows", STATS_CFG_NUMBER, "8", &e), 0);
    assert_int_equal(stats_config(s, "host", "link", STATS_CFG_NUMBER, "63015.384615", &e), 0);
    assert_int_equal(stats_config(s, "core", "fast", STATS_CFG_BOOL, "true", &e), 0);
    assert_int_equal(stats_config(s, "core", "rows", STATS_CFG_NUMBER, "18446744073709551615", &e),
                     0);
    assert_int_equal(stats_config(s, "storage", "backend", STATS_CFG_STRING, "ssd-raid0", &e), 0);
    assert_int_equal(stats_config(s, "core", "cols", STATS_CFG_NUMBER, "inf", &e), -EINVAL);
    assert_msg_has(e.msg, "core.cols = 'inf' is not a JSON number");
    assert_int_equal(stats_config(s, "core", "cols", STATS_CFG_NUMBER, "0x10", &e), -EINVAL);
    assert_int_equal(stats_config(s, "core", "fast", STATS_CFG_BOOL, "on", &e), -EINVAL);
    assert_int_equal(stats_write_json(s, tmpdir_path(c, "cfg.json"), &e), 0);
    t = tmpdir_slurp(tmpdir_path(c, "cfg.json"));
    doc = cJSON_Parse(t);
    assert_non_null(doc);
    cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
    assert_string_equal(cfg->child->string, "core");
    assert_string_equal(cfg->child->next->string, "host");
    core = cJSON_GetObjectItemCaseSensitive(cfg, "core");
    assert_string_equal(core->child->string, "rows");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(core, "fast")));
    assert_null(cJSON_GetObjectItemCaseSensitive(core, "cols"));
    assert_non_null(strstr(t, "18446744073709551615")); /* not rounded through a double */
    assert_non_null(strstr(t, "63015.384615"));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(cfg, "storage"), "backend")
                            ->valuestring,
                        "ssd-raid0");
    /* "config" sits between "meta" and "stats". */
    assert_true(strstr(t, "\"meta\"") < strstr(t, "\"config\"") &&
                strstr(t, "\"config\"") < strstr(t, "\"stats\""));
    cJSON_Delete(doc);
    free(t);
    stats_destroy(s);
}

static void test_json_many_counters(void **state)
{
    struct err e = {""};
    struct tmpdir *c = *state;
    struct stats *s = new_stats();
    char name[64];
    cJSON *doc, *o;
    char *t;

    /* 4 nodes x 64 channels x 8 counters: grows the hash table several times. */
    for (int n = 0; n < 4; n++)
        for (int ch = 63; ch >= 0; ch--)
            for (int k = 0; k < 8; k++) {
                snprintf(name, sizeof(name), "an%d.flash.ch%d.c%d", n, ch, k);
                assert_int_equal(
                    stats_set_u64(s, name, "count", "", (uint64_t)(n * 1000 + ch * 10 + k), &e), 0);
            }
    assert_int_equal(stats_count(s), 4 * 64 * 8);
    assert_int_equal(stats_write_json(s, tmpdir_path(c, "many.json"), &e), 0);
    t = tmpdir_slurp(tmpdir_path(c, "many.json"));
    doc = cJSON_Parse(t);
    assert_non_null(doc);
    o = leaf(doc, (const char *[]){"an3", "flash", "ch42", "c7", NULL});
    assert_non_null(o);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(o, "value")->valuedouble, 3427);
    /* ch9 comes before ch10 (natural order). */
    o = cJSON_GetObjectItemCaseSensitive(leaf(doc, (const char *[]){"an0", "flash", NULL}), "ch9");
    assert_string_equal(o->next->string, "ch10");
    cJSON_Delete(doc);
    free(t);
    stats_destroy(s);
}

/* The final file is left as it was when the write fails; no temporary file remains. */
static void test_json_failed_write_keeps_old(void **state)
{
    struct err e = {""};
    struct tmpdir *c = *state;
    struct stats *s = new_stats();
    char path[256], tmp[270];
    char *t;

    assert_int_equal(stats_set_u64(s, "a.b", "count", "", 1, &e), 0);
    snprintf(path, sizeof(path), "%s", tmpdir_path(c, "stats.json"));
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    put_text(path, "old contents\n");

    /* 1. A symlink planted at the temporary's old fixed name is not written through. */
    put_text(tmpdir_path(c, "victim"), "victim\n");
    assert_int_equal(symlink(tmpdir_path(c, "victim"), tmp), 0);
    assert_int_equal(stats_write_json(s, path, &e), 0);
    t = tmpdir_slurp(tmpdir_path(c, "victim"));
    assert_string_equal(t, "victim\n");
    free(t);
    assert_int_equal(unlink(tmp), 0);
    put_text(path, "old contents\n");

    /* 2. Every write fails (a full disk). */
    assert_int_equal(tmpdir_fsize_limit(4), 0);
    assert_int_equal(stats_write_json(s, path, &e), -EFBIG);
    assert_int_equal(tmpdir_fsize_limit(-1), 0);
    assert_msg_has(e.msg, "write");
    assert_msg_has(e.msg, "stats.json.tmp");
    t = tmpdir_slurp(path);
    assert_string_equal(t, "old contents\n");
    free(t);
    assert_int_equal(tmpdir_temporaries(c, "stats.json"), 0);

    /* 3. The directory does not exist. */
    assert_int_equal(stats_write_json(s, tmpdir_path(c, "no/such/dir/stats.json"), &e), -ENOENT);
    assert_msg_has(e.msg, "no/such/dir/stats.json");

    /* And then a good write replaces it. */
    assert_int_equal(stats_write_json(s, path, &e), 0);
    t = tmpdir_slurp(path);
    assert_non_null(strstr(t, "flashstream-stats"));
    free(t);
    stats_destroy(s);
}

/* ---- CSV ---- */

static void test_csv_table(void **state)
{
    struct err e = {""};
    struct tmpdir *c = *state;
    const char *cols[] = {"layer", "pass", "compute_us", "note"};
    struct stats_csv *t = open_csv(tmpdir_path(c, "layers.csv"), 4, cols, &e);
    char *text;

    assert_non_null(t);
    assert_false(exists(tmpdir_path(c, "layers.csv"))); /* only the temporary file so far */
    assert_int_equal(stats_csv_u64(t, 0, &e), 0);
    assert_int_equal(stats_csv_str(t, "fwd", &e), 0);
    assert_int_equal(stats_csv_fixed(t, 12.34567, 3, &e), 0);
    assert_int_equal(stats_csv_str(t, "waited on \"flash\", then fabric", &e), 0);
    assert_int_equal(stats_csv_end_row(t, &e), 0);
    assert_int_equal(stats_csv_i64(t, -1, &e), 0);
    assert_int_equal(stats_csv_str(t, "bwd", &e), 0);
    assert_int_equal(stats_csv_f64(t, 0.1, &e), 0);
    assert_int_equal(stats_csv_str(t, "two\nlines", &e), 0);
    assert_int_equal(stats_csv_end_row(t, &e), 0);
    assert_int_equal(stats_csv_f64(t, NAN, &e), 0);
    assert_int_equal(stats_csv_f64(t, -INFINITY, &e), 0);
    assert_int_equal(stats_csv_f64(t, 1.0 / 3.0, &e), 0);
    assert_int_equal(stats_csv_str(t, NULL, &e), 0);
    assert_int_equal(stats_csv_end_row(t, &e), 0);
    assert_int_equal(stats_csv_rows(t), 3);
    assert_int_equal(stats_csv_close(t, &e), 0);
    text = tmpdir_slurp(tmpdir_path(c, "layers.csv"));
    assert_string_equal(text, "layer,pass,compute_us,note\n"
                              "0,fwd,12.346,\"waited on \"\"flash\"\", then fabric\"\n"
                              "-1,bwd,0.1,\"two\nlines\"\n"
                              "nan,-inf,0.33333333333333331,\n");
    free(text);
    assert_int_equal(tmpdir_temporaries(c, "layers.csv"), 0);
}

static void test_csv_errors(void **state)
{
    struct err e = {""};
    struct tmpdir *c = *state;
    const char *cols[] = {"a", "b"};
    struct stats_csv *t;
    char *text;

    put_text(tmpdir_path(c, "t.csv"), "old\n");
    /* Too many fields: sticky error, close refuses, old file kept. */
    t = open_csv(tmpdir_path(c, "t.csv"), 2, cols, &e);
    assert_non_null(t);
    assert_int_equal(stats_csv_u64(t, 1, &e), 0);
    assert_int_equal(stats_csv_u64(t, 2, &e), 0);
    assert_int_equal(stats_csv_u64(t, 3, &e), -EINVAL);
    assert_msg_has(e.msg, "row 1 has more than 2 fields");
    err_clear(&e); /* the later calls say it again */
    assert_int_equal(stats_csv_end_row(t, &e), -EINVAL);
    assert_msg_has(e.msg, "row 1 has more than 2 fields");
    err_clear(&e);
    assert_int_equal(stats_csv_close(t, &e), -EINVAL);
    assert_msg_has(e.msg, "more than 2 fields");
    text = tmpdir_slurp(tmpdir_path(c, "t.csv"));
    assert_string_equal(text, "old\n");
    free(text);
    assert_int_equal(tmpdir_temporaries(c, "t.csv"), 0);

    /* Too few fields. */
    t = open_csv(tmpdir_path(c, "t.csv"), 2, cols, &e);
    assert_int_equal(stats_csv_u64(t, 1, &e), 0);
    assert_int_equal(stats_csv_end_row(t, &e), -EINVAL);
    assert_msg_has(e.msg, "row 1 has 1 fields; the header has 2");
    stats_csv_abort(t);
    assert_int_equal(tmpdir_temporaries(c, "t.csv"), 0);

    /* An unfinished row at close. */
    t = open_csv(tmpdir_path(c, "t.csv"), 2, cols, &e);
    assert_int_equal(stats_csv_u64(t, 1, &e), 0);
    assert_int_equal(stats_csv_close(t, &e), -EINVAL);
    assert_msg_has(e.msg, "unfinished");
    text = tmpdir_slurp(tmpdir_path(c, "t.csv"));
    assert_string_equal(text, "old\n");
    free(text);

    /* Writes that fail (a full disk) are reported at close at the latest; old file kept. */
    t = open_csv(tmpdir_path(c, "t.csv"), 2, cols, &e);
    assert_non_null(t); /* buffered: the header has not reached the device yet */
    for (int i = 0; i < 10; i++) {
        stats_csv_u64(t, (uint64_t)i, &e);
        stats_csv_u64(t, (uint64_t)i, &e);
        stats_csv_end_row(t, &e);
    }
    assert_int_equal(tmpdir_fsize_limit(4), 0);
    assert_int_equal(stats_csv_close(t, &e), -EFBIG);
    assert_int_equal(tmpdir_fsize_limit(-1), 0);
    assert_msg_has(e.msg, "t.csv.tmp");
    text = tmpdir_slurp(tmpdir_path(c, "t.csv"));
    assert_string_equal(text, "old\n");
    free(text);
    assert_int_equal(tmpdir_temporaries(c, "t.csv"), 0);

    /* Bad arguments. */
    assert_null(open_csv(tmpdir_path(c, "u.csv"), 0, cols, &e));
    assert_msg_has(e.msg, "no columns");
    assert_null(open_csv(tmpdir_path(c, "no/dir/u.csv"), 2, cols, &e));
    assert_msg_has(e.msg, "create");
    assert_msg_has(e.msg, "No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_define_set_add),
        cmocka_unit_test(test_conflicts_and_names),
        cmocka_unit_test_setup_teardown(test_json_roundtrip_and_order, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_json_special_values, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_json_config, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_json_many_counters, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_json_failed_write_keeps_old, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_csv_table, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_csv_errors, setup, tmpdir_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
