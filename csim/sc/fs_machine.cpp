/* fs_machine: see fs_machine.h. */
#include "csim/sc/fs_machine.h"

#include <cerrno>

#include "csim/sc/fs_time.h"

extern "C" {
#include "models/host/compile.h"
}

namespace fs {

/* The command and its extension; false (and a COMMAND_ERROR response) without one. */
static fs_cmd_ext *command_of(tlm::tlm_generic_payload &tx)
{
    fs_cmd_ext *x = nullptr;
    tx.get_extension(x);
    if (!x || !x->cmd) {
        tx.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return nullptr;
    }
    return x;
}

/* The block's times into the transaction: delay += end - now, free_at in the extension. */
static void annotate(tlm::tlm_generic_payload &tx, fs_cmd_ext *x, uint64_t now, uint64_t end,
                     uint64_t free_at, sc_core::sc_time &delay)
{
    if (x->rc) {
        tx.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    delay += sct(end - now);
    x->free_at = free_at;
    tx.set_response_status(tlm::TLM_OK_RESPONSE);
}

template <typename Node>
void fs_node<Node>::b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay)
{
    fs_cmd_ext *x = command_of(tx);
    if (!x)
        return;
    uint64_t now = now_ps() + ps(delay), end = now, free_at = now;
    x->rc = fn_(node_, x->prog, x->cmd, now, &end, &free_at, x->e);
    commands++;
    annotate(tx, x, now, end, free_at, delay);
}

template struct fs_node<struct wnode>;
template struct fs_node<struct anode>;

fs_fabric::fs_fabric(sc_core::sc_module_name name, struct machine *m)
    : sc_module(name), cmd("cmd"), m_(m)
{
    cmd.register_b_transport(this, &fs_fabric::b_transport);
}

void fs_fabric::b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay)
{
    fs_cmd_ext *x = command_of(tx);
    if (!x)
        return;
    uint64_t now = now_ps() + ps(delay), end = now, free_at = now;
    x->rc = machine_fabric_exec(m_, x->cmd, x->ready, now, &end, &free_at);
    commands++;
    annotate(tx, x, now, end, free_at, delay);
}

fs_host::fs_host(sc_core::sc_module_name name, struct machine *m, uint64_t steps)
    : sc_module(name), to_wn("to_wn"), to_fabric("to_fabric"), to_an("to_an"), m_(m),
      steps_(steps)
{
    struct machine_port port = {exec, run_kernel, this};
    machine_set_port(m_, &port);
    SC_HAS_PROCESS(fs_host);
    SC_THREAD(run);
}

fs_host::~fs_host()
{
    machine_set_port(m_, nullptr);
}

int fs_host::exec(void *user, const struct hc_prog *p, const struct hc_cmd *c,
                  const uint64_t *ready, uint64_t now, uint64_t *end, uint64_t *free_at,
                  struct err *e)
{
    fs_host *h = static_cast<fs_host *>(user);
    tlm::tlm_generic_payload tx;
    fs_cmd_ext x;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;

    /* the machine starts a command at its own time, which fs_run_kernel keeps equal to
     * SystemC's */
    if (now != now_ps())
        return err_set(e, -EPROTO,
                       "csim/sc: command %u starts at %llu ps while SystemC is at %llu ps",
                       c->id, (unsigned long long)now, (unsigned long long)now_ps());
    x.prog = p;
    x.cmd = c;
    x.ready = ready;
    x.e = e;
    tx.set_command(tlm::TLM_IGNORE_COMMAND);
    tx.set_address(c->id);
    tx.set_data_ptr(nullptr);
    tx.set_data_length(0);
    tx.set_streaming_width(0);
    tx.set_extension(&x);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (ready)
        h->to_fabric->b_transport(tx, delay);
    else if (c->node == HC_WN)
        h->to_wn->b_transport(tx, delay);
    else
        h->to_an[c->node]->b_transport(tx, delay);
    tx.clear_extension(&x);
    if (tx.get_response_status() == tlm::TLM_COMMAND_ERROR_RESPONSE)
        return err_set(e, -EPROTO, "csim/sc: command %u: the target found no command", c->id);
    if (x.rc)
        return x.rc;
    *end = now + ps(delay);
    *free_at = x.free_at;
    return 0;
}

int fs_host::run_kernel(void *user, struct sim *sim, struct err *e)
{
    (void)user;
    return fs_run_kernel(sim, e);
}

void fs_host::run()
{
    for (uint64_t k = 0; k < steps_; k++) {
        step_result r;
        struct err e;
        err_clear(&e);
        /* the machine's time leads between steps (its preload, input loads): SystemC follows */
        if (machine_now(m_) > now_ps())
            wait(sct(machine_now(m_) - now_ps()));
        r.rc = machine_step(m_, &r.info, &e);
        r.sc_end_ps = now_ps();
        r.msg = e.msg;
        if (!r.rc) {
            const uint64_t *s, *en;
            size_t n;
            machine_cmd_times(m_, &s, &en, &n);
            r.cmd_start.assign(s, s + n);
            r.cmd_end.assign(en, en + n);
        }
        res_.push_back(r);
        if (r.rc)
            break;
    }
    sc_core::sc_stop();
}

fs_platform::fs_platform(struct machine *m, uint64_t steps)
    : wn("wn", machine_wnode(m), wnode_exec), fabric("fabric", m), host("host", m, steps)
{
    uint32_t n = machine_config(m)->n_an;
    host.to_wn.bind(wn.cmd);
    host.to_fabric.bind(fabric.cmd);
    for (uint32_t i = 0; i < n; i++) {
        an.push_back(new fs_an(("an" + std::to_string(i)).c_str(), machine_anode(m, i), anode_exec));
        host.to_an.bind(an.back()->cmd);
    }
}

fs_platform::~fs_platform()
{
    for (fs_an *a : an)
        delete a;
}

} // namespace fs
