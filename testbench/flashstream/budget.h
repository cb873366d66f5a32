/*
 * budget: the bandwidth budget of a perf run, the table an architect reads first: for each path
 * of the machine (the Weight Node's flash and tensor buffer, the fabric down and up, an
 * Activation Node's tensor buffer, one core's SRAM, the AN's flash, one core's array), what an
 * iteration moved through it, how long the path was busy, its utilisation, the rate it would
 * need for the iteration to take only its compute time (the array and the vector unit of a
 * core), and the rate the machine gives it.
 *
 * Every figure is a counter of the run (models/machine: the resources' busy time, the buffers'
 * bytes and bus time, the flash and fabric bytes) divided by the iterations, but the SRAM's and
 * the array's, which come from the compiler's counts (models/host/compile_zoo.h: hz_report)
 * and the model's FLOP. Activation Node figures are AN 0's (every AN runs the same program).
 */
#ifndef TESTBENCH_FLASHSTREAM_BUDGET_H
#define TESTBENCH_FLASHSTREAM_BUDGET_H

#include <stdint.h>

#include "csim/stats.h"
#include "models/host/compile_zoo.h"
#include "models/machine/machine.h"

enum budget_path {
    BUDGET_WN_FLASH_RD,
    BUDGET_WN_FLASH_WR,
    BUDGET_WN_TB,
    BUDGET_FABRIC_DOWN,
    BUDGET_FABRIC_UP,
    BUDGET_AN_TB,
    BUDGET_AN_SRAM,
    BUDGET_AN_FLASH_WR,
    BUDGET_AN_FLASH_RD,
    BUDGET_AN_ARRAY,
    BUDGET_PATHS,
};

struct budget_row {
    const char *name; /* "wn_flash_read", ... */
    const char *unit; /* "bytes", or "MACs" for the array */
    double amount;    /* per iteration */
    double busy_s;    /* per iteration */
    double peak;      /* what the machine gives: bytes (MACs) per second */
};

/* The critical path of the last iteration: the chain of commands, each waiting for the
 * dependency or the resource's previous command that ended last, back from the last to end;
 * its seconds by resource kind (an AN's counted on AN 0's name). */
#define BUDGET_MAX_RES 16

struct budget {
    struct budget_row row[BUDGET_PATHS];
    double iteration_s; /* simulated, per iteration */
    double compute_s;   /* one core's array and vector unit, per iteration */
    char crit_name[BUDGET_MAX_RES][24];
    double crit_s[BUDGET_MAX_RES]; /* seconds of the last iteration's critical path */
};

/* The budget of the run so far: iterations of the program that rep describes, model_flop the
 * FLOP of one core's iteration. 0, or -ENOENT naming a counter the machine did not give. */
int budget_take(struct budget *b, struct machine *m, const struct machine_cfg *c,
                const struct hz_report *rep, uint64_t model_flop, uint64_t iterations,
                struct err *e);

/* The critical path of the iteration that ran last, from start_ps (its start). */
int budget_critical(struct budget *b, struct machine *m, uint64_t start_ps, struct err *e);

/* The table on stdout, and its figures into s as budget.<path>.* */
void budget_print(const struct budget *b);
int budget_stats(const struct budget *b, struct stats *s, struct err *e);

#endif
