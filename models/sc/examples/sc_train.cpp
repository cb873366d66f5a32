/*
 * sc_train: the fc-mnist training machine as a SystemC platform (fs_machine.h): one Weight
 * Node, N Activation Nodes and the fabric as TLM-2.0 modules, the host's scheduler as their
 * initiator, running training steps on a batch of seeded random images; and, beside it, the same
 * machine run by the C entry points alone (machine_step: its own event kernel, no SystemC).
 *
 * It prints TAP lines (scripts/run-tests.sh counts them) comparing the two, step by step: the
 * simulated end time of the step (SystemC's time and the machine's), every command's start and
 * end, the loss's bits, then every counter of the run and the parameters (masters, bf16 copies,
 * optimizer state) bit for bit, and that each command went through a module.
 * Exit status 0 when all hold.
 *
 * --core picks the ANs' cores of the platform: `twin` (the machine's default core, 8 x 8 with
 * 4096-word pads, as the C twin), `twin4` (the C twin with the shape of the --sc core: 4 x 4,
 * 512-word pads) or `sc` (the core verilated with --sc, fs_core_rtl, one per AN, in SystemC
 * time: every pad access and GEMM of an AN runs on it through fs_core_be, each GEMM an
 * asynchronous command of the machine's port). With twin4 and sc the C machine has that shape
 * too, as the C twin; both must then match it bit for bit, so they match each other.
 *
 * Usage: sc_train [--nodes N] [--steps S] [--seed X] [--core twin|twin4|sc]
 *        (defaults 4, 1, 1, twin; N divides the batch 64)
 */
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "models/sc/fs_core_be.h"
#include "models/sc/fs_core_rtl.h"
#include "models/sc/fs_machine.h"
#include "models/sc/fs_time.h"

extern "C" {
#include "csim/rng.h"
}

static int n_tap = 0, n_fail = 0;

static double wall_s()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void tap(bool ok, const std::string &what)
{
    std::printf("%sok %d - %s\n", ok ? "" : "not ", ++n_tap, what.c_str());
    n_fail += !ok;
}

static struct machine *make(const struct machine_cfg &c, const std::vector<uint8_t> &img,
                            const std::vector<uint8_t> &lab, uint32_t count)
{
    struct machine *m = nullptr;
    struct err e;
    if (machine_create(&c, &m, &e) || machine_load_inputs(m, img.data(), lab.data(), count, &e)) {
        std::fprintf(stderr, "sc_train: %s\n", e.msg);
        std::exit(1);
    }
    return m;
}

static bool same_counters(struct machine *a, struct machine *b, std::string *first)
{
    size_t na, nb;
    const struct machine_counter *ca = machine_counters(a, &na);
    std::vector<struct machine_counter> va(ca, ca + na);
    const struct machine_counter *cb = machine_counters(b, &nb);
    if (na != nb) {
        *first = "counts " + std::to_string(na) + " and " + std::to_string(nb);
        return false;
    }
    for (size_t i = 0; i < na; i++)
        if (std::strcmp(va[i].name, cb[i].name) || va[i].u64 != cb[i].u64 ||
            std::memcmp(&va[i].f64, &cb[i].f64, sizeof(double))) {
            *first = va[i].name;
            return false;
        }
    *first = std::to_string(na) + " counters";
    return true;
}

static int usage(const char *what)
{
    std::fprintf(stderr,
                 "sc_train: %s; usage: sc_train [--nodes N] [--steps S] [--seed X] "
                 "[--core twin|twin4|sc] (N: 1..64 dividing the batch of 64, S >= 1)\n",
                 what);
    return 2;
}

