/*
 * hostmem: whether this host can hold a given number of bytes, asked before allocating a model,
 * a data set or a flash array whose size comes from input (a header, a geometry), so that an
 * impossible size is refused with its figure instead of failing or swapping halfway.
 *
 * Contract
 * --------
 * Modelled: the smaller of the host's physical memory (sysconf _SC_PHYS_PAGES x _SC_PAGESIZE)
 * and the address-space and data-segment limits of the process (RLIMIT_AS, RLIMIT_DATA, when
 * set). A request above it is refused, naming what needed the memory, the bytes needed and the
 * limit with where it comes from.
 * Not modelled: memory other processes use (a size under the limit can still fail to allocate:
 * the allocator's error then stands), swap, overcommit settings.
 * Units: bytes.
 */
#ifndef CSIM_HOSTMEM_H
#define CSIM_HOSTMEM_H

#include <stdint.h>

#include "csim/err.h"

/* The bytes this process can hold at most, and what limits it ("physical memory",
 * "RLIMIT_AS", "RLIMIT_DATA") in *why (may be NULL). */
uint64_t hostmem_limit(const char **why);

/* 0 if bytes fit under hostmem_limit, else -ENOMEM with e reading "<what> needs <bytes> bytes
 * (<GiB>) of host memory; this host holds at most <limit> (<why>)". */
int hostmem_check(uint64_t bytes, const char *what, struct err *e);

#endif
