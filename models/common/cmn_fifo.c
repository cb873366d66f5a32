#include "models/common/cmn_fifo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cmn_fifo_init(struct cmn_fifo *f, unsigned depth, size_t size)
{
    f->mem = calloc(depth, size);
    f->size = size;
    f->depth = depth;
    f->head = f->count = 0;
    return f->mem ? 0 : -ENOMEM;
}

void cmn_fifo_fini(struct cmn_fifo *f)
{
    free(f->mem);
    f->mem = NULL;
}

void cmn_fifo_reset(struct cmn_fifo *f)
{
    f->head = f->count = 0;
}

void cmn_fifo_push(struct cmn_fifo *f, const void *in)
{
    memcpy(f->mem + (size_t)((f->head + f->count) % f->depth) * f->size, in, f->size);
    f->count++;
}

void cmn_fifo_pop(struct cmn_fifo *f)
{
    f->head = (f->head + 1) % f->depth;
    f->count--;
}

void cmn_fifo_clock(struct cmn_fifo *f, bool push, const void *in, bool pop)
{
    bool in_fire = push && !cmn_fifo_full(f), out_fire = pop && !cmn_fifo_empty(f);

    if (in_fire)
        cmn_fifo_push(f, in);
    if (out_fire)
        cmn_fifo_pop(f);
}
