#include "models/flash/flash_die.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csim/res.h"

static void init(struct flash_die *d, const struct flash_cfg *c, uint32_t die_index)
{
    const struct flash_geom *g = &c->geom;

    memset(d, 0, sizeof(*d));
    flash_addr_from_die_index(g, die_index, &d->where);
    d->planes = g->planes_per_die;
    d->blocks = g->blocks_per_plane;
    d->pages = g->pages_per_block;
    d->page_bytes = g->page_bytes;
    d->store_payload = c->sw.store_payload;
}

int flash_die_init(struct flash_die *d, const struct flash_cfg *c, uint32_t die_index,
                   struct err *e)
{
    init(d, c, die_index);
    /* A new die is erased: every write pointer 0, every P/E count 0. Block-major: a
     * multi-plane operation's blocks (the same block number in every plane, as the FTLs use
     * them) are neighbours in memory, a few cache lines instead of one per plane. */
    d->blk = calloc((size_t)d->planes * d->blocks, sizeof(*d->blk));
    if (!d->blk)
        return err_set(e, -ENOMEM, "flash die %u: out of memory for %u x %u blocks", die_index,
                       d->planes, d->blocks);
    d->stride = d->planes;
    d->own_blk = true;
    return 0;
}

void flash_die_init_shared(struct flash_die *d, const struct flash_cfg *c, uint32_t die_index,
                           struct flash_block *blk, size_t stride)
{
    init(d, c, die_index);
    assert(stride >= d->planes);
    d->blk = blk;
    d->stride = stride;
}

static void block_free_data(struct flash_die *d, struct flash_block *b)
{
    if (!b->data)
        return;
    for (uint32_t i = 0; i < b->wp; i++) {
        if (b->data[i])
            d->payload_pages--;
        free(b->data[i]);
    }
    free(b->data);
    b->data = NULL;
}

void flash_die_fini(struct flash_die *d)
{
    if (!d->blk)
        return;
    /* Payloads exist only in functional mode: a timing-only die (the perf models' thousands,
     * strided through a shared table) is not walked. */
    for (uint32_t b = 0; d->store_payload && b < d->blocks; b++)
        for (uint32_t p = 0; p < d->planes; p++)
            block_free_data(d, flash_die_block(d, p, b));
    if (d->own_blk)
        free(d->blk);
    d->blk = NULL;
}

static const char *where(const struct flash_die *d, uint32_t plane, uint32_t block, uint32_t page,
                         char *buf, size_t len)
{
    struct flash_addr a = d->where;

    a.plane = plane;
    a.block = block;
    a.page = page;
    return flash_addr_fmt(&a, buf, len);
}

/* Mask and per-plane block numbers in range; page in range (page < 0 skips that check). */
static int check_addr(const struct flash_die *d, const char *op, uint32_t mask,
                      const uint32_t *blocks, int64_t page, struct err *e)
{
    char buf[96];

    if (!mask || (d->planes < 32 && (mask >> d->planes)))
        return err_set(e, -EINVAL,
                       "flash %s refused at ch %u chip %u die %u: plane mask 0x%x is "
                       "empty or names a plane >= %u; accepted a non-empty subset of "
                       "planes 0..%u",
                       op, d->where.channel, d->where.chip, d->where.die, mask, d->planes,
                       d->planes - 1);
    if (page >= (int64_t)d->pages)
        return err_set(e, -EINVAL, "flash %s refused at %s: page out of range; accepted 0..%u", op,
                       where(d, 0, blocks[0], (uint32_t)page, buf, sizeof(buf)), d->pages - 1);
    for (uint32_t p = 0; p < d->planes; p++) {
        if (!(mask & (1u << p)))
            continue;
        if (blocks[p] >= d->blocks)
            return err_set(e, -EINVAL, "flash %s refused at %s: block out of range; accepted 0..%u",
                           op,
                           where(d, p, blocks[p], page < 0 ? 0 : (uint32_t)page, buf, sizeof(buf)),
                           d->blocks - 1);
    }
    return 0;
}

