/*
 * flashstream cosim: the event kernel and a verilated RTL block together.
 *
 * A C producer process emits bursts of beats at random times; a verilated
 * cmn_fifo, in a 1 GHz clock domain of the event kernel, carries them to a C
 * consumer that is ready only part of the time. The clock domain ticks only
 * while the FIFO or the producer has work: idle stretches between bursts
 * cost no events and no model evaluation (the shim's cycle count skips
 * over them, so the waves keep the true time line). Every beat is checked
 * for order, loss and duplication; the same seed gives the same run.
 */
#define _DEFAULT_SOURCE
#include "csim/rng.h"
#include "csim/shim/common_vpipe.h"
#include "csim/sim.h"
#include "testbench/flashstream/cli.h"
#include "testbench/flashstream/commands.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct cosim_opts {
    uint64_t seed, beats, burst, gap_ns, ready_pct, period_ps, wave_cycles;
    const char *waves; /* NULL: no waves */
};

struct cosim {
    struct cosim_opts o;
    struct sim *sim;
    struct sim_clock *clk;
    struct vpipe_rtl *fifo;
    uint64_t mask, rng;
    uint64_t made, sent, recvd; /* beats produced, into the FIFO, out of it */
    uint64_t level_sum, level_max, stall_cycles;
    int error;
};

/* The payload of beat i: a function of the seed, so the checker needs no copy. */
static uint64_t payload(const struct cosim *c, uint64_t i)
{
    uint64_t s = c->o.seed ^ (i * 0xd1342543de82ef95ull);
    return rng_next(&s) & c->mask;
}

static void produce(struct sim *sim, void *user)
{
    struct cosim *c = user;
    struct err e;
    uint64_t n = 1 + rng_next(&c->rng) % (2 * c->o.burst - 1);
    if (n > c->o.beats - c->made)
        n = c->o.beats - c->made;
    c->made += n;
    if (sim_clock_wake(c->clk, &e))
        goto out_fail;
    if (c->made < c->o.beats) {
        uint64_t gap = c->o.gap_ns / 2 + rng_next(&c->rng) % (c->o.gap_ns + 1);
        if (sim_schedule_in(sim, gap * SIM_NS, 0, "producer", produce, c, NULL, &e))
            goto out_fail;
    }
    return;

out_fail:
    fprintf(stderr, "flashstream cosim: %s\n", e.msg);
    c->error = 1;
    sim_stop(sim);
}

static bool fifo_tick(struct sim *sim, void *user)
{
    struct cosim *c = user;
    (void)sim;
    /* Catch the model up over the idle cycles the kernel skipped. */
    uint64_t now = sim_clock_cycle(c->clk);
    if (now > vpipe_rtl_cycle(c->fifo))
        vpipe_rtl_skip(c->fifo, now - vpipe_rtl_cycle(c->fifo));

    struct vpipe_in in = {
        .in_valid = c->sent < c->made,
        .in_data = payload(c, c->sent),
        .out_ready = rng_next(&c->rng) % 100 < c->o.ready_pct,
    };
    vpipe_rtl_set(c->fifo, &in);
    struct vpipe_out out;
    vpipe_rtl_get(c->fifo, &out);
    if (out.out_valid && in.out_ready) {
        uint64_t want = payload(c, c->recvd);
        if (out.out_data != want && !c->error) {
            fprintf(stderr,
                    "cosim: seed %" PRIu64 " beat %" PRIu64 ": got %#" PRIx64 ", expected %#" PRIx64
                    "\n",
                    c->o.seed, c->recvd, out.out_data, want);
            c->error = 1;
            sim_stop(c->sim);
        }
        c->recvd++;
    }
    if (in.in_valid && out.in_ready)
        c->sent++;
    c->stall_cycles += out.out_valid && !in.out_ready;
    c->level_sum += (uint64_t)out.level;
    if ((uint64_t)out.level > c->level_max)
        c->level_max = (uint64_t)out.level;
    vpipe_rtl_step(c->fifo, 1);
    return c->sent < c->made || c->recvd < c->sent;
}

