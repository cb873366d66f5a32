/*
 * an_be_rtl.c - the verilated Activation Node datapath (rtl/an/an_top.v: the tensor-buffer DMA
 * and the compute core joined at the core's DMA port) as a node backend, and its lockstep form
 * with the DMA twin and the core twin beside it; see core_be.h. This object references the an
 * shim (csim/shim/an.h): link it only into a program that also links one verilated an_top
 * model (e.g. an_8x8). Nothing else in the library refers to an_be_rtl_ops.
 *
 * A DMA command: the node has set the port's time base to the command's start
 * (dram_port_set_time), so the RTL's beats claim the node's tensor-buffer channels at real
 * times, behind whatever the node's other agents (flash, fabric, vector unit) claimed before;
 * the descriptor is offered from the first cycle and its completion taken at once; its cycles
 * are counted from the cycle the DMA took it to the cycle the completion came out, and one
 * more cycle is run after it (the DMA goes idle), exactly as dma_time's probe does, so the count
 * is dma_time_run's for the same descriptor on the same buffer state (models/dma/dma_time.h). The
 * tensor buffer is the node's own dram model behind its port BFM (models/dram/dram_port.h):
 * the bytes really move through the RTL.
 *
 * Lockstep: every cycle of a DMA command, the DMA twin gets the inputs the RTL gets (the same
 * descriptor, the port's responses; its SRAM port is a cycle model of the core's, backed by
 * the core twin's pads, answering CORE_DMA_LATENCY cycles after a request, as core_dma.v
 * does while no GEMM runs) and the DMA's outputs of both are compared: its outer ports and
 * its requests to the pads (observed inside an_top), so the bytes a load writes into the
 * pads are compared as they go in and those a store writes to the tensor buffer as they go
 * out. A GEMM runs on both cores; status and cycles are compared (the C-pad itself is read
 * only by the DMA: a wrong result shows at the store that moves it).
 */
#include "models/core/core_be.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/shim/an.h"
#include "models/dma/dma_desc.h"
#include "models/dma/dma_twin.h"

#define RESET_CYCLES 4
#define PORT_TIMEOUT 64           /* cycles for the command port to take a command */
#define CMD_TIMEOUT  100000000ull /* cycles for one GEMM or one DMA descriptor */

/* ---------------------------------------------------------------- the RTL */

struct anr {
    struct an_rtl *m;
    struct an_in in;
    struct an_params prm;
    struct dram *tb;
    struct dram_port *port;
};

static int anr_create(const struct core_params *cfg, uint64_t seed, void **out, struct err *e)
{
    struct anr *h = calloc(1, sizeof(*h));
    struct core_params mm, *m = &mm;

    *out = NULL;
    if (!h)
        return err_set(e, -ENOMEM, "rtl an: out of memory");
    h->m = an_rtl_create(seed);
    if (!h->m) {
        free(h);
        return err_set(e, -ENOMEM, "rtl an: the verilated model could not be created");
    }
    an_rtl_params(h->m, &h->prm);
    mm = h->prm.core;
    if (m->rows != cfg->rows || m->cols != cfg->cols || m->a_words != cfg->a_words ||
        m->b_words != cfg->b_words || m->c_words != cfg->c_words) {
        an_rtl_destroy(h->m);
        free(h);
        return err_set(e, -EINVAL,
                       "rtl an: the linked model's core is %ux%u with pads of %u/%u/%u words, the "
                       "machine asks for %ux%u with %u/%u/%u; accepted: the model's configuration "
                       "(set machine_cfg.core to it, or link the model built for it)",
                       m->rows, m->cols, m->a_words, m->b_words, m->c_words, cfg->rows, cfg->cols,
                       cfg->a_words, cfg->b_words, cfg->c_words);
    }
    h->in.rst = true;
    an_rtl_set(h->m, &h->in);
    an_rtl_step(h->m, RESET_CYCLES);
    h->in.rst = false;
    h->in.cpl_ready = true;
    h->in.done_ready = true;
    an_rtl_set(h->m, &h->in);
    *out = h;
    return 0;
}

static void anr_destroy(void *p)
{
    struct anr *h = p;
    if (!h)
        return;
    an_rtl_destroy(h->m);
    free(h);
}

/* The DMA parameters that decide what a descriptor does and how long it takes. The SRAM
 * address width is not among them: an_top's is 32 bits, dma_time's the least that holds the map,
 * and a descriptor inside the map fits both. */
