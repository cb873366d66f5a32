/*
 * flashstream perf: training iterations of a transformer of the model zoo (models/zoo) on the
 * simulated machine in the payload-free perf mode: the host compiler of models/host/compile_zoo
 * turns the model into a program of coarse commands whose every resource time is exact in
 * aggregate, and the machine runs it with no data (models/machine/machine.h, MACHINE_PERF).
 * docs/perf-mode.md says what is modelled and what is not.
 *
 * Outputs in --out: stats.json (the configuration, every counter, the run's figures),
 * layers.csv (per iteration, layer and pass, with the layer's block), gemms.csv (per GEMM kind
 * and role: FLOP, core and DMA time, utilisation), lifespan.csv (every tensor written to the V
 * stream: when written, when read back, on AN 0), trace.json (the first iteration, one track per
 * resource, capped by --trace-max). The last line of stdout:
 *   perf: <model> on <storage>: <x> s per iteration simulated, <y> sequences/s (<y/N> per
 *   Activation Node), wall <z> s
 */
#include "csim/afile.h"
#include "models/host/compile_zoo.h"
#include "models/machine/machine_ini.h"
#include "models/flash/ftl_layout.h"
#include "models/dma/dma_time.h"
#include "models/node/nflash.h"
#include "models/node/nssd.h"
#include "models/zoo/zoo.h"
#include "testbench/flashstream/budget.h"
#include "testbench/flashstream/cli.h"
#include "testbench/flashstream/commands.h"
#include "testbench/flashstream/report.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SETS 64

/* The order of enum machine_storage. */
static const char *const storage_names[] = {"behemoth", "ssd-raid0", "ideal"};
_Static_assert(MACHINE_STORAGE_N == 3, "storage_names follows enum machine_storage");
static const char *const opt_names[] = {"adam", "sgd"};

struct perf_opts {
    const char *config;
    const char *sets[MAX_SETS];
    int n_sets;
    const char *faults[MAX_SETS];
    int n_faults;
    const char *model, *routing;
    uint64_t batch, seq, iterations, pieces, trace_max;
    int storage; /* -1: the machine's storage.backend */
    int opt;     /* 0 adam, 1 sgd */
    bool flash_fit;
    bool validate_only;
    const char *out;
};

struct perf {
    struct perf_opts o;
    struct machine_ini *ini;
    struct machine_cfg cfg;
    struct zoo_model *model;
    struct dma_time *dma_time;
    struct hz_report rep_c;    /* what the compiler chose and what the program holds */
    struct hc_prog *prog;      /* until the machine owns it */
    const struct hc_prog *run; /* the program the machine runs */
    struct machine *m;
    const char **layer_names;
    struct report rep;
    struct trace *trace;
    char out[512];
    int lock_fd; /* out/CLI_LOCK_NAME, flock'ed while the run writes there; -1 none */
    double wall;
    uint64_t iter_ps;       /* simulated time of the last iteration */
    uint64_t iter_start_ps; /* ... and its start */
    uint64_t iters_ps;      /* simulated time of every iteration */
    struct budget budget;
};

#define PERF_FIELD(member) CLI_FIELD(struct perf_opts, member)

static const char grp_model[] = "workload", grp_machine[] = "machine", grp_outputs[] = "outputs";

