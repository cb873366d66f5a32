/*
 * test_fabric: the WN <-> AN fan-out tree. Topology (levels, hops, switches); broadcast and
 * reduce times written as sums of named phases (per-hop latency, chunk transfer, switch
 * summation, pipeline fill); a short last chunk; a late AN; contention of overlapping
 * transfers on shared links and adders, and none between the two directions; the loss gather;
 * the functional reduction in node order with values where fp32 order matters; config errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/fabric/fabric.h"

#define US  FABRIC_PS_PER_US
#define KiB 1024ull
#define MiB (1024ull * 1024ull)

static struct fabric *make(uint32_t n_an, uint32_t fanout, uint64_t sum_Bps)
{
    struct fabric_cfg c;
    struct fabric *f;
    struct err e = {{0}};

    fabric_cfg_default(&c);
    c.n_an = n_an;
    c.fanout = fanout;
    if (sum_Bps)
        c.sum_Bps = sum_Bps;
    if (fabric_create(&c, &f, &e))
        fail_msg("%s", e.msg);
    return f;
}

static void test_defaults_and_topology(void **state)
{
    struct fabric_cfg c;
    struct fabric *f;

    (void)state;
    fabric_cfg_default(&c);
    assert_int_equal(c.n_an, 4);
    assert_int_equal(c.fanout, 16);
    assert_int_equal(c.link_Bps, 12500000000ull); /* 100 Gb/s */
    assert_int_equal(c.hop_latency_ps, 1 * US);
    assert_int_equal(c.chunk_bytes, 64 * KiB);
    /* 64 KiB at 12.5 GB/s = 5.24288 us exactly. */
    assert_int_equal(fabric_xfer_ps(&c, 64 * KiB), 5242880);
    assert_int_equal(fabric_xfer_ps(&c, 1), 80); /* 0.08 ns */
    assert_int_equal(fabric_xfer_ps(&c, 0), 0);
    c.link_Bps = 3; /* rounding up: 1 byte at 3 B/s = 333333333333.33 ps */
    assert_int_equal(fabric_xfer_ps(&c, 1), 333333333334ull);
    assert_int_equal(fabric_chunks(&c, 0), 0);
    assert_int_equal(fabric_chunks(&c, 64 * KiB), 1);
    assert_int_equal(fabric_chunks(&c, 64 * KiB + 1), 2);

    struct {
        uint32_t n, fanout, levels, switches;
    } cases[] = {
        {1, 16, 1, 1}, /* at least one level */
        {4, 16, 1, 1}, {16, 16, 1, 1}, {17, 16, 2, 3},
        {4, 2, 2, 3},  {5, 2, 3, 6}, /* 3 leaf switches, 2 in the middle, 1 root */
        {8, 2, 3, 7},  {64, 4, 3, 21},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        f = make(cases[i].n, cases[i].fanout, 0);
        assert_int_equal(fabric_levels(f), cases[i].levels);
        assert_int_equal(fabric_hops(f), cases[i].levels + 1);
        assert_int_equal(fabric_switches(f), cases[i].switches);
        fabric_destroy(f);
    }
}

