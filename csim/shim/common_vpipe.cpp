// Shim: any single-stream block of rtl/common behind the vpipe C interface
// (see common_vpipe.h). Built once per verilated model: VTOP/VTOP_H name the
// verilated class and its header, VPIPE_MODULE the RTL module, P_Width and
// P_Depth the parameters it was verilated with; VPIPE_HAS_COUNT says that the
// block has a count_o occupancy port.
#include "csim/shim/common_vpipe.h"
#include "csim/shim/vmodel.hpp"

#include VTOP_H

static void params(struct vpipe_params *out)
{
    out->module = VPIPE_MODULE;
    out->width = P_Width;
    out->depth = P_Depth;
}

static void drive(VTOP *t, const struct vpipe_in *in)
{
    t->rst_i = in->rst;
    t->in_valid_i = in->in_valid;
    t->in_data_i = in->in_data;
    t->out_ready_i = in->out_ready;
}

static void sample(const VTOP *t, struct vpipe_out *out)
{
    out->in_ready = t->in_ready_o;
    out->out_valid = t->out_valid_o;
    out->out_data = t->out_data_o;
#ifdef VPIPE_HAS_COUNT
    out->level = t->count_o;
#else
    out->level = -1;
#endif
}

VMODEL_SHIM(vpipe)
VMODEL_SHIM_PARAMS(vpipe)
VMODEL_SHIM_SKIP(vpipe)
