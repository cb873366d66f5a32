/*
 * stats.c - the counter registry: counters defined, set and found by path, the run's meta and
 * configuration values; see stats.h (stats.json: stats_json.c; the CSV tables: stats_csv.c; what
 * the registry and stats.json share: stats_priv.h).
 *
 * Counters are allocated one by one (stable handles) and found through an open-addressing hash
 * table of every path, counters and the groups above them, so that a leaf/group conflict is
 * one lookup per path component.
 */
#include "csim/stats_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
