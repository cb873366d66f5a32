/*
 * anode.c - an Activation Node; see anode.h.
 */
#include "models/node/anode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct anode {
    struct anode_cfg cfg;
    struct dram *tb;
    struct dma_time *dma_time;
    enum anode_mode mode;
    struct core_be core; /* the backend in use */
    void *tlm;
    void *rtl;
    void *ls; /* the lockstep pair: core_be_lockstep, or the RTL backend's own form */
    const struct core_be_ops *ls_ops;
    struct dram_port *port; /* the tensor buffer's port of the DMA (its twin's or RTL's) */
    int rid_vu;             /* the vector unit's requester of the tensor buffer */
    struct nstore sto;      /* its storage: the FMS, or an SSD array (perf) */
    int s_nv, s_v;
    /* NV: loaded shards, a FIFO */
    struct slog_ext *shard;
    size_t sh_head, sh_n, sh_cap;
    bool have_cur;
    struct slog_ext cur; /* the shard read this step */
    /* V: this step's records, [cfg.n_act] */
    struct slog_ext *act;
    bool *act_ok;
    /* scratch */
    unsigned char *s[3];
    size_t cap[3];
    struct anode_stats st;
    char name[16];
};

static int scratch(struct anode *a, int i, size_t n, struct err *e)
{
    if (n <= a->cap[i])
        return 0;
    size_t c = n < 4096 ? 4096 : n + n / 2;
    unsigned char *p = realloc(a->s[i], c);
    if (!p)
        return err_set(e, -ENOMEM, "%s: out of memory for %zu bytes of scratch", a->name, c);
    a->s[i] = p;
    a->cap[i] = c;
    return 0;
}

int anode_create(const struct anode_cfg *cfg, struct dma_time *dma_time, struct anode **out,
                 struct err *e)
{
    struct anode *a = calloc(1, sizeof(*a));
    struct dram_cfg tb = cfg->tb;
    struct ftl_layout lay;
    int rc;

    *out = NULL;
    if (!a)
        return err_set(e, -ENOMEM, "an%u: out of memory", cfg->index);
    a->cfg = *cfg;
    a->dma_time = dma_time;
    snprintf(a->name, sizeof(a->name), "an%u", cfg->index);
    a->act = calloc(cfg->n_act ? cfg->n_act : 1, sizeof(*a->act));
    a->act_ok = calloc(cfg->n_act ? cfg->n_act : 1, sizeof(*a->act_ok));
    if (!a->act || !a->act_ok) {
        rc =
            err_set(e, -ENOMEM, "%s: out of memory for %u activation records", a->name, cfg->n_act);
        goto out_free;
    }
    tb.store_payload = tb.store_payload && !cfg->perf;
    rc = dram_create(&tb, &a->tb, e);
    if (rc)
        goto out_free;
    a->rid_vu = dram_requester(a->tb, "vu");
    if (dma_time) { /* the DMA's port: the twin's in tlm and perf, the RTL's in rtl and lockstep */
        struct dram_port_cfg pc;
        dram_port_cfg_default(&pc);
        pc.period_ps = cfg->period_ps;
        pc.name = "dma";
        if ((rc = dram_port_create(&pc, a->tb, &a->port, e))) {
            err_prefix(e, rc, "%s: the DMA's tensor-buffer port", a->name);
            goto out_tb;
        }
    }
    ftl_layout_an(&lay);
    if (cfg->ssd)
        rc = nstore_init_ssd(&a->sto, a->name, cfg->ssd, cfg->ssd_grain, &lay, HC_AN_STREAMS, 2, e);
    else
        rc = nstore_init_fms(&a->sto, &cfg->flash, &lay, HC_AN_STREAMS, 2, a->tb, e);
    if (!rc && !cfg->ssd && cfg->write_pipe &&
        (rc = nstore_set_write_pipe(&a->sto, cfg->period_ps, e)))
        nstore_fini(&a->sto);
    if (rc) {
        err_prefix(e, rc, "%s %s", a->name, cfg->ssd ? "storage" : "flash");
        goto out_tb;
    }
    a->s_nv = nstore_stream(&a->sto, "NV");
    a->s_v = nstore_stream(&a->sto, "V");
    if (cfg->perf) { /* no payload anywhere: no core either (its pads would hold data) */
        nstore_set_nodata(&a->sto, (uint32_t)a->s_nv, true);
        nstore_set_nodata(&a->sto, (uint32_t)a->s_v, true);
        *out = a;
        return 0;
    }
    rc = core_be_tlm_ops.create(&cfg->core, cfg->seed, &a->tlm, e);
    if (rc)
        goto out_fl;
    a->core = (struct core_be){&core_be_tlm_ops, a->tlm};
    *out = a;
    return 0;

out_fl:
    nstore_fini(&a->sto);
out_tb:
    dram_port_destroy(a->port);
    dram_destroy(a->tb);
out_free:
    free(a->act);
    free(a->act_ok);
    free(a);
    return rc;
}

