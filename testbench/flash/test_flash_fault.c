/*
 * Unit tests of models/flash/flash_fault: the RBER model against its two ratings, the ECC's
 * decode-failure probability against a direct binomial sum, read retries and uncorrectable
 * reads, reproducible draws, dead dies, channels and power, and the --fault grammar.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/flash/flash_fault.h"

static struct flash_fault *make(const struct flash_fault_cfg *c)
{
    struct flash_fault *f;
    struct err e = {{0}};

    if (flash_fault_create(c, &f, &e))
        fail_msg("%s", e.msg);
    return f;
}

static struct flash_fault *make_default(void)
{
    struct flash_fault_cfg c;

    flash_fault_cfg_default(&c);
    return make(&c);
}

/* P(X > t), X ~ Binomial(n, p): the pmf's terms above t summed, by their recurrence in long
 * double from P(X = 0). */
static double binomial_tail(uint32_t n, uint32_t t, double p)
{
    long double pmf = powl(1.0L - p, n), tail = 0.0L;

    for (uint32_t k = 0; k < n; k++) {
        if (k > t)
            tail += pmf;
        pmf *= (long double)(n - k) / (k + 1) * p / (1.0L - p);
    }
    return (double)(tail + pmf);
}

static void test_ratings(void **state)
{
    struct flash_fault *f = make_default();
    double rated = flash_fault_rated_rber(f);

    (void)state;
    /* Table 2's two ratings both sit at the rated RBER */
    assert_true(fabs(flash_fault_rber(f, 50000, 365.25 * 86400) / rated - 1) < 1e-9);
    assert_true(fabs(flash_fault_rber(f, 2000000, 86400) / rated - 1) < 1e-9);
    /* so the V stream's 2M cycles at a year of retention is far beyond it, and the NV
     * stream's 50K at a day far within */
    assert_true(flash_fault_rber(f, 2000000, 365.25 * 86400) > 100 * rated);
    /* the power law past any meaning: held at 0.5, a bit read at random */
    assert_true(flash_fault_rber(f, 4000000000u, 1e12) == 0.5);
    assert_true(flash_fault_rber(f, 50000, 86400) < rated / 10);
    /* growth in both */
    assert_true(flash_fault_rber(f, 1000, 3600) < flash_fault_rber(f, 2000, 3600));
    assert_true(flash_fault_rber(f, 1000, 3600) < flash_fault_rber(f, 1000, 7200));
    /* fresh: rber0 */
    assert_true(fabs(flash_fault_rber(f, 0, 0) - 1e-8) < 1e-20);
    /* a codeword fails its first decode at the rating with the rated probability */
    assert_true(fabs(flash_fault_cw_fail(f, rated) / 1e-6 - 1) < 0.01);
    flash_fault_destroy(f);
}

static void test_decode_failure(void **state)
{
    static const double ps[] = {5e-4, 1e-3, 2e-3, 4e-3, 6e-3};
    struct flash_fault *f = make_default();

    (void)state;
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        double want = binomial_tail(8192, 40, ps[i]), got = flash_fault_cw_fail(f, ps[i]);
        if (fabs(got / want - 1) > 0.02)
            fail_msg("RBER %g: P(fail) %g, the binomial sum %g", ps[i], got, want);
    }
    assert_true(flash_fault_cw_fail(f, 0.0) == 0.0);
    assert_true(flash_fault_cw_fail(f, 1e-9) < 1e-100);
    assert_true(flash_fault_cw_fail(f, 0.5) > 0.999);
    flash_fault_destroy(f);
}

