/*
 * dmat.c - DMA timing from the DMA twin, memoised by descriptor shape; see dmat.h.
 */
#include "models/node/dmat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/dma/dma_desc.h"
#include "models/dma/dma_env.h"
#include "models/dma/dma_twin.h"

#define TB_BASE   0x100000ull /* where a probe's tensor-buffer side is placed */
#define TB_ALIGN  64u         /* alignment classes of the tensor-buffer address */
#define MAX_CYCLE 100000000ull

struct key {
    uint64_t src_stride, dst_stride;
    uint32_t rows, len;
    uint32_t src_al, dst_al; /* address alignment classes */
    uint8_t store, xpose;
};

struct ent {
    struct key k;
    uint64_t cycles;
    uint8_t used;
};

struct dmat {
    struct dma_params params;
    struct dma_twin *tw;
    struct dma_env *env;
    struct ent *tab;
    size_t cap, n;
    uint64_t simulated, hits;
};

static void tw_set(void *h, const struct dma_in *in)
{
    dma_twin_set(h, in);
}

static void tw_get(void *h, struct dma_out *out)
{
    dma_twin_get(h, out);
}

static void tw_step(void *h, uint64_t n)
{
    dma_twin_step(h, n);
}

static const char *tw_error(void *h)
{
    return dma_twin_errors(h) ? dma_twin_error(h) : NULL;
}

int dmat_create(const struct dma_params *params, uint64_t period_ps, struct dmat **out, char *msg,
                size_t len)
{
    struct dmat *t = calloc(1, sizeof(*t));
    struct dma_env_cfg cfg;
    int rc;

    *out = NULL;
    if (!t) {
        snprintf(msg, len, "dma timing: out of memory");
        return -ENOMEM;
    }
    t->params = *params;
    rc = dma_twin_create(params, &t->tw, msg, len);
    if (rc)
        goto out_free;
    dma_env_cfg_default(&cfg);
    cfg.params = *params;
    cfg.port.period_ps = period_ps;
    cfg.dram.size_bytes =
        params->tb_bytes < cfg.dram.size_bytes ? cfg.dram.size_bytes : params->tb_bytes;
    struct dma_dut dut = {"dma-twin", t->tw, tw_set, tw_get, tw_step, tw_error};
    rc = dma_env_create(&cfg, &dut, NULL, &t->env, msg, len);
    if (rc)
        goto out_twin;
    t->cap = 256;
    t->tab = calloc(t->cap, sizeof(*t->tab));
    if (!t->tab) {
        rc = -ENOMEM;
        snprintf(msg, len, "dma timing: out of memory");
        goto out_env;
    }
    *out = t;
    return 0;

out_env:
    dma_env_destroy(t->env);
out_twin:
    dma_twin_destroy(t->tw);
out_free:
    free(t);
    return rc;
}

void dmat_destroy(struct dmat *t)
{
    if (!t)
        return;
    dma_env_destroy(t->env);
    dma_twin_destroy(t->tw);
    free(t->tab);
    free(t);
}

static uint64_t hash(const struct key *k)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *p = (const unsigned char *)k;
    for (size_t i = 0; i < sizeof(*k); i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static struct ent *find(struct dmat *t, const struct key *k)
{
    size_t i = hash(k) & (t->cap - 1);
    while (t->tab[i].used && memcmp(&t->tab[i].k, k, sizeof(*k)) != 0)
        i = (i + 1) & (t->cap - 1);
    return &t->tab[i];
}

static int grow(struct dmat *t)
{
    struct ent *old = t->tab;
    size_t oc = t->cap;
    t->cap *= 2;
    t->tab = calloc(t->cap, sizeof(*t->tab));
    if (!t->tab) {
        t->tab = old;
        t->cap = oc;
        return -ENOMEM;
    }
    for (size_t i = 0; i < oc; i++)
        if (old[i].used)
            *find(t, &old[i].k) = old[i];
    free(old);
    return 0;
}

int dmat_cycles(struct dmat *t, const struct dma_desc *d, uint64_t *cycles, char *msg, size_t len)
{
    struct key k;
    struct dma_desc p = *d;
    int rc;

    memset(&k, 0, sizeof(k));
    k.store = d->store;
    k.xpose = d->xpose;
    k.rows = d->rows;
    k.len = d->len;
    k.src_stride = d->src_stride;
    k.dst_stride = d->dst_stride;
    /* tensor-buffer side: alignment class only; SRAM side: the address itself (small map) */
    if (d->store) {
        k.src_al = (uint32_t)d->src;
        k.dst_al = (uint32_t)(d->dst % TB_ALIGN);
        p.dst = TB_BASE + d->dst % TB_ALIGN;
    } else {
        k.src_al = (uint32_t)(d->src % TB_ALIGN);
        k.dst_al = (uint32_t)d->dst;
        p.src = TB_BASE + d->src % TB_ALIGN;
    }
    struct ent *e = find(t, &k);
    if (e->used) {
        t->hits++;
        *cycles = e->cycles;
        return 0;
    }
    enum dma_status st = dma_desc_check(&p, &t->params);
    if (st != DMA_ST_OK) {
        char b[160];
        dma_desc_format(d, b, sizeof(b));
        snprintf(msg, len, "dma: descriptor rejected (%s): %s", dma_status_name(st), b);
        return -EINVAL;
    }
    dma_env_clear_cpls(t->env);
    rc = dma_env_submit(t->env, &p);
    if (!rc)
        rc = dma_env_run(t->env, MAX_CYCLE);
    if (rc || dma_env_ncpl(t->env) != 1) {
        snprintf(msg, len, "dma timing probe failed: %s", dma_env_error(t->env));
        return rc ? rc : -EIO;
    }
    const struct dma_env_cpl *c = dma_env_cpl(t->env, 0);
    if (c->cpl.status != DMA_ST_OK) {
        snprintf(msg, len, "dma timing probe: status %s", dma_status_name(c->cpl.status));
        return -EIO;
    }
    t->simulated++;
    if ((t->n + 1) * 2 > t->cap) {
        if (grow(t)) {
            snprintf(msg, len, "dma timing: out of memory");
            return -ENOMEM;
        }
        e = find(t, &k);
    }
    e->k = k;
    e->cycles = c->done - c->accepted;
    e->used = 1;
    t->n++;
    *cycles = e->cycles;
    return 0;
}

uint64_t dmat_simulated(const struct dmat *t)
{
    return t->simulated;
}

uint64_t dmat_hits(const struct dmat *t)
{
    return t->hits;
}