static const struct cli_opt perf_options[] = {
    {CLI_OPT("model", "SPEC", grp_model,
             "gpt3-like:WxD or t5-like:WxD with W, D in 1, 2, 4 (default\n"
             "gpt3-like:1x1, GPT-3 175B; flashstream model --table lists them),\n"
             "or a Hugging Face config.json (LLaMA, Mistral, Qwen2, Mixtral,\n"
             "Qwen2-MoE, DeepSeek-V3; configs/models/)"),
     CLI_STR_OK(PERF_FIELD(model), cli_nonempty, "a model spec, e.g. gpt3-like:1x1")},
    {CLI_OPT("batch", "B", grp_model, "sequences per core (default 1)"),
     CLI_U64(PERF_FIELD(batch), 1, ZOO_MAX_BATCH)},
    {CLI_OPT("seq", "N", grp_model, "tokens per sequence (default 2048)"),
     CLI_U64(PERF_FIELD(seq), 1, ZOO_MAX_SEQ)},
    {CLI_OPT("routing", "uniform|zipf:S", grp_model,
             "a mixture of experts' routing: every expert the same tokens\n"
             "(default), or the i-th most used's share ~ 1 / i^S"),
     CLI_STR_OK(PERF_FIELD(routing), zoo_routing_ok, "uniform or zipf:S with S in (0, 8]")},
    {CLI_OPT("opt", "adam|sgd", grp_model,
             "optimizer at the Weight Node: its state per parameter (Adam\n"
             "2 fp32 words, SGD momentum 1) and update cost (default adam)"),
     CLI_ENUM(PERF_FIELD(opt), opt_names)},
    {CLI_OPT("iterations", "N", grp_model, "training iterations (default 1)"),
     CLI_U64(PERF_FIELD(iterations), 1, 1u << 20)},

    CLI_ROW_CONFIG(struct perf_opts, grp_machine, ""),
    CLI_ROW_SET(struct perf_opts, grp_machine, MAX_SETS, "SECTION.KEY=VALUE", ""),
    CLI_ROW_FAULT(struct perf_opts, grp_machine, MAX_SETS, ""),
    {CLI_OPT("storage", "behemoth|ideal|ssd-raid0", grp_machine,
             "where weights and activations live (default: the machine's\n"
             "storage.backend): every node's flash (behemoth), a RAID 0 of\n"
             "conventional SSDs per node (ssd-raid0, the paper's baseline;\n"
             "models/ssd), or an ideal store (flash, DMA and fabric free:\n"
             "the compute bound)"),
     CLI_ENUM(PERF_FIELD(storage), storage_names)},
    {CLI_OPT("flash-fit", NULL, grp_machine,
             "give each node the fewest chips per channel (behemoth) or\n"
             "SSDs (ssd-raid0), at least the machine's, whose streams hold\n"
             "the model: every W, M and O record at the Weight Node, an\n"
             "iteration's activations at each Activation Node"),
     CLI_FLAG(PERF_FIELD(flash_fit))},
    {CLI_OPT("pieces", "P", grp_machine,
             "pipeline stages per GEMM (DMA in, compute, DMA out; default\n"
             "4): the grain at which the DMA and the core overlap"),
     CLI_U64(PERF_FIELD(pieces), 1, HZ_MAX_PIECES)},

    {CLI_OPT("validate_only", NULL, grp_machine,
             "compile, print per layer and pass what one core holds in SRAM\n"
             "and an AN in its tensor buffer against their capacities, and\n"
             "exit (status 1, naming the first layer, if it does not fit)"),
     CLI_FLAG(PERF_FIELD(validate_only))},
    {CLI_ALIAS("validate-only", NULL), CLI_FLAG(PERF_FIELD(validate_only))},

    {CLI_OPT("out", "DIR", grp_outputs, "output directory (default out/perf)"),
     CLI_STR_OK(PERF_FIELD(out), cli_path_fits, "a directory of 1 to 400 characters")},
    {CLI_OPT("trace-max", "N", grp_outputs,
             "events kept in trace.json, of the first iteration (default\n"
             "1000000; 0: no trace)"),
     CLI_U64(PERF_FIELD(trace_max), 0, 1ull << 32)},
    {0},
};

#undef PERF_FIELD

static const struct cli_cmd perf_cli = {
    .name = "perf",
    .about = "Training iterations of a GPT3-like or T5-like model on the simulated machine in\n"
             "the payload-free perf mode: where the time goes, how fast, how long the flash\n"
             "lasts (docs/perf-mode.md).\n",
    .opts = perf_options,
};

static int fail(const char *what, const struct err *e)
{
    fprintf(stderr, "flashstream perf: %s%s%s\n", what, *what ? ": " : "", e->msg);
    return -1;
}

/* ---------------------------------------------------------------- building */

static int parse(int argc, char **argv, struct perf *p)
{
    struct perf_opts *o = &p->o;
    *o = (struct perf_opts){.model = "gpt3-like:1x1",
                            .batch = 1,
                            .seq = ZOO_SEQ,
                            .iterations = 1,
                            .pieces = 4,
                            .trace_max = TRACE_DEFAULT_MAX_EVENTS,
                            .storage = -1,
                            .out = "out/perf"};
    int rc = cli_parse(&perf_cli, argc, argv, o, NULL);
    if (rc)
        return rc;
    if (cli_machine(&perf_cli, o->config, o->sets, o->n_sets, NULL, &p->ini))
        return -1;
    p->cfg = *machine_ini_cfg(p->ini);
    struct flash_fault_cfg faults;
    if (cli_faults(&perf_cli, &p->cfg.an_flash.fault, o->faults, o->n_faults, &faults))
        return -1;
    machine_cfg_set_faults(&p->cfg, &faults);
    if (o->storage >= 0)
        p->cfg.storage = (enum machine_storage)o->storage;
    p->cfg.fidelity = MACHINE_PERF;
    snprintf(p->out, sizeof(p->out), "%s", o->out);
    struct err e;
    struct zoo_opts zo = {.batch = (uint32_t)o->batch, .seq = (uint32_t)o->seq};
    if ((o->routing && zoo_routing_parse(o->routing, &zo.zipf, &e)) ||
        zoo_build_with(o->model, &zo, &p->model, &e))
        return fail("", &e);
    if (p->model->ignored[0])
        fprintf(stderr, "flashstream perf: %s: fields that do not change the timing, ignored: %s\n",
                o->model, p->model->ignored);
    return 0;
}

