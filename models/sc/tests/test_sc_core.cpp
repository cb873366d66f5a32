/*
 * test_sc_core: the compute core's two TLM targets, the C twin (fs_core) and the core verilated
 * with --sc (fs_core_rtl), driven through the same command map with the same random traffic:
 * DMA writes of the whole map (random finite bf16 operands, random fp32 C), then random GEMM
 * commands (valid ones of every shape, transposes and accumulate, and refused ones), each
 * followed by a DMA read of the whole map. Checked, as TAP lines: every byte of the map, every
 * status and cycle count bit for bit, and each transaction's time: the twin's annotated delay
 * equals the time the RTL's ports took (from the rising edge after its inputs were driven to the
 * edge where the transfer ended).
 *
 * Usage: test_sc_core [SEED] [COMMANDS]   (defaults 1 and 60; make test passes SEED)
 */
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/sc/fs_core.h"
#include "models/sc/fs_core_rtl.h"
#include "models/sc/fs_time.h"

extern "C" {
#include "csim/rng.h"
}

using namespace sc_core;

static const uint64_t PERIOD_PS = 1250; /* the machine's core clock (0.8 GHz) */

struct tester : sc_module {
    tlm_utils::simple_initiator_socket<tester> twin, rtl;
    uint64_t seed, n_cmd;
    struct core_params cfg;
    struct core_twin_map map;
    int n = 0, failed = 0;

    tester(sc_module_name nm, uint64_t s, uint64_t cmds, const struct core_params &c)
        : sc_module(nm), twin("twin"), rtl("rtl"), seed(s), n_cmd(cmds), cfg(c)
    {
        core_twin_map(&cfg, &map);
        SC_HAS_PROCESS(tester);
        SC_THREAD(run);
    }

