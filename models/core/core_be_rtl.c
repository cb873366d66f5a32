/*
 * core_be_rtl.c - the verilated compute core (rtl/core/core_top.v) as a core backend; see
 * core_be.h. This object references the core shim (csim/shim/core.h): link it only into a
 * program that also links one verilated core model (e.g. core_8x8). Nothing else in the library
 * refers to core_be_rtl_ops, so programs without a core model never pull it in.
 *
 * Port protocol (csim/shim/core.h): drive with core_rtl_set, settle and sample with core_rtl_get, a
 * beat moves at the rising edge (core_rtl_step) where valid && ready were high. DMA responses come
 * CORE_DMA_LATENCY cycles after acceptance, one per request, valid for one cycle.
 */
#include "models/core/core_be.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csim/shim/core.h"
#include "models/core/core_twin.h"

#define RESET_CYCLES 4
#define DMA_TIMEOUT  64        /* cycles without progress on the DMA port */
#define CMD_TIMEOUT  100000000 /* cycles for one command (a full 65535^3 GEMM is far more) */

struct rtl {
    struct core_rtl *c;
    struct core_in in;
};

static int rtl_create(const struct core_params *cfg, uint64_t seed, void **out, struct err *e)
{
    struct rtl *h = calloc(1, sizeof(*h));
    struct core_params m;

    *out = NULL;
    if (!h)
        return err_set(e, -ENOMEM, "rtl core: out of memory");
    h->c = core_rtl_create(seed);
    if (!h->c) {
        free(h);
        return err_set(e, -ENOMEM, "rtl core: the verilated model could not be created");
    }
    core_rtl_params(h->c, &m);
    if (m.rows != cfg->rows || m.cols != cfg->cols || m.a_words != cfg->a_words ||
        m.b_words != cfg->b_words || m.c_words != cfg->c_words ||
        core_twin_stages(&m) != core_twin_stages(cfg)) {
        core_rtl_destroy(h->c);
        free(h);
        return err_set(e, -EINVAL,
                       "rtl core: the linked model is %ux%u (%u accumulator stages) with pads of "
                       "%u/%u/%u words, the machine asks for %ux%u (%u) with %u/%u/%u; accepted: "
                       "the model's configuration (set machine_cfg.core to it, or link the "
                       "model built for it)",
                       m.rows, m.cols, core_twin_stages(&m), m.a_words, m.b_words, m.c_words,
                       cfg->rows, cfg->cols, core_twin_stages(cfg), cfg->a_words, cfg->b_words,
                       cfg->c_words);
    }
    h->in.rst = true;
    core_rtl_set(h->c, &h->in);
    core_rtl_step(h->c, RESET_CYCLES);
    h->in.rst = false;
    core_rtl_set(h->c, &h->in);
    *out = h;
    return 0;
}

static void rtl_destroy(void *p)
{
    struct rtl *h = p;
    if (!h)
        return;
    core_rtl_destroy(h->c);
    free(h);
}

/* Move len bytes at addr (a multiple of 8) through the DMA port: write from buf, or read into
 * buf. */
static int xfer(struct rtl *h, bool we, uint32_t addr, unsigned char *buf, size_t len,
                struct err *e)
{
    size_t beats = (len + 7) / 8, issued = 0, answered = 0;
    unsigned idle = 0;
    int rc = 0;
    struct core_out out;

    if (addr % CORE_DMA_BEAT)
        return err_set(e, -EINVAL, "rtl core: DMA %s at 0x%x; accepted multiples of %u",
                       we ? "write" : "read", addr, CORE_DMA_BEAT);
    while (answered < beats) {
        h->in.dma_valid = issued < beats;
        if (h->in.dma_valid) {
            size_t off = issued * 8, n = len - off < 8 ? len - off : 8;
            uint64_t d = 0;
            h->in.dma_we = we;
            h->in.dma_addr = addr + (uint32_t)off;
            if (we)
                memcpy(&d, buf + off, n);
            h->in.dma_wdata = d;
            h->in.dma_wstrb = (uint8_t)(n == 8 ? 0xFF : (1u << n) - 1);
        }
        core_rtl_set(h->c, &h->in);
        core_rtl_get(h->c, &out);
        bool progress = false;
        if (out.dma_resp_valid) {
            size_t off = answered * 8, n = len - off < 8 ? len - off : 8;
            if (out.dma_resp_err)
                rc = -EIO;
            if (!we)
                memcpy(buf + off, &out.dma_resp_rdata, n);
            answered++;
            progress = true;
        }
        bool fire = h->in.dma_valid && out.dma_ready;
        core_rtl_step(h->c, 1);
        if (fire) {
            issued++;
            progress = true;
        }
        idle = progress ? 0 : idle + 1;
        if (idle > DMA_TIMEOUT) {
            rc = -ETIMEDOUT;
            break;
        }
    }
    h->in.dma_valid = false;
    core_rtl_set(h->c, &h->in);
    if (rc == -EIO)
        return err_set(e, rc,
                       "rtl core: DMA %s of %zu bytes at 0x%x: the port answered with an "
                       "error (outside the map?)",
                       we ? "write" : "read", len, addr);
    if (rc)
        return err_set(e, rc,
                       "rtl core: DMA %s of %zu bytes at 0x%x: no progress for %d cycles "
                       "(%zu of %zu beats answered)",
                       we ? "write" : "read", len, addr, DMA_TIMEOUT, answered, beats);
    return 0;
}

