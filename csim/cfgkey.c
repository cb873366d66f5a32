#include "csim/cfgkey.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ the table */

const struct cfgkey *cfgkey_find(const struct cfgkey *table, const char *name)
{
    for (const struct cfgkey *k = table; k->name; k++)
        if (!strcmp(k->name, name))
            return k;
    return NULL;
}

size_t cfgkey_count(const struct cfgkey *table)
{
    size_t n = 0;

    while (table[n].name)
        n++;
    return n;
}

static uint64_t pow10_u64(unsigned scale)
{
    uint64_t p = 1;

    while (scale--)
        p *= 10;
    return p;
}

bool cfgkey_row_ok(const struct cfgkey *k)
{
    uint64_t max = k->size == 4 ? UINT32_MAX : UINT64_MAX;

    if (!k->name || !k->field || !k->unit || !k->help || k->lo > k->hi)
        return false;
    switch (k->type) {
    case CFGKEY_T_INT:
    case CFGKEY_T_SIZE:
    case CFGKEY_T_DEC:
        return (k->size == 4 || k->size == 8) && k->hi <= max && k->scale <= 9 &&
               (k->type == CFGKEY_T_DEC || k->scale == 0);
    case CFGKEY_T_BOOL:
        return k->size == sizeof(bool) && k->hi == 1;
    case CFGKEY_T_ENUM:
        return k->size == sizeof(int) && k->names && k->n_names > 0 && k->hi == k->n_names - 1;
    }
    return false;
}

uint64_t cfgkey_get(const struct cfgkey *k, const void *base)
{
    const char *p = (const char *)base + k->off;

    switch (k->type) {
    case CFGKEY_T_BOOL:
        return *(const bool *)(const void *)p;
    case CFGKEY_T_ENUM:
        return (uint64_t) * (const int *)(const void *)p;
    default:
        return k->size == 4 ? *(const uint32_t *)(const void *)p
                            : *(const uint64_t *)(const void *)p;
    }
}

static void put(const struct cfgkey *k, void *base, uint64_t v)
{
    char *p = (char *)base + k->off;

    switch (k->type) {
    case CFGKEY_T_BOOL:
        *(bool *)(void *)p = v != 0;
        break;
    case CFGKEY_T_ENUM:
        *(int *)(void *)p = (int)v;
        break;
    default:
        if (k->size == 4)
            *(uint32_t *)(void *)p = (uint32_t)v;
        else
            *(uint64_t *)(void *)p = v;
        break;
    }
}

/* ------------------------------------------------------------------ text of values */

static const struct {
    const char *name;
    unsigned shift;
} size_units[] = {{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}};

/* Bytes with the largest binary suffix that divides them exactly: "16GiB", "4096" -> "4KiB". */
static void size_text(uint64_t v, char *buf, size_t len)
{
    for (size_t i = 0; v && i < sizeof(size_units) / sizeof(size_units[0]); i++) {
        if (v % (1ull << size_units[i].shift) == 0) {
            snprintf(buf, len, "%" PRIu64 "%s", v >> size_units[i].shift, size_units[i].name);
            return;
        }
    }
    snprintf(buf, len, "%" PRIu64, v);
}

/* v / 10^scale as the shortest exact decimal: 1250, 3 -> "1.25". */
static void dec_text(uint64_t v, unsigned scale, char *buf, size_t len)
{
    uint64_t p = pow10_u64(scale), frac = v % p;
    unsigned digits = scale;

    if (!frac) {
        snprintf(buf, len, "%" PRIu64, v / p);
        return;
    }
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, v / p, (int)digits, frac);
}

void cfgkey_format(const struct cfgkey *k, const void *base, char *buf, size_t len)
{
    uint64_t v = cfgkey_get(k, base);

    switch (k->type) {
    case CFGKEY_T_INT:
        snprintf(buf, len, "%" PRIu64, v);
        break;
    case CFGKEY_T_SIZE:
        size_text(v, buf, len);
        break;
    case CFGKEY_T_DEC:
        dec_text(v, k->scale, buf, len);
        break;
    case CFGKEY_T_BOOL:
        snprintf(buf, len, "%s", v ? "on" : "off");
        break;
    case CFGKEY_T_ENUM:
        snprintf(buf, len, "%s", v < k->n_names ? k->names[v] : "?");
        break;
    }
}

