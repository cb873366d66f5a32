/*
 * bench_golden: speed of the golden trainer (models/dnn/dnn_golden.c), the executable
 * specification of the training numerics, on fc-mnist (784-256-128-10).
 *
 *   step : one training step (forward, loss, backward, reduction, SGD-momentum update) of a
 *          batch of B = 64 images split over N = 4 ANs; images/s = 64 / median step time.
 *   eval : the N = 1 forward pass of 1000 images (test accuracy); images/s.
 *
 * Inputs are seeded pseudo-random pixels (speed does not depend on them). Every figure is the
 * median of 5 runs. The accelerator's tlm mode is compared with the step figure.
 * The MAC count per image (forward 234,752; backward dW 234,752 + dX 34,048) over the step time
 * gives the reference GEMM's rate, the bound of this trainer.
 * Usage: bench_golden [B [N]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "testbench/bench_util.h"
#include "models/dnn/dnn_golden.h"
#include "models/dnn/dnn_rng.h"

#define RUNS 5

/* MACs per image of one training step and of the forward pass alone. */
static void macs(const struct dnn_model *m, double *step, double *fwd)
{
    double f = 0, b = 0;

    for (uint32_t l = 0; l < m->n_layers; l++) {
        double w = (double)dnn_model_layer_weights(m, l);

        f += w;
        b += l > 0 ? 2 * w : w; /* dW for every layer, dX for all but the first */
    }
    *step = f + b;
    *fwd = f;
}

int main(int argc, char **argv)
{
    uint32_t B = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 64;
    uint32_t N = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 4;
    const uint32_t EVAL = 1000;
    struct dnn_model m;
    struct dnn_opt o;
    struct dnn_params *p = NULL;
    struct dnn_golden g;
    struct err e = {{0}};
    struct dnn_rng r;
    double t_step[RUNS], t_eval[RUNS], mac_step, mac_fwd;
    uint8_t *img, *lab;
    uint32_t correct;
    int rc = 1;

    if (B < 1 || N < 1 || B % N) {
        fprintf(stderr, "usage: bench_golden [B [N]]   (N must divide B; default 64 4)\n");
        return 2;
    }
    img = malloc((size_t)(B > EVAL ? B : EVAL) * 784);
    lab = malloc(B > EVAL ? B : EVAL);
    if (!img || !lab)
        goto out;
    dnn_rng_seed(&r, 1);
    for (size_t i = 0; i < (size_t)(B > EVAL ? B : EVAL) * 784; i++)
        img[i] = (uint8_t)dnn_rng_below(&r, 256);
    for (size_t i = 0; i < (B > EVAL ? B : EVAL); i++)
        lab[i] = (uint8_t)dnn_rng_below(&r, 10);
    if (dnn_model_parse(&m, "fc-mnist", &e))
        goto out_err;
    dnn_params_opt_sgd(&o, 0.05f, 0.9f, 0.0f);
    if (dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = &o, .seed = 1}, &p, &e) ||
        dnn_golden_init(&g, p, &e))
        goto out_err;
    macs(&m, &mac_step, &mac_fwd);

    printf("# bench_golden: golden trainer (ref_gemm) on fc-mnist, wall clock, median of %d\n",
           RUNS);
    for (int i = 0; i < RUNS; i++) {
        double t0 = bench_wall_s();

        if (dnn_golden_step(&g, img, lab, B, N, NULL, &e))
            goto out_fini;
        t_step[i] = bench_wall_s() - t0;
    }
    for (int i = 0; i < RUNS; i++) {
        double t0 = bench_wall_s();

        if (dnn_golden_eval(p, img, lab, EVAL, EVAL, &correct, &e))
            goto out_fini;
        t_eval[i] = bench_wall_s() - t0;
    }
    double ts = bench_median(t_step, RUNS), te = bench_median(t_eval, RUNS);
    printf("%-28s %8.1f images/s   (B=%u N=%u, %.1f ms/step, %.0f M MAC/s)\n", "golden step",
           B / ts, B, N, ts * 1e3, B * mac_step / ts / 1e6);
    printf("%-28s %8.1f images/s   (%u images, N=1 forward, %.0f M MAC/s)\n", "golden eval",
           EVAL / te, EVAL, EVAL * mac_fwd / te / 1e6);
    printf("%-28s %8.1f s          (one epoch of 60000 images at the step rate, estimate)\n",
           "golden epoch", 60000 * ts / B);
    bench_figure("golden trainer (C reference), fc-mnist training steps", "", "%.0f images/s",
                 B / ts);
    rc = 0;
out_fini:
    dnn_golden_fini(&g);
out_err:
    if (rc)
        fprintf(stderr, "bench_golden: %s\n", e.msg);
out:
    dnn_params_destroy(p);
    free(img);
    free(lab);
    return rc;
}
