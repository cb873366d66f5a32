/*
 * nflash.c - a node's flash memory system; see nflash.h.
 */
#include "models/node/nflash.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nflash_stream_size(const struct ftl_layout *l, const struct flash_geom *g, const char *name,
                        uint64_t *bytes, uint64_t *lb_bytes)
{
    const struct ftl_region *r = ftl_layout_find(l, name);

    *bytes = 0;
    *lb_bytes = 0;
    if (!r || ftl_layout_validate(l, g, NULL))
        return;
    uint64_t lb =
        (uint64_t)flash_geom_dies(g) * g->planes_per_die * g->pages_per_block * g->page_bytes;
    *lb_bytes = lb;
    *bytes = lb * r->count;
}

int nflash_init(struct nflash *f, const struct flash_cfg *cfg, const struct ftl_layout *l,
                const char *const *names, uint32_t n, struct dram *tb, struct err *e)
{
    int rc;

    memset(f, 0, sizeof(*f));
    f->layout = *l;
    f->tb = tb;
    f->rid_rd = f->rid_wr = -1;
    if (tb) {
        f->rid_rd = dram_requester(tb, "flash_rd");
        f->rid_wr = dram_requester(tb, "flash_wr");
    }
    f->page_bytes = cfg->geom.page_bytes;
    rc = ftl_layout_validate(l, &cfg->geom, e);
    if (rc)
        return rc;
    if (n > NFLASH_MAX_STREAMS)
        n = NFLASH_MAX_STREAMS;
    rc = flash_sys_init_layout(&f->sys, cfg, l, names, n, e);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        f->name[i] = names[i];
        f->n = i + 1;
        rc = slog_init(&f->log[i], f->sys.s[i], f->page_bytes, e);
        if (rc) {
            err_prefix(e, rc, "flash");
            goto out;
        }
    }
    return 0;
out:
    nflash_fini(f);
    return rc;
}

void nflash_fini(struct nflash *f)
{
    for (uint32_t i = 0; i < f->n; i++)
        slog_fini(&f->log[i]);
    f->n = 0;
    flash_sys_fini(&f->sys);
    nfw_time_destroy(f->wp);
    free(f->page_buf);
    memset(f, 0, sizeof(*f));
}

int nflash_stream(const struct nflash *f, const char *name)
{
    for (uint32_t i = 0; i < f->n; i++)
        if (strcmp(f->name[i], name) == 0)
            return (int)i;
    return -1;
}

int nflash_set_write_pipe(struct nflash *f, uint64_t period_ps, struct err *e)
{
    uint32_t lb[NFLASH_MAX_STREAMS];

    for (uint32_t i = 0; i < f->n; i++)
        lb[i] = (uint32_t)(ftl_stream_lpages(f->sys.s[i]) / ftl_stream_sb_pages(f->sys.s[i]));
    nfw_time_destroy(f->wp);
    f->wp = NULL;
    return nfw_time_create(flash_fms_cfg(f->sys.fms), f->n, lb, period_ps, dram_get_cfg(f->tb),
                           &f->wp, e);
}

int nflash_set_write_mode(struct nflash *f, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                          uint64_t seed, struct err *e)
{
    int rc;

    if (!f->wp)
        return 0;
    rc = nfw_time_set_mode(f->wp, m, rtl, seed, e);
    return rc ? err_prefix(e, rc, "flash write pipeline") : 0;
}

/* The longest command of the write pipeline: its length field has 32 bits (rtl/nfw,
 * cmd_len_i), so a longer write goes as several, each a whole number of pages of any page
 * size. */
#define PIPE_CMD_BYTES (1ull << 31)

/* The pipeline's part of a write of `bytes` from tb_addr into stream i asked for at now, as
 * commands of at most PIPE_CMD_BYTES back to back: *start = when the pipeline takes it,
 * *end = when it has issued its last page. */
static int pipe_write(struct nflash *f, uint32_t i, uint64_t now, uint64_t tb_addr, uint64_t bytes,
                      uint64_t *start, uint64_t *end, struct err *e)
{
    uint64_t cycles = 0;
    int rc;

    *start = *end = now;
    if (!f->wp || !bytes)
        return 0;
    for (uint64_t off = 0, n; off < bytes; off += n) {
        uint64_t c;

        n = bytes - off < PIPE_CMD_BYTES ? bytes - off : PIPE_CMD_BYTES;
        rc = nfw_time_write(f->wp, i, tb_addr + off, n, &c, e);
        if (rc)
            return err_prefix(e, rc, "flash write of stream '%s'", f->name[i]);
        cycles += c;
    }
    *start = now > f->wp_free ? now : f->wp_free;
    *end = *start + cycles * nfw_time_period_ps(f->wp);
    f->wp_free = *end;
    f->wp_ps += *end - *start;
    return 0;
}

