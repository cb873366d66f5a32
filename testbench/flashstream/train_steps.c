/*
 * train_steps.c - `flashstream train`: the step loop, its progress, records, evaluations and
 * checkpoints; see train.c.
 */
#define _DEFAULT_SOURCE
#include "testbench/flashstream/train_priv.h"

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
    train_fmt_hms(done ? el / (double)done * (double)left : 0, eta, sizeof(eta));
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

    train_fmt_hms(done ? el / (double)done * (double)(t->target - k_done) : 0, eta, sizeof(eta));
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
            stats_csv_fixed(t->timeline_csv, train_ps_us(x->start_ps - info->start_ps), 6, NULL);
            stats_csv_fixed(t->timeline_csv, train_ps_us(x->end_ps - info->start_ps), 6, NULL);
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

int train_evaluate(struct train *t, uint64_t step_done)
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
    stats_csv_fixed(t->acc_csv, train_ps_us(t->sim_offset_ps + machine_now(t->machine)), 3, NULL);
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
bool train_same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Write the checkpoint of step_done; 0, or -1 with the message on stderr (whatever --progress
 * says: a run that was asked for checkpoints and cannot write them must not go on unnoticed). */
int train_checkpoint(struct train *t, uint64_t step_done)
{
    struct ckpt_run run = {.seed = t->o.seed,
                           .epoch = step_done / t->bpe,
                           .batch = step_done % t->bpe,
                           .sim_time_ps = t->sim_offset_ps + machine_now(t->machine),
                           .batch_size = (uint32_t)t->o.batch,
                           .nodes = (uint32_t)t->o.nodes,
                           .samples = t->train_set.count,
                           .machine = t->machine_text};
    struct err e;

    /* The rows of the steps the checkpoint holds go to disk first: a run killed later leaves
     * them in its temporary files, where a resumed run finds them (keep_history). A failure is
     * sticky and reported when the tables are committed. */
    stats_csv_flush(t->loss_csv, NULL);
    stats_csv_flush(t->acc_csv, NULL);
    stats_csv_flush(t->rep.layers_csv, NULL);
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
        else if (t->o.resume && train_same_file(t->o.resume, t->ckpt_path))
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
    train_batch_of(t, k, img, lab);
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
    train_csv_f32(t->loss_csv, info->loss);
    train_csv_f32(t->loss_csv, lr);
    stats_csv_fixed(t->loss_csv, train_ps_us(t->sim_offset_ps + info->end_ps), 6, NULL);
    stats_csv_fixed(t->loss_csv, train_ps_us(info->end_ps - info->start_ps), 6, NULL);
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
const struct dnn_opt *train_run_opt(const struct train *t)
{
    const struct dnn_params *p = machine_params(t->machine);
    return p ? &p->opt : &t->opt;
}

int train_loop(struct train *t, uint64_t *done)
{
    struct err e;
    uint64_t k;
    int rc;

    *done = t->start_step;
    for (k = t->start_step; k < t->target && !train_stop_requested; k++) {
        struct machine_step_info info;
        bool tr = traced(t, k);
        float lr = dnn_params_lr(train_run_opt(t), k);

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
        if (train_feed_step(t, k))
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
        if (!train_perf(t) && !(isfinite(info.loss) && info.loss <= LOSS_DIVERGED)) {
            if (t->mode == PROG_BAR)
                printf("\r\033[K");
            fflush(stdout);
            fprintf(stderr,
                    "flashstream train: step %" PRIu64 ": the loss is %g: training diverged (a "
                    "loss must be finite and at most %g); try a smaller --lr than %g\n",
                    k, (double)info.loss, LOSS_DIVERGED, (double)train_run_opt(t)->lr);
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
        if (t->o.ckpt_every && (k + 1) % t->o.ckpt_every == 0 && train_checkpoint(t, k + 1))
            return -1;
        if ((k + 1) % t->bpe == 0 && !train_perf(t) && train_evaluate(t, k + 1))
            return -1;
        draw_bar(t, k + 1, false);
    }
    if (train_stop_requested && k < t->target)
        return 1;
    return 0;
}
