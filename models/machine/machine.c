/*
 * machine.c - the machine: built from its configuration, its data, its steps and its
 * parameters; see machine.h (the files beside it: machine_priv.h).
 */
#include "models/machine/machine_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
static int set_write_modes(struct machine *m, enum machine_fidelity f, struct err *e)
{
    const struct nfw_be_ops *rtl = m->cfg.nfw_rtl;
    int rc;

    for (uint32_t n = 0; n < m->cfg.n_an; n++)
        if ((rc = anode_set_write_mode(m->an[n], nfw_mode_of(f), rtl, e)))
            return rc;
    if (m->wn &&
        (rc = wnode_set_write_mode(m->wn, nfw_mode_of(f), rtl, m->cfg.seed + m->cfg.n_an, e)))
        return rc;
    return 0;
}

/* The resources of the training program, their counters and the kernel they run on. */
static int build_executor(struct machine *m, struct err *e)
{
    int rc;

    m->n_res = m->train->n_res;
    m->resname = calloc(m->n_res, sizeof(*m->resname));
    m->res_busy_ps = calloc(m->n_res, sizeof(*m->res_busy_ps));
    if (!m->resname || !m->res_busy_ps)
        return err_set(e, -ENOMEM, "machine: out of memory");
    if ((rc = sim_create(&m->sim, e)))
        return err_prefix(e, rc, "machine");
    for (uint32_t k = 0; k < m->n_res; k++)
        hc_res_name(k, m->resname[k], sizeof(m->resname[k]));
    if ((rc = machine_exec_init(m, &m->xt, m->train, true)) ||
        (m->eval && (rc = machine_exec_init(m, &m->xe, m->eval, false))))
        return err_set(e, rc, "machine: out of memory");
    return 0;
}

/* The training and evaluation programs (perf: no evaluation), and the executor. */
static int build_programs(struct machine *m, const struct machine_cfg *c, struct err *e)
{
    struct hc_cfg h;
    int rc;

    machine_hc_cfg(c, false, &h);
    if ((rc = hc_compile(&h, &m->train, e)))
        return err_prefix(e, rc, "compile");
    machine_hc_cfg(c, true, &h);
    if (!m->perf && (rc = hc_compile(&h, &m->eval, e)))
        return err_prefix(e, rc, "compile (evaluation)");
    return build_executor(m, e);
}

/* The ANs' DMA timing: the DMA's SRAM map is the core's, its memory the tensor buffer. */
static int build_dma_timing(struct machine *m, const struct machine_cfg *c, struct err *e)
{
    int rc = dma_time_create_core(&c->dma, &c->core, &c->tb, c->core_period_ps, &m->dma_time, e);
    if (rc)
        return err_prefix(e, rc, "AN DMA");
    return 0;
}

/* The SSDs of a node's storage: with the SSD array (perf), drive; else none (its flash). */
static const struct ssd_cfg *ssd_of(const struct machine *m, const struct ssd_cfg *drive)
{
    return m->perf && m->cfg.storage == MACHINE_STORAGE_SSD_RAID0 ? drive : NULL;
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
static int build_wnode(struct machine *m, const struct machine_cfg *c, struct err *e)
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
                           .perf = m->perf,
                           .adam = c->opt.kind == DNN_OPT_ADAM,
                           .ssd = ssd_of(m, &c->wn_ssd),
                           .ssd_grain = c->ssd_grain};
    flash_fault_cfg_for_node(&wc.flash.fault, FLASH_FAULT_NODE_WN);
    memcpy(wc.n_rec, m->train->n_rec, sizeof(wc.n_rec));
    if (m->perf)
        rc = record_sizes(m->train, size, e);
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
    if ((rc = wnode_create(&wc, p0, &m->wn, e)))
        goto out;
    if (!m->ideal && (rc = wnode_preload(m->wn, m->train, 0, &done, e))) {
        err_prefix(e, rc, "preload");
        goto out;
    }
    if (!m->ideal)
        sim_run_until(m->sim, done, NULL);
