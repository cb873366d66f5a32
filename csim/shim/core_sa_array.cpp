// Shim: the systolic array rtl/core/sa_array.v behind the C interface of core_sa_array.h.
// VTOP/VTOP_H name the verilated class and its header. The lane vectors are as wide as the
// parameters make them: up to 64 bits a machine word, wider ones Verilator's array of 32-bit words
// (VlWide).
#include "csim/shim/core_sa_array.h"
#include "csim/shim/vmodel.hpp"

#include <type_traits>

#include VTOP_H

template <class T>
static typename std::enable_if<std::is_integral<T>::value>::type put16(T &port, const uint16_t *v,
                                                                       unsigned n)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < n; i++)
        x |= (uint64_t)v[i] << (16 * i);
    port = static_cast<T>(x);
}

template <std::size_t N> static void put16(VlWide<N> &port, const uint16_t *v, unsigned n)
{
    for (std::size_t w = 0; w < N; w++)
        port[w] = 0;
    for (unsigned i = 0; i < n; i++)
        port[i / 2] |= (uint32_t)v[i] << (16 * (i % 2));
}

template <class T>
static typename std::enable_if<std::is_integral<T>::value>::type get32(const T &port, uint32_t *v,
                                                                       unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        v[i] = static_cast<uint32_t>((uint64_t)port >> (32 * i));
}

template <std::size_t N> static void get32(const VlWide<N> &port, uint32_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        v[i] = port[i];
}

static void drive(VTOP *t, const struct sa_array_in *in)
{
    t->rst_i = in->rst;
    t->step_valid_i = in->valid;
    t->step_clear_i = in->clear;
    t->step_last_i = in->last;
    put16(t->step_a_i, in->a, P_Rows);
    put16(t->step_b_i, in->b, P_Cols);
}

static void sample(const VTOP *t, struct sa_array_out *out)
{
    out->row_valid = t->row_valid_o;
    get32(t->row_sum_o, out->row_sum, P_Cols);
}

static void params(struct sa_array_params *out)
{
    out->rows = P_Rows;
    out->cols = P_Cols;
    out->acc_stages = P_AccStages;
}

VMODEL_SHIM(sa_array)
VMODEL_SHIM_PARAMS(sa_array)
