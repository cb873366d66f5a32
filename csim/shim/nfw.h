/*
 * nfw: C interface to the verilated NAND write pipelines (rtl/nfw/nfw_top.v), and the port
 * structs shared with their C twin (models/nfw/nfw_twin.h), which implements the same ports
 * cycle for cycle.
 *
 * Ports (rtl/nfw/nfw_top.v has the details):
 *   cmd   write commands: tensor-buffer address, length in bytes, stream
 *   mem   the tensor-buffer memory port of rtl/README.md (reads only)
 *   prog  program commands, one per page: channel, die (flat index), plane, block, page, and
 *         the first/last page of its multi-plane unit
 *   pdat  the page's bytes after its command, 8 per beat, little-endian, last beat flagged
 *   done  completions, one per page: stream, LPN, PBN, physical address, error flag
 *   cfg   firmware configuration: SET_STREAM, FREE_PB, USE_PB, BBT (NFW_CFG_*)
 *
 * Cycle protocol, as for every shim: nfw_rtl_set() drives the inputs, nfw_rtl_get() settles the
 * model and reads the outputs that hold before the next rising edge, nfw_rtl_step() advances whole
 * cycles. Every output is a register, so nfw_rtl_get() gives the same values before and after
 * nfw_rtl_set(). A payload field is meaningful only while its valid is high.
 */
#ifndef CSIM_SHIM_NFW_H
#define CSIM_SHIM_NFW_H

#include "csim/shim/mem_port.h"
#include "csim/shim/vtrace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Configuration operations (cfg_op). */
enum {
    NFW_CFG_SET_STREAM = 0, /* a = first block | n_blocks << 16, b = n_lblocks */
    NFW_CFG_FREE_PB = 1,    /* a = PBN (relative to the stream's first block) */
    NFW_CFG_USE_PB = 2,     /* a = PBN: busy, never handed out (retired) */
    NFW_CFG_BBT = 3,        /* idx = entry, a = block | plane << 16 | die << 20,
                             * b = spare | valid << 31 */
};

/* Parameters the model was built with (rtl/nfw/nfw_top.v). */
struct nfw_params {
    unsigned page_bytes;      /* bytes per page */
    unsigned planes;          /* planes per die */
    unsigned channels;        /* channels; channel = die % channels */
    unsigned dies_per_chan;   /* dies per channel; dies = channels x dies_per_chan */
    unsigned pages_per_block; /* pages per block */
    unsigned streams;         /* stream ids 0 .. streams-1 */
    unsigned max_pbs;         /* physical blocks a stream may own */
    unsigned bbt_entries;     /* bad-block replacement entries */
    unsigned slots;           /* page buffers in SRAM */
    unsigned max_reads;       /* tensor-buffer reads outstanding */
};

struct nfw_in {
    bool rst;
    /* cmd */
    bool cmd_valid;
    uint64_t cmd_addr; /* 40 bits */
    uint32_t cmd_len;
    uint8_t cmd_stream;
    /* mem */
    bool mem_req_ready;
    bool mem_rsp_valid;
    uint64_t mem_rsp_rdata;
    bool mem_rsp_err;
    /* prog, pdat, done */
    bool prog_ready;
    bool pdat_ready;
    bool done_ready;
    /* cfg */
    bool cfg_valid;
    uint8_t cfg_op, cfg_stream, cfg_idx;
    uint32_t cfg_a, cfg_b;
};

struct nfw_out {
    bool cmd_ready;
    /* mem */
    bool mem_req_valid;
    bool mem_req_write;
    uint64_t mem_req_addr;
    uint64_t mem_req_wdata;
    uint8_t mem_req_wstrb;
    bool mem_rsp_ready;
    /* prog */
    bool prog_valid;
    uint16_t prog_chan, prog_die;
    uint8_t prog_plane;
    uint16_t prog_block, prog_page;
    bool prog_first, prog_last;
    /* pdat */
    bool pdat_valid;
    uint64_t pdat_data;
    bool pdat_last;
    /* done */
    bool done_valid;
    uint8_t done_stream;
    uint32_t done_lpn;
    uint16_t done_pbn, done_die;
    uint8_t done_plane;
    uint16_t done_block, done_page;
    bool done_err;
    /* cfg, status */
    bool cfg_ready;
    bool idle;
};

