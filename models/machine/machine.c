/*
 * machine.c - the machine and its command scheduler; see machine.h.
 *
 * The scheduler: every resource (an AN's core, DMA, vector unit, flash read and write paths;
 * the WN's flash paths and optimizer; the fabric's two directions; the host) runs its commands
 * in program order, one at a time. A command starts at the event where its last dependency
 * ended or its resource became free, whichever is later; the node that owns it performs it
 * (functionally, at its start) and says when it ends; an event at that time completes it. The
 * dependency that ended last (or the resource's previous command) is remembered as the
 * command's critical predecessor, for the "waited_on" column.
 *
 * Perf: the nodes are created payload-free (anode.h, wnode.h), the fabric calls only its timing
 * functions, and with the ideal storage the flash, DMA and fabric commands are not performed at
 * all: they end when they start.
 */
#include "models/machine/machine.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csim/sim.h"
#include "models/host/compile.h"
#include "models/node/anode.h"
#include "models/node/nssd.h"
#include "models/dma/dma_time.h"
#include "models/node/wnode.h"

#define NONE UINT32_MAX

/* ---------------------------------------------------------------- executor state */

struct evref {
    struct machine *r;
    struct exec *x;
    uint32_t id;
};

struct exec {
    const struct hc_prog *p;
    uint32_t *pending;
    uint64_t *start, *end;
    uint64_t *free_t; /* when the command let its resource go (<= end) */
    uint32_t *crit;
    uint32_t *succ, *succ0; /* CSR: successors of i are succ[succ0[i] .. succ0[i + 1]) */
    uint32_t *rq, *rq0;     /* CSR: commands of resource k in program order */
    uint32_t *rnext;        /* next position in each resource's queue */
    uint8_t *rbusy;
    uint32_t *rlast;   /* last command that ended on the resource */
    struct evref *ev;  /* completion events */
    struct evref *evr; /* resource-release events (when free_t < end) */
    uint64_t *place;   /* a command a port started: its events' places (sim_reserve) */
    uint32_t done;
    bool record;        /* layer records for this program */
    uint32_t *lx, *lx0; /* CSR: commands of layer l and pass q (bucket 2 l + q) are
                           lx[lx0[b] .. lx0[b + 1]), in program order (records only) */
};

struct machine {
    struct machine_cfg cfg;
    struct hc_prog *train, *eval;
    struct exec xt, xe;     /* xe: unused in perf (no evaluation) */
    bool perf;              /* payload-free (MACHINE_PERF), for the machine's life */
    bool given;             /* perf: runs a program it was given (machine_create_program) */
    bool ideal;             /* perf: MACHINE_STORAGE_IDEAL (flash, DMA and fabric take no time) */
    uint32_t ideal_pending; /* ideal storage: batches loaded (they are not written anywhere) */
    struct sim *sim;
    struct anode *an[MACHINE_MAX_AN];
    struct wnode *wn;
    struct fabric *fab;
    int rid_fab[MACHINE_MAX_AN], rid_fab_wn; /* the fabric's requester of each tensor buffer */
    struct dma_time *dma_time;
    enum machine_fidelity fid;
    char (*resname)[24];
    uint32_t n_res;
    /* run state */
    struct exec *cur;
    int err;
    struct err *run_err; /* run()'s message while it runs: the event callbacks write it */
    float loss;
    uint64_t step_commands, step_gemms;
    /* scratch */
    unsigned char *buf;
    size_t buf_cap;
    /* records */
    struct machine_layer_rec *rec;
    size_t n_rec, cap_rec;
    struct machine_busy *busy;
    size_t n_busy, cap_busy, busy_max;
    uint64_t busy_dropped;
    bool busy_on;
    uint64_t *res_busy_ps; /* per resource, over the run */
    uint64_t steps, evals, sim_steps_ps;
    struct machine_counter *ctr;
    size_t n_ctr, cap_ctr;
    struct machine_port port; /* another executor of the commands, or none (exec NULL) */
    /* interval scratch for the records */
    struct iv {
        uint64_t a, b;
    } * iv;
    size_t cap_iv;
};

/* ---------------------------------------------------------------- configuration */

static void flash_small(struct flash_cfg *f)
{
    flash_cfg_default(f);
    f->geom.channels = 2;
    f->geom.chips_per_chan = 1;
    f->geom.dies_per_chip = 1;
    f->geom.planes_per_die = 2;
    f->geom.pages_per_block = 16;
}

void machine_cfg_default(struct machine_cfg *c)
{
    struct err e;

    memset(c, 0, sizeof(*c));
    dnn_model_parse(&c->model, "fc-mnist", &e);
    dnn_params_opt_sgd(&c->opt, 0.01f, 0.9f, 0.0f);
    c->init_seed = 1;
    c->batch = 64;
    c->n_an = 4;
    c->cores_per_an = 1;
    c->core = (struct core_params){
        .rows = 8, .cols = 8, .a_words = 4096, .b_words = 4096, .c_words = 4096};
    c->core_period_ps = 1250;   /* (derived) 0.8 GHz, docs/sources.md */
    c->dma_bytes_per_cycle = 8; /* the RTL's beat (rtl/dma) */
    vu_cfg_default(&c->vu);
    c->optu = (struct machine_optu_cfg){
        .period_ps = 1250, .lanes = 16, .latency = 32, .cost_sgd = 1, .cost_adam = 4};
    dma_params_default(&c->dma);
    dram_cfg_default(&c->tb);
    flash_cfg_default(&c->an_flash);
    flash_cfg_default(&c->wn_flash);
    /* payload beside the timing-only flash model (models/node/nflash.h: the record store) */
    c->an_flash.sw.store_payload = false;
    c->wn_flash.sw.store_payload = false;
    ssd_cfg_default(&c->an_ssd);
    ssd_cfg_default(&c->wn_ssd);
    c->an_ssd.nand.sw.store_payload = false; /* perf only: timed, no bytes */
    c->wn_ssd.nand.sw.store_payload = false;
    c->ssd_grain = 1; /* (ours) page by page: exact; configs/behemoth-paper.ini takes 16 */
    fabric_cfg_default(&c->fabric);
    /* (derived) PCIe Gen4 x32 (paper, Table 4): 16 GT/s x 32 lanes x 128/130 / 8 bits */
    c->host.link_Bps = 63015384615ull;
    c->host.latency_ps = 1000000; /* (ours) about one PCIe round trip; not timed yet */
    c->storage = MACHINE_STORAGE_BEHEMOTH;
    c->keep_output_resident = false;
    c->act_fresh_lb = false;
    c->write_pipe = true;
    c->fidelity = MACHINE_TLM;
    c->rtl = NULL;
    c->seed = 1;
}

void machine_cfg_set_faults(struct machine_cfg *c, const struct flash_fault_cfg *f)
{
    c->an_flash.fault = *f;
    c->wn_flash.fault = *f;
    c->an_ssd.nand.fault = *f;
    c->wn_ssd.nand.fault = *f;
}

void machine_cfg_small(struct machine_cfg *c)
{
    struct err e;

    machine_cfg_default(c);
    dnn_model_parse(&c->model, "mlp:64-32-10", &e);
    c->batch = 8;
    c->n_an = 1;
    c->core.a_words = c->core.b_words = c->core.c_words = 512;
    flash_small(&c->an_flash);
    flash_small(&c->wn_flash);
    /* the bytes in the flash model's pages, masters and state included: small runs exercise
     * the whole payload path */
    c->an_flash.sw.store_payload = true;
    c->wn_flash.sw.store_payload = true;
    c->wn_state_payload = true;
}

const char *const machine_storage_names[MACHINE_STORAGE_N] = {"behemoth", "ssd-raid0", "ideal"};

static const char *storage_name(enum machine_storage s)
{
    return (unsigned)s < MACHINE_STORAGE_N ? machine_storage_names[s] : "?";
}

/* Perf with the fully connected compiler: its cores and arrays, any storage. */
static int perf_supported(const struct machine_cfg *c, struct err *e)
{
    const struct core_params *k = &c->core;

    if (c->cores_per_an != 1)
        return err_set(e, -EINVAL,
                       "machine.cores_per_node = %u: the fully connected model runs one core per "
                       "Activation Node, in perf too; more run in perf programs "
                       "(machine_create_program)",
                       c->cores_per_an);
    if (k->rows < 1 || k->rows > 64 || k->cols < 1 || k->cols > 64 || core_twin_w(k) > 64)
        return err_set(e, -EINVAL,
                       "core.rows x core.cols = %u x %u: the fully connected compiler tiles for "
                       "the arrays the core builds (rows and cols 1..64 with lcm(rows, cols, 4) "
                       "<= 64), in perf too; larger arrays run in perf programs "
                       "(machine_create_program)",
                       k->rows, k->cols);
    if (c->storage >= MACHINE_STORAGE_N)
        return err_set(e, -EINVAL, "storage.backend %d: accepted behemoth, ssd-raid0 or ideal",
                       (int)c->storage);
    return 0;
}

int machine_cfg_supported(const struct machine_cfg *c, struct err *e)
{
    const struct core_params *k = &c->core;

    if (c->fidelity == MACHINE_PERF)
        return perf_supported(c, e);
    if (c->cores_per_an != 1)
        return err_set(e, -EINVAL,
                       "machine.cores_per_node = %u: training runs one core per Activation "
                       "Node; more need the payload-free performance mode",
                       c->cores_per_an);
    if (k->rows < 1 || k->rows > 64 || k->cols < 1 || k->cols > 64 || core_twin_w(k) > 64)
        return err_set(e, -EINVAL,
                       "core.rows x core.cols = %u x %u: training runs the core's C twin or "
                       "its RTL, which build rows and cols 1..64 with lcm(rows, cols, 4) <= 64; "
                       "larger arrays (same cycle formula) are for the payload-free "
                       "performance mode",
                       k->rows, k->cols);
    if (c->storage != MACHINE_STORAGE_BEHEMOTH)
        return err_set(e, -EINVAL,
                       "storage.backend = %s: training runs on the Behemoth FMS of every node "
                       "(behemoth); %s is for the payload-free performance mode",
                       storage_name(c->storage),
                       (unsigned)c->storage < MACHINE_STORAGE_N ? machine_storage_names[c->storage]
                                                                : "it");
    return 0;
}

const char *machine_fidelity_name(enum machine_fidelity f)
{
    return f == MACHINE_TLM        ? "tlm"
           : f == MACHINE_RTL      ? "rtl"
           : f == MACHINE_LOCKSTEP ? "lockstep"
           : f == MACHINE_PERF     ? "perf"
                                   : "?";
}

int machine_fidelity_parse(const char *s, enum machine_fidelity *f, struct err *e)
{
    for (int i = 0; i <= MACHINE_PERF; i++)
        if (s && strcmp(s, machine_fidelity_name((enum machine_fidelity)i)) == 0) {
            *f = (enum machine_fidelity)i;
            return 0;
        }
    return err_set(e, -EINVAL, "fidelity '%s': accepted tlm, rtl, lockstep or perf",
                   s ? s : "(null)");
}

