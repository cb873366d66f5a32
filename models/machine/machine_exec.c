/*
 * machine_exec.c - the executor of a program and the layer records (the fabric's commands timed
 * by models/fabric: fabric_time_broadcast, fabric_time_reduce).
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
#include "models/machine/machine_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- executor */

void machine_exec_free(struct exec *x)
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

int machine_exec_init(struct machine *m, struct exec *x, const struct hc_prog *p, bool record)
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
        machine_exec_free(x);
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
        machine_exec_free(x);
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
        x->ev[i] = (struct evref){m, x, i};
        x->evr[i] = (struct evref){m, x, i};
    }
    if (record && layer_index(x, p)) {
        machine_exec_free(x);
        return -ENOMEM;
    }
    return 0;
}

int machine_ensure_buf(struct machine *m, size_t n)
{
    if (n <= m->buf_cap)
        return 0;
    unsigned char *b = realloc(m->buf, n);
    if (!b)
        return -ENOMEM;
    m->buf = b;
    m->buf_cap = n;
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
static int fabric_data(struct machine *m, const struct hc_cmd *c)
{
    struct dram *an_tbs[MACHINE_MAX_AN];
    int rc;

    for (uint32_t n = 0; n < m->cfg.n_an; n++)
        an_tbs[n] = anode_tb(m->an[n]);
    if (c->kind == HC_FABRIC_BCAST) {
        rc = fabric_broadcast_data(m->fab, wnode_tb(m->wn), c->u.fab.src, an_tbs, c->u.fab.dst,
                                   c->bytes, m->run_err);
    } else if (c->kind == HC_LOSS_GATHER) {
        float sum;
        rc = fabric_gather_loss_data(m->fab, an_tbs, c->u.fab.src, &sum, m->run_err);
        if (!rc)
            machine_fabric_loss(m, sum);
    } else {
        rc = fabric_reduce_data(m->fab, an_tbs, c->u.fab.src, c->bytes, wnode_tb(m->wn),
                                c->u.fab.dst, m->run_err);
    }
    if (rc)
        err_prefix(m->run_err, rc, "command %u '%s'", c->id, c->label);
    return rc;
}

void machine_fabric_loss(struct machine *m, float sum)
{
    m->loss = sum / (float)m->cfg.batch;
}

const struct fabric *machine_fabric(const struct machine *m)
{
    return m->fab;
}

/* The fabric's commands (they touch every node): the fabric moves the bytes (not in perf),
 * then times the transfer. */
int machine_fabric_exec(struct machine *m, const struct hc_cmd *c, const uint64_t *ready,
                        uint64_t now, uint64_t *end, uint64_t *free_at)
{
    int rc;

    if (!m->perf && (rc = fabric_data(m, c)))
        return rc;
    return machine_fabric_time(m, c, ready, now, end, free_at);
}

int machine_fabric_time(struct machine *m, const struct hc_cmd *c, const uint64_t *ready,
                        uint64_t now, uint64_t *end, uint64_t *free_at)
{
    if (c->kind == HC_FABRIC_BCAST)
        return fabric_time_broadcast(m->fab, &m->fab_ends, now, c->u.fab.src, c->u.fab.dst,
                                     c->bytes, end, free_at, m->run_err);
    return fabric_time_reduce(m->fab, &m->fab_ends, c->kind == HC_LOSS_GATHER, ready, now,
                              c->u.fab.src, c->u.fab.dst, c->bytes, end, free_at, m->run_err);
}

/* The ideal storage's free commands: every memory and storage access (perf only). */
static bool ideal_free(const struct machine *m, const struct hc_cmd *c)
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
        return m->ideal;
    default:
        return false;
    }
}

/* Perform command c at now: *end, *free_at as the nodes define them. */
static int perform(struct machine *m, struct exec *x, const struct hc_cmd *c, uint64_t now,
                   uint64_t *end, uint64_t *free_at)
{
    const struct hc_prog *p = x->p;
    bool fab =
        c->kind == HC_FABRIC_BCAST || c->kind == HC_FABRIC_REDUCE || c->kind == HC_LOSS_GATHER;
    uint64_t ready[MACHINE_MAX_AN];

    *end = *free_at = now;
    if (ideal_free(m, c))
        return 0;
    for (uint32_t n = 0; fab && n < m->cfg.n_an; n++)
        ready[n] = ready_on(x, c, n, now);
    if (m->port.exec)
        return m->port.exec(m->port.user, p, c, fab ? ready : NULL, now, end, free_at, m->run_err);
    if (fab)
        return machine_fabric_exec(m, c, ready, now, end, free_at);
    if (c->node == HC_WN)
        return wnode_exec(m->wn, p, c, now, end, free_at, m->run_err);
    return anode_exec(m->an[c->node], p, c, now, end, free_at, m->run_err);
}

