/*
 * fuzz_cfgkey: the value parser of the configuration keys (csim/cfgkey), on a table with a row
 * of every type and the narrowing of each (32- and 64-bit fields, full ranges, powers of two,
 * multiples, decimal scales). The first byte of the input chooses the row, the rest is the text.
 * A text is either refused with a message and the field unchanged, or parsed to a value the row
 * accepts, which cfgkey_format writes as a text that parses back to the same value.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/cfgkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fields {
    uint32_t u32, pow2, mult, size32, dec32;
    uint64_t u64, size64, dec64, dec9;
    bool on;
    int mode;
};

static const char *const modes[] = {"behemoth", "ssd-raid0", "ideal"};

#define F(member) CFGKEY_FIELD(struct fields, member)

static const struct cfgkey rows[] = {
    {"u32", F(u32), CFGKEY_INT(1, 1024), .unit = "", .help = "a small integer"},
    {"u32_full", F(u32), CFGKEY_INT(0, UINT32_MAX), .unit = "", .help = "any 32-bit integer"},
    {"u64", F(u64), CFGKEY_INT(0, UINT64_MAX), .unit = "", .help = "any 64-bit integer"},
    {"pow2", F(pow2), CFGKEY_INT(64, 65536), .pow2 = true, .unit = "", .help = "a power of two"},
    {"mult", F(mult), CFGKEY_INT(8, 1u << 30), .mult = 8, .unit = "", .help = "a multiple of 8"},
    {"size32", F(size32), CFGKEY_SIZE(1, UINT32_MAX), .unit = "bytes", .help = "a 32-bit size"},
    {"size64", F(size64), CFGKEY_SIZE(0, UINT64_MAX), .unit = "bytes", .help = "any size"},
    {"size_pow2", F(size64), CFGKEY_SIZE(4096, 1ull << 40), .pow2 = true, .unit = "bytes",
     .help = "a power-of-two size"},
    {"dec32", F(dec32), CFGKEY_DEC(3, 1, 4000000000u), .unit = "ns", .help = "a time"},
    {"dec64", F(dec64), CFGKEY_DEC(3, 0, UINT64_MAX), .unit = "ns", .help = "any time"},
    {"dec9", F(dec9), CFGKEY_DEC(9, 1, UINT64_MAX / 2), .unit = "s", .help = "a fine time"},
    {"dec0", F(dec64), CFGKEY_DEC(0, 0, 1000000), .unit = "MB/s", .help = "a whole rate"},
    {"on", F(on), CFGKEY_BOOL, .unit = "", .help = "a switch"},
    {"mode", F(mode), CFGKEY_ENUM(modes), .unit = "", .help = "a storage"},
    {.name = NULL},
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]) - 1)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fields f, before, again;
    char text[CFGKEY_TEXT_MAX * 4], back[CFGKEY_TEXT_MAX];
    struct err e;

    if (size < 1 || size > sizeof(text))
        return 0;
    const struct cfgkey *k = &rows[data[0] % N_ROWS];
    if (!cfgkey_row_ok(k))
        abort();
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    memset(&f, 0xa5, sizeof(f));
    before = f;
    err_clear(&e);
    if (cfgkey_parse(k, k->name, text, &f, &e)) {
        if (!e.msg[0] || memcmp(&f, &before, sizeof(f)))
            abort();
        return 0;
    }
    uint64_t v = cfgkey_get(k, &f);
    if (v < k->lo || v > k->hi || cfgkey_check(k, k->name, &f, &e))
        abort();
    cfgkey_format(k, &f, back, sizeof(back));
    memset(&again, 0, sizeof(again));
    if (cfgkey_parse(k, k->name, back, &again, &e) || cfgkey_get(k, &again) != v) {
        fprintf(stderr, "fuzz_cfgkey: %s '%s' -> %llu -> '%s' does not read back\n", k->name, text,
                (unsigned long long)v, back);
        abort();
    }
    return 0;
}
