/*
 * fabric.c - the WN <-> AN tree; see fabric.h for the timing rules.
 *
 * Nodes are numbered top-down: 0 is the WN, 1 .. S the switches level by level from the root,
 * S+1 .. S+N the ANs. Every node but the WN has one parent, so a link is named by its lower
 * node: down[x] is the link parent(x) -> x, up[x] the link x -> parent(x). Increasing
 * node numbers visit parents before children (broadcast), decreasing numbers children before
 * parents (reduce).
 */
#include "models/fabric/fabric.h"
#include "csim/res.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fabric {
    struct fabric_cfg cfg;
    uint32_t levels;
    uint32_t n_sw;      /* switches */
    uint32_t n_nodes;   /* 1 + n_sw + n_an */
    uint32_t *parent;   /* [n_nodes]; parent[0] unused */
    struct res *down;   /* [n_nodes] link parent(x) -> x */
    struct res *up;     /* [n_nodes] link x -> parent(x) */
    struct res *sum;    /* [n_nodes] adder of switch x (switches only) */
    uint64_t *arrive;   /* [n_nodes] scratch: per-chunk arrival times */
    unsigned char *buf; /* scratch of the *_data calls: the bytes in flight */
    size_t buf_cap;
    const float **part; /* [n_an] scratch: each AN's partial in buf */
    struct fabric_stats st;
};

void fabric_cfg_default(struct fabric_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->n_an = 4;                          /* 1 WN + 4 ANs (ours), docs/sources.md */
    c->fanout = 16;                       /* (ours) one switch level up to 16 ANs */
    c->link_Bps = 12500000000ull;         /* (ours) 100 Gb/s per link and direction */
    c->hop_latency_ps = FABRIC_PS_PER_US; /* (ours) 1 us per hop */
    c->chunk_bytes = 64 * 1024;           /* (ours) 64 KiB pipelining unit */
    c->sum_Bps = 12500000000ull;          /* (ours) adders keep up with one link */
}

int fabric_cfg_validate(const struct fabric_cfg *c, struct err *e)
{
    if (c->n_an < 1 || c->n_an > FABRIC_MAX_AN)
        return err_set(e, -EINVAL, "fabric n_an = %u; accepted 1..%u", c->n_an, FABRIC_MAX_AN);
    if (c->fanout < 2 || c->fanout > FABRIC_MAX_AN)
        return err_set(e, -EINVAL, "fabric fanout = %u; accepted 2..%u", c->fanout, FABRIC_MAX_AN);
    if (c->link_Bps < 1)
        return err_set(e, -EINVAL, "fabric link_Bps = 0; accepted >= 1 byte/s");
    if (c->sum_Bps < 1)
        return err_set(e, -EINVAL, "fabric sum_Bps = 0; accepted >= 1 byte/s");
    if (c->chunk_bytes < 1)
        return err_set(e, -EINVAL, "fabric chunk_bytes = 0; accepted >= 1");
    if (c->hop_latency_ps > FABRIC_PS_PER_S)
        return err_set(e, -EINVAL, "fabric hop_latency_ps = %llu; accepted 0..%llu (1 s)",
                       (unsigned long long)c->hop_latency_ps, FABRIC_PS_PER_S);
    return 0;
}

void fabric_destroy(struct fabric *f)
{
    if (!f)
        return;
    free(f->parent);
    free(f->down);
    free(f->up);
    free(f->sum);
    free(f->arrive);
    free(f->buf);
    free(f->part);
    free(f);
}