#define COSIM_FIELD(member) CLI_FIELD(struct cosim_opts, member)

static const struct cli_opt cosim_options[] = {
    {CLI_OPT("seed", "N", NULL, "random seed (default 1)"),
     CLI_U64(COSIM_FIELD(seed), 0, UINT64_MAX)},
    {CLI_OPT("beats", "N", NULL, "beats to carry (default 1000000)"),
     CLI_U64(COSIM_FIELD(beats), 1, 1ull << 40)},
    {CLI_OPT("burst", "N", NULL, "mean burst length in beats (default 64)"),
     CLI_U64(COSIM_FIELD(burst), 1, 1ull << 20)},
    {CLI_OPT("gap-ns", "N", NULL, "mean time between bursts, ns (default 200)"),
     CLI_U64(COSIM_FIELD(gap_ns), 0, 1ull << 30)},
    {CLI_OPT("ready-pct", "N", NULL, "consumer ready probability per cycle, % (default 70)"),
     CLI_U64(COSIM_FIELD(ready_pct), 1, 100)},
    {CLI_OPT("period-ps", "N", NULL, "FIFO clock period, ps (default 1000)"),
     CLI_U64(COSIM_FIELD(period_ps), 2, 1000000000)},
    {CLI_OPT("waves", "FILE", NULL, "FST of the first cycles (default waves/cmn_fifo.fst)"),
     CLI_STR(COSIM_FIELD(waves))},
    {CLI_OPT("wave-cycles", "N", NULL, "cycles in the FST (default 5000)"),
     CLI_U64(COSIM_FIELD(wave_cycles), 1, 1ull << 32)},
    {CLI_OPT("no-waves", NULL, NULL, "no FST"), CLI_SET_STR(COSIM_FIELD(waves), NULL)},
    {0},
};

#undef COSIM_FIELD

static const struct cli_cmd cosim_cli = {.name = "cosim", .opts = cosim_options};

/* 0 (run), CLI_DONE (help printed: exit 0), -1 (error printed). */
static int parse(int argc, char **argv, struct cosim_opts *o)
{
    *o = (struct cosim_opts){.seed = 1,
                             .beats = 1000000,
                             .burst = 64,
                             .gap_ns = 200,
                             .ready_pct = 70,
                             .period_ps = 1000,
                             .wave_cycles = 5000,
                             .waves = "waves/cmn_fifo.fst"};
    return cli_parse(&cosim_cli, argc, argv, o, NULL);
}

/* What was run and what came out; ok: every beat received in order. */
static void report(const struct cosim *c, const struct vpipe_params *prm, double wall, bool ok)
{
    uint64_t cycles = sim_clock_cycle(c->clk), ticks = sim_clock_ticks(c->clk);

    printf("flashstream cosim: verilated %s (width %u, depth %u) in a %.0f MHz clock domain\n",
           prm->module, prm->width, prm->depth, 1e6 / (double)c->o.period_ps);
    printf("  producer  %" PRIu64 " beats in bursts of 1..%" PRIu64 ", every ~%" PRIu64 " ns\n",
           c->o.beats, 2 * c->o.burst - 1, c->o.gap_ns);
    printf("  consumer  ready %" PRIu64 "%% of cycles\n", c->o.ready_pct);
    printf("  simulated %.3f us, %" PRIu64 " cycles: %" PRIu64 " evaluated, %" PRIu64
           " idle skipped (%.1f%%)\n",
           (double)sim_now(c->sim) / SIM_US, cycles, ticks, cycles - ticks,
           cycles ? 100.0 * (double)(cycles - ticks) / (double)cycles : 0.0);
    printf("  FIFO      %.3f beats per active cycle, mean occupancy %.2f, max %" PRIu64
           ", output stalled %" PRIu64 " cycles\n",
           ticks ? (double)c->recvd / (double)ticks : 0.0,
           ticks ? (double)c->level_sum / (double)ticks : 0.0, c->level_max, c->stall_cycles);
    printf("  kernel    %" PRIu64 " events, wall %.3f s, %.2f M evaluated cycles/s\n",
           sim_events_fired(c->sim), wall, wall > 0 ? (double)ticks / wall / 1e6 : 0.0);
    printf("  check     %" PRIu64 " of %" PRIu64 " beats received in order: %s\n", c->recvd,
           c->o.beats, ok ? "PASS" : "FAIL");
}

