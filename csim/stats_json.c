/*
 * stats_json.c - stats.json: the registry's counters in a deterministic order (path components
 * compared with digit runs by value), nested by group, with the meta and configuration values;
 * see stats.h.
 */
#include "csim/stats_priv.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/afile.h"

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