int fabric_create(const struct fabric_cfg *c, struct fabric **out, struct err *e)
{
    uint32_t count[32]; /* switches per level, [0] = root */
    uint32_t first[32]; /* node number of a level's first switch */
    struct fabric *f;
    uint64_t reach;
    int rc;

    *out = NULL;
    rc = fabric_cfg_validate(c, e);
    if (rc)
        return rc;
    f = calloc(1, sizeof(*f));
    if (!f)
        return err_set(e, -ENOMEM, "fabric: out of memory");
    f->cfg = *c;
    /* levels = max(1, ceil(log_F N)): the smallest L >= 1 with F^L >= N. */
    f->levels = 1;
    for (reach = c->fanout; reach < c->n_an; reach *= c->fanout)
        f->levels++;
    /* Level d (0 = root) has ceil(N / F^(levels - d)) switches; the root level has one. */
    for (uint32_t d = f->levels; d-- > 0;) {
        uint64_t below = d + 1 == f->levels ? c->n_an : count[d + 1];

        count[d] = (uint32_t)((below + c->fanout - 1) / c->fanout);
    }
    f->n_sw = 0;
    for (uint32_t d = 0; d < f->levels; d++) {
        first[d] = 1 + f->n_sw;
        f->n_sw += count[d];
    }
    f->n_nodes = 1 + f->n_sw + c->n_an;
    f->parent = calloc(f->n_nodes, sizeof(uint32_t));
    f->down = calloc(f->n_nodes, sizeof(*f->down));
    f->up = calloc(f->n_nodes, sizeof(*f->up));
    f->sum = calloc(f->n_nodes, sizeof(*f->sum));
    f->arrive = calloc(f->n_nodes, sizeof(uint64_t));
    f->part = calloc(c->n_an, sizeof(*f->part));
    if (!f->parent || !f->down || !f->up || !f->sum || !f->arrive || !f->part) {
        fabric_destroy(f);
        return err_set(e, -ENOMEM, "fabric: out of memory for %u nodes", c->n_an);
    }
    for (uint32_t d = 0; d < f->levels; d++)
        for (uint32_t i = 0; i < count[d]; i++)
            f->parent[first[d] + i] = d == 0 ? 0 : first[d - 1] + i / c->fanout;
    for (uint32_t n = 0; n < c->n_an; n++)
        f->parent[1 + f->n_sw + n] = first[f->levels - 1] + n / c->fanout;
    *out = f;
    return 0;
}

void fabric_reset(struct fabric *f)
{
    memset(f->down, 0, f->n_nodes * sizeof(*f->down));
    memset(f->up, 0, f->n_nodes * sizeof(*f->up));
    memset(f->sum, 0, f->n_nodes * sizeof(*f->sum));
    memset(&f->st, 0, sizeof(f->st));
}

const struct fabric_cfg *fabric_cfg(const struct fabric *f)
{
    return &f->cfg;
}

uint32_t fabric_levels(const struct fabric *f)
{
    return f->levels;
}

uint32_t fabric_hops(const struct fabric *f)
{
    return f->levels + 1;
}

uint32_t fabric_switches(const struct fabric *f)
{
    return f->n_sw;
}

void fabric_get_stats(const struct fabric *f, struct fabric_stats *s)
{
    *s = f->st;
}

uint64_t fabric_chunks(const struct fabric_cfg *c, uint64_t bytes)
{
    return bytes / c->chunk_bytes + (bytes % c->chunk_bytes != 0);
}

static uint64_t time_ps(uint64_t bytes, uint64_t Bps)
{
    unsigned __int128 num = (unsigned __int128)bytes * FABRIC_PS_PER_S;

    return (uint64_t)((num + Bps - 1) / Bps);
}

uint64_t fabric_xfer_ps(const struct fabric_cfg *c, uint64_t bytes)
{
    return time_ps(bytes, c->link_Bps);
}

uint64_t fabric_sum_ps(const struct fabric_cfg *c, uint64_t bytes)
{
    return time_ps(bytes, c->sum_Bps);
}

static bool is_an(const struct fabric *f, uint32_t x)
{
    return x > f->n_sw;
}

/* Chunk k's size. */
static uint64_t chunk_size(const struct fabric_cfg *c, uint64_t bytes, uint64_t chunks, uint64_t k)
{
    return k + 1 < chunks ? c->chunk_bytes : bytes - (chunks - 1) * c->chunk_bytes;
}

int fabric_broadcast(struct fabric *f, uint64_t now, uint64_t bytes, uint64_t *done, uint64_t *last,
                     struct err *e)
{
    const struct fabric_cfg *c = &f->cfg;
    uint64_t chunks = fabric_chunks(c, bytes), end = now;

    if (!last)
        return err_set(e, -EINVAL, "fabric_broadcast: last is NULL");
    for (uint32_t n = 0; done && n < c->n_an; n++)
        done[n] = now;
    for (uint64_t k = 0; k < chunks; k++) {
        uint64_t t = fabric_xfer_ps(c, chunk_size(c, bytes, chunks, k));

        f->arrive[0] = now; /* the WN holds every chunk from the start */
        for (uint32_t x = 1; x < f->n_nodes; x++)
            f->arrive[x] = res_claim(&f->down[x], f->arrive[f->parent[x]], t) + c->hop_latency_ps;
        f->st.wn_down_busy_ps += t;
    }
    for (uint32_t n = 0; chunks && n < c->n_an; n++) {
        uint64_t a = f->arrive[1 + f->n_sw + n]; /* the last chunk arrives last */

        if (done)
            done[n] = a;
        end = res_later(end, a);
    }
    if (bytes) {
        f->st.broadcasts++;
        f->st.bytes_down += bytes;
    }
    *last = end;
    return 0;
}

