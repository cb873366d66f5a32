/*
 * bench_paper: how long `make paper` takes: scripts/paper/run.sh (the 12 workloads of the
 * paper's Table 3 on the SSD baseline, Behemoth and an ideal store, 36 points of
 * `flashstream perf` through GNU parallel, one per core, then the report) into out/bench/paper.
 *
 *   paper.wall_s   the whole run's wall time; target <= 180 s on 2 cores
 *   paper.cpu_s    its CPU time (user + system of every process it ran): the wall time of an
 *                  idle machine is this over the cores, the longest point permitting
 *
 * One run (a run is minutes: no median), on a machine that may be shared: the figure says the
 * load average (1 minute) before and after, and how many cores there were.
 * Usage: bench_paper [flashstream-binary]
 */
#define _DEFAULT_SOURCE /* wait4: the CPU time of the run and everything it waited for */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testbench/bench_util.h"

/* The 1-minute load average, -1 when /proc/loadavg cannot be read. */
static double load1(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double l = -1;

    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

int main(int argc, char **argv)
{
    const char *fs = argc > 1 ? argv[1] : "build/rel/flashstream";
    double l0 = load1(), t0 = bench_wall_s(), wall, cpu;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    struct rusage ru;
    int status;
    pid_t pid;

    if (mkdir("out", 0777) && errno != EEXIST) {
        fprintf(stderr, "bench_paper: cannot create out/: %s\n", strerror(errno));
        return 1;
    }
    if (mkdir("out/bench", 0777) && errno != EEXIST) {
        fprintf(stderr, "bench_paper: cannot create out/bench/: %s\n", strerror(errno));
        return 1;
    }
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        /* The run's own output would drown the figures: it goes to a log beside them. */
        if (!freopen("out/bench/paper.log", "w", stdout) || dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
            _exit(127);
        execl("scripts/paper/run.sh", "scripts/paper/run.sh", "out/bench/paper", fs, (char *)NULL);
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr,
                "bench_paper: scripts/paper/run.sh failed (status %d); its output: "
                "out/bench/paper.log\n",
                status);
        return 1;
    }
    wall = bench_wall_s() - t0;
    cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
          ru.ru_stime.tv_usec * 1e-6;
    bench_figure("paper.wall_s: make paper (36 perf points through GNU parallel, then the report)",
                 "<= 180 s",
                 "%.0f s wall, %.0f s of CPU, one run on %ld cores, load average %.2f "
                 "before, %.2f after",
                 wall, cpu, cores, l0, load1());
    return 0;
}
