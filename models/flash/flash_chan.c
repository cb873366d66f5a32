#include "models/flash/flash_chan.h"

#include <string.h>

void flash_chan_init(struct flash_chan *ch, const struct flash_cfg *c)
{
    memset(ch, 0, sizeof(*ch));
    ch->t_cmd_ps = c->tim.t_cmd_ps;
    ch->t_page_ps = flash_cfg_xfer_ps(&c->tim, c->geom.page_bytes);
    ch->page_bytes = c->geom.page_bytes;
}

uint64_t flash_chan_in_ps(const struct flash_chan *ch, uint32_t npages)
{
    return npages * (ch->t_cmd_ps + ch->t_page_ps);
}

uint64_t flash_chan_cmd(struct flash_chan *ch, uint64_t t, uint32_t nplanes)
{
    /* Claiming nothing would still move busy_until up to t and delay later transfers. */
    if (!ch->t_cmd_ps || !nplanes)
        return t;
    return res_claim(&ch->bus, t, nplanes * ch->t_cmd_ps);
}

uint64_t flash_chan_data_in(struct flash_chan *ch, uint64_t t, uint32_t npages)
{
    ch->bytes_in += npages * ch->page_bytes;
    return res_claim(&ch->bus, t, flash_chan_in_ps(ch, npages));
}

uint64_t flash_chan_data_out(struct flash_chan *ch, uint64_t t, uint32_t npages)
{
    ch->bytes_out += npages * ch->page_bytes;
    return res_claim(&ch->bus, t, npages * ch->t_page_ps);
}
