/*
 * dma_env_rtl: the verilated DMA as a dma_dut (see dma_env.h). Kept out of dma_env.c: the shim's
 * functions exist only in programs linked with a verilated DMA, and the unit tests that use
 * dma_env with the twin alone link no shim.
 */
#include "csim/shim/dma.h"
#include "testbench/dma/dma_env.h"

static void rtl_set(void *h, const struct dma_in *in)
{
    dma_rtl_set(h, in);
}

static void rtl_get(void *h, struct dma_out *out)
{
    dma_rtl_get(h, out);
}

static void rtl_step(void *h, uint64_t n)
{
    dma_rtl_step(h, n);
}

struct dma_dut dma_dut_rtl(struct dma_rtl *rtl)
{
    return (struct dma_dut){"rtl", rtl, rtl_set, rtl_get, rtl_step, NULL};
}