/* The compiler's view of the machine. */
static void hz_of(const struct perf *p, struct hz_cfg *h)
{
    const struct machine_cfg *c = &p->cfg;
    bool adam = p->o.opt == 0;

    *h = (struct hz_cfg){.model = p->model,
                         .n_an = c->n_an,
                         .cores = c->cores_per_an,
                         .core = c->core,
                         .vu = c->vu,
                         .core_period_ps = c->core_period_ps,
                         .tb_bytes_per_s = (uint64_t)c->tb.channels * c->tb.chan_mbps * 1000000,
                         .opt_lanes = c->optu.lanes,
                         .opt_latency = c->optu.latency,
                         .opt_cost = adam ? c->optu.cost_adam : c->optu.cost_sgd,
                         .opt_state_words = adam ? 2 : 1,
                         .pieces = (uint32_t)p->o.pieces,
                         .dma_time = p->dma_time,
                         .sram_bytes = c->sram_bytes,
                         .sram_bytes_per_cycle = c->sram_bytes_per_cycle,
                         .dma_bytes_per_cycle = c->dma_bytes_per_cycle,
                         .tb_size_bytes = c->tb.size_bytes,
                         .multicast = c->multicast};
}

/* Bytes of every record of stream s. */
static uint64_t stream_need(const struct hc_prog *g, enum hc_stream s)
{
    uint64_t sum = 0;
    for (uint32_t r = 0; g->rec_size[s] && r < g->n_rec[s]; r++)
        sum += g->rec_size[s][r];
    return sum;
}

/* The largest record of stream s. */
static uint64_t largest_rec(const struct hc_prog *g, enum hc_stream s)
{
    uint64_t m = 0;
    for (uint32_t r = 0; g->rec_size[s] && r < g->n_rec[s]; r++)
        m = g->rec_size[s][r] > m ? g->rec_size[s][r] : m;
    return m;
}

/*
 * With machine.write_pipe = on the nodes time every flash write page by page with the NAND
 * write pipeline's cycle-level twin (models/nfw/nfw_time.h), which moves about 6.4 GB of writes
 * per second of host time (docs/performance.md); the zoo's models write terabytes. A run past
 * TWIN_MAX_BYTES is refused before anything is timed, saying what to give instead.
 */
#define TWIN_MAX_BYTES        (64ull << 30)
#define TWIN_HOST_BYTES_PER_S 6.4e9

static int twin_bound(const struct perf *p, const struct hc_prog *g)
{
    uint64_t bytes = 0;

    if (!p->cfg.write_pipe || p->cfg.storage != MACHINE_STORAGE_BEHEMOTH)
        return 0;
    for (uint32_t i = 0; i < g->n_cmd; i++)
        if (g->cmd[i].kind == HC_FLASH_WR)
            bytes += g->cmd[i].bytes;
    bytes *= p->o.iterations;
    for (int s = HC_S_W; s <= HC_S_O; s++) /* the Weight Node's preload */
        bytes += stream_need(g, (enum hc_stream)s);
    if (bytes <= TWIN_MAX_BYTES)
        return 0;
    fprintf(stderr,
            "flashstream perf: machine.write_pipe = on times every flash write page by page with "
            "the NAND write pipeline's twin, and %s writes %.1f TB: about %.0f min of host time. "
            "Give --set machine.write_pipe=off (the flash's own write path, as "
            "configs/behemoth-paper.ini has it) or --config configs/behemoth-paper.ini\n",
            p->o.model, (double)bytes / 1e12, (double)bytes / TWIN_HOST_BYTES_PER_S / 60);
    return -1;
}

/* One kind of node: its layout, its streams (in the order the node creates them) and what
 * they must hold. */
struct fit {
    const char *node;
    struct ftl_layout layout;
    const char *const *names;
    uint32_t n;
    uint64_t need[3], room[3];
};

/* Whether every stream of fit holds its need: the FMS of f, or (drive) an SSD array. */
static bool fits(const struct fit *ft, const struct flash_cfg *f, const struct ssd_cfg *drive,
                 uint32_t grain)
{
    for (uint32_t i = 0; i < ft->n; i++) {
        uint64_t bytes, unit;
        if (drive)
            nssd_stream_size(drive, grain, &ft->layout, ft->names, ft->n, ft->names[i], &bytes,
                             &unit);
        else
            nflash_stream_size(&ft->layout, &f->geom, ft->names[i], &bytes, &unit);
        if (bytes < ft->need[i] + ft->room[i] + 2 * unit)
            return false;
    }
    return true;
}

/* The fewest chips per channel (behemoth) or SSDs (ssd-raid0), from the machine's, whose
 * streams hold ft. 0, or -1 with the message printed. */
