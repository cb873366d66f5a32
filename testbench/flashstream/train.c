/*
 * flashstream train: train a fully connected classifier on Fashion-MNIST on the simulated
 * machine (models/machine/machine.h): one Weight Node, N Activation Nodes, the fabric.
 *
 * The driver: option parsing; the machine of --config and --set (models/machine/machine_ini.h,
 * configs/README.md); the data (IDX files, the seeded sample order of
 * models/dnn/README.md section 2.3: epoch e visits dnn_idx_shuffle(count, seed + e), batches
 * are consecutive runs of B, a last partial batch is dropped), preloaded into the ANs' NV
 * streams; the fidelity plan (the first --rtl-steps steps on the verilated core with waves,
 * the rest in --fidelity; or --fidelity perf for the whole run: payload-free, no data read, the
 * loss "nan", no test accuracy, no checkpoint); a progress line on a terminal (plain lines
 * otherwise) with the loss of each logging interval; the test accuracy after each epoch;
 * checkpoints every K steps and --resume; at the end a per-layer table of where the time went
 * and the flash endurance figures. Outputs in OUTDIR (default out/<run>), each written atomically:
 *     stats.json    every counter of the machine and of the run, with units, and the
 *                   machine's effective configuration ("config": every key of --show-config)
 *     layers.csv    one row per step, layer and pass: phases and what the layer waited on
 *     trace.json    the busy intervals of the traced steps, one track per resource (Perfetto)
 *     loss.csv      step, epoch, loss ("nan" in perf), lr, simulated time, step time, fidelity
 *     accuracy.csv  epoch, step, test accuracy (perf: the header only)
 *     timeline.csv  resource, start_us, end_us, label of the first traced step (times from
 *                   the start of that step), for scripts/plots/plot.sh
 *     checkpoint.ckpt  (with --ckpt-every, and when interrupted by SIGINT/SIGTERM)
 * With --resume into the same directory, loss.csv and accuracy.csv keep the rows of the steps
 * before the checkpoint when they are this run's (keep_history: checked steps, epochs and the lr
 * of the last step); the rows of a killed run, flushed at every checkpoint into its temporary
 * files, are recovered from there. Another run's loss.csv is refused, never copied forward.
 * A step lost to an uncorrectable flash read falls back to the run's last checkpoint and resumes
 * from it the same way, the fault draws reseeded (cmd_train; models/flash/README.md).
 * --golden-check compares the loss and every parameter with the golden trainer's after each
 * step; the environment variable FLASHSTREAM_TEST_GOLDEN_PERTURB=K (a test hook, for
 * scripts/check-train.sh) flips a bit of the golden trainer's weights before step K, so that the
 * check is seen to fail.
 * SIGINT and SIGTERM are looked at between steps (a step is never cut: the checkpoint holds a
 * whole step, bit for bit): the run exits 130 after the step in progress, the evaluation in
 * progress (at an epoch's end) and the checkpoint. The bound is one step of the slowest fidelity
 * (an rtl step of fc-mnist on the 8 x 8 core: about 2 s) plus one evaluation of the test set;
 * scripts/check-train.sh checks that SIGTERM during rtl steps ends the run within 20 s with a
 * checkpoint a run resumes from.
 *     .flashstream.lock  held (flock) while the run writes there: a second run is refused
 * A checkpoint that cannot be written ends the run with exit 1 and a message on stderr (with
 * any --progress), as does a step whose loss is not finite or above LOSS_DIVERGED (diverged).
 * The same options and seed give the same losses, weights and simulated times on every run;
 * a run resumed from a checkpoint continues bit for bit like one never interrupted (the losses,
 * the weights; the simulated time restarts with the machine, see "what is weak" in the
 * report of the summary).
 */
#define _DEFAULT_SOURCE
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
/* In OUTDIR, locked (flock) while a run writes there: two runs into one directory would mix
 * their outputs and resume histories. */
#define LOCK_NAME ".flashstream.lock"

enum progress_mode { PROG_AUTO, PROG_BAR, PROG_PLAIN, PROG_QUIET };
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
    int lock_fd;        /* OUTDIR/LOCK_NAME, flock'ed for the run; -1 none */
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

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* ---------------------------------------------------------------- options */

static bool run_name_ok(const char *s)
{
    if (!*s || strlen(s) > 64 || !strcmp(s, ".") || !strcmp(s, ".."))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return false;
    return true;
}

static const char grp_model[] = "model and data", grp_machine[] = "machine",
                  grp_training[] = "training", grp_simulation[] = "simulation",
                  grp_outputs[] = "outputs", grp_instead[] = "instead of training";

_Static_assert(CLI_PATH_MAX + sizeof("/checkpoint.ckpt.tmp") <= 512, "output path buffers");
_Static_assert(TRACE_DEFAULT_MAX_EVENTS == 1000000u, "the --trace-max help gives the default");

static int print_config_keys(void *opts, const char *val)
{
    (void)opts;
    (void)val;
    machine_ini_markdown(stdout);
    return CLI_DONE;
}

#define TRAIN_FIELD(member) CLI_FIELD(struct train_opts, member)

static const struct cli_opt train_options[] = {
    {CLI_OPT("model", "SPEC", grp_model, "fc-mnist (784-256-128-10, default) or mlp:784-W1-...-10"),
     CLI_STR(TRAIN_FIELD(model)), .given = SET_MODEL},
    {CLI_OPT("hidden", "W1,W2,..", grp_model,
             "hidden widths (same as --model mlp:784-W1-W2-..-10)"),
     CLI_U64_LIST(TRAIN_FIELD(hidden), offsetof(struct train_opts, n_hidden), DNN_MAX_LAYERS - 1, 1,
                  DNN_MAX_WIDTH),
     .given = SET_MODEL},
    {CLI_OPT("data", "DIR", grp_model, "Fashion-MNIST IDX files (default " DNN_IDX_DEFAULT_DIR ")"),
     CLI_STR(TRAIN_FIELD(data))},
    {CLI_OPT("train-samples", "N", grp_model,
             "use the first N training samples (default all 60000)"),
     CLI_U64(TRAIN_FIELD(train_samples), 1, DNN_IDX_MAX_COUNT)},
    {CLI_OPT("test-samples", "N", grp_model,
             "evaluate on the first N test samples (default all 10000)"),
     CLI_U64(TRAIN_FIELD(test_samples), 1, DNN_IDX_MAX_COUNT)},

    {CLI_OPT("config", "FILE", grp_machine,
             "the machine description (configs/README.md; default: the\n"
             "machine of configs/fc-mnist.ini, built in)"),
     CLI_STR_OK(TRAIN_FIELD(config), cli_nonempty, "a file name")},
    {CLI_OPT("set", "SECTION.KEY=VALUE", grp_machine,
             "set one key of the machine, after --config; repeatable"),
     CLI_STR_LIST(TRAIN_FIELD(sets), offsetof(struct train_opts, n_sets), MAX_SETS)},
    {CLI_OPT("fault", "SPEC", grp_machine,
             "model bit errors, ECC and read retries on every node's flash,\n"
             "and inject a fault; repeatable (models/flash/README.md):\n"
             "rber:x=F, age:pe=N,days=D, program:rate=P, die:ch=C,die=D,at=T,\n"
             "channel:ch=C,at=T, power:at=T, seed:n=S; a fault the machine\n"
             "cannot absorb stops the run with its report, the last\n"
             "checkpoint intact"),
     CLI_STR_LIST(TRAIN_FIELD(faults), offsetof(struct train_opts, n_faults), MAX_SETS)},

    {CLI_OPT("nodes", "N", grp_training,
             "Activation Nodes (default 4); overrides\n"
             "machine.activation_nodes of --config and --set"),
     CLI_U64(TRAIN_FIELD(nodes), 1, MACHINE_MAX_AN), .given = SET_NODES},
    {CLI_OPT("batch", "B", grp_training, "global batch, a multiple of --nodes (default 64)"),
     CLI_U64(TRAIN_FIELD(batch), 1, 1u << 20), .given = SET_BATCH},
    {CLI_OPT("epochs", "E", grp_training, "epochs (default 1)"),
     CLI_U64(TRAIN_FIELD(epochs), 1, 1u << 20), .given = SET_EPOCHS},
    {CLI_OPT("steps", "S", grp_training,
             "stop after step S (counted from the first step of the\n"
             "run, before any --resume); with --epochs the smaller wins"),
     CLI_U64(TRAIN_FIELD(steps), 1, 1ull << 40)},
    {CLI_OPT("opt", "adam|sgd", grp_training, "optimizer (default adam)"),
     CLI_ENUM(TRAIN_FIELD(opt), opt_names), .given = SET_OPT},
    {CLI_OPT("lr", "X", grp_training, "learning rate (default 0.002 adam, 0.05 sgd)"),
     CLI_F32(TRAIN_FIELD(lr), 0.0f, 1000.0f), .given = SET_LR},
    {CLI_OPT("momentum", "X", grp_training, "SGD momentum (default 0.9)"),
     CLI_F32(TRAIN_FIELD(momentum), 0.0f, 0.9999999f), .given = SET_MOMENTUM},
    {CLI_OPT("wd", "X", grp_training, "weight decay (default 0)"),
     CLI_F32(TRAIN_FIELD(wd), 0.0f, 1.0f), .given = SET_WD},
    {CLI_OPT("beta1", "X", grp_training, "Adam beta1 (default 0.9)"),
     CLI_F32(TRAIN_FIELD(beta1), 0.0f, 0.9999999f), .given = SET_BETAS},
    {CLI_OPT("beta2", "X", grp_training, "Adam beta2 (default 0.999)"),
     CLI_F32(TRAIN_FIELD(beta2), 0.0f, 0.9999999f), .given = SET_BETAS},
    {CLI_OPT("eps", "X", grp_training, "Adam epsilon (default 1e-8)"),
     CLI_F32(TRAIN_FIELD(eps), 1e-30f, 1.0f), .given = SET_BETAS},
    {CLI_OPT("sched", "const|step|cosine", grp_training, "lr schedule (default cosine)"),
     CLI_ENUM(TRAIN_FIELD(sched), sched_names), .given = SET_SCHED},
    {CLI_OPT("step-size", "S", grp_training, "step schedule: lr x G every S steps (default 1000)"),
     CLI_U64(TRAIN_FIELD(step_size), 1, 1ull << 40), .given = SET_SCHED},
    {CLI_OPT("gamma", "G", grp_training, "step schedule: the factor G (default 0.5)"),
     CLI_F32(TRAIN_FIELD(gamma), 1e-30f, 1000.0f), .given = SET_SCHED},
    {CLI_OPT("cosine-steps", "T", grp_training,
             "cosine schedule length (default: the run's steps)"),
     CLI_U64(TRAIN_FIELD(cosine_steps), 1, 1ull << 40), .given = SET_SCHED},
    {CLI_OPT("seed", "N", grp_training, "weight init and sample order (default 1)"),
     CLI_U64(TRAIN_FIELD(seed), 0, UINT64_MAX), .given = SET_SEED},

    {CLI_OPT("fidelity", "tlm|rtl|lockstep|perf", grp_simulation,
             "core model (default tlm); perf: payload-free, timing\n"
             "only: no data read (no --data files needed), loss nan,\n"
             "no test accuracy, no checkpoints; the steps' simulated\n"
             "times, layers.csv and flash counters are tlm's (up to the\n"
             "first test accuracy tlm measures: its time is not spent);\n"
             "also runs storage.backend=ideal (free memory accesses)"),
     CLI_ENUM(TRAIN_FIELD(fidelity), fid_names)},
    {CLI_OPT("rtl-steps", "S", grp_simulation,
             "run the first S steps on the verilated core (rtl) with\n"
             "waves, then --fidelity (default 0)"),
     CLI_U64(TRAIN_FIELD(rtl_steps), 0, 1ull << 40)},
    {CLI_OPT("waves", "FILE", grp_simulation, "FST of the rtl steps (default waves/<run>.fst)"),
     CLI_STR_OK(TRAIN_FIELD(waves), cli_path_fits,
                "a file name of 1 to 400 characters (or --no-waves)")},
    {CLI_OPT("wave-cycles", "N", grp_simulation, "core cycles in the FST (default 20000)"),
     CLI_U64(TRAIN_FIELD(wave_cycles), 1, 1ull << 40)},
    {CLI_OPT("wave-scopes", "LIST", grp_simulation, "comma-separated scopes (default all)"),
     CLI_STR(TRAIN_FIELD(wave_scopes))},
    {CLI_OPT("no-waves", NULL, grp_simulation, "no FST"), CLI_SET_STR(TRAIN_FIELD(waves), "")},
    {CLI_OPT("pad-words", "N", grp_simulation,
             "words of each core scratchpad (default: the machine's; the\n"
             "verilated core linked for --rtl-steps may need 512);\n"
             "overrides core.pad_{a,b,c}_words"),
     CLI_U64(TRAIN_FIELD(pad_words), 2, 1u << 20)},
    {CLI_OPT("golden-check", NULL, grp_simulation,
             "train the golden model alongside, compare every step"),
     CLI_FLAG(TRAIN_FIELD(golden_check))},

    {CLI_OPT("run", "NAME", grp_outputs, "run name (default train)"),
     CLI_STR_OK(TRAIN_FIELD(run), run_name_ok, "1..64 characters of [A-Za-z0-9_.-]")},
    {CLI_OPT("out", "DIR", grp_outputs, "output directory (default out/<run>)"),
     CLI_STR_OK(TRAIN_FIELD(out), cli_path_fits, "a directory of 1 to 400 characters")},
    {CLI_OPT("log-every", "N", grp_outputs,
             "steps per loss line (default: about 20 lines per run)"),
     CLI_U64(TRAIN_FIELD(log_every), 1, 1ull << 40)},
    {CLI_OPT("progress", "MODE", grp_outputs,
             "auto (bar on a terminal, else plain), bar, plain, quiet"),
     CLI_ENUM(TRAIN_FIELD(progress), progress_names)},
    {CLI_OPT("trace-from", "K", grp_outputs, "first step in trace.json (default: the run's first)"),
     CLI_U64(TRAIN_FIELD(trace_from), 0, 1ull << 40), .given = SET_TRACE_FROM},
    {CLI_OPT("trace-steps", "N", grp_outputs, "steps in trace.json (default 2; 0: no trace)"),
     CLI_U64(TRAIN_FIELD(trace_steps), 0, 1u << 20)},
    {CLI_OPT("trace-max", "N", grp_outputs, "events kept in trace.json (default 1000000)"),
     CLI_U64(TRAIN_FIELD(trace_max), 1, 1ull << 32)},
    {CLI_OPT("ckpt-every", "K", grp_outputs, "checkpoint OUTDIR/checkpoint.ckpt every K steps"),
     CLI_U64(TRAIN_FIELD(ckpt_every), 1, 1ull << 40)},
    {CLI_OPT("resume", "FILE", grp_outputs,
             "continue the run of a checkpoint, bit for bit; past the\n"
             "end of its cosine, the cosine is stretched over the new\n"
             "length (--lr and the schedule options set another one)"),
     CLI_STR(TRAIN_FIELD(resume))},
    {CLI_OPT("preload", "N", grp_outputs,
             "batches written to the NV streams at a time (default:\n"
             "what the rest of the epoch needs)"),
     CLI_U64(TRAIN_FIELD(preload), 1, 1u << 24)},

    {CLI_OPT("compile_only", NULL, grp_instead,
             "print the command sequence of one training step on every\n"
             "node (compute, DMA, flash, fabric) and exit"),
     CLI_SET_INT(TRAIN_FIELD(only), ONLY_COMPILE)},
    {CLI_ALIAS("compile-only", NULL), CLI_SET_INT(TRAIN_FIELD(only), ONLY_COMPILE)},
    {CLI_OPT("validate_only", NULL, grp_instead,
             "check that the model fits the machine (SRAM tiles, tensor\n"
             "buffers, flash streams) and this host's memory, print the\n"
             "table and exit; exit status 1 and the reasons when it does\n"
             "not fit"),
     CLI_SET_INT(TRAIN_FIELD(only), ONLY_VALIDATE)},
    {CLI_ALIAS("validate-only", NULL), CLI_SET_INT(TRAIN_FIELD(only), ONLY_VALIDATE)},
    {CLI_OPT("show-config", NULL, grp_instead,
             "print the machine's effective configuration (every key,\n"
             "after --config, --set, --nodes and --pad-words) as a\n"
             "machine description file and exit"),
     CLI_SET_INT(TRAIN_FIELD(only), ONLY_SHOW_CONFIG)},
    {CLI_OPT("config-keys", NULL, grp_instead,
             "print every key of the machine description as Markdown\n"
             "tables (the one in configs/README.md) and exit"),
     CLI_CALL(print_config_keys)},
    {0},
};

