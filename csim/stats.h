/*
 * stats: the statistics registry of a run, and the writers of its tables.
 *
 * Contract
 * --------
 * Modelled: named counters, each with a type (unsigned 64-bit integer or double), a unit and a
 * one-line description. A name is a dot-separated path whose components name the block, then
 * the counter: "an0.core.busy_ps", "wn.flash.ch12.bytes_out". Components are 1..63 characters
 * of [A-Za-z0-9_-]; a name is at most STATS_NAME_MAX characters. A path is either a counter or
 * a group, never both ("an0.core" cannot be a counter once "an0.core.busy_ps" is one).
 * Written to JSON (cJSON) as
 *     {"format": "flashstream-stats", "version": 1,
 *      "meta": {"key": "value", ...},                          (insertion order)
 *      "config": {"section": {"key": value, ...}, ...},        (insertion order; only if set)
 *      "stats": {"an0": {"core": {"busy_ps": {"value": 123, "unit": "ps", "desc": "..."}}}}}
 * with groups nested by path component and keys in a deterministic order that does not depend
 * on the order of definition: component by component, digit runs compared as numbers
 * ("an2" < "an10"), otherwise bytewise. uint64 values are written exactly (all 20 digits);
 * doubles as the shortest of %.15g / %.17g that reads back to the same value; NaN and
 * infinities as null (JSON has no such numbers).
 * CSV tables (RFC 4180: comma separated, "\n" line ends, a field quoted when it holds a comma,
 * quote, CR or LF, quotes doubled), a header row of column names, every row checked for the
 * column count.
 * Both writers write atomically (csim/afile.h): "<path>.tmp.<pid>.<n>", fflush + fsync, rename.
 * Generic: nothing here knows the machine being simulated.
 * Not modelled: histograms and distributions (register their buckets as counters), reading
 * stats back, thread safety (one registry per thread).
 * Units: whatever the caller says; the unit string is written next to the value ("ps",
 * "bytes", "count", "ratio", ...).
 *
 * Errors (csim/err.h): functions that act return 0 or a negative errno (-EINVAL bad name or
 * value, -EEXIST conflicting definition, -ENOENT unknown name, -ENOMEM, I/O errors of the
 * write) with the message for people in the caller's err.
 */
#ifndef CSIM_STATS_H
#define CSIM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"

#define STATS_NAME_MAX 255 /* characters of a counter name */

enum stats_type {
    STATS_U64 = 0,
    STATS_F64 = 1,
};

struct stats;
struct stats_ctr; /* a counter; stable address until stats_destroy */

int stats_create(struct stats **out, struct err *e);
void stats_destroy(struct stats *s);

/*
 * Define a counter (value 0), or find it if it exists with the same type and unit (its first
 * description is kept); *out is its handle. unit and desc are copied; desc may be NULL or "".
 * -EINVAL bad name, -EEXIST same name with another type or unit, or a path that is a group of
 * other counters / has a counter as one of its groups.
 */
int stats_u64(struct stats *s, const char *name, const char *unit, const char *desc,
              struct stats_ctr **out, struct err *e);
int stats_f64(struct stats *s, const char *name, const char *unit, const char *desc,
              struct stats_ctr **out, struct err *e);

/* Change a counter through its handle. The u64 forms need a STATS_U64 counter and the f64
 * forms a STATS_F64 counter (assert: a programming error, not input). */
void stats_ctr_set_u64(struct stats_ctr *c, uint64_t v);
void stats_ctr_add_u64(struct stats_ctr *c, uint64_t delta); /* wraps modulo 2^64 */
void stats_ctr_max_u64(struct stats_ctr *c, uint64_t v);     /* value = max(value, v) */
void stats_ctr_set_f64(struct stats_ctr *c, double v);
void stats_ctr_add_f64(struct stats_ctr *c, double delta);

/* Define (or find) and set in one call: 0 or the error of stats_u64 / stats_f64. */
int stats_set_u64(struct stats *s, const char *name, const char *unit, const char *desc, uint64_t v,
                  struct err *e);