static int fit_node(struct perf *p, const struct fit *ft, struct flash_cfg *f,
                    struct ssd_cfg *drive)
{
    bool ssd = p->cfg.storage == MACHINE_STORAGE_SSD_RAID0;
    uint32_t *knob = ssd ? &drive->raid_ssds : &f->geom.chips_per_chan;
    struct ssd_cfg coarse;
    struct err e;

    /* A drive the grain cannot make is named as such, not as one too small. */
    if (ssd &&
        (ssd_cfg_coarse(drive, p->cfg.ssd_grain, &coarse, &e) || ssd_cfg_validate(&coarse, &e)))
        return fail(ft->node, &e);
    for (uint32_t v = *knob; v <= 64; v++) {
        uint32_t was = *knob;
        *knob = v;
        if (fits(ft, f, ssd ? drive : NULL, p->cfg.ssd_grain))
            return 0;
        *knob = was;
    }
    fprintf(stderr,
            "flashstream perf: --flash-fit: the %s's %s cannot hold %s within 64 %s; "
            "give it more (--set)\n",
            ft->node, ssd ? "SSD array" : "flash", p->model->spec,
            ssd ? "SSDs" : "chips per channel");
    return -1;
}

/* --flash-fit: both kinds of node. A stream keeps room for its largest record besides the model
 * (a new version is appended before the old one is freed) and two of its units (logical blocks
 * or the SSD allocator's pages). */
static int fit_flash(struct perf *p, const struct hc_prog *g)
{
    struct fit w = {.node = "Weight Node", .names = HC_WN_STREAMS, .n = 3},
               a = {.node = "Activation Node", .names = HC_AN_STREAMS, .n = 2};
    for (int i = 0; i < 3; i++) {
        w.need[i] = stream_need(g, (enum hc_stream)(HC_S_W + i));
        w.room[i] = largest_rec(g, (enum hc_stream)(HC_S_W + i));
    }
    a.need[1] = stream_need(g, HC_S_V);
    ftl_layout_wn(&w.layout);
    ftl_layout_an(&a.layout);
    if (fit_node(p, &w, &p->cfg.wn_flash, &p->cfg.wn_ssd) ||
        fit_node(p, &a, &p->cfg.an_flash, &p->cfg.an_ssd))
        return -1;
    return 0;
}

/* --validate_only: per layer and pass (runs of equal rows as one), the SRAM one core holds and
 * what an AN's tensor buffer holds, against their capacities. */
static void print_use(const struct perf *p)
{
    const struct hz_report *r = &p->rep_c;
    const struct machine_cfg *c = &p->cfg;
    static const char *const pass_name[2] = {"fwd", "bwd"};

    printf("what the program holds, per layer and pass: one core's SRAM (capacity %.1f MB%s), "
           "an AN's tensor buffer (capacity %.2f GB)\n",
           (double)c->sram_bytes / 1e6, c->sram_bytes ? "" : ": the pads alone",
           (double)c->tb.size_bytes / 1e9);
    printf("  %-18s %-4s %10s %10s %10s %10s %10s\n", "layer", "pass", "SRAM MB", "TB GB",
           "weights", "gradients", "acts");
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < r->n_layers;) {
            uint32_t l = pass ? r->n_layers - 1 - i : i, j = i + 1;
            const struct hz_layer_use *u = &r->use[pass][l];
            for (; j < r->n_layers; j++) {
                uint32_t m = pass ? r->n_layers - 1 - j : j;
                const struct hz_layer_use *v = &r->use[pass][m];
                if (strcmp(p->layer_names[m], p->layer_names[l]) || memcmp(u, v, sizeof(*u)))
                    break;
            }
            uint32_t a = (pass ? r->n_layers - j : i) + 1, b = (pass ? l : j - 1) + 1;
            char name[64];
            if (a == b)
                snprintf(name, sizeof(name), "%u %s", a, p->layer_names[l]);
            else
                snprintf(name, sizeof(name), "%u-%u %s", a, b, p->layer_names[l]);
            printf("  %-18s %-4s %10.1f %10.2f %10.2f %10.2f %10.2f%s\n", name, pass_name[pass],
                   (double)u->sram_peak / 1e6, (double)u->tb_peak / 1e9,
                   (double)u->tb_weights / 1e9, (double)u->tb_grads / 1e9, (double)u->tb_acts / 1e9,
                   u->tb_peak > c->tb.size_bytes ? "  does not fit" : "");
            i = j;
        }
}

