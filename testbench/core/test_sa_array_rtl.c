/*
 * Block test for the systolic array rtl/core/sa_array.v (the PE grid with its operand skew, flag
 * pipeline and row read-out), driven from C through the sa_array shim. Every finished row is
 * compared bit for bit with the numerics contract (each sum by fp32_mac_clear()/fp32_mac() in k
 * order, models/ref/bf16.h) and its cycle with the array's timing (sa_array.v):
 *   AccStages = 1: row r of a tile whose last step was on the inputs in cycle X leaves in
 *     X + Cols + 2 + r;
 *   AccStages = 4: the tiles leave in the order of their last steps, each tile's rows back to
 *     back, row 0 read in the cycle S = max(X + Cols + 4, the previous tile's S + Rows) and out
 *     in S + 1.
 * Every other cycle, row_valid must be low. The array's own assertions (the timing rule, the
 * accumulators' clears, the sums' classes) stop the test if they fire.
 *
 *   test_sa_array [--seed N] [--waves FILE.fst]
 *
 * Stimulus: groups of tiles, random K, random operands of every class (tb_bf16.h). With
 * AccStages = 4 a group holds up to four tiles, one per slot (a step's slot is its cycle mod 4),
 * their steps in rounds of four cycles as the core feeds them (one B step shared, four tiles'
 * A), some slots idle; with 1 a group is one tile. Steps (rounds) are skipped at random, and
 * groups are spaced at random (loose) or as close as the timing rule allows (tight): the
 * earliest last step of a tile in slot s is S - AccStages for the previous tile of that slot
 * (its sum must be read before it is replaced), and with one stage rows must not overlap.
 */
#include "csim/shim/core_sa_array.h"
#include "models/ref/bf16.h"
#include "testbench/core/tb_bf16.h"
#include "testbench/tb_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define N_GROUPS 2000 /* groups per random run */
#define MAX_K    48   /* steps of a tile */
#define SLOTS    4    /* the most tiles interleaved */

static struct tb_args args;

struct tile {
    unsigned k;
    uint16_t *a; /* rows x k, row-major */
    uint16_t *b; /* k x cols */
    uint32_t *c; /* rows x cols: the contract's sums */
};

struct step {     /* what the inputs carry in one cycle */
    int32_t tile; /* -1: idle */
    uint16_t k;
};

struct row_due { /* a row the array owes */
    uint64_t cycle;
    uint32_t tile, row;
};

struct plan {
    struct sa_array_params prm;
    struct tile *tile;
    size_t n_tiles;
    struct step *step; /* per cycle from the first after reset */
    size_t n_cycles, cap_cycles;
    struct row_due *due;
    size_t n_due;
    /* the timing state while groups are placed */
    uint64_t next_free;     /* first cycle after the last group's steps */
    uint64_t reader_free;   /* AccStages 4: the next tile's rows no earlier; 1: rows end */
    uint64_t s_prev[SLOTS]; /* read start of the last tile of each slot */
    bool have_prev[SLOTS];
};

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    assert_non_null(p);
    return p;
}

static void plan_cycles(struct plan *p, uint64_t upto)
{
    if (upto <= p->cap_cycles) {
        if (upto > p->n_cycles)
            p->n_cycles = upto;
        return;
    }
    size_t cap = p->cap_cycles ? p->cap_cycles : 1024;
    while (cap < upto)
        cap *= 2;
    p->step = realloc(p->step, cap * sizeof(*p->step));
    assert_non_null(p->step);
    for (size_t i = p->cap_cycles; i < cap; i++)
        p->step[i] = (struct step){.tile = -1};
    p->cap_cycles = cap;
    p->n_cycles = upto;
}

/* A tile of k steps with random operands and its sums by the contract. */
static uint32_t new_tile(struct plan *p, unsigned k, uint64_t *rng)
{
    unsigned R = p->prm.rows, C = p->prm.cols;
    struct tile *t = &p->tile[p->n_tiles];

    t->k = k;
    t->a = xcalloc((size_t)R * k, sizeof(*t->a));
    t->b = xcalloc((size_t)k * C, sizeof(*t->b));
    t->c = xcalloc((size_t)R * C, sizeof(*t->c));
    for (size_t i = 0; i < (size_t)R * k; i++)
        t->a[i] = rnd_bf16(rng);
    for (size_t i = 0; i < (size_t)k * C; i++)
        t->b[i] = rnd_bf16(rng);
    for (unsigned r = 0; r < R; r++)
        for (unsigned c = 0; c < C; c++) {
            uint32_t acc = fp32_mac_clear(t->a[r * k], t->b[c]);
            for (unsigned i = 1; i < k; i++)
                acc = fp32_mac(acc, t->a[r * k + i], t->b[i * C + c]);
            t->c[r * C + c] = acc;
        }
    return (uint32_t)p->n_tiles++;
}

