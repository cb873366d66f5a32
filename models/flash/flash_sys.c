#include "models/flash/flash_sys.h"

#include <errno.h>
#include <string.h>

int flash_sys_init(struct flash_sys *y, const struct flash_cfg *cfg, uint32_t spare_first,
                   uint32_t spare_count, const struct ftl_stream_cfg *sc, uint32_t n, struct err *e)
{
    int rc;

    memset(y, 0, sizeof(*y));
    if (n > FLASH_SYS_MAX_STREAMS)
        return err_set(e, -EINVAL, "flash: %u streams; accepted up to %u", n,
                       FLASH_SYS_MAX_STREAMS);
    rc = flash_fms_create(cfg, &y->fms, e);
    if (rc)
        return rc;
    rc = ftl_bbm_init(&y->bbm, &cfg->geom, spare_first, spare_count, e);
    y->bbm_ok = !rc;
    if (!rc) {
        rc = flash_ctrl_init(&y->ctrl, y->fms, e);
        y->ctrl_ok = !rc;
    }
    for (uint32_t i = 0; i < n && !rc; i++) {
        rc = ftl_stream_create(&sc[i], y->fms, &y->bbm, &y->s[i], e);
        if (!rc)
            y->n = i + 1;
    }
    if (rc)
        flash_sys_fini(y);
    return rc;
}

int flash_sys_init_layout(struct flash_sys *y, const struct flash_cfg *cfg,
                          const struct ftl_layout *l, const char *const *names, uint32_t n,
                          struct err *e)
{
    struct ftl_stream_cfg sc[FLASH_SYS_MAX_STREAMS];
    const struct ftl_region *sp = ftl_layout_spare(l);

    memset(y, 0, sizeof(*y));
    if (n > FLASH_SYS_MAX_STREAMS)
        return err_set(e, -EINVAL, "flash: %u streams; accepted up to %u", n,
                       FLASH_SYS_MAX_STREAMS);
    for (uint32_t i = 0; i < n; i++) {
        const struct ftl_region *r = ftl_layout_find(l, names[i]);
        if (!r)
            return err_set(e, -EINVAL, "flash layout %s has no stream '%s'", l->node, names[i]);
        ftl_stream_cfg_from_region(&sc[i], r);
    }
    return flash_sys_init(y, cfg, sp ? sp->first : 0, sp ? sp->count : 0, sc, n, e);
}

void flash_sys_fini(struct flash_sys *y)
{
    for (uint32_t i = y->n; i-- > 0;)
        ftl_stream_destroy(y->s[i]);
    if (y->ctrl_ok)
        flash_ctrl_fini(&y->ctrl);
    if (y->bbm_ok)
        ftl_bbm_fini(&y->bbm);
    flash_fms_destroy(y->fms);
    memset(y, 0, sizeof(*y));
}