static int build(struct perf *p)
{
    struct err e;
    struct hz_cfg h;

    if (dma_time_create_core(&p->cfg.dma, &p->cfg.core, &p->cfg.tb, p->cfg.core_period_ps,
                             &p->dma_time, &e))
        return fail("the AN's DMA", &e);
    uint32_t layers = 0;
    for (uint32_t b = 0; b < p->model->n_blocks; b++)
        layers += p->model->blocks[b].repeat;
    p->layer_names = calloc(layers, sizeof(*p->layer_names));
    if (!p->layer_names) {
        fprintf(stderr, "flashstream perf: out of memory\n");
        return -1;
    }
    for (uint32_t b = 0, l = 0; b < p->model->n_blocks; b++)
        for (uint32_t i = 0; i < p->model->blocks[b].repeat; i++)
            p->layer_names[l++] = p->model->blocks[b].name;
    hz_of(p, &h);
    int rc = hz_compile_report(&h, &p->prog, &p->rep_c, &e);
    if (p->o.validate_only && p->rep_c.use[0])
        print_use(p);
    if (rc)
        return fail(p->o.model, &e);
    if (p->o.validate_only)
        return 1;
    if (twin_bound(p, p->prog) ||
        (p->o.flash_fit && p->cfg.storage != MACHINE_STORAGE_IDEAL && fit_flash(p, p->prog)))
        return -1;
    p->cfg.opt = p->o.opt == 0 ? (struct dnn_opt){.kind = DNN_OPT_ADAM}
                               : (struct dnn_opt){.kind = DNN_OPT_SGD};
    struct hc_prog *prog = p->prog;
    p->prog = NULL; /* the machine owns it from here, and frees it on failure */
    rc = machine_create_program(&p->cfg, prog, &p->m, &e);
    if (rc) {
        fail("the machine", &e);
        if (rc == -ENOSPC && !p->o.flash_fit)
            fprintf(stderr, "  (--flash-fit gives each node the chips per channel its streams "
                            "need)\n");
        return -1;
    }
    p->run = machine_program(p->m);
    return 0;
}

static int open_outputs(struct perf *p)
{
    char path[600];
    struct err e;
    int rc = cli_mkdir_p(p->out);

    if (rc) {
        fprintf(stderr, "flashstream perf: cannot create the output directory '%s': %s\n", p->out,
                strerror(-rc));
        return -1;
    }
    if (cli_lock_dir("perf", p->out, &p->lock_fd))
        return -1;
    if (report_init(&p->rep, p->m, "perf", p->run->n_layers, p->layer_names))
        return -1;
    snprintf(path, sizeof(path), "%s/layers.csv", p->out);
    if (report_open_layers(&p->rep, path))
        return -1;
    if (!p->o.trace_max)
        return 0;
    struct trace_cfg tc = {.max_events = p->o.trace_max};
    uint32_t layers;
    if (trace_create(&tc, &p->trace, &e) || trace_track(p->trace, "host", "layers", &layers, &e))
        return fail("trace", &e);
    if (report_open_trace(&p->rep, p->trace, layers))
        return -1;
    machine_record_busy(p->m, true, (size_t)p->o.trace_max);
    return 0;
}

/* ---------------------------------------------------------------- outputs */