static int rtl_write(void *p, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len,
                     const void *buf, struct err *e)
{
    unsigned char *b = (unsigned char *)(uintptr_t)buf;
    for (uint32_t i = 0; i < rows; i++) {
        int rc = xfer(p, true, addr + i * stride, b + (size_t)i * len, len, e);
        if (rc)
            return rc;
    }
    return 0;
}

static int rtl_read(void *p, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, void *buf,
                    struct err *e)
{
    unsigned char *b = buf;
    for (uint32_t i = 0; i < rows; i++) {
        int rc = xfer(p, false, addr + i * stride, b + (size_t)i * len, len, e);
        if (rc)
            return rc;
    }
    return 0;
}

static int rtl_exec(void *p, const struct core_cmd *cmd, struct core_twin_result *res,
                    struct err *e)
{
    struct rtl *h = p;
    struct core_out out;
    uint64_t n = 0;

    h->in.cmd = *cmd;
    h->in.cmd_valid = true;
    h->in.done_ready = true;
    for (;;) { /* the command beat */
        core_rtl_set(h->c, &h->in);
        core_rtl_get(h->c, &out);
        core_rtl_step(h->c, 1);
        if (out.cmd_ready)
            break;
        if (++n > DMA_TIMEOUT)
            return err_set(e, -ETIMEDOUT,
                           "rtl core: the command port took no command in %d cycles (cycle %llu)",
                           DMA_TIMEOUT, (unsigned long long)core_rtl_cycle(h->c));
    }
    h->in.cmd_valid = false;
    for (n = 0;; n++) { /* the completion beat */
        core_rtl_set(h->c, &h->in);
        core_rtl_get(h->c, &out);
        if (out.done_valid) {
            res->status = out.done_status;
            res->cycles = out.done_cycles;
            core_rtl_step(h->c, 1);
            break;
        }
        if (n > CMD_TIMEOUT)
            return err_set(
                e, -ETIMEDOUT, "rtl core: no completion in %d cycles (GEMM %ux%ux%u, cycle %llu)",
                CMD_TIMEOUT, cmd->m, cmd->n, cmd->k, (unsigned long long)core_rtl_cycle(h->c));
        core_rtl_step(h->c, 1);
    }
    h->in.done_ready = false;
    core_rtl_set(h->c, &h->in);
    return 0;
}

static int rtl_trace(void *p, const struct vtrace_opts *o, struct err *e)
{
    int rc = core_rtl_trace(((struct rtl *)p)->c, o);
    if (rc)
        return err_set(e, rc, "rtl core: cannot write waves to '%s' (%d)",
                       o->path ? o->path : "(null)", rc);
    return 0;
}

static int rtl_trace_close(void *p, struct err *e)
{
    int rc = core_rtl_trace_close(((struct rtl *)p)->c);
    if (rc)
        return err_set(e, rc, "rtl core: the waves could not be moved into place: %s",
                       strerror(-rc));
    return 0;
}

static uint64_t rtl_cycle(void *p)
{
    return core_rtl_cycle(((struct rtl *)p)->c);
}

const struct core_be_ops core_be_rtl_ops = {
    .name = "rtl",
    .create = rtl_create,
    .destroy = rtl_destroy,
    .write = rtl_write,
    .read = rtl_read,
    .exec = rtl_exec,
    .trace = rtl_trace,
    .trace_close = rtl_trace_close,
    .cycle = rtl_cycle,
};