const char *machine_pass_name(enum machine_pass p)
{
    return p == MACHINE_FWD ? "fwd" : "bwd";
}

const char *machine_phase_name(enum machine_phase p)
{
    return hc_phase_name((enum hc_phase)p);
}

/* The SSD array's streams as the compiler sees them: a record takes whole pages of the array
 * (at its grain), and a page is the stream's "logical block" (the log needs one free). */
static void ssd_streams(const struct machine_cfg *c, struct hc_cfg *h)
{
    static const char *const an_names[] = {"NV", "V"}, *const wn_names[] = {"W", "M", "O"};
    static const char *const names[HC_N_STREAMS] = {"NV", "V", "W", "M", "O"};
    struct ftl_layout an, wn;

    ftl_layout_an(&an);
    ftl_layout_wn(&wn);
    for (int s = 0; s < HC_N_STREAMS; s++) {
        if (s < 2)
            nssd_stream_size(&c->an_ssd, c->ssd_grain, &an, an_names, 2, names[s],
                             &h->stream_cap[s], &h->stream_lb[s]);
        else
            nssd_stream_size(&c->wn_ssd, c->ssd_grain, &wn, wn_names, 3, names[s],
                             &h->stream_cap[s], &h->stream_lb[s]);
    }
    h->an_page = (uint32_t)h->stream_lb[HC_S_V];
    h->wn_page = (uint32_t)h->stream_lb[HC_S_W];
}

/* The compiler's view of cfg. */
static void hc_from_machine(const struct machine_cfg *c, bool eval, struct hc_cfg *h)
{
    struct ftl_layout an, wn;
    static const char *const names[HC_N_STREAMS] = {"NV", "V", "W", "M", "O"};

    memset(h, 0, sizeof(*h));
    h->model = c->model;
    h->n_an = c->n_an;
    h->batch = c->batch;
    h->core = c->core;
    h->tb_bytes = c->tb.size_bytes;
    h->keep_output_resident = c->keep_output_resident;
    h->eval = eval;
    h->opt_state_words = c->opt.kind == DNN_OPT_ADAM ? 2 : 1;
    ftl_layout_an(&an);
    ftl_layout_wn(&wn);
    if (c->storage == MACHINE_STORAGE_SSD_RAID0) {
        ssd_streams(c, h);
    } else {
        for (int s = 0; s < HC_N_STREAMS; s++)
            nflash_stream_size(s < 2 ? &an : &wn, s < 2 ? &c->an_flash.geom : &c->wn_flash.geom,
                               names[s], &h->stream_cap[s], &h->stream_lb[s]);
        h->an_page = c->an_flash.geom.page_bytes;
        h->wn_page = c->wn_flash.geom.page_bytes;
    }
    h->samples = c->samples;
    h->act_fresh_lb = c->act_fresh_lb;
}

/* The SSDs of one kind of node, as the machine simulates them (at its grain). */
static int check_ssd(const struct ssd_cfg *drive, uint32_t grain, const char *section,
                     struct err *e)
{
    struct ssd_cfg c;
    int rc = ssd_cfg_validate(drive, e);

    if (!rc)
        rc = ssd_cfg_coarse(drive, grain, &c, e);
    if (!rc)
        rc = ssd_cfg_validate(&c, e);
    return rc ? err_prefix(e, rc, "%s (storage.ssd_grain = %u)", section, grain) : 0;
}

/* The machine's blocks, whatever runs on them: nodes, fabric, flash, tensor buffer, clocks. */
static int check_blocks(const struct machine_cfg *c, struct err *e)
{
    struct fabric_cfg fc = c->fabric;

    if (c->n_an < 1 || c->n_an > MACHINE_MAX_AN)
        return err_set(e, -EINVAL, "n_an = %u Activation Nodes; accepted 1..%u", c->n_an,
                       MACHINE_MAX_AN);
    fc.n_an = c->n_an;
    if (fabric_cfg_validate(&fc, e))
        return err_prefix(e, -EINVAL, "fabric");
    if (flash_cfg_validate(&c->an_flash, e))
        return err_prefix(e, -EINVAL, "AN flash");
    if (flash_cfg_validate(&c->wn_flash, e))
        return err_prefix(e, -EINVAL, "WN flash");
    if (c->storage == MACHINE_STORAGE_SSD_RAID0 &&
        (check_ssd(&c->an_ssd, c->ssd_grain, "an_ssd", e) ||
         check_ssd(&c->wn_ssd, c->ssd_grain, "wn_ssd", e)))
        return -EINVAL;
    if (dram_cfg_check(&c->tb, e))
        return err_prefix(e, -EINVAL, "tensor buffer");
    if (!c->core_period_ps || !c->optu.period_ps || !c->vu.lanes || !c->optu.lanes)
        return err_set(e, -EINVAL,
                       "clocks and lanes: core_period_ps %" PRIu64 ", optu.period_ps %" PRIu64
                       ", vu.lanes %u, optu.lanes %u; accepted all > 0",
                       c->core_period_ps, c->optu.period_ps, c->vu.lanes, c->optu.lanes);
    return 0;
}

static int check_rt_cfg(const struct machine_cfg *c, struct err *e)
{
    if (machine_cfg_supported(c, e))
        return -EINVAL;
    if (c->n_an < 1 || c->n_an > MACHINE_MAX_AN)
        return err_set(e, -EINVAL, "n_an = %u Activation Nodes; accepted 1..%u", c->n_an,
                       MACHINE_MAX_AN);
    if (dnn_params_opt_validate(&c->opt, e))
        return err_prefix(e, -EINVAL, "optimizer");
    return check_blocks(c, e);
}

int machine_validate(const struct machine_cfg *c, FILE *out, struct err *e)
{
    struct hc_cfg h;
    int rc = check_rt_cfg(c, e);
    if (rc) {
        if (out)
            fprintf(out, "configuration: FAIL: %s\n", e ? e->msg : "");
        return rc;
    }
    hc_from_machine(c, false, &h);
    rc = hc_validate(&h, out, e);
    if (rc)
        err_prefix(e, rc, "the model does not fit the machine");
    return rc;
}

int machine_compile_listing(const struct machine_cfg *c, FILE *out, struct err *e)
{
    struct hc_cfg h;
    struct hc_prog *p;
    int rc = check_rt_cfg(c, e);
    if (rc)
        return rc;
    hc_from_machine(c, false, &h);
    rc = hc_compile(&h, &p, e);
    if (rc)
        return err_prefix(e, rc, "compile");
    hc_print(p, out);
    hc_prog_free(p);
    return 0;
}

/* ---------------------------------------------------------------- executor */

static void exec_free(struct exec *x)
{
    free(x->pending);
    free(x->start);
    free(x->end);
    free(x->free_t);
    free(x->crit);
    free(x->succ);
    free(x->succ0);
    free(x->rq);
    free(x->rq0);
    free(x->rnext);
    free(x->rbusy);
    free(x->rlast);
    free(x->ev);
    free(x->evr);
    free(x->place);
    free(x->lx);
    free(x->lx0);
    memset(x, 0, sizeof(*x));
}

/* The commands of each layer and pass, for the layer records: one pass over the program, so a
 * step's records cost O(commands) whatever the number of layers. */
static int layer_index(struct exec *x, const struct hc_prog *p)
{
    size_t nb = 2 * (size_t)p->n_layers;
    uint32_t *fill;

    x->lx = calloc(p->n_cmd + 1, sizeof(*x->lx));
    x->lx0 = calloc(nb + 1, sizeof(*x->lx0));
    fill = calloc(nb + 1, sizeof(*fill));
    if (!x->lx || !x->lx0 || !fill) {
        free(fill);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < p->n_cmd; i++)
        if (p->cmd[i].layer < p->n_layers)
            x->lx0[2 * (size_t)p->cmd[i].layer + p->cmd[i].pass + 1]++;
    for (size_t b = 0; b < nb; b++)
        x->lx0[b + 1] += x->lx0[b];
    for (uint32_t i = 0; i < p->n_cmd; i++) {
        if (p->cmd[i].layer >= p->n_layers)
            continue;
        size_t b = 2 * (size_t)p->cmd[i].layer + p->cmd[i].pass;
        x->lx[x->lx0[b] + fill[b]++] = i;
    }
    free(fill);
    return 0;
}

static int exec_init(struct machine *r, struct exec *x, const struct hc_prog *p, bool record)
{
    uint32_t n = p->n_cmd, nr = p->n_res;

    memset(x, 0, sizeof(*x));
    x->p = p;
    x->record = record;
    x->pending = calloc(n, sizeof(*x->pending));
    x->start = calloc(n, sizeof(*x->start));
    x->end = calloc(n, sizeof(*x->end));
    x->free_t = calloc(n, sizeof(*x->free_t));
    x->crit = calloc(n, sizeof(*x->crit));
    x->succ = calloc(p->n_deps + 1, sizeof(*x->succ));
    x->succ0 = calloc(n + 1, sizeof(*x->succ0));
    x->rq = calloc(n + 1, sizeof(*x->rq));
    x->rq0 = calloc(nr + 1, sizeof(*x->rq0));
    x->rnext = calloc(nr, sizeof(*x->rnext));
    x->rbusy = calloc(nr, sizeof(*x->rbusy));
    x->rlast = calloc(nr, sizeof(*x->rlast));
    x->ev = calloc(n, sizeof(*x->ev));
    x->evr = calloc(n, sizeof(*x->evr));
    x->place = calloc(n, sizeof(*x->place));
    if (!x->pending || !x->start || !x->end || !x->free_t || !x->evr || !x->crit || !x->succ ||
        !x->succ0 || !x->rq || !x->rq0 || !x->rnext || !x->rbusy || !x->rlast || !x->ev ||
        !x->place) {
        exec_free(x);
        return -ENOMEM;
    }
    /* successors (CSR) */
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < p->cmd[i].ndep; k++)
            x->succ0[p->deps[p->cmd[i].dep0 + k] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        x->succ0[i + 1] += x->succ0[i];
    uint32_t *fill = calloc(n + 1, sizeof(*fill));
    if (!fill) {
        exec_free(x);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < p->cmd[i].ndep; k++) {
            uint32_t d = p->deps[p->cmd[i].dep0 + k];
            x->succ[x->succ0[d] + fill[d]++] = i;
        }
    free(fill);
    /* resource queues (CSR), program order */
    for (uint32_t i = 0; i < n; i++)
        x->rq0[p->cmd[i].res + 1]++;
    for (uint32_t k = 0; k < nr; k++)
        x->rq0[k + 1] += x->rq0[k];
    for (uint32_t k = 0; k < nr; k++)
        x->rnext[k] = x->rq0[k];
    for (uint32_t i = 0; i < n; i++)
        x->rq[x->rnext[p->cmd[i].res]++] = i;
    for (uint32_t i = 0; i < n; i++) {
        x->ev[i] = (struct evref){r, x, i};
        x->evr[i] = (struct evref){r, x, i};
    }
    if (record && layer_index(x, p)) {
        exec_free(x);
        return -ENOMEM;
    }
    return 0;
}

