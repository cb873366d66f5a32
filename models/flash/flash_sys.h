/*
 * flash_sys: one flash memory system assembled from its parts: the dies and channels
 * (flash_fms), the bad-block manager of its spare blocks (ftl_bbm), the controller
 * (flash_ctrl) and its streams (ftl_stream), created in that order and destroyed in the
 * reverse. Every user of a whole FMS builds it so: a node's flash (models/node/nflash),
 * `flashstream flashbench`, the SystemC flash target's example and test, the benchmarks.
 *
 * Contract: a flash_sys is caller-owned; flash_sys_init either builds every part and returns 0,
 * or returns the first part's error with nothing left to free (e names the part that refused).
 * Each stream gets its own region; it lives until flash_sys_fini.
 */
#ifndef MODELS_FLASH_FLASH_SYS_H
#define MODELS_FLASH_FLASH_SYS_H

#include <stdbool.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/flash/flash_cfg.h"
#include "models/flash/flash_ctrl.h"
#include "models/flash/flash_fms.h"
#include "models/flash/ftl_bbm.h"
#include "models/flash/ftl_layout.h"
#include "models/flash/ftl_stream.h"

#define FLASH_SYS_MAX_STREAMS 8u

struct flash_sys {
    struct flash_fms *fms;
    struct ftl_bbm bbm;
    struct flash_ctrl ctrl;
    struct ftl_stream *s[FLASH_SYS_MAX_STREAMS];
    uint32_t n; /* streams created */
    bool bbm_ok, ctrl_ok;
};

/* cfg's FMS with blocks spare_first .. spare_first + spare_count - 1 of every plane as spares
 * (count 0: none) and the n streams sc[0 .. n), n <= FLASH_SYS_MAX_STREAMS. */
int flash_sys_init(struct flash_sys *y, const struct flash_cfg *cfg, uint32_t spare_first,
                   uint32_t spare_count, const struct ftl_stream_cfg *sc, uint32_t n,
                   struct err *e);

/* The same from layout l: its spare region and its regions names[0 .. n), in that order;
 * -EINVAL naming a region the layout does not have. */
int flash_sys_init_layout(struct flash_sys *y, const struct flash_cfg *cfg,
                          const struct ftl_layout *l, const char *const *names, uint32_t n,
                          struct err *e);

/* Every part, in the reverse order; a zeroed or failed flash_sys too. */
void flash_sys_fini(struct flash_sys *y);

#endif