static void test_retries(void **state)
{
    struct flash_fault *f = make_default();
    struct flash_fault_stats st;
    double rated = flash_fault_rated_rber(f);
    int hist[10] = {0};

    (void)state;
    for (int i = 0; i < 1000; i++)
        assert_int_equal(flash_fault_read(f, 4096, rated / 10), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(flash_fault_read(f, 4096, 0.4), -1);
    /* at twice the rating most pages need a retry or more, none fails */
    for (int i = 0; i < 2000; i++) {
        int r = flash_fault_read(f, 4096, 2 * rated);
        assert_true(r >= 0 && r <= 8);
        hist[r]++;
    }
    /* (a page of 4 codewords fails its first decode with probability 0.52 there, the first
     * retry's, at 1.6x the rating, with 0.045; rated RBER 2.1e-3) */
    assert_in_range(hist[0], 800, 1050);
    assert_in_range(hist[1], 900, 1150);
    assert_int_equal(hist[0] + hist[1] + hist[2], 2000);
    flash_fault_get_stats(f, &st);
    assert_int_equal(st.pages_checked, 3100);
    assert_int_equal(st.uncorrectable, 100);
    assert_int_equal(st.pages_retried, 100 + 2000 - hist[0]);
    flash_fault_destroy(f);
}

static void test_reproducible(void **state)
{
    struct flash_fault_cfg c;
    struct flash_fault *a, *b, *d;
    int same = 0, differ = 0;

    (void)state;
    flash_fault_cfg_default(&c);
    a = make(&c);
    b = make(&c);
    c.seed = 7;
    d = make(&c);
    for (int i = 0; i < 500; i++) {
        double r = 5 * flash_fault_rated_rber(a);
        int x = flash_fault_read(a, 4096, r), y = flash_fault_read(b, 4096, r),
            z = flash_fault_read(d, 4096, r);
        same += x == y;
        differ += x != z;
    }
    assert_int_equal(same, 500);
    assert_true(differ > 0);
    flash_fault_destroy(a);
    flash_fault_destroy(b);
    flash_fault_destroy(d);
}

static void test_dead_and_power(void **state)
{
    struct flash_fault_cfg c;
    struct flash_fault *f;
    struct flash_fault_stats st;
    struct err e = {{0}};

    (void)state;
    flash_fault_cfg_default(&c);
    assert_int_equal(flash_fault_parse(&c, "die:ch=3,die=1,at=2ms", &e), 0);
    assert_int_equal(flash_fault_parse(&c, "channel:ch=5,at=1s", &e), 0);
    assert_int_equal(flash_fault_parse(&c, "power:at=10s", &e), 0);
    f = make(&c);
    assert_int_equal(flash_fault_alive(f, 3, 1, 1999999999, &e), 0);
    assert_int_equal(flash_fault_alive(f, 3, 1, 2000000000, &e), -EIO);
    assert_msg_has(e.msg, "die 1 of channel 3 stopped answering at 2.000000 ms");
    assert_int_equal(flash_fault_alive(f, 3, 0, 5000000000, &e), 0);
    assert_int_equal(flash_fault_alive(f, 5, 7, 1000000000000ull, &e), -EIO);
    assert_msg_has(e.msg, "channel 5 stopped answering");
    assert_int_equal(flash_fault_alive(f, 0, 0, 10000000000000ull, &e), -EIO);
    assert_msg_has(e.msg, "power lost at 10000.000000 ms");
    flash_fault_get_stats(f, &st);
    assert_int_equal(st.refused_dead, 2);
    assert_int_equal(st.refused_power, 1);
    flash_fault_destroy(f);
}

static void test_program_failures(void **state)
{
    struct flash_fault_cfg c;
    struct flash_fault *f;
    struct flash_fault_stats st;
    struct err e = {{0}};
    int n = 0;

    (void)state;
    flash_fault_cfg_default(&c);
    assert_int_equal(flash_fault_parse(&c, "program:rate=0.01", &e), 0);
    f = make(&c);
    for (int i = 0; i < 100000; i++)
        n += flash_fault_program_fails(f, 0, 64);
    assert_in_range(n, 850, 1150);
    flash_fault_get_stats(f, &st);
    assert_int_equal(st.program_failures, (uint64_t)n);
    flash_fault_destroy(f);
}

/* Wear-out: the curve passes through its rating, the per-operation draws follow the hazard at
 * the aged P/E, the fast path's geometric runs match it, and the draws repeat with the seed. */
static void test_wear_out(void **state)
{
    struct flash_fault_cfg c;
    struct flash_fault *f, *g;
    struct flash_fault_stats st;
    struct err e = {{0}};
    uint64_t np = 0, ne = 0, runs = 0, clean = 0;
    double h;

    (void)state;
    flash_fault_cfg_default(&c);
    f = make(&c);
    assert_true(flash_fault_wear_hazard(f, 4000000) == 0.0); /* off by default */
    flash_fault_destroy(f);
    assert_int_equal(flash_fault_parse(&c, "wear:pe=1000,bad=0.1,shape=3", &e), 0);
    assert_int_equal(flash_fault_parse(&c, "age:pe=2000,days=0", &e), 0);
    f = make(&c);
    /* F(1000) = 0.1; the hazard grows as P/E^(shape - 1): aged 4000 is 2^2 = 4x aged 2000 */
    assert_true(fabs(flash_fault_wear_failed(f, 1000) - 0.1) < 1e-12);
    assert_true(fabs(flash_fault_wear_hazard(f, 2000) / flash_fault_wear_hazard(f, 0) - 4.0) <
                1e-9);
    h = flash_fault_wear_hazard(f, 0); /* 2000 aged: 3 x 0.10536 x 4 / 1000 = 1.264e-3 */
    assert_true(fabs(h / (3.0 * -log(0.9) * 4.0 / 1000.0) - 1.0) < 1e-9);
    /* each program fails with h / 2 / pages, each erase with h / 2 */
    for (int i = 0; i < 2000000; i++)
        np += flash_fault_program_fails(f, 0, 4);
    for (int i = 0; i < 2000000; i++)
        ne += flash_fault_erase_fails(f, 0);
    assert_in_range(np, (uint64_t)(2e6 * h / 8 * 0.9), (uint64_t)(2e6 * h / 8 * 1.1));
    assert_in_range(ne, (uint64_t)(2e6 * h / 2 * 0.95), (uint64_t)(2e6 * h / 2 * 1.05));
    flash_fault_get_stats(f, &st);
    assert_int_equal(st.program_failures, np);
    assert_int_equal(st.erase_failures, ne);
    /* the fast path: a run of clean programs, the one after fails; mean 1 / p - 1 */
    for (int i = 0; i < 20000; i++) {
        uint64_t k = flash_fault_clean_programs(f, 0, 4, UINT64_MAX);
        flash_fault_skip_programs(f, k);
        assert_true(flash_fault_program_fails(f, 0, 4));
        clean += k;
        runs++;
    }
    assert_in_range(clean / runs, (uint64_t)(8 / h * 0.95), (uint64_t)(8 / h * 1.05));
    /* the same seed draws the same failures */
    g = make(&c);
    flash_fault_destroy(f);
    f = make(&c);
    for (int i = 0; i < 100000; i++) {
        assert_int_equal(flash_fault_program_fails(f, (uint32_t)i % 5000, 64),
                         flash_fault_program_fails(g, (uint32_t)i % 5000, 64));
        assert_int_equal(flash_fault_erase_fails(f, 100), flash_fault_erase_fails(g, 100));
    }
    flash_fault_destroy(f);
    flash_fault_destroy(g);
    /* bad values are refused naming them */
    flash_fault_cfg_default(&c);
    assert_int_equal(flash_fault_parse(&c, "wear:bad=1", &e), -EINVAL);
    assert_msg_has(e.msg, "bad=1; accepted a number in 1e-09..0.999");
    assert_int_equal(flash_fault_parse(&c, "wear:shape=0.5", &e), -EINVAL);
    assert_int_equal(flash_fault_parse(&c, "wear:life=3", &e), -EINVAL);
    assert_msg_has(e.msg, "unknown key 'life'; this kind takes pe=N,bad=F,shape=B");
    assert_false(c.wear);
    assert_int_equal(flash_fault_parse(&c, "wear", &e), 0);
    assert_true(c.wear && c.wear_pe == 2e6 && c.wear_bad == 0.02 && c.wear_shape == 4.0);
}

/* Per-node seeds: reproducible, different per node and per run seed, never 0; a node's age
 * (node=) overrides the one given for all for its kind only. */
static void test_node_seed_and_age(void **state)
{
    struct flash_fault_cfg c, an, wn;
    struct err e = {{0}};

    (void)state;
    assert_int_equal(flash_fault_node_seed(7, 3), flash_fault_node_seed(7, 3));
    assert_true(flash_fault_node_seed(7, 0) != flash_fault_node_seed(7, 1));
    assert_true(flash_fault_node_seed(7, 0) != flash_fault_node_seed(8, 0));
    assert_true(flash_fault_node_seed(1, FLASH_FAULT_NODE_WN) != flash_fault_node_seed(1, 0));
    for (uint32_t i = 0; i < 1000; i++)
        assert_true(flash_fault_node_seed(i, i) != 0);
    flash_fault_cfg_default(&c);
    assert_int_equal(flash_fault_parse(&c, "age:pe=100,days=1", &e), 0);
    assert_int_equal(flash_fault_parse(&c, "age:pe=700,days=0,node=wn", &e), 0);
    an = wn = c;
    flash_fault_cfg_for_node(&an, 2);
    flash_fault_cfg_for_node(&wn, FLASH_FAULT_NODE_WN);
    assert_int_equal(an.age_pe, 100);
    assert_true(an.age_s == 86400.0);
    assert_int_equal(wn.age_pe, 700);
    assert_true(wn.age_s == 0.0);
    assert_int_equal(an.seed, flash_fault_node_seed(1, 2));
    assert_int_equal(wn.seed, flash_fault_node_seed(1, FLASH_FAULT_NODE_WN));
    assert_int_equal(flash_fault_parse(&c, "age:pe=1,days=0,node=ssd", &e), -EINVAL);
    assert_msg_has(e.msg, "node=ssd; accepted an or wn");
}

static void test_grammar(void **state)
{
    static const struct {
        const char *spec, *needle;
    } bad[] = {
        {"bitrot:x=2", "unknown kind 'bitrot'; accepted rber, age, program"},
        {"rber", "no x=; this kind takes x=F"},
        {"rber:y=2", "unknown key 'y'; this kind takes x=F"},
        {"rber:x=-1", "x=-1; accepted a number in 0..1e+12"},
        {"rber:x= 2", "x= 2; accepted a number"},
        {"rber:x", "'x' is not KEY=VALUE"},
        {"program:rate=1.5", "rate=1.5; accepted a number in 0..1"},
        {"die:ch=1,at=3ms", "no die=; this kind takes ch=C,die=D,at=T"},
        {"die:ch=1,die=0,at=3", "at=3; accepted a time >= 0 with a unit"},
        {"channel:ch=1.5,at=1s", "ch=1.5; accepted an integer"},
        {"age:pe=10", "no days=; this kind takes pe=N,days=D"},
        {"seed:n=0", "n=0; accepted a number in 1.."},
        {"seed", "no n=; this kind takes n=S"},
        {"age:pe=10,days=x", "days=x; accepted a number"},
    };
    struct flash_fault_cfg c;
    struct err e = {{0}};

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct flash_fault_cfg before;
        flash_fault_cfg_default(&c);
        before = c;
        if (flash_fault_parse(&c, bad[i].spec, &e) != -EINVAL)
            fail_msg("'%s' accepted", bad[i].spec);
        assert_msg_has(e.msg, bad[i].needle);
        assert_memory_equal(&c, &before, sizeof(c)); /* nothing applied, not even in part */
    }
    flash_fault_cfg_default(&c);
    assert_int_equal(flash_fault_parse(&c, "rber:x=10", &e), 0);
    assert_int_equal(flash_fault_parse(&c, "age:pe=1000,days=30", &e), 0);
    assert_int_equal(flash_fault_parse(&c, "seed:n=42", &e), 0);
    assert_true(c.on && c.rber_x == 10.0 && c.age_pe == 1000 && c.age_s == 30 * 86400.0 &&
                c.seed == 42);
    for (int i = 0; i < FLASH_FAULT_MAX_DEAD; i++)
        assert_int_equal(flash_fault_parse(&c, "die:ch=0,die=0,at=1us", &e), 0);
    assert_int_equal(flash_fault_parse(&c, "die:ch=0,die=0,at=1us", &e), -EINVAL);
    assert_msg_has(e.msg, "more than 16 dies and channels");
}

static void test_ageing_scales(void **state)
{
    struct flash_fault_cfg c;
    struct flash_fault *f, *g;
    struct err e = {{0}};

    (void)state;
    flash_fault_cfg_default(&c);
    f = make(&c);
    assert_int_equal(flash_fault_parse(&c, "age:pe=1000,days=1", &e), 0);
    assert_int_equal(flash_fault_parse(&c, "rber:x=3", &e), 0);
    g = make(&c);
    assert_true(fabs(flash_fault_rber(g, 500, 0) / (3 * flash_fault_rber(f, 1500, 86400)) - 1) <
                1e-12);
    flash_fault_destroy(f);
    flash_fault_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratings),        cmocka_unit_test(test_decode_failure),
        cmocka_unit_test(test_retries),        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_dead_and_power), cmocka_unit_test(test_program_failures),
        cmocka_unit_test(test_grammar),        cmocka_unit_test(test_ageing_scales),
        cmocka_unit_test(test_wear_out),       cmocka_unit_test(test_node_seed_and_age),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