void anode_destroy(struct anode *a)
{
    if (!a)
        return;
    if (a->tlm)
        core_be_tlm_ops.destroy(a->tlm);
    if (a->rtl)
        a->cfg.rtl->destroy(a->rtl);
    if (a->ls)
        a->ls_ops->destroy(a->ls);
    dram_port_destroy(a->port);
    for (size_t i = 0; i < a->sh_n; i++) /* bytes of live records (record store) */
        free(a->shard[(a->sh_head + i) % a->sh_cap].data);
    for (uint32_t l = 0; l < a->cfg.n_act; l++)
        if (a->act_ok[l])
            free(a->act[l].data);
    if (a->have_cur)
        free(a->cur.data);
    nstore_fini(&a->sto);
    dram_destroy(a->tb);
    for (int i = 0; i < 3; i++)
        free(a->s[i]);
    free(a->shard);
    free(a->act);
    free(a->act_ok);
    free(a);
}

/* A backend with its own DMA gets the node's tensor buffer, through the DMA's port of it (the
 * one the twin uses in tlm), and the DMA parameters of the node's timing (dma_time), which its DMA
 * must have. */
static int attach(struct anode *a, const struct core_be_ops *ops, void *h, struct err *e)
{
    int rc;

    if (!ops->attach)
        return 0;
    if (!a->dma_time)
        return err_set(e, -EINVAL,
                       "%s: the RTL backend has its own DMA, and the DMA cannot address this "
                       "core's map (no DMA timing)",
                       a->name);
    rc = ops->attach(h, a->tb, a->port, dma_time_params(a->dma_time), e);
    return rc ? err_prefix(e, rc, "%s", a->name) : 0;
}

int anode_set_mode(struct anode *a, enum anode_mode m, struct err *e)
{
    if (a->cfg.perf)
        return m == ANODE_TLM ? 0
                              : err_set(e, -EINVAL,
                                        "%s: a perf node has no core to run in %s mode (it holds "
                                        "no data)",
                                        a->name, m == ANODE_RTL ? "rtl" : "lockstep");
    if (m == ANODE_TLM) {
        a->core = (struct core_be){&core_be_tlm_ops, a->tlm};
        a->mode = m;
        return 0;
    }
    if (!a->cfg.rtl)
        return err_set(e, -EINVAL,
                       "%s: %s mode needs the RTL core backend, and this program has none; "
                       "accepted: tlm, or link a verilated core and set machine_cfg.rtl = "
                       "&core_be_rtl_ops",
                       a->name, m == ANODE_RTL ? "rtl" : "lockstep");
    /* One verilated core per node at a time: the scratchpads are reloaded before every GEMM,
     * so nothing is lost, and the Verilator runtime has been seen to hang destroying a model
     * while a second instance of the same model lived beside it. */
    if (m == ANODE_RTL && a->ls) {
        a->ls_ops->destroy(a->ls);
        a->ls = NULL;
    }
    if (m == ANODE_LOCKSTEP && a->rtl) {
        a->cfg.rtl->destroy(a->rtl);
        a->rtl = NULL;
    }
    int rc;
    if (m == ANODE_RTL) {
        if (!a->rtl) {
            rc = a->cfg.rtl->create(&a->cfg.core, a->cfg.seed + a->cfg.index, &a->rtl, e);
            if (!rc && (rc = attach(a, a->cfg.rtl, a->rtl, e))) {
                a->cfg.rtl->destroy(a->rtl);
                a->rtl = NULL;
            }
            if (rc)
                return rc;
        }
        a->core = (struct core_be){a->cfg.rtl, a->rtl};
    } else {
        if (!a->ls && a->cfg.rtl->lockstep) { /* the backend's own lockstep form */
            a->ls_ops = a->cfg.rtl->lockstep;
            rc = a->ls_ops->create(&a->cfg.core, a->cfg.seed + a->cfg.index, &a->ls, e);
            if (!rc && (rc = attach(a, a->ls_ops, a->ls, e))) {
                a->ls_ops->destroy(a->ls);
                a->ls = NULL;
            }
            if (rc)
                return rc;
        } else if (!a->ls) {
            char block[32];
            struct core_be_lockstep *ls;
            snprintf(block, sizeof(block), "%s.core", a->name);
            rc = core_be_lockstep_create(&a->cfg.core, a->cfg.rtl, a->cfg.seed + a->cfg.index,
                                         block, &ls, e);
            if (rc)
                return rc;
            a->ls = ls;
            a->ls_ops = &core_be_lockstep_ops;
        }
        a->core = (struct core_be){a->ls_ops, a->ls};
    }
    a->mode = m;
    return 0;
}

