/*
 * cmn_skid_buf: the C model of rtl/common/cmn_skid_buf.v, for the twins that contain one: a
 * two-entry skid buffer (an output register and a skid register) with a payload of a fixed size.
 *
 * Contract
 * --------
 * Modelled: the buffer's registers and its ports, cycle for cycle. in_ready = !skid_valid,
 * out_valid and the output payload are registers. At a rising edge (cmn_skid_buf_clock): when
 * the output register is free or drained, it takes the skid entry if there is one, else the
 * input beat; when it is stalled, an input beat goes into the skid register.
 * Not modelled: the payload's bit width (the payload is a C struct of `size` bytes).
 * Units: bytes.
 */
#ifndef MODELS_COMMON_CMN_SKID_BUF_H
#define MODELS_COMMON_CMN_SKID_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct cmn_skid_buf {
    unsigned char *out, *skid; /* the two payload registers, size bytes each */
    size_t size;
    bool out_valid, skid_valid;
};

/* An empty buffer for payloads of size bytes; 0 or -ENOMEM. */
int cmn_skid_buf_init(struct cmn_skid_buf *s, size_t size);
/* Release the storage (s may be zeroed, never initialised). */
void cmn_skid_buf_fini(struct cmn_skid_buf *s);

/* The reset: empty. */
void cmn_skid_buf_reset(struct cmn_skid_buf *s);

static inline bool cmn_skid_buf_in_ready(const struct cmn_skid_buf *s)
{
    return !s->skid_valid;
}

/* The output payload (meaningful while out_valid). */
static inline const void *cmn_skid_buf_out(const struct cmn_skid_buf *s)
{
    return s->out;
}

/* The rising edge, with this cycle's input beat (in_valid, in) and downstream out_ready. */
void cmn_skid_buf_clock(struct cmn_skid_buf *s, bool in_valid, const void *in, bool out_ready);

#endif
