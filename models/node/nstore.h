/*
 * nstore: a node's storage as the nodes use it, behind one interface with two backends: the
 * node's flash memory system (nflash: the Behemoth FMS, its stream FTL and record logs) or a
 * RAID 0 of conventional SSDs (nssd: the paper's baseline). The nodes append records to named
 * streams, read them back whole and free them; they do not see which backend holds them.
 *
 * Contract
 * --------
 * Modelled: what the backend models (nflash.h, nssd.h); every call of the FMS backend is the
 * nflash call of the same name with the same arguments, so a node on the FMS behaves exactly as
 * on nflash alone. The SSD backend is timing only (perf nodes): bytes given are not kept, reads
 * deliver nothing, the tensor-buffer addresses are not used; a stream's logical blocks
 * (nstore_align) are the FMS's alone.
 * Not modelled: what each backend leaves out.
 * Units: picoseconds, bytes; a record's pages are the backend's (struct slog_ext).
 * Errors (csim/err.h): the backend's, with its message in e.
 */
#ifndef MODELS_NODE_NSTORE_H
#define MODELS_NODE_NSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "models/node/nflash.h"
#include "models/node/nssd.h"

enum nstore_kind {
    NSTORE_FMS = 0,
    NSTORE_SSD = 1,
};

struct nstore {
    enum nstore_kind kind;
    struct nflash fl; /* NSTORE_FMS */
    struct nssd ssd;  /* NSTORE_SSD */
};

/* The FMS backend: nflash_init. */
int nstore_init_fms(struct nstore *s, const struct flash_cfg *cfg, const struct ftl_layout *l,
                    const char *const *names, uint32_t n, struct dram *tb, struct err *e);
/* The SSD backend: nssd_init (drive at grain; node names it in messages). */
int nstore_init_ssd(struct nstore *s, const char *node, const struct ssd_cfg *drive, uint32_t grain,
                    const struct ftl_layout *l, const char *const *names, uint32_t n,
                    struct err *e);
void nstore_fini(struct nstore *s);
/* The FMS backend: time writes on the NAND write pipeline too (nflash_set_write_pipe); the SSD
 * has its own write path: nothing. */
int nstore_set_write_pipe(struct nstore *s, uint64_t period_ps, struct err *e);
/* nflash_set_write_mode; the SSD: nothing. */
int nstore_set_write_mode(struct nstore *s, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                          uint64_t seed, struct err *e);

/* Index of stream `name`, or -1. */
int nstore_stream(const struct nstore *s, const char *name);
/* Stream i keeps no payload (nflash_set_nodata; the SSD keeps none anyway). */
void nstore_set_nodata(struct nstore *s, uint32_t i, bool nodata);

/* As nflash_write_tb / nflash_write_buf / nflash_read_tb / nflash_free. */
int nstore_write_tb(struct nstore *s, uint32_t i, uint64_t now, uint64_t tb_addr, uint64_t bytes,
                    struct slog_ext *x, uint64_t *done, uint64_t *free_at, struct err *e);
int nstore_write_buf(struct nstore *s, uint32_t i, uint64_t now, const void *buf, uint64_t bytes,
                     struct slog_ext *x, uint64_t *done, struct err *e);
int nstore_read_tb(struct nstore *s, uint32_t i, uint64_t now, const struct slog_ext *x,
                   uint64_t tb_addr, uint64_t *done, uint64_t *free_at, struct err *e);
int nstore_free(struct nstore *s, uint32_t i, uint64_t now, struct slog_ext *x, struct err *e);
/* The next record of stream i starts a fresh logical block (slog_align; the SSD: nothing). */
int nstore_align(struct nstore *s, uint32_t i, uint64_t now, struct err *e);

/* The backend itself, for its counters: NULL when it is the other one. */
struct nflash *nstore_flash(struct nstore *s);
struct nssd *nstore_ssd(struct nstore *s);

#endif
