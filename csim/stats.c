/*
 * stats.c - counter registry, stats.json and CSV writers; see stats.h.
 *
 * Counters are allocated one by one (stable handles) and found through an open-addressing hash
 * table of every path, counters and the groups above them, so that a leaf/group conflict is
 * one lookup per path component.
 */
#include "csim/stats.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/afile.h"

#define COMP_MAX 63 /* characters of one path component, and of a meta key */

struct stats_ctr {
    char *name;
    char *unit;
    char *desc;
    enum stats_type type;
    union {
        uint64_t u;
        double d;
    } v;
};

/* A slot of the path table: a counter, or a group (ctr == NULL). */
struct slot {
    char *path;
    struct stats_ctr *ctr;
};

struct meta {
    char *key;
    char *value;
};

struct stats {
    struct stats_ctr **ctrs; /* in definition order */
    size_t n_ctrs, cap_ctrs;
    struct slot *tab; /* open addressing, power-of-two size, at most half full */
    size_t n_tab, cap_tab;
    struct meta *meta;
    size_t n_meta, cap_meta;
    int code; /* of the last failure */
    char msg[512];
};

static int fail(struct stats *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct stats *s, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
    va_end(ap);
    s->code = code;
    return code;
}

static uint64_t hash(const char *p, size_t n)
{
    uint64_t h = 0xCBF29CE484222325ull;

    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

/* The slot of path p[0..n), or the empty slot where it would go. */
static struct slot *lookup(const struct stats *s, const char *p, size_t n)
{
    size_t mask = s->cap_tab - 1;

    for (size_t i = (size_t)hash(p, n) & mask;; i = (i + 1) & mask) {
        struct slot *sl = &s->tab[i];

        if (!sl->path || (strlen(sl->path) == n && !memcmp(sl->path, p, n)))
            return sl;
    }
}

static int grow_table(struct stats *s)
{
    struct slot *old = s->tab;
    size_t old_cap = s->cap_tab, cap = old_cap ? 2 * old_cap : 64;

    s->tab = calloc(cap, sizeof(*s->tab));
    if (!s->tab) {
        s->tab = old;
        return -ENOMEM;
    }
    s->cap_tab = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].path)
            *lookup(s, old[i].path, strlen(old[i].path)) = old[i];
    free(old);
    return 0;
}

struct stats *stats_create(void)
{
    struct stats *s = calloc(1, sizeof(*s));

    if (!s || grow_table(s)) {
        free(s);
        return NULL;
    }
    return s;
}

void stats_destroy(struct stats *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_ctrs; i++) {
        free(s->ctrs[i]->unit);
        free(s->ctrs[i]->desc);
        free(s->ctrs[i]); /* the name is owned by the table slot */
    }
    for (size_t i = 0; i < s->cap_tab; i++)
        free(s->tab[i].path);
    for (size_t i = 0; i < s->n_meta; i++) {
        free(s->meta[i].key);
        free(s->meta[i].value);
    }
    free(s->meta);
    free(s->tab);
    free(s->ctrs);
    free(s);
}

const char *stats_errmsg(const struct stats *s)
{
    return s->msg;
}

static bool comp_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static int check_name(struct stats *s, const char *name)
{
    size_t n, comp = 0;

    if (!name || !*name)
        return fail(s, -EINVAL,
                    "stats: empty counter name; accepted a dot-separated path such "
                    "as \"an0.core.busy_ps\"");
    n = strlen(name);
    if (n > STATS_NAME_MAX)
        return fail(s, -EINVAL,
                    "stats: counter name \"%.40s...\" has %zu characters; accepted "
                    "at most %d",
                    name, n, STATS_NAME_MAX);
    for (size_t i = 0; i <= n; i++) {
        char c = name[i];

        if (c == '.' || c == '\0') {
            if (comp == 0)
                return fail(s, -EINVAL,
                            "stats: counter name \"%s\" has an empty component at character %zu; "
                            "accepted components of 1..%d characters [A-Za-z0-9_-] joined by '.'",
                            name, i, COMP_MAX);
            comp = 0;
        } else if (!comp_char(c)) {
            return fail(s, -EINVAL,
                        "stats: counter name \"%s\" has '%c' (0x%02x) at character %zu; accepted "
                        "[A-Za-z0-9_-] and '.' between components",
                        name, c >= 0x20 && c < 0x7f ? c : '?', (unsigned char)c, i);
        } else if (++comp > COMP_MAX) {
            return fail(s, -EINVAL,
                        "stats: counter name \"%s\" has a component longer than %d characters",
                        name, COMP_MAX);
        }
    }
    return 0;
}

