#include "testbench/flashstream/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
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

int cli_f32(const char *opt, const char *val, float min, float max, float *out)
{
    char *end;
    errno = 0;
    float v = strtof(val, &end);
    if (errno || end == val || *end || !isfinite(v) || v < min || v > max) {
        fprintf(stderr, "flashstream: %s '%s' is not accepted: give a number from %g to %g\n", opt,
                val, (double)min, (double)max);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_enum(const char *opt, const char *val, const char *const names[], int n, int *out)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(val, names[i])) {
            *out = i;
            return 0;
        }
    }
    fprintf(stderr, "flashstream: %s '%s' is not accepted: give one of", opt, val);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i ? "," : "", names[i]);
    fprintf(stderr, "\n");
    return -1;
}

int cli_u64_list(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out,
                 int max_n, int *n)
{
    const char *p = val;
    int k = 0;

    for (;;) {
        char item[32];
        size_t len = strcspn(p, ",");
        char *end;

        if (k == max_n) {
            fprintf(stderr,
                    "flashstream: %s '%s' is not accepted: give at most %d comma-separated "
                    "integers\n",
                    opt, val, max_n);
            return -1;
        }
        if (len == 0 || len >= sizeof(item)) {
            fprintf(stderr,
                    "flashstream: %s '%s' is not accepted: give comma-separated integers from "
                    "%" PRIu64 " to %" PRIu64 " (item %d is empty or too long)\n",
                    opt, val, min, max, k + 1);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        errno = 0;
        unsigned long long v = strtoull(item, &end, 10);
        if (errno || *end || item[0] == '-' || item[0] == '+' || v < min || v > max) {
            fprintf(stderr,
                    "flashstream: %s '%s' is not accepted: item %d '%s' is not an integer from "
                    "%" PRIu64 " to %" PRIu64 "\n",
                    opt, val, k + 1, item, min, max);
            return -1;
        }
        out[k++] = v;
        if (!p[len])
            break;
        p += len + 1;
    }
    *n = k;
    return 0;
}

double cli_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
