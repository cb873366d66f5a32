#include "models/ssd/ssd_serial.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ssd_slots_init(struct ssd_slots *s, uint32_t n, struct err *e)
{
    memset(s, 0, sizeof(*s));
    s->heap = malloc((size_t)n * sizeof(*s->heap));
    if (!s->heap)
        return err_set(e, -ENOMEM, "ssd: out of memory for %u slots", n);
    s->n = n;
    return 0;
}

void ssd_slots_fini(struct ssd_slots *s)
{
    free(s->heap);
    memset(s, 0, sizeof(*s));
}

static void heap_pop(struct ssd_slots *s)
{
    struct ssd_release x = s->heap[--s->entries];
    uint32_t i = 0;

    for (;;) {
        uint32_t c = 2 * i + 1;

        if (c >= s->entries)
            break;
        if (c + 1 < s->entries && s->heap[c + 1].t < s->heap[c].t)
            c++;
        if (s->heap[c].t >= x.t)
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->entries)
        s->heap[i] = x;
}

bool ssd_slots_blocked(const struct ssd_slots *s)
{
    return s->pending >= s->n;
}

uint64_t ssd_slots_take(struct ssd_slots *s, uint64_t t)
{
    uint64_t at = t;

    /* Slots released by t are free. */
    while (s->entries && s->heap[0].t <= t) {
        s->held -= s->heap[0].n;
        heap_pop(s);
    }
    if (s->held + s->pending >= s->n) {
        assert(s->entries); /* ssd_slots_blocked says when this would fail */
        at = s->heap[0].t;
        s->held--;
        if (--s->heap[0].n == 0)
            heap_pop(s);
        s->waits++;
        s->wait_ps += at - t;
    }
    s->pending++;
    return at;
}

void ssd_slots_hold(struct ssd_slots *s, uint64_t t_release, uint32_t n)
{
    uint32_t i;

    assert(s->pending >= n);
    s->pending -= n;
    s->held += n;
    i = s->entries++;
    while (i && s->heap[(i - 1) / 2].t > t_release) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = (struct ssd_release){t_release, n};
}