int fabric_reduce(struct fabric *f, const uint64_t *ready, uint64_t bytes, uint64_t *done,
                  struct err *e)
{
    const struct fabric_cfg *c = &f->cfg;
    uint64_t chunks = fabric_chunks(c, bytes), end = 0;

    if (!ready || !done)
        return err_set(e, -EINVAL, "fabric_reduce: ready or done is NULL");
    for (uint32_t n = 0; n < c->n_an; n++)
        end = res_later(end, ready[n]);
    for (uint64_t k = 0; k < chunks; k++) {
        uint64_t sz = chunk_size(c, bytes, chunks, k);
        uint64_t t = fabric_xfer_ps(c, sz), ts = fabric_sum_ps(c, sz);

        /* arrive[x]: when chunk k of all x's children is at x (a max over children). */
        memset(f->arrive, 0, f->n_nodes * sizeof(uint64_t));
        for (uint32_t x = f->n_nodes - 1; x >= 1; x--) {
            uint64_t have =
                is_an(f, x) ? ready[x - 1 - f->n_sw] : res_claim(&f->sum[x], f->arrive[x], ts);
            uint64_t sent = res_claim(&f->up[x], have, t);

            f->arrive[f->parent[x]] = res_later(f->arrive[f->parent[x]], sent + c->hop_latency_ps);
        }
        end = f->arrive[0]; /* chunks reach the WN in order: the last one is the latest */
        f->st.wn_up_busy_ps += t;
    }
    if (bytes) {
        f->st.reduces++;
        f->st.bytes_up += bytes;
    }
    *done = end;
    return 0;
}

int fabric_gather_loss(struct fabric *f, const uint64_t *ready, uint64_t *done, struct err *e)
{
    return fabric_reduce(f, ready, sizeof(float), done, e);
}

void fabric_reduce_f32(const struct fabric *f, float *dst, const float *const *partials,
                       size_t count)
{
    for (size_t i = 0; i < count; i++) {
        float s = partials[0][i];

        for (uint32_t n = 1; n < f->cfg.n_an; n++)
            s = s + partials[n][i];
        dst[i] = s;
    }
}

/* ---------------------------------------------------------------- the bytes moved */

static int scratch(struct fabric *f, const char *what, size_t n, struct err *e)
{
    if (n <= f->buf_cap)
        return 0;
    unsigned char *b = realloc(f->buf, n);
    if (!b)
        return err_set(e, -ENOMEM, "fabric %s: out of memory for %zu bytes of scratch", what, n);
    f->buf = b;
    f->buf_cap = n;
    return 0;
}

/* A region of AN n's tensor buffer (n < 0: the WN's) that is not inside it. */
static int outside(const char *what, int n, uint64_t addr, uint64_t bytes, struct err *e)
{
    char node[16];

    if (n < 0)
        snprintf(node, sizeof(node), "WN");
    else
        snprintf(node, sizeof(node), "AN %d", n);
    return err_set(e, -ERANGE,
                   "fabric %s: %s tensor-buffer range 0x%" PRIx64 "+%" PRIu64
                   " is outside the buffer",
                   what, node, addr, bytes);
}

int fabric_broadcast_data(struct fabric *f, struct dram *wn_tb, uint64_t src,
                          struct dram *const *an_tbs, uint64_t dst, uint64_t bytes, struct err *e)
{
    int rc = scratch(f, "broadcast", bytes, e);

    if (rc)
        return rc;
    if (dram_read(wn_tb, src, f->buf, bytes))
        return outside("broadcast", -1, src, bytes, e);
    for (uint32_t n = 0; n < f->cfg.n_an; n++)
        if (dram_write(an_tbs[n], dst, f->buf, bytes))
            return outside("broadcast", (int)n, dst, bytes, e);
    return 0;
}

