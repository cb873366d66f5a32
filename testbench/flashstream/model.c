/*
 * flashstream model: the transformer workloads of the model zoo (models/zoo), without running
 * them.
 *
 * --table prints the 12 workloads of the Behemoth paper's Table 3 (GPT3-like and T5-like at
 * sizes 1x1 .. 2x4, one sequence of 2048 tokens): the zoo's saved activations, weights and
 * FLOP beside the paper's values and their ratio. --model SPEC [--batch B] [--seq N] prints
 * one model (the zoo's, or a Hugging Face config.json): a line `parameters: <N> total, <M>
 * active per token`, its shape, its totals and, block by block, the weights, the activations
 * saved to flash and the forward and backward operations with their GEMM shapes and FLOP.
 */
#include "models/zoo/zoo.h"
#include "testbench/flashstream/cli.h"
#include "testbench/flashstream/commands.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct model_opts {
    bool table;
    const char *model, *routing;
    uint64_t batch, seq;
};

enum { SET_BATCH = 1 << 0, SET_SEQ = 1 << 1, SET_ROUTING = 1 << 2 };

#define MODEL_FIELD(member) CLI_FIELD(struct model_opts, member)

static const struct cli_opt model_options[] = {
    {CLI_OPT("table", NULL, NULL,
             "the 12 workloads of the paper's Table 3: activations, weights\n"
             "and PFLOP beside the paper's values, and the ratio"),
     CLI_FLAG(MODEL_FIELD(table))},
    {CLI_OPT("model", "SPEC", NULL,
             "one model, gpt3-like:WxD or t5-like:WxD with W, D in 1, 2, 4,\n"
             "or a Hugging Face config.json (LLaMA, Mistral, Qwen2, Mixtral,\n"
             "Qwen2-MoE, DeepSeek-V3; e.g.\n"
             "configs/models/llama-3.1-8b.json): its parameters, its shape,\n"
             "and per block the weights, saved activations and operations\n"
             "(GEMM shapes, FLOP)"),
     CLI_STR_OK(MODEL_FIELD(model), cli_nonempty, "a model spec, e.g. gpt3-like:1x1")},
    {CLI_OPT("batch", "B", NULL, "sequences per core for --model (default 1)"),
     CLI_U64(MODEL_FIELD(batch), 1, ZOO_MAX_BATCH), .given = SET_BATCH},
    {CLI_OPT("seq", "N", NULL, "tokens per sequence for --model (default 2048)"),
     CLI_U64(MODEL_FIELD(seq), 1, ZOO_MAX_SEQ), .given = SET_SEQ},
    {CLI_OPT("routing", "uniform|zipf:S", NULL,
             "a mixture of experts' routing for --model: every expert the\n"
             "same tokens (default), or the i-th most used's share ~ 1 / i^S"),
     CLI_STR_OK(MODEL_FIELD(routing), zoo_routing_ok, "uniform or zipf:S with S in (0, 8]"),
     .given = SET_ROUTING},
    {0},
};

#undef MODEL_FIELD

static const struct cli_cmd model_cli = {
    .name = "model",
    .about = "The transformer workloads of the model zoo (models/zoo): the paper's Table 3\n"
             "beside the zoo's numbers, or one model's blocks and operations.\n",
    .opts = model_options,
};

/* ------------------------------------------------------------------ number formats */

/* v with an SI prefix, 4 significant digits: "1.856 T". */
static const char *si(double v, char *buf, size_t len)
{
    static const char pre[] = " kMGTPE";
    int i = 0;

    while (fabs(v) >= 1000 && i < 6) {
        v /= 1000;
        i++;
    }
    if (i)
        snprintf(buf, len, "%.4g %c", v, pre[i]);
    else
        snprintf(buf, len, "%.4g ", v);
    return buf;
}

#define SI(v) si((double)(v), (char[24]){0}, 24)

/* ------------------------------------------------------------------ --table */

static double ratio_dev(double r)
{
    return fabs(r - 1.0);
}

