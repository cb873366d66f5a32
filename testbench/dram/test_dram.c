/*
 * test_dram: the tensor-buffer model and its port BFM. Configuration checks; the sparse
 * functional store (pages on first write, zeros for bytes never written, a 16 GiB buffer that
 * costs only what was written); timing-only mode; channel timing written as sums of named
 * phases (T_XFER + T_LAT), queueing on a busy channel, channel interleave, contention
 * statistics per requester; an access's per-channel claims equal its pieces claimed one by
 * one; a free buffer (the ideal storage's) taking no time; the port BFM: response cycle,
 * order, outstanding limit, error responses, seeded stalls, two ports contending for one
 * channel.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/dram/dram.h"
#include "models/dram/dram_port.h"

static uint64_t T_LAT, T_XFER8, T_XFER256;

static struct dram *make(bool payload)
{
    struct dram_cfg c;
    struct dram *d = NULL;
    struct err e;
    dram_cfg_default(&c);
    c.store_payload = payload;
    if (dram_create(&c, &d, &e))
        fail_msg("%s", e.msg);
    T_LAT = c.latency_ps;
    T_XFER8 = dram_xfer_ps(&c, 8);
    T_XFER256 = dram_xfer_ps(&c, 256);
    return d;
}

static void test_defaults_and_checks(void **state)
{
    (void)state;
    struct dram_cfg c;
    struct err e;
    dram_cfg_default(&c);
    assert_int_equal(c.size_bytes, 16ull << 30);
    assert_int_equal(c.channels, 4);
    assert_int_equal(c.chan_mbps, 25600);
    assert_int_equal(c.latency_ps, 50000);
    assert_int_equal(dram_cfg_check(&c, &e), 0);
    /* 8 bytes at 25.6 GB/s: 312.5 ps, rounded up. */
    assert_int_equal(dram_xfer_ps(&c, 8), 313);
    assert_int_equal(dram_xfer_ps(&c, 256), 10000);
    c.size_bytes = 1000;
    assert_int_equal(dram_cfg_check(&c, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "size_bytes = 1000"));
    dram_cfg_default(&c);
    c.interleave_bytes = 100;
    assert_int_equal(dram_cfg_check(&c, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "power of two"));
    dram_cfg_default(&c);
    c.channels = 0;
    assert_int_equal(dram_cfg_check(&c, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "channels = 0"));
}

static void test_sparse_store(void **state)
{
    (void)state;
    struct dram *d = make(true);
    uint8_t buf[10000], back[10000];
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 7 + 3);
    /* Never written: zeros, no page. */
    memset(back, 0xee, sizeof(back));
    assert_int_equal(dram_read(d, 12345, back, 100), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(back[i], 0);
    assert_int_equal(dram_pages(d), 0);
    /* Across pages, near the top of 16 GiB. */
    uint64_t a = (16ull << 30) - 3 * 4096 - 5;
    assert_int_equal(dram_write(d, a, buf, sizeof(buf)), 0);
    assert_int_equal(dram_pages(d), 4);
    assert_int_equal(dram_read(d, a, back, sizeof(back)), 0);
    assert_memory_equal(buf, back, sizeof(buf));
    /* Out of range: nothing done. */
    assert_int_equal(dram_write(d, (16ull << 30) - 4, buf, 5), -ERANGE);
    assert_int_equal(dram_read(d, 16ull << 30, back, 1), -ERANGE);
    assert_true(dram_in_range(d, (16ull << 30) - 4, 4));
    assert_false(dram_in_range(d, (16ull << 30) - 4, 5));
    /* Beats with strobes. */
    uint64_t v;
    assert_int_equal(dram_write_beat(d, 4096, 0x8877665544332211ull, 0xa5), 0);
    assert_int_equal(dram_read_beat(d, 4096, &v), 0);
    assert_int_equal(v, 0x8800660000330011ull);
    assert_int_equal(dram_read_beat(d, 4097, &v), -EINVAL);
    assert_int_equal(dram_write_beat(d, 16ull << 30, 0, 0xff), -ERANGE);
    assert_int_equal(dram_pages(d), 5);
    dram_destroy(d);
}

