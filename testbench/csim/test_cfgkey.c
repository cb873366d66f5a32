/*
 * test_cfgkey: typed configuration keys (csim/cfgkey.h) on a table with a row of every type:
 * integers (decimal, hex, bounds, signs, overflow, a power of two, a multiple), sizes with
 * binary suffixes, decimals scaled to a finer unit (exponents, a finer digit refused, exact beyond
 * a double's 53 bits), switches, names. Every refusal names the key, the text and what is accepted,
 * and leaves the field as it was; every value in range formats to text that parses back to it; the
 * range text of each type.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "csim/cfgkey.h"

struct cfg {
    uint32_t count;
    uint64_t bytes;
    uint32_t page;
    uint32_t width;
    uint64_t period_ps;
    uint64_t rate_Bps;
    uint64_t span_ns;
    bool fast;
    int mode;
};

static const char *const mode_names[] = {"alpha", "beta", "gamma-ray"};

#define F(member) CFGKEY_FIELD(struct cfg, member)

static const struct cfgkey keys[] = {
    {"count", F(count), CFGKEY_INT(1, 1000), .unit = "", .help = "how many"},
    {"bytes", F(bytes), CFGKEY_SIZE(4096, 1ull << 40), .mult = 4096, .unit = "bytes",
     .help = "a capacity"},
    {"page", F(page), CFGKEY_INT(64, 65536), .pow2 = true, .unit = "B", .help = "a page"},
    {"width", F(width), CFGKEY_INT(8, 64), .mult = 8, .unit = "bit", .help = "a bus"},
    {"period_ns", F(period_ps), CFGKEY_DEC(3, 1, 1000000), .unit = "ns", .help = "a clock"},
    {"rate_mb_per_s", F(rate_Bps), CFGKEY_DEC(6, 1, 1000000000000000ull), .unit = "MB/s",
     .help = "a rate"},
    {"span_s", F(span_ns), CFGKEY_DEC(9, 0, UINT64_MAX), .unit = "s", .help = "a long time"},
    {"fast", F(fast), CFGKEY_BOOL, .unit = "", .help = "a switch"},
    {"mode", F(mode), CFGKEY_ENUM(mode_names), .unit = "", .help = "a name"},
    {0},
};

static const struct cfgkey *key(const char *name)
{
    const struct cfgkey *k = cfgkey_find(keys, name);

    assert_non_null(k);
    return k;
}

/* Parse text into a fresh cfg; the stored value. */
static uint64_t parsed(const char *name, const char *text)
{
    struct cfg c = {0};
    struct err e = {""};

    if (cfgkey_parse(key(name), name, text, &c, &e))
        fail_msg("%s = '%s': %s", name, text, e.msg);
    return cfgkey_get(key(name), &c);
}

/* Parse must fail with rc, a message holding each needle, and the field unchanged. */
static void refused(const char *name, const char *text, int rc, const char *needle1,
                    const char *needle2)
{
    struct cfg c, before;
    struct err e = {""};

    memset(&c, 0x5a, sizeof(c));
    c.fast = true;
    c.mode = 1;
    before = c;
    assert_int_equal(cfgkey_parse(key(name), name, text, &c, &e), rc);
    assert_msg_has(e.msg, name);
    assert_msg_has(e.msg, needle1);
    if (needle2)
        assert_msg_has(e.msg, needle2);
    assert_memory_equal(&c, &before, sizeof(c));
}

static void test_table_rows_ok(void **state)
{
    (void)state;
    assert_int_equal(cfgkey_count(keys), 9);
    for (const struct cfgkey *k = keys; k->name; k++)
        assert_true(cfgkey_row_ok(k));
    assert_null(cfgkey_find(keys, "counts"));
    /* A row whose range does not fit its field is caught. */
    struct cfgkey bad = keys[0];
    bad.hi = 1ull << 32;
    assert_false(cfgkey_row_ok(&bad));
    bad = keys[0];
    bad.size = 2;
    assert_false(cfgkey_row_ok(&bad));
}

