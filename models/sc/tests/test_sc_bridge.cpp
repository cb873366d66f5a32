/*
 * test_sc_bridge: the two thin parts of models/sc that everything else stands on, as TAP lines.
 *
 * 1. fs_flash against the C models called directly. Two identical flash memory systems (a
 *    small FMS that stores payload, the AN layout's NV and V streams): one behind fs_flash,
 *    driven by a SystemC thread, the other called by hand at the same times with the same
 *    requests. Every write's and read's delay must equal the direct call's done - now, every
 *    byte read must be the bytes written (random pages, reads at random offsets and lengths,
 *    across pages), and bad transactions must get the documented responses with the C model's
 *    message, changing nothing.
 * 2. fs_run_kernel: a C event kernel whose events reschedule themselves at seeded random
 *    delays, run from a SystemC thread while another SystemC thread ticks on its own period:
 *    at every C event sc_time_stamp() equals sim_now(), the SystemC ticks interleave at their
 *    own times, and a kernel ahead of SystemC is waited for.
 */
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/sc/fs_flash.h"
#include "models/sc/fs_time.h"

extern "C" {
#include "csim/rng.h"
#include "models/flash/flash_sys.h"
#include "models/flash/ftl_layout.h"
}

using namespace sc_core;

static int n_tap = 0, n_fail = 0;

static void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::printf("%sok %d - ", ok ? "" : "not ", ++n_tap);
    std::vprintf(fmt, ap);
    std::printf("\n");
    va_end(ap);
    n_fail += !ok;
}

/* A flash memory system of C models: FMS, bad-block manager, controller, NV and V streams. */
struct fsys {
    struct flash_cfg cfg;
    struct flash_sys sys;
    struct ftl_stream *const *s = sys.s;
    struct flash_ctrl &ctrl = sys.ctrl;

    fsys()
    {
        static const char *const names[2] = {"NV", "V"};
        struct ftl_layout lay;
        struct err e;
        flash_cfg_default(&cfg);
        cfg.geom.channels = 2;
        cfg.geom.chips_per_chan = 1;
        cfg.geom.dies_per_chip = 1;
        cfg.geom.planes_per_die = 2;
        cfg.geom.pages_per_block = 16;
        cfg.sw.store_payload = true;
        ftl_layout_an(&lay);
        if (flash_sys_init_layout(&sys, &cfg, &lay, names, 2, &e)) {
            std::fprintf(stderr, "test_sc_bridge: %s\n", e.msg);
            std::exit(1);
        }
    }
    ~fsys()
    {
        flash_sys_fini(&sys);
    }
};

static int deliver(void *user, uint64_t addr, const void *data, uint32_t len, uint64_t t,
                   uint64_t *t_done)
{
    (void)t;
    (void)t_done;
    std::memcpy(static_cast<unsigned char *>(user) + addr, data, len);
    return 0;
}

struct flash_tester : sc_module {
    tlm_utils::simple_initiator_socket<flash_tester> socket;
    fsys &ref;
    fs::fs_flash &dut;
    uint64_t rng = 7;
    uint32_t pb;

    flash_tester(sc_module_name n, fsys &r, fs::fs_flash &d)
        : sc_module(n), socket("socket"), ref(r), dut(d), pb(r.cfg.geom.page_bytes)
    {
        SC_HAS_PROCESS(flash_tester);
        SC_THREAD(run);
    }

    tlm::tlm_response_status xfer(tlm::tlm_command c, uint64_t a, unsigned char *d, uint64_t len,
                                  uint64_t *delay_ps, unsigned char *be = nullptr,
                                  unsigned width = 0)
    {
        tlm::tlm_generic_payload tx;
        sc_time dl = SC_ZERO_TIME;
        tx.set_command(c);
        tx.set_address(a);
        tx.set_data_ptr(d);
        tx.set_data_length((unsigned)len);
        tx.set_streaming_width(width ? width : (unsigned)len);
        tx.set_byte_enable_ptr(be);
        tx.set_byte_enable_length(be ? 4 : 0);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(tx, dl);
        *delay_ps = fs::ps(dl);
        return tx.get_response_status();
    }