/* gemms.csv: per GEMM kind and role, one AN core's share of an iteration. */
static int write_gemms(const struct perf *p, const char *path)
{
    enum { ROLES = ZOO_ROLE_RECOMPUTE + 1 };
    static const char *const cols[] = {"kind",      "role",        "gemms",     "gflop",
                                       "core_s",    "dma_in_s",    "dma_out_s", "utilisation",
                                       "dataflow",  "chunks",      "sram_mb",   "tb_weight_gb",
                                       "tb_act_gb", "tb_wgrad_gb", "sram_gb"};
    uint64_t flop[ZOO_GEMM_KINDS][ROLES] = {{0}}, n[ZOO_GEMM_KINDS][ROLES] = {{0}};
    uint64_t cy[3][ZOO_GEMM_KINDS][ROLES] = {{{0}}};
    const struct machine_cfg *c = &p->cfg;
    double period = (double)c->core_period_ps * 1e-12;
    struct stats_csv *csv;
    struct err e;

    for (uint32_t b = 0; b < p->model->n_blocks; b++) {
        const struct zoo_block *k = &p->model->blocks[b];
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = 0; i < (pass ? k->n_bwd : k->n_fwd); i++) {
                const struct zoo_op *op = pass ? &k->bwd[i] : &k->fwd[i];
                if (op->type != ZOO_OP_GEMM)
                    continue;
                flop[op->gemm.kind][op->gemm.role] += zoo_op_flop(op) * k->repeat;
                n[op->gemm.kind][op->gemm.role] += op->gemm.count * k->repeat;
            }
    }
    for (uint32_t i = 0; i < p->run->n_cmd; i++) {
        const struct hc_cmd *x = &p->run->cmd[i];
        int which = x->kind == HC_GEMM      ? 0
                    : x->kind == HC_DMA_IN  ? 1
                    : x->kind == HC_DMA_OUT ? 2
                                            : -1;
        if (which >= 0 && x->node == 0 && x->op < ZOO_GEMM_KINDS && x->sub < ROLES)
            cy[which][x->op][x->sub] += x->cycles;
    }
    if (stats_csv_open(path, sizeof(cols) / sizeof(cols[0]), cols, &csv, &e))
        return fail("", &e);
    for (int k = 0; k < ZOO_GEMM_KINDS; k++)
        for (int r = 0; r < ROLES; r++) {
            if (!n[k][r])
                continue;
            double peak = (double)cy[0][k][r] * 2.0 * c->core.rows * c->core.cols;
            stats_csv_str(csv, zoo_gemm_kind_name((enum zoo_gemm_kind)k), NULL);
            stats_csv_str(csv, zoo_gemm_role_name((enum zoo_gemm_role)r), NULL);
            stats_csv_u64(csv, n[k][r], NULL);
            stats_csv_fixed(csv, (double)flop[k][r] / 1e9, 3, NULL);
            for (int w = 0; w < 3; w++)
                stats_csv_fixed(csv, (double)cy[w][k][r] * period, 6, NULL);
            stats_csv_fixed(csv, peak > 0 ? (double)flop[k][r] / peak : 0.0, 4, NULL);
            const struct hz_gemm_class *g = &p->rep_c.cls[k][r];
            bool st = g->ops[HZ_STREAM] > 0, ti = g->ops[HZ_TILED] > 0;
            stats_csv_str(csv, st && ti ? "mixed" : st ? "stream" : "tiled", NULL);
            stats_csv_u64(csv, g->chunks_max, NULL);
            stats_csv_fixed(csv, (double)g->sram_held / 1e6, 1, NULL);
            uint64_t act = g->tb_bytes[ZOO_OPND_ACT] + g->tb_bytes[ZOO_OPND_SAVED] +
                           g->tb_bytes[ZOO_OPND_GRAD];
            stats_csv_fixed(csv, (double)g->tb_bytes[ZOO_OPND_WEIGHT] / 1e9, 3, NULL);
            stats_csv_fixed(csv, (double)act / 1e9, 3, NULL);
            stats_csv_fixed(csv, (double)g->tb_bytes[ZOO_OPND_WGRAD] / 1e9, 3, NULL);
            stats_csv_fixed(csv, (double)g->sram_traffic / 1e9, 3, NULL);
            stats_csv_end_row(csv, NULL);
        }
    if (stats_csv_close(csv, &e))
        return fail("", &e);
    return 0;
}

/* lifespan.csv rows of the iteration just run: every V-stream read on AN 0 of a tensor written
 * in it, with the write (programmed) and the read (start) in s of simulated time. */
static void take_lifespans(const struct perf *p, struct stats_csv *csv, uint64_t iter)
{
    size_t n;
    const uint64_t *start, *end;
    const struct hc_prog *g = p->run;
    uint32_t nv = g->n_rec[HC_S_V];
    uint32_t *wr = malloc((nv ? nv : 1) * sizeof(*wr));

    if (!wr)
        return;
    machine_cmd_times(p->m, &start, &end, &n);
    for (uint32_t r = 0; r < nv; r++)
        wr[r] = UINT32_MAX;
    for (uint32_t i = 0; i < g->n_cmd && i < n; i++) {
        const struct hc_cmd *x = &g->cmd[i];
        if (x->node != 0 || x->op != HC_S_V || x->u.fl.rec >= nv)
            continue;
        if (x->kind == HC_FLASH_WR) {
            wr[x->u.fl.rec] = i;
        } else if (x->kind == HC_FLASH_RD && wr[x->u.fl.rec] != UINT32_MAX) {
            const struct hc_cmd *w = &g->cmd[wr[x->u.fl.rec]];
            double t_wr = (double)end[w->id] * 1e-12, t_rd = (double)start[i] * 1e-12;
            stats_csv_u64(csv, iter, NULL);
            stats_csv_u64(csv, (uint64_t)w->layer + 1, NULL);
            stats_csv_str(csv, p->layer_names[w->layer], NULL);
            stats_csv_str(csv, strrchr(w->label, ' ') + 1, NULL); /* "WR V L<l> <tensor>" */
            stats_csv_u64(csv, w->bytes, NULL);
            stats_csv_fixed(csv, t_wr, 6, NULL);
            stats_csv_fixed(csv, t_rd, 6, NULL);
            stats_csv_fixed(csv, t_rd - t_wr, 6, NULL);
            stats_csv_end_row(csv, NULL);
        }
    }
    free(wr);
}

