// Shim: the processing element rtl/core/sa_pe_cell.v (sa_pe.v and its flags) behind the C
// interface of core_sa_pe.h. VTOP/VTOP_H name the verilated class and its header.
#include "csim/shim/core_sa_pe.h"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

static void drive(VTOP *t, const struct sa_pe_in *in)
{
    t->rst_i = in->rst;
    t->valid_i = in->valid;
    t->clear_i = in->clear;
    t->last_i = in->last;
    t->a_i = in->a;
    t->b_i = in->b;
}

static void sample(const VTOP *t, struct sa_pe_out *out)
{
    out->valid = t->valid_o;
    out->clear = t->clear_o;
    out->last = t->last_o;
    out->a = t->a_o;
    out->b = t->b_o;
    out->sum_valid = t->sum_valid_o;
    out->sum = t->sum_o;
}

static void params(struct sa_pe_params *out)
{
    out->acc_stages = P_AccStages;
}

VMODEL_SHIM(sa_pe)
VMODEL_SHIM_PARAMS(sa_pe)
