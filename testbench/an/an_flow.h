/*
 * an_flow: one layer on an Activation Node, end to end, in either form:
 *   RTL:  the verilated an_top (DMA + compute core + scratchpads, csim/shim/an.h);
 *   twin: the DMA's C twin (models/dma/dma_twin.h) against a cycle model of the core's DMA
 *         port (testbench/dma/dma_sram.h, latency 2, never stalled: the core is idle while the
 *         DMA runs in this flow) and the core's C twin (models/core/core_twin.h) for the GEMM.
 * Both forms get the same tensor buffer (models/dram: dram + dram_port, same seed), so the
 * DMA phases take the same cycles and the GEMM reports the same count.
 *
 * A layer computes C = A W^T, the forward pass of a fully connected layer: A (M x K bf16,
 * row-major) and W (N x K bf16, row-major, as weights are kept) are in the tensor buffer; the
 * DMA loads A into the A-pad and W transposed into the B-pad (so B = W^T is K x N), the core
 * runs the GEMM into the C-pad (fp32), and the DMA stores C (M x N fp32, row-major) back to
 * the tensor buffer. Header-only: the test (test_an_rtl.c) and the benchmark (bench_an.c) share it.
 */
#ifndef TESTBENCH_RTL_AN_FLOW_H
#define TESTBENCH_RTL_AN_FLOW_H

#include "csim/shim/an.h"
#include "models/core/core_twin.h"
#include "testbench/dma/dma_env.h"
#include "models/dma/dma_twin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AN_GUARD 64 /* guard bytes checked on each side of C in the tensor buffer */

struct an_layer {
    uint32_t m, n, k;                /* C (m x n) = A (m x k) W^T, W is n x k */
    uint64_t a_tb, w_tb, c_tb;       /* tensor-buffer byte addresses, any alignment */
    uint32_t a_addr, b_addr, c_addr; /* element addresses in the pads, multiples of W */
    uint32_t lda, ldb, ldc;          /* pad leading dimensions, multiples of W */
};

struct an_result {
    struct dma_cpl dma[3]; /* A in, W^T in, C out */
    enum core_status gemm_status;
    uint32_t gemm_cycles;      /* the core's done_cycles (RTL) or core_twin's count */
    uint64_t env_cycles;       /* cycles the DMA phases took in the environment */
    uint64_t gemm_port_cycles; /* RTL: command offered to completion taken */
};

struct an_sys {
    bool rtl;
    struct an_params prm;
    struct core_twin_map map;
    struct an_rtl *a;
    struct an_in in;
    struct dma_twin *tw;
    struct core_twin *core;
    struct dma_env *env;
};

/* The parameters of an an_top built with this core configuration (what an_rtl_params gives). */
static inline void an_flow_params(const struct core_params *core, struct an_params *p)
{
    struct core_twin_map map;
    p->core = *core;
    core_twin_map(core, &map);
    dma_params_default(&p->dma);
    p->dma.sram_addr_bits = 32;
    p->dma.sram_bytes = map.end;
    p->dma.sram_lat = 2;
}

/* Whether the RTL's DMA parameters are the C side's (an_rtl_params against an_flow_params). */
static inline bool dma_params_same(const struct dma_params *a, const struct dma_params *b)
{
    return a->sram_addr_bits == b->sram_addr_bits && a->sram_bytes == b->sram_bytes &&
           a->tb_bytes == b->tb_bytes && a->sram_lat == b->sram_lat &&
           a->max_rd_out == b->max_rd_out && a->max_wr_out == b->max_wr_out &&
           a->desc_depth == b->desc_depth && a->cpl_depth == b->cpl_depth;
}

/* ---- the RTL as a DMA for dma_env: its SRAM port is inside */

static inline void an_flow_set(void *h, const struct dma_in *in)
{
    struct an_sys *s = h;
    s->in.rst = in->rst;
    s->in.desc_valid = in->desc_valid;
    s->in.desc = in->desc;
    s->in.cpl_ready = in->cpl_ready;
    s->in.mem = in->mem;
    s->in.cmd_valid = false;
    s->in.done_ready = true;
    an_rtl_set(s->a, &s->in);
}