static void test_timing_only_keeps_nothing(void **state)
{
    (void)state;
    struct dram *d = make(false);
    uint8_t buf[64] = {1, 2, 3}, back[64];
    assert_int_equal(dram_write(d, 0, buf, sizeof(buf)), 0);
    assert_int_equal(dram_read(d, 0, back, sizeof(back)), 0);
    assert_int_equal(back[0], 0);
    assert_int_equal(dram_pages(d), 0);
    dram_destroy(d);
}

/* dram_idle: a channel busy far ahead serves the next access at once, its statistics kept. */
static void test_idle_frees_the_channels(void **state)
{
    (void)state;
    struct dram *d = make(false);
    int a = dram_requester(d, "dma");
    const uint64_t t0 = 5000000;
    assert_int_equal(dram_access(d, a, t0, 0, 8, false), t0 + T_XFER8 + T_LAT);
    /* Asked before the channel is free: it waits. */
    assert_int_equal(dram_access(d, a, 0, 64, 8, false), t0 + 2 * T_XFER8 + T_LAT);
    dram_idle(d);
    assert_int_equal(dram_access(d, a, 0, 64, 8, false), T_XFER8 + T_LAT);
    assert_int_equal(dram_chan_stats(d, 0)->n_ops, 3);
    assert_int_equal(dram_req_stats(d, a)->accesses, 3);
    dram_destroy(d);
}

/* A free buffer (the ideal storage's) answers every access at once and claims nothing; set
 * back, the channels are where the last real access left them. */
static void test_free_buffer_takes_no_time(void **state)
{
    (void)state;
    struct dram *d = make(false);
    int a = dram_requester(d, "optimizer");
    const uint64_t t0 = 5000000;
    assert_int_equal(dram_access(d, a, t0, 0, 8, false), t0 + T_XFER8 + T_LAT);
    dram_set_free(d, true);
    assert_int_equal(dram_access(d, a, 0, 0, 1u << 20, false), 0);
    assert_int_equal(dram_access(d, a, t0, 64, 8, true), t0);
    assert_int_equal(dram_req_stats(d, a)->accesses, 1);
    assert_int_equal(dram_chan_stats(d, 0)->n_ops, 1);
    dram_set_free(d, false);
    assert_int_equal(dram_access(d, a, 0, 64, 8, false), t0 + 2 * T_XFER8 + T_LAT);
    dram_destroy(d);
}

static void test_channel_timing(void **state)
{
    (void)state;
    struct dram *d = make(false);
    int a = dram_requester(d, "dma"), b = dram_requester(d, "nand");
    const uint64_t t0 = 1000000;
    /* An idle channel: transfer, then latency. */
    assert_int_equal(dram_access(d, a, t0, 0, 8, false), t0 + T_XFER8 + T_LAT);
    /* The same channel, asked at the same time: queued behind the first transfer. */
    assert_int_equal(dram_access(d, b, t0, 64, 8, true), t0 + 2 * T_XFER8 + T_LAT);
    /* Another channel (interleave 256 B): in parallel. */
    assert_int_equal(dram_access(d, b, t0, 256, 8, false), t0 + T_XFER8 + T_LAT);
    assert_int_equal(dram_channel_of(d, 256), 1);
    assert_int_equal(dram_channel_of(d, 4 * 256), 0);
    /* 1 KiB from 0 at a later time: four channels, 256 B each, in parallel. */
    const uint64_t t1 = 2000000;
    assert_int_equal(dram_access(d, a, t1, 0, 1024, false), t1 + T_XFER256 + T_LAT);
    /* 512 B from 128: channels 0 (128 B), 1 (256 B), 2 (128 B): the 256 B piece ends last. */
    const uint64_t t2 = 3000000;
    assert_int_equal(dram_access(d, a, t2, 128, 512, false), t2 + T_XFER256 + T_LAT);
    const struct dram_req_stats *sa = dram_req_stats(d, a), *sb = dram_req_stats(d, b);
    assert_string_equal(sa->name, "dma");
    assert_int_equal(sa->accesses, 3);
    assert_int_equal(sa->pieces, 1 + 4 + 3);
    assert_int_equal(sa->bytes_rd, 8 + 1024 + 512);
    assert_int_equal(sa->wait_ps, 0);
    assert_int_equal(sb->bytes_wr, 8);
    assert_int_equal(sb->wait_ps, T_XFER8); /* queued behind "dma" */
    assert_int_equal(dram_chan_stats(d, 0)->busy_ps, 2 * T_XFER8 + T_XFER256 + 128 * 10000 / 256);
    dram_destroy(d);
}

