/*
 * bench_system: speed of the assembled machine (models/machine/machine) in tlm mode on fc-mnist
 * (784-256-128-10), 4 Activation Nodes, B = 64, the default machine (machine_cfg_default), and the
 * simulated time of a step.
 *
 *   system.tlm.images_per_s     training images per wall-clock second: B x steps / wall time
 *                               of the steps (the host preload of the inputs excluded), median
 *                               of RUNS runs of STEPS steps; also per second of process CPU
 *                               time (the figure a loaded, shared machine does not distort)
 *   system.tlm.epoch_s          60,000 / images_per_s: the projected wall time of one
 *                               Fashion-MNIST epoch (target <= 60 s), and its CPU time
 *   system.sim.step_us          simulated time of one step (mean over the run)
 *   system.sim.images_per_s     simulated training throughput of the machine: B / step time
 *   system.layers               the last step's layers.csv rows (layer, pass, phases, waited_on)
 *
 * Inputs: the Fashion-MNIST training set when it is installed (DNN_IDX_DEFAULT_DIR), else
 * seeded pseudo-random pixels (speed does not depend on them).
 * Usage: bench_system [steps [N [B [pad_words]]]]
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testbench/bench_util.h"
#include "csim/rng.h"
#include "models/dnn/dnn_idx.h"
#include "models/machine/machine.h"

#define RUNS  3
#define STEPS 40

int main(int argc, char **argv)
{
    uint32_t steps = argc > 1 ? (uint32_t)atoi(argv[1]) : STEPS;
    struct machine_cfg c;
    struct err e;
    struct dnn_idx_set set;
    struct err de;
    uint8_t *images, *labels;
    double rate[RUNS], crate[RUNS];
    bool real;

    machine_cfg_default(&c);
    if (argc > 2)
        c.n_an = (uint32_t)atoi(argv[2]);
    if (argc > 3)
        c.batch = (uint32_t)atoi(argv[3]);
    if (argc > 4)
        c.core.a_words = c.core.b_words = c.core.c_words = (uint32_t)atoi(argv[4]);
    if (!steps)
        steps = 1;
    uint32_t in = dnn_model_inputs(&c.model), count = steps * c.batch;
    images = malloc((size_t)count * in);
    labels = malloc(count);
    if (!images || !labels)
        return 1;
    real = dnn_idx_load_fashion(NULL, true, &set, &de) == 0;
    if (real && set.count >= count) {
        memcpy(images, set.images, (size_t)count * in);
        memcpy(labels, set.labels, count);
    } else {
        uint64_t s = 1;
        for (size_t i = 0; i < (size_t)count * in; i++)
            images[i] = (uint8_t)rng_next(&s);
        for (uint32_t i = 0; i < count; i++)
            labels[i] = (uint8_t)rng_below(&s, 10);
        real = false;
    }
    if (real)
        dnn_idx_fini(&set);

    printf("bench_system: fc-mnist, N = %u ANs, B = %u, %u steps x %d runs, tlm, %s inputs\n",
           c.n_an, c.batch, steps, RUNS, real ? "Fashion-MNIST" : "random");
    double step_ps = 0;
    float loss0 = 0, loss1 = 0;
    struct machine *r = NULL;
    for (int run = 0; run < RUNS; run++) {
        if (machine_create(&c, &r, &e)) {
            fprintf(stderr, "bench_system: %s\n", e.msg);
            return 1;
        }
        if (machine_load_inputs(r, images, labels, count, &e)) {
            fprintf(stderr, "bench_system: %s\n", e.msg);
            return 1;
        }
        uint64_t t0 = machine_now(r);
        double w0 = bench_wall_s(), c0 = bench_cpu_s();
        for (uint32_t k = 0; k < steps; k++) {
            struct machine_step_info info;
            if (machine_step(r, &info, &e)) {
                fprintf(stderr, "bench_system: step %u: %s\n", k, e.msg);
                return 1;
            }
            if (k == 0)
                loss0 = info.loss;
            loss1 = info.loss;
        }
        double w = bench_wall_s() - w0, cw = bench_cpu_s() - c0;
        rate[run] = (double)count / w;
        crate[run] = (double)count / cw;
        step_ps = (double)(machine_now(r) - t0) / steps;
        if (run + 1 < RUNS)
            machine_destroy(r);
    }
    qsort(rate, RUNS, sizeof(rate[0]), bench_cmp_double);
    qsort(crate, RUNS, sizeof(crate[0]), bench_cmp_double);
    printf("system.tlm.images_per_s = %.0f images/s (wall; %.0f per CPU second)\n", rate[RUNS / 2],
           crate[RUNS / 2]);
    printf("system.tlm.epoch_s = %.1f s wall, %.1f s of CPU (60,000 images; target <= 60 s)\n",
           60000.0 / rate[RUNS / 2], 60000.0 / crate[RUNS / 2]);
    printf("system.sim.step_us = %.2f us\n", step_ps / 1e6);
    printf("system.sim.images_per_s = %.0f images/s (simulated machine)\n",
           c.batch / (step_ps * 1e-12));
    printf("system.loss = %.4f (step 0) -> %.4f (step %u)\n", loss0, loss1, steps - 1);
    bench_figure("training machine, tlm, fc-mnist, 4 ANs, B = 64", "<= 60 s per epoch",
                 "%.0f images/s: one 60,000-image epoch in %.1f s (%.1f s of CPU)", rate[RUNS / 2],
                 60000.0 / rate[RUNS / 2], 60000.0 / crate[RUNS / 2]);

    size_t n;
    const struct machine_layer_rec *rec = machine_layer_recs(r, &n);
    printf("system.layers (last step): layer pass start_us end_us");
    for (int p = 0; p < MACHINE_PH_N; p++)
        printf(" %s_us", machine_phase_name((enum machine_phase)p));
    printf(" waited_on\n");
    for (size_t i = 0; i < n; i++) {
        if (rec[i].step + 1 != steps)
            continue;
        printf("  %u %s %.2f %.2f", rec[i].layer, machine_pass_name(rec[i].pass),
               rec[i].start_ps / 1e6, rec[i].end_ps / 1e6);
        for (int p = 0; p < MACHINE_PH_N; p++)
            printf(" %.2f", rec[i].phase_ps[p] / 1e6);
        printf(" %s\n", machine_phase_name(rec[i].waited_on));
    }
    machine_destroy(r);
    free(images);
    free(labels);
    return 0;
}
