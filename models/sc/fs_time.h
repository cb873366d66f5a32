/*
 * fs_time: how models/sc meets the C event kernel (csim/sim.h) and the flash, core and fabric
 * models, whose times are picoseconds in uint64_t.
 *
 * SystemC time is kept in picoseconds too: fs_check_resolution() (call it in sc_main before any
 * sc_time is made) insists on SystemC's default 1 ps resolution, so sc_time::value() is the C
 * models' sim_time_t, exactly, and no conversion ever rounds.
 *
 * The two schedulers meet in one place, fs_run_kernel(): called from a SystemC thread, it fires
 * the C kernel's events one time step at a time, and before each step waits in SystemC until
 * SystemC time equals that step's time. So at every C event sc_time_stamp() == sim_now(), the C
 * callbacks run inside the calling SystemC process (a TLM b_transport from them is a plain call,
 * loosely timed), and every other SystemC process runs in between, at its own times. The C
 * kernel never runs ahead: it only fires events at or before SystemC's present. With commands
 * in flight on SystemC modules (fs_inflight) it also waits for them, and may fall behind.
 */
#ifndef MODELS_SC_FS_TIME_H
#define MODELS_SC_FS_TIME_H

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <systemc>

extern "C" {
#include "csim/sim.h"
}

namespace fs
{

inline void fs_check_resolution()
{
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
        std::fprintf(stderr,
                     "models/sc: SystemC's time resolution must be 1 ps (the C models' "
                     "unit); it is %s\n",
                     sc_core::sc_get_time_resolution().to_string().c_str());
        std::exit(2);
    }
}

/* SystemC time <-> picoseconds (exact at 1 ps resolution). */
inline uint64_t ps(const sc_core::sc_time &t)
{
    return t.value();
}
inline sc_core::sc_time sct(uint64_t ps)
{
    return sc_core::sc_time::from_value(ps);
}
inline uint64_t now_ps()
{
    return sc_core::sc_time_stamp().value();
}

/*
 * Commands in flight on SystemC modules (a machine port's asynchronous commands, fs_machine.h):
 * whoever starts one counts it in inflight, whoever completes it counts it out and notifies
 * done. While one is in flight, fs_run_kernel fires no event of a later time step: the
 * command's end is not known yet, and an event after it must not fire before it.
 */
struct fs_inflight {
    unsigned inflight = 0;
    sc_core::sc_event done;
};

/*
 * From an SC_THREAD: fire sim's events until its queue is empty (or a callback called
 * sim_stop), each time step when SystemC time has reached it. A C kernel that is ahead of
 * SystemC is waited for first; one that is behind (SystemC time passed while it was idle) is
 * moved up to SystemC's present first, unless it holds an event before that present (-EINVAL:
 * that event would fire late). Returns that or sim_run_until's error, message in e.
 *
 * With g (commands in flight on SystemC modules): before each time step, wait until none is in
 * flight. SystemC time passes while they run, so the C kernel may fall behind SystemC; it is
 * then never moved up (its times are the machine's): its next step fires at once, late in
 * SystemC time, and SystemC waits again only for a step ahead of it.
 */
inline int fs_run_kernel(struct sim *sim, struct err *e, fs_inflight *g = nullptr)
{
    sim_time_t t;
    int rc;

    if (sim_now(sim) > now_ps()) {
        sc_core::wait(sct(sim_now(sim) - now_ps()));
    } else if (sim_now(sim) < now_ps() && !g) {
        if (sim_next_time(sim, &t) && t < now_ps())
            return err_set(e, -EINVAL,
                           "models/sc: the C kernel has an event at %llu ps, before SystemC's "
                           "present (%llu ps); schedule C events at or after sc_time_stamp()",
                           (unsigned long long)t, (unsigned long long)now_ps());
        if ((rc = sim_run_until(sim, now_ps(), e)))
            return rc;
    }
    for (;;) {
        while (g && g->inflight)
            sc_core::wait(g->done);
        if (!sim_next_time(sim, &t))
            break;
        if (t > now_ps())
            sc_core::wait(sct(t - now_ps()));
        if ((rc = sim_run_until(sim, t, e)))
            return rc;
        if (sim_stopped(sim))
            break;
    }
    while (g && g->inflight) /* a stopped kernel: let what runs finish */
        sc_core::wait(g->done);
    return 0;
}

} // namespace fs

#endif