static int run(struct perf *p)
{
    static const char *const cols[] = {"iteration", "layer",     "block",  "tensor",
                                       "bytes",     "written_s", "read_s", "lifespan_s"};
    struct stats_csv *life;
    char path[600];
    struct err e;
    double t0 = cli_wall_s();

    snprintf(path, sizeof(path), "%s/lifespan.csv", p->out);
    if (stats_csv_open(path, 8, cols, &life, &e))
        return fail("", &e);
    for (uint64_t k = 0; k < p->o.iterations; k++) {
        struct machine_step_info info;
        if (machine_step(p->m, &info, &e)) {
            stats_csv_abort(life);
            fprintf(stderr, "flashstream perf: iteration %" PRIu64 " failed: %s\n", k, e.msg);
            return -1;
        }
        p->iter_ps = info.end_ps - info.start_ps;
        p->iter_start_ps = info.start_ps;
        p->iters_ps += p->iter_ps;
        report_take_layers(&p->rep, 0, k == 0);
        if (k == 0 && p->trace) {
            report_take_busy(&p->rep, 0, false);
            machine_record_busy(p->m, false, 0);
        }
        take_lifespans(p, life, k);
        printf("  iteration %" PRIu64 ": %.3f s simulated (%" PRIu64 " commands)\n", k,
               (double)p->iter_ps * 1e-12, info.commands);
    }
    p->wall = cli_wall_s() - t0;
    if (stats_csv_close(life, &e))
        return fail("", &e);
    return 0;
}

static double seqs_per_s(const struct perf *p)
{
    double seqs = (double)p->cfg.n_an * p->cfg.cores_per_an * (double)p->o.batch;
    return p->iter_ps ? seqs / ((double)p->iter_ps * 1e-12) : 0.0;
}

static int write_stats(struct perf *p, int argc, char **argv)
{
    struct stats *s;
    struct err e;
    char buf[1024], path[600];
    size_t len = 0;
    int rc = 0;

    if (stats_create(&s, &e))
        return fail("", &e);
    for (int i = 0; i < argc && len < sizeof(buf) - 1; i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "flashstream ",
                                argv[i]);
    stats_meta(s, "command", buf, NULL);
    stats_meta(s, "model", p->model->spec, NULL);
    stats_meta(s, "storage", storage_names[p->cfg.storage], NULL);
    stats_meta(s, "optimizer", opt_names[p->o.opt], NULL);
    stats_meta(s, "fidelity", "perf", NULL);
    if (machine_ini_stats(&p->cfg, s, &e))
        rc = fail("", &e);
    report_counters(p->m, s, "perf");
    stats_set_u64(s, "perf.iterations", "count", "training iterations run", p->o.iterations, NULL);
    stats_set_u64(s, "perf.iteration_ps", "ps", "simulated time of the last iteration", p->iter_ps,
                  NULL);
    stats_set_f64(s, "perf.sequences_per_s", "sequences/s",
                  "simulated throughput: ANs x cores x batch per iteration time", seqs_per_s(p),
                  NULL);
    stats_set_u64(s, "perf.flop_per_core", "FLOP", "one core's FLOP of an iteration",
                  p->model->total.flop, NULL);
    stats_set_u64(s, "perf.commands", "count", "commands of an iteration, every node",
                  p->run->n_cmd, NULL);
    stats_set_f64(s, "perf.sequences_per_s_per_an", "sequences/s",
                  "simulated throughput of one Activation Node (one Behemoth of the paper)",
                  seqs_per_s(p) / p->cfg.n_an, NULL);
    stats_set_f64(s, "perf.wall_s", "s", "wall-clock time of the iterations", p->wall, NULL);
    if (budget_stats(&p->budget, s, &e))
        rc = fail("", &e);
    report_layer_stats(&p->rep, s);
    snprintf(path, sizeof(path), "%s/stats.json", p->out);
    if (!rc && stats_write_json(s, path, &e))
        rc = fail("", &e);
    stats_destroy(s);
    return rc;
}

static int write_outputs(struct perf *p, int argc, char **argv)
{
    char path[600];
    struct err e;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/gemms.csv", p->out);
    rc |= write_gemms(p, path);
    rc |= write_stats(p, argc, argv);
    rc |= report_close_layers(&p->rep);
    if (p->trace) {
        trace_meta(p->trace, "model", p->model->spec, NULL);
        snprintf(path, sizeof(path), "%s/trace.json", p->out);
        if (trace_write(p->trace, path, &e))
            rc |= fail("", &e);
    }
    return rc ? -1 : 0;
}

