/*
 * fs_machine: the training machine (models/machine) as a SystemC/TLM-2.0 platform: a Weight
 * Node, N Activation Nodes and the fabric as modules with target sockets, and the host's
 * scheduler as the initiator that sends them the commands of each training step.
 *
 * What is where:
 *   - The C models stay the single implementation and own all state: machine_create builds
 *     the nodes (models/node: flash, DMA, core, vector unit, optimizer) and the fabric, and the
 *     modules here hold pointers to them. fs_wn and fs_an perform a command with wnode_exec /
 *     anode_exec. Each also has a target socket `tb` onto its tensor buffer (the node's DRAM
 *     model: READ / WRITE at its byte addresses, no time of its own).
 *   - fs_fabric is a target for the fabric's commands and an initiator onto the nodes' tensor
 *     buffers (to_wn, to_an[n], bound to their `tb`): it moves a broadcast's bytes from the WN
 *     to every AN, reads the ANs' fp32 partials of a reduce or loss gather, sums them in node
 *     order with fabric_reduce_f32 (models/fabric, the only implementation of the sum) and
 *     writes the sum to the WN (a loss gather's sum becomes the step's loss:
 *     machine_fabric_loss); then it times the transfer with machine_fabric_time (models/fabric's
 *     broadcast / reduce model). In perf (payload-free) it moves no bytes, as the machine.
 *   - fs_host installs a machine_port: the machine's scheduler (dependencies, each resource's
 *     program order, its C event kernel) decides when a command starts; the port sends it as a
 *     generic payload (TLM_IGNORE_COMMAND, address = command id, the command in an fs_cmd_ext)
 *     through the host's initiator socket of the node that performs it (to_wn, to_an[n],
 *     to_fabric). The target annotates end - now as the delay (loosely timed, the C block's
 *     time) and returns when its resource is free again in the extension.
 *   - Time: the step's C event kernel runs inside fs_host's thread through fs_run_kernel
 *     (fs_time.h): every command starts, and every b_transport is called, at sc_time_stamp() ==
 *     the machine's time; the step ends with SystemC time at its last event. The command's
 *     time also travels in the extension (fs_cmd_ext::now): the targets perform it then.
 *   - Asynchronous commands (fs_platform's async_an, e.g. the GEMMs of ANs whose core is the
 *     --sc core behind fs_core_be): the AN performs them in its own thread, where SystemC time
 *     passes while the core computes, and reports the end to the host, which hands it to the
 *     machine (machine_port_done: the machine.h contract). The C kernel waits for them, so
 *     SystemC time runs ahead of the machine's; the machine's times stay the C kernel's.
 * The simulated times, losses and counters are the C machine's, bit for bit (the example
 * sc_train checks them against a machine run by machine_step alone).
 */
#ifndef MODELS_SC_FS_MACHINE_H
#define MODELS_SC_FS_MACHINE_H

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "models/sc/fs_time.h"

extern "C" {
#include "models/machine/machine.h"
#include "models/node/anode.h"
#include "models/node/wnode.h"
}

namespace fs
{

/* One command of a compiled program, and what the target reports back. */
struct fs_cmd_ext : tlm::tlm_extension<fs_cmd_ext> {
    const struct hc_prog *prog = nullptr;
    const struct hc_cmd *cmd = nullptr;
    const uint64_t *ready = nullptr; /* fabric reduce / gather: each AN's operands ready */
    uint64_t now = 0;                /* the command's start: the machine's time */
    bool started = false;            /* out: started only; completed by the target's
                                        fs_completion (an asynchronous command) */
    uint64_t free_at = 0;            /* out: the resource can take its next command */
    int rc = 0;                      /* out: 0 or the block's negative errno */
    struct err *e = nullptr;         /* out: the block's message */