static int ensure_buf(struct machine *r, size_t n)
{
    if (n <= r->buf_cap)
        return 0;
    unsigned char *b = realloc(r->buf, n);
    if (!b)
        return -ENOMEM;
    r->buf = b;
    r->buf_cap = n;
    return 0;
}

/* Latest end time of c's dependencies on AN n (start of the step if none). */
static uint64_t ready_on(const struct exec *x, const struct hc_cmd *c, uint32_t n, uint64_t dflt)
{
    uint64_t t = dflt;
    bool any = false;
    for (uint32_t k = 0; k < c->ndep; k++) {
        uint32_t d = x->p->deps[c->dep0 + k];
        if (x->p->cmd[d].node != n)
            continue;
        if (!any || x->end[d] > t)
            t = x->end[d];
        any = true;
    }
    return t;
}

/* The bytes of a fabric command, between the nodes' tensor buffers (not in perf); a loss gather
 * also sets the step's loss. */
static int fabric_data(struct machine *r, const struct hc_cmd *c)
{
    struct dram *an_tbs[MACHINE_MAX_AN];
    int rc;

    for (uint32_t n = 0; n < r->cfg.n_an; n++)
        an_tbs[n] = anode_tb(r->an[n]);
    if (c->kind == HC_FABRIC_BCAST) {
        rc = fabric_broadcast_data(r->fab, wnode_tb(r->wn), c->u.fab.src, an_tbs, c->u.fab.dst,
                                   c->bytes, r->run_err);
    } else if (c->kind == HC_LOSS_GATHER) {
        float sum;
        rc = fabric_gather_loss_data(r->fab, an_tbs, c->u.fab.src, &sum, r->run_err);
        if (!rc)
            machine_fabric_loss(r, sum);
    } else {
        rc = fabric_reduce_data(r->fab, an_tbs, c->u.fab.src, c->bytes, wnode_tb(r->wn),
                                c->u.fab.dst, r->run_err);
    }
    if (rc)
        err_prefix(r->run_err, rc, "command %u '%s'", c->id, c->label);
    return rc;
}

void machine_fabric_loss(struct machine *r, float sum)
{
    r->loss = sum / (float)r->cfg.batch;
}

const struct fabric *machine_fabric(const struct machine *r)
{
    return r->fab;
}

/* The fabric's commands (they touch every node): the fabric moves the bytes (not in perf),
 * then times the transfer. */
int machine_fabric_exec(struct machine *r, const struct hc_cmd *c, const uint64_t *ready,
                        uint64_t now, uint64_t *end, uint64_t *free_at)
{
    int rc;

    if (!r->perf && (rc = fabric_data(r, c)))
        return rc;
    return machine_fabric_time(r, c, ready, now, end, free_at);
}

/*
 * The fabric's bytes through the nodes' tensor buffers (first come, first served with the
 * nodes' other agents): a node sends from its buffer as one read asked for when its send
 * starts, and takes a stream into its buffer as one write asked for when the first byte can
 * arrive (the stream's end less one link's time for its bytes). The transfer ends no earlier
 * than the last of these claims.
 */
static uint64_t fabric_claim(struct machine *r, bool an, uint32_t n, uint64_t t, uint64_t addr,
                             uint64_t bytes, bool write)
{
    struct dram *tb = an ? anode_tb(r->an[n]) : wnode_tb(r->wn);
    return bytes ? dram_access(tb, an ? r->rid_fab[n] : r->rid_fab_wn, t, addr, bytes, write) : t;
}

static uint64_t arrival(const struct machine *r, uint64_t now, uint64_t end, uint64_t bytes)
{
    uint64_t link = fabric_xfer_ps(fabric_cfg(r->fab), bytes);
    return end > now + link ? end - link : now;
}

int machine_fabric_time(struct machine *r, const struct hc_cmd *c, const uint64_t *ready,
                        uint64_t now, uint64_t *end, uint64_t *free_at)
{
    uint64_t done[MACHINE_MAX_AN], last;
    int rc;

    if (c->kind == HC_FABRIC_BCAST) {
        rc = fabric_broadcast(r->fab, now, c->bytes, done, end, r->run_err);
        if (rc)
            return err_prefix(r->run_err, rc, "fabric broadcast");
        last = fabric_claim(r, false, 0, now, c->u.fab.src, c->bytes, false);
        for (uint32_t n = 0; n < r->cfg.n_an; n++)
            last = res_later(last, fabric_claim(r, true, n, arrival(r, now, done[n], c->bytes),
                                                c->u.fab.dst, c->bytes, true));
        *end = res_later(*end, last);
        /* the WN's down link is free once it has sent every chunk; the tree forwards them */
        *free_at = now + fabric_xfer_ps(fabric_cfg(r->fab), c->bytes);
        if (*free_at > *end)
            *free_at = *end;
        return 0;
    }
    /* a loss gather's sum goes to the host, not into the WN's buffer */
    uint64_t bytes = c->kind == HC_LOSS_GATHER ? 4 : c->bytes;
    if (c->kind == HC_LOSS_GATHER)
        rc = fabric_gather_loss(r->fab, ready, end, r->run_err);
    else
        rc = fabric_reduce(r->fab, ready, c->bytes, end, r->run_err);
    if (rc)
        return err_prefix(r->run_err, rc, "fabric");
    if (*end < now)
        *end = now;
    last = *end;
    for (uint32_t n = 0; n < r->cfg.n_an; n++)
        last = res_later(
            last, fabric_claim(r, true, n, res_later(now, ready[n]), c->u.fab.src, bytes, false));
    if (c->kind != HC_LOSS_GATHER)
        last = res_later(last, fabric_claim(r, false, 0, arrival(r, now, *end, bytes), c->u.fab.dst,
                                            bytes, true));
    *end = last;
    *free_at = *end;
    return 0;
}

/* The ideal storage's free commands: every memory and storage access (perf only). */
static bool ideal_free(const struct machine *r, const struct hc_cmd *c)
{
    switch ((enum hc_kind)c->kind) {
    case HC_FLASH_RD:
    case HC_FLASH_WR:
    case HC_FABRIC_BCAST:
    case HC_FABRIC_REDUCE:
    case HC_LOSS_GATHER:
    case HC_HOST_WR:
    case HC_DMA_IN:
    case HC_DMA_OUT:
        return r->ideal;
    default:
        return false;
    }
}

/* Perform command c at now: *end, *free_at as the nodes define them. */
static int perform(struct machine *r, struct exec *x, const struct hc_cmd *c, uint64_t now,
                   uint64_t *end, uint64_t *free_at)
{
    const struct hc_prog *p = x->p;
    bool fab =
        c->kind == HC_FABRIC_BCAST || c->kind == HC_FABRIC_REDUCE || c->kind == HC_LOSS_GATHER;
    uint64_t ready[MACHINE_MAX_AN];

    *end = *free_at = now;
    if (ideal_free(r, c))
        return 0;
    for (uint32_t n = 0; fab && n < r->cfg.n_an; n++)
        ready[n] = ready_on(x, c, n, now);
    if (r->port.exec)
        return r->port.exec(r->port.user, p, c, fab ? ready : NULL, now, end, free_at, r->run_err);
    if (fab)
        return machine_fabric_exec(r, c, ready, now, end, free_at);
    if (c->node == HC_WN)
        return wnode_exec(r->wn, p, c, now, end, free_at, r->run_err);
    return anode_exec(r->an[c->node], p, c, now, end, free_at, r->run_err);
}

static void on_done(struct sim *sim, void *user);
static void on_release(struct sim *sim, void *user);
static void started(struct machine *r, struct exec *x, uint32_t id, uint64_t now, uint64_t end,
                    uint64_t free_at, bool placed);

static void record_busy(struct machine *r, const struct hc_cmd *c, uint64_t a, uint64_t b)
{
    r->res_busy_ps[c->res] += b - a;
    if (!r->busy_on)
        return;
    if (r->busy_max && r->n_busy >= r->busy_max) {
        r->busy_dropped++;
        return;
    }
    if (r->n_busy == r->cap_busy) {
        size_t cap = r->cap_busy ? 2 * r->cap_busy : 4096;
        struct machine_busy *q = realloc(r->busy, cap * sizeof(*q));
        if (!q) {
            r->busy_dropped++;
            return;
        }
        r->busy = q;
        r->cap_busy = cap;
    }
    r->busy[r->n_busy++] = (struct machine_busy){
        .res = c->res, .step = r->steps, .start_ps = a, .end_ps = b, .label = c->label};
}

/* The command running on resource k at now, or NONE. */
static uint32_t running_on(const struct exec *x, uint32_t k, uint64_t now)
{
    if (!x->rbusy[k] || x->rnext[k] >= x->rq0[k + 1])
        return NONE;
    uint32_t id = x->rq[x->rnext[k]];
    return x->end[id] > now ? id : NONE;
}

/*
 * The port rules of the RTL the schedule must keep (a compiler that breaks one times a machine
 * that cannot exist): the core's DMA port reads no pad while a GEMM runs (rtl/core/README.md),
 * so a tile store and a GEMM on one AN never overlap. 0, or -EPROTO with a report in the run's
 * message.
 */
static int check_port_rules(struct machine *r, const struct exec *x, const struct hc_cmd *c,
                            uint64_t now)
{
    uint32_t other = NONE;
    if (c->node == HC_WN || (c->kind != HC_GEMM && c->kind != HC_DMA_OUT))
        return 0;
    if (c->kind == HC_GEMM) {
        uint32_t d = running_on(x, hc_res_an(c->node, HC_RES_AN_DMA), now);
        other = d != NONE && x->p->cmd[d].kind == HC_DMA_OUT ? d : NONE;
    } else {
        other = running_on(x, hc_res_an(c->node, HC_RES_AN_CORE), now);
    }
    if (other == NONE || c->banked || x->p->cmd[other].banked)
        return 0;
    const struct hc_cmd *o = &x->p->cmd[other];
    return err_set(r->run_err, -EPROTO,
                   "schedule: AN %u: command %u '%s' would start at %.6f us while command %u "
                   "'%s' runs until %.6f us; the core's DMA port reads no pad while a GEMM runs "
                   "(rtl/core/README.md)",
                   c->node, c->id, c->label, (double)now / 1e6, o->id, o->label,
                   (double)x->end[other] / 1e6);
}