static void test_broadcast_time(void **state)
{
    struct fabric *f = make(4, 16, 0);
    const struct fabric_cfg *c = fabric_cfg(f);
    uint64_t done[4], last;

    (void)state;
    /* 1 MiB in 16 chunks over 2 hops (WN -> switch -> AN), pipelined. */
    const uint64_t HOPS = 2, CHUNKS = 16;
    const uint64_t T_LAT = c->hop_latency_ps, T_CHUNK = fabric_xfer_ps(c, 64 * KiB);
    assert_int_equal(fabric_broadcast(f, 0, 1 * MiB, done, &last, NULL), 0);
    assert_int_equal(last, HOPS * T_LAT + (CHUNKS + HOPS - 1) * T_CHUNK);
    for (int n = 0; n < 4; n++)
        assert_int_equal(done[n], last); /* every AN is as far from the WN */

    /* Starting later shifts everything; the links are free again by then. */
    const uint64_t START = last + 10 * US;
    assert_int_equal(fabric_broadcast(f, START, 1 * MiB, NULL, &last, NULL), 0);
    assert_int_equal(last, START + HOPS * T_LAT + (CHUNKS + HOPS - 1) * T_CHUNK);

    /* Nothing to send: done at once. */
    assert_int_equal(fabric_broadcast(f, 7, 0, done, &last, NULL), 0);
    assert_int_equal(last, 7);
    assert_int_equal(done[3], 7);
    fabric_destroy(f);

    /* Two levels (F = 2, N = 4): three hops. */
    f = make(4, 2, 0);
    const uint64_t HOPS3 = 3;
    assert_int_equal(fabric_broadcast(f, 0, 1 * MiB, NULL, &last, NULL), 0);
    assert_int_equal(last, HOPS3 * T_LAT + (CHUNKS + HOPS3 - 1) * T_CHUNK);
    fabric_destroy(f);
}

static void test_broadcast_short_last_chunk(void **state)
{
    struct fabric *f = make(2, 16, 0);
    const struct fabric_cfg *c = fabric_cfg(f);
    uint64_t last;

    (void)state;
    /* 100000 B = 65536 + 34464. Hop 1 carries both back to back; on hop 2 the short chunk
     * waits for the full one ahead of it, so it leaves at 2 T_FULL + T_LAT. */
    const uint64_t T_LAT = c->hop_latency_ps;
    const uint64_t T_FULL = fabric_xfer_ps(c, 65536), T_SHORT = fabric_xfer_ps(c, 34464);
    assert_int_equal(fabric_broadcast(f, 0, 100000, NULL, &last, NULL), 0);
    assert_int_equal(last, 2 * T_LAT + 2 * T_FULL + T_SHORT);
    fabric_destroy(f);
}

static void test_reduce_time(void **state)
{
    struct fabric *f = make(4, 16, 0);
    const struct fabric_cfg *c = fabric_cfg(f);
    const uint64_t ready[4] = {0, 0, 0, 0};
    uint64_t done;

    (void)state;
    /* Adders at link rate: AN -> switch, sum, switch -> WN; 16 chunks pipelined. */
    const uint64_t HOPS = 2, LEVELS = 1, CHUNKS = 16;
    const uint64_t T_LAT = c->hop_latency_ps, T_CHUNK = fabric_xfer_ps(c, 64 * KiB);
    const uint64_t T_SUM = fabric_sum_ps(c, 64 * KiB);
    assert_int_equal(T_SUM, T_CHUNK);
    assert_int_equal(fabric_reduce(f, ready, 1 * MiB, &done, NULL), 0);
    assert_int_equal(done, HOPS * (T_LAT + T_CHUNK) + LEVELS * T_SUM + (CHUNKS - 1) * T_CHUNK);
    fabric_destroy(f);

    /* Adders at half the link rate: the adder paces the pipeline. */
    f = make(4, 16, 6250000000ull);
    c = fabric_cfg(f);
    const uint64_t T_SUM_SLOW = fabric_sum_ps(c, 64 * KiB);
    assert_int_equal(T_SUM_SLOW, 2 * T_CHUNK);
    assert_int_equal(fabric_reduce(f, ready, 1 * MiB, &done, NULL), 0);
    assert_int_equal(done,
                     HOPS * (T_LAT + T_CHUNK) + LEVELS * T_SUM_SLOW + (CHUNKS - 1) * T_SUM_SLOW);
    fabric_destroy(f);

    /* Two levels (F = 2, N = 4): three hops, two adders on the way. */
    f = make(4, 2, 0);
    c = fabric_cfg(f);
    const uint64_t HOPS3 = 3, LEVELS2 = 2;
    assert_int_equal(fabric_reduce(f, ready, 1 * MiB, &done, NULL), 0);
    assert_int_equal(done, HOPS3 * (T_LAT + T_CHUNK) + LEVELS2 * T_SUM + (CHUNKS - 1) * T_CHUNK);
    fabric_destroy(f);

    /* One AN late by T_LATE: the sums wait for it, everything shifts by T_LATE. */
    f = make(4, 16, 0);
    const uint64_t T_LATE = 50 * US;
    const uint64_t late[4] = {0, 0, T_LATE, 0};
    assert_int_equal(fabric_reduce(f, late, 1 * MiB, &done, NULL), 0);
    assert_int_equal(done,
                     T_LATE + HOPS * (T_LAT + T_CHUNK) + LEVELS * T_SUM + (CHUNKS - 1) * T_CHUNK);
    fabric_destroy(f);
}

