/*
 * train_setup.c - `flashstream train`: the model, the optimizer, the checkpoint of --resume, the
 * data and the machine, and the data fed step by step; see train.c.
 */
#define _DEFAULT_SOURCE
#include "testbench/flashstream/train_priv.h"

/* ---------------------------------------------------------------- helpers */

/* The directory part of path ("." if none) into buf. */
void train_dir_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');

    if (!slash)
        snprintf(buf, len, ".");
    else
        snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

void train_fmt_hms(double s, char *buf, size_t len)
{
    uint64_t t = s > 0 && s < 1e9 ? (uint64_t)(s + 0.5) : 0;

    if (t >= 3600)
        snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", t / 3600, t / 60 % 60);
    else
        snprintf(buf, len, "%" PRIu64 ":%02" PRIu64, t / 60, t % 60);
}

double train_ps_us(uint64_t ps)
{
    return (double)ps / 1e6;
}

/* A float as the shortest decimal that reads back to the same float ("0.05", not the
 * 0.05000000074505806 of its double). */
int train_csv_f32(struct stats_csv *c, float v)
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

const char *train_opt_summary(const struct dnn_opt *o, char *buf, size_t len)
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

int train_build_model(struct train *t)
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

void train_build_opt(struct train *t)
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
        clash = t->o.nodes_described ? "machine.activation_nodes" : "--nodes";
        snprintf(what, len, "%u nodes, the %s %" PRIu64, c->run.nodes,
                 t->o.nodes_described ? "machine description says" : "options say", t->o.nodes);
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
int train_adopt_checkpoint(struct train *t)
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

int train_load_data(struct train *t)
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
int train_plan(struct train *t)
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

/* t->machine_text: the machine of t->cfg as its checkpoints record it. 0, or -1 (message). */
static int record_machine(struct train *t)
{
    size_t n = machine_ini_assignments(&t->cfg, NULL, 0);

    t->machine_text = malloc(n + 1);
    if (!t->machine_text) {
        fprintf(stderr, "flashstream train: out of memory\n");
        return -1;
    }
    machine_ini_assignments(&t->cfg, t->machine_text, n + 1);
    return 0;
}

/* The keys on which the checkpoint's machine and this run's differ: the first few for the
 * message, every one with the checkpoint's value for stats.json. */
struct machine_diff {
    char shown[900]; /* the first four */
    size_t n_shown;  /* keys seen */
    char *before;    /* "section.key=value; ..." (NULL after a failed allocation) */
    size_t len;
    bool oom;
};

static void on_key_differs(void *user, const char *section, const char *key, const char *was,
                           const char *now)
{
    struct machine_diff *d = user;
    size_t at = strlen(d->shown), add = strlen(section) + strlen(key) + strlen(was) + 4;

    if (d->n_shown < 4 && at < sizeof(d->shown))
        snprintf(d->shown + at, sizeof(d->shown) - at, "%s%s.%s (the checkpoint's %s, now %s)",
                 d->n_shown ? ", " : "", section, key, was, now);
    d->n_shown++;
    char *b = realloc(d->before, d->len + add + 1);
    if (!b) {
        d->oom = true;
        return;
    }
    d->before = b;
    d->len +=
        (size_t)snprintf(b + d->len, add + 1, "%s%s.%s=%s", d->len ? "; " : "", section, key, was);
}

/*
 * --resume: the run goes on on the machine its checkpoint ran on. A checkpoint of format 1
 * records none (said once); another machine is refused naming the keys that differ, or with
 * --machine-change accepted, the keys kept for stats.json. 0, or -1 (message printed).
 */
static int check_resumed_machine(struct train *t)
{
    const struct ckpt_info *c = &t->resume_info;
    struct machine_diff d = {.n_shown = 0};
    struct machine_ini *was;
    struct err e;
    size_t n;

    if (!t->o.resume)
        return 0;
    if (!c->has_machine) {
        printf("resume: the checkpoint (format %u) does not record its machine: this run's is "
               "taken as it\n",
               c->version);
        return 0;
    }
    if (machine_ini_create(&was, &e) || machine_ini_apply(was, c->machine, &e)) {
        fprintf(stderr,
                "flashstream train: --resume %s: the checkpoint's machine does not read as one "
                "of this build: %s\n",
                t->o.resume, e.msg);
        machine_ini_destroy(was);
        return -1;
    }
    n = machine_ini_diff_each(machine_ini_cfg(was), &t->cfg, on_key_differs, &d);
    machine_ini_destroy(was);
    if (d.oom) {
        free(d.before);
        fprintf(stderr, "flashstream train: out of memory\n");
        return -1;
    }
    if (!n)
        return 0;
    if (!t->o.machine_change) {
        fprintf(stderr,
                "flashstream train: --resume %s: the checkpoint ran on another machine: %zu "
                "key%s differ%s: %s%s; give the --config, --set and --fault the run had, or "
                "--machine-change to go on on this one\n",
                t->o.resume, n, n > 1 ? "s" : "", n > 1 ? "" : "s", d.shown, n > 4 ? ", ..." : "");
        free(d.before);
        return -1;
    }
    printf("resume: the machine changes at step %" PRIu64 " (--machine-change): %zu key%s: %s%s\n",
           t->start_step, n, n > 1 ? "s" : "", d.shown, n > 4 ? ", ..." : "");
    t->machine_before = d.before;
    return 0;
}

/* Whether this host can hold the run's parameters: the Weight Node's fp32 masters, optimizer
 * state (SGD velocity; Adam m and v) and bf16 copies, as many again with --golden-check (the
 * golden trainer's own). perf keeps none. 0, or -ENOMEM with the figure in e. */

static int host_holds_params(const struct train *t, struct err *e)
{
    uint64_t state = t->opt.kind == DNN_OPT_ADAM ? 2 : 1;
    uint64_t per = 4 + 4 * state + 2, bytes;
    char what[160];

    if (train_perf(t))
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
int train_compile_or_validate(struct train *t)
{
    struct err e;
    uint64_t samples = t->o.train_samples ? t->o.train_samples : FM_TRAIN_SAMPLES;
    int rc;

    t->target = t->o.steps ? t->o.steps : t->o.epochs * (samples / t->o.batch);
    train_build_opt(t);
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
void train_show_config(struct train *t)
{
    build_machine_cfg(t, t->o.batch);
    machine_ini_write(stdout, &t->cfg,
                      "the machine's effective configuration (flashstream train --show-config)");
    fflush(stdout);
}

bool train_perf(const struct train *t)
{
    return t->o.fidelity == MACHINE_PERF;
}

int train_make_machine(struct train *t)
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
    if (record_machine(t) || check_resumed_machine(t))
        return -1;
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
    if (train_perf(t))
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
    if (train_perf(t))
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
int train_feed_step(struct train *t, uint64_t k)
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
void train_batch_of(struct train *t, uint64_t k, uint8_t *images, uint8_t *labels)
{
    uint32_t B = (uint32_t)t->o.batch;

    dnn_idx_gather(&t->train_set, t->order + (k % t->bpe) * B, B, images, labels);
}
