/*
 * cli: option parsing shared by the flashstream commands. Every bad value
 * is reported with the option, the value given and the range accepted.
 */
#ifndef TESTBENCH_FLASHSTREAM_CLI_H
#define TESTBENCH_FLASHSTREAM_CLI_H

#include <stdint.h>

/* Parse an unsigned integer option value in [min, max]; 0 or -1 (message printed). */
int cli_u64(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out);

/* Wall-clock seconds from a monotonic clock. */
double cli_wall_s(void);

#endif