static void test_loss_gather(void **state)
{
    struct fabric *f = make(4, 16, 0);
    const struct fabric_cfg *c = fabric_cfg(f);
    const uint64_t ready[4] = {3 * US, 1 * US, 2 * US, 0};
    uint64_t done;

    (void)state;
    /* One 4-byte chunk from the latest AN: up-link, adder, up-link. */
    const uint64_t T_READY = 3 * US, HOPS = 2, LEVELS = 1;
    const uint64_t T_LAT = c->hop_latency_ps, T_XFER = fabric_xfer_ps(c, 4);
    const uint64_t T_SUM = fabric_sum_ps(c, 4);
    assert_int_equal(fabric_gather_loss(f, ready, &done, NULL), 0);
    assert_int_equal(done, T_READY + HOPS * (T_LAT + T_XFER) + LEVELS * T_SUM);
    fabric_destroy(f);
}

static void test_contention(void **state)
{
    struct fabric *f = make(4, 16, 0);
    const struct fabric_cfg *c = fabric_cfg(f);
    const uint64_t ready[4] = {0, 0, 0, 0};
    uint64_t first, second, up, up2;
    struct fabric_stats st;

    (void)state;
    const uint64_t HOPS = 2, LEVELS = 1, CHUNKS = 16;
    const uint64_t T_LAT = c->hop_latency_ps, T_CHUNK = fabric_xfer_ps(c, 64 * KiB);
    const uint64_t T_SUM = fabric_sum_ps(c, 64 * KiB);

    /* Two 1 MiB broadcasts issued at time 0: the second queues behind the first on the WN's
     * link, then streams at link rate: its last chunk is chunk 2 * CHUNKS - 1 of one stream. */
    assert_int_equal(fabric_broadcast(f, 0, 1 * MiB, NULL, &first, NULL), 0);
    assert_int_equal(fabric_broadcast(f, 0, 1 * MiB, NULL, &second, NULL), 0);
    assert_int_equal(first, HOPS * T_LAT + (CHUNKS + HOPS - 1) * T_CHUNK);
    assert_int_equal(second, HOPS * T_LAT + (2 * CHUNKS + HOPS - 1) * T_CHUNK);

    /* A reduce at the same time uses the other direction: no contention with them. */
    assert_int_equal(fabric_reduce(f, ready, 1 * MiB, &up, NULL), 0);
    assert_int_equal(up, HOPS * (T_LAT + T_CHUNK) + LEVELS * T_SUM + (CHUNKS - 1) * T_CHUNK);
    /* A second reduce contends for the AN links, the adder and the WN link. */
    assert_int_equal(fabric_reduce(f, ready, 1 * MiB, &up2, NULL), 0);
    assert_int_equal(up2, HOPS * (T_LAT + T_CHUNK) + LEVELS * T_SUM + (2 * CHUNKS - 1) * T_CHUNK);

    fabric_get_stats(f, &st);
    assert_int_equal(st.broadcasts, 2);
    assert_int_equal(st.reduces, 2);
    assert_int_equal(st.bytes_down, 2 * MiB);
    assert_int_equal(st.bytes_up, 2 * MiB);
    assert_int_equal(st.wn_down_busy_ps, 2 * CHUNKS * T_CHUNK);

    /* After a reset the links are free again. */
    fabric_reset(f);
    assert_int_equal(fabric_broadcast(f, 0, 1 * MiB, NULL, &second, NULL), 0);
    assert_int_equal(second, first);
    fabric_get_stats(f, &st);
    assert_int_equal(st.broadcasts, 1);
    fabric_destroy(f);
}