/* Insert path p[0..n) (a group when ctr is NULL) into the table; the slot is empty. */
static int insert(struct stats *s, const char *p, size_t n, struct stats_ctr *ctr,
                  struct slot **where)
{
    struct slot *sl;
    char *copy;

    if (2 * (s->n_tab + 1) > s->cap_tab && grow_table(s))
        return -ENOMEM;
    copy = strndup(p, n);
    if (!copy)
        return -ENOMEM;
    sl = lookup(s, p, n);
    sl->path = copy;
    sl->ctr = ctr;
    s->n_tab++;
    if (where)
        *where = sl;
    return 0;
}

static const char *type_name(enum stats_type t)
{
    return t == STATS_U64 ? "u64" : "f64";
}

static struct stats_ctr *define(struct stats *s, const char *name, enum stats_type type,
                                const char *unit, const char *desc)
{
    struct stats_ctr *c;
    struct slot *sl;
    size_t n;

    if (check_name(s, name))
        return NULL;
    if (!unit)
        unit = "";
    n = strlen(name);
    sl = lookup(s, name, n);
    if (sl->path) {
        c = sl->ctr;
        if (!c) {
            fail(s, -EEXIST,
                 "stats: \"%s\" is already a group of other counters; it cannot also be a "
                 "counter (name it e.g. \"%s.total\")",
                 name, name);
            return NULL;
        }
        if (c->type != type || strcmp(c->unit, unit)) {
            fail(s, -EEXIST,
                 "stats: \"%s\" is already defined as %s [%s]; asked for %s [%s] (one type and "
                 "unit per counter)",
                 name, type_name(c->type), c->unit, type_name(type), unit);
            return NULL;
        }
        return c;
    }
    /* Every proper prefix must be a group (or absent): check all before changing anything. */
    for (size_t i = 0; i < n; i++) {
        if (name[i] != '.')
            continue;
        struct slot *g = lookup(s, name, i);

        if (g->path && g->ctr) {
            fail(s, -EEXIST,
                 "stats: cannot define \"%s\": \"%s\" is a counter, so it cannot hold others", name,
                 g->path);
            return NULL;
        }
    }
    if (s->n_ctrs == s->cap_ctrs) {
        size_t cap = s->cap_ctrs ? 2 * s->cap_ctrs : 64;
        struct stats_ctr **a = realloc(s->ctrs, cap * sizeof(*a));

        if (!a)
            goto out_nomem;
        s->ctrs = a;
        s->cap_ctrs = cap;
    }
    c = calloc(1, sizeof(*c));
    if (!c)
        goto out_nomem;
    c->type = type;
    c->unit = strdup(unit);
    c->desc = strdup(desc ? desc : "");
    if (!c->unit || !c->desc || insert(s, name, n, c, &sl))
        goto out_free;
    c->name = sl->path;
    s->ctrs[s->n_ctrs++] = c;
    for (size_t i = 0; i < n; i++) {
        if (name[i] != '.' || lookup(s, name, i)->path)
            continue;
        /* A group missing from the table: add it (on failure the counter stays, harmless:
         * only the conflict check would miss this group). */
        if (insert(s, name, i, NULL, NULL)) {
            fail(s, -ENOMEM, "stats: out of memory");
            return NULL;
        }
    }
    return c;

out_free:
    free(c->unit);
    free(c->desc);
    free(c);
out_nomem:
    fail(s, -ENOMEM, "stats: out of memory defining \"%s\"", name);
    return NULL;
}