static void test_integers(void **state)
{
    (void)state;
    assert_int_equal(parsed("count", "1"), 1);
    assert_int_equal(parsed("count", "1000"), 1000);
    assert_int_equal(parsed("count", "0x10"), 16);
    refused("count", "0", -ERANGE, "'0' is out of range", "accepted 1..1000");
    refused("count", "1001", -ERANGE, "'1001' is out of range", "accepted 1..1000");
    refused("count", "99999999999999999999999", -ERANGE, "out of range", "1..1000");
    refused("count", "-1", -EINVAL, "is not an unsigned integer", "accepted 1..1000");
    refused("count", "+1", -EINVAL, "is not an unsigned integer", NULL);
    refused("count", " 1", -EINVAL, "is not an unsigned integer", NULL);
    refused("count", "12abc", -EINVAL, "is not an unsigned integer", NULL);
    refused("count", "", -EINVAL, "is not an unsigned integer", NULL);
    assert_int_equal(parsed("page", "4096"), 4096);
    refused("page", "3000", -ERANGE, "is not a power of two", "a power of two in 64..65536 B");
    assert_int_equal(parsed("width", "16"), 16);
    refused("width", "12", -ERANGE, "is not a multiple of 8", "a multiple of 8 in 8..64 bit");
}

static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(parsed("bytes", "4096"), 4096);
    assert_int_equal(parsed("bytes", "64k"), 65536);
    assert_int_equal(parsed("bytes", "64KiB"), 65536);
    assert_int_equal(parsed("bytes", "16GiB"), 16ull << 30);
    assert_int_equal(parsed("bytes", "16 g"), 16ull << 30);
    assert_int_equal(parsed("bytes", "1TB"), 1ull << 40);
    refused("bytes", "2t", -ERANGE, "out of range", "4KiB..1TiB");
    refused("bytes", "20000000t", -ERANGE, "out of range", NULL);
    refused("bytes", "6000", -ERANGE, "is not a multiple of 4096", NULL);
    refused("bytes", "16 GiBs", -EINVAL, "is not a size in bytes", "4KiB..1TiB");
    refused("bytes", "0x1000", -EINVAL, "is not a size in bytes", NULL);
}

static void test_decimals(void **state)
{
    (void)state;
    assert_int_equal(parsed("period_ns", "1.25"), 1250);
    assert_int_equal(parsed("period_ns", "0.1"), 100); /* exactly: no binary fraction */
    assert_int_equal(parsed("period_ns", "1e3"), 1000000);
    /* finer than the stored unit (1 ps): refused, not rounded */
    refused("period_ns", "0.0005", -EINVAL, "is finer than the key holds (whole steps of 0.001 ns",
            "give at most 3 decimals; accepted 0.001..1000 ns");
    refused("period_ns", "1.0005", -EINVAL, "is finer than the key holds", NULL);
    assert_int_equal(parsed("period_ns", "1.0050000"), 1005); /* zeros below it are exact */
    assert_int_equal(parsed("rate_mb_per_s", "63015.384615"), 63015384615ull);
    assert_int_equal(parsed("rate_mb_per_s", "12500"), 12500000000ull);
    refused("period_ns", "0", -ERANGE, "'0' is out of range", "accepted 0.001..1000 ns");
    refused("period_ns", "fast", -EINVAL, "is not a decimal number", "0.001..1000 ns");
    refused("period_ns", "-1", -EINVAL, "is not a decimal number", NULL);
    refused("period_ns", "nan", -EINVAL, "is not a decimal number", NULL);
    refused("period_ns", "1e400", -ERANGE, "out of range", NULL);
    refused("period_ns", "1.5ns", -EINVAL, "is not a decimal number", NULL);
    refused("period_ns", "0x10", -EINVAL, "is not a decimal number", NULL);
    refused("period_ns", "1e", -EINVAL, "is not a decimal number", NULL);
    refused("period_ns", ".", -EINVAL, "is not a decimal number", NULL);
    assert_int_equal(parsed("period_ns", "1."), 1000);
    assert_int_equal(parsed("period_ns", ".5e+1"), 5000);
    assert_int_equal(parsed("period_ns", "25e-3"), 25);
    refused("period_ns", "0.0015", -EINVAL, "is finer than the key holds", NULL);
    /* Exact in integers where a double is not (above 2^53 stored units). */
    assert_int_equal(parsed("span_s", "8446071.857"), 8446071857000000ull);
    assert_int_equal(parsed("span_s", "18446744073.709551615"), UINT64_MAX);
    refused("span_s", "0.0000000005", -EINVAL, "finer than the key holds", NULL);
    refused("span_s", "1e-400", -EINVAL, "finer than the key holds", NULL);
    assert_int_equal(parsed("span_s", "0e-400"), 0);
    refused("span_s", "18446744073.709551616", -ERANGE, "out of range", NULL);
    refused("span_s", "18446744073.7095516155", -EINVAL, "finer than the key holds", NULL);
    refused("span_s", "1e99999999999999999999", -ERANGE, "out of range", NULL);
}

