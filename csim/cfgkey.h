/*
 * cfgkey: typed configuration keys, declared as rows of a table.
 *
 * A row names a key, the type of its value, the field of a configuration struct that holds it,
 * its accepted range, its unit and one line of help. A module's table is the one place its keys
 * are declared: its setter, its listings, its dumps and its documentation are all built from
 * the rows, so a key cannot be accepted without being listed, nor listed with another range
 * than the one enforced. Generic: nothing here knows what is being configured.
 *
 * Contract
 * --------
 * Modelled: text <-> field, for these types of value:
 *   INT   an unsigned integer, decimal or 0x hexadecimal, no sign ("64", "0x40");
 *   SIZE  bytes: an unsigned decimal integer with an optional binary suffix, k/KiB, m/MiB,
 *         g/GiB, t/TiB in any case, a space allowed before it ("16GiB", "64k", "4096");
 *   DEC   a decimal number in the key's unit ("1.25" ns, "1e5" ns), stored as an integer in
 *         a unit 10^scale times finer (1250 ps), computed in integers so that every stored
 *         value is exact; a value finer than that unit ("1.0005" ns) is refused, not rounded;
 *   BOOL  a switch: on/off, true/false, yes/no, 1/0, in any case;
 *   ENUM  one of names[] (exactly), stored as its index in an int.
 * Integer fields are 4 or 8 bytes wide (uint32_t, unsigned, uint64_t: the row's size says
 * which), BOOL fields a bool. The range lo..hi is in stored units, both ends accepted; pow2
 * ("a power of two") and mult ("a multiple of mult") narrow an INT or SIZE key further.
 * cfgkey_format writes text that cfgkey_parse reads back to the same stored value, for every
 * value in range.
 * Not modelled: signed or floating-point fields, lists, rules across keys (the owner's
 * validation checks those).
 * Units: the row's unit is the unit of the text ("ns", "MB/s", "bytes"); stored values are
 * integers (picoseconds, bytes per second, ...).
 *
 * Errors (csim/err.h): -EINVAL (the text is not a value of the type) or -ERANGE (a value outside
 * what the row accepts); the message starts with the key as the caller labels it ("core.rows"),
 * then the text given and what is accepted.
 */
#ifndef CSIM_CFGKEY_H
#define CSIM_CFGKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"

/* The type of a key's value (rows use the macros CFGKEY_INT(lo, hi), ... below). */
enum cfgkey_type {
    CFGKEY_T_INT,
    CFGKEY_T_SIZE,
    CFGKEY_T_DEC,
    CFGKEY_T_BOOL,
    CFGKEY_T_ENUM,
};

/* One key. A table is an array of rows ended by a row whose name is NULL. */
struct cfgkey {
    const char *name; /* the key, e.g. "channels" */
    enum cfgkey_type type;
    size_t off, size;         /* the field in the struct (CFGKEY_FIELD) */
    const char *field;        /* the field's member path, e.g. "geom.channels" */
    uint64_t lo, hi;          /* accepted range, stored units */
    unsigned scale;           /* DEC: stored unit = text unit / 10^scale (0..9) */
    bool pow2;                /* INT, SIZE: a power of two */
    uint64_t mult;            /* INT, SIZE: a multiple of mult (0: any) */
    const char *const *names; /* ENUM: the accepted values, in index order */
    unsigned n_names;         /* ENUM */
    const char *unit;         /* of the text: "ns", "MB/s", "bytes", "" */
    const char *help;         /* one line, no trailing period */
};

/*
 * Rows are written with these, so that a table reads like a list of keys:
 *
 *   {"channels", CFGKEY_FIELD(struct flash_cfg, geom.channels), CFGKEY_INT(1, 1024),
 *    .unit = "", .help = "independent channels (buses)"},
 */
#define CFGKEY_FIELD(type, member)                                                                 \
    .off = offsetof(type, member), .size = sizeof(((type *)0)->member), .field = #member
#define CFGKEY_INT(lo_, hi_)  .type = CFGKEY_T_INT, .lo = (lo_), .hi = (hi_)
#define CFGKEY_SIZE(lo_, hi_) .type = CFGKEY_T_SIZE, .lo = (lo_), .hi = (hi_)
#define CFGKEY_DEC(scale_, lo_, hi_)                                                               \
    .type = CFGKEY_T_DEC, .scale = (scale_), .lo = (lo_), .hi = (hi_)
#define CFGKEY_BOOL .type = CFGKEY_T_BOOL, .lo = 0, .hi = 1
/* names_: an array of strings (its size is taken). */
#define CFGKEY_ENUM(names_)                                                                        \
    .type = CFGKEY_T_ENUM, .names = (names_),                                                      \
    .n_names = (unsigned)(sizeof(names_) / sizeof((names_)[0])), .lo = 0,                          \
    .hi = sizeof(names_) / sizeof((names_)[0]) - 1

/* Text of a value: room for any formatted value, range or name. */
#define CFGKEY_TEXT_MAX 96

/* The row named name in a table, NULL if none. */
const struct cfgkey *cfgkey_find(const struct cfgkey *table, const char *name);
/* Rows of a table. */
size_t cfgkey_count(const struct cfgkey *table);

/* Whether a row is well formed (field width fits the type, lo <= hi, the range fits the field,
 * scale <= 9): a wrong table is a bug of the program, which its tests catch with this. */
bool cfgkey_row_ok(const struct cfgkey *k);

/* Parse text into the field of the struct at base: 0, -EINVAL or -ERANGE (field unchanged). */
int cfgkey_parse(const struct cfgkey *k, const char *label, const char *text, void *base,
                 struct err *e);
/* Whether the field's value is one the row accepts: 0 or -EINVAL (message as for parse). */
int cfgkey_check(const struct cfgkey *k, const char *label, const void *base, struct err *e);

/* The stored value (a bool as 0/1, an enum as its index). */
uint64_t cfgkey_get(const struct cfgkey *k, const void *base);

/* The value as a file holds it, exact: "16GiB", "1.25", "on", "behemoth". */
void cfgkey_format(const struct cfgkey *k, const void *base, char *buf, size_t len);
/* The value as a plain JSON scalar: INT and SIZE as a decimal integer, DEC as a decimal number,
 * BOOL as true/false, ENUM as its name (*is_string set: quote it). */
void cfgkey_format_json(const struct cfgkey *k, const void *base, char *buf, size_t len,
                        bool *is_string);
/* The value for people, with its unit and the scale's decimals: "3000.000 ns", "64KiB". */
void cfgkey_show(const struct cfgkey *k, const void *base, char *buf, size_t len);
/* What is accepted: "1..1024", "a power of two in 64..65536", "0.001..1000000000 ns",
 * "on/off", "behemoth, ssd-raid0 or ideal". */
void cfgkey_range(const struct cfgkey *k, char *buf, size_t len);

#endif