/* A write is done when both the pipeline and the FTL are. */
static void pipe_done(struct nflash *f, uint64_t pipe_end, uint64_t *done)
{
    if (f->wp && pipe_end > *done) {
        *done = pipe_end;
        f->wp_bound++;
    }
}

static int stage(struct nflash *f, uint32_t i, uint64_t bytes, struct err *e)
{
    uint64_t need = (bytes + f->page_bytes - 1) / f->page_bytes * f->page_bytes;
    if (need <= f->page_cap)
        return 0;
    unsigned char *p = realloc(f->page_buf, need);
    if (!p)
        return err_set(e, -ENOMEM,
                       "flash write of stream '%s': out of memory staging %" PRIu64 " bytes",
                       f->name[i], need);
    f->page_buf = p;
    f->page_cap = need;
    return 0;
}

void nflash_set_nodata(struct nflash *f, uint32_t i, bool nodata)
{
    if (i < NFLASH_MAX_STREAMS)
        f->nodata[i] = nodata;
}

/* The flash model's pages hold the bytes of stream i. */
static bool payload(const struct nflash *f, uint32_t i)
{
    return flash_fms_cfg(f->sys.fms)->sw.store_payload && !f->nodata[i];
}

/* nflash keeps the bytes of stream i's records beside the (timing-only) flash model. */
static bool store(const struct nflash *f, uint32_t i)
{
    return !flash_fms_cfg(f->sys.fms)->sw.store_payload && !f->nodata[i];
}

/* The bytes of a record that nflash keeps itself (store()) did not fit in host memory. */
static int out_of_memory(const struct nflash *f, uint32_t i, uint64_t bytes, struct err *e)
{
    return err_set(e, -ENOMEM,
                   "flash write of stream '%s': out of memory keeping %" PRIu64 " bytes",
                   f->name[i], bytes);
}

int nflash_write_buf(struct nflash *f, uint32_t i, uint64_t now, const void *buf, uint64_t bytes,
                     struct slog_ext *x, uint64_t *done, struct err *e)
{
    const void *src = NULL;
    void *keep = NULL;
    if (store(f, i) && buf) {
        keep = malloc(bytes ? bytes : 1);
        if (!keep)
            return out_of_memory(f, i, bytes, e);
        memcpy(keep, buf, bytes);
    }
    if (payload(f, i) && buf) {
        int rc = stage(f, i, bytes, e);
        if (rc) {
            free(keep);
            return rc;
        }
        uint64_t pad = (bytes + f->page_bytes - 1) / f->page_bytes * f->page_bytes;
        memcpy(f->page_buf, buf, bytes);
        memset(f->page_buf + bytes, 0, pad - bytes);
        src = f->page_buf;
    }
    uint64_t start, end;
    int rc = pipe_write(f, i, now, 0, bytes, &start, &end, e);
    if (!rc)
        rc = slog_append(&f->log[i], start, src, bytes, x, done, e);
    if (rc) {
        free(keep);
        return rc;
    }
    x->data = keep;
    pipe_done(f, end, done);
    return 0;
}

uint64_t nflash_ctrl_ps(const struct nflash *f, uint64_t pages, bool write)
{
    const struct flash_cfg *c = flash_fms_cfg(f->sys.fms);
    uint64_t cp = c->tim.ctrl_cmd_bytes / c->geom.page_bytes;
    if (!cp)
        cp = 1;
    return (pages + cp - 1) / cp * (write ? c->tim.t_ctrl_wr_ps : c->tim.t_ctrl_rd_ps);
}

static void set_free(uint64_t *free_at, uint64_t now, uint64_t ctrl, uint64_t done)
{
    if (free_at)
        *free_at = now + ctrl < done ? now + ctrl : done;
}