struct portfx {
    struct dram *d;
    struct dram_port *p;
};

static void port_open(struct portfx *f, unsigned max_out, unsigned req_stall, unsigned rsp_stall,
                      uint64_t size)
{
    struct dram_cfg c;
    struct err e;
    dram_cfg_default(&c);
    c.size_bytes = size;
    if (dram_create(&c, &f->d, &e))
        fail_msg("%s", e.msg);
    T_LAT = c.latency_ps;
    T_XFER8 = dram_xfer_ps(&c, 8);
    struct dram_port_cfg pc;
    dram_port_cfg_default(&pc);
    pc.max_outstanding = max_out;
    pc.req_stall_pct = req_stall;
    pc.rsp_stall_pct = rsp_stall;
    pc.seed = 7;
    if (dram_port_create(&pc, f->d, &f->p, &e))
        fail_msg("%s", e.msg);
}

static void port_close(struct portfx *f)
{
    dram_port_destroy(f->p);
    dram_destroy(f->d);
}

/* Cycles from acceptance to the response at a 1250 ps clock: ceil((T_XFER + T_LAT) / P). */
static uint64_t rsp_cycles(void)
{
    return (T_XFER8 + T_LAT + 1249) / 1250;
}

static void test_port_read_write_and_order(void **state)
{
    (void)state;
    struct portfx f;
    port_open(&f, 64, 0, 0, 1 << 20);
    struct mem_port_rsp r;
    /* Cycle 0: a write; cycle 1: a read of it; cycle 2: a read elsewhere. */
    struct mem_port_req w = {
        .valid = true, .write = true, .addr = 64, .wdata = 0x1122, .wstrb = 3, .rsp_ready = true};
    struct mem_port_req rd = {.valid = true, .addr = 64, .rsp_ready = true};
    struct mem_port_req idle = {.rsp_ready = true};
    uint64_t seen[3], data[3];
    int n = 0;
    for (uint64_t c = 0; c < 100 && n < 3; c++) {
        dram_port_drive(f.p, &r);
        assert_true(r.req_ready);
        if (r.rsp_valid) {
            assert_false(r.err);
            seen[n] = c;
            data[n++] = r.rdata;
        }
        dram_port_clock(f.p, c == 0 ? &w : c <= 2 ? &rd : &idle);
    }
    assert_int_equal(n, 3);
    /* Accepted at 0, 1, 2 on one channel: the transfers queue 313 ps apart, well inside a
     * cycle, so each answers rsp_cycles() after its acceptance. */
    assert_int_equal(seen[0], 0 + rsp_cycles());
    assert_int_equal(seen[1], 1 + rsp_cycles());
    assert_int_equal(seen[2], 2 + rsp_cycles());
    assert_int_equal(data[1], 0x1122);
    assert_int_equal(dram_port_stats(f.p)->reads, 2);
    assert_int_equal(dram_port_stats(f.p)->writes, 1);
    port_close(&f);
}

/* Idle cycles applied at once (dram_port_skip) leave the port where as many idle drive/clock
 * cycles would: the same cycle count, and a read after them answered at the same cycle. */
static void test_port_skip_equals_idle_cycles(void **state)
{
    (void)state;
    struct portfx a, b;
    struct mem_port_rsp r;
    struct mem_port_req rd = {.valid = true, .addr = 64, .rsp_ready = true};
    struct mem_port_req idle = {.rsp_ready = true};
    uint64_t seen[2] = {0, 0};
    port_open(&a, 64, 0, 0, 1 << 20);
    port_open(&b, 64, 0, 0, 1 << 20);
    for (int c = 0; c < 1000; c++) {
        dram_port_drive(a.p, &r);
        dram_port_clock(a.p, &idle);
    }
    dram_port_skip(b.p, 1000);
    assert_int_equal(dram_port_cycle(a.p), 1000);
    assert_int_equal(dram_port_cycle(b.p), 1000);
    assert_int_equal(dram_port_stats(b.p)->cycles, 1000);
    for (int k = 0; k < 2; k++) {
        struct dram_port *p = k ? b.p : a.p;
        for (uint64_t c = 0; c < 100 && !seen[k]; c++) {
            dram_port_drive(p, &r);
            if (r.rsp_valid)
                seen[k] = dram_port_cycle(p);
            dram_port_clock(p, c == 0 ? &rd : &idle);
        }
    }
    assert_int_equal(seen[0], 1000 + rsp_cycles());
    assert_int_equal(seen[1], seen[0]);
    port_close(&a);
    port_close(&b);
}

