/*
 * core_be.c - the C-twin backend and the lockstep pair; see core_be.h.
 */
#include "models/core/core_be.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- tlm: the twin */

struct tlm {
    struct core_twin *t;
    struct core_twin_map map;
    uint64_t cycles; /* sum of command cycles: the twin's notion of time */
};

static int tlm_create(const struct core_params *cfg, uint64_t seed, void **out, struct err *e)
{
    struct tlm *h = calloc(1, sizeof(*h));
    int rc;

    (void)seed;
    *out = NULL;
    if (!h)
        return err_set(e, -ENOMEM, "core twin: out of memory");
    rc = core_twin_create(cfg, &h->t, e);
    if (rc) {
        free(h);
        if (rc == -EINVAL)
            return err_prefix(e, rc, "core twin: bad configuration %ux%u pads %u/%u/%u words",
                              cfg->rows, cfg->cols, cfg->a_words, cfg->b_words, cfg->c_words);
        return err_prefix(e, rc, "core twin");
    }
    core_twin_map(cfg, &h->map);
    *out = h;
    return 0;
}

static void tlm_destroy(void *p)
{
    struct tlm *h = p;
    if (!h)
        return;
    core_twin_destroy(h->t);
    free(h);
}

/* The pads are little-endian element arrays: on a little-endian host the byte map is memory. */
static unsigned char *tlm_ptr(struct tlm *h, uint32_t addr, size_t len)
{
    const struct core_twin_map *m = &h->map;
    if ((uint64_t)addr + len > m->end)
        return NULL;
    if (addr < m->b_base)
        return addr + len <= m->b_base ? (unsigned char *)core_twin_a(h->t) + addr : NULL;
    if (addr < m->c_base)
        return addr + len <= m->c_base ? (unsigned char *)core_twin_b(h->t) + (addr - m->b_base)
                                       : NULL;
    return (unsigned char *)core_twin_c(h->t) + (addr - m->c_base);
}

/* Row i of an access at addr lies outside one pad. */
static int tlm_outside(const struct tlm *h, const char *what, uint32_t addr, uint32_t len,
                       struct err *e)
{
    return err_set(e, -EINVAL,
                   "core twin: DMA %s of %u bytes at 0x%x leaves its pad; accepted ranges inside "
                   "A [0, 0x%x), B [0x%x, 0x%x) or C [0x%x, 0x%x)",
                   what, len, addr, h->map.b_base, h->map.b_base, h->map.c_base, h->map.c_base,
                   (uint32_t)h->map.end);
}

static int tlm_write(void *p, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len,
                     const void *buf, struct err *e)
{
    const unsigned char *src = buf;
    for (uint32_t i = 0; i < rows; i++) {
        unsigned char *d = tlm_ptr(p, addr + i * stride, len);
        if (!d)
            return tlm_outside(p, "write", addr + i * stride, len, e);
        memcpy(d, src + (size_t)i * len, len);
    }
    return 0;
}

static int tlm_read(void *p, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, void *buf,
                    struct err *e)
{
    unsigned char *dst = buf;
    for (uint32_t i = 0; i < rows; i++) {
        unsigned char *s = tlm_ptr(p, addr + i * stride, len);
        if (!s)
            return tlm_outside(p, "read", addr + i * stride, len, e);
        memcpy(dst + (size_t)i * len, s, len);
    }
    return 0;
}

static int tlm_exec(void *p, const struct core_cmd *cmd, struct core_twin_result *res,
                    struct err *e)
{
    struct tlm *h = p;
    int rc = core_twin_exec(h->t, cmd, res, e);
    if (!rc)
        h->cycles += res->cycles;
    return rc;
}

static uint64_t tlm_cycle(void *p)
{
    return ((struct tlm *)p)->cycles;
}

const struct core_be_ops core_be_tlm_ops = {
    .name = "tlm",
    .create = tlm_create,
    .destroy = tlm_destroy,
    .write = tlm_write,
    .read = tlm_read,
    .exec = tlm_exec,
    .trace = NULL,
    .cycle = tlm_cycle,
};

