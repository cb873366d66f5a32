// Shim: any single-stream block of rtl/common behind the vpipe C interface
// (see vpipe.h). Built once per verilated model: VTOP/VTOP_H name the
// verilated class and its header, VPIPE_MODULE the RTL module, P_Width and
// P_Depth the parameters it was verilated with; VPIPE_HAS_COUNT says that the
// block has a count_o occupancy port.
#include "csim/shim/vpipe.h"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

#include <cassert>

struct vpipe_rtl {
    VModel<VTOP> m;
    explicit vpipe_rtl(uint64_t seed) : m(seed)
    {
    }
};

extern "C" {

struct vpipe_rtl *vpipe_rtl_create(uint64_t seed)
{
    return new vpipe_rtl(seed);
}

void vpipe_rtl_destroy(struct vpipe_rtl *p)
{
    delete p;
}

void vpipe_rtl_params(const struct vpipe_rtl *p, struct vpipe_params *out)
{
    assert(p && out);
    out->module = VPIPE_MODULE;
    out->width = P_Width;
    out->depth = P_Depth;
}

void vpipe_rtl_set(struct vpipe_rtl *p, const struct vpipe_in *in)
{
    assert(p && in);
    VTOP *t = p->m.top();
    t->rst_i = in->rst;
    t->in_valid_i = in->in_valid;
    t->in_data_i = in->in_data;
    t->out_ready_i = in->out_ready;
}

void vpipe_rtl_get(struct vpipe_rtl *p, struct vpipe_out *out)
{
    assert(p && out);
    p->m.settle();
    VTOP *t = p->m.top();
    out->in_ready = t->in_ready_o;
    out->out_valid = t->out_valid_o;
    out->out_data = t->out_data_o;
#ifdef VPIPE_HAS_COUNT
    out->level = t->count_o;
#else
    out->level = -1;
#endif
}

void vpipe_rtl_step(struct vpipe_rtl *p, uint64_t cycles)
{
    assert(p);
    p->m.step(cycles);
}

void vpipe_rtl_skip(struct vpipe_rtl *p, uint64_t cycles)
{
    assert(p);
    p->m.skip(cycles);
}

uint64_t vpipe_rtl_cycle(const struct vpipe_rtl *p)
{
    assert(p);
    return p->m.cycle();
}

int vpipe_rtl_trace(struct vpipe_rtl *p, const struct vtrace_opts *opts)
{
    assert(p);
    return p->m.trace_open(opts);
}
}
