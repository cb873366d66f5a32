/*
 * mem_port: the tensor-buffer memory port of the RTL blocks (rtl/README.md, "Memory port"), as
 * two plain C structs: what the block drives and what the memory answers in one cycle.
 *
 * The port has a header of its own because no single block owns it: the DMA's shim
 * (csim/shim/dma.h) and the Activation Node's (csim/shim/an.h) carry it as these structs, the
 * NAND write pipeline (csim/shim/nfw.h) drives the same signals, and the bus-functional model
 * that serves any of them from a DRAM model (models/dram/dram_port.h) takes and gives these
 * structs without knowing which block is behind them.
 *
 * Contract (rtl/README.md has the signal table): 64-bit beats; a request moves at a rising edge
 * where valid && req_ready; every request, read or write, gets exactly one response, in request
 * order (the write response is the acknowledgement); a response moves where rsp_valid &&
 * rsp_ready. err: the request's address was outside the memory (rdata is then 0).
 * Units: bytes, cycles of the block's clock.
 */
#ifndef CSIM_SHIM_MEM_PORT_H
#define CSIM_SHIM_MEM_PORT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Block -> memory: the signals the block drives (mem_req_*_o, mem_rsp_ready_o). */
struct mem_port_req {
    bool valid;
    bool write;
    uint64_t addr; /* byte address of the beat, a multiple of 8 */
    uint64_t wdata;
    uint8_t wstrb;
    bool rsp_ready;
};

/* Memory -> block: the signals the memory drives (mem_req_ready_i, mem_rsp_*_i). */
struct mem_port_rsp {
    bool req_ready;
    bool rsp_valid;
    uint64_t rdata;
    bool err;
};

#ifdef __cplusplus
}
#endif

#endif
