/*
 * flash_fms: a flash memory system: channels of dies, and the controller's command front end.
 *
 * Contract
 * --------
 * Modelled (transaction level, analytical: each call computes start and end times from the
 * busy_until of the resources it uses and returns the completion time; no event kernel):
 *   - Program (multi-plane): data-in of each page (command cycles + data) on the channel, from
 *     max(now, register free); then tPROG on the planes from max(data in, die and plane busy).
 *     Cache program on: the register is free again when tPROG starts, so the next page's
 *     data-in overlaps this tPROG. Off: it is free when tPROG ends.
 *       single op on idle resources: done = now + n x (T_CMD + T_XFER) + T_PROG
 *   - Read (multi-plane): from max(now, die busy, register free): n x T_CMD (latency, not bus
 *     occupancy), tR on the planes, then data-out of n pages on the channel.
 *       done = now + n x T_CMD + T_R + n x T_XFER
 *   - Erase (multi-plane, whole blocks): n x T_CMD latency then T_BERS.
 *   - multi_plane switch off: a multi-plane request runs as single-plane operations in plane
 *     order.
 *   - Controller: one command at a time, t_ctrl_wr / t_ctrl_rd each (flash_fms_ctrl_cmd); the
 *     FTL decides how many commands a transfer takes.
 *   - NAND state and rules: flash_die. Rule violations return an error, change nothing and
 *     take no time; the message goes to the caller's err (csim/err.h).
 * Not modelled: policy (which address to use: that is the FTL's job), queues and arbitration
 * (calls are served in call order per resource), ECC, the controller's read data path and its
 * buffers, power.
 * Units: picoseconds, bytes, flat die index (flash_addr.h).
 */
#ifndef MODELS_FLASH_FLASH_FMS_H
#define MODELS_FLASH_FLASH_FMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "csim/err.h"
#include "models/flash/flash_addr.h"
#include "models/flash/flash_cfg.h"
#include "models/flash/flash_chan.h"
#include "models/flash/flash_die.h"
#include "csim/res.h"

struct flash_fms;

/* One operation on one die: same page number in each plane of the mask, block per plane. */
struct flash_mpop {
    uint32_t die;                     /* flat die index (flash_addr_die_index) */
    uint32_t plane_mask;              /* planes taking part, bit p = plane p */
    uint32_t page;                    /* page in the block (ignored by erase) */
    uint32_t block[FLASH_MAX_PLANES]; /* block of each plane in the mask */
};

struct flash_fms_stats {
    uint64_t pages_programmed, pages_read, blocks_erased;
    uint64_t bytes_in, bytes_out; /* over the channels */
    uint64_t ctrl_cmds;
    uint64_t payload_pages; /* pages with a stored payload (functional mode) */
    uint64_t last_end;      /* latest busy_until of any channel, die or the controller */
    double chan_util;       /* mean channel utilisation over [0, until] */
    double die_util;        /* mean die array utilisation over [0, until] */
    double ctrl_util;
};

/* Validates cfg (flash_cfg_validate) and builds an erased FMS. 0, -EINVAL, -ENOMEM. */
int flash_fms_create(const struct flash_cfg *cfg, struct flash_fms **out, struct err *e);
void flash_fms_destroy(struct flash_fms *f);

const struct flash_cfg *flash_fms_cfg(const struct flash_fms *f);
uint32_t flash_fms_dies(const struct flash_fms *f);

/* data / bufs: NULL or an array indexed by plane (see flash_die_program / flash_die_read). */
int flash_fms_program(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                      const void *const *data, uint64_t *done, struct err *e);
int flash_fms_read(struct flash_fms *f, uint64_t now, const struct flash_mpop *op,
                   void *const *bufs, uint64_t *done, struct err *e);
/* -EIO with *done set if a block failed its erase (it is then bad). */
int flash_fms_erase(struct flash_fms *f, uint64_t now, const struct flash_mpop *op, uint64_t *done,
                    struct err *e);

/* Single-plane forms by physical address. Erase needs a->page == 0 (whole blocks only). */
int flash_fms_program_page(struct flash_fms *f, uint64_t now, const struct flash_addr *a,
                           const void *data, uint64_t *done, struct err *e);
int flash_fms_read_page(struct flash_fms *f, uint64_t now, const struct flash_addr *a, void *buf,
                        uint64_t *done, struct err *e);
int flash_fms_erase_block(struct flash_fms *f, uint64_t now, const struct flash_addr *a,
                          uint64_t *done, struct err *e);

/* One controller command (write or read) asked for at now; *done = when it is processed. */
void flash_fms_ctrl_cmd(struct flash_fms *f, uint64_t now, bool write, uint64_t *done);

/* Inspection and fault injection. NULL / -EINVAL for an address out of range. */
const struct flash_block *flash_fms_block(const struct flash_fms *f, uint32_t die, uint32_t plane,
                                          uint32_t block);
const struct flash_die *flash_fms_die(const struct flash_fms *f, uint32_t die);
const struct flash_chan *flash_fms_chan(const struct flash_fms *f, uint32_t channel);
int flash_fms_mark_bad(struct flash_fms *f, const struct flash_addr *a, struct err *e);
int flash_fms_inject_erase_fail(struct flash_fms *f, const struct flash_addr *a, struct err *e);

void flash_fms_stats(const struct flash_fms *f, uint64_t until, struct flash_fms_stats *s);
/* "fms.pages_programmed = 12 pages" lines, one per figure, with units; prefix e.g. "an0.fms". */
void flash_fms_stats_fprint(FILE *out, const char *prefix, const struct flash_fms_stats *s);

#endif