/* Start the next command of resource k if it can start now. */
static void try_start(struct machine *r, struct exec *x, uint32_t k)
{
    const struct hc_prog *p = x->p;
    uint64_t now = sim_now(r->sim), end = now, free_at = now;
    int rc;

    if (r->err || x->rbusy[k] || x->rnext[k] >= x->rq0[k + 1])
        return;
    uint32_t id = x->rq[x->rnext[k]];
    if (x->pending[id])
        return;
    const struct hc_cmd *c = &p->cmd[id];

    /* critical predecessor: the dependency that ended last, or the resource's last command */
    uint32_t crit = NONE;
    uint64_t t = 0;
    for (uint32_t i = 0; i < c->ndep; i++) {
        uint32_t d = p->deps[c->dep0 + i];
        if (crit == NONE || x->end[d] >= t) {
            crit = d;
            t = x->end[d];
        }
    }
    if (x->rlast[k] != NONE && (crit == NONE || x->free_t[x->rlast[k]] > t))
        crit = x->rlast[k];
    x->crit[id] = crit;

    rc = check_port_rules(r, x, c, now);
    if (!rc)
        rc = perform(r, x, c, now, &end, &free_at);
    if (rc == MACHINE_PORT_STARTED) {
        /* in flight until machine_port_done: the resource is busy, the command runs (for the
         * port rules) and its events keep the places they would take if scheduled now */
        x->rbusy[k] = 1;
        x->start[id] = x->free_t[id] = now;
        x->end[id] = UINT64_MAX;
        x->place[id] = sim_reserve(r->sim);
        (void)sim_reserve(r->sim);
        return;
    }
    if (rc) {
        r->err = rc;
        sim_stop(r->sim);
        return;
    }
    started(r, x, id, now, end, free_at, false);
}

/* Command id started at now ends at end and lets its resource go at free_at: record it and
 * schedule its events (placed: in the places reserved when a port started it). */
static void started(struct machine *r, struct exec *x, uint32_t id, uint64_t now, uint64_t end,
                    uint64_t free_at, bool placed)
{
    const struct hc_cmd *c = &x->p->cmd[id];
    int rc = 0;

    if (free_at < now)
        free_at = now;
    if (free_at > end)
        free_at = end;
    x->rbusy[c->res] = 1;
    x->start[id] = now;
    x->end[id] = end;
    x->free_t[id] = free_at;
    record_busy(r, c, now, free_at);
    r->step_commands++;
    r->step_gemms += c->kind == HC_GEMM;
    if (placed) {
        if (free_at < end)
            rc = sim_schedule_reserved(r->sim, x->place[id], free_at, 0, "release", on_release,
                                       &x->evr[id], NULL, r->run_err);
        if (!rc)
            rc = sim_schedule_reserved(r->sim, x->place[id] + 1, end, 0, "cmd", on_done, &x->ev[id],
                                       NULL, r->run_err);
    } else {
        if (free_at < end)
            rc = sim_schedule_at(r->sim, free_at, 0, "release", on_release, &x->evr[id], NULL,
                                 r->run_err);
        if (!rc)
            rc = sim_schedule_at(r->sim, end, 0, "cmd", on_done, &x->ev[id], NULL, r->run_err);
    }
    if (rc) {
        err_prefix(r->run_err, rc, "event kernel");
        r->err = rc;
        sim_stop(r->sim);
    }
}

int machine_port_done(struct machine *r, uint32_t id, int rc, uint64_t end, uint64_t free_at,
                      const struct err *e)
{
    struct exec *x = r->cur;
    uint64_t now = r->sim ? sim_now(r->sim) : 0;

    if (!x || !r->run_err || id >= x->p->n_cmd || x->end[id] != UINT64_MAX)
        return -EINVAL; /* no step runs, or the port did not start this command */
    if (r->err)
        return r->err;
    if (!rc && (end < x->start[id] || end < now))
        rc =
            err_set(r->run_err, -EPROTO,
                    "port: command %u '%s' started at %llu ps ends at %llu ps, before %s (%llu "
                    "ps)",
                    id, x->p->cmd[id].label, (unsigned long long)x->start[id],
                    (unsigned long long)end, end < x->start[id] ? "its start" : "the machine's now",
                    (unsigned long long)(end < x->start[id] ? x->start[id] : now));
    else if (rc)
        err_set(r->run_err, rc, "%s", e ? e->msg : "the port's command failed");
    if (rc) {
        r->err = rc;
        sim_stop(r->sim);
        return rc;
    }
    started(r, x, id, x->start[id], end, free_at, true);
    return r->err;
}

/* The command lets its resource go: the resource's next command may start. */
static void release(struct machine *r, struct exec *x, uint32_t id)
{
    uint32_t k = x->p->cmd[id].res;
    x->rbusy[k] = 0;
    x->rlast[k] = id;
    x->rnext[k]++;
    try_start(r, x, k);
}

static void on_release(struct sim *sim, void *user)
{
    struct evref *e = user;
    (void)sim;
    release(e->r, e->x, e->id);
}

static void on_done(struct sim *sim, void *user)
{
    struct evref *e = user;
    struct machine *r = e->r;
    struct exec *x = e->x;

    (void)sim;
    x->done++;
    for (uint32_t i = x->succ0[e->id]; i < x->succ0[e->id + 1]; i++) {
        uint32_t s = x->succ[i];
        if (--x->pending[s] == 0)
            try_start(r, x, x->p->cmd[s].res);
    }
    if (x->free_t[e->id] == x->end[e->id])
        release(r, x, e->id);
}

/* Run program x from now until every command is done. */
static int run(struct machine *r, struct exec *x, struct err *e)
{
    const struct hc_prog *p = x->p;
    struct err re; /* the message of the run's first failure */

    err_clear(&re);
    r->run_err = &re;
    r->err = 0;
    r->cur = x;
    x->done = 0;
    for (uint32_t i = 0; i < p->n_cmd; i++)
        x->pending[i] = p->cmd[i].ndep;
    for (uint32_t k = 0; k < p->n_res; k++) {
        x->rnext[k] = x->rq0[k];
        x->rbusy[k] = 0;
        x->rlast[k] = NONE;
    }
    for (uint32_t k = 0; k < p->n_res; k++)
        try_start(r, x, k);
    if (!r->err) {
        struct err ke;
        int rc = r->port.run ? r->port.run(r->port.user, r->sim, &ke) : sim_run(r->sim, &ke);
        if (rc && !r->err) {
            r->err = rc;
            err_set(&re, rc, "event kernel: %s", ke.msg);
        }
    }
    if (!r->err && x->done != p->n_cmd) {
        r->err = -EDEADLK;
        err_set(&re, -EDEADLK, "scheduler: %u of %u commands done, nothing left to run", x->done,
                p->n_cmd);
    }
    r->run_err = NULL;
    if (r->err)
        return err_set(e, r->err, "%s", re.msg);
    return 0;
}

/* ---------------------------------------------------------------- layer records */

static int cmp_iv(const void *a, const void *b)
{
    const struct iv *x = a, *y = b;
    return x->a < y->a ? -1 : x->a > y->a;
}

static uint64_t union_len(struct iv *v, size_t n)
{
    uint64_t sum = 0, a = 0, b = 0;
    bool open = false;
    qsort(v, n, sizeof(*v), cmp_iv);
    for (size_t i = 0; i < n; i++) {
        if (open && v[i].a <= b) {
            if (v[i].b > b)
                b = v[i].b;
            continue;
        }
        if (open)
            sum += b - a;
        a = v[i].a;
        b = v[i].b;
        open = true;
    }
    if (open)
        sum += b - a;
    return sum;
}

/* The row of layer l (0-based), pass q of the step just run, from its commands ids[0..n) (in
 * program order); false if the layer has no command in that pass. */
static bool layer_rec(struct machine *r, const struct exec *x, uint32_t l, int q,
                      const uint32_t *ids, size_t n, struct machine_layer_rec *rec)
{
    const struct hc_prog *p = x->p;
    uint32_t last = NONE;

    if (!n)
        return false;
    memset(rec, 0, sizeof(*rec));
    rec->step = r->steps;
    rec->layer = l + 1;
    rec->pass = (enum machine_pass)q;
    rec->start_ps = UINT64_MAX;
    for (size_t j = 0; j < n; j++) {
        uint32_t i = ids[j];
        if (x->start[i] < rec->start_ps)
            rec->start_ps = x->start[i];
        if (last == NONE || x->end[i] > rec->end_ps) {
            rec->end_ps = x->end[i];
            last = i;
        }
    }
    for (int ph = 0; ph < MACHINE_PH_N; ph++) {
        size_t k = 0;
        for (size_t j = 0; j < n; j++) {
            uint32_t i = ids[j];
            if (p->cmd[i].phase == ph && x->end[i] > x->start[i])
                r->iv[k++] = (struct iv){x->start[i], x->end[i]};
        }
        rec->phase_ps[ph] = union_len(r->iv, k);
    }
    /* critical path inside [start, end] */
    uint64_t crit[MACHINE_PH_N] = {0};
    for (uint32_t i = last; i != NONE; i = x->crit[i]) {
        uint64_t a = x->start[i] > rec->start_ps ? x->start[i] : rec->start_ps;
        uint64_t b = x->end[i] < rec->end_ps ? x->end[i] : rec->end_ps;
        if (b > a)
            crit[p->cmd[i].phase] += b - a;
        if (x->end[i] <= rec->start_ps)
            break;
    }
    rec->waited_on = MACHINE_PH_COMPUTE;
    for (int ph = 1; ph < MACHINE_PH_N; ph++)
        if (crit[ph] > crit[rec->waited_on])
            rec->waited_on = (enum machine_phase)ph;
    return true;
}