int anode_set_write_mode(struct anode *a, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                         struct err *e)
{
    int rc = nstore_set_write_mode(&a->sto, m, rtl, a->cfg.seed + a->cfg.index, e);
    return rc ? err_prefix(e, rc, "%s", a->name) : 0;
}

int anode_trace_core(struct anode *a, const struct vtrace_opts *o, struct err *e)
{
    if (a->mode == ANODE_TLM || !a->core.ops->trace)
        return err_set(e, -EINVAL, "%s: waves need the RTL core (rtl or lockstep mode)", a->name);
    int rc = a->core.ops->trace(a->core.h, o, e);
    if (rc)
        return err_prefix(e, rc, "%s: the core's trace could not be opened (%d)", a->name, rc);
    return 0;
}

int anode_trace_core_close(struct anode *a, struct err *e)
{
    int rc = 0;

    /* The RTL core keeps its trace after a switch to tlm: close whichever core exists. */
    if (a->rtl && a->cfg.rtl->trace_close)
        rc = a->cfg.rtl->trace_close(a->rtl, e);
    if (!rc && a->ls && a->ls_ops->trace_close)
        rc = a->ls_ops->trace_close(a->ls, e);
    if (rc)
        return err_prefix(e, rc, "%s: the core's trace", a->name);
    return 0;
}

int anode_trace_write(struct anode *a, const struct vtrace_opts *o, struct err *e)
{
    struct nfw_time *wp = a->sto.kind == NSTORE_FMS ? a->sto.fl.wp : NULL;
    int rc;

    if (!wp)
        return err_set(e, -EINVAL,
                       "%s: waves of the write pipeline need it in the loop (machine.write_pipe "
                       "on, the FMS as storage)",
                       a->name);
    rc = nfw_time_trace(wp, o, e);
    return rc ? err_prefix(e, rc, "%s", a->name) : 0;
}

int anode_trace_write_close(struct anode *a, struct err *e)
{
    struct nfw_time *wp = a->sto.kind == NSTORE_FMS ? a->sto.fl.wp : NULL;
    int rc = wp ? nfw_time_trace_close(wp, e) : 0;

    return rc ? err_prefix(e, rc, "%s: the write pipeline's trace", a->name) : 0;
}

/* ---------------------------------------------------------------- inputs */

/* Room for one more shard in the FIFO. */
static int shard_room(struct anode *a, struct err *e)
{
    if (a->sh_n == a->sh_cap) {
        size_t cap = a->sh_cap ? 2 * a->sh_cap : 64;
        struct slog_ext *q = malloc(cap * sizeof(*q));
        if (!q)
            return err_set(e, -ENOMEM, "%s: out of memory for %zu input shards", a->name, cap);
        for (size_t i = 0; i < a->sh_n; i++)
            q[i] = a->shard[(a->sh_head + i) % a->sh_cap];
        free(a->shard);
        a->shard = q;
        a->sh_cap = cap;
        a->sh_head = 0;
    }
    return 0;
}

int anode_load_shard(struct anode *a, uint64_t now, const uint8_t *images, const uint8_t *labels,
                     uint32_t r, uint32_t inputs, uint64_t *done, struct err *e)
{
    size_t px = (size_t)r * inputs;
    const void *buf = NULL; /* perf: the record has its size and no bytes */
    int rc;

    if ((rc = shard_room(a, e)))
        return rc;
    if (!a->cfg.perf) {
        if (scratch(a, 0, px + r, e))
            return -ENOMEM;
        memcpy(a->s[0], images, px);
        memcpy(a->s[0] + px, labels, r);
        buf = a->s[0];
    }
    struct slog_ext x;
    rc = nstore_write_buf(&a->sto, (uint32_t)a->s_nv, now, buf, px + r, &x, done, e);
    if (rc) {
        err_prefix(e, rc, "%s NV stream", a->name);
        return rc;
    }
    a->shard[(a->sh_head + a->sh_n) % a->sh_cap] = x;
    a->sh_n++;
    return 0;
}

uint32_t anode_shards(const struct anode *a)
{
    return (uint32_t)a->sh_n;
}

