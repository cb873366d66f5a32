#include "testbench/dma/dma_scn.h"
#include "csim/rng.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILL_MAX (64ull << 20)

struct win {
    uint64_t lo, hi; /* [lo, hi) in the tensor buffer */
};

struct dma_scn {
    struct dma_env *e;
    struct dram *ref_tb; /* reference tensor buffer (same size as the env's) */
    uint8_t *ref_sram;
    uint64_t sram_bytes;
    uint64_t rng;
    struct dma_desc *d;
    size_t n, cap, checked;
    struct win *w; /* tensor-buffer destination windows still to compare */
    size_t nw, wcap;
    uint64_t bytes;
};

int dma_scn_create(const struct dma_scn_cfg *cfg, struct dma_env *e, struct dma_scn **out,
                   struct err *err)
{
    struct dma_scn *s = calloc(1, sizeof(*s));
    int rc;

    *out = NULL;
    if (!s)
        return err_set(err, -ENOMEM, "dma_scn: out of memory");
    s->e = e;
    s->rng = cfg->seed ^ 0xd1ce5ull;
    struct dram_cfg tb = *dram_get_cfg(dma_env_dram(e));
    struct dma_params p;
    rc = dram_create(&tb, &s->ref_tb, err);
    if (rc) {
        err_prefix(err, rc, "dma_scn: reference tensor buffer");
        goto out_free;
    }
    dma_env_params(e, &p);
    s->sram_bytes = p.sram_bytes;
    s->ref_sram = malloc(s->sram_bytes);
    if (!s->ref_sram) {
        rc = err_set(err, -ENOMEM,
                     "dma_scn: out of memory for a reference SRAM of %" PRIu64 " bytes",
                     s->sram_bytes);
        goto out_free;
    }
    memcpy(s->ref_sram, dma_sram_bytes(dma_env_sram(e)), s->sram_bytes);
    *out = s;
    return 0;

out_free:
    dma_scn_destroy(s);
    return rc;
}

void dma_scn_destroy(struct dma_scn *s)
{
    if (!s)
        return;
    dram_destroy(s->ref_tb);
    free(s->ref_sram);
    free(s->d);
    free(s->w);
    free(s);
}

/* Fill [addr, addr + len) of one memory, clipped to it, in the env and the reference. */
static int fill(struct dma_scn *s, bool tb, uint64_t addr, uint64_t len, struct err *err)
{
    const char *mem = tb ? "tensor buffer" : "SRAM";
    uint64_t size = tb ? dram_get_cfg(s->ref_tb)->size_bytes : s->sram_bytes;
    if (addr >= size)
        return 0;
    if (len > size - addr)
        len = size - addr;
    if (len > FILL_MAX)
        return err_set(err, -EINVAL,
                       "dma_scn: %s region 0x%" PRIx64 "+%" PRIu64
                       " to fill; accepted at most %llu "
                       "bytes",
                       mem, addr, len, (unsigned long long)FILL_MAX);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return err_set(err, -ENOMEM, "dma_scn: out of memory filling %" PRIu64 " bytes", len);
    for (uint64_t i = 0; i < len; i += 8) {
        uint64_t r = rng_next(&s->rng);
        for (uint64_t j = 0; j < 8 && i + j < len; j++)
            buf[i + j] = (uint8_t)(r >> (8 * j));
    }
    int rc = 0;
    if (tb) {
        rc = dram_write(dma_env_dram(s->e), addr, buf, len);
        if (!rc)
            rc = dram_write(s->ref_tb, addr, buf, len);
    } else {
        memcpy(dma_sram_bytes(dma_env_sram(s->e)) + addr, buf, len);
        memcpy(s->ref_sram + addr, buf, len);
    }
    free(buf);
    if (rc)
        return err_set(err, rc, "dma_scn: %s region 0x%" PRIx64 "+%" PRIu64 " is outside it", mem,
                       addr, len);
    return 0;
}