/* A multi-plane page address: page `page` of blocks[p] in every plane p of mask. */
struct mp_page {
    uint32_t mask;
    const uint32_t *blocks;
    uint32_t page;
};

/* NAND's program rules, in every addressed plane: a good block, and its next erased page. */
static int check_programmable(const struct flash_die *d, const struct mp_page *a, struct err *e)
{
    char buf[96];

    for (uint32_t p = 0; p < d->planes; p++) {
        const struct flash_block *b;

        if (!(a->mask & (1u << p)))
            continue;
        b = flash_die_block_c(d, p, a->blocks[p]);
        if (b->bad)
            return err_set(e, -EIO,
                           "flash program refused at %s: block is bad (retired); "
                           "accepted only good blocks",
                           where(d, p, a->blocks[p], a->page, buf, sizeof(buf)));
        if (a->page < b->wp)
            return err_set(e, -EINVAL,
                           "flash program refused at %s: page already programmed "
                           "(block holds pages 0..%u); NAND programs only erased "
                           "pages: erase the block first",
                           where(d, p, a->blocks[p], a->page, buf, sizeof(buf)), b->wp - 1);
        if (a->page > b->wp)
            return err_set(e, -EINVAL,
                           "flash program refused at %s: pages of a block are "
                           "programmed in order; accepted page %u, the next erased "
                           "page of this block",
                           where(d, p, a->blocks[p], a->page, buf, sizeof(buf)), b->wp);
    }
    return 0;
}

/* Functional mode: a copy of each plane's data, and the page tables of the blocks that get
 * one, all allocated before anything is committed. On failure the copies are freed. */
static int stage_payload(struct flash_die *d, const struct mp_page *a, const void *const *data,
                         unsigned char **copy, struct err *e)
{
    char buf[96];
    int rc;

    for (uint32_t p = 0; p < d->planes; p++) {
        if (!(a->mask & (1u << p)) || !data[p])
            continue;
        copy[p] = malloc(d->page_bytes);
        if (!copy[p]) {
            rc = err_set(e, -ENOMEM, "flash program at %s: out of memory for payload",
                         where(d, p, a->blocks[p], a->page, buf, sizeof(buf)));
            goto out_free_copies;
        }
        memcpy(copy[p], data[p], d->page_bytes);
    }
    for (uint32_t p = 0; p < d->planes; p++) {
        struct flash_block *b;

        if (!copy[p])
            continue;
        b = flash_die_block(d, p, a->blocks[p]);
        if (!b->data)
            b->data = calloc(d->pages, sizeof(*b->data));
        if (!b->data) {
            rc = err_set(e, -ENOMEM, "flash program at %s: out of memory for the page table",
                         where(d, p, a->blocks[p], a->page, buf, sizeof(buf)));
            goto out_free_copies;
        }
    }
    return 0;

out_free_copies:
    for (uint32_t p = 0; p < FLASH_MAX_PLANES; p++)
        free(copy[p]);
    return rc;
}

/* Every addressed plane's write pointer moves past the page, which holds its copy if any
 * (copy NULL: none has one). */
static void commit_program(struct flash_die *d, const struct mp_page *a, unsigned char *const *copy)
{
    for (uint32_t p = 0; p < d->planes; p++) {
        struct flash_block *b;

        if (!(a->mask & (1u << p)))
            continue;
        b = flash_die_block(d, p, a->blocks[p]);
        if (copy && copy[p]) {
            b->data[a->page] = copy[p];
            d->payload_pages++;
        }
        b->wp = a->page + 1;
        d->n_prog_pages++;
    }
}

