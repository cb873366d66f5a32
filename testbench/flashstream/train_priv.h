/*
 * train_priv: what the files of `flashstream train` share (not an interface of the program):
 * its options and its state.
 *   train.c          the options and the command: a run from its setup to its end, fallbacks
 *   train_setup.c    the model, the optimizer, the checkpoint of --resume, the data and the
 *                    machine; the data fed to the machine step by step
 *   train_steps.c    the step loop: progress, the records of each step, evaluation, checkpoints
 *   train_outputs.c  the outputs: their history on --resume, opening them, writing them at the end
 */
#ifndef TESTBENCH_FLASHSTREAM_TRAIN_PRIV_H
#define TESTBENCH_FLASHSTREAM_TRAIN_PRIV_H

#include "csim/hostmem.h"
#include "csim/rfile.h"
#include "csim/stats.h"
#include "csim/trace.h"
#include "models/dnn/dnn_golden.h"
#include "models/dnn/dnn_idx.h"
#include "models/dnn/dnn_model.h"
#include "models/dnn/dnn_params.h"
#include "models/host/ckpt.h"
#include "models/machine/machine.h"
#include "models/machine/machine_ini.h"
#include "models/core/core_be.h"
#include "testbench/flashstream/cli.h"
#include "testbench/flashstream/commands.h"
#include "testbench/flashstream/report.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define FM_INPUTS        784u /* Fashion-MNIST: 28 x 28 pixels */
#define FM_CLASSES       10u
#define FM_TRAIN_SAMPLES 60000u /* the training set's size */
/* A step whose loss (the batch's mean cross-entropy) is not finite or above this stops the run:
 * logits a million apart mean the weights have blown up, and no later step recovers from it. */
#define LOSS_DIVERGED 1e6

enum progress_mode { PROG_AUTO, PROG_BAR, PROG_PLAIN, PROG_QUIET };

/* The names of the options that take one of a list. */
static const char *const progress_names[] = {"auto", "bar", "plain", "quiet"};
static const char *const opt_names[] = {"sgd", "adam"};
static const char *const sched_names[] = {"const", "step", "cosine"};
static const char *const fid_names[] = {"tlm", "rtl", "lockstep", "perf"};

enum { ONLY_NONE, ONLY_COMPILE, ONLY_VALIDATE, ONLY_SHOW_CONFIG };

#define MAX_SETS 64 /* --set options */

/* Options given on the command line: what may conflict with the checkpoint of --resume, and
 * what changes a default that depends on other options. */
enum {
    SET_MODEL = 1 << 0,
    SET_NODES = 1 << 1,
    SET_BATCH = 1 << 2,
    SET_OPT = 1 << 3,
    SET_LR = 1 << 4,
    SET_MOMENTUM = 1 << 5,
    SET_WD = 1 << 6,
    SET_BETAS = 1 << 7,
    SET_SCHED = 1 << 8,
    SET_SEED = 1 << 9,
    SET_EPOCHS = 1 << 10,
    SET_TRACE_FROM = 1 << 11,
};

struct train_opts {
    const char *model;               /* spec; NULL: from --hidden or fc-mnist */
    uint64_t hidden[DNN_MAX_LAYERS]; /* --hidden widths */
    int n_hidden;
    uint64_t nodes, batch, epochs, steps, seed;
    int opt, sched, fidelity, progress;
    float lr, momentum, wd, beta1, beta2, eps, gamma;
    uint64_t step_size, cosine_steps;
    uint64_t rtl_steps, wave_cycles, pad_words;
    const char *waves, *wave_scopes; /* waves NULL: waves/<run>.fst; "" after --no-waves */
    const char *run, *out, *data;
    uint64_t log_every, ckpt_every, preload;
    const char *resume;
    uint64_t trace_from, trace_steps, trace_max;
    uint64_t train_samples, test_samples;
    bool golden_check;
    bool machine_change;        /* --machine-change: resume on a machine other than the ckpt's */
    const char *config;         /* --config: the machine description file */
    const char *sets[MAX_SETS]; /* --set SECTION.KEY=VALUE, in order */
    int n_sets;
    const char *faults[MAX_SETS]; /* --fault SPEC, in order */
    int n_faults;
    bool nodes_described; /* nodes is the activation_nodes of --config or --set, not --nodes */
    int only;     /* ONLY_*: print the compiled program, the fit table or the configuration */
    unsigned set; /* SET_* */
};

struct train {
    struct train_opts o;
    struct machine_ini *ini; /* the machine of --config and --set */
    char out_dir[512], waves_path[512], write_waves_path[520], ckpt_path[600];
    struct flash_fault_cfg faults; /* --fault, parsed */
    char spec[CKPT_SPEC_MAX];
    struct dnn_model model;
    struct dnn_opt opt;
    struct dnn_idx_set train_set, test_set;
    uint32_t bpe;                /* batches per epoch */
    uint64_t start_step, target; /* steps [start_step, target) run here */
    struct machine_cfg cfg;
    struct machine *machine;
    struct dnn_params *resume_params;
    struct ckpt_info resume_info;
    uint64_t sim_offset_ps; /* simulated time before the checkpoint resumed from */
    char *machine_text;     /* the machine as its checkpoints record it (machine_ini_assignments) */
    char *machine_before;   /* --machine-change: "section.key=value; ..." of the checkpoint's
                             * machine where it differs from this one (NULL: the same machine) */
    /* sample order and preload */
    uint32_t *order;
    int64_t order_epoch; /* epoch whose permutation `order` holds; -1 none */
    uint8_t *chunk_images, *chunk_labels;
    uint32_t chunk_cap; /* batches */
    /* golden check */
    struct dnn_params *gold;
    struct dnn_golden golden;
    bool golden_ok;
    uint64_t golden_perturb_step; /* test hook (golden_step); UINT64_MAX none */
    /* outputs */
    struct stats_csv *loss_csv, *acc_csv, *timeline_csv;
    struct report rep; /* layers.csv, the resources' trace tracks, the summary tables */
    struct trace *trace;
    uint32_t host_steps, host_layers, host_marks;
    bool timeline_done;
    /* progress */
    bool tty;
    int mode;
    double t0, last_draw;
    uint64_t log_n;
    double log_sum;
    double last_loss;
    uint64_t images;
    double last_acc;
    int64_t last_acc_step;
    uint64_t ckpt_step; /* step of the last checkpoint written; UINT64_MAX none */
    int lock_fd;        /* OUTDIR/CLI_LOCK_NAME, flock'ed for the run; -1 none */
    /* flash faults: a step lost to an uncorrectable read, and the fallbacks before this run */
    bool flash_lost;
    unsigned fallbacks;
    uint64_t fallback_lost_ps; /* simulated time of the steps those fallbacks lost */
    uint64_t ckpt_sim_ps;      /* the simulated time the last checkpoint written holds */
};