/* Every AN's fp32 vector of count elements at src, summed in node order; *sum in the scratch. */
static int sum_partials(struct fabric *f, const char *what, struct dram *const *an_tbs,
                        uint64_t src, size_t count, float **sum, struct err *e)
{
    uint32_t N = f->cfg.n_an;
    int rc = scratch(f, what, (size_t)(N + 1) * count * 4, e);

    if (rc)
        return rc;
    for (uint32_t n = 0; n < N; n++) {
        float *p = (float *)f->buf + (size_t)n * count;
        if (dram_read(an_tbs[n], src, p, count * 4))
            return outside(what, (int)n, src, count * 4, e);
        f->part[n] = p;
    }
    *sum = (float *)f->buf + (size_t)N * count;
    fabric_reduce_f32(f, *sum, f->part, count);
    return 0;
}

int fabric_reduce_data(struct fabric *f, struct dram *const *an_tbs, uint64_t src, uint64_t bytes,
                       struct dram *wn_tb, uint64_t dst, struct err *e)
{
    size_t count = bytes / 4;
    float *sum;
    int rc = sum_partials(f, "reduce", an_tbs, src, count, &sum, e);

    if (rc)
        return rc;
    if (dram_write(wn_tb, dst, sum, count * 4))
        return outside("reduce", -1, dst, count * 4, e);
    return 0;
}

int fabric_gather_loss_data(struct fabric *f, struct dram *const *an_tbs, uint64_t src, float *sum,
                            struct err *e)
{
    float *s;
    int rc = sum_partials(f, "loss gather", an_tbs, src, 1, &s, e);

    if (rc)
        return rc;
    *sum = s[0];
    return 0;
}

/* ---------------------------------------------------------------- through the nodes' buffers */

static uint64_t claim(struct dram *tb, int rid, uint64_t t, uint64_t addr, uint64_t bytes,
                      bool write)
{
    return bytes ? dram_access(tb, rid, t, addr, bytes, write) : t;
}

/* When a stream that ends at `end` can start arriving: its end less one link's time. */
static uint64_t arrival(const struct fabric *f, uint64_t now, uint64_t end, uint64_t bytes)
{
    uint64_t link = fabric_xfer_ps(fabric_cfg(f), bytes);
    return end > now + link ? end - link : now;
}

int fabric_time_broadcast(struct fabric *f, const struct fabric_ends *x, uint64_t now, uint64_t src,
                          uint64_t dst, uint64_t bytes, uint64_t *end, uint64_t *free_at,
                          struct err *e)
{
    uint32_t n_an = fabric_cfg(f)->n_an;
    uint64_t *done = malloc(n_an * sizeof(*done)), last;

    if (!done)
        return err_set(e, -ENOMEM, "fabric broadcast: out of memory");
    int rc = fabric_broadcast(f, now, bytes, done, end, e);
    if (rc) {
        free(done);
        return err_prefix(e, rc, "fabric broadcast");
    }
    last = claim(x->wn_tb, x->wn_rid, now, src, bytes, false);
    for (uint32_t n = 0; n < n_an; n++)
        last = res_later(last, claim(x->an_tbs[n], x->an_rids[n], arrival(f, now, done[n], bytes),
                                     dst, bytes, true));
    free(done);
    *end = res_later(*end, last);
    *free_at = now + fabric_xfer_ps(fabric_cfg(f), bytes);
    if (*free_at > *end)
        *free_at = *end;
    return 0;
}

int fabric_time_reduce(struct fabric *f, const struct fabric_ends *x, bool loss,
                       const uint64_t *ready, uint64_t now, uint64_t src, uint64_t dst,
                       uint64_t bytes, uint64_t *end, uint64_t *free_at, struct err *e)
{
    int rc = loss ? fabric_gather_loss(f, ready, end, e) : fabric_reduce(f, ready, bytes, end, e);
    uint64_t last;

    if (rc)
        return err_prefix(e, rc, "fabric");
    if (loss)
        bytes = 4;
    if (*end < now)
        *end = now;
    last = *end;
    for (uint32_t n = 0; n < fabric_cfg(f)->n_an; n++)
        last = res_later(
            last, claim(x->an_tbs[n], x->an_rids[n], res_later(now, ready[n]), src, bytes, false));
    if (!loss)
        last = res_later(
            last, claim(x->wn_tb, x->wn_rid, arrival(f, now, *end, bytes), dst, bytes, true));
    *end = *free_at = last;
    return 0;
}
