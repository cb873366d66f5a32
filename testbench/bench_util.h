/*
 * bench_util: the clocks and the median every benchmark reports with, and the figure lines
 * that `make bench` gathers into the table of docs/performance.md.
 *
 * Wall time is what a user waits; process CPU time is what wall time would be on an idle
 * machine, the figure a shared, loaded machine does not distort. Timed figures are medians of
 * several runs (the middle element after sorting; the upper middle for an even count).
 */
#ifndef FLASHSTREAM_BENCH_UTIL_H
#define FLASHSTREAM_BENCH_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double bench_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* qsort comparator for doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1]; sorts v. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    return v[n / 2];
}

/*
 * One row of the performance table: "figure | WHAT | MEASURED | TARGET" on stdout, MEASURED
 * formatted from fmt. scripts/bench-table.sh turns these lines into docs/performance.md's table,
 * so the table holds what the last `make bench` measured, never numbers typed by hand.
 */
__attribute__((format(printf, 3, 4))) static inline void
bench_figure(const char *what, const char *target, const char *fmt, ...)
{
    va_list ap;
    printf("figure | %s | ", what);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(" | %s\n", target && *target ? target : "");
}

#endif