static void test_port_outstanding_limit_and_errors(void **state)
{
    (void)state;
    struct portfx f;
    port_open(&f, 4, 0, 0, 1 << 20);
    struct mem_port_rsp r;
    struct mem_port_req rq = {.valid = true, .addr = 0, .rsp_ready = false};
    unsigned taken = 0;
    for (int c = 0; c < 20; c++) {
        dram_port_drive(f.p, &r);
        taken += r.req_ready;
        rq.addr = 8u * (unsigned)c;
        dram_port_clock(f.p, &rq);
    }
    assert_int_equal(taken, 4); /* nothing retired: the limit holds */
    assert_int_equal(dram_port_pending(f.p), 4);
    port_close(&f);

    port_open(&f, 4, 0, 0, 1 << 20);
    struct mem_port_req bad[] = {{.valid = true, .addr = 1 << 20, .rsp_ready = true},
                                 {.valid = true, .addr = 12, .rsp_ready = true}};
    unsigned errs = 0, c = 0;
    for (; c < 200 && errs < 2; c++) {
        dram_port_drive(f.p, &r);
        if (r.rsp_valid) {
            assert_true(r.err);
            assert_int_equal(r.rdata, 0);
            errs++;
        }
        struct mem_port_req idle = {.rsp_ready = true};
        dram_port_clock(f.p, c < 2 ? &bad[c] : &idle);
    }
    assert_int_equal(errs, 2);
    assert_int_equal(dram_port_stats(f.p)->errors, 2);
    assert_int_equal(dram_req_stats(f.d, dram_port_requester(f.p))->accesses, 0);
    port_close(&f);
}

/* Stalls come from the seed: the same seed, the same cycles. */
static void test_port_stalls_are_seeded(void **state)
{
    (void)state;
    uint64_t sig[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        struct portfx f;
        port_open(&f, 8, 40, 40, 1 << 20);
        struct mem_port_rsp r;
        unsigned sent = 0, got = 0;
        for (uint64_t c = 0; c < 5000 && got < 200; c++) {
            dram_port_drive(f.p, &r);
            struct mem_port_req rq = {.valid = sent < 200, .addr = 8 * sent, .rsp_ready = true};
            if (r.rsp_valid) {
                got++;
                sig[k] = sig[k] * 31 + c;
            }
            sent += rq.valid && r.req_ready;
            dram_port_clock(f.p, &rq);
        }
        assert_int_equal(got, 200);
        assert_true(dram_port_stats(f.p)->req_stall_cycles > 0);
        assert_true(dram_port_stats(f.p)->rsp_wait_cycles > 0);
        port_close(&f);
    }
    assert_int_equal(sig[0], sig[1]);
}

/* Two ports on one dram, both streaming into channel 0: each sees the other's traffic. */
static void test_ports_contend_for_a_channel(void **state)
{
    (void)state;
    struct dram_cfg c;
    struct dram *d;
    dram_cfg_default(&c);
    c.chan_mbps = 3200; /* 8 B per 2500 ps: half a beat per 1250 ps cycle */
    assert_int_equal(dram_create(&c, &d, NULL), 0);
    struct dram_port *p[2];
    struct dram_port_cfg pc;
    dram_port_cfg_default(&pc);
    pc.name = "a";
    assert_int_equal(dram_port_create(&pc, d, &p[0], NULL), 0);
    pc.name = "b";
    assert_int_equal(dram_port_create(&pc, d, &p[1], NULL), 0);
    unsigned got[2] = {0, 0};
    for (uint64_t cyc = 0; cyc < 2000; cyc++)
        for (int k = 0; k < 2; k++) {
            struct mem_port_rsp r;
            dram_port_drive(p[k], &r);
            got[k] += r.rsp_valid;
            /* Channel 0 only: addresses within the first 256 B of every 1 KiB. */
            struct mem_port_req rq = {
                .valid = true, .addr = (cyc % 32) * 8 + 1024 * (cyc / 32 % 64), .rsp_ready = true};
            dram_port_clock(p[k], &rq);
        }
    const struct dram_req_stats *sa = dram_req_stats(d, dram_port_requester(p[0]));
    const struct dram_req_stats *sb = dram_req_stats(d, dram_port_requester(p[1]));
    /* One channel at 3.2 GB/s serves 0.5 beats per cycle in all: about 500 each. */
    assert_true(got[0] + got[1] < 1100 && got[0] + got[1] > 900);
    assert_true(sa->wait_ps > 0 && sb->wait_ps > 0);
    dram_port_destroy(p[0]);
    dram_port_destroy(p[1]);
    dram_destroy(d);
}