static void test_switches_and_names(void **state)
{
    (void)state;
    assert_int_equal(parsed("fast", "on"), 1);
    assert_int_equal(parsed("fast", "YES"), 1);
    assert_int_equal(parsed("fast", "0"), 0);
    assert_int_equal(parsed("fast", "false"), 0);
    refused("fast", "maybe", -EINVAL, "is not a switch value", "on/off, true/false, yes/no, 1/0");
    assert_int_equal(parsed("mode", "alpha"), 0);
    assert_int_equal(parsed("mode", "gamma-ray"), 2);
    refused("mode", "Alpha", -EINVAL, "'Alpha'", "accepted alpha, beta or gamma-ray");
}

/* Every stored value tried formats to text that parses back to it. */
static void test_format_round_trip(void **state)
{
    static const struct {
        const char *name;
        uint64_t v;
        const char *text;
    } cases[] = {
        {"count", 7, "7"},
        {"bytes", 16ull << 30, "16GiB"},
        {"bytes", 3 * 4096, "12KiB"},
        {"bytes", 1ull << 40, "1TiB"},
        {"page", 4096, "4096"},
        {"period_ns", 1250, "1.25"},
        {"period_ns", 1, "0.001"},
        {"period_ns", 1000000, "1000"},
        {"rate_mb_per_s", 63015384615ull, "63015.384615"},
        {"rate_mb_per_s", 1, "0.000001"},
        {"fast", 1, "on"},
        {"fast", 0, "off"},
        {"mode", 2, "gamma-ray"},
    };
    char buf[CFGKEY_TEXT_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct cfgkey *k = key(cases[i].name);
        struct cfg c = {0};
        struct err e = {""};

        assert_int_equal(cfgkey_parse(k, k->name, cases[i].text, &c, &e), 0);
        assert_int_equal(cfgkey_get(k, &c), cases[i].v);
        cfgkey_format(k, &c, buf, sizeof(buf));
        assert_string_equal(buf, cases[i].text);
        assert_int_equal(cfgkey_check(k, k->name, &c, &e), 0);
    }
}

static void test_show_json_and_check(void **state)
{
    struct cfg c = {.count = 0, .bytes = 16ull << 30, .period_ps = 0, .fast = true, .mode = 1};
    struct err e = {""};
    char buf[CFGKEY_TEXT_MAX];
    bool is_string;

    (void)state;
    cfgkey_show(key("period_ns"), &c, buf, sizeof(buf));
    assert_string_equal(buf, "0.000 ns");
    cfgkey_format_json(key("bytes"), &c, buf, sizeof(buf), &is_string);
    assert_string_equal(buf, "17179869184");
    assert_false(is_string);
    cfgkey_format_json(key("fast"), &c, buf, sizeof(buf), &is_string);
    assert_string_equal(buf, "true");
    cfgkey_format_json(key("mode"), &c, buf, sizeof(buf), &is_string);
    assert_string_equal(buf, "beta");
    assert_true(is_string);
    /* A stored value out of range: named with its value, the range and the help. */
    assert_int_equal(cfgkey_check(key("count"), "x.count", &c, &e), -EINVAL);
    assert_msg_has(e.msg, "x.count = 0 is out of range; accepted 1..1000 (how many)");
    assert_int_equal(cfgkey_check(key("period_ns"), "period_ns", &c, &e), -EINVAL);
    assert_msg_has(e.msg, "period_ns = 0.000 ns is out of range");
    c.page = 100;
    assert_int_equal(cfgkey_check(key("page"), "page", &c, &e), -EINVAL);
    assert_msg_has(e.msg, "page = 100 is not a power of two");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rows_ok),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_decimals),
        cmocka_unit_test(test_switches_and_names),
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_show_json_and_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
