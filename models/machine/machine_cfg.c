/*
 * machine_cfg.c - the machine's configuration: defaults, checks, the compiler's view of it;
 * see machine.h.
 */
#include "models/machine/machine_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
        .rows = 8, .cols = 8, .a_words = 4096, .b_words = 4096, .c_words = 4096, .acc_stages = 1};
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
                       "core.rows x core.cols = %u x %u (%u accumulator stages): the fully "
                       "connected compiler tiles for the arrays the core builds (rows and cols "
                       "1..64 with lcm(rows, cols, 4) <= 64), in perf too; larger "
                       "arrays run in perf programs (machine_create_program)",
                       k->rows, k->cols, core_twin_stages(k));
    if (c->storage >= MACHINE_STORAGE_N)
        return err_set(e, -EINVAL, "storage.backend %d: accepted behemoth, ssd-raid0 or ideal",
                       (int)c->storage);
    return 0;
}

int machine_cfg_supported(const struct machine_cfg *c, struct err *e)
{
    const struct core_params *k = &c->core;

    if (k->acc_stages > 1 && k->acc_stages != 4)
        return err_set(e, -EINVAL, "core.acc_stages = %u: accepted 1 or 4", k->acc_stages);
    if (c->fidelity == MACHINE_PERF)
        return perf_supported(c, e);
    if (c->cores_per_an != 1)
        return err_set(e, -EINVAL,
                       "machine.cores_per_node = %u: training runs one core per Activation "
                       "Node; more need the payload-free performance mode",
                       c->cores_per_an);
    if (k->rows < 1 || k->rows > 64 || k->cols < 1 || k->cols > 64 || core_twin_w(k) > 64)
        return err_set(e, -EINVAL,
                       "core.rows x core.cols = %u x %u (%u accumulator stages): training runs "
                       "the core's C twin or its RTL, which build rows and cols 1..64 with "
                       "lcm(rows, cols, 4) <= 64; larger arrays (same cycle "
                       "formula) are for the payload-free performance mode",
                       k->rows, k->cols, core_twin_stages(k));
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
    struct ftl_layout an, wn;

    ftl_layout_an(&an);
    ftl_layout_wn(&wn);
    for (int s = 0; s < HC_N_STREAMS; s++) {
        if (s < 2)
            nssd_stream_size(&c->an_ssd, c->ssd_grain, &an, HC_AN_STREAMS, 2, hc_stream_names[s],
                             &h->stream_cap[s], &h->stream_lb[s]);
        else
            nssd_stream_size(&c->wn_ssd, c->ssd_grain, &wn, HC_WN_STREAMS, 3, hc_stream_names[s],
                             &h->stream_cap[s], &h->stream_lb[s]);
    }
    h->an_page = (uint32_t)h->stream_lb[HC_S_V];
    h->wn_page = (uint32_t)h->stream_lb[HC_S_W];
}

/* The compiler's view of cfg. */
void machine_hc_cfg(const struct machine_cfg *c, bool eval, struct hc_cfg *h)
{
    struct ftl_layout an, wn;

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
                               hc_stream_names[s], &h->stream_cap[s], &h->stream_lb[s]);
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
int machine_check_blocks(const struct machine_cfg *c, struct err *e)
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
    return machine_check_blocks(c, e);
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
    machine_hc_cfg(c, false, &h);
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
    machine_hc_cfg(c, false, &h);
    rc = hc_compile(&h, &p, e);
    if (rc)
        return err_prefix(e, rc, "compile");
    hc_print(p, out);
    hc_prog_free(p);
    return 0;
}
