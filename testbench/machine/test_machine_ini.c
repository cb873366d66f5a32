/*
 * test_machine_ini: the machine description file (models/machine/machine_ini.h). The one table:
 * every row well formed, every default in its own range, a fresh description is
 * machine_cfg_default. Every refusal of a file names the file, the line, the key as
 * section.key and what is accepted (unknown section, unknown key, a value out of range or not
 * of the type, a bad line, a key twice, a key before any section, a line too long, a missing
 * file); every refusal of --set names the assignment. Lines apply in order ([flash] then
 * [an_flash]; --set after the file), and the keys given are known. A dump reads back to the
 * same configuration (the defaults, the small test machine, the paper's). configs/fc-mnist.ini
 * is exactly the defaults; configs/behemoth-paper.ini parses and validates, holds the paper's
 * numbers, and training refuses it saying why. The stats.json object and the Markdown table.
 * [faults]: the --fault grammar per kind, --set adding and overriding, read back from a dump,
 * and its refusals. The "section.key=value" text a checkpoint records applies back to the same
 * machine, and the keys two machines differ on are each named once with both values (not the
 * seed of the fault draws or a power loss).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/flash/flash_cfg.h"
#include "models/machine/machine_ini.h"
#include "testbench/tmpdir.h"

static int setup(void **state)
{
    return tmpdir_setup(state, "test_machine_ini");
}

static struct machine_ini *new_ini(void)
{
    struct machine_ini *m;
    struct err e;

    if (machine_ini_create(&m, &e))
        fail_msg("%s", e.msg);
    return m;
}

/* Write text to <tmpdir>/name; its path (valid until the next tmpdir_path). */
static const char *put_file(struct tmpdir *t, const char *name, const char *text)
{
    const char *path = tmpdir_path(t, name);
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* Loading text must fail with rc, the message naming "<file>:<line>: " and each needle. */
static void load_refused(struct tmpdir *t, const char *text, int rc, int line, const char *needle1,
                         const char *needle2)
{
    struct machine_ini *m = new_ini();
    struct err e = {""};
    char where[300];
    const char *path = put_file(t, "bad.ini", text);

    snprintf(where, sizeof(where), "%s:%d: ", path, line);
    assert_int_equal(machine_ini_load(m, path, &e), rc);
    assert_msg_has(e.msg, where);
    assert_msg_has(e.msg, needle1);
    if (needle2)
        assert_msg_has(e.msg, needle2);
    machine_ini_destroy(m);
}

static void set_refused(const char *assignment, const char *bare, int rc, const char *needle1,
                        const char *needle2)
{
    struct machine_ini *m = new_ini();
    struct err e = {""};
    char where[300];

    snprintf(where, sizeof(where), "--set %s: ", assignment);
    assert_int_equal(machine_ini_set(m, assignment, bare, &e), rc);
    assert_msg_has(e.msg, where);
    assert_msg_has(e.msg, needle1);
    if (needle2)
        assert_msg_has(e.msg, needle2);
    /* Nothing was applied. */
    struct machine_cfg def;
    machine_cfg_default(&def);
    assert_int_equal(machine_ini_diff(machine_ini_cfg(m), &def, NULL, NULL), 0);
    machine_ini_destroy(m);
}

/* ---- the table ---- */

static void test_table_and_defaults(void **state)
{
    struct machine_ini *m = new_ini();
    struct machine_cfg def, small;
    struct err e = {""};

    (void)state;
    if (machine_ini_check_table(&e))
        fail_msg("%s", e.msg);
    /* Every key has a default that passes its own range, on both machines the code builds. */
    machine_cfg_default(&def);
    if (machine_ini_check_keys(&def, &e))
        fail_msg("machine_cfg_default: %s", e.msg);
    machine_cfg_small(&small);
    if (machine_ini_check_keys(&small, &e))
        fail_msg("machine_cfg_small: %s", e.msg);
    assert_int_equal(machine_ini_validate(m, &e), 0);
    assert_int_equal(machine_ini_diff(machine_ini_cfg(m), &def, NULL, NULL), 0);
    assert_int_equal(machine_cfg_supported(&def, &e), 0);
    assert_false(machine_ini_given(m, "core", "rows"));
    assert_false(machine_ini_given(m, "core", "no_such_key"));
    machine_ini_destroy(m);
}

/* ---- errors ---- */

static void test_file_errors_name_file_line_key_range(void **state)
{
    struct tmpdir *t = *state;
    struct machine_ini *m = new_ini();
    struct err e = {""};
    char long_line[MACHINE_INI_LINE_MAX + 100];

    load_refused(t, "[core]\nrows = 8\n\n[cores]\nrows = 8\n", -EINVAL, 5,
                 "unknown section [cores]", "accepted: machine, core, vector_unit");
    load_refused(t, "; a comment\n[core]\nrowz = 8\n", -EINVAL, 3, "unknown key 'rowz' in [core]",
                 "accepted: rows, cols, acc_stages, pad_a_words");
    load_refused(t, "[core]\nrows = 100000\n", -ERANGE, 2, "core.rows = '100000' is out of range",
                 "accepted 1..4096");
    load_refused(t, "[core]\nperiod_ns = fast\n", -EINVAL, 2, "core.period_ns = 'fast'",
                 "is not a decimal number; accepted 0.001..1000 ns");
    load_refused(t, "[tensor_buffer]\nsize_bytes = 6000\n", -ERANGE, 2,
                 "tensor_buffer.size_bytes = '6000' is not a multiple of 4096", "4KiB..1TiB");
    load_refused(t, "[dma]\nmax_rd_out = 48\n", -ERANGE, 2,
                 "dma.max_rd_out = '48' is not a power of two", "a power of two in 2..4096");
    load_refused(t, "[flash]\ncache_program = maybe\n", -EINVAL, 2,
                 "flash.cache_program = 'maybe' is not a switch value", "on/off");
    load_refused(t, "[an_flash]\nchannels = 0\n", -ERANGE, 2, "an_flash.channels = '0'",
                 "accepted 1..1024");
    load_refused(t, "[storage]\nbackend = ssd\n", -EINVAL, 2, "storage.backend = 'ssd'",
                 "accepted behemoth, ssd-raid0 or ideal");
    load_refused(t, "[core]\nrows 8\n", -EINVAL, 2, "not a 'key = value' line", NULL);
    load_refused(t, "[core\nrows = 8\n", -EINVAL, 1, "not a 'key = value' line", NULL);
    load_refused(t, "rows = 8\n", -EINVAL, 1, "key 'rows' comes before any [section]",
                 "accepted sections: machine");
    load_refused(t, "[core]\nrows = 8\ncols = 8\nrows = 16\n", -EINVAL, 4,
                 "core.rows is given twice in this file (line 2", NULL);
    /* An indented line continues the value above it: refused as the same key again. */
    load_refused(t, "[core]\nrows = 8\n    16\n", -EINVAL, 3, "core.rows is given twice", NULL);
    /* A bad line before a bad key: the first is named. */
    load_refused(t, "[core]\nrows 8\ncols = 0\n", -EINVAL, 2, "not a 'key = value' line", NULL);
    memset(long_line, 'x', sizeof(long_line) - 1);
    long_line[0] = ';';
    long_line[sizeof(long_line) - 1] = '\0';
    char text[sizeof(long_line) + 100];
    snprintf(text, sizeof(text), "[core]\n%s\nrows = 8\n", long_line);
    load_refused(t, text, -EINVAL, 2, "the line is longer than 4096 characters", NULL);
    /* A NUL byte is named as such (fgets would have cut the line there, unseen). */
    FILE *nf = fopen(tmpdir_path(t, "nul.ini"), "wb");
    assert_non_null(nf);
    assert_int_equal(fwrite("[core]\nrows = 8\0x\n", 1, 19, nf), 19);
    assert_int_equal(fclose(nf), 0);
    assert_int_equal(machine_ini_load(m, tmpdir_path(t, "nul.ini"), &e), -EINVAL);
    assert_msg_has(e.msg, "nul.ini:2: a NUL byte at column 9; a description is text");

    assert_int_equal(machine_ini_load(m, tmpdir_path(t, "missing.ini"), &e), -ENOENT);
    assert_msg_has(e.msg, "missing.ini");
    /* a FIFO is refused at once, not waited on for a writer */
    assert_int_equal(mkfifo(tmpdir_path(t, "fifo.ini"), 0600), 0);
    assert_int_equal(machine_ini_load(m, tmpdir_path(t, "fifo.ini"), &e), -EINVAL);
    assert_msg_has(e.msg, "is a FIFO (named pipe), not a regular file");
    machine_ini_destroy(m);
}

static void test_set_errors_name_the_assignment(void **state)
{
    (void)state;
    set_refused("core.rows=0", NULL, -ERANGE, "core.rows = '0' is out of range", "1..4096");
    set_refused("core.rows", NULL, -EINVAL, "accepted SECTION.KEY=VALUE", NULL);
    set_refused("rows=8", NULL, -EINVAL, "give the key's section", NULL);
    set_refused("cores.rows=8", NULL, -EINVAL, "unknown section [cores]", "accepted: machine");
    set_refused("core.rowz=8", NULL, -EINVAL, "unknown key 'rowz' in [core]", "rows, cols");
    set_refused("chanels=16", "flash", -EINVAL, "unknown key 'chanels' in [flash]", "channels");
    set_refused("fabric.link_mb_per_s=0", NULL, -ERANGE, "fabric.link_mb_per_s = '0'",
                "0.000001..1000000000 MB/s");
}

static void test_rules_across_keys(void **state)
{
    struct machine_ini *m = new_ini();
    struct err e = {""};

    (void)state;
    assert_int_equal(machine_ini_set(m, "an_flash.ctrl_cmd_bytes=6144", NULL, &e), 0);
    assert_int_equal(machine_ini_validate(m, &e), -EINVAL);
    assert_msg_has(e.msg, "an_flash: flash config: ctrl_cmd_bytes = 6144 is not a multiple of "
                          "page_bytes = 4096");
    assert_int_equal(machine_ini_set(m, "an_flash.page_bytes=2048", NULL, &e), 0);
    assert_int_equal(machine_ini_validate(m, &e), 0);
    machine_ini_destroy(m);
}

/* The core's accumulator stages: 1 or 4, and the word they make within the RTL's 64. */
static void test_acc_stages(void **state)
{
    struct machine_ini *m = new_ini();
    struct err e = {""};

    (void)state;
    assert_int_equal(machine_ini_set(m, "core.acc_stages=3", NULL, &e), 0);
    assert_int_equal(machine_cfg_supported(machine_ini_cfg(m), &e), -EINVAL);
    assert_msg_has(e.msg, "core.acc_stages = 3: accepted 1 or 4");
    assert_int_equal(machine_ini_set(m, "core.acc_stages=4", NULL, &e), 0);
    assert_int_equal(machine_cfg_supported(machine_ini_cfg(m), &e), 0);
    /* the word is the array's, as with one stage: 64 x 64 builds, 7 x 9 (W = 252) does not */
    assert_int_equal(machine_ini_set(m, "core.rows=64", NULL, &e), 0);
    assert_int_equal(machine_ini_set(m, "core.cols=64", NULL, &e), 0);
    assert_int_equal(machine_cfg_supported(machine_ini_cfg(m), &e), 0);
    assert_int_equal(machine_ini_set(m, "core.rows=7", NULL, &e), 0);
    assert_int_equal(machine_ini_set(m, "core.cols=9", NULL, &e), 0);
    assert_int_equal(machine_cfg_supported(machine_ini_cfg(m), &e), -EINVAL);
    assert_msg_has(e.msg, "7 x 9 (4 accumulator stages)");
    machine_ini_destroy(m);
}

/* ---- order and what was given ---- */

static void test_order_given_and_sets(void **state)
{
    struct tmpdir *t = *state;
    struct machine_ini *m = new_ini();
    struct err e = {""};
    const struct machine_cfg *c = machine_ini_cfg(m);
    const char *path = put_file(t, "order.ini",
                                "[an_flash]\nchannels = 8\n"
                                "[flash]\nchannels = 16 ; every node\nt_prog_ns = 200000\n"
                                "[wn_flash]\nchannels = 32\n"
                                "[core]\nperiod_ns = 2\n");

    (void)state;
    if (machine_ini_load(m, path, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(c->an_flash.geom.channels, 16); /* [flash] came after [an_flash] */
    assert_int_equal(c->wn_flash.geom.channels, 32);
    assert_int_equal(c->an_flash.tim.t_prog_ps, 200000000);
    assert_int_equal(c->wn_flash.tim.t_prog_ps, 200000000);
    assert_int_equal(c->core_period_ps, 2000);
    assert_true(machine_ini_given(m, "flash", "channels"));
    assert_true(machine_ini_given(m, "an_flash", "t_prog_ns"));
    assert_true(machine_ini_given(m, "wn_flash", "t_prog_ns"));
    assert_false(machine_ini_given(m, "flash", "t_r_ns"));
    assert_false(machine_ini_given(m, "machine", "activation_nodes"));
    /* Assignments after the file win; a bare key is the given section's. */
    assert_int_equal(machine_ini_set(m, " core.period_ns = 1.25 ", NULL, &e), 0);
    assert_int_equal(machine_ini_set(m, "channels=4", "flash", &e), 0);
    assert_int_equal(machine_ini_set(m, "machine.activation_nodes=8", NULL, &e), 0);
    assert_int_equal(c->core_period_ps, 1250);
    assert_int_equal(c->an_flash.geom.channels, 4);
    assert_int_equal(c->wn_flash.geom.channels, 4);
    assert_int_equal(c->n_an, 8);
    assert_true(machine_ini_given(m, "machine", "activation_nodes"));
    /* A second file applies on top of the first. */
    path = put_file(t, "more.ini", "[core]\nrows = 4\n");
    assert_int_equal(machine_ini_load(m, path, &e), 0);
    assert_int_equal(c->core.rows, 4);
    assert_int_equal(c->n_an, 8);
    machine_ini_destroy(m);
}

/* ---- dumps ---- */

/* Write c, read it back into a fresh description: the same configuration. */
static void round_trip(struct tmpdir *t, const struct machine_cfg *c)
{
    struct machine_ini *m = new_ini();
    struct err e = {""};
    const char *path = tmpdir_path(t, "dump.ini"), *sec = "", *key = "";
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    machine_ini_write(f, c, "a dump");
    assert_int_equal(fclose(f), 0);
    if (machine_ini_load(m, path, &e))
        fail_msg("%s", e.msg);
    if (machine_ini_diff(machine_ini_cfg(m), c, &sec, &key))
        fail_msg("%s.%s differs after the round trip", sec, key);
    assert_true(machine_ini_given(m, "wn_flash", "store_payload"));
    machine_ini_destroy(m);
}

struct seen {
    char keys[512];
    int n;
};

static void on_differs(void *user, const char *section, const char *key, const char *a,
                       const char *b)
{
    struct seen *s = user;
    size_t at = strlen(s->keys);

    snprintf(s->keys + at, sizeof(s->keys) - at, "%s.%s %s->%s;", section, key, a, b);
    s->n++;
}

/* The paper's machine with faults as assignments, applied onto a fresh description: the same
 * machine. Two keys and a dead die changed: those three named; the seed and a power loss not. */
static void test_assignments_and_diff(void **state)
{
    struct machine_ini *a = new_ini(), *b = new_ini();
    struct err e = {""};
    struct seen seen = {"", 0};
    char *text;
    size_t n;

    (void)state;
    if (machine_ini_load(a, "configs/behemoth-paper.ini", &e) ||
        machine_ini_set(a, "faults.die=ch=1,die=0,at=2ms ch=3,die=1,at=0ns", NULL, &e) ||
        machine_ini_set(a, "faults.seed=n=9", NULL, &e))
        fail_msg("%s", e.msg);
    n = machine_ini_assignments(machine_ini_cfg(a), NULL, 0);
    text = malloc(n + 1);
    assert_non_null(text);
    assert_int_equal(machine_ini_assignments(machine_ini_cfg(a), text, n + 1), n);
    assert_int_equal(strlen(text), n);
    assert_msg_has(text, "core.period_ns=1.25\n");
    assert_null(strstr(text, "faults.seed"));
    if (machine_ini_apply(b, text, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(
        machine_ini_diff_each(machine_ini_cfg(a), machine_ini_cfg(b), on_differs, &seen), 0);
    if (machine_ini_set(b, "core.period_ns=1", NULL, &e) ||
        machine_ini_set(b, "tensor_buffer.channels=12", NULL, &e) ||
        machine_ini_set(b, "faults.die=ch=1,die=0,at=2ms", NULL, &e) ||
        machine_ini_set(b, "faults.power=at=1s", NULL, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(
        machine_ini_diff_each(machine_ini_cfg(a), machine_ini_cfg(b), on_differs, &seen), 3);
    assert_msg_has(seen.keys, "core.period_ns 1.25->1;tensor_buffer.channels 7->12;faults.die ");
    assert_null(strstr(seen.keys, "power"));
    /* a line the description refuses is named */
    assert_int_equal(machine_ini_apply(b, "core.rows=8\ncore.bogus=1\n", &e), -EINVAL);
    assert_msg_has(e.msg, "core.bogus");
    free(text);
    machine_ini_destroy(a);
    machine_ini_destroy(b);
}

static void test_dump_reads_back(void **state)
{
    struct tmpdir *t = *state;
    struct machine_cfg c;
    struct machine_ini *m = new_ini();
    struct err e = {""};
    static const char *const sets[] = {
        "machine.activation_nodes=7",
        "machine.cores_per_node=16",
        "machine.act_fresh_lb=on",
        "core.rows=128",
        "core.cols=256",
        "core.period_ns=0.777",
        "vector_unit.lanes=3",
        "optimizer.cost_adam=9",
        "dma.max_wr_out=5",
        "tensor_buffer.size_bytes=12k",
        "tensor_buffer.latency_ns=12.345",
        "fabric.link_mb_per_s=0.5",
        "fabric.chunk_bytes=1000",
        "an_flash.channels=3",
        "wn_flash.t_r_ns=2999.999",
        "host.latency_ns=2.5",
        "storage.backend=ssd-raid0",
    };

    machine_cfg_default(&c);
    round_trip(t, &c);
    machine_cfg_small(&c);
    round_trip(t, &c);
    for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
        if (machine_ini_set(m, sets[i], NULL, &e))
            fail_msg("%s", e.msg);
    machine_cfg_default(&c);
    assert_int_equal(machine_ini_diff(machine_ini_cfg(m), &c, NULL, NULL),
                     sizeof(sets) / sizeof(sets[0]));
    round_trip(t, machine_ini_cfg(m));
    machine_ini_destroy(m);
}

/* The longest values a user can give: every fault kind, 16 dead dies (FLASH_FAULT_MAX_DEAD)
 * with times of many digits; the dump's lines are longer than libinih's default 200 and read
 * back to the same machine. A value longer than a line can be is refused, not cut. */
static void test_longest_values_read_back(void **state)
{
    struct tmpdir *t = *state;
    struct machine_ini *m = new_ini();
    struct err e = {""};
    char dies[1024], huge[MACHINE_INI_LINE_MAX + 32];
    size_t n = 0;

    for (int i = 0; i < FLASH_FAULT_MAX_DEAD; i++)
        n += (size_t)snprintf(dies + n, sizeof(dies) - n, "%sch=%d,die=1,at=%d.123456789ms",
                              i ? " " : "", i, 1000 + i);
    char set[1100];
    snprintf(set, sizeof(set), "faults.die=%s", dies);
    const char *sets[] = {set,
                          "faults.rber=x=123.456789",
                          "faults.age=pe=1999999,days=3650.5 pe=7,days=1,node=wn",
                          "faults.program=rate=0.000123456789",
                          "faults.wear=pe=1500000,bad=0.0123456789,shape=3.5",
                          "faults.power=at=987654.321us",
                          "faults.seed=n=9007199254740991"};
    for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
        if (machine_ini_set(m, sets[i], NULL, &e))
            fail_msg("%s: %s", sets[i], e.msg);
    assert_int_equal(machine_ini_cfg(m)->an_flash.fault.n_dead, FLASH_FAULT_MAX_DEAD);
    round_trip(t, machine_ini_cfg(m));

    memset(huge, '7', sizeof(huge) - 1);
    huge[sizeof(huge) - 1] = '\0';
    memcpy(huge, "core.rows=", 10);
    assert_int_equal(machine_ini_set(m, huge, NULL, &e), -EINVAL);
    assert_msg_has(e.msg, "accepted up to 63 and 4096");
    machine_ini_destroy(m);
}

/* ---- the committed descriptions ---- */

static struct machine_ini *load_committed(const char *path)
{
    struct machine_ini *m = new_ini();
    struct err e = {""};

    if (machine_ini_load(m, path, &e) || machine_ini_validate(m, &e))
        fail_msg("%s", e.msg);
    return m;
}

static void test_fc_mnist_is_the_default(void **state)
{
    struct tmpdir *t = *state;
    struct machine_ini *m = load_committed("configs/fc-mnist.ini");
    struct machine_cfg def;
    const char *sec = "", *key = "";

    machine_cfg_default(&def);
    if (machine_ini_diff(machine_ini_cfg(m), &def, &sec, &key))
        fail_msg("configs/fc-mnist.ini: %s.%s is not machine_cfg_default's", sec, key);
    assert_true(machine_ini_given(m, "an_flash", "store_payload"));
    assert_true(machine_ini_given(m, "host", "latency_ns"));
    round_trip(t, machine_ini_cfg(m));
    machine_ini_destroy(m);
}

static void test_behemoth_paper(void **state)
{
    struct tmpdir *t = *state;
    struct machine_ini *m = load_committed("configs/behemoth-paper.ini");
    const struct machine_cfg *c = machine_ini_cfg(m);
    struct err e = {""};
    double pes = (double)c->cores_per_an * c->core.rows * c->core.cols;
    double flops = pes * 2.0 / ((double)c->core_period_ps * 1e-12);

    /* Table 4: 16 cores, 524,288 PEs, 840 TFLOPS, 16 GB DDR4, 2 TB of flash, PCIe Gen4 x32. */
    assert_int_equal(c->cores_per_an, 16);
    assert_true(pes == 524288.0);
    assert_true(flops > 838e12 && flops < 840e12);
    assert_int_equal(c->tb.size_bytes, 16ull << 30);
    assert_true(flash_geom_bytes(&c->an_flash.geom) > (2ull << 40) * 999 / 1000);
    assert_true(flash_geom_bytes(&c->an_flash.geom) < (2ull << 40) * 1001 / 1000);
    assert_int_equal(c->host.link_Bps, 63015384615ull);
    assert_int_equal(c->storage, MACHINE_STORAGE_BEHEMOTH);
    /* Training refuses it, saying which key and what is meant to run it. */
    assert_int_equal(machine_cfg_supported(c, &e), -EINVAL);
    assert_msg_has(e.msg, "machine.cores_per_node = 16");
    assert_msg_has(e.msg, "performance mode");
    struct machine_cfg one = *c;
    one.cores_per_an = 1;
    assert_int_equal(machine_cfg_supported(&one, &e), -EINVAL);
    assert_msg_has(e.msg, "core.rows x core.cols = 128 x 256");
    assert_msg_has(e.msg, "performance mode");
    one.core.rows = one.core.cols = 8;
    one.storage = MACHINE_STORAGE_IDEAL;
    assert_int_equal(machine_cfg_supported(&one, &e), -EINVAL);
    assert_msg_has(e.msg, "storage.backend = ideal");
    round_trip(t, c);
    machine_ini_destroy(m);
}

/* ---- outputs ---- */

static void test_stats_object_and_markdown(void **state)
{
    struct tmpdir *t = *state;
    struct machine_cfg c;
    struct stats *s;
    struct err e = {""};
    cJSON *doc, *cfg;
    char *text, *md = NULL;
    size_t md_len = 0;
    FILE *f;

    machine_cfg_default(&c);
    assert_int_equal(stats_create(&s, &e), 0);
    assert_int_equal(machine_ini_stats(&c, s, &e), 0);
    assert_int_equal(stats_write_json(s, tmpdir_path(t, "stats.json"), &e), 0);
    stats_destroy(s);
    text = tmpdir_slurp(tmpdir_path(t, "stats.json"));
    doc = cJSON_Parse(text);
    assert_non_null(doc);
    cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
    assert_non_null(cfg);
    cJSON *core = cJSON_GetObjectItemCaseSensitive(cfg, "core");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(core, "rows")->valueint, 8);
    assert_true(cJSON_GetObjectItemCaseSensitive(core, "period_ns")->valuedouble == 1.25);
    assert_true(cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(cfg, "tensor_buffer"), "size_bytes")
                    ->valuedouble == 17179869184.0);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cfg, "machine"), "keep_output_resident")));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(cfg, "storage"), "backend")
                            ->valuestring,
                        "behemoth");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(cfg, "wn_flash"));
    assert_null(cJSON_GetObjectItemCaseSensitive(cfg, "flash"));
    cJSON_Delete(doc);
    free(text);

    f = open_memstream(&md, &md_len);
    assert_non_null(f);
    machine_ini_markdown(f);
    assert_int_equal(fclose(f), 0);
    assert_non_null(strstr(md, "### [machine]"));
    assert_non_null(strstr(md, "### [storage]"));
    assert_non_null(strstr(md, "| `rows` | 8 | 1..4096 | systolic array rows | "
                               "`machine_cfg.core.rows` |"));
    assert_non_null(strstr(md, "| `period_ns` | 1.25 ns | 0.001..1000 ns |"));
    assert_non_null(strstr(md, "| `size_bytes` | 16GiB |"));
    assert_non_null(strstr(md, "`machine_cfg.{an,wn}_flash.tim.t_prog_ps`"));
    free(md);
}

