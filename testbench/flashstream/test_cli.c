/*
 * test_cli: the option tables of the flashstream commands (testbench/flashstream/cli), on a
 * table with a row of every kind: integers in a range (in, at the bounds, out, not a number),
 * sizes with binary suffixes, floats, enumerations (exact and in any case, the message lists
 * the names), lists, checked strings, repeated strings, flags and set values, calls that end
 * the command, the given bits, the last of a repeated option winning, abbreviations, unknown
 * options, missing values, stray arguments, and the --help text (every option under its
 * heading, aliases left out, long placeholders on a line of their own). Every refusal names the
 * option, the value and what is accepted.
 */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testbench/flashstream/cli.h"

enum { GIVEN_COUNT = 1 << 0, GIVEN_RATE = 1 << 1, GIVEN_MODE = 1 << 2 };
enum { ONLY_NONE, ONLY_LIST };

struct opts {
    uint64_t count, bytes;
    float rate;
    int mode, node;
    uint64_t widths[4];
    int n_widths;
    const char *name, *file, *desc;
    const char *sets[3];
    int n_sets;
    bool verbose;
    int only;
    int calls;
    const char *last_call;
};

static const char *const mode_names[] = {"fast", "slow", "exact"};
static const char *const node_names[] = {"an", "wn"};

static bool short_name(const char *s)
{
    return *s && strlen(s) <= 4;
}

static int note_call(void *o, const char *val)
{
    ((struct opts *)o)->calls++;
    ((struct opts *)o)->last_call = val;
    return 0;
}

static int list_and_stop(void *o, const char *val)
{
    (void)o;
    (void)val;
    return CLI_DONE;
}

static int refuse_call(void *o, const char *val)
{
    (void)o;
    (void)val;
    return -1;
}

#define FIELD(member) CLI_FIELD(struct opts, member)

static const struct cli_opt rows[] = {
    {CLI_OPT("count", "N", "numbers", "how many (default 3)"), CLI_U64(FIELD(count), 1, 10),
     .given = GIVEN_COUNT},
    {CLI_OPT("bytes", "SIZE", "numbers", "a size\nwith a second line"),
     CLI_SIZE(FIELD(bytes), 4096, 1ull << 30)},
    {CLI_OPT("rate", "X", "numbers", "a rate"), CLI_F32(FIELD(rate), 0.0f, 1.0f),
     .given = GIVEN_RATE},
    {CLI_OPT("widths", "W1,W2", "numbers", "widths"),
     CLI_U64_LIST(FIELD(widths), offsetof(struct opts, n_widths), 4, 1, 100)},
    {CLI_OPT("mode", "fast|slow|exact", "choices", "a mode whose placeholder is long"),
     CLI_ENUM(FIELD(mode), mode_names), .given = GIVEN_MODE},
    {CLI_OPT("node", "an|wn", "choices", "a node, in any case"),
     CLI_ENUM_NOCASE(FIELD(node), node_names)},
    {CLI_OPT("name", "NAME", "strings", "a short name"),
     CLI_STR_OK(FIELD(name), short_name, "1..4 characters")},
    {CLI_OPT("file", "FILE", "strings", "any file"), CLI_STR(FIELD(file))},
    {CLI_OPT("desc", "FILE", "strings", "given once"), CLI_STR(FIELD(desc)), .once = true},
    {CLI_OPT("no-file", NULL, "strings", "no file"), CLI_SET_STR(FIELD(file), NULL)},
    {CLI_OPT("set", "K=V", "strings", "repeatable"),
     CLI_STR_LIST(FIELD(sets), offsetof(struct opts, n_sets), 3)},
    {CLI_OPT("verbose", NULL, "switches", "say more"), CLI_FLAG(FIELD(verbose))},
    {CLI_OPT("list_only", NULL, "switches", "list and stop"), CLI_SET_INT(FIELD(only), ONLY_LIST)},
    {CLI_ALIAS("list-only", NULL), CLI_SET_INT(FIELD(only), ONLY_LIST)},
    {CLI_OPT("call", "V", "calls", "called with each value"), CLI_CALL(note_call)},
    {CLI_OPT("keys", NULL, "calls", "print and stop"), CLI_CALL(list_and_stop)},
    {CLI_OPT("refuse", "V", "calls", "always refused"), CLI_CALL(refuse_call)},
    {0},
};

#undef FIELD

static const struct cli_cmd cmd = {.name = "demo", .about = "A demonstration.\n", .opts = rows};

static const struct opts defaults = {.count = 3, .bytes = 65536, .rate = 0.5f, .file = "f"};

