/*
 * flash_chan: timing of one NAND channel (the shared bus of the chips on it).
 *
 * Contract
 * --------
 * Modelled: bus occupancy. Moving n bytes takes ceil(n x 8 / width) transfers at the bus rate
 * (MT/s); each page of a program also carries its command/address cycles (t_cmd) on the bus,
 * right before its data. Read commands are charged to the die as latency but do not occupy
 * the bus (a controller slips them between data bursts), so data-out is the only read
 * traffic. The bus serves one transfer at a time in call order (csim/res.h).
 * Not modelled: chip-enable switching time, ECC, bus turnaround, ONFI timing modes.
 * Units: picoseconds, bytes.
 */
#ifndef MODELS_FLASH_FLASH_CHAN_H
#define MODELS_FLASH_FLASH_CHAN_H

#include <stdint.h>

#include "models/flash/flash_cfg.h"
#include "csim/res.h"

struct flash_chan {
    struct res bus;
    uint64_t t_cmd_ps;  /* command/address cycles per page (from flash_timing) */
    uint64_t t_page_ps; /* data of one page on the bus */
    uint64_t page_bytes;
    uint64_t bytes_in;  /* bytes moved controller -> NAND */
    uint64_t bytes_out; /* bytes moved NAND -> controller */
};

void flash_chan_init(struct flash_chan *ch, const struct flash_cfg *c);

/* Command + data-in of npages pages, ready at t; returns the end of the last byte on the bus. */
uint64_t flash_chan_data_in(struct flash_chan *ch, uint64_t t, uint32_t npages);

/* Data-out of npages pages, ready at t; returns the end of the last byte on the bus. */
uint64_t flash_chan_data_out(struct flash_chan *ch, uint64_t t, uint32_t npages);

/* Bus time of command + data-in of npages pages (no reservation). */
uint64_t flash_chan_in_ps(const struct flash_chan *ch, uint32_t npages);

#endif