static int print_table(void)
{
    double worst = 0;
    const char *worst_spec = "", *worst_col = "";

    printf("Table 3 of the Behemoth paper (FAST '21) beside the zoo: one sequence of %u tokens\n"
           "per core (batch 1); GB = 1e9 bytes, PFLOP = 1e15 FLOP (a multiply-add is 2).\n\n",
           ZOO_SEQ);
    printf("%-14s %21s %22s %22s %10s\n", "", "activations (GB)", "weights (GB)", "PFLOP (Table 3)",
           "train");
    printf("%-14s %7s %6s %6s %7s %7s %6s %8s %6s %6s %10s\n", "model", "zoo", "paper", "ratio",
           "zoo", "paper", "ratio", "zoo", "paper", "ratio", "PFLOP");
    for (int i = 0; i < ZOO_PAPER_ROWS; i++) {
        const struct zoo_paper_row *p = &zoo_paper_table3[i];
        struct zoo_model *m;
        struct err e = {{0}};

        if (zoo_build(p->spec, 1, &m, &e)) {
            fprintf(stderr, "flashstream model: %s\n", e.msg);
            return 1;
        }
        double act = (double)m->total.saved_bytes / 1e9, w = (double)m->total.weight_bytes / 1e9;
        double f = (double)zoo_table3_flop(m) / 1e15, train = (double)m->total.flop / 1e15;
        double r[3] = {act / p->act_gb, w / p->weight_gb, f / p->pflop};
        static const char *const col[3] = {"activations", "weights", "PFLOP"};

        printf("%-14s %7.2f %6.0f %6.3f %7.1f %7.0f %6.3f %7.3f%s %6.2f %6.3f %10.3f\n", p->spec,
               act, p->act_gb, r[0], w, p->weight_gb, r[1], f,
               m->shape.family == ZOO_T5_LIKE ? "f" : " ", p->pflop, r[2], train);
        for (int c = 0; c < 3; c++)
            if (ratio_dev(r[c]) > worst) {
                worst = ratio_dev(r[c]);
                worst_spec = p->spec;
                worst_col = col[c];
            }
        zoo_destroy(m);
    }
    printf(
        "\nPFLOP on Table 3's basis: gpt3-like, a training iteration (forward, backward = 2 x\n"
        "forward, and the attention core recomputed in backward); t5-like (f), the forward pass:\n"
        "the paper's column is 2 x parameters x 2048 on all six T5 sizes, a third of a training\n"
        "iteration (train PFLOP). Sources and derivations: models/zoo/README.md.\n");
    printf("largest deviation from the paper: %.1f%% (%s, %s)\n", 100 * worst, worst_spec,
           worst_col);
    return 0;
}

/* ------------------------------------------------------------------ --model */

static void print_opnd(const struct zoo_opnd *o)
{
    printf("%s(%s)", o->name, zoo_operand_name(o->role));
}

static void print_op(const struct zoo_op *op, enum zoo_block_kind self)
{
    const struct zoo_gemm *g = &op->gemm;
    const struct zoo_vec *v = &op->vec;

    switch (op->type) {
    case ZOO_OP_GEMM:
        printf("    gemm %-13s %-9s M %6" PRIu64 " N %6" PRIu64 " K %6" PRIu64 " x%-4" PRIu64
               " %9sFLOP  ",
               zoo_gemm_kind_name(g->kind), zoo_gemm_role_name(g->role), g->m, g->n, g->k, g->count,
               SI(zoo_op_flop(op)));
        print_opnd(&g->a);
        printf(" . ");
        print_opnd(&g->b);
        printf(g->accumulate ? " += " : " -> ");
        print_opnd(&g->c);
        printf("%s\n", g->bias ? (g->role == ZOO_ROLE_FWD ? " + bias" : " + bias grad") : "");
        break;
    case ZOO_OP_VEC:
        printf("    vec  %-13s %-9s %8" PRIu64 " x %-6" PRIu64 " %9selements  %s%s%s -> %s",
               zoo_vec_kind_name(v->kind), v->recompute ? "recompute" : "", v->rows, v->cols,
               SI(v->rows * v->cols), v->in, v->in2 ? " + " : "", v->in2 ? v->in2 : "", v->out);
        printf(v->weight ? " [%s]\n" : "\n", v->weight);
        break;
    case ZOO_OP_SAVE:
    case ZOO_OP_LOAD:
        printf("    %s %s, %sB", op->type == ZOO_OP_SAVE ? "save" : "load", op->xfer.tensor,
               SI(op->xfer.bytes));
        if (op->type == ZOO_OP_LOAD && op->xfer.owner != self)
            printf(" (saved by the %s block)", zoo_block_kind_name(op->xfer.owner));
        printf("\n");
        break;
    }
}

static void print_block(const struct zoo_block *k)
{
    const struct zoo_totals *t = &k->per;

    printf("\nblock %s (%s) x%u; per instance: weights %sB, saved %sB in %" PRIu64
           " tensors,\n  %sFLOP (forward %sFLOP, backward %sFLOP, recompute %sFLOP)\n",
           k->name, zoo_block_kind_name(k->kind), k->repeat, SI(t->weight_bytes),
           SI(t->saved_bytes), t->saved_tensors, SI(t->flop), SI(t->flop_fwd), SI(t->flop_bwd),
           SI(t->flop_recompute));
    printf("  weights (bf16)\n");
    for (uint32_t i = 0; i < k->n_weights; i++) {
        const struct zoo_weight *w = &k->weights[i];

        printf("    %-12s %6" PRIu64 " x %-6" PRIu64 " %9sB%s\n", w->name, w->rows, w->cols,
               SI(w->bytes), w->tied ? "  tied: counted in an earlier block" : "");
    }
    printf("  saved to the V stream in forward, read back in backward\n");
    for (uint32_t i = 0; i < k->n_saved; i++) {
        const struct zoo_tensor *s = &k->saved[i];

        printf("    %-12s %6" PRIu64 " x %-6" PRIu64 " %9sB  %s\n", s->name, s->rows, s->cols,
               SI(s->bytes), s->what);
    }
    if (!k->n_saved)
        printf("    none\n");
    printf("  forward\n");
    for (uint32_t i = 0; i < k->n_fwd; i++)
        print_op(&k->fwd[i], k->kind);
    printf("  backward\n");
    for (uint32_t i = 0; i < k->n_bwd; i++)
        print_op(&k->bwd[i], k->kind);
}