static inline void an_flow_get(void *h, struct dma_out *out)
{
    struct an_sys *s = h;
    struct an_out o;
    an_rtl_get(s->a, &o);
    memset(out, 0, sizeof(*out));
    out->desc_ready = o.desc_ready;
    out->cpl_valid = o.cpl_valid;
    out->cpl = o.cpl;
    out->mem = o.mem;
    out->idle = o.dma_idle;
}

static inline void an_flow_step(void *h, uint64_t n)
{
    an_rtl_step(((struct an_sys *)h)->a, n);
}

/* Build either form around env_cfg's tensor buffer, port and seed (its params are replaced by
 * the AN's). 0, or a negative errno with the message in e. */
static inline int an_flow_open(struct an_sys *s, bool rtl, const struct core_params *core,
                               const struct dma_env_cfg *env_cfg, struct err *e)
{
    struct dma_env_cfg c = *env_cfg;
    struct dma_dut dut;
    memset(s, 0, sizeof(*s));
    s->rtl = rtl;
    an_flow_params(core, &s->prm);
    core_twin_map(core, &s->map);
    c.params = s->prm.dma;
    c.sram_stall_pct = 0;
    if (rtl) {
        s->a = an_rtl_create(c.seed);
        struct an_params rp;
        an_rtl_params(s->a, &rp);
        if (memcmp(&rp.core, core, sizeof(*core)) || !dma_params_same(&rp.dma, &s->prm.dma))
            return err_set(e, -EINVAL,
                           "an_flow: the model was built for another configuration, or its DMA "
                           "parameters are not an_flow_params'");
        s->prm = rp;
        c.params = rp.dma;
        dut = (struct dma_dut){"an_top", s, an_flow_set, an_flow_get, an_flow_step, NULL};
    } else {
        int rc = dma_twin_create(&c.params, &s->tw, e);

        if (rc || (rc = core_twin_create(core, &s->core, e)))
            return err_prefix(e, rc, "an_flow");
        dut = dma_dut_twin(s->tw);
    }
    return dma_env_create(&c, &dut, NULL, &s->env, e);
}

static inline void an_flow_close(struct an_sys *s)
{
    dma_env_destroy(s->env);
    dma_twin_destroy(s->tw);
    core_twin_destroy(s->core);
    if (s->a)
        an_rtl_destroy(s->a);
}

/* The GEMM phase. RTL: through the command and completion ports, the DMA's inputs idle.
 * Twin: the SRAM image goes into the core twin, the command runs, the C-pad comes back. */
static inline int an_flow_gemm(struct an_sys *s, const struct core_cmd *cmd, struct an_result *r,
                               struct err *e)
{
    if (s->rtl) {
        struct an_out o;
        bool sent = false;
        memset(&s->in, 0, sizeof(s->in));
        s->in.cpl_ready = true;
        s->in.done_ready = true;
        s->in.cmd = *cmd;
        for (uint64_t c = 0;; c++) {
            if (c > 100000000ull)
                return err_set(e, -ETIMEDOUT, "an_flow: GEMM did not complete");
            s->in.cmd_valid = !sent;
            an_rtl_set(s->a, &s->in);
            an_rtl_get(s->a, &o);
            if (!sent && o.cmd_ready)
                sent = true;
            else if (sent && o.done_valid) {
                r->gemm_status = o.done_status;
                r->gemm_cycles = o.done_cycles;
                r->gemm_port_cycles = c + 1;
                an_rtl_step(s->a, 1);
                return 0;
            }
            an_rtl_step(s->a, 1);
        }
    }
    uint8_t *img = dma_sram_bytes(dma_env_sram(s->env));
    for (uint32_t a = 0; a < s->map.end; a += 8) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--)
            v = v << 8 | img[a + (unsigned)b];
        core_twin_dma_write(s->core, a, v, 0xff);
    }
    struct core_twin_result res;
    int rc = core_twin_exec(s->core, cmd, &res, e);
    if (rc)
        return err_prefix(e, rc, "an_flow");
    r->gemm_status = res.status;
    r->gemm_cycles = (uint32_t)res.cycles;
    for (uint32_t a = s->map.c_base; a < s->map.end; a += 8) {
        uint64_t v;
        core_twin_dma_read(s->core, a, &v);
        for (unsigned b = 0; b < 8; b++)
            img[a + b] = (uint8_t)(v >> (8 * b));
    }
    return 0;
}