static int anr_attach(void *p, struct dram *tb, struct dram_port *port, const struct dma_params *d,
                      struct err *e)
{
    struct anr *h = p;
    const struct dma_params *r = &h->prm.dma;

    if (r->sram_bytes != d->sram_bytes || r->tb_bytes != d->tb_bytes ||
        r->sram_lat != d->sram_lat || r->max_rd_out != d->max_rd_out ||
        r->max_wr_out != d->max_wr_out || r->desc_depth != d->desc_depth ||
        r->cpl_depth != d->cpl_depth)
        return err_set(e, -EINVAL,
                       "rtl an: the linked model's DMA has a %" PRIu64 "-byte SRAM map, a %" PRIu64
                       "-byte tensor buffer, SRAM latency %u, %u reads and %u writes out, queues "
                       "%u/%u; the machine's: %" PRIu64 ", %" PRIu64 ", %u, %u, %u, %u/%u; "
                       "accepted: the model's (set machine_cfg.dma and tensor_buffer.size_bytes "
                       "to them, or link the model built for the machine)",
                       r->sram_bytes, r->tb_bytes, r->sram_lat, r->max_rd_out, r->max_wr_out,
                       r->desc_depth, r->cpl_depth, d->sram_bytes, d->tb_bytes, d->sram_lat,
                       d->max_rd_out, d->max_wr_out, d->desc_depth, d->cpl_depth);
    h->tb = tb;
    h->port = port;
    return 0;
}

/* ---------------------------------------------------------------- the twins (lockstep) */

/* A response of the twin's SRAM port, due in the cycle of its slot. */
struct sram_slot {
    bool valid, err;
    uint64_t rdata;
};

/* The lockstep pair. It begins with the RTL's handle, so an_be_rtl_ops' functions given a
 * lockstep handle run the RTL alone (test_system_rtl makes the two sides diverge that way). */
struct anl {
    struct anr r;
    struct dma_twin *dt;
    struct core_twin *ct;
    struct sram_slot slot[CORE_DMA_LATENCY];
    uint64_t tcyc; /* the DMA twin's cycles */
    char block[32], label[96];
};

/* The core's DMA port (rtl/core/core_dma.v) as the twin's SRAM, backed by the core twin: always
 * ready while no GEMM runs, every request answered CORE_DMA_LATENCY cycles after it was taken,
 * with an error for a beat outside the map. */
static void sram_drive(const struct anl *l, struct dma_sram_rsp *o)
{
    const struct sram_slot *s = &l->slot[l->tcyc % CORE_DMA_LATENCY];
    o->req_ready = true;
    o->rsp_valid = s->valid;
    o->rdata = s->valid ? s->rdata : 0;
    o->err = s->valid && s->err;
}

static void sram_clock(struct anl *l, const struct dma_sram_req *q)
{
    struct sram_slot *s = &l->slot[l->tcyc % CORE_DMA_LATENCY];
    s->valid = q->valid;
    s->err = false;
    s->rdata = 0;
    if (!q->valid)
        return;
    if (q->addr > UINT32_MAX)
        s->err = true;
    else if (q->write)
        s->err = core_twin_dma_write(l->ct, (uint32_t)q->addr, q->wdata, q->wstrb) != 0;
    else
        s->err = core_twin_dma_read(l->ct, (uint32_t)q->addr, &s->rdata) != 0;
}

/* ---------------------------------------------------------------- a DMA command */

static void fmt_req(const struct mem_port_req *q, char *b, size_t n)
{
    if (!q->valid)
        snprintf(b, n, "no request (rsp_ready %d)", q->rsp_ready);
    else if (q->write)
        snprintf(b, n, "write 0x%" PRIx64 " data 0x%016" PRIx64 " strb 0x%02x (rsp_ready %d)",
                 q->addr, q->wdata, q->wstrb, q->rsp_ready);
    else
        snprintf(b, n, "read 0x%" PRIx64 " (rsp_ready %d)", q->addr, q->rsp_ready);
}

static void fmt_sram(const struct dma_sram_req *q, char *b, size_t n)
{
    if (!q->valid)
        snprintf(b, n, "no request");
    else if (q->write)
        snprintf(b, n, "write 0x%" PRIx64 " data 0x%016" PRIx64 " strb 0x%02x", q->addr, q->wdata,
                 q->wstrb);
    else
        snprintf(b, n, "read 0x%" PRIx64, q->addr);
}

