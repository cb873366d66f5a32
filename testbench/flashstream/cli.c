#define _DEFAULT_SOURCE
#include "testbench/flashstream/cli.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

/* The column where the help text of an option starts. */
#define HELP_COL 21

/* getopt_long's value of row i; above every character, so never '?' or ':'. */
#define ROW_VAL(i) (256 + (i))

/* "flashstream CMD: OPT 'VAL' is not accepted: give ..." */
static int refuse(const struct cli_cmd *cmd, const char *opt, const char *val, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(const struct cli_cmd *cmd, const char *opt, const char *val, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "flashstream %s: %s '%s' is not accepted: ", cmd->name, opt, val);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

/* ------------------------------------------------------------------ values */

/* Decimal digits at the start of text into *v, *end after them: 0, or -1 when text does not
 * start with a digit (a sign, a space, nothing) or the number does not fit 64 bits. Decimal
 * only: "010" is ten, as a reader of a command line expects, and "-1" never wraps around. */
static int scan_decimal(const char *text, unsigned long long *v, char **end)
{
    if (!isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    *v = strtoull(text, end, 10);
    return errno ? -1 : 0;
}

static int parse_u64(const struct cli_cmd *cmd, const char *opt, const char *val,
                     const struct cli_opt *r, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (scan_decimal(val, &v, &end) || *end || v < r->lo || v > r->hi)
        return refuse(cmd, opt, val, "give an integer from %" PRIu64 " to %" PRIu64, r->lo, r->hi);
    *out = v;
    return 0;
}

/* "64k", "4KiB", "1g", "4096": bytes, binary multiples. */
static int parse_size(const struct cli_cmd *cmd, const char *opt, const char *val,
                      const struct cli_opt *r, uint64_t *out)
{
    static const struct {
        const char *suf;
        unsigned shift;
    } sufs[] = {{"", 0},    {"b", 0},    {"k", 10},  {"kib", 10}, {"kb", 10},
                {"m", 20},  {"mib", 20}, {"mb", 20}, {"g", 30},   {"gib", 30},
                {"gb", 30}, {"t", 40},   {"tib", 40}};
    char *end;
    unsigned long long v;
    bool number = scan_decimal(val, &v, &end) == 0;

    for (size_t i = 0; number && i < sizeof(sufs) / sizeof(sufs[0]); i++) {
        if (strcasecmp(end, sufs[i].suf))
            continue;
        if (v > (r->hi >> sufs[i].shift) || (v << sufs[i].shift) < r->lo)
            break;
        *out = v << sufs[i].shift;
        return 0;
    }
    return refuse(cmd, opt, val,
                  "give a size from %" PRIu64 " to %" PRIu64
                  " bytes, optionally with a suffix k, m, g or t (KiB, MiB, GiB, TiB)",
                  r->lo, r->hi);
}

static int parse_f32(const struct cli_cmd *cmd, const char *opt, const char *val,
                     const struct cli_opt *r, float *out)
{
    const char *p = val + (val[0] == '-' && r->flo < 0.0f); /* a sign only where allowed */
    char *end;
    errno = 0;
    float v = strtof(val, &end);

    /* Decimal only, as written by people: strtof would also take leading spaces, a '+',
     * hexadecimal ("0x1p-3") and "inf"/"nan"; those are refused, not read. */
    if (!(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) ||
        strpbrk(val, "xX") || errno || end == val || *end || !isfinite(v) || v < r->flo ||
        v > r->fhi)
        return refuse(cmd, opt, val, "give a decimal number from %g to %g", (double)r->flo,
                      (double)r->fhi);
    *out = v;
    return 0;
}

static int parse_enum(const struct cli_cmd *cmd, const char *opt, const char *val,
                      const struct cli_opt *r, int *out)
{
    char names[256] = "";
    size_t len = 0;

    for (int i = 0; i < r->n_names; i++) {
        if (!(r->nocase ? strcasecmp : strcmp)(val, r->names[i])) {
            *out = i;
            return 0;
        }
    }
    for (int i = 0; i < r->n_names && len < sizeof(names); i++)
        len +=
            (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "", r->names[i]);
    return refuse(cmd, opt, val, "give one of %s", names);
}

/* One item of a list, "256": 0 or -1 (message printed). */
static int list_item(const struct cli_cmd *cmd, const char *opt, const char *val,
                     const struct cli_opt *r, const char *p, size_t len, int k, uint64_t *out)
{
    char item[32], *end;

    if (len == 0 || len >= sizeof(item))
        return refuse(cmd, opt, val,
                      "give comma-separated integers from %" PRIu64 " to %" PRIu64
                      " (item %d is empty or too long)",
                      r->lo, r->hi, k + 1);
    memcpy(item, p, len);
    item[len] = '\0';
    unsigned long long v;
    if (scan_decimal(item, &v, &end) || *end || v < r->lo || v > r->hi)
        return refuse(cmd, opt, val, "item %d '%s' is not an integer from %" PRIu64 " to %" PRIu64,
                      k + 1, item, r->lo, r->hi);
    *out = v;
    return 0;
}

static int parse_list(const struct cli_cmd *cmd, const char *opt, const char *val,
                      const struct cli_opt *r, uint64_t *out, int *n)
{
    const char *p = val;
    int k = 0;

    for (;;) {
        size_t len = strcspn(p, ",");

        if (k == r->max_n)
            return refuse(cmd, opt, val, "give at most %d comma-separated integers", r->max_n);
        if (list_item(cmd, opt, val, r, p, len, k, &out[k]))
            return -1;
        k++;
        if (!p[len])
            break;
        p += len + 1;
    }
    *n = k;
    return 0;
}

/* ------------------------------------------------------------------ the table */

/* A row's field fits its kind: a wrong table is a bug of the program, caught on first use. */
static void check_row(const struct cli_opt *r)
{
    bool takes_value =
        r->kind != CLI_KIND_FLAG && r->kind != CLI_KIND_SET_INT && r->kind != CLI_KIND_SET_STR;

    assert(r->kind == CLI_KIND_CALL || !r->arg == !takes_value);
    switch (r->kind) {
    case CLI_KIND_U64:
    case CLI_KIND_SIZE:
        assert(r->size == sizeof(uint64_t) && r->lo <= r->hi);
        break;
    case CLI_KIND_F32:
        assert(r->size == sizeof(float) && r->flo <= r->fhi);
        break;
    case CLI_KIND_ENUM:
        assert(r->size == sizeof(int) && r->names && r->n_names > 0);
        break;
    case CLI_KIND_U64_LIST:
        assert(r->max_n > 0 && r->size >= (size_t)r->max_n * sizeof(uint64_t));
        break;
    case CLI_KIND_STR:
    case CLI_KIND_SET_STR:
        assert(r->size == sizeof(const char *) && (!r->ok || r->accepted));
        break;
    case CLI_KIND_STR_LIST:
        assert(r->max_n > 0 && r->size >= (size_t)r->max_n * sizeof(const char *));
        break;
    case CLI_KIND_FLAG:
        assert(r->size == sizeof(bool));
        break;
    case CLI_KIND_SET_INT:
        assert(r->size == sizeof(int));
        break;
    case CLI_KIND_CALL:
        assert(r->call);
        break;
    }
}

/* Store the value of row r (val NULL for a row without one) into opts. */
static int take(const struct cli_cmd *cmd, const struct cli_opt *r, const char *val, void *opts)
{
    char opt[64];
    void *field = (char *)opts + r->off;

    snprintf(opt, sizeof(opt), "--%s", r->name);
    switch (r->kind) {
    case CLI_KIND_U64:
        return parse_u64(cmd, opt, val, r, field);
    case CLI_KIND_SIZE:
        return parse_size(cmd, opt, val, r, field);
    case CLI_KIND_F32:
        return parse_f32(cmd, opt, val, r, field);
    case CLI_KIND_ENUM:
        return parse_enum(cmd, opt, val, r, field);
    case CLI_KIND_U64_LIST:
        return parse_list(cmd, opt, val, r, field, (int *)((char *)opts + r->count_off));
    case CLI_KIND_STR:
        if (r->ok && !r->ok(val))
            return refuse(cmd, opt, val, "give %s", r->accepted);
        if (r->once && *(const char **)field)
            return refuse(cmd, opt, val,
                          "%s is given already ('%s'), and a second would replace it: give it once",
                          opt, *(const char **)field);
        *(const char **)field = val;
        return 0;
    case CLI_KIND_STR_LIST: {
        int *n = (int *)((char *)opts + r->count_off);

        if (*n == r->max_n)
            return refuse(cmd, opt, val, "give it at most %d times", r->max_n);
        ((const char **)field)[(*n)++] = val;
        return 0;
    }
    case CLI_KIND_FLAG:
        *(bool *)field = true;
        return 0;
    case CLI_KIND_SET_INT:
        *(int *)field = r->ival;
        return 0;
    case CLI_KIND_SET_STR:
        *(const char **)field = r->sval;
        return 0;
    case CLI_KIND_CALL:
        return r->call(opts, val);
    }
    return -1;
}

/* getopt_long's table of cmd's rows, then --help; NULL when out of memory. */
static struct option *long_options(const struct cli_cmd *cmd, int *n)
{
    struct option *lo;
    int i;

    for (*n = 0; cmd->opts[*n].name; (*n)++)
        check_row(&cmd->opts[*n]);
    lo = calloc((size_t)*n + 2, sizeof(*lo));
    if (!lo)
        return NULL;
    for (i = 0; i < *n; i++) {
        const struct cli_opt *r = &cmd->opts[i];

        lo[i].name = r->name;
        lo[i].has_arg = !r->arg ? no_argument : required_argument;
        lo[i].val = ROW_VAL(i);
    }
    lo[i].name = "help";
    lo[i].val = ROW_VAL(i);
    return lo;
}

/* getopt_long takes an abbreviation of a long option ("--ste" for --steps) and refuses one
 * that begins several with the same '?' as an unknown option: when `given` ("--NAME" or
 * "--NAME=VALUE") begins two or more of cmd's options, say so and name them; false if not. */
static bool refuse_ambiguous(const struct cli_cmd *cmd, const char *given)
{
    char list[512] = "";
    size_t len, n = 0, used = 0;

    if (strncmp(given, "--", 2))
        return false;
    given += 2;
    len = strcspn(given, "=");
    for (int i = 0; cmd->opts[i].name; i++) {
        if (strncmp(cmd->opts[i].name, given, len))
            continue;
        if (used < sizeof(list))
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s--%s", n ? ", " : "",
                                     cmd->opts[i].name);
        n++;
    }
    if (n < 2)
        return false;
    fprintf(stderr,
            "flashstream %s: option '--%.*s' is ambiguous: it could be %s (give more of the "
            "name)\n",
            cmd->name, (int)len, given, list);
    return true;
}

/* getopt_long returned '?' or ':' for argv[optind - 1]; say why. */
static void refuse_arg(const struct cli_cmd *cmd, int ch, int n, char **argv)
{
    char short_opt[3] = {'-', (char)optopt, '\0'};
    /* An unknown short option may sit inside a cluster ("-xv"): name the letter. */
    const char *given = optopt > 0 && optopt < 256 ? short_opt : argv[optind - 1];
    const struct cli_opt *r =
        optopt >= ROW_VAL(0) && optopt < ROW_VAL(n) ? &cmd->opts[optopt - ROW_VAL(0)] : NULL;

    if (ch == ':' && r)
        fprintf(stderr, "flashstream %s: --%s needs a value (--%s %s)\n", cmd->name, r->name,
                r->name, r->arg ? r->arg : "");
    else if (r)
        fprintf(stderr, "flashstream %s: --%s takes no value ('%s' given)\n", cmd->name, r->name,
                given);
    else if (!refuse_ambiguous(cmd, given))
        fprintf(stderr,
                "flashstream %s: unknown option '%s' ('flashstream %s --help' lists them)\n",
                cmd->name, given, cmd->name);
}

static int parse_args(const struct cli_cmd *cmd, int argc, char **argv, void *opts, unsigned *given,
                      const struct option *lo, int n)
{
    int ch, rc;

    optind = 0; /* glibc: start afresh, also after an earlier parse that stopped midway */
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
        if (ch == '?' || ch == ':') {
            refuse_arg(cmd, ch, n, argv);
            return -1;
        }
        if (ch == ROW_VAL(n)) {
            cli_help(cmd, stdout);
            return CLI_DONE;
        }
        const struct cli_opt *r = &cmd->opts[ch - ROW_VAL(0)];
        rc = take(cmd, r, r->arg ? optarg : NULL, opts);
        if (rc)
            return rc;
        if (given)
            *given |= r->given;
    }
    if (optind < argc) {
        fprintf(stderr,
                "flashstream %s: unexpected argument '%s' (options start with --; "
                "'flashstream %s --help' lists them)\n",
                cmd->name, argv[optind], cmd->name);
        return -1;
    }
    return 0;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *opts, unsigned *given)
{
    int n, rc;
    struct option *lo = long_options(cmd, &n);

    if (!lo) {
        fprintf(stderr, "flashstream %s: out of memory\n", cmd->name);
        return -1;
    }
    if (given)
        *given = 0;
    rc = parse_args(cmd, argc, argv, opts, given, lo, n);
    free(lo);
    return rc;
}

