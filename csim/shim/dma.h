/*
 * dma: C interface to the verilated tensor-buffer DMA (rtl/dma/dma_top.v), and the owner of
 * its ports: the plain C structs below are the RTL's ports, shared with the C twin
 * (models/dma/dma_twin.h, the same shape as dma_twin_), which implements them cycle for cycle,
 * so that tests can run both in lockstep. Functions are prefixed dma_rtl_. The descriptor
 * checks and the byte-level meaning of a descriptor are C models: models/dma/dma_desc.h.
 *
 * Contract
 * --------
 * A descriptor moves a 2-D block of bytes between the node's tensor buffer (TB, DDR) and the
 * compute core's SRAM:
 *   store = 0: TB -> SRAM ("load"), store = 1: SRAM -> TB ("store").
 *   Plain (xpose = 0): rows rows of len bytes; row r is read at src + r * src_stride and
 *     written at dst + r * dst_stride. Any length, any byte alignment of either side.
 *   Transpose (xpose = 1, loads only, len even): the source is a rows x (len / 2) matrix of
 *     2-byte elements, element (r, c) at src + r * src_stride + 2c; the destination receives
 *     its transpose, a (len / 2) x rows matrix, element (c, r) at dst + c * dst_stride + 2r.
 *     So destination row c holds column c of the source: rows * 2 bytes.
 * A descriptor runs only if it passes the DMA's checks (dma_desc_check() is their C model);
 * otherwise it completes with the error status and moves nothing. Statuses, first match wins:
 *   DMA_ST_BAD_DESC   rows == 0, len == 0, xpose on a store, xpose with an odd len, or
 *                     destination rows that overlap (more than one destination row and
 *                     dst_stride < destination row length);
 *   DMA_ST_SRC_RANGE  the source reaches outside its memory: src + (rows - 1) * src_stride
 *                     + len > size of the source memory;
 *   DMA_ST_DST_RANGE  the same for the destination, with its own rows and row length;
 *   DMA_ST_MEM_ERR    (only after running) a memory (the tensor buffer, or the SRAM)
 *                     answered a request with an error; the transfer ran to its end.
 * Field widths are those of the RTL ports (DMA_*_BITS); descriptor fields wider than their
 * ports are truncated (dma_desc_fits() says whether they fit). Source rows may overlap (they
 * are only read).
 * Ports: descriptor and completion queues (valid/ready), the tensor-buffer memory port
 * (csim/shim/mem_port.h) and the core's SRAM port (struct dma_sram_req / dma_sram_rsp).
 * Units: bytes, clock cycles of the DMA.
 *
 * Cycle protocol, as for every shim: dma_rtl_set() drives the inputs, dma_rtl_get() settles
 * the model and reads the outputs that hold before the next rising edge, dma_rtl_step()
 * advances whole cycles. A beat moves at a rising edge where valid && ready were both high.
 */
#ifndef CSIM_SHIM_DMA_H
#define CSIM_SHIM_DMA_H

#include "csim/shim/mem_port.h"
#include "csim/shim/vtrace.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Descriptor and completion field widths: those of the RTL ports (rtl/dma/dma_top.v). */
#define DMA_ADDR_BITS   40 /* src, dst, src_stride, dst_stride */
#define DMA_ROWS_BITS   16
#define DMA_LEN_BITS    24
#define DMA_TAG_BITS    8
#define DMA_CYCLES_BITS 32 /* completion cycle count, saturating */
#define DMA_BEAT_BYTES  8  /* data width of both memory ports */

enum dma_status {
    DMA_ST_OK = 0,
    DMA_ST_BAD_DESC = 1,
    DMA_ST_SRC_RANGE = 2,
    DMA_ST_DST_RANGE = 3,
    DMA_ST_MEM_ERR = 4,
};

struct dma_desc {
    bool store;          /* 0: TB -> SRAM, 1: SRAM -> TB */
    bool xpose;          /* transpose 2-byte elements (loads only) */
    uint8_t tag;         /* echoed in the completion */
    uint64_t src, dst;   /* byte addresses in their memories */
    uint32_t rows;       /* source rows, 1 .. 2^16 - 1 */
    uint32_t len;        /* bytes per source row, 1 .. 2^24 - 1 */
    uint64_t src_stride; /* bytes from one source row to the next */
    uint64_t dst_stride; /* bytes from one destination row to the next */
};

struct dma_cpl {
    uint8_t tag;
    uint8_t status;  /* enum dma_status */
    uint32_t cycles; /* from leaving the descriptor queue to entering the completion queue */
};

/* Parameters of a DMA instance (RTL parameters; the twin takes the same). */
struct dma_params {
    unsigned sram_addr_bits; /* SramAddrW: width of the SRAM byte address */
    uint64_t sram_bytes;     /* SramBytes: size of the SRAM map */
    uint64_t tb_bytes;       /* TbSizeKiB * 1024: size of the tensor buffer */
    unsigned sram_lat;       /* SramLat: SRAM response latency, cycles */
    unsigned max_rd_out;     /* MaxRdOut: reads in flight or buffered, a power of two */
    unsigned max_wr_out;     /* MaxWrOut: writes not yet acknowledged */
    unsigned desc_depth;     /* DescDepth: descriptor queue entries, a power of two */
    unsigned cpl_depth;      /* CplDepth: completion queue entries, a power of two */
};

/* The core's SRAM port as the DMA drives it (sram_req_*_o). */
struct dma_sram_req {
    bool valid;
    bool write;
    uint64_t addr; /* byte address of the beat, a multiple of 8 */
    uint64_t wdata;
    uint8_t wstrb;
};

/* ... and as the SRAM answers (sram_req_ready_i, sram_rsp_*_i), as rtl/core/core_dma.v does:
 * one response per request, reads and writes alike, a fixed latency after the request was
 * accepted, no backpressure; rdata for a read (0 for a write), err for a bad address. */
struct dma_sram_rsp {
    bool req_ready;
    bool rsp_valid;
    uint64_t rdata;
    bool err;
};

/* Inputs of the DMA for one cycle. */
struct dma_in {
    bool rst;
    bool desc_valid;
    struct dma_desc desc;
    bool cpl_ready;
    struct mem_port_rsp mem;
    struct dma_sram_rsp sram;
};

/* Outputs of the DMA in one cycle (all from registers: they do not depend on dma_in). */
struct dma_out {
    bool desc_ready;
    bool cpl_valid;
    struct dma_cpl cpl;
    struct mem_port_req mem;
    struct dma_sram_req sram;
    bool idle; /* nothing queued, running or waiting to be reported */
};

struct dma_rtl;

/* seed randomizes the model's initial state (--x-initial unique). */
struct dma_rtl *dma_rtl_create(uint64_t seed);
void dma_rtl_destroy(struct dma_rtl *p);
/* The parameters the model was verilated with. */
void dma_rtl_params(const struct dma_rtl *p, struct dma_params *out);
void dma_rtl_set(struct dma_rtl *p, const struct dma_in *in);
void dma_rtl_get(struct dma_rtl *p, struct dma_out *out);
void dma_rtl_step(struct dma_rtl *p, uint64_t cycles);
uint64_t dma_rtl_cycle(const struct dma_rtl *p);
/* Start an FST trace (see vtrace.h); 0 or a negative errno. */
int dma_rtl_trace(struct dma_rtl *p, const struct vtrace_opts *opts);
/* Finish the FST trace: close it and rename it into place; 0 (also when none is open) or a
 * negative errno (the rename failed: nothing is left under the temporary name). */
int dma_rtl_trace_close(struct dma_rtl *p);

#ifdef __cplusplus
}
#endif

#endif
