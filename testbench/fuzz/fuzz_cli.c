/*
 * fuzz_cli: the command-line parser of the flashstream commands (testbench/flashstream/cli), on
 * a table with a row of every kind that parses a value: integers in narrow and full ranges,
 * sizes with suffixes, floats, enumerations (exact and in any case), lists of integers, checked
 * and repeated strings, flags. The input is the command line, its arguments separated by NUL
 * bytes. A command line is either refused with a message or parsed to fields that each hold
 * their default or a value their row accepts.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testbench/flashstream/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct opts {
    uint64_t nodes, seed, bytes, big;
    float lr, wide;
    int mode, fmt;
    uint64_t widths[4];
    int n_widths;
    const char *out;
    const char *sets[4];
    int n_sets;
    bool quiet;
};

static const char *const mode_names[] = {"tlm", "rtl", "perf"};
static const char *const fmt_names[] = {"csv", "json"};

#define FIELD(member) CLI_FIELD(struct opts, member)

static const struct cli_opt rows[] = {
    {CLI_OPT("nodes", "N", "numbers", "a small integer"), CLI_U64(FIELD(nodes), 1, 64)},
    {CLI_OPT("seed", "N", "numbers", "any integer"), CLI_U64(FIELD(seed), 0, UINT64_MAX)},
    {CLI_OPT("bytes", "SIZE", "numbers", "a size"), CLI_SIZE(FIELD(bytes), 4096, 1ull << 40)},
    {CLI_OPT("big", "SIZE", "numbers", "any size"), CLI_SIZE(FIELD(big), 0, UINT64_MAX)},
    {CLI_OPT("lr", "X", "numbers", "a rate"), CLI_F32(FIELD(lr), 0.0f, 1.0f)},
    {CLI_OPT("wide", "X", "numbers", "any finite float"), CLI_F32(FIELD(wide), -3e38f, 3e38f)},
    {CLI_OPT("mode", "M", "names", "a mode"), CLI_ENUM(FIELD(mode), mode_names)},
    {CLI_OPT("format", "F", "names", "a format"), CLI_ENUM_NOCASE(FIELD(fmt), fmt_names)},
    {CLI_OPT("widths", "LIST", "numbers", "a list"),
     CLI_U64_LIST(FIELD(widths), offsetof(struct opts, n_widths), 4, 1, 65536)},
    {CLI_OPT("out", "DIR", "files", "a path"), CLI_STR_OK(FIELD(out), cli_path_fits, "a path")},
    {CLI_OPT("set", "K=V", "files", "an assignment"),
     CLI_STR_LIST(FIELD(sets), offsetof(struct opts, n_sets), 4)},
    {CLI_OPT("quiet", NULL, "files", "a flag"), CLI_FLAG(FIELD(quiet))},
    {.name = NULL},
};

static const struct cli_cmd cmd = {"fuzz", NULL, rows};

#define MAX_ARGS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct opts o = {.nodes = 4, .bytes = 65536, .lr = 0.1f, .fmt = 1, .n_widths = 1};
    char *argv[MAX_ARGS + 2], *text;
    int argc = 0;

    text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    argv[argc++] = "fuzz";
    for (char *p = text; argc <= MAX_ARGS && p <= text + size; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    o.widths[0] = 256;
    if (cli_parse(&cmd, argc, argv, &o, NULL) == 0) {
        if (o.nodes < 1 || o.nodes > 64 || o.bytes < 4096 || o.bytes > 1ull << 40 ||
            !(o.lr >= 0.0f && o.lr <= 1.0f) || !isfinite(o.wide) || o.mode < 0 || o.mode > 2 ||
            o.fmt < 0 || o.fmt > 1 || o.n_widths < 1 || o.n_widths > 4 || o.n_sets < 0 ||
            o.n_sets > 4 || (o.out && !cli_path_fits(o.out)))
            abort();
        for (int i = 0; i < o.n_widths; i++)
            if (o.widths[i] < 1 || o.widths[i] > 65536)
                abort();
    }
    free(text);
    return 0;
}
