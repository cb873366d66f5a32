/*
 * ssd_serial: the SSD's serial resources (its firmware, and the slots of its queues and buffer).
 *
 * Contract
 * --------
 * Modelled:
 *   - A serial resource (the firmware): busy-until timing, one operation at a time in call order
 *     (flash_res: an operation asked for at t with duration d starts at max(t, busy_until)). Every
 *     serial resource of the SSD goes through ssd_serial_claim, so the busy-until type behind it
 *     changes in this one place.
 *   - A pool of slots (submission queue entries, write-buffer pages): n slots, each held from the
 *     time it is taken until a release time given later. ssd_slots_take(t) takes a slot at t if
 *     one is free then, else waits for the earliest release (a binary min-heap of the release
 *     times of held slots); ssd_slots_hold then records when the slot taken comes free. Slots
 *     taken but not yet given a release time count as held (pending). Release times mostly
 *     come in order (a stream of commands, the programs of one die): those that do wait in a
 *     FIFO, O(1), the others in the heap; the earliest of the two heads is the next release.
 * Not modelled: priorities; a slot's holder cannot give it back before its release time.
 * Units: picoseconds.
 */
#ifndef MODELS_SSD_SSD_SERIAL_H
#define MODELS_SSD_SSD_SERIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "csim/err.h"
#include "csim/res.h"

struct ssd_serial {
    struct res res;
};

/* Serve an operation of duration dur asked for at t; returns its end. */
static inline uint64_t ssd_serial_claim(struct ssd_serial *s, uint64_t t, uint64_t dur)
{
    return res_claim(&s->res, t, dur);
}

static inline uint64_t ssd_serial_free_at(const struct ssd_serial *s)
{
    return s->res.busy_until;
}

static inline double ssd_serial_util(const struct ssd_serial *s, uint64_t until)
{
    return res_util(&s->res, until);
}

static inline uint64_t ssd_later(uint64_t a, uint64_t b)
{
    return res_later(a, b);
}

/* Slots that come free together: one heap entry for a program's pages. */
struct ssd_release {
    uint64_t t;
    uint32_t n;
};

struct ssd_slots {
    uint32_t n;               /* slots */
    uint32_t pending;         /* taken, release time not given yet */
    uint32_t held;            /* taken, with a release time (in the heap) */
    uint32_t entries;         /* heap entries */
    struct ssd_release *heap; /* release times out of order, min-heap */
    uint32_t f_head, f_len;   /* the FIFO: first entry, entries */
    struct ssd_release *fifo; /* [n]: release times in order, a ring */
    uint64_t waits;           /* takes that had to wait for a release */
    uint64_t wait_ps;         /* time spent waiting */
};

int ssd_slots_init(struct ssd_slots *s, uint32_t n, struct err *e);
void ssd_slots_fini(struct ssd_slots *s);

/* True when all slots are held and none has a release time yet (taking one would wait for a
 * release not known yet). */
bool ssd_slots_blocked(const struct ssd_slots *s);

/* Take a slot asked for at t; returns when it is free (>= t). Not when blocked. */
uint64_t ssd_slots_take(struct ssd_slots *s, uint64_t t);

/* n slots taken earlier come free at t_release. */
void ssd_slots_hold(struct ssd_slots *s, uint64_t t_release, uint32_t n);

#endif