/* ------------------------------------------------------------------ help */

/* "  --name ARG         first line\n" and each further line under the first. */
static void help_row(FILE *f, const struct cli_opt *r)
{
    int col = fprintf(f, "  --%s%s%s", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
    const char *line = r->help;

    if (col >= HELP_COL) { /* too long to share a line with the help */
        fputc('\n', f);
        col = 0;
    }
    for (;;) {
        size_t len = strcspn(line, "\n");

        fprintf(f, "%*s%.*s\n", HELP_COL - col, "", (int)len, line);
        if (!line[len])
            break;
        line += len + 1;
        col = 0;
    }
}

void cli_help(const struct cli_cmd *cmd, FILE *f)
{
    const char *group = NULL;

    fprintf(f, "usage: flashstream %s [options]\n", cmd->name);
    if (cmd->about)
        fprintf(f, "%s\n", cmd->about);
    for (const struct cli_opt *r = cmd->opts; r->name; r++) {
        if (!r->help)
            continue;
        if (r->group && (!group || strcmp(group, r->group)))
            fprintf(f, "%s\n", r->group);
        group = r->group;
        help_row(f, r);
    }
}

bool cli_nonempty(const char *val)
{
    return *val != '\0';
}

double cli_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool cli_path_fits(const char *val)
{
    return *val && strlen(val) <= CLI_PATH_MAX;
}

int cli_lock_dir(const char *cmd, const char *dir, int *fd)
{
    char path[600];

    snprintf(path, sizeof(path), "%s/" CLI_LOCK_NAME, dir);
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (*fd < 0) {
        fprintf(stderr, "flashstream %s: cannot open the lock file '%s': %s\n", cmd, path,
                strerror(errno));
        return -1;
    }
    if (!flock(*fd, LOCK_EX | LOCK_NB))
        return 0;
    if (errno == EWOULDBLOCK)
        fprintf(stderr,
                "flashstream %s: the output directory '%s' is in use by another run (it holds "
                "'%s'); give another --out, or wait for that run to end\n",
                cmd, dir, path);
    else
        fprintf(stderr, "flashstream %s: cannot lock '%s': %s\n", cmd, path, strerror(errno));
    close(*fd);
    *fd = -1;
    return -1;
}

int cli_mkdir_p(const char *path)
{
    char buf[512];
    size_t n = strlen(path);

    if (n == 0 || n >= sizeof(buf))
        return -ENAMETOOLONG;
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST)
        return -errno;
    return 0;
}
