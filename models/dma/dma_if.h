/*
 * dma_if: what the tensor-buffer DMA (rtl/dma, models/dma/dma_twin) and its users share:
 * the descriptor format, the completion status codes, the C images of the DMA's ports (one
 * struct for the RTL shim and the C twin alike), the checks that decide whether a descriptor
 * runs, and the byte-level meaning of a descriptor.
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
 * A descriptor runs only if it passes dma_desc_check(); otherwise it completes with the
 * error status and moves nothing. Statuses, first match wins:
 *   DMA_ST_BAD_DESC   rows == 0, len == 0, xpose on a store, xpose with an odd len, or
 *                     destination rows that overlap (more than one destination row and
 *                     dst_stride < destination row length);
 *   DMA_ST_SRC_RANGE  the source reaches outside its memory: src + (rows - 1) * src_stride
 *                     + len > size of the source memory;
 *   DMA_ST_DST_RANGE  the same for the destination, with its own rows and row length;
 *   DMA_ST_MEM_ERR    (only after running) a memory (the tensor buffer, or the SRAM)
 *                     answered a request with an error; the transfer ran to its end.
 * Field widths are those of the RTL ports (DMA_*_BITS); dma_desc_fits() says whether a C
 * descriptor is representable. Source rows may overlap (they are only read).
 * Units: bytes, clock cycles of the DMA.
 */
#ifndef MODELS_DMA_DMA_IF_H
#define MODELS_DMA_DMA_IF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/dram/dram_port.h"

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
    struct dram_port_rsp mem;
    struct dma_sram_rsp sram;
};

/* Outputs of the DMA in one cycle (all from registers: they do not depend on dma_in). */
struct dma_out {
    bool desc_ready;
    bool cpl_valid;
    struct dma_cpl cpl;
    struct dram_port_req mem;
    struct dma_sram_req sram;
    bool idle; /* nothing queued, running or waiting to be reported */
};

/* The parameters of the default RTL configuration (rtl/dma/dma_top.v). */
void dma_params_default(struct dma_params *p);

/* Whether every field fits its port width (the RTL would see a truncated field). */
bool dma_desc_fits(const struct dma_desc *d);

/* Truncate every field to its port width, as the RTL's ports do. */
void dma_desc_truncate(struct dma_desc *d);

/* Rows and row length of the destination: (rows, len), or (len / 2, 2 * rows) with xpose. */
void dma_desc_dst_shape(const struct dma_desc *d, uint64_t *rows, uint64_t *len);

/* First byte past the source / destination region (the 64-bit sum cannot overflow for
 * fields within their widths). */
uint64_t dma_desc_src_end(const struct dma_desc *d);
uint64_t dma_desc_dst_end(const struct dma_desc *d);

/* The status the DMA gives a descriptor before running it (DMA_ST_OK: it runs). */
enum dma_status dma_desc_check(const struct dma_desc *d, const struct dma_params *p);

/* Name of a status, for messages. */
const char *dma_status_name(unsigned status);

/* Beats (8-byte memory accesses) the DMA issues on its read and write side for a descriptor
 * that passes the check. */
void dma_desc_beats(const struct dma_desc *d, uint64_t *rd_beats, uint64_t *wr_beats);

/* Byte accessors for dma_desc_apply. */
struct dma_mem_ops {
    int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
    int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);
};

/*
 * The reference meaning of a descriptor that passed the check: copy (or transpose) the bytes
 * from src_mem to dst_mem, destination rows in order. Returns 0, or the first accessor error.
 */
int dma_desc_apply(const struct dma_desc *d, const struct dma_mem_ops *src_ops, void *src_ctx,
                   const struct dma_mem_ops *dst_ops, void *dst_ctx);

/* A descriptor as one line, for messages. */
void dma_desc_format(const struct dma_desc *d, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
