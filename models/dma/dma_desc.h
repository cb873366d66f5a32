/*
 * dma_desc: the C model of what a tensor-buffer DMA descriptor means (rtl/dma, its twin
 * models/dma/dma_twin, and their users share it): the checks that decide whether a descriptor
 * runs, its shape and extent, the beats it takes, and its byte-level effect.
 *
 * Contract
 * --------
 * The descriptor, its statuses and the DMA's ports are the RTL's, owned by the DMA's shim
 * header (csim/shim/dma.h, which has the descriptor's contract); the functions here compute
 * what that contract says, for the twin, the tests and the machine's DMA timing.
 * Units: bytes.
 */
#ifndef MODELS_DMA_DMA_DESC_H
#define MODELS_DMA_DMA_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/shim/dma.h"

#ifdef __cplusplus
extern "C" {
#endif

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
