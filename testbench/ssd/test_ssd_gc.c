/*
 * test_ssd_gc: the SSD's garbage collection: write amplification of uniformly random 4 KiB
 * writes at steady state within 10% of the mean-field model of greedy GC (ssd_wa.h) at the
 * paper's 7% over-provisioning and at 28%; a short window right after preconditioning at the
 * run's queue depth continues its steady state; in functional mode every page reads back byte for
 * byte after GC has moved pages (from SRAM and from NAND, before and after a flush); background
 * GC keeps up without stalling the host when the host leaves it time, and is forced (the host
 * waits) when the host does not.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csim/rng.h"
#include "models/ssd/ssd.h"
#include "models/ssd/ssd_wa.h"

/* Two dies (two channels), 2 planes, 1024 blocks of 32 pages: 2 x 1024 units of 64 pages,
 * 512 MiB. */
static void wa_cfg(struct ssd_cfg *c, double op)
{
    ssd_cfg_default(c);
    c->nand.geom.channels = 2;
    c->nand.geom.chips_per_chan = 1;
    c->nand.geom.planes_per_die = 2;
    c->nand.geom.blocks_per_plane = 1024;
    c->nand.geom.pages_per_block = 32;
    c->nand.sw.store_payload = false;
    c->op_ppm = (uint32_t)(op * 1e6 + 0.5);
    c->gc_free_urgent = 1;
    c->gc_free_low = 2;
    c->gc_free_high = 3;
    c->sram_bytes = 1u << 20; /* a buffer in proportion to this small drive */
}

/* Steady-state write amplification of random single-page writes against the model. */
static void check_wa(double op)
{
    struct ssd_cfg c;
    struct ssd *s;
    struct err e = {{0}};
    struct ssd_precond p = {.seed = 1};
    struct ssd_precond_result r;
    struct ssd_stats a, b, d;
    uint64_t rng = 99, t;
    double wa, rho, model;

    wa_cfg(&c, op);
    assert_int_equal(ssd_create(&c, &s, &e), 0);
    assert_int_equal(ssd_precondition(s, 0, &p, &r, &e), 0);
    assert_true(r.steady);
    ssd_stats(s, &a);
    t = r.t_end;
    for (uint64_t i = 0; i < 2 * ssd_user_pages(s); i++)
        assert_int_equal(ssd_write(s, t, rng_below(&rng, ssd_user_pages(s)), 1, NULL, &t, &e), 0);
    ssd_stats(s, &b);
    ssd_stats_sub(&d, &b, &a);
    wa = ssd_stats_wa(&d);
    rho = ssd_wa_util(ssd_get_geom(s), ssd_stats_mean_free(&d));
    model = ssd_wa_greedy(ssd_get_geom(s)->unit_pages, rho);
    print_message("op %.2f: preconditioned in %u windows (WA %.3f, %.3f); measured WA %.3f over "
                  "%llu writes, mean free units %.2f, utilisation %.4f: greedy model %.3f "
                  "(%+.1f%%), LRU limit %.3f\n",
                  op, r.windows, r.wa_prev, r.wa_last, wa, (unsigned long long)d.host_write_pages,
                  ssd_stats_mean_free(&d), rho, model, 100.0 * (wa / model - 1.0), ssd_wa_lru(rho));
    assert_true(fabs(wa / model - 1.0) <= 0.10);
    ssd_destroy(s);
}

static void test_wa_at_7_percent_matches_greedy_model(void **state)
{
    (void)state;
    check_wa(0.07);
}

static void test_wa_at_28_percent_matches_greedy_model(void **state)
{
    (void)state;
    check_wa(0.28);
}

/* The WA of n random single-page writes, q in flight from t (each issued when the earliest in
 * flight completes). */
static double window_wa(struct ssd *s, uint64_t n, uint32_t q, uint64_t t, uint64_t *rng)
{
    uint64_t fl[64];
    struct ssd_stats a, b, d;
    struct err e = {{0}};

    assert_true(q <= 64);
    for (uint32_t i = 0; i < q; i++)
        fl[i] = t;
    ssd_stats(s, &a);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t k = 0;

        for (uint32_t j = 1; j < q; j++)
            k = fl[j] < fl[k] ? j : k;
        assert_int_equal(
            ssd_write(s, fl[k], rng_below(rng, ssd_user_pages(s)), 1, NULL, &fl[k], &e), 0);
    }
    ssd_stats(s, &b);
    ssd_stats_sub(&d, &b, &a);
    return ssd_stats_wa(&d);
}

