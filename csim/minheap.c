/*
 * minheap.c - a binary min-heap of uint64_t over the caller's array; see minheap.h.
 */
#include "csim/minheap.h"

void minheap_push(struct minheap *h, uint64_t x)
{
    size_t i = h->n++;

    while (i && h->v[(i - 1) / 2] > x) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

uint64_t minheap_pop(struct minheap *h)
{
    uint64_t top = h->v[0], x = h->v[--h->n];
    size_t i = 0;

    for (;;) {
        size_t c = 2 * i + 1;

        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= x)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = x;
    return top;
}