/*
 * Place one group: tiles in the slots of `mask`, each of k steps, step i in round rounds[i]
 * (cycle base + A * round + slot; A = 1: base + round). The group moves later, A cycles at a
 * time, until the timing rule holds; then its steps and the rows it owes are recorded.
 */
static void place_group(struct plan *p, unsigned mask, unsigned k, const unsigned *rounds,
                        uint64_t base, uint64_t *rng)
{
    const unsigned A = p->prm.acc_stages, R = p->prm.rows, C = p->prm.cols;
    uint64_t s_of[SLOTS] = {0};

    for (;; base += A) {
        bool ok = true;
        uint64_t reader = p->reader_free;
        for (unsigned s = 0; s < A && ok; s++) {
            if (!(mask >> s & 1))
                continue;
            uint64_t x = base + (uint64_t)A * rounds[k - 1] + s;
            if (p->have_prev[s] && x + A < p->s_prev[s])
                ok = false;
            if (A == 1) {
                s_of[s] = x + C + 1;
                ok = ok && s_of[s] >= reader;
            } else {
                s_of[s] = x + C + 4 > reader ? x + C + 4 : reader;
            }
            reader = s_of[s] + R;
        }
        if (ok) {
            p->reader_free = reader;
            break;
        }
    }
    for (unsigned s = 0; s < A; s++) {
        if (!(mask >> s & 1))
            continue;
        uint32_t id = new_tile(p, k, rng);
        for (unsigned i = 0; i < k; i++) {
            uint64_t cyc = base + (uint64_t)A * rounds[i] + s;
            plan_cycles(p, cyc + 1);
            p->step[cyc] = (struct step){.tile = (int32_t)id, .k = (uint16_t)i};
        }
        for (unsigned r = 0; r < R; r++)
            p->due[p->n_due++] = (struct row_due){.cycle = s_of[s] + r + 1, .tile = id, .row = r};
        p->s_prev[s] = s_of[s];
        p->have_prev[s] = true;
    }
    p->next_free = base + (uint64_t)A * (rounds[k - 1] + 1);
}

static void plan_random(struct plan *p, const struct sa_array_params *prm, unsigned groups,
                        bool tight, uint64_t *rng)
{
    const unsigned A = prm->acc_stages;
    unsigned rounds[MAX_K];

    memset(p, 0, sizeof(*p));
    p->prm = *prm;
    p->tile = xcalloc((size_t)groups * SLOTS, sizeof(*p->tile));
    p->due = xcalloc((size_t)groups * SLOTS * prm->rows, sizeof(*p->due));
    for (unsigned g = 0; g < groups; g++) {
        /* K: short tiles (below the drain) and long ones */
        unsigned kmax = rng_next(rng) % 2 ? 4 : MAX_K;
        unsigned k = 1 + (unsigned)(rng_next(rng) % kmax);
        unsigned mask = 1;
        if (A == SLOTS)
            mask = rng_next(rng) % 4 ? 0xf : 1 + (unsigned)(rng_next(rng) % 15);
        rounds[0] = 0;
        for (unsigned i = 1; i < k; i++)
            rounds[i] =
                rounds[i - 1] + 1 + (!tight && rng_next(rng) % 8 == 0 ? 1 + rng_next(rng) % 2 : 0);
        uint64_t base = (p->next_free + A - 1) / A * A;
        if (!tight && rng_next(rng) % 4 == 0)
            base += (uint64_t)A * (rng_next(rng) % (rng_next(rng) % 8 == 0 ? 40 : 5));
        place_group(p, mask, k, rounds, base, rng);
    }
    plan_cycles(p, p->due[p->n_due - 1].cycle + 16);
}

static void plan_free(struct plan *p)
{
    for (size_t i = 0; i < p->n_tiles; i++) {
        free(p->tile[i].a);
        free(p->tile[i].b);
        free(p->tile[i].c);
    }
    free(p->tile);
    free(p->step);
    free(p->due);
}

static struct sa_array_rtl *dut_open(struct sa_array_params *prm)
{
    struct sa_array_rtl *d = sa_array_rtl_create(args.seed);
    assert_non_null(d);
    sa_array_rtl_params(d, prm);
    assert_true(prm->rows >= 1 && prm->rows <= SA_ARRAY_MAX_LANES);
    assert_true(prm->cols >= 1 && prm->cols <= SA_ARRAY_MAX_LANES);
    assert_true(prm->acc_stages == 1 || prm->acc_stages == SLOTS);
    struct sa_array_in in = {.rst = true};
    sa_array_rtl_set(d, &in);
    sa_array_rtl_step(d, 2);
    return d;
}

