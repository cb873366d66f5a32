#include "models/flash/flash_ctrl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int flash_ctrl_init(struct flash_ctrl *c, struct flash_fms *fms, struct err *e)
{
    const struct flash_cfg *cfg = flash_fms_cfg(fms);

    memset(c, 0, sizeof(*c));
    c->fms = fms;
    c->page_bytes = cfg->geom.page_bytes;
    c->planes = cfg->geom.planes_per_die;
    c->t_xfer_ps = flash_cfg_xfer_ps(&cfg->tim, cfg->geom.page_bytes);
    if (cfg->sw.store_payload) {
        c->unit = malloc((size_t)c->planes * c->page_bytes);
        if (!c->unit)
            return err_set(e, -ENOMEM,
                           "flash controller: out of memory for a %u x %u B "
                           "read buffer",
                           c->planes, c->page_bytes);
    }
    return 0;
}

void flash_ctrl_fini(struct flash_ctrl *c)
{
    free(c->unit);
    c->unit = NULL;
}

/* Hand the requested bytes of the n pages just read (from LPN cur) to the sink. */
static int deliver(struct flash_ctrl *c, const struct flash_ctrl_req *rq, uint64_t cur,
                   uint32_t plane0, uint32_t n, uint64_t t_op, const struct flash_ctrl_sink *sink,
                   uint64_t *end, struct err *e)
{
    uint64_t pb = c->page_bytes;

    for (uint32_t q = 0; q < n; q++) {
        uint64_t j = cur + q - rq->lpn; /* page index inside the request */
        uint64_t start = j == 0 ? rq->offset : 0;
        uint64_t stop = rq->offset + rq->bytes - j * pb;
        uint64_t t = t_op - (uint64_t)(n - 1 - q) * c->t_xfer_ps, t_done = t;
        const unsigned char *data = c->unit ? c->unit + (plane0 + q) * pb + start : NULL;

        if (stop > pb)
            stop = pb;
        if (sink && sink->deliver) {
            int rc = sink->deliver(sink->user, rq->tb_addr + j * pb - rq->offset + start, data,
                                   (uint32_t)(stop - start), t, &t_done);

            if (rc)
                return err_set(e, rc,
                               "flash controller read of LPN %llu: the tensor buffer "
                               "refused %llu bytes at %#llx (error %d)",
                               (unsigned long long)(cur + q), (unsigned long long)(stop - start),
                               (unsigned long long)(rq->tb_addr + j * pb - rq->offset + start), rc);
        }
        c->st.bytes += stop - start;
        if (t_done > *end)
            *end = t_done;
    }
    return 0;
}

int flash_ctrl_read(struct flash_ctrl *c, struct ftl_stream *s, uint64_t now,
                    const struct flash_ctrl_req *rq, const struct flash_ctrl_sink *sink,
                    uint64_t *done, struct err *e)
{
    const struct flash_cfg *cfg = flash_fms_cfg(c->fms);
    uint64_t pb = c->page_bytes, npages, lpages = ftl_stream_lpages(s);
    uint64_t cur, left, end = now;
    struct flash_ctrl_cmds cmds;
    struct flash_fms_run run;
    void *bufs[FLASH_MAX_PLANES] = {0};
    int rc;

    *done = now;
    if (!rq->bytes || rq->offset >= pb)
        return err_set(e, -EINVAL,
                       "flash controller read of %llu bytes at offset %u of LPN %llu: "
                       "accepted at least 1 byte and an offset below the page size %llu",
                       (unsigned long long)rq->bytes, rq->offset, (unsigned long long)rq->lpn,
                       (unsigned long long)pb);
    npages = (rq->offset + rq->bytes + pb - 1) / pb;
    if (rq->lpn >= lpages || npages > lpages - rq->lpn)
        return err_set(e, -EINVAL,
                       "flash controller read of %llu pages at LPN %llu ends past the "
                       "stream's logical space of %llu pages",
                       (unsigned long long)npages, (unsigned long long)rq->lpn,
                       (unsigned long long)lpages);
    for (uint32_t p = 0; c->unit && p < c->planes; p++)
        bufs[p] = c->unit + p * pb;
    flash_ctrl_cmds_begin(&cmds, c->fms, now, false);
    /* The fast path needs reads whose data go nowhere: no payload, no sink to call. */
    flash_fms_run_begin(c->fms, &run, false, (c->planes - rq->lpn % c->planes) % c->planes,
                        !c->unit && !(sink && sink->deliver));

    cur = rq->lpn;
    left = npages;
    while (left) {
        /* One program unit per die read (one page when multi-plane is off). */
        uint32_t plane0 = (uint32_t)(cur % c->planes);
        uint32_t n = cfg->sw.multi_plane ? c->planes - plane0 : 1, got;
        struct flash_mpop op;
        uint64_t t;

        if (run.stripe && cur - rq->lpn == run.next) {
            uint64_t k = flash_fms_run_at(c->fms, &run, left / run.stripe);

            if (k && (k = ftl_stream_read_stripes(s, now, cur, k, run.stripe)) != 0) {
                uint64_t pages = k * run.stripe, j = cur - rq->lpn;
                uint64_t stop = (j + pages) * pb, req_end = rq->offset + rq->bytes;

                flash_fms_run_skip(c->fms, &run, k, &end);
                cmds.t_ready += k * run.t_cmds;
                c->st.cmds += k * run.cmds;
                c->st.ops += cfg->sw.multi_plane ? pages / c->planes : pages;
                c->st.pages += pages;
                /* The request's bytes in pages j .. j + pages (deliver() page by page). */
                c->st.bytes += (stop < req_end ? stop : req_end) - res_later(j * pb, rq->offset);
                cur += pages;
                left -= pages;
                continue;
            }
        }
        if (n > left)
            n = (uint32_t)left;
        /* The unit is read once the command carrying its last page is processed. */
        c->st.cmds += flash_ctrl_cmds_take(&cmds, n);
        rc = ftl_stream_lookup_unit(s, now, cur, n, &op, &got, e);
        if (rc)
            return err_prefix(e, rc, "flash controller");
        rc = flash_fms_read(c->fms, cmds.t_ready, &op, c->unit ? bufs : NULL, &t, e);
        if (rc)
            return err_prefix(e, rc, "flash controller");
        c->st.ops++;
        c->st.pages += n;
        flash_fms_run_note(&run, t);
        rc = deliver(c, rq, cur, plane0, n, t, sink, &end, e);
        if (rc)
            return rc;
        cur += n;
        left -= n;
    }
    c->st.reqs++;
    c->st.lat_ps += end - now;
    if (end - now > c->st.lat_max_ps)
        c->st.lat_max_ps = end - now;
    *done = end;
    return 0;
}
