/*
 * slog: a circular log of records on one append-only flash stream (models/flash/ftl_stream),
 * with the bookkeeping that decides when a logical block (LB) can be released.
 *
 * Contract
 * --------
 * Modelled: records (a tensor of some bytes) appended one after the other at page granularity
 * (each record starts on a page boundary; the tail of its last page is padding); the append
 * point wraps to LPN 0 at the end of the stream's logical space. Every LB counts the pages of
 * live records in it. A record is freed when its data are consumed (activations after the
 * backward pass, inputs after their step, weights when a newer version is written); an LB is
 * released to the FTL (ftl_stream_release: erase, round-robin reuse, P/E) as soon as it holds
 * no live page and the append point has left it. slog_align() closes the LB being filled, so
 * the next record starts a fresh LB (and the closed one is released once its records are
 * freed).
 * Not modelled: reads (the caller reads a record's pages through flash_ctrl with its extent),
 * records larger than the stream.
 * Units: bytes, pages (LPN inside the stream), picoseconds.
 */
#ifndef MODELS_NODE_SLOG_H
#define MODELS_NODE_SLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/flash/ftl_stream.h"

/* Where a record lives. */
struct slog_ext {
    uint64_t lpn;   /* first page */
    uint64_t pages; /* pages it covers */
    uint64_t bytes; /* bytes of data */
    void *data;     /* record store (models/node/nflash.h): the bytes, or NULL; slog never
                       touches it */
};

struct slog {
    struct ftl_stream *s;
    uint64_t sbp;    /* pages per LB */
    uint64_t lpages; /* pages of the logical space */
    uint32_t n_lb;
    uint32_t page_bytes;
    uint64_t append; /* next LPN */
    uint64_t *live;  /* [n_lb] live pages */
    bool *mapped;    /* [n_lb] written since its last release */
    uint64_t live_pages;
    uint64_t released; /* LBs released so far */
};

/* 0 or -ENOMEM. The stream must outlive the log. Errors (csim/err.h): the message is in e. */
int slog_init(struct slog *l, struct ftl_stream *s, uint32_t page_bytes, struct err *e);
void slog_fini(struct slog *l);

/* Pages a record of `bytes` takes. */
uint64_t slog_pages(const struct slog *l, uint64_t bytes);

/*
 * Append a record of `bytes` at now. buf: slog_pages(bytes) * page_bytes bytes (the tail
 * padding included), or NULL (timing only). *x = where it went, *done = programmed.
 * -ENOSPC (the log is full: the next LBs still hold live records), or the FTL's error.
 */
int slog_append(struct slog *l, uint64_t now, const void *buf, uint64_t bytes, struct slog_ext *x,
                uint64_t *done, struct err *e);

/* The record's data are consumed; release the LBs that became empty and closed. *done = end of
 * their erases (now if none). */
int slog_free(struct slog *l, uint64_t now, const struct slog_ext *x, uint64_t *done,
              struct err *e);

/* Start the next record on a fresh LB (release the current one if it is empty). */
int slog_align(struct slog *l, uint64_t now, uint64_t *done, struct err *e);

#endif
