/*
 * flashbench_report: what both devices of `flashstream flashbench` share at run time: the
 * fio-like report (flashbench.c runs the node's flash memory
 * system, flashbench_ssd.c the SSD baseline). flashbench.c -> flashbench_ssd.c -> this file.
 */
#include "testbench/flashstream/flashbench.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fb_rw_names[4] = {"write", "read", "randwrite", "randread"};
const char *const fb_device_names[3] = {"fms", "ssd", "raid0"};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

const char *fb_human(uint64_t bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;

    while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, len, "%" PRIu64 "%s", bytes, unit[u]);
    return buf;
}

void fb_print_latency(const struct fb_result *r)
{
    static const double pct[] = {1, 5, 10, 50, 90, 95, 99, 99.9, 99.99};
    double sum = 0.0, sq = 0.0, avg, sd;
    uint64_t n = r->n_req;

    qsort(r->lat, n, sizeof(*r->lat), cmp_u64);
    for (uint64_t i = 0; i < n; i++)
        sum += (double)r->lat[i];
    avg = sum / (double)n;
    for (uint64_t i = 0; i < n; i++)
        sq += ((double)r->lat[i] - avg) * ((double)r->lat[i] - avg);
    sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
    printf("    lat (usec): min=%.2f, max=%.2f, avg=%.2f, stdev=%.2f\n",
           (double)r->lat[0] / FLASH_PS_PER_US, (double)r->lat[n - 1] / FLASH_PS_PER_US,
           avg / FLASH_PS_PER_US, sd / FLASH_PS_PER_US);
    printf("    lat percentiles (usec):\n");
    for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
        /* nearest rank */
        uint64_t k = (uint64_t)ceil(pct[i] / 100.0 * (double)n);

        k = k ? k - 1 : 0;
        printf("%s%6.2fth=[%9.2f]%s", i % 4 == 0 ? "     | " : "", pct[i],
               (double)r->lat[k] / FLASH_PS_PER_US,
               i % 4 == 3 || i + 1 == sizeof(pct) / sizeof(pct[0]) ? "\n" : ", ");
    }
}

void fb_print_terms(const struct fb_term *tm, size_t n, double achieved)
{
    size_t best = 0;

    printf("  bound (GB/s) for these requests:\n");
    for (size_t i = 0; i < n; i++) {
        printf("    %-13s %8.2f  (%s)\n", tm[i].name, tm[i].bps / 1e9, tm[i].how);
        if (tm[i].bps < tm[best].bps)
            best = i;
    }
    printf("    => %.2f GB/s (%s); achieved %.1f%%\n", tm[best].bps / 1e9, tm[best].name,
           100.0 * achieved / tm[best].bps);
}

void fb_print_fault_stats(const struct flash_fault_stats *s)
{
    printf("  faults: %" PRIu64 " pages decoded, %" PRIu64 " read again (%" PRIu64
           " retries, %.3f ms of array and channel time), %" PRIu64 " uncorrectable; %" PRIu64
           " program failures; %" PRIu64 " operations refused by a dead die or channel, %" PRIu64
           " by power loss\n",
           s->pages_checked, s->pages_retried, s->retries, s->retry_ps / 1e9, s->uncorrectable,
           s->program_failures, s->refused_dead, s->refused_power);
}
