/*
 * wnode: the Weight Node: the model in flash (bf16 weights with fp32 biases, fp32 masters and
 * optimizer state, each in its own stream), a tensor buffer, and a reduce + optimizer unit. The
 * streams are the node's storage (nstore.h): its flash, or in perf a RAID 0 of conventional SSDs
 * (wnode_cfg.ssd).
 *
 * Contract
 * --------
 * Modelled: the node's part of a compiled program (models/host/compile.h):
 *   FLASH_RD    W: a layer's broadcast copy (bf16 Wq, then fp32 b) from the W stream into the
 *               tensor buffer; M, O: its masters and optimizer state into the tensor buffer
 *               (the optimizer needs them). Ends when the last byte is there.
 *   OPT_UPDATE  the reduced gradients (fp32 dW then db) from the tensor buffer through
 *               dnn_params_update_layer (models/dnn/dnn_params: the only optimizer), then the
 *               layer's new W, M and O records laid out in the tensor buffer's write-back slot.
 *               Duration: the later of the unit's compute, latency + ceil(params * cost /
 *               lanes) cycles (ours), and its streams through the tensor buffer (requester
 *               "optimizer"): it reads the gradients, masters and state and writes the new W,
 *               M and O records, 22 B per parameter for SGD and 30 B for Adam (wnode.c has the
 *               arithmetic), at their TB addresses (u.opt.grad, .state, .wout), the reads
 *               claimed before the writes, all asked for at the update's start.
 *   FLASH_WR    W, M or O: the new record appended to its stream; the previous version of the
 *               record is freed (its logical blocks are released once empty).
 * The fp32 masters and optimizer state the optimizer works on are a struct dnn_params owned
 * here (the functional image of the WN's state); the flash copies are written from it and read
 * for timing; wnode_preload() writes every record (at creation and after a restore).
 * Records of each stream are numbered 0..n_rec - 1 (the program's n_rec; a fully connected
 * program's record l is layer l). A command whose `cycles` is nonzero takes that many cycles of
 * its resource's clock (OPT_UPDATE: the optimizer unit's, as its compute; its tensor-buffer
 * streams still bound it) instead of its operands' timing; an OPT_UPDATE's parameters are
 * u.opt.params when nonzero, else the layer's (a perf program's command has no addresses: its
 * streams run from address 0).
 * Perf (wnode_cfg.perf): payload-free. No dnn_params, no numerics: OPT_UPDATE only takes its
 * time (from the number of parameters); the tensor buffer keeps no contents; the streams are
 * timing only (nflash_set_nodata) with the records appended, read, freed and released exactly
 * as in tlm; wnode_preload() writes each record of rec_bytes at its size, a perf program's in
 * the order the program writes them back (so each stream's log is first in, first out).
 * Records: W = [Wq bf16 in x out][b fp32 out]; M = [w fp32 in x out][b fp32 out];
 * O = SGD [v_w][v_b], Adam [m_w][v_w][m_b][v_b] (fp32).
 * The tensor buffer's channels are claimed by the flash reads and writes (nflash.h), the
 * fabric (models/machine) and the optimizer unit's streams (the ideal storage's buffer takes no
 * time for any of them: dram_set_free).
 * Not modelled: the trained-weights stream T (written at the end of training), the optimizer
 * unit's buffering (its streams are whole accesses, not blocks interleaved), PCIe.
 * Units: picoseconds, bytes, parameters.
 */
#ifndef MODELS_NODE_WNODE_H
#define MODELS_NODE_WNODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/dnn/dnn_params.h"
#include "models/dram/dram.h"
#include "models/host/compile.h"
#include "models/node/nflash.h"
#include "models/node/nstore.h"

struct wnode_cfg {
    struct dram_cfg tb;
    struct flash_cfg flash;
    uint64_t period_ps; /* optimizer unit clock */
    uint32_t lanes, latency, cost_sgd, cost_adam;
    bool state_payload;           /* keep the bytes of M and O in flash (else timing only) */
    uint32_t n_rec[HC_N_STREAMS]; /* records of the W, M and O streams (the program's n_rec) */
    bool write_pipe;              /* time flash writes on the NAND write pipeline too */
    bool perf;                    /* payload-free (see the contract) */
    bool adam;                    /* perf: the update costs cost_adam per parameter, else
                                     cost_sgd (tlm: the optimizer of the dnn_params) */
    const uint64_t *rec_bytes[HC_N_STREAMS]; /* perf: bytes of each W, M and O record, n_rec
                                                of each (0: the record is not preloaded);
                                                copied */
    const struct ssd_cfg *ssd; /* perf: the streams on a RAID 0 of these SSDs (nssd.h), not on
                                  the flash; NULL: the flash. Read at creation only */
    uint32_t ssd_grain;        /* ... simulated at this grain of pages (ssd_cfg_coarse) */
};

struct wnode_stats {
    uint64_t busy_ps[3]; /* flash read, flash write, optimizer */
    uint64_t updates, params_updated;
    uint64_t opt_compute_ps; /* the optimizer unit's compute time, its streams aside */
    uint64_t flash_rd_bytes, flash_wr_bytes;
};

struct wnode;

/* p is copied (the WN owns its state); perf: p is NULL. */
int wnode_create(const struct wnode_cfg *cfg, const struct dnn_params *p, struct wnode **out,
                 struct err *e);
void wnode_destroy(struct wnode *w);

/* Write every layer's W, M and O records to flash at now (freeing older versions); *done = all
 * programmed. */
/* p: the program the node runs (its write-back order, for a perf program's preload). */
int wnode_preload(struct wnode *w, const struct hc_prog *p, uint64_t now, uint64_t *done,
                  struct err *e);

/* Execute command c started at now: *end = its results are there; *free_at = its resource can
 * take the next command (flash: the controller is done, the dies may still work). */
int wnode_exec(struct wnode *w, const struct hc_prog *p, const struct hc_cmd *c, uint64_t now,
               uint64_t *end, uint64_t *free_at, struct err *e);
/* Every layer was updated: close the optimizer step (dnn_params_end_step; perf: count it). */
int wnode_end_step(struct wnode *w, struct err *e);
/* The model of its flash write pipeline (nstore_set_write_mode), from the next write on. */
int wnode_set_write_mode(struct wnode *w, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                         uint64_t seed, struct err *e);
/* Optimizer steps completed. */
uint64_t wnode_steps(const struct wnode *w);

/* The WN's parameters; NULL in perf. */
struct dnn_params *wnode_params(struct wnode *w);
struct dram *wnode_tb(struct wnode *w);
/* The node's flash (NULL when its storage is an SSD array) and its storage. */
struct nflash *wnode_flash(struct wnode *w);
struct nstore *wnode_store(struct wnode *w);
const struct wnode_stats *wnode_get_stats(const struct wnode *w);

#endif