static int push_rec(struct machine *r, const struct machine_layer_rec *rec)
{
    if (r->n_rec == r->cap_rec) {
        size_t cap = r->cap_rec ? 2 * r->cap_rec : 256;
        struct machine_layer_rec *q = realloc(r->rec, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        r->rec = q;
        r->cap_rec = cap;
    }
    r->rec[r->n_rec++] = *rec;
    return 0;
}

/* The step's rows: fwd layers 1..L, then bwd L..1. */
static int make_records(struct machine *r, struct exec *x)
{
    const struct hc_prog *p = x->p;
    uint32_t L = p->n_layers;

    if (r->cap_iv < p->n_cmd) {
        struct iv *v = realloc(r->iv, p->n_cmd * sizeof(*v));
        if (!v)
            return -ENOMEM;
        r->iv = v;
        r->cap_iv = p->n_cmd;
    }
    for (int q = 0; q < 2; q++) {
        for (uint32_t j = 0; j < L; j++) {
            uint32_t l = q == MACHINE_FWD ? j : L - 1 - j;
            size_t b = 2 * (size_t)l + (size_t)q;
            struct machine_layer_rec rec;
            if (layer_rec(r, x, l, q, x->lx + x->lx0[b], x->lx0[b + 1] - x->lx0[b], &rec) &&
                push_rec(r, &rec))
                return -ENOMEM;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- machine */

static enum anode_mode anode_mode_of(enum machine_fidelity f)
{
    return f == MACHINE_RTL ? ANODE_RTL : f == MACHINE_LOCKSTEP ? ANODE_LOCKSTEP : ANODE_TLM;
}

static enum nfw_time_mode nfw_mode_of(enum machine_fidelity f)
{
    return f == MACHINE_RTL        ? NFW_TIME_RTL
           : f == MACHINE_LOCKSTEP ? NFW_TIME_LOCKSTEP
                                   : NFW_TIME_TWIN;
}

/* Every node's write pipeline to fidelity f; the WN's seed follows the ANs'. */
static int set_write_modes(struct machine *r, enum machine_fidelity f, struct err *e)
{
    const struct nfw_be_ops *rtl = r->cfg.nfw_rtl;
    int rc;

    for (uint32_t n = 0; n < r->cfg.n_an; n++)
        if ((rc = anode_set_write_mode(r->an[n], nfw_mode_of(f), rtl, e)))
            return rc;
    if (r->wn &&
        (rc = wnode_set_write_mode(r->wn, nfw_mode_of(f), rtl, r->cfg.seed + r->cfg.n_an, e)))
        return rc;
    return 0;
}

/* The resources of the training program, their counters and the kernel they run on. */
static int build_executor(struct machine *r, struct err *e)
{
    int rc;

    r->n_res = r->train->n_res;
    r->resname = calloc(r->n_res, sizeof(*r->resname));
    r->res_busy_ps = calloc(r->n_res, sizeof(*r->res_busy_ps));
    if (!r->resname || !r->res_busy_ps)
        return err_set(e, -ENOMEM, "machine: out of memory");
    if ((rc = sim_create(&r->sim, e)))
        return err_prefix(e, rc, "machine");
    for (uint32_t k = 0; k < r->n_res; k++)
        hc_res_name(k, r->resname[k], sizeof(r->resname[k]));
    if ((rc = exec_init(r, &r->xt, r->train, true)) ||
        (r->eval && (rc = exec_init(r, &r->xe, r->eval, false))))
        return err_set(e, rc, "machine: out of memory");
    return 0;
}

/* The training and evaluation programs (perf: no evaluation), and the executor. */
static int build_programs(struct machine *r, const struct machine_cfg *c, struct err *e)
{
    struct hc_cfg h;
    int rc;

    hc_from_machine(c, false, &h);
    if ((rc = hc_compile(&h, &r->train, e)))
        return err_prefix(e, rc, "compile");
    hc_from_machine(c, true, &h);
    if (!r->perf && (rc = hc_compile(&h, &r->eval, e)))
        return err_prefix(e, rc, "compile (evaluation)");
    return build_executor(r, e);
}

/* The ANs' DMA timing: the DMA's SRAM map is the core's, its memory the tensor buffer. */
static int build_dma_timing(struct machine *r, const struct machine_cfg *c, struct err *e)
{
    int rc = dma_time_create_core(&c->dma, &c->core, &c->tb, c->core_period_ps, &r->dma_time, e);
    if (rc)
        return err_prefix(e, rc, "AN DMA");
    return 0;
}

/* The SSDs of a node's storage: with the SSD array (perf), drive; else none (its flash). */
static const struct ssd_cfg *ssd_of(const struct machine *r, const struct ssd_cfg *drive)
{
    return r->perf && r->cfg.storage == MACHINE_STORAGE_SSD_RAID0 ? drive : NULL;
}

/* Perf: the bytes of each W, M and O record of the program: its rec_size when it has one, else
 * those of the record's first flash command at the WN (0: no command names it); size[s] has
 * prog->n_rec[s] entries. */
static int record_sizes(const struct hc_prog *p, uint64_t *size[HC_N_STREAMS], struct err *e)
{
    for (int s = HC_S_W; s < HC_N_STREAMS; s++) {
        size[s] = calloc(p->n_rec[s] ? p->n_rec[s] : 1, sizeof(*size[s]));
        if (!size[s])
            return err_set(e, -ENOMEM, "machine: out of memory for %u record sizes", p->n_rec[s]);
        if (p->rec_size[s])
            memcpy(size[s], p->rec_size[s], p->n_rec[s] * sizeof(*size[s]));
    }
    for (uint32_t i = 0; i < p->n_cmd; i++) {
        const struct hc_cmd *c = &p->cmd[i];
        if ((c->kind != HC_FLASH_RD && c->kind != HC_FLASH_WR) || c->node != HC_WN ||
            c->op < HC_S_W || c->op >= HC_N_STREAMS || c->u.fl.rec >= p->n_rec[c->op] ||
            p->rec_size[c->op])
            continue;
        if (!size[c->op][c->u.fl.rec])
            size[c->op][c->u.fl.rec] = c->bytes;
    }
    return 0;
}

/* The Weight Node: tlm, rtl, lockstep: the model's initial parameters (init_seed); perf: the
 * sizes of its records. Its flash preloaded (not with the ideal storage: it has no flash). */
static int build_wnode(struct machine *r, const struct machine_cfg *c, struct err *e)
{
    struct dnn_params *p0 = NULL;
    uint64_t *size[HC_N_STREAMS] = {0};
    uint64_t done;
    int rc;

    struct dram_cfg wn_tb = c->tb;
    if (c->wn_tb_channels)
        wn_tb.channels = c->wn_tb_channels;
    struct wnode_cfg wc = {.tb = wn_tb,
                           .flash = c->wn_flash,
                           .period_ps = c->optu.period_ps,
                           .lanes = c->optu.lanes,
                           .latency = c->optu.latency,
                           .cost_sgd = c->optu.cost_sgd,
                           .cost_adam = c->optu.cost_adam,
                           .state_payload = c->wn_state_payload,
                           .write_pipe = c->write_pipe,
                           .perf = r->perf,
                           .adam = c->opt.kind == DNN_OPT_ADAM,
                           .ssd = ssd_of(r, &c->wn_ssd),
                           .ssd_grain = c->ssd_grain};
    flash_fault_cfg_for_node(&wc.flash.fault, FLASH_FAULT_NODE_WN);
    memcpy(wc.n_rec, r->train->n_rec, sizeof(wc.n_rec));
    if (r->perf)
        rc = record_sizes(r->train, size, e);
    else
        rc = dnn_params_create(
            &(struct dnn_params_cfg){.model = &c->model, .opt = &c->opt, .seed = c->init_seed}, &p0,
            e);
    if (rc) {
        err_prefix(e, rc, "parameters");
        goto out;
    }
    for (int s = 0; s < HC_N_STREAMS; s++)
        wc.rec_bytes[s] = size[s];
    if ((rc = wnode_create(&wc, p0, &r->wn, e)))
        goto out;
    if (!r->ideal && (rc = wnode_preload(r->wn, r->train, 0, &done, e))) {
        err_prefix(e, rc, "preload");
        goto out;
    }
    if (!r->ideal)
        sim_run_until(r->sim, done, NULL);
out:
    dnn_params_destroy(p0);
    for (int s = 0; s < HC_N_STREAMS; s++)
        free(size[s]);
    return rc;
}

/* The fabric, the Activation Nodes and the Weight Node, its flash preloaded with the model. */
static int build_nodes(struct machine *r, const struct machine_cfg *c, struct err *e)
{
    int rc;

    if ((rc = fabric_create(&r->cfg.fabric, &r->fab, e)))
        return err_prefix(e, rc, "fabric");
    for (uint32_t n = 0; n < c->n_an; n++) {
        struct anode_cfg ac = {.index = n,
                               .core = c->core,
                               .period_ps = c->core_period_ps,
                               .vu = c->vu,
                               .tb = c->tb,
                               .flash = c->an_flash,
                               .rtl = c->rtl,
                               .seed = c->seed,
                               .batch = c->batch,
                               .n_act = r->train->n_rec[HC_S_V],
                               .write_pipe = c->write_pipe,
                               .perf = r->perf,
                               .ssd = ssd_of(r, &c->an_ssd),
                               .ssd_grain = c->ssd_grain};
        /* each node its own fault draws (flash_fault_node_seed) */
        flash_fault_cfg_for_node(&ac.flash.fault, n);
        if ((rc = anode_create(&ac, r->dma_time, &r->an[n], e)))
            return rc;
        r->rid_fab[n] = dram_requester(anode_tb(r->an[n]), "fabric");
    }
    if ((rc = build_wnode(r, c, e)))
        return rc;
    r->rid_fab_wn = dram_requester(wnode_tb(r->wn), "fabric");
    /* The ideal storage: every memory access free, the optimizer unit's streams included (the
     * flash, DMA and fabric commands are not performed at all: ideal_free). */
    for (uint32_t n = 0; n < c->n_an; n++)
        dram_set_free(anode_tb(r->an[n]), r->ideal);
    dram_set_free(wnode_tb(r->wn), r->ideal);
    return 0;
}

/* A machine of configuration c before anything is built: perf or not, for its life. */
static struct machine *machine_new(const struct machine_cfg *c, struct err *e)
{
    struct machine *r = calloc(1, sizeof(*r));
    if (!r) {
        err_set(e, -ENOMEM, "machine: out of memory");
        return NULL;
    }
    r->cfg = *c;
    r->cfg.fabric.n_an = c->n_an;
    r->fid = MACHINE_TLM;
    r->perf = c->fidelity == MACHINE_PERF;
    r->ideal = r->perf && c->storage == MACHINE_STORAGE_IDEAL;
    return r;
}

int machine_create(const struct machine_cfg *c, struct machine **out, struct err *e)
{
    struct machine *r;
    int rc;

    *out = NULL;
    rc = machine_validate(c, NULL, e);
    if (rc)
        return rc;
    if (!(r = machine_new(c, e)))
        return -ENOMEM;
    if ((rc = build_programs(r, c, e)) || (rc = build_dma_timing(r, c, e)) ||
        (rc = build_nodes(r, c, e))) {
        machine_destroy(r);
        return rc;
    }
    if (r->perf)
        r->fid = MACHINE_PERF;
    else if ((rc = machine_set_fidelity(r, c->fidelity, e))) {
        machine_destroy(r);
        return rc;
    }
    *out = r;
    return 0;
}

/* ---------------------------------------------------------------- perf programs */

/* What a perf machine needs of c (no model, no RTL limits). */
static int check_program_cfg(const struct machine_cfg *c, struct err *e)
{
    if (c->core.rows < 1 || c->core.cols < 1 || c->cores_per_an < 1)
        return err_set(e, -EINVAL,
                       "core.rows x core.cols = %u x %u, machine.cores_per_node = %u; accepted "
                       "all >= 1",
                       c->core.rows, c->core.cols, c->cores_per_an);
    if (c->storage >= MACHINE_STORAGE_N)
        return err_set(e, -EINVAL, "storage.backend %d: accepted behemoth, ssd-raid0 or ideal",
                       (int)c->storage);
    return check_blocks(c, e);
}

/* The flash command c names a stream and record the program has, at the node that holds it. */
static int check_flash_cmd(const struct hc_prog *p, const struct hc_cmd *c, struct err *e)
{
    bool wn = c->node == HC_WN;
    if (c->op == HC_S_NV)
        return err_set(e, -EINVAL,
                       "command %u '%s': a perf program reads no inputs (stream NV); the "
                       "fully connected models read them (machine_create)",
                       c->id, c->label);
    if (c->op >= HC_N_STREAMS || wn != (c->op != HC_S_V))
        return err_set(e, -EINVAL, "command %u '%s': stream %u is not one of %s", c->id, c->label,
                       c->op, wn ? "the WN's (W, M, O)" : "an AN's (V)");
    if (c->u.fl.rec >= p->n_rec[c->op])
        return err_set(e, -EINVAL, "command %u '%s': record %u of stream %s; the program has %u",
                       c->id, c->label, c->u.fl.rec, hc_stream_name((enum hc_stream)c->op),
                       p->n_rec[c->op]);
    return 0;
}

/* Command i of p can be scheduled and performed: node, resource, kind, layer, dependencies. */
static int check_cmd(const struct hc_prog *p, uint32_t i, uint32_t n_an, struct err *e)
{
    const struct hc_cmd *c = &p->cmd[i];

    if (c->id != i || c->kind >= HC_N_KINDS || c->pass > HC_BWD || c->phase >= HC_PH_N)
        return err_set(e, -EINVAL,
                       "command %u '%s': id %u, kind %u, pass %u, phase %u; accepted id = its "
                       "index, a kind, pass and phase of models/host/compile.h",
                       i, c->label, c->id, c->kind, c->pass, c->phase);
    if ((c->node >= n_an && c->node != HC_WN) || c->res >= p->n_res)
        return err_set(e, -EINVAL, "command %u '%s': node %u, resource %u; the machine has %u ANs",
                       i, c->label, c->node, c->res, n_an);
    /* an AN's command on one of its own resources; the WN's and the fabric's on the fixed ones */
    if (c->node == HC_WN
            ? c->res >= HC_RES_FIXED
            : c->res < HC_RES_FIXED || (c->res - HC_RES_FIXED) / HC_RES_AN_N != c->node)
        return err_set(e, -EINVAL, "command %u '%s': resource %u is not one of node %u's", i,
                       c->label, c->res, c->node);
    if (c->layer >= p->n_layers)
        return err_set(e, -EINVAL, "command %u '%s': layer %u; the program has %u", i, c->label,
                       c->layer + 1, p->n_layers);
    if (c->dep0 > p->n_deps || c->ndep > p->n_deps - c->dep0)
        return err_set(e, -EINVAL, "command %u '%s': dependencies outside the program's", i,
                       c->label);
    for (uint32_t k = 0; k < c->ndep; k++)
        if (p->deps[c->dep0 + k] >= i)
            return err_set(e, -EINVAL,
                           "command %u '%s' depends on command %u; accepted earlier commands only",
                           i, c->label, p->deps[c->dep0 + k]);
    if (c->kind == HC_FLASH_RD || c->kind == HC_FLASH_WR)
        return check_flash_cmd(p, c, e);
    return 0;
}

/* A program the machine can run: perf, its nodes and resources the machine's, each command
 * well formed. */
static int check_program(const struct hc_prog *p, uint32_t n_an, struct err *e)
{
    if (!p->perf)
        return err_set(e, -EINVAL,
                       "the program is not a perf program (hc_prog.perf); fully connected models "
                       "run with machine_create");
    if (p->n_res != HC_RES_FIXED + n_an * HC_RES_AN_N)
        return err_set(e, -EINVAL, "the program names %u resources; %u Activation Nodes have %u",
                       p->n_res, n_an, HC_RES_FIXED + n_an * HC_RES_AN_N);
    for (uint32_t i = 0; i < p->n_cmd; i++) {
        int rc = check_cmd(p, i, n_an, e);
        if (rc)
            return rc;
    }
    return 0;
}

/* The DMA timing memo, when the DMA twin can address the core's map (a perf program's DMA
 * commands carry their cycles; only one without needs the memo). */
static int build_program_dma(struct machine *r, const struct machine_cfg *c, struct err *e)
{
    struct err why;
    int rc = build_dma_timing(r, c, &why);

    if (rc == -EINVAL)
        return 0;
    return rc ? err_set(e, rc, "%s", why.msg) : 0;
}

int machine_create_program(const struct machine_cfg *c, struct hc_prog *p, struct machine **out,
                           struct err *e)
{
    struct machine_cfg pc;
    struct machine *r;
    int rc;

    *out = NULL;
    if (!p)
        return err_set(e, -EINVAL, "machine_create_program: no program");
    if ((rc = check_program_cfg(c, e)) || (rc = check_program(p, c->n_an, e))) {
        hc_prog_free(p);
        return rc;
    }
    pc = *c;
    pc.fidelity = MACHINE_PERF;
    pc.rtl = NULL;
    if (!(r = machine_new(&pc, e))) {
        hc_prog_free(p);
        return -ENOMEM;
    }
    r->given = true;
    r->train = p;
    if ((rc = build_executor(r, e)) || (rc = build_program_dma(r, &pc, e)) ||
        (rc = build_nodes(r, &pc, e))) {
        machine_destroy(r);
        return rc;
    }
    r->fid = MACHINE_PERF;
    *out = r;
    return 0;
}

void machine_destroy(struct machine *r)
{
    if (!r)
        return;
    for (uint32_t n = 0; n < MACHINE_MAX_AN; n++)
        anode_destroy(r->an[n]);
    wnode_destroy(r->wn);
    fabric_destroy(r->fab);
    dma_time_destroy(r->dma_time);
    exec_free(&r->xt);
    exec_free(&r->xe);
    hc_prog_free(r->train);
    hc_prog_free(r->eval);
    sim_destroy(r->sim);
    free(r->resname);
    free(r->res_busy_ps);
    free(r->buf);
    free(r->rec);
    free(r->busy);
    free(r->ctr);
    free(r->iv);
    free(r);
}

void machine_set_port(struct machine *r, const struct machine_port *p)
{
    if (p)
        r->port = *p;
    else
        memset(&r->port, 0, sizeof(r->port));
}

struct wnode *machine_wnode(struct machine *r)
{
    return r->wn;
}

struct anode *machine_anode(struct machine *r, uint32_t n)
{
    return n < r->cfg.n_an ? r->an[n] : NULL;
}

const struct machine_cfg *machine_config(const struct machine *r)
{
    return &r->cfg;
}

uint64_t machine_now(const struct machine *r)
{
    return sim_now(r->sim);
}

const struct hc_prog *machine_program(const struct machine *r)
{
    return r->train;
}

void machine_cmd_times(const struct machine *r, const uint64_t **start, const uint64_t **end,
                       size_t *n)
{
    *start = r->xt.start;
    *end = r->xt.end;
    *n = r->steps && r->xt.start ? r->train->n_cmd : 0;
}

int machine_set_fidelity(struct machine *r, enum machine_fidelity f, struct err *e)
{
    if (r->perf && f == MACHINE_PERF)
        return 0;
    if (r->perf || f == MACHINE_PERF)
        return err_set(e, -EINVAL,
                       "fidelity %s -> %s: a perf machine holds no data (weights, activations, "
                       "inputs), so there is none to switch to or from; perf is chosen when the "
                       "machine is created (machine_cfg.fidelity)",
                       machine_fidelity_name(r->fid), machine_fidelity_name(f));
    if (f != MACHINE_TLM && f != MACHINE_RTL && f != MACHINE_LOCKSTEP)
        return err_set(e, -EINVAL, "fidelity %d: accepted tlm, rtl, lockstep", (int)f);
    for (uint32_t n = 0; n < r->cfg.n_an; n++) {
        int rc = anode_set_mode(r->an[n], anode_mode_of(f), e);
        if (rc) {
            /* back to the mode they had (it worked before): the message stays this one's */
            for (uint32_t k = 0; k < n; k++)
                anode_set_mode(r->an[k], anode_mode_of(r->fid), NULL);
            return rc;
        }
    }
    {
        int rc = set_write_modes(r, f, e);
        if (rc) {
            for (uint32_t k = 0; k < r->cfg.n_an; k++)
                anode_set_mode(r->an[k], anode_mode_of(r->fid), NULL);
            set_write_modes(r, r->fid, NULL);
            return rc;
        }
    }
    r->fid = f;
    return 0;
}

enum machine_fidelity machine_get_fidelity(const struct machine *r)
{
    return r->fid;
}

int machine_trace_core(struct machine *r, uint32_t an, const struct vtrace_opts *o, struct err *e)
{
    if (an >= r->cfg.n_an)
        return err_set(e, -EINVAL, "trace: AN %u; accepted 0..%u", an, r->cfg.n_an - 1);
    return anode_trace_core(r->an[an], o, e);
}

int machine_trace_core_close(struct machine *r, uint32_t an, struct err *e)
{
    if (an >= r->cfg.n_an)
        return err_set(e, -EINVAL, "trace: AN %u; accepted 0..%u", an, r->cfg.n_an - 1);
    return anode_trace_core_close(r->an[an], e);
}

int machine_trace_write(struct machine *r, uint32_t an, const struct vtrace_opts *o, struct err *e)
{
    if (an >= r->cfg.n_an)
        return err_set(e, -EINVAL, "trace: AN %u; accepted 0..%u", an, r->cfg.n_an - 1);
    return anode_trace_write(r->an[an], o, e);
}

int machine_trace_write_close(struct machine *r, uint32_t an, struct err *e)
{
    if (an >= r->cfg.n_an)
        return err_set(e, -EINVAL, "trace: AN %u; accepted 0..%u", an, r->cfg.n_an - 1);
    return anode_trace_write_close(r->an[an], e);
}

/* ---------------------------------------------------------------- data */

/* What machine_load_inputs accepts: count a positive multiple of B; perf takes no data but
 * checks the labels it is given. */
static int check_inputs(const struct machine *r, const uint8_t *images, const uint8_t *labels,
                        uint32_t count, struct err *e)
{
    uint32_t B = r->cfg.batch, C = dnn_model_classes(&r->cfg.model);

    if (r->given)
        return err_set(e, -EINVAL,
                       "load inputs: the machine runs a perf program, which reads no inputs");
    if (!count || count % B)
        return err_set(e, -EINVAL,
                       "load inputs: %u samples; accepted a positive multiple of the "
                       "batch B = %u",
                       count, B);
    if (!r->perf && (!images || !labels))
        return err_set(e, -EINVAL, "load inputs: no images or labels; only perf takes none");
    for (uint32_t i = 0; labels && i < count; i++)
        if (labels[i] >= C)
            return err_set(e, -EINVAL, "load inputs: sample %u has label %u; accepted 0..%u", i,
                           labels[i], C - 1);
    return 0;
}

int machine_load_inputs(struct machine *r, const uint8_t *images, const uint8_t *labels,
                        uint32_t count, struct err *e)
{
    uint32_t B = r->cfg.batch, N = r->cfg.n_an, rr = B / N;
    uint32_t in = dnn_model_inputs(&r->cfg.model);
    uint64_t now = sim_now(r->sim), last = now;
    int rc = check_inputs(r, images, labels, count, e);

    if (rc)
        return rc;
    if (r->ideal) { /* no storage to write them to: only their number counts */
        r->ideal_pending += count / B;
        return 0;
    }
    for (uint32_t b = 0; b < count / B; b++) {
        for (uint32_t n = 0; n < N; n++) {
            size_t row = (size_t)b * B + (size_t)n * rr;
            uint64_t done;
            rc = anode_load_shard(r->an[n], now, images ? images + row * in : NULL,
                                  labels ? labels + row : NULL, rr, in, &done, e);
            if (rc)
                return err_prefix(e, rc, "load inputs, batch %u", b);
            if (done > last)
                last = done;
        }
    }
    sim_run_until(r->sim, last, NULL);
    return 0;
}

uint32_t machine_batches_pending(const struct machine *r)
{
    return r->ideal ? r->ideal_pending : anode_shards(r->an[0]);
}

int machine_clear_inputs(struct machine *r, struct err *e)
{
    r->ideal_pending = 0;
    for (uint32_t n = 0; n < r->cfg.n_an; n++) {
        int rc = anode_clear_shards(r->an[n], sim_now(r->sim), e);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------- steps */

int machine_step(struct machine *r, struct machine_step_info *info, struct err *e)
{
    uint64_t t0 = sim_now(r->sim);
    int rc;

    if (!r->given && !machine_batches_pending(r))
        return err_set(e, -ENODATA, "step: no batch loaded; call machine_load_inputs first");
    r->step_commands = r->step_gemms = 0;
    r->loss = NAN; /* perf: no loss is computed */
    uint64_t k = wnode_steps(r->wn);
    rc = run(r, &r->xt, e);
    if (rc)
        return rc;
    if (r->ideal && r->ideal_pending)
        r->ideal_pending--;
    if ((rc = wnode_end_step(r->wn, e)))
        return rc;
    for (uint32_t n = 0; n < r->cfg.n_an; n++)
        if ((rc = anode_end_step(r->an[n], sim_now(r->sim), r->cfg.act_fresh_lb, e)))
            return rc;
    if ((rc = make_records(r, &r->xt)))
        return err_set(e, rc, "records: out of memory");
    r->steps++;
    r->sim_steps_ps += sim_now(r->sim) - t0;
    if (info) {
        info->step = k;
        info->loss = r->loss;
        info->start_ps = t0;
        info->end_ps = sim_now(r->sim);
        info->commands = r->step_commands;
        info->gemms = r->step_gemms;
    }
    return 0;
}

int machine_train_batch(struct machine *r, const uint8_t *images, const uint8_t *labels,
                        struct machine_step_info *info, struct err *e)
{
    int rc = machine_load_inputs(r, images, labels, r->cfg.batch, e);
    return rc ? rc : machine_step(r, info, e);
}

int machine_eval(struct machine *r, const uint8_t *images, const uint8_t *labels, uint32_t count,
                 uint32_t *correct, float *logits, struct err *e)
{
    uint32_t B = r->cfg.batch, N = r->cfg.n_an, rr = B / N;
    uint32_t in = dnn_model_inputs(&r->cfg.model), C = dnn_model_classes(&r->cfg.model);
    const struct hc_prog *p = r->eval;
    uint32_t ok = 0;
    int rc;

    *correct = 0;
    if (r->perf)
        return err_set(e, -EINVAL, "eval: evaluation needs data; perf is timing only");
    if (!count)
        return err_set(e, -EINVAL, "eval: 0 samples; accepted at least one");
    if (ensure_buf(r, (size_t)rr * (in + 1) + (size_t)rr * C * 4 + 64))
        return err_set(e, -ENOMEM, "eval: out of memory");
    for (uint32_t b0 = 0; b0 < count; b0 += B) {
        for (uint32_t n = 0; n < N; n++) { /* host writes the shard into the AN's TB */
            uint8_t *sh = r->buf;
            for (uint32_t i = 0; i < rr; i++) {
                uint64_t s = (uint64_t)b0 + (uint64_t)n * rr + i;
                if (s < count)
                    memcpy(sh + (size_t)i * in, images + s * in, in);
                else
                    memset(sh + (size_t)i * in, 0, in);
                sh[(size_t)rr * in + i] = 0;
            }
            if (dram_write(anode_tb(r->an[n]), p->an_in, sh, (size_t)rr * in + rr))
                return err_set(e, -ERANGE, "eval: tensor buffer too small");
        }
        rc = run(r, &r->xe, e);
        if (rc)
            return rc;
        for (uint32_t n = 0; n < N; n++) {
            uint8_t *cls = r->buf;
            float *z = (float *)(r->buf + ((rr + 63) / 64 * 64));
            dram_read(anode_tb(r->an[n]), p->an_cls, cls, rr);
            if (logits)
                dram_read(anode_tb(r->an[n]), p->an_logits, z, (size_t)rr * C * 4);
            for (uint32_t i = 0; i < rr; i++) {
                uint64_t s = (uint64_t)b0 + (uint64_t)n * rr + i;
                if (s >= count)
                    continue;
                ok += cls[i] == labels[s];
                if (logits)
                    memcpy(logits + s * C, z + (size_t)i * C, (size_t)C * 4);
            }
        }
    }
    r->evals++;
    *correct = ok;
    return 0;
}

/* ---------------------------------------------------------------- parameters */

const struct dnn_params *machine_params(const struct machine *r)
{
    return wnode_params(r->wn);
}

int machine_set_params(struct machine *r, const struct dnn_params *p, struct err *e)
{
    struct dnn_params *d = wnode_params(r->wn);
    uint64_t done;

    if (!d)
        return err_set(e, -EINVAL, "restore: a perf machine keeps no parameters (timing only)");
    if (p->model.n_layers != d->model.n_layers)
        return err_set(e, -EINVAL, "restore: %u layers, the machine has %u", p->model.n_layers,
                       d->model.n_layers);
    for (uint32_t l = 0; l < p->model.n_layers; l++)
        if (p->model.layer[l].in != d->model.layer[l].in ||
            p->model.layer[l].out != d->model.layer[l].out)
            return err_set(e, -EINVAL, "restore: layer %u is %ux%u, the machine's is %ux%u", l + 1,
                           p->model.layer[l].in, p->model.layer[l].out, d->model.layer[l].in,
                           d->model.layer[l].out);
    if (p->opt.kind != d->opt.kind)
        return err_set(e, -EINVAL, "restore: optimizer %s, the machine runs %s",
                       p->opt.kind == DNN_OPT_ADAM ? "adam" : "sgd",
                       d->opt.kind == DNN_OPT_ADAM ? "adam" : "sgd");
    for (uint32_t l = 0; l < p->model.n_layers; l++) {
        size_t nw = (size_t)p->model.layer[l].in * p->model.layer[l].out;
        size_t nb = p->model.layer[l].out;
        memcpy(d->layer[l].w, p->layer[l].w, nw * 4);
        memcpy(d->layer[l].b, p->layer[l].b, nb * 4);
        memcpy(d->layer[l].wq, p->layer[l].wq, nw * 2);
        memcpy(d->layer[l].w_v, p->layer[l].w_v, nw * 4);
        memcpy(d->layer[l].b_v, p->layer[l].b_v, nb * 4);
        if (p->layer[l].w_m && d->layer[l].w_m) {
            memcpy(d->layer[l].w_m, p->layer[l].w_m, nw * 4);
            memcpy(d->layer[l].b_m, p->layer[l].b_m, nb * 4);
        }
    }
    d->step = p->step;
    d->updated = 0;
    d->opt = p->opt;
    int rc = wnode_preload(r->wn, r->train, sim_now(r->sim), &done, e);
    if (rc)
        return err_prefix(e, rc, "restore");
    sim_run_until(r->sim, done, NULL);
    return 0;
}

/* ---------------------------------------------------------------- records */

const struct machine_layer_rec *machine_layer_recs(const struct machine *r, size_t *n)
{
    *n = r->n_rec;
    return r->rec;
}

void machine_clear_records(struct machine *r)
{
    r->n_rec = 0;
}

size_t machine_resources(const struct machine *r)
{
    return r->n_res;
}

const char *machine_resource_name(const struct machine *r, size_t i)
{
    return i < r->n_res ? r->resname[i] : "?";
}

void machine_record_busy(struct machine *r, bool on, size_t max)
{
    r->busy_on = on;
    r->busy_max = max;
}

const struct machine_busy *machine_busy(const struct machine *r, size_t *n, uint64_t *dropped)
{
    *n = r->n_busy;
    if (dropped)
        *dropped = r->busy_dropped;
    return r->busy;
}

void machine_clear_busy(struct machine *r)
{
    r->n_busy = 0;
    r->busy_dropped = 0;
}

static void ctr(struct machine *r, bool f, uint64_t u, double d, const char *unit, const char *desc,
                const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void ctr(struct machine *r, bool f, uint64_t u, double d, const char *unit, const char *desc,
                const char *fmt, ...)
{
    if (r->n_ctr == r->cap_ctr) {
        size_t cap = r->cap_ctr ? 2 * r->cap_ctr : 256;
        struct machine_counter *q = realloc(r->ctr, cap * sizeof(*q));
        if (!q)
            return;
        r->ctr = q;
        r->cap_ctr = cap;
    }
    struct machine_counter *c = &r->ctr[r->n_ctr++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->name, sizeof(c->name), fmt, ap);
    va_end(ap);
    c->is_f64 = f;
    c->u64 = u;
    c->f64 = d;
    c->unit = unit;
    c->desc = desc;
}

#define CU(r, v, unit, desc, ...) ctr(r, false, (v), 0, unit, desc, __VA_ARGS__)
#define CF(r, v, unit, desc, ...) ctr(r, true, 0, (v), unit, desc, __VA_ARGS__)

/* A node's flash faults (--fault; none without): reads retried, their time, what failed. */
static void fault_ctrs(struct machine *r, const char *node, const struct flash_fms *fms)
{
    struct flash_fault_stats st;

    if (!flash_fms_fault_stats(fms, &st))
        return;
    CU(r, st.pages_checked, "pages", "page reads decoded by the ECC",
       "%s.flash.faults.pages_decoded", node);
    CU(r, st.pages_retried, "pages", "page reads that needed read retries",
       "%s.flash.faults.pages_retried", node);
    CU(r, st.retries, "count", "read retries", "%s.flash.faults.retries", node);
    CU(r, st.retry_ps, "ps", "array and channel time the retries added, summed over operations",
       "%s.flash.faults.retry_ps", node);
    CU(r, st.uncorrectable, "pages", "pages that failed every retry",
       "%s.flash.faults.uncorrectable", node);
    CF(r, st.pages_checked ? st.rber_sum / (double)st.pages_checked : 0.0, "ratio",
       "mean raw bit error rate of the pages decoded", "%s.flash.faults.rber_mean", node);
    CF(r, st.rber_max, "ratio", "highest raw bit error rate a page was decoded at",
       "%s.flash.faults.rber_max", node);
    CU(r, st.program_failures, "count", "program failures (injected rate and wear-out)",
       "%s.flash.faults.program_failures", node);
    CU(r, st.worn_blocks, "blocks", "blocks found failed by wear-out in the injected age",
       "%s.flash.faults.worn_blocks", node);
    CU(r, st.erase_failures, "count", "erase failures (wear-out)", "%s.flash.faults.erase_failures",
       node);
    CU(r, st.refused_dead + st.refused_power, "count",
       "operations refused by a dead die or channel or after power loss", "%s.flash.faults.refused",
       node);
}

static void stream_ctrs(struct machine *r, const char *node, struct nflash *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        struct ftl_stream_stats st;
        ftl_stream_stats(f->s[i], sim_now(r->sim), &st);
        CU(r, st.lpages_written, "pages", "pages written", "%s.flash.%s.pages_written", node,
           f->name[i]);
        CU(r, st.pages_read, "pages", "pages read", "%s.flash.%s.pages_read", node, f->name[i]);
        CU(r, st.sb_erases, "count", "superblock erases", "%s.flash.%s.erases", node, f->name[i]);
        CU(r, st.pe_max, "cycles", "highest P/E count of a block", "%s.flash.%s.pe_max", node,
           f->name[i]);
        CU(r, st.blocks_replaced, "blocks", "blocks replaced by spares (worn out or failed)",
           "%s.flash.%s.spares_used", node, f->name[i]);
        CU(r, st.sb_retired, "count", "superblocks retired (a plane out of spares)",
           "%s.flash.%s.sb_retired", node, f->name[i]);
        CU(r, st.program_remaps, "blocks", "blocks remapped to a spare after a failed program",
           "%s.flash.%s.program_remaps", node, f->name[i]);
        CU(r, st.remap_pages, "pages", "pages copied from failed blocks to their spares",
           "%s.flash.%s.remap_pages", node, f->name[i]);
        CU(r, st.remap_ps, "ps", "time of those copies, summed over remaps", "%s.flash.%s.remap_ps",
           node, f->name[i]);
        CU(r, f->log[i].released, "count", "logical blocks released", "%s.flash.%s.released", node,
           f->name[i]);
        CU(r, f->log[i].live_pages, "pages", "pages of live records", "%s.flash.%s.live_pages",
           node, f->name[i]);
        CF(r, st.waf, "ratio", "write amplification", "%s.flash.%s.waf", node, f->name[i]);
        CF(r, st.pe_per_year, "cycles", "P/E cycles per block per year at the observed write rate",
           "%s.flash.%s.pe_per_year", node, f->name[i]);
        CF(r, isinf(st.lifetime_years) ? 0.0 : st.lifetime_years, "years",
           "lifetime at the observed write rate (0: not yet written)", "%s.flash.%s.lifetime_years",
           node, f->name[i]);
    }
    fault_ctrs(r, node, f->fms);
}

/* A node's SSD array (storage ssd-raid0): the drives' counters added up, in the drive's pages,
 * and each stream's share of the traffic. */
static void ssd_ctrs(struct machine *r, const char *node, struct nssd *f)
{
    struct ssd_stats st;
    uint64_t pe_max, g = f->grain;

    nssd_stats(f, &st, &pe_max);
    CU(r, ssd_raid0_members(f->raid), "count", "SSDs in the node's RAID 0", "%s.ssd.members", node);
    CU(r, st.host_write_pages, "pages", "pages written by the host (the drive's pages)",
       "%s.ssd.pages_written", node);
    CU(r, st.host_read_pages, "pages", "pages read by the host", "%s.ssd.pages_read", node);
    CU(r, st.prog_pages, "pages", "pages programmed (host, GC moves, padding)",
       "%s.ssd.pages_programmed", node);
    CU(r, st.gc_pages, "pages", "pages moved by garbage collection", "%s.ssd.gc_pages", node);
    CU(r, st.gc_erases, "count", "units erased (a block in every plane of a die)", "%s.ssd.erases",
       node);
    CU(r, pe_max, "cycles", "highest P/E count of a block", "%s.ssd.pe_max", node);
    CF(r, ssd_stats_wa(&st), "ratio", "write amplification (pages programmed per page written)",
       "%s.ssd.waf", node);
    CU(r, st.gc_forced, "count", "host rows that waited for forced GC", "%s.ssd.gc_forced", node);
    CU(r, st.gc_forced_ps, "ps", "time hosts waited for forced GC", "%s.ssd.gc_forced_ps", node);
    CU(r, st.wbuf_waits, "count", "pages that waited for the write buffer", "%s.ssd.wbuf_waits",
       node);
    for (uint32_t i = 0; i < f->n; i++) {
        const struct nssd_stream *s = &f->s[i];

        CU(r, s->pages_written * g, "pages", "pages written", "%s.ssd.%s.pages_written", node,
           s->name);
        CU(r, s->pages_read * g, "pages", "pages read", "%s.ssd.%s.pages_read", node, s->name);
        CU(r, s->live_pages * g, "pages", "pages of live records", "%s.ssd.%s.live_pages", node,
           s->name);
    }
}

/* A node's storage: its flash streams, or its SSD array. */
static void store_ctrs(struct machine *r, const char *node, struct nstore *s)
{
    if (nstore_ssd(s))
        ssd_ctrs(r, node, nstore_ssd(s));
    else
        stream_ctrs(r, node, nstore_flash(s));
}

/* The tensor buffer's channels and each requester's share of them (models/dram/dram.h). */
static void tb_ctrs(struct machine *r, const char *node, const struct dram *tb)
{
    const struct res *ch;
    uint64_t busy = 0;
    uint32_t n = 0;

    while ((ch = dram_chan_stats(tb, n)) != NULL) {
        busy += ch->busy_ps;
        n++;
    }
    CU(r, busy, "ps", "bus time of the tensor buffer's channels, summed over channels",
       "%s.tb.bus_ps", node);
    CF(r, n && sim_now(r->sim) ? (double)busy / n / (double)sim_now(r->sim) : 0.0, "ratio",
       "tensor buffer utilisation: bus time over channels x simulated time", "%s.tb.util", node);
    for (int i = 0; i < dram_requesters(tb); i++) {
        const struct dram_req_stats *s = dram_req_stats(tb, i);
        CU(r, s->bytes_rd + s->bytes_wr, "bytes", "bytes the requester moved through the buffer",
           "%s.tb.%s.bytes", node, s->name);
        CU(r, s->bus_ps, "ps", "bus time the requester used", "%s.tb.%s.bus_ps", node, s->name);
        CU(r, s->wait_ps, "ps",
           "queueing delay: the requester's pieces waited for a busy channel, summed",
           "%s.tb.%s.wait_ps", node, s->name);
    }
}

const struct machine_counter *machine_counters(struct machine *r, size_t *count)
{
    struct fabric_stats fs;
    r->n_ctr = 0;

    CU(r, r->steps, "count", "training steps run", "run.steps");
    CU(r, r->evals, "count", "evaluation calls", "run.evals");
    CU(r, sim_now(r->sim), "ps", "simulated time now", "run.sim_time_ps");
    CU(r, r->sim_steps_ps, "ps", "simulated time inside training steps", "run.step_time_ps");
    CU(r, sim_events_fired(r->sim), "count", "events fired by the kernel", "run.events");
    CU(r, r->train->n_cmd, "count", "commands per training step", "program.commands");
    CU(r, r->train->gemms, "count", "GEMM commands per AN per step", "program.gemms_per_an");
    CU(r, r->train->an_tb_used, "bytes", "tensor buffer allocated per AN", "program.an_tb_bytes");
    CU(r, r->train->wn_tb_used, "bytes", "tensor buffer allocated at the WN",
       "program.wn_tb_bytes");
    CU(r, r->dma_time ? dma_time_simulated(r->dma_time) : 0, "count",
       "distinct DMA descriptors run on the DMA twin", "dma_timing.simulated");
    CU(r, r->dma_time ? dma_time_hits(r->dma_time) : 0, "count",
       "DMA timings answered from the memo", "dma_timing.hits");
    CU(r, r->dma_time ? dma_time_contended(r->dma_time) : 0, "count",
       "DMA commands run on the DMA twin because a tensor-buffer channel was busy at their start",
       "dma_timing.contended");
    for (uint32_t k = 0; k < r->n_res; k++)
        CU(r, r->res_busy_ps[k], "ps", "time the resource was busy", "%s.busy_ps", r->resname[k]);
    for (uint32_t n = 0; n < r->cfg.n_an; n++) {
        const struct anode_stats *s = anode_get_stats(r->an[n]);
        char node[16];
        snprintf(node, sizeof(node), "an%u", n);
        CU(r, s->gemm_cycles, "cycles", "core cycles of GEMMs", "%s.core.cycles", node);
        CU(r, s->macs, "count", "multiply-accumulates", "%s.core.macs", node);
        CU(r, s->cmds[HC_GEMM], "count", "GEMM commands", "%s.core.gemms", node);
        CU(r, s->dma_cycles, "cycles", "DMA cycles", "%s.dma.cycles", node);
        CU(r, s->dma_bytes, "bytes", "bytes moved by the DMA", "%s.dma.bytes", node);
        CU(r, s->vu_cycles, "cycles", "vector-unit cycles", "%s.vu.cycles", node);
        CU(r, s->flash_rd_bytes, "bytes", "bytes read from flash", "%s.flash.bytes_read", node);
        CU(r, s->flash_wr_bytes, "bytes", "bytes written to flash", "%s.flash.bytes_written", node);
        store_ctrs(r, node, anode_store(r->an[n]));
        tb_ctrs(r, node, anode_tb(r->an[n]));
    }
    const struct wnode_stats *w = wnode_get_stats(r->wn);
    CU(r, w->updates, "count", "layer updates", "wn.opt.updates");
    CU(r, w->params_updated, "count", "parameters updated", "wn.opt.params");
    CU(r, w->opt_compute_ps, "ps",
       "optimizer unit's compute (latency + params x cost / lanes cycles); an update lasts the "
       "later of it and its tensor-buffer streams",
       "wn.opt.compute_ps");
    CU(r, w->flash_rd_bytes, "bytes", "bytes read from flash", "wn.flash.bytes_read");
    CU(r, w->flash_wr_bytes, "bytes", "bytes written to flash", "wn.flash.bytes_written");
    CU(r, wnode_steps(r->wn), "count", "optimizer steps completed", "wn.opt.step");
    store_ctrs(r, "wn", wnode_store(r->wn));
    tb_ctrs(r, "wn", wnode_tb(r->wn));
    fabric_get_stats(r->fab, &fs);
    CU(r, fs.broadcasts, "count", "broadcasts", "fabric.broadcasts");
    CU(r, fs.reduces, "count", "reduces (loss gathers included)", "fabric.reduces");
    CU(r, fs.bytes_down, "bytes", "payload broadcast", "fabric.bytes_down");
    CU(r, fs.bytes_up, "bytes", "payload reduced into the WN", "fabric.bytes_up");
    CU(r, fs.wn_down_busy_ps, "ps", "WN down link transmitting", "fabric.wn_down_busy_ps");
    CU(r, fs.wn_up_busy_ps, "ps", "WN up link transmitting", "fabric.wn_up_busy_ps");
    *count = r->n_ctr;
    return r->ctr;
}