    void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)))
    {
        va_list ap;
        va_start(ap, fmt);
        std::printf("%sok %d - ", ok ? "" : "not ", ++n);
        std::vprintf(fmt, ap);
        std::printf("\n");
        va_end(ap);
        failed += !ok;
    }

    /* One transaction on a socket; returns its time: the twin's annotated delay, the RTL's
     * SystemC time from the first rising edge after the call (the call is at a rising edge:
     * the RTL drives its inputs at the falling edge, an idle core takes them at the next
     * rising edge) to its return. */
    uint64_t xfer(tlm_utils::simple_initiator_socket<tester> &s, tlm::tlm_command cmd,
                  uint64_t addr, unsigned char *data, unsigned len, tlm::tlm_response_status *st)
    {
        tlm::tlm_generic_payload tx;
        sc_time d = SC_ZERO_TIME;
        uint64_t t0 = fs::now_ps();
        tx.set_command(cmd);
        tx.set_address(addr);
        tx.set_data_ptr(data);
        tx.set_data_length(len);
        tx.set_streaming_width(len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        s->b_transport(tx, d);
        *st = tx.get_response_status();
        if (&s == &twin)
            return fs::ps(d);
        uint64_t el = fs::now_ps() - t0;
        return el ? el - PERIOD_PS : 0; /* STATUS: no time */
    }

    /* The same transaction on both; false (and a failed line) if they differ. */
    bool both(const char *what, tlm::tlm_command cmd, uint64_t addr, std::vector<unsigned char> &a,
              bool want_ok = true)
    {
        std::vector<unsigned char> b(a);
        tlm::tlm_response_status sa, sb;
        uint64_t ta = xfer(twin, cmd, addr, a.data(), (unsigned)a.size(), &sa);
        uint64_t tb = xfer(rtl, cmd, addr, b.data(), (unsigned)b.size(), &sb);
        bool ok = sa == sb && (sa == tlm::TLM_OK_RESPONSE) == want_ok && a == b && ta == tb;
        if (!ok) {
            size_t i = 0;
            while (i < a.size() && a[i] == b[i])
                i++;
            tap(false,
                "%s: twin %s in %" PRIu64 " ps, RTL %s in %" PRIu64
                " ps, first byte differing %zu of %zu",
                what, sa == tlm::TLM_OK_RESPONSE ? "ok" : "error", ta,
                sb == tlm::TLM_OK_RESPONSE ? "ok" : "error", tb, i, a.size());
        }
        return ok;
    }

    uint16_t bf16()
    {
        uint64_t r = rng_next(&seed);
        return (uint16_t)((r & 0x8000) | ((120 + r % 15) << 7) | ((r >> 8) & 0x7f));
    }

    /* A valid command of random shape, or (one in six) a refused one. */
    struct core_cmd random_cmd(bool *bad)
    {
        unsigned W = map.w;
        uint32_t lim = 4 * (cfg.rows > cfg.cols ? cfg.rows : cfg.cols) + 3;
        struct core_cmd c;
        std::memset(&c, 0, sizeof(c));
        c.m = 1 + (uint32_t)rng_below(&seed, lim);
        c.n = 1 + (uint32_t)rng_below(&seed, lim);
        c.k = 1 + (uint32_t)rng_below(&seed, lim);
        c.trans_a = rng_next(&seed) & 1;
        c.trans_b = rng_next(&seed) & 1;
        c.accumulate = rng_next(&seed) & 1;
        auto place = [&](uint32_t rows, uint32_t cols, uint32_t elems, uint32_t *addr,
                         uint32_t *ld) {
            *ld = (cols + W - 1) / W * W + (uint32_t)rng_below(&seed, 2) * W;
            uint64_t need = (uint64_t)(rows - 1) * *ld + cols;
            *addr = need > elems ? 0 : (uint32_t)rng_below(&seed, (elems - need) / W + 1) * W;
        };
        place(c.trans_a ? c.k : c.m, c.trans_a ? c.m : c.k, map.a_elems, &c.a_addr, &c.lda);
        place(c.trans_b ? c.n : c.k, c.trans_b ? c.k : c.n, map.b_elems, &c.b_addr, &c.ldb);
        place(c.m, c.n, map.c_elems, &c.c_addr, &c.ldc);
        *bad = rng_below(&seed, 6) == 0;
        if (*bad) {
            switch (rng_below(&seed, 3)) {
            case 0:
                c.m = 0;
                break; /* CORE_ERR_DIM */
            case 1:
                c.a_addr += 1;
                break; /* CORE_ERR_ALIGN (W > 1) or range */
            default:
                c.c_addr = map.c_elems;
                break; /* CORE_ERR_RANGE */
            }
        }
        return c;
    }

    void run()
    {
        std::vector<unsigned char> img(map.end);
        /* operands: finite bf16 in A and B, fp32 (bf16 widened) in C */
        for (uint32_t e = 0; e < map.a_elems + map.b_elems; e++) {
            uint16_t v = bf16();
            std::memcpy(&img[map.a_base + 2 * e], &v, 2);
        }
        for (uint32_t e = 0; e < map.c_elems; e++) {
            uint32_t v = (uint32_t)bf16() << 16;
            std::memcpy(&img[map.c_base + 4 * e], &v, 4);
        }
        wait(fs::sct(PERIOD_PS * (fs::fs_core_rtl::RESET_CYCLES + 1))); /* a rising edge */
        bool ok = both("DMA write of the whole map", tlm::TLM_WRITE_COMMAND, 0, img);
        std::vector<unsigned char> rd(map.end);
        ok = ok && both("DMA read of the whole map", tlm::TLM_READ_COMMAND, 0, rd);
        tap(ok && rd == img,
            "DMA: the whole map (%u bytes) written and read back, equal bits and times", map.end);
        std::vector<unsigned char> edge(16, 0x5a);
        tap(both("DMA write across the map's end", tlm::TLM_WRITE_COMMAND, map.end - 8, edge,
                 false),
            "DMA: a beat past the map is an error on both, the beat inside is written");
        std::vector<unsigned char> far(16);
        tap(both("DMA read beyond 32-bit addresses", tlm::TLM_READ_COMMAND, 0xfffffff8ull, far,
                 false),
            "DMA: a transaction past the port's 32-bit addresses is refused whole on both");
        std::vector<unsigned char> mis(8);
        tap(both("DMA read of a misaligned beat", tlm::TLM_READ_COMMAND, 4, mis, false),
            "DMA: a misaligned beat is an error on both");

        uint64_t good = 0, bad_n = 0, gemm_ok = 0;
        for (uint64_t i = 0; i < n_cmd; i++) {
            bool bad;
            struct core_cmd c = random_cmd(&bad);
            std::vector<unsigned char> cb(fs::core_map::CMD_BYTES), st(8), mem(map.end);
            fs::core_map::encode(c, cb.data());
            char what[160];
            std::snprintf(what, sizeof(what),
                          "command %" PRIu64 " (m %u n %u k %u ta %d tb %d acc %d%s)", i, c.m, c.n,
                          c.k, c.trans_a, c.trans_b, c.accumulate, bad ? ", bad" : "");
            bool k = both(what, tlm::TLM_WRITE_COMMAND, fs::core_map::CMD, cb) &&
                     both("status", tlm::TLM_READ_COMMAND, fs::core_map::STATUS, st) &&
                     both("DMA read after the command", tlm::TLM_READ_COMMAND, 0, mem);
            uint32_t status;
            std::memcpy(&status, st.data(), 4);
            gemm_ok += k && status == CORE_OK;
            good += k;
            bad_n += status != CORE_OK;
        }
        tap(good == n_cmd,
            "%" PRIu64 " commands (%" PRIu64 " run, %" PRIu64
            " refused): status, cycles, the whole map and every time equal",
            n_cmd, gemm_ok, bad_n);
        tap(gemm_ok > n_cmd / 2 && bad_n > 0, "the traffic ran commands and had some refused");
        std::printf("1..%d\n", n);
        sc_stop();
    }
};

int sc_main(int argc, char **argv)
{
    fs::fs_check_resolution();
    uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
    uint64_t cmds = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 60;
    fs::fs_core_rtl rtl("rtl", PERIOD_PS);
    struct core_params cfg = rtl.params();
    fs::fs_core twin("twin", cfg, PERIOD_PS);
    std::printf("# seed %" PRIu64 ", %" PRIu64 " commands, core %ux%u\n", seed ? seed : 1, cmds,
                cfg.rows, cfg.cols);
    tester t("tester", seed ? seed : 1, cmds, cfg);
    t.twin.bind(twin.socket);
    t.rtl.bind(rtl.socket);
    sc_start();
    return t.failed ? 1 : 0;
}
