/*
 * cmn_fifo: the C model of rtl/common/cmn_fifo.v, for the twins that contain one: a first-word
 * fall-through FIFO of depth entries of a fixed size.
 *
 * Contract
 * --------
 * Modelled: the FIFO's registers and its ports, cycle for cycle. in_ready = !full,
 * out_valid = !empty, the head entry is visible (cmn_fifo_head) from the cycle after it was
 * written; at a rising edge (cmn_fifo_clock) a beat is written if pushed and not full and the
 * head is dropped if popped and not empty, both decided on the occupancy before the edge (a
 * full FIFO refuses a beat even in a cycle it is popped, as the RTL does).
 * A twin whose RTL gates the handshakes itself may call cmn_fifo_push and cmn_fifo_pop
 * directly; they assume room and an entry, like the RTL's assertions.
 * Not modelled: the payload's bit width (an entry is a C struct of `size` bytes).
 * Units: entries, bytes.
 */
#ifndef MODELS_COMMON_CMN_FIFO_H
#define MODELS_COMMON_CMN_FIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct cmn_fifo {
    unsigned char *mem; /* depth entries of size bytes */
    size_t size;
    unsigned depth, head, count;
};

/* An empty FIFO of depth (>= 1) entries of size bytes; 0 or -ENOMEM. */
int cmn_fifo_init(struct cmn_fifo *f, unsigned depth, size_t size);
/* Release the storage (f may be zeroed, never initialised). */
void cmn_fifo_fini(struct cmn_fifo *f);

/* The reset: empty. */
void cmn_fifo_reset(struct cmn_fifo *f);

static inline unsigned cmn_fifo_count(const struct cmn_fifo *f)
{
    return f->count;
}

static inline bool cmn_fifo_empty(const struct cmn_fifo *f)
{
    return f->count == 0;
}

static inline bool cmn_fifo_full(const struct cmn_fifo *f)
{
    return f->count == f->depth;
}

/* The head entry (meaningful while not empty). */
static inline const void *cmn_fifo_head(const struct cmn_fifo *f)
{
    return f->mem + (size_t)f->head * f->size;
}

/* Write one entry (the FIFO is not full). Inline, as the three below: a twin clocks several
 * FIFOs every cycle, most of them idle, and a call per FIFO per cycle showed in profiles. */
static inline void cmn_fifo_push(struct cmn_fifo *f, const void *in)
{
    unsigned slot = f->head + f->count;

    if (slot >= f->depth)
        slot -= f->depth; /* head < depth and count < depth here */
    memcpy(f->mem + (size_t)slot * f->size, in, f->size);
    f->count++;
}

/* Drop the head (the FIFO is not empty). */
static inline void cmn_fifo_pop(struct cmn_fifo *f)
{
    f->head = f->head + 1 == f->depth ? 0 : f->head + 1;
    f->count--;
}

/* The rising edge: write `in` if push and not full, drop the head if pop and not empty. */
static inline void cmn_fifo_clock(struct cmn_fifo *f, bool push, const void *in, bool pop)
{
    bool in_fire = push && !cmn_fifo_full(f), out_fire = pop && !cmn_fifo_empty(f);

    if (in_fire)
        cmn_fifo_push(f, in);
    if (out_fire)
        cmn_fifo_pop(f);
}

#endif
