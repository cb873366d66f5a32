/*
 * compile_list.c - the names of the compiler's kinds, streams, phases and resources, and the
 * program listing; see compile.h.
 */
#include "models/host/compile_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- names */

static const char *const kind_names[HC_N_KINDS] = {
    "FLASH_RD", "FLASH_WR", "FABRIC_BCAST", "FABRIC_REDUCE", "LOSS_GATHER", "HOST_WR", "DMA_IN",
    "DMA_OUT",  "GEMM",     "VU",           "OPT_UPDATE",
};
const char *const hc_stream_names[HC_N_STREAMS] = {"NV", "V", "W", "M", "O"};
static const char *const phase_names[HC_PH_N] = {
    "compute", "weight_fetch", "broadcast", "act_write", "act_read", "reduce", "optimizer",
};

const char *hc_kind_name(enum hc_kind k)
{
    return (unsigned)k < HC_N_KINDS ? kind_names[k] : "?";
}

const char *hc_stream_name(enum hc_stream s)
{
    return (unsigned)s < HC_N_STREAMS ? hc_stream_names[s] : "?";
}

const char *hc_phase_name(enum hc_phase p)
{
    return (unsigned)p < HC_PH_N ? phase_names[p] : "?";
}

void hc_res_name(uint32_t res, char *buf, size_t len)
{
    static const char *const fixed[HC_RES_FIXED] = {"wn.flash_rd", "wn.flash_wr", "wn.opt",
                                                    "fabric.down", "fabric.up",   "host"};
    static const char *const an[HC_RES_AN_N] = {"flash_rd", "flash_wr", "dma",
                                                "core",     "vu",       "dma_act"};

    if (res < HC_RES_FIXED)
        snprintf(buf, len, "%s", fixed[res]);
    else
        snprintf(buf, len, "an%u.%s", (res - HC_RES_FIXED) / HC_RES_AN_N,
                 an[(res - HC_RES_FIXED) % HC_RES_AN_N]);
}

/* ---------------------------------------------------------------- listing */

static void node_name(uint32_t node, char *buf, size_t len)
{
    if (node == HC_WN)
        snprintf(buf, len, "wn");
    else
        snprintf(buf, len, "an%u", node);
}

void hc_format(const struct hc_prog *p, const struct hc_cmd *c, char *buf, size_t len)
{
    char node[16], res[32], ops[160] = "", deps[96] = "";
    size_t o = 0;

    node_name(c->node, node, sizeof(node));
    hc_res_name(c->res, res, sizeof(res));
    switch (c->kind) {
    case HC_DMA_IN:
    case HC_DMA_OUT: {
        const struct dma_desc *d = &c->u.dma;
        snprintf(ops, sizeof(ops),
                 "%s src 0x%" PRIx64 " dst 0x%" PRIx64 " rows %u len %u strides %" PRIu64
                 "/%" PRIu64,
                 d->xpose ? "xpose" : "plain", d->src, d->dst, d->rows, d->len, d->src_stride,
                 d->dst_stride);
        break;
    }
    case HC_GEMM: {
        const struct core_cmd *k = &c->u.gemm;
        snprintf(ops, sizeof(ops), "m %u n %u k %u a@%u/%u%s b@%u/%u%s c@%u/%u", k->m, k->n, k->k,
                 k->a_addr, k->lda, k->trans_a ? "T" : "", k->b_addr, k->ldb, k->trans_b ? "T" : "",
                 k->c_addr, k->ldc);
        break;
    }
    case HC_VU:
        snprintf(ops, sizeof(ops), "%s %ux%u src 0x%" PRIx64 " dst 0x%" PRIx64,
                 vu_op_name((enum vu_op)c->op), c->u.vu.rows, c->u.vu.cols, c->u.vu.src,
                 c->u.vu.dst);
        break;
    case HC_FLASH_RD:
    case HC_FLASH_WR:
    case HC_HOST_WR:
        snprintf(ops, sizeof(ops), "stream %s rec %u tb 0x%" PRIx64 " %" PRIu64 " B",
                 hc_stream_name((enum hc_stream)c->op), c->u.fl.rec, c->u.fl.tb, c->bytes);
        break;
    case HC_FABRIC_BCAST:
    case HC_FABRIC_REDUCE:
    case HC_LOSS_GATHER:
        snprintf(ops, sizeof(ops), "src 0x%" PRIx64 " dst 0x%" PRIx64 " %" PRIu64 " B",
                 c->u.fab.src, c->u.fab.dst, c->bytes);
        break;
    case HC_OPT_UPDATE:
        snprintf(ops, sizeof(ops),
                 "grad 0x%" PRIx64 " state 0x%" PRIx64 " out 0x%" PRIx64 " %" PRIu64 " params",
                 c->u.opt.grad, c->u.opt.state, c->u.opt.wout, c->bytes / 4);
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < c->ndep && o + 12 < sizeof(deps); i++)
        o += (size_t)snprintf(deps + o, sizeof(deps) - o, "%s%u", i ? "," : "",
                              p->deps[c->dep0 + i]);
    if (c->ndep && o + 12 >= sizeof(deps))
        snprintf(deps + sizeof(deps) - 5, 5, "...");
    snprintf(buf, len, "%6u %-4s %-12s %-13s L%u %s  %-40s deps [%s]", c->id, node, res,
             hc_kind_name((enum hc_kind)c->kind), c->layer + 1, c->pass == HC_FWD ? "fwd" : "bwd",
             ops, deps);
}

static void print_regions(FILE *f, const char *who, const struct hc_region *r, uint32_t n,
                          uint64_t used)
{
    fprintf(f, "%s tensor buffer: %" PRIu64 " bytes used\n", who, used);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "  %-10s 0x%010" PRIx64 "  %12" PRIu64 " B\n", r[i].name, r[i].addr, r[i].bytes);
}

void hc_print(const struct hc_prog *p, FILE *f)
{
    char line[512];
    const struct hc_cfg *cfg = &p->cfg;
    char model[256];

    dnn_model_format(&cfg->model, model, sizeof(model));
    fprintf(f,
            "program: model %s, %u ANs, batch %u (%u rows per AN), core %ux%u (pads %u/%u/%u "
            "words), %s, output layer %s\n",
            model, cfg->n_an, cfg->batch, p->rows, cfg->core.rows, cfg->core.cols,
            cfg->core.a_words, cfg->core.b_words, cfg->core.c_words,
            cfg->eval ? "evaluation" : "training step",
            cfg->keep_output_resident ? "resident" : "streamed twice");
    fprintf(f, "%u commands, %u GEMMs per AN\n\n", p->n_cmd, p->gemms);
    print_regions(f, "AN", p->an_tb, p->n_an_tb, p->an_tb_used);
    print_regions(f, "WN", p->wn_tb, p->n_wn_tb, p->wn_tb_used);
    fprintf(f, "\n    id node resource     kind          layer/pass  operands"
               "                                 dependencies\n");
    for (uint32_t node = 0; node <= cfg->n_an; node++) {
        uint32_t want = node == cfg->n_an ? HC_WN : node;
        char nn[16];
        node_name(want, nn, sizeof(nn));
        fprintf(f, "\n== %s%s\n", nn, want == HC_WN ? " (with the fabric)" : "");
        for (uint32_t i = 0; i < p->n_cmd; i++) {
            if (p->cmd[i].node != want)
                continue;
            hc_format(p, &p->cmd[i], line, sizeof(line));
            fprintf(f, "%s\n", line);
        }
    }
}
