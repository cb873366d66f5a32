#include "testbench/flashstream/budget.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/core/core_twin.h"
#include "models/flash/flash_cfg.h"

struct snap {
    const struct machine_counter *c;
    size_t n;
    struct err *e;
    int err;
};

/* The counter `name` (the first missing one is the error). */
static double counter(struct snap *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->c[i].name, name))
            return s->c[i].is_f64 ? s->c[i].f64 : (double)s->c[i].u64;
    if (!s->err)
        s->err = err_set(s->e, -ENOENT, "budget: the machine has no counter %s", name);
    return 0;
}

/* The bytes of every requester of a node's tensor buffer: "<node>.tb.<requester>.bytes". */
static double tb_bytes(const struct snap *s, const char *node)
{
    char prefix[16];
    size_t len = (size_t)snprintf(prefix, sizeof(prefix), "%s.tb.", node);
    double sum = 0;
    for (size_t i = 0; i < s->n; i++) {
        const char *rest = s->c[i].name + len, *dot = strchr(rest, '.');
        if (!strncmp(s->c[i].name, prefix, len) && dot && !strcmp(dot, ".bytes"))
            sum += (double)s->c[i].u64;
    }
    return sum;
}

static void row(struct budget *b, enum budget_path p, const char *name, const char *unit,
                double amount, double busy_ps, double peak, double per)
{
    b->row[p] = (struct budget_row){name, unit, amount / per, busy_ps * 1e-12 / per, peak};
}

int budget_take(struct budget *b, struct machine *m, const struct machine_cfg *c,
                const struct hz_report *rep, uint64_t model_flop, uint64_t iterations,
                struct err *e)
{
    struct snap s = {.e = e};
    struct flash_bounds wr, rd, an_wr, an_rd;
    double it = (double)(iterations ? iterations : 1);
    double clock = 1e12 / (double)c->core_period_ps;
    uint32_t wn_ch = c->wn_tb_channels ? c->wn_tb_channels : c->tb.channels;
    double chan = (double)c->tb.chan_mbps * 1e6;
    uint32_t dma_w = c->dma_bytes_per_cycle ? c->dma_bytes_per_cycle : CORE_DMA_BEAT;
    uint32_t sram_w = c->sram_bytes_per_cycle ? c->sram_bytes_per_cycle
                                              : 2 * (c->core.rows + c->core.cols) + dma_w;
    double sram = 0;

    s.c = machine_counters(m, &s.n);
    flash_cfg_read_bounds(&c->wn_flash, &rd);
    flash_cfg_write_bounds(&c->wn_flash, &wr);
    flash_cfg_read_bounds(&c->an_flash, &an_rd);
    flash_cfg_write_bounds(&c->an_flash, &an_wr);
    for (int k = 0; k < ZOO_GEMM_KINDS; k++)
        for (int r = 0; r <= ZOO_ROLE_RECOMPUTE; r++)
            sram += (double)rep->cls[k][r].sram_traffic;
    /* the saved activations cross each core's SRAM out and back */
    sram += c->sram_bytes ? 2.0 * (double)rep->saved_bytes / c->cores_per_an : 0;
    sram *= it; /* the compiler counted one iteration */

    row(b, BUDGET_WN_FLASH_RD, "wn_flash_read", "bytes", counter(&s, "wn.flash.bytes_read"),
        counter(&s, "wn.flash_rd.busy_ps"), rd.min_bps, it);
    row(b, BUDGET_WN_FLASH_WR, "wn_flash_write", "bytes", counter(&s, "wn.flash.bytes_written"),
        counter(&s, "wn.flash_wr.busy_ps"), wr.min_bps, it);
    row(b, BUDGET_WN_TB, "wn_tensor_buffer", "bytes", tb_bytes(&s, "wn"),
        counter(&s, "wn.tb.bus_ps") / wn_ch, wn_ch * chan, it);
    row(b, BUDGET_FABRIC_DOWN, "fabric_down", "bytes", counter(&s, "fabric.bytes_down"),
        counter(&s, "fabric.down.busy_ps"), (double)c->fabric.link_Bps, it);
    row(b, BUDGET_FABRIC_UP, "fabric_up", "bytes", counter(&s, "fabric.bytes_up"),
        counter(&s, "fabric.up.busy_ps"), (double)c->fabric.link_Bps, it);
    row(b, BUDGET_AN_TB, "an_tensor_buffer", "bytes", tb_bytes(&s, "an0"),
        counter(&s, "an0.tb.bus_ps") / c->tb.channels, c->tb.channels * chan, it);
    row(b, BUDGET_AN_SRAM, "an_core_sram", "bytes", sram, sram / sram_w / clock * 1e12,
        sram_w * clock, it);
    row(b, BUDGET_AN_FLASH_WR, "an_flash_write", "bytes", counter(&s, "an0.flash.bytes_written"),
        counter(&s, "an0.flash_wr.busy_ps"), an_wr.min_bps, it);
    row(b, BUDGET_AN_FLASH_RD, "an_flash_read", "bytes", counter(&s, "an0.flash.bytes_read"),
        counter(&s, "an0.flash_rd.busy_ps"), an_rd.min_bps, it);
    row(b, BUDGET_AN_ARRAY, "an_core_array", "MACs", (double)model_flop / 2 * it,
        counter(&s, "an0.core.busy_ps"), (double)c->core.rows * c->core.cols * clock, it);
    b->compute_s = (counter(&s, "an0.core.busy_ps") + counter(&s, "an0.vu.busy_ps")) * 1e-12 / it;
    return s.err;
}