static void test_reduce_f32_node_order(void **state)
{
    struct fabric *f3 = make(3, 16, 0), *f4 = make(4, 2, 0);
    const float a[2] = {1e8f, 1.0f}, b[2] = {1.0f, 1e8f}, c[2] = {-1e8f, -1e8f};
    const float d[2] = {1.0f, 1.0f};
    const float *p3[3] = {a, b, c}, *p4[4] = {a, b, c, d};
    float dst[2], inplace[2] = {1e8f, 1.0f};
    const float *pin[3] = {inplace, b, c};

    (void)state;
    /* Element 0: (1e8 + 1) + -1e8 = 1e8 - 1e8 = 0 in fp32 (1 is below half an ulp of 1e8);
     * any other order ((1e8 + -1e8) + 1) would give 1. Element 1: (1 + 1e8) - 1e8 = 0 too. */
    fabric_reduce_f32(f3, dst, p3, 2);
    assert_true(dst[0] == 0.0f && dst[1] == 0.0f);
    /* Four nodes, two switch levels: still node order 0, 1, 2, 3: ((1e8 + 1) - 1e8) + 1 = 1,
     * where a tree order (1e8 + 1) + (-1e8 + 1) would give 0. */
    fabric_reduce_f32(f4, dst, p4, 2);
    assert_true(dst[0] == 1.0f && dst[1] == 1.0f);
    /* dst may be the first partial. */
    fabric_reduce_f32(f3, inplace, pin, 2);
    assert_true(inplace[0] == 0.0f && inplace[1] == 0.0f);
    fabric_destroy(f3);
    fabric_destroy(f4);
}

static void test_cfg_errors(void **state)
{
    struct fabric_cfg c;
    struct fabric *f = (struct fabric *)&c;
    struct err e = {{0}};
    uint64_t t;

    (void)state;
    fabric_cfg_default(&c);
    c.n_an = 0;
    assert_int_equal(fabric_create(&c, &f, &e), -EINVAL);
    assert_null(f);
    assert_msg_has(e.msg, "n_an = 0; accepted 1..4096");
    fabric_cfg_default(&c);
    c.fanout = 1;
    assert_int_equal(fabric_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "fanout = 1; accepted 2..");
    fabric_cfg_default(&c);
    c.link_Bps = 0;
    assert_int_equal(fabric_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "link_Bps = 0");
    fabric_cfg_default(&c);
    c.chunk_bytes = 0;
    assert_int_equal(fabric_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "chunk_bytes = 0");
    fabric_cfg_default(&c);
    c.sum_Bps = 0;
    assert_int_equal(fabric_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "sum_Bps = 0");

    f = make(2, 16, 0);
    assert_int_equal(fabric_reduce(f, NULL, 10, &t, &e), -EINVAL);
    assert_msg_has(e.msg, "ready or done is NULL");
    assert_int_equal(fabric_broadcast(f, 0, 10, NULL, NULL, &e), -EINVAL);
    fabric_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_topology),
        cmocka_unit_test(test_broadcast_time),
        cmocka_unit_test(test_broadcast_short_last_chunk),
        cmocka_unit_test(test_reduce_time),
        cmocka_unit_test(test_loss_gather),
        cmocka_unit_test(test_contention),
        cmocka_unit_test(test_reduce_f32_node_order),
        cmocka_unit_test(test_cfg_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
