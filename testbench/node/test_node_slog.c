/*
 * test_node_slog: the record log on a flash stream (models/node/slog.h) and the node flash
 * around it (models/node/nflash.h): records at page granularity, logical blocks released only
 * when empty and left behind by the append point, the fresh-block alignment, wrap-around, a
 * full log, and the bytes of records coming back, through the flash model's pages and through
 * the record store.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/node/nflash.h"

/* 2 dies x 2 planes x 4 pages of 4 KiB: 16 pages (64 KiB) per logical block. */
#define SBP  16u
#define PAGE 4096u

struct fx {
    struct flash_cfg cfg;
    struct dram *tb;
    struct nflash fl;
    int v;
};

static struct fx *fx_open(bool payload)
{
    struct err e;
    struct fx *f = calloc(1, sizeof(*f));
    struct dram_cfg dc;
    struct ftl_layout lay;
    static const char *const names[2] = {"NV", "V"};
    assert_non_null(f);
    flash_cfg_default(&f->cfg);
    f->cfg.geom.channels = 2;
    f->cfg.geom.chips_per_chan = 1;
    f->cfg.geom.planes_per_die = 2;
    f->cfg.geom.pages_per_block = 4;
    f->cfg.sw.store_payload = payload;
    dram_cfg_default(&dc);
    assert_int_equal(dram_create(&dc, &f->tb, &e), 0);
    ftl_layout_an(&lay);
    if (nflash_init(&f->fl, &f->cfg, &lay, names, 2, f->tb, &e))
        fail_msg("%s", e.msg);
    f->v = nflash_stream(&f->fl, "V");
    assert_int_equal(f->v, 1);
    assert_int_equal(f->fl.log[f->v].sbp, SBP);
    return f;
}

static void fx_close(struct fx *f)
{
    nflash_fini(&f->fl);
    dram_destroy(f->tb);
    free(f);
}

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 131 + i * 7);
}