int cmd_cosim(int argc, char **argv)
{
    struct cosim c = {0};
    struct err e;
    int rc = parse(argc, argv, &c.o);
    if (rc)
        return rc > 0 ? 0 : 2;
    struct stat st;
    if (c.o.waves && stat(c.o.waves, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "flashstream cosim: --waves %s is a directory; give the FST file to write, e.g. "
                "%s/cmn_fifo.fst\n",
                c.o.waves, c.o.waves);
        return 2;
    }
    c.rng = c.o.seed;
    if (sim_create(&c.sim, &e)) {
        fprintf(stderr, "flashstream cosim: %s\n", e.msg);
        return 1;
    }
    c.fifo = vpipe_rtl_create(c.o.seed);
    if (!c.fifo) {
        fprintf(stderr, "flashstream cosim: out of memory\n");
        return 1;
    }
    struct vpipe_params prm;
    vpipe_rtl_params(c.fifo, &prm);
    c.mask = prm.width >= 64 ? ~0ull : (1ull << prm.width) - 1;
    if (c.o.waves) {
        struct vtrace_opts t = {.path = c.o.waves,
                                .first_cycle = 0,
                                .last_cycle = c.o.wave_cycles - 1,
                                .period_ps = c.o.period_ps};
        if (vpipe_rtl_trace(c.fifo, &t)) {
            fprintf(stderr, "flashstream cosim: cannot write waves to '%s'\n", c.o.waves);
            return 1;
        }
    }
    /* Synchronous reset for two cycles, then hand the clock to the kernel. */
    struct vpipe_in rst = {.rst = true};
    vpipe_rtl_set(c.fifo, &rst);
    vpipe_rtl_step(c.fifo, 2);
    rst.rst = false;
    vpipe_rtl_set(c.fifo, &rst);
    struct sim_clock_cfg cc = {.name = "fifo_clk",
                               .period_ps = (int64_t)c.o.period_ps,
                               .start = 0,
                               .tick = fifo_tick,
                               .user = &c,
                               .start_idle = true};
    if (sim_clock_create(&cc, c.sim, &c.clk, &e) ||
        sim_schedule_at(c.sim, 2 * c.o.period_ps, 0, "producer", produce, &c, NULL, &e)) {
        fprintf(stderr, "flashstream cosim: %s\n", e.msg);
        return 1;
    }

    double t0 = cli_wall_s();
    if (sim_run(c.sim, &e)) {
        fprintf(stderr, "flashstream cosim: %s\n", e.msg);
        c.error = 1;
    }
    double wall = cli_wall_s() - t0;

    bool ok = !c.error && c.recvd == c.o.beats;
    report(&c, &prm, wall, ok);
    int wrc = c.o.waves ? vpipe_rtl_trace_close(c.fifo) : 0; /* the FST moved into place */
    vpipe_rtl_destroy(c.fifo);
    if (wrc) {
        fprintf(stderr, "flashstream cosim: cannot write waves to '%s': %s\n", c.o.waves,
                strerror(-wrc));
        ok = false;
    } else if (c.o.waves) {
        printf("  waves     %s (first %" PRIu64 " cycles); open: gtkwave waves/common.gtkw\n",
               c.o.waves, c.o.wave_cycles);
    }
    sim_destroy(c.sim);
    return ok ? 0 : 1;
}