static bool sram_differs(const struct dma_sram_req *a, const struct dma_sram_req *b)
{
    return a->valid != b->valid ||
           (a->valid && (a->write != b->write || a->addr != b->addr ||
                         (a->write && (a->wdata != b->wdata || a->wstrb != b->wstrb))));
}

/* The DMA's outputs of the RTL (o) and the twin (t) in command cycle k, its outer ports and
 * its requests to the pads: 0, or -EPROTO with the report. */
static int compare(struct anl *l, const struct an_out *o, const struct dma_out *t, uint64_t k,
                   struct err *e)
{
    char what[64] = "", a[128], b[128];
    const struct mem_port_req *rq = &o->mem, *tq = &t->mem;

    if (o->desc_ready != t->desc_ready) {
        snprintf(what, sizeof(what), "desc_ready");
        snprintf(a, sizeof(a), "%d", t->desc_ready);
        snprintf(b, sizeof(b), "%d", o->desc_ready);
    } else if (o->cpl_valid != t->cpl_valid ||
               (o->cpl_valid && (o->cpl.tag != t->cpl.tag || o->cpl.status != t->cpl.status ||
                                 o->cpl.cycles != t->cpl.cycles))) {
        snprintf(what, sizeof(what), "completion");
        snprintf(a, sizeof(a), "valid %d tag %u status %u cycles %u", t->cpl_valid, t->cpl.tag,
                 t->cpl.status, t->cpl.cycles);
        snprintf(b, sizeof(b), "valid %d tag %u status %u cycles %u", o->cpl_valid, o->cpl.tag,
                 o->cpl.status, o->cpl.cycles);
    } else if (rq->valid != tq->valid || rq->rsp_ready != tq->rsp_ready ||
               (rq->valid && (rq->write != tq->write || rq->addr != tq->addr ||
                              (rq->write && (rq->wdata != tq->wdata || rq->wstrb != tq->wstrb))))) {
        snprintf(what, sizeof(what), "tensor-buffer request");
        fmt_req(tq, a, sizeof(a));
        fmt_req(rq, b, sizeof(b));
    } else if (sram_differs(&o->sram, &t->sram)) {
        snprintf(what, sizeof(what), "pad (SRAM) request");
        fmt_sram(&t->sram, a, sizeof(a));
        fmt_sram(&o->sram, b, sizeof(b));
    } else if (o->dma_idle != t->idle) {
        snprintf(what, sizeof(what), "idle");
        snprintf(a, sizeof(a), "%d", t->idle);
        snprintf(b, sizeof(b), "%d", o->dma_idle);
    } else {
        return 0;
    }
    return err_set(e, -EPROTO,
                   "lockstep divergence: block %s.dma, command '%s', cycle %" PRIu64
                   " (cycle %" PRIu64 " of the descriptor), %s: tlm %s, rtl %s",
                   l->block, l->label, an_rtl_cycle(l->r.m), k, what, a, b);
}

/* One rising edge: the tensor buffer takes the RTL's request, the RTL (and, with l, the SRAM
 * port's responder and the DMA twin) advance a cycle. */
static void clock_edge(struct anr *h, struct anl *l, const struct an_out *o,
                       const struct dma_out *to)
{
    dram_port_clock(h->port, &o->mem);
    an_rtl_step(h->m, 1);
    if (l) {
        sram_clock(l, &to->sram);
        dma_twin_step(l->dt, 1);
        l->tcyc++;
    }
}

/* Run d on the RTL (and, with l, on the DMA twin beside it). */
static int run_dma(struct anr *h, struct anl *l, const struct dma_desc *d, uint64_t *cycles,
                   struct err *e)
{
    uint64_t accepted = 0, k;
    bool offered = true, done = false;
    struct dma_cpl cpl = {0};
    struct an_out o;
    struct dma_in ti = {0};
    struct dma_out to;
    int rc;