    void run()
    {
        std::vector<unsigned char> data[2];
        uint64_t lpn[2] = {0, 0}, n_ok = 0, n_bad = 0, n_rd = 0, bytes_ok = 0, bytes_rd = 0;
        struct err e;

        /* writes: 1..8 pages at each stream's append point, at random times */
        for (int i = 0; i < 40; i++) {
            int s = (int)rng_below(&rng, 2);
            uint64_t np = 1 + rng_below(&rng, 8), d, done;
            std::vector<unsigned char> buf(np * pb);
            for (auto &b : buf)
                b = (unsigned char)rng_next(&rng);
            wait(fs::sct(rng_below(&rng, 50000000)));
            uint64_t now = fs::now_ps();
            auto st = xfer(tlm::TLM_WRITE_COMMAND, fs::fs_flash::addr(s, lpn[s], 0, pb), buf.data(),
                           buf.size(), &d);
            int rc = ftl_stream_write(ref.s[s], now, lpn[s], np, buf.data(), &done, &e);
            bool ok = st == tlm::TLM_OK_RESPONSE && !rc && d == done - now;
            n_ok += ok;
            n_bad += !ok;
            data[s].insert(data[s].end(), buf.begin(), buf.end());
            lpn[s] += np;
            wait(fs::sct(d));
        }
        tap(n_bad == 0, "40 writes of 1..8 pages to NV and V: OK, each delay the FTL's time");

        /* reads at random offsets and lengths, some issued with a local time offset */
        n_bad = 0;
        for (int i = 0; i < 60; i++) {
            int s = (int)rng_below(&rng, 2);
            uint64_t total = data[s].size(), off = rng_below(&rng, total);
            uint64_t len = 1 + rng_below(&rng, total - off < 3 * pb ? total - off : 3 * pb);
            uint64_t d, done, local = rng_below(&rng, 2) * 1000000;
            std::vector<unsigned char> got(len, 0xee), want(len, 0xee);
            uint64_t now = fs::now_ps();
            tlm::tlm_generic_payload tx;
            sc_time dl = fs::sct(local);
            tx.set_command(tlm::TLM_READ_COMMAND);
            tx.set_address(fs::fs_flash::addr(s, off / pb, (uint32_t)(off % pb), pb));
            tx.set_data_ptr(got.data());
            tx.set_data_length((unsigned)len);
            tx.set_streaming_width((unsigned)len);
            tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            socket->b_transport(tx, dl);
            d = fs::ps(dl);
            struct flash_ctrl_req rq = {off / pb, (uint32_t)(off % pb), len, 0};
            struct flash_ctrl_sink sink = {deliver, want.data()};
            int rc = flash_ctrl_read(&ref.ctrl, ref.s[s], now + local, &rq, &sink, &done, &e);
            bool ok = tx.get_response_status() == tlm::TLM_OK_RESPONSE && !rc && d == done - now &&
                      got == want && !std::memcmp(got.data(), &data[s][off], len);
            n_bad += !ok;
            n_rd++;
            bytes_rd += len;
            bytes_ok += ok ? len : 0;
            wait(dl);
        }
        tap(n_bad == 0,
            "%" PRIu64 " reads (%" PRIu64 " bytes) at random offsets: the bytes written, each "
            "delay the controller's time (with and without a local time offset)",
            n_rd, bytes_rd);

        /* bad transactions: the documented responses, nothing changed */
        uint64_t d, done, now;
        unsigned char buf[2 * 4096] = {0}, be[4] = {0xff, 0, 0xff, 0};
        auto st = xfer(tlm::TLM_WRITE_COMMAND, fs::fs_flash::addr(1, lpn[1], 100, pb), buf, pb, &d);
        tap(st == tlm::TLM_ADDRESS_ERROR_RESPONSE && d == 0 &&
                dut.last_error().find("whole pages") != std::string::npos,
            "an unaligned write: ADDRESS_ERROR, no time, the message says why (%s)",
            dut.last_error().c_str());
        st = xfer(tlm::TLM_WRITE_COMMAND, fs::fs_flash::addr(1, lpn[1] + 1, 0, pb), buf, pb, &d);
        int rc = ftl_stream_write(ref.s[1], fs::now_ps(), lpn[1] + 1, 1, buf, &done, &e);
        tap(st == tlm::TLM_ADDRESS_ERROR_RESPONSE && d == 0 && rc &&
                dut.last_error() == std::string("an0_flash: ") + e.msg,
            "a write off the append point: ADDRESS_ERROR with the FTL's message (%s)",
            dut.last_error().c_str());
        st = xfer(tlm::TLM_READ_COMMAND, fs::fs_flash::addr(0, lpn[0] + 4, 0, pb), buf, pb, &d);
        struct flash_ctrl_req rq = {lpn[0] + 4, 0, pb, 0};
        rc = flash_ctrl_read(&ref.ctrl, ref.s[0], fs::now_ps(), &rq, nullptr, &done, &e);
        tap(st == tlm::TLM_ADDRESS_ERROR_RESPONSE && d == 0 && rc &&
                dut.last_error() == std::string("an0_flash: ") + e.msg,
            "a read of pages never written: ADDRESS_ERROR (%s)", dut.last_error().c_str());
        st = xfer(tlm::TLM_READ_COMMAND, fs::fs_flash::addr(2, 0, 0, pb), buf, pb, &d);
        tap(st == tlm::TLM_ADDRESS_ERROR_RESPONSE, "stream index 2 of 2: ADDRESS_ERROR (%s)",
            dut.last_error().c_str());
        st = xfer(tlm::TLM_READ_COMMAND, fs::fs_flash::addr(0, 0, 0, pb), buf, pb, &d, be);
        tap(st == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, "byte enables: BYTE_ENABLE_ERROR");
        st = xfer(tlm::TLM_READ_COMMAND, fs::fs_flash::addr(0, 0, 0, pb), buf, pb, &d, nullptr, 8);
        tap(st == tlm::TLM_BURST_ERROR_RESPONSE, "streaming width below the length: BURST_ERROR");
        /* the append point did not move: a write there still works, at the C model's time (the
         * refusals above were the C model's own, made on both systems) */
        now = fs::now_ps();
        st = xfer(tlm::TLM_WRITE_COMMAND, fs::fs_flash::addr(1, lpn[1], 0, pb), buf, pb, &d);
        rc = ftl_stream_write(ref.s[1], now, lpn[1], 1, buf, &done, &e);
        tap(st == tlm::TLM_OK_RESPONSE && !rc && d == done - now,
            "after the refused transactions the next write is at the append point, at the "
            "direct call's time");
    }
};

