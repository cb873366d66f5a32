/*
 * flash_addr: physical NAND addresses.
 *
 * Contract
 * --------
 * Modelled: the address of a page (channel, chip, die, plane, block, page) and the flat die
 * index used by the models. Flat die index = channel + channels x (chip + chips_per_chan x
 * die), so consecutive indices land on different channels first, then on different chips.
 * Not modelled: row/column address cycles of a real NAND interface.
 * Units: none (indices).
 */
#ifndef MODELS_FLASH_FLASH_ADDR_H
#define MODELS_FLASH_FLASH_ADDR_H

#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/flash/flash_cfg.h"

struct flash_addr {
    uint32_t channel;
    uint32_t chip; /* chip on the channel */
    uint32_t die;  /* die in the chip */
    uint32_t plane;
    uint32_t block; /* block in the plane */
    uint32_t page;  /* page in the block */
};

uint32_t flash_addr_die_index(const struct flash_geom *g, const struct flash_addr *a);

/* Fill channel, chip and die of a from a flat die index; plane, block, page become 0. */
void flash_addr_from_die_index(const struct flash_geom *g, uint32_t die_index,
                               struct flash_addr *a);

/* 0, or -EINVAL naming the first field out of range and the accepted range. */
int flash_addr_check(const struct flash_geom *g, const struct flash_addr *a, struct err *e);

/* "ch 3 chip 1 die 0 plane 2 block 17 page 5"; returns buf. */
const char *flash_addr_fmt(const struct flash_addr *a, char *buf, size_t len);

#endif