static void print_model(const struct zoo_model *m)
{
    const struct zoo_shape *s = &m->shape;
    const struct zoo_totals *t = &m->total;

    printf("parameters: %" PRIu64 " total, %" PRIu64 " active per token\n", t->params,
           t->params_active);
    printf("%s, batch %u per core (sequences of %u tokens)\n", m->spec, s->batch, s->seq);
    if (s->family == ZOO_HF)
        printf("  config      %s%s%s%s\n", s->arch,
               s->tied ? ", LM head tied to the embedding" : "",
               s->qkv_bias ? ", Q, K, V biases" : "", s->mlp_bias ? ", FFN biases" : "");
    printf("  shape       d_model %" PRIu64 ", d_ff %" PRIu64 ", %" PRIu64 " heads x %" PRIu64,
           s->d_model, s->d_ff, s->heads, s->d_head);
    if (s->kv_heads != s->heads)
        printf(" (%" PRIu64 " K, V heads)", s->kv_heads);
    if (s->experts)
        printf(", %" PRIu64 " experts of d_ff %" PRIu64 " (%" PRIu64 " a token)", s->experts,
               s->d_expert, s->experts_per_tok);
    if (s->d_shared)
        printf(" and shared experts of %" PRIu64, s->d_shared);
    printf(", vocabulary %" PRIu64 "; ", s->vocab);
    if (s->family == ZOO_T5_LIKE)
        printf("%u encoder + %u decoder layers\n", s->enc_layers, s->dec_layers);
    else
        printf("%u decoder layers\n", s->dec_layers);
    printf("  parameters  %" PRIu64 " (%sB of bf16 weights)\n", t->params, SI(t->weight_bytes));
    printf("  saved       %sB of activations per iteration, %" PRIu64
           " tensors written to the V stream\n",
           SI(t->saved_bytes), t->saved_tensors);
    printf("  FLOP        %sFLOP per iteration: forward %sFLOP, backward %sFLOP (2 x forward),\n"
           "              recompute %sFLOP\n",
           SI(t->flop), SI(t->flop_fwd), SI(t->flop_bwd), SI(t->flop_recompute));
    printf("  blocks      ");
    for (uint32_t i = 0; i < m->n_blocks; i++)
        printf("%s%s x%u", i ? ", " : "", m->blocks[i].name, m->blocks[i].repeat);
    printf(" (backward in reverse)\n");
    printf("operands: act = in the tensor buffer, saved = read back from the V stream, weight =\n"
           "streamed from the Weight Node, grad = an activation's gradient, wgrad = a weight's\n"
           "(reduced at the Weight Node, named by the weight); T.q is part q of tensor T\n");
    for (uint32_t i = 0; i < m->n_blocks; i++)
        print_block(&m->blocks[i]);
}

/* ------------------------------------------------------------------ the command */

int cmd_model(int argc, char **argv)
{
    struct model_opts o = {.batch = 1, .seq = ZOO_SEQ};
    unsigned given = 0;
    int rc = cli_parse(&model_cli, argc, argv, &o, &given);

    if (rc)
        return rc > 0 ? 0 : 2;
    if (!o.table && !o.model) {
        fprintf(stderr, "flashstream model: give --table, --model SPEC or both "
                        "(--help lists the options)\n");
        return 2;
    }
    if ((given & (SET_BATCH | SET_SEQ | SET_ROUTING)) && !o.model) {
        fprintf(stderr,
                "flashstream model: --batch, --seq and --routing apply to --model; the "
                "table is at batch 1 and %u tokens, as the paper's\n",
                ZOO_SEQ);
        return 2;
    }
    if (o.model) {
        struct zoo_model *m;
        struct err e = {{0}};

        struct zoo_opts zo = {.batch = (uint32_t)o.batch, .seq = (uint32_t)o.seq};
        if ((o.routing && zoo_routing_parse(o.routing, &zo.zipf, &e)) ||
            zoo_build_with(o.model, &zo, &m, &e)) {
            fprintf(stderr, "flashstream model: --model: %s\n", e.msg);
            return 2;
        }
        if (m->ignored[0])
            fprintf(stderr,
                    "flashstream model: %s: fields that do not change the timing, "
                    "ignored: %s\n",
                    o.model, m->ignored);
        if (o.table && print_table())
            rc = 1;
        if (o.table)
            printf("\n");
        print_model(m);
        zoo_destroy(m);
        return rc;
    }
    return print_table();
}
