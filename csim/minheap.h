/*
 * minheap: a binary min-heap of uint64_t times, the completion times of the requests in flight
 * of a queue-depth loop (flashbench's requests, an SSD's preconditioning): each new request is
 * issued when the earliest in flight completes.
 *
 * Contract
 * --------
 * Modelled: push and pop of the smallest in O(log n) over a caller's array v of at least the
 * most entries the caller pushes (the heap does not grow it).
 * Not modelled: anything but uint64_t keys; growth.
 * Units: whatever the caller's times are (picoseconds here).
 */
#ifndef CSIM_MINHEAP_H
#define CSIM_MINHEAP_H

#include <stddef.h>
#include <stdint.h>

struct minheap {
    uint64_t *v; /* the caller's array */
    size_t n;    /* entries in it */
};

void minheap_push(struct minheap *h, uint64_t x);
/* The smallest entry, removed; h->n must be above 0. */
uint64_t minheap_pop(struct minheap *h);

#endif
