/*
 * compile_check.c - hc_validate: whether a machine can run a model, check by check; see
 * compile.h.
 */
#include "models/host/compile_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- validation */

/* One row of the validation table: what is checked, what it needs, what the machine has, and
 * if it fails, why and the error it gives (-EINVAL: a bad configuration, -ENOSPC: too small). */
struct vrow {
    const char *check, *need, *cap, *why;
    bool ok;
    int code;
};

struct vt {
    FILE *out;
    struct err *e;
    size_t elen;
    int rc;
    unsigned fails;
};

static void vt_print_head(FILE *out)
{
    fprintf(out, "%-46s %-24s %-30s %s\n", "check", "need", "capacity", "result");
}

static void vt_print_row(FILE *out, const struct vrow *r)
{
    fprintf(out, "%-46s %-24s %-30s %s\n", r->check, r->need, r->cap, r->ok ? "OK" : "FAIL");
}

/* The last line: after a configuration error the checks stop, and say how many failed. */
static void vt_print_verdict(FILE *out, unsigned fails, bool stopped)
{
    if (stopped)
        fprintf(out, "\n%u check(s) failed\n", fails);
    else
        fprintf(out, "\n%s\n", fails ? "the model does NOT fit this machine" : "the model fits");
}

/* A checked row: printed, and a failure folded into the result (-EINVAL wins over -ENOSPC;
 * the reasons are joined in the error message). */
static void vt_add(struct vt *v, const struct vrow *r)
{
    if (v->out)
        vt_print_row(v->out, r);
    if (r->ok)
        return;
    if (r->code == -EINVAL || !v->rc)
        v->rc = r->code;
    if (v->e) {
        size_t l = strlen(v->e->msg);
        snprintf(v->e->msg + l, sizeof(v->e->msg) - l, "%s%s: %s", v->fails ? "; " : "", r->check,
                 r->why);
    }
    v->fails++;
}

static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
    if (b >= (1ull << 30))
        snprintf(buf, len, "%.2f GiB", (double)b / (1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, len, "%.2f MiB", (double)b / (1ull << 20));
    else if (b >= 1024)
        snprintf(buf, len, "%.1f KiB", (double)b / 1024);
    else
        snprintf(buf, len, "%" PRIu64 " B", b);
}

static void vt_bytes(struct vt *v, const char *check, uint64_t need, uint64_t cap, const char *what)
{
    char n[32], k[32], why[256];
    fmt_bytes(n, sizeof(n), need);
    fmt_bytes(k, sizeof(k), cap);
    snprintf(why, sizeof(why), "%s needs %s, has %s", what, n, k);
    vt_add(v, &(struct vrow){check, n, k, why, need <= cap, -ENOSPC});
}

/* The batch splits into equal shards, one per Activation Node. */
static void validate_batch_split(struct vt *v, const struct hc_cfg *cfg)
{
    char check[96], cap[64], why[512];

    snprintf(check, sizeof(check), "batch B=%u divisible by N=%u", cfg->batch, cfg->n_an);
    snprintf(cap, sizeof(cap), "B %% N = %u", cfg->n_an ? cfg->batch % cfg->n_an : 0);
    snprintf(why, sizeof(why),
             "batch %u is not divisible by %u Activation Nodes; accepted a multiple of N",
             cfg->batch, cfg->n_an);
    vt_add(v, &(struct vrow){check, "B % N == 0", cap, why,
                             cfg->n_an && cfg->batch && cfg->batch % cfg->n_an == 0, -EINVAL});
}

/* The model, the core and the node count, with the batch left to its own row. Returns what
 * the compiler says of the whole configuration: the other checks need it to be sane. */
static int validate_counts(struct vt *v, const struct hc_cfg *cfg)
{
    struct hc_cfg c2 = *cfg;
    struct err ce;
    int rc;

    if (c2.n_an)
        c2.batch = c2.n_an;
    rc = hc_check_cfg(&c2, &ce);
    vt_add(v, &(struct vrow){"model, core and node counts", "sane", rc ? "no" : "yes",
                             rc ? ce.msg : "", rc == 0, -EINVAL});
    if (!rc)
        rc = hc_check_cfg(cfg, &ce);
    return rc;
}