int anode_clear_shards(struct anode *a, uint64_t now, struct err *e)
{
    while (a->sh_n) {
        int rc = nstore_free(&a->sto, (uint32_t)a->s_nv, now, &a->shard[a->sh_head], e);
        if (rc) {
            err_prefix(e, rc, "%s NV stream", a->name);
            return rc;
        }
        a->sh_head = (a->sh_head + 1) % a->sh_cap;
        a->sh_n--;
    }
    return 0;
}

/* ---------------------------------------------------------------- commands */

static int tb_rd(struct anode *a, uint64_t addr, void *buf, size_t n, struct err *e)
{
    if (dram_read(a->tb, addr, buf, n)) {
        return err_set(e, -ERANGE, "%s: tensor-buffer read 0x%" PRIx64 "+%zu outside the buffer",
                       a->name, addr, n);
    }
    return 0;
}

static int tb_wr(struct anode *a, uint64_t addr, const void *buf, size_t n, struct err *e)
{
    if (dram_write(a->tb, addr, buf, n)) {
        return err_set(e, -ERANGE,
                       "%s: tensor-buffer write 0x%" PRIx64 "+%zu outside the buffer or no "
                       "memory",
                       a->name, addr, n);
    }
    return 0;
}

/* The lockstep pair names the command in its reports. */
static void ls_label(struct anode *a, const struct hc_cmd *c)
{
    char buf[96];
    if (a->mode != ANODE_LOCKSTEP)
        return;
    snprintf(buf, sizeof(buf), "%u %s", c->id, c->label);
    if (a->ls_ops->label)
        a->ls_ops->label(a->ls, a->name, buf);
    else
        core_be_lockstep_label(a->ls, buf);
}

/* The backend's message is in e: a lockstep divergence report stands as it is (it names the
 * block and command); any other failure is said of this node's core and command. */
static int core_err(struct anode *a, int rc, const char *what, const struct hc_cmd *c,
                    struct err *e)
{
    if (a->mode == ANODE_LOCKSTEP && rc == -EPROTO)
        return rc;
    return err_prefix(e, rc, "%s.core (%s): %s failed in command %u '%s' (%d)", a->name,
                      a->core.ops->name, what, c->id, c->label, rc);
}

/* The descriptor's bytes between the tensor buffer and the core's pads (tlm, rtl, lockstep). */
static int dma_move(struct anode *a, const struct hc_cmd *c, struct err *e)
{
    const struct dma_desc *d = &c->u.dma;
    size_t n = (size_t)d->rows * d->len;
    int rc;

    if (scratch(a, 0, n, e) || scratch(a, 1, n, e))
        return -ENOMEM;
    ls_label(a, c);
    if (!d->store) {
        for (uint32_t i = 0; i < d->rows; i++)
            if ((rc =
                     tb_rd(a, d->src + i * d->src_stride, a->s[0] + (size_t)i * d->len, d->len, e)))
                return rc;
        if (!d->xpose) {
            rc = a->core.ops->write(a->core.h, (uint32_t)d->dst, (uint32_t)d->dst_stride, d->rows,
                                    d->len, a->s[0], e);
        } else {
            uint32_t cols = d->len / 2, rows = d->rows;
            const uint16_t *src = (const uint16_t *)a->s[0];
            uint16_t *dst = (uint16_t *)a->s[1];
            for (uint32_t i = 0; i < rows; i++)
                for (uint32_t j = 0; j < cols; j++)
                    dst[(size_t)j * rows + i] = src[(size_t)i * cols + j];
            rc = a->core.ops->write(a->core.h, (uint32_t)d->dst, (uint32_t)d->dst_stride, cols,
                                    rows * 2, a->s[1], e);
        }
        if (rc)
            return core_err(a, rc, "DMA write", c, e);
        return 0;
    }
    rc = a->core.ops->read(a->core.h, (uint32_t)d->src, (uint32_t)d->src_stride, d->rows, d->len,
                           a->s[0], e);
    if (rc)
        return core_err(a, rc, "DMA read", c, e);
    for (uint32_t i = 0; i < d->rows; i++)
        if ((rc = tb_wr(a, d->dst + i * d->dst_stride, a->s[0] + (size_t)i * d->len, d->len, e)))
            return rc;
    return 0;
}

/* The descriptor through the backend's own DMA (the RTL's, an_be_rtl.c), started at now on the
 * node's tensor buffer as its other agents left it: its bytes move through the RTL and its
 * cycles are the RTL's. In lockstep they must also be dma_time_run's on the same buffer state (the
 * timing tlm takes): the buffer's timing is saved before the RTL runs, put back for dma_time, and
 * the RTL's result kept. */