static void print_header(const struct perf *p)
{
    const struct machine_cfg *c = &p->cfg;
    printf("flashstream perf: %s, batch %" PRIu64 " per core, %s\n", p->model->spec, p->o.batch,
           opt_names[p->o.opt]);
    printf("  machine   %u ANs x %u cores of %ux%u PEs at %.3g GHz, storage %s\n", c->n_an,
           c->cores_per_an, c->core.rows, c->core.cols, 1e3 / (double)c->core_period_ps,
           storage_names[c->storage]);
    printf("  program   %u commands, %u layers, records: V %u, W/M/O %u\n", p->run->n_cmd,
           p->run->n_layers, p->run->n_rec[HC_S_V], p->run->n_rec[HC_S_W]);
    if (c->storage == MACHINE_STORAGE_BEHEMOTH)
        printf("  flash     Weight Node %.2f TiB (%u chips per channel), each Activation Node "
               "%.2f TiB (%u)%s\n",
               (double)flash_geom_bytes(&c->wn_flash.geom) / (double)(1ull << 40),
               c->wn_flash.geom.chips_per_chan,
               (double)flash_geom_bytes(&c->an_flash.geom) / (double)(1ull << 40),
               c->an_flash.geom.chips_per_chan, p->o.flash_fit ? ", fitted to the model" : "");
    if (c->storage == MACHINE_STORAGE_SSD_RAID0)
        printf("  SSDs      Weight Node %u in RAID 0, each Activation Node %u%s\n",
               c->wn_ssd.raid_ssds, c->an_ssd.raid_ssds,
               p->o.flash_fit ? ", fitted to the model" : "");
}

static void print_outputs(const struct perf *p)
{
    const char *d = p->out;
    printf("\noutputs:\n");
    printf("  %s/stats.json     every counter, with units; the configuration\n", d);
    printf("  %s/layers.csv     per iteration, layer and pass: phases and what each waited on\n",
           d);
    printf("  %s/gemms.csv      per GEMM kind and role: FLOP, core and DMA time, utilisation\n", d);
    printf("  %s/lifespan.csv   every activation on AN 0: written, read back, lifespan\n", d);
    if (p->trace)
        printf("  %s/trace.json     the first iteration, one track per resource (%" PRIu64
               " events dropped over --trace-max): https://ui.perfetto.dev\n",
               d, trace_dropped(p->trace));
}

static void destroy(struct perf *p)
{
    report_fini(&p->rep);
    trace_destroy(p->trace);
    machine_destroy(p->m);
    hc_prog_free(p->prog);
    dma_time_destroy(p->dma_time);
    zoo_destroy(p->model);
    hz_report_fini(&p->rep_c);
    machine_ini_destroy(p->ini);
    free(p->layer_names);
    if (p->lock_fd >= 0)
        close(p->lock_fd);
    free(p);
}

/* SIGINT, SIGTERM: the run stops at once, its outputs' temporaries removed and nothing written
 * (its outputs are committed with both signals blocked, so they are there whole or not at all). */
static void on_stop(int sig)
{
    static const char msg[] = "\nflashstream perf: interrupted; no output written\n";

    (void)sig;
    afile_remove_temporaries();
    if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
        /* nothing more a handler can say */
    }
    _exit(130);
}

static void handle_stops(void (*handler)(int))
{
    struct sigaction sa = {.sa_handler = handler};

    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cmd_perf(int argc, char **argv)
{
    struct perf *p = calloc(1, sizeof(*p));
    int status = 1, rc;

    if (!p) {
        fprintf(stderr, "flashstream perf: out of memory\n");
        return 1;
    }
    p->lock_fd = -1;
    rc = parse(argc, argv, p);
    if (rc) {
        destroy(p);
        return rc == CLI_DONE ? 0 : 2;
    }
    handle_stops(on_stop);
    rc = build(p);
    if (rc > 0) { /* --validate_only: it fits */
        status = 0;
        goto out;
    }
    if (rc || open_outputs(p))
        goto out;
    print_header(p);
    if (run(p))
        goto out;
    report_where(&p->rep, p->o.iterations);
    struct err e;
    if (budget_take(&p->budget, p->m, &p->cfg, &p->rep_c, p->model->total.flop, p->o.iterations,
                    &e)) {
        fail("", &e);
        goto out;
    }
    p->budget.iteration_s = (double)p->iters_ps * 1e-12 / (double)p->o.iterations;
    if (budget_critical(&p->budget, p->m, p->iter_start_ps, &e)) {
        fail("", &e);
        goto out;
    }
    budget_print(&p->budget);
    report_endurance(p->m);
    sigset_t stops, was;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigprocmask(SIG_BLOCK, &stops, &was);
    rc = write_outputs(p, argc, argv);
    handle_stops(SIG_DFL); /* a signal from here on finds the outputs whole */
    sigprocmask(SIG_SETMASK, &was, NULL);
    if (rc)
        goto out;
    print_outputs(p);
    printf("\nperf: %s on %s: %.3f s per iteration simulated, %.4g sequences/s (%.4g per "
           "Activation Node), wall %.2f s\n",
           p->model->spec, storage_names[p->cfg.storage], (double)p->iter_ps * 1e-12, seqs_per_s(p),
           seqs_per_s(p) / p->cfg.n_an, p->wall);
    status = 0;
out:
    fflush(stdout);
    destroy(p);
    return status;
}