/* A GEMM of a layer, as the SRAM check sees it. */
struct gemm_shape {
    const char *name;
    uint32_t m, n, k;
    bool on;
};

/* The GEMM tiles into the scratchpads: planning it, as compiling does, decides. */
static void validate_gemm(struct vt *v, const struct cc *c, uint32_t layer,
                          const struct gemm_shape *g)
{
    char check[96], need[64], cap[64];
    struct err why = {""};
    struct plan pl;
    int rc = hc_plan_gemm(c, g->m, g->n, g->k, &pl, &why);
    uint64_t kp = g->k < c->w ? c->w : hc_ru64(g->k, c->w);

    snprintf(check, sizeof(check), "SRAM: layer %u %s GEMM %ux%ux%u", layer + 1, g->name, g->m,
             g->n, g->k);
    snprintf(need, sizeof(need), "K-panel %" PRIu64 " el", kp);
    snprintf(cap, sizeof(cap), "half-pad %u el", c->a_half < c->b_half ? c->a_half : c->b_half);
    if (!rc)
        snprintf(cap + strlen(cap), sizeof(cap) - strlen(cap), " (%u tiles)", pl.tm * pl.tn);
    vt_add(v, &(struct vrow){check, need, cap, why.msg, rc == 0, -ENOSPC});
}

/* SRAM: every GEMM of every layer must tile. */
static void validate_sram(struct vt *v, const struct hc_cfg *cfg)
{
    struct cc c;
    uint32_t r = cfg->batch / cfg->n_an;

    memset(&c, 0, sizeof(c));
    c.cfg = cfg;
    c.w = core_twin_w(&cfg->core);
    core_twin_map(&cfg->core, &c.map);
    c.a_half = (uint32_t)(c.map.a_elems / 2 / c.w * c.w);
    c.b_half = (uint32_t)(c.map.b_elems / 2 / c.w * c.w);
    c.c_half = (uint32_t)(c.map.c_elems / 2 / c.w * c.w);
    for (uint32_t l = 0; l < cfg->model.n_layers; l++) {
        const struct dnn_layer *ly = &cfg->model.layer[l];
        struct gemm_shape g[3] = {{"fwd", r, ly->out, ly->in, true},
                                  {"dW", ly->in, ly->out, r, !cfg->eval},
                                  {"dX", r, ly->in, ly->out, !cfg->eval && l > 0}};
        for (int i = 0; i < 3; i++)
            if (g[i].on)
                validate_gemm(v, &c, l, &g[i]);
    }
}

/* Tensor buffers: what the compiler allocates on an AN and on the WN. */
static void validate_tensor_buffers(struct vt *v, const struct hc_cfg *cfg)
{
    struct hc_prog *p = NULL;
    struct err ce;

    hc_compile(cfg, &p, &ce);
    if (!p)
        return;
    vt_bytes(v, "AN tensor buffer (2 weight slots + acts)", p->an_tb_used, cfg->tb_bytes,
             "each AN's tensor buffer");
    vt_bytes(v, "WN tensor buffer (2 weight slots + state)", p->wn_tb_used, cfg->tb_bytes,
             "the WN's tensor buffer");
    hc_prog_free(p);
}

/* What a flash stream must hold. */
struct stream_need {
    const char *name;
    enum hc_stream s;
    uint64_t need; /* bytes */
};

/* The bytes of each flash stream, in whole pages: an epoch's inputs, a step's activations,
 * two versions of the weights, the masters and the optimizer state. */