static void on_done(struct sim *sim, void *user);
static void on_release(struct sim *sim, void *user);
static void started(struct machine *m, struct exec *x, uint32_t id, uint64_t now, uint64_t end,
                    uint64_t free_at, bool placed);

static void record_busy(struct machine *m, const struct hc_cmd *c, uint64_t a, uint64_t b)
{
    m->res_busy_ps[c->res] += b - a;
    if (!m->busy_on)
        return;
    if (m->busy_max && m->n_busy >= m->busy_max) {
        m->busy_dropped++;
        return;
    }
    if (m->n_busy == m->cap_busy) {
        size_t cap = m->cap_busy ? 2 * m->cap_busy : 4096;
        struct machine_busy *q = realloc(m->busy, cap * sizeof(*q));
        if (!q) {
            m->busy_dropped++;
            return;
        }
        m->busy = q;
        m->cap_busy = cap;
    }
    m->busy[m->n_busy++] = (struct machine_busy){
        .res = c->res, .step = m->steps, .start_ps = a, .end_ps = b, .label = c->label};
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
static int check_port_rules(struct machine *m, const struct exec *x, const struct hc_cmd *c,
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
    return err_set(m->run_err, -EPROTO,
                   "schedule: AN %u: command %u '%s' would start at %.6f us while command %u "
                   "'%s' runs until %.6f us; the core's DMA port reads no pad while a GEMM runs "
                   "(rtl/core/README.md)",
                   c->node, c->id, c->label, (double)now / 1e6, o->id, o->label,
                   (double)x->end[other] / 1e6);
}

/* Start the next command of resource k if it can start now. */
static void try_start(struct machine *m, struct exec *x, uint32_t k)
{
    const struct hc_prog *p = x->p;
    uint64_t now = sim_now(m->sim), end = now, free_at = now;
    int rc;

    if (m->err || x->rbusy[k] || x->rnext[k] >= x->rq0[k + 1])
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

    rc = check_port_rules(m, x, c, now);
    if (!rc)
        rc = perform(m, x, c, now, &end, &free_at);
    if (rc == MACHINE_PORT_STARTED) {
        /* in flight until machine_port_done: the resource is busy, the command runs (for the
         * port rules) and its events keep the places they would take if scheduled now */
        x->rbusy[k] = 1;
        x->start[id] = x->free_t[id] = now;
        x->end[id] = UINT64_MAX;
        x->place[id] = sim_reserve(m->sim);
        (void)sim_reserve(m->sim);
        return;
    }
    if (rc) {
        m->err = rc;
        sim_stop(m->sim);
        return;
    }
    started(m, x, id, now, end, free_at, false);
}

/* Command id started at now ends at end and lets its resource go at free_at: record it and
 * schedule its events (placed: in the places reserved when a port started it). */
static void started(struct machine *m, struct exec *x, uint32_t id, uint64_t now, uint64_t end,
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
    record_busy(m, c, now, free_at);
    m->step_commands++;
    m->step_gemms += c->kind == HC_GEMM;
    if (placed) {
        if (free_at < end)
            rc = sim_schedule_reserved(m->sim, x->place[id], free_at, 0, "release", on_release,
                                       &x->evr[id], NULL, m->run_err);
        if (!rc)
            rc = sim_schedule_reserved(m->sim, x->place[id] + 1, end, 0, "cmd", on_done, &x->ev[id],
                                       NULL, m->run_err);
    } else {
        if (free_at < end)
            rc = sim_schedule_at(m->sim, free_at, 0, "release", on_release, &x->evr[id], NULL,
                                 m->run_err);
        if (!rc)
            rc = sim_schedule_at(m->sim, end, 0, "cmd", on_done, &x->ev[id], NULL, m->run_err);
    }
    if (rc) {
        err_prefix(m->run_err, rc, "event kernel");
        m->err = rc;
        sim_stop(m->sim);
    }
}

int machine_port_done(struct machine *m, uint32_t id, int rc, uint64_t end, uint64_t free_at,
                      const struct err *e)
{
    struct exec *x = m->cur;
    uint64_t now = m->sim ? sim_now(m->sim) : 0;

    if (!x || !m->run_err || id >= x->p->n_cmd || x->end[id] != UINT64_MAX)
        return -EINVAL; /* no step runs, or the port did not start this command */
    if (m->err)
        return m->err;
    if (!rc && (end < x->start[id] || end < now))
        rc =
            err_set(m->run_err, -EPROTO,
                    "port: command %u '%s' started at %llu ps ends at %llu ps, before %s (%llu "
                    "ps)",
                    id, x->p->cmd[id].label, (unsigned long long)x->start[id],
                    (unsigned long long)end, end < x->start[id] ? "its start" : "the machine's now",
                    (unsigned long long)(end < x->start[id] ? x->start[id] : now));
    else if (rc)
        err_set(m->run_err, rc, "%s", e ? e->msg : "the port's command failed");
    if (rc) {
        m->err = rc;
        sim_stop(m->sim);
        return rc;
    }
    started(m, x, id, x->start[id], end, free_at, true);
    return m->err;
}

/* The command lets its resource go: the resource's next command may start. */
static void release(struct machine *m, struct exec *x, uint32_t id)
{
    uint32_t k = x->p->cmd[id].res;
    x->rbusy[k] = 0;
    x->rlast[k] = id;
    x->rnext[k]++;
    try_start(m, x, k);
}

static void on_release(struct sim *sim, void *user)
{
    struct evref *e = user;
    (void)sim;
    release(e->m, e->x, e->id);
}

static void on_done(struct sim *sim, void *user)
{
    struct evref *e = user;
    struct machine *m = e->m;
    struct exec *x = e->x;

    (void)sim;
    x->done++;
    for (uint32_t i = x->succ0[e->id]; i < x->succ0[e->id + 1]; i++) {
        uint32_t s = x->succ[i];
        if (--x->pending[s] == 0)
            try_start(m, x, x->p->cmd[s].res);
    }
    if (x->free_t[e->id] == x->end[e->id])
        release(m, x, e->id);
}

/* Run program x from now until every command is done. */
int machine_exec_run(struct machine *m, struct exec *x, struct err *e)
{
    const struct hc_prog *p = x->p;
    struct err re; /* the message of the run's first failure */

    err_clear(&re);
    m->run_err = &re;
    m->err = 0;
    m->cur = x;
    x->done = 0;
    for (uint32_t i = 0; i < p->n_cmd; i++)
        x->pending[i] = p->cmd[i].ndep;
    for (uint32_t k = 0; k < p->n_res; k++) {
        x->rnext[k] = x->rq0[k];
        x->rbusy[k] = 0;
        x->rlast[k] = NONE;
    }
    for (uint32_t k = 0; k < p->n_res; k++)
        try_start(m, x, k);
    if (!m->err) {
        struct err ke;
        int rc = m->port.run ? m->port.run(m->port.user, m->sim, &ke) : sim_run(m->sim, &ke);
        if (rc && !m->err) {
            m->err = rc;
            err_set(&re, rc, "event kernel: %s", ke.msg);
        }
    }
    if (!m->err && x->done != p->n_cmd) {
        m->err = -EDEADLK;
        err_set(&re, -EDEADLK, "scheduler: %u of %u commands done, nothing left to run", x->done,
                p->n_cmd);
    }
    m->run_err = NULL;
    if (m->err)
        return err_set(e, m->err, "%s", re.msg);
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
static bool layer_rec(struct machine *m, const struct exec *x, uint32_t l, int q,
                      const uint32_t *ids, size_t n, struct machine_layer_rec *rec)
{
    const struct hc_prog *p = x->p;
    uint32_t last = NONE;

    if (!n)
        return false;
    memset(rec, 0, sizeof(*rec));
    rec->step = m->steps;
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
                m->iv[k++] = (struct iv){x->start[i], x->end[i]};
        }
        rec->phase_ps[ph] = union_len(m->iv, k);
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

static int push_rec(struct machine *m, const struct machine_layer_rec *rec)
{
    if (m->n_rec == m->cap_rec) {
        size_t cap = m->cap_rec ? 2 * m->cap_rec : 256;
        struct machine_layer_rec *q = realloc(m->rec, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        m->rec = q;
        m->cap_rec = cap;
    }
    m->rec[m->n_rec++] = *rec;
    return 0;
}

/* The step's rows: fwd layers 1..L, then bwd L..1. */
int machine_make_records(struct machine *m, struct exec *x)
{
    const struct hc_prog *p = x->p;
    uint32_t L = p->n_layers;

    if (m->cap_iv < p->n_cmd) {
        struct iv *v = realloc(m->iv, p->n_cmd * sizeof(*v));
        if (!v)
            return -ENOMEM;
        m->iv = v;
        m->cap_iv = p->n_cmd;
    }
    for (int q = 0; q < 2; q++) {
        for (uint32_t j = 0; j < L; j++) {
            uint32_t l = q == MACHINE_FWD ? j : L - 1 - j;
            size_t b = 2 * (size_t)l + (size_t)q;
            struct machine_layer_rec rec;
            if (layer_rec(m, x, l, q, x->lx + x->lx0[b], x->lx0[b + 1] - x->lx0[b], &rec) &&
                push_rec(m, &rec))
                return -ENOMEM;
        }
    }
    return 0;
}