int dma_scn_add(struct dma_scn *s, const struct dma_desc *d, struct err *err)
{
    struct dma_desc t = *d;
    dma_desc_truncate(&t);
    int rc;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct dma_desc *n = realloc(s->d, cap * sizeof(*n));
        if (!n)
            return err_set(err, -ENOMEM, "dma_scn: out of memory for %zu descriptors", cap);
        s->d = n;
        s->cap = cap;
    }
    if (s->nw == s->wcap) {
        size_t cap = s->wcap ? 2 * s->wcap : 64;
        struct win *n = realloc(s->w, cap * sizeof(*n));
        if (!n)
            return err_set(err, -ENOMEM, "dma_scn: out of memory for %zu windows", cap);
        s->w = n;
        s->wcap = cap;
    }
    /* Source rows (a bad descriptor's too: they must stay as they are). */
    uint32_t rows = t.rows < 4096 ? t.rows : 4096;
    for (uint32_t r = 0; r < rows; r++)
        if ((rc = fill(s, !t.store, t.src + r * t.src_stride, t.len, err)))
            return rc;
    /* Destination window with guards. */
    uint64_t end = dma_desc_dst_end(&t);
    uint64_t lo = t.dst > DMA_SCN_GUARD ? t.dst - DMA_SCN_GUARD : 0;
    uint64_t hi = end + DMA_SCN_GUARD;
    if (t.rows && t.len && hi - lo <= FILL_MAX) {
        if ((rc = fill(s, t.store, lo, hi - lo, err)))
            return rc;
        if (t.store)
            s->w[s->nw++] = (struct win){lo, hi};
    }
    if ((rc = dma_env_submit(s->e, &t, err)))
        return rc;
    s->d[s->n++] = t;
    return 0;
}

/* Reference accessors: bytes outside the real memory read as zero and are not written. */
static int ref_tb_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct dram *d = ctx;
    uint64_t size = dram_get_cfg(d)->size_bytes;
    memset(buf, 0, len);
    if (addr >= size)
        return 0;
    return dram_read(d, addr, buf, len < size - addr ? len : size - addr);
}

static int ref_tb_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct dram *d = ctx;
    uint64_t size = dram_get_cfg(d)->size_bytes;
    if (addr >= size)
        return 0;
    return dram_write(d, addr, buf, len < size - addr ? len : size - addr);
}

struct ref_sram {
    uint8_t *m;
    uint64_t size;
};

static int ref_sram_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct ref_sram *r = ctx;
    if (addr > r->size || len > r->size - addr)
        return -ERANGE;
    memcpy(buf, r->m + addr, len);
    return 0;
}

static int ref_sram_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct ref_sram *r = ctx;
    if (addr > r->size || len > r->size - addr)
        return -ERANGE;
    memcpy(r->m + addr, buf, len);
    return 0;
}

static const struct dma_mem_ops ref_tb_ops = {.read = ref_tb_read, .write = ref_tb_write};
static const struct dma_mem_ops ref_sram_ops = {.read = ref_sram_read, .write = ref_sram_write};

int dma_scn_check(struct dma_scn *s, struct err *err)
{
    struct dma_env *e = s->e;
    struct dma_params p;
    char what[256];
    dma_env_params(e, &p);
    uint64_t tb_real = dram_get_cfg(s->ref_tb)->size_bytes;
    struct ref_sram rs = {s->ref_sram, s->sram_bytes};
    size_t ncpl = dma_env_ncpl(e);

    if (ncpl != s->n - s->checked) {
        return err_set(err, -EIO, "%zu completions for %zu descriptors", ncpl, s->n - s->checked);
    }
    for (size_t i = 0; i < ncpl; i++) {
        const struct dma_desc *d = &s->d[s->checked + i];
        const struct dma_cpl *c = &dma_env_cpl(e, i)->cpl;
        unsigned want = dma_desc_check(d, &p);
        dma_desc_format(d, what, sizeof(what));
        if (want == DMA_ST_OK) {
            uint64_t tb_lo = d->store ? d->dst : d->src;
            uint64_t tb_end = d->store ? dma_desc_dst_end(d) : dma_desc_src_end(d);
            /* Beats the DMA touches reach to the next multiple of 8. */
            if ((tb_end + 7) / 8 * 8 > tb_real || tb_lo / 8 * 8 >= tb_real)
                want = DMA_ST_MEM_ERR;
            int rc = d->store ? dma_desc_apply(d, &ref_sram_ops, &rs, &ref_tb_ops, s->ref_tb)
                              : dma_desc_apply(d, &ref_tb_ops, s->ref_tb, &ref_sram_ops, &rs);
            if (rc) {
                return err_set(err, -EIO, "descriptor %zu (%s): reference apply failed (%d)",
                               s->checked + i, what, rc);
            }
            s->bytes += (uint64_t)d->rows * d->len;
        }
        if (c->tag != d->tag || c->status != want) {
            return err_set(err, -EIO,
                           "descriptor %zu (%s): completion tag %u status %s, expected tag %u "
                           "status %s",
                           s->checked + i, what, c->tag, dma_status_name(c->status), d->tag,
                           dma_status_name(want));
        }
    }
    /* Whole SRAM. */
    const uint8_t *got = dma_sram_bytes(dma_env_sram(e));
    for (uint64_t a = 0; a < s->sram_bytes; a++)
        if (got[a] != s->ref_sram[a]) {
            return err_set(err, -EIO, "SRAM byte %#" PRIx64 " is %#04x, expected %#04x", a, got[a],
                           s->ref_sram[a]);
        }
    /* Tensor-buffer windows. */
    uint8_t buf[4096], want[4096];
    for (size_t i = 0; i < s->nw; i++) {
        for (uint64_t a = s->w[i].lo; a < s->w[i].hi && a < tb_real; a += sizeof(buf)) {
            size_t n = (size_t)(s->w[i].hi - a < sizeof(buf) ? s->w[i].hi - a : sizeof(buf));
            if (n > tb_real - a)
                n = (size_t)(tb_real - a);
            dram_read(dma_env_dram(e), a, buf, n);
            dram_read(s->ref_tb, a, want, n);
            for (size_t j = 0; j < n; j++)
                if (buf[j] != want[j]) {
                    return err_set(err, -EIO,
                                   "tensor-buffer byte %#" PRIx64 " is %#04x, expected %#04x "
                                   "(window %#" PRIx64 "..%#" PRIx64 ")",
                                   a + j, buf[j], want[j], s->w[i].lo, s->w[i].hi);
                }
        }
    }
    s->nw = 0;
    s->checked = s->n;
    dma_env_clear_cpls(e);
    return 0;
}