    if (!h->port)
        return err_set(e, -EINVAL, "rtl an: no tensor buffer attached to the DMA");
    if (dram_port_pending(h->port))
        return err_set(e, -EIO, "rtl an: the tensor-buffer port has %u responses pending",
                       dram_port_pending(h->port));
    h->in.cmd_valid = false;
    h->in.done_ready = true;
    h->in.cpl_ready = true;
    h->in.desc = *d;
    for (k = 0;; k++) {
        if (k > CMD_TIMEOUT)
            return err_set(e, -ETIMEDOUT,
                           "rtl an: DMA descriptor without completion after %llu cycles (cycle "
                           "%" PRIu64 ")",
                           (unsigned long long)CMD_TIMEOUT, an_rtl_cycle(h->m));
        h->in.desc_valid = offered;
        dram_port_drive(h->port, &h->in.mem);
        an_rtl_set(h->m, &h->in);
        an_rtl_get(h->m, &o);
        if (l) {
            ti.desc_valid = offered;
            ti.desc = *d;
            ti.cpl_ready = true;
            ti.mem = h->in.mem;
            sram_drive(l, &ti.sram);
            dma_twin_set(l->dt, &ti);
            dma_twin_get(l->dt, &to);
            if ((rc = compare(l, &o, &to, k, e)))
                return rc;
        }
        if (done) { /* the cycle after the completion: the DMA goes idle */
            clock_edge(h, l, &o, &to);
            break;
        }
        if (offered && o.desc_ready) {
            accepted = k;
            offered = false;
        }
        if (o.cpl_valid) {
            if (offered)
                return err_set(e, -EIO,
                               "rtl an: a DMA completion for no descriptor (cycle %" PRIu64 ")",
                               an_rtl_cycle(h->m));
            cpl = o.cpl;
            *cycles = k - accepted;
            done = true;
        }
        clock_edge(h, l, &o, &to);
        if (l && dma_twin_errors(l->dt))
            return err_set(e, -EPROTO, "lockstep: block %s.dma, command '%s': the DMA twin: %s",
                           l->block, l->label, dma_twin_error(l->dt));
    }
    h->in.desc_valid = false;
    an_rtl_set(h->m, &h->in);
    if (cpl.status != DMA_ST_OK) {
        char b[160];
        dma_desc_format(d, b, sizeof(b));
        return err_set(e, -EIO, "rtl an: DMA descriptor completed with status %s: %s",
                       dma_status_name(cpl.status), b);
    }
    return 0;
}

static int anr_dma(void *p, const struct dma_desc *d, uint64_t *cycles, struct err *e)
{
    return run_dma(p, NULL, d, cycles, e);
}

/* ---------------------------------------------------------------- a GEMM */

static int anr_exec(void *p, const struct core_cmd *cmd, struct core_twin_result *res,
                    struct err *e)
{
    struct anr *h = p;
    struct an_out o;
    uint64_t n = 0;

    h->in.desc_valid = false;
    h->in.mem.rsp_valid = false; /* the DMA is idle: the port has nothing to answer */
    h->in.cmd = *cmd;
    h->in.cmd_valid = true;
    h->in.done_ready = true;
    for (;;) { /* the command beat */
        an_rtl_set(h->m, &h->in);
        an_rtl_get(h->m, &o);
        an_rtl_step(h->m, 1);
        if (o.cmd_ready)
            break;
        if (++n > PORT_TIMEOUT)
            return err_set(e, -ETIMEDOUT,
                           "rtl an: the command port took no command in %d cycles (cycle %" PRIu64
                           ")",
                           PORT_TIMEOUT, an_rtl_cycle(h->m));
    }
    h->in.cmd_valid = false;
    for (n = 0;; n++) { /* the completion beat */
        an_rtl_set(h->m, &h->in);
        an_rtl_get(h->m, &o);
        if (o.done_valid) {
            res->status = o.done_status;
            res->cycles = o.done_cycles;
            an_rtl_step(h->m, 1);
            break;
        }
        if (n > CMD_TIMEOUT)
            return err_set(
                e, -ETIMEDOUT,
                "rtl an: no completion in %llu cycles (GEMM %ux%ux%u, cycle %" PRIu64 ")",
                (unsigned long long)CMD_TIMEOUT, cmd->m, cmd->n, cmd->k, an_rtl_cycle(h->m));
        an_rtl_step(h->m, 1);
    }
    return 0;
}

static int anr_trace(void *p, const struct vtrace_opts *o, struct err *e)
{
    int rc = an_rtl_trace(((struct anr *)p)->m, o);
    if (rc)
        return err_set(e, rc, "rtl an: cannot write waves to '%s' (%d)",
                       o->path ? o->path : "(null)", rc);
    return 0;
}

static int anr_trace_close(void *p, struct err *e)
{
    int rc = an_rtl_trace_close(((struct anr *)p)->m);
    if (rc)
        return err_set(e, rc, "rtl an: the waves could not be moved into place: %s", strerror(-rc));
    return 0;
}

