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