/* [faults]: the --fault grammar, a key per kind, onto every node's flash and SSD NAND; die and
 * channel take several; --set faults.KIND adds or overrides; a dump reads back to the same
 * faults; every refusal names the file and line (or the assignment), the key and what is
 * accepted, and changes nothing. */
static void test_faults_section(void **state)
{
    struct tmpdir *t = *state;
    struct machine_ini *m = new_ini(), *back = new_ini();
    struct err e = {""};
    const struct flash_fault_cfg *c, *d;
    const char *path = put_file(t, "faults.ini",
                                "[faults]\n"
                                "age = pe=2000000,days=2.5 pe=300,days=0,node=wn\n"
                                "program = rate=0.001 ; a comment\n"
                                "wear = pe=1e6,bad=0.05\n"
                                "die = ch=3,die=1,at=5ms ch=7,die=0,at=1.5us\n"
                                "seed = n=42\n"
                                "[core]\nrows = 8\n");
    FILE *f;

    if (machine_ini_load(m, path, &e))
        fail_msg("%s", e.msg);
    c = &machine_ini_cfg(m)->an_flash.fault;
    assert_true(c->on);
    assert_int_equal(c->age_pe, 2000000);
    assert_true(c->age_s == 2.5 * 86400.0);
    assert_true(c->program_rate == 0.001);
    assert_true(c->age_of[1] && !c->age_of[0]);
    assert_int_equal(c->age_pe_of[1], 300);
    assert_true(c->wear && c->wear_pe == 1e6 && c->wear_bad == 0.05 && c->wear_shape == 4.0);
    assert_int_equal(c->n_dead, 2);
    assert_int_equal(c->dead[0].ch, 3);
    assert_int_equal(c->dead[0].die, 1);
    assert_int_equal(c->dead[0].at_ps, 5000000000ull);
    assert_int_equal(c->dead[1].at_ps, 1500000ull);
    assert_int_equal(c->seed, 42);
    assert_memory_equal(c, &machine_ini_cfg(m)->wn_flash.fault, sizeof(*c));
    assert_memory_equal(c, &machine_ini_cfg(m)->an_ssd.nand.fault, sizeof(*c));
    assert_memory_equal(c, &machine_ini_cfg(m)->wn_ssd.nand.fault, sizeof(*c));
    /* --set after the file: a kind of one value overrides, die adds */
    if (machine_ini_set(m, "faults.program=rate=0.01", NULL, &e) ||
        machine_ini_set(m, "faults.die = ch=0,die=0,at=1s", NULL, &e) ||
        machine_ini_set(m, "faults.power=at=12.345678ms", NULL, &e))
        fail_msg("%s", e.msg);
    assert_true(c->program_rate == 0.01);
    assert_int_equal(c->n_dead, 3);
    assert_int_equal(c->power_ps, 12345678000ull);
    /* the dump reads back to the same faults */
    f = fopen(tmpdir_path(t, "dump.ini"), "w");
    assert_non_null(f);
    machine_ini_write(f, machine_ini_cfg(m), "a dump");
    assert_int_equal(fclose(f), 0);
    if (machine_ini_load(back, tmpdir_path(t, "dump.ini"), &e))
        fail_msg("%s", e.msg);
    d = &machine_ini_cfg(back)->an_flash.fault;
    assert_memory_equal(c, d, sizeof(*c));
    machine_ini_destroy(back);
    machine_ini_destroy(m);

    /* refusals: the file and line, the key, what is accepted */
    load_refused(t, "[faults]\nbitrot = x=2\n", -EINVAL, 2, "unknown key 'bitrot' in [faults]",
                 "accepted: rber, age, program, wear, die, channel, power, seed");
    load_refused(t, "[faults]\nprogram = rate=2\n", -EINVAL, 2, "faults.program",
                 "rate=2; accepted a number in 0..1");
    load_refused(t, "[faults]\nage = pe=5\n", -EINVAL, 2, "faults.age", "no days=");
    load_refused(t, "[faults]\nprogram = rate=0.1 rate=0.2\n", -EINVAL, 2,
                 "faults.program = rate=0.1 rate=0.2: one value",
                 "only die, channel and age take several");
    load_refused(t, "[faults]\nwear = shape=0\n", -EINVAL, 2, "faults.wear",
                 "shape=0; accepted a number in 1..100");
    load_refused(t, "[faults]\npower =\n", -EINVAL, 2, "faults.power: no value", "accepted at=T");
    load_refused(t, "[faults]\ndie = ch=1,at=1ms\n", -EINVAL, 2, "faults.die", "no die=");
    load_refused(t, "[faults]\nseed = n=1\nseed = n=2\n", -EINVAL, 3,
                 "faults.seed is given twice in this file (line 2", NULL);
    load_refused(t, "[fault]\nseed = n=1\n", -EINVAL, 2, "unknown section [fault]",
                 "storage, faults");
    m = new_ini();
    assert_int_equal(machine_ini_set(m, "faults.channel=ch=x,at=1s", NULL, &e), -EINVAL);
    assert_msg_has(e.msg, "--set faults.channel=ch=x,at=1s: faults.channel");
    assert_msg_has(e.msg, "ch=x; accepted a number");
    assert_false(machine_ini_cfg(m)->an_flash.fault.on);
    machine_ini_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_and_defaults),
        cmocka_unit_test_setup_teardown(test_file_errors_name_file_line_key_range, setup,
                                        tmpdir_teardown),
        cmocka_unit_test(test_set_errors_name_the_assignment),
        cmocka_unit_test(test_rules_across_keys),
        cmocka_unit_test(test_acc_stages),
        cmocka_unit_test_setup_teardown(test_order_given_and_sets, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_longest_values_read_back, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_dump_reads_back, setup, tmpdir_teardown),
        cmocka_unit_test(test_assignments_and_diff),
        cmocka_unit_test_setup_teardown(test_faults_section, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_fc_mnist_is_the_default, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_behemoth_paper, setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_stats_object_and_markdown, setup, tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
