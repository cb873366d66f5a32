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

/* One value of the run's configuration ("config" in the JSON). */
struct cfgval {
    char *section, *key, *value;
    enum stats_cfg_kind kind;
};

struct stats {
    struct stats_ctr **ctrs; /* in definition order */
    size_t n_ctrs, cap_ctrs;
    struct slot *tab; /* open addressing, power-of-two size, at most half full */
    size_t n_tab, cap_tab;
    struct meta *meta;
    size_t n_meta, cap_meta;
    struct cfgval *cfg; /* in insertion order */
    size_t n_cfg, cap_cfg;
};

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

int stats_create(struct stats **out, struct err *e)
{
    struct stats *s = calloc(1, sizeof(*s));

    *out = NULL;
    if (!s || grow_table(s)) {
        free(s);
        return err_set(e, -ENOMEM, "stats: out of memory");
    }
    *out = s;
    return 0;
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
    for (size_t i = 0; i < s->n_cfg; i++) {
        free(s->cfg[i].section);
        free(s->cfg[i].key);
        free(s->cfg[i].value);
    }
    free(s->cfg);
    free(s->tab);
    free(s->ctrs);
    free(s);
}

static bool comp_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static int check_name(const char *name, struct err *e)
{
    size_t n, comp = 0;

    if (!name || !*name)
        return err_set(e, -EINVAL,
                       "stats: empty counter name; accepted a dot-separated path such "
                       "as \"an0.core.busy_ps\"");
    n = strlen(name);
    if (n > STATS_NAME_MAX)
        return err_set(e, -EINVAL,
                       "stats: counter name \"%.40s...\" has %zu characters; accepted "
                       "at most %d",
                       name, n, STATS_NAME_MAX);
    for (size_t i = 0; i <= n; i++) {
        char c = name[i];

        if (c == '.' || c == '\0') {
            if (comp == 0)
                return err_set(
                    e, -EINVAL,
                    "stats: counter name \"%s\" has an empty component at character %zu; "
                    "accepted components of 1..%d characters [A-Za-z0-9_-] joined by '.'",
                    name, i, COMP_MAX);
            comp = 0;
        } else if (!comp_char(c)) {
            return err_set(
                e, -EINVAL,
                "stats: counter name \"%s\" has '%c' (0x%02x) at character %zu; accepted "
                "[A-Za-z0-9_-] and '.' between components",
                name, c >= 0x20 && c < 0x7f ? c : '?', (unsigned char)c, i);
        } else if (++comp > COMP_MAX) {
            return err_set(e, -EINVAL,
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

static int define(struct stats *s, const char *name, enum stats_type type, const char *unit,
                  const char *desc, struct stats_ctr **out, struct err *e)
{
    struct stats_ctr *c;
    struct slot *sl;
    size_t n;
    int rc;

    *out = NULL;
    rc = check_name(name, e);
    if (rc)
        return rc;
    if (!unit)
        unit = "";
    n = strlen(name);
    sl = lookup(s, name, n);
    if (sl->path) {
        c = sl->ctr;
        if (!c)
            return err_set(e, -EEXIST,
                           "stats: \"%s\" is already a group of other counters; it cannot also "
                           "be a counter (name it e.g. \"%s.total\")",
                           name, name);
        if (c->type != type || strcmp(c->unit, unit))
            return err_set(e, -EEXIST,
                           "stats: \"%s\" is already defined as %s [%s]; asked for %s [%s] (one "
                           "type and unit per counter)",
                           name, type_name(c->type), c->unit, type_name(type), unit);
        *out = c;
        return 0;
    }
    /* Every proper prefix must be a group (or absent): check all before changing anything. */
    for (size_t i = 0; i < n; i++) {
        if (name[i] != '.')
            continue;
        struct slot *g = lookup(s, name, i);

        if (g->path && g->ctr)
            return err_set(e, -EEXIST,
                           "stats: cannot define \"%s\": \"%s\" is a counter, so it cannot hold "
                           "others",
                           name, g->path);
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
        if (insert(s, name, i, NULL, NULL))
            return err_set(e, -ENOMEM, "stats: out of memory");
    }
    *out = c;
    return 0;

out_free:
    free(c->unit);
    free(c->desc);
    free(c);
out_nomem:
    return err_set(e, -ENOMEM, "stats: out of memory defining \"%s\"", name);
}

int stats_u64(struct stats *s, const char *name, const char *unit, const char *desc,
              struct stats_ctr **out, struct err *e)
{
    return define(s, name, STATS_U64, unit, desc, out, e);
}

int stats_f64(struct stats *s, const char *name, const char *unit, const char *desc,
              struct stats_ctr **out, struct err *e)
{
    return define(s, name, STATS_F64, unit, desc, out, e);
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

int stats_set_u64(struct stats *s, const char *name, const char *unit, const char *desc, uint64_t v,
                  struct err *e)
{
    struct stats_ctr *c;
    int rc = stats_u64(s, name, unit, desc, &c, e);

    if (rc)
        return rc;
    c->v.u = v;
    return 0;
}

int stats_set_f64(struct stats *s, const char *name, const char *unit, const char *desc, double v,
                  struct err *e)
{
    struct stats_ctr *c;
    int rc = stats_f64(s, name, unit, desc, &c, e);

    if (rc)
        return rc;
    c->v.d = v;
    return 0;
}

static int find_typed(struct stats *s, const char *name, enum stats_type t, struct stats_ctr **out,
                      struct err *e)
{
    struct slot *sl = name ? lookup(s, name, strlen(name)) : NULL;

    if (!sl || !sl->path || !sl->ctr)
        return err_set(e, -ENOENT, "stats: no counter \"%s\" (define it first)",
                       name ? name : "(null)");
    if (sl->ctr->type != t)
        return err_set(e, -EINVAL, "stats: \"%s\" is %s, not %s", name, type_name(sl->ctr->type),
                       type_name(t));
    *out = sl->ctr;
    return 0;
}

int stats_add_u64(struct stats *s, const char *name, uint64_t delta, struct err *e)
{
    struct stats_ctr *c;
    int rc = find_typed(s, name, STATS_U64, &c, e);

    if (!rc)
        c->v.u += delta;
    return rc;
}

int stats_add_f64(struct stats *s, const char *name, double delta, struct err *e)
{
    struct stats_ctr *c;
    int rc = find_typed(s, name, STATS_F64, &c, e);

    if (!rc)
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

int stats_meta(struct stats *s, const char *key, const char *value, struct err *e)
{
    size_t n = key ? strlen(key) : 0;
    char *v;

    if (n < 1 || n > COMP_MAX)
        return err_set(e, -EINVAL, "stats: meta key \"%s\" has %zu characters; accepted 1..%d",
                       key ? key : "(null)", n, COMP_MAX);
    for (size_t i = 0; i < n; i++)
        if (key[i] < 0x20 || key[i] > 0x7e)
            return err_set(e, -EINVAL, "stats: meta key has a non-printable character at %zu", i);
    v = strdup(value ? value : "");
    if (!v)
        return err_set(e, -ENOMEM, "stats: out of memory");
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
    return err_set(e, -ENOMEM, "stats: out of memory");
}

/* Whether text is a JSON number: strtod reads all of it, and it has only the characters of
 * one (no "inf", "nan", hexadecimal or leading '+'). */
static bool json_number(const char *text)
{
    char *end;

    if (!*text || text[0] == '+' || strspn(text, "0123456789.eE+-") != strlen(text))
        return false;
    (void)strtod(text, &end);
    return *end == '\0';
}

int stats_config(struct stats *s, const char *section, const char *key, enum stats_cfg_kind kind,
                 const char *value, struct err *e)
{
    struct cfgval *c = NULL;
    char *v;

    if ((kind == STATS_CFG_NUMBER && !json_number(value)) ||
        (kind == STATS_CFG_BOOL && strcmp(value, "true") && strcmp(value, "false")))
        return err_set(e, -EINVAL, "stats: config %s.%s = '%s' is not a JSON %s", section, key,
                       value, kind == STATS_CFG_BOOL ? "true or false" : "number");
    for (size_t i = 0; i < s->n_cfg && !c; i++)
        if (!strcmp(s->cfg[i].section, section) && !strcmp(s->cfg[i].key, key))
            c = &s->cfg[i];
    v = strdup(value);
    if (!v)
        return err_set(e, -ENOMEM, "stats: out of memory");
    if (c) {
        free(c->value);
        c->value = v;
        c->kind = kind;
        return 0;
    }
    if (s->n_cfg == s->cap_cfg) {
        size_t cap = s->cap_cfg ? 2 * s->cap_cfg : 64;
        struct cfgval *n = realloc(s->cfg, cap * sizeof(*n));

        if (!n) {
            free(v);
            return err_set(e, -ENOMEM, "stats: out of memory");
        }
        s->cfg = n;
        s->cap_cfg = cap;
    }
    c = &s->cfg[s->n_cfg];
    c->section = strdup(section);
    c->key = strdup(key);
    c->value = v;
    c->kind = kind;
    if (!c->section || !c->key) {
        free(c->section);
        free(c->key);
        free(v);
        return err_set(e, -ENOMEM, "stats: out of memory");
    }
    s->n_cfg++;
    return 0;
}

/* The "config" object: sections in the order of their first value. NULL: out of memory. */
static cJSON *config_json(const struct stats *s)
{
    cJSON *root = cJSON_CreateObject();

    for (size_t i = 0; root && i < s->n_cfg; i++) {
        const struct cfgval *c = &s->cfg[i];
        cJSON *sec = cJSON_GetObjectItemCaseSensitive(root, c->section), *v;

        if (!sec)
            sec = cJSON_AddObjectToObject(root, c->section);
        v = c->kind == STATS_CFG_NUMBER ? cJSON_CreateRaw(c->value)
            : c->kind == STATS_CFG_BOOL ? cJSON_CreateBool(!strcmp(c->value, "true"))
                                        : cJSON_CreateString(c->value);
        if (!sec || !v || !cJSON_AddItemToObject(sec, c->key, v)) {
            cJSON_Delete(v);
            cJSON_Delete(root);
            return NULL;
        }
    }
    return root;
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

int stats_write_json(struct stats *s, const char *path, struct err *e)
{
    cJSON *doc = cJSON_CreateObject(), *meta, *tree, *config;
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
    if (s->n_cfg) {
        config = config_json(s);
        if (!config)
            goto out_nomem;
        cJSON_AddItemToObject(doc, "config", config);
    }
    tree = tree_json(s);
    if (!tree)
        goto out_nomem;
    cJSON_AddItemToObject(doc, "stats", tree);
    text = cJSON_Print(doc);
    if (!text)
        goto out_nomem;
    cJSON_Delete(doc);
    doc = NULL;
    rc = afile_open(&af, path, e);
    if (rc) {
        free(text);
        return err_prefix(e, rc, "stats");
    }
    if (fputs(text, af.f) < 0 || fputc('\n', af.f) < 0)
        afile_fail(&af, "write", errno);
    free(text);
    rc = afile_commit(&af, e);
    if (rc)
        return err_prefix(e, rc, "stats");
    return 0;

out_nomem:
    cJSON_Delete(doc);
    free(text);
    return err_set(e, -ENOMEM, "stats: out of memory writing '%s'", path);
}

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
