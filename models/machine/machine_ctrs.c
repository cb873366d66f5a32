/*
 * machine_ctrs.c - the counters and records a run leaves; see machine.h.
 */
#include "models/machine/machine_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- records */

const struct machine_layer_rec *machine_layer_recs(const struct machine *m, size_t *n)
{
    *n = m->n_rec;
    return m->rec;
}

void machine_clear_records(struct machine *m)
{
    m->n_rec = 0;
}

size_t machine_resources(const struct machine *m)
{
    return m->n_res;
}

const char *machine_resource_name(const struct machine *m, size_t i)
{
    return i < m->n_res ? m->resname[i] : "?";
}

void machine_record_busy(struct machine *m, bool on, size_t max)
{
    m->busy_on = on;
    m->busy_max = max;
}

const struct machine_busy *machine_busy(const struct machine *m, size_t *n, uint64_t *dropped)
{
    *n = m->n_busy;
    if (dropped)
        *dropped = m->busy_dropped;
    return m->busy;
}

void machine_clear_busy(struct machine *m)
{
    m->n_busy = 0;
    m->busy_dropped = 0;
}

static void ctr(struct machine *m, bool f, uint64_t u, double d, const char *unit, const char *desc,
                const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void ctr(struct machine *m, bool f, uint64_t u, double d, const char *unit, const char *desc,
                const char *fmt, ...)
{
    if (m->n_ctr == m->cap_ctr) {
        size_t cap = m->cap_ctr ? 2 * m->cap_ctr : 256;
        struct machine_counter *q = realloc(m->ctr, cap * sizeof(*q));
        if (!q)
            return;
        m->ctr = q;
        m->cap_ctr = cap;
    }
    struct machine_counter *c = &m->ctr[m->n_ctr++];
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

#define CU(m, v, unit, desc, ...) ctr(m, false, (v), 0, unit, desc, __VA_ARGS__)
#define CF(m, v, unit, desc, ...) ctr(m, true, 0, (v), unit, desc, __VA_ARGS__)

/* A node's flash faults (--fault; none without): reads retried, their time, what failed. */
static void fault_ctrs(struct machine *m, const char *node, const struct flash_fms *fms)
{
    struct flash_fault_stats st;

    if (!flash_fms_fault_stats(fms, &st))
        return;
    CU(m, st.pages_checked, "pages", "page reads decoded by the ECC",
       "%s.flash.faults.pages_decoded", node);
    CU(m, st.pages_retried, "pages", "page reads that needed read retries",
       "%s.flash.faults.pages_retried", node);
    CU(m, st.retries, "count", "read retries", "%s.flash.faults.retries", node);
    CU(m, st.retry_ps, "ps", "array and channel time the retries added, summed over operations",
       "%s.flash.faults.retry_ps", node);
    CU(m, st.uncorrectable, "pages", "pages that failed every retry",
       "%s.flash.faults.uncorrectable", node);
    CF(m, st.pages_checked ? st.rber_sum / (double)st.pages_checked : 0.0, "ratio",
       "mean raw bit error rate of the pages decoded", "%s.flash.faults.rber_mean", node);
    CF(m, st.rber_max, "ratio", "highest raw bit error rate a page was decoded at",
       "%s.flash.faults.rber_max", node);
    CU(m, st.program_failures, "count", "program failures (injected rate and wear-out)",
       "%s.flash.faults.program_failures", node);
    CU(m, st.worn_blocks, "blocks", "blocks found failed by wear-out in the injected age",
       "%s.flash.faults.worn_blocks", node);
    CU(m, st.erase_failures, "count", "erase failures (wear-out)", "%s.flash.faults.erase_failures",
       node);
    CU(m, st.refused_dead + st.refused_power, "count",
       "operations refused by a dead die or channel or after power loss", "%s.flash.faults.refused",
       node);
}

static void stream_ctrs(struct machine *m, const char *node, struct nflash *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        struct ftl_stream_stats st;
        ftl_stream_stats(f->sys.s[i], sim_now(m->sim), &st);
        CU(m, st.lpages_written, "pages", "pages written", "%s.flash.%s.pages_written", node,
           f->name[i]);
        CU(m, st.pages_read, "pages", "pages read", "%s.flash.%s.pages_read", node, f->name[i]);
        CU(m, st.sb_erases, "count", "superblock erases", "%s.flash.%s.erases", node, f->name[i]);
        CU(m, st.pe_max, "cycles", "highest P/E count of a block", "%s.flash.%s.pe_max", node,
           f->name[i]);
        CU(m, st.blocks_replaced, "blocks", "blocks replaced by spares (worn out or failed)",
           "%s.flash.%s.spares_used", node, f->name[i]);
        CU(m, st.sb_retired, "count", "superblocks retired (a plane out of spares)",
           "%s.flash.%s.sb_retired", node, f->name[i]);
        CU(m, st.program_remaps, "blocks", "blocks remapped to a spare after a failed program",
           "%s.flash.%s.program_remaps", node, f->name[i]);
        CU(m, st.remap_pages, "pages", "pages copied from failed blocks to their spares",
           "%s.flash.%s.remap_pages", node, f->name[i]);
        CU(m, st.remap_ps, "ps", "time of those copies, summed over remaps", "%s.flash.%s.remap_ps",
           node, f->name[i]);
        CU(m, f->log[i].released, "count", "logical blocks released", "%s.flash.%s.released", node,
           f->name[i]);
        CU(m, f->log[i].live_pages, "pages", "pages of live records", "%s.flash.%s.live_pages",
           node, f->name[i]);
        CF(m, st.waf, "ratio", "write amplification", "%s.flash.%s.waf", node, f->name[i]);
        CF(m, st.pe_per_year, "cycles", "P/E cycles per block per year at the observed write rate",
           "%s.flash.%s.pe_per_year", node, f->name[i]);
        CF(m, isinf(st.lifetime_years) ? 0.0 : st.lifetime_years, "years",
           "lifetime at the observed write rate (0: not yet written)", "%s.flash.%s.lifetime_years",
           node, f->name[i]);
    }
    fault_ctrs(m, node, f->sys.fms);
}

/* A node's SSD array (storage ssd-raid0): the drives' counters added up, in the drive's pages,
 * and each stream's share of the traffic. */
static void ssd_ctrs(struct machine *m, const char *node, struct nssd *f)
{
    struct ssd_stats st;
    uint64_t pe_max, g = f->grain;

    nssd_stats(f, &st, &pe_max);
    CU(m, ssd_raid0_members(f->raid), "count", "SSDs in the node's RAID 0", "%s.ssd.members", node);
    CU(m, st.host_write_pages, "pages", "pages written by the host (the drive's pages)",
       "%s.ssd.pages_written", node);
    CU(m, st.host_read_pages, "pages", "pages read by the host", "%s.ssd.pages_read", node);
    CU(m, st.prog_pages, "pages", "pages programmed (host, GC moves, padding)",
       "%s.ssd.pages_programmed", node);
    CU(m, st.gc_pages, "pages", "pages moved by garbage collection", "%s.ssd.gc_pages", node);
    CU(m, st.gc_erases, "count", "units erased (a block in every plane of a die)", "%s.ssd.erases",
       node);
    CU(m, pe_max, "cycles", "highest P/E count of a block", "%s.ssd.pe_max", node);
    CF(m, ssd_stats_wa(&st), "ratio", "write amplification (pages programmed per page written)",
       "%s.ssd.waf", node);
    CU(m, st.gc_forced, "count", "host rows that waited for forced GC", "%s.ssd.gc_forced", node);
    CU(m, st.gc_forced_ps, "ps", "time hosts waited for forced GC", "%s.ssd.gc_forced_ps", node);
    CU(m, st.wbuf_waits, "count", "pages that waited for the write buffer", "%s.ssd.wbuf_waits",
       node);
    for (uint32_t i = 0; i < f->n; i++) {
        const struct nssd_stream *s = &f->s[i];

        CU(m, s->pages_written * g, "pages", "pages written", "%s.ssd.%s.pages_written", node,
           s->name);
        CU(m, s->pages_read * g, "pages", "pages read", "%s.ssd.%s.pages_read", node, s->name);
        CU(m, s->live_pages * g, "pages", "pages of live records", "%s.ssd.%s.live_pages", node,
           s->name);
    }
}

/* A node's storage: its flash streams, or its SSD array. */
static void store_ctrs(struct machine *m, const char *node, struct nstore *s)
{
    if (nstore_ssd(s))
        ssd_ctrs(m, node, nstore_ssd(s));
    else
        stream_ctrs(m, node, nstore_flash(s));
}

/* The tensor buffer's channels and each requester's share of them (models/dram/dram.h). */
static void tb_ctrs(struct machine *m, const char *node, const struct dram *tb)
{
    const struct res *ch;
    uint64_t busy = 0;
    uint32_t n = 0;

    while ((ch = dram_chan_stats(tb, n)) != NULL) {
        busy += ch->busy_ps;
        n++;
    }
    CU(m, busy, "ps", "bus time of the tensor buffer's channels, summed over channels",
       "%s.tb.bus_ps", node);
    CF(m, n && sim_now(m->sim) ? (double)busy / n / (double)sim_now(m->sim) : 0.0, "ratio",
       "tensor buffer utilisation: bus time over channels x simulated time", "%s.tb.util", node);
    for (int i = 0; i < dram_requesters(tb); i++) {
        const struct dram_req_stats *s = dram_req_stats(tb, i);
        CU(m, s->bytes_rd + s->bytes_wr, "bytes", "bytes the requester moved through the buffer",
           "%s.tb.%s.bytes", node, s->name);
        CU(m, s->bus_ps, "ps", "bus time the requester used", "%s.tb.%s.bus_ps", node, s->name);
        CU(m, s->wait_ps, "ps",
           "queueing delay: the requester's pieces waited for a busy channel, summed",
           "%s.tb.%s.wait_ps", node, s->name);
    }
}

const struct machine_counter *machine_counters(struct machine *m, size_t *count)
{
    struct fabric_stats fs;
    m->n_ctr = 0;

    CU(m, m->steps, "count", "training steps run", "run.steps");
    CU(m, m->evals, "count", "evaluation calls", "run.evals");
    CU(m, sim_now(m->sim), "ps", "simulated time now", "run.sim_time_ps");
    CU(m, m->sim_steps_ps, "ps", "simulated time inside training steps", "run.step_time_ps");
    CU(m, sim_events_fired(m->sim), "count", "events fired by the kernel", "run.events");
    CU(m, m->train->n_cmd, "count", "commands per training step", "program.commands");
    CU(m, m->train->gemms, "count", "GEMM commands per AN per step", "program.gemms_per_an");
    CU(m, m->train->an_tb_used, "bytes", "tensor buffer allocated per AN", "program.an_tb_bytes");
    CU(m, m->train->wn_tb_used, "bytes", "tensor buffer allocated at the WN",
       "program.wn_tb_bytes");
    CU(m, m->dma_time ? dma_time_simulated(m->dma_time) : 0, "count",
       "distinct DMA descriptors run on the DMA twin", "dma_timing.simulated");
    CU(m, m->dma_time ? dma_time_hits(m->dma_time) : 0, "count",
       "DMA timings answered from the memo", "dma_timing.hits");
    CU(m, m->dma_time ? dma_time_contended(m->dma_time) : 0, "count",
       "DMA commands run on the DMA twin because a tensor-buffer channel was busy at their start",
       "dma_timing.contended");
    for (uint32_t k = 0; k < m->n_res; k++)
        CU(m, m->res_busy_ps[k], "ps", "time the resource was busy", "%s.busy_ps", m->resname[k]);
    for (uint32_t n = 0; n < m->cfg.n_an; n++) {
        const struct anode_stats *s = anode_get_stats(m->an[n]);
        char node[16];
        snprintf(node, sizeof(node), "an%u", n);
        CU(m, s->gemm_cycles, "cycles", "core cycles of GEMMs", "%s.core.cycles", node);
        CU(m, s->macs, "count", "multiply-accumulates", "%s.core.macs", node);
        CU(m, s->cmds[HC_GEMM], "count", "GEMM commands", "%s.core.gemms", node);
        CU(m, s->dma_cycles, "cycles", "DMA cycles", "%s.dma.cycles", node);
        CU(m, s->dma_bytes, "bytes", "bytes moved by the DMA", "%s.dma.bytes", node);
        CU(m, s->vu_cycles, "cycles", "vector-unit cycles", "%s.vu.cycles", node);
        CU(m, s->flash_rd_bytes, "bytes", "bytes read from flash", "%s.flash.bytes_read", node);
        CU(m, s->flash_wr_bytes, "bytes", "bytes written to flash", "%s.flash.bytes_written", node);
        store_ctrs(m, node, anode_store(m->an[n]));
        tb_ctrs(m, node, anode_tb(m->an[n]));
    }
    const struct wnode_stats *w = wnode_get_stats(m->wn);
    CU(m, w->updates, "count", "layer updates", "wn.opt.updates");
    CU(m, w->params_updated, "count", "parameters updated", "wn.opt.params");
    CU(m, w->opt_compute_ps, "ps",
       "optimizer unit's compute (latency + params x cost / lanes cycles); an update lasts the "
       "later of it and its tensor-buffer streams",
       "wn.opt.compute_ps");
    CU(m, w->flash_rd_bytes, "bytes", "bytes read from flash", "wn.flash.bytes_read");
    CU(m, w->flash_wr_bytes, "bytes", "bytes written to flash", "wn.flash.bytes_written");
    CU(m, wnode_steps(m->wn), "count", "optimizer steps completed", "wn.opt.step");
    store_ctrs(m, "wn", wnode_store(m->wn));
    tb_ctrs(m, "wn", wnode_tb(m->wn));
    fabric_get_stats(m->fab, &fs);
    CU(m, fs.broadcasts, "count", "broadcasts", "fabric.broadcasts");
    CU(m, fs.reduces, "count", "reduces (loss gathers included)", "fabric.reduces");
    CU(m, fs.bytes_down, "bytes", "payload broadcast", "fabric.bytes_down");
    CU(m, fs.bytes_up, "bytes", "payload reduced into the WN", "fabric.bytes_up");
    CU(m, fs.wn_down_busy_ps, "ps", "WN down link transmitting", "fabric.wn_down_busy_ps");
    CU(m, fs.wn_up_busy_ps, "ps", "WN up link transmitting", "fabric.wn_up_busy_ps");
    *count = m->n_ctr;
    return m->ctr;
}
