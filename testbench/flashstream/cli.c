#include "testbench/flashstream/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int cli_u64(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 0);
    if (errno || end == val || *end || val[0] == '-' || v < min || v > max) {
        fprintf(stderr,
                "flashstream: %s '%s' is not accepted: give an integer from %" PRIu64 " to %" PRIu64
                "\n",
                opt, val, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

double cli_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
