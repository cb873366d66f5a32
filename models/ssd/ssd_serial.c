#include "models/ssd/ssd_serial.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ssd_slots_init(struct ssd_slots *s, uint32_t n, struct err *e)
{
    memset(s, 0, sizeof(*s));
    s->heap = malloc((size_t)n * sizeof(*s->heap));
    s->fifo = malloc((size_t)n * sizeof(*s->fifo));
    if (!s->heap || !s->fifo) {
        ssd_slots_fini(s);
        return err_set(e, -ENOMEM, "ssd: out of memory for %u slots", n);
    }
    s->n = n;
    return 0;
}

void ssd_slots_fini(struct ssd_slots *s)
{
    free(s->heap);
    free(s->fifo);
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

/* The entry of the next release, the FIFO's head or the heap's top (either on a tie: they free
 * their slots at the same time); NULL when no slot has a release time. */
static struct ssd_release *next_release(struct ssd_slots *s)
{
    struct ssd_release *f = s->f_len ? &s->fifo[s->f_head] : NULL;

    if (!s->entries)
        return f;
    return f && f->t <= s->heap[0].t ? f : &s->heap[0];
}

static void drop(struct ssd_slots *s, struct ssd_release *x)
{
    if (x == &s->heap[0]) {
        heap_pop(s);
        return;
    }
    s->f_head = s->f_head + 1 == s->n ? 0 : s->f_head + 1;
    s->f_len--;
}

uint64_t ssd_slots_take(struct ssd_slots *s, uint64_t t)
{
    struct ssd_release *x;
    uint64_t at = t;

    /* Slots released by t are free. */
    while ((x = next_release(s)) && x->t <= t) {
        s->held -= x->n;
        drop(s, x);
    }
    if (s->held + s->pending >= s->n) {
        assert(x); /* ssd_slots_blocked says when this would fail */
        at = x->t;
        s->held--;
        if (--x->n == 0)
            drop(s, x);
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
    if (!s->f_len || s->fifo[(s->f_head + s->f_len - 1) % s->n].t <= t_release) {
        s->fifo[(s->f_head + s->f_len++) % s->n] = (struct ssd_release){t_release, n};
        return;
    }
    i = s->entries++;
    while (i && s->heap[(i - 1) / 2].t > t_release) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = (struct ssd_release){t_release, n};
}