static int exec_dma_rtl(struct anode *a, const struct hc_cmd *c, uint64_t now, uint64_t *end,
                        struct err *e)
{
    const struct dma_desc *d = &c->u.dma;
    uint64_t cycles = 0, t = 0;
    bool check = a->mode == ANODE_LOCKSTEP && !c->cycles;
    struct dram_timing *s = NULL;
    int rc;

    if (check && !(s = malloc(2 * sizeof(*s))))
        return err_set(e, -ENOMEM, "%s: out of memory for the lockstep DMA check", a->name);
    if (s)
        dram_timing_save(a->tb, &s[0]);
    ls_label(a, c);
    dram_port_set_time(a->port, now);
    rc = a->core.ops->dma(a->core.h, d, &cycles, e);
    if (rc) {
        free(s);
        return core_err(a, rc, "DMA", c, e);
    }
    if (s) {
        dram_timing_save(a->tb, &s[1]);
        dram_timing_restore(a->tb, &s[0]);
        rc = dma_time_run(a->dma_time, d, a->port, a->tb, now, &t, e);
        dram_timing_restore(a->tb, &s[1]);
        free(s);
        if (rc)
            return rc;
        if (t != cycles)
            return err_set(e, -EPROTO,
                           "lockstep divergence: block %s.dma, command '%u %s', cycle %" PRIu64
                           ": the descriptor took %" PRIu64 " cycles in the RTL, the DMA "
                           "timing (dma_time, tlm's) gives %" PRIu64,
                           a->name, c->id, c->label,
                           a->core.ops->cycle ? a->core.ops->cycle(a->core.h) : 0, cycles, t);
    }
    if (c->cycles)
        cycles = c->cycles;
    a->st.dma_cycles += cycles;
    a->st.dma_bytes += c->cycles ? c->bytes : (uint64_t)d->rows * d->len;
    *end = now + cycles * a->cfg.period_ps;
    return 0;
}

/*
 * A perf program's DMA command stands for every core's transfers (c->cycles, one core's time):
 * its c->bytes cross the tensor buffer, claimed as one access at its start (first come, first
 * served with the buffer's other users), and it ends no earlier than that claim.
 */
static int exec_dma_perf(struct anode *a, const struct hc_cmd *c, uint64_t now, uint64_t *end,
                         struct err *e)
{
    if (!a->port)
        return err_set(e, -EINVAL, "%s: command %u '%s': no DMA port on the tensor buffer", a->name,
                       c->id, c->label);
    *end = now + c->cycles * a->cfg.period_ps;
    if (c->bytes)
        *end = res_later(*end, dram_access(a->tb, dram_port_requester(a->port), now, 0, c->bytes,
                                           c->kind == HC_DMA_OUT));
    a->st.dma_cycles += c->cycles;
    a->st.dma_bytes += c->bytes;
    return 0;
}

static int exec_dma(struct anode *a, const struct hc_cmd *c, uint64_t now, uint64_t *end,
                    struct err *e)
{
    const struct dma_desc *d = &c->u.dma;
    uint64_t cycles = c->cycles;
    int rc;

    if (a->cfg.perf && (cycles || !c->bytes))
        return exec_dma_perf(a, c, now, end, e);

    if (!a->cfg.perf && a->mode != ANODE_TLM && a->core.ops->dma)
        return exec_dma_rtl(a, c, now, end, e);
    if (!a->cfg.perf && (rc = dma_move(a, c, e)))
        return rc;
    if (!cycles && !a->dma_time)
        return err_set(e, -EINVAL,
                       "%s: command %u '%s' has no cycles and the DMA has no timing for this core "
                       "(its map is beyond what the DMA addresses)",
                       a->name, c->id, c->label);
    if (!cycles && (rc = dma_time_run(a->dma_time, d, a->port, a->tb, now, &cycles, e)))
        return rc;
    a->st.dma_cycles += cycles;
    a->st.dma_bytes += c->cycles ? c->bytes : (uint64_t)d->rows * d->len;
    *end = now + cycles * a->cfg.period_ps;
    return 0;
}

/* The GEMM on the core backend; *cycles = its count (the twin's formula, the RTL's count). */
static int gemm_run(struct anode *a, const struct hc_cmd *c, uint64_t *cycles, struct err *e)
{
    struct core_twin_result res;
    int rc;

    ls_label(a, c);
    rc = a->core.ops->exec(a->core.h, &c->u.gemm, &res, e);
    if (rc)
        return core_err(a, rc, "GEMM", c, e);
    if (res.status != CORE_OK) {
        return err_set(e, -EINVAL,
                       "%s.core: command %u '%s' rejected with status %d (m %u n %u k %u)", a->name,
                       c->id, c->label, res.status, c->u.gemm.m, c->u.gemm.n, c->u.gemm.k);
    }
    *cycles = res.cycles;
    return 0;
}

