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
#include "testbench/flashstream/train_priv.h"

volatile sig_atomic_t train_stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    train_stop_requested = 1;
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

    CLI_ROW_CONFIG(struct train_opts, grp_machine, ""),
    CLI_ROW_SET(struct train_opts, grp_machine, MAX_SETS, "SECTION.KEY=VALUE", ""),
    CLI_ROW_FAULT(struct train_opts, grp_machine, MAX_SETS,
                  "; a fault the machine\ncannot absorb stops the run with its report, the last\n"
                  "checkpoint intact"),

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
             "length (--lr and the schedule options set another one);\n"
             "on the machine the checkpoint ran on (--config, --set and\n"
             "--fault as the run had them), else refused naming the keys"),
     CLI_STR(TRAIN_FIELD(resume))},
    {CLI_OPT("machine-change", NULL, grp_outputs,
             "with --resume: go on on this machine although it is not\n"
             "the checkpoint's; stats.json records the keys that changed\n"
             "and the step"),
     CLI_FLAG(TRAIN_FIELD(machine_change))},
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
    if (o->machine_change && !o->resume) {
        fprintf(stderr, "flashstream train: --machine-change is an option of --resume: it lets a "
                        "run resumed from a checkpoint go on on another machine\n");
        return -1;
    }
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
    free(t->machine_text);
    free(t->machine_before);
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
    if (t->o.resume && train_adopt_checkpoint(t))
        return -1;
    if (train_load_data(t) || train_plan(t))
        return -1;
    if (!t->o.resume)
        train_build_opt(t);
    if (!t->o.log_every) {
        uint64_t n = t->target - t->start_step;

        t->o.log_every = n / 20 ? (n / 20 > 100 ? 100 : n / 20) : 1;
    }
    if (train_open_outputs(t) || train_make_machine(t) || train_start_waves(t))
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

    if (train_perf(t))
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
    printf("  optimizer %s\n", train_opt_summary(&t->opt, obuf, sizeof(obuf)));
    if (t->o.rtl_steps)
        printf("  fidelity  rtl for steps %" PRIu64 "..%" PRIu64 "%s%s, then %s\n", t->start_step,
               t->start_step + t->o.rtl_steps - 1, *t->waves_path ? ", waves in " : "",
               t->waves_path, fid_names[t->o.fidelity]);
    else if (train_perf(t))
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
    if (train_perf(t)) { /* nothing to evaluate or save */
        if (rc > 0)
            printf("interrupted after step %" PRIu64 "\n", done);
        return 0;
    }
    if (rc > 0) {
        printf("interrupted after step %" PRIu64 "\n", done);
        if (done > t->start_step && train_checkpoint(t, done))
            return -1;
    } else if (t->last_acc_step != (int64_t)done && train_evaluate(t, done)) {
        return -1;
    }
    /* With --ckpt-every, the run also ends with a checkpoint (to continue with more epochs). */
    if (rc == 0 && t->o.ckpt_every && t->ckpt_step != done && done > t->start_step &&
        train_checkpoint(t, done))
        return -1;
    return 0;
}

/* The run's result line: accuracy, loss and weights, or (perf) the simulated time alone. */
static void print_result(const struct train *t, uint64_t sim)
{
    if (train_perf(t)) {
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
    if (train_build_model(t)) {
        status = 2;
        goto out;
    }
    if (t->o.only == ONLY_SHOW_CONFIG) {
        train_show_config(t);
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
        status = train_compile_or_validate(t);
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
    if (train_write_outputs(t, steps, wall, argc, argv))
        goto out;
    train_print_where(t);
    status = rc > 0 ? 130 : 0;
out:
    if (t->flash_lost && (t->ckpt_step != UINT64_MAX ||
                          (t->o.resume && train_same_file(t->o.resume, t->ckpt_path)))) {
        fb->possible = true;
        snprintf(fb->ckpt, sizeof(fb->ckpt), "%s", t->ckpt_path);
        uint64_t from = t->ckpt_step != UINT64_MAX ? t->ckpt_sim_ps : t->sim_offset_ps;
        uint64_t at = t->sim_offset_ps + machine_now(t->machine);

        fb->step = t->ckpt_step != UINT64_MAX ? t->ckpt_step : t->start_step;
        fb->seed = t->faults.seed;
        fb->lost_ps = at > from ? at - from : 0;
        /* the history so far into loss.csv, accuracy.csv and layers.csv, where the run resumed
         * from the checkpoint keeps the rows before it (keep_history) */
        if (train_close_csv(&t->loss_csv) || train_close_csv(&t->acc_csv) ||
            report_close_layers(&t->rep))
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