#undef TRAIN_FIELD

static const struct cli_cmd train_cli = {
    .name = "train",
    .about = "Train a classifier on Fashion-MNIST on the simulated machine.\n",
    .opts = train_options,
};

/* --fidelity perf with an option that needs data or weights: 1 (message printed), else 0. */
static int perf_clash(const struct train_opts *o)
{
    const char *clash = o->rtl_steps      ? "--rtl-steps"
                        : o->golden_check ? "--golden-check"
                        : o->ckpt_every   ? "--ckpt-every"
                        : o->resume       ? "--resume"
                                          : NULL;

    if (!clash)
        return 0;
    fprintf(stderr,
            "flashstream train: --fidelity perf with %s: perf is timing only and holds no data "
            "(no weights, activations or inputs) to run, check or save; leave out one of them\n",
            clash);
    return 1;
}

/* The checks across options, after each option's own; 0 or -1 (message printed). */
static int validate(struct train_opts *o)
{
    if (o->model && o->n_hidden) {
        fprintf(stderr, "flashstream train: give --model or --hidden, not both\n");
        return -1;
    }
    if (o->batch % o->nodes) {
        fprintf(stderr,
                "flashstream train: --batch %" PRIu64 " is not a multiple of %s %" PRIu64
                " (each Activation Node trains an equal shard); try --batch %" PRIu64 "\n",
                o->batch, o->nodes_described ? "machine.activation_nodes" : "--nodes", o->nodes,
                (o->batch / o->nodes + 1) * o->nodes);
        return -1;
    }
    if (o->fidelity == MACHINE_PERF && perf_clash(o))
        return -1;
    if (o->steps && !(o->set & SET_EPOCHS))
        o->epochs = UINT64_MAX / 2; /* --steps alone: as many epochs as it takes */
    if (isnan(o->lr))
        o->lr = o->opt == DNN_OPT_ADAM ? 0.002f : 0.05f;
    return 0;
}

/* The machine of --config and --set; --nodes, when not given, is its activation_nodes. 0 or -1
 * (message printed). */
static int load_machine(struct train *t)
{
    struct train_opts *o = &t->o;

    if (cli_machine(&train_cli, o->config, o->sets, o->n_sets, NULL, &t->ini))
        return -1;
    if (cli_faults(&train_cli, &machine_ini_cfg(t->ini)->an_flash.fault, o->faults, o->n_faults,
                   &t->faults))
        return -1;
    if (!(o->set & SET_NODES)) {
        o->nodes = machine_ini_cfg(t->ini)->n_an;
        o->nodes_described = machine_ini_given(t->ini, "machine", "activation_nodes");
    }
    /* Given in the description: the checkpoint of --resume must agree, as with --nodes. */
    if (o->nodes_described)
        o->set |= SET_NODES;
    return 0;
}

/* 0 (run), CLI_DONE (--help printed: exit 0), -1 (error printed). */
static int parse(int argc, char **argv, struct train *t)
{
    struct train_opts *o = &t->o;

    *o = (struct train_opts){.nodes = 4,
                             .batch = 64,
                             .epochs = 1,
                             .seed = 1,
                             .opt = DNN_OPT_ADAM,
                             .sched = DNN_LR_COSINE,
                             .fidelity = MACHINE_TLM,
                             .progress = PROG_AUTO,
                             .lr = NAN,
                             .momentum = 0.9f,
                             .wd = 0.0f,
                             .beta1 = 0.9f,
                             .beta2 = 0.999f,
                             .eps = 1e-8f,
                             .gamma = 0.5f,
                             .step_size = 1000,
                             .wave_cycles = 20000,
                             .run = "train",
                             .trace_steps = 2,
                             .trace_max = TRACE_DEFAULT_MAX_EVENTS};
    int rc = cli_parse(&train_cli, argc, argv, o, &o->set);

    if (rc)
        return rc;
    if (load_machine(t))
        return -1;
    return validate(o);
}

/* ---------------------------------------------------------------- helpers */

/* The directory part of path ("." if none) into buf. */
static void dir_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');

    if (!slash)
        snprintf(buf, len, ".");
    else
        snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

static void fmt_hms(double s, char *buf, size_t len)
{
    uint64_t t = s > 0 && s < 1e9 ? (uint64_t)(s + 0.5) : 0;

    if (t >= 3600)
        snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", t / 3600, t / 60 % 60);
    else
        snprintf(buf, len, "%" PRIu64 ":%02" PRIu64, t / 60, t % 60);
}

static double ps_us(uint64_t ps)
{
    return (double)ps / 1e6;
}

/* A float as the shortest decimal that reads back to the same float ("0.05", not the
 * 0.05000000074505806 of its double). */
static int csv_f32(struct stats_csv *c, float v)
{
    char buf[32];

    if (!isfinite(v))
        return stats_csv_f64(c, v, NULL);
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, (double)v);
        if (strtof(buf, NULL) == v)
            break;
    }
    return stats_csv_str(c, buf, NULL);
}

static const char *opt_summary(const struct dnn_opt *o, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s lr %g", opt_names[o->kind], (double)o->lr);

    if (o->kind == DNN_OPT_SGD)
        n += snprintf(buf + n, len - (size_t)n, " momentum %g", (double)o->momentum);
    else
        n += snprintf(buf + n, len - (size_t)n, " betas %g/%g eps %g", (double)o->beta1,
                      (double)o->beta2, (double)o->eps);
    if (o->weight_decay != 0.0f)
        n += snprintf(buf + n, len - (size_t)n, " wd %g", (double)o->weight_decay);
    if (o->sched == DNN_LR_STEP)
        snprintf(buf + n, len - (size_t)n, ", lr x %g every %" PRIu64 " steps", (double)o->gamma,
                 o->step_size);
    else if (o->sched == DNN_LR_COSINE)
        snprintf(buf + n, len - (size_t)n, ", cosine over %" PRIu64 " steps", o->total_steps);
    return buf;
}

/* ---------------------------------------------------------------- setup */

static int build_model(struct train *t)
{
    struct err e;
    char spec[CKPT_SPEC_MAX];

    if (t->o.n_hidden) {
        int n = snprintf(spec, sizeof(spec), "mlp:%u", FM_INPUTS);

        for (int i = 0; i < t->o.n_hidden; i++)
            n += snprintf(spec + n, sizeof(spec) - (size_t)n, "-%" PRIu64, t->o.hidden[i]);
        snprintf(spec + n, sizeof(spec) - (size_t)n, "-%u", FM_CLASSES);
    } else {
        snprintf(spec, sizeof(spec), "%s", t->o.model ? t->o.model : "fc-mnist");
    }
    if (dnn_model_parse(&t->model, spec, &e)) {
        fprintf(stderr, "flashstream train: --model: %s\n", e.msg);
        return -1;
    }
    if (dnn_model_inputs(&t->model) != FM_INPUTS || dnn_model_classes(&t->model) != FM_CLASSES) {
        fprintf(stderr,
                "flashstream train: model '%s' has %u inputs and %u classes; Fashion-MNIST "
                "needs %u inputs (28 x 28 pixels) and %u classes: mlp:%u-...-%u\n",
                spec, dnn_model_inputs(&t->model), dnn_model_classes(&t->model), FM_INPUTS,
                FM_CLASSES, FM_INPUTS, FM_CLASSES);
        return -1;
    }
    ckpt_spec(&t->model, t->spec, sizeof(t->spec));
    return 0;
}