static uint64_t anr_cycle(void *p)
{
    return an_rtl_cycle(((struct anr *)p)->m);
}

/* ---------------------------------------------------------------- lockstep */

static int anl_create(const struct core_params *cfg, uint64_t seed, void **out, struct err *e)
{
    struct anl *l = calloc(1, sizeof(*l));
    void *r;
    int rc;

    *out = NULL;
    if (!l)
        return err_set(e, -ENOMEM, "lockstep an: out of memory");
    snprintf(l->block, sizeof(l->block), "an");
    rc = anr_create(cfg, seed, &r, e);
    if (rc) {
        free(l);
        return rc;
    }
    l->r = *(struct anr *)r;
    free(r);
    rc = dma_twin_create(&l->r.prm.dma, &l->dt, e);
    if (!rc)
        rc = core_twin_create(cfg, &l->ct, e);
    if (rc) {
        an_rtl_destroy(l->r.m);
        dma_twin_destroy(l->dt);
        free(l);
        return err_prefix(e, rc, "lockstep an: the twins");
    }
    /* The twin's reset: two cycles, its memories not clocked (as dma_time's). */
    struct dma_in in = {.rst = true};
    for (int i = 0; i < 2; i++) {
        dma_twin_set(l->dt, &in);
        dma_twin_step(l->dt, 1);
    }
    *out = l;
    return 0;
}

static void anl_destroy(void *p)
{
    struct anl *l = p;
    if (!l)
        return;
    an_rtl_destroy(l->r.m);
    dma_twin_destroy(l->dt);
    core_twin_destroy(l->ct);
    free(l);
}

static int anl_attach(void *p, struct dram *tb, struct dram_port *port, const struct dma_params *d,
                      struct err *e)
{
    return anr_attach(&((struct anl *)p)->r, tb, port, d, e);
}

static int anl_dma(void *p, const struct dma_desc *d, uint64_t *cycles, struct err *e)
{
    struct anl *l = p;
    return run_dma(&l->r, l, d, cycles, e);
}

static int anl_exec(void *p, const struct core_cmd *cmd, struct core_twin_result *res,
                    struct err *e)
{
    struct anl *l = p;
    struct core_twin_result rt, rr;
    int rc;

    rc = core_twin_exec(l->ct, cmd, &rt, e);
    if (rc)
        return err_prefix(e, rc, "lockstep: block %s.core, command '%s': the core twin", l->block,
                          l->label);
    rc = anr_exec(&l->r, cmd, &rr, e);
    if (rc)
        return rc;
    if (rt.status != rr.status || rt.cycles != rr.cycles)
        return err_set(e, -EPROTO,
                       "lockstep divergence: block %s.core, command '%s', cycle %" PRIu64
                       ": status tlm %d rtl %d, cycles tlm %" PRIu64 " rtl %" PRIu64,
                       l->block, l->label, an_rtl_cycle(l->r.m), rt.status, rr.status, rt.cycles,
                       rr.cycles);
    *res = rr;
    return 0;
}

static void anl_label(void *p, const char *block, const char *cmd)
{
    struct anl *l = p;
    snprintf(l->block, sizeof(l->block), "%s", block ? block : "an");
    snprintf(l->label, sizeof(l->label), "%s", cmd ? cmd : "");
}

static int anl_trace(void *p, const struct vtrace_opts *o, struct err *e)
{
    return anr_trace(&((struct anl *)p)->r, o, e);
}

static int anl_trace_close(void *p, struct err *e)
{
    return anr_trace_close(&((struct anl *)p)->r, e);
}

static uint64_t anl_cycle(void *p)
{
    return anr_cycle(&((struct anl *)p)->r);
}

static const struct core_be_ops an_be_lockstep_ops = {
    .name = "lockstep",
    .create = anl_create,
    .destroy = anl_destroy,
    .exec = anl_exec,
    .trace = anl_trace,
    .trace_close = anl_trace_close,
    .cycle = anl_cycle,
    .attach = anl_attach,
    .dma = anl_dma,
    .label = anl_label,
};

const struct core_be_ops an_be_rtl_ops = {
    .name = "rtl",
    .create = anr_create,
    .destroy = anr_destroy,
    .exec = anr_exec,
    .trace = anr_trace,
    .trace_close = anr_trace_close,
    .cycle = anr_cycle,
    .attach = anr_attach,
    .dma = anr_dma,
    .lockstep = &an_be_lockstep_ops,
};