/* Perf: the twin's cycle formula of the command, which the core would have run. */
static int gemm_time(struct anode *a, const struct hc_cmd *c, uint64_t *cycles, struct err *e)
{
    *cycles = core_twin_cycles(&a->cfg.core, &c->u.gemm);
    if (!*cycles)
        return err_set(e, -EINVAL,
                       "%s.core: command %u '%s' rejected with status %d (m %u n %u k %u)", a->name,
                       c->id, c->label, core_twin_check(&a->cfg.core, &c->u.gemm), c->u.gemm.m,
                       c->u.gemm.n, c->u.gemm.k);
    return 0;
}

static int exec_gemm(struct anode *a, const struct hc_cmd *c, uint64_t now, uint64_t *end,
                     struct err *e)
{
    uint64_t cycles = 0;
    int rc = 0;

    if (!a->cfg.perf)
        rc = gemm_run(a, c, &cycles, e);
    else if (!c->cycles)
        rc = gemm_time(a, c, &cycles, e);
    if (rc)
        return rc;
    if (c->cycles)
        cycles = c->cycles;
    a->st.gemm_cycles += cycles;
    a->st.macs += (uint64_t)c->u.gemm.m * c->u.gemm.n * c->u.gemm.k;
    *end = now + cycles * a->cfg.period_ps;
    return 0;
}

/* The vector-unit operation on tensor-buffer data (tlm, rtl, lockstep). */
static int vu_run(struct anode *a, const struct hc_cmd *c, struct err *e)
{
    uint32_t r = c->u.vu.rows, cols = c->u.vu.cols;
    size_t n = (size_t)r * cols;
    int rc;

    if (scratch(a, 0, n * 4, e) || scratch(a, 1, n * 4, e) || scratch(a, 2, n * 4 + 4096, e))
        return -ENOMEM;
    switch ((enum vu_op)c->op) {
    case VU_INPUT:
        if ((rc = tb_rd(a, c->u.vu.src, a->s[0], n, e)))
            return rc;
        vu_input(a->s[0], (uint16_t *)a->s[1], n);
        return tb_wr(a, c->u.vu.dst, a->s[1], n * 2, e);
    case VU_BIAS_ACT:
        if ((rc = tb_rd(a, c->u.vu.src, a->s[0], n * 4, e)) ||
            (rc = tb_rd(a, c->u.vu.src2, a->s[2], (size_t)cols * 4, e)))
            return rc;
        vu_bias_act((const float *)a->s[0], (const float *)a->s[2], r, cols, c->u.vu.relu,
                    (uint16_t *)a->s[1], (float *)a->s[1]);
        return tb_wr(a, c->u.vu.dst, a->s[1], n * (c->u.vu.relu ? 2 : 4), e);
    case VU_LOSS: {
        float loss;
        if ((rc = tb_rd(a, c->u.vu.src, a->s[0], n * 4, e)) ||
            (rc = tb_rd(a, c->u.vu.src2, a->s[2], r, e)))
            return rc;
        for (uint32_t i = 0; i < r; i++)
            if (a->s[2][i] >= cols) {
                return err_set(e, -EINVAL, "%s: label %u of shard row %u is not below %u classes",
                               a->name, a->s[2][i], i, cols);
            }
        loss = vu_loss((const float *)a->s[0], a->s[2], r, cols, a->cfg.batch, (float *)a->s[1]);
        if ((rc = tb_wr(a, c->u.vu.dst, a->s[1], n * 4, e)))
            return rc;
        return tb_wr(a, c->u.vu.dst2, &loss, 4, e);
    }
    case VU_GRAD:
        if ((rc = tb_rd(a, c->u.vu.src, a->s[0], n * 4, e)))
            return rc;
        vu_grad((const float *)a->s[0], r, cols, (uint16_t *)a->s[1], (float *)a->s[2]);
        if ((rc = tb_wr(a, c->u.vu.dst, a->s[1], n * 2, e)))
            return rc;
        return tb_wr(a, c->u.vu.dst2, a->s[2], (size_t)cols * 4, e);
    case VU_MASK:
        if ((rc = tb_rd(a, c->u.vu.src, a->s[0], n * 4, e)) ||
            (rc = tb_rd(a, c->u.vu.src2, a->s[1], n * 2, e)))
            return rc;
        vu_mask((const float *)a->s[0], (const uint16_t *)a->s[1], n, (float *)a->s[0]);
        return tb_wr(a, c->u.vu.dst, a->s[0], n * 4, e);
    case VU_ARGMAX:
        if ((rc = tb_rd(a, c->u.vu.src, a->s[0], n * 4, e)))
            return rc;
        vu_argmax((const float *)a->s[0], r, cols, a->s[1]);
        return tb_wr(a, c->u.vu.dst, a->s[1], r, e);
    default:
        return err_set(e, -EINVAL, "%s: unknown vector-unit op %u", a->name, c->op);
    }
}

