/*
 * wnode.c - the Weight Node; see wnode.h.
 */
#include "models/node/wnode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TB_ALIGN 256u /* the compiler's alignment of records in the write-back slot */

enum { R_W = 0, R_M, R_O, R_N };

struct wnode {
    struct wnode_cfg cfg;
    struct dram *tb;
    int rid_opt;       /* the optimizer unit's requester of tb */
    struct nstore sto; /* its storage: the FMS, or an SSD array (perf) */
    int s[R_N];
    struct dnn_params *p;      /* NULL in perf */
    uint32_t n_rec[R_N];       /* records of each stream */
    struct slog_ext *rec[R_N]; /* [n_rec] the live version of each record */
    bool *ok[R_N];             /* [n_rec] it has one */
    uint64_t *size[R_N];       /* perf: [n_rec] bytes to preload (0: none) */
    uint64_t steps;            /* perf: optimizer steps completed */
    unsigned char *buf;
    size_t cap;
    float *dw;
    size_t dw_cap;
    struct wnode_stats st;
};

static uint64_t ru(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

static int grow(unsigned char **b, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    unsigned char *p = realloc(*b, n);
    if (!p)
        return -ENOMEM;
    *b = p;
    *cap = n;
    return 0;
}

static void params_copy(struct dnn_params *d, const struct dnn_params *s)
{
    for (uint32_t l = 0; l < s->model.n_layers; l++) {
        size_t nw = (size_t)s->model.layer[l].in * s->model.layer[l].out;
        size_t nb = s->model.layer[l].out;
        const struct dnn_params_layer *a = &s->layer[l];
        struct dnn_params_layer *b = &d->layer[l];
        memcpy(b->w, a->w, nw * 4);
        memcpy(b->b, a->b, nb * 4);
        memcpy(b->wq, a->wq, nw * 2);
        memcpy(b->w_v, a->w_v, nw * 4);
        memcpy(b->b_v, a->b_v, nb * 4);
        if (a->w_m && b->w_m) {
            memcpy(b->w_m, a->w_m, nw * 4);
            memcpy(b->b_m, a->b_m, nb * 4);
        }
    }
    d->step = s->step;
    d->updated = s->updated;
}

static enum hc_stream stream_of(int k)
{
    return (enum hc_stream)(HC_S_W + k);
}

/* The record tables, sized from the program; perf: the sizes to preload, copied. */
static int tables(struct wnode *w, const struct wnode_cfg *cfg, struct err *e)
{
    for (int k = 0; k < R_N; k++) {
        size_t n = cfg->n_rec[stream_of(k)] ? cfg->n_rec[stream_of(k)] : 1;
        w->n_rec[k] = cfg->n_rec[stream_of(k)];
        w->rec[k] = calloc(n, sizeof(*w->rec[k]));
        w->ok[k] = calloc(n, sizeof(*w->ok[k]));
        if (cfg->perf)
            w->size[k] = calloc(n, sizeof(*w->size[k]));
        if (!w->rec[k] || !w->ok[k] || (cfg->perf && !w->size[k]))
            return err_set(e, -ENOMEM, "wn: out of memory for %u records of stream %s", w->n_rec[k],
                           HC_WN_STREAMS[k]);
        if (cfg->perf && cfg->rec_bytes[stream_of(k)])
            memcpy(w->size[k], cfg->rec_bytes[stream_of(k)], w->n_rec[k] * sizeof(uint64_t));
    }
    return 0;
}

/* tlm: the WN's own copy of p, its layers within the record tables. */
static int own_params(struct wnode *w, const struct dnn_params *p, struct err *e)
{
    for (int k = 0; k < R_N; k++)
        if (w->n_rec[k] < p->model.n_layers)
            return err_set(e, -EINVAL, "wn: %u records of stream %s for a model of %u layers",
                           w->n_rec[k], HC_WN_STREAMS[k], p->model.n_layers);
    int rc = dnn_params_create(
        &(struct dnn_params_cfg){.model = &p->model, .opt = &p->opt, .seed = 0}, &w->p, e);
    if (rc)
        return err_prefix(e, rc, "wn");
    params_copy(w->p, p);
    return 0;
}

int wnode_create(const struct wnode_cfg *cfg, const struct dnn_params *p, struct wnode **out,
                 struct err *e)
{
    struct wnode *w = calloc(1, sizeof(*w));
    struct dram_cfg tb = cfg->tb;
    struct ftl_layout lay;
    int rc;

    *out = NULL;
    if (!w)
        return err_set(e, -ENOMEM, "wn: out of memory");
    w->cfg = *cfg;
    for (int k = 0; k < HC_N_STREAMS; k++)
        w->cfg.rec_bytes[k] = NULL; /* the caller's; the copies are in w->size */
    if ((rc = tables(w, cfg, e)) || (!cfg->perf && (rc = own_params(w, p, e))))
        goto out_free;
    tb.store_payload = tb.store_payload && !cfg->perf;
    rc = dram_create(&tb, &w->tb, e);
    if (rc)
        goto out_free;
    ftl_layout_wn(&lay);
    if (cfg->ssd)
        rc = nstore_init_ssd(&w->sto, "wn", cfg->ssd, cfg->ssd_grain, &lay, HC_WN_STREAMS, R_N, e);
    else
        rc = nstore_init_fms(&w->sto, &cfg->flash, &lay, HC_WN_STREAMS, R_N, w->tb, e);
    if (!rc && !cfg->ssd && cfg->write_pipe &&
        (rc = nstore_set_write_pipe(&w->sto, cfg->period_ps, e)))
        nstore_fini(&w->sto);
    if (rc) {
        err_prefix(e, rc, cfg->ssd ? "wn storage" : "wn flash");
        dram_destroy(w->tb);
        goto out_free;
    }
    w->rid_opt = dram_requester(w->tb, "optimizer");
    for (int i = 0; i < R_N; i++) {
        w->s[i] = nstore_stream(&w->sto, HC_WN_STREAMS[i]);
        if (cfg->perf)
            nstore_set_nodata(&w->sto, (uint32_t)w->s[i], true);
    }
    *out = w;
    return 0;

out_free:
    dnn_params_destroy(w->p);
    for (int k = 0; k < R_N; k++) {
        free(w->rec[k]);
        free(w->ok[k]);
        free(w->size[k]);
    }
    free(w);
    return rc;
}

void wnode_destroy(struct wnode *w)
{
    if (!w)
        return;
    for (int k = 0; k < R_N; k++) { /* bytes of live records (record store) */
        for (uint32_t l = 0; l < w->n_rec[k]; l++)
            if (w->ok[k][l])
                free(w->rec[k][l].data);
        free(w->rec[k]);
        free(w->ok[k]);
        free(w->size[k]);
    }
    nstore_fini(&w->sto);
    dram_destroy(w->tb);
    dnn_params_destroy(w->p);
    free(w->buf);
    free(w->dw);
    free(w);
}

/* Serialise record kind k of layer l into buf; returns its bytes. */
static uint64_t record(const struct dnn_params *p, int k, uint32_t l, unsigned char *buf)
{
    const struct dnn_params_layer *y = &p->layer[l];
    size_t nw = (size_t)p->model.layer[l].in * p->model.layer[l].out;
    size_t nb = p->model.layer[l].out;
    unsigned char *o = buf;

    switch (k) {
    case R_W:
        memcpy(o, y->wq, nw * 2);
        memcpy(o + nw * 2, y->b, nb * 4);
        return nw * 2 + nb * 4;
    case R_M:
        memcpy(o, y->w, nw * 4);
        memcpy(o + nw * 4, y->b, nb * 4);
        return (nw + nb) * 4;
    default:
        if (p->opt.kind == DNN_OPT_ADAM) {
            memcpy(o, y->w_m, nw * 4);
            memcpy(o + nw * 4, y->w_v, nw * 4);
            memcpy(o + nw * 8, y->b_m, nb * 4);
            memcpy(o + nw * 8 + nb * 4, y->b_v, nb * 4);
            return (nw + nb) * 8;
        }
        memcpy(o, y->w_v, nw * 4);
        memcpy(o + nw * 4, y->b_v, nb * 4);
        return (nw + nb) * 4;
    }
}

static uint64_t record_bytes(const struct dnn_params *p, int k, uint32_t l)
{
    uint64_t nw = (uint64_t)p->model.layer[l].in * p->model.layer[l].out,
             nb = p->model.layer[l].out;
    if (k == R_W)
        return nw * 2 + nb * 4;
    if (k == R_M)
        return (nw + nb) * 4;
    return (nw + nb) * 4 * (p->opt.kind == DNN_OPT_ADAM ? 2 : 1);
}

/* The new version of record k of layer l is at x: free the old one. */
static int replace(struct wnode *w, int k, uint32_t l, const struct slog_ext *x, uint64_t now,
                   struct err *e)
{
    int rc = 0;
    if (w->ok[k][l]) {
        rc = nstore_free(&w->sto, (uint32_t)w->s[k], now, &w->rec[k][l], e);
        if (rc)
            err_prefix(e, rc, "wn %s stream", HC_WN_STREAMS[k]);
    }
    w->rec[k][l] = *x;
    w->ok[k][l] = true;
    return rc;
}

/* Perf: write record l of stream k at its size (once). */
static int preload_one(struct wnode *w, int k, uint32_t l, uint64_t now, uint64_t *done,
                       struct err *e)
{
    uint64_t t;
    struct slog_ext x;
    if (l >= w->n_rec[k] || !w->size[k][l] || w->ok[k][l])
        return 0;
    int rc = nstore_write_buf(&w->sto, (uint32_t)w->s[k], now, NULL, w->size[k][l], &x, &t, e);
    if (rc)
        return err_prefix(e, rc, "wn %s stream", HC_WN_STREAMS[k]);
    if ((rc = replace(w, k, l, &x, now, e)))
        return rc;
    if (t > *done)
        *done = t;
    return 0;
}

static int kind_of(uint8_t stream);

/*
 * Perf: every record with a size. A perf program's records go in the order its iteration writes
 * them back (the backward pass's), so each stream's log is first in, first out: the oldest
 * version is always the next one rewritten, and a stream needs room for the model and one
 * logical block, not two copies. A fully connected program's go record by record, W, M, O each
 * (the order of the tlm preload, so the logs are laid out as in tlm).
 */
static int preload_sizes(struct wnode *w, const struct hc_prog *p, uint64_t now, uint64_t *done,
                         struct err *e)
{
    uint32_t n = 0;
    int rc = 0;
    for (uint32_t i = 0; p && p->perf && i < p->n_cmd && !rc; i++) {
        const struct hc_cmd *c = &p->cmd[i];
        if (c->node == HC_WN && c->kind == HC_FLASH_WR && kind_of(c->op) >= 0)
            rc = preload_one(w, kind_of(c->op), c->u.fl.rec, now, done, e);
    }
    for (int k = 0; k < R_N; k++)
        if (w->n_rec[k] > n)
            n = w->n_rec[k];
    for (uint32_t l = 0; l < n && !rc; l++)
        for (int k = 0; k < R_N && !rc; k++)
            rc = preload_one(w, k, l, now, done, e);
    return rc;
}

int wnode_preload(struct wnode *w, const struct hc_prog *p, uint64_t now, uint64_t *done,
                  struct err *e)
{
    *done = now;
    if (w->cfg.perf)
        return preload_sizes(w, p, now, done, e);
    for (uint32_t l = 0; l < w->p->model.n_layers; l++) {
        for (int k = 0; k < R_N; k++) {
            uint64_t n = record_bytes(w->p, k, l), t;
            struct slog_ext x;
            if (grow(&w->buf, &w->cap, n))
                return err_set(e, -ENOMEM, "wn: out of memory for a record of %" PRIu64 " bytes",
                               n);
            record(w->p, k, l, w->buf);
            int rc = nstore_write_buf(&w->sto, (uint32_t)w->s[k], now, w->buf, n, &x, &t, e);
            if (rc) {
                err_prefix(e, rc, "wn %s stream", HC_WN_STREAMS[k]);
                return rc;
            }
            if ((rc = replace(w, k, l, &x, now, e)))
                return rc;
            if (t > *done)
                *done = t;
        }
    }
    return 0;
}

static int kind_of(uint8_t stream)
{
    return stream == HC_S_W ? R_W : stream == HC_S_M ? R_M : stream == HC_S_O ? R_O : -1;
}

/* The update's numerics: dnn_params on the reduced gradients, the new records laid out in the
 * write-back slot (tlm). */
static int opt_run(struct wnode *w, const struct hc_cmd *c, struct err *e)
{
    uint32_t l = c->layer;
    uint64_t nw = (uint64_t)w->p->model.layer[l].in * w->p->model.layer[l].out;
    uint64_t nb = w->p->model.layer[l].out, params = nw + nb;
    int rc;

    if (grow((unsigned char **)&w->dw, &w->dw_cap, params * 4))
        return err_set(e, -ENOMEM,
                       "wn optimizer, layer %u: out of memory for %" PRIu64 " gradients", l + 1,
                       params);
    if (dram_read(w->tb, c->u.opt.grad, w->dw, params * 4)) {
        return err_set(e, -ERANGE, "wn: gradient slot 0x%" PRIx64 " outside the tensor buffer",
                       c->u.opt.grad);
    }
    rc = dnn_params_update_layer(w->p, l, w->dw, w->dw + nw, e);
    if (rc) {
        err_prefix(e, rc, "wn optimizer, layer %u", l + 1);
        return rc;
    }
    /* the new records, laid out as the compiler placed them in the write-back slot */
    uint64_t off = 0;
    for (int k = 0; k < R_N; k++) {
        uint64_t n = record_bytes(w->p, k, l);
        if (grow(&w->buf, &w->cap, n))
            return err_set(e, -ENOMEM, "wn: out of memory for a record of %" PRIu64 " bytes", n);
        record(w->p, k, l, w->buf);
        if (dram_write(w->tb, c->u.opt.wout + off, w->buf, n)) {
            return err_set(e, -ERANGE, "wn: write-back slot outside the tensor buffer");
        }
        off += ru(n, TB_ALIGN);
    }
    return 0;
}

/* Parameters command c updates: its own count (perf programs), else its layer's. */
static uint64_t opt_params(const struct wnode *w, const struct hc_prog *p, const struct hc_cmd *c)
{
    const struct dnn_model *m = w->p ? &w->p->model : &p->cfg.model;
    if (c->u.opt.params)
        return c->u.opt.params;
    if (c->layer >= m->n_layers)
        return 0;
    return ((uint64_t)m->layer[c->layer].in + 1) * m->layer[c->layer].out;
}

/*
 * The optimizer unit's operand streams through the WN's tensor buffer, as the WN stores them.
 * An update of P = nw + nb parameters (nw matrix weights, nb biases), with s fp32 state words
 * per parameter (the machine's opt_state_words: SGD keeps its velocity v, momentum 0 included,
 * since the O record always holds it; Adam keeps m and v), reads
 *   the reduced gradients  4 P       fp32 dW then db, at u.opt.grad
 *   the masters (M)        4 P       fp32, at u.opt.state
 *   the state (O)          4 s P     fp32, at the next TB_ALIGN boundary after M
 * and writes the new records into the write-back slot at u.opt.wout, each TB_ALIGN-aligned:
 *   W  2 nw + 4 nb  bf16 weights and fp32 biases (a perf program's W records are all bf16: 2 P)
 *   M  4 P,  O  4 s P.
 * Per parameter: SGD reads 4 + 4 + 4 = 12 B and writes 2 + 4 + 4 = 10 B, 22 B; Adam reads
 * 4 + 4 + 8 = 16 B and writes 2 + 4 + 8 = 14 B, 30 B (a bias 2 B more, its W entry fp32). A
 * perf program's command carries only P (u.opt.params) and no addresses (its tensor buffer is
 * not allocated: 0, as its flash and fabric claims use), so its streams are the same bytes
 * from address 0.
 */
struct opt_stream {
    uint64_t addr, bytes;
};

static void opt_streams(const struct wnode *w, const struct hc_prog *p, const struct hc_cmd *c,
                        uint64_t params, bool adam, struct opt_stream rd[3],
                        struct opt_stream wr[3])
{
    const struct dnn_model *m = w->p ? &w->p->model : &p->cfg.model;
    uint64_t s = adam ? 2 : 1, nb = 0;
    if (!c->u.opt.params && c->layer < m->n_layers)
        nb = m->layer[c->layer].out; /* the layer's biases: fp32 in its W record */
    uint64_t wb = 2 * (params - nb) + 4 * nb, mb = 4 * params, ob = 4 * s * params;

    rd[0] = (struct opt_stream){c->u.opt.grad, 4 * params};
    rd[1] = (struct opt_stream){c->u.opt.state, mb};
    rd[2] = (struct opt_stream){c->u.opt.state + ru(mb, TB_ALIGN), ob};
    wr[0] = (struct opt_stream){c->u.opt.wout, wb};
    wr[1] = (struct opt_stream){c->u.opt.wout + ru(wb, TB_ALIGN), mb};
    wr[2] = (struct opt_stream){c->u.opt.wout + ru(wb, TB_ALIGN) + ru(mb, TB_ALIGN), ob};
}

/*
 * Claim the streams, every one asked for at the update's start: the reads in the order above,
 * then the writes. Each stream is one access (dram_access splits it over the channels and
 * serves each channel's pieces back to back), and on each channel the writes follow the reads,
 * so on an idle buffer the last byte moves after (read + write bytes) / bandwidth, plus the
 * buffer's latency: the unit interleaves reads and writes block by block, the same bus time
 * (ours: the unit's buffering is not modelled, only its bus time and its place in the queue).
 * Returns when the last write is acknowledged (at once on the ideal storage's free buffer).
 */
static uint64_t opt_claim(struct wnode *w, const struct hc_prog *p, const struct hc_cmd *c,
                          uint64_t params, bool adam, uint64_t now)
{
    struct opt_stream rd[3], wr[3];
    uint64_t end = now;

    opt_streams(w, p, c, params, adam, rd, wr);
    for (int i = 0; i < 3; i++)
        end = res_later(end, dram_access(w->tb, w->rid_opt, now, rd[i].addr, rd[i].bytes, false));
    for (int i = 0; i < 3; i++)
        end = res_later(end, dram_access(w->tb, w->rid_opt, now, wr[i].addr, wr[i].bytes, true));
    return end;
}

/* Duration: the later of the unit's compute (latency + ceil(params x cost / lanes) cycles, or
 * the command's own cycles) and its streams' last claim. */
static int exec_opt(struct wnode *w, const struct hc_prog *p, const struct hc_cmd *c, uint64_t now,
                    uint64_t *end, struct err *e)
{
    uint64_t params = opt_params(w, p, c), cycles = c->cycles;
    bool adam = w->p ? w->p->opt.kind == DNN_OPT_ADAM : w->cfg.adam;
    int rc;

    if (!w->cfg.perf && (rc = opt_run(w, c, e)))
        return rc;
    if (!cycles) {
        uint64_t cost = adam ? w->cfg.cost_adam : w->cfg.cost_sgd;
        uint64_t lanes = w->cfg.lanes ? w->cfg.lanes : 1;
        cycles = w->cfg.latency + (params * cost + lanes - 1) / lanes;
    }
    w->st.opt_compute_ps += cycles * w->cfg.period_ps;
    *end = res_later(now + cycles * w->cfg.period_ps, opt_claim(w, p, c, params, adam, now));
    w->st.updates += c->tile == 0; /* a record's first piece */
    w->st.params_updated += params;
    w->st.busy_ps[2] += *end - now;
    return 0;
}

int wnode_exec(struct wnode *w, const struct hc_prog *p, const struct hc_cmd *c, uint64_t now,
               uint64_t *end, uint64_t *free_at, struct err *e)
{
    int k = kind_of(c->op), rc;
    uint32_t l = c->u.fl.rec;

    *end = now;
    *free_at = now;
    if (c->kind == HC_OPT_UPDATE) {
        rc = exec_opt(w, p, c, now, end, e);
        *free_at = *end;
        return rc;
    }
    if ((c->kind != HC_FLASH_RD && c->kind != HC_FLASH_WR) || k < 0) {
        return err_set(e, -EINVAL, "wn: command %u '%s' (%s) is not a Weight Node command", c->id,
                       c->label, hc_kind_name((enum hc_kind)c->kind));
    }
    if (l >= w->n_rec[k])
        return err_set(e, -EINVAL,
                       "wn: command %u '%s': record %u of stream %s; the program has %u", c->id,
                       c->label, l, HC_WN_STREAMS[k], w->n_rec[k]);
    if (c->kind == HC_FLASH_RD) {
        if (!w->ok[k][l]) {
            return err_set(e, -ENODATA, "wn: record %s of layer %u is not in flash",
                           HC_WN_STREAMS[k], l + 1);
        }
        rc = nstore_read_tb(&w->sto, (uint32_t)w->s[k], now, &w->rec[k][l], c->u.fl.tb, end,
                            free_at, e);
        if (rc) {
            err_prefix(e, rc, "wn");
            return rc;
        }
        w->st.flash_rd_bytes += w->rec[k][l].bytes;
        w->st.busy_ps[0] += *free_at - now;
        return 0;
    }
    struct slog_ext x;
    rc =
        nstore_write_tb(&w->sto, (uint32_t)w->s[k], now, c->u.fl.tb, c->bytes, &x, end, free_at, e);
    if (rc) {
        err_prefix(e, rc, "wn");
        return rc;
    }
    w->st.flash_wr_bytes += c->bytes;
    w->st.busy_ps[1] += *free_at - now;
    return replace(w, k, l, &x, now, e);
}

int wnode_set_write_mode(struct wnode *w, enum nfw_time_mode m, const struct nfw_be_ops *rtl,
                         uint64_t seed, struct err *e)
{
    int rc = nstore_set_write_mode(&w->sto, m, rtl, seed, e);
    return rc ? err_prefix(e, rc, "wn") : 0;
}

int wnode_end_step(struct wnode *w, struct err *e)
{
    if (!w->p) {
        w->steps++;
        return 0;
    }
    int rc = dnn_params_end_step(w->p, e);
    if (rc)
        err_prefix(e, rc, "wn optimizer");
    return rc;
}

uint64_t wnode_steps(const struct wnode *w)
{
    return w->p ? w->p->step : w->steps;
}

struct dnn_params *wnode_params(struct wnode *w)
{
    return w->p;
}

struct dram *wnode_tb(struct wnode *w)
{
    return w->tb;
}

struct nflash *wnode_flash(struct wnode *w)
{
    return nstore_flash(&w->sto);
}

struct nstore *wnode_store(struct wnode *w)
{
    return &w->sto;
}

const struct wnode_stats *wnode_get_stats(const struct wnode *w)
{
    return &w->st;
}
