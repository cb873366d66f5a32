/*
 * flash_ctrl_cmds: the FMS controller's commands for one request, the unit both of its paths
 * use: the read path (models/flash/flash_ctrl) and the stream FTL's write and read paths
 * (models/flash/ftl_stream). A request of P pages takes ceil(P / pages per command) commands
 * (ctrl_cmd_bytes each), processed one at a time on the controller (flash_fms_ctrl_cmd:
 * t_ctrl_wr or t_ctrl_rd each); a unit of pages goes to its die once the command that carries
 * its last page is processed.
 *
 * It depends on flash_fms alone, so that the controller (which calls the FTL's lookup) and the
 * FTL (which takes commands) do not depend on each other: flash_ctrl -> ftl_stream ->
 * flash_ctrl_cmds -> flash_fms.
 * Units: picoseconds, pages.
 */
#ifndef MODELS_FLASH_FLASH_CTRL_CMDS_H
#define MODELS_FLASH_FLASH_CTRL_CMDS_H

#include <stdbool.h>
#include <stdint.h>

#include "models/flash/flash_fms.h"

/*
 * The controller commands of one request, taken as its pages are sent to their dies. Begin it
 * when the request is asked for (now); before each unit of n pages, flash_ctrl_cmds_take(q, n)
 * takes the commands still needed to carry them (returns how many) and t_ready says when the
 * unit may go to its die.
 */
struct flash_ctrl_cmds {
    struct flash_fms *fms;
    uint64_t now;     /* when the request was asked for */
    bool write;       /* the write path (t_ctrl_wr) or the read path (t_ctrl_rd) */
    uint64_t per_cmd; /* pages carried by one command */
    uint64_t left;    /* pages the commands taken so far still carry */
    uint64_t t_ready; /* when the last command taken was processed (now before the first) */
};

void flash_ctrl_cmds_begin(struct flash_ctrl_cmds *q, struct flash_fms *fms, uint64_t now,
                           bool write);
uint32_t flash_ctrl_cmds_take(struct flash_ctrl_cmds *q, uint32_t n);

#endif
