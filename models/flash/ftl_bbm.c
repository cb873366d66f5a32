#include "models/flash/ftl_bbm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ftl_bbm_init(struct ftl_bbm *b, const struct flash_geom *g, uint32_t spare_first,
                 uint32_t spare_count, struct err *e)
{
    uint64_t n;

    memset(b, 0, sizeof(*b));
    if ((uint64_t)spare_first + spare_count > g->blocks_per_plane)
        return err_set(e, -EINVAL,
                       "ftl bad-block manager: spare blocks %u..%u do not fit in a plane "
                       "of %u blocks; accepted a range inside 0..%u",
                       spare_first, spare_first + spare_count - 1, g->blocks_per_plane,
                       g->blocks_per_plane - 1);
    b->n_dp = flash_geom_dies(g) * g->planes_per_die;
    b->blocks = g->blocks_per_plane;
    b->spare_first = spare_first;
    b->spare_count = spare_count;
    n = (uint64_t)b->n_dp * b->blocks;
    b->map = malloc(n * sizeof(*b->map));
    b->used = calloc(b->n_dp, sizeof(*b->used));
    if (!b->map || !b->used) {
        ftl_bbm_fini(b);
        return err_set(e, -ENOMEM, "ftl bad-block manager: out of memory for %u planes",
                       g->planes_per_die);
    }
    for (uint64_t i = 0; i < n; i++)
        b->map[i] = (uint32_t)(i / b->n_dp);
    return 0;
}

void ftl_bbm_fini(struct ftl_bbm *b)
{
    free(b->map);
    free(b->used);
    b->map = NULL;
    b->used = NULL;
}

int ftl_bbm_replace(struct ftl_bbm *b, uint32_t dp, uint32_t block, uint32_t *spare, struct err *e)
{
    if (b->used[dp] >= b->spare_count)
        return err_set(e, -ENOSPC,
                       "no spare block left in this plane: all %u spares (blocks %u..%u) "
                       "are in use; block %u cannot be replaced",
                       b->spare_count, b->spare_first,
                       b->spare_first + b->spare_count - (b->spare_count ? 1 : 0), block);
    *spare = b->spare_first + b->used[dp]++;
    b->map[(uint64_t)block * b->n_dp + dp] = *spare;
    b->n_replaced++;
    return 0;
}

uint32_t ftl_bbm_spares_left(const struct ftl_bbm *b, uint32_t dp)
{
    return b->spare_count - b->used[dp];
}
