/*
 * stats_csv.c - the CSV tables (RFC 4180): a header row, rows checked for the column count,
 * written atomically; the first failure is kept and reported by every later call; see stats.h.
 */
#include "csim/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/afile.h"

/* ---- CSV ---- */

/* What made a table fail. The first failure is sticky: it is kept as these facts, not as text,
 * and described again by every later call and by stats_csv_close. */
enum csv_fault {
    CSV_OK = 0,
    CSV_TOO_MANY,   /* a field past the header's count */
    CSV_WRITE,      /* the file refused a field (strerror of code) */
    CSV_WRITE_EOL,  /* the file refused a line end */
    CSV_DECIMALS,   /* stats_csv_fixed with decimals out of range */
    CSV_TOO_FEW,    /* a row ended before the header's count */
    CSV_UNFINISHED, /* closed in the middle of a row */
};

struct stats_csv {
    struct afile af;
    size_t ncols;
    size_t field; /* fields written in the current row */
    uint64_t rows;
    int err;              /* code of the first failure, 0 if none */
    enum csv_fault fault; /* and what it was: */
    uint64_t fault_row;
    size_t fault_field;
    int fault_decimals;
};

/* The message of the table's failure into e; returns its code. */
static int csv_describe(const struct stats_csv *c, struct err *e)
{
    const char *p = c->af.path;

    switch (c->fault) {
    case CSV_TOO_MANY:
        return err_set(e, c->err,
                       "csv '%s': row %" PRIu64 " has more than %zu fields (the header's count)", p,
                       c->fault_row, c->ncols);
    case CSV_WRITE:
        return err_set(e, c->err, "csv '%s': write failed: %s", p, strerror(-c->err));
    case CSV_WRITE_EOL:
        return err_set(e, c->err, "csv '%s': write failed", p);
    case CSV_DECIMALS:
        return err_set(e, c->err, "csv '%s': %d decimals; accepted 0..17", p, c->fault_decimals);
    case CSV_TOO_FEW:
        return err_set(e, c->err, "csv '%s': row %" PRIu64 " has %zu fields; the header has %zu", p,
                       c->fault_row, c->fault_field, c->ncols);
    case CSV_UNFINISHED:
        return err_set(e, c->err,
                       "csv '%s': row %" PRIu64 " was left unfinished (%zu of %zu fields)", p,
                       c->fault_row, c->fault_field, c->ncols);
    case CSV_OK:
        break;
    }
    return 0;
}

/* Record the first failure (later ones are dropped) and describe it. */
static int csv_fail(struct stats_csv *c, int code, enum csv_fault fault, struct err *e)
{
    if (!c->err) {
        c->err = code;
        c->fault = fault;
        c->fault_row = c->rows + 1;
        c->fault_field = c->field;
        afile_fail(&c->af, "format", -code);
    }
    return csv_describe(c, e);
}

static bool needs_quotes(const char *v)
{
    return strpbrk(v, ",\"\r\n") != NULL;
}

/* Write one field (quoted when needed), preceded by a comma unless it is the first. */
static int put_field(struct stats_csv *c, const char *v, struct err *e)
{
    FILE *f = c->af.f;

    if (c->err)
        return csv_describe(c, e);
    if (c->field >= c->ncols)
        return csv_fail(c, -EINVAL, CSV_TOO_MANY, e);
    if (c->field && fputc(',', f) == EOF)
        goto out_io;
    if (needs_quotes(v)) {
        if (fputc('"', f) == EOF)
            goto out_io;
        for (const char *p = v; *p; p++)
            if ((*p == '"' && fputc('"', f) == EOF) || fputc(*p, f) == EOF)
                goto out_io;
        if (fputc('"', f) == EOF)
            goto out_io;
    } else if (fputs(v, f) == EOF) {
        goto out_io;
    }
    c->field++;
    return 0;

out_io:
    return csv_fail(c, -(errno ? errno : EIO), CSV_WRITE, e);
}

int stats_csv_open(const char *path, size_t ncols, const char *const cols[], struct stats_csv **out,
                   struct err *e)
{
    struct stats_csv *c;
    int rc;

    *out = NULL;
    if (ncols < 1)
        return err_set(e, -EINVAL, "csv '%s': no columns; accepted 1 or more", path);
    c = calloc(1, sizeof(*c));
    if (!c)
        return err_set(e, -ENOMEM, "csv '%s': out of memory", path);
    rc = afile_open(&c->af, path, e);
    if (rc) {
        free(c);
        return err_prefix(e, rc, "csv");
    }
    c->ncols = ncols;
    for (size_t i = 0; i < ncols; i++)
        put_field(c, cols[i] ? cols[i] : "", NULL);
    if (!c->err && fputc('\n', c->af.f) == EOF)
        csv_fail(c, -EIO, CSV_WRITE_EOL, NULL);
    c->field = 0;
    if (c->err) {
        rc = csv_describe(c, e);
        stats_csv_abort(c);
        return rc;
    }
    *out = c;
    return 0;
}

int stats_csv_flush(struct stats_csv *c, struct err *e)
{
    if (!c->err && fflush(c->af.f))
        return csv_fail(c, -(errno ? errno : EIO), CSV_WRITE, e);
    return c->err ? csv_describe(c, e) : 0;
}

int stats_csv_str(struct stats_csv *c, const char *v, struct err *e)
{
    return put_field(c, v ? v : "", e);
}

int stats_csv_u64(struct stats_csv *c, uint64_t v, struct err *e)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    return put_field(c, buf, e);
}

int stats_csv_i64(struct stats_csv *c, int64_t v, struct err *e)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%" PRId64, v);
    return put_field(c, buf, e);
}

int stats_csv_f64(struct stats_csv *c, double v, struct err *e)
{
    char buf[40];

    if (isnan(v))
        return put_field(c, "nan", e);
    if (isinf(v))
        return put_field(c, v > 0 ? "inf" : "-inf", e);
    snprintf(buf, sizeof(buf), "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof(buf), "%.17g", v);
    return put_field(c, buf, e);
}

int stats_csv_fixed(struct stats_csv *c, double v, int decimals, struct err *e)
{
    char buf[64];

    if (!isfinite(v))
        return stats_csv_f64(c, v, e);
    if (decimals < 0 || decimals > 17) {
        if (!c->err)
            c->fault_decimals = decimals;
        return csv_fail(c, -EINVAL, CSV_DECIMALS, e);
    }
    if (fabs(v) >= 1e30)
        return stats_csv_f64(c, v, e);
    snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return put_field(c, buf, e);
}

int stats_csv_end_row(struct stats_csv *c, struct err *e)
{
    if (c->err)
        return csv_describe(c, e);
    if (c->field != c->ncols)
        return csv_fail(c, -EINVAL, CSV_TOO_FEW, e);
    if (fputc('\n', c->af.f) == EOF)
        return csv_fail(c, -EIO, CSV_WRITE_EOL, e);
    c->field = 0;
    c->rows++;
    return 0;
}

int stats_csv_close(struct stats_csv *c, struct err *e)
{
    int rc;

    if (!c->err && c->field)
        csv_fail(c, -EINVAL, CSV_UNFINISHED, NULL);
    if (c->err) {
        rc = csv_describe(c, e);
        stats_csv_abort(c);
        return rc;
    }
    rc = afile_commit(&c->af, e);
    if (rc)
        err_prefix(e, rc, "csv");
    free(c);
    return rc;
}

void stats_csv_abort(struct stats_csv *c)
{
    if (!c)
        return;
    afile_abort(&c->af);
    free(c);
}

uint64_t stats_csv_rows(const struct stats_csv *c)
{
    return c->rows;
}