int flash_die_program(struct flash_die *d, uint32_t plane_mask, const uint32_t *blocks,
                      uint32_t page, const void *const *data, struct err *e)
{
    const struct mp_page a = {plane_mask, blocks, page};
    unsigned char *copy[FLASH_MAX_PLANES];
    bool staged = d->store_payload && data;
    int rc;

    rc = check_addr(d, "program", plane_mask, blocks, page, e);
    if (!rc)
        rc = check_programmable(d, &a, e);
    /* All planes pass: allocate what functional mode needs, then commit. */
    if (!rc && staged) {
        memset(copy, 0, sizeof(copy));
        rc = stage_payload(d, &a, data, copy, e);
    }
    if (rc)
        return rc;
    commit_program(d, &a, staged ? copy : NULL);
    return 0;
}

int flash_die_read(struct flash_die *d, uint32_t plane_mask, const uint32_t *blocks, uint32_t page,
                   void *const *data, struct err *e)
{
    char buf[96];
    int rc;

    rc = check_addr(d, "read", plane_mask, blocks, page, e);
    if (rc)
        return rc;
    for (uint32_t p = 0; p < d->planes; p++) {
        const struct flash_block *b;

        if (!(plane_mask & (1u << p)))
            continue;
        b = flash_die_block_c(d, p, blocks[p]);
        if (page >= b->wp)
            return err_set(e, -ENODATA,
                           "flash read refused at %s: page not written since the last "
                           "erase; accepted pages 0..%d of this block",
                           where(d, p, blocks[p], page, buf, sizeof(buf)), (int)b->wp - 1);
    }
    for (uint32_t p = 0; p < d->planes; p++) {
        const struct flash_block *b;

        if (!(plane_mask & (1u << p)))
            continue;
        d->n_read_pages++;
        if (!d->store_payload || !data || !data[p])
            continue;
        b = flash_die_block_c(d, p, blocks[p]);
        if (b->data && b->data[page])
            memcpy(data[p], b->data[page], d->page_bytes);
        else
            memset(data[p], 0, d->page_bytes);
    }
    return 0;
}

int flash_die_erase(struct flash_die *d, uint32_t plane_mask, const uint32_t *blocks, struct err *e)
{
    char buf[96];
    int rc;

    rc = check_addr(d, "erase", plane_mask, blocks, -1, e);
    if (rc)
        return rc;
    for (uint32_t p = 0; p < d->planes; p++) {
        if ((plane_mask & (1u << p)) && flash_die_block_c(d, p, blocks[p])->bad)
            return err_set(e, -EIO,
                           "flash erase refused at %s: block is bad (retired); "
                           "accepted only good blocks",
                           where(d, p, blocks[p], 0, buf, sizeof(buf)));
    }
    for (uint32_t p = 0; p < d->planes; p++) {
        struct flash_block *b;

        if (!(plane_mask & (1u << p)))
            continue;
        b = flash_die_block(d, p, blocks[p]);
        block_free_data(d, b);
        b->wp = 0;
        b->pe++;
        d->n_erase_blocks++;
        if (b->fail_erase) {
            b->fail_erase = 0;
            b->bad = 1;
            rc = err_set(e, -EIO,
                         "flash erase failed at %s: block is now bad (after %u P/E "
                         "cycles); replace it",
                         where(d, p, blocks[p], 0, buf, sizeof(buf)), b->pe);
        }
    }
    return rc;
}

uint64_t flash_die_array(struct flash_die *d, uint64_t t_ready, uint32_t plane_mask, uint64_t dur)
{
    uint64_t start = res_later(t_ready, d->busy_until);
    uint64_t end;

    for (uint32_t p = 0; p < d->planes; p++)
        if (plane_mask & (1u << p))
            start = res_later(start, d->plane_busy[p]);
    end = start + dur;
    for (uint32_t p = 0; p < d->planes; p++)
        if (plane_mask & (1u << p))
            d->plane_busy[p] = end;
    d->busy_until = end;
    d->array_busy_ps += dur;
    return end;
}