void cfgkey_format_json(const struct cfgkey *k, const void *base, char *buf, size_t len,
                        bool *is_string)
{
    uint64_t v = cfgkey_get(k, base);

    *is_string = k->type == CFGKEY_T_ENUM;
    if (k->type == CFGKEY_T_SIZE)
        snprintf(buf, len, "%" PRIu64, v);
    else if (k->type == CFGKEY_T_BOOL)
        snprintf(buf, len, "%s", v ? "true" : "false");
    else
        cfgkey_format(k, base, buf, len);
}

void cfgkey_show(const struct cfgkey *k, const void *base, char *buf, size_t len)
{
    uint64_t v = cfgkey_get(k, base), p = pow10_u64(k->scale);

    if (k->type != CFGKEY_T_DEC) {
        cfgkey_format(k, base, buf, len);
        return;
    }
    if (k->scale)
        snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64 " %s", v / p, (int)k->scale, v % p, k->unit);
    else
        snprintf(buf, len, "%" PRIu64 " %s", v, k->unit);
}

void cfgkey_range(const struct cfgkey *k, char *buf, size_t len)
{
    char lo[40], hi[40];
    int n = 0;

    switch (k->type) {
    case CFGKEY_T_BOOL:
        snprintf(buf, len, "on/off");
        return;
    case CFGKEY_T_ENUM:
        for (unsigned i = 0; i < k->n_names && (size_t)n < len; i++)
            n += snprintf(buf + n, len - (size_t)n, "%s%s",
                          i == 0                ? ""
                          : i + 1 == k->n_names ? " or "
                                                : ", ",
                          k->names[i]);
        return;
    case CFGKEY_T_SIZE:
        size_text(k->lo, lo, sizeof(lo));
        size_text(k->hi, hi, sizeof(hi));
        break;
    case CFGKEY_T_DEC:
        dec_text(k->lo, k->scale, lo, sizeof(lo));
        dec_text(k->hi, k->scale, hi, sizeof(hi));
        break;
    case CFGKEY_T_INT:
        snprintf(lo, sizeof(lo), "%" PRIu64, k->lo);
        snprintf(hi, sizeof(hi), "%" PRIu64, k->hi);
        break;
    }
    if (k->pow2)
        n = snprintf(buf, len, "a power of two in ");
    else if (k->mult > 1)
        n = snprintf(buf, len, "a multiple of %" PRIu64 " in ", k->mult);
    /* A size's bounds carry their suffix; other bounds take the unit after them. */
    bool unit = *k->unit && k->type != CFGKEY_T_SIZE;

    snprintf(buf + n, len - (size_t)n, "%s..%s%s%s", lo, hi, unit ? " " : "", unit ? k->unit : "");
}

/* ------------------------------------------------------------------ parsing */

/* The digits at text as an unsigned integer (decimal, or hexadecimal after "0x" when hex_ok);
 * *end: the first character after them. -EINVAL when text does not start with a digit (a sign,
 * a space, nothing), -ERANGE when the number does not fit 64 bits. */