static inline int an_flow_dma(struct an_sys *s, const struct dma_desc *d, size_t n,
                              struct dma_cpl *out, struct err *e)
{
    int rc;
    for (size_t i = 0; i < n; i++)
        if ((rc = dma_env_submit(s->env, &d[i], e)))
            return rc;
    if ((rc = dma_env_run(s->env, 100000000ull, e)))
        return rc;
    for (size_t i = 0; i < n; i++)
        out[i] = dma_env_cpl(s->env, i)->cpl;
    dma_env_clear_cpls(s->env);
    return 0;
}

/*
 * Run one layer: A and W are written into the tensor buffer at a_tb and w_tb, the bytes around
 * C are set to a guard pattern, then DMA in, GEMM, DMA out. C and its guards are left in the
 * tensor buffer (read them with dram_read on dma_env_dram(s->env)).
 */
static inline int an_flow_layer(struct an_sys *s, const struct an_layer *L, const uint16_t *A,
                                const uint16_t *W, struct an_result *r, struct err *e)
{
    struct dram *tb = dma_env_dram(s->env);
    memset(r, 0, sizeof(*r));
    /* bf16 elements, little-endian, row-major */
    size_t na = (size_t)L->m * L->k, nw = (size_t)L->n * L->k;
    uint8_t *bytes = malloc(2 * (na > nw ? na : nw));
    if (!bytes)
        return err_set(e, -ENOMEM, "an_flow: out of memory for the operands");
    for (size_t i = 0; i < na; i++)
        bytes[2 * i] = (uint8_t)A[i], bytes[2 * i + 1] = (uint8_t)(A[i] >> 8);
    int wrc = dram_write(tb, L->a_tb, bytes, 2 * na);
    for (size_t i = 0; i < nw; i++)
        bytes[2 * i] = (uint8_t)W[i], bytes[2 * i + 1] = (uint8_t)(W[i] >> 8);
    wrc = wrc ? wrc : dram_write(tb, L->w_tb, bytes, 2 * nw);
    free(bytes);
    if (wrc)
        return err_set(e, wrc, "an_flow: operands do not fit the tensor buffer");
    size_t cbytes = (size_t)L->m * L->n * 4 + 2 * AN_GUARD;
    uint8_t *guard = malloc(cbytes);
    if (!guard)
        return err_set(e, -ENOMEM, "an_flow: out of memory for the guard bytes");
    memset(guard, 0xa5, cbytes);
    int rc = dram_write(tb, L->c_tb - AN_GUARD, guard, cbytes);
    free(guard);
    if (rc)
        return err_set(e, rc, "an_flow: C and its guards do not fit the tensor buffer");

    uint64_t e0 = dma_env_cycle(s->env);
    struct dma_desc in[2] = {
        {.tag = 1,
         .rows = L->m,
         .len = 2 * L->k,
         .src = L->a_tb,
         .src_stride = 2ull * L->k,
         .dst = s->map.a_base + 2ull * L->a_addr,
         .dst_stride = 2ull * L->lda},
        {.xpose = true,
         .tag = 2,
         .rows = L->n,
         .len = 2 * L->k,
         .src = L->w_tb,
         .src_stride = 2ull * L->k,
         .dst = s->map.b_base + 2ull * L->b_addr,
         .dst_stride = 2ull * L->ldb},
    };
    if ((rc = an_flow_dma(s, in, 2, r->dma, e)))
        return rc;
    struct core_cmd cmd = {.m = L->m,
                           .n = L->n,
                           .k = L->k,
                           .a_addr = L->a_addr,
                           .b_addr = L->b_addr,
                           .c_addr = L->c_addr,
                           .lda = L->lda,
                           .ldb = L->ldb,
                           .ldc = L->ldc};
    if ((rc = an_flow_gemm(s, &cmd, r, e)))
        return rc;
    struct dma_desc out = {.store = true,
                           .tag = 3,
                           .rows = L->m,
                           .len = 4 * L->n,
                           .src = s->map.c_base + 4ull * L->c_addr,
                           .src_stride = 4ull * L->ldc,
                           .dst = L->c_tb,
                           .dst_stride = 4ull * L->n};
    if ((rc = an_flow_dma(s, &out, 1, &r->dma[2], e)))
        return rc;
    r->env_cycles = dma_env_cycle(s->env) - e0;
    return 0;
}

#endif