/* ---- the C kernel and SystemC time ---- */

struct kstate {
    struct sim *sim;
    uint64_t rng = 3, fired = 0, mismatches = 0, left = 200;
    std::vector<uint64_t> order; /* times of C events and SystemC ticks, as they ran */
};

static void kev(struct sim *sim, void *user)
{
    kstate *k = static_cast<kstate *>(user);
    k->fired++;
    k->mismatches += sim_now(sim) != fs::now_ps();
    k->order.push_back(sim_now(sim));
    if (--k->left)
        sim_schedule_in(sim, 1 + rng_below(&k->rng, 3000), 0, "kev", kev, k, nullptr, nullptr);
}

struct kernel_tester : sc_module {
    kstate k;
    uint64_t ticks = 0, tick_bad = 0;
    bool done = false;

    kernel_tester(sc_module_name n) : sc_module(n)
    {
        struct err e;
        if (sim_create(&k.sim, &e))
            std::exit(1);
        SC_HAS_PROCESS(kernel_tester);
        SC_THREAD(driver);
        SC_THREAD(ticker);
    }
    ~kernel_tester() override
    {
        sim_destroy(k.sim);
    }

    void driver()
    {
        struct err e;
        wait(fs::sct(1000000)); /* SystemC runs first: the kernel is behind, at 0 */
        sim_schedule_at(k.sim, 500000, 0, "late", kev, &k, nullptr, nullptr);
        int rc = fs::fs_run_kernel(k.sim, &e);
        tap(rc == -EINVAL && k.fired == 0 && std::strstr(e.msg, "before SystemC's present"),
            "a C event before SystemC's present is refused, not fired late (%s)", e.msg);
        sim_destroy(k.sim);
        sim_create(&k.sim, &e);
        rc = fs::fs_run_kernel(k.sim, &e); /* an idle kernel catches up */
        uint64_t t0 = fs::now_ps();
        tap(!rc && sim_now(k.sim) == t0, "an idle kernel behind SystemC is moved to its present");
        sim_schedule_in(k.sim, 0, 0, "kev", kev, &k, nullptr, nullptr);
        rc = fs::fs_run_kernel(k.sim, &e);
        tap(!rc && k.fired == 200 && k.mismatches == 0 && sim_now(k.sim) == fs::now_ps(),
            "200 C events run from SystemC (from %" PRIu64 " ps): sc_time_stamp() == sim_now() "
            "at each, and after the run",
            t0);
        /* a kernel ahead of SystemC: SystemC waits for it */
        k.left = 1;
        sim_run_until(k.sim, sim_now(k.sim) + 5000000, &e); /* the kernel alone moves on */
        sim_schedule_in(k.sim, 10, 0, "kev", kev, &k, nullptr, nullptr);
        uint64_t want = sim_now(k.sim) + 10;
        rc = fs::fs_run_kernel(k.sim, &e);
        tap(!rc && fs::now_ps() == want && k.mismatches == 0,
            "a kernel 5 us ahead: SystemC waits, the event fires at its time in both");
        done = true;
    }

    void ticker()
    {
        while (!done) {
            wait(fs::sct(7777));
            ticks++;
            k.order.push_back(fs::now_ps());
        }
        bool sorted = true;
        for (size_t i = 1; i < k.order.size(); i++)
            sorted &= k.order[i - 1] <= k.order[i];
        tap(ticks > 50 && sorted,
            "%" PRIu64 " SystemC ticks interleaved with the C events, every one in time order",
            ticks);
    }
};

int sc_main(int, char **)
{
    fs::fs_check_resolution();
    fsys dut_sys, ref_sys;
    fs::fs_flash flash("an0_flash", &dut_sys.ctrl, {dut_sys.s[0], dut_sys.s[1]});
    flash_tester ft("flash_tester", ref_sys, flash);
    ft.socket.bind(flash.socket);
    kernel_tester kt("kernel_tester");
    sc_start();
    std::printf("1..%d\n", n_tap);
    return n_fail ? 1 : 0;
}