out:
    dnn_params_destroy(p0);
    for (int s = 0; s < HC_N_STREAMS; s++)
        free(size[s]);
    return rc;
}

/* The fabric, the Activation Nodes and the Weight Node, its flash preloaded with the model. */
static int build_nodes(struct machine *m, const struct machine_cfg *c, struct err *e)
{
    int rc;

    if ((rc = fabric_create(&m->cfg.fabric, &m->fab, e)))
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
                               .n_act = m->train->n_rec[HC_S_V],
                               .write_pipe = c->write_pipe,
                               .perf = m->perf,
                               .ssd = ssd_of(m, &c->an_ssd),
                               .ssd_grain = c->ssd_grain};
        /* each node its own fault draws (flash_fault_node_seed) */
        flash_fault_cfg_for_node(&ac.flash.fault, n);
        if ((rc = anode_create(&ac, m->dma_time, &m->an[n], e)))
            return rc;
        m->rid_fab[n] = dram_requester(anode_tb(m->an[n]), "fabric");
        m->tb_fab[n] = anode_tb(m->an[n]);
    }
    if ((rc = build_wnode(m, c, e)))
        return rc;
    m->fab_ends = (struct fabric_ends){.wn_tb = wnode_tb(m->wn),
                                       .wn_rid = dram_requester(wnode_tb(m->wn), "fabric"),
                                       .an_tbs = m->tb_fab,
                                       .an_rids = m->rid_fab};
    /* The ideal storage: every memory access free, the optimizer unit's streams included (the
     * flash, DMA and fabric commands are not performed at all: ideal_free). */
    for (uint32_t n = 0; n < c->n_an; n++)
        dram_set_free(anode_tb(m->an[n]), m->ideal);
    dram_set_free(wnode_tb(m->wn), m->ideal);
    return 0;
}

/* A machine of configuration c before anything is built: perf or not, for its life. */
static struct machine *machine_new(const struct machine_cfg *c, struct err *e)
{
    struct machine *m = calloc(1, sizeof(*m));
    if (!m) {
        err_set(e, -ENOMEM, "machine: out of memory");
        return NULL;
    }
    m->cfg = *c;
    m->cfg.fabric.n_an = c->n_an;
    m->fid = MACHINE_TLM;
    m->perf = c->fidelity == MACHINE_PERF;
    m->ideal = m->perf && c->storage == MACHINE_STORAGE_IDEAL;
    return m;
}

