#include "models/dma/dma_desc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define MASK(bits) ((1ull << (bits)) - 1)

void dma_params_default(struct dma_params *p)
{
    *p = (struct dma_params){
        .sram_addr_bits = 20,
        .sram_bytes = 1ull << 20,
        .tb_bytes = 16ull << 30,
        .sram_lat = 2,
        .max_rd_out = 64,
        .max_wr_out = 128,
        .desc_depth = 4,
        .cpl_depth = 4,
    };
}

bool dma_desc_fits(const struct dma_desc *d)
{
    return d->src <= MASK(DMA_ADDR_BITS) && d->dst <= MASK(DMA_ADDR_BITS) &&
           d->src_stride <= MASK(DMA_ADDR_BITS) && d->dst_stride <= MASK(DMA_ADDR_BITS) &&
           d->rows <= MASK(DMA_ROWS_BITS) && d->len <= MASK(DMA_LEN_BITS);
}

void dma_desc_truncate(struct dma_desc *d)
{
    d->src &= MASK(DMA_ADDR_BITS);
    d->dst &= MASK(DMA_ADDR_BITS);
    d->src_stride &= MASK(DMA_ADDR_BITS);
    d->dst_stride &= MASK(DMA_ADDR_BITS);
    d->rows &= (uint32_t)MASK(DMA_ROWS_BITS);
    d->len &= (uint32_t)MASK(DMA_LEN_BITS);
}

void dma_desc_dst_shape(const struct dma_desc *d, uint64_t *rows, uint64_t *len)
{
    if (d->xpose) {
        *rows = d->len / 2;
        *len = 2ull * d->rows;
    } else {
        *rows = d->rows;
        *len = d->len;
    }
}

uint64_t dma_desc_src_end(const struct dma_desc *d)
{
    return d->src + (uint64_t)(d->rows ? d->rows - 1 : 0) * d->src_stride + d->len;
}

uint64_t dma_desc_dst_end(const struct dma_desc *d)
{
    uint64_t rows, len;
    dma_desc_dst_shape(d, &rows, &len);
    return d->dst + (rows ? rows - 1 : 0) * d->dst_stride + len;
}

enum dma_status dma_desc_check(const struct dma_desc *d, const struct dma_params *p)
{
    uint64_t dst_rows, dst_len;
    dma_desc_dst_shape(d, &dst_rows, &dst_len);
    if (d->rows == 0 || d->len == 0 || (d->xpose && (d->store || d->len % 2)) ||
        (dst_rows > 1 && d->dst_stride < dst_len))
        return DMA_ST_BAD_DESC;
    uint64_t src_size = d->store ? p->sram_bytes : p->tb_bytes;
    uint64_t dst_size = d->store ? p->tb_bytes : p->sram_bytes;
    if (dma_desc_src_end(d) > src_size)
        return DMA_ST_SRC_RANGE;
    if (dma_desc_dst_end(d) > dst_size)
        return DMA_ST_DST_RANGE;
    return DMA_ST_OK;
}

const char *dma_status_name(unsigned status)
{
    static const char *const names[] = {"OK", "BAD_DESC", "SRC_RANGE", "DST_RANGE", "MEM_ERR"};
    return status < sizeof(names) / sizeof(names[0]) ? names[status] : "?";
}

/* Beats of a segment of len bytes at addr. */
static uint64_t seg_beats(uint64_t addr, uint64_t len)
{
    return (addr % DMA_BEAT_BYTES + len + DMA_BEAT_BYTES - 1) / DMA_BEAT_BYTES;
}

void dma_desc_beats(const struct dma_desc *d, uint64_t *rd_beats, uint64_t *wr_beats)
{
    uint64_t rd = 0, wr = 0;
    if (!d->xpose) {
        for (uint64_t r = 0; r < d->rows; r++) {
            rd += seg_beats(d->src + r * d->src_stride, d->len);
            wr += seg_beats(d->dst + r * d->dst_stride, d->len);
        }
    } else {
        /* 4 x 4-element tiles: a source segment per tile row, a destination segment per
         * tile column (see rtl/dma/dma_agen.v). */
        uint64_t cols = d->len / 2;
        for (uint64_t r = 0; r < d->rows; r++)
            for (uint64_t c = 0; c < cols; c += 4) {
                uint64_t w = cols - c < 4 ? cols - c : 4;
                rd += seg_beats(d->src + r * d->src_stride + 2 * c, 2 * w);
            }
        for (uint64_t c = 0; c < cols; c++)
            for (uint64_t r = 0; r < d->rows; r += 4) {
                uint64_t t = d->rows - r < 4 ? d->rows - r : 4;
                wr += seg_beats(d->dst + c * d->dst_stride + 2 * r, 2 * t);
            }
    }
    *rd_beats = rd;
    *wr_beats = wr;
}

int dma_desc_apply(const struct dma_desc *d, const struct dma_mem_ops *src_ops, void *src_ctx,
                   const struct dma_mem_ops *dst_ops, void *dst_ctx)
{
    uint64_t dst_rows, dst_len;
    dma_desc_dst_shape(d, &dst_rows, &dst_len);
    uint8_t *row = malloc(dst_len ? dst_len : 1);
    int rc = 0;
    if (!row)
        return -1;
    for (uint64_t r = 0; r < dst_rows && !rc; r++) {
        if (!d->xpose) {
            rc = src_ops->read(src_ctx, d->src + r * d->src_stride, row, dst_len);
        } else {
            /* Destination row r is source column r. */
            for (uint64_t i = 0; i < d->rows && !rc; i++)
                rc = src_ops->read(src_ctx, d->src + i * d->src_stride + 2 * r, row + 2 * i, 2);
        }
        if (!rc)
            rc = dst_ops->write(dst_ctx, d->dst + r * d->dst_stride, row, dst_len);
    }
    free(row);
    return rc;
}

void dma_desc_format(const struct dma_desc *d, char *buf, size_t len)
{
    snprintf(buf, len,
             "%s%s tag %u src %#" PRIx64 " dst %#" PRIx64 " rows %" PRIu32 " len %" PRIu32
             " src_stride %" PRIu64 " dst_stride %" PRIu64,
             d->store ? "store SRAM->TB" : "load TB->SRAM", d->xpose ? " xpose" : "", d->tag,
             d->src, d->dst, d->rows, d->len, d->src_stride, d->dst_stride);
}