static int scan_uint(const char *text, bool hex_ok, uint64_t *v, const char **end)
{
    int base = 10;
    const char *p = text;
    char *q;

    if (hex_ok && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!(base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
        return -EINVAL;
    errno = 0;
    unsigned long long u = strtoull(p, &q, base);
    if (errno == ERANGE)
        return -ERANGE;
    *v = u;
    *end = q;
    return 0;
}

static int parse_size(const char *text, uint64_t *v)
{
    static const struct {
        const char *suf;
        unsigned shift;
    } sufs[] = {{"", 0},    {"b", 0},    {"k", 10},   {"kib", 10}, {"kb", 10},
                {"m", 20},  {"mib", 20}, {"mb", 20},  {"g", 30},   {"gib", 30},
                {"gb", 30}, {"t", 40},   {"tib", 40}, {"tb", 40}};
    const char *end;
    int rc = scan_uint(text, false, v, &end);

    if (rc)
        return rc;
    if (*end == ' ' && end[1])
        end++;
    for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++) {
        if (strcasecmp(end, sufs[i].suf))
            continue;
        if (*v > (UINT64_MAX >> sufs[i].shift))
            return -ERANGE;
        *v <<= sufs[i].shift;
        return 0;
    }
    return -EINVAL;
}

/* Digit k of the digits of a number written as int_part followed by frac (lengths ni, nf). */
static unsigned dec_digit(const char *int_part, size_t ni, const char *frac, size_t k)
{
    return (unsigned)((k < ni ? int_part[k] : frac[k - ni]) - '0');
}

/*
 * "D[.F][(e|E)[+-]X]" (digits in D or F) times 10^scale, in integers: every value up to
 * 2^64 - 1 is exact, which a double is not beyond 2^53. A value with a nonzero digit below
 * the key's unit (10^-scale) is -EDOM, not rounded without a word.
 */
static int parse_dec(const char *text, unsigned scale, uint64_t *v)
{
    const char *p = text, *int_part, *frac = "";
    size_t ni, nf = 0, n, lead = 0;
    long long q, x = 0;
    uint64_t r = 0;
    bool neg = false;

    int_part = p;
    while (isdigit((unsigned char)*p))
        p++;
    ni = (size_t)(p - int_part);
    if (*p == '.') {
        frac = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        nf = (size_t)(p - frac);
    }
    if (ni + nf == 0)
        return -EINVAL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            neg = *p++ == '-';
        if (!isdigit((unsigned char)*p))
            return -EINVAL;
        for (; isdigit((unsigned char)*p); p++)
            if (x < 1000000)
                x = x * 10 + (*p - '0');
    }
    if (*p)
        return -EINVAL;
    n = ni + nf;
    while (lead < n && dec_digit(int_part, ni, frac, lead) == 0)
        lead++;
    /* The value is digits[lead..n) x 10^q. */
    q = (neg ? -x : x) + (long long)scale - (long long)nf;
    long long keep = (long long)(n - lead) + q; /* digits of the integer part of the result */
    if (lead == n) {
        *v = 0;
        return 0;
    }
    if (keep < 0)
        return -EDOM;
    if (keep > 20)
        return -ERANGE;
    for (long long i = 0; i < keep; i++) {
        size_t k = lead + (size_t)i;
        unsigned d = k < n ? dec_digit(int_part, ni, frac, k) : 0;

        if (r > (UINT64_MAX - d) / 10)
            return -ERANGE;
        r = r * 10 + d;
    }
    for (size_t k = lead + (size_t)keep; k < n; k++)
        if (dec_digit(int_part, ni, frac, k))
            return -EDOM;
    *v = r;
    return 0;
}

static int parse_bool(const char *text, uint64_t *v)
{
    static const char *const on[] = {"1", "on", "true", "yes"};
    static const char *const off[] = {"0", "off", "false", "no"};

    for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
        if (!strcasecmp(text, on[i])) {
            *v = 1;
            return 0;
        }
        if (!strcasecmp(text, off[i])) {
            *v = 0;
            return 0;
        }
    }
    return -EINVAL;
}

static int parse_enum(const struct cfgkey *k, const char *text, uint64_t *v)
{
    for (unsigned i = 0; i < k->n_names; i++) {
        if (!strcmp(text, k->names[i])) {
            *v = i;
            return 0;
        }
    }
    return -EINVAL;
}

/* What the text should have been, for the message of a value that is not of the type. */
static const char *type_noun(enum cfgkey_type t)
{
    switch (t) {
    case CFGKEY_T_INT:
        return "an unsigned integer";
    case CFGKEY_T_SIZE:
        return "a size in bytes (suffixes k, m, g, t for KiB, MiB, GiB, TiB)";
    case CFGKEY_T_DEC:
        return "a decimal number";
    case CFGKEY_T_BOOL:
        return "a switch value";
    case CFGKEY_T_ENUM:
        return "one of the names";
    }
    return "?";
}

