/*
 * scratch: the one file a fuzz harness gives the loaders that read a path.
 *
 * An anonymous file in memory (memfd_create), named by its /proc/self/fd path: each input
 * overwrites it, nothing is written to a disk, and it goes away with the process.
 */
#ifndef TESTBENCH_FUZZ_SCRATCH_H
#define TESTBENCH_FUZZ_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

/* Make data[0..n) the whole scratch file and return its path; aborts if it cannot. */
const char *scratch_write(const uint8_t *data, size_t n);

#endif