/* Run the plan's cycles: drive each one's step (idle: garbage operands, flags that valid
 * low must mask) and check the row out against the rows owed. */
static void run_plan(struct sa_array_rtl *d, const struct plan *p, uint64_t *rng)
{
    const unsigned R = p->prm.rows, C = p->prm.cols;
    size_t next = 0;
    uint64_t rows = 0;

    for (uint64_t t = 0; t < p->n_cycles; t++) {
        struct sa_array_in in = {0};
        const struct step *st = &p->step[t];
        if (st->tile >= 0) {
            const struct tile *tl = &p->tile[st->tile];
            in.valid = true;
            in.clear = st->k == 0;
            in.last = st->k + 1u == tl->k;
            for (unsigned r = 0; r < R; r++)
                in.a[r] = tl->a[r * tl->k + st->k];
            for (unsigned c = 0; c < C; c++)
                in.b[c] = tl->b[st->k * C + c];
        } else {
            in.clear = rng_next(rng) & 1;
            in.last = rng_next(rng) & 1;
            for (unsigned r = 0; r < R; r++)
                in.a[r] = (uint16_t)rng_next(rng);
            for (unsigned c = 0; c < C; c++)
                in.b[c] = (uint16_t)rng_next(rng);
        }
        sa_array_rtl_set(d, &in);

        struct sa_array_out out;
        sa_array_rtl_get(d, &out);
        bool owed = next < p->n_due && p->due[next].cycle == t;
        if (out.row_valid != owed)
            fail_msg("seed %llu cycle %llu: row_valid %d, expected %d%s",
                     (unsigned long long)args.seed, (unsigned long long)t, out.row_valid, owed,
                     next < p->n_due ? "" : " (every row is out)");
        if (owed) {
            const struct row_due *w = &p->due[next++];
            const struct tile *tl = &p->tile[w->tile];
            for (unsigned c = 0; c < C; c++)
                if (out.row_sum[c] != tl->c[w->row * C + c])
                    fail_msg("seed %llu cycle %llu: tile %u (k %u) row %u column %u: array "
                             "0x%08x, fp32_mac 0x%08x",
                             (unsigned long long)args.seed, (unsigned long long)t, w->tile, tl->k,
                             w->row, c, out.row_sum[c], tl->c[w->row * C + c]);
            rows++;
        }
        sa_array_rtl_step(d, 1);
    }
    assert_int_equal(next, p->n_due);
    printf("# %zu tiles, %llu rows checked in %zu cycles\n", p->n_tiles, (unsigned long long)rows,
           p->n_cycles);
}

static void reset_leaves_it_idle(void **state)
{
    (void)state;
    struct sa_array_params prm;
    struct sa_array_rtl *d = dut_open(&prm);
    struct plan p = {.prm = prm};
    uint64_t rng = args.seed;

    plan_cycles(&p, 64);
    run_plan(d, &p, &rng); /* no step: no row may come out */
    free(p.step);
    sa_array_rtl_destroy(d);
}

static void run_random(bool tight, uint64_t salt)
{
    struct sa_array_params prm;
    struct sa_array_rtl *d = dut_open(&prm);
    struct plan p;
    uint64_t rng = args.seed ^ salt;

    if (args.waves && !tight) {
        struct vtrace_opts o = {.path = args.waves,
                                .first_cycle = args.first_cycle,
                                .last_cycle = args.last_cycle,
                                .scopes = args.scopes};
        assert_int_equal(sa_array_rtl_trace(d, &o), 0);
    }
    plan_random(&p, &prm, N_GROUPS, tight, &rng);
    run_plan(d, &p, &rng);
    plan_free(&p);
    assert_int_equal(sa_array_rtl_trace_close(d), 0);
    sa_array_rtl_destroy(d);
}

static void random_groups_spaced_at_random(void **state)
{
    (void)state;
    run_random(false, 0x5a11a7);
}

static void random_groups_as_close_as_the_rule_allows(void **state)
{
    (void)state;
    run_random(true, 0x7167);
}

int main(int argc, char **argv)
{
    if (tb_parse_args(argc, argv, &args) != 0)
        return 2;
    printf("# sa_array, seed %llu\n", (unsigned long long)args.seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reset_leaves_it_idle),
        cmocka_unit_test(random_groups_spaced_at_random),
        cmocka_unit_test(random_groups_as_close_as_the_rule_allows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
