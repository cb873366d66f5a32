/*
 * bench_perf: speed and memory of the payload-free perf mode (flashstream perf) on the paper's
 * machine (configs/behemoth-paper.ini: 4 ANs x 16 cores of 128 x 256 PEs, 4 TiB Weight Node):
 *
 *   perf.gpt3_1x1.wall_s      wall time of one GPT3-like 1x1 (GPT-3 175B) iteration, compile
 *                             and machine included (the whole command), median of RUNS runs;
 *                             target <= 5 s
 *   perf.gpt3_1x1.rss_mb      the command's peak resident memory (ru_maxrss); target <= 2 GB
 *   perf.gpt3_1x1.iteration_s simulated time of that iteration and sequences/s
 *   perf.gpt3_2x4.wall_s      one GPT3-like 2x4 iteration (5.5 TB of weights), with the
 *                             Weight Node's and Activation Nodes' flash raised to hold it
 *                             (32 chips on each of 128 channels, 8 on 64: 32 TiB and 8 TiB);
 *                             it must run
 *   perf.llama_405b.wall_s    one LLaMA-3.1-405B iteration (configs/models/), median of RUNS;
 *                             target <= 10 s, <= 4 GB
 *   perf.deepseek_v3.wall_s   one DeepSeek-V3 iteration (671 B, 256 experts), median of RUNS;
 *                             target <= 30 s, <= 4 GB
 *
 * Each run is the real command, built beside this program (build/rel/flashstream), so the
 * figure is what a user waits. The command's last line gives the simulated figures.
 * Usage: bench_perf [flashstream-binary]
 */
#define _DEFAULT_SOURCE /* wait4: the child's own peak memory */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testbench/bench_util.h"

#define RUNS 3

struct run {
    double wall_s, rss_mb, iter_s, seqs;
};

/* Run fs perf with args; 0 and the figures, or -1 (message printed). */
static int run_perf(const char *fs, const char *const *args, struct run *r)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    double t0 = bench_wall_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        const char *argv[32] = {fs, "perf"};
        int n = 2;
        for (int i = 0; args[i] && n < 31; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        execv(fs, (char *const *)argv);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[512], last[512] = "";
    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "perf: ", 6))
            snprintf(last, sizeof(last), "%s", line);
    if (f)
        fclose(f);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "bench_perf: %s perf failed (status %d)\n", fs, status);
        return -1;
    }
    r->wall_s = bench_wall_s() - t0;
    r->rss_mb = (double)ru.ru_maxrss / 1024.0;
    const char *p = strstr(last, ": ");
    p = p ? strstr(p + 2, ": ") : NULL;
    if (!p ||
        sscanf(p, ": %lf s per iteration simulated, %lf sequences/s", &r->iter_s, &r->seqs) != 2) {
        fprintf(stderr, "bench_perf: no 'perf:' line in the command's output\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *fs = argc > 1 ? argv[1] : "build/rel/flashstream";
    static const char *const one[] = {
        "--config", "configs/behemoth-paper.ini", "--model",     "gpt3-like:1x1",
        "--out",    "out/bench/perf-gpt3-1x1",    "--trace-max", "0",
        NULL};
    static const char *const big[] = {
        "--config", "configs/behemoth-paper.ini", "--set",       "wn_flash.chips_per_chan=32",
        "--set",    "an_flash.chips_per_chan=8",  "--model",     "gpt3-like:2x4",
        "--out",    "out/bench/perf-gpt3-2x4",    "--trace-max", "0",
        NULL};
    static const char *const llama[] = {"--config",
                                        "configs/behemoth-paper.ini",
                                        "--flash-fit",
                                        "--model",
                                        "configs/models/llama-3.1-405b.json",
                                        "--out",
                                        "out/bench/perf-llama-405b",
                                        "--trace-max",
                                        "0",
                                        NULL};
    static const char *const deepseek[] = {"--config",
                                           "configs/behemoth-paper.ini",
                                           "--flash-fit",
                                           "--model",
                                           "configs/models/deepseek-v3.json",
                                           "--out",
                                           "out/bench/perf-deepseek-v3",
                                           "--trace-max",
                                           "0",
                                           NULL};
    double wall[RUNS], rss = 0;
    struct run r;

    for (int i = 0; i < RUNS; i++) {
        if (run_perf(fs, one, &r))
            return 1;
        wall[i] = r.wall_s;
        rss = r.rss_mb > rss ? r.rss_mb : rss;
    }
    bench_figure("perf.gpt3_1x1.wall_s: one GPT3-like 1x1 iteration on the paper's machine",
                 "<= 5 s", "%.2f s (median of %d)", bench_median(wall, RUNS), RUNS);
    bench_figure("perf.gpt3_1x1.rss_mb: its peak memory", "<= 2048 MB", "%.0f MB", rss);
    bench_figure("perf.gpt3_1x1.iteration_s: simulated iteration, throughput", "",
                 "%.3f s, %.4g sequences/s", r.iter_s, r.seqs);
    if (run_perf(fs, big, &r))
        return 1;
    bench_figure("perf.gpt3_2x4.wall_s: one GPT3-like 2x4 iteration (5.5 TB of weights)", "runs",
                 "%.2f s wall, %.0f MB, %.3f s simulated", r.wall_s, r.rss_mb, r.iter_s);
    static const struct {
        const char *const *args;
        const char *name, *target;
    } hf[] = {
        {llama, "perf.llama_405b.wall_s: one LLaMA-3.1-405B iteration", "<= 10 s, <= 4096 MB"},
        {deepseek, "perf.deepseek_v3.wall_s: one DeepSeek-V3 iteration", "<= 30 s, <= 4096 MB"},
    };
    for (size_t k = 0; k < sizeof(hf) / sizeof(hf[0]); k++) {
        rss = 0;
        for (int i = 0; i < RUNS; i++) {
            if (run_perf(fs, hf[k].args, &r))
                return 1;
            wall[i] = r.wall_s;
            rss = r.rss_mb > rss ? r.rss_mb : rss;
        }
        bench_figure(hf[k].name, hf[k].target, "%.2f s (median of %d), %.0f MB, %.3f s simulated",
                     bench_median(wall, RUNS), RUNS, rss, r.iter_s);
    }
    return 0;
}