int sc_main(int argc, char **argv)
{
    uint64_t nodes = 4, steps = 1, seed = 1;
    std::string core = "twin";
    fs::fs_check_resolution();
    for (int i = 1; i + 1 < argc || i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage("an option without its value");
        if (!std::strcmp(argv[i], "--core")) {
            core = argv[i + 1];
            if (core != "twin" && core != "twin4" && core != "sc")
                return usage(("--core '" + core + "': accepted twin, twin4, sc").c_str());
            continue;
        }
        char *end;
        uint64_t v = std::strtoull(argv[i + 1], &end, 10);
        if (*end || !*argv[i + 1] || *argv[i + 1] == '-')
            return usage((std::string("bad value for ") + argv[i]).c_str());
        if (!std::strcmp(argv[i], "--nodes"))
            nodes = v;
        else if (!std::strcmp(argv[i], "--steps"))
            steps = v;
        else if (!std::strcmp(argv[i], "--seed"))
            seed = v;
        else
            return usage((std::string("unknown option '") + argv[i] + "'").c_str());
    }

    struct machine_cfg c;
    machine_cfg_default(&c); /* fc-mnist, B 64, the Behemoth FMS on every node, tlm */
    if (nodes < 1 || nodes > MACHINE_MAX_AN || c.batch % nodes || steps < 1)
        return usage("--nodes or --steps out of range");
    c.n_an = (uint32_t)nodes;
    /* the --sc cores, one per AN, built before the simulation starts (SystemC's rule) */
    std::vector<fs::fs_core_rtl *> rtl;
    std::vector<fs::fs_core_be *> be;
    if (core != "twin")
        c.core = fs::fs_core_rtl::params(); /* the shape the --sc core was verilated with */
    if (core == "sc") {
        c.rtl = &fs::core_be_sc_ops;
        for (uint64_t n = 0; n < nodes; n++) {
            std::string k = std::to_string(n);
            rtl.push_back(new fs::fs_core_rtl(("an" + k + "_core").c_str(), c.core_period_ps));
            be.push_back(
                new fs::fs_core_be(("an" + k + "_core_port").c_str(), rtl.back()->params()));
            be.back()->socket.bind(rtl.back()->socket);
        }
    }

    uint32_t count = (uint32_t)(c.batch * steps), inputs = 784, classes = 10;
    std::vector<uint8_t> img((size_t)count * inputs), lab(count);
    uint64_t r = seed ? seed : 1;
    for (auto &p : img)
        p = (uint8_t)rng_below(&r, 256);
    for (auto &l : lab)
        l = (uint8_t)rng_below(&r, classes);

    /* The C machine, by its own entry points. */
    struct machine *ref = make(c, img, lab, count);
    double w0 = wall_s();
    std::vector<struct machine_step_info> ri(steps);
    std::vector<std::vector<uint64_t>> rs(steps), re(steps);
    for (uint64_t k = 0; k < steps; k++) {
        struct err e;
        if (machine_step(ref, &ri[k], &e)) {
            std::fprintf(stderr, "sc_train: C machine, step %" PRIu64 ": %s\n", k, e.msg);
            return 1;
        }
        const uint64_t *s, *en;
        size_t n;
        machine_cmd_times(ref, &s, &en, &n);
        rs[k].assign(s, s + n);
        re[k].assign(en, en + n);
    }

    double w_c = wall_s() - w0;

    /* The same machine as a SystemC platform. */
    struct machine *m = make(c, img, lab, count);
    /* before m is destroyed: it holds m's port */
    auto *platform = new fs::fs_platform(m, steps, core == "sc" ? 1u << HC_GEMM : 0);
    fs::fs_platform &pf = *platform;
    /* the ANs' cores alone to their RTL backend (the fs_core_be built above); the rest of the
     * machine (the flash write pipeline's twin) stays as in the C machine */
    for (uint64_t n = 0; core == "sc" && n < nodes; n++) {
        struct err e;
        if (anode_set_mode(machine_anode(m, (uint32_t)n), ANODE_RTL, &e)) {
            std::fprintf(stderr, "sc_train: %s\n", e.msg);
            return 1;
        }
    }
    w0 = wall_s();
    sc_core::sc_start();
    double w_sc = wall_s() - w0;
    const auto &res = pf.host.results();
    uint64_t commands = pf.wn.commands + pf.fabric.commands;
    for (auto *a : pf.an)
        commands += a->commands;

    tap(res.size() == steps, "the platform ran " + std::to_string(res.size()) + " of " +
                                 std::to_string(steps) + " steps" +
                                 (res.empty() || !res.back().rc ? "" : ": " + res.back().msg));
    uint64_t total = 0;
    for (uint64_t k = 0; k < res.size() && !res[k].rc; k++) {
        const auto &a = res[k].info;
        const auto &b = ri[k];
        char buf[256];
        std::snprintf(buf, sizeof(buf),
                      "step %" PRIu64 ": ends at %" PRIu64 " ps in SystemC (sc_time_stamp %" PRIu64
                      " ps), %" PRIu64 " ps in the C kernel",
                      k, a.end_ps, res[k].sc_end_ps, b.end_ps);
        /* asynchronous commands: SystemC runs ahead of the C kernel while it waits for them */
        bool sc_ok = core == "sc" ? res[k].sc_end_ps >= a.end_ps : res[k].sc_end_ps == a.end_ps;
        tap(a.end_ps == b.end_ps && a.start_ps == b.start_ps && sc_ok, buf);
        uint32_t la, lb;
        std::memcpy(&la, &a.loss, 4);
        std::memcpy(&lb, &b.loss, 4);
        std::snprintf(buf, sizeof(buf), "step %" PRIu64 ": loss %.9g (0x%08x) and %.9g (0x%08x)", k,
                      (double)a.loss, la, (double)b.loss, lb);
        tap(la == lb && !std::isnan(a.loss), buf);
        total += a.commands;
        bool same = res[k].cmd_start == rs[k] && res[k].cmd_end == re[k];
        tap(same && !rs[k].empty(), "step " + std::to_string(k) +
                                        ": every command's start and end equal (" +
                                        std::to_string(rs[k].size()) + " commands)");
    }
    std::string first;
    bool same = same_counters(m, ref, &first);
    tap(same, "every counter equal (" + first + ")");
    tap(dnn_params_equal(machine_params(m), machine_params(ref)),
        "the parameters equal bit for bit (masters, bf16 copies, optimizer state) after " +
            std::to_string(res.size()) + " steps");
    if (core == "sc") {
        uint64_t gemms = 0, beats = 0, want = 0;
        for (auto *b : be) {
            gemms += b->gemms;
            beats += b->beats;
        }
        for (uint64_t k = 0; k < res.size(); k++)
            want += res[k].info.gemms;
        tap(gemms == want && pf.host.started == want && want > 0 && beats > 0,
            std::to_string(gemms) + " GEMMs on the --sc cores, started asynchronously (" +
                std::to_string(pf.host.started) + "), of " + std::to_string(want) + "; " +
                std::to_string(beats) + " pad beats through their DMA ports");
        tap(pf.host.max_lag_ps > 0,
            "SystemC time passed while the cores computed: SystemC ran up to " +
                std::to_string(pf.host.max_lag_ps) + " ps ahead of the C kernel");
        /* every core is taken (one per AN), and none has another shape */
        struct core_params other = c.core;
        struct err e;
        void *h = nullptr;
        int rc_busy = fs::core_be_sc_ops.create(&c.core, 0, &h, &e);
        other.rows = 8;
        int rc_shape = fs::core_be_sc_ops.create(&other, 0, &h, &e);
        tap(rc_busy == -EINVAL && rc_shape == -EINVAL && std::strstr(e.msg, "8 x 4"),
            "no free --sc core for one more node, nor of another shape: " + std::string(e.msg));
    }
    tap(commands == total && total > 0, std::to_string(commands) +
                                            " transactions through the modules for " +
                                            std::to_string(total) + " commands");
    uint64_t tb = pf.wn.tb_bytes;
    for (auto *a : pf.an)
        tb += a->tb_bytes;
    tap(tb > 0, "the fabric moved " + std::to_string(tb) +
                    " bytes through the nodes' tensor-buffer sockets");
    std::printf("# wall time of the steps: C machine %.3f s, SystemC platform %.3f s\n", w_c, w_sc);
    std::printf("1..%d\n", n_tap);
    delete platform;
    machine_destroy(m); /* gives the cores back (fs_core_be) */
    for (auto *b : be)
        delete b;
    for (auto *x : rtl)
        delete x;
    machine_destroy(ref);
    return n_fail ? 1 : 0;
}