/* ---------------------------------------------------------------- lockstep */

struct core_be_lockstep {
    const struct core_be_ops *rtl_ops;
    void *tlm, *rtl;
    struct core_params cfg;
    struct core_twin_map map;
    char block[32];
    char label[96];
    unsigned char *ba, *bb; /* scratch for comparisons */
    size_t cap;
    uint64_t cmds;
};

int core_be_lockstep_create(const struct core_params *cfg, const struct core_be_ops *rtl,
                            uint64_t seed, const char *block, struct core_be_lockstep **out,
                            struct err *e)
{
    struct core_be_lockstep *l = calloc(1, sizeof(*l));
    int rc;

    *out = NULL;
    if (!l)
        return err_set(e, -ENOMEM, "lockstep: out of memory");
    l->rtl_ops = rtl;
    l->cfg = *cfg;
    core_twin_map(cfg, &l->map);
    snprintf(l->block, sizeof(l->block), "%s", block ? block : "core");
    rc = core_be_tlm_ops.create(cfg, seed, &l->tlm, e);
    if (rc)
        goto out_free;
    rc = rtl->create(cfg, seed, &l->rtl, e);
    if (rc)
        goto out_tlm;
    *out = l;
    return 0;

out_tlm:
    core_be_tlm_ops.destroy(l->tlm);
out_free:
    free(l);
    return rc;
}

void core_be_lockstep_destroy(struct core_be_lockstep *l)
{
    if (!l)
        return;
    core_be_tlm_ops.destroy(l->tlm);
    l->rtl_ops->destroy(l->rtl);
    free(l->ba);
    free(l->bb);
    free(l);
}

void core_be_lockstep_label(struct core_be_lockstep *l, const char *label)
{
    snprintf(l->label, sizeof(l->label), "%s", label ? label : "");
}

static int grow(struct core_be_lockstep *l, size_t len)
{
    if (len <= l->cap)
        return 0;
    unsigned char *a = realloc(l->ba, len), *b;
    if (!a)
        return -ENOMEM;
    l->ba = a;
    b = realloc(l->bb, len);
    if (!b)
        return -ENOMEM;
    l->bb = b;
    l->cap = len;
    return 0;
}

static uint64_t rtl_cycle(struct core_be_lockstep *l)
{
    return l->rtl_ops->cycle ? l->rtl_ops->cycle(l->rtl) : 0;
}

/* Both sides failed alike: the twin's message (in e) is the pair's. */
static int ls_write(void *p, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len,
                    const void *buf, struct err *e)
{
    struct core_be_lockstep *l = p;
    int a = core_be_tlm_ops.write(l->tlm, addr, stride, rows, len, buf, e);
    int b = l->rtl_ops->write(l->rtl, addr, stride, rows, len, buf, NULL);
    if (a != b)
        return err_set(e, -EPROTO,
                       "lockstep divergence: block %s, command '%s', cycle %" PRIu64
                       ", DMA write of %u rows x %u bytes at 0x%x: tlm returned %d, rtl %d",
                       l->block, l->label, rtl_cycle(l), rows, len, addr, a, b);
    return a;
}

static int ls_read(void *p, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, void *buf,
                   struct err *e)
{
    struct core_be_lockstep *l = p;
    size_t n = (size_t)rows * len;
    int rc = grow(l, n);
    if (rc)
        return err_set(e, rc, "lockstep: block %s: out of memory comparing %zu bytes", l->block, n);
    int a = core_be_tlm_ops.read(l->tlm, addr, stride, rows, len, l->ba, e);
    int b = l->rtl_ops->read(l->rtl, addr, stride, rows, len, l->bb, NULL);
    if (a != b)
        return err_set(e, -EPROTO,
                       "lockstep divergence: block %s, command '%s', cycle %" PRIu64
                       ", DMA read of %u rows x %u bytes at 0x%x: tlm returned %d, rtl %d",
                       l->block, l->label, rtl_cycle(l), rows, len, addr, a, b);
    if (a)
        return a;
    for (size_t i = 0; i < n; i++) {
        if (l->ba[i] == l->bb[i])
            continue;
        return err_set(e, -EPROTO,
                       "lockstep divergence: block %s, command '%s', cycle %" PRIu64
                       ", DMA read at 0x%x (row %zu, byte %zu): tlm 0x%02x, rtl 0x%02x",
                       l->block, l->label, rtl_cycle(l), (uint32_t)(addr + (i / len) * stride),
                       i / len, i % len, l->ba[i], l->bb[i]);
    }
    memcpy(buf, l->ba, n);
    return 0;
}