/* Run cli_parse on the words of line (split at spaces; '' for an empty value); the rc, and in
 * err what went to stderr (caller frees). String options point into the words, which last
 * until the next call, as argv lasts as long as the program. */
static int parse_line(const char *line, struct opts *o, unsigned *given, char **err)
{
    static char buf[512];
    char *argv[32], *w, *save = NULL;
    int argc = 0, rc, saved = dup(STDERR_FILENO);
    FILE *tmp = tmpfile();
    size_t n;

    assert_true(saved >= 0 && tmp);
    snprintf(buf, sizeof(buf), "%s", line);
    argv[argc++] = "demo";
    for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        argv[argc++] = strcmp(w, "''") ? w : "";
    argv[argc] = NULL;
    *o = defaults;

    fflush(stderr);
    dup2(fileno(tmp), STDERR_FILENO);
    rc = cli_parse(&cmd, argc, argv, o, given);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);

    n = (size_t)ftell(tmp);
    *err = calloc(1, n + 1);
    assert_non_null(*err);
    rewind(tmp);
    assert_int_equal(fread(*err, 1, n, tmp), n);
    fclose(tmp);
    return rc;
}

/* line is refused with a message holding every needle (NULL-terminated). */
static void refused(const char *line, ...)
{
    struct opts o;
    char *err;
    va_list ap;

    assert_int_equal(parse_line(line, &o, NULL, &err), -1);
    if (strncmp(err, "flashstream demo: ", 18))
        fail_msg("'%s': message \"%s\" does not start with the command", line, err);
    va_start(ap, line);
    for (const char *needle; (needle = va_arg(ap, const char *));)
        if (!strstr(err, needle))
            fail_msg("'%s': message \"%s\" lacks \"%s\"", line, err, needle);
    va_end(ap);
    free(err);
}

/* line is accepted silently; o holds the result. */
static void accepted(const char *line, struct opts *o, unsigned *given)
{
    char *err;

    if (parse_line(line, o, given, &err) != 0 || *err)
        fail_msg("'%s' refused: %s", line, err);
    free(err);
}

static void test_defaults_stay(void **state)
{
    struct opts o;
    unsigned given = 99;

    (void)state;
    accepted("", &o, &given);
    assert_memory_equal(&o, &defaults, sizeof(o));
    assert_int_equal(given, 0);
}

static void test_integer_range(void **state)
{
    struct opts o;

    (void)state;
    accepted("--count 1", &o, NULL);
    assert_int_equal(o.count, 1);
    accepted("--count 10", &o, NULL);
    assert_int_equal(o.count, 10);
    accepted("--count=7", &o, NULL);
    assert_int_equal(o.count, 7);
    /* decimal only: a leading zero is not octal, hex and signs are refused */
    accepted("--count 010", &o, NULL);
    assert_int_equal(o.count, 10);
    refused("--count 0xa", "--count '0xa'", "give an integer from 1 to 10", NULL);
    refused("--count +5", "--count '+5'", "give an integer from 1 to 10", NULL);
    refused("--count 0", "--count '0' is not accepted", "give an integer from 1 to 10", NULL);
    refused("--count 11", "--count '11'", "from 1 to 10", NULL);
    refused("--count -1", "--count '-1'", "from 1 to 10", NULL);
    refused("--count x", "--count 'x'", "from 1 to 10", NULL);
    refused("--count 5x", "--count '5x'", NULL);
    refused("--count ''", "--count ''", NULL);
    refused("--count 99999999999999999999999", "--count '99999999999999999999999'", NULL);
}

static void test_sizes(void **state)
{
    struct opts o;

    (void)state;
    accepted("--bytes 64k", &o, NULL);
    assert_int_equal(o.bytes, 65536);
    accepted("--bytes 4KiB", &o, NULL);
    assert_int_equal(o.bytes, 4096);
    accepted("--bytes 1g", &o, NULL);
    assert_int_equal(o.bytes, 1ull << 30);
    accepted("--bytes 8192", &o, NULL);
    assert_int_equal(o.bytes, 8192);
    refused("--bytes 4095", "--bytes '4095'", "from 4096 to 1073741824 bytes", "suffix k, m, g",
            NULL);
    refused("--bytes 2g", "--bytes '2g'", NULL);
    refused("--bytes 1x", "--bytes '1x'", NULL);
    refused("--bytes -4k", "--bytes '-4k'", NULL);
}