int machine_create(const struct machine_cfg *c, struct machine **out, struct err *e)
{
    struct machine *m;
    int rc;

    *out = NULL;
    rc = machine_validate(c, NULL, e);
    if (rc)
        return rc;
    if (!(m = machine_new(c, e)))
        return -ENOMEM;
    if ((rc = build_programs(m, c, e)) || (rc = build_dma_timing(m, c, e)) ||
        (rc = build_nodes(m, c, e))) {
        machine_destroy(m);
        return rc;
    }
    if (m->perf)
        m->fid = MACHINE_PERF;
    else if ((rc = machine_set_fidelity(m, c->fidelity, e))) {
        machine_destroy(m);
        return rc;
    }
    *out = m;
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
    if (c->core.acc_stages > 1 && c->core.acc_stages != 4)
        return err_set(e, -EINVAL, "core.acc_stages = %u: accepted 1 or 4", c->core.acc_stages);
    if (c->storage >= MACHINE_STORAGE_N)
        return err_set(e, -EINVAL, "storage.backend %d: accepted behemoth, ssd-raid0 or ideal",
                       (int)c->storage);
    return machine_check_blocks(c, e);
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
static int build_program_dma(struct machine *m, const struct machine_cfg *c, struct err *e)
{
    struct err why;
    int rc = build_dma_timing(m, c, &why);

    if (rc == -EINVAL)
        return 0;
    return rc ? err_set(e, rc, "%s", why.msg) : 0;
}

int machine_create_program(const struct machine_cfg *c, struct hc_prog *p, struct machine **out,
                           struct err *e)
{
    struct machine_cfg pc;
    struct machine *m;
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
    if (!(m = machine_new(&pc, e))) {
        hc_prog_free(p);
        return -ENOMEM;
    }
    m->given = true;
    m->train = p;
    if ((rc = build_executor(m, e)) || (rc = build_program_dma(m, &pc, e)) ||
        (rc = build_nodes(m, &pc, e))) {
        machine_destroy(m);
        return rc;
    }
    m->fid = MACHINE_PERF;
    *out = m;
    return 0;
}

void machine_destroy(struct machine *m)
{
    if (!m)
        return;
    for (uint32_t n = 0; n < MACHINE_MAX_AN; n++)
        anode_destroy(m->an[n]);
    wnode_destroy(m->wn);
    fabric_destroy(m->fab);
    dma_time_destroy(m->dma_time);
    machine_exec_free(&m->xt);
    machine_exec_free(&m->xe);
    hc_prog_free(m->train);
    hc_prog_free(m->eval);
    sim_destroy(m->sim);
    free(m->resname);
    free(m->res_busy_ps);
    free(m->buf);
    free(m->rec);
    free(m->busy);
    free(m->ctr);
    free(m->iv);
    free(m);
}

void machine_set_port(struct machine *m, const struct machine_port *p)
{
    if (p)
        m->port = *p;
    else
        memset(&m->port, 0, sizeof(m->port));
}

struct wnode *machine_wnode(struct machine *m)
{
    return m->wn;
}

struct anode *machine_anode(struct machine *m, uint32_t n)
{
    return n < m->cfg.n_an ? m->an[n] : NULL;
}

const struct machine_cfg *machine_config(const struct machine *m)
{
    return &m->cfg;
}

uint64_t machine_now(const struct machine *m)
{
    return sim_now(m->sim);
}

const struct hc_prog *machine_program(const struct machine *m)
{
    return m->train;
}

void machine_cmd_times(const struct machine *m, const uint64_t **start, const uint64_t **end,
                       size_t *n)
{
    *start = m->xt.start;
    *end = m->xt.end;
    *n = m->steps && m->xt.start ? m->train->n_cmd : 0;
}

int machine_set_fidelity(struct machine *m, enum machine_fidelity f, struct err *e)
{
    if (m->perf && f == MACHINE_PERF)
        return 0;
    if (m->perf || f == MACHINE_PERF)
        return err_set(e, -EINVAL,
                       "fidelity %s -> %s: a perf machine holds no data (weights, activations, "
                       "inputs), so there is none to switch to or from; perf is chosen when the "
                       "machine is created (machine_cfg.fidelity)",
                       machine_fidelity_name(m->fid), machine_fidelity_name(f));
    if (f != MACHINE_TLM && f != MACHINE_RTL && f != MACHINE_LOCKSTEP)
        return err_set(e, -EINVAL, "fidelity %d: accepted tlm, rtl, lockstep", (int)f);
    for (uint32_t n = 0; n < m->cfg.n_an; n++) {
        int rc = anode_set_mode(m->an[n], anode_mode_of(f), e);
        if (rc) {
            /* back to the mode they had (it worked before): the message stays this one's */
            for (uint32_t k = 0; k < n; k++)
                anode_set_mode(m->an[k], anode_mode_of(m->fid), NULL);
            return rc;
        }
    }
    {
        int rc = set_write_modes(m, f, e);
        if (rc) {
            for (uint32_t k = 0; k < m->cfg.n_an; k++)
                anode_set_mode(m->an[k], anode_mode_of(m->fid), NULL);
            set_write_modes(m, m->fid, NULL);
            return rc;
        }
    }
    m->fid = f;
    return 0;
}

enum machine_fidelity machine_get_fidelity(const struct machine *m)
{
    return m->fid;
}

int machine_trace_core(struct machine *m, uint32_t an, const struct vtrace_opts *o, struct err *e)
{
    if (an >= m->cfg.n_an)
        return err_set(e, -EINVAL, "trace: AN %u; accepted 0..%u", an, m->cfg.n_an - 1);
    return anode_trace_core(m->an[an], o, e);
}

int machine_trace_core_close(struct machine *m, uint32_t an, struct err *e)
{
    if (an >= m->cfg.n_an)
        return err_set(e, -EINVAL, "trace: AN %u; accepted 0..%u", an, m->cfg.n_an - 1);
    return anode_trace_core_close(m->an[an], e);
}

int machine_trace_write(struct machine *m, uint32_t an, const struct vtrace_opts *o, struct err *e)
{
    if (an >= m->cfg.n_an)
        return err_set(e, -EINVAL, "trace: AN %u; accepted 0..%u", an, m->cfg.n_an - 1);
    return anode_trace_write(m->an[an], o, e);
}

int machine_trace_write_close(struct machine *m, uint32_t an, struct err *e)
{
    if (an >= m->cfg.n_an)
        return err_set(e, -EINVAL, "trace: AN %u; accepted 0..%u", an, m->cfg.n_an - 1);
    return anode_trace_write_close(m->an[an], e);
}

/* ---------------------------------------------------------------- data */

/* What machine_load_inputs accepts: count a positive multiple of B; perf takes no data but
 * checks the labels it is given. */
static int check_inputs(const struct machine *m, const uint8_t *images, const uint8_t *labels,
                        uint32_t count, struct err *e)
{
    uint32_t B = m->cfg.batch, C = dnn_model_classes(&m->cfg.model);

    if (m->given)
        return err_set(e, -EINVAL,
                       "load inputs: the machine runs a perf program, which reads no inputs");
    if (!count || count % B)
        return err_set(e, -EINVAL,
                       "load inputs: %u samples; accepted a positive multiple of the "
                       "batch B = %u",
                       count, B);
    if (!m->perf && (!images || !labels))
        return err_set(e, -EINVAL, "load inputs: no images or labels; only perf takes none");
    for (uint32_t i = 0; labels && i < count; i++)
        if (labels[i] >= C)
            return err_set(e, -EINVAL, "load inputs: sample %u has label %u; accepted 0..%u", i,
                           labels[i], C - 1);
    return 0;
}

int machine_load_inputs(struct machine *m, const uint8_t *images, const uint8_t *labels,
                        uint32_t count, struct err *e)
{
    uint32_t B = m->cfg.batch, N = m->cfg.n_an, rr = B / N;
    uint32_t in = dnn_model_inputs(&m->cfg.model);
    uint64_t now = sim_now(m->sim), last = now;
    int rc = check_inputs(m, images, labels, count, e);

    if (rc)
        return rc;
    if (m->ideal) { /* no storage to write them to: only their number counts */
        m->ideal_pending += count / B;
        return 0;
    }
    for (uint32_t b = 0; b < count / B; b++) {
        for (uint32_t n = 0; n < N; n++) {
            size_t row = (size_t)b * B + (size_t)n * rr;
            uint64_t done;
            rc = anode_load_shard(m->an[n], now, images ? images + row * in : NULL,
                                  labels ? labels + row : NULL, rr, in, &done, e);
            if (rc)
                return err_prefix(e, rc, "load inputs, batch %u", b);
            if (done > last)
                last = done;
        }
    }
    sim_run_until(m->sim, last, NULL);
    return 0;
}

uint32_t machine_batches_pending(const struct machine *m)
{
    return m->ideal ? m->ideal_pending : anode_shards(m->an[0]);
}

int machine_clear_inputs(struct machine *m, struct err *e)
{
    m->ideal_pending = 0;
    for (uint32_t n = 0; n < m->cfg.n_an; n++) {
        int rc = anode_clear_shards(m->an[n], sim_now(m->sim), e);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------- steps */

int machine_step(struct machine *m, struct machine_step_info *info, struct err *e)
{
    uint64_t t0 = sim_now(m->sim);
    int rc;

    if (!m->given && !machine_batches_pending(m))
        return err_set(e, -ENODATA, "step: no batch loaded; call machine_load_inputs first");
    m->step_commands = m->step_gemms = 0;
    m->loss = NAN; /* perf: no loss is computed */
    uint64_t k = wnode_steps(m->wn);
    rc = machine_exec_run(m, &m->xt, e);
    if (rc)
        return rc;
    if (m->ideal && m->ideal_pending)
        m->ideal_pending--;
    if ((rc = wnode_end_step(m->wn, e)))
        return rc;
    for (uint32_t n = 0; n < m->cfg.n_an; n++)
        if ((rc = anode_end_step(m->an[n], sim_now(m->sim), m->cfg.act_fresh_lb, e)))
            return rc;
    if ((rc = machine_make_records(m, &m->xt)))
        return err_set(e, rc, "records: out of memory");
    m->steps++;
    m->sim_steps_ps += sim_now(m->sim) - t0;
    if (info) {
        info->step = k;
        info->loss = m->loss;
        info->start_ps = t0;
        info->end_ps = sim_now(m->sim);
        info->commands = m->step_commands;
        info->gemms = m->step_gemms;
    }
    return 0;
}

int machine_train_batch(struct machine *m, const uint8_t *images, const uint8_t *labels,
                        struct machine_step_info *info, struct err *e)
{
    int rc = machine_load_inputs(m, images, labels, m->cfg.batch, e);
    return rc ? rc : machine_step(m, info, e);
}

int machine_eval(struct machine *m, const uint8_t *images, const uint8_t *labels, uint32_t count,
                 uint32_t *correct, float *logits, struct err *e)
{
    uint32_t B = m->cfg.batch, N = m->cfg.n_an, rr = B / N;
    uint32_t in = dnn_model_inputs(&m->cfg.model), C = dnn_model_classes(&m->cfg.model);
    const struct hc_prog *p = m->eval;
    uint32_t ok = 0;
    int rc;

    *correct = 0;
    if (m->perf)
        return err_set(e, -EINVAL, "eval: evaluation needs data; perf is timing only");
    if (!count)
        return err_set(e, -EINVAL, "eval: 0 samples; accepted at least one");
    if (machine_ensure_buf(m, (size_t)rr * (in + 1) + (size_t)rr * C * 4 + 64))
        return err_set(e, -ENOMEM, "eval: out of memory");
    for (uint32_t b0 = 0; b0 < count; b0 += B) {
        for (uint32_t n = 0; n < N; n++) { /* host writes the shard into the AN's TB */
            uint8_t *sh = m->buf;
            for (uint32_t i = 0; i < rr; i++) {
                uint64_t s = (uint64_t)b0 + (uint64_t)n * rr + i;
                if (s < count)
                    memcpy(sh + (size_t)i * in, images + s * in, in);
                else
                    memset(sh + (size_t)i * in, 0, in);
                sh[(size_t)rr * in + i] = 0;
            }
            if (dram_write(anode_tb(m->an[n]), p->an_in, sh, (size_t)rr * in + rr))
                return err_set(e, -ERANGE, "eval: tensor buffer too small");
        }
        rc = machine_exec_run(m, &m->xe, e);
        if (rc)
            return rc;
        for (uint32_t n = 0; n < N; n++) {
            uint8_t *cls = m->buf;
            float *z = (float *)(m->buf + ((rr + 63) / 64 * 64));
            dram_read(anode_tb(m->an[n]), p->an_cls, cls, rr);
            if (logits)
                dram_read(anode_tb(m->an[n]), p->an_logits, z, (size_t)rr * C * 4);
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
    m->evals++;
    *correct = ok;
    return 0;
}

/* ---------------------------------------------------------------- parameters */

const struct dnn_params *machine_params(const struct machine *m)
{
    return wnode_params(m->wn);
}

int machine_set_params(struct machine *m, const struct dnn_params *p, struct err *e)
{
    struct dnn_params *d = wnode_params(m->wn);
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
    int rc = wnode_preload(m->wn, m->train, sim_now(m->sim), &done, e);
    if (rc)
        return err_prefix(e, rc, "restore");
    sim_run_until(m->sim, done, NULL);
    return 0;
}