/* Uniform in [lo, hi]. */
static uint64_t pick(struct dma_scn *s, uint64_t lo, uint64_t hi)
{
    return hi <= lo ? lo : lo + rng_next(&s->rng) % (hi - lo + 1);
}

void dma_scn_random(struct dma_scn *s, enum dma_scn_kind kind, uint32_t max_rows, uint32_t max_len,
                    uint64_t tb_window, struct dma_desc *out)
{
    struct dma_params p;
    dma_env_params(s->e, &p);
    if (kind == DMA_SCN_ANY)
        kind = (enum dma_scn_kind)pick(s, DMA_SCN_LOAD, DMA_SCN_XPOSE);
    struct dma_desc d = {.store = kind == DMA_SCN_STORE, .xpose = kind == DMA_SCN_XPOSE};
    d.tag = (uint8_t)s->n;
    for (;;) {
        d.rows = (uint32_t)pick(s, 1, max_rows);
        d.len = (uint32_t)pick(s, 1, max_len);
        if (d.xpose)
            d.len = (d.len + 1) & ~1u;
        d.src_stride = pick(s, d.len, 2ull * d.len + 17);
        uint64_t drows, dlen;
        dma_desc_dst_shape(&d, &drows, &dlen);
        d.dst_stride = pick(s, dlen, 2 * dlen + 17);
        if (pick(s, 0, 3) == 0)
            d.src_stride = pick(s, 0, d.len); /* overlapping source rows are fine */
        /* Extents without the base address. */
        d.src = d.dst = 0;
        uint64_t src_ext = dma_desc_src_end(&d), dst_ext = dma_desc_dst_end(&d);
        uint64_t sram_ext = d.store ? src_ext : dst_ext;
        uint64_t tb_ext = d.store ? dst_ext : src_ext;
        if (sram_ext > p.sram_bytes || tb_ext > tb_window) {
            max_rows = max_rows > 1 ? max_rows / 2 : 1;
            max_len = max_len > 2 ? max_len / 2 : 2;
            continue;
        }
        uint64_t sram_at = pick(s, 0, p.sram_bytes - sram_ext);
        uint64_t tb_at;
        if (pick(s, 0, 1) && tb_window >= tb_ext + 8192) {
            /* A little before a 4 KiB boundary. */
            uint64_t page = pick(s, 1, (tb_window - tb_ext) / 4096);
            tb_at = page * 4096 - pick(s, 1, 24);
        } else {
            tb_at = pick(s, 0, tb_window - tb_ext);
        }
        d.src = d.store ? sram_at : tb_at;
        d.dst = d.store ? tb_at : sram_at;
        break;
    }
    *out = d;
}

size_t dma_scn_count(const struct dma_scn *s)
{
    return s->n;
}

uint64_t dma_scn_bytes(const struct dma_scn *s)
{
    return s->bytes;
}