struct stats_ctr *stats_u64(struct stats *s, const char *name, const char *unit, const char *desc)
{
    return define(s, name, STATS_U64, unit, desc);
}

struct stats_ctr *stats_f64(struct stats *s, const char *name, const char *unit, const char *desc)
{
    return define(s, name, STATS_F64, unit, desc);
}

void stats_ctr_set_u64(struct stats_ctr *c, uint64_t v)
{
    assert(c->type == STATS_U64);
    c->v.u = v;
}

void stats_ctr_add_u64(struct stats_ctr *c, uint64_t delta)
{
    assert(c->type == STATS_U64);
    c->v.u += delta;
}

void stats_ctr_max_u64(struct stats_ctr *c, uint64_t v)
{
    assert(c->type == STATS_U64);
    if (v > c->v.u)
        c->v.u = v;
}

void stats_ctr_set_f64(struct stats_ctr *c, double v)
{
    assert(c->type == STATS_F64);
    c->v.d = v;
}

void stats_ctr_add_f64(struct stats_ctr *c, double delta)
{
    assert(c->type == STATS_F64);
    c->v.d += delta;
}

int stats_set_u64(struct stats *s, const char *name, const char *unit, const char *desc, uint64_t v)
{
    struct stats_ctr *c = stats_u64(s, name, unit, desc);

    if (!c)
        return s->code;
    c->v.u = v;
    return 0;
}

int stats_set_f64(struct stats *s, const char *name, const char *unit, const char *desc, double v)
{
    struct stats_ctr *c = stats_f64(s, name, unit, desc);

    if (!c)
        return s->code;
    c->v.d = v;
    return 0;
}

static struct stats_ctr *find_typed(struct stats *s, const char *name, enum stats_type t, int *rc)
{
    struct slot *sl = name ? lookup(s, name, strlen(name)) : NULL;

    if (!sl || !sl->path || !sl->ctr) {
        *rc =
            fail(s, -ENOENT, "stats: no counter \"%s\" (define it first)", name ? name : "(null)");
        return NULL;
    }
    if (sl->ctr->type != t) {
        *rc = fail(s, -EINVAL, "stats: \"%s\" is %s, not %s", name, type_name(sl->ctr->type),
                   type_name(t));
        return NULL;
    }
    return sl->ctr;
}

int stats_add_u64(struct stats *s, const char *name, uint64_t delta)
{
    int rc = 0;
    struct stats_ctr *c = find_typed(s, name, STATS_U64, &rc);

    if (c)
        c->v.u += delta;
    return rc;
}

int stats_add_f64(struct stats *s, const char *name, double delta)
{
    int rc = 0;
    struct stats_ctr *c = find_typed(s, name, STATS_F64, &rc);

    if (c)
        c->v.d += delta;
    return rc;
}

const struct stats_ctr *stats_find(const struct stats *s, const char *name)
{
    const struct slot *sl = lookup(s, name, strlen(name));

    return sl->path ? sl->ctr : NULL;
}

enum stats_type stats_ctr_type(const struct stats_ctr *c)
{
    return c->type;
}

uint64_t stats_ctr_u64(const struct stats_ctr *c)
{
    assert(c->type == STATS_U64);
    return c->v.u;
}

double stats_ctr_f64(const struct stats_ctr *c)
{
    assert(c->type == STATS_F64);
    return c->v.d;
}

const char *stats_ctr_name(const struct stats_ctr *c)
{
    return c->name;
}

const char *stats_ctr_unit(const struct stats_ctr *c)
{
    return c->unit;
}

size_t stats_count(const struct stats *s)
{
    return s->n_ctrs;
}