/* One stream of a vector-unit operation over the tensor buffer. */
struct vu_stream {
    uint64_t addr, bytes;
    bool write;
};

/* The tensor-buffer streams of vector-unit command c (what vu_run reads and writes); returns
 * their number (at most 4). */
static int vu_streams(const struct hc_cmd *c, struct vu_stream *v)
{
    uint64_t r = c->u.vu.rows, cols = c->u.vu.cols, n = r * cols;
    int k = 0;

#define VS(a, b, w) (v[k++] = (struct vu_stream){(a), (b), (w)})
    switch ((enum vu_op)c->op) {
    case VU_INPUT:
        VS(c->u.vu.src, n, false);
        VS(c->u.vu.dst, n * 2, true);
        break;
    case VU_BIAS_ACT:
        VS(c->u.vu.src, n * 4, false);
        VS(c->u.vu.src2, cols * 4, false);
        VS(c->u.vu.dst, n * (c->u.vu.relu ? 2 : 4), true);
        break;
    case VU_LOSS:
        VS(c->u.vu.src, n * 4, false);
        VS(c->u.vu.src2, r, false);
        VS(c->u.vu.dst, n * 4, true);
        VS(c->u.vu.dst2, 4, true);
        break;
    case VU_GRAD:
        VS(c->u.vu.src, n * 4, false);
        VS(c->u.vu.dst, n * 2, true);
        VS(c->u.vu.dst2, cols * 4, true);
        break;
    case VU_MASK:
        VS(c->u.vu.src, n * 4, false);
        VS(c->u.vu.src2, n * 2, false);
        VS(c->u.vu.dst, n * 4, true);
        break;
    case VU_ARGMAX:
        VS(c->u.vu.src, n * 4, false);
        VS(c->u.vu.dst, r, true);
        break;
    default:
        break;
    }
#undef VS
    return k;
}

/*
 * The vector unit streams its operands through the tensor buffer: every stream is asked for at
 * the command's start, in the order above (first come, first served behind the buffer's other
 * users), and the command ends no earlier than its last stream (ours: the papers describe no
 * vector unit; a stream's bytes are claimed as one access, split over the channels).
 */
static uint64_t vu_claim(struct anode *a, const struct hc_cmd *c, uint64_t now)
{
    struct vu_stream v[4];
    uint64_t end = now;
    int k = vu_streams(c, v);

    for (int i = 0; i < k; i++)
        if (v[i].bytes)
            end = res_later(end,
                            dram_access(a->tb, a->rid_vu, now, v[i].addr, v[i].bytes, v[i].write));
    return end;
}

static int exec_vu(struct anode *a, const struct hc_cmd *c, uint64_t now, uint64_t *end,
                   struct err *e)
{
    uint64_t cy = c->cycles;
    int rc;

    if (!a->cfg.perf && (rc = vu_run(a, c, e)))
        return rc;
    if (!cy) {
        if (c->op >= VU_N_OPS)
            return err_set(e, -EINVAL, "%s: unknown vector-unit op %u", a->name, c->op);
        cy = vu_cycles(&a->cfg.vu, (enum vu_op)c->op, (uint64_t)c->u.vu.rows * c->u.vu.cols);
    }
    a->st.vu_cycles += cy;
    *end = res_later(now + cy * a->cfg.period_ps, vu_claim(a, c, now));
    return 0;
}