static void test_floats(void **state)
{
    struct opts o;

    (void)state;
    accepted("--rate 0.25", &o, NULL);
    assert_true(o.rate == 0.25f);
    accepted("--rate 1", &o, NULL);
    assert_true(o.rate == 1.0f);
    accepted("--rate .5", &o, NULL);
    assert_true(o.rate == 0.5f);
    accepted("--rate 5e-1", &o, NULL);
    assert_true(o.rate == 0.5f);
    refused("--rate 1.5", "--rate '1.5'", "give a decimal number from 0 to 1", NULL);
    refused("--rate nan", "--rate 'nan'", NULL);
    refused("--rate 0.5s", "--rate '0.5s'", NULL);
    /* Decimal as people write it: no leading space, no '+', no hexadecimal float. */
    refused("--rate \t.5", "--rate '\t.5'", "give a decimal number", NULL);
    refused("--rate +0.5", "--rate '+0.5'", NULL);
    refused("--rate 0x1p-1", "--rate '0x1p-1'", NULL);
    refused("--rate -0", "--rate '-0'", NULL);
}

static void test_lists(void **state)
{
    struct opts o;

    (void)state;
    accepted("--widths 100,1,7", &o, NULL);
    assert_int_equal(o.n_widths, 3);
    assert_int_equal(o.widths[0], 100);
    assert_int_equal(o.widths[2], 7);
    refused("--widths 5,0", "--widths '5,0'", "item 2 '0' is not an integer from 1 to 100", NULL);
    refused("--widths 5,", "--widths '5,'", "item 2 is empty", NULL);
    refused("--widths 1,2,3,4,5", "--widths '1,2,3,4,5'", "at most 4", NULL);
    refused("--widths +5", "item 1 '+5'", NULL);
}

static void test_enum_lists(void **state)
{
    struct opts o;
    unsigned given;

    (void)state;
    accepted("--mode exact", &o, &given);
    assert_int_equal(o.mode, 2);
    assert_int_equal(given, GIVEN_MODE);
    refused("--mode Exact", "--mode 'Exact' is not accepted", "give one of fast, slow, exact",
            NULL);
    refused("--mode ''", "--mode ''", "give one of fast, slow, exact", NULL);
    accepted("--node WN", &o, NULL);
    assert_int_equal(o.node, 1);
    accepted("--node an", &o, NULL);
    assert_int_equal(o.node, 0);
    refused("--node xx", "--node 'xx'", "give one of an, wn", NULL);
}

static void test_strings_flags_and_set_values(void **state)
{
    struct opts o;

    (void)state;
    accepted("--name abc --verbose --list_only", &o, NULL);
    assert_string_equal(o.name, "abc");
    assert_true(o.verbose);
    assert_int_equal(o.only, ONLY_LIST);
    accepted("--list-only", &o, NULL);
    assert_int_equal(o.only, ONLY_LIST);
    refused("--name abcde", "--name 'abcde'", "give 1..4 characters", NULL);
    refused("--name ''", "--name ''", "give 1..4 characters", NULL);
    accepted("--file ''", &o, NULL); /* no ok: every string, the empty one too */
    assert_string_equal(o.file, "");
    accepted("--no-file", &o, NULL);
    assert_null(o.file);
    refused("--verbose=1", "--verbose takes no value", "'--verbose=1'", NULL);
    /* a row marked once: a second would replace the first without a word */
    accepted("--desc a.ini", &o, NULL);
    assert_string_equal(o.desc, "a.ini");
    refused("--desc a.ini --desc b.ini", "--desc 'b.ini'", "--desc is given already ('a.ini')",
            NULL);
}

static void test_string_lists(void **state)
{
    struct opts o;

    (void)state;
    accepted("--set a=1 --count 2 --set b=2", &o, NULL);
    assert_int_equal(o.n_sets, 2);
    assert_string_equal(o.sets[0], "a=1");
    assert_string_equal(o.sets[1], "b=2");
    accepted("--set a --set a --set ''", &o, NULL);
    assert_int_equal(o.n_sets, 3);
    refused("--set a --set b --set c --set d", "--set 'd'", "give it at most 3 times", NULL);
}

static void test_calls(void **state)
{
    struct opts o;
    char *err;

    (void)state;
    accepted("--call a --call b", &o, NULL);
    assert_int_equal(o.calls, 2);
    assert_string_equal(o.last_call, "b");
    /* a call that ends the command: the options after it are not looked at */
    assert_int_equal(parse_line("--keys --count 0", &o, NULL, &err), CLI_DONE);
    assert_string_equal(err, "");
    free(err);
    assert_int_equal(parse_line("--refuse x", &o, NULL, &err), -1);
    free(err);
}

