/*
 * sc_flashgen: a SystemC traffic generator in front of an Activation Node's flash memory system
 * (fs_flash), running flashbench's workload (`flashstream flashbench`, --device fms): requests of
 * --bs bytes over --size bytes of the AN's V stream (or, with --range FIRST:COUNT, of a stream of
 * those blocks of every plane, outside the layout and without spares, as flashbench makes it),
 * --iodepth of them in flight, each issued the moment one in flight completes; reads first fill
 * the range at time 0 in appends of one controller command's pages (one long append when a
 * command holds whole program units), as flashbench does, and start when that has drained;
 * randwrite writes each request at the write pointer of a random logical block of the range
 * (the next one with room when it is full). --fault SPEC (repeatable, models/flash/flash_fault.h)
 * models bit errors and ECC and injects faults, and the report ends with flashbench's fault
 * counters line (not its fault cost line: that is a second run without the faults).
 *
 * Each of the iodepth requests in flight is a SystemC thread: it takes the next request number,
 * calls b_transport at its present time and waits the annotated delay. Requests issued at the
 * same time reach the flash model in request order, as flashbench issues them, so the C model
 * sees the same calls at the same times and the figures printed are flashbench's: the IOPS/BW
 * line and the latency lines in its format (scripts/check-sc.sh compares them).
 *
 * Usage: sc_flashgen [--rw write|read|randwrite|randread] [--bs BYTES] [--iodepth N]
 *                    [--size BYTES] [--seed N] [--range FIRST:COUNT] [--fault SPEC]...
 * Defaults are flashbench's: write, 65536, 32, 4294967296, 1, and so are the limits (iodepth
 * 1..65536, bs up to 1 GiB, size up to 16 TiB). Sizes in bytes (no suffixes).
 */
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/sc/fs_flash.h"
#include "models/sc/fs_time.h"

extern "C" {
#include "csim/rng.h"
#include "models/flash/flash_fault.h"
#include "models/flash/flash_sys.h"
#include "models/flash/ftl_layout.h"
}

using namespace sc_core;

enum rw { RW_WRITE, RW_READ, RW_RANDWRITE, RW_RANDREAD };

struct opts {
    int rw = RW_WRITE;
    uint64_t bs = 65536, iodepth = 32, size = 4ull << 30, seed = 1;
    uint32_t range_first = 0, range_count = 0; /* --range; count 0: the layout's V stream */
};

/* The generator: one thread per request in flight. */
struct flashgen : sc_module {
    tlm_utils::simple_initiator_socket<flashgen> socket;
    opts o;
    uint32_t page;
    uint64_t n_req, next = 0, rng, t_start = 0, t_end = 0, prefill_pages = 0, chunk = 0;
    uint64_t sbp = 0;         /* randwrite: pages of a logical block ... */
    std::vector<uint64_t> wp; /* ... and the write pointer of each the range spans */
    std::vector<uint64_t> lat;
    bool failed = false;
    sc_event started;

    flashgen(sc_module_name n, const opts &op, uint32_t page_bytes, uint64_t cmd_pages,
             uint32_t planes, uint64_t lb_pages)
        : sc_module(n), socket("socket"), o(op), page(page_bytes), rng(op.seed), sbp(lb_pages)
    {
        n_req = o.size / o.bs;
        lat.resize(n_req);
        if (o.rw == RW_RANDWRITE)
            wp.assign((o.size / o.bs * o.bs / page + sbp - 1) / sbp, 0);
        if (o.rw == RW_READ || o.rw == RW_RANDREAD) {
            prefill_pages = (o.size / o.bs * o.bs + page - 1) / page;
            chunk = cmd_pages % planes == 0 ? prefill_pages : cmd_pages;
        }
        SC_HAS_PROCESS(flashgen);
        SC_THREAD(prefill);
        for (uint64_t k = 0; k < o.iodepth; k++)
            sc_spawn(sc_bind(&flashgen::worker, this));
    }

