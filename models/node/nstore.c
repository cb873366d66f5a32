/*
 * nstore.c - a node's storage, FMS or SSD RAID 0; see nstore.h.
 */
#include "models/node/nstore.h"

#include <string.h>

int nstore_init_fms(struct nstore *s, const struct flash_cfg *cfg, const struct ftl_layout *l,
                    const char *const *names, uint32_t n, struct dram *tb, struct err *e)
{
    memset(s, 0, sizeof(*s));
    s->kind = NSTORE_FMS;
    return nflash_init(&s->fl, cfg, l, names, n, tb, e);
}

int nstore_init_ssd(struct nstore *s, const char *node, const struct ssd_cfg *drive, uint32_t grain,
                    const struct ftl_layout *l, const char *const *names, uint32_t n, struct err *e)
{
    memset(s, 0, sizeof(*s));
    s->kind = NSTORE_SSD;
    return nssd_init(&s->ssd, node, drive, grain, l, names, n, e);
}

void nstore_fini(struct nstore *s)
{
    if (s->kind == NSTORE_SSD)
        nssd_fini(&s->ssd);
    else
        nflash_fini(&s->fl);
}

int nstore_set_write_pipe(struct nstore *s, uint64_t period_ps, struct err *e)
{
    return s->kind == NSTORE_FMS ? nflash_set_write_pipe(&s->fl, period_ps, e) : 0;
}

int nstore_set_write_mode(struct nstore *s, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                          uint64_t seed, struct err *e)
{
    return s->kind == NSTORE_FMS ? nflash_set_write_mode(&s->fl, m, rtl, seed, e) : 0;
}

int nstore_stream(const struct nstore *s, const char *name)
{
    return s->kind == NSTORE_SSD ? nssd_stream(&s->ssd, name) : nflash_stream(&s->fl, name);
}

void nstore_set_nodata(struct nstore *s, uint32_t i, bool nodata)
{
    if (s->kind == NSTORE_FMS)
        nflash_set_nodata(&s->fl, i, nodata);
}

int nstore_write_tb(struct nstore *s, uint32_t i, uint64_t now, uint64_t tb_addr, uint64_t bytes,
                    struct slog_ext *x, uint64_t *done, uint64_t *free_at, struct err *e)
{
    int rc;

    if (s->kind == NSTORE_FMS)
        return nflash_write_tb(&s->fl, i, now, tb_addr, bytes, x, done, free_at, e);
    rc = nssd_write(&s->ssd, i, now, bytes, x, done, e);
    if (!rc && free_at)
        *free_at = *done;
    return rc;
}

int nstore_write_buf(struct nstore *s, uint32_t i, uint64_t now, const void *buf, uint64_t bytes,
                     struct slog_ext *x, uint64_t *done, struct err *e)
{
    if (s->kind == NSTORE_FMS)
        return nflash_write_buf(&s->fl, i, now, buf, bytes, x, done, e);
    return nssd_write(&s->ssd, i, now, bytes, x, done, e);
}

int nstore_read_tb(struct nstore *s, uint32_t i, uint64_t now, const struct slog_ext *x,
                   uint64_t tb_addr, uint64_t *done, uint64_t *free_at, struct err *e)
{
    int rc;

    if (s->kind == NSTORE_FMS)
        return nflash_read_tb(&s->fl, i, now, x, tb_addr, done, free_at, e);
    rc = nssd_read(&s->ssd, i, now, x, done, e);
    if (!rc && free_at)
        *free_at = *done;
    return rc;
}

int nstore_free(struct nstore *s, uint32_t i, uint64_t now, struct slog_ext *x, struct err *e)
{
    if (s->kind == NSTORE_FMS)
        return nflash_free(&s->fl, i, now, x, e);
    return nssd_free(&s->ssd, i, x, e);
}

int nstore_align(struct nstore *s, uint32_t i, uint64_t now, struct err *e)
{
    uint64_t done;

    if (s->kind == NSTORE_SSD)
        return 0;
    return slog_align(&s->fl.log[i], now, &done, e);
}

struct nflash *nstore_flash(struct nstore *s)
{
    return s->kind == NSTORE_FMS ? &s->fl : NULL;
}

struct nssd *nstore_ssd(struct nstore *s)
{
    return s->kind == NSTORE_SSD ? &s->ssd : NULL;
}