/* A run right after preconditioning continues its steady state when the preconditioning
 * overwrote at the run's queue depth: a short window (a sixteenth of the drive) at QD 64 has
 * the WA of the last preconditioning window within 10%. On the paper's 32 dies and write
 * buffer (units of 768 pages, 128 a die, to keep it short), preconditioning at QD 1 left the
 * window at 27% below its own steady 13.6: background GC had banked free units behind the
 * slower host. */
static void test_precondition_at_run_queue_depth(void **state)
{
    struct ssd_cfg c;
    struct ssd *s;
    struct err e = {{0}};
    struct ssd_precond_result r;
    uint64_t rng = 5;

    (void)state;
    ssd_cfg_default(&c); /* the paper's SSD (units of 6144 pages on 32 dies), 64 units a die */
    c.nand.geom.blocks_per_plane = 128;
    c.nand.geom.pages_per_block = 96;
    c.nand.sw.store_payload = false;
    if (ssd_create(&c, &s, &e))
        fail_msg("%s", e.msg);
    struct ssd_precond p = {.seed = 1, .iodepth = 64};
    assert_int_equal(ssd_precondition(s, 0, &p, &r, &e), 0);
    assert_true(r.steady);
    double wa = window_wa(s, ssd_user_pages(s) / 16, 64, r.t_end, &rng);
    print_message("preconditioned at QD 64: last windows WA %.3f, %.3f; the next sixteenth of "
                  "the drive at QD 64: WA %.3f\n",
                  r.wa_prev, r.wa_last, wa);
    assert_true(fabs(wa / r.wa_last - 1.0) <= 0.10);
    ssd_destroy(s);
}

/* ------------------------------------------------------------------ functional mode */

#define PAGE 4096

/* The bytes of version v of page lpn. */
static void pattern(unsigned char *buf, uint64_t lpn, uint32_t v)
{
    uint64_t x = lpn * 1000003u + v;

    for (size_t i = 0; i < PAGE; i += 8) {
        uint64_t w = rng_next(&x);

        memcpy(buf + i, &w, 8);
    }
}

static void check_all(struct ssd *s, const uint32_t *ver, uint64_t *t)
{
    unsigned char want[PAGE], got[PAGE];
    struct err e = {{0}};

    for (uint64_t lpn = 0; lpn < ssd_user_pages(s); lpn++) {
        assert_int_equal(ssd_read(s, *t, lpn, 1, got, t, &e), 0);
        pattern(want, lpn, ver[lpn]);
        assert_memory_equal(got, want, PAGE);
    }
}

static void test_payload_survives_gc(void **state)
{
    struct ssd_cfg c;
    struct ssd *s;
    struct err e = {{0}};
    struct ssd_stats st;
    unsigned char buf[PAGE * 4], got[PAGE];
    uint64_t rng = 5, t = 0, user;
    uint32_t *ver;

    (void)state;
    /* 2 dies x 2 planes x 64 blocks of 8 pages: units of 16 pages, 25% over-provisioned. */
    wa_cfg(&c, 0.25);
    c.nand.geom.blocks_per_plane = 128;
    c.nand.geom.pages_per_block = 96;
    c.nand.geom.pages_per_block = 8;
    c.nand.sw.store_payload = true;
    c.sram_bytes = 64 * 1024; /* 12 buffered pages, in proportion to this small drive */
    assert_int_equal(ssd_create(&c, &s, &e), 0);
    user = ssd_user_pages(s);
    ver = calloc(user, sizeof(*ver));
    assert_non_null(ver);
    for (uint64_t lpn = 0; lpn < user; lpn++) {
        pattern(buf, lpn, 0);
        assert_int_equal(ssd_write(s, t, lpn, 1, buf, &t, &e), 0);
    }
    /* Random overwrites of 1 to 4 pages; now and then a page read back at once. */
    for (int i = 0; i < 20000; i++) {
        uint64_t lpn = rng_below(&rng, user);
        uint32_t n = 1 + (uint32_t)rng_below(&rng, 4);

        if (lpn + n > user)
            n = (uint32_t)(user - lpn);
        for (uint32_t k = 0; k < n; k++)
            pattern(buf + k * PAGE, lpn + k, ++ver[lpn + k]);
        assert_int_equal(ssd_write(s, t, lpn, n, buf, &t, &e), 0);
        if (i % 7 == 0) {
            uint64_t q = rng_below(&rng, user);

            assert_int_equal(ssd_read(s, t, q, 1, got, &t, &e), 0);
            pattern(buf, q, ver[q]);
            assert_memory_equal(got, buf, PAGE);
        }
    }
    ssd_stats(s, &st);
    print_message("%llu host pages, %llu moved by GC from %llu victims; %llu reads from SRAM\n",
                  (unsigned long long)st.host_write_pages, (unsigned long long)st.gc_pages,
                  (unsigned long long)st.gc_victims, (unsigned long long)st.sram_read_pages);
    assert_true(st.gc_pages > user); /* GC moved more pages than the drive holds */
    assert_true(st.sram_read_pages > 0);
    check_all(s, ver, &t);
    /* Multi-page reads cross rows, units and dies. */
    for (uint64_t lpn = 0; lpn + 4 <= user; lpn += 4) {
        assert_int_equal(ssd_read(s, t, lpn, 4, buf, &t, &e), 0);
        for (uint32_t k = 0; k < 4; k++) {
            pattern(got, lpn + k, ver[lpn + k]);
            assert_memory_equal(buf + k * PAGE, got, PAGE);
        }
    }
    assert_int_equal(ssd_flush(s, t, &t, &e), 0);
    check_all(s, ver, &t);
    /* Every page programmed is accounted for: the host's, GC's moves, padding. */
    ssd_stats(s, &st);
    assert_int_equal(st.prog_pages, st.host_write_pages + st.gc_pages + st.pad_pages);
    free(ver);
    ssd_destroy(s);
}

