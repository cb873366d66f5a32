#include "models/ssd/ssd_map.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int ssd_map_init(struct ssd_map *m, const struct ssd_geom *g, struct err *e)
{
    size_t units = g->units;

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
    m->free_pool = malloc(units * sizeof(*m->free_pool));
    m->n_free = calloc(g->dies, sizeof(*m->n_free));
    if (!m->l2p || !m->p2l || !m->unit || !m->free_pool || !m->n_free) {
        ssd_map_fini(m);
        return err_set(e, -ENOMEM,
                       "ssd map: out of memory for %llu logical and %llu physical pages",
                       (unsigned long long)g->user_pages, (unsigned long long)g->phys_pages);
    }
    for (uint32_t d = 0; d < g->dies; d++) {
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
    free(m->free_pool);
    free(m->n_free);
    memset(m, 0, sizeof(*m));
}

static void invalidate(struct ssd_map *m, uint32_t ppn)
{
    uint32_t u = ssd_map_unit_of(m, ppn);
    struct ssd_unit *x = &m->unit[u];

    m->p2l[ppn] = 0;
    assert(x->valid > 0);
    x->valid--;
    if (x->state == SSD_UNIT_CLOSED)
        x->seq = ++m->seq;
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
    m->unit[unit].seq = ++m->seq;
    m->n_closed++;
}

uint32_t ssd_map_pick_victim(struct ssd_map *m, uint32_t die)
{
    const struct ssd_unit *x = &m->unit[(size_t)die * m->units_per_die];
    uint32_t best = SSD_NONE;

    for (uint32_t k = 0; k < m->units_per_die; k++) {
        if (x[k].state != SSD_UNIT_CLOSED)
            continue;
        if (best == SSD_NONE || x[k].valid < x[best].valid ||
            (x[k].valid == x[best].valid && x[k].seq > x[best].seq))
            best = k;
    }
    if (best == SSD_NONE)
        return SSD_NONE;
    best += die * m->units_per_die;
    m->unit[best].state = SSD_UNIT_VICTIM;
    m->n_closed--;
    return best;
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