    /* One transaction at the thread's present time; its delay, or fail. */
    bool transfer(tlm::tlm_command cmd, uint64_t addr, uint64_t len, sc_time &delay)
    {
        tlm::tlm_generic_payload tx;
        tx.set_command(cmd);
        tx.set_address(addr);
        tx.set_data_ptr(nullptr); /* timing only: the flash model stores no payload */
        tx.set_data_length((unsigned)len);
        tx.set_streaming_width((unsigned)len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        delay = SC_ZERO_TIME;
        socket->b_transport(tx, delay);
        if (tx.is_response_error()) {
            failed = true;
            return false;
        }
        return true;
    }

    void prefill()
    {
        uint64_t end = 0;
        sc_time d;
        for (uint64_t p = 0; p < prefill_pages && !failed; p += chunk) {
            uint64_t n = prefill_pages - p < chunk ? prefill_pages - p : chunk;
            if (transfer(tlm::TLM_WRITE_COMMAND, fs::fs_flash::addr(0, p, 0, page), n * page, d))
                end = std::max(end, fs::ps(d));
        }
        wait(fs::sct(end)); /* reads start when the prefill has drained */
        t_start = t_end = fs::now_ps();
        started.notify();
    }

    void worker()
    {
        wait(started);
        for (;;) {
            uint64_t i = next++, addr;
            if (i >= n_req || failed)
                return;
            if (o.rw == RW_WRITE) {
                addr = fs::fs_flash::addr(0, i * (o.bs / page), 0, page);
            } else if (o.rw == RW_RANDWRITE) {
                uint64_t lb = rng_below(&rng, wp.size()), pages = o.bs / page;
                while (wp[lb] + pages > sbp) /* full: the next one with room */
                    lb = (lb + 1) % wp.size();
                addr = fs::fs_flash::addr(0, lb * sbp + wp[lb], 0, page);
                wp[lb] += pages;
            } else {
                uint64_t off = (o.rw == RW_READ ? i : rng_below(&rng, o.size / o.bs)) * o.bs;
                addr = fs::fs_flash::addr(0, off / page, (uint32_t)(off % page), page);
            }
            sc_time d;
            bool wr = o.rw == RW_WRITE || o.rw == RW_RANDWRITE;
            if (!transfer(wr ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, o.bs, d))
                return;
            lat[i] = fs::ps(d);
            wait(d);
            t_end = std::max(t_end, fs::now_ps());
        }
    }
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* flashbench's report lines (testbench/flashstream/flashbench.c), from the generator's figures. */
static void report(const char *rw, flashgen &g)
{
    static const double pct[] = {1, 5, 10, 50, 90, 95, 99, 99.9, 99.99};
    uint64_t n = g.n_req, bytes = n * g.o.bs;
    double secs = (double)(g.t_end - g.t_start) / FLASH_PS_PER_S, bw = (double)bytes / secs;
    double sum = 0.0, sq = 0.0, avg, sd;
    char human[32];
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    uint64_t b = bytes;
    int u = 0;

    while (u < 4 && b >= 1024 && b % 1024 == 0) {
        b /= 1024;
        u++;
    }
    std::snprintf(human, sizeof(human), "%" PRIu64 "%s", b, unit[u]);
    std::printf("  %s: IOPS=%.0f, BW=%.2fGB/s (%.2fGiB/s)(%s/%.3fms)\n", rw, (double)n / secs,
                bw / 1e9, bw / (double)(1ull << 30), human, secs * 1e3);
    std::qsort(g.lat.data(), n, sizeof(uint64_t), cmp_u64);
    for (uint64_t i = 0; i < n; i++)
        sum += (double)g.lat[i];
    avg = sum / (double)n;
    for (uint64_t i = 0; i < n; i++)
        sq += ((double)g.lat[i] - avg) * ((double)g.lat[i] - avg);
    sd = n > 1 ? std::sqrt(sq / (double)(n - 1)) : 0.0;
    std::printf("    lat (usec): min=%.2f, max=%.2f, avg=%.2f, stdev=%.2f\n",
                (double)g.lat[0] / FLASH_PS_PER_US, (double)g.lat[n - 1] / FLASH_PS_PER_US,
                avg / FLASH_PS_PER_US, sd / FLASH_PS_PER_US);
    std::printf("    lat percentiles (usec):\n");
    for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
        uint64_t k = (uint64_t)std::ceil(pct[i] / 100.0 * (double)n);
        k = k ? k - 1 : 0;
        std::printf("%s%6.2fth=[%9.2f]%s", i % 4 == 0 ? "     | " : "", pct[i],
                    (double)g.lat[k] / FLASH_PS_PER_US,
                    i % 4 == 3 || i + 1 == sizeof(pct) / sizeof(pct[0]) ? "\n" : ", ");
    }
}

static int usage(const char *what)
{
    std::fprintf(stderr,
                 "sc_flashgen: %s; usage: sc_flashgen [--rw write|read|randwrite|randread] "
                 "[--bs BYTES] [--iodepth N] [--size BYTES] [--seed N] [--range FIRST:COUNT] "
                 "[--fault SPEC]... (BYTES: a multiple of the 4096-byte page for --bs, --size a "
                 "multiple of --bs; FIRST:COUNT decimal, COUNT >= 1; SPEC as flashbench's)\n",
                 what);
    return 2;
}

static bool num(const char *s, uint64_t *v)
{
    char *end;
    if (!s || !*s || *s == '-')
        return false;
    *v = std::strtoull(s, &end, 10);
    return *end == 0 && *v > 0;
}

int sc_main(int argc, char **argv)
{
    static const char *const rw_names[] = {"write", "read", "randwrite", "randread"};
    opts o;
    struct flash_fault_cfg fault;
    struct err e;

    flash_fault_cfg_default(&fault);

    fs::fs_check_resolution();
    for (int i = 1; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
        bool ok = v != nullptr;
        if (!std::strcmp(k, "--rw")) {
            int j = 0;
            while (j < 4 && std::strcmp(v ? v : "", rw_names[j]))
                j++;
            ok = j < 4;
            o.rw = j;
        } else if (!std::strcmp(k, "--bs")) {
            ok = num(v, &o.bs);
        } else if (!std::strcmp(k, "--iodepth")) {
            ok = num(v, &o.iodepth);
        } else if (!std::strcmp(k, "--size")) {
            ok = num(v, &o.size);
        } else if (!std::strcmp(k, "--seed")) {
            ok = num(v, &o.seed);
        } else if (!std::strcmp(k, "--range")) {
            uint64_t first = 0, count = 0;
            char *colon = nullptr, *end = nullptr;
            if (v && *v >= '0' && *v <= '9')
                first = std::strtoull(v, &colon, 10);
            if (colon && *colon == ':' && colon[1] >= '0' && colon[1] <= '9')
                count = std::strtoull(colon + 1, &end, 10);
            ok = end && !*end && count && first <= UINT32_MAX && count <= UINT32_MAX;
            o.range_first = (uint32_t)first;
            o.range_count = (uint32_t)count;
        } else if (!std::strcmp(k, "--fault")) {
            if (ok && flash_fault_parse(&fault, v, &e)) {
                std::fprintf(stderr, "sc_flashgen: %s\n", e.msg);
                return 2;
            }
        } else {
            return usage((std::string("unknown option '") + k + "'").c_str());
        }
        if (!ok)
            return usage((std::string("bad value for ") + k).c_str());
    }

    /* The system under test: flashbench's (the AN's layout, its V stream and spares). */
    struct flash_cfg cfg;
    struct ftl_layout lay;
    struct ftl_stream_cfg scfg;
    struct flash_sys sys;

    if (o.iodepth > 65536 || o.bs > (1ull << 30) || o.size > (1ull << 44))
        return usage("--iodepth above 65536, --bs above 1 GiB or --size above 16 TiB "
                     "(flashbench's limits)");
    flash_cfg_default(&cfg);
    cfg.sw.store_payload = false; /* timing only, as flashbench's requests (they carry no data) */
    if (o.bs % cfg.geom.page_bytes || o.size % o.bs)
        return usage("--bs must be whole pages and --size whole requests");
    uint32_t sp_first = cfg.geom.blocks_per_plane, sp_count = 0; /* no spares */
    if (o.range_count) {
        /* flashbench's --range stream: those blocks of every plane, outside any layout */
        if ((uint64_t)o.range_first + o.range_count > cfg.geom.blocks_per_plane)
            return usage(("--range does not fit in a plane of " +
                          std::to_string(cfg.geom.blocks_per_plane) + " blocks")
                             .c_str());
        std::memset(&scfg, 0, sizeof(scfg));
        std::snprintf(scfg.name, sizeof(scfg.name), "V");
        scfg.first_block = o.range_first;
        scfg.n_blocks = o.range_count;
        scfg.pe_budget = 2000000;
        scfg.retention_s = FTL_SEC_PER_DAY;
        scfg.erase_on_release = true;
    } else {
        ftl_layout_an(&lay);
        const struct ftl_region *spare = ftl_layout_spare(&lay);
        ftl_stream_cfg_from_region(&scfg, ftl_layout_find(&lay, "V"));
        scfg.check_retention = false; /* as flashbench */
        sp_first = spare->first;
        sp_count = spare->count;
    }
    cfg.fault = fault;
    if (flash_sys_init(&sys, &cfg, sp_first, sp_count, &scfg, 1, &e)) {
        std::fprintf(stderr, "sc_flashgen: %s\n", e.msg);
        return 1;
    }
    struct ftl_stream *s = sys.s[0];
    if (o.size / o.bs * o.bs / cfg.geom.page_bytes > ftl_stream_lpages(s))
        return usage("--size is larger than the V stream");
    uint64_t sbp = ftl_stream_sb_pages(s);
    if (o.rw == RW_RANDWRITE && sbp % (o.bs / cfg.geom.page_bytes))
        return usage(("randwrite needs requests that divide a logical block of " +
                      std::to_string(sbp) + " pages")
                         .c_str());

    fs::fs_flash flash("an0_flash", &sys.ctrl, {s});
    flashgen gen("gen", o, cfg.geom.page_bytes, cfg.tim.ctrl_cmd_bytes / cfg.geom.page_bytes,
                 cfg.geom.planes_per_die, sbp);
    gen.socket.bind(flash.socket);
    sc_start();
    if (gen.failed) {
        std::fprintf(stderr, "sc_flashgen: %s\n", flash.last_error().c_str());
        return 1;
    }
    report(rw_names[o.rw], gen);
    struct flash_fault_stats fs;
    if (flash_fms_fault_stats(sys.fms, &fs)) /* flashbench's line */
        std::printf("  faults: %" PRIu64 " pages decoded, %" PRIu64 " read again (%" PRIu64
                    " retries, %.3f ms of array and channel time), %" PRIu64
                    " uncorrectable; %" PRIu64 " program failures; %" PRIu64
                    " operations refused by a dead die or channel, %" PRIu64 " by power loss\n",
                    fs.pages_checked, fs.pages_retried, fs.retries, fs.retry_ps / 1e9,
                    fs.uncorrectable, fs.program_failures, fs.refused_dead, fs.refused_power);
    std::printf("  simulated %.3f ms; SystemC time %s\n",
                (double)(gen.t_end - gen.t_start) / FLASH_PS_PER_MS,
                sc_time_stamp().to_string().c_str());
    flash_sys_fini(&sys);
    return 0;
}
