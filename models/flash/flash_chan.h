/*
 * flash_chan: timing of one NAND channel (the shared bus of the chips on it).
 *
 * Contract
 * --------
 * Modelled: bus occupancy. Moving n bytes takes ceil(n x 8 / width) transfers at the bus rate
 * (MT/s). Every operation's command/address cycles (t_cmd per plane) occupy the bus too: a
 * program's right before each page's data (flash_chan_data_in), a read's and an erase's before
 * the array phase (flash_chan_cmd), since they travel on the same wires as the data. The bus
 * serves one transfer at a time in call order (csim/res.h), so it fills no earlier idle gap:
 * a read issued after another read of the same channel sends its command only once the
 * earlier read's data-out has been reserved.
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
    uint64_t t_cmd_ps;  /* command/address cycles per page or plane (from flash_timing) */
    uint64_t t_page_ps; /* data of one page on the bus */
    uint64_t page_bytes;
    uint64_t bytes_in;  /* bytes moved controller -> NAND */
    uint64_t bytes_out; /* bytes moved NAND -> controller */
};

void flash_chan_init(struct flash_chan *ch, const struct flash_cfg *c);

/* Command/address cycles of an operation on nplanes planes (read, erase), ready at t; returns
 * their end. With t_cmd 0 the bus is not claimed at all and t is returned. */
uint64_t flash_chan_cmd(struct flash_chan *ch, uint64_t t, uint32_t nplanes);

/* Command + data-in of npages pages, ready at t; returns the end of the last byte on the bus. */
uint64_t flash_chan_data_in(struct flash_chan *ch, uint64_t t, uint32_t npages);

/* Data-out of npages pages, ready at t; returns the end of the last byte on the bus. */
uint64_t flash_chan_data_out(struct flash_chan *ch, uint64_t t, uint32_t npages);

/* Bus time of command + data-in of npages pages (no reservation). */
uint64_t flash_chan_in_ps(const struct flash_chan *ch, uint32_t npages);

#endif