int budget_critical(struct budget *b, struct machine *m, uint64_t start_ps, struct err *e)
{
    const struct hc_prog *p = machine_program(m);
    const uint64_t *st, *en;
    size_t n;
    machine_cmd_times(m, &st, &en, &n);
    uint32_t *prev = malloc((n ? n : 1) * sizeof(*prev)), *last = malloc(p->n_res * sizeof(*last));
    if (!prev || !last) {
        free(prev);
        free(last);
        return err_set(e, -ENOMEM, "budget: out of memory");
    }
    for (uint32_t k = 0; k < p->n_res; k++)
        last[k] = UINT32_MAX;
    uint32_t cur = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) { /* a resource runs its commands in program order */
        prev[i] = last[p->cmd[i].res];
        last[p->cmd[i].res] = i;
        if (cur == UINT32_MAX || en[i] > en[cur])
            cur = i;
    }
    memset(b->crit_s, 0, sizeof(b->crit_s));
    for (uint64_t t = cur == UINT32_MAX ? 0 : en[cur]; cur != UINT32_MAX && t > start_ps;) {
        const struct hc_cmd *c = &p->cmd[cur];
        uint32_t by = prev[cur];
        uint64_t ready = by == UINT32_MAX ? 0 : en[by];
        for (uint32_t k = 0; k < c->ndep; k++) {
            uint32_t d = p->deps[c->dep0 + k];
            if (en[d] >= ready) {
                ready = en[d];
                by = d;
            }
        }
        uint64_t from = ready > st[cur] ? ready : st[cur];
        from = from > start_ps ? from : start_ps;
        /* an AN's resource by its kind: AN 0's name */
        uint32_t r =
            c->res < HC_RES_FIXED ? c->res : HC_RES_FIXED + (c->res - HC_RES_FIXED) % HC_RES_AN_N;
        if (r < BUDGET_MAX_RES) {
            hc_res_name(r, b->crit_name[r], sizeof(b->crit_name[r]));
            b->crit_s[r] += (double)(t > from ? t - from : 0) * 1e-12;
        }
        t = by == UINT32_MAX ? st[cur] : ready;
        cur = by;
    }
    free(prev);
    free(last);
    return 0;
}

void budget_print(const struct budget *b)
{
    printf("\nbandwidth budget per iteration (AN figures: one Activation Node; SRAM and array: one "
           "core); need: the rate for an iteration of only the core's compute, %.3f s:\n",
           b->compute_s);
    printf("  %-18s %12s %10s %6s %12s %12s\n", "path", "GB (GMAC)", "busy s", "util", "need GB/s",
           "peak GB/s");
    for (int p = 0; p < BUDGET_PATHS; p++) {
        const struct budget_row *r = &b->row[p];
        printf("  %-18s %12.1f %10.3f %5.1f%% %12.2f %12.2f\n", r->name, r->amount / 1e9, r->busy_s,
               b->iteration_s > 0 ? 100.0 * r->busy_s / b->iteration_s : 0.0,
               b->compute_s > 0 ? r->amount / b->compute_s / 1e9 : 0.0, r->peak / 1e9);
    }
    printf("critical path of the last iteration, s by resource (what an iteration waited on):\n ");
    for (int r = 0; r < BUDGET_MAX_RES; r++)
        if (b->crit_s[r] > 0)
            printf(" %s %.3f", b->crit_name[r], b->crit_s[r]);
    printf("\n");
}

int budget_stats(const struct budget *b, struct stats *s, struct err *e)
{
    char key[96];
    int rc = 0;
    for (int p = 0; p < BUDGET_PATHS && !rc; p++) {
        const struct budget_row *r = &b->row[p];
        double util = b->iteration_s > 0 ? r->busy_s / b->iteration_s : 0.0;
        double need = b->compute_s > 0 ? r->amount / b->compute_s : 0.0;
        snprintf(key, sizeof(key), "budget.%s.amount", r->name);
        rc = stats_set_f64(s, key, r->unit, "moved (done) per iteration", r->amount, e);
        snprintf(key, sizeof(key), "budget.%s.busy_s", r->name);
        rc = rc ? rc : stats_set_f64(s, key, "s", "busy per iteration", r->busy_s, e);
        snprintf(key, sizeof(key), "budget.%s.util", r->name);
        rc = rc ? rc : stats_set_f64(s, key, "ratio", "busy over the iteration", util, e);
        snprintf(key, sizeof(key), "budget.%s.need_per_s", r->name);
        rc = rc ? rc
                : stats_set_f64(s, key, r->unit,
                                "per second, for an iteration of only the core's compute", need, e);
        snprintf(key, sizeof(key), "budget.%s.peak_per_s", r->name);
        rc = rc ? rc : stats_set_f64(s, key, r->unit, "per second, the machine's", r->peak, e);
    }
    if (!rc)
        rc = stats_set_f64(s, "budget.compute_s", "s",
                           "one core's array and vector unit per iteration", b->compute_s, e);
    for (int r = 0; r < BUDGET_MAX_RES && !rc; r++) {
        if (!b->crit_name[r][0])
            continue;
        snprintf(key, sizeof(key), "budget.critical_path.%s_s", b->crit_name[r]);
        for (char *q = key + strlen("budget.critical_path."); *q; q++)
            *q = *q == '.' ? '_' : *q; /* "an0.core" -> "an0_core" */
        rc = stats_set_f64(s, key, "s", "the last iteration's critical path on the resource",
                           b->crit_s[r], e);
    }
    return rc;
}
