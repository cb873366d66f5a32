/*
 * train_outputs.c - `flashstream train`: the outputs, their history on --resume, and what is
 * written at the end; see train.c.
 */
#define _DEFAULT_SOURCE
#include "testbench/flashstream/train_priv.h"

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
    bool per_step; /* rows of a step together, steps in order (layers.csv): not one a step */
};

static const struct hist_kind hist_loss = {"loss.csv", 7, loss_cols, 0, false};
static const struct hist_kind hist_acc = {"accuracy.csv", 6, acc_cols, 1, false};

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
        if (*kept && (k->per_step ? step < prev : loss ? step != prev + 1 : step <= prev)) {
            snprintf(why, wlen, "line %" PRIu64 ": step %" PRIu64 " after step %" PRIu64 "%s", row,
                     step, prev, loss ? " (one row per step, in order)" : "");
            goto out;
        }
        if (loss && !k->per_step && (!field_u64(field[1], &epoch) || epoch != step / t->bpe)) {
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
        if (loss && !k->per_step && step + 1 == before) {
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
    /* layers.csv: the rows of the steps before the checkpoint, if the file is this run's (its
     * rows as loss.csv's: a killed run's from its temporary, else none kept) */
    char lay[800];
    const char *cols[REPORT_LAYERS_COLS];
    struct hist_kind hist_layers = {"layers.csv", report_layers_cols(&t->rep, cols), cols, 0, true};

    snprintf(lay, sizeof(lay), "%s/layers.csv", t->out_dir);
    if (src_pid) {
        lay[0] = '\0';
        d = opendir(t->out_dir);
        for (struct dirent *de; d && (de = readdir(d));)
            if (dead_tmp_pid(de->d_name, "layers.csv") == src_pid)
                snprintf(lay, sizeof(lay), "%s/%s", t->out_dir, de->d_name);
        if (d)
            closedir(d);
    }
    if (lay[0] && !lstat(lay, &st)) {
        uint64_t n, f0, l0;

        if (read_history(t, lay, &hist_layers, before, NULL, &n, &f0, &l0, why, sizeof(why)))
            printf("resume: %s: %s; layers.csv starts at step %" PRIu64 "\n", lay, why, before);
        else
            read_history(t, lay, &hist_layers, before, t->rep.layers_csv, &n, &f0, &l0, why,
                         sizeof(why));
    }
    if (stats_csv_flush(t->loss_csv, NULL) || stats_csv_flush(t->acc_csv, NULL) ||
        stats_csv_flush(t->rep.layers_csv, NULL))
        return 0; /* reported when the tables are committed */
    if (src_pid) {
        printf("resume: recovered the history of steps %" PRIu64 "..%" PRIu64
               " from %s, left by a run that was killed\n",
               first, last, src);
        unlink(src);
        if (strstr(acc, ".tmp."))
            unlink(acc);
        if (strstr(lay, ".tmp."))
            unlink(lay);
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

int train_open_outputs(struct train *t)
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
    if (cli_lock_dir("train", t->out_dir, &t->lock_fd))
        return -1;
    snprintf(t->ckpt_path, sizeof(t->ckpt_path), "%s/checkpoint.ckpt", t->out_dir);
    t->loss_csv = open_csv(t, "loss.csv", 7, loss_cols);
    t->acc_csv = open_csv(t, "accuracy.csv", 6, acc_cols);
    t->timeline_csv = open_csv(t, "timeline.csv", 4, timeline_cols);
    snprintf(path, sizeof(path), "%s/layers.csv", t->out_dir);
    if (report_init(&t->rep, NULL, "train", t->model.n_layers, NULL))
        return -1;
    t->rep.step_offset = t->start_step; /* a resumed run's rows go on from its checkpoint */
    if (!t->loss_csv || !t->acc_csv || !t->timeline_csv || report_open_layers(&t->rep, path))
        return -1;
    if (t->o.resume && keep_history(t))
        return -1;
    return t->o.trace_steps ? open_trace(t) : 0;
}

int train_start_waves(struct train *t)
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
    train_dir_of(t->waves_path, dir, sizeof(dir));
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
    stats_meta(s, "optimizer", train_opt_summary(train_run_opt(t), buf, sizeof(buf)), NULL);
    snprintf(buf, sizeof(buf), "%" PRIu64, t->o.seed);
    stats_meta(s, "seed", buf, NULL);
    snprintf(buf, sizeof(buf), "%" PRIu64 " ANs, batch %" PRIu64, t->o.nodes, t->o.batch);
    stats_meta(s, "machine", buf, NULL);
    snprintf(buf, sizeof(buf), "rtl for %" PRIu64 " steps, then %s", t->o.rtl_steps,
             fid_names[t->o.fidelity]);
    stats_meta(s, "fidelity", t->o.rtl_steps ? buf : fid_names[t->o.fidelity], NULL);
    if (t->o.resume)
        stats_meta(s, "resumed_from", t->o.resume, NULL);
    if (t->machine_before) {
        snprintf(buf, sizeof(buf), "%" PRIu64, t->start_step);
        stats_meta(s, "machine_changed_at_step", buf, NULL);
        stats_meta(s, "machine_before", t->machine_before, NULL);
    }
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
    if (!train_perf(t))
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
    if (!train_perf(t))
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

int train_close_csv(struct stats_csv **c)
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

int train_write_outputs(struct train *t, uint64_t steps, double wall, int argc, char **argv)
{
    int rc = 0;

    rc |= write_stats(t, steps, wall, argc, argv);
    rc |= train_close_csv(&t->loss_csv);
    rc |= train_close_csv(&t->acc_csv);
    rc |= report_close_layers(&t->rep);
    rc |= train_close_csv(&t->timeline_csv);
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

void train_print_where(struct train *t)
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