/* The reference of dram_access's timing: every piece claimed on its own (res_claim), at t. */
static uint64_t ref_access(struct res *ch, const struct dram_cfg *c, uint64_t t, uint64_t addr,
                           uint64_t len, uint64_t *wait)
{
    uint64_t done = t + c->latency_ps, seen = 0;
    while (len) {
        uint64_t n = c->interleave_bytes - addr % c->interleave_bytes;
        if (n > len)
            n = len;
        uint32_t k = (uint32_t)(addr / c->interleave_bytes % c->channels);
        uint64_t x = dram_xfer_ps(c, n), end = res_claim(&ch[k], t, x);
        if (!(seen >> k & 1))
            *wait += end - x - t;
        seen |= 1ull << k;
        done = res_later(done, end + c->latency_ps);
        addr += n;
        len -= n;
    }
    return done;
}

/* dram_access claims each channel once per access, its pieces in closed form: the same ends,
 * busy times, piece counts and queueing as claiming the pieces one by one, over random
 * accesses (lengths from a beat to many interleave rounds, any alignment, asked for at times
 * that overlap), on 4 and on 3 channels. */
static void test_access_equals_piecewise(void **state)
{
    (void)state;
    for (uint32_t nch = 3; nch <= 4; nch++) {
        struct dram_cfg c;
        struct dram *d;
        struct err e;
        struct res ref[4] = {{0}};
        uint64_t rng = 12345 + nch, t = 0, wait = 0;
        dram_cfg_default(&c);
        c.channels = nch;
        c.store_payload = false;
        assert_int_equal(dram_create(&c, &d, &e), 0);
        int rid = dram_requester(d, "x");
        for (int i = 0; i < 5000; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t addr = (rng >> 20) % (1u << 20);
            uint64_t len = 1 + (rng >> 44) % (i % 3 == 0 ? 8 : i % 3 == 1 ? 600 : 20000);
            t += (rng >> 8) % 30000;
            uint64_t got = dram_access(d, rid, t, addr, len, i & 1);
            uint64_t want = ref_access(ref, &c, t, addr, len, &wait);
            assert_int_equal(got, want);
        }
        uint64_t pieces = 0, bus = 0;
        for (uint32_t k = 0; k < nch; k++) {
            const struct res *r = dram_chan_stats(d, k);
            assert_int_equal(r->busy_until, ref[k].busy_until);
            assert_int_equal(r->busy_ps, ref[k].busy_ps);
            assert_int_equal(r->n_ops, ref[k].n_ops);
            pieces += ref[k].n_ops;
            bus += ref[k].busy_ps;
        }
        assert_int_equal(dram_req_stats(d, rid)->pieces, pieces);
        assert_int_equal(dram_req_stats(d, rid)->bus_ps, bus);
        assert_int_equal(dram_req_stats(d, rid)->wait_ps, wait);
        dram_destroy(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_checks),
        cmocka_unit_test(test_sparse_store),
        cmocka_unit_test(test_timing_only_keeps_nothing),
        cmocka_unit_test(test_channel_timing),
        cmocka_unit_test(test_access_equals_piecewise),
        cmocka_unit_test(test_idle_frees_the_channels),
        cmocka_unit_test(test_free_buffer_takes_no_time),
        cmocka_unit_test(test_port_read_write_and_order),
        cmocka_unit_test(test_port_skip_equals_idle_cycles),
        cmocka_unit_test(test_port_outstanding_limit_and_errors),
        cmocka_unit_test(test_port_stalls_are_seeded),
        cmocka_unit_test(test_ports_contend_for_a_channel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