    tlm::tlm_extension_base *clone() const override
    {
        return new fs_cmd_ext(*this);
    }
    void copy_from(const tlm::tlm_extension_base &o) override
    {
        *this = static_cast<const fs_cmd_ext &>(o);
    }
};

/* Where a target reports the completion of a command it only started. */
struct fs_completion {
    virtual void complete(uint32_t id, int rc, uint64_t end, uint64_t free_at,
                          const struct err &e) = 0;
    virtual ~fs_completion() = default;
};

/* A node: a target that performs commands with fn(node, prog, cmd, now, end, free_at, e), and
 * its tensor buffer tb as a target (ADDRESS_ERROR outside it; no time: whoever moves the bytes
 * times them). A command of a kind set by go_async is performed in the node's own thread: the
 * transaction returns at once with `started` set, fn runs there (it may wait in SystemC time:
 * fs_core_be), and its end goes to the fs_completion; one such command at a time. */
template <typename Node> struct fs_node : sc_core::sc_module {
    using exec_fn = int (*)(Node *, const struct hc_prog *, const struct hc_cmd *, uint64_t,
                            uint64_t *, uint64_t *, struct err *);
    tlm_utils::simple_target_socket<fs_node> cmd, tb;
    uint64_t commands = 0; /* performed */
    uint64_t tb_bytes = 0; /* moved through tb */

    fs_node(sc_core::sc_module_name name, Node *node, exec_fn fn, struct dram *mem)
        : sc_module(name), cmd("cmd"), tb("tb"), node_(node), fn_(fn), mem_(mem)
    {
        cmd.register_b_transport(this, &fs_node::b_transport);
        tb.register_b_transport(this, &fs_node::tb_transport);
        SC_HAS_PROCESS(fs_node);
        SC_THREAD(worker);
    }
    /* kinds: a bit mask of enum hc_kind (1u << HC_GEMM); 0: every command synchronous. */
    void go_async(uint32_t kinds, fs_completion *to)
    {
        async_ = kinds;
        to_ = to;
    }

  private:
    Node *node_;
    exec_fn fn_;
    struct dram *mem_;
    uint32_t async_ = 0;
    fs_completion *to_ = nullptr;
    const struct hc_prog *job_prog_ = nullptr;
    const struct hc_cmd *job_ = nullptr;
    uint64_t job_now_ = 0;
    sc_core::sc_event job_ev_;
    void worker();

    void b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay);
    void tb_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay);
};

using fs_wn = fs_node<struct wnode>;
using fs_an = fs_node<struct anode>;

/* The fabric: broadcast, reduce and loss-gather commands in, the nodes' tensor buffers out. */
struct fs_fabric : sc_core::sc_module {
    tlm_utils::simple_target_socket<fs_fabric> cmd;
    tlm_utils::simple_initiator_socket<fs_fabric> to_wn;
    tlm_utils::multi_passthrough_initiator_socket<fs_fabric> to_an; /* bound to AN 0, 1, ... */
    uint64_t commands = 0;

    fs_fabric(sc_core::sc_module_name name, struct machine *m);

  private:
    struct machine *m_;
    std::vector<unsigned char> buf_;
    void b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay);
    int move(const struct hc_cmd *c, struct err *e);
    int tb(tlm::tlm_generic_payload &tx, bool wn, uint32_t n, tlm::tlm_command cmd, uint64_t addr,
           void *data, uint64_t len, const struct hc_cmd *c, struct err *e);
};

/* The host: runs training steps, sending each command to the module that performs it. A
 * command a target only started (fs_cmd_ext::started) is in flight until the target reports
 * it to complete(), which hands it to the machine (machine_port_done); the C kernel waits for
 * it (fs_run_kernel with the host's fs_inflight). */
struct fs_host : sc_core::sc_module, fs_completion {
    tlm_utils::simple_initiator_socket<fs_host> to_wn, to_fabric;
    tlm_utils::multi_passthrough_initiator_socket<fs_host> to_an; /* bound to AN 0, 1, ... */

    struct step_result {
        int rc;
        struct machine_step_info info;
        uint64_t sc_end_ps;                       /* sc_time_stamp() when machine_step returned */
        std::vector<uint64_t> cmd_start, cmd_end; /* machine_cmd_times of the step */
        std::string msg;
    };

    /* Runs `steps` training steps on m from the start of simulation (batches must be loaded),
     * then sc_stop(). */
    fs_host(sc_core::sc_module_name name, struct machine *m, uint64_t steps);
    ~fs_host() override;
    void complete(uint32_t id, int rc, uint64_t end, uint64_t free_at,
                  const struct err &e) override;
    bool async = false;      /* targets may only start commands (fs_platform's async_an) */
    uint64_t started = 0;    /* asynchronous commands started */
    uint64_t max_lag_ps = 0; /* the most SystemC time was ahead of a command's start */
    const std::vector<step_result> &results() const
    {
        return res_;
    }

  private:
    struct machine *m_;
    uint64_t steps_;
    std::vector<step_result> res_;
    fs_inflight g_;

    void run();
    static int exec(void *user, const struct hc_prog *p, const struct hc_cmd *c,
                    const uint64_t *ready, uint64_t now, uint64_t *end, uint64_t *free_at,
                    struct err *e);
    static int run_kernel(void *user, struct sim *sim, struct err *e);
};

/* The platform: the modules of machine m, bound. m must outlive it (the host removes its port
 * from m when destroyed). While it exists, whatever runs the machine's scheduler (machine_step,
 * machine_eval) must be called from a SystemC thread, as the host's is: the port waits in
 * SystemC time. async_an: the kinds (a bit mask of enum hc_kind) each AN performs in its own
 * thread, asynchronously (1u << HC_GEMM with the cores in SystemC time: fs_core_be); 0: all
 * synchronous. */
struct fs_platform {
    fs_wn wn;
    std::vector<fs_an *> an;
    fs_fabric fabric;
    fs_host host;

    fs_platform(struct machine *m, uint64_t steps, uint32_t async_an = 0);
    ~fs_platform();
};

} // namespace fs

#endif
