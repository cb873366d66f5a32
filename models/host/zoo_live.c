#include "models/host/zoo_live.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NONE UINT32_MAX

struct tensor {
    char base[32];
    uint64_t made; /* bytes of the parts made in the list (each part once) */
    uint64_t read; /* the largest size a read implies (for one never made) */
    char parts[4][32];
    uint32_t n_parts;
    uint32_t first, last; /* operations holding it */
};

struct live {
    struct tensor t[ZOO_LIVE_MAX_TENSORS];
    uint32_t n;
    uint64_t seq;
    struct err *e;
    int err;
};

static struct tensor *find(struct live *l, const char *name)
{
    char base[32];
    size_t len = strcspn(name, ".");
    if (len >= sizeof(base))
        len = sizeof(base) - 1;
    memcpy(base, name, len);
    base[len] = 0;
    for (uint32_t i = 0; i < l->n; i++)
        if (!strcmp(l->t[i].base, base))
            return &l->t[i];
    if (l->n == ZOO_LIVE_MAX_TENSORS) {
        if (!l->err)
            l->err = err_set(l->e, -EINVAL,
                             "zoo_live: tensor '%s' is one more than the %u of "
                             "an operation list",
                             name, ZOO_LIVE_MAX_TENSORS);
        return NULL;
    }
    struct tensor *t = &l->t[l->n++];
    memset(t, 0, sizeof(*t));
    memcpy(t->base, base, len + 1);
    t->first = t->last = NONE;
    return t;
}

/* Bytes of `count` instances of rows x cols, bf16; a per-head query x key tensor, one. */
static uint64_t held(const struct live *l, uint64_t rows, uint64_t cols, uint64_t count)
{
    if (cols == l->seq && rows * count > l->seq && (rows == l->seq || count == 1))
        return 2 * l->seq * cols; /* one head's scores, probabilities or their gradients */
    return 2 * rows * cols * count;
}

uint64_t zoo_live_vec_bytes(const struct zoo_vec *v, uint64_t seq)
{
    const struct live l = {.seq = seq};
    return held(&l, v->rows, v->cols, 1);
}

static void read_at(struct live *l, const char *name, uint64_t bytes, uint32_t i)
{
    struct tensor *t = name ? find(l, name) : NULL;
    if (!t)
        return;
    if (t->first == NONE)
        t->first = 0; /* read before it is made: an input of the list */
    t->last = i;
    if (bytes > t->read)
        t->read = bytes;
}

static void make_at(struct live *l, const char *name, uint64_t bytes, uint32_t i)
{
    struct tensor *t = find(l, name);
    if (!t)
        return;
    if (t->first == NONE)
        t->first = i;
    if (t->last == NONE || t->last < i)
        t->last = NONE - 1; /* made: held to the end unless read later */
    for (uint32_t p = 0; p < t->n_parts; p++)
        if (!strcmp(t->parts[p], name))
            return; /* made again (a recompute): the same bytes */
    if (t->n_parts < 4)
        snprintf(t->parts[t->n_parts++], sizeof(t->parts[0]), "%s", name);
    t->made += bytes;
}

static void gemm_refs(struct live *l, const struct zoo_gemm *g, uint32_t i)
{
    if (g->a.role != ZOO_OPND_WEIGHT)
        read_at(l, g->a.name, held(l, g->m, g->k, g->count), i);
    if (g->b.role != ZOO_OPND_WEIGHT)
        read_at(l, g->b.name, held(l, g->k, g->n, g->count), i);
    if (g->c.role == ZOO_OPND_WGRAD)
        return; /* streamed out to the Weight Node */
    if (g->accumulate)
        read_at(l, g->c.name, held(l, g->m, g->n, g->count), i);
    make_at(l, g->c.name, held(l, g->m, g->n, g->count), i);
}

static void vec_refs(struct live *l, const struct zoo_vec *v, uint32_t i)
{
    uint64_t bytes = held(l, v->rows, v->cols, 1);
    /* an embedding reads token ids (4 B each) and makes its table's gradient (streamed) */
    read_at(l, v->in, v->kind == ZOO_VEC_EMBED ? 4 * v->rows : bytes, i);
    read_at(l, v->in2, bytes, i);
    if (v->kind != ZOO_VEC_EMBED_BWD)
        make_at(l, v->out, bytes, i);
}

int zoo_live(const struct zoo_op *ops, uint32_t n, uint64_t seq, uint64_t *live, struct err *e)
{
    struct live l = {.seq = seq, .e = e};

    for (uint32_t i = 0; i < n && !l.err; i++) {
        const struct zoo_op *op = &ops[i];
        switch (op->type) {
        case ZOO_OP_GEMM:
            gemm_refs(&l, &op->gemm, i);
            break;
        case ZOO_OP_VEC:
            vec_refs(&l, &op->vec, i);
            break;
        case ZOO_OP_SAVE:
            read_at(&l, op->xfer.tensor, op->xfer.bytes, i);
            break;
        case ZOO_OP_LOAD:
            make_at(&l, op->xfer.tensor, op->xfer.bytes, i);
            break;
        }
    }
    if (l.err)
        return l.err;
    for (uint32_t i = 0; i < n; i++)
        live[i] = 0;
    for (uint32_t k = 0; k < l.n; k++) {
        const struct tensor *t = &l.t[k];
        uint64_t bytes = t->made ? t->made : t->read;
        uint32_t last = t->last >= n ? n - 1 : t->last;
        for (uint32_t i = t->first; i <= last && i < n; i++)
            live[i] += bytes;
    }
    return 0;
}