/* Write records from the tensor buffer, read them back elsewhere: the same bytes. */
static void round_trip(bool payload)
{
    struct err e;
    struct fx *f = fx_open(payload);
    static unsigned char a[3 * PAGE + 100], b[sizeof(a)];
    struct slog_ext x[3];
    uint64_t t = 0, done, free_at;
    for (int i = 0; i < 3; i++) {
        size_t n = sizeof(a) - 1000 * (size_t)i;
        fill(a, n, (unsigned)i + 1);
        assert_int_equal(dram_write(f->tb, 0x10000, a, n), 0);
        assert_int_equal(nflash_write_tb(&f->fl, f->v, t, 0x10000, n, &x[i], &done, &free_at, &e),
                         0);
        assert_true(free_at <= done && free_at > t);
        assert_int_equal(x[i].pages, (n + PAGE - 1) / PAGE);
        t = done;
    }
    assert_int_equal(x[1].lpn, x[0].lpn + x[0].pages); /* records start on pages */
    for (int i = 0; i < 3; i++) {
        size_t n = sizeof(a) - 1000 * (size_t)i;
        fill(a, n, (unsigned)i + 1);
        assert_int_equal(nflash_read_tb(&f->fl, f->v, t, &x[i], 0x80000, &done, NULL, &e), 0);
        assert_true(done > t);
        assert_int_equal(dram_read(f->tb, 0x80000, b, n), 0);
        assert_memory_equal(a, b, n);
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(nflash_free(&f->fl, f->v, t, &x[i], &e), 0);
    assert_int_equal(f->fl.log[f->v].live_pages, 0);
    fx_close(f);
}

static void test_round_trip_flash_pages(void **state)
{
    (void)state;
    round_trip(true);
}

static void test_round_trip_record_store(void **state)
{
    (void)state;
    round_trip(false);
}

/* Blocks are released when empty and closed; alignment closes the open one. */
static void test_release_rules(void **state)
{
    struct err e = {""};
    struct fx *f = fx_open(false);
    struct slog *l = &f->fl.log[f->v];
    struct slog_ext x[4];
    uint64_t done;
    (void)state;

    /* 10 + 10 pages: the second record crosses into LB 1 */
    assert_int_equal(slog_append(l, 0, NULL, 10 * PAGE, &x[0], &done, &e), 0);
    assert_int_equal(slog_append(l, 0, NULL, 10 * PAGE, &x[1], &done, &e), 0);
    assert_int_equal(x[1].lpn, 10);
    assert_int_equal(l->live[0], 16);
    assert_int_equal(l->live[1], 4);
    assert_int_equal(slog_free(l, 0, &x[0], &done, &e), 0);
    assert_int_equal(l->released, 0); /* LB 0 still holds 6 pages of x[1] */
    assert_int_equal(slog_free(l, 0, &x[1], &done, &e), 0);
    assert_int_equal(l->released, 1); /* LB 0 empty and closed; LB 1 empty but open */
    assert_false(l->mapped[0]);
    assert_true(l->mapped[1]);
    assert_int_equal(slog_align(l, 0, &done, &e), 0); /* closes LB 1: released */
    assert_int_equal(l->released, 2);
    assert_true(done > 0); /* its erase takes time */
    assert_int_equal(l->append, 2 * SBP);
    assert_int_equal(slog_align(l, 0, &done, &e), 0); /* already aligned: nothing */
    assert_int_equal(l->released, 2);

    /* a record that fills its LB exactly closes it: freeing it releases the LB at once */
    assert_int_equal(slog_append(l, 0, NULL, SBP * PAGE, &x[2], &done, &e), 0);
    assert_int_equal(l->append, 3 * SBP);
    assert_int_equal(slog_free(l, 0, &x[2], &done, &e), 0);
    assert_int_equal(l->released, 3);
    /* a partly filled LB stays while open, even empty */
    assert_int_equal(slog_append(l, 0, NULL, 8 * PAGE, &x[3], &done, &e), 0);
    assert_int_equal(slog_free(l, 0, &x[3], &done, &e), 0);
    assert_int_equal(l->released, 3);
    assert_true(l->mapped[3]);
    fx_close(f);
}

/* The log wraps at the end of the logical space and refuses to overwrite live records. */
static void test_wrap_and_full(void **state)
{
    struct err e = {""};
    struct fx *f = fx_open(false);
    struct slog *l = &f->fl.log[f->v];
    uint32_t n_lb = l->n_lb;
    struct slog_ext *x = calloc(n_lb + 2, sizeof(*x));
    uint64_t done;
    (void)state;
    assert_non_null(x);
    for (uint32_t i = 0; i < n_lb; i++) /* one LB per record fills the log */
        assert_int_equal(slog_append(l, 0, NULL, SBP * PAGE, &x[i], &done, &e), 0);
    assert_int_equal(l->append, 0); /* wrapped */
    int rc = slog_append(l, 0, NULL, PAGE, &x[n_lb], &done, &e);
    assert_int_equal(rc, -ENOSPC);
    assert_non_null(strstr(e.msg, "is full"));
    assert_int_equal(slog_free(l, 0, &x[0], &done, &e), 0); /* LB 0 consumed: room again */
    assert_int_equal(slog_append(l, 0, NULL, PAGE, &x[n_lb], &done, &e), 0);
    assert_int_equal(x[n_lb].lpn, 0);
    /* a record larger than the stream */
    assert_int_equal(
        slog_append(l, 0, NULL, (uint64_t)(n_lb + 1) * SBP * PAGE, &x[n_lb + 1], &done, &e),
        -ENOSPC);
    /* freeing twice is caught */
    assert_int_equal(slog_free(l, 0, &x[n_lb], &done, &e), 0);
    assert_int_equal(slog_free(l, 0, &x[n_lb], &done, &e), -EINVAL);
    free(x);
    fx_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_flash_pages),
        cmocka_unit_test(test_round_trip_record_store),
        cmocka_unit_test(test_release_rules),
        cmocka_unit_test(test_wrap_and_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