int nflash_write_tb(struct nflash *f, uint32_t i, uint64_t now, uint64_t tb_addr, uint64_t bytes,
                    struct slog_ext *x, uint64_t *done, uint64_t *free_at, struct err *e)
{
    const void *src = NULL;
    if (payload(f, i)) {
        int rc = stage(f, i, bytes, e);
        if (rc)
            return rc;
        uint64_t pad = (bytes + f->page_bytes - 1) / f->page_bytes * f->page_bytes;
        if (dram_read(f->tb, tb_addr, f->page_buf, bytes))
            return err_set(e, -ERANGE,
                           "flash write of stream '%s': tensor-buffer range 0x%" PRIx64 "+%" PRIu64
                           " is outside the buffer",
                           f->name[i], tb_addr, bytes);
        memset(f->page_buf + bytes, 0, pad - bytes);
        src = f->page_buf;
    }
    void *keep = NULL;
    if (store(f, i)) {
        keep = malloc(bytes ? bytes : 1);
        if (!keep)
            return out_of_memory(f, i, bytes, e);
        if (dram_read(f->tb, tb_addr, keep, bytes)) {
            free(keep);
            return err_set(e, -ERANGE,
                           "flash write of stream '%s': tensor-buffer range 0x%" PRIx64 "+%" PRIu64
                           " is outside the buffer",
                           f->name[i], tb_addr, bytes);
        }
    }
    uint64_t start, end;
    int rc = pipe_write(f, i, now, tb_addr, bytes, &start, &end, e);
    if (!rc)
        rc = slog_append(&f->log[i], start, src, bytes, x, done, e);
    if (rc) {
        free(keep);
        return rc;
    }
    x->data = keep;
    set_free(free_at, start, nflash_ctrl_ps(f, x->pages, true), *done);
    if (free_at && *free_at < end)
        *free_at = end;
    pipe_done(f, end, done);
    if (f->tb && bytes) /* the write's bytes out of the buffer, asked for at its call (as reads) */
        *done = res_later(*done, dram_access(f->tb, f->rid_wr, now, tb_addr, bytes, false));
    return 0;
}

static int deliver(void *user, uint64_t addr, const void *data, uint32_t len, uint64_t t,
                   uint64_t *t_done)
{
    struct nflash *f = user;
    (void)t;
    (void)t_done;
    if (data && dram_write(f->tb, addr, data, len))
        return -ERANGE;
    return 0;
}

/*
 * A read's bytes into the buffer, as one write asked for at the read's start: the only time
 * that is also the call's (the machine calls in simulated-time order), so the claim delays
 * nothing asked for earlier; the buffer (4 x 25.6 GB/s by default) takes them faster than any
 * flash read delivers them. One claim per read in every payload mode, so tlm, perf and a
 * payload-keeping flash time alike, and the controller's fast path for long timing-only reads
 * stays.
 */
static uint64_t read_claim(struct nflash *f, uint64_t now, uint64_t tb_addr, uint64_t bytes,
                           uint64_t done)
{
    return res_later(done, dram_access(f->tb, f->rid_rd, now, tb_addr, bytes, true));
}

int nflash_read_tb(struct nflash *f, uint32_t i, uint64_t now, const struct slog_ext *x,
                   uint64_t tb_addr, uint64_t *done, uint64_t *free_at, struct err *e)
{
    struct flash_ctrl_req rq = {.lpn = x->lpn, .offset = 0, .bytes = x->bytes, .tb_addr = tb_addr};
    struct flash_ctrl_sink sink = {deliver, f};
    int rc;

    *done = now;
    set_free(free_at, now, 0, now);
    if (!x->bytes)
        return 0;
    rc =
        flash_ctrl_read(&f->sys.ctrl, f->sys.s[i], now, &rq, payload(f, i) ? &sink : NULL, done, e);
    if (rc)
        return err_prefix(e, rc, "flash read of stream '%s' at LPN %" PRIu64, f->name[i], x->lpn);
    if (store(f, i) && x->data && dram_write(f->tb, tb_addr, x->data, x->bytes))
        return err_set(e, -ERANGE,
                       "flash read of stream '%s': tensor-buffer range 0x%" PRIx64 "+%" PRIu64
                       " is outside the buffer",
                       f->name[i], tb_addr, x->bytes);
    if (f->tb)
        *done = read_claim(f, now, tb_addr, x->bytes, *done);
    set_free(free_at, now, nflash_ctrl_ps(f, x->pages, false), *done);
    return 0;
}

int nflash_free(struct nflash *f, uint32_t i, uint64_t now, struct slog_ext *x, struct err *e)
{
    uint64_t done;
    int rc = slog_free(&f->log[i], now, x, &done, e);
    free(x->data);
    x->data = NULL;
    return rc;
}
