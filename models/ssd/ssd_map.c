#include "models/ssd/ssd_map.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int ssd_map_init(struct ssd_map *m, const struct ssd_geom *g, struct err *e)
{
    size_t units = g->units, heads = (size_t)g->dies * (g->unit_pages + 1);

    memset(m, 0, sizeof(*m));
    m->dies = g->dies;
    m->units_per_die = g->units_per_die;
    m->unit_pages = g->unit_pages;
    m->planes = g->planes;
    m->user_pages = g->user_pages;
    m->phys_pages = g->phys_pages;
    /* calloc: the kernel maps the zero pages of an untouched map lazily. */
    m->l2p = calloc(g->user_pages, sizeof(*m->l2p));
    m->p2l = calloc(g->phys_pages, sizeof(*m->p2l));
    m->unit = calloc(units, sizeof(*m->unit));
    m->bucket = malloc(heads * sizeof(*m->bucket));
    m->min_valid = calloc(g->dies, sizeof(*m->min_valid));
    m->free_pool = malloc(units * sizeof(*m->free_pool));
    m->n_free = calloc(g->dies, sizeof(*m->n_free));
    if (!m->l2p || !m->p2l || !m->unit || !m->bucket || !m->min_valid || !m->free_pool ||
        !m->n_free) {
        ssd_map_fini(m);
        return err_set(e, -ENOMEM,
                       "ssd map: out of memory for %llu logical and %llu physical pages",
                       (unsigned long long)g->user_pages, (unsigned long long)g->phys_pages);
    }
    for (size_t i = 0; i < heads; i++)
        m->bucket[i] = SSD_NONE;
    for (uint32_t d = 0; d < g->dies; d++) {
        m->min_valid[d] = g->unit_pages;
        for (uint32_t k = 0; k < g->units_per_die; k++)
            m->free_pool[d * g->units_per_die + k] = d * g->units_per_die + k;
        m->n_free[d] = g->units_per_die;
    }
    m->n_free_total = units;
    return 0;
}

void ssd_map_fini(struct ssd_map *m)
{
    free(m->l2p);
    free(m->p2l);
    free(m->unit);
    free(m->bucket);
    free(m->min_valid);
    free(m->free_pool);
    free(m->n_free);
    memset(m, 0, sizeof(*m));
}

static uint32_t *head_of(struct ssd_map *m, uint32_t die, uint32_t valid)
{
    return &m->bucket[(size_t)die * (m->unit_pages + 1) + valid];
}

static void bucket_insert(struct ssd_map *m, uint32_t u)
{
    uint32_t die = u / m->units_per_die, v = m->unit[u].valid;
    uint32_t *head = head_of(m, die, v);

    m->unit[u].prev = SSD_NONE;
    m->unit[u].next = *head;
    if (*head != SSD_NONE)
        m->unit[*head].prev = u;
    *head = u;
    if (v < m->min_valid[die])
        m->min_valid[die] = v;
}

static void bucket_remove(struct ssd_map *m, uint32_t u)
{
    struct ssd_unit *x = &m->unit[u];

    if (x->prev != SSD_NONE)
        m->unit[x->prev].next = x->next;
    else
        *head_of(m, u / m->units_per_die, x->valid) = x->next;
    if (x->next != SSD_NONE)
        m->unit[x->next].prev = x->prev;
}

static void invalidate(struct ssd_map *m, uint32_t ppn)
{
    uint32_t u = ssd_map_unit_of(m, ppn);
    struct ssd_unit *x = &m->unit[u];

    m->p2l[ppn] = 0;
    assert(x->valid > 0);
    if (x->state != SSD_UNIT_CLOSED) {
        x->valid--;
        return;
    }
    bucket_remove(m, u);
    x->valid--;
    bucket_insert(m, u);
}

/* The write path's checks hold by construction: ssd.c (buffer_page, gc_put, ssd_fast_skip)
 * writes only the pages of rows it took from an open unit's frontier, each once, and a unit's
 * pages are all invalid (p2l 0) when it is freed. They run in the sanitizer build (the tests);
 * in the release build their read of p2l, before its write, costs a page fault of its own on a
 * page the map touches first (about 5% of an SSD run). */