/* What a run that lost a step to an uncorrectable flash read leaves for a fallback to its last
 * checkpoint (cmd_train). */
typedef char fb_ckpt_t[600];
struct fallback {
    bool possible;    /* the step was lost that way and a checkpoint of this run is on disk */
    fb_ckpt_t ckpt;   /* its path */
    uint64_t step;    /* the step it holds */
    uint64_t seed;    /* the fault draws' seed of the run */
    uint64_t lost_ps; /* simulated time from the checkpoint to the failure */
};

/* SIGINT or SIGTERM arrived: the run stops after the step in progress (train.c). */
extern volatile sig_atomic_t train_stop_requested;

/* --resume: the checkpoint decides the model, the optimizer, the seed, B and N; an option
 * given explicitly that disagrees is an error (it could not continue the run bit for bit). */
int train_adopt_checkpoint(struct train *t);
/* The batch of step k, for the golden check (the same gather as feed). */
void train_batch_of(struct train *t, uint64_t k, uint8_t *images, uint8_t *labels);
/* The model of --model, --hidden or the checkpoint: 0, or -1 with the message on stderr. */
int train_build_model(struct train *t);
/* The optimizer and schedule of the options. */
void train_build_opt(struct train *t);
/* Write the checkpoint of step_done; 0, or -1 with the message on stderr (whatever --progress
 * says: a run that was asked for checkpoints and cannot write them must not go on unnoticed). */
int train_checkpoint(struct train *t, uint64_t step_done);
/* Close and commit a CSV output (NULL: none); 0, or -1 with the message on stderr. */
int train_close_csv(struct stats_csv **c);
/* --compile_only / --validate_only: the machine the options describe, holding one epoch of
 * the training set in its NV streams (the data themselves are not read). 0, or 1 when the
 * model does not compile or fit (the reasons on stderr). */
int train_compile_or_validate(struct train *t);
/* A float as the shortest decimal that reads back to the same float ("0.05", not the
 * 0.05000000074505806 of its double). */
int train_csv_f32(struct stats_csv *c, float v);
/* The directory part of path ("." if none) into buf. */
void train_dir_of(const char *path, char *buf, size_t len);
/* The test accuracy after step_done (an epoch's end): printed and in accuracy.csv. */
int train_evaluate(struct train *t, uint64_t step_done);
/* feed() for step k. In the --rtl-steps steps the preload runs in tlm: it is the host's
 * traffic, not the steps the RTL was asked to run, and tlm times it to the same picosecond.
 * The RTL write lanes then join by a copy of the twin's state (models/nfw/nfw_time.h) instead
 * of running every preload write verilated: an epoch's inputs are about 15 M lane cycles. */
int train_feed_step(struct train *t, uint64_t k);
/* s seconds as "1h05m" or "4:07". */
void train_fmt_hms(double s, char *buf, size_t len);
/* The training and test sets of --data (IDX files), or none in perf. */
int train_load_data(struct train *t);
/* The machine of the options, its parameters and the epoch's first inputs loaded. */
int train_make_machine(struct train *t);
/* OUTDIR locked, its CSV and trace outputs opened (their history kept on --resume). */
int train_open_outputs(struct train *t);
/* "adam lr 0.002 betas 0.9/0.999 eps 1e-08": the optimizer in one phrase. */
const char *train_opt_summary(const struct dnn_opt *o, char *buf, size_t len);
/* --fidelity perf: payload-free, no data, no evaluation. */
bool train_perf(const struct train *t);
/* Steps of the run: [start_step, target). */
int train_plan(struct train *t);
/* The outputs and where they are, at the end. */
void train_print_where(struct train *t);
/* Picoseconds in microseconds. */
double train_ps_us(uint64_t ps);
/* The optimizer the machine runs (perf keeps no parameters: the one it was given). */
const struct dnn_opt *train_run_opt(const struct train *t);
/* Whether paths a and b name one existing file. */
bool train_same_file(const char *a, const char *b);
/* --show-config: the machine the options describe, every key, as a description file. */
void train_show_config(struct train *t);
/* The waveform dumps of the rtl steps (--waves), if any. */
int train_start_waves(struct train *t);
/* Steps [start_step, target), or to SIGINT/SIGTERM: the steps done in *done. */
int train_loop(struct train *t, uint64_t *done);
/* stats.json, the CSVs and the trace, at the end of the run. */
int train_write_outputs(struct train *t, uint64_t steps, double wall, int argc, char **argv);

#endif