/* refusal()'s reason for a value off the key's multiple: refuse() adds the multiple after it,
 * recognising the reason by this address (a reworded text keeps the number). */
static const char not_multiple[] = "is not a multiple of";

/* Why v is not accepted, NULL when it is. */
static const char *refusal(const struct cfgkey *k, uint64_t v)
{
    if (v < k->lo || v > k->hi)
        return "is out of range";
    if (k->pow2 && (v & (v - 1)))
        return "is not a power of two";
    if (k->mult > 1 && v % k->mult)
        return not_multiple;
    return NULL;
}

/* "<label> = <value> <why>; accepted <range>", and " (<help>)" when with_help. */
static int refuse(const struct cfgkey *k, int code, const char *label, const char *value,
                  const char *why, bool with_help, struct err *e)
{
    char rng[CFGKEY_TEXT_MAX * 3], mult[32] = "";

    cfgkey_range(k, rng, sizeof(rng));
    if (why == not_multiple)
        snprintf(mult, sizeof(mult), " %" PRIu64, k->mult);
    return err_set(e, code, "%s = %s %s%s; accepted %s%s%s%s", label, value, why, mult, rng,
                   with_help ? " (" : "", with_help ? k->help : "", with_help ? ")" : "");
}

int cfgkey_parse(const struct cfgkey *k, const char *label, const char *text, void *base,
                 struct err *e)
{
    uint64_t v = 0;
    const char *end, *why;
    char rng[CFGKEY_TEXT_MAX * 3];
    int rc = -EINVAL;

    switch (k->type) {
    case CFGKEY_T_INT:
        rc = scan_uint(text, true, &v, &end);
        if (!rc && *end)
            rc = -EINVAL;
        break;
    case CFGKEY_T_SIZE:
        rc = parse_size(text, &v);
        break;
    case CFGKEY_T_DEC:
        rc = parse_dec(text, k->scale, &v);
        break;
    case CFGKEY_T_BOOL:
        rc = parse_bool(text, &v);
        break;
    case CFGKEY_T_ENUM:
        rc = parse_enum(k, text, &v);
        break;
    }
    if (rc == -EINVAL) {
        cfgkey_range(k, rng, sizeof(rng));
        if (k->type == CFGKEY_T_BOOL)
            return err_set(e, -EINVAL,
                           "%s = '%s' is not a switch value; accepted on/off, true/false, "
                           "yes/no, 1/0",
                           label, text);
        return err_set(e, -EINVAL, "%s = '%s' is not %s; accepted %s", label, text,
                       type_noun(k->type), rng);
    }
    if (rc == -EDOM) {
        char step[16] = "1";

        if (k->scale)
            snprintf(step, sizeof(step), "0.%0*u", (int)k->scale, 1u);
        cfgkey_range(k, rng, sizeof(rng));
        return err_set(e, -EINVAL,
                       "%s = '%s' is finer than the key holds (whole steps of %s %s, not "
                       "rounded): give at most %u decimal%s; accepted %s",
                       label, text, step, k->unit, k->scale, k->scale == 1 ? "" : "s", rng);
    }
    why = rc ? "is out of range" : refusal(k, v);
    if (why) {
        char quoted[CFGKEY_TEXT_MAX * 2];

        snprintf(quoted, sizeof(quoted), "'%s'", text);
        return refuse(k, -ERANGE, label, quoted, why, false, e);
    }
    put(k, base, v);
    return 0;
}

int cfgkey_check(const struct cfgkey *k, const char *label, const void *base, struct err *e)
{
    char val[CFGKEY_TEXT_MAX];
    const char *why = refusal(k, cfgkey_get(k, base));

    if (!why)
        return 0;
    cfgkey_show(k, base, val, sizeof(val));
    return refuse(k, -EINVAL, label, val, why, true, e);
}
