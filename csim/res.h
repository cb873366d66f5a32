/*
 * res: a timed resource that serves one operation at a time, in call order: a flash channel's
 * bus, a flash controller, a DRAM channel's data bus, a fabric link or a switch's adder.
 *
 * Contract
 * --------
 * Modelled: busy-until timing (STYLE rule 13). An operation asked for at time t with duration d
 * starts at max(t, busy_until) and ends d later; busy_until moves to its end. Busy time and
 * operation count are kept for utilisation statistics. A zeroed struct res is a resource that
 * has served nothing and is free from time 0.
 * Not modelled: reordering or filling earlier idle gaps: operations are served in the order the
 * calls arrive (first come, first served), which is exact for one in-order requester and
 * conservative otherwise.
 * Units: picoseconds.
 */
#ifndef CSIM_RES_H
#define CSIM_RES_H

#include <stdint.h>

struct res {
    uint64_t busy_until; /* time the resource becomes free */
    uint64_t busy_ps;    /* sum of durations served */
    uint64_t n_ops;      /* operations served */
};

/* Serve an operation of duration dur asked for at t; returns its end time (its start is the end
 * minus dur). */
uint64_t res_claim(struct res *r, uint64_t t, uint64_t dur);

/* Utilisation of r over [0, until]: busy_ps / until (0 when until is 0). */
double res_util(const struct res *r, uint64_t until);

/* The later of two times. */
static inline uint64_t res_later(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

#endif
