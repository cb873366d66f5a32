#include "models/flash/flash_addr.h"

#include <errno.h>
#include <stdio.h>

uint32_t flash_addr_die_index(const struct flash_geom *g, const struct flash_addr *a)
{
    return a->channel + g->channels * (a->chip + g->chips_per_chan * a->die);
}

void flash_addr_from_die_index(const struct flash_geom *g, uint32_t die_index, struct flash_addr *a)
{
    a->channel = die_index % g->channels;
    a->chip = (die_index / g->channels) % g->chips_per_chan;
    a->die = die_index / g->channels / g->chips_per_chan;
    a->plane = 0;
    a->block = 0;
    a->page = 0;
}

int flash_addr_check(const struct flash_geom *g, const struct flash_addr *a, struct err *e)
{
    const struct {
        const char *name;
        uint32_t v, n;
    } f[] = {
        {"channel", a->channel, g->channels},     {"chip", a->chip, g->chips_per_chan},
        {"die", a->die, g->dies_per_chip},        {"plane", a->plane, g->planes_per_die},
        {"block", a->block, g->blocks_per_plane}, {"page", a->page, g->pages_per_block},
    };
    char buf[96];

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        if (f[i].v >= f[i].n)
            return err_set(e, -EINVAL, "flash address %s: %s %u is out of range; accepted 0..%u",
                           flash_addr_fmt(a, buf, sizeof(buf)), f[i].name, f[i].v, f[i].n - 1);
    return 0;
}

const char *flash_addr_fmt(const struct flash_addr *a, char *buf, size_t len)
{
    snprintf(buf, len, "ch %u chip %u die %u plane %u block %u page %u", a->channel, a->chip,
             a->die, a->plane, a->block, a->page);
    return buf;
}