static void build_opt(struct train *t)
{
    struct dnn_opt *o = &t->opt;

    if (t->o.opt == DNN_OPT_ADAM) {
        dnn_params_opt_adam(o, t->o.lr);
        o->beta1 = t->o.beta1;
        o->beta2 = t->o.beta2;
        o->eps = t->o.eps;
        o->weight_decay = t->o.wd;
    } else {
        dnn_params_opt_sgd(o, t->o.lr, t->o.momentum, t->o.wd);
    }
    o->sched = (enum dnn_lr_sched)t->o.sched;
    o->step_size = t->o.step_size;
    o->gamma = t->o.gamma;
    o->total_steps = t->o.cosine_steps ? t->o.cosine_steps : (t->target ? t->target : 1);
}

/* The option given that the checkpoint of --resume decides otherwise, NULL if none; what: the
 * checkpoint's value and the option's. */
static const char *resume_clash(const struct train *t, char *what, size_t len)
{
    const struct ckpt_info *c = &t->resume_info;
    const struct dnn_opt *co = &c->opt;
    const char *clash = NULL;

    if ((t->o.set & SET_MODEL) && strcmp(c->spec, t->spec)) {
        clash = "--model/--hidden";
        snprintf(what, len, "model %s, the options say %s", c->spec, t->spec);
    } else if ((t->o.set & SET_NODES) && c->run.nodes != t->o.nodes) {
        clash = "--nodes";
        snprintf(what, len, "%u nodes, the options say %" PRIu64, c->run.nodes, t->o.nodes);
    } else if ((t->o.set & SET_BATCH) && c->run.batch_size != t->o.batch) {
        clash = "--batch";
        snprintf(what, len, "batch %u, the options say %" PRIu64, c->run.batch_size, t->o.batch);
    } else if ((t->o.set & SET_SEED) && c->run.seed != t->o.seed) {
        clash = "--seed";
        snprintf(what, len, "seed %" PRIu64 ", the options say %" PRIu64, c->run.seed, t->o.seed);
    } else if ((t->o.set & SET_OPT) && (int)co->kind != t->o.opt) {
        clash = "--opt";
        snprintf(what, len, "optimizer %s, the options say %s", opt_names[co->kind],
                 opt_names[t->o.opt]);
    } else if ((t->o.set & SET_MOMENTUM) && co->kind == DNN_OPT_SGD &&
               co->momentum != t->o.momentum) {
        clash = "--momentum";
        snprintf(what, len, "momentum %g, the options say %g", (double)co->momentum,
                 (double)t->o.momentum);
    } else if ((t->o.set & SET_WD) && co->weight_decay != t->o.wd) {
        clash = "--wd";
        snprintf(what, len, "weight decay %g, the options say %g", (double)co->weight_decay,
                 (double)t->o.wd);
    } else if ((t->o.set & SET_BETAS) && co->kind == DNN_OPT_ADAM &&
               (co->beta1 != t->o.beta1 || co->beta2 != t->o.beta2 || co->eps != t->o.eps)) {
        clash = "--beta1/--beta2/--eps";
        snprintf(what, len, "betas %g/%g eps %g", (double)co->beta1, (double)co->beta2,
                 (double)co->eps);
    }
    return clash;
}

/* "cosine over T steps" and the like, for the messages of resume_schedule. */
static const char *sched_text(const struct dnn_opt *o, char *buf, size_t len)
{
    if (o->sched == DNN_LR_STEP)
        snprintf(buf, len, "lr %g x %g every %" PRIu64 " steps", (double)o->lr, (double)o->gamma,
                 o->step_size);
    else if (o->sched == DNN_LR_COSINE)
        snprintf(buf, len, "lr %g, cosine over %" PRIu64 " steps", (double)o->lr, o->total_steps);
    else
        snprintf(buf, len, "lr %g, constant", (double)o->lr);
    return buf;
}

/*
 * --resume: the learning-rate schedule of the steps still to run (the run's target is known).
 * The checkpoint's schedule continues bit for bit when it covers them. A run extended past the
 * end of its cosine (--steps or --epochs beyond the checkpoint's total, the form the end of a run
 * suggests) would train at lr 0: its cosine is stretched over the new length instead, as when
 * the run had been planned that long (lr(k) = cosine of k over the new total, from the
 * checkpoint's step on). --lr and the schedule options (--sched, --cosine-steps, --step-size,
 * --gamma) given with --resume replace the checkpoint's values from its step on. Any change is
 * printed with the lr of the first step before and after it. The optimizer's state (momentum,
 * Adam's moments and step count) is the checkpoint's in every case.
 */
static int resume_schedule(struct train *t)
{
    struct dnn_opt was = t->resume_info.opt, *o = &t->opt;
    char b0[160], b1[160];
    struct err e;
    const char *why;

    if (t->o.set & SET_SCHED) {
        o->sched = (enum dnn_lr_sched)t->o.sched;
        o->step_size = t->o.step_size;
        o->gamma = t->o.gamma;
        o->total_steps = t->o.cosine_steps ? t->o.cosine_steps : t->target;
        why = "as the schedule options say";
    } else if (o->sched == DNN_LR_COSINE && t->target > o->total_steps) {
        o->total_steps = t->target;
        why = "stretched over the longer run: the checkpoint's cosine ends before it (at lr 0); "
              "--sched const --lr X keeps a constant lr instead";
    } else {
        why = "as --lr says";
    }
    if (t->o.set & SET_LR)
        o->lr = t->o.lr;
    if (dnn_params_opt_validate(o, &e)) {
        fprintf(stderr, "flashstream train: --resume %s: %s\n", t->o.resume, e.msg);
        return -1;
    }
    if (o->lr == was.lr && o->sched == was.sched && o->step_size == was.step_size &&
        o->gamma == was.gamma && o->total_steps == was.total_steps)
        return 0;
    printf("resume: lr schedule %s (was %s), %s; lr of step %" PRIu64 ": %g (was %g)\n",
           sched_text(o, b1, sizeof(b1)), sched_text(&was, b0, sizeof(b0)), why, t->start_step,
           (double)dnn_params_lr(o, t->start_step), (double)dnn_params_lr(&was, t->start_step));
    t->resume_params->opt = *o;
    return 0;
}

/* --resume: the checkpoint decides the model, the optimizer, the seed, B and N; an option
 * given explicitly that disagrees is an error (it could not continue the run bit for bit). */
static int adopt_checkpoint(struct train *t)
{
    const struct ckpt_info *c = &t->resume_info;
    const struct dnn_opt *co = &c->opt;
    struct err e;
    char have[CKPT_SPEC_MAX];
    const char *clash;
    char what[600] = "";

    if (ckpt_load_new(t->o.resume, &t->resume_params, &t->resume_info, &e)) {
        fprintf(stderr, "flashstream train: --resume: %s\n", e.msg);
        return -1;
    }
    clash = resume_clash(t, what, sizeof(what));
    if (clash) {
        fprintf(stderr,
                "flashstream train: --resume %s: the checkpoint was trained with %s; a "
                "different %s would not continue that run bit for bit (leave it out: the "
                "checkpoint decides)\n",
                t->o.resume, what, clash);
        return -1;
    }
    t->model = c->model;
    snprintf(have, sizeof(have), "%s", c->spec);
    snprintf(t->spec, sizeof(t->spec), "%s", have);
    t->opt = *co;
    t->o.nodes = c->run.nodes;
    t->o.batch = c->run.batch_size;
    t->o.seed = c->run.seed;
    t->start_step = c->step;
    t->sim_offset_ps = c->run.sim_time_ps;
    return 0;
}

/* Perf reads no data: only the number of training samples counts (--train-samples, else the
 * training set's 60000); there is no test set. */
static void count_data(struct train *t)
{
    t->train_set.count = t->o.train_samples ? (uint32_t)t->o.train_samples : FM_TRAIN_SAMPLES;
    t->test_set.count = 0;
}

static int load_data(struct train *t)
{
    struct err e;

    if (t->o.fidelity == MACHINE_PERF)
        count_data(t);
    else if (dnn_idx_load_fashion(t->o.data, true, &t->train_set, &e) ||
             dnn_idx_load_fashion(t->o.data, false, &t->test_set, &e)) {
        fprintf(stderr, "flashstream train: %s\n%s", e.msg,
                t->o.data ? ""
                          : "  (the data come from Debian's dataset-fashion-mnist: "
                            "apt-get install dataset-fashion-mnist, or give --data DIR)\n");
        return -1;
    }
    if (t->o.train_samples) {
        if (t->o.train_samples > t->train_set.count) {
            fprintf(stderr,
                    "flashstream train: --train-samples %" PRIu64
                    " is more than the %u samples of the training set\n",
                    t->o.train_samples, t->train_set.count);
            return -1;
        }
        t->train_set.count = (uint32_t)t->o.train_samples;
    }
    if (t->o.test_samples && t->o.fidelity != MACHINE_PERF) {
        if (t->o.test_samples > t->test_set.count) {
            fprintf(stderr,
                    "flashstream train: --test-samples %" PRIu64
                    " is more than the %u samples of the test set\n",
                    t->o.test_samples, t->test_set.count);
            return -1;
        }
        t->test_set.count = (uint32_t)t->o.test_samples;
    }
    t->bpe = (uint32_t)(t->train_set.count / t->o.batch);
    if (!t->bpe) {
        fprintf(stderr,
                "flashstream train: %u training samples make no batch of %" PRIu64
                "; give more --train-samples or a smaller --batch\n",
                t->train_set.count, t->o.batch);
        return -1;
    }
    t->order = malloc(t->train_set.count * sizeof(*t->order));
    if (!t->order) {
        fprintf(stderr, "flashstream train: out of memory\n");
        return -1;
    }
    t->order_epoch = -1;
    return 0;
}

/* Steps of the run: [start_step, target). */
static int plan(struct train *t)
{
    uint64_t by_epochs = t->o.epochs > UINT64_MAX / t->bpe ? UINT64_MAX : t->o.epochs * t->bpe;

    t->target = t->o.steps && t->o.steps < by_epochs ? t->o.steps : by_epochs;
    if (t->o.resume) {
        const struct ckpt_info *c = &t->resume_info;

        if (c->run.samples && c->run.samples != t->train_set.count) {
            fprintf(stderr,
                    "flashstream train: --resume %s: the checkpoint's run shuffled %u training "
                    "samples per epoch, this one has %u; give --train-samples %u to continue "
                    "it\n",
                    t->o.resume, c->run.samples, t->train_set.count, c->run.samples);
            return -1;
        }
        if (c->run.epoch * t->bpe + c->run.batch != c->step) {
            fprintf(stderr,
                    "flashstream train: --resume %s: the checkpoint is at step %" PRIu64
                    ", epoch %" PRIu64 " batch %" PRIu64 ", which needs %" PRIu64
                    " batches per epoch; this data set gives %u "
                    "(the same --train-samples as the original run is needed)\n",
                    t->o.resume, c->step, c->run.epoch, c->run.batch,
                    c->run.epoch ? (c->step - c->run.batch) / c->run.epoch : c->step, t->bpe);
            return -1;
        }
        if (t->start_step >= t->target) {
            fprintf(stderr,
                    "flashstream train: --resume %s: the checkpoint is at step %" PRIu64
                    ", the run ends at step %" PRIu64 "; ask for more --epochs or --steps\n",
                    t->o.resume, t->start_step, t->target);
            return -1;
        }
        return resume_schedule(t);
    }
    return 0;
}

/* The machine's configuration: the machine of --config and --set, and the job of the options;
 * `samples` is what its NV streams must hold. */
static void build_machine_cfg(struct train *t, uint64_t samples)
{
    t->cfg = *machine_ini_cfg(t->ini);
    machine_cfg_set_faults(&t->cfg, &t->faults);
    t->cfg.model = t->model;
    t->cfg.opt = t->opt;
    t->cfg.init_seed = t->o.seed;
    t->cfg.batch = (uint32_t)t->o.batch;
    t->cfg.samples = (uint32_t)samples;
    t->cfg.n_an = (uint32_t)t->o.nodes;
    t->cfg.fidelity = t->o.rtl_steps ? MACHINE_RTL : (enum machine_fidelity)t->o.fidelity;
    t->cfg.seed = t->o.seed;
    if (t->o.pad_words)
        t->cfg.core.a_words = t->cfg.core.b_words = t->cfg.core.c_words = (uint32_t)t->o.pad_words;
}

