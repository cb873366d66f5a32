#include "models/common/cmn_skid_buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cmn_skid_buf_init(struct cmn_skid_buf *s, size_t size)
{
    s->out = calloc(2, size);
    s->skid = s->out ? s->out + size : NULL;
    s->size = size;
    s->out_valid = s->skid_valid = false;
    return s->out ? 0 : -ENOMEM;
}

void cmn_skid_buf_fini(struct cmn_skid_buf *s)
{
    free(s->out);
    s->out = s->skid = NULL;
}

void cmn_skid_buf_reset(struct cmn_skid_buf *s)
{
    s->out_valid = s->skid_valid = false;
}

void cmn_skid_buf_clock(struct cmn_skid_buf *s, bool in_valid, const void *in, bool out_ready)
{
    bool in_fire = in_valid && !s->skid_valid;
    bool out_fire = s->out_valid && out_ready;

    if (!s->out_valid || out_fire) {
        if (s->skid_valid || in_fire)
            memcpy(s->out, s->skid_valid ? s->skid : in, s->size);
        s->out_valid = s->skid_valid || in_fire;
        s->skid_valid = false;
    } else if (in_fire) {
        s->skid_valid = true;
        memcpy(s->skid, in, s->size);
    }
}