#ifdef __SANITIZE_ADDRESS__
#define WRITE_CHECK(c) assert(c)
#else
#define WRITE_CHECK(c) ((void)0)
#endif

void ssd_map_write(struct ssd_map *m, uint64_t lpn, uint32_t ppn)
{
    uint32_t old = ssd_map_ppn(m, lpn);
    struct ssd_unit *x = &m->unit[ssd_map_unit_of(m, ppn)];

    WRITE_CHECK(x->state == SSD_UNIT_OPEN && !m->p2l[ppn]);
    if (old != SSD_NONE)
        invalidate(m, old);
    m->l2p[lpn] = ppn + 1;
    m->p2l[ppn] = (uint32_t)lpn + 1;
    x->valid++;
}

void ssd_map_move(struct ssd_map *m, uint64_t lpn, uint32_t old, uint32_t ppn)
{
    struct ssd_unit *x = &m->unit[ssd_map_unit_of(m, ppn)];

    assert(x->state == SSD_UNIT_OPEN && !m->p2l[ppn]);
    invalidate(m, old);
    m->l2p[lpn] = ppn + 1;
    m->p2l[ppn] = (uint32_t)lpn + 1;
    x->valid++;
}

/* Whether free unit a goes before b: fewer erases, then the lower number. */
static bool before(const struct ssd_map *m, uint32_t a, uint32_t b)
{
    uint32_t ea = m->unit[a].erases, eb = m->unit[b].erases;

    return ea < eb || (ea == eb && a < b);
}

uint32_t ssd_map_alloc(struct ssd_map *m, uint32_t die)
{
    uint32_t *pool = &m->free_pool[(size_t)die * m->units_per_die];
    uint32_t n = m->n_free[die], u, last, i = 0;

    if (!n)
        return SSD_NONE;
    /* The heap's top; its last unit sifts down from the top. */
    u = pool[0];
    last = pool[--n];
    for (;;) {
        uint32_t c = 2 * i + 1;

        if (c >= n)
            break;
        if (c + 1 < n && before(m, pool[c + 1], pool[c]))
            c++;
        if (!before(m, pool[c], last))
            break;
        pool[i] = pool[c];
        i = c;
    }
    if (n)
        pool[i] = last;
    m->n_free[die] = n;
    m->n_free_total--;
    m->unit[u].state = SSD_UNIT_OPEN;
    m->unit[u].valid = 0;
    return u;
}

void ssd_map_close(struct ssd_map *m, uint32_t unit)
{
    assert(m->unit[unit].state == SSD_UNIT_OPEN);
    m->unit[unit].state = SSD_UNIT_CLOSED;
    bucket_insert(m, unit);
    m->n_closed++;
}

uint32_t ssd_map_pick_victim(struct ssd_map *m, uint32_t die)
{
    uint32_t v = m->min_valid[die], u;

    while (v <= m->unit_pages && *head_of(m, die, v) == SSD_NONE)
        v++;
    if (v > m->unit_pages) {
        m->min_valid[die] = m->unit_pages;
        return SSD_NONE;
    }
    m->min_valid[die] = v;
    u = *head_of(m, die, v);
    bucket_remove(m, u);
    m->unit[u].state = SSD_UNIT_VICTIM;
    m->n_closed--;
    return u;
}

void ssd_map_release(struct ssd_map *m, uint32_t unit)
{
    uint32_t die = unit / m->units_per_die, i = m->n_free[die]++;
    uint32_t *pool = &m->free_pool[(size_t)die * m->units_per_die];

    assert(m->unit[unit].state == SSD_UNIT_VICTIM && m->unit[unit].valid == 0);

    m->unit[unit].state = SSD_UNIT_FREE;
    m->unit[unit].erases++;
    /* Into the die's heap of free units (its erase count is now fixed while it is free). */
    while (i && before(m, unit, pool[(i - 1) / 2])) {
        pool[i] = pool[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    pool[i] = unit;
    m->n_free_total++;
}