static int exec_flash(struct anode *a, const struct hc_cmd *c, uint64_t now, uint64_t *end,
                      uint64_t *free_at, struct err *e)
{
    int rc;

    if (c->kind == HC_FLASH_RD && c->op == HC_S_NV) {
        if (!a->sh_n) {
            return err_set(e, -ENODATA, "%s: no input shard loaded (machine_load_inputs first)",
                           a->name);
        }
        a->cur = a->shard[a->sh_head];
        a->have_cur = true;
        a->sh_head = (a->sh_head + 1) % a->sh_cap;
        a->sh_n--;
        rc = nstore_read_tb(&a->sto, (uint32_t)a->s_nv, now, &a->cur, c->u.fl.tb, end, free_at, e);
        a->st.flash_rd_bytes += a->cur.bytes;
    } else if (c->kind == HC_FLASH_RD && c->op == HC_S_V) {
        uint32_t l = c->u.fl.rec;
        if (l >= a->cfg.n_act || !a->act_ok[l]) {
            return err_set(e, -ENODATA, "%s: activation record X%u was not written this step",
                           a->name, l + 1);
        }
        rc =
            nstore_read_tb(&a->sto, (uint32_t)a->s_v, now, &a->act[l], c->u.fl.tb, end, free_at, e);
        a->st.flash_rd_bytes += a->act[l].bytes;
    } else if (c->kind == HC_FLASH_WR && c->op == HC_S_V) {
        uint32_t l = c->u.fl.rec;
        if (l >= a->cfg.n_act)
            return err_set(e, -EINVAL, "%s: activation record X%u; the program has %u", a->name,
                           l + 1, a->cfg.n_act);
        if (a->act_ok[l]) {
            return err_set(e, -EINVAL, "%s: activation record X%u written twice in a step", a->name,
                           l + 1);
        }
        rc = nstore_write_tb(&a->sto, (uint32_t)a->s_v, now, c->u.fl.tb, c->bytes, &a->act[l], end,
                             free_at, e);
        if (!rc)
            a->act_ok[l] = true;
        a->st.flash_wr_bytes += c->bytes;
    } else {
        return err_set(e, -EINVAL, "%s: no flash stream %s on an Activation Node", a->name,
                       hc_stream_name((enum hc_stream)c->op));
    }
    if (rc)
        err_prefix(e, rc, "%s", a->name);
    return rc;
}

int anode_exec(struct anode *a, const struct hc_prog *p, const struct hc_cmd *c, uint64_t now,
               uint64_t *end, uint64_t *free_at, struct err *e)
{
    int rc;

    (void)p;
    *end = now;
    *free_at = UINT64_MAX;
    switch ((enum hc_kind)c->kind) {
    case HC_DMA_IN:
    case HC_DMA_OUT:
        rc = exec_dma(a, c, now, end, e);
        break;
    case HC_GEMM:
        rc = exec_gemm(a, c, now, end, e);
        break;
    case HC_VU:
        rc = exec_vu(a, c, now, end, e);
        break;
    case HC_FLASH_RD:
    case HC_FLASH_WR:
        rc = exec_flash(a, c, now, end, free_at, e);
        break;
    case HC_HOST_WR:
        rc = 0;
        break;
    default:
        return err_set(e, -EINVAL, "%s: command %u '%s' (%s) is not an Activation Node command",
                       a->name, c->id, c->label, hc_kind_name((enum hc_kind)c->kind));
    }
    if (rc)
        return rc;
    if (*free_at > *end)
        *free_at = *end;
    a->st.cmds[c->kind]++;
    uint32_t res = (c->res - HC_RES_FIXED) % HC_RES_AN_N;
    if (c->res >= HC_RES_FIXED)
        a->st.busy_ps[res] += *free_at - now;
    return 0;
}

int anode_end_step(struct anode *a, uint64_t now, bool fresh_lb, struct err *e)
{
    int rc = 0;

    for (uint32_t l = 0; l < a->cfg.n_act; l++) {
        if (!a->act_ok[l])
            continue;
        a->act_ok[l] = false;
        if (!rc && (rc = nstore_free(&a->sto, (uint32_t)a->s_v, now, &a->act[l], e)))
            err_prefix(e, rc, "%s V stream", a->name);
    }
    if (a->have_cur) {
        a->have_cur = false;
        if (!rc && (rc = nstore_free(&a->sto, (uint32_t)a->s_nv, now, &a->cur, e)))
            err_prefix(e, rc, "%s NV stream", a->name);
    }
    if (!rc && fresh_lb && (rc = nstore_align(&a->sto, (uint32_t)a->s_v, now, e)))
        err_prefix(e, rc, "%s V stream", a->name);
    return rc;
}

struct dram *anode_tb(struct anode *a)
{
    return a->tb;
}

const struct anode_stats *anode_get_stats(const struct anode *a)
{
    return &a->st;
}

struct nflash *anode_flash(struct anode *a)
{
    return nstore_flash(&a->sto);
}

struct nstore *anode_store(struct anode *a)
{
    return &a->sto;
}