/*
 * The state of one pipeline that depends on its write history once it is at rest (every stage
 * empty: idle_o is high from the next edge on): every other register is then at its reset or
 * configuration value, or holds data that is rewritten before it is read (rtl/nfw/README.md,
 * "Limits"), but for idle_o itself, which follows the stages a cycle late. A model reset and
 * configured alike, then loaded with another's state, continues that model's write history:
 * nfw_time uses it to bring the RTL to the twin's state without replaying the writes. Arrays
 * are per stream (the first `streams` entries count).
 */
#define NFW_STATE_STREAMS 16
struct nfw_state {
    bool idle; /* idle_q: low in the cycle after the last stage emptied */
    /* nfw_page_pack: each stream's append point, the page-buffer ring, the unit flags */
    uint32_t lpn[NFW_STATE_STREAMS];
    uint16_t lblock[NFW_STATE_STREAMS], page[NFW_STATE_STREAMS], die[NFW_STATE_STREAMS];
    uint16_t pbn[NFW_STATE_STREAMS];
    uint8_t plane[NFW_STATE_STREAMS];
    bool open[NFW_STATE_STREAMS];
    unsigned write_slot;
    bool cmd_first, page_err;
    /* nfw_alloc: each stream's busy blocks (bit b: block b; max_pbs <= 64) and scan start */
    uint64_t busy[NFW_STATE_STREAMS];
    uint32_t cursor[NFW_STATE_STREAMS];
    /* nfw_issue: the next page buffer to load and to read */
    unsigned load_slot, data_slot;
    /* The FIFOs, all empty: the entry each reads next (the RTL's read pointer without its wrap
     * bit: an empty FIFO whose two pointers are equal behaves alike for either wrap bit). */
    unsigned cmd_head, desc_head, rsp_head, pdat_head, flight_head, done_head;
};

/* The memory port's fields as the structs of csim/shim/mem_port.h, for a memory model that
 * answers in those (models/dram/dram_port.h): the memory's answer into the inputs, and the
 * request out of the outputs. */
static inline void nfw_in_mem(struct nfw_in *in, const struct mem_port_rsp *m)
{
    in->mem_req_ready = m->req_ready;
    in->mem_rsp_valid = m->rsp_valid;
    in->mem_rsp_rdata = m->rdata;
    in->mem_rsp_err = m->err;
}

static inline void nfw_out_mem(const struct nfw_out *o, struct mem_port_req *m)
{
    m->valid = o->mem_req_valid;
    m->write = o->mem_req_write;
    m->addr = o->mem_req_addr;
    m->wdata = o->mem_req_wdata;
    m->wstrb = o->mem_req_wstrb;
    m->rsp_ready = o->mem_rsp_ready;
}

struct nfw_rtl;

/* seed randomizes the model's initial state (--x-initial unique). */
struct nfw_rtl *nfw_rtl_create(uint64_t seed);
void nfw_rtl_destroy(struct nfw_rtl *p);
void nfw_rtl_params(const struct nfw_rtl *p, struct nfw_params *out);
void nfw_rtl_set(struct nfw_rtl *p, const struct nfw_in *in);
void nfw_rtl_get(struct nfw_rtl *p, struct nfw_out *out);
void nfw_rtl_step(struct nfw_rtl *p, uint64_t cycles);
uint64_t nfw_rtl_cycle(const struct nfw_rtl *p);
/* Start an FST trace (see vtrace.h); 0 or a negative errno. */
int nfw_rtl_trace(struct nfw_rtl *p, const struct vtrace_opts *opts);
/* Finish the FST trace: close it and rename it into place; 0 (also when none is open) or a
 * negative errno (the rename failed: nothing is left under the temporary name). */
int nfw_rtl_trace_close(struct nfw_rtl *p);

#ifdef __cplusplus
}
#endif

#endif
