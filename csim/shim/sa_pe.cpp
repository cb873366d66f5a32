// Shim: the processing element rtl/core/sa_pe_cell.v (sa_pe.v and its flags) behind the C
// interface of sa_pe.h. VTOP/VTOP_H name the verilated class and its header.
#include "csim/shim/sa_pe.h"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

#include <cassert>

struct sa_pe_rtl {
    VModel<VTOP> m;
    explicit sa_pe_rtl(uint64_t seed) : m(seed)
    {
    }
};

extern "C" {

struct sa_pe_rtl *sa_pe_rtl_create(uint64_t seed)
{
    return new sa_pe_rtl(seed);
}

void sa_pe_rtl_destroy(struct sa_pe_rtl *p)
{
    delete p;
}

void sa_pe_rtl_set(struct sa_pe_rtl *p, const struct sa_pe_in *in)
{
    assert(p && in);
    VTOP *t = p->m.top();
    t->rst_i = in->rst;
    t->valid_i = in->valid;
    t->clear_i = in->clear;
    t->last_i = in->last;
    t->a_i = in->a;
    t->b_i = in->b;
}

void sa_pe_rtl_get(struct sa_pe_rtl *p, struct sa_pe_out *out)
{
    assert(p && out);
    p->m.settle();
    VTOP *t = p->m.top();
    out->valid = t->valid_o;
    out->clear = t->clear_o;
    out->last = t->last_o;
    out->a = t->a_o;
    out->b = t->b_o;
    out->sum_valid = t->sum_valid_o;
    out->sum = t->sum_o;
}

void sa_pe_rtl_step(struct sa_pe_rtl *p, uint64_t cycles)
{
    assert(p);
    p->m.step(cycles);
}

uint64_t sa_pe_rtl_cycle(const struct sa_pe_rtl *p)
{
    assert(p);
    return p->m.cycle();
}

int sa_pe_rtl_trace(struct sa_pe_rtl *p, const struct vtrace_opts *opts)
{
    assert(p);
    return p->m.trace_open(opts);
}
}