int stats_meta(struct stats *s, const char *key, const char *value)
{
    size_t n = key ? strlen(key) : 0;
    char *v;

    if (n < 1 || n > COMP_MAX)
        return fail(s, -EINVAL, "stats: meta key \"%s\" has %zu characters; accepted 1..%d",
                    key ? key : "(null)", n, COMP_MAX);
    for (size_t i = 0; i < n; i++)
        if (key[i] < 0x20 || key[i] > 0x7e)
            return fail(s, -EINVAL, "stats: meta key has a non-printable character at %zu", i);
    v = strdup(value ? value : "");
    if (!v)
        return fail(s, -ENOMEM, "stats: out of memory");
    for (size_t i = 0; i < s->n_meta; i++) {
        if (!strcmp(s->meta[i].key, key)) {
            free(s->meta[i].value);
            s->meta[i].value = v;
            return 0;
        }
    }
    if (s->n_meta == s->cap_meta) {
        size_t cap = s->cap_meta ? 2 * s->cap_meta : 16;
        struct meta *m = realloc(s->meta, cap * sizeof(*m));

        if (!m)
            goto out_nomem;
        s->meta = m;
        s->cap_meta = cap;
    }
    s->meta[s->n_meta].key = strdup(key);
    if (!s->meta[s->n_meta].key)
        goto out_nomem;
    s->meta[s->n_meta++].value = v;
    return 0;

out_nomem:
    free(v);
    return fail(s, -ENOMEM, "stats: out of memory");
}

/* ---- deterministic order ---- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Compare components a[0..la) and b[0..lb): digit runs by value, the rest bytewise; ties (as
 * "a01" vs "a1") fall back to bytewise so that the order is total. */
static int comp_cmp(const char *a, size_t la, const char *b, size_t lb)
{
    size_t i = 0, j = 0;

    while (i < la && j < lb) {
        if (is_digit(a[i]) && is_digit(b[j])) {
            size_t si = i, sj = j, ni, nj;

            while (si < la && a[si] == '0')
                si++;
            while (sj < lb && b[sj] == '0')
                sj++;
            ni = si;
            nj = sj;
            while (ni < la && is_digit(a[ni]))
                ni++;
            while (nj < lb && is_digit(b[nj]))
                nj++;
            if (ni - si != nj - sj)
                return ni - si < nj - sj ? -1 : 1;
            int c = memcmp(a + si, b + sj, ni - si);
            if (c)
                return c;
            i = ni;
            j = nj;
            continue;
        }
        if (a[i] != b[j])
            return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
        i++;
        j++;
    }
    if (i < la || j < lb)
        return i < la ? 1 : -1;
    int c = memcmp(a, b, la < lb ? la : lb);
    return c ? c : (la < lb ? -1 : la > lb);
}

static size_t comp_len(const char *p)
{
    const char *d = strchr(p, '.');

    return d ? (size_t)(d - p) : strlen(p);
}

static int path_cmp(const void *pa, const void *pb)
{
    const char *a = (*(struct stats_ctr *const *)pa)->name;
    const char *b = (*(struct stats_ctr *const *)pb)->name;

    for (;;) {
        size_t la = comp_len(a), lb = comp_len(b);
        int c = comp_cmp(a, la, b, lb);

        if (c)
            return c;
        a += la;
        b += lb;
        if (!*a || !*b)
            return *a ? 1 : *b ? -1 : 0;
        a++;
        b++;
    }
}

/* ---- JSON ---- */