int stats_set_f64(struct stats *s, const char *name, const char *unit, const char *desc, double v,
                  struct err *e);
/* Add to an existing counter of that type: 0, -ENOENT (no such counter), -EINVAL (other type). */
int stats_add_u64(struct stats *s, const char *name, uint64_t delta, struct err *e);
int stats_add_f64(struct stats *s, const char *name, double delta, struct err *e);

/* Look up: NULL if there is no counter of that name. */
const struct stats_ctr *stats_find(const struct stats *s, const char *name);
enum stats_type stats_ctr_type(const struct stats_ctr *c);
uint64_t stats_ctr_u64(const struct stats_ctr *c); /* STATS_U64 only */
double stats_ctr_f64(const struct stats_ctr *c);   /* STATS_F64 only */
const char *stats_ctr_name(const struct stats_ctr *c);
const char *stats_ctr_unit(const struct stats_ctr *c);
size_t stats_count(const struct stats *s);

/* A run description written under "meta" (e.g. "command", "model", "seed"), in insertion
 * order; setting a key again replaces its value in place. key: 1..63 printable characters. */
int stats_meta(struct stats *s, const char *key, const char *value, struct err *e);

/* The configuration of the run, written under "config" as {section: {key: value}}: sections in
 * the order of their first value, keys in insertion order; setting a key again replaces its
 * value in place. NUMBER: value is the text of a JSON number ("1.25", "4096"), written as
 * given (exact); BOOL: "true" or "false"; STRING: any text. 0, -EINVAL (a number or switch
 * that is not one), -ENOMEM. */
enum stats_cfg_kind {
    STATS_CFG_STRING = 0,
    STATS_CFG_NUMBER = 1,
    STATS_CFG_BOOL = 2,
};
int stats_config(struct stats *s, const char *section, const char *key, enum stats_cfg_kind kind,
                 const char *value, struct err *e);

/* Write the registry to path as JSON, atomically. 0, -ENOMEM, or the -errno of the write. */
int stats_write_json(struct stats *s, const char *path, struct err *e);

/* ---- CSV tables ---- */

struct stats_csv;

/* Start writing "<path>.tmp.<pid>.<n>" with a header row of ncols >= 1 column names. */
int stats_csv_open(const char *path, size_t ncols, const char *const cols[], struct stats_csv **out,
                   struct err *e);
/* Append one field to the current row. Errors are sticky: after the first, every call returns
 * it with the same message and stats_csv_close refuses. -EINVAL: more fields than columns. */
int stats_csv_str(struct stats_csv *c, const char *v, struct err *e);
int stats_csv_u64(struct stats_csv *c, uint64_t v, struct err *e);
int stats_csv_i64(struct stats_csv *c, int64_t v, struct err *e);
/* Shortest round-trip; "nan", "inf". */
int stats_csv_f64(struct stats_csv *c, double v, struct err *e);
/* Fixed decimals, for values people read (microseconds with 3 decimals, ratios). */
int stats_csv_fixed(struct stats_csv *c, double v, int decimals, struct err *e);
/* Finish the row: -EINVAL if it has fewer fields than columns. */
int stats_csv_end_row(struct stats_csv *c, struct err *e);
/* Commit (fsync, rename) and free: 0 or the first error, with its message (then the temporary
 * file is removed and path is untouched). A row in progress is an error. */
int stats_csv_close(struct stats_csv *c, struct err *e);
/* Drop the table: remove the temporary file, free. */
void stats_csv_abort(struct stats_csv *c);
/* Push the rows written so far to the temporary file (fflush): a run killed afterwards leaves
 * them on disk, for a resumed run to recover. 0 or the sticky error. */
int stats_csv_flush(struct stats_csv *c, struct err *e);
/* Rows written so far, header excluded. */
uint64_t stats_csv_rows(const struct stats_csv *c);

#endif
