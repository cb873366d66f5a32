#include "models/flash/flash_res.h"

uint64_t flash_res_claim(struct flash_res *r, uint64_t t, uint64_t dur)
{
    uint64_t start = flash_res_later(t, r->busy_until);

    r->busy_until = start + dur;
    r->busy_ps += dur;
    r->n_ops++;
    return r->busy_until;
}

double flash_res_util(const struct flash_res *r, uint64_t until)
{
    return until ? (double)r->busy_ps / (double)until : 0.0;
}