static void test_last_wins_and_given_bits(void **state)
{
    struct opts o;
    unsigned given;

    (void)state;
    accepted("--count 2 --rate 0.1 --count 4", &o, &given);
    assert_int_equal(o.count, 4);
    assert_int_equal(given, GIVEN_COUNT | GIVEN_RATE);
    /* a refused option leaves the command, whatever follows */
    refused("--count 2 --count 0 --count 3", "--count '0'", NULL);
}

static void test_abbreviations(void **state)
{
    struct opts o;

    (void)state;
    accepted("--cou 6 --verb", &o, NULL);
    assert_int_equal(o.count, 6);
    assert_true(o.verbose);
    /* --n begins --name, --node and --no-file: refused as ambiguous, naming them */
    refused("--n x", "option '--n' is ambiguous: it could be --node, --name, --no-file",
            "(give more of the name)", NULL);
    refused("--n=x", "option '--n' is ambiguous", NULL);
}

static void test_unknown_option(void **state)
{
    (void)state;
    refused("--bogus", "unknown option '--bogus'", "'flashstream demo --help' lists them", NULL);
    refused("--bogus=3", "unknown option '--bogus=3'", NULL);
    refused("-x", "unknown option '-x'", NULL);
    refused("-xv", "unknown option '-x'", NULL);
    refused("--count", "--count needs a value (--count N)", NULL);
    refused("stray", "unexpected argument 'stray'", NULL);
    refused("--count 2 -- --count", "unexpected argument '--count'", NULL);
}

static char *help_text(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    cli_help(&cmd, f);
    fclose(f);
    return buf;
}

/* The heading --name is listed under in help ("" if none); NULL if it is not listed. */
static const char *listed_under(const char *help, const char *name, char *heading, size_t len)
{
    char want[64];
    const char *line = help;

    snprintf(want, sizeof(want), "  --%s", name);
    *heading = '\0';
    for (; *line; line += strcspn(line, "\n") + 1) {
        size_t n = strcspn(line, "\n");

        if (line[0] != ' ' && memchr(line, ':', n) == NULL && n && n < len)
            snprintf(heading, len, "%.*s", (int)n, line); /* a heading: no colon, no indent */
        if (!strncmp(line, want, strlen(want)) && strchr(" \n", line[strlen(want)]))
            return heading;
        if (!line[n])
            break;
    }
    return NULL;
}

static void test_help_lists_every_option(void **state)
{
    char *help = help_text(), heading[64];

    (void)state;
    assert_true(!strncmp(help, "usage: flashstream demo [options]\nA demonstration.\n\n", 51));
    for (const struct cli_opt *r = rows; r->name; r++) {
        const char *under = listed_under(help, r->name, heading, sizeof(heading));

        if (!r->help && under)
            fail_msg("alias --%s is in the help:\n%s", r->name, help);
        if (r->help && (!under || strcmp(under, r->group)))
            fail_msg("--%s is not under \"%s\":\n%s", r->name, r->group, help);
        if (r->help && !strchr(r->help, '\n') && !strstr(help, r->help))
            fail_msg("--%s: its help \"%s\" is not in:\n%s", r->name, r->help, help);
    }
    /* each heading once */
    const char *numbers = strstr(help, "\nnumbers\n");
    assert_non_null(numbers);
    assert_null(strstr(numbers + 1, "\nnumbers\n"));
    /* text at column 21, further lines under it, a long placeholder on a line of its own */
    assert_non_null(strstr(help, "\n  --count N          how many (default 3)\n"));
    assert_non_null(strstr(help, "\n  --bytes SIZE       a size\n"
                                 "                     with a second line\n"));
    assert_non_null(strstr(help, "\n  --mode fast|slow|exact\n                     a mode whose"));
    free(help);
}

static void test_help_option(void **state)
{
    struct opts o;
    char *err;
    FILE *out = tmpfile();
    int saved = dup(STDOUT_FILENO);

    (void)state;
    fflush(stdout);
    dup2(fileno(out), STDOUT_FILENO);
    int rc = parse_line("--count 2 --help --count 0", &o, NULL, &err);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    assert_int_equal(rc, CLI_DONE);
    assert_string_equal(err, "");
    assert_true(ftell(out) > 100);
    fclose(out);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_stay),
        cmocka_unit_test(test_integer_range),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_enum_lists),
        cmocka_unit_test(test_strings_flags_and_set_values),
        cmocka_unit_test(test_string_lists),
        cmocka_unit_test(test_calls),
        cmocka_unit_test(test_last_wins_and_given_bits),
        cmocka_unit_test(test_abbreviations),
        cmocka_unit_test(test_unknown_option),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_help_option),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
