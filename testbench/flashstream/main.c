/*
 * flashstream: the simulator's command-line program.
 *
 *   flashstream <command> [options]      flashstream <command> --help
 */
#include "testbench/flashstream/commands.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *what;
} commands[] = {
    {"cosim", cmd_cosim,
     "event kernel + verilated FIFO between a bursty C producer and a stalling consumer"},
    {"flashbench", cmd_flashbench,
     "fio-like benchmark of the flash memory system: bandwidth, IOPS, latency, bound"},
    {"model", cmd_model,
     "GPT3-like and T5-like workloads: the paper's Table 3 beside ours, or one model's operations"},
    {"perf", cmd_perf,
     "payload-free training iterations of GPT3-like and T5-like models: time, where it went"},
    {"train", cmd_train,
     "train fc-mnist on Fashion-MNIST on the simulated machine: loss, accuracy, where time went"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: flashstream <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].what);
    fprintf(f, "\n'flashstream <command> --help' shows the options of a command.\n");
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f, as batch systems set) is an error like a full disk: ignored,
     * SIGXFSZ leaves the write to fail with EFBIG, which every output's writer reports, leaving
     * the file as it was (csim/afile.h), instead of killing the program mid-write. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "flashstream: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