/* Whether this host can hold the run's parameters: the Weight Node's fp32 masters, optimizer
 * state (SGD velocity; Adam m and v) and bf16 copies, as many again with --golden-check (the
 * golden trainer's own). perf keeps none. 0, or -ENOMEM with the figure in e. */
static bool perf(const struct train *t);

static int host_holds_params(const struct train *t, struct err *e)
{
    uint64_t state = t->opt.kind == DNN_OPT_ADAM ? 2 : 1;
    uint64_t per = 4 + 4 * state + 2, bytes;
    char what[160];

    if (perf(t))
        return 0;
    bytes = dnn_model_params(&t->model) * per * (t->o.golden_check ? 2 : 1);
    snprintf(what, sizeof(what),
             "holding the parameters of %.64s (masters, optimizer state, bf16%s)", t->spec,
             t->o.golden_check ? "; twice, with --golden-check" : "");
    return hostmem_check(bytes, what, e);
}

/* --compile_only / --validate_only: the machine the options describe, holding one epoch of
 * the training set in its NV streams (the data themselves are not read). 0, or 1 when the
 * model does not compile or fit (the reasons on stderr). */
static int compile_or_validate(struct train *t)
{
    struct err e;
    uint64_t samples = t->o.train_samples ? t->o.train_samples : FM_TRAIN_SAMPLES;
    int rc;

    t->target = t->o.steps ? t->o.steps : t->o.epochs * (samples / t->o.batch);
    build_opt(t);
    build_machine_cfg(t, samples / t->o.batch * t->o.batch);
    if (t->o.only == ONLY_VALIDATE && host_holds_params(t, &e)) {
        fprintf(stderr,
                "flashstream train: --validate_only: the model does not fit this host: %s\n",
                e.msg);
        return 1;
    }
    if (t->o.only == ONLY_COMPILE)
        rc = machine_compile_listing(&t->cfg, stdout, &e);
    else
        rc = machine_validate(&t->cfg, stdout, &e);
    fflush(stdout);
    if (rc) {
        fprintf(stderr, "flashstream train: %s: %s\n",
                t->o.only == ONLY_COMPILE ? "--compile_only" : "--validate_only", e.msg);
        return 1;
    }
    return 0;
}

/* --show-config: the machine the options describe, every key, as a description file. */
static void show_config(struct train *t)
{
    build_machine_cfg(t, t->o.batch);
    machine_ini_write(stdout, &t->cfg,
                      "the machine's effective configuration (flashstream train --show-config)");
    fflush(stdout);
}

static bool perf(const struct train *t)
{
    return t->o.fidelity == MACHINE_PERF;
}

