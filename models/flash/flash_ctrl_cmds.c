#include "models/flash/flash_ctrl_cmds.h"

void flash_ctrl_cmds_begin(struct flash_ctrl_cmds *q, struct flash_fms *fms, uint64_t now,
                           bool write)
{
    const struct flash_cfg *cfg = flash_fms_cfg(fms);

    *q = (struct flash_ctrl_cmds){.fms = fms,
                                  .now = now,
                                  .write = write,
                                  .per_cmd = cfg->tim.ctrl_cmd_bytes / cfg->geom.page_bytes,
                                  .t_ready = now};
}

uint32_t flash_ctrl_cmds_take(struct flash_ctrl_cmds *q, uint32_t n)
{
    uint32_t taken = 0;

    while (q->left < n) {
        flash_fms_ctrl_cmd(q->fms, q->now, q->write, &q->t_ready);
        q->left += q->per_cmd;
        taken++;
    }
    q->left -= n;
    return taken;
}