/* ------------------------------------------------------------------ preemptible and forced */

static void test_background_gc_keeps_up_when_given_time(void **state)
{
    struct ssd_cfg c;
    struct ssd *s;
    struct err e = {{0}};
    struct ssd_precond p = {.seed = 3};
    struct ssd_precond_result r;
    struct ssd_stats a, b, d;
    uint64_t rng = 17, t, done, worst = 0;

    (void)state;
    wa_cfg(&c, 0.28);
    c.nand.geom.blocks_per_plane = 256;
    assert_int_equal(ssd_create(&c, &s, &e), 0);
    assert_int_equal(ssd_precondition(s, 0, &p, &r, &e), 0);
    /* One write every 300 us: GC has time for its moves (about 2.5 pages per host page) and
     * runs between the host's programs; the host never waits for it. */
    t = r.t_end + FLASH_PS_PER_S;
    ssd_stats(s, &a);
    for (int i = 0; i < 20000; i++, t += 300 * FLASH_PS_PER_US) {
        assert_int_equal(ssd_write(s, t, rng_below(&rng, ssd_user_pages(s)), 1, NULL, &done, &e),
                         0);
        worst = done - t > worst ? done - t : worst;
    }
    ssd_stats(s, &b);
    ssd_stats_sub(&d, &b, &a);
    /* The host's page waits at most for the firmware work of the GC steps already issued
     * (one per die, a row of moves each), never for GC's NAND work. */
    print_message("spaced writes: %llu victims, %llu forced, worst latency %.3f us\n",
                  (unsigned long long)d.gc_victims, (unsigned long long)d.gc_forced,
                  (double)worst / FLASH_PS_PER_US);
    assert_true(d.gc_victims > 100);
    assert_int_equal(d.gc_forced, 0);
    assert_true(worst <= c.t_fw_page_ps + 2 * 2 * c.t_fw_gc_ps);

    /* Back to back, the host outruns GC: the free pool runs down and GC is forced. */
    ssd_stats(s, &a);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(ssd_write(s, t, rng_below(&rng, ssd_user_pages(s)), 1, NULL, &t, &e), 0);
    ssd_stats(s, &b);
    ssd_stats_sub(&d, &b, &a);
    print_message("back to back: %llu forced GCs, %.3f ms forced, write buffer full %llu "
                  "times\n",
                  (unsigned long long)d.gc_forced, (double)d.gc_forced_ps / FLASH_PS_PER_MS,
                  (unsigned long long)d.wbuf_waits);
    assert_true(d.gc_forced > 0);
    ssd_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wa_at_7_percent_matches_greedy_model),
        cmocka_unit_test(test_wa_at_28_percent_matches_greedy_model),
        cmocka_unit_test(test_precondition_at_run_queue_depth),
        cmocka_unit_test(test_payload_survives_gc),
        cmocka_unit_test(test_background_gc_keeps_up_when_given_time),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
