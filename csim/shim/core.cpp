// Shim: the compute core rtl/core/core_top.v behind the C interface of core.h.
// VTOP/VTOP_H name the verilated class and its header; P_Rows, P_Cols,
// P_AWords, P_BWords and P_CWords are the parameters it was verilated with.
#include "csim/shim/core.h"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

#include <cassert>

struct core_rtl {
    VModel<VTOP> m;
    explicit core_rtl(uint64_t seed) : m(seed)
    {
    }
};

extern "C" {

struct core_rtl *core_rtl_create(uint64_t seed)
{
    return new core_rtl(seed);
}

void core_rtl_destroy(struct core_rtl *p)
{
    delete p;
}

void core_rtl_params(const struct core_rtl *p, struct core_params *cfg)
{
    assert(p && cfg);
    cfg->rows = P_Rows;
    cfg->cols = P_Cols;
    cfg->a_words = P_AWords;
    cfg->b_words = P_BWords;
    cfg->c_words = P_CWords;
}

void core_rtl_set(struct core_rtl *p, const struct core_in *in)
{
    assert(p && in);
    VTOP *t = p->m.top();
    t->rst_i = in->rst;
    t->cmd_valid_i = in->cmd_valid;
    t->cmd_m_i = in->cmd.m;
    t->cmd_n_i = in->cmd.n;
    t->cmd_k_i = in->cmd.k;
    t->cmd_a_addr_i = in->cmd.a_addr;
    t->cmd_b_addr_i = in->cmd.b_addr;
    t->cmd_c_addr_i = in->cmd.c_addr;
    t->cmd_lda_i = in->cmd.lda;
    t->cmd_ldb_i = in->cmd.ldb;
    t->cmd_ldc_i = in->cmd.ldc;
    t->cmd_trans_a_i = in->cmd.trans_a;
    t->cmd_trans_b_i = in->cmd.trans_b;
    t->cmd_accumulate_i = in->cmd.accumulate;
    t->done_ready_i = in->done_ready;
    t->dma_req_valid_i = in->dma_valid;
    t->dma_req_we_i = in->dma_we;
    t->dma_req_addr_i = in->dma_addr;
    t->dma_req_wdata_i = in->dma_wdata;
    t->dma_req_wstrb_i = in->dma_wstrb;
}

void core_rtl_get(struct core_rtl *p, struct core_out *out)
{
    assert(p && out);
    p->m.settle();
    VTOP *t = p->m.top();
    out->cmd_ready = t->cmd_ready_o;
    out->done_valid = t->done_valid_o;
    out->done_status = static_cast<enum core_status>(t->done_status_o);
    out->done_cycles = t->done_cycles_o;
    out->dma_ready = t->dma_req_ready_o;
    out->dma_resp_valid = t->dma_resp_valid_o;
    out->dma_resp_rdata = t->dma_resp_rdata_o;
    out->dma_resp_err = t->dma_resp_err_o;
    out->busy = t->busy_o;
}

void core_rtl_step(struct core_rtl *p, uint64_t cycles)
{
    assert(p);
    p->m.step(cycles);
}

void core_rtl_skip(struct core_rtl *p, uint64_t cycles)
{
    assert(p);
    p->m.skip(cycles);
}

uint64_t core_rtl_cycle(const struct core_rtl *p)
{
    assert(p);
    return p->m.cycle();
}

int core_rtl_trace(struct core_rtl *p, const struct vtrace_opts *opts)
{
    assert(p);
    return p->m.trace_open(opts);
}
}
