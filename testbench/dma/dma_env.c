#include "testbench/dma/dma_env.h"
#include "csim/rng.h"
#include "models/dma/dma_twin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dma_env {
    struct dma_env_cfg cfg;
    struct dma_dut dut, shadow;
    bool has_shadow;
    struct dram *dram;
    struct dram_port *port;
    struct dma_sram *sram;
    uint64_t rng, cyc;
    /* producer */
    struct dma_desc *q;
    size_t q_len, q_cap, q_next;
    uint64_t *accepted; /* per descriptor, cycle taken */
    bool desc_valid;
    /* consumer */
    struct dma_env_cpl *cpl;
    size_t n_cpl, cpl_cap, cpl_base; /* cpl_base: descriptors completed before the last clear */
    /* handshake memory */
    struct dma_out prev;
    bool prev_cpl_stall, prev_mem_stall, prev_sram_stall;
};

/* A failed check: -EPROTO, the message led by the seed and the cycle. */
static int fail(const struct dma_env *e, struct err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(const struct dma_env *e, struct err *err, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return -EPROTO;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return err_prefix(err, -EPROTO, "seed %" PRIu64 " cycle %" PRIu64, e->cfg.seed, e->cyc);
}

void dma_env_cfg_default(struct dma_env_cfg *c)
{
    memset(c, 0, sizeof(*c));
    dma_params_default(&c->params);
    dram_cfg_default(&c->dram);
    dram_port_cfg_default(&c->port);
    c->port.name = "dma";
    c->seed = 1;
}

int dma_env_create(const struct dma_env_cfg *cfg, const struct dma_dut *dut,
                   const struct dma_dut *shadow, struct dma_env **out, struct err *err)
{
    struct dma_env *e = calloc(1, sizeof(*e));
    int rc;

    *out = NULL;
    if (!e)
        return err_set(err, -ENOMEM, "dma_env: out of memory");
    e->cfg = *cfg;
    e->dut = *dut;
    if (shadow) {
        e->shadow = *shadow;
        e->has_shadow = true;
    }
    e->rng = cfg->seed ^ 0x5eed0fd3aull;
    rc = dram_create(&cfg->dram, &e->dram, err);
    if (rc)
        goto out_free;
    struct dram_port_cfg pc = cfg->port;
    pc.seed = cfg->seed * 3 + 1;
    rc = dram_port_create(&pc, e->dram, &e->port, err);
    if (rc)
        goto out_free;
    struct dma_sram_cfg sc = {.bytes = cfg->params.sram_bytes,
                              .rd_lat = cfg->params.sram_lat,
                              .stall_pct = cfg->sram_stall_pct,
                              .seed = cfg->seed * 5 + 2};
    rc = dma_sram_create(&sc, &e->sram, err);
    if (rc) {
        err_prefix(err, rc, "dma_env");
        goto out_free;
    }
    /* Reset: two cycles with the BFMs not clocked. */
    struct dma_in in = {.rst = true};
    for (int i = 0; i < 2; i++) {
        e->dut.set(e->dut.h, &in);
        e->dut.step(e->dut.h, 1);
        if (e->has_shadow) {
            e->shadow.set(e->shadow.h, &in);
            e->shadow.step(e->shadow.h, 1);
        }
    }
    *out = e;
    return 0;

out_free:
    dma_env_destroy(e);
    return rc;
}

void dma_env_destroy(struct dma_env *e)
{
    if (!e)
        return;
    dma_sram_destroy(e->sram);
    dram_port_destroy(e->port);
    dram_destroy(e->dram);
    free(e->q);
    free(e->accepted);
    free(e->cpl);
    free(e);
}

int dma_env_submit(struct dma_env *e, const struct dma_desc *d, struct err *err)
{
    if (e->q_len == e->q_cap) {
        size_t cap = e->q_cap ? 2 * e->q_cap : 64;
        struct dma_desc *q = realloc(e->q, cap * sizeof(*q));
        if (!q)
            return err_set(err, -ENOMEM, "dma_env: out of memory queueing %zu descriptors", cap);
        e->q = q;
        uint64_t *a = realloc(e->accepted, cap * sizeof(*a));
        if (!a)
            return err_set(err, -ENOMEM, "dma_env: out of memory queueing %zu descriptors", cap);
        e->accepted = a;
        e->q_cap = cap;
    }
    e->q[e->q_len++] = *d;
    return 0;
}

static int compare(struct dma_env *e, const struct dma_out *a, const struct dma_out *b,
                   struct err *err)
{
    const char *n1 = e->dut.name, *n2 = e->shadow.name;
#define CMP(field, fmt)                                                                            \
    do {                                                                                           \
        if (a->field != b->field)                                                                  \
            return fail(e, err, "lockstep: %s = " fmt " in %s, " fmt " in %s", #field, a->field,   \
                        n1, b->field, n2);                                                         \
    } while (0)
    CMP(desc_ready, "%d");
    CMP(idle, "%d");
    CMP(cpl_valid, "%d");
    if (a->cpl_valid) {
        CMP(cpl.tag, "%u");
        CMP(cpl.status, "%u");
        CMP(cpl.cycles, "%" PRIu32);
    }
    CMP(mem.valid, "%d");
    CMP(mem.rsp_ready, "%d");
    if (a->mem.valid) {
        CMP(mem.write, "%d");
        CMP(mem.addr, "%#" PRIx64);
        if (a->mem.write) {
            CMP(mem.wstrb, "%#x");
            CMP(mem.wdata, "%#" PRIx64);
        }
    }
    CMP(sram.valid, "%d");
    if (a->sram.valid) {
        CMP(sram.write, "%d");
        CMP(sram.addr, "%#" PRIx64);
        if (a->sram.write) {
            CMP(sram.wstrb, "%#x");
            CMP(sram.wdata, "%#" PRIx64);
        }
    }
#undef CMP
    return 0;
}

/* Rule 2 of the handshake contract on the DUT's valid/ready outputs. */
static int check_holds(struct dma_env *e, const struct dma_out *o, struct err *err)
{
    const struct dma_out *p = &e->prev;
    if (e->prev_cpl_stall && (!o->cpl_valid || memcmp(&o->cpl, &p->cpl, sizeof(o->cpl))))
        return fail(e, err,
                    "completion changed while stalled (tag %u status %u -> valid %d tag %u)",
                    p->cpl.tag, p->cpl.status, o->cpl_valid, o->cpl.tag);
    if (e->prev_mem_stall &&
        (!o->mem.valid || o->mem.write != p->mem.write || o->mem.addr != p->mem.addr ||
         o->mem.wdata != p->mem.wdata || o->mem.wstrb != p->mem.wstrb))
        return fail(e, err,
                    "tensor-buffer request changed while stalled (addr %#" PRIx64
                    " -> valid %d addr %#" PRIx64 ")",
                    p->mem.addr, o->mem.valid, o->mem.addr);
    if (e->prev_sram_stall &&
        (!o->sram.valid || o->sram.write != p->sram.write || o->sram.addr != p->sram.addr ||
         o->sram.wdata != p->sram.wdata || o->sram.wstrb != p->sram.wstrb))
        return fail(e, err,
                    "SRAM request changed while stalled (addr %#" PRIx64
                    " -> valid %d addr %#" PRIx64 ")",
                    p->sram.addr, o->sram.valid, o->sram.addr);
    if (o->sram.valid && (o->sram.addr % 8 || o->sram.addr + 8 > e->cfg.params.sram_bytes))
        return fail(e, err,
                    "SRAM request at %#" PRIx64 " outside the %" PRIu64 "-byte SRAM or "
                    "not beat-aligned",
                    o->sram.addr, e->cfg.params.sram_bytes);
    return 0;
}

static int push_cpl(struct dma_env *e, const struct dma_cpl *c, struct err *err)
{
    if (e->n_cpl == e->cpl_cap) {
        size_t cap = e->cpl_cap ? 2 * e->cpl_cap : 64;
        struct dma_env_cpl *n = realloc(e->cpl, cap * sizeof(*n));
        if (!n)
            return err_set(err, -ENOMEM, "dma_env: out of memory keeping %zu completions", cap);
        e->cpl = n;
        e->cpl_cap = cap;
    }
    size_t idx = e->cpl_base + e->n_cpl;
    if (idx >= e->q_next)
        return fail(e, err, "completion (tag %u) for a descriptor never sent", c->tag);
    if (c->tag != e->q[idx].tag)
        return fail(e, err, "completion %zu has tag %u, expected %u (completions out of order?)",
                    idx, c->tag, e->q[idx].tag);
    e->cpl[e->n_cpl++] =
        (struct dma_env_cpl){.cpl = *c, .accepted = e->accepted[idx], .done = e->cyc};
    return 0;
}

static int cycle(struct dma_env *e, struct err *err)
{
    struct dma_in in = {0};
    struct dma_out o, so;
    const struct dma_env_cfg *c = &e->cfg;
    int rc;

    dram_port_drive(e->port, &in.mem);
    dma_sram_drive(e->sram, &in.sram);
    if (!e->desc_valid && e->q_next < e->q_len)
        e->desc_valid = !c->desc_stall_pct || rng_next(&e->rng) % 100 >= c->desc_stall_pct;
    in.desc_valid = e->desc_valid;
    if (e->desc_valid)
        in.desc = e->q[e->q_next];
    in.cpl_ready = !c->cpl_stall_pct || rng_next(&e->rng) % 100 >= c->cpl_stall_pct;

    e->dut.set(e->dut.h, &in);
    e->dut.get(e->dut.h, &o);
    if (e->has_shadow) {
        e->shadow.set(e->shadow.h, &in);
        e->shadow.get(e->shadow.h, &so);
        if ((rc = compare(e, &o, &so, err)))
            return rc;
        const char *why = e->shadow.error ? e->shadow.error(e->shadow.h) : NULL;
        if (why)
            return fail(e, err, "%s: %s", e->shadow.name, why);
    }
    const char *why = e->dut.error ? e->dut.error(e->dut.h) : NULL;
    if (why)
        return fail(e, err, "%s: %s", e->dut.name, why);
    if ((rc = check_holds(e, &o, err)))
        return rc;

    if (in.desc_valid && o.desc_ready) {
        e->accepted[e->q_next++] = e->cyc;
        e->desc_valid = false;
    }
    if (o.cpl_valid && in.cpl_ready && (rc = push_cpl(e, &o.cpl, err)))
        return rc;
    e->prev = o;
    e->prev_cpl_stall = o.cpl_valid && !in.cpl_ready;
    e->prev_mem_stall = o.mem.valid && !in.mem.req_ready;
    e->prev_sram_stall = o.sram.valid && !in.sram.req_ready;

    dram_port_clock(e->port, &o.mem);
    dma_sram_clock(e->sram, &o.sram);
    e->dut.step(e->dut.h, 1);
    if (e->has_shadow)
        e->shadow.step(e->shadow.h, 1);
    e->cyc++;
    return 0;
}

int dma_env_run(struct dma_env *e, uint64_t max_cycles, struct err *err)
{
    uint64_t end = e->cyc + max_cycles;
    int rc;
    while (e->cpl_base + e->n_cpl < e->q_len) {
        if (e->cyc >= end)
            return err_set(err, -ETIMEDOUT,
                           "seed %" PRIu64 " cycle %" PRIu64 ": timeout: %zu of %zu descriptors "
                           "taken, %zu completed",
                           e->cfg.seed, e->cyc, e->q_next, e->q_len, e->cpl_base + e->n_cpl);
        if ((rc = cycle(e, err)))
            return rc;
    }
    return cycle(e, err);
}

uint64_t dma_env_cycle(const struct dma_env *e)
{
    return e->cyc;
}

size_t dma_env_ncpl(const struct dma_env *e)
{
    return e->n_cpl;
}

const struct dma_env_cpl *dma_env_cpl(const struct dma_env *e, size_t i)
{
    return i < e->n_cpl ? &e->cpl[i] : NULL;
}

void dma_env_clear_cpls(struct dma_env *e)
{
    e->cpl_base += e->n_cpl;
    e->n_cpl = 0;
}

void dma_env_params(const struct dma_env *e, struct dma_params *out)
{
    *out = e->cfg.params;
}

struct dram *dma_env_dram(struct dma_env *e)
{
    return e->dram;
}

struct dram_port *dma_env_port(struct dma_env *e)
{
    return e->port;
}

struct dma_sram *dma_env_sram(struct dma_env *e)
{
    return e->sram;
}

static int tb_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    return dram_read(((struct dma_env *)ctx)->dram, addr, buf, len);
}