static cJSON *leaf_json(const struct stats_ctr *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *v;
    char buf[32];

    if (!o)
        return NULL;
    if (c->type == STATS_U64) {
        snprintf(buf, sizeof(buf), "%" PRIu64, c->v.u);
        v = cJSON_AddRawToObject(o, "value", buf); /* exact: a double rounds above 2^53 */
    } else if (isfinite(c->v.d)) {
        v = cJSON_AddNumberToObject(o, "value", c->v.d);
    } else {
        v = cJSON_AddNullToObject(o, "value");
    }
    if (!v || !cJSON_AddStringToObject(o, "unit", c->unit) ||
        !cJSON_AddStringToObject(o, "desc", c->desc)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The "stats" object: groups nested by component, keys in path_cmp order. */
static cJSON *tree_json(struct stats *s)
{
    struct stats_ctr **sorted = NULL;
    cJSON *stack[STATS_NAME_MAX / 2 + 2];
    const char *open_name = ""; /* name of the previous counter: stack holds its groups */
    size_t depth = 0;           /* groups open below the root */
    cJSON *root = cJSON_CreateObject();
    char comp[COMP_MAX + 1];

    if (!root)
        return NULL;
    if (s->n_ctrs) {
        sorted = malloc(s->n_ctrs * sizeof(*sorted));
        if (!sorted)
            goto out_fail;
        memcpy(sorted, s->ctrs, s->n_ctrs * sizeof(*sorted));
        qsort(sorted, s->n_ctrs, sizeof(*sorted), path_cmp);
    }
    stack[0] = root;
    for (size_t i = 0; i < s->n_ctrs; i++) {
        const char *name = sorted[i]->name, *p = name, *q = open_name;
        size_t common = 0;
        cJSON *leaf;

        /* Groups shared with the previous counter stay open. */
        for (;;) {
            size_t lp = comp_len(p), lq = comp_len(q);

            if (!p[lp] || !q[lq] || common >= depth || lp != lq || memcmp(p, q, lp))
                break;
            common++;
            p += lp + 1;
            q += lq + 1;
        }
        depth = common;
        for (;;) {
            size_t lp = comp_len(p);

            memcpy(comp, p, lp);
            comp[lp] = '\0';
            if (!p[lp])
                break;
            cJSON *g = cJSON_AddObjectToObject(stack[depth], comp);
            if (!g)
                goto out_fail;
            stack[++depth] = g;
            p += lp + 1;
        }
        leaf = leaf_json(sorted[i]);
        if (!leaf || !cJSON_AddItemToObject(stack[depth], comp, leaf)) {
            cJSON_Delete(leaf);
            goto out_fail;
        }
        open_name = name;
    }
    free(sorted);
    return root;

out_fail:
    free(sorted);
    cJSON_Delete(root);
    return NULL;
}

int stats_write_json(struct stats *s, const char *path)
{
    cJSON *doc = cJSON_CreateObject(), *meta, *tree;
    struct afile af;
    char *text = NULL;
    int rc;

    if (!doc || !cJSON_AddStringToObject(doc, "format", "flashstream-stats") ||
        !cJSON_AddNumberToObject(doc, "version", 1) ||
        !(meta = cJSON_AddObjectToObject(doc, "meta")))
        goto out_nomem;
    for (size_t i = 0; i < s->n_meta; i++)
        if (!cJSON_AddStringToObject(meta, s->meta[i].key, s->meta[i].value))
            goto out_nomem;
    tree = tree_json(s);
    if (!tree)
        goto out_nomem;
    cJSON_AddItemToObject(doc, "stats", tree);
    text = cJSON_Print(doc);
    if (!text)
        goto out_nomem;
    cJSON_Delete(doc);
    doc = NULL;
    rc = afile_open(&af, path);
    if (rc) {
        free(text);
        return fail(s, rc, "stats: %s", af.msg);
    }
    if (fputs(text, af.f) < 0 || fputc('\n', af.f) < 0)
        afile_fail(&af, "write", errno);
    free(text);
    rc = afile_commit(&af);
    if (rc)
        return fail(s, rc, "stats: %s", af.msg);
    return 0;

out_nomem:
    cJSON_Delete(doc);
    free(text);
    return fail(s, -ENOMEM, "stats: out of memory writing '%s'", path);
}

/* ---- CSV ---- */

struct stats_csv {
    struct afile af;
    size_t ncols;
    size_t field; /* fields written in the current row */
    uint64_t rows;
    int err;
    char msg[640];
};

static int csv_fail(struct stats_csv *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int csv_fail(struct stats_csv *c, int code, const char *fmt, ...)
{
    va_list ap;

    if (c->err)
        return c->err;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
    va_end(ap);
    c->err = code;
    afile_fail(&c->af, "format", -code);
    return code;
}

static bool needs_quotes(const char *v)
{
    return strpbrk(v, ",\"\r\n") != NULL;
}

/* Write one field (quoted when needed), preceded by a comma unless it is the first. */
static int put_field(struct stats_csv *c, const char *v)
{
    FILE *f = c->af.f;

    if (c->err)
        return c->err;
    if (c->field >= c->ncols)
        return csv_fail(c, -EINVAL,
                        "csv '%s': row %" PRIu64 " has more than %zu fields (the header's count)",
                        c->af.path, c->rows + 1, c->ncols);
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
    return csv_fail(c, -(errno ? errno : EIO), "csv '%s': write failed: %s", c->af.path,
                    strerror(errno ? errno : EIO));
}

struct stats_csv *stats_csv_open(const char *path, size_t ncols, const char *const cols[],
                                 char *err, size_t errlen)
{
    struct stats_csv *c;

    if (ncols < 1) {
        if (err)
            snprintf(err, errlen, "csv '%s': no columns; accepted 1 or more", path);
        return NULL;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        if (err)
            snprintf(err, errlen, "csv '%s': out of memory", path);
        return NULL;
    }
    if (afile_open(&c->af, path)) {
        if (err)
            snprintf(err, errlen, "csv: %s", c->af.msg);
        free(c);
        return NULL;
    }
    c->ncols = ncols;
    for (size_t i = 0; i < ncols; i++)
        put_field(c, cols[i] ? cols[i] : "");
    if (!c->err && fputc('\n', c->af.f) == EOF)
        csv_fail(c, -EIO, "csv '%s': write failed", path);
    c->field = 0;
    if (c->err) {
        if (err)
            snprintf(err, errlen, "%s", c->msg);
        stats_csv_abort(c);
        return NULL;
    }
    return c;
}

int stats_csv_str(struct stats_csv *c, const char *v)
{
    return put_field(c, v ? v : "");
}

int stats_csv_u64(struct stats_csv *c, uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    return put_field(c, buf);
}

int stats_csv_i64(struct stats_csv *c, int64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%" PRId64, v);
    return put_field(c, buf);
}

int stats_csv_f64(struct stats_csv *c, double v)
{
    char buf[40];

    if (isnan(v))
        return put_field(c, "nan");
    if (isinf(v))
        return put_field(c, v > 0 ? "inf" : "-inf");
    snprintf(buf, sizeof(buf), "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof(buf), "%.17g", v);
    return put_field(c, buf);
}

int stats_csv_fixed(struct stats_csv *c, double v, int decimals)
{
    char buf[64];

    if (!isfinite(v))
        return stats_csv_f64(c, v);
    if (decimals < 0 || decimals > 17)
        return csv_fail(c, -EINVAL, "csv '%s': %d decimals; accepted 0..17", c->af.path, decimals);
    if (fabs(v) >= 1e30)
        return stats_csv_f64(c, v);
    snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return put_field(c, buf);
}

int stats_csv_end_row(struct stats_csv *c)
{
    if (c->err)
        return c->err;
    if (c->field != c->ncols)
        return csv_fail(c, -EINVAL, "csv '%s': row %" PRIu64 " has %zu fields; the header has %zu",
                        c->af.path, c->rows + 1, c->field, c->ncols);
    if (fputc('\n', c->af.f) == EOF)
        return csv_fail(c, -EIO, "csv '%s': write failed", c->af.path);
    c->field = 0;
    c->rows++;
    return 0;
}

int stats_csv_close(struct stats_csv *c, char *err, size_t errlen)
{
    int rc;

    if (!c->err && c->field)
        csv_fail(c, -EINVAL, "csv '%s': row %" PRIu64 " was left unfinished (%zu of %zu fields)",
                 c->af.path, c->rows + 1, c->field, c->ncols);
    if (c->err) {
        rc = c->err;
        if (err)
            snprintf(err, errlen, "%s", c->msg);
        stats_csv_abort(c);
        return rc;
    }
    rc = afile_commit(&c->af);
    if (rc && err)
        snprintf(err, errlen, "csv: %s", c->af.msg);
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

const char *stats_csv_errmsg(const struct stats_csv *c)
{
    return c->err ? c->msg : "";
}

uint64_t stats_csv_rows(const struct stats_csv *c)
{
    return c->rows;
}
