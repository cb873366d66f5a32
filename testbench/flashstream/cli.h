/*
 * cli: option parsing shared by the flashstream commands. Every bad value
 * is reported with the option, the value given and the range accepted.
 */
#ifndef TESTBENCH_FLASHSTREAM_CLI_H
#define TESTBENCH_FLASHSTREAM_CLI_H

#include <stdint.h>

/* Parse an unsigned integer option value in [min, max]; 0 or -1 (message printed). */
int cli_u64(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out);

/* Parse a float option value in [min, max] (finite), read with strtof so that the float is the
 * decimal correctly rounded once; 0 or -1 (message printed). */
int cli_f32(const char *opt, const char *val, float min, float max, float *out);

/* Parse one of n names (exact match); *out = its index. 0 or -1 (message lists the names). */
int cli_enum(const char *opt, const char *val, const char *const names[], int n, int *out);

/* Parse a comma-separated list of 1..max_n unsigned integers, each in [min, max], e.g.
 * "256,128"; *n = how many. 0 or -1 (message names the bad item). */
int cli_u64_list(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out,
                 int max_n, int *n);

/* Wall-clock seconds from a monotonic clock. */
double cli_wall_s(void);

#endif
