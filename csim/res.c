#include "csim/res.h"

uint64_t res_claim(struct res *r, uint64_t t, uint64_t dur)
{
    uint64_t start = res_later(t, r->busy_until);

    r->busy_until = start + dur;
    r->busy_ps += dur;
    r->n_ops++;
    return r->busy_until;
}

double res_util(const struct res *r, uint64_t until)
{
    return until ? (double)r->busy_ps / (double)until : 0.0;
}