static void stream_needs(const struct hc_cfg *cfg, struct stream_need f[5])
{
    const struct dnn_model *m = &cfg->model;
    uint32_t r = cfg->batch / cfg->n_an;
    uint64_t ap = cfg->an_page ? cfg->an_page : 4096, wp = cfg->wn_page ? cfg->wn_page : 4096;
    uint64_t shards = cfg->samples ? (cfg->samples / cfg->batch) : 1;
    uint64_t shard = hc_ru64((uint64_t)r * m->layer[0].in + r, ap);
    uint64_t act = 0, wrec = 0, mrec = 0, orec = 0;

    if (!shards)
        shards = 1;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        uint64_t params = dnn_model_layer_params(m, l);
        act += hc_ru64((uint64_t)r * m->layer[l].in * 2, ap);
        wrec += hc_ru64(dnn_model_layer_stream_bytes(m, l), wp);
        mrec += hc_ru64(params * 4, wp);
        orec += hc_ru64(params * 4 * cfg->opt_state_words, wp);
    }
    if (cfg->act_fresh_lb && cfg->stream_lb[HC_S_V])
        act = hc_ru64(act, cfg->stream_lb[HC_S_V]);
    f[0] =
        (struct stream_need){"AN NV stream (training inputs, per epoch)", HC_S_NV, shards * shard};
    f[1] = (struct stream_need){"AN V stream (activations of a step)", HC_S_V, act};
    f[2] = (struct stream_need){"WN W stream (bf16 weights, 2 versions)", HC_S_W, 2 * wrec};
    f[3] = (struct stream_need){"WN M stream (fp32 masters, 2 versions)", HC_S_M, 2 * mrec};
    f[4] = (struct stream_need){"WN O stream (optimizer state, 2 versions)", HC_S_O, 2 * orec};
}

/* A stream holds its data in whole logical blocks, and one more: the log must open a free
 * one. */
static void validate_stream(struct vt *v, const struct hc_cfg *cfg, const struct stream_need *f)
{
    uint64_t lb = cfg->stream_lb[f->s], cap_b = cfg->stream_cap[f->s];
    char n[32], k[32], need[64], cap[64], why[512];

    if (!lb) {
        vt_add(v, &(struct vrow){f->name, "-", "no such stream",
                                 "the flash layout does not fit the flash geometry (683 blocks "
                                 "per plane are laid out; see models/flash/ftl_layout.h)",
                                 false, -EINVAL});
        return;
    }
    uint64_t need_lb = (f->need + lb - 1) / lb + 1;
    fmt_bytes(n, sizeof(n), need_lb * lb);
    fmt_bytes(k, sizeof(k), cap_b);
    snprintf(need, sizeof(need), "%" PRIu64 " LB (%s)", need_lb, n);
    snprintf(cap, sizeof(cap), "%" PRIu64 " LB (%s)", cap_b / lb, k);
    snprintf(why, sizeof(why),
             "needs %" PRIu64 " logical blocks of %" PRIu64
             " bytes (the data and one free block), has %" PRIu64,
             need_lb, lb, cap_b / lb);
    vt_add(v, &(struct vrow){f->name, need, cap, why, need_lb * lb <= cap_b, -ENOSPC});
}

/* Flash streams: a training run writes all five; an evaluation reads what is there. */
static void validate_flash_streams(struct vt *v, const struct hc_cfg *cfg)
{
    struct stream_need f[5];

    if (cfg->eval)
        return;
    stream_needs(cfg, f);
    for (int i = 0; i < 5; i++)
        validate_stream(v, cfg, &f[i]);
}

int hc_validate(const struct hc_cfg *cfg, FILE *out, struct err *e)
{
    struct vt v = {.out = out, .e = e};
    bool stopped;

    if (e)
        e->msg[0] = 0;
    if (out)
        vt_print_head(out);
    validate_batch_split(&v, cfg);
    stopped = validate_counts(&v, cfg) != 0;
    if (!stopped) {
        validate_sram(&v, cfg);
        validate_tensor_buffers(&v, cfg);
        validate_flash_streams(&v, cfg);
    }
    if (out)
        vt_print_verdict(out, v.fails, stopped);
    return v.rc;
}