static int make_machine(struct train *t)
{
    struct err e;
    bool need_rtl =
        t->o.rtl_steps > 0 || t->o.fidelity == MACHINE_RTL || t->o.fidelity == MACHINE_LOCKSTEP;
    uint64_t run_steps = t->target - t->start_step;

    /* Batches preloaded at a time: --preload, else what an epoch needs; never more than an
     * epoch or the run (feed() also stops at the end of the epoch and of the run). */
    uint64_t cap = t->o.preload ? t->o.preload : t->bpe;

    if (cap > t->bpe)
        cap = t->bpe;
    if (cap > run_steps)
        cap = run_steps;
    t->chunk_cap = (uint32_t)cap;
    if (host_holds_params(t, &e)) {
        fprintf(stderr, "flashstream train: the model does not fit this host: %s\n", e.msg);
        return -1;
    }
    build_machine_cfg(t, t->chunk_cap * t->o.batch);
    t->cfg.rtl = need_rtl ? &an_be_rtl_ops : NULL;
    t->cfg.nfw_rtl = need_rtl ? &nfw_be_rtl_ops : NULL;
    if (machine_create(&t->cfg, &t->machine, &e)) {
        fprintf(stderr, "flashstream train: the machine cannot be built: %s\n", e.msg);
        if (need_rtl && strstr(e.msg, "pads"))
            fprintf(stderr, "  (--pad-words N sets the machine's pads to the linked model's)\n");
        return -1;
    }
    if (t->resume_params && machine_set_params(t->machine, t->resume_params, &e)) {
        fprintf(stderr, "flashstream train: --resume %s: %s\n", t->o.resume, e.msg);
        return -1;
    }
    if (perf(t))
        return 0; /* no data to stage, nothing to check against */
    t->chunk_images = malloc((size_t)t->chunk_cap * t->o.batch * FM_INPUTS);
    t->chunk_labels = malloc((size_t)t->chunk_cap * t->o.batch);
    if (!t->chunk_images || !t->chunk_labels) {
        fprintf(stderr, "flashstream train: out of memory for %u preloaded batches\n",
                t->chunk_cap);
        return -1;
    }
    if (t->o.golden_check) {
        struct err de;

        if (t->o.resume) {
            if (ckpt_load_new(t->o.resume, &t->gold, NULL, &de)) {
                fprintf(stderr, "flashstream train: --golden-check: %s\n", de.msg);
                return -1;
            }
            t->gold->opt = t->opt; /* the schedule of resume_schedule */
        } else if (dnn_params_create(&(struct dnn_params_cfg){.model = &t->model,
                                                              .opt = &t->opt,
                                                              .seed = t->o.seed},
                                     &t->gold, &de)) {
            fprintf(stderr, "flashstream train: --golden-check: %s\n", de.msg);
            return -1;
        }
        if (dnn_golden_init(&t->golden, t->gold, &de)) {
            fprintf(stderr, "flashstream train: --golden-check: %s\n", de.msg);
            return -1;
        }
        t->golden_ok = true;
        /* Test hook: FLASHSTREAM_TEST_GOLDEN_PERTURB=K makes the golden trainer differ at step
         * K (golden_step), for scripts/check-train.sh to see the check fail as it should. */
        const char *perturb = getenv("FLASHSTREAM_TEST_GOLDEN_PERTURB");
        char *end;

        t->golden_perturb_step = UINT64_MAX;
        if (perturb && isdigit((unsigned char)*perturb)) {
            errno = 0;
            t->golden_perturb_step = strtoull(perturb, &end, 10);
            if (errno || *end)
                t->golden_perturb_step = UINT64_MAX;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- history on --resume */

static const char *const loss_cols[] = {"step",        "epoch",   "loss",    "lr",
                                        "sim_time_us", "step_us", "fidelity"};
static const char *const acc_cols[] = {"epoch",   "step",  "test_accuracy",
                                       "correct", "count", "sim_time_us"};

/* What a history file is for: loss.csv (one row per step) or accuracy.csv (one per
 * evaluation). */
struct hist_kind {
    const char *name;
    size_t ncols;
    const char *const *cols;
    int step_col;
};

static const struct hist_kind hist_loss = {"loss.csv", 7, loss_cols, 0};
static const struct hist_kind hist_acc = {"accuracy.csv", 6, acc_cols, 1};

/* A decimal u64 filling the whole field: no sign, space or base prefix, no overflow. */
static bool field_u64(const char *s, uint64_t *v)
{
    char *end;

    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return !errno && !*end;
}

/*
 * Read the history file path of this run's output directory: the rows a resumed run keeps,
 * those of steps below `before`. Checked: the header is the table's; every row has its columns,
 * a step that is a decimal integer, and steps that rise. loss.csv more: steps one after the
 * other, the epoch of each step the one this run's batches per epoch give, the last kept row the
 * step just before the checkpoint with the learning rate the checkpoint's schedule gives there
 * (rows of another run, or of another schedule, do not pass). With c, the kept rows are copied
 * into it. 0 with *kept, *first, *last (kept 0: none); -1 with why.
 */
static int read_history(const struct train *t, const char *path, const struct hist_kind *k,
                        uint64_t before, struct stats_csv *c, uint64_t *kept, uint64_t *first,
                        uint64_t *last, char *why, size_t wlen)
{
    bool loss = k->step_col == 0;
    char line[1024], head[256] = "";
    uint64_t row = 0, prev = 0, step, epoch;
    int rc = -1;
    struct err re = {{0}};
    int fd = rfile_open(path, "history", NULL, &re);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

    *kept = 0;
    if (!f) {
        if (fd >= 0) {
            close(fd);
            snprintf(re.msg, sizeof(re.msg), "out of memory");
        }
        snprintf(why, wlen, "%.380s", re.msg);
        return -1;
    }
    for (size_t i = 0; i < k->ncols; i++)
        snprintf(head + strlen(head), sizeof(head) - strlen(head), "%s%s", i ? "," : "",
                 k->cols[i]);
    while (fgets(line, sizeof(line), f)) {
        char *field[16], *p = line;
        size_t n = 0, len = strlen(line);

        if (len && line[len - 1] != '\n' && !feof(f)) {
            snprintf(why, wlen, "line %" PRIu64 " is longer than %zu characters", row + 1,
                     sizeof(line) - 2);
            goto out;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (row++ == 0) {
            if (strcmp(line, head)) {
                snprintf(why, wlen, "its header is not \"%s\"", head);
                goto out;
            }
            continue;
        }
        while (n < 16) {
            field[n++] = p;
            p = strchr(p, ',');
            if (!p)
                break;
            *p++ = '\0';
        }
        if (n != k->ncols) {
            snprintf(why, wlen, "line %" PRIu64 " has %zu fields, not %zu", row, n, k->ncols);
            goto out;
        }
        if (!field_u64(field[k->step_col], &step)) {
            snprintf(why, wlen, "line %" PRIu64 ": step '%.40s' is not a decimal integer", row,
                     field[k->step_col]);
            goto out;
        }
        if (*kept && (loss ? step != prev + 1 : step <= prev)) {
            snprintf(why, wlen, "line %" PRIu64 ": step %" PRIu64 " after step %" PRIu64 "%s", row,
                     step, prev, loss ? " (one row per step, in order)" : "");
            goto out;
        }
        if (loss && (!field_u64(field[1], &epoch) || epoch != step / t->bpe)) {
            snprintf(why, wlen,
                     "line %" PRIu64 ": step %" PRIu64 " is in epoch '%.20s'; with this run's %u "
                     "batches per epoch it is in epoch %" PRIu64,
                     row, step, field[1], t->bpe, step / t->bpe);
            goto out;
        }
        if (step >= before)
            break; /* steps the run continued past its checkpoint: run again now */
        if (!*kept)
            *first = step;
        prev = step;
        ++*kept;
        if (loss && step + 1 == before) {
            float want = dnn_params_lr(&t->resume_info.opt, step), got = strtof(field[3], NULL);

            if (got != want) {
                snprintf(why, wlen,
                         "line %" PRIu64 ": step %" PRIu64 " trained at lr %.20s; the "
                         "checkpoint's schedule gives %.9g there",
                         row, step, field[3], (double)want);
                goto out;
            }
        }
        for (size_t i = 0; c && i < n; i++)
            stats_csv_str(c, field[i], NULL);
        if (c)
            stats_csv_end_row(c, NULL);
    }
    if (ferror(f)) {
        snprintf(why, wlen, "read error");
        goto out;
    }
    if (row == 0) {
        snprintf(why, wlen, "it is empty");
        goto out;
    }
    if (loss && *kept && prev + 1 != before) {
        snprintf(why, wlen,
                 "it ends at step %" PRIu64 ", the checkpoint is at step %" PRIu64
                 ": steps %" PRIu64 "..%" PRIu64 " are missing",
                 prev, before, prev + 1, before - 1);
        goto out;
    }
    *last = prev;
    rc = 0;
out:
    fclose(f);
    return rc;
}

/* "<name>.tmp.<pid>." of a dead run in the output directory (the run holds the directory's
 * lock, so no other run writes there): its pid, or 0 when `entry` is not such a temporary. */
static long dead_tmp_pid(const char *entry, const char *name)
{
    size_t n = strlen(name);
    char *end;
    long pid;

    if (strncmp(entry, name, n) || strncmp(entry + n, ".tmp.", 5) ||
        !isdigit((unsigned char)entry[n + 5]))
        return 0;
    pid = strtol(entry + n + 5, &end, 10);
    return *end == '.' && pid != (long)getpid() ? pid : 0;
}

/*
 * --resume: keep the history of the steps before the checkpoint in loss.csv and accuracy.csv.
 * The source is the output directory's loss.csv when it is this run's (read_history); else the
 * temporary file of a run that was killed (its rows are flushed at every checkpoint), which is
 * then recovered and removed, with accuracy.csv's temporary of the same run. A loss.csv that is
 * there but not this run's history is refused (its rows would be another run's); no loss.csv at
 * all starts the history at the checkpoint. 0 or -1 (message printed).
 */
static int keep_history(struct train *t)
{
    char path[800], src[800] = "", acc[800] = "", why[400] = "", twhy[400];
    uint64_t before = t->start_step, kept, first, last;
    long src_pid = 0;
    struct stat st;
    DIR *d;

    snprintf(path, sizeof(path), "%s/loss.csv", t->out_dir);
    bool have = !lstat(path, &st);

    if (have &&
        !read_history(t, path, &hist_loss, before, NULL, &kept, &first, &last, why, sizeof(why)))
        snprintf(src, sizeof(src), "%s", path);
    d = src[0] ? NULL : opendir(t->out_dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        long pid = dead_tmp_pid(de->d_name, "loss.csv");
        uint64_t n, f0, l0;

        if (!pid)
            continue;
        snprintf(path, sizeof(path), "%s/%s", t->out_dir, de->d_name);
        if (read_history(t, path, &hist_loss, before, NULL, &n, &f0, &l0, twhy, sizeof(twhy)) ||
            !n || (src[0] && n <= kept))
            continue;
        snprintf(src, sizeof(src), "%s", path);
        src_pid = pid;
        kept = n;
        first = f0;
        last = l0;
    }
    if (d)
        closedir(d);
    if (!src[0] && have) {
        fprintf(stderr,
                "flashstream train: --resume %s: %s/loss.csv is not the history of this "
                "checkpoint's run: %s; give another --out, or move the file away\n",
                t->o.resume, t->out_dir, why);
        return -1;
    }
    if (!src[0])
        return 0; /* no history: loss.csv starts at the checkpoint */
    if (read_history(t, src, &hist_loss, before, t->loss_csv, &kept, &first, &last, why,
                     sizeof(why)))
        return -1; /* read a moment ago: cannot fail but by the file changing */
    /* accuracy.csv: from the same run as loss.csv. */
    snprintf(acc, sizeof(acc), "%s/accuracy.csv", t->out_dir);
    if (src_pid) {
        d = opendir(t->out_dir);
        for (struct dirent *de; d && (de = readdir(d));)
            if (dead_tmp_pid(de->d_name, "accuracy.csv") == src_pid)
                snprintf(acc, sizeof(acc), "%s/%s", t->out_dir, de->d_name);
        if (d)
            closedir(d);
    }
    if (!lstat(acc, &st)) {
        uint64_t n, f0, l0;

        if (read_history(t, acc, &hist_acc, before + 1, NULL, &n, &f0, &l0, why, sizeof(why))) {
            fprintf(stderr,
                    "flashstream train: --resume %s: %s is not the history of this "
                    "checkpoint's run: %s; give another --out, or move the file away\n",
                    t->o.resume, acc, why);
            return -1;
        }
        read_history(t, acc, &hist_acc, before + 1, t->acc_csv, &n, &f0, &l0, why, sizeof(why));
    }
    if (stats_csv_flush(t->loss_csv, NULL) || stats_csv_flush(t->acc_csv, NULL))
        return 0; /* reported when the tables are committed */
    if (src_pid) {
        printf("resume: recovered the history of steps %" PRIu64 "..%" PRIu64
               " from %s, left by a run that was killed\n",
               first, last, src);
        unlink(src);
        if (strstr(acc, ".tmp."))
            unlink(acc);
    }
    return 0;
}

static struct stats_csv *open_csv(struct train *t, const char *name, size_t n,
                                  const char *const cols[])
{
    char path[600];
    struct stats_csv *c;
    struct err e;

    snprintf(path, sizeof(path), "%s/%s", t->out_dir, name);
    if (stats_csv_open(path, n, cols, &c, &e)) {
        fprintf(stderr, "flashstream train: %s\n", e.msg);
        return NULL;
    }
    return c;
}

static const char *const timeline_cols[] = {"resource", "start_us", "end_us", "label"};

/* Take OUTDIR's lock for the run (released when the process ends); 0, or -1 (message printed)
 * when another run holds it. */
static int lock_out_dir(struct train *t)
{
    char path[600];

    snprintf(path, sizeof(path), "%s/" LOCK_NAME, t->out_dir);
    t->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (t->lock_fd < 0) {
        fprintf(stderr, "flashstream train: cannot open the lock file '%s': %s\n", path,
                strerror(errno));
        return -1;
    }
    if (flock(t->lock_fd, LOCK_EX | LOCK_NB)) {
        if (errno == EWOULDBLOCK)
            fprintf(stderr,
                    "flashstream train: the output directory '%s' is in use by another run (it "
                    "holds '%s'); give another --out, or wait for that run to end\n",
                    t->out_dir, path);
        else
            fprintf(stderr, "flashstream train: cannot lock '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* trace.json's tracks of the host; 0 or -1 (message printed). */
static int open_trace(struct train *t)
{
    struct trace_cfg cfg = {.max_events = t->o.trace_max};
    struct trace *tr;
    struct err e;

    if (trace_create(&cfg, &tr, &e)) {
        fprintf(stderr, "flashstream train: %s\n", e.msg);
        return -1;
    }
    if (trace_track(tr, "host", "steps", &t->host_steps, &e) ||
        trace_track(tr, "host", "layers", &t->host_layers, &e) ||
        trace_track(tr, "host", "events", &t->host_marks, &e)) {
        fprintf(stderr, "flashstream train: %s\n", e.msg);
        trace_destroy(tr);
        return -1;
    }
    t->trace = tr;
    if (!(t->o.set & SET_TRACE_FROM))
        t->o.trace_from = t->start_step;
    return 0;
}

static int open_outputs(struct train *t)
{
    char path[600];
    int rc;

    if (t->o.out)
        snprintf(t->out_dir, sizeof(t->out_dir), "%s", t->o.out);
    else
        snprintf(t->out_dir, sizeof(t->out_dir), "out/%s", t->o.run);
    rc = cli_mkdir_p(t->out_dir);
    if (rc) {
        fprintf(stderr, "flashstream train: cannot create the output directory '%s': %s\n",
                t->out_dir, strerror(-rc));
        return -1;
    }
    if (lock_out_dir(t))
        return -1;
    snprintf(t->ckpt_path, sizeof(t->ckpt_path), "%s/checkpoint.ckpt", t->out_dir);
    t->loss_csv = open_csv(t, "loss.csv", 7, loss_cols);
    t->acc_csv = open_csv(t, "accuracy.csv", 6, acc_cols);
    t->timeline_csv = open_csv(t, "timeline.csv", 4, timeline_cols);
    snprintf(path, sizeof(path), "%s/layers.csv", t->out_dir);
    if (report_init(&t->rep, NULL, "train", t->model.n_layers, NULL))
        return -1;
    if (!t->loss_csv || !t->acc_csv || !t->timeline_csv || report_open_layers(&t->rep, path))
        return -1;
    if (t->o.resume && keep_history(t))
        return -1;
    return t->o.trace_steps ? open_trace(t) : 0;
}

static int start_waves(struct train *t)
{
    struct err e;
    char dir[512];
    int rc;

    if (!t->o.rtl_steps || (t->o.waves && !*t->o.waves))
        return 0;
    if (t->o.waves)
        snprintf(t->waves_path, sizeof(t->waves_path), "%s", t->o.waves);
    else
        snprintf(t->waves_path, sizeof(t->waves_path), "waves/%s.fst", t->o.run);
    dir_of(t->waves_path, dir, sizeof(dir));
    rc = cli_mkdir_p(dir);
    if (rc) {
        fprintf(stderr, "flashstream train: cannot create '%s' for the waves: %s\n", dir,
                strerror(-rc));
        return -1;
    }
    struct vtrace_opts vo = {.path = t->waves_path,
                             .first_cycle = 0,
                             .last_cycle = t->o.wave_cycles - 1,
                             .scopes = t->o.wave_scopes,
                             .period_ps = t->cfg.core_period_ps};
    if (machine_trace_core(t->machine, 0, &vo, &e)) {
        fprintf(stderr, "flashstream train: cannot write waves to '%s': %s\n", t->waves_path,
                e.msg);
        return -1;
    }
    if (!t->cfg.write_pipe)
        return 0;
    /* AN 0's NAND write pipeline beside its core: <waves without .fst>-nfw.fst */
    size_t n = strlen(t->waves_path);
    n -= n > 4 && !strcmp(t->waves_path + n - 4, ".fst") ? 4 : 0;
    if (n + sizeof("-nfw.fst") > sizeof(t->write_waves_path)) {
        fprintf(stderr, "flashstream train: the waves path '%s' leaves no room for '-nfw.fst'\n",
                t->waves_path);
        return -1;
    }
    snprintf(t->write_waves_path, sizeof(t->write_waves_path), "%.*s-nfw.fst", (int)n,
             t->waves_path);
    vo.path = t->write_waves_path;
    vo.scopes = NULL;
    if (machine_trace_write(t->machine, 0, &vo, &e)) {
        fprintf(stderr, "flashstream train: cannot write waves to '%s': %s\n", t->write_waves_path,
                e.msg);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- data */

/* Perf: the next batches (from step k on) by their number only. */
static int feed_sizes(struct train *t, uint64_t k)
{
    uint64_t left = t->bpe - k % t->bpe;
    uint32_t n = t->chunk_cap;
    struct err e;

    if (n > left)
        n = (uint32_t)left;
    if (n > t->target - k)
        n = (uint32_t)(t->target - k);
    if (machine_load_inputs(t->machine, NULL, NULL, n * (uint32_t)t->o.batch, &e)) {
        fprintf(stderr, "flashstream train: step %" PRIu64 ": loading %u batches: %s\n", k, n,
                e.msg);
        return -1;
    }
    return 0;
}

/* Preload the next batches (from step k on) into the NV streams when none is pending. */
static int feed(struct train *t, uint64_t k)
{
    uint64_t epoch = k / t->bpe, bi = k % t->bpe;
    uint32_t B = (uint32_t)t->o.batch, n;
    struct err e;

    if (machine_batches_pending(t->machine))
        return 0;
    if (perf(t))
        return feed_sizes(t, k);
    if ((int64_t)epoch != t->order_epoch) {
        dnn_idx_shuffle(t->order, t->train_set.count, t->o.seed + epoch);
        t->order_epoch = (int64_t)epoch;
    }
    n = t->chunk_cap;
    if (n > t->bpe - bi)
        n = (uint32_t)(t->bpe - bi);
    if (n > t->target - k)
        n = (uint32_t)(t->target - k);
    dnn_idx_gather(&t->train_set, t->order + bi * B, n * B, t->chunk_images, t->chunk_labels);
    if (machine_load_inputs(t->machine, t->chunk_images, t->chunk_labels, n * B, &e)) {
        fprintf(stderr, "flashstream train: step %" PRIu64 ": loading %u batches: %s\n", k, n,
                e.msg);
        return -1;
    }
    return 0;
}

/* feed() for step k. In the --rtl-steps steps the preload runs in tlm: it is the host's
 * traffic, not the steps the RTL was asked to run, and tlm times it to the same picosecond.
 * The RTL write lanes then join by a copy of the twin's state (models/nfw/nfw_time.h) instead
 * of running every preload write verilated: an epoch's inputs are about 15 M lane cycles. */
static int feed_step(struct train *t, uint64_t k)
{
    enum machine_fidelity f = machine_get_fidelity(t->machine);
    struct err e;
    int rc;

    if (!t->o.rtl_steps || f != MACHINE_RTL || machine_batches_pending(t->machine))
        return feed(t, k);
    if (machine_set_fidelity(t->machine, MACHINE_TLM, &e)) {
        fprintf(stderr, "flashstream train: step %" PRIu64 ": preload in tlm: %s\n", k, e.msg);
        return -1;
    }
    rc = feed(t, k);
    if (machine_set_fidelity(t->machine, f, &e)) {
        fprintf(stderr, "flashstream train: step %" PRIu64 ": back to rtl: %s\n", k, e.msg);
        return -1;
    }
    return rc;
}

/* The batch of step k, for the golden check (the same gather as feed). */
static void batch_of(struct train *t, uint64_t k, uint8_t *images, uint8_t *labels)
{
    uint32_t B = (uint32_t)t->o.batch;

    dnn_idx_gather(&t->train_set, t->order + (k % t->bpe) * B, B, images, labels);
}

/* ---------------------------------------------------------------- progress */

static int term_width(void)
{
    struct winsize ws;

    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        return ws.ws_col;
    return 100;
}

static void draw_bar(struct train *t, uint64_t k, bool force)
{
    double now = cli_wall_s(), el = now - t->t0;
    uint64_t done = k - t->start_step, left = t->target - k;
    char eta[32], line[256];
    int w = term_width(), n, barw;

    if (t->mode != PROG_BAR || (!force && now - t->last_draw < 0.2))
        return;
    t->last_draw = now;
    fmt_hms(done ? el / (double)done * (double)left : 0, eta, sizeof(eta));
    n = snprintf(line, sizeof(line),
                 " %" PRIu64 "/%" PRIu64 " ep %" PRIu64 "/%" PRIu64
                 " loss %.4f %.0f img/s %s ETA %s",
                 k, t->target, k ? (k - 1) / t->bpe + 1 : 1, (t->target + t->bpe - 1) / t->bpe,
                 t->last_loss, el > 0 ? (double)t->images / el : 0.0,
                 machine_fidelity_name(machine_get_fidelity(t->machine)), eta);
    barw = w - n - 4;
    if (barw > 40)
        barw = 40;
    printf("\r\033[K");
    if (barw >= 10) {
        uint64_t span = t->target - t->start_step;
        int fill = span ? (int)((double)done / (double)span * barw) : barw;

        putchar('[');
        for (int i = 0; i < barw; i++)
            putchar(i < fill ? '#' : '.');
        putchar(']');
    }
    fputs(line, stdout);
    fflush(stdout);
}

/* A line that stays (a log line, an epoch result): above the bar on a terminal. */
static void say(struct train *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct train *t, const char *fmt, ...)
{
    va_list ap;

    if (t->mode == PROG_QUIET)
        return;
    if (t->mode == PROG_BAR)
        printf("\r\033[K");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static void log_interval(struct train *t, uint64_t k_done, float lr, uint64_t sim_ps)
{
    double el = cli_wall_s() - t->t0;
    uint64_t done = k_done - t->start_step;
    char eta[32];

    fmt_hms(done ? el / (double)done * (double)(t->target - k_done) : 0, eta, sizeof(eta));
    say(t,
        "step %6" PRIu64 "/%" PRIu64 "  epoch %" PRIu64 "/%" PRIu64 "  loss %.4f (mean of %" PRIu64
        ")  lr %.4g  %5.0f img/s  sim %.3f ms  %s  eta %s\n",
        k_done, t->target, (k_done - 1) / t->bpe + 1, (t->target + t->bpe - 1) / t->bpe,
        t->log_sum / (double)t->log_n, t->log_n, (double)lr, el > 0 ? (double)t->images / el : 0.0,
        (double)(t->sim_offset_ps + sim_ps) / 1e9,
        machine_fidelity_name(machine_get_fidelity(t->machine)), eta);
    t->log_n = 0;
    t->log_sum = 0;
}

/* ---------------------------------------------------------------- records */

static bool traced(const struct train *t, uint64_t k)
{
    return t->trace && k >= t->o.trace_from && k - t->o.trace_from < t->o.trace_steps;
}

static const char *busy_label(const struct machine_busy *b)
{
    return b->label && *b->label ? b->label : "busy";
}

/* timeline.csv order: resource (the machine's order: one block of rows per node), then start. */
static int busy_cmp(const void *pa, const void *pb)
{
    const struct machine_busy *a = *(const struct machine_busy *const *)pa;
    const struct machine_busy *b = *(const struct machine_busy *const *)pb;

    if (a->res != b->res)
        return a->res < b->res ? -1 : 1;
    if (a->start_ps != b->start_ps)
        return a->start_ps < b->start_ps ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Busy intervals of a traced step: trace.json, and timeline.csv for the first one (times from
 * the start of that step). */
static void take_busy(struct train *t, const struct machine_step_info *info)
{
    size_t n;
    uint64_t dropped;
    const struct machine_busy *b = machine_busy(t->machine, &n, &dropped);
    const struct machine_busy **sorted = NULL;

    report_take_busy(&t->rep, t->sim_offset_ps, true);
    if (!t->timeline_done && n && (sorted = malloc(n * sizeof(*sorted)))) {
        for (size_t i = 0; i < n; i++)
            sorted[i] = &b[i];
        qsort(sorted, n, sizeof(*sorted), busy_cmp);
        for (size_t i = 0; i < n; i++) {
            const struct machine_busy *x = sorted[i];

            if (x->res >= t->rep.n_res || x->start_ps < info->start_ps || x->end_ps < x->start_ps)
                continue;
            stats_csv_str(t->timeline_csv, machine_resource_name(t->machine, x->res), NULL);
            stats_csv_fixed(t->timeline_csv, ps_us(x->start_ps - info->start_ps), 6, NULL);
            stats_csv_fixed(t->timeline_csv, ps_us(x->end_ps - info->start_ps), 6, NULL);
            stats_csv_str(t->timeline_csv, busy_label(x), NULL);
            stats_csv_end_row(t->timeline_csv, NULL);
        }
        free(sorted);
    }
    if (dropped)
        trace_instant(t->trace, t->host_marks, t->sim_offset_ps + info->end_ps,
                      "busy intervals dropped by the machine's cap", &TRACE_U64("dropped", dropped),
                      1, NULL);
    t->timeline_done = true;
    machine_clear_busy(t->machine);
}

/* ---------------------------------------------------------------- steps */

static int evaluate(struct train *t, uint64_t step_done)
{
    struct err e;
    uint32_t correct = 0;
    double acc, w0 = cli_wall_s();

    if (machine_eval(t->machine, t->test_set.images, t->test_set.labels, t->test_set.count,
                     &correct, NULL, &e)) {
        fprintf(stderr, "\nflashstream train: test accuracy after step %" PRIu64 ": %s\n",
                step_done, e.msg);
        return -1;
    }
    acc = (double)correct / (double)t->test_set.count;
    if (t->golden_ok) {
        struct err de;
        uint32_t gc = 0;

        if (dnn_golden_eval(t->gold, t->test_set.images, t->test_set.labels, t->test_set.count,
                            1000, &gc, &de) == 0 &&
            gc != correct) {
            fprintf(stderr,
                    "\nflashstream train: --golden-check: after step %" PRIu64
                    " the machine classifies %u test samples correctly, the golden model %u\n",
                    step_done, correct, gc);
            return -1;
        }
    }
    stats_csv_u64(t->acc_csv, step_done ? (step_done - 1) / t->bpe : 0, NULL);
    stats_csv_u64(t->acc_csv, step_done, NULL);
    stats_csv_fixed(t->acc_csv, acc, 4, NULL);
    stats_csv_u64(t->acc_csv, correct, NULL);
    stats_csv_u64(t->acc_csv, t->test_set.count, NULL);
    stats_csv_fixed(t->acc_csv, ps_us(t->sim_offset_ps + machine_now(t->machine)), 3, NULL);
    stats_csv_end_row(t->acc_csv, NULL);
    if (t->trace)
        trace_instant(t->trace, t->host_marks, t->sim_offset_ps + machine_now(t->machine),
                      "test accuracy", &TRACE_F64("accuracy", acc), 1, NULL);
    if (step_done % t->bpe == 0)
        say(t,
            "epoch %" PRIu64 " done (step %" PRIu64 "): test accuracy %.4f (%u of %u) [%.1f s]\n",
            step_done / t->bpe, step_done, acc, correct, t->test_set.count, cli_wall_s() - w0);
    else
        say(t,
            "after step %" PRIu64 " (epoch %" PRIu64 ", %" PRIu64 " of %u batches): test accuracy "
            "%.4f (%u of %u) [%.1f s]\n",
            step_done, step_done / t->bpe + 1, step_done % t->bpe, t->bpe, acc, correct,
            t->test_set.count, cli_wall_s() - w0);
    t->last_acc = acc;
    t->last_acc_step = (int64_t)step_done;
    return 0;
}

/* Whether paths a and b name one existing file. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Write the checkpoint of step_done; 0, or -1 with the message on stderr (whatever --progress
 * says: a run that was asked for checkpoints and cannot write them must not go on unnoticed). */
static int checkpoint(struct train *t, uint64_t step_done)
{
    struct ckpt_run run = {.seed = t->o.seed,
                           .epoch = step_done / t->bpe,
                           .batch = step_done % t->bpe,
                           .sim_time_ps = t->sim_offset_ps + machine_now(t->machine),
                           .batch_size = (uint32_t)t->o.batch,
                           .nodes = (uint32_t)t->o.nodes,
                           .samples = t->train_set.count};
    struct err e;

    /* The rows of the steps the checkpoint holds go to disk first: a run killed later leaves
     * them in its temporary files, where a resumed run finds them (keep_history). A failure is
     * sticky and reported when the tables are committed. */
    stats_csv_flush(t->loss_csv, NULL);
    stats_csv_flush(t->acc_csv, NULL);
    if (ckpt_save(t->ckpt_path, machine_params(t->machine), &run, &e)) {
        if (t->mode == PROG_BAR)
            printf("\r\033[K");
        fflush(stdout);
        /* A failed save leaves the file at ckpt_path as it was: name the step it holds, when
         * this run (or the run resumed from it) wrote one there. */
        if (t->ckpt_step != UINT64_MAX)
            fprintf(stderr,
                    "flashstream train: step %" PRIu64 ": %s (the checkpoint of step %" PRIu64
                    " is intact)\n",
                    step_done, e.msg, t->ckpt_step);
        else if (t->o.resume && same_file(t->o.resume, t->ckpt_path))
            fprintf(stderr,
                    "flashstream train: step %" PRIu64
                    ": %s (the checkpoint resumed from, step %" PRIu64 ", is intact)\n",
                    step_done, e.msg, t->start_step);
        else
            fprintf(stderr, "flashstream train: step %" PRIu64 ": %s (no checkpoint was written)\n",
                    step_done, e.msg);
        return -1;
    }
    t->ckpt_step = step_done;
    t->ckpt_sim_ps = run.sim_time_ps;
    if (t->trace)
        trace_instant(t->trace, t->host_marks, t->sim_offset_ps + machine_now(t->machine),
                      "checkpoint", &TRACE_U64("step", step_done), 1, NULL);
    return 0;
}

static int golden_step(struct train *t, uint64_t k, float loss)
{
    uint32_t B = (uint32_t)t->o.batch;
    uint8_t *img = malloc((size_t)B * FM_INPUTS), *lab = malloc(B);
    struct err e;
    float gl;
    int rc = -1;

    if (!img || !lab) {
        fprintf(stderr, "flashstream train: out of memory\n");
        goto out;
    }
    batch_of(t, k, img, lab);
    if (k == t->golden_perturb_step) {
        /* The test hook of FLASHSTREAM_TEST_GOLDEN_PERTURB: the last bit of one master weight
         * of the golden trainer flipped, so that the comparison below must fail. */
        uint32_t bits;

        memcpy(&bits, &t->gold->layer[0].w[0], sizeof(bits));
        bits ^= 1u;
        memcpy(&t->gold->layer[0].w[0], &bits, sizeof(bits));
    }
    if (dnn_golden_step(&t->golden, img, lab, B, (uint32_t)t->o.nodes, &gl, &e)) {
        fprintf(stderr, "\nflashstream train: --golden-check: step %" PRIu64 ": %s\n", k, e.msg);
        goto out;
    }
    if (memcmp(&gl, &loss, sizeof(gl)) || !dnn_params_equal(t->gold, machine_params(t->machine))) {
        fprintf(stderr,
                "\nflashstream train: --golden-check: step %" PRIu64
                " differs from the golden trainer: loss %.9g vs %.9g, params digest %016" PRIx64
                " vs %016" PRIx64 "\n",
                k, (double)loss, (double)gl, dnn_params_digest(machine_params(t->machine)),
                dnn_params_digest(t->gold));
        goto out;
    }
    rc = 0;
out:
    free(img);
    free(lab);
    return rc;
}

/* Run steps [start_step, target). Returns the last step completed + 1 via *done. */
/* loss.csv's row of step k. */
static void loss_row(struct train *t, uint64_t k, const struct machine_step_info *info, float lr)
{
    stats_csv_u64(t->loss_csv, k, NULL);
    stats_csv_u64(t->loss_csv, k / t->bpe, NULL);
    csv_f32(t->loss_csv, info->loss);
    csv_f32(t->loss_csv, lr);
    stats_csv_fixed(t->loss_csv, ps_us(t->sim_offset_ps + info->end_ps), 6, NULL);
    stats_csv_fixed(t->loss_csv, ps_us(info->end_ps - info->start_ps), 6, NULL);
    stats_csv_str(t->loss_csv, machine_fidelity_name(machine_get_fidelity(t->machine)), NULL);
    stats_csv_end_row(t->loss_csv, NULL);
}

/* trace.json's record of step k, and the busy intervals of its resources. */
static void trace_step(struct train *t, uint64_t k, const struct machine_step_info *info, float lr)
{
    char name[40];
    struct trace_arg a[] = {
        TRACE_F64("loss", info->loss), TRACE_F64("lr", lr), TRACE_U64("commands", info->commands),
        TRACE_U64("gemms", info->gemms),
        TRACE_STR("fidelity", machine_fidelity_name(machine_get_fidelity(t->machine)))};

    snprintf(name, sizeof(name), "step %" PRIu64, k);
    trace_complete(t->trace, t->host_steps, t->sim_offset_ps + info->start_ps,
                   info->end_ps - info->start_ps, name, "step", a, 5, NULL);
    take_busy(t, info);
}

/* The optimizer the machine runs (perf keeps no parameters: the one it was given). */
static const struct dnn_opt *run_opt(const struct train *t)
{
    const struct dnn_params *p = machine_params(t->machine);
    return p ? &p->opt : &t->opt;
}

static int train_loop(struct train *t, uint64_t *done)
{
    struct err e;
    uint64_t k;
    int rc;

    *done = t->start_step;
    for (k = t->start_step; k < t->target && !stop_requested; k++) {
        struct machine_step_info info;
        bool tr = traced(t, k);
        float lr = dnn_params_lr(run_opt(t), k);

        if (t->o.rtl_steps && k == t->start_step + t->o.rtl_steps) {
            if (machine_set_fidelity(t->machine, (enum machine_fidelity)t->o.fidelity, &e)) {
                fprintf(stderr, "\nflashstream train: step %" PRIu64 ": %s\n", k, e.msg);
                return -1;
            }
            say(t, "step %" PRIu64 ": switched from rtl to %s\n", k, fid_names[t->o.fidelity]);
            if (t->trace)
                trace_instant(t->trace, t->host_marks, t->sim_offset_ps + machine_now(t->machine),
                              "fidelity switch", &TRACE_STR("to", fid_names[t->o.fidelity]), 1,
                              NULL);
        }
        if (feed_step(t, k))
            return -1;
        if (t->trace)
            machine_record_busy(t->machine, tr, tr ? (size_t)t->o.trace_max : 0);
        if ((rc = machine_step(t->machine, &info, &e))) {
            fprintf(stderr, "\nflashstream train: step %" PRIu64 " failed: %s\n", k, e.msg);
            /* a page failed every read retry (flash_fms): the step's data are lost; the code,
             * not the message, says so (csim/err.h) */
            t->flash_lost = rc == -EBADMSG;
            return -1;
        }
        if (t->golden_ok && golden_step(t, k, info.loss))
            return -1;
        if (!perf(t) && !(isfinite(info.loss) && info.loss <= LOSS_DIVERGED)) {
            if (t->mode == PROG_BAR)
                printf("\r\033[K");
            fflush(stdout);
            fprintf(stderr,
                    "flashstream train: step %" PRIu64 ": the loss is %g: training diverged (a "
                    "loss must be finite and at most %g); try a smaller --lr than %g\n",
                    k, (double)info.loss, LOSS_DIVERGED, (double)run_opt(t)->lr);
            return -1;
        }
        t->last_loss = info.loss;
        t->images += t->o.batch;
        t->log_sum += info.loss;
        t->log_n++;
        loss_row(t, k, &info, lr);
        report_take_layers(&t->rep, t->sim_offset_ps, tr);
        if (tr)
            trace_step(t, k, &info, lr);
        *done = k + 1;
        if (t->log_n >= t->o.log_every || k + 1 == t->target)
            log_interval(t, k + 1, lr, info.end_ps);
        if (t->o.ckpt_every && (k + 1) % t->o.ckpt_every == 0 && checkpoint(t, k + 1))
            return -1;
        if ((k + 1) % t->bpe == 0 && !perf(t) && evaluate(t, k + 1))
            return -1;
        draw_bar(t, k + 1, false);
    }
    if (stop_requested && k < t->target)
        return 1;
    return 0;
}

/* ---------------------------------------------------------------- summary */

/* stats.json's meta: the command line and what it ran. */
static void describe_run(struct stats *s, const struct train *t, int argc, char **argv)
{
    char buf[1024];
    size_t len = 0;

    for (int i = 0; i < argc && len < sizeof(buf) - 1; i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "flashstream ",
                                argv[i]);
    stats_meta(s, "command", buf, NULL);
    stats_meta(s, "model", t->spec, NULL);
    stats_meta(s, "optimizer", opt_summary(run_opt(t), buf, sizeof(buf)), NULL);
    snprintf(buf, sizeof(buf), "%" PRIu64, t->o.seed);
    stats_meta(s, "seed", buf, NULL);
    snprintf(buf, sizeof(buf), "%" PRIu64 " ANs, batch %" PRIu64, t->o.nodes, t->o.batch);
    stats_meta(s, "machine", buf, NULL);
    snprintf(buf, sizeof(buf), "rtl for %" PRIu64 " steps, then %s", t->o.rtl_steps,
             fid_names[t->o.fidelity]);
    stats_meta(s, "fidelity", t->o.rtl_steps ? buf : fid_names[t->o.fidelity], NULL);
    if (t->o.resume)
        stats_meta(s, "resumed_from", t->o.resume, NULL);
}

static int write_stats(struct train *t, uint64_t steps, double wall, int argc, char **argv)
{
    struct stats *s;
    struct err e;
    char path[600];
    uint64_t sim = machine_now(t->machine);
    int rc = 0;

    if (stats_create(&s, &e)) {
        fprintf(stderr, "flashstream train: %s\n", e.msg);
        return -1;
    }
    describe_run(s, t, argc, argv);
    if (machine_ini_stats(&t->cfg, s, &e)) {
        fprintf(stderr, "flashstream train: %s\n", e.msg);
        stats_destroy(s);
        return -1;
    }

    report_counters(t->machine, s, "train");
    stats_set_u64(s, "train.steps", "count", "training steps run by this invocation", steps, NULL);
    stats_set_u64(s, "train.first_step", "count", "step the run started at (0, or resumed)",
                  t->start_step, NULL);
    stats_set_u64(s, "train.images", "count", "training images processed by this invocation",
                  t->images, NULL);
    stats_set_u64(s, "train.batches_per_epoch", "count", "batches of B in one epoch", t->bpe, NULL);
    stats_set_u64(s, "train.flash_fallbacks", "count",
                  "steps lost to an uncorrectable flash read, resumed from the last checkpoint",
                  t->fallbacks, NULL);
    stats_set_u64(s, "train.flash_fallback_lost_ps", "ps",
                  "simulated time from those checkpoints to the failures, summed",
                  t->fallback_lost_ps, NULL);
    if (!perf(t))
        stats_set_f64(s, "train.final_loss", "loss", "loss of the last step", t->last_loss, NULL);
    if (t->last_acc_step >= 0) {
        stats_set_f64(s, "train.test_accuracy", "ratio", "last test accuracy", t->last_acc, NULL);
        stats_set_u64(s, "train.test_accuracy_step", "count", "step it was measured after",
                      (uint64_t)t->last_acc_step, NULL);
    }
    stats_set_u64(s, "train.sim_time_ps", "ps", "simulated time of this invocation", sim, NULL);
    stats_set_u64(s, "train.sim_time_total_ps", "ps",
                  "simulated time including the run before the checkpoint resumed from",
                  t->sim_offset_ps + sim, NULL);
    stats_set_f64(s, "train.wall_s", "s", "wall-clock time of the training loop", wall, NULL);
    stats_set_f64(s, "train.wall_images_per_s", "images/s", "simulator speed",
                  wall > 0 ? (double)t->images / wall : 0.0, NULL);
    stats_set_f64(s, "train.sim_images_per_s", "images/s", "simulated machine throughput",
                  sim ? (double)t->images / ((double)sim * 1e-12) : 0.0, NULL);
    if (!perf(t))
        stats_set_u64(s, "train.params_digest", "fnv1a64",
                      "dnn_params_digest of the final weights and optimizer state",
                      dnn_params_digest(machine_params(t->machine)), NULL);
    report_layer_stats(&t->rep, s);
    snprintf(path, sizeof(path), "%s/stats.json", t->out_dir);
    if (stats_write_json(s, path, &e)) {
        fprintf(stderr, "flashstream train: %s\n", e.msg);
        rc = -1;
    }
    stats_destroy(s);
    return rc;
}

static int close_csv(struct stats_csv **c)
{
    struct err e;
    int rc = 0;

    if (*c && stats_csv_close(*c, &e)) {
        fprintf(stderr, "flashstream train: %s\n", e.msg);
        rc = -1;
    }
    *c = NULL;
    return rc;
}

static int write_outputs(struct train *t, uint64_t steps, double wall, int argc, char **argv)
{
    int rc = 0;

    rc |= write_stats(t, steps, wall, argc, argv);
    rc |= close_csv(&t->loss_csv);
    rc |= close_csv(&t->acc_csv);
    rc |= report_close_layers(&t->rep);
    rc |= close_csv(&t->timeline_csv);
    if (t->trace) {
        char path[600];
        struct err e;

        trace_meta(t->trace, "model", t->spec, NULL);
        snprintf(path, sizeof(path), "%s/trace.json", t->out_dir);
        if (trace_write(t->trace, path, &e)) {
            fprintf(stderr, "flashstream train: %s\n", e.msg);
            rc = -1;
        }
    }
    if (*t->waves_path) {
        struct err e;

        if (machine_trace_core_close(t->machine, 0, &e)) {
            fprintf(stderr, "flashstream train: cannot write the waves '%s': %s\n", t->waves_path,
                    e.msg);
            rc = -1;
        }
    }
    if (*t->write_waves_path) {
        struct err e;

        if (machine_trace_write_close(t->machine, 0, &e)) {
            fprintf(stderr, "flashstream train: cannot write the waves '%s': %s\n",
                    t->write_waves_path, e.msg);
            rc = -1;
        }
    }
    return rc ? -1 : 0;
}

static void print_where(struct train *t)
{
    const char *d = t->out_dir;

    printf("\noutputs:\n");
    printf("  %s/stats.json    every counter, with units        (jq . %s/stats.json)\n", d, d);
    printf("  %s/layers.csv    per step, layer and pass: phases and what each waited on\n", d);
    if (t->trace) {
        printf("  %s/trace.json    steps %" PRIu64 "..%" PRIu64
               ", one track per resource: open it in https://ui.perfetto.dev\n"
               "                   (Open trace file) or chrome://tracing",
               d, t->o.trace_from, t->o.trace_from + t->o.trace_steps - 1);
        if (trace_dropped(t->trace))
            printf("; %" PRIu64 " events over --trace-max %" PRIu64 " were dropped",
                   trace_dropped(t->trace), t->o.trace_max);
        printf("\n");
    }
    printf("  %s/loss.csv, accuracy.csv, timeline.csv   plots: scripts/plots/plot.sh %s\n", d, d);
    if (t->ckpt_step != UINT64_MAX)
        printf("  %s  step %" PRIu64 "; continue: flashstream train --resume %s [--epochs E | "
               "--steps S]\n",
               t->ckpt_path, t->ckpt_step, t->ckpt_path);
    if (*t->waves_path) {
        printf("  %s  the first %" PRIu64
               " rtl steps of AN 0's datapath, DMA and core (up to %" PRIu64 " cycles): gtkwave %s",
               t->waves_path, t->o.rtl_steps, t->o.wave_cycles, t->waves_path);
        if (access("waves/an.gtkw", R_OK) == 0)
            printf("  (signals grouped: gtkwave -a waves/an.gtkw %s)", t->waves_path);
        printf("\n");
    }
    if (*t->write_waves_path) {
        printf("  %s  the same steps of AN 0's NAND write pipeline: gtkwave %s",
               t->write_waves_path, t->write_waves_path);
        if (access("waves/nfw_lanes.gtkw", R_OK) == 0)
            printf("  (signals grouped: gtkwave -a waves/nfw_lanes.gtkw %s)", t->write_waves_path);
        printf("\n");
    }
}

static void cleanup(struct train *t)
{
    stats_csv_abort(t->loss_csv);
    stats_csv_abort(t->acc_csv);
    stats_csv_abort(t->timeline_csv);
    trace_destroy(t->trace);
    if (t->golden_ok)
        dnn_golden_fini(&t->golden);
    dnn_params_destroy(t->gold);
    dnn_params_destroy(t->resume_params);
    machine_destroy(t->machine);
    machine_ini_destroy(t->ini);
    dnn_idx_fini(&t->train_set);
    dnn_idx_fini(&t->test_set);
    free(t->order);
    free(t->chunk_images);
    free(t->chunk_labels);
    report_fini(&t->rep);
    if (t->lock_fd >= 0)
        close(t->lock_fd);
    free(t);
}

/* Everything a run needs after the model: the checkpoint of --resume, the data, the plan of
 * steps, the optimizer, the outputs, the machine; 0 or -1 (message printed). */
static int prepare(struct train *t)
{
    if (t->o.resume && adopt_checkpoint(t))
        return -1;
    if (load_data(t) || plan(t))
        return -1;
    if (!t->o.resume)
        build_opt(t);
    if (!t->o.log_every) {
        uint64_t n = t->target - t->start_step;

        t->o.log_every = n / 20 ? (n / 20 > 100 ? 100 : n / 20) : 1;
    }
    if (open_outputs(t) || make_machine(t) || start_waves(t))
        return -1;
    t->rep.m = t->machine;
    if (t->trace && report_open_trace(&t->rep, t->trace, t->host_layers))
        return -1;
    t->tty = isatty(STDOUT_FILENO);
    t->mode = t->o.progress == PROG_AUTO ? (t->tty ? PROG_BAR : PROG_PLAIN) : t->o.progress;
    return 0;
}

/* What is about to run. */
static void print_run_header(struct train *t)
{
    char obuf[200];

    if (perf(t))
        printf("flashstream train: %s (%" PRIu64 " parameters), %u samples per epoch, timing "
               "only (no data read)\n",
               t->spec, dnn_model_params(&t->model), t->train_set.count);
    else
        printf("flashstream train: %s (%" PRIu64 " parameters) on Fashion-MNIST, %u train / %u "
               "test samples\n",
               t->spec, dnn_model_params(&t->model), t->train_set.count, t->test_set.count);
    printf("  machine   1 Weight Node + %" PRIu64 " Activation Nodes, batch %" PRIu64 " (%" PRIu64
           " per node), %u batches per epoch\n",
           t->o.nodes, t->o.batch, t->o.batch / t->o.nodes, t->bpe);
    printf("  optimizer %s\n", opt_summary(&t->opt, obuf, sizeof(obuf)));
    if (t->o.rtl_steps)
        printf("  fidelity  rtl for steps %" PRIu64 "..%" PRIu64 "%s%s, then %s\n", t->start_step,
               t->start_step + t->o.rtl_steps - 1, *t->waves_path ? ", waves in " : "",
               t->waves_path, fid_names[t->o.fidelity]);
    else if (perf(t))
        printf("  fidelity  perf (payload-free: no numerics, loss nan, no test accuracy)\n");
    else
        printf("  fidelity  %s\n", fid_names[t->o.fidelity]);
    printf("  steps     %" PRIu64 "..%" PRIu64 " (seed %" PRIu64 "%s%s), outputs in %s/\n",
           t->start_step, t->target - 1, t->o.seed, t->o.resume ? ", resumed from " : "",
           t->o.resume ? t->o.resume : "", t->out_dir);
    fflush(stdout);
}

/* The training loop, with SIGINT and SIGTERM stopping it after the current step; train_loop's
 * result, *wall: its wall-clock seconds. */
static int run_loop(struct train *t, uint64_t *done, double *wall)
{
    struct sigaction sa = {.sa_handler = on_signal};
    int rc;

    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    t->t0 = cli_wall_s();
    rc = train_loop(t, done);
    *wall = cli_wall_s() - t->t0;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (t->mode == PROG_BAR)
        printf("\r\033[K");
    return rc;
}

/* After the loop stopped at step done (rc: train_loop's, 1 interrupted): a checkpoint if
 * interrupted, else the test accuracy at the last step; 0 or -1 (message printed). */
static int end_of_run(struct train *t, int rc, uint64_t done)
{
    if (perf(t)) { /* nothing to evaluate or save */
        if (rc > 0)
            printf("interrupted after step %" PRIu64 "\n", done);
        return 0;
    }
    if (rc > 0) {
        printf("interrupted after step %" PRIu64 "\n", done);
        if (done > t->start_step && checkpoint(t, done))
            return -1;
    } else if (t->last_acc_step != (int64_t)done && evaluate(t, done)) {
        return -1;
    }
    /* With --ckpt-every, the run also ends with a checkpoint (to continue with more epochs). */
    if (rc == 0 && t->o.ckpt_every && t->ckpt_step != done && done > t->start_step &&
        checkpoint(t, done))
        return -1;
    return 0;
}

/* The run's result line: accuracy, loss and weights, or (perf) the simulated time alone. */
static void print_result(const struct train *t, uint64_t sim)
{
    if (perf(t)) {
        printf("  simulated time %.3f ms (perf: no loss, accuracy or weights)\n",
               (double)(t->sim_offset_ps + sim) / 1e9);
        return;
    }
    if (t->last_acc_step < 0)
        printf("  no test accuracy (the run stopped before any evaluation)");
    else
        printf("  test accuracy %.4f", t->last_acc);
    printf(", loss of the last batch %.4f, simulated time %.3f ms, params digest %016" PRIx64
           "%s\n",
           t->last_loss, (double)(t->sim_offset_ps + sim) / 1e9,
           dnn_params_digest(machine_params(t->machine)),
           t->golden_ok ? " (golden check: equal)" : "");
}

/* One run of the command line; *fb: what a fallback to its last checkpoint needs. */
static int train_run(int argc, char **argv, unsigned fallbacks, uint64_t lost_ps,
                     struct fallback *fb)
{
    struct train *t = calloc(1, sizeof(*t));
    struct err e;
    uint64_t done = 0;
    double wall;
    int rc, status = 1;

    memset(fb, 0, sizeof(*fb));
    if (!t) {
        fprintf(stderr, "flashstream train: out of memory\n");
        return 1;
    }
    t->fallbacks = fallbacks;
    t->fallback_lost_ps = lost_ps;
    t->last_acc_step = -1;
    t->ckpt_step = UINT64_MAX;
    t->lock_fd = -1;
    rc = parse(argc, argv, t);
    if (rc) {
        status = rc > 0 ? 0 : 2;
        goto out;
    }
    if (build_model(t)) {
        status = 2;
        goto out;
    }
    if (t->o.only == ONLY_SHOW_CONFIG) {
        show_config(t);
        status = 0;
        goto out;
    }
    struct machine_cfg wanted = *machine_ini_cfg(t->ini);
    wanted.fidelity = (enum machine_fidelity)t->o.fidelity;
    if (machine_cfg_supported(&wanted, &e)) {
        fprintf(stderr, "flashstream train: %s\n", e.msg);
        status = 2;
        goto out;
    }
    if (t->o.only) {
        status = compile_or_validate(t);
        goto out;
    }
    if (prepare(t))
        goto out;
    print_run_header(t);
    rc = run_loop(t, &done, &wall);
    if (rc < 0)
        goto out;
    if (end_of_run(t, rc, done))
        goto out;

    uint64_t steps = done - t->start_step, sim = machine_now(t->machine);
    printf("\ntrained %" PRIu64 " steps (%" PRIu64 " images) in %.1f s wall: %.0f images/s "
           "simulated by the host, %.0f images/s on the simulated machine\n",
           steps, t->images, wall, wall > 0 ? (double)t->images / wall : 0.0,
           sim ? (double)t->images / ((double)sim * 1e-12) : 0.0);
    print_result(t, sim);
    report_where(&t->rep, steps);
    report_endurance(t->machine);
    if (write_outputs(t, steps, wall, argc, argv))
        goto out;
    print_where(t);
    status = rc > 0 ? 130 : 0;
out:
    if (t->flash_lost &&
        (t->ckpt_step != UINT64_MAX || (t->o.resume && same_file(t->o.resume, t->ckpt_path)))) {
        fb->possible = true;
        snprintf(fb->ckpt, sizeof(fb->ckpt), "%s", t->ckpt_path);
        uint64_t from = t->ckpt_step != UINT64_MAX ? t->ckpt_sim_ps : t->sim_offset_ps;
        uint64_t at = t->sim_offset_ps + machine_now(t->machine);

        fb->step = t->ckpt_step != UINT64_MAX ? t->ckpt_step : t->start_step;
        fb->seed = t->faults.seed;
        fb->lost_ps = at > from ? at - from : 0;
        /* the history so far into loss.csv and accuracy.csv, where the run resumed from the
         * checkpoint keeps the rows before it (keep_history) */
        if (close_csv(&t->loss_csv) || close_csv(&t->acc_csv))
            fb->possible = false;
    }
    fflush(stdout);
    cleanup(t);
    return status;
}

#define MAX_FALLBACKS 8

/*
 * flashstream train: a step lost to an uncorrectable flash read (a page that failed every read
 * retry, on any stream) falls back to the run's last checkpoint and resumes from it, as
 * --resume would (bit-exact), with the fault draws reseeded (seed + 1 each time: the same seed
 * would draw the same failure again); at most MAX_FALLBACKS times. Without a checkpoint the run
 * stops with the report.
 */
int cmd_train(int argc, char **argv)
{
    char **args = calloc((size_t)argc + 5, sizeof(*args)), seed[48], ckpt[sizeof(fb_ckpt_t)];
    struct fallback fb;
    uint64_t lost = 0;
    int status;

    if (!args) {
        fprintf(stderr, "flashstream train: out of memory\n");
        return 1;
    }
    memcpy(args, argv, (size_t)argc * sizeof(*args));
    for (unsigned n = 0;; n++) {
        status = train_run(n ? argc + 4 : argc, args, n, lost, &fb);
        if (status != 1 || !fb.possible || n == MAX_FALLBACKS)
            break;
        lost += fb.lost_ps;
        snprintf(seed, sizeof(seed), "seed:n=%" PRIu64, fb.seed + 1);
        fprintf(stderr,
                "flashstream train: falling back to the checkpoint of step %" PRIu64
                " (%s; %.3f ms of simulated time lost), the fault draws reseeded (%s); fallback "
                "%u of at most %d\n",
                fb.step, fb.ckpt, (double)fb.lost_ps / 1e9, seed, n + 1, MAX_FALLBACKS);
        snprintf(ckpt, sizeof(ckpt), "%s", fb.ckpt); /* fb is the next run's */
        args[argc] = "--resume";
        args[argc + 1] = ckpt;
        args[argc + 2] = "--fault";
        args[argc + 3] = seed;
    }
    free(args);
    return status;
}
