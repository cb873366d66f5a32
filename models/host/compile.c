/*
 * compile.c - the host compiler, its core; see compile.h for the contract.
 *
 * Structure: a scoreboard of buffers (each command names what it reads and writes, the
 * dependencies follow), the tensor-buffer allocator, the checks of the configuration, the sizes
 * of the records and the allocation of every tensor, hc_compile (the GEMM tiler:
 * compile_gemm.c; the emitters of the training step and of the evaluation batch:
 * compile_step.c; the listing: compile_list.c; the validation table: compile_check.c; what they
 * share: compile_priv.h).
 */
#include "models/host/compile_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t hc_ru64(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static int buf_new(struct cc *c)
{
    if (c->n_buf == c->cap_buf) {
        uint32_t cap = c->cap_buf ? 2 * c->cap_buf : 256;
        struct buf *b = realloc(c->buf, cap * sizeof(*b));
        if (!b) {
            c->err = -ENOMEM;
            return 0;
        }
        c->buf = b;
        c->cap_buf = cap;
    }
    c->buf[c->n_buf] = (struct buf){.writer = -1};
    return (int)c->n_buf++;
}

static int push_dep(struct cc *c, uint32_t id)
{
    struct hc_prog *p = c->p;
    if (p->n_deps == c->cap_deps) {
        uint32_t cap = c->cap_deps ? 2 * c->cap_deps : 4096;
        uint32_t *d = realloc(p->deps, cap * sizeof(*d));
        if (!d)
            return -ENOMEM;
        p->deps = d;
        c->cap_deps = cap;
    }
    p->deps[p->n_deps++] = id;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int add_reader(struct cc *c, struct buf *b, uint32_t id, uint32_t res)
{
    for (uint32_t i = 0; i < b->n_rd; i++)
        if (b->rd[i].res == res) { /* in-order resource: the later reader ends later */
            b->rd[i].id = id;
            return 0;
        }
    if (b->n_rd == b->cap_rd) {
        uint32_t cap = b->cap_rd ? 2 * b->cap_rd : 4;
        struct reader *r = realloc(b->rd, cap * sizeof(*r));
        if (!r) {
            c->err = -ENOMEM;
            return -ENOMEM;
        }
        b->rd = r;
        b->cap_rd = cap;
    }
    b->rd[b->n_rd++] = (struct reader){id, res};
    return 0;
}

/*
 * Append a command; rd/wr list the buffers it reads and writes (negative entries are
 * skipped). Returns the command (valid until the next hc_emit) or NULL on error (c->err).
 */
struct hc_cmd *hc_emit(struct cc *c, enum hc_kind kind, uint32_t node, uint32_t res, uint32_t layer,
                       enum hc_pass pass, enum hc_phase phase, const int *rd, size_t nrd,
                       const int *wr, size_t nwr)
{
    struct hc_prog *p = c->p;
    uint32_t n = 0;

    if (c->err)
        return NULL;
    if (p->n_cmd == c->cap_cmd) {
        uint32_t cap = c->cap_cmd ? 2 * c->cap_cmd : 1024;
        struct hc_cmd *q = realloc(p->cmd, cap * sizeof(*q));
        if (!q) {
            c->err = -ENOMEM;
            return NULL;
        }
        p->cmd = q;
        c->cap_cmd = cap;
    }
    uint32_t id = p->n_cmd;

    for (size_t i = 0; i < nrd; i++) {
        if (rd[i] < 0)
            continue;
        struct buf *b = &c->buf[rd[i]];
        if (b->writer >= 0 && n < sizeof(c->tmp) / sizeof(c->tmp[0]))
            c->tmp[n++] = (uint32_t)b->writer;
    }
    for (size_t i = 0; i < nwr; i++) {
        if (wr[i] < 0)
            continue;
        struct buf *b = &c->buf[wr[i]];
        if (b->writer >= 0 && n < sizeof(c->tmp) / sizeof(c->tmp[0]))
            c->tmp[n++] = (uint32_t)b->writer;
        for (uint32_t k = 0; k < b->n_rd && n < sizeof(c->tmp) / sizeof(c->tmp[0]); k++)
            c->tmp[n++] = b->rd[k].id;
    }
    qsort(c->tmp, n, sizeof(c->tmp[0]), cmp_u32);

    struct hc_cmd *cmd = &p->cmd[id];
    memset(cmd, 0, sizeof(*cmd));
    cmd->id = id;
    cmd->kind = (uint8_t)kind;
    cmd->node = (uint16_t)node;
    cmd->res = res;
    cmd->layer = (uint16_t)layer;
    cmd->pass = (uint8_t)pass;
    cmd->phase = (uint8_t)phase;
    cmd->dep0 = p->n_deps;
    for (uint32_t i = 0; i < n; i++) {
        if (i && c->tmp[i] == c->tmp[i - 1])
            continue;
        if (push_dep(c, c->tmp[i])) {
            c->err = -ENOMEM;
            return NULL;
        }
    }
    cmd = &p->cmd[id];
    cmd->ndep = p->n_deps - cmd->dep0;

    /* Update the scoreboard: writes first clear the readers, then reads register. */
    for (size_t i = 0; i < nwr; i++) {
        if (wr[i] < 0)
            continue;
        c->buf[wr[i]].writer = id;
        c->buf[wr[i]].n_rd = 0;
    }
    for (size_t i = 0; i < nrd; i++)
        if (rd[i] >= 0 && add_reader(c, &c->buf[rd[i]], id, res))
            return NULL;
    p->n_cmd++;
    return cmd;
}

/* ---------------------------------------------------------------- TB allocation */

static uint64_t tb_alloc(struct cc *c, bool wn, const char *name, uint64_t bytes)
{
    struct hc_prog *p = c->p;
    struct hc_region *r;
    uint64_t *used = wn ? &p->wn_tb_used : &p->an_tb_used;
    uint32_t *n = wn ? &p->n_wn_tb : &p->n_an_tb;

    if (*n >= HC_MAX_REGIONS) {
        c->err =
            err_set(c->e, -EINVAL, "compile: more than %u tensor-buffer regions", HC_MAX_REGIONS);
        return 0;
    }
    r = wn ? &p->wn_tb[(*n)++] : &p->an_tb[(*n)++];
    snprintf(r->name, sizeof(r->name), "%s", name);
    r->addr = *used;
    r->bytes = bytes;
    *used = hc_ru64(*used + (bytes ? bytes : 1), TB_ALIGN);
    return r->addr;
}

/* ---------------------------------------------------------------- compile */

int hc_check_cfg(const struct hc_cfg *cfg, struct err *e)
{
    const struct core_params *k = &cfg->core;

    if (cfg->model.n_layers < 1 || cfg->model.n_layers > DNN_MAX_LAYERS)
        return err_set(e, -EINVAL, "model: %u layers; accepted 1..%u", cfg->model.n_layers,
                       DNN_MAX_LAYERS);
    if (cfg->n_an < 1 || cfg->n_an > HC_MAX_AN)
        return err_set(e, -EINVAL, "n_an = %u; accepted 1..%u Activation Nodes", cfg->n_an,
                       HC_MAX_AN);
    if (cfg->batch < 1 || cfg->batch % cfg->n_an)
        return err_set(e, -EINVAL,
                       "batch B = %u is not divisible by N = %u Activation Nodes; accepted a "
                       "multiple of N (each AN takes B / N rows)",
                       cfg->batch, cfg->n_an);
    if (cfg->batch / cfg->n_an > CORE_DIM_MAX)
        return err_set(e, -EINVAL, "rows per AN B / N = %u; accepted 1..%u", cfg->batch / cfg->n_an,
                       CORE_DIM_MAX);
    if (k->rows < 1 || k->rows > 64 || k->cols < 1 || k->cols > 64 || core_twin_w(k) > 64 ||
        k->a_words < 2 || k->b_words < 2 || k->c_words < 2)
        return err_set(e, -EINVAL,
                       "core %ux%u with pads of %u/%u/%u words: accepted rows and cols 1..64, "
                       "lcm(rows, cols, 4) <= 64, pads >= 2 words",
                       k->rows, k->cols, k->a_words, k->b_words, k->c_words);
    for (uint32_t l = 0; l < cfg->model.n_layers; l++) {
        const struct dnn_layer *ly = &cfg->model.layer[l];
        if (ly->in < 1 || ly->out < 1 || ly->in > CORE_DIM_MAX || ly->out > CORE_DIM_MAX)
            return err_set(e, -EINVAL, "layer %u: %u x %u; accepted widths 1..%u (core limit)",
                           l + 1, ly->in, ly->out, CORE_DIM_MAX);
        if (l && ly->in != cfg->model.layer[l - 1].out)
            return err_set(e, -EINVAL, "layer %u: %u inputs but layer %u has %u outputs", l + 1,
                           ly->in, l, cfg->model.layer[l - 1].out);
    }
    if (dnn_model_classes(&cfg->model) > 256)
        return err_set(e, -EINVAL, "model: %u classes; accepted 2..256 (labels are bytes)",
                       dnn_model_classes(&cfg->model));
    return 0;
}

/* The largest of each kind of tensor over the layers: one region serves every layer. */
struct tb_sizes {
    uint64_t max_in, max_out, max_w, max_stream, max_grad, max_state;
};

/* The bytes of each layer's flash stream records, and the largest tensors. */
static void size_records(struct cc *c, struct tb_sizes *z)
{
    const struct hc_cfg *cfg = c->cfg;
    const struct dnn_model *m = &cfg->model;
    uint32_t r = c->r;

    memset(z, 0, sizeof(*z));
    for (uint32_t l = 0; l < c->L; l++) {
        uint64_t params = dnn_model_layer_params(m, l);
        z->max_in = max64(z->max_in, m->layer[l].in);
        z->max_out = max64(z->max_out, m->layer[l].out);
        z->max_stream = max64(z->max_stream, hc_layer_stream_bytes(m, l));
        z->max_grad = max64(z->max_grad, params * 4);
        z->max_state =
            max64(z->max_state, hc_ru64(params * 4, TB_ALIGN) * (1 + cfg->opt_state_words));
        c->p->rec_bytes[HC_S_W][l] = hc_layer_stream_bytes(m, l);
        c->p->rec_bytes[HC_S_M][l] = params * 4;
        c->p->rec_bytes[HC_S_O][l] = params * 4 * cfg->opt_state_words;
        c->p->rec_bytes[HC_S_V][l] = (uint64_t)r * m->layer[l].in * 2;
    }
    c->p->rec_bytes[HC_S_NV][0] = (uint64_t)r * m->layer[0].in + r;
    z->max_w = max64(z->max_in, z->max_out);
}

/* Every AN's tensor buffer (the same map on each): weight slots, inputs, activations,
 * gradients. */
static void alloc_an_tb(struct cc *c, const struct tb_sizes *z)
{
    const struct dnn_model *m = &c->cfg->model;
    uint32_t r = c->r;
    char name[24];

    c->a_w[0] = tb_alloc(c, false, "wslot0", z->max_stream);
    c->a_w[1] = tb_alloc(c, false, "wslot1", z->max_stream);
    c->a_in = tb_alloc(c, false, "input", c->p->rec_bytes[HC_S_NV][0]);
    for (uint32_t l = 0; l < c->L; l++) {
        snprintf(name, sizeof(name), "x%u", l + 1);
        c->a_x[l] = tb_alloc(c, false, name, (uint64_t)r * m->layer[l].in * 2);
    }
    c->a_y = tb_alloc(c, false, "y", (uint64_t)r * z->max_w * 4);
    c->a_logits = tb_alloc(c, false, "logits", (uint64_t)r * dnn_model_classes(m) * 4);
    c->a_dz = tb_alloc(c, false, "dz", (uint64_t)r * z->max_w * 4);
    c->a_g = tb_alloc(c, false, "g", (uint64_t)r * z->max_out * 2);
    c->a_xr[0] = tb_alloc(c, false, "xread0", (uint64_t)r * z->max_in * 2);
    c->a_xr[1] = tb_alloc(c, false, "xread1", (uint64_t)r * z->max_in * 2);
    c->a_dw[0] = tb_alloc(c, false, "grad0", z->max_grad);
    c->a_dw[1] = tb_alloc(c, false, "grad1", z->max_grad);
    c->a_loss = tb_alloc(c, false, "loss", 4);
    c->a_cls = tb_alloc(c, false, "classes", r);
}

/* The WN's tensor buffer: weight slots, reduced gradients, optimizer state, write-back. */
static void alloc_wn_tb(struct cc *c, const struct tb_sizes *z)
{
    c->w_w[0] = tb_alloc(c, true, "wslot0", z->max_stream);
    c->w_w[1] = tb_alloc(c, true, "wslot1", z->max_stream);
    c->w_grad[0] = tb_alloc(c, true, "grad0", z->max_grad);
    c->w_grad[1] = tb_alloc(c, true, "grad1", z->max_grad);
    c->w_mo[0] = tb_alloc(c, true, "state0", z->max_state);
    c->w_mo[1] = tb_alloc(c, true, "state1", z->max_state);
    c->w_wout[0] = tb_alloc(c, true, "wback0", hc_ru64(z->max_stream, TB_ALIGN) + z->max_state);
    c->w_wout[1] = tb_alloc(c, true, "wback1", hc_ru64(z->max_stream, TB_ALIGN) + z->max_state);
}

/* The scoreboard buffers of one AN: its tensors, its pad halves, its flash records. */
static void new_an_buffers(struct cc *c, uint32_t n)
{
    c->an_in[n] = buf_new(c);
    for (uint32_t l = 0; l < c->L; l++) {
        c->an_x[n][l] = buf_new(c);
        c->fl_x[n][l] = buf_new(c);
    }
    c->an_y[n] = buf_new(c);
    c->an_logits[n] = buf_new(c);
    c->an_dz[n] = buf_new(c);
    c->an_g[n] = buf_new(c);
    c->an_loss[n] = buf_new(c);
    c->an_cls[n] = buf_new(c);
    c->fl_in[n] = buf_new(c);
    c->core_port[n] = buf_new(c);
    for (int s = 0; s < 2; s++) {
        c->an_xr[n][s] = buf_new(c);
        c->an_w[n][s] = buf_new(c);
        c->an_dw[n][s] = buf_new(c);
        c->pad_a[n][s] = buf_new(c);
        c->pad_b[n][s] = buf_new(c);
        c->pad_c[n][s] = buf_new(c);
    }
}

/* The scoreboard buffers of the WN, of its flash records and of the host. */
static void new_wn_buffers(struct cc *c)
{
    for (int s = 0; s < 2; s++) {
        c->wn_w[s] = buf_new(c);
        c->wn_grad[s] = buf_new(c);
        c->wn_mo[s] = buf_new(c);
        c->wn_wout[s] = buf_new(c);
    }
    for (uint32_t l = 0; l < c->L; l++) {
        c->fl_w[l] = buf_new(c);
        c->fl_m[l] = buf_new(c);
        c->fl_o[l] = buf_new(c);
    }
    c->host_loss = buf_new(c);
}

static void alloc_all(struct cc *c)
{
    struct tb_sizes z;

    size_records(c, &z);
    alloc_an_tb(c, &z);
    alloc_wn_tb(c, &z);
    c->p->an_in = c->a_in;
    c->p->an_logits = c->a_logits;
    c->p->an_cls = c->a_cls;
    c->p->an_loss = c->a_loss;
    for (uint32_t n = 0; n < c->cfg->n_an; n++)
        new_an_buffers(c, n);
    new_wn_buffers(c);
}

int hc_compile(const struct hc_cfg *cfg, struct hc_prog **out, struct err *e)
{
    struct cc *c;
    int rc;

    *out = NULL;
    rc = hc_check_cfg(cfg, e);
    if (rc)
        return rc;
    c = calloc(1, sizeof(*c));
    if (!c)
        return err_set(e, -ENOMEM, "compile: out of memory");
    c->p = calloc(1, sizeof(*c->p));
    if (!c->p) {
        free(c);
        return err_set(e, -ENOMEM, "compile: out of memory");
    }
    c->cfg = cfg;
    c->e = e;
    c->p->cfg = *cfg;
    c->r = cfg->batch / cfg->n_an;
    c->L = cfg->model.n_layers;
    c->p->rows = c->r;
    c->p->n_layers = c->L;
    for (int st = 0; st < HC_N_STREAMS; st++)
        c->p->n_rec[st] = c->L; /* a stream's record of layer l is record l */
    c->p->n_res = HC_RES_FIXED + cfg->n_an * HC_RES_AN_N;
    c->w = core_twin_w(&cfg->core);
    core_twin_map(&cfg->core, &c->map);
    c->a_half = (uint32_t)(c->map.a_elems / 2 / c->w * c->w);
    c->b_half = (uint32_t)(c->map.b_elems / 2 / c->w * c->w);
    c->c_half = (uint32_t)(c->map.c_elems / 2 / c->w * c->w);

    alloc_all(c);
    if (!c->err)
        hc_emit_program(c);
    rc = c->err;
    if (rc == -ENOMEM)
        err_set(e, rc, "compile: out of memory");
    for (uint32_t i = 0; i < c->n_buf; i++)
        free(c->buf[i].rd);
    free(c->buf);
    if (rc) {
        hc_prog_free(c->p);
        free(c);
        return rc;
    }
    *out = c->p;
    free(c);
    return 0;
}

void hc_prog_free(struct hc_prog *p)
{
    if (!p)
        return;
    free(p->cmd);
    free(p->deps);
    for (int st = 0; st < HC_N_STREAMS; st++)
        free(p->rec_size[st]);
    free(p);
}