static int ls_exec(void *p, const struct core_cmd *cmd, struct core_twin_result *res, struct err *e)
{
    struct core_be_lockstep *l = p;
    struct core_twin_result rt, rr;
    int rc;

    rc = core_be_tlm_ops.exec(l->tlm, cmd, &rt, e);
    if (rc)
        return rc;
    rc = l->rtl_ops->exec(l->rtl, cmd, &rr, e);
    if (rc)
        return err_prefix(e, rc, "lockstep: block %s, command '%s': rtl failed (%d)", l->block,
                          l->label, rc);
    l->cmds++;
    if (rt.status != rr.status || rt.cycles != rr.cycles)
        return err_set(e, -EPROTO,
                       "lockstep divergence: block %s, command '%s', cycle %" PRIu64
                       ": status tlm %d rtl %d, cycles tlm %" PRIu64 " rtl %" PRIu64,
                       l->block, l->label, rtl_cycle(l), rt.status, rr.status, rt.cycles,
                       rr.cycles);
    *res = rt;
    if (rt.status != CORE_OK)
        return 0;
    /* every output element of C, row by row */
    size_t row = (size_t)cmd->n * 4;
    rc = grow(l, row);
    if (rc)
        return err_set(e, rc, "lockstep: block %s: out of memory comparing a C row of %zu bytes",
                       l->block, row);
    for (uint32_t i = 0; i < cmd->m; i++) {
        uint32_t addr = l->map.c_base + (cmd->c_addr + i * cmd->ldc) * 4;
        if (core_be_tlm_ops.read(l->tlm, addr, 0, 1, (uint32_t)row, l->ba, NULL) ||
            l->rtl_ops->read(l->rtl, addr, 0, 1, (uint32_t)row, l->bb, NULL))
            return err_set(e, -EIO, "lockstep: block %s: reading C row %u failed", l->block, i);
        for (uint32_t j = 0; j < cmd->n; j++) {
            uint32_t va, vb;
            memcpy(&va, l->ba + 4 * j, 4);
            memcpy(&vb, l->bb + 4 * j, 4);
            if (va != vb)
                return err_set(e, -EPROTO,
                               "lockstep divergence: block %s, command '%s', cycle %" PRIu64
                               ", C[%u][%u] (GEMM %ux%ux%u): tlm 0x%08x, rtl 0x%08x",
                               l->block, l->label, rtl_cycle(l), i, j, cmd->m, cmd->n, cmd->k, va,
                               vb);
        }
    }
    return 0;
}

static int ls_trace(void *p, const struct vtrace_opts *o, struct err *e)
{
    struct core_be_lockstep *l = p;
    if (!l->rtl_ops->trace)
        return err_set(e, -ENOTSUP, "lockstep: block %s: the RTL backend has no trace", l->block);
    return l->rtl_ops->trace(l->rtl, o, e);
}

static int ls_trace_close(void *p, struct err *e)
{
    struct core_be_lockstep *l = p;
    return l->rtl_ops->trace_close ? l->rtl_ops->trace_close(l->rtl, e) : 0;
}

static uint64_t ls_cycle(void *p)
{
    return rtl_cycle(p);
}

static void ls_destroy(void *p)
{
    core_be_lockstep_destroy(p);
}

const struct core_be_ops core_be_lockstep_ops = {
    .name = "lockstep",
    .create = NULL, /* core_be_lockstep_create */
    .destroy = ls_destroy,
    .write = ls_write,
    .read = ls_read,
    .exec = ls_exec,
    .trace = ls_trace,
    .trace_close = ls_trace_close,
    .cycle = ls_cycle,
};