static int tb_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    return dram_write(((struct dma_env *)ctx)->dram, addr, buf, len);
}

static int sram_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct dma_env *e = ctx;
    if (addr > e->cfg.params.sram_bytes || len > e->cfg.params.sram_bytes - addr)
        return -ERANGE;
    memcpy(buf, dma_sram_bytes(e->sram) + addr, len);
    return 0;
}

static int sram_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct dma_env *e = ctx;
    if (addr > e->cfg.params.sram_bytes || len > e->cfg.params.sram_bytes - addr)
        return -ERANGE;
    memcpy(dma_sram_bytes(e->sram) + addr, buf, len);
    return 0;
}

const struct dma_mem_ops dma_env_tb_ops = {.read = tb_read, .write = tb_write};
const struct dma_mem_ops dma_env_sram_ops = {.read = sram_read, .write = sram_write};

static void twin_set(void *h, const struct dma_in *in)
{
    dma_twin_set(h, in);
}

static void twin_get(void *h, struct dma_out *out)
{
    dma_twin_get(h, out);
}

static void twin_step(void *h, uint64_t n)
{
    dma_twin_step(h, n);
}

static const char *twin_error(void *h)
{
    return dma_twin_errors(h) ? dma_twin_error(h) : NULL;
}

struct dma_dut dma_dut_twin(struct dma_twin *tw)
{
    return (struct dma_dut){"twin", tw, twin_set, twin_get, twin_step, twin_error};
}
